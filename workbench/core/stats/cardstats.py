"""Empirical per-card rates from simulated games of any card game, in the conventions card analysts use.

Frame convention: ``winner`` (``p1``.. or ``draw``) and, for every seat ``s``, the list columns
``drawn_<s>`` and ``played_<s>`` of the card ids that seat drew and played.  The unit is a
*seat-game*: one player's side of one game.  A seat-game counts as a win when that seat won;
draws count as not won.  For each card (by ``id``):

* ``drawn``: seat-games in which the seat held the card at some point (opening hand included).
  A card drawn twice in one game (reshuffle, several copies) counts once.
* ``wr_drawn`` — win rate when drawn (games-in-hand win rate);
* ``wr_played`` — win rate when played (at least once in that game);
* ``play_rate`` — share of the seat-games where the card was drawn in which it was also played;
* ``iwd`` — improvement when drawn: ``wr_drawn`` minus the win rate of the seat-games in which
  the card was *not* drawn, with Newcombe's interval and a two-proportion test
  (:func:`workbench.core.stats.rates.two_proportion`).

Each rate comes with ``_low``/``_high`` (Wilson, 95 %) and ``_n``.  Pooling the seats removes
the first-seat advantage from the comparison only on average; group ``by`` the parameters that
differ.  The card table (``id`` plus any columns, e.g. name and cost) is passed through.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from workbench.core.errors import InputError
from workbench.core.stats.rates import two_proportion, wilson_exprs

__all__ = ["COST_FLAGS", "IN_LINE", "OVER", "RATES", "UNDER", "VIEWS", "card_rates", "card_seats", "card_table",
           "compare_card_rates", "cost_flags", "cost_value_frame", "costed_lists",
           "empirical_values", "flag_alpha", "seat_games"]

RATES = ("wr_drawn", "wr_played", "play_rate", "wr_undrawn")
_CARD_COLUMN = re.compile(r"(drawn|played)_(p[0-9]+)")


# -- inputs ---------------------------------------------------------------------------------------
def card_seats(frame: pl.DataFrame) -> list[str]:
    """The seats with card columns (``drawn_<s>`` and ``played_<s>``), in seat order."""
    found: dict[str, set[str]] = {}
    for column in frame.columns:
        m = _CARD_COLUMN.fullmatch(column)
        if m:
            found.setdefault(m.group(2), set()).add(m.group(1))
    need = ["winner"] + [f"{k}_{s}" for s in found for k in ("drawn", "played") if k not in found[s]]
    missing = [c for c in need if c not in frame.columns]
    if missing or not found:
        raise InputError(f"card rates need the columns winner, drawn_<seat> and played_<seat> (lists of card ids, "
                         f"e.g. drawn_p1); missing {missing or ['drawn_p1', 'played_p1']}; columns: "
                         f"{', '.join(frame.columns)}")
    return sorted(found, key=lambda s: int(s[1:]))


def card_table(cards: pl.DataFrame | Mapping[Any, Any]) -> pl.DataFrame:
    """The card table as a frame with a unique ``id`` column (a mapping id → name gives ``id``, ``name``)."""
    if isinstance(cards, Mapping):
        cards = pl.DataFrame({"id": list(cards), "name": [str(v) for v in cards.values()]})
    if not isinstance(cards, pl.DataFrame) or "id" not in cards.columns:
        raise InputError("the card table must be a polars frame with an 'id' column (or a mapping id → name)")
    if cards.get_column("id").n_unique() != cards.height or cards.get_column("id").null_count():
        dup = cards.filter(pl.col("id").is_duplicated()).get_column("id").unique().to_list()[:5]
        raise InputError(f"card ids must be unique and present; repeated: {dup}")
    return cards


def seat_games(frame: pl.DataFrame, by: Sequence[str] = (), distinct: bool = True) -> pl.DataFrame:
    """One row per seat-game (one per seat and game).

    Columns: ``by``, ``row``, ``seat``, ``won``, ``drawn`` and ``played`` (lists of distinct card ids; as the
    game recorded them when not ``distinct``: a caller that counts each card once itself).
    """
    seats = card_seats(frame)
    missing = [c for c in by if c not in frame.columns]
    if missing:
        raise InputError(f"group columns {missing} are not in the frame; columns: {', '.join(frame.columns)}")
    base = frame.select(*by, pl.col("winner")).with_row_index("row")
    parts = [
        base.with_columns(
            pl.lit(s).alias("seat"),
            (pl.col("winner") == s).fill_null(False).alias("won"),
            *(frame.get_column(f"{kind}_{s}").list.unique().alias(kind) if distinct else
              frame.get_column(f"{kind}_{s}").alias(kind) for kind in ("drawn", "played")),
        ).drop("winner")
        for s in seats
    ]
    return pl.concat(parts, how="vertical")


# -- rates ----------------------------------------------------------------------------------------
BLOCK = 32_768  # seat-games whose card presence is marked at once (a block of float32: BLOCK × cards)
LOOKUP = 1 << 22  # integer card ids below this are mapped by one array lookup


def _counts(long: pl.DataFrame, meta: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """Per group and card: seat-games that drew it (``drawn_n``, won ``drawn_k``) and that played it.

    A card twice in one seat-game's list counts once: each block of seat-games marks a card's presence in a
    (seat-games × cards) table, summed per group by one product with the groups' indicator (was:
    ``list.unique``, explode and a group-by — most of a stopped 167,000-game verdicts run's time after its
    Stop).  Every group × card of ``meta`` has a row (zeros where a card never appeared).
    """
    ids = meta.get_column("id")
    if keys:
        groups = long.select(keys).unique(maintain_order=True).with_row_index("_g")
        group = (long.select(keys).join(groups, on=keys, how="left", maintain_order="left", nulls_equal=True)
                 .get_column("_g").cast(pl.Int64).to_numpy())
    else:
        groups, group = None, np.zeros(long.height, dtype=np.int64)
    n_groups, n_cards = groups.height if groups is not None else 1, ids.len()
    block = max(1, min(BLOCK, BLOCK * 16 // max(1, n_groups)))  # the groups' indicator stays a few MB
    weights = np.stack([np.ones(long.height, np.float32), long.get_column("won").to_numpy().astype(np.float32)])
    out: dict[str, np.ndarray] = {}
    for column in ("drawn", "played"):
        pairs = (long.select(pl.int_range(pl.len(), dtype=pl.Int64).alias("row"), pl.col(column).alias("id"))
                 .explode("id").drop_nulls("id"))
        rows, cards = pairs.get_column("row").to_numpy(), _codes(pairs.get_column("id"), ids)
        counts = np.zeros((2, n_groups, n_cards), dtype=np.int64)  # seat-games with the card; those won
        for start in range(0, long.height, block):
            stop = min(start + block, long.height)
            lo, hi = np.searchsorted(rows, [start, stop])  # rows ascend: explode keeps the frame's order
            seen = np.zeros((stop - start, n_cards), dtype=np.float32)
            seen[rows[lo:hi] - start, cards[lo:hi]] = 1.0
            into = np.zeros((n_groups, stop - start), dtype=np.float32)
            into[group[start:stop], np.arange(stop - start)] = 1.0
            for w in range(2):  # sums of at most `block` ones: exact in float32
                counts[w] += np.rint((into * weights[w, start:stop]) @ seen).astype(np.int64)
        out[f"{column}_n"], out[f"{column}_k"] = counts[0].ravel(), counts[1].ravel()
    frame = pl.DataFrame({"_g": np.repeat(np.arange(n_groups), n_cards),
                          "id": ids.gather(np.tile(np.arange(n_cards), n_groups)), **out})
    if groups is not None:
        frame = frame.join(groups.with_columns(pl.col("_g").cast(pl.Int64)), on="_g")
    return frame.drop("_g")


def _codes(found: pl.Series, ids: pl.Series) -> np.ndarray:
    """Each card id of ``found`` as its row in the card table ``ids``; an id the table lacks is an error."""
    values = found.to_numpy() if found.dtype.is_integer() else None
    table = ids.to_numpy() if ids.dtype.is_integer() else None
    if values is not None and table is not None and table.size and table.min() >= 0 and table.max() < LOOKUP:
        lookup = np.full(int(table.max()) + 1, -1, dtype=np.int32)
        lookup[table] = np.arange(table.size, dtype=np.int32)
        if not values.size:
            return values.astype(np.int32)
        if values.min() >= 0 and values.max() < lookup.size:
            codes = lookup[values]
            if codes.min() >= 0:
                return codes
    else:
        try:
            return found.replace_strict(ids, pl.int_range(ids.len(), eager=True), return_dtype=pl.Int64).to_numpy()
        except pl.exceptions.PolarsError:
            pass
    unknown = found.filter(~found.is_in(ids.implode())).unique().sort().to_list()
    raise InputError(f"the games hold cards the card table lacks: ids {unknown[:10]}")


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


def _meta(cards: pl.DataFrame, long: pl.DataFrame) -> pl.DataFrame:
    """The card table with ids of the frame's type (an id the games hold but the table lacks: see :func:`_codes`)."""
    id_type = long.schema["drawn"].inner
    try:
        return cards.with_columns(pl.col("id").cast(id_type, strict=True))
    except pl.exceptions.PolarsError:
        raise InputError(f"card ids of the table ({cards.schema['id']}) do not match the frame's ({id_type})") from None


