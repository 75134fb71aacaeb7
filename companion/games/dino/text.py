"""The Chomp land as a text grid a person types in a minute (docs/dino-grid.md).

One token per quarter-card cell, one line per row of cells.  Between two tokens on a line
``=`` joins the cells into one section and ``|`` is a mountain range; plain spaces leave
them separate and open.  Between two rows an optional *edge line* puts a mark under a
cell: ``:`` joins it with the cell below, ``-`` is a mountain between them.  Every error
says ``line L column C``.

The grid as the commands print it, with column letters above and row numbers on the
left (:func:`render_grid` with ``labels``), reads back too: the labels are checked and
set aside, so what a report shows can be copied into a file and scored again.

Pure: text in, :class:`~companion.games.dino.Land` out, and back with :func:`render_grid`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from companion.errors import InputError
from companion.games.dino import (
    Cell,
    Dino,
    Kind,
    Land,
    Section,
    build_land,
    edge,
)

EMPTY = "."  # no card here
FEATURE_TOKENS: dict[str, tuple[Kind, bool]] = {
    "P": (Kind.PLANTS, False),
    "T": (Kind.TAR_PIT, False),
    "M": (Kind.MEAT, False),
    "N": (Kind.NEST, False),
    "E": (Kind.NEST, True),  # a nest with an egg token on it
    "e": (Kind.EGG, False),  # the egg icon printed on a card
    "_": (Kind.LAND, False),
}
DINO_TOKENS: dict[str, Dino] = {
    "sh": Dino.SMALL_HERBIVORE,
    "mh": Dino.MEDIUM_HERBIVORE,
    "lh": Dino.LARGE_HERBIVORE,
    "sc": Dino.SMALL_CARNIVORE,
    "mc": Dino.MEDIUM_CARNIVORE,
    "lc": Dino.LARGE_CARNIVORE,
}
TOKEN_OF_DINO = {d: t for t, d in DINO_TOKENS.items()}
TOKEN_OF_FEATURE = {v: t for t, v in FEATURE_TOKENS.items()}
VOCABULARY = ", ".join([*FEATURE_TOKENS, EMPTY, *(f"{t}[count]" for t in DINO_TOKENS)])

JOIN, MOUNTAIN, OPEN = "=", "|", " "  # between tokens on a line
JOIN_DOWN, MOUNTAIN_DOWN = ":", "-"  # marks on an edge line
EDGE_MARKS = frozenset({JOIN_DOWN, MOUNTAIN_DOWN})

_DINO_RE = re.compile(r"([sml][hc])(\d+)?")
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_.]+")

Place = Callable[[int, int], str]  # (line, column) -> where, for InputError


def default_place(line: int, column: int) -> str:
    return f"line {line} column {column}"


@dataclass(frozen=True, slots=True)
class Content:
    """What one token shows."""

    kind: Kind
    dino: Dino | None = None
    count: int = 1
    egg: bool = False


@dataclass(slots=True)
class _Token:
    text: str
    line: int
    col: int  # 1-based column of its first character
    content: Content | None  # None: an empty place

    @property
    def end(self) -> int:
        return self.col + len(self.text) - 1


@dataclass(slots=True)
class _Row:
    line: int
    tokens: list[_Token] = field(default_factory=list)
    seps: list[tuple[str, int]] = field(default_factory=list)  # between tokens: (mark, col)
    left: int | None = None  # column of a leading '|'
    right: int | None = None  # column of a trailing '|'


@dataclass(slots=True)
class _EdgeLine:
    line: int
    marks: list[tuple[int, str]]  # (column, mark)


def read_token(text: str, line: int, col: int, place: Place = default_place) -> Content | None:
    """One cell's token, or None for an empty place; unknown tokens name the vocabulary."""
    if text == EMPTY:
        return None
    if text in FEATURE_TOKENS:
        kind, egg = FEATURE_TOKENS[text]
        return Content(kind, egg=egg)
    match = _DINO_RE.fullmatch(text)
    if match:
        count = int(match.group(2)) if match.group(2) else 1
        if count < 1:
            raise InputError(place(line, col), f"{text!r}: a dino section holds at least one dino")
        return Content(Kind.DINO, DINO_TOKENS[match.group(1)], count)
    raise InputError(place(line, col), f"unknown token {text!r} (one of: {VOCABULARY})")


