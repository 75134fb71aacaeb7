"""The referee with its slap buttons on the Pico bridge: a simulated Pico over a pty."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from companion.cli import main
from companion.errors import ConfigError, HardwareError, InputError
from companion.games.chomp import Card, Mode, TwoPlayerEnd
from companion.referee.daemon import Cards, RefereeDaemon
from companion.signals import ButtonEdge, RevealStamp, TimingClass
from companion.tables.bridge_source import bridge_errors, open_bridge_presses
from companion.tables.chomp.config import BridgeConfig, config_from_dict
from companion.tables.chomp.demo import demo_config
from companion.tables.chomp.session import ChompSession, open_chomp_session
from firmware_bridge import codec
from firmware_bridge.host import BridgeClient
from firmware_bridge.link import BridgeTiming
from firmware_bridge.sim import SimDevice

PLAYERS = ("ann", "bob", "cat")


@pytest.fixture
def pico(tmp_path: Path) -> Iterator[SimDevice]:
    sim = SimDevice(4, link=tmp_path / "companion-bridge", seed=3)
    sim.start()
    yield sim
    sim.close()


def wait_for(condition: object, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.005)
    return False


def test_bridge_config_maps_players_to_pico_buttons() -> None:
    config = config_from_dict(
        {
            "bridge": {"port": "auto", "buttons": {"ann": 0, "bob": 1}},
            "players": [{"name": "ann"}, {"name": "bob"}, {"name": "cat", "button": 17}],
        }
    )
    assert config.bridge == BridgeConfig("auto", {"ann": 0, "bob": 1})
    assert [p.button for p in config.players] == [None, None, 17]


@pytest.mark.parametrize(
    ("bridge", "players", "message"),
    [
        ({"buttons": {"ann": 0}}, [{"name": "ann", "button": 17}], "exactly one button"),
        ({"buttons": {"zed": 0}}, [{"name": "ann", "button": 17}], "no player 'zed'"),
        ({"buttons": {"ann": 0, "bob": 0}}, [{"name": "ann"}, {"name": "bob"}], "used twice"),
        ({"buttons": {"ann": 16}}, [{"name": "ann"}], "at most 15"),
    ],
)
def test_bridge_config_errors_name_the_key(
    bridge: dict[str, object], players: list[dict[str, object]], message: str
) -> None:
    with pytest.raises(InputError, match=message):
        config_from_dict({"bridge": bridge, "players": players, "game": {"mode": "standard"}})


def test_a_round_refereed_on_bridge_buttons(tmp_path: Path, pico: SimDevice) -> None:
    base = demo_config(PLAYERS, Mode.STANDARD, TwoPlayerEnd.COUNT, tmp_path / "j.jsonl")
    players = tuple(replace(p, button=None) for p in base.players)
    config = replace(
        base,
        players=players,
        bridge=BridgeConfig(pico.port, {"ann": 0, "bob": 1, "cat": 2}),
    )
    session: ChompSession = open_chomp_session(config, new=True, pin_factory="mock")
    try:
        (source,) = session.sources
        assert source.timing is TimingClass.MCU_TIMER
        assert session.referee.tie_window_us >= source.uncertainty_us  # raised to the clock
        daemon: RefereeDaemon = session.daemon
        results: list[object] = []
        daemon.on_result = results.append
        daemon.put(RevealStamp(time.monotonic_ns(), "test"))
        daemon.put(Cards({"ann": (Card.PLANKTON,), "bob": (Card.SEAL,), "cat": (Card.SHARK,)}))
        daemon.pump()
        pico.press(2)  # cat slaps on the Pico
        time.sleep(0.002)
        pico.press(2, pressed=False)

        def pumped() -> bool:
            daemon.pump()
            return bool(results)

        assert wait_for(pumped)
        verdict = results[0].verdict  # type: ignore[attr-defined]
        assert verdict.winner == "cat" and session.led_level("cat") > 0
    finally:
        session.close()


# -- the adapter: the bridge's words into the table's ---------------------------------------


def test_the_adapter_gives_button_edges_and_the_bridges_error_bar(pico: SimDevice) -> None:
    edges: list[ButtonEdge] = []
    presses = open_bridge_presses({"ann": 0, "bob": 1}, edges.append, pico.port, None)
    try:
        info = presses.info
        accuracy = presses.client.accuracy
        assert (info.name, info.timing) == ("bridge", TimingClass.MCU_TIMER)
        assert info.uncertainty_us == accuracy.uncertainty_us and info.detail == accuracy.detail
        true_ns = pico.press(1)
        assert wait_for(lambda: presses.held() == ["bob"] and len(edges) == 1)
        edge = edges[0]
        assert type(edge) is ButtonEdge
        assert (edge.player, edge.pressed, edge.source, edge.seq) == ("bob", True, "bridge", 0)
        assert abs(edge.stamp_ns - true_ns) <= presses.info.uncertainty_us * 1000
    finally:
        presses.close()


def test_no_pico_is_a_hardware_error_and_a_button_twice_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(HardwareError, match="no bridge on"):
        with bridge_errors():
            BridgeClient(
                {"ann": 0}, lambda e: None, str(tmp_path / "none"), timing=BridgeTiming(0.2)
            )
    with pytest.raises(ConfigError, match="bridge.buttons: bridge: button 0 is given to both"):
        open_bridge_presses({"ann": 0, "bob": 0}, lambda e: None, str(tmp_path / "none"), None)
    with pytest.raises(InputError, match="cobs"), bridge_errors():
        codec.decode_frame(b"\x05\x01")


def test_a_missing_pico_at_the_table_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "table.toml"
    config.write_text(
        "[referee]\njournal = 'j.jsonl'\n"
        f"[bridge]\nport = '{tmp_path / 'no-pico'}'\nbuttons = {{ ann = 0, bob = 1, cat = 2 }}\n"
        "[[players]]\nname = 'ann'\n[[players]]\nname = 'bob'\n[[players]]\nname = 'cat'\n"
    )
    status = main(["referee", "--config", str(config), "--pin-factory", "mock"])
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and "no bridge on" in err and "Traceback" not in err
