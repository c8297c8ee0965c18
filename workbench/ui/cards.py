"""The card editor: a card game's declared table, edited in a panel, with a what-if on common random numbers.

For a game that declares ``card_table`` (``core/cardtable.py``); the studio's Cards tab and a
notebook's ``card_editor(game)``.  The table pages through the
rows of the chosen set (the shipped one, a saved one, or an uploaded CSV — checked by the game's
loader first); the editable columns are input boxes, the key and shown columns plain text.  A
changed cell and its row are highlighted, and the list of changes says what each was.  Run what-if
plays the same games with the unchanged and the edited cards (``cardtable.what_if``: same master
seed, so the same game seeds) and shows every difference with its interval and exact paired
p-value.  Save writes the edited set as ``<cards_dir>/<name>.csv`` under a name the user gives
(the studio's: ``<workspace>/cards/<game>/``); an existing file is never replaced.  The edited
cards' own rates, the value model and the cost-against-value view are the game's studies (the
duel's ``cards`` and ``whatif``).
"""

from __future__ import annotations

import html
import re
import tempfile
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core import charts
from workbench.core.cardtable import (
    CardTable,
    CardWhatIf,
    card_table,
    changed_cells,
    column_kinds,
    edited_cards,
    read_cards,
    save_cards,
    what_if,
)
from workbench.core.errors import DataError, InputError, RunInterrupted
from workbench.core.model import Param, get_game
from workbench.ui.common import require_widgets
from workbench.ui.forms import Form
from workbench.ui.render import CSS, error_message, message, table_html
from workbench.ui.results import ResultsView
from workbench.ui.run import RunPanel

__all__ = ["WHATIF_SETTINGS", "CardEditor"]

PAGE_ROWS = 15
WHATIF_SETTINGS = (
    Param("games", 2000, int, "games per arm (the same games in both: common random numbers)", 10, 10**8),
    Param("agents", None, str, "one agent per seat, comma-separated (none: the game's defaults)", optional=True),
)


