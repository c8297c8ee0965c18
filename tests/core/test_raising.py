"""The loop that raises the agents (core/skill/raising.py): rounds against a growing population, boxes that widen at an
edge, every round saved with its curve, resume replays, and the result plays as ``greedy@<name>``."""

from __future__ import annotations

from pathlib import Path

import pytest
from polars.testing import assert_frame_equal

from workbench.cli import main
from workbench.core.errors import InputError, RunInterrupted
from workbench.core.model import get_game
from workbench.core.sim.runner import simulate
from workbench.core.skill.raising import EDGE, WIDEN, raise_agent, widen
from workbench.core.skill.tune import Box, load_set, tune

DUEL = {"battlefield": "crystal_garden", "deck": "regular"}
# two weights tuned (4 generations a round: 2 members × 5 lineups × 40 games), round 1 from tower 0.2
SMALL = {"params": DUEL, "games": 40, "popsize": 4, "budget": 2 * 4 * 5 * 40, "validate": 40, "progress": False,
         "options": ["tower", "wall"], "start": "greedy:tower=0.2", "sigma": 0.5, "seed": 0, "population": "greedy"}
# the tower's weight in a box far below its optimum (about 4 in greedy@tuned): in 10 generations of 100 games the
# search runs into the box's upper edge (every seed tried, 0-4)
EDGED = {**SMALL, "games": 100, "popsize": 6, "budget": 10 * 7 * 100 * 2, "boxes": {"tower": (0.0, 0.4)}}


