"""Tower duel engines: games per second, identity over many games, and the default study's wall time.

    .venv/bin/python benchmarks/bench_duel.py [--quick] [--skip-identity] [--skip-study]

1. Throughput, random vs random and greedy vs greedy, on Crystal Garden (short games) and Free
   Steppe (long games): the reference engine, the fast engine on one core (one thread, warm JIT)
   and on two workers (two threads: the kernel runs without the GIL), recording every result
   column; then ``runner.simulate`` with 1 and 2 workers (threads: the kernel releases the GIL).
2. Identity: fast and reference frames over 100,000 games (``--quick``: 4,000) spread over every
   battlefield × deck type, agents and variants, compared with ``assert_frame_equal``.
3. The default study (8 battlefields × 2 decks × 10,000 games per seating, greedy vs greedy, via
   ``studies.default_study``) in a fresh process: cold (an empty NUMBA cache dir, so the kernel is
   compiled) and warm (the same dir again).

Timings are wall-clock on this machine; other processes running at the same time slow them down.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import polars as pl  # noqa: E402

from benchmarks.benchlib import compare_engines, throughput_row, timed_study  # noqa: E402
from workbench.games.duel.model import BATTLEFIELD_KEYS, MODEL  # noqa: E402

FIELDS = ("crystal_garden", "free_steppe")
AGENTS = ("random", "greedy")
VARIANTS = [
    {},
    {"miss_rate": 0.05},
    {"lightning": "enemy", "groundwater": "nobody", "thief_rounding": "down"},
    {"hand_size": 4, "max_turns": 60},
]
MIXES = [(("random", "random"), 0.6), (("greedy", "random"), 0.1), (("random", "greedy"), 0.1),
         (("greedy", "greedy"), 0.2)]


def throughput(quick: bool) -> list[dict]:
    rows = []
    ref_games = {"random": 150 if quick else 600, "greedy": 50 if quick else 200}
    fast_games = 20_000 if quick else 100_000
    for field in FIELDS:
        for agent in AGENTS:
            row = {"battlefield": field, **throughput_row(MODEL, MODEL.resolve_params({"battlefield": field}), agent,
                                                          ref_games[agent], fast_games)}
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def runner_scaling(quick: bool) -> list[dict]:
    """``runner.simulate`` with 1 and 2 workers (threads, since the fast kernel releases the GIL)."""
    from workbench.core.runner import simulate

    games = 40_000 if quick else 200_000
    rows = []
    for workers in (1, 2):
        t = time.perf_counter()
        simulate("duel", games, params={"battlefield": "crystal_garden"}, agents="greedy,greedy", seed=3,
                 workers=workers, engine="fast", progress=False)
        seconds = time.perf_counter() - t
        rows.append({"workers": workers, "games": games, "seconds": round(seconds, 2), "gps": round(games / seconds)})
        print(json.dumps(rows[-1]), flush=True)
    return rows


# ---------------------------------------------------------------------------------------- identity
def identity(total: int, workers: int = 2) -> tuple[int, float]:
    cells = [(b, d) for b in BATTLEFIELD_KEYS for d in ("regular", "unlimited")]
    jobs = []
    for i, (field, deck) in enumerate(cells):
        params = MODEL.resolve_params({"battlefield": field, "deck": deck, **VARIANTS[i % len(VARIANTS)]})
        for agents, share in MIXES:
            games = max(1, round(total * share / len(cells)))
            for start in range(0, games, 500):
                jobs.append((params, agents, 100 + i, start, min(games, start + 500)))
    compared, seconds, _ = compare_engines("duel", jobs, workers)
    return compared, seconds


# ------------------------------------------------------------------------------------ default study
STUDY = """
import time
t0 = time.perf_counter()
from workbench.games.duel import studies
t1 = time.perf_counter()
frame = studies.default_study(games_per_seating={games}, workers={workers})
t2 = time.perf_counter()
assert frame.height == 32 * {games}
print(f"{{t1 - t0:.3f}} {{t2 - t1:.3f}}")
"""


def default_study(quick: bool) -> dict:
    games = 1_000 if quick else 10_000
    return {"games_per_seating": games, "games": 32 * games, **timed_study(STUDY.format(games=games, workers=2))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--skip-identity", action="store_true")
    parser.add_argument("--skip-study", action="store_true")
    args = parser.parse_args()
    print(f"# duel engines on {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}", flush=True)
    print("## throughput (games/s, wall clock)", flush=True)
    rows = throughput(args.quick)
    print(pl.DataFrame(rows))
    print("## runner.simulate, Crystal Garden greedy vs greedy, fast engine, 1 and 2 worker threads", flush=True)
    runner_scaling(args.quick)
    if not args.skip_identity:
        total = 4_000 if args.quick else 100_000
        compared, seconds = identity(total)
        print(f"## identity: {compared} games identical on both engines ({seconds:.0f} s)", flush=True)
    if not args.skip_study:
        result = default_study(args.quick)
        print(f"## default study, {result['games']} greedy games: " + json.dumps(result), flush=True)
    print(f"# load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
