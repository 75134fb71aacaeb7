"""The referee's journal: append-only JSON Lines of every edge, reveal, card entry and
verdict, so that any call can be replayed and a restart loses nothing.

Each line goes straight to the file as it is written and the file is fsync'd at every
verdict, so a power cut loses at most the presses of the round in play, and never a
decided round. The writer holds the file with an exclusive lock: one table per journal.
A last line cut short by the power cut is expected and skipped with a warning (``--resume``
keeps it aside and cuts it off); a line repeated exactly is skipped too; any other damage,
or an entry out of the order a game writes them, is an error that names the line.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NotRequired, TypedDict, cast

from companion import text as gate
from companion.errors import InputError, WriteError
from companion.files import LockedFile, lock_exclusive, read_bytes
from companion.games.chomp import CARD_NAMES, END_NAMES, MODE_NAMES
from companion.signals import LEGACY_REVEAL_BY, RevealBy, SourceInfo

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
    how: str  # a RevealBy's text: "countdown", "button", "key", "program"


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
    """A round's cards. The optional keys say where they came from (absent in older
    journals: not said): ``source`` ("camera", "typed", "tags", "phone"), ``frames_ns``
    (the camera's frames that agreed) and ``asked`` (seats typed after the camera)."""

    type: Literal["cards"]
    n: int
    cards: dict[str, list[str]]
    source: NotRequired[str]
    frames_ns: NotRequired[list[int]]
    asked: NotRequired[list[str]]


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


def reveal_entry(n: int, stamp_ns: int, how: RevealBy) -> RevealEntry:
    return RevealEntry(type="reveal", n=n, stamp_ns=stamp_ns, how=str(how))


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


def cards_entry(
    n: int,
    cards: dict[str, list[str]],
    source: str | None = None,
    frames_ns: Sequence[int] = (),
    asked: Sequence[str] = (),
) -> CardsEntry:
    """The cards line; the optional keys only when said (a typed round stays as before)."""
    entry = CardsEntry(type="cards", n=n, cards=cards)
    if source is not None:
        entry["source"] = source
    if frames_ns:
        entry["frames_ns"] = list(frames_ns)
    if asked:
        entry["asked"] = list(asked)
    return entry


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
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _text(value: object) -> bool:
    return isinstance(value, str)


def _how(value: object) -> bool:
    """A RevealBy's text, or an older name read as one (RevealBy.parse)."""
    return isinstance(value, str) and (value in REVEAL_BY_NAMES or value in LEGACY_REVEAL_BY)


REVEAL_BY_NAMES = tuple(m.value for m in RevealBy)


def _flag(value: object) -> bool:
    return isinstance(value, bool)


def _names(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _counts(value: object) -> bool:
    return isinstance(value, dict) and all(
        _integer(v) and 0 <= cast(int, v) <= 10_000 for v in value.values()
    )


def _mode(value: object) -> bool:
    return isinstance(value, str) and value in MODE_NAMES


def _end(value: object) -> bool:
    return isinstance(value, str) and value in END_NAMES


def _cards(value: object) -> bool:
    return isinstance(value, dict) and all(
        isinstance(v, list) and all(isinstance(c, str) and c in CARD_NAMES for c in v)
        for v in value.values()
    )


def _seats(value: object) -> bool:
    return (
        isinstance(value, list)
        and 2 <= len(value) <= 12
        and all(isinstance(v, str) and v for v in value)
        and len(set(value)) == len(value)
    )


CARD_SOURCES = ("camera", "typed", "tags", "phone")


def _card_source(value: object) -> bool:
    return isinstance(value, str) and value in CARD_SOURCES


def _stamps(value: object) -> bool:
    return isinstance(value, list) and len(value) <= 1000 and all(_integer(v) for v in value)


def _round_number(value: object) -> bool:
    return _integer(value) and 1 <= cast(int, value) < 10**9


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
        "players": (_seats, "2 to 12 different names"),
        "mode": (_mode, "a mode (" + ", ".join(MODE_NAMES) + ")"),
        "two_player_end": (_end, "an ending (" + ", ".join(END_NAMES) + ")"),
        "deal": (_counts, "cards per player"),
        "tie_window_us": (_integer, "a whole number"),
        "effective_tie_window_us": (_integer, "a whole number"),
        "sources": (_sources, "a list of sources"),
        "lockout_ms": (_number, "a number"),
        "settle_ms": (_number, "a number"),
    },
    "round": {"n": (_round_number, "a round number"), "mode": (_mode, "a mode"),
              "opened_ns": (_integer, "a whole number")},
    "reveal": {"n": (_round_number, "a round number"), "stamp_ns": (_integer, "a whole number"),
               "how": (_how, "a way to reveal (" + ", ".join(REVEAL_BY_NAMES) + ")")},
    "edge": {
        "n": (lambda v: v is None or _round_number(v), "a round number or null"),
        "player": (_text, "text"),
        "pressed": (_flag, "true or false"),
        "stamp_ns": (_integer, "a whole number"),
        "source": (_text, "text"),
        "seq": (_integer, "a whole number"),
        "use": (_text, "text"),
    },
    "cards": {"n": (_round_number, "a round number"), "cards": (_cards, "card names per player")},
    "verdict": {
        "n": (_round_number, "a round number"),
        "verdict": (_object, "an object"),
        "cards": (_counts, "cards per player"),
        "pot": (_integer, "a whole number"),
        "out": (_names, "a list of names"),
        "over": (_flag, "true or false"),
        "winner": (lambda v: v is None or _text(v), "a name or null"),
        "mode": (_mode, "a mode"),
    },
    "resume": {
        "rounds_played": (_integer, "a whole number"),
        "effective_tie_window_us": (_integer, "a whole number"),
        "sources": (_sources, "a list of sources"),
    },
    "abandon": {"n": (_round_number, "a round number"), "why": (_text, "text")},
}  # fmt: skip
ENTRY_TYPES = tuple(ENTRY_KEYS)
# Keys a kind may have (newer journals), checked when present; absent in older journals.
OPTIONAL_KEYS: dict[str, dict[str, tuple[Check, str]]] = {
    "cards": {
        "source": (_card_source, "where the cards came from (" + ", ".join(CARD_SOURCES) + ")"),
        "frames_ns": (_stamps, "a list of whole numbers"),
        "asked": (_names, "a list of names"),
    },
}


