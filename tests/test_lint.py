"""ruff (E, W, F, I, UP, B), its formatter and mypy --strict are part of the suite, so main
stays clean."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True
    )


def test_ruff_lint_is_clean() -> None:
    result = ruff("check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    result = ruff("format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_package_ships_py_typed() -> None:
    assert (ROOT / "companion" / "py.typed").exists()
    assert (ROOT / "firmware_bridge" / "py.typed").exists()


@pytest.mark.emulated_slow  # the same on every machine; 7.5 minutes under qemu
def test_mypy_strict_is_clean() -> None:
    """mypy --strict over what pyproject names: the package, the bridge and the tests."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert set(config["tool"]["mypy"]["files"]) >= {"companion", "firmware_bridge", "tests"}
    result = subprocess.run(
        [sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_help_imports_no_game_engine() -> None:
    """``companion --help`` lists every command without importing their engines."""
    probe = (
        "import sys; from companion.cli import build_parser; build_parser([]); "
        "print(sorted(m for m in sys.modules if m.startswith('companion.games')))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.stdout.strip() == "[]", result.stdout + result.stderr
