"""The card editor: a card game's declared table, edited in a panel, with a what-if on common random numbers.

For a game that declares ``card_table`` (``core/design/cardtable.py``); the studio's Cards tab and a
notebook's ``card_editor(game)``.  The table pages through the
rows of the chosen set (the shipped one, a saved one, or an uploaded CSV — checked by the game's
loader first); the editable columns are input boxes, the key and shown columns plain text.  A
changed cell and its row are highlighted, and the list of changes says what each was.  Every cell is
checked as it is edited — its text kept as typed (a number box that would turn ``1e3x`` into 13 is
never used), then the edited set checked by the game's own loader with that one change — and every
refused cell of the set is listed at once, each by its row and column; a refused cell is never
played, and "Undo all changes" clears the list with the changes.  Run what-if
plays the same games with the unchanged and the edited cards (``cardtable.what_if``: same master
seed, so the same game seeds) and shows every difference with its interval and exact paired
p-value.  With "re-tune games" above 0, each weight set the agents name (``greedy@tuned``) is first
re-tuned for the edited cards with that many games and the edited cards play the re-tuned weights
(the unchanged ones the set as shipped); the size line before Run counts those games, and the result
says which agents each arm played.  Save writes the edited set as ``<cards_dir>/<name>.csv`` under a name the user gives
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

from workbench.core.design.cardtable import (
    CardTable,
    CardWhatIf,
    card_table,
    changed_cells,
    column_kinds,
    edited_cards,
    read_cards,
    retune_sets,
    save_cards,
    what_if,
)
from workbench.core.errors import DataError, InputError, RunInterrupted
from workbench.core.model import Param, get_game
from workbench.core.present import charts
from workbench.core.present.charts import display_label
from workbench.core.sim.stream import pilot
from workbench.core.stats.compare import paired_verdicts
from workbench.ui.common import Pilots, require_widgets, size_estimate, size_line
from workbench.ui.forms import Form, refuse
from workbench.ui.render import CSS, error_message, message, table_html
from workbench.ui.results import ResultsView
from workbench.ui.run import RunPanel

__all__ = ["FIRST_SEAT_LABEL", "FIRST_SEAT_METRIC", "WHATIF_SETTINGS", "CardEditor", "matchup_text"]

PAGE_ROWS = 15
_INTEGER = re.compile(r"^[+-]?[0-9]+$")
_NUMBER = re.compile(r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$")
WHATIF_SETTINGS = (
    Param("games", 2000, int, "games per arm (the same games in both: common random numbers)", 10, 10**8),
    Param("agents", None, str, "one agent per seat, comma-separated (none: the game's first skill tier, e.g. greedy, "
          "at every seat; random only when named)", optional=True),
    Param("retune_games", 0, int, "re-tune a weight set for the edited cards: 0 = off; N = each weight set the agents "
          "name (e.g. greedy@tuned) is first re-tuned for the edited cards by N games of self-play, and the edited "
          "cards play the re-tuned weights while the unchanged cards play the set as shipped (it was tuned for "
          "them); costs N extra games per weight set", 0, 10**8),
)

# the what-if's headline measure: the first seat's score (a draw counts half), named as every page names it
FIRST_SEAT_METRIC, FIRST_SEAT_LABEL = "first_seat_score", "first seat score"


def _draws_text(verdicts: pl.DataFrame) -> str:
    """``; draws 2.0% → 1.5%``: the draws beside a score (empty when the table has no draw row)."""
    drawn = verdicts.filter(pl.col("metric") == "draw")
    if not drawn.height:
        return ""
    r = drawn.row(0, named=True)
    return f"; draws {100 * r['base']:.1f}% → {100 * r['variant']:.1f}%"


def default_lineup(model: Any, params: dict[str, Any] | None, agents: Any = None) -> Any:
    """The agents a what-if plays: those given, else the game's first declared tier at every seat.

    Never random unless named; a game that declares no tiers plays its own defaults (None).
    """
    if agents:
        return agents
    tiers = tuple(getattr(model, "tiers", ()) or ())
    if not tiers:
        return None
    seats = model.players(model.make_config(model.resolve_params(dict(params or {}))))
    return ",".join([tiers[0]] * seats)


def matchup_text(model: Any, params: dict[str, Any] | None, agents: tuple[tuple[str, ...], ...] = ()) -> str:
    """What a number was measured on, as a reader reads it: the agents per seat and the named content.

    ``greedy vs greedy; deck p1 <name>, deck p2 <name>`` — the lineup of each arm (once when both
    played the same), the values of the parameters that name content (``GameModel.choice_names``:
    decks, battlefields) and any other parameter set away from its default.
    """
    lineups = [tuple(a) for a in agents if a]
    if not lineups:
        said = "the game's default agents"
    elif len(set(lineups)) == 1:
        said = " vs ".join(lineups[0])
    else:
        said = "; ".join(f"{arm}: {' vs '.join(lineup)}" for arm, lineup in zip(("unchanged cards", "edited cards"),
                                                                             lineups, strict=False))
    params = dict(params or {})
    resolved = model.resolve_params(params)
    content = [f"{name.replace('_', ' ')} {model.choice_label(name, resolved[name])}" for name in model.choice_names
               if name in resolved and resolved[name] is not None]
    others = [f"{name.replace('_', ' ')} {value}" for name, value in params.items() if name not in model.choice_names]
    return "; ".join([said, *([", ".join(content)] if content else []), *([", ".join(others)] if others else [])])


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
        # the grid takes its natural width and scrolls sideways inside this box; the key column stays in view
        self.grid_box = w.Box([self.grid], layout=w.Layout(width="100%", overflow="auto"))
        self.grid_box.add_class("wb-card-scroll")
        self.changes = w.HTML()
        self.changes.add_class("wb-card-changes")
        self.refused: dict[tuple[str, str], str] = {}  # (row key, column) -> why the cell is refused
        self.cell_errors = w.HTML()
        self.cell_errors.add_class("wb-card-errors")
        self.reset = w.Button(description="Undo all changes", icon="undo")
        self.form = Form([p for p in self.model.params if p.name != self.table.param], kind="param")
        self.settings = Form(WHATIF_SETTINGS, kind="setting")
        for form in (self.form, self.settings):
            form.on_check(self._form_changed)
        self.run_form = Form([Param("master_seed", 0, int, "both arms play the same games: the same seed, the same "
                                    "game seeds", 0, 2**63 - 1)], kind="run")  # refused in place, never clamped
        self.run_form.on_check(self._form_changed)
        self.seed = self.run_form.fields["master_seed"][1]
        self.size = w.HTML()  # the run's size before Run: both arms' games and the re-tune's, with the time
        self.size.add_class("wb-size")
        self._pilots = Pilots(lambda: self._show_size(measure=False))
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
        self._show_size(measure=False)  # a page being built plays no pilot games
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
            self.grid_box, self.cell_errors, w.HBox([self.reset]), self.changes, self.note,
            w.HTML("<b>What-if</b> <span class='wb-more'>(the game's other parameters; both arms alike)</span>"),
            self.settings.widget, self.form.widget, self.run_form.widget, self.size, self.job.widget,
            self.results.widget,
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
        self.cards, self.edits, self.refused = cards, {}, {}
        self.kinds = column_kinds(cards, self.table.editable)
        self.note.value = ""
        self._goto(0)
        self._show_changes()
        self._show_refused()

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
        head = [w.HTML(f"<b>{html.escape(c.replace('_', ' '))}</b>") for c in (*fixed, *t.editable)]
        if head:
            head[0].add_class("wb-key-cell")  # the key column stays in view when the table scrolls sideways
        cells = list(head)
        self._row_labels: dict[str, list[Any]] = {}
        for row in rows.iter_rows(named=True):
            key = row[t.row_key]
            labels = [w.HTML(f"<span class='wb-card-{html.escape(c)}'>{html.escape(row[c])}</span>") for c in fixed]
            for label in labels:
                label.add_class("wb-card-label")  # a name on one line; the headers above may wrap
            self._row_labels[key] = labels
            if labels:
                labels[0].add_class("wb-key-cell")
            self._mark_row(key)
            cells += labels
            for c in t.editable:
                cells.append(self._editor(key, c, row[c]))
        self.grid.children = cells
        # names on one line, numbers in narrow boxes, short texts (keywords) mid-width, the longest text the rest:
        # Babylon's effect text is in view at 1,300 px beside every fixed column
        widest = max((c for c in t.editable if self.kinds.get(c) not in (int, float)),
                     key=lambda c: int(self.cards[c].cast(pl.String).str.len_chars().max() or 0)
                     if c in self.cards.columns else 0, default=None)
        def width(c: str) -> str:
            if self.kinds.get(c) in (int, float):
                return "minmax(56px, min-content)"  # as wide as the header's longest word
            return "minmax(280px, 1fr)" if c == widest else "130px"
        widths = " ".join(["max-content"] * len(fixed) + [width(c) for c in t.editable])
        self.grid.layout = w.Layout(grid_template_columns=widths, grid_gap="1px 8px", width="max-content",
                                    min_width="100%")

    def _editor(self, key: str, column: str, original: str) -> Any:
        w = self.w
        value = self.edits.get(key, {}).get(column, original)
        numeric = self.kinds.get(column, str) in (int, float)
        # a text box for numbers too: what is typed is kept and checked, never turned into another number
        box = w.Text(value=str(value), continuous_update=False, layout=w.Layout(width="52px" if numeric else "98%"))
        box.tooltip = f"{column} of {key} (was {original or 'blank'})"
        box.add_class(f"wb-edit-{column}")
        box.add_class(f"wb-row-{re.sub(r'[^A-Za-z0-9_-]', '_', key)}")
        if column in self.edits.get(key, {}):
            box.add_class("wb-cell-changed")
        if (key, column) in self.refused:
            box.add_class("wb-cell-bad")
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
        why = self._check_cell(key, column) if column in self.edits.get(key, {}) else None
        if why:
            self.refused[(key, column)] = why
        else:
            self.refused.pop((key, column), None)
        (box.add_class if why else box.remove_class)("wb-cell-bad")
        self._mark_row(key)
        self._show_changes()
        self._show_refused()
        if not self.job.running:
            self.job.reset("cards changed: press Run what-if")
            if not self.refused:
                self.note.value = ""

    def _check_cell(self, key: str, column: str) -> str | None:
        """Why the edited cell ``key``/``column`` is refused (its text, then the game's loader), or None."""
        text = self.edits[key][column]
        where = f"{self.table.row_key} {key!r}, column {column!r}"
        kind = self.kinds.get(column, str)
        if kind is int and text and not _INTEGER.match(text):
            return f"{where}: {text!r} is not a whole number (the column holds whole numbers)"
        if kind is float and text and not _NUMBER.match(text):
            return f"{where}: {text!r} is not a number (the column holds numbers)"
        try:
            edited_cards(self.table, {key: {column: text}}, self.base.value)
        except Exception as exc:  # noqa: BLE001 - the loader's word on this one cell, in the set's terms
            reason = getattr(exc, "reason", None)
            if isinstance(exc, DataError) and exc.column and exc.column != column:
                # the edit broke another column's rule (F1's power cost 0 leaves its specific cost 1 too high):
                # name the column the loader refused, and the edit that made it so
                shown = self.cards.filter(pl.col(self.table.row_key) == key)
                was = str(shown[exc.column][0]) if exc.column in shown.columns and shown.height else ""
                value = self.edits[key].get(exc.column, was)
                return (f"{self.table.row_key} {key!r}, column {exc.column!r} ({display_label(exc.column)} "
                        f"{value}): {reason} — with {column!r} ({display_label(column)}) set to {text}")
            return f"{where}: {reason if isinstance(exc, DataError) and reason else error_message(exc)}"
        return None

    def _show_refused(self) -> None:
        """Every refused cell of the set at once (none: nothing shown)."""
        if not self.refused:
            self.cell_errors.value = ""
            return
        items = "".join(f'<li data-key="{html.escape(k)}" data-column="{html.escape(c)}">{html.escape(why)}</li>'
                        for (k, c), why in self.refused.items())
        n = len(self.refused)
        self.cell_errors.value = (f'<div class="wb-msg wb-msg-error" data-kind="error" data-refused="{n}">'
                                  f"{n} edited cell{'s are' if n > 1 else ' is'} refused — put "
                                  f"{'them' if n > 1 else 'it'} right or undo (nothing refused is played):"
                                  f"<ul>{items}</ul></div>")

    def _form_changed(self) -> None:
        if not self.job.running:
            self.job.reset("settings changed: press Run what-if")
        self._show_size()

    # -- the size of a run, before Run ----------------------------------------------------------------
    def estimate(self, wait: bool = False, measure: bool = True) -> dict[str, Any]:
        """The run's size: ``arms`` games (both), ``retune`` games (every weight set re-tuned), ``seconds`` or None."""
        settings, params = self.settings.values(), self.form.changed()
        arms, retune = 2 * settings["games"], settings["retune_games"]
        sets = 0
        if retune:
            try:
                sets = len(retune_sets(self.model, settings["agents"], params))
            except InputError:
                sets = 0  # Run names what is wrong; nothing is re-tuned
        out: dict[str, Any] = {"arms": arms, "retune": retune * sets, "sets": sets, "seconds": None, "rate": None}
        agents = default_lineup(self.model, params, settings["agents"])
        key = repr((agents, sorted(params.items())))
        found = self._pilots.get(key, (lambda: pilot(self.model, params, agents)) if measure else None, wait)
        if found is not None:
            out["seconds"] = found.seconds(arms + out["retune"])
            out["rate"] = 1 / found.seconds_per_game
        return out

    def _show_size(self, measure: bool = True) -> None:
        found = size_estimate(self, measure)
        if found is None:
            return
        total = found["arms"] + found["retune"]
        text = f"{total:,} games in all: {found['arms']:,} for the two arms"
        if found["retune"]:
            sets = f"{found['sets']} weight sets" if found["sets"] > 1 else "the weight set"
            text += f" + {found['retune']:,} to re-tune {sets} for the edited cards"
        self.size.value = size_line(text, found, games=total, measure=measure, attrs={"retune": found["retune"]})

    def _mark_row(self, key: str) -> None:
        """Highlight the shown row of ``key`` when it holds a change."""
        for label in getattr(self, "_row_labels", {}).get(key, []):
            (label.add_class if key in self.edits else label.remove_class)("wb-changed-row")

    def _reset(self) -> None:
        self.edits, self.refused = {}, {}
        self.note.value = ""
        self.job.reset()
        self._goto(self.page)
        self._show_changes()
        self._show_refused()

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
            refuse(self.settings, self.form, self.run_form)
            settings, params = self.settings.values(), self.form.changed()
            if not self.edits:
                raise InputError(f"no {self.table.title} value is changed yet: edit a cell first")
            if self.refused:
                raise InputError(f"{len(self.refused)} edited cell(s) are refused (listed above the changes): "
                                 + "; ".join(self.refused.values()))
            edited_cards(self.table, self.edits, self.base.value)  # a bad row is named here, by its key
        except Exception as exc:  # noqa: BLE001 - named in the page
            self.job.hold(self.note, message(self._explain(exc), "error"), "not run: put the refused values right",
                          "refused")
            return None
        self.note.value = ""
        self.results.clear()
        base, edits, model = self.base.value, {k: dict(v) for k, v in self.edits.items()}, self.model
        seed = self.run_form.values()["master_seed"]
        record = {"kind": "whatif", "game": model.name, "name": "what-if",
                  "title": f"{model.title}: what-if of {sum(len(v) for v in edits.values())} edited cells",
                  "settings": settings, "params": params, "seed": seed, "edits": edits, "base": base,
                  "rules_version": model.rules_version}

        def task(on_progress: Any, should_stop: Any) -> CardWhatIf:
            return what_if(model, edits, params=params, agents=default_lineup(model, params, settings["agents"]),
                           games=settings["games"],
                           seed=seed, base=base, on_progress=on_progress, should_stop=should_stop,
                           retune=settings["retune_games"])

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
        # one verdict per metric: the interval the exact paired test inverts, Holm-corrected over the metrics
        verdicts = paired_verdicts(result.baseline, result.variant)
        tables = {"what_if": verdicts, "games": games}  # the games of both arms: the frame to download
        n, m = result.variant.height, verdicts.height
        record = {**record, "status": "stopped" if result.stopped else "done", "done": n, "total": result.games,
                  "seconds": round(took, 3), "variant_file": str(result.variant_path),
                  "agents_played": {"unchanged": list(result.agents[0]), "edited": list(result.agents[1])},
                  "retuned": [r.as_dict() for r in result.retuned]}
        record = self._keep(record, tables)
        shown = tables
        first = verdicts.filter(pl.col("metric") == FIRST_SEAT_METRIC)
        headline = ""
        if first.height:
            r = first.row(0, named=True)
            headline = (f"{FIRST_SEAT_LABEL} {100 * r['base']:.1f}% → {100 * r['variant']:.1f}% (a draw counts half"
                        f"{_draws_text(verdicts)}): {100 * r['diff']:+.1f} pts [{100 * r['low']:+.1f}, "
                        f"{100 * r['high']:+.1f}] ({100 * r['confidence']:.1f} % interval), p = {r['p_value']:.3g}, "
                        f"Holm-corrected p = {r['p_holm']:.3g} over {m} metrics — significant: "
                        f"{'yes' if r['significant'] else 'no'} ({n:,} paired games; measured on "
                        f"{matchup_text(self.model, record['params'], result.agents)})")
        kept = "; kept as an earlier run" if "id" in record else ""
        note = (f"stopped: compared the {n:,} games both arms finished{kept}" if result.stopped
                else f"done: {n:,} paired games in {took:.1f} s{kept}")
        self.results.show(record, shown, lambda: {"what_if": charts.delta_chart(
            verdicts, "metric", title="What-if: edited − unchanged", x_title="edited − unchanged",
            color_title=f"significant (Holm, {m} metrics)")},
            note, "info" if result.stopped else "ok",
            {"what_if": f"edited − unchanged, per metric: {m} metrics tested at once, so each p-value is corrected "
                        "by Holm's method (p holm) and each interval is the exact paired test's at that metric's "
                        "Holm level (confidence) — it excludes 0 exactly when 'significant' says yes"})
        if headline:
            flag = "yes" if first.row(0, named=True)["significant"] else "no"
            self.results.header.value += f"<p class='wb-whatif-delta' data-metric='{FIRST_SEAT_METRIC}' " \
                                         f"data-significant='{flag}'><b>{html.escape(headline)}</b></p>"
        lines = result.agents_text()
        if lines:
            items = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
            self.results.header.value += (f"<div class='wb-whatif-agents' data-retuned='{len(result.retuned)}'>"
                                          f"Agents each arm played:<ul>{items}</ul></div>")

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
