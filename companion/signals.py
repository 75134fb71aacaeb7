"""The shared vocabulary of the table: what a source hears and what the table shows.

Everything here is plain data with one meaning each, so the referee, the devices, the
table apps and (through an adapter) the Pico bridge can all speak it without importing
each other: a press is a :class:`ButtonEdge`, the instant the cards were turned is a
:class:`RevealStamp`, and what the lights and the buzzer should say is a :class:`Cue`.

Every stamp is an integer of nanoseconds on the host's monotonic timeline (the one
``time.monotonic_ns()`` reads: CLOCK_MONOTONIC on Linux, which is also the clock the kernel
stamps GPIO edges with). A source that stamps elsewhere (the Pico's microsecond timer)
maps its stamps onto this timeline before handing them over, and says how sure it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class TimingClass(StrEnum):
    """Where a stamp was taken, which bounds how finely two presses can be ordered."""

    KERNEL_EDGE = "kernel_edge"  # lgpio: the kernel stamps the edge in its interrupt handler
    MCU_TIMER = "mcu_timer"  # the Pico bridge: the microcontroller's microsecond timer
    CALLBACK = "callback"  # RPi.GPIO / native: time.monotonic() when Python's callback ran
    SAMPLED = "sampled"  # pigpio: 5 us DMA samples (not on a Pi 5)
    MOCK = "mock"  # gpiozero MockFactory: stamped when the test drives the pin
    KEYBOARD = "keyboard"  # the demo's keys: stamped when the terminal delivered the key


# Typical worst-case error of one stamp, in microseconds, per class. A source may state a
# different figure (the bridge states the error bar of its clock sync).
DEFAULT_UNCERTAINTY_US: dict[TimingClass, int] = {
    TimingClass.KERNEL_EDGE: 20,
    TimingClass.MCU_TIMER: 50,
    TimingClass.CALLBACK: 5_000,
    TimingClass.SAMPLED: 5,
    TimingClass.MOCK: 1,
    TimingClass.KEYBOARD: 20_000,
}


@dataclass(frozen=True, slots=True)
class SourceInfo:
    """A press source as the referee reports it at start and in the journal."""

    name: str  # "gpio", "bridge", "keyboard"
    timing: TimingClass
    uncertainty_us: int
    detail: str = ""  # e.g. "lgpio on /dev/gpiochip4"


@dataclass(frozen=True, slots=True)
class ButtonEdge:
    """A player's button changed state: pressed (the slap) or released."""

    player: str
    pressed: bool
    stamp_ns: int  # host monotonic nanoseconds, as stamped at the edge
    source: str  # SourceInfo.name
    seq: int  # per-source sequence number, to spot gaps and duplicates


class RevealBy(StrEnum):
    """What turns the cards over: a table's ``referee.reveal`` setting, and the journal's
    ``how`` of each reveal (the same text as before this was an enum)."""

    COUNTDOWN = "countdown"  # beeps, then the reveal instant at the long beep
    BUTTON = "button"  # a dedicated reveal button's edge is the reveal instant
    KEY = "key"  # a key at the screen (Space, or "reveal" in the line mode; the demo)
    PROGRAM = "program"  # a caller's own code stamped it: a test rig, a benchmark (docs/api.md)

    @classmethod
    def parse(cls, text: str, where: str = "reveal.how") -> RevealBy:
        """The member named by ``text``; an older journal's "bench" or "test" (written by
        the benchmarks and tests before this was an enum) reads as PROGRAM. ValueError
        naming the ways otherwise (a reader says where: the journal names its line)."""
        try:
            return cls(LEGACY_REVEAL_BY.get(text, text))
        except ValueError:
            known = ", ".join(m.value for m in cls)
            raise ValueError(f"{where}: {text!r} is not a way to reveal ({known})") from None


LEGACY_REVEAL_BY = {"bench": "program", "test": "program"}
TABLE_REVEALS = (RevealBy.COUNTDOWN, RevealBy.BUTTON, RevealBy.KEY)  # a config's choices


@dataclass(frozen=True, slots=True, init=False)
class RevealStamp:
    """The instant the cards were turned over: the end of the countdown, or a button.

    ``how`` may be given as its text ("button"); it is checked here, where it enters, so
    an unknown way is a ValueError and never a journal line.
    """

    stamp_ns: int
    how: RevealBy

    def __init__(self, stamp_ns: int, how: RevealBy | str) -> None:
        object.__setattr__(self, "stamp_ns", stamp_ns)
        object.__setattr__(self, "how", how if isinstance(how, RevealBy) else RevealBy.parse(how))


class Signal(StrEnum):
    """One meaning each: the devices decide how it looks and sounds (hardware/SIGNALS.md)."""

    READY = "ready"  # a new round is about to start: LEDs off, status LED on
    COUNTDOWN = "countdown"  # one countdown beep
    REVEAL = "reveal"  # turn the cards over now
    WIN = "win"  # this player takes the cards
    BAD_CHOMP = "bad_chomp"  # this player pays a penalty card
    FALSE_START = "false_start"  # this player pays a penalty card: pressed before the reveal
    TIE = "tie"  # this player tied for first
    FRENZY = "frenzy"  # this player won a feeding frenzy
    INK_OUT = "ink_out"  # octopus: everyone's cards to the pot
    ALL_SAME = "all_same"  # every card the same: to the pot
    WAR = "war"  # two-player war: to the pot
    NO_WINNER = "no_winner"  # round timed out
    ELIMINATED = "eliminated"  # this player is out
    GAME_OVER = "game_over"  # this player won the game (player None: a draw)
    STUCK = "stuck"  # this player's button is held down: ignored until released
    UNSTUCK = "unstuck"  # released again
    TURN = "turn"  # it is this player's turn to act (Chips, Food Chain)
    LOCKED_IN = "locked_in"  # this player (or robot) has locked in a card (Get Bit!)
    BITTEN = "bitten"  # the shark bit this robot (Get Bit!)
    FAULT = "fault"  # the table stopped: a file could not be written (docs/reliability.md)


@dataclass(frozen=True, slots=True)
class Cue:
    """A signal for one player (or, with ``player`` None, the whole table)."""

    signal: Signal
    player: str | None = None
