"""``companion dino``: score a Chomp land, rank a whole game, check a card catalog.

The rules live in :mod:`companion.games.dino` (and its text grid and catalog modules);
this module reads the files, finds out which kind of input it was given, and prints.
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from companion import data
from companion.errors import InputError
from companion.files import dump_json, parse_json, read_text, source_name
from companion.games.dino import (
    GameResult,
    Land,
    Score,
    Why,
    explain_all,
    game_from_dict,
    land_from_dict,
    score,
    score_game,
)
from companion.games.dino_catalog import Catalog, Replay, catalog_from_dict, log_from_dict
from companion.games.dino_text import parse_grid, render_grid

T = TypeVar("T")


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    dino = commands.add_parser("dino", help="Chomp, the dinosaur land game: scores")
    sub = dino.add_subparsers(dest="dino_command", metavar="COMMAND", required=True)

    score_ = sub.add_parser(
        "score",
        help="score one land (JSON, a text grid, or a placement log)",
        description="Score one Chomp land: find the herds, feed them in the rulebook's "
        "order (tar pits, carnivores, herbivores), add dinos, eggs and goals. FILE is the "
        "land JSON of formats.md, a text grid (docs/dino-grid.md) or a placement log "
        "(docs/dino-catalog.md).",
    )
    score_.add_argument("file", metavar="FILE|-", help="the land, or - for stdin")
    score_.add_argument("--json", action="store_true", help="print the score as JSON")
    score_.add_argument(
        "--explain", action="store_true", help="tell, herd by herd, why it lived or died"
    )
    score_.set_defaults(handler=run_score)

    game = sub.add_parser(
        "game",
        help="score every player's land and goals and rank them",
        description="Score a whole game of Chomp and rank the players; ties are broken by "
        "the most dinos in the biggest living herd, and are shared if still equal.",
    )
    game.add_argument("file", metavar="FILE|-", help="the game JSON, or - for stdin")
    game.add_argument("--json", action="store_true", help="print the result as JSON")
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

    bench = sub.add_parser(
        "bench",
        help="time the scorer on a large random land",
        description="Score a random land of CELLS cells (10,000 by default) REPEAT times "
        "and print the median and worst time per score (goal: 100 ms).",
    )
    bench.add_argument("--cells", type=int, default=10_000, help="cells in the land (10000)")
    bench.add_argument("--repeat", type=int, default=21, help="scores to time (21)")
    bench.add_argument("--seed", type=int, default=1)
    bench.add_argument("--json", action="store_true", help="print the figures as JSON")
    bench.set_defaults(handler=run_bench)

    from companion.commands.scan import register_scan  # photos: OpenCV stays lazy

    register_scan(sub)


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

WHY_WORDS = {
    Why.TAR_PIT: "extinct: tar pit",
    Why.MEAT: "alive: ate meat",
    Why.ATE: "alive: ate herbivores",
    Why.EATEN: "extinct: eaten",
    Why.STARVED: "extinct: starved",
    Why.PLANTS: "alive: ate plants",
    Why.NO_PLANTS: "extinct: no plants",
}


def score_dict(land: Land, result: Score, replay: Replay | None = None) -> dict[str, Any]:
    out = result.to_dict()
    for herd, words in zip(out["herds"], explain_all(land, result), strict=True):
        herd["explain"] = words
    if replay is not None:
        out["replay"] = replay.to_dict()
    return out


def _ids(ids: tuple[str, ...], most: int = 3) -> str:
    shown = ", ".join(ids[:most])
    return shown if len(ids) <= most else f"{shown} +{len(ids) - most}"


def _wrap(text: str) -> list[str]:
    """Wrap an explanation, keeping its points sum ("3 dinos x 3 = 9 points") on one line."""
    head, sep, tail = text.partition("Alive: ")
    text = head + (sep + tail).replace(" ", "\N{NO-BREAK SPACE}")
    lines = textwrap.wrap(text, width=92, initial_indent="      ", subsequent_indent="      ")
    return [line.replace("\N{NO-BREAK SPACE}", " ") for line in lines]


def score_lines(land: Land, result: Score, why: bool) -> list[str]:
    """The herds, eggs, goals and total, as the table reads them."""
    lines = []
    said = explain_all(land, result) if why else []
    if result.herds:
        lines.append("Herds (fed in order: tar pits, carnivores, herbivores):")
        rows = [
            (_ids(h.sections), h.dino.words(h.dinos), WHY_WORDS[h.why], str(h.points))
            for h in result.herds
        ]
        widths = [max(len(r[k]) for r in rows) for k in range(4)]
        for i, row in enumerate(rows):
            a, b, c = (row[k].ljust(widths[k]) for k in range(3))
            lines.append(f"  {a}  {b}  {c}  {row[3].rjust(widths[3])}")
            if why:
                lines.extend(_wrap(said[i]))
    else:
        lines.append("No dinos.")
    lines.append(f"Eggs on visible nests: {result.eggs} x 2 = {result.egg_points}")
    for g in result.goals:
        label = g.goal.name or g.goal.describe()
        counted = "" if g.goal.kind == "manual" else f" ({g.count} counted)"
        lines.append(f"Goal {label}: {g.points}{counted}")
    lines.append(
        f"Score: dinos {result.dino_points} + eggs {result.egg_points} + goals "
        f"{result.goal_points} = {result.total}"
    )
    lines.append(f"Biggest living herd: {result.biggest_living_herd} dinos")
    return lines


def run_score(args: argparse.Namespace) -> int:
    given = read_land(args.file)
    land = given.land
    result = score(land)
    if args.json:
        print(dump_json(score_dict(land, result, given.replay)))
        return 0
    print(f"Chomp land: {source_name(args.file)}")
    print(render_grid(land, labels=True))
    if given.replay is not None:
        print(_replay_line(given.replay))
    print()
    for line in score_lines(land, result, args.explain):
        print(line)
    return 0


def _replay_line(replay: Replay) -> str:
    text = f"Built from {len(replay.placements)} cards."
    placed = [e.nest for e in replay.events if e.placed]
    lost = [e.nest for e in replay.events if not e.placed]
    if placed:
        text += f" Egg tokens placed on: {', '.join(placed)}."
    if lost:
        text += f" Egg tokens lost under a card: {', '.join(lost)}."
    return text


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


def verdict(result: GameResult) -> str:
    """D5 in one sentence."""
    winners = result.winners
    if len(winners) > 1:
        return (
            f"{', '.join(winners[:-1])} and {winners[-1]} share the victory "
            "(equal score and equal biggest living herd)."
        )
    if result.decided_by == "biggest_living_herd":
        return f"{winners[0]} wins on the tie-break: the most dinos in the biggest living herd."
    return f"{winners[0]} wins."


def run_game(args: argparse.Namespace) -> int:
    lands = read_game(args.file)
    result = score_game(lands)
    if args.json:
        out = result.to_dict()
        for standing in result.standings:
            out["players"][standing.player] = score_dict(lands[standing.player], standing.score)
        print(dump_json(out))
        return 0
    print(f"Chomp game: {source_name(args.file)}")
    head = ("rank", "player", "dinos", "eggs", "goals", "total", "biggest herd")
    rows = [
        (
            str(s.rank),
            s.player,
            str(s.score.dino_points),
            str(s.score.egg_points),
            str(s.score.goal_points),
            str(s.score.total),
            str(s.score.biggest_living_herd),
        )
        for s in result.standings
    ]
    widths = [max(len(r[k]) for r in [head, *rows]) for k in range(len(head))]
    for row in [head, *rows]:
        cells = [row[k].rjust(widths[k]) if k != 1 else row[k].ljust(widths[k]) for k in range(7)]
        print("  " + "  ".join(cells).rstrip())
    print(verdict(result))
    return 0


# --------------------------------------------------------------------------------------
# catalog check
# --------------------------------------------------------------------------------------


def run_catalog_check(args: argparse.Namespace) -> int:
    catalog = read_catalog(args.file)
    cards = catalog.cards
    if args.json:
        print(
            dump_json(
                {
                    "note": catalog.note,
                    "cards": {
                        cid: {
                            "sections": card.kinds(),
                            "mountains": len(card.mountains),
                            "egg_icon": card.egg_icon,
                        }
                        for cid, card in cards.items()
                    },
                }
            )
        )
        return 0
    print(f"{source_name(args.file)}: {len(cards)} cards, all valid.")
    if catalog.note:
        print(f"Note: {catalog.note}")
    width = max(len(cid) for cid in cards)
    for cid, card in cards.items():
        walls = len(card.mountains)
        extras = []
        if walls:
            extras.append(f"{walls} mountain{'s' if walls != 1 else ''}")
        if card.egg_icon and "egg icon" not in card.kinds():
            extras.append("egg icon printed over a quarter")
        tail = f"  ({', '.join(extras)})" if extras else ""
        print(f"  {cid:<{width}}  {', '.join(card.kinds())}{tail}")
    return 0


# --------------------------------------------------------------------------------------
# bench
# --------------------------------------------------------------------------------------


def bench_score(cells: int = 10_000, repeat: int = 21, seed: int = 1) -> dict[str, Any]:
    """Time :func:`score` on a random square land of about ``cells`` cells."""
    import math
    import random
    import statistics
    import time

    from companion.games.dino import land_to_dict, random_land

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
    if args.cells < 1 or args.repeat < 1:
        raise InputError("--cells/--repeat", "must be at least 1")
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
