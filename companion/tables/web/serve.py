"""Run the pages: a uvicorn server on the configured address, never as root.

:func:`start` runs it in a thread beside whatever the process does (the way a live table
will run it next to its loop); :func:`serve_forever` is ``companion web``. Both bind the
socket first, so a port in use is one line at once, and print the address and the join
code as text and as a QR code for the phones (flushed: stdout may be a file or a pipe).

The server holds against a stranger on the network with limits uvicorn lacks, in
:class:`GuardedH11` (uvicorn's h11 protocol, selected with ``Config(http=...)``): the
headers of a request must arrive within ``header_s`` of its first byte (or of the
connection), its body within ``body_s``, and one address may keep ``per_address``
connections open; more are closed at once. An idle keep-alive connection is closed after
``idle_s`` (uvicorn's ``timeout_keep_alive``). At a stop the pages' streams end first
(:class:`_Server`), so the server stops at once, without cancelling anything.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import socket
import sys
import threading
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal, TextIO, cast

import h11
import segno
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from companion.errors import CompanionError, ConfigError, InputError
from companion.tables.settings import settings_from
from companion.tables.web import CODE_LENGTH as CODE_LENGTH
from companion.tables.web import CODE_LETTERS as CODE_LETTERS
from companion.tables.web import DEFAULT_HOST as DEFAULT_HOST
from companion.tables.web import DEFAULT_PORT as DEFAULT_PORT
from companion.tables.web import RootRefused as RootRefused
from companion.tables.web import kept_code, state_folder
from companion.tables.web import new_code as new_code
from companion.tables.web import parse_listen as parse_listen
from companion.tables.web.app import Limits, Site, create_app
from companion.tables.web.hub import Hub
from companion.tables.web.land import LandTable
from companion.tables.web.photo import PhotoTable

log = logging.getLogger("companion.web")


def read_web_config(path: str) -> tuple[str, int] | None:
    """The ``[web]`` table's ``listen`` of a TOML config, or None when it has no such table."""
    try:
        raw: Any = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError("", "no such config file", path) from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError("", f"cannot read: {exc}", path) from None
    if "web" not in raw:
        return None
    try:
        listen = settings_from({"web": raw["web"]}).web_listen
        return None if listen is None else parse_listen(listen, "web.listen")
    except InputError as exc:
        raise ConfigError(exc.where, exc.message, path) from None


