"""``companion bench scan``: read synthetic photos and count what was read right.

Each photo is rendered by :mod:`companion.scan.synth` from its own seed (a random
catalog, a random land, a random camera, tokens and fingers over some markers, uneven
light, blur, noise, JPEG), then read by :func:`~companion.scan.reader.read_photo`; only
the reading is timed.  The reading's frame is its own (the grid turned upright, the
first cell at A1), so it is matched to the truth by the quarter turn and shift that the
most read cells agree on.
"""

from __future__ import annotations

import math
import os
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from companion.games.dino import Cell, Land
from companion.scan.grid import ReadOptions
from companion.scan.reader import Reading, read_photo
from companion.scan.synth import REALISTIC_STYLE, CellTruth, Photo, Style, random_photo


def _turn_cell(cell: Cell, k: int) -> Cell:
    """A cell after ``k`` clockwise quarter turns of the grid about its origin."""
    x, y = cell[0] + 0.5, cell[1] + 0.5
    for _ in range(k % 4):
        x, y = -y, x
    return (math.floor(x), math.floor(y))


@dataclass(frozen=True, slots=True)
class PhotoTally:
    """One photo against its truth."""

    visible: int  # cells of the land in the photo
    right: int  # read, and read right
    invented: int  # read, but not there or not what is there
    unread: int  # listed as unread (asked for)
    missed: int  # neither read nor asked for
    asked_not_there: int  # asked for, but no card shows there
    covered: int  # visible cells whose marker is partly covered
    covered_right: int
    coverage: tuple[tuple[float, bool], ...]  # each covered cell: how much, read right
    by_kind: tuple[tuple[str, str], ...]  # each covered cell: what covers it, and its fate
    wrong: tuple[str, ...]  # what was invented, for a person to look at
    land_match: bool | None  # a complete reading: the same land as the truth


def _align(reading: Reading, truth: dict[Cell, CellTruth]) -> tuple[int, Cell]:
    where = {(t.card, t.quarter): cell for cell, t in truth.items()}
    votes: dict[tuple[int, Cell], int] = {}
    for cell, named in reading.cells.items():
        if named not in where:
            continue
        for k in range(4):
            t = _turn_cell(where[named], k)
            key = (k, (cell[0] - t[0], cell[1] - t[1]))
            votes[key] = votes.get(key, 0) + 1
    if not votes:
        return 0, (0, 0)
    return max(votes, key=lambda key: votes[key])


def _moved_land(land: Land, k: int, shift: Cell) -> tuple[set[Any], set[Any]]:
    def mv(c: Cell) -> Cell:
        t = _turn_cell(c, k)
        return (t[0] + shift[0], t[1] + shift[1])

    sections = {(s.kind, s.dino, s.count, frozenset(mv(c) for c in s.cells)) for s in land.sections}
    mountains = {frozenset((mv(a), mv(b))) for a, b in land.mountains}
    return sections, mountains


def compare(photo: Photo, reading: Reading, land: Land | None = None) -> PhotoTally:
    """Count right, invented, unread and missed cells (and compare the land if given)."""
    truth = photo.cells
    k, shift = _align(reading, truth)
    moved = {}
    for cell, t in truth.items():
        c = _turn_cell(cell, k)
        moved[(c[0] + shift[0], c[1] + shift[1])] = t
    right = invented = unread = missed = covered = covered_right = 0
    wrong = []
    coverage: list[tuple[float, bool]] = []
    by_kind: list[tuple[str, str]] = []
    for cell, t in moved.items():
        got = reading.cells.get(cell)
        if t.covered > 0:
            covered += 1
        fate = "right"
        if got == (t.card, t.quarter):
            card = reading.cards[t.card]
            if card.rotation == (t.rotation + 90 * k) % 360:
                right += 1
                covered_right += t.covered > 0
            else:
                invented += 1
                fate = "wrong"
                wrong.append(
                    f"{cell}: {t.label} turned {card.rotation}, truth {t.rotation}+{90 * k}"
                )
        elif got is not None:
            invented += 1
            fate = "wrong"
            wrong.append(f"{cell}: read {got}, truth {t.label}")
        elif cell in reading.unread:
            unread += 1
            fate = "asked"
        else:
            missed += 1
            fate = "missed"
            wrong.append(f"{cell}: {t.label} neither read nor asked")
        if t.covered > 0:
            coverage.append((t.covered, fate == "right"))
            by_kind.append((t.by or "other", fate))
    for cell, got in reading.cells.items():
        if cell not in moved:
            invented += 1
            wrong.append(f"{cell}: read {got}, nothing there")
    needless = sum(1 for cell in reading.unread if cell not in moved)
    match = None
    if land is not None:
        match = _moved_land(photo.land, k, shift) == _moved_land(land, 0, (0, 0))
    return PhotoTally(
        len(truth),
        right,
        invented,
        unread,
        missed,
        needless,
        covered,
        covered_right,
        tuple(coverage),
        tuple(by_kind),
        tuple(wrong),
        match,
    )


