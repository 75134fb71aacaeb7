"""What the table should show, as data: the referee emits cues, the devices render them.

Keeping the mapping from verdict to cue here means the devices never look at a verdict
(hardware never decides rules) and the demo, the GPIO outputs and the tests all agree on
what a feeding frenzy looks like.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from companion.games.chomp import Outcome, Reason, Verdict


class Signal(StrEnum):
    READY = "ready"  # a new round is about to start: LEDs off, status LED on
    COUNTDOWN = "countdown"  # one countdown beep
    REVEAL = "reveal"  # turn the cards over now
    WIN = "win"  # this player takes the cards
    BAD_CHOMP = "bad_chomp"  # this player pays a penalty card
    TIE = "tie"  # this player tied for first
    FRENZY = "frenzy"  # this player won a feeding frenzy
    INK_OUT = "ink_out"  # octopus: everyone's cards to the pot
    ALL_SAME = "all_same"  # every card the same: to the pot
    WAR = "war"  # two-player war: to the pot
    NO_WINNER = "no_winner"  # round timed out
    ELIMINATED = "eliminated"  # this player is out
    GAME_OVER = "game_over"  # this player won the game (player None: a draw)
    STUCK = "stuck"  # this player's button is held down: ignored until released
    UNSTUCK = "unstuck"  # released again


@dataclass(frozen=True, slots=True)
class Cue:
    signal: Signal
    player: str | None = None  # None: the whole table (buzzer, every LED, status LED)


_TABLE_SIGNAL = {
    Outcome.INK_OUT: Signal.INK_OUT,
    Outcome.ALL_SAME: Signal.ALL_SAME,
    Outcome.WAR: Signal.WAR,
    Outcome.NO_WINNER: Signal.NO_WINNER,
}


def cues_for_verdict(
    verdict: Verdict, went_out: tuple[str, ...], over: bool, game_winner: str | None
) -> list[Cue]:
    """Cues for a settled round, most urgent first: the winner's LED changes before anything."""
    cues: list[Cue] = []
    if verdict.winner is not None:
        signal = Signal.FRENZY if verdict.reason is Reason.FEEDING_FRENZY else Signal.WIN
        cues.append(Cue(signal, verdict.winner))
    elif verdict.outcome is Outcome.TIE:
        cues.extend(Cue(Signal.TIE, p) for p in verdict.tied)
    else:
        cues.append(Cue(_TABLE_SIGNAL[verdict.outcome]))
    cues.extend(Cue(Signal.BAD_CHOMP, p) for p in verdict.bad_chomps)
    cues.extend(Cue(Signal.ELIMINATED, p) for p in went_out)
    if over:
        cues.append(Cue(Signal.GAME_OVER, game_winner))
    return cues