class CardEditor:
    """Editable card table, changes, what-if and save-as of one card game.

    ``workspace`` (the studio's) keeps each what-if and offers its downloads; saved sets go to its
    ``cards/<game>/``, else to ``cards_dir`` (default ``./cards/<game>``).
    """

    def __init__(self, game: str, workspace: Any = None, cards_dir: str | Path | None = None) -> None:
        w = require_widgets()
        self.w, self.workspace = w, workspace
        self.model = get_game(game)
        self.cards_dir = Path(cards_dir) if cards_dir is not None else (
            workspace.cards_dir(self.model.name) if workspace is not None else Path("cards") / self.model.name)
        self.table: CardTable | None = card_table(self.model)
        self.note = w.HTML()
        self.note.add_class("wb-cards-note")
        if self.table is None:
            self.widget = w.VBox([w.HTML(message(f"{self.model.title} declares no editable card table "
                                                 "(card_table on its model); nothing to edit here.", "info"))])
            return
        self.edits: dict[str, dict[str, str]] = {}
        self.base = w.Dropdown(description="card set", style={"description_width": "initial"},
                               layout=w.Layout(width="520px"), tooltip="the set the edits start from")
        self.base.add_class("wb-card-base")
        self.upload = w.FileUpload(accept=".csv", multiple=False, description="Open a cards CSV",
                                   tooltip="check a CSV with the game's loader and use it as the set to edit",
                                   layout=w.Layout(width="200px"))
        self.upload.add_class("wb-card-upload")
        self.filter = w.Text(placeholder="filter: key or name", description="find",
                             tooltip="show the rows whose key or name contains this text")
        self.filter.add_class("wb-card-filter")
        self.prev = w.Button(description="◀", layout=w.Layout(width="40px"), tooltip="previous rows")
        self.next = w.Button(description="▶", layout=w.Layout(width="40px"), tooltip="next rows")
        self.page_label = w.HTML()
        self.grid = w.GridBox()
        self.grid.add_class("wb-card-grid")
        self.changes = w.HTML()
        self.changes.add_class("wb-card-changes")
        self.reset = w.Button(description="Undo all changes", icon="undo")
        self.form = Form([p for p in self.model.params if p.name != self.table.param], kind="param")
        self.settings = Form(WHATIF_SETTINGS, kind="setting")
        self.seed = w.BoundedIntText(value=0, min=0, max=2**63 - 1, description="master seed",
                                     style={"description_width": "initial"},
                                     tooltip="both arms play the same games: the same seed, the same game seeds")
        self.job = RunPanel("Run what-if")
        self.job.run_button.on_click(lambda _: self.run())
        self.results = ResultsView(workspace)
        self.save_name = w.Text(placeholder="name of the new set, e.g. cheap-dragon", description="save as",
                                tooltip=f"saved as a new CSV in {self.cards_dir}; an existing file is never replaced")
        self.save_name.add_class("wb-card-save-name")
        self.save_button = w.Button(description="Save edited set", icon="save", tooltip="save as a new cards CSV")
        self.save_button.add_class("wb-card-save")
        self.page = 0
        self.cards = pl.DataFrame()
        self.kinds: dict[str, type] = {}
        self._fill_bases()
        self._load(self.base.value)
        self.base.observe(lambda ch: self._load(ch["new"]), names="value")
        self.filter.observe(lambda _: self._goto(0), names="value")
        self.prev.on_click(lambda _: self._goto(self.page - 1))
        self.next.on_click(lambda _: self._goto(self.page + 1))
        self.reset.on_click(lambda _: self._reset())
        self.upload.observe(lambda _: self._uploaded(), names="value")
        self.save_button.on_click(lambda _: self.save())
        t = self.table
        self.widget = w.VBox([
            w.HTML(CSS + f"<div class='wb-help'>Edit {html.escape(t.title)}: {', '.join(t.editable)} "
                   f"(key {html.escape(t.row_key)}). Changed cells are highlighted; the what-if plays the same games "
                   "with the unchanged and the edited set.</div>"),
            w.HBox([self.base, self.upload]), w.HBox([self.filter, self.prev, self.page_label, self.next]),
            self.grid, w.HBox([self.reset]), self.changes, self.note,
            w.HTML("<b>What-if</b> <span class='wb-more'>(the game's other parameters; both arms alike)</span>"),
            self.settings.widget, self.form.widget, self.seed, self.job.widget, self.results.widget,
            w.HTML("<b>Save the edited set</b>"), w.HBox([self.save_name, self.save_button])])

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    # -- the sets -------------------------------------------------------------------------------------
    def _fill_bases(self, select: Path | None = None) -> None:
        shipped = Path(self.table.default)
        options = [(f"shipped: {shipped.name}", str(shipped))]
        folder = self.cards_dir
        if folder.is_dir():
            options += [(f"saved: {p.name}", str(p)) for p in sorted(folder.glob("[!.]*.csv"))]
        self.base.options = options
        self.base.value = str(select) if select is not None else str(shipped)

    def _load(self, path: str) -> None:
        try:
            cards = read_cards(self.table, path)
        except InputError as exc:
            self.note.value = message(error_message(exc), "error")
            return
        self.cards, self.edits = cards, {}
        self.kinds = column_kinds(cards, self.table.editable)
        self.note.value = ""
        self._goto(0)
        self._show_changes()

    def _uploaded(self) -> None:
        files = self.upload.value
        if not files:
            return
        item = files[0]
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(item["name"]).stem) or "uploaded"
        with tempfile.TemporaryDirectory(prefix="studio-upload-") as tmp:
            path = Path(tmp) / f"{name}.csv"
            path.write_bytes(bytes(item["content"]))
            try:
                self.table.check(path)
                read_cards(self.table, path)
                target = self.cards_dir / f"{name}.csv"
                n = 1
                while target.exists():
                    n += 1
                    target = target.with_name(f"{name}-{n}.csv")
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(path.read_bytes())
            except Exception as exc:  # noqa: BLE001 - a bad file is named in the page, row and column
                self.note.value = message(f"{item['name']} was not opened: " + error_message(exc).replace(
                    str(path), item["name"]), "error")
                return
        self._fill_bases(target)
        self.note.value = message(f"opened {item['name']} (kept as {target.name})", "ok")

    # -- the table ------------------------------------------------------------------------------------
    def _rows(self) -> pl.DataFrame:
        text = (self.filter.value or "").strip().lower()
        if not text:
            return self.cards
        columns = [self.table.row_key, *[c for c in (*self.table.key, *self.table.shown) if c in self.cards.columns]]
        hit = pl.any_horizontal([pl.col(c).str.to_lowercase().str.contains(text, literal=True) for c in columns])
        return self.cards.filter(hit)

    def _goto(self, page: int) -> None:
        rows = self._rows()
        pages = max(1, -(-rows.height // PAGE_ROWS))
        self.page = min(max(0, page), pages - 1)
        start = self.page * PAGE_ROWS
        shown = rows.slice(start, PAGE_ROWS)
        self.page_label.value = (f"rows {start + 1 if shown.height else 0}–{start + shown.height} of {rows.height}"
                                 if rows.height else "no row matches")
        self.prev.disabled, self.next.disabled = self.page == 0, self.page >= pages - 1
        self._draw(shown)

    def _draw(self, rows: pl.DataFrame) -> None:
        w, t = self.w, self.table
        fixed = [c for c in dict.fromkeys((*t.key, *t.shown)) if c in self.cards.columns]
        head = [w.HTML(f"<b>{html.escape(c)}</b>") for c in (*fixed, *t.editable)]
        cells = list(head)
        self._row_labels: dict[str, list[Any]] = {}
        for row in rows.iter_rows(named=True):
            key = row[t.row_key]
            labels = [w.HTML(f"<span class='wb-card-{html.escape(c)}'>{html.escape(row[c])}</span>") for c in fixed]
            self._row_labels[key] = labels
            self._mark_row(key)
            cells += labels
            for c in t.editable:
                cells.append(self._editor(key, c, row[c]))
        self.grid.children = cells
        widths = " ".join(["minmax(70px, max-content)"] * len(fixed) + [
            "90px" if self.kinds.get(c) in (int, float) else "minmax(260px, 1fr)" for c in t.editable])
        self.grid.layout = w.Layout(grid_template_columns=widths, grid_gap="1px 8px", width="100%")

    def _editor(self, key: str, column: str, original: str) -> Any:
        w = self.w
        value = self.edits.get(key, {}).get(column, original)
        kind = self.kinds.get(column, str)
        if kind is int and original.strip():
            box = w.IntText(value=int(value), layout=w.Layout(width="88px"))
        elif kind is float and original.strip():
            box = w.FloatText(value=float(value), layout=w.Layout(width="88px"))
        else:
            box = w.Text(value=value, continuous_update=False, layout=w.Layout(width="98%"))
        box.tooltip = f"{column} of {key} (was {original or 'blank'})"
        box.add_class(f"wb-edit-{column}")
        box.add_class(f"wb-row-{re.sub(r'[^A-Za-z0-9_-]', '_', key)}")
        if column in self.edits.get(key, {}):
            box.add_class("wb-cell-changed")
        box.observe(lambda ch, k=key, c=column, b=box: self._edited(k, c, ch["new"], b), names="value")
        return box

    def _edited(self, key: str, column: str, value: Any, box: Any) -> None:
        change = {**self.edits.get(key, {}), column: value}
        try:
            kept = changed_cells(self.table, self.cards.filter(pl.col(self.table.row_key) == key), {key: change})
        except InputError as exc:
            self.note.value = message(error_message(exc), "error")
            return
        if kept.get(key):
            self.edits[key] = kept[key]
        else:
            self.edits.pop(key, None)
        (box.add_class if column in self.edits.get(key, {}) else box.remove_class)("wb-cell-changed")
        self._mark_row(key)
        self._show_changes()

    def _mark_row(self, key: str) -> None:
        """Highlight the shown row of ``key`` when it holds a change."""
        for label in getattr(self, "_row_labels", {}).get(key, []):
            (label.add_class if key in self.edits else label.remove_class)("wb-changed-row")

    def _reset(self) -> None:
        self.edits = {}
        self._goto(self.page)
        self._show_changes()

    def _show_changes(self) -> None:
        if not self.edits:
            self.changes.value = "<span class='wb-more'>no changes yet</span>"
            return
        original = {r[self.table.row_key]: r for r in self.cards.iter_rows(named=True)}
        rows = [{"key": k, "column": c, "was": original[k][c], "now": v}
                for k, change in self.edits.items() for c, v in change.items()]
        frame = pl.DataFrame(rows, schema={"key": pl.String, "column": pl.String, "was": pl.String, "now": pl.String})
        self.changes.value = table_html("changes", frame, f"{len(self.edits)} changed {self.table.title}",
                                        highlight=set(range(frame.height)))

    def edit(self, key: str, **values: Any) -> None:
        """Change cells of row ``key`` (scripts and tests; the page does the same through its boxes)."""
        for column, value in values.items():
            self._edited(key, column, value, self.w.Text())
        self._goto(self.page)

    # -- what-if and save -------------------------------------------------------------------------------
    def _explain(self, exc: BaseException) -> str:
        """An error of the edited copy, said in the set's terms (the row's key beside its number)."""
        text = error_message(exc)
        if isinstance(exc, DataError) and exc.row is not None and 2 <= exc.row < self.cards.height + 2:
            key = self.cards.get_column(self.table.row_key)[exc.row - 2]
            text = f"the edited {self.table.title} have a bad row — {self.table.row_key} {key!r}, column " \
                   f"{exc.column!r}: {exc.reason}"
        return text

    def run(self, wait: bool = False) -> CardWhatIf | None:
        """Press Run what-if: play the unchanged and the edited set on the same seeds and compare.

        ``wait`` blocks until the results are shown and returns the what-if.
        """
        if self.job.running:
            return self.job.wait() if wait else None
        try:
            settings, params = self.settings.values(), self.form.changed()
            if not self.edits:
                raise InputError(f"no {self.table.title} value is changed yet: edit a cell first")
            edited_cards(self.table, self.edits, self.base.value)  # a bad row is named here, by its key
        except Exception as exc:  # noqa: BLE001 - named in the page
            self.note.value = message(self._explain(exc), "error")
            return None
        self.note.value = ""
        self.results.clear()
        base, edits, seed, model = self.base.value, {k: dict(v) for k, v in self.edits.items()}, int(self.seed.value), \
            self.model
        record = {"kind": "whatif", "game": model.name, "name": "what-if",
                  "title": f"{model.title}: what-if of {sum(len(v) for v in edits.values())} edited cells",
                  "settings": settings, "params": params, "seed": seed, "edits": edits, "base": base,
                  "rules_version": model.rules_version}

        def task(on_progress: Any, should_stop: Any) -> CardWhatIf:
            return what_if(model, edits, params=params, agents=settings["agents"], games=settings["games"],
                           seed=seed, base=base, on_progress=on_progress, should_stop=should_stop)

        def failed(text: str) -> None:
            self.note.value = message(text, "error")

        self.job.start(task, lambda result, took: self._done(record, result, took),
                       lambda exc, took: self._stopped(record, exc), lambda text: failed(text))
        if wait:
            self.job.wait()
            self.results.wait()
            return self.job.result
        return None

    def _keep(self, record: dict[str, Any], tables: dict[str, pl.DataFrame]) -> dict[str, Any]:
        if self.workspace is not None:
            record = {**record, "id": self.workspace.store.save(record, tables)}
        return record

    def _done(self, record: dict[str, Any], result: CardWhatIf, took: float) -> None:
        games = pl.concat([result.baseline.with_columns(pl.lit("unchanged").alias("arm")),
                           result.variant.with_columns(pl.lit("edited").alias("arm"))], how="diagonal_relaxed")
        tables = {"what_if": result.outcomes, "games": games}  # the games of both arms: the frame to download
        n = result.variant.height
        record = {**record, "status": "stopped" if result.stopped else "done", "done": n, "total": result.games,
                  "seconds": round(took, 3), "variant_file": str(result.variant_path)}
        record = self._keep(record, tables)
        shown = tables
        first = result.outcomes.filter(pl.col("metric") == "first_seat_win")
        headline = ""
        if first.height:
            r = first.row(0, named=True)
            headline = (f"first seat wins {100 * r['base']:.1f}% → {100 * r['variant']:.1f}%: "
                        f"{100 * r['diff']:+.1f} pts [{100 * r['low']:+.1f}, {100 * r['high']:+.1f}], "
                        f"p = {r['p_value']:.3g} over {n:,} paired games")
        kept = "; kept as an earlier run" if "id" in record else ""
        note = (f"stopped: compared the {n:,} games both arms finished{kept}" if result.stopped
                else f"done: {n:,} paired games in {took:.1f} s{kept}")
        self.results.show(record, shown, lambda: {"what_if": charts.delta_chart(
            result.outcomes, "metric", title="What-if: edited − unchanged", x_title="edited − unchanged")},
            note, "info" if result.stopped else "ok",
            {"what_if": "edited − unchanged, per metric (paired games, exact p-value)"})
        if headline:
            self.results.header.value += f"<p class='wb-whatif-delta' data-metric='first_seat_win'><b>" \
                                         f"{html.escape(headline)}</b></p>"

    def _stopped(self, record: dict[str, Any], exc: RunInterrupted) -> None:
        partial = exc.partial if isinstance(exc.partial, pl.DataFrame) else None
        if partial is None or partial.height == 0:
            self.results.clear("stopped before any game finished")
            return
        record = self._keep({**record, "status": "stopped", "done": partial.height, "total": exc.total},
                            {"baseline": partial})
        self.results.show(record, {"baseline": partial}, dict,
                          f"stopped before the edited cards were played: {partial.height:,} games of the unchanged "
                          "set kept (nothing to compare yet)", "info")

    def save(self) -> None:
        """Press Save: the edited set as a new CSV under the given name (never over an existing file)."""
        try:
            if not self.edits:
                raise InputError(f"no {self.table.title} value is changed yet: edit a cell first")
            path = save_cards(self.table, self.edits, self.save_name.value, self.cards_dir, base=self.base.value)
        except Exception as exc:  # noqa: BLE001 - named in the page
            self.note.value = message(self._explain(exc), "error")
            return
        self.note.value = message(f"saved {len(self.edits)} changed {self.table.title} as {path} — pass it as "
                                  f"--{self.table.param.replace('_', '-')} {path}", "ok", saved=path)