@pytest.fixture
def duel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The duel with its data folder in a temporary directory (weight sets go to tmp_path/agents)."""
    model = get_game("duel")
    monkeypatch.setattr(model, "data_dir", tmp_path)
    return model


def _boxes(data: dict) -> tuple[Box, ...]:
    return tuple(Box(k, *v) for k, v in data["tuning"]["box"].items())


def test_a_weight_at_its_box_edge_widens_that_side_by_half_the_box():
    decl = get_game("duel").agent_decl("greedy")
    boxes = (Box("tower", -1.2, 1.2), Box("wall", -1.0, 1.0), Box("producer", 0.0, 2.0))
    new, moved = widen(boxes, {"tower": 1.19, "wall": 0.0, "producer": 0.05}, decl)
    assert new == (Box("tower", -1.2, 2.4), Box("wall", -1.0, 1.0), Box("producer", -1.0, 2.0))
    assert [m["option"] for m in moved] == ["tower", "producer"]
    # a value past the edge: the side moves past it
    assert widen((Box("tower", 0.0, 1.0),), {"tower": 3.0}, decl)[0] == (Box("tower", 0.0, 3.5),)
    assert EDGE == 0.05 and WIDEN == 0.5


def test_rounds_widen_a_box_whose_optimum_hit_the_edge_and_are_saved_with_their_curve(duel, tmp_path):
    result = raise_agent(duel, name="up", rounds=2, **EDGED)
    decl = duel.agent_decl("greedy")
    first, second = (load_set(duel, f"up-r{r}") for r in (1, 2))
    # round 2 searched the boxes round 1's optimum widened, and the widening is recorded
    expected, moved = widen(_boxes(first), first["options"], decl)
    assert _boxes(second) == expected and moved
    assert [dict(round=1, **m) for m in moved] == [w for w in result.data["widened"] if w["round"] == 1]
    assert first["options"]["tower"] >= 0.4 * (1 - EDGE) and _boxes(second)[0] == Box("tower", 0.0, 0.6)
    # every round's curve (generations 1-10 each) and held-out score against each member of its population
    assert [(c["round"], c["generation"]) for c in result.data["curve"]] == [(r, g) for r in (1, 2)
                                                                            for g in range(1, 11)]
    assert first["curve"] == [{k: v for k, v in c.items() if k != "round"} for c in result.data["curve"][:10]]
    held = [(h["round"], h["opponent"], h["n"]) for h in result.data["held_out"]]
    assert held == [(1, "greedy", 40), (1, "greedy:tower=0.2", 40), (2, "greedy", 40), (2, "greedy@up-r1", 40)]
    assert all(h["low"] <= h["score"] <= h["high"] for h in result.data["held_out"])
    # the population grows: round 2 plays round 1's set (itself, where it starts)
    assert second["raise"]["population"] == ["greedy", "greedy@up-r1"] and second["raise"]["start"] == "greedy@up-r1"
    assert sorted(p.name for p in (tmp_path / "agents").iterdir()) == ["up-r1.toml", "up-r2.toml", "up.toml"]


def test_the_raised_set_plays_as_greedy_at_its_name(duel):
    result = raise_agent(duel, name="best", rounds=1, **{**SMALL, "validate": 0})
    named = simulate(duel, 30, params=DUEL, agents="greedy@best,greedy", seed=5, progress=False)
    plain = simulate(duel, 30, params=DUEL, agents=[result.spec, "greedy"], seed=5, progress=False)
    assert_frame_equal(named, plain)
    assert load_set(duel, "best")["options"] == load_set(duel, "best-r1")["options"] == result.options


def test_resume_replays_the_rounds_kept_and_reaches_the_uninterrupted_result(duel, tmp_path):
    whole = raise_agent(duel, name="whole", rounds=2, **SMALL)
    calls = []
    with pytest.raises(RunInterrupted, match="--resume"):
        raise_agent(duel, name="cut", rounds=2, should_stop=lambda: calls.append(1) or len(calls) >= 6, **SMALL)
    assert (tmp_path / "agents" / "cut-r1.toml").exists() and (tmp_path / "agents" / ".cut-r2.tune").is_dir()
    with pytest.raises(InputError, match="--resume"):
        raise_agent(duel, name="cut", rounds=2, **SMALL)  # kept rounds are never silently restarted
    with pytest.raises(InputError, match="settings"):
        raise_agent(duel, name="cut", rounds=2, resume=True, **{**SMALL, "games": 20, "budget": 2 * 4 * 5 * 20})
    resumed = raise_agent(duel, name="cut", rounds=2, resume=True, **SMALL)
    assert resumed.options == whole.options
    assert resumed.data["curve"] == whole.data["curve"]
    renamed = [{**h, "opponent": h["opponent"].replace("@cut", "@whole")} for h in resumed.data["held_out"]]
    assert renamed == whole.data["held_out"]


def test_bad_options_are_refused_with_what_is_allowed(duel):
    with pytest.raises(InputError, match="workers must be a positive integer"):
        raise_agent(duel, name="x", workers=0, **SMALL)
    with pytest.raises(InputError, match="seed must be a whole number >= 0"):
        raise_agent(duel, name="x", **{**SMALL, "seed": -1})
    with pytest.raises(InputError, match="nothing to resume"):
        raise_agent(duel, name="x", resume=True, **SMALL)
    with pytest.raises(InputError, match="rounds must be"):
        raise_agent(duel, name="x", rounds=0, **SMALL)
    with pytest.raises(InputError, match="population"):
        raise_agent(duel, name="x", **{**SMALL, "population": " , "})
    with pytest.raises(InputError, match="no weight set 'nope'"):
        raise_agent(duel, name="x", **{**SMALL, "population": "greedy@nope"})
    with pytest.raises(InputError, match="workers must be a positive integer"):
        tune(duel, "greedy", name="y", params=DUEL, workers=0, progress=False)
    with pytest.raises(InputError, match="nothing to resume"):
        tune(duel, "greedy", name="y", params=DUEL, resume=True, progress=False)


def test_workbench_tune_runs_the_loop_and_records_the_command_that_re_runs_it(duel, capsys):
    argv = ["tune", "duel", "--name", "cli", "--population", "greedy", "--rounds", "2", "--budget", "800",
            "--games", "40", "--popsize", "4", "--validate", "40", "--options", "producer,tower",
            "--params", "battlefield=crystal_garden", "deck=regular"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "round 2:" in out and "held out, round 2 vs greedy@cli-r1" in out
    data = load_set(duel, "cli")
    assert data["command"] == "workbench tune " + " ".join(argv[1:])
    assert data["raise"]["rounds"] == 2 and data["raise"]["population"] == ["greedy"]
    assert main(argv) == 2  # the set exists: refused
    assert "exists" in capsys.readouterr().err
    assert main([*argv[:4], "--name", "other", "--against", "greedy", "--rounds", "2"]) == 2
    assert "not both" in capsys.readouterr().err


def test_a_generation_plays_its_cycle_of_cells_in_turn(duel):
    cells = [DUEL, {**DUEL, "battlefield": "free_steppe"}]
    settings = {"name": "c", "games": 40, "popsize": 4, "validate": 0, "progress": False, "seed": 3, "write": False,
                "options": ["tower", "wall"]}
    cycled = tune(duel, "greedy", params=cells, cycle=1, budget=2 * 5 * 40, **settings)
    assert [c["evaluations"] for c in cycled.curve] == [200, 400]  # one cell a generation
    # generation 1 played the first cell alone: the same scores as a run on that cell
    alone = tune(duel, "greedy", params=cells[:1], budget=5 * 40, **settings)
    assert cycled.curve[0] == alone.curve[0]
    with pytest.raises(InputError, match="cycle 3 is more cells"):
        tune(duel, "greedy", params=cells, cycle=3, budget=2 * 5 * 40, **settings)


def test_a_round_worse_than_its_start_keeps_the_start(duel, monkeypatch):
    import workbench.core.skill.raising as raising

    monkeypatch.setattr(raising, "ACCEPT", 1.01)  # no held-out score reaches it: every round is refused
    result = raise_agent(duel, name="kept", rounds=2, **SMALL)
    start = duel.agent_decl("greedy").resolve_options(duel.resolve_spec(SMALL["start"]))
    for r in (1, 2):
        data = load_set(duel, f"kept-r{r}")
        assert data["raise"]["accepted"] is False and data["raise"]["rejected_spec"] != data["spec"]
        assert data["options"] == start
    assert result.options == start and [row["accepted"] for row in result.data["rounds"]] == [False, False]
