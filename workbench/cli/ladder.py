"""``workbench ladder GAME``: a round robin of agents and their Bradley–Terry ratings (``core/skill/ladder.py``).

    workbench ladder duel --agents random,greedy,search:budget=8 --games 400 --seed 0
        --params battlefield=crystal_garden deck=regular [--workers 2] [--out DIR]

Prints the ratings and the pairwise table with display names and plain labels; with ``--out`` it
writes both tables (CSV and Parquet), the games (``games.parquet``) and a small report.  Every
input is checked before a game is played; Ctrl-C keeps and rates the finished pairings.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import polars as pl

import workbench.cli.options as options
from workbench.cli.common import table_text
from workbench.core.errors import InputError

__all__ = ["HELP", "add_arguments", "format_tables", "run"]

HELP = "rate agents: a round robin on common seeds, Bradley–Terry ratings with 95 %% intervals"
RAW = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ladder's flags on ``parser`` (the ``ladder`` sub-command)."""
    parser.add_argument("game", help="a game name (see `workbench games`)")
    options.add(parser, "agents", required=True,
                help="the agents to rate, comma-separated; any spec the game accepts "
                     "(e.g. random,greedy,greedy:tower=2,search:budget=8)")
    options.add(parser, "games", default=400,
                help="games per pairing, half with each agent in the first seat (even; default 400)")
    options.add(parser, "seed", help="master seed: every pairing plays the same game seeds (default 0)")
    options.add(parser, "workers")
    options.add(parser, "backend")
    options.add(parser, "scheduler")
    parser.add_argument("--filler", default="random",
                        help="the agent in seats beyond the second, in games of more than two seats (default random)")
    parser.add_argument("--anchor", default=None,
                        help="the agent rated 0, or 'mean' (default: random when it plays, else the mean)")
    options.add(parser, "params", help="game parameters, e.g. battlefield=crystal_garden deck=regular")
    options.add(parser, "out", help="write the tables (CSV, Parquet), the games and a small report into DIR")
    options.add(parser, "force", help="write into a non-empty directory that holds no report, or replace another "
                                      "game's report there")
    options.add(parser, "quiet")


def _params(items: list[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            raise InputError(f"--params: {item!r} is not NAME=VALUE (e.g. battlefield=crystal_garden)")
        name = name.strip().replace("-", "_")
        if name in params:
            raise InputError(f"--params: {name!r} is given twice")
        params[name] = value.strip()
    return params


def _signed(x: float, digits: int) -> str:
    return f"{round(x, digits) + 0.0:+.{digits}f}"  # + 0.0: no "-0" for a value that rounds to zero


def _interval(value: Any, low: Any, high: Any, digits: int) -> str:
    if value is None:
        return "–"
    return f"{_signed(value, digits)} [{_signed(low, digits)}, {_signed(high, digits)}]"


def _percent(value: Any, low: Any, high: Any) -> str:
    if value is None:
        return "–"
    return f"{100 * value:.1f}% [{100 * low:.1f}–{100 * high:.1f}]"


def _yes_no(value: Any) -> str:
    return "–" if value is None else ("yes" if value else "no")


def plain_ratings(ratings: pl.DataFrame) -> pl.DataFrame:
    """The ratings table as a reader sees it: display names, plain labels, intervals beside the values."""
    rows = [{"Rank": "–" if r["rank"] is None else str(r["rank"]), "Agent": r["agent"],
             "Elo [95% CI]": _interval(r["elo"], r["elo_lower"], r["elo_upper"], 0),
             "Bradley–Terry rating [95% CI]": _interval(r["rating"], r["rating_lower"], r["rating_upper"], 2),
             "Ahead of next": r["ahead_of_next"] or "–",
             "Gap to next (Elo) [95% CI]": _interval(r["gap_to_next"], r["gap_lower"], r["gap_upper"], 0),
             "Games": f"{r['games']:,}",
             "Score [95% CI]": _percent(r["score"], r["score_low"], r["score_high"])}
            for r in ratings.iter_rows(named=True)]
    return pl.DataFrame(rows, schema={k: pl.String for k in (rows[0] if rows else {"Agent": None})})


def plain_pairwise(pairwise: pl.DataFrame) -> pl.DataFrame:
    """The pairwise table as a reader sees it: one row per pairing, from the first agent's side."""
    rows = []
    for r in pairwise.iter_rows(named=True):
        row = {"Agent": r["agent"], "Opponent": r["opponent"], "Games": f"{r['n']:,}", "Wins": str(r["wins"]),
               "Draws": str(r["draws"]), "Losses": str(r["losses"])}
        if "filler_won" in r:
            row["Won by a filler (in draws)"] = str(r["filler_won"])
        row.update({"Score [95% CI]": _percent(r["score"], r["score_low"], r["score_high"]),
                    "p (exact, vs 50%)": f"{r['p_value']:.2g}" if r["p_value"] > 0 else "< 1e-300",
                    "Significant": _yes_no(r["significant"]),
                    "Fitted score": "–" if r["fitted"] is None else f"{100 * r['fitted']:.1f}%",
                    "Engine": r.get("engine") or "–"})
        rows.append(row)
    return pl.DataFrame(rows, schema={k: pl.String for k in (rows[0] if rows else {"Agent": None})})


def format_tables(ratings: pl.DataFrame, pairwise: pl.DataFrame) -> str:
    """Both tables as Markdown-style text for a terminal."""
    return f"## Ratings\n{table_text(plain_ratings(ratings))}\n\n## Pairings\n{table_text(plain_pairwise(pairwise))}"


def run(args: argparse.Namespace, rest: list[str] | None = None, argv: list[str] | None = None) -> int:
    """Run the ladder of ``args``; print the tables; write ``--out``. Returns the exit status."""
    from workbench.core.model import get_game
    from workbench.core.present.report import check_target
    from workbench.core.skill.ladder import _summary_text, run_ladder, write_ladder_report

    if args.out is not None:
        check_target(args.out, args.force, get_game(args.game).name)  # refused before any game is played
    ladder = run_ladder(args.game, args.agents, args.games, params=_params(args.params), seed=args.seed,
                        workers=args.workers, backend=args.backend, scheduler=args.scheduler, filler=args.filler,
                        anchor=args.anchor, progress=not args.quiet)
    s = ladder.settings
    print(f"{ladder.game} ladder: {len(ladder.agents)} agents, {ladder.finished} of {ladder.pairings} pairings × "
          f"{s['games_per_pairing']:,} games (both seats, common seeds, master seed {s['seed']}) in {s['seconds']} s")
    print(format_tables(ladder.ratings, ladder.pairwise))
    print(_summary_text(ladder.ratings).replace("`", ""))
    if args.out is not None:
        print(f"written to {write_ladder_report(ladder, args.out, args.force)}")
    if ladder.stopped:
        print(f"stopped: {ladder.finished} of {ladder.pairings} pairings finished and rated; the pairing under way "
              "was dropped", file=sys.stderr)
        return 130
    return 0
