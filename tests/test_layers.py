"""The layering rules, read from the code's own imports (every ``import``, at module level or inside a function).

* ``workbench/core`` imports no game, no UI, no CLI and no interop module: the registry is the only
  link from core to the games, and it finds them by package, never by a name in the code;
* a game imports core (and itself), never another game, the UI or the CLI;
* the import graph between workbench modules has no cycle (lazy imports count too);
* core's packages import one way, in the order ``CORE_LAYERS`` gives (``workbench/core/__init__.py`` says why):
  a module imports only from its own package, the ones before it and the root modules;
* core reaches interop only through the agent providers it declares by name (``AGENT_PROVIDERS`` in
  ``core/model/agents.py``, imported when asked for): the test reads those strings, adds the edges to the
  graph, and checks that no other string in core names a module outside core, and that interop
  imports no game (directly or through anything it imports).
"""

from __future__ import annotations

import ast
import functools
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


@functools.cache
def graph() -> dict[str, set[str]]:
    """Every workbench module's imports (parsed once, when a test first asks: collecting the tests stays quick)."""
    return {name: _imports(name, path) for name, path in MODULES.items()}


PROVIDERS_MODULE = "workbench.core.model.agents"


def _declared_providers() -> tuple[str, ...]:
    """The ``"module:function"`` strings of ``AGENT_PROVIDERS`` in core/model/agents.py, read from its source."""
    tree = ast.parse(MODULES[PROVIDERS_MODULE].read_text(encoding="utf-8"))
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) \
            else []
        if any(isinstance(t, ast.Name) and t.id == "AGENT_PROVIDERS" for t in targets):
            return tuple(ast.literal_eval(node.value))
    raise AssertionError("core/model/agents.py declares no AGENT_PROVIDERS")


PROVIDERS = _declared_providers()
# the edges core makes by name: core.model imports each provider's module when a game's agents are listed
DECLARED = {(PROVIDERS_MODULE, ref.partition(":")[0]) for ref in PROVIDERS}


@functools.cache
def full_graph() -> dict[str, set[str]]:
    """:func:`graph` with the edges core makes by name."""
    return {name: dsts | {dst for src, dst in DECLARED if src == name} for name, dsts in graph().items()}


