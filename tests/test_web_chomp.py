"""CHOMP! on the phones (companion/tables/chomp/web.py) on Starlette's test client.

The table runs on mock pins with the daemon pumped by the test (as docs/api.md does), so
every step is deterministic: a start and the cards come from the page, slaps from the
pins, and the page's state, the LEDs and the journal's audit must agree.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.chomp import Mode, TwoPlayerEnd
from companion.referee.audit import audit
from companion.referee.core import RefereeStep
from companion.referee.journal import read_journal
from companion.referee.picture import PHONE_WIDTH, round_svg
from companion.tables.chomp.config import ChompConfig, PlayerConfig
from companion.tables.chomp.demo import open_demo
from companion.tables.chomp.session import ChompSession, open_chomp_session
from companion.tables.chomp.web import ChompWebTable
from companion.tables.web.hub import Hub, Publisher

pytest.importorskip("starlette", reason="the web extra is not installed")

from starlette.testclient import TestClient  # noqa: E402

from companion.tables.web.app import create_app  # noqa: E402
from companion.tables.web.serve import build_site  # noqa: E402

ORIGIN = {"origin": "http://testserver"}
BUTTONS = {"ann": 17, "bob": 27, "cat": 22}


def table_config(folder: Path) -> ChompConfig:
    from companion.devices.wiring import LedConfig, LedKind

    leds = {"ann": 5, "bob": 6, "cat": 13}
    return ChompConfig(
        players=tuple(
            PlayerConfig(p, b, LedConfig(LedKind.PLAIN, (leds[p],))) for p, b in BUTTONS.items()
        ),
        countdown_beeps=0,
        journal=folder / "game.jsonl",
    )


@pytest.fixture()
def session(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[ChompSession]:
    """A table; a test may set its round timeout in seconds (indirect parametrization),
    so that waiting for a round to time out is not waiting the default 10 s."""
    config = table_config(tmp_path)
    timeout = getattr(request, "param", None)
    if timeout is not None:
        config = dataclasses.replace(config, round_timeout_s=timeout)
    opened = open_chomp_session(config, new=True, pin_factory="mock")
    yield opened
    opened.close()


@pytest.fixture()
def phone(session: ChompSession) -> Iterator[tuple[TestClient, ChompWebTable]]:
    site = build_site()
    site.code = "joincode"
    table = ChompWebTable(session)
    site.hub.add(table)

    def publish() -> None:
        site.hub.publish(table.name)

    table.follow(publish)  # on the loop's thread: tests pump
    client = TestClient(create_app(site))
    client.get("/?code=joincode", follow_redirects=False)
    yield client, table


def act(client: TestClient, action: dict[str, Any]) -> Any:
    return client.post("/api/tables/chomp/actions", json=action, headers=ORIGIN)


def claim(client: TestClient, seat: str | None) -> Any:
    return client.post("/api/tables/chomp/seat", json={"seat": seat}, headers=ORIGIN)


def settle(session: ChompSession) -> None:
    """Past the tie window and the settle margin, then let the loop decide."""
    time.sleep(0.05)
    session.daemon.pump()


def test_the_scoreboard_shows_counts_pot_and_who_is_out(
    phone: tuple[TestClient, ChompWebTable],
) -> None:
    client, _ = phone
    state = client.get("/api/tables/chomp").json()["state"]
    assert [(p["name"], p["count"], p["out"], p["led"]) for p in state["players"]] == [
        ("ann", 16, False, 0.0),
        ("bob", 16, False, 0.0),
        ("cat", 16, False, 0.0),
    ]
    assert state["pot"] == 0 and state["phase"] == "ready" and not state["over"]
    assert state["verdict"] is None and state["rounds"] == []
    assert not state["simulated"]


def test_a_round_from_the_page_start_cards_slap_verdict_and_its_picture(
    phone: tuple[TestClient, ChompWebTable], session: ChompSession
) -> None:
    client, _ = phone
    assert act(client, {"type": "start"}).status_code == 200
    session.daemon.pump()
    state = client.get("/api/tables/chomp").json()["state"]
    assert state["waiting_for_cards"] and state["hand_sizes"] == {"ann": 1, "bob": 1, "cat": 1}
    session.pin(BUTTONS["bob"]).drive_low()  # bob slaps on the pins
    session.pin(BUTTONS["bob"]).drive_high()
    cards = {"ann": ["seal"], "bob": ["shark"], "cat": ["plankton"]}
    assert act(client, {"type": "cards", "cards": cards}).status_code == 200
    settle(session)
    state = client.get("/api/tables/chomp").json()["state"]
    verdict = state["verdict"]
    assert verdict["n"] == 1 and verdict["headline"] == "bob wins (first valid slap)."
    # The page, the LED pins and the journal's audit tell the same story.
    bob = next(p for p in state["players"] if p["name"] == "bob")
    assert bob["led"] == session.led_level("bob") == 1.0
    assert [p["count"] for p in state["players"]] == [15, 18, 15]
    journal = read_journal(session.config.journal)
    audited = audit(journal.entries)[0]
    sources = journal.start.get("sources", [])
    assert verdict["svg"] == round_svg(audited, sources, width=PHONE_WIDTH)
    assert 'class="winner"' in verdict["svg"]
    past = client.get("/api/tables/chomp/files/round-1.svg")
    assert past.status_code == 200 and past.headers["content-type"].startswith("image/svg")
    assert past.text == verdict["svg"]


def test_cards_are_checked_seat_by_seat_naming_the_place(
    phone: tuple[TestClient, ChompWebTable], session: ChompSession
) -> None:
    client, _ = phone
    early = act(client, {"type": "cards", "cards": {}})
    assert early.status_code == 400
    assert early.text.strip() == "cards: no round is waiting for its cards"
    act(client, {"type": "start"})
    session.daemon.pump()
    short = act(client, {"type": "cards", "cards": {"ann": ["seal"], "bob": ["shark"]}})
    assert short.text.strip() == "cards.cat: cat shows 1 card"
    wrong = {"ann": ["seal"], "bob": ["unicorn"], "cat": ["seal"]}
    assert act(client, {"type": "cards", "cards": wrong}).text.strip() == (
        "cards.bob[0]: 'unicorn' is not a creature"
    )
    extra = {"ann": ["seal"], "bob": ["seal"], "cat": ["seal"], "dan": ["seal"]}
    assert act(client, {"type": "cards", "cards": extra}).text.strip() == (
        "cards.dan: not a seat in play this round"
    )
    again = act(client, {"type": "start"})
    assert again.status_code == 400 and "already under way" in again.text


def test_slaps_from_the_page_only_on_the_simulated_table(
    phone: tuple[TestClient, ChompWebTable],
) -> None:
    client, _ = phone
    refused = act(client, {"type": "slap", "player": "ann"})
    assert refused.text.strip() == "type: slaps come from the buttons at a real table"
    assert act(client, {"type": "deal"}).status_code == 400


def test_a_watcher_cannot_start_a_round(session: ChompSession) -> None:
    site = build_site()
    site.hub.add(ChompWebTable(session))
    watcher = TestClient(create_app(site))
    refused = watcher.post("/api/tables/chomp/actions", json={"type": "start"}, headers=ORIGIN)
    assert refused.status_code == 403 and refused.text.startswith("code:")
    assert session.daemon.inbox.empty()


def test_past_rounds_pictures_name_a_decided_round(
    phone: tuple[TestClient, ChompWebTable],
) -> None:
    client, _ = phone
    assert client.get("/api/tables/chomp/files/round-3.svg").text.strip() == (
        "round: no decided round 3 in this game's journal"
    )
    assert client.get("/api/tables/chomp/files/passwd").status_code == 400
    assert client.get("/api/tables/land/files/x.svg").status_code == 404


def test_the_demo_is_playable_from_the_page_and_its_deck_hook_still_runs(
    tmp_path: Path,
) -> None:
    session, simulated = open_demo(
        ["you", "shelly"], [], Mode.QUICK_CHOMP, TwoPlayerEnd.COUNT, seed=3,
        journal=tmp_path / "demo.jsonl", short_waits=True,
    )  # fmt: skip
    try:
        site = build_site()
        site.code = "c"
        table = ChompWebTable(session, simulated.press)
        site.hub.add(table)
        table.follow(lambda: None)  # chained after the demo's deck
        client = TestClient(create_app(site))
        client.get("/?code=c", follow_redirects=False)
        assert client.get("/api/tables/chomp").json()["state"]["simulated"]
        act(client, {"type": "start"})
        deadline = time.monotonic() + 10  # only a hang fails: a loaded CI machine is slow
        while not simulated.cards and time.monotonic() < deadline:
            session.daemon.pump()  # the countdown beeps, then the deck turns the cards
            time.sleep(0.01)
        assert simulated.cards, "the demo's own hook no longer ran"
        assert claim(client, "shelly").status_code == 200  # this is me: shelly's page
        assert act(client, {"type": "slap", "player": "shelly"}).status_code == 200
        assert act(client, {"type": "slap", "player": "nobody"}).status_code == 400
        deadline = time.monotonic() + 10  # only a hang fails: a loaded CI machine is slow
        while not table.state()["rounds"] and time.monotonic() < deadline:
            session.daemon.pump()
            time.sleep(0.01)
        journal = read_journal(session.config.journal)
        presses = [e for e in journal.entries if e["type"] == "edge" and e["pressed"]]
        assert [e["player"] for e in presses] == ["shelly"]
        assert table.state()["rounds"][0]["n"] == 1
        # New game: the demo's deck is dealt again for it, and its next round plays.
        assert act(client, {"type": "new_game"}).status_code == 200
        assert simulated.table.game is session.referee.game and not simulated.cards
        assert table.state()["rounds"] == [] and table.game_id() == "2"
        act(client, {"type": "start"})
        deadline = time.monotonic() + 10  # only a hang fails: a loaded CI machine is slow
        while not simulated.cards and time.monotonic() < deadline:
            session.daemon.pump()
            time.sleep(0.01)
        assert simulated.cards, "the new game's deck turned no cards"
    finally:
        simulated.close()
        session.close()


def test_the_loop_only_pokes_the_publisher_which_publishes_on_its_own_thread(
    session: ChompSession,
) -> None:
    hub = Hub()
    table = ChompWebTable(session)
    hub.add(table)
    threads: list[str] = []
    published = threading.Event()

    def publish(name: str) -> object:
        threads.append(threading.current_thread().name)
        published.set()
        return hub.publish(name)

    table.serve(publish)
    try:
        hook = session.daemon.on_step
        assert hook is not None
        hook(RefereeStep(messages=["hello"]))  # what the loop calls after a step
        assert published.wait(10)
        assert threads == ["web-publisher"] and hub.snapshot("chomp").version == 2
        assert hub.snapshot("chomp").state["messages"][-1] == "hello"
    finally:
        table.close()
    assert not table.publisher or not table.publisher.thread.is_alive()


def test_a_failing_publish_does_not_stop_the_publisher() -> None:
    calls: list[int] = []

    def flaky() -> None:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("a page went away")

    publisher = Publisher(flaky)
    publisher.poke()
    deadline = time.monotonic() + 10  # only a hang fails: a loaded CI machine is slow
    while len(calls) < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    publisher.poke()
    while len(calls) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    publisher.stop()
    assert len(calls) == 2


@pytest.mark.slow
def test_web_option_takes_host_and_port() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "companion", "demo", "--web", "host:port"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        "companion: --web: 'host:port': write [HOST:]PORT, a port number up to 65535"
    )


@pytest.mark.slow
def test_bench_web_measures_every_page_and_the_led_with_and_without_them() -> None:
    from companion.tables.web.bench import bench_web

    report = bench_web(trials=8, clients=2, seed=3, blocks=2)
    assert report["trials"] == 8 and report["clients"] == 2
    to = report["verdict_to_clients_us"]
    assert 0 < to["p50"] <= to["p99"]  # after the LED, never before it
    tap = report["tap_to_other_phones_us"]  # the cards tapped on one page, seen on the other
    assert 0 < tap["p50"] <= tap["p99"] and report["goals"]["tap_to_other_phones_us_p99"]
    for side in ("with_clients", "without_clients"):
        led = report["decision_to_led_us"][side]
        assert 0 < led["p50"] <= led["p99"]
    assert report["load"]["cpus"] >= 1 and len(report["load"]["loadavg_before"]) == 3


def test_a_press_alone_does_not_publish_so_nothing_runs_before_the_decision(
    session: ChompSession,
) -> None:
    table = ChompWebTable(session)
    pokes: list[int] = []
    table.follow(lambda: pokes.append(1))
    hook = session.daemon.on_step
    assert hook is not None
    edge = {"type": "edge", "player": "ann", "pressed": True}
    hook(RefereeStep(journal=[edge]))  # type: ignore[list-item]
    assert pokes == [] and table.entries[-1] == edge  # kept for the pictures all the same
    hook(RefereeStep(messages=["cards refused"]))
    assert pokes == [1]


def test_publishing_waits_for_a_decision_due_within_the_hold(session: ChompSession) -> None:
    table = ChompWebTable(session)
    now = session.daemon.clock.now_ns()
    referee = session.daemon.referee
    original = referee.next_deadline
    try:
        referee.next_deadline = lambda: now + 10_000_000  # type: ignore[method-assign]
        assert 0.005 < table._hold() < 0.013
        referee.next_deadline = lambda: now + 2_000_000_000  # type: ignore[method-assign]
        assert table._hold() == 0.0
    finally:
        referee.next_deadline = original  # type: ignore[method-assign]
    assert table._hold() == 0.0  # nothing due between rounds


@pytest.mark.slow
def test_companion_referee_web_serves_the_table_it_referees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The whole command: a round played in the line mode shows on the page, with the
    address and join code on the error output and the table's screen."""
    import json
    import os
    import re
    import urllib.request

    from companion.cli import main

    config = tmp_path / "table.toml"
    config.write_text(
        "[referee]\ncountdown_beeps = 1\ncountdown_interval_ms = 100\nend_ms = 200\n"
        f'round_timeout_s = 1\njournal = "{tmp_path / "game.jsonl"}"\n'
        + "".join(f'[[players]]\nname = "{p}"\nbutton = {b}\n' for p, b in BUTTONS.items()),
        encoding="utf-8",
    )
    monkeypatch.setattr(os, "geteuid", lambda: 1000)  # CI runs as root; the Pi does not
    seen: list[dict[str, Any]] = []
    printed: list[Any] = []

    def typed() -> Iterator[str]:
        yield from ("start\n", "wait 0.4\n", "cards ann=plankton bob=seal cat=shark\n")
        yield "wait 1.5\n"
        printed.append(capsys.readouterr())
        url = re.search(r"open (http://127\.0\.0\.1:\d+/) on a phone", printed[0].err)
        assert url is not None
        with urllib.request.urlopen(f"{url[1]}api/tables/chomp") as response:
            seen.append(json.loads(response.read())["state"])
        yield "quit\n"

    class Terminal:
        lines = typed()

        def isatty(self) -> bool:
            return False

        def __iter__(self) -> Iterator[str]:
            return self.lines

    monkeypatch.setattr(sys, "stdin", Terminal())
    argv = ["referee", "--config", str(config), "--pin-factory", "mock", "--new"]
    assert main([*argv, "--web", "127.0.0.1:0"]) == 0
    (state,) = seen
    assert state["rounds"][0]["n"] == 1 and state["verdict"]["headline"].startswith("No winner")
    assert re.search(r"^web: http://127\.0\.0\.1:\d+/ join code \w{8}$", printed[0].err, re.M)
    assert "Round 1: No winner" in printed[0].out  # the table's own line mode, as before


