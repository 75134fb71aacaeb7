"""The referee with its slap buttons on the Pico bridge: a simulated Pico over a pty."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from companion.errors import InputError
from companion.games.chomp import Card, Mode, TwoPlayerEnd
from companion.referee.daemon import Cards, RefereeDaemon
from companion.signals import RevealStamp, TimingClass
from companion.tables.chomp.config import BridgeConfig, config_from_dict
from companion.tables.chomp.demo import demo_config
from companion.tables.chomp.session import ChompSession, open_chomp_session
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
        assert wait_for(lambda: (daemon.pump(), bool(results))[1])
        verdict = results[0].verdict  # type: ignore[attr-defined]
        assert verdict.winner == "cat" and session.led_level("cat") > 0
    finally:
        session.close()
