"""``companion getbit replay`` and ``companion getbit play``: Get Bit! from a file, at the table."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from companion.commands.options import add_history_options, add_web_option
from companion.errors import InputError

if TYPE_CHECKING:
    from pathlib import Path

    from companion.games.getbit import Replay, Setup
    from companion.tables.getbit.config import GetBitConfig


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    getbit = commands.add_parser("getbit", help="Get Bit!, the robot and shark game")
    sub = getbit.add_subparsers(dest="getbit_command", metavar="COMMAND", required=True)

    replay = sub.add_parser(
        "replay",
        help="replay a game from a JSON file: the line, limbs, hands, who is out",
        description="Replay a Get Bit! game round by round (the JSON of docs/formats.md).",
    )
    replay.add_argument("file", metavar="FILE|-", help="game JSON, or - for stdin")
    replay.add_argument("--json", action="store_true", help="print the result as JSON")
    replay.set_defaults(handler=run_replay)

    _register_play(sub)


def _register_play(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    play = sub.add_parser(
        "play",
        help="track a game at the table: cards in, moves and bites announced, saved each round",
        description="Keep a Get Bit! game at the table (docs/getbit.md): type the cards "
        "after each reveal, and the companion moves the line, bites, counts limbs and "
        "hands, and saves the game after every round (a file `getbit replay` reads).",
    )
    _register_new_game(play)
    play.add_argument(
        "--secret",
        action="store_true",
        help="each player types their own card, hidden, player by player",
    )
    play.add_argument(
        "--save",
        default=None,
        metavar="FILE",
        help="where the game is saved after every round (default getbit-game.json)",
    )
    group = play.add_mutually_exclusive_group()
    group.add_argument("--resume", action="store_true", help="continue the saved game")
    group.add_argument(
        "--new", action="store_true", help="start a new game; an existing save is kept aside"
    )
    play.add_argument(
        "--config",
        metavar="TOML",
        help="LEDs, buzzer and lock-in buttons: a [getbit] table "
        "(examples/getbit-table.example.toml)",
    )
    play.add_argument(
        "--pin-factory", metavar="NAME", help="override the config's pin_factory (e.g. mock)"
    )
    add_web_option(play)
    add_history_options(play)
    _register_tags(play)
    play.set_defaults(handler=run_play)


def _register_new_game(play: argparse.ArgumentParser) -> None:
    """The options that set up a new game (a resumed one comes from its save)."""
    who = play.add_argument_group("a new game")
    who.add_argument(
        "--players",
        metavar="A,B,...",
        help="2 to 6 players; with 4-6 each robot is named after its player, with 2-3 each "
        "player gets two robots, A-1 and A-2",
    )
    who.add_argument(
        "--robots",
        metavar="ROBOT=PLAYER,...",
        help="name the robots and who plays each, in seat order (e.g. red=ann,blue=bob,...)",
    )
    who.add_argument("--line", metavar="R,R,...", help="starting line, front first")
    who.add_argument("--seed", type=int, help="seed for the random starting line")
    who.add_argument(
        "--longer-games", action="store_true", help="a bite takes half a limb (variant)"
    )
    who.add_argument(
        "--memory", action="store_true", help="played cards are not shown (variant, G6)"
    )
    who.add_argument(
        "--pickup-at",
        type=int,
        default=None,
        metavar="N",
        help="a robot left with N cards takes back its played cards (default 1, ruling G4)",
    )


def _register_tags(play: argparse.ArgumentParser) -> None:
    tags = play.add_argument_group(
        "cards from tags", "read each round's cards from the cards' tags (docs/getbit.md)"
    )
    tags.add_argument(
        "--tags", metavar="FILE", help="a Get Bit! tag file (companion tags learn --game getbit)"
    )
    tags.add_argument(
        "--reader",
        action="append",
        metavar="SPEC",
        help="serial:PORT[@BAUD], pn532:PORT[@BAUD] or bridge; repeat for more readers "
        "(keyboard is refused: the keyboard is the table's own input)",
    )
    tags.add_argument(
        "--reader-seats",
        metavar="ROBOT,...",
        help="one reader per robot: the robots in reader order (the Nth --reader, or the "
        "bridge's reader N-1); default: one reader, cards read in the order they are typed",
    )
    tags.add_argument(
        "--colours",
        metavar="ROBOT=COLOUR,...",
        help="each robot's card colour (red, orange, yellow, green, blue, purple), so another "
        "robot's card is refused; default: a robot named after a colour has it; none: no colours",
    )


def run_replay(args: argparse.Namespace) -> int:
    from companion.files import dump_json, read_json, source_name
    from companion.games.getbit import GetBit
    from companion.games.getbit_formats import replay_from_dict
    from companion.games.getbit_text import cards_text, limbs_text, next_lines, table_lines

    try:
        game = replay_from_dict(read_json(args.file))
    except InputError as exc:
        raise (exc if exc.source else exc.in_source(source_name(args.file))) from None
    if args.json:
        print(dump_json(game.to_dict()))
        return 0
    setup = game.setup
    players = ", ".join(setup.players)
    print(f"Get Bit!: {players} · {len(setup.robots)} robots, cards 1-{setup.hand_size}")
    if setup.memory:
        print("memory game: cards are not shown (--json shows the hands)")
    state = GetBit.new(setup)
    for cards, result in zip(game.rounds, game.results, strict=True):
        state, _ = state.play(cards)
        parts = [f"moved {', '.join(result.moved)}" if result.moved else "nobody moved"]
        if result.bitten is None:
            parts.append("no bite")
        elif result.bitten in result.out:
            parts.append(f"{result.bitten} bitten and out")
        else:
            parts.append(f"{result.bitten} bitten ({limbs_text(state.limbs(result.bitten))} left)")
        if result.eaten is not None:
            parts.append(f"the shark eats {result.eaten}")
        elif result.winner is not None:
            parts.append(f"{setup.robots[result.out[0]]} loses")
        if result.picked_up:
            parts.append(f"picked up: {', '.join(result.picked_up)}")
        shown = "" if setup.memory else cards_text(result.cards) + "  "
        print(f"round {result.number:>3}  {shown}{'; '.join(parts)}")
    print()
    for line in table_lines(game.state):
        print(line)
    print(next_lines(game.state)[0])
    return 0


def _pairs(text: str, where: str, form: str = "ROBOT=PLAYER") -> dict[str, str]:
    robots: dict[str, str] = {}
    for item in text.split(","):
        robot, _, player = item.strip().partition("=")
        if not robot or not player:
            raise InputError(where, f"write {form}, not {item.strip()!r}")
        if robot in robots:
            raise InputError(where, f"robot {robot!r} is named twice")
        robots[robot] = player
    return robots


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def _new_setup(args: argparse.Namespace, config_robots: dict[str, str]) -> Setup | None:
    """The setup a new game starts from, from the options and the config's robots."""
    import random

    from companion.games.getbit import Setup, SetupError, default_robots, random_line

    if args.robots:
        robots, where = _pairs(args.robots, "--robots"), "--robots"
    elif args.players:
        players = _names(args.players)
        if len(set(players)) != len(players):
            raise InputError("--players", "a player is named twice")
        robots, where = default_robots(players), "--players"
    elif config_robots:
        robots, where = config_robots, "getbit.robots"
    else:
        return None
    if config_robots and (args.robots or args.players) and robots != config_robots:
        raise InputError(where, "the config's [getbit] robots name the robots already")
    line = tuple(_names(args.line)) if args.line else random_line(robots, random.Random(args.seed))
    pickup_at = 1 if args.pickup_at is None else args.pickup_at
    try:
        return Setup(robots, line, args.longer_games, args.memory, pickup_at)
    except SetupError as exc:
        key = {"robots": where, "line": "--line", "pickup_at": "--pickup-at"}[exc.key]
        raise InputError(key, str(exc)) from None


