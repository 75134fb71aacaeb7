"""``companion setup --web`` on Starlette's test client: the whole wizard on mock pins,
answered through HTTP as a phone answers it (companion/tables/setup/web.py).

The wizard runs in a thread of its own, as it does in the command (where it is the main
thread); each test answers the question the page shows, by its number. Nothing here is
timed: a wait for the next question fails only if the wizard hangs.
"""

from __future__ import annotations

import http.cookiejar
import json as jsonlib
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import RunCli
from hypothesis import given
from hypothesis import strategies as st

from companion.errors import HardwareError
from companion.tables.chomp.config import load_config
from companion.tables.setup.app import SetupOptions, hold_the_pins
from companion.tables.setup.console import MOCK, Question, yes_prompt
from companion.tables.setup.web import SetupPage, run_on_page
from companion.tables.setup.wizard import Timing

pytest.importorskip("starlette", reason="the web extra is not installed")

from starlette.testclient import TestClient  # noqa: E402

from companion.tables.web.app import Site, create_app  # noqa: E402
from companion.tables.web.serve import build_site  # noqa: E402

FAST = Timing(rest_s=0.0, press_timeout_s=0.3, quiet_s=0.02, poll_s=0.002, tries=3)
HANG_S = 20.0  # only a wizard that hangs takes this long
DOCS = Path(__file__).resolve().parents[1] / "docs" / "setup.md"


def normal(line: str) -> str:
    """A refusal line with its process (number and command line) left out."""
    return re.sub(r"\(process \d+ \(.*\)\)", "(process N)", line.strip())


class Served:
    """The page served on the test client, the wizard running on it in a thread."""

    def __init__(self, out: Path, simulate: str = "", bounce_only: bool = False) -> None:
        self.echoed: list[str] = []
        self.page = SetupPage(out, self.echoed.append)
        self.site: Site = build_site()
        self.site.code = "c"
        self.site.hub.add(self.page)
        self.page.serve(self.site.hub.publish)
        self.app = create_app(self.site)
        options = SetupOptions(out, "mock", bounce_only, simulate)
        self.status: int | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(options,), daemon=True)
        self.thread.start()

    def _run(self, options: SetupOptions) -> None:
        try:
            self.status = run_on_page(self.page, options, FAST)
        except BaseException as exc:  # the test asserts on it
            self.error = exc

    def phone(self, code: str | None = "c") -> Phone:
        client = TestClient(self.app)
        if code is not None:
            client.get(f"/?code={code}", follow_redirects=False)
        return Phone(client)

    def stop(self) -> None:
        self.page.close()
        self.thread.join(HANG_S)


class Phone:
    """One browser: its cookies (the code, its page token), its answers."""

    def __init__(self, client: Any, origin: str = "http://testserver") -> None:
        self.client = client
        self.origin = {"origin": origin}

    def state(self) -> dict[str, Any]:
        got: dict[str, Any] = self.client.get("/api/tables/setup").json()["state"]
        return got

    def claim(self) -> Any:
        return self.client.post(
            "/api/tables/setup/seat", json={"seat": "maker"}, headers=self.origin
        )

    def next_state(self) -> dict[str, Any]:
        """The state once a question is asked or the wizard is over."""
        deadline = time.monotonic() + HANG_S
        while True:
            state = self.state()
            if state["question"] is not None or state["phase"] != "running":
                return state
            assert time.monotonic() < deadline, "the wizard asks nothing and does not end"
            time.sleep(0.005)

    def post(self, action: dict[str, Any]) -> Any:
        return self.client.post("/api/tables/setup/actions", json=action, headers=self.origin)

    def answer(self, text: str, expect: str = "") -> dict[str, Any]:
        """Answer the question asked now (its text must hold ``expect``)."""
        state = self.next_state()
        question = state["question"]
        assert question is not None, state["result"]
        assert expect in question["text"], (expect, question)
        sent = self.post({"type": "answer", "n": question["n"], "text": text})
        assert sent.status_code == 200, sent.text
        return question  # type: ignore[no-any-return]

    def lines(self) -> str:
        """The transcript once the wizard waits again (or is over)."""
        return "\n".join(line["text"] for line in self.next_state()["lines"])


