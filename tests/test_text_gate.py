"""The gate for outside text (companion/text.py) and the doors that use it.

Each rule of the gate is a test named after it; a hypothesis property for each reader;
then the doors: data.py's string readers, names on the command line (undecodable argv
bytes, in a subprocess), a typed line in the tables' shell, Chips' page, and a typed
number (``²`` to ``getbit play --secret``, a traceback before).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion import data
from companion import text as gate
from companion.errors import InputError
from companion.games.chips import ChipsTable
from companion.tables import shell
from companion.tables.chips.session import ChipsHelper
from companion.tables.foodchain.score import typed_sheet
from companion.tables.getbit.entry import parse_cards

ROOT = Path(__file__).resolve().parent.parent


def refused(value: object, reader: Any = gate.clean, **limits: int) -> str:
    with pytest.raises(InputError) as caught:
        reader(value, "here", **limits)
    assert caught.value.where == "here"
    message = str(caught.value)
    assert "\n" not in message
    message.encode("utf-8")  # the refusal itself can always be printed
    return message


# ------------------------------------------------------------------ clean: any outside text


def test_clean_rule_lone_surrogates_are_refused() -> None:
    """How undecodable argv or stdin bytes arrive (surrogateescape): no UTF-8 for them."""
    assert "not valid UTF-8" in refused("help \ud800")
    assert "not valid UTF-8" in refused(b"caf\xe9".decode("utf-8", "surrogateescape"))


@pytest.mark.parametrize("char", ["\x00", "\x07", "\t", "\n", "\r", "\x1b", "\x7f", "\x85", "\x9b"])
def test_clean_rule_c0_c1_controls_and_del_are_refused(char: str) -> None:
    assert f"control character (U+{ord(char):04X})" in refused(f"a{char}b")


@pytest.mark.parametrize("char", ["\u202e", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069"])
def test_clean_rule_bidi_overrides_and_isolates_are_refused(char: str) -> None:
    assert "bidi control" in refused(f"ann{char}nib")


@pytest.mark.parametrize("char", ["\ufffe", "\uffff", "\ufdd0", "\U0001fffe"])
def test_clean_rule_noncharacters_are_refused(char: str) -> None:
    assert "noncharacter" in refused(f"x{char}")


def test_clean_rule_a_length_limit() -> None:
    assert gate.clean("x" * 10, "here", limit=10) == "x" * 10
    assert "over 10 characters" in refused("x" * 11, limit=10)
    assert "over 4096 characters" in refused("x" * 100_000)


def test_clean_rule_anything_but_a_string_is_refused() -> None:
    assert "expected text" in refused(b"bytes")


@pytest.mark.parametrize("value", ["", "ann", "<img src=x>", "名前 🦈", "e\u0301", "a\u200db"])
def test_clean_keeps_showable_text_unchanged(value: str) -> None:
    assert gate.clean(value, "here") == value


@given(st.text(max_size=60))
def test_clean_property_returns_the_text_unchanged_or_one_input_error(value: str) -> None:
    """Never another exception; what passes is valid UTF-8, JSON without escapes, one line."""
    try:
        out = gate.clean(value, "here")
    except InputError as exc:
        assert str(exc).startswith("here: ") and "\n" not in str(exc)
        return
    assert out == value
    json.dumps({"name": out}, ensure_ascii=False).encode("utf-8")
    assert "\n" not in out and "\r" not in out


# ------------------------------------------------------------------ name: a seat's name


def test_name_rule_trimmed_and_runs_of_spaces_made_one() -> None:
    assert gate.name("  ann   smith ", "here") == "ann smith"


def test_name_rule_nfc_so_one_name_has_one_form() -> None:
    assert gate.name("e\u0301mile", "here") == "\u00e9mile"


def test_name_rule_not_empty() -> None:
    assert "cannot be empty" in refused("   ", gate.name)
    assert "cannot be empty" in refused("", gate.name)


def test_name_rule_at_most_24_characters() -> None:
    assert gate.name("x" * 24, "here") == "x" * 24
    assert gate.name("🦈" * 24, "here") == "🦈" * 24  # characters, not UTF-16 units or bytes
    assert "at most 24 characters" in refused("x" * 25, gate.name)


@pytest.mark.parametrize("char", ["\u00a0", "\u200b", "\u00ad"])
def test_name_rule_every_character_shown(char: str) -> None:
    """A no-break space, a zero-width space, a soft hyphen: not seen."""
    assert "not shown" in refused(f"a{char}b", gate.name)


@pytest.mark.parametrize("char", ["\u2028", "\u2029"])
def test_clean_rule_no_line_or_paragraph_separator(char: str) -> None:
    """A terminal, a log or a JSON-in-script reader would break the line there."""
    assert "line or paragraph separator" in refused(f"a{char}b", gate.clean)
    assert "line or paragraph separator" in refused(f"a{char}b", gate.name)


@pytest.mark.parametrize("value", ["<b>", "a&b", 'say "hi"', "o'neil", "]]>", "👨\u200d👩\u200d👧"])
def test_name_rule_markup_characters_are_allowed_since_every_output_escapes(value: str) -> None:
    assert gate.name(value, "here") == value


def test_name_rule_case_is_kept_and_compared_without_it() -> None:
    assert gate.name("Ann", "here") == "Ann"
    assert gate.name_key("ANN") == gate.name_key("ann") == gate.name_key("Ann")
    assert gate.name_key("Stra\u00dfe") == gate.name_key("STRASSE")


@given(st.text(max_size=40))
def test_name_property_is_its_own_form(value: str) -> None:
    """A name that passes comes out in its one form: passing it again changes nothing."""
    try:
        once = gate.name(value, "here")
    except InputError:
        return
    assert gate.name(once, "here") == once and 1 <= len(once) <= gate.NAME_LIMIT


# ------------------------------------------------------------------ whole_number: typed numbers


@pytest.mark.parametrize("typed", ["²", "٣", "１", "𝟗", "3.0", "+3", "0x3", "", " ", "3 4", "-"])
def test_whole_number_rule_ascii_digits_only(typed: str) -> None:
    """``"²".isdigit()`` is True and ``int("²")`` fails; ``"٣".isdecimal()`` reads as 3."""
    assert "expected a whole number" in refused(typed, gate.whole_number, low=0, high=9)


def test_whole_number_rule_the_range() -> None:
    assert gate.whole_number(" 7 ", "here", low=1, high=9) == 7
    assert "from 1 to 9, got 10" in refused("10", gate.whole_number, low=1, high=9)


def test_whole_number_rule_a_minus_only_when_the_range_is_negative() -> None:
    assert gate.whole_number("-3", "here", low=-5, high=5) == -3
    assert "expected a whole number" in refused("-3", gate.whole_number, low=0, high=5)


def test_whole_number_rule_a_bounded_length() -> None:
    assert "digits is too big" in refused("9" * 30, gate.whole_number, low=0, high=10**30)
    assert "too long for a number" in refused("9" * 5000, gate.whole_number, low=0, high=9)


@given(st.integers(-(10**12), 10**12), st.text(max_size=8))
def test_whole_number_property_reads_back_what_was_written(n: int, noise: str) -> None:
    assert gate.whole_number(str(n), "here", low=-(10**12), high=10**12) == n
    try:
        got = gate.whole_number(noise, "here", low=-(10**12), high=10**12)
    except InputError:
        return
    digits = noise.strip().removeprefix("-")
    assert digits.isascii() and digits.isdigit() and got == int(noise)


# ------------------------------------------------------------------ the doors


def test_data_name_reader_passes_the_gate_for_every_string() -> None:
    with pytest.raises(InputError, match=r"^players\[0\]\.name: .*not valid UTF-8"):
        data.name("ann\udcff", "players[0].name", "player")
    with pytest.raises(InputError, match=r"^referee\.journal: .*control"):
        data.name("a\x1bb", "referee.journal")
    with pytest.raises(InputError, match="at most 24 characters"):
        data.name("x" * 25, "players[0].name", "player")
    assert data.name(" ann ", "players[0].name", "player") == "ann"
    assert data.name("x" * 200, "tags.file", "file") == "x" * 200  # a path: text, not a name


def test_data_choice_and_free_keys_pass_the_gate() -> None:
    with pytest.raises(InputError, match="not valid UTF-8"):
        data.choice("\ud800", "game.mode", {"standard": 1}, "mode")
    with pytest.raises(InputError, match=r"^deal: .*not valid UTF-8"):
        data.mapping({"ann\ud800": 3}, "deal")


def _companion(*argv: bytes, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LC_ALL": "C.UTF-8"}
    return subprocess.run(
        [sys.executable.encode(), b"-m", b"companion", *argv],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    "argv",
    [
        [b"demo", b"--players", b"ann,bob,\xffcat", b"--autoplay"],
        [b"demo", b"--players", b"ann,bob,cat", b"--bots", b"bob,\xe9", b"--autoplay"],
        [b"chips", b"--players", b"ann,b\xc3ob"],
        [b"getbit", b"play", b"--players", b"ann,\xff"],
        [b"getbit", b"play", b"--robots", b"red=ann,blue=\xff"],
        [b"foodchain", b"play", b"--catalog", b"x.json", b"--players", b"a,\xfe"],
    ],
)
def test_argv_with_undecodable_bytes_is_one_line_and_exit_2(
    argv: list[bytes], tmp_path: Path
) -> None:
    done = _companion(*argv)
    assert done.returncode == 2
    assert done.stderr.count(b"\n") == 1 and b"Traceback" not in done.stderr
    assert b"not valid UTF-8" in done.stderr and done.stderr.startswith(b"companion: --")


def test_a_hostile_but_well_formed_name_on_argv_is_kept_as_typed() -> None:
    done = _companion(b"demo", b"--players", b'ann,<b>&"x",cat', b"--autoplay", b"--seed", b"1")
    assert done.returncode == 0, done.stderr
    assert b'<b>&"x"' in done.stdout


def test_a_lone_surrogate_typed_into_the_shell_is_refused_and_the_table_goes_on() -> None:
    seen: list[list[str]] = []
    out = io.StringIO()
    shell.run_lines(["help \ud800\n", "status\n"], out, {"status": seen.append})
    assert seen == [[]]  # the next line was still answered
    said = out.getvalue().splitlines()
    assert len(said) == 1 and said[0].startswith("refused: typed line: ")


def test_a_lone_surrogate_typed_at_chips_is_refused_in_one_line(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the line reached the game and the page's JSON, 500 for the rest of it."""
    monkeypatch.chdir(tmp_path)
    lines = "help \ud800\n\ud800\nstatus\n"
    status, out, err = run_cli("chips", "--players", "ann,bob", "--top", "9", stdin=lines)
    assert status == 0 and "Traceback" not in err
    refusals = [line for line in out.splitlines() if line.startswith("refused: typed line")]
    assert len(refusals) == 2
    assert "ann" in out.split(refusals[-1])[1]  # status answered after them
    for saved in tmp_path.glob("*.json"):  # the save file: no lone surrogate reached it
        json.dumps(json.loads(saved.read_text("utf-8")), ensure_ascii=False).encode("utf-8")


