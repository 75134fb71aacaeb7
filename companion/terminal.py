"""The table screens' shared curses set-up: one look for every game's screen."""

from __future__ import annotations

from typing import Any

GREEN, YELLOW, RED = 1, 2, 3  # colour pairs every screen uses


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
