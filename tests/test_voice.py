"""Spoken calls (docs/voice.md): phrases from cues, rendered once by espeak-ng into a cache,
played on a thread of their own so the referee never waits; the [voice] and [leds] keys;
signals that differ by more than colour (hardware/SIGNALS.md).

Tests that render need espeak-ng (Debian's package, installed by .ci/run); where it is
missing they skip with one line. Nothing is played: the sinks here are fakes.
"""

from __future__ import annotations

import array
import json
import math
import os
import shutil
import threading
import tomllib
import wave
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import Opener, RunCli, examples, poll
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.devices import outputs
from companion.devices.outputs import LED_PATTERNS, PALETTES, Pattern, TableOutputs, pattern_for
from companion.devices.pins import OpenedFactory
from companion.devices.wiring import LedConfig, LedKind
from companion.errors import ConfigError, InputError
from companion.games.chomp import Card, ChompGame
from companion.games.getbit import GetBit, Setup
from companion.referee.clock import ManualClock
from companion.referee.core import Phase, Referee, Timing
from companion.signals import ButtonEdge, Cue, RevealStamp, Signal, SourceInfo, TimingClass
from companion.tables.chomp.config import ChompConfig, config_from_dict
from companion.tables.getbit.config import load_table_config
from companion.tables.getbit.hardware import TableHardware
from companion.tables.voice import (
    CHOMP_SIGNALS,
    GETBIT_SIGNALS,
    PALETTE_NAMES,
    PHRASES,
    NullSink,
    PhraseCache,
    VoiceConfig,
    VoiceOutput,
    check_voice,
    every_phrase,
    open_voice,
    phrases_for,
    voice_from,
)

ROOT = Path(__file__).resolve().parent.parent
HAS_ESPEAK = shutil.which("espeak-ng") is not None
needs_espeak = pytest.mark.skipif(
    not HAS_ESPEAK, reason="espeak-ng is not installed (sudo apt install espeak-ng)"
)
from test_reliability_journal import play_round as play_journal_round  # noqa: E402

MS = 1_000_000
SEATS = ("ann", "bob", "cat")
ON = VoiceConfig(enabled=True)


@pytest.fixture(autouse=True)
def private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Every test (and every command it runs) renders into a cache of its own."""
    folder = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    return folder / "companion" / "voice"


class BlockingSink:
    """A player that never finishes until the test says so: what a stuck ``aplay`` does."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.playing = threading.Event()
        self.played: list[Path] = []
        self.stops = 0

    def play(self, path: Path) -> None:
        self.played.append(path)
        self.playing.set()
        self.release.wait(timeout=30)

    def stop(self) -> None:
        self.stops += 1


def rms(path: Path) -> float:
    """Root mean square of a 16-bit mono WAV's samples (0..32767), by the stdlib alone."""
    with wave.open(str(path), "rb") as w:
        assert w.getsampwidth() == 2 and w.getnchannels() == 1
        samples = array.array("h", w.readframes(w.getnframes()))
    return math.sqrt(sum(s * s for s in samples) / len(samples)) if samples else 0.0


def seconds(path: Path) -> float:
    with wave.open(str(path), "rb") as w:
        return w.getnframes() / w.getframerate()


def fake_voice(sink: Any, seats: tuple[str, ...] = SEATS) -> VoiceOutput:
    """A voice that knows every phrase by a made-up file (the sinks here open none)."""
    phrases = every_phrase(seats, ON.wording(), ON.draw())
    return VoiceOutput(ON, {p: Path(f"/nonexistent/{i}.wav") for i, p in enumerate(phrases)}, sink)


# -- phrases from cues --------------------------------------------------------------------------


def test_every_phrase_is_a_meaning_the_leds_and_buzzer_show() -> None:
    for wording in PHRASES.values():
        assert set(wording) <= set(LED_PATTERNS)
        assert set(wording) == set(PHRASES["en"])
    assert CHOMP_SIGNALS <= set(PHRASES["en"]) and GETBIT_SIGNALS <= set(PHRASES["en"])


def test_a_verdict_says_the_winners_name_then_the_bad_chomps() -> None:
    cues = [Cue(Signal.WIN, "ann"), Cue(Signal.BAD_CHOMP, "bob"), Cue(Signal.READY)]
    assert phrases_for(cues, ON.wording(), ON.draw()) == ["ann", "bad chomp, bob"]
    ties = [Cue(Signal.TIE, "ann"), Cue(Signal.TIE, "bob")]
    assert phrases_for(ties, ON.wording(), ON.draw()) == ["tie"]  # once for the table
    over = [Cue(Signal.INK_OUT), Cue(Signal.GAME_OVER, None)]
    assert phrases_for(over, ON.wording(), ON.draw()) == ["ink out", "a draw"]
    assert phrases_for([Cue(Signal.BITTEN, "red")], ON.wording(), ON.draw()) == [
        "the shark bites red"
    ]


