"""The studio's Runs tab: every run kept in the workspace and every sweep store, reopened without playing again.

A kept run's tables are read back from its Parquet files and its charts drawn from them by the same
declarations (the study's charts; a what-if's difference chart; the per-cell outcome charts of a
stopped run or a sweep).  Nothing is simulated.
"""

from __future__ import annotations

from typing import Any

from workbench.app.store import find_sweeps, open_sweep
from workbench.app.workspace import Workspace
from workbench.core import charts
from workbench.core.errors import InputError
from workbench.core.study import get_study
from workbench.ui.common import require_widgets
from workbench.ui.render import error_message, message
from workbench.ui.results import ResultsView
from workbench.ui.studies import cell_charts

__all__ = ["RunsPage", "charts_of"]


def charts_of(record: dict[str, Any], tables: dict[str, Any]) -> dict[str, Any]:
    """The charts of a kept run, drawn from its tables by the declarations that made them."""
    kind = record.get("kind")
    if kind == "whatif":
        table = tables.get("what_if")
        return {} if table is None else {"what_if": charts.delta_chart(table, "metric", title="What-if: edited − "
                                                                       "unchanged", x_title="edited − unchanged")}
    if kind == "sweep" or record.get("status") == "stopped":
        return cell_charts(tables, list(record.get("keys", []))) if "seats" in tables else {}
    return get_study(record["game"], record["name"]).make_charts(tables)


def _label(record: dict[str, Any]) -> str:
    when = str(record.get("saved", record.get("id", "")))[:19].replace("T", " ")
    games = f"{record.get('done', 0):,} of {record.get('total', 0):,} games" if record.get("total") else "exact"
    return f"{when} · {record.get('game')} · {record.get('name')} · {record.get('status')} · {games}"


class RunsPage:
    """The list of earlier runs and sweeps, and the results of the one opened."""

    def __init__(self, workspace: Workspace) -> None:
        w = require_widgets()
        self.workspace = workspace
        self.runs = w.Select(description="runs", rows=10, layout=w.Layout(width="900px"),
                             style={"description_width": "initial"})
        self.runs.add_class("wb-runs-list")
        self.refresh_button = w.Button(description="Refresh", icon="refresh", tooltip="list the runs again")
        self.open_button = w.Button(description="Open", icon="folder-open", button_style="primary",
                                    tooltip="show the chosen run's results (nothing is played again)")
        self.open_button.add_class("wb-open-run")
        self.note = w.HTML()
        self.results = ResultsView(workspace)
        self.refresh_button.on_click(lambda _: self.refresh())
        self.open_button.on_click(lambda _: self.open())
        self.widget = w.VBox([w.HTML("<div class='wb-help'>Every run kept in the studio's workspace (newest first) "
                                     "and every sweep store (<code>workbench sweep … --out</code>). Open shows its "
                                     "results again without playing a game.</div>"),
                              self.runs, w.HBox([self.open_button, self.refresh_button]), self.note,
                              self.results.widget])
        self.refresh()

    def refresh(self) -> None:
        """List the kept runs and the sweep stores again."""
        options = [(_label(r), f"run:{r['id']}") for r in self.workspace.store.runs()]
        options += [(f"{s['saved'].replace('T', ' ')} · {s['game']} · sweep {s['path']} · {s['status']} · "
                     f"{s['done']:,} of {s['total']:,} games", f"sweep:{s['path']}")
                    for s in find_sweeps(self.workspace.sweep_roots)]
        self.runs.options = options or [("no runs yet: run a study first", "")]
        self.runs.value = options[0][1] if options else ""

    def open(self, key: str | None = None) -> None:
        """Show a run's (``run:<id>``) or a sweep's (``sweep:<path>``) results."""
        key = key or self.runs.value
        try:
            if not key:
                raise InputError("no run chosen")
            kind, _, ref = key.partition(":")
            if kind == "sweep":
                record, tables = open_sweep(ref)
            else:
                record, tables = self.workspace.store.load(ref)
        except Exception as exc:  # noqa: BLE001 - named in the page
            self.note.value = message(error_message(exc), "error")
            return
        self.note.value = ""
        self.results.show(record, tables, lambda: charts_of(record, tables),
                          "reopened from the store: nothing was played again", "info")
