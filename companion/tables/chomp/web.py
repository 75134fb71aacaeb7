"""CHOMP! on the phones: the scoreboard, the round's cards tapped in, every verdict's picture.

The referee's loop stays the only decision path. This table only *reads* the session (its
status, the LED pins, the journal entries the loop wrote) and *queues* inputs on the
daemon's inbox (start a round, the cards, a slap on a mock pin in the demo), exactly as a
key on the Pi's keyboard does. The loop tells it of a change through the daemon's
``on_step`` hook, chained after whatever hook was there (the demo's deck, the card tags);
the hook only appends the step's journal entries and sets an event, and a publisher
thread of its own draws the state and wakes the pages, so a phone never slows an LED.

Stdlib only (the hub is too): the web server is attached by whoever serves it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from companion import text as gate
from companion.errors import InputError, RuleError
from companion.games.chomp import Card
from companion.games.chomp.text import headline, round_lines
from companion.referee.audit import AuditedRound, PressRow, audit
from companion.referee.core import Phase, RefereeStep
from companion.referee.daemon import Cards, StartRound
from companion.referee.journal import JournalEntry, read_journal
from companion.referee.picture import PHONE_WIDTH, round_svg
from companion.tables.camera import evidence_of, frame_path
from companion.tables.chomp.screen import round_label, seat_cards
from companion.tables.chomp.session import ChompSession
from companion.tables.web.hub import Publisher

log = logging.getLogger(__name__)

CREATURES = [str(card) for card in Card]
KEEP_MESSAGES = 6
HOLD_NS = 50_000_000  # a decision due sooner than this: publish just after it instead


class ChompWebTable:
    """The hub's ``chomp`` table over a running :class:`ChompSession`."""

    name = "chomp"
    history_db: str | None = None  # the database it records into: the History tab reads it
    config_file: Path | None = None  # the table's config: where the page's zones are saved
    table_only = ("zones",)  # the hub takes these only from a page holding no seat

    def __init__(
        self,
        session: ChompSession,
        press: Callable[[str], None] | None = None,
        bots: tuple[str, ...] = (),
    ) -> None:
        """``press``: the demo's slap on a seat's mock pin (None at a real table)."""
        self.session = session
        self.daemon = session.daemon
        self.press = press
        self.bots = bots
        path = session.config.journal
        self.entries: list[JournalEntry] = list(read_journal(path).entries)
        self.messages: list[str] = list(session.messages[-KEEP_MESSAGES:])
        self._audited: dict[int, AuditedRound] = {}
        self._pictures: dict[int, str] = {}
        self._verdicts_seen = -1
        self._sources: list[Mapping[str, object]] = []
        self._went_out: dict[int, tuple[str, ...]] = {}  # round -> who went out (the loop's)
        self.games = 1  # games begun at this table since it opened (new_game adds one)
        self.publisher: Publisher | None = None
        session.new_game_hooks.append(self._game_changed)

    def _game_changed(self) -> None:
        """After the session's new_game (under the loop's lock): the new journal's entries,
        nothing of the old game's rounds, and a new game id for the pages."""
        self.entries = list(read_journal(self.session.config.journal).entries)
        self._audited, self._pictures, self._verdicts_seen = {}, {}, -1
        self._went_out.clear()
        self.games += 1

    # ---------------------------------------------------------------- from the loop ----

    def follow(self, on_change: Callable[[], None]) -> None:
        """Hear of every step of the loop, after the hook already there (chained)."""
        previous = self.daemon.on_step

        def on_step(step: RefereeStep) -> None:
            self.entries.extend(step.journal)
            if step.result is not None and step.result.went_out:
                self._went_out[self.daemon.referee.rounds_played] = step.result.went_out
            if step.messages:
                self.messages = (self.messages + list(step.messages))[-KEEP_MESSAGES:]
            # A press alone changes nothing a page shows (its verdict will): no publish,
            # so nothing runs beside the referee between a slap and its decision.
            if step.cues or step.messages or any(e["type"] != "edge" for e in step.journal):
                on_change()
            if previous is not None:
                previous(step)

        self.daemon.on_step = on_step

    def serve(self, publish: Callable[[str], object]) -> None:
        """Publish through ``publish(name)`` (the hub's) from a thread of its own."""
        self.publisher = Publisher(lambda: publish(self.name), hold=self._hold)
        self.follow(self.publisher.poke)
        if self.session.camera is not None:
            self.session.camera.watchers.append(self._camera_said)

    def _camera_said(self, line: str | None) -> None:
        """The camera read part of a round, asked, failed or saved a round's frame: the
        pages hear of it."""
        if line is not None:
            self.messages = (self.messages + [line])[-KEEP_MESSAGES:]
        if self.publisher is not None:
            self.publisher.poke()

    def _hold(self) -> float:
        """Seconds to wait before publishing: until just after a decision due very soon.

        Read without the daemon's lock (a glance at two numbers; taking the lock is what
        must not happen while the loop decides)."""
        try:
            deadline = self.daemon.referee.next_deadline()
        except RuntimeError:  # the loop changed the buttons under the glance: look again
            return 0.001
        if deadline is None:
            return 0.0
        left = deadline - self.daemon.clock.now_ns()
        return (left + 2_000_000) / 1e9 if left < HOLD_NS else 0.0

    def close(self) -> None:
        if self.publisher is not None:
            self.publisher.stop()

    # ---------------------------------------------------------------- the state -------

    def _rounds(self) -> dict[int, AuditedRound]:
        """Every decided round, judged again from the journal (only when a verdict came)."""
        entries = list(self.entries)
        verdicts = sum(1 for e in entries if e["type"] == "verdict")
        if verdicts != self._verdicts_seen and entries:
            self._audited = {r.n: r for r in audit(entries)}
            self._pictures = {}
            start: Mapping[str, Any] = entries[0]
            self._sources = list(start.get("sources", []))
            self._verdicts_seen = verdicts
        return self._audited

    def picture(self, n: int) -> str:
        """Round ``n``'s picture (referee/picture.py), as ``chomp audit --svg`` draws it but
        laid out for a phone's width, so its smallest text stays 12 px on a 360 px screen."""
        rounds = self._rounds()
        if n not in rounds:
            raise InputError("round", f"no decided round {n} in this game's journal")
        if n not in self._pictures:
            self._pictures[n] = round_svg(rounds[n], self._sources, width=PHONE_WIDTH)
        return self._pictures[n]

    def file(self, path: str) -> tuple[bytes, str]:
        """``round-N.svg``: a past round's picture, for the page's list of rounds;
        ``round-N.jpg``: the camera's frame that gave its cards, markers outlined (no
        secret: everyone at the table saw the cards, so every page may look)."""
        if path == "preview.jpg":
            return self._preview(), "image/jpeg"
        stem, dot, kind = path.partition(".")
        number = gate.number_or_none(stem.removeprefix("round-"), low=0, high=999_999_999)
        if not (
            stem.startswith("round-") and dot and kind in ("svg", "jpg") and number is not None
        ):
            raise InputError("file", f"{path[:40]!r}: ask for round-N.svg or round-N.jpg")
        if kind == "jpg":
            frame = evidence_of(self.session.config.journal, number)
            if frame is None:
                raise InputError("file", f"no camera frame for round {number}")
            return frame, "image/jpeg"
        return self.picture(number).encode(), "image/svg+xml"

    def _preview(self) -> bytes:
        """``preview.jpg``: what the camera sees now, each seat's zone drawn, for setting
        it up. Between rounds only: during one, the picture is the round's business."""
        camera = self.session.camera
        if camera is None:
            raise InputError("file", "this table has no camera")
        with self.daemon.lock:
            phase = self.daemon.referee.phase
        if phase not in (Phase.READY, Phase.OVER):
            raise InputError("file", "the camera's preview is shown between rounds")
        if camera.failed is not None:
            raise InputError("file", camera.failed)
        frame = camera.preview()
        if frame is None:
            raise InputError("file", "no picture from the camera yet: try again")
        return frame

    def _frame(self, n: int) -> str | None:
        """The file name of round ``n``'s camera frame, when there is one."""
        if self.session.camera is None:
            return None
        return f"round-{n}.jpg" if frame_path(self.session.config.journal, n).is_file() else None

    def _camera_state(self, status_round: int, waiting: bool) -> dict[str, Any]:
        """What the page shows of the camera: the seats it read of a round asked in part
        (the phones ask only the others), and the line it ended with if it failed."""
        camera = self.session.camera
        if camera is None:
            return {"on": False, "reading": False, "read": {}, "failed": None, "zones": {}}
        read = camera.prefilled(status_round) if waiting else {}
        return {
            "on": True,
            "reading": waiting and camera.reading_round(status_round),
            "read": {s: list(c) for s, c in read.items()},
            "failed": camera.failed,
            "zones": {z.seat: [list(p) for p in z.polygon] for z in camera.config.zones},
            "saves": self.config_file is not None,  # the page may save dragged zones
        }

    def state(self) -> dict[str, Any]:
        status = self.daemon.status()
        with self.daemon.lock:
            game = self.daemon.referee.game
            sizes = {p: game.hand_size(p) for p in game.active}
        players = [
            {
                "name": p,
                "count": status.counts[p],
                "out": p in status.out,
                "led": self.session.led_level(p),
                "stuck": p in status.stuck,
                "bot": p in self.bots,
            }
            for p in status.counts
        ]
        rounds = self._rounds()
        past = [
            {"n": n, "headline": headline(r.verdict), "frame": self._frame(n)}
            for n, r in sorted(rounds.items())
        ]
        last = rounds[max(rounds)] if rounds else None
        return {
            "phase": str(status.phase),
            "round_label": round_label(status),
            "shown": seat_cards(status),
            "round": status.round,
            "mode": status.mode,
            "pot": status.pot,
            "players": players,
            "over": status.over,
            "winner": status.winner,
            "waiting_for_cards": status.waiting_for_cards,
            "hand_sizes": sizes,
            "cards": status.cards,
            "buzzer": self.session.buzzer_on(),
            "verdict": None if last is None else self._verdict(last),
            "rounds": past,
            "messages": self.messages,
            "simulated": self.press is not None,
            # the demo's deck turns the cards over (with its camera, a card it could not
            # read is asked here as at a real table)
            "deals_cards": self.press is not None and self.session.camera is None,
            "creatures": CREATURES,
            "camera": self._camera_state(status.round, status.waiting_for_cards),
        }

    def _verdict(self, last: AuditedRound) -> dict[str, Any]:
        """The last decided round for people: the terminal's lines, the winner (the only
        seat a page shows as winning), each press's feedback, and the phone's picture."""
        verdict = last.verdict
        presses = sorted(last.presses, key=lambda p: p.t_us)
        return {
            "n": last.n,
            "headline": headline(verdict),
            "lines": round_lines(last.n, verdict, self._went_out.get(last.n, ())),
            "winner": verdict.winner,
            "presses": [press_feedback(p, presses) for p in presses],
            "svg": self.picture(last.n),
            "frame": self._frame(last.n),
        }

    # ---------------------------------------------------------------- from the pages --

    def seats(self) -> list[str]:
        """The players: a page claims one ("this is me") to slap for it and see its view."""
        return [p.name for p in self.session.config.players]

    def seat_of(self, action: Mapping[str, Any]) -> str | None:
        """On the demo a slap speaks for its seat: only the page holding it may slap.
        Anything else (and a slap at a real table, refused anyway) speaks for nobody."""
        player = action.get("player")
        if self.press is None or action.get("type") != "slap" or player not in self.seats():
            return None
        assert isinstance(player, str)
        return player

    def act(self, action: Mapping[str, Any]) -> None:
        kind = action["type"]
        if kind == "start":
            self._start()
        elif kind == "cards":
            self.daemon.put(self._round_cards(action.get("cards")))
        elif kind == "slap":
            self._slap(action.get("player"))
        elif kind == "new_game":
            self._new_game()
        elif kind == "zones":
            self._save_zones(action.get("zones"))
        else:
            raise InputError(
                "type", f"{kind!r}: a CHOMP! table takes start, cards, slap, new_game or zones"
            )

    def _save_zones(self, given: object) -> None:
        """The zones dragged on the code holder's page (fractions of the frame), between
        rounds: checked as the config's are, written into the table's config file as the
        terminal's setup writes them (comments kept, atomic, read back), then read with
        from the next round. Anything wrong is one line and the file is left as it was."""
        from companion.camera.zones import zones_from_config
        from companion.tables.setup.camera import save_zones

        camera = self.session.camera
        if camera is None:
            raise InputError("zones", "this table has no camera")
        if self.config_file is None:
            raise InputError(
                "zones", "this table was opened without a config file: nowhere to save zones"
            )
        with self.daemon.lock:
            phase = self.daemon.referee.phase
        if phase not in (Phase.READY, Phase.OVER):
            raise InputError("zones", "the zones are changed between rounds, not during one")
        seats = self.seats()
        if isinstance(given, Mapping):  # the seats first: no geometry for a flood of names
            for key in given:
                if key not in seats:
                    raise InputError("zones", f"{str(key)[:40]!r} is not a seat at this table")
        zones = zones_from_config(given, "zones")  # through the text gate; Zones' checks
        saved = save_zones(self.config_file, zones)
        camera.set_zones(saved)
        line = f"camera zones saved for {', '.join(z.seat for z in saved) or 'no seat'}"
        self.messages = (self.messages + [f"{line}: read from the next round"])[-KEEP_MESSAGES:]

    def _new_game(self) -> None:
        """New game (the page asked first): between rounds, the same seats; the journal so
        far is kept aside, as ``--new`` does."""
        try:
            lines = self.session.new_game()
        except RuleError as exc:
            raise InputError("type", str(exc)) from None
        self.messages = (self.messages + ["new game from a phone", *lines])[-KEEP_MESSAGES:]

    def game_id(self) -> str:
        """Which game of this table the pages show: a page that sees it change reads the
        whole state again (the rounds start from 1)."""
        return str(self.games)

    def _start(self) -> None:
        with self.daemon.lock:
            referee = self.daemon.referee
            over, phase = referee.game.over, referee.phase
        if over:
            raise InputError("type", "the game is over")
        if phase is not Phase.READY:
            raise InputError("type", f"a round is already under way ({phase})")
        self.daemon.put(StartRound())

    def _round_cards(self, given: object) -> Cards:
        """The round's Cards from the page; when the camera read some seats, the page
        sends only the others, and the round goes in saying which were typed."""
        help_ = self.session.card_help
        if help_ is None:
            return Cards(self._cards(given))
        with self.daemon.lock:
            n = self.daemon.referee.round.number if self.daemon.referee.round else 0
        filled = help_.prefilled(n)
        cards = self._cards(given, filled)
        asked = [p for p in cards if p not in filled or cards[p] != filled[p]]
        return help_.complete(n, cards, asked)

    def _cards(
        self, given: object, filled: Mapping[str, tuple[Card, ...]] | None = None
    ) -> dict[str, tuple[Card, ...]]:
        """The round's cards from the page: every seat in play, as many as it shows (a
        seat the camera read may be left out: its cards are kept)."""
        if not isinstance(given, Mapping):
            raise InputError("cards", "the cards are an object: seat -> list of creatures")
        with self.daemon.lock:
            referee = self.daemon.referee
            waiting = referee.waiting_for_cards()
            sizes = {p: referee.game.hand_size(p) for p in referee.game.active}
        if not waiting:
            raise InputError("cards", "no round is waiting for its cards")
        cards: dict[str, tuple[Card, ...]] = {}
        for player, need in sizes.items():
            if filled and player in filled and player not in given:
                cards[player] = filled[player]
                continue
            hand = given.get(player)
            where = f"cards.{player}"
            if not isinstance(hand, list) or len(hand) != need:
                raise InputError(where, f"{player} shows {need} card{'s' * (need != 1)}")
            for i, name in enumerate(hand):
                if name not in CREATURES:
                    raise InputError(f"{where}[{i}]", f"{name!r} is not a creature")
            cards[player] = tuple(Card(name) for name in hand)
        extra = sorted(set(given) - set(sizes))
        if extra:
            raise InputError(f"cards.{extra[0]}", "not a seat in play this round")
        return cards

    def _slap(self, player: object) -> None:
        if self.press is None:
            raise InputError("type", "slaps come from the buttons at a real table")
        seats = [p.name for p in self.session.config.players]
        if player not in seats:
            raise InputError("player", f"{player!r} is not a seat ({', '.join(seats)})")
        assert isinstance(player, str)
        self.press(player)


