from __future__ import annotations

import numpy as np
import pytest
from polars.testing import assert_frame_equal

from workbench.core.errors import InputError, RunInterrupted
from workbench.core.model import AgentSpec, Param
from workbench.core.rng import SplitMix64, mix64
from workbench.core.sim import runner
from workbench.core.sim.runner import plan_chunks, simulate
from workbench.core.sim.seeding import game_seed, game_seeds


def test_game_seeds_depend_only_on_master_seed_and_index():
    whole = game_seeds(5, 0, 100)
    assert whole.dtype == np.uint64 and len(set(whole.tolist())) == 100
    assert np.array_equal(whole[40:60], game_seeds(5, 40, 60))
    assert game_seed(5, 41) == int(whole[41])
    assert not np.array_equal(whole, game_seeds(6, 0, 100))


def test_splitmix64_matches_the_published_reference_values():
    # First outputs of SplitMix64 seeded with 1234567 (Vigna's reference implementation).
    rng = SplitMix64(1234567)
    assert [rng.next_u64() for _ in range(3)] == [6457827717110365317, 3203168211198807973, 9817491932198370423]
    assert mix64(0) == 0


def test_below_is_unbiased_and_in_range():
    rng = SplitMix64(9)
    draws = [rng.below(6) for _ in range(60_000)]
    counts = np.bincount(draws, minlength=6)
    assert counts.min() > 9_500 and counts.max() < 10_500
    with pytest.raises(ValueError):
        rng.below(0)


def test_plan_chunks_cover_every_game_once():
    chunks = plan_chunks(10, 3, start=5)
    assert chunks == [(5, 8), (8, 11), (11, 14), (14, 15)]


@pytest.mark.parametrize("games", [0, -3, 2.5, True, "10"])
def test_bad_game_counts_are_refused(games):
    with pytest.raises(InputError, match="games must be a positive integer"):
        simulate("duel", games, progress=False)


def test_bad_inputs_name_what_is_allowed():
    with pytest.raises(InputError, match="unknown game 'chess'; allowed: .*duel"):
        simulate("chess", 10)
    with pytest.raises(InputError, match="unknown agent 'wizard'; allowed: random, greedy, search"):
        simulate("duel", 10, agents="wizard,random", progress=False)
    with pytest.raises(InputError, match="1 agents given for 2 players"):
        simulate("duel", 10, agents="random", progress=False)
    with pytest.raises(InputError, match="unknown parameter 'walls'"):
        simulate("duel", 10, params={"walls": 3}, progress=False)
    with pytest.raises(InputError, match="unknown backend"):
        simulate("duel", 10, backend="spark", progress=False)
    with pytest.raises(InputError, match=r"seed must be an integer in 0\.\.18446744073709551615, got -1"):
        simulate("duel", 10, seed=-1, progress=False)
    with pytest.raises(InputError, match=r"seed must be an integer in 0\.\.18446744073709551615, got 1844674407370"):
        simulate("duel", 10, seed=2**64, progress=False)
    assert simulate("toy", 3, seed=2**64 - 1, progress=False)["master_seed"].to_list() == [2**64 - 1] * 3
    with pytest.raises(InputError, match="workers must be a positive integer"):
        simulate("duel", 10, workers=0, progress=False)
    with pytest.raises(InputError, match="unknown engine"):
        simulate("duel", 10, engine="warp", progress=False)


def test_param_validation_coerces_and_explains():
    p = Param("miss_rate", 0.0, float, low=0.0, high=1.0)
    assert p.validate("0.25") == 0.25
    with pytest.raises(InputError, match=r"out of range; allowed: float in \[0, 1\]"):
        p.validate(1.5)
    q = Param("deck", "regular", str, choices=("regular", "unlimited"))
    with pytest.raises(InputError, match="allowed: regular | unlimited"):
        q.validate("huge")
    r = Param("start_wall", None, int, low=0, high=10, optional=True)
    assert r.validate(None) is None and r.validate("7") == 7
    with pytest.raises(InputError, match="'seven' is not a whole number; allowed: int in \\[0, 10\\] \\(or none\\)"):
        r.validate("seven")


def test_agent_specs_parse_options():
    spec = AgentSpec.parse("search:budget=20,horizon=5")
    assert spec.name == "search" and dict(spec.options) == {"budget": "20", "horizon": "5"}
    assert str(spec) == "search:budget=20,horizon=5"
    with pytest.raises(InputError):
        AgentSpec.parse("search:budget")


