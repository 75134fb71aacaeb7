"""Every ``--help`` a newcomer reads is complete and agrees with itself (issue 14, point 7).

Each command's module registers its own options, so the walk builds the parser once per
command, as ``companion COMMAND --help`` does.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from companion.cli import COMMANDS, build_parser, main


def parsers(
    parser: argparse.ArgumentParser, path: tuple[str, ...]
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """The parser and every subcommand's parser below it, with the words that reach it."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from parsers(sub, (*path, name))


def every_parser() -> list[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    found: list[tuple[tuple[str, ...], argparse.ArgumentParser]] = []
    for command in COMMANDS:
        root = build_parser([command])
        found += [(p, sub) for p, sub in parsers(root, ()) if p[:1] == (command,)]
    return found


PARSERS = every_parser()
IDS = [" ".join(path) for path, _ in PARSERS]


def test_the_walk_reaches_every_command_and_subcommand() -> None:
    names = {" ".join(path) for path, _ in PARSERS}
    assert set(COMMANDS) <= names
    assert {"chomp audit", "bench dino", "dino bench", "chips play", "history alias"} <= names


@pytest.mark.parametrize(("path", "parser"), PARSERS, ids=IDS)
def test_every_option_and_argument_has_a_help_line(
    path: tuple[str, ...], parser: argparse.ArgumentParser
) -> None:
    missing = [
        "/".join(a.option_strings) or a.dest
        for a in parser._actions
        if not isinstance(a, argparse._HelpAction | argparse._SubParsersAction)
        and (not a.help or a.help == argparse.SUPPRESS)
    ]
    assert missing == [], f"companion {' '.join(path)}: no help for {missing}"


@pytest.mark.parametrize(("path", "parser"), PARSERS, ids=IDS)
def test_help_prints_no_doubled_percent(
    path: tuple[str, ...], parser: argparse.ArgumentParser
) -> None:
    assert "%%" not in parser.format_help()


def test_dino_markers_help_says_print_at_100_percent(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["dino", "markers", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "Print at 100% (the sheet" in out


def test_chomp_audit_help_documents_its_exit_statuses(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["chomp", "audit", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "1 when a verdict disagrees" in out and "0 when every verdict agrees" in out


def bench_dino(argv: list[str]) -> argparse.Namespace:
    return build_parser(argv).parse_args(argv)


def test_the_scorer_bench_is_under_bench_and_the_old_name_still_works() -> None:
    new = bench_dino(["bench", "dino", "--cells", "50", "--seed", "3"])
    old = bench_dino(["dino", "bench", "--cells", "50", "--seed", "3"])
    assert new.handler is old.handler
    assert (new.cells, new.repeat, new.seed) == (old.cells, old.repeat, old.seed) == (50, 21, 3)


def test_chips_play_is_plain_chips_by_its_other_name() -> None:
    argv = ["--players", "a,b,c", "--first", "b", "--new"]
    plain = build_parser(["chips"]).parse_args(["chips", *argv])
    named = build_parser(["chips"]).parse_args(["chips", "play", *argv])
    before = build_parser(["chips"]).parse_args(["chips", "--players", "a,b,c", "play", "--new"])
    keys = ("players", "first", "top", "config", "pin_factory", "save", "resume", "new")
    assert [getattr(plain, k) for k in keys] == [getattr(named, k) for k in keys]
    assert plain.handler is named.handler
    assert (before.players, before.new, before.resume) == ("a,b,c", True, False)
