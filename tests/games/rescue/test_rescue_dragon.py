import itertools
from fractions import Fraction as F

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from workbench.core.errors import InputError, RunInterrupted
from workbench.core.sim.runner import simulate
from workbench.core.sim.seeding import game_seed
from workbench.games.rescue import dragon
from workbench.games.rescue.events import STUDIES


def test_appearance_is_uniform_over_rounds_1_to_6():
    assert dragon.appearance_odds() == {r: F(1, 6) for r in range(1, 7)}


@pytest.mark.parametrize(("rounds", "caught", "winner"), [
    ("example", [1, 1, 2], 2),   # the text: two catch it together, the third (later, alone) takes it
    ("alone first", [3, 1, 2], 1),
    ("all together", [2, 2, 2], None),
    ("tie then tie", [1, 1, 2, 2], None),
    ("tie then lone", [1, 1, 2, 2, 3], 4),
    ("nobody caught", [None, None], None),
    ("only one ever", [None, 5, None], 1),
])
def test_trophy_winner_same_round_rule(rounds, caught, winner):
    assert dragon.trophy_winner(caught) == winner


def test_two_players_one_half_by_hand():
    # each race round: only p1 1/4, only p2 1/4, both 1/4 (nobody, race over), neither 1/4 (again)
    assert dragon.trophy_odds("1/2,1/2") == {"p1": F(1, 3), "p2": F(1, 3), "nobody": F(1, 3)}
    # with 6 rounds the race lasts m = 1..6 rounds (uniform): P(p1) = 1/3 (1 - mean of (1/4)^m)
    p1 = F(1, 3) * (1 - sum(F(1, 4) ** m for m in range(1, 7)) / 6)
    assert p1 == F(2579, 8192)
    assert dragon.trophy_odds([F(1, 2), F(1, 2)], rounds=6) == {"p1": p1, "p2": p1, "nobody": 1 - 2 * p1}


def test_small_cases_by_hand():
    # one round played: the Dragon must come first (1/6) and exactly one catch it
    assert dragon.trophy_odds("1/3,1/2", rounds=1)["p1"] == F(1, 6) * F(1, 3) * F(1, 2)
    # everybody always catches it at once: nobody takes it
    assert dragon.trophy_odds("1", rounds=None, players=4)["nobody"] == 1
    assert dragon.trophy_odds("1", rounds=10, players=3)["nobody"] == 1
    # only p1 can catch it: p1 takes it once it appears in time
    assert dragon.trophy_odds("1,0,0", rounds=None)["p1"] == 1
    assert dragon.trophy_odds("1,0,0", rounds=3)["p1"] == F(1, 2)
    # p1 and p2 always catch together on the first race round, p3 later alone (the text's example)
    assert dragon.trophy_odds("1,1,1/2", rounds=None) == {"p1": 0, "p2": 0, "p3": F(1, 2), "nobody": F(1, 2)}


def _brute_force(catch, rounds):
    """Every vector of catch rounds, with its probability, through the rule function."""
    out = {}
    for appears in range(1, 7):
        options = [*range(appears, rounds + 1), None]
        for caught in itertools.product(options, repeat=len(catch)):
            prob = F(1, 6)
            for c, r in zip(catch, caught, strict=True):
                tries = (rounds - appears + 1) if r is None else r - appears
                prob *= (1 - c) ** tries * (1 if r is None else c)
            winner = dragon.trophy_winner(caught)
            key = "nobody" if winner is None else f"p{winner + 1}"
            out[key] = out.get(key, 0) + prob
    return out


def test_dynamic_programme_matches_brute_force():
    catch = (F(1, 3), F(1, 2), F(1, 5))
    exact = dragon.trophy_odds(catch, rounds=7)
    assert exact == {**dict.fromkeys(exact, 0), **_brute_force(catch, 7)}


