"""Chomp cards and placement logs: replaying a land card by card (D6, docs/dino-catalog.md).

A *catalog* gives each card's land side as a 2 x 2 text grid (the vocabulary of
:mod:`companion.games.dino.text`), with mountains between quarters and on the card's outer
edges.  A *placement log* lists the cards in play order with their quarter-grid position
and rotation.  :func:`replay` lays them down one by one, refuses a placement the rules do
not allow (naming the card and the rule), removes the egg tokens of covered nests and
returns the visible land.

Pure: catalogs and logs arrive as parsed JSON; reading files is the caller's job.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion import data
from companion.errors import InputError
from companion.games.dino import (
    Cell,
    Edge,
    Goal,
    Kind,
    Land,
    Section,
    Size,
    build_land,
    edge,
    neighbours,
    pieces,
)

CARD_QUARTERS = ((0, 0), (1, 0), (0, 1), (1, 1))  # top-left, top-right, bottom-left, bottom-right
ROTATIONS = (0, 90, 180, 270)  # degrees clockwise
_KIND_WORDS = {
    Kind.PLANTS: "plants",
    Kind.TAR_PIT: "tar pit",
    Kind.MEAT: "meat",
    Kind.NEST: "nest",
    Kind.EGG: "egg icon",
    Kind.LAND: "ground",
    Kind.DINO: "dino",
}


@dataclass(frozen=True, slots=True)
class Card:
    """A card's land side in card coordinates: quarters (0..1, 0..1), y downwards."""

    id: str
    sections: tuple[Section, ...]
    mountains: frozenset[Edge]  # may reach one step outside the card: its outer edges
    egg_icon: bool

    def kinds(self) -> list[str]:
        """What each section shows, in words: ``large herbivore``, ``2 small herbivores``."""
        return [
            s.dino.words(s.count).removeprefix("1 ") if s.dino else _KIND_WORDS[s.kind]
            for s in self.sections
        ]


@dataclass(frozen=True, slots=True)
class Catalog:
    cards: Mapping[str, Card]
    note: str | None = None


# --------------------------------------------------------------------------------------
# Placements (D6)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Placement:
    card: str
    x: int  # the card's top-left quarter, after rotation
    y: int
    rotation: int = 0
    egg_on: Cell | None = None  # a visible empty nest that gets an egg token

    def at(self, local: Cell) -> Cell:
        """Where a point of the card (quarter coordinates) lies on the land."""
        tx, ty = turn(local, self.rotation)
        return (self.x + tx, self.y + ty)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"card": self.card, "x": self.x, "y": self.y}
        out["rotation"] = self.rotation
        if self.egg_on is not None:
            out["egg_on"] = list(self.egg_on)
        return out


