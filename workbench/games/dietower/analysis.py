"""Analysis for teaching: exact odds beside simulation, convergence, and optimal play.

Every function here is ``parameters -> polars frame`` or ``frame -> altair chart`` over
``exact``, ``optimal`` and the runner.  The declared studies and lessons (so the notebook and the studio) and
``workbench report dietower`` (``report.py``) call these same functions.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl

from workbench.core.errors import RunInterrupted
from workbench.core.lazy import lazy
from workbench.core.sim.runner import simulate
from workbench.core.stats.rates import wilson, z_value
from workbench.games.dietower.exact import random_play_odds, simulate_streak_model, streak_odds
from workbench.games.dietower.optimal import heuristic_losses, solve
from workbench.games.dietower.rules import Config, card_name

alt = lazy("altair")  # imported when the first chart is drawn: a page that draws none never loads it

CONFIDENCE = 0.95
EXACT_COLOUR, SIM_COLOUR = "#1f77b4", "#d62728"
HEURISTICS = ("random", "highest", "lowest", "joker")


# -- the streak model: exact vs simulated -----------------------------------------------------
def streak_comparison(p: float, die_faces: int = 6, rounds: int = 14, players: int = 2, games: int = 100_000,
                      seed: int = 0, confidence: float = CONFIDENCE) -> dict[str, pl.DataFrame]:
    """Exact distributions of the streak model beside a simulation with Wilson intervals.

    Returns frames ``points`` and ``longest`` (value, exact, simulated share, low, high) and
    ``six_win_by_round`` (round, exact P(six-win within r rounds), simulated share, low, high).
    """
    odds = streak_odds(float(p), die_faces, rounds, players)
    sim = simulate_streak_model(float(p), die_faces, rounds, players, games, np.random.default_rng(seed))
    out = {}
    for name, exact in (("points", odds.points), ("longest", odds.longest)):
        values = np.arange(0, max(max(exact), int(sim[name].max())) + 1)
        counts = np.bincount(sim[name], minlength=len(values))[: len(values)]
        out[name] = _with_interval(pl.DataFrame({
            "value": values, "exact": [float(exact.get(int(v), 0.0)) for v in values], "count": counts,
        }), games, confidence)
    six = sim["six_win_round"]
    counts = np.array([int(((six > 0) & (six <= r)).sum()) for r in range(1, rounds + 1)])
    out["six_win_by_round"] = _with_interval(pl.DataFrame({
        "round": np.arange(1, rounds + 1), "exact": [float(x) for x in odds.six_win_by[1:]], "count": counts,
    }), games, confidence)
    out["first_streak"] = pl.DataFrame({"streak": list(odds.first_streak),
                                        "exact": [float(x) for x in odds.first_streak.values()]})
    return out


def _with_interval(frame: pl.DataFrame, n: int, confidence: float) -> pl.DataFrame:
    low, high = wilson(frame["count"].to_numpy(), n, confidence)
    return frame.with_columns((pl.col("count") / n).alias("simulated"), pl.Series("low", low), pl.Series("high", high),
                              pl.lit(n).alias("n"))


def distribution_chart(frame: pl.DataFrame, x: str = "value", title: str = "", x_title: str = "") -> alt.LayerChart:
    """Exact probabilities as bars, the simulated shares as points with interval bars."""
    base = alt.Chart(frame).encode(x=alt.X(f"{x}:O", title=x_title or x))
    bars = base.mark_bar(color=EXACT_COLOUR, opacity=0.5).encode(
        y=alt.Y("exact:Q", title="probability"),
        tooltip=[alt.Tooltip(f"{x}:O"), alt.Tooltip("exact:Q", format=".4f"), alt.Tooltip("simulated:Q", format=".4f"),
                 alt.Tooltip("low:Q", format=".4f"), alt.Tooltip("high:Q", format=".4f")])
    rules = base.mark_rule(color=SIM_COLOUR).encode(y="low:Q", y2="high:Q")
    points = base.mark_point(color=SIM_COLOUR, filled=True, size=30).encode(y="simulated:Q")
    return alt.layer(bars, rules, points).properties(title=title or "exact (bars) vs simulated (points, interval)",
                                                    width=360, height=220)


def six_win_chart(frame: pl.DataFrame, title: str = "") -> alt.LayerChart:
    """P(six-win within r rounds): exact line, simulated points with intervals."""
    base = alt.Chart(frame).encode(x=alt.X("round:Q", title="rounds played"))
    line = base.mark_line(color=EXACT_COLOUR).encode(y=alt.Y("exact:Q", title="P(six-win within r rounds)"))
    rules = base.mark_rule(color=SIM_COLOUR).encode(y="low:Q", y2="high:Q")
    points = base.mark_point(color=SIM_COLOUR, filled=True).encode(
        y="simulated:Q",
        tooltip=["round", alt.Tooltip("exact:Q", format=".5f"), alt.Tooltip("simulated:Q", format=".5f")])
    return alt.layer(line, rules, points).properties(title=title or "chance of a six-win by round", width=360,
                                                    height=220)


def streak_length_chart(frame: pl.DataFrame, title: str = "") -> alt.Chart:
    """Distribution of one Builder's streak (rounds won in a row) in the streak model."""
    return alt.Chart(frame).mark_bar(color=EXACT_COLOUR).encode(
        x=alt.X("streak:O", title="rounds won in a row by the first Builder"),
        y=alt.Y("exact:Q", title="probability"),
        tooltip=["streak", alt.Tooltip("exact:Q", format=".5f")],
    ).properties(title=title or "streak length (exact)", width=360, height=220)


