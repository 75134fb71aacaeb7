"""The Get Bit! table's two faces: a curses screen on a terminal, a line mode otherwise.

Each round someone types the cards after the reveal (one key per robot, Backspace undoes,
Enter plays), or every player types their own card hidden, player by player; or the card
tags deliver them. Both faces run in :mod:`companion.tables.shell`.
"""

from __future__ import annotations

import queue
import sys
import textwrap
import threading
from typing import Any, TextIO

from companion import text as gate
from companion.errors import HardwareError, InputError
from companion.games.getbit.text import next_lines, table_lines
from companion.tables import shell
from companion.tables.getbit.entry import CARD_DIGITS_HIGH, parse_cards
from companion.tables.getbit.table import GetBitTable
from companion.tables.getbit.tags import TableEvent, TagLine

LINE_HELP = (
    "cards: '4 1 4 5' or '4145' in the order asked, or 'ted=5 anne=1 ...'; "
    "undo, show, press PLAYER (mock pins), leds, quit"
)
TAGS_HELP = (
    "with tags: the cards come from the readers; demand asks for what is missing; "
    "'ted=5' corrects one robot's card; typed cards for every robot play the round"
)
NO_TAGS = "no card tags: run with --tags FILE --reader SPEC"


def _pump(stream: TextIO, events: queue.SimpleQueue[TableEvent]) -> None:
    """Standard input, line by line, onto the table's event queue (line mode with tags)."""
    try:
        for line in iter(stream.readline, ""):
            events.put(TagLine(line))
    except (OSError, ValueError, UnicodeDecodeError):
        pass  # a closed or undecodable stream ends the input like EOF
    events.put(TagLine(None))