def card_rates(frame: pl.DataFrame, cards: pl.DataFrame | Mapping[Any, Any], by: Sequence[str] = (),
               alpha: float = 0.05) -> pl.DataFrame:
    """Per card (and per ``by`` group): win rate when drawn / played, play rate, improvement when drawn.

    Every card of ``cards`` gets a row per group, with ``n = 0`` when it never appeared.  Columns:
    ``by``, the card table's columns, ``seat_games``, then ``wr_drawn``, ``wr_played``,
    ``play_rate``, ``wr_undrawn`` each with ``_low``, ``_high``, ``_n``; then ``iwd``,
    ``iwd_low``, ``iwd_high`` and ``iwd_p``.
    """
    keys = list(by)
    long = seat_games(frame, keys, distinct=False)  # a card twice in one seat-game is counted once by _counts
    meta = _meta(card_table(cards), long)
    counted = [pl.len().cast(pl.Int64).alias("seat_games"), pl.col("won").cast(pl.Int64).sum().alias("wins")]
    totals = long.group_by(keys).agg(counted) if keys else long.select(counted)
    out = (totals.join(meta, how="cross")
           .join(_counts(long, meta, keys), on=keys + ["id"], how="left", nulls_equal=True)
           .with_columns(pl.col("drawn_n", "drawn_k", "played_n", "played_k").fill_null(0))
           .with_columns((pl.col("seat_games") - pl.col("drawn_n")).alias("undrawn_n"),
                         (pl.col("wins") - pl.col("drawn_k")).alias("undrawn_k")))
    # a card is played only after it is drawn, so played seat-games are a subset of drawn ones
    out = _with_rate(out, "wr_drawn", "drawn_k", "drawn_n")
    out = _with_rate(out, "wr_played", "played_k", "played_n")
    out = _with_rate(out, "play_rate", "played_n", "drawn_n")
    out = _with_rate(out, "wr_undrawn", "undrawn_k", "undrawn_n")
    out = _iwd(out, alpha)
    rates = [c for r in RATES for c in (r, f"{r}_low", f"{r}_high", f"{r}_n")]
    return (out.select(*keys, *meta.columns, "seat_games", *rates, "iwd", "iwd_low", "iwd_high", "iwd_p")
            .sort(keys + ["id"]))


