"""``companion foodchain score`` and ``companion foodchain catalog check``.

The score sheet and the catalog are JSON (docs/foodchain.md). Bad input is one line
naming the file and the place, exit status 2, as everywhere in companion.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from companion.errors import InputError
from companion.files import dump_json, read_json, source_name
from companion.games.foodchain import (
    Catalog,
    PlayerScore,
    Tally,
    catalog_from_dict,
    score,
    score_optional,
    sheet_catalog,
    sheet_from_dict,
    to_roman,
    winners,
)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    foodchain = commands.add_parser("foodchain", help="Food Chain: scores and the card catalog")
    sub = foodchain.add_subparsers(dest="foodchain_command", metavar="COMMAND", required=True)

    score_cmd = sub.add_parser(
        "score",
        help="score a finished game from a JSON score sheet",
        description="Score a finished Food Chain game: the points of the cards each player "
        "ate plus one point per token held, or with --optional the rulebook's optional "
        "rule (a random card from the owner's food pile per captured token).",
    )
    score_cmd.add_argument("file", metavar="FILE|-", help="score sheet JSON, or - for stdin")
    score_cmd.add_argument("--json", action="store_true", help="print the scores as JSON")
    score_cmd.add_argument(
        "--optional", action="store_true", help="use the optional scoring rule (a random draw)"
    )
    score_cmd.add_argument(
        "--seed", type=int, metavar="N", help="seed of the optional rule's draw (repeatable)"
    )
    score_cmd.add_argument(
        "--catalog", metavar="FILE", help="card catalog JSON (instead of the sheet's 'catalog')"
    )
    score_cmd.set_defaults(handler=run_score)

    catalog = sub.add_parser("catalog", help="the card catalog: levels, points, symbols")
    catalog_sub = catalog.add_subparsers(dest="catalog_command", metavar="COMMAND", required=True)
    check = catalog_sub.add_parser(
        "check",
        help="check a card catalog file",
        description="Check a Food Chain card catalog: its structure, that every symbol "
        "names a card, and that it is the game's deck (52 cards, one Huntsman, one Swarm). "
        "Symbols that point one way only are warnings.",
    )
    check.add_argument("file", metavar="FILE|-", help="catalog JSON, or - for stdin")
    check.set_defaults(handler=run_catalog_check)


def load_catalog(path: str) -> Catalog:
    """A catalog file, structure and references checked; errors name the file."""
    source = source_name(path)
    try:
        return catalog_from_dict(read_json(path))
    except InputError as exc:
        raise exc if exc.source else exc.in_source(source) from None


def _sheet(args: argparse.Namespace) -> Tally:
    raw = read_json(args.file)
    source = source_name(args.file)
    catalog = None
    if args.catalog is not None:
        catalog = load_catalog(args.catalog)
    else:
        given = sheet_catalog(raw)
        if isinstance(given, str):
            base = Path.cwd() if args.file == "-" else Path(args.file).parent
            catalog = load_catalog(str(base / given))
        elif given is not None:
            try:
                catalog = catalog_from_dict(given)
            except InputError as exc:
                raise InputError(f"catalog.{exc.where}", exc.message, source) from None
    try:
        return sheet_from_dict(raw, catalog)
    except InputError as exc:
        raise exc.in_source(source) from None


def run_score(args: argparse.Namespace) -> int:
    if args.seed is not None and not args.optional:
        raise InputError("--seed", "the seed is for the optional rule's draw: add --optional")
    tally = _sheet(args)
    seed = None
    if args.optional:
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
        scores = score_optional(tally, random.Random(seed))
    else:
        scores = score(tally)
    best = winners(scores)
    exchanged = tally.exchanged().tokens != {p: +tally.tokens[p] for p in tally.players}
    if args.json:
        print(
            dump_json(
                {
                    "rule": "optional" if args.optional else "standard",
                    "seed": seed,
                    "players": {p: s.to_dict() for p, s in scores.items()},
                    "winners": list(best),
                    "tokens_exchanged": exchanged,
                }
            )
        )
        return 0
    rule = f", optional rule (seed {seed})" if args.optional else ""
    print(f"Food Chain score{rule}: {source_name(args.file)}")
    if exchanged:
        print("  (players holding each other's tokens exchanged them first)")
    rows = [(p, *_columns(s, args.optional)) for p, s in scores.items()]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    for row in rows:
        cells = [cell.ljust(w) for cell, w in zip(row, widths, strict=False)]
        print(f"  {'  '.join(cells)}   {row[3]}".rstrip())
    total = scores[best[0]].total
    if len(best) == 1:
        print(f"{best[0]} wins with {total} points.")
    else:
        print(f"Shared victory: {', '.join(best)} with {total} points each.")
    if args.optional and args.seed is None:
        print(f"(draw again the same way with --seed {seed})")
    return 0


def _columns(s: PlayerScore, optional: bool) -> tuple[str, str, str]:
    """Eaten, tokens (or cards taken) and total, as the report's columns."""
    plural = "" if len(s.kept) == 1 else "s"
    eaten = f"eaten {s.eaten_points} ({len(s.kept)} card{plural})"
    if optional:
        names = "; ".join(f"{e.label()} from {who}" for who, e in s.taken)
        extra = f"taken {s.taken_points}" + (f" ({names})" if names else "")
    else:
        captured = f" ({s.captured} captured)" if s.captured else ""
        extra = f"tokens {s.tokens}{captured}"
    return eaten, extra, f"total {s.total}"


def run_catalog_check(args: argparse.Namespace) -> int:
    source = source_name(args.file)
    catalog = load_catalog(args.file)
    for where, message in catalog.composition_problems():
        raise InputError(where, message, source)
    for where, message in catalog.warnings():
        print(f"companion: warning: {source}: {where}: {message}", file=sys.stderr)
    print(f"{source}: {catalog.title or 'Food Chain card catalog'}")
    if catalog.example:
        print("  an example catalog, not the real cards")
    print(_summary(catalog))
    print("  OK: a full Food Chain deck")
    return 0


def _summary(catalog: Catalog) -> str:
    creatures = [k for k in catalog.kinds if k.bonus is None]
    n = sum(k.copies for k in creatures)
    levels = sorted({k.level for k in creatures})
    huntsman = catalog.huntsman_level()
    lines = [
        f"  {catalog.size} cards: {n} creatures and plants of {len(creatures)} kinds, "
        f"the Huntsman, the Swarm",
        f"  levels {to_roman(levels[0])} to {to_roman(levels[-1])}; "
        f"the Huntsman is level {to_roman(huntsman)}",
        f"  points {min(k.points for k in creatures)} to {max(k.points for k in creatures)}",
    ]
    return "\n".join(lines)
