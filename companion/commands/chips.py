"""``companion chips``: the command line of the Great Chips Escape table helper.

The helper itself lives in :mod:`companion.tables.chips` (docs/chips.md).
"""

from __future__ import annotations

import argparse

from companion.commands.options import (
    add_history_options,
    add_web_option,
    checked_name,
    checked_names,
)
from companion.tables.chips.app import ChipsOptions, run

DESCRIPTION = (
    "Follow a game of The Great Chips Escape at the table: type what each player does and "
    "the helper keeps the turns, the hand sizes and the Mad Fish, refuses a discard that "
    "does not fit, and lights the LED of whoever must act. The game is saved after every "
    "turn. Type 'help' for the commands (docs/chips.md)."
)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    chips = commands.add_parser(
        "chips",
        help="The Great Chips Escape: a table helper (turns, Mad Fish, legal discards, LEDs)",
        description=DESCRIPTION + " `companion chips play` is the same, named as the other "
        "games' tables are (getbit play, foodchain play).",
    )
    _options(chips, None)
    sub = chips.add_subparsers(dest="chips_command", metavar="COMMAND")
    play = sub.add_parser("play", help="play at the table (the same as plain chips)")
    play.description = DESCRIPTION
    # After `play`, an option not given keeps what came before it (SUPPRESS: no default).
    _options(play, argparse.SUPPRESS)
    chips.set_defaults(handler=run_chips)


def _options(chips: argparse.ArgumentParser, default: str | None) -> None:
    chips.add_argument(
        "--players", metavar="A,B,C", default=default, help="seat names, in turn order"
    )
    chips.add_argument(
        "--first", metavar="NAME", default=default, help="who begins (the youngest player)"
    )
    chips.add_argument(
        "--top",
        type=int,
        metavar="N",
        default=default,
        help="the number of the card that starts the discard pile",
    )
    chips.add_argument(
        "--config",
        metavar="TOML",
        default=default,
        help="players with their LEDs, the deck (see examples/chips-table.toml)",
    )
    chips.add_argument(
        "--pin-factory",
        metavar="NAME",
        default=default,
        help="override the config's gpio.pin_factory: mock (simulated pins) or auto",
    )
    chips.add_argument(
        "--save",
        metavar="FILE",
        default=default,
        help="where the game is saved after every turn (default chips-game.json)",
    )
    group = chips.add_mutually_exclusive_group()
    flag = False if default is None else default
    group.add_argument(
        "--resume", action="store_true", default=flag, help="continue the saved game"
    )
    group.add_argument(
        "--new",
        action="store_true",
        default=flag,
        help="start a new game; an existing save is kept aside",
    )
    add_web_option(chips, default)
    add_history_options(chips, default)


def run_chips(args: argparse.Namespace) -> int:
    from companion.tables.web import check_web

    check_web(args.web)  # before the save file and the LEDs are opened
    from companion.files import tolerant_stdin

    tolerant_stdin()
    return run(
        ChipsOptions(
            checked_names(args.players, "--players"),
            checked_name(args.first, "--first"),
            args.top,
            args.config,
            args.pin_factory,
            args.save,
            args.resume,
            args.new,
            web=args.web,
            new_code=args.new_code,
            db=args.db,
            history=not args.no_history,
        )
    )
