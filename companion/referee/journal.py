"""The referee's journal: append-only JSON Lines of every edge, reveal, card entry and
verdict, so that any call can be replayed and a restart loses nothing.

Each line is flushed as it is written and the file is fsync'd at every verdict, so a power
cut loses at most the presses of the round in play, and never a decided round. A last
line cut short by the power cut is expected and skipped with a warning; damage anywhere
else is an error that names the line.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from companion.errors import InputError

ENTRY_TYPES = ("start", "round", "reveal", "edge", "cards", "verdict", "resume", "abandon")


class JournalWriter:
    """Appends entries; ``durable=True`` fsyncs (done at each verdict)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[bytes] = open(path, "ab")  # lives as long as the game

    def write(self, entries: list[dict[str, Any]], durable: bool = False) -> None:
        if not entries:
            return
        self._file.write(
            b"".join(json.dumps(e, separators=(",", ":")).encode() + b"\n" for e in entries)
        )
        self._file.flush()
        if durable:
            os.fsync(self._file.fileno())

    def close(self) -> None:
        if not self._file.closed:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()


@dataclass(frozen=True)
class JournalContents:
    entries: list[dict[str, Any]]
    warnings: list[str]


def read_journal(path: Path | str) -> JournalContents:
    """Every entry of a journal, checked enough to replay it safely."""
    source = str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError("", "no such journal", source) from None
    except OSError as exc:
        raise InputError("", f"cannot read: {exc.strerror}", source) from None
    lines = raw.split(b"\n")
    entries: list[dict[str, Any]] = []
    warnings: list[str] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        last = number == len(lines)  # no newline after it: the write was cut short
        try:
            entry = json.loads(line)
            if not isinstance(entry, dict) or entry.get("type") not in ENTRY_TYPES:
                raise ValueError(f"not a journal entry: {line[:60]!r}")
        except (ValueError, UnicodeDecodeError) as exc:
            if last:
                warnings.append(f"{source}: line {number}: cut short (power cut?), skipped")
                continue
            raise InputError(f"line {number}", f"damaged journal line ({exc})", source) from None
        entries.append(entry)
    if not entries:
        raise InputError("", "empty journal", source)
    if entries[0]["type"] != "start":
        raise InputError("line 1", "a journal starts with a 'start' entry", source)
    for key in ("players", "mode", "two_player_end", "deal", "effective_tie_window_us"):
        if key not in entries[0]:
            raise InputError("line 1", f"the start entry has no {key!r}", source)
    return JournalContents(entries, warnings)


@dataclass
class JournalRound:
    """One round as the journal tells it, grouped from its entries."""

    n: int
    mode: str
    window_us: int  # the effective tie window in force for this round
    opened_ns: int
    reveal_ns: int | None = None
    edges: list[dict[str, Any]] | None = None
    cards: dict[str, list[str]] | None = None
    verdict: dict[str, Any] | None = None
    abandoned: bool = False

    def presses(self) -> list[tuple[str, int]]:
        return [(e["player"], int(e["stamp_ns"])) for e in self.edges or () if e["use"] == "press"]


def journal_rounds(entries: list[dict[str, Any]]) -> list[JournalRound]:
    """The rounds of a journal in order, each with its reveal, edges, cards and verdict."""
    window = int(entries[0]["effective_tie_window_us"])
    rounds: dict[int, JournalRound] = {}
    for entry in entries[1:]:
        kind = entry["type"]
        if kind == "resume":
            window = int(entry["effective_tie_window_us"])
            continue
        n = entry.get("n")
        if not isinstance(n, int):
            continue  # an edge between rounds
        if kind == "round":
            rounds[n] = JournalRound(n, entry["mode"], window, int(entry["opened_ns"]), edges=[])
            continue
        rnd = rounds.get(n)
        if rnd is None:
            continue
        if kind == "reveal":
            rnd.reveal_ns = int(entry["stamp_ns"])
        elif kind == "edge":
            assert rnd.edges is not None
            rnd.edges.append(entry)
        elif kind == "cards":
            rnd.cards = entry["cards"]
        elif kind == "verdict":
            rnd.verdict = entry["verdict"]
        elif kind == "abandon":
            rnd.abandoned = True
    return list(rounds.values())
