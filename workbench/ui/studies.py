"""Every game's studies in one widget panel, its form generated from the declared parameters.

:class:`StudyPanel` lists the registered games and their studies (``core/study.py``: core's
generic ones and each game's own) and builds the form from the study's settings and — for a study
that takes them — the game's parameters, every one a :class:`~workbench.core.model.Param`:

* a parameter with choices → a dropdown (``(none)`` first when it is optional);
* a boolean → a checkbox;
* a number with a narrow declared range → a slider; a wide one → a bounded number box;
* text → a text box (empty = none for an optional one);

each with the parameter's help text as its tooltip.  No game has form code of its own.  Run plays
the study in a background thread with a progress bar and Stop (finished games kept); the tables
(rates with their intervals) and charts replace the previous run's.  A value a user typed wrong is
named in the status line with what is allowed — never a traceback.
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl

from workbench.core.errors import WorkbenchError
from workbench.core.model import Param, game_names, get_game
from workbench.core.study import Study, get_study, studies
from workbench.ui.common import RunPanel, ShownTable, display_into, offline_charts, require_widgets

__all__ = ["StudyPanel", "param_widget"]

NONE = "(none)"
SLIDER_SPAN = 200  # integer ranges up to this wide get a slider, wider ones a number box

offline_charts()


def param_widget(param: Param, value: Any = None) -> Any:
    """The input widget for one declared parameter (tooltip: its help)."""
    w = require_widgets()
    value = param.default if value is None else value
    common = {"description": param.name.replace("_", " "), "tooltip": param.help,
              "style": {"description_width": "initial"}}
    if param.choices is not None:
        options = ([NONE] if param.optional else []) + list(param.choices)
        return w.Dropdown(options=options, value=NONE if value is None else value, **common)
    if param.kind is bool:
        return w.Checkbox(value=bool(value), indent=False, **common)
    bounded = param.low is not None and param.high is not None and math.isfinite(param.low) \
        and math.isfinite(param.high)
    if param.kind is int and not param.optional:
        if bounded and param.high - param.low <= SLIDER_SPAN:
            return w.IntSlider(value=int(value), min=int(param.low), max=int(param.high), **common)
        low = int(param.low) if param.low is not None else -(2**53)
        high = int(param.high) if param.high is not None else 2**53
        return w.BoundedIntText(value=int(value), min=low, max=high, **common)
    if param.kind is float and not param.optional and bounded and param.high - param.low <= 1000:
        return w.FloatSlider(value=float(value), min=param.low, max=param.high, step=(param.high - param.low) / 100,
                             readout_format=".3g", **common)
    return w.Text(value="" if value is None else str(value), placeholder="none" if param.optional else "", **common)


def _read(param: Param, widget: Any) -> Any:
    """The widget's value validated against the declaration (an InputError names field and allowed values)."""
    raw = widget.value
    if raw == NONE or (isinstance(raw, str) and not raw.strip() and param.optional):
        raw = None
    return param.validate(raw, f"field {param.name.replace('_', ' ')!r}")


