"""What the table should show, as data: the referee emits cues, the devices render them.

Keeping the mapping from verdict to cue here means the devices never look at a verdict
(hardware never decides rules) and the demo, the GPIO outputs and the tests all agree on
what a feeding frenzy looks like.
"""

from __future__ import annotations

from companion.games.chomp import Outcome, Reason, Verdict
from companion.signals import Cue, Signal

_TABLE_SIGNAL = {
    Outcome.INK_OUT: Signal.INK_OUT,
    Outcome.ALL_SAME: Signal.ALL_SAME,
    Outcome.WAR: Signal.WAR,
    Outcome.NO_WINNER: Signal.NO_WINNER,
}


def cues_for_verdict(
    verdict: Verdict,
    went_out: tuple[str, ...],
    over: bool,
    game_winner: str | None,
    false_starts: frozenset[str] = frozenset(),
) -> list[Cue]:
    """Cues for a settled round, most urgent first: the winner's LED changes before anything.

    A bad chomper in ``false_starts`` (pressed before the reveal, C4) is shown as a false
    start: the same penalty, its own pattern and call, so a player learns which it was.
    """
    cues: list[Cue] = []
    if verdict.winner is not None:
        signal = Signal.FRENZY if verdict.reason is Reason.FEEDING_FRENZY else Signal.WIN
        cues.append(Cue(signal, verdict.winner))
    elif verdict.outcome is Outcome.TIE:
        cues.extend(Cue(Signal.TIE, p) for p in verdict.tied)
    else:
        cues.append(Cue(_TABLE_SIGNAL[verdict.outcome]))
    cues.extend(
        Cue(Signal.FALSE_START if p in false_starts else Signal.BAD_CHOMP, p)
        for p in verdict.bad_chomps
    )
    cues.extend(Cue(Signal.ELIMINATED, p) for p in went_out)
    if over:
        cues.append(Cue(Signal.GAME_OVER, game_winner))
    return cues
