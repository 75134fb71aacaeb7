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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal, NotRequired, TypedDict, cast

from companion.errors import InputError
from companion.signals import SourceInfo

# -- the entries, one declared shape per kind ----------------------------------------------


class SourceEntry(TypedDict):
    """A press source as the journal records it (the start entry adds its detail)."""

    name: str
    timing: str
    uncertainty_us: int
    detail: NotRequired[str]


class StartEntry(TypedDict):
    """The first line: who plays, how, and how precise the clocks are."""

    type: Literal["start"]
    version: int
    players: list[str]
    mode: str
    two_player_end: str
    deal: dict[str, int]
    tie_window_us: int
    effective_tie_window_us: int
    sources: list[SourceEntry]
    lockout_ms: float
    settle_ms: float


class RoundEntry(TypedDict):
    """A round opened (its countdown began, or the cards were revealed at once)."""

    type: Literal["round"]
    n: int
    mode: str
    opened_ns: int


class RevealEntry(TypedDict):
    type: Literal["reveal"]
    n: int
    stamp_ns: int
    how: str  # "countdown", "button", "key"


class EdgeEntry(TypedDict):
    """Every edge, with what the referee made of it (signals.ButtonEdge plus its use)."""

    type: Literal["edge"]
    n: int | None  # None: between rounds
    player: str
    pressed: bool
    stamp_ns: int
    source: str
    seq: int
    use: str  # core.EdgeUse


class CardsEntry(TypedDict):
    type: Literal["cards"]
    n: int
    cards: dict[str, list[str]]


class VerdictEntry(TypedDict):
    """A decided round: the verdict, then the game after it (ChompGame.to_dict)."""

    type: Literal["verdict"]
    n: int
    verdict: dict[str, Any]  # games.chomp.Verdict.to_dict()
    cards: dict[str, int]
    pot: int
    out: list[str]
    over: bool
    winner: str | None
    mode: str


class ResumeEntry(TypedDict):
    """The game went on after a restart, with the sources (and window) of the new start."""

    type: Literal["resume"]
    rounds_played: int
    effective_tie_window_us: int
    sources: list[SourceEntry]


class AbandonEntry(TypedDict):
    type: Literal["abandon"]
    n: int
    why: str


JournalEntry = (
    StartEntry
    | RoundEntry
    | RevealEntry
    | EdgeEntry
    | CardsEntry
    | VerdictEntry
    | ResumeEntry
    | AbandonEntry
)

# -- builders ---------------------------------------------------------------------------------


def source_entry(source: SourceInfo, detail: bool = True) -> SourceEntry:
    entry = SourceEntry(
        name=source.name, timing=str(source.timing), uncertainty_us=source.uncertainty_us
    )
    if detail:
        entry["detail"] = source.detail
    return entry


def round_entry(n: int, mode: str, opened_ns: int) -> RoundEntry:
    return RoundEntry(type="round", n=n, mode=mode, opened_ns=opened_ns)


def reveal_entry(n: int, stamp_ns: int, how: str) -> RevealEntry:
    return RevealEntry(type="reveal", n=n, stamp_ns=stamp_ns, how=how)


def edge_entry(
    n: int | None, player: str, pressed: bool, stamp_ns: int, source: str, seq: int, use: str
) -> EdgeEntry:
    return EdgeEntry(
        type="edge",
        n=n,
        player=player,
        pressed=pressed,
        stamp_ns=stamp_ns,
        source=source,
        seq=seq,
        use=use,
    )


def cards_entry(n: int, cards: dict[str, list[str]]) -> CardsEntry:
    return CardsEntry(type="cards", n=n, cards=cards)


def abandon_entry(n: int, why: str) -> AbandonEntry:
    return AbandonEntry(type="abandon", n=n, why=why)


def resume_entry(
    rounds_played: int, effective_tie_window_us: int, sources: Sequence[SourceInfo]
) -> ResumeEntry:
    return ResumeEntry(
        type="resume",
        rounds_played=rounds_played,
        effective_tie_window_us=effective_tie_window_us,
        sources=[source_entry(s, detail=False) for s in sources],
    )


# -- checking what is read ----------------------------------------------------------------------

Check = Callable[[object], bool]


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _text(value: object) -> bool:
    return isinstance(value, str)


def _flag(value: object) -> bool:
    return isinstance(value, bool)


