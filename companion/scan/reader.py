"""Reading a photo of a Chomp land: markers, the quarter grid, the cards, the cells.

1. **Markers.** ArUco finds the catalog's markers on a copy of the photo at most
   ``detect_px`` wide (12 MP photos need no more: a marker there is still 30+ pixels);
   on a busy cloth only round the square outlines that may be markers, and where the
   copy's markers are small, again at full resolution round the copy's outlines
   (:func:`companion.scan.grid.search`).
2. **Grid.** Each marker's four corners give its own frame; the distance to its nearest
   neighbour along an axis, in marker widths, is the quarter pitch.  From the marker with
   the most neighbours at that pitch the grid grows: the homography from grid to image is
   refitted on every marker placed so far, and a marker joins when its centre falls
   within ``cell_tolerance`` of a cell centre near the grid, square to the grid within
   ``angle_tolerance``, and about the right size.  The grid is then turned so that its
   rows run across the photo.
3. **Cards.** A marker's corner order tells how its card is turned; with its quarter that
   puts the card's top-left corner on the grid.  A card whose markers disagree, a cell
   two markers claim, a marker seen twice, and cards stacked in an order no real stack
   shows are all left unread, never settled by a vote.
4. **Second look.** Where a placed card covers a cell and no marker was read, ArUco looks
   again at full resolution around the spot; failing that, a partly covered marker is
   *verified*: its bits are sampled where the grid puts it (a bit is clear only when
   the marker's levels and the border and margin beside it agree), what an occluder may
   hide is set aside (:func:`occluded`), and the cell is read only if every clear bit
   matches the marker expected there and every other marker that could lie there (cards
   covering the cell, and any card no marker placed unless the stacking rules it out)
   misses by at least ``verify_margin`` clear bits.  Beside the land, and on cells up to
   two from it that something covers, a sticker no card is known to cover is read when
   exactly one marker of the catalog passes the same test, and is listed as unread when
   it shows a sticker but no marker passes.
5. **Inferred.** When no other marker could lie there at all (:meth:`CardState.rivals`: the
   stacking, D6, and :class:`Ground`'s bare table), a hidden marker is read as the placed
   card's quarter, unless what shows of it contradicts that.
6. **Outline.** Around the land, every cell that is not bare table may hold a card no
   marker explains: it is asked for, never dropped (:mod:`companion.scan.outline`).

Steps 1 and 2 live in :mod:`companion.scan.grid`, step 3 in :mod:`companion.scan.cards`,
steps 4 and 5 in :mod:`companion.scan.verify`; this module runs them in order.

Pure apart from OpenCV: an image in, a :class:`Reading` out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from companion.games.dino import Cell
from companion.games.dino.catalog import Catalog
from companion.scan.cards import CardState, Ground, assemble
from companion.scan.grid import (
    BITS,
    DEFAULT_PITCH,
    GridFit,
    Image,
    Marker,
    Matrix,
    ReadOptions,
    apply_homography,
    detect,
    fit_grid,
    gray_of,
    grid_points,
    locate,
    search,
)
from companion.scan.land import CardPlace, Trouble, Unread
from companion.scan.markers import MarkerBook
from companion.scan.outline import Table, looked_at, unaccounted, unexplained
from companion.scan.verify import (
    DATA_MASK,
    RING,
    all_codes,
    alternatives,
    codes_as_seen,
    could_pass,
    could_stand_out,
    occluded,
    predicted_corners,
    read_hidden_card,
    sample_bits,
    second_look,
    verify,
)


@dataclass(slots=True)
class Reading:
    """What the photo says: read cells, placed cards, unread cells, and how it got there."""

    size: tuple[int, int]  # width, height
    markers: list[Marker]
    placed: dict[int, tuple[Cell, int]]  # marker index -> (cell, card rotation)
    ignored: dict[int, str]  # marker index -> why it is not used
    cards: dict[str, CardPlace]
    cells: dict[Cell, tuple[str, int]]  # cell -> (card, quarter)
    unread: dict[Cell, Unread]
    grid_to_image: Matrix | None
    marker_side: float  # in cells
    notes: list[str] = field(default_factory=list)
    bare: frozenset[Cell] = frozenset()  # cells the outline step judged bare table

    def how(self, cell: Cell) -> str:
        for index, (where, _) in self.placed.items():
            if where == cell:
                return self.markers[index].how
        return ""


# --------------------------------------------------------------------------------------
# The whole reading
# --------------------------------------------------------------------------------------


def looks_like_sticker(bits: npt.NDArray[np.int8]) -> bool:
    """A black border inside a white margin on at least two sides of the square.

    Along a side, count the black bits of the border and the white bits of the margin
    beside it: a sticker shows all of them, and three quarters even half under a token.
    A straight edge (a pen on the table, the rim of a card) crossing the side shows the
    same pattern in both rows, so never more than half; along it, it shows one side.
    """
    inner = slice(1, RING - 1)
    sides = (
        (bits[1, inner], bits[0, inner]),
        (bits[-2, inner], bits[-1, inner]),
        (bits[inner, 1], bits[inner, 0]),
        (bits[inner, -2], bits[inner, -1]),
    )
    need = 0.75 * 2 * (RING - 2)
    shown = sum(
        1
        for border, margin in sides
        if np.count_nonzero(border == 0) + np.count_nonzero(margin == 1) >= need
    )
    return shown >= 2


def _open_read(
    image: Image, fit: GridFit, cell: Cell, codes: npt.NDArray[np.int8], margin: int
) -> tuple[int, int] | bool:
    """A cell no card is known to cover: (marker id, rotation) if exactly one marker of
    the catalog passes :func:`verify` there, True if a sticker is there but no marker
    can be told, False if nothing like a sticker is there."""
    passed: list[tuple[int, int]] = []
    for rotation in (0, 90, 180, 270):
        sampled = sample_bits(image, fit.h, fit.side, cell, rotation)
        if sampled is None:
            return False
        bits = sampled[0]
        if rotation == 0 and not looks_like_sticker(bits):
            return False
        data = bits[DATA_MASK]
        clear = data >= 0
        misses = np.count_nonzero((codes[:, 0].reshape(len(codes), -1) != data) & clear, axis=1)
        possible = np.flatnonzero(could_pass(misses, int(np.count_nonzero(clear)), data.size))
        possible = possible[could_stand_out(data, codes, possible, margin)]
        for marker_id in possible.tolist():
            if verify(bits, marker_id, codes, margin):
                passed.append((marker_id, rotation))
    if len(passed) == 1:
        return passed[0]
    return True


def _ground(image: Image, fit: GridFit, state: CardState, extra: dict[Cell, Unread]) -> Ground:
    land = set(state.cells) | set(state.unread) | set(extra)
    for place in state.cards.values():
        land.update(place.footprint())
    return Ground(image, fit.h, land)


def _around_cells(cells: set[Cell]) -> set[Cell]:
    """The cells and their eight neighbours."""
    return {(x + dx, y + dy) for x, y in cells for dx in (-1, 0, 1) for dy in (-1, 0, 1)}


def _inside(fit: GridFit, cell: Cell, size: tuple[int, int]) -> bool:
    """Whether the cell's whole sticker (marker and margin) lies in the photo."""
    quad = apply_homography(fit.h, grid_points(cell, 0, fit.side * (BITS + 2) / BITS)[1:])
    return bool((quad >= 0).all() and (quad[:, 0] < size[0]).all() and (quad[:, 1] < size[1]).all())


