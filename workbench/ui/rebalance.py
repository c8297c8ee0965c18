"""The rebalance panel: a target, an edit space and a budget, then the smallest edits that reach the target.

For a game that declares ``targets`` (``core/design/rebalance.py``); the studio's Rebalance tab and a
notebook's ``RebalancePanel(game, out)``.  The form is built from the declaration: one row per
declared metric (tick it, give its band in percent — the game's default target ticked), the edit
space (``cost:-1..+1, might:-1..+1`` over the cards ``F*,S*``; the game's default), and the budget
(games the search may play, games per cell of its first racing stage, racing stages, most edits,
proposals verified, the held-out margin, skill tiers, seed, workers).  Every field is checked as it
is typed and a wrong one is refused beside itself — a reversed or empty band by its metric, an
unknown metric by the target, an empty edit space by the edit spec — and nothing runs.

Before Run the size is shown as the other pages show it: the search's games and, at most, the
held-out check's, with the time from pilot games measured on this machine (``core/stream.pilot``); a
run estimated over :data:`~workbench.ui.studies.CONFIRM_SECONDS` asks for a second press.  Run plays
:func:`~workbench.core.design.rebalance.rebalance` in the background (``run.py``) with progress per phase;
Stop ends it keeping every finished trial — the proposals found so far are shown, labelled
"stopped" and "not verified" — and **Continue** resumes the same search from its store.  Each run has
its own folder under ``out`` (``search.jsonl``, ``proposals/``: never the shipped data).  The proposals
table (edits, points outside the bands per tier, holds at every tier, verdict) and the held-out
table (each metric before → after with its 95 % interval and n) use plain labels.  **Apply** hands a
proposal — its card edits read back from its saved CSV, its parameters from its JSON — to
``on_apply`` (the studio puts them into the Cards page's table, where the ordinary what-if runs on
them); :func:`apply_to_editor` does that for any :class:`~workbench.ui.cards.CardEditor`.
"""

from __future__ import annotations

import html
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core.design import rebalance as rb
from workbench.core.design.cardtable import card_table, column_kinds, read_cards
from workbench.core.errors import InputError
from workbench.core.model import Param, get_game
from workbench.core.sim.stream import Pilot, pilot
from workbench.ui.common import Pilots, duration_text, require_widgets, size_estimate, size_line
from workbench.ui.forms import Form, refuse
from workbench.ui.render import CSS, error_message, message, table_html
from workbench.ui.run import RunPanel
from workbench.ui.studies import CONFIRM_SECONDS, show_refused

__all__ = ["Proposal", "RebalancePanel", "apply_to_editor", "declares_targets", "proposals_of"]

_NUMBER = re.compile(r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)\s*%?\s*$")


def declares_targets(game: Any) -> bool:
    """Whether the game declares balance targets (``targets`` on its model): it has a Rebalance page."""
    return getattr(get_game(game), "targets", None) is not None


def _default_edit(model: Any, targets: rb.Targets) -> str:
    """The edit spec the search uses when none is given: the game's, else every whole-number card column ±1."""
    if targets.edit:
        return targets.edit
    table = card_table(model)
    if table is None:
        return ""
    kinds = column_kinds(read_cards(table), table.editable)
    return ", ".join(f"{c}:-1..+1" for c in table.editable if kinds[c] is int)


# -- proposals, as something to apply ------------------------------------------------------------------------
@dataclass(frozen=True)
class Proposal:
    """One proposal of a finished (or stopped) search, ready to apply.

    ``cards``: the card edits ``{key: {column: value}}`` (read back from the saved CSV); ``params``:
    parameter edits that hold in every cell; ``scoped``: parameter edits of some cells only
    (``{label: value}``, e.g. one battlefield's), which a single what-if cannot play.
    """

    rank: int
    edits: str
    verdict: str
    holds: bool
    cards: dict[str, dict[str, str]] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    scoped: dict[str, Any] = field(default_factory=dict)
    file: Path | None = None

    @property
    def label(self) -> str:
        """``1 · Lead card (lead): power 4 → 3 · meets the target at every tier …``."""
        return f"{self.rank} · {self.edits or 'no edits'} · {self.verdict}"


