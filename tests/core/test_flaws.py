"""The structural-flaw check (``core/skill/flaws.py``) finds a flaw planted in a toy agent, and none in the sound one.

The toy is the coin race with a weighted greedy (``tests/toygame/weighted.py``): on the large board
with a coin that scores 2 with probability 0.75, the coin pays 1.5 points a move against safe's 1.
The sound greedy gambles every move; the planted one prices the coin's points as a loss
(``coin = −1``) and never gambles, so changing that one weight beats it far beyond 65 % (a sign flip,
always gambling: about 82 % by hand, racing to 5; the check's search finds ``coin = 0.5``, gambling
when behind, near 95 %).  The sound greedy's strongest single change is that same ``coin = 0.5``,
which wins only a little more than half against always gambling (about 56 %): no flaw.
"""

from __future__ import annotations

import pytest

from tests.toygame.weighted import MODEL
from workbench.core.errors import InputError
from workbench.core.model import Param
from workbench.core.skill.flaws import THRESHOLD, candidates, flaw_check, flaws_found

RICH_COIN = {"board": "large", "edge": 0.75}


def test_the_check_finds_the_planted_flaw_and_confirms_it_on_2000_fresh_games():
    frame = flaw_check(MODEL, "planted", params=RICH_COIN, screen=200, seed=3)
    assert frame.get_column("weight").to_list() == ["coin", "chase", "safe"]
    found = flaws_found(frame)
    assert found.get_column("weight").to_list() == ["coin"]
    coin = found.row(0, named=True)
    assert coin["score"] >= THRESHOLD and coin["score_low"] > 0.5 and coin["score_n"] >= 2000
    assert coin["changed"] > 0  # the fix gambles: the coin's points are worth something
    assert coin["default"] == -1.0 and coin["engine"] == "reference"
    assert coin["params"] == "board: Large; edge: 0.75 (1 cell)"


def test_the_sound_agent_has_no_flaw():
    frame = flaw_check(MODEL, "greedy", params=RICH_COIN, screen=200, seed=3)
    assert flaws_found(frame).height == 0
    assert frame.get_column("score").max() < THRESHOLD
    assert (frame.get_column("score_n") >= 2000).all()


def test_the_candidates_are_the_documented_changes_clipped_to_the_declared_range():
    weight = Param("w", 2.0, float, "a weight", -3.0, 3.0)
    assert candidates(weight, 2.0) == [("× 0", 0.0), ("× ½", 1.0), ("× 2", 3.0), ("× −1 (sign flipped)", -2.0)]
    assert candidates(weight, 2.0, tuned=2.5)[-1] == ("tuned set's value", 2.5)
    assert [v for _, v in candidates(weight, 0.0)] == [0.1, -0.1, 1.0, -1.0]
    assert [v for _, v in candidates(weight, 2.0, tuned=2.0)] == [0.0, 1.0, 3.0, -2.0]  # no repeat of the default


def test_a_grid_of_parameters_plays_every_cell():
    frame = flaw_check(MODEL, "greedy", params={"board": "all", "edge": 0.75}, screen=40, weights=["safe"],
                       refine=False)
    assert frame.height == 1 and frame.item(0, "params") == "board: all 2 (Small, Large); edge: 0.75 (2 cells)"
    sampled = flaw_check(MODEL, "greedy", params={"board": "all", "edge": 0.75}, most_cells=1, screen=40,
                         weights=["safe"], refine=False)
    assert sampled.item(0, "params").endswith("(1 cell)")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"confirm": 500}, "confirm must be a whole number >= 2,000"),
    ({"most_cells": 0}, "most_cells must be a whole number >= 1"),
    ({"weights": ["luck"]}, "'luck' cannot be tuned; tunable options: coin, chase, safe"),
    ({"params": {"board": "huge"}}, "board"),
])
def test_bad_input_is_named(kwargs, message):
    with pytest.raises(InputError, match=message):
        flaw_check(MODEL, "greedy", **kwargs)

