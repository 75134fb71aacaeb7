"""A CHOMP! table put together from its config: pins, press sources, outputs, journal,
referee and its daemon, and the card tags if the config has them.

``companion referee`` and ``companion demo`` both open a :class:`ChompSession`; the demo
passes the mock pin factory and drives the pins itself. Every device the session opens is
held by one :class:`contextlib.ExitStack`, so :meth:`ChompSession.close` (or a failure
half-way through opening) releases exactly what was opened, newest first.
"""

from __future__ import annotations

import logging
import os
import queue
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from companion.data import keep_aside
from companion.devices.buttons import GpioPressSource, GpioRevealButton
from companion.devices.outputs import TableOutputs
from companion.devices.pins import OpenedFactory, open_factory
from companion.errors import ConfigError, InputError, RuleError, WriteError
from companion.files import check_target, write_atomic
from companion.games.chomp import CARD_NAMES, ChompGame, Hand
from companion.referee.clock import Clock, MonotonicClock
from companion.referee.core import Phase, Referee, RefereeStep, Timing
from companion.referee.daemon import Cards, Input, RefereeDaemon
from companion.referee.journal import (
    JournalContents,
    JournalEntry,
    JournalWriter,
    StartEntry,
    read_journal,
)
from companion.referee.realtime import report_hook_error
from companion.signals import ButtonEdge, Cue, SourceInfo
from companion.tables.bridge_source import BridgePresses, open_bridge_presses
from companion.tables.camera import TableCamera, describe, set_frames_aside
from companion.tables.chomp.config import ChompConfig
from companion.tables.voice import CHOMP_SIGNALS, Sink, VoiceOutput, fan_out, open_voice
from companion.tags import ChompTagReveal, RevealRunner, load_tagfile, open_reader

T = TypeVar("T")
log = logging.getLogger(__name__)


def timing_of(config: ChompConfig) -> Timing:
    """The referee's timing from the config's milliseconds."""
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


def _game_over(entries: list[JournalEntry]) -> bool:
    verdicts = [e for e in entries if e["type"] == "verdict"]
    return bool(verdicts and verdicts[-1]["over"])


def build_referee(
    config: ChompConfig,
    sources: list[SourceInfo],
    journal: JournalWriter,
    resume: bool,
    new: bool,
) -> tuple[Referee, JournalWriter, list[str]]:
    """The referee for this start, a new game or the journal's game resumed, and the
    journal it writes to (the one held, or a new one in its place), its first lines
    written and synced. Returns the referee, the journal and messages for the table.

    The journal is locked before it is read. A torn last line is kept aside and cut off;
    an old game is renamed only once the new game's journal has been written whole.
    """
    timing = timing_of(config)
    path = journal.path
    if journal.good_bytes == 0:
        referee = Referee(_new_game(config), timing, sources)
        journal.write([referee.start_info()], durable=True)
        return referee, journal, []
    if not (resume or new):
        raise ConfigError(
            "referee.journal",
            f"{path} holds a game: --resume continues it, --new starts a new game "
            "(the old journal is kept)",
            config.source or None,
        )
    messages: list[str] = []
    if resume:
        contents = read_journal(path)
        messages.extend(contents.warnings)
        if not _game_over(contents.entries):
            _check_same_table(config, contents.start, path)
            messages.extend(_repair(journal, contents))
            referee, appended, more = Referee.from_journal(contents.entries, timing, sources)
            journal.write(appended, durable=True)
            done = referee.rounds_played
            messages.append(f"resumed the game from {path} after round {done}")
            return referee, journal, messages + more
    referee = Referee(_new_game(config), timing, sources)
    fresh, kept = _start_afresh(journal, [referee.start_info()])
    if resume:
        messages.append(f"the journal's game is over; kept as {kept}")
    else:
        messages.append(f"previous journal kept as {kept}")
    return referee, fresh, messages


def _new_game(config: ChompConfig) -> ChompGame:
    return ChompGame.new(config.names, config.mode, config.two_player_end, config.tie_window_us)


