"""The Great Chips Escape: one named test per rule of the rulebook and per ruling E1-E13.

Rulebook: The Great Chips Escape, as published. Rulings: companion/games/chips/__init__.py and
docs/chips.md. Positions are laid out card by card: ``"5#3"`` is the third number card 5,
``"triple_chips:6#1"`` the Triple Chips showing a 6, ``"mad_fish:2#1"`` a Mad Fish that
makes you draw two.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

import pytest

from companion.errors import InputError, RuleError
from companion.games.chips import (
    Action,
    ChipsRules,
    ChipsState,
    ChipsStep,
    Choose,
    Decline,
    Discard,
    Draw,
    EscapeCard,
    FishKind,
    Kind,
    Knight,
    PassTurn,
    Pending,
    RevealFish,
    Spy,
    StopTriple,
    follows,
    neighbours,
    rules_from_dict,
    state_from_dict,
)

RULES = ChipsRules()
HEROES = [f"chips_heroes#{i}" for i in range(1, 19)]
TRIPLE6, TRIPLE8 = "triple_chips:6#1", "triple_chips:8#1"
EVERYONE3 = "chips_for_everyone:3#1"
KNIGHT2, KNIGHT4 = "golden_knight:2#1", "golden_knight:4#1"
SIR5 = "sir_fries:5#1"  # lets you discard an 8 or a 2
SPY4 = "spy_fry:4#1"
TIME5, TIME_ANY3 = "fish_or_chips_time:5#1", "fish_or_chips_time_any:3#1"


def rng() -> random.Random:
    return random.Random(0)


def make(
    hands: dict[str, list[str]],
    top: str = "5#8",
    deck: list[str] | None = None,
    down: dict[str, list[str]] | None = None,
    up: dict[str, list[str]] | None = None,
    fresh: dict[str, list[str]] | None = None,
    turn: str | None = None,
    rules: ChipsRules = RULES,
) -> ChipsState:
    """A position. Escape cards not named are the deck (or, with ``deck`` given, under the
    top card); without ``down`` each player has two Chips Heroes face down."""
    players = list(hands)
    if down is None:
        down = {p: HEROES[2 * i : 2 * i + 2] for i, p in enumerate(players)}
    up = up or {}
    named = {c for h in hands.values() for c in h} | {top} | set(deck or [])
    rest = [c for c in rules.escape_cards() if c not in named]
    discard = [top] if deck is None else [*rest, top]
    fish_named = {c for cards in (*down.values(), *up.values()) for c in cards}
    doc = {
        "players": players,
        "turn": turn or players[0],
        "deck": rest if deck is None else deck,
        "discard": discard,
        "hands": hands,
        "fresh": fresh or {},
        "fish": {p: {"down": down.get(p, []), "up": up.get(p, [])} for p in players},
        "box": [c for c in rules.fish_cards() if c not in fish_named],
    }
    if rules != RULES:
        doc["rules"] = rules.to_dict()
    return state_from_dict(doc)


def refused(state: ChipsState, action: Action, reason: str) -> None:
    before = state.to_dict()
    with pytest.raises(RuleError, match=reason):
        state.apply(action, rng())
    assert state.to_dict() == before


def check_cards(state: ChipsState) -> None:
    assert state.escape_places() == Counter(list(state.escape))
    assert state.fish_places() == Counter(list(state.fish))


# ---------------------------------------------------------------- contents and setup ----


def test_chips_96_escape_cards_72_normal_24_special() -> None:
    cards = RULES.escape_cards().values()
    assert len(cards) == 96
    assert sum(c.kind is Kind.NUMBER for c in cards) == 72
    specials = Counter(c.kind for c in cards if c.kind is not Kind.NUMBER)
    assert sum(specials.values()) == 24 and set(specials.values()) == {4}


def test_chips_36_fish_or_chips_cards_mad_fish_and_chips_heroes() -> None:
    fish = RULES.fish_cards().values()
    assert len(fish) == 36
    assert Counter(f.kind for f in fish) == {FishKind.MAD_FISH: 18, FishKind.CHIPS_HEROES: 18}


def test_chips_number_cards_run_one_to_nine() -> None:
    assert {c.number for c in RULES.escape_cards().values()} == set(range(1, 10))


def test_chips_setup_deals_eight_cards_each_and_the_rest_is_the_deck() -> None:
    state = ChipsState.deal(["ann", "bob", "cat"], rng())
    assert all(len(state.hands[p]) == 8 for p in state.players)
    assert len(state.deck) == 96 - 24 - 1
    check_cards(state)


def test_chips_setup_deals_five_fish_or_chips_face_down_the_rest_to_the_box() -> None:
    state = ChipsState.deal(["ann", "bob", "cat"], rng())
    assert all(len(state.down[p]) == 5 and not state.up[p] for p in state.players)
    assert len(state.box) == 36 - 15


def test_chips_setup_top_card_of_the_deck_starts_the_discard_pile() -> None:
    state = ChipsState.deal(["ann", "bob"], random.Random(3))
    assert len(state.discard) == 1 and state.top == state.escape[state.discard[0]].number


def test_chips_setup_special_top_card_is_only_its_number() -> None:
    for seed in range(200):
        state = ChipsState.deal(["ann", "bob"], random.Random(seed))
        if state.escape[state.discard[0]].kind is not Kind.NUMBER:
            assert state.pending is None and state.actor == "ann"
            assert all(not state.fresh[p] and len(state.hands[p]) == 8 for p in state.players)
            return
    pytest.fail("no special card came up in 200 deals")


def test_chips_the_youngest_begins_whoever_the_table_names() -> None:
    assert ChipsState.deal(["ann", "bob", "cat"], rng(), first="cat").turn == "cat"


def test_chips_two_to_seven_players_with_the_default_deck() -> None:
    assert RULES.player_range() == (2, 7)
    for players in (["a"], [f"p{i}" for i in range(8)], ["a", "a"]):
        with pytest.raises(RuleError):
            ChipsState.deal(players, rng())


def test_chips_deck_composition_is_a_setting() -> None:
    rules = rules_from_dict(
        {
            "normal": [2] * 9,
            "special": {"triple_chips": [5]},
            "chips_heroes": 4,
            "mad_fish": [{"draw": 1, "copies": 6}],
            "hand_size": 5,
        }
    )
    assert rules.escape_total == 19 and rules.fish_total == 10 and rules.player_range() == (2, 2)
    state = ChipsState.deal(["ann", "bob"], rng(), rules)
    assert len(state.hands["ann"]) == 5
    check_cards(state)


# ---------------------------------------------------------------- a turn ----------------


def test_chips_one_action_then_the_turn_passes_to_the_left() -> None:
    state = make({"ann": ["5#1", "1#1"], "bob": ["1#2", "1#3"], "cat": ["1#4", "1#5"]})
    state.apply(Discard("5#1"), rng())
    assert state.turn == "bob"
    state.apply(Draw(), rng())
    assert state.turn == "cat"


@pytest.mark.parametrize(("top", "card"), [("5#8", "5#1"), ("5#8", "4#1"), ("5#8", "6#1")])
def test_chips_discard_the_same_number_or_the_one_before_or_after(top: str, card: str) -> None:
    state = make({"ann": [card, "1#1"], "bob": ["1#2"]}, top=top)
    state.apply(Discard(card), rng())
    assert state.discard[-1] == card


def test_chips_discard_any_other_number_is_refused() -> None:
    state = make({"ann": ["7#1", "1#1"], "bob": ["1#2"]})
    refused(state, Discard("7#1"), "a 7 cannot go on a 5: play a 4, 5 or 6")


def test_e1_numbers_are_circular_a_one_on_a_nine_and_a_nine_on_a_one() -> None:
    assert follows(9, 1) and follows(1, 9) and follows(9, 8) and not follows(9, 2)
    assert neighbours(1) == (9, 1, 2) and neighbours(9) == (8, 9, 1)
    state = make({"ann": ["1#1", "2#1"], "bob": ["9#1", "3#1"]}, top="9#8")
    state.apply(Discard("1#1"), rng())
    state.apply(Discard("9#1"), rng())
    assert state.top == 9


def test_chips_discard_only_a_card_in_your_hand() -> None:
    state = make({"ann": ["5#1", "1#1"], "bob": ["5#2"]})
    refused(state, Discard("5#2"), "not in ann's hand")


def test_chips_draw_puts_the_deck_top_in_your_hand() -> None:
    state = make({"ann": ["1#1"], "bob": ["1#2"]}, deck=["7#1", "7#2"])
    state.apply(Draw(), rng())
    assert state.hands["ann"] == ["1#1", "7#1"] and state.deck == ["7#2"]


def test_e2_drawn_card_usable_only_next_turn() -> None:
    state = make({"ann": ["1#1"], "bob": ["1#2", "1#3"]}, deck=["5#1", "5#2"])
    state.apply(Draw(), rng())
    assert "5#1" in state.fresh["ann"]
    state.apply(Draw(), rng())  # bob
    assert state.turn == "ann" and state.fresh["ann"] == []
    state.apply(Discard("5#1"), rng())


def test_chips_drawn_card_not_usable_in_a_reveal_before_your_next_turn() -> None:
    # E2: ann drew a Golden Knight; bob's Fish-or-Chips Time makes her reveal a Mad Fish.
    state = make(
        {"ann": ["1#1", KNIGHT2], "bob": [TIME5, "1#2"]},
        fresh={"ann": [KNIGHT2]},
        down={"ann": ["mad_fish:1#1"], "bob": ["chips_heroes#1"]},
        turn="bob",
    )
    state.apply(Discard(TIME5), rng())
    assert state.pending == Pending(ChipsStep.REVEAL, "ann")
    state.apply(RevealFish(0), rng())
    assert state.pending is None and state.mad_fish("ann") == 1  # no Golden Knight offered


def test_chips_reveal_leaves_the_card_open_and_ends_the_turn() -> None:
    state = make(
        {"ann": ["1#1"], "bob": ["1#2"]},
        down={"ann": ["mad_fish:1#1", HEROES[0]], "bob": [HEROES[1]]},
    )
    state.apply(RevealFish(0), rng())
    assert state.up["ann"] == ["mad_fish:1#1"] and state.down["ann"] == [HEROES[0]]
    assert state.turn == "bob"


def test_chips_no_peeking_a_reveal_picks_a_place_not_a_card() -> None:
    state = make(
        {"ann": ["1#1"], "bob": ["1#2"]},
        down={"ann": ["mad_fish:1#1", HEROES[0]], "bob": [HEROES[1]]},
    )
    reveals = [a for a in state.legal_actions() if isinstance(a, RevealFish)]
    assert reveals == [RevealFish(0), RevealFish(1)]  # positions only: what lies there is hidden


def test_chips_reveal_needs_a_face_down_card() -> None:
    state = make({"ann": ["1#1"], "bob": ["1#2"]}, down={"ann": [], "bob": [HEROES[0]]})
    refused(state, RevealFish(0), "0 face-down")


# ---------------------------------------------------------------- game end --------------


def test_chips_discarding_your_last_card_wins() -> None:
    state = make({"ann": ["5#1"], "bob": ["1#2"]})
    state.apply(Discard("5#1"), rng())
    assert state.over and state.winner == "ann" and state.legal_actions() == []


def test_e3_last_card_wins_before_its_effect() -> None:
    # E3: the Triple Chips never starts.
    state = make({"ann": [TRIPLE6], "bob": ["1#2"]})
    state.apply(Discard(TRIPLE6), rng())
    assert state.winner == "ann" and state.pending is None


def test_chips_the_last_opponent_eliminated_wins() -> None:
    state = make(
        {"ann": ["1#1"], "bob": ["1#2"]},
        turn="bob",
        down={"ann": [HEROES[0]], "bob": ["mad_fish:1#1"]},
        up={"bob": ["mad_fish:1#2", "mad_fish:1#3"]},
    )
    state.apply(RevealFish(0), rng())
    assert state.out == ["bob"] and state.winner == "ann"


def test_chips_nothing_happens_after_the_end() -> None:
    state = make({"ann": ["5#1"], "bob": ["5#2", "1#2"]})
    state.apply(Discard("5#1"), rng())
    refused(state, Draw(), "the game is over: ann won")


# ---------------------------------------------------------------- special cards ---------


def test_chips_chips_for_everyone_all_other_players_draw() -> None:
    state = make(
        {"ann": [EVERYONE3, "1#1"], "bob": ["1#2"], "cat": ["1#3"]},
        top="3#8",
        deck=["7#1", "7#2", "7#3"],
    )
    state.apply(Discard(EVERYONE3), rng())
    assert state.hands["bob"] == ["1#2", "7#1"] and state.hands["cat"] == ["1#3", "7#2"]
    assert state.hands["ann"] == ["1#1"] and state.turn == "bob"


def test_chips_chips_for_everyone_cards_are_drawn_cards() -> None:
    # E2: cat may play hers on her turn, but not before it.
    state = make(
        {"ann": [EVERYONE3, "1#1"], "bob": ["1#2"], "cat": ["1#3"]},
        top="3#8",
        deck=["7#1", "7#2", "7#3"],
    )
    state.apply(Discard(EVERYONE3), rng())
    assert state.fresh["cat"] == ["7#2"] and state.fresh["bob"] == []  # bob's turn began


def test_chips_golden_knight_cancels_a_mad_fish() -> None:
    state = make(
        {"ann": ["1#1", KNIGHT2], "bob": ["1#2"]},
        deck=["7#1", "7#2"],
        down={"ann": ["mad_fish:2#1"], "bob": [HEROES[0]]},
    )
    state.apply(RevealFish(0), rng())
    assert state.pending is not None and state.pending.step is ChipsStep.KNIGHT
    assert state.legal_actions() == [Knight(KNIGHT2), Decline()]
    state.apply(Knight(KNIGHT2), rng())
    assert state.hands["ann"] == ["1#1"] and state.mad_fish("ann") == 0
    assert state.covered["ann"] == [("mad_fish:2#1", KNIGHT2)] and state.deck == ["7#1", "7#2"]


def test_chips_golden_knight_may_be_kept() -> None:
    state = make(
        {"ann": ["1#1", KNIGHT2], "bob": ["1#2"]},
        deck=["7#1", "7#2"],
        down={"ann": ["mad_fish:2#1"], "bob": [HEROES[0]]},
    )
    state.apply(RevealFish(0), rng())
    state.apply(Decline(), rng())
    assert state.hands["ann"] == ["1#1", KNIGHT2, "7#1", "7#2"] and state.mad_fish("ann") == 1


def test_chips_golden_knight_discarded_normally_has_no_effect() -> None:
    state = make({"ann": [KNIGHT4, "1#1"], "bob": ["1#2"]})
    state.apply(Discard(KNIGHT4), rng())
    assert state.pending is None and state.turn == "bob" and state.top == 4


def test_e6_golden_knight_only_for_your_own_mad_fish() -> None:
    # E6: bob holds a knight but only ann, who revealed, is asked.
    state = make(
        {"ann": ["1#1"], "bob": ["1#2", KNIGHT2]},
        down={"ann": ["mad_fish:1#1"], "bob": [HEROES[0]]},
    )
    state.apply(RevealFish(0), rng())
    assert state.pending is None and state.mad_fish("ann") == 1


def test_chips_a_covered_mad_fish_does_not_count_toward_three() -> None:
    state = make(
        {"ann": ["1#1", KNIGHT2], "bob": ["1#2"]},
        down={"ann": ["mad_fish:1#1"], "bob": [HEROES[0]]},
        up={"ann": ["mad_fish:1#2", "mad_fish:1#3"]},
    )
    state.apply(RevealFish(0), rng())
    state.apply(Knight(KNIGHT2), rng())
    assert state.out == [] and state.mad_fish("ann") == 2


def test_chips_sir_fries_discard_a_matching_card_regardless_of_the_top() -> None:
    state = make({"ann": [SIR5, "8#1", "1#1"], "bob": ["1#2"]})
    state.apply(Discard(SIR5), rng())
    assert state.pending is not None and state.pending.numbers == (8, 2)
    state.apply(Discard("8#1"), rng())  # an 8 on a 5
    assert state.top == 8 and state.turn == "bob"


def test_e4_the_sir_fries_player_herself_discards_whatever_the_top_card() -> None:
    # E4: "your hand" on the card is its player's: ann discards next, not bob, and her
    # 2 goes on the 5 that Sir Fries shows.
    state = make({"ann": [SIR5, "2#1", "1#1"], "bob": ["8#1", "1#2"]})
    state.apply(Discard(SIR5), rng())
    assert state.actor == "ann" and state.legal_actions() == [Discard("2#1")]
    state.apply(Discard("2#1"), rng())
    assert state.top == 2 and state.turn == "bob" and state.hands["bob"] == ["8#1", "1#2"]


def test_e4_sir_fries_if_possible_you_must() -> None:
    # E4: no stopping, no other card.
    state = make({"ann": [SIR5, "8#1", "5#1"], "bob": ["1#2"]})
    state.apply(Discard(SIR5), rng())
    assert state.legal_actions() == [Discard("8#1")]
    refused(state, StopTriple(), "only Triple Chips")
    refused(state, Discard("5#1"), "Sir Fries lets ann discard an 8 or 2, not a 5")


def test_chips_sir_fries_without_a_matching_card_ends_the_turn() -> None:
    state = make({"ann": [SIR5, "5#1"], "bob": ["1#2"]})
    state.apply(Discard(SIR5), rng())
    assert state.pending is None and state.turn == "bob"


def test_chips_sir_fries_the_card_it_lets_you_play_has_its_effect() -> None:
    # E4: the Triple Chips 8 discarded through Sir Fries starts a Triple Chips.
    state = make({"ann": [SIR5, TRIPLE8, "9#1", "1#1"], "bob": ["1#2"]})
    state.apply(Discard(SIR5), rng())
    state.apply(Discard(TRIPLE8), rng())
    assert state.pending is not None and state.pending.step is ChipsStep.TRIPLE


def test_e9_spy_fry_look_and_swap_one_card_each() -> None:
    state = make({"ann": [SPY4, "1#1", "2#1"], "bob": ["9#1", "9#2"]}, top="4#8")
    state.apply(Discard(SPY4), rng())
    assert state.pending is not None and state.pending.step is ChipsStep.SPY_FRY
    state.apply(Spy("bob", "1#1", "9#2"), rng())
    assert state.hands["ann"] == ["9#2", "2#1"] and state.hands["bob"] == ["9#1", "1#1"]
    assert state.turn == "bob"


def test_chips_spy_fry_may_only_look() -> None:
    state = make({"ann": [SPY4, "1#1"], "bob": ["9#1"]}, top="4#8")
    state.apply(Discard(SPY4), rng())
    state.apply(Spy("bob"), rng())
    assert state.hands == {"ann": ["1#1"], "bob": ["9#1"]}


def test_chips_spy_fry_swap_is_one_for_one_with_another_player() -> None:
    state = make({"ann": [SPY4, "1#1"], "bob": ["9#1"]}, top="4#8")
    state.apply(Discard(SPY4), rng())
    refused(state, Spy("ann"), "not another player")
    refused(state, Spy("bob", "1#1"), "gives one card and takes one")
    refused(state, Spy("bob", "1#1", "9#9"), "not in bob's hand")


def test_e2_spy_fry_a_swapped_card_is_usable_at_once() -> None:
    # E2, E9: the card bob drew and lost to ann is hers to play at once.
    state = make({"ann": [SPY4, "1#1"], "bob": ["9#1", "2#2"]}, top="4#8", fresh={"bob": ["2#2"]})
    state.apply(Discard(SPY4), rng())
    state.apply(Spy("bob", "1#1", "2#2"), rng())
    assert state.fresh == {"ann": [], "bob": []}


def test_e8_fish_or_chips_time_the_next_player_must_reveal() -> None:
    state = make(
        {"ann": [TIME5, "1#1"], "bob": ["1#2"], "cat": ["1#3"]},
        down={"ann": [HEROES[0]], "bob": ["mad_fish:1#1"], "cat": [HEROES[1]]},
    )
    state.apply(Discard(TIME5), rng())
    assert (
        state.actor == "bob"
        and state.pending is not None
        and state.pending.step is ChipsStep.REVEAL
    )
    refused(state, Draw(), "must first finish the reveal step")
    state.apply(RevealFish(0), rng())
    assert state.turn == "cat"  # the player after the one who revealed


def test_chips_fish_or_chips_time_with_the_sign_any_player() -> None:
    state = make(
        {"ann": [TIME_ANY3, "1#1"], "bob": ["1#2"], "cat": ["1#3"]},
        top="3#8",
        down={"ann": [HEROES[0]], "bob": [HEROES[1]], "cat": ["mad_fish:1#1"]},
    )
    state.apply(Discard(TIME_ANY3), rng())
    assert state.legal_actions() == [Choose("bob"), Choose("cat")]
    refused(state, Choose("ann"), "another player")
    state.apply(Choose("cat"), rng())
    state.apply(RevealFish(0), rng())
    assert state.mad_fish("cat") == 1 and state.turn == "ann"


def test_e8_a_chosen_player_with_no_face_down_card_is_still_passed_over() -> None:
    # E8: bob, next to ann, has no face-down card: he reveals nothing, and the turn goes
    # to the player after him.
    state = make(
        {"ann": [TIME5, "1#1"], "bob": ["1#2"], "cat": ["1#3"]},
        down={"ann": [HEROES[0]], "bob": [], "cat": [HEROES[1]]},
    )
    state.apply(Discard(TIME5), rng())
    assert state.pending is None and state.turn == "cat"
    assert state.down == {"ann": [HEROES[0]], "bob": [], "cat": [HEROES[1]]}


def test_e8_two_players_the_turn_comes_back_to_you() -> None:
    # E8, "even back to you": bob has no face-down card, so he is passed over.
    state = make({"ann": [TIME5, "1#1"], "bob": ["1#2"]}, down={"ann": [], "bob": []})
    state.apply(Discard(TIME5), rng())
    assert state.pending is None and state.turn == "ann"


def test_e8_with_the_sign_and_nobody_to_choose_the_next_player_is_passed_over() -> None:
    # E8: with the sign she may choose anyone with a face-down card; with nobody to
    # choose, the card falls back on the next player, who reveals nothing: passed over.
    state = make(
        {"ann": [TIME_ANY3, "1#1"], "bob": ["1#2"], "cat": ["1#3"]},
        top="3#8",
        down={"ann": [HEROES[0]], "bob": [], "cat": []},
    )
    state.apply(Discard(TIME_ANY3), rng())
    assert state.pending is None and state.turn == "cat"


def test_chips_triple_chips_discard_up_to_three_following_the_rule() -> None:
    state = make({"ann": [TRIPLE6, "6#1", "7#1", "9#1", "8#1", "1#1"], "bob": ["1#2"]})
    state.apply(Discard(TRIPLE6), rng())
    refused(state, Discard("9#1"), "a 9 cannot go on a 6")
    for card in ("6#1", "7#1", "8#1"):
        state.apply(Discard(card), rng())
    assert state.pending is None and state.turn == "bob" and state.hands["ann"] == ["9#1", "1#1"]


def test_chips_triple_chips_may_stop_early_or_at_once() -> None:
    state = make({"ann": [TRIPLE6, "6#1", "7#1", "1#1"], "bob": ["1#2"]})
    state.apply(Discard(TRIPLE6), rng())
    state.apply(StopTriple(), rng())
    assert state.turn == "bob" and len(state.hands["ann"]) == 3


def test_e5_triple_chips_resolves_only_the_last_card() -> None:
    hand = [TRIPLE6, "chips_for_everyone:6#1", "5#1", "1#1"]
    state = make({"ann": hand, "bob": ["1#2"]}, deck=["9#1", "9#2"])
    state.apply(Discard(TRIPLE6), rng())
    state.apply(Discard("chips_for_everyone:6#1"), rng())  # no effect yet
    assert state.hands["bob"] == ["1#2"]
    state.apply(Discard("5#1"), rng())  # the last: a plain 5, so nothing happens
    assert state.hands["bob"] == ["1#2"] and state.turn == "bob"


def test_chips_triple_chips_last_card_may_be_another_triple_chips() -> None:
    state = make({"ann": [TRIPLE6, "7#1", TRIPLE8, "9#1", "1#1", "2#1"], "bob": ["1#2"]})
    state.apply(Discard(TRIPLE6), rng())
    state.apply(Discard("7#1"), rng())
    state.apply(Discard(TRIPLE8), rng())
    state.apply(StopTriple(), rng())
    assert state.pending is not None and state.pending.step is ChipsStep.TRIPLE
    state.apply(Discard("9#1"), rng())
    state.apply(Discard("1#1"), rng())
    state.apply(Discard("2#1"), rng())
    assert state.winner == "ann"


def test_chips_triple_chips_with_nothing_playable_ends_the_turn() -> None:
    state = make({"ann": [TRIPLE6, "1#1"], "bob": ["1#2"]})
    state.apply(Discard(TRIPLE6), rng())
    assert state.pending is None and state.turn == "bob"


# ---------------------------------------------------------------- fish-or-chips cards ---


def test_chips_mad_fish_draw_as_many_as_it_shows() -> None:
    state = make(
        {"ann": ["1#1"], "bob": ["1#2"]},
        deck=["7#1", "7#2", "7#3", "7#4"],
        down={"ann": ["mad_fish:3#1"], "bob": [HEROES[0]]},
    )
    state.apply(RevealFish(0), rng())
    assert state.hands["ann"] == ["1#1", "7#1", "7#2", "7#3"] and state.fresh["ann"]


def test_e7_three_mad_fish_lose_at_once() -> None:
    state = make(
        {"ann": ["1#1", "2#1"], "bob": ["1#2"], "cat": ["1#3"]},
        deck=["7#1"],
        down={"ann": ["mad_fish:1#1"], "bob": [HEROES[0]], "cat": [HEROES[1]]},
        up={"ann": ["mad_fish:2#1", "chips_heroes#9", "mad_fish:3#1"]},
    )
    state.apply(RevealFish(0), rng())
    assert state.out == ["ann"] and state.winner is None and state.turn == "bob"
    assert state.deck == ["7#1"]  # E7: no drawing
    refused(state, Spy("ann"), "no Spy Fry")


def test_chips_eliminated_player_cards_go_under_the_top_card() -> None:
    # E7
    state = make(
        {"ann": ["1#1", "2#1"], "bob": ["1#2"], "cat": ["1#3"]},
        deck=[],
        down={"ann": ["mad_fish:1#1"], "bob": [HEROES[0]], "cat": [HEROES[1]]},
        up={"ann": ["mad_fish:2#1", "mad_fish:3#1"]},
    )
    state.apply(RevealFish(0), rng())
    assert state.discard[-3:] == ["1#1", "2#1", "5#8"] and state.hands["ann"] == []
    assert {"mad_fish:1#1", "mad_fish:2#1", "mad_fish:3#1"} <= set(state.box)
    check_cards(state)


def test_chips_eliminated_players_are_skipped() -> None:
    state = make({"ann": ["5#1", "1#1"], "bob": ["1#2"], "cat": ["1#3"]})
    state.out.append("bob")
    state.hands["cat"] += state.hands.pop("bob")
    state.hands["bob"] = []
    state.apply(Discard("5#1"), rng())
    assert state.turn == "cat"


def test_chips_chips_heroes_first_discard_ignores_the_top_card() -> None:
    state = make(
        {"ann": ["9#1", "1#1", "3#1"], "bob": ["1#2"]},
        down={"ann": [HEROES[0]], "bob": [HEROES[1]]},
    )
    state.apply(RevealFish(0), rng())
    assert set(state.legal_actions()) == {Discard("9#1"), Discard("1#1"), Discard("3#1")}
    state.apply(Discard("9#1"), rng())  # a 9 on a 5
    assert state.top == 9


def test_e5_chips_heroes_then_keep_discarding_by_the_normal_rule() -> None:
    state = make(
        {"ann": ["9#1", "1#1", "3#1", "4#1"], "bob": ["1#2"]},
        down={"ann": [HEROES[0]], "bob": [HEROES[1]]},
    )
    state.apply(RevealFish(0), rng())
    state.apply(Discard("9#1"), rng())
    assert state.legal_actions() == [Discard("1#1")]  # E5: no stopping while she can
    refused(state, StopTriple(), "only Triple Chips")
    state.apply(Discard("1#1"), rng())
    assert state.pending is None and state.hands["ann"] == ["3#1", "4#1"] and state.turn == "bob"


def test_chips_chips_heroes_resolves_only_the_last_card() -> None:
    state = make(
        {"ann": [EVERYONE3, "4#1", "1#1"], "bob": ["1#2"]},
        deck=["9#1", "9#2"],
        down={"ann": [HEROES[0]], "bob": [HEROES[1]]},
    )
    state.apply(RevealFish(0), rng())
    state.apply(Discard("4#1"), rng())
    state.apply(Discard(EVERYONE3), rng())  # the last one: bob draws
    assert state.hands["bob"] == ["1#2", "9#1"]


def test_chips_chips_heroes_with_no_playable_card_does_nothing() -> None:
    state = make(
        {"ann": ["1#1"], "bob": ["1#2"]},
        fresh={"ann": ["1#1"]},
        down={"ann": [HEROES[0]], "bob": [HEROES[1]]},
    )
    state.apply(RevealFish(0), rng())
    assert state.pending is None and state.turn == "bob"


# ---------------------------------------------------------------- the deck and the fish -


def test_e10_deck_depleted_shuffle_the_discard_pile_but_its_top() -> None:
    state = make({"ann": ["1#1"], "bob": ["1#2"]}, deck=[])
    pile = len(state.discard)
    state.apply(Draw(), rng())
    assert state.discard == ["5#8"] and len(state.deck) == pile - 2
    check_cards(state)


def test_chips_nothing_to_draw_anywhere_no_draw() -> None:
    # E10
    rules = rules_from_dict({"normal": [1] * 9, "special": {}, "hand_size": 4})
    state = make(
        {"ann": ["1#1", "2#1", "3#1", "4#1"], "bob": ["6#1", "7#1", "8#1", "9#1"]},
        top="5#1",
        deck=[],
        rules=rules,
    )
    assert not state.can_draw()
    refused(state, Draw(), "no card left to draw")


def test_chips_mad_fish_draws_what_there_is() -> None:
    rules = rules_from_dict({"normal": [1] * 9, "special": {}, "hand_size": 4})
    state = make(
        {"ann": ["1#1", "2#1", "3#1"], "bob": ["6#1", "7#1", "8#1", "9#1"]},
        top="5#1",
        deck=["4#1"],
        rules=rules,
        down={"ann": ["mad_fish:3#1"], "bob": [HEROES[0]]},
    )
    state.apply(RevealFish(0), rng())
    assert len(state.hands["ann"]) == 4 and state.deck == []


def test_e11_all_fish_or_chips_revealed_deal_five_again() -> None:
    # E11
    state = make(
        {"ann": ["1#1"], "bob": ["1#2"], "cat": ["1#3"]},
        deck=["7#1"],
        down={"ann": ["mad_fish:1#3"], "bob": [], "cat": []},
        up={"bob": ["mad_fish:1#1", "mad_fish:1#2"], "cat": [HEROES[1]]},
    )
    state.apply(RevealFish(0), rng())
    assert all(len(state.down[p]) == 5 and not state.up[p] for p in state.players)
    assert len(state.box) == 36 - 15 and state.mad_fish("bob") == 0
    check_cards(state)


def test_chips_redeal_only_to_players_still_in_and_knights_go_under_the_top() -> None:
    state = make(
        {"ann": ["1#1", KNIGHT2], "bob": ["1#2"], "cat": ["1#3"]},
        down={"ann": ["mad_fish:1#1"], "bob": [], "cat": []},
    )
    state.out.append("cat")
    state.hands["bob"] += state.hands["cat"]
    state.hands["cat"] = []
    state.apply(RevealFish(0), rng())
    state.apply(Knight(KNIGHT2), rng())
    assert state.discard[-2:] == [KNIGHT2, "5#8"]
    assert len(state.down["ann"]) == len(state.down["bob"]) == 5 and state.down["cat"] == []
    check_cards(state)


def test_e12_a_player_who_can_do_nothing_passes() -> None:
    # E12
    rules = rules_from_dict({"normal": [1] * 9, "special": {}, "hand_size": 4})
    state = make(
        {"ann": ["1#1", "2#1", "3#1", "9#1"], "bob": ["6#1", "7#1", "8#1", "4#1"]},
        top="5#1",
        deck=[],
        rules=rules,
        down={"ann": [], "bob": [HEROES[0]]},
    )
    assert state.legal_actions() == [PassTurn()]
    state.apply(PassTurn(), rng())
    assert state.turn == "bob"
    refused(state, PassTurn(), "can still discard, reveal or draw")


# ---------------------------------------------------------------- plain data ------------


def test_chips_state_round_trips_through_plain_data() -> None:
    state = ChipsState.deal(["ann", "bob", "cat"], random.Random(11))
    r = random.Random(11)
    for _ in range(40):
        if state.over:
            break
        doc = state.to_dict()
        again = state_from_dict(json.loads(json.dumps(doc)))
        assert again.to_dict() == doc and again.legal_actions() == state.legal_actions()
        state.apply(r.choice(state.legal_actions()), r)


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda d: d["hands"]["ann"].append("5#8"), "hands.ann[2]: 5#8 is already at discard[0]"),
        (lambda d: d["deck"].append("10#1"), "no card '10#1'"),
        (lambda d: d["deck"].pop(), "escape cards missing"),
        (lambda d: d["fresh"].update(ann=["9#9"]), "fresh.ann[0]: 9#9 is not in ann's hand"),
        (lambda d: d.update(turn="zed"), "turn: 'zed' is not at the table"),
        (lambda d: d.update(discard=[]), "discard: the discard pile always has its top card"),
        (
            lambda d: d["fish"]["ann"].update(covered=[["chips_heroes#1", "5#1"]]),
            "fish.ann.covered[0]",
        ),
        (lambda d: d.update(pending={"step": "dance", "player": "ann"}), "pending.step"),
        (lambda d: d.update(rules={"hand_size": 0}), "rules.hand_size: must be at least 1"),
    ],
)
def test_chips_state_from_bad_data_names_the_place(change: Any, where: str) -> None:
    doc = make({"ann": ["1#1", "2#1"], "bob": ["3#1"]}).to_dict()
    change(doc)
    with pytest.raises(InputError) as caught:
        state_from_dict(doc)
    assert where in str(caught.value)


@pytest.mark.parametrize(
    ("rules", "where"),
    [
        ({"normal": [8] * 8}, "normal: give the copies of each number 1 to 9"),
        (
            {"special": {"sir_fries": [{"number": 3, "numbers": []}]}},
            "special.sir_fries[0].numbers",
        ),
        ({"special": {"spy_fry": [10]}}, "special.spy_fry[0]: must be at most 9"),
        ({"special": {"dragon": [1]}}, "special.dragon: unknown key"),
        ({"mad_fish": [{"draw": 0, "copies": 1}]}, "mad_fish[0].draw: must be at least 1"),
        ({"chips_heroes": 0, "mad_fish": []}, "cannot deal 8 + 5 cards to two players"),
    ],
)
def test_chips_rules_from_bad_data_names_the_place(rules: dict[str, Any], where: str) -> None:
    with pytest.raises(InputError, match=re.escape(where)):
        rules_from_dict(rules)


def test_chips_rules_round_trip() -> None:
    assert rules_from_dict(RULES.to_dict()) == RULES
    assert rules_from_dict({}) == RULES


def test_chips_special_cards_by_their_titles() -> None:
    assert EscapeCard(Kind.SIR_FRIES, 5, (8, 2)).title() == "5 Sir Fries (8/2)"
    assert EscapeCard(Kind.FISH_OR_CHIPS_TIME, 1, any_player=True).title() == (
        "1 Fish-or-Chips Time (any player)"
    )
    assert RULES.escape_cards()[SIR5] == EscapeCard(Kind.SIR_FRIES, 5, (8, 2))


# ---------------------------------------------------------------- the rulings (issue 16) -


def test_e3_golden_knight_covering_with_the_last_card_wins_at_once() -> None:
    state = make(
        {"ann": [KNIGHT2], "bob": ["1#2"]},
        deck=["7#1", "7#2"],
        down={"ann": ["mad_fish:2#1", HEROES[1]], "bob": [HEROES[0]]},
    )
    state.apply(RevealFish(0), rng())
    state.apply(Knight(KNIGHT2), rng())
    assert state.over and state.winner == "ann" and state.hands["ann"] == []
    assert state.legal_actions() == [] and state.turn == "ann"
    check_cards(state)


def test_e4_sir_fries_numbers_are_a_set() -> None:
    # SIR5 lets you discard an 8 or a 2, whatever order its numbers are given in.
    rules = rules_from_dict({"special": {"sir_fries": [{"number": 5, "numbers": [2, 8]}]}})
    state = make({"ann": ["sir_fries:5#1", "8#1", "1#1"], "bob": ["1#2"]}, rules=rules)
    state.apply(Discard("sir_fries:5#1"), rng())
    assert state.pending is not None and set(state.pending.numbers) == {2, 8}
    assert state.legal_actions() == [Discard("8#1")]
