"""The studio's Runs tab: every run kept in the workspace and every sweep store, reopened without playing again.

A kept run's tables are read back from its Parquet files and its charts drawn from them by the same
declarations (the study's charts; a what-if's difference chart; the per-cell outcome charts of a
stopped run or a sweep).  Nothing is simulated.
"""

from __future__ import annotations

from typing import Any

from workbench.app.store import find_sweeps, open_sweep
from workbench.app.workspace import Workspace
from workbench.core.errors import InputError
from workbench.core.present import charts
from workbench.core.studies.study import get_study
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
        if table is None:
            return {}
        title = f"significant (Holm, {table.height} metrics)" if "p_holm" in table.columns else "significant"
        return {"what_if": charts.delta_chart(table, "metric", title="What-if: edited − unchanged",
                                              x_title="edited − unchanged", color_title=title)}
    if kind == "sweep" or record.get("status") == "stopped":
        return cell_charts(tables, list(record.get("keys", []))) if "seats" in tables else {}
    return get_study(record["game"], record["name"]).make_charts(tables)


KEY_SETTINGS = 4  # settings shown per run in the list (all of them are in the run's summary when opened)


def _value(value: Any) -> str:
    text = ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
    return text if len(text) <= 24 else text[:21] + "…"


def key_settings(record: dict[str, Any]) -> str:
    """The settings that tell one run from another: the changed game parameters, the edits, then the study's."""
    shown = [f"{k}={_value(v)}" for k, v in (record.get("params") or {}).items()]
    if record.get("edits"):
        shown.append(f"{sum(len(v) for v in record['edits'].values())} edited cells")
    shown += [f"{k}={_value(v)}" for k, v in (record.get("settings") or {}).items() if v not in (None, "", [], ())]
    more = len(shown) - KEY_SETTINGS
    return ", ".join(shown[:KEY_SETTINGS]) + (f" +{more} more" if more > 0 else "") if shown else "defaults"


def _label(record: dict[str, Any]) -> str:
    """One line per run: when, study, key settings, n of N, status and how long it took."""
    when = str(record.get("saved", record.get("id", "")))[:19].replace("T", " ")
    games = f"{record.get('done', 0):,} of {record.get('total', 0):,} games" if record.get("total") else "exact"
    took = f" · {record['seconds']:.1f} s" if isinstance(record.get("seconds"), (int, float)) else ""
    return (f"{when} · {record.get('game')} · {record.get('name')} · {key_settings(record)} · {games} · "
            f"{record.get('status')}{took}")


class RunsPage:
    """The list of earlier runs and sweeps, and the results of the one opened."""

    def __init__(self, workspace: Workspace, game: str | None = None) -> None:
        w = require_widgets()
        self.workspace = workspace
        self.game = game  # the game picker's game: only its runs are listed (None: every game's)
        self.runs = w.Select(description="runs", rows=10, layout=w.Layout(width="98%"),
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

    def follow(self, game: str | None) -> None:
        """List only ``game``'s runs (the game picker changed)."""
        self.game = game
        self.refresh()

    def refresh(self) -> None:
        """List the kept runs and the sweep stores again (the chosen game's only)."""
        mine = (lambda g: True) if self.game is None else (lambda g: g == self.game)  # noqa: E731
        options = [(_label(r), f"run:{r['id']}") for r in self.workspace.store.runs() if mine(r.get("game"))]
        options += [(f"{s['saved'].replace('T', ' ')} · {s['game']} · sweep {s['path']} · "
                     f"{s['done']:,} of {s['total']:,} games · {s['status']}", f"sweep:{s['path']}")
                    for s in find_sweeps(self.workspace.sweep_roots) if mine(s.get("game"))]
        empty = f"no runs of {self.game} yet: run a study first" if self.game else "no runs yet: run a study first"
        self.runs.options = options or [(empty, "")]
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
