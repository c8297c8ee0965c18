"""The lesson panel: a game's lessons — exact models beside simulations — that follow the sliders.

For a game that declares ``lessons`` (``core/lessons.py``).  A lesson opens with its introduction
in plain words (the game's own, or core's general one) and a glossary of the jargon its text uses,
then a legend saying what "exact" and "simulated" mean and how they are drawn.  The lesson's
settings are the form (sliders where the ranges are narrow); every change runs the lesson again in
the background, newest change first — the old numbers are dimmed under a busy sign meanwhile — and a
lesson that can run exact-only (``games`` 0) shows its exact numbers first (milliseconds), then
again with its simulation.

Every exact-beside-simulated table is shown for a student (:func:`student_table`): one number
format (a chance as a percent with two decimals, a short fraction only as a hint beside it), the
simulated value with its range at one confidence level for every lesson (95 %, recomputed from the
counts: :data:`CONFIDENCE`), and a column "exact value inside the simulated range?" (✓/✗).  The
headline table (the lesson's first) and short ones come first and are never folded, then the charts
(every lesson has one: :func:`exact_chart` when the lesson declares none), then the long tables,
folded.  The same panel is the studio's Teaching tab and a notebook's ``lesson_panel(game, lesson, …)``.
"""

from __future__ import annotations

import html
import threading
import time
from typing import Any

import numpy as np
import polars as pl

from workbench.core.lessons import EXACT_ONLY, exact_only, glossary, introduction, lessons
from workbench.core.model import get_game
from workbench.core.stats import wilson
from workbench.core.study import Study
from workbench.ui.common import require_widgets, show_here
from workbench.ui.forms import Form
from workbench.ui.render import CSS, chart_html, error_message, message, table_html

__all__ = ["CONFIDENCE", "LEGEND", "LessonPanel", "exact_chart", "percent", "student_table"]

SETTLE = 0.05  # seconds a slider may keep moving before the lesson runs
SHORT = 12  # tables of at most this many rows come before the charts (the first table always does), longer after
CONFIDENCE = 0.95  # every simulated range on the teaching page, whatever level the lesson's own tables use
HINT = 9  # a fraction of at most this many characters is shown beside its percent as a hint
LEGEND = ("<b>exact</b> = worked out by counting every way the game can go (in the charts: bars, lines or ◆). "
          "<b>simulated</b> = counted over the games the computer played (in the charts: ● dots, with a line for its "
          "range). Every range here is a 95 % range: it holds the true value 95 times out of 100, so about 1 row in "
          "20 may show ✗ by chance alone; many ✗ mean the model and the game disagree.")
_INTERVALS = (("simulated_low", "simulated_high"), ("low", "high"), ("lower", "upper"))
_RAW = {"exact", "exact_fraction", "exact_text", "simulated", "simulated_low", "simulated_high", "low", "high",
        "lower", "upper", "inside", "k", "count", "n", "half_width", "exact_applies", "strategies"}
KEY_LABELS = {"quantity": "what", "value": "value", "round": "round", "streak": "streak", "suit_size": "cards per suit",
              "measure": "result", "event": "event", "outcome": "outcome"}


def percent(x: float | None) -> str:
    """A chance as people read it: ``7.02 %``; tiny ones ``< 0.01 %``; none a dash."""
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return "—"
    if 0 < x < 0.00005:
        return "< 0.01 %"
    if 0.99995 < x < 1:
        return "> 99.99 %"
    return f"{100 * x:.2f} %"


def _interval(frame: pl.DataFrame) -> tuple[str, str] | None:
    return next(((lo, hi) for lo, hi in _INTERVALS if lo in frame.columns and hi in frame.columns), None)


