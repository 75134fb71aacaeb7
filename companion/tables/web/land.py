"""The Chomp land on the phone: a tap-grid editor that scores as you go.

The land being tapped in is a hub table (:mod:`.hub`), so every phone watching sees it
grow. Cells hold a text-grid token (docs/dino-grid.md); joins make neighbouring cells
one section; mountains lie on edges. After every action the land is checked and scored
by :mod:`companion.games.dino`, the engine of ``companion dino score``; a land that is
not whole yet (a large dino on one cell) carries the one-line problem instead of a score.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.errors import InputError
from companion.games.dino import (
    Cell,
    Edge,
    Land,
    Section,
    Size,
    build_land,
    edge,
    is_neighbour,
    score,
)
from companion.games.dino.formats import land_to_dict
from companion.games.dino.report import score_dict as report_dict
from companion.games.dino.text import cell_name, parse_grid, read_token, render_grid, token_of

MAX_SIDE = 40  # cells per row or column: a land is a few cards, not a city
MIN_WIDTH, MIN_HEIGHT = 6, 5  # the empty grid a phone starts with

PALETTE = (
    "sh", "mh", "lh", "sc", "mc", "lc", "sh2", "sh3", "P", "T", "M", "N", "E", "e", "_", "."
)  # fmt: skip


def read_cell(value: object, field: str) -> Cell:
    """``[x, y]`` inside the grid, or an InputError naming ``field``."""
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise InputError(field, "a cell is [x, y], two whole numbers")
    x, y = int(value[0]), int(value[1])
    if not (0 <= x < MAX_SIDE and 0 <= y < MAX_SIDE):
        raise InputError(field, f"[{x}, {y}] is off the grid (0 to {MAX_SIDE - 1} each way)")
    return (x, y)


def _token(value: object) -> str:
    if not isinstance(value, str) or not value:
        raise InputError("token", f"a token is one of {', '.join(PALETTE)} (docs/dino-grid.md)")
    read_token(value, 1, 1, lambda line, col: "token")  # raises, naming the vocabulary
    return value


class LandTable:
    """The land tapped in on the phones: cells, joins, mountains, and its score."""

    name = "land"

    def __init__(self) -> None:
        self.cells: dict[Cell, str] = {}
        self.joins: set[Edge] = set()
        self.mountains: set[Edge] = set()

    # ---- actions -------------------------------------------------------------------

    def act(self, action: Mapping[str, Any]) -> None:
        kind = action["type"]
        if kind == "paint":
            self._paint(read_cell(action.get("cell"), "cell"), _token(action.get("token")))
        elif kind in ("join", "mountain"):
            a = read_cell(action.get("a"), "a")
            b = read_cell(action.get("b"), "b")
            if not is_neighbour(a, b):
                raise InputError("b", "the two cells of an edge are side by side")
            (self._join if kind == "join" else self._mountain)(a, b)
        elif kind == "clear":
            self.__init__()  # type: ignore[misc]
        elif kind == "grid":
            text = action.get("text")
            if not isinstance(text, str):
                raise InputError("text", "a text grid, as docs/dino-grid.md writes a land")
            try:
                self.load(parse_grid(text))
            except InputError as exc:  # "text: line 2 column 5: ...": the field, then the place
                raise InputError("text", str(exc)) from None
        else:
            raise InputError(
                "type", f"unknown action {kind!r} (paint, join, mountain, clear, grid)"
            )

    def _paint(self, cell: Cell, token: str) -> None:
        if self.cells.get(cell) == token:
            return
        self.joins = {e for e in self.joins if cell not in e}
        if token == ".":
            self.cells.pop(cell, None)
            return
        self.cells[cell] = token
        content = read_token(token, 1, 1)
        if content is not None and content.dino is not None and content.dino.size is Size.LARGE:
            # A large dino covers two cells (D1): pair it with a lone half next to it.
            for n in sorted(_around(cell)):
                if self.cells.get(n) == token and len(self._section_of(n)) == 1:
                    self._join(cell, n)
                    break

    def _join(self, a: Cell, b: Cell) -> None:
        e = edge(a, b)
        if e in self.joins:
            self.joins.discard(e)
            return
        ta, tb = self.cells.get(a), self.cells.get(b)
        if ta is None or tb is None:
            raise InputError("b", "only two cells with something on them make one section")
        if ta != tb:
            raise InputError("b", f"one section shows one thing: {ta} and {tb} differ")
        self.mountains.discard(e)
        self.joins.add(e)

    def _mountain(self, a: Cell, b: Cell) -> None:
        e = edge(a, b)
        if e in self.mountains:
            self.mountains.discard(e)
        else:
            self.joins.discard(e)
            self.mountains.add(e)

    def load(self, land: Land) -> None:
        """Put a whole land on the grid (moved so that its top-left cell is A1)."""
        cells = [c for s in land.sections for c in s.cells]
        if not cells:
            self.__init__()  # type: ignore[misc]
            return
        dx, dy = min(c[0] for c in cells), min(c[1] for c in cells)
        if max(c[0] for c in cells) - dx >= MAX_SIDE or max(c[1] for c in cells) - dy >= MAX_SIDE:
            raise InputError("text", f"the land is wider or taller than {MAX_SIDE} cells")

        def moved(c: Cell) -> Cell:
            return (c[0] - dx, c[1] - dy)

        self.cells, self.joins = {}, set()
        for s in land.sections:
            for c in s.cells:
                self.cells[moved(c)] = token_of(s)
            self.joins |= {
                edge(moved(a), moved(b)) for a in s.cells for b in s.cells if is_neighbour(a, b)
            }
        self.mountains = {edge(moved(a), moved(b)) for a, b in land.mountains}

    # ---- the land and its score ----------------------------------------------------

    def _section_of(self, start: Cell) -> list[Cell]:
        seen, todo = {start}, [start]
        while todo:
            c = todo.pop()
            for n in _around(c):
                if n not in seen and edge(c, n) in self.joins:
                    seen.add(n)
                    todo.append(n)
        return sorted(seen, key=lambda c: (c[1], c[0]))

    def land(self) -> Land:
        """The land as the scorer takes it; an InputError names the section at fault."""
        sections: list[Section] = []
        done: set[Cell] = set()
        for cell in sorted(self.cells, key=lambda c: (c[1], c[0])):
            if cell in done:
                continue
            members = self._section_of(cell)
            done.update(members)
            content = read_token(self.cells[cell], 1, 1)
            assert content is not None
            sections.append(
                Section(
                    cell_name(cell),
                    content.kind,
                    tuple(members),
                    content.dino,
                    content.count,
                    content.egg,
                )
            )
        walls = [
            (a, b)
            for a, b in sorted(self.mountains)
            if (a in self.cells or b in self.cells) and edge(a, b) not in self.joins
        ]
        return build_land(sections, walls, (), lambda i: sections[i].id, lambda j: "mountain")

    def state(self) -> dict[str, Any]:
        used = list(self.cells) + [c for e in self.mountains for c in e]
        width = max([MIN_WIDTH - 1, *(c[0] + 1 for c in used)]) + 1
        height = max([MIN_HEIGHT - 1, *(c[1] + 1 for c in used)]) + 1
        out: dict[str, Any] = {
            "width": min(width, MAX_SIDE),
            "height": min(height, MAX_SIDE),
            "palette": list(PALETTE),
            "cells": [
                {"cell": list(c), "name": cell_name(c), "token": t}
                for c, t in sorted(self.cells.items(), key=lambda i: (i[0][1], i[0][0]))
            ],
            "joins": [[list(a), list(b)] for a, b in sorted(self.joins)],
            "mountains": [[list(a), list(b)] for a, b in sorted(self.mountains)],
            "problem": None,
            "land": None,
            "score": None,
            "grid": "",
        }
        try:
            land = self.land()
        except InputError as exc:
            out["problem"] = str(exc)
            return out
        out["land"] = land_to_dict(land)
        out["score"] = score_dict(land)
        out["grid"] = render_grid(land, labels=True) if land.sections else ""
        return out


def score_dict(land: Land) -> dict[str, Any]:
    """``companion dino score --json``'s object: the score with each herd's explanation."""
    return report_dict(land, score(land))


def _around(cell: Cell) -> list[Cell]:
    x, y = cell
    return [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)]