def test_unlimited_race_is_the_limit_of_long_races():
    catch = (F(1, 3), F(1, 4), F(2, 5), F(1, 2))
    limit = dragon.race_unlimited(catch)
    long = dragon.race_by_rounds(catch, 120)[-1]
    assert all(abs(float(limit[i] - long[i])) < 1e-12 for i in range(4))


@pytest.mark.parametrize(("players", "catch", "rounds"), [(2, "0.3", 12), (3, "1/2,1/4,1/10", 8), (6, "0.3", None)])
def test_exact_inside_simulated_intervals(players, catch, rounds):
    tables = dragon.tables(catch, rounds, 20_000, seed=11, players=players)
    for name in ("appearance", "trophy"):
        t = tables[name]
        assert t["n"].to_list() == [20_000] * t.height
        assert t.filter((pl.col("exact") < pl.col("low")) | (pl.col("exact") > pl.col("high"))).is_empty(), t


def test_seeded_and_replayable():
    a = dragon.simulate("0.4", 10, 300, seed=5, players=3)
    assert_frame_equal(a, dragon.simulate("0.4", 10, 300, seed=5, players=3))
    row = a.row(123, named=True)
    assert row["game_seed"] == game_seed(5, 123)
    # game 123 replayed alone, from its index, through core's runner
    alone = simulate(dragon.DRAGON, 1, params={"players": 3, "catch": "0.4", "rounds": 10}, seed=5, start=123,
                     progress=False)
    assert alone.row(0, named=True) == row


def test_stop_keeps_finished_games_and_their_tables():
    chunks, answers = [], iter([False, True])

    def stop() -> bool:
        return next(answers)

    with pytest.raises(RunInterrupted) as stopped:
        dragon.simulate("0.3", 10, 5000, players=2, on_progress=lambda done, total: chunks.append((done, total)),
                        should_stop=stop)
    kept = stopped.value.partial  # the two chunks that finished before the stop was seen
    assert kept.height == chunks[1][0] < 5000 and chunks[1][1] == 5000
    assert kept["game_index"].to_list() == list(range(kept.height))
    answers = iter([False, True])
    tables = dragon.tables("0.3", 10, 5000, players=2, should_stop=stop)
    assert tables["games"].height == kept.height and tables["trophy"]["n"].to_list() == [kept.height] * 3


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"catch": "0.3", "players": 7}, ["players", "2 to 6"]),
    ({"catch": "0.3", "players": 1}, ["players", "2 to 6"]),
    ({"catch": "1.5", "players": 3}, ["catch", "[0, 1]"]),
    ({"catch": "0.1,0.2", "players": 3}, ["catch", "exactly 3"]),
    ({"catch": "lots", "players": 2}, ["catch", "fraction"]),
    ({"catch": "0.3"}, ["players"]),
    ({"catch": "0.3", "players": 2, "rounds": 0}, ["rounds", "1 to 200"]),
])
def test_bad_settings_name_the_setting(kwargs, words):
    with pytest.raises(InputError) as err:
        dragon.trophy_odds(**kwargs)
    assert all(w in str(err.value) for w in words)
    with pytest.raises(InputError, match="games"):
        dragon.simulate("0.3", 5, 0, players=2)


def test_study_tables_and_charts():
    study = {s.name: s for s in STUDIES}["dragon"]
    assert study.game_params is False
    settings = study.resolve({"players": 3, "catch": "1/2", "rounds": "none", "games": 500})
    assert settings["rounds"] is None
    tables = study.run(None, settings, {}, seed=1, workers=1, on_progress=None, should_stop=None)
    assert tables["trophy"]["outcome"].to_list() == ["p1", "p2", "p3", "nobody"]
    assert tables["appearance"]["exact_fraction"].to_list() == ["1/6"] * 6
    charts = study.make_charts(tables)
    assert set(charts) == {"appearance", "trophy"}
    spec = charts["trophy"].to_dict()
    assert [layer["mark"]["type"] for layer in spec["layer"]] == ["bar", "rule", "point"]
    with pytest.raises(InputError, match="players"):
        study.resolve({"players": 9})
