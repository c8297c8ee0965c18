"""The Dragon and tower-trophy races as protocol models run by core's runner.

Their own columns must equal the frames of the loops they replace (golden frames written before the
change, ``tests/golden/frames/rescue_*_loop.parquet``), and every row now carries the runner's
shared columns.  The outcome columns and the chance nodes are checked against values worked out
independently: by hand, and by walking the model's chance tree against the exact dynamic programme.
"""

from __future__ import annotations

from fractions import Fraction as F
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from workbench.core.errors import RunInterrupted
from workbench.core.model import CHANCE, TERMINAL, from_ref, model_ref
from workbench.core.sim.play import play_game
from workbench.core.sim.seeding import game_seed
from workbench.core.studies.study import get_study
from workbench.games.rescue import dragon, trophies

# one worker builds this module's shared fixtures once (pytest -n 2 --dist loadgroup)
pytestmark = pytest.mark.xdist_group("test_rescue_races")

GOLDEN = Path(__file__).parents[2] / "golden" / "frames"
SHARED = ["game", "rules_version", "params_hash", "master_seed", "game_index", "game_seed"]


def _carries_the_shared_columns(frame: pl.DataFrame, version: str, seed: int, agents: list[str],
                                params: dict) -> None:
    assert frame.columns[:len(SHARED)] == SHARED
    assert frame["game"].unique().to_list() == ["rescue"]
    assert frame["rules_version"].unique().to_list() == [version]
    assert frame["params_hash"].null_count() == 0 and frame["params_hash"].n_unique() == 1
    assert len(frame["params_hash"][0]) == 16
    assert frame["master_seed"].unique().to_list() == [seed]
    games = frame["game_index"].unique().sort().to_list()
    assert frame.group_by("game_index").agg(pl.col("game_seed").first()).sort("game_index")[
        "game_seed"].to_list()[:5] == [game_seed(seed, g) for g in games[:5]]
    assert [frame[f"agent_p{i + 1}"].unique().to_list() for i in range(len(agents))] == [[a] for a in agents]
    assert {k: frame[k].unique().to_list() for k in params} == {k: [v] for k, v in params.items()}


# -- the Dragon ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def dragon_frame():
    return dragon.simulate([0.3, 0.2, 0.5], 12, 3000, seed=7, players=3)


def test_dragon_columns_equal_the_old_loops_frame(dragon_frame):
    golden = pl.read_parquet(GOLDEN / "rescue_dragon_loop.parquet")
    assert_frame_equal(dragon_frame.select(golden.columns), golden, check_exact=True)


def test_dragon_rows_carry_rules_version_params_hash_seeds_and_parameters(dragon_frame):
    _carries_the_shared_columns(dragon_frame, "rescue-dragon-1", 7, ["none"] * 3,
                                {"players": 3, "catch": "0.3,0.2,0.5", "rounds": 12})
    # the hash names the settings: equal settings (however written) share it, another catch does not
    same = dragon.simulate("0.3,0.2,0.5", 12, 5, seed=1, players=3)["params_hash"][0]
    other = dragon.simulate("0.3,0.2,0.4", 12, 5, seed=1, players=3)["params_hash"][0]
    assert same == dragon_frame["params_hash"][0] != other


def test_dragon_outcome_columns_say_who_took_it_how_and_after_how_many_rounds(dragon_frame):
    rounds = 12
    for row in dragon_frame.iter_rows(named=True):
        caught = [row[f"catch_round_p{i}"] for i in (1, 2, 3)]
        assert row["winner"] == ("draw" if row["trophy"] == "nobody" else row["trophy"])
        assert row["first_seat"] is None
        if row["dragon_round"] > rounds:  # never out (it cannot be with 12 rounds: rounds 1..6)
            expected_reason, expected_length = "not_out", 0
        else:
            # the race runs until everyone has caught it, or to the last round
            last = max(caught) if None not in caught else rounds
            expected_length = last - row["dragon_round"] + 1
            expected_reason = ("lone_catch" if row["trophy"] != "nobody"
                               else "shared_catches" if any(r is not None for r in caught) else "not_caught")
        assert (row["reason"], row["length"]) == (expected_reason, expected_length), row
    assert set(dragon_frame["reason"]) == {"lone_catch", "shared_catches", "not_caught"}


