"""Self-tuned heuristics (core/skill/tune.py): tuning improves play, resumes exactly, and weight sets are data."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from workbench.cli import main
from workbench.cli import tune as tune_cli
from workbench.core.errors import InputError, RunInterrupted
from workbench.core.model import AgentSpec, get_game
from workbench.core.sim.runner import simulate
from workbench.core.skill.tune import load_set, set_names, tune, write_set
from workbench.core.stats.compare import paired_difference

DUEL = {"battlefield": "crystal_garden", "deck": "regular"}
BAD = "greedy:tower=-1.0,wall=-0.5,producer=-4.0,resource=-0.25,again=-1.0,discard=-0.1"  # every sign flipped


@pytest.fixture
def duel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The duel with its data folder in a temporary directory (weight sets go to tmp_path/agents)."""
    model = get_game("duel")
    monkeypatch.setattr(model, "data_dir", tmp_path)
    return model


def _small(model, name: str, **extra):
    settings = {"name": name, "params": DUEL, "games": 40, "popsize": 4, "budget": 4 * 5 * 40, "seed": 3,
                "validate": 40, "progress": False}
    return tune(model, "greedy", **{**settings, **extra})


def _wins(frame: pl.DataFrame, seat: str) -> pl.Series:
    return frame.get_column("winner") == seat


def test_tuning_improves_a_deliberately_bad_weight_set(duel):
    result = tune(duel, "greedy", name="fixed", start=BAD, params=DUEL, games=100, popsize=6, sigma=0.3,
                  budget=12 * 7 * 100, seed=1, validate=0, progress=False)
    # fresh seeds (master seed 99 is not a tuning seed): the bad and the tuned set against default greedy, pairwise
    bad = simulate(duel, 600, params=DUEL, agents=[BAD, "greedy"], seed=99, progress=False)
    good = simulate(duel, 600, params=DUEL, agents=[result.spec, "greedy"], seed=99, progress=False)
    test = paired_difference(_wins(bad, "p1"), _wins(good, "p1"))
    assert test["diff"] > 0.2 and test["p_value"] < 1e-6
    assert result.curve[-1]["centre"] > result.curve[0]["centre"]


def test_a_candidate_equal_to_its_opponent_scores_exactly_half(duel):
    # generation 1's centre is the start: the opponent itself.  Both seats on the same seeds play the same
    # games with the seats swapped, so it wins exactly one of each pair of decided games.
    result = _small(duel, "even", budget=5 * 40, validate=0)
    assert result.curve[0]["centre"] == 0.5 and result.curve[0]["centre_n"] == 40


def test_resume_continues_to_the_result_an_uninterrupted_run_gives(duel, tmp_path):
    whole = _small(duel, "whole")
    calls = []
    with pytest.raises(RunInterrupted, match="continue with --resume"):
        _small(duel, "parts", should_stop=lambda: calls.append(1) or len(calls) >= 2)
    assert len(load_checkpoint(tmp_path / "agents" / ".parts.tune")) == 2
    with pytest.raises(InputError, match="--resume"):
        _small(duel, "parts")  # an unfinished tuning is never silently restarted
    resumed = _small(duel, "parts", resume=True)
    assert resumed.options == whole.options and resumed.spec == whole.spec
    assert resumed.curve == whole.curve and resumed.validation == whole.validation
    assert not (tmp_path / "agents" / ".parts.tune").exists()  # finished: the checkpoint is gone
    with pytest.raises(RunInterrupted):
        _small(duel, "again", should_stop=lambda: True)
    with pytest.raises(InputError, match="changed: games"):
        _small(duel, "again", games=20, budget=4 * 5 * 20, resume=True)


def load_checkpoint(folder: Path) -> list:
    import json

    return json.loads((folder / "state.json").read_text())["history"]


def test_the_set_file_holds_provenance_and_a_held_out_result(duel, tmp_path):
    _small(duel, "kept")
    data = load_set(duel, "kept")
    assert data["agent"] == "greedy" and data["seed"] == 3 and data["budget"] == 800
    assert data["rules_version"] == duel.rules_version
    import hashlib

    from workbench.games.duel.data import CARDS_CSV
    assert data["card_hash"] == hashlib.sha256(Path(CARDS_CSV).read_bytes()).hexdigest()
    assert [c["generation"] for c in data["curve"]] == [1, 2, 3, 4]
    assert [c["evaluations"] for c in data["curve"]] == [200, 400, 600, 800]
    v = data["validation"]
    assert v["n"] == 40 and v["wins"] + v["draws"] + v["losses"] == 40
    assert v["low"] <= v["score"] <= v["high"] and 0 <= v["p_value"] <= 1
    # the held-out seeds are none of the tuning's: replaying the set there gives the stored counts
    frames = [simulate(duel, 20, params=DUEL, agents=lineup, seed=v["master_seed"], progress=False)
              for lineup in ([data["spec"], "greedy"], ["greedy", data["spec"]])]
    wins = int(_wins(frames[0], "p1").sum() + _wins(frames[1], "p2").sum())
    assert wins == v["wins"]