def compare_card_rates(baseline: pl.DataFrame, variant: pl.DataFrame, select: Sequence[Any] | None = None,
                       on: str = "id", alpha: float = 0.05) -> pl.DataFrame:
    """Win rate when drawn / played and play rate of the same cards in two :func:`card_rates` tables.

    ``select``: the values of column ``on`` to compare (all cards when None).  The arms hold
    different seat-games, so each rate is compared by :func:`two_proportion`.  Columns: ``on``,
    metric, n_base, base, n_variant, variant, diff, low, high, p_value, significant, counted.
    """
    if select is not None and not select:
        return pl.DataFrame()
    pick = (lambda t: t) if select is None else (lambda t: t.filter(pl.col(on).is_in(list(select))))
    pairs = pick(baseline).join(pick(variant), on=on, how="inner", suffix="_variant", maintain_order="left")
    rows = []
    for rate, counted in (("wr_drawn", "drawn"), ("wr_played", "played"), ("play_rate", "played")):
        for row in pairs.iter_rows(named=True):
            nb, nv = row[f"{rate}_n"], row[f"{rate}_n_variant"]
            if not nb or not nv:
                continue
            kb, kv = round(row[rate] * nb), round(row[f"{rate}_variant"] * nv)
            t = two_proportion(kv, nv, kb, nb, alpha=alpha)
            rows.append({on: row[on], "metric": rate, "n_base": nb, "base": row[rate], "n_variant": nv,
                         "variant": row[f"{rate}_variant"], "diff": t.diff, "low": t.low, "high": t.high,
                         "p_value": t.p_value, "significant": t.significant, "counted": counted})
    return pl.DataFrame(rows)


