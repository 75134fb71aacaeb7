"""Cards and cells from the placed markers (step 3 of :mod:`companion.scan.reader`).

A marker's corner order tells how its card is turned; with its quarter that puts the
card's top-left corner on the grid.  A card whose markers disagree, a cell two markers
claim, a marker seen twice and cards stacked in an order no real stack shows are left
unread, never settled by a vote.  :class:`CardState` also answers which other markers
could lie on a cell (the stacking, D6, and :class:`Ground`'s bare table).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from companion.games.dino import Cell, Size
from companion.games.dino.catalog import CARD_QUARTERS, Catalog, turn
from companion.scan.grid import GridFit, Image, Marker, Matrix, apply_homography
from companion.scan.land import CardPlace, Trouble, Unread

# --------------------------------------------------------------------------------------
# 3. Cards and cells
# --------------------------------------------------------------------------------------


class Ground:
    """The bare table beside the land, to tell a cell that no card can lie on.

    A cell is *bare* when its quarter looks like the table seen well away from the land
    (two or more cells from any card): 99% of its colours within the table's own spread,
    once the light's fall-off across the table is fitted.  A card lying on the cell would
    show its art and its sticker, and a finger or a token hiding that sticker would show
    itself, so a bare cell has no card on it.  A busy table (a wide spread), a cell whose
    middle is out of the photo, or one with no table in view around it is never bare: the
    reader then asks rather than rules a card out.
    """

    PX = 24  # rectified pixels per quarter
    REACH = 3  # cells around the cell where the table is looked for
    INSET = 0.05  # of a quarter, left out around the cell's edge (shadows, card rims)
    SHARE = 0.99  # of the cell's pixels that must look like the table
    MIDDLE = 0.3  # half the side of the middle of a quarter that must be in the photo
    BUSIEST = 60.0  # the widest table spread (in grey or BGR levels) still trusted
    SLACK, NOISE = 1.25, 6.0  # a colour is the table's within SLACK * spread + NOISE

    def __init__(self, image: Image, grid_to_image: Matrix, land: set[Cell]) -> None:
        self.image = image
        self.h = grid_to_image
        self.land = land
        self._seen: dict[Cell, bool] = {}
        self._beside_land = {
            (a + dx, b + dy) for a, b in land for dx in (-1, 0, 1) for dy in (-1, 0, 1)
        }

    def bare(self, cell: Cell) -> bool:
        if cell not in self._seen:
            self._seen[cell] = cell not in self.land and self._looks_bare(cell)
        return self._seen[cell]

    def _far_from_land(self, cell: Cell, cells: npt.NDArray[np.int_]) -> npt.NDArray[np.bool_]:
        """Which of ``cells`` (the window's pixels' cells, ``REACH`` round ``cell``) are
        no card's neighbour: a card's neighbour is not surely table.  One look-up per
        pixel in a table of the window's cells."""
        window = range(-self.REACH, self.REACH + 1)
        table = np.array(
            [
                [(cell[0] + dx, cell[1] + dy) not in self._beside_land for dx in window]
                for dy in window
            ]
        )
        return np.asarray(
            table[cells[:, 1] - (cell[1] - self.REACH), cells[:, 0] - (cell[0] - self.REACH)],
            np.bool_,
        )

    def _looks_bare(self, cell: Cell) -> bool:
        reach, px = self.REACH, self.PX
        side = (2 * reach + 1) * px
        x0, y0 = cell[0] - reach, cell[1] - reach
        us = (np.arange(side, dtype=np.float64) + 0.5) / px
        gx, gy = np.meshgrid(x0 + us, y0 + us)
        pts = np.stack([gx.ravel(), gy.ravel(), np.ones(gx.size)], axis=1) @ self.h.T
        mx = (pts[:, 0] / pts[:, 2]).reshape(side, side).astype(np.float32)
        my = (pts[:, 1] / pts[:, 2]).reshape(side, side).astype(np.float32)
        height, width = self.image.shape[:2]
        inside = (mx >= 0) & (my >= 0) & (mx <= width - 1) & (my <= height - 1)
        view = cv2.remap(self.image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        pixels = view.reshape(side * side, -1).astype(np.float64)
        # Light falls off across a table: colour is fitted as a plane over the window,
        # and the spread is what is left.
        grid = np.stack([gx.ravel(), gy.ravel()], 1)
        where = np.hstack([np.ones((side * side, 1)), grid - cell])
        inset = int(round(self.INSET * px))
        cells = np.floor(grid).astype(int)
        offset = (grid - cells) * px
        inner = ((offset >= inset) & (offset < px - inset)).all(axis=1) & inside.ravel()
        area = (px - 2 * inset) ** 2
        at = (cells[:, 0] == cell[0]) & (cells[:, 1] == cell[1])
        own = inner & at
        # The middle, where a card's sticker would be, must be in the photo, and most of
        # the quarter around it: at the photo's edge, that much is still seen.
        middle = at & (np.abs(offset - px / 2) <= self.MIDDLE * px).all(axis=1)
        if not inside.ravel()[middle].all() or np.count_nonzero(own) < area / 2:
            return False
        far = inner & self._far_from_land(cell, cells)
        if np.count_nonzero(far) < area:
            return False  # not enough table in view around it
        # A plane only along an axis the table in view spans (no wild extrapolation).
        spans = np.ptp(where[far][:, 1:], axis=0) >= 1.5
        use = np.concatenate([[True], spans])
        plane, *_ = np.linalg.lstsq(where[far][:, use], pixels[far], rcond=None)
        left = np.linalg.norm(pixels - where[:, use] @ plane, axis=1)
        spread = float(np.quantile(left[far], 0.995))
        if spread > self.BUSIEST:
            return False
        near = left[own] <= self.SLACK * spread + self.NOISE
        return bool(np.count_nonzero(near) >= self.SHARE * np.count_nonzero(own))


@dataclass(slots=True)
class CardState:
    cards: dict[str, CardPlace]
    cells: dict[Cell, tuple[str, int]]
    unread: dict[Cell, Unread]
    ignored: dict[int, str]
    above: dict[str, set[str]]  # card -> the cards it is seen to lie over

    def under(self, card: str) -> set[str]:
        """Every card ``card`` lies over, directly or through others."""
        seen: set[str] = set()
        todo = [card]
        while todo:
            for other in self.above.get(todo.pop(), ()):
                if other not in seen:
                    seen.add(other)
                    todo.append(other)
        return seen

    def covered(self, cell: Cell) -> bool:
        return any(place.quarter_at(cell) is not None for place in self.cards.values())

    def rivals(
        self, cell: Cell, card: str, catalog: Catalog, ground: Ground | None = None
    ) -> tuple[list[tuple[str, int]], list[Cell]]:
        """What else may show on ``cell`` if ``card`` lies there: placed cards covering the
        cell that are not known to lie under it, and the 2 x 2 places (top-left cells)
        where a card no marker placed may lie over it.

        Such a card would lie over ``card`` (it shows where ``card`` lies), so over every
        card ``card`` lies over: its place may not take in a cell where ``card``, or a
        card under it, shows.  It may not cut a large dino of ``card`` in half (D6).  And
        it would show on every cell of its place that no placed card covers, so none of
        those may be bare table (:class:`Ground`).
        """
        under = self.under(card)
        lower = under | {card}
        placed = [
            (other, q)
            for other, place in self.cards.items()
            if other != card and other not in under
            for q in [place.quarter_at(cell)]
            if q is not None
        ]
        whole = large_dino_cells(catalog, self.cards[card], cell)
        x, y = cell
        spots: list[Cell] = []
        for ax in (x - 1, x):
            for ay in (y - 1, y):
                block = [(ax, ay), (ax + 1, ay), (ax, ay + 1), (ax + 1, ay + 1)]
                if any(s != cell and self.cells.get(s, ("",))[0] in lower for s in block):
                    continue
                if not whole <= set(block):
                    continue
                if ground is not None and any(
                    s != cell and not self.covered(s) and ground.bare(s) for s in block
                ):
                    continue
                spots.append((ax, ay))
        return placed, spots


def large_dino_cells(catalog: Catalog, place: CardPlace, cell: Cell) -> set[Cell]:
    """The cells of the large dino of ``place`` on ``cell`` (none if it shows none there)."""
    quarter = place.quarter_at(cell)
    if quarter is None:
        return set()
    local = CARD_QUARTERS[quarter]
    for section in catalog.cards[place.card].sections:
        if section.dino is not None and section.dino.size is Size.LARGE and local in section.cells:
            return {place.at(c) for c in section.cells}
    return set()


class _Asked:
    """What assembling sets aside: markers not used (and why), cells left unread."""

    def __init__(self) -> None:
        self.ignored: dict[int, str] = {}
        self.unread: dict[Cell, Unread] = {}

    def leave(self, cell: Cell, trouble: Trouble, candidates: Sequence[tuple[str, int]]) -> None:
        if cell not in self.unread:
            self.unread[cell] = Unread(cell, trouble, tuple(dict.fromkeys(candidates)))


def _good_markers(
    markers: Sequence[Marker], fit: GridFit, asked: _Asked
) -> dict[int, tuple[Cell, int]]:
    """The markers on the grid that no other marker contradicts (seen twice, same cell)."""
    ids: dict[int, list[int]] = {}
    for index in fit.where:
        ids.setdefault(markers[index].marker_id, []).append(index)
    for index in range(len(markers)):
        if index not in fit.where and index not in asked.ignored:
            asked.ignored[index] = "not on the land's grid"
    by_cell: dict[Cell, list[int]] = {}
    for index, (cell, _) in fit.where.items():
        by_cell.setdefault(cell, []).append(index)
    good: dict[int, tuple[Cell, int]] = {}
    for index, (cell, rotation) in fit.where.items():
        m = markers[index]
        if len(ids[m.marker_id]) > 1:
            asked.ignored[index] = "the same marker is seen twice"
            asked.leave(cell, Trouble.DUPLICATE, [(m.card, m.quarter)])
        elif len(by_cell[cell]) > 1:
            asked.ignored[index] = "another marker claims the same cell"
            asked.leave(
                cell,
                Trouble.TWO_MARKERS,
                [(markers[i].card, markers[i].quarter) for i in by_cell[cell]],
            )
        else:
            good[index] = (cell, rotation)
    return good


def _place_cards(
    markers: Sequence[Marker], good: dict[int, tuple[Cell, int]], asked: _Asked
) -> tuple[dict[str, CardPlace], dict[Cell, tuple[str, int]]]:
    """Cards where all their markers agree they lie, and the cells those markers read."""
    claims: dict[str, dict[int, CardPlace]] = {}
    for index, (cell, rotation) in good.items():
        m = markers[index]
        tx, ty = turn(CARD_QUARTERS[m.quarter], rotation)
        claims.setdefault(m.card, {})[index] = CardPlace(
            m.card, cell[0] - tx, cell[1] - ty, rotation
        )
    cards: dict[str, CardPlace] = {}
    cells: dict[Cell, tuple[str, int]] = {}
    for card, by_marker in claims.items():
        places = set(by_marker.values())
        if len(places) > 1:
            for index in by_marker:
                asked.ignored[index] = f"card {card}'s markers disagree on where it lies"
                m = markers[index]
                asked.leave(good[index][0], Trouble.CARD_DISAGREES, [(m.card, m.quarter)])
            continue
        cards[card] = places.pop()
        for index in by_marker:
            cells[good[index][0]] = (card, markers[index].quarter)
    return cards, cells


def _half_large(
    catalog: Catalog,
    cards: dict[str, CardPlace],
    cells: dict[Cell, tuple[str, int]],
    asked: _Asked,
) -> None:
    """D6: a large dino is covered whole or not at all, so half of one showing beside
    another card is a misread (or a land laid against the rules): ask."""
    for card, place in cards.items():
        for section in catalog.cards[card].sections:
            if section.dino is None or section.dino.size is not Size.LARGE:
                continue
            spots = [place.at(c) for c in section.cells]
            mine = [c for c in spots if cells.get(c, ("",))[0] == card]
            other = [c for c in spots if c in cells and cells[c][0] != card]
            if mine and other:
                for c in spots:
                    if c in cells:
                        asked.leave(c, Trouble.HALF_LARGE, [cells.pop(c)])


def assemble(
    catalog: Catalog,
    markers: Sequence[Marker],
    fit: GridFit,
    size: tuple[int, int],
    extra: dict[Cell, Unread],
) -> CardState:
    """Cards from the placed markers, read cells, and the cells left unread (and why).

    ``extra`` are unread cells found otherwise (a sticker no marker could be read from).
    """
    asked = _Asked()
    good = _good_markers(markers, fit, asked)
    cards, cells = _place_cards(markers, good, asked)
    # Stacking: a card showing on a cell lies over every other card covering it there.
    above: dict[str, set[str]] = {c: set() for c in cards}
    covering: dict[Cell, list[str]] = {}
    for card, place in cards.items():
        for cell in place.footprint():
            covering.setdefault(cell, []).append(card)
    for cell, (card, _) in cells.items():
        above[card].update(c for c in covering.get(cell, []) if c != card)
    stuck = _in_cycles(above)
    if stuck:
        for cell in [c for c, (k, _) in cells.items() if k in stuck]:
            card, quarter = cells.pop(cell)
            asked.leave(cell, Trouble.ORDER, [(card, quarter)])
    _half_large(catalog, cards, cells, asked)
    # Cells a placed card covers where no marker was read.
    width, height = size
    for card, place in cards.items():
        if card in stuck:
            continue
        for cell in place.footprint():
            if cell in cells or cell in asked.unread:
                continue
            under = [(c, cards[c].quarter_at(cell)) for c in covering.get(cell, [])]
            named = [(c, q) for c, q in under if q is not None]
            on_top = [
                (c, q) for c, q in named if not any(c in above[o] for o, _ in named if o != c)
            ]
            centre = apply_homography(fit.h, np.array([[cell[0] + 0.5, cell[1] + 0.5]]))[0]
            inside = 0 <= centre[0] < width and 0 <= centre[1] < height
            asked.leave(cell, Trouble.NOT_SEEN if inside else Trouble.OUTSIDE, on_top or named)
    for cell, why in extra.items():
        if cell not in cells:
            asked.leave(cell, why.trouble, why.candidates)
    return CardState(cards, cells, asked.unread, asked.ignored, above)


def _in_cycles(above: dict[str, set[str]]) -> set[str]:
    """Cards on a cycle of 'lies over': no real stack of cards shows that."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: set[str] = set()
    counter = 0

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in above.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.update(group)

    for v in sorted(above):
        if v not in index:
            visit(v)
    return out
