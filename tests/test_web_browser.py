"""The pages in a real browser: Debian's chromium driven by Playwright for Python.

Phones are browser contexts at 390 x 844 (a tablet at 820 x 1180). Screenshots go to a
temporary folder, or to $COMPANION_SCREENSHOTS when set (docs/img/ was made that way).
Where no browser can be had the whole module is skipped with one reason; .ci/run
installs chromium first, so CI runs it.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
PHONE: ViewportSize = {"width": 390, "height": 844}
TABLET: ViewportSize = {"width": 820, "height": 1180}
ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def _why_no_browser() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (the test extra)"
    try:
        import uvicorn  # noqa: F401
    except ImportError:
        return "the web extra is not installed"
    if not (Path(CHROMIUM).is_file() or shutil.which("chromium")):
        return "no chromium here (.ci/run installs it: apt-get install chromium)"
    return None


if (_reason := _why_no_browser()) is not None:
    pytest.skip(_reason, allow_module_level=True)

from playwright.sync_api import Browser, Page, ViewportSize, sync_playwright  # noqa: E402

from companion.tables.web.app import Site  # noqa: E402
from companion.tables.web.serve import Running, build_site, start  # noqa: E402


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        path = CHROMIUM if Path(CHROMIUM).is_file() else shutil.which("chromium")
        launched = playwright.chromium.launch(executable_path=path, args=ARGS)
        yield launched
        # A page a test left open belongs to this Playwright: closed after it stops, by the
        # next module's test, it raised "Event loop is closed".
        while OPEN:
            OPEN.pop().close()
        launched.close()


@pytest.fixture()
def server() -> Iterator[tuple[Site, str]]:
    site = build_site(
        str(EXAMPLES / "dino-catalog.example.json"),
        str(EXAMPLES / "foodchain-catalog.example.json"),
    )
    # The tests run as root in CI's container; the refusal is tested in test_web_api.
    running: Running = start(site, "127.0.0.1", 0, refuse_root=False)
    yield site, f"http://127.0.0.1:{running.port}"
    running.stop()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    wanted = os.environ.get("COMPANION_SCREENSHOTS")
    folder = Path(wanted) if wanted else tmp_path_factory.mktemp("web-screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


OPEN: list[Any] = []  # this test's browser contexts, closed before its server stops


@pytest.fixture(autouse=True)
def close_phones(server: tuple[Site, str]) -> Iterator[None]:
    """Set up after the server, so torn down before it: its streams end at once."""
    yield
    while OPEN:
        OPEN.pop().close()


def phone(
    browser: Browser,
    url: str,
    code: str | None,
    size: ViewportSize = PHONE,
    scale: int | None = None,
    timeout_ms: int = 15_000,
) -> Page:
    """A new phone (its own cookies) on the page, joined when ``code`` is given. ``scale``:
    the device's pixels per CSS pixel (default: 2 for the phone, crisp shots; else 1)."""
    if scale is None:
        scale = 2 if size == PHONE else 1  # tablet shots stay small
    context = browser.new_context(viewport=size, device_scale_factor=scale)
    OPEN.append(context)
    page = context.new_page()
    page.set_default_timeout(timeout_ms)
    page.goto(f"{url}/?code={code}" if code else f"{url}/")
    page.wait_for_selector("#live.on")
    return page


def tap(page: Page, x: int, y: int, grid: str = "#land-grid") -> None:
    page.click(f'{grid} rect[data-cell="{x},{y}"]')


def total(page: Page, report: str = "#land-report") -> str:
    return page.inner_text(f"{report} .total")


def land_version(page: Page) -> int:
    version: int = page.evaluate(
        "fetch('/api/tables/land').then(r => r.json()).then(s => s.version)"
    )
    return version


