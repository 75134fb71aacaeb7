"""The table hub: what a table at the Pi shows to the phones and what it takes from them.

A *table* is anything with a name, a ``state()`` (a JSON-able dict) and an ``act(action)``
that changes it or raises :class:`~companion.errors.InputError` naming the field. The hub
keeps a version per table, hands every change to the watchers (the pages' event streams)
and lets a reconnecting page catch up: it always gets the whole state, never a diff.

Stdlib only, so a live table (the referee's loop runs in its own thread) can publish
without knowing about the web server: :meth:`Hub.publish` is safe from any thread.

Seats: a table that has seats (``seats()``, the names a page may claim) and actions that
speak for one (``seat_of(action)``) gets them guarded here, for every table alike: a page
claims a seat with its page token (given by the server in a cookie), and an action for a
seat is taken only from the page that claimed it (:class:`SeatRefused`, a 403, otherwise).
An action a table names in ``table_only`` (setting the table up: the camera's zones) is
taken only from a page that holds none of its seats: a player's phone is not the table's.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from companion.errors import CompanionError, InputError

Action = Mapping[str, Any]
WATCH_S = 0.25  # how often a Watcher looks for a change made elsewhere (a terminal)
log = logging.getLogger(__name__)


class Table(Protocol):
    """What the hub needs from a table."""

    name: str  # the URL name: /api/tables/NAME

    def state(self) -> dict[str, Any]:
        """Everything a page needs to draw the table, as JSON-able data."""
        ...

    def act(self, action: Action) -> None:
        """Apply one action from a page; bad input raises InputError naming the field."""
        ...


class SeatRefused(CompanionError, PermissionError):
    """An action for a seat this page did not claim, or a seat another page holds: a 403."""

    def __init__(self, seat: str, message: str) -> None:
        super().__init__(f"seat: {message}")
        self.seat = seat


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One table's state at one version: what an event carries (with the seats claimed,
    by name only, for a table that has seats)."""

    table: str
    version: int
    state: dict[str, Any]
    claimed: tuple[str, ...] | None = None
    instance: str = ""  # the server's start: a page that sees it change reloads
    game: str | None = None  # the table's game: a page that sees it change reloads

    def to_dict(self) -> dict[str, Any]:
        out = {
            "table": self.table,
            "version": self.version,
            "instance": self.instance,
            "game": self.game,
            "state": self.state,
        }
        if self.claimed is not None:
            out["claimed"] = list(self.claimed)
        return out


@dataclass(slots=True)
class _Entry:
    table: Table
    snapshot: Snapshot
    watchers: set[asyncio.Queue[Snapshot | None]] = field(default_factory=set)
    claims: dict[str, str] = field(default_factory=dict)  # seat -> the page token holding it

    def seats(self) -> list[str] | None:
        """The table's seats, or None when it has none."""
        seats = getattr(self.table, "seats", None)
        return None if seats is None else list(seats())

    def taken(self, seat: str, then: str = "") -> str:
        """Why a page may not act for ``seat``, another page holding it: the table's own
        words (``seat_taken``, e.g. the set-up's "in progress on another phone") or ours."""
        words = getattr(self.table, "seat_taken", None)
        if isinstance(words, str):
            return words
        return f"{seat} is claimed by another page" + (f": {then}" if then else "")

    def claimed(self) -> tuple[str, ...] | None:
        return None if self.seats() is None else tuple(sorted(self.claims))

    def game(self) -> str | None:
        """The table's game id (``game_id()``), or None for a table that has no games."""
        game_id = getattr(self.table, "game_id", None)
        return None if game_id is None else str(game_id())


