"""Options shared by several commands: the table's web page and the games history.

Argparse only, and light: a command's module imports this at once, so nothing here may
pull in a web server or a database.
"""

from __future__ import annotations

import argparse


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
