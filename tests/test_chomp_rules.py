"""CHOMP!: one named test per rule of the rulebook and per house ruling C1-C16.

Rulebook: the CHOMP! rulebook (the slap card game). Rulings: docs/rulings.md.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from companion.errors import RuleError
from companion.games.chomp import (
    DECK_COMPOSITION,
    DECK_SIZE,
    FOOD_CHAIN,
    Card,
    ChompGame,
    ChompTable,
    Mode,
    Outcome,
    Reason,
    Round,
    Slap,
    TwoPlayerEnd,
    Verdict,
    can_chomp,
    judge,
    new_deck,
)

P, S, LF, BF, SE, SH = (
    Card.PLANKTON,
    Card.SHRIMP,
    Card.LITTLE_FISH,
    Card.BIG_FISH,
    Card.SEAL,
    Card.SHARK,
)
OCT, EEL = Card.OCTOPUS, Card.ELECTRIC_EEL


def hands(**cards: Card | tuple[Card, ...]) -> dict[str, tuple[Card, ...]]:
    return {p: c if isinstance(c, tuple) else (c,) for p, c in cards.items()}


def slaps(*presses: tuple[str, int]) -> list[Slap]:
    return [Slap(p, t) for p, t in presses]


def std(cards: dict[str, tuple[Card, ...]], *presses: tuple[str, int], window: int = 0) -> Verdict:
    return judge(Mode.STANDARD, cards, slaps(*presses), window)


EXAMPLE = hands(ann=SE, bob=SH, cat=BF, dan=BF)  # the rulebook's four-player example


# ---------------------------------------------------------------- food chain (C1) --------


def test_c1_food_chain_low_to_high() -> None:
    assert FOOD_CHAIN == (P, S, LF, BF, SE, SH)


def test_c1_each_creature_chomps_exactly_what_is_below_it() -> None:
    for i, eater in enumerate(FOOD_CHAIN):
        assert [f for f in FOOD_CHAIN if can_chomp(eater, f)] == list(FOOD_CHAIN[:i])


def test_c1_creatures_cannot_chomp_their_own_kind() -> None:
    assert not any(can_chomp(c, c) for c in FOOD_CHAIN)


def test_c1_nobody_chomps_an_octopus_or_an_electric_eel() -> None:
    for eater in [*FOOD_CHAIN, OCT, EEL]:
        assert not can_chomp(eater, OCT)
        assert not can_chomp(eater, EEL)


def test_c1_plankton_chomps_nothing() -> None:
    assert not any(can_chomp(P, f) for f in Card)


# ---------------------------------------------------------------- deck and deal (C2) -----


def test_c2_deck_is_fifty_cards_of_the_stated_composition() -> None:
    deck = Counter(new_deck())
    assert DECK_SIZE == 50 == sum(deck.values())
    assert (
        deck
        == Counter({SH: 4, SE: 5, BF: 10, LF: 11, S: 8, P: 5, EEL: 3, OCT: 4})
        == Counter(DECK_COMPOSITION)
    )


def test_c2_three_players_get_sixteen_each_and_two_go_back_to_the_box() -> None:
    table = ChompTable.deal(["a", "b", "c"], random.Random(1))
    assert [table.count(p) for p in "abc"] == [16, 16, 16]
    assert len(table.box) == 2
    assert table.all_cards() + Counter(table.box) == Counter(new_deck())


def test_c2_deal_is_equal_and_the_remainder_is_out_of_play() -> None:
    for n in range(3, 8):
        game = ChompGame.new([f"p{i}" for i in range(n)])
        assert set(game.counts.values()) == {50 // n}
        assert game.dealt == 50 - 50 % n


# ---------------------------------------------------------------- the rulebook example ---


def test_rulebook_example_shark_chomps_first_and_takes_all_cards() -> None:
    v = std(EXAMPLE, ("bob", 100), ("ann", 5000))
    assert (v.outcome, v.winner) == (Outcome.WIN, "bob")
    assert v.chomped == ("ann", "cat", "dan") and v.returned == ()


def test_rulebook_example_seal_chomps_first_takes_big_fish_and_own_card() -> None:
    v = std(EXAMPLE, ("ann", 100), ("bob", 5000))
    assert v.winner == "ann"
    assert v.chomped == ("cat", "dan")
    assert v.returned == ("bob",)  # the shark goes to its owner's discard pile


def test_rulebook_example_only_seal_and_shark_may_chomp() -> None:
    v = std(EXAMPLE, ("cat", 50), ("ann", 100))
    assert v.bad_chomps == ("cat",)
    assert v.winner == "ann"


def test_rulebook_example_settles_counts_in_a_game() -> None:
    game = ChompGame.new(["ann", "bob", "cat", "dan"])
    game.play(Round(EXAMPLE, (Slap("ann", 100),)))
    assert game.counts == {"ann": 14, "bob": 12, "cat": 11, "dan": 11}
    assert game.total() == game.dealt


def test_rule_uncontested_card_goes_to_its_owners_discard_pile() -> None:
    table = ChompTable.deal(["ann", "bob", "cat", "dan"], random.Random(7))
    table.play(EXAMPLE, slaps(("ann", 10)))
    assert table.discards["bob"] == [SH]
    assert sorted(table.discards["ann"]) == sorted([SE, BF, BF])


# ---------------------------------------------------------------- slaps: C3, C4, C5, C6 --


def test_c3_the_lowest_card_owner_is_not_allowed_to_chomp() -> None:
    v = std(hands(a=P, b=S, c=LF), ("a", 10), ("b", 20))
    assert v.bad_chomps == ("a",) and v.winner == "b"


def test_bad_chomp_slapping_a_card_higher_than_yours() -> None:
    # A slap claims the lowest card. When yours is the lowest, every card you could hit is
    # higher than yours: a bad chomp.
    v = std(hands(a=S, b=SE, c=SH), ("a", 10))
    assert v.bad_chomps == ("a",) and v.winner is None


def test_bad_chomp_slapping_a_card_the_same_as_yours() -> None:
    v = std(hands(a=S, b=S, c=SH, d=SE), ("b", 10), ("d", 40))
    assert v.bad_chomps == ("b",) and v.winner == "d"


def test_bad_chomp_slapping_your_own_card() -> None:
    v = std(hands(a=LF, b=BF, c=SH), ("a", 10), ("c", 30))
    assert v.bad_chomps == ("a",) and v.winner == "c"


def test_bad_chomp_slapping_in_an_octopus_ink_out() -> None:
    v = std(hands(a=OCT, b=BF, c=SH), ("c", 10))
    assert v.outcome is Outcome.INK_OUT and v.bad_chomps == ("c",)


def test_c3_all_same_creature_every_slap_is_bad() -> None:
    v = std(hands(a=BF, b=BF, c=BF), ("a", 10), ("b", 99_000_000))
    assert v.outcome is Outcome.ALL_SAME and v.bad_chomps == ("a", "b")


def test_c4_false_start_before_reveal_is_a_bad_chomp() -> None:
    v = std(hands(a=P, b=SE, c=SH), ("c", -1), ("b", 300))
    assert v.bad_chomps == ("c",) and v.winner == "b"
    assert v.chomped == ("a", "c")  # the bad chomper's shark goes to the winner (C7)


def test_c4_slap_exactly_at_the_reveal_instant_is_valid() -> None:
    assert std(hands(a=P, b=SE, c=SH), ("c", 0)).winner == "c"


def test_c5_order_by_timestamp_never_by_arrival() -> None:
    # Arrival order lists dan first; his stamp is later.
    cards = hands(a=P, b=SE, c=SH, d=BF)
    late_first = [Slap("d", 900), Slap("c", 400)]
    assert judge(Mode.STANDARD, cards, late_first, 0).winner == "c"


def test_c5_slaps_within_tie_window_tie() -> None:
    v = std(hands(a=P, b=SE, c=SH), ("b", 1000), ("c", 1500), window=500)
    assert v.outcome is Outcome.TIE and v.tied == ("b", "c")


def test_c5_slaps_just_outside_tie_window_do_not_tie() -> None:
    v = std(hands(a=P, b=SE, c=SH), ("b", 1000), ("c", 1501), window=500)
    assert v.winner == "b"


def test_c5_tie_group_is_measured_from_the_earliest_valid_slap() -> None:
    # b at 0, c at 400, d at 800: d is within 500 of c but not of b, so only b and c tie.
    cards = hands(a=P, b=SE, c=SH, d=BF)
    v = std(cards, ("b", 0), ("c", 400), ("d", 800), window=500)
    assert v.tied == ("b", "c")


def test_c5_equal_timestamps_tie_even_with_zero_window() -> None:
    v = std(hands(a=P, b=SE, c=SH), ("b", 7), ("c", 7), window=0)
    assert v.outcome is Outcome.TIE


def test_c5_bad_slaps_never_join_a_tie_group() -> None:
    v = std(hands(a=P, b=SE, c=SH), ("a", 1000), ("b", 1100), window=500)
    assert v.winner == "b" and v.bad_chomps == ("a",)


def test_c6_round_decided_at_earliest_valid_slap_plus_window() -> None:
    v = std(hands(a=P, b=SE, c=SH), ("b", 1000), window=250)
    assert v.decided_at_us == 1250


def test_c6_slaps_after_the_decision_instant_are_ignored_not_bad() -> None:
    v = std(hands(a=P, b=SE, c=SH), ("b", 1000), ("a", 1300), window=250)
    assert v.bad_chomps == () and v.ignored == ("a",)
    assert v.chomped == ("a",)  # a's plankton is simply chomped by b, with no penalty


def test_c6_in_a_round_with_no_valid_slap_possible_every_slap_is_bad() -> None:
    v = std(hands(a=OCT, b=SE, c=SH), ("b", 10), ("c", 60_000_000))
    assert v.bad_chomps == ("b", "c")


# ---------------------------------------------------------------- bad chomps: C7 ---------


def test_c7_winner_takes_both_of_the_bad_chompers_cards() -> None:
    game = ChompGame.new(["a", "b", "c"], deal={"a": 5, "b": 5, "c": 5})
    r = game.play(Round(hands(a=P, b=SE, c=SH), (Slap("a", 5), Slap("b", 50))))
    assert r.moves.penalties == ("a",)
    # b: +own seal +a's plankton +a's penalty card; c keeps his shark.
    assert game.counts == {"a": 3, "b": 7, "c": 5}


def test_c7_winner_takes_a_bad_chompers_card_whatever_its_rank() -> None:
    v = std(hands(a=P, b=LF, c=SH), ("c", -5), ("b", 50))
    assert v.winner == "b" and "c" in v.chomped  # a shark, higher than b's little fish


def test_c7_with_no_winner_bad_chompers_cards_stay_in_the_pot() -> None:
    game = ChompGame.new(["a", "b", "c"], deal={"a": 5, "b": 5, "c": 5})
    r = game.play(Round(hands(a=P, b=SE, c=SH), (Slap("a", 5),)))
    assert r.verdict.outcome is Outcome.NO_WINNER
    assert game.pot == 2 and game.counts == {"a": 3, "b": 5, "c": 5}


def test_c7_next_rounds_winner_takes_the_bad_chomp_pot() -> None:
    game = ChompGame.new(["a", "b", "c"], deal={"a": 5, "b": 5, "c": 5})
    game.play(Round(hands(a=P, b=SE, c=SH), (Slap("a", 5),)))
    game.play(Round(hands(a=S, b=LF, c=BF), (Slap("b", 5),)))
    assert game.pot == 0
    assert game.counts == {"a": 2, "b": 5 + 1 + 2, "c": 5}


def test_c7_only_the_first_press_counts_so_one_penalty_at_most() -> None:
    game = ChompGame.new(["a", "b", "c"], deal={"a": 5, "b": 5, "c": 5})
    presses = (Slap("a", 5), Slap("a", 6), Slap("a", 7), Slap("b", 50))
    r = game.play(Round(hands(a=P, b=SE, c=SH), presses))
    assert r.moves.penalties == ("a",) and game.counts["a"] == 3


def test_c7_a_bad_chomper_cannot_win_by_a_later_slap() -> None:
    # c false-starts, then slaps validly at 10: only the false start counts.
    v = std(hands(a=P, b=SE, c=SH), ("c", -3), ("c", 10), ("b", 400))
    assert v.winner == "b" and v.bad_chomps == ("c",)


def test_c7_bad_chomper_with_no_card_left_owes_nothing() -> None:
    game = ChompGame.new(["a", "b", "c"], deal={"a": 1, "b": 5, "c": 5})
    r = game.play(Round(hands(a=P, b=SE, c=SH), (Slap("a", 5), Slap("b", 50))))
    assert r.moves.penalties == ()
    assert game.counts == {"a": 0, "b": 6, "c": 5}


# ---------------------------------------------------------------- normal round: C8 -------


def test_c8_winner_takes_own_card_lower_cards_and_the_pot() -> None:
    game = ChompGame.new(["a", "b", "c", "d"], deal=dict.fromkeys("abcd", 6))
    game.pot = 4
    game.dealt += 4
    game.play(Round(hands(a=P, b=LF, c=SE, d=SH), (Slap("b", 10),)))
    assert game.counts == {"a": 5, "b": 6 + 1 + 4, "c": 6, "d": 6}


def test_c8_cards_equal_or_higher_than_the_winners_go_back_to_their_owners() -> None:
    v = std(hands(a=P, b=LF, c=LF, d=SH), ("b", 10))
    assert v.chomped == ("a",) and v.returned == ("c", "d")


def test_c8_all_the_same_creature_is_set_aside() -> None:
    game = ChompGame.new(["a", "b", "c"], deal={"a": 5, "b": 5, "c": 5})
    r = game.play(Round(hands(a=SE, b=SE, c=SE)))
    assert r.verdict.outcome is Outcome.ALL_SAME and r.verdict.set_aside
    assert game.pot == 3


def test_c8_all_but_one_lowest_wins_automatically() -> None:
    v = std(hands(a=S, b=S, c=SH))
    assert (v.outcome, v.winner, v.reason) == (Outcome.WIN, "c", Reason.AUTOMATIC)
    assert v.chomped == ("a", "b")


def test_c8_automatic_winners_own_presses_are_ignored_and_others_are_bad() -> None:
    v = std(hands(a=S, b=S, c=SH), ("c", -10), ("a", 40))
    assert v.winner == "c" and v.ignored == ("c",) and v.bad_chomps == ("a",)


def test_c8_a_slap_is_needed_when_two_or_more_may_chomp() -> None:
    v = std(hands(a=S, b=SE, c=SH))
    assert v.outcome is Outcome.NO_WINNER and v.winner is None


# ---------------------------------------------------------------- action cards C9, C10 ---


def test_c9_electric_eel_first_slap_takes_every_card() -> None:
    v = std(hands(a=EEL, b=P, c=SH), ("b", 30))
    assert (v.winner, v.reason) == ("b", Reason.FEEDING_FRENZY)
    assert v.chomped == ("a", "c")  # even the shark, higher on the chain


def test_c9_eel_owner_may_slap_too() -> None:
    assert std(hands(a=EEL, b=P, c=SH), ("a", 30), ("c", 900)).winner == "a"


def test_c9_feeding_frenzy_takes_the_pot_too() -> None:
    game = ChompGame.new(["a", "b", "c"], deal={"a": 5, "b": 5, "c": 5})
    game.play(Round(hands(a=OCT, b=P, c=SH)))  # ink-out: 3 to the pot
    game.play(Round(hands(a=EEL, b=P, c=SH), (Slap("b", 1),)))
    assert game.pot == 0 and game.counts == {"a": 3, "b": 3 + 6, "c": 3}


def test_c9_eel_beats_octopus_when_both_show() -> None:
    v = std(hands(a=EEL, b=OCT, c=SH), ("c", 30))
    assert v.winner == "c" and v.reason is Reason.FEEDING_FRENZY


def test_c9_false_start_in_a_feeding_frenzy_is_bad() -> None:
    v = std(hands(a=EEL, b=P, c=SH), ("c", -30), ("b", 10))
    assert v.bad_chomps == ("c",) and v.winner == "b"


def test_c10_octopus_ink_out_sets_all_cards_aside() -> None:
    game = ChompGame.new(["a", "b", "c"], deal={"a": 5, "b": 5, "c": 5})
    r = game.play(Round(hands(a=OCT, b=P, c=SH)))
    assert r.verdict.outcome is Outcome.INK_OUT and game.pot == 3


def test_c10_next_winner_takes_pot_and_what_she_may_chomp_rest_returns() -> None:
    game = ChompGame.new(["a", "b", "c"], deal={"a": 5, "b": 5, "c": 5})
    game.play(Round(hands(a=OCT, b=P, c=SH)))
    r = game.play(Round(hands(a=P, b=SE, c=SH), (Slap("b", 10),)))
    assert r.verdict.returned == ("c",)
    assert game.pot == 0 and game.counts == {"a": 3, "b": 3 + 2 + 3, "c": 4}


def test_c10_bad_chompers_penalty_in_an_ink_out_joins_the_pot() -> None:
    game = ChompGame.new(["a", "b", "c"], deal={"a": 5, "b": 5, "c": 5})
    game.play(Round(hands(a=OCT, b=P, c=SH), (Slap("c", 10),)))
    assert game.pot == 4 and game.counts["c"] == 3


# ---------------------------------------------------------------- ties, no winner --------


def test_c11_tie_round_cards_go_to_the_pot_and_next_winner_takes_them() -> None:
    game = ChompGame.new(["a", "b", "c"], deal={"a": 5, "b": 5, "c": 5})
    game.play(Round(hands(a=P, b=SE, c=SH), (Slap("b", 10), Slap("c", 10))))
    assert game.pot == 3
    game.play(Round(hands(a=S, b=SH, c=SE), (Slap("c", 10),)))
    # c takes the tie pot and a's shrimp; b's shark is higher and goes home.
    assert game.counts == {"a": 3, "b": 4, "c": 3 + 2 + 3} and game.pot == 0


def test_rule_tie_breaker_cards_she_cannot_chomp_are_reclaimed() -> None:
    v = std(hands(a=S, b=SH, c=SE), ("c", 10))
    assert v.returned == ("b",)


def test_c12_no_valid_slap_before_timeout_cards_go_home() -> None:
    game = ChompGame.new(["a", "b", "c"], deal={"a": 5, "b": 5, "c": 5})
    game.pot = 2
    game.dealt += 2
    r = game.play(Round(hands(a=P, b=SE, c=SH)))
    assert r.verdict.outcome is Outcome.NO_WINNER and r.verdict.reason is Reason.TIMEOUT
    assert game.counts == {"a": 5, "b": 5, "c": 5} and game.pot == 2


# ---------------------------------------------------------------- FAQ --------------------


def test_faq_all_players_turn_over_the_same_card() -> None:
    game = ChompGame.new(["a", "b", "c"], deal={"a": 5, "b": 5, "c": 5})
    game.play(Round(hands(a=LF, b=LF, c=LF)))
    game.play(Round(hands(a=P, b=SH, c=SE), (Slap("b", 1),)))
    # b gets what she may chomp (plankton, seal) plus the three little fish.
    assert game.counts == {"a": 3, "b": 3 + 3 + 3, "c": 3}


def test_faq_several_players_show_the_lowest_creature_they_may_not_chomp() -> None:
    v = std(hands(a=S, b=S, c=SE, d=SH), ("a", 1), ("b", 2), ("c", 3))
    assert v.bad_chomps == ("a", "b") and v.winner == "c"


def test_faq_all_but_one_showing_lowest_the_high_card_wins_automatically() -> None:
    v = std(hands(a=BF, b=BF, c=BF, d=SE))
    assert v.winner == "d" and v.chomped == ("a", "b", "c")


# ---------------------------------------------------------------- the end: C13, C15 ------


def test_c13_empty_pile_is_refilled_from_the_shuffled_discard_pile() -> None:
    table = ChompTable.deal(["a", "b", "c"], random.Random(3))
    for _ in range(16):  # play every card once: piles run out
        cards = table.reveal()
        table.play(cards)
        if table.game.over:
            break
    if not table.game.over:
        live = table.game.active[0]
        assert not table.piles[live]
        before = table.count(live)
        table.reveal()
        assert table.reshuffles >= 1 and table.count(live) == before - 1


def test_c13_player_with_no_cards_is_out_in_order() -> None:
    game = ChompGame.new(["a", "b", "c", "d"], deal={"a": 1, "b": 1, "c": 5, "d": 5})
    r = game.play(Round(hands(a=P, b=S, c=SE, d=SH), (Slap("c", 1),)))
    assert r.went_out == ("a", "b") and game.out == ["a", "b"]


def test_c13_last_two_count_cards_more_wins() -> None:
    game = ChompGame.new(["a", "b", "c"], deal={"a": 1, "b": 5, "c": 5})
    game.play(Round(hands(a=P, b=SE, c=SH), (Slap("b", 1),)))
    assert game.over and game.winner == "b"  # 7 cards against 4


def test_c13_last_two_count_equal_is_a_draw() -> None:
    game = ChompGame.new(["a", "b", "c"], deal={"a": 1, "b": 4, "c": 5})
    game.play(Round(hands(a=P, b=SE, c=SH), (Slap("b", 1),)))
    assert game.counts == {"a": 0, "b": 5, "c": 5}
    assert game.over and game.winner is None


@pytest.mark.parametrize("end", ["underwater_war", "quick_chomp", "double_chomp"])
def test_c13_last_two_switch_to_a_two_player_game(end: str) -> None:
    game = ChompGame.new(
        ["a", "b", "c"], two_player_end=TwoPlayerEnd(end), deal={"a": 1, "b": 5, "c": 5}
    )
    game.play(Round(hands(a=P, b=SE, c=SH), (Slap("b", 1),)))
    assert not game.over and game.mode is Mode(end) and game.active == ("b", "c")


def test_c15_one_player_left_wins() -> None:
    game = ChompGame.new(["a", "b"], mode=Mode.UNDERWATER_WAR, deal={"a": 3, "b": 1})
    game.play(Round(hands(a=SH, b=P)))
    assert game.over and game.winner == "a" and game.out == ["b"]


def test_c15_war_moves_up_to_two_more_cards_from_each_player() -> None:
    game = ChompGame.new(["a", "b"], mode=Mode.UNDERWATER_WAR, deal={"a": 5, "b": 2})
    game.play(Round(hands(a=SE, b=SE)))
    assert game.pot == 2 + 2 + 1 and game.counts == {"a": 2, "b": 0}


def test_c15_rounds_after_the_game_is_over_are_refused() -> None:
    game = ChompGame.new(["a", "b"], mode=Mode.UNDERWATER_WAR, deal={"a": 3, "b": 1})
    game.play(Round(hands(a=SH, b=P)))
    with pytest.raises(ValueError, match="over"):
        game.play(Round(hands(a=SH)))


def test_c16_cards_are_conserved_through_a_seeded_game() -> None:
    rng = random.Random(11)
    table = ChompTable.deal(["a", "b", "c", "d"], rng, two_player_end=TwoPlayerEnd.QUICK_CHOMP)
    start = table.all_cards()
    for _ in range(300):
        if table.game.over:
            break
        cards = table.reveal()
        presses = [Slap(p, rng.randint(-200, 3000)) for p in cards if rng.random() < 0.6]
        table.play(cards, presses)
        assert table.game.total() == table.game.dealt == sum(table.all_cards().values())
        assert table.all_cards() == start


def test_standard_needs_three_players() -> None:
    with pytest.raises(RuleError, match="3"):
        ChompGame.new(["a", "b"])


# ---------------------------------------------------------------- two-player games: C14 --


def test_c14_underwater_war_higher_card_takes_both() -> None:
    v = judge(Mode.UNDERWATER_WAR, hands(a=LF, b=SE), [])
    assert (v.winner, v.reason, v.chomped) == ("b", Reason.HIGHER_CARD, ("a",))


def test_c14_underwater_war_any_slap_is_bad() -> None:
    v = judge(Mode.UNDERWATER_WAR, hands(a=LF, b=SE), slaps(("a", 10), ("b", 20)))
    assert v.bad_chomps == ("a",) and v.ignored == ("b",) and v.winner == "b"


def test_c14_underwater_war_equal_creatures_war() -> None:
    game = ChompGame.new(["a", "b"], mode=Mode.UNDERWATER_WAR, deal={"a": 10, "b": 10})
    r = game.play(Round(hands(a=BF, b=BF)))
    assert r.verdict.outcome is Outcome.WAR and game.pot == 6
    game.play(Round(hands(a=S, b=SH)))  # the next face-up card decides all
    assert game.counts == {"a": 6, "b": 14} and game.pot == 0


def test_c14_underwater_war_eel_first_slap_takes_all() -> None:
    v = judge(Mode.UNDERWATER_WAR, hands(a=EEL, b=SH), slaps(("a", 90), ("b", 3000)))
    assert v.winner == "a" and v.reason is Reason.FEEDING_FRENZY


def test_c14_underwater_war_octopus_then_next_higher_card_takes_all() -> None:
    game = ChompGame.new(["a", "b"], mode=Mode.UNDERWATER_WAR, deal={"a": 5, "b": 5})
    assert game.play(Round(hands(a=OCT, b=SH))).verdict.outcome is Outcome.INK_OUT
    game.play(Round(hands(a=SE, b=P)))
    assert game.counts == {"a": 3 + 2 + 2, "b": 3}


def test_c14_quick_chomp_first_slap_takes_both_whoever_turned_it() -> None:
    v = judge(Mode.QUICK_CHOMP, hands(a=P, b=SH), slaps(("a", 70), ("b", 900)))
    assert v.winner == "a" and v.chomped == ("b",)


def test_c14_quick_chomp_equal_creatures_war() -> None:
    v = judge(Mode.QUICK_CHOMP, hands(a=S, b=S), slaps(("a", 70)))
    assert v.outcome is Outcome.WAR and v.bad_chomps == ("a",)


def test_c14_quick_chomp_after_war_next_round_is_underwater_war() -> None:
    v = judge(Mode.QUICK_CHOMP, hands(a=P, b=SH), slaps(("a", 70)), previous=Outcome.WAR)
    assert v.winner == "b" and v.reason is Reason.HIGHER_CARD and v.bad_chomps == ("a",)


def test_c14_quick_chomp_after_ink_out_next_round_is_underwater_war() -> None:
    game = ChompGame.new(["a", "b"], mode=Mode.QUICK_CHOMP, deal={"a": 5, "b": 5})
    game.play(Round(hands(a=OCT, b=P), (Slap("a", 5),)))  # ink-out, a's slap bad
    r = game.play(Round(hands(a=SH, b=LF), (Slap("b", 5),)))
    assert r.verdict.winner == "a" and r.verdict.bad_chomps == ("b",)
    assert game.total() == game.dealt and game.pot == 0


def test_c14_quick_chomp_eel_first_slap_takes_all() -> None:
    v = judge(Mode.QUICK_CHOMP, hands(a=EEL, b=SH), slaps(("b", 1)))
    assert v.winner == "b" and v.reason is Reason.FEEDING_FRENZY


def test_c14_quick_chomp_octopus_slap_is_bad() -> None:
    v = judge(Mode.QUICK_CHOMP, hands(a=OCT, b=SH), slaps(("b", 1)))
    assert v.outcome is Outcome.INK_OUT and v.bad_chomps == ("b",)


def test_c14_double_chomp_first_valid_slap_takes_all_four() -> None:
    game = ChompGame.new(["a", "b"], mode=Mode.DOUBLE_CHOMP, deal={"a": 10, "b": 10})
    r = game.play(Round(hands(a=(P, SH), b=(SE, LF)), (Slap("b", 40),)))
    assert r.verdict.winner == "b" and game.counts == {"a": 8, "b": 12}


def test_c14_double_chomp_slap_is_bad_when_lowest_is_among_your_cards() -> None:
    v = judge(Mode.DOUBLE_CHOMP, hands(a=(P, SH), b=(SE, LF)), slaps(("a", 1), ("b", 40)))
    assert v.bad_chomps == ("a",) and v.winner == "b"


def test_c14_double_chomp_has_no_automatic_win() -> None:
    v = judge(Mode.DOUBLE_CHOMP, hands(a=(P, SH), b=(SE, LF)), [])
    assert v.outcome is Outcome.NO_WINNER


def test_c14_double_chomp_both_show_the_lowest_all_same() -> None:
    v = judge(Mode.DOUBLE_CHOMP, hands(a=(S, SH), b=(S, P)), slaps(("a", 5)))
    assert v.winner == "a"  # plankton is lowest and only b shows it: not all_same
    v = judge(Mode.DOUBLE_CHOMP, hands(a=(P, SH), b=(SE, P)), slaps(("a", 5)))
    assert v.outcome is Outcome.ALL_SAME and v.bad_chomps == ("a",)


def test_c14_double_chomp_eel_and_octopus_as_in_the_normal_game() -> None:
    eel = judge(Mode.DOUBLE_CHOMP, hands(a=(OCT, SH), b=(EEL, P)), slaps(("a", 5)))
    assert eel.winner == "a" and eel.reason is Reason.FEEDING_FRENZY
    ink = judge(Mode.DOUBLE_CHOMP, hands(a=(OCT, SH), b=(BF, P)), slaps(("a", 5)))
    assert ink.outcome is Outcome.INK_OUT and ink.bad_chomps == ("a",)


def test_c14_double_chomp_player_with_one_card_shows_one() -> None:
    game = ChompGame.new(["a", "b"], mode=Mode.DOUBLE_CHOMP, deal={"a": 1, "b": 9})
    assert game.hand_size("a") == 1
    game.play(Round(hands(a=P, b=(SE, LF)), (Slap("b", 3),)))
    assert game.over and game.winner == "b"


def test_c14_standard_ink_out_does_not_make_the_first_quick_chomp_round_underwater_war() -> None:
    game = ChompGame.new(
        ["a", "b", "c"], two_player_end=TwoPlayerEnd.QUICK_CHOMP, deal={"a": 1, "b": 3, "c": 3}
    )
    game.play(Round(hands(a=OCT, b=SH, c=SE)))  # ink-out, a is out, quick_chomp begins
    assert game.mode is Mode.QUICK_CHOMP and game.pot == 3
    r = game.play(Round(hands(b=P, c=SH), (Slap("b", 5),)))
    assert r.verdict.winner == "b" and r.verdict.reason is Reason.SLAP  # a quick_chomp race
    assert game.pot == 0 and game.total() == game.dealt


def test_c15_everyone_out_at_once_is_a_draw_with_the_cards_in_the_pot() -> None:
    game = ChompGame.new(["a", "b", "c"], deal={"a": 1, "b": 1, "c": 1})
    game.play(Round(hands(a=P, b=P, c=P)))
    assert game.over and game.winner is None and game.pot == 3 and game.out == ["a", "b", "c"]