def test_c4_a_false_start_is_called_false_start_and_a_late_bad_chomp_bad_chomp() -> None:
    """The referee's cues tell a press before the reveal (C4) from another bad chomp, so
    the voice can say which: "false start, cat", "bad chomp, ann"."""
    game = ChompGame.new(list(SEATS), deal=dict.fromkeys(SEATS, 10))
    ref = Referee(game, Timing.from_ms(500, settle_ms=0), [SourceInfo("gpio", TimingClass.MOCK, 1)])
    t0 = 10 * MS
    ref.reveal(RevealStamp(t0, "button"))
    ref.on_edge(ButtonEdge("cat", True, t0 - 1, "gpio", 0), t0)  # stamped before the reveal
    ref.on_edge(ButtonEdge("ann", True, t0 + 100 * MS, "gpio", 1), t0 + 100 * MS)  # too low
    ref.on_edge(ButtonEdge("bob", True, t0 + 150 * MS, "gpio", 2), t0 + 150 * MS)
    ref.set_cards({"ann": (Card.PLANKTON,), "bob": (Card.SHARK,), "cat": (Card.SEAL,)}, t0)
    step = ref.tick(t0 + 200 * MS)
    assert step.result is not None and step.result.verdict.winner == "bob"
    assert Cue(Signal.FALSE_START, "cat") in step.cues and Cue(Signal.BAD_CHOMP, "ann") in step.cues
    said = phrases_for(step.cues, ON.wording(), ON.draw())
    assert said[0] == "bob" and {"false start, cat", "bad chomp, ann"} <= set(said)


def test_the_language_picks_its_wording_and_the_config_can_reword() -> None:
    french = VoiceConfig(enabled=True, voice="fr")
    assert french.wording()[Signal.INK_OUT] == "encre" and french.draw() == "match nul"
    assert VoiceConfig(voice="gmw/en-US+f3").language == "en"
    own = voice_from({"voice": {"voice": "de", "phrases": {"ink_out": "Tinte", "win": "{name}!"}}})
    assert own.wording()[Signal.INK_OUT] == "Tinte"
    assert phrases_for([Cue(Signal.WIN, "ann")], own.wording(), own.draw()) == ["ann!"]


# -- the cache: rendered once, real sound -------------------------------------------------------


@needs_espeak
def test_each_phrase_is_a_wav_with_sound_of_a_plausible_length(private_cache: Path) -> None:
    seats = ("ann", "bob", "-x")  # a name like an option is read as text (on stdin)
    voice = open_voice(ON, seats, sink=NullSink(), signals=CHOMP_SIGNALS)
    assert voice is not None
    try:
        assert "bad chomp, -x" in voice.paths and "ink out" in voice.paths
        for phrase, path in voice.paths.items():
            assert path.parent == private_cache and path.is_file(), phrase
            assert 0.2 <= seconds(path) <= 4.0, phrase
            assert rms(path) > 300, phrase  # silence is 0; espeak-ng speech is thousands
    finally:
        voice.close()


@needs_espeak
def test_hostile_names_are_said_as_text_never_as_options_or_markup(private_cache: Path) -> None:
    """Names reach espeak-ng on stdin, without -m (no SSML): each is one phrase's WAV."""
    names = ("-w /tmp/x", "--stdout", '<speak><audio src="x"/></speak>', "O'Brien & co", "Zoë",
             "🦈 shark", "李")  # fmt: skip
    cache = PhraseCache(ON)
    paths = cache.prepare(f"bad chomp, {name}" for name in names)
    assert len(paths) == len(names) == len(cache.rendered)
    assert all(seconds(path) > 0.2 for path in paths.values())
    assert sorted(p.name for p in private_cache.iterdir()) == sorted(p.name for p in paths.values())


@needs_espeak
def test_the_cache_is_reused_a_second_start_renders_nothing(private_cache: Path) -> None:
    first = PhraseCache(ON)
    paths = first.prepare(["ann", "ink out"])
    assert first.rendered == ["ann", "ink out"]
    again = PhraseCache(ON)
    assert again.prepare(["ann", "ink out"]) == paths and again.rendered == []
    faster = PhraseCache(replace(ON, speed=200))  # the key holds the speed (and the voice)
    assert faster.prepare(["ann"])["ann"] != paths["ann"] and faster.rendered == ["ann"]
    paths["ann"].write_bytes(b"RIFF")  # a file cut short (a full disk): rendered again
    mended = PhraseCache(ON)
    mended.prepare(["ann", "ink out"])
    assert mended.rendered == ["ann"] and seconds(paths["ann"]) > 0.2


