"""The picture of a round: every press on a time axis from the reveal, drawn from a journal."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from companion.cli import main
from companion.referee.audit import audit
from companion.referee.journal import read_journal
from companion.referee.picture import round_svg

ROOT = Path(__file__).resolve().parent.parent
JOURNAL = ROOT / "examples" / "chomp-journal.jsonl"
SVG = "{http://www.w3.org/2000/svg}"


def pictures() -> list[ET.Element]:
    contents = read_journal(JOURNAL)
    sources = contents.start.get("sources", [])
    return [ET.fromstring(round_svg(r, sources)) for r in audit(contents.entries)]


def marks(picture: ET.Element, kind: str) -> list[ET.Element]:
    return [e for e in picture.iter() if e.get("class") == kind]


def texts(picture: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in picture.iter(f"{SVG}text")]


def test_a_tie_shows_both_slaps_the_window_and_the_false_start() -> None:
    first = pictures()[0]  # ann and bob tie 260 us apart; cat chomped 6.8 ms early
    assert len(marks(first, "tie")) == 2
    assert len(marks(first, "bad")) == 1 and not marks(first, "winner")
    assert len(marks(first, "window")) == 1
    assert "tie window 500 us" in texts(first)
    assert any("Tie between ann, bob" in t for t in texts(first))


def test_a_win_writes_the_winners_lead_and_marks_the_press_that_did_not_count() -> None:
    second = pictures()[1]  # dan first by 1,087 us; cat's later press did not count
    assert len(marks(second, "winner")) == 1 and len(marks(second, "ignored")) == 1
    assert [t for t in texts(second) if t.startswith("first by")] == ["first by 1,087 us"]


def test_the_picture_says_which_clock_stamped_the_presses() -> None:
    for picture in pictures():
        assert "stamped by: gpio kernel_edge ±20 us" in texts(picture)


def centre_x(mark: ET.Element) -> float:
    """A circle's centre, or the middle of a cross's first stroke."""
    if mark.get("cx") is not None:
        return float(mark.get("cx", "0"))
    line = next(mark.iter(f"{SVG}line"))
    return (float(line.get("x1", "0")) + float(line.get("x2", "0"))) / 2


def test_presses_lie_left_to_right_in_stamp_order() -> None:
    first = pictures()[0]
    x = {
        "".join(m.itertext()).split()[0]: centre_x(m)
        for m in marks(first, "tie") + marks(first, "bad")
    }
    assert set(x) == {"ann", "bob", "cat"}
    assert x["cat"] < x["ann"] < x["bob"]


def test_chomp_audit_svg_draws_every_round_into_a_folder(tmp_path: Path) -> None:
    assert main(["chomp", "audit", str(JOURNAL), "--svg", str(tmp_path / "pics")]) == 0
    drawn = sorted(p.name for p in (tmp_path / "pics").iterdir())
    assert drawn == ["round-1.svg", "round-2.svg", "round-3.svg"]
    for path in (tmp_path / "pics").iterdir():
        ET.parse(path)  # each one is well-formed XML


def test_chomp_audit_svg_with_a_round_writes_that_file(tmp_path: Path) -> None:
    target = tmp_path / "two.svg"
    assert main(["chomp", "audit", str(JOURNAL), "--round", "2", "--svg", str(target)]) == 0
    assert len(marks(ET.parse(target).getroot(), "winner")) == 1


def test_an_unwritable_svg_path_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    assert main(["chomp", "audit", str(JOURNAL), "--svg", str(blocker / "pics")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--svg" in err and "Traceback" not in err


def test_the_readme_shows_the_picture_the_command_draws() -> None:
    contents = read_journal(JOURNAL)
    second = audit(contents.entries)[1]
    shown = (ROOT / "docs" / "img" / "round-2.svg").read_text(encoding="utf-8")
    assert shown == round_svg(second, contents.start.get("sources", []))


def test_the_legend_names_each_source_once_and_only_those_that_stamped_the_round() -> None:
    contents = read_journal(JOURNAL)
    second = audit(contents.entries)[1]  # its presses come from "gpio"
    keyboard = {"name": "keyboard", "timing": "keyboard", "uncertainty_us": 10_000}
    gpio = {"name": "gpio", "timing": "kernel_edge", "uncertainty_us": 20}
    drawn = texts(ET.fromstring(round_svg(second, [keyboard, gpio, gpio])))
    stamped = [t for t in drawn if t.startswith("stamped by")]
    assert stamped == ["stamped by: gpio kernel_edge ±20 us"]  # not the keyboard's, once
    alone = texts(ET.fromstring(round_svg(second, [keyboard])))  # no source matches: all
    assert "stamped by: keyboard ±10000 us" in alone  # not "keyboard keyboard"


def test_the_phone_layout_is_320_wide_with_every_label_inside_at_12_units_or_more() -> None:
    from companion.referee.picture import PHONE_WIDTH

    contents = read_journal(JOURNAL)
    for audited in audit(contents.entries):
        phone = ET.fromstring(round_svg(audited, contents.start["sources"], PHONE_WIDTH))
        assert phone.get("viewBox") == f"0 0 {PHONE_WIDTH} {phone.get('height')}"
        assert float(phone.get("font-size", "0")) >= 12
        for text in phone.iter(f"{SVG}text"):
            words, x = "".join(text.itertext()), float(text.get("x", "0"))
            assert float(text.get("font-size", "12")) >= 12
            # A generous 7.5 units per character at 12 units: the text stays on the picture.
            width = len(words) * 7.5
            left = {"start": x, "middle": x - width / 2, "end": x - width}[
                text.get("text-anchor", "middle")
            ]
            assert 0 <= left and left + width <= PHONE_WIDTH + 1, words
        assert [t for t in texts(phone) if t.startswith("Round")] == [f"Round {audited.n}"]


def test_a_long_name_is_cut_on_the_phone_and_whole_in_its_marks_tooltip() -> None:
    import dataclasses

    from companion.referee.picture import PHONE_WIDTH

    contents = read_journal(JOURNAL)
    second = audit(contents.entries)[1]
    long = {p: f"{p}-the-very-long-named" for p in second.cards}
    renamed = dataclasses.replace(
        second,
        cards={long[p]: c for p, c in second.cards.items()},
        presses=[dataclasses.replace(r, player=long[r.player]) for r in second.presses],
    )
    phone = ET.fromstring(round_svg(renamed, [], PHONE_WIDTH))
    shown = texts(phone)
    assert "dan-the-very…" in shown and not any("the-very-long" in t for t in shown)
    tips = ["".join(t.itertext()) for t in phone.iter(f"{SVG}title")]
    assert any(t.startswith("dan-the-very-long-named ") for t in tips)
