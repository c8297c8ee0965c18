"""Why two workers fall short of two times: the share of a chunk spent outside the compiled kernel.

    .venv/bin/python benchmarks/scaling_profile.py [--rounds N] [--only GAME[,GAME]]

Worker threads overlap only while a thread runs code that has let go of Python's GIL (the numba
kernels, numpy's loops, most of polars); the rest of a chunk — Python glue, building the frame —
runs one thread at a time.  For each compiled engine this plays one default-size chunk
(``runner.run_chunk``, what a worker does) on one thread, timing every call into a compiled kernel
(every numba entry point of the game's ``kernel`` module, wrapped for the run), and prints the time
outside the kernels as a share of the chunk: an upper bound on the serial share ``s``.  Amdahl's
bound for two workers is then ``1 / (s + (1 - s) / 2)``: at least 1.8 needs ``s`` at most 0.11.
CPU time of this thread, best of ``--rounds``; the load average is printed beside it.
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CASES = (("duel", {"battlefield": "crystal_garden"}, "random"), ("duel", {"battlefield": "crystal_garden"}, "greedy"),
         ("dietower", {"players": 2}, "random"), ("babel", {}, "random"), ("babel", {}, "greedy"),
         ("babylon", {}, "random"), ("babylon", {}, "greedy"))


class KernelClock:
    """Wraps every numba entry point of a kernel module so the CPU seconds spent in them add up."""

    def __init__(self, module: str) -> None:
        from numba.core.registry import CPUDispatcher

        self.module = importlib.import_module(module)
        self.seconds = 0.0
        self.saved = {name: f for name, f in vars(self.module).items() if isinstance(f, CPUDispatcher)}
        tables = {name: d for name, d in vars(self.module).items()
                  if isinstance(d, dict) and d and all(isinstance(f, CPUDispatcher) for f in d.values())}
        self.tables = {name: dict(d) for name, d in tables.items()}
        for name, f in self.saved.items():
            setattr(self.module, name, self._timed(f))
        for d in tables.values():
            for key, f in list(d.items()):
                d[key] = self._timed(f)

    def _timed(self, f):  # noqa: ANN001, ANN202 - a dispatcher in, a plain function out
        def call(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            t = time.thread_time()
            try:
                return f(*args, **kwargs)
            finally:
                self.seconds += time.thread_time() - t
        return call

    def close(self) -> None:
        """Put the dispatchers back."""
        for name, f in self.saved.items():
            setattr(self.module, name, f)
        for name, d in self.tables.items():
            getattr(self.module, name).update(d)


def profile(game: str, params: dict, agent: str, rounds: int) -> dict:
    """Chunk CPU seconds, kernel seconds and the serial share of one default chunk (best of ``rounds``)."""
    from workbench.core.model import get_game
    from workbench.core.sim.runner import run_chunk

    model = get_game(game)
    resolved = model.resolve_params(params)
    seats = model.players(model.make_config(resolved))
    agents = (agent,) * seats
    size = model.chunk_hint("fast")
    run_chunk(model, resolved, agents, 1, 0, min(size, 500), "fast")  # load the kernel
    clock = KernelClock(f"workbench.games.{game}.engine.kernel")
    try:
        best = (math.inf, 0.0)
        for _ in range(rounds):
            clock.seconds = 0.0
            t = time.thread_time()
            run_chunk(model, resolved, agents, 1, 0, size, "fast")
            total = time.thread_time() - t
            if total - clock.seconds < best[0] - best[1] or best[0] == math.inf:
                best = (total, clock.seconds)
    finally:
        clock.close()
    total, kernel = best
    serial = (total - kernel) / total
    return {"game": game, "agents": agent, "chunk": size, "chunk ms": 1e3 * total, "kernel ms": 1e3 * kernel,
            "outside %": 100 * serial, "Amdahl bound, 2 workers": 1 / (serial + (1 - serial) / 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", default="", help="comma list of games (default: every compiled engine)")
    args = parser.parse_args(argv)
    only = {g for g in args.only.split(",") if g}
    print(f"# one default chunk on one thread, best of {args.rounds}; load average {os.getloadavg()[0]:.2f}")
    for game, params, agent in CASES:
        if only and game not in only:
            continue
        r = profile(game, params, agent, args.rounds)
        print(f"{r['game']:9s} {r['agents']:7s} chunk {r['chunk']:>9,}  {r['chunk ms']:8.1f} ms  kernel "
              f"{r['kernel ms']:8.1f} ms  outside the kernel {r['outside %']:5.1f} %  "
              f"Amdahl bound {r['Amdahl bound, 2 workers']:.2f}", flush=True)
    print(f"# load average at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
