"""Battlefield balance of the duel: per battlefield × deck × agent pairing (× miss rate).

``run_grid`` plays the same number of seeded games in every cell, all cells on the same master
seed (common random numbers: cell differences are not blurred by different deals), on core's
grid runner, so a caller (widget, CLI) can show progress and stop early without losing the
finished games.
The table and chart functions turn the one-row-per-game frame into

* the first-seat win rate (share of *all* games won by the seat that moved first; draws count as
  not won) with its Wilson interval, and the draw rate;
* the game length distribution (player turns);
* how games end (``reason``: tower_built / tower_destroyed / resources / draw / turn_limit /
  timeout);
* the effect of the duel timer's ``miss_rate`` on the first-seat win rate and the end reasons.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import polars as pl

from workbench.core.errors import InputError, RunInterrupted
from workbench.core.lazy import lazy
from workbench.core.present import charts
from workbench.core.sim import sweep
from workbench.core.sim.runner import check_games, simulate
from workbench.core.stats import metrics
from workbench.core.stats.rates import rate_diff_table, rate_table
from workbench.core.studies.study import Partial, play_grid
from workbench.games.duel.model import BATTLEFIELD_KEYS

alt = lazy("altair")  # imported when the first chart is drawn: a page that draws none never loads it

__all__ = ["CELL_KEYS", "balance_table", "end_reason_chart", "end_reason_table", "first_seat_chart",
           "first_seat_won", "length_chart", "length_table", "miss_effect_chart", "miss_effect_table",
           "run_blocks", "run_grid"]

CELL_KEYS = ("battlefield", "deck", "pairing")
DECKS = ("regular", "unlimited")
Progress = Callable[[int, int], None]


def first_seat_won() -> pl.Expr:
    """True when the seat that moved first won (a draw is not a win)."""
    return pl.col("winner") == pl.col("first_seat")


def run_blocks(params: dict[str, Any], agents: Sequence[str], games: int, seed: int = 0, *,
               engine: str | None = None, workers: int = 1, block: int | None = None,
               on_block: Callable[[int], None] | None = None,
               should_stop: Callable[[], bool] | None = None) -> pl.DataFrame | None:
    """Play ``games`` duels in blocks of consecutive game indices (same rows as one big run).

    The runner spreads the blocks over ``workers`` (threads for the fast kernel, which releases
    the GIL).  ``on_block(n)`` is called after every finished block of ``n`` games; once
    ``should_stop()`` turns true no new block is awaited, and the finished games are returned
    (``None`` if none finished).  A Ctrl-C keeps the finished games too.
    """
    games = check_games(games)
    block = block or max(1000, -(-games // (10 * max(1, workers))))
    try:
        return simulate("duel", games, params=params, agents=list(agents), seed=seed, engine=engine,
                        workers=workers, chunk_size=block, progress=False, on_progress=on_block,
                        should_stop=should_stop)
    except RunInterrupted as exc:
        # only an unbroken prefix of games keeps the rows identical to one run of that many games
        return sweep.unbroken_prefix(exc.partial, [])


PROGRESS_BLOCK = 5000  # games per chunk when progress is watched: ~0.1 s of the compiled engine on one loaded core


def run_grid(battlefields: Sequence[str] | None = None, decks: Sequence[str] = ("regular",),
             pairings: Sequence[Sequence[str]] = (("greedy", "greedy"),), games: int = 1000, seed: int = 0, *,
             params: dict[str, Any] | None = None, extra: dict[str, Sequence[Any]] | None = None,
             engine: str | None = None, workers: int = 1, block: int | None = None,
             on_progress: Progress | None = None, should_stop: Callable[[], bool] | None = None,
             on_partial: Partial | None = None,
             tables: Callable[[pl.DataFrame], dict[str, pl.DataFrame]] | None = None) -> pl.DataFrame:
    """Play ``games`` games in every cell battlefield × deck × pairing (× each ``extra`` parameter).

    Core's one grid runner (``sweep.run_grid``) with the duel's vocabulary: ``params`` are fixed
    parameters for every cell (e.g. ``{"miss_rate": 0.1}``); ``extra`` adds grid dimensions (e.g.
    ``{"miss_rate": [0, 0.1, 0.2]}``).  Returns one row per game with a ``pairing`` column
    ("greedy vs greedy").  ``on_progress(done, total)`` reports games (every :data:`PROGRESS_BLOCK`
    games of a cell when no ``block`` is given); ``should_stop()`` ends the run early, keeping each
    cell's finished unbroken run of games — fewer rows than asked: a caller tells the two apart by
    ``on_progress``'s total (the studio shows such a run as "stopped · n of N games").  ``on_partial``
    streams ``tables(frame of the finished cells)`` (with its ``pairing`` column) cell by cell, the
    first battlefield's first deck first, a cell's miss rates together (core's ``play_grid``).
    """
    battlefields = list(battlefields or BATTLEFIELD_KEYS)
    unknown = [b for b in battlefields if b not in BATTLEFIELD_KEYS]
    if unknown:
        raise InputError(f"unknown battlefield {unknown[0]!r}; allowed: {', '.join(BATTLEFIELD_KEYS)}")
    if not pairings:
        raise InputError("give at least one agent pairing, e.g. [('greedy', 'greedy')]")
    grid = {"battlefield": battlefields, "deck": list(decks), **{k: list(v) for k, v in (extra or {}).items()}}
    keys = [*grid, "lineup"]
    if block is None and on_progress is not None:
        block = PROGRESS_BLOCK  # someone watches: a report (and a chance to stop) well within every second
    try:
        frame = play_grid("duel", grid, check_games(games), params=params, lineups=[tuple(p) for p in pairings],
                          seed=seed, workers=workers, engine=engine, chunk_size=block, on_progress=on_progress,
                          should_stop=should_stop, on_partial=on_partial,
                          tables=(lambda part: tables(part.rename({"lineup": "pairing"}))) if tables else None,
                          group=lambda cell, lineup: (*(v for k, v in cell.items() if k != "miss_rate"), lineup))
    except RunInterrupted as exc:
        frame = sweep.unbroken_prefix(exc.partial, keys)
        if frame is None:
            raise InputError("the run was stopped before any game finished") from None
    return frame.rename({"lineup": "pairing"})


def _keys(frame: pl.DataFrame, by: Sequence[str]) -> list[str]:
    return [k for k in by if k in frame.columns]


def balance_table(frame: pl.DataFrame, by: Sequence[str] = CELL_KEYS) -> pl.DataFrame:
    """Per cell: games, first-seat win rate with interval, draws, length summary, end-reason shares.

    ``first_seat_win`` counts all games (draws are not wins); ``first_seat_p`` is the exact
    binomial p-value of the first seat's share of the *decisive* games against 1/2.
    """
    keys = _keys(frame, by)
    s = metrics.summary(frame, keys)
    out = s.select(*keys, "games",
                   pl.col("first_mover_all").alias("first_seat_win"),
                   pl.col("first_mover_all_low").alias("first_seat_win_low"),
                   pl.col("first_mover_all_high").alias("first_seat_win_high"),
                   pl.col("first_mover_p").alias("first_seat_p"),
                   "draws", "draws_low", "draws_high",
                   "length_mean", "length_q10", "length_median", "length_q90")
    for reason in sorted(frame.get_column("reason").unique()):
        share = rate_table(frame, keys, pl.col("reason") == reason).select(
            *keys, pl.col("rate").alias(f"end_{reason}"), pl.col("low").alias(f"end_{reason}_low"),
            pl.col("high").alias(f"end_{reason}_high"))
        out = out.join(share, on=keys, how="left") if keys else pl.concat([out, share], how="horizontal")
    return out.sort(keys) if keys else out


def end_reason_table(frame: pl.DataFrame, by: Sequence[str] = CELL_KEYS) -> pl.DataFrame:
    """Long table: share of each end reason per cell, with intervals."""
    return metrics.end_reasons(frame, _keys(frame, by))


def length_table(frame: pl.DataFrame, by: Sequence[str] = CELL_KEYS) -> pl.DataFrame:
    """Game length per cell: n, mean, sd, min, quantiles, max (player turns)."""
    return metrics.duration(frame, _keys(frame, by), quantiles=(0.1, 0.25, 0.5, 0.75, 0.9))


def miss_effect_table(frame: pl.DataFrame, by: Sequence[str] = CELL_KEYS, alpha: float = 0.05) -> pl.DataFrame:
    """First-seat win rate at each ``miss_rate`` against ``miss_rate = 0`` (or the lowest), per cell.

    Adds the share of games lost on time (reason ``timeout``) at that miss rate.
    """
    if "miss_rate" not in frame.columns or frame.get_column("miss_rate").n_unique() < 2:
        raise InputError("the miss-rate effect needs games at two or more miss rates (extra={'miss_rate': [...]})")
    keys = _keys(frame, by)
    diff = rate_diff_table(frame, keys, first_seat_won(), "miss_rate", alpha=alpha)
    timeouts = rate_table(frame, keys + ["miss_rate"], pl.col("reason") == "timeout").select(
        *keys, "miss_rate", pl.col("rate").alias("timeout_share"), pl.col("low").alias("timeout_share_low"),
        pl.col("high").alias("timeout_share_high"))
    return diff.join(timeouts, on=keys + ["miss_rate"], how="left")


# -- charts -------------------------------------------------------------------------------------
def first_seat_chart(table: pl.DataFrame, title: str = "First-seat win rate (95 % Wilson interval)") -> Any:
    """Points with interval bars per battlefield, coloured by deck, one panel per pairing."""
    facet = "pairing" if "pairing" in table.columns and table.get_column("pairing").n_unique() > 1 else None
    color = "deck" if "deck" in table.columns else None
    return charts.rate_chart(table, "battlefield", rate="first_seat_win", low="first_seat_win_low",
                             high="first_seat_win_high", n="games", color=color, facet=facet, title=title,
                             y_title="first-seat win rate")


def _cell_label(frame: pl.DataFrame) -> pl.DataFrame:
    parts = [c for c in ("battlefield", "deck") if c in frame.columns and frame.get_column(c).n_unique() > 1]
    if "pairing" in frame.columns and frame.get_column("pairing").n_unique() > 1:
        parts.append("pairing")
    if not parts:
        parts = ["battlefield"] if "battlefield" in frame.columns else []
    if not parts:
        return frame.with_columns(pl.lit("all").alias("cell"))
    return frame.with_columns(pl.concat_str([pl.col(c).cast(pl.String) for c in parts], separator=" / ").alias("cell"))


def length_chart(frame: pl.DataFrame, color: str = "battlefield", bins: int = 40,
                 title: str = "Game length (player turns)") -> Any:
    """Histogram of game lengths per ``color`` value (normalised; small multiples beyond three groups)."""
    color_col = color if color in frame.columns and frame.get_column(color).n_unique() > 1 else None
    chart = charts.histogram(frame.select([c for c in ("length", color_col) if c]), "length", bins=bins,
                             color=color_col, normalize=True)
    if color_col is not None and frame.get_column(color_col).n_unique() > 3:
        chart = chart.properties(width=180, height=120).facet(
            facet=alt.Facet(f"{color_col}:N", title=None), columns=4)
    return chart.properties(title=title)


def end_reason_chart(frame: pl.DataFrame, title: str = "How games end") -> Any:
    """Stacked shares of the end reasons per cell (battlefield / deck / pairing)."""
    return charts.share_bars(_cell_label(frame.select([c for c in (*CELL_KEYS, "reason") if c in frame.columns])),
                             "cell", "reason", title=title)


def miss_effect_chart(table: pl.DataFrame, title: str = "Miss rule: change of the first-seat win rate") -> Any:
    """Differences against ``miss_rate = 0`` per cell, one panel per miss rate."""
    data = _cell_label(table)
    return charts.delta_chart(data, "cell", facet="miss_rate", title=title, x_title="first-seat win rate change")


def battlefield_charts(frame: pl.DataFrame) -> dict[str, alt.TopLevelMixin]:
    """The standard charts of one run: first-seat rates, lengths, end reasons."""
    return {"first_seat": first_seat_chart(balance_table(frame)), "length": length_chart(frame),
            "end_reasons": end_reason_chart(frame)}
