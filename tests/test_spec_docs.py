"""The project's own spec holds together: nothing cites files a clone does not have, every
link and every ``--help`` text points inside the repository, and every house ruling in
docs/rulings.md is held by a test that names it (``test_c5_...`` for C5).
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.cli import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parent.parent
RULINGS = ROOT / "docs" / "rulings.md"
PAGES = sorted(
    [ROOT / "README.md", *ROOT.glob("docs/*.md"), *ROOT.glob("hardware/*.md")]
    + [*ROOT.glob("firmware_bridge/*.md")]
)
# The spec and the rulebook texts that lived outside the repository (written in pieces, so
# that this file does not cite them itself). The rulebooks are cited by their titles.
OUTSIDE = re.compile(
    "shared" + r"/(?:spec|rules)?"
    r"|\b(?:chomp-slap-card-game|chomp-dinosaur-land|get-bit|food-chain|great-chips-escape)\.txt"
)
REPO_PATH = re.compile(
    r"(?<![\w./~-])(?:companion|docs|examples|hardware|firmware_bridge|tests)/[\w./-]*\.[a-z]+\b"
)


def tracked_files() -> list[Path]:
    """The files git tracks (a clone's files), or every file outside .git and .venv."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout
        paths = [ROOT / name for name in listed.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", ".venv"}
        paths = [p for p in ROOT.rglob("*") if not skip & set(p.relative_to(ROOT).parts)]
    return [p for p in paths if p.is_file()]


def test_no_file_cites_the_spec_outside_the_repository() -> None:
    citing = []
    for path in tracked_files():
        try:
            text = path.read_text("utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                citing.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert citing == []


# ---------------------------------------------------------------- links -----------------


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text("utf-8"), flags=re.M | re.S)
    return {slug(m[1]) for m in re.finditer(r"^#+ (.+)$", text, re.M)}


def links(page: Path) -> Iterator[tuple[int, str]]:
    text = page.read_text("utf-8")
    prose = re.sub(r"^```.*?^```", lambda m: "\n" * m[0].count("\n"), text, flags=re.M | re.S)
    for number, line in enumerate(prose.splitlines(), 1):
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if not re.match(r"[a-z]+:", target):
                yield number, target


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_link_points_inside_the_repository(page: Path) -> None:
    broken = []
    for number, target in links(page):
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists() or ROOT not in (file, *file.parents):
            broken.append(f"line {number}: {target}: no such file in the repository")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"line {number}: {target}: no such heading")
    assert broken == []


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_repository_path_a_page_names_exists(page: Path) -> None:
    text = page.read_text("utf-8")
    missing = sorted(
        {p for p in REPO_PATH.findall(text) if "*" not in p and not (ROOT / p).exists()}
    )
    assert missing == []


def test_the_readme_indexes_every_docs_page() -> None:
    readme = ROOT / "README.md"
    linked = {(readme.parent / target.partition("#")[0]).resolve() for _, target in links(readme)}
    assert sorted(p.name for p in ROOT.glob("docs/*.md") if p.resolve() not in linked) == []


def parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from parsers(sub)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_help_texts_point_inside_the_repository(command: str) -> None:
    problems = []
    for parser in parsers(build_parser([command])):
        text = parser.format_help()
        problems += [f"{parser.prog}: cites {m[0]}" for m in OUTSIDE.finditer(text)]
        problems += [
            f"{parser.prog}: {p}: no such file"
            for p in REPO_PATH.findall(text.replace("\n", " "))
            if not (ROOT / p).exists()
        ]
    assert problems == []


def test_help_texts_name_the_formats_page_by_its_path() -> None:
    texts = [p.format_help() for c in COMMANDS for p in parsers(build_parser([c]))]
    bare = [t for t in texts if re.search(r"(?<!docs/)formats\.md", t)]
    assert bare == []


# ---------------------------------------------------------------- rulings ---------------

EXPECTED = [
    *(f"C{i}" for i in range(1, 19)),
    *(f"D{i}" for i in range(1, 8)),
    *(f"G{i}" for i in range(1, 9)),
    *(f"F{i}" for i in range(1, 14)),
    *(f"E{i}" for i in range(1, 14)),
]

# Rulings no test names yet, and why. A ruling that gains a named test must leave this
# set (the test below fails until it does), so the set only ever shrinks.
PENDING: dict[str, str] = {}


def ruling_ids() -> list[str]:
    return re.findall(r"^### ([CDGFE]\d+) ·", RULINGS.read_text("utf-8"), re.M)


def test_rulings_page_numbers_every_ruling_once_in_order() -> None:
    assert ruling_ids() == EXPECTED


def collect_test_names() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "tests").glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if node.name.startswith("test_"):
                    names.add(node.name)
    return names


TEST_NAMES = collect_test_names()


def named(ruling: str) -> list[str]:
    prefix = f"test_{ruling.lower()}_"
    return sorted(n for n in TEST_NAMES if n.startswith(prefix))


@pytest.mark.parametrize("ruling", EXPECTED)
def test_every_ruling_is_named_by_a_test(ruling: str) -> None:
    if ruling in PENDING:
        assert not named(ruling), (
            f"{ruling} has tests now ({named(ruling)}): take it out of PENDING"
        )
        pytest.xfail(PENDING[ruling])
    assert named(ruling), f"no test function is named test_{ruling.lower()}_..."


@pytest.mark.parametrize("ruling", EXPECTED)
def test_every_ruling_says_which_module_applies_it(ruling: str) -> None:
    text = RULINGS.read_text("utf-8")
    body = re.search(rf"^### {ruling} ·.*?(?=^##)", text + "\n## end", re.M | re.S)
    assert body is not None
    modules = re.findall(r"`(companion/[\w/]+\.py)`", body[0].split("*Applied in:*")[-1])
    assert "*Applied in:*" in body[0] and modules, f"{ruling}: no *Applied in:* module"
    assert [m for m in modules if not (ROOT / m).exists()] == []


def test_rulebooks_are_cited_by_their_titles() -> None:
    text = RULINGS.read_text("utf-8")
    for title in ("CHOMP!", "Chomp", "Get Bit!", "Food Chain", "The Great Chips Escape"):
        assert f"*{title}* rulebook" in text
