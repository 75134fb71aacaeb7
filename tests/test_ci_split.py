""".ci/arm64-split.py: the test files dealt to the arm64 run's two pytest processes."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from conftest import ROOT, examples
from hypothesis import given, settings
from hypothesis import strategies as st


def split_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("arm64_split", ROOT / ".ci" / "arm64-split.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SPLIT = split_module()
NAMES = st.lists(st.from_regex(r"tests/test_[a-z]{1,8}\.py", fullmatch=True), unique=True)


@settings(max_examples=examples(200), deadline=None)
@given(NAMES, st.data())
def test_every_file_goes_to_exactly_one_process_and_the_loads_differ_by_at_most_one_file(
    files: list[str], data: st.DataObject
) -> None:
    seconds = {f: data.draw(st.floats(0.1, 500.0)) for f in files}
    first, second = SPLIT.deal(seconds, files)
    assert sorted(first + second) == sorted(files)
    loads = [sum(seconds[f] for f in half) for half in (first, second)]
    assert abs(loads[0] - loads[1]) <= max(seconds.values(), default=0.0) + 1e-6


def test_without_durations_the_files_are_dealt_in_turn() -> None:
    files = [f"tests/test_{c}.py" for c in "abcde"]
    assert SPLIT.deal({}, files) == (files[0::2], files[1::2])


def test_a_file_the_last_run_did_not_know_counts_as_the_median() -> None:
    seconds = {"tests/test_a.py": 300.0, "tests/test_b.py": 10.0, "tests/test_c.py": 20.0}
    first, second = SPLIT.deal(seconds, [*seconds, "tests/test_new.py"])
    assert first == ["tests/test_a.py"]  # 300 alone against 10 + 20 + 20 (the median)
    assert second == ["tests/test_b.py", "tests/test_c.py", "tests/test_new.py"]


def test_the_seconds_of_each_file_are_read_from_pytests_junit_reports(tmp_path: Path) -> None:
    report = tmp_path / "junit.xml"
    report.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="tests.test_scan_reader" name="a" time="10.5"/>'
        '<testcase classname="tests.test_scan_reader" name="b" time="2.0"/>'
        '<testcase classname="tests.test_lint.TestRuff" name="c" time="1.25"/>'
        '<testcase classname="" name="collect" time="9"/>'
        "</testsuite></testsuites>",
        encoding="utf-8",
    )
    assert SPLIT.collect([str(report)]) == {
        "tests/test_lint.py": 1.25,
        "tests/test_scan_reader.py": 12.5,
    }
