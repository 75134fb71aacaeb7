"""The tree shows the architecture: imports point down the layers, modules stay small.

The layers (docs/architecture.md), lowest first: the foundation (errors, data, files, figures),
games/, signals, referee/, devices/ tags/ scan/ camera/ history/, tables/, commands/ and cli. Every
import counts, those inside functions included, because a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("companion", "firmware_bridge")

MAX_MODULE_LINES = 800
MAX_FUNCTION_LINES = 80


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imports(module: str, path: Path) -> Iterator[tuple[int, str]]:
    """Every project module ``module`` imports, at any depth of the file."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            stem = ".".join([*base, *([node.module] if node.module else [])])
            # `from companion.games import chomp` imports the module companion.games.chomp
            targets = [
                f"{stem}.{alias.name}" if f"{stem}.{alias.name}" in MODULES else stem
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            if target.split(".")[0] in PACKAGES:
                yield node.lineno, target


def _layer(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "firmware_bridge":
        return "firmware_bridge"
    if len(parts) == 1:
        return "package"
    return parts[1]


FOUNDATION = {"errors", "text", "data", "files", "figures", "svg", "photo_gate"}
# Which layers each layer may import (besides itself and the standard library).
ALLOWED: dict[str, set[str]] = {
    "firmware_bridge": set(),
    "errors": set(),
    "text": {"errors"},
    "data": {"errors", "text"},
    "files": {"errors", "text", "data"},
    "figures": set(),
    "svg": set(),
    "photo_gate": {"errors", "text", "data"},  # every photo from outside, one gate
    "games": FOUNDATION,
    "signals": set(),
    "referee": FOUNDATION | {"games", "signals"},
    "devices": FOUNDATION | {"signals"},
    "tags": FOUNDATION | {"games", "signals"},
    "scan": FOUNDATION | {"games"},
    "camera": FOUNDATION | {"games", "signals"},
    "history": FOUNDATION | {"games", "signals", "referee"},
    "tables": FOUNDATION
    | {"games", "signals", "referee", "devices", "tags", "scan", "camera", "history"}
    | {"firmware_bridge"},
    "commands": FOUNDATION
    | {"games", "signals", "referee", "devices", "tags", "scan", "camera", "history", "tables"}
    | {"firmware_bridge", "package"},
    "cli": {"package", "errors", "commands"},
    "__main__": {"cli"},
}
# companion/__init__.py is the public API's front door (docs/api.md): it may name anything
# below the commands, and imports it lazily, on first use.
ALLOWED["package"] = set(ALLOWED) - {"commands", "cli", "__main__", "package"} | {"tables"}


def _edges() -> list[tuple[str, int, str]]:
    return [(m, line, t) for m, p in MODULES.items() for line, t in _imports(m, p)]


def test_imports_point_down_the_layers() -> None:
    wrong: list[str] = []
    for module, line, target in dict.fromkeys(_edges()):
        here, there = _layer(module), _layer(target)
        if here == there or there in ALLOWED.get(here, set()):
            continue
        found = f"{MODULES[module].relative_to(ROOT)}:{line} {module} -> {target}"
        if found not in wrong:
            wrong.append(found)
    assert not wrong, "imports against the layering:\n" + "\n".join(wrong)


def test_nothing_but_the_cli_imports_commands() -> None:
    wrong = [
        f"{m} -> {t}"
        for m, _, t in _edges()
        if _layer(t) == "commands" and _layer(m) not in ("commands", "cli")
    ]
    assert not wrong


def test_the_bridge_imports_nothing_from_companion() -> None:
    wrong = [f"{m} -> {t}" for m, _, t in _edges() if m.startswith("firmware_bridge")]
    assert not [w for w in wrong if "-> companion" in w]


def test_no_import_cycles() -> None:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, _, target in _edges():
        if target in MODULES and target != module:
            graph[module].add(target)
    # Tarjan's strongly connected components: any component of two or more is a cycle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    assert not cycles, f"import cycles: {cycles}"


def test_the_layering_check_sees_a_violation() -> None:
    """The check itself: an import against the layering, made up here, is caught."""
    assert "referee" not in ALLOWED["games"]
    assert _layer("companion.referee.core") == "referee"
    assert "tables" not in ALLOWED["devices"]


@pytest.mark.parametrize("module", sorted(MODULES), ids=str)
def test_modules_and_functions_stay_small(module: str) -> None:
    path = MODULES[module]
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_MODULE_LINES, f"{path} is over {MAX_MODULE_LINES} lines"
    long = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            assert node.end_lineno is not None
            length = node.end_lineno - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                long.append(f"{node.name} ({length} lines, line {node.lineno})")
    assert not long, f"{path}: functions over {MAX_FUNCTION_LINES} lines: {long}"


def test_each_game_is_a_package_whose_init_is_what_callers_import() -> None:
    games = ROOT / "companion" / "games"
    loose = sorted(p.name for p in games.glob("*.py") if p.name not in ("__init__.py", "turns.py"))
    assert not loose, f"a game's module outside its package: {loose}"
    for game in ("chomp", "dino", "getbit", "foodchain", "chips"):
        assert (games / game / "__init__.py").is_file(), game


def test_the_scan_reader_never_imports_its_benchmark_or_synthesizer() -> None:
    apart = ("companion.scan.synth", "companion.scan.bench")
    wrong = [
        f"{m} -> {t}"
        for m, _, t in _edges()
        if m.startswith("companion.scan.") and not m.startswith(apart) and t.startswith(apart)
    ]
    assert not wrong, wrong
