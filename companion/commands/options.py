"""Options shared by several commands: the table's web page, the games history, bounded
counts, and the names a command takes on its command line, checked by the text gate
(companion.text).

Argparse only, and light: a command's module imports this at once, so nothing here may
pull in a web server or a database.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from companion import text as gate


def add_web_option(parser: argparse.ArgumentParser, default: str | None = None) -> None:
    """``--web [HOST:]PORT`` on a table's command: its page served from the same process,
    and ``--new-code`` with it."""
    parser.add_argument(
        "--web",
        nargs="?",
        const="8080",
        default=default,
        metavar="[HOST:]PORT",
        help="also serve the table to the phones (docs/web.md); alone: 0.0.0.0:8080",
    )
    add_new_code_option(parser, False if default is None else default)


def add_new_code_option(parser: argparse.ArgumentParser, default: object = False) -> None:
    """``--new-code``: the page's join code is kept across restarts of the same table
    until this asks for a new one (every phone must then join again)."""
    parser.add_argument(
        "--new-code",
        action="store_true",
        default=default,
        help="a new join code for the page (else the one kept from the last start)",
    )


def add_history_db_option(
    parser: argparse.ArgumentParser,
    help_text: str = "the history database (docs/history.md)",
    default: object = None,
) -> None:
    """``--db FILE``: the history database a command records into or shows."""
    parser.add_argument("--db", metavar="FILE", default=default, help=help_text)


def add_history_options(parser: argparse.ArgumentParser, default: object = None) -> None:
    """``--db`` and ``--no-history`` on a command that finishes games (docs/history.md)."""
    add_history_db_option(parser, default=default)
    parser.add_argument(
        "--no-history",
        action="store_true",
        default=False if default is None else default,
        help="do not record the finished game in the history",
    )


def checked_names(value: str | None, option: str) -> str | None:
    """``A,B,C`` from argv with every name through the text gate (companion.text.name),
    written back in their one form (trimmed, NFC). Argv bytes that are not UTF-8 arrive
    as lone surrogates: refused here in one line, before any table, journal or page sees
    them. Blank items are left for the table to count, as before."""
    if value is None:
        return None
    items = [item for item in value.split(",") if item.strip()]
    if not items:
        return value
    return ",".join(gate.name(item, option) for item in items)


def checked_name(value: str | None, option: str) -> str | None:
    """One name from argv (``--first NAME``, ``PLAYER``) through the text gate."""
    return None if value is None else gate.name(value, option)


def checked_pairs(value: str | None, option: str) -> str | None:
    """``ROBOT=PLAYER,...`` or ``PLAYER=COLOUR,...`` from argv: each side of each pair a
    name through the text gate; an item without ``=`` is only checked as text and left
    for the table's own message."""
    if value is None:
        return None
    items = []
    for item in value.split(","):
        left, eq, right = item.partition("=")
        if eq and left.strip() and right.strip():
            items.append(f"{gate.name(left, option)}={gate.name(right, option)}")
        else:
            items.append(gate.clean(item, option))
    return ",".join(items)


def counted(low: int, high: int) -> Callable[[str], int]:
    """An argparse type for a count from ``low`` to ``high``: a bench asked for
    99999999999999999999 photos would run for ever, so the range is refused at the
    command line, in one line naming the option (the range is in each option's help)."""

    def parse(text: str) -> int:
        value = gate.number_or_none(text, low=low, high=high)  # ASCII digits only
        if value is None:
            raise argparse.ArgumentTypeError(f"from {low} to {high}, not {text[:30]}")
        return value

    parse.__name__ = "count"  # argparse names the type in its message
    return parse
