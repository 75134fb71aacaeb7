"""``companion camera``: the camera over the table (docs/camera.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]


def register(commands: Subparsers) -> None:
    camera = commands.add_parser(
        "camera",
        help="the camera over the table: seats' zones on the picture",
        description="The camera that reads the revealed cards: seats' zones on the picture.",
    )
    actions = camera.add_subparsers(dest="action", metavar="ACTION", required=True)
    setup = actions.add_parser(
        "setup",
        help="find each seat's zone from one card put down per seat: write [camera.zones]",
        description="Asks the seat names (or --seats), tells each seat which card to put "
        "down face up, reads frames until every seat's card is seen in two frames, prints "
        "the zones and writes them into the table config's [camera.zones]. Only that "
        "section changes; existing zones are replaced only with a yes.",
    )
    setup.add_argument(
        "--config",
        default="table.toml",
        metavar="FILE",
        help="the table's config, as `referee --config` reads it (table.toml)",
    )
    setup.add_argument(
        "--camera",
        default=None,
        metavar="SPEC",
        help="picamera2, /dev/videoN, usb:N, a video file, a folder of frames or sim "
        "(default: the config's camera.source, else picamera2)",
    )
    setup.add_argument("--seats", default="", metavar="NAMES", help="e.g. ann,bob,cat")
    setup.add_argument(
        "--deck", default=None, metavar="FILE", help="the deck file (default: the printed sheet)"
    )
    setup.add_argument(
        "--game", default="chomp", choices=("chomp", "getbit"), help="whose cards (chomp)"
    )
    setup.set_defaults(handler=run_setup)


def run_setup(args: argparse.Namespace) -> int:
    from companion.tables.setup.camera import CameraSetup, run_camera_setup
    from companion.tables.setup.console import Console

    def say(line: str) -> None:
        print(line, flush=True)

    def ask(prompt: str) -> str:
        if sys.stdin.isatty():
            return input(prompt)
        print(prompt.rstrip(), flush=True)  # line mode: the prompt, then "> answer"
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        print(f"> {line.strip()}".rstrip(), flush=True)
        return line.removesuffix("\n").removesuffix("\r")

    seats = tuple(w for w in args.seats.replace(",", " ").split() if w)
    options = CameraSetup(config=Path(args.config), seats=seats)
    deck = None if args.deck is None else Path(args.deck)
    return run_camera_setup(options, Console(ask, say), args.camera, deck, args.game)
