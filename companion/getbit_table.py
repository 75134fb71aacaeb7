"""``companion getbit play``: a Get Bit! table session in the terminal, with optional lights.

The robots swim on the table; this keeps the truth about them. Each round someone types
the cards after the reveal (one key per robot, Backspace undoes, Enter plays), or every
player types their own card hidden, player by player. The engine settles the round, the
screen announces the moves and the bite, and the game is saved after every round in the
very format ``companion getbit replay`` reads, so a crash loses nothing and ``--resume``
is just a replay. Undo drops the last round and replays the rest.

Two faces, as the referee has: a curses screen when standard input is a terminal, and a
line mode for pipes and scripts. Hardware is optional and goes through the same devices
layer as the referee (docs/getbit.md): an LED per robot, a buzzer, one lock-in button per
player. The devices never decide anything; they are told what happened.

The cards can also come from card tags (:class:`TableTags`): a reveal collects one card
per robot from NFC or barcode readers, and a complete round is played exactly as typed
cards are. The readers run on threads of their own; what they produce reaches the table
as events on a queue, so the table itself is only ever changed by the face's own thread.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import textwrap
import threading
import time
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from companion import data, terminal
from companion.config import (
    PIN_FACTORIES,
    BuzzerConfig,
    BuzzerKind,
    LedConfig,
    parse_led,
    parse_pin,
)
from companion.errors import ConfigError, HardwareError, InputError
from companion.files import read_json
from companion.games.getbit import GetBit, PlayError, Replay, RoundResult, Setup, replay
from companion.games.getbit_formats import replay_from_dict
from companion.tags.readers import TagReader, typed_line
from companion.tags.reveal import GetBitTagReveal, RevealRunner
from companion.tags.tagfile import GETBIT_HIGHEST, TagFile, getbit_card

if TYPE_CHECKING:
    from companion.devices.pins import OpenedFactory
    from companion.signals import ButtonEdge, Cue

DEFAULT_SAVE = "getbit-game.json"

# --------------------------------------------------------------------------------------
# Words and pictures: shared by the screen, the line mode and `getbit replay`
# --------------------------------------------------------------------------------------


def limb_bar(halves: int) -> str:
    """Four limbs as a bar: a whole limb █, half a limb ▌ (longer games), a lost one ·."""
    whole, half = divmod(halves, 2)
    return ("█" * whole + ("▌" if half else "")).ljust(4, "·")


def label(setup: Setup, robot: str) -> str:
    """A robot's name, with its player's when they differ (2-3 player games)."""
    owner = setup.robots[robot]
    return robot if owner == robot else f"{robot} ({owner})"


def _and(names: Sequence[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def limbs_text(value: float) -> str:
    return f"{value:g} limb{'' if value == 1 else 's'}"


def cards_text(cards: Mapping[str, int]) -> str:
    return " · ".join(f"{r} {c}" for r, c in cards.items())


def table_lines(state: GetBit) -> list[str]:
    """The line, front first, with every robot's limbs and cards.

    In a memory game (G6) no card number is shown: a hand would give the played cards
    away, so both are counts only. The engine still knows every card.
    """
    setup = state.setup
    width = max(len(label(setup, r)) for r in setup.robots)
    lines = ["front ▸ " + " · ".join(state.line) + " ◂ shark"]
    for i, robot in enumerate(state.line, 1):
        if setup.memory:
            cards = (
                f"hand {len(state.hands[robot])} cards, {len(state.played[robot])} played face down"
            )
        else:
            played = " ".join(map(str, state.played[robot])) or "-"
            hand = " ".join(map(str, state.hands[robot]))
            cards = f"hand {hand:<{2 * setup.hand_size - 1}}  played {played}"
        lines.append(
            f"  {i}. {label(setup, robot):<{width}}  {limb_bar(state.halves[robot])} "
            f"{limbs_text(state.limbs(robot)):<10} {cards}"
        )
    if state.out:
        lines.append(f"  out: {', '.join(state.out)}")
    return lines


def round_lines(result: RoundResult, state: GetBit) -> list[str]:
    """The round announced in words a table can read aloud; no card numbers in memory."""
    setup = state.setup
    memory = setup.memory
    head = "cards revealed" if memory else cards_text(result.cards)
    lines = [f"Round {result.number}: {head}"]
    moves: list[str] = []
    if result.moved:
        order = [r if memory else f"{r} ({result.cards[r]})" for r in result.moved]
        moves.append(f"{', then '.join(order)} to the front")
    groups: dict[int, list[str]] = {}
    for robot in result.stayed:
        groups.setdefault(result.cards[robot], []).append(robot)
    for card, robots in groups.items():
        moves.append(f"{_and(robots)} tied{'' if memory else f' on {card}'} and stay")
    lines.append("  " + ("; ".join(moves) if result.moved else "nobody moves: " + "; ".join(moves)))
    bitten = result.bitten
    if bitten is None:
        lines.append("  no bite in the first round")
    elif bitten in result.out:
        lines.append(f"  the shark bites {bitten}: no limbs left, {bitten} is out")
    else:
        lines.append(
            f"  the shark bites {bitten}: {limbs_text(state.limbs(bitten))} left; "
            f"{bitten} goes to the front and takes back its cards"
        )
    if result.winner is not None:
        if result.eaten is not None:
            lines.append(f"  two robots left: the shark eats {result.eaten}")
        else:
            loser = setup.robots[result.out[0]]
            lines.append(f"  {loser} loses ({result.out[0]} was eliminated)")
        lines.append(f"  {result.winner} wins the game!")
    for robot in result.picked_up:
        n = setup.pickup_at
        lines.append(f"  {robot} is down to {n} card{'' if n == 1 else 's'}: takes back its cards")
    return lines


def next_lines(state: GetBit) -> list[str]:
    if state.over:
        return [f"Game over after round {state.rounds}: {state.winner} wins."]
    bite = " (no bite in round 1)" if state.rounds == 0 else ""
    return [f"Game goes on: round {state.rounds + 1} next{bite}."]


# --------------------------------------------------------------------------------------
# The saved game: the replay input, rewritten after every round
# --------------------------------------------------------------------------------------


def game_json(game: Mapping[str, Any]) -> str:
    """The saved game as JSON a person can read and mend: one round per line."""
    lines = [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in game.items()]
    rounds = game.get("rounds")
    if rounds:
        inner = ",\n".join(f"    {json.dumps(r, ensure_ascii=False)}" for r in rounds)
        lines[-1] = f'  "rounds": [\n{inner}\n  ]'
    return "{\n" + ",\n".join(lines) + "\n}\n"


def _archive(path: Path) -> Path:
    """Move an old save aside; a game is never deleted."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.stem}.{stamp}{path.suffix}")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.stem}.{stamp}-{n}{path.suffix}")
        n += 1
    path.rename(target)
    return target


