"""Get Bit! on the phones (companion/tables/getbit/web.py) on Starlette's test client:
rounds tapped in or chosen secretly, G7 refusals as one line, undo, the terminal's rounds
reaching the pages."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.files import read_json
from companion.games.getbit import Setup, replay
from companion.games.getbit.formats import replay_from_dict
from companion.games.getbit.text import round_lines
from companion.tables.getbit.session import open_getbit_table
from companion.tables.getbit.table import GetBitTable
from companion.tables.getbit.web import GetBitWebTable

pytest.importorskip("starlette", reason="the web extra is not installed")

from starlette.testclient import TestClient  # noqa: E402

from companion.tables.web.app import Site, create_app  # noqa: E402
from companion.tables.web.serve import build_site  # noqa: E402

ORIGIN = {"origin": "http://testserver"}
PLAYERS = ("ann", "bob", "cat", "dan")
SETUP = Setup({p: p for p in PLAYERS}, PLAYERS)


def open_table(tmp_path: Path, secret: bool = False) -> GetBitTable:
    return open_getbit_table(tmp_path / "game.json", SETUP, secret=secret)


def joined(site: Site) -> TestClient:
    site.code = "c"
    client = TestClient(create_app(site))
    client.get("/?code=c", follow_redirects=False)
    return client


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[tuple[TestClient, GetBitTable]]:
    table = open_table(tmp_path)
    site = build_site()
    site.hub.add(GetBitWebTable(table))
    yield joined(site), table
    table.close()


def act(client: TestClient, action: dict[str, Any]) -> Any:
    return client.post("/api/tables/getbit/actions", json=action, headers=ORIGIN)


def state(client: TestClient) -> dict[str, Any]:
    got: dict[str, Any] = client.get("/api/tables/getbit").json()["state"]
    return got


def test_the_line_the_limbs_and_the_hands(served: tuple[TestClient, GetBitTable]) -> None:
    client, _ = served
    s = state(client)
    assert s["line"] == list(PLAYERS) and s["order"] == list(PLAYERS)
    assert [(r["robot"], r["limbs"], r["hand"], r["place"]) for r in s["robots"]] == [
        (p, 4, [1, 2, 3, 4, 5], i + 1) for i, p in enumerate(PLAYERS)
    ]
    assert s["round"] == 1 and s["last"] is None and not s["undo"]


def test_a_round_tapped_in_is_played_saved_and_announced_as_replay_does(
    served: tuple[TestClient, GetBitTable],
) -> None:
    client, table = served
    rounds = [{"ann": 1, "bob": 2, "cat": 3, "dan": 4}, {"ann": 5, "bob": 5, "cat": 1, "dan": 2}]
    for cards in rounds:
        assert act(client, {"type": "play", "cards": cards}).status_code == 200
    expected = replay(SETUP, rounds)
    s = state(client)
    assert s["line"] == list(expected.state.line)
    assert s["last"]["lines"] == round_lines(expected.results[-1], expected.state)
    assert s["last"]["bitten"] == expected.results[-1].bitten
    assert {r["robot"]: r["limbs"] for r in s["robots"]} == {
        r: expected.state.limbs(r) for r in PLAYERS
    }
    saved = replay_from_dict(read_json(str(table.session.path)))
    assert saved.rounds == expected.rounds  # the save file is the replay input


def test_g7_a_card_not_in_hand_is_refused_naming_the_round_and_robot(
    served: tuple[TestClient, GetBitTable],
) -> None:
    client, _ = served
    act(client, {"type": "play", "cards": {"ann": 1, "bob": 2, "cat": 3, "dan": 4}})
    again = act(client, {"type": "play", "cards": {"ann": 1, "bob": 3, "cat": 4, "dan": 5}})
    assert again.status_code == 400
    assert again.text.strip() == "cards: round 2: ann cannot play 1: not in its hand (2, 3, 4, 5)"
    short = act(client, {"type": "play", "cards": {"ann": 2}})
    assert short.text.strip() == "cards: round 2: no card for dan, cat, bob"
    assert state(client)["round"] == 2


def test_undo_takes_the_last_round_back(served: tuple[TestClient, GetBitTable]) -> None:
    client, _ = served
    assert act(client, {"type": "undo"}).text.strip() == "type: nothing to undo"
    act(client, {"type": "play", "cards": {"ann": 1, "bob": 2, "cat": 3, "dan": 4}})
    assert state(client)["undo"]
    assert act(client, {"type": "undo"}).status_code == 200
    s = state(client)
    assert s["round"] == 1 and s["line"] == list(PLAYERS) and s["last"] is None


def test_secret_choices_are_hidden_until_every_robot_has_one(tmp_path: Path) -> None:
    table = open_table(tmp_path, secret=True)
    try:
        site = build_site()
        site.hub.add(GetBitWebTable(table))
        client = joined(site)
        assert state(client)["secret"]
        refused = act(client, {"type": "choose", "robot": "ann", "card": 9})
        assert refused.text.strip() == "card: ann cannot play that card: choose again"
        for robot, card in (("ann", 3), ("bob", 1), ("cat", 2)):
            assert act(client, {"type": "choose", "robot": robot, "card": card}).status_code == 200
        s = state(client)
        assert [r["chosen"] for r in s["robots"]] == [True, True, True, False]
        assert "3" not in str(s["last"]) and s["round"] == 1  # nothing revealed yet
        act(client, {"type": "unchoose", "robot": "bob"})
        act(client, {"type": "choose", "robot": "bob", "card": 4})
        act(client, {"type": "choose", "robot": "dan", "card": 5})
        s = state(client)
        assert s["round"] == 2 and s["last"]["cards"] == {"ann": 3, "bob": 4, "cat": 2, "dan": 5}
        assert not any(r["chosen"] for r in s["robots"])
    finally:
        table.close()


def test_a_round_played_at_the_terminal_reaches_the_pages(tmp_path: Path) -> None:
    table = open_table(tmp_path)
    page = GetBitWebTable(table)
    site = build_site()
    site.hub.add(page)
    page.serve(site.hub.publish)
    try:
        table.play({"ann": 1, "bob": 2, "cat": 3, "dan": 4})  # as the terminal face does
        deadline = time.monotonic() + 10  # only a hang fails: a loaded CI machine is slow
        while site.hub.snapshot("getbit").version == 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert site.hub.snapshot("getbit").state["round"] == 2
    finally:
        page.close()
        table.close()


def test_unknown_actions_and_robots_name_the_field(
    served: tuple[TestClient, GetBitTable],
) -> None:
    client, _ = served
    assert act(client, {"type": "bite"}).text.strip().startswith("type: 'bite': Get Bit! takes")
    assert act(client, {"type": "choose", "robot": "zed", "card": 1}).text.strip() == (
        "robot: 'zed' is not a robot of this game"
    )
