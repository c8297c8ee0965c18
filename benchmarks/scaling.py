"""Two cores that give two times (issue 23, item 3): ``simulate()`` on 1 and on 2 workers, every compiled engine.

    .venv/bin/python benchmarks/scaling.py [--games-scale X] [--rounds N] [--only GAME[,GAME]]

For each game with a compiled engine (the duel, the die game, Babel, Babylon) and its random and greedy
agents, ``simulate(..., workers=w)`` end to end (the frame a user gets, default chunks) is timed on wall-
clock seconds with 1 and 2 workers, best of ``--rounds``; the speed-up is the ratio of the two bests
(target: at least 1.8).  Both frames are checked equal (height, schema and a digest of every row), so the
figure is for the same games.  Each frame is let go before the next run and the two runs' order alternates
round by round, so neither writes its frame beside the other's (the die game's frame is hundreds of MB:
timed beside the last one, a run writes into fresh pages where the other found them mapped).

Beside each row: "busy", the CPU seconds the 1- and the 2-worker runs used per wall second (2.0 = both cores
busy all the time; less means a thread waited on the GIL or on the other; above 1.0 for one worker, polars
built part of its frame on the second core, and the speed-up can reach at most 2 over that figure); "CPU a
game", the CPU seconds a game cost on 2 workers against 1 (the least of each; above 1.0, each thread ran
slower beside the other: shared caches, memory or a shared physical core, which no scheduling in the runner
recovers); and the load average before the row — other work on a shared machine takes cores from the second
worker, so a figure taken at a load average above about 0.5 says little about the code.

"1 core": the 1-worker run again with every thread of the process confined to one core (the kernel's thread,
polars' pool, the allocator's background threads), and the 2-worker speed-up over it ("2 cores / 1 core").  One
worker is not one core: polars builds each chunk's frame on its pool, beside or after the kernel, so a 1-worker
run already takes part of the second core ("busy" above 1.0), and the 2-worker speed-up over it can reach at most
2 over that figure.  The speed-up over one core is what a second core gives.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# (game, parameters, agent, games at --games-scale 1: about a second on one core)
CASES = (
    ("duel", {"battlefield": "crystal_garden"}, "random", 150_000),
    ("duel", {"battlefield": "crystal_garden"}, "greedy", 50_000),
    ("dietower", {"players": 2}, "random", 4_000_000),
    ("dietower", {"players": 3}, "random", 3_000_000),
    ("babel", {}, "random", 50_000),
    ("babel", {}, "greedy", 6_000),
    ("babylon", {}, "random", 30_000),
    ("babylon", {}, "greedy", 4_000),
)


def confine(cpus: set[int]) -> None:
    """Every thread of this process (and the threads they start) on ``cpus`` only (Linux: per thread)."""
    for tid in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(tid), cpus)
        except OSError:  # a thread that ended meanwhile
            pass


def timed(game: str, params: dict, agents: str, games: int, workers: int,
          one_core: bool = False) -> tuple[float, float, tuple]:
    """(wall seconds, CPU seconds of every thread, the frame's digest) of one ``simulate`` run.

    ``one_core``: every thread of the process is held on one core for the run.  The frame is let go before
    this returns: a run timed while the last run's frame (hundreds of MB for the die game) is still held must
    write into fresh pages that the other run found already mapped.
    """
    from workbench.core.sim.runner import simulate

    allowed = os.sched_getaffinity(0)
    if one_core:
        confine({min(allowed)})
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        frame = simulate(game, games, params=params, agents=agents, seed=5, workers=workers, engine="fast",
                         progress=False)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        if one_core:
            confine(allowed)
    digest = (frame.height, tuple(frame.schema.items()), int(frame.hash_rows(seed=1).sum()))
    del frame
    return wall, cpu, digest


def row(game: str, params: dict, agent: str, games: int, rounds: int) -> dict:
    """The 1- and 2-worker bests of one case."""
    from workbench.core.model import get_game

    model = get_game(game)
    seats = model.players(model.make_config(model.resolve_params(params)))
    agents = ",".join([agent] * seats)
    load = os.getloadavg()[0]
    timed(game, params, agents, min(games, 2_000), 2)  # load the compiled kernel, start polars' pool
    one = two = core = cpu1 = cpu2 = float("inf")
    busy = busy1 = 0.0
    for r in range(rounds):
        order = (1, "core", 2) if r % 2 == 0 else (2, "core", 1)  # alternating which goes first, round by round
        runs = {w: timed(game, params, agents, games, 1 if w == "core" else w, one_core=w == "core") for w in order}
        (w1, c1, d1), (w2, c2, d2), (wc, _, dc) = runs[1], runs[2], runs["core"]
        if not d1 == d2 == dc:
            raise AssertionError(f"{game} {agents}: 1 and 2 workers (or one core) gave different frames")
        core = min(core, wc)
        cpu1, cpu2 = min(cpu1, c1), min(cpu2, c2)
        if w1 < one:
            one, busy1 = w1, c1 / w1
        if w2 < two:
            two, busy = w2, c2 / w2
    label = ", ".join(f"{k}={v}" for k, v in params.items())
    return {"game": game, "agents": f"{agent} vs {agent}" + (f" ({label})" if label else ""), "games": games,
            "1 worker games/s": games / one, "2 workers games/s": games / two, "speed-up": one / two,
            "1 core games/s": games / core, "2 cores / 1 core": core / two,
            "CPU s per wall s (1 worker)": busy1, "CPU s per wall s (2 workers)": busy,
            "CPU per game, 2 workers / 1": cpu2 / cpu1,
            "load average before": load}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games-scale", type=float, default=1.0, help="multiply every case's games (0.1: quick)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating 1- and 2-worker runs; the best is kept")
    parser.add_argument("--only", default="", help="comma list of games (default: all four)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.games_scale <= 0:
        parser.error("--rounds must be a positive integer and --games-scale positive")
    only = {g for g in args.only.split(",") if g}
    allowed = {c[0] for c in CASES}
    if only - allowed:
        parser.error(f"--only: unknown game(s) {', '.join(sorted(only - allowed))}; "
                     f"allowed: {', '.join(sorted(allowed))}")
    print(f"# simulate() on 1 and 2 workers, {os.cpu_count()} cores, best of {args.rounds} (wall clock); "
          f"load average {os.getloadavg()[0]:.2f}", flush=True)
    for game, params, agent, games in CASES:
        if only and game not in only:
            continue
        r = row(game, params, agent, max(1_000, int(games * args.games_scale)), args.rounds)
        print(f"{r['game']:9s} {r['agents']:40s} {r['games']:>9,} games  1 worker {r['1 worker games/s']:>12,.0f}/s  "
              f"2 workers {r['2 workers games/s']:>12,.0f}/s  speed-up {r['speed-up']:.2f}  "
              f"1 core {r['1 core games/s']:>12,.0f}/s  2 cores / 1 core {r['2 cores / 1 core']:.2f}  "
              f"busy {r['CPU s per wall s (1 worker)']:.2f} / {r['CPU s per wall s (2 workers)']:.2f}  "
              f"CPU a game {r['CPU per game, 2 workers / 1']:.2f}x  load {r['load average before']:.2f}", flush=True)
    print(f"# load average at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
