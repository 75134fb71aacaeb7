"""A Pi installs the documented extras from wheels: no compiler anywhere (hardware/INSTALL.md).

Asks the package index what ``pip`` would fetch for Raspberry Pi OS Bookworm (CPython 3.11,
glibc 2.36) with ``--only-binary=:all:``, from the project's own requirements: every
dependency of the core and of the ``scan`` extra must resolve to a wheel on 64-bit
(aarch64); on 32-bit (armv7l) the ones without a wheel must be the ones INSTALL.md names.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INSTALL = ROOT / "hardware" / "INSTALL.md"
GLIBC = 36  # Bookworm's glibc 2.36
UNREACHABLE = (
    "NewConnectionError",
    "Max retries exceeded",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "ConnectTimeout",
    "ReadTimeout",
)

# What the index offers a Pi is asked with --platform, the same from any machine: not
# again under qemu's arm64 emulation, where each question takes minutes.
pytestmark = [pytest.mark.index, pytest.mark.emulated_slow]


def documented_requirements() -> list[str]:
    """The core's requirements and the scan and web extras', from pyproject.toml."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    return [*project["dependencies"], *extras["scan"], *extras["web"]]


def pip_download(arch: str, requirements: list[str], dest: Path, deps: bool) -> str:
    """pip's own resolver for the Pi, wheels only; the error text ('' on success). pip
    does not widen a manylinux tag to older glibc levels, so each level is named."""
    platforms = [f"manylinux_2_{v}_{arch}" for v in range(GLIBC, 16, -1)]
    platforms += [f"manylinux2014_{arch}", f"linux_{arch}"]
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:"]
    command += [arg for p in platforms for arg in ("--platform", p)]
    command += ["--python-version", "3.11", "--implementation", "cp", "--abi", "cp311"]
    command += ["--dest", str(dest), *([] if deps else ["--no-deps"]), *requirements]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    except subprocess.TimeoutExpired:
        pytest.skip("the package index did not answer within 120 s")
    if done.returncode == 0:
        return ""
    if any(sign in done.stderr for sign in UNREACHABLE):
        pytest.skip("the package index is unreachable from here")
    return done.stderr


@pytest.mark.slow
def test_64_bit_bookworm_installs_core_scan_and_web_from_wheels(tmp_path: Path) -> None:
    error = pip_download("aarch64", documented_requirements(), tmp_path, deps=True)
    assert error == "", error
    wheels = sorted(p.name for p in tmp_path.iterdir())
    assert wheels and all(name.endswith(".whl") for name in wheels), wheels
    names = {re.split(r"-\d", name, maxsplit=1)[0].lower() for name in wheels}
    assert {"gpiozero", "pyserial", "numpy", "opencv_python_headless", "pillow"} <= names
    assert {"starlette", "uvicorn", "segno"} <= names


@pytest.mark.slow
def test_32_bit_lacks_exactly_the_wheels_install_md_names(tmp_path: Path) -> None:
    missing = []
    for requirement in documented_requirements():
        if pip_download("armv7l", [requirement], tmp_path, deps=False):
            missing.append(re.split(r"[<>=;\[ ]", requirement, maxsplit=1)[0])
    section = INSTALL.read_text().split("### 32-bit Raspberry Pi OS (armv7l)")[1].split("\n## ")[0]
    named = set(re.findall(r"^- `([A-Za-z0-9_.-]+)`: no armv7l wheel", section, re.MULTILINE))
    assert set(missing) == named


def test_building_the_project_says_nothing_a_newcomer_would_read_as_an_error(
    tmp_path: Path,
) -> None:
    """The README's `pip install -q -e .` must not print setuptools' "!!" warning blocks
    (a deprecated license table, packages found by accident): built here with the same
    backend pip fetches, output shown, and no such block in it."""
    copy = tmp_path / "companion"
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, files):
        target = copy / name.decode()
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((ROOT / name.decode()).read_bytes())
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w", str(tmp_path), "."],
            cwd=copy,
            capture_output=True,
            text=True,
            timeout=300,
        )
    except subprocess.TimeoutExpired:
        pytest.skip("the package index did not answer within 300 s")
    if done.returncode != 0 and any(sign in done.stderr for sign in UNREACHABLE):
        pytest.skip("the package index is unreachable from here (setuptools is fetched)")
    assert done.returncode == 0, done.stderr[-2000:]
    printed = done.stdout + done.stderr
    blocks = [line for line in printed.splitlines() if line.strip() == "!!"]
    assert not blocks, printed[printed.index("!!") - 600 : printed.index("!!") + 900]
    assert "Deprecat" not in printed
