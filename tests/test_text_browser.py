"""A hostile seat name in a real browser: the round picture draws it as text, never runs it.

Same chromium and helpers as tests/test_web_browser.py (imported from it, so the same
skip applies); the demo table served as in tests/test_web_browser_tables.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_web_browser import browser, phone  # noqa: F401
from test_web_browser_tables import Served

from companion import text as gate
from companion.games.chomp import Mode, TwoPlayerEnd
from companion.referee.journal import read_journal
from companion.tables.chomp.demo import open_demo
from companion.tables.chomp.web import ChompWebTable

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Runs as script wherever a page parses it as HTML: the round picture's <title> did.
# 23 characters, so it passes the name gate (24 at most) as any seat name may.
HOSTILE = "<img src=x onerror=P=1>"


def test_a_seat_named_as_script_is_drawn_as_text_on_its_bad_chomp(
    browser: Any,  # noqa: F811
    tmp_path: Path,
) -> None:
    assert gate.name(HOSTILE, "--players") == HOSTILE  # a name the gate lets in
    session, simulated = open_demo(
        ["you", HOSTILE, "finn"], [], Mode.STANDARD, TwoPlayerEnd.COUNT, seed=5,
        journal=tmp_path / "demo.jsonl",
    )  # fmt: skip
    served = Served([ChompWebTable(session, simulated.press)], [session.daemon.run])
    try:
        page = phone(browser, served.url, served.site.code)
        page.click("#chomp-start")
        page.wait_for_function(
            "document.querySelector('#chomp-status').textContent.includes('count')"
        )
        simulated.press(HOSTILE)  # during the countdown: a false start, a bad chomp
        page.wait_for_function(
            "document.querySelector('#chomp-status').textContent.includes('revealed')"
        )
        simulated.press("you")  # a slap after the reveal (a bad one too): decided at the end
        page.wait_for_selector("#chomp-picture svg .bad", state="attached", timeout=30_000)
        entries = read_journal(session.config.journal).entries
        assert HOSTILE in str([e for e in entries if e["type"] == "verdict"])
        assert page.evaluate("typeof window.P") == "undefined"  # the handler never ran
        assert page.eval_on_selector_all("#chomp-picture img", "found => found.length") == 0
        titles = page.eval_on_selector_all(
            "#chomp-picture svg title", "found => found.map(t => t.textContent)"
        )
        assert any(t.startswith(HOSTILE) for t in titles)  # the name is there, as text
    finally:
        served.close()
        simulated.close()
        session.close()