def proposals_of(game: Any, result: rb.RebalanceResult) -> list[Proposal]:
    """The proposals of ``result`` with their edits as data, read from the files the search saved."""
    model = get_game(game)
    table = card_table(model)
    base = read_cards(table) if table is not None else None
    folder = Path(result.out) / "proposals" if result.out is not None else None
    out = []
    for row in result.proposals.iter_rows(named=True):
        rank = int(row["proposal"])
        cards: dict[str, dict[str, str]] = {}
        params: dict[str, Any] = {}
        scoped: dict[str, Any] = {}
        csv = folder / f"proposal-{rank:02d}.csv" if folder is not None else None
        if csv is not None and csv.is_file() and table is not None and base is not None:
            edited = read_cards(table, csv)
            was = {r[table.row_key]: r for r in base.iter_rows(named=True)}
            for r in edited.iter_rows(named=True):
                changed = {c: r[c] for c in table.editable if r[c] != was.get(r[table.row_key], {}).get(c)}
                if changed:
                    cards[r[table.row_key]] = changed
        saved = folder / f"proposal-{rank:02d}.params.json" if folder is not None else None
        if saved is not None and saved.is_file():
            for label, value in json.loads(saved.read_text(encoding="utf-8")).items():
                (scoped if "@" in label else params)[label] = value
        file = csv if csv is not None and csv.is_file() else None
        out.append(Proposal(rank, row["edits"] or "", row["verdict"], bool(row["holds"]), cards, params, scoped,
                            file))
    return out


def apply_to_editor(editor: Any, proposal: Proposal, agents: str | None = None) -> str:
    """Put ``proposal`` into a card editor: its card edits over the shipped set, its parameters in the what-if form.

    Returns what was done, in a sentence (also shown in the editor's note).  Parameter edits of some
    cells only (one battlefield's) cannot be played by one what-if: they are named, not applied.
    """
    table = getattr(editor, "table", None)
    if table is None:
        raise InputError("this game has no editable card table to apply a proposal to")
    shipped = str(Path(table.default))
    if editor.base.value != shipped:
        editor.base.value = shipped  # the proposal's edits are against the shipped set
    editor.reset.click()  # the editor's own "Undo all changes"
    for key, values in proposal.cards.items():
        editor.edit(key, **values)
    applied = [k for k in proposal.params if k in editor.form]
    if applied:
        editor.form.set(**{k: proposal.params[k] for k in applied})
    if agents and "agents" in editor.settings:
        editor.settings.set(agents=agents)
    cells = sum(len(v) for v in proposal.cards.values())
    parts = [f"proposal {proposal.rank} applied: {cells} changed card value{'s' if cells != 1 else ''}"]
    if applied:
        parts.append("parameters " + ", ".join(f"{k} = {proposal.params[k]}" for k in applied))
    skipped = [k for k in proposal.params if k not in applied] + list(proposal.scoped)
    if skipped:
        parts.append("not applied (a what-if plays one setting of the other parameters): " + ", ".join(
            f"{k} = {v}" for k, v in {**proposal.params, **proposal.scoped}.items() if k in skipped))
    text = "; ".join(parts) + " — press Run what-if to compare it with the unchanged set on the same seeds"
    editor.note.value = message(text, "ok", applied=proposal.rank)
    return text


# -- the panel ------------------------------------------------------------------------------------------------
def _budget_params(targets: rb.Targets, tiers: str, seed: int, workers: int) -> tuple[Param, ...]:
    return (
        Param("budget", 20_000, int, "games the whole run may play: the search, the held-out check and any re-tunes "
              "(the run never plays more)", 1, 10**9),
        Param("verify_share", round(100 * targets.verify_share), int, "percent of the budget kept for the held-out "
              "check (the search plays the rest); 0 = the budget is the search's alone and the held-out check, sized "
              "by the margin, comes on top", 0, 90),
        Param("games", targets.games, int, "games per cell of the search's first racing stage (every candidate "
              "plays them; the ones still close play more)", 1, 10**7),
        Param("stages", targets.stages, int, "racing stages, each 4 × the games of the one before", 1, 6),
        Param("max_edits", targets.max_edits, int, "most edits a proposal holds", 1, 32),
        Param("verify", 10, int, "most proposals re-played on held-out seeds", 1, 10),
        # 0.1..10.1: the slider beside the box moves in steps of 0.1 from 0.1, so a typed 1 or 2.5 stays as typed
        Param("margin", round(100 * targets.margin, 1), float,
              "the held-out games give every targeted rate ± this many points at 50 %", 0.1, 10.1),
        Param("tiers", tiers, str, "skill tiers of the held-out check, comma-separated; the target is met only when "
              "it is met at every one (the search plays the fast ones: every one when the game says so, the worst "
              "deciding)"),
        Param("slow_games", targets.slow_games, int, "held-out games a cell at a search tier (a game there costs "
              "about a thousand fast ones): a floor, so its status may read undecided", 1, 10**5),
        Param("retune_games", targets.retune, int, "re-tune a tier's weight set (e.g. greedy@tuned) for each "
              "proposal: 0 = off "
              "(the set plays as shipped); N = N games of self-play per proposal and such tier before its held-out "
              "games, which then play the re-tuned weights (the held-out table names them)", 0, 10**8),
        Param("master_seed", seed, int, "the rebalance seed: search seeds, held-out seeds and the optimiser", 0,
              2**63 - 1),
        Param("workers", workers, int, "worker threads", 1, 64),
    )


