"""The camera on the phones' page, in a real browser: the seats the camera read are listed,
only the others are tapped, and the round's frame is shown beside its picture; the page
still fits a small phone and passes axe-core.
"""

from __future__ import annotations

import time
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


def test_the_page_asks_only_the_covered_seat_and_shows_the_cameras_frame(
    browser: Any,  # noqa: F811
    shots: Path,  # noqa: F811
    table_config: ChompConfig,
    tmp_path: Path,
    wait_for: WaitFor,
) -> None:
    shown = {"ann": marker("plankton"), "bob": marker("seal"), "cat": marker("shark")}
    folder = write_frames(tmp_path / "frames", still(seats(shown), covered=[(0.83, 0.62)]))
    opened: list[ChompSession] = []
    session, _ = open_table(camera_table(table_config, folder, 600), opened, wait_for)
    served = Served([ChompWebTable(session)], [session.daemon.run])
    try:
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
    finally:
        while OPEN:
            OPEN.pop().close()
        served.close()
        session.close()


def test_the_code_holder_sees_the_camera_with_the_zones_between_rounds(
    browser: Any,  # noqa: F811
    shots: Path,  # noqa: F811
    table_config: ChompConfig,
    tmp_path: Path,
    wait_for: WaitFor,
) -> None:
    shown = {"ann": marker("plankton"), "bob": marker("seal"), "cat": marker("shark")}
    folder = write_frames(tmp_path / "frames", still(seats(shown), count=300))
    opened: list[ChompSession] = []
    session, _ = open_table(camera_table(table_config, folder), opened, wait_for)
    served = Served([ChompWebTable(session)], [session.daemon.run])
    try:
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
    finally:
        while OPEN:
            OPEN.pop().close()
        served.close()
        session.close()
