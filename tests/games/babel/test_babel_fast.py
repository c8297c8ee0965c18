"""Two paths, one answer: the compiled Babel kernel against the reference loop (STYLE.md layer 5).

Every variant — both start-hand variants, both run detections, the universal ability off, dealt
hands overridden (0 and 20 cards included), first seat p1 / p2 / random, a short turn limit — plays
seeded games on both engines through core's ``play_chunk`` with random vs random, greedy vs greedy
and greedy vs random in both seatings, plus a rotation of agent options (custom greedy weights,
random turn caps); the frames must be identical, and together they reach every end reason.  Then:
the frame does not depend on the chunking, the values buffer grows without changing a game, a
runaway game is an error (``search``'s fallback is checked with the other games' in
``tests/test_conformance.py``).
About 430 games, under 10 s warm (the first run compiles the kernel into ``.cache/``).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from workbench.core.model import AgentSpec
from workbench.core.play import RunawayGame, play_chunk
from workbench.core.runner import simulate
from workbench.core.seeding import game_seeds
from workbench.games.babel import fast
from workbench.games.babel.model import MODEL
from workbench.games.babel.results import RESULT_SCHEMA
from workbench.games.babel.rules import REASONS, TURN_LIMIT

pytestmark = pytest.mark.xdist_group("babel_fast")  # one worker: the cached pairs of frames are shared

VARIANTS = {
    "default": {},
    "5/5": {"start_hands": "5/5"},
    "top-runs": {"run_detection": "top", "first": "p1"},
    "no-universal": {"universal": False, "first": "p2"},
    "hands-0-20": {"hand_start": 0, "hand_other": 20, "first": "p1"},
    "hands-9-2-top": {"start_hands": "5/5", "hand_start": 9, "hand_other": 2, "run_detection": "top"},
    "hands-20-20": {"hand_start": 20, "hand_other": 20, "universal": False},
    "short": {"max_turns": 6, "first": "p2"},
}
# (lineup, games) played in every variant: about 400 games in all
LINEUPS = [(("random", "random"), 20), (("greedy", "greedy"), 10), (("greedy", "random"), 10),
           (("random", "greedy"), 10)]
CUSTOM_GREEDY = "greedy:value=2,potential=8,pawn=0.5,threat=6,runs=4,hand=1.5,variety=-1"
OPTIONS = [((CUSTOM_GREEDY, "random:cap=3"), 10), (("random:cap=40", "greedy:value=-3,hand=-0.3"), 10),
           (("greedy:variety=0,threat=0,runs=0", CUSTOM_GREEDY), 8)]
CASES = [(v, lineup, games) for v in VARIANTS for lineup, games in LINEUPS]
CASES += [(v, lineup, games) for (lineup, games), v in zip(OPTIONS, ("default", "top-runs", "5/5"), strict=True)]
SEARCH = (AgentSpec.parse("search:budget=4,horizon=1,width=2"), AgentSpec("random"))


def _specs(lineup: tuple[str, str]) -> tuple[AgentSpec, ...]:
    return tuple(AgentSpec.parse(a) for a in lineup)


@cache
def frames(case: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(fast, reference) frames of one case, played once per process."""
    variant, lineup, games = CASES[case]
    params = MODEL.resolve_params(VARIANTS[variant])
    seeds = game_seeds(500 + case, 0, games)
    return (play_chunk(MODEL, params, _specs(lineup), seeds, "fast"),
            play_chunk(MODEL, params, _specs(lineup), seeds, "reference"))


@pytest.mark.parametrize("case", range(len(CASES)), ids=[f"{v}-{'-'.join(a)}" for v, a, _ in CASES])
def test_fast_frame_equals_the_reference_frame(case):
    quick, reference = frames(case)
    assert quick.schema == pl.Schema(RESULT_SCHEMA)
    assert_frame_equal(quick, reference)


def test_the_cases_reach_every_end_reason_and_variant():
    reasons = pl.concat([frames(i)[1] for i in range(len(CASES))])["reason"]
    assert set(reasons) == set(REASONS), reasons.value_counts()
    short = [i for i, (v, _, _) in enumerate(CASES) if v == "short"]
    assert all(set(frames(i)[1]["reason"]) == {TURN_LIMIT} for i in short)
    assert sum(frames(i)[1].height for i in range(len(CASES))) >= 400


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
