"""The Starlette application: pages, the table hub's API, photos and score sheets.

Anyone on the network may watch (every GET); a change (every POST) must come from this
server's own page (the Origin header) and carry the table's join code (a cookie set by
the first visit with ``?code=``); wrong codes are throttled per address. Bodies are read
with a limit (a photo up to 20 MB, anything else 64 KB), JSON is parsed with bounds (depth,
digits, string length), event streams are counted, and bad input is a 4xx whose body is
one line naming the field. An error no handler expected is one logged line and a one-line
500 (:class:`OneLineErrors`); every JSON answer is ASCII (:class:`Json`). Each browser gets
a page token (an HttpOnly cookie) with which it claims a seat at a table (hub.py).
The limits of connections and timeouts are the server's, in serve.py. docs/web.md says it
all for people.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import io
import json
import logging
import math
import re
import secrets
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import segno
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import (
    FileResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from companion import text as gate
from companion.errors import InputError
from companion.games.foodchain import Catalog as FoodChainCatalog
from companion.tables.web import new_code, normal_code, save_code
from companion.tables.web.history import routes as history_routes
from companion.tables.web.hub import Hub, SeatRefused, Snapshot
from companion.tables.web.photo import PhotoTable
from companion.tables.web.sheet import score_sheet

STATIC = Path(__file__).with_name("static")
COOKIE = "companion_code"
PAGE_COOKIE = "companion_page"  # which page (browser) this is: the seats it claimed
PAGE_TOKEN = re.compile(r"[A-Za-z0-9_-]{22,64}")
MB = 1024 * 1024
STOPPED = "event: stopped\ndata: the table stopped\n\n"
log = logging.getLogger("companion.web")


@dataclass(frozen=True, slots=True)
class Limits:
    """What one request, one address or the whole server may take (docs/web.md#limits).
    Set once where the server is built; the handlers and the protocol read them here."""

    body_bytes: int = 64 * 1024  # a JSON action or score sheet
    photo_bytes: int = 20 * MB  # a phone's photo
    streams: int = 32  # live pages at once (each phone keeps one open)
    connections: int = 128  # all connections at once (uvicorn's limit_concurrency)
    per_address: int = 16  # connections open from one address; more are closed at once
    header_s: float = 5.0  # a request's line and headers, from its first byte (or connect)
    body_s: float = 60.0  # a request's whole body (a 20 MB photo on slow Wi-Fi)
    idle_s: float = 5.0  # a keep-alive connection with no request (uvicorn's keep-alive)
    keepalive_s: float = 15.0  # a comment down each quiet stream, so proxies keep it
    code_tries: int = 5  # wrong join codes from one address before it must wait
    code_wait_s: float = 1.0  # the first wait; each further wrong code doubles it
    code_wait_most_s: float = 300.0
    json_depth: int = 32  # arrays and objects inside each other
    json_digits: int = 20  # digits of a JSON number
    json_string: int = 16_384  # characters of a JSON string (a typed land grid)


class Throttle:
    """Wrong join codes per address: after ``code_tries`` of them each try must wait, the
    wait doubling, so that guessing 40 bits is hopeless; a right code forgets the address."""

    KEEP = 4096  # addresses remembered (the oldest forgotten first)

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self._missed: dict[str, tuple[int, float]] = {}  # address -> (misses, wait until)

    def wait_s(self, address: str) -> float:
        """Seconds before ``address`` may try a code again (0: now)."""
        left = self._missed.get(address, (0, 0.0))[1] - self.clock()
        return min(self.limits.code_wait_most_s, max(0.0, left))  # (t + w) - t may be > w

    def missed(self, address: str) -> None:
        misses = self._missed.pop(address, (0, 0.0))[0] + 1
        over = misses - self.limits.code_tries
        wait = 0.0
        if over >= 0:
            wait = min(self.limits.code_wait_most_s, self.limits.code_wait_s * 2 ** min(over, 30))
        self._missed[address] = (misses, self.clock() + wait)
        while len(self._missed) > self.KEEP:
            del self._missed[next(iter(self._missed))]

    def hit(self, address: str) -> None:
        self._missed.pop(address, None)


HIDDEN_CODE = "(join code)"  # what a page sees where a table's text held the code


@dataclass(slots=True)
class Site:
    """Everything the pages serve: the hub and its tables, the join code, the limits.

    The code is kept in ``code_file`` (when given) so that a restarted table keeps it;
    :meth:`renew_code` makes and keeps a new one. No snapshot leaves the server with the
    code in it (:meth:`snapshot_json`): a table's text that says it (the terminal's
    "join code ..." line) reaches every page as "(join code)"."""

    hub: Hub
    code: str
    photo: PhotoTable
    foodchain: FoodChainCatalog | None = None
    history_db: str | None = None  # the history tab's database (None: the default one)
    limits: Limits = field(default_factory=Limits)
    code_file: Path | None = None
    streams: int = 0
    scanning: anyio.Lock = field(default_factory=anyio.Lock)
    throttle: Throttle = field(init=False)
    _events: dict[str, tuple[int, str]] = field(default_factory=dict)
    _hide: tuple[str, re.Pattern[str] | None] = ("", None)  # the code it hides, how

    def __post_init__(self) -> None:
        self.throttle = Throttle(self.limits)
        self.code = normal_code(self.code)

    def renew_code(self, warn: Callable[[str], None] = log.warning) -> str:
        """A new join code, kept in the code file: every page must join again with it."""
        code = new_code()
        if self.code_file is not None:
            save_code(self.code_file, code, warn)
        self.code = code
        self._events.clear()
        return code

    def snapshot_json(self, snap: Snapshot) -> str:
        """A snapshot as JSON for any page: the join code never in it."""
        if self._hide[0] != self.code:
            self._hide = (self.code, _code_pattern(self.code))
            self._events.clear()
        text = dump_json(snap.to_dict())
        pattern = self._hide[1]
        return text if pattern is None else pattern.sub(HIDDEN_CODE, text)

    def event_text(self, snap: Snapshot) -> str:
        """A snapshot as an event, serialized once for all the pages watching its table."""
        cached = self._events.get(snap.table)
        if cached is None or cached[0] != snap.version:
            body = self.snapshot_json(snap)
            cached = (snap.version, f"id: {snap.version}\nevent: state\ndata: {body}\n\n")
            self._events[snap.table] = cached
        return cached[1]

    def answer(self, snap: Snapshot) -> Response:
        """A snapshot as the answer to a request (GET or an action's POST)."""
        return Response(self.snapshot_json(snap), media_type="application/json")


def _code_pattern(code: str) -> re.Pattern[str] | None:
    """The code as a page could meet it in a table's text: a word of its own, any case,
    spaces between its letters. A code the server makes has 8 letters; a shorter one (a
    test's "c") would hide every such word of the state, so it is not looked for."""
    if len(code) < 4:
        return None
    letters = r"\s*".join(re.escape(c) for c in code)
    return re.compile(f"(?<![0-9A-Za-z]){letters}(?![0-9A-Za-z])", re.IGNORECASE)


class Refused(Exception):
    """A request answered with a 4xx (or 503) and one line naming the field."""

    def __init__(
        self, status: int, field_name: str, message: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(f"{field_name}: {message}")
        self.status = status
        self.headers = headers


def one_line(status: int, text: str, headers: dict[str, str] | None = None) -> PlainTextResponse:
    return PlainTextResponse(text.replace("\n", " ") + "\n", status, headers)


def dump_json(content: Any) -> str:
    """JSON as ASCII: a lone surrogate in a name is escaped (``\\ud800``), never an
    encoding error, so no state a table holds can make an answer fail."""
    return json.dumps(content, ensure_ascii=True, separators=(",", ":"))


class Json(JSONResponse):
    """The one JSON response of the pages: :func:`dump_json`, whatever the content."""

    def render(self, content: Any) -> bytes:
        return dump_json(content).encode("ascii")


def _site(request: Request) -> Site:
    site: Site = request.app.state.site
    return site


def _address(request: Request) -> str:
    return request.client.host if request.client else ""


def may_change(request: Request) -> bool:
    """Does this request carry the table's join code (cookie, or ``?code=``)?"""
    return is_code(request, request.cookies.get(COOKIE) or request.query_params.get("code"))


def is_code(request: Request, given: str | None) -> bool:
    """Is ``given`` the table's join code? A wrong code counts against the address
    (:class:`Throttle`); an address that must wait is refused with 429 and Retry-After
    before its code is even compared."""
    given = normal_code(given) if given else ""
    if not given:
        return False
    site, address = _site(request), _address(request)
    wait = site.throttle.wait_s(address)
    if wait > 0:
        seconds = math.ceil(wait)
        raise Refused(
            429,
            "code",
            f"too many wrong join codes from {address}: try again in {seconds} s",
            {"retry-after": str(seconds)},
        )
    if hmac.compare_digest(given.encode("utf-8", "replace"), site.code.encode()):
        site.throttle.hit(address)
        return True
    site.throttle.missed(address)
    return False


def page_token(request: Request) -> str | None:
    """This browser's page token (the cookie the server gave it), or None."""
    token = request.cookies.get(PAGE_COOKIE, "")
    return token if PAGE_TOKEN.fullmatch(token) else None


def give_page_token(request: Request, response: Response) -> None:
    """A browser without a page token gets one: the seats it claims are held by it."""
    if page_token(request) is None:
        token = secrets.token_urlsafe(24)
        response.set_cookie(PAGE_COOKIE, token, httponly=True, samesite="strict")


def check_change(request: Request) -> None:
    """A change comes from this server's own page and carries the join code."""
    origin = request.headers.get("origin")
    host = request.headers.get("host", "")
    if origin is None:
        raise Refused(403, "origin", "a change must come from this server's page (no Origin)")
    parts = urlsplit(origin)
    if parts.netloc != host or parts.scheme not in ("http", "https"):
        raise Refused(403, "origin", f"{origin} is not this server ({host})")
    if not may_change(request):
        raise Refused(403, "code", "changing the table needs its join code (open ?code=...)")


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refused with 413 as soon as it is longer than ``limit``."""
    declared = request.headers.get("content-length")
    if declared is not None:
        size_given = gate.number_or_none(declared, low=0, high=10**18 - 1)
        if size_given is None:
            raise Refused(400, "content-length", "not a number")
        if size_given > limit:
            raise Refused(413, "body", f"{size_given} bytes, more than the {limit} allowed")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise Refused(413, "body", f"more than the {limit} bytes allowed")
        chunks.append(chunk)
    return b"".join(chunks)


async def read_json(request: Request) -> Any:
    limits = _site(request).limits
    return parse_json(await read_body(request, limits.body_bytes), limits)


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_SURROGATE = re.compile("[\ud800-\udfff]")


def json_depth(text: str) -> int:
    """How deep arrays and objects nest in ``text`` (strings left out), counted before
    parsing so that no nesting can exhaust the parser's recursion."""
    brackets = _NOT_BRACKETS.sub("", _STRINGS.sub("", text))
    return max(accumulate(1 if c in "[{" else -1 for c in brackets), default=0)


def parse_json(body: bytes, limits: Limits) -> Any:
    """A request's JSON, bounded: depth, the digits of a number, the length of a string
    (and no lone surrogate in one); past a bound, 400 naming it."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused(400, "body", f"not UTF-8 text (byte {exc.start})") from None
    depth = json_depth(text)
    if depth > limits.json_depth:
        raise Refused(400, "body", f"JSON nested {depth} deep, more than {limits.json_depth}")

    def number(digits: str) -> str:
        if len(digits) > limits.json_digits + 1:
            raise Refused(
                400,
                "body",
                f"a number of {len(digits)} characters, at most {limits.json_digits} digits",
            )
        return digits

    def not_a_number(word: str) -> None:
        raise Refused(400, "body", f"{word} is not a number JSON takes")

    try:
        value = json.loads(
            text,
            parse_int=lambda t: int(number(t)),
            parse_float=lambda t: _finite(float(number(t))),
            parse_constant=not_a_number,
        )
    except json.JSONDecodeError as exc:
        raise Refused(400, "body", f"not JSON ({exc})") from None
    _check_strings(value, limits.json_string)
    return value


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise Refused(400, "body", "a number too large for a float")
    return value


def _check_strings(value: Any, most: int) -> None:
    """Every string (keys too) at most ``most`` characters, none with a lone surrogate."""
    if isinstance(value, str):
        if len(value) > most:
            raise Refused(400, "body", f"a string of {len(value)} characters, at most {most}")
        if _SURROGATE.search(value):
            raise Refused(400, "body", "a string holds a lone surrogate (\\ud800-\\udfff)")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_strings(key, most)
            _check_strings(item, most)
    elif isinstance(value, list):
        for item in value:
            _check_strings(item, most)


# --------------------------------------------------------------------------------------
# Pages and the hub
# --------------------------------------------------------------------------------------


async def index(request: Request) -> Response:
    """The app. ``?code=`` joins (a cookie with the code); a wrong code, or one from an
    address that must wait, comes back to the app with ``?refused=code|wait``: the page
    stays and says so in one line at its top."""
    code = request.query_params.get("code")
    response: Response
    if code is not None:
        try:
            right = is_code(request, code)  # this code, whatever a cookie holds
        except Refused as exc:  # this address must wait: the page says how long
            wait = (exc.headers or {}).get("retry-after", "1")
            return RedirectResponse(f"/?refused=wait&s={wait}", 303, exc.headers)
        if not right:
            return RedirectResponse("/?refused=code", 303)
        response = RedirectResponse("/", 303)
        response.set_cookie(COOKIE, _site(request).code, httponly=True, samesite="strict")
    else:
        response = FileResponse(STATIC / "index.html", headers={"cache-control": "no-store"})
    give_page_token(request, response)
    return response


async def me(request: Request) -> Response:
    """What this page may do: change (the join code), the tables, the seats it holds.
    A code cookie that is wrong (a server restarted since) is dropped, counted once."""
    site = _site(request)
    try:
        can_change = may_change(request)
        stale = COOKIE in request.cookies and not can_change
    except Refused:  # this address must wait: it may still watch (its cookie is kept)
        can_change = stale = False
    page = page_token(request)
    response = Json(
        {
            "can_change": can_change,
            "code": site.code if can_change else None,  # only for who has it already
            "instance": site.hub.instance,
            "seats": {} if page is None else site.hub.seats_of(page),
            "tables": site.hub.names(),
            "limits": {
                "body_bytes": site.limits.body_bytes,
                "photo_bytes": site.limits.photo_bytes,
                "streams": site.limits.streams,
            },
            "foodchain_catalog": site.foodchain is not None,
        }
    )
    if stale:
        response.delete_cookie(COOKIE, httponly=True, samesite="strict")
    give_page_token(request, response)
    return response


async def qr_svg(request: Request) -> Response:
    """The page's address as a QR code: with the join code only for who already has it."""
    url = f"{request.url.scheme}://{request.headers.get('host', 'localhost')}/"
    if may_change(request):
        url += f"?code={_site(request).code}"
    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="svg", scale=6, border=2, xmldecl=False)
    return Response(buffer.getvalue(), media_type="image/svg+xml")


async def new_join_code(request: Request) -> Response:
    """The holder of the code asks for a new one (the page confirmed it): this page keeps
    joined with the new code; every other page needs it to change anything again."""
    site = _site(request)
    check_change(request)
    code = site.renew_code()
    log.warning("a page asked for a new join code: %s", code)
    response = Json({"can_change": True, "code": code})
    response.set_cookie(COOKIE, code, httponly=True, samesite="strict")
    return response


async def table_state(request: Request) -> Response:
    site = _site(request)
    return site.answer(site.hub.snapshot(request.path_params["name"]))


async def table_action(request: Request) -> Response:
    site = _site(request)
    name = request.path_params["name"]
    site.hub.snapshot(name)  # 404 before anything else for a table that is not there
    check_change(request)
    action = await read_json(request)
    return site.answer(site.hub.act(name, action, page_token(request)))


async def table_seat(request: Request) -> Response:
    """``{"seat": NAME}`` claims a seat for this page, ``{"seat": null}`` gives it back."""
    site = _site(request)
    name = request.path_params["name"]
    site.hub.snapshot(name)
    check_change(request)
    page = page_token(request)
    if page is None:
        raise Refused(403, "page", "this page has no page token: reload it")
    given = await read_json(request)
    if not isinstance(given, dict) or "seat" not in given:
        raise Refused(400, "seat", 'send {"seat": NAME} to claim one, {"seat": null} to leave')
    return site.answer(site.hub.claim(name, given["seat"], page))


async def table_file(request: Request) -> Response:
    """A file a table draws on demand (a past round's picture): ``table.file(path)``."""
    table = _site(request).hub.table(request.path_params["name"])
    make = getattr(table, "file", None)
    if make is None:
        raise Refused(404, "file", f"the {table.name} table has no files")
    body, media_type = await anyio.to_thread.run_sync(make, request.path_params["path"])
    return Response(body, media_type=media_type, headers={"cache-control": "no-store"})


async def table_events(request: Request) -> Response:
    """Server-Sent Events: the whole state now, then each new one (a reconnect catches up)."""
    site = _site(request)
    name = request.path_params["name"]
    site.hub.snapshot(name)
    if site.streams >= site.limits.streams:
        raise Refused(503, "streams", f"{site.limits.streams} pages are watching already")
    site.streams += 1
    watch = site.hub.watch(name)

    async def events() -> Any:
        try:
            yield "retry: 2000\n\n"
            snap: Snapshot | None = watch.last
            while not watch.closed:
                if snap is None:
                    yield ": still here\n\n"
                else:
                    yield site.event_text(snap)
                snap = await watch.next(site.limits.keepalive_s)
            yield STOPPED  # the server stops: the page says so rather than reconnect
        finally:
            watch.close()
            site.streams -= 1

    return StreamingResponse(
        events(),
        media_type="text/event-stream",
        headers={"cache-control": "no-store", "x-accel-buffering": "no"},
    )


# --------------------------------------------------------------------------------------
# Photos and score sheets
# --------------------------------------------------------------------------------------


async def photo_upload(request: Request) -> Response:
    site = _site(request)
    check_change(request)
    kind = request.headers.get("content-type", "")
    if not kind.startswith("image/"):
        raise Refused(415, "photo", f"send the picture itself (image/jpeg, ...), not {kind!r}")
    body = await read_body(request, site.limits.photo_bytes)
    if not body:
        raise Refused(400, "photo", "the upload is empty")
    add = request.query_params.get("add", "0")
    if add not in ("0", "1"):
        raise Refused(400, "add", "1 (another photo of the same land) or 0 (a new land)")
    async with site.scanning:  # one photo at a time: the Pi has few cores
        await anyio.to_thread.run_sync(site.photo.read, body, add == "1")
    return site.answer(site.hub.publish(site.photo.name))


async def photo_annotated(request: Request) -> Response:
    """What the scan saw in the land's photo ``k`` (1, the first, by default)."""
    images = _site(request).photo.annotated
    if not images:
        raise Refused(404, "photo", "no photo read yet")
    given = request.query_params.get("k", "1")
    k = gate.number_or_none(given, low=0, high=999)
    if k is None:
        raise Refused(400, "k", f"a photo's number (1, 2, ...), not {given[:20]!r}")
    if not 1 <= k <= len(images):
        raise Refused(404, "k", f"the land has photos 1 to {len(images)}, not {k}")
    image = images[k - 1]
    if not image:
        raise Refused(404, "photo", "that photo's annotated image could not be made")
    return Response(image, media_type="image/jpeg", headers={"cache-control": "no-store"})


async def foodchain_score(request: Request) -> Response:
    site = _site(request)
    check_change(request)
    sheet = await read_json(request)
    optional = request.query_params.get("rule", "standard")
    if optional not in ("standard", "optional"):
        raise Refused(400, "rule", "standard or optional")
    given = request.query_params.get("seed")  # the page's first draw, sent back: kept
    seed = None if given is None else gate.whole_number(given, "seed", low=0, high=10**9)
    return Json(score_sheet(sheet, site.foodchain, optional == "optional", seed))


# --------------------------------------------------------------------------------------
# The application
# --------------------------------------------------------------------------------------


async def refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    return one_line(exc.status, str(exc), exc.headers)


async def seat_refused(request: Request, exc: Exception) -> Response:
    return one_line(403, str(exc))


async def bad_input(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, InputError)
    status = 404 if exc.where == "table" else 400
    return one_line(status, str(exc))


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        return one_line(404, f"path: nothing at {request.url.path}")
    if exc.status_code == 405:
        return one_line(405, f"method: {request.method} is not taken at {request.url.path}")
    return one_line(exc.status_code, f"request: {exc.detail}")


def create_app(site: Site) -> Starlette:
    """The pages and API over ``site``; run it with uvicorn (:mod:`.serve`) or a test client."""
    routes = [
        *history_routes(),  # the history tab: GET only, read-only
        Route("/", index),
        Route("/api/me", me),
        Route("/api/code", new_join_code, methods=["POST"]),
        Route("/qr.svg", qr_svg),
        Route("/api/tables/{name}", table_state),
        Route("/api/tables/{name}/events", table_events),
        Route("/api/tables/{name}/actions", table_action, methods=["POST"]),
        Route("/api/tables/{name}/seat", table_seat, methods=["POST"]),
        Route("/api/tables/{name}/files/{path}", table_file),
        Route("/api/photo", photo_upload, methods=["POST"]),
        Route("/api/photo/annotated.jpg", photo_annotated),
        Route("/api/foodchain/score", foodchain_score, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(OneLineErrors)],
        exception_handlers={
            Refused: refused,
            SeatRefused: seat_refused,
            InputError: bad_input,
            HTTPException: http_error,
        },
        lifespan=_lifespan,
    )
    site.throttle = Throttle(site.limits)  # the limits as they are when the app is built
    app.state.site = site
    return app


@contextlib.asynccontextmanager
async def _lifespan(app: Starlette) -> AsyncIterator[None]:
    """Give the hub the server's loop, so that tables in other threads can publish."""
    site: Site = app.state.site
    site.hub.attach(asyncio.get_running_loop())
    yield


class OneLineErrors:
    """Whatever a handler did not expect: one logged line and a 500 whose body is one line.

    Starlette's own handler for ``Exception`` re-raises (the server then prints the
    traceback); this middleware does not. The traceback of each distinct error goes to
    the debug log once. A page that went away while its body was read is no error."""

    KEEP = 256  # distinct errors whose traceback was logged

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.seen: set[tuple[str, str]] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except ClientDisconnect:
            log.debug("%s %s: the client went away", scope["method"], scope["path"][:100])
        except Exception as exc:  # the one place an unexpected error ends
            self.unexpected(scope, exc)
            if not started:
                answer = one_line(500, f"server: an unexpected {type(exc).__name__}, logged")
                await answer(scope, receive, send)

    def unexpected(self, scope: Scope, exc: Exception) -> None:
        said = " ".join(str(exc).split())[:200]
        log.error(
            "%s %r: unexpected %s: %s",
            scope["method"],
            scope["path"][:100],
            type(exc).__name__,
            said,
        )
        where = exc.__traceback__
        while where is not None and where.tb_next is not None:
            where = where.tb_next
        key = (
            type(exc).__name__,
            "" if where is None else f"{where.tb_frame.f_code.co_filename}:{where.tb_lineno}",
        )
        if key not in self.seen and len(self.seen) < self.KEEP:
            self.seen.add(key)
            log.debug("the traceback of that %s", key[0], exc_info=exc)
