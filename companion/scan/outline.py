"""Every part of the land accounted for (step 6 of :mod:`companion.scan.reader`).

A card whose markers were all missed (under a phone, a hand, glare, a die on its only
visible quarter) leaves no trace in the markers: without this step it would simply
vanish from the land, and the scan would be complete and wrong.  So after reading, the
cells around the land's outline (within two cells of a cell read, asked for or covered
by a placed card: any card that touches the land has all its cells there) are looked
at: a cell that is not bare table (:class:`Table`: the table's own colours,
allowing for its light fall-off and its pattern) may hold a card no marker explains.  Such
cells are asked for, grouped in areas ("something covers B3-C4: what card is there?"),
never dropped.  A cell beside the land whose middle is out of the photo is asked for
too: the photo cannot say that no card lies there.

Bare table is looked for, not cards: a busy cloth, a shadow, a token or a finger on
the table beside the land all make a cell "may hold a card", so the scan asks more
rather than less.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from companion.games.dino import Cell
from companion.scan.grid import Image, Matrix, apply_homography, median_rows
from companion.scan.land import Trouble, Unread, cell_label

NEAR = 2  # cells (Chebyshev) around the land's outline where an unseen card may lie


def _around(cells: Iterable[Cell], reach: int) -> set[Cell]:
    return {
        (x + dx, y + dy)
        for x, y in cells
        for dx in range(-reach, reach + 1)
        for dy in range(-reach, reach + 1)
    }


def _middle_inside(h: Matrix, cell: Cell, size: tuple[int, int]) -> bool:
    """Whether the middle of the cell (where a sticker would be) is in the photo."""
    d = 0.3
    pts = np.array(
        [[cell[0] + 0.5 + sx * d, cell[1] + 0.5 + sy * d] for sx in (-1, 1) for sy in (-1, 1)]
    )
    quad = apply_homography(h, pts)
    width, height = size
    return bool(
        (quad[:, 0] >= 0).all()
        and (quad[:, 1] >= 0).all()
        and (quad[:, 0] < width).all()
        and (quad[:, 1] < height).all()
    )


class Table:
    """The table's colours around the land, to tell bare table from what may be a card.

    The region around the land is rectified once (``PX`` pixels a cell).  The cells two
    to ``FAR`` cells from the land's outline that lie in the photo are the table's
    sample: the light's fall-off is fitted as a plane per colour channel over their
    medians (cells far off the plane, a phone or a card on the table, are left out and
    the plane refitted), and what is left is clustered into a few colours, so a
    patterned cloth (gingham: white, red and their mix) is still one table.  A pixel is
    the table's when it lies within ``SLACK`` times its colour's spread (plus ``NOISE``)
    of one of them; a cell is bare when ``SHARE`` of its pixels are.
    """

    PX = 16
    FAR = 4
    INSET = 0.12  # of a cell, left out at its edge (card rims, a grid a little off)
    SHARE = 0.85  # a card shows more than this: its sticker, its art, or what hides them
    COLOURS = 5
    SUPPORT = 0.25  # of the sampled cells a colour of the table shows in
    SLACK, NOISE = 1.6, 10.0
    PLAIN = 0.03  # the widest spread of hue (channel shares) of a plain table
    BRIGHTER = (0.6, 1.5)  # how much darker or brighter a plain table may be than expected
    USUAL = 0.9  # of the sampled cells, those whose mix of colours is the usual one
    MIX_SLACK, MIX_NOISE = 1.5, 0.1  # how far from the usual mix a bare cell may be

    def __init__(self, image: Image, h: Matrix, known: set[Cell]) -> None:
        xs = [c[0] for c in known]
        ys = [c[1] for c in known]
        self.origin = (min(xs) - self.FAR, min(ys) - self.FAR)
        self.cols = max(xs) - min(xs) + 1 + 2 * self.FAR
        self.rows = max(ys) - min(ys) + 1 + 2 * self.FAR
        px = self.PX
        us = (np.arange(self.cols * px) + 0.5) / px + self.origin[0]
        vs = (np.arange(self.rows * px) + 0.5) / px + self.origin[1]
        gx, gy = np.meshgrid(us, vs)
        pts = np.stack([gx.ravel(), gy.ravel(), np.ones(gx.size)], axis=1) @ h.T
        mx = (pts[:, 0] / pts[:, 2]).reshape(gx.shape).astype(np.float32)
        my = (pts[:, 1] / pts[:, 2]).reshape(gx.shape).astype(np.float32)
        height, width = image.shape[:2]
        self.inside = (mx >= 0) & (my >= 0) & (mx <= width - 1) & (my <= height - 1)
        view = cv2.remap(image, mx, my, cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
        self.view = np.asarray(view, np.float32).reshape(gx.shape[0], gx.shape[1], -1)
        self.known = known
        self.model = self._fit()

    def _block(self, cell: Cell) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """The cell's inner pixels (colour rows) and which of them are in the photo."""
        px, inset = self.PX, int(round(self.INSET * self.PX))
        x0 = (cell[0] - self.origin[0]) * px + inset
        y0 = (cell[1] - self.origin[1]) * px + inset
        if not (0 <= x0 and 0 <= y0 and x0 + px - 2 * inset <= self.view.shape[1]):
            return np.zeros((0, self.view.shape[2]), np.float32), np.zeros(0, bool)
        if y0 + px - 2 * inset > self.view.shape[0]:
            return np.zeros((0, self.view.shape[2]), np.float32), np.zeros(0, bool)
        sl = (slice(y0, y0 + px - 2 * inset), slice(x0, x0 + px - 2 * inset))
        return self.view[sl].reshape(-1, self.view.shape[2]), self.inside[sl].ravel()

    def _terms(self, cells: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        x, y = cells[:, 0], cells[:, 1]
        return np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=1)

    def _fit(self) -> _Model | None:
        near = _around(self.known, 1)
        sample: list[tuple[Cell, npt.NDArray[np.float32]]] = []
        for cell in sorted(_around(self.known, self.FAR) - near):
            pixels, inside = self._block(cell)
            if inside.size and np.count_nonzero(inside) >= inside.size / 2:
                sample.append((cell, pixels[inside]))  # at the photo's edge, what shows
        if len(sample) < 8:
            return None
        where = np.array([c for c, _ in sample], np.float64) + 0.5
        terms = self._terms(where)
        medians = _medians([p for _, p in sample])
        keep = np.ones(len(sample), bool)
        for _ in range(3):  # a phone or a card on the table is not the table
            surface, *_ = np.linalg.lstsq(terms[keep], medians[keep], rcond=None)
            off = np.linalg.norm(medians - terms @ surface, axis=1)
            keep = off <= max(3.0 * float(np.median(off[keep])), 12.0)
        if np.count_nonzero(keep) < 8:
            return None
        left = np.asarray(medians[keep] - terms[keep] @ surface, np.float64)  # float64 already
        model = _Model(where[keep], left, np.asarray(surface, np.float64))
        self._colours(model, [sample[i][1] for i in np.flatnonzero(keep)], where[keep])
        return model

    def _colours(
        self, model: _Model, pixels: list[npt.NDArray[np.float32]], where: npt.NDArray[np.float64]
    ) -> None:
        """The table's colours about its local colour, from the sampled cells' pixels.

        Clustered; a colour is the table's only when it shows in a quarter of the cells
        or more (a phone or a hand over part of a few sampled cells is not the table).
        """
        refs = [model.reference(w) for w in where]  # each once: a nearest-samples search
        rest = np.concatenate([p - r for p, r in zip(pixels, refs, strict=True)])
        pairs = zip(pixels, refs, strict=True)
        hues = np.concatenate([_hue(p) - _hue(r[None, :]) for p, r in pairs])
        owner = np.concatenate([np.full(len(p), i) for i, p in enumerate(pixels)])
        if len(rest) > 8000:
            pick = np.random.default_rng(0).choice(len(rest), 8000, replace=False)
            rest, hues, owner = rest[pick], hues[pick], owner[pick]
        rest = np.asarray(rest, np.float32)
        k = min(self.COLOURS, len(rest))
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
        cv2.setRNGSeed(0)
        _, labels, centres = cv2.kmeans(
            rest, k, np.zeros((len(rest), 1), np.int32), criteria, 2, cv2.KMEANS_PP_CENTERS
        )
        labels = np.asarray(labels, np.intp).ravel()
        counts = np.zeros((len(pixels), k))
        np.add.at(counts, (owner, labels), 1)
        shares = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
        table = np.flatnonzero((shares >= 0.05).mean(axis=0) >= self.SUPPORT)
        dist = np.linalg.norm(rest - centres[labels], axis=1)
        model.centres = np.asarray(centres[table], np.float32)
        model.spread = np.array([float(np.quantile(dist[labels == j], 0.99)) for j in table])
        ours = np.isin(labels, table)
        model.hue_spread = float(np.quantile(np.linalg.norm(hues[ours], axis=1), 0.99))
        if _patterned(model.centres, self.SLACK * model.spread + self.NOISE):
            # A pattern: how its colours share a cell.
            shares_of = np.array([model.shares(p - r) for p, r in zip(pixels, refs, strict=True)])
            model.mix = shares_of.mean(axis=0)
            off = np.abs(shares_of - model.mix).sum(axis=1) / 2
            model.mix_usual = float(np.quantile(off, self.USUAL))

    def bare(self, cell: Cell) -> bool:
        """Whether the cell looks like the table (never for a cell of the land)."""
        if self.model is None or cell in self.known:
            return False
        model = self.model
        pixels, inside = self._block(cell)
        if np.count_nonzero(inside) < inside.size / 2:
            return False
        reference = model.reference(np.array(cell, np.float64) + 0.5)
        seen = pixels[inside]
        rest = seen - reference
        dist = np.linalg.norm(rest[:, None, :] - model.centres[None, :, :], axis=2)
        near = (dist <= self.SLACK * model.spread[None, :] + self.NOISE).any(axis=1)
        if model.hue_spread <= self.PLAIN:
            # A table of one hue (plain, or black and white checks): its streaks and the
            # light change how bright it is, not its hue.  Within BRIGHTER of the colour
            # expected, the table's own hue is table; another hue never is (a hand on
            # black and white gingham is as bright as its checks, issue 23).
            ratio = seen.sum(axis=1) / max(float(reference.sum()), 1.0)
            hue = np.linalg.norm(_hue(seen) - _hue(reference[None, :]), axis=1)
            own_hue = hue <= self.SLACK * model.hue_spread + 0.01
            lo, hi = self.BRIGHTER
            near = (near | ((ratio >= lo) & (ratio <= hi))) & own_hue
        if not np.count_nonzero(near) >= self.SHARE * near.size:
            return False
        # On a patterned cloth every cell shows its pattern, its colours mixed about as
        # in the cells sampled: a cell mostly of one of them is something flat of that
        # colour over it (a black phone on black and white gingham, issue 23), which
        # may hide a card.
        if model.mix is None:
            return True
        off = float(np.abs(_shares(dist) - model.mix).sum()) / 2
        return off <= self.MIX_SLACK * model.mix_usual + self.MIX_NOISE