class Hub:
    """The tables served, their latest snapshots, and who watches each."""

    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.closed = False
        self.instance = secrets.token_hex(6)  # new at every start of the server

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Remember the server's loop, so that other threads can wake its watchers."""
        self._loop = loop

    def add(self, table: Table) -> None:
        if table.name in self._entries:
            raise ValueError(f"a table named {table.name!r} is already in the hub")
        claimed = None if getattr(table, "seats", None) is None else ()
        entry = _Entry(table, Snapshot(table.name, 1, {}))
        entry.snapshot = Snapshot(
            table.name, 1, table.state(), claimed, self.instance, entry.game()
        )
        self._entries[table.name] = entry

    def names(self) -> list[str]:
        return list(self._entries)

    def table(self, name: str) -> Table:
        return self._entry(name).table

    def _entry(self, name: str) -> _Entry:
        try:
            return self._entries[name]
        except KeyError:
            raise InputError("table", f"no table named {name!r}") from None

    def snapshot(self, name: str) -> Snapshot:
        with self._lock:
            return self._entry(name).snapshot

    def act(self, name: str, action: object, page: str | None = None) -> Snapshot:
        """Check that ``action`` is an object with a ``type`` and that ``page`` (its page
        token) holds the seat it speaks for, if any; apply it, publish the result."""
        if not isinstance(action, Mapping):
            raise InputError("action", "an action is a JSON object with a 'type'")
        if not isinstance(action.get("type"), str):
            raise InputError("type", "an action names its type, a string")
        entry = self._entry(name)
        with self._lock:
            self._check_seat(entry, action, page)
            entry.table.act(action)
        return self.publish(name)

    def _check_seat(self, entry: _Entry, action: Action, page: str | None) -> None:
        if action.get("type") in getattr(entry.table, "table_only", ()):
            held = [s for s, p in entry.claims.items() if page is not None and p == page]
            if held:
                raise SeatRefused(
                    held[0], f"{held[0]}'s page cannot set up the table: use a page with no seat"
                )
        seat_of = getattr(entry.table, "seat_of", None)
        seat = None if seat_of is None else seat_of(action)
        if seat is None:
            return
        holder = entry.claims.get(seat)
        if holder is None:
            raise SeatRefused(seat, f"{seat} is not claimed: claim it on this page first")
        if page is None or not hmac.compare_digest(holder.encode(), page.encode()):
            raise SeatRefused(seat, entry.taken(seat, f"only it acts for {seat}"))

    def claim(self, name: str, seat: object, page: str) -> Snapshot:
        """``page`` claims ``seat`` of table ``name`` (None: gives its seat back). A page
        holds one seat per table; a seat another page holds is refused (403)."""
        entry = self._entry(name)
        seats = entry.seats()
        if seats is None:
            raise InputError("seat", f"the {name} table has no seats to claim")
        if seat is not None and (not isinstance(seat, str) or seat not in seats):
            raise InputError("seat", f"{str(seat)[:40]!r} is not a seat ({', '.join(seats)})")
        with self._lock:
            holder = None if seat is None else entry.claims.get(seat)
            if holder is not None and holder != page:
                raise SeatRefused(seat or "", entry.taken(seat or ""))
            for held in [s for s, p in entry.claims.items() if p == page]:
                del entry.claims[held]
            if seat is not None:
                entry.claims[seat] = page
        return self.publish(name)

    def seats_of(self, page: str) -> dict[str, str]:
        """The seat ``page`` holds at each table: what a page shows as "you are"."""
        with self._lock:
            return {
                name: seat
                for name, entry in self._entries.items()
                for seat, holder in entry.claims.items()
                if holder == page
            }

    def publish(self, name: str) -> Snapshot:
        """Take the table's state now, bump its version and wake its watchers (any thread)."""
        entry = self._entry(name)
        with self._lock:
            state = entry.table.state()
            version = entry.snapshot.version + 1
            snap = Snapshot(name, version, state, entry.claimed(), self.instance, entry.game())
            entry.snapshot = snap
            watchers = list(entry.watchers)
        loop = self._loop
        if loop is None or loop.is_closed():
            return snap
        for queue in watchers:
            loop.call_soon_threadsafe(_offer, queue, snap)
        return snap

    def close(self) -> None:
        """The server stops: every page's stream is told so and ends (from any thread)."""
        with self._lock:
            self.closed = True
            watchers = [q for entry in self._entries.values() for q in entry.watchers]
        loop = self._loop
        if loop is not None and not loop.is_closed():
            for queue in watchers:
                loop.call_soon_threadsafe(_offer, queue, None)

    def watch(self, name: str) -> Watch:
        """Watch one table: the current snapshot first, then every newer one."""
        entry = self._entry(name)
        watch = Watch(self, entry)
        with self._lock:
            entry.watchers.add(watch.queue)
            watch.last = entry.snapshot
        return watch

    def _unwatch(self, entry: _Entry, queue: asyncio.Queue[Snapshot | None]) -> None:
        with self._lock:
            entry.watchers.discard(queue)

    def watchers(self, name: str) -> int:
        with self._lock:
            return len(self._entry(name).watchers)