@dataclass
class Session:
    """The game at the table: its setup, the rounds so far, and where it is saved."""

    game: Replay
    path: Path

    @property
    def setup(self) -> Setup:
        return self.game.setup

    @property
    def state(self) -> GetBit:
        return self.game.state

    @property
    def last(self) -> RoundResult | None:
        return self.game.results[-1] if self.game.results else None

    @classmethod
    def open(
        cls, path: Path, setup: Setup | None, resume: bool, new: bool
    ) -> tuple[Session, list[str]]:
        """A new game saved at ``path``, or the game saved there resumed."""
        messages: list[str] = []
        if resume:
            if not path.exists():
                raise InputError("", "no saved game here to resume", str(path))
            try:
                game = replay_from_dict(read_json(str(path)))
            except InputError as exc:
                raise (exc if exc.source else exc.in_source(str(path))) from None
            messages.append(f"resumed {path} after round {game.state.rounds}")
            return cls(game, path), messages
        if setup is None:
            raise InputError("--players", "name the players (or --robots, or --config)")
        if path.exists():
            if not new:
                raise InputError(
                    "",
                    "holds a game: --resume continues it, --new starts a new game "
                    "(the old file is kept)",
                    str(path),
                )
            messages.append(f"previous game kept as {_archive(path)}")
        session = cls(replay(setup, ()), path)
        session.save()
        messages.append(f"new game, saved after every round to {path}")
        return session, messages

    def save(self) -> None:
        """Write the replay input atomically: the old file stays whole until the new is."""
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        with tmp.open("w", encoding="utf-8") as handle:
            handle.write(game_json(self.game.game_dict()))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.path)

    def play(self, cards: Mapping[str, int]) -> RoundResult:
        """Settle a round (G7 refusals change nothing) and save the game."""
        state, result = self.state.play(cards)
        g = self.game
        self.game = Replay(g.setup, (*g.rounds, dict(cards)), (*g.results, result), state)
        self.save()
        return result

    def undo(self) -> int | None:
        """Drop the last round and replay the rest; the round undone, or None."""
        if not self.game.rounds:
            return None
        n = len(self.game.rounds)
        self.game = replay(self.setup, self.game.rounds[:-1])
        self.save()
        return n


# --------------------------------------------------------------------------------------
# Typing the cards
# --------------------------------------------------------------------------------------

UNDO_KEYS = ("\x7f", "\b", "KEY_BACKSPACE")
MOCK_PRESS_KEYS = "!@#$%^"  # on mock pins: press the 1st..6th player's lock-in button
ENTER_KEYS = ("\n", "\r", "KEY_ENTER")


def entry_order(state: GetBit) -> list[str]:
    """The robots still in play, player by player (each player's robots together): the
    order the cards are typed in, and scanned in with one reader for the table."""
    setup = state.setup
    return [r for p in setup.players for r in setup.robots_of(p) if r in state.line]


def refusal_text(state: GetBit, exc: PlayError) -> str:
    """A G7 refusal as the table shows it; in a memory game it names no card and no hand."""
    if state.setup.memory and exc.card is not None:
        return f"round {exc.round_no}: {exc.robot} cannot play that card"
    return str(exc)


