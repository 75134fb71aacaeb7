"""Get Bit!: the rulebook's example and one named test per house ruling G1-G7.

Rulebook: the Get Bit! rulebook. Rulings: docs/rulings.md.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from companion.errors import InputError, RuleError
from companion.files import read_json
from companion.games.getbit import (
    GetBit,
    PlayError,
    Setup,
    SetupError,
    default_robots,
    move,
    random_line,
    replay,
)
from companion.games.getbit.formats import replay_from_dict, state_from_dict
from companion.games.getbit.text import round_lines, table_lines

ROOT = Path(__file__).resolve().parent.parent
FOUR = {r: r for r in ("john", "anne", "beth", "ted")}
EXAMPLE_FILE = ROOT / "examples" / "getbit-rulebook.json"


def setup(robots: dict[str, str] | None = None, line: tuple[str, ...] = (), **kw: Any) -> Setup:
    robots = FOUR if robots is None else robots
    return Setup(robots, line or tuple(robots), **kw)


def midgame(
    robots: dict[str, str] | None = None,
    line: tuple[str, ...] = (),
    limbs: dict[str, float] | None = None,
    rounds: int = 5,
    **kw: Any,
) -> GetBit:
    """A state after some rounds: full hands, chosen limbs (so a bite can end a game)."""
    s = setup(robots, line, **kw)
    state = GetBit.new(s).to_dict()
    state["round"] = rounds
    state["limbs"].update(limbs or {})
    return state_from_dict(state)


def edit(state: GetBit, **changes: dict[str, Any]) -> GetBit:
    """The same state with some robots' limbs, hands or played cards changed."""
    raw = state.to_dict()
    for key, values in changes.items():
        raw[key] = {**raw[key], **values}
    return state_from_dict(raw)


def same_card(state: GetBit, card: int | None = None) -> dict[str, int]:
    """Everyone ties (on 3, or a card all still hold): nobody moves, the back one is bitten."""
    if card is None:
        held = set.intersection(*(set(state.hands[r]) for r in state.line))
        card = 3 if 3 in held else min(held)
    return dict.fromkeys(state.line, card)


# ------------------------------------------------------------- the rulebook example -----


def test_rulebook_example_round_john_anne_beth_ted() -> None:
    """Anne (1) then Ted (5) move; John and Beth tie on 4 and stay; Beth is at the back,
    bitten, to the front with her cards; Ted, down to one card, picks his up."""
    game = replay_from_dict(read_json(str(EXAMPLE_FILE)))
    before = replay(game.setup, game.rounds[:3]).state
    assert before.line.index("john") < before.line.index("beth")  # Beth behind John
    assert before.hands["ted"] == (3, 5) and len(before.played["ted"]) == 3
    after, result = before.play({"john": 4, "anne": 1, "beth": 4, "ted": 5})
    assert result.moved == ("anne", "ted")
    assert result.stayed == ("john", "beth")
    assert move(before.line, result.cards)[0] == ("ted", "anne", "john", "beth")
    assert result.bitten == "beth"
    assert after.limbs("beth") == 3
    assert after.line == ("beth", "ted", "anne", "john")
    assert after.hands["beth"] == (1, 2, 3, 4, 5) and after.played["beth"] == ()
    assert result.picked_up == ("ted",)
    assert after.hands["ted"] == (1, 2, 3, 4, 5) and after.played["ted"] == ()
    # "All other players leave their played cards on the table."
    assert after.played["john"] == (4,) and after.played["anne"] == (5, 1)
    assert after == game.state


def test_rulebook_example_as_replay_output() -> None:
    out = replay_from_dict(read_json(str(EXAMPLE_FILE))).to_dict()
    assert set(out) == {"line", "limbs", "hands", "out", "winner", "rounds"}
    assert out["rounds"][-1] == {"moved": ["anne", "ted"], "bitten": "beth", "out": []}
    assert out["line"] == ["beth", "ted", "anne", "john"]
    assert out["winner"] is None and out["out"] == []


# ---------------------------------------------------------------------- G1 hands --------


