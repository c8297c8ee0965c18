"""Every compiled engine function is compiled once per argument types, never once per constant it is called with.

numba's default compiles a function again for every combination of constant arguments its callers pass (a call
``_put(lg, d, n, K_PLAY, c, target)`` types ``K_PLAY`` as ``Literal[int](3)``): Babylon's engine was 171 compiled
versions of 86 functions and a fresh compile took 2.6 times as long.  Each game's engine, played through every
parity-table row as ``workbench compile`` plays it, must hold one version per function, made by
``rng_numba.compiled`` / ``rng_numba.inlined`` (a plain ``numba.njit`` would bring the versions back).
"""

from __future__ import annotations

import importlib
import pkgutil

import pytest
from numba.core import types
from numba.core.dispatcher import Dispatcher

from workbench.core.model import get_game
from workbench.core.sim import rng_numba
from workbench.core.sim.warm import engine_games, warm_game


def _literal(t) -> bool:
    if isinstance(t, types.Literal):
        return True
    return isinstance(t, types.BaseTuple) and any(_literal(x) for x in t)


def _dispatchers(package: str):
    modules = [importlib.import_module(package)]
    modules += [importlib.import_module(f"{package}.{m.name}")
                for m in pkgutil.iter_modules(modules[0].__path__)]
    for module in [*modules, rng_numba]:
        for name, value in vars(module).items():
            if isinstance(value, Dispatcher):
                yield f"{module.__name__}.{name}", value


@pytest.mark.parametrize("game", engine_games())
def test_each_engine_function_is_one_version_per_argument_types(game):
    warm_game(game)  # every parity-table row and the search's kernel: each signature the engine uses
    package = get_game(game).engine.play.partition(":")[0].rpartition(".")[0]
    found = dict(_dispatchers(package))
    assert found, package
    plain = [name for name, d in found.items() if not isinstance(d, rng_numba._ByType)]
    assert not plain, f"compiled without rng_numba.compiled / inlined (one version per constant): {plain}"
    versions = {name: [s for s in d.signatures if any(_literal(t) for t in s)] for name, d in found.items()}
    assert not any(versions.values()), {n: v for n, v in versions.items() if v}
    assert sum(len(d.signatures) for d in found.values()) >= 3  # the engine was played: its functions compiled


def test_a_constant_argument_does_not_make_a_second_version():
    calls = rng_numba.compiled(lambda a, k: a[k] + k)

    @rng_numba.compiled
    def both(a):
        return calls(a, 0) + calls(a, 1) + calls(a, 2)

    import numpy as np

    assert both(np.arange(4, dtype=np.int64)) == 0 + 2 + 4
    assert len(calls.signatures) == 1 and not any(_literal(t) for t in calls.signatures[0])
