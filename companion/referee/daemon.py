"""The referee's loop: inputs from device threads through one queue, deadlines on a clock.

Device callbacks (lgpio's thread, the bridge's reader thread, the keyboard) only put items
on the queue, so the input path never waits for an LED, a beep or the disk. One loop
thread owns the :class:`Referee`; it wakes when an input arrives or when the referee's next
deadline is due, writes the step's journal lines, then renders its cues (no verdict lights
an LED before its line is written), then syncs the journal at a verdict, then tells the
screen. A failed write stops the table with the fault signal; a hook that raises is
logged and the loop goes on (docs/reliability.md).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, fields
from typing import Any

from companion.errors import CompanionError, RuleError, WriteError
from companion.games.chomp import Hand, RoundResult
from companion.referee.clock import Clock
from companion.referee.core import Phase, Referee, RefereeStep
from companion.referee.journal import JournalWriter
from companion.referee.realtime import GcPause, ask_for_realtime, report_hook_error
from companion.signals import ButtonEdge, Cue, RevealStamp, Signal

log = logging.getLogger(__name__)

IDLE_WAIT_S = 0.25  # wake this often with nothing due, to notice a stop flag
SPIN_NS = 1_500_000  # the last stretch before a deadline is spun, not slept


@dataclass(frozen=True, slots=True)
class StartRound:
    """Begin the countdown of the next round."""


@dataclass(frozen=True, slots=True)
class Cards:
    """The open round's cards, a hand per player still in the game.

    ``source`` says where they came from ("camera", ...; None: not said, as before);
    ``frames_ns`` the camera frames that agreed on them; ``asked`` the seats a person
    typed after the camera could not read them. All three go into the journal's line."""

    cards: dict[str, Hand]
    source: str | None = None
    frames_ns: tuple[int, ...] = ()
    asked: tuple[str, ...] = ()


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
    """The referee's loop: inputs through :meth:`put`, decisions on the clock, results
    through the hooks (docs/api.md). Served by :meth:`pump` (one thread), or by
    :meth:`run` on a thread of its own (:meth:`start` makes one); :meth:`close` stops it."""

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
        self.on_failure: Callable[[WriteError], None] | None = None
        self.inbox: queue.SimpleQueue[Input] = inbox if inbox is not None else queue.SimpleQueue()
        self.lock = threading.Lock()  # held while the referee changes; screens read under it
        self.failure: WriteError | None = None  # a journal write failed: the table stopped
        self.closed = threading.Event()
        self.thread: threading.Thread | None = None
        self.want_realtime = False  # ask for SCHED_FIFO when the loop starts (the table)
        self.scheduling = ""  # what the loop thread got, said when it starts
        # Opt-in, for a program that owns its process (companion referee): no garbage
        # collection while a round is open (the collector is process-wide).
        self.pause_gc = False
        self.gc_pause = GcPause()
        self._loops: set[threading.Thread] = set()  # the threads in run() now
        self._loops_changed = threading.Condition()
        # Futures of inputs given through put(), by the input's identity, until handled.
        self._waiting: dict[int, tuple[Input, list[Future[RefereeStep]]]] = {}
        self._waiting_lock = threading.Lock()

    # ---------------------------------------------------------------- feeders (any thread)

    def put(self, item: Input) -> Future[RefereeStep]:
        """Queue an input; the future is done once the loop has handled it.

        Its result is the step the input made. An input the referee refuses (cards with no
        round open, a hand of the wrong size, a round after the game is over) raises that
        :class:`CompanionError` from ``result()``; the table shows it as a line too. After
        :meth:`close` or a failed journal write the input is ignored, and says so.
        """
        future: Future[RefereeStep] = Future()
        with self._waiting_lock:
            refusal = self._refusal()
            if refusal is None:
                _, futures = self._waiting.setdefault(id(item), (item, []))
                futures.append(future)
                self.inbox.put(item)
        if refusal is not None:
            future.set_exception(refusal)
        return future

    def edge(self, edge: ButtonEdge) -> None:
        """A press source's callback: queued, nothing to wait for."""
        if self._refusal() is None:
            self.inbox.put(edge)

    def _refusal(self) -> CompanionError | None:
        if self.failure is not None:
            return self.failure
        if self.closed.is_set():
            return RuleError("the referee is closed: the input was ignored")
        return None

    def _claim(self, item: Input) -> Future[RefereeStep] | None:
        """The future of an input given through put(), taken as the loop handles it."""
        if not self._waiting:
            return None
        with self._waiting_lock:
            held = self._waiting.get(id(item))
            if held is None or held[0] is not item:
                return None
            future = held[1].pop(0)
            if not held[1]:
                del self._waiting[id(item)]
        return future if future.set_running_or_notify_cancel() else None

    # ---------------------------------------------------------------- the loop ----------

    def handle(
        self, item: Input, now_ns: int, future: Future[RefereeStep] | None = None
    ) -> RefereeStep:
        """Apply one input to the referee (loop thread only); settle its future."""
        refusal = self._refusal()
        if refusal is not None:
            if future is not None:
                future.set_exception(refusal)
            return RefereeStep()
        refused: CompanionError | None = None
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
                    step = ref.set_cards(
                        item.cards, now_ns, item.source, item.frames_ns, item.asked
                    )
                else:
                    step = RefereeStep()
            except CompanionError as exc:  # a refused input is a message, never a crash
                step = RefereeStep(messages=[str(exc)])
                refused = exc
        self._act(step)
        if future is not None:
            failed = refused or self.failure
            if failed is not None:
                future.set_exception(failed)
            else:
                future.set_result(step)
        return step

    def tick(self, now_ns: int) -> RefereeStep:
        if self.failure is not None:
            return RefereeStep()
        with self.lock:
            step = self.referee.tick(now_ns)
        self._act(step)
        return step

    def _act(self, step: RefereeStep) -> None:
        """Journal, then show: a verdict's line is written (not yet synced) before its LED
        lights, and synced before the screen hears of it. Hooks run last, each guarded."""
        if self.journal is not None and step.journal:
            try:
                self.journal.write(step.journal)
            except WriteError as exc:
                self._fail(exc)
                return
        if self.pause_gc:
            self.gc_pause.follow(step)
        if step.cues and self.render is not None:
            self._hook("render", self.render, step.cues)
        if step.result is not None and self.journal is not None:
            try:
                self.journal.sync()
            except WriteError as exc:
                self._fail(exc)
                return
        for message in step.messages:
            self._hook("notify", self.notify, message)
        if step.result is not None and self.on_result is not None:
            self._hook("on_result", self.on_result, step.result)
        if self.on_step is not None and (step.cues or step.journal or step.messages):
            self._hook("on_step", self.on_step, step)

    def _hook(self, name: str, hook: Callable[[Any], None], value: object) -> None:
        """A hook that raises is logged with its traceback and shown as one line; the
        referee goes on with the next input."""
        try:
            hook(value)
        except Exception as exc:  # noqa: BLE001 - any hook's bug, kept off the decision path
            report_hook_error(name, exc)
            if name != "notify":
                try:
                    self.notify(f"{name} failed ({type(exc).__name__}: {exc}); see the log")
                except Exception as again:  # noqa: BLE001
                    report_hook_error("notify", again)

    def _fail(self, exc: WriteError) -> None:
        """A journal write failed: stop taking rounds, show the fault, say what is safe."""
        self.failure = exc
        log.error("%s", exc)
        if self.render is not None:
            self._hook("render", self.render, [Cue(Signal.FAULT)])
        self._hook("notify", self.notify, str(exc))
        if self.on_failure is not None:
            self._hook("on_failure", self.on_failure, exc)

    def pump(self) -> None:
        """Handle everything queued, then what is due now (tests and single-threaded use)."""
        while True:
            try:
                item = self.inbox.get_nowait()
            except queue.Empty:
                break
            future = self._claim(item)
            if isinstance(item, Shutdown):
                _settle(future)
            else:
                self.handle(item, self.clock.now_ns(), future)
        self.tick(self.clock.now_ns())

    def run(self, stop: threading.Event | None = None) -> None:
        """Serve until a :class:`Shutdown` arrives, ``stop`` is set, the daemon is closed
        or a journal write fails.

        The loop waits for an input or the next deadline, whichever comes first, so a
        decision is made on time however quiet the table is. A thread's timed wait wakes
        up to a millisecond late, so it waits until just before a deadline and spins the
        last stretch: the verdict leaves on time.
        """
        me = threading.current_thread()
        with self._loops_changed:
            self._loops.add(me)
        try:
            self._serve(stop)
        finally:
            with self._loops_changed:
                self._loops.discard(me)
                self._loops_changed.notify_all()

    def _serve(self, stop: threading.Event | None) -> None:
        if self.want_realtime:
            self.scheduling = ask_for_realtime()
            self._hook("notify", self.notify, self.scheduling)
        while not (stop is not None and stop.is_set()) and not self.closed.is_set():
            if self.failure is not None:
                break
            deadline = self.referee.next_deadline()
            timeout = IDLE_WAIT_S
            if deadline is not None:
                left = (deadline - self.clock.now_ns() - SPIN_NS) / 1e9
                timeout = max(0.0, min(IDLE_WAIT_S, left))
            try:
                item = self.inbox.get(timeout=timeout) if timeout > 0 else self.inbox.get_nowait()
            except queue.Empty:
                if deadline is not None and deadline - self.clock.now_ns() <= SPIN_NS:
                    self._spin_until(deadline)
                self.tick(self.clock.now_ns())
                continue
            future = self._claim(item)
            if isinstance(item, Shutdown):
                _settle(future)
                break
            self.handle(item, self.clock.now_ns(), future)
            self.tick(self.clock.now_ns())

    def _spin_until(self, deadline: int) -> None:
        """Yield the CPU in a tight loop until the deadline, leaving early for any input."""
        while self.clock.now_ns() < deadline and self.inbox.empty():
            time.sleep(0)

    def start(self) -> threading.Thread:
        """Run the loop on its own thread; stopped by :meth:`close`."""
        self.thread = threading.Thread(target=self.run, name="referee", daemon=True)
        self.thread.start()
        return self.thread

    def close(self, timeout: float = 5.0) -> None:
        """Stop the loop and ignore every input from now on. A loop served by :meth:`run`
        on another thread (made by :meth:`start` or by the caller) is waited for, up to
        ``timeout`` seconds, so nothing is journalled once this returns; an input still
        queued is dropped, its future saying so. Safe to call twice."""
        self.closed.set()
        me = threading.current_thread()
        with self._loops_changed:
            for _ in range(len(self._loops) + 1):
                self.inbox.put(Shutdown())  # one each, so every loop wakes now
            self._loops_changed.wait_for(lambda: not self._loops - {me}, timeout)
        if self.thread is not None and self.thread is not me:
            self.thread.join(timeout)  # made by start(), maybe not yet in run()
        self.gc_pause.release()
        with self._waiting_lock:
            waiting, self._waiting = self._waiting, {}
        dropped = RuleError("the referee was closed before this input was handled")
        for _, futures in waiting.values():
            for future in futures:
                if future.set_running_or_notify_cancel():
                    future.set_exception(dropped)

    def __enter__(self) -> RefereeDaemon:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

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


def _settle(future: Future[RefereeStep] | None) -> None:
    """A Shutdown's future: done when the loop reaches it."""
    if future is not None:
        future.set_result(RefereeStep())
