"""``companion setup``: from a wired table to a ``table.toml`` the referee reads.

The flow asks the seat names, finds each button by its press (every free GPIO is
watched with its pull-up on), the reveal button, then the outputs (lit one at a time, or
typed), writes the config with comments and reads it back with the referee's own reader.
Each wiring fault it can see is one line: a button on NC, a floating input, two pins
that move together, a pin an enabled interface holds or another seat has.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from companion import text as gate
from companion.devices.pins import OpenedFactory
from companion.devices.probe import (
    INTERFACE_PINS,
    PinEdge,
    PinWatch,
    Reservations,
    light,
    tone,
)
from companion.devices.wiring import BuzzerKind, parse_pin
from companion.errors import HardwareError, InputError
from companion.files import check_target, write_atomic
from companion.games.chomp import Mode, player_range
from companion.tables.chomp.config import TYPABLE_NAME, ChompConfig, load_config
from companion.tables.setup.bounce import (
    PRESSES_ASKED,
    BounceProfile,
    Recommendation,
    StampedEdge,
    bursts,
    profile,
    recommend,
)
from companion.tables.setup.console import Console, Hands
from companion.tables.setup.render import FoundWiring

INTERFACE_PIN_SET = {p for pins in INTERFACE_PINS.values() for p in pins}


@dataclass(frozen=True)
class Timing:
    """How long the wizard watches (shorter in tests; nothing is asserted on time)."""

    rest_s: float = 1.0  # watched with nobody touching: NC and floating inputs show
    press_timeout_s: float = 30.0  # no press by then: one line, and wait again
    quiet_s: float = 0.15  # a press's edges are in once the pins are this quiet
    poll_s: float = 0.01
    tries: int = 5  # refused or missed presses before the wizard gives up on a seat


@dataclass
class Wizard:
    opened: OpenedFactory
    console: Console
    hands: Hands
    reservations: Reservations
    timing: Timing = field(default_factory=Timing)
    flagged: dict[int, str] = field(default_factory=dict)  # pin -> its fault's line
    moved: set[int] = field(default_factory=set)  # pins a press moved: never driven

    # -- the rest check -------------------------------------------------------------------

    def rest_check(self, watch: PinWatch) -> None:
        """Pins that read pressed, or change, with nobody touching anything."""
        watch.take()
        self.hands.at_rest()
        time.sleep(self.timing.rest_s)
        moved = {e.pin for e in watch.take()}
        for pin in sorted(watch.low_now()):
            self.flagged[pin] = (
                f"GPIO{pin} reads pressed at rest: a button wired to NC (normally closed) or "
                "a wire to ground; move the wire to the microswitch's NO tab"
            )
        for pin in sorted(moved - set(self.flagged)):
            self.flagged[pin] = (
                f"GPIO{pin} changes with nobody pressing: a floating input (a loose wire, or "
                "a long one picking up noise); fix the wire"
            )
        for _, why in sorted(self.flagged.items()):
            self.console.say(f"{why} (left out until setup runs again)")
        for pin, why in sorted(watch.unopened.items()):
            self.console.say(f"GPIO{pin} not watched: {why}")

    # -- finding a button by its press ----------------------------------------------------

    def _edges_of_one_press(self, watch: PinWatch) -> list[PinEdge] | None:
        """The edges of the next press (until the pins are quiet), or None on timeout."""
        deadline = time.monotonic() + self.timing.press_timeout_s
        edges: list[PinEdge] = []
        quiet_since = time.monotonic()
        while True:
            new = watch.take()
            now = time.monotonic()
            if new:
                edges += new
                quiet_since = now
            elif edges and now - quiet_since >= self.timing.quiet_s:
                return edges
            elif not edges and now >= deadline:
                return None
            time.sleep(self.timing.poll_s)

    def _refusal(self, pins: set[int], found: FoundWiring) -> str | None:
        """Why the pins that moved cannot be this button, in one line; None if one fits."""
        if len(pins) > 1:
            named = " and ".join(f"GPIO{p}" for p in sorted(pins))
            return (
                f"{named} moved together: a short between them (a stray strand, a solder "
                "bridge or a shared wire); fix it, then press again"
            )
        (pin,) = pins
        used = found.used()
        if pin in used:
            return f"GPIO{pin} is already {used[pin]}: press this one's own button"
        interface = self.reservations.pins.get(pin)
        if interface is not None:
            return (
                f"GPIO{pin} is reserved by {interface}, enabled in {self.reservations.source}: "
                f"move the button to a free pin, or turn {interface} off (sudo raspi-config)"
            )
        return None

    def find_button(self, watch: PinWatch, what: str, found: FoundWiring) -> int:
        """Wait for the press of ``what`` and return its pin; refusals are one line each."""
        for _ in range(self.timing.tries):
            self.console.say(f"press {what} (and let go)")
            self.hands.press(f"press {what}", None, 1)
            edges = self._edges_of_one_press(watch)
            if edges is None:
                self.console.say(
                    f"no press seen in {self.timing.press_timeout_s:g} s on any watched pin: "
                    "check the button's wire to its pin and its ground wire"
                )
                continue
            self.moved |= {e.pin for e in edges}
            faulty = sorted({e.pin for e in edges} & set(self.flagged))
            for pin in faulty:
                self.console.say(f"refused: {self.flagged[pin]}")
            pressed = {e.pin for e in edges if e.pressed} - set(self.flagged)
            if not pressed:
                continue
            refusal = self._refusal(pressed, found)
            if refusal is None:
                (pin,) = pressed
                self.console.say(f"{what}: GPIO{pin}")
                return pin
            self.console.say(f"refused: {refusal}")
        raise HardwareError(
            f"setup: no usable button found for {what} after {self.timing.tries} tries"
        )

    # -- seat names -----------------------------------------------------------------------

    def ask_seats(self) -> list[str]:
        low, high = player_range(Mode.STANDARD)
        while True:
            answer = self.console.ask("seat names, in seat order (e.g. ann bob cat dan): ")
            try:
                return _seats(answer.replace(",", " ").split(), low, high)
            except InputError as exc:
                self.console.say(f"refused: {exc}")

    # -- outputs --------------------------------------------------------------------------

    def find_outputs(self, watch: PinWatch, found: FoundWiring) -> None:
        """LEDs, status LED and buzzer: typed by the maker, or lit one free pin at a time."""
        typed = self.console.ask(
            "LED pins in seat order (e.g. 5 6 13), or Enter to light each free pin in turn: "
        )
        if typed:
            self._typed_leds(typed.replace(",", " ").split(), watch, found)
            return
        self.console.say(
            "lighting the free pins one at a time: press no button meanwhile (a button "
            "pressed on a lit pin shorts it to ground)"
        )
        used = found.used()
        candidates = sorted(
            (
                p
                for p in watch.watched
                if p not in used
                and p not in self.flagged
                and p not in self.moved
                and p not in self.reservations.pins
            ),
            key=lambda p: (p in INTERFACE_PIN_SET, p),  # I2C, SPI, UART pins last
        )
        for pin in candidates:
            if self._sweep_done(found):
                break
            watch.release([pin])
            answer = self._ask_lit(pin, found)
            if answer == "done":
                break

    def _sweep_done(self, found: FoundWiring) -> bool:
        return (
            len(found.leds) == len(found.seats)
            and found.buzzer is not None
            and found.status_led is not None
        )

    def _ask_lit(self, pin: int, found: FoundWiring) -> str:
        device = light(self.opened, pin)
        try:
            self.hands.show(pin)
            while True:
                answer = self.console.ask(
                    f"GPIO{pin} is on: what lit? (a seat's name, status, buzzer; Enter: "
                    "nothing; done) "
                )
                refusal = _take_output(answer, pin, found)
                if refusal is None:
                    return answer.lower()
                self.console.say(f"refused: {refusal}")
        finally:
            device.close()

    def _typed_leds(self, words: Sequence[str], watch: PinWatch, found: FoundWiring) -> None:
        for seat, word in zip(found.seats, words, strict=False):
            try:
                pin = parse_pin(word, f"{seat}'s LED")
            except InputError as exc:
                self.console.say(f"refused: {exc}; {seat} gets no LED")
                continue
            used = found.used()
            held = used.get(pin)
            if held is None and pin in self.reservations.pins:
                held = f"reserved by {self.reservations.pins[pin]}"
            elif held is None and pin in self.moved | set(self.flagged):
                held = "wired to a button (it moved): driving it could short it"
            if held is not None:
                self.console.say(f"refused: GPIO{pin} is {held}; {seat} gets no LED")
                continue
            watch.release([pin])
            device = light(self.opened, pin)
            try:
                self.hands.show(pin)
                if self.console.yes(f"{seat}'s LED on GPIO{pin} should be lit: is it?", True):
                    found.leds[seat] = pin
                else:
                    self.console.say(
                        f"{seat} gets no LED: an LED that stays dark is usually the wrong way "
                        "round (long leg to the pin's resistor) or on another pin"
                    )
            finally:
                device.close()

    def buzzer_kind(self, found: FoundWiring) -> None:
        """Active (its own tone on a high pin) or passive (clicks: it needs a square wave)."""
        if found.buzzer is None:
            return
        if self.console.yes("did the buzzer sound a steady tone (an active buzzer)?", True):
            return
        found.buzzer_kind = BuzzerKind.PASSIVE
        device = tone(self.opened, found.buzzer)
        try:
            if not self.console.yes("a passive buzzer, then: does it beep now?", True):
                self.console.say(
                    "the buzzer is kept as passive: check its transistor's legs "
                    "(hardware/WIRING.md)"
                )
        finally:
            device.close()


def seat_names(words: Sequence[str], where: str = "seat names") -> list[str]:
    """Seat names through the text gate and the referee's rule (typable, distinct)."""
    seats: list[str] = []
    for i, word in enumerate(words):
        name = gate.name(word, f"seat {i + 1}")
        if not TYPABLE_NAME.fullmatch(name):
            raise InputError(f"seat {i + 1}", f"{name!r}: letters, digits, '-' or '_' only")
        if gate.name_key(name) in {gate.name_key(s) for s in seats}:
            raise InputError(f"seat {i + 1}", f"{name!r} is named twice")
        seats.append(name)
    if not seats:
        raise InputError(where, "name at least one seat")
    return seats


