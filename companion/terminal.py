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