def _repair(journal: JournalWriter, contents: JournalContents) -> list[str]:
    """A torn last line kept beside the journal, then cut off, so the game appends after
    its last complete line (any number of cuts and resumes)."""
    torn = contents.torn
    if torn is None:
        if contents.needs_newline:
            journal.cut_back(journal.good_bytes, newline=True)
        return []
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = journal.path.with_name(f"{journal.path.name}.torn-{stamp}-line{torn.line}")
    write_atomic(aside, torn.data, "the journal is unchanged")
    journal.cut_back(torn.offset)
    return [
        f"line {torn.line} was cut short ({len(torn.data)} bytes, kept in {aside.name}); "
        f"the journal goes on from line {torn.line - 1}"
    ]


def _start_afresh(
    journal: JournalWriter, entries: list[JournalEntry]
) -> tuple[JournalWriter, Path]:
    """A new journal written whole beside the old one, then swapped in; the old one kept
    under a dated name. Nothing is renamed if the new journal cannot be written."""
    path = journal.path
    tmp = path.with_name(f".{path.name}.new")
    fresh = JournalWriter(tmp)
    try:
        fresh.cut_back(0)  # a leftover of a start that failed
        fresh.write(entries, durable=True)
        kept = keep_aside(path)  # a second name for the old journal: it is never missing
        os.replace(tmp, path)
    except BaseException:
        fresh.close()
        tmp.unlink(missing_ok=True)
        raise
    fresh.path = path
    journal.close()
    return fresh, kept


def _check_same_table(config: ChompConfig, start: StartEntry, journal: Path) -> None:
    """A journal's game is resumed only with the table it was played at."""
    seated, configured = list(start["players"]), list(config.names)
    if seated != configured:
        raise ConfigError(
            "players",
            f"{journal} is a game of {', '.join(seated)}, but the config seats "
            f"{', '.join(configured)}: fix the config, or --new for a new game",
            config.source or None,
        )
    journalled = {"mode": start["mode"], "two_player_end": start["two_player_end"]}
    for key, value in (("mode", config.mode), ("two_player_end", config.two_player_end)):
        if journalled[key] != str(value):
            raise ConfigError(
                f"game.{key}",
                f"{journal} was played with {key} = {journalled[key]!r}, the config says "
                f"{str(value)!r}: fix the config, or --new for a new game",
                config.source or None,
            )


class GuardedRunner(RevealRunner[T]):
    """A card source whose bug is logged (with its traceback) and shown as one line; its
    thread goes on reading instead of dying with the round's cards unread."""

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._serve()
                return
            except Exception as exc:  # noqa: BLE001 - any reader's bug, kept off the table
                report_hook_error("card source", exc)
                self.on_prompt(f"card source failed ({type(exc).__name__}: {exc}); see the log")
                self._stop.wait(0.05)

    def _serve(self) -> None:
        super()._run()


def _tag_reveal(
    config: ChompConfig, daemon: RefereeDaemon, inbox: queue.SimpleQueue[Input]
) -> RevealRunner[Any]:
    """Cards from their tags: armed at each reveal, the complete round goes in as Cards."""
    assert config.tags is not None
    tags = load_tagfile(config.tags.file)
    readers = [
        open_reader(spec, sys.stdin, index=i, where=f"tags.readers[{i}]")
        for i, spec in enumerate(config.tags.readers)
    ]
    seat_of_reader = dict(enumerate(config.tags.seats)) if config.tags.seats else None
    reveal = ChompTagReveal(tags, config.names, seat_of_reader)
    runner: RevealRunner[Any] = GuardedRunner(
        reveal,
        readers,
        on_cards=lambda cards: inbox.put(Cards(cards)),
        on_prompt=lambda line: daemon.notify(line),
        demand_after_s=3.0,
    )
    game = daemon.referee.game

    def follow(step: RefereeStep) -> None:
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