def test_web_refuses_root_before_the_table_opens_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    from companion.cli import main

    monkeypatch.setattr(os, "geteuid", lambda: 0)
    save = tmp_path / "chips.json"
    assert main(["chips", "--players", "ann,bob", "--save", str(save), "--web"]) == 2
    assert capsys.readouterr().err.startswith("companion: the web server does not run as root")
    assert not save.exists()  # refused before the game was saved


def play_round_bob_wins_cat_bad_chomps(client: TestClient, session: ChompSession) -> None:
    act(client, {"type": "start"})
    session.daemon.pump()
    for player in ("cat", "bob"):  # cat's plankton is the lowest card; bob's shark chomps
        session.pin(BUTTONS[player]).drive_low()
        session.pin(BUTTONS[player]).drive_high()
        time.sleep(0.002)
    cards = {"ann": ["seal"], "bob": ["shark"], "cat": ["plankton"]}
    assert act(client, {"type": "cards", "cards": cards}).status_code == 200
    settle(session)


def test_every_seats_revealed_card_and_the_terminals_round_label_are_in_the_state(
    phone: tuple[TestClient, ChompWebTable], session: ChompSession
) -> None:
    client, _ = phone
    state = client.get("/api/tables/chomp").json()["state"]
    assert state["round_label"] == "Round 1 next"  # the terminal's words, not "Round 0"
    assert state["shown"] == {}
    play_round_bob_wins_cat_bad_chomps(client, session)
    state = client.get("/api/tables/chomp").json()["state"]
    assert state["shown"] == {"ann": ["seal"], "bob": ["shark"], "cat": ["plankton"]}
    assert state["round_label"] == "Round 2 next"