class NetClient:
    """A browser's cookies and requests over the network (urllib), as the test client's."""

    @dataclass
    class Answer:
        status_code: int
        text: str

        def json(self) -> Any:
            return jsonlib.loads(self.text)

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )

    def get(self, path: str) -> NetClient.Answer:
        return self._send(urllib.request.Request(self.base + path))

    def post(self, path: str, json: Any, headers: dict[str, str]) -> NetClient.Answer:
        body = jsonlib.dumps(json).encode()
        kinds = {**headers, "content-type": "application/json"}
        return self._send(urllib.request.Request(self.base + path, body, kinds, method="POST"))

    def _send(self, request: urllib.request.Request) -> NetClient.Answer:
        try:
            with self.opener.open(request, timeout=HANG_S) as answer:
                return self.Answer(answer.status, answer.read().decode())
        except urllib.error.HTTPError as refused:
            return self.Answer(refused.code, refused.read().decode())


@pytest.fixture()
def serve(tmp_path: Path) -> Iterator[Any]:
    made: list[Served] = []

    def make(simulate: str = "", out: Path | None = None, bounce_only: bool = False) -> Served:
        made.append(Served(out or tmp_path / "table.toml", simulate, bounce_only))
        return made[-1]

    yield make
    for served in made:
        served.stop()


def play_to_the_end(phone: Phone) -> None:
    """The rehearsal of docs/setup.md, on the page: seats, three presses, typed LEDs."""
    phone.answer("ann bob cat", "seat names")
    for _ in range(3):
        phone.answer("", "press")  # the page's "press it for me": the terminal's Enter
    phone.answer("n", "a reveal button")
    phone.answer("5 6 13", "LED pins")
    for seat in ("ann", "bob", "cat"):
        phone.answer("y", f"{seat}'s LED on GPIO")
    phone.answer("", "bounce profile now")  # Enter: no


def test_the_whole_wizard_answered_over_http_writes_a_config_the_referee_reads(
    serve: Any, tmp_path: Path
) -> None:
    served = serve()
    phone = served.phone()
    assert phone.claim().status_code == 200
    play_to_the_end(phone)
    state = phone.next_state()
    assert state["phase"] == "done", state
    config = load_config(tmp_path / "table.toml")
    assert [p.button for p in config.players] == [17, 27, 22]  # found by their presses
    assert [p.led.pins for p in config.players if p.led] == [(5,), (6,), (13,)]
    assert config.pin_factory == "mock"
    assert state["next"] == f"companion referee --config {tmp_path / 'table.toml'}"
    assert "written and read back by the referee's reader: 3 seats" in phone.lines()
    # the page's transcript is the terminal's: the prompts, the answers, the lines
    assert served.echoed == [line["text"] for line in state["lines"]]
    assert "> ann bob cat" in served.echoed and "> (Enter)" in served.echoed
    served.thread.join(HANG_S)
    assert served.status == 0 and served.error is None


def test_nc_and_short_refusals_reach_the_page_in_their_one_line(serve: Any) -> None:
    served = serve("nc:16,short:27+24")
    phone = served.phone()
    phone.claim()
    phone.answer("ann bob cat", "seat names")
    phone.answer("", "press ann's button")
    phone.answer("", "press bob's button")  # GPIO27 pulls GPIO24 with it: a short
    lines = phone.lines()
    assert "GPIO16 reads pressed at rest: a button wired to NC (normally closed)" in lines
    assert "refused: GPIO24 and GPIO27 moved together: a short between them" in lines
    question = phone.answer("", "press bob's button")  # asked again, then GPIO22
    assert question["kind"] == "press"
    assert "bob's button: GPIO22" in phone.lines()


def test_the_questions_are_told_apart_yes_no_press_and_text(serve: Any) -> None:
    served = serve()
    phone = served.phone()
    phone.claim()
    first = phone.next_state()["question"]
    assert first["kind"] == "text" and first["text"].startswith("seat names")
    phone.answer("ann bob cat")
    press = phone.next_state()["question"]
    assert press["kind"] == "press" and press["text"].startswith(MOCK)
    for _ in range(3):
        phone.answer("")
    reveal = phone.next_state()["question"]
    assert reveal == {
        "n": reveal["n"],
        "kind": "yes",
        "text": "a reveal button (pressed to reveal the cards)?",
        "default": False,
    }


@given(st.text(min_size=1, max_size=60).filter(lambda t: t.strip() == t), st.booleans())
def test_a_yes_no_prompt_is_read_back_as_the_question_and_its_default(
    text: str, default: bool
) -> None:
    assert Question.of(yes_prompt(text, default)) == Question("yes", text, default)


