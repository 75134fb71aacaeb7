"""``companion bench web``: a verdict on the pins to the phones, and what the phones cost the LED.

The real CHOMP! table on mock pins (the referee's own loop on its thread, as in ``bench
referee``), its page served by uvicorn on 127.0.0.1, and six pages reading the event
stream (plain HTTP clients, one thread each, stamping each event when its line arrives).
Each trial reveals, gives the cards, presses the winner's pin and waits for the verdict:

- ``decision_to_led_us``: the decision instant to the winner's LED pin changing, measured
  in blocks with the pages connected and without, alternated so that the machine's load
  falls on both alike;
- ``verdict_to_clients_us``: the winner's LED pin changing to the *last* of the six pages
  holding the new state (every page has it);
- ``tap_to_other_phones_us``: with the pages connected, the cards are tapped on the first
  page (a POST with the join code, as a phone sends it): from the tap to the *last* of the
  other five pages holding the state that shows them.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import socket
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from companion.figures import percentiles
from companion.games.chomp import Card, Mode, TwoPlayerEnd
from companion.referee.daemon import Cards, Shutdown
from companion.signals import RevealStamp
from companion.tables.chomp.demo import demo_config
from companion.tables.chomp.session import ChompSession, open_chomp_session
from companion.tables.chomp.web import ChompWebTable
from companion.tables.web.app import COOKIE
from companion.tables.web.serve import Running, build_site, start

US = 1_000
PLAYERS = ("ann", "bob", "cat")
HANDS = (Card.SEAL, Card.SHARK, Card.PLANKTON)  # the seal's and the shark's slaps are valid


class Page(threading.Thread):
    """One phone's event stream: the monotonic time each round's verdict first arrived."""

    def __init__(self, port: int) -> None:
        super().__init__(name="bench-page", daemon=True)
        self.port = port
        self.seen: dict[int, int] = {}
        self.versions: list[tuple[int, int]] = []  # (state version, when it arrived)
        self.ready = threading.Event()
        self.arrived = threading.Condition()
        self.conn: http.client.HTTPConnection | None = None

    def run(self) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            self.conn.request("GET", "/api/tables/chomp/events")
            response = self.conn.getresponse()
            while line := response.readline():
                if not line.startswith(b"data: "):
                    continue
                now = time.monotonic_ns()
                snapshot = json.loads(line[6:])
                verdict = snapshot["state"]["verdict"]
                with self.arrived:
                    if verdict is not None:
                        self.seen.setdefault(verdict["n"], now)
                    self.versions.append((snapshot["version"], now))
                    self.arrived.notify_all()
                self.ready.set()
        except OSError:
            pass  # closed by close(): the trials are over

    def wait_for(self, n: int, timeout: float = 5.0) -> int:
        with self.arrived:
            if not self.arrived.wait_for(lambda: n in self.seen, timeout):
                raise RuntimeError(f"a page never got round {n}'s verdict")
            return self.seen[n]

    def wait_version(self, version: int, timeout: float = 5.0) -> int:
        """When this page first held state ``version`` or a later one."""

        def arrived() -> int | None:
            return next((t for v, t in self.versions if v >= version), None)

        with self.arrived:
            if not self.arrived.wait_for(lambda: arrived() is not None, timeout):
                raise RuntimeError(f"a page never got the state's version {version}")
            when = arrived()
            assert when is not None
            return when

    def close(self) -> None:
        conn = self.conn
        if conn is not None and conn.sock is not None:
            try:
                conn.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.join(5)


@dataclass
class Served:
    """The page and its readers around one session (None when measuring without them)."""

    table: ChompWebTable
    running: Running
    code: str
    pages: list[Page] = field(default_factory=list)

    def tap(self, action: dict[str, Any]) -> tuple[int, int]:
        """A phone's tap: the action POSTed as the first page would, with the join code.
        Returns when it was sent and the version of the state it made."""
        origin = f"http://127.0.0.1:{self.running.port}"
        body = json.dumps(action)
        headers = {"origin": origin, "cookie": f"{COOKIE}={self.code}"}
        headers["content-type"] = "application/json"
        conn = http.client.HTTPConnection("127.0.0.1", self.running.port, timeout=10)
        try:
            sent = time.monotonic_ns()
            conn.request(
                "POST",
                "/api/tables/chomp/actions",
                body,
                {
                    "origin": origin,
                    "cookie": f"{COOKIE}={self.code}",
                    "content-type": "application/json",
                },
            )
            response = conn.getresponse()
            answer = response.read()
            if response.status != 200:
                raise RuntimeError(f"the tap was refused: {answer[:200]!r}")
            return sent, int(json.loads(answer)["version"])
        finally:
            conn.close()

    def close(self) -> None:
        for page in self.pages:
            page.close()
        self.running.stop()
        self.table.close()


def _serve(session: ChompSession, clients: int) -> Served:
    site = build_site()
    table = ChompWebTable(session)
    site.hub.add(table)
    # Only this machine can reach 127.0.0.1, for the length of the bench: as any user.
    running = start(site, "127.0.0.1", 0, refuse_root=False)
    table.serve(site.hub.publish)
    served = Served(table, running, site.code, [Page(running.port) for _ in range(clients)])
    for page in served.pages:
        page.start()
    for page in served.pages:
        if not page.ready.wait(10):
            raise RuntimeError("a page could not open the event stream")
    return served


@dataclass
class Figures:
    led_with: list[float] = field(default_factory=list)
    led_without: list[float] = field(default_factory=list)
    to_clients: list[float] = field(default_factory=list)
    tap_to_others: list[float] = field(default_factory=list)


def _block(trials: int, rng: random.Random, folder: Path, clients: int, out: Figures) -> None:
    """``trials`` verdicts, on as many fresh games as it takes; with ``clients`` pages."""
    done = 0
    while done < trials:
        journal = folder / f"bench-{rng.randrange(10**9)}.jsonl"
        config = demo_config(list(PLAYERS), Mode.STANDARD, TwoPlayerEnd.COUNT, journal)
        config = replace(config, lockout_ms=0.5)  # trials come faster than a hand could press
        session = open_chomp_session(config, new=True, pin_factory="mock")
        try:
            done += _game(session, trials - done, rng, clients, out)
        finally:
            session.close()


def _game(
    session: ChompSession, trials: int, rng: random.Random, clients: int, out: Figures
) -> int:
    config = session.config
    buttons = {p.name: session.pin(p.button) for p in config.players if p.button is not None}
    leds = {p.name: session.pin(p.led.pins[0]) for p in config.players if p.led}
    got = threading.Event()
    results: list[Any] = []

    def on_result(result: Any) -> None:
        results.append(result)
        got.set()

    session.daemon.on_result = on_result
    served = _serve(session, clients) if clients else None
    worker = threading.Thread(target=session.daemon.run, name="referee", daemon=True)
    worker.start()
    game, played = session.referee.game, 0
    try:
        while played < trials and min(game.counts.values()) > 1:
            hands = dict(zip(PLAYERS, rng.sample(HANDS, len(HANDS)), strict=True))
            winner = rng.choice([p for p, c in hands.items() if c is not Card.PLANKTON])
            got.clear()
            reveal_ns = time.monotonic_ns()
            session.daemon.put(RevealStamp(reveal_ns, "bench"))
            if served is None:
                session.daemon.put(Cards({p: (c,) for p, c in hands.items()}))
            else:  # the cards tapped on the first phone, watched on the others
                _wait_for_the_reveal(session)
                tapped = {"type": "cards", "cards": {p: [str(c)] for p, c in hands.items()}}
                sent, version = served.tap(tapped)
                last = max(page.wait_version(version) for page in served.pages[1:])
                out.tap_to_others.append((last - sent) / 1000)
            time.sleep(rng.uniform(0.002, 0.004))
            buttons[winner].drive_low()
            if not got.wait(timeout=2):
                raise RuntimeError("the referee gave no verdict")
            buttons[winner].drive_high()
            played += 1
            decided_us = results[-1].verdict.decided_at_us
            due_ns = reveal_ns + decided_us * US + session.referee.timing.settle_ns
            lit_ns = round(leds[winner]._last_change * 1e9)  # MockPin: when the LED lit
            (out.led_with if served else out.led_without).append((lit_ns - due_ns) / 1000)
            if served is not None:
                last = max(page.wait_for(played) for page in served.pages)
                out.to_clients.append((last - lit_ns) / 1000)
            time.sleep(0.001)
    finally:
        session.daemon.put(Shutdown())
        worker.join(timeout=5)
        if served is not None:
            served.close()
    return played


def _wait_for_the_reveal(session: ChompSession, timeout: float = 5.0) -> None:
    """Until the referee has taken the reveal and waits for the cards (a phone sees the
    round open before it taps them)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with session.daemon.lock:
            if session.referee.waiting_for_cards():
                return
        time.sleep(0.0005)
    raise RuntimeError("the referee never opened the round for its cards")


