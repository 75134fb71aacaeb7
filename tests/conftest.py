from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def repo_root(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run from the repository root, as the README's commands do."""
    monkeypatch.chdir(ROOT)
    return ROOT
