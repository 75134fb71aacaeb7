"""Chomp, the dinosaur land game: herds, the game-end feeding and the score.

Pure rules, settled by the house rulings D1-D7 (docs/rulings.md).  A land is a
grid of quarter-card cells; each visible printed area is a :class:`Section` over one or
more cells, and mountain ranges lie on edges between cells.  Nothing here reads a file or
a clock: the text grid lives in :mod:`companion.games.dino.text`, cards and placement logs
in :mod:`companion.games.dino.catalog`, the JSON readers in
:mod:`companion.games.dino.formats`, the wording (why a herd lived or died, the score
report) in :mod:`companion.games.dino.report`, random lands in
:mod:`companion.games.dino.lands`.

* :func:`build_land` checks a land (D1, D2) and names the bad place through callbacks, so
  JSON input gets a JSON path and the text grid gets a line and a column.
* :func:`score` finds the herds (D3), feeds them in the rulebook's order (D4) and adds up
  dinos, eggs and goals (D5).  It is linear in the number of cells.
* :func:`rank` orders players by score with the tie-break of D5.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import Any, NamedTuple

from companion.errors import InputError

Cell = tuple[int, int]  # (x, y) in quarter-card cells; y grows downwards
Edge = tuple[Cell, Cell]  # two orthogonal neighbours, the smaller first


class Kind(StrEnum):
    DINO = "dino"
    PLANTS = "plants"
    TAR_PIT = "tar_pit"
    MEAT = "meat"
    NEST = "nest"
    EGG = "egg"  # the egg icon printed on a card: it lets you place a token, no score
    LAND = "land"  # plain ground: no effect


class Diet(StrEnum):
    HERBIVORE = "herbivore"
    CARNIVORE = "carnivore"


class Size(IntEnum):
    """Dino sizes; the value is also the points a living dino of that size scores (D5)."""

    SMALL = 1
    MEDIUM = 2
    LARGE = 3

    @property
    def label(self) -> str:
        return self.name.lower()


class Dino(StrEnum):
    SMALL_HERBIVORE = "small_herbivore"
    MEDIUM_HERBIVORE = "medium_herbivore"
    LARGE_HERBIVORE = "large_herbivore"
    SMALL_CARNIVORE = "small_carnivore"
    MEDIUM_CARNIVORE = "medium_carnivore"
    LARGE_CARNIVORE = "large_carnivore"

    @property
    def size(self) -> Size:
        return _SIZE[self]

    @property
    def diet(self) -> Diet:
        return Diet.CARNIVORE if self.value.endswith("carnivore") else Diet.HERBIVORE

    def words(self, n: int) -> str:
        """``1 medium carnivore``, ``3 large herbivores``: how the report names dinos."""
        word = self.value.replace("_", " ")
        return f"{n} {word}" if n == 1 else f"{n} {word}s"


_SIZE = {d: Size[d.value.split("_")[0].upper()] for d in Dino}

# D1: a large dino always covers two cells (half a card).
LARGE_DINO_CELLS = 2
EGG_POINTS = 2  # D5: each egg token on a visible nest


class Why(StrEnum):
    """Why a herd lives or dies (formats.md), in the order D4 decides it."""

    TAR_PIT = "tar_pit"  # step 1: extinct
    MEAT = "meat"  # step 2: a carnivore fed by meat
    ATE = "ate"  # step 2: a carnivore that ate at least one herbivore herd
    EATEN = "eaten"  # step 2: a herbivore herd some carnivore ate
    STARVED = "starved"  # step 2: a carnivore with nothing to eat
    PLANTS = "plants"  # step 3: a herbivore fed by plants
    NO_PLANTS = "no_plants"  # step 3: a herbivore with no plants


ALIVE = frozenset({Why.MEAT, Why.ATE, Why.PLANTS})


@dataclass(frozen=True, slots=True)
class Section:
    """One visible printed area: a dino (``count`` of them), plants, a nest..."""

    id: str
    kind: Kind
    cells: tuple[Cell, ...]
    dino: Dino | None = None
    count: int = 1  # dinos in a dino section (D1: "some areas have multiple small dinos")
    egg: bool = False  # a nest with an egg token on it (D5: 2 points)


def edge(a: Cell, b: Cell) -> Edge:
    """The edge between two cells, written one way whichever side it is named from."""
    return (a, b) if a <= b else (b, a)


def neighbours(cell: Cell) -> tuple[Cell, Cell, Cell, Cell]:
    x, y = cell
    return ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))


def is_neighbour(a: Cell, b: Cell) -> bool:
    """D2: orthogonal only; diagonal is never adjacent."""
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def pieces(cells: Iterable[Cell]) -> list[list[Cell]]:
    """The connected pieces of a set of cells (orthogonal neighbours), each in reading
    order, the pieces in the reading order of their first cell.  The one flood fill:
    a section's cells (D1), what is left of a covered section (D6), a scanned land."""
    left = set(cells)
    found = []
    for start in sorted(left, key=lambda c: (c[1], c[0])):
        if start not in left:
            continue
        piece, todo = [], [start]
        left.discard(start)
        while todo:
            cell = todo.pop()
            piece.append(cell)
            for n in neighbours(cell):
                if n in left:
                    left.discard(n)
                    todo.append(n)
        found.append(sorted(piece, key=lambda c: (c[1], c[0])))
    return found