def test_the_bounce_profile_is_pressed_from_the_page_and_written_after_its_yes(
    serve: Any, tmp_path: Path
) -> None:
    served = serve("bounce:2")
    phone = served.phone()
    phone.claim()
    phone.answer("ann bob cat", "seat names")
    for _ in range(3):
        phone.answer("", "press")
    phone.answer("n", "a reveal button")
    phone.answer("5 6 13", "LED pins")
    for _ in range(3):
        phone.answer("y", "should be lit")
    phone.answer("y", "bounce profile now")
    for seat in ("ann", "bob", "cat"):
        asked = phone.answer("", f"{seat}'s button, 20 presses")  # one tap: 20 presses
        assert asked["kind"] == "press"
    assert "ann's button: 20 presses, 5.0 edges per press" in phone.lines()
    question = phone.answer("y", "write settle_ms = 5, lockout_ms = 50 into")
    assert question["kind"] == "yes" and question["default"] is True
    assert phone.next_state()["phase"] == "done"
    config = load_config(tmp_path / "table.toml")
    assert (config.settle_ms, config.lockout_ms) == (5.0, 50.0)


def test_a_wrong_code_is_a_403_in_one_line_and_a_watcher_still_sees_the_question(
    serve: Any,
) -> None:
    served = serve()
    stranger = served.phone(code="wrongcode")
    refused = stranger.claim()
    assert refused.status_code == 403
    assert refused.text == "code: changing the table needs its join code (open ?code=...)\n"
    asked = stranger.next_state()["question"]
    assert asked["text"].startswith("seat names")  # anyone with the page may watch
    sent = stranger.post({"type": "answer", "n": asked["n"], "text": "eve mal oscar"})
    assert sent.status_code == 403 and sent.text.startswith("code: ")
    assert "> eve mal oscar" not in stranger.lines()


def test_a_second_phone_sees_setup_in_progress_and_can_only_watch(serve: Any) -> None:
    served = serve()
    first, second = served.phone(), served.phone()
    assert first.claim().status_code == 200
    taken = second.claim()
    line = "seat: setup is in progress on another phone: this page can only watch\n"
    assert (taken.status_code, taken.text) == (403, line)
    asked = second.next_state()["question"]
    sent = second.post({"type": "answer", "n": asked["n"], "text": "eve mal oscar"})
    assert (sent.status_code, sent.text) == (403, line)
    assert second.next_state()["question"] == asked  # still waiting for the first phone
    first.answer("ann bob cat", "seat names")
    assert "> ann bob cat" in second.lines()  # the watcher sees the answer


