"""The Chips table's two faces: plain lines (pipes, scripts, tests) and a full screen.

Both read one command a line and show the reply; the screen also shows every player's
counts and, on a Pi, each player's LED. Curses goes through ``companion.tables.shell``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from companion.tables import shell
from companion.tables.chips.session import ChipsHelper


def run_lines(helper: ChipsHelper, title: str, stream: TextIO, out: TextIO) -> None:
    """Line mode: a command per line in, the reply and what comes next out."""
    print(f"{title}. Type help for the commands.", file=out)
    for message in helper.messages:
        print(message, file=out)
    print(helper.table.prompt(), file=out, flush=True)
    # The reply and the prompt of this command, not of a page's in between.
    shell.answer_lines(
        stream, helper.command, lambda: helper.table.prompt(), out, guard=helper.guard
    )


@dataclass
class CommandLine:
    """What the full screen holds between keys: the line being typed, the last long
    reply (help, status) and whether a quit waits for its yes."""

    helper: ChipsHelper
    typed: str = ""
    last: str = ""
    quit_armed: bool = False

    def key(self, name: str) -> bool:
        """One key (as :func:`shell.key_name` names it); False once the table is left."""
        if self.quit_armed:
            self.quit_armed = False
            return name not in ("y", "Y")
        if name in shell.ENTER_KEYS:
            with self.helper.guard:  # the page reads the messages under it
                self._enter()
        elif name in ("\x7f", "\b"):
            self.typed = self.typed[:-1]
        elif name == "\x1b":
            self.typed = ""
        elif len(name) == 1 and name.isprintable():
            self.typed += name
        return True

    def _enter(self) -> None:
        reply = self.helper.command(self.typed)
        self.typed = ""
        if reply is None:
            self.quit_armed = True
        elif "\n" in reply:  # help or status: shown whole until the next command
            self.last = reply
        else:
            self.last = ""
            if reply:
                self.helper.messages.append(reply)


def run_curses(helper: ChipsHelper, title: str, led: Callable[[str], bool | None]) -> None:
    """The full-screen table: the players, the top card, the prompt, a command line."""
    line = CommandLine(helper)

    def frame(screen: Any) -> None:
        with helper.guard:  # the page's command waits for the frame, and the frame for it
            draw(screen, helper, title, led, line.typed, line.last, line.quit_armed)

    shell.run_curses(frame, line.key, 100, cursor=True)


def draw(
    screen: Any,
    helper: ChipsHelper,
    title: str,
    led: Callable[[str], bool | None],
    typed: str,
    last: str,
    quit_armed: bool,
) -> None:
    import curses

    screen.erase()
    height, width = screen.getmaxyx()

    body = height - 2  # the last two rows: the quit question and the command line

    def put(y: int, x: int, text: str, attr: int = 0, bottom: bool = False) -> None:
        shell.put(screen, y, x, text, attr, None if bottom else body)

    t = helper.table
    put(0, 0, title, curses.A_BOLD)
    top = "-" if t.top is None else str(t.top)
    put(1, 0, f"Top card  {top}", curses.A_BOLD | curses.color_pair(2))
    put(1, 14, f"   deck {t.deck} · discard pile {t.discard}")
    y = 3
    name_width = max(len(p) for p in t.players)
    for p in t.players:
        lit = led(p)
        acting = p == t.actor
        lamp = ("●" if lit else "○") if lit is not None else ("▶" if acting else " ")
        put(y, 1, lamp, curses.color_pair(1) | curses.A_BOLD if (lit or acting) else 0)
        if p in t.out:
            put(y, 3, f"{p:<{name_width}}  out", curses.A_DIM)
        else:
            new = f" ({t.fresh[p]} new)" if t.fresh[p] else ""
            fish = "▮" * t.down[p]
            mad = f"Mad Fish {'✕' * t.mad[p]}{'·' * max(0, t.rules.mad_fish_to_lose - t.mad[p])}"
            line = f"{p:<{name_width}}  {t.hands[p]:>2} cards{new:<9}  {fish:<6} {mad}"
            put(y, 3, line, curses.A_BOLD if acting else 0)
        y += 1
    y += 1
    put(y, 0, t.prompt(), curses.A_BOLD | (curses.color_pair(1) if t.winner else 0))
    y += 2
    if last:  # help or status: show it whole
        for line in last.splitlines():
            put(y, 0, line, curses.A_DIM)
            y += 1
        y += 1
    for message in helper.messages:
        put(y, 0, message, curses.color_pair(3) if message.startswith("no:") else 0)
        y += 1
    if quit_armed:
        put(height - 2, 0, "Quit the helper? y / n", curses.color_pair(3) | curses.A_BOLD, True)
    prompt = f"> {typed}"
    put(height - 1, 0, prompt, bottom=True)
    put(height - 1, len(prompt) + 2, "help · undo · quit", curses.A_DIM, True)
    try:
        screen.move(height - 1, min(len(prompt), width - 1))
    except curses.error:
        pass
    screen.refresh()
