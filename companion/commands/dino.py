"""``companion dino``: score a Chomp land, rank a whole game, check a card catalog.

The rules live in :mod:`companion.games.dino` (and its text grid and catalog modules);
this module reads the files, finds out which kind of input it was given, and prints.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from companion import data
from companion.commands.options import add_history_options, counted
from companion.errors import InputError
from companion.files import check_target, dump_json, parse_json, read_text, source_name
from companion.games.dino import Land, Score, score, score_game
from companion.games.dino.catalog import Catalog, Replay
from companion.games.dino.formats import (
    catalog_from_dict,
    game_from_dict,
    land_from_dict,
    log_from_dict,
)
from companion.games.dino.report import (
    catalog_dict,
    catalog_lines,
    game_dict,
    game_lines,
    replay_line,
    score_dict,
    score_lines,
)
from companion.games.dino.text import parse_grid, render_grid
from companion.scan import require_scan

if TYPE_CHECKING:
    from companion.scan.land import Built, Patch
    from companion.scan.reader import Reading

T = TypeVar("T")

EXIT_ASK = 3  # the photo left questions: unread cells, or eggs on nests


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    dino = commands.add_parser("dino", help="Chomp, the dinosaur land game: scores")
    sub = dino.add_subparsers(dest="dino_command", metavar="COMMAND", required=True)

    score_ = sub.add_parser(
        "score",
        help="score one land (JSON, a text grid, or a placement log)",
        description="Score one Chomp land: find the herds, feed them in the rulebook's "
        "order (tar pits, carnivores, herbivores), add dinos, eggs and goals. FILE is the "
        "land JSON of docs/formats.md, a text grid (docs/dino-grid.md) or a placement log "
        "(docs/dino-catalog.md).",
    )
    score_.add_argument("file", metavar="FILE|-", help="the land, or - for stdin")
    score_.add_argument("--json", action="store_true", help="print the score as JSON")
    score_.add_argument(
        "--explain", action="store_true", help="tell, herd by herd, why it lived or died"
    )
    add_player_option(score_)
    score_.set_defaults(handler=run_score)

    game = sub.add_parser(
        "game",
        help="score every player's land and goals and rank them",
        description="Score a whole game of Chomp and rank the players; ties are broken by "
        "the most dinos in the biggest living herd, and are shared if still equal.",
    )
    game.add_argument("file", metavar="FILE|-", help="the game JSON, or - for stdin")
    game.add_argument("--json", action="store_true", help="print the result as JSON")
    add_history_options(game)
    game.set_defaults(handler=run_game)

    catalog = sub.add_parser("catalog", help="the card catalog used by placement logs")
    csub = catalog.add_subparsers(dest="catalog_command", metavar="COMMAND", required=True)
    check = csub.add_parser(
        "check",
        help="check a card catalog and list its cards",
        description="Check every card of a catalog (docs/dino-catalog.md) and list them.",
    )
    check.add_argument("file", metavar="FILE|-", help="the catalog JSON, or - for stdin")
    check.add_argument("--json", action="store_true", help="print the cards as JSON")
    check.set_defaults(handler=run_catalog_check)

    register_bench_dino(sub, "bench", "the same as companion bench dino (the old name)")

    _register_photo(sub)


MAX_BENCH_CELLS = 1_000_000  # about 30 s a score: a bench that ends


def register_bench_dino(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str = "dino",
    help_text: str = "time the Chomp land scorer on a large random land",
) -> None:
    """``bench dino``: the Chomp scorer timed on a large land (also ``dino bench``)."""
    bench = sub.add_parser(
        name,
        help=help_text,
        description="Score a random land of CELLS cells (10,000 by default) REPEAT times "
        "and print the median and worst time per score (goal: 100 ms).",
    )
    bench.add_argument(
        "--cells",
        type=counted(1, MAX_BENCH_CELLS),
        default=10_000,
        help=f"cells in the land, 1 to {MAX_BENCH_CELLS} (10000)",
    )
    bench.add_argument(
        "--repeat", type=counted(1, 10_000), default=21, help="scores to time, 1 to 10000 (21)"
    )
    bench.add_argument("--seed", type=int, default=1, help="seed of the random land (1)")
    bench.add_argument("--json", action="store_true", help="print the figures as JSON")
    bench.set_defaults(handler=run_bench)


def _register_photo(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``markers`` and ``scan``: the sticker sheet and the photo (OpenCV stays lazy)."""
    markers = sub.add_parser(
        "markers",
        help="print a sheet of marker stickers for the cards of a catalog",
        description="Render the sticker sheet for CATALOG at true size: one marker per card "
        "quarter, grouped by card as the quarters lie, labelled with the card and the "
        "quarter. Print at 100% (the sheet has a 50 mm bar to check) and stick each "
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

    scan = sub.add_parser(
        "scan",
        help="read a photo of a land (markers on the cards) and score it",
        description="Find the markers in PHOTO, fit the quarter grid, place each card with "
        "its rotation, build the land through the catalog and score it. Cells it cannot "
        "read are listed (exit status 3), never guessed: answer them, and say which nests "
        "hold an egg token, with --patch (docs/scan.md). Several photos of one land (from "
        "other angles, the hand moved) are merged: a cell one photo cannot see is read "
        "from another, and a cell two photos show differently is asked.",
    )
    scan.add_argument(
        "photo",
        metavar="PHOTO",
        nargs="+",
        help="a photo of one land, from above; more photos of the same land are merged",
    )
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
        help="where to save what the scan saw (default: PHOTO-scan.jpg beside the photo; "
        "with several photos, a folder to save each PHOTO-scan.jpg in)",
    )
    scan.add_argument("--no-annotated", action="store_true", help="do not save the annotated image")
    scan.add_argument(
        "--no-infer",
        action="store_true",
        help="ask for every cell whose marker is hidden, even where no other card can lie",
    )
    scan.add_argument("--json", action="store_true", help="print one JSON object")
    add_player_option(scan)
    scan.set_defaults(handler=run_scan)