# -- convergence ------------------------------------------------------------------------------
def convergence_frame(p: float, die_faces: int = 6, rounds: int = 14, players: int = 2, games: int = 100_000,
                      seed: int = 0, confidence: float = CONFIDENCE, event: str = "six_win") -> pl.DataFrame:
    """Running estimate of P(six-win) (or P(longest streak >= 3): ``event="streak3"``) as games grow.

    Columns: n, estimate, low, high, exact, abs_error, and ``one_over_sqrt_n`` scaled to the
    standard deviation, the error scale the interval narrows with.
    """
    odds = streak_odds(float(p), die_faces, rounds, players)
    sim = simulate_streak_model(float(p), die_faces, rounds, players, games, np.random.default_rng(seed))
    if event == "six_win":
        hits, exact = sim["six_win_round"] > 0, float(odds.six_win)
    else:
        hits, exact = sim["longest"] >= 3, float(sum(v for k, v in odds.longest.items() if k >= 3))
    ns = np.unique(np.round(np.logspace(1, math.log10(games), 40)).astype(np.int64))
    k = np.cumsum(hits)[ns - 1]
    low, high = wilson(k, ns, confidence)
    est = k / ns
    sd = math.sqrt(exact * (1 - exact))
    return pl.DataFrame({"n": ns, "estimate": est, "low": low, "high": high, "exact": exact,
                         "abs_error": np.abs(est - exact), "one_over_sqrt_n": sd / np.sqrt(ns),
                         "half_width": (high - low) / 2})


def convergence_chart(frame: pl.DataFrame, title: str = "") -> alt.HConcatChart:
    """Estimate and interval narrowing onto the exact value; error against n with the 1/sqrt(n) line.

    Right panel, log-log: the error shrinks like one over the square root of the games.
    """
    base = alt.Chart(frame).encode(x=alt.X("n:Q", scale=alt.Scale(type="log"), title="games simulated"))
    band = base.mark_area(opacity=0.25, color=SIM_COLOUR).encode(y=alt.Y("low:Q", title="estimate"), y2="high:Q")
    est = base.mark_line(color=SIM_COLOUR).encode(y="estimate:Q")
    exact = alt.Chart(frame.select(pl.col("exact").first())).mark_rule(color=EXACT_COLOUR, strokeDash=[4, 3]).encode(
        y="exact:Q")
    left = alt.layer(band, est, exact).properties(title="estimate and interval vs exact", width=300, height=220)
    long = frame.unpivot(index="n", on=["abs_error", "one_over_sqrt_n", "half_width"], variable_name="measure")
    long = long.filter(pl.col("value") > 0)
    right = alt.Chart(long).mark_line(point=True).encode(
        x=alt.X("n:Q", scale=alt.Scale(type="log"), title="games simulated"),
        y=alt.Y("value:Q", scale=alt.Scale(type="log"), title="error"),
        color=alt.Color("measure:N", title=""),
    ).properties(title="error shrinks like 1/sqrt(n)", width=300, height=220)
    return alt.hconcat(left, right).properties(title=title or "convergence of the Monte Carlo estimate")


# -- the real game ----------------------------------------------------------------------------
def full_deck_summary(players: int, games: int, seed: int = 0, agents: Any = None,
                      confidence: float = CONFIDENCE, on_progress: Any = None, should_stop: Any = None,
                      **params: Any) -> pl.DataFrame:
    """P(six-win), win and draw rates and mean scores with intervals, from ``games`` simulated games."""
    params = dict(params, players=players)
    frame = simulate("dietower", games, params=params, agents=agents or ["random"] * players, seed=seed,
                     progress=False, on_progress=on_progress, should_stop=should_stop)
    return summarise(frame, confidence)


def summarise(frame: pl.DataFrame, confidence: float = CONFIDENCE) -> pl.DataFrame:
    """One row per measure: estimate with its interval (Wilson for rates, normal for means)."""
    n = frame.height
    players = sum(1 for c in frame.columns if c.startswith("score_p"))
    rows = []
    for name, k in [("P(six-win)", frame["six_win"].sum()), ("P(draw)", (frame["winner"] == "draw").sum())] + [
            (f"P(p{s} wins)", (frame["winner"] == f"p{s}").sum()) for s in range(1, players + 1)]:
        low, high = wilson(int(k), n, confidence)
        rows.append({"measure": name, "estimate": k / n, "lower": low, "upper": high, "n": n})
    z = z_value(confidence)
    for s in range(1, players + 1):
        col = frame[f"score_p{s}"]
        half = z * float(col.std()) / math.sqrt(n)
        rows.append({"measure": f"mean score p{s}", "estimate": float(col.mean()),
                     "lower": float(col.mean()) - half, "upper": float(col.mean()) + half, "n": n})
    for s in range(1, players + 1):
        col = frame[f"longest_streak_p{s}"]
        half = z * float(col.std()) / math.sqrt(n)
        rows.append({"measure": f"mean longest streak p{s}", "estimate": float(col.mean()),
                     "lower": float(col.mean()) - half, "upper": float(col.mean()) + half, "n": n})
    return pl.DataFrame(rows)


