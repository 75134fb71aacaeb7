"""``companion setup --web`` in a real browser: Debian's chromium, driven by Playwright, on
a 360 x 740 phone, plays the whole wizard on mock pins to a written ``table.toml``.

The command's own server runs (``serve_setup``, uvicorn on a free port) with the wizard
in a thread of its own; one phone answers, a second phone with the join code only
watches. At each kind of question (text, the simulated table's press, yes/no) and at the
end the page is checked as every tab is (tests/test_web_phone_fit.py): no sideways
scroll, every target at least 48 x 48 CSS px, no critical or serious axe-core finding.
The mid-wizard screenshot is docs/img/setup-web.png (``$COMPANION_SCREENSHOTS``).
"""

from __future__ import annotations

import io
import os
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_web_browser import browser, phone, shots  # noqa: F401
from test_web_phone_fit import problems_of

from companion.tables.chomp.config import load_config
from companion.tables.setup.app import SetupOptions
from companion.tables.setup.web import serve_setup

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SMALL_PHONE = {"width": 360, "height": 740}
HANG_S = 30.0  # only a hang takes this long


class Command:
    """``companion setup --web 127.0.0.1:0 --pin-factory mock`` in a thread: its output,
    its address and join code, and its exit status once Done is tapped."""

    def __init__(self, out: Path, simulate: str) -> None:
        self.printed = io.StringIO()
        self.status: list[object] = []
        options = SetupOptions(out, "mock", simulate=simulate)
        self.thread = threading.Thread(target=self._run, args=(options,), daemon=True)
        self.thread.start()
        deadline = time.monotonic() + HANG_S
        pattern = r"companion setup: open (http://\S+)/ on a phone .* join code (\w+)"
        while not (found := re.search(pattern, self.printed.getvalue())):
            assert time.monotonic() < deadline and self.thread.is_alive(), self.printed.getvalue()
            time.sleep(0.01)
        self.url, self.code = found[1], found[2]

    def _run(self, options: SetupOptions) -> None:
        try:
            self.status.append(serve_setup(options, "127.0.0.1:0", out=self.printed))
        except BaseException as exc:  # the test asserts on it
            self.status.append(exc)


@pytest.fixture()
def command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Command]:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)  # CI runs as root; the Pi does not
    yield Command(tmp_path / "table.toml", "nc:16,short:27+24")


def asked(page: Any, after: int) -> int:
    """Wait for the question after number ``after``; its number."""
    page.wait_for_function(
        "n => setup.state && setup.state.question && setup.state.question.n > n", arg=after
    )
    n: int = page.evaluate("setup.state.question.n")
    return n


def answer_text(page: Any, n: int, text: str) -> int:
    n = asked(page, n)
    page.fill("#setup-text", text)
    page.click("#setup-form button[type=submit]")
    return n


def tap(page: Any, n: int, button: str) -> int:
    n = asked(page, n)
    page.click(button)
    return n


def test_a_phone_plays_the_whole_wizard_at_360_px_to_a_written_config(
    browser: Any,  # noqa: F811
    command: Command,
    shots: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    found: list[str] = []
    maker = phone(browser, command.url, command.code, SMALL_PHONE, scale=2, timeout_ms=20_000)  # type: ignore[arg-type]
    maker.wait_for_selector("#tab-setup:not([hidden]) #setup-take:not([hidden])")
    assert maker.inner_text("#setup-status") == "Nobody answers yet: answer from this phone?"
    maker.click("#setup-take")
    n = asked(maker, 0)
    # The state arrives before the page has drawn it: wait for the drawing, then look.
    maker.wait_for_selector("#setup-text", state="visible")
    assert not maker.is_visible("#setup-yes")
    found += problems_of(maker, "a text question")
    n = answer_text(maker, 0, "ann bob cat")
    n = tap(maker, n, "#setup-press")  # ann's button: GPIO17
    n = tap(maker, n, "#setup-press")  # bob's: GPIO27 pulls GPIO24 with it, refused
    n = asked(maker, n)
    maker.wait_for_selector("#setup-lines .refused >> text=moved together")
    refused = maker.locator("#setup-lines .refused").all_inner_texts()
    assert any(t.startswith("refused: GPIO24 and GPIO27 moved together") for t in refused)
    assert maker.inner_text("#setup-press") == "Press it for me"
    found += problems_of(maker, "a press on mock pins")
    maker.screenshot(path=str(shots / "setup-web.png"))

    watcher = phone(browser, command.url, command.code, SMALL_PHONE, scale=1)  # type: ignore[arg-type]
    watcher.wait_for_selector("#tab-setup:not([hidden]) #setup-lines .refused")
    assert watcher.inner_text("#setup-status") == (
        "setup is in progress on another phone: this page can only watch"
    )
    for control in ("#setup-take", "#setup-text", "#setup-press", "#setup-yes"):
        assert not watcher.is_visible(control), control
    assert watcher.inner_text("#setup-question").startswith("[mock pins] press bob's button")

    maker.click("#setup-press")  # bob's again: GPIO22
    n = tap(maker, n, "#setup-press")  # cat's: GPIO23
    n = asked(maker, n)
    assert maker.inner_text("#setup-question") == (
        "a reveal button (pressed to reveal the cards)? (the terminal's Enter: no)"
    )
    found += problems_of(maker, "a yes/no question")
    maker.click("#setup-no")
    n = answer_text(maker, n, "5 6 13")
    for _ in range(3):
        n = tap(maker, n, "#setup-yes")  # each seat's LED lit
    n = tap(maker, n, "#setup-no")  # no bounce profile now
    maker.wait_for_selector("#setup-end:not([hidden])")
    out = tmp_path / "table.toml"
    assert maker.inner_text("#setup-next") == f"companion referee --config {out}"
    assert maker.inner_text("#setup-status") == f"{out} written and read back"
    found += problems_of(maker, "the end")
    watcher.wait_for_selector("#setup-end:not([hidden])")
    assert not watcher.is_visible("#setup-done")  # only the phone that answered ends it
    assert not found, "\n".join(found)

    maker.click("#setup-done")
    command.thread.join(HANG_S)
    assert command.status == [0]
    config = load_config(out)
    assert [p.button for p in config.players] == [17, 22, 23]  # GPIO27 was refused
    assert [p.led.pins for p in config.players if p.led] == [(5,), (6,), (13,)]
    watcher.wait_for_selector("#live >> text=the table stopped")