@needs_espeak
def test_a_link_in_the_cache_is_never_written_through(tmp_path: Path, private_cache: Path) -> None:
    cache = PhraseCache(ON)
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    private_cache.mkdir(parents=True)
    cache.path("war").symlink_to(target)
    with pytest.raises(ConfigError, match="not a file"):
        cache.prepare(["war"])
    assert target.read_text() == "keep me"


@needs_espeak
def test_a_cache_that_cannot_be_written_is_one_line(private_cache: Path) -> None:
    private_cache.mkdir(parents=True)
    private_cache.chmod(0o500)
    try:
        if os.access(private_cache, os.W_OK):
            pytest.skip("root writes into a read-only folder: run as a user to check this")
        with pytest.raises(ConfigError, match="cannot write the cache"):
            PhraseCache(ON).prepare(["war"])
    finally:
        private_cache.chmod(0o700)


def test_a_cache_that_is_not_a_folder_is_one_line(private_cache: Path) -> None:
    private_cache.parent.mkdir(parents=True)
    private_cache.write_text("a file")
    with pytest.raises(ConfigError, match="cache"):
        PhraseCache(ON).prepare(["war"])


# -- never blocking the referee -----------------------------------------------------------------


def test_render_returns_at_once_while_the_player_blocks() -> None:
    sink = BlockingSink()
    voice = fake_voice(sink)
    try:
        voice.render([Cue(Signal.WIN, "ann")])
        assert sink.playing.wait(timeout=5)  # the first call is playing, and stuck
        done = threading.Event()

        def decide_again() -> None:
            voice.render([Cue(Signal.INK_OUT), Cue(Signal.BAD_CHOMP, "bob")])
            voice.render([Cue(Signal.READY)])  # nothing to say: the call goes on
            done.set()

        threading.Thread(target=decide_again, daemon=True).start()
        assert done.wait(timeout=5) and not sink.release.is_set()
        assert sink.stops == 1  # the new decision cut the call that was playing
    finally:
        sink.release.set()
        voice.close()


def test_a_new_decision_cuts_the_call_and_replaces_the_waiting_ones() -> None:
    sink = BlockingSink()
    voice = fake_voice(sink)
    try:
        voice.render([Cue(Signal.WIN, "ann"), Cue(Signal.BAD_CHOMP, "bob")])
        assert sink.playing.wait(timeout=5)
        voice.render([Cue(Signal.WAR)])
        sink.release.set()
        poll(voice.idle)
        said = {path: phrase for phrase, path in voice.paths.items()}
        assert [said[p] for p in sink.played] == ["ann", "war"]  # "bad chomp, bob" dropped
    finally:
        voice.close()


@needs_espeak
def test_the_referee_decides_rounds_while_the_voice_is_stuck(
    table_config: ChompConfig, opener: Opener
) -> None:
    sink = BlockingSink()
    clock = ManualClock()
    config = replace(table_config, voice=ON)
    session = opener(config, clock=clock, voice_sink=sink)
    assert session.voice is not None
    assert f"voice: en, {len(session.voice.paths)} calls (" in "\n".join(session.messages)
    finished = threading.Event()

    def two_rounds() -> None:
        for _ in range(2):
            play_round(session, clock, "ann")
        finished.set()

    threading.Thread(target=two_rounds, daemon=True).start()
    try:
        assert finished.wait(timeout=20), "the referee waited for the voice"
        assert sink.playing.wait(timeout=5) and not sink.release.is_set()  # still stuck
        assert session.led_level("ann") == 1.0  # the LED still lit at once
        assert session.referee.game.counts["ann"] > session.referee.game.counts["cat"]
    finally:
        sink.release.set()


def play_round(session: Any, clock: ManualClock, slapper: str) -> None:
    """The reliability tests' round (countdown, reveal, one press, cards, verdict), decided."""
    play_journal_round(session, clock, slapper)
    assert session.referee.phase is not Phase.REVEALED


