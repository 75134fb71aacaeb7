"""The Chomp text grid (docs/dino-grid.md): tokens, joins and mountains in both
directions, errors that point at a line and a column, and rendering back to a grid."""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.errors import InputError
from companion.games.dino import Dino, Kind, Land, build_land, edge, neighbours, score
from companion.games.dino.formats import catalog_from_dict, land_to_dict, log_from_dict
from companion.games.dino.lands import random_land
from companion.games.dino.report import score_lines
from companion.games.dino.text import (
    cell_name,
    column_name,
    grid_names,
    grid_origin,
    parse_grid,
    render_grid,
)

DOCS = Path(__file__).resolve().parent.parent / "docs"
EXAMPLES = DOCS.parent / "examples"


def grid(*rows: str) -> Land:
    return parse_grid("\n".join(rows))


def error(*rows: str) -> str:
    with pytest.raises(InputError) as caught:
        grid(*rows)
    return str(caught.value)


# ---------------------------------------------------------------- tokens ----------------


def test_every_token_of_the_vocabulary() -> None:
    land = grid("sh   mh   lh = lh   sc   mc   lc = lc", "P    T    M    N    E    e    _    .")
    got = [(s.kind, s.dino, s.egg) for s in land.sections]
    assert got == [
        (Kind.DINO, Dino.SMALL_HERBIVORE, False),
        (Kind.DINO, Dino.MEDIUM_HERBIVORE, False),
        (Kind.DINO, Dino.LARGE_HERBIVORE, False),
        (Kind.DINO, Dino.SMALL_CARNIVORE, False),
        (Kind.DINO, Dino.MEDIUM_CARNIVORE, False),
        (Kind.DINO, Dino.LARGE_CARNIVORE, False),
        (Kind.PLANTS, None, False),
        (Kind.TAR_PIT, None, False),
        (Kind.MEAT, None, False),
        (Kind.NEST, None, False),
        (Kind.NEST, None, True),
        (Kind.EGG, None, False),
        (Kind.LAND, None, False),
    ]


def test_several_small_dinos_in_one_cell() -> None:
    (section,) = grid("sh12").sections
    assert (section.dino, section.count) == (Dino.SMALL_HERBIVORE, 12)


def test_empty_places_hold_no_section() -> None:
    land = grid(".  P", "P  .")
    assert [s.cells for s in land.sections] == [((1, 0),), ((0, 1),)]


def test_nests_with_and_without_an_egg() -> None:
    land = grid("N  E")
    assert [(s.kind, s.egg) for s in land.sections] == [(Kind.NEST, False), (Kind.NEST, True)]
    assert score(land).eggs == 1


def test_sections_are_named_spreadsheet_style() -> None:
    assert [s.id for s in grid("P  T", ".  M").sections] == ["A1", "B1", "B2"]
    assert [column_name(x) for x in (0, 25, 26, 27, 701, 702)] == [
        "A",
        "Z",
        "AA",
        "AB",
        "ZZ",
        "AAA",
    ]
    assert cell_name((2, 9)) == "C10"


def test_comments_and_blank_lines_are_ignored() -> None:
    land = grid("# a land", "", "P   T   # two cells", "", "M")
    assert [s.id for s in land.sections] == ["A1", "B1", "A2"]


# ---------------------------------------------------------------- joins and mountains ---


def test_a_large_dino_over_two_cells_across() -> None:
    (section,) = grid("lh = lh").sections
    assert section.cells == ((0, 0), (1, 0))


def test_a_large_dino_over_two_cells_down() -> None:
    (section,) = grid("lc", ":", "lc").sections
    assert section.cells == ((0, 0), (0, 1))


def test_a_section_over_several_cells_in_both_directions() -> None:
    (section,) = grid("P = P", "    :", ".   P").sections
    assert section.cells == ((0, 0), (1, 0), (1, 1))