class ChompCardHelp:
    """The camera's part-read rounds for the screen and the phones (screen.CardHelp): the
    seats it read pre-filled, the completed round one Cards saying which were typed."""

    def __init__(self, camera: TableCamera) -> None:
        self.camera = camera

    def prefilled(self, n: int) -> dict[str, Hand]:
        return {
            s: tuple(CARD_NAMES[c] for c in names) for s, names in self.camera.prefilled(n).items()
        }

    def reading(self, n: int) -> bool:
        return self.camera.reading_round(n)

    def complete(self, n: int, cards: dict[str, Hand], asked: list[str]) -> Cards:
        source, frames_ns, typed = self.camera.complete(n, asked)
        return Cards(dict(cards), source, frames_ns, typed)


def _open_camera(config: ChompConfig, stack: ExitStack) -> TableCamera | None:
    """The camera's process (if the config has one) started before the journal is
    touched, so a camera that cannot be opened is one line and leaves no new game
    behind; it reads nothing until :func:`_camera_reveal` arms it for a reveal."""
    if config.camera is None:
        return None
    camera = TableCamera(
        config.camera, "chomp", lambda: config.journal, _not_yet, lambda line: log.info("%s", line)
    ).start()
    stack.callback(camera.close)
    return camera


def _not_yet(n: int, names: dict[str, tuple[str, ...]], frames_ns: tuple[int, ...]) -> None:
    """No round is armed before the referee exists: nothing can come here."""


def _camera_reveal(
    config: ChompConfig,
    daemon: RefereeDaemon,
    inbox: queue.SimpleQueue[Input],
    camera: TableCamera,
) -> TableCamera:
    """Cards from the camera (companion/tables/camera.py): armed at each reveal with the
    seats in play and their hand sizes; a round read whole goes in as Cards."""

    def on_cards(n: int, names: dict[str, tuple[str, ...]], frames_ns: tuple[int, ...]) -> None:
        cards = {s: tuple(CARD_NAMES[c] for c in hand) for s, hand in names.items()}
        with daemon.lock:  # typed cards that came first win: the camera never replaces them
            rnd = daemon.referee.round
            waiting = daemon.referee.waiting_for_cards() and rnd is not None and rnd.number == n
        if waiting:
            inbox.put(Cards(cards, "camera", frames_ns))

    camera.on_cards, camera.notify = on_cards, lambda line: daemon.notify(line)
    if camera.failed is not None:  # it ended between its start and now: say it now
        daemon.notify(f"{camera.failed}: the table goes on with typed cards")
    if daemon.referee.rounds_played == 0 and daemon.referee.round is None:
        set_frames_aside(config.journal)  # a new game: round 1 is not an old game's
    previous = daemon.on_step

    def follow(step: RefereeStep) -> None:
        if previous is not None:
            previous(step)
        for entry in step.journal:
            if entry["type"] == "reveal":
                game = daemon.referee.game  # the one in play (new_game swaps it)
                sizes = {p: game.hand_size(p) for p in game.active}
                camera.arm(entry["n"], sizes, entry["stamp_ns"])
            elif entry["type"] in ("cards", "verdict", "abandon"):
                camera.disarm()

    daemon.on_step = follow
    return camera


class TablePin(Protocol):
    """A gpiozero pin as a caller uses it. ``drive_low``/``drive_high`` exist on mock
    pins only (``pin_factory="mock"``): a real pin is driven by its button."""

    @property
    def state(self) -> float: ...

    def drive_low(self) -> None: ...

    def drive_high(self) -> None: ...

    # MockPin's own (monotonic seconds of its last change): the benchmarks read when an
    # LED lit from it. Not for callers: gpiozero may rename it.
    _last_change: float


