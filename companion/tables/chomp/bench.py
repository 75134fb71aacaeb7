"""``companion bench referee``: the CHOMP! table's figures (speed goals are measured
here, never in timed tests): ordering by stamp against arrival, the verdict's latency
through the real daemon on mock pins, and the rules engine's cost per verdict."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from companion.errors import InputError
from companion.figures import percentiles
from companion.games.chomp import FOOD_CHAIN, Card, ChompGame, Mode, Slap, TwoPlayerEnd, judge
from companion.referee.core import Referee, Timing
from companion.referee.daemon import Cards, Shutdown
from companion.referee.realtime import ask_for_realtime
from companion.signals import ButtonEdge, RevealStamp, SourceInfo, TimingClass
from companion.tables.chomp.demo import demo_config
from companion.tables.chomp.session import open_chomp_session
from companion.tables.voice import (
    CHOMP_SIGNALS,
    NullSink,
    VoiceConfig,
    VoiceOutput,
    every_phrase,
    fan_out,
)

US = 1_000


def _gap_ns(rng: random.Random) -> int:
    """1 us to 2 ms apart, log-uniform: as many razor-thin races as clear ones."""
    return round(10 ** rng.uniform(3, 6.301))


def ordering(trials: int, rng: random.Random, jitter_us: int = 2000) -> dict[str, int]:
    """Same presses judged by their stamps and by their arrival order.

    Two players who may both chomp press ``gap`` apart; each press reaches the program
    after a random delay of up to ``jitter_us`` (what a callback-time stamp would see).
    """
    cards = {"ann": (Card.SEAL,), "bob": (Card.SHARK,), "cat": (Card.PLANKTON,)}
    exact = [SourceInfo("bench", TimingClass.MOCK, 0)]
    errors_stamp = errors_arrival = ties = 0
    for _ in range(trials):
        first, second = rng.sample(["ann", "bob"], 2)
        t1 = rng.randrange(150_000, 600_000) * US + rng.randrange(US)
        t2 = t1 + _gap_ns(rng)
        arrivals = {
            first: t1 + rng.randrange(jitter_us * US),
            second: t2 + rng.randrange(jitter_us * US),
        }
        verdicts = {}
        for label, stamps in (("stamp", {first: t1, second: t2}), ("arrival", arrivals)):
            game = ChompGame.new(["ann", "bob", "cat"])
            ref = Referee(game, Timing.from_ms(0, settle_ms=0), exact)
            ref.reveal(RevealStamp(0, "bench"))
            # Events are fed in arrival order in both cases; only the stamps differ.
            for seq, player in enumerate(sorted(arrivals, key=arrivals.__getitem__)):
                ref.on_edge(ButtonEdge(player, True, stamps[player], "bench", seq), 0)
            step = ref.set_cards(cards, 10**12)
            assert step.result is not None
            verdicts[label] = step.result.verdict
        if verdicts["stamp"].winner is None:
            ties += 1
        errors_stamp += verdicts["stamp"].winner != first
        errors_arrival += verdicts["arrival"].winner != first
    return {
        "ordering_errors_stamp": errors_stamp,
        "ordering_errors_arrival": errors_arrival,
        "ordering_ties_stamp": ties,
    }


def judge_cost(trials: int, rng: random.Random) -> dict[str, float]:
    """The engine's own cost per verdict, over random four-player rounds with slaps."""
    players = ["ann", "bob", "cat", "dan"]
    deck = [*FOOD_CHAIN, *FOOD_CHAIN, *FOOD_CHAIN, Card.OCTOPUS, Card.ELECTRIC_EEL]
    rounds = []
    for _ in range(trials):
        cards = {p: (rng.choice(deck),) for p in players}
        slaps = [Slap(p, rng.randrange(-20_000, 900_000)) for p in players if rng.random() < 0.7]
        rounds.append((cards, slaps))
    costs = []
    clock = time.perf_counter_ns
    for cards, slaps in rounds:
        start = clock()
        judge(Mode.STANDARD, cards, slaps, 500)
        costs.append((clock() - start) / 1000)
    return percentiles(costs)


def verdict_latency(trials: int, rng: random.Random) -> tuple[dict[str, float], dict[str, float]]:
    """Decision instant to the winner's LED pin changing, and to the spoken call starting,
    through the real daemon on mock pins.

    Each trial reveals, drives a button pin low (stamped by the mock pin), gives the cards,
    and lets the daemon's own loop wake at the decision instant, judge, journal (fsync) and
    render to the LEDs and to the voice, whose sink is a null one: the call starts when the
    voice's thread hands the phrase's file to the sink (where ``aplay`` would be started).
    A game that runs low on cards is replaced by a new one.
    """
    latencies, voice_ms = decision_to_led(trials, rng)
    return percentiles(latencies), percentiles(voice_ms)


def decision_to_led(trials: int, rng: random.Random) -> tuple[list[float], list[float]]:
    """:func:`verdict_latency`'s measurements one by one: decision -> LED in us and
    decision -> voice start in ms (for benches that measure in alternating blocks)."""
    latencies: list[float] = []
    voice_ms: list[float] = []
    with tempfile.TemporaryDirectory(prefix="companion-bench-") as tmp:  # the games' journals
        while len(latencies) < trials:
            latencies.extend(_latency_game(trials - len(latencies), rng, Path(tmp), voice_ms))
    return latencies, voice_ms