# --------------------------------------------------------------------------------------
# Reading lands from files
# --------------------------------------------------------------------------------------


def _sourced(name: str, read: Callable[[], T]) -> T:
    """Run ``read``; an error that names no file is said to come from ``name``."""
    try:
        return read()
    except InputError as exc:
        raise exc if exc.source else exc.in_source(name) from None


def _base(path: str) -> Path:
    """The folder that file names inside ``path`` are relative to (stdin: here)."""
    return Path(".") if path == "-" else Path(path).parent


def _joined(base: Path, name: str) -> str:
    return str(base / name) if not Path(name).is_absolute() else name


def read_catalog(path: str) -> Catalog:
    """A catalog file, checked; errors name the catalog file."""
    name = source_name(path)
    return _sourced(name, lambda: catalog_from_dict(parse_json(read_text(path), name)))


def _catalog_reader(base: Path) -> Callable[[object, str], Catalog]:
    def read(value: object, where: str) -> Catalog:
        if isinstance(value, str):
            return read_catalog(_joined(base, value))
        return catalog_from_dict(value, where)

    return read


@dataclass(frozen=True, slots=True)
class LandInput:
    """A land as read, and the replay it came from when it was a placement log."""

    land: Land
    replay: Replay | None = None


def land_from_value(value: object, where: str, base: Path) -> LandInput:
    """A land written inside JSON: the land itself, a placement log, or grid lines."""
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        text = "\n".join(value)
        return LandInput(parse_grid(text, lambda line, col: f"{where}[{line - 1}] column {col}"))
    if isinstance(value, dict) and "placements" in value:
        result = log_from_dict(value, _catalog_reader(base), where)
        return LandInput(result.land, result)
    return LandInput(land_from_dict(value, where))


