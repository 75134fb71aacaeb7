"""``companion demo``: a whole CHOMP! table in the terminal, on gpiozero's mock pins.

Everything between the button and the verdict is the real referee: keys drive MockFactory
pins low and high, the pins' edges go through the same press source, daemon, journal and
outputs as on a Pi, and the LEDs and buzzer on screen are the mock pins' states. The bots
are a press source of their own whose presses are planned at their stamps, so ``--seed``
repeats a game. Only the cards come from a simulated deck instead of being typed; with
``--camera sim`` the deck shows them to the simulated camera, which reads them as a
camera over a real table would.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import random
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from companion.devices.wiring import BuzzerConfig, LedConfig, LedKind
from companion.games.chomp import ChompTable, Mode, RoundResult, Slap, TwoPlayerEnd, judge
from companion.referee.clock import ManualClock
from companion.referee.core import RefereeStep
from companion.referee.daemon import Cards, StartRound
from companion.signals import ButtonEdge, SourceInfo, TimingClass
from companion.tables.camera import CameraConfig
from companion.tables.chomp.config import ChompConfig, PlayerConfig
from companion.tables.chomp.session import ChompSession, open_chomp_session

SLAP_KEYS = ("a", "l", "g", "p", "z", "m")
BUTTON_PINS = (17, 27, 22, 23, 24, 25)
LED_PINS = (5, 6, 13, 19, 26, 16)
BUZZER_PIN = 18
STATUS_PIN = 20
PRESS_MS = 80  # a key gives no release event: the simulated button is let go after this


def demo_config(
    players: Sequence[str],
    mode: Mode,
    two_player_end: TwoPlayerEnd,
    journal: Path,
    fast: bool = False,
) -> ChompConfig:
    """The example wiring on mock pins; ``fast`` shortens every wait (tests on real time)."""
    seats = tuple(
        PlayerConfig(name, BUTTON_PINS[i], LedConfig(LedKind.PLAIN, (LED_PINS[i],)))
        for i, name in enumerate(players)
    )
    timings: dict[str, Any] = (
        dict(
            countdown_beeps=1,
            countdown_interval_ms=60,
            end_ms=120,
            round_timeout_s=0.6,
            lockout_ms=20,
            stuck_ms=2000,
        )
        if fast
        else {}
    )
    return ChompConfig(
        players=seats,
        mode=mode,
        two_player_end=two_player_end,
        journal=journal,
        pin_factory="mock",
        buzzer=BuzzerConfig(BUZZER_PIN),
        status_led=LedConfig(LedKind.PLAIN, (STATUS_PIN,)),
        **timings,
    )


@dataclass(frozen=True, order=True)
class PlannedEdge:
    """A bot's press or release, planned at its stamp when the cards go up."""

    stamp_ns: int
    seq: int
    player: str = field(compare=False)
    pressed: bool = field(compare=False)


BOTS_SOURCE = SourceInfo(
    "bots", TimingClass.MOCK, 0, "the bots' presses, planned in stamps (--seed repeats them)"
)


