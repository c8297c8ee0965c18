"""Shared by the bench scripts: a study timed in fresh processes, cold (empty JIT cache) and warm.

``timed_study(code)`` runs ``code`` (a Python snippet that prints ``import_seconds study_seconds``)
twice in a new process with its own ``NUMBA_CACHE_DIR``: first with the cache empty (the kernel
compiles), then warm.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def study_run(code: str, cache_dir: str) -> dict:
    """Run ``code`` in a fresh process with ``cache_dir`` as numba's cache; its timings and the process's."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir, "PYTHONPATH": str(ROOT)}
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=ROOT)
    process = time.perf_counter() - t
    imported, study = map(float, out.stdout.split()[-2:])
    return {"process_s": round(process, 2), "import_s": round(imported, 2), "study_s": round(study, 2)}


def timed_study(code: str) -> dict:
    """Cold (first compile) and warm timings of ``code``."""
    with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
        return {"cold": study_run(code, cache), "warm": study_run(code, cache)}


def specs(agent: str) -> tuple:
    """The same agent in both seats."""
    from workbench.core.model import AgentSpec

    return (AgentSpec.parse(agent),) * 2


def rate(games: int, seconds: float) -> float:
    """Games per second."""
    return games / seconds if seconds > 0 else float("inf")


def reference_rate(model, params: dict, agent: str, games: int) -> float:
    """Games/s of core's reference loop on one core (both seats ``agent``)."""
    from workbench.core.sim.play import play_chunk
    from workbench.core.sim.seeding import game_seeds

    seeds = game_seeds(1, 0, games)
    t = time.perf_counter()
    play_chunk(model, params, specs(agent), seeds, "reference")
    return rate(games, time.perf_counter() - t)


def fast_rates(model, params: dict, agent: str, games: int, repeats: int = 2) -> tuple[float, float]:
    """Games/s of the model's compiled engine (kernel + frame) in ten equal chunks (at most its chunk hint):
    on one thread, and on two threads taking five chunks each (best of ``repeats``)."""
    import threading

    from workbench.core.sim.seeding import game_seeds

    config = model.make_config(params)
    agents = specs(agent)
    seeds = game_seeds(2, 0, games)
    size = min(model.chunk_hint("fast"), -(-games // 10))
    chunks = [seeds[i:i + size] for i in range(0, games, size)]
    model.play_fast(config, params, agents, seeds[:50])  # warm

    def play(mine: list) -> None:
        for chunk in mine:
            model.play_fast(config, params, agents, chunk)

    one = two = 0.0
    for _ in range(repeats):
        t = time.perf_counter()
        play(chunks)
        one = max(one, rate(games, time.perf_counter() - t))
        threads = [threading.Thread(target=play, args=(chunks[k::2],)) for k in range(2)]
        t = time.perf_counter()
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        two = max(two, rate(games, time.perf_counter() - t))
    return one, two


def _reference_frame(game: str, params: dict, agents: tuple, master: int, start: int, stop: int):
    from workbench.core.model import AgentSpec, get_game
    from workbench.core.sim.play import play_chunk
    from workbench.core.sim.seeding import game_seeds

    specs = tuple(AgentSpec.parse(a) for a in agents)
    return play_chunk(get_game(game), params, specs, game_seeds(master, start, stop), "reference")


def compare_engines(game: str, jobs: list[tuple], workers: int = 2) -> tuple[int, float, dict[str, int]]:
    """Fast against reference frames for ``jobs`` of ``(params, agents, master seed, start, stop)``.

    The reference side runs on ``workers`` spawned processes; every chunk must be frame-identical.
    Returns (games compared, seconds, end reasons counted).
    """
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    from polars.testing import assert_frame_equal

    from workbench.core.model import AgentSpec, get_game
    from workbench.core.sim.play import play_chunk
    from workbench.core.sim.seeding import game_seeds

    model = get_game(game)
    t = time.perf_counter()
    compared = 0
    reasons: dict[str, int] = {}
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        refs = pool.map(_reference_frame, *zip(*((game, *job) for job in jobs), strict=True))
        for job, ref in zip(jobs, refs, strict=True):
            params, agents, master, start, stop = job
            quick = play_chunk(model, params, tuple(AgentSpec.parse(a) for a in agents),
                               game_seeds(master, start, stop), "fast")
            assert_frame_equal(ref, quick)
            compared += ref.height
            for reason, count in ref["reason"].value_counts().iter_rows():
                reasons[reason] = reasons.get(reason, 0) + count
    return compared, time.perf_counter() - t, reasons


def throughput_row(model, params: dict, agent: str, ref_games: int, fast_games: int) -> dict:
    """Reference and compiled games/s of ``agent`` against itself: one row of a bench's throughput table."""
    ref = reference_rate(model, params, agent, ref_games)
    one, two = fast_rates(model, params, agent, fast_games)
    return {"agents": f"{agent} vs {agent}", "reference_gps": round(ref, 1), "fast_1core_gps": round(one),
            "fast_2workers_gps": round(two), "speedup_1core": round(one / ref, 1),
            "scaling_2workers": round(two / one, 2)}
