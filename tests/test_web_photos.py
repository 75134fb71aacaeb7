"""Several photos of one land on the web page's photo tab (``POST /api/photo?add=1``):
merged as ``dino scan PHOTO PHOTO...`` merges them, on Starlette's test client with real
rendered photos (a card under a phone in one photo, read from another)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")
pytest.importorskip("starlette", reason="the web extra is not installed")

from starlette.testclient import TestClient  # noqa: E402

from companion.games.dino.catalog import Placement  # noqa: E402
from companion.scan.synth import Photo, Style, photograph_again, random_photo, render  # noqa: E402
from companion.tables.web.app import Site, create_app  # noqa: E402
from companion.tables.web.photo import MAX_PHOTOS  # noqa: E402
from companion.tables.web.serve import build_site  # noqa: E402

ORIGIN = {"origin": "http://testserver"}
CLEAN = Style(occluders=(0,), margin_cells=1.0, blur_max=0.8, noise_max=4.0)


@pytest.fixture(scope="module")
def land() -> tuple[Photo, bytes, bytes, bytes]:
    """One land: a photo with a phone over every visible cell of one card, one from
    another camera with nothing over it, and the first with its left 40% cut off (the
    land's left columns out of it), as a phone would upload them."""
    first = random_photo(5, (1600, 1200), style=CLEAN)
    second = photograph_again(first, random.Random(77), style=CLEAN)
    shown = Counter(t.card for t in first.cells.values())
    card = min(shown, key=lambda k: (shown[k], k))
    cells = [c for c, t in first.cells.items() if t.card == card]
    corners = [[x + dx, y + dy] for x, y in cells for dx in (-0.1, 1.1) for dy in (-0.1, 1.1)]
    quad = cv2.perspectiveTransform(
        np.array(corners, np.float64).reshape(-1, 1, 2), first.grid_to_image
    ).reshape(-1, 2)
    covered = first.image.copy()
    cv2.fillPoly(covered, [cv2.convexHull(quad.astype(np.int32))], (28, 25, 25))
    cut = np.ascontiguousarray(covered[:, covered.shape[1] * 2 // 5 :])
    return first, jpeg(covered), jpeg(second.image), jpeg(cut)


def jpeg(image: Any) -> bytes:
    ok, encoded = cv2.imencode(".jpg", image)
    assert ok
    return bytes(encoded)


@pytest.fixture()
def client(land: tuple[Photo, bytes, bytes, bytes]) -> tuple[Site, TestClient]:
    site = build_site(None, None)
    site.code = "joincode"
    site.photo.catalog = land[0].catalog
    site.photo.catalog_name = "test"
    phone = TestClient(create_app(site))
    assert phone.get("/?code=joincode", follow_redirects=False).status_code == 303
    return site, phone


def upload(phone: TestClient, body: bytes, query: str = "") -> Any:
    return phone.post(
        f"/api/photo{query}", content=body, headers={**ORIGIN, "content-type": "image/jpeg"}
    )


def answer(phone: TestClient, cell: list[int], value: str) -> Any:
    action = {"type": "answer", "cell": cell, "value": value}
    return phone.post("/api/tables/photo/actions", json=action, headers=ORIGIN)


def any_answer(asked: dict[str, Any]) -> str:
    """The card a question names, or a plain cell ("_") when it names none."""
    return str(asked["candidates"][0]) if asked["candidates"] else "_"


def one_line(response: Any) -> str:
    text = str(response.text)
    assert text.endswith("\n") and text.count("\n") == 1, text
    return text.strip()


def test_a_second_photo_reads_what_the_first_asked_and_its_answers_give_way(
    land: tuple[Photo, bytes, bytes, bytes], client: tuple[Site, TestClient]
) -> None:
    truth, covered, clear, _ = land
    _, phone = client
    first = upload(phone, covered)
    assert first.status_code == 200, first.text
    state = first.json()["state"]
    assert state["photos"] == 1 and state["unread"], "the phone hides a card: it is asked"
    asked = state["unread"][0]
    assert answer(phone, asked["cell"], any_answer(asked)).status_code == 200
    merged = upload(phone, clear, "?add=1")
    assert merged.status_code == 200, merged.text
    state = merged.json()["state"]
    assert state["photos"] == 2 and state["photo"] == 2
    assert state["unread"] == [] and state["read"] == len(truth.cells)
    assert {c["card"] for c in state["cards"]} == {p.card for p in truth.placements}
    # the photo read the answered cell: the answer is not needed any more
    assert state["answers"] == []
    for k in (1, 2):
        image = phone.get(f"/api/photo/annotated.jpg?k={k}")
        assert image.status_code == 200 and image.content[:2] == b"\xff\xd8"
    assert phone.get("/api/photo/annotated.jpg?k=3").status_code == 404
    assert one_line(phone.get("/api/photo/annotated.jpg?k=x")).startswith("k: a photo's number")
    bad = upload(phone, clear, "?add=yes")
    assert bad.status_code == 400 and one_line(bad).startswith("add: 1 (another photo")


def test_a_photo_of_another_land_is_refused_and_the_land_read_is_kept(
    land: tuple[Photo, bytes, bytes, bytes], client: tuple[Site, TestClient]
) -> None:
    truth, covered, _, _ = land
    site, phone = client
    state = upload(phone, covered).json()["state"]
    asked = state["unread"][0]
    answer(phone, asked["cell"], any_answer(asked))
    before = site.hub.snapshot("photo").state
    others = [k for k in truth.catalog.cards if k not in {p.card for p in truth.placements}]
    placements = [Placement(others[0], 0, 0, 0), Placement(others[1], 2, 0, 90)]
    elsewhere = render(random.Random(3), truth.catalog, placements, (1600, 1200), CLEAN)
    refused = upload(phone, jpeg(elsewhere.image), "?add=1")
    assert refused.status_code == 400
    line = one_line(refused)
    assert line.startswith("photo: photo 2: no card read in it is read in photo 1"), line
    assert line.endswith("the 1 photo(s) read before are kept")
    assert site.photo.state() == before and site.photo.state()["answers"]
    assert phone.get("/api/photo/annotated.jpg?k=2").status_code == 404


def test_an_answer_follows_its_cell_into_the_merged_grid(
    land: tuple[Photo, bytes, bytes, bytes], client: tuple[Site, TestClient]
) -> None:
    _, covered, _, cut = land
    site, phone = client
    state = upload(phone, cut).json()["state"]
    for asked in state["unread"]:  # the land's left columns, and a card under the phone
        assert answer(phone, asked["cell"], "_").status_code == 200
    # The whole land: its left columns come into the grid, so every cell moves right;
    # the answers the new photo reads are dropped, and the phone still hides its card.
    state = upload(phone, covered, "?add=1").json()["state"]
    merged = site.photo.merged
    assert state["photos"] == 2 and merged is not None
    kept = [tuple(a["cell"]) for a in state["answers"]]
    assert kept and set(kept) == set(merged.unread)
    assert all(a["value"] == "_" for a in state["answers"])
    # each kept answer is the first photo's own question, named in the merged grid...
    mine = merged.views[0].unread
    assert all(cell in mine for cell in kept)
    # ...which moved right: the land grew to the left
    moved = merged.turns[0]
    assert moved.dx > 0
    before = {(x - moved.dx, y - moved.dy) for x, y in kept}
    assert before <= set(site.photo.readings[0].unread)


def test_a_land_takes_at_most_so_many_photos_and_a_new_photo_starts_again(
    land: tuple[Photo, bytes, bytes, bytes], client: tuple[Site, TestClient]
) -> None:
    _, _, clear, _ = land
    _, phone = client
    assert upload(phone, clear, "?add=1").json()["state"]["photos"] == 1  # nothing to add to
    for k in range(2, MAX_PHOTOS + 1):
        assert upload(phone, clear, "?add=1").json()["state"]["photos"] == k
    refused = upload(phone, clear, "?add=1")
    assert refused.status_code == 400
    assert one_line(refused) == (
        f"photo: at most {MAX_PHOTOS} photos of one land: take a new photo to start again"
    )
    assert upload(phone, clear).json()["state"]["photos"] == 1
