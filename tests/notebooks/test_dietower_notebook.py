from __future__ import annotations

import nbformat
import pytest
from conftest import NOTEBOOKS, mime_types, outputs, parameters_cell  # noqa: I001 - the notebooks conftest

PATH = NOTEBOOKS / "dietower_odds.ipynb"
SMALL = {"GAMES": 3000, "CONVERGENCE_GAMES": 3000, "FULL_DECK_GAMES": 2000, "REDUCED_SUITS": [2, 3],
         "EQ_SUIT": 3, "ROUNDS": 10}


def test_notebook_is_committed_thin_and_without_outputs():
    nb = nbformat.read(PATH, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in code)
    assert code[0] is parameters_cell(nb)
    assert all(len(c.source.splitlines()) <= 12 for c in code)  # no logic lives only in the notebook


@pytest.mark.slow
def test_notebook_runs_with_small_sizes(run_notebook):
    nb = run_notebook(PATH, SMALL)
    errors = [o for o in outputs(nb) if o.get("output_type") == "error"]
    assert not errors
    kinds = mime_types(nb)
    charts = [o for o in outputs(nb) if "vega" in str(o.get("data", {}).get("text/html", ""))
              or any(k.startswith("application/vnd.vegalite") for k in o.get("data", {}))]
    assert len(charts) >= 4  # streak charts, convergence, equilibrium strategy, losses
    assert "application/vnd.jupyter.widget-view+json" in kinds  # the slider dashboard
    text = "".join(str(o.get("data", {}).get("text/plain", "")) + str(o.get("data", {}).get("text/html", ""))
                   for o in outputs(nb))
    assert "P(six-win)" in text and "loss_vs_equilibrium" in text
