"""Paired comparisons of two runs of one game on common random numbers.

A what-if plays the same games twice — a baseline and a variant (other parameters, edited data)
— on the same master seed, so game ``i`` of both arms starts from the same game seed.  A per-game
event (the first seat won, a draw, an end reason) is compared pair by pair: only the discordant
pairs carry information, and the exact paired test is the binomial test of the games the variant
*gained* against the games it *lost* at 1/2 (McNemar's exact test).  The difference's interval is
Newcombe's (unpaired, so slightly conservative); each rate has its Wilson interval.

Frames that are not paired (other master seed, other game indices, other lengths, game seeds
that differ) are refused with an error that says what differs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from workbench.core import metrics
from workbench.core.errors import InputError
from workbench.core.stats import binom_pvalue, two_proportion, wilson

__all__ = ["compare_cells", "compare_outcomes", "first_seat_won", "outcome_events", "paired_difference",
           "paired_frames"]


def first_seat_won() -> pl.Expr:
    """True when the seat that moved first won (a draw is not a win)."""
    return pl.col("winner") == pl.col("first_seat")


# -- pairing --------------------------------------------------------------------------------------
def _span(indices: list[int]) -> str:
    return f"{indices[0]}..{indices[-1]}" if indices else "none"


def paired_frames(baseline: pl.DataFrame, variant: pl.DataFrame,
                  where: str = "") -> tuple[pl.DataFrame, pl.DataFrame]:
    """Both frames sorted by ``game_index``, once they are known to hold the same games.

    Paired means: the same number of games, the same game indices (each once), the same master
    seed and, game by game, the same game seed (where the frames carry those columns).  Anything
    else raises :class:`InputError` naming what differs (prefixed by ``where``, e.g. a cell).
    """
    prefix = f"{where}: " if where else ""
    _check_shape(baseline, variant, prefix)
    b, v = baseline.sort("game_index"), variant.sort("game_index")
    _check_seeds(b, v, prefix)
    return b, v


def _check_shape(baseline: pl.DataFrame, variant: pl.DataFrame, prefix: str) -> None:
    for name, frame in (("baseline", baseline), ("variant", variant)):
        if "game_index" not in frame.columns:
            raise InputError(f"{prefix}the {name} frame has no game_index column; pair runs from simulate()")
    if baseline.height != variant.height:
        raise InputError(f"{prefix}the runs are not paired: the baseline has {baseline.height} games, the variant "
                         f"{variant.height}; play both with the same games and seed")
    for name, frame in (("baseline", baseline), ("variant", variant)):
        if frame.get_column("game_index").n_unique() != frame.height:
            raise InputError(f"{prefix}game_index repeats in the {name} frame (several cells?); compare per cell "
                             "with compare_cells")


def _check_seeds(b: pl.DataFrame, v: pl.DataFrame, prefix: str) -> None:
    """Same indices, master seed and game seeds in two frames sorted by game_index."""
    ib, iv = b.get_column("game_index").to_list(), v.get_column("game_index").to_list()
    if ib != iv:
        at = next(i for i, (x, y) in enumerate(zip(ib, iv, strict=True)) if x != y)
        raise InputError(f"{prefix}the runs are not paired: their game indices differ (baseline {_span(ib)}, "
                         f"variant {_span(iv)}; first difference: {ib[at]} against {iv[at]})")
    if "master_seed" in b.columns and "master_seed" in v.columns:
        sb, sv = (sorted(f.get_column("master_seed").unique().to_list()) for f in (b, v))
        if sb != sv:
            raise InputError(f"{prefix}the runs are not paired: master seed {', '.join(map(str, sb))} in the "
                             f"baseline, {', '.join(map(str, sv))} in the variant; play both on the same seed")
    if "game_seed" in b.columns and "game_seed" in v.columns:
        differ = b.get_column("game_seed") != v.get_column("game_seed")
        if differ.any():
            at = int(differ.arg_true()[0])
            raise InputError(f"{prefix}the runs are not paired: game {ib[at]} has game seed "
                             f"{b['game_seed'][at]} in the baseline and {v['game_seed'][at]} in the variant")


# -- one event ------------------------------------------------------------------------------------
def _flags(values: Any) -> np.ndarray:
    if isinstance(values, pl.Series):
        values = values.cast(pl.Boolean).fill_null(False).to_numpy()
    return np.asarray(values, dtype=bool)


def paired_difference(baseline: Any, variant: Any, alpha: float = 0.05) -> dict[str, Any]:
    """Compare a per-game event between two paired arms (element ``i`` of both is the same game).

    ``baseline``/``variant``: booleans (a polars Series or a sequence; null counts as False).
    Returns ``n``; ``base`` and ``variant`` rates with ``_low``/``_high`` (Wilson at ``1 − alpha``);
    ``diff`` = variant − base with ``low``/``high`` (Newcombe); ``p_value`` (exact paired test of
    the discordant games), ``significant`` (``p_value < alpha``) and ``discordant``.
    """
    b, v = _flags(baseline), _flags(variant)
    if b.shape != v.shape:
        raise InputError(f"paired arms need the same games: {b.size} baseline values, {v.size} variant values")
    n = int(b.size)
    if n == 0:
        raise InputError("no games to compare")
    k_base, k_var = int(b.sum()), int(v.sum())
    t = two_proportion(k_var, n, k_base, n, alpha=alpha, method="z")
    gained, lost = int((v & ~b).sum()), int((b & ~v).sum())
    p = binom_pvalue(gained, gained + lost, 0.5)
    lo_b, hi_b = wilson(k_base, n, 1 - alpha)
    lo_v, hi_v = wilson(k_var, n, 1 - alpha)
    return {"n": n, "base": k_base / n, "base_low": lo_b, "base_high": hi_b, "variant": k_var / n,
            "variant_low": lo_v, "variant_high": hi_v, "diff": t.diff, "low": t.low, "high": t.high,
            "p_value": p, "significant": bool(p < alpha), "discordant": gained + lost}


# -- outcome tables -------------------------------------------------------------------------------
def outcome_events(baseline: pl.DataFrame, variant: pl.DataFrame) -> dict[str, pl.Expr]:
    """The shared per-game events of two frames, name → boolean expression.

    ``first_seat_win`` (when some game has a first seat), ``<seat>_win`` for every seat but the
    last (whose rate the others and the draws determine: ``p1_win`` in a two-seat game), ``draw``
    and ``end_<reason>`` for every end reason found in either frame.
    """
    frames = (baseline, variant)
    events: dict[str, pl.Expr] = {}
    if any("first_seat" in f.columns and f.get_column("first_seat").is_not_null().any() for f in frames):
        events["first_seat_win"] = first_seat_won()
    seats = list(dict.fromkeys(metrics.seats(baseline) + metrics.seats(variant)))
    events |= {f"{s}_win": pl.col("winner") == s for s in seats[:max(1, len(seats) - 1)]}
    events["draw"] = pl.col("winner") == "draw"
    reasons = set().union(*(f.get_column("reason").drop_nulls().to_list() for f in frames if "reason" in f.columns))
    return events | {f"end_{r}": pl.col("reason") == r for r in sorted(reasons)}


def _table(b: pl.DataFrame, v: pl.DataFrame, events: dict[str, pl.Expr], alpha: float) -> pl.DataFrame:
    rows = [{"metric": name, **paired_difference(b.select(e).to_series(), v.select(e).to_series(), alpha)}
            for name, e in events.items()]
    out = pl.DataFrame(rows)
    if "length" in b.columns and "length" in v.columns:
        out = out.with_columns(pl.lit(b.get_column("length").mean()).alias("length_base"),
                               pl.lit(v.get_column("length").mean()).alias("length_variant"))
    return out


def compare_outcomes(baseline: pl.DataFrame, variant: pl.DataFrame, alpha: float = 0.05,
                     events: dict[str, pl.Expr] | None = None) -> pl.DataFrame:
    """Per metric: baseline and variant rate with intervals, difference, exact paired p-value.

    The metrics are :func:`outcome_events` plus ``events`` (more per-game booleans, name →
    expression); the columns are ``metric`` and :func:`paired_difference`'s, then the mean
    ``length`` of each arm.  Both frames must hold the same games (:func:`paired_frames`).
    """
    b, v = paired_frames(baseline, variant)
    return _table(b, v, outcome_events(b, v) | dict(events or {}), alpha)


def _cell_text(cell: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in cell.items()) or "the whole run"


def _cells(frame: pl.DataFrame, keys: list[str]) -> list[dict[str, Any]]:
    if not keys:
        return [{}]
    return frame.select(keys).unique(maintain_order=True).to_dicts()


def _check_cells(cells_b: list[dict], cells_v: list[dict]) -> None:
    only_b = [c for c in cells_b if c not in cells_v]
    only_v = [c for c in cells_v if c not in cells_b]
    if only_b or only_v:
        parts = [f"only in the {name}: {'; '.join(_cell_text(c) for c in cells[:5])}"
                 + (f" (+{len(cells) - 5} more)" if len(cells) > 5 else "")
                 for name, cells in (("baseline", only_b), ("variant", only_v)) if cells]
        raise InputError(f"the runs are not paired: they hold different cells ({'; '.join(parts)}); "
                         "pass common_games=True to compare the cells and games both hold")


def compare_cells(baseline: pl.DataFrame, variant: pl.DataFrame, by: Sequence[str], alpha: float = 0.05,
                  metric: str = "first_seat_win", common_games: bool = False) -> pl.DataFrame:
    """One paired comparison of ``metric`` per cell of ``by`` (e.g. battlefield × deck × pairing).

    Both frames come from the same grid on the same seed; games pair by cell and ``game_index``.
    Columns: the cell keys, then :func:`compare_outcomes`' columns for ``metric``.  Cells or games
    held by one frame only are refused, unless ``common_games`` (e.g. a run stopped early): then
    only the cells and games both frames hold are compared — still refused on other seeds.
    """
    keys = list(by)
    for name, frame in (("baseline", baseline), ("variant", variant)):
        missing = [k for k in keys if k not in frame.columns]
        if missing:
            raise InputError(f"cell columns {missing} are not in the {name} frame; columns: {', '.join(frame.columns)}")
    cells_b, cells_v = _cells(baseline, keys), _cells(variant, keys)
    if not common_games:
        _check_cells(cells_b, cells_v)
    compared = (_compare_cell(baseline, variant, cell, metric, alpha, common_games) for cell in cells_b
                if cell in cells_v)
    rows = [row for row in compared if row is not None]
    if not rows:
        raise InputError("the two runs share no cell and games to compare")
    frame = pl.concat(rows, how="diagonal_relaxed")
    return frame.select(*keys, *[c for c in frame.columns if c not in keys])


def _compare_cell(baseline: pl.DataFrame, variant: pl.DataFrame, cell: dict[str, Any], metric: str, alpha: float,
                  common_games: bool) -> pl.DataFrame | None:
    """One row of :func:`compare_cells` (None when ``common_games`` and the frames share no game of the cell)."""
    match = pl.all_horizontal([pl.col(k).eq_missing(v) for k, v in cell.items()]) if cell else pl.lit(True)
    b, v = baseline.filter(match), variant.filter(match)
    if common_games:
        common = sorted(set(b.get_column("game_index").to_list()) & set(v.get_column("game_index").to_list()))
        b, v = b.filter(pl.col("game_index").is_in(common)), v.filter(pl.col("game_index").is_in(common))
        if b.height == 0:
            return None
    b, v = paired_frames(b, v, where=f"cell {_cell_text(cell)}")
    events = outcome_events(b, v)
    if metric not in events:
        raise InputError(f"unknown metric {metric!r}; allowed: {', '.join(events)}")
    return _table(b, v, {metric: events[metric]}, alpha).with_columns(
        *(pl.lit(val, dtype=baseline.schema[k]).alias(k) for k, val in cell.items()))
