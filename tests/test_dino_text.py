"""The Chomp text grid (docs/dino-grid.md): tokens, joins and mountains in both
directions, errors that point at a line and a column, and rendering back to a grid."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.errors import InputError
from companion.games.dino import Dino, Kind, Land, score
from companion.games.dino.formats import land_to_dict
from companion.games.dino.text import cell_name, column_name, parse_grid, render_grid

DOCS = Path(__file__).resolve().parent.parent / "docs"


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
