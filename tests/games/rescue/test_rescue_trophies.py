import itertools
from fractions import Fraction as F

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from workbench.core.errors import InputError
from workbench.games.rescue import trophies
from workbench.games.rescue.events import STUDIES


@pytest.mark.parametrize(("counts", "winner"), [
    ((3, 2), 0), ((2, 3), 1), ((2, 2, 1), None), ((1, 1, 3), 2), ((5, 0, 0, 0), 0), ((1, 1, 1, 1, 1, 0), None),
])
def test_trophy_winner_most_tokens_tie_gives_nobody(counts, winner):
    assert trophies.trophy_winner(counts) == winner


def test_two_players_half_by_hand():
    # P(p1) = P(at least 3 of 5) = 1/2; 5 is odd, so no tie
    assert trophies.trophy_odds("1/2,1/2") == {"p1": F(1, 2), "p2": F(1, 2), "nobody": 0}
    assert trophies.trophy_odds("1,1") == trophies.trophy_odds("1/2,1/2")  # propensities are normalised


def test_three_players_equal_by_hand():
    # ties for most only at (2, 2, 1): 3 placements x 5!/(2!2!1!) = 90 of 3**5 = 243 sequences
    assert trophies.trophy_odds("1", players=3) == {"p1": F(17, 81), "p2": F(17, 81), "p3": F(17, 81),
                                                    "nobody": F(90, 243)}


def test_certain_builder_and_zero_propensity():
    assert trophies.trophy_odds("1,0,0") == {"p1": 1, "p2": 0, "p3": 0, "nobody": 0}
    # 2 of 3 players: p3 never builds, so the 2-player answer
    assert trophies.trophy_odds("1,1,0")["nobody"] == 0


@pytest.mark.parametrize("weights", [(F(1, 2), F(1, 4), F(1, 4)), (F(1, 10), F(2, 10), F(3, 10), F(4, 10))])
def test_multinomial_matches_every_token_sequence(weights):
    out = {}
    for owners in itertools.product(range(len(weights)), repeat=5):
        prob = F(1)
        for o in owners:
            prob *= weights[o]
        winner = trophies.trophy_winner([owners.count(i) for i in range(len(weights))])
        key = "nobody" if winner is None else f"p{winner + 1}"
        out[key] = out.get(key, 0) + prob
    exact = trophies.trophy_odds(list(weights))
    assert exact == {**dict.fromkeys(exact, 0), **out}
    assert sum(exact.values()) == 1


def test_greedy_colour_choice():
    # two players, three colours; p1 (index 0) chooses
    tokens = [[3, 0], [1, 1], [0, 3]]
    left = [2, 3, 2]
    # colour 0: 3 > 0 + 2 clinched; colour 1: open, lead 0; colour 2: 0 + 2 < 3 lost → colour 1
    assert trophies.greedy_colour(0, tokens, left) == 1
    assert trophies.greedy_colour(0, tokens, [2, 0, 2]) == 0  # only a clinched colour left
    assert trophies.greedy_colour(0, [[0, 3]], [2]) is None  # nothing winnable: builds at random


@pytest.mark.parametrize(("propensities", "strategies", "colours"), [
    ("1/2,1/2", "random", 1), ("1", "random", 3), ("1,1,2", "greedy", 1), ("1,2,3,4,5,6", "random", 2),
])
def test_exact_inside_simulated_intervals(propensities, strategies, colours):
    games = 20_000 // colours
    table = trophies.tables(propensities, games, seed=17, players=None if "," in propensities else 3,
                            strategies=strategies, colours=colours)["trophy"]
    assert table["exact_applies"].all()
    assert table["n"].to_list() == [games * colours] * table.height
    assert table.filter((pl.col("exact") < pl.col("low")) | (pl.col("exact") > pl.col("high"))).is_empty(), table


def test_greedy_changes_the_odds_and_seeds_replay():
    greedy = trophies.tables("1,1,2", 3000, seed=2, strategies="greedy,random,random", colours=4)["trophy"]
    assert not greedy["exact_applies"].any()
    p1 = greedy.row(0, named=True)
    assert p1["low"] > p1["exact"]  # the greedy builder takes more trophies than random building gives it
    a = trophies.simulate("1,1,2", 200, seed=4, strategies="greedy", colours=3)
    assert_frame_equal(a, trophies.simulate("1,1,2", 200, seed=4, strategies="greedy", colours=3))
    assert a.group_by("game_index").agg(pl.sum_horizontal("tokens_p1", "tokens_p2", "tokens_p3").sum())[
        "tokens_p1"].unique().to_list() == [15]


@pytest.mark.parametrize(("call", "words"), [
    (lambda: trophies.trophy_odds("1,2", players=3), ["propensities", "exactly 3"]),
    (lambda: trophies.trophy_odds("0,0"), ["propensities", "not all 0"]),
    (lambda: trophies.trophy_odds("1,-1"), ["propensities", ">= 0"]),
    (lambda: trophies.trophy_odds("1", players=8), ["players", "2 to 6"]),
    (lambda: trophies.simulate("1,1", 10, strategies="clever"), ["strategies", "random | greedy"]),
    (lambda: trophies.simulate("1,1", 10, colours=0), ["colours", "1 to 12"]),
    (lambda: trophies.simulate("1,1", 0), ["games", "at least 1"]),
])
def test_bad_settings_name_the_setting(call, words):
    with pytest.raises(InputError) as err:
        call()
    assert all(w in str(err.value) for w in words)


def test_study_tables_and_charts():
    study = {s.name: s for s in STUDIES}["trophies"]
    settings = study.resolve({"players": 3, "propensities": "1,1,2", "games": 500})
    tables = study.run(None, settings, {}, seed=1, workers=1, on_progress=None, should_stop=None)
    assert tables["trophy"]["outcome"].to_list() == ["p1", "p2", "p3", "nobody"]
    assert tables["trophy"]["exact_fraction"].to_list() == ["53/512", "53/512", "1/2", "75/256"]
    spec = study.make_charts(tables)["trophy"].to_dict()
    assert [layer["mark"]["type"] for layer in spec["layer"]] == ["bar", "rule", "point"]
    with pytest.raises(InputError, match="colours"):
        study.resolve({"colours": 40})
