"""``companion foodchain``: the command line of score, catalog check and play.

What they do lives in :mod:`companion.tables.foodchain` (docs/foodchain.md).
"""

from __future__ import annotations

import argparse

from companion.commands.options import (
    add_history_options,
    checked_name,
    checked_names,
    checked_pairs,
)
from companion.tables.foodchain.app import FoodChainOptions, run
from companion.tables.foodchain.score import ScoreOptions, run_catalog_check, run_score


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    foodchain = commands.add_parser(
        "foodchain", help="Food Chain: follow a game, scores and the card catalog"
    )
    sub = foodchain.add_subparsers(dest="foodchain_command", metavar="COMMAND", required=True)

    play = sub.add_parser(
        "play",
        help="follow a game at the table: the forest, tokens, counts, legal moves, the score",
        description="Follow a game of Food Chain at the table: say what each player does "
        "and the name of each card turned up to start a food chain; the helper keeps the "
        "forest, the tokens and the food piles, offers the moves of the player to act, "
        "refuses what the rules forbid and scores the end. Type 'help' for the commands.",
    )
    play.add_argument("--catalog", required=True, metavar="FILE", help="card catalog JSON")
    play.add_argument("--players", metavar="A,B,C", help="2 to 4 names, in seat order")
    play.add_argument("--first", metavar="NAME", help="who plays first")
    play.set_defaults(handler=_play)

    score_cmd = sub.add_parser(
        "score",
        help="score a finished game from a score sheet (JSON, or typed)",
        description="Score a finished Food Chain game: the points of the cards each player "
        "ate plus one point per token held, or with --optional the rulebook's optional "
        "rule (a random card from the owner's food pile per captured token). Without "
        "FILE the sheet is typed, one line per player ('ann: 3 5 2 | red blue blue'), or "
        "on a terminal asked player by player (--players).",
    )
    score_cmd.add_argument(
        "file", nargs="?", metavar="FILE|-", help="score sheet JSON, or - for stdin"
    )
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
    score_cmd.add_argument(
        "--players", metavar="A,B,C", help="typed sheet on a terminal: whom to ask, in order"
    )
    score_cmd.add_argument(
        "--colours", metavar="A=RED,...", help="typed sheet: each player's token colour"
    )
    add_history_options(score_cmd)
    score_cmd.set_defaults(handler=_score)

    catalog = sub.add_parser("catalog", help="the card catalog: levels, points, symbols")
    catalog_sub = catalog.add_subparsers(dest="catalog_command", metavar="COMMAND", required=True)
    check = catalog_sub.add_parser(
        "check",
        help="check a card catalog file",
        description="Check a Food Chain card catalog: its structure, that every symbol "
        "names a card, and that it has the game's deck (52 cards, one Huntsman, one Swarm). "
        "Symbols that point one way only are warnings.",
    )
    check.add_argument("file", metavar="FILE|-", help="catalog JSON, or - for stdin")
    check.set_defaults(handler=lambda a: run_catalog_check(a.file))


def _score(args: argparse.Namespace) -> int:
    return run_score(
        ScoreOptions(
            args.file,
            args.json,
            args.optional,
            args.seed,
            args.catalog,
            checked_names(args.players, "--players"),
            checked_pairs(args.colours, "--colours"),
            args.db,
            not args.no_history,
        )
    )


def _play(args: argparse.Namespace) -> int:
    from companion.files import tolerant_stdin

    tolerant_stdin()
    players, first = checked_names(args.players, "--players"), checked_name(args.first, "--first")
    return run(FoodChainOptions(args.catalog, players, first))
