"""The live tables in a real browser: CHOMP! refereed on mock pins, Get Bit!, Chips.

Same chromium and helpers as tests/test_web_browser.py (imported from it, so the same
skip applies). The tables run for real: the referee's own loop on its thread with the
pins driven by the test, the cards tapped on a phone, a tablet watching the scoreboard.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_web_browser import OPEN, TABLET, browser, phone, shots  # noqa: F401

from companion.devices.wiring import LedConfig, LedKind
from companion.games.chips import ChipsTable
from companion.games.chomp import Mode, TwoPlayerEnd
from companion.games.getbit import Setup, default_robots
from companion.referee.journal import read_journal
from companion.tables.chips.session import ChipsHelper
from companion.tables.chips.web import ChipsWebTable
from companion.tables.chomp.config import ChompConfig, PlayerConfig
from companion.tables.chomp.demo import open_demo
from companion.tables.chomp.session import ChompSession, open_chomp_session
from companion.tables.chomp.web import ChompWebTable
from companion.tables.getbit.session import open_getbit_table
from companion.tables.getbit.table import GetBitTable
from companion.tables.getbit.web import GetBitWebTable
from companion.tables.web.app import Site
from companion.tables.web.serve import build_site, start

pytestmark = [pytest.mark.browser, pytest.mark.slow]

BUTTONS = {"ann": 17, "bob": 27, "cat": 22}
LEDS = {"ann": 5, "bob": 6, "cat": 13}


class Served:
    """A live table on a real server, with the referee's loop on its own thread."""

    def __init__(self, tables: list[Any], loops: list[Any]) -> None:
        self.site: Site = build_site()
        for table in tables:
            self.site.hub.add(table)
        self.running = start(self.site, "127.0.0.1", 0, refuse_root=False)
        self.url = f"http://127.0.0.1:{self.running.port}"
        self.tables = tables
        for table in tables:
            table.serve(self.site.hub.publish)
        self.stop = threading.Event()
        self.loops = [threading.Thread(target=run, args=(self.stop,), daemon=True) for run in loops]
        for loop in self.loops:
            loop.start()

    def close(self) -> None:
        while OPEN:
            OPEN.pop().close()
        self.running.stop()
        for table in self.tables:
            table.close()
        self.stop.set()
        for loop in self.loops:
            loop.join(5)


@pytest.fixture()
def chomp_table(tmp_path: Path) -> Iterator[tuple[Served, ChompSession]]:
    config = ChompConfig(
        players=tuple(
            PlayerConfig(p, b, LedConfig(LedKind.PLAIN, (LEDS[p],))) for p, b in BUTTONS.items()
        ),
        countdown_beeps=1,
        countdown_interval_ms=100,
        end_ms=4000,  # the winner's LED stays lit while the page is checked
        journal=tmp_path / "game.jsonl",
    )
    session = open_chomp_session(config, new=True, pin_factory="mock")
    served = Served([ChompWebTable(session)], [session.daemon.run])
    yield served, session
    served.close()
    session.close()


def slap(session: ChompSession, player: str) -> None:
    pin = session.pin(BUTTONS[player])
    pin.drive_low()
    pin.drive_high()


def tap_cards(page: Any, creatures: list[str]) -> None:
    for creature in creatures:
        page.click(f'#chomp-creatures [data-creature="{creature}"]')


