"""The teaching page: a game's lessons — exact models beside simulations — that follow the sliders.

Shown for a game that declares ``lessons`` (``core/lessons.py``).  The lesson's settings are the
form (sliders where the ranges are narrow); every change runs the lesson again in the background,
newest change first: a lesson that can run exact-only (``games`` 0) shows its exact numbers first
(milliseconds), then again with its simulation.  The status line says how long each took.  Short
tables (the headline numbers) come first, then the charts, then the longer tables folded away.
"""

from __future__ import annotations

import html
import threading
import time
from typing import Any

from workbench.app.forms import Form
from workbench.app.render import chart_html, error_message, message, table_html
from workbench.app.workspace import Workspace
from workbench.core.lessons import EXACT_ONLY, exact_only, lessons
from workbench.core.model import get_game
from workbench.ui.common import require_widgets

__all__ = ["TeachingPage"]

SETTLE = 0.05  # seconds a slider may keep moving before the lesson runs
SHORT = 4  # tables of at most this many rows (the headline numbers) come before the charts, longer ones after


class TeachingPage:
    """Lesson picker, sliders, and exact-beside-simulated tables and charts that follow them."""

    def __init__(self, workspace: Workspace, game: str, lesson: str | None = None) -> None:
        w = require_widgets()
        self.model = get_game(game)
        self.lessons = {s.name: s for s in lessons(self.model)}
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
        self.tables = w.HTML()
        self.tables.add_class("wb-teach-tables")
        self.charts = w.HTML()
        self.charts.add_class("wb-teach-charts")
        self.form: Form | None = None
        self._generation = 0
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self.picker.observe(lambda _: self._build(), names="value")
        self.widget = w.VBox([self.picker, self.help, self.form_box, self.status, self.tables, self.charts])
        self._build()

    def _build(self) -> None:
        lesson = self.lessons[self.picker.value]
        self.help.value = f'<div class="wb-help">{html.escape(lesson.help)}</div>' if lesson.help else ""
        self.form = Form(lesson.settings, kind="lesson")
        self.form.observe(lambda _: self.update())
        self.form_box.children = [self.form.widget]
        self.update()

    # -- following the sliders ---------------------------------------------------------------------------
    def update(self) -> None:
        """Run the lesson again for the current sliders (the newest change wins; older runs are dropped)."""
        with self._lock:
            self._generation += 1
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(target=self._follow, daemon=True, name="studio-lesson")
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

    def _current(self, generation: int) -> bool:
        return generation == self._generation

    def _run(self, generation: int) -> None:
        lesson = self.lessons[self.picker.value]
        try:
            settings = self.form.values()
        except Exception as exc:  # noqa: BLE001 - a wrong value is named in the page
            self.status.value = message(error_message(exc), "error")
            return
        phases = [("exact", {**settings, EXACT_ONLY: 0})] if exact_only(lesson) and settings.get(EXACT_ONLY) else []
        phases.append(("exact and simulated" if phases else "done", settings))
        for label, values in phases:
            if not self._current(generation):
                return
            started = time.perf_counter()
            try:
                tables = lesson.execute(self.model, values)
            except Exception as exc:  # noqa: BLE001 - an impossible combination is named in the page
                if self._current(generation):
                    self.status.value = message(error_message(exc), "error")
                    self.tables.value = self.charts.value = ""
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
            body = short
            took = time.perf_counter() - started
            if not self._current(generation):
                return
            self.tables.value, self.charts.value = body, drawn
            self.status.value = (f'<span class="wb-state" data-state="{"exact" if label == "exact" else "done"}" '
                                 f'data-computed="{computed:.4f}" data-seconds="{took:.4f}" '
                                 f'data-settings="{html.escape(repr(sorted(values.items())))}">'
                                 f"{html.escape(label)}: computed in {computed:.2f} s, drawn in {took:.2f} s</span>")

    def set(self, **values: Any) -> None:
        """Move sliders by name (scripts and tests)."""
        self.form.set(**values)