def _null_voice(players: list[str]) -> tuple[VoiceOutput, NullSink]:
    """The table's voice on a null sink: every phrase known, none rendered (nothing plays)."""
    config = VoiceConfig(enabled=True)
    phrases = every_phrase(players, config.wording(), config.draw(), CHOMP_SIGNALS)
    sink = NullSink()
    return VoiceOutput(config, {p: Path(os.devnull) for p in phrases}, sink), sink


def _latency_game(
    trials: int, rng: random.Random, folder: Path, voice_ms: list[float]
) -> list[float]:
    players = ["ann", "bob", "cat"]
    config = demo_config(players, Mode.STANDARD, TwoPlayerEnd.COUNT, folder / "bench.jsonl")
    config = replace(config, lockout_ms=0.5)  # trials come faster than a hand could press
    session = open_chomp_session(config, new=True, pin_factory="mock")
    buttons = {p.name: session.pin(p.button) for p in config.players if p.button is not None}
    leds = {p.name: session.pin(p.led.pins[0]) for p in config.players if p.led}
    results: list[Any] = []
    done = threading.Event()

    def on_result(result: Any) -> None:
        results.append(result)
        done.set()

    daemon = session.daemon
    voice, sink = _null_voice(players)
    daemon.render = fan_out(session.outputs.render, voice.render)  # as [voice] wires it
    daemon.on_result = on_result
    daemon.want_realtime = True  # as at the table: SCHED_FIFO where permitted,
    daemon.pause_gc = True  # and no garbage collection inside a round
    daemon.notify = lambda message: None
    worker = threading.Thread(target=daemon.run, name="referee", daemon=True)
    worker.start()
    latencies: list[float] = []
    cards = {"ann": (Card.SEAL,), "bob": (Card.SHARK,), "cat": (Card.PLANKTON,)}
    game = session.referee.game
    try:
        while len(latencies) < trials and min(game.counts.values()) > 1:
            winner = rng.choice(["ann", "bob"])
            done.clear()
            reveal_ns = time.monotonic_ns()
            daemon.put(RevealStamp(reveal_ns, "bench"))
            daemon.put(Cards(dict(cards)))
            time.sleep(rng.uniform(0.002, 0.004))
            buttons[winner].drive_low()
            if not done.wait(timeout=2):
                raise RuntimeError("the referee gave no verdict")
            buttons[winner].drive_high()
            verdict = results[-1].verdict
            due_ns = reveal_ns + verdict.decided_at_us * US + session.referee.timing.settle_ns
            # MockPin keeps the monotonic time of its last change: when the LED lit.
            lit_ns = round(leds[winner]._last_change * 1e9)
            latencies.append((lit_ns - due_ns) / 1000)
            calls = len(latencies)  # one call per verdict of this game
            if not poll_until(lambda n=calls: len(sink.started) >= n):  # type: ignore[misc]
                raise RuntimeError("the voice never started a call")
            voice_ms.append((sink.started[calls - 1][0] - due_ns) / 1e6)
            time.sleep(0.001)
    finally:
        daemon.put(Shutdown())
        worker.join(timeout=5)
        voice.close()
        session.close()
    return latencies


def poll_until(condition: Callable[[], bool], timeout_s: float = 2.0) -> bool:
    """Whether ``condition`` came true within ``timeout_s`` (checked every 0.2 ms)."""
    end = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.0002)
    return True


@contextmanager
def busy_load(processes: int) -> Iterator[None]:
    """``processes`` busy loops beside the referee (each a whole core's worth of work)."""
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)]
    try:
        time.sleep(0.2 if busy else 0)  # let them take the CPU
        yield
    finally:
        for process in busy:
            process.kill()
        for process in busy:
            process.wait()


def scheduling() -> str:
    """What the referee's loop thread gets (asked on a thread of its own, as the loop is)."""
    got: list[str] = []
    probe = threading.Thread(target=lambda: got.append(ask_for_realtime()))
    probe.start()
    probe.join()
    return got[0]


def bench_referee(
    trials: int = 2000, seed: int = 1, latency_trials: int = 300, load: int = 0
) -> dict[str, Any]:
    """The figures; with ``load`` > 0 the verdict latency again, with that many busy
    processes beside the referee, in the same run."""
    if not 0 <= load <= 64:
        raise InputError("--load", f"from 0 to 64 busy processes, not {load}")
    for flag, value in (("--trials", trials), ("--latency-trials", latency_trials)):
        if not 1 <= value <= 10_000_000:
            raise InputError(flag, f"from 1 to 10000000, not {value}")
    rng = random.Random(seed)
    report: dict[str, Any] = {"trials": trials, "scheduling": scheduling()}
    report.update(ordering(trials, rng))
    report["verdict_latency_us"], report["decision_to_voice_start_ms"] = verdict_latency(
        latency_trials, rng
    )
    report["voice_sink"] = "null"  # the call starts where aplay would be started
    report["latency_trials"] = latency_trials
    if load:
        with busy_load(load):
            loaded = verdict_latency(latency_trials, rng)
        report["verdict_latency_loaded_us"], report["decision_to_voice_start_loaded_ms"] = loaded
        report["load"] = load
    report["judge_us"] = judge_cost(trials * 10, rng)
    report["goals"] = {
        "ordering_errors_stamp": 0,
        "verdict_latency_us_p99": 1000,
        "decision_to_voice_start_ms_p99": 50,
        "judge_us_p99": 50,
    }
    return report
