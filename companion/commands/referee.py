"""``companion referee`` (the table on a Pi) and ``companion demo`` (the same, simulated).

Argparse only: the table is put together in :mod:`companion.tables.chomp.app`.
"""

from __future__ import annotations

import argparse

from companion.commands.options import (
    add_history_options,
    add_web_option,
    checked_names,
)
from companion.games.chomp import END_NAMES, MODE_NAMES, Mode, TwoPlayerEnd
from companion.tables.chomp import app  # light: the table's modules load when it runs


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    referee = commands.add_parser(
        "referee",
        help="referee CHOMP! at the table: buttons on GPIO, LEDs, buzzer, journal",
        description="Referee a CHOMP! game with one button per player on the Pi's GPIO "
        "(hardware/WIRING.md). Type each round's cards when asked; every press, card and "
        "verdict goes to the journal, so --resume continues after a crash or power cut. "
        "On mock pins at a terminal, a key per seat presses its button (a rehearsal).",
    )
    referee.add_argument(
        "--config",
        required=True,
        metavar="FILE",
        help="the table's TOML config (see hardware/pinmap.example.toml)",
    )
    group = referee.add_mutually_exclusive_group()
    group.add_argument(
        "--resume",
        action="store_true",
        help="continue the journal's game (a new game if there is none)",
    )
    group.add_argument(
        "--new",
        action="store_true",
        help="start a new game; an existing journal is kept under a new name",
    )
    referee.add_argument(
        "--pin-factory", metavar="NAME", help="override the config's gpio.pin_factory (e.g. mock)"
    )
    add_web_option(referee)
    add_history_options(referee)
    referee.set_defaults(handler=run_referee)
    _register_demo(commands)


def _register_demo(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    demo = commands.add_parser(
        "demo",
        help="play CHOMP! in the terminal on simulated pins, against bots or friends",
        description="A whole CHOMP! table without a Pi: the real referee on gpiozero's "
        "mock pins. Each seat has a slap key; bots slap on their own.",
    )
    demo.add_argument(
        "--players",
        default=None,
        metavar="A,B,C",
        help="seat names, in order (default: you,shelly,finn; you,shelly for a two-player mode)",
    )
    demo.add_argument(
        "--bots",
        default=None,
        metavar="B,C",
        help="which seats the computer plays (default: all but the first; "
        "'none' for a table of people)",
    )
    demo.add_argument(
        "--mode",
        default="standard",
        choices=list(MODE_NAMES),
        help="the game: standard (three or more players) or a two-player game "
        "(default: standard; quick_chomp with two players)",
    )
    demo.add_argument(
        "--two-player-end",
        default="count",
        choices=list(END_NAMES),
        help="how a game of three or more ends when two are left: count the cards, or "
        "go on with that two-player game (default: count)",
    )
    demo.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="the same deal, bots' choices and bots' timing every time",
    )
    demo.add_argument(
        "--autoplay",
        action="store_true",
        help="bots only, in simulated time, no screen: play a whole game at once and "
        "print the journal's path to audit",
    )
    demo.add_argument(
        "--camera",
        metavar="SPEC",
        default=None,
        help="read the revealed cards with the simulated camera over the table ('sim' or "
        "'sim:SEED'): the whole loop, stickers to journal, without hardware",
    )
    add_web_option(demo)
    demo.set_defaults(handler=run_demo)


def run_referee(args: argparse.Namespace) -> int:
    from companion.files import tolerant_stdin

    tolerant_stdin()
    return app.run_referee(
        app.RefereeOptions(
            args.config,
            resume=args.resume,
            new=args.new,
            pin_factory=args.pin_factory,
            web=args.web,
            new_code=args.new_code,
            db=args.db,
            history=not args.no_history,
        )
    )


def run_demo(args: argparse.Namespace) -> int:
    from companion.files import tolerant_stdin

    tolerant_stdin()
    return app.run_demo(
        app.DemoOptions(
            players=checked_names(args.players, "--players"),
            bots=checked_names(args.bots, "--bots"),
            mode=Mode(args.mode),
            two_player_end=TwoPlayerEnd(args.two_player_end),
            seed=args.seed,
            autoplay=args.autoplay,
            web=args.web,
            new_code=args.new_code,
            camera=args.camera,
        )
    )
