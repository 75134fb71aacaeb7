"""The wizard's two ends: a console (prompts in, lines out) and the maker's hands.

Both are injected, so the whole wizard runs in a test without a terminal: the console
answers from a script, and the hands drive mock pins. On a Pi the hands do nothing (the
maker presses real buttons); on mock pins (``--pin-factory mock``) they are a simulated
table, and Enter at a prompt presses its next button.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal, Protocol

from companion import text as gate
from companion.devices.probe import SimulatedTable
from companion.errors import InputError

MOCK = "[mock pins] "  # the simulated table's lines and prompts begin so
ENTER_PRESSES = "Enter (or any word) presses"
YES_NO = re.compile(r"(?P<text>.*?) \[(?P<default>Y/n|y/N)\]\s*", re.S)


def yes_prompt(question: str, default: bool) -> str:
    """A yes/no question as the terminal shows it (``[Y/n]``: Enter is yes)."""
    return f"{question} [{'Y/n' if default else 'y/N'}] "


@dataclass(frozen=True)
class Question:
    """What a prompt asks for, read from the prompts this module makes: a page shows a
    yes/no question as two buttons and the simulated table's Enter as one, not a text box."""

    kind: Literal["text", "yes", "press"]
    text: str
    default: bool | None = None  # a yes/no question's answer on Enter

    @classmethod
    def of(cls, prompt: str) -> Question:
        yes = YES_NO.fullmatch(prompt)
        if yes:
            return cls("yes", yes["text"].strip(), yes["default"] == "Y/n")
        if prompt.startswith(MOCK):  # the page's button is the terminal's Enter
            return cls("press", prompt.replace(ENTER_PRESSES, "the button below presses").strip())
        return cls("text", prompt.strip())


@dataclass
class Console:
    """Prompts through ``ask`` (``input`` on a terminal), lines through ``say``."""

    ask_line: Callable[[str], str]
    say: Callable[[str], None]

    def ask(self, prompt: str) -> str:
        """One typed line through the text gate (a refused one is asked again); the end of
        input stops the wizard."""
        while True:
            try:
                answer = self.ask_line(prompt)
            except EOFError:
                raise InputError("standard input", "ended before the set-up was finished") from None
            try:
                return gate.clean(answer, "typed line", limit=200).strip()
            except InputError as exc:
                self.say(f"refused: {exc}")

    def yes(self, prompt: str, default: bool) -> bool:
        """A yes/no question; Enter takes ``default``."""
        while True:
            answer = self.ask(yes_prompt(prompt, default)).lower()
            if not answer:
                return default
            if answer in ("y", "yes", "n", "no"):
                return answer.startswith("y")
            self.say("refused: answer y or n")


def scripted(answers: Iterable[str], out: list[str]) -> Console:
    """A console that answers from ``answers`` and keeps every line (prompts too) in ``out``."""
    pending = iter(answers)

    def ask(prompt: str) -> str:
        out.append(prompt)
        try:
            return next(pending)
        except StopIteration:
            raise EOFError from None

    return Console(ask, out.append)


class Hands(Protocol):
    """What the maker does at the table, where the wizard waits for it."""

    def at_rest(self) -> None: ...

    def press(self, what: str, pin: int | None, times: int) -> None: ...

    def show(self, pin: int) -> None: ...


class RealHands:
    """On a Pi the maker's own hands press the buttons: nothing to simulate."""

    def at_rest(self) -> None:
        return None

    def press(self, what: str, pin: int | None, times: int) -> None:
        return None

    def show(self, pin: int) -> None:
        return None


@dataclass
class MockHands:
    """The maker on mock pins: Enter at the prompt presses the simulated table's button.

    ``pin`` None is "the next button of the table" (finding buttons); a pin is pressed
    ``times`` times (the bounce profile).
    """

    table: SimulatedTable
    console: Console

    def at_rest(self) -> None:
        self.table.at_rest()

    def press(self, what: str, pin: int | None, times: int) -> None:
        target = f"GPIO{pin}" if pin is not None else "the next button of the simulated table"
        count = f" {times} times" if times > 1 else ""
        self.console.ask(f"{MOCK}{what}: {ENTER_PRESSES} {target}{count} ")
        if pin is None:
            self.table.press_next(reveal="reveal" in what)
            return
        for _ in range(times):
            self.table.press(pin)

    def show(self, pin: int) -> None:
        self.console.say(
            f"{MOCK}GPIO{pin} is high: on the simulated table that lights {self.table.lit(pin)}"
        )
