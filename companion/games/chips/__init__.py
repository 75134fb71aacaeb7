"""The Great Chips Escape: the public face of the rules engine.

The engine is split by what it models; this module gathers the names a program uses:

* ``chips_cards``: the numbers 1-9, the escape and fish-or-chips cards, :class:`ChipsRules`
  (the deck composition, a setting: the rulebook states only the totals);
* ``chips_actions``: the actions (:class:`Discard`, :class:`RevealFish`, ...) and the steps
  a turn can wait for (:class:`ChipsStep`, :class:`Pending`, :class:`TableStep`);
* ``chips_state``: :class:`ChipsState`, the whole game with every card known (tests,
  playouts, simulations);
* ``chips_table``: :class:`ChipsTable`, what a helper at a real table can know (whose turn,
  the top card, the counts) from what the players announce;
* ``chips_formats``: the same from and to plain data.

Nothing here reads a file, a clock or a pin; every shuffle comes from a passed
``random.Random``. The rulings E1-E13 (docs/chips.md) are the project's own:

E1. A discard shows the top card's number, one more or one less; 9 and 1 are neighbours.
E2. A card drawn from the deck is usable from its holder's next turn; a card taken by a
    Spy Fry swap at once.
E3. A hand that becomes empty by any means (a Golden Knight cover included) wins at once,
    before the last card's effect.
E4. Sir Fries: its player then discards a card showing one of its numbers if she has
    one; the numbers are a set (any order); that card's effect resolves.
E5. Triple Chips: 0-3 further cards, resolve the last. Chips Heroes: one free card, then
    on while legal, resolve the last.
E6. Only the player revealing a Mad Fish may cover it, at once, with a Golden Knight: no
    draw, no count.
E7. A third Mad Fish loses at once: no draw; her cards go under the top discard.
E8. Fish-or-Chips Time: the next player (with the sign, any other player with a face-down
    card) reveals; the turn passes after the revealer. A chosen player with nothing face
    down reveals nothing and is still passed over.
E9. Spy Fry: look at a hand; swap one card for one, or none.
E10. An empty deck is rebuilt from the discard pile but its top card when a draw needs it.
E11. Every fish-or-chips card revealed: gather them all and deal five again.
E12. A player who can do nothing passes.
E13. The rulebook does not say which number each special card or Mad Fish shows: the
    helper without a deck file accepts any special card on any number and a Mad Fish
    draw of at least 1 (``ChipsTable.strict`` False); a deck file makes it strict.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.games.chips.actions import (
    REVEAL_TARGET,
    STEP_TITLES,
    Action,
    ChipsStep,
    Choose,
    Decline,
    Discard,
    Draw,
    Knight,
    PassTurn,
    Pending,
    RevealFish,
    Spy,
    StopTriple,
    TableStep,
    check_players,
    next_in,
)
from companion.games.chips.cards import (
    KIND_TITLES,
    NUMBERS,
    SPECIAL_KINDS,
    ChipsRules,
    EscapeCard,
    FishCard,
    FishKind,
    Kind,
    a,
    either,
    follows,
    neighbours,
)
from companion.games.chips.formats import (
    pending_from_dict,
    rules_from_dict,
    state_from_dict,
    table_from_dict,
)
from companion.games.chips.state import ChipsState
from companion.games.chips.table import ChipsTable

if TYPE_CHECKING:
    from companion.games.turns import TurnGame

    def _plays_turns(game: ChipsState) -> TurnGame[Action]:
        """mypy checks here that the engine is a :class:`TurnGame`."""
        return game


__all__ = [
    "KIND_TITLES",
    "NUMBERS",
    "REVEAL_TARGET",
    "SPECIAL_KINDS",
    "STEP_TITLES",
    "Action",
    "ChipsRules",
    "ChipsState",
    "ChipsStep",
    "ChipsTable",
    "Choose",
    "Decline",
    "Discard",
    "Draw",
    "EscapeCard",
    "FishCard",
    "FishKind",
    "Kind",
    "Knight",
    "PassTurn",
    "Pending",
    "RevealFish",
    "Spy",
    "StopTriple",
    "TableStep",
    "a",
    "check_players",
    "either",
    "follows",
    "neighbours",
    "next_in",
    "pending_from_dict",
    "rules_from_dict",
    "state_from_dict",
    "table_from_dict",
]
