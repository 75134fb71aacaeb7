"""The card entry pre-filled with the seats the camera read (issue 26): the seats read are
kept as they are and never typed, the others are typed in seat order, and the completed
round holds every seat once."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from companion.games.chomp import Card
from companion.tables.camera import frame_path, frames_folder, set_frames_aside
from companion.tables.chomp.card_entry import KEYS, CardEntry

SEATS = ["ann", "bob", "cat", "dan"]
CARDS = list(Card)
KEY_OF = {card: key for key, card in KEYS.items() if key.isdigit()}


@given(
    sizes=st.lists(st.integers(1, 2), min_size=4, max_size=4),
    read=st.sets(st.sampled_from(SEATS)),
    pick=st.lists(st.sampled_from(CARDS), min_size=8, max_size=8),
    typed=st.lists(st.sampled_from(CARDS), min_size=8, max_size=8),
)
def test_the_seats_read_are_kept_and_only_the_others_typed(
    sizes: list[int], read: set[str], pick: list[Card], typed: list[Card]
) -> None:
    seats = list(zip(SEATS, sizes, strict=True))
    filled = {s: tuple(pick[2 * i : 2 * i + n]) for i, (s, n) in enumerate(seats) if s in read}
    entry = CardEntry(seats, filled)
    assert entry.asked == [s for s in SEATS if s not in read]
    assert entry.needed == sum(n for s, n in seats if s not in read)
    for card in typed[: entry.needed]:
        assert entry.next_seat() in entry.asked
        assert entry.key(KEY_OF[card])
    assert entry.complete and not entry.key("1")  # nothing more is taken
    cards = entry.cards()
    assert list(cards) == SEATS  # every seat once, in seat order
    assert all(cards[s] == filled[s] for s in read)
    assert all(len(cards[s]) == n for s, n in seats)


def test_a_hand_of_the_wrong_size_is_not_taken_as_read() -> None:
    entry = CardEntry([("ann", 2), ("bob", 1)], {"ann": (Card.SEAL,), "bob": (Card.SHARK,)})
    assert entry.asked == ["ann"] and entry.cards() == {"bob": (Card.SHARK,)}


def test_a_new_game_keeps_the_old_games_frames_under_a_dated_name(tmp_path: Path) -> None:
    journal = tmp_path / "chomp-journal.jsonl"
    assert set_frames_aside(journal) is None  # nothing to keep
    old = frame_path(journal, 1)
    assert old == tmp_path / "chomp-journal.frames" / "round-0001.jpg"
    old.parent.mkdir()
    old.write_bytes(b"\xff\xd8 old game")
    kept = set_frames_aside(journal)
    assert kept is not None and kept.parent == tmp_path and kept != frames_folder(journal)
    assert (kept / "round-0001.jpg").read_bytes() == b"\xff\xd8 old game"
    assert not frames_folder(journal).exists()
