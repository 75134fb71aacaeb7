"""The saved game: the replay input, rewritten after every round.

The file is exactly what ``companion getbit replay`` reads, so a crash loses nothing and
``--resume`` is just a replay; undo drops the last round and replays the rest.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.errors import InputError
from companion.files import (
    LockedFile,
    check_path,
    lock_beside,
    make_room,
    read_json,
    write_atomic,
)
from companion.games.getbit import GetBit, Replay, RoundResult, Setup, replay
from companion.games.getbit.formats import replay_from_dict

DEFAULT_SAVE = "getbit-game.json"


def game_json(game: Mapping[str, Any]) -> str:
    """The saved game as JSON a person can read and mend: one round per line."""
    lines = [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in game.items()]
    rounds = game.get("rounds")
    if rounds:
        inner = ",\n".join(f"    {json.dumps(r, ensure_ascii=False)}" for r in rounds)
        lines[-1] = f'  "rounds": [\n{inner}\n  ]'
    return "{\n" + ",\n".join(lines) + "\n}\n"


@dataclass
class SavedGame:
    """The game at the table: its setup, the rounds so far, and where it is saved."""

    game: Replay
    path: Path
    held: LockedFile | None = None  # the lock on the save, for the table's lifetime

    def release(self) -> None:
        if self.held is not None:
            self.held.release()

    @property
    def setup(self) -> Setup:
        return self.game.setup

    @property
    def state(self) -> GetBit:
        return self.game.state

    @property
    def last(self) -> RoundResult | None:
        return self.game.results[-1] if self.game.results else None

    @classmethod
    def open(
        cls, path: Path, setup: Setup | None, resume: bool, new: bool
    ) -> tuple[SavedGame, list[str]]:
        """A new game saved at ``path``, or the game saved there resumed."""
        messages: list[str] = []
        check_path(path)
        if setup is None and not resume:
            raise InputError("--players", "name the players (or --robots, or --config)")
        held = lock_beside(path, "saved game")
        try:
            session, messages = cls._open(path, setup, resume, new)
        except BaseException:
            held.release()
            raise
        session.held = held
        return session, messages

    @classmethod
    def _open(
        cls, path: Path, setup: Setup | None, resume: bool, new: bool
    ) -> tuple[SavedGame, list[str]]:
        messages: list[str] = []
        if resume:
            if not path.exists():
                raise InputError("", "no saved game here to resume", str(path))
            try:
                game = replay_from_dict(read_json(str(path)))
            except InputError as exc:
                raise (exc if exc.source else exc.in_source(str(path))) from None
            messages.append(f"resumed {path} after round {game.state.rounds}")
            return cls(game, path), messages
        if setup is None:
            raise InputError("--players", "name the players (or --robots, or --config)")
        kept = make_room(path, new)
        if kept is not None:
            messages.append(f"previous game kept as {kept}")
        session = cls(replay(setup, ()), path)
        session.save()
        messages.append(f"new game, saved after every round to {path}")
        return session, messages

    def save(self) -> None:
        """Write the replay input atomically: the old file stays whole until the new is."""
        write_atomic(
            self.path,
            game_json(self.game.game_dict()),
            "the saved game is whole up to the round before; --resume goes on from there",
        )

    def play(self, cards: Mapping[str, int]) -> RoundResult:
        """Settle a round (G7 refusals change nothing) and save the game."""
        state, result = self.state.play(cards)
        g = self.game
        self.game = Replay(g.setup, (*g.rounds, dict(cards)), (*g.results, result), state)
        self.save()
        return result

    def undo(self) -> int | None:
        """Drop the last round and replay the rest; the round undone, or None."""
        if not self.game.rounds:
            return None
        n = len(self.game.rounds)
        self.game = replay(self.setup, self.game.rounds[:-1])
        self.save()
        return n
