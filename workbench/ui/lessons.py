"""The lesson panel: a game's lessons — a question first, then exact beside simulated — that follow the sliders.

For a game that declares ``lessons`` (``core/studies/lessons.py``).  A lesson opens with its introduction
in plain words (the game's own, or core's general one) and a glossary of the words its text uses,
then its question (``core/studies/lessons.py: question``): the student types a guess (a percent) or picks
a choice, and presses **Check my guess**.  Only then is the lesson worked out: the exact answer
first (milliseconds, for a lesson that can run exact-only: ``games`` 0), then the simulation, with
"simulating… n of N games" while it runs; then the guess, the exact answer and the simulated one
side by side with a sentence on how far off the guess was (``core/studies/lessons.py: compare``).  Moving
a slider changes the game: the answer is put away and a new guess asked for.

Every exact-beside-simulated table is shown for a student (:func:`student_table`): one number
format (a chance as a percent with two decimals, a short fraction only as a hint beside it), the
simulated value with its range at the page's one level (:data:`CONFIDENCE`, recomputed from the
counts, said once in plain words in the legend), and a column "exact value inside the simulated
range?" (✓/✗).  A table mixing chances with averages is shown as two.  The charts are drawn from the
same numbers (:func:`student_chart`: percents, the same ranges); every key reads by its display name
(``core/present/charts.py: display_label``).  The same panel is the studio's Teaching tab and a notebook's
``lesson_panel(game, lesson, …)``.
"""

from __future__ import annotations

import html
import re
import threading
import time
from typing import Any

import numpy as np
import polars as pl

from workbench.core.errors import InputError
from workbench.core.model import get_game
from workbench.core.present.charts import display_label
from workbench.core.stats.rates import wilson
from workbench.core.studies.lessons import (
    EXACT_ONLY,
    LEVEL,
    LEVEL_WORDS,
    Answer,
    compare,
    exact_only,
    glossary,
    introduction,
    lesson_title,
    lessons,
    pct,
    question,
)
from workbench.core.studies.study import Study
from workbench.ui.common import require_widgets, show_here
from workbench.ui.forms import Form, close_tree
from workbench.ui.render import CSS, chart_html, error_message, message, table_html

__all__ = ["CONFIDENCE", "LEGEND", "LessonPanel", "answer_html", "exact_chart", "parse_guess", "percent",
           "student_chart", "student_table"]

SETTLE = 0.05  # seconds a slider may keep moving before the lesson runs
SHORT = 12  # tables of at most this many rows come before the charts (the first table always does), longer after
CONFIDENCE = LEVEL  # every simulated range on the teaching page, whatever level the lesson's own tables use
HINT = 9  # a fraction of at most this many characters is shown beside its percent as a hint
PROGRESS_EVERY = 0.2  # seconds between two "simulating… n of N" lines
SIMULATED = "simulated (range)"
INSIDE = "exact inside the simulated range?"
LEGEND = ("<b>exact</b> = worked out by counting every way the game can go (in the charts: bars or ◆). "
          "<b>simulated</b> = counted over the games the computer played (in the charts: ● dots, with a line for its "
          f"range). {html.escape(LEVEL_WORDS)}")
_INTERVALS = (("simulated_low", "simulated_high"), ("low", "high"), ("lower", "upper"))
_RAW = {"exact", "exact_fraction", "exact_text", "simulated", "simulated_low", "simulated_high", "low", "high",
        "lower", "upper", "inside", "k", "count", "n", "half_width", "exact_applies", "strategies"}
KEY_LABELS = {"quantity": "what", "value": "value", "round": "round", "streak": "streak", "suit_size": "cards per suit",
              "measure": "result", "event": "event", "outcome": "outcome"}