def test_the_verdict_carries_the_terminals_lines_the_winner_and_each_press_feedback(
    phone: tuple[TestClient, ChompWebTable], session: ChompSession
) -> None:
    from companion.games.chomp.text import round_lines
    from companion.tables.chomp.screen import TableView

    client, _ = phone
    terminal = TableView(session.daemon)
    session.daemon.on_result = terminal.on_result  # what the terminal prints for a verdict
    play_round_bob_wins_cat_bad_chomps(client, session)
    verdict = client.get("/api/tables/chomp").json()["state"]["verdict"]
    assert verdict["lines"] == terminal.last
    assert verdict["lines"][0] == "Round 1: bob wins (first valid slap)."
    assert any("bad chomps" in line and "cat" in line for line in verdict["lines"])
    audited = audit(read_journal(session.config.journal).entries)[0]
    assert verdict["lines"] == round_lines(1, audited.verdict)
    assert verdict["winner"] == "bob"
    words = {p["player"]: p["word"] for p in verdict["presses"]}
    assert words == {"bob": "counted", "cat": "bad chomp"}
    bob = next(p for p in verdict["presses"] if p["player"] == "bob")
    assert bob["text"].startswith("counted: first")


def test_press_feedback_names_counted_too_late_bad_chomp_and_false_start() -> None:
    from companion.referee.audit import PressRow
    from companion.tables.chomp.web import press_feedback

    won = press_feedback(PressRow("ann", 200_000, "gpio", "winner", 0, 12_300))
    assert (won["word"], won["lead_us"], won["text"]) == (
        "counted",
        12_300,
        "counted: first by 12.3 ms",
    )
    late = press_feedback(PressRow("bob", 212_300, "gpio", "ignored: after the decision", 12_300))
    assert (late["word"], late["lead_us"]) == ("too late", -12_300)
    assert late["text"] == "too late: 12.3 ms after the first"
    alone = PressRow("ann", 200_000, "gpio", "winner")  # no other valid slap: any next press
    assert press_feedback(alone)["text"] == "counted: first: nobody else pressed"
    bad_after = PressRow("bob", 230_000, "gpio", "bad chomp")
    assert press_feedback(alone, [alone, bad_after])["text"] == "counted: first by 30.0 ms"
    tie = press_feedback(PressRow("cat", 200_400, "gpio", "tie", 400))
    window = "(inside the tie window)"
    assert (
        tie["word"] == "counted"
        and tie["text"] == f"counted: a tie, 0.4 ms after the first {window}"
    )
    first = PressRow("ann", 200_000, "gpio", "tie", 0)
    assert press_feedback(first, [first, PressRow("cat", 200_400, "gpio", "tie", 400)])["text"] == (
        f"counted: a tie, first by 0.4 ms {window}"
    )
    bad = press_feedback(PressRow("dan", 150_000, "gpio", "bad chomp"))
    assert bad["text"] == "bad chomp: 150.0 ms after the reveal"
    early = press_feedback(PressRow("eve", -50_000, "gpio", "bad chomp: false start"))
    assert early["text"] == "false start: 50.0 ms before the reveal"


