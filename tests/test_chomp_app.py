"""The CHOMP! demo called as an app, with an options object and no command line.

The command line only builds ``DemoOptions``; the seats are checked by the app, before the
demo makes its journal folder or opens its mock pins.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.errors import InputError
from companion.games.chomp import Mode
from companion.tables.chomp import screen
from companion.tables.chomp.app import DemoOptions, run_demo
from companion.tables.chomp.screen import TableView


@pytest.mark.parametrize(
    ("options", "where", "message"),
    [
        (DemoOptions(bots="shelly,zed"), "--bots", "not a seat: zed"),
        (DemoOptions(players="ann,ann"), "--players", "give 2 to"),
        (DemoOptions(players="ann"), "--players", "give 2 to"),
    ],
)
def test_wrong_seats_are_refused_before_the_demo_opens_anything(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    options: DemoOptions,
    where: str,
    message: str,
) -> None:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    with pytest.raises(InputError) as caught:
        run_demo(options)
    assert caught.value.where == where and caught.value.message.startswith(message)
    assert list(tmp_path.iterdir()) == []  # no journal folder was made


def test_two_seats_of_the_standard_game_play_quick_chomp_with_the_second_a_bot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    views: list[TableView] = []
    monkeypatch.setattr(screen, "serve", lambda view, title, on_key=None: views.append(view))
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    assert run_demo(DemoOptions(players="ann,bob", seed=1)) == 0
    (view,) = views
    game = view.daemon.referee.game
    assert game.players == ("ann", "bob") and game.mode is Mode.QUICK_CHOMP
    assert "slap keys: a = ann, l = bob (bot)" in view.messages
    assert capsys.readouterr().out.startswith(f"journal: {tmp_path}")
