"""``companion chips`` put together: config, table, save file, LEDs, then a screen.

The devices the helper opens (the pin factory, the LEDs) are closed by one ExitStack
whatever happens.
"""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass
from pathlib import Path

from companion.devices.wiring import PIN_FACTORIES
from companion.errors import InputError, RuleError
from companion.games.chips import ChipsRules, ChipsTable
from companion.tables.chips.config import ChipsConfig, load_config
from companion.tables.chips.screen import run_curses, run_lines
from companion.tables.chips.session import DEFAULT_SAVE, ChipsHelper, Render
from companion.tables.chips.typed import check_name
from companion.tables.settings import TableSettings
from companion.tables.web import check_web


@dataclass(frozen=True)
class ChipsOptions:
    """What the command line says (each may be None: then the config or a default)."""

    players: str | None = None
    first: str | None = None
    top: int | None = None
    config: str | None = None
    pin_factory: str | None = None
    save: str | None = None
    resume: bool = False
    new: bool = False
    web: str | None = None  # --web [HOST:]PORT: the page too (tables/chips/web.py)
    new_code: bool = False  # --new-code: a new join code (else the one kept beside the save)
    db: str | None = None  # the history database (None: the default one)
    history: bool = True  # record a finished game in the history


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def _players(options: ChipsOptions, config: ChipsConfig | None) -> list[str]:
    if options.players:
        players = _names(options.players)
        for i, name in enumerate(players):
            check_name(name, f"--players[{i}]")
        if config is not None and tuple(players) != config.players:
            raise InputError("--players", f"the config seats {', '.join(config.players)}")
        return players
    if config is not None:
        return list(config.players)
    raise InputError("--players", "name the players in turn order (--players ann,bob,cat)")


def new_table(options: ChipsOptions, config: ChipsConfig | None) -> ChipsTable:
    """The table a new game starts with; E13: strict only with a deck in the config."""
    players = _players(options, config)
    rules = config.rules if config else ChipsRules()
    first = options.first or (config.first if config else None)
    try:
        table = ChipsTable.new(players, rules, first, strict=bool(config and config.strict))
    except RuleError as exc:
        where = "--first" if first and first not in players else "--players"
        raise InputError(where, str(exc)) from None
    if options.top is not None:
        try:
            table.start(options.top)
        except RuleError as exc:
            raise InputError("--top", str(exc)) from None
    return table


def run(options: ChipsOptions) -> int:
    config = load_config(options.config) if options.config else None
    settings = config.settings if config is not None else TableSettings()
    web = settings.listen(options.web)
    check_web(web)  # the config's [web] too, before the save file and the LEDs are opened
    if options.resume:
        given = [
            f
            for f, v in (
                ("--players", options.players),
                ("--first", options.first),
                ("--top", options.top),
            )
            if v is not None
        ]
        if given:
            raise InputError(given[0], "the game comes from the save file with --resume")
        table = None
    else:
        table = new_table(options, config)
    factory = options.pin_factory or (config.pin_factory if config else None)
    if factory is not None and factory not in PIN_FACTORIES:
        raise InputError("--pin-factory", f"one of: {', '.join(PIN_FACTORIES)}")
    with contextlib.ExitStack() as devices:
        render: Render | None = None
        opened = None
        if config is not None and config.has_outputs and factory is not None:
            from companion.devices.outputs import TableOutputs
            from companion.devices.pins import open_factory

            opened = devices.enter_context(contextlib.closing(open_factory(factory)))
            outputs = TableOutputs(config.leds, config.buzzer, config.status_led, opened)
            devices.callback(outputs.close)
            render = outputs.render
        path = Path(options.save or DEFAULT_SAVE)
        helper = ChipsHelper.open(path, table, options.resume, options.new, render)
        devices.callback(helper.release)
        if config is not None and helper.table.players != config.players:
            raise InputError("--config", f"the saved game seats {', '.join(helper.table.players)}")
        if config is not None:
            helper.messages.extend(config.warnings)
        if opened is not None:
            helper.messages.append(f"LEDs on {opened.name} pins")
        elif options.pin_factory:
            helper.messages.append("no LEDs: --pin-factory needs a --config that gives LED pins")

        def led(player: str) -> bool | None:
            cfg = config.leds.get(player) if config else None
            if opened is None or cfg is None:
                return None
            return any(bool(opened.factory.pin(pin).state) for pin in cfg.pins)

        if web is not None:
            from companion.tables.chips.web import serve_web

            devices.callback(
                serve_web(helper, web, path, options.new_code, settings.database(options.db))
            )
        title = f"The Great Chips Escape · {', '.join(helper.table.players)}"
        if sys.stdin.isatty() and sys.stdout.isatty():
            run_curses(helper, title, led)
        else:
            run_lines(helper, title, sys.stdin, sys.stdout)
    finished = helper.table
    if finished.winner is not None and settings.recording(refused=not options.history):
        from companion.history import record_chips, remember

        remember(
            record_chips,
            finished.players,
            finished.winner,
            finished.out,
            db=settings.database(options.db),
            source=str(helper.path),
        )
    return 0
