"""``companion chips``: a helper at a Great Chips Escape table.

It follows the game from what the players announce (``5``, ``6 triple``, ``draw``,
``reveal mad 2``...) with :class:`companion.games.chips.ChipsTable`: whose turn it is,
the top card, every hand's size, the Mad Fish in front of each player. An illegal discard
is refused with the reason; ``undo`` takes back the last command. On a terminal it is a
full screen; with piped input it reads one command per line (for scripts and tests).

With ``--config`` each player may have an LED, driven through
:class:`companion.devices.outputs.TableOutputs` (docs/chips.md has the table):

* the LED of the player who must act now is lit: ``Cue(Signal.TURN, player)`` after a
  ``Cue(Signal.READY)`` that clears every LED (and lights the status LED);
* a player eliminated by her third Mad Fish: ``Cue(Signal.ELIMINATED, player)``;
* the end: ``Cue(Signal.GAME_OVER, winner)``.
"""

from __future__ import annotations

import argparse
import collections
import sys
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from companion import data, terminal
from companion.config import (
    PIN_FACTORIES,
    BuzzerConfig,
    BuzzerKind,
    LedConfig,
    LedKind,
    parse_led,
    parse_pin,
)
from companion.errors import ConfigError, InputError, RuleError
from companion.games.chips import (
    ChipsRules,
    ChipsStep,
    ChipsTable,
    EscapeCard,
    Kind,
    check_players,
    rules_from_dict,
    table_from_dict,
)
from companion.signals import Cue, Signal

# --------------------------------------------------------------------------------------
# The command line
# --------------------------------------------------------------------------------------


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    chips = commands.add_parser(
        "chips",
        help="The Great Chips Escape: a table helper (turns, Mad Fish, legal discards, LEDs)",
        description="Follow a game of The Great Chips Escape at the table: type what each "
        "player does and the helper keeps the turns, the hand sizes and the Mad Fish, "
        "refuses a discard that does not fit, and lights the LED of whoever must act. "
        "Type 'help' for the commands (docs/chips.md).",
    )
    chips.add_argument("--players", metavar="A,B,C", help="seat names, in turn order")
    chips.add_argument("--first", metavar="NAME", help="who begins (the youngest player)")
    chips.add_argument(
        "--top", type=int, metavar="N", help="the number of the card that starts the discard pile"
    )
    chips.add_argument(
        "--config",
        metavar="TOML",
        help="players with their LEDs, deck settings (see examples/chips-table.toml)",
    )
    chips.add_argument(
        "--pin-factory",
        metavar="NAME",
        help="override the config's gpio.pin_factory: mock (simulated pins) or auto",
    )
    chips.set_defaults(handler=run_chips)


# --------------------------------------------------------------------------------------
# The config file
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChipsConfig:
    players: tuple[str, ...]
    leds: dict[str, LedConfig | None] = field(default_factory=dict)
    first: str | None = None
    rules: ChipsRules = field(default_factory=ChipsRules)
    pin_factory: str = "auto"
    buzzer: BuzzerConfig | None = None
    status_led: LedConfig | None = None
    strict: bool = False  # E13: a [rules] table transcribes the real deck

    @property
    def has_outputs(self) -> bool:
        return any(self.leds.values()) or self.buzzer is not None or self.status_led is not None