def _is_one_piece(cells: Sequence[Cell]) -> bool:
    return len(pieces(cells)) == 1


# --------------------------------------------------------------------------------------
# Goals (docs/dino-goals.md)
# --------------------------------------------------------------------------------------


class GoalKind(StrEnum):
    PER_LIVING_DINO = "per_living_dino"
    PER_EXTINCT_DINO = "per_extinct_dino"
    PER_EGG = "per_egg"
    PER_HERD_AT_LEAST = "per_herd_at_least"
    PER_EXTINCT_HERD = "per_extinct_herd"
    MANUAL = "manual"


@dataclass(frozen=True, slots=True)
class Goal:
    """A goal card as the table reads it: points per thing counted, or plain points."""

    kind: GoalKind
    points: int
    name: str | None = None
    diet: Diet | None = None
    size: Size | None = None
    dinos: int = 1  # per_herd_at_least: the smallest herd that counts
    alive: bool | None = True  # per_herd_at_least: living herds, extinct ones, or any (None)

    def matches(self, dino: Dino) -> bool:
        return (self.diet is None or dino.diet is self.diet) and (
            self.size is None or dino.size is self.size
        )

    def to_dict(self) -> dict[str, Any]:
        """The goal as it is written in a land or game file (the same shape it is read in)."""
        body: Any
        if self.kind in (GoalKind.PER_EGG, GoalKind.MANUAL):
            body = self.points
        else:
            fields: dict[str, Any] = {"points": self.points}
            if self.kind is GoalKind.PER_HERD_AT_LEAST:
                fields["dinos"] = self.dinos
                fields["alive"] = self.alive
            if self.diet is not None:
                fields["diet"] = str(self.diet)
            if self.size is not None:
                fields["size"] = self.size.label
            body = fields
        out: dict[str, Any] = {str(self.kind): body}
        if self.name is not None:
            out["name"] = self.name
        return out

    def describe(self) -> str:
        """The goal in words, for the report."""
        what = " ".join(w for w in (self.size.label if self.size else None, self.diet or None) if w)
        if self.kind is GoalKind.MANUAL:
            return f"{self.points} points"
        if self.kind is GoalKind.PER_EGG:
            return f"{self.points} per egg"
        if self.kind is GoalKind.PER_LIVING_DINO:
            return f"{self.points} per living {what or 'dino'}"
        if self.kind is GoalKind.PER_EXTINCT_DINO:
            return f"{self.points} per extinct {what or 'dino'}"
        if self.kind is GoalKind.PER_EXTINCT_HERD:
            return f"{self.points} per extinct {what + ' ' if what else ''}herd"
        state = {True: "living ", False: "extinct ", None: ""}[self.alive]
        return (
            f"{self.points} per {state}{what + ' ' if what else ''}herd "
            f"of {self.dinos} or more dinos"
        )


@dataclass(frozen=True, slots=True)
class GoalScore:
    goal: Goal
    count: int  # how many things the goal counted (1 for manual points)
    points: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "goal": self.goal.to_dict(),
            "name": self.goal.name or self.goal.describe(),
            "count": self.count,
            "points": self.points,
        }