class _LineMode:
    """The line mode's state between lines: the secret cards typed so far, whether a
    prompt is due, whether the input has ended (with tags the game goes on)."""

    def __init__(self, table: GetBitTable, stream: TextIO, out: TextIO) -> None:
        self.table = table
        self.tags = table.tags
        # With tags or a camera, the lines and what they produce share one queue.
        self.events: queue.SimpleQueue[Any] | None = None
        if self.tags is not None:
            self.events = self.tags.events
        if table.camera is not None:
            if self.events is None:
                self.events = table.camera.events
            else:
                table.camera.events = self.events
        self.stream = stream
        self.out = out
        self.secret_typed: dict[str, int] = {}
        self.prompt_due = True
        self.ended = False

    def say(self, *lines: str) -> None:
        shell.say(self.out, *lines)

    def show(self) -> None:
        state = self.table.session.state
        self.say(*table_lines(state), *next_lines(state))
        if self.tags is not None and not state.over:
            self.say(f"tags: {self.tags.status_line()}")

    def flush_messages(self) -> None:
        if self.table.messages:
            self.say(*self.table.messages)
            self.table.messages = []

    def take(self, wait: bool) -> TableEvent | None:
        """The next line or tag event; without ``wait``, only one already there."""
        if self.events is None:
            return TagLine(self.stream.readline() or None) if wait else None
        try:
            event: TableEvent = self.events.get(timeout=0.5) if wait else self.events.get_nowait()
            return event
        except queue.Empty:
            return None

    def apply(self, events: list[TableEvent]) -> bool:
        """Tag events: prompts said, complete cards played and announced (True)."""
        played = False
        for event in events:
            result = self.table.tag_event(event)
            self.flush_messages()
            if result is not None:
                played = True
                self.say(*self.table.announced)
                self.show()
        return played

    def run(self) -> None:
        table = self.table
        if self.events is not None:
            args = (self.stream, self.events)
            threading.Thread(target=_pump, args=args, name="stdin", daemon=True).start()
        self.say(table.title())
        self.flush_messages()
        self.show()
        while True:
            state = table.session.state
            if self.ended and state.over:
                break
            event = self.take(wait=not self.prompt_due)
            with table.guard:  # what was typed, applied and answered before a page's tap
                if not self.step(event):
                    break

    def step(self, event: TableEvent | None) -> bool:
        """One line or tag event (or a prompt due); False when the session ends."""
        state = self.table.session.state
        if event is None and self.prompt_due:
            self.prompt_due = False
            self.prompt()
        elif event is None:
            pass
        elif not isinstance(event, TagLine):
            if self.apply([event]):
                self.secret_typed = {}
                self.prompt_due = not self.ended
        elif event.text is None:
            if self.events is None or state.over:
                return False
            self.ended = True
            source = "tags" if self.tags is not None else "camera"
            self.say(
                f"end of input: the cards keep coming from the {source} until the game is over"
            )
        else:
            self.prompt_due = True
            return self.line(event.text)
        return True

    def prompt(self) -> None:
        state = self.table.session.state
        order = self.table.entry.order
        if state.over:
            self.say("(undo, show or quit)")
        elif self.table.secret:
            robot = order[len(self.secret_typed)]
            self.say(f"{state.setup.robots[robot]}, {robot}'s card (hidden):")
        elif self.tags is not None:
            self.say(f"round {state.rounds + 1} cards for {' '.join(order)} (tags, or type them):")
        else:
            self.say(f"round {state.rounds + 1} cards for {' '.join(order)}:")

    def line(self, text: str) -> bool:
        """One line of input; False to quit. A line the text gate refuses is one line
        said back, and the table goes on."""
        try:
            words = shell.typed_words(text)
        except InputError as exc:
            self.say(f"refused: {exc}")
            return True
        if not words:
            return True
        command = words[0].lower()
        if command in shell.QUIT_WORDS:
            return False
        if command == "undo":
            self.secret_typed = {}
            self.table.undo()
            self.flush_messages()
            self.show()
        elif command in ("show", "status"):
            self.show()
        elif command == "help":
            self.say(LINE_HELP)
            if self.tags is not None:
                self.say(TAGS_HELP)
        elif command == "demand":
            self.demand()
        elif command in ("press", "leds"):
            self.hardware(command, words[1:])
        elif self.table.session.state.over:
            state = self.table.session.state
            self.say(f"the game is over ({state.winner} won): undo, show or quit")
        else:
            self.cards(text, command)
        return True

    def demand(self) -> None:
        state = self.table.session.state
        if self.tags is None:
            self.say(NO_TAGS)
        elif state.over:
            self.say(f"the game is over ({state.winner} won): undo, show or quit")
        elif self.apply(self.tags.demand()):
            self.secret_typed = {}

    def hardware(self, command: str, players: list[str]) -> None:
        hardware = self.table.hardware
        if hardware is None:
            self.say("no hardware: run with --config")
            return
        if command == "press":
            for player in players:
                try:
                    hardware.press(player)
                except HardwareError as exc:
                    self.say(str(exc))
        self.say(hardware.status())

    def cards(self, text: str, command: str) -> None:
        """A line of cards (or, in secret mode, one robot's card): play when complete."""
        table, state = self.table, self.table.session.state
        order = table.entry.order
        if table.hardware is not None:
            table.hardware.start_round()
        if table.secret:
            robot = order[len(self.secret_typed)]
            card = gate.number_or_none(command, low=0, high=CARD_DIGITS_HIGH)
            if card is None or card not in state.hands[robot]:
                self.say(f"{robot} cannot play that card: choose again")
                return
            self.secret_typed[robot] = card
            if len(self.secret_typed) < len(order):
                return
            cards, self.secret_typed = self.secret_typed, {}
        else:
            try:
                cards = parse_cards(text, order)
            except ValueError as exc:
                self.say(str(exc))
                return
            if self.tags is not None and "=" in text and set(cards) < set(order):
                answers = [e for r, c in cards.items() for e in self.tags.correct(r, c)]
                if not self.apply(answers):  # some robots only: corrections of the tags
                    self.say(f"tags: {self.tags.status_line()}")
                return
        result = table.play(cards)
        self.flush_messages()
        if result is not None:
            self.say(*table.announced)
            self.show()


def run_lines(table: GetBitTable, stream: TextIO, out: TextIO) -> None:
    """One command per line, for scripts and pipes; prompts say what is expected.

    With tags, the lines and what the readers produce come in on one queue and are taken
    in order. The end of the input does not end the session then: the cards keep coming
    from the tags until the game is over (Ctrl-C stops; every round is saved).
    """
    _LineMode(table, stream, out).run()


MOCK_PRESS_KEYS = "!@#$%^"  # on mock pins: press the 1st..6th player's lock-in button


