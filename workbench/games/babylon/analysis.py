"""Towers of Babylon's tables and charts: one-row-per-game frames → matchups, compensation, endings, towers.

The frames come from a grid of ``deck_p1 × deck_p2 × first`` (every cell on the same master seed),
so every deck meets every deck in both seats and moving first and second equally often.  A
*matchup* (row deck against column deck) pools every game between the two decks, whichever seat
each held: the row deck's wins, the draws and the column deck's wins add up to its games, so cell
(A, B) and cell (B, A) are read from the same games.  In a mirror match (A against A) the row deck
is the one in seat p1.  Every rate is over all games (a draw is not a win) with its 95 % Wilson
interval and n; ``p_value`` is the exact binomial test of the row deck's wins against its losses
at 1/2 (are the decks even?).  Paired comparisons (:func:`matrix_delta`, :func:`arm_comparison`)
pair games by cell and game index on common random numbers (McNemar's exact test, core's
:func:`~workbench.core.stats.compare.paired_difference`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from workbench.core.errors import InputError
from workbench.core.lazy import lazy
from workbench.core.stats import metrics
from workbench.core.stats.compare import first_seat_won, paired_difference, paired_frames
from workbench.core.stats.rates import binom_pvalue, wilson_exprs

alt = lazy("altair")  # imported when the first chart is drawn: a page that draws none never loads it

__all__ = ["GRID_KEYS", "arm_comparison", "arm_label", "arm_table", "deck_table", "delta_heatmap", "ending_labels",
           "ending_table", "matchup_heatmap", "matrix_delta", "matrix_table", "pair_table", "paired_games",
           "rate_columns", "seat_rows", "seat_table", "trajectory_chart", "trajectory_table"]

GRID_KEYS = ("deck_p1", "deck_p2", "first")


def rate_columns(frame: pl.DataFrame, name: str, k: str, n: str) -> pl.DataFrame:
    """``name``, ``name_low``, ``name_high`` (Wilson) from count columns ``k`` of ``n``."""
    low, high = wilson_exprs(k, n)
    return frame.with_columns(pl.when(pl.col(n) > 0).then(pl.col(k) / pl.col(n)).alias(name),
                              low.alias(f"{name}_low"), high.alias(f"{name}_high"))


def _even_p(frame: pl.DataFrame, wins: str, losses: str) -> pl.DataFrame:
    """``p_value`` (exact binomial, wins against losses at 1/2) and ``significant`` at 5 %."""
    p = [binom_pvalue(int(w), int(w + lo)) for w, lo in frame.select(wins, losses).iter_rows()]
    return frame.with_columns(pl.Series("p_value", p, dtype=pl.Float64)).with_columns(
        (pl.col("p_value") < 0.05).alias("significant"))


# -- seat rows ---------------------------------------------------------------------------------------
def seat_rows(frame: pl.DataFrame, mirrors: str = "p1") -> pl.DataFrame:
    """One row per game and seat: ``deck``, ``opponent``, ``won``, ``lost``, ``draw``, ``moved`` (first/second).

    ``mirrors="p1"`` keeps only seat p1 of a mirror match (the matrix convention), ``"both"`` both
    seats (per-deck tallies).  Also carried: the grid keys, ``game_index``, ``reason``, ``length``,
    the seat's final ``tower`` and ``towers`` after each game turn.
    """
    parts = []
    for seat, other in (("p1", "p2"), ("p2", "p1")):
        part = frame.select(
            *[c for c in (*GRID_KEYS, "game_index") if c in frame.columns], "reason", "length",
            pl.lit(seat).alias("seat"), pl.col(f"deck_{seat}").alias("deck"), pl.col(f"deck_{other}").alias("opponent"),
            (pl.col("winner") == seat).alias("won"), (pl.col("winner") == other).alias("lost"),
            (pl.col("winner") == "draw").alias("draw"),
            pl.when(pl.col("first_seat") == seat).then(pl.lit("first")).otherwise(pl.lit("second")).alias("moved"),
            pl.col(f"tower_{seat}").alias("tower"), pl.col(f"towers_{seat}").alias("towers"))
        if seat == "p2" and mirrors == "p1":
            part = part.filter(pl.col("deck") != pl.col("opponent"))
        parts.append(part)
    return pl.concat(parts, how="vertical")


def _counts(rows: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    return rows.group_by(keys).agg(pl.len().cast(pl.Int64).alias("n"), pl.col("won").sum().cast(pl.Int64).alias("k"),
                                   pl.col("lost").sum().cast(pl.Int64).alias("losses"),
                                   pl.col("draw").sum().cast(pl.Int64).alias("draws_k"))


# -- the matchup matrix -----------------------------------------------------------------------------
def matrix_table(frame: pl.DataFrame, order: Sequence[str] | None = None) -> pl.DataFrame:
    """Per row deck × column deck: the row deck's win rate, the draws, and its win rate moving first / second.

    Columns: deck, opponent, n, k (wins), ``win`` with ``_low``/``_high``, ``draws`` with its
    interval, losses, ``win_first``/``win_second`` with intervals and ``_n``, ``p_value``,
    ``significant`` (the row deck is stronger or weaker than even).
    """
    rows = seat_rows(frame)
    out = _counts(rows, ["deck", "opponent"])
    for moved in ("first", "second"):
        part = _counts(rows.filter(pl.col("moved") == moved), ["deck", "opponent"]).select(
            "deck", "opponent", pl.col("n").alias(f"win_{moved}_n"), pl.col("k").alias(f"win_{moved}_k"))
        out = out.join(part, on=["deck", "opponent"], how="left").with_columns(
            pl.col(f"win_{moved}_n", f"win_{moved}_k").fill_null(0))
        out = rate_columns(out, f"win_{moved}", f"win_{moved}_k", f"win_{moved}_n")
    out = _even_p(rate_columns(rate_columns(out, "win", "k", "n"), "draws", "draws_k", "n"), "k", "losses")
    out = out.select("deck", "opponent", "n", "k", "win", "win_low", "win_high", "draws", "draws_low", "draws_high",
                     "losses", *[f"win_{m}{s}" for m in ("first", "second") for s in ("", "_low", "_high", "_n")],
                     "p_value", "significant")
    return _ordered(out, order)


def _ordered(table: pl.DataFrame, order: Sequence[str] | None, keys: Sequence[str] = ("deck", "opponent"),
             then: Sequence[str] = ()) -> pl.DataFrame:
    """Sorted by the deck columns ``keys`` in the given deck ``order`` (else by name), then by ``then``."""
    if order is None:
        return table.sort([*keys, *then])
    rank = {d: i for i, d in enumerate(order)}
    return table.sort([*(pl.col(k).replace_strict(rank, default=len(rank)) for k in keys), *then])


def deck_table(frame: pl.DataFrame, order: Sequence[str] | None = None) -> pl.DataFrame:
    """Each deck against the field (every other deck, mirror matches left out): win rate, draws, p against even."""
    rows = seat_rows(frame, "both").filter(pl.col("deck") != pl.col("opponent"))
    out = rate_columns(rate_columns(_counts(rows, ["deck"]), "win", "k", "n"), "draws", "draws_k", "n")
    out = _even_p(out, "k", "losses")
    out = out.select("deck", "n", "k", "win", "win_low", "win_high", "draws", "draws_low", "draws_high", "losses",
                     "p_value", "significant")
    return _ordered(out, order, ("deck",))


def seat_table(frame: pl.DataFrame, order: Sequence[str] | None = None) -> pl.DataFrame:
    """Long form of the matrix per seat: deck, opponent, moved (first/second), n, k, rate, low, high."""
    rows = seat_rows(frame)
    out = rate_columns(_counts(rows, ["deck", "opponent", "moved"]), "rate", "k", "n").rename(
        {"rate_low": "low", "rate_high": "high"})
    return _ordered(out.select("deck", "opponent", "moved", "n", "k", "rate", "low", "high"), order,
                    then=("moved",))


def _label(table: pl.DataFrame, rate: str) -> pl.DataFrame:
    return table.with_columns(
        pl.format("{}%", (100 * pl.col(rate)).round(0).cast(pl.Int64)).alias("label"),
        pl.format("[{}–{}]", (100 * pl.col(f"{rate}_low")).round(0).cast(pl.Int64),
                  (100 * pl.col(f"{rate}_high")).round(0).cast(pl.Int64)).alias("interval"))


def matchup_heatmap(table: pl.DataFrame, rate: str = "win", title: str = "") -> Any:
    """The matrix as a heat map: the row deck's win rate, its 95 % interval written under it."""
    order = list(dict.fromkeys(table.get_column("deck").to_list()))
    data = _label(table.select("deck", "opponent", "n", rate, f"{rate}_low", f"{rate}_high", "draws"), rate)
    base = alt.Chart(data).encode(x=alt.X("opponent:N", sort=order, title="against (column deck)"),
                                  y=alt.Y("deck:N", sort=order, title="deck (row)"))
    heat = base.mark_rect().encode(
        color=alt.Color(f"{rate}:Q", title="row deck wins", scale=alt.Scale(scheme="redblue", domain=[0, 1],
                                                                            domainMid=0.5)),
        tooltip=["deck", "opponent", alt.Tooltip("n:Q", format=","), alt.Tooltip(f"{rate}:Q", format=".1%"),
                 alt.Tooltip(f"{rate}_low:Q", format=".1%"), alt.Tooltip(f"{rate}_high:Q", format=".1%"),
                 alt.Tooltip("draws:Q", format=".1%")])
    text = base.mark_text(dy=-6, fontSize=12).encode(text="label:N")
    band = base.mark_text(dy=8, fontSize=9).encode(text="interval:N")
    return (heat + text + band).properties(width=alt.Step(90), height=alt.Step(46), title=title or
                                           "Win rate of the row deck against the column deck (95 % interval)")


