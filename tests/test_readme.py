"""Every ``console`` example in the README runs and prints what the README shows."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from companion.cli import main

README = Path(__file__).resolve().parent.parent / "README.md"


def console_examples() -> list[tuple[str, str]]:
    """(command, expected output) pairs from the README's ```console blocks."""
    examples = []
    for block in re.findall(r"```console\n(.*?)```", README.read_text(), re.S):
        command, expected = None, []
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


EXAMPLES = console_examples()


def test_readme_has_examples() -> None:
    assert len(EXAMPLES) >= 3


@pytest.mark.parametrize(("command", "expected"), EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_readme_example_prints_what_the_readme_shows(
    command: str, expected: str, repo_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = shlex.split(command)
    assert argv[0] == "companion"
    status = main(argv[1:])
    out, err = capsys.readouterr()
    shown = (out + err).rstrip("\n")
    assert shown == expected.rstrip("\n")
    assert status == (2 if err else 0)