def _seats(words: Sequence[str], low: int, high: int) -> list[str]:
    """The wiring's seats: named as :func:`seat_names` says, as many as a table has."""
    seats = seat_names(words)
    if not low <= len(seats) <= high:
        raise InputError(
            "seat names", f"a CHOMP! table has {low} to {high} seats, not {len(seats)}"
        )
    return seats


def _take_output(answer: str, pin: int, found: FoundWiring) -> str | None:
    """Record what the maker saw on ``pin``; a refusal line when the answer does not fit."""
    word = answer.lower()
    if word in ("", "done"):
        return None
    if word == "buzzer":
        if found.buzzer is not None:
            return f"the buzzer is already GPIO{found.buzzer}"
        found.buzzer = pin
        return None
    if word == "status":
        if found.status_led is not None:
            return f"the status LED is already GPIO{found.status_led}"
        found.status_led = pin
        return None
    seat = next((s for s in found.seats if gate.name_key(s) == gate.name_key(answer)), None)
    if seat is None:
        return (
            f"{gate.shown(answer)} is not a seat ({', '.join(found.seats)}), 'status' or 'buzzer'"
        )
    if seat in found.leds:
        return f"{seat}'s LED is already GPIO{found.leds[seat]}"
    found.leds[seat] = pin
    return None


