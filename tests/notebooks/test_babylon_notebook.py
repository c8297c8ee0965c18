"""The Towers of Babylon notebook: thin panels over the game's declared studies, executed with small settings."""

from __future__ import annotations

import nbformat
import polars as pl
from conftest import NOTEBOOKS, outputs, thin_code_cells  # noqa: I001 - the notebooks conftest

from tests.independent import wilson
from workbench.games.babylon import studies as st
from workbench.games.babylon.model import MODEL

PATH = NOTEBOOKS / "babylon.ipynb"
DECKS = "siege_of_ur,citadel_of_the_rivers"
SMALL = {"STUDY": "matchups", "SETTINGS": {"games": 2, "decks": DECKS, "agents": "greedy,greedy"},
         "WHATIF": {"edits": "F9.power_cost=1", "games": 1, "decks": DECKS}, "SEED": 4}


def test_notebook_is_committed_thin_and_without_outputs():
    nb = nbformat.read(PATH, as_version=4)
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# ")
    code = thin_code_cells(PATH, max_lines=8)
    assert all(f"{name} =" in code[0].source for name in ("STUDY", "SETTINGS", "WHATIF", "SEED", "RUN"))
    assert 'study_panel("babylon", STUDY, seed=SEED, workers=2, **SETTINGS).show(run=RUN)' in code[1].source
    assert 'card_editor("babylon")' in code[2].source


def _text(shown: list[dict]) -> str:
    return "".join(o.get("text", "") for o in shown) + "".join(
        str(o.get("data", {}).get("text/plain", "")) for o in shown)


def test_executed_notebook_shows_the_matrix_the_static_model_and_a_what_if(run_notebook):
    nb = run_notebook(PATH, SMALL)
    shown = outputs(nb)
    assert not [o for o in shown if o.get("output_type") == "error"]
    assert "application/vnd.jupyter.widget-view+json" in {m for o in shown for m in o.get("data", {})}
    text = _text(shown)
    # the matrix: 2 × 2 deck pairings × 2 first seats × 2 games; the what-if: the same grid × 2 arms × 1 game
    assert text.count("16 games played") == 2 and "matrix\ndeck" in text and "matrix_delta\ndeck" in text
    assert "static value model\nid" in text and "Scorch the Scaffolds" in text
    # the matrix cell Citadel against Siege, counted from a plain run of the same grid on the same seed
    frame = st.play(MODEL, DECKS.split(","), 2, ["greedy", "greedy"], {}, seed=SMALL["SEED"], workers=1)
    frame = frame.filter(pl.col("deck_p1") != pl.col("deck_p2"))
    won = ((frame["deck_p1"] == "citadel_of_the_rivers") & (frame["winner"] == "p1")) | (
        (frame["deck_p2"] == "citadel_of_the_rivers") & (frame["winner"] == "p2"))
    k, games = int(won.sum()), frame.height
    low, high = wilson(k, games)
    assert f"{100 * k / games:.1f}% [{100 * low:.1f}–{100 * high:.1f}]" in text
    charts = [o for o in shown if any(m.startswith("application/vnd.vegalite") for m in o.get("data", {}))]
    assert len(charts) == 5  # the matrix, decks and seats charts; the what-if's heat map and cells