# -- comparisons on common random numbers ------------------------------------------------------------
def paired_games(baseline: pl.DataFrame, variant: pl.DataFrame,
                 keys: Sequence[str] = GRID_KEYS) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Both frames in the same game order, once every cell of ``keys`` is known to hold the same games."""
    cells_b = baseline.select(keys).unique().sort(list(keys))
    if not cells_b.equals(variant.select(keys).unique().sort(list(keys))):
        raise InputError("the runs are not paired: they hold different cells (decks or first seat); play both on "
                         "the same grid")
    parts_b, parts_v = [], []
    for cell in cells_b.iter_rows(named=True):
        match = pl.all_horizontal([pl.col(k) == v for k, v in cell.items()])
        b, v = paired_frames(baseline.filter(match), variant.filter(match),
                             where="cell " + ", ".join(f"{k}={v}" for k, v in cell.items()))
        parts_b.append(b)
        parts_v.append(v)
    return pl.concat(parts_b, how="vertical"), pl.concat(parts_v, how="vertical")


def matrix_delta(baseline: pl.DataFrame, variant: pl.DataFrame, order: Sequence[str] | None = None,
                 alpha: float = 0.05) -> pl.DataFrame:
    """Per matrix cell: the row deck's win rate in both arms, variant − baseline, the exact paired test.

    Columns: deck, opponent, then :func:`~workbench.core.stats.compare.paired_difference`'s (n, base,
    variant with intervals, diff, low, high, p_value, significant, discordant).
    """
    b, v = paired_games(baseline, variant)
    rows_b, rows_v = seat_rows(b), seat_rows(v)
    out = []
    for deck, opponent in rows_b.select("deck", "opponent").unique().iter_rows():
        mask = (rows_b.get_column("deck") == deck) & (rows_b.get_column("opponent") == opponent)
        out.append({"deck": deck, "opponent": opponent,
                    **paired_difference(rows_b.get_column("won").filter(mask),
                                        rows_v.get_column("won").filter(mask), alpha)})
    return _ordered(pl.DataFrame(out), order)


def delta_heatmap(table: pl.DataFrame, title: str = "") -> Any:
    """Variant − baseline per matrix cell; a significant change is outlined and starred."""
    order = list(dict.fromkeys(table.get_column("deck").to_list()))
    data = table.select("deck", "opponent", "n", "base", "variant", "diff", "low", "high", "p_value",
                        "significant").with_columns(
        pl.format("{}{}", pl.format("{}", (100 * pl.col("diff")).round(1)),
                  pl.when(pl.col("significant")).then(pl.lit(" *")).otherwise(pl.lit(""))).alias("label"))
    base = alt.Chart(data).encode(x=alt.X("opponent:N", sort=order, title="against (column deck)"),
                                  y=alt.Y("deck:N", sort=order, title="deck (row)"))
    span = max(0.02, float(data.get_column("diff").abs().max() or 0.0))
    heat = base.mark_rect(strokeWidth=2).encode(
        color=alt.Color("diff:Q", title="variant − baseline", scale=alt.Scale(scheme="redblue", domain=[-span, span])),
        stroke=alt.condition(alt.datum.significant, alt.value("black"), alt.value(None)),
        tooltip=["deck", "opponent", alt.Tooltip("n:Q", format=","), alt.Tooltip("base:Q", format=".1%"),
                 alt.Tooltip("variant:Q", format=".1%"), alt.Tooltip("diff:Q", format="+.1%"),
                 alt.Tooltip("low:Q", format="+.1%"), alt.Tooltip("high:Q", format="+.1%"),
                 alt.Tooltip("p_value:Q", format=".3g"), "significant:N"])
    text = base.mark_text(fontSize=11).encode(text="label:N")
    return (heat + text).properties(width=alt.Step(90), height=alt.Step(40), title=title or
                                    "What-if: change of the row deck's win rate, points (* significant, paired)")


# -- second-player compensation ----------------------------------------------------------------------
def arm_label(second_cards: int, second_tp: int) -> str:
    """``"+1 card, +1 TP"`` / ``"no bonus"``."""
    parts = [f"+{n} {what}" for n, what in ((second_cards, "card" if second_cards == 1 else "cards"),
                                            (second_tp, "TP")) if n]
    return ", ".join(parts) or "no bonus"


def _arms(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(pl.struct("second_cards", "second_tp").map_elements(
        lambda s: arm_label(s["second_cards"], s["second_tp"]), return_dtype=pl.String).alias("arm"))


def arm_table(frame: pl.DataFrame) -> pl.DataFrame:
    """Per compensation arm (second_cards × second_tp): the first seat's win rate, draws, p against 50 %."""
    keys = ["second_cards", "second_tp"]
    fm = metrics.first_mover(frame, keys)
    dr = metrics.draws(frame, keys)
    return _arms(fm.join(dr, on=keys)).select(
        "arm", *keys, *[c for c in fm.columns if c.startswith("first_mover_all")], "first_mover", "first_mover_low",
        "first_mover_high", "first_mover_n", "first_mover_p", *[c for c in dr.columns if c.startswith("draws")]
    ).sort(keys, descending=True)