def test_a_second_wizard_on_the_same_pins_is_refused_in_one_line(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    monkeypatch.setattr(os, "geteuid", lambda: 1000)  # CI runs as root; the Pi does not
    held = hold_the_pins()  # a wizard is running (this process plays it)
    shown = re.search(r"^companion: setup is in progress on another .*$", DOCS.read_text(), re.M)
    assert shown is not None, "docs/setup.md shows the line"
    try:
        for web in ((), ("--web", "127.0.0.1:0")):
            argv = ("setup", "--pin-factory", "mock", "--out", str(tmp_path / "t.toml"), *web)
            result = run_cli(*argv, stdin="ann bob cat\n")
            assert result.status == 2, argv
            assert result.err.count("\n") == 1 and result.out == ""  # no page, no pin
            assert re.match(r"companion: setup is in progress .* \(process \d+ ", result.err)
            assert not (tmp_path / "t.toml").exists()
            assert normal(result.err) == normal(shown[0])  # the line docs/setup.md shows
    finally:
        held.release()


def test_an_answer_sent_twice_is_refused_never_taken_for_the_next_question(
    serve: Any,
) -> None:
    served = serve()
    phone = served.phone()
    phone.claim()
    asked = phone.answer("ann bob cat", "seat names")
    again = phone.post({"type": "answer", "n": asked["n"], "text": "ann bob cat"})
    assert again.status_code == 400
    assert again.text == ("n: that question is no longer asked: the page shows the one asked now\n")
    assert phone.next_state()["question"]["text"].startswith("[mock pins] press ann's")
    for n in (True, "2", None):  # a number, not a lookalike
        assert phone.post({"type": "answer", "n": n, "text": ""}).status_code == 400


def test_answers_enter_through_the_text_gate_and_the_body_limits(serve: Any) -> None:
    served = serve()
    phone = served.phone()
    phone.claim()
    asked = phone.answer("ann\x1b[2Jbob cat", "seat names")
    assert "refused: typed line: holds a control character (U+001B)" in phone.lines()
    again = phone.next_state()["question"]
    assert again["text"] == asked["text"] and again["n"] > asked["n"]  # asked again
    n = again["n"]
    for text, field in ((["ann"], "text: an answer is text"), ("ann\nbob", "text: one line")):
        sent = phone.post({"type": "answer", "n": n, "text": text})
        assert sent.status_code == 400 and sent.text.startswith(field.split(":")[0]), sent.text
    big = phone.post({"type": "answer", "n": n, "text": "a" * 70_000})
    assert big.status_code == 413  # the server's body limit, before the wizard sees it
    phone.answer("a" * 300)  # within the limits, over the console's 200 characters
    assert "refused: typed line: over 200 characters" in phone.lines()
    assert phone.next_state()["question"]["text"].startswith("seat names")


def test_an_existing_config_is_kept_without_the_page_s_yes(serve: Any, tmp_path: Path) -> None:
    out = tmp_path / "table.toml"
    out.write_text("# the maker's own\n", encoding="utf-8")
    served = serve(out=out)
    phone = served.phone()
    phone.claim()
    question = phone.answer("", "exists: overwrite it once set up?")  # Enter: no
    assert question["kind"] == "yes" and question["default"] is False
    state = phone.next_state()
    assert state["phase"] == "done" and state["next"] is None
    assert state["result"] == f"{out} left as it was: nothing written"
    assert out.read_text(encoding="utf-8") == "# the maker's own\n"


def test_an_existing_config_is_overwritten_after_the_page_s_yes(serve: Any, tmp_path: Path) -> None:
    out = tmp_path / "table.toml"
    out.write_text("# the maker's own\n", encoding="utf-8")
    phone = serve(out=out).phone()
    phone.claim()
    phone.answer("y", "exists: overwrite it once set up?")
    play_to_the_end(phone)
    assert phone.next_state()["phase"] == "done"
    assert load_config(out).names == ("ann", "bob", "cat")


def test_a_wizard_that_gives_up_says_why_on_the_page_and_done_ends_it(serve: Any) -> None:
    served = serve("nc:17,nc:27,nc:22,nc:23,nc:21")  # every button reads pressed at rest
    phone = served.phone()
    phone.claim()
    early = phone.post({"type": "done"})
    assert early.status_code == 400 and early.text.startswith("type: Done comes once")
    phone.answer("ann bob cat", "seat names")
    for _ in range(3):
        phone.answer("", "press ann's button")
    state = phone.next_state()
    assert state["phase"] == "failed" and state["question"] is None
    said = "setup stopped: setup: no usable button found for ann's button after 3 tries"
    assert said in phone.lines() and state["result"] == said
    served.thread.join(HANG_S)
    assert isinstance(served.error, HardwareError)
    watcher = served.phone(code=None)
    assert watcher.post({"type": "done"}).status_code == 403  # only the maker's phone
    assert phone.post({"type": "done"}).status_code == 200
    assert served.page.finished.is_set()


def test_companion_setup_web_end_to_end_until_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command: the URL and join code printed, the wizard on the page, Done stops it."""
    import io
    import os

    from companion.cli import main
    from companion.tables.setup import web

    monkeypatch.setattr(os, "geteuid", lambda: 1000)  # CI runs as root; the Pi does not
    out, printed = tmp_path / "table.toml", io.StringIO()
    real = web.serve_setup
    monkeypatch.setattr(
        web, "serve_setup", lambda *a, **k: real(*a, **{**k, "out": printed, "timing": FAST})
    )
    argv = ["setup", "--web", "127.0.0.1:0", "--pin-factory", "mock", "--out", str(out)]
    done: list[int] = []
    thread = threading.Thread(target=lambda: done.append(main(argv)), daemon=True)
    thread.start()
    deadline = time.monotonic() + HANG_S
    while not (
        found := re.search(
            r"companion setup: open (\S+) on a phone .* join code (\w+)", printed.getvalue()
        )
    ):
        assert time.monotonic() < deadline and thread.is_alive(), printed.getvalue()
        time.sleep(0.01)
    url, code = found[1], found[2]
    assert f"Scan to join: {url}?code={code}" in printed.getvalue()
    with urllib.request.urlopen(f"{url}static/setup.js") as served:
        assert b"setup is in progress on another phone" in served.read()
    phone = Phone(NetClient(url.rstrip("/")), url.rstrip("/"))  # a phone over the network
    phone.client.get(f"/?code={code}")
    assert phone.claim().status_code == 200
    play_to_the_end(phone)
    assert phone.next_state()["phase"] == "done"
    assert phone.post({"type": "done"}).status_code == 200
    thread.join(HANG_S)
    assert done == [0]
    assert [p.button for p in load_config(out).players] == [17, 27, 22]
    text = printed.getvalue()
    assert "> ann bob cat" in text and "the set-up is over: its page stays up until Done" in text
