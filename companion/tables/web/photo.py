"""A photo of a Chomp land, taken on a phone and read on the Pi (docs/scan.md).

The phone uploads the picture; the Pi reads it with the scanner of ``companion dino
scan`` (:mod:`companion.scan`, the ``scan`` extra), keeps the reading, and the page asks
for what the photo could not settle: the unread cells, drawn on the land, and the nests'
egg tokens. Each answer rebuilds the land from the kept reading (the photo is read once)
and, once nothing is left to ask, scores it. A hub table, so every phone sees the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from companion.errors import InputError
from companion.games.dino import Cell
from companion.tables.web.land import MAX_SIDE, score_dict

if TYPE_CHECKING:
    from companion.games.dino_catalog import Catalog
    from companion.scan.land import Built
    from companion.scan.reader import Reading


def read_any_cell(value: object, field: str) -> Cell:
    """``[x, y]``; a photo's cells may lie left of or above its first card."""
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise InputError(field, "a cell is [x, y], two whole numbers")
    x, y = int(value[0]), int(value[1])
    if max(abs(x), abs(y)) > MAX_SIDE:
        raise InputError(field, f"[{x}, {y}] is far off the land")
    return (x, y)


class PhotoTable:
    """The last photo read, the answers given so far, and the land and score they make."""

    name = "photo"

    def __init__(self, catalog: Catalog | None, catalog_name: str = "") -> None:
        self.catalog = catalog
        self.catalog_name = catalog_name
        self.count = 0  # photos read since the server started: names the annotated image
        self.reading: Reading | None = None
        self.annotated: bytes = b""
        self.answers: dict[Cell, str] = {}
        self.eggs: tuple[Cell, ...] | None = None  # None: not answered; (): no eggs

    def read(self, photo: bytes) -> None:
        """Read an uploaded photo (JPEG, PNG...): slow, call it off the event loop."""
        from companion.scan import require_cv2

        cv2 = require_cv2()
        import numpy as np

        from companion.scan.annotate import annotate
        from companion.scan.reader import read_photo

        if self.catalog is None:
            raise InputError("photo", "start companion web with --catalog FILE to read photos")
        image = cv2.imdecode(np.frombuffer(photo, np.uint8), cv2.IMREAD_COLOR)
        if image is None:
            raise InputError("photo", "not an image the Pi can read (JPEG, PNG, ...)")
        reading = read_photo(image, self.catalog)
        ok, encoded = cv2.imencode(".jpg", annotate(image, reading, 1600))
        self.reading = reading
        self.annotated = bytes(encoded) if ok else b""
        self.count += 1
        self.answers, self.eggs = {}, None

    def act(self, action: Mapping[str, Any]) -> None:
        kind = action["type"]
        if self.reading is None:
            raise InputError("type", "no photo yet: take one first")
        if kind == "answer":
            cell = read_any_cell(action.get("cell"), "cell")
            value = action.get("value")
            if not isinstance(value, str) or not value.strip():
                raise InputError("value", "a grid token (sh, P, ...), CARD:QUARTER, or . (none)")
            self._patch([*self._items({**self.answers, cell: value.strip()}), *self._egg_items()])
            self.answers[cell] = value.strip()
        elif kind == "eggs":
            raw = action.get("cells")
            if not isinstance(raw, list):
                raise InputError("cells", "the nests holding an egg token: a list of cells")
            cells = tuple(read_any_cell(c, f"cells[{i}]") for i, c in enumerate(raw))
            self.eggs = cells
            self._patch([*self._items(self.answers), *self._egg_items()])
        elif kind == "forget":
            self.answers, self.eggs = {}, None
        else:
            raise InputError("type", f"unknown action {kind!r} (answer, eggs, forget)")

    @staticmethod
    def _items(answers: Mapping[Cell, str]) -> list[str]:
        return [f"{x},{y}={value}" for (x, y), value in answers.items()]

    def _egg_items(self) -> list[str]:
        if self.eggs is None:
            return []
        if not self.eggs:
            return ["no eggs"]
        return ["egg " + " ".join(f"{x},{y}" for x, y in self.eggs)]

    def _patch(self, items: list[str]) -> Built:
        """Build the land from the kept reading and these answers; a bad answer names it."""
        from companion.scan.land import build, parse_patch

        assert self.reading is not None and self.catalog is not None
        try:
            patch = parse_patch("; ".join(items), "answer")
            return build(
                self.catalog,
                self.reading.cells,
                self.reading.cards,
                self.reading.unread,
                patch,
            )
        except InputError as exc:
            raise InputError("value", exc.message) from None

    def state(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ready": self.catalog is not None,
            "catalog": self.catalog_name,
            "photo": self.count or None,
            "cards": [],
            "read": 0,
            "map": [],
            "unread": [],
            "nests": [],
            "eggs": None,
            "answers": [],
            "complete": False,
            "land": None,
            "score": None,
        }
        if self.reading is None:
            return out
        from companion.games.dino_formats import land_to_dict
        from companion.scan.land import cell_label

        built = self._patch([*self._items(self.answers), *self._egg_items()])
        out["cards"] = [
            {"card": p.card, "x": p.x, "y": p.y, "rotation": p.rotation}
            for p in sorted(built.cards.values(), key=lambda p: (p.y, p.x, p.card))
        ]
        out["read"] = len(self.reading.cells)
        out["map"] = [
            {"cell": list(c), "name": cell_label(c), "token": t}
            for c, t in sorted(built.cells.items(), key=lambda i: (i[0][1], i[0][0]))
        ]
        out["unread"] = [u.to_dict() for u in built.unread]
        out["nests"] = [{"cell": list(c), "name": cell_label(c)} for c in built.nests]
        out["eggs"] = None if self.eggs is None else [list(c) for c in self.eggs]
        out["answers"] = [
            {"cell": list(c), "name": cell_label(c), "value": v} for c, v in self.answers.items()
        ]
        out["complete"] = built.complete
        if built.land is not None and not built.unread:
            out["land"] = land_to_dict(built.land)
            out["score"] = score_dict(built.land)
        return out
