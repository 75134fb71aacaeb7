"""The referee and the devices keep to their layer (imports inside functions included).

``referee/`` is the time-as-input core: it imports the rules, the shared vocabulary, the
foundation (errors, data) and itself, never a device, a card source, a table, a command
or the Pico bridge. ``devices/`` is gpiozero only: no referee, table or command.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "companion"

ALLOWED = {
    "referee": (
        "companion.games",
        "companion.signals",
        "companion.errors",
        "companion.data",
        "companion.referee",
    ),
    "devices": ("companion.signals", "companion.errors", "companion.data", "companion.devices"),
}


def project_imports(path: Path) -> list[str]:
    """Every companion or firmware_bridge module a file imports, anywhere in it."""
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
            if node.module == "companion":  # from companion import data
                names = [f"companion.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found += [n for n in names if n.split(".")[0] in ("companion", "firmware_bridge")]
    return found


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_a_layer_imports_only_what_is_below_it(layer: str) -> None:
    allowed = ALLOWED[layer]
    against = [
        f"{path.relative_to(PACKAGE.parent)} imports {name}"
        for path in sorted((PACKAGE / layer).glob("*.py"))
        for name in project_imports(path)
        if not any(name == a or name.startswith(a + ".") for a in allowed)
    ]
    assert against == []
