"""Several photos of one land, merged cell by cell (docs/scan.md, "Several photos").

Each photo's reading names cells in its own grid: A1 is the land's top-left as that
photo shows it, so two photos name one cell differently (turned by quarter turns and
moved).  **Registration** puts every photo in the first one's grid by the cards placed
in both: a card's place and turn in two photos give the quarter turn and the move
between their grids, and a photo is placed only when every card it shares with the
photos already placed gives the same one.  A photo that shares no placed card with the
others, or whose shared cards disagree (not the same land, or a card moved between
the photos), is an :class:`~companion.errors.InputError` naming it: nothing is guessed.

Then **cell by cell**, what each photo says of a cell is one of: a card's quarter read,
a question (the reader's :class:`~companion.scan.land.Unread`), *bare table* (a cell
beside the photo's land that the outline step found bare: see :func:`bare_cells`), or
nothing (the photo did not look there).  The merged cell is

- read, when the photos that read it read the same card and quarter, no photo finds it
  bare table, and no photo saw a contradiction there (two markers, a marker twice, a
  card's markers disagreeing, an impossible order, half a large dino): a cell one photo
  could not see (not seen, a sticker too covered, something covering it, out of the
  photo) is read from another;
- ``photos_disagree``, when two photos read different quarters there, or one reads a
  card (or a card lies there, or a sticker shows) where another sees bare table;
- bare (no cell), when a photo sees bare table where the others only asked whether
  something covers it or could not see it;
- otherwise asked, as the photos asked (the most specific trouble, every candidate).

Cards are the union of the photos' cards (registration made them agree).  What the
merge puts together is checked again as one reading checks itself: cards stacked in
an order no stack shows are asked (``order``), half of a large dino covered is asked
(``half_large``), and a cell a card covers that no photo says anything about is asked
(``not_seen``).  A photo asks about cells two cells off its land only as part of an
area that reaches the land; an area whose cells beside the land another photo shows
as bare table no longer reaches it, and its questions are dropped.  Finally the merged
land is moved so that its top-left cell is A1.

The readings must come from :func:`~companion.scan.reader.read_photo` with its outline
step (the default): a cell next to a photo's land that it does not ask about is then
bare table in that photo.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from companion.errors import InputError
from companion.games.dino import Cell, Size
from companion.games.dino.catalog import CARD_QUARTERS, Catalog, turn
from companion.scan.grid import Matrix
from companion.scan.land import CardPlace, Trouble, Unread, quarter_name
from companion.scan.outline import areas
from companion.scan.reader import Reading

# What a photo may fail to see, so another photo's read answers it.
UNSEEN = frozenset({Trouble.NOT_SEEN, Trouble.STICKER, Trouble.COVERED, Trouble.OUTSIDE})
# The trouble kept when every photo asks about a cell: the most specific first.
PRIORITY = (
    Trouble.PHOTOS_DISAGREE,
    Trouble.CARD_DISAGREES,
    Trouble.TWO_MARKERS,
    Trouble.DUPLICATE,
    Trouble.ORDER,
    Trouble.HALF_LARGE,
    Trouble.STICKER,
    Trouble.NOT_SEEN,
    Trouble.COVERED,
    Trouble.OUTSIDE,
)
BARE = "bare table"
NOTHING = "nothing"  # the photo did not look there


@dataclass(frozen=True, slots=True)
class Turn:
    """Where one photo's grid lies in the merged grid: turned clockwise by ``quarters``
    quarter turns about the grid's origin, then moved by (``dx``, ``dy``) cells."""

    quarters: int = 0
    dx: int = 0
    dy: int = 0

    def point(self, x: float, y: float) -> tuple[float, float]:
        for _ in range(self.quarters % 4):
            x, y = -y, x
        return x + self.dx, y + self.dy

    def cell(self, cell: Cell) -> Cell:
        x, y = self.point(cell[0] + 0.5, cell[1] + 0.5)
        return (math.floor(x), math.floor(y))

    def place(self, place: CardPlace) -> CardPlace:
        rotation = (place.rotation + 90 * self.quarters) % 360
        x, y = self.cell(place.cell_of(0))
        tx, ty = turn(CARD_QUARTERS[0], rotation)
        return CardPlace(place.card, x - tx, y - ty, rotation)

    def matrix(self) -> Matrix:
        """The 3 x 3 map of grid points (photo grid to merged grid)."""
        quarter = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
        rotate = np.linalg.matrix_power(quarter, self.quarters % 4)
        move = np.array([[1.0, 0.0, self.dx], [0.0, 1.0, self.dy], [0.0, 0.0, 1.0]])
        return np.asarray(move @ rotate, np.float64)

    def then(self, dx: int, dy: int) -> Turn:
        return Turn(self.quarters % 4, self.dx + dx, self.dy + dy)


