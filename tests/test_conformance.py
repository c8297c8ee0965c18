"""The conformance suite every registered game passes (STYLE.md, layer 2), parametrised over the registry.

Seeded games with every declared agent end within the model's bound with a reason; the model's
invariants hold after every step of the reference loop; the frame matches the declared schema;
the same seed gives an identical frame for 1 and 2 workers, any chunk size and Dask; any row
replays alone; an agent the compiled engine cannot play falls back to the reference loop (the
fast-vs-reference parity of every declared variant is ``tests/test_parity.py``).  The toy game of
``tests/toygame`` (registered by ``tests/conftest.py``) is in the registry too: a game that is only
a rules file and a model declaration passes all of this.
"""

from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from workbench.core.model import CHANCE, AgentSpec, game_names, get_game
from workbench.core.sim.play import acting, play_chunk, play_game
from workbench.core.sim.runner import simulate
from workbench.core.sim.seeding import game_seeds

GAMES = game_names()
N = 120
SHARED = ("game", "rules_version", "params_hash", "master_seed", "game_index", "game_seed")
# cheap options for agents whose defaults take seconds a game
QUICK = {"search": "search:budget=4,horizon=3,width=2", "ismcts": "ismcts:budget=2"}


def _random_agents(model):
    return ",".join(["random"] * model.players(model.make_config(model.resolve_params())))


@pytest.fixture(scope="module", params=GAMES)
def game(request):
    return request.param


@pytest.fixture(scope="module")
def serial(game):
    model = get_game(game)
    return simulate(game, N, agents=_random_agents(model), seed=11, progress=False, engine="reference")


def test_the_registry_finds_every_game_package_and_the_toy():
    assert {"duel", "dietower", "toy"} <= set(GAMES)
    for name in GAMES:
        model = get_game(name)
        assert model.name == name and model.title and model.rules_version
        assert 2 <= model.min_players <= model.max_players <= 6
        assert "random" in model.agents


def test_frame_matches_the_declared_schema(game, serial):
    model = get_game(game)
    params = model.resolve_params()
    n = model.players(model.make_config(params))
    declared = model.result_schema(params)
    assert serial.columns[:len(SHARED)] == list(SHARED)
    assert serial.columns[len(SHARED):len(SHARED) + n] == [f"agent_p{i + 1}" for i in range(n)]
    assert serial.select(p.name for p in model.params).schema == pl.Schema({p.name: p.dtype for p in model.params})
    assert serial.select(list(declared)).schema == pl.Schema(declared)
    assert len(serial.columns) == len(SHARED) + n + len(model.params) + len(declared)


def test_nothing_negative_and_every_game_ends(game, serial):
    model = get_game(game)
    numeric = [c for c, t in serial.schema.items() if t.is_numeric()]
    negatives = serial.select([(pl.col(c) < 0).sum().alias(c) for c in numeric]).row(0, named=True)
    assert not any(negatives.values()), negatives
    assert serial.height == N
    assert serial["reason"].null_count() == 0 and serial["winner"].null_count() == 0
    seats = {f"p{i + 1}" for i in range(model.players(model.make_config(model.resolve_params())))}
    assert set(serial["winner"].unique()) <= seats | {"draw"}
    assert serial["length"].max() <= model.max_length(model.resolve_params())
    assert serial["length"].min() >= 1
    assert serial["game_index"].to_list() == list(range(N))
    assert serial["rules_version"].unique().to_list() == [model.rules_version]
    assert serial["game_seed"].n_unique() == N


def _agent_lineups(model):
    """Every declared agent once in seat 1 against random (cheap options where the default is slow)."""
    n = model.players(model.make_config(model.resolve_params()))
    for name in model.agents:
        yield [QUICK.get(name, name)] + ["random"] * (n - 1)


def test_every_agent_finishes_within_the_bound_and_invariants_hold_after_every_step(game):
    model = get_game(game)
    params = model.resolve_params()
    config = model.make_config(params)
    for lineup in _agent_lineups(model):
        agents = [model.make_agent(a) for a in lineup]
        for seed in game_seeds(5, 0, 3 if lineup[0].startswith(("search", "ismcts")) else 12):
            steps = []

            def check(before, who, action, after, steps=steps, lineup=lineup, seed=seed):
                steps.append(who)
                assert model.invariants(config, after) == [], (lineup, int(seed), len(steps))
                if who == CHANCE:
                    assert action in [o for o, _ in model.chance_outcomes(config, before)]
                    assert abs(sum(p for _, p in model.chance_outcomes(config, before)) - 1) < 1e-9
                for seat in acting(model, config, after):
                    assert len(model.legal_actions(config, after, seat)) > 0

            assert model.invariants(config, model.initial_state(config, int(seed))) == []
            final = play_game(model, config, agents, int(seed), max_steps=model.max_steps(params), observer=check)
            assert model.is_terminal(config, final)
            row = model.result_row(config, final)
            assert 1 <= row["length"] <= model.max_length(params), lineup
            returns = model.returns(config, final)
            assert len(returns) == model.players(model.make_config(params))
            winner = row["winner"]
            if winner != "draw":
                assert max(returns) == returns[int(winner[1:]) - 1]


