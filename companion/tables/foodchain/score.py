"""``companion foodchain score`` and ``catalog check``: the sheet from a file or typed.

A score sheet is JSON in a file (docs/foodchain.md), or typed at the terminal one line per
player, ``ann: 3 5 2 | red blue blue`` (the sun points of the cards she ate, or their
names with a catalog, then the tokens she holds by colour or by player), or asked player
by player. Every form goes through the same reader, so the same checks (F10, F12) apply.
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion import text as gate
from companion.errors import InputError
from companion.files import dump_json, read_json, source_name
from companion.games.foodchain import (
    Catalog,
    PlayerScore,
    Tally,
    catalog_from_dict,
    score,
    score_optional,
    sheet_catalog,
    sheet_from_dict,
    winners,
)
from companion.games.foodchain.text import catalog_summary, score_lines

TYPED = "typed sheet"


@dataclass(frozen=True)
class ScoreOptions:
    file: str | None  # None: typed at the terminal
    json: bool = False
    optional: bool = False
    seed: int | None = None
    catalog: str | None = None
    players: str | None = None  # for asking player by player
    colours: str | None = None  # "ann=red,bob=blue"
    db: str | None = None  # the history database (None: the default one)
    history: bool = True  # record the game in the history


def load_catalog(path: str) -> Catalog:
    """A catalog file, structure and references checked; errors name the file."""
    source = source_name(path)
    try:
        return catalog_from_dict(read_json(path))
    except InputError as exc:
        raise exc if exc.source else exc.in_source(source) from None


def _entry(eaten: str, tokens: str) -> dict[str, Any]:
    """One player's sheet entry from the words typed: points or names | tokens."""
    items: list[object] = [
        int(w) if gate.is_digits(w) and len(w) <= gate.NUMBER_DIGITS else w for w in eaten.split()
    ]
    return {"eaten": items, "tokens": dict(Counter(tokens.split()))}


def typed_sheet(lines: Iterable[str]) -> dict[str, Any]:
    """``ann: 3 5 2 | red blue blue`` per line, to the JSON sheet's shape; every line and
    name through the text gate."""
    try:
        return _typed_sheet(lines)
    except InputError as exc:
        raise exc if exc.source else exc.in_source(TYPED) from None


def _typed_sheet(lines: Iterable[str]) -> dict[str, Any]:
    players: dict[str, Any] = {}
    for n, typed in enumerate(lines, 1):
        line = gate.clean(typed.rstrip("\r\n").replace("\t", " "), f"line {n}")
        if not line.strip():
            continue
        name, colon, rest = line.partition(":")
        eaten, bar, tokens = rest.partition("|")
        if not colon or not bar or not name.strip():
            raise InputError(
                f"line {n}", "write a player per line: ann: 3 5 2 | red blue blue", TYPED
            )
        name = gate.name(name, f"line {n}")
        if name in players:
            raise InputError(f"line {n}", f"{name!r} has a line already", TYPED)
        players[name] = _entry(eaten, tokens)
    return {"players": players}


def asked_sheet(players: Sequence[str], ask: Callable[[str], str]) -> dict[str, Any]:
    """The sheet asked for player by player."""
    return {
        "players": {
            p: _entry(
                gate.clean(ask(f"{p}: the sun points of the cards you ate (or their names): "), p),
                gate.clean(ask(f"{p}: the tokens you hold (colours or player names): "), p),
            )
            for p in players
        }
    }


def _colours(sheet: dict[str, Any], text: str | None) -> None:
    for item in (text or "").split(","):
        if not item.strip():
            continue
        player, eq, colour = item.partition("=")
        entry = sheet["players"].get(player.strip())
        if not eq:
            raise InputError("--colours", f"{item.strip()!r}: give player=colour, ann=red")
        if entry is None:
            raise InputError("--colours", f"{player.strip()!r} is not a player on the sheet")
        entry["colour"] = colour.strip()


