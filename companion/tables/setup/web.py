"""``companion setup --web``: the same wizard, its questions answered on a phone.

The wizard is unchanged. Its :class:`~companion.tables.setup.console.Console` asks
through :meth:`SetupPage.ask_line`, which publishes the question to the pages and waits
for the answer one page posts, and says its lines through :meth:`SetupPage.say`, which
the pages' event streams carry (the hub of ``companion web``). Every answer still enters
through the Console's text gate, after the server's body limits.

Who answers: the page that claimed the hub's seat ``maker`` (only a page holding the join
code may claim it); every other page sees "setup is in progress on another phone" and
watches. The process that runs the wizard serves the page, so the wizard owns the pins;
a second ``companion setup`` (terminal or ``--web``) is refused by app.py's lock.

Stdlib only here: the server is imported by :func:`serve_setup` when it runs.
"""

from __future__ import annotations

import collections
import queue
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from companion import text as gate
from companion.errors import CompanionError, InputError
from companion.tables.setup.app import SetupOptions, check_options, hold_the_pins, run_setup
from companion.tables.setup.console import Console, Question
from companion.tables.setup.wizard import Timing

KEEP_LINES = 400  # the transcript a page shows (a whole set-up with bounce is ~100)
MAKER = "maker"  # the one seat: the page that answers
SHOWN_ANSWER = 200  # an answer echoed longer than this is shown cut (the gate refuses it)


class SetupPage:
    """The hub's ``setup`` table and the wizard's console, over one question at a time.

    The wizard's thread blocks in :meth:`ask_line` on a queue; the server's thread puts the
    answer there from :meth:`act`. A question carries a number, so an answer sent twice (a
    double tap) or late (the page had not seen the next question) is refused, never taken
    as the answer to the next one.
    """

    name = "setup"
    seat_taken = "setup is in progress on another phone: this page can only watch"

    def __init__(self, out: Path, echo: Callable[[str], None] = lambda _: None) -> None:
        self.out = out
        self.echo = echo  # the terminal that runs it: the same transcript
        self._guard = threading.Lock()
        self._answers: queue.Queue[str | None] = queue.Queue()
        self._lines: collections.deque[dict[str, Any]] = collections.deque(maxlen=KEEP_LINES)
        self._said = 0
        self._asked = 0
        self._question: dict[str, Any] | None = None
        self.phase = "running"  # running, done (a config written or kept), failed, stopped
        self.result = ""
        self.next_step: str | None = None
        self.finished = threading.Event()  # Done was tapped: the server may stop
        self._publish: Callable[[], object] = lambda: None

    @property
    def console(self) -> Console:
        return Console(self.ask_line, self.say)

    # -- the wizard's side (its own thread) -----------------------------------------------

    def say(self, line: str) -> None:
        """A line of the wizard's: to the pages and the terminal."""
        self._add("say", line)
        self.echo(line)
        self._publish()

    def ask_line(self, prompt: str) -> str:
        """Publish ``prompt`` and wait for the answer a page sends (EOFError: stopped)."""
        question = Question.of(prompt)
        with self._guard:
            if self.phase != "running":
                raise EOFError
            self._asked += 1
            self._question = {
                "n": self._asked,
                "kind": question.kind,
                "text": question.text,
                "default": question.default,
            }
        self.echo(prompt.rstrip())
        self._publish()
        answer = self._answers.get()
        if answer is None:
            raise EOFError
        self._add("ask", prompt.strip())  # the transcript: asked and answered (the page
        # shows the question asked now on its own, with its buttons)
        said = answer.strip() if len(answer) <= SHOWN_ANSWER else answer[:SHOWN_ANSWER]
        if gate.refusal(said) is not None:  # the Console's gate refuses it: shown escaped
            said = gate.shown(answer)
        said = f"> {said or '(Enter)'}"  # the terminal's Enter: said in words
        self._add("answer", said)
        self.echo(said)
        return answer

    def _add(self, kind: str, text: str) -> None:
        with self._guard:
            self._said += 1
            self._lines.append({"n": self._said, "kind": kind, "text": text})

    def end(self, phase: str, result: str, next_step: str | None = None) -> None:
        """The wizard is over: the page shows how, and the next step."""
        with self._guard:
            self.phase, self.result, self.next_step = phase, result, next_step
            self._question = None
        self._answers.put(None)  # nothing waits any more
        self._publish()

    # -- the hub's side (the server's thread) ---------------------------------------------

    def serve(self, publish: Callable[[str], object]) -> None:
        self._publish = lambda: publish(self.name)

    def close(self) -> None:
        if self.phase == "running":
            self.end("stopped", "the set-up was stopped at the Pi")

    def seats(self) -> list[str]:
        return [MAKER]

    def seat_of(self, action: Any) -> str:
        return MAKER  # every action answers for the maker

    def state(self) -> dict[str, Any]:
        with self._guard:
            return {
                "phase": self.phase,
                "lines": list(self._lines),
                "question": self._question,
                "out": str(self.out),
                "result": self.result,
                "next": self.next_step,
            }

    def act(self, action: Any) -> None:
        kind = action["type"]
        if kind == "answer":
            self._answer(action.get("n"), action.get("text"))
        elif kind == "done":
            if self.phase == "running":
                raise InputError(
                    "type", "Done comes once the set-up is over: answer the question first"
                )
            self.finished.set()
        else:
            raise InputError("type", f"{gate.shown(str(kind))}: the set-up takes answer, done")

    def _answer(self, n: object, text: object) -> None:
        if not isinstance(text, str):
            raise InputError("text", "an answer is text (empty: the terminal's Enter)")
        if "\n" in text or "\r" in text:
            raise InputError("text", "an answer is one line")
        with self._guard:
            asked = self._question
            if asked is None or type(n) is not int or n != asked["n"]:
                raise InputError(
                    "n", "that question is no longer asked: the page shows the one asked now"
                )
            self._question = None
        self._answers.put(text)