@dataclass
class ChompSession:
    """A running CHOMP! table: the daemon, and every device it was opened with.

    The devices are typed fields (None when the config has none of that kind) and are
    all closed by :meth:`close`, with the journal, through one ExitStack.
    """

    config: ChompConfig
    referee: Referee
    daemon: RefereeDaemon
    journal: JournalWriter
    sources: list[SourceInfo]
    messages: list[str]
    factory: OpenedFactory
    outputs: TableOutputs
    buttons: GpioPressSource | None = None
    bridge: BridgePresses | None = None
    tags: RevealRunner[Any] | None = None
    camera: TableCamera | None = None  # [camera]: the cards read from above the table
    card_help: ChompCardHelp | None = None  # the camera's part-read rounds, for the screen
    reveal_button: GpioRevealButton | None = None
    voice: VoiceOutput | None = None  # [voice]: the spoken calls, beside the LEDs
    closing: ExitStack = field(default_factory=ExitStack, repr=False)
    # Called (under the daemon's lock) after new_game(): what holds the old game (the
    # demo's simulated deck) takes the new one.
    new_game_hooks: list[Callable[[], None]] = field(default_factory=list, repr=False)

    def led_level(self, player: str) -> float:
        """How bright a player's LED is now (0 when it has none), read back from its pins."""
        led = next(p.led for p in self.config.players if p.name == player)
        if led is None:
            return 0.0
        return max(float(self.factory.factory.pin(pin).state) for pin in led.pins)

    def buzzer_on(self) -> bool:
        """Whether the buzzer's pin is driven now (False without a buzzer)."""
        if self.config.buzzer is None:
            return False
        return bool(self.factory.factory.pin(self.config.buzzer.pin).state)

    def pin(self, number: int) -> TablePin:
        """The factory's pin (a BCM number): its ``state``; on mock pins ``drive_low()``
        presses a button (wired active-low) and ``drive_high()`` releases it."""
        pin: TablePin = self.factory.factory.pin(number)
        return pin

    def new_game(self) -> list[str]:
        """A new game at this table between rounds: the same seats and settings, a fresh
        journal, the one so far kept aside under a dated name (as ``--new`` does), never
        deleted. Returns the lines to show (where the old journal went)."""
        with self.daemon.lock:
            referee = self.daemon.referee
            if referee.phase not in (Phase.READY, Phase.OVER):
                raise RuleError(f"a round is under way ({referee.phase}): finish it first")
            fresh, journal, lines = build_referee(
                self.config, self.sources, self.journal, resume=False, new=True
            )
            self.closing.callback(journal.close)
            self.referee = self.daemon.referee = fresh
            self.journal = self.daemon.journal = journal
            for hook in self.new_game_hooks:
                hook()
        self.messages.extend(lines)
        return lines

    def close(self) -> None:
        """Stop the referee's loop (whichever thread runs it, waiting for it), release
        every device and close the journal; safe to call twice. An edge that arrives
        after this is ignored."""
        self.closing.close()

    def __enter__(self) -> ChompSession:
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Leaving ``with`` closes the session, however the block ended."""
        self.close()


@dataclass
class _Presses:
    """The press sources opened so far, with the buttons already down at start."""

    sources: list[SourceInfo] = field(default_factory=list)
    held: set[tuple[str, str]] = field(default_factory=set)  # (player, source)
    buttons: GpioPressSource | None = None
    bridge: BridgePresses | None = None


def _open_presses(
    config: ChompConfig,
    opened: OpenedFactory,
    inbox: queue.SimpleQueue[Input],
    stack: ExitStack,
    notify: Callable[[str], None] | None,
) -> _Presses:
    """The GPIO buttons and the Pico bridge's, whichever the config wires."""
    found = _Presses()
    on_gpio = {p.name: p.button for p in config.players if p.button is not None}
    if on_gpio:
        found.buttons = GpioPressSource(on_gpio, opened, inbox.put)
        stack.callback(found.buttons.close)
        found.sources.append(found.buttons.info)
        found.held.update((p, found.buttons.info.name) for p in found.buttons.held())
    if config.bridge is not None:
        found.bridge = open_bridge_presses(
            config.bridge.buttons, inbox.put, config.bridge.port, notify
        )
        stack.callback(found.bridge.close)
        found.sources.append(found.bridge.info)
        found.held.update((p, found.bridge.info.name) for p in found.bridge.held())
    return found


def _open_journal(config: ChompConfig) -> JournalWriter:
    """The journal, locked for the table's lifetime (created empty if there is none); a
    place that is not a file (a folder, a device, a link) is one line naming the key."""
    try:
        check_target(config.journal)
        return JournalWriter(config.journal)
    except (InputError, WriteError) as exc:
        raise ConfigError("referee.journal", str(exc), config.source or None) from None


def _frames_aside(config: ChompConfig) -> None:
    set_frames_aside(config.journal)


