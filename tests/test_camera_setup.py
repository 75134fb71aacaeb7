"""``companion camera setup``: the zones from one card per seat, written into table.toml.

The camera is a small in-test source over rendered frames (markers from
``companion.camera.markers`` pasted onto a grey table) and the markers are found by the
camera's own detector, so the zones come from real pixels, not from made-up corners.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from conftest import RunCli
from test_camera_zones import THREE, TinyDeck

from companion.camera.detect import Detector
from companion.camera.markers import marker_image
from companion.camera.model import Frame, Seen
from companion.camera.zones import Zones, zones_from_config
from companion.errors import InputError
from companion.tables.setup.camera import CameraSetup, camera_setup, read_cards, with_zones
from companion.tables.setup.console import scripted

cv2 = pytest.importorskip("cv2")
np = pytest.importorskip("numpy")

WIDTH, HEIGHT = 640, 360
DECK = TinyDeck()  # markers 0 plankton, 1 shrimp, 2 seal: ann, bob and cat show these
CONFIG = """\
# the table by the window
[[players]]
name = "ann"  # nearest the door

[[players]]
name = "bob"

[[players]]
name = "cat"

[referee]
settle_ms = 1000  # from the bounce profile
"""


def render(cards: dict[int, tuple[int, int]], side: int = 36) -> Any:
    """A grey table with each marker (white-margined) pasted centred at its (x, y)."""
    image = np.full((HEIGHT, WIDTH), 110, np.uint8)
    for marker, (x, y) in cards.items():
        pad = side // 4
        sticker = np.full((side + 2 * pad, side + 2 * pad), 255, np.uint8)
        sticker[pad : pad + side, pad : pad + side] = marker_image(marker, side)
        top, left = y - sticker.shape[0] // 2, x - sticker.shape[1] // 2
        image[top : top + sticker.shape[0], left : left + sticker.shape[1]] = sticker
    return image


class Frames:
    """A recorded camera: the frames given, then the end."""

    def __init__(self, images: Sequence[Any]) -> None:
        self.images = list(images)
        self.read_count = 0

    @property
    def describe(self) -> str:
        return "test frames"

    @property
    def fps(self) -> float:
        return 30.0

    def read(self) -> Frame | None:
        if self.read_count >= len(self.images):
            return None
        self.read_count += 1
        return Frame(
            self.read_count, self.read_count * 33_333_333, self.images[self.read_count - 1]
        )

    def close(self) -> None:
        return None


DETECTOR = Detector()


def detect(frame: Frame) -> Seen:
    """The camera's own detector (camera/detect.py)."""
    return DETECTOR.see(frame)


SPOTS = {0: (100, 280), 1: (320, 290), 2: (540, 280)}


def test_the_zones_come_from_each_seats_card_seen_in_two_frames() -> None:
    covered = render({0: SPOTS[0], 2: SPOTS[2]})  # a hand over bob's card
    whole = render(SPOTS)
    source = Frames([covered, whole, covered, whole, whole])
    zones = read_cards(source, detect, ["ann", "bob", "cat"], DECK)
    assert source.read_count == 4  # bob's card was seen twice in the fourth frame
    placed = Zones(zones).place(detect(Frame(9, 0, whole)))
    assert {s: [x.marker for x in f] for s, f in placed.by_seat.items()} == {
        "ann": [0],
        "bob": [1],
        "cat": [2],
    }


def test_a_seats_card_never_seen_is_one_line_naming_the_seat() -> None:
    source = Frames([render({0: SPOTS[0], 2: SPOTS[2]})] * 5)
    with pytest.raises(InputError, match=r"bob's card \(a shrimp\) is not seen") as caught:
        read_cards(source, detect, ["ann", "bob", "cat"], DECK)
    assert "\n" not in str(caught.value)


def test_two_cards_of_one_seats_kind_are_one_line() -> None:
    two_seals = render({**SPOTS, 4: (320, 80)})  # marker 4 is a seal too
    with pytest.raises(InputError, match="2 seal cards are seen: only cat shows a seal"):
        read_cards(Frames([two_seals] * 4), detect, ["ann", "bob", "cat"], DECK)