def test_mountains_between_cells_in_both_directions() -> None:
    land = grid("P | T", "-", "M   N")
    assert land.mountains == {((0, 0), (1, 0)), ((0, 0), (0, 1))}


def test_edge_line_marks_sit_under_their_token_columns() -> None:
    land = grid("sh2   P", "  -   :", "sh2   P")
    assert land.mountains == {((0, 0), (0, 1))}
    assert [s.cells for s in land.sections if s.kind is Kind.PLANTS] == [((1, 0), (1, 1))]


def test_a_long_mark_under_a_wide_token_is_one_mark() -> None:
    assert len(grid("sh12  P", "----", "P     P").mountains) == 1


def test_mountains_on_the_outer_edges() -> None:
    land = grid("  -", "| P |", "  -")
    assert land.mountains == {
        ((0, -1), (0, 0)),
        ((-1, 0), (0, 0)),
        ((0, 0), (1, 0)),
        ((0, 0), (0, 1)),
    }


def test_separators_may_touch_the_tokens() -> None:
    assert grid("lh=lh|P").sections == grid("lh = lh | P").sections


# ---------------------------------------------------------------- errors: line, column --


@pytest.mark.parametrize(
    ("rows", "where", "message"),
    [
        (("P  xx",), "line 1 column 4", "unknown token 'xx'"),
        (
            (
                "P",
                "sh0",
            ),
            "line 2 column 1",
            "at least one dino",
        ),
        (("lh   P",), "line 1 column 1", "large herbivore covers exactly 2 cells"),
        (("lc = lc = lc",), "line 1 column 1", "not 3"),
        (("P = T",), "line 1 column 3", "'=' joins 'P' and 'T'"),
        (("P = .",), "line 1 column 3", "one side is empty"),
        (("P", ":", "T"), "line 2 column 1", "':' joins 'P' and 'T'"),
        (("= P",), "line 1 column 1", "no cell left of it"),
        (("P =",), "line 1 column 3", "no cell right of it"),
        (("P |= T",), "line 1 column 4", "one separator between two cells"),
        (("P", "-", "-", "T"), "line 3 column 1", "two edge lines in a row"),
        (("P", "   -", "T"), "line 2 column 4", "not under or over a cell"),
        (("sh2", "-:", "P"), "line 2 column 2", "two different marks"),
        (("P  -",), "line 1 column 4", "unexpected character '-'"),
        (("P  ?",), "line 1 column 4", "unexpected character '?'"),
        (("P\tT",), "line 1 column 2", "use spaces, not tabs"),
        ((".  |  .",), "line 1 column 4", "a mountain between two empty places"),
        (("P = P", "-   :", "P = P"), "line 2 column 1", "a mountain inside section 'A1'"),
        (("# nothing",), "line 1 column 1", "no rows of cells"),
    ],
)
def test_bad_grid_names_line_and_column(rows: tuple[str, ...], where: str, message: str) -> None:
    said = error(*rows)
    assert said.startswith(f"{where}: "), said
    assert message in said


def test_a_section_whose_cells_do_not_touch_is_refused() -> None:
    # Joined through the P below, so the plants are connected: fine.
    assert len(grid("P = P", ":", "P").sections) == 1


# ---------------------------------------------------------------- rendering -------------


def test_render_parses_back_to_the_same_land() -> None:
    land = grid(
        "| lh = lh   P",
        "  -         :",
        "  sh3  mh   P |",
        "       -",
        "  .    lc = lc",
    )
    again = parse_grid(render_grid(land))
    assert land_to_dict(again) == land_to_dict(land)


def test_render_with_labels_shows_columns_and_rows() -> None:
    shown = render_grid(grid("P   T", "M   N"), labels=True).splitlines()
    assert shown[0].split() == ["A", "B"]
    assert shown[1].split() == ["1", "P", "T"]
    assert shown[2].split() == ["2", "M", "N"]


