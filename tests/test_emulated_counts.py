"""The arm64 run under qemu (.ci/arm64) tries each property on fewer examples than the
native run: the counts it uses, and that only that run switches them."""

from __future__ import annotations

import conftest
import pytest
from conftest import ROOT
from hypothesis import settings


def test_examples_are_the_count_natively_and_a_fifth_at_least_two_emulated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counts = (1, 4, 25, 40, 300)
    monkeypatch.setattr(conftest, "EMULATED", False)
    assert [conftest.examples(n) for n in counts] == [1, 4, 25, 40, 300]
    monkeypatch.setattr(conftest, "EMULATED", True)
    assert [conftest.examples(n) for n in counts] == [1, 2, 5, 8, 60]


def test_the_emulated_profile_tries_20_examples_and_times_none() -> None:
    profile = settings.get_profile("emulated")
    assert (profile.max_examples, profile.deadline) == (20, None)


def test_only_the_arm64_run_switches_to_the_emulated_counts() -> None:
    """.ci/arm64 sets the switch inside the chroot; .ci/run's native suite keeps every count."""
    assert "COMPANION_EMULATED=1" in (ROOT / ".ci" / "arm64").read_text(encoding="utf-8")
    assert "COMPANION_EMULATED" not in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_every_property_count_goes_through_examples() -> None:
    """A count written as a bare number would run in full under qemu: every
    ``max_examples=`` in the tests is ``examples(N)`` (the camera's tests, added beside the
    arm64 work, were not)."""
    import re

    bare = re.compile(r"max_examples\s*=\s*\d")
    found = [
        f"{path.name}:{n}"
        for path in sorted((ROOT / "tests").glob("*.py"))
        if path.name != "conftest.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if bare.search(line)
    ]
    assert not found, found