def test_chips_refuses_a_lone_surrogate_for_the_terminal_and_the_page_alike(
    tmp_path: Path,
) -> None:
    helper = ChipsHelper.open(
        tmp_path / "chips.json", ChipsTable.new(["ann", "bob"]), False, False, None
    )
    reply = helper.command("help \ud800")
    assert reply is not None and reply.startswith("no: typed line: ")
    pytest.importorskip("starlette", reason="the web extra is not installed")
    from companion.tables.chips.web import ChipsWebTable

    page = ChipsWebTable(helper)
    with pytest.raises(InputError, match="not valid UTF-8"):
        page.act({"type": "command", "line": "9 \ud800"})
    json.dumps(page.state(), ensure_ascii=False).encode("utf-8")  # the page's JSON stays whole


def test_food_chain_typed_sheet_refuses_a_lone_surrogate_naming_the_line() -> None:
    with pytest.raises(InputError, match=r"^typed sheet: line 2: .*not valid UTF-8"):
        typed_sheet(["ann: 3 | red\n", "b\udcffb: 2 | blue\n"])
    assert typed_sheet([" Ann : 3 2 | red\n"])["players"] == {
        "Ann": {"eaten": [3, 2], "tokens": {"red": 1}}
    }


@pytest.mark.parametrize("typed", ["²²", "4 ² 1", "ted=²", "٣٣"])
def test_getbit_typed_cards_in_other_digits_are_refused_not_misread(typed: str) -> None:
    with pytest.raises(ValueError, match="give 2 cards|not a card"):
        parse_cards(typed, ["ted", "anne"])


