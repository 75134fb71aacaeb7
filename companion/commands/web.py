"""``companion web``: the table on everyone's phone (docs/web.md).

Argparse only: the server lives in :mod:`companion.tables.web`, whose Starlette, uvicorn
and segno come with the ``web`` extra and are imported inside the handler, so that
``companion --help`` stays fast and a missing extra is one line.
"""

from __future__ import annotations

import argparse

from companion.commands.options import add_history_db_option, add_new_code_option


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    web = commands.add_parser(
        "web",
        help="serve the score helpers to the phones at the table",
        description="Serve web pages on the local network: the Chomp land tapped in or "
        "read from a photo, and the Food Chain score sheet. Anyone may watch; changing "
        "anything needs the join code printed here (as text and a QR code).",
    )
    web.add_argument(
        "--web",
        metavar="[HOST:]PORT",
        help="where to listen (default: the config's [web] listen, else 0.0.0.0:8080)",
    )
    web.add_argument(
        "--config",
        metavar="FILE",
        help="a TOML config whose [web] listen and [history] db are used",
    )
    add_new_code_option(web)
    web.add_argument(
        "--catalog", metavar="FILE", help="the Chomp card catalog, to read photos of lands"
    )
    web.add_argument(
        "--foodchain-catalog", metavar="FILE", help="the Food Chain catalog, for card names"
    )
    add_history_db_option(web, "the history database the History tab shows (docs/history.md)")
    web.set_defaults(handler=run_web)


def run_web(args: argparse.Namespace) -> int:
    from companion.tables.web import require_web, state_folder

    require_web()
    from companion.tables.web.serve import (
        DEFAULT_HOST,
        DEFAULT_PORT,
        build_site,
        parse_listen,
        read_web_config,
        serve_forever,
    )

    host, port = DEFAULT_HOST, DEFAULT_PORT
    if args.config:
        host, port = read_web_config(args.config) or (host, port)
    if args.web:
        host, port = parse_listen(args.web)
    code_file = state_folder() / "web.code"  # the same code at every start
    site = build_site(args.catalog, args.foodchain_catalog, code_file, args.new_code)
    if args.db is not None:  # read-only: the tab never writes it
        from companion import text as gate

        site.history_db = gate.clean(args.db, "--db")
    elif args.config:
        from companion.tables.web.history import config_database

        site.history_db = config_database(args.config)  # its [history] db
    serve_forever(site, host, port)
    return 0
