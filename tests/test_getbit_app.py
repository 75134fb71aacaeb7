"""``tables/getbit/app.py`` called with an options object, as the command calls it: the
mistakes it refuses itself come before the table is asked to open anything, and the
defaults alone make a working table (the command always fills every field)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from companion.errors import InputError
from companion.tables.getbit import session
from companion.tables.getbit.app import GetBitOptions, run

ROBOTS = "red=ann,blue=bob,green=ann,yellow=bob"
LINE = "red,blue,green,yellow"
ROUNDS = "1 1 1 1\n2 2 2 2\n3 4 5 1\n5 3 4 1\n2 3 4 1\n"  # yellow bitten out: ann wins


@pytest.mark.parametrize(
    ("options", "where"),
    [
        # The keyboard is refused before the tag file (missing here) is read.
        (GetBitOptions(robots=ROBOTS, tags="missing.json", readers=("keyboard",)), "--reader"),
        (GetBitOptions(robots=ROBOTS, tags="missing.json"), "--tags"),
        (GetBitOptions(robots=ROBOTS, colours="red=red"), "--colours"),
        (GetBitOptions(players="ann,bob", resume=True), "--players"),
        (GetBitOptions(players="ann,ann"), "--players"),
        (GetBitOptions(robots=ROBOTS, line="red,blue"), "--line"),
    ],
)
def test_a_refused_option_never_reaches_the_table(
    options: GetBitOptions,
    where: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def must_not_open(*args: object, **kwargs: object) -> None:
        raise AssertionError("the table was opened")

    monkeypatch.setattr(session, "open_getbit_table", must_not_open)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError) as refused:
        run(options)
    assert refused.value.where == where
    assert list(tmp_path.iterdir()) == []


def test_the_defaults_play_a_game_to_the_end(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    private_history: Path,
) -> None:
    save = tmp_path / "game.json"
    monkeypatch.setattr("sys.stdin", io.StringIO(ROUNDS))
    assert run(GetBitOptions(robots=ROBOTS, line=LINE, save=str(save))) == 0
    err = capsys.readouterr().err
    assert err == f"saved {save} (game over, ann won): companion getbit replay {save}\n"
    assert len(json.loads(save.read_text())["rounds"]) == 5
    assert private_history.exists()  # a finished game is remembered unless told otherwise
