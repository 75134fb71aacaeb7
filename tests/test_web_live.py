"""Live updates on a real uvicorn server: Server-Sent Events, catching up, the hub's threads.

Also the photo page's API (it needs OpenCV: the scan extra) and the console's banner.
"""

from __future__ import annotations

import asyncio
import io
import json
import random
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn", reason="the web extra is not installed")

import httpx2 as httpx  # noqa: E402

from companion.errors import InputError  # noqa: E402
from companion.tables.web.app import Limits, Site  # noqa: E402
from companion.tables.web.hub import Hub  # noqa: E402
from companion.tables.web.land import LandTable  # noqa: E402
from companion.tables.web.serve import Running, announce, bind, build_site, start  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def serve(limits: Limits | None = None) -> tuple[Site, Running]:
    site = build_site(str(EXAMPLES / "dino-catalog.example.json"))
    site.code = "joincode"
    if limits is not None:
        site.limits = limits
    # The tests run as root in CI's container; the refusal itself is tested in test_web_api.
    return site, start(site, "127.0.0.1", 0, refuse_root=False)


@pytest.fixture()
def server() -> Iterator[tuple[Site, Running]]:
    site, running = serve()
    yield site, running
    running.stop()


def base(running: Running) -> str:
    return f"http://127.0.0.1:{running.port}"


def events(response: Any) -> Iterator[dict[str, Any]]:
    """The ``state`` events of an SSE stream, as they arrive."""
    data = None
    for line in response.iter_lines():
        if line.startswith("data: "):
            data = json.loads(line[6:])
        elif line == "" and data is not None:
            yield data
            data = None


def change(running: Running, action: dict[str, Any]) -> Any:
    url = base(running)
    return httpx.post(
        f"{url}/api/tables/land/actions",
        json=action,
        headers={"origin": url},
        cookies={"companion_code": "joincode"},
        timeout=5,
    )


def test_a_page_gets_the_state_then_each_change_and_catches_up_on_reconnect(
    server: tuple[Site, Running],
) -> None:
    _, running = server
    url = f"{base(running)}/api/tables/land/events"
    with httpx.stream("GET", url, timeout=5) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        stream = events(response)
        first = next(stream)
        assert (first["table"], first["version"], first["state"]["cells"]) == ("land", 1, [])
        assert change(running, {"type": "paint", "cell": [0, 0], "token": "P"}).status_code == 200
        second = next(stream)
        assert second["version"] == 2
        assert second["state"]["cells"] == [{"cell": [0, 0], "name": "A1", "token": "P"}]
    # Asleep: two changes happen while nobody watches; waking, the page gets where it is now.
    change(running, {"type": "paint", "cell": [1, 0], "token": "sh"})
    change(running, {"type": "paint", "cell": [2, 0], "token": "T"})
    with httpx.stream("GET", url, timeout=5) as response:
        now = next(events(response))
        assert now["version"] == 4 and len(now["state"]["cells"]) == 3
        assert now["state"]["score"]["herds"][0]["why"] == "tar_pit"


def test_the_number_of_live_pages_is_limited() -> None:
    site, running = serve(Limits(streams=1))
    try:
        url = f"{base(running)}/api/tables/land/events"
        with httpx.stream("GET", url, timeout=5) as first:
            watching = events(first)  # held: a dropped generator would close the stream
            next(watching)
            second = httpx.get(url, timeout=5)
            assert second.status_code == 503
            assert second.text == "streams: 1 pages are watching already\n"
        for _ in range(50):  # the closed stream is given back
            if site.streams == 0:
                break
            threading.Event().wait(0.05)
        assert site.streams == 0
    finally:
        running.stop()


def test_a_port_in_use_is_one_line(server: tuple[Site, Running]) -> None:
    _, running = server
    with pytest.raises(InputError, match=rf"^--web: cannot listen on 127.0.0.1:{running.port}: "):
        bind("127.0.0.1", running.port)