def config_from_dict(value: object) -> ChipsConfig:
    """The helper's TOML as data; errors name the key (``players[1].led``)."""
    raw = data.obj(
        value,
        data.ROOT,
        required=("players",),
        optional=("game", "gpio", "buzzer", "status_led", "rules"),
    )
    game = data.obj(raw.get("game", {}), "game", optional=("first",))
    gpio = data.obj(raw.get("gpio", {}), "gpio", optional=("pin_factory",))
    rules = rules_from_dict(raw.get("rules", {}), "rules")
    used: dict[int, str] = {}

    def claim(led: LedConfig, path: str) -> LedConfig:
        for pin in led.pins:
            if pin in used:
                raise data.fail(path, f"GPIO{pin} is already used by {used[pin]}")
            used[pin] = path
        return led

    leds: dict[str, LedConfig | None] = {}
    for i, item in enumerate(data.lst(raw["players"], "players")):
        here = data.at("players", i)
        p = data.obj(item, here, required=("name",), optional=("led",))
        name = check_name(
            data.name(p["name"], data.at(here, "name"), "player"), data.at(here, "name")
        )
        if name in leds:
            raise data.fail(data.at(here, "name"), f"player {name!r} is named twice")
        leds[name] = (
            claim(parse_led(p["led"], data.at(here, "led")), data.at(here, "led"))
            if "led" in p
            else None
        )
    players = tuple(leds)
    try:
        check_players(players, rules)
    except RuleError as exc:
        raise data.fail("players", str(exc)) from None
    first = None
    if "first" in game:
        first = data.name(game["first"], "game.first", "player")
        if first not in players:
            raise data.fail("game.first", f"{first!r} is not one of the players")
    buzzer = None
    if "buzzer" in raw:
        b = data.obj(raw["buzzer"], "buzzer", required=("pin",), optional=("kind",))
        kinds = {str(k): k for k in BuzzerKind}
        kind = data.choice(b.get("kind", "active"), "buzzer.kind", kinds, "buzzer kind")
        pin = parse_pin(b["pin"], "buzzer.pin")
        claim(LedConfig(LedKind.PLAIN, (pin,)), "buzzer.pin")
        buzzer = BuzzerConfig(pin, kind)
    status = (
        claim(parse_led(raw["status_led"], "status_led"), "status_led")
        if "status_led" in raw
        else None
    )
    factories = {f: f for f in PIN_FACTORIES}
    factory = data.choice(gpio.get("pin_factory", "auto"), "gpio.pin_factory", factories, "factory")
    return ChipsConfig(players, leds, first, rules, factory, buzzer, status, "rules" in raw)


