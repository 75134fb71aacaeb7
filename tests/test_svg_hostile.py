"""Every picture with hostile names: well-formed XML, the name back as text, never markup.

The round picture of a verdict, ``chomp audit --svg``, and the history's three plots are
drawn with a seat renamed to ``<``, ``&``, quotes, ``]]>``, ``<script>``, an ``<img>`` with
an ``onerror``, long Unicode and astral characters. Each is parsed with ElementTree and
must have the very elements and attributes of the same picture with a plain name: the
name changes text nodes only. Before the builder, the round picture's ``<title>`` put the
name in raw (23 of 44 audit pictures with such names were not XML, and a page ran it).
"""

from __future__ import annotations

import json
import re
import sqlite3
import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion import svg
from companion import text as gate
from companion.cli import main
from companion.errors import InputError
from companion.history import import_files
from companion.history.db import connect
from companion.history.generate import write_journals
from companion.history.plots import counts_svg, form_svg, reaction_svg
from companion.referee.audit import audit
from companion.referee.journal import read_journal
from companion.referee.picture import round_svg

ROOT = Path(__file__).resolve().parent.parent
JOURNAL = ROOT / "examples" / "chomp-journal.jsonl"
NS = "{http://www.w3.org/2000/svg}"
HOSTILE = [
    "<",
    "&",
    '"',
    "'",
    "]]>",
    "a&amp;b",
    "<script>",
    "<img src=x onerror=P=1>",
    '<b title="x">',
    "<!--",
    "ünïcödé ñame ✓ 名前",
    "𝔄𝔫𝔫 🦈🐙",  # astral: one character, two UTF-16 units
    "x" * 24,
    "👨\u200d👩\u200d👧",
]


def _is_name(value: str) -> bool:
    try:
        return gate.name(value, "test") == value
    except InputError:
        return False


NAMES = st.one_of(
    st.sampled_from(HOSTILE),
    st.text(alphabet=st.sampled_from("<>&\"'];!-= aZ/é🦈"), min_size=1, max_size=24),
    st.text(min_size=1, max_size=24),
).filter(_is_name)


def _renamed(value: Any, old: str, new: str) -> Any:
    if isinstance(value, dict):
        return {_renamed(k, old, new): _renamed(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, old, new) for v in value]
    return new if value == old else value


def _shape(picture: ET.Element) -> list[tuple[str, dict[str, str]]]:
    """Every element and its attributes, in order: what a name must never change."""
    return [(e.tag, dict(e.attrib)) for e in picture.iter()]


def _skeleton(picture: ET.Element) -> list[tuple[str, tuple[str, ...], str]]:
    return sorted((e.tag, tuple(sorted(e.attrib)), e.get("class", "")) for e in picture.iter())


def _texts(picture: ET.Element) -> list[str]:
    return [e.text or "" for e in picture.iter()]


@lru_cache(maxsize=1)
def _journal() -> tuple[list[Any], list[Any]]:
    contents = read_journal(JOURNAL)
    return list(contents.entries), list(contents.start.get("sources", []))


def _round_pictures(seat: str) -> list[ET.Element]:
    entries, sources = _journal()
    renamed = [_renamed(e, "cat", seat) for e in entries]
    return [ET.fromstring(round_svg(r, sources)) for r in audit(renamed)]


@settings(max_examples=examples(60), deadline=None)
@given(name=NAMES)
def test_the_round_picture_draws_any_name_as_text_only(name: str) -> None:
    plain = _round_pictures("cat")
    for hostile, same in zip(_round_pictures(name), plain, strict=True):
        assert _shape(hostile) == _shape(same)  # no element, no attribute from the name
        assert any(t.startswith(name) for t in _texts(hostile))  # the row label, a title
        assert all(not e.tag.endswith(("script", "img")) for e in hostile.iter())


