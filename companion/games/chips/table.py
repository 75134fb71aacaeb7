"""The Great Chips Escape as a helper at a real table follows it: public counts only."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from companion.errors import RuleError
from companion.games.chips.actions import (
    REVEAL_TARGET,
    STEP_TITLES,
    ChipsStep,
    TableStep,
    check_players,
    next_in,
)
from companion.games.chips.cards import (
    KIND_TITLES,
    NUMBERS,
    ChipsRules,
    EscapeCard,
    Kind,
    a,
    either,
    follows,
    neighbours,
)

# --------------------------------------------------------------------------------------
# The table helper's model: only what the players can see
# --------------------------------------------------------------------------------------


@dataclass
class ChipsTable:
    """The game as a helper at a real table follows it, from what the players announce.

    Hands are hidden, so it keeps counts: cards in each hand (and how many of them were
    drawn since that player's turn began, E2), face-down fish-or-chips cards, uncovered
    Mad Fish, the deck and the discard pile. It refuses a discard whose number does not
    fit, a player with no card she may play, and anything out of turn. Where only the
    hand could tell (may she continue Chips Heroes? does she hold a Golden Knight?) it
    asks, and ``stop``/``decline`` answer no.
    """

    rules: ChipsRules
    players: tuple[str, ...]
    turn: str
    top: int | None = None  # None until the deck's top card is turned over
    hands: dict[str, int] = field(default_factory=dict)
    fresh: dict[str, int] = field(default_factory=dict)
    down: dict[str, int] = field(default_factory=dict)
    mad: dict[str, int] = field(default_factory=dict)
    knights: dict[str, int] = field(default_factory=dict)
    deck: int = 0
    discard: int = 0
    out: list[str] = field(default_factory=list)
    winner: str | None = None
    pending: TableStep | None = None
    strict: bool = False  # E13: the deck is known card by card (a deck file)

    @classmethod
    def new(
        cls,
        players: Sequence[str],
        rules: ChipsRules | None = None,
        first: str | None = None,
        strict: bool = False,
    ) -> ChipsTable:
        rules = rules or ChipsRules()
        seats = check_players(players, rules)
        if first is not None and first not in seats:
            raise RuleError(f"{first!r} is not at the table")
        dealt = rules.hand_size * len(seats)
        return cls(
            rules,
            seats,
            first or seats[0],
            hands=dict.fromkeys(seats, rules.hand_size),
            fresh=dict.fromkeys(seats, 0),
            down=dict.fromkeys(seats, rules.fish_per_player),
            mad=dict.fromkeys(seats, 0),
            knights=dict.fromkeys(seats, 0),
            deck=rules.escape_total - dealt,
            strict=strict,
        )

    # ---------------------------------------------------------------- queries --------

    @property
    def active(self) -> tuple[str, ...]:
        return tuple(p for p in self.players if p not in self.out)

    @property
    def actor(self) -> str | None:
        if self.winner is not None:
            return None
        return self.pending.player if self.pending else self.turn

    def usable(self, player: str) -> int:
        return self.hands[player] - self.fresh[player]

    def can_draw(self) -> bool:
        return self.deck > 0 or self.discard > 1

    def prompt(self) -> str:
        """What the table should do next, in one line."""
        if self.winner is not None:
            return f"Game over: {self.winner} wins!"
        if self.top is None:
            return "Turn over the deck's top card and type its number."
        p, step = self.actor, self.pending
        assert p is not None
        fits = either(neighbours(self.top))
        if step is None:
            moves = [f"discard {fits}"] if self.usable(p) else []
            if self.down[p]:
                moves.append("reveal a fish-or-chips card")
            if self.can_draw():
                moves.append("draw")
            if not moves:
                return f"{p}'s turn: nothing to do, pass."
            return (
                f"{p}'s turn: "
                + ", ".join(moves[:-1])
                + (" or " if len(moves) > 1 else "")
                + moves[-1]
                + "."
            )
        if step.step is ChipsStep.KNIGHT:
            return f"{p}: cover the Mad Fish with a Golden Knight? (knight / no)"
        if step.step is ChipsStep.SIR_FRIES:
            shown = either(step.numbers) if step.numbers else "a card showing one of its numbers"
            return f"{p}: Sir Fries, discard {shown} if you have one (or: done)."
        if step.step is ChipsStep.SPY_FRY:
            return f"{p}: Spy Fry, whose hand do you look at? (name a player)"
        if step.step is ChipsStep.FISH_TIME:
            return f"{p}: Fish-or-Chips Time, who must reveal? (name a player)"
        if step.step is ChipsStep.REVEAL:
            return f"{p}: Fish or Chips! reveal one of your face-down cards now."
        if step.step is ChipsStep.TRIPLE:
            return f"{p}: Triple Chips, discard up to {step.left} more ({fits}), or done."
        if step.first:
            return f"{p}: Chips Heroes, discard any card (or: done if you cannot)."
        return f"{p}: Chips Heroes, keep discarding {fits} (done when you cannot)."

    # ---------------------------------------------------------------- commands -------

    def start(self, top: int) -> str:
        """The deck's top card is turned over to start the discard pile (its number only)."""
        if self.top is not None:
            raise RuleError("the discard pile has already started")
        if top not in NUMBERS:
            raise RuleError(f"cards show 1 to 9, not {top}")
        self.top = top
        self.deck -= 1
        self.discard = 1
        return f"Top card {top}. {self.turn} begins."

    def known(self, card: EscapeCard) -> EscapeCard:
        """The card as the rules know it (Sir Fries' numbers filled in when the deck is
        known); RuleError when a strict deck makes no such card.

        E13: the rulebook does not say which number each special card shows, so without a
        deck file (``strict`` False) any special card on any number 1-9 is accepted as
        announced. Sir Fries' numbers are a set: ``2,8`` and ``8,2`` are the same (E4).
        """
        if card.number not in NUMBERS:
            raise RuleError(f"cards show 1 to 9, not {card.number}")
        if card.kind is Kind.NUMBER:
            if not self.rules.normal[card.number - 1]:
                raise RuleError(f"these rules have no number card {card.number}")
            return card
        if not self.strict:
            return card
        title = KIND_TITLES[card.kind]
        wanted = frozenset(card.numbers)
        shown = [
            c
            for c in self.rules.specials_shown(card.kind, card.number)
            if c.any_player == card.any_player and (not wanted or frozenset(c.numbers) == wanted)
        ]
        if not shown:
            sign = " with the any-player sign" if card.any_player else ""
            numbers = f" for {'/'.join(map(str, sorted(wanted)))}" if wanted else ""
            raise RuleError(f"no {title} card{sign} shows a {card.number}{numbers} in this deck")
        if len({frozenset(c.numbers) for c in shown}) > 1:
            options = " or ".join("/".join(map(str, c.numbers)) for c in shown)
            raise RuleError(f"which {title} {card.number}: the one for {options}?")
        return shown[0]

    def mad_fish_draws(self) -> tuple[int, int] | frozenset[int]:
        """What a revealed Mad Fish may make her draw: the deck's counts when it is known,
        else any count from 1 (E13) up to every escape card there is."""
        if self.strict:
            return frozenset(d for d, n in self.rules.mad_fish if n)
        return (1, self.rules.escape_total)

    def _busy(self) -> str:
        step = self.pending
        assert step is not None
        return f"not now: {step.player} is in the middle of {STEP_TITLES[step.step]}"

    def _ready(self) -> str:
        if self.winner is not None:
            raise RuleError(f"the game is over: {self.winner} won")
        if self.top is None:
            raise RuleError("first turn over the deck's top card: type its number")
        actor = self.actor
        assert actor is not None
        return actor

    def discard_card(self, card: EscapeCard) -> str:
        """``actor`` discards ``card``; a special card's effect follows."""
        p = self._ready()
        step = self.pending
        assert self.top is not None
        card = self.known(card)
        if step is not None and step.step not in (
            ChipsStep.TRIPLE,
            ChipsStep.HEROES,
            ChipsStep.SIR_FRIES,
        ):
            raise RuleError(self._busy())
        if self.usable(p) < 1:
            why = "no cards" if not self.hands[p] else "only cards drawn since her turn began"
            raise RuleError(f"{p} has {why}: nothing she may discard")
        if step is not None and step.step is ChipsStep.SIR_FRIES:
            if step.numbers and card.number not in step.numbers:
                raise RuleError(
                    f"Sir Fries lets {p} discard {either(step.numbers)}, not {a(card.number)}"
                )
        elif not (step is not None and step.step is ChipsStep.HEROES and step.first):
            if not follows(self.top, card.number):
                raise RuleError(
                    f"{a(card.number)} cannot go on {a(self.top)}: "
                    f"play {either(neighbours(self.top))}"
                )
        self.hands[p] -= 1
        self.discard += 1
        self.top = card.number
        if self.hands[p] == 0:
            self.winner = p
            self.pending = None
            return f"{p} discards her last card and frees the fries: {p} wins!"
        said = f"{p} discards {card.title()}."
        if step is None or step.step is ChipsStep.SIR_FRIES:
            return said + self._resolve(p, card)
        if step.step is ChipsStep.TRIPLE:
            if step.left > 1 and self.usable(p):
                self.pending = replace(step, left=step.left - 1, last=card)
                return said
            return said + self._after_chain(p, card)
        if self.usable(p):
            self.pending = replace(step, first=False, last=card)
            return said
        return said + self._after_chain(p, card)

    def draw(self) -> str:
        p = self._ready()
        if self.pending is not None:
            raise RuleError(self._busy())
        if not self.can_draw():
            raise RuleError("there is no card left to draw")
        said = f"{p} draws a card (playable from the next turn on)." + self._draw_into(p, 1)
        return said + self._end(p)

    def reveal_mad_fish(self, draw: int) -> str:
        allowed = self.mad_fish_draws()
        if isinstance(allowed, frozenset):
            if draw not in allowed:
                counts = " or ".join(map(str, sorted(allowed)))
                raise RuleError(f"this deck's Mad Fish draw {counts}, not {draw}")
        elif not allowed[0] <= draw <= allowed[1]:
            raise RuleError(f"a Mad Fish draws {allowed[0]} to {allowed[1]} cards, not {draw}")
        p = self._reveal_check()
        self.down[p] -= 1
        self.mad[p] += 1
        said = f"{p} reveals a Mad Fish (draw {draw})."
        if self.usable(p):
            self.pending = TableStep(ChipsStep.KNIGHT, p, draw=draw)
            return said
        return said + self._mad_fish(p, draw)

    def reveal_heroes(self) -> str:
        p = self._reveal_check()
        self.down[p] -= 1
        said = f"{p} reveals Chips Heroes!"
        if self.usable(p):
            self.pending = TableStep(ChipsStep.HEROES, p, first=True)
            return said
        return said + " No card she may play." + self._end(p)

    def _reveal_check(self) -> str:
        p = self._ready()
        if self.pending is not None and self.pending.step is not ChipsStep.REVEAL:
            raise RuleError(self._busy())
        if not self.down[p]:
            raise RuleError(f"{p} has no face-down fish-or-chips card left")
        return p

    def knight(self) -> str:
        p = self._ready()
        step = self.pending
        if step is None or step.step is not ChipsStep.KNIGHT:
            raise RuleError("no Mad Fish is waiting for a Golden Knight")
        self.hands[p] -= 1
        self.knights[p] += 1
        self.mad[p] -= 1
        said = f"{p}'s Golden Knight cancels the Mad Fish."
        if self.hands[p] == 0:  # E3: her last card, she wins at once
            self.winner = p
            self.pending = None
            return f"{said} It was her last card: {p} wins!"
        return said + self._end(p)

    def decline(self) -> str:
        p = self._ready()
        step = self.pending
        if step is None or step.step is not ChipsStep.KNIGHT:
            raise RuleError("nothing to decline")
        return self._mad_fish(p, step.draw)

    def stop(self) -> str:
        """Triple Chips stops early; Chips Heroes or Sir Fries: nothing (more) she can play."""
        p = self._ready()
        step = self.pending
        if step is None or step.step not in (
            ChipsStep.TRIPLE,
            ChipsStep.HEROES,
            ChipsStep.SIR_FRIES,
        ):
            raise RuleError("nothing to stop: no Triple Chips, Chips Heroes or Sir Fries under way")
        if step.step is ChipsStep.SIR_FRIES:
            return f"{p} has no card for Sir Fries." + self._end(p)
        return self._after_chain(p, step.last)

    def choose(self, target: str) -> str:
        p = self._ready()
        step = self.pending
        if step is None or step.step is not ChipsStep.FISH_TIME:
            raise RuleError("nobody has to choose who reveals now")
        if target == p or target not in self.active or not self.down.get(target):
            raise RuleError(f"{target} cannot be made to reveal: {REVEAL_TARGET}")
        self.pending = TableStep(ChipsStep.REVEAL, target)
        return f"{target} must reveal a fish-or-chips card."

    def spy(self, target: str) -> str:
        p = self._ready()
        step = self.pending
        if step is None or step.step is not ChipsStep.SPY_FRY:
            raise RuleError("no Spy Fry is waiting")
        if target == p or target not in self.active:
            raise RuleError(f"{target} is not another player still in the game")
        # A swap is not seen: give both the benefit of the doubt (E2, E9).
        for who in (p, target):
            self.fresh[who] = max(0, self.fresh[who] - 1)
        return f"{p} looks at {target}'s hand and may swap one card." + self._end(p)

    def pass_turn(self) -> str:
        p = self._ready()
        if self.pending is not None:
            raise RuleError(self._busy())
        if self.down[p] or self.can_draw():
            raise RuleError(f"{p} can still reveal or draw: no passing")
        return f"{p} passes." + self._end(p)

    # ---------------------------------------------------------------- the flow -------

    def _draw_into(self, p: str, n: int) -> str:
        said = ""
        for _ in range(n):
            if self.deck == 0:
                if self.discard < 2:
                    return said + " No card left to draw."
                self.deck, self.discard = self.discard - 1, 1
                said += " Deck empty: shuffle the discard pile but its top card into a new deck."
            self.deck -= 1
            self.hands[p] += 1
            self.fresh[p] += 1
        return said

    def _after_chain(self, p: str, last: EscapeCard | None) -> str:
        self.pending = None
        return self._end(p) if last is None else self._resolve(p, last)

    def _resolve(self, p: str, card: EscapeCard) -> str:
        self.pending = None
        if card.kind is Kind.CHIPS_FOR_EVERYONE:
            said = " Chips for everyone: every other player draws a card."
            q = next_in(self.players, self.out, p)
            while q != p:
                said += self._draw_into(q, 1)
                q = next_in(self.players, self.out, q)
            return said + self._end(p)
        if card.kind is Kind.SIR_FRIES and self.usable(p):
            self.pending = TableStep(ChipsStep.SIR_FRIES, p, numbers=card.numbers)
            return ""
        if card.kind is Kind.SPY_FRY:
            self.pending = TableStep(ChipsStep.SPY_FRY, p)
            return ""
        if card.kind is Kind.FISH_OR_CHIPS_TIME:  # E8
            if card.any_player and any(q != p and self.down[q] for q in self.active):
                self.pending = TableStep(ChipsStep.FISH_TIME, p)
                return ""
            q = next_in(self.players, self.out, p)
            if self.down[q]:
                self.pending = TableStep(ChipsStep.REVEAL, q)
                return f" {q} must reveal a fish-or-chips card."
            return f" {q} has no face-down card to reveal and is passed over." + self._end(q)
        if card.kind is Kind.TRIPLE_CHIPS and self.usable(p):
            self.pending = TableStep(ChipsStep.TRIPLE, p, left=3)
            return ""
        return self._end(p)

    def _mad_fish(self, p: str, draw: int) -> str:
        self.pending = None
        if self.mad[p] >= self.rules.mad_fish_to_lose:
            self.out.append(p)
            self.discard += self.hands[p] + self.knights[p]
            self.hands[p] = self.fresh[p] = self.down[p] = self.mad[p] = self.knights[p] = 0
            said = f" {self.rules.mad_fish_to_lose} Mad Fish: {p} is out of the game!"
            if len(self.active) == 1:
                self.winner = self.active[0]
                return said + f" {self.winner} wins!"
            return said + self._end(p)
        said = f" {p} draws {draw}." + self._draw_into(p, draw)
        return said + self._end(p)

    def _end(self, p: str) -> str:
        self.pending = None
        said = ""
        if all(not self.down[q] for q in self.active):
            self.discard += sum(self.knights.values())
            for q in self.players:
                self.mad[q] = self.knights[q] = 0
                self.down[q] = self.rules.fish_per_player if q in self.active else 0
            said = (
                " Every fish-or-chips card is revealed: shuffle them all and deal "
                f"{self.rules.fish_per_player} face down again (Mad Fish counts start over)."
            )
        self.turn = next_in(self.players, self.out, p)
        self.fresh[self.turn] = 0
        return said

    # ---------------------------------------------------------------- plain data -----

    def public(self) -> dict[str, Any]:
        """The same view as :meth:`ChipsState.public`."""
        return {
            "turn": self.turn,
            "actor": self.actor,
            "top": self.top,
            "hands": dict(self.hands),
            "down": dict(self.down),
            "mad_fish": dict(self.mad),
            "knights": dict(self.knights),
            "deck": self.deck,
            "discard": self.discard,
            "out": list(self.out),
            "winner": self.winner,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.public(),
            "players": list(self.players),
            "fresh": dict(self.fresh),
            "rules": self.rules.to_dict(),
            "strict": self.strict,
            "pending": None if self.pending is None else self.pending.to_dict(),
        }
