"""The verdict read aloud: ``ann wins``, and ``you win`` for the demo's own seat."""

from __future__ import annotations

from companion.games.chomp import Outcome, Reason, Verdict
from companion.games.chomp.text import details, does, headline


def test_a_named_player_wins_and_you_win() -> None:
    assert does("ann", "wins") == "ann wins"
    assert does("you", "wins") == "you win"
    assert does("You", "takes") == "You take"


def test_the_headline_of_the_demo_seat_reads_right() -> None:
    verdict = Verdict(Outcome.WIN, Reason.SLAP, "you", (), ("ann", "you"), ())
    assert headline(verdict) == "you win (first valid slap)."
    assert details(verdict)[0] == "you take the cards of: ann, you"
