"""Opening a table from a config: the journal's life (new, refuse, archive, resume), the
buttons already held at start, the pins read back, and everything released at close.

Sessions run on gpiozero's mock pins. Time is a ManualClock wherever the referee's
deadlines matter, so rounds are played without sleeping.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import Opener, WaitFor

from companion.cli import main
from companion.devices.buttons import GpioPressSource
from companion.devices.wiring import BuzzerConfig, BuzzerKind, LedConfig, LedKind
from companion.errors import ConfigError
from companion.games.chomp import Card, Hand, Mode, TwoPlayerEnd
from companion.referee.clock import ManualClock
from companion.referee.core import Phase
from companion.referee.daemon import Cards, Shutdown, StartRound
from companion.referee.journal import abandon_entry, read_journal
from companion.signals import ButtonEdge, Cue, RevealStamp, Signal, TimingClass
from companion.tables.chomp.config import ChompConfig
from companion.tables.chomp.demo import demo_config
from companion.tables.chomp.session import ChompSession, open_chomp_session

MS = 1_000_000
PLAYERS = ("ann", "bob", "cat")
# ann may chomp cat's plankton; bob's shark goes back to him.
ANN_TAKES_CATS: dict[str, Hand] = {
    "ann": (Card.SEAL,),
    "bob": (Card.SHARK,),
    "cat": (Card.PLANKTON,),
}


def types(path: Path) -> list[str]:
    return [e["type"] for e in read_journal(path).entries]


def output_threads() -> int:
    return sum(t.name == "companion-outputs" for t in threading.enumerate())


def play_round(
    session: ChompSession, clock: ManualClock, cards: dict[str, Hand], slapper: str
) -> None:
    """Countdown, reveal, one press and release by ``slapper``, cards, verdict: no sleeping."""
    daemon = session.daemon
    timing = session.referee.timing
    daemon.put(StartRound())
    daemon.pump()
    clock.advance(timing.countdown_beeps * timing.countdown_interval_ns)
    daemon.pump()
    assert session.referee.phase is Phase.REVEALED
    clock.advance(50 * MS)
    daemon.put(ButtonEdge(slapper, True, clock.now_ns(), "gpio", 0))
    daemon.put(ButtonEdge(slapper, False, clock.now_ns() + 40 * MS, "gpio", 1))
    daemon.put(Cards(cards))
    clock.advance(100 * MS)
    daemon.pump()
    assert session.referee.phase is not Phase.REVEALED, "the round was not decided"


# -- new game, refusal, archive --------------------------------------------------------------


def test_a_new_game_writes_a_start_entry(table_config: ChompConfig, opener: Opener) -> None:
    session = opener(table_config)
    entries = read_journal(table_config.journal).entries
    assert [e["type"] for e in entries] == ["start"]
    start = entries[0]
    assert start["type"] == "start"
    assert start["players"] == list(PLAYERS) and start["deal"] == dict.fromkeys(PLAYERS, 16)
    assert [s["timing"] for s in start["sources"]] == [str(TimingClass.MOCK)]
    assert session.messages == []
    assert session.referee.phase is Phase.READY and session.referee.rounds_played == 0


def test_resume_with_no_journal_yet_starts_a_new_game(
    table_config: ChompConfig, opener: Opener
) -> None:
    session = opener(table_config, resume=True)
    assert types(table_config.journal) == ["start"]
    assert session.daemon.status().counts == dict.fromkeys(PLAYERS, 16)


def test_a_second_open_without_resume_or_new_is_refused_and_touches_nothing(
    table_config: ChompConfig, opener: Opener
) -> None:
    opener(table_config).close()
    before = table_config.journal.read_bytes()
    threads = output_threads()
    with pytest.raises(ConfigError) as caught:
        opener(table_config)
    message = str(caught.value)
    assert "--resume" in message and "--new" in message and str(table_config.journal) in message
    assert caught.value.where == "referee.journal"
    assert table_config.journal.read_bytes() == before
    assert list(table_config.journal.parent.iterdir()) == [table_config.journal]
    assert output_threads() == threads  # the outputs opened before the refusal were closed


def test_new_archives_the_old_journal_and_deletes_nothing(
    table_config: ChompConfig, opener: Opener
) -> None:
    clock = ManualClock()
    first = opener(table_config, clock=clock)
    play_round(first, clock, ANN_TAKES_CATS, "ann")
    first.close()
    old = table_config.journal.read_bytes()

    second = opener(table_config, new=True)
    (message,) = second.messages
    archived = Path(message.removeprefix("previous journal kept as "))
    assert archived != table_config.journal and archived.parent == table_config.journal.parent
    assert archived.name.startswith("game.") and archived.suffix == ".jsonl"
    assert archived.read_bytes() == old
    assert types(table_config.journal) == ["start"]
    assert second.daemon.status().counts == dict.fromkeys(PLAYERS, 16)


def test_new_twice_in_the_same_second_keeps_every_journal(
    table_config: ChompConfig, opener: Opener
) -> None:
    contents: list[bytes] = []
    for _ in range(3):
        session = opener(table_config, new=True)
        session.journal.write([abandon_entry(len(contents), "a test")])
        session.close()
        contents.append(table_config.journal.read_bytes())
    opener(table_config, new=True).close()
    kept = sorted(
        p.read_bytes() for p in table_config.journal.parent.iterdir() if p != table_config.journal
    )
    assert kept == sorted(contents)


# -- resume ------------------------------------------------------------------------------------


def test_resume_continues_the_game_where_the_journal_left_it(
    table_config: ChompConfig, opener: Opener, capsys: pytest.CaptureFixture[str]
) -> None:
    clock = ManualClock()
    first = opener(table_config, clock=clock)
    play_round(first, clock, ANN_TAKES_CATS, "ann")
    counts = first.daemon.status().counts
    assert counts == {"ann": 17, "bob": 16, "cat": 15}
    first.close()

    clock = ManualClock(clock.now_ns() + 60_000 * MS)
    second = opener(table_config, resume=True, clock=clock)
    assert second.messages == [f"resumed the game from {table_config.journal} after round 1"]
    assert second.referee.rounds_played == 1 and second.daemon.status().counts == counts
    assert types(table_config.journal)[-1] == "resume"

    play_round(second, clock, ANN_TAKES_CATS, "ann")
    second.close()
    entries = read_journal(table_config.journal).entries
    verdicts = [e for e in entries if e["type"] == "verdict"]
    assert [v["n"] for v in verdicts] == [1, 2]
    assert verdicts[-1]["cards"] == {"ann": 18, "bob": 16, "cat": 14}
    assert main(["chomp", "audit", str(table_config.journal)]) == 0
    assert "the journal agrees" in capsys.readouterr().out


def test_resume_of_a_finished_game_archives_it_and_starts_a_new_one(
    table_config: ChompConfig, opener: Opener
) -> None:
    clock = ManualClock()
    first = opener(table_config, clock=clock)
    for _ in range(16):  # cat shows plankton every round and runs out after 16
        play_round(first, clock, ANN_TAKES_CATS, "ann")
    assert first.referee.game.over and first.referee.phase is Phase.OVER
    assert list(first.referee.game.out) == ["cat"]  # two left, count decides: ann has more
    assert first.referee.game.winner == "ann"
    first.close()
    finished = table_config.journal.read_bytes()

    second = opener(table_config, resume=True)
    (message,) = second.messages
    assert message.startswith("the journal's game is over; kept as ")
    archived = Path(message.removeprefix("the journal's game is over; kept as "))
    assert archived.read_bytes() == finished
    assert types(table_config.journal) == ["start"]
    assert second.referee.phase is Phase.READY and not second.referee.game.over
    assert second.daemon.status().counts == dict.fromkeys(PLAYERS, 16)


# -- the pins ------------------------------------------------------------------------------


def test_a_round_played_on_the_mock_pins(table_config: ChompConfig, opener: Opener) -> None:
    """The press is the pin's own stamp; the manual clock only decides when to decide."""
    clock = ManualClock(time.monotonic_ns())
    session = opener(table_config, clock=clock)
    factory = session.factory.factory
    daemon = session.daemon
    reveal = clock.now_ns()
    daemon.put(RevealStamp(reveal, "key"))
    daemon.pump()
    factory.pin(17).drive_low()  # ann slaps
    factory.pin(17).drive_high()
    daemon.put(Cards(ANN_TAKES_CATS))
    clock.set(time.monotonic_ns() + 100 * MS)
    daemon.pump()
    entries = read_journal(table_config.journal).entries
    edges = [e for e in entries if e["type"] == "edge"]
    assert [(e["player"], e["pressed"], e["use"]) for e in edges] == [
        ("ann", True, "press"),
        ("ann", False, "release"),
    ]
    assert edges[0]["stamp_ns"] >= reveal
    verdict = entries[-1]
    assert verdict["type"] == "verdict" and verdict["verdict"]["winner"] == "ann"
    assert session.led_level("ann") == 1.0  # the winner's LED, read back from its pin
    assert session.led_level("bob") == 0.0 and session.led_level("cat") == 0.0