def _ms(us: int) -> str:
    return f"{abs(us) / 1000:,.1f} ms"


def _lead_us(press: PressRow, presses: Sequence[PressRow]) -> int | None:
    """The winner's lead: over the next valid slap (the verdict's margin), else over the
    next press of anyone else, whatever it was; None when nobody else pressed after it."""
    if press.margin_us is not None:
        return press.margin_us
    after = [p.t_us for p in presses if p.player != press.player and p.t_us >= press.t_us]
    return min(after) - press.t_us if after else None


def press_feedback(press: PressRow, presses: Sequence[PressRow] = ()) -> dict[str, Any]:
    """One press for the person who made it: counted / too late / bad chomp / false start,
    and by how much (the lead over the next press, or the time behind the first);
    ``presses`` are the round's, for the lead when no other slap was valid."""
    status = press.status
    if status == "winner":
        word = "counted"
        lead_us: int | None = _lead_us(press, presses)
        how = "first: nobody else pressed" if lead_us is None else f"first by {_ms(lead_us)}"
    elif status == "tie" and not press.vs_first_us:  # the first of the tied slaps
        word, lead_us = "counted", _lead_us(press, presses)
        how = "a tie" if lead_us is None else f"a tie, first by {_ms(lead_us)}"
        how += " (inside the tie window)"
    elif status == "tie":
        word, lead_us = "counted", -(press.vs_first_us or 0)
        how = f"a tie, {_ms(lead_us)} after the first (inside the tie window)"
    elif status.startswith("bad chomp"):
        false_start = press.t_us < 0
        word = "false start" if false_start else "bad chomp"
        how = f"{_ms(press.t_us)} {'before' if false_start else 'after'} the reveal"
        lead_us = None
    else:
        word = "not needed" if "needed no slap" in status else "too late"
        lead_us = None if press.vs_first_us is None else -press.vs_first_us
        how = status if lead_us is None else f"{_ms(lead_us)} after the first"
    return {
        "player": press.player,
        "t_us": press.t_us,
        "source": press.source,
        "word": word,
        "lead_us": lead_us,
        "text": f"{word}: {how}",
    }
