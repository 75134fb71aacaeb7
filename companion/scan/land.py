"""From cells read off a photo (and a typed patch) to the Chomp land of formats.md.

Pure, no OpenCV: the reader gives each readable cell as (card, quarter), each card it
placed with its position and rotation, and the cells it could not read; a *patch*, typed
by a person, fills unread cells, says which nests hold an egg token, or drops a card that
is not part of the land.  The land is then built through the catalog as
:func:`~companion.games.dino.catalog.replay` builds it: a section is the visible part of
a card's printed area (split when it no longer touches), and a mountain printed on a card
stands on every edge where that card is on top on either side.

Patch syntax (docs/scan.md), items separated by ``;`` or new lines, ``#`` comments::

    C2=x01:B1        the cell shows card x01's quarter B1 (placed as its other quarters say)
    C2=x05:A2@90     ... of a card no marker placed: give its rotation
    C2=sh2  D4=.     a token of the text grid (docs/dino-grid.md), or no card at all
    C2+D2=lh         several cells that are one section
    egg C3 E1        the nests at C3 and E1 hold an egg token
    no eggs          no nest holds an egg token
    drop x07         card x07 is not part of this land (it only lies in the photo)

Cells are named as in the text grid (``C2``: third column, second row) or as ``x,y``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from companion import text as gate
from companion.errors import InputError
from companion.games.dino import Cell, Kind, Land, Section, build_land, edge, pieces
from companion.games.dino.catalog import CARD_QUARTERS, ROTATIONS, Catalog, turn
from companion.games.dino.text import Content, cell_name, read_token

QUARTER_NAMES = tuple(cell_name(q) for q in CARD_QUARTERS)  # A1, B1, A2, B2


def quarter_name(quarter: int) -> str:
    return QUARTER_NAMES[quarter]


class Trouble(StrEnum):
    """Why a cell is unread; the reader never guesses past any of these."""

    NOT_SEEN = "not_seen"  # a card lies here (its other quarters say so), no marker read
    TWO_MARKERS = "two_markers"  # two markers claim one cell
    CARD_DISAGREES = "card_disagrees"  # one card's markers put it in two places
    DUPLICATE = "duplicate"  # one marker seen in two places
    ORDER = "order"  # cards overlap in an order no stack of cards can show
    HALF_LARGE = "half_large"  # half of a large dino covered, which D6 forbids
    OUTSIDE = "outside"  # the card reaches out of the photo
    STICKER = "sticker"  # a sticker is there, too covered to tell which marker
    COVERED = "covered"  # no marker explains it, and it is not bare table: a card may lie here
    PHOTOS_DISAGREE = "photos_disagree"  # two photos of the land show it differently


TROUBLE_WORDS = {
    Trouble.NOT_SEEN: "marker not read",
    Trouble.TWO_MARKERS: "two markers claim this cell",
    Trouble.CARD_DISAGREES: (
        "the markers of one card disagree on where it lies, or put it on bare table"
    ),
    Trouble.DUPLICATE: "the same marker is seen twice",
    Trouble.ORDER: "cards overlap in an impossible order",
    Trouble.HALF_LARGE: "half of a large dino would be covered (D6)",
    Trouble.OUTSIDE: "outside the photo",
    Trouble.STICKER: "a sticker is there, too covered to tell which",
    Trouble.COVERED: "something covers it: what card is there, if any?",
    Trouble.PHOTOS_DISAGREE: "the photos disagree on what shows here",
}


@dataclass(frozen=True, slots=True)
class CardPlace:
    """A card on the quarter grid: its top-left quarter once turned (as a placement)."""

    card: str
    x: int
    y: int
    rotation: int  # degrees clockwise

    def at(self, local: Cell) -> Cell:
        """Where a point of the card (quarter coordinates) lies on the grid."""
        tx, ty = turn(local, self.rotation)
        return (self.x + tx, self.y + ty)

    def cell_of(self, quarter: int) -> Cell:
        return self.at(CARD_QUARTERS[quarter])

    def footprint(self) -> list[Cell]:
        return [self.cell_of(q) for q in range(len(CARD_QUARTERS))]

    def quarter_at(self, cell: Cell) -> int | None:
        for q in range(len(CARD_QUARTERS)):
            if self.cell_of(q) == cell:
                return q
        return None


@dataclass(frozen=True, slots=True)
class Unread:
    cell: Cell
    trouble: Trouble
    candidates: tuple[tuple[str, int], ...] = ()  # (card, quarter) that may show here

    def to_dict(self) -> dict[str, object]:
        return {
            "cell": list(self.cell),
            "name": cell_label(self.cell),
            "trouble": str(self.trouble),
            "why": TROUBLE_WORDS[self.trouble],
            "candidates": [f"{c}:{quarter_name(q)}" for c, q in self.candidates],
        }


def cell_label(cell: Cell) -> str:
    """``C2``, or ``[-1, 2]`` for a cell the letters cannot name."""
    if cell[0] >= 0 and cell[1] >= 0:
        return cell_name(cell)
    return f"[{cell[0]}, {cell[1]}]"


# --------------------------------------------------------------------------------------
# The patch
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CellPatch:
    cells: tuple[Cell, ...]  # one section (usually one cell)
    where: str
    empty: bool = False  # '.': no card there
    content: Content | None = None  # a grid token
    card: str | None = None  # a card's quarter...
    quarter: int | None = None
    rotation: int | None = None  # ...and the card's rotation, when the photo has none


@dataclass(frozen=True, slots=True)
class Patch:
    items: tuple[CellPatch, ...] = ()
    eggs: tuple[tuple[Cell, str], ...] = ()  # (cell, where)
    no_eggs: bool = False
    drop: tuple[tuple[str, str], ...] = ()  # (card, where)

    @property
    def eggs_answered(self) -> bool:
        return (
            self.no_eggs
            or bool(self.eggs)
            or any(i.content is not None and i.content.egg for i in self.items)
        )

    @property
    def cells(self) -> dict[Cell, CellPatch]:
        return {c: item for item in self.items for c in item.cells}


_CELL_NAME = re.compile(r"([A-Za-z]+)(\d+)")
_CELL_XY = re.compile(r"\[?\s*(-?\d+)\s*,\s*(-?\d+)\s*\]?")


def parse_cell(text: str, where: str) -> Cell:
    """``C2`` (spreadsheet style, as the text grid names cells) or ``2,1``."""
    text = text.strip()
    match = _CELL_NAME.fullmatch(text)
    if match:
        x = 0
        for ch in match.group(1).upper():
            x = x * 26 + ord(ch) - ord("A") + 1
        row = int(match.group(2))
        if row < 1:
            raise InputError(where, f"{text!r}: rows are numbered from 1")
        return (x - 1, row - 1)
    match = _CELL_XY.fullmatch(text)
    if match:
        return (int(match.group(1)), int(match.group(2)))
    raise InputError(where, f"{text!r} is not a cell (write C2, or x,y such as 2,1)")


def parse_cells(text: str, where: str) -> list[Cell]:
    """One cell, or a block of them written ``B3-C4`` (corner to corner, as the scan
    names an area something covers)."""
    first, dash, last = text.strip().partition("-")
    if dash and _CELL_NAME.fullmatch(first.strip()) and _CELL_NAME.fullmatch(last.strip()):
        (x0, y0), (x1, y1) = parse_cell(first, where), parse_cell(last, where)
        xs = range(min(x0, x1), max(x0, x1) + 1)
        return [(x, y) for y in range(min(y0, y1), max(y0, y1) + 1) for x in xs]
    return [parse_cell(text, where)]


def _value(text: str, cells: tuple[Cell, ...], where: str) -> CellPatch:
    if text == ".":
        return CellPatch(cells, where, empty=True)
    if ":" in text:
        card, _, rest = text.rpartition(":")
        quarter_text, _, rot_text = rest.partition("@")
        quarter = (
            QUARTER_NAMES.index(quarter_text.upper())
            if quarter_text.upper() in QUARTER_NAMES
            else None
        )
        if not card or quarter is None:
            raise InputError(where, f"{text!r}: a card's quarter is CARD:A1, B1, A2 or B2")
        rotation = None
        if rot_text:
            rotation = gate.number_or_none(rot_text, low=0, high=270)  # ASCII digits only
            if rotation not in ROTATIONS:
                raise InputError(where, f"{text!r}: the rotation is @0, @90, @180 or @270")
        if len(cells) != 1:
            raise InputError(where, "a card's quarter covers one cell")
        return CellPatch(cells, where, card=card, quarter=quarter, rotation=rotation)
    content = read_token(text, 1, 1, lambda _line, _col: where)
    if content is None:  # pragma: no cover - '.' is handled above
        return CellPatch(cells, where, empty=True)
    return CellPatch(cells, where, content=content)


def parse_patch(text: str, source: str = "patch") -> Patch:
    """Read a typed patch; a mistake is an InputError naming the item."""
    items: list[CellPatch] = []
    eggs: list[tuple[Cell, str]] = []
    drop: list[tuple[str, str]] = []
    no_eggs = False
    seen: dict[Cell, str] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0]
        for k, raw in enumerate(body.split(";"), 1):
            item = raw.strip()
            if not item:
                continue
            where = (
                f"{source} line {lineno} item {k}" if "\n" in text.strip() else f"{source} item {k}"
            )
            words = item.split()
            head = words[0].lower()
            if head in ("no", "eggs") and [w.lower() for w in words] in (
                ["no", "eggs"],
                ["eggs", "none"],
            ):
                no_eggs = True
                continue
            if head == "egg" or head == "eggs":
                if len(words) < 2:
                    raise InputError(
                        where, "'egg' names the cells of nests with an egg, e.g. egg C3"
                    )
                eggs.extend((parse_cell(w, where), where) for w in words[1:])
                continue
            if head == "drop":
                if len(words) != 2:
                    raise InputError(where, "'drop' names one card, e.g. drop x07")
                drop.append((words[1], where))
                continue
            if "=" not in item:
                raise InputError(
                    where,
                    f"{item!r}: write CELL=VALUE (C2=x01:B1, C2=sh, C2=.), egg CELL, "
                    "no eggs, or drop CARD",
                )
            left, _, right = item.partition("=")
            cells = tuple(c for part in left.split("+") for c in parse_cells(part, where))
            for cell in cells:
                if cell in seen:
                    raise InputError(
                        where, f"cell {cell_label(cell)} is patched twice (also {seen[cell]})"
                    )
                seen[cell] = where
            value = right.strip()
            if not value:
                raise InputError(where, "nothing after '='")
            items.append(_value(value, cells, where))
    if no_eggs and eggs:
        raise InputError(source, "'no eggs' and 'egg ...' in one patch")
    return Patch(tuple(items), tuple(eggs), no_eggs, tuple(drop))


# --------------------------------------------------------------------------------------
# Building the land
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Built:
    """The land, when nothing is left to ask; otherwise what still needs an answer."""

    land: Land | None
    unread: tuple[Unread, ...]  # cells the photo did not settle and the patch did not fill
    nests: tuple[Cell, ...]  # one cell of every visible nest
    eggs_answered: bool
    cells: dict[Cell, str] = field(default_factory=dict)  # cell -> what shows, for a map
    cards: dict[str, CardPlace] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return self.land is not None and not self.unread and (self.eggs_answered or not self.nests)


@dataclass(slots=True)
class _Patched:
    """The reading with the patch applied: what each cell shows, where each card lies,
    the cells still open, and the cells the patch typed as plain content."""

    shows: dict[Cell, tuple[str, int]]
    places: dict[str, CardPlace]
    open_cells: dict[Cell, Unread]
    free: list[CellPatch] = field(default_factory=list)

    def drop(self, catalog: Catalog, card: str, where: str) -> None:
        """``drop CARD``: forget a card the reading placed, and what only it explained."""
        if card not in catalog.cards:
            raise InputError(where, f"unknown card {card!r}: not in the catalog")
        self.places.pop(card, None)
        for cell in [c for c, (k, _) in self.shows.items() if k == card]:
            del self.shows[cell]
        for cell, why in list(self.open_cells.items()):
            if why.candidates and {k for k, _ in why.candidates} <= {card}:
                del self.open_cells[cell]

    def answer(self, catalog: Catalog, item: CellPatch) -> None:
        """One answer: a cell empty, typed as content, or a card's quarter."""
        for cell in item.cells:
            self.shows.pop(cell, None)
            self.open_cells.pop(cell, None)
        if item.empty:
            return
        if item.content is not None:
            self.free.append(item)
            return
        assert item.card is not None and item.quarter is not None
        cell = item.cells[0]
        if item.card not in catalog.cards:
            raise InputError(item.where, f"unknown card {item.card!r}: not in the catalog")
        place = self.places.get(item.card)
        if place is None:
            if item.rotation is None:
                raise InputError(
                    item.where,
                    f"no marker placed card {item.card!r}: give its rotation, e.g. "
                    f"{cell_label(cell)}={item.card}:{quarter_name(item.quarter)}@90",
                )
            tx, ty = turn(CARD_QUARTERS[item.quarter], item.rotation)
            place = CardPlace(item.card, cell[0] - tx, cell[1] - ty, item.rotation)
            self.places[item.card] = place
        elif item.rotation is not None and item.rotation != place.rotation:
            raise InputError(
                item.where,
                f"card {item.card!r} lies turned {place.rotation} degrees in the photo, "
                f"not {item.rotation}",
            )
        if place.cell_of(item.quarter) != cell:
            right = cell_label(place.cell_of(item.quarter))
            raise InputError(
                item.where,
                f"quarter {quarter_name(item.quarter)} of card {item.card!r} lies on {right}, "
                f"not {cell_label(cell)} (as the card lies)",
            )
        self.shows[cell] = (item.card, item.quarter)

    def check_places(self) -> None:
        """A card must sit where its cells say."""
        for card_id, place in self.places.items():
            for cell, (k, q) in self.shows.items():
                if k == card_id and place.cell_of(q) != cell:
                    raise InputError(
                        "patch", f"card {card_id!r} would lie in two places ({cell_label(cell)})"
                    )

    def view(self, catalog: Catalog) -> dict[Cell, str]:
        """What each cell shows, for the map printed while cells are missing."""
        view = {cell: _token(catalog, k, q) for cell, (k, q) in self.shows.items()}
        for item in self.free:
            for cell in item.cells:
                view[cell] = _content_token(item.content)
        for cell in self.open_cells:
            view[cell] = "?"
        return view

    def by_card(self) -> dict[str, set[Cell]]:
        cells: dict[str, set[Cell]] = {}
        for cell, (k, _) in self.shows.items():
            cells.setdefault(k, set()).add(cell)
        return cells

    def sections(self, catalog: Catalog, eggs: set[Cell]) -> tuple[list[Section], list[Cell]]:
        """The sections that show (pieces of cards, then typed cells), and each one's first
        cell (to name it in an error)."""
        sections: list[Section] = []
        first: list[Cell] = []
        by_card = self.by_card()
        for card_id in sorted(by_card, key=list(catalog.cards).index):
            place = self.places[card_id]
            for section in catalog.cards[card_id].sections:
                spots = {place.at(c) for c in section.cells}
                for n, piece in enumerate(pieces(spots & by_card[card_id])):
                    sid = f"{card_id}:{section.id}" + (f"~{n + 1}" if n else "")
                    egg = section.kind is Kind.NEST and bool(eggs & set(piece))
                    sections.append(
                        Section(sid, section.kind, tuple(piece), section.dino, section.count, egg)
                    )
                    first.append(piece[0])
        for item in self.free:
            content = item.content
            assert content is not None
            piece = sorted(item.cells, key=lambda c: (c[1], c[0]))
            egg = content.egg or (content.kind is Kind.NEST and bool(eggs & set(piece)))
            name = cell_label(piece[0])
            sections.append(
                Section(name, content.kind, tuple(piece), content.dino, content.count, egg)
            )
            first.append(piece[0])
        return sections, first

    def mountains(self, catalog: Catalog) -> list[tuple[Cell, Cell]]:
        """An edge shows a mountain when a card on top on either side of it shows one."""
        top = {cell: k for cell, (k, _) in self.shows.items()}
        found: set[tuple[Cell, Cell]] = set()
        for card_id in self.by_card():
            place = self.places[card_id]
            for a, b in catalog.cards[card_id].mountains:
                ca, cb = place.at(a), place.at(b)
                if top.get(ca) == card_id or top.get(cb) == card_id:
                    found.add(edge(ca, cb))
        return sorted(found)