def lan_address() -> str:
    """This machine's address on the local network, as a phone would use it."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET: no packet is sent, a route is chosen
        return str(probe.getsockname()[0])
    except OSError:
        return socket.gethostname()
    finally:
        probe.close()


def build_site(
    catalog: str | None = None,
    foodchain_catalog: str | None = None,
    code_file: Path | None = None,
    renew: bool = False,
    warn: Callable[[str], None] | None = None,
) -> Site:
    """The hub with the pages that need no live table: the land, the photo, Food Chain.
    Its join code is the one kept in ``code_file`` (a new one: none kept, ``renew``, or
    the file damaged, then ``warn`` says so in one line); no file: new at every start."""
    from companion.games.dino.formats import catalog_from_dict as dino_catalog
    from companion.games.foodchain import catalog_from_dict as foodchain_catalog_from

    hub = Hub()
    hub.add(LandTable())
    dino = _read(catalog, dino_catalog) if catalog else None
    photo = PhotoTable(dino, Path(catalog).name if catalog else "")
    hub.add(photo)
    chain = _read(foodchain_catalog, foodchain_catalog_from) if foodchain_catalog else None
    code = kept_code(code_file, renew, warn or _warn)
    return Site(hub, code, photo, chain, code_file=code_file)


def _warn(line: str) -> None:
    """A warning at start (a damaged code file): one line on the error output."""
    print(f"companion: warning: {line}", file=sys.stderr, flush=True)


def _read(path: str, parse: Callable[[object], Any]) -> Any:
    from companion.files import read_json

    try:
        return parse(read_json(path))
    except InputError as exc:
        raise exc if exc.source else exc.in_source(path) from None


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, or one line saying why not."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise InputError("--web", f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


@dataclass(slots=True)
class Running:
    """A server running in a thread: its address, and how to stop it."""

    server: uvicorn.Server
    thread: threading.Thread
    host: str
    port: int

    @property
    def url(self) -> str:
        host = lan_address() if self.host in ("0.0.0.0", "::") else self.host
        return f"http://{host}:{self.port}/"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


Waiting = Literal["headers", "body"] | None
TIMED_OUT = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\ncontent-length: 44\r\n\r\n"
    b"request: the headers did not arrive in time\n"
)


class Addresses:
    """The connections open from each address, for one server (its loop's thread only)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.open: collections.Counter[str] = collections.Counter()
        self.refused = 0  # connections closed at once: their address had its share open


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a header and a body deadline and a per-address cap.

    A connection is timed from its first byte (or from the connect) until its request's
    headers are in, then until its body is; past ``header_s`` it gets a one-line 408 and
    is closed, past ``body_s`` it is closed (the handler reading it sees the page gone).
    Nothing is timed while the answer is being written: an event stream lasts."""

    addresses: ClassVar[Addresses]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._waiting: Waiting = None
        self._address = ""
        self._counted = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        book = self.addresses
        self._address = self.client[0] if self.client else ""
        if book.open[self._address] >= book.limits.per_address:
            book.refused += 1
            self.connections.discard(self)  # not counted against the phones, even briefly
            transport.abort()
            return
        book.open[self._address] += 1
        self._counted = True
        self._wait_for("headers")

    def connection_lost(self, exc: Exception | None) -> None:
        self._wait_for(None)
        if self._counted:
            self._counted = False
            self.addresses.open[self._address] -= 1
            if self.addresses.open[self._address] <= 0:
                del self.addresses.open[self._address]
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        state = self.conn.their_state
        self._wait_for(
            "headers" if state is h11.IDLE else "body" if state is h11.SEND_BODY else None
        )

    def _wait_for(self, waiting: Waiting) -> None:
        """Start the deadline of what the connection now waits for (kept while it waits
        for the same thing: a trickle of bytes does not push it back)."""
        if waiting == self._waiting and (waiting is None or self._deadline is not None):
            return
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self._waiting = waiting
        if waiting is not None and not self.transport.is_closing():
            limits = self.addresses.limits
            seconds = limits.header_s if waiting == "headers" else limits.body_s
            self._deadline = self.loop.call_later(seconds, self._too_late)

    def _too_late(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if self._waiting == "headers" and self.conn.our_state is h11.IDLE:
            self.transport.write(TIMED_OUT)
        self.transport.close()


def guarded_protocol(limits: Limits) -> type[GuardedH11]:
    """The protocol class for one server: its own count of connections per address."""
    return cast(
        "type[GuardedH11]", type("GuardedH11", (GuardedH11,), {"addresses": Addresses(limits)})
    )


class QuietRepeats(logging.Filter):
    """The same message again within ``every_s`` is counted, not printed: a flood of junk
    requests (uvicorn says "Invalid HTTP request received." for each) is a line now and
    then on the table's terminal, with how many were left out."""

    def __init__(self, every_s: float = 10.0, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.every_s = every_s
        self.clock = clock
        self._said: dict[str, tuple[float, int]] = {}  # message -> (when said, left out)

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        when, left_out = self._said.get(text, (-self.every_s, 0))
        now = self.clock()
        if now - when < self.every_s:
            self._said[text] = (when, left_out + 1)
            return False
        if len(self._said) > 256:
            self._said.clear()
        self._said[text] = (now, 0)
        if left_out:
            record.msg, record.args = f"{text} (and {left_out} more like it)", None
        return True


def quiet_uvicorn() -> None:
    """uvicorn's per-request warnings, once per 10 s each (set once per process)."""
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, QuietRepeats) for f in logger.filters):
        logger.addFilter(QuietRepeats())


class _Server(uvicorn.Server):
    """uvicorn's server, which ends the pages' event streams before it waits for them."""

    def __init__(self, config: uvicorn.Config, site: Site) -> None:
        super().__init__(config)
        self.site = site

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.site.hub.close()
        await super().shutdown(sockets)


