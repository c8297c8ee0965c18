"""Auto-balance: the bisection on known responses, its checks, and a game's response on the duel."""

from __future__ import annotations

import math

import polars as pl
import pytest

from workbench.core.design.balance import auto_balance, balance_chart, search
from workbench.core.errors import InputError
from workbench.core.sim.runner import simulate
from workbench.core.stats.rates import wilson


def _logistic(centre: float, n: int = 200_000, slope: float = 4.0, sign: int = 1):
    def response(x: float) -> tuple[int, int]:
        return round(n / (1 + math.exp(-sign * (x - centre) / slope))), n
    return response


def _chart_rows(chart) -> list[dict]:
    spec = chart.to_dict()
    return next(iter(spec["datasets"].values()))


@pytest.mark.parametrize("sign", [1, -1])
def test_search_finds_the_crossing_of_a_monotone_response(sign):
    tried = []

    def response(x):
        tried.append(x)
        return _logistic(23.4, sign=sign)(x)

    result = search(response, 0, 60, integer=True, max_evals=12, param="start_wall")
    # bisection on integers: both ends, then 30, 15, 22, 26, 24, 23 — the bracket is one step wide
    assert tried == [0, 60, 30, 15, 22, 26, 24, 23]
    assert result.found and result.value == pytest.approx(23.4, abs=0.1)
    assert result.value_low <= 23.4 <= result.value_high
    assert result.best in (23.0, 24.0) and not result.within  # 200,000 games: 23 is 47.5 % ± 0.2
    assert result.points.get_column("value").to_list() == [0.0, 15.0, 22.0, 23.0, 24.0, 26.0, 30.0, 60.0]
    assert result.summary().startswith("start_wall ≈ 23.4")
    rows = _chart_rows(balance_chart(result))
    assert [r["start_wall"] for r in rows] == result.points.get_column("value").to_list()
    assert [r["rate"] for r in rows] == result.points.get_column("rate").to_list()
    layers = balance_chart(result).to_dict()["layer"]
    assert layers[-1]["encoding"]["y"]["datum"] == 0.5  # the target line
    assert layers[0]["encoding"]["y"]["title"] == "rate"


def test_search_on_floats_and_without_a_crossing():
    result = search(_logistic(0.37, slope=0.1), 0.0, 1.0, integer=False, max_evals=14)
    assert result.value == pytest.approx(0.37, abs=0.01) and result.points.height == 14
    missing = search(_logistic(100.0, slope=40.0), 0, 10)
    assert not missing.found and missing.value is None and missing.best == 10
    assert missing.points.height == 2  # not bracketed: only the ends are tried
    assert "no value in the searched range" in missing.summary()
    with pytest.raises(InputError, match="low < high"):
        search(_logistic(1.0), 5, 5)
    with pytest.raises(InputError, match="at least 2 evaluations"):
        search(_logistic(1.0), 0, 5, max_evals=1)


def test_a_draw_counts_half_and_the_draws_are_shown_beside_the_score():
    """A response with draws: the score bisected is wins and half the draws over n, the draws in their column."""
    def response(x: int) -> tuple[int, int, int]:
        return 40 + 2 * x, 100, 10  # wins rise with the value, ten draws at every value

    result = search(response, 0, 10, max_evals=6)
    rows = {r["value"]: r for r in result.points.iter_rows(named=True)}
    assert rows[0.0]["draws"] == 10 and rows[0.0]["k"] == 40
    assert rows[0.0]["rate"] == pytest.approx(0.45)  # 40 wins and 10 draws of 100: 45 %, not 40 %
    assert (rows[0.0]["low"], rows[0.0]["high"]) == pytest.approx(wilson(45, 100))
    assert result.value == pytest.approx(2.5)  # 45 % + 2 points a step crosses 50 % at 2.5, not at 5
    assert search(lambda x: response(x)[:2], 0, 10, max_evals=6).value == pytest.approx(5.0)  # without draws


def test_search_stops_when_asked():
    calls = []

    def response(x):
        calls.append(x)
        return _logistic(23.4)(x)

    result = search(response, 0, 60, should_stop=lambda: len(calls) >= 3)
    assert calls == [0, 60, 30] and result.points.height == 3 and result.found