class SimulatedTable:
    """The deck, the bots and the keyboard's buttons around a real referee session.

    The bots plan each press at its stamp (the reveal's stamp plus a reaction drawn from
    the seeded generator), so a seed repeats a game exactly: with ``realtime`` a timer
    hands each planned edge to the referee when its moment comes; without it
    (:func:`autoplay`), the clock is moved to each edge and each deadline in turn.
    """

    def __init__(
        self,
        session: ChompSession,
        rng: random.Random,
        bots: Sequence[str],
        reaction_ms: tuple[float, float] = (280, 650),
        blunder: float = 0.08,
        realtime: bool = True,
    ) -> None:
        self.session = session
        self.rng = rng
        self.bots = set(bots)
        self.reaction_ms = reaction_ms
        self.blunder = blunder
        self.realtime = realtime
        referee = session.referee
        self.table = ChompTable.deal(referee.game.players, rng, referee.game.mode)
        self.table.game = referee.game  # one game: the referee's
        self.pins = {
            p.name: session.pin(p.button) for p in session.config.players if p.button is not None
        }
        self.cards: dict[str, tuple[Any, ...]] = {}
        self.planned: list[PlannedEdge] = []  # a heap, soonest first
        self._seq = itertools.count()
        self._lock = threading.Lock()
        self.timers: list[threading.Timer] = []
        self.finished = threading.Event()
        self.round_done = threading.Event()
        daemon = session.daemon
        self._chained = daemon.on_step  # the camera's (it arms at each reveal) goes first
        daemon.on_step = self._on_step
        session.new_game_hooks.append(self.new_game)
        if session.camera is not None:
            session.camera.watchers.append(self._camera_said)

    def new_game(self) -> None:
        """The table started a new game (a phone asked): the deck is dealt again for it,
        and nothing planned for the old game is pressed."""
        referee = self.session.referee
        with self._lock:
            self.table = ChompTable.deal(referee.game.players, self.rng, referee.game.mode)
            self.table.game = referee.game
            self.cards = {}
            self.planned = []
            self.finished.clear()

    # ------------------------------------------------------------------ the buttons ----

    def press(self, player: str) -> None:
        """Push the player's button down and let go a moment later, as a hand would."""
        pin = self.pins[player]
        pin.drive_low()
        self._later(PRESS_MS / 1000, pin.drive_high)

    def _later(self, seconds: float, action: Callable[[], None]) -> None:
        timer = threading.Timer(max(0.0, seconds), action)
        timer.daemon = True
        timer.start()
        self.timers.append(timer)

    def _plan(self, player: str, stamp_ns: int) -> None:
        """A bot's press at ``stamp_ns`` and its release a hand's moment later."""
        edges = [
            PlannedEdge(stamp_ns, next(self._seq), player, True),
            PlannedEdge(stamp_ns + PRESS_MS * 1_000_000, next(self._seq), player, False),
        ]
        with self._lock:
            for edge in edges:
                heapq.heappush(self.planned, edge)
        if self.realtime:
            for edge in edges:
                wait_s = (edge.stamp_ns - self.session.daemon.clock.now_ns()) / 1e9
                self._later(wait_s, functools.partial(self.deliver_due, edge.stamp_ns))

    def next_planned_ns(self) -> int | None:
        with self._lock:
            return self.planned[0].stamp_ns if self.planned else None

    def deliver_due(self, until_ns: int | None = None) -> None:
        """Hand the referee every planned edge whose stamp has come, with that stamp."""
        now = self.session.daemon.clock.now_ns() if until_ns is None else until_ns
        with self._lock:
            due = []
            while self.planned and self.planned[0].stamp_ns <= now:
                due.append(heapq.heappop(self.planned))
        for edge in due:
            stamped = ButtonEdge(edge.player, edge.pressed, edge.stamp_ns, "bots", edge.seq)
            self.session.daemon.put(stamped)

    # ------------------------------------------------------------------ the round ------

    def _on_step(self, step: RefereeStep) -> None:
        """Called on the referee's thread: turn the cards over at the reveal, settle them.
        With the simulated camera the cards are shown to it, and it reads them; without
        it (or once it failed) they go to the referee as typed cards do."""
        if self._chained is not None:
            self._chained(step)
        camera = self.session.camera
        for entry in step.journal:
            if entry["type"] == "reveal":
                self.cards = self.table.reveal()
                if camera is not None and camera.failed is None:
                    camera.show(sticker_markers(self.cards))
                else:
                    self.session.daemon.put(Cards(dict(self.cards)))
                self._bots_react(entry["stamp_ns"])
        if step.result is not None:
            if camera is not None:
                camera.show(None)  # the cards taken back: the table clear
            self._settle(step.result)

    def _camera_said(self, line: str | None) -> None:
        """The simulated camera could not read every seat (a hand over a card, a card it
        lost): the demo's players give the cards it asks for, from the deck, as people at
        a table type theirs; the journal's ``asked`` names those seats."""
        camera, help_ = self.session.camera, self.session.card_help
        if line is None or camera is None or help_ is None or not self.cards:
            return
        with self.session.daemon.lock:
            referee = self.session.daemon.referee
            n = referee.round.number if referee.round is not None else 0
            waiting = referee.waiting_for_cards()
        if not waiting or camera.reading_round(n):
            return  # read in full, or still reading: nothing to say yet
        read = help_.prefilled(n)
        missing = [seat for seat in self.cards if seat not in read]
        if missing:
            self.session.daemon.put(help_.complete(n, dict(self.cards), missing))

    def _settle(self, result: RoundResult) -> None:
        self.table.settle(self.cards, result)
        if self.session.referee.game.over:
            self.finished.set()
        self.round_done.set()

    def _bots_react(self, reveal_ns: int) -> None:
        game = self.session.referee.game
        for bot in sorted(self.bots & set(game.active)):
            alone = judge(game.mode, self.cards, [Slap(bot, 0)], 0, game.previous)
            wants = alone.winner == bot and bot not in alone.ignored
            if wants or self.rng.random() < self.blunder:
                reaction_ns = round(self.rng.uniform(*self.reaction_ms) * 1_000_000)
                self._plan(bot, reveal_ns + reaction_ns)

    def close(self) -> None:
        for timer in self.timers:
            timer.cancel()