def bounce_profile(
    wizard: Wizard, watch: PinWatch, buttons: dict[str, int]
) -> tuple[list[BounceProfile], Recommendation]:
    """20 presses per button: each one's profile (its line said) and the timing advised."""
    profiles: list[BounceProfile] = []
    for what, pin in buttons.items():
        wizard.console.say(f"press {what} {PRESSES_ASKED} times, as in a game")
        watch.take()
        wizard.hands.press(f"{what}, {PRESSES_ASKED} presses", pin, PRESSES_ASKED)
        edges = _collect(wizard, watch, pin)
        result = profile(what, [StampedEdge(e.stamp_ns, e.pressed) for e in edges])
        profiles.append(result)
        wizard.console.say(result.line())
    advice = recommend(profiles)
    wizard.console.say(
        f"recommended: settle_ms = {advice.settle_ms:g}, lockout_ms = {advice.lockout_ms:g}"
    )
    return profiles, advice


def _collect(wizard: Wizard, watch: PinWatch, pin: int) -> list[PinEdge]:
    """``pin``'s edges until it has given the presses asked for and gone quiet, or timed out."""
    edges: list[PinEdge] = []
    t = wizard.timing
    last = time.monotonic()
    while True:
        new = [e for e in watch.take() if e.pin == pin]
        now = time.monotonic()
        if new:
            edges += new
            last = now
        presses = sum(
            1 for b in bursts([StampedEdge(e.stamp_ns, e.pressed) for e in edges]) if b.pressed
        )
        quiet = now - last
        if presses >= PRESSES_ASKED and quiet >= max(t.quiet_s, 0.05):
            return edges
        if quiet >= t.press_timeout_s:
            return edges
        time.sleep(t.poll_s)


def may_write(console: Console, path: Path) -> bool:
    """Asked before anything else: a file already there is overwritten only with a yes.

    A path that cannot be a config (a folder, a device, a link, a missing folder) is one
    InputError here, before the maker has pressed a single button.
    """
    check_out(path)
    if path.exists() and not console.yes(f"{path} exists: overwrite it once set up?", False):
        console.say(f"{path} left as it was; nothing written (--out names another file)")
        return False
    return True


def check_out(path: Path) -> None:
    """A path a config can be written at, or one InputError (checked again at the start of
    the wizard; ``--web`` checks it before it serves a page)."""
    check_target(path)
    if not path.resolve().parent.is_dir():
        raise InputError("--out", f"{path}: no folder {path.resolve().parent} to write it in")


def write_config(console: Console, path: Path, text: str) -> ChompConfig:
    """Write ``text`` at ``path`` and read it back with the referee's own reader."""
    write_atomic(path, text, safe=f"{path} is unchanged")
    config = load_config(path)
    console.say(
        f"{path} written and read back by the referee's reader: {len(config.players)} seats, "
        f"settle_ms {config.settle_ms:g}, lockout_ms {config.lockout_ms:g}"
    )
    return config
