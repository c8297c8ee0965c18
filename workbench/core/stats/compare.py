"""Paired comparisons of two runs of one game on common random numbers.

A what-if plays the same games twice — a baseline and a variant (other parameters, edited data)
— on the same master seed, so game ``i`` of both arms starts from the same game seed.  A per-game
event (the first seat won, a draw, an end reason) is compared pair by pair: only the discordant
pairs carry information, and the exact paired test is the binomial test of the games the variant
*gained* against the games it *lost* at 1/2 (McNemar's exact test).  The difference's interval is
the one that test inverts (:func:`paired_interval`: Clopper–Pearson on the gained share of the
discordant games), so an interval excludes 0 exactly when the test says significant; each rate
has its Wilson interval.

A *score* (``first_seat_score``: a game counts 1 for a win, ½ for a draw, 0 for a loss) is compared
pair by pair too: the per-game differences take five values (−1, −½, 0, ½, 1), and the paired test
is the exact one above when every game that differs differs by the same amount (no draw involved),
else the studentized one (:func:`paired_score_difference`: the paired t-test, n − 1 degrees of
freedom); its interval is the one that test inverts, so here too an interval excludes 0 exactly
when the test says significant.

When several metrics are tested at once (:func:`compare_outcomes`, :func:`paired_verdicts`: the
what-if), the p-values are corrected by Holm's step-down method and each interval is drawn at its
Holm step's level — so the interval still excludes 0 exactly when the corrected test says
significant, and a table, its text and a chart's colour all read the same verdict.

Frames that are not paired (other master seed, other game indices, other lengths, game seeds
that differ) are refused with an error that says what differs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from workbench.core.errors import InputError
from workbench.core.lazy import lazy
from workbench.core.stats import metrics
from workbench.core.stats.rates import binom_pvalue, wilson

_sp = lazy("scipy.stats")

__all__ = ["compare_cells", "compare_outcomes", "first_seat_score", "first_seat_won", "holm", "outcome_events",
           "paired_difference", "paired_frames", "paired_interval", "paired_score_difference", "paired_verdicts"]


def first_seat_won() -> pl.Expr:
    """True when the seat that moved first won (a draw is not a win)."""
    return pl.col("winner") == pl.col("first_seat")


def first_seat_score() -> pl.Expr:
    """The first seat's score of a game: 1 for a win, ½ for a draw, 0 for a loss (and without a first seat)."""
    return (pl.when(pl.col("first_seat").is_null()).then(pl.lit(0.0))
            .when(pl.col("winner") == pl.col("first_seat")).then(pl.lit(1.0))
            .when(pl.col("winner") == "draw").then(pl.lit(0.5))
            .otherwise(pl.lit(0.0)))


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


def _paired_n(b: np.ndarray, v: np.ndarray) -> int:
    """The number of paired games; refused when the arms differ in length or hold no game."""
    if b.shape != v.shape:
        raise InputError(f"paired arms need the same games: {b.size} baseline values, {v.size} variant values")
    if b.size == 0:
        raise InputError("no games to compare")
    return int(b.size)


def paired_difference(baseline: Any, variant: Any, alpha: float = 0.05) -> dict[str, Any]:
    """Compare a per-game event between two paired arms (element ``i`` of both is the same game).

    ``baseline``/``variant``: booleans (a polars Series or a sequence; null counts as False).
    Returns ``n``; ``base`` and ``variant`` rates with ``_low``/``_high`` (Wilson at ``1 − alpha``);
    ``diff`` = variant − base with ``low``/``high`` (:func:`paired_interval` at ``1 − alpha``, the
    interval the test inverts); ``p_value`` (exact paired test of the discordant games),
    ``significant`` (``p_value < alpha``: the same as the interval excluding 0) and ``discordant``.
    """
    b, v = _flags(baseline), _flags(variant)
    n = _paired_n(b, v)
    k_base, k_var = int(b.sum()), int(v.sum())
    gained, lost = int((v & ~b).sum()), int((b & ~v).sum())
    p = binom_pvalue(gained, gained + lost, 0.5)
    lo_b, hi_b = wilson(k_base, n, 1 - alpha)
    lo_v, hi_v = wilson(k_var, n, 1 - alpha)
    low, high = paired_interval(gained, lost, n, 1 - alpha)
    return {"n": n, "base": k_base / n, "base_low": lo_b, "base_high": hi_b, "variant": k_var / n,
            "variant_low": lo_v, "variant_high": hi_v, "diff": (k_var - k_base) / n, "low": low, "high": high,
            "p_value": p, "significant": bool(p < alpha), "discordant": gained + lost}


