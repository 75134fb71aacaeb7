"""The referee's round flow as a declared state machine, with time as an input.

Nothing here reads a clock, sleeps or touches a pin: every call carries ``now_ns`` (the
host's monotonic time) and every edge carries the stamp the hardware gave it, so a race
between two presses 3 us apart is tested by writing down two numbers. The caller (the
daemon) feeds edges, reveals and cards in, calls :meth:`Referee.tick` at
:meth:`Referee.next_deadline`, and renders the cues, writes the journal entries and shows
the messages it gets back in a :class:`RefereeStep`.

Round flow (C4-C12)::

    ready --start--> countdown --reveal--> revealed --decide--> ready | over
    ready --reveal (button)--> revealed

A round is decided at the earliest valid slap + tie window + a settle margin for presses
still in flight; presses are ordered by stamp, never by arrival, and the verdict waits for
the cards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from companion.errors import InputError, RuleError
from companion.games.chomp import (
    CARD_NAMES,
    MODE_NAMES,
    ChompGame,
    Hand,
    Outcome,
    Round,
    RoundResult,
    Slap,
    TwoPlayerEnd,
    Verdict,
    can_still_be_won,
    judge,
)
from companion.referee.cues import cues_for_verdict
from companion.referee.journal import (
    JournalEntry,
    JournalRound,
    StartEntry,
    VerdictEntry,
    abandon_entry,
    cards_entry,
    edge_entry,
    journal_rounds,
    resume_entry,
    reveal_entry,
    round_entry,
    source_entry,
)
from companion.referee.tie_window import effective_tie_window_us
from companion.signals import ButtonEdge, Cue, RevealBy, RevealStamp, Signal, SourceInfo

ALREADY_DUE = -(2**63)  # a deadline that has passed on any clock
RECENT_SLACK_NS = 1_000_000_000  # a reveal stamp may reach the referee this late
RECENT_PER_PLAYER = 32  # presses kept per player between rounds (lockout makes it ~5)


class Phase(StrEnum):
    READY = "ready"  # between rounds
    COUNTDOWN = "countdown"  # beeping; the round is open, presses now are false starts
    REVEALED = "revealed"  # cards are up: slaps race, cards are entered
    OVER = "over"


class Event(StrEnum):
    START = "start"
    REVEAL = "reveal"
    DECIDE = "decide"
    FINISH = "finish"
    ABANDON = "abandon"  # restarted while counting down: the round is played again


# The whole flow in one place; any other move is a bug and raises.
TRANSITIONS: dict[tuple[Phase, Event], Phase] = {
    (Phase.READY, Event.START): Phase.COUNTDOWN,
    (Phase.READY, Event.REVEAL): Phase.REVEALED,
    (Phase.COUNTDOWN, Event.REVEAL): Phase.REVEALED,
    (Phase.COUNTDOWN, Event.ABANDON): Phase.READY,
    (Phase.REVEALED, Event.DECIDE): Phase.READY,
    (Phase.REVEALED, Event.FINISH): Phase.OVER,
}


class EdgeUse(StrEnum):
    """What became of an edge; journalled with it so the audit can show every press."""

    PRESS = "press"  # a press in an open round
    RELEASE = "release"
    BOUNCE = "bounce"  # within the lockout of the previous press of that button
    STUCK = "stuck"  # the button is held down: ignored until released
    BETWEEN_ROUNDS = "between_rounds"  # no round open
    NOT_PLAYING = "not_playing"  # the player is out of the game


@dataclass(frozen=True)
class Timing:
    """The referee's timing settings, in nanoseconds."""

    tie_window_us: int
    settle_ns: int
    lockout_ns: int
    stuck_ns: int
    round_timeout_ns: int
    end_ns: int  # rounds nobody can win any more end this long after the reveal (C12a)
    countdown_beeps: int
    countdown_interval_ns: int

    @classmethod
    def from_ms(
        cls,
        tie_window_us: int,
        settle_ms: float = 5,
        lockout_ms: float = 150,
        stuck_ms: float = 2000,
        round_timeout_s: float = 10,
        end_ms: float = 1000,
        countdown_beeps: int = 3,
        countdown_interval_ms: float = 600,
    ) -> Timing:
        ms = 1_000_000
        return cls(
            tie_window_us,
            int(settle_ms * ms),
            int(lockout_ms * ms),
            int(stuck_ms * ms),
            int(round_timeout_s * 1000 * ms),
            int(end_ms * ms),
            countdown_beeps,
            int(countdown_interval_ms * ms),
        )


