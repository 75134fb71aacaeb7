"""``companion history``: every game remembered (docs/history.md)."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Callable
from contextlib import closing
from datetime import date
from typing import Any, TypeVar

from companion.errors import WriteError

KINDS = ("chomp", "dino", "getbit", "foodchain", "chips")


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    history = commands.add_parser(
        "history",
        help="every game remembered: import, list, show, stats, plots, export",
        description="The history database (docs/history.md): games of all five kinds, "
        "their players, CHOMP! rounds and presses.",
    )
    history.add_argument(
        "--db",
        metavar="FILE",
        help="the database (default $COMPANION_HISTORY_DB, else "
        "$XDG_DATA_HOME/companion/history.sqlite3)",
    )
    sub = history.add_subparsers(dest="history_command", metavar="COMMAND", required=True)

    imp = sub.add_parser(
        "import",
        help="earlier games from files: CHOMP! journals, Get Bit! saves, Chomp games, "
        "Food Chain score sheets",
    )
    imp.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="journals (.jsonl), Get Bit! saves, Chomp games, Food Chain sheets",
    )
    imp.add_argument("--date", help="the games' date (ISO 8601; default: each file's time)")
    imp.add_argument("--table", default="", help="where the games were played")
    imp.set_defaults(handler=_database_errors(run_import))

    lst = sub.add_parser("list", help="games, oldest first")
    _filters(lst)
    lst.add_argument("--json", action="store_true", help="one JSON object")
    lst.set_defaults(handler=_database_errors(run_list))

    show = sub.add_parser("show", help="one game round by round")
    show.add_argument("game", type=int, metavar="GAME", help="the game's number (history list)")
    show.add_argument("--json", action="store_true", help="one JSON object")
    show.add_argument("--svg", metavar="FILE", help="save its counts round by round as SVG")
    show.set_defaults(handler=_database_errors(run_show))

    stats = sub.add_parser("stats", help="games played and won, reaction times, bad chomps...")
    stats.add_argument("player", nargs="?", metavar="PLAYER", help="one player (default: all)")
    stats.add_argument("--json", action="store_true", help="one JSON object")
    stats.add_argument(
        "--svg",
        metavar="FILE",
        help="save a plot: reaction times side by side (all players), or PLAYER's form",
    )
    stats.add_argument("--game", choices=KINDS, help="the form plot: only this game")
    stats.set_defaults(handler=_database_errors(run_stats))

    export = sub.add_parser("export", help="CSV, the whole database as JSON, or BG Stats")
    export.add_argument(
        "--format",
        choices=("csv", "json", "bgstats", "bgstats-links"),
        default="csv",
        help="csv (a row per player per game), json (the whole database), bgstats (a Play "
        "File), bgstats-links (a BG Stats import link per play); docs/history.md",
    )
    export.add_argument("--since", metavar="DATE", type=_date, help="games on or after DATE")
    export.add_argument("-o", "--output", metavar="FILE", help="write here (default stdout)")
    export.set_defaults(handler=_database_errors(run_export))

    alias = sub.add_parser("alias", help="another name of a player (her games move with it)")
    alias.add_argument("alias", metavar="ALIAS", help="the other name, as games spell it")
    alias.add_argument("name", metavar="NAME", help="the player's name to keep")
    alias.set_defaults(handler=_database_errors(run_alias))


def _date(text: str) -> str:
    try:
        return date.fromisoformat(text[:10]).isoformat() + text[10:]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from None


def _filters(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", choices=KINDS, help="only this game")
    parser.add_argument("--player", help="only games with this player (name or alias)")
    parser.add_argument("--since", type=_date, metavar="DATE", help="on or after DATE")
    parser.add_argument("--until", type=_date, metavar="DATE", help="on or before DATE")


def _database_errors(
    handler: Callable[[argparse.Namespace], int],
) -> Callable[[argparse.Namespace], int]:
    """A database that cannot be written (a full disk, an I/O error) is one line and exit
    status 2: SQLite rolls the transaction back, so every game stored before is whole."""

    def guarded(args: argparse.Namespace) -> int:
        _check_names(args)
        try:
            return handler(args)
        except (sqlite3.Error, UnicodeDecodeError) as exc:  # SQLite's message may be bytes
            raise WriteError(
                f"{args.db}: the history database failed ({exc}); the games stored before "
                "are whole (each import is one transaction)"
            ) from None

    return guarded


def _check_names(args: argparse.Namespace) -> None:
    """The names on the command line through the text gate: a new alias in a name's form,
    a name looked up only as valid text (so a name stored before stays reachable)."""
    from companion import text as gate

    for option in ("player", "name"):
        if getattr(args, option, None) is not None:
            setattr(args, option, gate.clean(getattr(args, option), option.upper()))
    if getattr(args, "alias", None) is not None:
        args.alias = gate.name(args.alias, "ALIAS")


def _open(args: argparse.Namespace) -> sqlite3.Connection:
    """The database opened for writing (only ``import`` and ``alias`` do)."""
    from companion.history.db import connect

    return connect(args.db)


T = TypeVar("T")


def _reading(args: argparse.Namespace, work: Callable[[sqlite3.Connection], T]) -> T:
    """``work`` over the good rows of the database, opened read-only: not a byte of the
    file changes. A damaged row is one line on stderr (the command then exits 2)."""
    from companion.history.db import default_path, read
    from companion.history.rows import clean_copy

    def damaged(line: str) -> None:
        args.damaged_rows += 1
        print(f"companion: {args.db or default_path()}: {line}: left out", file=sys.stderr)

    args.damaged_rows = 0
    return read(args.db, lambda conn: work(clean_copy(conn, damaged)))


def _status(args: argparse.Namespace) -> int:
    """0, or 2 when a damaged row was left out of what was printed."""
    return 2 if getattr(args, "damaged_rows", 0) else 0


def _write(args: argparse.Namespace, path: str, text: str) -> None:
    """An export or a plot, written whole or not at all; never over the database read."""
    import os

    from companion.errors import InputError
    from companion.files import write_atomic
    from companion.history.db import default_path

    database = str(args.db or default_path())
    for end in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(path) and os.path.exists(database + end):
            if os.path.samefile(path, database + end):
                raise InputError("", "is the history database itself: not overwritten", path)
    write_atomic(path, text, "no file was written")  # whole or not at all, in one line
    print(f"wrote {path}", file=sys.stderr)


def _regular_file(path: str) -> None:
    """One line for a path that is not a regular file within the read cap."""
    import os
    import stat

    from companion.data import MAX_READ_BYTES, check_path
    from companion.errors import InputError

    try:
        st = os.stat(check_path(path))
    except FileNotFoundError:
        return  # the import names it as it always has
    except OSError as exc:
        raise InputError("", f"cannot read: {exc.strerror or exc}", path) from None
    if stat.S_ISDIR(st.st_mode):
        return  # a folder of games: the import walks it
    if not stat.S_ISREG(st.st_mode):
        raise InputError("", "not a regular file (a device or a pipe)", path)
    if st.st_size > MAX_READ_BYTES:
        raise InputError("", f"over {MAX_READ_BYTES} bytes: too big to be a game", path)


def run_import(args: argparse.Namespace) -> int:
    from companion.history import import_files

    when = _date(args.date) if args.date else None
    for path in args.files:
        _regular_file(path)  # a FIFO or /dev/zero would hang the import; refuse it first
    added = 0

    def warn(text: str) -> None:
        print(f"companion: warning: {text}", file=sys.stderr)

    with closing(_open(args)) as conn:  # closed: the last writer folds the -wal back in
        stored = import_files(args.files, conn, when, args.table, warn)
    for name, written in stored:
        added += written.added
        state = "added" if written.added else "already in the history"
        if written.replaced is not None:
            state += f" (it continues #{written.replaced}, which it replaces)"
        print(f"{name}: game #{written.game_id} {state}")
    print(f"{added} game{'s' * (added != 1)} added")
    return 0


def run_list(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from companion.files import dump_json
    from companion.history.store import list_games
    from companion.history.text import game_line

    games = _reading(
        args, lambda conn: list_games(conn, args.game, args.player, args.since, args.until)
    )
    if args.json:
        print(dump_json({"games": [asdict(g) for g in games]}))
        return _status(args)
    for g in games:
        print(game_line(g))
    if not games:
        print("no games")
    return _status(args)


MAX_GAME = 2**63 - 1  # SQLite's largest row id


def run_show(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from companion.errors import InputError
    from companion.files import dump_json
    from companion.history.store import game_rounds, get_game
    from companion.history.text import show_lines

    if not 1 <= args.game <= MAX_GAME:
        raise InputError("GAME", f"no game #{args.game} in the history")

    def gather(conn: sqlite3.Connection) -> tuple[Any, list[dict[str, Any]], str | None]:
        game = get_game(conn, args.game)
        rounds = game_rounds(conn, args.game)
        if not args.svg:
            return game, rounds, None
        from companion.history.plots import counts_svg

        return game, rounds, counts_svg(conn, args.game)

    game, rounds, svg = _reading(args, gather)
    if svg is not None:
        _write(args, args.svg, svg)
    if args.json:
        print(dump_json({**asdict(game), "rounds": rounds}))
        return _status(args)
    print("\n".join(show_lines(game, rounds)))
    return _status(args)


def run_stats(args: argparse.Namespace) -> int:
    from companion.files import dump_json
    from companion.history.stats import all_stats, player_stats, stats_lines

    def gather(conn: sqlite3.Connection) -> tuple[list[dict[str, Any]], str | None]:
        figures = [player_stats(conn, args.player)] if args.player else all_stats(conn)
        if not args.svg:
            return figures, None
        from companion.history.plots import form_svg, reaction_svg

        plot = form_svg(conn, args.player, args.game) if args.player else reaction_svg(conn)
        return figures, plot

    figures, svg = _reading(args, gather)
    if svg is not None:
        _write(args, args.svg, svg)
    if args.json:
        print(dump_json({"players": figures}))
        return _status(args)
    print("\n".join(line for f in figures for line in stats_lines(f)) or "no players")
    return _status(args)


def run_export(args: argparse.Namespace) -> int:
    from companion.history.export import dump, to_bgstats, to_bgstats_links, to_csv, to_json
    from companion.history.store import list_games

    def gather(conn: sqlite3.Connection) -> str:
        if args.format == "json":
            return dump(to_json(conn, args.since))
        games = list_games(conn, since=args.since)
        if args.format == "bgstats":
            return dump(to_bgstats(games))
        if args.format == "bgstats-links":
            return to_bgstats_links(games)
        return to_csv(games)

    text = _reading(args, gather)
    if args.output:
        _write(args, args.output, text)
    else:
        sys.stdout.write(text)
    return _status(args)


def run_alias(args: argparse.Namespace) -> int:
    from companion.history.store import add_alias

    with closing(_open(args)) as conn:
        add_alias(conn, args.alias, args.name)
    print(f"{args.alias} is {args.name}")
    return 0
