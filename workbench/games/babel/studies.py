"""Babel's declared studies (``MODEL.studies`` names ``STUDIES``): the questions designers ask.

* ``start_seat``: the start player's win rate (95 % interval, n, p against 50 %) per start-hand
  variant (3/5, 5/5) and agent pairing — is the 3-vs-5 handicap fair?
* ``endings``: how games end (15 vs ≤9, the end phase at 20 or a drop to ≤9, the quarry running out,
  the turn cap) and how long they take, per variant;
* ``nations``: per nation, ability uses per game, and the win rate of a player in the games where
  they used it against the games where they did not (intervals, a two-proportion test);
* ``trajectories``: the combined temple value per turn, mean and 10–90 % band, start player vs other;
* ``hand_sizes``: the start player's win rate for every pair of start hands in a range — which pairs
  make the start seat 50 %.

Every cell of every study plays on the same master seed (common random numbers).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from workbench.core.errors import InputError
from workbench.core.lazy import lazy
from workbench.core.model import GameModel, Param
from workbench.core.present import charts
from workbench.core.sim.sweep import run_grid
from workbench.core.stats import metrics
from workbench.core.stats.rates import two_proportion, wilson_exprs
from workbench.core.studies.study import Partial, Study, play_grid
from workbench.games.babel.results import TALLY_COLUMNS
from workbench.games.babel.rules import NATIONS

alt = lazy("altair")  # imported when the first chart is drawn: a page that draws none never loads it

Progress = Callable[[int, int], None] | None
Stop = Callable[[], bool] | None
GAMES = Param("games", 2000, int, "games per cell", 10, 10**8)
PAIRINGS = Param("pairings", "greedy,greedy; random,random; greedy,random", str,
                 "agent pairings separated by ';', one agent per seat each (e.g. greedy,random; search,greedy)")
VARIANTS = Param("hands", "3/5,5/5", str, "start-hand variants, comma-separated: 3/5 and/or 5/5")


def _pairings(text: str) -> list[tuple[str, ...]]:
    out = [tuple(a.strip() for a in part.split(",")) for part in text.split(";") if part.strip()]
    if not out:
        raise InputError("setting 'pairings': give at least one pairing, e.g. greedy,greedy")
    return out


def _hands(text: str) -> list[str]:
    out = [h.strip() for h in text.split(",") if h.strip()]
    bad = [h for h in out if h not in ("3/5", "5/5")]
    if not out or bad:
        raise InputError(f"setting 'hands': {', '.join(bad) or 'nothing'} given; allowed: 3/5, 5/5 (comma-separated)")
    return out


def _play(model: GameModel, settings: dict[str, Any], params: dict[str, Any], seed: int, workers: int,
          on_progress: Progress, should_stop: Stop, on_partial: Partial | None = None,
          tables: Callable[[pl.DataFrame], dict[str, pl.DataFrame]] | None = None) -> pl.DataFrame:
    """Every start-hand variant × pairing; ``on_partial`` streams ``tables`` of the finished cells, one by one."""
    fixed = {k: v for k, v in params.items() if k != "start_hands" and v != model.param(k).default}
    frame = play_grid(model, {"start_hands": _hands(settings["hands"])}, settings["games"], params=fixed,
                      lineups=_pairings(settings["pairings"]), seed=seed, workers=workers, on_progress=on_progress,
                      should_stop=should_stop, on_partial=on_partial,
                      tables=(lambda part: tables(part.rename({"lineup": "pairing"}))) if tables is not None else None)
    return frame.rename({"lineup": "pairing"})


# -- start seat ---------------------------------------------------------------------------------------
def start_seat_tables(frame: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """The start player's win rate per start-hand variant and pairing (with interval and n), and the games."""
    return {"start_seat": metrics.first_mover(frame, ["start_hands", "pairing"]), "games": frame}