class _BandRow:
    """One declared metric: ticked or not, and its band in percent, with a message beside it."""

    def __init__(self, metric: rb.Metric, band: rb.Band | None, fallback: tuple[float, float], where: str = "") -> None:
        w = require_widgets()
        self.metric = metric
        low, high = (100 * band.low, 100 * band.high) if band is not None else fallback
        self.on = w.Checkbox(value=band is not None, indent=False, description="",
                             layout=w.Layout(width="30px"))
        self.low = w.Text(value=f"{low:g}", continuous_update=False, layout=w.Layout(width="70px"))
        self.high = w.Text(value=f"{high:g}", continuous_update=False, layout=w.Layout(width="70px"))
        tip = html.escape(f"{metric.name}: {metric.help}" if metric.help else metric.name)
        title = metric.title.replace("First seat's score", "First seat score")  # a draw counts half: a score
        said = f' <span class="wb-more wb-measured-at">{html.escape(where)}</span>' if where else ""
        # the title a person reads; the metric's key (for the CLI's --target) only in the tooltip
        self.label = label = w.HTML(f'<span class="wb-label" title="{tip}" data-metric="{html.escape(metric.name)}">'
                                    f"{html.escape(title)}{said}</span>",
                                    layout=w.Layout(width="420px"))
        self.error = w.HTML()
        self.error.add_class("wb-field-error")
        for box, name in ((self.on, "on"), (self.low, "low"), (self.high, "high")):
            box.add_class(f"wb-band-{name}")
        row = w.HBox([self.on, label, self.low, w.HTML("&nbsp;to&nbsp;"), self.high, w.HTML("&nbsp;%")],
                      layout=w.Layout(align_items="center"))
        self.widget = w.VBox([row, self.error])
        self.widget.add_class("wb-band")
        self.widget.add_class(f"wb-band-{metric.name}")

    def text(self) -> str | None:
        """``name=low..high`` when ticked, None when not; a wrong number raises an InputError naming the field."""
        if not self.on.value:
            return None
        for name, box in (("low end", self.low), ("high end", self.high)):
            if not _NUMBER.match(box.value or ""):
                raise InputError(f"{self.metric.name}: the band's {name} {box.value!r} is not a number in percent "
                                 "(e.g. 49 or 48.5)")
        return f"{self.metric.name}={self.low.value.strip().rstrip('%')}..{self.high.value.strip().rstrip('%')}"

    def set(self, band: rb.Band | None) -> None:
        self.on.value = band is not None
        if band is not None:
            self.low.value, self.high.value = f"{100 * band.low:g}", f"{100 * band.high:g}"

    def show(self, why: str | None) -> None:
        self.error.value = "" if not why else (
            f'<div class="wb-msg wb-msg-error wb-field-msg" data-field="{html.escape(self.metric.name)}">'
            f"{html.escape(why)}</div>")
        (self.widget.add_class if why else self.widget.remove_class)("wb-field-bad")


def _measured_at(model: Any, targets: rb.Targets) -> str:
    """Where a metric is measured, in words: the matchups every candidate plays and the tiers (each apart)."""
    from workbench.core.skill.tiers import declared_tiers

    keys = list(dict.fromkeys(k for cell in targets.cells for k in cell))
    named = " × ".join(k.replace("_", " ") for k in keys)
    cells = (f"over the {len(targets.cells)} matchups every candidate plays ({named})" if keys
             else "over every game a candidate plays")
    tiers = declared_tiers(model)
    fast = [t.label for t in tiers if not t.slow] or [tiers[0].label]
    searched = fast if targets.search_tiers else fast[:1]
    return (f"— {cells}, read at each tier apart: the search at {', '.join(searched)}, the held-out check at every "
            "tier in tiers below")