def test_a_button_held_down_at_start_is_reported_then_flagged_stuck(
    table_config: ChompConfig, opener: Opener, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(GpioPressSource, "held", lambda self: frozenset({"ann"}))
    clock = ManualClock()
    messages: list[str] = []
    session = opener(table_config, clock=clock, notify=messages.append)
    edge = session.daemon.inbox.get_nowait()
    assert edge == ButtonEdge("ann", True, clock.now_ns(), "gpio", -1)
    assert session.daemon.inbox.empty()
    session.daemon.put(edge)
    session.daemon.pump()
    assert session.daemon.status().stuck == []
    clock.advance(round(table_config.stuck_ms * MS))
    session.daemon.pump()
    assert session.daemon.status().stuck == ["ann"]
    assert messages == ["ann's button is stuck down: ignored until released"]
    entries = read_journal(table_config.journal).entries
    assert [(e["player"], e["seq"], e["use"]) for e in entries if e["type"] == "edge"] == [
        ("ann", -1, "between_rounds")
    ]


def test_no_button_held_at_start_reports_nothing(table_config: ChompConfig, opener: Opener) -> None:
    session = opener(table_config)
    assert session.daemon.inbox.empty()


def test_led_level_and_buzzer_on_read_the_pins(table_config: ChompConfig, opener: Opener) -> None:
    session = opener(table_config)
    render = session.daemon.render
    assert render is not None
    assert [session.led_level(p) for p in PLAYERS] == [0.0, 0.0, 0.0]
    assert not session.buzzer_on()
    render([Cue(Signal.WIN, "bob")])
    assert [session.led_level(p) for p in PLAYERS] == [0.0, 1.0, 0.0]
    render([Cue(Signal.REVEAL)])  # all players' LEDs off, a half-second tone
    assert [session.led_level(p) for p in PLAYERS] == [0.0, 0.0, 0.0]
    assert session.buzzer_on()
    render([Cue(Signal.READY)])  # READY's empty sound silences the buzzer
    assert not session.buzzer_on()
    factory = session.factory.factory
    assert factory.pin(6).state == 0 and factory.pin(18).state == 0


def test_led_level_of_an_rgb_led_is_its_brightest_pin_and_none_is_zero(
    table_config: ChompConfig, opener: Opener
) -> None:
    ann, bob, cat = table_config.players
    ann_rgb = replace(ann, led=LedConfig(LedKind.RGB, (26, 16, 12)))
    table_config = replace(
        table_config,
        players=(ann_rgb, bob, replace(cat, led=None)),
        buzzer=None,
    )
    session = opener(table_config)
    render = session.daemon.render
    assert render is not None
    render([Cue(Signal.WIN, "ann"), Cue(Signal.WIN, "cat")])
    factory = session.factory.factory
    assert (factory.pin(26).state, factory.pin(16).state, factory.pin(12).state) == (0, 1, 0)
    assert session.led_level("ann") == 1.0  # green
    assert session.led_level("cat") == 0.0  # no LED
    assert not session.buzzer_on()  # no buzzer


def test_passive_buzzer_is_read_back_too(table_config: ChompConfig, opener: Opener) -> None:
    table_config = replace(table_config, buzzer=BuzzerConfig(18, BuzzerKind.PASSIVE))
    session = opener(table_config)
    assert not session.buzzer_on()
    render = session.daemon.render
    assert render is not None
    render([Cue(Signal.REVEAL)])
    assert session.buzzer_on()


def test_close_releases_every_pin_and_the_journal(
    table_config: ChompConfig, opener: Opener
) -> None:
    before = output_threads()
    session = opener(table_config)
    factory = session.factory.factory
    assert factory.pins  # buttons, LEDs, buzzer and status LED are held
    assert output_threads() == before + 1
    session.close()
    assert not factory.pins
    assert session.journal.closed
    assert output_threads() == before
    session.close()  # twice is fine (the fixture closes it again)
    # The pins are free again: a new session on the same journal (resumed) opens them all.
    opener(table_config, resume=True).close()


def test_a_session_opened_with_with_is_closed_however_the_block_ends(
    table_config: ChompConfig,
) -> None:
    """Issue 23: ChompSession was no context manager, though it holds pins and a locked
    journal; a caller's ``with`` failed (AttributeError: __enter__)."""
    before = output_threads()
    with open_chomp_session(table_config, pin_factory="mock") as session:
        factory = session.factory.factory
        assert factory.pins and output_threads() == before + 1
    assert not factory.pins and session.journal.closed and output_threads() == before
    with (
        pytest.raises(KeyError),
        open_chomp_session(table_config, resume=True, pin_factory="mock") as again,
    ):
        raise KeyError("the caller's own bug")
    assert again.journal.closed and not again.factory.factory.pins
    with open_chomp_session(table_config, resume=True, pin_factory="mock"):
        pass  # the journal's lock and the pins were released: it opens again


def test_close_stops_and_waits_for_a_loop_the_caller_runs_on_its_own_thread(
    table_config: ChompConfig,
) -> None:
    """Issue 23: close() joined only a thread made by start(); a loop the caller ran with
    ``daemon.run()`` (as docs/api.md said to) was still inside a round's hook when close()
    returned and the devices and journal were closed under it."""
    busy = threading.Event()

    def slow_hook(step: object) -> None:
        busy.set()
        time.sleep(0.3)  # the loop is busy here when close() is called

    with open_chomp_session(table_config, pin_factory="mock") as session:
        session.daemon.on_step = slow_hook
        loop = threading.Thread(target=session.daemon.run, daemon=True)
        loop.start()
        session.daemon.put(StartRound())
        assert busy.wait(5)
    assert not loop.is_alive()
    journal = table_config.journal.read_bytes()
    session.daemon.handle(StartRound(), time.monotonic_ns())  # after close: ignored
    assert table_config.journal.read_bytes() == journal


def test_a_shutdown_ends_the_callers_loop_and_its_future_is_done(
    table_config: ChompConfig, opener: Opener
) -> None:
    session = opener(table_config)
    loop = threading.Thread(target=session.daemon.run, daemon=True)
    loop.start()
    started = session.daemon.put(StartRound())
    stopped = session.daemon.put(Shutdown())
    assert stopped.result(timeout=5).journal == []
    loop.join(5)
    assert not loop.is_alive() and started.done()
    assert [e["type"] for e in started.result().journal] == ["round"]


def test_a_failure_while_opening_leaves_no_pin_or_thread_behind(
    table_config: ChompConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[object] = []
    real = GpioPressSource.__init__

    def broken(self: GpioPressSource, *args: object, **kwargs: object) -> None:
        real(self, *args, **kwargs)  # type: ignore[arg-type]
        seen.append(self)
        raise RuntimeError("boom")

    monkeypatch.setattr(GpioPressSource, "__init__", broken)
    before = output_threads()
    with pytest.raises(RuntimeError, match="boom"):
        open_chomp_session(table_config, pin_factory="mock")
    assert seen, "the press source was opened before the failure"
    assert output_threads() == before
    assert not table_config.journal.exists()


# -- known bugs (strict xfail: remove the mark with the fix) -----------------------------------


def test_resume_with_a_config_that_seats_other_players_is_refused(
    table_config: ChompConfig, opener: Opener
) -> None:
    """The journal's game (ann, bob, cat) is resumed under a config seating ann, bob, dan:
    dan's button is ignored as an unknown player and led_level("cat") raises StopIteration,
    which the curses screen calls for every player of the game."""
    opener(table_config).close()
    other = demo_config(
        ("ann", "bob", "dan"), Mode.STANDARD, TwoPlayerEnd.COUNT, table_config.journal, fast=True
    )
    with pytest.raises(ConfigError, match="dan|cat"):
        session = opener(other, resume=True)
        for player in session.referee.game.players:
            session.led_level(player)


def test_a_journal_path_that_is_a_folder_is_refused(
    table_config: ChompConfig, opener: Opener, tmp_path: Path
) -> None:
    """``journal = "logs/"`` with --new renames the whole logs folder to logs.<stamp> and
    writes the journal as a file called logs."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "keep.txt").write_text("kept", encoding="utf-8")
    try:
        with pytest.raises(ConfigError, match="logs"):
            opener(replace(table_config, journal=logs), new=True)
    finally:
        assert (logs / "keep.txt").exists(), sorted(p.name for p in tmp_path.iterdir())


def test_a_journal_that_cannot_be_created_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The journal's folder would be a file: FileExistsError escapes main() (exit 1, a
    traceback) instead of one line naming the journal and exit status 2."""
    (tmp_path / "taken").write_text("a file, not a folder", encoding="utf-8")
    path = tmp_path / "table.toml"
    path.write_text(
        '[referee]\njournal = "taken/game.jsonl"\n'
        + "".join(
            f'[[players]]\nname = "{name}"\nbutton = {pin}\n'
            for name, pin in (("ann", 17), ("bob", 27), ("cat", 22))
        ),
        encoding="utf-8",
    )
    handlers = list(logging.getLogger().handlers)
    assert main(["referee", "--config", str(path), "--pin-factory", "mock", "--new"]) == 2
    assert logging.getLogger().handlers == handlers  # its log file ends with it, even so
    (line,) = capsys.readouterr().err.splitlines()
    assert "taken" in line


def test_config_warnings_are_shown_when_the_table_opens(
    table_config: ChompConfig, opener: Opener
) -> None:
    warned = replace(table_config, warnings=("players[0].button: GPIO0 is ID_SD, ...",))
    session = opener(warned, new=True)
    assert session.messages[0] == "players[0].button: GPIO0 is ID_SD, ..."


def test_the_demo_journals_the_keyboard_stamps_it_referees_with(tmp_path: Path) -> None:
    """With people at the keys the tie window is the keyboard's, and the journal's start
    says so, so an audit judges with the window the referee used (it used to record the
    mock pins' 500 us while refereeing at 10 ms)."""
    from companion.tables.chomp.demo import open_demo

    seats, bots = ["you", "ann", "bob"], ["ann", "bob"]
    session, table = open_demo(seats, bots, journal=tmp_path / "demo.jsonl")
    try:
        start = read_journal(session.config.journal).start
        assert session.referee.tie_window_us == 10_000 == start["effective_tie_window_us"]
        # The keys, and the bots' presses (planned at their stamps, uncertainty 0).
        assert [s["timing"] for s in start["sources"]] == ["keyboard", "mock"]
        assert session.messages[-1].startswith("tie window raised from 500 to 10000 us")
    finally:
        table.close()
        session.close()


def test_a_rehearsal_on_mock_pins_gives_each_seat_a_key_that_presses_its_button(
    table_config: ChompConfig, opener: Opener, wait_for: WaitFor
) -> None:
    """``companion referee --pin-factory mock`` at a terminal: before any button is wired,
    a key per seat pushes that seat's pin down and lets it go, so the round is played
    through the pins, the referee and the journal as on the table. None of the keys types a
    card, reveals or quits."""
    from companion.tables.chomp.app import REHEARSAL_KEYS, rehearsal_keys
    from companion.tables.chomp.card_entry import KEYS, UNDO_KEYS

    assert not set(REHEARSAL_KEYS) & (set(KEYS) | set(UNDO_KEYS) | {"r", "R", "q", "Q", " "})
    clock = ManualClock(time.monotonic_ns())
    session = opener(table_config, clock=clock)
    keys, on_key = rehearsal_keys(session)
    assert keys == {"a": "ann", "d": "bob", "f": "cat"}
    session.daemon.put(RevealStamp(clock.now_ns(), "key"))
    session.daemon.pump()
    on_key("d")  # bob's key: his pin goes down now and up a hand's moment later
    assert session.pin(27).state == 0
    assert wait_for(lambda: session.pin(27).state == 1)
    on_key("x")  # not a seat's key: nothing moves
    session.daemon.put(Cards({"ann": (Card.SEAL,), "bob": (Card.SHARK,), "cat": (Card.SHRIMP,)}))
    clock.set(time.monotonic_ns() + 100 * MS)
    session.daemon.pump()
    entries = read_journal(table_config.journal).entries
    presses = [(e["player"], e["pressed"]) for e in entries if e["type"] == "edge"]
    assert presses == [("bob", True), ("bob", False)]
    assert entries[-1]["type"] == "verdict" and entries[-1]["verdict"]["winner"] == "bob"
