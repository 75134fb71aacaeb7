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
import statistics
import time
from dataclasses import dataclass
from typing import Any

from companion.games.dino import Cell, Land
from companion.scan.grid import ReadOptions
from companion.scan.reader import Reading, read_photo
from companion.scan.synth import CellTruth, Photo, random_photo


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
    for cell, t in moved.items():
        got = reading.cells.get(cell)
        if t.covered > 0:
            covered += 1
        if got == (t.card, t.quarter):
            card = reading.cards[t.card]
            if card.rotation == (t.rotation + 90 * k) % 360:
                right += 1
                covered_right += t.covered > 0
                if t.covered > 0:
                    coverage.append((t.covered, True))
                continue
            invented += 1
            wrong.append(f"{cell}: {t.label} turned {card.rotation}, truth {t.rotation}+{90 * k}")
        elif got is not None:
            invented += 1
            wrong.append(f"{cell}: read {got}, truth {t.label}")
        elif cell in reading.unread:
            unread += 1
        else:
            missed += 1
        if t.covered > 0:
            coverage.append((t.covered, False))
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
        tuple(wrong),
        match,
    )


def bench_scan(
    photos: int = 20,
    seed: int = 1,
    megapixels: float = 12.0,
    options: ReadOptions | None = None,
) -> dict[str, Any]:
    """Read ``photos`` synthetic photos of ``megapixels`` (4:3) and report the figures."""
    from companion.scan.land import build

    width = int(round(math.sqrt(megapixels * 1e6 * 4 / 3)))
    size = (width, int(round(width * 3 / 4)))
    totals = {
        "visible": 0,
        "right": 0,
        "invented": 0,
        "unread": 0,
        "missed": 0,
        "asked_not_there": 0,
    }
    covered = covered_right = complete = lands_right = clear = clear_right = 0
    bands = {"up to 25%": [0, 0], "25 to 50%": [0, 0], "over 50%": [0, 0]}
    times: list[float] = []
    worst: list[dict[str, Any]] = []
    read_by = {"seen": 0, "second look": 0, "verified": 0, "inferred": 0}
    for i in range(photos):
        photo = random_photo(seed * 100_003 + i, size)
        start = time.perf_counter()
        reading = read_photo(photo.image, photo.catalog, options)
        times.append(time.perf_counter() - start)
        land = None
        if not reading.unread:
            built = build(photo.catalog, reading.cells, reading.cards, reading.unread)
            land = built.land
        score = compare(photo, reading, land)
        for cell in reading.cells:
            read_by[reading.how(cell)] += 1
        for key in totals:
            totals[key] += getattr(score, key)
        covered += score.covered
        covered_right += score.covered_right
        clear += score.visible - score.covered
        clear_right += score.right - score.covered_right
        for fraction, read_right in score.coverage:
            band = (
                "up to 25%" if fraction <= 0.25 else "25 to 50%" if fraction <= 0.5 else "over 50%"
            )
            bands[band][0] += 1
            bands[band][1] += read_right
        if land is not None:
            complete += 1
            lands_right += bool(score.land_match)
        if score.invented or score.missed:
            worst.append({"photo": i, "seed": seed * 100_003 + i, "wrong": list(score.wrong)})
    visible = totals["visible"]
    return {
        "photos": photos,
        "megapixels": round(size[0] * size[1] / 1e6, 1),
        "size": list(size),
        "cells": visible,
        "cell_accuracy": round(totals["right"] / visible, 4) if visible else 0.0,
        "invented_cells": totals["invented"],
        "unread_cells": totals["unread"],
        "missed_cells": totals["missed"],
        "asked_not_there": totals["asked_not_there"],
        "clear_cells": clear,
        "clear_cell_accuracy": round(clear_right / clear, 4) if clear else 0.0,
        "covered_cells": covered,
        "covered_cells_read": covered_right,
        "covered_cells_by_cover": {band: {"cells": n, "read": r} for band, (n, r) in bands.items()},
        "cells_read_by": read_by,
        "complete_photos": complete,
        "complete_lands_right": lands_right,
        "s_per_photo": round(statistics.mean(times), 3) if times else 0.0,
        "s_per_photo_max": round(max(times), 3) if times else 0.0,
        "problems": worst,
        "goals": {"cell_accuracy": 0.995, "invented_cells": 0, "s_per_photo": 2.0},
    }


def bench_lines(report: dict[str, Any]) -> list[str]:
    """:func:`bench_scan`'s figures as the lines ``companion bench scan`` prints."""
    lines: list[str] = []
    lines.append(
        f"photos: {report['photos']} at {report['megapixels']} MP "
        f"({report['size'][0]} x {report['size'][1]})"
    )
    lines.append(
        f"cells: {report['cells']} visible; read right {report['cell_accuracy']} (goal 0.995); "
        f"invented {report['invented_cells']} (goal 0); asked {report['unread_cells']}; "
        f"missed {report['missed_cells']}"
    )
    lines.append(
        f"cells with a clear marker: {report['clear_cells']}, "
        f"read right {report['clear_cell_accuracy']}"
    )
    bands = ", ".join(
        f"{band} {v['read']}/{v['cells']}" for band, v in report["covered_cells_by_cover"].items()
    )
    lines.append(
        f"markers partly covered: {report['covered_cells']}, read {report['covered_cells_read']} "
        f"({bands})"
    )
    lines.append(f"asked about cells where no card shows: {report['asked_not_there']}")
    lines.append(
        "cells read by: " + ", ".join(f"{how} {n}" for how, n in report["cells_read_by"].items())
    )
    lines.append(
        f"lands read whole: {report['complete_photos']}, "
        f"the same as the truth: {report['complete_lands_right']}"
    )
    lines.append(
        f"time: {report['s_per_photo']} s per photo (max {report['s_per_photo_max']}; goal 2 s)"
    )
    return lines