# -- rates on the cost scale ----------------------------------------------------------------------
def empirical_values(rates: pl.DataFrame, cost: str = "cost") -> pl.DataFrame:
    """Put improvement-when-drawn on the cost scale: ``emp_value``, ``emp_residual``, ``iwd_residual``.

    Improvement when drawn (win-rate points) and the ``cost`` column are matched by the
    reduced-major-axis line through the cards — the line that gives the empirical values the same
    mean and spread as the costs, ``emp_value = mean(cost) + (iwd − mean(iwd)) · sd(cost) / sd(iwd)``
    (the ordinary regression line would shrink them towards the mean when iwd is noisy).
    ``emp_residual = cost − emp_value``: > 0 means over-costed (the card helps less than cards of
    its cost), < 0 under-costed.  ``iwd_residual`` is iwd minus the least-squares line of iwd on
    cost (win-rate points).  Cards never drawn get nulls.
    """
    if cost not in rates.columns:
        raise InputError(f"empirical values need a cost column {cost!r}; columns: {', '.join(rates.columns)}")
    ok = rates.filter(pl.col("iwd").is_not_null())
    nulls = [pl.lit(None, pl.Float64).alias(c) for c in ("iwd_residual", "emp_value", "emp_residual")]
    if ok.height < 3:
        return rates.with_columns(nulls)
    x = ok.get_column(cost).cast(pl.Float64).to_numpy()
    y = ok.get_column("iwd").to_numpy()
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return rates.with_columns(nulls)
    b, a = np.polyfit(x, y, 1)
    out = rates.with_columns((pl.col("iwd") - (a + b * pl.col(cost))).alias("iwd_residual"))
    scale = float(x.std() / y.std())
    return out.with_columns((float(x.mean()) + (pl.col("iwd") - float(y.mean())) * scale).alias("emp_value")) \
        .with_columns((pl.col(cost) - pl.col("emp_value")).alias("emp_residual"))


# -- over- and under-costed, as a verdict ---------------------------------------------------------
UNDER, IN_LINE, OVER = "under-costed", "in line", "over-costed"
COST_FLAGS = (UNDER, IN_LINE, OVER)


def flag_alpha(cards: int, alpha: float = 0.05) -> float:
    """The per-card error rate that keeps the chance of any false flag among ``cards`` cards at ``alpha``.

    Flagging every card at 5 % would flag about one card in twenty by luck alone; Bonferroni's
    ``alpha / cards`` keeps the family at ``alpha``.  Pass it to ``card_rates(..., alpha=...)`` so the
    intervals :func:`cost_flags` reads are the corrected ones.
    """
    if cards < 1:
        raise InputError(f"flag_alpha needs at least one card, got {cards}")
    return alpha / cards


