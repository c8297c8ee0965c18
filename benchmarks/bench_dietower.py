"""Tower of Babel (die streak) throughput: games/second of the compiled engine (one core), and of the reference.

Run standalone: ``.venv/bin/python benchmarks/bench_dietower.py [--games N] [--optimal]``.
Prints one line per measurement; the headline is two-player random games per second through
``simulate()`` (seeds, kernel, frame, runner columns — everything a user waits for).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("NUMBA_CACHE_DIR", str(ROOT / ".cache" / "numba"))

from workbench.core.model import AgentSpec  # noqa: E402
from workbench.core.runner import simulate  # noqa: E402
from workbench.core.seeding import game_seeds  # noqa: E402
from workbench.games.dietower import agents as ag  # noqa: E402
from workbench.games.dietower.fast import to_frame  # noqa: E402
from workbench.games.dietower.kernel import play_fast  # noqa: E402
from workbench.games.dietower.rules import Config  # noqa: E402


def best_of(repeats: int, fn) -> float:
    """Fastest wall time of ``repeats`` calls (the least disturbed by other processes)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--optimal", action="store_true", help="also time the LP solver on suits of 2..6")
    args = parser.parse_args(argv)
    n = args.games
    simulate("dietower", 1000, seed=0, progress=False)  # compile / load the numba cache
    for players in (2, 3):
        agents = ["random"] * players
        secs = best_of(args.repeats, lambda players=players, agents=agents: simulate(
            "dietower", n, params={"players": players}, agents=agents, seed=1, progress=False))
        print(f"dietower simulate(): {players} random players, {n:,} games: {n / secs:,.0f} games/s ({secs:.2f} s)")
    rules = Config()
    configs = [ag.config(AgentSpec("random"))] * 2
    seeds = game_seeds(1, 0, n)
    secs = best_of(args.repeats, lambda: play_fast(rules, configs, seeds))
    print(f"dietower kernel only: 2 random players: {n / secs:,.0f} games/s")
    secs = best_of(args.repeats, lambda: to_frame(play_fast(rules, configs, seeds), 2))
    print(f"dietower kernel + frame: 2 random players: {n / secs:,.0f} games/s")
    mixed = ["joker", "mixed:random=0.5,highest=0.3,lowest=0.2"]
    secs = best_of(args.repeats, lambda: simulate("dietower", n, agents=mixed, seed=1, progress=False))
    print(f"dietower simulate(): joker vs mixed, {n:,} games: {n / secs:,.0f} games/s")
    m = 20_000
    secs = best_of(1, lambda: simulate("dietower", m, seed=1, engine="reference", progress=False))
    print(f"dietower reference engine: 2 random players: {m / secs:,.0f} games/s")
    if args.optimal:
        from workbench.games.dietower.optimal import solve

        for suit in range(2, 7):
            for objective in ("win", "points"):
                sol = solve(Config(suit_size=suit), objective)
                print(f"dietower optimal: suit {suit}, objective {objective}: value {sol.value:.6f}, "
                      f"{len(sol.values):,} states, {sol.lps:,} matrix games, {sol.seconds:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
