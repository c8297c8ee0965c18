"""``workbench rebalance GAME --target … --edit … --cards … --out DIR``: the smallest edits that reach a balance target.

Wired into ``workbench/cli.py`` as a sub-command (``add_arguments`` on its parser, ``run`` on the parsed
arguments), like ``tune`` and ``ladder``.  The work is core's (:func:`workbench.core.rebalance.rebalance`);
this module reads flags, shows progress with an ETA, and prints the proposals, the held-out table and
where the files went.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core.model import shown_path

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of ``workbench rebalance``."""
    parser.add_argument("game", help="the game (see `workbench games`)")
    parser.add_argument("--target", default=None,
                        help="bands in percent, e.g. 'deck_vs_field=48..52, first_seat=48.5..51.5' (default: the "
                             "game's)")
    parser.add_argument("--edit", default=None,
                        help="edit space: COLUMN:LOW..HIGH whole steps, e.g. 'power_cost:-1..+1, might:-1..+1'; a "
                             "parameter with @P gives one per value of P, e.g. second_bonus_tower:0..+6@battlefield "
                             "(default: the game's)")
    parser.add_argument("--cards", default=None, help="card keys or patterns to edit, e.g. 'F*,S*' (default: all)")
    parser.add_argument("--budget", type=int, default=None,
                        help="games the search may play (default: the game's, 100000 unless it says)")
    parser.add_argument("--seed", type=int, default=0, help="the rebalance seed (default 0)")
    parser.add_argument("--out", type=Path, required=True, help="output folder: search.jsonl (resumable), proposals/, "
                                                                "proposals.csv, verification.csv")
    parser.add_argument("--tiers", default=None, help="skill tiers for the held-out check, e.g. greedy,greedy@tuned "
                                                      "(default: greedy and, where it exists, greedy@tuned)")
    parser.add_argument("--resume", action="store_true", help="continue the search stored in --out")
    parser.add_argument("--retune", type=int, default=0, metavar="N",
                        help="at the held-out check, a tier naming a weight set (greedy@tuned) plays each proposal "
                             "with weights re-tuned for its edited cards, N games each (default 0: the set as shipped)")
    parser.add_argument("--max-edits", type=int, default=None, help="most edits per candidate (default: the game's)")
    parser.add_argument("--games", type=int, default=None,
                        help="games per cell of the first racing stage (default: the game's)")
    parser.add_argument("--stages", type=int, default=None,
                        help="racing stages, each 4× the games (default: the game's, 3 unless it says)")
    parser.add_argument("--population", type=int, default=24, help="NSGA-II population (default 24)")
    parser.add_argument("--verify", type=int, default=10, help="most proposals re-played on held-out seeds (10)")
    parser.add_argument("--margin", type=float, default=None,
                        help="held-out games give every item ± this at 50 %% (default: the game's, 0.01 = ±1 point "
                             "unless it says)")
    parser.add_argument("--workers", type=int, default=1, help="workers (threads for compiled engines)")
    parser.add_argument("--backend", default="local", choices=("local", "dask"))
    parser.add_argument("--scheduler", default=None, help="a Dask scheduler address (backend dask)")


class _Bars:
    """One progress bar (or periodic line, with rate and ETA) per phase: the search, then the held-out check."""

    def __init__(self) -> None:
        self.phase: str | None = None
        self.bar: Any = None
        self.done = 0

    def __call__(self, done: int, total: int, phase: str) -> None:
        from workbench.core.progress import progress

        if phase != self.phase or self.bar is None or getattr(self.bar, "total", total) != total:
            self.close()
            label = "rebalance: search" if phase == "search" else "rebalance: held-out check"
            self.bar, self.phase, self.done = progress(max(total, 1), label, initial=done), phase, done
        if done > self.done:
            self.bar.update(done - self.done)
            self.done = done

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _print(frame: pl.DataFrame) -> None:
    with pl.Config(tbl_rows=-1, tbl_cols=-1, fmt_str_lengths=400, tbl_width_chars=240,
                   tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True):
        print(frame)


def run(args: argparse.Namespace) -> int:
    """Run ``workbench rebalance`` on parsed arguments; print the proposals and where they were saved."""
    from workbench.core.rebalance import additive_table, proposals_table, rebalance, verification_table

    bars = _Bars()
    try:
        result = rebalance(args.game, target=args.target, edit=args.edit, cards=args.cards, budget=args.budget,
                           seed=args.seed, tiers=args.tiers, out=args.out, resume=args.resume,
                           max_edits=args.max_edits, games=args.games, stages=args.stages,
                           population=args.population, verify=args.verify, margin=args.margin,
                           workers=args.workers, backend=args.backend, scheduler=args.scheduler, on_progress=bars,
                           retune=args.retune)
    finally:
        bars.close()
    print(result.summary())
    print(f"target: {', '.join(b.text() for b in result.bands)}; {len(result.dims)} editable values; "
          f"{result.seconds:.0f} s")
    if result.proposals.height:
        print("\nProposals (a score counts a draw as half a win; points outside the bands, summed over items):")
        _print(proposals_table(result))
    if result.additive_note:
        print(f"\n{result.additive_note}")
    if result.additive.height:
        _print(additive_table(result))
    table = verification_table(result)
    if table.height:
        lo, hi = result.holdout_seed_range
        print(f"\nHeld-out seeds (game indices {lo}..{hi - 1} of a master seed the search never used), "
              f"{result.verify_games_per_cell:,} games per cell and tier:")
        _print(table)
    retunes = result.retunes()
    if retunes.height:
        print(f"\nWeights re-tuned for each proposal ({result.retune:,} games each; held out against the agent's "
              "default options, a score with its 95 % interval and n):")
        _print(retunes.select(pl.col("proposal").alias("Proposal"), pl.col("tier").alias("Tier"),
                              pl.col("weights").alias("Weights played"), pl.col("games").alias("Games"),
                              pl.format("{} % [{}, {}] (n = {})", *(pl.col(c).mul(100).round(1) for c in (
                                  "held_out_score", "held_out_low", "held_out_high")), pl.col("held_out_n"))
                              .alias("Held out")))
    shown = [shown_path(p) for p in result.files]
    if shown:
        print("\nwrote " + ", ".join(shown))
    if result.stopped:
        print(f"stopped: every finished trial is kept in {shown_path(Path(args.out) / 'search.jsonl')}; continue "
              f"with the same command and --resume")
        return 130
    return 0
