"""Settling a dispute by evidence: every verdict recomputed from the journal's raw stamps.

The audit replays the journal's rounds through the rules engine (not through the referee's
bookkeeping), compares each verdict with the one the referee announced, and shows every
press of every round with its stamp after the reveal and its lead or lag on the winner.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.errors import InputError
from companion.games.chomp import (
    CARD_NAMES,
    MODE_NAMES,
    ChompGame,
    Reason,
    Round,
    Slap,
    TwoPlayerEnd,
    Verdict,
    first_presses,
)
from companion.referee.journal import JournalEntry, journal_rounds


@dataclass
class PressRow:
    player: str
    t_us: int  # after the reveal; negative: before it
    source: str
    status: str
    vs_first_us: int | None = None  # this press minus the first valid slap (winner or tie)
    margin_us: int | None = None  # the winner's lead on the next valid slap

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class AuditedRound:
    n: int
    mode: str
    tie_window_us: int
    cards: dict[str, list[str]]
    verdict: Verdict
    journal_verdict: dict[str, Any]
    presses: list[PressRow] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        return self.verdict.to_dict() == self.journal_verdict

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "mode": self.mode,
            "tie_window_us": self.tie_window_us,
            "cards": self.cards,
            "verdict": self.verdict.to_dict(),
            "journal_agrees": self.agrees,
            "presses": [p.to_dict() for p in self.presses],
        }


def _status(player: str, t_us: int, verdict: Verdict) -> str:
    if player == verdict.winner:
        return "winner"
    if player in verdict.tied:
        return "tie"
    if player in verdict.bad_chomps:
        return "bad chomp: false start" if t_us < 0 else "bad chomp"
    if player in verdict.ignored:
        if verdict.reason in (Reason.AUTOMATIC, Reason.HIGHER_CARD):
            return "ignored: the winner needed no slap"
        return "ignored: after the decision"
    return "not counted"


def audit(entries: list[JournalEntry]) -> list[AuditedRound]:
    """Every decided round of a journal, judged again from its raw stamps."""
    start = entries[0]
    if start["type"] != "start":
        raise InputError("line 1", "a journal starts with a 'start' entry")
    game = ChompGame.new(
        start["players"],
        MODE_NAMES[start["mode"]],
        TwoPlayerEnd(start["two_player_end"]),
        deal=start["deal"],
    )
    audited = []
    for past in journal_rounds(entries):
        if past.abandoned or past.verdict is None or past.cards is None or past.reveal_ns is None:
            continue
        game.tie_window_us = past.window_us
        reveal = past.reveal_ns
        cards = {p: tuple(CARD_NAMES[c] for c in hand) for p, hand in past.cards.items()}
        slaps = tuple(Slap(p, (stamp - reveal) // 1000) for p, stamp in past.presses())
        mode = str(game.mode)
        verdict = game.play(Round(cards, slaps)).verdict
        row = AuditedRound(past.n, mode, past.window_us, past.cards, verdict, past.verdict)
        first = {s.player: s.t_us for s in first_presses(slaps)}
        by_slap = verdict.reason in (Reason.SLAP, Reason.FEEDING_FRENZY)
        leader = verdict.tied[0] if verdict.tied else verdict.winner if by_slap else None
        won_at = first.get(leader) if leader else None
        others = sorted(
            t for p, t in first.items() if p != verdict.winner and p not in verdict.bad_chomps
        )
        seen: set[str] = set()
        for edge in sorted(past.edges or (), key=lambda e: int(e["stamp_ns"])):
            if not edge["pressed"]:
                continue
            player, t_us = edge["player"], (int(edge["stamp_ns"]) - reveal) // 1000
            if edge["use"] != "press":
                status = f"not counted: {edge['use'].replace('_', ' ')}"
            elif player in seen:
                status = "not counted: a later press (only the first counts)"
            else:
                status = _status(player, t_us, verdict)
                seen.add(player)
            press = PressRow(player, t_us, edge["source"], status)
            if won_at is not None:
                press.vs_first_us = t_us - won_at
                if status == "winner":
                    press.margin_us = others[0] - won_at if others else None
            row.presses.append(press)
        audited.append(row)
    return audited
