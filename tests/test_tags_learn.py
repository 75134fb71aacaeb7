"""``companion tags learn``: the walk through a deck, driven by a keyboard-wedge stream.

The scanner is a StringIO on stdin, one code per line, exactly what a keyboard-wedge
scanner types; the walk is checked end to end through the CLI: prompts, saving after
every card, resuming, refusing a tag learned already, undo, and exit status 2 on bad input.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from companion.commands.tags import Learner, learn
from companion.tags.readers import CallbackReader, KeyboardWedgeReader
from companion.tags.tagfile import TagFile, load_tagfile

Run = Callable[..., tuple[int, str, str]]  # the conftest run_cli fixture


def chomp_codes(n: int, start: int = 0) -> list[str]:
    return [f"CH-{i:03d}" for i in range(start, start + n)]


def test_learns_a_whole_chomp_deck_in_order(run_cli: Run, tmp_path: Path) -> None:
    out = tmp_path / "chomp-tags.json"
    status, text, err = run_cli(
        "tags", "learn", "--game", "chomp", "--out", str(out), stdin="\n".join(chomp_codes(50))
    )
    assert (status, err) == (0, "")
    assert "[ 1/50] scan a shark (1 of 4)" in text
    assert "[ 5/50] scan a seal (1 of 5)" in text
    assert "[50/50] scan an octopus (4 of 4)" in text
    assert "code:CH-000 is the shark #1" in text
    assert text.rstrip().endswith(f"all 50 cards are learned: {out}")
    tags = load_tagfile(out)
    assert tags.tags["code:CH-000"] == "shark" and tags.tags["code:CH-049"] == "octopus"
    assert tags.learned("little_fish") == 11


def test_refuses_a_tag_learned_already_and_undo_takes_back(run_cli: Run, tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    lines = ["S1", "S2", "S1", "S3", "undo", "S4", "S5", "S6", "E1", "E2", "E2"]
    status, text, _ = run_cli(
        "tags", "learn", "--game", "chomp", "--out", str(out), stdin="\n".join(lines)
    )
    assert status == 0
    assert "that tag is already the shark #1: scan the next card" in text
    assert "took back code:S3 (shark)" in text
    assert "that tag is already the seal #3: scan the next card" in text
    assert list(load_tagfile(out).tags) == [
        "code:S1",
        "code:S2",
        "code:S4",
        "code:S5",
        "code:S6",
        "code:E1",
        "code:E2",
    ]
    assert load_tagfile(out).tags["code:S6"] == "seal"  # S4 and S5 were the last sharks
    assert "stopped: 7 of 50 cards learned; run the same command again to continue" in text


def test_a_partly_learned_file_continues_where_it_stopped(run_cli: Run, tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    first = run_cli(
        "tags", "learn", "--game", "chomp", "--out", str(out), stdin="A\nB\nC\nquit\nD\n"
    )
    assert first[0] == 0 and "stopped: 3 of 50 cards learned" in first[1]
    assert len(load_tagfile(out).tags) == 3  # saved after every card; D never read
    status, text, _ = run_cli(
        "tags", "learn", "--game", "chomp", "--out", str(out), stdin="A\nD\nE\nF\n"
    )
    assert status == 0
    assert f"Continuing {out}: 3 of 50 cards learned." in text
    assert "[ 4/50] scan a shark (4 of 4)" in text
    assert "that tag is already the shark #1" in text
    assert "[ 5/50] scan a seal (1 of 5)" in text
    assert load_tagfile(out).tags["code:E"] == "seal"


def test_count_stops_early_and_getbit_walks_each_colour(run_cli: Run, tmp_path: Path) -> None:
    out = tmp_path / "g.json"
    codes = "\n".join(f"G{i}" for i in range(20))
    status, text, _ = run_cli(
        "tags", "learn", "--game", "getbit", "--out", str(out), "--count", "9", stdin=codes
    )
    assert status == 0
    assert "[ 1/42] scan red-1" in text and "[ 8/42] scan orange-1" in text
    assert "stopped after 9 card(s): 9 of 42 learned" in text
    assert load_tagfile(out).tags["code:G8"] == "orange-2"


def test_undo_at_the_start_and_an_empty_stream(run_cli: Run, tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    status, text, _ = run_cli("tags", "learn", "--game", "chomp", "--out", str(out), stdin="undo\n")
    assert status == 0 and "nothing to undo" in text
    assert json.loads(out.read_text()) == {"game": "chomp", "tags": {}}


def test_a_file_of_the_other_game_is_refused(run_cli: Run, tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    out.write_text('{"game": "getbit", "tags": {}}')
    status, text, err = run_cli("tags", "learn", "--game", "chomp", "--out", str(out), stdin="A\n")
    assert status == 2 and text == ""
    assert (
        err
        == f"companion: {out}: game: this is a getbit tag file, not chomp: choose another --out\n"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--reader", "usb"], "companion: --reader: unknown reader 'usb'"),
        (["--reader", "bridge"], "companion: --reader: bridge: the Pico bridge is not configured"),
        (["--count", "0"], "companion: --count: must be at least 1, got 0"),
    ],
)
def test_bad_options_are_exit_2(
    run_cli: Run, tmp_path: Path, argv: list[str], message: str
) -> None:
    out = tmp_path / "t.json"
    status, _, err = run_cli("tags", "learn", "--game", "chomp", "--out", str(out), *argv)
    assert status == 2 and err.startswith(message) and err.count("\n") == 1
    assert not out.exists()  # nothing written for a run that never started


def test_a_bad_tag_file_to_continue_is_exit_2(run_cli: Run, tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    out.write_text('{"game": "chomp", "tags": {"XYZ": "seal"}}')
    status, _, err = run_cli("tags", "learn", "--game", "chomp", "--out", str(out))
    assert status == 2 and err.startswith(f"companion: {out}: tags.XYZ: bad hex")


def test_check_reports_what_is_missing(run_cli: Run, tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    out.write_text('{"game": "chomp", "tags": {"04A1B2C3": "shark", "04A1B2C4": "seal"}}')
    status, text, _ = run_cli("tags", "check", str(out))
    assert status == 0
    assert "t.json: CHOMP! tag file, 2 tag(s), 2 of 50 cards learned" in text
    assert "still to learn: shark 3 of 4, seal 4 of 5, big_fish 10 of 10" in text


def test_read_prints_what_a_reader_sees(run_cli: Run, tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    out.write_text('{"game": "chomp", "tags": {"code:CH-1": "seal"}}')
    status, text, _ = run_cli(
        "tags", "read", "--reader", "keyboard", "--tags", str(out), stdin="CH-1\nCH-2\n"
    )
    assert status == 0
    assert "keyboard #0: code:CH-1  the seal #1" in text
    assert "keyboard #0: code:CH-2  (not in t.json)" in text
    assert "2 read(s), 0 bad" in text


def test_learning_nfc_uids_pushed_by_the_bridge(tmp_path: Path) -> None:
    """The walk with a UID reader: the bridge's reads and typed undo from the keyboard."""
    path = tmp_path / "t.json"
    tags = TagFile("chomp", source=str(path))
    bridge = CallbackReader()
    for uid in ("04A1B2C3", "04A1B2C4", "04A1B2C3", "04A1B2C5"):
        bridge.push(0, bytes.fromhex(uid))
    out = io.StringIO()
    status = learn(tags, path, [bridge], out, count=3, wait_s=0.05)
    assert status == 0
    assert list(load_tagfile(path).tags) == ["04A1B2C3", "04A1B2C4", "04A1B2C5"]
    assert "that tag is already the shark #1: scan the next card" in out.getvalue()


def test_learner_alone() -> None:
    learner = Learner(TagFile("chomp"))
    assert learner.prompt() == "[ 1/50] scan a shark (1 of 4)"
    assert learner.offer("AA") == (True, "AA is the shark #1")
    assert learner.offer("AA") == (False, "that tag is already the shark #1: scan the next card")
    assert learner.undo() == "took back AA (shark)" and learner.done == 0
    keyboard = KeyboardWedgeReader(io.StringIO(""))
    assert keyboard.read(0.5) is None and keyboard.finished
