"""``companion referee`` and ``companion demo`` put together: the CHOMP! table on a Pi, and
the same table on simulated pins with bots.

The table's own modules (config, session, screen, demo, the web page, the history) are
imported inside the functions: the command imports this module for its options, and a
test may swap ``screen.serve`` or ``demo.autoplay`` before a run.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from companion.games.chomp import Mode, TwoPlayerEnd

if TYPE_CHECKING:
    from companion.tables.chomp.demo import SimulatedTable
    from companion.tables.chomp.session import ChompSession


@dataclass(frozen=True)
class RefereeOptions:
    """What ``companion referee`` is told (the rest comes from the table's config)."""

    config: str  # the table's TOML config (hardware/pinmap.example.toml)
    resume: bool = False  # continue the journal's game (a new game if there is none)
    new: bool = False  # a new game; an existing journal is kept under a new name
    pin_factory: str | None = None  # override the config's gpio.pin_factory (e.g. mock)
    web: str | None = None  # --web [HOST:]PORT: the page too (None: the config's [web])
    new_code: bool = False  # --new-code: a new join code (else the one kept beside the journal)
    db: str | None = None  # the history database (None: the config's, else the default)
    history: bool = True  # record a finished game in the history


@dataclass(frozen=True)
class DemoOptions:
    """What ``companion demo`` is told: the seats, the bots, the game, the seed."""

    players: str | None = None  # "a,b,c": seat names in order (None: you,shelly[,finn])
    bots: str | None = None  # "b,c", or "none" (None: every seat but the first)
    mode: Mode = Mode.STANDARD  # standard with two seats becomes quick_chomp
    two_player_end: TwoPlayerEnd = TwoPlayerEnd.COUNT  # a game of three or more, two left
    seed: int | None = None  # the same deal, bots' choices and timing every time
    autoplay: bool = False  # bots only, simulated time, no screen: a whole game at once
    web: str | None = None  # --web [HOST:]PORT: the page too (not with autoplay)
    new_code: bool = False  # --new-code: a new join code (else the demo's kept one)
    camera: str | None = None  # --camera sim: the cards read by the simulated camera


def _serve_web(
    web: str | None,
    session: ChompSession,
    table: SimulatedTable | None = None,
    bots: Sequence[str] = (),
    new_code: bool = False,
    history_db: str | None = None,
    config_file: Path | None = None,
) -> Callable[[], None] | None:
    """``--web``: the CHOMP! page served beside the table; returns what to stop, or None.
    The join code is kept beside the referee's journal (the demo's journal is new at each
    start: its code is kept in the user's state folder). ``history_db``: the database the
    table records into, which the History tab reads."""
    if web is None:
        return None
    from companion.tables.chomp.web import ChompWebTable
    from companion.tables.web.serve import serve_page, table_code_file

    press = table.press if table is not None else None
    page = ChompWebTable(session, press, tuple(bots))
    page.history_db = history_db
    page.config_file = config_file  # the camera's zones dragged on the page are saved here
    code_file = table_code_file(None if table is not None else session.config.journal, "demo")
    return serve_page(page, web, session.messages.append, code_file, new_code)


def run_referee(options: RefereeOptions) -> int:
    """The table on a Pi: pins, journal and referee from the config, then its screen.

    ``--web`` is checked before the config is read and again with the config's [web],
    before the pins and the journal are opened. A finished game goes to the history.
    """
    from companion.tables.chomp.config import load_config
    from companion.tables.chomp.demo import keyboard_source
    from companion.tables.chomp.running import log_to, stop_on_failure
    from companion.tables.chomp.session import open_chomp_session
    from companion.tables.web import check_web

    check_web(options.web)  # before the pins and the journal are opened
    config = load_config(options.config)
    web = config.settings.listen(options.web)
    check_web(web)
    factory = options.pin_factory or config.pin_factory
    rehearsal = factory == "mock" and sys.stdin.isatty()
    with contextlib.ExitStack() as table:  # the log and the signal are the table's only
        table.callback(log_to(config.journal.with_suffix(".log")))
        session = open_chomp_session(
            config,
            resume=options.resume,
            new=options.new,
            pin_factory=options.pin_factory,
            stamped_as=[keyboard_source()] if rehearsal else None,
        )
        session.daemon.want_realtime = True  # the referee owns its process:
        session.daemon.pause_gc = True  # no garbage collection inside a round
        table.callback(stop_on_failure(session.daemon))
        db = config.settings.database(options.db)
        _play_referee(session, web, options.new_code, db, rehearsal, Path(options.config))
        if session.daemon.failure is not None:
            raise session.daemon.failure  # one line, exit 2: the journal is whole
        print(f"journal: {config.journal}", file=sys.stderr)
        if session.referee.game.over and config.settings.recording(not options.history):
            from companion.history import record_chomp_journal, remember

            db = config.settings.database(options.db)
            remember(record_chomp_journal, config.journal, db=db, table=options.config)
        return 0


REHEARSAL_KEYS = ("a", "d", "f", "g", "h", "j")  # none of them types a card, reveals or quits


def rehearsal_keys(session: ChompSession) -> tuple[dict[str, str], Callable[[str], None]]:
    """A rehearsal on mock pins (``--pin-factory mock`` at a terminal): a key per seat
    pushes that seat's button pin down and lets it go, as a hand would, so a maker plays a
    round before any button is wired. Returns the keys (key -> seat) and the key handler."""
    from companion.tables.chomp.demo import PRESS_MS

    seats = [p for p in session.config.players if p.button is not None]
    keys = {key: p.name for key, p in zip(REHEARSAL_KEYS, seats, strict=False)}
    pins = {p.name: p.button for p in seats if p.button is not None}

    def on_key(key: str) -> None:
        seat = keys.get(key)
        if seat is None:
            return
        pin = session.pin(pins[seat])
        pin.drive_low()
        release = threading.Timer(PRESS_MS / 1000, pin.drive_high)
        release.daemon = True
        release.start()

    return keys, on_key


def _play_referee(
    session: ChompSession,
    web: str | None,
    new_code: bool = False,
    db: str | None = None,
    rehearsal: bool = False,
    config_file: Path | None = None,
) -> None:
    """The referee's screen (and page) over an open session, until the table stops.
    ``rehearsal``: mock pins at a terminal, where keys press the seats' buttons;
    ``config_file``: the table's config, where the page saves the camera's zones."""
    from companion.tables.chomp.screen import TableView, serve, status_light

    config = session.config
    stop_web = None
    try:
        stop_web = _serve_web(
            web, session, new_code=new_code, history_db=db, config_file=config_file
        )
        lines = [f"pins: {session.factory.detail}"]
        lines += [
            f"press source {s.name}: {s.timing}, ±{s.uncertainty_us} us" for s in session.sources
        ]
        lines.append(f"tie window {session.referee.tie_window_us} us; journal {config.journal}")
        lines += session.messages
        tags = session.tags
        view = TableView(
            session.daemon,
            led=session.led_level,
            buzzer=session.buzzer_on,
            demand=tags.demand if tags is not None else None,
            status_led=status_light(session),
            camera=session.card_help,
        )
        on_key = None
        if rehearsal:
            view.slap_keys, on_key = rehearsal_keys(session)
            who = ", ".join(f"{k} = {p}" for k, p in view.slap_keys.items())
            lines.append(f"mock pins: slap keys {who} (stamped as the terminal delivers them)")
        for line in lines:
            print(line, file=sys.stderr)  # to the service log too
            view.notify(line)
        serve(view, f"companion referee · {', '.join(config.names)}", on_key=on_key)
    finally:
        if stop_web is not None:
            stop_web()
        session.close()


DEFAULT_SEATS = ("you", "shelly", "finn")


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def _seats(options: DemoOptions) -> tuple[list[str], list[str], Mode]:
    """The demo's seats, its bots and its mode, from the options (one line if wrong)."""
    from companion.errors import InputError
    from companion.tables.chomp.demo import SLAP_KEYS

    mode = Mode(options.mode)
    two_player = mode is not Mode.STANDARD
    players = (
        _names(options.players)
        if options.players
        else list(DEFAULT_SEATS[: 2 if two_player else 3])
    )
    if len(set(players)) != len(players) or not 2 <= len(players) <= len(SLAP_KEYS):
        raise InputError("--players", f"give 2 to {len(SLAP_KEYS)} different names")
    if two_player and len(players) != 2:
        raise InputError("--players", f"{mode} is a game for two: give two names")
    if options.autoplay:
        bots = players
    elif options.bots is None:
        bots = players[1:]
    elif options.bots == "none":
        bots = []
    else:
        bots = _names(options.bots)
        unknown = [b for b in bots if b not in players]
        if unknown:
            raise InputError("--bots", f"not a seat: {', '.join(unknown)}")
    if len(players) == 2 and mode is Mode.STANDARD:
        mode = Mode.QUICK_CHOMP
    return players, bots, mode


def _check_camera(options: DemoOptions) -> None:
    """``--camera``: the simulated camera only, and with the clock running (one line)."""
    from companion.errors import InputError

    spec = options.camera
    if spec is None:
        return
    if spec != "sim" and not spec.startswith("sim:"):
        raise InputError(
            "--camera", f"{spec!r}: the demo's table is simulated: 'sim' or 'sim:SEED'"
        )
    if options.autoplay:
        raise InputError("--camera", "the camera reads frames as they come: not with --autoplay")


def run_demo(options: DemoOptions) -> int:
    """The table on mock pins: the seats checked first, then the screen with slap keys,
    or with ``autoplay`` a whole game of bots at once (exit 1 if it stops before its end).
    """
    from companion.tables.chomp.demo import autoplay, open_demo
    from companion.tables.web import check_web

    check_web(options.web)
    players, bots, mode = _seats(options)
    _check_camera(options)
    session, table = open_demo(
        players,
        bots,
        mode,
        TwoPlayerEnd(options.two_player_end),
        seed=options.seed,
        simulated_time=options.autoplay,
        camera=options.camera,
    )
    stop_web = None
    try:
        if not options.autoplay:
            stop_web = _serve_web(options.web, session, table, bots, options.new_code)
        if options.autoplay:
            rounds = autoplay(session, table)
            if session.daemon.failure is not None:
                raise session.daemon.failure  # one line, exit 2: the journal is whole
            game = session.referee.game
            print(f"audit it: companion chomp audit {session.config.journal}")
            if not game.over:
                print(f"{rounds} rounds; the game stopped before its end. Cards: {game.counts}")
                return 1
            result = f"winner {game.winner}" if game.winner else "a draw"
            print(f"{rounds} rounds, game over: {result}. Cards: {game.counts}, pot {game.pot}.")
            return 0
        _play_demo(session, table, players, bots)
    finally:
        if stop_web is not None:
            stop_web()
        table.close()
        session.close()
    print(f"journal: {session.config.journal} (companion chomp audit {session.config.journal})")
    return 0


def _play_demo(
    session: ChompSession, table: SimulatedTable, players: list[str], bots: list[str]
) -> None:
    """The demo's screen: slap keys for the seats, the bots on their own."""
    from companion.tables.chomp.demo import SLAP_KEYS
    from companion.tables.chomp.screen import TableView, serve, status_light

    keys = dict(zip(SLAP_KEYS, players, strict=False))
    view = TableView(
        session.daemon,
        led=session.led_level,
        buzzer=session.buzzer_on,
        slap_keys=keys,
        type_cards=session.camera is not None,  # a card the camera could not read is typed
        status_led=status_light(session),
        quit_prompt="Quit? y / n (the journal stays, for an audit)",
        camera=session.card_help,
    )
    for message in session.messages:
        view.notify(message)
    who = ", ".join(f"{k} = {p}{' (bot)' if p in bots else ''}" for k, p in keys.items())
    view.notify(f"slap keys: {who}")

    def on_key(key: str) -> None:
        player = keys.get(key)
        if player is not None:
            table.press(player)

    serve(view, "companion demo · CHOMP! on simulated pins", on_key=on_key)