def turn(point: Cell, rotation: int) -> Cell:
    """A card-local point turned clockwise about the card's centre (works off the card too)."""
    x, y = point
    for _ in range(rotation // 90):
        x, y = 1 - y, x
    return (x, y)


@dataclass(frozen=True, slots=True)
class EggEvent:
    placement: int
    nest: str  # section id in the replayed land
    cell: Cell
    placed: bool  # True: a token put on the nest; False: lost under a card


@dataclass(frozen=True, slots=True)
class Replay:
    land: Land
    placements: tuple[Placement, ...]
    events: tuple[EggEvent, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "cards": len(self.placements),
            "eggs_placed": [
                {"placement": e.placement, "nest": e.nest, "cell": list(e.cell)}
                for e in self.events
                if e.placed
            ],
            "eggs_lost": [
                {"placement": e.placement, "nest": e.nest, "cell": list(e.cell)}
                for e in self.events
                if not e.placed
            ],
        }


Ref = tuple[int, int]  # (placement index, section index on that card)


def _section_id(card: str, local: str) -> str:
    return f"{card}:{local}"


@dataclass(slots=True)
class _Laid:
    """The cards laid so far (D6): what shows on each cell, the mountains, the eggs."""

    cards: list[Card] = field(default_factory=list)
    visible: dict[Cell, Ref] = field(default_factory=dict)
    cells_of: dict[Ref, set[Cell]] = field(default_factory=dict)
    walls: list[frozenset[Edge]] = field(default_factory=list)
    eggs: dict[Ref, Cell] = field(default_factory=dict)  # nest -> the cell its egg lies on
    events: list[EggEvent] = field(default_factory=list)
    placed: dict[str, int] = field(default_factory=dict)

    def sid(self, ref: Ref) -> str:
        card = self.cards[ref[0]]
        return _section_id(card.id, card.sections[ref[1]].id)

    def check(self, pl: Placement, here: str, where: Callable[[int], str]) -> None:
        """Refuse a card already down, one off the land, one over half a large dino."""
        said = f"card {pl.card!r} at ({pl.x}, {pl.y})"
        if pl.card in self.placed:
            raise InputError(
                data.at(here, "card"),
                f"card {pl.card!r} is already in the land ({where(self.placed[pl.card])})",
            )
        covered = [(pl.x + dx, pl.y + dy) for dx, dy in CARD_QUARTERS]
        visible = self.visible
        if visible and not any(
            c in visible or any(n in visible for n in neighbours(c)) for c in covered
        ):
            raise InputError(
                here,
                f"{said} neither overlaps nor touches the land (D6: a card goes on or "
                "next to the land; diagonal does not count)",
            )
        for c in covered:
            ref = visible.get(c)
            if ref is None:
                continue
            under = self.cards[ref[0]].sections[ref[1]]
            if under.dino is not None and under.dino.size is Size.LARGE:
                if not self.cells_of[ref] <= set(covered):
                    raise InputError(
                        here,
                        f"{said} would cover half of the {under.dino.value.replace('_', ' ')} "
                        f"of card {self.cards[ref[0]].id!r} (D6: a large dino is covered whole "
                        "or not at all)",
                    )

    def lay(self, pl: Placement, card: Card, i: int) -> None:
        """Put the card on top: what it covers is hidden, a covered nest loses its egg."""
        for c in [(pl.x + dx, pl.y + dy) for dx, dy in CARD_QUARTERS]:
            ref = self.visible.pop(c, None)
            if ref is None:
                continue
            self.cells_of[ref].discard(c)
            if ref in self.eggs:
                del self.eggs[ref]
                self.events.append(EggEvent(i, self.sid(ref), c, False))
        self.cards.append(card)
        self.placed[pl.card] = i
        for k, section in enumerate(card.sections):
            spots = {pl.at(c) for c in section.cells}
            self.cells_of[(i, k)] = spots
            for c in spots:
                self.visible[c] = (i, k)
        self.walls.append(frozenset(edge(pl.at(a), pl.at(b)) for a, b in card.mountains))

    def egg(self, pl: Placement, card: Card, i: int, here: str) -> None:
        """The egg token a card with an egg icon puts on a visible empty nest."""
        if pl.egg_on is None:
            return
        epath = data.at(here, "egg_on")
        if not card.egg_icon:
            raise InputError(
                epath, f"card {pl.card!r} shows no egg icon, so no egg token goes down"
            )
        ref = self.visible.get(pl.egg_on)
        ex, ey = pl.egg_on
        if ref is None or self.cards[ref[0]].sections[ref[1]].kind is not Kind.NEST:
            raise InputError(epath, f"[{ex}, {ey}] is not a visible nest")
        if ref in self.eggs:
            raise InputError(epath, f"the nest at [{ex}, {ey}] already holds an egg token")
        self.eggs[ref] = pl.egg_on
        self.events.append(EggEvent(i, self.sid(ref), pl.egg_on, True))

    def land(self, goals: Sequence[Goal]) -> Land:
        """The visible land: each section's pieces that still show, the mountains on top."""
        sections = []
        for ref in sorted(self.cells_of):
            left = self.cells_of[ref]
            if not left:
                continue
            base = self.cards[ref[0]].sections[ref[1]]
            for n, piece in enumerate(pieces(left)):
                name = self.sid(ref) if n == 0 else f"{self.sid(ref)}~{n + 1}"
                egg = self.eggs.get(ref) in piece
                sections.append(Section(name, base.kind, tuple(piece), base.dino, base.count, egg))
        top = {cell: ref[0] for cell, ref in self.visible.items()}
        mountains = sorted(
            {
                e
                for p, edges in enumerate(self.walls)
                for e in edges
                if top.get(e[0]) == p or top.get(e[1]) == p
            }
        )
        return build_land(sections, mountains, goals)


def replay(
    catalog: Catalog,
    placements: Sequence[Placement],
    goals: Sequence[Goal] = (),
    where: Callable[[int], str] = lambda i: f"placements[{i}]",
) -> Replay:
    """Lay the cards down in order (D6) and return the visible land.

    Each new card goes on top (there is no way to tuck one under), must overlap or touch
    the land, and must cover a large dino whole or not at all.  A nest that gets covered,
    even in part, loses its egg token.  An edge shows a mountain when a card that is on
    top on either side of it shows one there.
    """
    laid = _Laid()
    for i, pl in enumerate(placements):
        here = where(i)
        card = catalog.cards.get(pl.card)
        if card is None:
            raise InputError(data.at(here, "card"), f"unknown card {pl.card!r}: not in the catalog")
        laid.check(pl, here, where)
        laid.lay(pl, card, i)
        laid.egg(pl, card, i, here)
    return Replay(laid.land(goals), tuple(placements), tuple(laid.events))
