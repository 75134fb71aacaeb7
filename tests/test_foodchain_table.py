"""``companion foodchain play``: the helper follows a game from what the table sees.

The property: a whole random game played on the full engine, told to the helper only as
the players would say it (the cards they show, the names of the cards turned up), leaves
the helper seeing the same table after every move: the forest by names and tokens, every
token, every food pile, the discard pile by names, hand and deck counts, whose turn, the
end and the score.
"""

from __future__ import annotations

import io
import json
import random
import re
import shlex
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import examples
from hypothesis import example, given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.errors import RuleError
from companion.games.foodchain import (
    Action,
    BackOff,
    Eat,
    FoodChainState,
    Hunt,
    Pass,
    Switch,
    catalog_from_dict,
    score,
)
from companion.games.foodchain.table import FoodChainTable
from companion.tables.foodchain.session import FoodChainHelper, prompt, status_text

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "foodchain-catalog.example.json"
CATALOG = catalog_from_dict(json.loads(EXAMPLE.read_text("utf-8")))


def view(state: FoodChainState) -> dict[str, Any]:
    """What everyone at the table sees, by card names."""
    name = state.catalog.kind

    def node(card: str) -> Any:
        return (name(card).name, state.token.get(card), sorted(node(c) for c in kids[card]))

    kids = state._children()
    return {
        "forest": [node(root) for root in state.chains],
        "hands": {p: len(h) for p, h in state.hands.items()},
        "deck": len(state.deck),
        "discard": Counter(name(c).name for c in state.discard),
        "food": {p: [name(c).name for c in f] for p, f in state.food.items()},
        "tokens": {p: +state.supply[p] for p in state.players},
        "turn": state.current,
    }


def name_chains(table: FoodChainTable, truth: FoodChainState, known: dict[str, str]) -> None:
    """The table names each card turned up, as the true game turned it."""
    while table.unconfirmed:
        real = next((c for c in truth.chains if c not in known), None)
        if real is None:  # only bonus cards left: each goes under the deck (F9), then none
            for card in truth.deck:
                if table.unconfirmed:
                    table.turned_up(truth.catalog.kind(card).name)
            if table.unconfirmed:
                table.no_chain()
            continue
        place = table.chains.index(table.unconfirmed[0])
        table.turned_up(truth.catalog.kind(real).name)
        known[real] = table.chains[place]


def announce(
    table: FoodChainTable, truth: FoodChainState, action: Action, known: dict[str, str]
) -> None:
    """Tell the helper the move as the player would show it."""
    p, kind = truth.current, truth.catalog.kind
    if isinstance(action, Hunt):
        card = table.shown(p, kind(action.card).name)
        table.play(Hunt(card, known[action.target]))
        known[action.card] = card
    elif isinstance(action, Eat):
        table.play(Eat(known[action.predator]))
    elif isinstance(action, BackOff):
        table.play(BackOff(known[action.predator]))
    elif isinstance(action, Switch):
        card = table.shown(p, kind(action.card).name)
        table.play(Switch(card, known[action.target]))
        known[action.card] = card
    else:
        table.play(Pass(None if action.card is None else table.shown(p, kind(action.card).name)))


@pytest.mark.slow
@settings(max_examples=examples(60), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4))
@example(seed=880, players=3)  # a card switched back into a hand later starts a chain
@example(seed=707243, players=3)  # the last card, a bonus, turned up and then drawn
@example(seed=439, players=3)  # the stand-in for the card turned up was the Huntsman
def test_the_helper_sees_the_same_table_as_the_game(seed: int, players: int) -> None:
    rng = random.Random(seed)
    names = ("ann", "bob", "cat", "dan")[:players]
    truth = FoodChainState.deal(CATALOG, names, rng)
    table = FoodChainTable.start(CATALOG, names)
    known: dict[str, str] = {}
    name_chains(table, truth, known)
    for _ in range(400):
        assert view(table) == view(truth) and table.misplaced() == []
        if truth.over:
            break
        action = rng.choice(truth.legal_actions())
        announce(table, truth, action, known)
        truth.apply(action)
        name_chains(table, truth, known)
    else:
        raise AssertionError("the game did not end")
    if not table.over:  # nobody could do more than pass: the players say so
        table.declare_end()
    assert table.over and view(table) == view(truth)
    assert score(table.tally()) == score(truth.tally())


def started(*chains: str) -> FoodChainTable:
    table = FoodChainTable.start(CATALOG, ["ann", "bob", "cat"])
    for name in chains or ("cranberry", "acorn", "grass", "mushroom"):
        table.turned_up(name)
    return table


def test_the_chains_are_named_as_they_are_turned_up() -> None:
    table = FoodChainTable.start(CATALOG, ["ann", "bob", "cat"])
    assert len(table.unconfirmed) == 4 and prompt(table).startswith("Turn up the deck's top card")
    assert table.turned_up("cranberry") == "a new food chain starts with cranberry."
    with pytest.raises(RuleError, match="first name the card turned up"):
        table.play(Pass(table.hands["ann"][0]))
    with pytest.raises(RuleError, match="no card named 'unicorn'"):
        table.turned_up("unicorn")


