"""Earlier games from files: a CHOMP! journal, a Get Bit! save, a Chomp game, a Food Chain
score sheet. Each becomes a :class:`GameRecord`; what a file is, is told by its content.

A file that is none of these, or is damaged, is an :class:`InputError` naming the file
and the place, which the command prints as one line (exit status 2).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from companion import data, files
from companion.errors import InputError, RuleError
from companion.games import dino, foodchain, getbit
from companion.games.dino import catalog as dino_catalog
from companion.games.dino import formats as dino_formats
from companion.games.dino import text as dino_text
from companion.games.getbit import formats as getbit_formats
from companion.history.chomp import game_from_entries, journal_entries
from companion.history.model import GameRecord, PlayerResult, RoundRecord, digest

WHAT = "a CHOMP! journal, a Get Bit! save, a Chomp game or a Food Chain score sheet"


def file_date(path: Path) -> str:
    """When a file was last written, as the game's date (a journal has no wall clock)."""
    return datetime.fromtimestamp(path.stat().st_mtime, UTC).isoformat(timespec="seconds")


def _text(path: Path) -> str:
    """A file's text, read as every command reads one (a byte order mark is dropped)."""
    return files.read_text(str(path)).removeprefix("\N{BYTE ORDER MARK}")


_json = files.parse_json


def _is_journal(text: str) -> bool:
    first = text.lstrip().split("\n", 1)[0]
    try:
        head = json.loads(first)
    except (ValueError, RecursionError):  # not a journal's line: the JSON reader says why
        return False
    return isinstance(head, dict) and isinstance(head.get("type"), str) and "\n" in text.strip()


def read_game_file(
    path: Path | str,
    played_at: str | None = None,
    table: str = "",
    warn: Callable[[str], None] | None = None,
) -> GameRecord:
    """The game in ``path``, dated ``played_at`` (default: the file's modification time);
    ``warn`` hears what was read but skipped (a journal's last line cut short)."""
    path = Path(path)
    source = str(path)
    text = _text(path)
    when = played_at or file_date(path)
    try:
        if _is_journal(text):
            entries, warnings = journal_entries(path)
            for warning in warnings:
                (warn or (lambda _: None))(warning)
            return game_from_entries(entries, when, source, table)
        raw = _json(text, source)
        reader = _reader_for(raw)
        if reader is None:
            raise InputError("", f"not {WHAT}")
        return reader(raw, path, when, table)
    except InputError as exc:
        raise exc if exc.source else exc.in_source(source) from None
    except (KeyError, TypeError, ValueError) as exc:  # a journal well formed but incomplete
        raise InputError("", f"damaged: {type(exc).__name__}: {exc}", source) from None


T = TypeVar("T")
Reader = Callable[[Any, Path, str, str], GameRecord]


def _reader_for(raw: object) -> Reader | None:
    if not isinstance(raw, dict):
        return None
    if "robots" in raw and "line" in raw:
        return getbit_game
    players = raw.get("players")
    if isinstance(players, dict) and players:
        entries = [p for p in players.values() if isinstance(p, dict)]
        if entries and all("land" in p for p in entries):
            return dino_game
        if entries and all("eaten" in p for p in entries):
            return foodchain_game
    return None


# -- Get Bit! ---------------------------------------------------------------------------


def getbit_record(
    game: getbit.Replay, played_at: str, source: str = "", table: str = ""
) -> GameRecord:
    """A Get Bit! game (replayed or finished at the table): each round's bite, the limbs."""
    setup = game.setup
    state = getbit.GetBit.new(setup)
    owner = setup.robots
    bites = dict.fromkeys(setup.players, 0)
    survived = dict.fromkeys(setup.players, 0)
    rounds: list[RoundRecord] = []
    for cards, result in zip(game.rounds, game.results, strict=True):
        state, _ = state.play(cards)
        if result.bitten is not None:
            bites[owner[result.bitten]] += 1
        for player in setup.players:
            if any(r not in state.out for r in setup.robots_of(player)):
                survived[player] += 1
        limbs = {p: sum(state.halves[r] for r in setup.robots_of(p)) / 2 for p in setup.players}
        rounds.append(
            RoundRecord(
                result.number,
                "bite" if result.bitten else "no_bite",
                "eaten" if result.eaten else "",
                result.winner,
                None,
                limbs,
                {
                    "cards": dict(result.cards),
                    "moved": list(result.moved),
                    "bitten": result.bitten,
                    "out": list(result.out),
                    "eaten": result.eaten,
                    "picked_up": list(result.picked_up),
                    "line": list(state.line),
                },
            )
        )
    final = game.state
    limbs = {p: sum(final.halves[r] for r in setup.robots_of(p)) / 2 for p in setup.players}
    ranks = _getbit_ranks(final) if final.over else {}
    players = tuple(
        PlayerResult(
            p,
            limbs[p],
            ranks.get(p),
            p == final.winner,
            {
                "bites_taken": bites[p],
                "rounds_survived": survived[p],
                "robots": list(setup.robots_of(p)),
            },
        )
        for p in setup.players
    )
    variants = tuple(
        v
        for v, on in (
            ("longer_games", setup.longer_games),
            ("memory", setup.memory),
            (f"pickup_at={setup.pickup_at}", setup.pickup_at != 1),
        )
        if on
    )
    return GameRecord(
        "getbit",
        played_at,
        players,
        final.over,
        "",
        variants,
        table,
        {"winner": final.winner, "out": list(final.out)},
        {"setup": setup.to_dict()},
        tuple(rounds),
        source,
        digest({"kind": "getbit", "setup": setup.to_dict()}),
    )