def test_the_join_code_is_needed_to_change_anything(
    browser: Browser, server: tuple[Site, str]
) -> None:
    site, url = server
    page = phone(browser, url, None)
    assert page.inner_text("#who") == "watching: changes need the join code"
    page.click('[data-token="P"]')
    tap(page, 0, 0)
    assert page.inner_text("#error").startswith("code: changing the table needs its join code")
    # Even a page that skips its own check is refused by the server.
    status = page.evaluate(
        """fetch('/api/tables/land/actions', {method: 'POST',
           headers: {'content-type': 'application/json'},
           body: JSON.stringify({type: 'paint', cell: [0, 0], token: 'P'})}).then(r => r.status)"""
    )
    assert status == 403 and land_version(page) == 1
    page.click("#show-join")
    page.fill("#code", "wrongcode")
    page.click("#code-form button")
    page.wait_for_selector("#error:not([hidden])")  # one line at the top of the app
    assert page.inner_text("#error").startswith("code: not this table's join code")
    assert page.is_visible("nav") and page.is_visible("#tab-land")
    page.goto(f"{url}/")
    page.click("#show-join")
    page.fill("#code", site.code)
    page.click("#code-form button")
    page.wait_for_selector("#live.on")
    assert page.inner_text("#who") == "you can change the table"
    page.click('[data-token="P"]')
    tap(page, 0, 0)
    page.wait_for_selector('#land-grid rect[data-cell="0,0"][fill="#b7e4a1"]')
    assert land_version(page) == 2


def test_a_land_tapped_on_a_phone_scores_as_you_go_and_every_phone_sees_it(
    browser: Browser, server: tuple[Site, str], shots: Path
) -> None:
    site, url = server
    page = phone(browser, url, site.code)
    other = phone(browser, url, None)  # a second phone, watching
    page.click('[data-token="lh"]')
    tap(page, 0, 0)
    page.wait_for_selector("#land-report .problem")
    assert "a large herbivore covers exactly 2 cells" in page.inner_text("#land-report")
    tap(page, 1, 0)  # the other half joins by itself
    page.click('[data-token="P"]')
    tap(page, 2, 0)
    page.wait_for_function(
        "document.querySelector('#land-report .total')?.textContent.startsWith('Score 3')"
    )
    # D2: a mountain range between the herd and the plants.
    page.click('[data-tool="mountain"]')
    tap(page, 1, 0)
    tap(page, 2, 0)
    page.wait_for_function(
        "document.querySelector('#land-report .total').textContent.startsWith('Score 0')"
    )
    assert "extinct: no plants" in page.inner_text("#land-report")
    other.wait_for_selector("#land-grid .mountain")
    other.wait_for_function(
        "document.querySelector('#land-report .total')?.textContent.startsWith('Score 0')"
    )
    tap(page, 2, 0)  # the same edge again: the mountain goes
    tap(page, 1, 0)
    page.wait_for_function(
        "document.querySelector('#land-report .total').textContent.startsWith('Score 3')"
    )
    # Plants on two cells joined into one field, and a hungry carnivore beside it.
    page.click('[data-token="P"]')
    tap(page, 2, 1)
    page.click('[data-tool="join"]')
    tap(page, 2, 0)
    tap(page, 2, 1)
    page.click('[data-token="mc"]')
    tap(page, 1, 1)
    page.click('[data-token="sh"]')
    tap(page, 0, 1)
    page.wait_for_function(
        "document.querySelector('#land-report .total').textContent.startsWith('Score 5')"
    )
    state = json.loads(page.evaluate("fetch('/api/tables/land').then(r => r.text())"))["state"]
    assert [s["cells"] for s in state["land"]["sections"] if s["kind"] == "plants"] == [
        [[2, 0], [2, 1]]
    ]
    assert other.locator("#land-grid line.ate").count() == 1  # who ate whom, on every phone
    page.screenshot(path=str(shots / "land-phone.png"), full_page=True)
    tablet = phone(browser, url, site.code, TABLET)
    tablet.click("summary")
    tablet.fill("#grid-text", (EXAMPLES / "dino-worked-example.txt").read_text())
    tablet.click("#grid-load")
    tablet.wait_for_function(
        "document.querySelector('#land-report .total').textContent.startsWith('Score 29')"
    )
    tablet.screenshot(path=str(shots / "land-tablet.png"), full_page=True)
    page.wait_for_function(
        "document.querySelector('#land-report .total').textContent.startsWith('Score 29')"
    )
    page.locator("#land-grid").screenshot(path=str(shots / "land-grid-phone.png"))


