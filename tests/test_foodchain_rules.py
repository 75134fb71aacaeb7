"""Food Chain: one named test per rule of the rulebook and per ruling F1-F13.

Rulebook: Food Chain (Brain Games, 2012). Rulings: companion/games/foodchain/__init__.py and
docs/foodchain.md. Most tests lay out a small forest from a made-up test catalog, so the
position reads like the table it describes.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import MutableSequence
from pathlib import Path
from typing import Any

import pytest

from companion.errors import InputError, RuleError
from companion.games.foodchain import (
    Action,
    BackOff,
    Catalog,
    Eat,
    FoodChainState,
    Hunt,
    Pass,
    Switch,
    Tally,
    catalog_from_dict,
    score,
    score_optional,
    sheet_from_dict,
    state_from_dict,
    winners,
)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "foodchain-catalog.example.json"

# A small made-up forest, only for these tests.


def card(
    name: str, level: int | str, points: int, copies: int, eats: str = "", eaten_by: str = ""
) -> dict[str, Any]:
    return {
        "name": name,
        "level": level,
        "points": points,
        "copies": copies,
        "prey": eats.split(),
        "predators": eaten_by.split(),
    }


TEST_CARDS: dict[str, Any] = {
    "cards": [
        card("berry", "I", 5, 4, eaten_by="rabbit mouse bear"),
        card("grass", 1, 4, 2, eaten_by="rabbit"),
        card("rabbit", 2, 3, 3, eats="berry grass", eaten_by="fox wolf"),
        card("mouse", 2, 3, 2, eats="berry", eaten_by="fox"),
        card("fox", 3, 2, 3, eats="rabbit mouse", eaten_by="wolf"),
        card("wolf", 4, 1, 2, eats="rabbit fox"),
        card("bear", 5, 1, 1, eats="berry"),
        {"name": "huntsman", "bonus": "huntsman"},
        {"name": "swarm", "bonus": "swarm"},
    ]
}
CATALOG = catalog_from_dict(TEST_CARDS)


def food(card: str, *predators: dict[str, Any]) -> dict[str, Any]:
    return {"card": card, "predators": list(predators)}


def pred(card: str, token: str, *predators: dict[str, Any]) -> dict[str, Any]:
    return {"card": card, "token": token, "predators": list(predators)}


def cards_in(node: dict[str, Any]) -> list[str]:
    return [node["card"], *(c for p in node["predators"] for c in cards_in(p))]


def tokens_in(node: dict[str, Any]) -> list[str]:
    here = [node["token"]] if "token" in node else []
    return here + [t for p in node["predators"] for t in tokens_in(p)]


def make(
    forest: list[dict[str, Any]],
    hands: dict[str, list[str]] | None = None,
    deck: list[str] | None = None,
    discard: list[str] | None = None,
    food_piles: dict[str, list[str]] | None = None,
    tokens: dict[str, dict[str, int]] | None = None,
    players: tuple[str, ...] = ("ann", "bob"),
    turn: str = "ann",
    catalog: Catalog = CATALOG,
) -> FoodChainState:
    """A position: every card not named lies in the deck (or, with ``deck`` given, in the
    discard pile); without ``tokens`` each player holds her own not on the table."""
    hands = hands or {}
    food_piles = food_piles or {}
    named = [c for n in forest for c in cards_in(n)]
    named += [c for h in hands.values() for c in h] + [c for f in food_piles.values() for c in f]
    named += (deck or []) + (discard or [])
    rest = [c for c in catalog.card_ids() if c not in named]
    if deck is None:
        deck, discard = rest, discard or []
    else:
        discard = (discard or []) + rest
    if tokens is None:
        on_table = Counter(t for n in forest for t in tokens_in(n))
        tokens = {p: {p: 4 - on_table[p]} for p in players}
    doc = {
        "players": list(players),
        "turn": turn,
        "hands": {p: hands.get(p, []) for p in players},
        "deck": deck,
        "discard": discard,
        "food": {p: food_piles.get(p, []) for p in players},
        "tokens": tokens,
        "forest": forest,
    }
    return state_from_dict(doc, catalog)


def refused(state: FoodChainState, action: Action, reason: str) -> None:
    """The action is refused with ``reason`` in the message, and nothing changes."""
    before = state.to_dict()
    with pytest.raises(RuleError, match=reason):
        state.apply(action)
    assert state.to_dict() == before


def forest(state: FoodChainState) -> list[dict[str, Any]]:
    return list(state.to_dict()["forest"])


def example_catalog() -> Catalog:
    return catalog_from_dict(json.loads(EXAMPLE.read_text(encoding="utf-8")))


# ---------------------------------------------------------------- 2. components ---------


def test_foodchain_52_cards_with_two_bonus_cards_in_the_example_catalog() -> None:
    catalog = example_catalog()
    assert catalog.size == 52
    assert catalog.composition_problems() == []
    assert [k.name for k in catalog.kinds if k.bonus] == ["huntsman", "swarm"]
    assert catalog.example


def test_foodchain_16_tokens_4_in_4_colours() -> None:
    state = FoodChainState.deal(example_catalog(), ["a", "b", "c", "d"], random.Random(1))
    assert state.tokens_by_colour() == Counter({"a": 4, "b": 4, "c": 4, "d": 4})


# ---------------------------------------------------------------- 3. cards --------------


def test_foodchain_card_predators_red_circles_and_prey_green_circles() -> None:
    rabbit = CATALOG.by_name["rabbit"]
    assert rabbit.predators == {"fox", "wolf"} and rabbit.prey == {"berry", "grass"}


def test_foodchain_card_level_is_a_roman_numeral_smaller_is_lower() -> None:
    assert CATALOG.by_name["berry"].level == 1  # written "I" in the catalog
    assert CATALOG.by_name["berry"].level < CATALOG.by_name["rabbit"].level


def test_foodchain_card_sun_points_are_scored_when_eaten() -> None:
    state = make(
        [food("berry#1", pred("rabbit#1", "ann"))], hands={"ann": ["fox#1"], "bob": ["fox#2"]}
    )
    state.apply(Eat("rabbit#1"))
    assert score(state.tally())["ann"].eaten_points == 5


# ---------------------------------------------------------------- 4. setup --------------


@pytest.mark.parametrize("n", [2, 3, 4])
def test_foodchain_setup_deals_four_cards_each(n: int) -> None:
    players = ["ann", "bob", "cat", "dan"][:n]
    state = FoodChainState.deal(example_catalog(), players, random.Random(n))
    assert all(len(state.hands[p]) == 4 for p in players)


@pytest.mark.parametrize(("n", "chains"), [(2, 3), (3, 4), (4, 4)])
def test_foodchain_setup_four_food_cards_three_with_two_players(n: int, chains: int) -> None:
    state = FoodChainState.deal(
        example_catalog(), ["ann", "bob", "cat", "dan"][:n], random.Random(7)
    )
    assert len(state.chains) == chains and not state.on


def test_foodchain_setup_four_tokens_of_one_colour_each() -> None:
    state = FoodChainState.deal(example_catalog(), ["ann", "bob", "cat"], random.Random(2))
    assert state.supply == {p: Counter({p: 4}) for p in ("ann", "bob", "cat")}


def test_foodchain_setup_rest_is_the_draw_deck_and_room_for_a_discard_pile() -> None:
    state = FoodChainState.deal(example_catalog(), ["ann", "bob", "cat"], random.Random(3))
    assert len(state.deck) == 52 - 12 - 4 and state.discard == []
    assert state.all_cards() == Counter(example_catalog().card_ids())


def test_foodchain_setup_shuffles_with_the_given_random() -> None:
    deal = [FoodChainState.deal(example_catalog(), ["a", "b"], random.Random(s)) for s in (5, 5, 6)]
    assert deal[0].to_dict() == deal[1].to_dict() != deal[2].to_dict()


def test_foodchain_setup_bonus_card_turned_for_a_chain_goes_under_the_deck() -> None:
    # F9: stack the deck so the Huntsman comes up while laying out the food.
    catalog = CATALOG
    order = ["berry#1", "huntsman#1", "grass#1", "berry#2"]

    class Stacked(random.Random):
        def shuffle(self, x: MutableSequence[Any]) -> None:
            hands = [c for c in x if c not in order][:8]
            x[:] = hands + order + [c for c in x if c not in order and c not in hands]

    state = FoodChainState.deal(catalog, ["ann", "bob"], Stacked())
    assert state.chains == ["berry#1", "grass#1", "berry#2"]
    assert state.deck[-1] == "huntsman#1"


def test_foodchain_two_to_four_players() -> None:
    for players in (["a"], ["a", "b", "c", "d", "e"], ["a", "a"]):
        with pytest.raises(RuleError):
            FoodChainState.deal(example_catalog(), players, random.Random(1))


# ---------------------------------------------------------------- 5. turns --------------


def test_foodchain_the_table_chooses_who_starts() -> None:
    state = FoodChainState.deal(example_catalog(), ["ann", "bob", "cat"], random.Random(1), "cat")
    assert state.current == "cat"


def test_foodchain_turn_passes_clockwise_after_one_action() -> None:
    state = make(
        [food("berry#1")],
        hands={"ann": ["grass#1"], "bob": ["grass#2"], "cat": []},
        players=("ann", "bob", "cat"),
    )
    state.apply(Pass("grass#1"))
    assert state.current == "bob"
    state.apply(Pass("grass#2"))
    assert state.current == "cat"
    state.apply(Pass())
    assert state.current == "ann"


def test_foodchain_only_the_five_actions() -> None:
    state = FoodChainState.deal(example_catalog(), ["ann", "bob"], random.Random(4))
    kinds = {type(a) for a in state.legal_actions()}
    assert kinds <= {Hunt, Eat, BackOff, Switch, Pass} and Pass in kinds


# ---------------------------------------------------------------- 6.1 hunt --------------


def test_foodchain_hunt_places_the_card_on_the_food_marks_it_and_draws() -> None:
    state = make([food("berry#1")], hands={"ann": ["rabbit#1"]}, deck=["fox#1"])
    state.apply(Hunt("rabbit#1", "berry#1"))
    assert forest(state) == [food("berry#1", pred("rabbit#1", "ann"))]
    assert state.hands["ann"] == ["fox#1"] and state.deck == []
    assert state.supply["ann"]["ann"] == 3


def test_foodchain_hunt_food_must_show_in_a_green_circle_of_the_hunter() -> None:
    state = make([food("grass#1")], hands={"ann": ["mouse#1"]})
    refused(state, Hunt("mouse#1", "grass#1"), "does not show grass in a green circle")


def test_foodchain_hunt_hunter_must_show_in_a_red_circle_of_the_food() -> None:
    catalog = catalog_from_dict(
        {
            "cards": [
                {"name": "berry", "level": 1, "points": 5, "copies": 2},
                {"name": "rabbit", "level": 2, "points": 3, "copies": 2, "prey": ["berry"]},
            ]
        }
    )
    state = make([food("berry#1")], hands={"ann": ["rabbit#1"]}, catalog=catalog)
    refused(state, Hunt("rabbit#1", "berry#1"), "does not show rabbit in a red circle")


def test_foodchain_hunt_any_number_of_predators_on_one_food() -> None:
    state = make(
        [food("berry#1", pred("rabbit#1", "ann"), pred("mouse#1", "bob"))],
        hands={"ann": ["rabbit#2"]},
    )
    state.apply(Hunt("rabbit#2", "berry#1"))
    assert [p["card"] for p in forest(state)[0]["predators"]] == ["rabbit#1", "mouse#1", "rabbit#2"]


def test_f2_hunt_a_predator_to_extend_the_chain() -> None:
    state = make([food("berry#1", pred("rabbit#1", "bob"))], hands={"ann": ["fox#1"]})
    state.apply(Hunt("fox#1", "rabbit#1"))
    assert forest(state) == [food("berry#1", pred("rabbit#1", "bob", pred("fox#1", "ann")))]


def test_f1_hunt_needs_a_token_of_your_own_colour() -> None:
    # F1: ann's four tokens are all on the table; a captured one of bob's does not do.
    state = make(
        [
            food("berry#1", pred("rabbit#1", "ann"), pred("rabbit#2", "ann")),
            food("grass#1", pred("rabbit#3", "ann")),
            food("berry#2", pred("mouse#1", "ann")),
        ],
        hands={"ann": ["mouse#2"]},
        tokens={"ann": {"bob": 1}, "bob": {"bob": 3}},
    )
    refused(state, Hunt("mouse#2", "berry#2"), "no token of her own colour")


def test_foodchain_hunt_with_an_empty_deck_draws_nothing() -> None:
    state = make([food("berry#1")], hands={"ann": ["rabbit#1"]}, deck=[])
    state.apply(Hunt("rabbit#1", "berry#1"))
    assert state.hands["ann"] == []


def test_foodchain_hunt_only_with_a_card_in_hand() -> None:
    state = make([food("berry#1")], hands={"bob": ["rabbit#1"]})
    refused(state, Hunt("rabbit#1", "berry#1"), "not in ann's hand")


# ---------------------------------------------------------------- 6.2 eat ---------------


def test_foodchain_eat_food_goes_face_down_to_your_food_pile() -> None:
    state = make([food("grass#1"), food("berry#1", pred("rabbit#1", "ann"))])
    state.apply(Eat("rabbit#1"))
    assert state.food["ann"] == ["berry#1"]


def test_foodchain_eat_only_a_free_predator() -> None:
    state = make([food("berry#1", pred("rabbit#1", "ann", pred("fox#1", "bob")))])
    refused(state, Eat("rabbit#1"), "not free: fox#1 preys on it")


def test_foodchain_eat_only_the_strongest_on_that_food() -> None:
    state = make([food("berry#1", pred("rabbit#1", "ann"), pred("bear#1", "bob"))])
    refused(state, Eat("rabbit#1"), "not the strongest on berry#1: bear#1 is level V")


def test_f3_eat_equal_level_is_not_higher() -> None:
    # F3: "higher than any other" - a tie in level eats nothing.
    state = make([food("berry#1", pred("rabbit#1", "ann"), pred("mouse#1", "bob"))])
    refused(state, Eat("rabbit#1"), "not the strongest")


def test_foodchain_eat_your_own_other_predator_is_a_rival_too() -> None:
    state = make([food("berry#1", pred("rabbit#1", "ann"), pred("bear#1", "ann"))])
    refused(state, Eat("rabbit#1"), "not the strongest")
    state.apply(Eat("bear#1"))
    assert state.food["ann"] == ["berry#1"] and "rabbit#1" in state.discard


def test_foodchain_eat_only_with_your_own_predator() -> None:
    state = make([food("berry#1", pred("rabbit#1", "bob"))])
    refused(state, Eat("rabbit#1"), "carries bob's token")


def test_foodchain_eat_a_food_card_is_not_a_predator() -> None:
    state = make([food("berry#1")])
    refused(state, Eat("berry#1"), "a food card")


def test_foodchain_eat_take_the_tokens_on_the_eaten_card() -> None:
    state = make([food("berry#1", pred("rabbit#1", "bob", pred("fox#1", "ann")))])
    state.apply(Eat("fox#1"))
    assert state.food["ann"] == ["rabbit#1"]
    assert state.supply["ann"]["bob"] == 1 and state.tokens_by_colour()["bob"] == 4


def test_f5_eat_rivals_are_discarded_and_their_tokens_go_home() -> None:
    # F5: bob's mouse and the fox preying on it both go, each token to its owner.
    state = make(
        [food("berry#1", pred("bear#1", "ann"), pred("mouse#1", "bob", pred("fox#1", "cat")))],
        players=("ann", "bob", "cat"),
    )
    state.apply(Eat("bear#1"))
    assert {"mouse#1", "fox#1"} <= set(state.discard)
    assert state.supply["bob"]["bob"] == 4 and state.supply["cat"]["cat"] == 4


def test_foodchain_eat_the_eater_takes_the_eaten_cards_place() -> None:
    # F4: the fox ate the rabbit; it now preys on the berry the rabbit was eating.
    state = make([food("berry#1", pred("rabbit#1", "bob", pred("fox#1", "ann")))])
    state.apply(Eat("fox#1"))
    assert forest(state)[0] == food("berry#1", pred("fox#1", "ann"))


def test_f4_eat_food_card_leaves_the_eater_alone_so_the_chain_goes() -> None:
    # F4: a chain of one card does not remain; the eater is discarded, its token home.
    state = make(
        [food("berry#1", pred("rabbit#1", "ann")), food("grass#1"), food("grass#2")],
        deck=["berry#2", "fox#1"],
    )
    state.apply(Eat("rabbit#1"))
    assert "rabbit#1" in state.discard and state.supply["ann"]["ann"] == 4
    assert state.chains == ["grass#1", "grass#2", "berry#2"]


def test_foodchain_eat_chains_of_at_least_two_cards_remain() -> None:
    state = make(
        [
            food("berry#1", pred("rabbit#1", "bob", pred("fox#1", "ann"))),
            food("grass#1"),
            food("grass#2"),
        ]
    )
    state.apply(Eat("fox#1"))
    assert state.chains[0] == "berry#1" and len(state.chains) == 3


def test_foodchain_eat_refill_to_four_chains() -> None:
    state = make(
        [
            food("berry#1", pred("rabbit#1", "ann")),
            food("grass#1"),
            food("grass#2"),
            food("berry#2"),
        ],
        deck=["berry#3", "fox#1"],
        players=("ann", "bob", "cat"),
    )
    state.apply(Eat("rabbit#1"))
    assert state.chains == ["grass#1", "grass#2", "berry#2", "berry#3"]


def test_foodchain_eat_refill_to_three_chains_with_two_players() -> None:
    state = make(
        [food("berry#1", pred("rabbit#1", "ann")), food("grass#1"), food("grass#2")],
        deck=["berry#3", "berry#4"],
    )
    state.apply(Eat("rabbit#1"))
    assert state.chains == ["grass#1", "grass#2", "berry#3"] and state.deck == ["berry#4"]


def test_foodchain_eat_refill_turns_over_one_card_from_the_deck_only() -> None:
    state = make(
        [food("berry#1", pred("rabbit#1", "ann")), food("grass#1"), food("grass#2")], deck=[]
    )
    state.apply(Eat("rabbit#1"))
    assert state.chains == ["grass#1", "grass#2"]


def test_f9_refill_bonus_card_goes_under_the_deck() -> None:
    state = make(
        [food("berry#1", pred("rabbit#1", "ann")), food("grass#1"), food("grass#2")],
        deck=["swarm#1", "berry#2", "fox#1"],
    )
    state.apply(Eat("rabbit#1"))
    assert state.chains[-1] == "berry#2" and state.deck == ["fox#1", "swarm#1"]


def test_f10_token_exchange_when_two_players_hold_each_others() -> None:
    # F10: bob already holds one of ann's; ann captures one of bob's: they swap back.
    state = make(
        [food("berry#1", pred("rabbit#1", "bob", pred("fox#1", "ann")))],
        tokens={"ann": {"ann": 2}, "bob": {"bob": 3, "ann": 1}},
    )
    state.apply(Eat("fox#1"))
    assert state.supply["ann"] == Counter({"ann": 3, "bob": 0})
    assert state.supply["bob"] == Counter({"bob": 4, "ann": 0})
    assert state.tokens_by_colour() == Counter({"ann": 4, "bob": 4})


def test_foodchain_eating_your_own_predator_brings_your_token_home() -> None:
    state = make([food("berry#1", pred("rabbit#1", "ann", pred("fox#1", "ann")))])
    state.apply(Eat("fox#1"))
    assert state.supply["ann"]["ann"] == 3  # one still on the fox


# ---------------------------------------------------------------- 6.3 back off ----------


def test_foodchain_back_off_discards_your_predator_and_returns_your_token() -> None:
    state = make([food("berry#1", pred("rabbit#1", "ann"))])
    state.apply(BackOff("rabbit#1"))
    assert forest(state) == [food("berry#1")]
    assert state.discard[-1] == "rabbit#1" and state.supply["ann"]["ann"] == 4


def test_foodchain_back_off_only_a_free_predator() -> None:
    state = make([food("berry#1", pred("rabbit#1", "ann", pred("fox#1", "bob")))])
    refused(state, BackOff("rabbit#1"), "not free")


def test_foodchain_back_off_only_your_own_predator() -> None:
    state = make([food("berry#1", pred("rabbit#1", "bob"))])
    refused(state, BackOff("rabbit#1"), "bob's token")


def test_foodchain_back_off_not_a_food_card() -> None:
    state = make([food("berry#1")])
    refused(state, BackOff("berry#1"), "a food card")


# ---------------------------------------------------------------- 6.4 switch ------------


def test_foodchain_switch_your_free_predator_for_a_higher_card_from_hand() -> None:
    state = make([food("berry#1", pred("rabbit#1", "ann"))], hands={"ann": ["bear#1"]})
    state.apply(Switch("bear#1", "rabbit#1"))
    assert forest(state) == [food("berry#1", pred("bear#1", "ann"))]
    assert state.hands["ann"] == ["rabbit#1"]


def test_foodchain_switch_the_table_card_must_be_on_a_lower_level() -> None:
    state = make([food("berry#1", pred("rabbit#1", "ann"))], hands={"ann": ["mouse#1"]})
    refused(state, Switch("mouse#1", "rabbit#1"), "must be lower than mouse#1")


def test_foodchain_switch_no_predator_on_the_table_card() -> None:
    state = make(
        [food("berry#1", pred("rabbit#1", "ann", pred("fox#1", "bob")))], hands={"ann": ["bear#1"]}
    )
    refused(state, Switch("bear#1", "rabbit#1"), "not free")


def test_foodchain_switch_no_other_players_token_on_the_table_card() -> None:
    state = make([food("berry#1", pred("rabbit#1", "bob"))], hands={"ann": ["bear#1"]})
    refused(state, Switch("bear#1", "rabbit#1"), "carries bob's token")


def test_f8_switch_never_a_bare_food_card() -> None:
    # F8: only a predator is switched; a food card nobody preys on is refused.
    state = make([food("grass#1")], hands={"ann": ["fox#1"]})
    refused(state, Switch("fox#1", "grass#1"), "a food card: only a predator can be switched")
    assert not any(isinstance(a, Switch) for a in state.legal_actions())


def test_f8_switch_the_new_card_must_prey_on_the_card_below() -> None:
    # F8: a bear may not stand on a rabbit: bears do not hunt rabbits here.
    state = make(
        [food("berry#1", pred("rabbit#1", "bob", pred("fox#1", "ann")))], hands={"ann": ["bear#1"]}
    )
    refused(state, Switch("bear#1", "fox#1"), "cannot prey on rabbit#1")


def test_foodchain_switch_not_with_a_bonus_card() -> None:
    state = make([food("berry#1", pred("rabbit#1", "ann"))], hands={"ann": ["huntsman#1"]})
    refused(state, Switch("huntsman#1", "rabbit#1"), "only played by hunting")


def test_foodchain_switch_draws_no_card() -> None:
    state = make(
        [food("berry#1", pred("rabbit#1", "ann"))], hands={"ann": ["bear#1"]}, deck=["grass#1"]
    )
    state.apply(Switch("bear#1", "rabbit#1"))
    assert state.deck == ["grass#1"]


# ---------------------------------------------------------------- 6.5 pass --------------


def test_foodchain_pass_discards_one_card_and_draws_one() -> None:
    state = make([food("berry#1")], hands={"ann": ["wolf#1", "fox#1"]}, deck=["grass#1"])
    state.apply(Pass("wolf#1"))
    assert state.discard[-1] == "wolf#1" and state.hands["ann"] == ["fox#1", "grass#1"]


def test_foodchain_pass_with_no_cards_in_hand_passes_without_discarding() -> None:
    state = make([food("berry#1")], hands={"ann": [], "bob": ["rabbit#1"]}, deck=[])
    state.apply(Pass())
    assert state.current == "bob"


def test_foodchain_pass_with_cards_in_hand_must_discard() -> None:
    state = make([food("berry#1")], hands={"ann": ["wolf#1"]})
    refused(state, Pass(), "passing discards one of them")


def test_foodchain_pass_draws_only_if_possible() -> None:
    state = make([food("berry#1")], hands={"ann": ["wolf#1"], "bob": ["rabbit#1"]}, deck=[])
    state.apply(Pass("wolf#1"))
    assert state.hands["ann"] == []


# ---------------------------------------------------------------- 7. bonus cards --------


def test_foodchain_huntsman_preys_on_any_food_in_the_forest() -> None:
    state = make([food("berry#1", pred("wolf#1", "bob"))], hands={"ann": ["huntsman#1"]})
    state.apply(Hunt("huntsman#1", "wolf#1"))  # nothing shows the Huntsman, yet he may
    assert state.on["huntsman#1"] == "wolf#1" and state.token["huntsman#1"] == "ann"


def test_foodchain_huntsman_is_marked_with_a_token() -> None:
    state = make(
        [food("berry#1")],
        hands={"ann": ["huntsman#1"]},
        tokens={"ann": {}, "bob": {"bob": 4, "ann": 4}},
    )
    refused(state, Hunt("huntsman#1", "berry#1"), "no token of her own colour")


def test_f6_huntsman_goes_to_the_discard_pile_after_eating() -> None:
    # F6: after use; his token goes home, the wolf's token is captured.
    state = make([food("berry#1", pred("wolf#1", "bob", pred("huntsman#1", "ann")))])
    state.apply(Eat("huntsman#1"))
    assert state.food["ann"] == ["wolf#1"] and state.discard[-1] == "huntsman#1"
    assert forest(state)[0] == food("berry#1")
    assert state.supply["ann"] == Counter({"ann": 4, "bob": 1})


def test_foodchain_huntsman_level_is_above_every_creature_by_default() -> None:
    assert CATALOG.by_name["huntsman"].level == 6  # the bear is V
    given = catalog_from_dict({"cards": [{"name": "h", "bonus": "huntsman", "level": "II"}]})
    assert given.by_name["h"].level == 2


def test_foodchain_swarm_chases_away_a_predator_on_top_of_a_chain() -> None:
    state = make(
        [food("berry#1", pred("rabbit#1", "bob", pred("fox#1", "bob")))],
        hands={"ann": ["swarm#1"]},
        deck=["grass#1"],
    )
    state.apply(Hunt("swarm#1", "fox#1"))
    assert forest(state) == [food("berry#1", pred("rabbit#1", "bob"))]
    assert state.discard[-2:] == ["fox#1", "swarm#1"]
    assert state.supply["bob"]["bob"] == 3 and state.hands["ann"] == ["grass#1"]


def test_foodchain_swarm_chases_away_even_the_huntsman() -> None:
    state = make([food("berry#1", pred("huntsman#1", "bob"))], hands={"ann": ["swarm#1"]})
    state.apply(Hunt("swarm#1", "huntsman#1"))
    assert forest(state) == [food("berry#1")] and "huntsman#1" in state.discard


def test_foodchain_swarm_only_a_predator_on_top() -> None:
    state = make(
        [food("berry#1", pred("rabbit#1", "bob", pred("fox#1", "bob")))], hands={"ann": ["swarm#1"]}
    )
    refused(state, Hunt("swarm#1", "rabbit#1"), "preyed on")


def test_f7_swarm_chases_a_lone_creature_food_card() -> None:
    # F7: a free creature on top of a chain, even as the chain's food card; its chain goes
    # and a new one is turned up from the deck.
    state = make(
        [food("rabbit#1"), food("grass#1"), food("grass#2")],
        hands={"ann": ["swarm#1"]},
        deck=["berry#2", "fox#1"],
    )
    state.apply(Hunt("swarm#1", "rabbit#1"))
    assert state.chains == ["grass#1", "grass#2", "berry#2"]
    assert state.discard[-2:] == ["rabbit#1", "swarm#1"] and state.hands["ann"] == ["fox#1"]


def test_f7_the_swarm_never_chases_a_bare_plant() -> None:
    # F7: creatures and predators only. A berry alone on its chain is a plant: it stays,
    # and the Swarm is not offered against it.
    state = make(
        [food("berry#1"), food("grass#1", pred("rabbit#1", "bob"))],
        hands={"ann": ["swarm#1"]},
        deck=["berry#2", "fox#1"],
    )
    swarms = [a for a in state.legal_actions() if isinstance(a, Hunt)]
    assert swarms == [Hunt("swarm#1", "rabbit#1")]
    refused(state, Hunt("swarm#1", "berry#1"), "never a plant like berry#1")
    refused(state, Hunt("swarm#1", "grass#1"), "preyed on")


def test_foodchain_swarm_needs_no_token() -> None:
    # F7: it never stays on the table.
    state = make(
        [food("berry#1", pred("rabbit#1", "bob"))],
        hands={"ann": ["swarm#1"]},
        tokens={"ann": {}, "bob": {"bob": 3, "ann": 4}},
    )
    state.apply(Hunt("swarm#1", "rabbit#1"))
    assert "rabbit#1" in state.discard


# ---------------------------------------------------------------- 8. end and scoring ----


def test_foodchain_game_goes_on_while_the_deck_has_cards() -> None:
    state = make([food("berry#1")], hands={"ann": ["wolf#1"], "bob": ["wolf#2"]})
    assert state.deck and not state.over


def test_f11_game_ends_when_the_deck_is_empty_and_only_passing_is_left() -> None:
    state = make([food("berry#1")], hands={"ann": ["grass#1"], "bob": ["grass#2"]}, deck=[])
    assert state.over and state.legal_actions() == []
    refused(state, Pass("grass#1"), "the game is over")


def test_foodchain_game_goes_on_while_anyone_can_do_more_than_pass() -> None:
    # F11: ann can only pass, but bob can still eat.
    state = make([food("berry#1", pred("rabbit#1", "bob"))], hands={"ann": ["grass#1"]}, deck=[])
    assert not state.over
    state.apply(Pass("grass#1"))
    state.apply(Eat("rabbit#1"))
    assert state.over


def test_foodchain_score_eaten_points_plus_one_per_token() -> None:
    state = make([food("grass#1")], food_piles={"ann": ["berry#1", "rabbit#1"]}, deck=[])
    scores = score(state.tally())
    assert (scores["ann"].eaten_points, scores["ann"].tokens, scores["ann"].total) == (8, 4, 12)


def test_foodchain_score_captured_tokens_give_more_points() -> None:
    state = make([food("grass#1")], tokens={"ann": {"ann": 4, "bob": 1}, "bob": {"bob": 3}})
    scores = score(state.tally())
    assert (scores["ann"].total, scores["bob"].total, scores["ann"].captured) == (5, 3, 1)


def test_foodchain_score_tokens_still_on_the_table_go_home() -> None:
    # F11
    state = make([food("berry#1", pred("rabbit#1", "ann"))])
    assert score(state.tally())["ann"].tokens == 4


def test_foodchain_most_points_wins() -> None:
    state = make([food("grass#1")], food_piles={"bob": ["fox#1"]})
    assert winners(score(state.tally())) == ("bob",)


def test_f12_equal_points_share_the_victory() -> None:
    # F12
    state = make([food("grass#1")])
    assert winners(score(state.tally())) == ("ann", "bob")


# ---------------------------------------------------------------- 9. optional rule ------


def tally(eaten: dict[str, list[int]], tokens: dict[str, dict[str, int]]) -> Tally:
    from companion.games.foodchain import Eaten

    players = tuple(eaten)
    return Tally(
        players,
        {p: tuple(Eaten("", n) for n in eaten[p]) for p in players},
        {p: Counter(tokens.get(p, {})) for p in players},
    )


def test_foodchain_optional_rule_random_card_per_captured_token() -> None:
    t = tally(
        {"ann": [1], "bob": [5, 5, 5], "cat": [2]},
        {"ann": {"ann": 4, "bob": 2}, "bob": {"bob": 2}, "cat": {"cat": 4}},
    )
    scores = score_optional(t, random.Random(1))
    assert [who for who, _ in scores["ann"].taken] == ["bob", "bob"]
    assert scores["ann"].total == 1 + 10


def test_foodchain_optional_rule_own_tokens_score_nothing() -> None:
    t = tally({"ann": [1], "bob": [2]}, {"ann": {"ann": 4}, "bob": {"bob": 4}})
    scores = score_optional(t, random.Random(1))
    assert (scores["ann"].total, scores["bob"].total) == (1, 2)


def test_f13_optional_rule_the_card_leaves_the_owners_pile() -> None:
    # F13: bob keeps only the card nobody took.
    t = tally({"ann": [], "bob": [3, 4]}, {"ann": {"ann": 4, "bob": 1}, "bob": {"bob": 3}})
    scores = score_optional(t, random.Random(2))
    assert scores["ann"].taken_points + scores["bob"].eaten_points == 7
    assert len(scores["bob"].kept) == 1


def test_foodchain_optional_rule_same_seed_same_draw() -> None:
    t = tally({"ann": [], "bob": [1, 2, 3, 4, 5]}, {"ann": {"ann": 4, "bob": 2}, "bob": {"bob": 2}})
    draws = {seed: score_optional(t, random.Random(seed))["ann"].taken for seed in range(20)}
    assert score_optional(t, random.Random(3))["ann"].taken == draws[3]
    assert len(set(draws.values())) > 1


def test_foodchain_optional_rule_an_empty_pile_gives_nothing() -> None:
    t = tally({"ann": [], "bob": []}, {"ann": {"ann": 4, "bob": 1}, "bob": {"bob": 3}})
    assert score_optional(t, random.Random(1))["ann"].total == 0


def test_foodchain_scoring_applies_the_token_exchange_first() -> None:
    t = tally({"ann": [], "bob": [9]}, {"ann": {"ann": 3, "bob": 1}, "bob": {"bob": 3, "ann": 1}})
    assert score_optional(t, random.Random(1))["ann"].taken == ()


# ---------------------------------------------------------------- the story -------------


def test_foodchain_story_rabbit_on_cranberries_fox_on_rabbit_bear_chases_boar() -> None:
    """The rulebook's opening scene, on the example catalog: a rabbit finds cranberries,
    the fox lurks on the rabbit, a bear chases a wild boar; the fox then eats."""
    catalog = example_catalog()
    state = make(
        [food("cranberry#1"), food("boar#1"), food("grass#1")],
        hands={"ann": ["rabbit#1"], "bob": ["fox#1"], "cat": ["bear#1"]},
        players=("ann", "bob", "cat"),
        catalog=catalog,
    )
    state.apply(Hunt("rabbit#1", "cranberry#1"))
    state.apply(Hunt("fox#1", "rabbit#1"))
    state.apply(Hunt("bear#1", "boar#1"))
    assert state.root("fox#1") == "cranberry#1" and state.on["bear#1"] == "boar#1"
    refused(state, Eat("rabbit#1"), "not free")  # ann's rabbit is preyed upon
    state.apply(Pass(state.hands["ann"][0]))
    state.apply(Eat("fox#1"))
    assert state.food["bob"] == ["rabbit#1"] and state.supply["bob"]["ann"] == 1
    assert state.on["fox#1"] == "cranberry#1"


# ---------------------------------------------------------------- plain data ------------


def test_foodchain_state_round_trips_through_plain_data() -> None:
    state = make(
        [food("berry#1", pred("rabbit#1", "bob", pred("fox#1", "ann")), pred("mouse#1", "ann"))],
        hands={"ann": ["wolf#1"]},
        food_piles={"bob": ["grass#1"]},
    )
    again = state_from_dict(json.loads(json.dumps(state.to_dict())), CATALOG)
    assert again.to_dict() == state.to_dict()
    assert again.predators_on("berry#1") == ["rabbit#1", "mouse#1"]


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda d: d["hands"]["ann"].append("berry#1"), "hands.ann[0]"),
        (lambda d: d["deck"].append("dragon#1"), "deck["),
        (lambda d: d["forest"][0]["predators"][0].pop("token"), "forest[0].predators[0]"),
        (lambda d: d["forest"][0].update(token="ann"), "forest[0].token"),
        (lambda d: d["tokens"]["ann"].update(ann=4), "tokens"),
        (lambda d: d.update(turn="zed"), "turn"),
        (lambda d: d["deck"].pop(), "cards missing"),
    ],
)
def test_foodchain_state_from_bad_data_names_the_place(change: Any, where: str) -> None:
    doc = make([food("berry#1", pred("rabbit#1", "ann"))]).to_dict()
    change(doc)
    with pytest.raises(InputError) as caught:
        state_from_dict(doc, CATALOG)
    assert where in str(caught.value)


def test_foodchain_illegal_moves_are_refused_and_change_nothing() -> None:
    state = make([food("berry#1", pred("rabbit#1", "bob"))], hands={"ann": ["fox#1", "swarm#1"]})
    for action in (
        Eat("rabbit#1"),
        BackOff("berry#1"),
        Hunt("fox#1", "berry#1"),
        Switch("fox#1", "rabbit#1"),
        Pass("wolf#1"),
        Hunt("swarm#1", "berry#1"),
    ):
        refused(state, action, "ann cannot")


# ---------------------------------------------------------------- the rulings (issue 16) -


def test_f2_hunting_your_own_predator_is_allowed() -> None:
    state = make([food("berry#1", pred("rabbit#1", "ann"))], hands={"ann": ["fox#1"]})
    state.apply(Hunt("fox#1", "rabbit#1"))
    assert forest(state) == [food("berry#1", pred("rabbit#1", "ann", pred("fox#1", "ann")))]


def test_f3_an_eater_sitting_on_food_it_does_not_prey_on_is_no_rival() -> None:
    # ann's fox ate the rabbit and moved down onto the berry; foxes do not eat berries, so
    # bob's mouse (level II, below the fox's III) is the only predator preying on it.
    state = make(
        [food("berry#1", pred("rabbit#1", "bob", pred("fox#1", "ann")))],
        hands={"bob": ["mouse#1"]},
    )
    state.apply(Eat("fox#1"))
    state.apply(Hunt("mouse#1", "berry#1"))
    state.apply(Pass(None))
    assert Eat("mouse#1") in state.legal_actions()
    state.apply(Eat("mouse#1"))
    # The berry was the chain's food card: the chain goes, the mouse and the fox with it.
    assert state.food["bob"] == ["berry#1"] and not state.on
    assert {"mouse#1", "fox#1"} <= set(state.discard)
    assert state.supply["ann"] == Counter(ann=4, bob=1)  # the rabbit's token, captured
    # A higher card that does prey on the berry (a bear) still blocks the mouse.
    state = make([food("berry#1", pred("bear#1", "ann"), pred("mouse#1", "bob"))], turn="bob")
    refused(state, Eat("mouse#1"), "bear#1 is level V")


def test_f3_your_own_equal_predator_blocks_you_too() -> None:
    state = make([food("berry#1", pred("rabbit#1", "ann"), pred("mouse#1", "ann"))])
    refused(state, Eat("rabbit#1"), "not the strongest")
    refused(state, Eat("mouse#1"), "not the strongest")


def test_f4_the_eater_eats_the_card_beneath_only_if_it_preys_on_it() -> None:
    # The fox ate the rabbit and took its place on the berry; foxes do not eat berries.
    state = make(
        [food("berry#1", pred("rabbit#1", "bob", pred("fox#1", "ann")))],
        hands={"bob": ["grass#1"]},
    )
    state.apply(Eat("fox#1"))
    state.apply(Pass("grass#1"))
    assert Eat("fox#1") not in state.legal_actions()
    refused(state, Eat("fox#1"), "does not prey on berry#1")


def test_f4_an_eater_that_preys_on_the_card_beneath_may_eat_it_next() -> None:
    # The wolf ate the fox and took its place on the rabbit; wolves eat rabbits.
    state = make(
        [food("berry#1", pred("rabbit#1", "bob", pred("fox#1", "bob", pred("wolf#1", "ann"))))],
        hands={"bob": ["grass#1"]},
    )
    state.apply(Eat("wolf#1"))
    state.apply(Pass("grass#1"))
    state.apply(Eat("wolf#1"))
    assert [e for e in state.food["ann"]] == ["fox#1", "rabbit#1"]


def test_f6_huntsman_eats_any_card_and_outranks_every_creature() -> None:
    state = make(
        [food("berry#1", pred("bear#1", "bob"), pred("huntsman#1", "ann"))],
    )
    state.apply(Eat("huntsman#1"))
    assert state.food["ann"] == ["berry#1"] and "huntsman#1" in state.discard


def test_f7_swarm_chases_a_creature_on_top_of_a_chain() -> None:
    state = make([food("berry#1", pred("rabbit#1", "bob"))], hands={"ann": ["swarm#1"]})
    assert Hunt("swarm#1", "rabbit#1") in state.legal_actions()
    assert Hunt("swarm#1", "berry#1") not in state.legal_actions()  # preyed on


def test_f8_switch_only_your_own_free_predator() -> None:
    state = make(
        [food("berry#1", pred("rabbit#1", "ann")), food("grass#1", pred("rabbit#2", "bob"))],
        hands={"ann": ["bear#1"]},
    )
    switches = [a for a in state.legal_actions() if isinstance(a, Switch)]
    assert switches == [Switch("bear#1", "rabbit#1")]


def test_f11_a_round_of_passes_does_not_end_the_game_while_a_player_can_eat() -> None:
    # The deck is empty and ann's rabbit could eat the berry: passing round after round
    # does not end the game. Only when nobody can do anything but pass is it over.
    state = make(
        [food("berry#1", pred("rabbit#1", "ann"))],
        hands={"ann": ["grass#1"], "bob": ["grass#2"]},
        deck=[],
    )
    state.apply(Pass("grass#1"))
    state.apply(Pass("grass#2"))
    for _ in range(3):  # more rounds of passes, with empty hands now
        state.apply(Pass(None))
        state.apply(Pass(None))
    assert not state.over and Eat("rabbit#1") in state.legal_actions()
    state.apply(Eat("rabbit#1"))
    assert state.over and state.legal_actions() == [] and state.food["ann"] == ["berry#1"]


def test_f11_a_predator_that_could_back_off_keeps_the_game_open() -> None:
    # Equal levels block both eaters (F3), but each owner could still back off: not over.
    state = make(
        [food("berry#1", pred("rabbit#1", "ann"), pred("mouse#1", "bob"))],
        deck=[],
    )
    state.apply(Pass(None))
    state.apply(Pass(None))  # a whole round of passes
    assert not state.over and state.on
    assert state.legal_actions() == [BackOff("rabbit#1"), Pass(None)]
    state.apply(BackOff("rabbit#1"))
    assert not state.over  # bob's mouse can now eat
    state.apply(Eat("mouse#1"))
    assert state.over and not state.on


def sheet(ann: list[object]) -> dict[str, object]:
    return {
        "players": {
            "ann": {"eaten": ann, "tokens": {"ann": 4}},
            "bob": {"eaten": [], "tokens": {"bob": 4}},
        }
    }


def test_f12_score_sheet_refuses_a_bonus_card_as_eaten_food() -> None:
    with pytest.raises(InputError, match="bonus card: nobody eats it") as caught:
        sheet_from_dict(sheet(["berry", "swarm"]), CATALOG)
    assert caught.value.where == "players.ann.eaten[1]"


def test_f12_score_sheet_refuses_points_no_card_has() -> None:
    with pytest.raises(InputError, match="no card in the catalog is worth 7"):
        sheet_from_dict(sheet([5, 7]), CATALOG)
    assert [e.points for e in sheet_from_dict(sheet([5, 1]), CATALOG).eaten["ann"]] == [5, 1]
    assert sheet_from_dict(sheet([7]), None).eaten["ann"][0].points == 7  # no catalog to ask


def test_f6_a_catalog_huntsman_below_a_creature_is_refused() -> None:
    cards = [
        card("berry", 1, 5, 1),
        card("bear", 3, 1, 1),
        {"name": "h", "bonus": "huntsman", "level": 3},
    ]
    with pytest.raises(
        InputError, match=r"outranks every creature \(F6\): level above 3"
    ) as caught:
        catalog_from_dict({"cards": cards})
    assert caught.value.where == "cards[2].level"