class Entry:
    """One round's cards, a key per robot, player by player; Backspace takes one back.

    Robots are asked for in player order (each player's robots together), so the secret
    mode can pass the keyboard from player to player. A card not in the robot's hand is
    refused at once; in secret mode the refusal does not say which card was typed.
    """

    def __init__(self, state: GetBit, secret: bool = False) -> None:
        self.state = state
        self.secret = secret
        self.order = entry_order(state)
        self.typed: list[int] = []

    @property
    def complete(self) -> bool:
        return len(self.typed) == len(self.order)

    @property
    def started(self) -> bool:
        return bool(self.typed)

    def next_robot(self) -> str | None:
        return None if self.complete else self.order[len(self.typed)]

    def key(self, key: str) -> str | None:
        """Feed one key; returns a refusal to show, or None."""
        if key in UNDO_KEYS:
            if self.typed:
                self.typed.pop()
            return None
        robot = self.next_robot()
        if robot is None or not (len(key) == 1 and key.isdigit()):
            return None
        card = int(key)
        if card not in self.state.hands[robot]:
            if self.secret or self.state.setup.memory:
                return f"{robot} cannot play that card: choose again"
            return f"{robot} has no {card} in hand ({' '.join(map(str, self.state.hands[robot]))})"
        self.typed.append(card)
        return None

    def cards(self) -> dict[str, int]:
        return dict(zip(self.order, self.typed, strict=False))

    def text(self) -> str:
        """The entry line: typed cards (dots in secret mode), the next robot marked."""
        parts = []
        for i, robot in enumerate(self.order):
            if i < len(self.typed):
                shown = "●" if self.secret else str(self.typed[i])
            else:
                shown = "_"
            marker = "▸" if robot == self.next_robot() else " "
            parts.append(f"{marker}{robot}: {shown}")
        return "  ".join(parts)

    def prompt(self) -> str:
        robot = self.next_robot()
        if robot is None:
            what = "reveal" if self.secret else "play the round"
            return f"Enter to {what}, Backspace to change"
        size = self.state.setup.hand_size
        if self.secret:
            owner = self.state.setup.robots[robot]
            return f"{owner}: choose {robot}'s card (1-{size}), hidden; others look away"
        return f"type each robot's card (1-{size})"


def parse_cards(text: str, order: Sequence[str]) -> dict[str, int]:
    """A line of cards: ``4145``, ``4 1 4 5`` (in entry order) or ``john=4 anne=1 ...``."""
    words = text.replace(",", " ").split()
    if any("=" in w for w in words):
        cards: dict[str, int] = {}
        for word in words:
            robot, _, card = word.partition("=")
            if not robot or not card.isdigit():
                raise ValueError(f"not a card: {word!r} (write robot=card, e.g. ted=5)")
            cards[robot] = int(card)
        return cards
    if len(words) == 1 and words[0].isdigit() and len(words[0]) == len(order):
        words = list(words[0])
    if len(words) != len(order) or not all(w.isdigit() for w in words):
        raise ValueError(f"give {len(order)} cards, for {' '.join(order)} (e.g. 4 1 4 5)")
    return {robot: int(w) for robot, w in zip(order, words, strict=True)}


# --------------------------------------------------------------------------------------
# Hardware: a [getbit] table in a TOML file
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RobotConfig:
    name: str
    player: str
    led: LedConfig | None = None


@dataclass(frozen=True)
class TableConfig:
    """The [getbit] table: robots with their LEDs, the buzzer, lock-in buttons."""

    robots: tuple[RobotConfig, ...]
    buzzer: BuzzerConfig | None = None
    lock_in: Mapping[str, int] = field(default_factory=dict)  # player -> button pin
    pin_factory: str = "auto"
    source: str = ""

    @property
    def robot_players(self) -> dict[str, str]:
        return {r.name: r.player for r in self.robots}


def table_config_from_dict(value: object) -> TableConfig:
    top = data.obj(value, data.ROOT, required=("getbit",))
    raw = data.obj(top["getbit"], "getbit", optional=("pin_factory", "robots", "buzzer", "lock_in"))
    used: dict[int, str] = {}

    def claim(pin: int, path: str) -> int:
        if pin in used:
            raise data.fail(path, f"GPIO{pin} is already used by {used[pin]}")
        used[pin] = path
        return pin

    robots: list[RobotConfig] = []
    for i, item in enumerate(data.lst(raw.get("robots", []), "getbit.robots")):
        here = data.at("getbit.robots", i)
        r = data.obj(item, here, required=("name",), optional=("player", "led"))
        name = data.name(r["name"], data.at(here, "name"), "robot")
        if name in (x.name for x in robots):
            raise data.fail(data.at(here, "name"), f"robot {name!r} is named twice")
        player = data.name(r.get("player", name), data.at(here, "player"), "player")
        led = None
        if "led" in r:
            led = parse_led(r["led"], data.at(here, "led"))
            for pin in led.pins:
                claim(pin, data.at(here, "led"))
        robots.append(RobotConfig(name, player, led))
    buzzer = None
    if "buzzer" in raw:
        b = data.obj(raw["buzzer"], "getbit.buzzer", required=("pin",), optional=("kind",))
        kinds = {str(k): k for k in BuzzerKind}
        kind = data.choice(b.get("kind", "active"), "getbit.buzzer.kind", kinds, "buzzer kind")
        pin = claim(parse_pin(b["pin"], "getbit.buzzer.pin"), "getbit.buzzer.pin")
        buzzer = BuzzerConfig(pin, kind)
    lock_in: dict[str, int] = {}
    players = {r.player for r in robots}
    for player, pin_value in data.mapping(raw.get("lock_in", {}), "getbit.lock_in").items():
        here = data.at("getbit.lock_in", player)
        if robots and player not in players:
            raise data.fail(here, f"{player!r} plays none of the robots above")
        lock_in[player] = claim(parse_pin(pin_value, here), here)
    if lock_in and robots:
        missing = [p for p in dict.fromkeys(r.player for r in robots) if p not in lock_in]
        if missing:
            raise data.fail("getbit.lock_in", f"no button for {', '.join(missing)}")
    factories = {f: f for f in PIN_FACTORIES}
    factory = data.choice(
        raw.get("pin_factory", "auto"), "getbit.pin_factory", factories, "pin factory"
    )
    return TableConfig(tuple(robots), buzzer, lock_in, factory)