def test_interrupted_run_keeps_finished_chunks(monkeypatch):
    calls = {"n": 0}
    real = runner.run_chunk

    def flaky(*args):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(runner, "run_chunk", flaky)
    with pytest.raises(RunInterrupted) as info:
        simulate("duel", 50, agents="random,random", seed=4, chunk_size=10, progress=False, engine="reference")
    partial = info.value.partial
    assert info.value.done == 20 and info.value.total == 50
    monkeypatch.setattr(runner, "run_chunk", real)
    full = simulate("duel", 20, agents="random,random", seed=4, progress=False, engine="reference")
    assert_frame_equal(partial, full)


def test_compiled_engine_runs_on_threads_with_the_same_frame():
    from workbench.core.model import get_game

    assert get_game("duel").releases_gil("fast") and not get_game("duel").releases_gil("reference")
    serial = simulate("duel", 3000, agents="greedy,random", seed=8, progress=False, engine="fast")
    threaded = simulate("duel", 3000, agents="greedy,random", seed=8, progress=False, engine="fast", workers=2,
                        chunk_size=250)
    assert_frame_equal(serial, threaded)


def test_should_stop_ends_a_run_and_keeps_finished_games():
    seen = []
    with pytest.raises(RunInterrupted) as info:
        simulate("duel", 100, agents="random,random", seed=4, chunk_size=10, progress=False, engine="reference",
                 on_progress=seen.append, should_stop=lambda: len(seen) >= 3)
    assert seen == [10, 10, 10]
    assert info.value.partial["game_index"].to_list() == list(range(30))


def test_head_columns_repeat_the_run_and_number_the_games():
    from workbench.core.model import get_game
    from workbench.core.sim.results import head_frame

    model = get_game("dietower")
    params = model.resolve_params({"players": 2, "die_faces": 4})
    seeds = game_seeds(7, 5, 8)
    head = head_frame(model, params, ("random", "highest"), 7, 5, seeds)
    assert head.columns[:8] == ["game", "rules_version", "params_hash", "master_seed", "game_index", "game_seed",
                                "agent_p1", "agent_p2"]
    assert head["game_index"].to_list() == [5, 6, 7]
    assert head["game_seed"].to_list() == [game_seed(7, i) for i in (5, 6, 7)]
    rows = head.drop("game_index", "game_seed", "params_hash", "rules_version").unique().to_dicts()
    assert rows == [{"game": "dietower", "master_seed": 7, "agent_p1": "random", "agent_p2": "highest", "players": 2,
                     "suit_size": 13, "die_faces": 4, "nonbuilder_tie": "centre", "six_win_scores": False}]
    empty = head_frame(model, params, ("random", "highest"), 7, 5, seeds[:0])
    assert empty.height == 0 and empty.schema == head.schema


def test_the_head_of_other_parameters_agents_or_seed_is_never_an_earlier_runs():
    """The constant columns are kept per run (a chunk's head is built once a cell), found again only by equal values."""
    from workbench.core.model import get_game
    from workbench.core.sim.results import head_frame

    model = get_game("dietower")
    params = model.resolve_params({"players": 2, "die_faces": 4})
    seeds = game_seeds(7, 0, 3)
    first = head_frame(model, params, ("random", "highest"), 7, 0, seeds)
    params["die_faces"] = 6  # the same dict edited in place: a new cell
    edited = head_frame(model, params, ("random", "highest"), 7, 0, seeds)
    assert edited["die_faces"].to_list() == [6, 6, 6] and first["die_faces"].to_list() == [4, 4, 4]
    assert edited["params_hash"][0] == model.params_hash(params) != first["params_hash"][0]
    swapped = head_frame(model, params, ("highest", "random"), 8, 0, seeds)
    assert swapped["agent_p1"].to_list() == ["highest"] * 3 and swapped["master_seed"].to_list() == [8] * 3
    again = head_frame(model, model.resolve_params({"players": 2, "die_faces": 4}), ("random", "highest"), 7, 0, seeds)
    assert_frame_equal(again, first)


def test_list_columns_built_as_one_equal_each_built_alone_and_a_frame_is_conformed_to_its_schema():
    import polars as pl

    from workbench.core.sim.results import conformed, list_column, list_columns

    counts = np.array([[2, 0, 1], [1, 3, 0]])
    values = np.arange(7)
    together = list_columns(values, counts)
    alone = [list_column(values[:3], np.array([0, 2, 2, 3])), list_column(values[3:], np.array([0, 1, 4, 4]))]
    assert [c.to_list() for c in together] == [[[0, 1], [], [2]], [[3], [4, 5, 6], []]]
    for a, b in zip(together, alone, strict=True):
        assert a.equals(b) and a.dtype == b.dtype == pl.List(pl.Int64)
    schema = {"b": pl.Int64, "a": pl.Float64}
    frame = conformed(pl.DataFrame({"a": [1, 2], "b": [3, 4], "extra": [0, 0]}), schema)
    assert frame.columns == ["b", "a"] and frame.dtypes == [pl.Int64, pl.Float64] and frame["a"].to_list() == [1.0, 2.0]


