"""Compile every game's engine into numba's on-disk cache once, before anything waits on it.

A fresh checkout has no compiled kernels: the first fast game of each game compiles its kernel
(seconds to a minute each), in whichever process asks first — two test workers or two studio pages
asking at once both compile.  :func:`warm` plays two games of every row of each engine's parity
table (:meth:`GameModel.engine_variants`, every rules variant and agent pairing) and, where core's
search has compiled rollouts, one game of search agents (its continue-from-a-state kernel), and calls
the engine's ``warm`` hook for the entries used directly, so every kernel signature is compiled, in
``jobs`` processes with the largest games first; later processes load the cached machine code.  On a
warm cache it takes about a second a game.  ``workbench compile`` runs it.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

from workbench.core.errors import InputError
from workbench.core.model import ENV_GAMES, game_names, get_game
from workbench.core.model.refs import resolve_ref

__all__ = ["engine_games", "source_digest", "warm", "warm_game"]

GAMES_DIR = Path(__file__).resolve().parents[2] / "games"
STAMP_DIR = Path(__file__).resolve().parent / "__pycache__"  # beside numba's own cache of core's kernels


def source_digest() -> str:
    """A digest of everything a compiled engine is built from: the games' sources, core's kernels, numba's version.

    Read as bytes, without importing a game, so checking it costs milliseconds.
    """
    import hashlib

    import numba

    h = hashlib.sha256(f"{numba.__version__}|{sys.version}".encode())
    for path in sorted([*GAMES_DIR.rglob("*.py"), Path(__file__).with_name("rng_numba.py")]):
        h.update(str(path.relative_to(GAMES_DIR.parent)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:20]


def _stamp() -> Path:
    return STAMP_DIR / f"warm-{source_digest()}"


def engine_games(names: Sequence[str] | None = None) -> list[str]:
    """The games (all registered, or ``names`` checked) that have a compiled engine, largest source first."""
    known = game_names()
    chosen = list(names) if names else known
    unknown = [n for n in chosen if n not in known]
    if unknown:
        raise InputError(f"unknown game {unknown[0]!r}; allowed: {', '.join(known)}")
    with_engine = [n for n in chosen if get_game(n).engine is not None]

    def size(name: str) -> int:  # a proxy for compile time: the bigger game's kernel takes longer
        module = importlib.import_module(get_game(name).engine.play.partition(":")[0])
        return sum(p.stat().st_size for p in Path(module.__file__).parent.glob("*.py"))

    return sorted(with_engine, key=lambda n: (-size(n), n))


def warm_game(name: str) -> float:
    """Play two games of every parity-table row of ``name`` on its compiled engine; the seconds it took."""
    from workbench.core.sim.runner import simulate

    started = time.perf_counter()
    model = get_game(name)
    for variant in model.engine_variants():
        simulate(model, 2, params=variant.params, agents=variant.agents, engine="fast", progress=False)
    hooks = model.search
    if hooks is not None and hooks.rollout is not None and hooks.policies:  # the search's continue-from-a-state kernel
        seats = model.players(model.make_config(model.resolve_params()))
        spec = f"search:budget=2,width=2,horizon=2,rollout={hooks.policies[0]}"
        simulate(model, 1, agents=",".join([spec] * seats), engine="reference", progress=False)
    extra = model.engine.warm if model.engine is not None else None
    if extra:  # the engine's other entries called directly (a step-by-step check of the kernel against the rules)
        resolve_ref(extra)()
    return time.perf_counter() - started


def warm(names: Sequence[str] | None = None, jobs: int = 1,
         on_game: Callable[[str, float], None] | None = None) -> dict[str, float]:
    """Compile the engines of ``names`` (default: every game with one) in ``jobs`` processes; seconds per game."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise InputError(f"jobs must be a whole number of at least 1, not {jobs!r}")
    # every shipped engine compiled since its sources last changed: nothing to do (games registered from
    # elsewhere, WORKBENCH_GAMES, are outside the digest, so they are always warmed)
    stamp = _stamp() if not names and not os.environ.get(ENV_GAMES) else None
    if stamp is not None and stamp.exists():
        return {}
    games = engine_games(names)
    took: dict[str, float] = {}
    if jobs == 1 or len(games) == 1:
        for name in games:
            took[name] = warm_game(name)
            if on_game:
                on_game(name, took[name])
    else:
        # spawned processes: each imports the game and compiles (or loads) its kernel; the cache is shared on disk
        with ProcessPoolExecutor(max_workers=min(jobs, len(games)), mp_context=get_context("spawn")) as pool:
            futures = {name: pool.submit(warm_game, name) for name in games}
            for name, future in futures.items():
                took[name] = future.result()
                if on_game:
                    on_game(name, took[name])
    if stamp is not None:
        STAMP_DIR.mkdir(parents=True, exist_ok=True)
        for old in STAMP_DIR.glob("warm-*"):
            old.unlink(missing_ok=True)
        stamp.touch()
    return took