class StudyPanel:
    """Game and study pickers, the generated form, Run / Stop, tables and charts."""

    def __init__(self, game: str | None = None, study: str | None = None, settings: dict[str, Any] | None = None,
                 params: dict[str, Any] | None = None, seed: int = 0, workers: int = 1) -> None:
        w = require_widgets()
        names = game_names()
        game = game or names[0]
        get_game(game)  # a clear error for an unknown game
        self.game = w.Dropdown(options=names, value=game, description="game")
        self.study = w.Dropdown(description="study", style={"description_width": "initial"})
        self.seed = w.BoundedIntText(value=seed, min=0, max=2**63 - 1, description="master seed")
        self.workers = w.BoundedIntText(value=workers, min=1, max=64, description="workers")
        self.help = w.HTML()
        self.form = w.VBox()
        self.output = w.Output()
        self.fields: dict[str, tuple[Param, Any]] = {}  # "setting:games" / "param:battlefield" → widget
        self.tables: dict[str, pl.DataFrame] = {}
        self.panel = RunPanel(self._task, on_done=self._show, on_error=self._error)
        self._initial = (dict(settings or {}), dict(params or {}))
        self._fill_studies(study)
        self.game.observe(lambda _: self._fill_studies(None), names="value")
        self.study.observe(lambda _: self._build_form(), names="value")
        self.widget = w.VBox([w.HBox([self.game, self.study]), self.help, self.form,
                              w.HBox([self.seed, self.workers]), self.panel.widget, self.output])

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    # -- the form -------------------------------------------------------------------------------
    def current(self) -> Study:
        """The chosen study."""
        return get_study(self.game.value, self.study.value)

    def _fill_studies(self, wanted: str | None) -> None:
        options = [(f"{s.title} ({s.name})", s.name) for s in studies(self.game.value)]
        names = [n for _, n in options]
        self.study.options = options
        self.study.value = wanted if wanted in names else names[0]
        self._build_form()

    def _build_form(self) -> None:
        study, model = self.current(), get_game(self.game.value)
        settings, params = self._initial
        self.fields = {f"setting:{p.name}": (p, param_widget(p, settings.get(p.name))) for p in study.settings}
        if study.game_params:
            own = {p.name for p in study.settings}
            self.fields |= {f"param:{p.name}": (p, param_widget(p, params.get(p.name))) for p in model.params
                            if p.name not in own}
        self.help.value = f"<b>{study.title}</b> — {study.help}" if study.help else f"<b>{study.title}</b>"
        self.form.children = [widget for _, widget in self.fields.values()]

    def values(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The form's settings and game parameters, each validated (an InputError names the field)."""
        settings, params = {}, {}
        for key, (param, widget) in self.fields.items():
            kind, name = key.split(":", 1)
            (settings if kind == "setting" else params)[name] = _read(param, widget)
        model = get_game(self.game.value)
        defaults = {p.name: p.default for p in model.params}
        return settings, {k: v for k, v in params.items() if v != defaults.get(k)}

    def set(self, **values: Any) -> None:
        """Set form fields by name (a setting first, else a game parameter), e.g. ``set(games=500)``."""
        for name, value in values.items():
            key = f"setting:{name}" if f"setting:{name}" in self.fields else f"param:{name}"
            if key not in self.fields:
                raise KeyError(f"no field {name!r}; fields: {', '.join(k.split(':', 1)[1] for k in self.fields)}")
            param, widget = self.fields[key]
            widget.value = NONE if value is None and param.choices is not None else (
                "" if value is None else (str(value) if isinstance(widget.value, str) and param.choices is None
                                          else value))

    # -- running --------------------------------------------------------------------------------
    def _task(self, on_progress: Any, should_stop: Any) -> dict[str, pl.DataFrame]:
        settings, params = self.values()
        return self.current().execute(self.game.value, settings, params, seed=int(self.seed.value),
                                      workers=int(self.workers.value), on_progress=on_progress,
                                      should_stop=should_stop)

    def run(self, wait: bool = False) -> dict[str, pl.DataFrame] | None:
        """Run the chosen study (in the background; ``wait`` blocks and returns the tables)."""
        return self.panel.run(wait=wait)

    def charts(self) -> dict[str, Any]:
        """The study's charts of the last run's tables."""
        return self.current().make_charts(self.tables) if self.tables else {}

    def _items(self) -> list[Any]:
        items: list[Any] = []
        for name, table in self.tables.items():
            if name == "games":
                items.append(f"{table.height:,} games played")
                continue
            items.append(ShownTable(table, name))
        return items + list(self.charts().values())

    def _show(self, tables: dict[str, pl.DataFrame]) -> None:
        self.tables = tables
        display_into(self.output, *self._items())

    def display_results(self) -> None:
        """Show the last run's tables and charts in the cell itself (a headless or exported notebook)."""
        from IPython.display import display

        for item in self._items():
            print(item) if isinstance(item, str) else display(item)

    def _error(self, exc: BaseException) -> None:
        from workbench.core.errors import RunInterrupted

        if isinstance(exc, RunInterrupted):
            self.panel.status.value = f"stopped: {exc}"
            return
        text = str(exc) if isinstance(exc, WorkbenchError) else f"{type(exc).__name__}: {exc}"
        self.panel.status.value = f"<span style='color:#c00'>{_html(text)}</span>"
        display_into(self.output, f"error: {text}")


def _html(text: str) -> str:
    import html

    return html.escape(text)
