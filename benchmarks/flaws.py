"""The structural-flaw check for every game's greedy agent (issue 37, item 1): no single weight change may win >= 65 %.

    .venv/bin/python benchmarks/flaws.py [--game NAME ...] [--screen N] [--confirm N] [--seed S] [--workers W]

For every registered game that declares a ``greedy`` agent with weights (float options), found through
the registry, :func:`workbench.core.skill.flaws.flaw_check` plays each weight's single changes against the
default greedy over the game's field (every battlefield, every pair of decks: ``field_grid``; at most
64 cells, a seeded sample of a larger field), a screen of ``--screen`` games per change, then each
weight's strongest change on ``--confirm`` fresh games (>= 2,000).  Per game it prints a table (score
of the change against the default with its games and 95 % Wilson interval, a draw as half) and says
"no flaw" or names the flaws.  The exit status is 1 when any game has a flaw.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import polars as pl  # noqa: E402

from workbench.core.model import game_names, get_game  # noqa: E402
from workbench.core.present.report import display_frame  # noqa: E402
from workbench.core.skill.flaws import CONFIRM_MIN, THRESHOLD, checked_agents, field_grid, flaw_check  # noqa: E402

MOST_CELLS = 64
SHOWN = {"weight": "weight", "default": "default", "changed": "changed to", "candidate": "how it was found",
         "score": "score of the change vs the default", "score_n": "games", "flaw": "flaw (>= 65 %)"}


def table(frame: pl.DataFrame) -> pl.DataFrame:
    """The rows a person reads: plain labels, the score with its interval, weights in words."""
    shown = display_frame(frame.select("weight", "default", "changed", "candidate", "score", "score_low",
                                       "score_high", "score_n", "flaw"))
    shown = shown.with_columns(pl.col("weight").str.replace_all("_", " "))
    return shown.rename(SHOWN)


def verdict(frame: pl.DataFrame) -> str:
    """``no flaw``, or each flawed weight with its change and score."""
    found = frame.filter(pl.col("flaw"))
    if found.height == 0:
        return f"no flaw: no single weight change scores {THRESHOLD:.0%} against the default"
    parts = [f"{r['weight'].replace('_', ' ')} {r['default']:g} -> {r['changed']:g} scores {r['score']:.1%} "
             f"[{r['score_low']:.1%}-{r['score_high']:.1%}] n={r['score_n']:,}" for r in found.iter_rows(named=True)]
    return f"FLAW ({found.height} of {frame.height} weights): " + "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", action="append", help="check only this game (repeatable)")
    parser.add_argument("--screen", type=int, default=1000, help="games per change in the screen")
    parser.add_argument("--confirm", type=int, default=CONFIRM_MIN, help="games of each weight's strongest change")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    games = [g for g in game_names() if checked_agents(get_game(g))]
    if args.game:
        unknown = [g for g in args.game if g not in games]
        if unknown:
            parser.error(f"no greedy with weights in {', '.join(unknown)}; games checked: {', '.join(games)}")
        games = [g for g in games if g in args.game]
    pl.Config.set_tbl_cols(20)
    pl.Config.set_tbl_rows(50)
    pl.Config.set_tbl_width_chars(200)
    pl.Config.set_fmt_str_lengths(60)
    pl.Config.set_tbl_hide_dataframe_shape(True)
    pl.Config.set_tbl_hide_column_data_types(True)
    flawed = []
    for game in games:
        model = get_game(game)
        start = time.perf_counter()
        frame = flaw_check(model, params=field_grid(model), most_cells=MOST_CELLS, seed=args.seed,
                           screen=args.screen, confirm=args.confirm, workers=args.workers)
        seconds = time.perf_counter() - start
        first = frame.row(0, named=True)
        print(f"\n=== {model.title}: greedy's weights, one changed, against the default greedy ===")
        print(f"field: {first['params']}; engine {first['engine']}; seed {args.seed}; screen {args.screen:,} "
              f"games a change, confirmed on {args.confirm:,} fresh games; {seconds:.0f} s")
        print(table(frame))
        print(verdict(frame), flush=True)
        if frame.get_column("flaw").any():
            flawed.append(model.title)
    print(f"\nflaws in: {', '.join(flawed)}" if flawed else f"\nno flaw in: {', '.join(games)}")
    return 1 if flawed else 0


if __name__ == "__main__":
    sys.exit(main())