KEYBOARD_REFUSED = (
    "keyboard: a keyboard-wedge scanner would type into the table's own input (the "
    "screen's keys, or the line commands), where a scanned code could be taken for the "
    "cards or a command; set the scanner to serial mode and use serial:PORT (docs/tags.md), "
    "or pn532:PORT or bridge"
)


def _check_tag_options(args: argparse.Namespace) -> None:
    """The tag options go together; the keyboard is not a reader here."""
    readers = args.reader or []
    if args.tags and not readers:
        raise InputError(
            "--tags", "name the reader with --reader (serial:PORT, pn532:PORT, bridge)"
        )
    if not args.tags:
        given = [
            name
            for name, value in (
                ("--reader", readers),
                ("--reader-seats", args.reader_seats),
                ("--colours", args.colours),
            )
            if value
        ]
        if given:
            raise InputError(given[0], "reads the cards' tags: give the tag file with --tags FILE")
    if "keyboard" in readers:
        raise InputError("--reader", KEYBOARD_REFUSED)


def _reader_seats(text: str, setup: Setup, specs: list[str]) -> dict[int, str]:
    """``--reader-seats``: reader index -> robot, every robot once."""
    robots = _names(text)
    unknown = [r for r in robots if r not in setup.robots]
    if unknown:
        raise InputError("--reader-seats", f"not a robot of this game: {', '.join(unknown)}")
    twice = sorted({r for r in robots if robots.count(r) > 1})
    if twice:
        raise InputError("--reader-seats", f"a robot is named twice: {', '.join(twice)}")
    missing = [r for r in setup.robots if r not in robots]
    if missing:
        raise InputError(
            "--reader-seats", f"each robot needs its reader; none for {', '.join(missing)}"
        )
    if "bridge" in specs:
        if len(specs) > 1:
            raise InputError(
                "--reader-seats",
                "the bridge numbers its own readers: with --reader-seats use --reader bridge "
                "alone, or one serial/pn532 reader per robot",
            )
    elif len(specs) != len(robots):
        raise InputError(
            "--reader-seats",
            f"one robot per --reader: {len(specs)} reader(s) for {len(robots)} robots",
        )
    return dict(enumerate(robots))