def test_dragon_reasons_by_hand():
    # everyone always catches it at once: a shared catch in the Dragon's round, one race round
    frame = dragon.simulate("1", 10, 60, seed=3, players=3)
    assert set(frame["reason"]) == {"shared_catches"} and set(frame["length"]) == {1}
    assert (frame["catch_round_p1"] == frame["dragon_round"]).all()
    # only p1 can catch it, surely: p1 alone in the Dragon's round, then nobody races
    frame = dragon.simulate("1,0,0", 10, 60, seed=3)
    assert set(frame.select("winner", "reason", "length").iter_rows()) == {("p1", "lone_catch", 1)}
    # one round played: the Dragon is out in time only when it comes first (1/6)
    frame = dragon.simulate("1,0", 1, 600, seed=3)
    late = frame.filter(pl.col("dragon_round") > 1)
    assert set(late["reason"]) == {"not_out"} and set(late["length"]) == {0} and late["catch_round_p1"].is_null().all()
    assert set(frame.filter(pl.col("dragon_round") == 1)["reason"]) == {"lone_catch"}


def _seed_with_dragon_in(config, appears: int):
    return next(s for s in range(10_000) if dragon.DRAGON.initial_state(config, s).appears == appears)


def test_walking_the_chance_tree_gives_the_exact_dynamic_programme():
    model = dragon.DRAGON
    config = model.make_config(model.resolve_params({"players": 3, "catch": "1/2,1/3,1/4", "rounds": 5}))

    def walk(state) -> dict[str, float]:
        if model.current_player(config, state) == TERMINAL:
            return {model.result_row(config, state)["trophy"]: 1.0}
        outcomes = model.chance_outcomes(config, state)
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        out: dict[str, float] = {}
        for outcome, p in outcomes:
            for k, v in walk(model.apply(config, state, outcome)).items():
                out[k] = out.get(k, 0.0) + p * v
        return out

    tree: dict[str, float] = {}
    for appears in range(1, 7):  # the Dragon's round is uniform over 1..6 (tested by counting the 720 orders)
        for k, v in walk(model.initial_state(config, _seed_with_dragon_in(config, appears))).items():
            tree[k] = tree.get(k, 0.0) + v / 6
    exact = dragon.trophy_odds([F(1, 2), F(1, 3), F(1, 4)], rounds=5)
    assert tree == pytest.approx({k: float(v) for k, v in exact.items() if v}, abs=1e-12)


def test_workers_find_the_dragon_model_and_play_the_same_frame():
    assert model_ref(dragon.DRAGON) == "workbench.games.rescue.dragon:DRAGON"
    assert from_ref(model_ref(dragon.DRAGON)) is dragon.DRAGON
    serial = dragon.simulate("0.3", 12, 1200, seed=4, players=4)
    assert_frame_equal(dragon.simulate("0.3", 12, 1200, seed=4, players=4, workers=2), serial)


# -- tower trophies -----------------------------------------------------------------------------------
STRATEGIES = ["greedy", "random", "greedy", "random"]


@pytest.fixture(scope="module")
def trophy_frame():
    return trophies.simulate([1, 2, 1, 1], 500, seed=8, players=4, strategies=",".join(STRATEGIES), colours=3)


def test_trophy_columns_equal_the_old_loops_frame(trophy_frame):
    golden = pl.read_parquet(GOLDEN / "rescue_trophies_loop.parquet")
    assert_frame_equal(trophy_frame.select(golden.columns), golden, check_exact=True)


def test_trophy_rows_carry_the_shared_columns_with_strategies_as_agents(trophy_frame):
    _carries_the_shared_columns(trophy_frame, "rescue-trophies-1", 8, STRATEGIES,
                                {"players": 4, "propensities": "1,2,1,1", "colours": 3})
    assert (trophy_frame.group_by("game_index").len()["len"] == 3).all()  # one row per race and colour