def read_land(path: str) -> LandInput:
    """A land file: JSON (a land or a placement log) or a text grid, told apart by its
    first character; errors name the file."""
    name = source_name(path)

    def read() -> LandInput:
        text = read_text(path).removeprefix("\N{BYTE ORDER MARK}")
        if text.lstrip().startswith("{"):
            return land_from_value(parse_json(text, name), data.ROOT, _base(path))
        return LandInput(parse_grid(text))

    return _sourced(name, read)


# --------------------------------------------------------------------------------------
# score
# --------------------------------------------------------------------------------------


MAX_DRAWN_CELLS = 40_000  # a grid this big no longer fits a terminal; its score still counts


def _drawing(land: Land) -> str:
    """The land as a grid, or a line saying why not: a land whose cells lie far apart is
    scored (the scoring is sparse) but its bounding box is not drawn cell by cell."""
    cells = land.cell_index()
    if cells:
        xs, ys = [min(0, *(x for x, _ in cells))], [min(0, *(y for _, y in cells))]
        width = max(x for x, _ in cells) - xs[0] + 1
        height = max(y for _, y in cells) - ys[0] + 1
        if width * height > MAX_DRAWN_CELLS:
            return f"(the land spans {width} x {height} cells: too far apart to draw)"
    return render_grid(land, labels=True)


def add_player_option(parser: argparse.ArgumentParser) -> None:
    """``--player NAME``: one land is filed in the history only under a player's name."""
    parser.add_argument(
        "--player",
        metavar="NAME",
        help="record the land in the history as NAME's game (docs/history.md)",
    )
    add_history_options(parser)


def player_given(args: argparse.Namespace) -> str | None:
    """The ``--player`` name, checked before anything is read or printed."""
    if args.player is None:
        return None
    name = str(args.player).strip()
    if not name:
        raise InputError("--player", "give the player's name")
    return name


def remember_land(args: argparse.Namespace, land: Land, source: str) -> None:
    """With ``--player``, the land scored is a game of one in the history."""
    player = player_given(args)
    if player is None or args.no_history:
        return
    from companion.history import record_dino, remember

    remember(record_dino, {player: land}, db=args.db, source=source)


def run_score(args: argparse.Namespace) -> int:
    player_given(args)
    given = read_land(args.file)
    land = given.land
    result = score(land)
    if args.json:
        print(dump_json(score_dict(land, result, given.replay)))
    else:
        _print_score(args, given, result)
    remember_land(args, land, source_name(args.file))
    return 0


def _print_score(args: argparse.Namespace, given: LandInput, result: Score) -> None:
    land = given.land
    print(f"Chomp land: {source_name(args.file)}")
    print(_drawing(land))
    if given.replay is not None:
        print(replay_line(given.replay))
    print()
    for line in score_lines(land, result, args.explain):
        print(line)


# --------------------------------------------------------------------------------------
# game
# --------------------------------------------------------------------------------------


def read_game(path: str) -> dict[str, Land]:
    name = source_name(path)
    base = _base(path)

    def land_of(value: object, where: str) -> Land:
        if isinstance(value, str):
            return read_land(_joined(base, value)).land
        return land_from_value(value, where, base).land

    return _sourced(name, lambda: game_from_dict(parse_json(read_text(path), name), land_of))


def run_game(args: argparse.Namespace) -> int:
    lands = read_game(args.file)
    result = score_game(lands)
    if args.json:
        print(dump_json(game_dict(lands, result)))
    else:
        print(f"Chomp game: {source_name(args.file)}")
        for line in game_lines(result):
            print(line)
    if not args.no_history:
        from companion.history import record_dino, remember

        remember(record_dino, lands, db=args.db, source=source_name(args.file))
    return 0


# --------------------------------------------------------------------------------------
# catalog check
# --------------------------------------------------------------------------------------


