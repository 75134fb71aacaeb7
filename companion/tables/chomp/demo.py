"""``companion demo``: a whole CHOMP! table in the terminal, on gpiozero's mock pins.

Everything between the button and the verdict is the real referee: keys and bots drive
MockFactory pins low and high, the pins' edges go through the same press source, daemon,
journal and outputs as on a Pi, and the LEDs and buzzer on screen are the mock pins' states.
Only the cards come from a simulated deck (a card-reveal source) instead of being typed.
"""

from __future__ import annotations

import random
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from companion.devices.wiring import BuzzerConfig, LedConfig, LedKind
from companion.games.chomp import ChompTable, Mode, RoundResult, Slap, TwoPlayerEnd, judge
from companion.referee.core import RefereeStep
from companion.referee.daemon import Cards, Shutdown, StartRound
from companion.signals import Signal, SourceInfo, TimingClass
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
    """The example wiring on mock pins; ``fast`` shortens every wait for unattended play."""
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


class SimulatedTable:
    """The deck, the bots and the keyboard's buttons around a real referee session."""

    def __init__(
        self,
        session: ChompSession,
        rng: random.Random,
        bots: Sequence[str],
        reaction_ms: tuple[float, float] = (280, 650),
        blunder: float = 0.08,
    ) -> None:
        self.session = session
        self.rng = rng
        self.bots = set(bots)
        self.reaction_ms = reaction_ms
        self.blunder = blunder
        referee = session.referee
        self.table = ChompTable.deal(referee.game.players, rng, referee.game.mode)
        self.table.game = referee.game  # one game: the referee's
        self.pins = {
            p.name: session.pin(p.button) for p in session.config.players if p.button is not None
        }
        self.cards: dict[str, tuple[Any, ...]] = {}
        self.timers: list[threading.Timer] = []
        self.finished = threading.Event()
        self.round_done = threading.Event()
        daemon = session.daemon
        daemon.on_step = self._on_step

    # ------------------------------------------------------------------ the buttons ----

    def press(self, player: str) -> None:
        """Push the player's button down and let go a moment later, as a hand would."""
        pin = self.pins[player]
        pin.drive_low()
        timer = threading.Timer(PRESS_MS / 1000, pin.drive_high)
        timer.daemon = True
        timer.start()
        self.timers.append(timer)

    # ------------------------------------------------------------------ the round ------

    def _on_step(self, step: RefereeStep) -> None:
        """Called on the referee's thread: turn the cards over at the reveal, settle them."""
        if any(cue.signal is Signal.REVEAL for cue in step.cues):
            self.cards = self.table.reveal()
            self.session.daemon.put(Cards(dict(self.cards)))
            self._bots_react()
        if step.result is not None:
            self._settle(step.result)

    def _settle(self, result: RoundResult) -> None:
        self.table.settle(self.cards, result)
        if self.session.referee.game.over:
            self.finished.set()
        self.round_done.set()

    def _bots_react(self) -> None:
        game = self.session.referee.game
        for bot in sorted(self.bots & set(game.active)):
            alone = judge(game.mode, self.cards, [Slap(bot, 0)], 0, game.previous)
            wants = alone.winner == bot and bot not in alone.ignored
            if wants or self.rng.random() < self.blunder:
                delay = self.rng.uniform(*self.reaction_ms) / 1000
                timer = threading.Timer(delay, self.press, args=(bot,))
                timer.daemon = True
                timer.start()
                self.timers.append(timer)

    def close(self) -> None:
        for timer in self.timers:
            timer.cancel()


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
    fast: bool = False,
) -> tuple[ChompSession, SimulatedTable]:
    if journal is None:
        journal = Path(tempfile.mkdtemp(prefix="companion-demo-")) / "demo-journal.jsonl"
    config = demo_config(players, mode, two_player_end, journal, fast)
    # People press keys, and a key reaches the mock pin when the terminal delivers it: the
    # stamps are only as good as the keyboard, and the referee (and its journal) say so.
    people = set(bots) != set(players)
    stamped_as = [keyboard_source()] if people else None
    session = open_chomp_session(config, new=True, pin_factory="mock", stamped_as=stamped_as)
    reaction = (15.0, 45.0) if fast else (280.0, 650.0)
    return session, SimulatedTable(session, random.Random(seed), bots, reaction)


def autoplay(session: ChompSession, table: SimulatedTable, max_rounds: int = 2000) -> int:
    """Bots only, rounds back to back, until the game ends; returns the rounds played."""
    daemon = session.daemon
    worker = threading.Thread(target=daemon.run, name="referee", daemon=True)
    worker.start()
    try:
        for _ in range(max_rounds):
            if session.referee.game.over:
                break
            table.round_done.clear()
            daemon.put(StartRound())
            if not table.round_done.wait(timeout=10):
                break
    finally:
        daemon.put(Shutdown())
        worker.join(timeout=5)
        table.close()
    return session.referee.rounds_played
