"""The Great Chips Escape on the phones (companion/tables/chips/web.py) on Starlette's test
client: the same typed commands as the terminal, refusals as one line, the legal discards."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.files import read_json
from companion.games.chips import ChipsTable
from companion.tables.chips.session import ChipsHelper, save_from_dict
from companion.tables.chips.web import ChipsWebTable

pytest.importorskip("starlette", reason="the web extra is not installed")

from starlette.testclient import TestClient  # noqa: E402

from companion.tables.web.app import create_app  # noqa: E402
from companion.tables.web.serve import build_site  # noqa: E402

ORIGIN = {"origin": "http://testserver"}


def new_helper(folder: Path) -> ChipsHelper:
    return ChipsHelper.open(
        folder / "chips.json", ChipsTable.new(["ann", "bob", "cat"]), False, False, None
    )


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[tuple[TestClient, ChipsHelper]]:
    helper = new_helper(tmp_path)
    site = build_site()
    site.code = "c"
    site.hub.add(ChipsWebTable(helper))
    client = TestClient(create_app(site))
    client.get("/?code=c", follow_redirects=False)
    yield client, helper


def command(client: TestClient, line: str) -> Any:
    return client.post(
        "/api/tables/chips/actions", json={"type": "command", "line": line}, headers=ORIGIN
    )


def state(client: TestClient) -> dict[str, Any]:
    got: dict[str, Any] = client.get("/api/tables/chips").json()["state"]
    return got


def test_whose_turn_and_the_legal_discards_follow_the_top_card(
    served: tuple[TestClient, ChipsHelper],
) -> None:
    client, _ = served
    s = state(client)
    assert s["legal"] == [] and s["prompt"] == "Turn over the deck's top card and type its number."
    command(client, "5")
    s = state(client)
    assert s["actor"] == "ann" and s["legal"] == [4, 5, 6] and s["top"] == 5
    assert [p["acts"] for p in s["players"]] == [True, False, False]
    command(client, "4")
    s = state(client)
    assert s["actor"] == "bob" and s["legal"] == [3, 4, 5]
    command(client, "3")
    command(client, "2")
    command(client, "1")
    assert state(client)["legal"] == [1, 2, 9]  # the numbers go round: 9 sits beside 1


def test_a_refused_command_is_one_line_and_changes_nothing(
    served: tuple[TestClient, ChipsHelper],
) -> None:
    client, helper = served
    command(client, "5")
    command(client, "4")
    before = helper.table.to_dict()
    refused = command(client, "9")
    assert refused.status_code == 400
    assert refused.text.strip() == "line: a 9 cannot go on a 4: play a 3, 4 or 5"
    assert helper.table.to_dict() == before
    assert command(client, "").text.strip().startswith("line: type one command")
    assert command(client, "quit").text.strip().startswith("line: quit is typed at the Pi")


def test_mad_fish_counts_and_undo_by_turns_are_the_terminal_s(
    served: tuple[TestClient, ChipsHelper],
) -> None:
    client, helper = served
    for line in ("5", "4", "draw", "mad 3", "no"):
        assert command(client, line).status_code == 200, line
    s = state(client)
    assert {p["name"]: p["mad_fish"] for p in s["players"]} == {"ann": 0, "bob": 0, "cat": 1}
    assert s["said"][-1]["line"] == "no" and s["undo"]
    assert command(client, "undo").status_code == 200
    assert state(client)["players"][2]["mad_fish"] == 0
    saved, _ = save_from_dict(read_json(str(helper.path)))
    assert saved.to_dict() == helper.table.to_dict()  # saved after every command


def test_commands_typed_at_the_terminal_reach_the_pages(tmp_path: Path) -> None:
    helper = new_helper(tmp_path)
    page = ChipsWebTable(helper)
    site = build_site()
    site.hub.add(page)
    page.serve(site.hub.publish)
    try:
        helper.command("5")  # as the terminal does
        deadline = time.monotonic() + 10  # only a hang fails: a loaded CI machine is slow
        while site.hub.snapshot("chips").version == 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert site.hub.snapshot("chips").state["top"] == 5
    finally:
        page.close()


def test_only_commands_are_taken(served: tuple[TestClient, ChipsHelper]) -> None:
    client, _ = served
    wrong = client.post("/api/tables/chips/actions", json={"type": "discard"}, headers=ORIGIN)
    assert wrong.text.strip() == "type: 'discard': Chips takes command (a typed line), new_game"


def test_companion_chips_web_serves_the_game_typed_at_the_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The whole command: the terminal's line mode and the page share one game."""
    import os
    import re
    import sys
    import urllib.request

    from companion.cli import main

    monkeypatch.setattr(os, "geteuid", lambda: 1000)  # CI runs as root; the Pi does not
    seen: list[dict[str, Any]] = []

    def terminal() -> Iterator[str]:
        yield "5\n"  # typed at the Pi
        url = re.search(r"open (http://127\.0\.0\.1:\d+/) on a phone", capsys.readouterr().err)
        assert url is not None
        deadline = time.monotonic() + 10  # only a hang fails: a loaded CI machine is slow
        while time.monotonic() < deadline:
            with urllib.request.urlopen(f"{url[1]}api/tables/chips") as response:
                seen.append(json.loads(response.read())["state"])
            if seen[-1]["top"] == 5:
                break
            time.sleep(0.05)
        yield "quit\n"

    class Terminal:
        """Standard input that is not a terminal: the line mode reads it line by line."""

        lines = terminal()

        def isatty(self) -> bool:
            return False

        def __iter__(self) -> Iterator[str]:
            return self.lines

    monkeypatch.setattr(sys, "stdin", Terminal())
    save = tmp_path / "chips.json"
    assert main(["chips", "--players", "ann,bob", "--save", str(save), "--web", "127.0.0.1:0"]) == 0
    assert seen and seen[-1]["top"] == 5 and seen[-1]["legal"] == [4, 5, 6]


def test_the_golden_knight_question_is_asked_with_buttons_the_terminal_s_words(
    served: tuple[TestClient, ChipsHelper],
) -> None:
    client, _ = served
    for line in ("5", "4", "draw", "mad 3"):
        assert command(client, line).status_code == 200, line
    s = state(client)
    assert s["prompt"].endswith("(knight / no)")
    assert [a["line"] for a in s["answers"]] == ["knight", "no"]
    assert s["legal"] == []  # a question, not a discard
    assert command(client, "no").status_code == 200  # the button's line is the terminal's
    s = state(client)
    assert s["answers"] == [] and s["said"][-1]["line"] == "no"


def test_done_and_whose_hand_are_asked_with_buttons_too(
    served: tuple[TestClient, ChipsHelper],
) -> None:
    client, _ = served
    for line in ("5", "6 triple"):
        assert command(client, line).status_code == 200, line
    assert [a["line"] for a in state(client)["answers"]] == ["done"]
    for line in ("7", "8", "9 spy"):  # the Triple Chips' last card a Spy Fry: whose hand?
        assert command(client, line).status_code == 200, line
    s = state(client)
    assert s["prompt"] == "ann: Spy Fry, whose hand do you look at? (name a player)"
    assert [a["line"] for a in s["answers"]] == ["bob", "cat"]  # not ann's own
    assert command(client, "cat").status_code == 200
    assert state(client)["answers"] == []