def load_config(path: str) -> ChipsConfig:
    """Read and check the TOML file; a problem is one ConfigError naming file and key."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("", "no such config file", path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError("", f"cannot read: {exc}", path) from None
    try:
        raw: Any = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("", f"not TOML: {exc}", path) from None
    try:
        return config_from_dict(raw)
    except InputError as exc:
        raise ConfigError(exc.where, exc.message, path) from None


# --------------------------------------------------------------------------------------
# What the players type
# --------------------------------------------------------------------------------------

KIND_WORDS: dict[str, Kind] = {
    "everyone": Kind.CHIPS_FOR_EVERYONE,
    "cfe": Kind.CHIPS_FOR_EVERYONE,
    "knight": Kind.GOLDEN_KNIGHT,
    "gk": Kind.GOLDEN_KNIGHT,
    "sir": Kind.SIR_FRIES,
    "fries": Kind.SIR_FRIES,
    "spy": Kind.SPY_FRY,
    "time": Kind.FISH_OR_CHIPS_TIME,
    "foct": Kind.FISH_OR_CHIPS_TIME,
    "triple": Kind.TRIPLE_CHIPS,
}

COMMAND_WORDS = frozenset(
    {
        *KIND_WORDS,
        "top",
        "draw",
        "d",
        "reveal",
        "mad",
        "heroes",
        "k",
        "no",
        "n",
        "done",
        "choose",
        "pass",
        "undo",
        "u",
        "status",
        "s",
        "help",
        "?",
        "quit",
        "q",
        "exit",
        "any",
    }
)

HELP = """\
Commands (one per line; the number first for a discard):
  5                 discard a 5 (a number card, or a special card discarded for nothing)
  5 everyone        Chips for Everyone: all other players draw a card
  5 knight          a Golden Knight discarded normally (no effect)
  5 sir [6,9]       Sir Fries (its numbers, if the rules have two Sir Fries 5s)
  5 spy             Spy Fry, then name the player whose hand you look at
  5 time [any]      Fish-or-Chips Time ('any': the card with the any-player sign)
  5 triple          Triple Chips: then up to three discards, 'done' to stop
  draw              draw a card (playable from your next turn)
  reveal mad 2      reveal a Mad Fish that makes you draw 2 (or: mad 2)
  reveal heroes     reveal Chips Heroes (or: heroes)
  knight | no       cover the Mad Fish just revealed with a Golden Knight, or not
  done              stop Triple Chips; no more cards for Chips Heroes or Sir Fries
  NAME              who must reveal (Fish-or-Chips Time), whose hand (Spy Fry)
  pass              nothing else is possible
  undo  status  help  quit"""


def check_name(name: str, where: str) -> str:
    """Player names must not read as commands or numbers at the prompt."""
    if name.lower() in COMMAND_WORDS or name.isdigit() or name.isdecimal():
        raise data.fail(where, f"{name!r} reads as a command: choose another name")
    return name


def _shown(word: str) -> str:
    """A typed word as a refusal quotes it: cut short, so a refusal stays one line."""
    return repr(word if len(word) <= 12 else word[:10] + "…")


def _digits(word: str) -> bool:
    """ASCII digits only: ``"²".isdigit()`` is True but ``int("²")`` fails."""
    return word.isascii() and word.isdecimal()


def _number(word: str) -> int:
    if not _digits(word) or len(word) > 1 or not 1 <= int(word) <= 9:
        raise RuleError(f"cards show 1 to 9, not {_shown(word)}")
    return int(word)


def _card(words: Sequence[str]) -> EscapeCard:
    """``5``, ``5 triple``, ``3 sir 6,9``, ``1 time any``."""
    number = _number(words[0])
    if len(words) == 1:
        return EscapeCard(Kind.NUMBER, number)
    kind = KIND_WORDS.get(words[1].lower())
    if kind is None:
        raise RuleError(
            f"unknown card {_shown(words[1])} (one of: {', '.join(sorted(set(KIND_WORDS)))})"
        )
    rest = [w.lower() for w in words[2:]]
    if kind is Kind.SIR_FRIES and rest:
        if len(rest) > 1:
            raise RuleError(f"give Sir Fries' numbers in one word: {words[0]} sir 2,8")
        numbers = tuple(
            dict.fromkeys(_number(n) for n in rest[0].replace("/", ",").split(",") if n)
        )
        return EscapeCard(kind, number, numbers)
    if kind is Kind.FISH_OR_CHIPS_TIME and rest:
        if rest != ["any"]:
            raise RuleError(
                f"'{words[0]} time' takes only 'any' after it, not {_shown(' '.join(rest))}"
            )
        return EscapeCard(kind, number, any_player=True)
    if rest:
        raise RuleError(f"nothing goes after '{words[0]} {words[1]}'")
    return EscapeCard(kind, number)


def execute(table: ChipsTable, words: Sequence[str]) -> str:
    """One game command on the table; RuleError (nothing changed) when it is not allowed."""
    head = words[0].lower()
    step = table.pending.step if table.pending else None
    if table.top is None:
        if head == "top" and len(words) == 2:
            return table.start(_number(words[1]))
        if _digits(head) and len(words) == 1:
            return table.start(_number(head))
        raise RuleError("first turn over the deck's top card and type its number")
    if _digits(head):
        return table.discard_card(_card(words))
    if head in ("draw", "d") and len(words) == 1:
        return table.draw()
    if head == "reveal":
        words = words[1:]
        if not words:
            raise RuleError("reveal what? reveal mad 2 (a Mad Fish drawing 2) or reveal heroes")
        head = words[0].lower()
    if head == "mad":
        if len(words) != 2 or not _digits(words[1]) or len(words[1]) > 3:
            raise RuleError("say how many cards the Mad Fish makes her draw: mad 2")
        return table.reveal_mad_fish(int(words[1]))
    if head == "heroes" and len(words) == 1:
        return table.reveal_heroes()
    if head in ("knight", "k") and len(words) == 1:
        return table.knight()
    if head in ("no", "n") and len(words) == 1:
        return table.decline()
    if head == "done" and len(words) == 1:
        return table.stop()
    if head == "pass" and len(words) == 1:
        return table.pass_turn()
    if head in ("choose", "spy") and len(words) == 2:
        words = words[1:]
    name = next((p for p in table.players if p.lower() == words[0].lower()), None)
    if name is not None and len(words) == 1:
        if step is ChipsStep.SPY_FRY:
            return table.spy(name)
        if step is ChipsStep.FISH_TIME:
            return table.choose(name)
        raise RuleError("nobody needs a player's name now")
    raise RuleError(f"not a command: {_shown(' '.join(words))} (type help)")


# --------------------------------------------------------------------------------------
# The helper: the table, its undo history and its lights
# --------------------------------------------------------------------------------------


Render = Callable[[Sequence[Cue]], None]


@dataclass
class Helper:
    """The table plus what the command line adds: undo, messages, the LEDs."""

    table: ChipsTable
    render: Render | None = None
    history: list[dict[str, Any]] = field(default_factory=list)
    messages: collections.deque[str] = field(default_factory=lambda: collections.deque(maxlen=8))
    shown: tuple[str | None, str | None, tuple[str, ...]] | None = None

    def __post_init__(self) -> None:
        self.lights()

    def lights(self) -> None:
        """Light whoever must act; show eliminations and the end (docs/chips.md)."""
        t = self.table
        actor = t.actor if t.top is not None else None
        now = (actor, t.winner, tuple(t.out))
        if now == self.shown or self.render is None:
            self.shown = now
            return
        before = self.shown[2] if self.shown else ()
        cues = [Cue(Signal.READY)]
        cues += [Cue(Signal.ELIMINATED, p) for p in t.out if p not in before]
        if t.winner is not None:
            cues.append(Cue(Signal.GAME_OVER, t.winner))
        elif actor is not None:
            cues.append(Cue(Signal.TURN, actor))
        self.shown = now
        self.render(cues)

    def command(self, line: str) -> str | None:
        """Run one typed line; the reply to show, or None to quit."""
        words = line.split()
        if not words:
            return ""
        head = words[0].lower()
        if head in ("quit", "q", "exit"):
            return None
        if head in ("help", "?"):
            return HELP
        if head in ("status", "s"):
            return status_text(self.table)
        if head in ("undo", "u"):
            if not self.history:
                return "nothing to undo"
            self.table = table_from_dict(self.history.pop())
            self.lights()
            return "undone."
        snapshot = self.table.to_dict()
        try:
            said = execute(self.table, words)
        except RuleError as exc:
            self.table = table_from_dict(snapshot)  # belt and braces: nothing changed
            return f"no: {exc}"
        self.history.append(snapshot)
        self.lights()
        return said.strip()


def status_text(table: ChipsTable) -> str:
    """The table in a few lines: top card, deck, every player's counts."""
    top = "-" if table.top is None else str(table.top)
    lines = [f"top {top} · deck {table.deck} · discard pile {table.discard}"]
    width = max(len(p) for p in table.players)
    for p in table.players:
        mark = "▶" if p == table.actor else " "
        if p in table.out:
            lines.append(f"{mark} {p:<{width}}  out")
            continue
        new = f" ({table.fresh[p]} new)" if table.fresh[p] else ""
        lines.append(
            f"{mark} {p:<{width}}  {table.hands[p]:>2} cards{new:<9}  "
            f"fish-or-chips {table.down[p]} face down  "
            f"Mad Fish {table.mad[p]}/{table.rules.mad_fish_to_lose}"
        )
    return "\n".join(lines)


