"""The camera on the phones' page, in a real browser: the seats the camera read are listed,
only the others are tapped, and the round's frame is shown beside its picture; the page
still fits a small phone and passes axe-core.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from camera_frames import seats, write_frames
from test_camera_table import camera_table, marker, open_table, still
from test_web_browser import OPEN, browser, phone, shots  # noqa: F401
from test_web_browser_tables import Served
from test_web_phone_fit import problems_of

from companion.signals import RevealStamp
from companion.tables.chomp.config import ChompConfig
from companion.tables.chomp.session import ChompSession
from companion.tables.chomp.web import ChompWebTable

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WaitFor = Any


@contextlib.contextmanager
def served_camera(
    table_config: ChompConfig,
    folder: Path,
    wait_for: WaitFor,
    deadline_ms: float | None = None,
    config_file: Path | None = None,
) -> Iterator[tuple[ChompSession, Served, ChompWebTable]]:
    """A CHOMP! table reading recorded frames, served to real pages; every page, the server
    and the table closed after the block."""
    opened: list[ChompSession] = []
    config = (
        camera_table(table_config, folder)
        if deadline_ms is None
        else camera_table(table_config, folder, deadline_ms)
    )
    session, _ = open_table(config, opened, wait_for)
    table = ChompWebTable(session)
    if config_file is not None:
        table.config_file = config_file
    served = Served([table], [session.daemon.run])
    try:
        yield session, served, table
    finally:
        while OPEN:
            OPEN.pop().close()
        served.close()
        session.close()


def test_the_page_asks_only_the_covered_seat_and_shows_the_cameras_frame(
    browser: Any,  # noqa: F811
    shots: Path,  # noqa: F811
    table_config: ChompConfig,
    tmp_path: Path,
    wait_for: WaitFor,
) -> None:
    shown = {"ann": marker("plankton"), "bob": marker("seal"), "cat": marker("shark")}
    folder = write_frames(tmp_path / "frames", still(seats(shown), covered=[(0.83, 0.62)]))
    with served_camera(table_config, folder, wait_for, 600) as (session, served, _):
        page = phone(browser, served.url, served.site.code, {"width": 360, "height": 740})
        session.daemon.put(RevealStamp(time.monotonic_ns(), "test"))
        page.wait_for_selector("#chomp-picked li.camera", timeout=20_000)
        listed = page.inner_text("#chomp-picked")
        assert "ann: plankton (read by the camera)" in listed
        assert "bob: seal (read by the camera)" in listed and "cat: …" in listed
        page.screenshot(path=str(shots / "camera-asks-cat-360.png"), full_page=True)
        page.click('#chomp-creatures [data-creature="shark"]')
        page.click("#chomp-confirm")
        page.wait_for_function(
            "document.querySelector('#chomp-verdict figure.evidence img')?.naturalWidth > 0",
            timeout=20_000,
        )
        alt = page.get_attribute("#chomp-verdict figure.evidence img", "alt")
        assert alt is not None and alt.startswith("Round 1: the camera's picture")
        page.screenshot(path=str(shots / "camera-frame-360.png"), full_page=True)
        assert problems_of(page, "chomp with the camera at 360") == []


def test_the_code_holder_sees_the_camera_with_the_zones_between_rounds(
    browser: Any,  # noqa: F811
    shots: Path,  # noqa: F811
    table_config: ChompConfig,
    tmp_path: Path,
    wait_for: WaitFor,
) -> None:
    shown = {"ann": marker("plankton"), "bob": marker("seal"), "cat": marker("shark")}
    folder = write_frames(tmp_path / "frames", still(seats(shown), count=300))
    with served_camera(table_config, folder, wait_for) as (_, served, _):
        watcher = phone(browser, served.url, None, {"width": 360, "height": 740})
        watcher.wait_for_selector('.seat[data-seat="ann"]')
        assert watcher.is_hidden("#chomp-camera")  # setting the camera up is the code's
        page = phone(browser, served.url, served.site.code, {"width": 360, "height": 740})
        page.click("#chomp-camera summary")
        page.click("#chomp-camera-look")
        page.wait_for_function(
            "document.querySelector('#chomp-camera-view')?.naturalWidth === 640", timeout=20_000
        )
        page.screenshot(path=str(shots / "camera-setup-360.png"), full_page=True)
        assert problems_of(page, "chomp camera setup at 360") == []


def test_the_code_holder_drags_a_zones_corner_and_saves_it_into_the_config(
    browser: Any,  # noqa: F811
    shots: Path,  # noqa: F811
    table_config: ChompConfig,
    tmp_path: Path,
    wait_for: WaitFor,
) -> None:
    """Issue 26's web drag at 360 x 740: the corner square is a 48 px target, dragging it
    with the mouse widens the zone, Save zones writes [camera.zones] (comments kept) and the
    config loads back with it; the buttons move a zone without a pointer."""
    from test_camera_zones_web import config_file

    from companion.tables.chomp.config import load_config

    shown = {"ann": marker("plankton"), "bob": marker("seal"), "cat": marker("shark")}
    folder = write_frames(tmp_path / "frames", still(seats(shown), count=300))
    saved_in = config_file(tmp_path, folder)
    with served_camera(table_config, folder, wait_for, config_file=saved_in) as (_, served, table):
        page = phone(browser, served.url, served.site.code, {"width": 360, "height": 740})
        page.click("#chomp-camera summary")
        page.click("#chomp-camera-look")
        page.wait_for_function(
            "document.querySelector('#chomp-camera-view')?.naturalWidth === 640", timeout=20_000
        )
        page.wait_for_selector('#chomp-zones polygon[data-seat="ann"]')
        labels = page.eval_on_selector_all("#chomp-zones text", "ts => ts.map(t => t.textContent)")
        assert labels == ["bob", "cat", "ann (picked)"]  # named in the zone, not by colour
        page.locator("#chomp-zone-frame").scroll_into_view_if_needed()  # the mouse is on screen
        grip = page.locator('#chomp-zones rect.grip[data-seat="ann"]').bounding_box()
        assert grip is not None and grip["width"] >= 48 and grip["height"] >= 48
        frame = page.locator("#chomp-zones").bounding_box()
        assert frame is not None
        # ann's zone (x 0.02-0.32, y 0.30-0.98): its corner dragged 0.3 -> 0.25 across, up
        x, y = grip["x"] + grip["width"] / 2, grip["y"] + grip["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        for step in range(1, 6):
            page.mouse.move(x - step * 0.01 * frame["width"], y - step * 0.04 * frame["height"])
        page.mouse.up()
        where = page.inner_text("#chomp-zone-where")
        assert where.startswith("ann: 2%-27% across, 30%-78% down") and "not saved" in where
        page.select_option("#chomp-zone-seat", "cat")
        page.click('#chomp-zone-edit [data-zone="left"]')  # cat 1% left, still clear of bob
        page.screenshot(path=str(shots / "camera-zones-dragged-360.png"), full_page=True)
        assert problems_of(page, "chomp camera zones at 360") == []
        page.click("#chomp-zones-save")
        page.wait_for_function(
            "document.querySelector('#chomp-zone-where').textContent.startsWith('Zones saved')"
        )
        assert "# the camera above the table" in saved_in.read_text(encoding="utf-8")
        config = load_config(saved_in)
        assert config.camera is not None
        saved = {z.seat: z.polygon for z in config.camera.zones}
        ann_x = [p[0] for p in saved["ann"]]
        ann_y = [p[1] for p in saved["ann"]]
        assert min(ann_x) == 0.02 and 0.26 <= max(ann_x) <= 0.28
        assert min(ann_y) == 0.30 and 0.77 <= max(ann_y) <= 0.79
        assert [p[0] for p in saved["cat"]] == [0.67, 0.97, 0.97, 0.67]
        assert saved["bob"] == ((0.35, 0.30), (0.65, 0.30), (0.65, 0.98), (0.35, 0.98))
        page.screenshot(path=str(shots / "camera-zones-saved-360.png"), full_page=True)
        # A finger too: bob's zone dragged by its middle (touch, not scrolling the page).
        cdp = page.context.new_cdp_session(page)
        cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
        page.locator("#chomp-zone-frame").scroll_into_view_if_needed()
        frame = page.locator("#chomp-zones").bounding_box()
        assert frame is not None
        x, y = frame["x"] + 0.5 * frame["width"], frame["y"] + 0.6 * frame["height"]
        scrolled = page.evaluate("scrollY")
        cdp.send(
            "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]}
        )
        for step in range(1, 5):
            point = {"x": x + step * 0.005 * frame["width"], "y": y - step * 0.02 * frame["height"]}
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        assert page.evaluate("scrollY") == scrolled
        where = page.inner_text("#chomp-zone-where")
        assert where.startswith("bob: 37%-67% across, 22%-90% down"), where