def check_entry(value: object) -> JournalEntry:
    """One decoded line as a typed entry; ValueError naming the first bad or missing key."""
    if (
        not isinstance(value, dict)
        or not isinstance(value.get("type"), str)
        or (value["type"] not in ENTRY_KEYS)
    ):
        kind = value.get("type") if isinstance(value, dict) else None
        raise ValueError(f"not a journal entry (type {kind!r})")
    kind = value["type"]
    for key, (check, what) in ENTRY_KEYS[kind].items():
        if key not in value:
            raise ValueError(f"the {kind!r} entry has no {key!r}")
        if not check(value[key]):
            raise ValueError(f"the {kind!r} entry's {key!r} should be {what}")
    for key, (check, what) in OPTIONAL_KEYS.get(kind, {}).items():
        if key in value and not check(value[key]):
            raise ValueError(f"the {kind!r} entry's {key!r} should be {what}")
    return cast(JournalEntry, value)


class JournalWriter:
    """Appends entries to a journal it holds with an exclusive lock for its lifetime.

    Each write goes straight to the file (no buffer in between), so once :meth:`write`
    returns its lines are in the kernel's hands and may be shown; ``durable=True`` also
    fsyncs (done at each verdict, after its LED). A failed write cuts the file back to its
    last complete line and raises one :class:`WriteError` saying what is safe; every later
    write raises it again, so nothing is announced that the journal does not hold.
    """

    def __init__(self, path: Path, held: LockedFile | None = None) -> None:
        self.path = path
        if held is None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise WriteError(f"{path}: cannot create its folder ({exc.strerror})") from None
            held = lock_exclusive(path, "journal", os.O_RDWR | os.O_CREAT | os.O_APPEND)
        self._held = held
        self.fd = held.fd
        self.good_bytes = os.fstat(self.fd).st_size  # the end of the last complete line
        self.failed: WriteError | None = None

    def write(self, entries: Sequence[Mapping[str, Any]], durable: bool = False) -> None:
        if not entries:
            return
        if self.failed is not None:
            raise self.failed
        data = b"".join(json.dumps(e, separators=(",", ":")).encode() + b"\n" for e in entries)
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self.fd, view) :]
        except OSError as exc:
            self._fail("cannot write", exc)
        self.good_bytes += len(data)
        if durable:
            self.sync()

    def sync(self) -> None:
        """Everything written so far onto the disk (a verdict's line before the next round)."""
        if self.failed is not None:
            raise self.failed
        try:
            os.fsync(self.fd)
        except OSError as exc:
            self._fail("cannot sync", exc)

    def _fail(self, what: str, exc: OSError) -> None:
        try:
            os.ftruncate(self.fd, self.good_bytes)  # no torn line left behind
        except OSError:
            pass  # a device that cannot be cut back: the reader keeps a torn tail aside
        self.failed = WriteError(
            f"{self.path}: {what} the journal ({exc.strerror or exc}): the table stops. "
            "Safe: every verdict shown is in the journal, which is whole up to its last "
            "complete line; free the disk, then --resume"
        )
        raise self.failed from None

    def cut_back(self, good_bytes: int, newline: bool = False) -> None:
        """Drop a torn tail (kept aside by the caller), or end a whole last line."""
        try:
            os.ftruncate(self.fd, good_bytes)
            if newline:
                os.write(self.fd, b"\n")
                good_bytes += 1
            os.fsync(self.fd)
        except OSError as exc:
            self._fail("cannot repair", exc)
        self.good_bytes = good_bytes

    def close(self) -> None:
        if self._held.fd < 0:
            return
        if self.failed is None:
            try:
                os.fsync(self.fd)
            except OSError:
                pass  # already reported by the write that failed, or nothing to lose
        self._held.release()

    @property
    def closed(self) -> bool:
        return self._held.fd < 0


