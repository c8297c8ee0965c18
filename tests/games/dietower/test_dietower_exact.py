"""Known values (by hand), exact-vs-brute-force, and Monte Carlo inside its interval of the exact value."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import polars as pl
import pytest

from workbench.core.errors import InputError
from workbench.core.sim.runner import simulate
from workbench.core.stats.rates import wilson, z_value
from workbench.games.dietower.exact import enumerate_orders, random_play_odds, simulate_streak_model, streak_odds
from workbench.games.dietower.rules import Config

CONFIDENCE = 0.999


def test_suits_of_two_cards_and_a_joker_by_hand():
    """Enumerated on paper: 3! x 3! = 36 equally likely pairs of card orders (L, H, Joker).

    A player scores only by taking the die (H against L) and then winning a later round.  p1 takes
    it in round 1 only with H vs L, leaving {L, J} vs {H, J}: p1 scores 1 only if round 2 is J vs J
    (then round 3 L vs H) — one pair of orders.  p1 takes it in round 2 (H vs L) after round 1
    L vs H, J vs H, L vs J or J vs J; only L vs H leaves J vs J for round 3 — one more pair.  So
    p1 wins (1 point to 0) in 2/36 = 1/18, p2 likewise, and 32/36 = 8/9 are 0-0 draws; no six-win.
    """
    odds = random_play_odds(Config(suit_size=2))
    assert odds.win(0) == odds.win(1) == F(1, 18)
    assert odds.draw == F(8, 9)
    assert odds.mean_score(0) == F(1, 18) and odds.six_win == 0
    assert odds.score_distribution(0) == {0: F(17, 18), 1: F(1, 18)}
    assert sum(odds.outcomes.values()) == 1


@pytest.mark.parametrize("rules", [
    Config(suit_size=3), Config(suit_size=4, die_faces=2), Config(suit_size=4, die_faces=3, six_win_scores=True),
    Config(players=3, suit_size=3, die_faces=2), Config(players=3, suit_size=2, nonbuilder_tie="keep"),
    Config(players=4, suit_size=2, die_faces=2),
], ids=str)
def test_forward_counting_equals_brute_force_over_card_orders(rules):
    assert random_play_odds(rules).outcomes == enumerate_orders(rules).outcomes


def test_streak_model_known_values():
    odds = streak_odds(F(1, 2), die_faces=6, rounds=14)
    # the first Builder's streak is geometric, cut at the six-win (6 wins in a row)
    assert odds.first_streak == {0: F(1, 2), 1: F(1, 4), 2: F(1, 8), 3: F(1, 16), 4: F(1, 32), 5: F(1, 64),
                                 6: F(1, 64)}
    assert sum(odds.points.values()) == 1 and sum(odds.longest.values()) == 1
    # a six-win needs the take (round 1) and 6 wins: impossible before round 7, p^6 by round 7
    assert odds.six_win_by[6] == 0 and odds.six_win_by[7] == F(1, 64)
    # always winning: the first Builder six-wins in round 7, scoring 1+..+5 = 15 if it is p1 (half the time)
    sure = streak_odds(F(1), die_faces=6, rounds=14)
    assert sure.six_win == 1 and sure.points == {0: F(1, 2), 15: F(1, 2)} and sure.longest == {6: 1}
    never = streak_odds(F(0), die_faces=6, rounds=14, players=3)
    assert never.six_win == 0 and never.points == {0: 1} and never.longest == {0: 1}
    assert isinstance(streak_odds(0.5).six_win, float)
    with pytest.raises(InputError, match="probability"):
        streak_odds(1.5)


def _inside(k: int, n: int, exact: F) -> bool:
    low, high = wilson(k, n, CONFIDENCE)
    return low <= float(exact) <= high


def _mean_inside(values: np.ndarray, dist: dict[int, F]) -> bool:
    mu = float(sum(k * p for k, p in dist.items()))
    var = float(sum(k * k * p for k, p in dist.items())) - mu * mu
    return abs(values.mean() - mu) <= z_value(CONFIDENCE) * math.sqrt(var / len(values))


@pytest.mark.parametrize("rules", [
    Config(suit_size=4, die_faces=3), Config(suit_size=5, die_faces=2, nonbuilder_tie="keep"),
    Config(players=3, suit_size=3, die_faces=2),
], ids=str)
def test_monte_carlo_falls_inside_its_interval_of_the_exact_value(rules):
    odds = random_play_odds(rules)
    params = {"players": rules.players, "suit_size": rules.suit_size, "die_faces": rules.die_faces,
              "nonbuilder_tie": rules.nonbuilder_tie}
    n = 200_000
    frame = simulate("dietower", n, params=params, agents=["random"] * rules.players, seed=2024, progress=False)
    assert _inside(frame["six_win"].sum(), n, odds.six_win)
    assert _inside((frame["winner"] == "draw").sum(), n, odds.draw)
    for seat in range(rules.players):
        assert _inside((frame["winner"] == f"p{seat + 1}").sum(), n, odds.win(seat))
        assert _mean_inside(frame[f"score_p{seat + 1}"].to_numpy(), odds.score_distribution(seat))
    rounds = frame.filter(pl.col("six_win"))["six_win_round"].value_counts()
    for r, k in rounds.iter_rows():
        assert _inside(k, n, odds.prob(lambda s, rr, w, r=r: rr == r))


@pytest.mark.parametrize("p, faces, rounds, players", [(0.6, 6, 14, 2), (0.5, 3, 10, 3), (0.8, 4, 14, 4)])
def test_streak_model_simulation_agrees_with_the_chain(p, faces, rounds, players):
    odds = streak_odds(F(p).limit_denominator(100), faces, rounds, players)
    n = 200_000
    sim = simulate_streak_model(p, faces, rounds, players, n, np.random.default_rng(7))
    assert _inside(int((sim["six_win_round"] > 0).sum()), n, odds.six_win)
    assert _mean_inside(sim["points"], odds.points)
    for k, pr in odds.longest.items():
        assert _inside(int((sim["longest"] == k).sum()), n, pr)
    for r in range(1, rounds + 1):
        assert _inside(int(((sim["six_win_round"] > 0) & (sim["six_win_round"] <= r)).sum()), n, odds.six_win_by[r])
