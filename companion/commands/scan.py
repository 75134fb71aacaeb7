"""``companion dino markers`` / ``companion dino scan`` / ``companion bench scan``.

The sticker sheet for a card catalog, the photo of a land read through those stickers,
and the benchmark on synthetic photos (docs/scan.md).  OpenCV and Pillow come with the
``scan`` extra and are imported inside the handlers only: without them each command says
so in one line (exit 2), and ``companion --help`` stays fast either way.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.errors import InputError
from companion.files import dump_json, read_text, source_name

if TYPE_CHECKING:
    from companion.games.dino_catalog import Catalog
    from companion.scan.land import Built, Patch
    from companion.scan.reader import Reading

EXIT_ASK = 3  # the photo left questions: unread cells, or eggs on nests


def register_scan(dino: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``markers`` and ``scan`` to the subcommands of ``companion dino``."""
    markers = dino.add_parser(
        "markers",
        help="print a sheet of marker stickers for the cards of a catalog",
        description="Render the sticker sheet for CATALOG at true size: one marker per card "
        "quarter, grouped by card as the quarters lie, labelled with the card and the "
        "quarter. Print at 100%% (the sheet has a 50 mm bar to check) and stick each "
        "marker on its quarter with the label below it (docs/scan.md).",
    )
    markers.add_argument("catalog", metavar="CATALOG", help="the card catalog JSON")
    markers.add_argument(
        "-o",
        "--out",
        action="append",
        metavar="FILE",
        help="a .pdf or .png to write; repeat for both (default: markers.pdf and markers.png)",
    )
    markers.add_argument("--dpi", type=int, default=300, help="print resolution (300)")
    markers.add_argument(
        "--marker-mm", type=float, default=12.0, help="side of a marker's black square (12)"
    )
    markers.add_argument("--paper", default="a4", help="a4 or letter (a4)")
    markers.set_defaults(handler=run_markers)

    scan = dino.add_parser(
        "scan",
        help="read a photo of a land (markers on the cards) and score it",
        description="Find the markers in PHOTO, fit the quarter grid, place each card with "
        "its rotation, build the land through the catalog and score it. Cells it cannot "
        "read are listed (exit status 3), never guessed: answer them, and say which nests "
        "hold an egg token, with --patch (docs/scan.md).",
    )
    scan.add_argument("photo", metavar="PHOTO", help="a photo of one land, from above")
    scan.add_argument("--catalog", required=True, metavar="CATALOG", help="the card catalog")
    scan.add_argument(
        "--patch",
        action="append",
        metavar="TEXT|@FILE",
        help='answers for unread cells and eggs, e.g. "C2=x01:B1; D4=.; egg B3" (repeatable)',
    )
    scan.add_argument("--out", metavar="LAND.json", help="write the land JSON when complete")
    scan.add_argument(
        "--annotated",
        metavar="IMAGE",
        help="where to save what the scan saw (default: PHOTO-scan.jpg beside the photo)",
    )
    scan.add_argument("--no-annotated", action="store_true", help="do not save the annotated image")
    scan.add_argument(
        "--no-infer",
        action="store_true",
        help="ask for every cell whose marker is hidden, even where no other card can lie",
    )
    scan.add_argument("--json", action="store_true", help="print one JSON object")
    scan.set_defaults(handler=run_scan)


