"""Towers of Babylon engines: games per second, the precon matrix's wall time, and identity over many games.

    .venv/bin/python benchmarks/bench_babylon.py [--quick] [--skip-identity] [--skip-study] [--identity-games N]

1. Throughput, greedy vs greedy and random vs random (default parameters): the reference engine on
   one core, the fast engine on one core (one thread, warm JIT, every result column built) and on
   two workers (two threads: the kernel runs without the GIL); the speed-up over the reference.
   The fast greedy figure must reach 1,000 games/s per core.
2. The precon matrix — the 5 decks of ``data/babylon/decks.toml`` for p1 × the 5 for p2 × first
   seat p1, p2 × 2,000 greedy-vs-greedy games (``--quick``: 200) = 100,000 games — through
   ``sweep.run_grid`` with the fast engine on 2 workers, in a fresh process: cold (an empty numba
   cache dir, so the kernel is compiled) and warm (the same dir again).  Warm must stay under 3 minutes.
3. Identity: fast and reference frames over ``--identity-games`` games per agent pairing (default
   20,000; ``--quick``: 1,000) — random/random, greedy/greedy, greedy/random, random/greedy — spread
   over deck pairs and parameter variants, compared with ``assert_frame_equal`` (the reference
   side on two processes; tens of minutes at the default size).

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
from workbench.games.babylon.model import DECK_KEYS, MODEL  # noqa: E402

AGENTS = ("greedy", "random")
GREEDY_TARGET = 1_000  # fast greedy games/s per core
STUDY_LIMIT = 180.0  # seconds, warm
PAIRINGS = [("random", "random"), ("greedy", "greedy"), ("greedy", "random"), ("random", "greedy")]
VARIANTS = [
    {},
    {"deck_p1": "night_raid", "deck_p2": "builders_of_babel", "second_tp": 0, "first": "p1"},
    {"deck_p1": "tide_of_whispers", "deck_p2": "siege_of_ur", "turns": 5, "first": "p2"},
    {"deck_p1": "citadel_of_the_rivers", "deck_p2": "night_raid", "win_tower": 30},
    {"deck_p1": "builders_of_babel", "deck_p2": "tide_of_whispers", "mulligan": 0, "start_hand": 6},
    {"deck_p1": "siege_of_ur", "deck_p2": "citadel_of_the_rivers", "second_cards": 2, "first": "p1"},
    {"deck_p1": "night_raid", "deck_p2": "night_raid", "start_tower": 20},
    {"deck_p1": "builders_of_babel", "deck_p2": "siege_of_ur", "second_tp": 3, "first": "p2"},
]


def throughput(quick: bool) -> list[dict]:
    rows = []
    ref_games = {"random": 100 if quick else 500, "greedy": 30 if quick else 150}
    fast_games = {"random": 20_000 if quick else 200_000, "greedy": 4_000 if quick else 40_000}
    for agent in AGENTS:
        row = throughput_row(MODEL, MODEL.resolve_params(), agent, ref_games[agent], fast_games[agent])
        if agent == "greedy":
            row["target_1core_gps"] = GREEDY_TARGET
            row["target_met"] = row["fast_1core_gps"] >= GREEDY_TARGET
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


# ------------------------------------------------------------------------------------ precon matrix
STUDY = """
import time
t0 = time.perf_counter()
from workbench.core.sweep import run_grid
t1 = time.perf_counter()
decks = {decks!r}
frame = run_grid("babylon", {{"deck_p1": decks, "deck_p2": decks, "first": ["p1", "p2"]}}, {games},
                 agents=("greedy", "greedy"), seed=0, workers={workers}, engine="fast", progress=False)
t2 = time.perf_counter()
assert frame.height == 2 * len(decks) ** 2 * {games}
print(f"{{t1 - t0:.3f}} {{t2 - t1:.3f}}")
"""


def precon_matrix(quick: bool) -> dict:
    games = 200 if quick else 2_000
    cells = 2 * len(DECK_KEYS) ** 2
    result = timed_study(STUDY.format(decks=list(DECK_KEYS), games=games, workers=2))
    warm = result["warm"]["process_s"]
    return {"games_per_cell": games, "cells": cells, "games": cells * games,
            "warm_gps": round(cells * games / result["warm"]["study_s"]), "limit_s": STUDY_LIMIT,
            "limit_met": warm < STUDY_LIMIT, **result}


# ---------------------------------------------------------------------------------------- identity
def identity(per_pairing: int, workers: int = 2) -> tuple[int, float, dict[str, int]]:
    """Fast against reference frames over ``per_pairing`` games per pairing; (games, seconds, end reasons)."""
    jobs = []
    for i, variant in enumerate(VARIANTS):
        params = MODEL.resolve_params(variant)
        for k, agents in enumerate(PAIRINGS):
            games = max(1, round(per_pairing / len(VARIANTS)))
            for start in range(0, games, 250):
                jobs.append((params, agents, 100 + 10 * i + k, start, min(games, start + 250)))
    return compare_engines("babylon", jobs, workers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--skip-identity", action="store_true")
    parser.add_argument("--skip-study", action="store_true")
    parser.add_argument("--identity-games", type=int, default=None, help="games per agent pairing")
    args = parser.parse_args()
    print(f"# babylon engines on {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}", flush=True)
    print("## throughput (games/s, wall clock)", flush=True)
    rows = throughput(args.quick)
    print(pl.DataFrame(rows))
    if not args.skip_study:
        result = precon_matrix(args.quick)
        print(f"## precon matrix, {result['games']} games (5 × 5 decks × 2 first seats, greedy vs greedy), "
              "fast engine, 2 workers: " + json.dumps(result), flush=True)
    if not args.skip_identity:
        per_pairing = args.identity_games or (1_000 if args.quick else 20_000)
        compared, seconds, reasons = identity(per_pairing)
        print(f"## identity: {compared} games identical on both engines ({len(PAIRINGS)} pairings × "
              f"{len(VARIANTS)} variants, {seconds:.0f} s), end reasons " + json.dumps(dict(sorted(reasons.items()))),
              flush=True)
    print(f"# load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