@needs_espeak
def test_get_bit_says_the_bite_beside_the_leds(opened: OpenedFactory) -> None:
    example = ROOT / "examples" / "getbit-table.example.toml"
    config = replace(load_table_config(example), voice=ON)
    line = ("red", "blue", "green", "yellow")
    sink = NullSink()
    hw = TableHardware(config, Setup(config.robot_players, line), "mock", voice_sink=sink)
    try:
        state = GetBit.new(hw.setup)
        state, result = state.play(dict.fromkeys(line, 1))
        state, result = state.play({"red": 2, "blue": 3, "green": 2, "yellow": 4})
        hw.show_round(result, state)
        poll(lambda: len(sink.started) == 1)
        assert hw.voice is not None
        said = {path: phrase for phrase, path in hw.voice.paths.items()}
        assert said[sink.started[0][1]] == "the shark bites green"
    finally:
        hw.close()


# -- the config: read once, refused in one line -------------------------------------------------


def players_toml(names: tuple[str, ...]) -> str:
    return "".join(f'[[players]]\nname = "{n}"\nbutton = {17 + i}\n' for i, n in enumerate(names))


def table(**extra: object) -> dict[str, object]:
    return {"players": [{"name": n, "button": 17 + i} for i, n in enumerate(SEATS)], **extra}


def test_voice_is_off_by_default_and_read_when_given() -> None:
    assert config_from_dict(table()).voice == VoiceConfig()
    assert not VoiceConfig().enabled
    raw = {"enabled": True, "voice": "fr", "speed": 200, "player": ["paplay"]}
    config = config_from_dict(table(voice=raw, leds={"palette": "okabe-ito"}))
    assert config.voice == VoiceConfig(True, "fr", 200, ("paplay",))
    assert config.palette == "okabe-ito"


@pytest.mark.parametrize(
    ("raw", "where"),
    [
        ({"voice": {"enabled": "yes"}}, "voice.enabled"),
        ({"voice": {"speed": 5}}, "voice.speed"),
        ({"voice": {"voice": "en; rm -rf"}}, "voice.voice"),
        ({"voice": {"volume": 3}}, "voice.volume"),
        ({"voice": {"player": []}}, "voice.player"),
        ({"voice": {"player": ["aplay", "\x1b[2J"]}}, "voice.player[1]"),
        ({"voice": {"phrases": {"reveal": "now"}}}, "voice.phrases.reveal"),
        ({"voice": {"phrases": {"war": "{0.__class__}"}}}, "voice.phrases.war"),
        ({"leds": {"palette": "rainbow"}}, "leds.palette"),
        ({"leds": {"colour": "red"}}, "leds.colour"),
    ],
)
def test_a_bad_voice_or_leds_key_is_one_line_naming_it(raw: dict[str, Any], where: str) -> None:
    with pytest.raises(InputError) as caught:
        config_from_dict(table(**raw))
    assert caught.value.where == where and "\n" not in str(caught.value)


@settings(max_examples=examples(200), deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(
                st.sampled_from(["enabled", "voice", "speed", "player", "phrases", "win", "x"]),
                inner,
                max_size=4,
            )
        ),  # fmt: skip
        max_leaves=10,
    )
)
def test_fuzz_the_voice_table_is_read_or_refused_never_crashes(value: object) -> None:
    try:
        voice_from({"voice": value})
    except InputError as exc:
        assert exc.where.startswith("voice") and "\n" not in str(exc)


@needs_espeak
def test_a_language_espeak_ng_lacks_is_one_line(run_cli: RunCli, tmp_path: Path) -> None:
    check_voice(replace(ON, voice="fr"))  # one it has
    path = tmp_path / "table.toml"
    path.write_text(f'{players_toml(SEATS)}[voice]\nenabled = true\nvoice = "xx"\n')
    status, out, err = run_cli("voice", "test", "--config", str(path), "--no-sound")
    assert status == 2 and out == ""
    assert err.splitlines() == [
        f"companion: {path}: voice.voice: espeak-ng has no voice 'xx' (see espeak-ng --voices)"
    ]


def test_a_missing_espeak_or_player_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="nothing-here is not installed"):
        check_voice(ON, espeak="nothing-here")
    if HAS_ESPEAK:
        with pytest.raises(ConfigError, match="voice.player: 'no-such-player' is not installed"):
            open_voice(replace(ON, player=("no-such-player",)), SEATS)
    assert open_voice(VoiceConfig(), SEATS) is None  # off: nothing is checked or rendered