# --------------------------------------------------------------------------------------
# Lands: checked construction (D1, D2)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Land:
    """The visible land: sections that do not share a cell, mountains on edges, goals.

    Build it with :func:`build_land` (which checks it); the scorer trusts it.
    """

    sections: tuple[Section, ...]
    mountains: frozenset[Edge] = frozenset()
    goals: tuple[Goal, ...] = ()

    def cell_index(self) -> dict[Cell, int]:
        """Cell -> index of the section on it."""
        return {cell: i for i, s in enumerate(self.sections) for cell in s.cells}

    def with_goals(self, goals: Sequence[Goal]) -> Land:
        return Land(self.sections, self.mountains, tuple(goals))


def _article(dino: Dino) -> str:
    return "a " + dino.value.replace("_", " ")


def check_section(section: Section) -> str | None:
    """What is wrong with one section on its own (D1), or None."""
    if not section.cells:
        return "a section covers at least one cell"
    if len(set(section.cells)) != len(section.cells):
        return "a cell is listed twice"
    if section.kind is Kind.DINO:
        if section.dino is None:
            return "a dino section names its dino"
        if section.count < 1:
            return "a dino section holds at least one dino"
        if section.dino.size is Size.LARGE and len(section.cells) != LARGE_DINO_CELLS:
            return (
                f"{_article(section.dino)} covers exactly {LARGE_DINO_CELLS} cells "
                f"(half a card), not {len(section.cells)}"
            )
    else:
        if section.dino is not None or section.count != 1:
            return f"only dino sections hold dinos, this is {section.kind}"
        if section.egg and section.kind is not Kind.NEST:
            return "only a nest holds an egg token"
    if not _is_one_piece(section.cells):
        return "the cells of a section are connected side by side"
    return None


def build_land(
    sections: Sequence[Section],
    mountains: Iterable[tuple[Cell, Cell]],
    goals: Sequence[Goal] = (),
    section_where: Callable[[int], str] = lambda i: f"sections[{i}]",
    mountain_where: Callable[[int], str] = lambda i: f"mountains[{i}]",
) -> Land:
    """Check a land and return it; the first problem is an InputError at its place.

    ``section_where`` and ``mountain_where`` turn an index into the place a person should
    look (a JSON path, or a line and column of the text grid).
    """
    owner: dict[Cell, int] = {}
    ids: dict[str, int] = {}
    for i, section in enumerate(sections):
        problem = check_section(section)
        if problem:
            raise InputError(section_where(i), problem)
        if section.id in ids:
            raise InputError(
                section_where(i),
                f"section id {section.id!r} is used twice (also {ids[section.id]})",
            )
        ids[section.id] = i
        for cell in section.cells:
            if cell in owner:
                other = sections[owner[cell]].id
                raise InputError(
                    section_where(i),
                    f"cell [{cell[0]}, {cell[1]}] is already in section {other!r}: "
                    "a cell belongs to one section",
                )
            owner[cell] = i
    edges = set()
    for j, (a, b) in enumerate(mountains):
        if not is_neighbour(a, b):
            raise InputError(
                mountain_where(j),
                f"a mountain between [{a[0]}, {a[1]}] and [{b[0]}, {b[1]}], which are not "
                "neighbours (a mountain lies on the edge between two cells side by side)",
            )
        if a not in owner and b not in owner:
            raise InputError(mountain_where(j), "a mountain between two empty places")
        if a in owner and owner.get(b) == owner[a]:
            raise InputError(
                mountain_where(j),
                f"a mountain inside section {sections[owner[a]].id!r}: mountains separate sections",
            )
        edges.add(edge(a, b))
    return Land(tuple(sections), frozenset(edges), tuple(goals))


# --------------------------------------------------------------------------------------
# Herds and feeding (D2-D4)
# --------------------------------------------------------------------------------------


def _walls(mountains: frozenset[Edge]) -> dict[Cell, int]:
    """Mountains as bits on the left or top cell of their edge: 1 right, 2 below."""
    walls: dict[Cell, int] = {}
    for a, b in mountains:  # edge order: a is left of b or above it
        walls[a] = walls.get(a, 0) | (1 if a[1] == b[1] else 2)
    return walls


def adjacent_pairs(land: Land) -> list[tuple[int, int]]:
    """D2: pairs of different sections that touch across an edge with no mountain.

    One look right and one look down from every cell: linear in the number of cells.  A
    pair may repeat when two sections share a long border.
    """
    where = land.cell_index()
    walls = _walls(land.mountains)
    pairs: list[tuple[int, int]] = []
    add = pairs.append
    get = where.get
    wall = walls.get
    for cell, i in where.items():
        x, y = cell
        w = wall(cell, 0)
        if not w & 1:
            j = get((x + 1, y))
            if j is not None and j != i:
                add((i, j))
        if not w & 2:
            j = get((x, y + 1))
            if j is not None and j != i:
                add((i, j))
    return pairs