def cost_flags(rates: pl.DataFrame, cost: str = "cost") -> pl.DataFrame:
    """Each card's cost verdict from :func:`empirical_values`' output: under-costed, in line or over-costed.

    A card of cost c is expected to improve its seat's win rate when drawn by the least-squares line
    of ``iwd`` on cost through all the cards.  ``verdict`` is ``under-costed`` when the card's
    ``iwd`` interval lies wholly above that line (it helps more than cards of its cost),
    ``over-costed`` when wholly below, ``in line`` otherwise, and null for a card never drawn.  The
    interval is the one ``card_rates`` computed (use :func:`flag_alpha`'s level for a family of
    cards); the line's own uncertainty is not added, so with few cards read a flag as a lead.
    Adds ``expected`` (the line at the card's cost) and ``verdict``.
    """
    missing = [c for c in ("iwd", "iwd_low", "iwd_high", "iwd_residual", cost) if c not in rates.columns]
    if missing:
        raise InputError(f"cost_flags needs empirical_values' columns; missing {', '.join(missing)}")
    expected = pl.col("iwd") - pl.col("iwd_residual")
    return rates.with_columns(expected.alias("expected")).with_columns(
        pl.when(pl.col("iwd_residual").is_null()).then(pl.lit(None, pl.String))
        .when(pl.col("iwd_low") > pl.col("expected")).then(pl.lit(UNDER))
        .when(pl.col("iwd_high") < pl.col("expected")).then(pl.lit(OVER))
        .otherwise(pl.lit(IN_LINE)).alias("verdict"))


# -- a static model and the empirical view side by side -------------------------------------------
VIEWS = ("static model", "empirical (improvement when drawn)")


def cost_value_frame(static: pl.DataFrame, rates: pl.DataFrame, columns: Sequence[str] = ("id", "cost"),
                     outliers: int = 5) -> pl.DataFrame:
    """Long frame for the cost-vs-value chart: one row per card and view.

    ``static`` holds a game's own value model (``columns`` plus ``value`` and ``residual`` = cost −
    value), ``rates`` the output of :func:`empirical_values`.  Columns: ``columns`` (they must
    include ``cost``), value, residual, view, outlier (the ``outliers`` largest |residual| of
    each view).
    """
    columns = list(columns)
    if "cost" not in columns:
        raise InputError(f"cost-vs-value columns must include 'cost'; got {columns}")
    for name, frame, need in (("static", static, ["value", "residual"]),
                              ("rates", rates, ["emp_value", "emp_residual"])):
        missing = [c for c in columns + need if c not in frame.columns]
        if missing:
            raise InputError(f"cost-vs-value: the {name} table lacks {missing}; columns: {', '.join(frame.columns)}")
    view_static = static.select(*columns, "value", "residual", pl.lit(VIEWS[0]).alias("view"))
    view_emp = rates.filter(pl.col("emp_value").is_not_null()).select(
        *columns, pl.col("emp_value").alias("value"), pl.col("emp_residual").alias("residual"),
        pl.lit(VIEWS[1]).alias("view"))
    both = pl.concat([view_static, view_emp.cast(view_static.schema)], how="vertical")
    rank = pl.col("residual").abs().rank("ordinal", descending=True).over("view")
    return both.with_columns((rank <= outliers).alias("outlier"))


def costed_lists(frame: pl.DataFrame, n: int = 5) -> pl.DataFrame:
    """The ``n`` most over- and under-costed cards of each view of a :func:`cost_value_frame`.

    Columns: view, side, rank, the frame's card columns, value, residual.
    """
    card_columns = [c for c in frame.columns if c not in ("view", "value", "residual", "outlier")]
    parts = []
    for view in frame.get_column("view").unique(maintain_order=True).to_list():
        data = frame.filter(pl.col("view") == view)
        for side, descending in (("over-costed", True), ("under-costed", False)):
            top = data.sort("residual", descending=descending).head(n).with_row_index("rank", offset=1)
            parts.append(top.select("view", pl.lit(side).alias("side"), "rank", *card_columns, "value", "residual"))
    return pl.concat(parts, how="vertical")