def _names(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _counts(value: object) -> bool:
    return isinstance(value, dict) and all(_integer(v) for v in value.values())


def _hands(value: object) -> bool:
    return isinstance(value, dict) and all(_names(v) for v in value.values())


def _object(value: object) -> bool:
    return isinstance(value, dict)


def _sources(value: object) -> bool:
    return isinstance(value, list) and all(
        isinstance(s, dict) and _text(s.get("name")) and _integer(s.get("uncertainty_us"))
        for s in value
    )


# Every kind's keys and what each must hold; "a whole number", "text" in the errors.
ENTRY_KEYS: dict[str, dict[str, tuple[Check, str]]] = {
    "start": {
        "version": (_integer, "a whole number"),
        "players": (_names, "a list of names"),
        "mode": (_text, "text"),
        "two_player_end": (_text, "text"),
        "deal": (_counts, "cards per player"),
        "tie_window_us": (_integer, "a whole number"),
        "effective_tie_window_us": (_integer, "a whole number"),
        "sources": (_sources, "a list of sources"),
        "lockout_ms": (_number, "a number"),
        "settle_ms": (_number, "a number"),
    },
    "round": {"n": (_integer, "a round number"), "mode": (_text, "text"),
              "opened_ns": (_integer, "a whole number")},
    "reveal": {"n": (_integer, "a round number"), "stamp_ns": (_integer, "a whole number"),
               "how": (_text, "text")},
    "edge": {
        "n": (lambda v: v is None or _integer(v), "a round number or null"),
        "player": (_text, "text"),
        "pressed": (_flag, "true or false"),
        "stamp_ns": (_integer, "a whole number"),
        "source": (_text, "text"),
        "seq": (_integer, "a whole number"),
        "use": (_text, "text"),
    },
    "cards": {"n": (_integer, "a round number"), "cards": (_hands, "card names per player")},
    "verdict": {
        "n": (_integer, "a round number"),
        "verdict": (_object, "an object"),
        "cards": (_counts, "cards per player"),
        "pot": (_integer, "a whole number"),
        "out": (_names, "a list of names"),
        "over": (_flag, "true or false"),
        "winner": (lambda v: v is None or _text(v), "a name or null"),
        "mode": (_text, "text"),
    },
    "resume": {
        "rounds_played": (_integer, "a whole number"),
        "effective_tie_window_us": (_integer, "a whole number"),
        "sources": (_sources, "a list of sources"),
    },
    "abandon": {"n": (_integer, "a round number"), "why": (_text, "text")},
}  # fmt: skip
ENTRY_TYPES = tuple(ENTRY_KEYS)


def check_entry(value: object) -> JournalEntry:
    """One decoded line as a typed entry; ValueError naming the first bad or missing key."""
    if not isinstance(value, dict) or value.get("type") not in ENTRY_KEYS:
        kind = value.get("type") if isinstance(value, dict) else None
        raise ValueError(f"not a journal entry (type {kind!r})")
    kind = value["type"]
    for key, (check, what) in ENTRY_KEYS[kind].items():
        if key not in value:
            raise ValueError(f"the {kind!r} entry has no {key!r}")
        if not check(value[key]):
            raise ValueError(f"the {kind!r} entry's {key!r} should be {what}")
    return cast(JournalEntry, value)


class JournalWriter:
    """Appends entries; ``durable=True`` fsyncs (done at each verdict)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[bytes] = open(path, "ab")  # lives as long as the game

    def write(self, entries: Sequence[Mapping[str, Any]], durable: bool = False) -> None:
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
    entries: list[JournalEntry]  # entries[0] is the StartEntry
    warnings: list[str]

    @property
    def start(self) -> StartEntry:
        return cast(StartEntry, self.entries[0])


def read_journal(path: Path | str) -> JournalContents:
    """Every entry of a journal, each checked against its kind's declared keys.

    Damage is one InputError naming the line and the key; a last line cut short (by a
    power cut during its write) is skipped with a warning instead.
    """
    source = str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError("", "no such journal", source) from None
    except OSError as exc:
        raise InputError("", f"cannot read: {exc.strerror}", source) from None
    lines = raw.split(b"\n")
    entries: list[JournalEntry] = []
    warnings: list[str] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        last = number == len(lines)  # no newline after it: the write was cut short
        try:
            entry = check_entry(json.loads(line))
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            if last:
                warnings.append(f"{source}: line {number}: cut short (power cut?), skipped")
                continue
            raise InputError(f"line {number}", f"damaged journal line ({exc})", source) from None
        entries.append(entry)
    if not entries:
        raise InputError("", "empty journal", source)
    if entries[0]["type"] != "start":
        raise InputError("line 1", "a journal starts with a 'start' entry", source)
    return JournalContents(entries, warnings)


@dataclass
class JournalRound:
    """One round as the journal tells it, grouped from its entries."""

    n: int
    mode: str
    window_us: int  # the effective tie window in force for this round
    opened_ns: int
    reveal_ns: int | None = None
    reveal_how: str | None = None  # "countdown", "button", "key"
    edges: list[EdgeEntry] | None = None
    cards: dict[str, list[str]] | None = None
    verdict: dict[str, Any] | None = None
    abandoned: bool = False

    def presses(self) -> list[tuple[str, int]]:
        return [(e["player"], int(e["stamp_ns"])) for e in self.edges or () if e["use"] == "press"]


def journal_rounds(entries: Sequence[JournalEntry]) -> list[JournalRound]:
    """The rounds of a journal in order, each with its reveal, edges, cards and verdict."""
    start = entries[0]
    assert start["type"] == "start"
    window = start["effective_tie_window_us"]
    rounds: dict[int, JournalRound] = {}
    for entry in entries[1:]:
        if entry["type"] == "resume":
            window = entry["effective_tie_window_us"]
        elif entry["type"] == "round":
            n = entry["n"]
            rounds[n] = JournalRound(n, entry["mode"], window, entry["opened_ns"], edges=[])
        elif entry["type"] == "start" or entry["n"] is None or entry["n"] not in rounds:
            continue  # an edge between rounds, or an entry of no known round
        else:
            _add(rounds[entry["n"]], entry)
    return list(rounds.values())


def _add(rnd: JournalRound, entry: JournalEntry) -> None:
    """One entry of a known round into its round."""
    if entry["type"] == "reveal":
        rnd.reveal_ns = entry["stamp_ns"]
        rnd.reveal_how = entry["how"]
    elif entry["type"] == "edge":
        assert rnd.edges is not None
        rnd.edges.append(entry)
    elif entry["type"] == "cards":
        rnd.cards = entry["cards"]
    elif entry["type"] == "verdict":
        rnd.verdict = entry["verdict"]
    elif entry["type"] == "abandon":
        rnd.abandoned = True