def test_the_parameter_and_range_are_checked():
    with pytest.raises(InputError, match="unknown parameter 'wall'; allowed: battlefield, deck"):
        auto_balance("duel", "wall", 0, 10)
    with pytest.raises(InputError, match="numeric parameter; duel parameter 'deck' is str; allowed values: regular"):
        auto_balance("duel", "deck", 0, 1)
    with pytest.raises(InputError, match=r"'second_bonus_wall': high=2000 is outside its declared range; "
                                         r"allowed: int in \[0, 1000\]"):
        auto_balance("duel", "second_bonus_wall", 0, 2000)
    with pytest.raises(InputError, match=r"'miss_rate': low=-0.1 is outside .* allowed: float in \[0, 1\]"):
        auto_balance("duel", "miss_rate", -0.1, 0.5)
    with pytest.raises(InputError, match="low must be a number"):
        auto_balance("duel", "miss_rate", "0", 0.5)
    with pytest.raises(InputError, match="duel has no seat 'p3'; allowed: p1, p2"):
        auto_balance("duel", "miss_rate", 0, 0.5, seat="p3")
    with pytest.raises(InputError, match="unknown battlefield|not allowed"):
        auto_balance("duel", "miss_rate", 0, 0.5, {"battlefield": "atlantis"})
    with pytest.raises(InputError, match="unknown game 'chess'"):
        auto_balance("chess", "miss_rate", 0, 0.5)


def test_a_game_without_a_first_seat_needs_a_named_seat():
    with pytest.raises(InputError, match="dietower games have no first seat .* seat='p1'"):
        auto_balance("dietower", "die_faces", 2, 12, games=20, max_evals=2)
    result = auto_balance("dietower", "die_faces", 2, 12, games=200, max_evals=2, seat="p1", seed=1)
    frame = simulate("dietower", 200, params={"die_faces": 12}, seed=1, progress=False)
    point = result.points.filter(pl.col("value") == 12).row(0, named=True)
    wins, draws = int((frame.get_column("winner") == "p1").sum()), int((frame.get_column("winner") == "draw").sum())
    assert (point["k"], point["draws"], point["n"]) == (wins, draws, 200)
    assert draws > 0  # the die game draws: each counts half to the seat's score, shown beside it
    assert point["rate"] == pytest.approx((wins + draws / 2) / 200)
    assert (point["low"], point["high"]) == pytest.approx(wilson(wins + draws / 2, 200))
    assert result.measure == "p1 score"


def test_duel_second_bonus_wall_keeps_its_numbers():
    evaluated = []
    result = auto_balance("duel", "second_bonus_wall", 0, 30, {"battlefield": "crystal_garden"},
                          agents=("greedy", "greedy"), games=150, seed=0, max_evals=3,
                          on_eval=lambda v, k, n: evaluated.append((v, k, n)))
    # the first seat's wins in the same games played directly, value by value
    for value, k, n in evaluated:
        frame = simulate("duel", 150, params={"battlefield": "crystal_garden", "second_bonus_wall": value},
                         agents="greedy,greedy", seed=0, progress=False)
        assert (k, n) == ((frame.get_column("winner") == frame.get_column("first_seat")).sum(), 150)
    # the numbers of the duel's own auto-balance before it moved to core (report settings "quick")
    assert evaluated == [(0, 93, 150), (30, 59, 150), (15, 62, 150)]
    assert result.value == pytest.approx(8.709677419354838)
    assert (result.value_low, result.value_high) == pytest.approx((2.9797285942733787, 14.501657179479464))
    assert (result.best, result.best_rate, result.within, result.found) == (15.0, 62 / 150, False, True)
    assert result.summary() == ("second_bonus_wall ≈ 8.71 (values compatible with 50%: 2.98–14.50); "
                                "best tried 15: 41.3% [33.8%–49.3%]")
    assert balance_chart(result).to_dict()["layer"][0]["encoding"]["y"]["title"] == "first seat score"