def moved(reading: Reading, by: Turn) -> Reading:
    """The same reading, its cells named in another grid (the photo is unchanged: its
    grid-to-image map takes the new names back to the photo)."""
    spin = 90 * by.quarters
    h = reading.grid_to_image
    return Reading(
        reading.size,
        reading.markers,
        {i: (by.cell(c), (rot + spin) % 360) for i, (c, rot) in reading.placed.items()},
        reading.ignored,
        {k: by.place(p) for k, p in reading.cards.items()},
        {by.cell(c): v for c, v in reading.cells.items()},
        {
            by.cell(c): Unread(by.cell(c), u.trouble, u.candidates)
            for c, u in reading.unread.items()
        },
        None if h is None else np.asarray(h @ np.linalg.inv(by.matrix()), np.float64),
        reading.marker_side,
        reading.notes,
    )


def _around(cells: Iterable[Cell]) -> set[Cell]:
    return {(x + dx, y + dy) for x, y in cells for dx in (-1, 0, 1) for dy in (-1, 0, 1)}


def _beside_land(why: Unread) -> bool:
    """A question the outline step asked (a cell no card is known to cover)."""
    return why.trouble in (Trouble.COVERED, Trouble.OUTSIDE) and not why.candidates


def bare_cells(reading: Reading) -> set[Cell]:
    """The cells the photo shows as bare table: next to its land (cells read, asked, or
    under a placed card), and not asked about by the outline step, which looked at each
    of them and found the table there."""
    if reading.grid_to_image is None:
        return set()
    land = set(reading.cells) | {c for p in reading.cards.values() for c in p.footprint()}
    land |= {c for c, why in reading.unread.items() if not _beside_land(why)}
    return _around(land) - land - set(reading.unread)


def _label(card: str, quarter: int) -> str:
    return f"{card}:{quarter_name(quarter)}"


# --------------------------------------------------------------------------------------
# Registration
# --------------------------------------------------------------------------------------