def adjacency(land: Land) -> list[set[int]]:
    """D2: for each section, the set of sections next to it."""
    near: list[set[int]] = [set() for _ in land.sections]
    for i, j in adjacent_pairs(land):
        near[i].add(j)
        near[j].add(i)
    return near


class Herd(NamedTuple):
    """D3: connected dino sections of exactly one dino type, and what D4 made of them.

    A tuple underneath: a big land has thousands of herds and this keeps scoring fast.
    """

    dino: Dino
    sections: tuple[str, ...]  # section ids, in land order
    dinos: int
    alive: bool
    why: Why
    points: int
    ate: tuple[int, ...] = ()  # herds (indices in Score.herds) this carnivore herd ate
    eaten_by: tuple[int, ...] = ()  # carnivore herds that ate this herbivore herd
    near: frozenset[Kind] = frozenset()  # kinds of the non-dino sections next to the herd
    next_to: tuple[int, ...] = ()  # herds next to this one

    def to_dict(self) -> dict[str, Any]:
        return {
            "dino": str(self.dino),
            "dinos": self.dinos,
            "sections": list(self.sections),
            "alive": self.alive,
            "why": str(self.why),
            "points": self.points,
            "ate": list(self.ate),
            "eaten_by": list(self.eaten_by),
        }


@dataclass(frozen=True, slots=True)
class Score:
    herds: tuple[Herd, ...]
    eggs: int
    dino_points: int
    egg_points: int
    goals: tuple[GoalScore, ...]
    goal_points: int
    total: int
    biggest_living_herd: int

    def to_dict(self) -> dict[str, Any]:
        """formats.md's score object (plus ``goals``, and ``ate``/``eaten_by`` per herd)."""
        return {
            "herds": [h.to_dict() for h in self.herds],
            "eggs": self.eggs,
            "dino_points": self.dino_points,
            "egg_points": self.egg_points,
            "goal_points": self.goal_points,
            "total": self.total,
            "biggest_living_herd": self.biggest_living_herd,
            "goals": [g.to_dict() for g in self.goals],
        }


def _herds(land: Land) -> tuple[list[list[int]], list[int], list[tuple[int, int]]]:
    """D2 and D3 in one pass over the cells.

    Returns the herds (lists of section indices, in land order of their first section),
    each section's herd (-1 for a section that is not a dino), and the touching pairs that
    matter for feeding: a dino next to another kind of dino or to a feature.  Same-type
    neighbours are joined by union-find (the root is the smallest index) instead of being
    listed, and two features touching are skipped.
    """
    sections = land.sections
    where = land.cell_index()
    wall = _walls(land.mountains).get
    get = where.get
    dino = [s.dino for s in sections]
    parent = list(range(len(sections)))
    contacts: list[tuple[int, int]] = []
    add = contacts.append

    def join(i: int, j: int) -> None:
        while parent[i] != i:
            parent[i] = i = parent[parent[i]]
        while parent[j] != j:
            parent[j] = j = parent[parent[j]]
        if i < j:
            parent[j] = i
        elif j < i:
            parent[i] = j

    for cell, i in where.items():
        x, y = cell
        w = wall(cell, 0)
        d = dino[i]
        if not w & 1:
            j = get((x + 1, y))
            if j is not None and j != i:
                if d is not dino[j]:
                    add((i, j))
                elif d is not None:
                    join(i, j)
        if not w & 2:
            j = get((x, y + 1))
            if j is not None and j != i:
                if d is not dino[j]:
                    add((i, j))
                elif d is not None:
                    join(i, j)
    herds: list[list[int]] = []
    herd_of = [-1] * len(sections)
    for i, d in enumerate(dino):
        if d is None:
            continue
        root = i
        while parent[root] != root:
            root = parent[root]
        if root == i:
            herd_of[i] = len(herds)
            herds.append([i])
        else:
            herd_of[i] = herd_of[root]
            herds[herd_of[root]].append(i)
    return herds, herd_of, contacts


def find_herds(land: Land) -> list[list[int]]:
    """D3: groups of section indices, each a herd, in land order of their first section."""
    return _herds(land)[0]


