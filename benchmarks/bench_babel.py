"""Babel engines: games per second, identity over many games, and the default study's wall time.

    .venv/bin/python benchmarks/bench_babel.py [--quick] [--skip-identity] [--skip-study]

1. Throughput, random vs random and greedy vs greedy (default parameters): the reference engine on
   one core, the fast engine on one core (one thread, warm JIT) and on two workers (two threads:
   the kernel runs without the GIL), every result column built; the speed-up over the reference.
2. Identity: fast and reference frames over 20,000 games (``--quick``: 2,000) spread over the
   variants (start hands, run detection, universal ability, dealt hands, first seat, a short turn
   limit) and the pairings, compared with ``assert_frame_equal`` (the reference side on two processes).
3. The default study — start hands 3/5, 5/5 × first p1, p2 × the pairings greedy/greedy,
   random/random, greedy/random × 10,000 games (``--quick``: 1,000) = 120,000 games — through
   ``sweep.run_grid`` with the fast engine on 2 workers, in a fresh process: cold (an empty numba
   cache dir, so the kernel is compiled) and warm (the same dir again).

Timings are wall-clock on this machine; other processes running at the same time slow them down.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import polars as pl  # noqa: E402

from benchmarks.benchlib import compare_engines, throughput_row, timed_study  # noqa: E402
from workbench.games.babel.model import MODEL  # noqa: E402

AGENTS = ("random", "greedy")
VARIANTS = [
    {},
    {"start_hands": "5/5"},
    {"run_detection": "top", "first": "p1"},
    {"universal": False, "first": "p2"},
    {"hand_start": 4, "hand_other": 6, "start_hands": "5/5"},
    {"max_turns": 15},
]
MIXES = [(("random", "random"), 0.6), (("greedy", "random"), 0.1), (("random", "greedy"), 0.1),
         (("greedy", "greedy"), 0.2)]


def throughput(quick: bool) -> list[dict]:
    rows = []
    ref_games = {"random": 100 if quick else 400, "greedy": 30 if quick else 120}
    fast_games = {"random": 20_000 if quick else 200_000, "greedy": 5_000 if quick else 40_000}
    for agent in AGENTS:
        row = throughput_row(MODEL, MODEL.resolve_params(), agent, ref_games[agent], fast_games[agent])
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


# ---------------------------------------------------------------------------------------- identity
def identity(total: int, workers: int = 2) -> tuple[int, float, dict[str, int]]:
    """Fast against reference frames over ``total`` games; (games compared, seconds, end reasons)."""
    jobs = []
    for i, variant in enumerate(VARIANTS):
        params = MODEL.resolve_params(variant)
        for agents, share in MIXES:
            games = max(1, round(total * share / len(VARIANTS)))
            for start in range(0, games, 250):
                jobs.append((params, agents, 100 + i, start, min(games, start + 250)))
    return compare_engines("babel", jobs, workers)


# ------------------------------------------------------------------------------------ default study
STUDY = """
import time
t0 = time.perf_counter()
from workbench.core.sweep import run_grid
t1 = time.perf_counter()
frame = run_grid("babel", {{"start_hands": ["3/5", "5/5"], "first": ["p1", "p2"]}}, {games},
                 lineups=[("greedy", "greedy"), ("random", "random"), ("greedy", "random")], seed=0,
                 workers={workers}, engine="fast", progress=False)
t2 = time.perf_counter()
assert frame.height == 12 * {games}
print(f"{{t1 - t0:.3f}} {{t2 - t1:.3f}}")
"""


def default_study(quick: bool) -> dict:
    games = 1_000 if quick else 10_000
    return {"games_per_cell": games, "games": 12 * games, **timed_study(STUDY.format(games=games, workers=2))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--skip-identity", action="store_true")
    parser.add_argument("--skip-study", action="store_true")
    args = parser.parse_args()
    print(f"# babel engines on {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}", flush=True)
    print("## throughput (games/s, wall clock)", flush=True)
    rows = throughput(args.quick)
    print(pl.DataFrame(rows))
    if not args.skip_identity:
        total = 2_000 if args.quick else 20_000
        compared, seconds, reasons = identity(total)
        print(f"## identity: {compared} games identical on both engines ({seconds:.0f} s), end reasons "
              + json.dumps(dict(sorted(reasons.items()))), flush=True)
    if not args.skip_study:
        result = default_study(args.quick)
        print(f"## default study, {result['games']} games (2 hands × 2 seatings × 3 pairings), fast engine, "
              "2 workers: " + json.dumps(result), flush=True)
    print(f"# load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
