"""The study panel: a game's declared studies, a form generated from them, Run / Stop, results.

The study picker lists core's generic studies and the game's own (``core/studies/study.py``); the form is
the study's settings and — for a study that takes them — the game's parameters, each a widget made
from its :class:`~workbench.core.model.Param` (``forms.py``).  Run validates everything first (a
wrong value or an impossible combination is named in the panel and nothing is played), then plays
the study in the background (``run.py``); the tables (rates with their intervals) and the study's
charts replace the previous run's.  The same panel is the studio's Studies tab — where a workspace
keeps every finished or stopped run and offers its downloads — and a notebook's
``study_panel(game, study, …)``, where :meth:`StudyPanel.show` also puts the tables and charts into
the cell for a headless or exported copy.  While a study that streams runs (``core/studies/study.py``:
``on_partial``), the tables of its finished cells are shown, marked "partial · n of N games" and
redrawn at most every :data:`PARTIAL_EVERY` seconds; the final tables replace them and say done.  A
stopped run shows the outcome tables of the games that finished.
"""

from __future__ import annotations

import html
import os
import time
from typing import Any

import polars as pl

from workbench.core.errors import InputError, RunInterrupted
from workbench.core.model import GameModel, Param, game_names, get_game
from workbench.core.present import charts
from workbench.core.sim.stream import Pilot, memory_refusal, pilot
from workbench.core.studies.study import SettingError, Study, outcome_tables, studies
from workbench.ui.common import Pilots, duration_text, require_widgets, show_here, size_estimate, size_line
from workbench.ui.forms import Form, close_tree, ignored_params, refuse
from workbench.ui.render import CSS, error_message, message, table_html
from workbench.ui.results import LONG, ResultsView
from workbench.ui.run import RunPanel

__all__ = ["CONFIRM_SECONDS", "PARTIAL_EVERY", "StudyPanel", "cell_charts", "duration_text", "partial_header",
           "partial_tables", "varying_keys"]

Tables = dict[str, pl.DataFrame]
CONFIRM_SECONDS = 600  # a run estimated to take longer asks for a second press of Run
PARTIAL_EVERY = 0.8  # seconds: a running study's partial tables are redrawn at most this often


def show_refused(note: Any, job: RunPanel, exc: Exception) -> None:
    """A run refused before it began: ``exc`` named in ``note`` (an HTML widget) and ``job`` marked not run."""
    job.hold(note, message(error_message(exc), "error"), "not run: put the refused values right", "refused")


def varying_keys(model: GameModel, frame: pl.DataFrame) -> list[str]:
    """The parameters (and lineups) that vary across a frame's games: its cells."""
    keys = [p.name for p in model.params if p.name in frame.columns and frame.get_column(p.name).n_unique() > 1]
    keys += [c for c in frame.columns if c.startswith("agent_p") and frame.get_column(c).n_unique() > 1]
    return keys + (["lineup"] if "lineup" in frame.columns else [])


def partial_tables(model: GameModel, frame: pl.DataFrame) -> tuple[Tables, list[str]]:
    """Outcome tables of the games a stopped run finished, per cell, and the cell keys."""
    keys = varying_keys(model, frame)
    return {**outcome_tables(frame, keys), "games": frame}, keys


def cell_charts(tables: Tables, keys: list[str]) -> dict[str, Any]:
    """Seat win rates and first-mover rates per cell of outcome tables (a stopped run's, a sweep's)."""
    def labelled(frame: pl.DataFrame) -> pl.DataFrame:
        if not keys:
            return frame.with_columns(pl.lit("all games").alias("cell"))
        return frame.with_columns(pl.concat_str([pl.col(k).cast(pl.String) for k in keys], separator=" · ")
                                  .alias("cell"))

    out = {"seat_win_rates": charts.rate_chart(labelled(tables["seats"]), "seat", color="cell", reference=None,
                                               title="Win rate per seat and cell", y_title="win rate")}
    first = tables["first_mover"]
    if first.height and "first_mover" in first.columns and first.get_column("first_mover").is_not_null().any():
        out["first_mover"] = charts.rate_chart(labelled(first), "cell", rate="first_mover", low="first_mover_low",
                                               high="first_mover_high", n=None, title="First mover's win rate",
                                               y_title="first mover wins")
    return out


