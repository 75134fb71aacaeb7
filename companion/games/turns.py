"""What a turn-based engine offers (Chips, Food Chain), so one playout suite runs on both.

An engine keeps every card in exactly one place and says, at any moment, who acts, what
she may do and why anything else is refused. Nothing here knows a game: the protocol is
structural, and :func:`random_playout` only plays what the engine offers.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol, Self, TypeVar

from companion.errors import RuleError

ActionT = TypeVar("ActionT")


class TurnGame(Protocol[ActionT]):
    """A game played one decision at a time by the player ``to_act``."""

    @property
    def players(self) -> tuple[str, ...]: ...

    @property
    def over(self) -> bool: ...

    @property
    def to_act(self) -> str:
        """Who must decide now (the player to move, or the one a step waits for)."""
        ...

    def legal_actions(self) -> list[ActionT]:
        """Every action ``to_act`` may take now; none once the game is over."""
        ...

    def why_not(self, action: ActionT) -> str | None:
        """Why ``to_act`` may not take ``action`` now; None if she may."""
        ...

    def apply(self, action: ActionT, rng: random.Random) -> None:
        """Play ``action``; an illegal one raises RuleError and changes nothing."""
        ...

    def misplaced(self) -> list[str]:
        """Accounting problems: a card not in exactly one place, a token lost. Empty when
        the state is whole."""
        ...

    def clone(self) -> Self: ...

    def to_dict(self) -> dict[str, Any]: ...


Chooser = Callable[[Sequence[Any], random.Random], Any]


def uniform(actions: Sequence[Any], rng: random.Random) -> Any:
    """Any legal action, each as likely."""
    return actions[rng.randrange(len(actions))]


class PlayoutLimit(RuleError):
    """A playout did not end within its bound of moves."""


def random_playout(
    game: TurnGame[ActionT],
    rng: random.Random,
    limit: int,
    choose: Chooser = uniform,
    each: Callable[[TurnGame[ActionT], ActionT], None] | None = None,
) -> int:
    """Play ``game`` to its end with ``choose`` picking among the legal actions; the
    number of moves. ``each`` sees every move after it is played. PlayoutLimit when the
    game is not over after ``limit`` moves."""
    for moves in range(limit):
        if game.over:
            return moves
        action = choose(game.legal_actions(), rng)
        game.apply(action, rng)
        if each is not None:
            each(game, action)
    if game.over:
        return limit
    raise PlayoutLimit(f"the game did not end within {limit} moves")