@pytest.mark.parametrize(("players", "cards"), [(4, 5), (5, 6), (6, 7)])
def test_g1_hands_by_number_of_robots(players: int, cards: int) -> None:
    robots = default_robots([f"p{i}" for i in range(players)])
    s = Setup(robots, tuple(robots))
    assert s.full_hand == tuple(range(1, cards + 1))
    assert all(h == s.full_hand for h in GetBit.new(s).hands.values())


def test_g1_two_players_play_two_robots_each_with_cards_1_to_5() -> None:
    robots = default_robots(["ann", "bob"])
    assert robots == {"ann-1": "ann", "bob-1": "bob", "ann-2": "ann", "bob-2": "bob"}
    s = Setup(robots, tuple(robots))
    assert s.players == ("ann", "bob") and s.full_hand == (1, 2, 3, 4, 5)


def test_g1_three_players_play_two_robots_each_with_cards_1_to_7() -> None:
    robots = default_robots(["ann", "bob", "cat"])
    s = Setup(robots, tuple(robots))
    assert len(s.robots) == 6 and s.full_hand == tuple(range(1, 8))
    assert s.robots_of("cat") == ("cat-1", "cat-2")


@pytest.mark.parametrize(
    "robots",
    [
        {"a": "ann"},  # one player
        {"a": "ann", "b": "bob", "c": "ann", "d": "bob", "e": "ann", "f": "bob"},  # 3 each
        {"a": "ann", "b": "bob"},  # two players need two robots each
        {"a": "ann", "b": "bob", "c": "cat", "d": "dan", "e": "dan"},  # 4 players, one each
        {f"r{i}": f"p{i}" for i in range(7)},  # seven players
    ],
)
def test_g1_robot_counts_outside_the_rules_are_refused(robots: dict[str, str]) -> None:
    with pytest.raises(SetupError) as err:
        Setup(robots, tuple(robots))
    assert err.value.key == "robots"


def test_setup_line_holds_every_robot_exactly_once() -> None:
    for line in [("john", "anne", "beth"), ("john", "anne", "beth", "beth"), ("x", *FOUR)]:
        with pytest.raises(SetupError) as err:
            Setup(FOUR, line)
        assert err.value.key == "line"


def test_setup_random_line_comes_from_the_callers_generator() -> None:
    assert random_line(FOUR, random.Random(7)) == random_line(FOUR, random.Random(7))
    assert sorted(random_line(FOUR, random.Random(7))) == sorted(FOUR)


# ----------------------------------------------------------------------- G2 move --------


def test_g2_untied_robots_move_lowest_first_so_the_highest_is_at_the_front() -> None:
    state = GetBit.new(setup(line=("john", "anne", "beth", "ted")))
    after, result = state.play({"john": 2, "anne": 5, "beth": 1, "ted": 3})
    assert result.moved == ("beth", "john", "ted", "anne")  # the order they moved
    assert after.line == ("anne", "ted", "john", "beth")


def test_g2_tied_robots_keep_their_places() -> None:
    state = GetBit.new(setup(line=("john", "anne", "beth", "ted")))
    after, result = state.play({"john": 4, "anne": 2, "beth": 2, "ted": 4})
    assert result.moved == () and after.line == state.line
    after, result = state.play({"john": 4, "anne": 2, "beth": 5, "ted": 4})
    assert result.moved == ("anne", "beth")
    assert after.line == ("beth", "anne", "john", "ted")  # john still before ted


def test_g2_tied_robots_stay_behind_every_robot_that_moved() -> None:
    state = GetBit.new(setup(line=("john", "anne", "beth", "ted")))
    after, result = state.play({"john": 1, "anne": 1, "beth": 3, "ted": 2})
    assert result.moved == ("ted", "beth") and result.stayed == ("john", "anne")
    assert after.line == ("beth", "ted", "john", "anne")


# ----------------------------------------------------------------------- G3 bite --------


def test_g3_no_bite_in_the_first_round() -> None:
    state = GetBit.new(setup())
    after, result = state.play(same_card(state))
    assert result.bitten is None
    assert all(after.limbs(r) == 4 for r in FOUR)


