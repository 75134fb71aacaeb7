"""``companion getbit play`` put together: the options checked, the config, the tag file,
the setup, then the table (``session``) with its screen and, with ``--web``, its page; a
finished game goes into the history.

Every option mistake is refused before the save file, the pins or the readers are opened.
The modules behind the table (curses, the readers, the web server, the history) are
imported when they are needed, so a refused option costs little.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from companion.errors import InputError

if TYPE_CHECKING:
    from pathlib import Path

    from companion.games.getbit import Replay, Setup
    from companion.tables.getbit.config import GetBitConfig
    from companion.tables.getbit.table import GetBitTable
    from companion.tags.tagfile import TagFile


@dataclass(frozen=True)
class GetBitOptions:
    """What the command line says (None: the config, the save file or a default decides).

    The setup options make a new game; with ``resume`` the setup comes from the save."""

    players: str | None = None  # --players A,B,...: 2-6 players, default robots for them
    robots: str | None = None  # --robots ROBOT=PLAYER,...: the robots, in seat order
    line: str | None = None  # --line R,R,...: the starting line, front first (None: random)
    seed: int | None = None  # --seed: of the random starting line
    longer_games: bool = False  # --longer-games: a bite takes half a limb
    memory: bool = False  # --memory: played cards are not shown (G6)
    pickup_at: int | None = None  # --pickup-at N: cards left to take back (None: 1, G4)
    secret: bool = False  # --secret: each player types their own card, hidden
    save: str | None = None  # the save file (None: getbit-game.json)
    resume: bool = False  # continue the saved game
    new: bool = False  # start a new game; an existing save is kept aside
    config: str | None = None  # --config TOML: a [getbit] table (LEDs, buzzer, buttons)
    pin_factory: str | None = None  # overrides the config's pin_factory (e.g. mock)
    web: str | None = None  # --web [HOST:]PORT: the page too (None: the config's [web])
    new_code: bool = False  # --new-code: a new join code (else the one kept beside the save)
    tags: str | None = None  # --tags FILE: a Get Bit! tag file, the cards read from tags
    readers: tuple[str, ...] = ()  # --reader SPEC each: serial:PORT, pn532:PORT, bridge
    reader_seats: str | None = None  # --reader-seats ROBOT,...: one reader per robot
    colours: str | None = None  # --colours ROBOT=COLOUR,... or none (None: by robot name)
    db: str | None = None  # the history database (None: the default one)
    history: bool = True  # record a finished game in the history


KEYBOARD_REFUSED = (
    "keyboard: a keyboard-wedge scanner would type into the table's own input (the "
    "screen's keys, or the line commands), where a scanned code could be taken for the "
    "cards or a command; set the scanner to serial mode and use serial:PORT (docs/tags.md), "
    "or pn532:PORT or bridge"
)


def run(options: GetBitOptions) -> int:
    """Check the options, open the table, play until it is left, then say where it is
    saved (and remember a finished game)."""
    from pathlib import Path

    from companion.tables.getbit.saved import DEFAULT_SAVE
    from companion.tables.getbit.session import open_getbit_table
    from companion.tables.settings import TableSettings
    from companion.tables.web import check_web

    check_web(options.web)  # before the save file and the devices are opened
    _check_tag_options(options)
    tagfile = _tag_file(options.tags)
    config, web = _table_config(options)
    setup_given = [
        name
        for name, given in (
            ("--players", options.players),
            ("--robots", options.robots),
            ("--line", options.line),
            ("--seed", options.seed is not None),
            ("--longer-games", options.longer_games),
            ("--memory", options.memory),
            ("--pickup-at", options.pickup_at is not None),
        )
        if given
    ]
    if options.resume and setup_given:
        raise InputError(setup_given[0], "the setup comes from the saved game with --resume")
    setup = None if options.resume else _new_setup(options, config.robot_players if config else {})
    specs = options.readers

    def tag_options(setup: Setup) -> tuple[dict[int, str] | None, dict[str, str]]:
        seats = _reader_seats(options.reader_seats, setup, specs) if options.reader_seats else None
        return seats, _colours(options.colours, setup)

    table = open_getbit_table(
        Path(options.save or DEFAULT_SAVE),
        setup,
        resume=options.resume,
        new=options.new,
        secret=options.secret,
        config=config,
        pin_factory=options.pin_factory,
        tagfile=tagfile,
        reader_specs=specs,
        tag_options=tag_options,
    )
    settings = config.settings if config is not None else TableSettings()
    _play(table, web, options.new_code, settings.database(options.db))
    session = table.session
    state = session.state
    done = f"game over, {state.winner} won" if state.over else f"after round {state.rounds}"
    print(f"saved {session.path} ({done}): companion getbit replay {session.path}", file=sys.stderr)
    if state.over and settings.recording(refused=not options.history):
        _remember(session.game, settings.database(options.db), session.path)
    return 0


def _play(
    table: GetBitTable, web: str | None, new_code: bool = False, db: str | None = None
) -> None:
    """The screen (and the page beside it) until the table is left; the table is closed
    whatever happens."""
    from companion.tables.getbit.screen import serve

    stop_web = None
    try:
        if web is not None:
            stop_web = _serve_web(web, table, new_code, db)
        serve(table)
    finally:
        if stop_web is not None:
            stop_web()
        table.close()


def _check_tag_options(options: GetBitOptions) -> None:
    """The tag options go together; the keyboard is not a reader here."""
    readers = options.readers
    if options.tags and not readers:
        raise InputError(
            "--tags", "name the reader with --reader (serial:PORT, pn532:PORT, bridge)"
        )
    if not options.tags:
        given = [
            name
            for name, value in (
                ("--reader", readers),
                ("--reader-seats", options.reader_seats),
                ("--colours", options.colours),
            )
            if value
        ]
        if given:
            raise InputError(given[0], "reads the cards' tags: give the tag file with --tags FILE")
    if "keyboard" in readers:
        raise InputError("--reader", KEYBOARD_REFUSED)


def _tag_file(path: str | None) -> TagFile | None:
    """``--tags``: the tag file, which must be a Get Bit! one."""
    from companion.tags.tagfile import GAME_TITLES, GETBIT, load_tagfile

    if not path:
        return None
    tagfile = load_tagfile(path)
    if tagfile.game != GETBIT:
        title = GAME_TITLES[tagfile.game]
        raise InputError("game", f"this is a {title} tag file; Get Bit! needs its own", path)
    return tagfile


def _table_config(options: GetBitOptions) -> tuple[GetBitConfig | None, str | None]:
    """``--config`` and where the page is served: the config's warnings shown, its
    ``[web]`` used unless ``--web`` says otherwise."""
    from companion.tables.getbit.config import load_table_config
    from companion.tables.web import check_web

    if not options.config:
        return None, options.web
    config = load_table_config(options.config)
    web = config.settings.listen(options.web)
    check_web(web)
    for warning in config.warnings:
        print(f"companion: warning: {config.source}: {warning}", file=sys.stderr)
    return config, web


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


def _new_setup(options: GetBitOptions, config_robots: dict[str, str]) -> Setup | None:
    """The setup a new game starts from, from the options and the config's robots."""
    import random

    from companion.games.getbit import Setup, SetupError, default_robots, random_line

    if options.robots:
        robots, where = _pairs(options.robots, "--robots"), "--robots"
    elif options.players:
        players = _names(options.players)
        if len(set(players)) != len(players):
            raise InputError("--players", "a player is named twice")
        robots, where = default_robots(players), "--players"
    elif config_robots:
        robots, where = config_robots, "getbit.robots"
    else:
        return None
    if config_robots and (options.robots or options.players) and robots != config_robots:
        raise InputError(where, "the config's [getbit] robots name the robots already")
    if options.line:
        line = tuple(_names(options.line))
    else:
        line = random_line(robots, random.Random(options.seed))
    pickup_at = 1 if options.pickup_at is None else options.pickup_at
    try:
        return Setup(robots, line, options.longer_games, options.memory, pickup_at)
    except SetupError as exc:
        key = {"robots": where, "line": "--line", "pickup_at": "--pickup-at"}[exc.key]
        raise InputError(key, str(exc)) from None


def _reader_seats(text: str, setup: Setup, specs: Sequence[str]) -> dict[int, str]:
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


def _serve_web(
    listen: str, table: GetBitTable, new_code: bool = False, db: str | None = None
) -> Callable[[], None]:
    """``--web``: the Get Bit! page served beside the terminal, its join code kept beside
    the save file; returns how to stop it. ``db``: the history database the table records
    into (the History tab reads it)."""
    from companion.tables.getbit.web import GetBitWebTable
    from companion.tables.web.serve import serve_page, table_code_file

    code_file = table_code_file(table.session.path, "getbit")
    page = GetBitWebTable(table)
    page.history_db = db
    return serve_page(page, listen, table.notify, code_file, new_code)


def _remember(game: Replay, db: str | None, path: Path) -> None:
    """A finished game into the history (docs/history.md); a failure is one warning."""
    from companion.history import record_getbit, remember

    remember(record_getbit, game, db=db, source=str(path))
