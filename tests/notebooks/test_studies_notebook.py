"""The studies notebook: one panel for every game's studies, its form generated from declarations."""

from __future__ import annotations

import nbformat
import polars as pl
from conftest import NOTEBOOKS, outputs, thin_code_cells  # noqa: I001 - the notebooks conftest

from workbench.core.runner import simulate
from workbench.ui.studies import NONE, StudyPanel

PATH = NOTEBOOKS / "studies.ipynb"


def test_notebook_is_committed_thin_and_without_outputs():
    thin_code_cells(PATH, max_lines=8)


def test_executed_notebook_shows_the_toy_games_outcomes(run_notebook):
    nb = run_notebook(PATH, {"GAME": "toy", "STUDY": "outcomes", "SETTINGS": {"games": 400, "agents": "greedy,random"},
                             "PARAMS": {"edge": 0.9}, "SEED": 3})
    text = "".join(o.get("text", "") for o in outputs(nb)) + "".join(
        str(o.get("data", {}).get("text/plain", "")) for o in outputs(nb))
    assert "application/vnd.jupyter.widget-view+json" in {m for o in outputs(nb) for m in o.get("data", {})}
    assert not [o for o in outputs(nb) if o.get("output_type") == "error"]
    assert "400 games played" in text
    alone = simulate("toy", 400, params={"edge": 0.9}, agents="greedy,random", seed=3, progress=False)
    k = int((alone["winner"] == "p1").sum())
    assert f"p1    400  {k}  " in text  # the seats table shows the same count as a plain simulation
    charts = [o for o in outputs(nb) if any(m.startswith("application/vnd.vegalite") for m in o.get("data", {}))]
    assert len(charts) == 3


def test_the_form_is_generated_from_the_declarations():
    panel = StudyPanel("duel", "outcomes")
    kinds = {name.split(":", 1)[1]: type(w).__name__ for name, (_, w) in panel.fields.items()}
    assert kinds["games"] == "BoundedIntText" and kinds["battlefield"] == "Dropdown"
    assert kinds["hand_size"] == "IntSlider" and kinds["miss_rate"] == "FloatSlider"
    assert kinds["start_wall"] == "Text" and kinds["cards"] == "Text"  # optional: empty means the data's own
    _, field = panel.fields["param:battlefield"]
    assert field.tooltip == "battlefield (data/duel/battlefields.csv)"
    assert list(field.options)[0] == "grand_wizards_fortress"
    panel.study.value = "battlefields"
    assert [k for k in panel.fields][:4] == ["setting:games", "setting:battlefields", "setting:decks",
                                             "setting:agents"]
    panel.game.value = "dietower"
    assert panel.study.value == "outcomes" and "param:players" in panel.fields
    assert NONE not in panel.fields["param:nonbuilder_tie"][1].options  # not optional: no "(none)"


def test_run_shows_tables_that_match_a_plain_simulation_and_errors_name_the_field():
    panel = StudyPanel("toy", "outcomes", settings={"games": 500}, seed=4)
    panel.set(agents="greedy,random", board="large")
    tables = panel.run(wait=True)
    alone = simulate("toy", 500, params={"board": "large"}, agents="greedy,random", seed=4, progress=False)
    seats = tables["seats"].filter(pl.col("seat") == "p1")
    assert seats["k"].item() == (alone["winner"] == "p1").sum() and seats["n"].item() == 500
    assert set(panel.charts()) == {"seat_win_rates", "length", "end_reasons"}
    shown = [o for o in panel.output.outputs]
    assert any("500 games played" in o.get("text", "") for o in shown)
    panel.set(games=0)
    assert panel.fields["setting:games"][1].value == 1  # the number box holds only allowed values
    duel = StudyPanel("duel", "outcomes")
    duel.set(start_wall="ten")
    try:
        duel.run(wait=True)
    except Exception as exc:  # the panel re-raises for wait=True callers, after showing it
        assert str(exc) == "field 'start wall': 'ten' is not a whole number; allowed: int in [0, 100000] (or none)"
    else:
        raise AssertionError("a wall of 'ten' must be refused")
    assert "field &#x27;start wall&#x27;" in duel.panel.status.value
    panel.set(games=100, agents="oracle,random")
    try:
        panel.run(wait=True)
    except Exception as exc:
        assert "unknown agent 'oracle'; allowed: random, greedy" in str(exc)
    assert "Traceback" not in panel.panel.status.value


def test_babel_notebook_runs_its_start_seat_study(run_notebook):
    path = NOTEBOOKS / "babel.ipynb"
    committed = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") for c in committed.cells if c.cell_type == "code")
    nb = run_notebook(path, {"SETTINGS": {"games": 30, "pairings": "greedy,random", "hands": "3/5,5/5"}, "SEED": 4})
    text = "".join(o.get("text", "") for o in outputs(nb)) + "".join(
        str(o.get("data", {}).get("text/plain", "")) for o in outputs(nb))
    assert not [o for o in outputs(nb) if o.get("output_type") == "error"]
    assert "60 games played" in text and "start_seat\nstart_hands" in text
    alone = simulate("babel", 30, params={"start_hands": "5/5"}, agents="greedy,random", seed=4, progress=False)
    k = int((alone["winner"] == alone["first_seat"]).sum())
    assert f"{100 * k / 30:.1f}% [" in text  # the 5/5 cell's start-seat rate, as a plain simulation counts it
