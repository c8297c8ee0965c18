"""Any game's engines: games per second, reference against compiled, and identity over its parity variants.

    .venv/bin/python benchmarks/bench.py GAME [--quick] [--skip-identity] [--skip-extras] [--identity-games N]
    .venv/bin/python benchmarks/bench.py ratio [--quick] [--rounds N] [--clock cpu|wall]   (anchors.py: C ratios)

1. Throughput, each agent the compiled engine plays against itself (the game's default parameters,
   plus the settings of ``SETTINGS``): core's reference loop on one core, the compiled engine on one
   thread (warm JIT, every result column built) and on two threads taking half the chunks each (the
   kernel runs without the GIL); the speed-up over the reference and the two-thread scaling.  Game
   counts adapt to the speed measured, so every row takes about the same time.
2. ``runner.simulate`` on the fast engine with 1 and 2 worker threads (the first pairing), and what a chunk of
   6 games costs through the runner's path (a rebalance's races play thousands of chunks that small).
3. Identity: fast and reference frames over ``--identity-games`` games (default 20,000; ``--quick``:
   1,000) spread evenly over the game's declared parity variants (``GameModel.engine_variants``),
   compared with ``assert_frame_equal`` (the reference side on two processes).
4. The game's own figures the README cites (``EXTRAS``): the default studies' wall time in a fresh
   process, cold (empty numba cache) and warm; Babylon's greedy target and precon matrix limit;
   the die-streak game's headline through ``simulate()``.

Timings are wall-clock on this machine; other processes running at the same time slow them down.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import polars as pl  # noqa: E402

from benchmarks.benchlib import compare_engines, fast_rates, rate, reference_rate, timed_study  # noqa: E402
from workbench.core.model import game_names, get_game  # noqa: E402

# settings timed besides the defaults (the README's table cites them)
SETTINGS: dict[str, list[dict]] = {"duel": [{"battlefield": "free_steppe"}]}


def _calibrated(measure: Callable[[int], Any], seconds: float, start: int, most: int) -> tuple[Any, int]:
    """``measure(games)`` (games/s) and the game count, doubled until one run takes ``seconds`` (or ``most``)."""
    games = start
    while True:
        t = time.perf_counter()
        gps = measure(games)
        if time.perf_counter() - t >= seconds or games >= most:
            return gps, games
        games = min(most, games * 2)


def throughput(model, quick: bool) -> list[dict]:
    """One row per setting × agent pairing: reference and fast games/s, 1 and 2 threads."""
    rows = []
    budget = 0.5 if quick else 3.0
    for given in [{}, *SETTINGS.get(model.name, [])]:
        params = model.resolve_params(given)
        for agent in model.fast_agents:
            ref, _ = _calibrated(lambda n, a=agent, p=params: reference_rate(model, p, a, n), budget, 10, 100_000)
            fast_rates(model, params, agent, 200, repeats=1)  # load the compiled kernel before timing
            (one, two), games = _calibrated(lambda n, a=agent, p=params: fast_rates(model, p, a, n, repeats=1),
                                            budget, 1_000, 2_000_000)
            if not quick:  # best of two at the calibrated size
                one, two = (max(x, y) for x, y in zip((one, two), fast_rates(model, params, agent, games), strict=True))
            row = {"setting": json.dumps(given) if given else "defaults", "agents": f"{agent} vs {agent}",
                   "reference_gps": round(ref, 1), "fast_1core_gps": round(one), "fast_2threads_gps": round(two),
                   "speedup_1core": round(one / ref, 1), "scaling_2threads": round(two / one, 2),
                   "fast_games": games}
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def runner_scaling(model, quick: bool, fast_gps: float) -> list[dict]:
    """``runner.simulate`` on the fast engine with 1 and 2 worker threads (the first pairing)."""
    from workbench.core.sim.runner import simulate

    agent = model.fast_agents[0]
    games = int(min(2_000_000, max(2_000, fast_gps * (0.5 if quick else 3.0))))
    seats = model.players(model.make_config(model.resolve_params()))
    rows = []
    for workers in (1, 2):
        t = time.perf_counter()
        simulate(model.name, games, agents=",".join([agent] * seats), seed=3, workers=workers, engine="fast",
                 progress=False)
        seconds = time.perf_counter() - t
        rows.append({"agents": f"{agent} vs {agent}", "workers": workers, "games": games,
                     "seconds": round(seconds, 2), "gps": round(rate(games, seconds))})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def identity(model, total: int, workers: int = 2) -> tuple[int, float, dict[str, int]]:
    """Fast against reference frames over ``total`` games spread over the declared parity variants."""
    variants = model.engine_variants()
    jobs = []
    for i, variant in enumerate(variants):
        params = model.resolve_params(variant.params)
        agents = tuple(str(s) for s in model.resolve_agents(variant.agents, params))
        games = max(1, round(total / len(variants)))
        for start in range(0, games, 250):
            jobs.append((params, agents, 100 + i, start, min(games, start + 250)))
    return compare_engines(model.name, jobs, workers)


# ------------------------------------------------------------------------------ the games' own figures
DUEL_STUDY = """
import time
t0 = time.perf_counter()
from workbench.games.duel import studies
t1 = time.perf_counter()
frame = studies.default_study(games_per_seating={games}, workers=2)
t2 = time.perf_counter()
assert frame.height == 32 * {games}
print(f"{{t1 - t0:.3f}} {{t2 - t1:.3f}}")
"""

BABEL_STUDY = """
import time
t0 = time.perf_counter()
from workbench.core.sim.sweep import run_grid
t1 = time.perf_counter()
frame = run_grid("babel", {{"start_hands": ["3/5", "5/5"], "first": ["p1", "p2"]}}, {games},
                 lineups=[("greedy", "greedy"), ("random", "random"), ("greedy", "random")], seed=0,
                 workers=2, engine="fast", progress=False)
