"""Empirical per-card rates from simulated duels, in the conventions card analysts use.

The unit is a *seat-game*: one player's side of one game (every game gives two).  A seat-game
counts as a win when that seat won; draws count as not won.  For each card (by ``id``):

* ``drawn``: seat-games in which the seat held the card at some point (opening hand included).
  A card drawn twice in one game (reshuffle, unlimited deck) counts once.
* ``wr_drawn`` — win rate when drawn (games-in-hand win rate);
* ``wr_played`` — win rate when played (at least once in that game);
* ``play_rate`` — share of the seat-games where the card was drawn in which it was also played;
* ``iwd`` — improvement when drawn: ``wr_drawn`` minus the win rate of the seat-games in which
  the card was *not* drawn, with Newcombe's interval and a two-proportion test
  (:func:`workbench.core.stats.two_proportion`).

Each rate comes with ``_low``/``_high`` (Wilson, 95 %) and ``_n``.  Pooling both seats removes
the first-seat advantage from the comparison only on average; group ``by`` battlefield and deck
when they differ.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from workbench.core.errors import InputError
from workbench.core.stats import two_proportion, wilson_exprs
from workbench.games.duel.data import CardSet, load_cards

__all__ = ["VIEWS", "card_rates", "cost_value_chart", "cost_value_frame", "costed_lists", "empirical_values",
           "seat_games"]

SEATS = ("p1", "p2")


def seat_games(frame: pl.DataFrame, by: Sequence[str] = ()) -> pl.DataFrame:
    """One row per seat-game (two per game).

    Columns: ``by``, ``row``, ``seat``, ``won``, ``drawn`` and ``played`` (lists of distinct card ids).
    """
    need = ["winner"] + [f"{k}_{s}" for s in SEATS for k in ("drawn", "played")] + list(by)
    missing = [c for c in need if c not in frame.columns]
    if missing:
        raise InputError(f"card rates need the duel result columns {missing}; columns: {', '.join(frame.columns)}")
    base = frame.select(*by, pl.col("winner")).with_row_index("row")
    parts = [
        base.with_columns(
            pl.lit(s).alias("seat"),
            (pl.col("winner") == s).alias("won"),
            frame.get_column(f"drawn_{s}").list.unique().alias("drawn"),
            frame.get_column(f"played_{s}").list.unique().alias("played"),
        ).drop("winner")
        for s in SEATS
    ]
    return pl.concat(parts, how="vertical")


def _counts(long: pl.DataFrame, column: str, keys: list[str]) -> pl.DataFrame:
    return (long.select(*keys, "won", pl.col(column).alias("id")).explode("id").drop_nulls("id")
            .group_by(keys + ["id"]).agg(pl.len().cast(pl.Int64).alias(f"{column}_n"),
                                         pl.col("won").cast(pl.Int64).sum().alias(f"{column}_k")))


def _with_rate(frame: pl.DataFrame, name: str, k: str, n: str) -> pl.DataFrame:
    low, high = wilson_exprs(k, n)
    return frame.with_columns(
        pl.when(pl.col(n) > 0).then(pl.col(k) / pl.col(n)).alias(name),
        low.alias(f"{name}_low"), high.alias(f"{name}_high"), pl.col(n).alias(f"{name}_n"))


def _iwd(frame: pl.DataFrame, alpha: float) -> pl.DataFrame:
    cols: dict[str, list] = {"iwd": [], "iwd_low": [], "iwd_high": [], "iwd_p": []}
    for kd, nd, ku, nu in frame.select("drawn_k", "drawn_n", "undrawn_k", "undrawn_n").iter_rows():
        if nd > 0 and nu > 0:
            t = two_proportion(int(kd), int(nd), int(ku), int(nu), alpha=alpha, method="z")
            vals = (t.diff, t.low, t.high, t.p_value)
        else:
            vals = (None, None, None, None)
        for key, v in zip(cols, vals, strict=True):
            cols[key].append(v)
    return frame.with_columns(*(pl.Series(k, v, dtype=pl.Float64) for k, v in cols.items()))


def card_rates(frame: pl.DataFrame, cards: CardSet | None = None, by: Sequence[str] = (),
               alpha: float = 0.05) -> pl.DataFrame:
    """Per card (and per ``by`` group): win rate when drawn / played, play rate, improvement when drawn.

    Every card of ``cards`` gets a row per group, with ``n = 0`` when it never appeared.  Columns:
    ``by``, id, key, name_en, colour, cost, ``seat_games``, then ``wr_drawn``, ``wr_played``,
    ``play_rate``, ``wr_undrawn`` each with ``_low``, ``_high``, ``_n``; then ``iwd``,
    ``iwd_low``, ``iwd_high`` and ``iwd_p``.
    """
    cards = load_cards() if cards is None else cards
    keys = list(by)
    long = seat_games(frame, keys)
    totals = long.group_by(keys).agg(pl.len().cast(pl.Int64).alias("seat_games"),
                                     pl.col("won").cast(pl.Int64).sum().alias("wins")) if keys else \
        long.select(pl.len().cast(pl.Int64).alias("seat_games"), pl.col("won").cast(pl.Int64).sum().alias("wins"))
    meta = pl.DataFrame({"id": [c.id for c in cards.cards], "key": [c.key for c in cards.cards],
                         "name_en": [c.name_en for c in cards.cards], "colour": [c.colour for c in cards.cards],
                         "cost": [c.cost for c in cards.cards]}, schema_overrides={"id": pl.Int64})
    grid = totals.join(meta, how="cross")
    out = (grid.join(_counts(long, "drawn", keys), on=keys + ["id"], how="left")
           .join(_counts(long, "played", keys), on=keys + ["id"], how="left")
           .with_columns(pl.col("drawn_n", "drawn_k", "played_n", "played_k").fill_null(0))
           .with_columns((pl.col("seat_games") - pl.col("drawn_n")).alias("undrawn_n"),
                         (pl.col("wins") - pl.col("drawn_k")).alias("undrawn_k")))
    # a card is played only after it is drawn, so played seat-games are a subset of drawn ones
    out = _with_rate(out, "wr_drawn", "drawn_k", "drawn_n")
    out = _with_rate(out, "wr_played", "played_k", "played_n")
    out = _with_rate(out, "play_rate", "played_n", "drawn_n")
    out = _with_rate(out, "wr_undrawn", "undrawn_k", "undrawn_n")
    out = _iwd(out, alpha)
    rates = [c for r in ("wr_drawn", "wr_played", "play_rate", "wr_undrawn")
             for c in (r, f"{r}_low", f"{r}_high", f"{r}_n")]
    return (out.select(*keys, "id", "key", "name_en", "colour", "cost", "seat_games", *rates,
                       "iwd", "iwd_low", "iwd_high", "iwd_p")
            .sort(keys + ["id"]))


def empirical_values(rates: pl.DataFrame) -> pl.DataFrame:
    """Put improvement-when-drawn on the cost scale: ``emp_value``, ``emp_residual``, ``iwd_residual``.

    Improvement when drawn (win-rate points) and cost (resource units) are matched by the
    reduced-major-axis line through the cards — the line that gives the empirical values the same
    mean and spread as the costs, ``emp_value = mean(cost) + (iwd − mean(iwd)) · sd(cost) / sd(iwd)``
    (the ordinary regression line would shrink them towards the mean when iwd is noisy).
    ``emp_residual = cost − emp_value``: > 0 means over-costed (the card helps less than cards of
    its cost), < 0 under-costed.  ``iwd_residual`` is iwd minus the least-squares line of iwd on
    cost (win-rate points).  Cards never drawn get nulls.
    """
    ok = rates.filter(pl.col("iwd").is_not_null())
    nulls = [pl.lit(None, pl.Float64).alias(c) for c in ("iwd_residual", "emp_value", "emp_residual")]
    if ok.height < 3:
        return rates.with_columns(nulls)
    x = ok.get_column("cost").cast(pl.Float64).to_numpy()
    y = ok.get_column("iwd").to_numpy()
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return rates.with_columns(nulls)
    b, a = np.polyfit(x, y, 1)
    out = rates.with_columns((pl.col("iwd") - (a + b * pl.col("cost"))).alias("iwd_residual"))
    scale = float(x.std() / y.std())
    return out.with_columns((float(x.mean()) + (pl.col("iwd") - float(y.mean())) * scale).alias("emp_value")) \
        .with_columns((pl.col("cost") - pl.col("emp_value")).alias("emp_residual"))


# -- both views side by side --------------------------------------------------------------------
VIEWS = ("static model", "empirical (improvement when drawn)")


def cost_value_frame(costing: pl.DataFrame, rates: pl.DataFrame, outliers: int = 5) -> pl.DataFrame:
    """Long frame for the cost-vs-value chart: one row per card and view.

    ``costing`` is :func:`workbench.games.duel.valuation.costing_table`, ``rates`` the output of
    :func:`empirical_values`.  Columns: key, name_en, colour, cost, value, residual (cost −
    value), view, outlier (the ``outliers`` largest |residual| of each view).
    """
    static = costing.select("key", "name_en", "colour", "cost", "value", "residual",
                            pl.lit(VIEWS[0]).alias("view"))
    emp = rates.filter(pl.col("emp_value").is_not_null()).select(
        "key", "name_en", "colour", "cost", pl.col("emp_value").alias("value"),
        pl.col("emp_residual").alias("residual"), pl.lit(VIEWS[1]).alias("view"))
    both = pl.concat([static, emp.cast(static.schema)], how="vertical")
    rank = pl.col("residual").abs().rank("ordinal", descending=True).over("view")
    return both.with_columns((rank <= outliers).alias("outlier"))


def cost_value_chart(frame: pl.DataFrame, title: str = "Cost against value (cost units)") -> Any:
    """One scatter per view: cost (x) against value (y), the line value = cost, outliers labelled."""
    import altair as alt

    from workbench.core import charts

    panels = []
    for view in VIEWS:
        data = frame.filter(pl.col("view") == view)
        if data.height == 0:
            continue
        top = float(max(data.get_column("cost").max(), data.get_column("value").max()))
        low = float(min(0.0, data.get_column("value").min()))
        diagonal = alt.Chart(pl.DataFrame({"cost": [low, top], "value": [low, top]})).mark_line(
            strokeDash=[4, 4], color="gray").encode(x="cost:Q", y="value:Q")
        scatter = charts.scatter(data, "cost", "value", label="key", outliers="outlier", title=view)
        panels.append(alt.layer(diagonal, *scatter.layer, data=scatter.data).properties(title=view, width=330,
                                                                                        height=300))
    if not panels:
        raise InputError("cost-vs-value chart: no cards to draw")
    return alt.hconcat(*panels).properties(title=title)


def costed_lists(frame: pl.DataFrame, n: int = 5) -> pl.DataFrame:
    """The ``n`` most over- and under-costed cards of each view (rank, view, side, key, cost, value, residual)."""
    parts = []
    for view in frame.get_column("view").unique(maintain_order=True).to_list():
        data = frame.filter(pl.col("view") == view)
        for side, descending in (("over-costed", True), ("under-costed", False)):
            top = data.sort("residual", descending=descending).head(n).with_row_index("rank", offset=1)
            parts.append(top.select("view", pl.lit(side).alias("side"), "rank", "key", "name_en", "colour", "cost",
                                    "value", "residual"))
    return pl.concat(parts, how="vertical")
