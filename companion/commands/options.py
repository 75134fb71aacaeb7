"""Options shared by several commands: the table's web page, the games history, and
bounded counts.

Argparse only, and light: a command's module imports this at once, so nothing here may
pull in a web server or a database.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable


def add_web_option(parser: argparse.ArgumentParser, default: str | None = None) -> None:
    """``--web [HOST:]PORT`` on a table's command: its page served from the same process."""
    parser.add_argument(
        "--web",
        nargs="?",
        const="8080",
        default=default,
        metavar="[HOST:]PORT",
        help="also serve the table to the phones (docs/web.md); alone: 0.0.0.0:8080",
    )


def add_history_options(parser: argparse.ArgumentParser, default: object = None) -> None:
    """``--db`` and ``--no-history`` on a command that finishes games (docs/history.md)."""
    parser.add_argument(
        "--db", metavar="FILE", default=default, help="the history database (docs/history.md)"
    )
    parser.add_argument(
        "--no-history",
        action="store_true",
        default=False if default is None else default,
        help="do not record the finished game in the history",
    )


def counted(low: int, high: int) -> Callable[[str], int]:
    """An argparse type for a count from ``low`` to ``high``: a bench asked for
    99999999999999999999 photos would run for ever, so the range is refused at the
    command line, in one line naming the option (the range is in each option's help)."""

    def parse(text: str) -> int:
        try:
            value = int(text) if len(text) <= 30 else None
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"from {low} to {high}, not {text[:30]}")
        return value

    parse.__name__ = "count"  # argparse names the type in its message
    return parse