def partial_header(done: int, total: int) -> str:
    """The line above a running study's partial tables: never to be read as final ("partial · n of N games")."""
    text = (f"partial · {done:,} of {total:,} games — the tables of the cells finished so far; they change until "
            "the run is done (charts then)")
    return (f'<div class="wb-partial" data-status="partial" data-done="{done}" data-total="{total}">'
            f"{message(text, 'info')}</div>")


def _stopped_charts(study: Study, tables: Tables) -> dict[str, Any]:
    """A stopped run's charts: the study's own where its tables of what finished allow them, else none."""
    try:
        return study.make_charts(tables)
    except Exception:  # noqa: BLE001 - part of the tables: the tables are shown, a chart that needs all is not
        return {}


class StudyPanel:
    """Study picker, generated form, Run / Stop and the results of one game's studies.

    ``pick_game`` adds a game picker (every registered game); ``workspace`` keeps each run and
    offers its downloads (the studio's); ``settings`` and ``params`` fill the form.
    """

    def __init__(self, game: str, study: str | None = None, *, settings: dict[str, Any] | None = None,
                 params: dict[str, Any] | None = None, seed: int = 0, workers: int = 1, workspace: Any = None,
                 pick_game: bool = False) -> None:
        w = require_widgets()
        self.workspace = workspace
        self.model = get_game(game)
        self._initial = (dict(settings or {}), dict(params or {}))
        self.game = w.Dropdown(options=game_names(), value=self.model.name, description="game",
                               layout=w.Layout(width="420px", display="" if pick_game else "none"))
        self.picker = w.Dropdown(description="study", layout=w.Layout(width="640px"),
                                 style={"description_width": "initial"})
        self.picker.add_class("wb-study-picker")
        self.help = w.HTML()
        self.settings_box, self.params_box = w.VBox(), w.VBox()
        cores = os.cpu_count() or 1
        # checked like every field (never a box that clamps): a wrong seed or worker count is refused in place
        self.run_form = Form([
            Param("master_seed", seed, int, "the same seed plays the same games", 0, 2**63 - 1),
            Param("workers", min(workers, max(1, cores)), int,
                  f"worker threads or processes (this machine has {cores} cores)", 1, max(1, cores))], kind="run")
        self.seed, self.workers = self.run_form.fields["master_seed"][1], self.run_form.fields["workers"][1]
        self.seed.add_class("wb-seed")
        self.job = RunPanel("Run")
        self.job.run_button.on_click(lambda _: self.run())
        self.note = w.HTML()
        self.note.add_class("wb-note")
        self.size = w.HTML()  # the run's size before Run: games in all, estimated time and memory
        self.size.add_class("wb-size")
        self._pilots = Pilots(lambda: self._show_size())  # speed and memory a game measured per setting
        self._confirmed = ""  # the run a second press of Run starts (its key), after a long estimate
        self.results = ResultsView(workspace)
        self.settings: Form | None = None
        self.params: Form | None = None
        self.tables: Tables = {}
        self._partial_at, self._runs = 0.0, 0  # when the last partial was shown; runs started
        self._charts: Any = dict
        self._filling = False
        self.picker.observe(lambda _: None if self._filling else self._switched(), names="value")
        self._fill_studies(study)
        self.run_form.on_check(self._form_changed)  # the workers change the estimated time
        self.game.observe(lambda ch: self._switch_game(ch["new"]), names="value")
        self.widget = w.VBox([w.HTML(CSS), self.game, self.picker, self.help, w.HTML("<b>Study settings</b>"),
                              self.settings_box, self.params_box, self.run_form.widget, self.size, self.job.widget,
                              self.note, self.results.widget])

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    # -- the form -------------------------------------------------------------------------------------
    @property
    def study(self) -> Study:
        """The chosen study."""
        return self.studies[self.picker.value]

    def _fill_studies(self, wanted: str | None) -> None:
        self.studies = {s.name: s for s in studies(self.model)}
        options = [(f"{s.title} ({s.name})", s.name) for s in self.studies.values()]
        self._filling = True  # one form for the new list, not one per change of the picker
        try:
            self.picker.options = options
            self.picker.value = wanted if wanted in self.studies else next(iter(self.studies))
        finally:
            self._filling = False
        self._build_form()

    def _switch_game(self, game: str) -> None:
        self.model = get_game(game)
        self._initial = ({}, {})
        self._fill_studies(self.picker.value)
        self.results.clear()

    def _switched(self) -> None:
        """The picker chose another study: its form, or the reason there is none said where the form would be.

        A switch is logged to the studio's server log: a switch whose form never came (seen once in about 300 on
        a loaded machine, with no error anywhere) must say next time how far it got.  The logger is a child of
        ``workbench.ui``, which the studio sends to the server's console (``app.studio._log_to_server``: the
        kernel's real stderr); it had a handler of its own on ``sys.stderr``, which in a kernel is the page's
        output, so no switch ever reached the log.  Outside the studio the lines go nowhere (INFO is below the
        last-resort handler's level).
        """
        import logging

        log = logging.getLogger("workbench.ui.switch")
        log.setLevel(logging.INFO)
        log.info("studio: %s study %s chosen; building its form", self.model.name, self.picker.value)
        try:
            self._build_form()
        except BaseException as exc:  # noqa: BLE001 - a callback has nobody else to tell: the page says it
            log.exception("studio: the form of %s study %s was not built", self.model.name, self.picker.value)
            self.note.value = message(f"this study's form could not be built: {error_message(exc)}", "error")
            raise
        log.info("studio: the form of %s study %s is built", self.model.name, self.picker.value)

    def _build_form(self) -> None:
        w = require_widgets()
        study, (settings, params) = self.study, self._initial
        replaced = [*self.settings_box.children, *self.params_box.children]  # closed once the new form shows
        self.help.value = f'<div class="wb-help">{html.escape(study.help)}</div>' if study.help else ""
        self.settings = Form(study.settings, settings, kind="setting")
        self.settings_box.children = [self.settings.widget] if study.settings else [w.HTML("<i>none</i>")]
        form = self.settings_box.children[0]  # whose form this is, the study and its game (a page's script)
        form.add_class(f"wb-form-of-{study.name}")
        form.add_class(f"wb-form-of-{self.model.name}-{study.name}")
        self.settings.on_check(self._form_changed)
        if study.game_params:
            own = {p.name for p in study.settings}
            # a parameter the study's own setting replaces (battlefield beside battlefields) is hidden: it is ignored
            self.params = Form([p for p in self.model.params if p.name not in own], params, kind="param",
                               hidden=ignored_params(study, self.model.params))
            self.params.on_check(self._form_changed)
            self.params_box.children = [w.HTML(f"<b>{html.escape(self.model.title)}: game parameters</b> "
                                               "<span class='wb-more'>(hover a field for its help)</span>"),
                                        self.params.widget]
        else:
            self.params = None
            self.params_box.children = []
        for part in replaced:  # the last study's form: nothing of it stays in the kernel or the page
            close_tree(part)
        self.note.value = ""
        self.job.reset()  # the last run's status line ("stopped · n of N") described another study's form
        self._study_check()  # settings given with the page (a link) are checked by the study's validator at once
        self._show_size(measure=False)  # a page being built plays no pilot games (its first edit or Run measures)

    def _form_changed(self) -> None:
        """A field was edited: the last run's status line and a refusal no longer describe the form."""
        if self.job.running:
            return
        self._study_check()
        self.job.reset("settings changed: press Run" if self.tables else "ready")
        wrong = {**self.settings.errors, **(self.params.errors if self.params is not None else {})}
        if not wrong:
            self.note.value = ""
        self._confirmed = ""
        self._show_size()

    def _study_check(self) -> None:
        """The study's own validator over the whole form (``Study.validate``): its refusal marks the field it names.

        Run by every edit, so a combination the study cannot run (a suit too big for its players) is
        refused in the field, in the study's words, before Run; a refusal naming no field goes to the note.
        """
        if getattr(self, "_checking", False) or self.settings is None:
            return
        self._checking = True
        try:
            marked = getattr(self, "_study_marked", None)
            if marked is not None:  # the last refusal is taken back; the validator decides again
                form, name = marked
                self._study_marked = None
                form.clear_refused(name)
            own = {**self.settings.errors, **(self.params.errors if self.params is not None else {})}
            if own:  # a field its own declaration refuses is named already
                return
            try:
                self.study.validate(self.model, self.settings.values(),
                                    self.params.changed() if self.params is not None else {})
            except SettingError as exc:
                form = self.settings if exc.field in self.settings else self.params
                if form is not None and exc.field in form:
                    form.refuse_field(exc.field, str(exc))
                    self._study_marked = (form, exc.field)
                else:
                    self.note.value = message(f"not runnable: {exc}", "error")
            except InputError as exc:
                self.note.value = message(f"not runnable: {exc}", "error")
        finally:
            self._checking = False

    # -- the size of a run, before Run -----------------------------------------------------------------
    def _pilot_key(self, settings: dict[str, Any], params: dict[str, Any]) -> str:
        return repr((self.model.name, settings.get("agents"), sorted(params.items())))

    def _pilot(self, settings: dict[str, Any], params: dict[str, Any], wait: bool) -> Pilot | None:
        """This setting's measured speed and memory: at once if known, else measured (now, or in the background)."""
        agents = settings.get("agents")

        def measure() -> Pilot:
            try:
                return pilot(self.model, params, agents if isinstance(agents, str) and ";" not in agents else None)
            except Exception:  # noqa: BLE001 - a lineup the pilot cannot play: the defaults' speed
                return pilot(self.model, params)

        return self._pilots.get(self._pilot_key(settings, params), measure, wait)

    def estimate(self, wait: bool = False, measure: bool = True) -> dict[str, Any]:
        """The size of the run the form describes, before it runs.

        ``games`` in all (None: known once it runs), ``seconds`` and ``bytes`` (None until measured),
        ``rate`` (games/s on the chosen workers) and ``refused`` (why it cannot run in memory, or None).
        Raises on a refused field.  ``measure`` false: only a speed measured before is used (a page being
        built plays no pilot games).
        """
        settings, params = self.values()
        games = self.study.games_in_all(settings, params)
        out: dict[str, Any] = {"games": games, "seconds": None, "bytes": None, "rate": None, "refused": None}
        if not games:
            return out
        key = self._pilot_key(settings, params)
        found = self._pilot(settings, params, wait) if measure else self._pilots.get(key, None)
        found = found if isinstance(found, Pilot) else None
        if found is not None:
            workers = self.run_form.values()["workers"]
            held = self.study.games_held(settings, params) or games  # a study may hold fewer than it plays
            out |= {"seconds": found.seconds(games, workers), "bytes": found.memory(held),
                    "rate": workers / found.seconds_per_game}
            out["refused"] = memory_refusal(held, out["bytes"], found.bytes_per_game)
        return out

    def _show_size(self, measure: bool = True) -> None:
        """The size line: games in all, the estimated time and memory (or why there is none yet)."""
        found = size_estimate(self, measure)
        if found is None:
            return
        if found["games"] is None:
            self.size.value = ('<div class="wb-more" data-games="">the number of games this study plays is known '
                               "once it runs</div>")
            return
        kind = "error" if found["refused"] else ("info" if (found["seconds"] or 0) > CONFIRM_SECONDS else "more")
        self.size.value = size_line(f"{found['games']:,} games in all", found, games=found["games"],
                                    measure=measure, kind=kind, memory=True)

    def set(self, **values: Any) -> None:
        """Set fields by name: a study setting first, else a game parameter (``set(games=500)``)."""
        for name, value in values.items():
            form = self.settings if name in self.settings else self.params
            if form is None or name not in form:
                fields = [*self.settings.fields, *(self.params.fields if self.params is not None else ())]
                raise KeyError(f"no field {name!r}; fields: {', '.join(fields)}")
            form.set(**{name: value})

    def values(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The form's settings (every one, validated) and the game parameters that differ from the defaults."""
        refuse(self.settings, self.params, self.run_form)  # every refused field at once
        params = self.params.changed() if self.params is not None else {}
        # the study's one validator (the CLI's and the run's): an impossible combination is named here
        settings, _ = self.study.validate(self.model, self.settings.values(), params)
        return settings, params

    # -- running ----------------------------------------------------------------------------------------
    def run(self, wait: bool = False) -> Tables | None:
        """Press Run: validate, then play the study in the background.

        ``wait`` blocks until the results are shown and returns the tables; an error is then raised
        as well as shown.
        """
        if self.job.running:
            return self.job.wait() if wait else None
        try:
            settings, params = self.values()
        except Exception as exc:  # noqa: BLE001 - every error a user can cause is named in the panel
            show_refused(self.note, self.job, exc)
            if wait:
                raise
            return None
        try:
            size = self.estimate(wait=True)
        except Exception:  # noqa: BLE001 - no estimate: the run itself names what is wrong
            size = {"games": None, "seconds": None, "refused": None}
        self._show_size()
        if size["refused"]:  # as the CLI refuses it: the games would not fit in memory
            self.job.hold(self.note, message(f"not run: {size['refused']}; choose fewer games (or cells)", "error"),
                          "not run: too big for this machine's memory", "refused")
            if wait:
                raise InputError(size["refused"])
            return None
        key = repr((self.study.name, sorted(settings.items()), sorted(params.items()), self.run_form.values()))
        # a long run, or one whose size is known only once it runs (a study that can run long), waits for a
        # second press, as a person would give it
        unknown = size["games"] is None and self.study.long_settings(self.model) is not None
        if not wait and (unknown or (size["seconds"] or 0) > CONFIRM_SECONDS) and self._confirmed != key:
            self._confirmed = key
            if unknown:
                why = message("How many games this run plays is known only once it runs, so it may take long. "
                              "Press Run again to start it (Stop keeps what finished).", "info")
            else:
                why = message(f"This run plays {size['games']:,} games: about {duration_text(size['seconds'])} on "
                              "this machine. Press Run again to start it, or choose fewer games.", "info")
            self.job.hold(self.note, why, "waiting: press Run again to start the long run", "confirm")
            return None
        self._confirmed = ""
        self.note.value = ""
        self.results.clear()
        run = self.run_form.values()
        study, model, seed, workers = self.study, self.model, run["master_seed"], run["workers"]
        record = {"kind": "study", "game": model.name, "name": study.name,
                  "title": f"{model.title}: {study.title}", "settings": settings, "params": params, "seed": seed,
                  "workers": workers, "rules_version": model.rules_version}

        self._partial_at, self._runs = 0.0, self._runs + 1
        shown = self._runs  # a partial belongs to its own run only

        def task(on_progress: Any, should_stop: Any) -> Tables:
            return study.execute(model, settings, params, seed=seed, workers=workers, on_progress=on_progress,
                                 should_stop=should_stop,
                                 on_partial=lambda tables, done, total: self._partial(shown, tables, done, total))

        self.job.start(task, lambda tables, took: self._done(study, record, tables, took),
                       lambda exc, took: self._stopped(record, exc, took), self._error)
        if not wait:
            return None
        self.job.wait()
        self.results.wait()
        if self.job.error is not None and not isinstance(self.job.error, RunInterrupted):
            raise self.job.error
        return self.tables

    def _partial(self, shown: int, tables: Tables, done: int, total: int) -> None:
        """A running study's tables of its finished cells: shown, marked partial, at most every :data:`PARTIAL_EVERY`.

        Tables only (charts and downloads come with the final tables, which replace these and say done);
        a partial that comes sooner than :data:`PARTIAL_EVERY` after the last one shown is skipped, so the
        page's widget channel is never flooded.
        """
        now = time.monotonic()
        if shown != self._runs or self.job.stopped or (self._partial_at and now - self._partial_at < PARTIAL_EVERY):
            return
        self._partial_at = now
        self.results.clear()
        self.results.header.value = partial_header(done, total)
        self.results.body.value = "".join(table_html(name, frame, "") for name, frame in tables.items()
                                          if name != "games" and frame.height <= LONG)
        self.results.long.value = "".join(table_html(name, frame, "") for name, frame in tables.items()
                                          if name != "games" and frame.height > LONG)

    def _keep(self, record: dict[str, Any], tables: Tables) -> dict[str, Any]:
        if self.workspace is not None:
            record = {**record, "id": self.workspace.store.save(record, tables)}
        return record

    def _done(self, study: Study, record: dict[str, Any], tables: Tables, took: float) -> None:
        """A study that returned: done only when every game asked was played, else stopped · n of N."""
        games = tables.get("games")
        seen, asked = self.job.latest  # games reported by the study's progress, and the total it announced
        status = "stopped" if self.job.stopped and seen < asked else "done"
        done = games.height if games is not None else seen  # the games its tables hold
        total = asked if status == "stopped" else done
        record = self._keep({**record, "status": status, "done": done, "total": total, "seconds": round(took, 3)},
                            tables)
        self.tables, self._charts = tables, lambda: study.make_charts(tables)
        kept = "; kept as an earlier run" if "id" in record else ""
        if status == "done":
            self.job.finish("done", f"done in {took:.1f} s", done, total)
            note = f"done in {took:.1f} s{kept}"
        else:  # a study that returns what finished when stopped (a grid keeps each cell's unbroken games)
            self.job.finish("stopped", f"stopped · {done:,} of {total:,} games · finished games kept", done, total)
            note = f"stopped · {done:,} of {total:,} games finished, in {took:.1f} s — their tables below{kept}"
        self.results.show(record, tables, self._charts, note, "ok" if status == "done" else "info")

    def _stopped(self, record: dict[str, Any], exc: RunInterrupted, took: float) -> None:
        if isinstance(exc.partial, dict) and exc.done > 0:  # a study that made its own tables of what finished
            tables, study = exc.partial, self.study
            record = self._keep({**record, "status": "stopped", "done": exc.done, "total": exc.total,
                                 "seconds": round(took, 3)}, tables)
            self.tables, self._charts = tables, lambda: _stopped_charts(study, tables)
            kept = ", kept as an earlier run" if "id" in record else ""
            self.results.show(record, tables, self._charts, f"stopped · {exc.done:,} of {exc.total:,} games "
                              f"finished — their tables below{kept}", "info")
            return
        partial = exc.partial if isinstance(exc.partial, pl.DataFrame) else None
        if partial is None or partial.height == 0:
            self.tables = {}
            self.results.clear(f"stopped before any game finished ({exc.total:,} asked); nothing to show"
                               if exc.total else "stopped before its computation finished a step; nothing to show")
            return
        tables, keys = partial_tables(self.model, partial)
        record = self._keep({**record, "status": "stopped", "done": partial.height, "total": exc.total, "keys": keys,
                             "seconds": round(took, 3)}, tables)
        self.tables, self._charts = tables, lambda: cell_charts(tables, keys)
        kept = ", kept as an earlier run" if "id" in record else ""
        self.results.show(record, tables, self._charts,
                          f"stopped · {partial.height:,} of {exc.total:,} games finished — their outcome tables "
                          f"below{kept}", "info")

    def _error(self, text: str) -> None:
        self.note.value = message(text, "error")
        self.results.clear()

    # -- the results in a notebook cell -------------------------------------------------------------------
    def charts(self) -> dict[str, Any]:
        """The charts of the last run's tables (altair)."""
        return self._charts() if self.tables else {}

    def display_results(self) -> None:
        """Show the last run's tables and charts in the cell itself (a headless or exported notebook)."""
        show_here(self.tables, self.charts())

    def show(self, run: bool = False) -> None:
        """Display the panel; with ``run``, run the study once and put its tables and charts in the cell too."""
        from IPython.display import display

        display(self.widget)
        if run:
            self.run(wait=True)
            self.display_results()