def _find_markers(gray: Image, book: MarkerBook, options: ReadOptions) -> list[Marker]:
    """ArUco on the reduced copy; on the photo itself when the copy lost small markers."""
    height, width = gray.shape[:2]
    longest = max(width, height)
    markers, outlines = search(gray, book, options.detect_px)
    shrink = options.detect_px / longest
    if shrink < 1 and (
        len(markers) < 4 or float(np.median([m.side for m in markers])) * shrink < 30
    ):
        # Small markers (a land far away): the copy may have lost some, so search the
        # photo itself at full resolution: around the land the copy found (coarse to
        # fine: a card touching the land lies within three cells of a marker read), or
        # all of it when the copy found too few markers to tell where the land is.
        x0, y0, x1, y1 = 0, 0, width, height
        if len(markers) >= 4:
            pts = np.vstack([m.corners for m in markers])
            reach = 3 * DEFAULT_PITCH * float(np.median([m.side for m in markers]))
            x0, y0 = (np.floor(pts.min(axis=0) - reach)).astype(int).clip(0)
            x1 = min(width, int(np.ceil(pts[:, 0].max() + reach)))
            y1 = min(height, int(np.ceil(pts[:, 1].max() + reach)))
        crop = np.ascontiguousarray(gray[y0:y1, x0:x1])
        # On a busy cloth, only where the copy saw square outlines (bits read here).
        near = None if outlines is None else outlines - np.array([x0, y0], np.float64)
        whole = detect(crop, book, max(crop.shape[:2]), near=near)
        for m in whole:
            m.corners = m.corners + np.array([x0, y0], np.float64)
        if len(whole) > len(markers):
            markers = whole
    return markers


