"""Where Babel's compiled engine spends its time (issue 23, item 1 for Babel: greedy ≥ 1.5× 5,900 games/s a core).

    .venv/bin/python benchmarks/babel_profile.py [--rounds N] [--scale X] [--clock cpu|wall] [--rows a,b]
    .venv/bin/python benchmarks/babel_profile.py --digest [--games N]

For each row (random vs random, greedy vs greedy, both on the default rules) it times, in chunks of
the engine's chunk size on one thread, best of ``--rounds``:

- ``kernel``: ``fast.run_kernel`` alone (the compiled game loop and its raw arrays);
- ``engine``: ``fast.play_chunk`` (kernel + the result frame: what ``benchmarks/anchors.py`` times in
  its second table);

and prints games/s, microseconds a game per phase, the frame's share, the mean game length and the
mean number of protocol steps (decisions) a game, so a change to the kernel can be read per decision.

``--digest`` prints one SHA-256 per parity variant (``fast.VARIANTS``) over the compiled engine's
frames of ``--games`` seeded games: equal digests before and after a kernel edit mean the edit kept
every frame byte-identical on many more games than the parity harness plays against the reference.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.duel_profile import _best  # noqa: E402  (the shortest of several timed calls)

ROWS = {"random": 100_000, "greedy": 20_000}  # agent: games a round at scale 1
TODAY = {"random": 52_500, "greedy": 5_900}  # issue 23's figures, games/s a core


def _setup(agent: str, games: int, params: dict | None = None):
    """The model, config, resolved parameters, agents and seed chunks of one row."""
    from workbench.core.model import AgentSpec, get_game
    from workbench.core.sim.seeding import game_seeds

    model = get_game("babel")
    resolved = model.resolve_params(params or {})
    config = model.make_config(resolved)
    agents = model.resolve_agents(agent, resolved) if "," in agent else (AgentSpec.parse(agent),) * 2
    seeds = game_seeds(2, 0, games)
    size = model.chunk_hint("fast")
    return model, config, resolved, agents, [seeds[i:i + size] for i in range(0, games, size)]


def measure(agent: str, scale: float, rounds: int, clock: str) -> dict:
    """One row's timings: games/s of the kernel and of the engine, mean length and steps a game."""
    from workbench.games.babel.engine import fast

    games = max(1_000, int(ROWS[agent] * scale))
    model, config, resolved, agents, chunks = _setup(agent, games)
    fast.play_chunk(config, agents, chunks[0][:200])  # load the compiled kernel
    kernel = _best(lambda: [fast.run_kernel(config, agents, c) for c in chunks], rounds, clock)
    engine = _best(lambda: [model.play_fast(config, resolved, agents, c) for c in chunks], rounds, clock)
    lengths = steps = 0
    for c in chunks:
        res = fast.run_kernel(config, agents, c)[0]
        lengths += int(res[:, fast.K.RES_LENGTH].sum())
        for seat in range(2):  # every action (end turn included) and every discard paid counts one step
            steps += int(res[:, fast.K.RES_SEAT + seat * fast.K.SEAT_COLS + fast.K.SEAT_TALLIES
                             + fast.K.T_ACTIONS].sum())
    return {"agents": f"{agent} vs {agent}", "games": games, "kernel games/s": games / kernel,
            "engine games/s": games / engine, "× today": games / engine / TODAY[agent],
            "kernel µs/game": 1e6 * kernel / games, "frame µs/game": 1e6 * (engine - kernel) / games,
            "frame share": (engine - kernel) / engine, "turns/game": lengths / games, "steps/game": steps / games}


def digest(games: int) -> list[tuple[str, str]]:
    """SHA-256 of the compiled engine's frame (Arrow IPC bytes) per parity variant, ``games`` games each."""
    from workbench.games.babel.engine import fast

    out = []
    for variant in fast.VARIANTS:
        model, config, resolved, agents, chunks = _setup(variant.agents, games, dict(variant.params))
        h = hashlib.sha256()
        for c in chunks:
            buf = io.BytesIO()
            fast.play_chunk(config, agents, c).write_ipc(buf)
            h.update(buf.getvalue())
        out.append((variant.label, h.hexdigest()[:16]))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="timed runs per row (the best is kept)")
    parser.add_argument("--scale", type=float, default=1.0, help="a multiple of each row's games")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu", help="CPU seconds (default) or wall")
    parser.add_argument("--rows", default=",".join(ROWS), help=f"rows to time, from {', '.join(ROWS)}")
    parser.add_argument("--digest", action="store_true", help="print a digest of every parity variant's frames")
    parser.add_argument("--games", type=int, default=3_000, help="games per variant for --digest")
    args = parser.parse_args(argv)
    rows = [r for r in args.rows.split(",") if r]
    if args.rounds < 1 or args.scale <= 0 or args.games < 1:
        parser.error("--rounds and --games must be positive integers and --scale a positive number, got "
                     f"{args.rounds}, {args.games} and {args.scale}")
    if bad := [r for r in rows if r not in ROWS]:
        parser.error(f"unknown row(s) {', '.join(bad)}; allowed: {', '.join(ROWS)}")
    if args.digest:
        for name, value in digest(args.games):
            print(f"{value}  {name}", flush=True)
        return 0
    print(f"# Babel's compiled engine, 1 thread, load average {os.getloadavg()[0]:.2f} "
          f"(best of {args.rounds}, games per {args.clock} second)", flush=True)
    for row in rows:
        m = measure(row, args.scale, args.rounds, args.clock)
        print(f"{m['agents']:>18}: engine {m['engine games/s']:>9,.0f} games/s ({m['× today']:.2f}× today), "
              f"kernel {m['kernel games/s']:>9,.0f}; {m['kernel µs/game']:.1f} µs kernel + "
              f"{m['frame µs/game']:.1f} µs frame a game ({m['frame share']:.0%} frame); "
              f"{m['turns/game']:.1f} turns, {m['steps/game']:.1f} steps a game", flush=True)
    print(f"# load average at the end {os.getloadavg()[0]:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