def _offer(queue: asyncio.Queue[Snapshot | None], snap: Snapshot | None) -> None:
    """Put the newest snapshot in a one-place queue, dropping an older one not yet read
    (None: the hub closed, and stays so). Two threads that publish at once (a table's own
    thread, an action's) may offer their snapshots in the wrong order: the newer is kept,
    never replaced by the older, or a page would show a stale state until the next change."""
    if queue.full():
        held = queue.get_nowait()
        if held is None or (snap is not None and held.version > snap.version):
            snap = held
    queue.put_nowait(snap)


class Watch:
    """One page's view of one table; :meth:`next` waits for a newer snapshot.

    A page that reconnects opens a new watch and so starts from the whole current state:
    nothing it missed while asleep matters, only where the table is now.
    """

    def __init__(self, hub: Hub, entry: _Entry) -> None:
        self._hub = hub
        self._entry = entry
        self.queue: asyncio.Queue[Snapshot | None] = asyncio.Queue(maxsize=1)
        self.last: Snapshot = entry.snapshot
        self.closed = hub.closed

    async def next(self, timeout: float) -> Snapshot | None:
        """The next newer snapshot, or None when ``timeout`` seconds pass without one or
        the hub closes (then :attr:`closed` is set)."""
        deadline = asyncio.get_running_loop().time() + timeout
        while not self.closed:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                return None
            try:
                snap = await asyncio.wait_for(self.queue.get(), left)
            except TimeoutError:
                return None
            if snap is None or self._hub.closed:  # a late publish may have replaced None
                self.closed = True
            elif snap.version > self.last.version:
                self.last = snap
                return snap
        return None

    def close(self) -> None:
        self._hub._unwatch(self._entry, self.queue)

    def __enter__(self) -> Watch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --------------------------------------------------------------------------------------
# How a live table hears of its changes without ever holding up the table
# --------------------------------------------------------------------------------------


class Publisher:
    """A thread that calls ``publish`` after each :meth:`poke`, bursts folded into one.

    ``poke`` is a flag set (no lock the caller could wait on, no I/O): the referee's loop
    calls it and goes on at once. ``hold()`` returns how many seconds to wait before
    publishing (0: now), so that drawing the state and waking the pages (Python work,
    which needs the interpreter's lock) stays out of the referee's way just before a
    decision falls due.
    """

    def __init__(
        self,
        publish: Callable[[], object],
        name: str = "web-publisher",
        hold: Callable[[], float] = lambda: 0.0,
    ) -> None:
        self._publish = publish
        self._hold = hold
        self._wake = threading.Event()
        self._stopping = False
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.thread.start()

    def poke(self) -> None:
        self._wake.set()

    def _run(self) -> None:
        while True:
            self._wake.wait()
            if self._stopping:
                return
            self._wake.clear()
            try:
                while (wait := self._hold()) > 0 and not self._stopping:
                    time.sleep(min(wait, 0.05))
                self._publish()
            except Exception:  # a page's trouble must not end the publishing
                log.exception("publishing the table's state failed")

    def stop(self) -> None:
        self._stopping = True
        self._wake.set()
        self.thread.join(5)


class Watcher:
    """Calls ``publish`` whenever ``fingerprint()`` changes (looked at every WATCH_S)."""

    def __init__(self, fingerprint: Callable[[], object], publish: Callable[[], object]) -> None:
        self._fingerprint = fingerprint
        self._publish = publish
        self._stop = threading.Event()
        self._seen = fingerprint()
        self.thread = threading.Thread(target=self._run, name="web-watcher", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self._stop.wait(WATCH_S):
            now = self._fingerprint()
            if now != self._seen:
                self._seen = now
                self._publish()

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(5)


class WatchedTable:
    """A live table the terminal changes too: the page hears of it when
    :meth:`fingerprint` changes (a :class:`Watcher` started by :meth:`serve`)."""

    name: str
    watcher: Watcher | None = None

    def fingerprint(self) -> object:
        raise NotImplementedError

    def serve(self, publish: Callable[[str], object]) -> None:
        self.watcher = Watcher(self.fingerprint, lambda: publish(self.name))

    def close(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