BANDS = ("up to 25%", "25 to 50%", "over 50%")
FATES = ("right", "asked", "missed", "wrong")
GOALS = {
    "cell_accuracy": 0.99,
    "invented_cells": 0,
    "complete_but_wrong": 0,
    "cells_neither_read_nor_asked": 0,
    "covered_up_to_half_read": 0.95,
    "s_per_photo_median": 0.5,
    "s_per_photo_max": 1.5,
}


def _band(fraction: float) -> str:
    return BANDS[0] if fraction <= 0.25 else BANDS[1] if fraction <= 0.5 else BANDS[2]


@dataclass(slots=True)
class _Totals:
    """The figures summed over the photos."""

    cells: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(
            ("visible", "right", "invented", "unread", "missed", "asked_not_there"), 0
        )
    )
    clear: list[int] = field(default_factory=lambda: [0, 0])
    bands: dict[str, dict[str, int]] = field(
        default_factory=lambda: {b: dict.fromkeys(("cells", *FATES), 0) for b in BANDS}
    )
    kinds: dict[str, dict[str, int]] = field(default_factory=dict)
    photos: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("complete", "right", "wrong"), 0)
    )
    read_by: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("seen", "second look", "verified", "inferred"), 0)
    )
    times: list[float] = field(default_factory=list)
    cpu_times: list[float] = field(default_factory=list)  # all the process's threads
    problems: list[dict[str, Any]] = field(default_factory=list)

    def add(self, photo: Photo, reading: Reading, score: PhotoTally, seed: int) -> None:
        for key in self.cells:
            self.cells[key] += getattr(score, key)
        self.clear[0] += score.visible - score.covered
        self.clear[1] += score.right - score.covered_right
        for cell in reading.cells:
            self.read_by[reading.how(cell)] += 1
        for (fraction, _), (kind, fate) in zip(score.coverage, score.by_kind, strict=True):
            band = self.bands[_band(fraction)]
            band["cells"] += 1
            band[fate] += 1
            tally = self._kind(kind)
            tally["cells"] += 1
            tally[fate] += 1
        complete = score.land_match is not None
        wrong = complete and (not score.land_match or score.invented > 0)
        for kind in {t.by for t in photo.cells.values() if t.by} | set(photo.conditions.kinds):
            tally = self._kind(kind)
            tally["photos"] += 1
            tally["complete_but_wrong"] += wrong
        self.photos["complete"] += complete
        self.photos["right"] += complete and not wrong
        self.photos["wrong"] += wrong
        if score.invented or score.missed or wrong:
            self.problems.append({"seed": seed, "wrong": list(score.wrong)})

    def _kind(self, kind: str) -> dict[str, int]:
        if kind not in self.kinds:
            self.kinds[kind] = dict.fromkeys(("photos", "complete_but_wrong", "cells", *FATES), 0)
        return self.kinds[kind]


def _ratio(a: int, b: int) -> float:
    return round(a / b, 4) if b else 0.0


def bench_scan(
    photos: int = 20,
    seed: int = 1,
    megapixels: float = 12.0,
    options: ReadOptions | None = None,
    mix: str = "realistic",
) -> dict[str, Any]:
    """Read ``photos`` synthetic photos of ``megapixels`` (4:3) and report the figures;
    ``mix`` is ``realistic`` (:data:`~companion.scan.synth.REALISTIC_STYLE`) or
    ``classic`` (tokens, fingers and pens only, the first benchmark's photos)."""
    from companion.scan.land import build

    width = int(round(math.sqrt(megapixels * 1e6 * 4 / 3)))
    size = (width, int(round(width * 3 / 4)))
    style = REALISTIC_STYLE if mix == "realistic" else Style()
    totals = _Totals()
    load = os.getloadavg()[0]
    for i in range(photos):
        photo = random_photo(seed * 100_003 + i, size, style=style)
        start, cpu_start = time.perf_counter(), time.process_time()
        reading = read_photo(photo.image, photo.catalog, options)
        totals.times.append(time.perf_counter() - start)
        totals.cpu_times.append(time.process_time() - cpu_start)
        land = None
        if not reading.unread:
            land = build(photo.catalog, reading.cells, reading.cards, reading.unread).land
        totals.add(photo, reading, compare(photo, reading, land), seed * 100_003 + i)
    return _report(totals, photos, size, mix, (load, os.getloadavg()[0]))


