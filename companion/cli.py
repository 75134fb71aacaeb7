"""The ``companion`` command: one entry point, a subcommand per job.

Subcommand modules are imported when the parser is built, but each keeps its heavy
imports inside its handlers, so ``companion --help`` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from companion import __version__
from companion.commands import bench, chomp, referee
from companion.errors import CompanionError

EXIT_BAD_INPUT = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="A Raspberry Pi tabletop companion: slap referee, score helpers, trackers.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    games = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chomp.register(games)
    referee.register(games)
    bench.register(games)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except CompanionError as exc:
        print(f"companion: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("companion: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