def _scan_row(text: str, line: int, place: Place) -> _Row:
    row = _Row(line)
    pending: tuple[str, int] | None = None
    i = 0
    while i < len(text):
        ch = text[i]
        col = i + 1
        if ch == " ":
            i += 1
            continue
        if ch in (JOIN, MOUNTAIN):
            if pending is not None:
                raise InputError(place(line, col), "one separator between two cells, not two")
            pending = (ch, col)
            i += 1
            continue
        match = _TOKEN_CHARS.match(text, i)
        if match is None:
            hint = ""
            if ch in EDGE_MARKS:
                hint = " (':' and '-' between rows go on a line of their own)"
            raise InputError(place(line, col), f"unexpected character {ch!r}{hint}")
        token = match.group()
        if row.tokens:
            row.seps.append(pending or (OPEN, col))
        elif pending is not None:
            if pending[0] == JOIN:
                raise InputError(place(line, pending[1]), "'=' joins two cells: no cell left of it")
            row.left = pending[1]
        pending = None
        row.tokens.append(_Token(token, line, col, read_token(token, line, col, place)))
        i = match.end()
    if pending is not None:
        if pending[0] == JOIN:
            raise InputError(place(line, pending[1]), "'=' joins two cells: no cell right of it")
        row.right = pending[1]
    return row


def _is_edge_line(text: str) -> bool:
    marks = set(text.replace(" ", ""))
    return bool(marks) and marks <= EDGE_MARKS


class _Sections:
    """Union-find over cells, to gather joined cells into sections."""

    def __init__(self) -> None:
        self.parent: dict[Cell, Cell] = {}

    def find(self, cell: Cell) -> Cell:
        root = cell
        while self.parent.setdefault(root, root) != root:
            root = self.parent[root]
        while cell != root:
            self.parent[cell], cell = root, self.parent[cell]
        return root

    def union(self, a: Cell, b: Cell) -> None:
        self.parent[self.find(a)] = self.find(b)


