"""CHOMP!'s page as a seat, in a real browser at 360 x 740 and 1024 x 768 (issue 24).

A phone claims its seat ("This is me"), sees its card large and every seat's card, slaps
with the one Slap button, and reads how its press was judged; a watcher sees the cards
too; the verdict's lines are the terminal's; the round's picture reads at 12 px or more.
Same chromium and helpers as tests/test_web_browser.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_web_browser import browser, phone, shots  # noqa: F401
from test_web_browser_tables import Served, chomp_table, slap, tap_cards  # noqa: F401

from companion.games.chomp import Mode, TwoPlayerEnd
from companion.games.chomp.text import round_lines
from companion.referee.audit import audit
from companion.referee.journal import read_journal
from companion.tables.chomp.demo import open_demo
from companion.tables.chomp.session import ChompSession
from companion.tables.chomp.web import ChompWebTable, press_feedback

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SIZES = {"phone": {"width": 360, "height": 740}, "tablet": {"width": 1024, "height": 768}}
BUZZES = "window.buzzes = []; navigator.vibrate = (ms) => { window.buzzes.push(ms); return true; };"
SMALLEST_TEXT_PX = """() => {
  const svg = document.querySelector('#chomp-picture svg');
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const sizes = [...svg.querySelectorAll('text')].map(
    (t) => parseFloat(getComputedStyle(t).fontSize) * scale);
  return Math.min(...sizes);
}"""
SLAP = "document.querySelector('#chomp-slap').click()"
SMALL_BUTTONS = """() => [...document.querySelectorAll('#tab-chomp button, #tab-chomp select')]
  .filter((b) => b.offsetParent !== null)
  .map((b) => [b.id || b.textContent, b.getBoundingClientRect()])
  .filter(([, r]) => r.width < 48 || r.height < 48).map(([name]) => name)"""


@pytest.fixture()
def demo(tmp_path: Path) -> Iterator[tuple[Served, ChompSession, ChompWebTable]]:
    session, simulated = open_demo(
        ["you", "shelly", "finn"], [], Mode.STANDARD, TwoPlayerEnd.COUNT, seed=5,
        journal=tmp_path / "demo.jsonl",
    )  # fmt: skip
    table = ChompWebTable(session, simulated.press)
    served = Served([table], [session.daemon.run])
    yield served, session, table
    served.close()
    simulated.close()
    session.close()


def seat_phone(browser: Any, served: Served, size: str, seat: str | None) -> Any:  # noqa: F811
    """A phone at ``size`` (device scale 1); with ``seat``, joined and claiming it."""
    code = served.site.code if seat else None
    page = phone(browser, served.url, code, SIZES[size])  # type: ignore[arg-type]
    page.add_init_script(BUZZES)
    page.reload()
    page.wait_for_selector("#live.on")
    if seat:
        page.click(f'[data-me="{seat}"]')
        page.wait_for_selector("#chomp-me:not([hidden])")
    return page


@pytest.mark.parametrize("size", SIZES)
def test_a_seat_plays_a_demo_round_from_the_page_alone(
    browser: Any,  # noqa: F811
    demo: tuple[Served, ChompSession, ChompWebTable],
    shots: Path,  # noqa: F811
    size: str,
) -> None:
    served, session, table = demo
    you = seat_phone(browser, served, size, "you")
    shelly = seat_phone(browser, served, size, "shelly")
    watcher = seat_phone(browser, served, size, None)
    assert you.inner_text("#chomp-me-name") == "you"
    assert you.is_hidden('[data-me="shelly"]')  # a seat another page holds is not offered
    assert watcher.is_hidden("#chomp-me") and not watcher.query_selector("[data-me]")
    you.click("#chomp-start")
    you.wait_for_selector("#chomp-my-card.up")
    shown = table.state()["shown"]
    assert you.inner_text("#chomp-my-card").lower() == " + ".join(shown["you"]).replace("_", " ")
    assert you.evaluate("window.buzzes") == [200]  # the buzz at the reveal
    you.click("#chomp-slap")
    you.wait_for_function(
        "document.querySelector('#chomp-feedback').textContent.includes('received')"
    )
    shelly.click("#chomp-slap")
    you.wait_for_selector("#chomp-feedback .press")
    # Everyone's card, by name, on every page (the watcher's too).
    for page in (you, shelly, watcher):
        for seat, cards in shown.items():
            words = page.inner_text(f'[data-shown="{seat}"]').lower()
            assert words == "shows " + " + ".join(cards).replace("_", " ")
    # The feedback is the referee's, judged again from the journal.
    audited = audit(read_journal(session.config.journal).entries)[0]
    mine = [press_feedback(p, audited.presses) for p in audited.presses if p.player == "you"]
    assert mine and mine[0]["word"] in ("counted", "bad chomp", "false start", "too late")
    assert you.inner_text("#chomp-feedback .press") == f"Round 1: {mine[0]['text']}"
    assert " ms" in mine[0]["text"]  # with the lead (or how late, or how early)
    # The verdict's lines are the terminal's, and only a winner's seat shows winning.
    lines = [watcher.inner_text("#chomp-verdict .total")]
    lines += watcher.locator("#chomp-verdict .lines li").all_inner_texts()
    assert lines == round_lines(1, audited.verdict)
    winner = audited.verdict.winner
    winning = watcher.locator(".seat.wins").all_inner_texts()
    assert len(winning) == (1 if winner else 0)
    if winner:
        assert watcher.inner_text(f'.seat[data-seat="{winner}"] .won') == "wins"
    # Fits the screen: no sideways scroll, every target 48 px, the picture's text 12 px.
    for page in (you, watcher):
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
        assert page.evaluate(SMALL_BUTTONS) == []
        assert page.evaluate(SMALLEST_TEXT_PX) >= 12
    for page in (you, watcher):  # axe-core on the CHOMP! tab: nothing critical or serious
        assert serious_violations(page) == []
    you.screenshot(path=str(shots / f"web-chomp-seat-{size}.png"), full_page=True)


def serious_violations(page: Any) -> list[str]:
    """axe-core's critical and serious findings on the CHOMP! tab (skipped without it)."""
    axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")
    results = axe_module.Axe().run(page, context="#tab-chomp").response
    return [
        f"{v['id']}: {[n['target'] for n in v['nodes']]}"
        for v in results["violations"]
        if v["impact"] in ("critical", "serious")
    ]