@pytest.mark.parametrize("session", [0.5], indirect=True, ids=["timeout_0.5s"])
def test_a_no_winner_round_has_no_winner_to_show(
    phone: tuple[TestClient, ChompWebTable], session: ChompSession
) -> None:
    client, _ = phone
    act(client, {"type": "start"})
    session.daemon.pump()
    cards = {"ann": ["seal"], "bob": ["shark"], "cat": ["plankton"]}
    act(client, {"type": "cards", "cards": cards})
    deadline = time.monotonic() + 15  # only a hang fails: the round times out on its own
    while not client.get("/api/tables/chomp").json()["state"]["verdict"]:
        assert time.monotonic() < deadline
        time.sleep(0.05)
        session.daemon.pump()
    verdict = client.get("/api/tables/chomp").json()["state"]["verdict"]
    assert verdict["winner"] is None and verdict["presses"] == []
    assert verdict["lines"][0].startswith("Round 1: No winner")


def test_the_seats_are_the_players_and_a_demo_slap_needs_its_seat_claimed(
    tmp_path: Path,
) -> None:
    session, simulated = open_demo(
        ["you", "shelly"], ["shelly"], Mode.QUICK_CHOMP, TwoPlayerEnd.COUNT, seed=3,
        journal=tmp_path / "demo.jsonl", short_waits=True,
    )  # fmt: skip
    try:
        site = build_site()
        site.code = "c"
        table = ChompWebTable(session, simulated.press)
        site.hub.add(table)
        assert table.seats() == ["you", "shelly"]
        mine, other = TestClient(create_app(site)), TestClient(create_app(site))
        for client in (mine, other):
            client.get("/?code=c", follow_redirects=False)
        unclaimed = act(mine, {"type": "slap", "player": "you"})
        assert unclaimed.status_code == 403 and "claim it" in unclaimed.text
        assert claim(mine, "you").status_code == 200
        assert mine.get("/api/me").json()["seats"] == {"chomp": "you"}
        assert claim(other, "you").status_code == 403  # one page per seat
        assert act(other, {"type": "slap", "player": "you"}).status_code == 403
        assert act(mine, {"type": "slap", "player": "you"}).status_code == 200
        snap = mine.get("/api/tables/chomp").json()
        assert snap["claimed"] == ["you"]
    finally:
        simulated.close()
        session.close()