def test_getbit_secret_refuses_a_superscript_two_in_one_line(run_cli: Any, tmp_path: Path) -> None:
    """Before: ``"²".isdigit()`` let it through to ``int()``: a traceback."""
    status, out, err = run_cli(
        "getbit", "play", "--players", "ann,bob", "--line", "ann-1,bob-1,ann-2,bob-2",
        "--secret", "--save", str(tmp_path / "game.json"), stdin="²\n٣\n1\n",
    )  # fmt: skip
    assert status == 0 and "Traceback" not in err
    assert out.count("ann-1 cannot play that card: choose again") == 2
    assert "ann, ann-2's card (hidden):" in out  # the 1 after them was taken


@pytest.mark.parametrize("listen", ["²", "0.0.0.0:８０８０", "80٣"])
def test_web_port_in_other_digits_is_one_line_not_a_traceback(listen: str) -> None:
    from companion.tables.web import parse_listen

    with pytest.raises(InputError, match="a port number up to 65535"):
        parse_listen(listen)


def test_reader_baud_in_other_digits_is_one_line_not_a_traceback() -> None:
    from companion.tags.specs import open_reader

    with pytest.raises(InputError, match="is not a baud rate"):
        open_reader("serial:/dev/null@9600²", io.StringIO())


def test_clean_tree_names_the_first_refused_string_by_its_path() -> None:
    document = json.loads('{"players": [{"name": "ann"}, {"name": "b\\ud800"}], "n": 3}')
    with pytest.raises(InputError, match=r"^players\[1\]\.name: .*not valid UTF-8"):
        gate.clean_tree(document)
    with pytest.raises(InputError, match=r"^deal: .*not valid UTF-8"):
        gate.clean_tree({"deal": {"\udcff": 1}})
    gate.clean_tree({"players": ["<b>", "名前"], "deep": [[[[{"x": "y"}]]]]})