def run_catalog_check(args: argparse.Namespace) -> int:
    catalog = read_catalog(args.file)
    if args.json:
        print(dump_json(catalog_dict(catalog)))
        return 0
    for line in catalog_lines(source_name(args.file), catalog):
        print(line)
    return 0


# --------------------------------------------------------------------------------------
# markers and scan: the sticker sheet and the photo (docs/scan.md)
# --------------------------------------------------------------------------------------


def run_markers(args: argparse.Namespace) -> int:
    require_scan()
    from companion.scan.markers import DICTIONARY_NAME, SheetLayout, render_sheet, save_sheet

    catalog = read_catalog(args.catalog)
    layout = SheetLayout(args.dpi, args.marker_mm, args.paper.lower())
    pages = render_sheet(catalog, layout)
    targets = [Path(p) for p in (args.out or ["markers.pdf", "markers.png"])]
    written: list[Path] = []
    for target in targets:
        check_target(target)  # a device, a pipe or a link there is refused, left as it is
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
    require_scan()
    from companion.scan.land import build

    player_given(args)
    catalog = read_catalog(args.catalog)
    patch = read_patch(args.patch)
    if len(args.photo) > 1:
        return _run_merged_scan(args, catalog, patch)
    from companion.photo_gate import open_photo
    from companion.scan.grid import ReadOptions
    from companion.scan.reader import read_photo
    from companion.scan.report import scan_dict, scan_lines

    photo = args.photo[0]
    image = open_photo(photo)
    reading = read_photo(image, catalog, ReadOptions(infer=not args.no_infer))
    built = build(catalog, reading.cells, reading.cards, reading.unread, patch)
    annotated = None
    if not args.no_annotated:
        annotated = _save_annotated(image, reading, args.annotated, _beside(photo))
    _write_land(args.out, built)
    if args.json:
        print(dump_json(scan_dict(photo, reading, built, annotated)))
    else:
        for line in scan_lines(photo, args.catalog, reading, built, annotated, args.out):
            print(line)
    return _finished(args, built, photo)


def _run_merged_scan(args: argparse.Namespace, catalog: Catalog, patch: Patch) -> int:
    """Several photos of one land: each read, registered and merged cell by cell
    (:mod:`companion.scan.merge`); one annotated image per photo."""
    from companion.photo_gate import open_photo
    from companion.scan.grid import ReadOptions
    from companion.scan.land import build
    from companion.scan.merge import merge
    from companion.scan.reader import read_photo
    from companion.scan.report import merged_dict, merged_lines

    photos: list[str] = args.photo
    folder = None
    if args.annotated is not None and not args.no_annotated:
        folder = Path(args.annotated)
        if not folder.is_dir():
            raise InputError(
                "--annotated", "with several photos, name a folder to save each image in"
            )
    images = [open_photo(photo) for photo in photos]
    options = ReadOptions(infer=not args.no_infer)
    readings = [read_photo(image, catalog, options) for image in images]
    merged = merge(catalog, readings, photos)
    built = build(catalog, merged.cells, merged.cards, merged.unread, patch)
    annotated: list[str | None] = [None] * len(photos)
    if not args.no_annotated:
        targets = _annotated_paths(photos, folder)
        for k, (image, view) in enumerate(zip(images, merged.views, strict=True)):
            named = None if folder is None else str(targets[k])
            annotated[k] = _save_annotated(image, view, named, targets[k])
    _write_land(args.out, built)
    if args.json:
        print(dump_json(merged_dict(photos, merged, built, annotated)))
    else:
        for line in merged_lines(photos, args.catalog, merged, built, annotated, args.out):
            print(line)
    return _finished(args, built, ", ".join(photos))


def _finished(args: argparse.Namespace, built: Built, source: str) -> int:
    """The exit status; a complete land is recorded under ``--player`` (a land with
    questions left is not the land yet)."""
    if not built.complete or built.land is None:
        return EXIT_ASK
    remember_land(args, built.land, source)
    return 0