STATUSES = [
    "winner", "tie", "bad chomp", "bad chomp: false start", "ignored: after the decision",
    "ignored: the winner needed no slap", "not counted: between rounds",
]  # fmt: skip


@settings(max_examples=examples(300), deadline=None)
@given(
    status=st.sampled_from(STATUSES),
    t_us=st.integers(-2_000_000, 10_000_000),
    vs_first=st.none() | st.integers(0, 10_000_000),
    margin=st.none() | st.integers(0, 10_000_000),
    others=st.lists(st.integers(-2_000_000, 10_000_000), max_size=4),
)
def test_every_press_gets_one_of_the_words_and_a_sentence_that_starts_with_it(
    status: str, t_us: int, vs_first: int | None, margin: int | None, others: list[int]
) -> None:
    from companion.referee.audit import PressRow
    from companion.tables.chomp.web import press_feedback

    press = PressRow("ann", t_us, "gpio", status, vs_first, margin)
    rest = [PressRow(f"p{i}", t, "gpio", "bad chomp") for i, t in enumerate(others)]
    said = press_feedback(press, [press, *rest])
    assert said["word"] in ("counted", "too late", "bad chomp", "false start", "not needed")
    assert said["text"].startswith(said["word"] + ": ")
    if said["word"] == "counted" and status == "winner" and said["lead_us"] is not None:
        assert said["lead_us"] >= 0 and said["text"].endswith(" ms")
    if said["word"] == "false start":
        assert t_us < 0