t2 = time.perf_counter()
assert frame.height == 12 * {games}
print(f"{{t1 - t0:.3f}} {{t2 - t1:.3f}}")
"""

BABYLON_MATRIX = """
import time
t0 = time.perf_counter()
from workbench.core.sim.sweep import run_grid
from workbench.games.babylon.model import DECK_KEYS
t1 = time.perf_counter()
decks = list(DECK_KEYS)
frame = run_grid("babylon", {{"deck_p1": decks, "deck_p2": decks, "first": ["p1", "p2"]}}, {games},
                 agents=("greedy", "greedy"), seed=0, workers=2, engine="fast", progress=False)
t2 = time.perf_counter()
assert frame.height == 2 * len(decks) ** 2 * {games}
print(f"{{t1 - t0:.3f}} {{t2 - t1:.3f}}")
"""
BABYLON_GREEDY_TARGET = 1_000  # fast greedy games/s per core
BABYLON_MATRIX_LIMIT = 180.0  # seconds, warm, whole process


def duel_extras(quick: bool, rows: list[dict]) -> None:
    games = 1_000 if quick else 10_000
    result = {"games_per_seating": games, "games": 32 * games, **timed_study(DUEL_STUDY.format(games=games))}
    print("## default study (8 battlefields × 2 decks × 2 seatings, greedy vs greedy), fast engine, 2 workers: "
          + json.dumps(result), flush=True)


def babel_extras(quick: bool, rows: list[dict]) -> None:
    games = 1_000 if quick else 10_000
    result = {"games_per_cell": games, "games": 12 * games, **timed_study(BABEL_STUDY.format(games=games))}
    print("## default study (2 hands × 2 seatings × 3 pairings), fast engine, 2 workers: " + json.dumps(result),
          flush=True)


def babylon_extras(quick: bool, rows: list[dict]) -> None:
    greedy = next(r for r in rows if r["agents"] == "greedy vs greedy" and r["setting"] == "defaults")
    print("## greedy target: " + json.dumps({"fast_1core_gps": greedy["fast_1core_gps"],
                                            "target_1core_gps": BABYLON_GREEDY_TARGET,
                                            "target_met": greedy["fast_1core_gps"] >= BABYLON_GREEDY_TARGET}))
    games = 200 if quick else 2_000
    result = timed_study(BABYLON_MATRIX.format(games=games))
    summary = {"games_per_cell": games, "games": 50 * games, "warm_gps": round(50 * games / result["warm"]["study_s"]),
               "limit_s": BABYLON_MATRIX_LIMIT, "limit_met": result["warm"]["process_s"] < BABYLON_MATRIX_LIMIT,
               **result}
    print("## precon matrix (5 × 5 decks × 2 first seats, greedy vs greedy), fast engine, 2 workers: "
          + json.dumps(summary), flush=True)


def dietower_extras(quick: bool, rows: list[dict]) -> None:
    """The README's headline: random games/s through ``simulate()`` (seeds, kernel, frame, runner columns)."""
    from workbench.core.sim.runner import simulate

    games = 100_000 if quick else 1_000_000
    simulate("dietower", 1_000, seed=0, progress=False)  # load the numba cache
    for players in (2, 3):
        best = float("inf")
        for _ in range(1 if quick else 3):
            t = time.perf_counter()
            simulate("dietower", games, params={"players": players}, agents=["random"] * players, seed=1,
                     progress=False)
            best = min(best, time.perf_counter() - t)
        print(f"## simulate(): {players} random players, {games:,} games: {games / best:,.0f} games/s "
              f"({best:.2f} s)", flush=True)


