"""``rebalance``: the smallest edits of cards or parameters that reach a balance target, verified on fresh seeds.

A game declares its balance **metrics** (:class:`Metric`: named rates computed from a played frame,
each item with its n, wins and draws; a draw counts half, as in every balance score here) and the
parameter **cells** a candidate is played in (:class:`Targets`, on the model as ``targets``).  A
designer gives a **target** — a percent band per metric, ``"deck_vs_field=48..52, first_seat=48.5..51.5"``
(:func:`parse_target`) — and an **edit space** — whole-number steps of card columns and numeric
parameters, ``"power_cost:-1..+1, might:-1..+1"`` over the cards ``"F*,S*"`` (:func:`edit_space`);
``second_bonus_wall:0..+8@battlefield`` gives one parameter per battlefield.  Every value a step can
reach is checked by the game's own loader (a card table's ``validate``) or the parameter's range.

**The search** (:func:`rebalance`) minimises three objectives at once: the distance outside the
bands (percentage points, summed over the targeted items of a tier — and, searched at several tiers, the
*worst tier's* sum, :func:`worst_tier`), the number of edits and their total size.  Why the worst tier, not
the strongest fast tier with the others as constraints: the target is met only when it is met at every
tier, so a candidate is exactly as far from it as its worst tier; a sum over tiers let a gain at one tier
buy a loss at another (Babylon's best proposal searched at greedy: greedy 8.7 → 2.0 points outside on
held-out seeds, greedy@tuned 15.1 → 17.1), and constraints would leave the racing and the additive
model no distance to rank candidates by until every constraint held.  The search plays the fast tiers
only (every one with ``Targets.search_tiers``, else the first): a game at a search tier costs about a
thousand fast ones, so that tier is verified, not searched.  It uses Optuna's NSGA-II sampler: a
well-kept, documented multi-objective optimiser whose journal storage (``<out>/search.jsonl``,
:class:`SearchJournal`) records every trial, so an interrupted search resumes where it stopped, and whose
ask/tell interface leaves seeds and sample sizes to the objective.  (pymoo's
NSGA-II would do the search as well, but has no storage: resumption would be ours to write.)
Determinism: the sampler is re-seeded before every trial from the search seed and the number of
finished trials, and reads its population only from the storage, so the same seed gives the same
proposals and a resumed search the same proposals as an uninterrupted one.  A large edit space is
searched sparsely — a candidate is at most ``max_edits`` slots, each one edit (which, by how much)
— so candidates are few-edit from the start; a small one (at most ``max_edits`` steps) densely.  After
the baseline, every one-edit candidate is played first (``screen``): the optimiser's first
generations are each edit's own effect, which crossover then combines.

**The additive model** (:func:`_additive_step`, sparse spaces): once every single edit is played, each one's
effect on every targeted item is read against the unedited game on the same games, and a mixed-integer
program (SciPy's ``milp``, HiGHS) finds, exactly, the combinations of at most ``max_edits`` single edits
whose summed effects put the items nearest their bands — over every combination, which no sampler can
enumerate (Babylon: 1.47 billion).  The single edits the best combination holds are first played on to the
last stage (their effects then read on every search game) and the model solved again; then its best
``ADDITIVE_TOP`` combinations are played to the last stage, then rounds of its best changes around the
best candidate measured (predicted from that candidate's measured rates), and NSGA-II goes on from there.
Measured distances, not the model's, decide what is proposed; the result keeps the model's ranking beside
the measurements and a note of what was covered (:func:`_additive_evidence`) — the evidence of a search that
finds nothing inside the bands.

A **separable** space is searched part by part instead (:func:`_separable`): when every edit is a
parameter scoped to some cells (``second_bonus_wall@battlefield``) and each targeted item is counted in
one part's cells only, the distance is a sum over the parts and each part is moved by its own edits
alone.  Every combination of a part's steps is played at the first stage, the better half (by the part's
own robust distance — how far its 95 % intervals reach outside the bands — then fewer edits, then room
inside the bands) goes on stage by stage, and the best of every part is composed into one candidate; its
one-step neighbours follow, and the search ends there (every other candidate is a choice among options
already measured).  The duel's start values per battlefield
and Babel's hands per variant are searched this way.

Every candidate is played on **common random numbers** — the same game seeds, from one master seed,
in every cell (a card edit only in the cells whose games can use the card, when the game declares
``Targets.uses_card``; the others are the unedited game's, read from the memo) — and **raced**: a
first stage of ``games`` games per cell, then ``factor`` times more only while the candidate's 50 %
intervals could still beat the best distance found so far and its distance is among the best
``1/factor`` at its stage (asynchronous successive halving; the baseline
is always played to the last stage first).  Games are played through the runner's
:func:`~workbench.core.runner.execute`, so ``workers`` and ``backend="dask"`` work as for ``simulate``
and give the same counts.  ``should_stop()`` (the studio's Stop) or Ctrl-C ends the search keeping
every finished trial (the result says it was stopped; ``resume`` continues it).

**The budget bounds the whole run**: ``verify_share`` of it (the game's, 0.25 unless it says) is kept for the
held-out check and its re-tunes, the search plays the rest and never starts a stage it could not pay for
(a cell read from the memo costs nothing); the check sizes itself to what is left (:func:`verify_plan`:
fewer proposals, then fewer games a cell with the wider margin said, then the search tier left out), so
a run plays at most ``budget`` games.  :func:`run_size` gives the whole run's size before it runs.
``verify_share=0`` is the earlier reading: the budget is the search's, the held-out check on top.

**Verification**: the Pareto set (at most ``verify`` proposals) and the baseline are re-played on
held-out seeds — a master seed no search stage used; the game seeds of both are compared and must
be disjoint — with games per cell chosen so every targeted item has n for ±``margin`` at 50 %, at
every skill tier (``core/tiers.py``; default every declared tier, the search tier included: there the
unchanged game and the best proposal replay ``slow_games`` a cell, a floor).  Each item's status at a
tier is inside or outside its band; a tier played on fewer games than the margin asks reads the 95 %
interval instead, and an item whose interval crosses a band's edge is *undecided* — the table says so
rather than count it either way.  A proposal holds only when every tier reads inside.  A tier's weight set tuned for
the shipped cards plays the edited cards with the same weights — or, with ``retune=N``, with weights
re-tuned for each proposal (``core/cardtable.py``'s :func:`~workbench.core.cardtable.retune_weights`:
N games from the set, on the proposal's cells, seeds asserted disjoint from the search's and the
held-out ones); the verification then names the weights each row played (``Targets.retune``: on by
default for the duel, Babel and Babylon — edited cards change best play; left out, and said, when the
re-tunes would crowd out the held-out games).  Each metric is shown before → after with its interval and
status, and each proposal gets a verdict: meets the target at every tier, only at some tiers (the others
outside, undecided or not replayed, named), only on the search seeds, or misses it.

**Output** (:class:`RebalanceResult`): polars frames of proposals and of the held-out measurements,
each proposal's card set saved as a CSV under ``<out>/proposals/`` (never over a shipped file), and
:func:`report_section` for a report.  The CLI is ``workbench rebalance`` (``workbench/cli/rebalance.py``).
"""

from __future__ import annotations

import fnmatch
import itertools
import json
import math
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from workbench.core.cardtable import (
    CardTable,
    Retune,
    card_table,
    changed_cells,
    check_retune,
    column_kinds,
    edited_cards,
    read_cards,
    retune_plan,
    retune_seed,
    retune_weights,
)
from workbench.core.errors import DataError, InputError, RunInterrupted
from workbench.core.model import AgentSpec, GameModel, card_set_hash, get_game, model_ref, shown_path
from workbench.core.refs import resolve_ref
from workbench.core.rng import stream_seed
from workbench.core.runner import drain, execute, plan_chunks
from workbench.core.seeding import game_seeds
from workbench.core.stats import games_for_margin, wilson
from workbench.core.store import write_atomic
from workbench.core.tiers import Tier

__all__ = ["Band", "Dim", "Metric", "RebalanceResult", "Targets", "add_report_section", "additive_table", "edit_space",
           "first_seat_metric", "full_command", "measure", "metric_counts", "parse_edit", "parse_target", "rebalance",
           "report_section", "run_size", "search_label", "searched_text", "targets_of", "verify_plan", "worst_tier"]

SEARCH_STREAM = 0x5EA2C4  # the search's master seed: this sub-stream of the rebalance seed
HOLDOUT_STREAM = 0x401D0  # the held-out master seed (verification): another sub-stream
SAMPLER_STREAM = 1 << 24  # trial t's sampler seed: sub-stream SAMPLER_STREAM + t
STUDY = "rebalance"
DB = "search.jsonl"  # the search's journal (Optuna's journal format: one JSON line per storage operation)
LEGACY_DB = "search.db"  # an earlier version's SQLite store: refused, never written beside
SETTINGS = "settings.json"
INFEASIBLE = 1e6  # the distance told for a candidate the game's loader refuses (two edits that clash)


# -- targets: what a game measures --------------------------------------------------------------------------
@dataclass(frozen=True)
class Metric:
    """A named balance rate: ``counts(frame)`` → one row per item with ``item``, ``n``, ``wins``, ``draws``.

    The score of an item is ``(wins + draws / 2) / n``.  Counts must be sums over the frame's rows
    (so counts of disjoint games add up: the search plays more games for a candidate and adds them).
    ``label(item)`` names an item for a reader (default: the item).
    """

    name: str
    title: str
    counts: Callable[[pl.DataFrame], pl.DataFrame]
    help: str = ""
    label: Callable[[str], str] | None = None

    def item_label(self, item: str) -> str:
        """How a reader sees the item."""
        return self.label(item) if self.label is not None else item


def score_counts(frame: pl.DataFrame, item: pl.Expr, won: pl.Expr, draw: pl.Expr | None = None) -> pl.DataFrame:
    """``item, n, wins, draws`` per item of ``frame`` (the building block of a :class:`Metric`)."""
    draw = pl.col("winner") == "draw" if draw is None else draw
    return (frame.group_by(item.cast(pl.String).alias("item"), maintain_order=True)
            .agg(pl.len().cast(pl.Int64).alias("n"), won.sum().cast(pl.Int64).alias("wins"),
                 draw.sum().cast(pl.Int64).alias("draws")))


def first_seat_metric(by: str | None = None, name: str = "first_seat", title: str = "First seat's score",
                      label: Callable[[str], str] | None = None) -> Metric:
    """The first seat's balance score (every game where a seat moves first), pooled or per value of ``by``."""

    def counts(frame: pl.DataFrame) -> pl.DataFrame:
        moved = frame.filter(pl.col("first_seat").is_not_null())
        item = pl.col(by) if by else pl.lit("all games")
        return score_counts(moved, item, pl.col("winner") == pl.col("first_seat"))

    what = f" per {by.replace('_', ' ')}" if by else ""
    return Metric(name, title, counts, f"the seat that moves first: its wins and half its draws{what}", label)


@dataclass(frozen=True)
class Targets:
    """A game's rebalancing declaration (``targets = "module:NAME"`` on its model).

    Attributes:
        metrics: the metrics a target may name (a game's own; core adds ``first_seat`` when missing).
        cells: the parameter cells every candidate plays (common seeds in each; e.g. every deck pairing).
        params: fixed parameters of every cell (the base a parameter edit starts from).
        target: the default target, e.g. ``"first_seat=49..51"``.
        edit: the default edit spec (``""``: every whole-number editable card column, ±1).
        cards: the default card patterns (``"*"``: every card).
        aliases: spec words that stand for several columns, e.g. ``{"cost": ("power_cost", "tp_cost")}``.
        games: games per cell of the search's first stage.
        max_edits: most edits a candidate holds (the sparse search's slots).
        stages: racing stages (each ``factor`` times the games of the one before).
        margin: the held-out check's games give every targeted item ± this at 50 % (0.01: ±1 point).
        budget: the games a full search may play (the command's default for this game).
        search_tiers: the search plays every verification tier, each tier's items kept apart (``"3/5 ·
            greedy@tuned"``), so the proposal it picks holds at every tier and not at the first alone; it plays
            that many times the games.  For a game whose tiers disagree by a good part of the band (the duel,
            Babel).  A metric's items (raw keys) must then not contain ``" · "``.
        uses_card: ``uses_card(cell_params, card_key)``: whether a cell's games can ever use the card (None: every
            cell may use every card).  A card edit is then played only in the cells that use the card; every other
            cell is the unedited game's, read from the cells' memo at no cost (Babylon: a card outside both decks
            of a pairing).  Declare it only where an unused card's values change nothing in a cell's games, and
            show that with a test of frames (``tests/games/babylon/test_babylon_targets.py``).
        verify_share: the fraction of a run's budget kept for the held-out check (the search plays the rest).
        retune: games each re-tune of a weighted tier's set for a verified proposal plays (0: the sets as shipped).
        slow_games: held-out games a cell at a search tier (an agent that searches at every decision: a Babylon
            game there takes ~6 s on one core, ~1,700 greedy games): a floor, so its status may read undecided.
    """

    metrics: tuple[Metric, ...] = ()
    cells: tuple[dict[str, Any], ...] = ({},)
    params: dict[str, Any] = field(default_factory=dict)
    target: str = "first_seat=49..51"
    edit: str = ""
    cards: str = "*"
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    games: int = 64
    max_edits: int = 6
    stages: int = 3
    margin: float = 0.01
    budget: int = 100_000
    search_tiers: bool = False
    uses_card: Callable[[dict[str, Any], str], bool] | None = None
    verify_share: float = 0.25
    retune: int = 0
    slow_games: int = 4

    def all_metrics(self) -> dict[str, Metric]:
        """The metrics by name, core's ``first_seat`` added when the game declares none of that name."""
        found = {m.name: m for m in self.metrics}
        found.setdefault("first_seat", first_seat_metric())
        return found


def targets_of(game: str | GameModel) -> Targets:
    """The game's declared :class:`Targets`, or core's generic one (the first seat, one cell)."""
    model = get_game(game)
    declared = resolve_ref(getattr(model, "targets", None))
    if declared is None:
        return Targets()
    if not isinstance(declared, Targets):
        raise InputError(f"{model.name}.targets must be a Targets (workbench.core.rebalance), "
                         f"got {type(declared).__name__}")
    return declared


def _title_of(game: str) -> str:
    """The game's title for a person (its name when it is not registered in this process)."""
    try:
        return get_game(game).title
    except InputError:
        return game


@dataclass(frozen=True)
class Band:
    """A target band of one metric: every item's score must lie in ``[low, high]`` (fractions)."""

    metric: str
    low: float
    high: float

    def text(self, title: str | None = None) -> str:
        """``first_seat 49–51 %`` (with ``title``: the metric as a person reads it, ``First seat's score 49–51 %``)."""
        return f"{title or self.metric} {_pct(self.low)}–{_pct(self.high)} %"


def _pct(x: float) -> str:
    return f"{100 * x:.2f}".rstrip("0").rstrip(".")


_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)"
_BAND = re.compile(rf"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*({_NUMBER})\s*\.\.\s*({_NUMBER})\s*%?\s*$")


def parse_target(text: str, targets: Targets) -> tuple[Band, ...]:
    """Bands from ``"deck_vs_field=48..52, first_seat=48.5..51.5"`` (percent); one :class:`InputError` per mistake."""
    known = targets.all_metrics()
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"give a target, e.g. 'first_seat=49..51'; metrics: {', '.join(known)}")
    bands: list[Band] = []
    for part in (p for p in text.split(",")):
        found = _BAND.match(part)
        if not found:
            raise InputError(f"target {part.strip()!r} is not METRIC=LOW..HIGH in percent (e.g. first_seat=49..51); "
                             f"metrics: {', '.join(known)}")
        name, low, high = found[1], float(found[2]), float(found[3])
        if name not in known:
            raise InputError(f"target {part.strip()!r}: unknown metric {name!r}; metrics: {', '.join(known)}")
        if not (0 <= low <= 100 and 0 <= high <= 100):
            raise InputError(f"target {part.strip()!r}: a band is in percent, within 0..100")
        if low > high:
            raise InputError(f"target {part.strip()!r}: the band is reversed; write the low end first "
                             f"({name}={found[3]}..{found[2]})")
        if low == high:
            raise InputError(f"target {part.strip()!r}: the band is empty; give a width, e.g. {name}={low - 1:g}.."
                             f"{high + 1:g}")
        if any(b.metric == name for b in bands):
            raise InputError(f"target {text.strip()!r}: metric {name!r} is given twice; give each metric one band")
        bands.append(Band(name, low / 100, high / 100))
    return tuple(bands)


