"""``companion bench scan --views N``: each land photographed N times, the photos merged.

The first photo of each land is the one :func:`~companion.scan.bench.bench_scan` reads
for the same seed; the others are the same land photographed again
(:func:`~companion.scan.synth.photograph_again`: another camera, light, and other things
lying over it).  Each photo is read, the readings are merged
(:func:`~companion.scan.merge.merge`), and both the first photo alone and the merge are
compared with the truth: how many questions the other photos answer, and whether the
merge ever reads a cell wrong or is complete and wrong (it must not).
"""

from __future__ import annotations

import dataclasses
import math
import os
import random
import statistics
import time
from typing import Any

from companion.errors import InputError
from companion.games.dino import Land
from companion.scan.bench import compare
from companion.scan.land import build
from companion.scan.merge import Merged, merge
from companion.scan.reader import Reading, read_photo
from companion.scan.synth import REALISTIC_STYLE, Photo, Style, photograph_again, random_photo


def _as_reading(merged: Merged, size: tuple[int, int]) -> Reading:
    return Reading(size, [], {}, {}, merged.cards, merged.cells, merged.unread, None, 0.0)


def _complete(reading: Reading, photo: Photo) -> Land | None:
    if reading.unread:
        return None
    return build(photo.catalog, reading.cells, reading.cards, reading.unread).land


def bench_views(
    photos: int = 20,
    seed: int = 1,
    megapixels: float = 12.0,
    views: int = 2,
    mix: str = "realistic",
) -> dict[str, Any]:
    """The figures of ``photos`` lands, each photographed ``views`` times and merged."""
    width = int(round(math.sqrt(megapixels * 1e6 * 4 / 3)))
    size = (width, int(round(width * 3 / 4)))
    style = REALISTIC_STYLE if mix == "realistic" else Style()
    load = os.getloadavg()[0]
    figures = dict.fromkeys(
        (
            "cells",
            "asked_first_photo",
            "asked_merged",
            "questions_first_photo",
            "questions_merged",
            "invented_cells_first_photo",
            "invented_cells_merged",
            "cells_neither_read_nor_asked_merged",
            "complete_first_photo",
            "complete_merged",
            "complete_but_wrong_first_photo",
            "complete_but_wrong_merged",
            "refused",
        ),
        0,
    )
    times: list[float] = []
    for i in range(photos):
        land_seed = seed * 100_003 + i
        first = random_photo(land_seed, size, style=style)
        shots = [first] + [
            photograph_again(first, random.Random(land_seed * 7 + view), size, style)
            for view in range(1, views)
        ]
        start = time.perf_counter()
        readings = [read_photo(shot.image, shot.catalog) for shot in shots]
        try:
            merged = merge(first.catalog, readings, [f"view {v + 1}" for v in range(views)])
        except InputError:
            figures["refused"] += 1
            continue
        finally:
            times.append(time.perf_counter() - start)
        # The truth: every cell any of the photos shows.
        seen = {cell: t for shot in reversed(shots) for cell, t in shot.cells.items()}
        truth = dataclasses.replace(first, cells=seen)
        together = _as_reading(merged, readings[0].size)
        alone = compare(truth, readings[0], _complete(readings[0], first))
        both = compare(truth, together, _complete(together, first))
        figures["cells"] += alone.visible
        for name, tally, reading in (
            ("first_photo", alone, readings[0]),
            ("merged", both, together),
        ):
            figures[f"asked_{name}"] += tally.unread
            figures[f"questions_{name}"] += len(reading.unread)
            figures[f"invented_cells_{name}"] += tally.invented
            figures[f"complete_{name}"] += tally.land_match is not None
            figures[f"complete_but_wrong_{name}"] += tally.land_match is False or (
                tally.land_match is not None and tally.invented > 0
            )
        figures["cells_neither_read_nor_asked_merged"] += both.missed
    return {
        "photos": photos,
        "views": views,
        "mix": mix,
        "megapixels": round(size[0] * size[1] / 1e6, 1),
        **figures,
        "answered_by_other_photos": figures["asked_first_photo"] - figures["asked_merged"],
        "s_per_land": round(statistics.mean(times), 3) if times else 0.0,
        "load_average": [round(load, 2), round(os.getloadavg()[0], 2)],
    }


def views_lines(report: dict[str, Any]) -> list[str]:
    """:func:`bench_views`'s figures as lines."""
    r = report
    return [
        f"{r['photos']} lands, {r['views']} photos each ({r['mix']}, {r['megapixels']} MP), "
        f"{r['cells']} cells",
        f"asked: first photo {r['asked_first_photo']} cells ({r['questions_first_photo']} "
        f"questions), merged {r['asked_merged']} ({r['questions_merged']}); answered by the "
        f"other photos: {r['answered_by_other_photos']}",
        f"complete: first photo {r['complete_first_photo']}, merged {r['complete_merged']}; "
        f"complete but wrong: {r['complete_but_wrong_first_photo']} and "
        f"{r['complete_but_wrong_merged']} (goal 0)",
        f"invented cells: {r['invented_cells_first_photo']} and {r['invented_cells_merged']}; "
        f"merged, neither read nor asked: {r['cells_neither_read_nor_asked_merged']}; "
        f"merges refused: {r['refused']}",
        f"time per land (all its photos read and merged): {r['s_per_land']} s "
        f"(load average {r['load_average'][0]} to {r['load_average'][1]})",
    ]
