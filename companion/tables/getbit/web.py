"""Get Bit! on the phones: the line of robots and their limbs, the hands, a round's cards
tapped in (or chosen secretly, each player on their own phone), the bite, undo.

The page plays rounds through the same :class:`GetBitTable` as the terminal (the same G7
refusals, save file and lights). A round is played under the table's guard, which the
terminal face holds too while it draws or takes a key: it sees the new round at its next
frame, and a key and a tap never interleave. The
page hears of what the terminal did by a watcher that compares a fingerprint of the table
four times a second (the game is replaced, not changed, at every round).

Secret entry: each player picks a card for each of their robots on their own phone; the
server keeps the choices and shows only *who* has chosen, and plays the round when every
robot in the line has a card, so the cards are revealed all at once. The players are the
table's seats (the hub's seat claims): a robot's choice is set or withdrawn only from the
page that claimed its player, and no page plays or undoes a round over the choices.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.errors import InputError
from companion.files import make_room
from companion.games.getbit import GetBit, PlayError, replay
from companion.games.getbit.text import round_lines
from companion.tables.getbit.entry import Entry, entry_order, refusal_text
from companion.tables.getbit.table import GetBitTable
from companion.tables.web.hub import Action, WatchedTable


class GetBitWebTable(WatchedTable):
    """The hub's ``getbit`` table over a :class:`GetBitTable`."""

    name = "getbit"
    history_db: str | None = None  # the database it records into: the History tab reads it

    def __init__(self, table: GetBitTable) -> None:
        self.table = table
        self.chosen: dict[str, int] = {}  # secret choices of the round under way
        self.games = 1  # the games begun from the page: a page that sees it change redraws

    def game_id(self) -> str:
        return str(self.games)

    def fingerprint(self) -> object:
        with self.table.guard:
            return (id(self.table.session.game), tuple(self.table.messages), len(self.chosen))

    # ---------------------------------------------------------------- the state -------

    def state(self) -> dict[str, Any]:
        with self.table.guard:  # not a table half way through the terminal's key
            return self._state()

    def _state(self) -> dict[str, Any]:
        game: GetBit = self.table.session.state
        setup = game.setup
        memory = setup.memory
        robots = []
        for robot, player in setup.robots.items():
            robots.append(
                {
                    "robot": robot,
                    "player": player,
                    "limbs": game.limbs(robot),
                    "place": game.line.index(robot) + 1 if robot in game.line else None,
                    "out": robot in game.out,
                    "hand": None if memory else list(game.hands[robot]),
                    "cards_left": len(game.hands[robot]),
                    "played": None if memory else list(game.played[robot]),
                    "chosen": robot in self.chosen,
                }
            )
        last = self.table.session.last
        shown = None
        if last is not None:
            shown = {
                "number": last.number,
                "cards": None if memory else dict(last.cards),
                "moved": list(last.moved),
                "bitten": last.bitten,
                "out": list(last.out),
                "eaten": last.eaten,
                "picked_up": list(last.picked_up),
                "lines": round_lines(last, game),
            }
        return {
            "round": game.rounds + 1,
            "line": list(game.line),
            "robots": robots,
            "players": list(setup.players),
            "hand_size": setup.hand_size,
            "memory": memory,
            "longer_games": setup.longer_games,
            "order": entry_order(game),
            "over": game.over,
            "winner": game.winner,
            "last": shown,
            "messages": list(self.table.messages),
            "secret": self.table.secret,
            "undo": bool(self.table.session.game.rounds),
        }

    # ---------------------------------------------------------------- from the pages --

    def seats(self) -> list[str]:
        """The players: a page claims one to choose for its robots (the hub keeps claims)."""
        return list(self.table.session.state.setup.players)

    def seat_of(self, action: Action) -> str | None:
        """In a secret game a choice speaks for its robot's player; nothing else does."""
        robot = action.get("robot")
        if not self.table.secret or action["type"] not in ("choose", "unchoose"):
            return None
        with self.table.guard:
            robots = self.table.session.state.setup.robots
            return robots.get(robot) if isinstance(robot, str) else None

    def act(self, action: Action) -> None:
        kind = action["type"]
        with self.table.guard:
            if self.table.secret and kind == "play":
                raise InputError(
                    "type", "a secret round is played when every robot has chosen, not sent whole"
                )
            if self.table.secret and kind == "undo" and self.chosen:
                raise InputError(
                    "type",
                    f"{', '.join(sorted(self.chosen))} chose secretly: undo waits until the "
                    "round is played (or each player withdraws their own choice)",
                )
            if kind == "new_game":
                self._new_game()
            elif kind == "play":
                self._play(self._cards(action.get("cards")))
            elif kind == "choose":
                self._choose(action.get("robot"), action.get("card"))
            elif kind == "unchoose":
                self.chosen.pop(self._robot(action.get("robot")), None)
            elif kind == "undo":
                self.chosen.clear()
                if not self.table.session.game.rounds:
                    raise InputError("type", "nothing to undo")
                self.table.undo()
            else:
                raise InputError(
                    "type", f"{kind!r}: Get Bit! takes play, choose, unchoose, undo, new_game"
                )

    def _new_game(self) -> None:
        """New game (the page asked first): the same setup, the game so far kept aside
        under a new name as ``--new`` does, never deleted."""
        table = self.table
        session = table.session
        kept = make_room(session.path, True)
        session.game = replay(session.setup, ())
        session.save()
        self.chosen.clear()
        self.games += 1
        state = session.state
        table.announced = []
        table.entry = Entry(state, table.secret)
        table.messages = [f"new game from a phone; the last one kept as {kept}"]
        if table.tags is not None:
            table.tags.disarm()
            table.tags.arm(state)
        if table.hardware is not None:
            table.hardware.reset(state)

    def _robot(self, robot: object) -> str:
        game = self.table.session.state
        if not isinstance(robot, str) or robot not in game.setup.robots:
            raise InputError("robot", f"{robot!r} is not a robot of this game")
        return robot

    def _cards(self, given: object) -> dict[str, int]:
        if not isinstance(given, Mapping):
            raise InputError("cards", "the cards are an object: robot -> card")
        return dict(given)

    def _play(self, cards: Mapping[str, object]) -> None:
        """G7 first, so that a refusal is a 400 naming the round, the robot and the card."""
        game = self.table.session.state
        try:
            checked = game.check(cards)
        except PlayError as exc:
            raise InputError("cards", refusal_text(game, exc)) from None
        self.chosen.clear()
        if self.table.hardware is not None:
            self.table.hardware.start_round()
        self.table.play(checked)

    def _choose(self, robot: object, card: object) -> None:
        """A secret choice: checked against the robot's hand, kept until all have chosen."""
        name = self._robot(robot)
        game = self.table.session.state
        if game.over:
            raise InputError("type", f"the game is over ({game.winner} won)")
        if name not in game.line:
            raise InputError("robot", f"{name} is out of the game")
        if isinstance(card, bool) or not isinstance(card, int) or card not in game.hands[name]:
            raise InputError("card", f"{name} cannot play that card: choose again")
        self.chosen[name] = card
        if all(r in self.chosen for r in game.line):
            self._play(dict(self.chosen))