def _counts(frame: pl.DataFrame, games: int) -> tuple[np.ndarray, np.ndarray]:
    """Successes and games per row (k or count, n; else read back from the simulated share and the games)."""
    n = (frame["n"].fill_null(0).to_numpy() if "n" in frame.columns else np.full(frame.height, games)).astype(float)
    if "k" in frame.columns or "count" in frame.columns:
        k = frame["k" if "k" in frame.columns else "count"].fill_null(0).to_numpy().astype(float)
    else:
        k = np.rint(np.nan_to_num(frame["simulated"].cast(pl.Float64).fill_null(0.0).to_numpy()) * n)
    return k, n


_VALUE_WORDS = ("mean", "price", "surplus", "score", "expected", "length", "points", "streak")


def _ranges(frame: pl.DataFrame, games: int) -> tuple[list[bool], list[float | None], list[float | None]]:
    """Per row: whether it is a chance, and its simulated range.

    A chance gets the 95 % Wilson range from its counts; a mean (a value, not a chance) the table's
    own interval; None where nothing was simulated.
    """
    keys = [c for c in frame.columns if c not in _RAW]
    text = [" ".join(str(row[c]) for c in keys).lower() for row in frame.iter_rows(named=True)]
    exact = [e for e in frame["exact"].to_list()]
    simulated = frame["simulated"].to_list() if "simulated" in frame.columns else [None] * frame.height
    chance = [not ((e is not None and e > 1) or any(w in t for w in _VALUE_WORDS)) for e, t in zip(exact, text,
                                                                                                     strict=True)]
    k, n = _counts(frame.with_columns(pl.Series("simulated", simulated, dtype=pl.Float64)), games)
    ok = (n > 0) & (k >= 0) & (k <= n)
    wl, wh = wilson(np.where(ok, k, 0), np.where(ok, n, 1), CONFIDENCE)
    own = _interval(frame)
    ol = frame[own[0]].to_list() if own else [None] * frame.height
    oh = frame[own[1]].to_list() if own else [None] * frame.height
    low, high = [], []
    for i, s in enumerate(simulated):
        if s is None or (chance[i] and not ok[i]) or (not chance[i] and ol[i] is None):
            low.append(None)
            high.append(None)
        else:
            low.append(float(wl[i]) if chance[i] else ol[i])
            high.append(float(wh[i]) if chance[i] else oh[i])
    return chance, low, high


def _number(x: float | None) -> str:
    return "—" if x is None else f"{x:.4g}"


def student_table(frame: pl.DataFrame, games: int = 0) -> pl.DataFrame | None:
    """An exact-beside-simulated table as a student reads it (None for a table that is not one).

    Columns: the table's own keys (plain labels), ``exact`` (a chance as a percent, a short fraction
    as a hint; a mean as a number), ``simulated (95 % range)``, ``exact inside the simulated range?``
    (✓/✗; — where nothing was simulated) and ``games``.  A table of means (``half_width``) reads
    ``5.53 ± 0.21``.
    """
    if "exact" not in frame.columns:
        return None
    keys = [c for c in frame.columns if c not in _RAW]
    out = {KEY_LABELS.get(c, c.replace("_", " ")): [str(v) for v in frame[c].to_list()] for c in keys}
    exact = frame["exact"].to_list()
    simulated = frame["simulated"].to_list() if "simulated" in frame.columns else [None] * frame.height
    if "half_width" in frame.columns:
        half = frame["half_width"].to_list()
        out["exact"] = [_number(e) for e in exact]
        out["simulated (95 % range)"] = ["—" if s is None else f"{s:.4g} ± {h:.2g}" for s, h in
                                         zip(simulated, half, strict=True)]
        inside = [None if e is None or s is None else abs(e - s) <= h for e, s, h in zip(exact, simulated, half,
                                                                                         strict=True)]
    else:
        chance, low, high = _ranges(frame, games)
        hints = (frame["exact_fraction"] if "exact_fraction" in frame.columns else frame["exact_text"]
                 if "exact_text" in frame.columns else pl.Series([None] * frame.height)).to_list()

        def shown(x: float | None, is_chance: bool) -> str:
            return percent(x) if is_chance else _number(x)

        out["exact"] = [shown(e, c) + (f" ({h})" if h and "/" in str(h) and len(str(h)) <= HINT else "")
                        for e, h, c in zip(exact, hints, chance, strict=True)]
        out["simulated (95 % range)"] = [
            "—" if lo is None else f"{shown(s, c)} ({shown(lo, c)} – {shown(hi, c)})"
            for s, lo, hi, c in zip(simulated, low, high, chance, strict=True)]
        inside = [None if e is None or lo is None else bool(lo - 1e-12 <= e <= hi + 1e-12)
                  for e, lo, hi in zip(exact, low, high, strict=True)]
    out["exact inside the simulated range?"] = ["—" if i is None else "✓" if i else "✗" for i in inside]
    if "n" in frame.columns or games:
        out["games"] = [f"{int(v or 0):,}" for v in (frame["n"].to_list() if "n" in frame.columns
                                                      else [games] * frame.height)]
    return pl.DataFrame(out, schema={c: pl.String for c in out})