def _start_seat(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
                on_progress: Progress, should_stop: Stop, on_partial: Partial | None = None) -> dict[str, pl.DataFrame]:
    return start_seat_tables(_play(model, settings, params, seed, workers, on_progress, should_stop, on_partial,
                                   start_seat_tables))


def _start_seat_charts(tables: dict[str, pl.DataFrame]) -> dict[str, Any]:
    table = tables["start_seat"].rename({"first_seat_score": "rate", "first_seat_score_low": "low",
                                         "first_seat_score_high": "high", "first_seat_score_n": "n"})
    return {"start_seat": charts.rate_chart(table, "pairing", color="start_hands", reference=0.5, zoom=True,
                                            title="Start player's score, a draw counting half (95 % interval)",
                                            y_title="start seat score")}


# -- endings --------------------------------------------------------------------------------------------
def _endings(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
             on_progress: Progress, should_stop: Stop) -> dict[str, pl.DataFrame]:
    frame = _play(model, settings, params, seed, workers, on_progress, should_stop)
    keys = ["start_hands", "pairing"]
    return {"endings": metrics.end_reasons(frame, keys), "length": metrics.duration(frame, keys), "games": frame}


def _endings_charts(tables: dict[str, pl.DataFrame]) -> dict[str, Any]:
    frame = tables["games"].with_columns(pl.format("{} · {}", "start_hands", "pairing").alias("cell"))
    return {"endings": charts.share_bars(frame, "cell", "reason", title="How games end"),
            "length": charts.histogram(frame, "length", color="cell", normalize=True, title="Game length (turns)")}


# -- nations ----------------------------------------------------------------------------------------------
def seat_rows(frame: pl.DataFrame) -> pl.DataFrame:
    """One row per game and seat: the seat's ability uses per nation and whether it won."""
    parts = []
    for seat in ("p1", "p2"):
        parts.append(frame.select(
            "start_hands", "pairing", pl.lit(seat).alias("seat"),
            pl.col(f"agent_{seat}").alias("agent"), (pl.col("winner") == seat).alias("won"),
            *(pl.col(f"{c}_{seat}").alias(c) for c in TALLY_COLUMNS)))
    return pl.concat(parts, how="vertical")


def nation_table(frame: pl.DataFrame, alpha: float = 0.05) -> pl.DataFrame:
    """Per nation (and the universal ability): uses per game, and win rates of seats that used it or not."""
    rows = seat_rows(frame)
    out = []
    for column in (*(n.lower() for n in NATIONS), "universal"):
        used = rows.filter(pl.col(column) > 0)
        unused = rows.filter(pl.col(column) == 0)
        k1, n1 = int(used["won"].sum()), used.height
        k0, n0 = int(unused["won"].sum()), unused.height
        test = two_proportion(k1, n1, k0, n0, alpha) if n1 and n0 else None
        out.append({"ability": column, "seat_games": rows.height, "uses_per_seat_game": float(rows[column].mean()),
                    "used_share": n1 / rows.height, "used_n": n1, "used_k": k1, "unused_n": n0, "unused_k": k0,
                    "p_value": None if test is None else test.p_value,
                    "significant": None if test is None else test.significant})
    table = pl.DataFrame(out)
    lo1, hi1 = wilson_exprs("used_k", "used_n")
    lo0, hi0 = wilson_exprs("unused_k", "unused_n")
    return table.with_columns(
        pl.when(pl.col("used_n") > 0).then(pl.col("used_k") / pl.col("used_n")).alias("win_used"),
        lo1.alias("win_used_low"), hi1.alias("win_used_high"),
        pl.when(pl.col("unused_n") > 0).then(pl.col("unused_k") / pl.col("unused_n")).alias("win_unused"),
        lo0.alias("win_unused_low"), hi0.alias("win_unused_high"),
    ).select("ability", "seat_games", "uses_per_seat_game", "used_share", "win_used", "win_used_low",
             "win_used_high", "used_n", "win_unused", "win_unused_low", "win_unused_high", "unused_n", "p_value",
             "significant")