@dataclass
class ButtonState:
    down_since_ns: int | None = None
    last_press_ns: int | None = None
    last_release_ns: int | None = None

    def in_lockout(self, stamp_ns: int, lockout_ns: int) -> bool:
        """Contacts bounce on the way down and on the way up: one press per lockout."""
        last = [t for t in (self.last_press_ns, self.last_release_ns) if t is not None]
        return bool(last) and 0 <= stamp_ns - max(last) < lockout_ns

    stuck: bool = False


@dataclass
class OpenRound:
    number: int
    opened_ns: int
    reveal_ns: int | None = None
    presses: list[tuple[str, int]] = field(default_factory=list)  # (player, stamp_ns)
    cards: dict[str, Hand] | None = None
    beeps_left: int = 0
    next_beep_ns: int | None = None
    restored: bool = False  # carried over from a journal: its deadlines have passed

    def slaps(self) -> tuple[Slap, ...]:
        """Presses as microseconds after the reveal (floor: 1 ns early is a false start)."""
        assert self.reveal_ns is not None
        return tuple(Slap(p, (stamp - self.reveal_ns) // 1000) for p, stamp in self.presses)


@dataclass
class RefereeStep:
    """What one input produced, for the daemon to act on."""

    cues: list[Cue] = field(default_factory=list)
    journal: list[JournalEntry] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    result: RoundResult | None = None

    def extend(self, other: RefereeStep) -> None:
        self.cues.extend(other.cues)
        self.journal.extend(other.journal)
        self.messages.extend(other.messages)
        self.result = other.result or self.result


class Referee:
    """One CHOMP! game refereed round by round."""

    def __init__(self, game: ChompGame, timing: Timing, sources: list[SourceInfo]) -> None:
        self.game = game
        self.timing = timing
        self.sources = sources
        self.tie_window_us, self.window_warning = effective_tie_window_us(
            timing.tie_window_us, sources
        )
        game.tie_window_us = self.tie_window_us
        self.phase = Phase.OVER if game.over else Phase.READY
        self.buttons = {p: ButtonState() for p in game.players}
        self.round: OpenRound | None = None
        self.rounds_played = 0
        # Presses between rounds, per player, the latest beat of them (C18: a reveal button's
        # round counts each player's first press in the beat before it, however many).
        self._recent: dict[str, list[int]] = {}
        self.last_cards: dict[str, Hand] = {}  # the cards of the last decided round
        self._provisional: tuple[tuple[int, int, int, int], Verdict] | None = None

    # ---------------------------------------------------------------- the flow ---------

    def _go(self, event: Event) -> None:
        try:
            self.phase = TRANSITIONS[(self.phase, event)]
        except KeyError:
            raise RuleError(f"cannot {event} while {self.phase}") from None

    def start_info(self) -> StartEntry:
        """The journal's first entry: who plays, how, and how precise the clocks are."""
        return StartEntry(
            type="start",
            version=1,
            players=list(self.game.players),
            mode=str(self.game.mode),
            two_player_end=str(self.game.two_player_end),
            deal=dict(self.game.counts),
            tie_window_us=self.timing.tie_window_us,
            effective_tie_window_us=self.tie_window_us,
            sources=[source_entry(s) for s in self.sources],
            lockout_ms=self.timing.lockout_ns / 1e6,
            settle_ms=self.timing.settle_ns / 1e6,
        )

    def _open(self, now_ns: int) -> OpenRound:
        self.round = OpenRound(self.rounds_played + 1, now_ns)
        return self.round

    def start_countdown(self, now_ns: int) -> RefereeStep:
        """Open a round and begin the beeps; the reveal comes at the end of the countdown."""
        self._go(Event.START)
        rnd = self._open(now_ns)
        rnd.beeps_left = self.timing.countdown_beeps
        rnd.next_beep_ns = now_ns
        step = RefereeStep(cues=[Cue(Signal.READY)])
        step.journal.append(round_entry(rnd.number, str(self.game.mode), rnd.opened_ns))
        step.extend(self.tick(now_ns))
        return step

    def reveal(self, reveal: RevealStamp) -> RefereeStep:
        """A reveal button or key: the round opens (if need be) and the cards are up."""
        if self.phase is Phase.OVER:
            return RefereeStep(messages=["the game is over"])
        if self.phase is not Phase.READY:
            return RefereeStep()  # the cards are already up (or the countdown will reveal them)
        # C4 with a reveal button: a press in the beat before the reveal is a false start,
        # as a press during the countdown's beeps would be.
        rnd = self._open(reveal.stamp_ns - self.timing.countdown_interval_ns)
        step = RefereeStep(
            cues=[Cue(Signal.READY)],
            journal=[round_entry(rnd.number, str(self.game.mode), rnd.opened_ns)],
        )
        for player, stamps in self._recent.items():
            early = [t for t in stamps if t >= rnd.opened_ns]
            if early and player in self.game.active:
                stamp = min(early)  # C18: the first press is the false start
                rnd.presses.append((player, stamp))
                entry = edge_entry(rnd.number, player, True, stamp, "recount", -1, EdgeUse.PRESS)
                step.journal.append(entry)
        self._recent.clear()
        step.extend(self._reveal_now(reveal.stamp_ns, reveal.how))
        return step

    def _reveal_now(self, stamp_ns: int, how: RevealBy) -> RefereeStep:
        assert self.round is not None
        self._go(Event.REVEAL)
        self.round.reveal_ns = stamp_ns
        self.round.next_beep_ns = None
        entry = reveal_entry(self.round.number, stamp_ns, how)
        return RefereeStep(cues=[Cue(Signal.REVEAL)], journal=[entry])

    def on_edge(self, edge: ButtonEdge, now_ns: int) -> RefereeStep:
        """A button edge, stamped at the hardware. Order of arrival does not matter."""
        button = self.buttons.get(edge.player)
        if button is None:
            return RefereeStep(messages=[f"edge from unknown player {edge.player!r} ignored"])
        step = RefereeStep()
        if not edge.pressed:
            use = EdgeUse.RELEASE
            button.down_since_ns = None
            button.last_release_ns = edge.stamp_ns
            if button.stuck:
                button.stuck = False
                step.cues.append(Cue(Signal.UNSTUCK, edge.player))
                step.messages.append(f"{edge.player}'s button is released")
        elif button.stuck:
            use = EdgeUse.STUCK
        elif button.in_lockout(edge.stamp_ns, self.timing.lockout_ns):
            use = EdgeUse.BOUNCE
            if button.down_since_ns is None:
                # A bounce is still contact: a button that bounced on its way down (or up)
                # and stays down is held from here, and is flagged stuck like any other.
                button.down_since_ns = edge.stamp_ns
        else:
            button.last_press_ns = edge.stamp_ns
            button.down_since_ns = edge.stamp_ns
            rnd = self.round
            in_round = (
                rnd is not None
                and not rnd.restored  # its stamps are from before the restart
                and self.phase in (Phase.COUNTDOWN, Phase.REVEALED)
                and edge.stamp_ns >= rnd.opened_ns
            )
            if edge.player not in self.game.active:
                use = EdgeUse.NOT_PLAYING
            elif in_round:
                use = EdgeUse.PRESS
                assert rnd is not None
                rnd.presses.append((edge.player, edge.stamp_ns))
            else:
                use = EdgeUse.BETWEEN_ROUNDS
                self._remember(edge.player, edge.stamp_ns, now_ns)
        n = self.round.number if self.round else None
        step.journal.append(
            edge_entry(n, edge.player, edge.pressed, edge.stamp_ns, edge.source, edge.seq, use)
        )
        step.extend(self.tick(now_ns))
        return step

    def _remember(self, player: str, stamp_ns: int, now_ns: int) -> None:
        """Keep a press between rounds while it could still fall in a reveal button's beat:
        older ones go, and a player's presses are capped (the earliest are kept, C18)."""
        horizon = max(now_ns, stamp_ns) - self.timing.countdown_interval_ns - RECENT_SLACK_NS
        for who in list(self._recent):
            kept = [t for t in self._recent[who] if t >= horizon]
            if kept:
                self._recent[who] = kept
            else:
                del self._recent[who]
        stamps = self._recent.setdefault(player, [])
        if len(stamps) < RECENT_PER_PLAYER:
            stamps.append(stamp_ns)
        elif stamp_ns < max(stamps):
            stamps[stamps.index(max(stamps))] = stamp_ns

    def set_cards(
        self,
        cards: Mapping[str, Hand],
        now_ns: int,
        source: str | None = None,
        frames_ns: Sequence[int] = (),
        asked: Sequence[str] = (),
    ) -> RefereeStep:
        """The cards of the open round (typed or read); replaces any earlier entry.
        ``source``, ``frames_ns`` and ``asked`` are only journalled (where they came from)."""
        if self.round is None or self.phase not in (Phase.COUNTDOWN, Phase.REVEALED):
            raise RuleError("no round is open for cards")
        seated = {p: cards[p] for p in self.game.active if p in cards}
        self.game.check_round(Round(seated, ()))
        self.round.cards = seated
        shown = {p: [str(c) for c in hand] for p, hand in seated.items()}
        seated_asked = [p for p in asked if p in seated]
        entry = cards_entry(self.round.number, shown, source, frames_ns, seated_asked)
        step = RefereeStep(journal=[entry])
        step.extend(self.tick(now_ns))
        return step

    # ---------------------------------------------------------------- time -------------

    def _decision_due_ns(self) -> int | None:
        """When the open round's verdict becomes final, given what is known now."""
        rnd = self.round
        if self.phase is not Phase.REVEALED or rnd is None or rnd.cards is None:
            return None
        assert rnd.reveal_ns is not None
        if rnd.restored:
            return ALREADY_DUE  # its time ran out before the restart
        verdict = self._judge(rnd)
        if verdict.decided_at_us is not None:
            return rnd.reveal_ns + verdict.decided_at_us * 1000 + self.timing.settle_ns
        if verdict.outcome is Outcome.NO_WINNER and self._winnable(rnd):
            return rnd.reveal_ns + self.timing.round_timeout_ns
        # C12a: nobody can win it any more (the cards decide it, or everyone who may chomp
        # has pressed already): it ends a short grace after the reveal, for late bad chomps.
        return rnd.reveal_ns + self.timing.end_ns

    def _winnable(self, rnd: OpenRound) -> bool:
        assert rnd.cards is not None
        return can_still_be_won(
            self.game.mode, rnd.cards, rnd.slaps(), self.tie_window_us, self.game.previous
        )

    def _judge(self, rnd: OpenRound) -> Verdict:
        """The verdict on what is known now; cached until a press or the cards change."""
        assert rnd.cards is not None
        key = (rnd.number, len(rnd.presses), id(rnd.cards), self.tie_window_us)
        if self._provisional is None or self._provisional[0] != key:
            verdict = judge(
                self.game.mode, rnd.cards, rnd.slaps(), self.tie_window_us, self.game.previous
            )
            self._provisional = (key, verdict)
        return self._provisional[1]

    def first_cue(self, now_ns: int) -> Cue | None:
        """The most urgent cue of a verdict that is due now, before any bookkeeping.

        The daemon shows it at once (the winner's LED) and then lets :meth:`tick` settle
        the round, whose cues begin with this same cue.
        """
        due = self._decision_due_ns()
        if due is None or now_ns < due:
            return None
        assert self.round is not None
        return cues_for_verdict(self._judge(self.round), (), False, None)[0]

    def next_deadline(self) -> int | None:
        """The next instant at which :meth:`tick` has something to do."""
        times = [
            b.down_since_ns + self.timing.stuck_ns
            for b in self.buttons.values()
            if b.down_since_ns is not None and not b.stuck
        ]
        if self.round is not None and self.round.next_beep_ns is not None:
            times.append(self.round.next_beep_ns)
        due = self._decision_due_ns()
        if due is not None:
            times.append(due)
        return min(times) if times else None

    def waiting_for_cards(self) -> bool:
        return self.phase is Phase.REVEALED and self.round is not None and self.round.cards is None

    def tick(self, now_ns: int) -> RefereeStep:
        step = RefereeStep()
        for player, button in self.buttons.items():
            if (
                button.down_since_ns is not None
                and not button.stuck
                and now_ns - button.down_since_ns >= self.timing.stuck_ns
            ):
                button.stuck = True
                step.cues.append(Cue(Signal.STUCK, player))
                step.messages.append(f"{player}'s button is stuck down: ignored until released")
        rnd = self.round
        while (
            self.phase is Phase.COUNTDOWN
            and rnd is not None
            and rnd.next_beep_ns is not None
            and now_ns >= rnd.next_beep_ns
        ):
            if rnd.beeps_left > 0:
                rnd.beeps_left -= 1
                step.cues.append(Cue(Signal.COUNTDOWN))
                rnd.next_beep_ns += self.timing.countdown_interval_ns
            else:
                # The reveal instant is when the reveal cue is given, not when it was due.
                step.extend(self._reveal_now(now_ns, RevealBy.COUNTDOWN))
        due = self._decision_due_ns()
        if due is not None and now_ns >= due:
            step.extend(self._decide())
        return step

    def _decide(self) -> RefereeStep:
        rnd = self.round
        assert rnd is not None and rnd.cards is not None
        slaps = rnd.slaps()
        result = self.game.play(Round(rnd.cards, slaps))
        early = frozenset(s.player for s in slaps if s.t_us < 0)  # C4: a false start
        self.rounds_played = rnd.number
        self.last_cards = dict(rnd.cards)
        self._go(Event.FINISH if self.game.over else Event.DECIDE)
        self.round = None
        game = self.game
        entry = VerdictEntry(
            type="verdict",
            n=rnd.number,
            verdict=result.verdict.to_dict(),
            cards=dict(game.counts),
            pot=game.pot,
            out=list(game.out),
            over=game.over,
            winner=game.winner,
            mode=str(game.mode),
        )
        cues = cues_for_verdict(
            result.verdict, result.went_out, self.game.over, self.game.winner, early
        )
        return RefereeStep(cues=cues, journal=[entry], result=result)

    # ---------------------------------------------------------------- restart ----------

    @classmethod
    def from_journal(
        cls, entries: list[JournalEntry], timing: Timing, sources: list[SourceInfo]
    ) -> tuple[Referee, list[JournalEntry], list[str]]:
        """Rebuild a game from its journal after a crash or a power cut.

        Every round goes through the declared transitions it went through at the table,
        and every decided round is replayed through the same engine call it was decided
        by; a round that was revealed but not decided is carried over with its presses,
        and is decided as soon as its cards are known (its time ran out while the power
        was off). A round still counting down is abandoned. Returns the referee, the
        entries to append (the resume marker) and messages for the table.
        """
        start = entries[0]
        if start["type"] != "start":
            raise InputError("line 1", "a journal starts with a 'start' entry")
        game = ChompGame.new(
            start["players"],
            MODE_NAMES[start["mode"]],
            TwoPlayerEnd(start["two_player_end"]),
            deal=start["deal"],
        )
        referee = cls(game, timing, sources)
        messages: list[str] = []
        for past in journal_rounds(entries):
            if not past.abandoned:
                messages += referee._replay(past)
        referee.tie_window_us = game.tie_window_us = effective_tie_window_us(
            timing.tie_window_us, sources
        )[0]
        appended: list[JournalEntry] = []
        last = referee.round
        if last is not None and last.reveal_ns is None:
            appended.append(abandon_entry(last.number, "restarted before reveal"))
            messages.append(f"round {last.number} had not been revealed: it is played again")
            referee._go(Event.ABANDON)
            referee.round = None
        elif last is not None:
            last.restored = True
            messages.append(
                f"round {last.number} was revealed before the restart with "
                f"{len(last.presses)} press(es) kept"
                + ("; enter its cards" if last.cards is None else "")
            )
        appended.insert(0, resume_entry(referee.rounds_played, referee.tie_window_us, sources))
        return referee, appended, messages

    def _replay(self, past: JournalRound) -> list[str]:
        """One round of the journal through the flow it took: opened (and counted down),
        revealed, decided; the messages say where the rules disagree with the journal."""
        if self.phase is not Phase.READY:
            where = f"round {self.round.number}" if self.round else "the journal"
            raise InputError(where, f"was never decided, yet round {past.n} follows")
        # Past rounds keep the tie window they were decided with.
        self.tie_window_us = self.game.tie_window_us = past.window_us
        rnd = self.round = OpenRound(past.n, past.opened_ns)
        rnd.presses = past.presses()
        if past.cards is not None:
            rnd.cards = {p: tuple(CARD_NAMES[c] for c in h) for p, h in past.cards.items()}
        if past.reveal_ns is None or past.reveal_how is RevealBy.COUNTDOWN:
            self._go(Event.START)
        if past.reveal_ns is not None:
            self._go(Event.REVEAL)
            rnd.reveal_ns = past.reveal_ns
        if past.verdict is None:
            return []
        step = self._decide()
        assert step.result is not None
        if step.result.verdict.to_dict() != past.verdict:
            return [
                f"round {past.n}: the journal's verdict differs from the rules' "
                "verdict; the rules' verdict is kept (see companion chomp audit)"
            ]
        return []
