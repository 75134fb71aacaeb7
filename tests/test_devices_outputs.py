"""LEDs and buzzer on mock pins: cues show at once, timed patterns play in the background.

Only the first step of a pattern is checked synchronously; later steps are either checked
on a Track with a made-up clock, or by a bounded poll with a generous timeout, never by
asserting exact timings.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from gpiozero import LED, PWMLED, RGBLED, TonalBuzzer
from gpiozero.pins.mock import MockFactory
from gpiozero.tones import Tone

from companion.devices import outputs
from companion.devices.outputs import (
    COLOURS,
    LED_PATTERNS,
    OFF,
    ON,
    SOUND_GAP_S,
    SOUNDS,
    TableOutputs,
    Track,
    pattern_for,
    sound_for,
)
from companion.devices.pins import OpenedFactory
from companion.devices.wiring import BuzzerConfig, BuzzerKind, LedConfig, LedKind
from companion.errors import HardwareError
from companion.signals import Cue, Signal, TimingClass

WaitFor = Callable[..., bool]  # the conftest fixture: poll until true, or fail

ROOT = Path(__file__).resolve().parent.parent
PLAYER_SIGNALS = (
    Signal.WIN,
    Signal.FRENZY,
    Signal.BAD_CHOMP,
    Signal.TIE,
    Signal.ELIMINATED,
    Signal.GAME_OVER,
    Signal.STUCK,
)


def plain(pin: int) -> LedConfig:
    return LedConfig(LedKind.PLAIN, (pin,))


@pytest.fixture
def make(opened: OpenedFactory) -> Iterator[Callable[..., TableOutputs]]:
    """Build TableOutputs on the mock factory; every one is closed after the test."""
    made: list[TableOutputs] = []

    def build(
        players: dict[str, LedConfig | None],
        buzzer: BuzzerConfig | None = None,
        status: LedConfig | None = None,
    ) -> TableOutputs:
        table = TableOutputs(players, buzzer, status, opened)
        made.append(table)
        return table

    yield build
    for table in made:
        table.close()


def level(opened: OpenedFactory, pin: int) -> float:
    return float(opened.factory.pin(pin).state)


# What each cue shows at once ---------------------------------------------------------


def test_win_lights_the_winners_led_before_render_returns(
    opened: OpenedFactory, make: Callable[..., TableOutputs]
) -> None:
    table = make({"ann": plain(5), "bob": plain(6)})
    table.render([Cue(Signal.WIN, "ann")])
    assert level(opened, 5) == 1.0
    assert level(opened, 6) == 0.0


def test_first_cue_reaches_its_pin_first(
    opened: OpenedFactory, make: Callable[..., TableOutputs]
) -> None:
    table = make({"ann": plain(5), "cat": plain(13)})
    table.render([Cue(Signal.WIN, "ann"), Cue(Signal.BAD_CHOMP, "cat")])
    ann, cat = opened.factory.pin(5), opened.factory.pin(13)
    assert ann.state and cat.state
    assert ann._last_change <= cat._last_change


def test_bad_chomp_blinks_in_the_background(
    wait_for: WaitFor, opened: OpenedFactory, make: Callable[..., TableOutputs]
) -> None:
    table = make({"cat": plain(13)})
    table.render([Cue(Signal.BAD_CHOMP, "cat")])  # repeats forever, yet returns
    assert level(opened, 13) == 1.0
    assert any(t.name == "companion-outputs" and t.is_alive() for t in threading.enumerate())
    wait_for(lambda: level(opened, 13) == 0.0)
    wait_for(lambda: level(opened, 13) == 1.0)


def test_later_cue_for_the_same_led_replaces_the_pattern(
    opened: OpenedFactory, make: Callable[..., TableOutputs]
) -> None:
    table = make({"ann": plain(5)})
    table.render([Cue(Signal.WIN, "ann"), Cue(Signal.ELIMINATED, "ann")])
    assert table._players["ann"].track.due is not None  # eliminated's blinks, not steady


def test_ready_clears_players_lights_status_and_silences(
    opened: OpenedFactory, make: Callable[..., TableOutputs]
) -> None:
    table = make(
        {"ann": plain(5), "bob": plain(6)},
        BuzzerConfig(18, BuzzerKind.ACTIVE),
        plain(20),
    )
    table.render([Cue(Signal.REVEAL), Cue(Signal.BAD_CHOMP, "ann")])
    assert level(opened, 5) and level(opened, 18)
    table.render([Cue(Signal.READY)])
    assert (level(opened, 5), level(opened, 6), level(opened, 20)) == (0.0, 0.0, 1.0)
    assert level(opened, 18) == 0.0
    assert table._players["ann"].track.due is None  # the blinking stopped


def test_table_signals_show_on_every_led_including_status(
    opened: OpenedFactory, make: Callable[..., TableOutputs]
) -> None:
    table = make({"ann": plain(5), "bob": plain(6)}, status=plain(20))
    for signal in (Signal.ALL_SAME, Signal.NO_WINNER, Signal.COUNTDOWN):
        table.render([Cue(Signal.READY), Cue(signal)])
        assert [level(opened, p) for p in (5, 6, 20)] == [1.0, 1.0, 1.0], signal


def test_reveal_darkens_the_players_so_a_fast_win_still_shows(
    opened: OpenedFactory, make: Callable[..., TableOutputs]
) -> None:
    table = make({"ann": plain(5), "bob": plain(6)}, status=plain(20))
    table.render([Cue(Signal.COUNTDOWN)])
    table.render([Cue(Signal.REVEAL)])
    assert [level(opened, p) for p in (5, 6, 20)] == [0.0, 0.0, 1.0]
    changes = len(opened.factory.pin(5).states)
    table.render([Cue(Signal.WIN, "ann")])  # at once, while the reveal still shows
    assert level(opened, 5) == 1.0
    assert len(opened.factory.pin(5).states) == changes + 1


def test_ink_out_chases_around_the_table(
    wait_for: WaitFor, opened: OpenedFactory, make: Callable[..., TableOutputs]
) -> None:
    table = make({"ann": plain(5), "bob": plain(6), "cat": plain(13)})
    table.render([Cue(Signal.INK_OUT)])
    assert [level(opened, p) for p in (5, 6, 13)] == [1.0, 0.0, 0.0]
    wait_for(lambda: [level(opened, p) for p in (5, 6, 13)] == [0.0, 1.0, 0.0])


def test_war_swaps_even_and_odd_seats(
    wait_for: WaitFor, opened: OpenedFactory, make: Callable[..., TableOutputs]
) -> None:
    table = make({"ann": plain(5), "bob": plain(6)})
    table.render([Cue(Signal.WAR)])
    assert [level(opened, p) for p in (5, 6)] == [1.0, 0.0]
    wait_for(lambda: [level(opened, p) for p in (5, 6)] == [0.0, 1.0])


def test_game_over_lights_the_winner_and_the_status_led(
    opened: OpenedFactory, make: Callable[..., TableOutputs]
) -> None:
    table = make({"ann": plain(5), "bob": plain(6)}, status=plain(20))
    table.render([Cue(Signal.GAME_OVER, "bob")])
    assert [level(opened, p) for p in (5, 6, 20)] == [0.0, 1.0, 1.0]


def test_game_over_draw_lights_every_led(
    opened: OpenedFactory, make: Callable[..., TableOutputs]
) -> None:
    table = make({"ann": plain(5), "bob": plain(6)}, status=plain(20))
    table.render([Cue(Signal.GAME_OVER, None)])
    assert [level(opened, p) for p in (5, 6, 20)] == [1.0, 1.0, 1.0]


def test_stuck_blinks_until_unstuck(
    wait_for: WaitFor, opened: OpenedFactory, make: Callable[..., TableOutputs]
) -> None:
    table = make({"dan": plain(19)})
    table.render([Cue(Signal.STUCK, "dan")])
    assert level(opened, 19) == 1.0
    wait_for(lambda: level(opened, 19) == 0.0)
    table.render([Cue(Signal.UNSTUCK, "dan")])
    assert level(opened, 19) == 0.0
    assert table._players["dan"].track.due is None


# RGB and PWM -------------------------------------------------------------------------


@pytest.mark.parametrize("signal", [s for s in Signal if s is not Signal.UNSTUCK])
def test_rgb_led_gets_the_signals_colour(
    opened: OpenedFactory, make: Callable[..., TableOutputs], signal: Signal
) -> None:
    table = make({}, status=LedConfig(LedKind.RGB, (16, 20, 21)))
    table.render([Cue(signal)])
    assert tuple(level(opened, p) for p in (16, 20, 21)) == pytest.approx(COLOURS[signal])


def test_rgb_player_led_colours_differ_between_win_and_bad_chomp(
    opened: OpenedFactory, make: Callable[..., TableOutputs]
) -> None:
    table = make({"ann": LedConfig(LedKind.RGB, (5, 6, 13))})
    table.render([Cue(Signal.WIN, "ann")])
    assert tuple(level(opened, p) for p in (5, 6, 13)) == (0.0, 1.0, 0.0)
    table.render([Cue(Signal.BAD_CHOMP, "ann")])
    assert tuple(level(opened, p) for p in (5, 6, 13)) == (1.0, 0.0, 0.0)


def test_pwm_led_goes_full_on(opened: OpenedFactory, make: Callable[..., TableOutputs]) -> None:
    table = make({"ann": LedConfig(LedKind.PWM, (5,))})
    table.render([Cue(Signal.WIN, "ann")])
    assert level(opened, 5) == 1.0
    table.render([Cue(Signal.UNSTUCK, "ann")])
    assert level(opened, 5) == 0.0


# Buzzer ------------------------------------------------------------------------------


def test_active_buzzer_beeps_once_for_countdown(
    wait_for: WaitFor, opened: OpenedFactory, make: Callable[..., TableOutputs]
) -> None:
    table = make({}, BuzzerConfig(18, BuzzerKind.ACTIVE))
    table.render([Cue(Signal.COUNTDOWN)])
    assert level(opened, 18) == 1.0
    wait_for(lambda: level(opened, 18) == 0.0)
    assert [s.state for s in opened.factory.pin(18).states][-2:] == [True, False]


def test_passive_buzzer_plays_the_notes(
    wait_for: WaitFor, opened: OpenedFactory, make: Callable[..., TableOutputs]
) -> None:
    table = make({}, BuzzerConfig(18, BuzzerKind.PASSIVE))
    buzzer = opened.factory.pin(18)
    table.render([Cue(Signal.REVEAL)])
    assert buzzer.frequency == pytest.approx(Tone("A6").frequency)
    table.render([Cue(Signal.GAME_OVER, "ann")])  # the fanfare starts at once
    assert buzzer.frequency == pytest.approx(Tone("G5").frequency)
    wait_for(lambda: buzzer.frequency == pytest.approx(Tone("C6").frequency))
    table.render([Cue(Signal.READY)])
    assert buzzer.frequency is None


def test_a_render_without_sounds_leaves_the_buzzer_alone(
    opened: OpenedFactory, make: Callable[..., TableOutputs]
) -> None:
    table = make({"ann": plain(5)}, BuzzerConfig(18, BuzzerKind.ACTIVE))
    table.render([Cue(Signal.REVEAL)])
    table.render([Cue(Signal.STUCK, "ann")])
    assert level(opened, 18) == 1.0  # the reveal beep goes on


def test_sounds_of_one_render_play_in_cue_order_once_each() -> None:
    cues = [
        Cue(Signal.WIN, "ann"),
        Cue(Signal.BAD_CHOMP, "bob"),
        Cue(Signal.BAD_CHOMP, "cat"),
        Cue(Signal.GAME_OVER, "ann"),
    ]
    gap = ((None, SOUND_GAP_S),)
    expected = SOUNDS[Signal.WIN] + gap + SOUNDS[Signal.BAD_CHOMP] + gap + SOUNDS[Signal.GAME_OVER]
    assert sound_for(cues) == expected + ((None, 0.0),)
    assert sound_for([Cue(Signal.STUCK, "ann")]) is None
    assert sound_for([Cue(Signal.READY)]) == ((None, 0.0),)


def test_every_note_is_in_the_passive_buzzers_range(opened: OpenedFactory) -> None:
    buzzer = TonalBuzzer(
        18,
        mid_tone=Tone(outputs.PASSIVE_MID_TONE),
        octaves=outputs.PASSIVE_OCTAVES,
        pin_factory=opened.factory,
    )
    try:
        for sound in SOUNDS.values():
            for note, seconds in sound:
                assert seconds > 0
                if note is not None:
                    buzzer.play(note)  # raises if out of range
    finally:
        buzzer.close()


# Missing and broken devices, closing -------------------------------------------------


def test_missing_devices_are_skipped(
    opened: OpenedFactory, make: Callable[..., TableOutputs], caplog: pytest.LogCaptureFixture
) -> None:
    """A table with no LED, no buzzer and no status LED: every signal, for a seated
    player, for the table and for a stranger, is skipped without a device being made,
    a pin being touched, a pattern being played or a warning being logged."""
    table = make({"ann": None, "bob": None})
    with caplog.at_level(logging.DEBUG, logger="companion.devices.outputs"):
        for signal in Signal:
            table.render([Cue(signal, "ann"), Cue(signal, None), Cue(signal, "zed")])
    assert caplog.records == []  # nothing failed on the way ("could not show ...")
    assert opened.factory.pins == {}  # no pin was ever claimed, so none changed
    assert table._tracks() == []  # and the background thread has nothing to play


def test_missing_player_led_skips_only_that_player(
    opened: OpenedFactory, make: Callable[..., TableOutputs]
) -> None:
    table = make({"ann": None, "bob": plain(6)}, BuzzerConfig(18, BuzzerKind.ACTIVE))
    table.render([Cue(Signal.WIN, "ann"), Cue(Signal.TIE, "bob")])
    assert level(opened, 6) == 1.0
    assert level(opened, 18) == 1.0  # ann still gets her win sound


def test_close_switches_off_and_releases_every_pin(
    opened: OpenedFactory, make: Callable[..., TableOutputs]
) -> None:
    table = make(
        {"ann": plain(5), "bob": LedConfig(LedKind.RGB, (6, 13, 19))},
        BuzzerConfig(18, BuzzerKind.PASSIVE),
        LedConfig(LedKind.PWM, (20,)),
    )
    table.render([Cue(Signal.FRENZY, "ann"), Cue(Signal.GAME_OVER, None)])
    table.close()
    table.close()  # twice is fine
    table.render([Cue(Signal.WIN, "ann")])  # after close: nothing, no error
    assert not any(t.name == "companion-outputs" for t in threading.enumerate())
    f = opened.factory
    reused = [LED(5, pin_factory=f), RGBLED(6, 13, 19, pin_factory=f), PWMLED(18, pin_factory=f)]
    reused.append(PWMLED(20, pin_factory=f))
    for device in reused:
        device.close()


def test_a_device_that_cannot_be_made_is_a_hardware_error_and_leaks_nothing() -> None:
    factory = MockFactory()  # plain MockPin: no PWM
    opened = OpenedFactory(factory, "mock", TimingClass.MOCK, 1)
    try:
        with pytest.raises(HardwareError, match="bob's LED on GPIO6: "):
            TableOutputs({"ann": plain(5), "bob": LedConfig(LedKind.PWM, (6,))}, None, None, opened)
        LED(5, pin_factory=factory).close()  # ann's LED was released
    finally:
        factory.close()
        factory.reset()


def test_a_pin_used_twice_is_a_hardware_error(opened: OpenedFactory) -> None:
    with pytest.raises(HardwareError, match="the buzzer on GPIO5"):
        TableOutputs({"ann": plain(5)}, BuzzerConfig(5), None, opened)


# The patterns as data ----------------------------------------------------------------


def test_every_signal_has_a_distinct_pattern() -> None:
    """UNSTUCK is simply 'off'; every other signal looks different from the rest."""
    shown = {
        s: (pattern_for(s, 0, 4), outputs.STATUS_PATTERNS.get(s))
        for s in Signal
        if s is not Signal.UNSTUCK
    }
    assert len(set(shown.values())) == len(shown)
    assert LED_PATTERNS[Signal.UNSTUCK] == OFF
    assert set(LED_PATTERNS) == set(Signal) == set(COLOURS)


def test_pattern_shapes() -> None:
    assert pattern_for(Signal.WIN) == ON
    eliminated = pattern_for(Signal.ELIMINATED)
    assert not eliminated.repeat and eliminated.steps[-1][0] == 0.0
    assert sum(1 for lvl, _ in eliminated.steps if lvl) == 3
    assert pattern_for(Signal.STUCK).repeat
    assert sum(1 for lvl, _ in pattern_for(Signal.STUCK).steps if lvl) == 2
    frenzy, bad = pattern_for(Signal.FRENZY), pattern_for(Signal.BAD_CHOMP)
    assert frenzy.steps[0][1] < bad.steps[0][1] < pattern_for(Signal.TIE).steps[0][1]
    chase = [pattern_for(Signal.INK_OUT, p, 4) for p in range(4)]
    assert [sum(s for _, s in c.steps) for c in chase] == pytest.approx([0.6 + 0.4] * 4)
    assert pattern_for(Signal.INK_OUT, 0, 1) == LED_PATTERNS[Signal.INK_OUT]


def test_signals_doc_names_every_signal() -> None:
    doc = (ROOT / "hardware" / "SIGNALS.md").read_text(encoding="utf-8")
    for signal in Signal:
        assert f"`{signal.value}`" in doc, signal


# Track: the pattern player, on a made-up clock ---------------------------------------


def play(
    pattern_steps: tuple[tuple[float, float], ...], repeat: bool
) -> tuple[Track[float], list[float]]:
    written: list[float] = []
    track: Track[float] = Track(written.append)
    track.start(pattern_steps, repeat, 0.0)
    return track, written


def test_track_plays_a_one_shot_and_holds_its_last_step() -> None:
    track, written = play(LED_PATTERNS[Signal.ELIMINATED].steps, repeat=False)
    assert written == [1.0]
    t = 0.0
    while (due := track.advance(t)) is not None:
        t = due
    assert written == [1.0, 0.0, 1.0, 0.0, 1.0, 0.0]
    assert t == pytest.approx(4.0)
    assert track.advance(100.0) is None and len(written) == 6


def test_track_repeats_on_the_beat() -> None:
    track, written = play(LED_PATTERNS[Signal.STUCK].steps, repeat=True)
    dues = []
    for _ in range(8):
        due = track.advance(track.due or 0.0)
        assert due is not None
        dues.append(due)
    assert written == [1.0, 0.0, 1.0, 0.0] * 2 + [1.0]
    assert dues[2] == pytest.approx(1.0)  # one period is 1.0 s
    assert dues[6] == pytest.approx(2.0)  # and the beat does not drift


def test_a_late_track_restarts_the_beat_instead_of_catching_up() -> None:
    track, written = play(LED_PATTERNS[Signal.FRENZY].steps, repeat=True)
    due = track.advance(60.0)  # the thread was starved for a minute
    assert written == [1.0, 0.0]  # one step, not six hundred
    assert due == pytest.approx(60.05)


def test_a_zero_length_loop_plays_once() -> None:
    track, written = play(((1.0, 0.0), (0.0, 0.0)), repeat=True)
    assert track.advance(1.0) is None
    assert written == [1.0, 0.0]
