"""Every tab fits a phone: no sideways scroll, every target tappable, axe-core content.

Each page (the land, the photo, Food Chain, Get Bit!, Chips, the CHOMP! demo) is opened at
360 x 740 (a small phone), 740 x 360 (the same phone turned) and 1024 x 768 (a tablet),
with something on it (a land painted, a photo read, a sheet scored with the optional rule,
a round of Get Bit! played with four robots, Chips under way, a CHOMP! round revealed).
Then, on each tab:

- the page never scrolls sideways (``scrollWidth <= innerWidth``): a wide thing, such as
  the land's grid, scrolls or shrinks inside its own box;
- every visible button, select, input (an input inside a label counts as its label: the
  label is what a finger taps), link and summary is at least 48 x 48 CSS px;
- axe-core finds no critical or serious violation.

Every problem of every tab is collected, then asserted at once, so a failure lists them all.
Same chromium and helpers as tests/test_web_browser.py; 360 x 740 screenshots go to the
same folder (``$COMPANION_SCREENSHOTS``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_web_browser import (  # noqa: F401
    EXAMPLES,
    OPEN,
    _example_photo,
    browser,
    phone,
    server,
    shots,
)
from test_web_browser_tables import Served, getbit_served

from companion.games.chips import ChipsTable
from companion.games.chomp import Mode, TwoPlayerEnd
from companion.tables.chips.session import ChipsHelper
from companion.tables.chips.web import ChipsWebTable
from companion.tables.chomp.demo import open_demo
from companion.tables.chomp.web import ChompWebTable
from companion.tables.web.app import Site

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SIZES = {"portrait": (360, 740), "landscape": (740, 360), "tablet": (1024, 768)}
SMALLEST = 48  # CSS px, both ways: a fingertip

# The visible tap targets too small, each as "what WxH" (an input in a label: its label).
SMALL_TARGETS_JS = """(least) => {
  const out = [];
  const seen = new Set();
  const pick = 'button, select, input:not([type=hidden]), textarea, a[href], summary';
  for (const node of document.querySelectorAll(pick)) {
    const target = node.closest('label') || node;
    if (seen.has(target)) continue;
    seen.add(target);
    const box = target.getBoundingClientRect();
    const style = getComputedStyle(target);
    if (!box.width || !box.height || style.visibility === 'hidden') continue;
    if (Math.round(box.width) < least || Math.round(box.height) < least) {
      const name = (target.id ? '#' + target.id : target.tagName.toLowerCase())
        + ' "' + (target.textContent || target.value || '').trim().slice(0, 24) + '"';
      out.push(`${name} ${Math.round(box.width)}x${Math.round(box.height)}`);
    }
  }
  return out;
}"""


def _axe() -> Any:
    axe = pytest.importorskip(
        "axe_playwright_python.sync_playwright", reason="axe-playwright-python (test extra)"
    )
    return axe.Axe()


def open_at(browser: Any, url: str, code: str | None, size: str) -> Any:  # noqa: F811
    """A phone or a tablet on the page (device scale 1), joined with ``code``."""
    width, height = SIZES[size]
    viewport = {"width": width, "height": height}
    return phone(browser, url, code, viewport, scale=1, timeout_ms=20_000)  # type: ignore[arg-type]


# A tab's name cut across two lines ("CHOM" / "P!"): each word of a tab measured alone.
BROKEN_TAB_NAMES_JS = """() => {
  const broken = [];
  for (const a of document.querySelectorAll('nav a')) {
    if (!a.offsetParent) continue;
    const walker = document.createTreeWalker(a, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.textContent.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (tops.size > 1) broken.push(m[0]);
      }
    }
  }
  return broken;
}"""


def problems_of(page: Any, where: str) -> list[str]:
    """What does not fit, is too small to tap, a tab's name broken mid-word, or what
    axe-core calls critical or serious."""
    found = []
    for word in page.evaluate(BROKEN_TAB_NAMES_JS):
        found.append(f"{where}: the tab name {word!r} is broken across lines")
    wide = page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
    if wide[0] > wide[1]:
        found.append(f"{where}: scrolls sideways ({wide[0]} px wide in {wide[1]})")
    for small in page.evaluate(SMALL_TARGETS_JS, SMALLEST):
        found.append(f"{where}: target under {SMALLEST} px: {small}")
    for v in _axe().run(page).response["violations"]:
        if v["impact"] in ("critical", "serious"):
            nodes = "; ".join(n["target"][0] for n in v["nodes"][:4] if n["target"])
            found.append(f"{where}: axe {v['impact']} {v['id']}: {nodes}")
    return found


def visit(page: Any, tab: str, ready: str, size: str, shots: Path, name: str) -> list[str]:  # noqa: F811
    page.evaluate(f"location.hash = '#{tab}'")
    page.wait_for_selector(ready)
    if size != "tablet":
        wide = SIZES[size][0]
        page.screenshot(path=str(shots / f"fit-{name}-{wide}.png"), full_page=True)
    return problems_of(page, f"{name} at {size}")


@pytest.fixture(params=list(SIZES))
def size(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture()
def closing() -> Iterator[None]:
    yield
    while OPEN:
        OPEN.pop().close()


def test_land_photo_and_food_chain_tabs_fit_tap_and_pass_axe(
    browser: Any,  # noqa: F811
    server: tuple[Site, str],  # noqa: F811
    shots: Path,  # noqa: F811
    tmp_path: Path,
    size: str,
    closing: None,
) -> None:
    site, url = server
    photo, _ = _example_photo(tmp_path)
    page = open_at(browser, url, site.code, size)
    # The rulebook's worked example, scored: herds outlined, arrows, eggs.
    page.click("summary")
    page.fill("#grid-text", (EXAMPLES / "dino-worked-example.txt").read_text())
    page.click("#grid-load")
    page.wait_for_selector("#land-grid path.herd")
    found = visit(page, "land", "#land-grid rect", size, shots, "land")
    cells = page.eval_on_selector_all(
        "#land-grid rect.cell", "rs => rs.map(r => r.getBoundingClientRect().width)"
    )
    if min(cells) < SMALLEST - 4:  # a cell is drawn 2 px inside its 48 px square
        found.append(f"land at {size}: a cell of the grid is {min(cells):.0f} px wide")
    page.evaluate("location.hash = '#photo'")
    page.set_input_files("#photo-input", str(photo))
    page.wait_for_selector("input[data-nest]", state="attached", timeout=60_000)
    found += visit(page, "photo", "#eggs-save", size, shots, "photo")
    page.evaluate("location.hash = '#foodchain'")
    rows = page.locator(".player").all()
    rows[0].locator(".p-eaten").fill("cranberry, rabbit, 3")
    rows[1].locator(".p-eaten").fill("acorn, mouse, 4")
    rows[0].locator(".p-tokens").fill("red 4, blue 2")  # two of bob's: two cards drawn
    rows[1].locator(".p-tokens").fill("blue 2")
    page.select_option("#rule", "optional")
    page.click("#sheet button[type=submit]")
    found += visit(page, "foodchain", "#sheet-report .total", size, shots, "foodchain")
    # F13's draw is made once for the sheet: Score again, the same draw and winner.
    first = page.inner_text("#sheet-report")
    assert "null" not in first and " from " in first
    page.evaluate("document.querySelector('#sheet-report').replaceChildren()")
    page.click("#sheet button[type=submit]")
    page.wait_for_selector("#sheet-report .total")
    assert page.inner_text("#sheet-report") == first
    # A phone without the code: the join panel, its QR and the code field.
    watcher = open_at(browser, url, None, size)
    watcher.click("#show-join")
    found += visit(watcher, "land", "#code-form #code", size, shots, "join")
    assert not found, "\n".join(found)


def test_getbit_with_four_robots_fits_tap_and_pass_axe(
    browser: Any,  # noqa: F811
    tmp_path: Path,
    shots: Path,  # noqa: F811
    size: str,
) -> None:
    served, table = getbit_served(tmp_path, secret=False)
    try:
        page = open_at(browser, served.url, served.site.code, size)
        for robot, card in {"ann-1": 1, "bob-1": 2, "ann-2": 3, "bob-2": 4}.items():
            page.click(f'[data-cards="{robot}"] [data-card="{card}"]')
        page.click("#getbit-play")
        page.wait_for_selector("#getbit-last p")
        found = visit(page, "getbit", "#getbit-line .bot", size, shots, "getbit")
        # Every robot of the line is on screen, the last one too.
        inside = page.evaluate(
            "[...document.querySelectorAll('#getbit-line .bot')].every(b => {"
            " const r = b.getBoundingClientRect(); return r.left >= 0 && r.right <= innerWidth; })"
        )
        if not inside:
            found.append(f"getbit at {size}: a robot of the line is off screen")
        (tmp_path / "secret").mkdir()
        secret, secret_table = getbit_served(tmp_path / "secret", secret=True)
        try:
            other = open_at(browser, secret.url, secret.site.code, size)
            other.select_option("#getbit-me", "ann")
            other.wait_for_selector('[data-cards="ann-1"]')
            found += visit(other, "getbit", "#getbit-me", size, shots, "getbit-secret")
        finally:
            secret.close()
            secret_table.close()
        assert not found, "\n".join(found)
    finally:
        served.close()
        table.close()


def test_chips_with_its_question_fits_tap_and_pass_axe(
    browser: Any,  # noqa: F811
    tmp_path: Path,
    shots: Path,  # noqa: F811
    size: str,
) -> None:
    helper = ChipsHelper.open(
        tmp_path / "chips.json", ChipsTable.new(["ann", "bob", "cat"]), False, False, None
    )
    served = Served([ChipsWebTable(helper)], [])
    try:
        page = open_at(browser, served.url, served.site.code, size)
        page.fill("#chips-line", "5")
        page.click("#chips-form button")
        page.click('[data-line="4"]')
        page.wait_for_selector('#chips-said li:has-text("> 4:")')
        for line in ("draw", "mad 3"):  # cat's Mad Fish: a Golden Knight or not?
            page.fill("#chips-line", line)
            page.click("#chips-form button")
            page.wait_for_selector(f'#chips-said li:has-text("> {line}:")')
        found = visit(page, "chips", '#chips-quick [data-line="knight"]', size, shots, "chips")
        assert page.inner_text("#chips-quick").split("\n") == [
            "knight: cover the Mad Fish",
            "no: keep the Mad Fish",
            "undo",
        ]
        page.click('#chips-quick [data-line="no"]')
        page.wait_for_selector('#chips-said li:has-text("> no:")')
        assert page.inner_text('[data-mad="cat"]') == "Mad Fish 1/3"
        assert not found, "\n".join(found)
    finally:
        served.close()


def test_the_chomp_demo_fits_tap_and_pass_axe(
    browser: Any,  # noqa: F811
    tmp_path: Path,
    shots: Path,  # noqa: F811
    size: str,
) -> None:
    session, simulated = open_demo(
        ["you", "shelly", "finn"], [], Mode.STANDARD, TwoPlayerEnd.COUNT, seed=5,
        journal=tmp_path / "demo.jsonl",
    )  # fmt: skip
    served = Served([ChompWebTable(session, simulated.press)], [session.daemon.run])
    try:
        page = open_at(browser, served.url, served.site.code, size)
        page.click('[data-me="shelly"]')  # this phone is shelly's seat: its Slap slaps
        page.wait_for_function("(ui.claimed.chomp || []).includes('shelly')")
        page.click("#chomp-start")
        page.wait_for_function(
            "document.querySelector('#chomp-status').textContent.includes('revealed')"
        )
        page.click("#chomp-slap")
        page.wait_for_selector("#chomp-picture svg")
        found = visit(page, "chomp", "#chomp-verdict .total", size, shots, "chomp-demo")
        found += visit(page, "board", "#chomp-verdict .total", size, shots, "chomp-board")
        assert not found, "\n".join(found)
    finally:
        served.close()
        simulated.close()
        session.close()