EXTRAS: dict[str, Callable[[bool, list[dict]], None]] = {"duel": duel_extras, "babel": babel_extras,
                                                         "babylon": babylon_extras, "dietower": dietower_extras}


def small_chunks(model, quick: bool, size: int = 6) -> dict:
    """A chunk of ``size`` games through the runner's path (head columns and core's ``play_chunk``), in ms.

    What every chunk pays beside its games (frames, schema, constants) decides a run of small chunks: a
    rebalance's races and the studio's watched runs play thousands of chunks of a few games.
    """
    from workbench.core.sim.play import play_chunk
    from workbench.core.sim.results import head_frame
    from workbench.core.sim.seeding import game_seeds

    params = model.resolve_params()
    agent = model.fast_agents[0]
    specs = model.resolve_agents(",".join([agent] * model.players(model.make_config(params))), params)
    names = tuple(map(str, specs))
    chunks = 100 if quick else 600
    play_chunk(model, params, specs, game_seeds(3, 0, size), "fast")  # the kernel loaded
    best = float("inf")
    for _ in range(1 if quick else 3):
        t = time.perf_counter()
        for c in range(chunks):
            seeds = game_seeds(3, c * size, size)
            head_frame(model, params, names, 3, c * size, seeds)
            play_chunk(model, params, specs, seeds, "fast")
        best = min(best, (time.perf_counter() - t) / chunks)
    row = {"agents": f"{agent} vs {agent}", "chunk_games": size, "chunks": chunks, "ms_a_chunk": round(best * 1e3, 2)}
    print(json.dumps(row), flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["ratio"]:  # the ratio table against the C anchors (benchmarks/anchors.py)
        from benchmarks.anchors import main as ratio

        return ratio(argv[1:])
    engines = [g for g in game_names() if get_game(g).engine is not None]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=engines, help="a game with a compiled engine")
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--skip-identity", action="store_true")
    parser.add_argument("--skip-extras", action="store_true", help="skip the game's own figures (studies)")
    parser.add_argument("--identity-games", type=int, default=None, help="games over all parity variants")
    args = parser.parse_args(argv)
    model = get_game(args.game)
    print(f"# {model.name} engines on {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}", flush=True)
    print("## throughput (games/s, wall clock)", flush=True)
    rows = throughput(model, args.quick)
    print(pl.DataFrame(rows).drop("fast_games"))
    print("## runner.simulate, fast engine, 1 and 2 worker threads", flush=True)
    runner_scaling(model, args.quick, rows[0]["fast_1core_gps"])
    print("## small chunks: one chunk of 6 games with its head columns, one thread (best of 3)", flush=True)
    small_chunks(model, args.quick)
    if not args.skip_identity:
        total = args.identity_games or (1_000 if args.quick else 20_000)
        compared, seconds, reasons = identity(model, total)
        print(f"## identity: {compared} games identical on both engines ({len(model.engine_variants())} variants, "
              f"{seconds:.0f} s), end reasons " + json.dumps(dict(sorted(reasons.items()))), flush=True)
    if not args.skip_extras and args.game in EXTRAS:
        EXTRAS[args.game](args.quick, rows)
    print(f"# load average at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
