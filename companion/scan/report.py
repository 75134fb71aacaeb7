"""The scan's wording: what a photo's reading says, as JSON and as lines a table reads.

Beside the reading it reports (:mod:`companion.scan.reader`, :mod:`companion.scan.land`);
the score inside it is the one the score command prints
(:mod:`companion.games.dino.report`), so both say the same thing the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from companion.games.dino import Cell, score
from companion.games.dino.formats import land_to_dict
from companion.games.dino.report import score_dict, score_lines
from companion.games.dino.text import column_name, render_grid
from companion.scan.land import TROUBLE_WORDS, Built, Trouble, cell_label, quarter_name
from companion.scan.outline import area_name, areas

if TYPE_CHECKING:
    from companion.scan.merge import Merged
    from companion.scan.reader import Reading


def _land_dict(built: Built) -> dict[str, Any]:
    """What the land built says: complete or not, the land and its score, the questions."""
    land = built.land if built.complete else None
    return {
        "complete": built.complete,
        "land": land_to_dict(land) if land is not None else None,
        "score": score_dict(land, score(land)) if land is not None else None,
        "unread": [u.to_dict() for u in built.unread],
        "areas": covered_areas(built),
        "nests": [cell_label(c) for c in built.nests],
        "eggs_answered": built.eggs_answered,
        "cards": [
            {"card": p.card, "x": p.x, "y": p.y, "rotation": p.rotation}
            for p in sorted(built.cards.values(), key=lambda p: (p.y, p.x, p.card))
        ],
    }


def _cell_dicts(
    cells: dict[Cell, tuple[str, int]], how: Callable[[Cell], str]
) -> list[dict[str, Any]]:
    return [
        {
            "cell": list(cell),
            "name": cell_label(cell),
            "card": card,
            "quarter": quarter_name(quarter),
            "how": how(cell),
        }
        for cell, (card, quarter) in sorted(cells.items(), key=lambda i: i[0][::-1])
    ]


def _markers_dict(reading: Reading) -> dict[str, Any]:
    return {
        "found": len(reading.markers),
        "used": len(reading.placed) - len(set(reading.placed) & set(reading.ignored)),
        "ignored": [
            {"marker": f"{m.card}:{quarter_name(m.quarter)}", "why": reading.ignored[i]}
            for i, m in enumerate(reading.markers)
            if i in reading.ignored
        ],
    }


def scan_dict(photo: str, reading: Reading, built: Built, annotated: str | None) -> dict[str, Any]:
    """The ``--json`` object: the land of formats.md and its score when complete."""
    return {
        "photo": photo,
        **_land_dict(built),
        "cells": _cell_dicts(reading.cells, reading.how),
        "markers": _markers_dict(reading),
        "annotated": annotated,
    }


def merged_dict(
    photos: Sequence[str], merged: Merged, built: Built, annotated: Sequence[str | None]
) -> dict[str, Any]:
    """The ``--json`` object for several photos: :func:`scan_dict`'s keys (``photo`` the
    first, ``markers`` summed, ``annotated`` a list), ``photos`` (each one's path, cells
    read and asked, quarter turn against the first, markers, annotated image), which
    photos read each cell, and what each photo shows on each cell still asked."""
    out = {"photo": photos[0], "photos": [], **_land_dict(built)}
    for name, view, by, image in zip(photos, merged.views, merged.turns, annotated, strict=True):
        out["photos"].append(
            {
                "photo": name,
                "cells_read": len(view.cells),
                "unread": len(view.unread),
                "turn": 90 * by.quarters,
                "markers": _markers_dict(view),
                "annotated": image,
            }
        )
    for item in out["unread"]:
        saw = merged.saw.get(tuple(item["cell"]), ())
        item["photos"] = [{"photo": p, "saw": s} for p, s in zip(photos, saw, strict=True)]
    cells = _cell_dicts(merged.cells, merged.how)
    for item in cells:
        item["photos"] = [photos[i] for i in merged.read_by[tuple(item["cell"])]]
    marks = [_markers_dict(v) for v in merged.views]
    out["cells"] = cells
    out["markers"] = {
        "found": sum(m["found"] for m in marks),
        "used": sum(m["used"] for m in marks),
        "ignored": [
            {**i, "photo": p} for p, m in zip(photos, marks, strict=True) for i in m["ignored"]
        ],
    }
    out["annotated"] = list(annotated)
    return out


def _map(built: Built) -> list[str]:
    """The cells as a grid of tokens, ``?`` for the unread ones (cell names as labels)."""

    cells = built.cells
    if not cells:
        return []
    xs = [c[0] for c in cells]
    ys = [c[1] for c in cells]
    x0, y0 = min(0, min(xs)), min(0, min(ys))
    cols = range(x0, max(xs) + 1)
    width = max(3, *(len(t) for t in cells.values()))
    lines = ["     " + "  ".join(column_name(x - x0).ljust(width) for x in cols).rstrip()]
    for y in range(y0, max(ys) + 1):
        row = "  ".join(cells.get((x, y), ".").ljust(width) for x in cols)
        lines.append(f"{y - y0 + 1:>3}  {row}".rstrip())
    return lines


def _how_lines(built: Built, cells: Iterable[Cell], how: Callable[[Cell], str]) -> list[str]:
    """The first line's counts (cards, cells read, how many verified and inferred), and
    the cells read with the marker hidden."""
    cells = list(cells)
    verified = sum(1 for c in cells if how(c) == "verified")
    inferred = sorted((c for c in cells if how(c) == "inferred"), key=lambda c: (c[1], c[0]))
    ways = [f"{verified} verified though partly covered"] if verified else []
    ways += [f"{len(inferred)} inferred with the marker hidden"] if inferred else []
    lines = [
        f"{len(built.cards)} cards, {len(cells)} cells read"
        + (f" ({', '.join(ways)})" if ways else "")
        + f", {len(built.unread)} unread."
    ]
    if inferred:
        names = ", ".join(cell_label(c) for c in inferred)
        lines.append(
            f"Read with the marker hidden, as no other card can lie there: {names} "
            "(check them in the annotated image)."
        )
    return lines


def _head(photo: str, reading: Reading, built: Built, annotated: str | None) -> list[str]:
    """What was read: cards and cells (and how), markers not used, the annotated image."""
    first, *lines = _how_lines(built, reading.cells, reading.how)
    lines.insert(0, f"Chomp land from {photo}: {first}")
    if not reading.markers:
        lines.append(
            "No markers found: is this a land with marker stickers, in focus? (docs/scan.md)"
        )
    if reading.ignored:
        lines.append(f"{len(reading.ignored)} marker(s) not used (see the annotated image).")
    if annotated:
        lines.append(f"What the scan saw: {annotated}")
    return lines


def _merged_head(
    photos: Sequence[str], merged: Merged, built: Built, annotated: Sequence[str | None]
) -> list[str]:
    """The photos (what each read, how it lies against the first), the cells each
    photo read, and what :func:`_how_lines` says of the merged land."""
    first, *rest = _how_lines(built, merged.cells, merged.how)
    lines = [f"Chomp land from {len(photos)} photos: {first}"]
    for k, (name, view, by) in enumerate(zip(photos, merged.views, merged.turns, strict=True)):
        text = f"  photo {k + 1}: {name}, {len(view.cells)} cells read, {len(view.unread)} unread"
        if k and by.quarters:
            text += f", turned {90 * by.quarters} degrees against photo 1"
        if view.ignored:
            text += f", {len(view.ignored)} marker(s) not used"
        lines.append(text + (f"; what the scan saw: {annotated[k]}" if annotated[k] else ""))
    groups: dict[tuple[int, ...], list[Cell]] = {}
    for cell in sorted(merged.cells, key=lambda c: (c[1], c[0])):
        groups.setdefault(merged.read_by[cell], []).append(cell)
    for by_photos in sorted(groups, key=lambda g: (-len(g), g)):
        which = ", ".join(str(i + 1) for i in by_photos)
        label = f"photos {which}" if len(by_photos) > 1 else f"photo {which} only"
        lines.append(f"Read in {label}: {' '.join(cell_label(c) for c in groups[by_photos])}")
    return lines + rest


def covered_areas(built: Built) -> list[dict[str, Any]]:
    """The areas around the land that may hold a card no marker explains, each with the
    cells to answer (``covered``: something lies there; ``outside``: out of the photo)."""
    found = []
    for trouble in (Trouble.COVERED, Trouble.OUTSIDE):
        cells = [u.cell for u in built.unread if u.trouble is trouble and not u.candidates]
        for area in areas(cells):
            found.append(
                {
                    "name": area_name(area),
                    "cells": [cell_label(c) for c in area],
                    "trouble": str(trouble),
                }
            )
    return found


def _area_lines(built: Built, asks: list[str]) -> list[str]:
    lines = []
    for area in covered_areas(built):
        name = area["name"]
        first = area["cells"][0]
        if area["trouble"] == Trouble.COVERED:
            lines.append(f"  Something covers {name}: what card is there?")
        else:
            lines.append(f"  The photo ends at {name}, beside the land: what card is there?")
        lines.append(
            f"    answer each cell ({first}=CARD:QUARTER@ROTATION), or "
            f"{name.replace(', ', '+')}=. if no card lies there"
        )
        asks.append(f"{name.replace(', ', '+')}=.")
    return lines


def _unread_lines(
    built: Built, asks: list[str], saw: Callable[[Cell], str] | None = None
) -> list[str]:
    """One line per unread cell (and its likely answer, added to ``asks``); the areas
    around the land that may hold a card no marker explains, one line each.  With
    several photos, ``saw`` says what each one shows on a cell the photos disagree on."""
    lines = ["", "Unread cells (answer with --patch, see docs/scan.md):"]
    area_lines = _area_lines(built, asks)
    for u in built.unread:
        if u.trouble in (Trouble.COVERED, Trouble.OUTSIDE) and not u.candidates:
            continue
        text = f"  {cell_label(u.cell):<4} [{u.cell[0]}, {u.cell[1]}]  {TROUBLE_WORDS[u.trouble]}"
        if saw is not None and u.trouble is Trouble.PHOTOS_DISAGREE:
            text += f" ({saw(u.cell)})"  # it names the candidates too
            asks.append(f"{cell_label(u.cell)}=...")
        elif u.candidates and u.trouble is Trouble.NOT_SEEN:
            card, quarter = u.candidates[0]
            names = ", ".join(f"{c}:{quarter_name(q)}" for c, q in u.candidates)
            text += f"; under it: {names} (if nothing else lies on top)"
            asks.append(f"{cell_label(u.cell)}={card}:{quarter_name(quarter)}")
        elif u.candidates:
            names = ", ".join(f"{c}:{quarter_name(q)}" for c, q in u.candidates)
            text += f" ({names})"
            asks.append(f"{cell_label(u.cell)}=...")
        else:
            asks.append(f"{cell_label(u.cell)}=...")
        lines.append(text)
    return lines + area_lines


def scan_lines(
    photo: str,
    catalog_path: str,
    reading: Reading,
    built: Built,
    annotated: str | None,
    out: str | None,
) -> list[str]:
    """The readable report: what was read, what is asked, and the score when complete."""
    head = _head(photo, reading, built, annotated)
    return head + _land_lines(built, f"{photo} --catalog {catalog_path}", out)


def merged_lines(
    photos: Sequence[str],
    catalog_path: str,
    merged: Merged,
    built: Built,
    annotated: Sequence[str | None],
    out: str | None,
) -> list[str]:
    """:func:`scan_lines` for several photos: each photo's part, which photos read each
    cell, and on a cell the photos disagree on, what each one shows."""

    def saw(cell: Cell) -> str:
        return ", ".join(
            f"photo {k + 1}: {what}" for k, what in enumerate(merged.saw.get(cell, ()))
        )

    head = _merged_head(photos, merged, built, annotated)
    return head + _land_lines(built, f"{' '.join(photos)} --catalog {catalog_path}", out, saw)


def _land_lines(
    built: Built, command: str, out: str | None, saw: Callable[[Cell], str] | None = None
) -> list[str]:
    """The land (or the map of what shows), the questions, and the score when complete."""
    lines = [""]
    land = built.land
    if land is not None and not built.unread:
        lines.extend(render_grid(land, labels=True).splitlines())
    else:
        lines.extend(_map(built))
    asks: list[str] = []
    if built.unread:
        lines.extend(_unread_lines(built, asks, saw))
    if built.nests and not built.eggs_answered:
        names = ", ".join(cell_label(c) for c in built.nests)
        lines.append("")
        lines.append(
            f"Nests at {names}: markers cannot see egg tokens. Which hold one? "
            f'(--patch "egg {cell_label(built.nests[0])}" or --patch "no eggs")'
        )
        asks.append(f"egg {cell_label(built.nests[0])}")
    if land is not None and not built.unread:
        lines.append("")
        if not built.complete:
            lines.append("Without egg tokens, the land scores:")
        lines.extend(score_lines(land, score(land), False))
    if asks:
        lines.append("")
        example = "; ".join(asks[:4])
        lines.append(f'Then: companion dino scan {command} --patch "{example}"')
        if out:
            lines.append(f"(The land goes to {out} once nothing is left to ask.)")
    elif out:
        lines.append(f"Land written to {out}.")
    return lines