def _server(site: Site, limits: Limits) -> uvicorn.Server:
    config = uvicorn.Config(
        create_app(site),
        http=guarded_protocol(limits),
        limit_concurrency=limits.connections,
        timeout_keep_alive=max(1, round(limits.idle_s)),
        log_level="warning",
        server_header=False,
        lifespan="on",
        timeout_graceful_shutdown=2,
    )
    quiet_uvicorn()
    return _Server(config, site)


def start(
    site: Site, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, *, refuse_root: bool = True
) -> Running:
    """Serve ``site`` from a thread; returns once the server answers."""
    if refuse_root and os.geteuid() == 0:
        raise RootRefused()
    sock = bind(host, port)
    server = _server(site, site.limits)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    if not server.started:
        raise CompanionError("the web server did not start")
    return Running(server, thread, host, sock.getsockname()[1])


def announce(url: str, code: str, out: TextIO = sys.stdout, title: str = "companion web") -> None:
    """The address and join code for the phones: text, a QR code, and the log."""
    joined = f"{url}?code={code}"
    print(f"{title}: open {url} on a phone (watch), join code {code} (change)", file=out)
    print(f"Scan to join: {joined}", file=out, flush=True)
    segno.make(joined, error="m").terminal(out=out, compact=True, border=2)
    out.flush()
    log.info("serving %s, join code %s", url, code)


def serve_forever(site: Site, host: str, port: int, out: TextIO = sys.stdout) -> None:
    """``companion web``: serve until Ctrl-C."""
    running = start(site, host, port)
    announce(running.url, site.code, out)
    try:
        while running.thread.is_alive():
            running.thread.join(0.5)
    finally:
        running.stop()


def serve_tables(
    tables: list[Any],
    listen: str | None,
    out: TextIO | None = None,
    code_file: Path | None = None,
    renew: bool = False,
    warn: Callable[[str], None] | None = None,
    title: str = "companion web",
) -> tuple[Site, Running]:
    """``--web`` on a live table: the pages and ``tables`` served beside it, in this process.

    Each table with a ``serve(publish)`` is handed the hub's publish once the server
    answers (the live tables publish from a thread of their own). Returns the site (its
    join code, kept in ``code_file``) and the running server, which the caller stops.
    """
    host, port = parse_listen(listen) if listen else (DEFAULT_HOST, DEFAULT_PORT)
    said = out or sys.stderr
    if warn is None:
        warn = (lambda line: print(f"companion: warning: {line}", file=said)) if out else _warn
    site = build_site(code_file=code_file, renew=renew, warn=warn)
    for table in tables:
        site.hub.add(table)
    running = start(site, host, port)
    for table in tables:
        serve = getattr(table, "serve", None)
        if serve is not None:
            serve(site.hub.publish)
    announce(running.url, site.code, said, title)  # the log, under systemd
    return site, running


def table_code_file(beside: Path | None, name: str) -> Path:
    """Where a table keeps its join code: beside its journal or save file, else (a table
    with no file of its own, the demo) ``NAME.code`` in the user's state folder."""
    if beside is None:
        return state_folder() / f"{name}.code"
    return beside.with_name(f"{beside.name}.code")


def serve_page(
    page: Any,
    listen: str,
    say: Callable[[str], None],
    code_file: Path | None = None,
    renew: bool = False,
) -> Callable[[], None]:
    """``--web`` beside a terminal table: ``page`` served, its address and join code
    said on the table's own screen (the pages never see that line with the code: app.py
    hides it); the code is kept in ``code_file`` across restarts (``renew``: a new one).
    Returns how to stop both (the page, then the server)."""
    warnings: list[str] = []

    def warn(line: str) -> None:  # the log, and the table's screen (curses hides the log)
        _warn(line)
        warnings.append(line)

    site, running = serve_tables([page], listen, code_file=code_file, renew=renew, warn=warn)
    for line in warnings:
        say(f"web: {line}")
    say(f"web: {running.url} join code {site.code}")

    def stop() -> None:
        page.close()
        running.stop()

    return stop
