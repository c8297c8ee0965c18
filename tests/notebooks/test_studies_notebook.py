"""The studies notebook: one panel for every game's studies, its form generated from declarations."""

from __future__ import annotations

import html

import nbformat
import polars as pl
import pytest
from conftest import NOTEBOOKS, outputs, thin_code_cells  # noqa: I001 - the notebooks conftest

from workbench.core.errors import InputError
from workbench.core.sim.runner import simulate
from workbench.ui import study_panel
from workbench.ui.forms import NONE
from workbench.ui.studies import StudyPanel

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


def _kinds(panel: StudyPanel) -> dict[str, str]:
    forms = [panel.settings, *([panel.params] if panel.params is not None else [])]
    return {name: type(w).__name__ for form in forms for name, (_, w) in form.fields.items()}


def test_the_form_is_generated_from_the_declarations():
    panel = StudyPanel("duel", "outcomes", pick_game=True)
    kinds = _kinds(panel)
    assert kinds["games"] == "Text" and kinds["battlefield"] == "Dropdown"  # a box that keeps what was typed
    assert kinds["hand_size"] == "Text" and kinds["miss_rate"] == "Text"  # (their slider sits beside the box)
    assert kinds["start_wall"] == "Text" and kinds["cards"] == "Text"  # optional: empty means the data's own
    _, field = panel.params.fields["battlefield"]
    assert field.tooltip.startswith("battlefield (data/duel/battlefields.csv) — allowed: ")
    # a person reads the battlefield's display name from the data; the field's value is its key
    assert list(field.options)[0] == ("Grand Wizard's Fortress", "grand_wizards_fortress")
    assert field.value == "crystal_garden" and field.label == "Crystal Garden"
    panel.picker.value = "battlefields"
    assert panel.picker.index == list(panel.studies).index("battlefields")  # the page's menu shows the choice
    assert list(panel.settings.fields)[:4] == ["games", "battlefields", "decks", "agents"]
    panel.game.value = "dietower"
    assert panel.picker.value == "outcomes" and panel.picker.index == 0 and "players" in panel.params.fields
    assert NONE not in panel.params.fields["nonbuilder_tie"][1].options  # not optional: no "(none)"


def test_run_shows_tables_that_match_a_plain_simulation_and_errors_name_the_field():
    panel = study_panel("toy", "outcomes", games=500, seed=4, agents="greedy,random", board="large")
    tables = panel.run(wait=True)
    alone = simulate("toy", 500, params={"board": "large"}, agents="greedy,random", seed=4, progress=False)
    seats = tables["seats"].filter(pl.col("seat") == "p1")
    assert seats["k"].item() == (alone["winner"] == "p1").sum() and seats["n"].item() == 500
    assert set(panel.charts()) == {"seat_win_rates", "length", "end_reasons"}
    assert '<p class="wb-games" data-games="500">500 games played</p>' in panel.results.body.value
    assert panel.results.charts.value.count("<svg") == 3  # drawn by the time run(wait=True) returns
    panel.set(games=0)
    assert panel.settings.fields["games"][1].value == "0" and "games" in panel.settings.errors  # refused, not clamped
    duel = StudyPanel("duel", "outcomes")
    duel.set(start_wall="ten")
    wrong = "field 'start wall': 'ten' is not a whole number; allowed: int in [0, 100000] (or none)"
    with pytest.raises(InputError) as raised:  # raised for wait=True callers, after the panel shows it
        duel.run(wait=True)
    assert str(raised.value) == wrong and html.escape(wrong) in duel.note.value
    assert duel.job.thread is None  # nothing was played
    panel.set(games=100, agents="oracle,random")
    with pytest.raises(InputError, match="unknown agent 'oracle'; allowed: random, greedy"):
        panel.run(wait=True)
    assert "unknown agent &#x27;oracle&#x27;" in panel.note.value and 'data-state="error"' in panel.job.status.value
    assert "Traceback" not in panel.job.status.value + panel.note.value
    assert panel.results.body.value == ""  # the earlier run's tables give way to the message


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