def load_table_config(path: str | Path) -> TableConfig:
    """Read and check a [getbit] TOML file; any problem is one ConfigError line."""
    source = str(path)
    try:
        raw: Any = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError("", "no such config file", source) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError("", f"cannot read: {exc}", source) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("", f"not TOML: {exc}", source) from None
    try:
        config = table_config_from_dict(raw)
    except InputError as exc:
        raise ConfigError(exc.where, exc.message, source) from None
    return TableConfig(config.robots, config.buzzer, config.lock_in, config.pin_factory, source)


class TableHardware:
    """The robots' LEDs, the buzzer and the lock-in buttons, told what the game did.

    Signals (docs/getbit.md): a bite shows ``bad_chomp`` on the bitten robot's LED (blinks,
    three low beeps: the chomp), an elimination ``eliminated``, the winner's robots
    ``game_over`` (the fanfare); a player's lock-in press lights their robots (``win``:
    steady on) and when every player is in, ``reveal`` (LEDs off, one long beep). The
    next round's first key or press shows ``ready``: LEDs off, buzzer quiet.
    """

    def __init__(self, config: TableConfig, setup: Setup, pin_factory: str | None = None) -> None:
        from companion.devices.outputs import TableOutputs
        from companion.devices.pins import open_factory

        unknown = [r.name for r in config.robots if r.name not in setup.robots]
        if unknown:
            raise ConfigError(
                "getbit.robots", f"not a robot of this game: {', '.join(unknown)}", config.source
            )
        strangers = [p for p in config.lock_in if p not in setup.players]
        if strangers:
            raise ConfigError(
                "getbit.lock_in",
                f"not a player of this game: {', '.join(strangers)}",
                config.source,
            )
        missing = [p for p in setup.players if config.lock_in and p not in config.lock_in]
        if missing:
            raise ConfigError(
                "getbit.lock_in", f"no button for {', '.join(missing)}", config.source
            )
        self.config = config
        self.setup = setup
        self.in_play: tuple[str, ...] = setup.line
        self.locked: set[str] = set()
        self.revealed = False
        self._fresh = True  # the next key or press starts a round: show `ready` first
        self._lock = threading.Lock()
        self.opened: OpenedFactory = open_factory(pin_factory or config.pin_factory)
        self.source: Any = None
        try:
            leds = {r.name: r.led for r in config.robots}
            self.outputs = TableOutputs(leds, config.buzzer, None, self.opened)
            if config.lock_in:
                from companion.devices.buttons import GpioPressSource

                self.source = GpioPressSource(
                    config.lock_in, self.opened, self._edge, name="lock-in"
                )
        except BaseException:
            self.close()
            raise

    def _render(self, cues: list[Cue]) -> None:
        if cues:
            self.outputs.render(cues)

    def _start_cues(self) -> list[Cue]:
        from companion.signals import Cue, Signal

        if not self._fresh:
            return []
        self._fresh = False
        return [Cue(Signal.READY)]

    def _edge(self, edge: ButtonEdge) -> None:
        """A lock-in button (on the pin driver's thread): record it, maybe beep the reveal.

        Only a small set changes and a cue is rendered, which never blocks. A press is a
        latch: bounces and releases change nothing, and the round's result clears it.
        """
        from companion.signals import Cue, Signal

        if not edge.pressed:
            return
        with self._lock:
            if edge.player in self.locked or self.revealed:
                return
            cues = self._start_cues()
            self.locked.add(edge.player)
            if set(self.config.lock_in) <= self.locked:
                # The last one in: straight to the reveal, so its long beep comes first.
                self.revealed = True
                cues.append(Cue(Signal.REVEAL))
            else:
                robots = [r for r in self.setup.robots_of(edge.player) if r in self.in_play]
                cues += [Cue(Signal.LOCKED_IN, r) for r in robots]
            self._render(cues)

    def start_round(self) -> None:
        """The round's first key: clear last round's lights, once."""
        with self._lock:
            self._render(self._start_cues())

    def show_round(self, result: RoundResult, state: GetBit) -> None:
        """The bite, any elimination and the winner, most urgent first."""
        from companion.signals import Cue, Signal

        cues: list[Cue] = []
        if result.bitten is not None:
            cues.append(Cue(Signal.BITTEN, result.bitten))
        cues += [Cue(Signal.ELIMINATED, r) for r in result.out]
        if state.winner is not None:
            robots = self.setup.robots_of(state.winner)
            cues += [Cue(Signal.GAME_OVER, r) for r in robots if r in state.line]
        with self._lock:
            self.in_play = state.line
            self.locked.clear()
            self.revealed = False
            self._fresh = True
            self._render(cues)

    def reset(self, state: GetBit) -> None:
        """After an undo: lights off, lock-ins cleared."""
        from companion.signals import Cue, Signal

        with self._lock:
            self.in_play = state.line
            self.locked.clear()
            self.revealed = False
            self._fresh = True
            self._render([Cue(Signal.READY)])

    def press(self, player: str) -> None:
        """Press and release a lock-in button on mock pins (line mode and tests)."""
        if self.opened.name != "mock":
            raise HardwareError("buttons can only be pressed from the keyboard on mock pins")
        if player not in self.config.lock_in:
            raise HardwareError(f"{player} has no lock-in button")
        pin = self.opened.factory.pin(self.config.lock_in[player])
        pin.drive_low()
        pin.drive_high()

    def led_level(self, robot: str) -> float:
        """How bright a robot's LED is now (0 without one), read back from its pins."""
        led = next((r.led for r in self.config.robots if r.name == robot), None)
        if led is None:
            return 0.0
        return max(float(self.opened.factory.pin(p).state) for p in led.pins)

    def buzzer_on(self) -> bool:
        buzzer = self.config.buzzer
        return buzzer is not None and bool(self.opened.factory.pin(buzzer.pin).state)

    def status(self) -> str:
        lamps = " ".join(
            f"{r.name}={'on' if self.led_level(r.name) > 0.05 else 'off'}"
            for r in self.config.robots
            if r.led is not None
        )
        buzzer = "on" if self.buzzer_on() else "off"
        locked = ", ".join(sorted(self.locked)) or "nobody"
        return f"leds: {lamps or 'none'}; buzzer {buzzer}; locked in: {locked}"

    def close(self) -> None:
        for part in (self.source, getattr(self, "outputs", None)):
            if part is not None:
                part.close()
        self.opened.close()


