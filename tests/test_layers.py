"""The layering rules, read from the code's own imports (every ``import``, at module level or inside a function).

* ``workbench/core`` imports no game, no UI, no CLI and no interop module: the registry is the only
  link from core to the games, and it finds them by package, never by a name in the code;
* a game imports core (and itself), never another game, the UI or the CLI;
* the import graph between workbench modules has no cycle (lazy imports count too).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "workbench"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(name: str, path: Path) -> set[str]:
    """Workbench modules ``name`` imports (``from pkg import sub`` counts ``pkg.sub`` when it is a module)."""
    found = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in MODULES)
    return {m for m in found if m in MODULES and m != name}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _game_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "games" else None


def test_the_graph_sees_the_real_imports():
    assert "workbench.core.model" in GRAPH["workbench.core.runner"]
    assert "workbench.games.duel.rules" in GRAPH["workbench.games.duel.model"]
    assert "workbench.games.duel.rules" in GRAPH["workbench.games.duel.agents"]
    assert {"duel", "dietower"} <= {_game_of(m) for m in MODULES}


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("workbench.core")))
def test_core_imports_no_game_ui_cli_or_interop(module):
    bad = {m for m in GRAPH[module] if m.startswith(("workbench.games", "workbench.ui", "workbench.cli",
                                                       "workbench.interop"))}
    assert not bad, f"{module} imports {sorted(bad)}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _game_of(m)))
def test_a_game_imports_only_core_and_itself(module):
    game = _game_of(module)
    bad = {m for m in GRAPH[module] if not (m.startswith("workbench.core") or _game_of(m) == game
                                            or m in ("workbench", "workbench.games"))}
    assert not bad, f"{module} imports {sorted(bad)}"


def test_no_import_cycles():
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(GRAPH[node]):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt]
                pytest.fail("import cycle: " + " → ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for module in sorted(GRAPH):
        if module not in state:
            visit(module)