def _scores(values: Any) -> np.ndarray:
    if isinstance(values, pl.Series):
        values = values.cast(pl.Float64).fill_null(0.0).to_numpy()
    out = np.asarray(values, dtype=float)
    if out.size and (out.min() < 0 or out.max() > 1):
        raise InputError(f"a game's score lies in [0, 1] (1 a win, 0.5 a draw, 0 a loss), got {out.min()}..{out.max()}")
    return out


def _score_test(d: np.ndarray, confidence: float) -> tuple[float, float, float]:
    """``(p_value, low, high)`` of the mean of paired score differences ``d`` and the interval its test inverts.

    When every game that differs differs by the same amount (no draw involved: ±1; or only ±½), the
    score is an event scaled by that amount, and the test is the exact paired one of
    :func:`paired_difference` with :func:`paired_interval` scaled (so without draws the score reads the
    win rate's verdict, number for number).  Otherwise (differences of ½ and 1 mixed) it is the
    studentized paired test: mean ± t quantile × standard error, n − 1 degrees of freedom.  Either
    way the interval excludes 0 exactly when ``p_value < 1 − confidence``.
    """
    n = int(d.size)
    moved = np.abs(d[d != 0])
    if moved.size == 0 or np.all(moved == moved[0]):
        step = float(moved[0]) if moved.size else 1.0
        gained, lost = int((d > 0).sum()), int((d < 0).sum())
        low, high = paired_interval(gained, lost, n, confidence)
        return binom_pvalue(gained, gained + lost, 0.5), step * low, step * high
    diff, se = float(d.mean()), float(d.std(ddof=1)) / np.sqrt(n)  # two sizes of difference: n >= 2, se > 0
    p = float(min(1.0, 2 * _sp.t.sf(abs(diff) / se, n - 1)))
    q = float(_sp.t.ppf(1 - (1 - confidence) / 2, n - 1))
    return p, max(-1.0, diff - q * se), min(1.0, diff + q * se)


def paired_score_difference(baseline: Any, variant: Any, alpha: float = 0.05) -> dict[str, Any]:
    """Compare a per-game score (1 a win, ½ a draw, 0 a loss) between two paired arms.

    The same columns as :func:`paired_difference`: ``base``/``variant`` are mean scores with their
    Wilson intervals (on the score's count, a draw counting ½), ``diff`` = variant − base with
    ``low``/``high`` and ``p_value`` from the paired test of :func:`_score_test`, and
    ``discordant`` the games whose score differs between the arms.
    """
    b, v = _scores(baseline), _scores(variant)
    n = _paired_n(b, v)
    d = v - b
    p, low, high = _score_test(d, 1 - alpha)
    lo_b, hi_b = wilson(float(b.sum()), n, 1 - alpha)
    lo_v, hi_v = wilson(float(v.sum()), n, 1 - alpha)
    return {"n": n, "base": float(b.mean()), "base_low": lo_b, "base_high": hi_b, "variant": float(v.mean()),
            "variant_low": lo_v, "variant_high": hi_v, "diff": float(d.mean()), "low": low, "high": high,
            "p_value": p, "significant": bool(p < alpha), "discordant": int(np.count_nonzero(d))}


def _is_score(values: pl.Series) -> bool:
    return values.dtype.is_float()


def _compared(b: pl.Series, v: pl.Series, alpha: float) -> dict[str, Any]:
    """:func:`paired_score_difference` of a score (a float column), else :func:`paired_difference`."""
    return paired_score_difference(b, v, alpha) if _is_score(b) or _is_score(v) else paired_difference(b, v, alpha)


def _gained_lost(b: pl.Series, v: pl.Series) -> tuple[int, int]:
    """The games the variant scored more in, and fewer."""
    if _is_score(b) or _is_score(v):
        d = _scores(v) - _scores(b)
        return int((d > 0).sum()), int((d < 0).sum())
    fb, fv = _flags(b), _flags(v)
    return int((fv & ~fb).sum()), int((fb & ~fv).sum())