def key_label(column: str) -> str:
    """A key column's header on the teaching page."""
    return KEY_LABELS.get(column) or display_label(column)


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

    A chance gets the Wilson range at :data:`CONFIDENCE` from its counts; a mean (a value, not a chance) the table's
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

    Columns: the table's own keys (plain labels, values by display name), ``exact`` (a chance as a
    percent, a short fraction as a hint; a mean as a number), ``simulated (range)`` (at :data:`CONFIDENCE`),
    ``exact inside the simulated range?``
    (✓/✗; — where nothing was simulated) and ``games``.  A table of means (``half_width``) reads
    ``5.53 ± 0.21``.
    """
    if "exact" not in frame.columns:
        return None
    keys = [c for c in frame.columns if c not in _RAW]
    out = {key_label(c): [display_label(v, c) for v in frame[c].to_list()] for c in keys}
    exact = frame["exact"].to_list()
    simulated = frame["simulated"].to_list() if "simulated" in frame.columns else [None] * frame.height
    if "half_width" in frame.columns:
        half = frame["half_width"].to_list()
        out["exact"] = [_number(e) for e in exact]
        out[SIMULATED] = ["—" if s is None else f"{s:.4g} ± {h:.2g}" for s, h in
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
        out[SIMULATED] = [
            "—" if lo is None else f"{shown(s, c)} ({shown(lo, c)} – {shown(hi, c)})"
            for s, lo, hi, c in zip(simulated, low, high, chance, strict=True)]
        inside = [None if e is None or lo is None else bool(lo - 1e-12 <= e <= hi + 1e-12)
                  for e, lo, hi in zip(exact, low, high, strict=True)]
    out[INSIDE] = ["—" if i is None else "✓" if i else "✗" for i in inside]
    if "n" in frame.columns or games:
        out["games"] = [f"{int(v or 0):,}" for v in (frame["n"].to_list() if "n" in frame.columns
                                                      else [games] * frame.height)]
    return pl.DataFrame(out, schema={c: pl.String for c in out})


def _chance_rows(frame: pl.DataFrame, games: int) -> pl.DataFrame:
    """Per chance row of an exact-beside-simulated table: its label, exact, simulated and range (at CONFIDENCE)."""
    keys = [c for c in frame.columns if c not in _RAW]
    labels = [" · ".join(display_label(row[c], c) for c in keys) or "all" for row in frame.iter_rows(named=True)]
    chance, low, high = _ranges(frame, games)
    simulated = frame["simulated"].to_list() if "simulated" in frame.columns else [None] * frame.height
    data = pl.DataFrame({"row": labels, "order": list(range(frame.height)),
                         "exact": pl.Series(frame["exact"].to_list(), dtype=pl.Float64),
                         "simulated": pl.Series(simulated, dtype=pl.Float64), "low": pl.Series(low, dtype=pl.Float64),
                         "high": pl.Series(high, dtype=pl.Float64)})
    return data.filter(pl.Series(chance))


def exact_chart(frame: pl.DataFrame, games: int = 0,
                title: str = "Exact (◆) beside simulated (● with its range)") -> Any:
    """Per row, the exact chance (◆) and the simulated one (● with its range), rows down the side."""
    import altair as alt

    keys = [c for c in frame.columns if c not in _RAW]
    data = _chance_rows(frame, games)
    base = alt.Chart(alt.Data(values=data.to_dicts()))
    y = alt.Y("row:N", title=" · ".join(key_label(c) for c in keys) or None, sort=None)
    exact = base.mark_point(shape="diamond", size=90, filled=True, color="#222").encode(
        y=y, x=alt.X("exact:Q", title="chance", axis=alt.Axis(format="%")))
    bars = base.mark_rule(color="#1f77b4").encode(y=y, x=alt.X("low:Q", title="chance"), x2="high:Q")
    dots = base.mark_point(filled=True, size=50, color="#1f77b4").encode(y=y, x=alt.X("simulated:Q", title="chance"))
    return alt.layer(bars, dots, exact).properties(title=title, width=420)


def student_chart(frame: pl.DataFrame, games: int = 0, title: str = "") -> Any:
    """A lesson table's chances as a chart with the table's own numbers: percents, ranges at :data:`CONFIDENCE`.

    A table keyed by one number (a round, a value, a streak) is drawn along it — exact as bars,
    simulated as ● with its range; any other table row by row (:func:`exact_chart`).
    """
    import altair as alt

    keys = [c for c in frame.columns if c not in _RAW]
    title = title or "exact (bars) beside simulated (● with its range)"
    if len(keys) != 1 or not frame.schema[keys[0]].is_numeric():
        return exact_chart(frame, games, title)
    data = _chance_rows(frame, games)
    base = alt.Chart(alt.Data(values=data.to_dicts()))
    x = alt.X("row:O", title=key_label(keys[0]), sort=alt.SortField("order"))
    axis = alt.Axis(format="%")
    bars = base.mark_bar(color="#c7c7c7").encode(x=x, y=alt.Y("exact:Q", title="chance", axis=axis))
    rules = base.mark_rule(color="#1f77b4").encode(x=x, y=alt.Y("low:Q", title="chance"), y2="high:Q")
    dots = base.mark_point(filled=True, size=40, color="#1f77b4").encode(x=x, y=alt.Y("simulated:Q", title="chance"))
    return alt.layer(bars, rules, dots).properties(title=title, width=420)


_GUESS = re.compile(r"^\s*([0-9]+(?:[.,][0-9]*)?|[.,][0-9]+)\s*%?\s*$")


def parse_guess(text: str) -> float:
    """A typed guess as a chance: ``"25"``, ``"25 %"`` or ``"7.5%"`` → 0.25 / 0.075; anything else is refused."""
    found = _GUESS.match(text or "")
    if not found:
        raise InputError(f"your guess {text.strip()!r} is not a percent: type a number from 0 to 100, e.g. 25"
                         if (text or "").strip() else "type your guess first: a number from 0 to 100, e.g. 25")
    value = float(found.group(1).replace(",", "."))
    if value > 100:
        raise InputError(f"your guess {value:g} % is more than 100 %: a chance is from 0 to 100")
    return value / 100


def answer_html(answer: Answer, simulating: bool = False) -> str:
    """The guess, the exact answer and the simulated one side by side, and the sentence on how far off the guess was."""
    e = html.escape
    sim = ("simulating…" if simulating else "—") if answer.simulated is None else (
        f"{pct(answer.simulated)} ({pct(answer.low)} – {pct(answer.high)})" if answer.low is not None
        else pct(answer.simulated))
    if answer.picks:
        head = "<tr><th>choice</th><th>your pick</th><th>exact</th><th>simulated (range)</th></tr>"
        rows = "".join(
            f"<tr><td>{e(p['choice'])}</td><td>{'← you' if p['choice'] == answer.guess else ''}</td>"
            f"<td>{e(pct(p['exact']))}</td><td>{e(_sim(p, simulating))}</td></tr>" for p in answer.picks)
    else:
        head = "<tr><th>your guess</th><th>exact</th><th>simulated (range)</th></tr>"
        rows = (f"<tr><td>{e('—' if answer.guess is None else pct(float(answer.guess)))}</td>"
                f"<td>{e(pct(answer.exact))}</td><td>{e(sim)}</td></tr>")
    return (f'<div class="wb-answer" data-guess="{e(str(answer.guess))}"><p class="wb-caption">{e(answer.question)}</p>'
            f'<table class="wb-table wb-compare"><thead>{head}</thead><tbody>{rows}</tbody></table>'
            f'<p class="wb-verdict">{e(answer.sentence)}</p></div>')


def _sim(p: dict[str, Any], simulating: bool) -> str:
    if p["simulated"] is None:
        return "simulating…" if simulating else "—"
    if p["low"] is None:
        return pct(p["simulated"])
    return f"{pct(p['simulated'])} ({pct(p['low'])} – {pct(p['high'])})"


class LessonPanel:
    """Lesson picker, sliders, the question and the guess, then exact-beside-simulated tables and charts.

    ``tables`` and ``settings`` are those of the last finished run (exact and simulated).
    """

    def __init__(self, game: str, lesson: str | None = None, values: dict[str, Any] | None = None,
                 seed: int = 0) -> None:
        w = require_widgets()
        self.w = w
        self.model = get_game(game)
        self.seed = seed
        self.lessons = {s.name: s for s in lessons(self.model)}
        self.tables: dict[str, pl.DataFrame] = {}
        self.settings: dict[str, Any] = {}
        self.answer: Answer | None = None
        self.revealed = False
        self._guess: Any = None
        self._worker: threading.Thread | None = None
        if not self.lessons:
            self.widget = w.VBox([w.HTML(message(f"{self.model.title} declares no lessons (lessons on its model); "
                                                 "its studies are on the Studies page.", "info"))])
            return
        first = lesson if lesson in self.lessons else next(iter(self.lessons))
        self.picker = w.Dropdown(options=[(lesson_title(self.model, s.name), s.name) for s in self.lessons.values()],
                                 value=first, description="lesson", layout=w.Layout(width="640px"),
                                 style={"description_width": "initial"})
        self.picker.add_class("wb-lesson-picker")
        self.help = w.HTML()
        self.help.add_class("wb-lesson-intro")
        self.form_box = w.VBox()
        self.ask = w.HTML()
        self.ask.add_class("wb-question")
        self.guess_box = w.HBox()
        self.check = w.Button(description="Check my guess", button_style="primary")
        self.check.add_class("wb-reveal")
        self.check.on_click(lambda _: self._pressed())
        self.comparison = w.HTML()
        self.comparison.add_class("wb-comparison")
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
        # a guess given with the settings (a link ``…&guess=25``, a script) is taken at once: the lesson is worked out
        given = self._initial.pop("guess", None)
        self.picker.observe(lambda _: self._build(), names="value")
        self.results = w.VBox([self.shown, self.drawn])
        self.widget = w.VBox([w.HTML(CSS), self.picker, self.help, self.form_box, self.ask,
                              w.HBox([self.guess_box, self.check]), self.status, self.comparison,
                              w.HTML(f"<div class='wb-legend wb-more'>{LEGEND}</div>"), self.results])
        self._build()
        if given not in (None, ""):
            self.reveal(str(given))

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
        self.question = question(self.model, lesson.name)
        # the words of the introduction, the question, the sliders and the comparison ("percentage points")
        words = glossary(intro, self.question.text, *(f"{p.name} {p.help}" for p in lesson.settings),
                         "percentage points")
        gloss = "".join(f"<li><b>{html.escape(t)}</b>: {html.escape(m)}</li>" for t, m in words)
        self.help.value = (f'<div class="wb-intro" data-lesson="{html.escape(lesson.name)}"><p>{html.escape(intro)}</p>'
                           + (f'<details class="wb-glossary" open><summary>words used here</summary><ul>{gloss}</ul>'
                              "</details>" if gloss else "") + "</div>")
        unknown = set(self._initial) - {p.name for p in lesson.settings}
        if unknown:
            raise KeyError(f"lesson {lesson.name!r} has no setting {sorted(unknown)[0]!r}; settings: "
                           f"{', '.join(p.name for p in lesson.settings)}")
        replaced = [*self.form_box.children, *self.guess_box.children]  # the last lesson's: closed once replaced
        self.form = Form(lesson.settings, self._initial, kind="lesson")
        self.form.widget.add_class(f"wb-lesson-form-{lesson.name}")  # which lesson's form is on the page
        self._initial = {}
        self.form.observe(lambda _: self._changed())
        self.form_box.children = [self.form.widget]
        w = self.w
        if self.question.choices:
            self.guess = w.RadioButtons(options=[c for c, _ in self.question.choices], value=None,
                                        description="your pick", style={"description_width": "initial"})
        else:
            self.guess = w.Text(value="", placeholder="e.g. 25", description="your guess (%)",
                                layout=w.Layout(width="220px"), style={"description_width": "initial"})
        self.guess.add_class("wb-guess")
        self.guess_box.children = [self.guess]
        for part in replaced:
            close_tree(part)
        self._changed()

    # -- the question, the guess, the reveal -------------------------------------------------------------
    def _changed(self) -> None:
        """The sliders moved (or the lesson opened): put any answer away and ask for a new guess."""
        with self._lock:
            self._generation += 1  # a run still going is dropped
            self.revealed = False
        self.answer = None
        self.results.layout.display = "none"
        self.shown.value = self.drawn.value = self.comparison.value = ""
        try:
            settings = self.form.values()
        except Exception as exc:  # noqa: BLE001 - a wrong value is named in the panel
            self.ask.value = ""
            self.status.value = message(error_message(exc), "error")
            return
        kind = "pick one" if self.question.choices else "type your guess as a percent"
        self.ask.value = (f'<p class="wb-ask" data-lesson="{html.escape(self.lesson.name)}"><b>Question:</b> '
                          f"{html.escape(self.question.ask(settings))}</p>")
        self.status.value = (f'<span class="wb-state" data-state="ask">Before any number is shown: {kind}, then '
                             "press Check my guess.</span>")

    def _pressed(self) -> None:
        try:
            self.reveal()
        except InputError as exc:
            self.status.value = message(str(exc), "error", state="ask")

    def reveal(self, guess: Any = None) -> None:
        """Take the guess (given, else the one on the page) and work the lesson out: exact, then simulated.

        A guess is a chance 0..1 (a number), a percent typed as text (``"25"``), or a choice's label.
        """
        if guess is None:
            guess = self.guess.value
        if self.question.choices:
            labels = [c for c, _ in self.question.choices]
            if guess not in labels:
                raise InputError("pick one of the choices first" if guess in (None, "") else
                                 f"{guess!r} is not one of the choices; allowed: {', '.join(labels)}")
        elif isinstance(guess, str):
            guess = parse_guess(guess)
        elif not 0 <= float(guess) <= 1:
            raise InputError(f"a guess is a chance from 0 to 1, got {guess!r}")
        self._reveal(guess)

    def answer_now(self) -> None:
        """Work the lesson out without a guess (a notebook run headless, a teacher showing the answer)."""
        self._reveal(None)

    def _reveal(self, guess: Any) -> None:
        self._guess = guess
        if not self.question.choices and guess is not None and not isinstance(guess, str):
            self.guess.value = f"{100 * float(guess):g}"
        elif self.question.choices and guess is not None:
            self.guess.value = guess
        with self._lock:
            self.revealed = True
        self.results.layout.display = None
        self.update()

    # -- working it out ----------------------------------------------------------------------------------
    def update(self) -> None:
        """Work the lesson out again for the current sliders (the newest change wins; older runs are dropped).

        Nothing is worked out before the guess: until then the page keeps asking for it.
        """
        with self._lock:
            if not self.revealed:
                return
            self._generation += 1
            self.results.add_class("wb-busy")  # the old numbers dimmed until the new ones are in
            self.status.value = ('<span class="wb-state" data-state="busy"><span class="wb-spinner"></span> '
                                 "working it out…</span>")
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
        return generation == self._generation and self.revealed

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

    def _progress(self, generation: int, started: float) -> Any:
        last = [0.0]

        def tell(done: int, total: int) -> None:
            now = time.monotonic()
            if self._current(generation) and (now - last[0] >= PROGRESS_EVERY or done >= total):
                last[0] = now
                self.status.value = (f'<span class="wb-state" data-state="simulating" data-done="{done}" '
                                     f'data-total="{total}"><span class="wb-spinner"></span> simulating… {done:,} of '
                                     f"{total:,} games ({now - started:.0f} s)</span>")
        return tell

    def _phases(self, generation: int) -> None:
        lesson = self.lesson
        if not self._current(generation):
            self._not_busy(generation)
            return
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
            games = int(values.get(EXACT_ONLY) or 0)
            if label != "exact" and games:
                self._progress(generation, time.monotonic())(0, games)
            try:
                tables = lesson.execute(self.model, values, seed=self.seed,
                                        on_progress=self._progress(generation, time.monotonic()),
                                        should_stop=lambda g=generation: not self._current(g))
            except Exception as exc:  # noqa: BLE001 - an impossible combination is named in the panel
                if self._current(generation):
                    self.status.value = message(error_message(exc), "error")
                    self.shown.value = self.drawn.value = ""
                self._not_busy(generation)
                return
            computed = time.perf_counter() - started
            short, drawn, long = self._render(tables, games)
            if long:
                drawn += ("<details class='wb-details'><summary>all the numbers behind the charts</summary>"
                          f"{long}</details>")
            answer = compare(self.question, tables, values, self._guess, games)
            took = time.perf_counter() - started
            if not self._current(generation):
                return
            self.shown.value, self.drawn.value = short, drawn
            self.answer = answer
            self.comparison.value = answer_html(answer, simulating=label == "exact")
            if label != "exact":
                self._not_busy(generation)
            if label == "exact":
                exact_took = f' data-exact-computed="{computed:.4f}"'  # the exact part alone, kept for the last line
                self.status.value = (f'<span class="wb-state" data-state="exact"><span class="wb-spinner"></span> '
                                     f"exact answer worked out; simulating… 0 of {int(settings[EXACT_ONLY]):,} "
                                     "games</span>")
                continue
            self.tables, self.settings = tables, values
            self.status.value = (f'<span class="wb-state" data-state="done" '
                                 f'data-computed="{computed:.4f}" data-seconds="{took:.4f}"{exact_took} '
                                 f'data-settings="{html.escape(repr(sorted(values.items())))}">'
                                 f"{html.escape(label)}: computed in {computed:.2f} s, drawn in {took:.2f} s</span>")

    @staticmethod
    def _render(tables: dict[str, pl.DataFrame], games: int) -> tuple[str, str, str]:
        """The headline and short tables, the charts, the long tables — as a student reads them.

        A table mixing chances with averages is shown as two ("…: chances", "…: averages").
        """
        short, long, drawn, first = [], [], [], True
        for name, frame in tables.items():
            if name == "games":  # the played games: in the downloads of the Studies page, not a lesson's table
                continue
            caption = display_label(name)
            if "exact" not in frame.columns:
                parts = [(name, caption, frame, None)]
            else:
                chance = pl.Series(_ranges(frame, games)[0], dtype=pl.Boolean)
                if chance.all() or not chance.any():
                    parts = [(name, caption, frame, student_table(frame, games))]
                else:
                    parts = [(f"{name}_{kind}", f"{caption}: {kind}", frame.filter(mask),
                              student_table(frame.filter(mask), games))
                             for kind, mask in (("chances", chance), ("averages", ~chance))]
            for part, title, frame_part, shown in parts:
                html_part = table_html(part, frame_part if shown is None else shown, title)
                (short if first or frame_part.height <= SHORT else long).append(html_part)
                first = False
                if shown is not None and _ranges(frame_part, games)[0] and any(_ranges(frame_part, games)[0]) \
                        and frame_part.height > 1:
                    try:
                        drawn.append(chart_html(part, student_chart(frame_part, games, f"{title}: exact beside "
                                                                                        "simulated")))
                    except Exception as exc:  # noqa: BLE001 - the tables stay
                        drawn.append(message(f"the chart could not be made: {error_message(exc)}", "error"))
        return "".join(short), "".join(drawn), "".join(long)

    def set(self, **values: Any) -> None:
        """Move sliders by name (scripts and tests): the answer is put away and a new guess asked for."""
        self.form.set(**values)

    # -- the results in a notebook cell -------------------------------------------------------------------
    def display_results(self) -> None:
        """Show the last run's tables and charts in the cell itself (a headless or exported notebook)."""
        show_here(self.tables, self.lesson.make_charts(self.tables) if self.tables else {})

    def show(self, run: bool = False) -> None:
        """Display the panel; with ``run``, work the lesson out (no guess) and put its tables and charts in the cell."""
        from IPython.display import display

        display(self.widget)
        if run:
            if not self.revealed:  # a guess given with the settings is already being worked out beside it
                self.answer_now()
            self.wait()
            self.display_results()