def test_same_seed_same_frame_other_seed_other_frame(game, serial):
    model = get_game(game)
    again = simulate(game, N, agents=_random_agents(model), seed=11, progress=False, engine="reference",
                     chunk_size=7)
    assert_frame_equal(serial, again)
    other = simulate(game, N, agents=_random_agents(model), seed=12, progress=False, engine="reference")
    assert not other.drop("master_seed", "game_seed").equals(serial.drop("master_seed", "game_seed"))


def test_one_game_replays_alone(game, serial):
    model = get_game(game)
    row = 37
    alone = simulate(game, 1, agents=_random_agents(model), seed=11, progress=False, engine="reference", start=row)
    assert_frame_equal(alone, serial.slice(row, 1))


@pytest.mark.xdist_group("pool")
@pytest.mark.parametrize("workers", [2])
def test_workers_do_not_change_the_frame(game, serial, workers):
    model = get_game(game)
    parallel = simulate(game, N, agents=_random_agents(model), seed=11, progress=False, engine="reference",
                        workers=workers, chunk_size=13)
    assert_frame_equal(serial, parallel)


@pytest.fixture(scope="module")
def dask_scheduler():
    """One local Dask cluster of two worker processes for every game's check (a cluster's start is seconds)."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=40) as cluster:
        yield cluster.scheduler_address


@pytest.mark.xdist_group("dask")
def test_dask_backend_gives_the_same_frame(game, serial, dask_scheduler):
    model = get_game(game)
    frame = simulate(game, N, agents=_random_agents(model), seed=11, progress=False, engine="reference",
                     workers=2, backend="dask", scheduler=dask_scheduler, chunk_size=30)
    assert_frame_equal(serial, frame)


@pytest.mark.xdist_group("dask")
def test_dask_backend_without_a_scheduler_runs_on_a_cluster_of_its_own():
    """No scheduler given: the run starts a local cluster of ``workers`` processes, and ends them with it."""
    import multiprocessing

    serial = simulate("toy", N, seed=11, progress=False, engine="reference")
    before = {p.pid for p in multiprocessing.active_children()}  # (the module's shared cluster may be running)
    frame = simulate("toy", N, seed=11, progress=False, engine="reference", workers=2, backend="dask", chunk_size=30)
    assert_frame_equal(serial, frame)
    left = [p.name for p in multiprocessing.active_children() if p.pid not in before]
    assert left == [], f"the run's cluster left its worker processes running: {left}"


FAST_GAMES = [g for g in GAMES if get_game(g).fast_agents]


SLOW_AGENTS = {g: next(a for a in get_game(g).agents if a not in get_game(g).fast_agents) for g in FAST_GAMES
               if any(a not in get_game(g).fast_agents for a in get_game(g).agents)}


@pytest.mark.parametrize("game_name", sorted(SLOW_AGENTS))
def test_fast_engine_falls_back_to_the_reference_loop_with_one_warning(game_name):
    """An agent without a compiled twin: the default engine is the reference, a requested fast one falls back."""
    import warnings

    from workbench.core.sim import play

    model = get_game(game_name)
    params = model.resolve_params()
    name = SLOW_AGENTS[game_name]
    slow = (AgentSpec.parse(QUICK.get(name, name)), AgentSpec("random"))
    assert model.resolve_engine(None, slow, params) == "reference"
    assert model.resolve_engine(None, (AgentSpec(model.fast_agents[-1]), AgentSpec("random")), params) == "fast"
    seeds = game_seeds(3, 0, 2)
    play._warned.clear()
    with pytest.warns(RuntimeWarning, match=f"{game_name} fast engine: agents {name} have no compiled twin"):
        quick = play_chunk(model, params, slow, seeds, "fast")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # said once per process
        again = play_chunk(model, params, slow, seeds, "fast")
    assert_frame_equal(quick, again)
    assert_frame_equal(quick, play_chunk(model, params, slow, seeds, "reference"))


def test_the_fallback_is_checked_for_the_games_with_slow_agents():
    assert SLOW_AGENTS == {"babel": "search", "babylon": "search", "duel": "search"}
