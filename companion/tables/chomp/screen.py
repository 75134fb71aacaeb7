"""The table's terminal: what the referee shows and what it takes from the keyboard.

Two faces over one :class:`TableView`:

* a full-screen curses view for a person at the table (a Pi's console with a USB keyboard
  or number pad, or any terminal): seats with their LEDs and counts, the buzzer, the
  countdown, the card entry line, the last verdict and the messages;
* a line mode for pipes and scripts (``start``, ``cards ann=seal bob=shark ...``,
  ``status``, ``quit``), used when standard input is not a terminal.

The view only reads the daemon's snapshot and puts inputs on its queue; it never decides.
"""

from __future__ import annotations

import collections
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TextIO

from companion.games.chomp import CARD_NAMES, Hand, RoundResult
from companion.games.chomp.text import does, round_lines
from companion.referee.daemon import Cards, RefereeDaemon, RefereeStatus, Shutdown, StartRound
from companion.signals import RevealStamp
from companion.tables import shell
from companion.tables.chomp.card_entry import LEGEND, CardEntry
from companion.tables.chomp.session import ChompSession


class CardHelp(Protocol):
    """A card source that may have read some seats of a round (the camera): the entry
    is pre-filled with them, and the completed round goes in as one Cards saying so."""

    def prefilled(self, n: int) -> dict[str, Hand]: ...

    def reading(self, n: int) -> bool: ...

    def complete(self, n: int, cards: dict[str, Hand], asked: list[str]) -> Cards: ...


LedState = Callable[[str], float]  # player -> brightness 0..1 (0 when the player has no LED)

QUIT_PROMPT = "Quit? The journal keeps the game (--resume). y / n"
SLAP_RULE = "Slap after the long beep, unless your card is the lowest or an octopus shows."


def status_light(session: ChompSession) -> Callable[[], float] | None:
    """How bright the table's status LED is now, read back from its pins (None without one)."""
    led = session.config.status_led
    if led is None:
        return None
    return lambda: max(float(session.pin(pin).state) for pin in led.pins)


def round_label(status: RefereeStatus) -> str:
    """The header's round: the one in play, else the next one (never "Round 0")."""
    if status.phase in ("countdown", "revealed"):
        return f"Round {status.round}"
    if status.over:
        return f"{status.round} round{'s' if status.round != 1 else ''} played"
    return f"Round {status.round + 1} next"


def seat_cards(status: RefereeStatus) -> dict[str, list[str]]:
    """The cards to show beside the seats: the round's once they are up, else the last
    decided round's, but none during a countdown (those cards are back in the piles)."""
    if status.phase == "countdown" or (status.phase == "revealed" and status.waiting_for_cards):
        return {}
    return status.cards


