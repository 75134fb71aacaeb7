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


def seated(site: Site) -> dict[str, TestClient]:
    """One page per player, each holding the join code and claiming its player's seat."""
    pages = {}
    for player in PLAYERS:
        page = joined(site)
        claim = page.post("/api/tables/getbit/seat", json={"seat": player}, headers=ORIGIN)
        assert claim.status_code == 200, claim.text
        pages[player] = page
    return pages


def test_secret_choices_are_hidden_until_every_robot_has_one(tmp_path: Path) -> None:
    table = open_table(tmp_path, secret=True)
    try:
        site = build_site()
        site.hub.add(GetBitWebTable(table))
        pages = seated(site)
        assert state(pages["ann"])["secret"]
        refused = act(pages["ann"], {"type": "choose", "robot": "ann", "card": 9})
        assert refused.text.strip() == "card: ann cannot play that card: choose again"
        for robot, card in (("ann", 3), ("bob", 1), ("cat", 2)):
            chose = act(pages[robot], {"type": "choose", "robot": robot, "card": card})
            assert chose.status_code == 200
        s = state(pages["ann"])
        assert [r["chosen"] for r in s["robots"]] == [True, True, True, False]
        assert "3" not in str(s["last"]) and s["round"] == 1  # nothing revealed yet
        act(pages["bob"], {"type": "unchoose", "robot": "bob"})
        act(pages["bob"], {"type": "choose", "robot": "bob", "card": 4})
        act(pages["dan"], {"type": "choose", "robot": "dan", "card": 5})
        s = state(pages["ann"])
        assert s["round"] == 2 and s["last"]["cards"] == {"ann": 3, "bob": 4, "cat": 2, "dan": 5}
        assert not any(r["chosen"] for r in s["robots"])
    finally:
        table.close()


def test_a_secret_choice_is_only_its_seats_page_to_set_or_withdraw(tmp_path: Path) -> None:
    """Issue 23: any code holder could overwrite or withdraw another robot's choice and
    play the round; now only the page that claimed the player acts for its robots."""
    table = open_table(tmp_path, secret=True)
    try:
        site = build_site()
        site.hub.add(GetBitWebTable(table))
        pages = seated(site)
        assert act(pages["ann"], {"type": "choose", "robot": "ann", "card": 3}).status_code == 200
        for action in (
            {"type": "choose", "robot": "ann", "card": 1},
            {"type": "unchoose", "robot": "ann"},
        ):
            other = act(pages["bob"], action)
            assert other.status_code == 403
            assert other.text == "seat: ann is claimed by another page: only it acts for ann\n"
        stranger = joined(site)  # holds the code, claimed nothing
        unseated = act(stranger, {"type": "choose", "robot": "cat", "card": 1})
        assert unseated.status_code == 403 and unseated.text.startswith("seat: cat is claimed")
        whole = act(stranger, {"type": "play", "cards": {p: 5 for p in PLAYERS}})
        assert whole.status_code == 400 and whole.text.startswith("type: a secret round is")
        undo = act(stranger, {"type": "undo"})
        assert undo.status_code == 400 and undo.text.startswith("type: ann chose secretly")
        taken = stranger.post("/api/tables/getbit/seat", json={"seat": "ann"}, headers=ORIGIN)
        assert taken.status_code == 403 and taken.text == "seat: ann is claimed by another page\n"
        assert table.session.state.rounds == 0 and site.hub.table("getbit").chosen == {"ann": 3}  # type: ignore[attr-defined]
    finally:
        table.close()


def test_a_claimed_seat_is_shown_to_its_page_kept_on_reload_and_given_back(
    tmp_path: Path,
) -> None:
    table = open_table(tmp_path, secret=True)
    try:
        site = build_site()
        site.hub.add(GetBitWebTable(table))
        page = joined(site)
        assert page.get("/api/me").json()["seats"] == {}
        unclaimed = act(page, {"type": "choose", "robot": "cat", "card": 1})
        assert unclaimed.text == "seat: cat is not claimed: claim it on this page first\n"
        assert site.hub.snapshot("getbit").to_dict()["claimed"] == []
        claim = page.post("/api/tables/getbit/seat", json={"seat": "cat"}, headers=ORIGIN)
        assert claim.json()["claimed"] == ["cat"]
        assert page.get("/").status_code == 200  # a reload keeps the page's cookie
        assert page.get("/api/me").json()["seats"] == {"getbit": "cat"}
        other = joined(site)
        assert other.get("/api/me").json()["seats"] == {}
        moved = page.post("/api/tables/getbit/seat", json={"seat": "dan"}, headers=ORIGIN)
        assert moved.json()["claimed"] == ["dan"]  # one seat per page and table
        page.post("/api/tables/getbit/seat", json={"seat": None}, headers=ORIGIN)
        assert page.get("/api/me").json()["seats"] == {}
        bad = page.post("/api/tables/getbit/seat", json={"seat": "zed"}, headers=ORIGIN)
        assert bad.status_code == 400 and bad.text.startswith("seat: 'zed' is not a seat (ann,")
        land = page.post("/api/tables/land/seat", json={"seat": "x"}, headers=ORIGIN)
        assert land.text == "seat: the land table has no seats to claim\n"
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