def test_new_game_from_the_page_keeps_the_old_journal_and_starts_at_round_one(
    phone: tuple[TestClient, ChompWebTable], session: ChompSession
) -> None:
    """The holder's New game (the page asked first): between rounds only; the same seats,
    a fresh journal, the game so far kept aside under a dated name, and the pages told by
    a new game id."""
    client, table = phone
    assert act(client, {"type": "start"}).status_code == 200
    session.daemon.pump()
    during = act(client, {"type": "new_game"})
    assert during.status_code == 400 and "a round is under way" in during.text
    session.pin(BUTTONS["bob"]).drive_low()
    session.pin(BUTTONS["bob"]).drive_high()
    act(
        client, {"type": "cards", "cards": {"ann": ["seal"], "bob": ["shark"], "cat": ["plankton"]}}
    )
    settle(session)
    before = client.get("/api/tables/chomp").json()
    assert before["state"]["verdict"]["n"] == 1 and before["game"] == "1"
    folder = session.config.journal.parent
    assert act(client, {"type": "new_game"}).status_code == 200
    after = client.get("/api/tables/chomp").json()
    assert after["game"] == "2" and after["state"]["verdict"] is None
    assert [p["count"] for p in after["state"]["players"]] == [16, 16, 16]
    kept = [p for p in folder.iterdir() if p.name.startswith("game.") and p.name != "game.jsonl"]
    assert len(kept) == 1, sorted(p.name for p in folder.iterdir())
    old = read_journal(kept[0]).entries
    assert [e["type"] for e in old].count("verdict") == 1  # the game so far, whole
    fresh = read_journal(session.config.journal).entries
    assert [e["type"] for e in fresh] == ["start"]
    assert session.daemon.referee is session.referee and session.referee.rounds_played == 0
    # The new game plays on: a round from the page again, judged in the new journal.
    assert act(client, {"type": "start"}).status_code == 200
    session.daemon.pump()
    assert client.get("/api/tables/chomp").json()["state"]["waiting_for_cards"]
    assert table.game_id() == "2"


def test_a_watcher_cannot_start_a_new_game(session: ChompSession) -> None:
    site = build_site()
    site.hub.add(ChompWebTable(session))
    watcher = TestClient(create_app(site))
    refused = watcher.post("/api/tables/chomp/actions", json={"type": "new_game"}, headers=ORIGIN)
    assert refused.status_code == 403 and refused.text.startswith("code:")
    assert [e["type"] for e in read_journal(session.config.journal).entries] == ["start"]
