"""``companion chomp judge`` and ``companion chomp replay``: CHOMP! from JSON files."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from companion.commands.camera import add_stickers
from companion.errors import InputError
from companion.files import dump_json, read_json, source_name
from companion.games.chomp.formats import judge_request_from_dict, replay_from_dict
from companion.games.chomp.text import details, does, headline, names, table

if TYPE_CHECKING:
    from companion.referee.audit import AuditedRound

T = TypeVar("T")


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    chomp = commands.add_parser("chomp", help="CHOMP!, the slap card game")
    sub = chomp.add_subparsers(dest="chomp_command", metavar="COMMAND", required=True)

    judge = sub.add_parser(
        "judge",
        help="decide one round from a JSON file",
        description="Decide one CHOMP! round (the JSON of docs/formats.md).",
    )
    judge.add_argument("file", metavar="FILE|-", help="round JSON, or - for stdin")
    judge.add_argument("--json", action="store_true", help="print the verdict as JSON")
    judge.set_defaults(handler=run_judge)

    replay = sub.add_parser(
        "replay",
        help="replay a whole game from a JSON file",
        description="Replay a CHOMP! game round by round and print the "
        "counts, the pot and who is out.",
    )
    replay.add_argument("file", metavar="FILE|-", help="game JSON, or - for stdin")
    replay.add_argument("--json", action="store_true", help="print the result as JSON")
    replay.set_defaults(handler=run_replay)

    audit = sub.add_parser(
        "audit",
        help="recompute every verdict of a referee journal and show each slap's lead",
        description="Settle a dispute by evidence: replay a referee journal through the "
        "rules, check every verdict the referee announced, and show every press with its "
        "stamp after the reveal and its lead on the winner in microseconds. Exit status: "
        "0 when every verdict agrees with the journal, 1 when a verdict disagrees (THE "
        "JOURNAL SAYS OTHERWISE), 2 when the journal cannot be read.",
    )
    audit.add_argument("journal", metavar="JOURNAL", help="the referee's .jsonl journal")
    audit.add_argument("--round", type=int, metavar="N", help="show only round N")
    audit.add_argument("--json", action="store_true", help="print the audit as JSON")
    audit.add_argument(
        "--svg",
        metavar="PATH",
        help="also draw each round's picture (presses on a time axis from the reveal): "
        "a file with --round, else a folder that gets round-N.svg per round",
    )
    audit.set_defaults(handler=run_audit)

    add_stickers(sub, "chomp", "CHOMP!")


def _load(path: str, reader: Callable[[object], T]) -> T:
    """Read a JSON file through ``reader``; errors name the file."""
    try:
        return reader(read_json(path))
    except InputError as exc:
        raise exc if exc.source else exc.in_source(source_name(path)) from None


def run_judge(args: argparse.Namespace) -> int:
    request = _load(args.file, judge_request_from_dict)
    verdict = request.verdict()
    if args.json:
        print(dump_json(verdict.to_dict()))
        return 0
    print(f"CHOMP! round: {request.mode}, tie window {request.tie_window_us} us")
    print(table(request.round.cards, request.round.slaps))
    print(headline(verdict))
    for line in details(verdict):
        print(f"  {line}")
    return 0


def run_replay(args: argparse.Namespace) -> int:
    replay = _load(args.file, replay_from_dict)
    if args.json:
        print(dump_json(replay.to_dict()))
        return 0
    game = replay.game
    print(f"CHOMP! game: {', '.join(game.players)}")
    for i, result in enumerate(replay.results, 1):
        notes = []
        if result.verdict.bad_chomps:
            notes.append(f"bad chomp: {names(result.verdict.bad_chomps)}")
        if result.went_out:
            notes.append(f"out: {names(result.went_out)}")
        extra = f"  ({'; '.join(notes)})" if notes else ""
        print(f"round {i:>3} [{result.mode}] {headline(result.verdict)}{extra}")
    print()
    width = max(len(p) for p in game.players)
    for player in game.players:
        state = "  out" if player in game.out else ""
        print(f"  {player:<{width}}  {game.counts[player]:>3} cards{state}")
    print(f"  {'pot':<{width}}  {game.pot:>3} cards")
    if game.over:
        print(f"Game over: {does(game.winner, 'wins')}." if game.winner else "Game over: a draw.")
    else:
        print(f"Game goes on ({game.mode}).")
    return 0


def _us(value: int) -> str:
    return f"{value / 1000:+.3f} ms"


def _draw_rounds(
    rounds: list[AuditedRound], sources: list[Any], target: Path, one: int | None
) -> None:
    """Each round's picture: to ``target`` itself for one round, else into it as a folder;
    each written whole, never over a device, a pipe or a link (files.write_atomic)."""
    from companion.files import write_atomic
    from companion.referee.picture import round_svg

    if one is None:
        try:
            target.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError("--svg", f"cannot write: {exc.strerror or exc}", str(target)) from None
    for r in rounds:
        path = target if one is not None else target / f"round-{r.n}.svg"
        write_atomic(path, round_svg(r, sources), "no picture was written there")


def run_audit(args: argparse.Namespace) -> int:
    """Exit 0 when every verdict in the journal is what the rules give, 1 otherwise."""
    import sys

    from companion.referee.audit import audit
    from companion.referee.journal import read_journal

    contents = read_journal(args.journal)
    for warning in contents.warnings:
        print(f"companion: warning: {warning}", file=sys.stderr)
    if contents.torn is not None:
        torn = contents.torn
        print(
            f"companion: warning: the journal was cut at byte {torn.offset}, in line "
            f"{torn.line} ({len(torn.data)} bytes of it written); the rounds before it are "
            "whole, and --resume keeps the cut bytes aside and goes on from there",
            file=sys.stderr,
        )
    rounds = audit(contents.entries)
    if args.round is not None:
        rounds = [r for r in rounds if r.n == args.round]
        if not rounds:
            raise InputError(
                "--round", f"no decided round {args.round} in the journal", args.journal
            )
    disagree = [r.n for r in rounds if not r.agrees]
    if args.svg:
        _draw_rounds(rounds, contents.start.get("sources", []), Path(args.svg), args.round)
    if args.json:
        start = contents.start
        print(
            dump_json(
                {
                    "sources": start.get("sources", []),
                    "rounds": [r.to_dict() for r in rounds],
                    "disagreements": disagree,
                }
            )
        )
        return 1 if disagree else 0
    start = contents.start
    sources = (
        "; ".join(
            f"{s['name']} {s['timing']} ±{s['uncertainty_us']} us" for s in start.get("sources", [])
        )
        or "unknown"
    )
    print(f"Journal {args.journal}: {len(rounds)} decided round(s); sources: {sources}")
    for r in rounds:
        cards = " · ".join(f"{p} {' + '.join(h)}" for p, h in r.cards.items())
        print(f"\nRound {r.n} [{r.mode}, tie window {r.tie_window_us} us]: {cards}")
        width = max((len(p.player) for p in r.presses), default=0)
        for p in r.presses:
            extra = ""
            if p.margin_us is not None:
                extra = f"  first by {p.margin_us} us"
            elif p.status == "winner":
                extra = "  no other valid slap"
            elif p.vs_first_us:
                side = "after" if p.vs_first_us > 0 else "before"
                extra = f"  {abs(p.vs_first_us)} us {side} the first valid slap"
            print(f"  {_us(p.t_us):>14}  {p.player:<{width}}  {p.status}{extra}  [{p.source}]")
        if not r.presses:
            print("  (no presses)")
        agrees = "the journal agrees" if r.agrees else "THE JOURNAL SAYS OTHERWISE"
        print(f"  => {headline(r.verdict)}  ({agrees})")
    if disagree:
        print(f"\n{len(disagree)} round(s) differ from the journal: {disagree}")
        return 1
    return 0
