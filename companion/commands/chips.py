"""``companion chips``: the command line of the Great Chips Escape table helper.

The helper itself lives in :mod:`companion.tables.chips` (docs/chips.md).
"""

from __future__ import annotations

import argparse

from companion.tables.chips.app import ChipsOptions, run


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    chips = commands.add_parser(
        "chips",
        help="The Great Chips Escape: a table helper (turns, Mad Fish, legal discards, LEDs)",
        description="Follow a game of The Great Chips Escape at the table: type what each "
        "player does and the helper keeps the turns, the hand sizes and the Mad Fish, "
        "refuses a discard that does not fit, and lights the LED of whoever must act. "
        "The game is saved after every turn. Type 'help' for the commands (docs/chips.md).",
    )
    chips.add_argument("--players", metavar="A,B,C", help="seat names, in turn order")
    chips.add_argument("--first", metavar="NAME", help="who begins (the youngest player)")
    chips.add_argument(
        "--top", type=int, metavar="N", help="the number of the card that starts the discard pile"
    )
    chips.add_argument(
        "--config",
        metavar="TOML",
        help="players with their LEDs, the deck (see examples/chips-table.toml)",
    )
    chips.add_argument(
        "--pin-factory",
        metavar="NAME",
        help="override the config's gpio.pin_factory: mock (simulated pins) or auto",
    )
    chips.add_argument(
        "--save",
        metavar="FILE",
        help="where the game is saved after every turn (default chips-game.json)",
    )
    group = chips.add_mutually_exclusive_group()
    group.add_argument("--resume", action="store_true", help="continue the saved game")
    group.add_argument(
        "--new", action="store_true", help="start a new game; an existing save is kept aside"
    )
    chips.set_defaults(handler=run_chips)


def run_chips(args: argparse.Namespace) -> int:
    from companion.files import tolerant_stdin

    tolerant_stdin()
    return run(
        ChipsOptions(
            args.players,
            args.first,
            args.top,
            args.config,
            args.pin_factory,
            args.save,
            args.resume,
            args.new,
        )
    )
