"""The supported Python surface: docs/api.md runs as written, and importing it is cheap.

``import companion`` and ``companion --help`` load no engine, no referee, no table and no
gpiozero: every exported name is imported from its home on first use.
"""

from __future__ import annotations

import doctest
import subprocess
import sys
from pathlib import Path

import pytest

import companion

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("companion.games", "companion.referee", "companion.tables", "companion.devices")


def test_the_api_page_runs_as_written(repo_root: Path) -> None:
    result = doctest.testfile(
        str(repo_root / "docs" / "api.md"),
        module_relative=False,
        optionflags=doctest.ELLIPSIS,
        verbose=False,
    )
    assert result.attempted > 30 and result.failed == 0


def loaded_after(code: str) -> list[str]:
    probe = f"import sys; {code}; print(sorted(m for m in sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    )
    modules: list[str] = eval(result.stdout)  # a printed list of module names
    return [m for m in modules if m.startswith(HEAVY) or m.startswith("gpiozero")]


def test_import_companion_loads_no_engine_table_or_gpiozero() -> None:
    assert loaded_after("import companion") == []


def test_help_loads_no_engine_table_or_gpiozero() -> None:
    assert loaded_after("from companion.cli import build_parser; build_parser([])") == []


def test_every_exported_name_resolves_and_is_listed() -> None:
    exported = set(companion._EXPORTS)
    assert set(companion.__all__) == exported
    for name in sorted(exported):
        assert getattr(companion, name) is not None, name
    assert companion.score_land.__name__ == "score"  # the dino engine's own function


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Session'"):
        companion.Session  # noqa: B018 - the lookup is the test