@needs_espeak
def test_voice_test_lists_every_phrase_for_the_tables_seats(
    run_cli: RunCli, tmp_path: Path
) -> None:
    path = tmp_path / "table.toml"
    path.write_text(players_toml(("zoe", "max", "ida")))
    status, out, err = run_cli("voice", "test", "--config", str(path), "--no-sound")
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("note: [voice] is off")
    assert (
        "listed: zoe (" in out and "listed: bad chomp, max (" in out and "listed: ink out (" in out
    )
    status, again, _ = run_cli("voice", "test", "--config", str(path), "--no-sound")
    assert "0 phrases rendered now" in again  # the cache from the first run


# -- the bench -----------------------------------------------------------------------------------


def test_bench_referee_reports_decision_to_voice_start(run_cli: RunCli) -> None:
    status, out, _ = run_cli("bench", "referee", "--json", "--trials", "5", "--latency-trials", "5")
    report = json.loads(out)
    assert status == 0
    figure = report["decision_to_voice_start_ms"]
    assert set(figure) >= {"p50", "p99"} and 0 <= figure["p50"] <= figure["p99"]
    assert report["voice_sink"] == "null"
    assert report["goals"]["decision_to_voice_start_ms_p99"] == 50


# -- signals without colour ----------------------------------------------------------------------


def rhythm(pattern: Pattern) -> tuple[tuple[bool, float], ...]:
    """What one LED shows with the colour taken away: runs of on/off, from the first on."""
    runs: list[tuple[bool, float]] = []
    for level, secs in pattern.steps:
        lit = level > 0
        if runs and runs[-1][0] == lit:
            runs[-1] = (lit, round(runs[-1][1] + secs, 3))
        elif secs > 0 or not pattern.repeat:
            runs.append((lit, round(secs, 3)))
    if pattern.repeat and runs and not runs[0][0]:
        runs = runs[1:] + runs[:1]  # a loop: start it where the light comes on
        if len(runs) > 1 and runs[0][0] == runs[-1][0]:
            runs = [(runs[0][0], round(runs[0][1] + runs[-1][1], 3)), *runs[1:-1]]
    return (*runs, (pattern.repeat, 0.0))


def test_signals_without_colour_every_led_pattern_differs_on_any_table() -> None:
    """hardware/SIGNALS.md read colour-blind: on a table of 1 to 8 LEDs, what one LED does
    for a signal never looks like another signal's (ink-out's chase on two LEDs used to
    blink exactly as bad_chomp does, red against blue)."""
    shown: dict[tuple[tuple[bool, float], ...], Signal] = {}
    for signal in Signal:
        if signal is Signal.UNSTUCK:  # "off", as ready and reveal leave a player's LED
            continue
        for count in range(1, 9):
            for position in range(count):
                seen = rhythm(pattern_for(signal, position, count))
                if signal in (Signal.READY, Signal.REVEAL):
                    continue  # the status LED tells these apart (STATUS_PATTERNS)
                assert shown.setdefault(seen, signal) is signal, (signal, shown[seen], count)


def test_signals_without_colour_no_two_signals_share_pattern_and_sound_of_bad_chomp() -> None:
    """A fault and a bad chomp were both red, three low beeps, fast blinks."""
    assert outputs.SOUNDS[Signal.FAULT] != outputs.SOUNDS[Signal.BAD_CHOMP]
    assert outputs.SOUNDS[Signal.FAULT] != outputs.SOUNDS[Signal.BITTEN]


def test_okabe_ito_palette_colours_an_rgb_led(opened: OpenedFactory) -> None:
    assert set(PALETTE_NAMES) == set(PALETTES)
    assert set(PALETTES["okabe-ito"]) == set(Signal)
    table = TableOutputs(
        {"ann": LedConfig(LedKind.RGB, (5, 6, 13))}, None, None, opened, "okabe-ito"
    )
    try:
        table.render([Cue(Signal.BAD_CHOMP, "ann")])
        shown = tuple(float(opened.factory.pin(p).state) for p in (5, 6, 13))
        assert shown == pytest.approx(PALETTES["okabe-ito"][Signal.BAD_CHOMP])  # vermillion
        assert shown != pytest.approx(PALETTES["standard"][Signal.BAD_CHOMP])
    finally:
        table.close()


def test_the_pinmap_example_voice_and_leds_tables_read_once_uncommented() -> None:
    """The commented example, uncommented as a maker would, is a table the config reads."""
    text = (ROOT / "hardware" / "pinmap.example.toml").read_text("utf-8")
    start = text.index("# [voice]")
    block = text[start:]
    tables = "\n".join(line.removeprefix("# ") for line in block.splitlines())
    tables = "\n".join(line for line in tables.splitlines() if not line.startswith("#"))
    config = config_from_dict({**table(), **tomllib.loads(tables)})
    assert config.voice.enabled and config.palette == "okabe-ito"