@dataclass
class TableView:
    """Shared state of the screen: messages, the last verdict, the card entry."""

    daemon: RefereeDaemon
    led: LedState = lambda player: 0.0  # noqa: E731 - a default, not a definition
    buzzer: Callable[[], bool] = lambda: False  # noqa: E731
    slap_keys: dict[str, str] = field(default_factory=dict)  # key -> player (the demo)
    type_cards: bool = True  # False when a card-reveal source supplies them
    demand: Callable[[], None] | None = None  # Enter: a card-reveal source must answer now
    status_led: Callable[[], float] | None = None  # the table's status LED, if it has one
    camera: CardHelp | None = None  # the seats the camera read are kept, the rest typed
    quit_prompt: str = QUIT_PROMPT
    messages: collections.deque[str] = field(default_factory=lambda: collections.deque(maxlen=6))
    last: list[str] = field(default_factory=list)
    entry: CardEntry | None = None
    entry_round: int = 0
    entry_filled: frozenset[str] = frozenset()

    def notify(self, message: str) -> None:
        self.messages.append(message)

    def on_result(self, result: RoundResult) -> None:
        n = self.daemon.referee.rounds_played
        self.last = round_lines(n, result.verdict, result.went_out)

    def ensure_entry(self, status: RefereeStatus) -> CardEntry | None:
        """A fresh card entry for each revealed round that still needs its cards."""
        if not self.type_cards or status.phase != "revealed":
            return None
        filled = self.camera.prefilled(status.round) if self.camera is not None else {}
        if (
            self.entry is None
            or self.entry_round != status.round
            or self.entry_filled != frozenset(filled)
        ):
            game = self.daemon.referee.game
            before = self.entry if self.entry_round == status.round else None
            self.entry = CardEntry([(p, game.hand_size(p)) for p in game.active], filled)
            self.entry_round, self.entry_filled = status.round, frozenset(filled)
            if before is not None:  # the camera's seats came while a person typed: keep
                for player, hand in before.cards().items():  # what was typed for the rest
                    if player in self.entry.asked and player not in before.filled:
                        self.entry.typed.extend(hand)
                del self.entry.typed[self.entry.needed :]
        return self.entry

    def round_cards(self, round_number: int, entry: CardEntry) -> Cards:
        """The round's Cards from the entry: through the camera when it read some seats."""
        if self.camera is not None:
            return self.camera.complete(round_number, entry.cards(), entry.asked)
        return Cards(entry.cards())

    def key(self, key: str, status: RefereeStatus) -> bool:
        """Handle one key; returns False to quit."""
        if key in self.slap_keys:
            return True  # the demo drives the pin itself
        entry = self.ensure_entry(status)
        if key in shell.ENTER_KEYS:
            if entry is not None and entry.complete and status.waiting_for_cards:
                self.daemon.put(self.round_cards(status.round, entry))
            elif self.demand is not None and status.waiting_for_cards:
                self.demand()  # the tags: deliver the cards, or say what is missing
            elif status.phase == "ready":
                self.daemon.put(StartRound())
            return True
        if key == " " and status.phase == "ready":
            self.daemon.put(StartRound())
            return True
        if key in ("r", "R") and status.phase == "ready":
            self.daemon.put(RevealStamp(time.monotonic_ns(), "key"))
            return True
        if entry is not None and status.waiting_for_cards and entry.key(key):
            return True
        return key not in ("q", "Q")

    def card_line(self, status: RefereeStatus) -> str:
        entry = self.ensure_entry(status)
        if entry is None or not status.waiting_for_cards:
            return ""
        typed = entry.cards()
        seats = []
        for player, _ in entry.all_seats:
            shown = " + ".join(str(c) for c in typed.get(player, ()))
            marker = "▸" if player == entry.next_seat() else " "
            read = " (camera)" if player in entry.filled else ""
            seats.append(f"{marker}{player}: {shown or '_'}{read}")
        hint = "Enter to confirm" if entry.complete else "type each seat's card"
        if self.camera is not None and self.camera.reading(status.round) and not entry.typed:
            hint = "the camera is reading them; or type each seat's card"
        return "Cards  " + "  ".join(seats) + f"   ({hint}, Backspace undoes)"


def parse_cards_line(words: list[str]) -> dict[str, Hand]:
    """``ann=seal bob=shark`` or ``ann=seal,shark`` (double_chomp)."""
    cards: dict[str, Hand] = {}
    for word in words:
        player, _, shown = word.partition("=")
        names = [n for n in shown.split(",") if n]
        if not player or not names or any(n not in CARD_NAMES for n in names):
            raise ValueError(f"not a card: {word!r} (write player=card, e.g. ann=seal)")
        cards[player] = tuple(CARD_NAMES[n] for n in names)
    return cards


MAX_WAIT_S = 3600.0