def test_render_of_an_empty_land() -> None:
    assert render_grid(Land(())) == "."


# ---------------------------------------------------------------- the docs --------------


def dino_blocks() -> list[str]:
    text = (DOCS / "dino-grid.md").read_text(encoding="utf-8")
    return re.findall(r"```dino\n(.*?)```", text, re.S)


def test_docs_have_grid_examples() -> None:
    assert len(dino_blocks()) >= 3


@pytest.mark.parametrize("block", dino_blocks())
def test_every_grid_example_in_the_docs_parses_and_scores(block: str) -> None:
    land = parse_grid(block)
    assert land.sections
    assert score(land).total >= 0


# ---------------------------------------------------------------- printed grids read back


def moved(land: Land, dx: int, dy: int) -> Land:
    """The same land shifted by (dx, dy), section ids kept."""
    sections = tuple(
        replace(s, cells=tuple((x + dx, y + dy) for x, y in s.cells)) for s in land.sections
    )
    walls = frozenset(
        edge((a[0] + dx, a[1] + dy), (b[0] + dx, b[1] + dy)) for a, b in land.mountains
    )
    return Land(sections, walls, land.goals)


def with_outer_mountains(land: Land, rng: random.Random) -> Land:
    """Some mountains on the edges between a section and an empty place or the outside."""
    owner = land.cell_index()
    walls = set(land.mountains)
    for cell in owner:
        for other in neighbours(cell):
            if other not in owner and rng.random() < 0.2:
                walls.add(edge(cell, other))
    return build_land(land.sections, sorted(walls), land.goals)


def shape(land: Land) -> tuple[object, ...]:
    """A land without its section names."""
    return (
        sorted((s.cells, str(s.kind), s.dino or "", s.count, s.egg) for s in land.sections),
        sorted(land.mountains),
    )


@st.composite
def printable_lands(draw: st.DrawFn) -> Land:
    """Any valid land: random sections, empty places, mountains inside and on the outer
    edges, anywhere on the plane (negative coordinates too)."""
    rng = draw(st.randoms(use_true_random=False))
    land = random_land(
        rng,
        draw(st.integers(1, 8)),
        draw(st.integers(1, 8)),
        empty=draw(st.sampled_from([0.0, 0.2, 0.4])),
        mountains=draw(st.sampled_from([0.0, 0.3])),
    )
    if not land.sections:
        return land
    land = with_outer_mountains(land, rng)
    return moved(land, draw(st.integers(-3, 3)), draw(st.integers(-3, 3)))


@settings(max_examples=examples(80), deadline=None)
@given(land=printable_lands(), labels=st.booleans())
def test_any_printed_land_parses_back_to_the_same_land_and_names(land: Land, labels: bool) -> None:
    # Print any valid land (as dino score prints it, with labels, or bare) -> parse -> the
    # same land, moved so that its grid origin is A1, each section named as the report
    # names it.
    assume(land.sections)
    again = parse_grid(render_grid(land, labels=labels))
    ox, oy = grid_origin(land)
    assert shape(again) == shape(moved(land, -ox, -oy))
    names = grid_names(land)
    by_cells = {frozenset(s.cells): s.id for s in again.sections}
    for s in land.sections:
        assert by_cells[frozenset((x - ox, y - oy) for x, y in s.cells)] == names[s.id]


def drawing(out: str) -> str:
    """The grid ``dino score`` prints: from the line after the title to the blank line (or
    to the line saying how many cards a placement log laid)."""
    lines = out.splitlines()[1:]
    end = next(i for i, line in enumerate(lines) if not line or line.startswith("Built from"))
    return "\n".join(lines[:end]) + "\n"


def herd_lines(out: str) -> list[str]:
    lines = out.splitlines()
    start = lines.index("Herds (fed in order: tar pits, carnivores, herbivores):")
    end = next(i for i, line in enumerate(lines) if line.startswith("Eggs on"))
    return sorted(lines[start + 1 : end + 1])