@pytest.mark.xdist_group("pool")
@pytest.mark.parametrize("game, agents", [("dietower", "random,mixed,joker"), ("babel", "random,random"),
                                          ("babylon", "random,random")])
def test_every_compiled_engine_gives_one_frame_on_one_or_two_threads(game, agents):
    from workbench.core.model import get_game

    params = {"players": 3} if game == "dietower" else None
    assert get_game(game).releases_gil("fast")
    serial = simulate(game, 240, params=params, agents=agents, seed=12, progress=False, engine="fast")
    threaded = simulate(game, 240, params=params, agents=agents, seed=12, progress=False, engine="fast", workers=2,
                        chunk_size=35)
    assert_frame_equal(serial, threaded)


def test_a_stop_hands_back_the_finished_chunks_without_waiting_for_the_running_ones():
    import threading
    from concurrent.futures import ThreadPoolExecutor

    release = threading.Event()
    started: list[int] = []
    ended: list[int] = []

    def chunk(i: int) -> int:
        started.append(i)
        if i > 0:
            release.wait(60)  # the running chunks: slow, as a big chunk on a loaded machine
        ended.append(i)
        return i

    results = runner.pool_results(chunk, [(i,) for i in range(6)], ThreadPoolExecutor(max_workers=3), window=3)
    assert next(results) == (0, 0)
    while len(started) < 4 and not release.wait(0.01):  # chunks 1, 2 and 3 are running (a window of 3)
        pass
    results.close()  # Stop: the chunks running go on in the background, the rest never start
    assert sorted(started) == [0, 1, 2, 3] and ended == [0]  # close() came back while 1, 2 and 3 still ran
    release.set()


def test_a_run_that_ends_normally_still_waits_for_its_workers():
    import threading
    from concurrent.futures import ThreadPoolExecutor

    used: set[int] = set()

    def chunk(i: int) -> int:
        used.add(threading.get_ident())
        return i

    results = runner.pool_results(chunk, [(i,) for i in range(5)], ThreadPoolExecutor(max_workers=2))
    assert sorted(i for i, _ in results) == list(range(5))
    assert used and not used & {t.ident for t in threading.enumerate()}  # every worker thread joined


def test_a_chunk_given_a_weight_set_plays_the_set_on_every_engine():
    """``run_chunk`` with ``greedy@tuned`` (not expanded by ``simulate``) plays the set's weights on the compiled
    engine as on the reference one; it used to play the default weights there, silently."""
    from workbench.core.model import get_game

    params = get_game("duel").resolve_params({})
    fast = runner.run_chunk("duel", params, ("greedy@tuned", "greedy"), 5, 0, 200, "fast")
    reference = runner.run_chunk("duel", params, ("greedy@tuned", "greedy"), 5, 0, 200, "reference")
    default = runner.run_chunk("duel", params, ("greedy", "greedy"), 5, 0, 200, "fast")
    assert_frame_equal(fast, reference)
    assert (fast["winner"] != default["winner"]).any()  # the set is not the default: some game ends otherwise


def test_a_run_is_cut_in_about_four_chunks_a_worker_never_below_the_floor_or_above_the_engines_hint():
    from workbench.core.sim.runner import SPLIT_FLOOR, in_memory_chunk

    assert plan_chunks(10, in_memory_chunk(10, 1, 2_000)) == [(0, 10)]  # a small cell is one chunk: paid once
    assert in_memory_chunk(200, 2, 2_000) == SPLIT_FLOOR  # 200 / 8 = 25 would be below the floor
    assert in_memory_chunk(100_000, 2, 2_000) == 2_000  # the engine's hint caps it
    assert in_memory_chunk(8_000, 2, 2_000) == 1_000  # four a worker
    assert in_memory_chunk(500, 1, 20) == 20  # a slow engine's small hint wins over the floor (Stop stays quick)
    sizes = []
    frame = simulate("toy", 10, seed=3, progress=False, on_progress=sizes.append)
    assert sizes == [10]  # one chunk, one report
    chunked = simulate("toy", 10, seed=3, progress=False, chunk_size=3)
    assert frame.equals(chunked)  # the cut never changes the frame
