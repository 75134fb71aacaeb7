"""``companion referee`` (the table on a Pi) and ``companion demo`` (the same, simulated)."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from companion.games.chomp import END_NAMES, MODE_NAMES, Mode, TwoPlayerEnd


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
    referee.add_argument(
        "--web",
        nargs="?",
        const="8080",
        metavar="[HOST:]PORT",
        help="also serve the table to the phones (docs/web.md); alone: 0.0.0.0:8080",
    )
    referee.set_defaults(handler=run_referee)

    demo = commands.add_parser(
        "demo",
        help="play CHOMP! in the terminal on simulated pins, against bots or friends",
        description="A whole CHOMP! table without a Pi: the real referee on gpiozero's "
        "mock pins. Each seat has a slap key; bots slap on their own.",
    )
    demo.add_argument(
        "--players",
        default="you,shelly,finn",
        metavar="A,B,C",
        help="seat names, in order (default: you,shelly,finn)",
    )
    demo.add_argument(
        "--bots",
        default=None,
        metavar="B,C",
        help="which seats the computer plays (default: all but the first; "
        "'none' for a table of people)",
    )
    demo.add_argument("--mode", default="standard", choices=list(MODE_NAMES))
    demo.add_argument("--two-player-end", default="count", choices=list(END_NAMES))
    demo.add_argument("--seed", type=int, help="shuffle the deck the same way every time")
    demo.add_argument(
        "--autoplay",
        action="store_true",
        help="bots only, fast rounds, no screen: play a whole game and report",
    )
    demo.add_argument(
        "--web",
        nargs="?",
        const="8080",
        metavar="[HOST:]PORT",
        help="also serve the table to the phones (docs/web.md); alone: 0.0.0.0:8080",
    )
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
    from companion.tables.chomp.config import load_config
    from companion.tables.chomp.screen import TableView, serve
    from companion.tables.chomp.session import open_chomp_session
    from companion.tables.web import check_web

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    check_web(args.web)  # before the pins and the journal are opened
    config = load_config(args.config)
    session = open_chomp_session(
        config, resume=args.resume, new=args.new, pin_factory=args.pin_factory
    )
    stop_web = None
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
        )
        for line in lines:
            print(line, file=sys.stderr)  # to the service log too
            view.notify(line)
        serve(view, f"companion referee · {', '.join(config.names)}")
    finally:
        if stop_web is not None:
            stop_web()
        session.close()
    print(f"journal: {config.journal}", file=sys.stderr)
    return 0


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def run_demo(args: argparse.Namespace) -> int:
    from companion.errors import InputError
    from companion.tables.chomp.demo import SLAP_KEYS, autoplay, open_demo
    from companion.tables.chomp.screen import TableView, serve
    from companion.tables.web import check_web

    check_web(args.web)
    players = _names(args.players)
    if len(set(players)) != len(players) or not 2 <= len(players) <= len(SLAP_KEYS):
        raise InputError("--players", f"give 2 to {len(SLAP_KEYS)} different names")
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
    mode = Mode(args.mode)
    if len(players) == 2 and mode is Mode.STANDARD:
        mode = Mode.QUICK_CHOMP
    session, table = open_demo(
        players, bots, mode, TwoPlayerEnd(args.two_player_end), seed=args.seed, fast=args.autoplay
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
        keys = dict(zip(SLAP_KEYS, players, strict=False))
        view = TableView(
            session.daemon,
            led=session.led_level,
            buzzer=session.buzzer_on,
            slap_keys=keys,
            type_cards=False,
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
    finally:
        if stop_web is not None:
            stop_web()
        table.close()
        session.close()
    print(f"journal: {session.config.journal} (companion chomp audit {session.config.journal})")
    return 0
