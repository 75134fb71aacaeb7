"""``companion camera learn`` and ``camera setup``, and the sticker sheets of ``chomp stickers`` and
``getbit stickers`` (docs/camera.md).

OpenCV, NumPy and Pillow stay unimported until a command that needs them runs, so
registering these commands (and ``companion --help``) stays fast.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from companion.camera.deck import GAMES, StickerDeck, dumps, load_deck, save_deck
from companion.errors import InputError

if TYPE_CHECKING:
    from companion.camera.model import FrameSource


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    camera = commands.add_parser("camera", help="a camera over the table reads the cards")
    sub = camera.add_subparsers(dest="camera_command", metavar="COMMAND", required=True)

    learn = sub.add_parser(
        "learn",
        help="show each card to the camera once: catch a sticker on the wrong card",
        description="Walk the deck card by card: hold the card asked for face up under "
        "the camera, and its sticker is checked against the deck file. A sticker of "
        "another card is named with the card it belongs on. The deck file is saved after "
        "every card; run the same command again to go on. Ctrl-C stops.",
    )
    learn.add_argument(
        "--camera",
        required=True,
        metavar="SPEC",
        help="picamera2, /dev/videoN, usb:N, a video file, a folder of frames, or sim",
    )
    learn.add_argument(
        "--deck",
        required=True,
        metavar="FILE",
        help="the deck file: read and written back with the checked stickers "
        "(a new one with --game binds the printed sheet)",
    )
    learn.add_argument("--game", choices=GAMES, help="which deck, for a new deck file")
    learn.add_argument(
        "--cards",
        metavar="NAME,NAME",
        help="check only these cards' stickers, again (default: every sticker not checked)",
    )
    learn.set_defaults(handler=run_learn)
    add_setup(sub)


def add_stickers(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], game: str, title: str
) -> None:
    """``<game> stickers``: the sheet of camera markers for the game's deck."""
    stickers = sub.add_parser(
        "stickers",
        help="print the camera's marker stickers, one per card (SVG, PNG or PDF)",
        description=f"Write the sheet of camera stickers for the {title} deck: one marker "
        "per card, labelled with its card and where on the card it goes. Print at 100% "
        "(the sheet has a 50 mm bar to check), stick them, then run companion camera "
        "learn (docs/camera.md).",
    )
    stickers.add_argument(
        "--out",
        required=True,
        action="append",
        metavar="FILE",
        help="a .svg, .png (300 dpi) or .pdf to write; repeat for several "
        "(SVG and PNG: NAME-2 for page 2 on)",
    )
    stickers.add_argument("--paper", choices=("a4", "letter"), default="a4", help="(a4)")
    stickers.add_argument(
        "--deck", metavar="FILE", help="also write the deck file the sheet binds (JSON)"
    )
    stickers.add_argument("--force", action="store_true", help="replace files already there")
    stickers.set_defaults(handler=run_stickers, sticker_game=game)


# -- stickers ------------------------------------------------------------------------------


def _free(path: Path, force: bool) -> None:
    """A place a file may go: not a device, link or folder; an existing file only with
    --force."""
    from companion.files import check_target

    check_target(path)
    if os.path.lexists(path) and not force:
        raise InputError("", "is already there: --force replaces it", str(path))


def run_stickers(args: argparse.Namespace) -> int:
    from companion.camera.detect import CameraUnavailable, require_opencv
    from companion.camera.stickers import DPI, MARKER_MM, encoded, sheet
    from companion.files import write_atomic

    require_opencv()  # the marker images come from OpenCV's ArUco module
    if any(Path(out).suffix.lower() in (".png", ".pdf") for out in args.out):
        try:
            import PIL  # noqa: F401
        except ImportError:
            raise CameraUnavailable() from None
    deck = StickerDeck.default(args.sticker_game)
    pages = sheet(deck, args.paper)
    files: list[tuple[Path, bytes]] = []
    for out in args.out:
        files.extend(encoded(pages, Path(out)))
    if args.deck:
        files.append((Path(args.deck), dumps(deck).encode("utf-8")))
    for path, _ in files:
        _free(path, args.force)
    for path, blob in files:
        write_atomic(path, blob, "nothing else was changed")
    plural = "s" if len(pages) != 1 else ""
    print(
        f"{len(deck.cards)} stickers ({MARKER_MM:g} mm markers) on {len(pages)} "
        f"{args.paper.upper()} page{plural} at {DPI} dpi"
    )
    for path, _ in files:
        print(f"  wrote {path}")
    print("Print at 100% (actual size) and check the 50 mm bar with a ruler.")
    return 0


# -- learn ---------------------------------------------------------------------------------


def open_source(spec: str) -> FrameSource:
    """The camera named on the command line (docs/camera.md lists the specs), through
    ``companion.camera.sources.open_camera`` (looked up when used: the sources are built
    beside this command)."""
    import importlib

    sources = importlib.import_module("companion.camera.sources")
    source: FrameSource = sources.open_camera(spec)
    return source


def _deck_for(path: Path, game: str | None) -> StickerDeck:
    if os.path.lexists(path):
        deck = load_deck(path)
        if game is not None and deck.game != game:
            raise InputError(
                "game", f"this is a {deck.game} deck file, not {game}: check --game", str(path)
            )
        return deck
    if game is None:
        raise InputError("--deck", f"{path} is not there yet: say --game to start one")
    return StickerDeck.default(game)


def run_learn(args: argparse.Namespace) -> int:
    from companion.camera.detect import Detector
    from companion.camera.learn import Learner, markers_of_cards, walk
    from companion.files import check_target

    path = Path(args.deck)
    check_target(path)
    deck = _deck_for(path, args.game)
    markers = None
    if args.cards:
        from companion.text import clean

        names = [n for n in clean(args.cards, "--cards").split(",") if n.strip()]
        markers = markers_of_cards(deck, names, "--cards")
    learner = Learner(deck, markers)
    if learner.finished:
        print(f"every sticker of {path} is checked; --cards NAME checks a card again")
        return 0
    detector = Detector()  # every marker: another game's sticker is named as such
    source = open_source(args.camera)

    def say(line: str) -> None:
        print(line, flush=True)

    def checked(deck: StickerDeck) -> None:
        save_deck(deck, path)

    try:
        walk(learner, source, detector.see, say, checked)
    finally:
        source.close()
    return 0


# -- setup ---------------------------------------------------------------------------------


def add_setup(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``camera setup``: each seat's zone on the picture, into the table config."""
    setup = sub.add_parser(
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
    setup.add_argument("--game", default="chomp", choices=GAMES, help="whose cards (chomp)")
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