def _nations(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
             on_progress: Progress, should_stop: Stop) -> dict[str, pl.DataFrame]:
    frame = _play(model, settings, params, seed, workers, on_progress, should_stop)
    return {"nations": nation_table(frame), "games": frame}


def _nation_charts(tables: dict[str, pl.DataFrame]) -> dict[str, Any]:
    t = tables["nations"]
    long = pl.concat([t.select("ability", pl.lit(label).alias("games of a seat that"), pl.col(f"win_{k}").alias("rate"),
                               pl.col(f"win_{k}_low").alias("low"), pl.col(f"win_{k}_high").alias("high"),
                               pl.col(f"{k}_n").alias("n"))
                      for k, label in (("used", "used it"), ("unused", "did not"))]).drop_nulls("rate")
    return {"nations": charts.rate_chart(long, "ability", color="games of a seat that", reference=0.5,
                                         title="Win rate when a seat used the ability vs did not",
                                         y_title="win rate")}


# -- trajectories -------------------------------------------------------------------------------------------
def trajectory_table(frame: pl.DataFrame, max_turn: int = 60) -> pl.DataFrame:
    """Combined temple value per turn: mean and 10/50/90 % quantiles, start player vs other."""
    parts = []
    for seat in ("p1", "p2"):
        parts.append(frame.select(
            "start_hands", "pairing", pl.col("game_index"),
            pl.when(pl.col("first_seat") == seat).then(pl.lit("start player")).otherwise(pl.lit("other"))
            .alias("role"), pl.col(f"values_{seat}").alias("value")))
    long = (pl.concat(parts).with_columns(pl.int_ranges(1, pl.col("value").list.len() + 1).alias("turn"))
            .explode("value", "turn").filter(pl.col("turn") <= max_turn))
    return (long.group_by("start_hands", "pairing", "role", "turn")
            .agg(pl.len().alias("n"), pl.col("value").mean().alias("mean"),
                 pl.col("value").quantile(0.1).alias("q10"), pl.col("value").quantile(0.5).alias("median"),
                 pl.col("value").quantile(0.9).alias("q90"))
            .sort("start_hands", "pairing", "role", "turn"))


def _trajectories(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
                  on_progress: Progress, should_stop: Stop) -> dict[str, pl.DataFrame]:
    frame = _play(model, settings, params, seed, workers, on_progress, should_stop)
    return {"trajectories": trajectory_table(frame), "games": frame}


def _trajectory_charts(tables: dict[str, pl.DataFrame]) -> dict[str, Any]:
    t = tables["trajectories"].filter(pl.col("n") >= 20).with_columns(
        pl.format("{} · {}", "start_hands", "pairing").alias("cell"))
    base = alt.Chart(t).encode(x=alt.X("turn:Q", title="turn"), color=alt.Color("role:N"))
    band = base.mark_area(opacity=0.2).encode(y=alt.Y("q10:Q", title="combined temple value"), y2="q90:Q")
    line = base.mark_line().encode(y="mean:Q", tooltip=["cell", "role", "turn", "n", "mean", "q10", "q90"])
    chart = (band + line).properties(width=220, height=160).facet(facet=alt.Facet("cell:N", title=None), columns=3)
    return {"trajectories": chart.properties(title="Combined temple value per turn: mean and 10–90 % band "
                                                   "(turns reached by at least 20 games)")}


# -- hand sizes ----------------------------------------------------------------------------------------------
def _hand_sizes(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
                on_progress: Progress, should_stop: Stop) -> dict[str, pl.DataFrame]:
    lo, hi = settings["smallest"], settings["largest"]
    if lo > hi:
        raise InputError(f"setting 'smallest' ({lo}) is above 'largest' ({hi})")
    fixed = {k: v for k, v in params.items() if k not in ("hand_start", "hand_other") and v != model.param(k).default}
    frame = run_grid(model, {"hand_start": list(range(lo, hi + 1)), "hand_other": list(range(lo, hi + 1))},
                     settings["games"], params=fixed, agents=settings["agents"], seed=seed, workers=workers,
                     progress=False, on_progress=on_progress, should_stop=should_stop)
    table = metrics.first_mover(frame, ["hand_start", "hand_other"]).with_columns(
        ((pl.col("first_seat_score_low") <= 0.5) & (pl.col("first_seat_score_high") >= 0.5)).alias("fair_within_ci"))
    return {"hand_sizes": table, "games": frame}


