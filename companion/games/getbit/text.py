"""Get Bit! in words and pictures: the line of robots, a round announced, what comes next.

Shared by the table's screen, its line mode and ``companion getbit replay``. In a memory
game (G6) nothing here shows a card number: the table would give the played cards away.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from companion.games.getbit import GetBit, RoundResult, Setup


def limb_bar(halves: int) -> str:
    """Four limbs as a bar: a whole limb █, half a limb ▌ (longer games), a lost one ·."""
    whole, half = divmod(halves, 2)
    return ("█" * whole + ("▌" if half else "")).ljust(4, "·")


def label(setup: Setup, robot: str) -> str:
    """A robot's name, with its player's when they differ (2-3 player games)."""
    owner = setup.robots[robot]
    return robot if owner == robot else f"{robot} ({owner})"


def _and(names: Sequence[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def limbs_text(value: float) -> str:
    return f"{value:g} limb{'' if value == 1 else 's'}"


def cards_text(cards: Mapping[str, int]) -> str:
    return " · ".join(f"{r} {c}" for r, c in cards.items())


def table_lines(state: GetBit) -> list[str]:
    """The line, front first, with every robot's limbs and cards.

    In a memory game (G6) no card number is shown: a hand would give the played cards
    away, so both are counts only. The engine still knows every card.
    """
    setup = state.setup
    width = max(len(label(setup, r)) for r in setup.robots)
    lines = ["front ▸ " + " · ".join(state.line) + " ◂ shark"]
    for i, robot in enumerate(state.line, 1):
        if setup.memory:
            cards = (
                f"hand {len(state.hands[robot])} cards, {len(state.played[robot])} played face down"
            )
        else:
            played = " ".join(map(str, state.played[robot])) or "-"
            hand = " ".join(map(str, state.hands[robot]))
            cards = f"hand {hand:<{2 * setup.hand_size - 1}}  played {played}"
        lines.append(
            f"  {i}. {label(setup, robot):<{width}}  {limb_bar(state.halves[robot])} "
            f"{limbs_text(state.limbs(robot)):<10} {cards}"
        )
    if state.out:
        lines.append(f"  out: {', '.join(state.out)}")
    return lines


def round_lines(result: RoundResult, state: GetBit) -> list[str]:
    """The round announced in words a table can read aloud; no card numbers in memory."""
    setup = state.setup
    memory = setup.memory
    head = "cards revealed" if memory else cards_text(result.cards)
    lines = [f"Round {result.number}: {head}"]
    moves: list[str] = []
    if result.moved:
        order = [r if memory else f"{r} ({result.cards[r]})" for r in result.moved]
        moves.append(f"{', then '.join(order)} to the front")
    groups: dict[int, list[str]] = {}
    for robot in result.stayed:
        groups.setdefault(result.cards[robot], []).append(robot)
    for card, robots in groups.items():
        moves.append(f"{_and(robots)} tied{'' if memory else f' on {card}'} and stay")
    lines.append("  " + ("; ".join(moves) if result.moved else "nobody moves: " + "; ".join(moves)))
    bitten = result.bitten
    if bitten is None:
        lines.append("  no bite in the first round")
    elif bitten in result.out:
        lines.append(f"  the shark bites {bitten}: no limbs left, {bitten} is out")
    else:
        lines.append(
            f"  the shark bites {bitten}: {limbs_text(state.limbs(bitten))} left; "
            f"{bitten} goes to the front and takes back its cards"
        )
    if result.winner is not None:
        if result.eaten is not None:
            lines.append(f"  two robots left: the shark eats {result.eaten}")
        else:
            loser = setup.robots[result.out[0]]
            lines.append(f"  {loser} loses ({result.out[0]} was eliminated)")
        lines.append(f"  {result.winner} wins the game!")
    for robot in result.picked_up:
        n = setup.pickup_at
        lines.append(f"  {robot} is down to {n} card{'' if n == 1 else 's'}: takes back its cards")
    return lines


def next_lines(state: GetBit) -> list[str]:
    if state.over:
        return [f"Game over after round {state.rounds}: {state.winner} wins."]
    bite = " (no bite in round 1)" if state.rounds == 0 else ""
    return [f"Game goes on: round {state.rounds + 1} next{bite}."]