def _interval_at(b: pl.Series, v: pl.Series, confidence: float) -> tuple[float, float]:
    """The paired difference's interval at ``confidence``: the one its test inverts."""
    if _is_score(b) or _is_score(v):
        _, low, high = _score_test(_scores(v) - _scores(b), confidence)
        return low, high
    gained, lost = _gained_lost(b, v)
    return paired_interval(gained, lost, int(b.len()), confidence)


# -- outcome tables -------------------------------------------------------------------------------
def outcome_events(baseline: pl.DataFrame, variant: pl.DataFrame) -> dict[str, pl.Expr]:
    """The shared per-game events of two frames, name → boolean expression.

    ``first_seat_score`` (a float per game: 1 won, ½ drawn, 0 lost) and ``first_seat_win`` (when some
    game has a first seat), ``<seat>_win`` for every seat but the last (whose rate the others and the
    draws determine: ``p1_win`` in a two-seat game), ``draw`` and ``end_<reason>`` for every end
    reason found in either frame.
    """
    frames = (baseline, variant)
    events: dict[str, pl.Expr] = {}
    if any("first_seat" in f.columns and f.get_column("first_seat").is_not_null().any() for f in frames):
        events["first_seat_score"] = first_seat_score()
        events["first_seat_win"] = first_seat_won()
    seats = list(dict.fromkeys(metrics.seats(baseline) + metrics.seats(variant)))
    events |= {f"{s}_win": pl.col("winner") == s for s in seats[:max(1, len(seats) - 1)]}
    events["draw"] = pl.col("winner") == "draw"
    reasons = set().union(*(f.get_column("reason").drop_nulls().to_list() for f in frames if "reason" in f.columns))
    return events | {f"end_{r}": pl.col("reason") == r for r in sorted(reasons)}


def _table(b: pl.DataFrame, v: pl.DataFrame, events: dict[str, pl.Expr], alpha: float) -> pl.DataFrame:
    rows = [{"metric": name, **_compared(b.select(e).to_series(), v.select(e).to_series(), alpha)}
            for name, e in events.items()]
    out = pl.DataFrame(rows)
    if "length" in b.columns and "length" in v.columns:
        out = out.with_columns(pl.lit(b.get_column("length").mean()).alias("length_base"),
                               pl.lit(v.get_column("length").mean()).alias("length_variant"))
    return out


def compare_outcomes(baseline: pl.DataFrame, variant: pl.DataFrame, alpha: float = 0.05,
                     events: dict[str, pl.Expr] | None = None) -> pl.DataFrame:
    """Per metric: baseline and variant rate with intervals, difference, exact paired p-value, Holm-corrected.

    The metrics are :func:`outcome_events` plus ``events`` (more per-game booleans, name →
    expression); the columns are ``metric`` and :func:`paired_difference`'s, then ``p_holm`` (the
    p-value Holm-corrected over all the metrics) and ``confidence`` (the level of the metric's Holm
    step, at which ``low``/``high`` are drawn), with ``significant`` = ``p_holm < alpha`` — the same
    as the interval excluding 0 — and then the mean ``length`` of each arm.  Both frames must hold
    the same games (:func:`paired_frames`).
    """
    b, v = paired_frames(baseline, variant)
    tested = outcome_events(b, v) | dict(events or {})
    table = _table(b, v, tested, alpha)
    adjusted, levels = holm(table.get_column("p_value").to_list(), alpha)
    lows, highs = [], []
    for e, level in zip(tested.values(), levels, strict=True):
        low, high = _interval_at(b.select(e).to_series(), v.select(e).to_series(), 1 - level)
        lows.append(low)
        highs.append(high)
    corrected = table.with_columns(pl.Series("low", lows), pl.Series("high", highs),
                                   pl.Series("significant", [p < alpha for p in adjusted]),
                                   pl.Series("p_holm", adjusted), pl.Series("confidence", [1 - x for x in levels]))
    first = [c for c in table.columns if not c.startswith("length_")]
    return corrected.select(*first, "p_holm", "confidence", *[c for c in table.columns if c.startswith("length_")])


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