def column_name(x: int) -> str:
    """Spreadsheet column letters: 0 -> A, 25 -> Z, 26 -> AA."""
    letters = ""
    x += 1
    while x > 0:
        x, rest = divmod(x - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def cell_name(cell: Cell) -> str:
    """``C2`` for cell (2, 1): the name a section of a typed grid gets."""
    return f"{column_name(cell[0])}{cell[1] + 1}"


@dataclass(frozen=True, slots=True)
class Grid:
    """A parsed grid before it becomes a land: cells, their tokens, joins and mountains."""

    tokens: dict[Cell, _Token]
    rows: int
    sections: list[Section]
    section_places: list[tuple[int, int]]
    mountains: list[tuple[Cell, Cell]]
    mountain_places: list[tuple[int, int]]

    def to_land(self, place: Place = default_place) -> Land:
        return build_land(
            self.sections,
            self.mountains,
            (),
            lambda i: place(*self.section_places[i]),
            lambda j: place(*self.mountain_places[j]),
        )


def _is_header(body: str) -> bool:
    """A line of column letters ``A B C ...`` as a labelled grid starts (``A`` is no token)."""
    words = body.split()
    return words == [column_name(x) for x in range(len(words))]


class _RowLabels:
    """The row numbers of a labelled grid: each row of cells starts with the next one,
    which is checked and blanked out so that the columns stay where they were."""

    def __init__(self) -> None:
        self.expected = 1

    def strip(self, body: str, lineno: int, place: Place) -> str:
        start = len(body) - len(body.lstrip())
        word = body[start:].split(" ", 1)[0]
        if word != str(self.expected):
            what = f"{word!r}" if word.isdecimal() else "no row number"
            raise InputError(
                place(lineno, start + 1),
                f"{what}: a grid with column letters numbers its rows 1, 2, 3 ... "
                f"(this row is {self.expected})",
            )
        rest = body[start + len(word) :]
        if not rest.strip():
            raise InputError(
                place(lineno, start + 1),
                f"row {self.expected} holds no cell (an empty place is '{EMPTY}')",
            )
        self.expected += 1
        return body[:start] + " " * len(word) + rest


def _lines(text: str, place: Place) -> tuple[list[_Row], list[tuple[_EdgeLine, int]]]:
    """The rows of cells, and the edge lines with the index of the first row below each."""
    rows: list[_Row] = []
    edges: list[tuple[_EdgeLine, int]] = []
    last_was_edge = False
    labels: _RowLabels | None = None
    first = True
    for lineno, raw in enumerate(text.splitlines(), 1):
        body = raw.split("#", 1)[0].rstrip()
        if "\t" in body:
            raise InputError(place(lineno, body.index("\t") + 1), "use spaces, not tabs")
        if not body.strip():
            continue
        if first and _is_header(body):
            first, labels = False, _RowLabels()
            continue
        first = False
        if _is_edge_line(body):
            if last_was_edge:
                raise InputError(
                    place(lineno, len(body) - len(body.lstrip()) + 1),
                    "two edge lines in a row: an edge line lies between two rows of cells",
                )
            marks = [(i + 1, ch) for i, ch in enumerate(body) if ch != " "]
            edges.append((_EdgeLine(lineno, marks), len(rows)))
            last_was_edge = True
            continue
        if labels is not None:
            body = labels.strip(body, lineno, place)
        rows.append(_scan_row(body, lineno, place))
        last_was_edge = False
    if not rows:
        raise InputError(place(1, 1), "no rows of cells: the grid is empty")
    return rows, edges


class _Joins:
    """Joins and mountains as the grid's marks give them, checked where they are written."""

    def __init__(self, rows: list[_Row], place: Place) -> None:
        self.rows = rows
        self.place = place
        self.tokens = {(x, y): t for y, row in enumerate(rows) for x, t in enumerate(row.tokens)}
        self.sets = _Sections()
        for cell, token in self.tokens.items():
            if token.content is not None:
                self.sets.find(cell)
        self.mountains: list[tuple[Cell, Cell]] = []
        self.mountain_places: list[tuple[int, int]] = []
        self._spans: dict[int, dict[int, int]] = {}  # row -> column -> index of its token

    def join(self, a: Cell, b: Cell, line: int, col: int, mark: str) -> None:
        ta, tb = self.tokens.get(a), self.tokens.get(b)
        if ta is None or tb is None or ta.content is None or tb.content is None:
            raise InputError(
                self.place(line, col), f"{mark!r} joins two cells, but one side is empty"
            )
        if ta.text != tb.text:
            raise InputError(
                self.place(line, col),
                f"{mark!r} joins {ta.text!r} and {tb.text!r}: "
                "the cells of one section show the same token",
            )
        self.sets.union(a, b)

    def mountain(self, a: Cell, b: Cell, line: int, col: int) -> None:
        self.mountains.append((a, b))
        self.mountain_places.append((line, col))

    def across(self) -> None:
        """The marks between the cells of each row, and on its outer edges."""
        for y, row in enumerate(self.rows):
            if row.left is not None:
                self.mountain((-1, y), (0, y), row.line, row.left)
            for x, (mark, col) in enumerate(row.seps):
                if mark == JOIN:
                    self.join((x, y), (x + 1, y), row.line, col, mark)
                elif mark == MOUNTAIN:
                    self.mountain((x, y), (x + 1, y), row.line, col)
            if row.right is not None:
                n = len(row.tokens)
                self.mountain((n - 1, y), (n, y), row.line, row.right)

    def _token_at(self, y: int, col: int) -> int | None:
        if not 0 <= y < len(self.rows):
            return None
        if y not in self._spans:
            tokens = self.rows[y].tokens
            self._spans[y] = {c: x for x, t in enumerate(tokens) for c in range(t.col, t.end + 1)}
        return self._spans[y].get(col)

    def down(self, edge_line: _EdgeLine, below: int) -> None:
        """The marks of one edge line, between the row above it and the row below."""
        above = below - 1
        seen: dict[int, str] = {}
        for col, mark in edge_line.marks:
            x = self._token_at(above, col)
            if x is None:
                x = self._token_at(below, col)
            if x is None:
                raise InputError(
                    self.place(edge_line.line, col), f"{mark!r} is not under or over a cell"
                )
            if x in seen:
                if seen[x] != mark:
                    raise InputError(
                        self.place(edge_line.line, col), "two different marks for one cell"
                    )
                continue  # '---' under a wide token is one mark
            seen[x] = mark
            if mark == JOIN_DOWN:
                self.join((x, above), (x, below), edge_line.line, col, mark)
            else:
                self.mountain((x, above), (x, below), edge_line.line, col)

    def sections(self) -> tuple[list[Section], list[tuple[int, int]]]:
        """The joined cells as sections, named after their first cell, and where each is."""
        groups: dict[Cell, list[Cell]] = {}
        for cell in sorted(self.sets.parent, key=lambda c: (c[1], c[0])):
            groups.setdefault(self.sets.find(cell), []).append(cell)
        sections = []
        places = []
        for cells in groups.values():
            first = self.tokens[cells[0]]
            content = first.content
            assert content is not None
            sections.append(
                Section(
                    cell_name(cells[0]),
                    content.kind,
                    tuple(cells),
                    content.dino,
                    content.count,
                    content.egg,
                )
            )
            places.append((first.line, first.col))
        return sections, places


def scan_grid(text: str, place: Place = default_place) -> Grid:
    """Read the grid's lines into cells, sections and mountains (checked as it goes)."""
    rows, edges = _lines(text, place)
    joins = _Joins(rows, place)
    joins.across()
    for edge_line, below in edges:
        joins.down(edge_line, below)
    sections, places = joins.sections()
    return Grid(joins.tokens, len(rows), sections, places, joins.mountains, joins.mountain_places)


def parse_grid(text: str, place: Place = default_place) -> Land:
    """A land from the text grid; bad input is an InputError at ``line L column C``."""
    return scan_grid(text, place).to_land(place)


# --------------------------------------------------------------------------------------
# Rendering: the land as a grid that parses back to the same land
# --------------------------------------------------------------------------------------


def token_of(section: Section) -> str:
    if section.dino is not None:
        base = TOKEN_OF_DINO[section.dino]
        return base if section.count == 1 else f"{base}{section.count}"
    return TOKEN_OF_FEATURE[(section.kind, section.egg and section.kind is Kind.NEST)]


def grid_origin(land: Land) -> Cell:
    """The cell a printed grid shows as ``A1``: (0, 0), unless the land reaches into
    negative coordinates, so that a typed grid comes back with the same cell names."""
    cells = land.cell_index()
    if not cells:
        return (0, 0)
    return (min(0, min(x for x, _ in cells)), min(0, min(y for _, y in cells)))


def grid_names(land: Land) -> dict[str, str]:
    """Section id -> the name the printed grid gives it: its first cell (top row first,
    then leftmost) as the labels say. The same name :func:`parse_grid` gives the section
    when that grid is read back, so a report, a photo's and a typed grid agree."""
    ox, oy = grid_origin(land)
    names = {}
    for section in land.sections:
        x, y = min(section.cells, key=lambda c: (c[1], c[0]))
        names[section.id] = cell_name((x - ox, y - oy))
    return names


def render_grid(land: Land, labels: bool = False) -> str:
    """The land as a text grid (``labels`` adds column letters and row numbers); either
    form parses back to the same land, shifted to :func:`grid_origin`.
    """
    owner = land.cell_index()
    if not owner:
        return EMPTY
    ox, oy = grid_origin(land)
    width = max(x for x, _ in owner) - ox + 1
    height = max(y for _, y in owner) - oy + 1
    xs = range(ox, ox + width)
    ys = range(oy, oy + height)

    def tok(cell: Cell) -> str:
        i = owner.get(cell)
        return EMPTY if i is None else token_of(land.sections[i])

    def same(a: Cell, b: Cell) -> bool:
        return a in owner and owner.get(b) == owner[a]

    walls = land.mountains
    widths = [max(len(tok((x, y))) for y in ys) for x in xs]
    left = any(edge((ox - 1, y), (ox, y)) in walls for y in ys)
    right = any(edge((ox + width - 1, y), (ox + width, y)) in walls for y in ys)
    number_width = max(3, len(str(height)))
    gutter = number_width + 2 if labels else 0
    start = gutter + (2 if left else 0)
    pos = []
    for w in widths:
        pos.append(start)
        start += w + 3

    def edge_line(y: int) -> str | None:
        chars = [" "] * (start + 1)
        for k, x in enumerate(xs):
            a, b = (x, y), (x, y + 1)
            if same(a, b):
                chars[pos[k]] = JOIN_DOWN
            elif edge(a, b) in walls:
                chars[pos[k]] = MOUNTAIN_DOWN
        line = "".join(chars).rstrip()
        return line or None

    lines = []
    if labels:
        header = [" "] * (start + 1)
        for k, x in enumerate(xs):
            name = column_name(x - ox)
            header[pos[k] : pos[k] + len(name)] = name
        lines.append("".join(header).rstrip())
    top = edge_line(oy - 1)
    if top:
        lines.append(top)
    for y in ys:
        parts = [f"{y - oy + 1:>{number_width}}  " if labels else ""]
        if left:
            parts.append("| " if edge((ox - 1, y), (ox, y)) in walls else "  ")
        for k, x in enumerate(xs):
            parts.append(tok((x, y)).ljust(widths[k]))
            if k + 1 < width:
                nxt = (x + 1, y)
                if same((x, y), nxt):
                    parts.append(" = ")
                elif edge((x, y), nxt) in walls:
                    parts.append(" | ")
                else:
                    parts.append("   ")
        if right and edge((ox + width - 1, y), (ox + width, y)) in walls:
            parts.append(" |")
        lines.append("".join(parts).rstrip())
        below = edge_line(y)
        if below:
            lines.append(below)
    return "\n".join(lines)