def _open_card_sources(
    session: ChompSession,
    inbox: queue.SimpleQueue[Input],
    stack: ExitStack,
    camera: TableCamera | None,
) -> None:
    """The card tags and the camera, whichever the config has, closed by ``stack``."""
    config, daemon = session.config, session.daemon
    if config.tags is not None:
        session.tags = _tag_reveal(config, daemon, inbox)
        stack.callback(session.tags.close)
    if config.camera is not None and camera is not None:
        session.camera = _camera_reveal(config, daemon, inbox, camera)
        session.card_help = ChompCardHelp(session.camera)
        session.messages.extend(describe(config.camera))
        session.new_game_hooks.append(lambda: _frames_aside(config))


def open_chomp_session(
    config: ChompConfig,
    resume: bool = False,
    new: bool = False,
    pin_factory: str | None = None,
    clock: Clock | None = None,
    notify: Callable[[str], None] | None = None,
    stamped_as: list[SourceInfo] | None = None,
    voice_sink: Sink | None = None,
) -> ChompSession:
    """Open pins, press sources and outputs, then the referee and its journal.

    ``resume`` continues the journal's game, ``new`` sets an existing journal aside;
    with neither, an existing journal is an error. ``pin_factory`` overrides the
    config's (``"mock"`` for gpiozero's MockFactory). ``stamped_as`` declares how the
    presses are really stamped when the pins only relay them (the demo's keys reach
    mock pins as the terminal delivers them): the tie window and the journal follow it.
    ``voice_sink`` plays the spoken calls somewhere else than the config's player (a test,
    the bench). Nothing is left open on failure.
    """
    clock = clock or MonotonicClock()
    with ExitStack() as stack:
        opened = stack.enter_context(open_factory(pin_factory or config.pin_factory))
        outputs = TableOutputs(
            {p.name: p.led for p in config.players},
            config.buzzer,
            config.status_led,
            opened,
            config.palette,
        )
        stack.callback(outputs.close)
        voice = open_voice(
            config.voice, config.names, config.source or None, voice_sink, signals=CHOMP_SIGNALS
        )
        render: Callable[[Sequence[Cue]], None] = outputs.render
        if voice is not None:
            stack.callback(voice.close)
            render = fan_out(outputs.render, voice.render)  # a peer of the LEDs and buzzer
        # The inbox exists before the sources, so no edge can arrive with nowhere to go.
        inbox: queue.SimpleQueue[Input] = queue.SimpleQueue()
        presses = _open_presses(config, opened, inbox, stack, notify)
        sources = presses.sources if stamped_as is None else list(stamped_as)
        camera = _open_camera(config, stack)
        existed = config.journal.exists()
        held = _open_journal(config)
        try:
            referee, journal, messages = build_referee(config, sources, held, resume, new)
        except BaseException:
            held.close()
            if not existed and held.good_bytes == 0:
                config.journal.unlink(missing_ok=True)  # leave no empty journal behind
            raise
        stack.callback(journal.close)
        messages[:0] = list(config.warnings)
        if voice is not None:
            messages.append(
                f"voice: {config.voice.voice}, {len(voice.paths)} calls "
                f"({voice.rendered} rendered now into {voice.folder})"
            )
        if referee.window_warning:
            messages.append(referee.window_warning)
        daemon = RefereeDaemon(referee, clock, journal, render, notify, inbox=inbox)
        for player, source in sorted(presses.held):
            # Already down at start: no edge will come, so report one; held on, it is
            # flagged stuck like any other.
            inbox.put(ButtonEdge(player, True, clock.now_ns(), source, -1))
        session = ChompSession(
            config, referee, daemon, journal, sources, messages, opened, outputs,
            presses.buttons, presses.bridge,
        )  # fmt: skip
        session.voice = voice
        _open_card_sources(session, inbox, stack, camera)
        if config.reveal_button is not None:
            session.reveal_button = GpioRevealButton(config.reveal_button, opened, inbox.put)
            stack.callback(session.reveal_button.close)
        stack.callback(daemon.close)  # first at close: the loop stops, later edges are ignored
        session.closing = stack.pop_all()
    return session
