"""The Starlette application: pages, the table hub's API, photos and score sheets.

Anyone on the network may watch (every GET); a change (every POST) must come from this
server's own page (the Origin header) and carry the table's join code (a cookie set by
the first visit with ``?code=``). Bodies are read with a limit (a photo up to 20 MB,
anything else 64 KB), event streams are counted, and bad input is a 4xx whose body is one
line naming the field. docs/web.md says it for people.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import io
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import segno
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
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

from companion.errors import InputError
from companion.games.foodchain import Catalog as FoodChainCatalog
from companion.tables.web.hub import Hub, Snapshot
from companion.tables.web.photo import PhotoTable
from companion.tables.web.sheet import score_sheet

STATIC = Path(__file__).with_name("static")
COOKIE = "companion_code"
MB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """What one request or the whole server may take (docs/web.md#limits)."""

    body_bytes: int = 64 * 1024  # a JSON action or score sheet
    photo_bytes: int = 20 * MB  # a phone's photo
    streams: int = 32  # live pages at once (each phone keeps one open)
    connections: int = 64  # all connections at once (uvicorn's limit_concurrency)
    keepalive_s: float = 15.0  # a comment down each quiet stream, so proxies keep it


@dataclass(slots=True)
class Site:
    """Everything the pages serve: the hub and its tables, the join code, the limits."""

    hub: Hub
    code: str
    photo: PhotoTable
    foodchain: FoodChainCatalog | None = None
    limits: Limits = field(default_factory=Limits)
    streams: int = 0
    scanning: anyio.Lock = field(default_factory=anyio.Lock)
    _events: dict[str, tuple[int, str]] = field(default_factory=dict)

    def event_text(self, snap: Snapshot) -> str:
        """A snapshot as an event, serialized once for all the pages watching its table."""
        cached = self._events.get(snap.table)
        if cached is None or cached[0] != snap.version:
            body = json.dumps(snap.to_dict())
            cached = (snap.version, f"id: {snap.version}\nevent: state\ndata: {body}\n\n")
            self._events[snap.table] = cached
        return cached[1]


class Refused(Exception):
    """A request answered with a 4xx (or 503) and one line naming the field."""

    def __init__(self, status: int, field_name: str, message: str) -> None:
        super().__init__(f"{field_name}: {message}")
        self.status = status


def one_line(status: int, text: str) -> PlainTextResponse:
    return PlainTextResponse(text.replace("\n", " ") + "\n", status)


def _site(request: Request) -> Site:
    site: Site = request.app.state.site
    return site


def may_change(request: Request) -> bool:
    """Does this request carry the table's join code (cookie, or ``?code=``)?"""
    given = request.cookies.get(COOKIE) or request.query_params.get("code") or ""
    return hmac.compare_digest(given.encode(), _site(request).code.encode())


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
        if not declared.isdigit():
            raise Refused(400, "content-length", "not a number")
        if int(declared) > limit:
            raise Refused(413, "body", f"{int(declared)} bytes, more than the {limit} allowed")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise Refused(413, "body", f"more than the {limit} bytes allowed")
        chunks.append(chunk)
    return b"".join(chunks)


async def read_json(request: Request) -> Any:
    body = await read_body(request, _site(request).limits.body_bytes)
    try:
        return json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise Refused(400, "body", f"not JSON ({exc})") from None


# --------------------------------------------------------------------------------------
# Pages and the hub
# --------------------------------------------------------------------------------------


async def index(request: Request) -> Response:
    code = request.query_params.get("code")
    if code is not None:
        if not may_change(request):
            raise Refused(403, "code", "not this table's join code")
        response = RedirectResponse("/", 303)
        response.set_cookie(COOKIE, code, httponly=True, samesite="strict")
        return response
    return FileResponse(STATIC / "index.html", headers={"cache-control": "no-store"})


async def me(request: Request) -> Response:
    site = _site(request)
    return JSONResponse(
        {
            "can_change": may_change(request),
            "tables": site.hub.names(),
            "limits": {
                "body_bytes": site.limits.body_bytes,
                "photo_bytes": site.limits.photo_bytes,
                "streams": site.limits.streams,
            },
            "foodchain_catalog": site.foodchain is not None,
        }
    )


async def qr_svg(request: Request) -> Response:
    """The page's address as a QR code: with the join code only for who already has it."""
    url = f"{request.url.scheme}://{request.headers.get('host', 'localhost')}/"
    if may_change(request):
        url += f"?code={_site(request).code}"
    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="svg", scale=6, border=2, xmldecl=False)
    return Response(buffer.getvalue(), media_type="image/svg+xml")


async def table_state(request: Request) -> Response:
    snap = _site(request).hub.snapshot(request.path_params["name"])
    return JSONResponse(snap.to_dict())


async def table_action(request: Request) -> Response:
    site = _site(request)
    name = request.path_params["name"]
    site.hub.snapshot(name)  # 404 before anything else for a table that is not there
    check_change(request)
    action = await read_json(request)
    snap = site.hub.act(name, action)
    return JSONResponse(snap.to_dict())


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
            while True:
                if snap is None:
                    yield ": still here\n\n"
                else:
                    yield site.event_text(snap)
                snap = await watch.next(site.limits.keepalive_s)
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
    return JSONResponse(site.hub.publish(site.photo.name).to_dict())


async def photo_annotated(request: Request) -> Response:
    """What the scan saw in the land's photo ``k`` (1, the first, by default)."""
    images = _site(request).photo.annotated
    if not images:
        raise Refused(404, "photo", "no photo read yet")
    given = request.query_params.get("k", "1")
    if not given.isdigit() or len(given) > 3:
        raise Refused(400, "k", f"a photo's number (1, 2, ...), not {given[:20]!r}")
    if not 1 <= int(given) <= len(images):
        raise Refused(404, "k", f"the land has photos 1 to {len(images)}, not {given}")
    image = images[int(given) - 1]
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
    return JSONResponse(score_sheet(sheet, site.foodchain, optional == "optional"))


# --------------------------------------------------------------------------------------
# The application
# --------------------------------------------------------------------------------------


async def refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    return one_line(exc.status, str(exc))


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
        Route("/", index),
        Route("/api/me", me),
        Route("/qr.svg", qr_svg),
        Route("/api/tables/{name}", table_state),
        Route("/api/tables/{name}/events", table_events),
        Route("/api/tables/{name}/actions", table_action, methods=["POST"]),
        Route("/api/tables/{name}/files/{path}", table_file),
        Route("/api/photo", photo_upload, methods=["POST"]),
        Route("/api/photo/annotated.jpg", photo_annotated),
        Route("/api/foodchain/score", foodchain_score, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={Refused: refused, InputError: bad_input, HTTPException: http_error},
        lifespan=_lifespan,
    )
    app.state.site = site
    return app


@contextlib.asynccontextmanager
async def _lifespan(app: Starlette) -> AsyncIterator[None]:
    """Give the hub the server's loop, so that tables in other threads can publish."""
    site: Site = app.state.site
    site.hub.attach(asyncio.get_running_loop())
    yield
