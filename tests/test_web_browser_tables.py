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
from companion.games.chomp import Mode, TwoPlayerEnd
from companion.referee.journal import read_journal
from companion.tables.chomp.config import ChompConfig, PlayerConfig
from companion.tables.chomp.demo import open_demo
from companion.tables.chomp.session import ChompSession, open_chomp_session
from companion.tables.chomp.web import ChompWebTable
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


def test_the_demo_is_played_from_the_page_with_a_slap_button_per_seat(
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
        page.click('[data-slap="shelly"]')
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
