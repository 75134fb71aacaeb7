"""The ``companion`` command: one entry point, a subcommand per job.

Only the module of the command being run is imported (with its game engine); the others
are listed from the table below, so ``companion --help`` stays fast however many games
the companion learns.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from companion import __version__
from companion.errors import CompanionError

EXIT_BAD_INPUT = 2

# command -> (module that registers it, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "chomp": ("companion.commands.chomp", "CHOMP!, the slap card game: judge, replay, audit"),
    "referee": ("companion.commands.referee", "referee CHOMP! at the table: GPIO buttons, LEDs"),
    "demo": ("companion.commands.referee", "play CHOMP! in the terminal on simulated pins"),
    "dino": ("companion.commands.dino", "Chomp, the dinosaur land game: scores"),
    "getbit": ("companion.commands.getbit", "Get Bit!, the robot and shark game"),
    "foodchain": ("companion.commands.foodchain", "Food Chain: scores and the card catalog"),
    "chips": ("companion.commands.chips", "The Great Chips Escape: the table helper"),
    "tags": ("companion.commands.tags", "NFC tags or barcodes on the cards"),
    "camera": ("companion.commands.camera", "a camera over the table reads the cards"),
    "history": ("companion.commands.history", "every game remembered: stats, plots, export"),
    "web": ("companion.commands.web", "serve the score helpers to the phones at the table"),
    "setup": ("companion.commands.setup", "find the table's wiring by pressing: write table.toml"),
    "bench": ("companion.commands.bench", "measure the referee and the bridge, print figures"),
    "doctor": ("companion.commands.doctor", "check the Pi for a table: GPIO, disk, clock, ports"),
    "voice": ("companion.commands.voice", "spoken calls: hear every phrase a table says"),
}


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser, with the full arguments of the command named in ``argv`` (if any)."""
    parser = argparse.ArgumentParser(
        prog="companion",
        description="A Raspberry Pi tabletop companion: slap referee, score helpers, trackers.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    wanted = next((a for a in argv if not a.startswith("-")), None)
    if wanted in COMMANDS:
        importlib.import_module(COMMANDS[wanted][0]).register(commands)
    for name, (_, text) in COMMANDS.items():
        if name not in commands.choices:
            commands.add_parser(name, help=text)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(args_in).parse_args(args_in)
    try:
        return int(args.handler(args) or 0)
    except CompanionError as exc:
        print(f"companion: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("companion: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