def test_g3_back_robot_loses_a_limb_goes_to_the_front_and_takes_back_its_cards() -> None:
    state = GetBit.new(setup(line=("john", "anne", "beth", "ted")))
    state, _ = state.play({"john": 1, "anne": 1, "beth": 2, "ted": 2})
    after, result = state.play({"john": 3, "anne": 3, "beth": 4, "ted": 4})
    assert result.bitten == "ted"
    assert after.limbs("ted") == 3
    assert after.line == ("ted", "john", "anne", "beth")
    assert after.hands["ted"] == (1, 2, 3, 4, 5) and after.played["ted"] == ()
    assert after.played["beth"] == (2, 4)  # the others' played cards stay


def test_g3_robot_at_zero_limbs_is_eliminated_and_leaves_the_line() -> None:
    robots = {r: r for r in ("a", "b", "c", "d", "e")}
    state = midgame(robots, limbs={"e": 1})
    after, result = state.play(same_card(state))
    assert result.bitten == "e" and result.out == ("e",)
    assert after.line == ("a", "b", "c", "d") and after.out == ("e",)
    assert after.limbs("e") == 0 and not after.over


def test_g3_longer_games_a_bite_takes_half_a_limb() -> None:
    state = midgame(longer_games=True)
    after, result = state.play(same_card(state))
    assert after.limbs(result.bitten or "") == 3.5
    assert "███▌" in "\n".join(table_lines(after))


@pytest.mark.parametrize(("longer", "bites"), [(False, 4), (True, 8)])
def test_g3_a_robot_lasts_four_bites_or_eight_in_longer_games(longer: bool, bites: int) -> None:
    limbs: float = 4
    for n in range(1, 10):
        state = midgame(limbs={"ted": limbs}, longer_games=longer)  # ted at the back
        state, result = state.play(same_card(state))
        assert result.bitten == "ted"
        limbs = state.limbs("ted")
        if result.out:
            assert (n, limbs, state.out) == (bites, 0, ("ted",))
            break
    else:
        pytest.fail("ted never went out")


# -------------------------------------------------------------------- G4 pick-up --------


def test_g4_robot_left_with_one_card_takes_back_its_played_cards() -> None:
    state = edit(midgame(), hands={"ted": [3, 5]}, played={"ted": [1, 2, 4]})
    after, result = state.play({"john": 1, "anne": 1, "beth": 2, "ted": 5})
    assert result.bitten != "ted" and result.picked_up == ("ted",)
    assert after.hands["ted"] == (1, 2, 3, 4, 5) and after.played["ted"] == ()
    assert after.played["john"] == (1,)  # two cards or more left: played cards stay


def test_g4_robot_with_two_cards_left_keeps_playing_by_default() -> None:
    state = edit(midgame(), hands={"ted": [2, 3, 5]}, played={"ted": [1, 4]})
    after, result = state.play({"john": 1, "anne": 1, "beth": 2, "ted": 5})
    assert result.picked_up == () and after.hands["ted"] == (2, 3)


def test_g4_pickup_at_two_as_the_rulebook_text_says() -> None:
    s = setup(pickup_at=2)
    state = GetBit.new(s)
    for card in (5, 4):
        state, result = state.play(dict.fromkeys(state.line, card))
    assert result.bitten == "ted"  # round 2's bite: ted holds his whole hand again
    state, result = state.play(dict.fromkeys(state.line, 3))
    assert result.bitten == "beth"
    assert result.picked_up == ("john", "anne")  # left with 1 and 2: "only two cards"
    assert state.hands["john"] == (1, 2, 3, 4, 5)
    assert state.hands["ted"] == (1, 2, 4, 5)


def test_g4_pickup_also_after_the_first_round() -> None:
    state = GetBit.new(setup(pickup_at=4))
    after, result = state.play(same_card(state))
    assert result.bitten is None and result.picked_up == tuple(FOUR)


def test_g4_bitten_robot_is_not_counted_as_picking_up() -> None:
    state = midgame(pickup_at=4)
    after, result = state.play(same_card(state))
    assert result.bitten == "ted" and "ted" not in result.picked_up
    assert set(result.picked_up) == {"john", "anne", "beth"}


def test_g4_pickup_at_must_leave_a_card_to_play() -> None:
    for bad in (-1, 5):
        with pytest.raises(SetupError) as err:
            setup(pickup_at=bad)
        assert err.value.key == "pickup_at"


