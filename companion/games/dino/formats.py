"""Chomp's JSON readers and writer: lands, goals, games, card catalogs, placement logs.

The shapes of docs/dino-grid.md and docs/dino-catalog.md read into the types of
:mod:`companion.games.dino` and :mod:`companion.games.dino.catalog`, kept apart from the
rules so an engine reads as rules only.  Every error names its JSON path; a file name
inside a game or a log is resolved by the caller's reader (this module does no I/O).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion import data
from companion.errors import InputError
from companion.games.dino import (
    Cell,
    Diet,
    Dino,
    Goal,
    GoalKind,
    Kind,
    Land,
    Section,
    Size,
    build_land,
)
from companion.games.dino.catalog import (
    CARD_QUARTERS,
    ROTATIONS,
    Card,
    Catalog,
    Placement,
    Replay,
    replay,
)
from companion.games.dino.text import scan_grid

DIET_NAMES = {str(d): d for d in Diet}


SIZE_NAMES = {s.label: s for s in Size}


GOAL_NAMES = {str(k): k for k in GoalKind}


def goal_from_dict(value: object, path: str) -> Goal:
    """Read one goal: exactly one vocabulary key, and an optional ``name``."""
    raw = data.obj(value, path, optional=("name", *GOAL_NAMES))
    kinds = [k for k in raw if k != "name"]
    if len(kinds) != 1:
        raise data.fail(
            path,
            "a goal has exactly one of: " + ", ".join(GOAL_NAMES)
            if not kinds
            else f"a goal has one kind, got {', '.join(kinds)}",
        )
    key = kinds[0]
    kind = GOAL_NAMES[key]
    here = data.at(path, key)
    name = data.name(raw["name"], data.at(path, "name")) if "name" in raw else None
    body = raw[key]
    if kind in (GoalKind.PER_EGG, GoalKind.MANUAL):
        return Goal(kind, data.integer(body, here), name)
    if kind is not GoalKind.PER_HERD_AT_LEAST and not isinstance(body, dict):
        return Goal(kind, data.integer(body, here), name)
    required = ("points", "dinos") if kind is GoalKind.PER_HERD_AT_LEAST else ("points",)
    optional = ("diet", "size", "alive") if kind is GoalKind.PER_HERD_AT_LEAST else ("diet", "size")
    fields = data.obj(body, here, required=required, optional=optional)
    diet = size = None
    if fields.get("diet") is not None:
        diet = data.choice(fields["diet"], data.at(here, "diet"), DIET_NAMES, "diet")
    if fields.get("size") is not None:
        size = data.choice(fields["size"], data.at(here, "size"), SIZE_NAMES, "size")
    dinos: int = 1
    alive: bool | None = True
    if kind is GoalKind.PER_HERD_AT_LEAST:
        dinos = data.integer(fields["dinos"], data.at(here, "dinos"), 1)
        raw_alive = fields.get("alive", True)
        alive = None if raw_alive is None else data.boolean(raw_alive, data.at(here, "alive"))
    points = data.integer(fields["points"], data.at(here, "points"))
    return Goal(kind, points, name, diet, size, dinos, alive)


def goals_from_list(value: object, path: str) -> tuple[Goal, ...]:
    return tuple(goal_from_dict(g, data.at(path, i)) for i, g in enumerate(data.lst(value, path)))


KIND_NAMES = {str(k): k for k in Kind}


DINO_NAMES = {str(d): d for d in Dino}


def cell_from_value(value: object, path: str) -> Cell:
    items = data.lst(value, path)
    if len(items) != 2:
        raise data.fail(path, f"a cell is [x, y], got {len(items)} numbers")
    return (data.integer(items[0], data.at(path, 0)), data.integer(items[1], data.at(path, 1)))


def section_from_dict(value: object, path: str) -> Section:
    raw = data.obj(value, path, required=("id", "kind", "cells"), optional=("dino", "count", "egg"))
    sid = data.name(raw["id"], data.at(path, "id"), "section id")
    kind = data.choice(raw["kind"], data.at(path, "kind"), KIND_NAMES, "kind")
    cells = tuple(
        cell_from_value(c, data.at(data.at(path, "cells"), i))
        for i, c in enumerate(data.lst(raw["cells"], data.at(path, "cells")))
    )
    if kind is not Kind.DINO:
        for key in ("dino", "count"):
            if key in raw:
                raise data.fail(data.at(path, key), f"only dino sections have {key!r}")
    elif "dino" not in raw:
        raise data.fail(path, "missing key 'dino' (a dino section names its dino)")
    if "egg" in raw and kind is not Kind.NEST:
        raise data.fail(data.at(path, "egg"), "only a nest holds an egg token")
    dino = (
        data.choice(raw["dino"], data.at(path, "dino"), DINO_NAMES, "dino")
        if "dino" in raw
        else None
    )
    count = data.integer(raw.get("count", 1), data.at(path, "count"), 1)
    egg = data.boolean(raw.get("egg", False), data.at(path, "egg"))
    return Section(sid, kind, cells, dino, count, egg)


def land_from_dict(value: object, path: str = data.ROOT) -> Land:
    """Read the "Chomp land" JSON of formats.md; errors name the JSON path."""
    raw = data.obj(value, path, required=("sections",), optional=("mountains", "goals"))
    spath = data.at(path, "sections")
    sections = [
        section_from_dict(s, data.at(spath, i))
        for i, s in enumerate(data.lst(raw["sections"], spath))
    ]
    mpath = data.at(path, "mountains")
    mountains = []
    for j, item in enumerate(data.lst(raw.get("mountains", []), mpath)):
        here = data.at(mpath, j)
        pair = data.lst(item, here)
        if len(pair) != 2:
            raise data.fail(
                here, f"a mountain is a pair of cells [[x, y], [x, y]], got {len(pair)}"
            )
        mountains.append(
            (cell_from_value(pair[0], data.at(here, 0)), cell_from_value(pair[1], data.at(here, 1)))
        )
    goals = goals_from_list(raw.get("goals", []), data.at(path, "goals"))
    return build_land(
        sections,
        mountains,
        goals,
        lambda i: data.at(spath, i),
        lambda j: data.at(mpath, j),
    )


def land_to_dict(land: Land) -> dict[str, Any]:
    """The land in the formats.md JSON shape (reads back with :func:`land_from_dict`)."""
    sections = []
    for s in land.sections:
        item: dict[str, Any] = {"id": s.id, "kind": str(s.kind)}
        if s.dino is not None:
            item["dino"] = str(s.dino)
            item["count"] = s.count
        if s.kind is Kind.NEST:
            item["egg"] = s.egg
        item["cells"] = [list(c) for c in s.cells]
        sections.append(item)
    return {
        "sections": sections,
        "mountains": [[list(a), list(b)] for a, b in sorted(land.mountains)],
        "goals": [g.to_dict() for g in land.goals],
    }


LandReader = Callable[[object, str], Land]


def game_from_dict(value: object, read_land: LandReader) -> dict[str, Land]:
    """Read a game file: each player's land (through ``read_land``) with her goals.

    ``read_land(value, path)`` turns the ``land`` entry into a :class:`Land`; the caller
    decides what a string means (a file) so this module stays free of I/O.
    """
    raw = data.obj(value, data.ROOT, required=("players",))
    players = data.mapping(raw["players"], "players")
    if not players:
        raise data.fail("players", "a game has at least one player")
    lands = {}
    for player, entry in players.items():
        here = data.at("players", data.name(player, data.at("players", player), "player"))
        fields = data.obj(entry, here, required=("land",), optional=("goals",))
        land = read_land(fields["land"], data.at(here, "land"))
        if "goals" in fields:
            goals = goals_from_list(fields["goals"], data.at(here, "goals"))
            if land.goals and goals:
                raise data.fail(
                    data.at(here, "goals"), "goals are given twice: in the land and here"
                )
            land = land.with_goals(goals)
        lands[player] = land
    return lands


def card_from_dict(value: object, path: str, card_id: str) -> Card:
    """Read one card: ``{"land": [two grid lines, with optional edge lines], "egg_icon"}``."""
    raw = data.obj(value, path, required=("land",), optional=("egg_icon",))
    lpath = data.at(path, "land")
    lines = []
    for i, line in enumerate(data.lst(raw["land"], lpath)):
        if not isinstance(line, str):
            raise data.fail(data.at(lpath, i), "expected a line of the grid as a string")
        lines.append(line)

    def place(line: int, col: int) -> str:
        return f"{data.at(lpath, line - 1)} column {col}"

    grid = scan_grid("\n".join(lines), place)
    if grid.rows != 2 or sorted(grid.tokens) != sorted(CARD_QUARTERS):
        raise data.fail(lpath, "a card's land side is 2 rows of 2 quarters")
    for token in grid.tokens.values():
        where = place(token.line, token.col)
        if token.content is None:
            raise InputError(where, "a card has no empty quarter")
        if token.content.kind is Kind.NEST and token.content.egg:
            raise InputError(
                where, "egg tokens are not printed on cards: write a nest as N (eggs go in the log)"
            )
    land = grid.to_land(place)
    for section, (line, col) in zip(land.sections, grid.section_places, strict=True):
        if section.dino is not None and section.dino.size is not Size.LARGE:
            if len(section.cells) != 1:
                raise InputError(
                    place(line, col),
                    "a small or medium dino section is one quarter "
                    "(write several dinos as a count, e.g. sh2)",
                )
    icon = any(s.kind is Kind.EGG for s in land.sections)
    if "egg_icon" in raw:
        icon = data.boolean(raw["egg_icon"], data.at(path, "egg_icon")) or icon
    return Card(card_id, land.sections, land.mountains, icon)


def catalog_from_dict(value: object, path: str = data.ROOT) -> Catalog:
    raw = data.obj(value, path, required=("cards",), optional=("note",))
    note = data.name(raw["note"], data.at(path, "note"), "note") if "note" in raw else None
    cpath = data.at(path, "cards")
    cards = {}
    for card_id, body in data.mapping(raw["cards"], cpath).items():
        here = data.at(cpath, data.name(card_id, data.at(cpath, card_id), "card id"))
        cards[card_id] = card_from_dict(body, here, card_id)
    if not cards:
        raise data.fail(cpath, "a catalog has at least one card")
    return Catalog(cards, note)


def placement_from_dict(value: object, path: str) -> Placement:
    raw = data.obj(value, path, required=("card", "x", "y"), optional=("rotation", "egg_on"))
    rotation = data.integer(raw.get("rotation", 0), data.at(path, "rotation"))
    if rotation not in ROTATIONS:
        raise data.fail(
            data.at(path, "rotation"),
            f"rotation is 0, 90, 180 or 270 (degrees clockwise), got {rotation}",
        )
    egg_on = None
    if raw.get("egg_on") is not None:
        egg_on = cell_from_value(raw["egg_on"], data.at(path, "egg_on"))
    return Placement(
        data.name(raw["card"], data.at(path, "card"), "card id"),
        data.integer(raw["x"], data.at(path, "x")),
        data.integer(raw["y"], data.at(path, "y")),
        rotation,
        egg_on,
    )


CatalogReader = Callable[[object, str], Catalog]


def log_from_dict(value: object, read_catalog: CatalogReader, path: str = data.ROOT) -> Replay:
    """Read a placement log and replay it.

    ``read_catalog(value, path)`` turns the ``catalog`` entry (a file name, or the catalog
    itself) into a :class:`Catalog`.
    """
    raw = data.obj(value, path, required=("catalog", "placements"), optional=("goals",))
    catalog = read_catalog(raw["catalog"], data.at(path, "catalog"))
    ppath = data.at(path, "placements")
    items = data.lst(raw["placements"], ppath)
    if not items:
        raise data.fail(ppath, "a land has at least one card")
    placements = [placement_from_dict(p, data.at(ppath, i)) for i, p in enumerate(items)]
    goals = goals_from_list(raw.get("goals", []), data.at(path, "goals"))
    return replay(catalog, placements, goals, lambda i: data.at(ppath, i))
