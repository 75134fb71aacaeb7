"""``companion referee`` (the table on a Pi) and ``companion demo`` (the same, simulated)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from companion.commands.options import add_history_options, add_web_option
from companion.games.chomp import END_NAMES, MODE_NAMES, Mode, TwoPlayerEnd

if TYPE_CHECKING:  # the tables are imported only when a command runs
    from companion.tables.chomp.demo import SimulatedTable
    from companion.tables.chomp.session import ChompSession


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    referee = commands.add_parser(
        "referee",
        help="referee CHOMP! at the table: buttons on GPIO, LEDs, buzzer, journal",
        description="Referee a CHOMP! game with one button per player on the Pi's GPIO "
        "(hardware/WIRING.md). Type each round's cards when asked; every press, card and "
        "verdict goes to the journal, so --resume continues after a crash or power cut.",
    )
    referee.add_argument(
        "--config",
        required=True,
        metavar="FILE",
        help="the table's TOML config (see hardware/pinmap.example.toml)",
    )
    group = referee.add_mutually_exclusive_group()
    group.add_argument(
        "--resume",
        action="store_true",
        help="continue the journal's game (a new game if there is none)",
    )
    group.add_argument(
        "--new",
        action="store_true",
        help="start a new game; an existing journal is kept under a new name",
    )
    referee.add_argument(
        "--pin-factory", metavar="NAME", help="override the config's gpio.pin_factory (e.g. mock)"
    )
    add_web_option(referee)
    add_history_options(referee)
    referee.set_defaults(handler=run_referee)

    demo = commands.add_parser(
        "demo",
        help="play CHOMP! in the terminal on simulated pins, against bots or friends",
        description="A whole CHOMP! table without a Pi: the real referee on gpiozero's "
        "mock pins. Each seat has a slap key; bots slap on their own.",
    )
    demo.add_argument(
        "--players",
        default=None,
        metavar="A,B,C",
        help="seat names, in order (default: you,shelly,finn; you,shelly for a two-player mode)",
    )
    demo.add_argument(
        "--bots",
        default=None,
        metavar="B,C",
        help="which seats the computer plays (default: all but the first; "
        "'none' for a table of people)",
    )
    demo.add_argument(
        "--mode",
        default="standard",
        choices=list(MODE_NAMES),
        help="the game: standard (three or more players) or a two-player game "
        "(default: standard; quick_chomp with two players)",
    )
    demo.add_argument(
        "--two-player-end",
        default="count",
        choices=list(END_NAMES),
        help="how a game of three or more ends when two are left: count the cards, or "
        "go on with that two-player game (default: count)",
    )
    demo.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="the same deal, bots' choices and bots' timing every time",
    )
    demo.add_argument(
        "--autoplay",
        action="store_true",
        help="bots only, in simulated time, no screen: play a whole game at once and "
        "print the journal's path to audit",
    )
    add_web_option(demo)
    demo.set_defaults(handler=run_demo)


def _serve_web(args: argparse.Namespace, session: Any, table: Any = None, bots: Any = ()) -> Any:
    """``--web``: the CHOMP! page served beside the table; returns what to stop, or None."""
    if args.web is None:
        return None
    from companion.tables.chomp.web import ChompWebTable
    from companion.tables.web.serve import serve_tables

    press = table.press if table is not None else None
    page = ChompWebTable(session, press, tuple(bots))
    site, running = serve_tables([page], args.web)
    session.messages.append(f"web: {running.url} join code {site.code}")

    def stop() -> None:
        page.close()
        running.stop()

    return stop


def run_referee(args: argparse.Namespace) -> int:
    from companion.files import tolerant_stdin

    tolerant_stdin()
    from companion.tables.chomp.config import load_config
    from companion.tables.chomp.running import log_to, stop_on_failure
    from companion.tables.chomp.screen import TableView, serve, status_light
    from companion.tables.chomp.session import open_chomp_session
    from companion.tables.web import check_web

    check_web(args.web)  # before the pins and the journal are opened
    config = load_config(args.config)
    args.web = config.settings.listen(args.web)
    check_web(args.web)
    log_to(config.journal.with_suffix(".log"))
    session = open_chomp_session(
        config, resume=args.resume, new=args.new, pin_factory=args.pin_factory
    )
    stop_web = None
    session.daemon.want_realtime = True
    stop_on_failure(session.daemon)
    try:
        stop_web = _serve_web(args, session)
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
        )
        for line in lines:
            print(line, file=sys.stderr)  # to the service log too
            view.notify(line)
        serve(view, f"companion referee · {', '.join(config.names)}")
    finally:
        if stop_web is not None:
            stop_web()
        session.close()
    if session.daemon.failure is not None:
        raise session.daemon.failure  # one line, exit 2: the journal is whole
    print(f"journal: {config.journal}", file=sys.stderr)
    if session.referee.game.over and config.settings.recording(args.no_history):
        from companion.history import record_chomp_journal, remember

        db = config.settings.database(args.db)
        remember(record_chomp_journal, config.journal, db=db, table=args.config)
    return 0


DEFAULT_SEATS = ("you", "shelly", "finn")


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def _seats(args: argparse.Namespace) -> tuple[list[str], list[str], Mode]:
    """The demo's seats, its bots and its mode, from the options (one line if wrong)."""
    from companion.errors import InputError
    from companion.tables.chomp.demo import SLAP_KEYS

    mode = Mode(args.mode)
    two_player = mode is not Mode.STANDARD
    players = (
        _names(args.players) if args.players else list(DEFAULT_SEATS[: 2 if two_player else 3])
    )
    if len(set(players)) != len(players) or not 2 <= len(players) <= len(SLAP_KEYS):
        raise InputError("--players", f"give 2 to {len(SLAP_KEYS)} different names")
    if two_player and len(players) != 2:
        raise InputError("--players", f"{mode} is a game for two: give two names")
    if args.autoplay:
        bots = players
    elif args.bots is None:
        bots = players[1:]
    elif args.bots == "none":
        bots = []
    else:
        bots = _names(args.bots)
        unknown = [b for b in bots if b not in players]
        if unknown:
            raise InputError("--bots", f"not a seat: {', '.join(unknown)}")
    if len(players) == 2 and mode is Mode.STANDARD:
        mode = Mode.QUICK_CHOMP
    return players, bots, mode


def run_demo(args: argparse.Namespace) -> int:
    from companion.files import tolerant_stdin
    from companion.tables.chomp.demo import autoplay, open_demo
    from companion.tables.web import check_web

    tolerant_stdin()
    check_web(args.web)
    players, bots, mode = _seats(args)
    session, table = open_demo(
        players,
        bots,
        mode,
        TwoPlayerEnd(args.two_player_end),
        seed=args.seed,
        simulated_time=args.autoplay,
    )
    stop_web = None
    try:
        if not args.autoplay:
            stop_web = _serve_web(args, session, table, bots)
        if args.autoplay:
            rounds = autoplay(session, table)
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
        type_cards=False,
        status_led=status_light(session),
        quit_prompt="Quit? y / n (the journal stays, for an audit)",
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