def _named_modules(path: Path) -> set[str]:
    """Workbench modules (or packages) named by a string constant in ``path``, e.g. ``"pkg.mod:NAME"``."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("workbench."):
            found.add(node.value.partition(":")[0])
    return found


def _game_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "games" else None


def test_the_graph_sees_the_real_imports():
    assert "workbench.core.model" in graph()["workbench.core.sim.runner"]
    assert "workbench.games.duel.rules" in graph()["workbench.games.duel.model"]
    assert "workbench.games.duel.rules" in graph()["workbench.games.duel.agents"]
    assert {"duel", "dietower"} <= {_game_of(m) for m in MODULES}


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("workbench.core")))
def test_core_imports_no_game_ui_cli_or_interop(module):
    bad = {m for m in graph()[module] if m.startswith(("workbench.games", "workbench.ui", "workbench.cli",
                                                       "workbench.interop"))}
    assert not bad, f"{module} imports {sorted(bad)}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _game_of(m)))
def test_a_game_imports_only_core_and_itself(module):
    game = _game_of(module)
    bad = {m for m in graph()[module] if not (m.startswith("workbench.core") or _game_of(m) == game
                                            or m in ("workbench", "workbench.games"))}
    assert not bad, f"{module} imports {sorted(bad)}"


def test_core_reaches_interop_only_through_its_declared_agent_providers():
    assert PROVIDERS, "AGENT_PROVIDERS is empty: nothing to check"
    for ref in PROVIDERS:
        module, _, function = ref.partition(":")
        # interop's agents, or core's own search (provided by reference: core.skill.search imports core.model)
        assert module in MODULES and (module.startswith("workbench.interop")
                                      or module == "workbench.core.skill.search"), ref
        defined = {n.name for n in ast.parse(MODULES[module].read_text(encoding="utf-8")).body
                   if isinstance(n, ast.FunctionDef)}
        assert function in defined, f"{ref}: {module} defines no function {function!r}"
    into_interop = {(src, dst) for src, dsts in full_graph().items() if src.startswith("workbench.core")
                    for dst in dsts if dst.startswith("workbench.interop")}
    assert into_interop == {(src, dst) for src, dst in DECLARED if dst.startswith("workbench.interop")}
    # no other string in core names a module outside core (the games package is found by package, not by name)
    for module in (m for m in MODULES if m.startswith("workbench.core")):
        named = {n for n in _named_modules(MODULES[module]) if not n.startswith("workbench.core")}
        allowed = {dst for src, dst in DECLARED if src == module} | {"workbench.games"}
        assert named <= allowed, f"{module} names {sorted(named - allowed)} by a string"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("workbench.interop")))
def test_interop_imports_no_game_ui_or_cli(module):
    reached, todo = set(), [module]
    while todo:  # everything the module imports, directly or through other modules (declared edges too)
        for nxt in full_graph()[todo.pop()] - reached:
            reached.add(nxt)
            todo.append(nxt)
    bad = {m for m in reached if m.startswith(("workbench.games", "workbench.ui", "workbench.cli", "workbench.app"))}
    assert not bad, f"{module} imports {sorted(bad)}"


def test_no_import_cycles():
    """Over the static imports; core's declared provider edges are lazy (core.model ↔ interop by name only)."""
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph()[node]):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt]
                pytest.fail("import cycle: " + " → ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for module in sorted(graph()):
        if module not in state:
            visit(module)


# core's packages, bottom up (workbench/core/__init__.py); "root" is errors, lazy and rng, directly in core
CORE_LAYERS = ("root", "model", "sim", "stats", "present", "skill", "design", "studies")


def _core_layer(module: str) -> str:
    part = module.split(".")[2]
    return part if part in CORE_LAYERS else "root"


def test_core_is_a_few_packages_and_the_root_modules():
    direct = {m.split(".")[2] for m in MODULES if m.startswith("workbench.core.")}
    packages = {p.name for p in (PACKAGE / "core").iterdir() if (p / "__init__.py").exists()}
    assert packages == set(CORE_LAYERS) - {"root"}
    assert direct - packages == {"errors", "lazy", "rng"}


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("workbench.core.")))
def test_core_packages_import_one_way(module):
    """A module imports nothing from a core package above its own (lazy imports count too)."""
    rank = CORE_LAYERS.index(_core_layer(module))
    above = {m for m in graph()[module] if m.startswith("workbench.core.") and CORE_LAYERS.index(_core_layer(m)) > rank}
    assert not above, f"{module} ({_core_layer(module)}) imports from above: {sorted(above)}"


def test_every_core_package_says_what_it_may_import():
    for layer in CORE_LAYERS[1:]:
        doc = ast.get_docstring(ast.parse((PACKAGE / "core" / layer / "__init__.py").read_text(encoding="utf-8")))
        assert doc and "import" in doc.lower(), f"core/{layer}/__init__.py: no docstring naming what it may import"


# the house's sizes (issue 40): a reader finds a module whole and a folder at a glance
MOST_LINES = 1000  # a module's lines, a compiled kernel aside (numba functions over arrays, one per rule)
MOST_MODULES = 15  # modules directly in one folder, its __init__ counted


def test_no_module_but_a_compiled_kernel_is_over_a_thousand_lines():
    long = {name: n for name, path in MODULES.items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MOST_LINES and path.name != "kernel.py"}
    assert not long, f"modules over {MOST_LINES} lines: {long}"


def test_no_folder_holds_more_than_fifteen_modules():
    folders: dict[Path, int] = {}
    for path in MODULES.values():
        folders[path.parent] = folders.get(path.parent, 0) + 1
    crowded = {str(f.relative_to(ROOT)): n for f, n in folders.items() if n > MOST_MODULES}
    assert not crowded, f"folders over {MOST_MODULES} modules: {crowded}"
