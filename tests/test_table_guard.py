"""A key at the Pi and a tap on a phone never interleave (Get Bit!, Chips).

The page's actions run on the server's threads, the terminal's on its own: both hold the
table's guard. Each test stops the page's action half way (inside the save, or the
round's play), has the terminal act meanwhile, and checks that the terminal waited and
that nothing it typed was lost.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from companion.files import read_json
from companion.games.chips import ChipsTable
from companion.games.getbit import RoundResult, Setup
from companion.tables.chips.screen import CommandLine
from companion.tables.chips.session import ChipsHelper, save_from_dict
from companion.tables.chips.web import ChipsWebTable
from companion.tables.getbit.session import open_getbit_table
from companion.tables.getbit.web import GetBitWebTable

PLAYERS = ("ann", "bob", "cat", "dan")
WAIT_S = 0.3  # long enough for an unguarded terminal to run through


class HalfWay:
    """Stops the first call of a function half way until :meth:`release`."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self.inside = threading.Event()
        self.go_on = threading.Event()
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        if self.calls == 1:
            self.inside.set()
            assert self.go_on.wait(10)
        return self.function(*args, **kwargs)

    def release(self) -> None:
        self.go_on.set()


def in_thread(work: Callable[[], object]) -> threading.Thread:
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    return thread


def test_chips_terminal_waits_for_the_pages_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    helper = ChipsHelper.open(
        tmp_path / "chips.json", ChipsTable.new(["ann", "bob", "cat"]), False, False, None
    )
    page = ChipsWebTable(helper)
    stopped = HalfWay(helper.save)
    monkeypatch.setattr(helper, "save", stopped)
    tap = in_thread(lambda: page.act({"type": "command", "line": "5"}))  # the top card
    assert stopped.inside.wait(10)
    terminal = CommandLine(helper, typed="4")  # ann's discard, typed while the page saves
    key = in_thread(lambda: terminal.key("\n"))
    key.join(WAIT_S)
    assert key.is_alive(), "the terminal ran inside the page's command"
    reading = in_thread(page.state)
    reading.join(WAIT_S)
    assert reading.is_alive(), "the page read a table half way through a command"
    stopped.release()
    for thread in (tap, key, reading):
        thread.join(10)
    assert helper.table.top == 4 and helper.table.actor == "bob"
    assert helper.messages[-1].startswith("ann")  # the terminal's reply, not a refusal
    saved, turns = save_from_dict(read_json(str(tmp_path / "chips.json")))
    assert saved.to_dict() == helper.table.to_dict() and len(turns) == 2


def test_getbit_key_typed_during_the_pages_round_is_not_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unguarded, the key went into the entry of the round being played, which the play
    then replaced: the card typed at the Pi vanished."""
    table = open_getbit_table(tmp_path / "game.json", Setup({p: p for p in PLAYERS}, PLAYERS))
    try:
        page = GetBitWebTable(table)
        stopped = HalfWay(table.session.play)
        monkeypatch.setattr(table.session, "play", stopped)
        cards: Mapping[str, object] = {"ann": 1, "bob": 2, "cat": 3, "dan": 4}
        tap = in_thread(lambda: page.act({"type": "play", "cards": cards}))
        assert stopped.inside.wait(10)
        key = in_thread(lambda: table.key("5"))  # round 2's first card, typed at the Pi
        key.join(WAIT_S)
        assert key.is_alive(), "the key went into the round being played"
        stopped.release()
        tap.join(10)
        key.join(10)
        assert table.session.state.rounds == 1
        assert table.entry.typed == [5]  # the key belongs to round 2's entry
    finally:
        table.close()


def test_getbit_page_waits_for_the_terminals_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = open_getbit_table(tmp_path / "game.json", Setup({p: p for p in PLAYERS}, PLAYERS))
    try:
        page = GetBitWebTable(table)
        stopped = HalfWay(table.session.play)
        monkeypatch.setattr(table.session, "play", stopped)
        played: list[RoundResult | None] = []
        typed = in_thread(lambda: played.append(table.play({p: 5 for p in PLAYERS})))
        assert stopped.inside.wait(10)
        errors: list[Exception] = []

        def tap() -> None:
            try:
                page.act({"type": "play", "cards": {p: 5 for p in PLAYERS}})
            except Exception as exc:  # the same cards again: refused once round 1 is in
                errors.append(exc)

        tapped = in_thread(tap)
        tapped.join(WAIT_S)
        assert tapped.is_alive(), "the page played over the terminal's round"
        stopped.release()
        typed.join(10)
        tapped.join(10)
        assert played and played[0] is not None
        (refused,) = errors  # checked against round 2's hands, not round 1's
        assert str(refused) == "cards: round 2: ann cannot play 5: not in its hand (1, 2, 3, 4)"
        assert table.session.state.rounds == 1
    finally:
        table.close()
