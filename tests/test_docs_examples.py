"""Every ``console`` example in README.md and docs/*.md runs and prints what the page shows.

The pages are the user's manual; running them keeps them true to the code.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from companion.cli import main

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def console_examples(page: Path) -> list[tuple[str, str]]:
    """(command, expected output) pairs of a page's ```console blocks."""
    examples = []
    for block in re.findall(r"```console\n(.*?)```", page.read_text("utf-8"), re.S):
        command: str | None = None
        expected: list[str] = []
        for line in block.splitlines():
            if line.startswith("$ "):
                if command is not None:
                    examples.append((command, "\n".join(expected)))
                command, expected = line[2:], []
            else:
                expected.append(line)
        if command is not None:
            examples.append((command, "\n".join(expected)))
    return examples


EXAMPLES = [
    (page.relative_to(ROOT).as_posix(), command, expected)
    for page in PAGES
    for command, expected in console_examples(page)
]


def test_the_manual_has_examples_on_every_game_page() -> None:
    pages = {page for page, _, _ in EXAMPLES}
    assert {"README.md", "docs/dino-grid.md", "docs/foodchain.md"} <= pages


@pytest.mark.parametrize(
    ("page", "command", "expected"), EXAMPLES, ids=[f"{p}: {c}" for p, c, _ in EXAMPLES]
)
def test_example_prints_what_the_page_shows(
    page: str, command: str, expected: str, repo_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = shlex.split(command)
    assert argv[0] == "companion", f"{page}: only companion commands are run"
    status = main(argv[1:])
    out, err = capsys.readouterr()
    assert (out + err).rstrip("\n") == expected.rstrip("\n")
    refused = bool(err) and "warning" not in err
    assert status == (2 if refused else 0)


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_json_blocks_on_the_page_are_json(page: Path) -> None:
    for block in re.findall(r"```json\n(.*?)```", page.read_text("utf-8"), re.S):
        json.loads(block)