def _hand_size_charts(tables: dict[str, pl.DataFrame]) -> dict[str, Any]:
    t = tables["hand_sizes"]
    heat = alt.Chart(t).mark_rect().encode(
        x=alt.X("hand_other:O", title="cards dealt to the other player"),
        y=alt.Y("hand_start:O", title="cards dealt to the start player", sort="descending"),
        color=alt.Color("first_seat_score:Q", title="start seat score",
                        scale=alt.Scale(scheme="redblue", domainMid=0.5, reverse=True)),
        tooltip=["hand_start", "hand_other", *(alt.Tooltip(f"first_seat_score{s}:Q", format=".1%")
                                                for s in ("", "_low", "_high")), "first_seat_score_n",
                 alt.Tooltip("first_seat_draws:Q", format=".1%")])
    marks = alt.Chart(t.filter(pl.col("fair_within_ci"))).mark_text(text="fair", fontSize=11).encode(
        x="hand_other:O", y=alt.Y("hand_start:O", sort="descending"))
    return {"hand_sizes": (heat + marks).properties(
        width=alt.Step(48), height=alt.Step(40),
        title=alt.Title("Start player's score per pair of start hands (a draw counts half)",
                        subtitle="fair: 50 % lies inside the 95 % interval"))}


STUDIES = (
    Study("start_seat", "Is the start player's 3-vs-5 handicap fair? Start-seat win rate per variant and pairing",
          _start_seat, (GAMES, PAIRINGS, VARIANTS), _start_seat_charts,
          "The start player's score over all games (a draw counts half) with its 95 % interval, the draws beside "
          "it, and the exact binomial p of its wins against its losses at 50 %."),
    Study("endings", "How games end and how long they take", _endings, (GAMES, PAIRINGS, VARIANTS), _endings_charts,
          "Shares of 15 vs ≤9, the end phase at 20 or a drop to ≤9, the quarry running out and the turn cap."),
    Study("nations", "Which nation abilities decide games", _nations,
          (GAMES, Param("pairings", "greedy,greedy", str, PAIRINGS.help), VARIANTS), _nation_charts,
          "Per nation: uses per seat and game, and the win rate of the seats that used it vs did not, with the "
          "two-proportion test (an association, not proof that the ability caused the win)."),
    Study("trajectories", "Temple value per turn", _trajectories,
          (GAMES, Param("pairings", "greedy,greedy", str, PAIRINGS.help), VARIANTS), _trajectory_charts),
    Study("hand_sizes", "Which pair of start hands makes the start seat 50 %", _hand_sizes, (
        Param("games", 1000, int, "games per pair", 10, 10**8),
        Param("smallest", 2, int, "smallest hand tried", 0, 20), Param("largest", 7, int, "largest hand tried", 0, 20),
        Param("agents", "greedy,greedy", str, "one agent per seat")), _hand_size_charts,
          "Every pair (start player's hand, other's hand) on the same seeds; a pair is marked when 50 % lies inside "
          "the start player's 95 % interval."),
)


# -- the verdicts core's ``verdicts`` study gives (GameModel.verdicts) -------------------------------------------
def verdict_sources(model: GameModel, params: dict[str, Any]) -> list[Any]:
    """The start seat under each start-hand variant (every other rule as set)."""
    from workbench.core.studies.verdicts import first_seat_source

    hands = model.param("start_hands").choices or ()
    return [first_seat_source([(h, {**params, "start_hands": h}) for h in hands], "start seat",
                              {h: f"start hands {model.choice_label('start_hands', h)}" for h in hands})]