def build(
    catalog: Catalog,
    cells: Mapping[Cell, tuple[str, int]],
    cards: Mapping[str, CardPlace],
    unread: Mapping[Cell, Unread],
    patch: Patch | None = None,
) -> Built:
    """The land from the read cells, the placed cards and the patch (see the module doc)."""
    patch = patch or Patch()
    state = _Patched(dict(cells), dict(cards), dict(unread))
    for card, where in patch.drop:
        state.drop(catalog, card, where)
    for item in patch.items:
        state.answer(catalog, item)
    state.check_places()
    sections, first = state.sections(catalog, {cell for cell, _ in patch.eggs})
    owner = {c: s for s in sections for c in s.cells}
    for cell, where in dict(patch.eggs).items():
        found = owner.get(cell)
        if found is None or found.kind is not Kind.NEST:
            raise InputError(
                where, f"{cell_label(cell)} is not a nest: an egg token lies on a nest"
            )
    nests = tuple(
        sorted((s.cells[0] for s in sections if s.kind is Kind.NEST), key=lambda c: (c[1], c[0]))
    )
    open_cells = state.open_cells
    left = tuple(open_cells[c] for c in sorted(open_cells, key=lambda c: (c[1], c[0])))
    land = None
    if not left:
        land = build_land(
            sections,
            state.mountains(catalog),
            (),
            lambda i: f"cell {cell_label(first[i])}",
            lambda j: "mountains",
        )
    return Built(land, left, nests, patch.eggs_answered, state.view(catalog), state.places)


def _token(catalog: Catalog, card_id: str, quarter: int) -> str:
    card = catalog.cards[card_id]
    spot = CARD_QUARTERS[quarter]
    for section in card.sections:
        if spot in section.cells:
            return _content_token(Content(section.kind, section.dino, section.count, section.egg))
    return "?"  # pragma: no cover - every quarter of a catalog card shows something


def _content_token(content: Content | None) -> str:
    from companion.games.dino.text import TOKEN_OF_DINO, TOKEN_OF_FEATURE

    if content is None:
        return "."
    if content.dino is not None:
        base = TOKEN_OF_DINO[content.dino]
        return base if content.count == 1 else f"{base}{content.count}"
    return TOKEN_OF_FEATURE[(content.kind, content.egg and content.kind is Kind.NEST)]
