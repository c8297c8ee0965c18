"""Tier ladder of the duel agents: search vs greedy vs random on one battlefield.

Each pairing plays half its games with each agent in seat p1 (first mover drawn at random per
game), so seat and first-move effects cancel.  Prints the win rate of the stronger-tier agent with
its 95 % Wilson interval and n, and whether it differs significantly from 50 %.

    .venv/bin/python benchmarks/duel_ladder.py [--games-search 60] [--battlefield crystal_garden]
"""

from __future__ import annotations

import argparse
import time

import polars as pl

from workbench.core.runner import simulate
from workbench.core.stats import binom_pvalue, wilson


def pairing(a: str, b: str, games: int, battlefield: str, workers: int, seed: int) -> dict:
    half = games // 2
    frames = []
    for seats, flip in (((a, b), False), ((b, a), True)):
        f = simulate("duel", half, params={"battlefield": battlefield}, agents=",".join(seats), seed=seed,
                     workers=workers, progress=False)
        frames.append(f.with_columns(a_seat=pl.lit("p2" if flip else "p1")))
    frame = pl.concat(frames)
    n = frame.height
    wins = int((frame["winner"] == frame["a_seat"]).sum())
    draws = int((frame["winner"] == "draw").sum())
    lo, hi = wilson(wins, n)
    return {"agent": a, "versus": b, "n": n, "wins": wins, "draws": draws, "win_rate": wins / n,
            "low": lo, "high": hi, "p_vs_50": binom_pvalue(wins, n, 0.5)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=2000, help="games for greedy vs random")
    ap.add_argument("--games-search", type=int, default=60, help="games for each pairing with search")
    ap.add_argument("--battlefield", default="crystal_garden")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    rows = []
    for a, b, n in (("greedy", "random", args.games), ("search", "random", args.games_search),
                    ("search", "greedy", args.games_search)):
        start = time.perf_counter()
        row = pairing(a, b, n, args.battlefield, args.workers, args.seed)
        row["seconds"] = round(time.perf_counter() - start, 1)
        rows.append(row)
        print(f"{a:>7} vs {b:<7} {row['win_rate']:7.2%}  95% CI [{row['low']:.2%}, {row['high']:.2%}]  "
              f"n={row['n']}  draws={row['draws']}  p(vs 50%)={row['p_vs_50']:.2g}  "
              f"{'significant' if row['p_vs_50'] < 0.05 else 'not significant'}  ({row['seconds']} s)", flush=True)


if __name__ == "__main__":
    main()
