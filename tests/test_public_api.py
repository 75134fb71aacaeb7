"""The supported Python surface: docs/api.md runs as written, and importing it is cheap.

``import companion`` and ``companion --help`` load no engine, no referee, no table and no
gpiozero: every exported name is imported from its home on first use.
"""

from __future__ import annotations

import doctest
import json
import subprocess
import sys
import tempfile
import time
import typing
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import companion
from companion.games.chomp import Card, Hand, Mode, TwoPlayerEnd
from companion.tables.chomp.config import ChompConfig
from companion.tables.chomp.demo import demo_config
from companion.tables.chomp.session import ChompSession
from companion.text import refusal

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("companion.games", "companion.referee", "companion.tables", "companion.devices")
# one card each: a round the referee accepts
CARDS: dict[str, Hand] = {"ann": (Card.SEAL,), "bob": (Card.SHARK,), "cat": (Card.PLANKTON,)}


def test_the_api_page_runs_as_written(repo_root: Path) -> None:
    result = doctest.testfile(
        str(repo_root / "docs" / "api.md"),
        module_relative=False,
        optionflags=doctest.ELLIPSIS,
        verbose=False,
    )
    assert result.attempted > 30 and result.failed == 0


def loaded_after(code: str) -> list[str]:
    probe = f"import sys; {code}; print(sorted(m for m in sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    )
    modules: list[str] = eval(result.stdout)  # a printed list of module names
    return [m for m in modules if m.startswith(HEAVY) or m.startswith("gpiozero")]


def test_import_companion_loads_no_engine_table_or_gpiozero() -> None:
    assert loaded_after("import companion") == []


def test_help_loads_no_engine_table_or_gpiozero() -> None:
    assert loaded_after("from companion.cli import build_parser; build_parser([])") == []


def test_every_exported_name_resolves_and_is_listed() -> None:
    exported = set(companion._EXPORTS)
    assert set(companion.__all__) == exported
    for name in sorted(exported):
        assert getattr(companion, name) is not None, name
    assert companion.score_land.__name__ == "score"  # the dino engine's own function


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Session'"):
        companion.Session  # noqa: B018 - the lookup is the test


# -- issue 23: what a caller building a table from docs/api.md met ----------------------------


def test_the_front_door_exports_the_types_a_caller_meets() -> None:
    """Phase (status().phase), TimingClass (a source's timing), RevealBy (a reveal's how,
    the config's reveal), Shutdown (stops run()), RefereeStep (on_step's argument) and
    TablePin (session.pin()) were reachable only from deeper modules."""
    from companion.referee.core import Phase, RefereeStep
    from companion.referee.daemon import RefereeDaemon, Shutdown
    from companion.signals import RevealBy, TimingClass
    from companion.tables.chomp.config import RevealBy as ConfigRevealBy
    from companion.tables.chomp.session import TablePin

    assert companion.Phase is Phase and companion.TimingClass is TimingClass
    assert companion.RevealBy is RevealBy is ConfigRevealBy  # one meaning, one enum
    assert companion.Shutdown is Shutdown and companion.RefereeStep is RefereeStep
    assert companion.RefereeDaemon is RefereeDaemon and companion.TablePin is TablePin


def test_session_pin_is_typed() -> None:
    """session.pin() returned Any: a caller's mypy checked nothing it did with a pin."""
    hints = typing.get_type_hints(companion.ChompSession.pin)
    assert hints["return"] is companion.TablePin


@pytest.fixture
def session(table_config: ChompConfig) -> Iterator[ChompSession]:
    with companion.open_chomp_session(table_config, pin_factory="mock") as opened:
        yield opened


def test_refused_cards_raise_from_the_future_put_returned(session: ChompSession) -> None:
    """A refused Cards was only a notify line: the caller that gave the cards never saw it.
    The table still shows the line."""
    said: list[str] = []
    session.daemon.notify = said.append
    given = session.daemon.put(companion.Cards(dict(CARDS)))
    session.daemon.pump()
    with pytest.raises(companion.RuleError, match="no round is open for cards"):
        given.result(timeout=0)
    assert said == ["no round is open for cards"]
    session.daemon.put(companion.StartRound())
    session.daemon.pump()
    short = session.daemon.put(companion.Cards({"ann": (Card.SEAL,)}))
    session.daemon.pump()
    with pytest.raises(companion.InputError, match="no card for 'bob'"):
        short.result(timeout=0)
    accepted = session.daemon.put(companion.Cards(dict(CARDS)))
    session.daemon.pump()
    assert [e["type"] for e in accepted.result(timeout=0).journal][:1] == ["cards"]