def test_a_seats_feedback_is_counted_with_its_lead_or_bad_chomp_round_after_round(
    browser: Any,  # noqa: F811
    demo: tuple[Served, ChompSession, ChompWebTable],
) -> None:
    served, session, table = demo
    you = seat_phone(browser, served, "phone", "you")
    shelly = seat_phone(browser, served, "phone", "shelly")
    seen: dict[str, str] = {}
    for n in range(1, 9):  # until both kinds came (the seeded deck decides which round)
        you.click("#chomp-start")
        you.wait_for_selector("#chomp-my-card.up")
        for page in (you, shelly):  # as close together as two phones can
            page.evaluate(SLAP)
        you.wait_for_function(
            f"(document.querySelector('#chomp-feedback .press') || {{}}).textContent"
            f"?.startsWith('Round {n}:')"
        )
        shown = you.inner_text("#chomp-feedback .press")
        word = you.get_attribute("#chomp-feedback .press", "data-word")
        assert word is not None
        seen.setdefault(word, shown)
        you.wait_for_function("!document.querySelector('#chomp-start').disabled")
        if {"counted", "bad chomp"} <= set(seen) or table.state()["over"]:
            break
    counted = seen["counted"]
    assert counted.startswith("Round ") and ": counted: " in counted
    # With the lead over shelly's press when hers came before the decision, else said so.
    assert counted.endswith((" ms", "window)", "nobody else pressed"))
    assert "bad chomp: " in seen["bad chomp"] and seen["bad chomp"].endswith("after the reveal")


