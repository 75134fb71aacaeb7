"""The journal's cards entry says where the cards came from (issue 26).

``source`` ("camera", ...), ``frames_ns`` (the camera frames that agreed) and ``asked``
(the seats typed after the camera) are optional: a journal written before them still
reads, the audit ignores them, and a wrong value is one line naming the key.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.errors import InputError
from companion.games.chomp import Card, ChompGame, Hand
from companion.referee.audit import audit
from companion.referee.clock import ManualClock
from companion.referee.core import Referee, Timing
from companion.referee.daemon import Cards, RefereeDaemon
from companion.referee.journal import (
    CARD_SOURCES,
    JournalWriter,
    cards_entry,
    check_entry,
    read_journal,
)
from companion.signals import ButtonEdge, RevealStamp, SourceInfo, TimingClass

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "chomp-journal.jsonl"
KERNEL = SourceInfo("gpio", TimingClass.KERNEL_EDGE, 20, "lgpio")
MS = 1_000_000
CARDS: dict[str, Hand] = {"ann": (Card.SEAL,), "bob": (Card.SHARK,), "cat": (Card.PLANKTON,)}


def played(path: Path, cards: Cards) -> list[dict[str, Any]]:
    """One round through the referee's loop, its cards given as ``cards``; the journal's
    lines as written."""
    referee = Referee(ChompGame.new(["ann", "bob", "cat"]), Timing.from_ms(500), [KERNEL])
    clock = ManualClock()
    journal = JournalWriter(path)
    try:
        journal.write([referee.start_info()])
        daemon = RefereeDaemon(referee, clock, journal)
        daemon.handle(RevealStamp(1_000 * MS, "button"), 1_000 * MS)
        daemon.handle(ButtonEdge("bob", True, 1_300 * MS, "gpio", 0), 1_300 * MS)
        daemon.handle(cards, 1_400 * MS)
        daemon.tick(60_000 * MS)
    finally:
        journal.close()
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_camera_cards_are_journalled_with_source_frames_and_asked(tmp_path: Path) -> None:
    cards = Cards(CARDS, "camera", (1_100 * MS, 1_133 * MS), ("cat",))
    lines = played(tmp_path / "j.jsonl", cards)
    entry = next(line for line in lines if line["type"] == "cards")
    assert entry == {
        "type": "cards", "n": 1,
        "cards": {"ann": ["seal"], "bob": ["shark"], "cat": ["plankton"]},
        "source": "camera", "frames_ns": [1_100 * MS, 1_133 * MS], "asked": ["cat"],
    }  # fmt: skip
    contents = read_journal(tmp_path / "j.jsonl")
    assert contents.warnings == []
    [row] = audit(contents.entries)
    assert row.agrees  # the audit ignores where the cards came from


def test_typed_cards_keep_the_old_line_without_the_new_keys(tmp_path: Path) -> None:
    lines = played(tmp_path / "j.jsonl", Cards(CARDS))
    entry = next(line for line in lines if line["type"] == "cards")
    assert set(entry) == {"type", "n", "cards"}


def test_an_old_journal_without_the_keys_still_reads_and_audits() -> None:
    contents = read_journal(EXAMPLE)
    cards = [e for e in contents.entries if e["type"] == "cards"]
    assert cards and all("source" not in e for e in cards)
    assert all(r.agrees for r in audit(contents.entries))


@pytest.mark.parametrize(
    ("key", "value"),
    [("source", "telepathy"), ("source", 3), ("frames_ns", [1.5]), ("frames_ns", "1"),
     ("asked", "cat"), ("asked", [1])],
)  # fmt: skip
def test_a_wrong_optional_key_is_one_line_naming_the_key(
    tmp_path: Path, key: str, value: object
) -> None:
    lines = played(tmp_path / "j.jsonl", Cards(CARDS, "camera", (5,), ("cat",)))
    for line in lines:
        if line["type"] == "cards":
            line[key] = value
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(InputError, match=rf"line \d+: .*{key!r} should be") as caught:
        read_journal(path)
    assert "\n" not in str(caught.value)


def test_asked_names_only_seats_with_cards_in_the_entry(tmp_path: Path) -> None:
    lines = played(tmp_path / "j.jsonl", Cards(CARDS, "camera", (5,), ("cat",)))
    for line in lines:
        if line["type"] == "cards":
            line["asked"] = ["zed"]
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(InputError, match="asked for zed, who has no cards"):
        read_journal(path)


def test_the_referee_journals_asked_only_for_seats_in_play(tmp_path: Path) -> None:
    lines = played(tmp_path / "j.jsonl", Cards(CARDS, "camera", (5,), ("cat", "zed")))
    entry = next(line for line in lines if line["type"] == "cards")
    assert entry["asked"] == ["cat"]


@given(
    source=st.none() | st.sampled_from(CARD_SOURCES),
    frames=st.lists(st.integers(0, 2**62), max_size=8),
    asked=st.lists(st.sampled_from(["ann", "bob", "cat"]), unique=True),
)
def test_any_cards_entry_the_table_builds_survives_a_round_trip(
    source: str | None, frames: list[int], asked: list[str]
) -> None:
    shown = {p: [str(c) for c in hand] for p, hand in CARDS.items()}
    entry = cards_entry(4, shown, source, frames, asked)
    again = check_entry(json.loads(json.dumps(entry)))
    assert again == entry
    assert ("source" in again) == (source is not None)
    assert again.get("frames_ns", []) == frames and again.get("asked", []) == asked
