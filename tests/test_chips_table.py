"""The table helper's model of The Great Chips Escape: only what the players can see.

:class:`ChipsTable` keeps whose turn it is, the top card and the counts (hands, cards
drawn this turn, face-down fish-or-chips cards, Mad Fish, deck, discard pile) from what
the players announce, and refuses what the rules forbid. test_chips_playouts.py checks
it move by move against the full engine; these are its rules one by one.
"""

from __future__ import annotations

import json

import pytest

from companion.errors import InputError, RuleError
from companion.games.chips import (
    ChipsRules,
    ChipsStep,
    ChipsTable,
    EscapeCard,
    Kind,
    rules_from_dict,
    table_from_dict,
)

N = Kind.NUMBER


def card(
    number: int, kind: Kind = N, numbers: tuple[int, ...] = (), any_player: bool = False
) -> EscapeCard:
    return EscapeCard(kind, number, numbers, any_player)


def table(
    players: str = "ann,bob,cat", top: int | None = 5, strict: bool = True, **rules: object
) -> ChipsTable:
    """A helper following a known deck (a deck file, E13), by default the invented one."""
    t = ChipsTable.new(
        players.split(","), rules_from_dict(rules) if rules else ChipsRules(), strict=strict
    )
    if top is not None:
        t.start(top)
    return t


def refused(t: ChipsTable, reason: str, command: str, *args: object) -> None:
    before = t.to_dict()
    with pytest.raises(RuleError, match=reason):
        getattr(t, command)(*args)
    assert t.to_dict() == before


def test_table_starts_with_the_deal_counted() -> None:
    t = table(top=None)
    assert t.prompt() == "Turn over the deck's top card and type its number."
    assert (t.deck, t.hands["ann"], t.down["bob"]) == (96 - 24, 8, 5)
    refused(t, "first turn over the deck's top card", "draw")
    assert t.start(7) == "Top card 7. ann begins."
    assert (t.top, t.deck, t.discard) == (7, 96 - 25, 1)
    refused(t, "already started", "start", 3)


def test_table_the_youngest_begins() -> None:
    assert ChipsTable.new(["ann", "bob"], first="bob").turn == "bob"
    with pytest.raises(RuleError):
        ChipsTable.new(["ann", "bob"], first="zed")


def test_table_discard_follows_the_circular_rule() -> None:
    t = table(top=9)
    assert t.prompt() == "ann's turn: discard an 8, 9 or 1, reveal a fish-or-chips card or draw."
    refused(t, "a 5 cannot go on a 9: play an 8, 9 or 1", "discard_card", card(5))
    assert t.discard_card(card(1)) == "ann discards 1."
    assert (t.top, t.hands["ann"], t.turn) == (1, 7, "bob")


def test_table_drawn_cards_cannot_be_played_before_the_next_turn() -> None:
    t = table("ann,bob", hand_size=1)
    t.draw()  # ann: 2 cards, 1 new
    t.reveal_mad_fish(1)  # bob might hold a Golden Knight: he is asked
    t.decline()  # bob draws one: 2 cards, 1 new
    assert (t.hands["ann"], t.fresh["ann"]) == (2, 0)  # her turn began: both usable
    t.discard_card(card(5))
    t.fresh["bob"] = 2  # as if both of bob's were new
    t.turn = "bob"
    refused(t, "only cards drawn since her turn began", "discard_card", card(5))


def test_table_last_card_wins() -> None:
    t = table("ann,bob", hand_size=1)
    assert t.discard_card(card(6, Kind.TRIPLE_CHIPS)).endswith("ann wins!")
    assert t.winner == "ann" and t.actor is None and t.prompt() == "Game over: ann wins!"
    refused(t, "the game is over", "draw")


def test_table_special_cards_must_exist_in_the_rules() -> None:
    t = table()
    refused(t, "no Triple Chips card shows a 5", "discard_card", card(5, Kind.TRIPLE_CHIPS))
    refused(
        t,
        "with the any-player sign shows a 5",
        "discard_card",
        card(5, Kind.FISH_OR_CHIPS_TIME, any_player=True),
    )
    refused(t, "for 1/2", "discard_card", card(5, Kind.SIR_FRIES, (1, 2)))
    t2 = table(normal=[8, 8, 8, 0, 8, 8, 8, 8, 8])
    refused(t2, "no number card 4", "discard_card", card(4))


def test_table_sir_fries_numbers_come_from_the_rules() -> None:
    t = table()
    t.discard_card(card(5, Kind.SIR_FRIES))
    assert t.pending is not None and t.pending.numbers == (8, 2)
    refused(t, "Sir Fries lets ann discard an 8 or 2, not a 5", "discard_card", card(5))
    t.discard_card(card(2))
    assert t.top == 2 and t.turn == "bob"