def test_on_the_referee_a_seat_page_shows_its_card_and_feedback_and_the_buttons_slap(
    browser: Any,  # noqa: F811
    chomp_table: tuple[Served, ChompSession],  # noqa: F811
) -> None:
    served, session = chomp_table
    bob = seat_phone(browser, served, "phone", "bob")
    assert bob.is_hidden("#chomp-slap")  # at a real table the buttons slap
    assert "the buttons slap" in bob.inner_text("#chomp-slap-note")
    bob.click("#chomp-start")
    bob.wait_for_selector("#chomp-entry:not([hidden])")
    assert bob.evaluate("window.buzzes") == [200]
    slap(session, "bob")  # on the pins, as a hand would
    tap_cards(bob, ["seal", "shark", "plankton"])
    bob.click("#chomp-confirm")
    bob.wait_for_selector("#chomp-feedback .press")
    assert bob.inner_text("#chomp-my-card").lower() == "shark"
    assert bob.get_attribute("#chomp-feedback .press", "data-word") == "counted"
    assert bob.inner_text('.seat[data-seat="bob"] .won') == "wins"


def test_a_seat_page_reclaims_its_seat_after_the_server_lost_the_claim(
    browser: Any,  # noqa: F811
    demo: tuple[Served, ChompSession, ChompWebTable],
) -> None:
    served, _, _ = demo
    you = seat_phone(browser, served, "phone", "you")
    # The server forgets the claim behind the page's back (as a restart does).
    given_back = you.request.post(
        f"{served.url}/api/tables/chomp/seat", data={"seat": None}, headers={"origin": served.url}
    )
    assert given_back.ok
    assert you.request.get(f"{served.url}/api/me").json()["seats"] == {}
    you.evaluate("LIVE.chomp.reclaim()")
    you.wait_for_function("(ui.claimed.chomp || []).includes('you')")
    assert you.request.get(f"{served.url}/api/me").json()["seats"] == {"chomp": "you"}
    assert you.is_visible("#chomp-me") and you.inner_text("#chomp-me-name") == "you"


def test_new_game_asks_first_and_every_page_starts_again_at_round_one(
    browser: Any,  # noqa: F811
    demo: tuple[Served, ChompSession, ChompWebTable],
) -> None:
    """The code holder's New game (issue 24): asked first, refused during a round, and the
    other pages follow the new game id to round 1; a watcher has no such button."""
    served, session, table = demo
    you = seat_phone(browser, served, "phone", "you")
    watcher = seat_phone(browser, served, "phone", None)
    assert watcher.is_hidden("#chomp-new")
    you.click("#chomp-start")
    you.wait_for_selector("#chomp-my-card.up")
    assert you.is_disabled("#chomp-new")  # not during a round
    you.click("#chomp-slap")
    you.wait_for_selector("#chomp-feedback .press")
    you.wait_for_function("!document.querySelector('#chomp-new').disabled")
    box = you.locator("#chomp-new").bounding_box()
    assert box is not None and box["height"] >= 48 and box["width"] >= 48
    you.click("#chomp-new")
    you.wait_for_selector("#ask:not([hidden])")
    assert you.inner_text("#ask-text").startswith("Start a new game?")
    you.click("#ask-no")
    assert table.game_id() == "1"
    you.click("#chomp-new")
    you.click("#ask-yes")
    for page in (you, watcher):
        page.wait_for_function(
            "document.querySelector('#chomp-status').textContent.startsWith('Round 1')"
        )
    assert table.game_id() == "2" and session.referee.rounds_played == 0
    kept = [p for p in session.config.journal.parent.iterdir() if p.name.startswith("demo.")]
    assert len(kept) == 2, kept  # the new journal and the old one, kept aside
