"""The typed journal: one declared shape per entry kind, checked line by line on reading.

A wrong or missing key is one line naming the journal line and the key (an InputError,
never a KeyError); resuming goes through the referee's declared transitions; the
format itself does not change (the example journal still reads and audits).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.errors import CompanionError, InputError
from companion.games.chomp import ChompGame
from companion.referee.audit import audit
from companion.referee.clock import ManualClock
from companion.referee.core import TRANSITIONS, Event, Phase, Referee, Timing
from companion.referee.daemon import RefereeDaemon, RefereeStatus
from companion.referee.journal import (
    ENTRY_KEYS,
    JournalEntry,
    abandon_entry,
    check_entry,
    read_journal,
    resume_entry,
)
from companion.signals import ButtonEdge, RevealStamp, SourceInfo, TimingClass

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "chomp-journal.jsonl"
KERNEL = SourceInfo("gpio", TimingClass.KERNEL_EDGE, 20, "lgpio")
MS = 1_000_000


def example_lines() -> list[dict[str, Any]]:
    return [json.loads(line) for line in EXAMPLE.read_text().splitlines() if line.strip()]


def one_of_each_kind() -> dict[str, dict[str, Any]]:
    """The first entry of every kind the example journal has, plus resume and abandon."""
    kinds: dict[str, dict[str, Any]] = {}
    for entry in example_lines():
        kinds.setdefault(entry["type"], entry)
    kinds["resume"] = dict(resume_entry(3, 500, [KERNEL]))
    kinds["abandon"] = dict(abandon_entry(4, "restarted before reveal"))
    return kinds


def write_journal(path: Path, entries: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return path


def test_the_example_journal_still_reads_and_audits() -> None:
    contents = read_journal(EXAMPLE)
    assert contents.warnings == [] and contents.start["players"] == ["ann", "bob", "cat", "dan"]
    assert [e["type"] for e in contents.entries] == [e["type"] for e in example_lines()]
    rounds = audit(contents.entries)
    assert len(rounds) == 3 and all(r.agrees for r in rounds)


def test_every_kind_is_declared_and_the_example_covers_the_live_ones() -> None:
    assert set(ENTRY_KEYS) == {
        "start", "round", "reveal", "edge", "cards", "verdict", "resume", "abandon"
    }  # fmt: skip
    assert set(one_of_each_kind()) == set(ENTRY_KEYS)
    for kind, entry in one_of_each_kind().items():
        assert check_entry(entry)["type"] == kind


CASES = [(kind, key) for kind, keys in ENTRY_KEYS.items() for key in keys]


@pytest.mark.parametrize(("kind", "key"), CASES)
def test_a_missing_key_is_one_line_naming_the_line_and_the_key(
    tmp_path: Path, kind: str, key: str
) -> None:
    entries = [one_of_each_kind()["start"]]
    broken = dict(one_of_each_kind()[kind])
    del broken[key]
    path = write_journal(tmp_path / "j.jsonl", [*entries, broken] if kind != "start" else [broken])
    line = 1 if kind == "start" else 2
    with pytest.raises(InputError) as caught:
        read_journal(path)
    message = str(caught.value)
    assert isinstance(caught.value, CompanionError) and "\n" not in message
    assert f"line {line}" in message and repr(key) in message and repr(kind) in message


@pytest.mark.parametrize(("kind", "key"), CASES)
def test_a_wrong_value_is_one_line_naming_the_line_and_the_key(
    tmp_path: Path, kind: str, key: str
) -> None:
    broken = dict(one_of_each_kind()[kind])
    broken[key] = {"not": "this"} if not isinstance(broken[key], dict) else "nor this"
    entries = [broken] if kind == "start" else [one_of_each_kind()["start"], broken]
    path = write_journal(tmp_path / "j.jsonl", entries)
    with pytest.raises(InputError, match=rf"line {len(entries)}: .*{key!r} should be"):
        read_journal(path)


def test_an_unknown_kind_names_its_line(tmp_path: Path) -> None:
    path = write_journal(tmp_path / "j.jsonl", [one_of_each_kind()["start"], {"type": "oops"}])
    with pytest.raises(InputError, match="line 2: .*not a journal entry"):
        read_journal(path)


def test_a_cut_short_last_line_with_missing_keys_is_skipped_with_a_warning(
    tmp_path: Path,
) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text(json.dumps(one_of_each_kind()["start"]) + '\n{"type": "round", "n": 1}')
    contents = read_journal(path)
    assert len(contents.entries) == 1 and "cut short" in contents.warnings[0]


def referee() -> Referee:
    return Referee(ChompGame.new(["ann", "bob", "cat"]), Timing.from_ms(500), [KERNEL])


def test_resume_goes_through_the_declared_transitions(monkeypatch: pytest.MonkeyPatch) -> None:
    """C4 resumed: a countdown round replays start then reveal, a button round reveal only,
    and a round still counting down is abandoned by the declared ABANDON transition."""
    ref = referee()
    entries: list[JournalEntry] = [ref.start_info()]
    for step in (
        ref.start_countdown(0),
        ref.tick(10_000 * MS),  # the countdown ends: revealed
        ref.on_edge(ButtonEdge("bob", True, 10_300 * MS, "gpio", 0), 10_300 * MS),
        ref.set_cards(_seal_shark(), 10_400 * MS),
        ref.tick(20_000 * MS),
        ref.reveal(RevealStamp(30_000 * MS, "button")),
        ref.set_cards(_seal_shark(), 30_001 * MS),
        ref.tick(45_000 * MS),
        ref.start_countdown(50_000 * MS),
    ):
        entries.extend(step.journal)
    taken: list[tuple[Phase, Event]] = []
    real_go = Referee._go

    def go(self: Referee, event: Event) -> None:
        taken.append((self.phase, event))
        real_go(self, event)

    monkeypatch.setattr(Referee, "_go", go)
    resumed, appended, messages = Referee.from_journal(entries, Timing.from_ms(500), [KERNEL])
    assert all(move in TRANSITIONS for move in taken)
    events = [event for _, event in taken]
    assert events == [
        Event.START, Event.REVEAL, Event.DECIDE,  # round 1, revealed by the countdown
        Event.REVEAL, Event.DECIDE,  # round 2, revealed by a button
        Event.START, Event.ABANDON,  # round 3 was counting down
    ]  # fmt: skip
    assert resumed.phase is Phase.READY and resumed.rounds_played == 2
    assert [e["type"] for e in appended] == ["resume", "abandon"]
    assert "played again" in messages[-1]


def _seal_shark() -> dict[str, Any]:
    from companion.games.chomp import Card

    return {"ann": (Card.SEAL,), "bob": (Card.SHARK,), "cat": (Card.PLANKTON,)}


def test_a_round_never_decided_before_another_is_a_clear_error() -> None:
    ref = referee()
    entries: list[JournalEntry] = [ref.start_info()]
    entries += ref.reveal(RevealStamp(0, "button")).journal
    later = dict(entries[1])
    later["n"] = 2
    entries.append(check_entry(later))
    with pytest.raises(InputError, match="round 1: was never decided, yet round 2 follows"):
        Referee.from_journal(entries, Timing.from_ms(500), [KERNEL])


def test_status_is_a_dataclass_whose_dict_keeps_the_line_mode_format(tmp_path: Path) -> None:
    daemon = RefereeDaemon(referee(), ManualClock())
    status = daemon.status()
    assert isinstance(status, RefereeStatus)
    assert status.phase is Phase.READY and status.counts == {"ann": 16, "bob": 16, "cat": 16}
    shown = status.to_dict()
    assert list(shown)[:3] == ["phase", "round", "counts"] and shown["phase"] == "ready"
    assert str(shown).startswith("{'phase': 'ready', 'round': 0,")