def _colours(text: str | None, setup: Setup) -> dict[str, str]:
    """``--colours``: robot -> card colour. By default a robot named after a colour
    (``--robots red=ann,...``) has that colour; ``none`` takes no colours at all."""
    from companion.tags.tagfile import GETBIT_COLOURS

    colours = {r: r for r in setup.robots if r in GETBIT_COLOURS}
    if text is None:
        return colours
    if text.strip() == "none":
        return {}
    for robot, colour in _pairs(text, "--colours", "ROBOT=COLOUR").items():
        if robot not in setup.robots:
            raise InputError("--colours", f"not a robot of this game: {robot!r}")
        if colour not in GETBIT_COLOURS:
            raise InputError(
                "--colours", f"unknown colour {colour!r} (one of: {', '.join(GETBIT_COLOURS)})"
            )
        colours[robot] = colour
    shared = sorted({c for c in colours.values() if list(colours.values()).count(c) > 1})
    if shared:
        robots = [r for r, c in colours.items() if c in shared]
        raise InputError("--colours", f"two robots with one colour: {', '.join(robots)}")
    return colours


def _serve_web(listen: str, table: Any) -> Callable[[], None]:
    """``--web``: the Get Bit! page served beside the terminal; returns how to stop it."""
    from companion.tables.getbit.web import GetBitWebTable
    from companion.tables.web.serve import serve_tables

    page = GetBitWebTable(table)
    site, running = serve_tables([page], listen)
    table.notify(f"web: {running.url} join code {site.code}")

    def stop() -> None:
        page.close()
        running.stop()

    return stop


def run_play(args: argparse.Namespace) -> int:
    from companion.files import tolerant_stdin

    tolerant_stdin()
    import sys
    from pathlib import Path

    from companion.tables.getbit.saved import DEFAULT_SAVE
    from companion.tables.getbit.screen import serve
    from companion.tables.getbit.session import open_getbit_table
    from companion.tables.settings import TableSettings
    from companion.tables.web import check_web
    from companion.tags.tagfile import GAME_TITLES, GETBIT, TagFile, load_tagfile

    check_web(args.web)  # before the save file and the devices are opened
    _check_tag_options(args)
    tagfile: TagFile | None = None
    if args.tags:
        tagfile = load_tagfile(args.tags)
        if tagfile.game != GETBIT:
            title = GAME_TITLES[tagfile.game]
            raise InputError(
                "game", f"this is a {title} tag file; Get Bit! needs its own", args.tags
            )
    config = _table_config(args)
    setup_given = [
        name
        for name, given in (
            ("--players", args.players),
            ("--robots", args.robots),
            ("--line", args.line),
            ("--seed", args.seed is not None),
            ("--longer-games", args.longer_games),
            ("--memory", args.memory),
            ("--pickup-at", args.pickup_at is not None),
        )
        if given
    ]
    if args.resume and setup_given:
        raise InputError(setup_given[0], "the setup comes from the saved game with --resume")
    setup = None if args.resume else _new_setup(args, config.robot_players if config else {})
    path = Path(args.save or DEFAULT_SAVE)
    specs: list[str] = args.reader or []

    def tag_options(setup: Setup) -> tuple[dict[int, str] | None, dict[str, str]]:
        seats = _reader_seats(args.reader_seats, setup, specs) if args.reader_seats else None
        return seats, _colours(args.colours, setup)

    table = open_getbit_table(
        path,
        setup,
        resume=args.resume,
        new=args.new,
        secret=args.secret,
        config=config,
        pin_factory=args.pin_factory,
        tagfile=tagfile,
        reader_specs=specs,
        tag_options=tag_options,
    )
    stop_web = None
    try:
        if args.web is not None:
            stop_web = _serve_web(args.web, table)
        serve(table)
    finally:
        if stop_web is not None:
            stop_web()
        table.close()
    session = table.session
    state = session.state
    done = f"game over, {state.winner} won" if state.over else f"after round {state.rounds}"
    print(f"saved {session.path} ({done}): companion getbit replay {session.path}", file=sys.stderr)
    settings = config.settings if config is not None else TableSettings()
    if state.over and settings.recording(args.no_history):
        _remember(session.game, settings.database(args.db), session.path)
    return 0


def _table_config(args: argparse.Namespace) -> GetBitConfig | None:
    """``--config``: its warnings shown, its ``[web]`` used unless ``--web`` says otherwise."""
    import sys

    from companion.tables.getbit.config import load_table_config
    from companion.tables.web import check_web

    if not args.config:
        return None
    config = load_table_config(args.config)
    args.web = config.settings.listen(args.web)
    check_web(args.web)
    for warning in config.warnings:
        print(f"companion: warning: {config.source}: {warning}", file=sys.stderr)
    return config


def _remember(game: Replay, db: str | None, path: Path) -> None:
    """A finished game into the history (docs/history.md); a failure is one warning."""
    from companion.history import record_getbit, remember

    remember(record_getbit, game, db=db, source=str(path))