# ------------------------------------------------------------------------ G5 end --------


def test_g5_four_players_two_left_shark_eats_the_back_one_front_one_wins() -> None:
    state = midgame(line=("john", "anne", "beth", "ted"), limbs={"ted": 1})
    state, result = state.play(same_card(state))
    assert result.out == ("ted",) and not state.over
    state = edit(state, limbs={"beth": 1})
    after, result = state.play({"john": 5, "anne": 1, "beth": 1})
    # john moves to the front; anne and beth tie, beth is bitten and out; anne is eaten.
    assert result.bitten == "beth"
    assert result.eaten == "anne"
    assert result.out == ("beth", "anne")  # the robot eaten at the end comes last
    assert after.out == ("ted", "beth", "anne")
    assert after.line == ("john",) and after.winner == "john"
    assert after.limbs("anne") == 0


def test_g5_six_players_game_goes_on_until_two_robots_are_left() -> None:
    robots = {r: r for r in "abcdef"}
    state = midgame(robots, limbs=dict.fromkeys("abcdef", 1))
    outs = []
    while not state.over:
        state, result = state.play(same_card(state))
        outs.append(result.out)
    assert [len(o) for o in outs] == [1, 1, 1, 2]
    assert len(state.line) == 1 and state.winner == state.line[0]


def test_g5_two_players_the_first_robot_eliminated_loses_its_owner_the_game() -> None:
    robots = {"red": "ann", "blue": "bob", "green": "ann", "yellow": "bob"}
    state = midgame(robots, line=("red", "blue", "yellow", "green"), limbs={"green": 1})
    after, result = state.play(same_card(state))
    assert result.out == ("green",) and result.eaten is None
    assert after.winner == "bob"
    assert after.line == ("red", "blue", "yellow")  # the others keep their places and limbs


def test_g5_three_players_front_most_robot_the_loser_does_not_own_wins() -> None:
    robots = {"r1": "ann", "r2": "bob", "r3": "cat", "r4": "ann", "r5": "bob", "r6": "cat"}
    line = ("r1", "r3", "r5", "r2", "r6", "r4")
    state = midgame(robots, line=line, limbs={"r4": 1})
    after, result = state.play(same_card(state))
    assert result.out == ("r4",)
    # ann lost; r1 (ann's) is at the very front, so the next robot, r3, wins for cat.
    assert after.line[0] == "r1" and after.winner == "cat"


def test_g5_the_game_ends_at_the_bite_before_any_pickup() -> None:
    robots = {"red": "ann", "blue": "bob", "green": "ann", "yellow": "bob"}
    s = midgame(robots, line=("red", "blue", "yellow", "green"), limbs={"green": 1}, pickup_at=4)
    after, result = s.play(same_card(s))  # everyone is left with 4 cards: the pick-up mark
    assert after.over and result.picked_up == ()
    assert after.hands["red"] == (1, 2, 4, 5)


def test_g5_rounds_after_the_game_is_over_are_refused() -> None:
    robots = {"red": "ann", "blue": "bob", "green": "ann", "yellow": "bob"}
    state = midgame(robots, limbs={"yellow": 1})
    state, _ = state.play(same_card(state))
    assert state.over
    with pytest.raises(PlayError, match="already over"):
        state.play(same_card(GetBit.new(state.setup)))


# --------------------------------------------------------------------- G6 memory --------


def test_g6_memory_hides_played_cards_from_the_display_only() -> None:
    game = read_json(str(EXAMPLE_FILE))
    shown = replay_from_dict(game)
    hidden = replay_from_dict({**game, "memory": True})
    # The engine knows every card either way.
    assert hidden.state.played == shown.state.played
    assert hidden.state.hands == shown.state.hands
    assert hidden.to_dict() == shown.to_dict()
    # The display shows no card number at all: a hand would give the played cards away.
    hidden_text = table_lines(hidden.state) + round_lines(hidden.results[-1], hidden.state)
    shown_text = table_lines(shown.state) + round_lines(shown.results[-1], shown.state)
    assert "  3. anne  ███· 3 limbs    hand 3 cards, 2 played face down" in hidden_text
    assert "Round 4: cards revealed" in hidden_text
    assert "  anne, then ted to the front; john and beth tied and stay" in hidden_text
    # Without memory the same lines carry the numbers.
    assert "  3. anne  ███· 3 limbs    hand 2 3 4      played 5 1" in shown_text
    assert "Round 4: john 4 · anne 1 · beth 4 · ted 5" in shown_text
    assert "  anne (1), then ted (5) to the front; john and beth tied on 4 and stay" in shown_text