def _getbit_ranks(final: getbit.GetBit) -> dict[str, int]:
    """The winner first; then players with a robot still in play (sharing a place); then
    the others, the later their last robot went out the better (G5)."""
    setup = final.setup
    gone = {
        p: max(final.out.index(r) for r in setup.robots_of(p))
        for p in setup.players
        if all(r in final.out for r in setup.robots_of(p))
    }
    ranks = {} if final.winner is None else {final.winner: 1}
    still = [p for p in setup.players if p not in gone and p not in ranks]
    ranks.update(dict.fromkeys(still, len(ranks) + 1))
    for place, p in enumerate(sorted(gone, key=lambda p: -gone[p]), len(ranks) + 1):
        ranks[p] = place
    return ranks


def getbit_game(raw: Any, path: Path, played_at: str, table: str) -> GameRecord:
    return getbit_record(getbit_formats.replay_from_dict(raw), played_at, str(path), table)


# -- Chomp (dinosaur lands) -------------------------------------------------------------


def _land_reader(base: Path) -> dino_formats.LandReader:
    """A land given in a game file: a file name (JSON or a text grid), grid lines, a land
    or a placement log, as ``companion dino game`` reads them."""

    def catalog(value: object, where: str) -> dino_catalog.Catalog:
        if isinstance(value, str):
            name = str(base / value)
            return _in(name, lambda: dino_formats.catalog_from_dict(_json(_text(Path(name)), name)))
        return dino_formats.catalog_from_dict(value, where)

    def land(value: object, where: str) -> dino.Land:
        if isinstance(value, str):
            path = base / value
            text = _text(path)
            if text.lstrip().startswith("{"):
                inner = _land_reader(path.parent)
                return _in(str(path), lambda: inner(_json(text, str(path)), data.ROOT))
            return _in(str(path), lambda: dino_text.parse_grid(text))
        if isinstance(value, list) and all(isinstance(line, str) for line in value):
            return dino_text.parse_grid(
                "\n".join(value), lambda line, col: f"{where}[{line - 1}] column {col}"
            )
        if isinstance(value, dict) and "placements" in value:
            return dino_formats.log_from_dict(value, catalog, where).land
        return dino_formats.land_from_dict(value, where)

    return land


def _in(name: str, read: Callable[[], T]) -> T:
    try:
        return read()
    except InputError as exc:
        raise exc if exc.source else exc.in_source(name) from None


def dino_record(
    lands: Mapping[str, dino.Land], played_at: str, source: str = "", table: str = ""
) -> GameRecord:
    """A Chomp game: each player's land total, ranked by D5."""
    result = dino.score_game(lands)
    by_player = {s.player: s for s in result.standings}
    players = tuple(
        PlayerResult(
            p,
            by_player[p].score.total,
            by_player[p].rank,
            by_player[p].rank == 1,
            {
                "dino_points": by_player[p].score.dino_points,
                "egg_points": by_player[p].score.egg_points,
                "goal_points": by_player[p].score.goal_points,
                "biggest_living_herd": by_player[p].score.biggest_living_herd,
            },
        )
        for p in lands
    )
    summary = {"winners": list(result.winners), "decided_by": str(result.decided_by)}
    return GameRecord("dino", played_at, players, True, "", (), table, summary, {}, (), source)


def dino_game(raw: Any, path: Path, played_at: str, table: str) -> GameRecord:
    lands = dino_formats.game_from_dict(raw, _land_reader(path.parent))
    return dino_record(lands, played_at, str(path), table)


# -- Food Chain -------------------------------------------------------------------------


def foodchain_record(
    scores: Mapping[str, foodchain.PlayerScore],
    played_at: str,
    rule: str = "standard",
    source: str = "",
    table: str = "",
) -> GameRecord:
    """A Food Chain game: each player's total (F12: equal best totals share the win)."""
    best = foodchain.winners(scores)
    totals = sorted({s.total for s in scores.values()}, reverse=True)
    players = tuple(
        PlayerResult(p, s.total, totals.index(s.total) + 1, p in best, s.to_dict())
        for p, s in scores.items()
    )
    variants = ("optional_rule",) if rule == "optional" else ()
    return GameRecord(
        "foodchain",
        played_at,
        players,
        True,
        rule,
        variants,
        table,
        {"winners": list(best)},
        {},
        (),
        source,
    )


def foodchain_game(raw: Any, path: Path, played_at: str, table: str) -> GameRecord:
    given = foodchain.sheet_catalog(raw)
    catalog = None
    if isinstance(given, str):
        name = str(path.parent / given)
        catalog = _in(name, lambda: foodchain.catalog_from_dict(_json(_text(Path(name)), name)))
    elif given is not None:
        try:
            catalog = foodchain.catalog_from_dict(given)
        except InputError as exc:
            raise InputError(f"catalog.{exc.where}", exc.message) from None
    tally = foodchain.sheet_from_dict(raw, catalog)
    try:
        scores = foodchain.score(tally)
    except RuleError as exc:
        raise InputError("", str(exc)) from None
    return foodchain_record(scores, played_at, "standard", str(path), table)