def reduced_deck_table(suits: range | list[int], players: int = 2, die_faces: int = 6, games: int = 0,
                       seed: int = 0, confidence: float = CONFIDENCE, on_progress: Any = None,
                       should_stop: Any = None) -> pl.DataFrame:
    """Exact odds of random play on reduced decks (as fractions and floats), optionally beside a simulation.

    A stop (``should_stop``) raises :class:`RunInterrupted` with the rows of the suits finished and of
    the suit cut short, its simulation over the games that finished.
    """
    rows: list[dict[str, Any]] = []
    for suit in suits:
        rules = Config(players=players, suit_size=suit, die_faces=die_faces)
        exact = random_play_odds(rules).summary()
        sim, cut = None, None
        if games:
            try:
                sim = simulate("dietower", games, params={"players": players, "suit_size": suit,
                                                          "die_faces": die_faces},
                               agents=["random"] * players, seed=seed, progress=False, on_progress=on_progress,
                               should_stop=should_stop)
            except RunInterrupted as exc:
                sim, cut = exc.partial, exc
        for key, value in exact.items():
            row = {"suit_size": suit, "measure": key, "exact_fraction": str(value), "exact": float(value)}
            if sim is not None and sim.height:
                row |= _simulated(sim, key, confidence)
            rows.append(row)
        if cut is not None:
            raise RunInterrupted(pl.DataFrame(rows) if rows else None, cut.done, cut.total)
    return pl.DataFrame(rows)


def _simulated(sim: pl.DataFrame, key: str, confidence: float) -> dict[str, Any]:
    n = sim.height
    if key.startswith("mean_score_"):
        col = sim[f"score_{key.removeprefix('mean_score_')}"]
        half = z_value(confidence) * float(col.std()) / math.sqrt(n)
        return {"simulated": float(col.mean()), "lower": float(col.mean()) - half, "upper": float(col.mean()) + half}
    k = {"six_win": sim["six_win"].sum(), "draw": (sim["winner"] == "draw").sum()}.get(key)
    if k is None:
        k = (sim["winner"] == key.removeprefix("win_")).sum()
    low, high = wilson(int(k), n, confidence)
    return {"simulated": k / n, "lower": low, "upper": high}


# -- optimal play -----------------------------------------------------------------------------
def equilibrium_frames(suit_size: int = 4, die_faces: int = 6, objectives: tuple[str, ...] = ("win", "points"),
                       agents: tuple[str, ...] = HEURISTICS) -> dict[str, pl.DataFrame]:
    """First-round equilibrium strategy, game value, solve time and heuristic losses per objective."""
    strategy, losses, facts = [], [], []
    rules = Config(suit_size=suit_size, die_faces=die_faces)
    for objective in objectives:
        sol = solve(rules, objective)
        for card, prob in sol.first_round().items():
            strategy.append({"objective": objective, "card": card_name(card, rules), "rank": card,
                             "probability": prob})
        losses += heuristic_losses(sol, agents)
        facts.append({"objective": objective, "suit_size": suit_size, "value": sol.value,
                      "states": len(sol.values), "matrix_games": sol.lps, "seconds": sol.seconds})
    return {"strategy": pl.DataFrame(strategy), "losses": pl.DataFrame(losses), "facts": pl.DataFrame(facts)}


def equilibrium_chart(frame: pl.DataFrame, title: str = "") -> alt.Chart:
    """The equilibrium mixed strategy of round 1, one panel per objective."""
    return alt.Chart(frame).mark_bar(color=EXACT_COLOUR).encode(
        x=alt.X("card:N", sort=alt.SortField("rank"), title="card"),
        y=alt.Y("probability:Q", title="probability", scale=alt.Scale(domain=[0, 1])),
        column=alt.Column("objective:N", title="objective"),
        tooltip=["objective", "card", alt.Tooltip("probability:Q", format=".3f")],
    ).properties(title=title or "equilibrium strategy in round 1", width=220, height=200)


def loss_chart(frame: pl.DataFrame, objective: str = "win") -> alt.Chart:
    """How much each heuristic loses against the equilibrium player and against a best response."""
    data = frame.filter(pl.col("objective") == objective).unpivot(
        index="agent", on=["loss_vs_equilibrium", "loss_vs_best_response"], variable_name="opponent")
    return alt.Chart(data).mark_bar().encode(
        x=alt.X("agent:N", title="heuristic agent"), xOffset="opponent:N",
        y=alt.Y("value:Q", title="loss against the game value"),
        color=alt.Color("opponent:N", title=""),
        tooltip=["agent", "opponent", alt.Tooltip("value:Q", format=".4f")],
    ).properties(title=f"what each heuristic gives away (objective {objective})", width=300, height=220)