# --------------------------------------------------------------------------------------
# Card tags: the round's cards read from the cards themselves
# --------------------------------------------------------------------------------------


class TagCards(dict[str, int]):
    """A round's complete cards from the tags (``{robot: n}``), stamped with the arming of
    the reveal they belong to, so cards that arrive after their round was played (typed
    meanwhile) are recognised and dropped."""

    def __init__(self, cards: Mapping[str, int], generation: int) -> None:
        super().__init__(cards)
        self.generation = generation


@dataclass(frozen=True, slots=True)
class TagPrompt:
    """A line for the people at the table: an unknown tag, a card read twice, ..."""

    text: str


@dataclass(frozen=True, slots=True)
class TagLine:
    """A line of standard input in line mode with tags (None: the input has ended)."""

    text: str | None


TableEvent = TagCards | TagPrompt | TagLine


def card_number(card: str) -> int:
    """The number of a card the reveal collected: ``red-3`` read or typed, or ``3`` typed
    for a robot without a colour."""
    return int(card.rsplit("-", 1)[-1])


def play_refusal(state: GetBit, robot: str, card: int) -> str | None:
    """G7 for one robot's card, by the engine's own check; the refusal, or None.

    The engine checks whole rounds, so the other robots play a card they hold (every hand
    has one: ``pickup_at`` is below the hand size) and only this robot's card can fail.
    """
    others = {r: state.hands[r][0] for r in state.line}
    try:
        state.check({**others, robot: card})
    except PlayError as exc:
        return refusal_text(state, exc)
    return None


class TableReveal(GetBitTagReveal):
    """The Get Bit! reveal at the table: a card the robot cannot play is refused as soon as
    it is read (the engine's G7 check, so the message is the typed cards' one) and asked
    for again; a robot without a colour takes a plain typed number (``ted=5``)."""

    def __init__(
        self,
        tags: TagFile,
        robots: Sequence[str],
        current: Callable[[], GetBit],
        seat_of_reader: Mapping[int, str] | None = None,
        colours: Mapping[str, str] | None = None,
    ) -> None:
        self.generation = 0  # before the base class arms the first round
        self.current = current
        super().__init__(tags, robots, seat_of_reader, colours)

    def new_round(
        self, seats: Sequence[str] | None = None, hand_sizes: Mapping[str, int] | None = None
    ) -> None:
        self.generation += 1
        super().new_round(seats, hand_sizes)

    def convert(self, names: Mapping[str, tuple[str, ...]]) -> dict[str, int]:
        return TagCards({s: card_number(names[s][0]) for s in self.seats}, self.generation)

    def refuse(self, seat: str, card: str) -> str | None:
        reason = super().refuse(seat, card)
        if reason is not None:
            return reason
        return play_refusal(self.current(), seat, card_number(card))

    def typed_card(self, seat: str | None, word: str) -> str | None:
        found = super().typed_card(seat, word)
        if found is None and seat is not None and seat not in self.colours and word.isdigit():
            return word if 1 <= int(word) <= GETBIT_HIGHEST else None
        return found