def test_refused_cards_raise_from_the_future_with_the_loop_on_a_thread(
    session: ChompSession,
) -> None:
    session.daemon.start()
    with pytest.raises(companion.RuleError, match="no round is open for cards"):
        session.daemon.put(companion.Cards(dict(CARDS))).result(timeout=5)


def test_an_input_after_close_or_dropped_by_close_says_so(session: ChompSession) -> None:
    queued = session.daemon.put(companion.StartRound())  # never pumped
    session.close()
    with pytest.raises(companion.RuleError, match="closed before this input was handled"):
        queued.result(timeout=0)
    with pytest.raises(companion.RuleError, match="the referee is closed"):
        session.daemon.put(companion.StartRound()).result(timeout=0)


def test_a_reveals_how_is_a_revealby_and_its_journal_text_is_unchanged(
    session: ChompSession, table_config: ChompConfig
) -> None:
    """RevealStamp.how was free text: any string went into the journal."""
    stamp = companion.RevealStamp(time.monotonic_ns(), "button")
    assert stamp.how is companion.RevealBy.BUTTON
    with pytest.raises(ValueError, match="'sideways' is not a way to reveal"):
        companion.RevealStamp(0, "sideways")
    session.daemon.put(companion.RevealStamp(time.monotonic_ns(), companion.RevealBy.PROGRAM))
    session.daemon.pump()
    lines = [json.loads(line) for line in table_config.journal.read_text().splitlines()]
    assert [e["how"] for e in lines if e["type"] == "reveal"] == ["program"]
    assert '"how":"program"' in table_config.journal.read_text()


def reveal_journal(folder: Path, how: str) -> Path:
    """A journal written by an older version, its reveal's how as given."""
    path = folder / f"old-{len(list(folder.iterdir()))}.jsonl"
    with companion.open_chomp_session(
        replace(config_in(folder), journal=path), pin_factory="mock"
    ) as session:
        session.daemon.put(companion.RevealStamp(time.monotonic_ns(), "button"))
        session.daemon.pump()
    text = path.read_text().replace('"how":"button"', json.dumps({"how": how})[1:-1])
    path.write_text(text)
    return path


def config_in(folder: Path) -> ChompConfig:
    return demo_config(("ann", "bob", "cat"), Mode.STANDARD, TwoPlayerEnd.COUNT, folder / "x")


@pytest.mark.parametrize("how", ["countdown", "button", "key", "bench", "test"])
def test_old_journals_still_read_and_resume(tmp_path: Path, how: str) -> None:
    """Journals written before RevealBy (the benchmarks wrote "bench", tests "test")."""
    path = reveal_journal(tmp_path, how)
    journal = companion.read_journal(path)
    assert [e["how"] for e in journal.entries if e["type"] == "reveal"] == [how]
    with companion.open_chomp_session(
        replace(config_in(tmp_path), journal=path), resume=True, pin_factory="mock"
    ) as session:
        assert session.referee.phase is companion.Phase.REVEALED


@settings(max_examples=examples(200), deadline=None)
@given(st.text(max_size=12))
def test_any_text_as_how_is_a_member_or_one_value_error(text: str) -> None:
    try:
        how = companion.RevealStamp(0, text).how
    except ValueError as exc:
        assert "is not a way to reveal" in str(exc)
    else:
        assert how in set(companion.RevealBy)
        assert how == text or text in ("bench", "test")


@settings(max_examples=examples(100), deadline=None)
@given(st.one_of(st.text(max_size=12), st.integers(), st.none(), st.lists(st.text(), max_size=2)))
def test_any_how_in_a_journal_reads_or_is_one_input_error_naming_the_line(how: object) -> None:
    start = {
        "type": "start", "version": 1, "players": ["ann", "bob"], "mode": "standard",
        "two_player_end": "count", "deal": {"ann": 1, "bob": 1}, "tie_window_us": 500,
        "effective_tie_window_us": 500, "sources": [], "lockout_ms": 1, "settle_ms": 1,
    }  # fmt: skip
    lines = [start, {"type": "round", "n": 1, "mode": "standard", "opened_ns": 0}]
    lines.append({"type": "reveal", "n": 1, "stamp_ns": 5, "how": how})
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "j.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        try:
            journal = companion.read_journal(path)
        except companion.InputError as exc:
            assert "line 3" in str(exc) and "\n" not in str(exc)
            if isinstance(how, str) and refusal(how) is None:  # else the text gate's line
                assert "a way to reveal" in str(exc)
        else:
            last = journal.entries[-1]
            assert last["type"] == "reveal" and last["how"] == how
            assert how in {*companion.RevealBy, "bench", "test"}