# -- the edit space ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Dim:
    """One editable value: a card's column or a parameter (optionally in the cells where ``scope`` holds).

    ``deltas`` are the allowed non-zero whole-number steps from ``base`` (each checked by the game).
    """

    kind: str  # "card" or "param"
    key: str  # the card's key, or the parameter's name
    column: str  # the card column, or the parameter's name again
    base: int
    deltas: tuple[int, ...]
    scope: tuple[tuple[str, Any], ...] = ()  # a parameter edited only in the cells with these values
    title: str = ""  # display name of the card, or of the scope value

    @property
    def label(self) -> str:
        """A stable machine label: ``F9.power_cost``, ``second_bonus_wall@battlefield=crystal_garden``."""
        if self.kind == "card":
            return f"{self.key}.{self.column}"
        return self.column + "".join(f"@{k}={v}" for k, v in self.scope)

    def describe(self, delta: int) -> str:
        """``Fireball (F9): power cost 3 → 2`` — the edit as a reader reads it."""
        what = self.column.replace("_", " ")
        if self.kind == "card":
            return f"{self.title or self.key} ({self.key}): {what} {self.base} → {self.base + delta}"
        where = f" on {self.title}" if self.title else ""
        return f"{what[:1].upper()}{what[1:]}{where}: {self.base} → {self.base + delta}"


_EDIT = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([+-]?\d+)\s*\.\.\s*([+-]?\d+)\s*"
                   r"(?:@\s*([A-Za-z_][A-Za-z0-9_]*))?\s*$")


def parse_edit(text: str) -> list[tuple[str, int, int, str | None]]:
    """``"cost:-1..+1, might:-1..+1"`` → ``[(word, low, high, per)]`` (``per``: ``@battlefield``); shape only."""
    if not isinstance(text, str) or not text.strip():
        raise InputError("give an edit spec, e.g. 'cost:-1..+1, might:-1..+1' (COLUMN:LOW..HIGH, whole steps)")
    out = []
    for part in text.split(","):
        found = _EDIT.match(part)
        if not found:
            raise InputError(f"edit {part.strip()!r} is not COLUMN:LOW..HIGH with whole numbers (e.g. cost:-1..+1, "
                             "or second_bonus_wall:0..+8@battlefield for one parameter per battlefield)")
        word, low, high, per = found[1], int(found[2]), int(found[3]), found[4]
        if low > high:
            raise InputError(f"edit {part.strip()!r}: the range is reversed; write the low end first ({word}:"
                             f"{high}..{low:+d})")
        if not low <= 0 <= high or low == high:
            raise InputError(f"edit {part.strip()!r}: a range of steps must hold 0 (no edit) and one step more, "
                             f"e.g. {word}:-1..+1 or {word}:0..+3")
        if any(o[0] == word and o[3] == per for o in out):
            raise InputError(f"edit {text.strip()!r}: {word!r} is given twice")
        out.append((word, low, high, per))
    return out


def _default_edit(model: GameModel, targets: Targets, table: CardTable | None) -> str:
    if targets.edit:
        return targets.edit
    if table is None:
        raise InputError(f"{model.name} declares no card table and no default edit: give --edit, e.g. "
                         "PARAM:-1..+1 over a whole-number parameter")
    kinds = column_kinds(read_cards(table), table.editable)
    columns = [c for c in table.editable if kinds[c] is int]
    if not columns:
        raise InputError(f"{model.name}: no whole-number column of the card table to edit")
    return ", ".join(f"{c}:-1..+1" for c in columns)


def edit_space(game: str | GameModel, edit: str | None = None, cards: str | None = None,
               targets: Targets | None = None) -> tuple[Dim, ...]:
    """The edit space of ``edit`` over the cards matching ``cards`` (comma-separated globs over card keys).

    A spec word is a whole-number editable column of the card table, an alias the game declares, or
    a whole-number parameter (``@P`` after it: one per value of ``P`` among the cells).  Each step's
    value is checked: a card value by the game's loader, a parameter by its declared range; values
    refused are left out.  An empty space is an :class:`InputError`.
    """
    model = get_game(game)
    targets = targets or targets_of(model)
    table = card_table(model)
    spec = parse_edit(edit if edit is not None and edit.strip() else _default_edit(model, targets, table))
    rows = read_cards(table) if table is not None else None
    dims: list[Dim] = []
    for word, low, high, per in spec:
        columns = _columns(model, targets, table, rows, word)
        if columns is not None:
            if per:
                raise InputError(f"edit {word}@{per}: '@' is for parameters; a card column is edited once per card")
            dims += _card_dims(table, rows, columns, cards if cards is not None else targets.cards, low, high)
        else:
            dims += _param_dims(model, targets, word, low, high, per)
    if not dims:
        raise InputError(f"the edit space is empty: no value of {edit or 'the default edit'} over cards "
                         f"{cards or targets.cards!r} can change within the game's allowed values; widen the ranges "
                         "or the cards")
    labels = [d.label for d in dims]
    if len(set(labels)) != len(labels):
        doubled = sorted({x for x in labels if labels.count(x) > 1})
        raise InputError(f"the edit space names {doubled[0]} twice; give each column once")
    return tuple(dims)


def _columns(model: GameModel, targets: Targets, table: CardTable | None, rows: pl.DataFrame | None,
             word: str) -> tuple[str, ...] | None:
    """The card columns a spec word stands for, or None when it is a parameter (refused when neither)."""
    params = {p.name: p for p in model.params}
    if table is not None and rows is not None and (word in table.editable or word in targets.aliases):
        columns = targets.aliases.get(word, (word,))
        kinds = column_kinds(rows, list(columns))
        bad = [c for c in columns if kinds[c] is not int]
        if bad:
            raise InputError(f"edit {word}: column {bad[0]!r} does not hold whole numbers; whole-number columns: "
                             f"{', '.join(_int_columns(table, rows))}")
        return tuple(columns)
    if word in params and params[word].kind is int:
        return None
    allowed = ([*_int_columns(table, rows), *targets.aliases] if table is not None and rows is not None else [])
    allowed += [p.name for p in model.params if p.kind is int]
    raise InputError(f"edit {word!r}: not an editable whole-number column or parameter of {model.name}; allowed: "
                     f"{', '.join(allowed) or 'none'}")


def _int_columns(table: CardTable, rows: pl.DataFrame) -> list[str]:
    kinds = column_kinds(rows, table.editable)
    return [c for c in table.editable if kinds[c] is int]


def _card_dims(table: CardTable, rows: pl.DataFrame, columns: tuple[str, ...], patterns: str, low: int,
               high: int) -> list[Dim]:
    keys = rows[table.row_key].to_list()
    wanted = [p.strip() for p in (patterns or "*").split(",") if p.strip()]
    if not wanted:
        raise InputError("--cards is empty; give card keys or patterns, e.g. 'F*,S*' or '*'")
    chosen: list[str] = []
    for pattern in wanted:
        hit = [k for k in keys if fnmatch.fnmatchcase(k, pattern)]
        if not hit:
            raise InputError(f"--cards {pattern!r} matches no card; keys: {', '.join(keys[:12])}"
                             f"{', …' if len(keys) > 12 else ''}")
        chosen += [k for k in hit if k not in chosen]
    names = next((c for c in table.shown if "name" in c), None)
    dims = []
    for row in rows.filter(pl.col(table.row_key).is_in(chosen)).iter_rows(named=True):
        for column in columns:
            cell = row[column].strip()
            if not cell:
                continue  # a blank cell (a Command's health): nothing to edit
            base = int(cell)
            deltas = tuple(d for d in range(low, high + 1) if d and _card_value_ok(table, row[table.row_key],
                                                                                     column, base + d))
            if deltas:
                dims.append(Dim("card", row[table.row_key], column, base, deltas,
                                title=row[names] if names else ""))
    return dims


def _card_value_ok(table: CardTable, key: str, column: str, value: int) -> bool:
    """The game's loader accepts the card with this one value (a copy in the edit cache; the shipped file untouched)."""
    if value < 0:
        return False  # no card table counts below zero; spares a file
    try:
        edited_cards(table, {key: {column: str(value)}}, namespace="rebalance-probe")
    except DataError:
        return False
    return True


def _param_dims(model: GameModel, targets: Targets, name: str, low: int, high: int, per: str | None) -> list[Dim]:
    param = model.param(name)
    scopes: list[tuple[tuple[str, Any], ...]] = [()]
    if per:
        values = list(dict.fromkeys(c.get(per, targets.params.get(per)) for c in targets.cells))
        if per not in {p.name for p in model.params} or len(values) < 2:
            varied = sorted({k for c in targets.cells for k in c})
            raise InputError(f"edit {name}@{per}: {per!r} does not vary over the cells played; cell parameters: "
                             f"{', '.join(varied) or 'none (one cell)'}")
        scopes = [((per, v),) for v in values]
    dims = []
    for scope in scopes:
        cell = next((c for c in targets.cells if all(c.get(k, targets.params.get(k)) == v for k, v in scope)), {})
        base = {**targets.params, **cell}.get(name, param.default)
        if base is None:
            raise InputError(f"edit {name}: the parameter has no value to step from (none means 'from the game's "
                             f"data'); set it in the game's targets params")
        deltas = []
        for d in range(low, high + 1):
            try:
                if d:
                    param.validate(int(base) + d)
                    deltas.append(d)
            except InputError:
                pass
        if deltas:
            # a named value reads alone ("Crystal Garden", "3/5"); a bare number with its parameter ("edge 2")
            title = ", ".join(model.choice_label(k, v) if model.param(k).choices or not isinstance(v, int)
                              else f"{k.replace('_', ' ')} {v}" for k, v in scope)
            dims.append(Dim("param", name, name, int(base), tuple(deltas), scope, title))
    return dims


# -- candidates: a few (dimension, step) pairs ----------------------------------------------------------------
Candidate = tuple[tuple[int, int], ...]  # ((dim index, delta), ...) sorted by dim, no zero delta


def _canonical(pairs: Sequence[tuple[int, int]], dims: Sequence[Dim]) -> Candidate:
    total: dict[int, int] = {}
    for i, d in pairs:
        total[i] = total.get(i, 0) + d
    out = []
    for i in sorted(total):
        d = _nearest(total[i], dims[i].deltas)
        if d:
            out.append((i, d))
    return tuple(out)


def _nearest(d: int, allowed: tuple[int, ...]) -> int:
    """The allowed step closest to ``d`` on its side of 0 (0 when none): clipping keeps an edit's direction."""
    if d == 0:
        return 0
    side = [a for a in allowed if (a > 0) == (d > 0)]
    if not side:
        return 0
    return min(side, key=lambda a: (abs(a - d), abs(a)))


def _suggest(trial: Any, dims: Sequence[Dim], slots: int | None) -> Candidate:
    """The candidate a trial proposes: dense (one step per dimension) or ``slots`` sparse edits."""
    if slots is None:
        return _canonical([(i, trial.suggest_int(f"d{i}", min(0, *d.deltas), max(0, *d.deltas)))
                           for i, d in enumerate(dims)], dims)
    reach = max(abs(x) for d in dims for x in d.deltas)
    pairs = []
    for s in range(slots):
        which = trial.suggest_int(f"s{s}", 0, len(dims))  # 0: the slot holds no edit
        step = trial.suggest_int(f"v{s}", -reach, reach)
        if which:
            pairs.append((which - 1, step))
    return _canonical(pairs, dims)


def _zero_params(dims: Sequence[Dim], slots: int | None) -> dict[str, int]:
    if slots is None:
        return {f"d{i}": 0 for i in range(len(dims))}
    return {k: 0 for s in range(slots) for k in (f"s{s}", f"v{s}")}


def _next_fixed(race: _Race, dims: Sequence[Dim], slots: int | None, last: int, screen: bool,
                groups: list[_Group] | None = None,
                additive: Callable[[], tuple[Candidate, int] | None] | None = None
                ) -> tuple[Candidate, int | None] | None:
    """The next candidate the search plays without asking the sampler and the stage to play it to, or None.

    First the baseline; then, with ``screen``, every single edit in the edit space's order — or, in a
    separable space (``groups``), the part-by-part screen: every combination of each part's steps at the
    first stage, then successive halving within each part (the better half by the part's own distance
    goes on to the next stage, stage by stage, every part in turn), then the composition of each part's
    best (:func:`_compose`); then, after the single edits, the ``additive`` model's combinations
    (:func:`_additive_step`); then the forward combination of the best single edits and the best
    candidate's one-step neighbours (:func:`_local_steps`).  The first one not played yet is next;
    None: NSGA-II proposes.
    """
    if () not in race.cache:
        return (), None
    if screen and groups:
        for stage in range(last + 1):
            for g, group in enumerate(groups):
                for option in _alive(race, g, _options(group, dims), stage):
                    # an option the game refused is in the race at stage -1: never proposed again
                    if (option not in race.cache) if stage == 0 else (race.cache[option][0] < stage):
                        return option, stage
        composed = _compose(race, groups, dims, last)
        if composed not in race.cache:
            return composed, None
    elif screen:
        for i, dim in enumerate(dims):
            for d in dim.deltas:
                if ((i, d),) not in race.cache:
                    return ((i, d),), None
        step = additive() if additive is not None else None
        if step is not None:
            return step
    steps = _local_steps(race, dims, slots, last)
    return (steps[0], None) if steps else None


GROUP_KEEP = 2  # the part-by-part screen keeps the better 1/GROUP_KEEP of a part's options at every stage


def _screen_trials(groups: list[_Group], dims: Sequence[Dim], stages: int) -> int:
    """How many trials the part-by-part screen plays: every option once, then each stage's better half again."""
    total = 0
    for group in groups:
        alive = len(_options(group, dims))
        for _ in range(stages):
            total += alive
            alive = max(1, math.ceil(alive / GROUP_KEEP))
    return total + 1  # and the composition


def _alive(race: _Race, group: int, options: list[Candidate], stage: int) -> list[Candidate]:
    """The part's options played at ``stage``: all at the first, then the better half of those at the stage before.

    Ranked by the part's robust distance at that stage (how far its items' 95 % intervals reach outside their
    bands: an option whose score only scrapes inside on these seeds does not hold on fresh ones), then fewer
    edits, then how far its items lie from their bands' centres, then smaller edits; an option the game
    refused (never played) drops out.
    """
    alive = options
    for s in range(stage):
        ranked = sorted((race.group_trace[(group, c)][s][1], len(c), race.group_trace[(group, c)][s][2],
                         sum(abs(d) for _, d in c), c) for c in alive if s in race.group_trace.get((group, c), {}))
        alive = [r[-1] for r in ranked[:max(1, math.ceil(len(ranked) / GROUP_KEEP))]]
    return alive


def _params_of(candidate: Candidate, dims: Sequence[Dim], slots: int | None) -> dict[str, int]:
    """The trial parameters that propose ``candidate`` (slots in the candidate's order)."""
    params = _zero_params(dims, slots)
    for k, (i, d) in enumerate(candidate):
        params.update({f"d{i}": d} if slots is None else {f"s{k}": i + 1, f"v{k}": d})
    return params


def _local_steps(race: _Race, dims: Sequence[Dim], slots: int | None, last: int, top: int = 8) -> list[Candidate]:
    """The unplayed one-step neighbours of the best candidate at the last stage (a local search beside NSGA-II).

    A neighbour moves one edit a step (or drops it), or adds one: any dimension's first step when the
    space is small, else one of the ``top`` best single edits.
    """
    full = [(v[2], len(c), sum(abs(d) for _, d in c), c) for c, v in race.cache.items()
            if v[0] == last and v[2] < INFEASIBLE]
    if not full or min(full)[0] == 0 and min(full)[1] <= 1:
        return []
    best = min(full)[3]
    edits = dict(best)
    found = _forward(race, dims, slots)
    for i, d in best:
        for step in (d - 1, d + 1):
            if step == 0 or step in dims[i].deltas:
                found.append(_canonical([(j, e) for j, e in best if j != i] + ([(i, step)] if step else []), dims))
    if slots is None or len(best) < slots:
        if slots is None:
            adds = [(i, d) for i, dim in enumerate(dims) if i not in edits
                    for d in (max((x for x in dim.deltas if x < 0), default=0),
                              min((x for x in dim.deltas if x > 0), default=0)) if d]
        else:
            singles = sorted((v[2], c) for c, v in race.cache.items() if len(c) == 1 and v[2] < INFEASIBLE)
            adds = [c[0] for _, c in singles if c[0][0] not in edits][:top]
        found += [_canonical([*best, add], dims) for add in adds]
    return [c for c in dict.fromkeys(found) if c not in race.cache and (slots is None or len(c) <= slots)]