@dataclass(frozen=True)
class TornTail:
    """A last line cut short (a power cut, a full disk): where, and its bytes."""

    line: int
    offset: int  # the journal's length up to its last complete line
    data: bytes


@dataclass(frozen=True)
class JournalContents:
    entries: list[JournalEntry]  # entries[0] is the StartEntry
    warnings: list[str]
    lines: list[int] = field(default_factory=list)  # each entry's line number
    torn: TornTail | None = None
    needs_newline: bool = False  # the last entry is whole but its newline was cut

    @property
    def start(self) -> StartEntry:
        return cast(StartEntry, self.entries[0])


MAX_JOURNAL_BYTES = 512_000_000


def _decode(line: bytes) -> JournalEntry:
    value = json.loads(line, parse_constant=_no_constant, parse_int=_checked_int)
    gate.clean_tree(value)  # a hand-edited journal's names pass the same gate as typed ones
    return check_entry(value)


def _checked_int(text: str) -> int:
    if len(text.lstrip("-")) > 30:
        raise ValueError(f"a number of {len(text)} digits")
    return int(text)


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a number")


def read_journal(path: Path | str) -> JournalContents:
    """Every entry of a journal, each checked against its kind's declared keys and the
    order a game writes them in.

    Damage is one InputError naming the line and what is wrong. A last line cut short (by
    a power cut or a full disk during its write) is left out with a warning saying where
    it was cut (``--resume`` keeps it aside and cuts it off); a line repeated exactly is
    skipped with a warning.
    """
    source = str(path)
    raw = read_bytes(path, MAX_JOURNAL_BYTES, "journal")
    entries: list[JournalEntry] = []
    numbers: list[int] = []
    warnings: list[str] = []
    torn: TornTail | None = None
    whole = raw.endswith(b"\n")
    lines = raw.split(b"\n")
    offset, previous = 0, b""
    for number, line in enumerate(lines, 1):
        last = number == len(lines)
        at = offset
        offset += len(line) + 1
        if not line.strip():
            if last and line and not whole:
                torn = TornTail(number, at, line)
            continue
        if line == previous:
            warnings.append(f"{source}: line {number}: the line before it again, skipped")
            continue
        try:
            entry = _decode(line)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            if last:  # no newline after it: the write was cut short
                torn = TornTail(number, at, line)
                warnings.append(f"{source}: line {number}: cut short (power cut?), skipped")
                continue
            raise InputError(f"line {number}", f"damaged journal line ({exc})", source) from None
        previous = line
        entries.append(entry)
        numbers.append(number)
    if not entries:
        raise InputError("", "empty journal", source)
    check_order(entries, numbers, source)
    needs_newline = bool(raw) and not whole and torn is None
    return JournalContents(entries, warnings, numbers, torn, needs_newline)