def test_f9_a_bonus_card_turned_up_goes_under_the_deck() -> None:
    table = FoodChainTable.start(CATALOG, ["ann", "bob", "cat"])
    deck = len(table.deck)
    assert table.turned_up("swarm") == "the swarm goes under the deck (F9): turn up the next card."
    assert len(table.unconfirmed) == 4 and len(table.deck) == deck
    assert table.kind(table.deck[-1]).name == "swarm"


def test_a_card_shown_must_still_be_hidden_somewhere() -> None:
    table = started()  # one of the example deck's four cranberries starts a chain
    for _ in range(3):
        table.play(Pass(table.shown(table.current, "cranberry")))
    with pytest.raises(RuleError, match="no cranberry can be hidden any more"):
        table.shown(table.current, "cranberry")


def test_a_refused_line_changes_nothing_and_says_why() -> None:
    helper = FoodChainHelper(started())
    before = helper.table.to_dict()
    lines = ["hunt fox on cranberry", "eat cranberry", "jump", "hunt", "switch x", "end", "²"]
    lines += ["pass " + "x" * 400, "hunt " + "9" * 400 + " on cranberry", "eat ²"]
    for line in lines:
        reply = helper.command(line)
        assert reply is not None and reply.startswith("no: ") and "\n" not in reply, line
        assert len(reply) < 120, reply
        assert helper.table.to_dict() == before
    assert helper.command("") == "" and helper.command("undo") == "nothing to undo"


def test_moves_the_offers_and_undo() -> None:
    helper = FoodChainHelper(started())
    assert "hunt cranberry with bear / mouse / rabbit" in prompt(helper.table)
    assert (
        helper.command("hunt rabbit on cranberry") == "ann hunts cranberry with rabbit and draws."
    )
    assert helper.command("hunt fox on rabbit") == "bob hunts rabbit with fox and draws."
    assert helper.command("pass acorn") == "cat passes, discarding acorn."
    assert "switch" not in prompt(helper.table)
    refused = helper.command("eat rabbit")
    assert refused is not None and refused.startswith("no: ann cannot eat")
    helper.command("pass acorn")
    assert helper.command("eat fox") == "bob's fox eats rabbit."
    assert helper.table.food["bob"] and helper.table.supply["bob"]["ann"] == 1
    assert "eaten rabbit (3)" in status_text(helper.table)
    assert helper.command("undo") == "undone."
    assert not helper.table.food["bob"]


def test_the_end_is_scored() -> None:
    table = started()
    table.hands = {p: [] for p in table.players}
    table.discard += table.deck
    table.deck = []
    assert table.over
    text = prompt(table)
    assert text.startswith("Game over. Final score:") and "Shared victory: ann, bob, cat" in text


def test_play_from_the_command_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    typed = "cranberry\nacorn\ngrass\nmushroom\nhunt rabbit on cranberry\nquit\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    argv = ["foodchain", "play", "--catalog", str(EXAMPLE), "--players", "ann,bob,cat"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == [
        "Food Chain · ann, bob, cat. Type help for the commands.",
        "Catalog: EXAMPLE ONLY - invented cards, not the real Food Chain deck",
    ]
    assert "ann hunts cranberry with rabbit and draws." in out


def test_docs_session_replays_exactly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], repo_root: Path
) -> None:
    page = (ROOT / "docs" / "foodchain.md").read_text("utf-8")
    block = next(
        b
        for b in re.findall(r"```text\n(.*?)```", page, re.S)
        if b.startswith("$ companion foodchain play")
    )
    command, *shown = block.rstrip("\n").splitlines()
    typed = [line[2:] for line in shown if line.startswith("> ")]
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{t}\n" for t in typed)))
    assert main(shlex.split(command)[2:]) == 0
    assert capsys.readouterr().out.rstrip("\n").splitlines() == shown


def test_f11_the_helper_refuses_end_while_an_eat_is_offered() -> None:
    # The deck is empty; ann's rabbit could eat the cranberry, as her own list of moves
    # says: "end" is refused in one line naming that eat, and changes nothing.
    helper = FoodChainHelper(started())
    helper.command("hunt rabbit on cranberry")
    helper.command("pass acorn")
    helper.command("pass acorn")
    helper.table.discard += helper.table.deck
    helper.table.deck = []
    assert "eat with rabbit" in prompt(helper.table)
    before = helper.table.to_dict()
    reply = helper.command("end")
    assert reply == "no: the game goes on (F11): ann's rabbit can still eat cranberry"
    assert helper.table.to_dict() == before and not helper.table.over
    assert helper.command("eat rabbit") == "ann's rabbit eats cranberry."
    assert helper.command("end") == (
        "The end: predators left go to the discard pile, their tokens home (F11)."
    )


def test_f11_the_helper_refuses_end_while_a_predator_could_back_off() -> None:
    # Equal levels block both eaters (F3), but either owner could still back off.
    helper = FoodChainHelper(started())
    helper.command("hunt rabbit on cranberry")
    helper.command("hunt mouse on cranberry")
    helper.table.discard += helper.table.deck
    helper.table.deck = []
    assert helper.command("end") == "no: the game goes on (F11): ann can still back off rabbit"