class TableTags:
    """The card tags at the table: a :class:`TableReveal` fed by a ``RevealRunner``.

    Armed at the start of each round with the robots still in play (key: the round
    number), disarmed once it is played. The runner's threads only put events on
    :attr:`events`; the table takes them (:meth:`Table.tag_event`) on its own thread.
    What the table's own calls produce (:meth:`demand`, :meth:`correct`) is returned to
    it instead, so an answer never waits behind input queued meanwhile.

    ``seat_of_reader`` (reader index -> robot) when each robot has its own reader; without
    it one reader serves the table and the cards are read in :func:`entry_order`.
    ``colours`` (robot -> colour): a card of another colour is refused for that robot.
    """

    def __init__(
        self,
        tags: TagFile,
        readers: Sequence[TagReader],
        session: Session,
        seat_of_reader: Mapping[int, str] | None = None,
        colours: Mapping[str, str] | None = None,
        poll_s: float = 0.1,
    ) -> None:
        self.tags = tags
        self.readers = list(readers)
        self.events: queue.SimpleQueue[TableEvent] = queue.SimpleQueue()
        self.reveal = TableReveal(
            tags, list(session.setup.robots), lambda: session.state, seat_of_reader, colours
        )
        self.runner: RevealRunner[dict[str, int]] = RevealRunner(
            self.reveal, self.readers, self._cards, self._prompt, poll_s
        )
        self.generation = self.reveal.generation
        self.started = False
        self._local = threading.local()  # .answers: what this thread's own call produced

    def _post(self, event: TableEvent) -> None:
        answers: list[TableEvent] | None = getattr(self._local, "answers", None)
        if answers is not None:
            answers.append(event)
        else:
            self.events.put(event)

    def _cards(self, cards: dict[str, int]) -> None:
        self._post(cards if isinstance(cards, TagCards) else TagCards(cards, -1))

    def _prompt(self, text: str) -> None:
        self._post(TagPrompt(text))

    def _answer(self, call: Callable[[], None]) -> list[TableEvent]:
        self._local.answers = []
        try:
            call()
            answers: list[TableEvent] = self._local.answers
            return answers
        finally:
            self._local.answers = None

    def start(self) -> TableTags:
        """Start polling the readers (after the first round is armed)."""
        self.runner.start()
        self.started = True
        return self

    def arm(self, state: GetBit, again: bool = False) -> None:
        """Wait for this round's cards; ``again`` forgets what was read for it so far."""
        if state.over:
            self.runner.disarm()
            return
        key = None if again else state.rounds + 1
        self.runner.new_round(entry_order(state), key=key)
        self.generation = self.reveal.generation

    def disarm(self) -> None:
        self.runner.disarm()

    def is_current(self, cards: TagCards) -> bool:
        return cards.generation == self.generation

    def demand(self) -> list[TableEvent]:
        """The round must be played: its cards, or prompts naming what is missing."""
        return self._answer(self.runner.demand)

    def correct(self, robot: str, card: int) -> list[TableEvent]:
        """A typed correction of one robot's card (line mode ``ted=5``)."""
        return self._answer(lambda: self.runner.feed(typed_line(f"{robot}={card}")))

    def status_line(self) -> str:
        return self.runner.status_line()

    def pending(self) -> list[TableEvent]:
        out: list[TableEvent] = []
        while True:
            try:
                out.append(self.events.get_nowait())
            except queue.Empty:
                return out

    def describe(self, setup: Setup) -> list[str]:
        """What the table reads and how, for the opening messages."""
        seats = self.reveal.seat_of_reader
        names = ", ".join(r.name for r in self.readers)
        if seats is None:
            which = "one reader" if len(self.readers) == 1 else "readers"
            how = f"{which} ({names}) for the table, the cards read in the order they are typed"
        else:
            # a serial or PN532 reader has its own index; the bridge numbers its readers
            named = {getattr(r, "index", None): r.name for r in self.readers}
            where = ", ".join(
                f"{robot} on {named[i]}" if i in named else f"{robot} on bridge reader {i}"
                for i, robot in seats.items()
            )
            how = f"one reader per robot: {where}"
        colours = self.reveal.colours
        shown = ", ".join(f"{r}={c}" for r, c in colours.items()) or "none"
        lines = [f"cards from the tags of {self.tags.name}: {how}; robot colours: {shown}"]
        missing = [
            getbit_card(colour, n)
            for colour in colours.values()
            for n in setup.full_hand
            if not self.tags.learned(getbit_card(colour, n))
        ]
        if missing:
            lines.append(f"not in {self.tags.name} (type them): {', '.join(missing)}")
        return lines

    def close(self) -> None:
        """Stop the runner and close the readers."""
        self.runner.close()  # its pool closes the readers it polled
        if not self.started:
            for reader in self.readers:
                reader.close()


# --------------------------------------------------------------------------------------
# The table: what both faces share
# --------------------------------------------------------------------------------------


