"""``companion tags``: learn a deck's tags, check a tag file, watch a reader.

``learn`` walks the deck once in a fixed order, asks for each card, and saves the tag file
after every card, so it can stop anywhere and carry on later from the same file. It works
in line mode: prompts on stdout, and either a keyboard-wedge scanner typing on stdin or
another reader (stdin then takes ``undo`` and ``quit``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from companion.errors import CompanionError, HardwareError, InputError
from companion.tags.readers import (
    BRIDGE,
    KEYBOARD,
    KeyboardWedgeReader,
    ReaderPool,
    TagReader,
)
from companion.tags.specs import READER_HELP, open_reader
from companion.tags.tagfile import (
    DECKS,
    GAME_TITLES,
    GAMES,
    TagFile,
    copies,
    deck_size,
    load_tagfile,
    save_tagfile,
)

UNDO_WORDS = frozenset({"undo", "u"})
QUIT_WORDS = frozenset({"quit", "q", "exit"})
WAIT_S = 0.25  # how long one wait for a read lasts before checking on the readers


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tags = commands.add_parser("tags", help="NFC tags or barcodes on the cards")
    sub = tags.add_subparsers(dest="tags_command", metavar="COMMAND", required=True)

    learn = sub.add_parser(
        "learn",
        help="read each card's tag once and name it: build a game's tag file",
        description="Walk the deck card by card: scan the card asked for, and its tag is "
        "saved under that card's name. The file is saved after every card; run the same "
        "command again to continue a deck learned in part. Type 'undo' to take back the "
        "last card, 'quit' to stop.",
    )
    learn.add_argument("--game", required=True, choices=GAMES, help="which deck")
    learn.add_argument("--out", required=True, metavar="FILE", help="the tag file (JSON)")
    learn.add_argument(
        "--reader", default=KEYBOARD, metavar="READER", help=f"{READER_HELP}; default keyboard"
    )
    learn.add_argument(
        "--count", type=int, metavar="N", help="learn at most N cards this time, then stop"
    )
    learn.set_defaults(handler=run_learn)

    check = sub.add_parser(
        "check",
        help="check a tag file and say which cards it still lacks",
        description="Check a tag file (a tag given two cards, a card the game does not "
        "have, bad hex) and count its cards against the deck.",
    )
    check.add_argument("file", metavar="FILE", help="the tag file")
    check.set_defaults(handler=run_check)

    read = sub.add_parser(
        "read",
        help="show what a reader reads (to check the wiring)",
        description="Print every tag a reader reports, and the card it is with --tags.",
    )
    read.add_argument("--reader", required=True, metavar="READER", help=READER_HELP)
    read.add_argument("--tags", metavar="FILE", help="name the cards from this tag file")
    read.add_argument("--count", type=int, metavar="N", help="stop after N reads")
    read.set_defaults(handler=run_read)


# -- the walk through the deck -----------------------------------------------------------


def _article(card: str) -> str:
    return "an" if card[0] in "aeiou" else "a"


class Learner:
    """Which card comes next, and what to do with a tag: the learn walk without any I/O."""

    def __init__(self, tags: TagFile) -> None:
        self.tags = tags
        self.deck = DECKS[tags.game]
        self.size = deck_size(tags.game)

    @property
    def done(self) -> int:
        """Cards of the deck that have a tag (extra tags for a card do not count twice)."""
        return sum(min(self.tags.learned(card), n) for card, n in self.deck)

    def next_card(self) -> tuple[str, int, int] | None:
        """(card, which one of it, how many the deck has), or None when all are learned."""
        for card, n in self.deck:
            have = self.tags.learned(card)
            if have < n:
                return card, have + 1, n
        return None

    def prompt(self) -> str:
        step = self.next_card()
        if step is None:
            return f"all {self.size} cards are learned"
        card, nth, of = step
        width = len(str(self.size))
        where = f"[{self.done + 1:>{width}}/{self.size}]"
        if of == 1:
            return f"{where} scan {card}"
        return f"{where} scan {_article(card)} {card} ({nth} of {of})"

    def offer(self, key: str) -> tuple[bool, str]:
        """Learn ``key`` as the card asked for; a tag already learned is refused."""
        step = self.next_card()
        if step is None:
            return False, "every card is learned already"
        if key in self.tags.tags:
            return False, f"that tag is already {self.tags.label(key)}: scan the next card"
        self.tags.add(key, step[0])
        return True, f"{key} is {self.tags.label(key)}"

    def undo(self) -> str:
        last = self.tags.remove_last()
        if last is None:
            return "nothing to undo"
        key, card = last
        return f"took back {key} ({card})"


def learn(
    tags: TagFile,
    path: Path,
    readers: list[TagReader],
    out: TextIO,
    count: int | None = None,
    wait_s: float = WAIT_S,
) -> int:
    """The learn walk in line mode, until the deck is done, ``count`` cards, quit or EOF."""
    learner = Learner(tags)

    def say(line: str) -> None:
        print(line, file=out, flush=True)

    pool = ReaderPool(readers, poll_s=min(0.1, wait_s))
    learned = 0
    try:
        while True:
            if learner.next_card() is None:
                say(f"all {learner.size} cards are learned: {path}")
                return 0
            if count is not None and learned >= count:
                say(f"stopped after {count} card(s): {learner.done} of {learner.size} learned")
                return 0
            say(learner.prompt())
            read = None
            while read is None and not pool.finished:
                read = pool.get(wait_s)
                if pool.errors:
                    raise HardwareError(pool.errors[0])
            if read is None:
                say(
                    f"stopped: {learner.done} of {learner.size} cards learned; "
                    "run the same command again to continue"
                )
                return 0
            word = read.tag.strip().lower() if read.typed else ""
            if word in QUIT_WORDS:
                say(f"stopped: {learner.done} of {learner.size} cards learned in {path}")
                return 0
            if word in UNDO_WORDS:
                say(learner.undo())
                save_tagfile(tags, path)
                learned = max(0, learned - 1)
                continue
            ok, message = learner.offer(read.key)
            if ok:
                save_tagfile(tags, path)
                learned += 1
            say(message)
    finally:
        pool.close()


def _start(game: str, path: Path) -> tuple[TagFile, bool]:
    """The file to continue, or a new one; a file of another game is refused, and so is a
    place that is not a file (a device, a link, a folder, an impossible name)."""
    from companion.files import check_target

    check_target(path)
    if path.exists():
        tags = load_tagfile(path)
        if tags.game != game:
            raise InputError(
                "game",
                f"this is a {tags.game} tag file, not {game}: choose another --out",
                str(path),
            )
        return tags, True
    return TagFile(game, {}, source=str(path)), False


def run_learn(args: argparse.Namespace) -> int:
    from companion.files import tolerant_stdin

    tolerant_stdin()
    if args.count is not None and args.count < 1:
        raise InputError("--count", f"must be at least 1, got {args.count}")
    path = Path(args.out)
    if args.reader == BRIDGE:
        print(
            "--reader bridge reads the Pico bridge's card readers: it needs the Pico bridge "
            "configured and connected (hardware/INSTALL.md, step 9)",
            flush=True,
        )
    tags, resumed = _start(args.game, path)
    reader = open_reader(args.reader, sys.stdin)
    if not resumed:
        try:  # now, so a folder that cannot be written stops us before any scan
            save_tagfile(tags, path)
        except CompanionError:
            reader.close()
            raise
    readers: list[TagReader] = [reader]
    if args.reader != KEYBOARD:
        readers.append(KeyboardWedgeReader(sys.stdin))  # for undo and quit
    title = GAME_TITLES[args.game]
    print(f"Learning the {title} deck into {path}, reading from {reader.name}.")
    print("Scan each card when asked. Type undo to take back the last card, quit to stop.")
    print("The file is saved after every card.", flush=True)
    if resumed:
        done = Learner(tags).done
        print(f"Continuing {path}: {done} of {deck_size(args.game)} cards learned.", flush=True)
    return learn(tags, path, readers, sys.stdout, args.count)


def summary(tags: TagFile) -> list[str]:
    """What a tag file holds against its deck: missing cards, and cards with extra tags."""
    size = deck_size(tags.game)
    done = Learner(tags).done
    lines = [
        f"{tags.name}: {GAME_TITLES[tags.game]} tag file, {len(tags.tags)} tag(s), "
        f"{done} of {size} cards learned"
    ]
    missing = [
        f"{card} {n - tags.learned(card)} of {n}" if n > 1 else card
        for card, n in DECKS[tags.game]
        if tags.learned(card) < n
    ]
    extra = [
        f"{card} has {tags.learned(card)} tags for {copies(tags.game, card)} card(s)"
        for card, n in DECKS[tags.game]
        if tags.learned(card) > n
    ]
    if missing:
        lines.append(f"  still to learn: {', '.join(missing)}")
    for line in extra:
        lines.append(f"  note: {line} (a spare or replaced card?)")
    return lines


def run_check(args: argparse.Namespace) -> int:
    tags = load_tagfile(args.file)
    print("\n".join(summary(tags)))
    return 0


def run_read(args: argparse.Namespace) -> int:
    from companion.files import tolerant_stdin

    tolerant_stdin()
    if args.count is not None and args.count < 1:
        raise InputError("--count", f"must be at least 1, got {args.count}")
    tags = load_tagfile(args.tags) if args.tags else None
    reader = open_reader(args.reader, sys.stdin)
    pool = ReaderPool([reader])
    seen = 0
    print(f"reading from {reader.name}; Ctrl+C to stop", flush=True)
    try:
        while args.count is None or seen < args.count:
            read = pool.get(WAIT_S)
            if pool.errors:
                raise HardwareError(pool.errors[0])
            if read is None:
                if pool.finished:
                    break
                continue
            seen += 1
            card = ""
            if tags is not None:
                name = tags.card_of(read.key)
                card = f"  {tags.label(read.key)}" if name else f"  (not in {tags.name})"
            print(f"{read.reader} #{read.index}: {read.key}{card}", flush=True)
    finally:
        pool.close()
    bad = getattr(reader, "bad_reads", None)
    if bad is None:
        bad = getattr(reader, "bad_frames", 0)
    print(f"{seen} read(s), {bad} bad", flush=True)
    return 0