def test_chomp_refereed_on_the_pins_with_cards_tapped_and_every_verdict_drawn(
    browser: Any,  # noqa: F811
    chomp_table: tuple[Served, ChompSession],
    shots: Path,  # noqa: F811
) -> None:
    served, session = chomp_table
    page = phone(browser, served.url, served.site.code)
    tablet = phone(browser, served.url, None, TABLET)
    tablet.goto(f"{served.url}/#board")  # the scoreboard alone, in big type
    tablet.wait_for_selector('.seat[data-seat="ann"]')
    assert page.inner_text("nav a.on") == "CHOMP!"  # a live table's tab comes first
    page.click("#chomp-start")
    page.wait_for_selector("#chomp-entry:not([hidden])")
    slap(session, "bob")  # on the pins, as a hand would
    tap_cards(page, ["seal", "shark", "seal"])  # a wrong card for cat ...
    assert page.is_disabled('#chomp-creatures [data-creature="octopus"]')  # every seat has one
    page.click("#chomp-undo")  # ... taken back
    tap_cards(page, ["plankton"])
    assert page.inner_text("#chomp-picked") == "ann: seal\nbob: shark\ncat: plankton"
    page.screenshot(path=str(shots / "chomp-cards-phone.png"), full_page=True)
    page.click("#chomp-confirm")
    page.wait_for_selector("#chomp-picture svg .winner")
    assert page.inner_text("#chomp-verdict .total") == "Round 1: bob wins (first valid slap)."
    # The scoreboard, the LED pins and the round's picture agree, on every screen.
    for screen in (page, tablet):
        screen.wait_for_selector('.seat[data-seat="bob"] .led.on')
        assert screen.inner_text('.seat[data-seat="bob"] .count') == "18"
        assert screen.inner_text('.seat[data-seat="ann"] .count') == "15"
    assert session.led_level("bob") == 1.0 and session.led_level("ann") == 0.0
    marks = page.eval_on_selector_all("#chomp-picture svg .winner", "ms => ms.length")
    assert marks == 1
    page.screenshot(path=str(shots / "chomp-phone.png"), full_page=True)
    tablet.screenshot(path=str(shots / "chomp-tablet.png"), full_page=True)
    # Round 2, once the LED is out; then round 1's picture again, from the journal.
    page.wait_for_selector("#chomp-start:not([disabled])", timeout=10_000)
    page.click("#chomp-start")
    page.wait_for_selector("#chomp-entry:not([hidden])")
    slap(session, "cat")
    tap_cards(page, ["shark", "seal", "shark"])
    page.click("#chomp-confirm")
    page.wait_for_function(
        "document.querySelector('#chomp-verdict .total')?.textContent.startsWith('Round 2')"
    )
    page.select_option("#chomp-rounds", "1")
    page.wait_for_function("document.querySelector('#chomp-past').naturalWidth > 0")
    entries = read_journal(session.config.journal).entries
    assert [e["n"] for e in entries if e["type"] == "verdict"] == [1, 2]


def test_the_demo_is_played_from_the_page_by_a_seat_it_claims(
    browser: Any,  # noqa: F811
    tmp_path: Path,
    shots: Path,  # noqa: F811
) -> None:
    session, simulated = open_demo(
        ["you", "shelly", "finn"], [], Mode.STANDARD, TwoPlayerEnd.COUNT, seed=5,
        journal=tmp_path / "demo.jsonl",
    )  # fmt: skip
    served = Served([ChompWebTable(session, simulated.press)], [session.daemon.run])
    try:
        page = phone(browser, served.url, served.site.code)
        page.click("#chomp-start")
        page.wait_for_function(
            "document.querySelector('#chomp-status').textContent.includes('revealed')"
        )
        assert page.is_hidden("#chomp-entry")  # the demo's deck turns the cards over
        page.click('[data-me="shelly"]')  # this phone is shelly's seat: its Slap
        page.click("#chomp-slap")
        page.wait_for_selector("#chomp-picture svg")
        assert page.inner_text("#chomp-verdict .total").startswith("Round 1:")
        presses = [
            e["player"]
            for e in read_journal(session.config.journal).entries
            if e["type"] == "edge" and e["pressed"]
        ]
        assert presses == ["shelly"]
        page.screenshot(path=str(shots / "demo-phone.png"), full_page=True)
    finally:
        served.close()
        simulated.close()
        session.close()


def getbit_served(tmp_path: Path, secret: bool) -> tuple[Served, GetBitTable]:
    setup = Setup(default_robots(["ann", "bob"]), ("ann-1", "bob-1", "ann-2", "bob-2"))
    table = open_getbit_table(tmp_path / "getbit.json", setup, secret=secret)
    return Served([GetBitWebTable(table)], []), table


def bot_text(page: Any, robot: str) -> str:
    text: str = page.inner_text(f'[data-bot="{robot}"]')
    return text


