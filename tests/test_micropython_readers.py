"""``firmware/readers.py`` (PN532, RC522) run by MicroPython against the chips' documented
byte exchanges (``micropython_readers_script.py``), and by CPython: the same findings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from firmware_bridge import mprun

SCRIPT = Path(__file__).with_name("micropython_readers_script.py")

pytestmark = pytest.mark.skipif(
    mprun.find_micropython() is None,
    reason=f"no MicroPython interpreter here: {mprun.INSTALL_HINT}",
)


def test_readers_find_the_documented_uids_in_micropython_as_in_cpython() -> None:
    micropython = mprun.run_lines([], script=SCRIPT)
    cpython = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert micropython == cpython
    assert not [line for line in micropython if "unexpected" in line]
    pn532 = [line for line in micropython if line.startswith("pn532 chunk")]
    assert len(pn532) == 3
    # the 7-byte UID once though the card stayed for two polls, then (after no card) the next
    assert all(" uids 04A1B2C3D4E580 DEADBEEF writes " in line for line in pn532)
    wake = "5555" + "00" * 14
    assert f"pn532 first write {wake}0000FF05FBD4140114010200" in micropython  # SAMConfiguration
    assert "rc522 DEADBEEF read DEADBEEF again None gone [None, None]" in micropython
    assert "rc522 04A1B2C3D4E580 read 04A1B2C3D4E580 again None gone [None, None]" in micropython
    assert micropython[-1] == "done True"
