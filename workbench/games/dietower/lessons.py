"""Tower of Babel (die streak): its lessons (``MODEL.lessons`` names ``LESSONS``; core/studies/lessons.py).

* ``streak``: the teacher's streak model (``exact.streak_odds``) — the chance of a six-win (a rate
  with its Wilson interval), the mean of p1's points and of the longest streak (with the half-width
  at the teaching page's one level, ``core.studies.lessons.LEVEL``) — exact beside a simulation, for sliders of p,
  die faces, rounds and players.  With ``games`` 0 it is exact only (milliseconds), so the exact
  numbers follow the sliders at once;
* ``reduced_decks``: the real game's exact odds on reduced decks beside a simulation (a study).

The exact six-win chance is a fraction where the chain is small enough to keep as fractions
(``die_faces × rounds × players`` up to ``FRACTION_LIMIT``: every default size), else the same
chain in floating point.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import polars as pl

from workbench.core.errors import RunInterrupted
from workbench.core.lazy import lazy
from workbench.core.model import GameModel, Param
from workbench.core.stats.rates import wilson, z_value
from workbench.core.studies.lessons import LEVEL as CONFIDENCE
from workbench.core.studies.lessons import Lesson, Question
from workbench.core.studies.study import Study
from workbench.games.dietower.analysis import distribution_chart, six_win_chart, streak_length_chart
from workbench.games.dietower.exact import simulate_streak_model, streak_odds

alt = lazy("altair")  # imported when the first chart is drawn: a page that draws none never loads it

FRACTION_LIMIT = 1000  # die_faces * rounds * players up to this: the six-win chance as an exact fraction
FRACTION_DIGITS = 40  # longer fractions are not shown
CHUNK = 20_000  # simulated games between two progress reports (and Stop checks)


def _p(value: float) -> Fraction:
    """The slider's p as the fraction it stands for (0.35 → 7/20)."""
    return Fraction(value).limit_denominator(1000)


def _fraction_text(x: Fraction | None) -> str:
    text = "" if x is None else str(x)
    return text if len(text) <= FRACTION_DIGITS else ""


def _exact_frames(p: float, die_faces: int, rounds: int, players: int) -> dict[str, pl.DataFrame]:
    """The streak model's exact distributions alone, with empty simulated columns (``games`` = 0)."""
    odds = streak_odds(float(p), die_faces, rounds, players)
    empty = {"count": pl.lit(None, pl.Int64), "simulated": pl.lit(None, pl.Float64), "low": pl.lit(None, pl.Float64),
             "high": pl.lit(None, pl.Float64), "n": pl.lit(0, pl.Int64)}

    def dist(d: dict[int, Any], key: str) -> pl.DataFrame:
        values = list(range(0, max(d) + 1))
        return pl.DataFrame({key: values, "exact": [float(d.get(v, 0.0)) for v in values]}).with_columns(**empty)

    return {"points": dist(odds.points, "value"), "longest": dist(odds.longest, "value"),
            "six_win_by_round": pl.DataFrame({"round": list(range(1, rounds + 1)),
                                              "exact": [float(x) for x in odds.six_win_by[1:]]}).with_columns(**empty),
            "first_streak": pl.DataFrame({"streak": list(odds.first_streak),
                                          "exact": [float(x) for x in odds.first_streak.values()]})}


def _simulated_frames(p: float, die_faces: int, rounds: int, players: int, games: int, seed: int,
                      on_progress: Callable[[int, int], None] | None,
                      should_stop: Callable[[], bool] | None) -> dict[str, pl.DataFrame]:
    """The streak model's exact distributions beside a simulation of ``games`` games, played in chunks.

    Each chunk reports ``on_progress(done, games)``; ``should_stop()`` ends the run between chunks
    (:class:`RunInterrupted`, nothing half-counted).  One generator seeded by ``seed`` draws every chunk.
    """
    odds = streak_odds(float(p), die_faces, rounds, players)
    rng = np.random.default_rng(seed)
    points, longest, six = np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(rounds + 1, np.int64)

    def add(total: np.ndarray, values: np.ndarray) -> np.ndarray:
        counts = np.bincount(values)
        size = max(len(total), len(counts))
        return np.pad(total, (0, size - len(total))) + np.pad(counts, (0, size - len(counts)))

    done = 0
    while done < games:
        if should_stop is not None and should_stop():
            raise RunInterrupted(None, done, games)
        chunk = min(CHUNK, games - done)
        sim = simulate_streak_model(float(p), die_faces, rounds, players, chunk, rng)
        points, longest = add(points, sim["points"]), add(longest, sim["longest"])
        six += np.bincount(sim["six_win_round"], minlength=rounds + 1)[: rounds + 1]
        done += chunk
        if on_progress is not None:
            on_progress(done, games)

    def with_range(frame: pl.DataFrame) -> pl.DataFrame:
        low, high = wilson(frame["count"].to_numpy(), games, CONFIDENCE)
        return frame.with_columns((pl.col("count") / games).alias("simulated"), pl.Series("low", low),
                                  pl.Series("high", high), pl.lit(games, pl.Int64).alias("n"))

    out = {}
    for name, exact, counts in (("points", odds.points, points), ("longest", odds.longest, longest)):
        values = np.arange(0, max(max(exact) + 1, len(counts)))
        counts = np.pad(counts, (0, len(values) - len(counts)))
        out[name] = with_range(pl.DataFrame({"value": values, "exact": [float(exact.get(int(v), 0.0)) for v in values],
                                             "count": counts}))
    out["six_win_by_round"] = with_range(pl.DataFrame({
        "round": np.arange(1, rounds + 1), "exact": [float(x) for x in odds.six_win_by[1:]],
        "count": np.cumsum(six[1:])}))
    out["first_streak"] = pl.DataFrame({"streak": list(odds.first_streak),
                                        "exact": [float(x) for x in odds.first_streak.values()]})
    return out


