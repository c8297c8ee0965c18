"""The compiled Babel engine's own plumbing (its parity with the reference loop is ``tests/test_parity.py``).

The engine is declared and chosen by default; the frame does not depend on the chunking or on
worker threads; the values buffer grows without changing a game; a runaway game is an error
(``search``'s fallback is checked with the other games' in ``tests/test_conformance.py``).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from workbench.core.model import AgentSpec
from workbench.core.sim.play import RunawayGame, play_chunk
from workbench.core.sim.runner import simulate
from workbench.core.sim.seeding import game_seeds
from workbench.games.babel.engine import fast
from workbench.games.babel.model import MODEL

SEARCH = (AgentSpec.parse("search:budget=4,horizon=1,width=2"), AgentSpec("random"))


def _specs(lineup: tuple[str, str]) -> tuple[AgentSpec, ...]:
    return tuple(AgentSpec.parse(a) for a in lineup)


def test_the_engine_is_declared_and_chosen_by_default():
    params = MODEL.resolve_params()
    assert MODEL.engines == ("reference", "fast") and MODEL.fast_agents == ("random", "greedy")
    assert MODEL.resolve_engine(None, _specs(("greedy", "random")), params) == "fast"
    assert MODEL.resolve_engine(None, SEARCH, params) == "reference"
    assert MODEL.releases_gil("fast") and not MODEL.releases_gil("reference")


@pytest.mark.parametrize("lineup", [("greedy", "random"), ("random", "random")])
def test_chunks_of_one_game_give_the_whole_chunk(lineup):
    params = MODEL.resolve_params({"start_hands": "5/5"})
    seeds = game_seeds(9, 0, 40)
    whole = play_chunk(MODEL, params, _specs(lineup), seeds, "fast")
    singles = pl.concat([play_chunk(MODEL, params, _specs(lineup), seeds[i:i + 1], "fast") for i in range(len(seeds))])
    assert_frame_equal(whole, singles)


def test_worker_threads_give_the_serial_frame():
    one = simulate("babel", 300, agents="greedy,random", seed=4, engine="fast", progress=False, chunk_size=40)
    two = simulate("babel", 300, agents="greedy,random", seed=4, engine="fast", progress=False, chunk_size=40,
                   workers=2)
    assert_frame_equal(one, two)


def test_a_full_values_buffer_grows_without_changing_a_game():
    config = MODEL.make_config(MODEL.resolve_params())
    seeds = game_seeds(13, 0, 60)
    roomy = fast.run_kernel(config, _specs(("random", "greedy")), seeds)
    tight = fast.run_kernel(config, _specs(("random", "greedy")), seeds, values_per_game=1)
    assert tight[1].shape[1] > 64  # it grew
    np.testing.assert_array_equal(roomy[0], tight[0])
    np.testing.assert_array_equal(roomy[2], tight[2])
    np.testing.assert_array_equal(roomy[1][:, :roomy[2][-1]], tight[1][:, :tight[2][-1]])


def test_a_runaway_game_is_an_error(monkeypatch):
    monkeypatch.setattr(fast, "MAX_ACTIONS_PER_TURN", 0)  # 10 steps allowed
    config = MODEL.make_config(MODEL.resolve_params())
    with pytest.raises(RunawayGame, match="did not end within 10 steps"):
        fast.run_kernel(config, _specs(("random", "random")), game_seeds(1, 0, 3))
