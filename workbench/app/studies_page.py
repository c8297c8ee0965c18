"""The studies page: a game's declared studies, a form generated from them, Run / Stop, results.

The study picker lists core's generic studies and the game's own (``core/study.py``); the form is
the study's settings and — for a study that takes them — the game's parameters, each a widget made
from its :class:`~workbench.core.model.Param` (``forms.py``).  Run validates everything first (a
wrong value or an impossible combination is named in the page and nothing is played), then plays
the study in the background.  A finished run and a stopped one are kept in the workspace; a stopped
run shows the outcome tables of the games that finished.
"""

from __future__ import annotations

import html
import os
from typing import Any

import polars as pl

from workbench.app.forms import Form
from workbench.app.jobs import JobPanel
from workbench.app.render import error_message, message
from workbench.app.results import ResultsView
from workbench.app.store import sweep_charts
from workbench.app.workspace import Workspace
from workbench.core.errors import RunInterrupted
from workbench.core.model import GameModel, get_game
from workbench.core.study import Study, get_study, outcome_tables, studies
from workbench.ui.common import require_widgets

__all__ = ["StudiesPage", "partial_tables", "varying_keys"]


def varying_keys(model: GameModel, frame: pl.DataFrame) -> list[str]:
    """The parameters (and lineups) that vary across a frame's games: its cells."""
    keys = [p.name for p in model.params if p.name in frame.columns and frame.get_column(p.name).n_unique() > 1]
    keys += [c for c in frame.columns if c.startswith("agent_p") and frame.get_column(c).n_unique() > 1]
    return keys + (["lineup"] if "lineup" in frame.columns else [])


def partial_tables(model: GameModel, frame: pl.DataFrame) -> tuple[dict[str, pl.DataFrame], list[str]]:
    """Outcome tables of the games a stopped run finished, per cell, and the cell keys."""
    keys = varying_keys(model, frame)
    return {**outcome_tables(frame, keys), "games": frame}, keys


