"""Photos of a Chomp land, taken on a phone and read on the Pi (docs/scan.md).

The phone uploads the picture; the Pi reads it with the scanner of ``companion dino
scan`` (:mod:`companion.scan`, the ``scan`` extra), keeps the reading, and the page asks
for what the photo could not settle: the unread cells, drawn on the land, and the nests'
egg tokens. Another photo of the same land (from another side, the hand moved) is merged
with the ones before as ``dino scan PHOTO PHOTO...`` merges them, so what one photo
could not see another may read. Each answer rebuilds the land from the kept readings
(a photo is read once) and, once nothing is left to ask, scores it. A hub table, so
every phone sees the result.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from companion.errors import InputError
from companion.games.dino import Cell
from companion.photo_gate import decode
from companion.tables.web.land import MAX_SIDE, score_dict

if TYPE_CHECKING:
    from companion.games.dino.catalog import Catalog
    from companion.scan.land import Built, CardPlace, Unread
    from companion.scan.merge import Merged
    from companion.scan.reader import Reading

MAX_PHOTOS = 4  # of one land: each is kept (as uploaded) to draw it again after a merge
ANNOTATED_SIDE = 1600


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
    """The current land's photos and readings, the answers given so far, and the land
    and score they make."""

    name = "photo"

    def __init__(self, catalog: Catalog | None, catalog_name: str = "") -> None:
        self.catalog = catalog
        self.catalog_name = catalog_name
        self.count = 0  # photos read since the server started: names the annotated images
        self.photos: list[bytes] = []  # the current land's photos, as uploaded
        self.readings: list[Reading] = []
        self.merged: Merged | None = None  # with two photos or more
        self.annotated: list[bytes] = []  # one JPEG per photo, what the scan saw
        self.answers: dict[Cell, str] = {}
        self.eggs: tuple[Cell, ...] | None = None  # None: not answered; (): no eggs
        # A photo is read on a worker thread while answers come in: what it changes is
        # changed at once, under this lock, which answers and snapshots take too.
        self.guard = threading.RLock()

    @property
    def reading(self) -> Reading | None:
        """The first photo's reading (None before a photo)."""
        return self.readings[0] if self.readings else None

    def read(self, photo: bytes, add: bool = False) -> None:
        """Read an uploaded photo (JPEG, PNG...): a new land, or with ``add`` one more
        photo of the land read so far. Slow: call it off the event loop. A photo that
        cannot be read or placed changes nothing."""
        from companion.scan import require_cv2

        require_cv2()
        from companion.scan.reader import read_photo

        if self.catalog is None:
            raise InputError("photo", "start companion web with --catalog FILE to read photos")
        add = add and bool(self.readings)
        if add and len(self.readings) >= MAX_PHOTOS:
            raise InputError(
                "photo", f"at most {MAX_PHOTOS} photos of one land: take a new photo to start again"
            )
        image = decode(photo, "photo")
        reading = read_photo(image, self.catalog)
        if add:
            held = [image]  # _add lets go of it before it decodes the photos before
            del image
            self._add(photo, held, reading)
            return
        annotated = [_annotate(image, reading)]
        with self.guard:
            self.photos, self.readings, self.merged = [photo], [reading], None
            self.annotated, self.answers, self.eggs = annotated, {}, None
            self.count += 1

    def _add(self, photo: bytes, held: list[Any], reading: Reading) -> None:
        """Merge one more photo (its image in ``held``, let go of once drawn); the
        answers follow their cells into the merged grid and are dropped where a photo
        now reads the cell (the photo answered it)."""
        from companion.scan.merge import merge

        assert self.catalog is not None
        with self.guard:
            photos, readings = [*self.photos, photo], [*self.readings, reading]
            before = self.merged.turns[0] if self.merged is not None else None
        names = [f"photo {k + 1}" for k in range(len(readings))]
        try:
            merged = merge(self.catalog, readings, names)
        except InputError as exc:
            raise InputError(
                "photo", f"{exc}; the {len(photos) - 1} photo(s) read before are kept"
            ) from None
        after = merged.turns[0]  # the first photo's grid never turns: it only moves

        def follow(cell: Cell) -> Cell:
            x, y = cell
            if before is not None:
                x, y = x - before.dx, y - before.dy
            return (x + after.dx, y + after.dy)

        # One image at a time: the new photo drawn and let go of, then each photo before
        # decoded again (four of them at once would be 200 MB; the gate's budget is one).
        last = _annotate(held.pop(), merged.views[-1])
        annotated = [
            _annotate(decode(p, "photo"), view)
            for p, view in zip(photos[:-1], merged.views[:-1], strict=True)
        ]
        annotated.append(last)
        with self.guard:
            if self.photos != photos[:-1]:
                raise InputError("photo", "another photo started a new land meanwhile")
            self.answers = {
                follow(c): v for c, v in self.answers.items() if follow(c) in merged.unread
            }
            if self.eggs is not None:
                self.eggs = tuple(follow(c) for c in self.eggs)
            self.photos, self.readings, self.merged = photos, readings, merged
            self.annotated = annotated
            self.count += 1
            try:
                self._patch([*self._items(self.answers), *self._egg_items()])
            except InputError:  # the nests moved: the eggs are asked again
                self.eggs = None

    def _land_read(
        self,
    ) -> tuple[dict[Cell, tuple[str, int]], dict[str, CardPlace], dict[Cell, Unread]]:
        """What the photos read together: the merge, or the one photo's reading."""
        if self.merged is not None:
            return self.merged.cells, self.merged.cards, self.merged.unread
        assert self.reading is not None
        return self.reading.cells, self.reading.cards, self.reading.unread

    def act(self, action: Mapping[str, Any]) -> None:
        with self.guard:
            self._act(action)

    def _act(self, action: Mapping[str, Any]) -> None:
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

        assert self.catalog is not None
        try:
            patch = parse_patch("; ".join(items), "answer")
            return build(self.catalog, *self._land_read(), patch)
        except InputError as exc:
            raise InputError("value", exc.message) from None

    def state(self) -> dict[str, Any]:
        with self.guard:
            return self._state()

    def _state(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ready": self.catalog is not None,
            "catalog": self.catalog_name,
            "photo": self.count or None,
            "photos": len(self.readings),
            "max_photos": MAX_PHOTOS,
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
        from companion.games.dino.formats import land_to_dict
        from companion.scan.land import cell_label

        built = self._patch([*self._items(self.answers), *self._egg_items()])
        out["cards"] = [
            {"card": p.card, "x": p.x, "y": p.y, "rotation": p.rotation}
            for p in sorted(built.cards.values(), key=lambda p: (p.y, p.x, p.card))
        ]
        out["read"] = len(self._land_read()[0])
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


def _annotate(image: Any, reading: Reading) -> bytes:
    import cv2

    from companion.scan.annotate import annotate

    ok, encoded = cv2.imencode(".jpg", annotate(image, reading, ANNOTATED_SIDE))
    return bytes(encoded) if ok else b""
