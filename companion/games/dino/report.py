"""Chomp's wording: why each herd lived or died, the score report, a game's verdict.

The words a table reads, beside the rules they explain (:mod:`companion.games.dino`), so
the ``companion dino`` commands, the photo scan's report and any screen say the same
thing the same way. Herds are named by the cells of the grid printed with them
(:func:`~companion.games.dino.text.grid_names`), whatever ids the land's sections carry
(a photo's ``x04:A1`` is card x04's quarter, not the grid's cell A1).
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from companion.games.dino import (
    Diet,
    GameResult,
    Herd,
    Kind,
    Land,
    Score,
    Why,
    edge,
    neighbours,
)
from companion.games.dino.catalog import Catalog, Replay
from companion.games.dino.text import grid_names

# --------------------------------------------------------------------------------------
# Explanations a ten-year-old follows
# --------------------------------------------------------------------------------------


def _ids(ids: Sequence[str], most: int = 4) -> str:
    if len(ids) <= most:
        return ", ".join(ids)
    return f"{', '.join(ids[:most])} and {len(ids) - most} more"


def herd_words(herd: Herd, names: Mapping[str, str] | None = None) -> str:
    """``the 3 large herbivores at I1, I2, I3`` (``the medium carnivore at C1``); ``names``
    turns section ids into the printed grid's cell names."""
    what = herd.dino.words(herd.dinos)
    if herd.dinos == 1:
        what = what.removeprefix("1 ")
    return f"the {what} at {_ids(_named(herd.sections, names))}"


def _named(ids: Sequence[str], names: Mapping[str, str] | None) -> list[str]:
    """Section ids as grid cell names, top row first (ids as they are without ``names``)."""
    if names is None:
        return list(ids)
    return sorted((names[i] for i in ids), key=_cell_order)


def _cell_order(name: str) -> tuple[int, int, str]:
    """``B12`` -> (12, 2, "B"): rows top to bottom, then columns left to right."""
    letters = name.rstrip("0123456789")
    return int(name[len(letters) :]), len(letters), letters