@dataclass
class Table:
    """The session, the entry under way, the last announcement, the optional hardware."""

    session: Session
    secret: bool = False
    hardware: TableHardware | None = None
    tags: TableTags | None = None
    messages: list[str] = field(default_factory=list)
    announced: list[str] = field(default_factory=list)
    entry: Entry = field(init=False)

    def __post_init__(self) -> None:
        self.entry = Entry(self.session.state, self.secret)
        last = self.session.last
        if last is not None:
            self.announced = round_lines(last, self.session.state)
        if self.tags is not None:
            self.tags.arm(self.session.state)

    def notify(self, message: str) -> None:
        self.messages = [*self.messages, message][-4:]

    def key(self, key: str) -> None:
        """A card key or Backspace for the entry under way."""
        if self.session.state.over:
            return
        if self.hardware is not None and len(key) == 1 and key.isdigit():
            self.hardware.start_round()
        refusal = self.entry.key(key)
        if refusal:
            self.notify(refusal)

    def play(self, cards: Mapping[str, int]) -> RoundResult | None:
        """Play a round; a refusal (G7) is a message and changes nothing."""
        try:
            result = self.session.play(cards)
        except PlayError as exc:
            self.notify(refusal_text(self.session.state, exc))
            return None
        state = self.session.state
        self.announced = round_lines(result, state)
        self.messages = []  # refusals of the round just played are settled
        self.entry = Entry(state, self.secret)
        if self.tags is not None:
            self.tags.disarm()  # this round's reads are done with
            self.tags.arm(state)  # and the next round's are awaited
        if self.hardware is not None:
            self.hardware.show_round(result, state)
        return result

    def tag_event(self, event: TableEvent) -> RoundResult | None:
        """Apply what the tags produced: a prompt goes to the messages; a round's complete
        cards are played exactly as typed cards are (G7 refusals, save, announcements and
        LEDs alike). Cards of a round already played (typed meanwhile) are dropped."""
        tags = self.tags
        if isinstance(event, TagPrompt):
            self.notify(event.text)
            return None
        if not isinstance(event, TagCards) or tags is None or not tags.is_current(event):
            return None
        if self.session.state.over:
            return None
        if self.hardware is not None:
            self.hardware.start_round()
        result = self.play(event)
        if result is None:  # refused after all (the reveal checks first): read them again
            tags.arm(self.session.state, again=True)
            self.notify(f"scan the cards for {' '.join(entry_order(self.session.state))} again")
        return result

    def pending_tags(self) -> list[TableEvent]:
        """The events the tags produced since the last call (never waits)."""
        return [] if self.tags is None else self.tags.pending()

    def undo(self) -> None:
        n = self.session.undo()
        if n is None:
            self.notify("nothing to undo")
            return
        state = self.session.state
        last = self.session.last
        self.announced = round_lines(last, state) if last is not None else []
        self.entry = Entry(state, self.secret)
        self.notify(f"round {n} undone")
        if self.tags is not None:
            self.tags.arm(state)
        if self.hardware is not None:
            self.hardware.reset(state)

    def title(self) -> str:
        setup = self.session.setup
        flags = [f"{len(setup.robots)} robots", f"cards 1-{setup.hand_size}"]
        if setup.longer_games:
            flags.append("longer game")
        if setup.memory:
            flags.append("memory game")
        if setup.pickup_at != 1:
            flags.append(f"pick up at {setup.pickup_at}")
        return f"companion getbit · {' · '.join(flags)} · saved to {self.session.path}"


# --------------------------------------------------------------------------------------
# Line mode
# --------------------------------------------------------------------------------------

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


