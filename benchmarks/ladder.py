"""Agent tier ladder of any game: each pairing's stronger-tier win rate, seats swapped half the time.

Each pairing ``a:b`` plays half its games with ``a`` in seat p1 and half with it in p2, so seat and
first-move effects cancel.  Prints the win rate of ``a`` with its 95 % Wilson interval and n, the
draws, and whether it differs significantly from 50 %.  Two-player games.

    .venv/bin/python benchmarks/ladder.py duel --params battlefield=crystal_garden \\
        --pairs greedy:random:2000 search:random:60 search:greedy:60
    .venv/bin/python benchmarks/ladder.py babylon --pairs greedy:random:2000 search:greedy:40 \\
        "ismcts:budget=200:greedy:20"
"""

from __future__ import annotations

import argparse
import time

import polars as pl

from workbench.core.model import get_game
from workbench.core.sim.runner import simulate
from workbench.core.stats.rates import binom_pvalue, wilson


def pairing(game: str, a: str, b: str, games: int, params: dict, workers: int, seed: int) -> dict:
    half = games // 2
    frames = []
    for seats, a_seat in (((a, b), "p1"), ((b, a), "p2")):
        f = simulate(game, half, params=params, agents=list(seats), seed=seed, workers=workers, progress=False)
        frames.append(f.with_columns(a_seat=pl.lit(a_seat)))
    frame = pl.concat(frames, how="diagonal_relaxed")
    n = frame.height
    wins = int((frame["winner"] == frame["a_seat"]).sum())
    draws = int((frame["winner"] == "draw").sum())
    lo, hi = wilson(wins, n)
    return {"agent": a, "versus": b, "n": n, "wins": wins, "draws": draws, "win_rate": wins / n,
            "low": lo, "high": hi, "p_vs_50": binom_pvalue(wins, n, 0.5)}


def parse_pair(text: str) -> tuple[str, str, int]:
    """``a:b:n`` where an agent may carry options (``ismcts:budget=200:greedy:20``)."""
    parts = text.split(":")
    n = int(parts[-1])
    agents, current = [], []
    for part in parts[:-1]:
        if current and "=" in part:
            current.append(part)
        else:
            if current:
                agents.append(":".join(current))
            current = [part]
    agents.append(":".join(current))
    if len(agents) != 2:
        raise SystemExit(f"pair {text!r}: write AGENT:AGENT:GAMES")
    return agents[0], agents[1], n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("game")
    ap.add_argument("--params", nargs="*", default=[], help="key=value game parameters")
    ap.add_argument("--pairs", nargs="+", default=["greedy:random:2000", "search:random:60", "search:greedy:60"])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    model = get_game(args.game)
    params = model.resolve_params(dict(p.split("=", 1) for p in args.params))
    for text in args.pairs:
        a, b, n = parse_pair(text)
        start = time.perf_counter()
        row = pairing(args.game, a, b, n, params, args.workers, args.seed)
        seconds = time.perf_counter() - start
        print(f"{a:>14} vs {b:<8} {row['win_rate']:7.2%}  95% CI [{row['low']:.2%}, {row['high']:.2%}]  "
              f"n={row['n']}  draws={row['draws']}  p(vs 50%)={row['p_vs_50']:.2g}  "
              f"{'significant' if row['p_vs_50'] < 0.05 else 'not significant'}  ({seconds:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