def _join(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _points(herd: Herd) -> str:
    size = herd.dino.size.value
    if herd.dinos == 1:
        return f"{herd.points} point{'s' if herd.points != 1 else ''}"
    return f"{herd.dinos} dinos x {size} = {herd.points} points"


class _Lookup:
    """Cell, id and name indexes of a land, built once however many herds are explained."""

    def __init__(self, land: Land) -> None:
        self.where = land.cell_index()
        self.by_id = {s.id: s for s in land.sections}
        self.names = grid_names(land)


def _behind_mountains(land: Land, herd: Herd, look: _Lookup) -> tuple[list[str], bool]:
    """What a mountain range hides from a herd: plants beyond it, and whether a herd of
    the same dinos lies beyond it (so they are not one herd)."""
    where, by_id = look.where, look.by_id
    mine = set(herd.sections)
    plants: list[str] = []
    same = False
    for sid in herd.sections:
        for cell in by_id[sid].cells:
            for other in neighbours(cell):
                j = where.get(other)
                if j is None or edge(cell, other) not in land.mountains:
                    continue
                beyond = land.sections[j]
                if beyond.id in mine:
                    continue
                name = look.names[beyond.id]
                if beyond.kind is Kind.PLANTS and name not in plants:
                    plants.append(name)
                if beyond.dino is herd.dino:
                    same = True
    return plants, same


def explain_all(land: Land, result: Score) -> list[str]:
    """:func:`explain` for every herd, with the land's indexes built once."""
    look = _Lookup(land)
    return [explain(land, result, i, look) for i in range(len(result.herds))]


def explain(land: Land, result: Score, index: int, look: _Lookup | None = None) -> str:
    """Why one herd lived or died, in short plain sentences."""
    look = look or _Lookup(land)
    herd = result.herds[index]
    herds = result.herds

    def words(other: Herd) -> str:
        return herd_words(other, look.names)

    who = words(herd)
    who = who[0].upper() + who[1:]
    one = herd.dinos == 1
    they, be, have = ("it", "is", "has") if one else ("they", "are", "have")
    them = "it" if one else "them"
    if herd.why is Why.TAR_PIT:
        return f"{who} {be} next to a tar pit. {they.capitalize()} got stuck. Extinct!"
    if herd.why is Why.MEAT:
        return (
            f"{who} {be} next to meat, so {they} ate the meat and hunted nobody. "
            f"Alive: {_points(herd)}."
        )
    if herd.why is Why.ATE:
        prey = _join([words(herds[p]) for p in herd.ate])
        return f"{who} had no meat, so {they} ate {prey}. Alive: {_points(herd)}."
    if herd.why is Why.EATEN:
        eaters = _join([words(herds[p]) for p in herd.eaten_by])
        extra = ""
        if Kind.PLANTS in herd.near:
            extra = f" The plants next to {them} did not help: carnivores eat first."
        return f"{who} got eaten by {eaters}, who had no meat. Extinct!{extra}"
    if herd.why is Why.STARVED:
        notes = []
        for other in herd.next_to:
            o = herds[other]
            if o.dino.diet is Diet.HERBIVORE:
                if o.dino.size > herd.dino.size:
                    notes.append(f"{words(o)} {'is' if o.dinos == 1 else 'are'} too big")
                elif o.why is Why.TAR_PIT:
                    notes.append(f"{words(o)} got stuck in a tar pit first")
        extra = f" ({'; '.join(notes)})" if notes else ""
        return (
            f"{who} had no meat and no herbivores small enough to eat next to {them}{extra}. "
            "Extinct!"
        )
    spared = []
    for other in herd.next_to:
        o = herds[other]
        if o.dino.diet is Diet.CARNIVORE and o.dino.size >= herd.dino.size:
            if o.why is Why.TAR_PIT:
                spared.append(f"{words(o)} next to {them} got stuck in a tar pit first")
            elif o.why is Why.MEAT:
                spared.append(f"{words(o)} next to {them} ate meat instead")
    spare = "".join(f" {s[0].upper()}{s[1:]}." for s in spared)
    if herd.why is Why.PLANTS:
        return f"{who} {be} next to plants, so {they} ate.{spare} Alive: {_points(herd)}."
    plants: list[str] = []
    same = False
    if land.mountains:
        plants, same = _behind_mountains(land, herd, look)
    walls = ""
    if plants:
        walls += f" A mountain range keeps {them} away from the plants at {_ids(plants)}."
    if same:
        kin = herd.dino.words(2).removeprefix("2 ")
        walls += f" A mountain range keeps {them} apart from the other {kin}: not one herd."
    return f"{who} {have} no plants next to {them}.{spare}{walls} Extinct!"


WHY_WORDS = {
    Why.TAR_PIT: "extinct: tar pit",
    Why.MEAT: "alive: ate meat",
    Why.ATE: "alive: ate herbivores",
    Why.EATEN: "extinct: eaten",
    Why.STARVED: "extinct: starved",
    Why.PLANTS: "alive: ate plants",
    Why.NO_PLANTS: "extinct: no plants",
}


def score_dict(land: Land, result: Score, replay: Replay | None = None) -> dict[str, Any]:
    out = result.to_dict()
    for herd, words in zip(out["herds"], explain_all(land, result), strict=True):
        herd["explain"] = words
    if replay is not None:
        out["replay"] = replay.to_dict()
    return out


def _short_ids(ids: tuple[str, ...], most: int = 3) -> str:
    shown = ", ".join(ids[:most])
    return shown if len(ids) <= most else f"{shown} +{len(ids) - most}"


def _wrap(text: str) -> list[str]:
    """Wrap an explanation, keeping its points sum ("3 dinos x 3 = 9 points") on one line."""
    head, sep, tail = text.partition("Alive: ")
    text = head + (sep + tail).replace(" ", "\N{NO-BREAK SPACE}")
    lines = textwrap.wrap(text, width=92, initial_indent="      ", subsequent_indent="      ")
    return [line.replace("\N{NO-BREAK SPACE}", " ") for line in lines]


def score_lines(land: Land, result: Score, why: bool) -> list[str]:
    """The herds (by the printed grid's cell names), eggs, goals and total."""
    lines = []
    said = explain_all(land, result) if why else []
    names = grid_names(land)
    if result.herds:
        lines.append("Herds (fed in order: tar pits, carnivores, herbivores):")
        rows = [
            (
                _short_ids(tuple(_named(h.sections, names))),
                h.dino.words(h.dinos),
                WHY_WORDS[h.why],
                str(h.points),
            )
            for h in result.herds
        ]
        widths = [max(len(r[k]) for r in rows) for k in range(4)]
        for i, row in enumerate(rows):
            a, b, c = (row[k].ljust(widths[k]) for k in range(3))
            lines.append(f"  {a}  {b}  {c}  {row[3].rjust(widths[3])}")
            if why:
                lines.extend(_wrap(said[i]))
    else:
        lines.append("No dinos.")
    lines.append(f"Eggs on visible nests: {result.eggs} x 2 = {result.egg_points}")
    for g in result.goals:
        label = g.goal.name or g.goal.describe()
        counted = "" if g.goal.kind == "manual" else f" ({g.count} counted)"
        lines.append(f"Goal {label}: {g.points}{counted}")
    lines.append(
        f"Score: dinos {result.dino_points} + eggs {result.egg_points} + goals "
        f"{result.goal_points} = {result.total}"
    )
    lines.append(f"Biggest living herd: {result.biggest_living_herd} dinos")
    return lines


def replay_line(replay: Replay) -> str:
    text = f"Built from {len(replay.placements)} cards."
    placed = [e.nest for e in replay.events if e.placed]
    lost = [e.nest for e in replay.events if not e.placed]
    if placed:
        text += f" Egg tokens placed on: {', '.join(placed)}."
    if lost:
        text += f" Egg tokens lost under a card: {', '.join(lost)}."
    return text


def verdict(result: GameResult) -> str:
    """D5 in one sentence."""
    winners = result.winners
    if len(winners) > 1:
        return (
            f"{', '.join(winners[:-1])} and {winners[-1]} share the victory "
            "(equal score and equal biggest living herd)."
        )
    if result.decided_by == "biggest_living_herd":
        return f"{winners[0]} wins on the tie-break: the most dinos in the biggest living herd."
    return f"{winners[0]} wins."


def game_dict(lands: Mapping[str, Land], result: GameResult) -> dict[str, Any]:
    """The ``dino game --json`` object: the ranking, and each player's explained score."""
    out = result.to_dict()
    for standing in result.standings:
        out["players"][standing.player] = score_dict(lands[standing.player], standing.score)
    return out


def game_lines(result: GameResult) -> list[str]:
    """The standings as a table, then D5's verdict in one sentence."""
    lines = []
    head = ("rank", "player", "dinos", "eggs", "goals", "total", "biggest herd")
    rows = [
        (
            str(s.rank),
            s.player,
            str(s.score.dino_points),
            str(s.score.egg_points),
            str(s.score.goal_points),
            str(s.score.total),
            str(s.score.biggest_living_herd),
        )
        for s in result.standings
    ]
    widths = [max(len(r[k]) for r in [head, *rows]) for k in range(len(head))]
    for row in [head, *rows]:
        cells = [row[k].rjust(widths[k]) if k != 1 else row[k].ljust(widths[k]) for k in range(7)]
        lines.append("  " + "  ".join(cells).rstrip())
    lines.append(verdict(result))
    return lines


def catalog_dict(catalog: Catalog) -> dict[str, Any]:
    """The ``dino catalog check --json`` object: each card's kinds, mountains, egg icon."""
    return {
        "note": catalog.note,
        "cards": {
            cid: {
                "sections": card.kinds(),
                "mountains": len(card.mountains),
                "egg_icon": card.egg_icon,
            }
            for cid, card in catalog.cards.items()
        },
    }


def catalog_lines(source: str, catalog: Catalog) -> list[str]:
    """A checked catalog: how many cards, the note, and one line per card."""
    cards = catalog.cards
    lines = [f"{source}: {len(cards)} cards, all valid."]
    if catalog.note:
        lines.append(f"Note: {catalog.note}")
    width = max(len(cid) for cid in cards)
    for cid, card in cards.items():
        walls = len(card.mountains)
        extras = []
        if walls:
            extras.append(f"{walls} mountain{'s' if walls != 1 else ''}")
        if card.egg_icon and "egg icon" not in card.kinds():
            extras.append("egg icon printed over a quarter")
        tail = f"  ({', '.join(extras)})" if extras else ""
        lines.append(f"  {cid:<{width}}  {', '.join(card.kinds())}{tail}")
    return lines