def bench_web(
    trials: int = 200, clients: int = 6, seed: int = 1, blocks: int = 4
) -> dict[str, Any]:
    """The figures of docs/web.md#how-fast: in blocks, alternately with and without pages."""
    rng = random.Random(seed)
    folder = Path(tempfile.mkdtemp(prefix="companion-bench-web-"))
    figures = Figures()
    load_before = os.getloadavg()
    per_block = max(1, -(-trials // blocks))
    for b in range(blocks):
        for with_pages in (True, False) if b % 2 == 0 else (False, True):
            _block(per_block, rng, folder, clients if with_pages else 0, figures)
    with_p, without = percentiles(figures.led_with), percentiles(figures.led_without)
    return {
        "trials": len(figures.to_clients),
        "clients": clients,
        "verdict_to_clients_us": percentiles(figures.to_clients),
        "tap_to_other_phones_us": percentiles(figures.tap_to_others),
        "decision_to_led_us": {"with_clients": with_p, "without_clients": without},
        "led_p99_change": round(with_p["p99"] / without["p99"] - 1, 3) if without["p99"] else None,
        "load": {
            "cpus": os.cpu_count(),
            "loadavg_before": [round(x, 2) for x in load_before],
            "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        },
        "goals": {
            "verdict_to_clients_us_p99": 100_000,
            "tap_to_other_phones_us_p99": 150_000,
            "led_p99_change": 0.10,
        },
    }