# --------------------------------------------------------------------------------------
# Running it
# --------------------------------------------------------------------------------------


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def run_chips(args: argparse.Namespace) -> int:
    config = load_config(args.config) if args.config else None
    if args.players:
        players = _names(args.players)
        for i, name in enumerate(players):
            check_name(name, f"--players[{i}]")
        if config is not None and tuple(players) != config.players:
            raise InputError("--players", f"the config seats {', '.join(config.players)}")
    elif config is not None:
        players = list(config.players)
    else:
        raise InputError("--players", "name the players in turn order (--players ann,bob,cat)")
    rules = config.rules if config else ChipsRules()
    first = args.first or (config.first if config else None)
    try:
        table = ChipsTable.new(players, rules, first, strict=bool(config and config.strict))
    except RuleError as exc:
        raise InputError(
            "--first" if first and first not in players else "--players", str(exc)
        ) from None
    if args.top is not None:
        try:
            table.start(args.top)
        except RuleError as exc:
            raise InputError("--top", str(exc)) from None
    factory = args.pin_factory or (config.pin_factory if config else None)
    if factory is not None and factory not in PIN_FACTORIES:
        raise InputError("--pin-factory", f"one of: {', '.join(PIN_FACTORIES)}")
    outputs = None
    opened = None
    if config is not None and config.has_outputs and factory is not None:
        from companion.devices.outputs import TableOutputs
        from companion.devices.pins import open_factory

        opened = open_factory(factory)
        try:
            outputs = TableOutputs(config.leds, config.buzzer, config.status_led, opened)
        except BaseException:
            opened.close()
            raise
    try:
        helper = Helper(table, outputs.render if outputs else None)
        title = f"The Great Chips Escape · {', '.join(players)}"
        if opened is not None:
            helper.messages.append(f"LEDs on {opened.name} pins")
        elif args.pin_factory:
            helper.messages.append("no LEDs: --pin-factory needs a --config that gives LED pins")

        def led(player: str) -> bool | None:
            leds = config.leds if config else {}
            cfg = leds.get(player)
            if opened is None or cfg is None:
                return None
            return any(bool(opened.factory.pin(pin).state) for pin in cfg.pins)

        if sys.stdin.isatty() and sys.stdout.isatty():
            run_curses(helper, title, led)
        else:
            run_lines(helper, title, sys.stdin, sys.stdout)
    finally:
        if outputs is not None:
            outputs.close()
        if opened is not None:
            opened.close()
    return 0