def test_a_table_in_another_thread_publishes_to_the_pages() -> None:
    """How a live table (the referee's loop has its own thread) will plug in."""

    async def scenario() -> list[int]:
        hub = Hub()
        table = LandTable()
        hub.add(table)
        hub.attach(asyncio.get_running_loop())
        seen = []
        with hub.watch("land") as watch:
            seen.append(watch.last.version)

            def elsewhere() -> None:
                table.act({"type": "paint", "cell": [0, 0], "token": "M"})
                hub.publish("land")

            threading.Thread(target=elsewhere).start()
            snap = await watch.next(5)
            assert snap is not None and snap.state["cells"][0]["token"] == "M"
            seen.append(snap.version)
            assert await watch.next(0.05) is None  # nothing newer: a quiet stream
        assert hub.watchers("land") == 0
        return seen

    assert asyncio.run(scenario()) == [1, 2]


def test_two_threads_publishing_at_once_never_leave_a_page_on_the_older_state() -> None:
    """Two threads publish (a table's own, an action's): their snapshots may reach the
    server's loop in the wrong order. The page's one-place queue keeps the newer (and the
    hub's close), so the last state a page draws is the last one published."""
    from companion.tables.web.hub import Snapshot, _offer

    older, newer = Snapshot("setup", 5, {"n": 5}), Snapshot("setup", 6, {"n": 6})
    queue: asyncio.Queue[Snapshot | None] = asyncio.Queue(maxsize=1)
    _offer(queue, newer)
    _offer(queue, older)  # the older arrives last: dropped
    assert queue.get_nowait() is newer
    _offer(queue, older)
    _offer(queue, newer)  # in order: the newer replaces the older not yet read
    assert queue.get_nowait() is newer
    _offer(queue, None)
    _offer(queue, newer)  # the hub closed: it stays closed
    assert queue.get_nowait() is None


def test_the_console_shows_the_address_and_the_join_code_as_text_and_qr(
    caplog: pytest.LogCaptureFixture,
) -> None:
    out = io.StringIO()
    with caplog.at_level("INFO", logger="companion.web"):
        announce("http://192.168.1.5:8080/", "abcd2345", out)
    text = out.getvalue().splitlines()
    assert text[0] == (
        "companion web: open http://192.168.1.5:8080/ on a phone (watch), "
        "join code abcd2345 (change)"
    )
    assert text[1] == "Scan to join: http://192.168.1.5:8080/?code=abcd2345"
    assert len(text) > 12 and any("█" in line or "▀" in line for line in text[2:])
    assert "join code abcd2345" in caplog.text


def test_join_codes_are_new_at_every_start() -> None:
    codes = {build_site().code for _ in range(20)}
    assert len(codes) == 20 and all(len(c) == 8 and c.isalnum() for c in codes)


# --------------------------------------------------------------------------------------
# Photos (the scan extra)
# --------------------------------------------------------------------------------------


def photo_bytes(placements: Any, catalog: Any, seed: int = 7, swap: Any = None) -> Any:
    cv2 = pytest.importorskip("cv2")
    from companion.scan.synth import Style, render

    style = Style(occluders=(0,), blur_max=0.8, noise_max=4.0, margin_cells=1.0)
    photo = render(random.Random(seed), catalog, placements, (1600, 1200), style, swap)
    ok, encoded = cv2.imencode(".jpg", photo.image)
    assert ok
    return photo, encoded.tobytes()


def upload(running: Running, body: bytes, kind: str = "image/jpeg") -> Any:
    url = base(running)
    return httpx.post(
        f"{url}/api/photo",
        content=body,
        headers={"origin": url, "content-type": kind},
        cookies={"companion_code": "joincode"},
        timeout=60,
    )


def photo_action(running: Running, action: dict[str, Any]) -> Any:
    url = base(running)
    return httpx.post(
        f"{url}/api/tables/photo/actions",
        json=action,
        headers={"origin": url},
        cookies={"companion_code": "joincode"},
        timeout=5,
    )


