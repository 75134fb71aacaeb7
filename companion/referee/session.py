"""Putting a table together from a config: pins, press sources, outputs, journal, referee.

``companion referee`` and ``companion demo`` both open a :class:`Session`; the demo passes
the mock pin factory and drives the pins itself.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.config import RefereeConfig
from companion.errors import ConfigError
from companion.games.chomp import ChompGame
from companion.referee.clock import Clock, MonotonicClock
from companion.referee.core import Referee, Timing
from companion.referee.daemon import Input, RefereeDaemon
from companion.referee.journal import JournalWriter, read_journal
from companion.signals import ButtonEdge, SourceInfo


def timing_of(config: RefereeConfig) -> Timing:
    return Timing.from_ms(
        config.tie_window_us,
        config.settle_ms,
        config.lockout_ms,
        config.stuck_ms,
        config.round_timeout_s,
        config.end_ms,
        config.countdown_beeps,
        config.countdown_interval_ms,
    )


def _game_over(entries: list[dict[str, Any]]) -> bool:
    verdicts = [e for e in entries if e["type"] == "verdict"]
    return bool(verdicts and verdicts[-1].get("over"))


def archive(journal: Path) -> Path:
    """Move a finished or abandoned journal aside; nothing recorded is ever deleted."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = journal.with_name(f"{journal.stem}.{stamp}{journal.suffix}")
    n = 1
    while target.exists():
        target = journal.with_name(f"{journal.stem}.{stamp}-{n}{journal.suffix}")
        n += 1
    journal.rename(target)
    return target


def build_referee(
    config: RefereeConfig,
    sources: list[SourceInfo],
    journal_path: Path,
    resume: bool,
    new: bool,
) -> tuple[Referee, list[dict[str, Any]], list[str]]:
    """The referee for this start: a new game, or the journal's game resumed.

    Returns the referee, the entries to append to the journal, and messages for the table.
    """
    timing = timing_of(config)
    messages: list[str] = []
    if journal_path.is_dir():
        raise ConfigError(
            "referee.journal",
            f"{journal_path} is a folder: name a file in it",
            config.source or None,
        )
    if journal_path.exists() and journal_path.stat().st_size > 0:
        if new:
            messages.append(f"previous journal kept as {archive(journal_path)}")
        elif not resume:
            raise ConfigError(
                "referee.journal",
                f"{journal_path} holds a game: --resume continues it, --new starts a new game "
                "(the old journal is kept)",
                config.source or None,
            )
        else:
            contents = read_journal(journal_path)
            messages.extend(contents.warnings)
            if _game_over(contents.entries):
                messages.append(f"the journal's game is over; kept as {archive(journal_path)}")
            else:
                _check_same_table(config, contents.entries[0], journal_path)
                referee, appended, more = Referee.from_journal(contents.entries, timing, sources)
                done = referee.rounds_played
                messages.append(f"resumed the game from {journal_path} after round {done}")
                return referee, appended, messages + more
    game = ChompGame.new(config.names, config.mode, config.two_player_end, config.tie_window_us)
    referee = Referee(game, timing, sources)
    return referee, [referee.start_info()], messages


def _check_same_table(config: RefereeConfig, start: dict[str, Any], journal: Path) -> None:
    """A journal's game is resumed only with the table it was played at."""
    seated, configured = list(start["players"]), list(config.names)
    if seated != configured:
        raise ConfigError(
            "players",
            f"{journal} is a game of {', '.join(seated)}, but the config seats "
            f"{', '.join(configured)}: fix the config, or --new for a new game",
            config.source or None,
        )
    for key, value in (("mode", config.mode), ("two_player_end", config.two_player_end)):
        if start[key] != str(value):
            raise ConfigError(
                f"game.{key}",
                f"{journal} was played with {key} = {start[key]!r}, the config says "
                f"{str(value)!r}: fix the config, or --new for a new game",
                config.source or None,
            )