def test_greedy_at_set_plays_the_options_it_holds_and_the_frame_names_them(duel):
    result = _small(duel, "mine", validate=0)
    named = simulate(duel, 50, params=DUEL, agents="greedy@mine,greedy", seed=5, progress=False)
    plain = simulate(duel, 50, params=DUEL, agents=[result.spec, "greedy"], seed=5, progress=False)
    assert named.get_column("agent_p1").unique().to_list() == [result.spec]  # replayable without the file
    assert_frame_equal(named, plain)
    assert "fast" == duel.resolve_engine(None, duel.resolve_agents("greedy@mine,greedy", duel.resolve_params(DUEL)),
                                         duel.resolve_params(DUEL))
    override = duel.resolve_spec("greedy@mine:wall=0.3", duel.resolve_params(DUEL))
    assert dict(override.options)["wall"] == "0.3" and dict(override.options)["tower"] == str(result.options["tower"])
    assert AgentSpec.parse("greedy@mine:wall=0.3").weight_set == "mine"


def test_unknown_sets_wrong_agents_and_bad_names_are_one_clear_error(duel):
    _small(duel, "alpha", validate=0)
    with pytest.raises(InputError, match=r"no weight set 'beta'.*sets: alpha"):
        simulate(duel, 10, params=DUEL, agents="greedy@beta,greedy", progress=False)
    with pytest.raises(InputError, match="is for agent 'greedy', not 'search'"):
        duel.resolve_spec("search@alpha", duel.resolve_params(DUEL))
    with pytest.raises(InputError, match="not a weight set name"):
        AgentSpec.parse("greedy@../x")


def test_a_set_tuned_for_other_cards_is_refused_with_the_way_out(duel, tmp_path):
    from workbench.games.duel.data import CARDS_CSV

    _small(duel, "base", validate=0)
    same = tmp_path / "same.csv"
    shutil.copy(CARDS_CSV, same)  # the same bytes elsewhere: the same card set
    same_cards = {**DUEL, "cards": str(same)}
    assert simulate(duel, 5, params=same_cards, agents="greedy@base,greedy", progress=False).height == 5
    text = Path(CARDS_CSV).read_text(encoding="utf-8")
    row = "bad_ore,Bad Ore,Bijih buruk,red,0,"
    assert row in text
    edited = tmp_path / "edited.csv"
    edited.write_text(text.replace(row, row.replace(",red,0,", ",red,1,")), encoding="utf-8")  # Bad Ore costs 1
    with pytest.raises(InputError, match=r"tuned for the cards .*re-tune for these cards: workbench tune duel"):
        simulate(duel, 5, params={**DUEL, "cards": str(edited)}, agents="greedy@base,greedy", progress=False)


def test_writing_never_replaces_silently_and_leaves_no_temporary_file(duel, tmp_path):
    data = {"agent": "greedy", "options": {"tower": 2.0}, "card_hash": "x", "card_source": "params", "curve": []}
    path = write_set(duel, "w", data)
    with pytest.raises(InputError, match="--force"):
        write_set(duel, "w", {**data, "options": {"tower": 3.0}})
    assert load_set(duel, "w")["options"] == {"tower": 2.0}
    write_set(duel, "w", {**data, "options": {"tower": 3.0}}, force=True)
    assert load_set(duel, "w")["options"] == {"tower": 3.0}
    assert sorted(p.name for p in path.parent.iterdir()) == ["w.toml"] and set_names(duel) == ["w"]
    with pytest.raises(InputError, match="exists"):  # refused before a game is played
        _small(duel, "w")
    assert not (path.parent / ".w.tune").exists()


def test_cli_cells_cross_parameters_and_pair_the_together_ones():
    crossed = tune_cli.cells("duel", ["battlefield=crystal_garden,free_steppe", "deck=regular,unlimited"], None, None)
    assert len(crossed) == 4
    paired = tune_cli.cells("duel", ["battlefield=crystal_garden,free_steppe", "deck=regular,unlimited"],
                            "battlefield,deck", None)
    assert paired == [{"battlefield": "crystal_garden", "deck": "regular"},
                      {"battlefield": "free_steppe", "deck": "unlimited"}]
    with pytest.raises(InputError, match="no card table"):
        tune_cli.cells("babel", [], None, "x.csv")


def test_cli_tunes_writes_and_refuses_to_overwrite(duel, tmp_path, capsys):
    argv = ["tune", "duel", "--name", "cli", "--budget", "400", "--games", "40", "--popsize", "4", "--validate", "40",
            "--params", "battlefield=crystal_garden"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "held out: greedy@cli vs greedy" in out and "n = 40" in out
    assert load_set(duel, "cli")["command"].startswith("workbench tune duel --name cli")
    assert main(argv) == 2
    assert "exists" in capsys.readouterr().err