def test_getbit_rounds_tapped_on_one_phone_are_seen_on_the_other(
    browser: Any,  # noqa: F811
    tmp_path: Path,
    shots: Path,  # noqa: F811
) -> None:
    served, table = getbit_served(tmp_path, secret=False)
    try:
        one = phone(browser, served.url, served.site.code)
        two = phone(browser, served.url, None)  # the other phone watches
        for cards in ({"ann-1": 1, "bob-1": 2, "ann-2": 3, "bob-2": 4},
                      {"ann-1": 5, "bob-1": 5, "ann-2": 1, "bob-2": 2}):  # fmt: skip
            played = table.session.state.rounds  # read before the tap: the server is quick
            for robot, card in cards.items():
                one.click(f'[data-cards="{robot}"] [data-card="{card}"]')
            one.click("#getbit-play")
            one.wait_for_function(
                f"document.querySelector('#getbit-status').textContent.startsWith("
                f"'Round {played + 2}')"
            )
        bitten = table.session.last.bitten if table.session.last else None
        assert bitten is not None
        for screen in (one, two):
            screen.wait_for_selector(f'svg.robot.bitten[data-robot="{bitten}"]')
            assert "3 limbs" in bot_text(screen, bitten)
            assert screen.inner_text("#getbit-last").startswith("Round 2:")
        state = table.session.state
        robot = next(r for r in state.line if len(state.hands[r]) < state.setup.hand_size)
        played = next(c for c in state.setup.full_hand if c not in state.hands[robot])
        assert one.is_disabled(f'[data-cards="{robot}"] [data-card="{played}"]')  # not in hand
        one.screenshot(path=str(shots / "getbit-phone.png"), full_page=True)
        one.click("#getbit-undo")
        one.click("#ask-yes")  # undo asks first (test_web_browser_restart drives Cancel)
        two.wait_for_function(
            "document.querySelector('#getbit-last').textContent.startsWith('Round 1:')"
        )
    finally:
        served.close()
        table.close()


def test_getbit_secret_cards_each_on_its_own_phone_revealed_together(
    browser: Any,  # noqa: F811
    tmp_path: Path,
    shots: Path,  # noqa: F811
) -> None:
    served, table = getbit_served(tmp_path, secret=True)
    try:
        ann = phone(browser, served.url, served.site.code)
        bob = phone(browser, served.url, served.site.code)
        ann.select_option("#getbit-me", "ann")
        bob.wait_for_selector('#getbit-me option[value="ann"]:disabled', state="attached")
        bob.select_option("#getbit-me", "bob")
        ann.reload()  # the claim is the page's cookie's: it survives a reload
        ann.wait_for_function("document.querySelector('#getbit-me').value === 'ann'")
        ann.click('[data-cards="ann-1"] [data-card="2"]')
        ann.click('[data-cards="ann-2"] [data-card="5"]')
        bob.wait_for_selector('[data-bot="ann-2"] .chosen')  # that ann chose, not what
        assert "Waiting for: bob-1, bob-2" in bob.inner_text("#getbit-entry")
        assert bob.locator('[data-cards="ann-1"]').count() == 0  # not ann's cards to choose
        bob.screenshot(path=str(shots / "getbit-secret-phone.png"), full_page=True)
        bob.click('[data-cards="bob-1"] [data-card="1"]')
        bob.click('[data-cards="bob-2"] [data-card="3"]')
        for screen in (ann, bob):
            screen.wait_for_function(
                "document.querySelector('#getbit-last').textContent.startsWith('Round 1:')"
            )
            assert screen.inner_text("#getbit-status").startswith("Round 2")
        assert table.session.game.rounds == ({"ann-1": 2, "bob-1": 1, "ann-2": 5, "bob-2": 3},)
    finally:
        served.close()
        table.close()


def test_chips_turns_legal_discards_and_typed_commands_from_the_page(
    browser: Any,  # noqa: F811
    tmp_path: Path,
    shots: Path,  # noqa: F811
) -> None:
    helper = ChipsHelper.open(
        tmp_path / "chips.json", ChipsTable.new(["ann", "bob", "cat"]), False, False, None
    )
    served = Served([ChipsWebTable(helper)], [])
    try:
        page = phone(browser, served.url, served.site.code)
        page.fill("#chips-line", "5")  # the deck's top card, typed
        page.click("#chips-form button")
        page.wait_for_selector('[data-line="6"]')
        assert page.inner_text("#chips-prompt").startswith("ann's turn: discard a 4, 5 or 6")
        page.click('[data-line="4"]')  # a legal discard, one tap
        page.wait_for_selector('.seat[data-seat="bob"] .led.on')
        page.fill("#chips-line", "9")
        page.click("#chips-form button")
        page.wait_for_selector("#error:not([hidden])")
        assert page.inner_text("#error") == "line: a 9 cannot go on a 4: play a 3, 4 or 5"
        for line in ("draw", "mad 3", "no"):
            page.fill("#chips-line", line)
            page.click("#chips-form button")
            page.wait_for_function(
                f"document.querySelector('#chips-said li')?.textContent.startsWith('> {line}:')"
            )
        assert page.inner_text('[data-mad="cat"]') == "Mad Fish 1/3"
        page.screenshot(path=str(shots / "chips-phone.png"), full_page=True)
    finally:
        served.close()