# -- one verdict per metric, corrected for multiplicity -------------------------------------------
def holm(p_values: Sequence[float], alpha: float = 0.05) -> tuple[list[float], list[float]]:
    """Holm's step-down correction of ``p_values``: the adjusted p-values and each test's own level.

    The ``r``-th smallest p-value is tested at ``alpha / (m − r + 1)`` while every smaller one was
    rejected; from the first that is not rejected on, every test keeps that first failing level.
    A test is rejected exactly when its adjusted p-value is below ``alpha``, and exactly when its
    p-value is below its level — so an interval drawn at ``1 − level`` agrees with the verdict.
    """
    if not 0 < alpha < 1:
        raise InputError(f"alpha must be in (0, 1), got {alpha!r}")
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted, levels = [1.0] * m, [alpha] * m
    running, stopped_at = 0.0, None
    for rank, i in enumerate(order):
        step = alpha / (m - rank)
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
        if stopped_at is None and p_values[i] >= step:
            stopped_at = step
        levels[i] = step if stopped_at is None else stopped_at
    return adjusted, levels


def paired_interval(gained: int, lost: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The interval of a paired difference (variant − baseline) that the exact paired test inverts.

    Given the ``gained + lost`` discordant games of ``n`` pairs, the difference is
    ``(gained − lost) / n = d/n · (2π − 1)`` with π the gained share; π's Clopper–Pearson interval
    (the exact binomial test at 1/2 inverted) maps to the difference's.  It excludes 0 exactly when
    that test's p-value is below ``1 − confidence``.  With no discordant game the difference is 0
    and its interval ± the Clopper–Pearson upper bound of the discordance rate (0 of ``n``).
    """
    if n <= 0 or gained < 0 or lost < 0 or gained + lost > n:
        raise InputError(f"a paired interval needs 0 <= gained + lost <= n and n > 0, got {gained}, {lost}, {n}")
    a = 1 - confidence
    d = gained + lost
    if d == 0:
        bound = 1 - (a / 2) ** (1 / n)
        return -bound, bound
    low = float(_sp.beta.ppf(a / 2, gained, lost + 1)) if gained > 0 else 0.0
    high = float(_sp.beta.ppf(1 - a / 2, gained + 1, lost)) if lost > 0 else 1.0
    return d / n * (2 * low - 1), d / n * (2 * high - 1)


def paired_verdicts(baseline: pl.DataFrame, variant: pl.DataFrame, alpha: float = 0.05,
                    events: dict[str, pl.Expr] | None = None) -> pl.DataFrame:
    """One consistent verdict per metric of two paired runs, corrected for testing several at once.

    :func:`compare_outcomes` as a person reads it: per metric ``n``, both rates with their Wilson
    intervals (95 %, descriptive), ``diff`` (variant − baseline) with ``low``/``high`` from
    :func:`paired_interval` (a score: :func:`paired_score_difference`'s interval) at the metric's Holm
    level ``confidence``, ``p_value`` (the paired test), ``p_holm`` (Holm-adjusted over all the
    metrics), ``significant`` (``p_holm < alpha``, the same as the interval excluding 0), ``gained``
    and ``lost`` (the games the variant scored more and fewer in), then the mean ``length`` of each arm.
    """
    table = compare_outcomes(baseline, variant, alpha, events)
    if alpha != 0.05:  # the arms' own intervals stay descriptive 95 % ones
        b, v = paired_frames(baseline, variant)
        found = compare_outcomes(b, v, 0.05, events)
        table = table.with_columns(found.select("base_low", "base_high", "variant_low", "variant_high"))
    b, v = paired_frames(baseline, variant)
    counted = [_gained_lost(b.select(e).to_series(), v.select(e).to_series())
               for e in (outcome_events(b, v) | dict(events or {})).values()]
    table = table.with_columns(pl.Series("gained", [g for g, _ in counted], dtype=pl.Int64),
                               pl.Series("lost", [lost for _, lost in counted], dtype=pl.Int64))
    order = ["metric", "n", "base", "base_low", "base_high", "variant", "variant_low", "variant_high", "diff", "low",
             "high", "confidence", "p_value", "p_holm", "significant", "gained", "lost"]
    return table.select(*order, *[c for c in table.columns if c.startswith("length_")])
