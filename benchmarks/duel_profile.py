"""Where the duel's compiled engine spends its time, against the C anchor (issue 23, item 1 for the duel).

    .venv/bin/python benchmarks/duel_profile.py [--rounds N] [--scale X] [--clock cpu|wall] [--rows a,b]

For each row of the ratio table (Crystal Garden and Free Steppe, random and greedy, plus ``simulate()``
end to end) it times, in chunks of the engine's chunk size, best of ``--rounds``:

- ``kernel``: ``fast.run_kernel`` alone (the compiled game loop and its raw arrays);
- ``engine``: ``fast.play_chunk`` (kernel + the result frame: what ``bench.py ratio`` times);
- ``simulate``: ``runner.simulate`` end to end, 1 worker (only on the ``simulate`` row);
- ``C``: the anchor ``duel_c`` (built by ``benchmarks/anchors.py``) on the same battlefield.

and prints games/s, the ratio to C, the frame's share of the engine time and the mean game length
of both sides (the two programs play the same rules, so lengths should be close; the C greedy plays
integer scores with random tie-breaks, the workbench's greedy the declared float weights).
Per-game costs in microseconds make the phases comparable across rows.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.anchors import ANCHORS, BATTLEFIELDS, build, c_rate, missing  # noqa: E402

ROWS = {  # name: (battlefield, agent, workbench games, C games)
    "cg_random": ("crystal_garden", "random", 100_000, 300_000),
    "cg_greedy": ("crystal_garden", "greedy", 40_000, 100_000),
    "fs_random": ("free_steppe", "random", 50_000, 150_000),
    "fs_greedy": ("free_steppe", "greedy", 20_000, 50_000),
    "simulate": ("crystal_garden", "random", 100_000, 300_000),
}


def _clock(kind: str):
    return time.perf_counter if kind == "wall" else time.process_time


def _best(fn, rounds: int, clock: str) -> float:
    """The shortest of ``rounds`` timed calls of ``fn`` (seconds on ``clock``)."""
    now = _clock(clock)
    best = float("inf")
    for _ in range(rounds):
        t = now()
        fn()
        best = min(best, now() - t)
    return best


def measure(row: str, scale: float, rounds: int, clock: str, exe: Path | None) -> dict:
    """One row's timings (games/s per phase, C games/s, mean lengths)."""
    from workbench.core.model import AgentSpec, get_game
    from workbench.core.sim.runner import simulate
    from workbench.core.sim.seeding import game_seeds
    from workbench.games.duel.engine import fast

    battlefield, agent, games, c_games = ROWS[row]
    games, c_games = max(1_000, int(games * scale)), max(1_000, int(c_games * scale))
    model = get_game("duel")
    params = model.resolve_params({"battlefield": battlefield})
    config = model.make_config(params)
    agents = (AgentSpec.parse(agent),) * 2
    seeds = game_seeds(2, 0, games)
    size = model.chunk_hint("fast")
    chunks = [seeds[i:i + size] for i in range(0, games, size)]
    fast.play_chunk(config, agents, seeds[:200], config.first)  # load the compiled kernel
    out: dict = {"row": row, "games": games}
    lengths = []

    def kernel() -> None:
        lengths.clear()
        for chunk in chunks:
            res = fast.run_kernel(config, agents, chunk, config.first)[0]
            lengths.append(res[:, 2].sum())

    def engine() -> None:
        for chunk in chunks:
            fast.play_chunk(config, agents, chunk, config.first)

    out["kernel_gps"] = games / _best(kernel, rounds, clock)
    out["mean_turns"] = float(sum(lengths)) / games
    if row == "simulate":
        simulate("duel", 1_000, params={"battlefield": battlefield}, agents=f"{agent},{agent}", seed=0, workers=1,
                 engine="fast", progress=False)
        out["simulate_gps"] = games / _best(
            lambda: simulate("duel", games, params={"battlefield": battlefield}, agents=f"{agent},{agent}", seed=1,
                             workers=1, engine="fast", progress=False), rounds, clock)
    out["engine_gps"] = games / _best(engine, rounds, clock)
    if exe is not None:
        index = BATTLEFIELDS[battlefield][0]
        command = [str(exe), str(index), "regular", agent, agent, str(c_games), "1"]
        out["c_gps"] = max(c_rate(command, clock) for _ in range(rounds))
        text = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        found = re.search(r"mean_turns=([0-9.]+)", text)
        out["c_mean_turns"] = float(found.group(1)) if found else float("nan")
    return out


def report(m: dict) -> str:
    """One line a person reads."""
    top = m.get("simulate_gps", m["engine_gps"])
    parts = [f"{m['row']:<10}", f"kernel {m['kernel_gps']:>9,.0f}/s ({1e6 / m['kernel_gps']:6.2f} µs)",
             f"engine {m['engine_gps']:>9,.0f}/s ({1e6 / m['engine_gps']:6.2f} µs)"]
    if "simulate_gps" in m:
        parts.append(f"simulate {m['simulate_gps']:>9,.0f}/s ({1e6 / m['simulate_gps']:6.2f} µs)")
    frame_share = 1 - m["engine_gps"] / m["kernel_gps"]
    parts.append(f"frame {100 * frame_share:4.1f} % of engine")
    parts.append(f"turns {m['mean_turns']:.1f}")
    if "c_gps" in m:
        parts.append(f"C {m['c_gps']:>9,.0f}/s ({1e6 / m['c_gps']:6.2f} µs, turns {m['c_mean_turns']:.1f})")
        parts.append(f"ratio kernel {m['kernel_gps'] / m['c_gps']:.2f}, engine/simulate {top / m['c_gps']:.2f}")
    return " | ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="timed runs per phase (best kept)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every game count (0.1: a smoke run)")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu", help="CPU seconds (default) or wall")
    parser.add_argument("--rows", default=",".join(ROWS), help=f"comma list of {', '.join(ROWS)}")
    parser.add_argument("--no-c", action="store_true", help="skip the C anchor")
    args = parser.parse_args(argv)
    rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    unknown = [r for r in rows if r not in ROWS]
    if unknown or args.rounds < 1 or args.scale <= 0:
        parser.error(f"rows must be among {', '.join(ROWS)} (got {', '.join(unknown) or 'ok'}); --rounds >= 1 "
                     f"and --scale > 0 (got {args.rounds}, {args.scale})")
    exe = None
    if not args.no_c:
        why = missing(ANCHORS)
        if why is None:
            exe = build(ANCHORS)["duel"]
        else:
            print(f"# C anchor skipped: {why}")
    print(f"# duel profile, load average {os.getloadavg()[0]:.2f}, best of {args.rounds}, games per {args.clock} s",
          flush=True)
    for row in rows:
        print(report(measure(row, args.scale, args.rounds, args.clock, exe)), flush=True)
    print(f"# load average at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