def register_bench(bench: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``scan`` to the subcommands of ``companion bench``."""
    scan = bench.add_parser(
        "scan",
        help="read synthetic photos of lands and count what was read right",
        description="Render PHOTOS synthetic photos (random catalog, random land, random "
        "camera with tilt and turn, tokens and fingers over some markers, uneven light, "
        "blur, noise, JPEG), read them, and print cell_accuracy (visible cells read right), "
        "invented_cells (cells read as something that is not there) and s_per_photo (the "
        "reading only). Goals: 0.995, 0, 2 s at 12 MP.",
    )
    scan.add_argument("--photos", type=int, default=20, help="photos to read (20)")
    scan.add_argument("--seed", type=int, default=1)
    scan.add_argument("--megapixels", type=float, default=12.0, help="photo size (12)")
    scan.add_argument("--json", action="store_true", help="one JSON object")
    scan.set_defaults(handler=run_bench_scan)


# --------------------------------------------------------------------------------------
# Shared
# --------------------------------------------------------------------------------------


def _need_scan() -> None:
    """OpenCV with ArUco and Pillow, or one line saying how to get them."""
    from companion.scan import ScanUnavailable, require_cv2

    require_cv2()
    try:
        import PIL  # noqa: F401
    except ImportError:
        raise ScanUnavailable() from None


def _catalog(path: str) -> Catalog:
    from companion.commands.dino import read_catalog

    return read_catalog(path)


# --------------------------------------------------------------------------------------
# markers
# --------------------------------------------------------------------------------------


def run_markers(args: argparse.Namespace) -> int:
    _need_scan()
    from companion.scan.markers import DICTIONARY_NAME, SheetLayout, render_sheet, save_sheet

    catalog = _catalog(args.catalog)
    layout = SheetLayout(args.dpi, args.marker_mm, args.paper.lower())
    pages = render_sheet(catalog, layout)
    targets = [Path(p) for p in (args.out or ["markers.pdf", "markers.png"])]
    written: list[Path] = []
    for target in targets:
        written.extend(save_sheet(pages, target, layout.dpi))
    stickers = len(catalog.cards) * 4
    print(
        f"{source_name(args.catalog)}: {len(catalog.cards)} cards, {stickers} stickers "
        f"({DICTIONARY_NAME}, {layout.marker_mm:g} mm markers) on {len(pages)} "
        f"{layout.paper.upper()} page{'s' if len(pages) != 1 else ''} at {layout.dpi} dpi"
    )
    for path in written:
        print(f"  wrote {path}")
    print("Print at 100% (actual size) and check the 50 mm bar with a ruler.")
    return 0


# --------------------------------------------------------------------------------------
# scan
# --------------------------------------------------------------------------------------


def _read_image(path: str) -> Any:
    import cv2

    if not Path(path).is_file():
        raise InputError("", "no such file" if not Path(path).exists() else "not a file", path)
    image = cv2.imread(path, cv2.IMREAD_COLOR)
    if image is None:
        raise InputError("", "not an image OpenCV can read (JPEG, PNG, ...)", path)
    return image


def read_patch(values: list[str] | None) -> Patch:
    """``--patch`` values: typed text, or ``@FILE``; errors name the item and the file."""
    from companion.scan.land import Patch, parse_patch

    if not values:
        return Patch()
    parts: list[Patch] = []
    for k, value in enumerate(values, 1):
        if value.startswith("@"):
            name = value[1:]
            text = read_text(name)
            parts.append(parse_patch(text, source_name(name)))
        else:
            label = "--patch" if len(values) == 1 else f"--patch #{k}"
            parts.append(parse_patch(value, label))
    if len(parts) == 1:
        return parts[0]
    return Patch(
        tuple(i for p in parts for i in p.items),
        tuple(e for p in parts for e in p.eggs),
        any(p.no_eggs for p in parts),
        tuple(d for p in parts for d in p.drop),
    )


def run_scan(args: argparse.Namespace) -> int:
    _need_scan()
    import cv2

    from companion.scan.annotate import annotate
    from companion.scan.land import build
    from companion.scan.reader import ReadOptions, read_photo

    catalog = _catalog(args.catalog)
    patch = read_patch(args.patch)
    image = _read_image(args.photo)
    reading = read_photo(image, catalog, ReadOptions(infer=not args.no_infer))
    built = build(catalog, reading.cells, reading.cards, reading.unread, patch)
    annotated: str | None = None
    if not args.no_annotated:
        default = args.annotated is None
        target = Path(args.annotated or _beside(args.photo))
        picture = annotate(image, reading)
        ok = False
        try:
            ok = bool(cv2.imwrite(str(target), picture))
        except cv2.error:
            ok = False
        if ok:
            annotated = str(target)
        elif default:
            print(f"companion: could not save the annotated image to {target}", file=sys.stderr)
        else:
            raise InputError("", "could not write the annotated image here", str(target))
    if args.out and built.complete and built.land is not None:
        from companion.games.dino import land_to_dict

        try:
            Path(args.out).write_text(dump_json(land_to_dict(built.land)) + "\n", encoding="utf-8")
        except OSError as exc:
            raise InputError("", exc.strerror or str(exc), args.out) from None
    if args.json:
        print(dump_json(scan_dict(args.photo, reading, built, annotated)))
    else:
        for line in scan_lines(args.photo, args.catalog, reading, built, annotated, args.out):
            print(line)
    return 0 if built.complete else EXIT_ASK


def _beside(photo: str) -> Path:
    path = Path(photo)
    return path.with_name(f"{path.stem}-scan.jpg")


def scan_dict(photo: str, reading: Reading, built: Built, annotated: str | None) -> dict[str, Any]:
    """The ``--json`` object: the land of formats.md and its score when complete."""
    from companion.commands.dino import score_dict
    from companion.games.dino import land_to_dict, score
    from companion.scan.land import cell_label, quarter_name

    land = built.land if built.complete else None
    return {
        "photo": photo,
        "complete": built.complete,
        "land": land_to_dict(land) if land is not None else None,
        "score": score_dict(land, score(land)) if land is not None else None,
        "unread": [u.to_dict() for u in built.unread],
        "nests": [cell_label(c) for c in built.nests],
        "eggs_answered": built.eggs_answered,
        "cards": [
            {"card": p.card, "x": p.x, "y": p.y, "rotation": p.rotation}
            for p in sorted(built.cards.values(), key=lambda p: (p.y, p.x, p.card))
        ],
        "cells": [
            {
                "cell": list(cell),
                "name": cell_label(cell),
                "card": card,
                "quarter": quarter_name(quarter),
                "how": reading.how(cell),
            }
            for cell, (card, quarter) in sorted(reading.cells.items(), key=lambda i: i[0][::-1])
        ],
        "markers": {
            "found": len(reading.markers),
            "used": len(reading.placed) - len(set(reading.placed) & set(reading.ignored)),
            "ignored": [
                {"marker": f"{m.card}:{quarter_name(m.quarter)}", "why": reading.ignored[i]}
                for i, m in enumerate(reading.markers)
                if i in reading.ignored
            ],
        },
        "annotated": annotated,
    }


def _map(built: Built) -> list[str]:
    """The cells as a grid of tokens, ``?`` for the unread ones (cell names as labels)."""
    from companion.games.dino_text import column_name

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


def scan_lines(
    photo: str,
    catalog_path: str,
    reading: Reading,
    built: Built,
    annotated: str | None,
    out: str | None,
) -> list[str]:
    """The readable report: what was read, what is asked, and the score when complete."""
    from companion.commands.dino import score_lines
    from companion.games.dino import score
    from companion.games.dino_text import render_grid
    from companion.scan.land import TROUBLE_WORDS, Trouble, cell_label, quarter_name

    verified = sum(1 for c in reading.cells if reading.how(c) == "verified")
    inferred = sorted(
        (c for c in reading.cells if reading.how(c) == "inferred"), key=lambda c: (c[1], c[0])
    )
    how = [f"{verified} verified though partly covered"] if verified else []
    how += [f"{len(inferred)} inferred with the marker hidden"] if inferred else []
    lines = [
        f"Chomp land from {photo}: {len(built.cards)} cards, {len(reading.cells)} cells read"
        + (f" ({', '.join(how)})" if how else "")
        + f", {len(built.unread)} unread."
    ]
    if inferred:
        names = ", ".join(cell_label(c) for c in inferred)
        lines.append(
            f"Read with the marker hidden, as no other card can lie there: {names} "
            "(check them in the annotated image)."
        )
    if not reading.markers:
        lines.append(
            "No markers found: is this a land with marker stickers, in focus? (docs/scan.md)"
        )
    if reading.ignored:
        lines.append(f"{len(reading.ignored)} marker(s) not used (see the annotated image).")
    if annotated:
        lines.append(f"What the scan saw: {annotated}")
    lines.append("")
    land = built.land
    if land is not None and not built.unread:
        lines.extend(render_grid(land, labels=True).splitlines())
    else:
        lines.extend(_map(built))
    asks: list[str] = []
    if built.unread:
        lines.append("")
        lines.append("Unread cells (answer with --patch, see docs/scan.md):")
        for u in built.unread:
            text = (
                f"  {cell_label(u.cell):<4} [{u.cell[0]}, {u.cell[1]}]  {TROUBLE_WORDS[u.trouble]}"
            )
            if u.candidates and u.trouble is Trouble.NOT_SEEN:
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
        result = score(land)
        if not built.complete:
            lines.append("Without egg tokens, the land scores:")
        lines.extend(score_lines(land, result, False))
    if asks:
        lines.append("")
        example = "; ".join(asks[:4])
        lines.append(
            f'Then: companion dino scan {photo} --catalog {catalog_path} --patch "{example}"'
        )
        if out:
            lines.append(f"(The land goes to {out} once nothing is left to ask.)")
    elif out:
        lines.append(f"Land written to {out}.")
    return lines


# --------------------------------------------------------------------------------------
# bench scan
# --------------------------------------------------------------------------------------


def run_bench_scan(args: argparse.Namespace) -> int:
    _need_scan()
    from companion.scan.bench import bench_scan

    if args.photos < 1:
        raise InputError("--photos", "must be at least 1")
    if not 0.5 <= args.megapixels <= 50:
        raise InputError("--megapixels", "must be between 0.5 and 50")
    report = bench_scan(args.photos, args.seed, args.megapixels)
    if args.json:
        print(dump_json(report))
        return 0
    print(
        f"photos: {report['photos']} at {report['megapixels']} MP "
        f"({report['size'][0]} x {report['size'][1]})"
    )
    print(
        f"cells: {report['cells']} visible; read right {report['cell_accuracy']} (goal 0.995); "
        f"invented {report['invented_cells']} (goal 0); asked {report['unread_cells']}; "
        f"missed {report['missed_cells']}"
    )
    print(
        f"cells with a clear marker: {report['clear_cells']}, "
        f"read right {report['clear_cell_accuracy']}"
    )
    bands = ", ".join(
        f"{band} {v['read']}/{v['cells']}" for band, v in report["covered_cells_by_cover"].items()
    )
    print(
        f"markers partly covered: {report['covered_cells']}, read {report['covered_cells_read']} "
        f"({bands})"
    )
    print(f"asked about cells where no card shows: {report['asked_not_there']}")
    print("cells read by: " + ", ".join(f"{how} {n}" for how, n in report["cells_read_by"].items()))
    print(
        f"lands read whole: {report['complete_photos']}, "
        f"the same as the truth: {report['complete_lands_right']}"
    )
    print(f"time: {report['s_per_photo']} s per photo (max {report['s_per_photo_max']}; goal 2 s)")
    return 0