def _goal_score(goal: Goal, herds: Sequence[Herd], eggs: int) -> GoalScore:
    if goal.kind is GoalKind.MANUAL:
        return GoalScore(goal, 1, goal.points)
    if goal.kind is GoalKind.PER_EGG:
        count = eggs
    elif goal.kind is GoalKind.PER_LIVING_DINO:
        count = sum(h.dinos for h in herds if h.alive and goal.matches(h.dino))
    elif goal.kind is GoalKind.PER_EXTINCT_DINO:
        count = sum(h.dinos for h in herds if not h.alive and goal.matches(h.dino))
    elif goal.kind is GoalKind.PER_EXTINCT_HERD:
        count = sum(1 for h in herds if not h.alive and goal.matches(h.dino))
    else:
        count = sum(
            1
            for h in herds
            if h.dinos >= goal.dinos
            and (goal.alive is None or h.alive is goal.alive)
            and goal.matches(h.dino)
        )
    return GoalScore(goal, count, count * goal.points)


_CARNIVORE = {d: d.diet is Diet.CARNIVORE for d in Dino}
_SIZE_VALUE = {d: d.size.value for d in Dino}
_KIND_BIT = {k: 1 << n for n, k in enumerate(Kind)}
_TAR, _MEAT, _PLANTS = _KIND_BIT[Kind.TAR_PIT], _KIND_BIT[Kind.MEAT], _KIND_BIT[Kind.PLANTS]


def _kinds(bits: int, cache: dict[int, frozenset[Kind]]) -> frozenset[Kind]:
    if bits not in cache:
        cache[bits] = frozenset(k for k, bit in _KIND_BIT.items() if bits & bit)
    return cache[bits]


def _contacts(
    land: Land, groups: list[list[int]], herd_of: list[int], contacts: list[tuple[int, int]]
) -> tuple[list[int], list[set[int]]]:
    """What each herd touches: a bit set of feature kinds, and the neighbouring herds."""
    bit = [_KIND_BIT[s.kind] for s in land.sections]
    touches = [0] * len(groups)
    next_to: list[set[int]] = [set() for _ in groups]
    for i, j in contacts:
        hi, hj = herd_of[i], herd_of[j]
        if hi >= 0:
            if hj < 0:
                touches[hi] |= bit[j]
            else:
                next_to[hi].add(hj)
                next_to[hj].add(hi)
        else:
            touches[hj] |= bit[i]
    return touches, next_to


class _Fed(NamedTuple):
    why: list[Why]
    ate: list[list[int]]
    eaten_by: list[list[int]]


def _feed(dinos_of: list[Dino], touches: list[int], next_to: list[set[int]]) -> _Fed:
    """D4's three steps over the herds: tar pits, then carnivores, then herbivores."""
    herds = range(len(dinos_of))
    carnivore = [_CARNIVORE[d] for d in dinos_of]
    size = [_SIZE_VALUE[d] for d in dinos_of]
    why: list[Why | None] = [Why.TAR_PIT if t & _TAR else None for t in touches]  # step 1
    # Step 2: carnivores. Meat first; otherwise eat every adjacent herbivore herd that the
    # tar pits left, of the same size or smaller. Several may eat the same herd, so the
    # order carnivores are taken in does not matter.
    ate: list[list[int]] = [[] for _ in herds]
    eaten_by: list[list[int]] = [[] for _ in herds]
    for h in herds:
        if why[h] is not None or not carnivore[h]:
            continue
        if touches[h] & _MEAT:
            why[h] = Why.MEAT
            continue
        for prey in sorted(next_to[h]):
            if not carnivore[prey] and why[prey] is not Why.TAR_PIT and size[prey] <= size[h]:
                ate[h].append(prey)
                eaten_by[prey].append(h)
        why[h] = Why.ATE if ate[h] else Why.STARVED
    for h in herds:
        if eaten_by[h]:
            why[h] = Why.EATEN
    # Step 3: the herbivores left eat plants or die.
    settled = [
        w if w is not None else Why.PLANTS if touches[h] & _PLANTS else Why.NO_PLANTS
        for h, w in enumerate(why)
    ]
    return _Fed(settled, ate, eaten_by)