def test_trophy_outcome_columns_follow_the_trophies_taken(trophy_frame):
    per_game = trophy_frame.group_by("game_index", maintain_order=True).agg(
        pl.col("trophy"), pl.col("winner", "reason", "length", "first_seat").first())
    for trophy, winner, reason, length, first in per_game.select("trophy", "winner", "reason", "length",
                                                                 "first_seat").iter_rows():
        counts = {s: trophy.count(s) for s in ("p1", "p2", "p3", "p4")}
        best = max(counts.values())
        leaders = [s for s, c in counts.items() if c == best]
        assert (winner, reason) == ((leaders[0], "most_trophies") if len(leaders) == 1 else ("draw", "tied_trophies"))
        assert length == 15 and first in counts  # 3 colours × 5 tokens, one build each
    assert set(per_game["reason"]) == {"most_trophies", "tied_trophies"}


def test_trophy_chance_nodes_are_the_normalised_propensities():
    model = trophies.TROPHIES
    config = model.make_config(model.resolve_params({"players": 3, "propensities": "1,1,2", "colours": 2}))
    state = model.initial_state(config, 5)
    assert model.current_player(config, state) == CHANCE  # chance picks the first builder
    assert model.chance_outcomes(config, state) == pytest.approx([(0, 0.25), (1, 0.25), (2, 0.5)])
    builder, state = model.sample_chance(config, state)
    state = model.apply(config, state, builder)
    assert model.current_player(config, state) == builder
    assert model.legal_actions(config, state, builder) == (0, 1)
    state = model.apply(config, state, 1)
    assert state.tokens[1][builder] == 1 and state.left == (5, 4)


def test_stopped_trophy_race_keeps_finished_races_by_colour():
    ticks, answers = [], iter([True])
    with pytest.raises(RunInterrupted) as stopped:
        trophies.simulate("1", 2000, seed=2, players=3, colours=2, should_stop=lambda: next(answers),
                          on_progress=lambda done, total: ticks.append((done, total)))
    done = ticks[0][0]
    assert ticks == [(done, 2000)] and stopped.value.done == done < 2000
    assert stopped.value.partial.height == 2 * done  # each finished race, one row per colour


def test_workers_find_the_trophy_model():
    assert model_ref(trophies.TROPHIES) == "workbench.games.rescue.trophies:TROPHIES"
    assert from_ref(model_ref(trophies.TROPHIES)) is trophies.TROPHIES


@pytest.mark.parametrize("name", ["dragon", "trophies"])
def test_the_study_reports_progress_and_a_stop_keeps_the_finished_games_tables(name):
    study = get_study("rescue", name)
    ticks = []
    settings = {"players": 3, "games": 3000}
    with pytest.raises(RunInterrupted) as stopped:  # a stopped study says so, handing over what finished
        study.execute("rescue", settings, seed=1, on_progress=lambda done, total: ticks.append((done, total)),
                      should_stop=lambda: len(ticks) >= 2)
    tables = stopped.value.partial
    done = ticks[-1][0]
    assert [t for _, t in ticks] == [3000] * len(ticks) and [d for d, _ in ticks] == sorted({d for d, _ in ticks})
    assert len(ticks) == 2 and 0 < done < 3000  # stopped after the second chunk
    assert (stopped.value.done, stopped.value.total) == (done, 3000)  # the true count of finished games
    per_game = 4 if name == "trophies" else 1  # the trophies study pools its 4 colours
    assert tables["games"]["game_index"].n_unique() == done
    assert tables["trophy"]["n"].to_list() == [done * per_game] * 4
    assert tables["trophy"]["k"].sum() == done * per_game


@pytest.mark.parametrize(("model", "params", "agents"), [
    (dragon.DRAGON, {"players": 4, "catch": "1/2,1/3,0,1/5", "rounds": 9}, ["none"] * 4),
    (dragon.DRAGON, {"players": 2, "catch": "0.3", "rounds": None}, ["none"] * 2),
    (trophies.TROPHIES, {"players": 3, "propensities": "1,0,2", "colours": 3}, ["greedy", "random", "greedy"]),
])
def test_every_step_keeps_the_invariants_and_rows_match_the_schema(model, params, agents):
    resolved = model.resolve_params(params)
    config, players = model.make_config(resolved), [model.make_agent(a) for a in agents]
    broken: list[str] = []

    def check(before, who, action, after) -> None:
        broken.extend(model.invariants(config, after))

    for seed in range(40):
        row = model.result_row(config, play_game(model, config, players, seed, observer=check))
        assert list(row) == list(model.result_schema(resolved))
        assert 0 <= row["length"] <= model.max_length(resolved)
    assert not broken
