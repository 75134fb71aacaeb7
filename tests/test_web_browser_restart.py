"""Restart-safe tables in a real browser at 360 x 740 (docs/web.md, "Join codes across
restarts"): a phone across a restart of its table, a tap made offline, a wrong code, the
code kept from watchers, and undo, New game and New join code asked first.

Same chromium and helpers as tests/test_web_browser.py (imported from it, so the same
skip applies).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize
from test_web_browser import OPEN, browser, phone, shots  # noqa: F401

from companion.games.chips import ChipsTable
from companion.games.getbit import Setup
from companion.tables.chips.session import ChipsHelper
from companion.tables.chips.web import ChipsWebTable
from companion.tables.getbit.session import open_getbit_table
from companion.tables.getbit.table import GetBitTable
from companion.tables.getbit.web import GetBitWebTable
from companion.tables.web.app import Site
from companion.tables.web.serve import Running, build_site, start, table_code_file

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SMALL: ViewportSize = {"width": 360, "height": 740}
PLAYERS = ("ann", "bob", "cat", "dan")
SETUP = Setup({p: p for p in PLAYERS}, PLAYERS)
OFFLINE = "offline: your tap was not sent"


class Table:
    """Get Bit! saved in ``folder``, served with its code kept beside the save, so that
    it can be stopped and started again as `companion getbit play --web` would be."""

    def __init__(self, folder: Path, secret: bool = False) -> None:
        self.save = folder / "getbit.json"
        self.secret = secret
        self.port = 0
        self.table: GetBitTable | None = None
        self.running: Running | None = None
        self.site: Site | None = None
        self.start(resume=False)

    def start(self, resume: bool = True) -> None:
        self.table = open_getbit_table(
            self.save, None if resume else SETUP, resume=resume, secret=self.secret
        )
        page = GetBitWebTable(self.table)
        self.site = build_site(code_file=table_code_file(self.save, "getbit"))
        self.site.hub.add(page)
        self.running = start(self.site, "127.0.0.1", self.port, refuse_root=False)
        self.port = self.running.port
        page.serve(self.site.hub.publish)
        self.table.notify(f"web: {self.url}/ join code {self.site.code}")  # as serve_page
        self.site.hub.publish("getbit")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        assert self.running is not None and self.table is not None and self.site is not None
        self.running.stop()
        self.site.hub.table("getbit").close()  # type: ignore[attr-defined]
        self.table.close()


@pytest.fixture()
def getbit(tmp_path: Path) -> Iterator[Table]:
    table = Table(tmp_path)
    yield table
    while OPEN:
        OPEN.pop().close()
    table.stop()


def small_phone(browser: Browser, url: str, code: str | None) -> Page:  # noqa: F811
    """A 360 px phone at scale 2, joined when ``code`` is given."""
    return phone(browser, url, code, SMALL, scale=2)


def play_round_on_the_page(page: Page, cards: dict[str, int]) -> None:
    for robot, card in cards.items():
        page.click(f'[data-cards="{robot}"] [data-card="{card}"]')
    page.click("#getbit-play")


def test_a_phone_across_a_table_restart_rejoins_without_a_new_code_and_shows_the_new_state(
    browser: Browser,  # noqa: F811
    getbit: Table,
    shots: Path,  # noqa: F811
) -> None:
    assert getbit.site is not None
    code = getbit.site.code
    page = small_phone(browser, getbit.url, code)
    play_round_on_the_page(page, {"ann": 1, "bob": 2, "cat": 3, "dan": 4})
    page.wait_for_function(
        "document.querySelector('#getbit-status').textContent.startsWith('Round 2')"
    )
    getbit.stop()
    page.wait_for_function("document.querySelector('#live').textContent === 'the table stopped'")
    getbit.start()  # the same save, the same code file, the same port: a restart
    assert getbit.site.code == code
    assert getbit.table is not None
    getbit.table.play({"ann": 2, "bob": 3, "cat": 4, "dan": 5})  # played at the terminal
    getbit.site.hub.publish("getbit")
    page.wait_for_selector("#live.on", timeout=20_000)
    page.wait_for_function(
        "document.querySelector('#getbit-status').textContent.startsWith('Round 3')"
    )
    assert page.inner_text("#who") == "you can change the table"  # no new code needed
    page.screenshot(path=str(shots / "restart-rejoined-360.png"))
    play_round_on_the_page(page, {"ann": 3, "bob": 4, "cat": 5, "dan": 1})
    page.wait_for_function(
        "document.querySelector('#getbit-status').textContent.startsWith('Round 4')"
    )


def test_a_secret_seat_is_claimed_again_after_a_restart(
    browser: Browser,  # noqa: F811
    tmp_path: Path,
) -> None:
    table = Table(tmp_path, secret=True)
    try:
        assert table.site is not None
        page = small_phone(browser, table.url, table.site.code)
        page.select_option("#getbit-me", "ann")
        page.wait_for_selector('[data-cards="ann"]')
        table.stop()
        page.wait_for_function(
            "document.querySelector('#live').textContent === 'the table stopped'"
        )
        table.start()
        page.wait_for_selector("#live.on", timeout=20_000)
        page.wait_for_function(
            "fetch('/api/me').then(r => r.json()).then(me => me.seats.getbit === 'ann')"
        )
        page.wait_for_selector('[data-cards="ann"]')
    finally:
        while OPEN:
            OPEN.pop().close()
        table.stop()


def land_version(page: Page) -> int:
    version: int = page.evaluate(
        "fetch('/api/tables/land').then(r => r.json()).then(s => s.version)"
    )
    return version


def test_a_tap_made_offline_is_refused_on_screen_and_never_sent(
    browser: Browser,  # noqa: F811
    getbit: Table,
    shots: Path,  # noqa: F811
) -> None:
    assert getbit.site is not None
    page = small_phone(browser, getbit.url, getbit.site.code)
    page.goto(f"{getbit.url}/#land")
    page.wait_for_selector("#live.on")
    page.click('[data-token="P"]')
    page.context.set_offline(True)
    page.click('#land-grid rect[data-cell="0,0"]')
    page.wait_for_function(f"document.querySelector('#error').textContent === {OFFLINE!r}")
    assert page.inner_text("#live") == OFFLINE
    page.screenshot(path=str(shots / "restart-offline-tap-360.png"))
    page.context.set_offline(False)
    page.wait_for_timeout(500)  # a tap queued for later would have been sent by now
    assert land_version(page) == 1  # never sent, not even later
    page.wait_for_selector("#live.on", timeout=20_000)
    page.click('#land-grid rect[data-cell="0,0"]')  # tapped again: sent once
    page.wait_for_selector('#land-grid rect[data-cell="0,0"][fill="#b7e4a1"]')
    assert land_version(page) == 2


def test_a_tap_while_the_table_is_stopped_is_refused_on_screen(
    browser: Browser,  # noqa: F811
    getbit: Table,
) -> None:
    assert getbit.site is not None
    page = small_phone(browser, getbit.url, getbit.site.code)
    getbit.stop()
    page.wait_for_function("document.querySelector('#live').textContent === 'the table stopped'")
    page.click('[data-cards="ann"] [data-card="1"]')
    page.click('[data-cards="bob"] [data-card="2"]')
    page.click('[data-cards="cat"] [data-card="3"]')
    page.click('[data-cards="dan"] [data-card="4"]')
    page.click("#getbit-play")
    assert page.inner_text("#error") == OFFLINE and page.inner_text("#live") == OFFLINE
    getbit.start()
    page.wait_for_selector("#live.on", timeout=20_000)
    assert getbit.table is not None and getbit.table.session.state.rounds == 0  # not sent


def test_a_wrong_code_is_one_line_inside_the_app_and_capitals_with_spaces_join(
    browser: Browser,  # noqa: F811
    getbit: Table,
    shots: Path,  # noqa: F811
) -> None:
    assert getbit.site is not None
    page = small_phone(browser, getbit.url, "WRONGCODE")
    assert page.inner_text("#error").startswith("code: not this table's join code")
    assert page.is_visible("nav") and page.is_visible("#tab-getbit")
    assert page.inner_text("#who") == "watching: changes need the join code"
    page.screenshot(path=str(shots / "restart-wrong-code-360.png"))
    code = getbit.site.code
    page.fill("#code", f" {code[:4].upper()} {code[4:].upper()} ")
    page.click("#code-form button")
    page.wait_for_selector("#live.on")
    assert page.inner_text("#who") == "you can change the table"
    assert page.inner_text("#error") == ""


def test_a_watchers_page_and_api_never_hold_the_code(
    browser: Browser,  # noqa: F811
    getbit: Table,
    shots: Path,  # noqa: F811
) -> None:
    assert getbit.site is not None
    code = getbit.site.code
    watcher = small_phone(browser, getbit.url, None)
    watcher.wait_for_selector("#getbit-messages")
    watcher.wait_for_function(
        "document.querySelector('#getbit-messages').textContent.includes('join code')"
    )
    assert code not in watcher.content().lower()
    for url in ("/api/tables/getbit", "/api/me", "/api/tables/land"):
        body: str = watcher.evaluate(f"fetch('{url}').then(r => r.text())")
        assert code not in body.lower(), url
    holder = small_phone(browser, getbit.url, code)
    holder.click("#show-join")
    assert holder.inner_text("#code-shown") == code  # who has it may show it to a friend
    holder.screenshot(path=str(shots / "restart-join-holder-360.png"))
    assert code not in holder.inner_text("#getbit-messages")


def test_undo_and_new_game_ask_first_on_get_bit(
    browser: Browser,  # noqa: F811
    getbit: Table,
    shots: Path,  # noqa: F811
) -> None:
    assert getbit.site is not None and getbit.table is not None
    page = small_phone(browser, getbit.url, getbit.site.code)
    play_round_on_the_page(page, {"ann": 1, "bob": 2, "cat": 3, "dan": 4})
    page.wait_for_function(
        "document.querySelector('#getbit-status').textContent.startsWith('Round 2')"
    )
    page.click("#getbit-undo")
    page.wait_for_selector("#ask:not([hidden])")
    assert page.inner_text("#ask-text") == "Undo the last round?"
    page.screenshot(path=str(shots / "restart-undo-asks-360.png"))
    page.click("#ask-no")
    assert page.is_hidden("#ask") and getbit.table.session.state.rounds == 1
    page.click("#getbit-undo")
    page.click("#ask-yes")
    page.wait_for_function(
        "document.querySelector('#getbit-status').textContent.startsWith('Round 1')"
    )
    play_round_on_the_page(page, {"ann": 1, "bob": 2, "cat": 3, "dan": 4})
    page.wait_for_function(
        "document.querySelector('#getbit-status').textContent.startsWith('Round 2')"
    )
    page.click("#getbit-new")
    page.wait_for_selector("#ask:not([hidden])")
    assert page.inner_text("#ask-text").startswith("Start a new game?")
    page.click("#ask-yes")
    page.wait_for_function(
        "document.querySelector('#getbit-status').textContent.startsWith('Round 1')"
    )
    assert getbit.table.session.state.rounds == 0
    assert any(
        p.name != "getbit.json" and p.name.startswith("getbit")
        for p in getbit.save.parent.iterdir()
    )
    for button in ("#getbit-undo", "#getbit-new"):
        box = page.locator(button).bounding_box()
        assert box is not None and box["height"] >= 48 and box["width"] >= 48, button


def test_undo_asks_first_on_chips(browser: Browser, tmp_path: Path) -> None:  # noqa: F811
    helper = ChipsHelper.open(tmp_path / "chips.json", ChipsTable.new(PLAYERS), False, False, None)
    site = build_site()
    page_table = ChipsWebTable(helper)
    site.hub.add(page_table)
    running = start(site, "127.0.0.1", 0, refuse_root=False)
    page_table.serve(site.hub.publish)
    try:
        page = small_phone(browser, f"http://127.0.0.1:{running.port}", site.code)
        page.fill("#chips-line", "top 5")
        page.click("#chips-form button")
        page.wait_for_selector('#chips-quick [data-line="undo"]')
        page.click('#chips-quick [data-line="undo"]')
        page.wait_for_selector("#ask:not([hidden])")
        assert page.inner_text("#ask-text") == "Undo the last turn?"
        page.click("#ask-no")
        assert helper.turns
        page.fill("#chips-line", "undo")  # typed, it asks too
        page.click("#chips-form button")
        page.click("#ask-yes")
        page.wait_for_function(
            "document.querySelector('#chips-top').textContent.startsWith('top: not')"
        )
        assert not helper.turns
    finally:
        while OPEN:
            OPEN.pop().close()
        running.stop()
        page_table.close()
        helper.release()


def test_a_new_join_code_asks_first_and_shuts_out_the_other_phones(
    browser: Browser,  # noqa: F811
    getbit: Table,
) -> None:
    assert getbit.site is not None
    old = getbit.site.code
    holder = small_phone(browser, getbit.url, old)
    other = small_phone(browser, getbit.url, old)
    holder.click("#show-join")
    holder.click("#new-code")
    holder.wait_for_selector("#ask:not([hidden])")
    holder.click("#ask-yes")
    holder.wait_for_function(f"document.querySelector('#code-shown').textContent !== {old!r}")
    new = holder.inner_text("#code-shown")
    assert new == getbit.site.code != old
    assert getbit.save.with_name("getbit.json.code").read_text() == new + "\n"
    other.click('[data-cards="ann"] [data-card="1"]')
    other.click('[data-cards="bob"] [data-card="2"]')
    other.click('[data-cards="cat"] [data-card="3"]')
    other.click('[data-cards="dan"] [data-card="4"]')
    other.click("#getbit-play")
    other.wait_for_function(
        "document.querySelector('#who').textContent === 'watching: changes need the join code'"
    )
    assert other.inner_text("#error").startswith("code:")


def test_every_update_carries_the_instance(browser: Browser, getbit: Table) -> None:  # noqa: F811
    assert getbit.site is not None
    page = small_phone(browser, getbit.url, None)
    got: Any = page.evaluate("fetch('/api/tables/getbit').then(r => r.json())")
    assert got["instance"] == getbit.site.hub.instance and got["game"] == "1"


def test_the_join_section_and_the_question_pass_axe(
    browser: Browser,  # noqa: F811
    getbit: Table,
) -> None:
    """The parts this work adds (the code shown, New join code, the in-page question, the
    offline line): no critical or serious axe-core violation."""
    axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")
    assert getbit.site is not None
    page = small_phone(browser, getbit.url, getbit.site.code)
    page.click("#show-join")
    page.click("#new-code")
    page.wait_for_selector("#ask:not([hidden])")
    mine = {"include": [["header"], ["#join"], ["#ask"], ["#error"]]}  # #getbit-line: not ours
    results = axe_module.Axe().run(page, context=mine)
    bad = [
        (v["id"], [n["target"] for n in v["nodes"]])
        for v in results.response["violations"]
        if v["impact"] in ("critical", "serious")
    ]
    assert bad == [] and len(results.response["passes"]) > 5  # it did look at them
    page.click("#ask-no")