def _turn_between(there: CardPlace, here: CardPlace) -> Turn:
    """The turn that puts ``here`` (a card in one photo's grid) on ``there``."""
    quarters = ((there.rotation - here.rotation) // 90) % 4
    x, y = Turn(quarters).cell(here.cell_of(0))
    tx, ty = there.cell_of(0)
    return Turn(quarters, tx - x, ty - y)


def register(readings: Sequence[Reading], names: Sequence[str]) -> list[Turn]:
    """Each photo's turn into the first photo's grid (see the module's docstring);
    an InputError naming the photo that cannot be placed."""
    for reading, name in zip(readings, names, strict=True):
        if not reading.cards:
            raise InputError("", "no card read in this photo: it cannot be merged", name)
    turns: dict[int, Turn] = {0: Turn()}
    known = {card: (place, 0) for card, place in readings[0].cards.items()}
    waiting = list(range(1, len(readings)))
    while waiting:
        placed_one = False
        for j in list(waiting):
            ways: dict[Turn, list[tuple[str, int]]] = {}
            for card, place in sorted(readings[j].cards.items()):
                if card in known:
                    there, source = known[card]
                    ways.setdefault(_turn_between(there, place), []).append((card, source))
            if not ways:
                continue
            if len(ways) > 1:
                (a, i), (b, k) = (found[0] for found in list(ways.values())[:2])
                raise InputError(
                    "",
                    f"cards {a} and {b} do not lie as in {names[i]}"
                    + (f" and {names[k]}" if k != i else "")
                    + ": photos of one land, with no card moved between them?",
                    names[j],
                )
            turns[j] = by = next(iter(ways))
            for card, place in readings[j].cards.items():
                known.setdefault(card, (by.place(place), j))
            waiting.remove(j)
            placed_one = True
        if not placed_one:
            raise InputError(
                "",
                f"no card read in it is read in {', '.join(names[i] for i in sorted(turns))}: "
                "photos of one land, each showing a card another one shows?",
                names[waiting[0]],
            )
    return [turns[i] for i in range(len(readings))]


# --------------------------------------------------------------------------------------
# Cell by cell
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Merged:
    """The land the photos show together, in the merged grid (A1 its top-left)."""

    cells: dict[Cell, tuple[str, int]]
    cards: dict[str, CardPlace]
    unread: dict[Cell, Unread]
    read_by: dict[Cell, tuple[int, ...]]  # cell -> the photos (indices) that read it
    saw: dict[Cell, tuple[str, ...]]  # unread cell -> what each photo shows there
    views: tuple[Reading, ...]  # each photo's own reading, named in the merged grid
    turns: tuple[Turn, ...]  # each photo's grid in the merged grid

    def how(self, cell: Cell) -> str:
        """How the first photo that read the cell read it (seen, verified, ...)."""
        return self.views[self.read_by[cell][0]].how(cell)


class _Cells:
    """The merge as it grows: each photo's view, the cards, what is read and asked."""

    def __init__(self, views: Sequence[Reading], catalog: Catalog) -> None:
        self.views, self.catalog = views, catalog
        self.bare = [bare_cells(v) for v in views]
        self.cards: dict[str, CardPlace] = {}
        for view in views:
            for card, place in view.cards.items():
                self.cards.setdefault(card, place)
        self.under = {c for p in self.cards.values() for c in p.footprint()}
        self.cells: dict[Cell, tuple[str, int]] = {}
        self.unread: dict[Cell, Unread] = {}
        self.read_by: dict[Cell, tuple[int, ...]] = {}

    def said(self, index: int, cell: Cell) -> str:
        view = self.views[index]
        if cell in view.cells:
            return _label(*view.cells[cell])
        if cell in view.unread:
            return str(view.unread[cell].trouble)
        return BARE if cell in self.bare[index] else NOTHING

    def ask(self, cell: Cell, trouble: Trouble, candidates: Iterable[tuple[str, int]]) -> None:
        self.unread[cell] = Unread(cell, trouble, tuple(dict.fromkeys(candidates)))

    def one(self, cell: Cell) -> None:
        """What the photos say of one cell, merged (the rules of the module's docstring)."""
        reads = {i: v.cells[cell] for i, v in enumerate(self.views) if cell in v.cells}
        asks = [v.unread[cell] for v in self.views if cell in v.unread]
        bare = any(cell in b for b in self.bare)
        values = sorted(set(reads.values()))
        named = [*values, *(c for why in asks for c in why.candidates)]
        something = values or cell in self.under or any(not _beside_land(u) for u in asks)
        if len(values) > 1 or (bare and something):
            self.ask(cell, Trouble.PHOTOS_DISAGREE, named)
            return
        contradictions = [u for u in asks if u.trouble not in UNSEEN]
        if values and not contradictions:
            self.cells[cell] = values[0]
            self.read_by[cell] = tuple(sorted(reads))
        elif contradictions or (asks and not bare):
            worst = min((u.trouble for u in contradictions or asks), key=PRIORITY.index)
            self.ask(cell, worst, named)

    def run(self) -> None:
        spots: set[Cell] = set(self.under)
        for view in self.views:
            spots |= set(view.cells) | set(view.unread)
        for cell in sorted(spots, key=lambda c: (c[1], c[0])):
            self.one(cell)
        self._check_order()
        self._check_large()
        self._drop_far_questions()
        for card, place in sorted(self.cards.items()):
            for quarter, cell in enumerate(place.footprint()):
                if cell not in self.cells and cell not in self.unread:
                    self.ask(cell, Trouble.NOT_SEEN, [(card, quarter)])

    def _drop_far_questions(self) -> None:
        """A photo asks about a cell two cells off its land only as part of an area that
        reaches the land (a card there would touch it).  When another photo shows the
        area's cells beside the land as bare table, what is left of it no longer reaches
        the land: those questions are dropped, as the outline step would not ask them."""
        land = set(self.cells) | self.under
        land |= {c for c, why in self.unread.items() if not _beside_land(why)}
        beside = _around(land) - land
        asked = [c for c, why in self.unread.items() if _beside_land(why)]
        for area in areas(asked):
            if not set(area) & beside:
                for cell in area:
                    del self.unread[cell]

    def _check_order(self) -> None:
        """Cards that show over one another both ways: no stack shows that."""
        above: dict[str, set[str]] = {card: set() for card in self.cards}
        for cell, (card, _) in self.cells.items():
            for other, place in self.cards.items():
                if other != card and place.quarter_at(cell) is not None:
                    above[card].add(other)
        stuck = {a for a in above for b in above[a] if a in _reach(above, b)}
        for cell in [c for c, (k, _) in self.cells.items() if k in stuck]:
            self._unread_again(cell, Trouble.ORDER)

    def _check_large(self) -> None:
        """D6: half of a large dino covered is a misread somewhere: ask both halves."""
        for card, place in self.cards.items():
            for section in self.catalog.cards[card].sections:
                if section.dino is None or section.dino.size is not Size.LARGE:
                    continue
                spots = [place.at(c) for c in section.cells]
                shows = [self.cells[c][0] for c in spots if c in self.cells]
                if card in shows and any(k != card for k in shows):
                    for cell in spots:
                        if cell in self.cells:
                            self._unread_again(cell, Trouble.HALF_LARGE)

    def _unread_again(self, cell: Cell, trouble: Trouble) -> None:
        self.ask(cell, trouble, [self.cells.pop(cell)])
        self.read_by.pop(cell, None)


def _reach(above: dict[str, set[str]], start: str) -> set[str]:
    """Every card ``start`` lies over, directly or through others."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for other in above.get(todo.pop(), ()):
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return seen


def merge(catalog: Catalog, readings: Sequence[Reading], names: Sequence[str]) -> Merged:
    """The photos' readings merged into one, in the first photo's turn with the merged
    land's top-left cell A1 (see the module's docstring); InputError naming a photo
    that cannot be placed against the others."""
    turns = register(readings, names)
    merged = _Cells([moved(r, t) for r, t in zip(readings, turns, strict=True)], catalog)
    merged.run()
    spots = list(merged.cells) + list(merged.unread)
    dx = -min((c[0] for c in spots), default=0)
    dy = -min((c[1] for c in spots), default=0)
    final = tuple(t.then(dx, dy) for t in turns)

    def mv(cell: Cell) -> Cell:
        return (cell[0] + dx, cell[1] + dy)

    return Merged(
        {mv(c): v for c, v in merged.cells.items()},
        {k: CardPlace(k, p.x + dx, p.y + dy, p.rotation) for k, p in merged.cards.items()},
        {mv(c): Unread(mv(c), u.trouble, u.candidates) for c, u in merged.unread.items()},
        {mv(c): v for c, v in merged.read_by.items()},
        {mv(c): tuple(merged.said(i, c) for i in range(len(readings))) for c in merged.unread},
        tuple(moved(r, t) for r, t in zip(readings, final, strict=True)),
        final,
    )
