"""The duel notebooks: committed thin and without outputs, and they run top to bottom with small sizes."""

from __future__ import annotations

import nbformat
import pytest
from conftest import NOTEBOOKS, mime_types, outputs, parameters_cell  # noqa: I001 - the notebooks conftest

BATTLEFIELDS = NOTEBOOKS / "duel_battlefields.ipynb"
CARDS = NOTEBOOKS / "duel_cards.ipynb"
SMALL = {
    BATTLEFIELDS: {"GAMES": 60, "BATTLEFIELDS": ["crystal_garden", "free_steppe"], "MISS_RATES": (0.0, 0.2)},
    CARDS: {"GAMES": 80, "NEW_COST": 4},
}


@pytest.mark.parametrize("path", [BATTLEFIELDS, CARDS], ids=lambda p: p.stem)
def test_notebook_is_committed_thin_and_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in code)
    assert code[0] is parameters_cell(nb)
    assert all(len(c.source.splitlines()) <= 12 for c in code)  # no logic lives only in the notebook
    assert "workbench.ui" in "".join(c.source for c in code)


@pytest.mark.slow
@pytest.mark.parametrize("path", [BATTLEFIELDS, CARDS], ids=lambda p: p.stem)
def test_notebook_runs_with_small_sizes(run_notebook, path):
    nb = run_notebook(path, SMALL[path])
    errors = [o for o in outputs(nb) if o.get("output_type") == "error"]
    assert not errors, errors
    kinds = mime_types(nb)
    assert any(k.startswith("application/vnd.vegalite") for k in kinds)  # altair charts
    assert "application/vnd.jupyter.widget-view+json" in kinds  # the dashboard
    text = "".join(str(o.get("data", {}).get("text/plain", "")) + str(o.get("data", {}).get("text/html", ""))
                   for o in outputs(nb))
    assert "first_seat_win" in text if path == BATTLEFIELDS else "wr_drawn" in text


def test_run_panel_runs_in_the_background_and_keeps_results_when_stopped():
    import threading

    from workbench.ui.common import RunPanel

    release = threading.Event()
    finished: list = []

    def task(on_progress, should_stop):
        done = []
        for block in range(100):
            if should_stop():
                break
            done.append(block)
            on_progress(len(done), 100)
            if block == 2:
                release.wait(5)  # the caller presses Stop while the task is busy
        return done

    panel = RunPanel(task, on_done=finished.append)
    assert panel.run() is None and panel.running  # returned at once: the notebook is not blocked
    panel.stop()
    release.set()
    assert panel.wait(10) == [0, 1, 2]
    assert finished == [[0, 1, 2]] and panel.progress.value == 3 and "stopped" in panel.status.value
    assert not panel.run_button.disabled and panel.stop_button.disabled


def test_dashboards_call_the_library():
    from workbench.ui import duel

    dash = duel.BattlefieldDashboard(games=40, battlefields=["free_steppe"], decks=("regular",))
    dash.overrides["start_wall"].value = "30"
    dash.compare.value = True
    frame = dash.run(wait=True)
    assert frame.height == 40 and (frame.get_column("start_wall") == 30).all()
    assert dash.comparison.height == 1 and len(dash.charts()) == 4
    cards = duel.CardDashboard(card="ruby", games=40)
    assert cards.edit() == {}
    cards.amount_box.children[0].value = 9
    assert cards.edit() == {"ruby": {"effect": "self.tower +9"}}
    result = cards.run(wait=True)
    assert result.cards.get_column("key").unique().to_list() == ["ruby"]
    assert all(chart.to_dict() for chart in cards.charts())
