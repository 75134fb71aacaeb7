"""The wizard's two ends: a console (prompts in, lines out) and the maker's hands.

Both are injected, so the whole wizard runs in a test without a terminal: the console
answers from a script, and the hands drive mock pins. On a Pi the hands do nothing (the
maker presses real buttons); on mock pins (``--pin-factory mock``) they are a simulated
table, and Enter at a prompt presses its next button.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from companion import text as gate
from companion.devices.probe import SimulatedTable
from companion.errors import InputError


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
            answer = self.ask(f"{prompt} [{'Y/n' if default else 'y/N'}] ").lower()
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
        self.console.ask(f"[mock pins] {what}: Enter (or any word) presses {target}{count} ")
        if pin is None:
            self.table.press_next(reveal="reveal" in what)
            return
        for _ in range(times):
            self.table.press(pin)

    def show(self, pin: int) -> None:
        self.console.say(
            f"[mock pins] GPIO{pin} is high: on the simulated table that lights "
            f"{self.table.lit(pin)}"
        )