def arm_comparison(frame: pl.DataFrame, base: tuple[int, int] = (1, 1), alpha: float = 0.05) -> pl.DataFrame:
    """Each arm's first-seat win rate against the ``base`` arm's, paired game by game (McNemar's exact test)."""
    arms = frame.select("second_cards", "second_tp").unique().sort(["second_cards", "second_tp"], descending=True)
    pick = (pl.col("second_cards") == base[0]) & (pl.col("second_tp") == base[1])
    if frame.filter(pick).is_empty():
        raise InputError(f"no games of the base arm second_cards={base[0]}, second_tp={base[1]} to compare with")
    out = []
    for cards, tp in arms.iter_rows():
        if (cards, tp) == base:
            continue
        b, v = paired_games(frame.filter(pick), frame.filter((pl.col("second_cards") == cards)
                                                             & (pl.col("second_tp") == tp)))
        out.append({"arm": arm_label(cards, tp), "second_cards": cards, "second_tp": tp,
                    "against": arm_label(*base), **paired_difference(b.select(first_seat_won()).to_series(),
                                                                     v.select(first_seat_won()).to_series(), alpha)})
    return pl.DataFrame(out)


def pair_table(frame: pl.DataFrame) -> pl.DataFrame:
    """The first seat's win rate per compensation arm and unordered deck pair."""
    data = _arms(frame).with_columns(_pair())
    keys = ["second_cards", "second_tp", "arm", "pair"]
    return metrics.first_mover(data, keys).sort(keys, descending=[True, True, False, False]).select(
        *keys, *(f"first_mover_all{s}" for s in ("", "_low", "_high", "_n")))


