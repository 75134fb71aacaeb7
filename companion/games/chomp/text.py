"""CHOMP! in words: the sentences a table reads aloud, shared by screens and commands."""

from __future__ import annotations

from collections.abc import Mapping

from companion.games.chomp import Hand, Outcome, Reason, Slap, Verdict, first_presses


def _show(hand: Hand) -> str:
    return " + ".join(str(card) for card in hand)


def table(cards: Mapping[str, Hand], slaps: tuple[Slap, ...]) -> str:
    """The cards shown and each player's first slap, one line per seat."""
    first = {s.player: s.t_us for s in first_presses(slaps)}
    width = max(len(p) for p in cards)
    shown = max(len(_show(h)) for h in cards.values())
    lines = []
    for player, hand in cards.items():
        slap = f"slap {first[player]:+d} us" if player in first else ""
        lines.append(f"  {player:<{width}}  {_show(hand):<{shown}}  {slap}".rstrip())
    return "\n".join(lines)


def names(players: tuple[str, ...]) -> str:
    return ", ".join(players) if players else "nobody"


_SET_ASIDE_WHY = {
    Outcome.TIE: "a tie",
    Outcome.INK_OUT: "octopus ink-out: nobody may chomp",
    Outcome.ALL_SAME: "every card shows the same lowest creature",
    Outcome.WAR: "equal creatures: war, each player adds 2 face-down cards",
}

_WIN_WHY = {
    Reason.SLAP: "first valid slap",
    Reason.AUTOMATIC: "everyone else shows the lowest creature",
    Reason.HIGHER_CARD: "higher card",
    Reason.FEEDING_FRENZY: "feeding frenzy",
}


def does(name: str, verb: str) -> str:
    """``ann wins``, but ``you win``: the demo's own seat is called ``you``."""
    return f"{name} {verb.removesuffix('s') if name.casefold() == 'you' else verb}"


def headline(verdict: Verdict) -> str:
    """One sentence a table can read aloud."""
    if verdict.outcome is Outcome.WIN:
        assert verdict.winner is not None
        return f"{does(verdict.winner, 'wins')} ({_WIN_WHY[verdict.reason]})."
    if verdict.outcome is Outcome.TIE:
        return f"Tie between {names(verdict.tied)}: the cards go to the pot."
    if verdict.set_aside:
        return f"Set aside ({_SET_ASIDE_WHY[verdict.outcome]}): the cards go to the pot."
    return "No winner: nobody chomped in time; cards go back to their owners."


def details(verdict: Verdict) -> list[str]:
    lines = []
    if verdict.winner is not None:
        lines.append(f"{does(verdict.winner, 'takes')} the cards of: {names(verdict.chomped)}")
    if verdict.returned:
        lines.append(f"back to their owners: {names(verdict.returned)}")
    if verdict.bad_chomps:
        lines.append(f"bad chomps (a penalty card each): {names(verdict.bad_chomps)}")
    if verdict.ignored:
        lines.append(f"presses that did not count: {names(verdict.ignored)}")
    return lines


def round_lines(n: int, verdict: Verdict, went_out: tuple[str, ...] = ()) -> list[str]:
    """A decided round as the table shows it: the headline, then who takes what, the
    penalties and who went out. One wording for the terminal and the page."""
    lines = [f"Round {n}: {headline(verdict)}", *details(verdict)]
    if went_out:
        lines.append(f"out of the game: {', '.join(went_out)}")
    return lines