class _Looking:
    """The reading as it grows: what was looked at again, verified and probed so far."""

    def __init__(
        self,
        image: Image,
        gray: Image,
        catalog: Catalog,
        book: MarkerBook,
        markers: list[Marker],
        fit: GridFit,
        options: ReadOptions,
    ) -> None:
        self.image, self.gray, self.catalog, self.options = image, gray, catalog, options
        self.markers, self.fit = markers, fit
        height, width = gray.shape[:2]
        self.size = (width, height)
        self.book = book
        self.codes = all_codes(self.book.count)
        self.extra: dict[Cell, Unread] = {}
        self.looked: set[Cell] = set()
        self.verified: set[tuple[Cell, str, int]] = set()
        self.probed: set[Cell] = set()
        self.covered: tuple[set[Cell], dict[Cell, Unread]] = (set(), {})
        self.assemble()

    def assemble(self) -> None:
        self.state = assemble(self.catalog, self.markers, self.fit, self.size, self.extra)
        infer = self.options.infer
        self.ground = _ground(self.image, self.fit, self.state, self.extra) if infer else None

    def add(self, marker: Marker, spot: tuple[Cell, int]) -> None:
        self.markers.append(marker)
        self.fit.where[len(self.markers) - 1] = spot

    def second_looks(self, waiting: list[Cell]) -> bool:
        """ArUco again at full resolution around each cell not seen yet."""
        found = False
        for cell in waiting:
            if cell in self.looked:
                continue
            self.looked.add(cell)
            seen = second_look(self.gray, self.book, self.fit, cell, self.options)
            if seen is not None:
                self.add(*seen)
                found = True
        return found

    def verify_cells(self, waiting: list[Cell]) -> bool:
        """Verify (or infer) each waiting cell's candidates, up to the first that passes."""
        state = self.state
        found = False
        for cell in waiting:
            for card, quarter in state.unread[cell].candidates:
                if (cell, card, quarter) in self.verified or card not in state.cards:
                    continue
                self.verified.add((cell, card, quarter))
                if self._verify_one(cell, card, quarter):
                    found = True
                    break  # this cell is read: on to the next
        return found

    def _verify_one(self, cell: Cell, card: str, quarter: int) -> bool:
        state, book, codes, options, fit = self.state, self.book, self.codes, self.options, self.fit
        rotation = state.cards[card].rotation
        sampled = sample_bits(self.image, fit.h, fit.side, cell, rotation)
        marker_id = book.marker_id(card, quarter)
        rivals = alternatives(state, self.catalog, self.ground, cell, card, book.cards)
        how = ""
        bits = None if sampled is None else sampled[0]
        if bits is not None and verify(
            bits, marker_id, codes, options.verify_margin, codes_as_seen(book, rivals, rotation)
        ):
            how = "verified"
        elif not rivals and options.infer:
            # Too little shows, but nothing else can lie there: read it,
            # unless what shows contradicts the marker with no occluder to blame.
            if bits is None or occluded(bits, codes[marker_id, 0]) is not None:
                how = "inferred"
        if how:
            corners = predicted_corners(fit, cell, rotation)
            self.add(Marker(marker_id, card, quarter, corners, how), (cell, rotation))
            return True
        # Not the placed card: perhaps a card no marker placed lies on top.
        on_top = read_hidden_card(
            self.image,
            fit,
            book,
            codes,
            cell,
            (card, quarter, rotation),
            rivals,
            options.verify_margin,
        )
        if on_top is not None and on_top[0] not in state.cards:
            other, q, turned = on_top
            corners = predicted_corners(fit, cell, turned)
            self.add(
                Marker(book.marker_id(other, q), other, q, corners, "verified"), (cell, turned)
            )
            return True
        return False

    def known(self) -> set[Cell]:
        """The land so far: cells read or asked for, and every cell a placed card covers."""
        known = set(self.state.cells) | set(self.state.unread)
        for place in self.state.cards.values():
            known.update(place.footprint())
        return known

    def probe_around(self) -> bool:
        """Cells beside the land that no card is known to cover: a sticker there?"""
        known = set(self.state.cells) | set(self.state.unread)
        around = {(x + dx, y + dy) for x, y in known for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
        return self.probe(sorted(around - known))

    def probe_covered(self) -> bool:
        """Cells within two of the land that something covers (step 6): a card whose
        quarters beside the land are hidden (a phone, a hand) may show a sticker there."""
        known = self.known()
        self.covered = (known, unexplained(self.image, self.fit.h, known))
        return self.probe(sorted(set(self.covered[1]) - known))

    def join_beyond_cover(self) -> bool:
        """Markers off the grid so far that sit square on it, on a cell beside one the
        outline step asks about as covered (step 6): a phone lying across the land hides
        the markers between, so the grid did not grow that far, but the card beyond it
        is the land's (issue 23).  Every cell between is asked; beyond bare table a card
        is not the land's, and stays off."""
        known, covered = self.covered
        near = _around_cells({c for c, why in covered.items() if why.trouble is Trouble.COVERED})
        h_inv = np.linalg.inv(self.fit.h)
        found = False
        for index, marker in enumerate(self.markers):
            if index in self.fit.where:
                continue
            spot = locate(h_inv, marker, self.fit.side, self.options)
            if spot is not None and spot[0] in near and spot[0] not in known:
                self.fit.where[index] = spot
                found = True
        return found

    def probe(self, cells: list[Cell]) -> bool:
        found = False
        for cell in cells:
            if cell in self.probed:
                continue
            self.probed.add(cell)
            if not _inside(self.fit, cell, self.size):
                continue
            result = _open_read(self.image, self.fit, cell, self.codes, self.options.verify_margin)
            if isinstance(result, tuple):
                marker_id, rotation = result
                names = self.book.lookup(marker_id)
                assert names is not None
                corners = predicted_corners(self.fit, cell, rotation)
                self.add(Marker(marker_id, *names, corners, "verified"), (cell, rotation))
                found = True
            elif result:
                self.extra[cell] = Unread(cell, Trouble.STICKER)
                found = True
        return found

    def round(self) -> bool:
        """One more look at what is still unread; whether anything new was found."""
        options = self.options
        waiting = [c for c, why in self.state.unread.items() if why.trouble is Trouble.NOT_SEEN]
        found = options.second_look and self.second_looks(waiting)
        if options.verify and not found:
            found = self.verify_cells(waiting)
        if options.verify and not found:
            found = self.probe_around()
        return found


def read_photo(image: Image, catalog: Catalog, options: ReadOptions | None = None) -> Reading:
    """Read the land in ``image`` (BGR or grey) through ``catalog``'s markers.

    After the first reading, cells a placed card covers but no marker was read on get a
    second look and then verification; cells beside the land that no card is known to
    cover are probed for a sticker.  Whatever these find goes back into the reading,
    until nothing more is found.
    """
    options = options or ReadOptions()
    gray = gray_of(image)
    height, width = gray.shape[:2]
    size = (width, height)
    book = MarkerBook.of(catalog)
    markers = _find_markers(gray, book, options)
    fit = fit_grid(markers, options)
    if fit is None:
        return Reading(size, markers, {}, {}, {}, {}, {}, None, 0.0, ["no markers found"])
    look = _Looking(image, gray, catalog, book, markers, fit, options)
    for _ in range(8):
        if not look.round() and not (
            options.outline
            and options.verify
            and (look.probe_covered() or look.join_beyond_cover())
        ):
            break
        look.assemble()
    state = look.state
    if options.outline and options.infer:
        _drop_cards_over_table(image, fit, markers, state)
    unread = dict(state.unread)
    bare: frozenset[Cell] = frozenset()
    if options.outline:
        known = look.known()
        covered = look.covered[1] if look.covered[0] == known else unexplained(image, fit.h, known)
        for cell, why in covered.items():
            unread.setdefault(cell, why)
        bare = frozenset(looked_at(known) - set(unread))
        # The invariant, by construction: a cell of the land or inside its extent that
        # is neither read, asked for nor bare table may hide a card.
        land = known | set(unread)
        for cell in unaccounted(land, set(state.cells) | set(unread) | bare):
            unread[cell] = Unread(cell, Trouble.COVERED)
    return _from_origin(
        Reading(
            size,
            markers,
            dict(fit.where),
            state.ignored,
            state.cards,
            state.cells,
            unread,
            fit.h,
            fit.side,
            bare=bare,
        )
    )


def unaccounted_cells(reading: Reading) -> set[Cell]:
    """The cells of a reading's land, or inside its extent, that are neither read, asked
    for nor judged bare table (:func:`companion.scan.outline.unaccounted`): empty after
    every reading with the outline step on."""
    land = set(reading.cells) | set(reading.unread)
    for place in reading.cards.values():
        land.update(place.footprint())
    return unaccounted(land, set(reading.cells) | set(reading.unread) | set(reading.bare))


def _drop_cards_over_table(
    image: Image, fit: GridFit, markers: list[Marker], state: CardState
) -> None:
    """A card placed by one sticker whose hidden quarter shows bare table is not there.

    Inference reads a hidden quarter of a placed card when nothing else can lie on it;
    but a card placed by one sticker stuck on the wrong card would then be read over
    the table beside the land, its three other quarters invented.  So for a card only
    one of whose stickers is read, a cell read by inference that looks like the table
    around the land (:class:`Table`) puts the card's place in doubt: every cell of that
    card is asked (``card_disagrees``).  A card two stickers agree on stays: a hand the
    colour of the table over its hidden quarter is likelier than two wrong stickers."""
    inferred: list[tuple[Cell, str]] = []
    stickers: dict[str, int] = {}  # card -> its cells read by a marker of their own
    for index, (cell, _) in fit.where.items():
        if cell not in state.cells:
            continue
        card = state.cells[cell][0]
        if markers[index].how == "inferred":
            inferred.append((cell, card))
        else:
            stickers[card] = stickers.get(card, 0) + 1
    # Two stickers that agree on a card's place are not both on the wrong card.
    inferred = [(cell, card) for cell, card in inferred if stickers.get(card, 0) == 1]
    if not inferred:
        return
    known = set(state.cells) | set(state.unread)
    for place in state.cards.values():
        known.update(place.footprint())
    table = Table(image, fit.h, known - {cell for cell, _ in inferred})  # judges those
    for card in sorted({card for cell, card in inferred if table.bare(cell)}):
        for quarter, cell in enumerate(state.cards[card].footprint()):
            shown = state.cells.get(cell)
            if shown is not None and shown[0] != card:
                continue  # another card shows there
            asked = state.unread.get(cell)
            if asked is not None and all(k != card for k, _ in asked.candidates):
                continue  # asked about for another card
            state.cells.pop(cell, None)
            state.unread[cell] = Unread(cell, Trouble.CARD_DISAGREES, ((card, quarter),))


def _from_origin(r: Reading) -> Reading:
    """Move the land so that its first row and column are 0 (cell A1)."""
    spots = list(r.cells) + list(r.unread)
    if not spots or r.grid_to_image is None:
        return r
    dx = min(c[0] for c in spots)
    dy = min(c[1] for c in spots)
    if (dx, dy) == (0, 0):
        return r

    def mv(c: Cell) -> Cell:
        return (c[0] - dx, c[1] - dy)

    shift = np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1.0]])
    return Reading(
        r.size,
        r.markers,
        {i: (mv(c), rot) for i, (c, rot) in r.placed.items()},
        r.ignored,
        {k: CardPlace(p.card, p.x - dx, p.y - dy, p.rotation) for k, p in r.cards.items()},
        {mv(c): v for c, v in r.cells.items()},
        {mv(c): Unread(mv(c), u.trouble, u.candidates) for c, u in r.unread.items()},
        r.grid_to_image @ shift,
        r.marker_side,
        r.notes,
        frozenset(mv(c) for c in r.bare),
    )
