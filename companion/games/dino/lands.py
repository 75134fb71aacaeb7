"""Random Chomp lands, valid by construction: for the property tests and the benchmark.

Chance only through a passed ``random.Random``, so a seed is a land.
"""

from __future__ import annotations

import random

from companion.games.dino import Cell, Dino, Kind, Land, Section, Size, build_land

_FEATURES = (Kind.PLANTS, Kind.TAR_PIT, Kind.MEAT, Kind.NEST, Kind.LAND, Kind.EGG)


def random_land(
    rng: random.Random,
    width: int,
    height: int,
    empty: float = 0.0,
    mountains: float = 0.1,
    dinos: float = 0.55,
) -> Land:
    """A valid land filling a ``width`` x ``height`` grid (some places left empty).

    Sections are one cell, large dinos two, and some features two side by side; about
    ``mountains`` of the edges between different sections carry a mountain.
    """
    taken: set[Cell] = set()
    sections: list[Section] = []
    for y in range(height):
        for x in range(width):
            if (x, y) in taken:
                continue
            if rng.random() < empty:
                taken.add((x, y))
                continue
            cells: list[Cell] = [(x, y)]
            partner = rng.choice([(x + 1, y), (x, y + 1)])
            partner_ok = partner not in taken and partner[0] < width and partner[1] < height
            sid = f"s{len(sections)}"
            if rng.random() < dinos:
                dino = rng.choice(list(Dino))
                if dino.size is Size.LARGE:
                    if not partner_ok:
                        dino = rng.choice([d for d in Dino if d.size is not Size.LARGE])
                    else:
                        cells.append(partner)
                count = rng.choice((1, 1, 1, 2, 3)) if dino.size is Size.SMALL else 1
                section = Section(sid, Kind.DINO, tuple(cells), dino, count)
            else:
                kind = rng.choice(_FEATURES)
                if partner_ok and rng.random() < 0.3:
                    cells.append(partner)
                egg = kind is Kind.NEST and rng.random() < 0.5
                section = Section(sid, kind, tuple(cells), egg=egg)
            taken.update(cells)
            sections.append(section)
    owner = {c: i for i, s in enumerate(sections) for c in s.cells}
    walls = []
    for (x, y), i in owner.items():
        for other in ((x + 1, y), (x, y + 1)):
            j = owner.get(other)
            if j is not None and j != i and rng.random() < mountains:
                walls.append(((x, y), other))
    return build_land(sections, walls)