def _pair() -> pl.Expr:
    """``"a vs b"`` with the two deck keys in sorted order (one label per matchup, whoever sat where)."""
    lo = pl.min_horizontal("deck_p1", "deck_p2")
    hi = pl.max_horizontal("deck_p1", "deck_p2")
    return pl.format("{} vs {}", lo, hi).alias("pair")


# -- endings and towers --------------------------------------------------------------------------
def ending_labels(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame with ``pair`` and ``ending``: the end reason and who won it (first / second player, or a draw)."""
    who = (pl.when(pl.col("winner") == "draw").then(pl.lit("draw"))
           .when(pl.col("winner") == pl.col("first_seat")).then(pl.lit("first player"))
           .otherwise(pl.lit("second player")))
    return frame.with_columns(_pair(), pl.format("{} · {}", pl.col("reason"), who).alias("ending"))


def ending_table(frame: pl.DataFrame, by: Sequence[str] = ("pair",)) -> pl.DataFrame:
    """Per group of ``by`` (default: per matchup) and ending: n, k, rate, low, high."""
    data = ending_labels(frame)
    return metrics.end_reasons(data.drop("reason").rename({"ending": "reason"}), list(by)).rename(
        {"reason": "ending"})


def trajectory_table(frame: pl.DataFrame, max_round: int | None = None) -> pl.DataFrame:
    """Each deck's own tower after every round, moving first vs second: n, mean, 10/50/90 % quantiles.

    A round is both players' turns (game turns 2r − 1 and 2r), so the tower is read after the
    opponent's answer too; a game that ended early (a tower at the win height) counts, with its
    final towers, only in the rounds it reached.
    """
    rows = seat_rows(frame, "both").select("deck", "moved", "towers").with_row_index("seat_game")
    long = (rows.with_columns(pl.int_ranges(1, pl.col("towers").list.len() + 1).alias("turn"))
            .explode("towers", "turn").rename({"towers": "tower"})
            .with_columns(((pl.col("turn") + 1) // 2).alias("round"))
            .group_by("seat_game", "deck", "moved", "round").agg(pl.col("tower").sort_by("turn").last()))
    if max_round is not None:
        long = long.filter(pl.col("round") <= max_round)
    return (long.group_by("deck", "moved", "round")
            .agg(pl.len().alias("n"), pl.col("tower").mean().alias("mean"),
                 pl.col("tower").quantile(0.1).alias("q10"), pl.col("tower").quantile(0.5).alias("median"),
                 pl.col("tower").quantile(0.9).alias("q90"))
            .sort("deck", "moved", "round"))


def trajectory_chart(table: pl.DataFrame, least: int = 20) -> Any:
    """Mean tower and 10–90 % band per round, one panel per deck, first vs second player."""
    t = table.filter(pl.col("n") >= min(least, int(table.get_column("n").max() or 0)))
    base = alt.Chart(t).encode(x=alt.X("round:Q", title="round (both players' turns)"),
                               color=alt.Color("moved:N", title="moved"))
    band = base.mark_area(opacity=0.2).encode(y=alt.Y("q10:Q", title="own tower"), y2="q90:Q")
    line = base.mark_line().encode(y="mean:Q", tooltip=["deck", "moved", "round", "n", "mean", "q10", "median", "q90"])
    chart = (band + line).properties(width=200, height=150).facet(facet=alt.Facet("deck:N", title=None), columns=3)
    return chart.properties(title=f"Own tower after each round: mean and 10–90 % band (rounds reached by at least "
                                  f"{least} games)")
