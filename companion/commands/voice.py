"""``companion voice test``: hear every call a table makes, in its voice (docs/voice.md).

The voice itself is :mod:`companion.tables.voice`; this reads the table's config (a CHOMP!
``table.toml`` or a Get Bit! ``[getbit]`` file), then prints and plays each phrase.
"""

from __future__ import annotations

import argparse
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from companion.signals import Signal

if TYPE_CHECKING:
    from companion.tables.voice import VoiceConfig

DEFAULT_SEATS = ("ann", "bob", "cat")


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    voice = commands.add_parser("voice", help="spoken calls: hear every phrase a table says")
    sub = voice.add_subparsers(dest="voice_command", metavar="COMMAND", required=True)
    test = sub.add_parser(
        "test",
        help="speak every phrase for the table's seats",
        description="Render (once, into the cache) and speak every call the table makes: "
        "the verdicts, each seat's name, bad chomp, ink out, Get Bit!'s bites. The voice, "
        "speed and player come from the config's [voice] table (tested even when it is off).",
    )
    test.add_argument(
        "--config",
        metavar="FILE",
        help="the table's TOML config (CHOMP! or Get Bit!); without it: English, seats "
        + " ".join(DEFAULT_SEATS),
    )
    test.add_argument(
        "--no-sound", action="store_true", help="render and list the phrases, play nothing"
    )
    test.set_defaults(handler=run_voice_test)


def _table(path: str | None) -> tuple[VoiceConfig, Sequence[str], Collection[Signal], str | None]:
    """The [voice] config, the seats and the signals of the table in ``path``."""
    from companion import data
    from companion.tables.voice import CHOMP_SIGNALS, GETBIT_SIGNALS, VoiceConfig

    if path is None:
        return VoiceConfig(), DEFAULT_SEATS, CHOMP_SIGNALS, None
    if "getbit" in data.read_toml(path):
        from companion.tables.getbit.config import load_table_config

        getbit = load_table_config(path)
        return getbit.voice, [r.name for r in getbit.robots], GETBIT_SIGNALS, path
    from companion.tables.chomp.config import load_config

    chomp = load_config(path)
    return chomp.voice, chomp.names, CHOMP_SIGNALS, path


def run_voice_test(args: argparse.Namespace) -> int:
    from companion.tables.voice import NullSink, Sink, voice_test

    config, seats, signals, source = _table(args.config)
    sink: Sink | None = NullSink() if args.no_sound else None
    if source is not None and not config.enabled:
        print(f"note: [voice] is off in {source} (enabled = false): the table stays silent")
    said = 0
    for phrase, seconds in voice_test(config, seats, signals, source, sink):
        if not phrase:
            print(f"voice {config.voice} at {config.speed} words a minute: {int(seconds)} "
                  "phrases rendered now, the rest from the cache")  # fmt: skip
            continue
        print(f"{'listed' if args.no_sound else 'saying'}: {phrase} ({seconds:.1f} s)", flush=True)
        said += 1
    print(f"{said} phrases")
    return 0
