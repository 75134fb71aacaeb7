"""The shell every table app runs in: a full screen on a terminal, a line mode otherwise.

Each table's screen supplies what is its own (how a frame is drawn, what a key or a line
does); the loops, the curses set-up and the terminal's quirks are here once:

* :func:`run_curses`: draw a frame, wait for a key (polling, so LEDs and timers redraw),
  name the key, hand it on, until the handler says to quit;
* :func:`run_lines`: one command per line from a stream, dispatched by its first word;
* :func:`serve_face`: the curses face when standard input is a terminal, else the lines;
* :func:`typed_words`: a typed line through the text gate (companion.text) into words: a
  line holding undecodable bytes (lone surrogates), controls or bidi overrides is refused
  in one line and the table goes on, before any name in it reaches a page or the history.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from typing import Any, TextIO

from companion import text as gate
from companion.errors import InputError

GREEN, YELLOW, RED = 1, 2, 3  # colour pairs every screen uses
QUIT_WORDS = ("quit", "exit", "q")
ANSWERED_WHOLE = ("help", "?", "status", "s")  # their reply is the answer: no prompt after
ENTER_KEYS = ("\n", "\r", "KEY_ENTER")
LINE_LIMIT = 1000  # characters in a typed line: a command and a few names
TYPED = "typed line"

Frame = Callable[[Any], None]  # draws one frame on a curses window
KeyHandler = Callable[[str], bool]  # a key's name; False ends the loop
LineCommand = Callable[[list[str]], object]  # the words after the command; returns unused


def prepare(screen: Any, poll_ms: int, cursor: bool = False) -> None:
    """Poll keys every ``poll_ms`` (so the screen redraws LEDs and timers) and set colours."""
    import curses

    curses.curs_set(1 if cursor else 0)
    screen.timeout(poll_ms)
    curses.start_color()
    curses.use_default_colors()
    curses.init_pair(GREEN, curses.COLOR_GREEN, -1)
    curses.init_pair(YELLOW, curses.COLOR_YELLOW, -1)
    curses.init_pair(RED, curses.COLOR_RED, -1)


def put(screen: Any, y: int, x: int, text: str, attr: int = 0, rows: int | None = None) -> None:
    """Write ``text`` cut to fit the screen (curses raises when writing past its edge);
    nothing at all on a row outside the first ``rows`` (default: the whole height)."""
    height, width = screen.getmaxyx()
    if 0 <= y < (height if rows is None else rows) and x < width:
        screen.addnstr(y, x, text, max(0, width - x - 1), attr)


def key_name(key: str | int) -> str:
    """A key as the handlers spell it: the character, or curses' name (``KEY_ENTER``);
    every terminal's Backspace is ``"\\x7f"``."""
    import curses

    name = key if isinstance(key, str) else curses.keyname(key).decode()
    return "\x7f" if name == "KEY_BACKSPACE" else name


def run_curses(frame: Frame, handle: KeyHandler, poll_ms: int, cursor: bool = False) -> None:
    """The full-screen loop: draw, take a key (or time out and redraw), hand it on."""
    import curses

    def loop(screen: Any) -> None:
        prepare(screen, poll_ms, cursor)
        while True:
            frame(screen)
            try:
                key = screen.get_wch()
            except curses.error:  # no key within poll_ms: redraw
                continue
            if not handle(key_name(key)):
                return

    curses.wrapper(loop)


def say(out: TextIO, *lines: str) -> None:
    """Lines to the line mode's output, flushed at once (a pipe may be waiting on them)."""
    print("\n".join(lines), file=out, flush=True)


def typed_words(line: str) -> list[str]:
    """A typed line's words, through the text gate: tabs count as spaces and the line's
    end is dropped; anything else :func:`companion.text.clean` refuses is an InputError
    naming the typed line."""
    return gate.clean(line.rstrip("\r\n").replace("\t", " "), TYPED, limit=LINE_LIMIT).split()


def run_lines(
    stream: Iterable[str],
    out: TextIO,
    commands: Mapping[str, LineCommand],
    unknown: Callable[[str, list[str]], None] | None = None,
) -> None:
    """Line mode: one command per line, by its first word (case-insensitive), until a
    quit word or the end of the input. ``unknown`` gets the other lines (command, words);
    without it they are answered with the list of commands."""
    for line in stream:
        try:
            words = typed_words(line)
        except InputError as exc:
            say(out, f"refused: {exc}")
            continue
        if not words:
            continue
        command = words[0].lower()
        if command in QUIT_WORDS:
            break
        action = commands.get(command)
        if action is not None:
            action(words[1:])
        elif unknown is not None:
            unknown(command, words[1:])
        else:
            known = ", ".join([*commands, "quit"])
            say(out, f"unknown command {command!r} ({known})")


def table_command(
    words: list[str], help_text: str, status: Callable[[], str], undo: Callable[[], str]
) -> tuple[bool, str | None]:
    """The words every turn-based table answers alike (quit, help, status, undo): whether
    the line was one of them, and the reply (None: quit). Any other line is the table's."""
    head = words[0].lower()
    if head in QUIT_WORDS:
        return True, None
    if head in ANSWERED_WHOLE[:2]:
        return True, help_text
    if head in ANSWERED_WHOLE[2:]:
        return True, status()
    if head in ("undo", "u"):
        return True, undo() if len(words) == 1 else "no: undo takes nothing after it"
    return False, ""


def answer_lines(
    lines: Iterable[str],
    command: Callable[[str], str | None],
    prompt: Callable[[], str],
    out: TextIO,
    echo: bool = True,
    guard: AbstractContextManager[object] | None = None,
) -> None:
    """A turn-based table's line mode: each line echoed (``echo``), its reply, then what
    comes next, until ``command`` answers None (quit). ``guard`` is held over each line
    when the phones' page changes the same table."""
    for line in lines:
        try:
            typed_words(line)
        except InputError as exc:
            print(f"refused: {exc}", file=out, flush=True)
            continue
        with guard or contextlib.nullcontext():
            if echo and line.strip():
                print(f"> {line.strip()}", file=out)
            reply = command(line)
            if reply is None:
                return
            if reply:
                print(reply, file=out)
            if line.split() and line.split()[0].lower() not in ANSWERED_WHOLE:
                print(prompt(), file=out)
            out.flush()


def serve_face(
    curses_face: Callable[[], None],
    line_face: Callable[[], None],
    interactive: bool | None = None,
) -> None:
    """The curses face on a terminal (or when ``interactive``), else the line mode."""
    if interactive if interactive is not None else sys.stdin.isatty():
        curses_face()
    else:
        line_face()