def run_lines(table: Table, stream: TextIO, out: TextIO) -> None:
    """One command per line, for scripts and pipes; prompts say what is expected.

    With tags, the lines and what the readers produce come in on one queue and are taken
    in order. The end of the input does not end the session then: the cards keep coming
    from the tags until the game is over (Ctrl-C stops; every round is saved).
    """
    tags = table.tags

    def say(*lines: str) -> None:
        print("\n".join(lines), file=out, flush=True)

    def show() -> None:
        say(*table_lines(table.session.state), *next_lines(table.session.state))
        if tags is not None and not table.session.state.over:
            say(f"tags: {tags.status_line()}")

    def flush_messages() -> None:
        if table.messages:
            say(*table.messages)
            table.messages = []

    def take(wait: bool) -> TableEvent | None:
        """The next line or tag event; without ``wait``, only one already there."""
        if tags is None:
            return TagLine(stream.readline() or None) if wait else None
        try:
            return tags.events.get(timeout=0.5) if wait else tags.events.get_nowait()
        except queue.Empty:
            return None

    def apply(events: list[TableEvent]) -> bool:
        """Tag events: prompts said, complete cards played and announced (True)."""
        played = False
        for event in events:
            result = table.tag_event(event)
            flush_messages()
            if result is not None:
                played = True
                say(*table.announced)
                show()
        return played

    if tags is not None:
        args = (stream, tags.events)
        threading.Thread(target=_pump, args=args, name="stdin", daemon=True).start()
    say(table.title())
    flush_messages()
    show()
    secret_typed: dict[str, int] = {}
    prompt_due = True
    ended = False  # the input has ended; with tags the game goes on
    while True:
        state = table.session.state
        if ended and state.over:
            break
        event = take(wait=not prompt_due)
        if event is None and prompt_due:
            prompt_due = False
            order = table.entry.order
            if state.over:
                say("(undo, show or quit)")
            elif table.secret:
                robot = order[len(secret_typed)]
                say(f"{state.setup.robots[robot]}, {robot}'s card (hidden):")
            elif tags is not None:
                say(f"round {state.rounds + 1} cards for {' '.join(order)} (tags, or type them):")
            else:
                say(f"round {state.rounds + 1} cards for {' '.join(order)}:")
            continue
        if event is None:
            continue
        if not isinstance(event, TagLine):
            if apply([event]):
                secret_typed = {}
                prompt_due = not ended
            continue
        if event.text is None:
            if tags is None or state.over:
                break
            ended = True
            say("end of input: the cards keep coming from the tags until the game is over")
            continue
        prompt_due = True
        line = event.text
        words = line.split()
        if not words:
            continue
        command = words[0].lower()
        if command in ("quit", "exit", "q"):
            break
        if command == "undo":
            secret_typed = {}
            table.undo()
            flush_messages()
            show()
            continue
        if command in ("show", "status"):
            show()
            continue
        if command == "help":
            say(LINE_HELP)
            if tags is not None:
                say(TAGS_HELP)
            continue
        if command == "demand":
            if tags is None:
                say(NO_TAGS)
            elif state.over:
                say(f"the game is over ({state.winner} won): undo, show or quit")
            elif apply(tags.demand()):
                secret_typed = {}
            continue
        if command in ("press", "leds"):
            if table.hardware is None:
                say("no hardware: run with --config")
            elif command == "leds":
                say(table.hardware.status())
            else:
                for player in words[1:]:
                    try:
                        table.hardware.press(player)
                    except HardwareError as exc:
                        say(str(exc))
                say(table.hardware.status())
            continue
        if state.over:
            say(f"the game is over ({state.winner} won): undo, show or quit")
            continue
        order = table.entry.order
        if table.hardware is not None:
            table.hardware.start_round()
        if table.secret:
            robot = order[len(secret_typed)]
            if not command.isdigit() or int(command) not in state.hands[robot]:
                say(f"{robot} cannot play that card: choose again")
                continue
            secret_typed[robot] = int(command)
            if len(secret_typed) < len(order):
                continue
            cards, secret_typed = secret_typed, {}
        else:
            try:
                cards = parse_cards(line, order)
            except ValueError as exc:
                say(str(exc))
                continue
            if tags is not None and "=" in line and set(cards) < set(order):
                answers = [e for r, c in cards.items() for e in tags.correct(r, c)]
                if not apply(answers):  # some robots only: corrections of the tags
                    say(f"tags: {tags.status_line()}")
                continue
        result = table.play(cards)
        flush_messages()
        if result is not None:
            say(*table.announced)
            show()


# --------------------------------------------------------------------------------------
# The curses screen
# --------------------------------------------------------------------------------------


def run_curses(table: Table) -> None:
    """The full-screen table until the players quit (the game is saved all along)."""
    import curses

    def loop(screen: Any) -> None:
        terminal.prepare(screen, 50)
        asking: str | None = None  # "quit" or "undo" while waiting for y/n
        hw = table.hardware
        while True:
            for event in table.pending_tags():
                table.tag_event(event)
            draw(screen, table, asking)
            try:
                key = screen.get_wch()
            except curses.error:
                continue
            name = key if isinstance(key, str) else curses.keyname(key).decode()
            if asking is not None:
                if name in ("y", "Y"):
                    if asking == "quit":
                        return
                    table.undo()
                asking = None
                continue
            if hw is not None and name in MOCK_PRESS_KEYS and hw.opened.name == "mock":
                players = list(hw.config.lock_in)
                i = MOCK_PRESS_KEYS.index(name)
                if i < len(players):
                    hw.press(players[i])
            elif name in ("q", "Q"):
                asking = "quit"
            elif name in ("u", "U") and not table.entry.started:
                asking = "undo"
            elif name in ENTER_KEYS:
                if table.session.state.over:
                    pass
                elif table.entry.complete:
                    table.play(table.entry.cards())
                elif table.tags is not None and not table.entry.started:
                    for event in table.tags.demand():  # the tags' cards, or what is missing
                        table.tag_event(event)
            else:
                table.key(name)

    curses.wrapper(loop)


def draw(screen: Any, table: Table, asking: str | None) -> None:
    import curses

    screen.erase()
    height, width = screen.getmaxyx()

    def put(y: int, x: int, text: str, attr: int = 0) -> None:
        terminal.put(screen, y, x, text, attr)

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


def serve(table: Table, interactive: bool | None = None) -> None:
    """The curses screen on a terminal, else the line mode on stdin/stdout."""
    if interactive if interactive is not None else sys.stdin.isatty():
        run_curses(table)
    else:
        run_lines(table, sys.stdin, sys.stdout)
