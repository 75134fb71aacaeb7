"""The referee's loop: inputs from device threads through one queue, deadlines on a clock.

Device callbacks (lgpio's thread, the bridge's reader thread, the keyboard) only put items
on the queue, so the input path never waits for an LED, a beep or the disk. One loop
thread owns the :class:`Referee`; it wakes when an input arrives or when the referee's next
deadline is due, renders cues first (the winner's LED is the first thing that changes),
then journals (fsync at each verdict), then tells the screen.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from companion.errors import CompanionError
from companion.games.chomp import Hand, RoundResult
from companion.referee.clock import Clock
from companion.referee.core import Phase, Referee, RefereeStep
from companion.referee.journal import JournalWriter
from companion.signals import ButtonEdge, Cue, RevealStamp

log = logging.getLogger(__name__)

IDLE_WAIT_S = 0.25  # wake this often with nothing due, to notice a stop flag
SPIN_NS = 1_500_000  # the last stretch before a deadline is spun, not slept


@dataclass(frozen=True, slots=True)
class StartRound:
    """Begin the countdown of the next round."""


@dataclass(frozen=True, slots=True)
class Cards:
    cards: dict[str, Hand]


@dataclass(frozen=True, slots=True)
class Shutdown:
    """Stop serving: the loop ends once the inputs queued before it are handled."""


Input = ButtonEdge | RevealStamp | StartRound | Cards | Shutdown


@dataclass(frozen=True)
class RefereeStatus:
    """What a screen shows of the game, read in one go so its parts agree."""

    phase: Phase
    round: int  # the open round, else the rounds played
    counts: dict[str, int]  # cards in each player's pile
    pot: int
    out: list[str]
    mode: str
    waiting_for_cards: bool
    stuck: list[str]  # players whose button is held down
    over: bool
    winner: str | None
    cards: dict[str, list[str]]  # the open round's cards, else the last round's

    def to_dict(self) -> dict[str, Any]:
        """Plain data, in field order (the line mode's ``status`` prints it)."""
        return {**{f.name: getattr(self, f.name) for f in fields(self)}, "phase": str(self.phase)}


class RefereeDaemon:
    def __init__(
        self,
        referee: Referee,
        clock: Clock,
        journal: JournalWriter | None = None,
        render: Callable[[list[Cue]], None] | None = None,
        notify: Callable[[str], None] | None = None,
        on_result: Callable[[RoundResult], None] | None = None,
        on_step: Callable[[RefereeStep], None] | None = None,
        inbox: queue.SimpleQueue[Input] | None = None,
    ) -> None:
        self.referee = referee
        self.clock = clock
        self.journal = journal
        self.render = render
        self.notify = notify or (lambda message: log.info("%s", message))
        self.on_result = on_result
        self.on_step = on_step
        self.inbox: queue.SimpleQueue[Input] = inbox if inbox is not None else queue.SimpleQueue()
        self.lock = threading.Lock()  # held while the referee changes; screens read under it

    # ---------------------------------------------------------------- feeders (any thread)

    def put(self, item: Input) -> None:
        self.inbox.put(item)

    def edge(self, edge: ButtonEdge) -> None:
        self.inbox.put(edge)

    # ---------------------------------------------------------------- the loop ----------

    def handle(self, item: Input, now_ns: int) -> RefereeStep:
        """Apply one input to the referee (loop thread only)."""
        ref = self.referee
        with self.lock:
            try:
                if isinstance(item, ButtonEdge):
                    step = ref.on_edge(item, now_ns)
                elif isinstance(item, RevealStamp):
                    step = ref.reveal(item)
                elif isinstance(item, StartRound):
                    step = ref.start_countdown(now_ns)
                elif isinstance(item, Cards):
                    step = ref.set_cards(item.cards, now_ns)
                else:
                    step = RefereeStep()
            except CompanionError as exc:  # a refused input is a message, never a crash
                step = RefereeStep(messages=[str(exc)])
        self._act(step)
        return step

    def tick(self, now_ns: int) -> RefereeStep:
        first = None
        with self.lock:
            if self.render is not None:
                first = self.referee.first_cue(now_ns)
                if first is not None:
                    self.render([first])  # the winner's LED before the bookkeeping
            step = self.referee.tick(now_ns)
        if first is not None and step.cues[:1] == [first]:
            step.cues.pop(0)
            self._act(step)
            step.cues.insert(0, first)
        else:
            self._act(step)
        return step

    def _act(self, step: RefereeStep) -> None:
        if step.cues and self.render is not None:
            self.render(step.cues)
        if self.journal is not None:
            self.journal.write(step.journal, durable=step.result is not None)
        for message in step.messages:
            self.notify(message)
        if step.result is not None and self.on_result is not None:
            self.on_result(step.result)
        if self.on_step is not None and (step.cues or step.journal or step.messages):
            self.on_step(step)

    def pump(self) -> None:
        """Handle everything queued, then what is due now (tests and single-threaded use)."""
        while True:
            try:
                item = self.inbox.get_nowait()
            except queue.Empty:
                break
            self.handle(item, self.clock.now_ns())
        self.tick(self.clock.now_ns())

    def run(self, stop: threading.Event | None = None) -> None:
        """Serve until a :class:`Shutdown` arrives or ``stop`` is set.

        A thread's timed wait wakes up to a millisecond late, so the loop waits until just
        before a deadline and spins the last stretch: the verdict leaves on time.
        """
        while stop is None or not stop.is_set():
            deadline = self.referee.next_deadline()
            now = self.clock.now_ns()
            if deadline is None:
                timeout = IDLE_WAIT_S
            else:
                timeout = max(0.0, min(IDLE_WAIT_S, (deadline - now - SPIN_NS) / 1e9))
            try:
                item = self.inbox.get(timeout=timeout) if timeout > 0 else self.inbox.get_nowait()
            except queue.Empty:
                if deadline is not None and deadline - self.clock.now_ns() <= SPIN_NS:
                    self._spin_until(deadline)
                self.tick(self.clock.now_ns())
                continue
            if isinstance(item, Shutdown):
                break
            self.handle(item, self.clock.now_ns())
            self.tick(self.clock.now_ns())

    def _spin_until(self, deadline: int) -> None:
        """Yield the CPU in a tight loop until the deadline, leaving early for any input."""
        while self.clock.now_ns() < deadline and self.inbox.empty():
            time.sleep(0)

    def status(self) -> RefereeStatus:
        """A snapshot for screens, taken under the lock."""
        with self.lock:
            ref = self.referee
            rnd = ref.round
            shown = rnd.cards if rnd and rnd.cards else ref.last_cards
            return RefereeStatus(
                phase=ref.phase,
                round=rnd.number if rnd else ref.rounds_played,
                counts=dict(ref.game.counts),
                pot=ref.game.pot,
                out=list(ref.game.out),
                mode=str(ref.game.mode),
                waiting_for_cards=ref.waiting_for_cards(),
                stuck=[p for p, b in ref.buttons.items() if b.stuck],
                over=ref.game.over,
                winner=ref.game.winner,
                cards={p: [str(c) for c in hand] for p, hand in shown.items()},
            )