def run_curses(table: GetBitTable) -> None:
    """The full-screen table until the players quit (the game is saved all along)."""
    asking: str | None = None  # "quit" or "undo" while waiting for y/n
    hw = table.hardware

    def frame(screen: Any) -> None:
        with table.guard:  # a tap on the page waits for the frame, and the frame for it
            for event in table.pending_tags():
                table.tag_event(event)
            draw(screen, table, asking)

    def handle(name: str) -> bool:
        with table.guard:  # the entry checked and played in one step, not across a tap
            return handle_key(name)

    def handle_key(name: str) -> bool:
        nonlocal asking
        if asking is not None:
            if name in ("y", "Y"):
                if asking == "quit":
                    return False
                table.undo()
            asking = None
        elif hw is not None and name in MOCK_PRESS_KEYS and hw.opened.name == "mock":
            players = list(hw.config.lock_in)
            i = MOCK_PRESS_KEYS.index(name)
            if i < len(players):
                hw.press(players[i])
        elif name in ("q", "Q"):
            asking = "quit"
        elif name in ("u", "U") and not table.entry.started:
            asking = "undo"
        elif name in shell.ENTER_KEYS:
            if table.session.state.over:
                pass
            elif table.entry.complete:
                table.play(table.entry.cards())
            elif table.tags is not None and not table.entry.started:
                for event in table.tags.demand():  # the tags' cards, or what is missing
                    table.tag_event(event)
        else:
            table.key(name)
        return True

    shell.run_curses(frame, handle, 50)


def draw(screen: Any, table: GetBitTable, asking: str | None) -> None:
    import curses

    screen.erase()
    height, width = screen.getmaxyx()

    def put(y: int, x: int, text: str, attr: int = 0) -> None:
        shell.put(screen, y, x, text, attr)

    state = table.session.state
    hw = table.hardware
    put(0, 0, table.title(), curses.A_BOLD)
    lines = table_lines(state)
    put(2, 0, lines[0], curses.A_BOLD)
    y = 3
    for i, line in enumerate(lines[1:]):
        robot = state.line[i] if i < len(state.line) else None
        lit = hw is not None and robot is not None and hw.led_level(robot) > 0.05
        if hw is not None and robot is not None:
            put(y, 0, "●" if lit else "○", curses.color_pair(3) | curses.A_BOLD if lit else 0)
        put(y, 1, line)
        y += 1
    if hw is not None:
        buzzer = "♪ BUZZER" if hw.buzzer_on() else "  buzzer"
        put(y, 2, buzzer, curses.color_pair(2) | curses.A_BOLD)
        if hw.config.lock_in:
            marks = "  ".join(f"{p} {'✓' if p in hw.locked else '·'}" for p in hw.config.lock_in)
            put(y, 14, f"locked in: {marks}" + ("  REVEAL!" if hw.revealed else ""))
        y += 1
    y += 1
    for line in next_lines(state):
        put(y, 0, line, curses.A_BOLD)
        y += 1
    if not state.over:
        put(y, 0, "Cards  " + table.entry.text(), curses.A_BOLD)
        put(y + 1, 7, table.entry.prompt(), curses.A_DIM)
        if table.tags is not None:
            put(y + 2, 0, "Tags   " + table.tags.status_line(), curses.A_BOLD)
    y += 4 if table.tags is not None else 3
    for line in table.announced:
        for part in textwrap.wrap(line, max(20, width - 1), subsequent_indent="    "):
            put(y, 0, part, curses.color_pair(1))
            y += 1
    y += 1
    for message in table.messages:
        put(y, 0, message, curses.color_pair(2))
        y += 1
    if asking == "quit":
        prompt = "Quit? The game is saved (--resume continues it). y / n"
    elif asking == "undo":
        prompt = f"Undo round {state.rounds}? y / n"
    elif table.tags is not None:
        prompt = (
            "tags or digits: cards · Backspace: change · Enter: play, or ask the tags "
            "· u: undo last round · q: quit"
        )
    else:
        prompt = "digits: cards · Backspace: change · Enter: play · u: undo last round · q: quit"
    put(height - 1, 0, prompt, (curses.color_pair(3) | curses.A_BOLD) if asking else curses.A_DIM)
    screen.refresh()


def serve(table: GetBitTable, interactive: bool | None = None) -> None:
    """The curses screen on a terminal, else the line mode on stdin/stdout."""
    shell.serve_face(
        lambda: run_curses(table), lambda: run_lines(table, sys.stdin, sys.stdout), interactive
    )