def _seconds(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if 0 <= value <= MAX_WAIT_S else None  # NaN fails both comparisons


def run_lines(view: TableView, stream: TextIO, out: TextIO) -> None:
    """Line mode: one command per line, for scripts and service logs."""
    daemon = view.daemon

    def cards(words: list[str]) -> None:
        try:
            given = parse_cards_line(words)
        except ValueError as exc:
            shell.say(out, str(exc))
            return
        status = daemon.status()
        if view.camera is not None and status.waiting_for_cards:
            # The seats the camera read need not be typed again; a seat typed overrides.
            filled = view.camera.prefilled(status.round)
            asked = [p for p in given if p not in filled or given[p] != filled[p]]
            daemon.put(view.camera.complete(status.round, {**filled, **given}, asked))
        else:
            daemon.put(Cards(given))

    def wait(words: list[str]) -> None:
        seconds = _seconds(words[0] if words else "1")
        if seconds is None:
            shell.say(out, f"wait takes seconds from 0 to {MAX_WAIT_S:g}, not {words[0]!r}")
        else:
            time.sleep(seconds)

    commands: dict[str, shell.LineCommand] = {
        "start": lambda words: daemon.put(StartRound()),
        "reveal": lambda words: daemon.put(RevealStamp(time.monotonic_ns(), "key")),
        "cards": cards,
        "wait": wait,
        "status": lambda words: shell.say(out, str(daemon.status().to_dict())),
    }
    shell.run_lines(stream, out, commands)


def run_curses(view: TableView, title: str, on_key: Callable[[str], None] | None = None) -> None:
    """The full-screen table until the person quits (q, then y)."""
    quit_armed = False
    status = view.daemon.status()

    def frame(screen: Any) -> None:
        nonlocal status
        status = view.daemon.status()
        draw(screen, view, status, title, quit_armed)

    def handle(name: str) -> bool:
        nonlocal quit_armed
        if on_key is not None:
            on_key(name)
        if quit_armed:
            if name in ("y", "Y"):
                return False
            quit_armed = False
            return True
        if not view.key(name, status):
            quit_armed = True
        return True

    shell.run_curses(frame, handle, 20)


def draw(screen: Any, view: TableView, status: RefereeStatus, title: str, quit_armed: bool) -> None:
    import curses

    screen.erase()
    height, width = screen.getmaxyx()

    def put(y: int, x: int, text: str, attr: int = 0) -> None:
        shell.put(screen, y, x, text, attr)

    referee = view.daemon.referee
    put(0, 0, title, curses.A_BOLD)
    phase = status.phase
    put(
        1,
        0,
        f"{round_label(status)}  ·  {status.mode}  ·  {phase}  ·  pot {status.pot}"
        f"  ·  tie window {referee.tie_window_us} us",
    )
    keys = {player: key for key, player in view.slap_keys.items()}
    cards = seat_cards(status)
    for row, player in enumerate(referee.game.players):
        level = view.led(player)
        lamp = "●" if level > 0.05 else "○"
        colour = curses.color_pair(1) if level > 0.05 else 0
        out = player in status.out
        stuck = "  STUCK" if player in status.stuck else ""
        key = f"[{keys[player]}] " if player in keys else ""
        put(3 + row, 2, lamp, colour | curses.A_BOLD)
        shown = " + ".join(cards.get(player, []))
        line = f" {key}{player:<10} {status.counts[player]:>3} cards   {shown}"
        put(3 + row, 3, line + ("  out" if out else "") + stuck, curses.A_DIM if out else 0)
    y = 4 + len(referee.game.players)
    put(y, 2, "♪ BUZZER" if view.buzzer() else "  buzzer", curses.color_pair(2) | curses.A_BOLD)
    if view.status_led is not None:
        lit = view.status_led() > 0.05
        put(
            y, 14, "● status light" if lit else "○ status light", curses.color_pair(1) if lit else 0
        )
    y += 2
    card_line = view.card_line(status)
    if card_line:
        put(y, 0, card_line, curses.A_BOLD)
        put(y + 1, 0, "       " + LEGEND, curses.A_DIM)
    elif phase == "countdown":
        put(y, 0, "Get ready… turn your card over at the long beep.", curses.A_BOLD)
    elif phase == "revealed":
        put(y, 0, "Cards are up: SLAP!", curses.A_BOLD)
    elif status.over:
        winner = status.winner
        over = f"Game over: {does(winner, 'wins')}!" if winner else "Game over: a draw."
        put(y, 0, over, curses.A_BOLD)
    else:
        put(y, 0, "Space: next round (countdown)   r: reveal now   q: quit", curses.A_BOLD)
    if not card_line:
        put(y + 1, 0, SLAP_RULE, curses.A_DIM)
    y += 3
    for line in view.last:
        put(y, 0, line, curses.color_pair(1))
        y += 1
    y += 1
    for message in view.messages:
        put(y, 0, message, curses.color_pair(2))
        y += 1
    if quit_armed:
        put(height - 1, 0, view.quit_prompt, curses.color_pair(3) | curses.A_BOLD)
    screen.refresh()


def serve(
    view: TableView,
    title: str,
    interactive: bool | None = None,
    on_key: Callable[[str], None] | None = None,
) -> None:
    """Run the daemon on its own thread and the screen (or line mode) on this one."""
    daemon = view.daemon
    curses_mode = interactive if interactive is not None else sys.stdin.isatty()
    if curses_mode:
        daemon.notify = view.notify
        daemon.on_result = view.on_result
    else:

        def notify(message: str) -> None:
            view.notify(message)
            print(message, flush=True)

        def on_result(result: RoundResult) -> None:
            view.on_result(result)
            print("\n".join(view.last), flush=True)

        daemon.notify = notify
        daemon.on_result = on_result
    worker = threading.Thread(target=daemon.run, name="referee", daemon=True)
    worker.start()
    try:
        if curses_mode:
            run_curses(view, title, on_key)
        else:
            run_lines(view, sys.stdin, sys.stdout)
            time.sleep(0.05)
    finally:
        daemon.put(Shutdown())
        worker.join(timeout=5)