def _read_sheet(options: ScoreOptions) -> tuple[object, str]:
    """The sheet as plain data, and its name for messages."""
    if options.file is not None:
        return read_json(options.file), source_name(options.file)
    if sys.stdin.isatty():
        if not options.players:
            raise InputError("--players", "name the players to be asked (--players ann,bob)")
        names = [n.strip() for n in options.players.split(",") if n.strip()]
        sheet = asked_sheet(names, input)
    else:
        sheet = typed_sheet(sys.stdin)
    _colours(sheet, options.colours)
    return sheet, TYPED


def _tally(options: ScoreOptions) -> tuple[Tally, str, Catalog | None]:
    raw, source = _read_sheet(options)
    catalog = None
    if options.catalog is not None:
        catalog = load_catalog(options.catalog)
    else:
        given = sheet_catalog(raw)
        if isinstance(given, str):
            base = Path.cwd() if options.file in (None, "-") else Path(str(options.file)).parent
            catalog = load_catalog(str(base / given))
        elif given is not None:
            try:
                catalog = catalog_from_dict(given)
            except InputError as exc:
                raise InputError(f"catalog.{exc.where}", exc.message, source) from None
    try:
        return sheet_from_dict(raw, catalog), source, catalog
    except InputError as exc:
        raise exc.in_source(source) from None


def run_score(options: ScoreOptions) -> int:
    if options.seed is not None and not options.optional:
        raise InputError("--seed", "the seed is for the optional rule's draw: add --optional")
    tally, source, catalog = _tally(options)
    seed = None
    if options.optional:
        seed = options.seed if options.seed is not None else random.SystemRandom().randrange(10**6)
        scores = score_optional(tally, random.Random(seed))
    else:
        scores = score(tally)
    best = winners(scores)
    _report(options, scores, best, tally, source, catalog, seed)
    if options.history:
        from companion.history import record_foodchain, remember

        rule = "optional" if options.optional else "standard"
        remember(record_foodchain, scores, rule, db=options.db, source=source)
    return 0


def _report(
    options: ScoreOptions,
    scores: dict[str, PlayerScore],
    best: tuple[str, ...],
    tally: Tally,
    source: str,
    catalog: Catalog | None,
    seed: int | None,
) -> None:
    exchanged = tally.exchanged().tokens != {p: +tally.tokens[p] for p in tally.players}
    if options.json:
        report = {
            "rule": "optional" if options.optional else "standard",
            "seed": seed,
            "players": {p: s.to_dict() for p, s in scores.items()},
            "winners": list(best),
            "tokens_exchanged": exchanged,
        }
        print(dump_json(report))
        return
    rule = f", optional rule (seed {seed})" if options.optional else ""
    print(f"Food Chain score{rule}: {source}")
    if catalog is not None and catalog.example:
        print("  (card points from an example catalog: invented cards, not the real deck)")
    if exchanged:
        print("  (players holding each other's tokens exchanged them first)")
    print("\n".join(score_lines(scores, best, options.optional)))
    if options.optional and options.seed is None:
        print(f"(draw again the same way with --seed {seed})")


def run_catalog_check(path: str) -> int:
    """A catalog's structure, then the real deck's composition; an invented catalog is
    said to be one and is never called the real deck."""
    source = source_name(path)
    catalog = load_catalog(path)
    for where, message in catalog.composition_problems():
        raise InputError(where, message, source)
    for where, message in catalog.warnings():
        print(f"companion: warning: {source}: {where}: {message}", file=sys.stderr)
    print(f"{source}: {catalog.title or 'Food Chain card catalog'}")
    if catalog.example:
        print("  an example catalog, not the real cards")
    print(catalog_summary(catalog))
    if catalog.example:
        print("  OK: the deck's shape (52 cards, one Huntsman, one Swarm), with invented cards")
    else:
        print("  OK: a full Food Chain deck")
    return 0


__all__ = ["ScoreOptions", "load_catalog", "run_catalog_check", "run_score"]