def sticker_markers(cards: Mapping[str, Sequence[Any]]) -> dict[str, list[int]]:
    """The marker on each shown card, as the printed sheet binds them: two seals shown
    are two different seals, so two different stickers."""
    from companion.camera.deck import StickerDeck

    deck = StickerDeck.default("chomp")
    used: dict[str, int] = {}
    placed: dict[str, list[int]] = {}
    for seat, hand in cards.items():
        for card in hand:
            markers = deck.markers_of(str(card))
            i = used.get(str(card), 0)
            used[str(card)] = i + 1
            placed.setdefault(seat, []).append(markers[i % len(markers)])
    return placed


def demo_camera(spec: str, players: Sequence[str]) -> CameraConfig:
    """The simulated camera over the demo's table: its seats' zones are where it draws
    each seat's cards."""
    from companion.camera.sources import sim_zones

    return CameraConfig(spec, None, DEMO_DEADLINE_MS, tuple(sim_zones(players)))


DEMO_DEADLINE_MS = 1500.0


def keyboard_source(uncertainty_us: int = 10_000) -> SourceInfo:
    """Keys on mock pins: stamped when the terminal delivered the key."""
    return SourceInfo("keyboard", TimingClass.KEYBOARD, uncertainty_us, "keys on mock pins")


def open_demo(
    players: Sequence[str],
    bots: Sequence[str],
    mode: Mode = Mode.STANDARD,
    two_player_end: TwoPlayerEnd = TwoPlayerEnd.COUNT,
    seed: int | None = None,
    journal: Path | None = None,
    simulated_time: bool = False,
    short_waits: bool = False,
    camera: str | None = None,
) -> tuple[ChompSession, SimulatedTable]:
    """A demo table. ``simulated_time`` is for :func:`autoplay`: the clock moves only when
    told to, so a game takes no waiting; ``short_waits`` shortens the countdown and the
    round's end on real time (tests).

    With people at the keys, their presses reach the mock pins when the terminal delivers
    them: the stamps are only as good as the keyboard, and the referee (and its journal)
    say so. The bots' presses are their own source, stamped exactly as planned.
    """
    if journal is None:
        journal = Path(tempfile.mkdtemp(prefix="companion-demo-")) / "demo-journal.jsonl"
    config = demo_config(players, mode, two_player_end, journal, fast=short_waits)
    if camera is not None:
        config = replace(config, camera=demo_camera(camera, players))
    people = set(bots) != set(players)
    stamped_as = [keyboard_source(), BOTS_SOURCE] if people else [BOTS_SOURCE]
    # Simulated time starts now, so the journal's stamps read like a real game's.
    clock = ManualClock(time.monotonic_ns()) if simulated_time else None
    session = open_chomp_session(
        config, new=True, pin_factory="mock", clock=clock, stamped_as=stamped_as
    )
    table = SimulatedTable(session, random.Random(seed), bots, realtime=not simulated_time)
    return session, table


BETWEEN_ROUNDS_NS = 2_000_000_000  # the pause before the next round, as a person would take


def autoplay(session: ChompSession, table: SimulatedTable, max_rounds: int = 2000) -> int:
    """Bots only, round after round in simulated time, until the game ends.

    The daemon's own steps (handle, tick) run on this thread; the clock moves to the next
    planned press or the referee's next deadline, whichever comes first, so a game takes
    no longer than the computing and a seed gives the same game every time. Returns the
    rounds played.
    """
    clock = session.daemon.clock
    if not isinstance(clock, ManualClock) or table.realtime:
        raise ValueError("autoplay needs a demo opened with simulated_time=True")
    try:
        for _ in range(max_rounds):
            if session.referee.game.over or session.daemon.failure is not None:
                break
            table.round_done.clear()
            session.daemon.put(StartRound())
            if not _play_round(session, table, clock):
                break
            _release_every_button(session, table, clock)
            clock.advance(BETWEEN_ROUNDS_NS)
    finally:
        table.close()
    return session.referee.rounds_played


def _pump(session: ChompSession) -> None:
    """Handle every queued input, and every input those inputs queue (the cards)."""
    daemon = session.daemon
    daemon.pump()
    while not daemon.inbox.empty():
        daemon.pump()


def _play_round(session: ChompSession, table: SimulatedTable, clock: ManualClock) -> bool:
    """Move time on until the round is decided; False if nothing more can happen (a
    journal that cannot be written stops the table: its deadline then never passes)."""
    _pump(session)
    while not table.round_done.is_set():
        if session.daemon.failure is not None:
            return False
        due = [t for t in (session.referee.next_deadline(), table.next_planned_ns()) if t]
        if not due:
            return False
        clock.set(min(due))
        table.deliver_due()
        _pump(session)
    return True


def _release_every_button(session: ChompSession, table: SimulatedTable, clock: ManualClock) -> None:
    """Let the rest of the planned edges happen (the releases) before the next round."""
    while (stamp := table.next_planned_ns()) is not None and session.daemon.failure is None:
        clock.set(stamp)
        table.deliver_due()
        _pump(session)