def _forward(race: _Race, dims: Sequence[Dim], slots: int | None) -> list[Candidate]:
    """Forward selection from the screen: the best single edits that beat the baseline, one per value, cumulated.

    Single edits are compared with the baseline at the first stage (the baseline's first distance is
    that stage's first record); ``[e1, e2]``, ``[e1, e2, e3]``, … up to the most edits a candidate holds.
    """
    if not race.rungs.get(0):
        return []
    first = race.rungs[0][0]
    singles = sorted((v[2], c) for c, v in race.cache.items() if len(c) == 1 and v[2] < first)
    chain: list[tuple[int, int]] = []
    for _, ((i, d),) in singles:
        if i not in dict(chain) and len(chain) < (slots or len(dims)):
            chain.append((i, d))
    return [_canonical(chain[:k], dims) for k in range(2, len(chain) + 1)]


# -- the additive model: every single edit's measured effect, combined exactly ---------------------------------
ADDITIVE_TOP = 12  # the additive model's best combinations the search plays to the last stage
ADDITIVE_LOCAL = 12  # then, each round, its best changes around the best candidate measured (those not played yet)
ADDITIVE_REFINE = 64  # most single edits read at the last stage before the model stops firming up its effects
ADDITIVE_SECONDS = 600.0  # HiGHS's time limit per solve: a safety only (a limit reached makes the result machine-bound)
WORST_TIE = 1e-4  # at every tier, the weight of the distance summed over every item beside the worst tier's
EDIT_PENALTY = 1e-3  # points the model charges per edit step: of two combinations equally close, the smaller


@dataclass(frozen=True)
class _Additive:
    """The additive model of a sparse search: each screened single edit's effect on every targeted item.

    ``effect[e, i]`` is single edit ``edits[e]``'s score minus the baseline's on item ``items[i]``, both read
    on the same search games (the edit's stage ``stage[e]``; common random numbers), in points; ``se`` its
    standard error (unpaired, so an over-estimate).  A combination is predicted at the baseline's last-stage
    scores plus its edits' effects; :func:`_solve_additive` finds the combinations of at most ``slots`` edits
    that the model puts closest to the bands, exactly (a mixed-integer program over every combination).
    """

    items: tuple[tuple[str, str], ...]
    base: np.ndarray  # per item, the baseline's score at the last stage, points
    low: np.ndarray  # per item, the band, points
    high: np.ndarray
    edits: tuple[Candidate, ...]
    effect: np.ndarray  # edits × items, points
    se: np.ndarray  # edits × items, points
    stage: np.ndarray  # per edit, the stage its effect is read at
    solutions: tuple[tuple[Candidate, float], ...] = ()  # best first: (combination, predicted distance in points)
    optimal: bool = False  # the solver proved the first solution optimal


def _memo_cell(ctx: _Context, agent: SearchAgent, master: int, start: int, stop: int,
               resolved: dict[str, Any]) -> Counts | None:
    """One cell's counts of games ``start..stop-1`` at every tier the search plays, from the memo (None: not kept)."""
    total: Counts = {}
    for label, spec in ([("", agent)] if isinstance(agent, str) else agent):
        found = ctx.memo.get(_cell_key(spec, master, start, stop, resolved))
        if found is None:
            return None
        total = _add(total, _tiered(found, label) if label else found)
    return total


def _baseline_counts(ctx: _Context, agent: SearchAgent, master: int, plan: list[int], stage: int) -> Counts | None:
    """The unedited game's counts over the search games of stages ``0..stage``, from the memo (None: not kept)."""
    total: Counts = {}
    for params in ctx.cells(()):
        resolved = ctx.model.resolve_params(params)
        for k in range(stage + 1):
            found = _memo_cell(ctx, agent, master, plan[k - 1] if k else 0, plan[k], resolved)
            if found is None:
                return None
            total = _add(total, found)
    return total


