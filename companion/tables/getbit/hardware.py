"""Get Bit!'s lights, buzzer and lock-in buttons, told what the game did (docs/getbit.md).

They never decide anything: the table tells them a round was played or undone, and a
lock-in button only records who is in.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from contextlib import ExitStack

from companion.devices.buttons import GpioPressSource
from companion.devices.outputs import TableOutputs
from companion.devices.pins import OpenedFactory, open_factory
from companion.errors import ConfigError, HardwareError
from companion.games.getbit import GetBit, RoundResult, Setup
from companion.signals import ButtonEdge, Cue, Signal
from companion.tables.getbit.config import GetBitConfig
from companion.tables.voice import GETBIT_SIGNALS, Sink, fan_out, open_voice


class TableHardware:
    """The robots' LEDs, the buzzer and the lock-in buttons, told what the game did.

    Signals (docs/getbit.md): a bite shows ``bad_chomp`` on the bitten robot's LED (blinks,
    three low beeps: the chomp), an elimination ``eliminated``, the winner's robots
    ``game_over`` (the fanfare); a player's lock-in press lights their robots (``win``:
    steady on) and when every player is in, ``reveal`` (LEDs off, one long beep). The
    next round's first key or press shows ``ready``: LEDs off, buzzer quiet.
    """

    def __init__(
        self,
        config: GetBitConfig,
        setup: Setup,
        pin_factory: str | None = None,
        voice_sink: Sink | None = None,
    ) -> None:
        unknown = [r.name for r in config.robots if r.name not in setup.robots]
        if unknown:
            raise ConfigError(
                "getbit.robots", f"not a robot of this game: {', '.join(unknown)}", config.source
            )
        strangers = [p for p in config.lock_in if p not in setup.players]
        if strangers:
            raise ConfigError(
                "getbit.lock_in",
                f"not a player of this game: {', '.join(strangers)}",
                config.source,
            )
        missing = [p for p in setup.players if config.lock_in and p not in config.lock_in]
        if missing:
            raise ConfigError(
                "getbit.lock_in", f"no button for {', '.join(missing)}", config.source
            )
        self.config = config
        self.setup = setup
        self.in_play: tuple[str, ...] = setup.line
        self.locked: set[str] = set()
        self.revealed = False
        self._fresh = True  # the next key or press starts a round: show `ready` first
        self._lock = threading.Lock()
        with ExitStack() as stack:  # a failure half-way releases what was opened
            self.opened: OpenedFactory = stack.enter_context(
                open_factory(pin_factory or config.pin_factory)
            )
            leds = {r.name: r.led for r in config.robots}
            self.outputs = TableOutputs(leds, config.buzzer, None, self.opened, config.palette)
            stack.callback(self.outputs.close)
            seats = list(setup.robots)
            self.voice = open_voice(
                config.voice, seats, config.source or None, voice_sink, signals=GETBIT_SIGNALS
            )
            self._outputs: Callable[[Sequence[Cue]], None] = self.outputs.render
            if self.voice is not None:
                stack.callback(self.voice.close)
                self._outputs = fan_out(self.outputs.render, self.voice.render)  # a peer
            self.source: GpioPressSource | None = None
            if config.lock_in:
                self.source = GpioPressSource(
                    config.lock_in, self.opened, self._edge, name="lock-in"
                )
                stack.callback(self.source.close)
            self._closing = stack.pop_all()

    def _render(self, cues: list[Cue]) -> None:
        if cues:
            self._outputs(cues)

    def _start_cues(self) -> list[Cue]:
        if not self._fresh:
            return []
        self._fresh = False
        return [Cue(Signal.READY)]

    def _edge(self, edge: ButtonEdge) -> None:
        """A lock-in button (on the pin driver's thread): record it, maybe beep the reveal.

        Only a small set changes and a cue is rendered, which never blocks. A press is a
        latch: bounces and releases change nothing, and the round's result clears it.
        """
        if not edge.pressed:
            return
        with self._lock:
            if edge.player in self.locked or self.revealed:
                return
            cues = self._start_cues()
            self.locked.add(edge.player)
            if set(self.config.lock_in) <= self.locked:
                # The last one in: straight to the reveal, so its long beep comes first.
                self.revealed = True
                cues.append(Cue(Signal.REVEAL))
            else:
                robots = [r for r in self.setup.robots_of(edge.player) if r in self.in_play]
                cues += [Cue(Signal.LOCKED_IN, r) for r in robots]
            self._render(cues)

    def start_round(self) -> None:
        """The round's first key: clear last round's lights, once."""
        with self._lock:
            self._render(self._start_cues())

    def show_round(self, result: RoundResult, state: GetBit) -> None:
        """The bite, any elimination and the winner, most urgent first."""
        cues: list[Cue] = []
        if result.bitten is not None:
            cues.append(Cue(Signal.BITTEN, result.bitten))
        cues += [Cue(Signal.ELIMINATED, r) for r in result.out]
        if state.winner is not None:
            robots = self.setup.robots_of(state.winner)
            cues += [Cue(Signal.GAME_OVER, r) for r in robots if r in state.line]
        with self._lock:
            self.in_play = state.line
            self.locked.clear()
            self.revealed = False
            self._fresh = True
            self._render(cues)

    def reset(self, state: GetBit) -> None:
        """After an undo: lights off, lock-ins cleared."""
        with self._lock:
            self.in_play = state.line
            self.locked.clear()
            self.revealed = False
            self._fresh = True
            self._render([Cue(Signal.READY)])

    def press(self, player: str) -> None:
        """Press and release a lock-in button on mock pins (line mode and tests)."""
        if self.opened.name != "mock":
            raise HardwareError("buttons can only be pressed from the keyboard on mock pins")
        if player not in self.config.lock_in:
            raise HardwareError(f"{player} has no lock-in button")
        pin = self.opened.factory.pin(self.config.lock_in[player])
        pin.drive_low()
        pin.drive_high()

    def led_level(self, robot: str) -> float:
        """How bright a robot's LED is now (0 without one), read back from its pins."""
        led = next((r.led for r in self.config.robots if r.name == robot), None)
        if led is None:
            return 0.0
        return max(float(self.opened.factory.pin(p).state) for p in led.pins)

    def buzzer_on(self) -> bool:
        buzzer = self.config.buzzer
        return buzzer is not None and bool(self.opened.factory.pin(buzzer.pin).state)

    def status(self) -> str:
        lamps = " ".join(
            f"{r.name}={'on' if self.led_level(r.name) > 0.05 else 'off'}"
            for r in self.config.robots
            if r.led is not None
        )
        buzzer = "on" if self.buzzer_on() else "off"
        locked = ", ".join(sorted(self.locked)) or "nobody"
        return f"leds: {lamps or 'none'}; buzzer {buzzer}; locked in: {locked}"

    def close(self) -> None:
        """Release the buttons, the outputs and the pins; safe to call twice."""
        self._closing.close()
