"""The ``[camera]`` table of a table's config: each key checked once, a bad value one
line naming ``camera.<key>``, a seat without a zone a warning at the start."""

from __future__ import annotations

import pytest
from camera_frames import zones_config
from conftest import RunCli

from companion.errors import InputError
from companion.tables.camera import camera_from
from companion.tables.chomp.config import config_from_dict


def test_the_camera_config_is_checked_one_line_naming_the_key() -> None:
    players = [{"name": n, "button": 17 + i} for i, n in enumerate(("ann", "bob", "cat"))]
    good = {"source": "usb:0", "deadline_ms": 900, "zones": zones_config()}
    config = config_from_dict({"players": players, "camera": good})
    assert config.camera is not None and config.camera.deadline_ms == 900
    assert [z.seat for z in config.camera.zones] == ["ann", "bob", "cat"]
    for camera, where in (
        ({"deadline_ms": 900}, "camera"),
        ({"source": "usb:0", "deadline_ms": "soon"}, "camera.deadline_ms"),
        ({"source": "usb:0", "deadline_ms": 5}, "camera.deadline_ms"),
        ({"source": "usb:0", "focus": 1}, "camera.focus"),
        ({"source": "usb:0", "zones": {"zed": [[0, 0], [0.2, 0], [0.2, 0.2]]}}, "camera.zones"),
        ({"source": "usb:0", "deck": 3}, "camera.deck"),
    ):
        with pytest.raises(InputError) as caught:
            config_from_dict({"players": players, "camera": camera})
        assert where in str(caught.value) and "\n" not in str(caught.value)


def test_a_seat_without_a_zone_is_a_warning_at_start() -> None:
    config, warnings = camera_from({"camera": {"source": "sim"}}, ["ann", "bob"])
    assert config.zones == () and len(warnings) == 1
    assert "ann, bob" in warnings[0] and "camera setup" in warnings[0]


def test_the_demo_takes_the_simulated_camera_only_and_not_with_autoplay(run_cli: RunCli) -> None:
    for args, said in (
        (("--camera", "usb:0"), "--camera: 'usb:0': the demo's table is simulated"),
        (("--camera", "sim", "--autoplay"), "--camera: the camera reads frames as they come"),
    ):
        status, out, err = run_cli("demo", *args)
        assert status == 2 and out == "" and said in err and err.count("\n") == 1