def _field_error(name: str, why: str | None) -> str:
    return "" if not why else (f'<div class="wb-msg wb-msg-error wb-field-msg" data-field="{html.escape(name)}">'
                               f"{html.escape(why)}</div>")


class RebalancePanel:
    """Target, edit space, budget, Run / Stop / Continue, proposals and Apply for one game that declares targets.

    Args:
        game: the game (its ``targets`` declaration gives the metrics, cells and defaults).
        out: the folder each run's own folder goes under (``<out>/<time>-<n>/``).
        values: fields to set at once (``target``, ``edit``, ``cards`` and the budget's names; the URL's).
        on_apply: ``on_apply(proposal)`` for the Apply button (the studio's: into the Cards page).
        seed: the default rebalance seed.
        workers: the default number of workers.
    """

    def __init__(self, game: str, out: str | Path, *, values: dict[str, Any] | None = None,
                 on_apply: Callable[[Proposal], Any] | None = None, seed: int = 0, workers: int = 1) -> None:
        w = require_widgets()
        from workbench.core.skill.tiers import default_tiers

        self.w = w
        self.model = get_game(game)
        self.out = Path(out)
        self.on_apply = on_apply
        self.targets = rb.targets_of(self.model)
        self.metrics = self.targets.all_metrics()
        self.table = card_table(self.model)
        self.result: rb.RebalanceResult | None = None
        self.proposals: list[Proposal] = []
        self._run_dir: Path | None = None
        self._kwargs: dict[str, Any] = {}
        self._pilots = Pilots(lambda: None if self._closed else self._show_size(measure=False))
        self._confirmed = ""
        self._phase = "search"
        self._closed = False
        self._refused_text = ""  # a target spec given by set_target that was refused (named by the target)
        self.dims: tuple[rb.Dim, ...] = ()

        defaults = {b.metric: b for b in rb.parse_target(self.targets.target, self.targets)}
        first = next(iter(defaults.values()), None)
        fallback = (100 * first.low, 100 * first.high) if first is not None else (49.0, 51.0)
        where = _measured_at(self.model, self.targets)
        self.bands = {name: _BandRow(m, defaults.get(name), fallback, where) for name, m in self.metrics.items()}
        self.target_error = w.HTML()
        self.target_error.add_class("wb-target-error")
        self.edit = w.Text(value=_default_edit(self.model, self.targets), continuous_update=False,
                           description="edit", style={"description_width": "initial"}, layout=w.Layout(width="640px"),
                           tooltip="COLUMN:LOW..HIGH whole steps, comma-separated; PARAM:LOW..HIGH@P gives one "
                                   "parameter per value of P among the cells")
        self.edit.add_class("wb-rebalance-edit")
        self.cards = w.Text(value=self.targets.cards, continuous_update=False, description="cards",
                            style={"description_width": "initial"}, layout=w.Layout(
                                width="640px", display="" if self.table is not None else "none"),
                            tooltip="card keys or patterns, comma-separated (e.g. F*,S*); * for every card")
        self.cards.add_class("wb-rebalance-cards")
        self.edit_note = w.HTML()
        self.edit_note.add_class("wb-edit-space")
        self.budget = Form(_budget_params(self.targets, default_tiers(self.model, slow=True), seed, workers),
                           kind="setting")
        self.size = w.HTML()
        self.size.add_class("wb-size")
        self.job = RunPanel("Run rebalance")
        self.job.run_button.on_click(lambda _: self.run())
        self.resume_button = w.Button(description="Continue", icon="forward", disabled=True,
                                      tooltip="continue the stopped search from its store (the same settings)")
        self.resume_button.add_class("wb-resume")
        self.resume_button.on_click(lambda _: self.run(resume=True))
        self.phase = w.HTML()
        self.phase.add_class("wb-phase")
        self.note = w.HTML()
        self.note.add_class("wb-note")
        self.summary = w.HTML()
        self.summary.add_class("wb-rebalance-summary")
        self.tables = w.HTML()
        self.tables.add_class("wb-results")
        self.pick = w.Dropdown(options=[("no proposals yet", 0)], value=0, description="proposal",
                               style={"description_width": "initial"}, layout=w.Layout(width="640px"))
        self.pick.add_class("wb-proposal-pick")
        self.apply_button = w.Button(description="Apply to the card table", icon="share", disabled=True,
                                     layout=w.Layout(width="240px"),
                                     tooltip="put the proposal's edits into the Cards page's table; the what-if "
                                             "runs on them there")
        self.apply_button.add_class("wb-apply")
        self.apply_button.on_click(lambda _: self.apply())
        self.apply_note = w.HTML()
        self.apply_note.add_class("wb-apply-note")

        for row in self.bands.values():
            for box in (row.on, row.low, row.high):
                box.observe(lambda _: self._changed(band=True), names="value")
        self.edit.observe(lambda _: self._changed(space=True), names="value")
        self.cards.observe(lambda _: self._changed(space=True), names="value")
        self.budget.on_check(self._changed)
        self.set(**(values or {}))
        self._check_space()
        self._check_target()
        self._show_size(measure=False)  # a page being built plays no pilot games
        where = (f"columns of {html.escape(self.table.title)} (key {html.escape(self.table.row_key)}) or whole-number "
                 "parameters") if self.table is not None else "whole-number parameters"
        self.widget = w.VBox([
            w.HTML(CSS + f"<div class='wb-help'>The smallest edits that bring {html.escape(self.model.title)}'s "
                   "balance into the bands you give: candidates are played on the same seeds and raced, the best "
                   "re-played on held-out seeds at every skill tier. A score counts a draw as half a win.</div>"),
            w.HTML("<b>Target</b> <span class='wb-more'>(tick the metrics to bring into a band)</span>"),
            *[r.widget for r in self.bands.values()], self.target_error,
            w.HTML(f"<b>What may change</b> <span class='wb-more'>({where}; whole steps)</span>"),
            self.edit, self.cards, self.edit_note,
            w.HTML("<b>Budget</b>"), self.budget.widget, self.size,
            w.HBox([self.job.widget, self.resume_button], layout=w.Layout(align_items="center")), self.phase,
            self.note, self.summary, self.tables,
            w.HTML("<b>Apply a proposal</b>"), w.HBox([self.pick, self.apply_button]), self.apply_note])
        self.widget.add_class("wb-rebalance")

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    # -- the form ---------------------------------------------------------------------------------------
    def set(self, **values: Any) -> None:
        """Set fields by name: ``target`` (a spec), ``edit``, ``cards``, or a budget field (``budget=2000``)."""
        for name, value in values.items():
            if name == "target":
                self.set_target(str(value))
            elif name == "edit":
                self.edit.value = str(value)
            elif name == "cards":
                self.cards.value = str(value)
            elif name in self.budget:
                self.budget.set(**{name: value})
            else:
                raise KeyError(f"no field {name!r}; fields: target, edit, cards, {', '.join(self.budget.fields)}")

    def set_target(self, text: str) -> bool:
        """Tick and fill the rows a target spec names (``"first_seat=48..52"``); a wrong one is named by the target."""
        try:
            bands = {b.metric: b for b in rb.parse_target(text, self.targets)}
        except InputError as exc:
            self.target_error.value = _field_error("target", str(exc))
            self._refused_text = str(exc)
            return False
        self._refused_text = ""
        for name, row in self.bands.items():
            row.set(bands.get(name))
        self._check_target()
        return True

    def target_text(self) -> str:
        """The ticked rows as a target spec; a wrong row raises (and is marked beside itself)."""
        if self._refused_text:
            raise InputError(self._refused_text)
        parts = []
        wrong = []
        for row in self.bands.values():
            try:
                text = row.text()
                if text is not None:
                    rb.parse_target(text, self.targets)
                    parts.append(text)
                row.show(None)
            except InputError as exc:
                row.show(str(exc))
                wrong.append(str(exc))
        if wrong:
            raise InputError(wrong[0] if len(wrong) == 1 else f"{len(wrong)} bands are refused — " + "; ".join(wrong))
        if not parts:
            why = f"tick at least one metric to target; metrics: {', '.join(self.metrics)}"
            self.target_error.value = _field_error("target", why)
            raise InputError(why)
        self.target_error.value = ""
        return ", ".join(parts)

    def _check_target(self) -> str | None:
        try:
            return self.target_text()
        except InputError:
            return None

    def _check_space(self) -> None:
        """The edit space of the edit and cards fields: its size, or why it is refused (beside the fields)."""
        try:
            self.dims = rb.edit_space(self.model, self.edit.value, self.cards.value if self.table is not None else None,
                                      self.targets)
        except InputError as exc:
            self.dims = ()
            self.edit_note.value = _field_error("edit", str(exc))
            return
        kinds = sorted({d.column for d in self.dims})
        cards = len({d.key for d in self.dims if d.kind == "card"})
        what = f"{cards} card{'s' if cards != 1 else ''}" if cards else ""
        steps = sum(len(d.deltas) for d in self.dims)
        self.edit_note.value = (f'<div class="wb-more" data-values="{len(self.dims)}">{len(self.dims):,} editable '
                                f"values ({', '.join(kinds)}{'; ' + what if what else ''}), {steps:,} single edits "
                                "to try first</div>")

    def _changed(self, space: bool = False, band: bool = False) -> None:
        if self._closed:
            return
        if space:
            self._check_space()
        if band:
            self._refused_text = ""  # the rows were edited: a refused spec given before no longer stands
        self._check_target()
        self._confirmed = ""
        if not self.job.running:
            self.job.reset("settings changed: press Run rebalance" if self.result is not None else "ready")
            self.note.value = ""
        self._show_size()

    def values(self) -> dict[str, Any]:
        """The form as keyword arguments of core's ``rebalance``, every wrong field named."""
        wrong = []
        try:
            target = self.target_text()
        except InputError as exc:
            wrong.append(str(exc))
            target = ""
        self._check_space()
        if not self.dims:
            wrong.append(re.sub(r"<[^>]+>", "", html.unescape(self.edit_note.value)) or "the edit space is empty")
        try:
            refuse(self.budget)
        except InputError as exc:
            wrong.append(str(exc))
        if wrong:
            raise InputError(wrong[0] if len(wrong) == 1 else f"{len(wrong)} fields are refused — " + "; ".join(wrong))
        b = self.budget.values()
        from workbench.core.skill.tiers import parse_tiers

        tiers = parse_tiers(self.model, b["tiers"])  # an unknown agent is named here, before any game
        return {"target": target, "edit": self.edit.value, "cards": self.cards.value if self.table is not None
                else None, "budget": b["budget"], "games": b["games"], "stages": b["stages"],
                "max_edits": b["max_edits"], "verify": b["verify"], "margin": b["margin"] / 100,
                "tiers": ",".join(t.agent for t in tiers), "seed": b["master_seed"], "workers": b["workers"],
                "verify_share": b["verify_share"] / 100, "slow_games": b["slow_games"],
                # the game's own re-tune is rebalance's default: only another value is passed (0 turns it off)
                **({"retune": b["retune_games"]} if b["retune_games"] != self.targets.retune else {})}

    # -- the size of a run, before Run --------------------------------------------------------------------------
    def estimate(self, wait: bool = False, measure: bool = True) -> dict[str, Any]:
        """The whole run's size (:func:`~workbench.core.design.rebalance.run_size`) and its time.

        ``total`` games at most, the ``search``'s and the held-out check's (``verify``, with its ``retune`` and
        search-tier ``slow`` games), and ``seconds`` (None until a fast tier's speed is measured; a search-tier
        game counted at its tier's cost).
        """
        kw = self.values()
        out: dict[str, Any] = {**rb.run_size(self.model, budget=kw["budget"], tiers=kw["tiers"], verify=kw["verify"],
                                             margin=kw["margin"], verify_share=kw["verify_share"],
                                             retune=kw.get("retune"), slow_games=kw["slow_games"]),
                               "seconds": None, "rate": None}
        agent = out["fast_tiers"][0]
        found = self._pilots.get(repr((agent, kw["edit"])), (lambda: self._pilot(agent)) if measure else None, wait)
        if found is not None:
            out["seconds"] = found.seconds(round(out["fast_equivalent"]), kw["workers"])
            out["rate"] = kw["workers"] / found.seconds_per_game
        return out

    def _pilot(self, agent: str) -> Pilot:
        """The speed of ``agent`` in every seat on the targets' first cell."""
        params = {**self.targets.params, **self.targets.cells[0]}
        players = self.model.players(self.model.make_config(self.model.resolve_params(params)))
        return pilot(self.model, params, ",".join([agent] * players))

    def _show_size(self, measure: bool = True) -> None:
        found = size_estimate(self, measure)
        if found is None:
            return
        check = (f"held-out check: {found['verify']:,} games kept ({100 * found['share']:g} % of the budget; the "
                 "search may leave it more)" if found["share"] else
                 f"held-out check: up to {found['verify']:,} games on top (n for the margin per targeted rate)")
        parts = []
        if found["retune"]:
            parts.append(f"up to {found['retune']:,} of them re-tune weight sets for the proposals")
        if found["slow"]:
            parts.append(f"up to {found['slow']:,} at {', '.join(found['slow_tiers'])}, a game there timed as about "
                         "a thousand fast ones")
        text = (f"whole run: at most {found['total']:,} games · search: up to {found['search']:,} · {check}"
                + (f" ({'; '.join(parts)})" if parts else "")
                + f" · tiers {', '.join(found['fast_tiers'] + found['slow_tiers'])}")
        kind = "info" if (found["seconds"] or 0) > CONFIRM_SECONDS else "more"
        self.size.value = size_line(text, found, games=found["total"], measure=measure, kind=kind)

    # -- running -------------------------------------------------------------------------------------------------
    def _new_dir(self) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        n = 1
        while (self.out / f"{stamp}-{n}").exists():
            n += 1
        return self.out / f"{stamp}-{n}"

    def run(self, wait: bool = False, resume: bool = False) -> rb.RebalanceResult | None:
        """Press Run (or Continue, ``resume``): validate, then search in the background.

        ``wait`` blocks until the proposals are shown and returns the result (an error is raised too).
        """
        if self.job.running:
            return self.job.wait() if wait else None
        try:
            if resume:
                if self._run_dir is None or not self._kwargs:
                    raise InputError("no stopped search to continue: press Run rebalance")
                kwargs, out = dict(self._kwargs), self._run_dir
            else:
                kwargs, out = self.values(), None
                size = self.estimate(wait=True)
                self._show_size(measure=False)
                key = repr(sorted(kwargs.items()))
                if not wait and (size["seconds"] or 0) > CONFIRM_SECONDS and self._confirmed != key:
                    self._confirmed = key
                    self.job.hold(self.note, message(
                        f"This rebalance plays up to {size['total']:,} games, search and held-out check: about "
                        f"{duration_text(size['seconds'])} on this machine. Press Run rebalance again to start it, "
                        "or give a smaller budget.", "info"),
                        "waiting: press Run rebalance again to start the long run", "confirm")
                    return None
                self._confirmed = ""
        except Exception as exc:  # noqa: BLE001 - every error a user can cause is named in the panel
            show_refused(self.note, self.job, exc)
            if wait:
                raise
            return None
        out = out or self._new_dir()
        self._run_dir, self._kwargs = out, kwargs
        self.note.value = ""
        self.resume_button.disabled = True
        self.phase.value = ""
        if not resume:
            self._clear_results()
        model = self.model

        def task(on_progress: Any, should_stop: Any) -> rb.RebalanceResult:
            def progress(done: int, total: int, phase: str) -> None:
                if phase != self._phase:  # the bar starts again for the held-out check
                    self._phase = phase
                    self.phase.value = self._phase_html(phase)
                on_progress(done, total)

            return rb.rebalance(model, out=out, resume=resume, on_progress=progress, should_stop=should_stop,
                                **kwargs)

        self._phase = ""
        self.job.start(task, self._done, on_error=self._error)
        if not wait:
            return None
        self.job.wait()
        if self.job.error is not None:
            raise self.job.error
        return self.result

    @staticmethod
    def _phase_html(phase: str) -> str:
        text = {"search": "searching: candidates on the search seeds",
                "verify": "checking the best on held-out seeds at the fast tiers",
                "verify_slow": "checking the best on held-out seeds at the search tier (a game there costs about a "
                               "thousand fast ones)"}.get(phase, phase)
        return f'<span class="wb-more" data-phase="{html.escape(phase)}">{html.escape(text)}</span>'

    def _done(self, result: rb.RebalanceResult, took: float) -> None:
        self.result = result
        self.proposals = proposals_of(self.model, result)
        searched = f"{result.games_searched:,} games searched, {result.games_verified:,} held out"
        if result.stopped:
            self.job.finish("stopped", f"stopped · {searched} · everything found kept (not verified)",
                            *self.job.latest)
            self.resume_button.disabled = False
        else:
            self.job.finish("done", f"done in {took:.1f} s · {searched}", *self.job.latest)
        self.phase.value = ""
        self._show(result)

    def _error(self, text: str) -> None:
        self.note.value = message(text, "error")

    def _clear_results(self) -> None:
        self.result, self.proposals = None, []
        self.summary.value = self.tables.value = self.apply_note.value = ""
        self.pick.options = [("no proposals yet", 0)]
        self.pick.value = 0
        self.apply_button.disabled = True

    def _show(self, result: rb.RebalanceResult) -> None:
        status = "stopped" if result.stopped else ("no edits needed" if result.no_edits_needed else "done")
        kind = "info" if result.stopped else "ok"
        text = result.summary() + " " + rb.searched_text(result)
        if result.stopped:
            text += " Continue resumes this search from its store."
        where = f"saved under {result.out}" if result.out is not None else ""
        self.summary.value = (message(text, kind, status=status, proposals=result.proposals.height)
                              + (f"<div class='wb-more'>{html.escape(where)}</div>" if where else ""))
        parts = []
        proposals = rb.proposals_table(result)
        if proposals.height:
            parts.append(table_html("proposals", _yes_no(proposals), "Proposals (best first)"))
        verification = rb.verification_table(result)
        if verification.height:
            lo, hi = result.holdout_seed_range
            parts.append(table_html("verification", _yes_no(verification),
                                    f"Held-out seeds (game indices {lo}..{hi - 1} of a seed the search never used), "
                                    f"{result.verify_games_per_cell:,} games per cell and tier: each targeted rate "
                                    "before → after, 95 % interval and n"))
        elif result.baseline.height:
            parts.append(table_html("baseline", _baseline(result.baseline), "The unchanged game on the search seeds"))
        if result.additive.height:
            parts.append(table_html("additive", rb.additive_table(result), result.additive_note))
        elif result.additive_note:
            parts.append(f"<div class='wb-more'>{html.escape(result.additive_note)}</div>")
        self.tables.value = "".join(parts)
        options = [(p.label, p.rank) for p in self.proposals]
        self.pick.options = options or [("no proposals", 0)]
        self.pick.value = options[0][1] if options else 0
        self.apply_button.disabled = not options or self.on_apply is None

    # -- applying -----------------------------------------------------------------------------------------------
    def apply(self, rank: int | None = None) -> Any:
        """Press Apply: hand the chosen proposal to ``on_apply`` (the studio: into the Cards page's table)."""
        rank = rank if rank is not None else self.pick.value
        chosen = next((p for p in self.proposals if p.rank == rank), None)
        try:
            if chosen is None:
                raise InputError("no proposal to apply: run a rebalance first")
            if self.on_apply is None:
                raise InputError("nothing to apply to here: the studio's Cards page takes a proposal")
            if not chosen.cards and not chosen.params:
                raise InputError(f"proposal {rank} changes no card value and no parameter a what-if plays: "
                                 + ", ".join(f"{k} = {v}" for k, v in chosen.scoped.items()))
            done = self.on_apply(chosen)
        except Exception as exc:  # noqa: BLE001 - named in the panel
            self.apply_note.value = message(error_message(exc), "error")
            return None
        self.apply_note.value = message(str(done) if isinstance(done, str) else f"proposal {rank} applied", "ok",
                                        applied=rank)
        return done

    def search_agents(self) -> str | None:
        """Every seat's agent in the search (the first tier), for the what-if of an applied proposal."""
        try:
            tier = (self._kwargs.get("tiers") or self.budget.values()["tiers"]).split(",")[0].strip()
            params = {**self.targets.params, **self.targets.cells[0]}
            return ",".join([tier] * self.model.players(self.model.make_config(self.model.resolve_params(params))))
        except Exception:  # noqa: BLE001 - the what-if's own default agents then
            return None

    def close(self, timeout: float = 30.0) -> None:
        """Stop a running search (everything found is kept in its store) and wait for it; the page is going."""
        self._closed = True
        self.job.stop()
        if self.job.thread is not None:
            self.job.thread.join(timeout)


def _yes_no(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(pl.col(c).replace_strict({True: "yes", False: "no"}, default="—", return_dtype=pl.String)
                              for c, t in frame.schema.items() if t == pl.Boolean)


def _baseline(frame: pl.DataFrame) -> pl.DataFrame:
    def pct(c: str) -> pl.Expr:
        return pl.col(c).mul(100).round(1)

    return _yes_no(frame.select(
        pl.col("metric_title").alias("Metric"), pl.col("item_title").alias("Item"),
        pl.format("{}–{} %", pct("band_low"), pct("band_high")).alias("Band"),
        pl.format("{} % [{}, {}] (n = {})", pct("score"), pct("score_low"), pct("score_high"), pl.col("n"))
        .alias("Score"), pl.col("inside").alias("Inside the band")))