def test_a_food_chain_sheet_with_a_lone_surrogate_player_is_one_input_error() -> None:
    """The page's score sheet and ``foodchain score`` read players through data.mapping."""
    from companion.games.foodchain import sheet_from_dict

    sheet = json.loads('{"players": {"ann": {"eaten": [3]}, "\\ud800": {"eaten": [2]}}}')
    with pytest.raises(InputError, match=r"^players: .*not valid UTF-8"):
        sheet_from_dict(sheet, None)


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _cli(*argv: str) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "companion", *argv], capture_output=True, text=True, timeout=60
    )
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("bad", ["\\ud800", "\\u001b[31m", "\\u202e"])
def test_every_json_file_passes_the_gate_once_where_it_is_read(tmp_path: Path, bad: str) -> None:
    """Readers that take strings from a parsed document themselves (a catalog's title) are
    covered too: the JSON reader (files.parse_json) runs every string through the gate."""
    catalog = (EXAMPLES / "foodchain-catalog.example.json").read_text()
    catalog = catalog.replace('"title": "EXAMPLE ONLY', f'"title": "EXAMPLE{bad} ONLY')
    (tmp_path / "foodchain-catalog.example.json").write_text(catalog)
    sheet = tmp_path / "sheet.json"
    sheet.write_text((EXAMPLES / "foodchain-score.json").read_text())
    status, out, err = _cli("foodchain", "score", str(sheet))
    assert (status, out) == (2, "") and err.count("\n") == 1
    assert "title" in err and "\x1b" not in err


def test_a_journal_line_whose_name_the_gate_refuses_is_one_line_naming_it(tmp_path: Path) -> None:
    text = (EXAMPLES / "chomp-journal.jsonl").read_text().replace('"ann"', '"a\\u001bnn"')
    path = tmp_path / "game.jsonl"
    path.write_text(text)
    status, out, err = _cli("chomp", "audit", str(path))
    assert (status, out) == (2, "")
    assert (
        err.startswith(f"companion: {path}: line 1: damaged journal line (")
        and err.count("\n") == 1
    )
    assert "control character (U+001B)" in err and "\x1b" not in err
