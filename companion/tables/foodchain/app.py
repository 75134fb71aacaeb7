"""``companion foodchain play`` put together: the catalog, the seats, then line by line."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TextIO

from companion.errors import InputError, RuleError
from companion.games.foodchain.table import FoodChainTable
from companion.tables import shell
from companion.tables.foodchain.score import load_catalog
from companion.tables.foodchain.session import FoodChainHelper, prompt


@dataclass(frozen=True)
class FoodChainOptions:
    """What ``companion foodchain play`` is told."""

    catalog: str  # the card catalog (examples/foodchain-catalog.example.json)
    players: str | None  # "ann,bob,cat": the seats in order (required)
    first: str | None = None  # who starts (None: the first seat)


def _lines(stream: TextIO, tty: bool) -> Iterable[str]:
    """Typed lines: with a prompt on a terminal, as they come from a pipe."""
    if not tty:
        yield from stream
        return
    while True:
        try:
            yield input("> ")
        except EOFError:
            return


def run(options: FoodChainOptions) -> int:
    """The Food Chain helper at the table: typed lines in, the table's state out."""
    catalog = load_catalog(options.catalog)
    if not options.players:
        raise InputError("--players", "name the players in seat order (--players ann,bob,cat)")
    players = [n.strip() for n in options.players.split(",") if n.strip()]
    try:
        table = FoodChainTable.start(catalog, players, options.first)
    except RuleError as exc:
        where = "--first" if options.first and options.first not in players else "--players"
        raise InputError(where, str(exc)) from None
    helper = FoodChainHelper(table)
    out = sys.stdout
    tty = sys.stdin.isatty() and out.isatty()
    print(f"Food Chain · {', '.join(players)}. Type help for the commands.", file=out)
    if catalog.example:
        print(f"Catalog: {catalog.title or 'an example with invented cards'}", file=out)
    print(prompt(helper.table), file=out, flush=True)
    shell.answer_lines(
        _lines(sys.stdin, tty), helper.command, lambda: prompt(helper.table), out, echo=not tty
    )
    return 0