def _report(
    t: _Totals, photos: int, size: tuple[int, int], mix: str, load: tuple[float, float]
) -> dict[str, Any]:
    cells = t.cells
    visible = cells["visible"]
    half = [t.bands[b] for b in BANDS[:2]]
    times = t.times
    return {
        "photos": photos,
        "mix": mix,
        "megapixels": round(size[0] * size[1] / 1e6, 1),
        "size": list(size),
        "cells": visible,
        "cell_accuracy": _ratio(cells["right"], visible),
        "readable_cells": t.clear[0] + sum(b["cells"] for b in half),
        "readable_cell_accuracy": _ratio(
            t.clear[1] + sum(b["right"] for b in half), t.clear[0] + sum(b["cells"] for b in half)
        ),
        "invented_cells": cells["invented"],
        "unread_cells": cells["unread"],
        "missed_cells": cells["missed"],
        "cells_neither_read_nor_asked": cells["missed"],
        "asked_not_there": cells["asked_not_there"],
        "clear_cells": t.clear[0],
        "clear_cell_accuracy": _ratio(t.clear[1], t.clear[0]),
        "covered_cells": sum(b["cells"] for b in t.bands.values()),
        "covered_cells_read": sum(b["right"] for b in t.bands.values()),
        "covered_up_to_half_read": _ratio(
            sum(b["right"] for b in half), sum(b["cells"] for b in half)
        ),
        "covered_up_to_half_misread": sum(b["wrong"] for b in half),
        "covered_cells_by_cover": {
            band: {"cells": v["cells"], "read": v["right"], **{f: v[f] for f in FATES[1:]}}
            for band, v in t.bands.items()
        },
        "by_kind": {k: t.kinds[k] for k in sorted(t.kinds)},
        "cells_read_by": t.read_by,
        "complete_photos": t.photos["complete"],
        "complete_lands_right": t.photos["right"],
        "complete_but_wrong": t.photos["wrong"],
        "s_per_photo": round(statistics.mean(times), 3) if times else 0.0,
        "s_per_photo_median": round(statistics.median(times), 3) if times else 0.0,
        "s_per_photo_max": round(max(times), 3) if times else 0.0,
        # CPU seconds (every thread of the process): less at the mercy of a busy machine
        "cpu_s_per_photo_median": round(statistics.median(t.cpu_times), 3) if times else 0.0,
        "cpu_s_per_photo_max": round(max(t.cpu_times), 3) if times else 0.0,
        "load_average": [round(v, 2) for v in load],
        "problems": t.problems,
        "goals": GOALS,
    }


def bench_lines(report: dict[str, Any]) -> list[str]:
    """:func:`bench_scan`'s figures as the lines ``companion bench scan`` prints."""
    lines: list[str] = []
    lines.append(
        f"photos: {report['photos']} ({report['mix']}) at {report['megapixels']} MP "
        f"({report['size'][0]} x {report['size'][1]})"
    )
    lines.append(
        f"cells: {report['cells']} visible; read right {report['cell_accuracy']} (goal 0.99); "
        f"invented {report['invented_cells']} (goal 0); asked {report['unread_cells']}; "
        f"neither read nor asked {report['cells_neither_read_nor_asked']} (goal 0)"
    )
    lines.append(
        f"cells with a clear marker: {report['clear_cells']}, "
        f"read right {report['clear_cell_accuracy']}; with at most half of it covered: "
        f"{report['readable_cells']}, read right {report['readable_cell_accuracy']}"
    )
    bands = ", ".join(
        f"{band} {v['read']}/{v['cells']}" for band, v in report["covered_cells_by_cover"].items()
    )
    lines.append(
        f"markers partly covered: {report['covered_cells']}, read {report['covered_cells_read']} "
        f"({bands}); up to half covered read {report['covered_up_to_half_read']} (goal 0.95), "
        f"misread {report['covered_up_to_half_misread']} (goal 0)"
    )
    for kind, v in report["by_kind"].items():
        lines.append(
            f"  {kind}: {v['photos']} photos, {v['complete_but_wrong']} complete but wrong; "
            f"markers under it {v['cells']}: read {v['right']}, asked {v['asked']}, "
            f"neither {v['missed']}, wrong {v['wrong']}"
        )
    lines.append(f"asked about cells where no card shows: {report['asked_not_there']}")
    lines.append(
        "cells read by: " + ", ".join(f"{how} {n}" for how, n in report["cells_read_by"].items())
    )
    lines.append(
        f"lands read whole: {report['complete_photos']}, "
        f"the same as the truth: {report['complete_lands_right']}, "
        f"complete but wrong: {report['complete_but_wrong']} (goal 0)"
    )
    lines.append(
        f"time: median {report['s_per_photo_median']} s per photo (goal 0.5), mean "
        f"{report['s_per_photo']}, max {report['s_per_photo_max']} (goal 1.5); CPU time median "
        f"{report['cpu_s_per_photo_median']} s, max {report['cpu_s_per_photo_max']}; load "
        f"average {report['load_average'][0]} to {report['load_average'][1]}"
    )
    return lines
