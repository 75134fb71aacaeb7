"""Food Chain (Brain Games, 2012): the public face of the rules engine.

The engine is split by what it models; this module gathers the names a program uses:

* ``foodchain_cards``: the deck's numbers and the :class:`Catalog` (levels, points and
  symbols, which the rulebook does not print);
* ``foodchain_state``: the actions (:class:`Hunt`, :class:`Eat`, :class:`BackOff`,
  :class:`Switch`, :class:`Pass`) and :class:`FoodChainState`, the forest as a list of
  chains, each a tree of predators on a food card;
* ``foodchain_score``: :class:`Tally`, :func:`score`, :func:`score_optional`, :func:`winners`;
* ``foodchain_formats``: the catalog, actions, a whole game and the score sheet from and
  to plain data.

Nothing here reads a file, a clock or a pin; the only randomness (the shuffle, the
optional rule's draw) comes through a passed ``random.Random``. The rulings F1-F13
(docs/foodchain.md) are the project's own:

F1. Hunting marks the hunter with one of your own-colour tokens; none left, no hunt. The
    Swarm needs none.
F2. Any card in the forest may be hunted when both symbols match; hunting your own
    predator is allowed.
F3. Eat only with a free predator strictly higher than every rival preying on that food;
    equal levels block everyone, your own included; a card sitting on the food without
    preying on it (an eater that moved down, F4) is no rival.
F4. The eater takes the eaten card's place and the symbols still bind it: it may later
    eat the card beneath only if it preys on it. A chain left with one card does not
    remain: the eater is discarded and its token goes home.
F5. Rivals on the eaten food are discarded with everything on them, tokens home.
F6. The Huntsman preys on any card, outranks every creature, needs a token and is
    discarded after he eats.
F7. The Swarm chases a free creature or predator on top of a chain (the Huntsman
    included), never a bare plant: both cards are discarded, tokens home, the player
    draws. A chain whose food card (a creature) is chased goes; a new one is turned up.
F8. Switch only your own free predator (never a bare food card) for a hand card of
    strictly higher level that can legally prey on the card beneath; no draw.
F9. A bonus card turned up to start a chain goes under the deck.
F10. Tokens held both ways are swapped back at once.
F11. The end: the deck is empty and nobody can do anything but pass (rounds of passes
    do not end it); predators left are discarded, tokens home.
F12. Equal totals share the win; a score sheet refuses a bonus card as eaten food and
    points no card of the catalog has.
F13. Optional rule: own tokens score 0; each captured token draws a random card from its
    owner's food pile, in seat order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.games.foodchain.cards import (
    BONUS_CARDS,
    CATALOG_FORMAT,
    DECK_SIZE,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    TOKENS_PER_PLAYER,
    Bonus,
    CardKind,
    Catalog,
    chains_wanted,
    roman,
    to_roman,
)
from companion.games.foodchain.formats import (
    action_from_dict,
    action_to_dict,
    catalog_from_dict,
    sheet_catalog,
    sheet_from_dict,
    state_from_dict,
)
from companion.games.foodchain.score import (
    Eaten,
    PlayerScore,
    Tally,
    score,
    score_optional,
    winners,
)
from companion.games.foodchain.state import (
    Action,
    BackOff,
    Eat,
    FoodChainState,
    Hunt,
    Pass,
    Switch,
    check_players,
)

if TYPE_CHECKING:
    from companion.games.turns import TurnGame

    def _plays_turns(game: FoodChainState) -> TurnGame[Action]:
        """mypy checks here that the engine is a :class:`TurnGame`."""
        return game


__all__ = [
    "BONUS_CARDS",
    "CATALOG_FORMAT",
    "DECK_SIZE",
    "HAND_SIZE",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "TOKENS_PER_PLAYER",
    "Action",
    "BackOff",
    "Bonus",
    "CardKind",
    "Catalog",
    "Eat",
    "Eaten",
    "FoodChainState",
    "Hunt",
    "Pass",
    "PlayerScore",
    "Switch",
    "Tally",
    "action_from_dict",
    "action_to_dict",
    "catalog_from_dict",
    "chains_wanted",
    "check_players",
    "roman",
    "score",
    "score_optional",
    "sheet_catalog",
    "sheet_from_dict",
    "state_from_dict",
    "to_roman",
    "winners",
]