def _example_photo(folder: Path) -> tuple[Path, int]:
    """The land of examples/dino-placements.json photographed, and its true score."""
    cv2 = pytest.importorskip("cv2")
    from companion.games.dino import score
    from companion.games.dino.formats import catalog_from_dict, placement_from_dict
    from companion.scan.synth import Style, render

    catalog = catalog_from_dict(json.loads((EXAMPLES / "dino-catalog.example.json").read_text()))
    log = json.loads((EXAMPLES / "dino-placements.json").read_text())
    placements = [placement_from_dict(p, "p") for p in log["placements"]]
    style = Style(occluders=(0,), blur_max=0.8, noise_max=4.0, margin_cells=1.0)
    photo = render(random.Random(7), catalog, placements, (1600, 1200), style)
    path = folder / "land.jpg"
    cv2.imwrite(str(path), photo.image)
    return path, score(photo.land).total


def test_a_photo_taken_on_the_phone_is_read_asked_about_and_scored(
    browser: Browser, server: tuple[Site, str], shots: Path, tmp_path: Path
) -> None:
    site, url = server
    photo, truth = _example_photo(tmp_path)
    page = phone(browser, url, site.code)
    page.click('nav a[data-tab="photo"]')
    assert page.get_attribute("#photo-input", "capture") == "environment"
    page.set_input_files("#photo-input", str(photo))
    page.wait_for_selector("#eggs-save", timeout=60_000)
    assert page.inner_text("#photo-status") == "Photo 1: 7 cards, 25 cells read, 0 unread."
    assert "Without egg tokens" in page.inner_text("#photo-report")
    page.wait_for_function("document.querySelector('#annotated img')?.naturalWidth > 0")
    for nest in page.locator("input[data-nest]").all():
        nest.check()
    page.click("#eggs-save")
    page.wait_for_function(
        f"document.querySelector('#photo-report .total')?.textContent.startsWith('Score {truth}')"
    )
    assert page.locator("#photo-grid ellipse.egg").count() == 2
    # one more photo of the land (here the same one): merged, the eggs kept
    assert page.is_visible("#photo-more-label")
    page.set_input_files("#photo-more", str(photo))
    page.wait_for_function(
        "document.querySelector('#photo-status').textContent.startsWith('2 photos')",
        timeout=60_000,
    )
    assert page.inner_text("#photo-status") == (
        "2 photos of this land merged: 7 cards, 25 cells read, 0 unread."
    )
    page.wait_for_function(
        "[...document.querySelectorAll('#annotated img')].filter(i => i.naturalWidth > 0)"
        ".length === 2"
    )
    assert page.locator("#annotated figcaption").all_inner_texts() == [
        "Photo 1 of 2",
        "Photo 2 of 2",
    ]
    assert total(page, "#photo-report").startswith(f"Score {truth}")
    page.screenshot(path=str(shots / "photo-phone.png"), full_page=True)
    tablet = phone(browser, url, None, TABLET)
    tablet.click('nav a[data-tab="photo"]')
    tablet.wait_for_function("document.querySelector('#annotated img')?.naturalWidth > 0")
    assert total(tablet, "#photo-report").startswith(f"Score {truth}")
    tablet.screenshot(path=str(shots / "photo-tablet.png"), full_page=True)


