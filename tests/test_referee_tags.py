"""The referee reading each round's cards from their tags ([tags] in the table's config)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from companion.errors import InputError
from companion.referee.daemon import RefereeDaemon
from companion.signals import RevealStamp
from companion.tables.chomp.config import ChompConfig, TagsConfig, config_from_dict
from companion.tables.chomp.session import ChompSession, open_chomp_session
from companion.tags.readers import CallbackReader

WaitFor = Callable[..., bool]  # the conftest fixture: poll until true, or fail

ROOT = Path(__file__).resolve().parent.parent
TAGS = ROOT / "examples" / "chomp-tags.example.json"


def uid_of(card: str) -> str:
    import json

    tags: dict[str, str] = json.loads(TAGS.read_text())["tags"]
    return next(uid for uid, name in tags.items() if name == card)


@pytest.fixture
def tagged(
    table_config: ChompConfig, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[ChompSession, CallbackReader]]:
    reader = CallbackReader()
    monkeypatch.setattr("companion.tables.chomp.session.open_reader", lambda *a, **k: reader)
    config = replace(table_config, tags=TagsConfig(TAGS, ("bridge",), None))
    session = open_chomp_session(config, new=True, pin_factory="mock")
    yield session, reader
    session.close()


def test_tags_config_is_checked() -> None:
    players = [{"name": n, "button": 17 + i} for i, n in enumerate(("ann", "bob", "cat"))]
    config = config_from_dict(
        {"players": players, "tags": {"file": "t.json", "readers": ["pn532:/dev/serial0"]}}
    )
    assert config.tags == TagsConfig(Path("t.json"), ("pn532:/dev/serial0",), None)
    for tags, message in (
        ({"file": "t.json", "readers": ["keyboard"]}, "keyboard is for its screen"),
        ({"file": "t.json", "readers": []}, "at least one reader"),
        ({"file": "t.json", "readers": ["bridge"], "seats": ["ann", "bob"]}, "one seat per reader"),
        ({"file": "t.json", "readers": ["bridge"], "seats": ["zed"]}, "no player 'zed'"),
    ):
        with pytest.raises(InputError, match=message):
            config_from_dict({"players": players, "tags": tags})


def test_a_round_whose_cards_come_from_their_tags(
    wait_for: WaitFor,
    tagged: tuple[ChompSession, CallbackReader],
) -> None:
    session, reader = tagged
    daemon: RefereeDaemon = session.daemon
    messages: list[str] = []
    daemon.notify = messages.append
    results: list[object] = []
    daemon.on_result = results.append
    daemon.put(RevealStamp(time.monotonic_ns(), "test"))
    daemon.pump()
    session.factory.factory.pin(22).drive_low()  # cat slaps
    daemon.pump()
    # One reader read in seat order: ann, bob, cat; an unknown tag first is a prompt.
    reader.push_code(0, "not-a-card")
    for card in ("plankton", "seal", "shark"):
        reader.push(0, bytes.fromhex(uid_of(card)))

    def pumped() -> bool:
        daemon.pump()
        return bool(results)

    assert wait_for(pumped)
    verdict = results[0].verdict  # type: ignore[attr-defined]
    assert verdict.winner == "cat" and verdict.chomped == ("ann", "bob")
    assert any("not-a-card" in m or "not in" in m for m in messages), messages


def test_a_card_read_twice_is_a_prompt_not_a_guess(
    wait_for: WaitFor,
    tagged: tuple[ChompSession, CallbackReader],
) -> None:
    session, reader = tagged
    daemon = session.daemon
    messages: list[str] = []
    daemon.notify = messages.append
    daemon.put(RevealStamp(time.monotonic_ns(), "test"))
    daemon.pump()
    seal = bytes.fromhex(uid_of("seal"))
    reader.push(0, seal)
    reader.push(0, seal)  # the same physical card again
    assert wait_for(lambda: any("twice" in m for m in messages)), messages
    assert session.tags is not None
    session.tags.demand()  # Enter at the table: what is missing?
    assert wait_for(lambda: any("no card" in m.lower() or "missing" in m.lower() for m in messages))
    daemon.pump()
    assert session.referee.waiting_for_cards()  # nothing was guessed