@pytest.mark.parametrize(
    "example", ["dino-worked-example.txt", "dino-placements.json", "dino-land.json"]
)
def test_the_grid_dino_score_prints_is_scored_again_the_same(
    example: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The report's grid, copied into a file, scores the same: same herds by the same
    # names, same total (it was refused: "unknown token 'A'").
    assert main(["dino", "score", str(EXAMPLES / example)]) == 0
    first = capsys.readouterr().out
    printed = tmp_path / "printed.txt"
    printed.write_text(drawing(first), encoding="utf-8")
    assert main(["dino", "score", str(printed)]) == 0
    second = capsys.readouterr().out
    # Herds (by name, in any order), their points and the eggs: the same. Goals are not
    # in a grid, so the totals may differ by them.
    assert herd_lines(first) == herd_lines(second)
    assert drawing(second) == drawing(first)


def test_herds_are_named_by_the_cells_of_the_printed_grid() -> None:
    # A land replayed from cards (as a photo's is) has section ids such as x04:A1: card
    # x04's quarter A1. The report names its herds by the grid's cells instead.
    given = json.loads((EXAMPLES / "dino-placements.json").read_text("utf-8"))
    catalog = json.loads((EXAMPLES / "dino-catalog.example.json").read_text("utf-8"))
    land = log_from_dict(given, lambda _value, _where: catalog_from_dict(catalog)).land
    assert any(s.id.startswith("x04:") for s in land.sections)
    lines = score_lines(land, score(land), True)
    assert not any("x0" in line for line in lines)
    assert "  E1  1 large carnivore   extinct: tar pit    0" in lines
    assert any("The large carnivore at E1 is next to a tar pit." in line for line in lines)
    assert set(grid_names(land).values()) >= {"A1", "C1", "E1", "C5"}


def test_a_labelled_grid_checks_its_row_numbers() -> None:
    head = "     A    B"
    assert [s.id for s in grid(head, "  1  P    T", "     :", "  2  P    M").sections] == [
        "A1",
        "B1",
        "B2",
    ]
    assert error(head, "  1  P    T", "  3  P    M") == (
        "line 3 column 3: '3': a grid with column letters numbers its rows 1, 2, 3 ... "
        "(this row is 2)"
    )
    assert error(head, "  1  P    T", "  P    M").startswith("line 3 column 3: no row number")
    assert (
        error(head, "  1", "  2  P")
        == "line 2 column 3: row 1 holds no cell (an empty place is '.')"
    )


def test_a_tall_labelled_grid_keeps_its_columns() -> None:
    # 1,001 rows: the row numbers take four characters, and the columns stay aligned.
    rows = ["P   T"] * 999 + ["lh  T", ":", "lh  M"]
    land = grid(*rows)
    again = parse_grid(render_grid(land, labels=True))
    assert land_to_dict(again) == land_to_dict(land)


PRINTED = render_grid(parse_grid((EXAMPLES / "dino-worked-example.txt").read_text("utf-8")), True)


@settings(max_examples=examples(300), deadline=None)
@given(
    cuts=st.lists(
        st.tuples(
            st.integers(0, len(PRINTED)), st.sampled_from([*"AB12 |=:-.PThlc\n#\t", "١", ""])
        ),
        min_size=1,
        max_size=4,
    )
)
def test_fuzz_a_printed_grid_altered_is_read_or_refused_naming_line_and_column(
    cuts: list[tuple[int, str]],
) -> None:
    # The labelled grid with characters replaced, inserted or cut: a land, or one
    # InputError at "line L column C"; never another exception.
    text = PRINTED
    for at, char in cuts:
        text = text[:at] + char + text[at + 1 :]
    try:
        parse_grid(text)
    except InputError as exc:
        assert re.match(r"line \d+ column \d+: ", str(exc)) and "\n" not in str(exc)
