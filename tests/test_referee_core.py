"""The referee's round flow with time as an input: races are written down, never slept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import InputError, RuleError
from companion.games.chomp import Card, ChompGame, Outcome, Reason
from companion.referee.clock import ManualClock
from companion.referee.core import TRANSITIONS, Phase, Referee, RefereeStep, Timing
from companion.referee.daemon import Cards, RefereeDaemon, StartRound
from companion.referee.journal import JournalWriter, read_journal
from companion.signals import ButtonEdge, Cue, RevealStamp, Signal, SourceInfo, TimingClass

US = 1_000
MS = 1_000_000
PLAYERS = ("ann", "bob", "cat")
KERNEL = SourceInfo("gpio", TimingClass.KERNEL_EDGE, 20)
SEAL_SHARK: dict[str, tuple[Card, ...]] = {
    "ann": (Card.PLANKTON,),
    "bob": (Card.SEAL,),
    "cat": (Card.SHARK,),
}


def use_of(step: RefereeStep) -> str:
    """What the referee made of the edge a step journalled first."""
    entry = step.journal[0]
    assert entry["type"] == "edge"
    return entry["use"]


def timing(**changes: float) -> Timing:
    base: dict[str, float] = dict(
        tie_window_us=500,
        settle_ms=5,
        lockout_ms=150,
        stuck_ms=2000,
        round_timeout_s=10,
        end_ms=1500,
        countdown_beeps=3,
        countdown_interval_ms=600,
    )
    base.update(changes)
    return Timing.from_ms(**base)  # type: ignore[arg-type]


def referee(**changes: float) -> Referee:
    game = ChompGame.new(PLAYERS, deal=dict.fromkeys(PLAYERS, 10))
    return Referee(game, timing(**changes), [KERNEL])


def press(player: str, stamp_ns: int, seq: int = 0) -> ButtonEdge:
    return ButtonEdge(player, True, stamp_ns, "gpio", seq)


def release(player: str, stamp_ns: int, seq: int = 0) -> ButtonEdge:
    return ButtonEdge(player, False, stamp_ns, "gpio", seq)


def revealed(ref: Referee, at_ns: int = 10 * MS) -> int:
    ref.reveal(RevealStamp(at_ns, "button"))
    assert ref.phase is Phase.REVEALED
    return at_ns


def test_state_machine_is_declared_in_one_table() -> None:
    assert TRANSITIONS[(Phase.READY, "start")] is Phase.COUNTDOWN  # type: ignore[index]
    ref = referee()
    with pytest.raises(RuleError, match="cannot"):
        ref._go("decide")  # type: ignore[arg-type]


def test_countdown_beeps_then_reveals_at_the_last_beat() -> None:
    ref = referee()
    step = ref.start_countdown(0)
    assert [c.signal for c in step.cues] == [Signal.READY, Signal.COUNTDOWN]
    assert ref.next_deadline() == 600 * MS
    assert [c.signal for c in ref.tick(600 * MS).cues] == [Signal.COUNTDOWN]
    assert [c.signal for c in ref.tick(1200 * MS).cues] == [Signal.COUNTDOWN]
    step = ref.tick(1800 * MS + 70 * US)  # the loop woke 70 us late
    assert [c.signal for c in step.cues] == [Signal.REVEAL]
    assert ref.round is not None and ref.round.reveal_ns == 1800 * MS + 70 * US


def test_c4_press_during_countdown_is_a_false_start() -> None:
    ref = referee()
    ref.start_countdown(0)
    ref.on_edge(press("cat", 900 * MS), 900 * MS)  # cat slaps during the beeps
    ref.tick(1800 * MS)
    ref.on_edge(press("bob", 2000 * MS), 2000 * MS)
    step = ref.set_cards(SEAL_SHARK, 2100 * MS)  # past the decision instant: decided now
    assert step.result is not None
    assert step.result.verdict.winner == "bob" and step.result.verdict.bad_chomps == ("cat",)


def test_c5_order_by_stamp_never_by_arrival() -> None:
    ref = referee()
    t0 = revealed(ref)
    ref.set_cards(SEAL_SHARK, t0)
    # cat's press reaches the program first, but bob's edge was stamped 700 us earlier.
    ref.on_edge(press("cat", t0 + 300 * MS + 700 * US), t0 + 300 * MS + 710 * US)
    ref.on_edge(press("bob", t0 + 300 * MS), t0 + 300 * MS + 900 * US)
    step = ref.tick(t0 + 400 * MS)
    assert step.result is not None and step.result.verdict.winner == "bob"


def test_c6_decision_waits_for_window_and_settle_margin_for_presses_in_flight() -> None:
    ref = referee()
    t0 = revealed(ref)
    ref.set_cards(SEAL_SHARK, t0)
    first = t0 + 200 * MS
    ref.on_edge(press("cat", first), first + 40 * US)
    due = first + 500 * US + 5 * MS
    assert ref.next_deadline() == due
    assert ref.tick(due - 1).result is None
    # bob's edge, stamped 300 us after cat's, arrives late but before the decision: a tie.
    ref.on_edge(press("bob", first + 300 * US), due - 1)
    step = ref.tick(due)
    assert step.result is not None and step.result.verdict.outcome is Outcome.TIE


def test_verdict_waits_for_cards_and_no_slap_is_lost_meanwhile() -> None:
    ref = referee()
    t0 = revealed(ref)
    ref.on_edge(press("bob", t0 + 250 * MS), t0 + 250 * MS)
    ref.on_edge(press("ann", t0 + 240 * MS), t0 + 250 * MS)  # ann: plankton, a bad chomp
    assert ref.tick(t0 + 5_000 * MS).result is None and ref.waiting_for_cards()
    assert ref.next_deadline() is None
    step = ref.set_cards(SEAL_SHARK, t0 + 9_000 * MS)  # typed long after: decided at once
    assert step.result is not None
    assert step.result.verdict.winner == "bob" and step.result.verdict.bad_chomps == ("ann",)


def test_bounce_within_lockout_is_ignored_and_the_first_stamp_kept() -> None:
    ref = referee(lockout_ms=150)
    t0 = revealed(ref)
    uses = []
    for i, dt in enumerate((100 * MS, 100 * MS + 80 * US, 100 * MS + 2 * MS, 100 * MS + 149 * MS)):
        edge = press("bob", t0 + dt, i) if i % 2 == 0 else release("bob", t0 + dt, i)
        uses.append(use_of(ref.on_edge(edge, t0 + dt)))
    assert uses == ["press", "release", "bounce", "release"]
    assert ref.round is not None and ref.round.presses == [("bob", t0 + 100 * MS)]


def test_stuck_button_is_flagged_ignored_and_freed_on_release() -> None:
    ref = referee(stuck_ms=2000)
    ref.on_edge(press("ann", 0), 0)
    assert ref.next_deadline() == 2000 * MS
    step = ref.tick(2000 * MS)
    assert Cue(Signal.STUCK, "ann") in step.cues and ref.buttons["ann"].stuck
    assert use_of(ref.on_edge(press("ann", 2500 * MS), 2500 * MS)) == "stuck"
    step = ref.on_edge(release("ann", 3000 * MS), 3000 * MS)
    assert Cue(Signal.UNSTUCK, "ann") in step.cues and not ref.buttons["ann"].stuck


def test_c12_no_valid_slap_ends_at_the_round_timeout() -> None:
    ref = referee(round_timeout_s=10)
    t0 = revealed(ref)
    ref.set_cards(SEAL_SHARK, t0)
    assert ref.next_deadline() == t0 + 10_000 * MS
    step = ref.tick(t0 + 10_000 * MS)
    assert step.result is not None and step.result.verdict.outcome is Outcome.NO_WINNER
    assert Cue(Signal.NO_WINNER) in step.cues


def test_rounds_no_slap_can_win_end_after_end_ms() -> None:
    ref = referee(end_ms=1500)
    t0 = revealed(ref)
    ref.set_cards({"ann": (Card.OCTOPUS,), "bob": (Card.SEAL,), "cat": (Card.SHARK,)}, t0)
    ref.on_edge(press("cat", t0 + 1400 * MS), t0 + 1400 * MS)
    step = ref.tick(t0 + 1500 * MS)
    assert step.result is not None
    assert step.result.verdict.outcome is Outcome.INK_OUT
    assert step.result.verdict.bad_chomps == ("cat",)


def test_feeding_frenzy_cue_and_bad_chomp_cues() -> None:
    ref = referee()
    t0 = revealed(ref)
    ref.set_cards({"ann": (Card.ELECTRIC_EEL,), "bob": (Card.SEAL,), "cat": (Card.SHARK,)}, t0)
    ref.on_edge(press("ann", t0 - 1), t0)  # stamped before the reveal, arriving after
    ref.on_edge(press("bob", t0 + 100 * MS), t0 + 100 * MS)
    step = ref.tick(t0 + 200 * MS)
    assert step.result is not None and step.result.verdict.reason is Reason.FEEDING_FRENZY
    assert step.cues[:2] == [Cue(Signal.FRENZY, "bob"), Cue(Signal.FALSE_START, "ann")]


def test_tie_window_is_raised_to_what_the_sources_can_order() -> None:
    game = ChompGame.new(PLAYERS)
    callback = SourceInfo("gpio", TimingClass.CALLBACK, 5_000)
    ref = Referee(game, timing(tie_window_us=500), [callback])
    assert ref.tie_window_us == 5_000 and "raised from 500 to 5000 us" in ref.window_warning
    two = Referee(game, timing(tie_window_us=10), [KERNEL, SourceInfo("bridge", "mcu_timer", 50)])  # type: ignore[arg-type]
    assert two.tie_window_us == 70
    assert Referee(game, timing(tie_window_us=900), [KERNEL]).window_warning == ""


def test_cards_for_a_player_who_is_out_are_refused() -> None:
    ref = referee()
    revealed(ref)
    with pytest.raises(InputError, match="no card for 'cat'"):
        ref.set_cards({"ann": (Card.SEAL,), "bob": (Card.SHARK,)}, 0)


def test_c4_press_just_before_a_reveal_button_is_a_false_start() -> None:
    ref = referee(countdown_interval_ms=600)
    ref.on_edge(press("ann", 100 * MS), 100 * MS)  # long before: not part of the round
    ref.on_edge(press("cat", 1_900 * MS), 1_900 * MS)  # 100 ms before the reveal
    step = ref.reveal(RevealStamp(2_000 * MS, "button"))
    recounted = [e for e in step.journal if e["type"] == "edge"]
    assert [(e["player"], e["use"]) for e in recounted] == [("cat", "press")]
    ref.on_edge(press("bob", 2_300 * MS), 2_300 * MS)
    step = ref.set_cards(SEAL_SHARK, 3_000 * MS)
    assert step.result is not None and step.result.verdict.bad_chomps == ("cat",)


def test_press_between_rounds_is_journalled_but_not_counted() -> None:
    ref = referee()
    step = ref.on_edge(press("bob", 5 * MS), 5 * MS)
    assert use_of(step) == "between_rounds" and ref.round is None


@pytest.mark.slow
@settings(max_examples=examples(200), deadline=None)
@given(
    stamps=st.lists(
        st.tuples(st.sampled_from(PLAYERS), st.integers(-50_000, 800_000)), min_size=1, max_size=8
    ),
    order=st.randoms(use_true_random=False),
    cards=st.lists(st.sampled_from(list(Card)), min_size=3, max_size=3),
)
def test_any_arrival_order_gives_the_same_verdict(
    stamps: list[tuple[str, int]], order: object, cards: list[Card]
) -> None:
    def run(edges: list[ButtonEdge]) -> object:
        ref = referee(lockout_ms=0)
        t0 = revealed(ref, 10 * MS)
        for e in edges:
            ref.on_edge(e, t0 + 900 * MS)
        step = ref.set_cards(
            dict(zip(PLAYERS, [(c,) for c in cards], strict=True)), t0 + 2 * 10**12
        )
        assert step.result is not None
        return step.result.verdict

    edges = [press(p, 10 * MS + dt * US, i) for i, (p, dt) in enumerate(stamps)]
    shuffled = list(edges)
    order.shuffle(shuffled)  # type: ignore[attr-defined]
    assert run(edges) == run(shuffled)


# ---------------------------------------------------------------- daemon and journal ----


def daemon_game(tmp_path: Path, clock: ManualClock) -> tuple[RefereeDaemon, list[RefereeStep]]:
    ref = referee()
    journal = JournalWriter(tmp_path / "j.jsonl")
    journal.write([ref.start_info()], durable=True)
    steps: list[RefereeStep] = []
    return RefereeDaemon(ref, clock, journal, on_step=steps.append), steps


def play_round(
    d: RefereeDaemon, clock: ManualClock, cards: dict[str, tuple[Card, ...]], slapper: str
) -> None:
    d.put(StartRound())
    d.pump()
    clock.advance(1800 * MS)
    d.pump()  # the reveal
    clock.advance(300 * MS)
    d.edge(press(slapper, clock.now_ns()))
    d.put(Cards(cards))
    clock.advance(10 * MS)
    d.pump()


def test_daemon_plays_rounds_and_journals_every_input(tmp_path: Path) -> None:
    clock = ManualClock()
    d, steps = daemon_game(tmp_path, clock)
    play_round(d, clock, SEAL_SHARK, "cat")
    assert any(s.result and s.result.verdict.winner == "cat" for s in steps)
    types = [e["type"] for e in read_journal(tmp_path / "j.jsonl").entries]
    assert types == ["start", "round", "reveal", "edge", "cards", "verdict"]
    assert d.status().counts == {"ann": 9, "bob": 9, "cat": 12}


def test_daemon_turns_refused_cards_into_a_message_not_a_crash(tmp_path: Path) -> None:
    clock = ManualClock()
    messages: list[str] = []
    d, _ = daemon_game(tmp_path, clock)
    d.notify = messages.append
    d.put(Cards(SEAL_SHARK))  # no round open
    d.pump()
    assert messages == ["no round is open for cards"]


def test_resume_after_a_crash_mid_round_loses_nothing(tmp_path: Path) -> None:
    clock = ManualClock()
    d, _ = daemon_game(tmp_path, clock)
    play_round(d, clock, SEAL_SHARK, "cat")
    # Round 2: revealed, two presses, then the power goes before the cards are typed.
    d.put(StartRound())
    d.pump()
    clock.advance(1800 * MS)
    d.pump()
    clock.advance(250 * MS)
    d.edge(press("bob", clock.now_ns()))
    d.edge(press("ann", clock.now_ns() + 30 * US))
    d.pump()
    assert d.journal is not None
    d.journal.close()  # the process ends mid-round
    with open(tmp_path / "j.jsonl", "ab") as f:
        f.write(b'{"type":"edge","n":2,"pla')  # a line the power cut short

    contents = read_journal(tmp_path / "j.jsonl")
    assert len(contents.warnings) == 1 and "cut short" in contents.warnings[0]
    ref, appended, messages = Referee.from_journal(contents.entries, timing(), [KERNEL])
    assert ref.game.counts == {"ann": 9, "bob": 9, "cat": 12}
    assert ref.phase is Phase.REVEALED and ref.waiting_for_cards()
    assert "2 press(es) kept" in messages[0] and appended[0]["type"] == "resume"
    cards = {"ann": (Card.SHRIMP,), "bob": (Card.SEAL,), "cat": (Card.SHARK,)}
    step = ref.set_cards(cards, 0)  # a new boot: the clock restarted; decided at once
    assert step.result is not None
    assert step.result.verdict.winner == "bob" and step.result.verdict.bad_chomps == ("ann",)


def test_resume_abandons_a_round_that_was_still_counting_down(tmp_path: Path) -> None:
    clock = ManualClock()
    d, _ = daemon_game(tmp_path, clock)
    d.put(StartRound())
    d.pump()
    entries = read_journal(tmp_path / "j.jsonl").entries
    ref, appended, messages = Referee.from_journal(entries, timing(), [KERNEL])
    assert ref.phase is Phase.READY and appended[-1]["type"] == "abandon"
    assert "played again" in messages[0]


def test_journal_damaged_in_the_middle_is_an_error_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    start = referee().start_info()
    path.write_text(json.dumps(start) + "\n{oops\n" + json.dumps({"type": "round"}) + "\n")
    with pytest.raises(InputError, match="line 2"):
        read_journal(path)


def test_journal_fsyncs_at_each_verdict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    monkeypatch.setattr("os.fsync", synced.append)
    clock = ManualClock()
    d, _ = daemon_game(tmp_path, clock)
    before = len(synced)
    play_round(d, clock, SEAL_SHARK, "cat")
    assert len(synced) == before + 1


def test_bounce_on_release_is_not_a_new_press() -> None:
    ref = referee(lockout_ms=150)
    t0 = revealed(ref)
    uses = []
    for i, (pressed, dt) in enumerate(((True, 0), (False, 400 * MS), (True, 400 * MS + 3 * MS))):
        edge = ButtonEdge("bob", pressed, t0 + 100 * MS + dt, "gpio", i)
        uses.append(use_of(ref.on_edge(edge, edge.stamp_ns)))
    assert uses == ["press", "release", "bounce"]


def test_c12a_a_round_whose_chompers_all_false_started_ends_after_the_grace() -> None:
    four = ChompGame.new(("ann", "bob", "cat", "dan"))
    ref = Referee(four, timing(end_ms=1000), [KERNEL])
    ref.on_edge(press("cat", 9 * MS), 9 * MS)  # both who may chomp start too early (C4)
    ref.on_edge(press("dan", 9 * MS + 1), 9 * MS + 1)
    t0 = revealed(ref)
    ref.on_edge(release("cat", t0 + 50 * MS), t0 + 50 * MS)
    ref.on_edge(release("dan", t0 + 50 * MS), t0 + 50 * MS)
    cards = {"ann": (Card.PLANKTON,), "bob": (Card.PLANKTON,)}
    ref.set_cards({**cards, "cat": (Card.SEAL,), "dan": (Card.SHARK,)}, t0 + 200 * MS)
    assert ref.next_deadline() == t0 + 1000 * MS  # not the 10 s round timeout
    step = ref.tick(t0 + 1000 * MS)
    assert step.result is not None
    verdict = step.result.verdict
    assert verdict.outcome is Outcome.NO_WINNER and verdict.bad_chomps == ("cat", "dan")


def test_c12a_cards_typed_after_the_grace_end_an_unwinnable_round_at_once() -> None:
    ref = referee(end_ms=1000)
    t0 = revealed(ref)
    late = t0 + 4000 * MS
    step = ref.set_cards({"ann": (Card.OCTOPUS,), "bob": (Card.SEAL,), "cat": (Card.SHARK,)}, late)
    assert step.result is not None and step.result.verdict.outcome is Outcome.INK_OUT


def test_c12a_a_round_someone_may_still_win_waits_for_the_timeout() -> None:
    ref = referee(end_ms=1000, round_timeout_s=10)
    t0 = revealed(ref)
    ref.on_edge(press("bob", t0 - 5 * MS), t0)  # bob false-starts; cat may still chomp
    ref.on_edge(release("bob", t0 + 50 * MS), t0 + 50 * MS)
    ref.set_cards(SEAL_SHARK, t0 + 60 * MS)
    assert ref.next_deadline() == t0 + 10_000 * MS


@given(
    cards=st.lists(st.sampled_from(list(Card)), min_size=3, max_size=3),
    stamps=st.lists(st.integers(-2000, 3000), min_size=0, max_size=3),
)
@settings(max_examples=examples(300), deadline=None)
def test_c12a_can_still_be_won_agrees_with_judging_one_more_slap(
    cards: list[Card], stamps: list[int]
) -> None:
    from companion.games.chomp import Mode, Slap, can_still_be_won, judge

    hands = {p: (c,) for p, c in zip(PLAYERS, cards, strict=True)}
    slaps = [Slap(p, t) for p, t in zip(PLAYERS, stamps, strict=False)]
    now = judge(Mode.STANDARD, hands, slaps)
    open_ = can_still_be_won(Mode.STANDARD, hands, slaps)
    if now.outcome is not Outcome.NO_WINNER:
        assert not open_
        return
    others = [p for p in PLAYERS if p not in {s.player for s in slaps}]
    wins = [judge(Mode.STANDARD, hands, [*slaps, Slap(p, 5000)]).winner == p for p in others]
    assert open_ == any(wins)