def _tag_reveal(
    config: RefereeConfig,
    daemon: RefereeDaemon,
    inbox: queue.SimpleQueue[Input],
    notify: Callable[[str], None] | None,
) -> Any:
    """Cards from their tags: armed at each reveal, the complete round goes in as Cards."""
    import sys

    from companion.referee.core import Step
    from companion.referee.daemon import Cards
    from companion.tags import ChompTagReveal, RevealRunner, load_tagfile, open_reader

    assert config.tags is not None
    tags = load_tagfile(config.tags.file)
    readers = [
        open_reader(spec, sys.stdin, index=i, where=f"tags.readers[{i}]")
        for i, spec in enumerate(config.tags.readers)
    ]
    seat_of_reader = dict(enumerate(config.tags.seats)) if config.tags.seats else None
    reveal = ChompTagReveal(tags, config.names, seat_of_reader)
    runner = RevealRunner(
        reveal,
        readers,
        on_cards=lambda cards: inbox.put(Cards(cards)),
        on_prompt=lambda line: daemon.notify(line),
        demand_after_s=3.0,
    )
    game = daemon.referee.game

    def follow(step: Step) -> None:
        for entry in step.journal:
            if entry["type"] == "reveal":
                sizes = {p: game.hand_size(p) for p in game.active}
                runner.new_round(game.active, sizes, key=entry["n"])
            elif entry["type"] == "verdict":
                runner.disarm()

    daemon.on_step = follow
    if daemon.referee.waiting_for_cards() and daemon.referee.round is not None:
        sizes = {p: game.hand_size(p) for p in game.active}
        runner.new_round(game.active, sizes, key=daemon.referee.round.number)
    return runner.start()


@dataclass
class Session:
    """A running table: the daemon and everything that must be closed with it."""

    config: RefereeConfig
    referee: Referee
    daemon: RefereeDaemon
    journal: JournalWriter
    sources: list[SourceInfo]
    messages: list[str]
    devices: dict[str, Any] = field(default_factory=dict)  # name -> object with close()

    def led_level(self, player: str) -> float:
        """How bright a player's LED is now (0 when it has none), read back from its pins."""
        led = next(p.led for p in self.config.players if p.name == player)
        if led is None:
            return 0.0
        factory = self.devices["factory"].factory
        return max(float(factory.pin(pin).state) for pin in led.pins)

    def buzzer_on(self) -> bool:
        if self.config.buzzer is None:
            return False
        return bool(self.devices["factory"].factory.pin(self.config.buzzer.pin).state)

    def close(self) -> None:
        for device in reversed(list(self.devices.values())):
            device.close()
        self.journal.close()


def open_session(
    config: RefereeConfig,
    resume: bool = False,
    new: bool = False,
    pin_factory: str | None = None,
    clock: Clock | None = None,
    notify: Callable[[str], None] | None = None,
) -> Session:
    """Open pins, press sources and outputs, then the referee and its journal."""
    from companion.devices.buttons import GpioPressSource, GpioRevealButton
    from companion.devices.outputs import TableOutputs
    from companion.devices.pins import open_factory

    clock = clock or MonotonicClock()
    opened = open_factory(pin_factory or config.pin_factory)
    devices: dict[str, Any] = {"factory": opened}
    try:
        outputs = TableOutputs(
            {p.name: p.led for p in config.players}, config.buzzer, config.status_led, opened
        )
        devices["outputs"] = outputs
        # The inbox exists before the sources, so no edge can arrive with nowhere to go.
        inbox: queue.SimpleQueue[Input] = queue.SimpleQueue()
        sources: list[SourceInfo] = []
        held: set[tuple[str, str]] = set()  # (player, source) already down at start
        on_gpio = {p.name: p.button for p in config.players if p.button is not None}
        if on_gpio:
            buttons = GpioPressSource(on_gpio, opened, inbox.put)
            devices["buttons"] = buttons
            sources.append(buttons.info)
            held.update((p, buttons.info.name) for p in buttons.held())
        if config.bridge is not None:
            from companion.tables.bridge_source import open_bridge_presses

            bridge = open_bridge_presses(
                config.bridge.buttons, inbox.put, config.bridge.port, notify
            )
            devices["bridge"] = bridge
            sources.append(bridge.info)
            held.update((p, bridge.info.name) for p in bridge.held())
        referee, appended, messages = build_referee(config, sources, config.journal, resume, new)
        messages[:0] = list(config.warnings)
        if referee.window_warning:
            messages.append(referee.window_warning)
        try:
            journal = JournalWriter(config.journal)
        except OSError as exc:
            raise ConfigError(
                "referee.journal",
                f"cannot write the journal {config.journal}: {exc.strerror or exc}",
                config.source or None,
            ) from None
        journal.write(appended, durable=True)
        daemon = RefereeDaemon(referee, clock, journal, outputs.render, notify, inbox=inbox)
        for player, source in sorted(held):
            # Already down at start: no edge will come, so report one; held on, it is
            # flagged stuck like any other.
            inbox.put(ButtonEdge(player, True, clock.now_ns(), source, -1))
        if config.tags is not None:
            devices["tags"] = _tag_reveal(config, daemon, inbox, notify)
        if config.reveal_button is not None:
            devices["reveal_button"] = GpioRevealButton(config.reveal_button, opened, inbox.put)
    except BaseException:
        for device in reversed(list(devices.values())):
            device.close()
        raise
    return Session(config, referee, daemon, journal, sources, messages, devices)
