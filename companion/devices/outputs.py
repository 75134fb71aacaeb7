"""The table's lights and buzzer: cues in, patterns out, never blocking the referee.

Every signal has its own pattern (hardware/SIGNALS.md is the players' table of them). A
pattern is data: (level, seconds) steps, played once and held on the last step, or
repeated. ``render()`` writes each pattern's first step itself, so the first visible
change (the winner's LED lighting) happens before it returns; everything after that is
played by one background thread, which also plays the buzzer's tunes. One thread for
every output, rather than gpiozero's thread per blinking LED, because the patterns need
more than on/off timing (double blinks, bursts, a chase around the table) and because a
new cue must replace a pattern without waiting for a thread to die.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from time import monotonic
from typing import Any, Generic, TypeVar

from gpiozero import LED, PWMLED, RGBLED, Buzzer, TonalBuzzer
from gpiozero.tones import Tone

from companion.devices.pins import OpenedFactory
from companion.devices.wiring import BuzzerConfig, BuzzerKind, LedConfig, LedKind
from companion.errors import HardwareError
from companion.signals import Cue, Signal

log = logging.getLogger(__name__)

Colour = tuple[float, float, float]
PatternStep = tuple[float, float]  # (level 0..1, seconds); the last step of a one-shot is held
Note = tuple[str | None, float]  # (note name such as "A5", or None for silence; seconds)


@dataclass(frozen=True, slots=True)
class Pattern:
    """A light pattern: steps played in order, then held on the last one or repeated."""

    steps: tuple[PatternStep, ...]
    repeat: bool = False


OFF = Pattern(((0.0, 0.0),))
ON = Pattern(((1.0, 0.0),))


def _blink(on_s: float, off_s: float) -> Pattern:
    return Pattern(((1.0, on_s), (0.0, off_s)), repeat=True)


CHASE_STEP_S = 0.15  # ink-out: each LED in turn, around the table,
CHASE_LAP_S = 0.4  # then all dark a moment: one or two LEDs never blink evenly (bad_chomp)
WAR_HALF_S = 0.25  # war: even and odd seats swap

# What a player's LED shows, and the status LED too unless STATUS_PATTERNS says otherwise.
LED_PATTERNS: dict[Signal, Pattern] = {
    Signal.READY: OFF,
    Signal.COUNTDOWN: Pattern(((1.0, 0.1), (0.0, 0.0))),
    # Off, so that a winner's LED always changes when the win is shown, however fast.
    Signal.REVEAL: OFF,
    Signal.WIN: ON,
    Signal.FRENZY: _blink(0.05, 0.05),
    Signal.BAD_CHOMP: _blink(0.15, 0.15),
    # A long flash, then two short ones: a bad chomp that came before the reveal.
    Signal.FALSE_START: Pattern(
        ((1.0, 0.6), (0.0, 0.15), (1.0, 0.15), (0.0, 0.15), (1.0, 0.15), (0.0, 0.6)), repeat=True
    ),
    Signal.TIE: _blink(0.5, 0.5),
    Signal.INK_OUT: _blink(CHASE_STEP_S, CHASE_LAP_S),  # a chase with two or more LEDs
    Signal.ALL_SAME: Pattern(
        ((1.0, 0.1), (0.0, 0.1), (1.0, 0.1), (0.0, 0.1), (1.0, 0.1), (0.0, 0.7)), repeat=True
    ),
    Signal.WAR: _blink(WAR_HALF_S, WAR_HALF_S),  # odd seats run opposite
    Signal.NO_WINNER: _blink(0.15, 1.35),
    Signal.ELIMINATED: Pattern(((1.0, 1.0), (0.0, 0.5)) * 2 + ((1.0, 1.0), (0.0, 0.0))),
    Signal.GAME_OVER: _blink(0.8, 0.2),
    Signal.STUCK: Pattern(((1.0, 0.1), (0.0, 0.1), (1.0, 0.1), (0.0, 0.7)), repeat=True),
    Signal.UNSTUCK: OFF,
    Signal.TURN: Pattern(((1.0, 1.8), (0.0, 0.2)), repeat=True),  # on, a dip every 2 s
    Signal.LOCKED_IN: Pattern(((1.0, 0.1), (0.0, 0.1), (1.0, 0.0))),  # a wink, then on
    Signal.BITTEN: _blink(0.08, 0.4),
    Signal.FAULT: _blink(0.1, 0.1),
}

# Table-wide signals where the status LED differs from the players' LEDs.
STATUS_PATTERNS: dict[Signal, Pattern] = {
    Signal.READY: ON,
    Signal.REVEAL: Pattern(((1.0, 0.5), (0.0, 0.0))),
}

# What an RGB LED shows for each signal (a single-colour LED just lights).
COLOURS: dict[Signal, Colour] = {
    Signal.READY: (0.0, 1.0, 0.0),  # green
    Signal.COUNTDOWN: (1.0, 1.0, 1.0),  # white
    Signal.REVEAL: (1.0, 1.0, 1.0),  # white
    Signal.WIN: (0.0, 1.0, 0.0),  # green
    Signal.FRENZY: (1.0, 0.0, 1.0),  # magenta
    Signal.BAD_CHOMP: (1.0, 0.0, 0.0),  # red
    Signal.FALSE_START: (1.0, 0.0, 0.0),  # red: a bad chomp too
    Signal.TIE: (1.0, 1.0, 0.0),  # yellow
    Signal.INK_OUT: (0.0, 0.0, 1.0),  # blue
    Signal.ALL_SAME: (0.0, 1.0, 1.0),  # cyan
    Signal.WAR: (1.0, 0.4, 0.0),  # orange
    Signal.NO_WINNER: (0.3, 0.3, 0.3),  # dim white
    Signal.ELIMINATED: (0.4, 0.0, 1.0),  # purple
    Signal.GAME_OVER: (0.0, 1.0, 0.0),  # green
    Signal.STUCK: (1.0, 0.0, 0.0),  # red
    Signal.UNSTUCK: (0.0, 0.0, 0.0),  # off
    Signal.TURN: (0.0, 1.0, 0.0),  # green
    Signal.LOCKED_IN: (1.0, 1.0, 1.0),  # white
    Signal.BITTEN: (1.0, 0.0, 0.0),  # red
    Signal.FAULT: (1.0, 0.0, 0.0),  # red
}

# The same meanings in Okabe and Ito's colour-blind-safe set (``[leds] palette =
# "okabe-ito"``). The patterns and sounds tell every signal apart without any colour; this
# keeps the colours that remain from clashing for the commonest colour blindness.
_OI_ORANGE = (0.90, 0.62, 0.0)
_OI_SKY_BLUE = (0.34, 0.71, 0.91)
_OI_GREEN = (0.0, 0.62, 0.45)  # bluish green
_OI_YELLOW = (0.94, 0.89, 0.26)
_OI_BLUE = (0.0, 0.45, 0.70)
_OI_VERMILLION = (0.84, 0.37, 0.0)
_OI_PURPLE = (0.80, 0.47, 0.65)  # reddish purple
OKABE_ITO: dict[Signal, Colour] = {
    **COLOURS,
    Signal.READY: _OI_GREEN,
    Signal.WIN: _OI_GREEN,
    Signal.GAME_OVER: _OI_GREEN,
    Signal.TURN: _OI_GREEN,
    Signal.FRENZY: _OI_PURPLE,
    Signal.BAD_CHOMP: _OI_VERMILLION,
    Signal.FALSE_START: _OI_VERMILLION,
    Signal.STUCK: _OI_VERMILLION,
    Signal.BITTEN: _OI_VERMILLION,
    Signal.FAULT: _OI_VERMILLION,
    Signal.TIE: _OI_YELLOW,
    Signal.INK_OUT: _OI_BLUE,
    Signal.ALL_SAME: _OI_SKY_BLUE,
    Signal.WAR: _OI_ORANGE,
    Signal.ELIMINATED: _OI_PURPLE,
}
PALETTES: dict[str, dict[Signal, Colour]] = {"standard": COLOURS, "okabe-ito": OKABE_ITO}

# The buzzer. An active buzzer plays the rhythm on its own fixed tone; a passive one
# (TonalBuzzer) plays the notes. Signals not listed leave the buzzer alone; READY's empty
# sound silences it.
_POT = (("G5", 0.2), (None, 0.08), ("C5", 0.5))  # short-long, falling: cards to the pot
SOUNDS: dict[Signal, tuple[Note, ...]] = {
    Signal.READY: (),
    Signal.COUNTDOWN: (("A5", 0.08),),
    Signal.REVEAL: (("A6", 0.5),),
    Signal.WIN: (("C6", 0.08), (None, 0.06), ("G6", 0.12)),
    Signal.FRENZY: (("E6", 0.04), (None, 0.03), ("G6", 0.04), (None, 0.03)) * 3,
    Signal.BAD_CHOMP: (("A3", 0.15), (None, 0.1), ("A3", 0.15), (None, 0.1), ("A3", 0.15)),
    Signal.FALSE_START: (("A3", 0.15), (None, 0.1), ("A3", 0.15), (None, 0.1), ("A3", 0.15)),
    Signal.FAULT: (("A3", 1.2),),  # one long low tone: not bad_chomp's three beeps
    Signal.TIE: (("E5", 0.3), (None, 0.15), ("E5", 0.3)),
    Signal.INK_OUT: _POT,
    Signal.ALL_SAME: _POT,
    Signal.WAR: _POT,
    Signal.NO_WINNER: _POT,
    Signal.ELIMINATED: (("C5", 0.25), (None, 0.05), ("G4", 0.25), (None, 0.05), ("C4", 0.6)),
    Signal.GAME_OVER: (
        ("G5", 0.12),
        ("C6", 0.12),
        ("E6", 0.12),
        ("G6", 0.3),
        (None, 0.08),
        ("E6", 0.12),
        ("G6", 0.6),
    ),
    Signal.TURN: (("C6", 0.08), (None, 0.06), ("G6", 0.12)),
    Signal.LOCKED_IN: (("C6", 0.08), (None, 0.06), ("G6", 0.12)),
    Signal.BITTEN: (("A3", 0.15), (None, 0.1), ("A3", 0.15), (None, 0.1), ("A3", 0.15)),
}
SOUND_GAP_S = 0.15  # between two sounds of one render
PASSIVE_MID_TONE = "A5"  # a TonalBuzzer spans A3 to A7 around this
PASSIVE_OCTAVES = 2


def pattern_for(signal: Signal, position: int = 0, count: int = 1) -> Pattern:
    """The pattern of the LED at ``position`` among ``count`` showing ``signal`` together.

    Only the table-wide chase (ink-out) and the swapping halves (war) depend on position.
    """
    if signal is Signal.INK_OUT and count > 1:
        before = position * CHASE_STEP_S
        after = (count - 1 - position) * CHASE_STEP_S + CHASE_LAP_S
        steps: tuple[PatternStep, ...] = ((0.0, before),) if before else ()
        steps += ((1.0, CHASE_STEP_S),)
        steps += ((0.0, after),) if after else ()
        return Pattern(steps, repeat=True)
    if signal is Signal.WAR and position % 2:
        return Pattern(((0.0, WAR_HALF_S), (1.0, WAR_HALF_S)), repeat=True)
    return LED_PATTERNS[signal]


def sound_for(cues: Sequence[Cue]) -> tuple[Note, ...] | None:
    """The buzzer's part of one render: each signal's sound once, in cue order.

    None when no cue has a sound, so a render of only lights leaves a beep playing.
    """
    signals = list(dict.fromkeys(c.signal for c in cues if c.signal in SOUNDS))
    if not signals:
        return None
    steps: list[Note] = []
    for signal in signals:
        part = SOUNDS[signal]
        if part and steps:
            steps.append((None, SOUND_GAP_S))
        steps.extend(part)
    steps.append((None, 0.0))
    return tuple(steps)


T = TypeVar("T")

LATE_S = 0.05  # a step this late (the thread was starved) restarts the beat from now


class Track(Generic[T]):
    """One output playing a list of (value, seconds) steps against the monotonic clock.

    ``start`` writes the first step at once; ``advance`` writes whatever is due by
    ``now`` and says when the next step is due (None: holding, nothing to do).
    """

    def __init__(self, write: Callable[[T], None]) -> None:
        self._write = write
        self._steps: tuple[tuple[T, float], ...] = ()
        self._repeat = False
        self._index = 0
        self.due: float | None = None

    def start(self, steps: tuple[tuple[T, float], ...], repeat: bool, now: float) -> None:
        self._steps = steps
        # A loop of zero length would spin: play it once instead.
        self._repeat = repeat and sum(s for _, s in steps) > 0
        self._enter(0, now)

    def advance(self, now: float) -> float | None:
        while self.due is not None and self.due <= now:
            start = self.due if now - self.due < LATE_S else now
            self._enter((self._index + 1) % len(self._steps), start)
        return self.due

    def _enter(self, index: int, start: float) -> None:
        self._index = index
        value, seconds = self._steps[index]
        last = index == len(self._steps) - 1
        self.due = None if last and not self._repeat else start + seconds
        self._write(value)


class _Light:
    """One LED (plain, PWM or RGB) and the track that drives it."""

    def __init__(self, device: Any, kind: LedKind, palette: Mapping[Signal, Colour]) -> None:
        self.device = device
        self.kind = kind
        self.palette = palette
        self.colour: Colour = (1.0, 1.0, 1.0)
        self.track: Track[float] = Track(self._write)

    def _write(self, level: float) -> None:
        if self.kind is LedKind.RGB:
            r, g, b = self.colour
            self.device.color = (r * level, g * level, b * level)
        elif self.kind is LedKind.PWM:
            self.device.value = level
        else:
            self.device.value = level > 0

    def show(self, signal: Signal, pattern: Pattern, now: float) -> None:
        self.colour = self.palette[signal]
        self.track.start(pattern.steps, pattern.repeat, now)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


class TableOutputs:
    """The player LEDs, the status LED and the buzzer, each optional, driven by cues."""

    def __init__(
        self,
        players: Mapping[str, LedConfig | None],
        buzzer: BuzzerConfig | None,
        status: LedConfig | None,
        opened: OpenedFactory,
        palette: str = "standard",
    ) -> None:
        """``palette`` names the RGB LEDs' colours (:data:`PALETTES`; a config has checked it)."""
        self._factory = opened.factory
        self._palette = PALETTES[palette]
        self._devices: list[Any] = []
        self._players: dict[str, _Light] = {}
        self._status: _Light | None = None
        self._buzzer: Track[str | None] | None = None
        self._cond = threading.Condition()
        self._closed = False
        self._failed: set[int] = set()
        try:
            for player, led in players.items():
                if led is not None:
                    self._players[player] = self._light(led, f"{player}'s LED")
            if status is not None:
                self._status = self._light(status, "the status LED")
            if buzzer is not None:
                self._buzzer = self._sounder(buzzer)
        except BaseException:
            self._close_devices()
            raise
        self._thread = threading.Thread(target=self._run, name="companion-outputs", daemon=True)
        self._thread.start()

    def _make(self, what: str, pins: Sequence[int], make: Callable[[], Any]) -> Any:
        try:
            device = make()
        except Exception as exc:  # gpiozero, driver and OS errors alike: one message
            where = "/".join(f"GPIO{p}" for p in pins)
            raise HardwareError(f"{what} on {where}: {_one_line(exc)}") from exc
        self._devices.append(device)
        return device

    def _light(self, led: LedConfig, what: str) -> _Light:
        f = self._factory
        if led.kind is LedKind.RGB:
            r, g, b = led.pins
            device = self._make(what, led.pins, lambda: RGBLED(r, g, b, pin_factory=f))
        elif led.kind is LedKind.PWM:
            device = self._make(what, led.pins, lambda: PWMLED(led.pins[0], pin_factory=f))
        else:
            device = self._make(what, led.pins, lambda: LED(led.pins[0], pin_factory=f))
        return _Light(device, led.kind, self._palette)

    def _sounder(self, buzzer: BuzzerConfig) -> Track[str | None]:
        f = self._factory
        if buzzer.kind is BuzzerKind.PASSIVE:
            tonal = self._make(
                "the buzzer",
                (buzzer.pin,),
                lambda: TonalBuzzer(
                    buzzer.pin,
                    mid_tone=Tone(PASSIVE_MID_TONE),
                    octaves=PASSIVE_OCTAVES,
                    pin_factory=f,
                ),
            )

            def play(note: str | None) -> None:
                if note is None:
                    tonal.stop()
                else:
                    tonal.play(note)

            return Track(play)
        active = self._make("the buzzer", (buzzer.pin,), lambda: Buzzer(buzzer.pin, pin_factory=f))

        def beep(note: str | None) -> None:
            active.value = note is not None

        return Track(beep)

    def render(self, cues: Sequence[Cue]) -> None:
        """Show the cues, most urgent first; returns at once, patterns play on.

        Each cue's first step is written here, in cue order, so the first cue's change is
        on the pins before this returns. A later cue for the same LED replaces the earlier
        one's pattern. Cues for players without an LED, or for a missing buzzer or status
        LED, are skipped; after close() nothing is shown.
        """
        with self._cond:
            if self._closed:
                return
            now = monotonic()
            for cue in cues:
                try:
                    self._show(cue, now)
                except Exception:  # a failing LED must not stop the verdict
                    log.warning("could not show %s", cue, exc_info=True)
            sound = sound_for(cues)
            if sound is not None and self._buzzer is not None:
                try:
                    self._buzzer.start(sound, False, now)
                except Exception:
                    log.warning("could not sound %s", [c.signal for c in cues], exc_info=True)
            self._cond.notify()

    def _show(self, cue: Cue, now: float) -> None:
        signal = cue.signal
        status_pattern: Pattern | None = None  # the status LED's own pattern, if any
        if cue.player is not None:
            light = self._players.get(cue.player)
            lights = [light] if light is not None else []
            if signal is Signal.GAME_OVER and self._status is not None:
                lights.append(self._status)
        else:
            lights = list(self._players.values())
            status_pattern = STATUS_PATTERNS.get(signal)
            if self._status is not None and status_pattern is None:
                lights.append(self._status)
        for position, light in enumerate(lights):
            light.show(signal, pattern_for(signal, position, len(lights)), now)
        if self._status is not None and status_pattern is not None:
            self._status.show(signal, status_pattern, now)

    def _tracks(self) -> list[Track[Any]]:
        lights = [*self._players.values(), *([self._status] if self._status else [])]
        tracks: list[Track[Any]] = [light.track for light in lights]
        if self._buzzer is not None:
            tracks.append(self._buzzer)
        return tracks

    def _run(self) -> None:
        """The one background thread: play every track's due steps, sleep till the next."""
        tracks = self._tracks()
        with self._cond:
            while not self._closed:
                now = monotonic()
                next_due: float | None = None
                for track in tracks:
                    try:
                        due = track.advance(now)
                    except Exception:  # log a broken output once, keep the others going
                        if id(track) not in self._failed:
                            self._failed.add(id(track))
                            log.warning("output failed", exc_info=True)
                        due = track.due
                    if due is not None and (next_due is None or due < next_due):
                        next_due = due
                self._cond.wait(None if next_due is None else max(0.0, next_due - monotonic()))

    def close(self) -> None:
        """Stop the patterns, switch everything off and release the pins; safe twice."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cond.notify()
        self._thread.join(timeout=2.0)
        self._close_devices()

    def _close_devices(self) -> None:
        for device in reversed(self._devices):
            try:
                device.close()
            except Exception:  # closing is best effort: release what can be released
                log.warning("could not close %r", device, exc_info=True)
        self._devices.clear()