def test_table_sir_fries_two_cards_with_one_number_need_theirs() -> None:
    special = {"sir_fries": [{"number": 5, "numbers": [1]}, {"number": 5, "numbers": [9]}]}
    t = table(special=special)
    refused(t, "which Sir Fries 5: the one for 1 or 9", "discard_card", card(5, Kind.SIR_FRIES))
    t.discard_card(card(5, Kind.SIR_FRIES, (9,)))
    assert t.pending is not None and t.pending.numbers == (9,)


def test_table_sir_fries_with_no_matching_card() -> None:
    t = table()
    t.discard_card(card(5, Kind.SIR_FRIES))
    assert t.stop() == "ann has no card for Sir Fries." and t.turn == "bob"


def test_table_chips_for_everyone_counts_the_others_cards() -> None:
    t = table()
    t.discard_card(card(6, Kind.CHIPS_FOR_EVERYONE))
    assert t.hands == {"ann": 7, "bob": 9, "cat": 9} and t.deck == 71 - 2
    assert t.fresh == {"ann": 0, "bob": 0, "cat": 1}  # bob's turn has begun


def test_table_triple_chips_up_to_three_then_the_last_card() -> None:
    t = table()
    t.discard_card(card(6, Kind.TRIPLE_CHIPS))
    assert t.prompt() == "ann: Triple Chips, discard up to 3 more (a 5, 6 or 7), or done."
    refused(t, "cannot go on a 6", "discard_card", card(9))
    t.discard_card(card(7))
    t.discard_card(card(8, Kind.CHIPS_FOR_EVERYONE))
    t.discard_card(card(9, Kind.SPY_FRY))
    assert t.pending is not None and t.pending.step is ChipsStep.SPY_FRY
    refused(t, "not another player", "spy", "ann")
    t.spy("cat")
    assert t.turn == "bob" and t.hands["bob"] == 8  # the Chips for Everyone did nothing


def test_table_triple_chips_done_early() -> None:
    t = table()
    t.discard_card(card(6, Kind.TRIPLE_CHIPS))
    t.discard_card(card(6))
    t.stop()
    assert t.turn == "bob"


def test_table_fish_or_chips_time_next_player_reveals_then_the_one_after_plays() -> None:
    t = table()
    assert t.discard_card(card(5, Kind.FISH_OR_CHIPS_TIME)).endswith(
        "bob must reveal a fish-or-chips card."
    )
    assert t.actor == "bob"
    refused(t, "in the middle of a Fish-or-Chips Time reveal", "draw")
    t.reveal_heroes()
    t.discard_card(card(1))
    t.stop()
    assert t.turn == "cat"


def test_table_fish_or_chips_time_with_the_sign_choose_anyone_else() -> None:
    t2 = table(top=3)
    t2.discard_card(card(3, Kind.FISH_OR_CHIPS_TIME, any_player=True))
    refused(t2, "cannot be made to reveal", "choose", "ann")
    assert t2.choose("cat") == "cat must reveal a fish-or-chips card."
    t2.reveal_mad_fish(2)
    t2.decline()
    assert t2.turn == "ann" and t2.mad["cat"] == 1 and t2.hands["cat"] == 10


def test_table_golden_knight_cancels_the_mad_fish() -> None:
    t = table()
    t.reveal_mad_fish(3)
    assert t.prompt() == "ann: cover the Mad Fish with a Golden Knight? (knight / no)"
    t.knight()
    assert (t.mad["ann"], t.knights["ann"], t.hands["ann"], t.turn) == (0, 1, 7, "bob")


def test_table_three_mad_fish_out_and_the_last_one_standing_wins() -> None:
    t = table("ann,bob")
    t.mad["ann"] = 2
    said = t.reveal_mad_fish(1) + t.decline()
    assert "3 Mad Fish: ann is out of the game! bob wins!" in said
    assert t.winner == "bob" and t.discard == 1 + 8


def test_table_elimination_then_play_goes_on_to_the_left() -> None:
    t = table()
    t.mad["ann"] = 2
    t.reveal_mad_fish(1)
    t.decline()
    assert t.out == ["ann"] and t.turn == "bob" and t.hands["ann"] == 0
    t.discard_card(card(5))
    t.discard_card(card(5))
    assert t.turn == "bob"


def test_table_all_fish_revealed_deal_them_again() -> None:
    t = table("ann,bob")
    t.down = {"ann": 1, "bob": 0}
    t.mad = {"ann": 0, "bob": 2}
    said = t.reveal_heroes() + t.stop()
    assert "shuffle them all and deal 5 face down again" in said
    assert t.down == {"ann": 5, "bob": 5} and t.mad == {"ann": 0, "bob": 0}


