"""The rescue notebook: a thin panel over the game's declared studies, executed with small settings."""

from __future__ import annotations

import nbformat
from conftest import NOTEBOOKS, outputs, thin_code_cells  # noqa: I001 - the notebooks conftest

from workbench.core.present.report import display_frame
from workbench.games.rescue import dragon

PATH = NOTEBOOKS / "rescue.ipynb"
SMALL = {"STUDY": "dragon", "SETTINGS": {"players": 3, "catch": "1/2", "rounds": 4, "games": 3000}, "SEED": 5}


def test_notebook_is_committed_thin_and_without_outputs():
    nb = nbformat.read(PATH, as_version=4)
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# ")
    code = thin_code_cells(PATH, max_lines=8)
    assert all(f"{name} =" in code[0].source for name in ("STUDY", "SETTINGS", "SEED", "RUN"))
    assert 'study_panel("rescue", STUDY, seed=SEED, **SETTINGS).show(run=RUN)' in code[1].source


def test_executed_notebook_shows_the_dragons_exact_fractions_and_simulated_rates(run_notebook):
    nb = run_notebook(PATH, SMALL)
    shown = outputs(nb)
    assert not [o for o in shown if o.get("output_type") == "error"]
    assert "application/vnd.jupyter.widget-view+json" in {m for o in shown for m in o.get("data", {})}
    text = "".join(o.get("text", "") for o in shown) + "".join(
        str(o.get("data", {}).get("text/plain", "")) for o in shown)
    settings = SMALL["SETTINGS"]
    assert f"{settings['games']:,} games played" in text
    exact = dragon.trophy_odds(settings["catch"], settings["rounds"], settings["players"])
    assert {str(v) for v in exact.values()} == {"1143/8192", "4763/8192"}
    # the same tables, computed directly on the same seed, appear as the panel shows them
    alone = dragon.tables(settings["catch"], settings["rounds"], settings["games"], SMALL["SEED"],
                          settings["players"])
    for name in ("appearance", "trophy"):
        for row in display_frame(alone[name]).iter_rows(named=True):
            assert row["exact_fraction"] in text and row["simulated"] in text
    assert "1/6" in text and "4763/8192" in text and "1143/8192" in text
    specs = [v for o in shown for k, v in o.get("data", {}).items() if k.startswith("application/vnd.vegalite")]
    assert len(specs) == 2  # the appearance and trophy charts
    rows = [r for spec in specs for d in spec["datasets"].values() for r in d if "outcome" in r]
    assert {r["outcome"]: r["exact"] for r in rows} == {k: float(v) for k, v in exact.items()}
    assert all(r["low"] <= r["simulated"] <= r["high"] and r["n"] == settings["games"] for r in rows)