def _annotated_paths(photos: list[str], folder: Path | None) -> list[Path]:
    """PHOTO-scan.jpg beside each photo, or in ``folder`` (numbered when two photos
    have one name)."""
    paths: list[Path] = []
    for k, photo in enumerate(photos):
        path = _beside(photo)
        if folder is not None:
            path = folder / path.name
        if path in paths:
            path = path.with_name(f"{Path(photo).stem}-{k + 1}-scan.jpg")
        paths.append(path)
    return paths


def _write_land(out: str | None, built: Built) -> None:
    """``--out``: the land JSON, only when nothing is left to ask."""
    if out and built.complete and built.land is not None:
        from companion.files import write_atomic
        from companion.games.dino.formats import land_to_dict

        write_atomic(out, dump_json(land_to_dict(built.land)) + "\n", "no land was written")


def _save_annotated(image: Any, reading: Reading, named: str | None, default: Path) -> str | None:
    """Save what the scan saw; the path written, or None when the default place failed
    (a place the user named that cannot be written is an error)."""
    import cv2

    from companion.errors import CompanionError
    from companion.files import write_atomic
    from companion.scan.annotate import annotate

    target = Path(named) if named is not None else default
    picture = annotate(image, reading)
    ok = False
    try:  # encoded here, written by write_atomic: never over a device, a pipe or a link
        ok, encoded = cv2.imencode(target.suffix or ".jpg", picture)
        if ok:
            write_atomic(target, encoded.tobytes(), "no image was written")
    except cv2.error:
        ok = False
    except CompanionError:
        if named is not None:
            raise  # the place the user named: its own line (not a file, cannot write)
        ok = False
    if ok:
        return str(target)
    if named is None:
        print(f"companion: could not save the annotated image to {target}", file=sys.stderr)
        return None
    raise InputError("", "could not write the annotated image here", str(target))


def _beside(photo: str) -> Path:
    path = Path(photo)
    return path.with_name(f"{path.stem}-scan.jpg")


# --------------------------------------------------------------------------------------
# bench
# --------------------------------------------------------------------------------------


def bench_score(cells: int = 10_000, repeat: int = 21, seed: int = 1) -> dict[str, Any]:
    """Time :func:`score` on a random square land of about ``cells`` cells."""
    import math
    import random
    import statistics
    import time

    from companion.games.dino.formats import land_to_dict
    from companion.games.dino.lands import random_land

    side = max(1, math.isqrt(max(1, cells)))
    land = random_land(random.Random(seed), side, max(1, cells // side))
    times = []
    result = score(land)
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        result = score(land)
        times.append((time.perf_counter() - start) * 1000)
    as_json = land_to_dict(land)
    start = time.perf_counter()
    land_from_dict(as_json)
    read_ms = (time.perf_counter() - start) * 1000
    return {
        "cells": sum(len(s.cells) for s in land.sections),
        "sections": len(land.sections),
        "mountains": len(land.mountains),
        "herds": len(result.herds),
        "repeat": len(times),
        "ms_per_score": {
            "p50": round(statistics.median(times), 2),
            "min": round(min(times), 2),
            "max": round(max(times), 2),
        },
        "ms_read_json": round(read_ms, 2),
        "goal_ms": 100,
    }


def run_bench(args: argparse.Namespace) -> int:
    report = bench_score(args.cells, args.repeat, args.seed)
    if args.json:
        print(dump_json(report))
        return 0
    ms = report["ms_per_score"]
    print(
        f"land: {report['cells']} cells, {report['sections']} sections, "
        f"{report['mountains']} mountains, {report['herds']} herds"
    )
    print(f"score: median {ms['p50']} ms, min {ms['min']} ms, max {ms['max']} ms (goal 100 ms)")
    print(f"read the land JSON: {report['ms_read_json']} ms")
    return 0
