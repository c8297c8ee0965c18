"""The compiled Towers of Babylon engine's own plumbing (its parity with the reference loop, random card edits
included, is ``tests/test_parity.py``).

An edited cards CSV (costs, stats, a keyword and a card text changed) is the one both engines play:
the kernel reads the card table, nothing is recompiled.  The engine is declared and chosen by
default, the frame does not depend on the chunking or on worker threads, a runaway game is an
error, and the largest hand and mulligan the parameters allow fit the kernel's buffers.  The first
run compiles the kernel into ``.cache/`` (under a minute).
"""

from __future__ import annotations

import csv
from math import comb

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from workbench.core.errors import InputError
from workbench.core.model import AgentSpec
from workbench.core.sim.play import RunawayGame, play_chunk
from workbench.core.sim.runner import simulate
from workbench.core.sim.seeding import game_seeds
from workbench.games.babylon import rules
from workbench.games.babylon.cards import CARDS_CSV
from workbench.games.babylon.engine import fast
from workbench.games.babylon.model import MODEL

# one worker builds this module's shared fixtures once (pytest -n 2 --dist loadgroup)
pytestmark = pytest.mark.xdist_group("test_babylon_fast")

# the edits: (card id, column, new value) — costs, stats, a keyword and a text
EDITS = [("F4", "power_cost", "3"), ("F4", "might", "6"), ("F9", "text", "play: damage minion 2 & draw 1"),
         ("E5", "health", "1"), ("E8", "construction", "9"), ("E12", "tp_cost", "0"), ("F2", "keywords", "Lethal"),
         ("S1", "construction", "4"), ("S10", "power_cost", "0"), ("S10", "specific_cost", "0"),
         ("S3", "might", "4"), ("F12", "text", "enemy_attacks_tower: damage attacker 1 & end_attack")]


def _specs(lineup: tuple[str, str]) -> tuple[AgentSpec, ...]:
    return tuple(AgentSpec.parse(a) for a in lineup)


@pytest.fixture(scope="module")
def edited_cards(tmp_path_factory) -> str:
    """The shipped cards CSV with ``EDITS`` applied, written to a temporary directory."""
    with CARDS_CSV.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    by_id = {r["id"]: r for r in rows}
    for card_id, column, value in EDITS:
        by_id[card_id][column] = value
    path = tmp_path_factory.mktemp("babylon-fast") / "cards.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return str(path)


def test_the_edited_cards_file_is_the_one_both_engines_play(edited_cards):
    edited = MODEL.resolve_params({"deck_p1": "siege_of_ur", "deck_p2": "night_raid", "cards": edited_cards})
    config = MODEL.make_config(edited)
    f4 = next(c for c in config.cards if c.id == "F4")
    assert (f4.power, f4.might) == (3, 6)  # EDITS: F4's power cost 3 and might 6
    assert next(c for c in config.cards if c.id == "F2").lethal  # EDITS: F2 gained Lethal
    seeds = game_seeds(3, 0, 12)
    quick = play_chunk(MODEL, edited, _specs(("greedy", "greedy")), seeds, "fast")
    assert_frame_equal(quick, play_chunk(MODEL, edited, _specs(("greedy", "greedy")), seeds, "reference"))
    plain = play_chunk(MODEL, {**edited, "cards": None}, _specs(("greedy", "greedy")), seeds, "fast")
    assert not plain.equals(quick)


def test_the_engine_is_declared_and_chosen_by_default():
    params = MODEL.resolve_params()
    search = (AgentSpec.parse("search:budget=4,horizon=1,width=2"), AgentSpec("random"))
    assert MODEL.engines == ("reference", "fast") and MODEL.fast_agents == ("random", "greedy")
    assert MODEL.resolve_engine(None, _specs(("greedy", "random")), params) == "fast"
    assert MODEL.resolve_engine(None, search, params) == "reference"
    assert MODEL.releases_gil("fast") and not MODEL.releases_gil("reference")
    assert MODEL.chunk_hint("fast") > MODEL.chunk_hint("reference")


@pytest.mark.parametrize("lineup", [("greedy", "random"), ("random", "random")])
def test_chunks_of_one_game_give_the_whole_chunk(lineup):
    params = MODEL.resolve_params({"deck_p1": "night_raid", "deck_p2": "tide_of_whispers"})
    seeds = game_seeds(9, 0, 30)
    whole = play_chunk(MODEL, params, _specs(lineup), seeds, "fast")
    singles = pl.concat([play_chunk(MODEL, params, _specs(lineup), seeds[i:i + 1], "fast") for i in range(len(seeds))])
    assert_frame_equal(whole, singles)


def test_worker_threads_give_the_serial_frame():
    one = simulate("babylon", 400, agents="greedy,random", seed=4, engine="fast", progress=False, chunk_size=50)
    two = simulate("babylon", 400, agents="greedy,random", seed=4, engine="fast", progress=False, chunk_size=50,
                   workers=2)
    assert_frame_equal(one, two)


def test_a_runaway_game_is_an_error(monkeypatch):
    monkeypatch.setattr(fast, "STEPS_PER_TURN", 0)  # 100 steps allowed
    config = MODEL.make_config(MODEL.resolve_params())
    with pytest.raises(RunawayGame, match="did not end within 100 steps"):
        fast.run_kernel(config, _specs(("random", "random")), game_seeds(1, 0, 3))


def test_the_largest_hand_and_mulligan_the_parameters_allow_are_listed_by_both_engines():
    with pytest.raises(InputError, match="parameter 'mulligan': 10 is out of range; allowed: int in \\[0, 5\\]"):
        MODEL.resolve_params({"mulligan": 10})
    params = MODEL.resolve_params({"start_hand": 10, "second_cards": 5, "mulligan": 5})
    config = MODEL.make_config(params)
    state = MODEL.initial_state(config, 3)
    masks = rules.mulligan_masks(state.sides[state.first].hand, 5)
    assert len(masks) == len(set(masks)) <= sum(comb(10, k) for k in range(6))
    assert fast.legal_capacity(config) < fast.MAX_LEGAL
    assert fast.legal_capacity(MODEL.make_config(MODEL.resolve_params())) < fast.MAX_LEGAL