@dataclass
class _Order:
    """Where a game stands while its journal is read: the rounds decided, the one open."""

    players: set[str]
    decided: int = 0
    open: int | None = None
    revealed: bool = False
    has_cards: bool = False
    over: bool = False


def check_order(entries: Sequence[JournalEntry], lines: Sequence[int], source: str = "") -> None:
    """Entries in the order a game writes them: one start, rounds numbered one after the
    other, each revealed, given cards and decided (or abandoned) before the next opens.
    A repeated, reordered or stray entry is one InputError naming its line."""
    if entries[0]["type"] != "start":
        raise InputError(f"line {lines[0]}", "a journal starts with a 'start' entry", source)
    state = _Order(set(entries[0]["players"]))
    for entry, number in zip(entries[1:], lines[1:], strict=True):
        problem = _out_of_order(state, entry)
        if problem:
            raise InputError(f"line {number}", problem, source)


def _out_of_order(state: _Order, entry: JournalEntry) -> str:
    """What is wrong with ``entry`` at this point of the game ('' when nothing), and the
    state moved on past it."""
    if entry["type"] == "start":
        return "a second 'start' entry: two games in one journal"
    if entry["type"] == "resume":
        if entry["rounds_played"] != state.decided:
            return (
                f"a resume after round {entry['rounds_played']}, but {state.decided} "
                "round(s) were decided before it"
            )
        return ""
    if entry["type"] == "round":
        n = entry["n"]
        if state.over:
            return f"round {n} after the game was over"
        if state.open is not None:
            return f"round {n} opens while round {state.open} is still open"
        if n != state.decided + 1:
            return f"round {n} follows round {state.decided} (a repeated or reordered round)"
        state.open, state.revealed, state.has_cards = n, False, False
        return ""
    if entry["type"] == "edge":
        if entry["player"] not in state.players:
            return f"an edge of {entry['player']!r}, who is not seated"
        at = entry["n"]
        return "" if at is None or at == state.open else f"an edge of round {at}, which is not open"
    if entry["n"] != state.open:
        return (
            f"a {entry['type']!r} entry for round {entry['n']}, which was never opened "
            "(or is closed)"
        )
    return _in_round(state, entry)


def _in_round(state: _Order, entry: JournalEntry) -> str:
    """A reveal, cards, verdict or abandon of the open round."""
    if entry["type"] == "reveal":
        if state.revealed:
            return f"round {state.open} revealed twice"
        state.revealed = True
    elif entry["type"] == "cards":
        strangers = set(entry["cards"]) - state.players
        if strangers:
            return f"cards of {', '.join(sorted(strangers))}, who is not seated"
        unknown = set(entry.get("asked", ())) - set(entry["cards"])
        if unknown:
            return f"asked for {', '.join(sorted(unknown))}, who has no cards in the entry"
        state.has_cards = True
    elif entry["type"] == "verdict":
        if not (state.revealed and state.has_cards):
            return f"a verdict for round {state.open}, which has no reveal or no cards"
        state.decided, state.open, state.over = entry["n"], None, entry["over"]
    elif entry["type"] == "abandon":
        if state.revealed:
            return f"round {state.open} abandoned after its reveal"
        state.open = None
    return ""


@dataclass
class JournalRound:
    """One round as the journal tells it, grouped from its entries."""

    n: int
    mode: str
    window_us: int  # the effective tie window in force for this round
    opened_ns: int
    reveal_ns: int | None = None
    reveal_how: RevealBy | None = None
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
        rnd.reveal_how = RevealBy.parse(entry["how"])
    elif entry["type"] == "edge":
        assert rnd.edges is not None
        rnd.edges.append(entry)
    elif entry["type"] == "cards":
        rnd.cards = entry["cards"]
    elif entry["type"] == "verdict":
        rnd.verdict = entry["verdict"]
    elif entry["type"] == "abandon":
        rnd.abandoned = True