def test_the_food_chain_sheet_is_a_form_and_held_tokens_are_exchanged(
    browser: Browser, server: tuple[Site, str], shots: Path
) -> None:
    site, url = server
    page = phone(browser, url, site.code)
    page.click('nav a[data-tab="foodchain"]')
    rows: list[Any] = page.locator(".player").all()
    rows[0].locator(".p-eaten").fill("cranberry, rabbit, 3")
    rows[0].locator(".p-tokens").fill("red 3, blue 1")
    rows[1].locator(".p-eaten").fill("acorn, mouse")
    rows[1].locator(".p-tokens").fill("blue 3, red 1")
    page.click("#sheet button[type=submit]")
    page.wait_for_selector("#sheet-report .total")
    # Each holds one of the other's tokens: they are exchanged before counting.
    assert page.inner_text("#sheet-report tr.winner").split("\t") == [
        "ann ★ wins",  # in words too, not by its colour alone
        "eaten 11 (3 cards)",
        "tokens 4",
        "total 15",
    ]
    assert page.inner_text("#sheet-report .total") == "ann wins with 15 points."
    assert "exchanged them first" in page.inner_text("#sheet-report")
    rows[1].locator(".p-eaten").fill("acorn, unicorn")
    page.click("#sheet button[type=submit]")
    page.wait_for_selector("#error:not([hidden])")
    assert (
        page.inner_text("#error") == "players.bob.eaten[1]: no card named 'unicorn' in the catalog"
    )
    rows[1].locator(".p-eaten").fill("acorn, mouse")
    page.click("#sheet button[type=submit]")
    page.wait_for_selector("#error", state="hidden")
    page.screenshot(path=str(shots / "foodchain-phone.png"), full_page=True)


UNREAD_JS = "document.querySelectorAll(\"#photo-grid rect.cell[fill='#ffe066']\")"


def test_unread_cells_are_asked_on_the_drawn_land_and_answered_by_tapping(
    browser: Browser, server: tuple[Site, str], tmp_path: Path
) -> None:
    cv2 = pytest.importorskip("cv2")
    from companion.games.dino.catalog import Placement
    from companion.games.dino.formats import catalog_from_dict
    from companion.scan.markers import MarkerBook
    from companion.scan.synth import Style, random_catalog_dict, render

    site, url = server
    catalog = catalog_from_dict(random_catalog_dict(random.Random(3)))
    site.photo.catalog = catalog
    book = MarkerBook.of(catalog)
    # c01's stickers A1 and B2 swapped: its markers disagree, so its four cells are asked.
    swap = {("c01", 0): (book.marker_id("c01", 3), 0), ("c01", 3): (book.marker_id("c01", 0), 0)}
    placements = [Placement("c01", 0, 0, 0), Placement("c02", 2, 0, 0)]
    photo = render(
        random.Random(3),
        catalog,
        placements,
        (1600, 1200),
        Style(occluders=(0,), margin_cells=1.0),
        swap,
    )
    path = tmp_path / "swapped.jpg"
    cv2.imwrite(str(path), photo.image)
    page = phone(browser, url, site.code)
    page.click('nav a[data-tab="photo"]')
    page.set_input_files("#photo-input", str(path))
    page.wait_for_selector("#photo-ask .ask")
    unread = page.locator("#photo-grid rect.cell[fill='#ffe066']")
    assert unread.count() == 4 and page.locator("#photo-report .total").count() == 0
    for left in (3, 2, 1, 0):  # tap an unread cell on the land, then say what shows there
        unread.last.click()
        page.click('#photo-ask [data-answer="_"]')
        assert page.inner_text("#error") == ""
        page.wait_for_function(f"{UNREAD_JS}.length === {left}")
    page.wait_for_selector("#photo-report .total")
    state = json.loads(page.evaluate("fetch('/api/tables/photo').then(r => r.text())"))["state"]
    assert state["complete"] is True and len(state["answers"]) == 4
    assert {a["value"] for a in state["answers"]} == {"_"}
    assert total(page, "#photo-report").startswith(f"Score {state['score']['total']}:")


def test_a_page_says_the_table_stopped_when_the_server_stops(
    browser: Browser, server: tuple[Site, str]
) -> None:
    """Issue 23: the streams end with a "stopped" event at a stop (no cancelled task), and
    the page says so instead of reconnecting to nothing."""
    site = build_site()
    running = start(site, "127.0.0.1", 0, refuse_root=False)
    page = phone(browser, f"http://127.0.0.1:{running.port}", None)
    running.stop()
    page.wait_for_function("document.querySelector('#live').textContent === 'the table stopped'")
    assert not running.thread.is_alive()