def test_chomp_audit_svg_writes_well_formed_files_for_every_hostile_name(
    tmp_path: Path,
) -> None:
    """Before: 23 of 44 such files were not XML."""
    entries, _ = _journal()
    written = 0
    for i, name in enumerate(HOSTILE):
        journal = tmp_path / f"j{i}.jsonl"
        lines = [json.dumps(_renamed(e, "cat", name)) for e in entries]
        journal.write_text("\n".join(lines) + "\n", encoding="utf-8")
        folder = tmp_path / f"pics{i}"
        assert main(["chomp", "audit", str(journal), "--svg", str(folder)]) == 0
        for drawn in sorted(folder.iterdir()):
            picture = ET.parse(drawn).getroot()
            assert any(t.startswith(name) for t in _texts(picture))
            written += 1
    assert written == 3 * len(HOSTILE)


@lru_cache(maxsize=1)
def _history(folder: str) -> sqlite3.Connection:
    db = connect(":memory:")
    import_files(write_journals(Path(folder), 2, seed=1, rounds=60), db)
    return db


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> sqlite3.Connection:
    return _history(str(tmp_path_factory.mktemp("hostile-history")))


def _plots(db: sqlite3.Connection, player: str) -> list[ET.Element]:
    return [
        ET.fromstring(reaction_svg(db)),
        ET.fromstring(form_svg(db, player)),
        ET.fromstring(counts_svg(db, db.execute("SELECT min(id) FROM games").fetchone()[0])),
    ]


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(name=NAMES)
def test_the_history_plots_draw_any_name_as_text_only(
    history: sqlite3.Connection, name: str
) -> None:
    others = {n.casefold() for (n,) in history.execute("SELECT name FROM players")} - {"ann"}
    if name.casefold() in others:
        return  # another seat's name: not a rename
    plain = _plots(history, "ann")
    history.execute("SAVEPOINT renamed")
    try:
        history.execute("UPDATE players SET name = ? WHERE name = 'ann'", (name,))
        drawn = _plots(history, name)
    finally:
        history.execute("ROLLBACK TO renamed")
        history.execute("RELEASE renamed")
    reaction, form, counts = drawn
    # Reaction columns are ordered by name (and jittered in that order), and the counts
    # are stored by the old name: the same elements with the same attributes, wherever
    # they stand.
    assert _skeleton(reaction) == _skeleton(plain[0]) and _skeleton(counts) == _skeleton(plain[2])
    assert _shape(form) == _shape(plain[1])
    assert any(t.startswith(name) for t in _texts(reaction))  # "name (n)" under its column
    assert any(t.startswith(name) for t in _texts(form))  # the title: "name's form ..."
    assert name in _texts(counts)  # the legend


@given(words=st.text(), attribute=st.text())
def test_svg_element_is_well_formed_for_any_string_even_ungated(words: str, attribute: str) -> None:
    """The builder itself: controls and lone surrogates become U+FFFD, markup stays text."""
    drawn = svg.element("g", {"class": attribute}, svg.title(words), svg.text(1, 2, words))
    parsed = ET.fromstring(str(drawn))
    assert [e.tag for e in parsed.iter()] == ["g", "title", "text"]
    if words and _clean(words):
        assert parsed[0].text == words and parsed[1].text == words
    if _clean(attribute):
        assert parsed.get("class") == attribute


def _clean(value: str) -> bool:
    try:
        gate.clean(value, "w")
    except InputError:
        return False
    return True


def test_svg_element_refuses_a_tag_or_attribute_name_that_is_not_xml() -> None:
    with pytest.raises(ValueError, match="not an XML name"):
        svg.element("g", {'x" onload="y': "1"})
    with pytest.raises(ValueError, match="not an XML name"):
        svg.element("img src=x")


def test_no_markup_is_written_around_text_outside_the_builder() -> None:
    """The class, held: no f-string markup (``f'<``) or raw ``<title>`` left in companion/."""
    markup = re.compile(r"""f["']<[A-Za-z/!?]|<title>|quoteattr|saxutils""")
    found = []
    for path in (ROOT / "companion").rglob("*.py"):
        if path.name != "svg.py":
            source = path.read_text(encoding="utf-8")
            found += [f"{path.relative_to(ROOT)}: {m}" for m in markup.findall(source)]
    assert found == []
