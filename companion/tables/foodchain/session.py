"""``companion foodchain play``: following a game of Food Chain at the table.

The players say what they do (``hunt fox on rabbit``, ``eat fox``, ``pass berry``) and the
name of each card turned up to start a food chain; the helper keeps the forest, the
tokens, the food piles and the counts with :class:`FoodChainTable`, offers what the player
to move may do, refuses a move the rules forbid (with the reason, changing nothing) and
scores the end. ``undo`` takes back the last line that changed the game.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from companion.errors import InputError, RuleError
from companion.games.foodchain import BackOff, Bonus, Eat, Hunt, Pass, Switch, score, winners
from companion.games.foodchain.table import FoodChainTable
from companion.games.foodchain.text import score_lines
from companion.tables.shell import table_command, typed_words

CARD_ID = re.compile(r"[^\s:,'#]+#\d+")

HELP = """\
Commands (one per line; cards by name, or name#n when two share a name):
  hunt fox on rabbit    play a fox from your hand onto the rabbit (swarm: chase it away)
  eat fox               your fox eats the card it preys on
  back fox              take your fox back off the table (back off)
  switch rabbit for bear  your free rabbit goes to your hand, a bear from it takes its place
  pass berry            discard a berry and draw (with an empty hand: pass)
  end                   nobody can do anything but pass (the deck is empty)
  NAME                  the card turned up to start a food chain
  none                  no card can start one: only bonus cards are left in the deck
  undo  status  help  quit"""


def forest_lines(table: FoodChainTable) -> list[str]:
    """The forest as the table sees it: each chain, each predator above its food."""
    kids = table._children()
    lines: list[str] = []

    def visit(card: str, depth: int, prefix: str) -> None:
        owner = table.token.get(card)
        mark = f" [{owner}]" if owner else ""
        waiting = " (to be named)" if card in table.unconfirmed else ""
        name = "?" if waiting else table.label(card)
        lines.append(f"{prefix}{'   ' * depth}{name}{mark}{waiting}")
        for above in kids[card]:
            visit(above, depth + 1, " " * len(prefix))

    for i, root in enumerate(table.chains, 1):
        visit(root, 0, f"  {i}. ")
    return lines or ["  (no food chain)"]


def status_text(table: FoodChainTable) -> str:
    """Forest, deck, discard pile, and per player: cards in hand, tokens, food pile."""
    lines = ["Forest:", *forest_lines(table)]
    lines.append(f"Deck {len(table.deck)} · discard pile {len(table.discard)}")
    width = max(len(p) for p in table.players)
    for p in table.players:
        mark = "▶" if p == table.current and not table.over else " "
        held = ", ".join(f"{c} {n}" for c, n in sorted(table.supply[p].items()) if n) or "none"
        pile = table.food[p]
        points = sum(table.kind(c).points for c in pile)
        eaten = ", ".join(table.kind(c).name for c in pile) or "nothing"
        lines.append(
            f"{mark} {p:<{width}}  {len(table.hands[p])} cards  tokens {held}  "
            f"eaten {eaten} ({points})"
        )
    return "\n".join(lines)


def prompt(table: FoodChainTable) -> str:
    """What the table should do next: name a card, or the moves of the player to act."""
    if table.unconfirmed:
        n = table.chains.index(table.unconfirmed[0]) + 1
        return f"Turn up the deck's top card for food chain {n}: which card is it?"
    if table.over:
        return "Game over. Final score:\n" + "\n".join(end_lines(table))
    return f"{table.current}'s turn:\n" + "\n".join(f"  {line}" for line in table.offers())


def end_lines(table: FoodChainTable) -> list[str]:
    scores = score(table.tally())
    return score_lines(scores, winners(scores))


@dataclass
class FoodChainHelper:
    """The table, its undo history and what the last line did."""

    table: FoodChainTable
    history: list[FoodChainTable] = field(default_factory=list)

    def _labelled(self, text: str) -> str:
        """Forest cards by the names the table uses (``fox`` rather than ``fox#3``)."""
        forest = set(self.table.forest())
        return CARD_ID.sub(lambda m: self.table.label(m[0]) if m[0] in forest else m[0], text)

    def undo(self) -> str:
        """Back to before the last line that changed the table."""
        if not self.history:
            return "nothing to undo"
        self.table = self.history.pop()
        return "undone."

    def command(self, line: str) -> str | None:
        """One typed line; the reply (help and status: several lines), None to quit."""
        try:
            words = typed_words(line)  # the terminal and the page alike
        except InputError as exc:
            return f"no: {exc}"
        if not words:
            return ""
        common, reply = table_command(words, HELP, lambda: status_text(self.table), self.undo)
        if common:
            return reply
        before = self.table.clone()
        try:
            said = execute(self.table, words)
        except RuleError as exc:
            self.table = before  # a refused line changes nothing
            return f"no: {self._labelled(str(exc))}"
        self.history.append(before)
        return said


def _target(words: Sequence[str], joint: str) -> tuple[str, str]:
    """``fox on rabbit`` or ``fox rabbit`` -> (fox, rabbit)."""
    rest = [w for w in words if w.lower() != joint]
    if len(rest) != 2:
        raise RuleError(f"say two cards: {words and words[0] or 'fox'} {joint} rabbit")
    return rest[0], rest[1]


def execute(table: FoodChainTable, words: Sequence[str]) -> str:
    """One move of the player to act, or the name of a card turned up; RuleError if not."""
    head = words[0].lower()
    if table.over:
        raise RuleError("the game is over (undo takes back the last move)")
    if table.unconfirmed:
        if len(words) != 1:
            raise RuleError("name the card turned up to start the food chain (one word)")
        return table.no_chain() if head == "none" else table.turned_up(words[0])
    p = table.current
    if head == "hunt" and len(words) >= 3:
        name, target = _target(words[1:], "on")
        card, aim = table.shown(p, name), table.find(target)
        aimed = table.label(aim)
        table.play(Hunt(card, aim))
        if table.kind(card).bonus is Bonus.SWARM:
            return f"{p}'s swarm chases {aimed} away (F7); {p} draws."
        return f"{p} hunts {aimed} with {table.label(card)} and draws."
    if head in ("eat", "back", "backoff") and len(words) >= 2:
        word = words[-1]
        own = [c for c in table.on if table.token[c] == p]
        mine = any(word in (c, table.kind(c).name) for c in own)
        card = table.find(word, own) if mine else table.find(word)
        if head == "eat":
            food = table.on.get(card, card)
            table.play(Eat(card))
            return f"{p}'s {table.kind(card).name} eats {table.kind(food).name}."
        table.play(BackOff(card))
        return f"{p} takes {table.kind(card).name} back off the table."
    if head == "switch" and len(words) >= 3:
        target, name = _target(words[1:], "for")
        aim = table.find(target)
        table.play(Switch(table.shown(p, name), aim))
        return f"{p} switches {table.kind(aim).name} for {name}."
    if head == "pass" and len(words) <= 2:
        shown = table.shown(p, words[1]) if len(words) == 2 else None
        table.play(Pass(shown))
        return f"{p} passes" + (f", discarding {words[1]}." if shown else ".")
    if head == "end" and len(words) == 1:
        table.declare_end()
        return "The end: predators left go to the discard pile, their tokens home (F11)."
    raise RuleError(f"not a move: {' '.join(words)[:40]!r} (type help)")
