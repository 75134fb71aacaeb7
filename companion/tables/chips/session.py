"""The Chips helper at the table: the game, its save file, undo by turns, and the lights.

The game is saved after every command (so after every turn) as plain JSON: the table
now and the table at the start of each turn, which is what ``undo`` goes back to. A crash
loses nothing: ``companion chips --resume`` carries on from the file.
"""

from __future__ import annotations

import collections
import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion import data, files
from companion.errors import InputError, RuleError
from companion.files import make_room, read_json
from companion.games.chips import ChipsTable, table_from_dict
from companion.signals import Cue, Signal
from companion.tables.chips.typed import HELP, execute
from companion.tables.shell import table_command, typed_words

SAVE_FORMAT = "companion/chips-game/1"
DEFAULT_SAVE = "chips-game.json"

Render = Callable[[Sequence[Cue]], None]


def status_text(table: ChipsTable) -> str:
    """The table in a few lines: top card, deck, every player's counts."""
    top = "-" if table.top is None else str(table.top)
    lines = [f"top {top} · deck {table.deck} · discard pile {table.discard}"]
    width = max(len(p) for p in table.players)
    for p in table.players:
        mark = "▶" if p == table.actor else " "
        if p in table.out:
            lines.append(f"{mark} {p:<{width}}  out")
            continue
        new = f" ({table.fresh[p]} new)" if table.fresh[p] else ""
        lines.append(
            f"{mark} {p:<{width}}  {table.hands[p]:>2} cards{new:<9}  "
            f"fish-or-chips {table.down[p]} face down  "
            f"Mad Fish {table.mad[p]}/{table.rules.mad_fish_to_lose}"
        )
    return "\n".join(lines)


def at_turn_start(table: ChipsTable) -> bool:
    """Nothing is half done: the next command begins a turn (or turns the first card)."""
    return table.pending is None


def save_from_dict(value: object) -> tuple[ChipsTable, list[dict[str, Any]]]:
    """A save file: the table now and the table at the start of each turn played."""
    raw = data.obj(value, data.ROOT, required=("format", "table", "turns"))
    if raw["format"] != SAVE_FORMAT:
        raise data.fail("format", f"expected {SAVE_FORMAT!r}, got {raw['format']!r}")
    table = _table_at(raw["table"], "table")
    turns = data.lst(raw["turns"], "turns")
    for i, turn in enumerate(turns):
        _table_at(turn, data.at("turns", i))
    return table, [dict(t) for t in turns]


def _table_at(value: object, where: str) -> ChipsTable:
    """A table inside the save file; a problem names its place there (``turns[3].deck``)."""
    try:
        return table_from_dict(value)
    except InputError as exc:
        inner = "" if exc.where in ("", data.where(data.ROOT)) else exc.where
        raise data.fail(f"{where}.{inner}" if inner else where, exc.message) from None


@dataclass
class ChipsHelper:
    """The table plus what the command line adds: turn undo, messages, save file, LEDs."""

    table: ChipsTable
    render: Render | None = None
    path: Path | None = None
    turns: list[dict[str, Any]] = field(default_factory=list)
    messages: collections.deque[str] = field(default_factory=lambda: collections.deque(maxlen=8))
    shown: tuple[str | None, str | None, tuple[str, ...]] | None = None
    held: files.LockedFile | None = None
    # The terminal and the phones' page (another thread) both change the game: every
    # command, and every reading of the whole table, holds this guard.
    guard: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.lights()

    @classmethod
    def open(
        cls, path: Path, table: ChipsTable | None, resume: bool, new: bool, render: Render | None
    ) -> ChipsHelper:
        """A new game saved at ``path``, or the game saved there resumed; the save is held
        (locked) until :meth:`release`, so a second helper on it is refused."""
        held = files.lock_beside(Path(files.check_path(path)), "saved game")
        try:
            helper = cls._open(path, table, resume, new, render)
        except BaseException:
            held.release()
            raise
        helper.held = held
        return helper

    def release(self) -> None:
        if self.held is not None:
            self.held.release()

    @classmethod
    def _open(
        cls, path: Path, table: ChipsTable | None, resume: bool, new: bool, render: Render | None
    ) -> ChipsHelper:
        if resume:
            if not path.exists():
                raise InputError("", "no saved game here to resume", str(path))
            try:
                saved, turns = save_from_dict(read_json(str(path)))
            except InputError as exc:
                raise (exc if exc.source else exc.in_source(str(path))) from None
            helper = cls(saved, render, path, turns)
            helper.messages.append(f"resumed {path} after {len(turns)} turn(s)")
            return helper
        assert table is not None
        kept = make_room(path, new)
        helper = cls(table, render, path)
        if kept is not None:
            helper.messages.append(f"previous game kept as {kept}")
        helper.save()
        helper.messages.append(f"new game, saved after every turn to {path}")
        return helper

    def save(self) -> None:
        """Write the game atomically: the old file stays whole until the new one is."""
        if self.path is None:
            return
        doc = {"format": SAVE_FORMAT, "table": self.table.to_dict(), "turns": self.turns}
        files.write_atomic(
            self.path,
            json.dumps(doc, ensure_ascii=False) + "\n",
            "the save is whole up to the turn before; --resume goes on from there",
        )

    def lights(self) -> None:
        """Light whoever must act; show eliminations and the end (docs/chips.md)."""
        t = self.table
        actor = t.actor if t.top is not None else None
        now = (actor, t.winner, tuple(t.out))
        if now == self.shown or self.render is None:
            self.shown = now
            return
        before = self.shown[2] if self.shown else ()
        cues = [Cue(Signal.READY)]
        cues += [Cue(Signal.ELIMINATED, p) for p in t.out if p not in before]
        if t.winner is not None:
            cues.append(Cue(Signal.GAME_OVER, t.winner))
        elif actor is not None:
            cues.append(Cue(Signal.TURN, actor))
        self.shown = now
        self.render(cues)

    def undo(self) -> str:
        """Back to the start of the turn under way, or of the last turn played."""
        if not self.turns:
            return "nothing to undo"
        self.table = table_from_dict(self.turns.pop())
        self.save()
        self.lights()
        t = self.table
        if t.top is None:
            return "undone: turn over the deck's top card again."
        return f"undone: back to the start of {t.turn}'s turn."

    def command(self, line: str) -> str | None:
        """Run one typed line; the one-line reply (help and status: several), or None to
        quit. A refused line changes nothing and says why."""
        with self.guard:
            return self._command(line)

    def _command(self, line: str) -> str | None:
        try:
            words = typed_words(line)  # the terminal and the page alike
        except InputError as exc:
            return f"no: {exc}"
        if not words:
            return ""
        common, reply = table_command(words, HELP, lambda: status_text(self.table), self.undo)
        if common:
            return reply
        snapshot = self.table.to_dict()
        starts = at_turn_start(self.table)
        try:
            said = execute(self.table, words)
        except RuleError as exc:
            self.table = table_from_dict(snapshot)  # belt and braces: nothing changed
            return f"no: {exc}"
        if starts:
            self.turns.append(snapshot)
        self.save()
        self.lights()
        return said.strip()