def test_setup_writes_the_zones_into_the_config_keeping_every_other_line(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(CONFIG, encoding="utf-8")
    out: list[str] = []
    console = scripted(["", "", ""], out)  # the config's seats, Enter, write: yes
    status = camera_setup(CameraSetup(config), console, Frames([render(SPOTS)] * 3), detect, DECK)
    assert status == 0
    text = config.read_text(encoding="utf-8")
    assert text.startswith(CONFIG)  # comments, players and referee kept as they were
    zones = zones_from_config(tomllib.loads(text)["camera"]["zones"])
    assert [z.seat for z in zones] == ["ann", "bob", "cat"]
    assert any("ann a plankton, bob a shrimp, cat a seal" in line for line in out)
    assert any(line.startswith("bob: ") and "across" in line for line in out)


def test_existing_zones_are_replaced_only_with_a_yes(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    before = with_zones(CONFIG, THREE.zones)
    config.write_text(before, encoding="utf-8")
    out: list[str] = []
    console = scripted(["", "n"], out)
    options = CameraSetup(config, seats=("ann", "bob", "cat"))
    assert camera_setup(options, console, Frames([render(SPOTS)] * 3), detect, DECK) == 1
    assert config.read_text(encoding="utf-8") == before
    assert any("has zones for ann, bob, cat: replace them?" in line for line in out)

    console = scripted(["", "y"], out)
    assert camera_setup(options, console, Frames([render(SPOTS)] * 3), detect, DECK) == 0
    after = tomllib.loads(config.read_text(encoding="utf-8"))
    assert zones_from_config(after["camera"]["zones"]) != list(THREE.zones)


def test_a_missing_config_is_one_line_and_nothing_is_written(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    with pytest.raises(InputError, match="`companion setup` writes one"):
        camera_setup(CameraSetup(config), scripted([], []), Frames([]), detect, DECK)
    assert not config.exists()


def test_bad_seat_names_are_refused_and_asked_again(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(CONFIG, encoding="utf-8")
    out: list[str] = []
    console = scripted(["ann ann", "ann bob\x1b", "ann, bob, cat", "", ""], out)
    assert (
        camera_setup(CameraSetup(config), console, Frames([render(SPOTS)] * 3), detect, DECK) == 0
    )
    refusals = [line for line in out if line.startswith("refused:")]
    assert len(refusals) == 2 and "named twice" in refusals[0]


def test_with_zones_replaces_only_the_zones_section() -> None:
    first = with_zones(CONFIG + "\n[camera]\nsource = 'usb:0'  # the webcam\n", THREE.zones)
    tail = "\n# the voice\n[voice]\nvolume = 3\n"
    middle = first + tail
    moved = [z.__class__(z.seat, tuple((x, y * 0.9) for x, y in z.polygon)) for z in THREE.zones]
    second = with_zones(middle, moved)
    assert second.startswith(CONFIG + "\n[camera]\nsource = 'usb:0'  # the webcam\n")
    assert second.endswith(tail)
    assert zones_from_config(tomllib.loads(second)["camera"]["zones"]) == moved


def test_with_zones_never_returns_a_file_it_broke() -> None:
    inline = CONFIG + "\n[camera]\nzones = { ann = [[0, 0], [0.5, 0], [0.5, 1]] }\n"
    with pytest.raises(InputError, match="edit it by hand"):
        with_zones(inline, THREE.zones)


def test_rendered_frames_give_the_cards_and_ask_for_the_covered_seat_only(tmp_path: Path) -> None:
    """Setup and a reveal over real pixels: zones from the set-up cards, then a round in
    which a hand (a dark patch) covers bob's card after the first frame."""
    from companion.camera.reader import Ask, RevealReader

    zones = Zones(read_cards(Frames([render(SPOTS)] * 2), detect, ["ann", "bob", "cat"], DECK))
    reader = RevealReader(DECK, zones)
    reader.arm(1, {"ann": 1, "bob": 1, "cat": 1}, 0, 10**9)
    revealed = {3: (110, 270), 2: (330, 300), 0: (530, 290)}  # shark, seal, plankton
    covered = render(revealed)
    covered[230:360, 260:400] = 40  # the hand over bob's card
    updates = [
        reader.see(detect(Frame(i, i * 33_333_333, image)))
        for i, image in enumerate([render(revealed), covered, covered], start=1)
    ]
    assert all(u.cards is None for u in updates)
    final = reader.expire(10**9)
    assert final.cards == {"ann": ("shark",), "cat": ("plankton",)}
    assert final.asks == (Ask("bob", "bob's card was seen in only 1 of the 2 frames (covered?)"),)


def test_the_command_reads_a_folder_of_frames_and_writes_the_zones(
    tmp_path: Path, run_cli: RunCli
) -> None:
    """``companion camera setup`` end to end: the printed sheet's deck (ann a shark, bob a
    seal, cat a big_fish: markers 0, 4 and 9), a folder of frames as the camera."""
    pytest.importorskip("companion.camera.sources")  # the sources are built beside this
    folder = tmp_path / "frames"
    folder.mkdir()
    image = render({0: SPOTS[0], 4: SPOTS[1], 9: SPOTS[2]})
    for i in range(3):
        cv2.imwrite(str(folder / f"f{i:03d}.png"), cv2.cvtColor(image, cv2.COLOR_GRAY2BGR))
    config = tmp_path / "table.toml"
    config.write_text(CONFIG, encoding="utf-8")
    result = run_cli(
        "camera", "setup", "--config", str(config), "--camera", str(folder), stdin="\n\n\n"
    )
    assert result.status == 0, result.err
    assert "ann a shark, bob a seal, cat a big_fish" in result.out
    assert "[camera.zones] written for 3 seats and read back" in result.out
    zones = zones_from_config(tomllib.loads(config.read_text(encoding="utf-8"))["camera"]["zones"])
    assert [z.seat for z in zones] == ["ann", "bob", "cat"]
    assert config.read_text(encoding="utf-8").startswith(CONFIG)


def test_the_command_without_a_config_is_one_line_and_status_2(
    tmp_path: Path, run_cli: RunCli
) -> None:
    result = run_cli("camera", "setup", "--config", str(tmp_path / "none.toml"), "--seats", "a,b")
    assert result.status == 2
    assert "no table config there: `companion setup` writes one" in result.err
    assert len(result.err.strip().splitlines()) == 1