def run_lines(helper: Helper, title: str, stream: TextIO, out: TextIO) -> None:
    """Line mode: a command per line in, the reply and what comes next out."""
    print(f"{title}. Type help for the commands.", file=out)
    for message in helper.messages:
        print(message, file=out)
    print(helper.table.prompt(), file=out, flush=True)
    for line in stream:
        if line.strip():
            print(f"> {line.strip()}", file=out)
        reply = helper.command(line)
        if reply is None:
            break
        if reply:
            print(reply, file=out)
        if line.split() and line.split()[0].lower() not in ("help", "?", "status", "s"):
            print(helper.table.prompt(), file=out)
        out.flush()


def run_curses(helper: Helper, title: str, led: Callable[[str], bool | None]) -> None:
    """The full-screen table: the players, the top card, the prompt, a command line."""
    import curses

    def loop(screen: Any) -> None:
        terminal.prepare(screen, 100, cursor=True)
        typed = ""
        quit_armed = False
        last = ""
        while True:
            draw(screen, helper, title, led, typed, last, quit_armed)
            try:
                key = screen.get_wch()
            except curses.error:
                continue
            name = key if isinstance(key, str) else curses.keyname(key).decode()
            if quit_armed:
                if name in ("y", "Y"):
                    return
                quit_armed = False
                continue
            if name in ("\n", "\r", "KEY_ENTER"):
                reply = helper.command(typed)
                typed = ""
                if reply is None:
                    quit_armed = True
                elif "\n" in reply:  # help or status: shown whole until the next command
                    last = reply
                else:
                    last = ""
                    if reply:
                        helper.messages.append(reply)
            elif name in ("\x7f", "\b", "KEY_BACKSPACE"):
                typed = typed[:-1]
            elif name == "\x1b":
                typed = ""
            elif len(name) == 1 and name.isprintable():
                typed += name

    curses.wrapper(loop)


def draw(
    screen: Any,
    helper: Helper,
    title: str,
    led: Callable[[str], bool | None],
    typed: str,
    last: str,
    quit_armed: bool,
) -> None:
    import curses

    screen.erase()
    height, width = screen.getmaxyx()

    body = height - 2  # the last two rows: the quit question and the command line

    def put(y: int, x: int, text: str, attr: int = 0, bottom: bool = False) -> None:
        terminal.put(screen, y, x, text, attr, None if bottom else body)

    t = helper.table
    put(0, 0, title, curses.A_BOLD)
    top = "-" if t.top is None else str(t.top)
    put(1, 0, f"Top card  {top}", curses.A_BOLD | curses.color_pair(2))
    put(1, 14, f"   deck {t.deck} · discard pile {t.discard}")
    y = 3
    name_width = max(len(p) for p in t.players)
    for p in t.players:
        lit = led(p)
        acting = p == t.actor
        lamp = ("●" if lit else "○") if lit is not None else ("▶" if acting else " ")
        put(y, 1, lamp, curses.color_pair(1) | curses.A_BOLD if (lit or acting) else 0)
        if p in t.out:
            put(y, 3, f"{p:<{name_width}}  out", curses.A_DIM)
        else:
            new = f" ({t.fresh[p]} new)" if t.fresh[p] else ""
            fish = "▮" * t.down[p]
            mad = f"Mad Fish {'✕' * t.mad[p]}{'·' * max(0, t.rules.mad_fish_to_lose - t.mad[p])}"
            line = f"{p:<{name_width}}  {t.hands[p]:>2} cards{new:<9}  {fish:<6} {mad}"
            put(y, 3, line, curses.A_BOLD if acting else 0)
        y += 1
    y += 1
    put(y, 0, t.prompt(), curses.A_BOLD | (curses.color_pair(1) if t.winner else 0))
    y += 2
    if last:  # help or status: show it whole
        for line in last.splitlines():
            put(y, 0, line, curses.A_DIM)
            y += 1
        y += 1
    for message in helper.messages:
        put(y, 0, message, curses.color_pair(3) if message.startswith("no:") else 0)
        y += 1
    if quit_armed:
        put(height - 2, 0, "Quit the helper? y / n", curses.color_pair(3) | curses.A_BOLD, True)
    prompt = f"> {typed}"
    put(height - 1, 0, prompt, bottom=True)
    put(height - 1, len(prompt) + 2, "help · undo · quit", curses.A_DIM, True)
    try:
        screen.move(height - 1, min(len(prompt), width - 1))
    except curses.error:
        pass
    screen.refresh()
