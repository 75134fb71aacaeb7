"""``companion bench camera``: the figures' arithmetic on hand-made rounds, and the
report's shape on a tiny run (never a timed assertion: the speeds are printed, not
checked)."""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("cv2")

from conftest import RunCli  # noqa: E402

from companion.camera.bench import (  # noqa: E402
    GOALS,
    RoundTally,
    bench_camera,
    bench_lines,
    readable_markers,
    summarize,
    tally_round,
)
from companion.camera.synth import FrameTruth  # noqa: E402
from companion.figures import PI4_CORE_RATIO, pi_estimate  # noqa: E402

MS = 1_000_000


def _truth(
    index: int, visible: dict[int, str | None], covered: frozenset[int] = frozenset()
) -> FrameTruth:
    return FrameTruth(index, index * 33 * MS, visible, {}, covered)


def test_a_card_counts_as_readable_after_two_frames_seen_before_any_hand() -> None:
    truths = [
        _truth(0, {1: "ann", 2: "bob", 3: "cat"}),  # before the reveal: not counted
        _truth(1, {1: "ann", 2: "bob"}),
        _truth(2, {1: "ann"}, covered=frozenset({2})),  # a hand over bob's card
        _truth(3, {1: "ann", 2: "bob", 3: "cat"}),  # bob's seen again, after the hand
        _truth(4, {3: None}),  # cat's card between two zones
    ]
    assert readable_markers(truths, reveal_ns=20 * MS) == {1}


def _tally(
    given: dict[str, tuple[str, ...]] | None, complete: bool, readable: set[int]
) -> RoundTally:
    shown = {"ann": [(1, "seal")], "bob": [(2, "shark")], "cat": [(3, "seal")]}
    return tally_round(shown, readable, given, complete, 90.0, 0, 10, flip_ms=60.0)


def test_a_round_read_right_counts_every_card_right_and_its_time() -> None:
    tally = _tally({"ann": ("seal",), "bob": ("shark",), "cat": ("seal",)}, True, {1, 2})
    assert (tally.right, tally.wrong, tally.readable, tally.readable_read) == (3, 0, 2, 2)
    assert tally.complete and tally.reveal_to_cards_ms == 90.0
    assert tally.rest_to_cards_ms == 30.0


def test_a_seat_given_a_card_it_did_not_show_is_wrong_and_its_card_unread() -> None:
    tally = _tally({"ann": ("shark",), "bob": ("shark",), "cat": ("seal",)}, True, {1, 2, 3})
    assert (tally.wrong, tally.right, tally.readable_read) == (1, 2, 2)
    assert not tally.complete  # not a round without typing: ann's card must be put right
    assert tally.reveal_to_cards_ms == 90.0  # the cards did go out then


def test_a_partial_read_at_the_deadline_keeps_the_seats_read_and_is_not_complete() -> None:
    tally = _tally({"ann": ("seal",)}, False, {1, 2})
    assert (tally.right, tally.wrong, tally.readable_read) == (1, 0, 1)
    assert not tally.complete and tally.reveal_to_cards_ms is None
    nothing = _tally(None, False, {1})
    assert (nothing.right, nothing.readable_read, nothing.cards) == (0, 0, 3)


def test_the_summary_adds_the_rounds_up_and_flags_each_goal() -> None:
    good = _tally({"ann": ("seal",), "bob": ("shark",), "cat": ("seal",)}, True, {1, 2, 3})
    partial = _tally({"ann": ("seal",), "bob": ("shark",)}, False, {1, 2, 3})
    spent = [(10 * MS, 20 * MS)] * 50  # 10 ms of the clock, 20 ms of CPU each frame
    report = summarize([good, good, good, partial], spent)
    assert report["wrong_cards"] == 0 and report["pass"]["wrong_cards"]
    assert report["cards_read"] == round(11 / 12, 4) and not report["pass"]["cards_read"]
    assert report["rounds_without_typing"] == 0.75
    assert not report["pass"]["rounds_without_typing"]
    assert report["reveal_to_cards_ms"] == {"p50": 90.0, "p99": 90.0}
    assert report["pass"]["reveal_to_cards_ms_p50"] and report["pass"]["reveal_to_cards_ms_p99"]
    assert report["frames_per_s"] == 50.0 and report["frames_per_s_wall"] == 100.0
    assert report["pass"]["frames_per_s"]
    assert report["pi_estimate_frames_per_s"]["pi4"] == round(50.0 / PI4_CORE_RATIO, 1)
    assert report["goals"] == GOALS


def test_the_pi_estimate_scales_one_rate_by_the_measured_ratio() -> None:
    estimate = pi_estimate(66.0)
    assert estimate["pi4"] == round(66.0 / PI4_CORE_RATIO, 1)
    assert estimate["pi5_low"] == round(2 * 66.0 / PI4_CORE_RATIO, 1)
    assert estimate["pi5_high"] == round(3 * 66.0 / PI4_CORE_RATIO, 1)


def test_a_tiny_run_reports_every_figure_beside_its_goal() -> None:
    report = bench_camera(rounds=3, seed=2)
    assert report["rounds"] == report["reveals"] == 3
    assert report["cards"] >= 6 and report["frames"] > 0
    for figure in ("wrong_cards", "cards_read", "rounds_without_typing", "frames_per_s"):
        assert figure in report and figure in report["goals"] and figure in report["pass"]
    assert set(report["reveal_to_cards_ms"]) == {"p50", "p99"}
    assert report["wrong_cards"] == 0  # the reader asks rather than guesses
    assert "decision_to_led_us" not in report  # not asked for
    lines = bench_lines(report)
    assert any(line.startswith("wrong_cards: 0 (goal 0)") for line in lines)
    assert any("estimate, not measured" in line for line in lines)


@pytest.mark.slow
def test_the_led_is_measured_with_the_camera_reading_and_without_in_one_run() -> None:
    """The reading loop runs in a child process beside the referee's measurement and is
    idle in the other blocks; the figures of both and the change are reported."""
    calls: list[int] = []

    def led(trials: int, rng: random.Random) -> list[float]:
        from companion.tables.chomp.bench import decision_to_led

        calls.append(trials)
        return decision_to_led(trials, rng)[0]

    report = bench_camera(rounds=1, seed=3, led=led, led_trials=8, blocks=2)
    led_report = report["decision_to_led_us"]
    assert calls == [4, 4, 4, 4]
    assert led_report["trials"] == 16 and led_report["camera_frames_read"] > 0
    assert set(led_report["with_camera"]) == set(led_report["without_camera"]) == {"p50", "p99"}
    assert "decision_to_led_us_p99_change" in report["pass"]


def test_the_command_prints_one_json_object(
    run_cli: RunCli, capsys: pytest.CaptureFixture[str]
) -> None:
    result = run_cli("bench", "camera", "--rounds", "2", "--latency-trials", "0", "--json")
    assert result.status == 0, result.err
    report = json.loads(result.out)
    assert report["rounds"] == 2 and report["seed"] == 1
    with pytest.raises(SystemExit) as refused:
        run_cli("bench", "camera", "--rounds", "0")
    assert refused.value.code == 2
    assert "--rounds: from 1 to 100000, not 0" in capsys.readouterr().err
