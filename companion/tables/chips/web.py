"""The Great Chips Escape on the phones: whose turn, the legal discards, the Mad Fish, and
the same typed commands as at the terminal (docs/chips.md), sent from the page.

Every command goes through :meth:`ChipsHelper.command`, so the page and the terminal
keep one game, one save file and one undo. A refused command changes nothing and comes
back as ``400 line: why``. The page hears of commands typed at the terminal by the same
watcher as Get Bit!'s (a fingerprint of the table, four times a second).
"""

from __future__ import annotations

import collections
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.errors import InputError
from companion.files import make_room
from companion.games.chips import ChipsStep, ChipsTable
from companion.games.chips.cards import neighbours
from companion.tables.chips.session import ChipsHelper
from companion.tables.web.hub import Action, WatchedTable

KEEP_SAID = 8
DISCARDING = (None, ChipsStep.TRIPLE, ChipsStep.HEROES, ChipsStep.SIR_FRIES)


def legal_discards(helper: ChipsHelper) -> list[int]:
    """The numbers the player who must act may discard now (empty: no discard now)."""
    t = helper.table
    p, step = t.actor, t.pending
    if t.top is None or p is None or t.usable(p) < 1:
        return []
    if step is not None and step.step not in DISCARDING:
        return []
    if step is not None and step.step is ChipsStep.SIR_FRIES and step.numbers:
        return sorted(step.numbers)
    if step is not None and step.step is ChipsStep.HEROES and step.first:
        return list(range(1, 10))
    return sorted(set(neighbours(t.top)))


def answers(helper: ChipsHelper) -> list[dict[str, str]]:
    """The table's open question as buttons: each a typed line and what it says.

    A question the prompt ends with (a Golden Knight or not, done, whose hand) is answered
    with a tap as well as typed; the line is the one the terminal takes."""
    t = helper.table
    step = t.pending
    if step is None or t.actor is None or t.winner is not None:
        return []
    if step.step is ChipsStep.KNIGHT:
        return [
            {"line": "knight", "text": "knight: cover the Mad Fish"},
            {"line": "no", "text": "no: keep the Mad Fish"},
        ]
    if step.step in (ChipsStep.SIR_FRIES, ChipsStep.TRIPLE, ChipsStep.HEROES):
        return [{"line": "done", "text": "done"}]
    if step.step in (ChipsStep.SPY_FRY, ChipsStep.FISH_TIME):
        others = [p for p in t.players if p != t.actor and p not in t.out]
        # A name is typed as one word at the terminal: a name with a space is typed there.
        return [{"line": p, "text": p} for p in others if len(p.split()) == 1]
    return []


class ChipsWebTable(WatchedTable):
    """The hub's ``chips`` table over a :class:`ChipsHelper`."""

    name = "chips"
    history_db: str | None = None  # the database it records into: the History tab reads it

    def __init__(self, helper: ChipsHelper) -> None:
        self.helper = helper
        self.said: collections.deque[dict[str, str]] = collections.deque(maxlen=KEEP_SAID)
        self.games = 1  # the games begun from the page: a page that sees it change redraws

    def game_id(self) -> str:
        return str(self.games)

    def fingerprint(self) -> object:
        with self.helper.guard:
            table = self.helper.table.to_dict()
        return json.dumps(table, sort_keys=True), tuple(self.helper.messages)

    def state(self) -> dict[str, Any]:
        with self.helper.guard:  # not a table half way through the terminal's command
            return self._state()

    def _state(self) -> dict[str, Any]:
        t = self.helper.table
        players = [
            {
                "name": p,
                "cards": t.hands[p],
                "new": t.fresh[p],
                "down": t.down[p],
                "mad_fish": t.mad[p],
                "knights": t.knights[p],
                "out": p in t.out,
                "acts": p == t.actor,
            }
            for p in t.players
        ]
        return {
            "players": players,
            "turn": t.turn,
            "actor": t.actor,
            "top": t.top,
            "deck": t.deck,
            "discard": t.discard,
            "winner": t.winner,
            "mad_fish_to_lose": t.rules.mad_fish_to_lose,
            "prompt": t.prompt(),
            "legal": legal_discards(self.helper),
            "answers": answers(self.helper),
            "can_draw": t.top is not None and t.pending is None and t.can_draw(),
            "undo": bool(self.helper.turns),
            "said": list(self.said),
            "messages": list(self.helper.messages),
        }

    def act(self, action: Action) -> None:
        if action["type"] == "new_game":
            self._new_game()
            return
        if action["type"] != "command":
            raise InputError(
                "type", f"{action['type']!r}: Chips takes command (a typed line), new_game"
            )
        line = action.get("line")
        if not isinstance(line, str) or not line.strip() or "\n" in line:
            raise InputError("line", "type one command, e.g. 5, draw, undo (help lists them)")
        with self.helper.guard:  # the terminal's commands hold it too
            reply = self.helper.command(line)
            if reply is not None and not reply.startswith("no: "):
                self.said.append({"line": line.strip(), "reply": reply})
        if reply is None:
            raise InputError("line", "quit is typed at the Pi: the page cannot stop the game")
        if reply.startswith("no: "):
            raise InputError("line", reply.removeprefix("no: "))

    def _new_game(self) -> None:
        """New game (the page asked first): the same seats and rules, the game so far kept
        aside under a new name as ``--new`` does, never deleted."""
        helper = self.helper
        with helper.guard:
            old = helper.table
            kept = make_room(helper.path, True) if helper.path is not None else None
            helper.table = ChipsTable.new(old.players, old.rules, strict=old.strict)
            helper.turns = []
            helper.save()
            helper.lights()
            self.said.clear()
            self.games += 1
            helper.messages.append(
                "new game from a phone" + (f"; the last one kept as {kept}" if kept else "")
            )


def serve_web(
    helper: ChipsHelper,
    listen: str,
    save: Path | None = None,
    new_code: bool = False,
    db: str | None = None,
) -> Callable[[], None]:
    """``companion chips --web``: the page beside the terminal, its join code kept beside
    the save file; returns how to stop it. ``db``: the history database the table records
    into (the History tab reads it)."""
    from companion.tables.web.serve import serve_page, table_code_file

    code_file = table_code_file(save, "chips")
    page = ChipsWebTable(helper)
    page.history_db = db
    return serve_page(page, listen, helper.messages.append, code_file, new_code)