@pytest.mark.slow
def test_a_photo_of_the_example_log_scores_what_dino_scan_scores(
    server: tuple[Site, Running],
) -> None:
    from companion.games.dino import score
    from companion.games.dino.formats import catalog_from_dict, placement_from_dict

    _, running = server
    catalog = catalog_from_dict(json.loads((EXAMPLES / "dino-catalog.example.json").read_text()))
    log = json.loads((EXAMPLES / "dino-placements.json").read_text())
    placements = [placement_from_dict(p, "p") for p in log["placements"]]
    photo, body = photo_bytes(placements, catalog)
    first = upload(running, body)
    assert first.status_code == 200, first.text
    state = first.json()["state"]
    assert (len(state["cards"]), state["read"], state["unread"]) == (7, 25, [])
    assert state["complete"] is False and len(state["nests"]) == 2  # eggs are not seen
    image = httpx.get(f"{base(running)}/api/photo/annotated.jpg", timeout=5)
    assert image.headers["content-type"] == "image/jpeg" and image.content[:2] == b"\xff\xd8"
    nests = [n["cell"] for n in state["nests"]]
    done = photo_action(running, {"type": "eggs", "cells": nests})
    final = done.json()["state"]
    assert final["complete"] is True
    assert final["score"]["total"] == score(photo.land).total - 0  # the truth, both eggs on
    assert final["score"]["eggs"] == 2


@pytest.mark.slow
def test_unread_cells_are_asked_and_answered_on_the_drawn_land(
    server: tuple[Site, Running],
) -> None:
    from companion.games.dino import score
    from companion.games.dino.catalog import Placement
    from companion.games.dino.formats import catalog_from_dict
    from companion.scan.land import CardPlace, quarter_name
    from companion.scan.markers import MarkerBook
    from companion.scan.synth import random_catalog_dict

    site, running = server
    raw = random_catalog_dict(random.Random(3))
    catalog = catalog_from_dict(raw)
    site.photo.catalog = catalog  # this land's own catalog
    book = MarkerBook.of(catalog)
    swap = {("c01", 0): (book.marker_id("c01", 3), 0), ("c01", 3): (book.marker_id("c01", 0), 0)}
    placements = [Placement("c01", 0, 0, 0), Placement("c02", 2, 0, 0)]
    photo, body = photo_bytes(placements, catalog, 3, swap)
    state = upload(running, body).json()["state"]
    assert len(state["unread"]) == 4 and state["score"] is None
    assert {u["trouble"] for u in state["unread"]} == {"card_disagrees"}
    wrong = photo_action(running, {"type": "answer", "cell": [0, 0], "value": "xyz"})
    assert wrong.status_code == 400 and wrong.text.startswith("value: ")
    # Both cards lie the same way round, so c01 lies as c02 was read (the photo's frame):
    # its four quarters are the four unread cells, turned as c02 is.
    (c02,) = [c for c in state["cards"] if c["card"] == "c02"]
    cells = [tuple(u["cell"]) for u in state["unread"]]
    turn = c02["rotation"]
    c01 = CardPlace("c01", min(c[0] for c in cells), min(c[1] for c in cells), turn)
    for cell in cells:
        quarter = c01.quarter_at(cell)
        assert quarter is not None
        value = f"c01:{quarter_name(quarter)}@{turn}"
        answered = photo_action(running, {"type": "answer", "cell": list(cell), "value": value})
        assert answered.status_code == 200, answered.text
    final = answered.json()["state"]
    if final["nests"]:
        final = photo_action(running, {"type": "eggs", "cells": []}).json()["state"]
    assert final["complete"] is True and final["unread"] == []
    assert final["score"]["total"] == score(photo.land).total


def test_what_is_not_a_photo_is_refused_naming_the_photo(server: tuple[Site, Running]) -> None:
    pytest.importorskip("cv2")
    site, running = server
    bad = upload(running, b"not a picture")
    assert (bad.status_code, bad.text) == (
        400,
        "photo: not a photo the scan takes (JPEG, PNG, WebP, TIFF, BMP or GIF)\n",
    )
    kind = upload(running, b"{}", "application/json")
    assert kind.status_code == 415 and kind.text.startswith("photo: send the picture itself")
    assert photo_action(running, {"type": "forget"}).text == "type: no photo yet: take one first\n"
    site.photo.catalog = None
    none = upload(running, b"x")
    assert none.text == "photo: start companion web with --catalog FILE to read photos\n"