def _scores(counts: Counts, items: Sequence[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray]:
    """Per item, the score (a draw counts half) and n."""
    rows = np.array([counts.get(m, {}).get(i, [0, 0, 0]) for m, i in items], dtype=float).reshape(-1, 3)
    n = rows[:, 0]
    return (rows[:, 1] + rows[:, 2] / 2) / np.maximum(n, 1), n


def _additive_model(ctx: _Context, race: _Race, agent: SearchAgent, master: int, plan: list[int]) -> _Additive | None:
    """The additive model from the single edits played so far (None before the baseline's last stage)."""
    last = len(plan) - 1
    if race.cache.get((), (-1,))[0] != last:
        return None
    items = tuple((b.metric, i) for b in ctx.bands for i in sorted(race.cache[()][1].get(b.metric, {})))
    if not items:
        return None
    band = {b.metric: b for b in ctx.bands}
    base, _ = _scores(race.cache[()][1], items)
    baselines: dict[int, tuple[np.ndarray, np.ndarray] | None] = {}
    edits, effect, se, stages = [], [], [], []
    for candidate, (stage, counts, distance) in sorted(race.cache.items()):
        if len(candidate) != 1 or stage < 0 or distance >= INFEASIBLE:
            continue
        if stage not in baselines:
            found = _baseline_counts(ctx, agent, master, plan, stage)
            baselines[stage] = None if found is None else _scores(found, items)
        if baselines[stage] is None:
            continue
        (b, nb), (x, nx) = baselines[stage], _scores(counts, items)
        edits.append(candidate)
        effect.append(100 * (x - b))
        se.append(100 * np.sqrt(b * (1 - b) / np.maximum(nb, 1) + x * (1 - x) / np.maximum(nx, 1)))
        stages.append(stage)
    shape = (len(edits), len(items))
    return _Additive(items, 100 * base, np.array([100 * band[m].low for m, _ in items]),
                     np.array([100 * band[m].high for m, _ in items]), tuple(edits),
                     np.array(effect, dtype=float).reshape(shape), np.array(se, dtype=float).reshape(shape),
                     np.array(stages, dtype=int))


def _solve_additive(model: _Additive, slots: int, top: int, slack: float = 0.0, anchor: Candidate = (),
                    anchor_scores: np.ndarray | None = None) -> tuple[list[tuple[Candidate, float]], bool]:
    """The ``top`` combinations of at most ``slots`` single edits (one step per value) the model puts nearest the bands.

    A mixed-integer program (SciPy's ``milp``, HiGHS): a 0/1 choice per single edit, a distance per item
    (above the band's low end minus the predicted score, and the predicted score minus the high end), at
    most ``slots`` choices and one step per value; minimise the summed distance (items read at several tiers: the
    worst tier's sum, :func:`worst_tier`) plus ``EDIT_PENALTY`` per
    edit step.  Each next solution excludes exactly the ones found before.  With ``slack`` every effect
    may move by ``slack`` standard errors in whichever direction helps each side of a band: the optimistic
    model, whose optimum no combination's predicted distance can beat.

    With an ``anchor`` (a combination measured on every search game, its item scores ``anchor_scores`` in
    points) the model predicts from the anchor's measured scores instead of the baseline's: a choice either
    drops one of the anchor's edits (minus its effect) or adds a single edit of another value, at least one
    choice, the result at most ``slots`` edits.  What the anchor's edits do together is then measured, not
    assumed: the model only adds up the changes.

    Returns the solutions (each with its predicted distance, the optimistic one with ``slack``) and
    whether the first was proven optimal.
    """
    from scipy.optimize import Bounds, LinearConstraint, milp

    index = {c[0]: e for e, c in enumerate(model.edits)}
    taken = {i for i, _ in anchor}
    drops = [p for p in anchor if p in index]  # an anchor edit never read alone stays
    adds = [e for e, ((i, _),) in enumerate(model.edits) if i not in taken]
    sign = np.array([-1.0] * len(drops) + [1.0] * len(adds))
    rows_of = [index[p] for p in drops] + adds
    n_e, n_i = len(rows_of), model.effect.shape[1]
    if n_e == 0:
        return [], True
    effect = model.effect[rows_of] * sign[:, None]
    base = model.base if not anchor else np.asarray(anchor_scores, dtype=float)
    up = effect + slack * model.se[rows_of]  # the effect as high as it may be
    down = effect - slack * model.se[rows_of]
    rows, lows, highs = [], [], []
    for i in range(n_i):
        unit = np.zeros(n_i)
        unit[i] = 1.0
        rows.append(np.concatenate([up[:, i], unit]))  # s_i + sum z·up ≥ low - base
        lows.append(model.low[i] - base[i])
        highs.append(np.inf)
        rows.append(np.concatenate([-down[:, i], unit]))  # s_i - sum z·down ≥ base - high
        lows.append(base[i] - model.high[i])
        highs.append(np.inf)
    rows.append(np.concatenate([sign, np.zeros(n_i)]))  # edits in the result: the anchor's, less drops, plus adds
    lows.append(1.0 - len(anchor) if anchor else 0.0)
    highs.append(float(slots - len(anchor)))
    if anchor:  # at least one change: the anchor itself is measured already
        rows.append(np.concatenate([np.ones(n_e), np.zeros(n_i)]))
        lows.append(1.0)
        highs.append(np.inf)
    dims: dict[int, list[int]] = {}
    for k, e in enumerate(rows_of[len(drops):], start=len(drops)):
        dims.setdefault(model.edits[e][0][0], []).append(k)
    for members in dims.values():
        if len(members) > 1:
            row = np.zeros(n_e + n_i)
            row[members] = 1.0
            rows.append(row)
            lows.append(0.0)
            highs.append(1.0)
    # at every tier (items "… · tier"), the objective is the worst tier's summed distance: one more variable w,
    # at least each tier's sum; the sum over every item stays in the cost at a small weight (a tie-breaker)
    tiers = [_tier_of(i) for _, i in model.items]
    groups = {t: [k for k, x in enumerate(tiers) if x == t] for t in dict.fromkeys(tiers)}
    extra = 1 if len(groups) > 1 else 0
    rows = [np.concatenate([r, np.zeros(extra)]) for r in rows]
    if extra:
        for members in groups.values():
            row = np.zeros(n_e + n_i + 1)
            row[n_e + np.array(members)] = -1.0
            row[-1] = 1.0
            rows.append(row)  # w - sum of the tier's distances ≥ 0
            lows.append(0.0)
            highs.append(np.inf)
    size = np.array([abs(model.edits[e][0][1]) for e in rows_of], dtype=float)
    cost = np.concatenate([EDIT_PENALTY * size * sign, np.full(n_i, WORST_TIE if extra else 1.0), np.ones(extra)])
    integrality = np.concatenate([np.ones(n_e), np.zeros(n_i + extra)])
    bounds = Bounds(np.zeros(n_e + n_i + extra), np.concatenate([np.ones(n_e), np.full(n_i + extra, np.inf)]))
    found: list[tuple[Candidate, float]] = []
    optimal = False
    for k in range(top):
        result = milp(cost, integrality=integrality, bounds=bounds,
                      constraints=LinearConstraint(np.array(rows), lows, highs),
                      options={"time_limit": ADDITIVE_SECONDS, "disp": False})
        if result.x is None:
            break
        if k == 0:
            optimal = result.status == 0
        chosen = [e for e in range(n_e) if result.x[e] > 0.5]
        dropped = {drops[e] for e in chosen if e < len(drops)}
        candidate = tuple(sorted([p for p in anchor if p not in dropped]
                                 + [model.edits[rows_of[e]][0] for e in chosen if e >= len(drops)]))
        if not candidate:
            break
        score = base + effect[chosen].sum(axis=0)
        outside = np.maximum(0.0, np.maximum(model.low - score, score - model.high)) if not slack else \
            result.x[n_e:n_e + n_i]
        predicted = max(float(outside[members].sum()) for members in groups.values())
        found.append((candidate, predicted))
        cut = np.zeros(n_e + n_i + extra)  # exclude exactly this choice: its choices all on and every other off
        cut[:n_e] = -1.0
        cut[chosen] = 1.0
        rows.append(cut)
        lows.append(-np.inf)
        highs.append(len(chosen) - 1.0)
    return found, optimal


def _additive_step(ctx: _Context, race: _Race, agent: SearchAgent, master: int, plan: list[int],
                   slots: int | None) -> tuple[Candidate, int] | None:
    """The additive model's next candidate, played to the last stage: a single edit to firm up, or a combination.

    The model's best combination is worked out from the single edits' effects; while it holds a single edit
    read before the last stage, that edit is played on first (its effect is then read on every search game)
    and the model is solved again (at most until ``ADDITIVE_REFINE`` single edits are read at the last
    stage).  Then the model's ``ADDITIVE_TOP`` best combinations are played, each not played yet in turn:
    their measured distances, not the model's, decide what is proposed.  Then rounds around the best
    candidate measured so far (the anchor): the model predicts from the anchor's measured scores, so what
    its edits do together is measured, not assumed, and its ``ADDITIVE_LOCAL`` best changes (drop an edit,
    add one, or both) are played; a better candidate starts the next round; a round with nothing new ends
    the model's part.  Decided from the finished trials alone, so a resumed search plays the same.
    """
    if slots is None or slots < 2 or ctx.additive_done:
        return None
    step = _additive_next(ctx, race, agent, master, plan, slots)
    # once the model has nothing left to play its part is over, though NSGA-II may later race a single edit
    # further (which would change the model): the trials record when it ended, so a resumed search knows
    ctx.additive_done = step is None
    return step


def _known_model(ctx: _Context, race: _Race, agent: SearchAgent, master: int, plan: list[int]) -> Any:
    """Work out ``ctx.additive`` afresh when the single edits or their stages changed; returns what it depends on."""
    key = tuple(sorted((c, v[0]) for c, v in race.cache.items() if len(c) <= 1))
    if ctx.additive_key != key:
        ctx.additive, ctx.additive_key = _additive_model(ctx, race, agent, master, plan), key
        ctx.additive_top = None
    return key


def _solved(ctx: _Context, slots: int) -> _Additive:
    """``ctx.additive`` with its ``ADDITIVE_TOP`` best combinations (solved once per model)."""
    if ctx.additive_top is None:
        solutions, optimal = _solve_additive(ctx.additive, slots, ADDITIVE_TOP)
        ctx.additive = replace(ctx.additive, solutions=tuple(solutions), optimal=optimal)
        ctx.additive_top = True
    return ctx.additive


def _additive_next(ctx: _Context, race: _Race, agent: SearchAgent, master: int, plan: list[int],
                   slots: int) -> tuple[Candidate, int] | None:
    last = len(plan) - 1
    key = _known_model(ctx, race, agent, master, plan)
    model = ctx.additive
    if model is None or not model.edits:
        return None
    stage_of = {c: int(s) for c, s in zip(model.edits, model.stage, strict=True)}
    if int((model.stage == last).sum()) < ADDITIVE_REFINE:
        best, _ = _solve_additive(model, slots, 1)
        for candidate, _ in best:
            for p in candidate:
                if stage_of[(p,)] < last:
                    return (p,), last
    model = _solved(ctx, slots)
    for candidate, _ in model.solutions:
        if candidate not in race.cache:
            return candidate, last
    # then around the best candidate measured on every search game: the model from its measured scores, each
    # round's ``ADDITIVE_LOCAL`` best changes played; a better one moves the anchor and starts the next round
    measured = sorted((v[2], len(c), sum(abs(d) for _, d in c), c) for c, v in race.cache.items()
                      if c and v[0] == last and v[2] < INFEASIBLE)
    if not measured or measured[0][0] == 0:
        return None
    anchor = measured[0][-1]
    if ctx.anchor_key != (key, anchor):
        scores, _ = _scores(race.cache[anchor][1], model.items)
        ctx.anchored = _solve_additive(model, slots, ADDITIVE_LOCAL, anchor=anchor, anchor_scores=100 * scores)[0]
        ctx.anchor_key = (key, anchor)
    for candidate, _ in ctx.anchored:
        if candidate not in race.cache:
            return candidate, last
    return None


def _combinations(model: _Additive, slots: int) -> int:
    """How many combinations of 1..``slots`` single edits the model ranks (one step per value)."""
    per = list(Counter(i for ((i, _),) in model.edits).values())
    ways = [1] + [0] * slots  # ways[k]: combinations of k edits over the values seen so far
    for n in per:
        for k in range(slots, 0, -1):
            ways[k] += ways[k - 1] * n
    return sum(ways[1:])


def _additive_evidence(ctx: _Context, race: _Race, agent: SearchAgent, master: int, plan: list[int],
                       slots: int) -> tuple[pl.DataFrame, str]:
    """The additive model at the search's end: its best combinations (predicted, measured) and a note in words.

    The note says what the search covered: how many single edits were read alone and on how many games,
    the model's best predicted distance over every combination of at most ``slots`` of them (proven
    optimal or not), the best measured distance of the combinations played, and the optimistic model's
    optimum (every effect at the favourable end of its 95 % interval), below which no combination's
    prediction can fall.
    """
    _known_model(ctx, race, agent, master, plan)  # the search's own model when no single edit moved since
    model = ctx.additive
    schema = {"rank": pl.Int64, "edits": pl.String, "n_edits": pl.Int64, "predicted": pl.Float64,
              "measured": pl.Float64, "stage": pl.Int64}
    if model is None or not model.edits:
        return pl.DataFrame(schema=schema), ""
    space = sum(len(d.deltas) for d in ctx.dims)
    if len(model.edits) < space:  # the model only combines a screen it has whole: a short search has no evidence
        return pl.DataFrame(schema=schema), (
            f"The search tried {len(model.edits):,} of the {space:,} single edits (one value moved one step) on its "
            "own, and no combination of them yet: a search with a larger budget tries every single edit, then "
            "works out from their effects which combinations to play.")
    last = len(plan) - 1
    model = _solved(ctx, slots)
    solutions, optimal = list(model.solutions), model.optimal
    bound, bound_optimal = _solve_additive(model, slots, 1, slack=1.96)
    rows = []
    for rank, (candidate, predicted) in enumerate(solutions, 1):
        stage, _, distance = race.cache.get(candidate, (-1, {}, math.nan))
        rows.append({"rank": rank, "edits": "; ".join(ctx.dims[i].describe(d) for i, d in candidate),
                     "n_edits": len(candidate), "predicted": predicted,
                     "measured": distance if stage == last and distance < INFEASIBLE else None, "stage": stage})
    frame = pl.DataFrame(rows, schema=schema)
    firm = int((model.stage == last).sum())
    per = len(ctx.targets.cells) * (1 if isinstance(agent, str) else len(agent))  # games per game index
    games = [plan[int(s)] * per for s in model.stage]
    note = (f"Additive model: each of the {space:,} single edits was played alone on the search games "
            f"({min(games):,} to {max(games):,} games each; {firm} of them on all {plan[-1] * per:,}) "
            f"and its effect on every targeted item read against the unedited game on the same games. Adding "
            f"effects, the best of all {_combinations(model, slots):,} combinations of at most {slots} of them is "
            f"predicted {solutions[0][1]:.2f} points outside" if solutions else "")
    if solutions:
        note += " (proven optimal by the solver)" if optimal else " (the solver's best; optimality not proven)"
        measured = frame.filter(pl.col("measured").is_not_null())
        if measured.height == 1:
            note += (f"; its best combination, played on every search game, measures "
                     f"{measured['measured'][0]:.2f} points outside")
        elif measured.height:
            note += (f"; the model's {measured.height} best combinations, played on every search game, measure "
                     f"{measured['measured'].min():.2f} to {measured['measured'].max():.2f} points outside")
        if bound and bound[0][1] > 0.005:
            note += (f". With every effect at the favourable end of its 95 % interval, no combination is predicted "
                     f"below {bound[0][1]:.2f} points" + ("" if bound_optimal else " (not proven)"))
        elif bound:
            note += (". With every effect at the favourable end of its 95 % interval the model cannot rule out a "
                     "combination inside every band: the single edits read on fewer games are too uncertain")
        note += "."
    return frame, note


def additive_table(result: RebalanceResult) -> pl.DataFrame:
    """The additive model's best combinations as a person reads them (empty when the search used no model)."""
    a = result.additive
    if a.height == 0:
        return pl.DataFrame()
    return a.select(pl.col("rank").alias("Rank"), pl.col("edits").alias("Edits"),
                    pl.col("predicted").round(2).alias("Predicted: points outside"),
                    pl.col("measured").round(2).alias("Measured on the search games: points outside"))


def _objectives(distance: float, candidate: Candidate) -> tuple[float, float, float]:
    return distance, float(len(candidate)), float(sum(abs(d) for _, d in candidate))


# -- playing a candidate --------------------------------------------------------------------------------------
@dataclass
class _Context:
    model: GameModel
    targets: Targets
    bands: tuple[Band, ...]
    dims: tuple[Dim, ...]
    table: CardTable | None
    workers: int
    backend: str
    scheduler: str | None
    should_stop: Callable[[], bool] | None
    progress: Callable[[int], None]
    # a cell's counts by what decides its games (agent, master seed, game indices, the cell's resolved parameters):
    # two candidates that play a cell with the same parameters play the same games, so it is played once
    memo: dict[str, Counts] = field(default_factory=dict)
    # the edit space's separate parts (:func:`_separable`), worked out once the baseline is played; None: not separable
    groups: list[_Group] | None = None
    groups_known: bool = False
    # the additive model (:func:`_additive_step`) and what it was worked out from (the single edits and their stages)
    additive: _Additive | None = None
    additive_key: Any = None
    additive_top: bool | None = None  # the model's best combinations are worked out (for this key)
    anchored: list[tuple[Candidate, float]] = field(default_factory=list)  # the model's changes around the best
    anchor_key: Any = None
    additive_done: bool = False  # the model's part of the search is over (recorded in every later trial)
    # told the games of a cell read from the memo (the verification's bar counts them; the search's counts games played)
    on_memo: Callable[[int], None] = field(default=lambda n: None)

    def cells(self, candidate: Candidate, *, one_card_set: bool = False) -> list[dict[str, Any]]:
        """Every cell's parameters with the candidate's edits (card edits as an edited table's path).

        A cell whose games use none of the edited cards plays the unedited cards (its games are the same, so the
        memo serves them); with ``one_card_set`` every cell plays the whole edited table instead, as a re-tune of
        a weight set needs (``core/tune.py`` tunes on one card set; the games of such a cell are still the same).
        """
        card_edits: dict[str, dict[str, str]] = {}
        for i, d in candidate:
            dim = self.dims[i]
            if dim.kind == "card":
                card_edits.setdefault(dim.key, {})[dim.column] = str(dim.base + d)
        out = []
        uses = self.targets.uses_card
        for cell in self.targets.cells:
            params = {**self.targets.params, **cell}
            for i, d in candidate:
                dim = self.dims[i]
                if dim.kind == "param" and all(params.get(k) == v for k, v in dim.scope):
                    params[dim.key] = dim.base + d
            # a cell whose games use none of the edited cards plays the unedited cards (the same games, memo hits)
            mine = card_edits if uses is None or one_card_set else {k: v for k, v in card_edits.items()
                                                                    if uses(params, k)}
            if mine and self.table is not None:
                params[self.table.param] = str(edited_cards(self.table, mine, namespace=f"{self.model.name}-rebalance"))
            out.append(params)
        return out


Counts = dict[str, dict[str, list[int]]]  # metric → item → [n, wins, draws]
# what the search plays: one agent spec, or (tier label, spec) of every tier (``Targets.search_tiers``)
SearchAgent = str | tuple[tuple[str, str], ...]
TIER_SEP = " · "  # an item read at one tier of a search at every tier: "3/5 · greedy@tuned"


def _tier_of(item: str) -> str:
    """The tier an item was read at in a search at every tier (``"3/5 · greedy@tuned"``: greedy@tuned), else ``""``."""
    _, sep, tier = item.rpartition(TIER_SEP)
    return tier if sep else ""


def worst_tier(table: pl.DataFrame, column: str = "distance") -> float:
    """The search's objective: per tier, ``column`` summed over that tier's items; the largest of those, in points.

    A search at one tier reads its sum over items.  At every tier, the worst tier decides: a proposal meets the
    target only when it meets it at every tier, so points won at one tier never buy points lost at another.
    """
    if table.height == 0:
        return 0.0
    sums: dict[str, float] = {}
    for item, value in zip(table["item"], table[column], strict=True):
        tier = _tier_of(item)
        sums[tier] = sums.get(tier, 0.0) + float(value)
    return max(sums.values())


def _tiered(counts: Counts, label: str) -> Counts:
    """``counts`` with each item named for the tier that played it."""
    return {m: {f"{item}{TIER_SEP}{label}": list(v) for item, v in items.items()} for m, items in counts.items()}


def _add(total: Counts, more: Counts) -> Counts:
    out = {m: {i: list(v) for i, v in items.items()} for m, items in total.items()}
    for metric, items in more.items():
        for item, (n, w, d) in items.items():
            row = out.setdefault(metric, {}).setdefault(item, [0, 0, 0])
            row[0] += n
            row[1] += w
            row[2] += d
    return out


def metric_counts(frame: pl.DataFrame, metrics: dict[str, Metric], names: Sequence[str]) -> Counts:
    """``{metric: {item: [n, wins, draws]}}`` of the metrics ``names`` over ``frame``'s games."""
    out: Counts = {}
    for name in names:
        for item, n, w, d in metrics[name].counts(frame).select("item", "n", "wins", "draws").iter_rows():
            out.setdefault(name, {})[str(item)] = [int(n), int(w), int(d)]
    return out


def _cell_key(agent: str, master: int, start: int, stop: int, resolved: dict[str, Any]) -> str:
    """What decides a cell's games: the agent, the master seed, the game indices and the resolved parameters."""
    return json.dumps([agent, master, start, stop, sorted((k, repr(v)) for k, v in resolved.items())])


def _stage_cost(ctx: _Context, candidate: Candidate, agent: SearchAgent, master: int, start: int, stop: int) -> int:
    """The games :func:`_play` would play for these game indices: every cell and tier not in the memo."""
    if not isinstance(agent, str):
        return sum(_stage_cost(ctx, candidate, spec, master, start, stop) for _, spec in agent)
    return sum(stop - start for params in ctx.cells(candidate)
               if _cell_key(agent, master, start, stop, ctx.model.resolve_params(params)) not in ctx.memo)


def _play(ctx: _Context, candidate: Candidate, agent: SearchAgent, master: int, start: int, stop: int,
          metric_names: Sequence[str]) -> tuple[Counts, int, dict[str, Counts]]:
    """Games ``start..stop-1`` of every cell on master seed ``master`` (common random numbers), as counts.

    Returns ``(counts, games played, the cells played here by their memo key)``.  A cell whose games were
    played before with the same parameters (another candidate that leaves it alone: the duel's edits are
    per battlefield) is read from ``ctx.memo`` and costs nothing; the counts are the same either way.  With
    every tier's agent (a search at every tier) each tier plays the same games and counts its own items.
    """
    if not isinstance(agent, str):
        total: Counts = {}
        played, new = 0, {}
        for label, spec in agent:
            counts, games, cells = _play(ctx, candidate, spec, master, start, stop, metric_names)
            total, played = _add(total, _tiered(counts, label)), played + games
            new.update(cells)
        return total, played, new
    model, metrics = ctx.model, ctx.targets.all_metrics()
    jobs, owner, keys = [], [], []
    total = {}
    cells = ctx.cells(candidate)
    # enough chunks to keep every worker busy, and no more: a chunk costs a kernel call and a frame, so with
    # at least two cells per worker each cell is one chunk (the same games either way: the seeds are per game)
    split = 1 if len(cells) >= 2 * ctx.workers else 2 * ctx.workers
    for params in cells:
        resolved = model.resolve_params(params)
        key = _cell_key(agent, master, start, stop, resolved)
        if key in ctx.memo:
            total = _add(total, ctx.memo[key])
            ctx.on_memo(stop - start)
            continue
        specs = model.resolve_agents(",".join([agent] * model.players(model.make_config(resolved))), resolved)
        engine = model.resolve_engine(None, specs, resolved)
        size = max(1, min(model.chunk_hint(engine), math.ceil((stop - start) / split)))
        for a, b in plan_chunks(stop - start, size, start):
            jobs.append((model_ref(model), resolved, tuple(map(str, specs)), master, a, b, engine))
            owner.append(len(keys))
        keys.append(key)
    fresh: list[Counts] = [{} for _ in keys]
    played = 0
    for i, frame in drain(execute(model, jobs, ctx.workers, ctx.backend, ctx.scheduler), len(jobs), ctx.should_stop):
        fresh[owner[i]] = _add(fresh[owner[i]], metric_counts(frame, metrics, metric_names))
        played += frame.height
        ctx.progress(frame.height)
    new = dict(zip(keys, fresh, strict=True))
    ctx.memo.update(new)
    for counts in fresh:
        total = _add(total, counts)
    return total, played, new


RACE_CONFIDENCE = 0.5  # racing reads a 50 % interval: a candidate goes on while it plausibly beats the best


def measure(counts: Counts, bands: Sequence[Band], metrics: dict[str, Metric],
            race_confidence: float = RACE_CONFIDENCE) -> pl.DataFrame:
    """Per targeted item: n, wins, draws, score with its 95 % Wilson interval, the band, inside?, distance (points).

    ``reach`` is the distance of the item's ``race_confidence`` interval from the band (0 when they
    overlap): the racing rule's optimistic distance.
    """
    rows = []
    for band in bands:
        for item, (n, w, d) in sorted(counts.get(band.metric, {}).items()):
            score = w + d / 2
            low, high = wilson(score, n) if n else (0.0, 1.0)
            near_low, near_high = wilson(score, n, race_confidence) if n else (0.0, 1.0)
            rate = score / n if n else float("nan")
            base, tiered, tier = item.rpartition(TIER_SEP)  # "3/5 · greedy@tuned": read at one tier
            if not tiered:  # an item the search read at one tier only: rpartition leaves it whole in ``tier``
                base, tier = item, ""
            title = metrics[band.metric].item_label(base) + (f", at {tier}" if tier else "")
            rows.append({"metric": band.metric, "metric_title": metrics[band.metric].title, "item": item,
                         "item_title": title, "n": n, "wins": w, "draws": d,
                         "score": rate, "score_low": low, "score_high": high, "band_low": band.low,
                         "band_high": band.high, "inside": bool(band.low <= rate <= band.high),
                         "distance": 100 * max(0.0, band.low - rate, rate - band.high),
                         "reach": 100 * max(0.0, band.low - near_high, near_low - band.high)})
    schema = {"metric": pl.String, "metric_title": pl.String, "item": pl.String, "item_title": pl.String,
              "n": pl.Int64, "wins": pl.Int64, "draws": pl.Int64, "score": pl.Float64, "score_low": pl.Float64,
              "score_high": pl.Float64, "band_low": pl.Float64, "band_high": pl.Float64, "inside": pl.Boolean,
              "distance": pl.Float64, "reach": pl.Float64}
    return pl.DataFrame(rows, schema=schema)


# -- the result -----------------------------------------------------------------------------------------------
@dataclass
class RebalanceResult:
    """A finished (or stopped) rebalance.

    ``proposals``: one row per proposal (edits in words, counts, search distance, per tier the held-out
    distance and whether every item is inside its band, ``holds`` at every tier, the verdict, the CSV);
    ``verification``: per proposal, tier and targeted item the score before → after with intervals;
    ``trials``: every search trial; ``baseline``: the unedited game on the search seeds.
    """

    game: str
    bands: tuple[Band, ...]
    dims: tuple[Dim, ...]
    proposals: pl.DataFrame
    verification: pl.DataFrame
    trials: pl.DataFrame
    baseline: pl.DataFrame
    tiers: tuple[str, ...]
    games_searched: int = 0
    games_verified: int = 0
    verify_games_per_cell: int = 0
    seconds: float = 0.0
    stopped: bool = False
    no_edits_needed: bool = False
    out: Path | None = None
    search_master: int = 0  # the search's master seed: game indices search_seed_range of it
    search_seed_range: tuple[int, int] = (0, 0)
    holdout_master: int = 0  # the held-out master seed: game indices holdout_seed_range of it
    holdout_seed_range: tuple[int, int] = (0, 0)
    files: list[Path] = field(default_factory=list)
    retune: int = 0  # games each re-tune of a tier's weight set for a proposal may play (0: none)
    retuned: dict[tuple[int, str], Retune] = field(default_factory=dict)  # (proposal, tier) → the re-tuned weights
    # the additive model's evidence (:func:`_additive_evidence`): its best combinations, predicted and measured
    additive: pl.DataFrame = field(default_factory=pl.DataFrame)
    additive_note: str = ""
    max_edits: int = 0  # most edits a candidate held
    budget: int = 0  # games the whole run might play (search, held-out check and re-tunes)
    verify_share: float = 0.0  # the budget's share kept for the held-out check (0: the check outside the budget)
    search_tiers: tuple[str, ...] = ()  # the tiers the search played (several: the worst one decides)
    tier_games: dict[str, int] = field(default_factory=dict)  # held-out games per cell at each tier (0: not played)
    tier_proposals: dict[str, int] = field(default_factory=dict)  # proposals replayed at each tier
    verify_margin: float = 0.0  # ± the held-out games give a targeted rate at 50 % at a fast tier (fraction)
    verify_note: str = ""  # what the held-out check could not afford, in words

    def retunes(self) -> pl.DataFrame:
        """Per proposal and tier whose weight set was re-tuned: the set, the weights played, seed, games, held out."""
        rows = [{"proposal": rank, "tier": tier, "agent": r.agent, "weights": r.spec, "seed": r.seed, "games": r.games,
                 "held_out_score": r.validation["score"] if r.validation else None,
                 "held_out_low": r.validation["low"] if r.validation else None,
                 "held_out_high": r.validation["high"] if r.validation else None,
                 "held_out_n": r.validation["n"] if r.validation else None}
                for (rank, tier), r in sorted(self.retuned.items())]
        schema = {"proposal": pl.Int64, "tier": pl.String, "agent": pl.String, "weights": pl.String, "seed": pl.UInt64,
                  "games": pl.Int64, "held_out_score": pl.Float64, "held_out_low": pl.Float64,
                  "held_out_high": pl.Float64, "held_out_n": pl.Int64}
        return pl.DataFrame(rows, schema=schema)

    def summary(self) -> str:
        """A line or two for a person: what was searched, what was found."""
        head = (f"{_title_of(self.game)}: {len(self.trials)} candidates searched over {len(self.dims)} editable "
                f"values, {self.games_searched:,} games; {self.games_verified:,} held-out games")
        if self.no_edits_needed:
            return head + "; the target is already met: no edits needed."
        if self.stopped:
            return head + "; stopped: the proposals below are what was found so far."
        good = self.proposals.filter(pl.col("holds")) if self.proposals.height else self.proposals
        if good.height:
            return head + f"; {good.height} proposal(s) meet the target at every tier."
        if self.proposals.height and "verdict" in self.proposals.columns:
            return head + (f"; no proposal meets the target at every tier. The best {self.proposals['verdict'][0]} "
                           "(every tier's distance below).")
        return head + "; no proposal meets the target at every tier (best distances below)."


# -- the search ---------------------------------------------------------------------------------------------
def _optuna() -> Any:
    try:
        import optuna
    except ImportError:  # pragma: no cover - depends on the environment
        raise InputError("rebalance needs Optuna: pip install optuna") from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna


def _settings(model: GameModel, bands: Sequence[Band], dims: Sequence[Dim], seed: int, games: int, stages: int,
              factor: int, slots: int | None, agent: SearchAgent, targets: Targets) -> dict[str, Any]:
    return {"game": model.name, "rules_version": model.rules_version,
            "bands": [[b.metric, b.low, b.high] for b in bands],
            "dims": [[d.label, d.base, list(d.deltas)] for d in dims], "seed": seed, "games": games, "stages": stages,
            "factor": factor, "slots": slots, "agent": agent if isinstance(agent, str) else [list(a) for a in agent],
            "cells": json.loads(json.dumps([{**targets.params, **c} for c in targets.cells], default=str))}


def _open_study(out: Path, settings: dict[str, Any], resume: bool, keep: bool = True) -> Any:
    optuna = _optuna()
    db, saved = out / DB, out / SETTINGS
    if not keep:  # a search nobody resumes (a report's): Optuna's in-memory storage, no database to write
        if resume:
            raise InputError("a search kept in memory cannot be resumed; keep it on disk to resume it")
        out.mkdir(parents=True, exist_ok=True)
        storage = optuna.storages.InMemoryStorage()
        return optuna.create_study(study_name=STUDY, storage=storage, directions=["minimize"] * 3), None
    if (out / LEGACY_DB).exists():
        raise InputError(f"{shown_path(out)} holds a search stored by an earlier version of the workbench "
                         f"({LEGACY_DB}), which this one cannot resume; give another --out")
    if db.exists() and not resume:
        raise InputError(f"{shown_path(out)} holds a rebalance search already; continue it with --resume, or give "
                         "another --out")
    if resume and not db.exists():
        raise InputError(f"{shown_path(out)} holds no search to resume (no {DB}); leave --resume out to start one")
    if db.exists():
        before = json.loads(saved.read_text(encoding="utf-8")) if saved.exists() else {}
        if before != settings:
            changed = sorted(k for k in settings if before.get(k) != settings[k])
            raise InputError(f"{shown_path(out)} holds a search with other settings ({', '.join(changed)} differ); "
                             "resume it with the same target, edits, cards, seed and games, or give another --out")
    out.mkdir(parents=True, exist_ok=True)
    journal = SearchJournal(db)  # refuses a folder another run is searching right now
    try:
        write_atomic(saved, lambda tmp: tmp.write_text(json.dumps(settings, indent=1), encoding="utf-8"))
        storage = optuna.storages.JournalStorage(journal)
        study = optuna.create_study(study_name=STUDY, storage=storage, load_if_exists=True,
                                    directions=["minimize"] * 3)
        for t in study.get_trials(deepcopy=False, states=[optuna.trial.TrialState.RUNNING]):
            storage.set_trial_state_values(t._trial_id, optuna.trial.TrialState.FAIL)  # a killed run's last trial
    except BaseException:
        journal.close()
        raise
    return study, journal


class SearchJournal:
    """A search's trials on disk, as Optuna's journal: one JSON line per storage operation, only ever appended.

    Optuna's journal storage keeps the study in memory and appends each change here, so the sampler's
    reads cost nothing; its SQLite storage queried the database on every read, which was most of a small
    search's time (the rebalance tests: 56 → 28 CPU s).  Like SQLite's write-ahead log at
    ``synchronous=NORMAL`` before it, a line is handed to the operating system as it is written (a
    killed run loses no finished trial) and synced to disk when the search closes.  A run killed in the
    middle of a line leaves it half-written: opening the journal again cuts that line off (it was never
    a finished operation).  The file is locked while a search holds it open, so a second run resuming
    the same folder at the same time is refused instead of interleaving its trials.

    It is the backend Optuna's ``JournalStorage`` reads and appends through (the two methods of
    ``optuna.storages.journal.BaseJournalBackend``), defined without importing Optuna.
    """

    def __init__(self, path: Path) -> None:
        import fcntl

        self.path = Path(path)
        self._file = open(self.path, "a+b")  # noqa: SIM115 - held open (and locked) until close()
        try:
            fcntl.flock(self._file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._file.close()
            raise InputError(f"{shown_path(self.path.parent)} is being searched by another run right now; wait for it "
                             "to end, or give another --out") from None
        size = whole = self._file.seek(0, os.SEEK_END)
        while whole and not self._ends_a_line(whole):  # a line cut short by a killed run: find its start
            whole -= 1
        if whole < size:
            self._file.truncate(whole)
        self._offsets = [0]  # the byte offset of each line read so far (line k starts at _offsets[k])

    def _ends_a_line(self, offset: int) -> bool:
        """Whether the byte before ``offset`` is a newline (only the cut line's bytes are read, never the file)."""
        self._file.seek(offset - 1)
        return self._file.read(1) == b"\n"

    def read_logs(self, log_number_from: int) -> Any:
        """The operations from number ``log_number_from`` on."""
        start = min(log_number_from, len(self._offsets) - 1)
        self._file.seek(self._offsets[start])
        for number, line in enumerate(self._file.read().splitlines(keepends=True), start):
            if number + 1 == len(self._offsets):
                self._offsets.append(self._offsets[-1] + len(line))
            if number >= log_number_from:
                yield json.loads(line)

    def append_logs(self, logs: list[dict[str, Any]]) -> None:
        """Append ``logs``, each one line, and hand them to the operating system."""
        self._file.write(("".join(json.dumps(log, separators=(",", ":")) + "\n" for log in logs)).encode("utf-8"))
        self._file.flush()

    def close(self) -> None:
        """Sync the journal to disk, unlock and close it (again: nothing)."""
        if not self._file.closed:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()  # closing the file releases its lock


def _sampler(seed: int, finished: int, population: int) -> Any:
    optuna = _optuna()
    trial_seed = stream_seed(seed, SAMPLER_STREAM + finished) % (2**32)
    return optuna.samplers.NSGAIISampler(population_size=population, seed=trial_seed)


@dataclass
class _Race:
    """The racing rule's memory: each candidate's stage and counts, every stage's distances, the best at the last.

    A candidate goes on to the next stage only when it could still beat the best (its 50 % intervals'
    distance is no more than the best's) and its distance is among the best ``1/factor`` of the
    distances recorded at its stage so far (asynchronous successive halving, as Optuna's pruners do).
    """

    cache: dict[Candidate, tuple[int, Counts, float]] = field(default_factory=dict)
    best: float = math.inf
    rungs: dict[int, list[float]] = field(default_factory=dict)

    # a separable space's parts (:class:`_Group`): each part's best distance at the last stage, its stages'
    # distances, and each candidate's (stage, distance, robust distance, gap) on the part's own items — the
    # baseline's included
    group_best: dict[int, float] = field(default_factory=dict)
    group_rungs: dict[tuple[int, int], list[float]] = field(default_factory=dict)
    group_values: dict[tuple[int, Candidate], tuple[int, float, float, float]] = field(default_factory=dict)
    # stage → (part distance, part robust distance, part gap from the bands' centres) (:func:`_group_distance`)
    group_trace: dict[tuple[int, Candidate], dict[int, tuple[float, float, float]]] = field(default_factory=dict)

    def record(self, candidate: Candidate, stage: int, counts: Counts, distance: float, last: int) -> None:
        self.cache[candidate] = (stage, counts, distance)
        if stage == last:
            self.best = min(self.best, distance)

    def record_group(self, group: int, candidate: Candidate, stage: int, distance: float, robust: float,
                     gap: float, last: int) -> None:
        """A candidate's distance on one part's items (see :func:`_separable`)."""
        self.group_values[(group, candidate)] = (stage, distance, robust, gap)
        if stage == last:
            self.group_best[group] = min(self.group_best.get(group, math.inf), distance)

    def promotes(self, stage: int, distance: float, reach: float, factor: int, baseline: bool,
                 group: int | None = None) -> bool:
        """Whether a candidate at ``stage`` with this distance (and optimistic ``reach``) earns more games.

        A candidate that edits one part of a separable space only is raced on that part's distance,
        against that part's best and that part's other candidates at its stage.
        """
        if baseline:
            return True  # the baseline is always played to the last stage: the first best
        best = self.best if group is None else self.group_best.get(group, math.inf)
        if reach > best + 1e-9 or (best == 0 and reach > 0):
            return False
        rung = sorted(self.rungs.get(stage, []) if group is None else self.group_rungs.get((group, stage), []))
        return bool(rung) and distance <= rung[max(1, len(rung) // factor) - 1] + 1e-9


def _stage_games(games: int, factor: int, stages: int) -> list[int]:
    return [games * factor**k for k in range(stages)]


# -- separable edit spaces ------------------------------------------------------------------------------------
GROUP_OPTIONS = 125  # most candidates one part of a separable space may hold (every combination of its steps)


@dataclass(frozen=True)
class _Group:
    """One part of a separable edit space: its dimensions, the cells only they change, the items only those count."""

    dims: tuple[int, ...]
    cells: tuple[int, ...]
    items: frozenset[tuple[str, str]]
    most: int  # most edits of one option: a candidate's slots shared among the parts (all its dims when dense)


def _separable(ctx: _Context, agent: SearchAgent, master: int, plan: list[int],
               slots: int | None) -> list[_Group] | None:
    """The edit space's parts when it is separable, else None (read from the baseline's first stage).

    A space is separable when every edit is a parameter scoped to some cells (``second_bonus_wall@battlefield``),
    the scopes split the cells into disjoint parts, and every targeted item is counted in one part's cells at
    most.  The distance is then a sum over the parts, each part's own items moved by its own edits alone: the
    search screens every combination of each part's steps (``GROUP_OPTIONS`` at most), races each on its part's
    distance, and composes the best of every part (:func:`_compose`), instead of hoping an optimiser combines
    the parts.  When a candidate holds fewer edits than the space has values (``slots``), each part gets an
    equal share: the duel's tower or wall per battlefield, eight edits at most, is one edit per battlefield.
    """
    dims = ctx.dims
    if not dims or any(d.kind != "param" or not d.scope for d in dims):
        return None
    scopes = list(dict.fromkeys(d.scope for d in dims))
    most = len(dims) if slots is None else slots // len(scopes)  # a candidate's slots shared among the parts
    if most < 1:
        return None
    cells = ctx.cells(())
    owner: dict[int, int] = {}
    for g, scope in enumerate(scopes):
        for c, params in enumerate(cells):
            if all(params.get(k) == v for k, v in scope):
                if c in owner:
                    return None  # a cell two parts change
                owner[c] = g
    names = [b.metric for b in ctx.bands]
    parts: dict[tuple[str, str], set[int]] = {}
    for c, params in enumerate(cells):
        counts = _memo_cell(ctx, agent, master, 0, plan[0], ctx.model.resolve_params(params))
        if counts is None:
            return None
        for metric in names:
            for item in counts.get(metric, {}):
                parts.setdefault((metric, item), set()).add(owner.get(c, -1))
    if any(len(found) > 1 for found in parts.values()):
        return None  # an item pooled over parts (the first seat over every battlefield): the parts interact
    groups = []
    for g, scope in enumerate(scopes):
        members = tuple(i for i, d in enumerate(dims) if d.scope == scope)
        if math.prod(len(dims[i].deltas) + 1 for i in members) - 1 > GROUP_OPTIONS:
            return None
        groups.append(_Group(members, tuple(c for c in sorted(owner) if owner[c] == g),
                             frozenset(k for k, found in parts.items() if found == {g}), min(most, len(members))))
    return groups


def _options(group: _Group, dims: Sequence[Dim]) -> list[Candidate]:
    """Every combination of one part's steps (not all zero, at most ``group.most`` edits), smallest first."""
    found = []
    for steps in itertools.product(*[(0, *dims[i].deltas) for i in group.dims]):
        if any(steps) and sum(1 for d in steps if d) <= group.most:
            found.append(_canonical([(i, d) for i, d in zip(group.dims, steps, strict=True) if d], dims))
    return sorted(found, key=lambda c: (len(c), sum(abs(d) for _, d in c), c))


def _group_of(candidate: Candidate, groups: list[_Group] | None) -> int | None:
    """The part every edit of ``candidate`` lies in, or None (no edit, several parts, or no parts)."""
    if not groups or not candidate:
        return None
    found = {g for g, group in enumerate(groups) for i, _ in candidate if i in group.dims}
    return found.pop() if len(found) == 1 else None


def _group_distance(table: pl.DataFrame, group: _Group) -> tuple[float, float, float, float]:
    """``(distance, reach, robust, gap)`` over one part's items of a :func:`measure` table, in points.

    Each is summed over the part's items at a tier, the worst tier's sum (:func:`worst_tier`; one tier: the
    sum).  ``robust``: how far the items' 95 % intervals reach outside their bands (0 when each interval lies
    inside: the option holds on fresh seeds too, as far as its games can tell); ``gap``: how far the
    items' scores lie from their bands' centres (summed over every item: a tie-breaker).
    """
    mine = [(m, i) in group.items for m, i in zip(table["metric"], table["item"], strict=True)]
    rows = table.filter(pl.Series(mine, dtype=pl.Boolean)) if mine else table
    outside = pl.max_horizontal(pl.lit(0.0), pl.col("band_low") - pl.col("score_low"),
                                pl.col("score_high") - pl.col("band_high"))
    robust = worst_tier(rows.with_columns((100 * outside).alias("robust")), "robust") if rows.height else 0.0
    gap = (100 * (rows["score"] - (rows["band_low"] + rows["band_high"]) / 2).abs()).sum()
    return worst_tier(rows), worst_tier(rows, "reach"), float(robust), float(gap)


def _known_groups(ctx: _Context, race: _Race, agent: SearchAgent, master: int, plan: list[int],
                  slots: int | None) -> None:
    """Work out the parts once the baseline has its last stage (live or resumed) and record its part distances."""
    last = len(plan) - 1
    if ctx.groups_known or race.cache.get((), (-1,))[0] != last:
        return
    ctx.groups, ctx.groups_known = _separable(ctx, agent, master, plan, slots), True
    if ctx.groups:
        table = measure(race.cache[()][1], ctx.bands, ctx.targets.all_metrics())
        for g, group in enumerate(ctx.groups):
            distance, _, robust, gap = _group_distance(table, group)
            race.record_group(g, (), last, distance, robust, gap, last)


def _compose(race: _Race, groups: list[_Group], dims: Sequence[Dim], last: int) -> Candidate:
    """Each part's best at the last stage: least robust distance, then fewest edits, then nearest the centres."""
    pairs: list[tuple[int, int]] = []
    for g in range(len(groups)):
        ranked = sorted((v[2], len(c), v[3], sum(abs(d) for _, d in c), c) for (h, c), v in race.group_values.items()
                        if h == g and v[0] == last)
        if ranked:
            pairs += ranked[0][-1]
    return _canonical(pairs, dims)


def _evaluate(ctx: _Context, race: _Race, candidate: Candidate, agent: SearchAgent, master: int, plan: list[int],
              factor: int, group: int | None = None, limit: int | None = None, room: int | None = None) -> tuple[
                  int, Counts, float, int, list[list[float]], dict[str, Counts], list[list[float]]]:
    """Race a candidate (see :class:`_Race`); one that edits one part of a separable space (``group``) on that part.

    With ``limit`` the candidate is played up to that stage, no racing rule asked (the part-by-part screen's
    successive halving has decided it, :func:`_next_fixed`).  Returns ``(stage, counts, distance, games played,
    rung values recorded, the cells played here by memo key, the part's rung values recorded)``.  With ``room``
    (games the search may still play) a stage that could overrun it is not played: the candidate stays where it is.
    """
    metrics, names = ctx.targets.all_metrics(), [b.metric for b in ctx.bands]
    part = ctx.groups[group] if group is not None and ctx.groups else None
    stage, counts, played, rungs, part_rungs = -1, {}, 0, [], []
    cells: dict[str, Counts] = {}
    if candidate in race.cache:
        stage, counts, _ = race.cache[candidate]
    while stage + 1 < (len(plan) if limit is None else limit + 1):
        if stage >= 0 and limit is None:
            table = measure(counts, ctx.bands, metrics)
            distance, reach = (worst_tier(table), worst_tier(table, "reach")) if part is None \
                else _group_distance(table, part)[:2]
            if not race.promotes(stage, distance, reach, factor, candidate == (), None if part is None else group):
                break
        start = plan[stage] if stage >= 0 else 0
        if room is not None and stage >= 0 and _stage_cost(ctx, candidate, agent, master, start,
                                                           plan[stage + 1]) > room - played:
            break  # the budget's search share cannot pay for this stage
        more, games, new = _play(ctx, candidate, agent, master, start, plan[stage + 1], names)
        counts, played = _add(counts, more), played + games
        cells.update(new)
        stage += 1
        table = measure(counts, ctx.bands, metrics)
        value = worst_tier(table)
        race.rungs.setdefault(stage, []).append(value)
        rungs.append([stage, value])
        if part is not None:
            mine, _, robust, gap = _group_distance(table, part)
            race.group_rungs.setdefault((group, stage), []).append(mine)
            race.group_trace.setdefault((group, candidate), {})[stage] = (mine, robust, gap)
            part_rungs.append([stage, mine, robust, gap])
    table = measure(counts, ctx.bands, metrics)
    if part is not None:
        distance, _, robust, gap = _group_distance(table, part)
        race.record_group(group, candidate, stage, distance, robust, gap, len(plan) - 1)
    return stage, counts, worst_tier(table), played, rungs, cells, part_rungs


def _replay(study: Any, dims: Sequence[Dim], race: _Race, last: int, memo: dict[str, Counts]) -> tuple[int, bool]:
    """Rebuild the race and the cells' memo from the stored trials (a resumed search).

    The memo comes back as the uninterrupted search had it, so the trials that follow play (and count) the
    same games: a resumed search proposes what an uninterrupted one does.  Returns the games the trials
    played and whether the additive model's part had ended (:func:`_additive_step`).
    """
    optuna = _optuna()
    games, ended = 0, False
    for t in study.get_trials(deepcopy=False, states=[optuna.trial.TrialState.COMPLETE]):
        record = json.loads(t.user_attrs["record"])
        memo.update(record.get("cells", {}))
        candidate = tuple((int(i), int(d)) for i, d in record["edits"])
        race.record(candidate, int(record["stage"]), record["counts"], float(t.values[0]), last)
        for stage, value in record.get("rungs", []):
            race.rungs.setdefault(int(stage), []).append(float(value))
        group = record.get("group")
        if group is not None:
            for stage, value, robust, gap in record["group_rungs"]:
                race.group_rungs.setdefault((group, int(stage)), []).append(float(value))
                race.group_trace.setdefault((group, candidate), {})[int(stage)] = (float(value), float(robust),
                                                                                   float(gap))
            race.record_group(group, candidate, int(record["stage"]), *record["group_distance"], last)
        games += int(record["games"])
        ended = ended or bool(record.get("additive_done"))
    return games, ended


def rebalance(game: str | GameModel, *, target: str | None = None, edit: str | None = None,
              cards: str | None = None, budget: int | None = None, seed: int = 0,
              tiers: str | Sequence[str] | None = None,
              out: str | Path, resume: bool = False, max_edits: int | None = None, games: int | None = None,
              stages: int | None = None, factor: int = 4, population: int = 24, verify: int = 10,
              margin: float | None = None,
              screen: bool = True,
              workers: int = 1, backend: str = "local", scheduler: str | None = None,
              on_progress: Callable[[int, int, str], None] | None = None,
              should_stop: Callable[[], bool] | None = None,
              on_trial: Callable[[dict[str, Any]], None] | None = None, retune: int | None = None,
              keep: bool = True, verify_share: float | None = None, slow_games: int | None = None) -> RebalanceResult:
    """Search the smallest edits that bring every targeted metric inside its band; verify the best on held-out seeds.

    Args:
        game: the game (its ``targets`` declaration gives metrics, cells and defaults).
        target: bands, e.g. ``"first_seat=49..51"`` (default: the game's).
        edit: the edit spec, e.g. ``"power_cost:-1..+1, might:-1..+1"`` (default: the game's).
        cards: card key patterns, e.g. ``"F*,S*"`` (default: the game's, usually every card).
        budget: games the whole run may play — the search, the held-out check and any re-tunes (default: the
            game's); ``verify_share`` of it is kept for the held-out check, the search plays the rest, and the
            run never plays more (:func:`run_size`).
        seed: the rebalance seed (search seeds, held-out seeds and the sampler all derive from it).
        tiers: skill tiers for the verification (``core/tiers.py``; default: every tier the game declares, its
            search tier included); the search plays the first fast tier (every fast tier when the game
            declares ``search_tiers``, the worst of them deciding).
        out: the output folder (``search.jsonl``, ``settings.json``, ``proposals/``).
        resume: continue the search stored in ``out``.
        max_edits: most edits per candidate (default: the game's).
        games: games per cell of the first racing stage (default: the game's).
        stages: racing stages (the last is where distances are compared; default: the game's).
        factor: each stage plays this many times the games of the one before.
        population: NSGA-II's population size.
        screen: play every one-edit candidate first (after the baseline), so the optimiser starts from
            each edit's own effect rather than from random combinations.
        verify: most proposals verified (the Pareto set's best by distance, then edits, then size).
        margin: the verification's games give every targeted item ±``margin`` at 50 % (default: the game's).
        workers: workers (threads for compiled engines).
        backend: ``local`` or ``dask``, as ``simulate`` (the same counts either way).
        scheduler: a Dask scheduler address (backend ``dask``).
        on_progress: ``on_progress(done, total, phase)`` in games, phase ``"search"`` or ``"verify"``.
        should_stop: polled between chunks; true ends the run keeping everything found.
        on_trial: called with each finished trial's record (a test may raise in it to interrupt).
        retune: at verification, each tier whose agent names a weight set (``greedy@tuned``) plays each
            proposal with weights re-tuned for it, this many games each (0: the set as shipped; default: the
            game's ``Targets.retune``); counted in the held-out check's share of the budget.
        keep: store the search in ``out/search.jsonl`` (resumable); False keeps it in memory (a report's short
            search, which nobody resumes: nothing to write).  The same proposals.
        verify_share: the fraction of ``budget`` kept for the held-out check (default: the game's, 0.25); 0
            gives the whole budget to the search and sizes the held-out check by ``margin`` alone, outside the
            budget (how this command worked before budgets bounded the whole run).
        slow_games: games per cell a search tier (an agent that searches at every decision) replays on
            held-out seeds (default: the game's ``Targets.slow_games``): a floor, so its status may read undecided.

    Returns:
        A :class:`RebalanceResult`.
    """
    from workbench.core.tiers import default_tiers, parse_tiers

    started = time.perf_counter()
    model = get_game(game)
    targets = targets_of(model)
    bands = parse_target(target if target is not None else targets.target, targets)
    dims = edit_space(model, edit, cards, targets)
    table = card_table(model)
    stages = targets.stages if stages is None else stages
    budget = targets.budget if budget is None else budget
    margin = targets.margin if margin is None else margin
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not 0 < margin < 0.5:
        raise InputError(f"margin must be a fraction between 0 and 0.5 (0.01: ±1 point), got {margin!r}")
    for name, value in (("budget", budget), ("stages", stages), ("factor", factor), ("population", population),
                        ("verify", verify), ("games", games if games is not None else 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InputError(f"{name} must be a positive whole number, got {value!r}")
    tier_list = parse_tiers(model, tiers or default_tiers(model, slow=True))
    agents = {t.label: str(model.resolve_spec(t.agent)) for t in tier_list}  # a weight set plays edited cards too
    retune = check_retune(targets.retune if retune is None else retune)
    share = _share(targets.verify_share if verify_share is None else verify_share)
    slow_games = _whole("slow_games", targets.slow_games if slow_games is None else slow_games)
    if retune:
        weighted = [t.agent for t in tier_list if AgentSpec.parse(t.agent).weight_set is not None]
        if not weighted:
            raise InputError(f"retune needs a tier that names a weight set (e.g. greedy@tuned); the tiers are "
                             f"{', '.join(t.agent for t in tier_list)}; or leave retune at 0")
        for agent in weighted:  # too small a budget is refused before any game
            retune_plan(model, agent, retune, len(targets.cells))
        if not one_card_set(model, targets):
            raise InputError(f"retune: {model.name}'s target cells play different card sets (or parameters), and a "
                             "weight set is re-tuned on one; give retune 0 (--retune 0)")
    # the search plays the first fast tier, or every fast tier (each tier's items apart, the worst tier deciding)
    # when the game declares so; a search tier only verifies (a game there costs ~1,000 fast games)
    fast = _fast(tier_list)
    search_agent: SearchAgent = agents[fast[0].label] if not targets.search_tiers or len(fast) < 2 else \
        tuple((t.label, agents[t.label]) for t in fast)
    max_edits = max_edits or targets.max_edits
    slots = None if len(dims) <= max_edits else max_edits
    first = games or targets.games
    plan = _stage_games(first, factor, stages)
    per_index = len(targets.cells) * (1 if isinstance(search_agent, str) else len(search_agent))
    search_budget = budget - math.ceil(share * budget)
    least = plan[-1] * per_index  # the unchanged game at every stage: the first candidate the search plays
    if search_budget < least:
        raise InputError(
            f"budget {budget:,}: the search's share ({search_budget:,} games; {100 * share:g} % is kept for the "
            f"held-out check) cannot play the unchanged game on every search game ({plan[-1]:,} a cell × "
            f"{len(targets.cells)} cells × {per_index // len(targets.cells)} tier(s) = {least:,}); give a budget "
            f"of at least {math.ceil(least / (1 - share)):,}, or fewer games or stages")
    out = Path(out)
    settings = _settings(model, bands, dims, seed, first, stages, factor, slots, search_agent, targets)
    settings["screen"] = screen
    study, journal = _open_study(out, settings, resume, keep)
    try:  # the search's journal is closed however the run ends (a long-lived kernel runs many searches)
        master = stream_seed(seed, SEARCH_STREAM) % (2**63)
        holdout = stream_seed(seed, HOLDOUT_STREAM) % (2**63)
        played = [0, 0]
        state = {"phase": "search", "total": search_budget}

        def tick(n: int) -> None:
            played[0 if state["phase"] == "search" else 1] += n
            if on_progress is not None:
                i = 0 if state["phase"] == "search" else 1
                on_progress(min(played[i], state["total"]), state["total"], state["phase"])

        ctx = _Context(model, targets, bands, dims, table, workers, backend, scheduler, should_stop, tick)
        ctx.on_memo = lambda n: tick(n) if state["phase"] == "verify" else None  # the search's budget: games played
        race = _Race()
        replayed, ctx.additive_done = _replay(study, dims, race, len(plan) - 1, ctx.memo)
        used = [replayed]
        played[0] = used[0]
        stopped = False
        metrics = targets.all_metrics()
        try:
            stopped = _search(ctx, study, race, plan, search_agent, master, seed, search_budget, slots, population,
                              used, on_trial, screen, factor)
        except (KeyboardInterrupt, RunInterrupted):
            stopped = True
        trials = _trials_frame(study, dims)
        base_key: Candidate = ()
        baseline = measure(race.cache[base_key][1], bands, metrics) if base_key in race.cache else measure({}, bands,
                                                                                                           metrics)
        chosen = _pareto(study, race, verify)
        met = base_key in race.cache and race.cache[base_key][0] == len(plan) - 1 and race.cache[base_key][2] == 0
        result = RebalanceResult(model.name, bands, dims, pl.DataFrame(), pl.DataFrame(), trials, baseline,
                                 tuple(t.label for t in tier_list), games_searched=used[0], stopped=stopped,
                                 no_edits_needed=False, out=out, retune=retune, budget=budget, verify_share=share,
                                 max_edits=max_edits,
                                 search_tiers=(search_agent,) if isinstance(search_agent, str) else tuple(
                                     label for label, _ in search_agent))
        if isinstance(search_agent, str):
            result.search_tiers = (fast[0].label,)
        if met:
            chosen = []
        searched = plan[-1]  # every search stage plays game indices below the last stage's count
        result.search_seed_range = (0, searched)
        result.search_master, result.holdout_master = master, holdout
        if not stopped:
            try:
                state.update(phase="verify", total=0)
                room = None if share == 0 else budget - used[0]  # the held-out check's share, and what the search left
                _verify(ctx, result, chosen, race, plan, master, holdout, searched, tier_list, agents, margin, state,
                        retune, seed, room, slow_games)
                result.no_edits_needed = met and bool(result.verification.height) and _baseline_holds(result)
            except (KeyboardInterrupt, RunInterrupted):
                result.stopped = True
        if result.proposals.height == 0 or "verdict" not in result.proposals.columns:
            result.proposals = _proposal_rows(chosen, dims, race, plan, {}, result.tiers, verified=False)
        result.games_verified = played[1]
        if slots is not None and screen and not ctx.groups and not result.stopped:  # a Stop returns at once
            result.additive, result.additive_note = _additive_evidence(ctx, race, search_agent, master, plan, slots)
        result.files = _save(model, table, dims, result, chosen, out)
        result.seconds = time.perf_counter() - started
        return result
    finally:
        if journal is not None:
            journal.close()


def _search(ctx: _Context, study: Any, race: _Race, plan: list[int], agent: SearchAgent, master: int, seed: int,
            budget: int, slots: int | None, population: int, used: list[int],
            on_trial: Callable[[dict[str, Any]], None] | None, screen: bool = True, factor: int = 4) -> bool:
    """Ask, race and tell trials until the budget is spent; True when a trial was stopped."""
    optuna = _optuna()
    last = len(plan) - 1
    per_index = len(ctx.targets.cells) * (1 if isinstance(agent, str) else len(agent))  # games a game index, at most
    # a candidate whose cells were all played before costs no game (``ctx.memo``), so the budget alone would not
    # end a search of such candidates: at most as many trials as the budget buys at the first stage's cost
    max_trials = max(4 * population, budget // max(1, plan[0] * len(ctx.targets.cells)))
    while True:
        done = study.get_trials(deepcopy=False, states=[optuna.trial.TrialState.COMPLETE])
        finished = len(done)
        _known_groups(ctx, race, agent, master, plan, slots)
        # the part-by-part screen's trials play one part's cells each: they come on top of the trials' cap
        extra = _screen_trials(ctx.groups, ctx.dims, len(plan)) if screen and ctx.groups else 0
        if finished and (used[0] >= budget or finished >= max_trials + extra):
            return False
        if finished and budget - used[0] < plan[0] * per_index:
            return False  # a new candidate's first stage could overrun the search's share of the budget
        if _repeats(done) >= 2 * population:
            return False  # the sampler only proposes candidates already played: the space is searched out
        fixed = _next_fixed(race, ctx.dims, slots, last, screen, ctx.groups,
                            lambda: _additive_step(ctx, race, agent, master, plan, slots))
        limit = None
        if fixed is None and screen and ctx.groups:
            # every candidate of a separable space is a choice of one screened option per part, each known at
            # its stage: the composition of the best and its neighbours are played; nothing is left to search
            return False
        if fixed is not None:  # decided from the finished trials alone, so a resumed search decides the same
            study.enqueue_trial(_params_of(fixed[0], ctx.dims, slots))
            limit = fixed[1]
        study.sampler = _sampler(seed, finished, population)
        trial = study.ask()
        candidate = _suggest(trial, ctx.dims, slots)
        repeat = fixed is None and candidate in race.cache  # the sampler proposed a candidate already raced
        group = _group_of(candidate, ctx.groups)
        try:
            stage, counts, distance, games, rungs, cells, group_rungs = _evaluate(ctx, race, candidate, agent, master,
                                                                                  plan, factor, group, limit,
                                                                                  budget - used[0])
        except DataError as exc:  # two edits the game's loader refuses together (e.g. a cost below its part)
            stage, counts, distance, games, rungs, cells, group_rungs = -1, {}, INFEASIBLE, 0, [], {}, []
            trial.set_user_attr("refused", str(exc))
        except (KeyboardInterrupt, RunInterrupted):
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
            return True
        used[0] += games  # the stored count (a stopped trial's games do not count: resumed = uninterrupted)
        race.record(candidate, stage, counts, distance, last)
        record = {"edits": [list(p) for p in candidate], "stage": stage, "games": games, "counts": counts,
                  "rungs": rungs, "cells": cells, "repeat": repeat, "additive_done": ctx.additive_done}
        if group is not None and stage >= 0:  # raced on its part's distance: what a resumed race needs of it
            record.update(group=group, group_rungs=group_rungs,
                          group_distance=list(race.group_values[(group, candidate)][1:]))
        trial.set_user_attr("record", json.dumps(record, sort_keys=True))
        values = _objectives(distance, candidate)
        study.tell(trial, list(values))
        if on_trial is not None:
            on_trial({"number": trial.number, "edits": candidate, "distance": distance, "stage": stage,
                      "games": games})
        if candidate == () and distance == 0 and stage == last:
            return False  # the target is already met on the search seeds: nothing to search


def _repeats(trials: Sequence[Any]) -> int:
    """How many of the last trials proposed a candidate raced before (the sampler has nothing new to offer)."""
    count = 0
    for t in reversed(trials):
        record = json.loads(t.user_attrs["record"])
        if not record.get("repeat", not record["games"]):
            break
        count += 1
    return count


def _trials_frame(study: Any, dims: Sequence[Dim]) -> pl.DataFrame:
    optuna = _optuna()
    rows = []
    for t in study.get_trials(deepcopy=False, states=[optuna.trial.TrialState.COMPLETE]):
        record = json.loads(t.user_attrs["record"])
        candidate = record["edits"]
        rows.append({"trial": t.number, "edits": "; ".join(dims[i].describe(d) for i, d in candidate) or "none",
                     "n_edits": len(candidate), "size": sum(abs(d) for _, d in candidate),
                     "distance": float(t.values[0]), "stage": int(record["stage"]), "games": int(record["games"])})
    schema = {"trial": pl.Int64, "edits": pl.String, "n_edits": pl.Int64, "size": pl.Int64, "distance": pl.Float64,
              "stage": pl.Int64, "games": pl.Int64}
    return pl.DataFrame(rows, schema=schema)


def _pareto(study: Any, race: _Race, verify: int) -> list[Candidate]:
    """The Pareto set's distinct edited candidates, best first (distance, then edits, then size), at most ``verify``.

    Only candidates raced to the last stage compete when there are any: their distances are the
    precise ones (a candidate dropped early has a noisy distance, lucky or not).
    """
    last = max((v[0] for c, v in race.cache.items() if c), default=-1)
    points = {c: _objectives(v[2], c) for c, v in race.cache.items() if c and v[2] < INFEASIBLE and v[0] == last}
    front = [c for c, p in points.items()
             if not any(all(q[k] <= p[k] for k in range(3)) and q != p for q in points.values())]
    return sorted(front, key=lambda c: (points[c], c))[:verify]


# -- verification ------------------------------------------------------------------------------------------
SLOW_VERIFY = 1  # a search tier (a game there ~1,000 fast ones) replays the best proposal beside the unchanged game


def _share(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1:
        raise InputError(f"verify_share must be a fraction of the budget from 0 up to (not including) 1, e.g. 0.25; "
                         f"got {value!r}")
    return float(value)


def _whole(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"{name} must be a positive whole number, got {value!r}")
    return value


def _fast(tiers: Sequence[Tier]) -> list[Tier]:
    """The tiers whose agent does not search at every decision (a first tier that does, when every one does)."""
    return [t for t in tiers if not t.slow] or list(tiers[:1])


def one_card_set(model: GameModel, targets: Targets) -> bool:
    """True when every target cell plays one card set (what a re-tune of a weight set needs: ``core/tune.py``)."""
    return len({card_set_hash(model, dict(cell)) for cell in targets.cells or ({},)}) == 1


def verify_plan(room: int | None, proposals: int, games: int, cells: int, fast: int, slow: int, retune: int,
                slow_games: int) -> tuple[int, int, int, int]:
    """How the held-out check fits ``room`` games: ``(proposals, games a cell)`` at the fast tiers, the same at slow.

    The unchanged game and each proposal replay ``games`` a cell (n for the margin) at each of the ``fast`` tiers,
    plus ``retune`` games a proposal (its re-tunes); at each of the ``slow`` tiers the unchanged game and the best
    ``SLOW_VERIFY`` proposal replay ``slow_games`` a cell.  When that is more than ``room`` (None: no bound), fewer
    proposals are replayed (down to the best), then fewer games a cell (a wider margin, said), then the slow tiers
    are left out; ``(0, 0, 0, 0)`` when not even one game a cell fits.
    """
    def cost(k: int, g: int, sk: int, sg: int) -> int:
        return verify_plan_cost(k, g, sk, sg, cells, fast, slow, retune)

    sg = slow_games if slow else 0
    if room is None:
        return proposals, games, min(proposals, SLOW_VERIFY) if slow else 0, sg
    for k in range(proposals, 0 if proposals else -1, -1):
        if cost(k, games, min(k, SLOW_VERIFY), sg) <= room:
            return k, games, min(k, SLOW_VERIFY) if slow else 0, sg
    k = min(proposals, 1)
    for sk, g_slow in ((min(k, SLOW_VERIFY) if slow else 0, sg), (0, 0)):
        g = (room - cost(k, 0, sk, g_slow)) // (fast * cells * (k + 1))
        if g >= 1:
            return k, min(g, games), sk, g_slow
    return 0, 0, 0, 0


def run_size(game: str | GameModel, *, budget: int | None = None, tiers: str | Sequence[str] | None = None,
             verify: int = 10, margin: float | None = None, verify_share: float | None = None,
             retune: int | None = None, slow_games: int | None = None) -> dict[str, Any]:
    """A run's whole size before it runs: games of the search and of the held-out check, and their time in fast games.

    Returns ``total`` (games the run plays at most: the budget, or with ``verify_share`` 0 the budget plus the
    held-out check sized by the margin), ``search`` (at most), ``verify`` (the held-out check's share, re-tunes
    included; the search may leave it more, never the run more than ``total``), ``retune`` (of those, the
    re-tunes' at most), ``slow`` (of those, games at search tiers, at most) with ``slow_tiers``, and
    ``fast_equivalent``: ``total`` with each search-tier game counted at its tier's cost in fast games (what a
    time estimate multiplies by a fast game's seconds).
    """
    from workbench.core.tiers import default_tiers, parse_tiers

    model = get_game(game)
    targets = targets_of(model)
    budget = _whole("budget", targets.budget if budget is None else budget)
    share = _share(targets.verify_share if verify_share is None else verify_share)
    margin = targets.margin if margin is None else margin
    retune = check_retune(targets.retune if retune is None else retune)
    slow_games = _whole("slow_games", targets.slow_games if slow_games is None else slow_games)
    tier_list = parse_tiers(model, tiers or default_tiers(model, slow=True))
    fast = _fast(tier_list)
    slow = [t for t in tier_list if t not in fast]
    cells = len(targets.cells)
    weighted = [t for t in fast if AgentSpec.parse(t.agent).weight_set is not None] if retune else []
    k_slow = min(verify, SLOW_VERIFY)
    slow_n = len(slow) * cells * slow_games * (k_slow + 1)
    re_n = retune * len(weighted) * verify
    if share:
        search = budget - math.ceil(share * budget)
        held = budget - search
    else:  # the held-out check outside the budget: n for the margin per item, an item of one cell needing it there
        search = budget
        held = verify_plan_cost(verify, games_for_margin(margin), k_slow, slow_games, cells, len(fast), len(slow),
                                retune * len(weighted))
    slow_n, re_n = min(slow_n, held), min(re_n, held)
    slow_cost = sum(t.cost for t in slow) * cells * slow_games * (k_slow + 1) * (slow_n / max(1, len(slow) * cells
                                                                                              * slow_games
                                                                                              * (k_slow + 1)))
    total = search + held
    return {"total": total, "search": search, "verify": held, "retune": re_n, "slow": slow_n,
            "slow_tiers": tuple(t.label for t in slow), "fast_tiers": tuple(t.label for t in fast),
            "share": share, "fast_equivalent": total - slow_n + slow_cost}


def _status(table: pl.DataFrame, decided: bool) -> pl.DataFrame:
    """``table`` (:func:`measure`) with each item's ``status``: inside, outside or undecided.

    A tier whose held-out games give the margin (``decided``) reads each score against its band.  A tier played
    on fewer (a search tier's floor) reads the 95 % interval: inside when it lies within the band, outside when it
    lies beyond it, else undecided — too few games to tell.
    """
    if decided:
        status = pl.when(pl.col("inside")).then(pl.lit("inside")).otherwise(pl.lit("outside"))
    else:
        status = (pl.when((pl.col("score_low") >= pl.col("band_low")) & (pl.col("score_high") <= pl.col("band_high")))
                  .then(pl.lit("inside"))
                  .when((pl.col("score_high") < pl.col("band_low")) | (pl.col("score_low") > pl.col("band_high")))
                  .then(pl.lit("outside")).otherwise(pl.lit("undecided")))
    return table.with_columns(status.alias("status"))


def _tier_status(table: pl.DataFrame | None) -> str | None:
    """A tier's status over its items: outside when one is, else undecided when one is, else inside."""
    if table is None:
        return None
    found = set(table["status"].to_list())
    return "outside" if "outside" in found else "undecided" if "undecided" in found else "inside"

def _verify(ctx: _Context, result: RebalanceResult, chosen: list[Candidate], race: _Race, plan: list[int],
            master: int, holdout: int, searched: int, tiers: Sequence[Tier], agents: dict[str, str], margin: float,
            state: dict[str, Any], retune: int = 0, seed: int = 0, room: int | None = None,
            slow_games: int = 4) -> None:
    metrics, names = ctx.targets.all_metrics(), [b.metric for b in ctx.bands]
    base_counts = race.cache.get((), (0, {}, 0.0))[1]
    per_game = min((v[0] / (plan[race.cache[()][0]] * len(ctx.targets.cells))
                    for m in names for v in base_counts.get(m, {}).values()), default=0.0)
    need = games_for_margin(margin)
    cells = len(ctx.targets.cells)
    full = max(1, math.ceil(need / (per_game * cells))) if per_game > 0 else plan[-1]
    fast = _fast(tiers)
    slow = [t for t in tiers if t not in fast]
    weighted = [t for t in fast if AgentSpec.parse(t.agent).weight_set is not None] if retune else []
    k_fast, verify_games, k_slow, slow_g = verify_plan(room, len(chosen), full, cells, len(fast), len(slow),
                                                       retune * len(weighted), slow_games)
    unretuned = False
    if weighted and (verify_games == 0 or (verify_games < full and k_fast <= 1)):
        # the re-tunes crowd out the held-out games themselves: replay with the weight sets as shipped instead
        plain = verify_plan(room, len(chosen), full, cells, len(fast), len(slow), 0, slow_games)
        if plain[1] > verify_games:
            (k_fast, verify_games, k_slow, slow_g), weighted, unretuned = plain, [], True
    if verify_games == 0:
        result.verify_note = (f"the held-out check was not played: the {room or 0:,} games the budget left for it do "
                              f"not pay for one game a cell at {', '.join(t.label for t in fast)}; give a larger "
                              "budget")
        result.proposals = _proposal_rows(chosen, ctx.dims, race, plan, {}, result.tiers, verified=False).with_columns(
            pl.lit("not verified (the budget left no games for the held-out check)").alias("verdict"))
        return
    most = max(verify_games, slow_g)
    search_seeds = game_seeds(master, 0, searched)
    held_seeds = game_seeds(holdout, 0, most)
    if np.intersect1d(search_seeds, held_seeds).size:  # never: asserted, so a change of seeding cannot hide it
        raise RuntimeError("rebalance: the held-out seeds overlap the search seeds")
    result.holdout_seed_range = (0, most)
    result.verify_games_per_cell = verify_games
    result.verify_margin = 1.96 * math.sqrt(0.25 / max(1.0, per_game * cells * verify_games)) if per_game else 0.0
    result.tier_games = {t.label: verify_games if t in fast else slow_g for t in tiers}
    result.tier_proposals = {t.label: k_fast if t in fast else (k_slow if slow_g else 0) for t in tiers}
    notes = []
    if unretuned:
        notes.append(f"the weight sets played as shipped: re-tuning them for each proposal ({retune:,} games each) "
                     "would have left too few held-out games in the budget's share")
        result.retune = retune = 0
    if k_fast < len(chosen):
        notes.append(f"the best {k_fast} of the {len(chosen)} proposals were replayed (the budget's share for the "
                     "held-out check paid for no more)")
    if verify_games < full:
        notes.append(f"{verify_games:,} held-out games a cell, not the {full:,} the margin asks: each rate reads "
                     f"±{100 * result.verify_margin:.1f} points, not ±{100 * margin:g}")
    for t in slow:
        if slow_g:
            notes.append(f"{t.label} (a game there costs about {t.cost:,.0f} at the fast tiers) replayed the unchanged "
                         f"game and the best proposal on {slow_g:,} games a cell: its status reads undecided unless "
                         "its intervals settle it")
        else:
            notes.append(f"{t.label} was not replayed: the budget's share for the held-out check did not pay for it")
    result.verify_note = "; ".join(notes)
    state["total"] = verify_plan_cost(k_fast, verify_games, k_slow, slow_g, cells, len(fast), len(slow),
                                      retune * len(weighted))
    rows: list[pl.DataFrame] = []
    per: dict[tuple[Candidate, str], pl.DataFrame] = {}
    for k, tier in enumerate(tiers):
        games = result.tier_games[tier.label]
        if not games:
            continue
        decided = games >= full
        replayed = chosen[:result.tier_proposals[tier.label]]
        before = _status(measure(_play(ctx, (), agents[tier.label], holdout, 0, games, names)[0], ctx.bands,
                                 metrics), decided)
        per[((), tier.label)] = before
        for rank, candidate in enumerate(replayed, start=1):
            played = agents[tier.label]
            if tier in weighted:
                found = _retune(ctx, candidate, tier.agent, retune, retune_seed(seed, k * len(chosen) + rank - 1),
                                (master, search_seeds), (holdout, held_seeds))
                result.retuned[(rank, tier.label)] = found
                played = found.spec
            after = _status(measure(_play(ctx, candidate, played, holdout, 0, games, names)[0], ctx.bands, metrics),
                            decided)
            per[(candidate, tier.label)] = after
            rows.append(_before_after(rank, tier.label, before, after, (agents[tier.label], played) if retune
                                      else None))
        if not chosen:
            rows.append(_before_after(0, tier.label, before, before, (agents[tier.label],) * 2 if retune else None))
    result.verification = pl.concat(rows, how="vertical") if rows else pl.DataFrame()
    result.proposals = _proposal_rows(chosen, ctx.dims, race, plan, per, result.tiers, verified=True)


def verify_plan_cost(k: int, games: int, k_slow: int, slow_games: int, cells: int, fast: int, slow: int,
                     retune: int) -> int:
    """The most games a held-out check of :func:`verify_plan`'s plan plays."""
    return fast * cells * games * (k + 1) + retune * k + (slow * cells * slow_games * (k_slow + 1) if slow_games
                                                           else 0)


def _retune(ctx: _Context, candidate: Candidate, agent: str, budget: int, seed: int,
            *played: tuple[int, np.ndarray]) -> Retune:
    """``agent``'s weight set re-tuned for the candidate's cells; its seeds asserted apart from ``played``'s."""
    found = retune_weights(ctx.model, agent, ctx.cells(candidate, one_card_set=True), budget, seed,
                           workers=ctx.workers, should_stop=ctx.should_stop, on_games=ctx.progress)
    seeds = found.game_seeds()
    for master, games in played:  # never: asserted, so a change of seeding cannot hide it
        if master in found.master_seeds or np.intersect1d(seeds, games).size:
            raise RuntimeError("rebalance: a re-tune's seeds overlap the search's or the held-out seeds")
    ctx.progress(max(0, budget - found.games))  # the bar at the planned count (a re-tune may play fewer)
    return found


def _before_after(rank: int, tier: str, before: pl.DataFrame, after: pl.DataFrame,
                  weights: tuple[str, str] | None = None) -> pl.DataFrame:
    keys = ["metric", "item"]
    b = before.select(*keys, "metric_title", "item_title", "band_low", "band_high",
                      *(pl.col(c).alias(f"before_{c}") for c in ("score", "score_low", "score_high", "n", "inside",
                                                                 "status")))
    a = after.select(*keys, *(pl.col(c).alias(f"after_{c}") for c in ("score", "score_low", "score_high", "n",
                                                                       "inside", "distance", "status")))
    extra = [] if weights is None else [pl.lit(weights[0]).alias("before_agent"), pl.lit(weights[1]).alias(
        "after_agent"), pl.lit(weights[0] != weights[1]).alias("retuned")]
    return b.join(a, on=keys, how="left", maintain_order="left").select(
        pl.lit(rank, dtype=pl.Int64).alias("proposal"), pl.lit(tier).alias("tier"), pl.all(), *extra)


def _baseline_holds(result: RebalanceResult) -> bool:
    v = result.verification
    return bool(v.height) and set(v["tier"]) == set(result.tiers) and bool(
        (v.filter(pl.col("proposal") == 0)["before_status"] == "inside").all())


def _proposal_rows(chosen: list[Candidate], dims: Sequence[Dim], race: _Race, plan: list[int],
                   per: dict[tuple[Candidate, str], pl.DataFrame], tiers: Sequence[str],
                   verified: bool) -> pl.DataFrame:
    rows = []
    for rank, candidate in enumerate(chosen, start=1):
        stage, _, distance = race.cache[candidate]
        row: dict[str, Any] = {"proposal": rank, "edits": "; ".join(dims[i].describe(d) for i, d in candidate),
                               "n_edits": len(candidate), "size": sum(abs(d) for _, d in candidate),
                               "search_distance": distance, "search_games_per_cell": plan[stage] if stage >= 0 else 0,
                               "search_inside": distance == 0}
        status = []
        for tier in tiers:
            after = per.get((candidate, tier))
            row[f"{tier} · distance"] = float(after["distance"].sum()) if after is not None else None
            row[f"{tier} · inside"] = bool(after["inside"].all()) if after is not None else None
            row[f"{tier} · status"] = _tier_status(after)
            status.append(row[f"{tier} · status"])
        row["holds"] = verified and all(x == "inside" for x in status)
        row["verdict"] = _verdict(verified, row["search_inside"], list(tiers), status)
        rows.append(row)
    schema: dict[str, Any] = {"proposal": pl.Int64, "edits": pl.String, "n_edits": pl.Int64, "size": pl.Int64,
                              "search_distance": pl.Float64, "search_games_per_cell": pl.Int64,
                              "search_inside": pl.Boolean}
    for tier in tiers:
        schema[f"{tier} · distance"] = pl.Float64
        schema[f"{tier} · inside"] = pl.Boolean
        schema[f"{tier} · status"] = pl.String
    schema.update({"holds": pl.Boolean, "verdict": pl.String})
    return pl.DataFrame(rows, schema=schema)


def _verdict(verified: bool, search: bool, tiers: list[str], status: list[str | None]) -> str:
    """A proposal's verdict in words: where it meets the target, where it misses, where too few games tell."""
    if not verified:
        return "not verified (the run stopped before the held-out games)"
    met = [t for t, x in zip(tiers, status, strict=True) if x == "inside"]
    open_ = [t for t, x in zip(tiers, status, strict=True) if x == "undecided"]
    unplayed = [t for t, x in zip(tiers, status, strict=True) if x is None]
    more = (f"; undecided at {', '.join(open_)} (too few held-out games there to tell)" if open_ else "") + (
        f"; not replayed at {', '.join(unplayed)}" if unplayed else "")
    if len(met) == len(tiers):
        return ("meets the target at every tier on held-out seeds" if search else
                "meets the target at every tier on held-out seeds (not on the search seeds)")
    if met:
        return f"meets the target only at {', '.join(met)} (held-out seeds){more}"
    if open_ and len(open_) + len(unplayed) == len(tiers):
        return f"undecided: too few held-out games at {', '.join(open_)} to tell" + (
            f"; not replayed at {', '.join(unplayed)}" if unplayed else "")
    return ("meets the target only on the search seeds" if search else "misses the target") + more


# -- saving -------------------------------------------------------------------------------------------------
def _save(model: GameModel, table: CardTable | None, dims: Sequence[Dim], result: RebalanceResult,
          chosen: list[Candidate], out: Path) -> list[Path]:
    """Each proposal's card set as ``proposals/proposal-NN.csv`` (parameters beside it), and the tables."""
    folder = out / "proposals"
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for rank, candidate in enumerate(chosen, start=1):
        card_edits: dict[str, dict[str, str]] = {}
        params: dict[str, Any] = {}
        for i, d in candidate:
            dim = dims[i]
            if dim.kind == "card":
                card_edits.setdefault(dim.key, {})[dim.column] = str(dim.base + d)
            else:
                params[dim.label] = dim.base + d
        if card_edits and table is not None:
            changed = changed_cells(table, read_cards(table), card_edits)
            path = folder / f"proposal-{rank:02d}.csv"
            edited = edited_cards(table, changed, namespace=f"{model.name}-rebalance")
            write_atomic(path, lambda tmp, src=edited: tmp.write_bytes(src.read_bytes()))
            files.append(path)
        if params:
            path = folder / f"proposal-{rank:02d}.params.json"
            write_atomic(path, lambda tmp, p=params: tmp.write_text(json.dumps(p, indent=1), encoding="utf-8"))
            files.append(path)
    for name, frame in (("proposals", result.proposals), ("verification", result.verification),
                        ("trials", result.trials), ("retunes", result.retunes())):
        if frame.height:
            path = out / f"{name}.csv"
            write_atomic(path, lambda tmp, f=frame: f.write_csv(tmp))
            files.append(path)
    return files


# -- a report section ----------------------------------------------------------------------------------------
def proposals_table(result: RebalanceResult) -> pl.DataFrame:
    """The proposals as a person reads them: plain labels, one column per tier."""
    p = result.proposals
    if p.height == 0:
        return pl.DataFrame({"Proposal": [], "Edits": []}, schema={"Proposal": pl.Int64, "Edits": pl.String})
    cols = [pl.col("proposal").alias("Proposal"), pl.col("edits").alias("Edits"),
            pl.col("n_edits").alias("Edits made"), pl.col("search_distance").round(2).alias(search_label(result))]
    for tier in result.tiers:
        if f"{tier} · distance" in p.columns:
            cols.append(pl.col(f"{tier} · distance").round(2).alias(f"{tier}: points outside (held out, sum over "
                                                                    "items)"))
        if f"{tier} · status" in p.columns:
            cols.append(pl.col(f"{tier} · status").fill_null("not replayed").alias(f"{tier}: held out"))
    cols += [pl.col("holds").alias("Holds at every tier"), pl.col("verdict").alias("Verdict")]
    return p.select(cols)


def search_label(result: RebalanceResult) -> str:
    """The search distance's column label: the tier(s) it was read at and what it sums."""
    tiers = result.search_tiers
    if len(tiers) > 1:
        return f"Search at {', '.join(tiers)}: points outside at the worst tier (sum over its items)"
    return f"Search at {tiers[0]}: points outside (sum over items)" if tiers else \
        "Search: points outside (sum over items)"


def verification_table(result: RebalanceResult) -> pl.DataFrame:
    """Per proposal, tier and targeted item: before → after with 95 % intervals and n, the band, inside?"""
    v = result.verification
    if v.height == 0:
        return pl.DataFrame()

    def rate(prefix: str) -> pl.Expr:
        return pl.format("{} % [{}, {}] (n = {})", *(pl.col(f"{prefix}_{c}").mul(100).round(1)
                                                   for c in ("score", "score_low", "score_high")),
                         pl.col(f"{prefix}_n"))

    weights = []
    if "after_agent" in v.columns:  # a re-tuned run: which weights each row played
        weights = [pl.when(pl.col("retuned")).then(pl.format("re-tuned for this proposal: {}", pl.col("after_agent")))
                   .otherwise(pl.format("as shipped: {}", pl.col("after_agent"))).alias("Weights played after")]
    status = [pl.col("after_status").alias("Status (undecided: too few games to tell)")] \
        if "after_status" in v.columns else []
    return v.select(pl.col("proposal").alias("Proposal"), pl.col("tier").alias("Tier"),
                    pl.col("metric_title").alias("Metric"), pl.col("item_title").alias("Item"),
                    pl.format("{}–{} %", pl.col("band_low").mul(100).round(2), pl.col("band_high").mul(100).round(2))
                    .alias("Band"), rate("before").alias("Before"), rate("after").alias("After"),
                    pl.col("after_inside").alias("Inside the band"), *status, *weights)


def _space_size(dims: Sequence[Dim], most: int) -> int:
    """Candidates of at most ``most`` edits: one step (of a value's allowed steps) on each of up to ``most`` values."""
    poly = [1] + [0] * most  # poly[k]: the edit sets of exactly k values
    for dim in dims:
        steps = len(dim.deltas)
        for k in range(most, 0, -1):
            poly[k] += poly[k - 1] * steps
    return sum(poly[1:])


def full_command(result: RebalanceResult) -> str:
    """The command that runs the full search for this game (its default target, edit space and budget)."""
    return f"workbench rebalance {result.game} --out rebalance/{result.game}"


def searched_text(result: RebalanceResult) -> str:
    """What was searched, how much of the space, how the best were checked and what the budget bounded, in words."""
    singles = sum(len(d.deltas) for d in result.dims)
    tried = int((result.trials["n_edits"] == 1).sum()) if result.trials.height else 0
    candidates = int((result.trials["n_edits"] > 0).sum()) if result.trials.height else 0
    space = _space_size(result.dims, result.max_edits or len(result.dims))
    tiers = result.search_tiers or result.tiers[:1]
    text = (f"Searched: {candidates:,} sets of edits of the {space:,} that change at most {result.max_edits} of the "
            f"{len(result.dims):,} editable values (among them {tried:,} of the {singles:,} single edits on their "
            "own), "
            f"on {result.games_searched:,} games at {', '.join(tiers)}; each set was played on the same games as the "
            "unchanged game, and the sets still close to the target played more. A set is judged by how many points "
            "its targeted rates lie outside their bands, summed over the rates at a tier")
    text += (", at its worst tier: a fix has to hold at every tier, so points won at one tier cannot pay for points "
             "lost at another." if len(tiers) > 1 else ".")
    if result.tier_games:
        fast = [t for t, g in result.tier_games.items() if g == result.verify_games_per_cell]
        text += (f" The best were replayed on games the search never saw (held-out seeds): "
                 f"{result.verify_games_per_cell:,} games a cell at {', '.join(fast)}")
        others = [f"{g:,} at {t}" for t, g in result.tier_games.items() if t not in fast and g]
        text += (f", {', '.join(others)}" if others else "") + "."
        if result.verify_note:
            text += f" Of the held-out check: {result.verify_note}."
    if result.retune:
        text += (f" Each weighted tier's weights were re-tuned for every replayed proposal ({result.retune:,} games "
                 "each, on other seeds): edited cards change best play; the held-out table names the weights played.")
    if result.verify_share:
        text += (f" The budget of {result.budget:,} games bounds the whole run: {100 * result.verify_share:g} % of it "
                 f"was kept for the held-out check; {result.games_searched:,} games searched and "
                 f"{result.games_verified:,} held out.")
    return text + " A score counts a draw as half a win; every rate with its 95 % Wilson interval and n."


def report_section(rep: Any, result: RebalanceResult, name: str = "rebalance") -> None:
    """A report section: the target, what was searched, the proposals and the held-out before → after tables.

    ``rep`` is a ``core.report.Report``; tables are written as ``<name>_proposals`` and ``<name>_verification``.
    """
    try:
        metrics = targets_of(result.game).all_metrics()
    except InputError:  # a game no longer registered (a result read back): the metrics' keys
        metrics = {}
    bands = ", ".join(b.text(metrics[b.metric].title if b.metric in metrics else None) for b in result.bands)
    text = f"Target: {bands}, at every tier ({', '.join(result.tiers)}). {result.summary()} {searched_text(result)}"
    rep.section("Rebalance: the smallest edits that reach the target", text)
    rep.table(f"{name}_proposals", proposals_table(result))
    if result.additive_note:
        rep.text(result.additive_note)
    if result.additive.height:
        rep.table(f"{name}_additive", additive_table(result),
                  caption="The additive model's best combinations: predicted from single edits, then played")
    table = verification_table(result)
    if table.height:
        rep.table(f"{name}_verification", table, caption="Held-out seeds: each targeted item before → after")


def budget_progress(report: Callable[[int, int], None], budget: int) -> Callable[[int, int, str], None]:
    """A rebalance's ``on_progress(done, total, phase)`` as one count against the whole run: ``report(done, total)``.

    While the search runs the total is the budget (the run may end sooner: the ETA is then an upper
    bound); once the held-out check starts, it is the games the search played plus the check's plan.
    A step's line then reads ``120,000/240,000 games (50 %), 4,000 games/s, ETA 30 s``, not "working".
    """
    searched = [0]

    def on_progress(done: int, total: int, phase: str) -> None:
        if phase == "search":
            searched[0] = done
            report(done, max(budget, done))
        else:
            report(searched[0] + done, searched[0] + max(total, done))

    return on_progress


REPORT_SEARCH = {  # a report's search: small enough for `make report`; `workbench rebalance` runs the full one
    # the budget bounds search and held-out check together: half of it each (120,000 games of search, as before)
    "full": {"budget": 240_000, "verify": 3, "margin": 0.015, "verify_share": 0.5, "slow_games": 1},
    # seconds: the fast tiers only (a search tier's game takes seconds), no re-tune
    "quick": {"budget": 8_000, "verify": 1, "margin": 0.1, "games": 4, "stages": 2, "verify_share": 0.5, "retune": 0},
}


def add_report_section(rep: Any, game: str | GameModel, *, quick: bool = False, seed: int = 0, workers: int = 2,
                       **overrides: Any) -> RebalanceResult | None:
    """Run a report-sized search for ``game``'s default target and edit space and add its section.

    The search's store goes to a temporary folder (the report keeps the proposals and held-out tables;
    a proposal's card set is in its table's edits).  The section says how small the search was and the
    command that runs the full one.  Nothing is added for a game without declared targets.
    """
    import tempfile

    from workbench.core.progress import step

    model = get_game(game)
    if model.targets is None:
        return None
    from workbench.core.tiers import default_tiers

    sizes = {**REPORT_SEARCH["quick" if quick else "full"], **overrides}
    if quick:
        sizes.setdefault("tiers", default_tiers(model))  # the fast tiers: a quick report's seconds
    with tempfile.TemporaryDirectory(prefix=f"{model.name}-rebalance-") as folder, \
            step(f"{model.name} report: rebalance, {sizes['budget']:,} games (search, then held-out seeds)") as shown:
        result = rebalance(model, out=Path(folder) / "search", seed=seed, workers=workers, keep=False,
                           on_progress=budget_progress(shown.report, sizes["budget"]), **sizes)
    report_section(rep, result)
    full = targets_of(model).budget
    how = "search and held-out check together" if result.verify_share else "of search; the held-out check beyond them"
    rep.text(f"This was a short search ({sizes['budget']:,} games {how}) so the report "
             f"stays quick; the full one ({full:,} games) is `{full_command(result)}` (add `--budget N` for more; "
             "`--resume` continues it), or the studio's Rebalance page.")
    return result
