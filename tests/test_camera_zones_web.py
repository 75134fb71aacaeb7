"""The seats' zones saved from the code holder's page (issue 26, the web drag), over HTTP:
checked as the config's zones are, written into the table's config with the terminal
setup's editor (comments kept, read back), read with from the next round; refused for a
watcher, for a seat's page, during a round, and for overlapping zones (file unchanged).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from camera_frames import ZONES, seats, write_frames
from test_camera_table import camera_table, marker, open_table, still

from companion.camera.deck import StickerDeck
from companion.camera.model import Zone
from companion.camera.reader import RevealReader
from companion.camera.worker import Armed, CameraReading, NewZones
from companion.camera.zones import Zones
from companion.referee.core import Phase
from companion.tables.chomp.config import ChompConfig, load_config
from companion.tables.chomp.session import ChompSession
from companion.tables.chomp.web import ChompWebTable

pytest.importorskip("starlette", reason="the web extra is not installed")

from starlette.testclient import TestClient  # noqa: E402

from companion.tables.web.app import create_app  # noqa: E402
from companion.tables.web.serve import build_site  # noqa: E402

pytestmark = pytest.mark.slow  # the camera's process starts for each table

ROOT = Path(__file__).resolve().parent.parent
ORIGIN = {"origin": "http://testserver"}
WaitFor = Callable[..., bool]
# ann's zone made narrower, bob's moved right a little: still apart
MOVED = {
    "ann": [[0.05, 0.35], [0.25, 0.35], [0.25, 0.9], [0.05, 0.9]],
    "bob": [[0.4, 0.3], [0.66, 0.3], [0.66, 0.98], [0.4, 0.98]],
    "cat": [[0.68, 0.3], [0.98, 0.3], [0.98, 0.98], [0.68, 0.98]],
}


def config_file(folder: Path, frames: Path) -> Path:
    """The example table config with a camera and a comment that must survive."""
    path = folder / "table.toml"
    shutil.copy(ROOT / "hardware" / "pinmap.example.toml", path)
    with path.open("a", encoding="utf-8") as out:
        out.write(f'\n# the camera above the table\n[camera]\nsource = "{frames}"\n')
    return path


@pytest.fixture
def served(
    table_config: ChompConfig, tmp_path: Path, wait_for: WaitFor
) -> Iterator[tuple[TestClient, ChompWebTable, Path]]:
    shown = {"ann": marker("plankton"), "bob": marker("seal"), "cat": marker("shark")}
    frames = write_frames(tmp_path / "frames", still(seats(shown), count=300))
    opened: list[ChompSession] = []
    session, _ = open_table(camera_table(table_config, frames), opened, wait_for)
    site = build_site()
    site.code = "joincode"
    table = ChompWebTable(session)
    table.config_file = config_file(tmp_path, frames)
    site.hub.add(table)
    client = TestClient(create_app(site))
    client.get("/?code=joincode", follow_redirects=False)
    try:
        yield client, table, table.config_file
    finally:
        table.close()
        session.close()


def save(client: TestClient, zones: Any) -> Any:
    return client.post(
        "/api/tables/chomp/actions", json={"type": "zones", "zones": zones}, headers=ORIGIN
    )


def test_saved_zones_are_in_the_config_with_its_comments_and_the_reader_takes_them(
    served: tuple[TestClient, ChompWebTable, Path], wait_for: WaitFor
) -> None:
    client, table, path = served
    answer = save(client, MOVED)
    assert answer.status_code == 200, answer.text
    text = path.read_text(encoding="utf-8")
    assert "# the camera above the table" in text and "# An example:" in text
    config = load_config(path)  # the whole table config still loads, the zones in it
    assert config.camera is not None
    assert {z.seat: [list(p) for p in z.polygon] for z in config.camera.zones} == MOVED
    state = answer.json()["state"]
    assert state["camera"]["zones"] == MOVED  # the page draws what was saved
    camera = table.session.camera
    assert camera is not None and camera.reading is not None
    reader = camera.reading.reader
    assert wait_for(lambda: [list(map(list, z.polygon)) for z in reader.zones.zones]
                    == list(MOVED.values()))  # fmt: skip


def test_overlapping_zones_are_one_line_naming_the_seats_and_the_file_is_unchanged(
    served: tuple[TestClient, ChompWebTable, Path],
) -> None:
    client, table, path = served
    before = path.read_bytes()
    overlapping = dict(MOVED, bob=[[0.2, 0.3], [0.6, 0.3], [0.6, 0.9], [0.2, 0.9]])
    answer = save(client, overlapping)
    assert answer.status_code == 400
    line = answer.text.strip()
    assert "\n" not in line and "ann's and bob's zones overlap" in line
    assert path.read_bytes() == before
    stranger = save(client, dict(MOVED, dan=[[0.0, 0.0], [0.01, 0.0], [0.01, 0.01]]))
    assert stranger.status_code == 400 and "'dan' is not a seat at this table" in stranger.text
    flat = dict(MOVED, cat=[[0.7, 0.5], [0.9, 0.5], [0.8, 0.5]])
    answer = save(client, flat)
    assert answer.status_code == 400 and "zones.cat" in answer.text
    assert path.read_bytes() == before
    camera = table.session.camera
    assert camera is not None and camera.config.zones == ZONES  # the old zones still read


def test_a_watcher_and_a_seats_page_may_not_save_zones(
    served: tuple[TestClient, ChompWebTable, Path],
) -> None:
    client, table, path = served
    before = path.read_bytes()
    watcher = TestClient(client.app)  # no join code
    answer = watcher.post(
        "/api/tables/chomp/actions", json={"type": "zones", "zones": MOVED}, headers=ORIGIN
    )
    assert answer.status_code == 403
    claimed = client.post("/api/tables/chomp/seat", json={"seat": "ann"}, headers=ORIGIN)
    assert claimed.status_code == 200
    answer = save(client, MOVED)
    assert answer.status_code == 403 and "ann's page cannot set up the table" in answer.text
    assert path.read_bytes() == before


def test_zones_are_refused_during_a_round(
    served: tuple[TestClient, ChompWebTable, Path],
) -> None:
    client, table, path = served
    before = path.read_bytes()
    act = client.post("/api/tables/chomp/actions", json={"type": "start"}, headers=ORIGIN)
    assert act.status_code == 200
    table.daemon.pump()
    assert table.daemon.referee.phase not in (Phase.READY, Phase.OVER)
    answer = save(client, MOVED)
    assert answer.status_code == 400 and "between rounds" in answer.text
    assert path.read_bytes() == before


def test_new_zones_wait_for_the_next_round_when_one_is_being_read() -> None:
    """The reading thread's rule: a round being read keeps the zones it was armed with."""
    old, new = Zones(list(ZONES)), Zones([Zone("ann", ((0.1, 0.1), (0.3, 0.1), (0.3, 0.3)))])
    reader = RevealReader(StickerDeck.default("chomp"), old)
    reading = CameraReading("unused", reader, lambda n, u: None, lambda n, a: None, print)
    reading._apply(Armed(1, {"ann": 1}, 0, 10**9))
    reading._apply(NewZones(new))
    assert reader.zones is old
    reading._apply(Armed(2, {"ann": 1}, 10**9, 2 * 10**9))
    assert reader.zones is new
    reading._apply(None)  # the round decided: between rounds, new zones are taken at once
    reading._apply(NewZones(old))
    assert reader.zones is old
