"""A CHOMP! referee journal as a history game: every round, every press and its fate.

The journal is read in one place, :func:`journal_entries`, so a change to the journal's
entry types touches one function here. The rest works on plain dicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from companion.history.model import GameRecord, PlayerResult, PressRecord, RoundRecord, digest
from companion.referee.journal import read_journal

NOT_PRESSES = ("release", "between_rounds")  # edges the history does not keep
RACE_REASONS = ("slap", "feeding_frenzy")  # rounds a slap decided: these have a lead
CAUSE_BY_OUTCOME = {"ink_out": "ink_out", "all_same": "all_same", "war": "war"}


def journal_entries(path: Path | str) -> tuple[list[dict[str, Any]], list[str]]:
    """The journal's entries as plain dicts, and its warnings (a last line cut short)."""
    contents = read_journal(path)
    # The entries are checked TypedDicts; the history reads them as plain mappings.
    entries = [cast(dict[str, Any], dict(e)) for e in contents.entries]
    return entries, list(contents.warnings)


def _rounds(entries: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each round's entries gathered by number; a round opened again (after a restart)
    starts afresh, as the referee replays it."""
    rounds: dict[int, dict[str, Any]] = {}
    for entry in entries[1:]:
        n = entry.get("n")
        if not isinstance(n, int):
            continue  # a resume, or an edge between rounds
        kind = entry["type"]
        if kind == "round":
            rounds[n] = {"n": n, "mode": entry.get("mode", ""), "edges": [], "reveal_ns": None}
        elif n in rounds:
            rnd = rounds[n]
            if kind == "reveal":
                rnd["reveal_ns"] = int(entry["stamp_ns"])
            elif kind == "edge":
                rnd["edges"].append(entry)
            elif kind == "cards":
                rnd["cards"] = entry["cards"]
            elif kind == "verdict":
                rnd["verdict"] = entry
            elif kind == "abandon":
                rnd["abandoned"] = True
    return [rounds[n] for n in sorted(rounds)]


def _cause(t_ns: int | None, verdict: Mapping[str, Any]) -> str:
    """Why a bad chomp was bad: a false start first (C4), else what the cards showed."""
    if t_ns is not None and t_ns < 0:
        return "false_start"
    outcome = str(verdict.get("outcome", ""))
    if outcome in CAUSE_BY_OUTCOME:
        return CAUSE_BY_OUTCOME[outcome]
    if verdict.get("reason") in ("automatic", "higher_card"):
        return "no_slap_needed"
    return "lowest_card"  # C3: a player showing the lowest creature may not chomp


def _fate(player: str, verdict: Mapping[str, Any] | None) -> str:
    """In the order ``companion chomp audit`` reads a verdict (referee/audit.py): the
    winner of an automatic win (C8, C14) is also listed as ignored, and she is the winner."""
    if verdict is None:
        return "undecided"
    if player == verdict.get("winner"):
        return "won"
    if player in verdict.get("tied", ()):
        return "tied"
    if player in verdict.get("bad_chomps", ()):
        return "bad_chomp"
    return "ignored"


def _presses(
    rnd: Mapping[str, Any], timing: Mapping[str, tuple[str, int | None]]
) -> list[PressRecord]:
    verdict = None if rnd.get("abandoned") else rnd.get("verdict", {}).get("verdict")
    reveal = rnd["reveal_ns"]
    edges = [e for e in rnd["edges"] if e.get("pressed") and e.get("use") not in NOT_PRESSES]
    edges.sort(key=lambda e: (int(e["stamp_ns"]), str(e["player"])))
    seen: set[str] = set()
    out: list[PressRecord] = []
    for edge in edges:
        player, use = str(edge["player"]), str(edge["use"])
        t_ns = None if reveal is None else int(edge["stamp_ns"]) - reveal
        counted = use == "press" and player not in seen
        if use != "press":
            fate = use
        elif not counted:
            fate = "repeat"
        else:
            seen.add(player)
            fate = _fate(player, verdict)
        cause = _cause(t_ns, verdict) if fate == "bad_chomp" and verdict else None
        source = str(edge.get("source", ""))
        kind, error = timing.get(source, timing.get("", ("unknown", None)))
        out.append(PressRecord(player, t_ns, source, kind, error, use, counted, fate, cause))
    return out


def _lead(presses: Sequence[PressRecord], verdict: Mapping[str, Any]) -> int | None:
    """The winning slap's margin over the next counted press of anyone else."""
    winner = verdict.get("winner")
    if verdict.get("outcome") != "win" or verdict.get("reason") not in RACE_REASONS:
        return None
    first = {p.player: p.t_ns for p in presses if p.counted and p.t_ns is not None}
    if winner not in first:
        return None
    mine = first[winner]
    later = [t - mine for who, t in first.items() if who != winner and t >= mine]
    return min(later) if later else None


def _timing(entries: Sequence[Mapping[str, Any]]) -> dict[str, tuple[str, int | None]]:
    """Source name -> (timing class, uncertainty), from the start entry and any resume
    (a restart may bring another source); "" is the fallback for edges the referee
    re-journalled at a reveal ("recount"), taken by the game's only source."""
    table: dict[str, tuple[str, int | None]] = {}
    sources = [s for e in entries if e["type"] in ("start", "resume") for s in e.get("sources", ())]
    for source in sources:
        error = source.get("uncertainty_us")
        table[str(source["name"])] = (str(source["timing"]), None if error is None else int(error))
    if len(table) == 1:
        table[""] = table["recount"] = next(iter(table.values()))
    return table


def game_from_entries(
    entries: Sequence[dict[str, Any]], played_at: str, source: str = "", table: str = ""
) -> GameRecord:
    """The game a journal tells: rounds with verdicts, presses with fates, the result."""
    start = entries[0]
    players = [str(p) for p in start["players"]]
    timing = _timing(entries)
    rounds: list[RoundRecord] = []
    last: Mapping[str, Any] = {"cards": dict(start["deal"]), "over": False, "winner": None}
    for rnd in _rounds(entries):
        presses = _presses(rnd, timing)
        entry = rnd.get("verdict")
        verdict = entry["verdict"] if entry and not rnd.get("abandoned") else None
        if entry and verdict is not None:
            last = entry
        rounds.append(
            RoundRecord(
                rnd["n"],
                "abandoned" if rnd.get("abandoned") else str((verdict or {}).get("outcome", "")),
                str((verdict or {}).get("reason", "")),
                (verdict or {}).get("winner"),
                _lead(presses, verdict) if verdict else None,
                dict(entry["cards"]) if verdict is not None and entry else {},
                {
                    "mode": rnd["mode"],
                    "cards": rnd.get("cards", {}),
                    "verdict": verdict,
                    "pot": entry.get("pot") if entry else None,
                },
                tuple(presses),
            )
        )
    counts = {p: int(last["cards"].get(p, 0)) for p in players}
    finished, winner = bool(last.get("over")), last.get("winner")
    ranks = sorted(set(counts.values()), reverse=True)
    results = tuple(
        PlayerResult(
            p,
            counts[p],
            ranks.index(counts[p]) + 1 if finished else None,
            finished and p == winner,
        )
        for p in players
    )
    end = str(start.get("two_player_end", "count"))
    return GameRecord(
        "chomp",
        played_at,
        results,
        finished,
        str(start.get("mode", "standard")),
        () if end == "count" else (f"two_player_end={end}",),
        table,
        {"winner": winner, "over": finished, "out": list(last.get("out", []))},
        {
            "deal": dict(start["deal"]),
            "tie_window_us": start.get("tie_window_us"),
            "effective_tie_window_us": start.get("effective_tie_window_us"),
            "sources": list(start.get("sources", [])),
        },
        tuple(rounds),
        source,
        _key(entries),
    )


def _key(entries: Sequence[dict[str, Any]]) -> str:
    """The game whatever its length: its start, and when its first round opened (a
    monotonic stamp, so no two games share it)."""
    first = next((e["opened_ns"] for e in entries if e["type"] == "round"), None)
    start = {k: v for k, v in entries[0].items() if k not in ("sources",)}
    return digest({"kind": "chomp", "start": start, "first_round_opened_ns": first})