class StudiesPage:
    """Study picker, generated form, Run / Stop and the results of one game's studies."""

    def __init__(self, workspace: Workspace, game: str, study: str | None = None) -> None:
        w = require_widgets()
        self.workspace = workspace
        self.model = get_game(game)
        self.studies = {s.name: s for s in studies(self.model)}
        first = study if study in self.studies else next(iter(self.studies))
        self.picker = w.Dropdown(options=[(f"{s.title} ({s.name})", s.name) for s in self.studies.values()],
                                 value=first, description="study", layout=w.Layout(width="640px"),
                                 style={"description_width": "initial"})
        self.picker.add_class("wb-study-picker")
        self.help = w.HTML()
        self.settings_box, self.params_box = w.VBox(), w.VBox()
        cores = os.cpu_count() or 1
        self.seed = w.BoundedIntText(value=0, min=0, max=2**63 - 1, description="master seed",
                                     tooltip="the same seed plays the same games",
                                     style={"description_width": "initial"})
        self.workers = w.BoundedIntText(value=1, min=1, max=max(1, cores), description="workers",
                                        tooltip=f"worker threads or processes (this machine has {cores} cores)",
                                        style={"description_width": "initial"})
        self.seed.add_class("wb-seed")
        self.job = JobPanel("Run")
        self.job.run_button.on_click(lambda _: self.run())
        self.note = w.HTML()
        self.note.add_class("wb-note")
        self.results = ResultsView(workspace)
        self.settings: Form | None = None
        self.params: Form | None = None
        self.picker.observe(lambda _: self._build_form(), names="value")
        self._build_form()
        self.widget = w.VBox([self.picker, self.help,
                              w.HTML("<b>Study settings</b>"), self.settings_box,
                              self.params_box, w.HBox([self.seed, self.workers]), self.job.widget, self.note,
                              self.results.widget])

    # -- the form -------------------------------------------------------------------------------------
    @property
    def study(self) -> Study:
        """The chosen study."""
        return self.studies[self.picker.value]

    def _build_form(self) -> None:
        w = require_widgets()
        study = self.study
        self.help.value = f'<div class="wb-help">{html.escape(study.help)}</div>' if study.help else ""
        self.settings = Form(study.settings, kind="setting")
        self.settings_box.children = [self.settings.widget] if study.settings else [w.HTML("<i>none</i>")]
        if study.game_params:
            own = {p.name for p in study.settings}
            self.params = Form([p for p in self.model.params if p.name not in own], kind="param")
            self.params_box.children = [w.HTML(f"<b>{html.escape(self.model.title)}: game parameters</b> "
                                               "<span class='wb-more'>(hover a field for its help)</span>"),
                                        self.params.widget]
        else:
            self.params = None
            self.params_box.children = []
        self.note.value = ""

    def set(self, **values: Any) -> None:
        """Set fields by name: a study setting first, else a game parameter."""
        for name, value in values.items():
            form = self.settings if name in self.settings else self.params
            if form is None or name not in form:
                raise KeyError(f"no field {name!r}")
            form.set(**{name: value})

    # -- running ----------------------------------------------------------------------------------------
    def _read(self) -> tuple[dict[str, Any], dict[str, Any]]:
        settings = self.settings.values()
        params = self.params.changed() if self.params is not None else {}
        resolved = self.study.resolve(settings)
        if self.study.game_params:
            self.model.resolve_params(params)  # an impossible combination is named here, before any game
        return resolved, params

    def run(self) -> None:
        """Press Run: validate, then play the study in the background."""
        if self.job.running:
            return
        try:
            settings, params = self._read()
        except Exception as exc:  # noqa: BLE001 - every error a user can cause is named in the page
            self.note.value = message(error_message(exc), "error")
            return
        self.note.value = ""
        self.results.clear()
        study, model, seed, workers = self.study, self.model, int(self.seed.value), int(self.workers.value)
        record = {"kind": "study", "game": model.name, "name": study.name,
                  "title": f"{model.title}: {study.title}", "settings": settings, "params": params, "seed": seed,
                  "workers": workers, "rules_version": model.rules_version}

        def task(on_progress: Any, should_stop: Any) -> dict[str, pl.DataFrame]:
            return study.execute(model, settings, params, seed=seed, workers=workers, on_progress=on_progress,
                                 should_stop=should_stop)

        self.job.start(task, lambda tables, took: self._done(record, tables, took),
                       lambda exc, took: self._stopped(record, exc, took), self._error)

    def _done(self, record: dict[str, Any], tables: dict[str, pl.DataFrame], took: float) -> None:
        games = tables.get("games")
        done = games.height if games is not None else 0
        record = {**record, "status": "done", "done": done, "total": done, "seconds": round(took, 3)}
        record["id"] = self.workspace.store.save(record, tables)
        study = self.study if self.study.name == record["name"] else get_study(self.model, record["name"])
        self.results.show(record, tables, lambda: study.make_charts(tables), f"done in {took:.1f} s; kept as an "
                          "earlier run")

    def _stopped(self, record: dict[str, Any], exc: RunInterrupted, took: float) -> None:
        partial = exc.partial if isinstance(exc.partial, pl.DataFrame) else None
        if partial is None or partial.height == 0:
            self.results.clear(f"stopped before any game finished ({exc.total:,} asked); nothing to show")
            return
        tables, keys = partial_tables(self.model, partial)
        record = {**record, "status": "stopped", "done": partial.height, "total": exc.total, "keys": keys,
                  "seconds": round(took, 3)}
        record["id"] = self.workspace.store.save(record, tables)
        self.results.show(record, tables, lambda: sweep_charts(tables, keys),
                          f"stopped: {partial.height:,} of {exc.total:,} games finished — their outcome tables "
                          "below, kept as an earlier run", "info")

    def _error(self, text: str) -> None:
        self.note.value = message(text, "error")
        self.results.clear()