def score(land: Land) -> Score:
    """Feed the herds in D4's order and add up the points of D5 and the goals.

    Linear in the cells: one pass over them joins same-type dinos into herds and lists
    the other contacts; what each herd touches is then a bit set of kinds plus a set of
    neighbouring herds.
    """
    sections = land.sections
    groups, herd_of, contacts = _herds(land)
    touches, next_to = _contacts(land, groups, herd_of, contacts)
    dinos_of: list[Dino] = []
    for members in groups:
        d = sections[members[0]].dino
        assert d is not None
        dinos_of.append(d)
    fed = _feed(dinos_of, touches, next_to)
    cache: dict[int, frozenset[Kind]] = {}
    features = ~_KIND_BIT[Kind.DINO]
    alive_why = ALIVE
    herds = []
    biggest = 0
    for h, members in enumerate(groups):
        reason = fed.why[h]
        if len(members) == 1:  # most herds: a plain path, no generators
            only = sections[members[0]]
            names: tuple[str, ...] = (only.id,)
            count = only.count
        else:
            names = tuple([sections[i].id for i in members])
            count = sum([sections[i].count for i in members])
        alive = reason in alive_why
        if alive and count > biggest:
            biggest = count
        near = next_to[h]
        herds.append(
            Herd(
                dinos_of[h],
                names,
                count,
                alive,
                reason,
                count * _SIZE_VALUE[dinos_of[h]] if alive else 0,
                tuple(fed.ate[h]),
                tuple(fed.eaten_by[h]),
                _kinds(touches[h] & features, cache),
                tuple(sorted(near)) if near else (),
            )
        )
    return _total(land, herds, biggest)


def _total(land: Land, herds: list[Herd], biggest: int) -> Score:
    """D5: dinos, eggs on visible nests and goals, added up."""
    eggs = sum([1 for s in land.sections if s.egg and s.kind is Kind.NEST])
    dino_points = sum([h.points for h in herds])
    goal_scores = tuple(_goal_score(g, herds, eggs) for g in land.goals)
    goal_points = sum(g.points for g in goal_scores)
    egg_points = eggs * EGG_POINTS
    return Score(
        tuple(herds),
        eggs,
        dino_points,
        egg_points,
        goal_scores,
        goal_points,
        dino_points + egg_points + goal_points,
        biggest,
    )


# --------------------------------------------------------------------------------------
# A game: several players' lands, ranked (D5)
# --------------------------------------------------------------------------------------


class DecidedBy(StrEnum):
    TOTAL = "total"
    BIGGEST_LIVING_HERD = "biggest_living_herd"
    SHARED = "shared"  # D5: still equal after the tie-break


@dataclass(frozen=True, slots=True)
class Standing:
    player: str
    rank: int  # 1 is first; players equal on total and tie-break share a rank
    score: Score


@dataclass(frozen=True, slots=True)
class GameResult:
    standings: tuple[Standing, ...]  # best first; input order among equals

    @property
    def winners(self) -> tuple[str, ...]:
        return tuple(s.player for s in self.standings if s.rank == 1)

    @property
    def decided_by(self) -> DecidedBy:
        """How first place was settled (D5)."""
        if len(self.winners) > 1:
            return DecidedBy.SHARED
        top = self.standings[0].score.total
        if sum(1 for s in self.standings if s.score.total == top) > 1:
            return DecidedBy.BIGGEST_LIVING_HERD
        return DecidedBy.TOTAL

    def to_dict(self) -> dict[str, Any]:
        return {
            "ranking": [
                {
                    "rank": s.rank,
                    "player": s.player,
                    "total": s.score.total,
                    "biggest_living_herd": s.score.biggest_living_herd,
                }
                for s in self.standings
            ],
            "winners": list(self.winners),
            "shared_victory": len(self.winners) > 1,
            "decided_by": str(self.decided_by),
            "players": {s.player: s.score.to_dict() for s in self.standings},
        }


def rank(scores: Mapping[str, Score]) -> GameResult:
    """D5: highest total; if tied, most dinos in the biggest living herd; else shared."""

    def key(player: str) -> tuple[int, int]:
        s = scores[player]
        return (-s.total, -s.biggest_living_herd)

    order = sorted(scores, key=key)  # stable: equals keep the input order
    standings: list[Standing] = []
    for pos, player in enumerate(order):
        if pos and key(order[pos - 1]) == key(player):
            place = standings[-1].rank
        else:
            place = pos + 1
        standings.append(Standing(player, place, scores[player]))
    return GameResult(tuple(standings))


def score_game(lands: Mapping[str, Land]) -> GameResult:
    return rank({p: score(land) for p, land in lands.items()})