def test_table_empty_deck_is_rebuilt_from_the_discard_pile() -> None:
    t = table("ann,bob")
    t.deck, t.discard = 0, 6
    assert "Deck empty: shuffle the discard pile but its top card" in t.draw()
    assert (t.deck, t.discard) == (4, 1)


def test_table_pass_only_when_nothing_else_is_possible() -> None:
    t = table("ann,bob")
    refused(t, "can still reveal or draw", "pass_turn")
    t.deck, t.discard, t.down["ann"] = 0, 1, 0
    assert t.pass_turn() == "ann passes." and t.turn == "bob"


def test_table_round_trips_through_plain_data() -> None:
    t = table()
    t.discard_card(card(6, Kind.TRIPLE_CHIPS))
    t.discard_card(card(6, Kind.SPY_FRY))
    doc = json.loads(json.dumps(t.to_dict()))
    assert table_from_dict(doc).to_dict() == t.to_dict()


def test_table_bad_plain_data_names_the_place() -> None:
    doc = table().to_dict()
    doc["hands"]["zed"] = 3
    with pytest.raises(InputError, match="hands.zed: 'zed' is not at the table"):
        table_from_dict(doc)


# ---------------------------------------------------------------- the rulings (issue 16) -


def test_e3_table_golden_knight_with_the_last_card_wins() -> None:
    t = table()
    t.hands["ann"] = 1
    t.reveal_mad_fish(2)
    said = t.knight()
    assert said.endswith("It was her last card: ann wins!")
    assert t.winner == "ann" and t.hands["ann"] == 0 and t.actor is None


def test_e4_table_sir_fries_numbers_in_any_order() -> None:
    # The invented deck's Sir Fries 5 shows 8 and 2: "5 sir 2,8" is the same card.
    for numbers in ((2, 8), (8, 2)):
        t = table()
        t.discard_card(card(5, Kind.SIR_FRIES, numbers))
        assert t.pending is not None and set(t.pending.numbers) == {2, 8}


def test_e13_without_a_deck_file_any_special_card_on_any_number() -> None:
    t = table(strict=False)
    assert t.discard_card(card(5, Kind.TRIPLE_CHIPS)) == "ann discards 5 Triple Chips."
    t.stop()
    t.discard_card(card(5, Kind.FISH_OR_CHIPS_TIME, any_player=True))
    assert t.pending is not None and t.pending.step is ChipsStep.FISH_TIME


def test_e13_without_a_deck_file_sir_fries_takes_the_numbers_announced() -> None:
    t = table(strict=False)
    t.discard_card(card(5, Kind.SIR_FRIES))  # numbers not given: any card goes
    assert "a card showing one of its numbers" in t.prompt()
    t.discard_card(card(9))
    assert t.turn == "bob"
    t = table(strict=False)
    t.discard_card(card(5, Kind.SIR_FRIES, (1, 3)))
    refused(t, "discard a 1 or 3, not a 9", "discard_card", card(9))


def test_e13_without_a_deck_file_a_mad_fish_draws_one_or_more() -> None:
    t = table(strict=False)
    refused(t, "draws 1 to 96 cards, not 0", "reveal_mad_fish", 0)
    t.reveal_mad_fish(5)
    t.decline()
    assert t.hands["ann"] == 13


def test_e13_a_deck_file_makes_the_helper_strict() -> None:
    t = table()  # strict, the invented default deck as the "file"
    refused(t, "no Triple Chips card shows a 5", "discard_card", card(5, Kind.TRIPLE_CHIPS))
    refused(t, "this deck's Mad Fish draw 1 or 2 or 3, not 5", "reveal_mad_fish", 5)
    assert table_from_dict(t.to_dict()).strict


def test_e8_table_a_chosen_player_with_no_face_down_card_is_passed_over() -> None:
    # E8: bob, next to ann, has nothing face down: he reveals nothing, cat plays next.
    t = table()
    t.down["bob"] = 0
    said = t.discard_card(card(5, Kind.FISH_OR_CHIPS_TIME))
    assert said.endswith("bob has no face-down card to reveal and is passed over.")
    assert t.pending is None and t.turn == "cat"
    # With the sign and nobody else holding a face-down card: the next player, passed over.
    t = table(strict=False)
    t.down["bob"] = t.down["cat"] = 0
    t.discard_card(card(5, Kind.FISH_OR_CHIPS_TIME, any_player=True))
    assert t.pending is None and t.turn == "cat"


def test_e4_table_the_sir_fries_player_discards_whatever_the_top_card() -> None:
    # E4: ann, who discarded Sir Fries, discards next (not bob), an 8 on a 5.
    t = table()
    t.discard_card(card(5, Kind.SIR_FRIES, (8, 2)))
    assert t.actor == "ann" and "ann: Sir Fries" in t.prompt()
    t.discard_card(card(8))
    assert t.top == 8 and t.turn == "bob"