def run_on_page(page: SetupPage, options: SetupOptions, timing: Timing | None = None) -> int:
    """The wizard with ``page`` as its console; how it ended is on the page. A wizard's
    error (no usable button, a bad config) ends it with one line there, then is raised."""
    try:
        status = run_setup(options, page.console, timing)
    except CompanionError as exc:
        page.say(f"setup stopped: {exc}")
        page.end("failed", f"setup stopped: {exc}")
        raise
    except BaseException:  # Ctrl-C at the Pi: the pages say so before the server stops
        page.end("stopped", "the set-up was stopped at the Pi")
        raise
    if status == 0:
        what = "buttons profiled" if options.bounce_only else "written and read back"
        next_step = f"companion referee --config {options.out}"
        page.end("done", f"{options.out} {what}", next_step)
    else:
        page.end("done", f"{options.out} left as it was: nothing written")
    return status


def serve_setup(
    options: SetupOptions,
    listen: str,
    new_code: bool = False,
    out: TextIO | None = None,
    timing: Timing | None = None,
) -> int:
    """``companion setup --web``: serve the page, run the wizard on it in this thread,
    then keep the page up until Done is tapped or Ctrl-C."""
    from companion.tables.web.serve import serve_tables, table_code_file

    said = sys.stdout if out is None else out

    def echo(line: str) -> None:
        print(line, file=said, flush=True)

    check_options(options)
    held = hold_the_pins()
    try:
        page = SetupPage(options.out, echo)
        code_file = table_code_file(None, "setup")
        _, running = serve_tables(
            [page], listen, said, code_file, new_code, title="companion setup"
        )
        try:
            return _run_until_done(page, options, running.thread, echo, timing)
        finally:
            running.stop()
    finally:
        held.release()


def _run_until_done(
    page: SetupPage,
    options: SetupOptions,
    server: threading.Thread,
    echo: Callable[[str], None],
    timing: Timing | None,
) -> int:
    """The wizard, then the page kept up (its last lines, the next step) until Done."""
    echo("the questions are on the page: the phone holding the join code answers them")
    try:
        status = run_on_page(page, options, timing)
    except CompanionError:
        _wait_for_done(page, server, echo)
        raise
    _wait_for_done(page, server, echo)
    return status


def _wait_for_done(page: SetupPage, server: threading.Thread, echo: Callable[[str], None]) -> None:
    echo("the set-up is over: its page stays up until Done on the phone, or Ctrl-C here")
    while server.is_alive() and not page.finished.wait(0.5):
        pass
