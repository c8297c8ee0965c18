"""The conformance test every game model passes (STYLE.md, layer 2).

Seeded random games: nothing negative, every game ends within the model's bound with a reason,
the same seed gives an identical frame, and the frame does not depend on the number of workers,
the chunk size or the backend (local processes vs Dask).
"""

from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from workbench.core.model import game_names, get_game
from workbench.core.runner import simulate

GAMES = game_names()
N = 120


def _random_agents(model):
    params = model.resolve_params()
    return ",".join(["random"] * model.players(params))


@pytest.fixture(scope="module", params=GAMES)
def game(request):
    return request.param


@pytest.fixture(scope="module")
def serial(game):
    model = get_game(game)
    return simulate(game, N, agents=_random_agents(model), seed=11, progress=False, engine="reference")


def test_games_are_registered():
    assert {"duel", "dietower"} <= set(GAMES)


def test_nothing_negative_and_every_game_ends(game, serial):
    model = get_game(game)
    numeric = [c for c, t in serial.schema.items() if t.is_numeric()]
    negatives = serial.select([(pl.col(c) < 0).sum().alias(c) for c in numeric]).row(0, named=True)
    assert not any(negatives.values()), negatives
    assert serial.height == N
    assert serial["reason"].null_count() == 0 and serial["winner"].null_count() == 0
    assert serial["length"].max() <= model.max_length(model.resolve_params())
    assert serial["length"].min() >= 1
    assert serial["game_index"].to_list() == list(range(N))
    assert serial["rules_version"].unique().to_list() == [model.rules_version]
    assert serial["game_seed"].n_unique() == N


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
@pytest.mark.parametrize("workers", [2, 4])
def test_workers_do_not_change_the_frame(game, serial, workers):
    model = get_game(game)
    parallel = simulate(game, N, agents=_random_agents(model), seed=11, progress=False, engine="reference",
                        workers=workers, chunk_size=13)
    assert_frame_equal(serial, parallel)


@pytest.mark.xdist_group("dask")
def test_dask_backend_gives_the_same_frame(game, serial):
    model = get_game(game)
    frame = simulate(game, N, agents=_random_agents(model), seed=11, progress=False, engine="reference",
                     workers=2, backend="dask", chunk_size=30)
    assert_frame_equal(serial, frame)


@pytest.mark.xdist_group("dask")
def test_dask_backend_with_a_scheduler_address():
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        frame = simulate("duel", 40, agents="greedy,random", seed=5, progress=False, engine="reference",
                         backend="dask", scheduler=cluster.scheduler_address, chunk_size=15)
    assert_frame_equal(frame, simulate("duel", 40, agents="greedy,random", seed=5, progress=False,
                                       engine="reference"))
