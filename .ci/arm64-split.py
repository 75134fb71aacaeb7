"""Deal the test files to .ci/arm64's two pytest processes so both end about together.

Two uses, both with the standard library only (it runs on the host and, emulated, in the
chroot):

* ``arm64-split.py deal DURATIONS FILE...``: prints two lines, the files of each process.
  The longest files (by the seconds DURATIONS holds for them, measured in the last run)
  go first, each to the process with less to do; a file DURATIONS does not know counts as
  the median. Without DURATIONS (a first run) the files are dealt in turn.
* ``arm64-split.py collect JUNIT...``: prints, as JSON, each test file's seconds under
  emulation from pytest's JUnit reports (setup, call and teardown), for the next run.
"""

from __future__ import annotations

import json
import statistics
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def deal(durations: dict[str, float], files: list[str]) -> tuple[list[str], list[str]]:
    if not durations:
        return files[0::2], files[1::2]
    default = statistics.median(durations.values())
    load = [0.0, 0.0]
    halves: tuple[list[str], list[str]] = ([], [])
    for name in sorted(files, key=lambda f: (-durations.get(f, default), f)):
        side = 0 if load[0] <= load[1] else 1
        halves[side].append(name)
        load[side] += durations.get(name, default)
    return sorted(halves[0]), sorted(halves[1])


def collect(reports: list[str]) -> dict[str, float]:
    seconds: dict[str, float] = {}
    for report in reports:
        for case in ET.parse(report).iter("testcase"):
            module = case.get("classname", "").split(".")
            if len(module) < 2 or not module[1].startswith("test_"):
                continue
            name = f"{module[0]}/{module[1]}.py"
            seconds[name] = seconds.get(name, 0.0) + float(case.get("time") or 0.0)
    return {name: round(s, 2) for name, s in sorted(seconds.items())}


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "deal":
        path = Path(argv[1])
        try:
            durations = json.loads(path.read_text(encoding="utf-8")) if argv[1] else {}
        except (OSError, ValueError):
            durations = {}  # none yet, or unreadable: deal in turn
        first, second = deal(durations, argv[2:])
        print(" ".join(first))
        print(" ".join(second))
        return 0
    if argv and argv[0] == "collect":
        print(json.dumps(collect(argv[1:]), indent=1))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
