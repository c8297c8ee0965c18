"""``workbench rebalance`` against the numbers issue 19 asks for: proposals, held-out tables and wall times.

Each case is the CLI's own work (:func:`workbench.core.design.rebalance.rebalance`) with the game's declared
target and edit space, timed as a whole (warm compile cache: run ``make bench`` or any simulate first).
Prints the proposals, the held-out before → after table, the searched trials' spread (evidence the
space was searched) and the wall time; ``--out`` keeps each case's folder (``search.jsonl`` resumes it).

    .venv/bin/python benchmarks/rebalance.py duel      # first seat per battlefield 49..51, ≤ 10 min on 2 cores
    .venv/bin/python benchmarks/rebalance.py babel     # start seat per hand variant 49..51 at both tiers
    .venv/bin/python benchmarks/rebalance.py babylon   # every precon 48..52 vs the field, ≤ 4 edits, ≤ 20 min
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

import polars as pl

from workbench.core.design.rebalance import additive_table, proposals_table, rebalance, verification_table

CASES = {
    # game: settings of the number (the game's declared target, edit space and budget unless given)
    "duel": {"tiers": "greedy,greedy@tuned", "workers": 2},
    "babel": {"tiers": "greedy,greedy@tuned", "workers": 2},
    "babylon": {"max_edits": 4, "tiers": "greedy,greedy@tuned", "workers": 2},
}


def run_case(game: str, out: Path, seed: int, resume: bool = False, **overrides: object) -> None:
    """One case: search (or resume the search in ``out``, e.g. with more budget), verify, print the tables."""
    settings = {**CASES[game], **{k: v for k, v in overrides.items() if v is not None}}
    if out.exists() and not resume:
        shutil.rmtree(out)
    started = time.perf_counter()
    result = rebalance(game, out=out, seed=seed, resume=resume, **settings)
    wall = time.perf_counter() - started
    with pl.Config(tbl_rows=-1, tbl_cols=-1, fmt_str_lengths=300, tbl_width_chars=250,
                   tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True):
        print(f"== {game}: {', '.join(b.text() for b in result.bands)}; settings {settings}, seed {seed}")
        print(result.summary())
        print(proposals_table(result))
        print(verification_table(result))
        if result.additive_note:
            print(result.additive_note)
        if result.additive.height:
            print(additive_table(result))
        t = result.trials
        print(f"searched: {t.height} trials, {t['edits'].n_unique()} distinct candidates, "
              f"{result.games_searched:,} games; distance (points outside) min {t['distance'].min():.2f}, "
              f"median {t['distance'].median():.2f}; trials per racing stage "
              f"{dict(sorted(t.group_by('stage').len().iter_rows()))}")
        print(f"held-out: {result.verify_games_per_cell:,} games per cell and tier, {result.games_verified:,} in all")
        print(f"wall time {wall:.0f} s ({wall / 60:.1f} min)")


def main() -> None:
    """Run the cases named on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="+", choices=sorted(CASES))
    parser.add_argument("--out", type=Path, default=Path("/tmp/workbench-bench-rebalance"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget", type=int, default=None, help="override the case's search budget (games)")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--verify", type=int, default=None, help="most proposals re-played on held-out seeds")
    parser.add_argument("--resume", action="store_true", help="continue the search stored in --out/GAME")
    parser.add_argument("--retune", type=int, default=None,
                        help="the weighted tier plays each proposal with weights re-tuned for it, N games each")
    args = parser.parse_args()
    for game in args.games:
        run_case(game, args.out / game, args.seed, args.resume, budget=args.budget, workers=args.workers,
                 verify=args.verify, retune=args.retune)


if __name__ == "__main__":
    main()