def _medians(blocks: list[npt.NDArray[np.float32]]) -> npt.NDArray[np.float32]:
    """Each block's median colour, ``np.median(block, axis=0)`` for each, the same numbers:
    the blocks of one size (all but those at the photo's edge) taken together."""
    out = np.zeros((len(blocks), blocks[0].shape[1]), np.float32)
    sizes: dict[int, list[int]] = {}
    for i, block in enumerate(blocks):
        sizes.setdefault(len(block), []).append(i)
    for at in sizes.values():
        together = np.stack([blocks[i] for i in at])  # (block, pixel, channel)
        channels = together.transpose(0, 2, 1).reshape(-1, together.shape[1])
        out[at] = median_rows(channels).reshape(len(at), -1)
    return out


def _patterned(centres: npt.NDArray[np.float32], reach: npt.NDArray[np.float64]) -> bool:
    """Whether two of the table's colours lie apart (no pixel near both: the checks of a
    cloth), not along one continuum (a plain table's streaks and grain)."""
    for i in range(len(centres)):
        for j in range(i + 1, len(centres)):
            if float(np.linalg.norm(centres[i] - centres[j])) > reach[i] + reach[j]:
                return True
    return False


def _shares(dist: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
    """Each colour's share of the pixels, from their distances to the colours (pixel,
    colour): each pixel counts for the nearest."""
    counts = np.bincount(np.argmin(dist, axis=1), minlength=dist.shape[1])
    return np.asarray(counts / max(dist.shape[0], 1), np.float64)


def _hue(pixels: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Colour without brightness: each channel's share of the sum."""
    return np.asarray(pixels / np.maximum(pixels.sum(axis=1, keepdims=True), 1.0), np.float32)


@dataclass(slots=True)
class _Model:
    """The table: its colour at the cells sampled, and its pattern's colours about that."""

    where: npt.NDArray[np.float64]  # cell middles sampled
    left: npt.NDArray[np.float64]  # their median colours less the surface
    surface: npt.NDArray[np.float64]  # the light's fall-off: a quadratic in x, y per channel
    centres: npt.NDArray[np.float32] = field(default_factory=lambda: np.zeros((0, 3), np.float32))
    spread: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))  # each one's
    hue_spread: float = 1.0  # of the pixels' hue about the local colour's
    mix: npt.NDArray[np.float64] | None = None  # a pattern's colours' shares of a cell
    mix_usual: float = 0.0  # how far a sampled cell's shares usually are from ``mix``

    NEIGHBOURS = 6

    def shares(self, rest: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
        """How a cell's pixels (less the table's local colour) share out among the
        table's colours, each pixel to the nearest.  A checked cloth shows about the
        same mix in every cell; a flat thing of one of its colours fills a cell with it."""
        return _shares(np.linalg.norm(rest[:, None, :] - self.centres[None, :, :], axis=2))

    def reference(self, at: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
        """The table's colour at ``at`` (a cell middle): the light's fall-off fitted over
        the samples, and what its nearest samples leave off it, weighted by nearness.  A
        sampled cell's own colour is left out, so the pattern's spread is measured as a
        cell beside the land is judged."""
        d = np.linalg.norm(self.where - at, axis=1)
        d[d < 1e-6] = np.inf
        nearest = np.argsort(d)[: self.NEIGHBOURS]
        w = 1.0 / (d[nearest] + 0.5) ** 2
        local = (self.left[nearest] * w[:, None]).sum(axis=0) / w.sum()
        x, y = float(at[0]), float(at[1])
        base = np.array([1.0, x, y, x * x, x * y, y * y]) @ self.surface
        return np.asarray(base + local, np.float32)


def hull(land: Iterable[Cell]) -> set[Cell]:
    """The cells inside the land's extent that are not the land's: land on both sides
    of them along their row and along their column (a hole, or a notch deep enough).
    However far from the land's cells, a card may lie there: a phone over a card in the
    middle of the land hides it (issue 23)."""
    cells = set(land)
    rows: dict[int, list[int]] = {}
    cols: dict[int, list[int]] = {}
    for x, y in cells:
        rows.setdefault(y, []).append(x)
        cols.setdefault(x, []).append(y)
    inside: set[Cell] = set()
    for y, xs in rows.items():
        for x in range(min(xs) + 1, max(xs)):
            ys = cols.get(x)
            if (x, y) not in cells and ys is not None and min(ys) < y < max(ys):
                inside.add((x, y))
    return inside


def looked_at(known: set[Cell]) -> set[Cell]:
    """The cells :func:`unexplained` judges, at least: beside the land and inside its
    extent (what it finds there may lead it further out)."""
    return (_around(known, 1) | hull(known)) - known


def unaccounted(land: set[Cell], accounted: set[Cell]) -> set[Cell]:
    """The invariant of a reading: every cell of ``land`` (cells read, asked for, or
    under a placed card) and every cell inside its extent (:func:`hull`) is read,
    asked for, or judged bare table: those are ``accounted``.  What is returned is
    none of these; after a reading it must be empty (docs/scan.md, step 6)."""
    return (land | hull(land)) - accounted


def unexplained(image: Image, h: Matrix, known: set[Cell]) -> dict[Cell, Unread]:
    """The cells around ``known`` (the land's outline) and inside its extent that may
    hold a card no marker explains: not bare table (``covered``), or out of the photo
    (``outside``)."""
    if not known:
        return {}
    height, width = image.shape[:2]
    size = (width, height)
    table = Table(image, h, set(known))
    found: dict[Cell, Unread] = {}
    # Beside the outline, a card that touches the land has a cell; inside the land's
    # extent, a card may lie wholly under a phone.
    for cell in sorted(looked_at(known), key=lambda c: (c[1], c[0])):
        if not _middle_inside(h, cell, size):
            found[cell] = Unread(cell, Trouble.OUTSIDE)
        elif not table.bare(cell):
            found[cell] = Unread(cell, Trouble.COVERED)
    # Further out, as far as a card touching the land reaches: grow from what was found.
    todo = [c for c, u in found.items() if u.trouble is Trouble.COVERED]
    reach = _around(known, NEAR)
    while todo:
        cell = todo.pop()
        for near in sorted(_around([cell], 1) & reach - known - set(found)):
            if _middle_inside(h, near, size) and not table.bare(near):
                found[near] = Unread(near, Trouble.COVERED)
                todo.append(near)
    return found


def areas(cells: Iterable[Cell]) -> list[list[Cell]]:
    """The cells grouped into areas that touch (side or corner), each sorted by row."""
    left = set(cells)
    out: list[list[Cell]] = []
    while left:
        start = min(left, key=lambda c: (c[1], c[0]))
        group = {start}
        todo = [start]
        left.discard(start)
        while todo:
            for near in _around([todo.pop()], 1) & left:
                left.discard(near)
                group.add(near)
                todo.append(near)
        out.append(sorted(group, key=lambda c: (c[1], c[0])))
    return sorted(out, key=lambda g: (g[0][1], g[0][0]))


def area_name(cells: list[Cell]) -> str:
    """``B3-C4`` when the area fills its bounding box, else its cells (``B3, C4``)."""
    xs = [c[0] for c in cells]
    ys = [c[1] for c in cells]
    lo, hi = (min(xs), min(ys)), (max(xs), max(ys))
    if len(cells) == 1:
        return cell_label(cells[0])
    if len(cells) == (hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) and min(lo) >= 0:
        return f"{cell_label(lo)}-{cell_label(hi)}"
    return ", ".join(cell_label(c) for c in cells)