def _mean_row(name: str, frame: pl.DataFrame, exact: float) -> dict[str, Any]:
    """A mean of a distribution frame (value, exact, count): exact beside simulated with its 95 % half-width."""
    counts = frame["count"].fill_null(0)
    n = int(counts.sum())
    row = {"quantity": name, "exact": exact, "simulated": None, "half_width": None, "n": n}
    if n:
        values, counts = frame["value"].to_numpy(), counts.to_numpy()
        mean = float((values * counts).sum() / n)
        sd = math.sqrt(max(0.0, float((counts * (values - mean) ** 2).sum() / max(1, n - 1))))
        row |= {"simulated": mean, "half_width": z_value(CONFIDENCE) * sd / math.sqrt(n)}
    return row


def _streak(model: GameModel | None, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
            on_progress: Callable[[int, int], None] | None,
            should_stop: Callable[[], bool] | None) -> dict[str, pl.DataFrame]:
    p, faces, rounds, players, games = (settings[k] for k in ("p", "die_faces", "rounds", "players", "games"))
    exact_p = _p(p)
    small = faces * rounds * players <= FRACTION_LIMIT
    odds = streak_odds(exact_p if small else float(exact_p), faces, rounds, players)
    frames = (_simulated_frames(float(exact_p), faces, rounds, players, games, seed, on_progress, should_stop)
              if games else _exact_frames(float(exact_p), faces, rounds, players))
    six = frames["six_win_by_round"].row(-1, named=True)
    k = int(six["count"] or 0)
    low, high = wilson(k, games, CONFIDENCE) if games else (None, None)
    six_win = pl.DataFrame([{"quantity": f"a six-win within {rounds} rounds", "exact": float(odds.six_win),
                             "exact_fraction": _fraction_text(odds.six_win) if small else "",
                             "simulated": k / games if games else None, "simulated_low": low, "simulated_high": high,
                             "n": games}],
                           schema={"quantity": pl.String, "exact": pl.Float64, "exact_fraction": pl.String,
                                   "simulated": pl.Float64, "simulated_low": pl.Float64,
                                   "simulated_high": pl.Float64, "n": pl.Int64})
    means = pl.DataFrame([_mean_row("p1's points", frames["points"], float(odds.mean("points"))),
                          _mean_row("longest streak", frames["longest"], float(odds.mean("longest")))],
                         schema={"quantity": pl.String, "exact": pl.Float64, "simulated": pl.Float64,
                                 "half_width": pl.Float64, "n": pl.Int64})
    return {"six_win": six_win, "means": means, **frames}


def _streak_charts(tables: dict[str, pl.DataFrame]) -> dict[str, alt.TopLevelMixin]:
    return {"six_win": six_win_chart(tables["six_win_by_round"]),
            "points": distribution_chart(tables["points"], title="p1's points: exact (bars), simulated (points)",
                                         x_title="points"),
            "longest": distribution_chart(tables["longest"], title="longest streak of the game",
                                          x_title="rounds won in a row"),
            "first_streak": streak_length_chart(tables["first_streak"])}


STREAK = Study("streak", "The streak model: exact odds beside a simulation", _streak, (
    Param("p", 0.5, float, "chance the Builder wins a round (read as a fraction: 0.35 is 7/20)", 0.0, 1.0),
    Param("die_faces", 6, int, "faces of the die; winning on the top face ends the game (a six-win)", 2, 20),
    Param("rounds", 14, int, "rounds in a game", 2, 30),
    Param("players", 2, int, "players", 2, 4),
    Param("games", 100_000, int, "simulated games (0: exact only)", 0, 2_000_000),
), _streak_charts, "In round 1 a random player takes the die at 1; then the Builder wins a round with chance p, "
   "scores the die and raises it — on the top face it wins the game — else the die passes on at 1.",
    game_params=False)

STREAK_INTRO = ("Two or more players pass a die around. Each round the Builder either wins the round (with chance p) "
                "— then scores the number on the die and turns it up by one — or loses it, and the die goes to the "
                "next player starting again at 1. Whoever wins a round with the die on its top face wins the whole "
                "game at once: a six-win. How likely is a six-win in a game, and how long do winning streaks get? "
                "The exact chance is worked out by following every way the die can move, round by round; the "
                "simulation plays the game many times and counts.")
REDUCED_INTRO = ("The real game is played with a deck of cards. To get exact answers the computer must go through "
                 "every order the cards can be dealt in — far too many for a full deck, so this lesson uses small "
                 "decks (a few cards per suit), where every order can be counted. For each deck size you see the "
                 "exact chance of each result beside what a simulation of the same deck measured.")
STREAK_QUESTION = Question("With a chance p = {p} of the Builder winning each round, a die with {die_faces} faces, "
                           "{rounds} rounds and {players} players: how likely is a six-win (someone winning a round "
                           "while the die shows its top face) before the game ends?", "six_win")
REDUCED_QUESTION = Question("With {players} players and the smallest deck ({smallest_suit} cards per suit), how likely "
                            "is it that the game ends in a draw?", "odds",
                            {"suit_size": "{smallest_suit}", "measure": "draw"})
LESSONS = (Lesson(STREAK, STREAK_INTRO, "The die streak: how often does a six-win happen?", STREAK_QUESTION),
           Lesson("reduced_decks", REDUCED_INTRO, "Small decks: how often is a game a draw?", REDUCED_QUESTION))
