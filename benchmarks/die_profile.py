"""Where the die game's time goes: nanoseconds per game in each phase of ``simulate()``, beside the C anchor.

    .venv/bin/python benchmarks/die_profile.py [--games N] [--rounds R] [--players 2|3]

Phases (each the best of ``--rounds`` runs over CPU time, so other work on a shared machine disturbs
it little): the game seeds (``core.sim.seeding``), the compiled kernel alone on one chunk (its result
arrays), the result columns from those arrays (``fast.to_frame``), the run/agent/parameter columns
(``core.sim.results.head_frame``), one chunk end to end (``runner.run_chunk``) and ``simulate()`` end to
end (1 worker, default chunks).  The C anchor (``../shared/anchors/dietower_c``, built as
``benchmarks/anchors.py`` builds it) plays the same number of random games, its ns/game on the last
line: the kernel's and ``simulate()``'s ratios to it are printed with the load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def best_ns(fn: Callable[[], object], games: int, rounds: int) -> float:
    """Fewest CPU nanoseconds per game over ``rounds`` calls of ``fn``."""
    best = float("inf")
    for _ in range(rounds):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best * 1e9 / games


def phases(players: int, games: int, rounds: int) -> list[tuple[str, float]]:
    """``(phase, ns per game)`` of every phase of the workbench side."""
    from workbench.core.model import AgentSpec, get_game
    from workbench.core.sim.results import head_frame
    from workbench.core.sim.runner import run_chunk, simulate
    from workbench.core.sim.seeding import game_seeds
    from workbench.games.dietower import agents as ag
    from workbench.games.dietower.engine import fast
    from workbench.games.dietower.engine.kernel import play_fast

    model = get_game("dietower")
    params = model.resolve_params({"players": players})
    config = model.make_config(params)
    names = ("random",) * players
    configs = [ag.config(AgentSpec.parse(a)) for a in names]
    seeds = game_seeds(1, 0, games)
    cols = play_fast(config, configs, seeds)
    agents = ",".join(names)
    simulate("dietower", 1_000, params=params, agents=agents, engine="fast", progress=False)  # warm
    return [
        ("game seeds", best_ns(lambda: game_seeds(1, 0, games), games, rounds)),
        ("kernel (result arrays)", best_ns(lambda: play_fast(config, configs, seeds), games, rounds)),
        ("result columns (to_frame)", best_ns(lambda: fast.to_frame(cols, players), games, rounds)),
        ("run, agent, parameter columns", best_ns(lambda: head_frame(model, params, names, 1, 0, seeds), games,
                                                  rounds)),
        ("one chunk end to end (run_chunk)", best_ns(lambda: run_chunk(model, params, names, 1, 0, games, "fast"),
                                                     games, rounds)),
        ("simulate() end to end, 4 chunks", best_ns(
            lambda: simulate("dietower", 4 * games, params=params, agents=agents, seed=1, engine="fast",
                             progress=False), 4 * games, rounds)),
    ]


def c_ns(players: int, games: int, rounds: int) -> float | None:
    """The C anchor's CPU ns per game (best of ``rounds``), or None when it cannot be built here."""
    import anchors

    if anchors.missing(anchors.ANCHORS) is not None or players > 3:
        return None
    exe = anchors.build(anchors.ANCHORS)["dietower"]
    return min(1e9 / anchors.c_rate([str(exe), str(players), str(games), "1"], "cpu") for _ in range(rounds))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=250_000, help="games a chunk (default 250,000)")
    parser.add_argument("--rounds", type=int, default=7, help="runs of each phase; the best is kept")
    parser.add_argument("--players", type=int, choices=(2, 3), default=2)
    args = parser.parse_args(argv)
    if args.games < 1000 or args.rounds < 1:
        parser.error("--games must be at least 1000 and --rounds at least 1")
    print(f"# die game, {args.players} random players, {args.games:,} games a chunk, best of {args.rounds} "
          f"(CPU time); load average {os.getloadavg()[0]:.2f}")
    rows = phases(args.players, args.games, args.rounds)
    c = c_ns(args.players, 10 * args.games, args.rounds)
    width = max(len(name) for name, _ in rows) + 2
    for name, ns in rows:
        ratio = f"   ratio to C {c / ns:.2f}" if c is not None and name.startswith(("kernel", "simulate")) else ""
        print(f"{name:<{width}}{ns:8.1f} ns/game  {1e3 / ns:6.2f} M games/s{ratio}")
    if c is None:
        print("C anchor: not available here (no cc, no ../shared/anchors, or 4 players)")
    else:
        print(f"{'C anchor (dietower_c)':<{width}}{c:8.1f} ns/game  {1e3 / c:6.2f} M games/s")
    print(f"# load average at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