# ----------------------------------------------------------------- G7 illegal play ------


def test_g7_card_not_in_hand_is_refused_naming_round_robot_and_card() -> None:
    state = GetBit.new(setup())
    state, _ = state.play({"john": 3, "anne": 2, "beth": 5, "ted": 1})
    before = state.to_dict()
    with pytest.raises(PlayError) as err:
        state.play({"john": 3, "anne": 1, "beth": 2, "ted": 4})
    assert str(err.value) == "round 2: john cannot play 3: not in its hand (1, 2, 4, 5)"
    assert (err.value.round_no, err.value.robot, err.value.card) == (2, "john", 3)
    assert isinstance(err.value, RuleError)
    assert state.to_dict() == before  # nothing changed
    state.play({"john": 4, "anne": 1, "beth": 2, "ted": 4})  # and the right round still plays


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ({"john": 6, "anne": 1, "beth": 2, "ted": 3}, "round 1: john cannot play 6: the cards"),
        ({"john": 0, "anne": 1, "beth": 2, "ted": 3}, "round 1: john cannot play 0"),
        ({"john": 1, "anne": 1, "beth": 2}, "round 1: no card for ted"),
        ({"john": 1, "anne": 1, "beth": 2, "ted": 3, "zed": 1}, "'zed' is not a robot"),
        ({"john": True, "anne": 1, "beth": 2, "ted": 3}, "john's card must be a number"),
    ],
)
def test_g7_other_illegal_rounds_are_refused(cards: dict[str, Any], message: str) -> None:
    state = GetBit.new(setup())
    with pytest.raises(PlayError, match=message.replace("(", r"\(")):
        state.play(cards)


def test_g7_an_eliminated_robot_plays_no_card() -> None:
    state = midgame({r: r for r in "abcde"}, limbs={"e": 1})
    state, _ = state.play(same_card(state))
    with pytest.raises(PlayError, match="round 7: e is out of the game"):
        state.play({"a": 1, "b": 2, "c": 4, "d": 5, "e": 5})


def test_g7_refusal_in_a_file_names_the_place() -> None:
    game = read_json(str(EXAMPLE_FILE))
    game["rounds"][3]["ted"] = 2  # ted played his 2 in round 2
    with pytest.raises(InputError) as err:
        replay_from_dict(game)
    assert err.value.where == "rounds[3].ted"
    assert "round 4: ted cannot play 2: not in its hand (3, 5)" in str(err.value)


# ----------------------------------------------------------------- plain data -----------


def test_state_round_trips_through_plain_data() -> None:
    state = replay_from_dict(read_json(str(EXAMPLE_FILE))).state
    assert state_from_dict(state.to_dict()) == state


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"limbs": {"john": 3.5, "anne": 3, "beth": 3, "ted": 4}}, "limbs.john"),
        ({"hands": {"john": [1, 2, 3], "anne": [2, 3, 4], "beth": [], "ted": []}}, "hands.john"),
        ({"line": ["beth", "ted", "anne"]}, "line"),
        ({"winner": "zed"}, "winner"),
        ({"extra": 1}, "extra"),
    ],
)
def test_state_from_dict_refuses_what_does_not_add_up(change: dict[str, Any], where: str) -> None:
    raw = replay_from_dict(read_json(str(EXAMPLE_FILE))).state.to_dict()
    with pytest.raises(InputError) as err:
        state_from_dict({**raw, **change})
    assert err.value.where == where


def test_replay_input_round_trips_the_game() -> None:
    game = replay_from_dict(read_json(str(EXAMPLE_FILE)))
    again = replay_from_dict(game.game_dict())
    assert again.state == game.state and again.results == game.results
