"""The lesson panel: a game's lessons — exact models beside simulations — that follow the sliders.

For a game that declares ``lessons`` (``core/lessons.py``).  The lesson's settings are the form
(sliders where the ranges are narrow); every change runs the lesson again in the background, newest
change first: a lesson that can run exact-only (``games`` 0) shows its exact numbers first
(milliseconds), then again with its simulation.  The status line says how long each took.  Short
tables (the headline numbers) come first, then the charts, then the longer tables folded away.  The
same panel is the studio's Teaching tab and a notebook's ``lesson_panel(game, lesson, …)``.
"""

from __future__ import annotations

import html
import threading
import time
from typing import Any

import polars as pl

from workbench.core.lessons import EXACT_ONLY, exact_only, lessons
from workbench.core.model import get_game
from workbench.core.study import Study
from workbench.ui.common import require_widgets, show_here
from workbench.ui.forms import Form
from workbench.ui.render import CSS, chart_html, error_message, message, table_html

__all__ = ["LessonPanel"]

SETTLE = 0.05  # seconds a slider may keep moving before the lesson runs
SHORT = 4  # tables of at most this many rows (the headline numbers) come before the charts, longer ones after


class LessonPanel:
    """Lesson picker, sliders, and exact-beside-simulated tables and charts that follow them.

    ``tables`` and ``settings`` are those of the last finished run (exact and simulated).
    """

    def __init__(self, game: str, lesson: str | None = None, values: dict[str, Any] | None = None,
                 seed: int = 0) -> None:
        w = require_widgets()
        self.model = get_game(game)
        self.seed = seed
        self.lessons = {s.name: s for s in lessons(self.model)}
        self.tables: dict[str, pl.DataFrame] = {}
        self.settings: dict[str, Any] = {}
        self._worker: threading.Thread | None = None
        if not self.lessons:
            self.widget = w.VBox([w.HTML(message(f"{self.model.title} declares no lessons (lessons on its model); "
                                                 "its studies are on the Studies page.", "info"))])
            return
        first = lesson if lesson in self.lessons else next(iter(self.lessons))
        self.picker = w.Dropdown(options=[(f"{s.title} ({s.name})", s.name) for s in self.lessons.values()],
                                 value=first, description="lesson", layout=w.Layout(width="640px"),
                                 style={"description_width": "initial"})
        self.picker.add_class("wb-lesson-picker")
        self.help = w.HTML()
        self.form_box = w.VBox()
        self.status = w.HTML()
        self.status.add_class("wb-teach-status")
        self.shown = w.HTML()
        self.shown.add_class("wb-teach-tables")
        self.drawn = w.HTML()
        self.drawn.add_class("wb-teach-charts")
        self.form: Form | None = None
        self._generation = 0
        self._lock = threading.Lock()
        self._initial = dict(values or {})
        self.picker.observe(lambda _: self._build(), names="value")
        self.widget = w.VBox([w.HTML(CSS), self.picker, self.help, self.form_box, self.status, self.shown, self.drawn])
        self._build()

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    @property
    def lesson(self) -> Study:
        """The chosen lesson."""
        return self.lessons[self.picker.value]

    def _build(self) -> None:
        lesson = self.lesson
        self.help.value = f'<div class="wb-help">{html.escape(lesson.help)}</div>' if lesson.help else ""
        unknown = set(self._initial) - {p.name for p in lesson.settings}
        if unknown:
            raise KeyError(f"lesson {lesson.name!r} has no setting {sorted(unknown)[0]!r}; settings: "
                           f"{', '.join(p.name for p in lesson.settings)}")
        self.form = Form(lesson.settings, self._initial, kind="lesson")
        self._initial = {}
        self.form.observe(lambda _: self.update())
        self.form_box.children = [self.form.widget]
        self.update()

    # -- following the sliders ---------------------------------------------------------------------------
    def update(self) -> None:
        """Run the lesson again for the current sliders (the newest change wins; older runs are dropped)."""
        with self._lock:
            self._generation += 1
            if self._worker is None or not self._worker.is_alive():
                # not a daemon: it draws charts with vl-convert, which must not be inside its engine when the
                # interpreter finalizes
                self._worker = threading.Thread(target=self._follow, name="workbench-lesson")
                self._worker.start()

    def _follow(self) -> None:
        while True:
            time.sleep(SETTLE)
            with self._lock:
                generation = self._generation
            self._run(generation)
            with self._lock:
                if generation == self._generation:
                    self._worker = None
                    return

    def wait(self, timeout: float | None = None) -> dict[str, pl.DataFrame]:
        """Block until the lesson has caught up with the sliders (at most ``timeout`` s); return its tables."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._lock:
                worker = self._worker
            if worker is None:
                return self.tables
            worker.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
            if deadline is not None and time.monotonic() >= deadline:
                return self.tables

    def _current(self, generation: int) -> bool:
        return generation == self._generation

    def _run(self, generation: int) -> None:
        lesson = self.lesson
        try:
            settings = self.form.values()
        except Exception as exc:  # noqa: BLE001 - a wrong value is named in the panel
            self.status.value = message(error_message(exc), "error")
            return
        phases = [("exact", {**settings, EXACT_ONLY: 0})] if exact_only(lesson) and settings.get(EXACT_ONLY) else []
        phases.append(("exact and simulated" if phases else "done", settings))
        exact_took = ""
        for label, values in phases:
            if not self._current(generation):
                return
            started = time.perf_counter()
            try:
                tables = lesson.execute(self.model, values, seed=self.seed)
            except Exception as exc:  # noqa: BLE001 - an impossible combination is named in the panel
                if self._current(generation):
                    self.status.value = message(error_message(exc), "error")
                    self.shown.value = self.drawn.value = ""
                return
            computed = time.perf_counter() - started
            short = "".join(table_html(name, frame) for name, frame in tables.items() if frame.height <= SHORT)
            long = "".join(table_html(name, frame) for name, frame in tables.items() if frame.height > SHORT)
            try:
                drawn = "".join(chart_html(name, chart) for name, chart in lesson.make_charts(tables).items())
            except Exception as exc:  # noqa: BLE001 - the tables stay
                drawn = message(f"the charts could not be made: {error_message(exc)}", "error")
            if long:
                drawn += f"<details class='wb-details'><summary>the tables behind the charts</summary>{long}</details>"
            took = time.perf_counter() - started
            if not self._current(generation):
                return
            self.shown.value, self.drawn.value = short, drawn
            if label == "exact":
                exact_took = f' data-exact-computed="{computed:.4f}"'  # the exact part alone, kept for the last line
            else:
                self.tables, self.settings = tables, values
            self.status.value = (f'<span class="wb-state" data-state="{"exact" if label == "exact" else "done"}" '
                                 f'data-computed="{computed:.4f}" data-seconds="{took:.4f}"{exact_took} '
                                 f'data-settings="{html.escape(repr(sorted(values.items())))}">'
                                 f"{html.escape(label)}: computed in {computed:.2f} s, drawn in {took:.2f} s</span>")

    def set(self, **values: Any) -> None:
        """Move sliders by name (scripts and tests)."""
        self.form.set(**values)

    # -- the results in a notebook cell -------------------------------------------------------------------
    def display_results(self) -> None:
        """Show the last run's tables and charts in the cell itself (a headless or exported notebook)."""
        show_here(self.tables, self.lesson.make_charts(self.tables) if self.tables else {})

    def show(self, run: bool = False) -> None:
        """Display the panel; with ``run``, wait for the lesson and put its tables and charts in the cell too."""
        from IPython.display import display

        display(self.widget)
        if run:
            self.wait()
            self.display_results()