def exact_chart(frame: pl.DataFrame, games: int = 0, title: str = "Exact (◆) beside simulated (● with its 95 % "
                "range)") -> Any:
    """The chart a lesson without its own gets: per row, the exact chance (◆) and the simulated one (● with range)."""
    import altair as alt

    keys = [c for c in frame.columns if c not in _RAW]
    label = pl.concat_str([pl.col(c).cast(pl.String) for c in keys], separator=" · ") if keys else pl.lit("all")
    chance, low, high = _ranges(frame, games)
    simulated = frame["simulated"] if "simulated" in frame.columns else pl.Series([None] * frame.height)
    data = frame.select(label.alias("row"), pl.col("exact").cast(pl.Float64)).with_columns(
        pl.Series("simulated", simulated, dtype=pl.Float64), pl.Series("low", low, dtype=pl.Float64),
        pl.Series("high", high, dtype=pl.Float64)).filter(pl.Series(chance))
    base = alt.Chart(alt.Data(values=data.to_dicts()))
    y = alt.Y("row:N", title=" · ".join(KEY_LABELS.get(c, c) for c in keys) or None, sort=None)
    exact = base.mark_point(shape="diamond", size=90, filled=True, color="#222").encode(
        y=y, x=alt.X("exact:Q", title="chance", axis=alt.Axis(format="%")))
    bars = base.mark_rule(color="#1f77b4").encode(y=y, x="low:Q", x2="high:Q")
    dots = base.mark_point(filled=True, size=50, color="#1f77b4").encode(y=y, x="simulated:Q")
    return alt.layer(bars, dots, exact).properties(title=title, width=420)


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
        self.help.add_class("wb-lesson-intro")
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
        self.results = w.VBox([self.shown, self.drawn])
        self.widget = w.VBox([w.HTML(CSS), self.picker, self.help, self.form_box,
                              w.HTML(f"<div class='wb-legend wb-more'>{LEGEND}</div>"), self.status, self.results])
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
        intro = introduction(self.model, lesson.name)
        words = glossary(intro, lesson.help or "", lesson.title)
        gloss = "".join(f"<li><b>{html.escape(t)}</b>: {html.escape(m)}</li>" for t, m in words)
        self.help.value = (f'<div class="wb-intro" data-lesson="{html.escape(lesson.name)}"><p>{html.escape(intro)}</p>'
                           + (f'<p class="wb-more">{html.escape(lesson.help)}</p>' if lesson.help else "")
                           + (f'<details class="wb-glossary" open><summary>words used here</summary><ul>{gloss}</ul>'
                              "</details>" if gloss else "") + "</div>")
        unknown = set(self._initial) - {p.name for p in lesson.settings}
        if unknown:
            raise KeyError(f"lesson {lesson.name!r} has no setting {sorted(unknown)[0]!r}; settings: "
                           f"{', '.join(p.name for p in lesson.settings)}")
        self.form = Form(lesson.settings, self._initial, kind="lesson")
        self.form.widget.add_class(f"wb-lesson-form-{lesson.name}")  # which lesson's form is on the page
        self._initial = {}
        self.form.observe(lambda _: self.update())
        self.form_box.children = [self.form.widget]
        self.update()

    # -- following the sliders ---------------------------------------------------------------------------
    def update(self) -> None:
        """Run the lesson again for the current sliders (the newest change wins; older runs are dropped)."""
        with self._lock:
            self._generation += 1
            self.results.add_class("wb-busy")  # the old numbers dimmed until the new ones are in
            self.status.value = ('<span class="wb-state" data-state="busy"><span class="wb-spinner"></span> '
                                 "working it out again…</span>")
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

    def _not_busy(self, generation: int) -> None:
        """Lift the busy sign, unless a newer change is already waiting (its run lifts it)."""
        with self._lock:  # the same lock update() sets the sign under: never a stale class list written back
            if generation == self._generation:
                self.results.remove_class("wb-busy")

    def _run(self, generation: int) -> None:
        """Run the lesson for one generation of the sliders; whatever goes wrong, the busy sign never stays."""
        try:
            self._phases(generation)
        except Exception as exc:  # noqa: BLE001 - a failure anywhere (a table, a chart) is named, never left "busy"
            if self._current(generation):
                self.status.value = message(error_message(exc), "error")
                self._not_busy(generation)

    def _phases(self, generation: int) -> None:
        lesson = self.lesson
        try:
            settings = self.form.values()
        except Exception as exc:  # noqa: BLE001 - a wrong value is named in the panel
            self.status.value = message(error_message(exc), "error")
            self._not_busy(generation)
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
                    self._not_busy(generation)
                return
            computed = time.perf_counter() - started
            short, drawn, long = self._render(lesson, tables, int(values.get(EXACT_ONLY) or 0))
            if long:
                drawn += ("<details class='wb-details'><summary>all the numbers behind the charts</summary>"
                          f"{long}</details>")
            took = time.perf_counter() - started
            if not self._current(generation):
                return
            self.shown.value, self.drawn.value = short, drawn
            if label != "exact":
                self._not_busy(generation)
            if label == "exact":
                exact_took = f' data-exact-computed="{computed:.4f}"'  # the exact part alone, kept for the last line
            else:
                self.tables, self.settings = tables, values
            self.status.value = (f'<span class="wb-state" data-state="{"exact" if label == "exact" else "done"}" '
                                 f'data-computed="{computed:.4f}" data-seconds="{took:.4f}"{exact_took} '
                                 f'data-settings="{html.escape(repr(sorted(values.items())))}">'
                                 f"{html.escape(label)}: computed in {computed:.2f} s, drawn in {took:.2f} s</span>")

    @staticmethod
    def _render(lesson: Study, tables: dict[str, pl.DataFrame], games: int) -> tuple[str, str, str]:
        """The headline and short tables, the charts, the long tables — as a student reads them."""
        short, long, first = [], [], True
        for name, frame in tables.items():
            if name == "games":  # the played games: in the downloads of the Studies page, not a lesson's table
                continue
            shown = student_table(frame, games)
            part = table_html(name, frame) if shown is None else table_html(name, shown, name.replace("_", " "))
            (short if first or frame.height <= SHORT else long).append(part)
            first = False
        try:
            charts = lesson.make_charts(tables)
            if not charts:
                headline = next((f for n, f in tables.items() if n != "games" and student_table(f) is not None), None)
                charts = {} if headline is None else {"exact_vs_simulated": exact_chart(headline, games)}
            drawn = "".join(chart_html(name, chart) for name, chart in charts.items())
        except Exception as exc:  # noqa: BLE001 - the tables stay
            drawn = message(f"the charts could not be made: {error_message(exc)}", "error")
        return "".join(short), drawn, "".join(long)

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
