"""What the players type at a Chips table: one line, one command (docs/chips.md).

Every line is either done on the :class:`ChipsTable` or refused with one
:class:`RuleError` line saying why; a refused line changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from companion import data
from companion import text as gate
from companion.errors import RuleError
from companion.games.chips import ChipsStep, ChipsTable, EscapeCard, Kind

KIND_WORDS: dict[str, Kind] = {
    "everyone": Kind.CHIPS_FOR_EVERYONE,
    "cfe": Kind.CHIPS_FOR_EVERYONE,
    "knight": Kind.GOLDEN_KNIGHT,
    "gk": Kind.GOLDEN_KNIGHT,
    "sir": Kind.SIR_FRIES,
    "fries": Kind.SIR_FRIES,
    "spy": Kind.SPY_FRY,
    "time": Kind.FISH_OR_CHIPS_TIME,
    "foct": Kind.FISH_OR_CHIPS_TIME,
    "triple": Kind.TRIPLE_CHIPS,
}

COMMAND_WORDS = frozenset(
    {
        *KIND_WORDS,
        "top",
        "draw",
        "d",
        "reveal",
        "mad",
        "heroes",
        "k",
        "no",
        "n",
        "done",
        "choose",
        "pass",
        "undo",
        "u",
        "status",
        "s",
        "help",
        "?",
        "quit",
        "q",
        "exit",
        "any",
    }
)

HELP = """\
Commands (one per line; the number first for a discard):
  5                 discard a 5 (a number card, or a special card discarded for nothing)
  5 everyone        Chips for Everyone: all other players draw a card
  5 knight          a Golden Knight discarded normally (no effect)
  5 sir [6,9]       Sir Fries (its numbers, if the rules have two Sir Fries 5s)
  5 spy             Spy Fry, then name the player whose hand you look at
  5 time [any]      Fish-or-Chips Time ('any': the card with the any-player sign)
  5 triple          Triple Chips: then up to three discards, 'done' to stop
  draw              draw a card (playable from your next turn)
  reveal mad 2      reveal a Mad Fish that makes you draw 2 (or: mad 2)
  reveal heroes     reveal Chips Heroes (or: heroes)
  knight | no       cover the Mad Fish just revealed with a Golden Knight, or not
  done              stop Triple Chips; no more cards for Chips Heroes or Sir Fries
  NAME              who must reveal (Fish-or-Chips Time), whose hand (Spy Fry)
  pass              nothing else is possible
  undo  status  help  quit"""


def check_name(name: str, where: str) -> str:
    """Player names must not read as commands or numbers at the prompt."""
    if name.lower() in COMMAND_WORDS or _digits(name):
        raise data.fail(where, f"{name!r} reads as a command: choose another name")
    return name


def _shown(word: str) -> str:
    """A typed word as a refusal quotes it: cut short, so a refusal stays one line."""
    return repr(word if len(word) <= 12 else word[:10] + "…")


def _digits(word: str) -> bool:
    """Whether the prompt reads the word as a number (ASCII digits only, by the text
    gate: ``"²".isdigit()`` is True but ``int("²")`` fails)."""
    return gate.is_digits(word)


def _number(word: str) -> int:
    number = gate.number_or_none(word, low=1, high=9) if len(word) == 1 else None
    if number is None:
        raise RuleError(f"cards show 1 to 9, not {_shown(word)}")
    return number


def _card(words: Sequence[str]) -> EscapeCard:
    """``5``, ``5 triple``, ``3 sir 6,9``, ``1 time any``."""
    number = _number(words[0])
    if len(words) == 1:
        return EscapeCard(Kind.NUMBER, number)
    kind = KIND_WORDS.get(words[1].lower())
    if kind is None:
        raise RuleError(
            f"unknown card {_shown(words[1])} (one of: {', '.join(sorted(set(KIND_WORDS)))})"
        )
    rest = [w.lower() for w in words[2:]]
    if kind is Kind.SIR_FRIES and rest:
        if len(rest) > 1:
            raise RuleError(f"give Sir Fries' numbers in one word: {words[0]} sir 2,8")
        numbers = tuple(
            dict.fromkeys(_number(n) for n in rest[0].replace("/", ",").split(",") if n)
        )
        return EscapeCard(kind, number, numbers)
    if kind is Kind.FISH_OR_CHIPS_TIME and rest:
        if rest != ["any"]:
            raise RuleError(
                f"'{words[0]} time' takes only 'any' after it, not {_shown(' '.join(rest))}"
            )
        return EscapeCard(kind, number, any_player=True)
    if rest:
        raise RuleError(f"nothing goes after '{words[0]} {words[1]}'")
    return EscapeCard(kind, number)


def execute(table: ChipsTable, words: Sequence[str]) -> str:
    """One game command on the table; RuleError (nothing changed) when it is not allowed."""
    head = words[0].lower()
    step = table.pending.step if table.pending else None
    if table.top is None:
        if head == "top" and len(words) == 2:
            return table.start(_number(words[1]))
        if _digits(head) and len(words) == 1:
            return table.start(_number(head))
        raise RuleError("first turn over the deck's top card and type its number")
    if _digits(head):
        return table.discard_card(_card(words))
    if head in ("draw", "d") and len(words) == 1:
        return table.draw()
    if head == "reveal":
        words = words[1:]
        if not words:
            raise RuleError("reveal what? reveal mad 2 (a Mad Fish drawing 2) or reveal heroes")
        head = words[0].lower()
    if head == "mad":
        if len(words) != 2 or not _digits(words[1]) or len(words[1]) > 3:
            raise RuleError("say how many cards the Mad Fish makes her draw: mad 2")
        return table.reveal_mad_fish(int(words[1]))
    if head == "heroes" and len(words) == 1:
        return table.reveal_heroes()
    if head in ("knight", "k") and len(words) == 1:
        return table.knight()
    if head in ("no", "n") and len(words) == 1:
        return table.decline()
    if head == "done" and len(words) == 1:
        return table.stop()
    if head == "pass" and len(words) == 1:
        return table.pass_turn()
    if head in ("choose", "spy") and len(words) == 2:
        words = words[1:]
    name = next((p for p in table.players if p.lower() == words[0].lower()), None)
    if name is not None and len(words) == 1:
        if step is ChipsStep.SPY_FRY:
            return table.spy(name)
        if step is ChipsStep.FISH_TIME:
            return table.choose(name)
        raise RuleError("nobody needs a player's name now")
    raise RuleError(f"not a command: {_shown(' '.join(words))} (type help)")
