"""Playing a candidate: its cells, the games a stage plays (memoised), and its distance outside the bands."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from workbench.core.design.cardtable import CardTable, edited_cards
from workbench.core.design.rebalance.race import Counts, SearchAgent, _Additive
from workbench.core.design.rebalance.space import Candidate, Dim, _Group
from workbench.core.design.rebalance.targets import Band, Metric, Targets
from workbench.core.model import GameModel, model_ref
from workbench.core.sim.runner import drain, execute, plan_chunks
from workbench.core.stats.rates import wilson


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
    # the last candidates' cells with their resolved parameters (:meth:`resolved_cells`), and what plays a cell for an
    # agent — (the seats' agent specs, the engine) by the agent and the cell's resolved parameters (:meth:`seats`):
    # a candidate's stages and their costs ask them again and again; a few candidates' worth are kept
    resolved: dict[Candidate, list[tuple[dict[str, Any], dict[str, Any]]]] = field(default_factory=dict)
    seated: dict[str, tuple[Any, Any]] = field(default_factory=dict)

    def resolved_cells(self, candidate: Candidate) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """:meth:`cells` of the candidate, each with the game's resolved parameters: worked out once a candidate.

        Both read the game's data (an edited card table written, every deck loaded and checked: Babylon ~0.1 s a
        candidate), and a candidate's stage asks them for every tier and again for its cost (:func:`_stage_cost`).
        """
        if candidate not in self.resolved:
            _keep(self.resolved, KEPT)
            self.resolved[candidate] = [(params, self.model.resolve_params(params)) for params in self.cells(candidate)]
        return self.resolved[candidate]

    def seats(self, agent: str, resolved: dict[str, Any]) -> tuple[Any, Any]:
        """``(agent specs, engine)`` of a cell's games, ``agent`` at every seat: worked out once a cell and agent."""
        key = _cell_key(agent, 0, 0, 0, resolved)
        if key not in self.seated:
            model = self.model
            specs = model.resolve_agents(",".join([agent] * model.players(model.make_config(resolved))), resolved)
            _keep(self.seated, KEPT * max(1, len(self.targets.cells)) * 4)  # up to four tiers a cell
            self.seated[key] = specs, model.resolve_engine(None, specs, resolved)
        return self.seated[key]

    def cells(self, candidate: Candidate, *, one_card_set: bool = False) -> list[dict[str, Any]]:
        """Every cell's parameters with the candidate's edits (card edits as an edited table's path).

        A cell whose games use none of the edited cards plays the unedited cards (its games are the same, so the
        memo serves them); with ``one_card_set`` every cell plays the whole edited table instead, as a re-tune of
        a weight set needs (``core/skill/tune.py`` tunes on one card set; the games of such a cell are still the same).
        """
        card_edits: dict[str, dict[str, str]] = {}
        for i, d in candidate:
            dim = self.dims[i]
            if dim.kind == "card":
                card_edits.setdefault(dim.key, {})[dim.column] = str(dim.base + d)
        out = []
        uses = self.targets.uses_card
        written: dict[str, str] = {}  # the edited table of each set of card edits, written once (cells share them)
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
                key = repr(sorted((k, sorted(v.items())) for k, v in mine.items()))
                if key not in written:
                    written[key] = str(edited_cards(self.table, mine, namespace=f"{self.model.name}-rebalance"))
                params[self.table.param] = written[key]
            out.append(params)
        return out


KEPT = 16  # candidates whose cells :class:`_Context` keeps worked out (their parameters resolved, their agents built)


def _keep(found: dict[Any, Any], most: int) -> None:
    """Make room for one more entry in ``found``: the oldest go once it holds ``most``."""
    while len(found) >= most:
        del found[next(iter(found))]


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
    return sum(stop - start for _, resolved in ctx.resolved_cells(candidate)
               if _cell_key(agent, master, start, stop, resolved) not in ctx.memo)


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
    cells = ctx.resolved_cells(candidate)
    # enough chunks to keep every worker busy, and no more: a chunk costs a kernel call and a frame, so with
    # at least two cells per worker each cell is one chunk (the same games either way: the seeds are per game)
    split = 1 if len(cells) >= 2 * ctx.workers else 2 * ctx.workers
    for _, resolved in cells:
        key = _cell_key(agent, master, start, stop, resolved)
        if key in ctx.memo:
            total = _add(total, ctx.memo[key])
            ctx.on_memo(stop - start)
            continue
        specs, engine = ctx.seats(agent, resolved)
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
    found = [(band, item, n, w, d) for band in bands for item, (n, w, d) in sorted(counts.get(band.metric, {}).items())]
    score = np.array([w + d / 2 for _, _, _, w, d in found], dtype=float)
    n = np.array([n for _, _, n, _, _ in found], dtype=float)
    # every item's intervals at once (the same numbers as item by item, which took ~30 ms a table); none without games
    seen = n > 0
    low, near_low = np.zeros(len(found)), np.zeros(len(found))
    high, near_high = np.ones(len(found)), np.ones(len(found))
    if seen.any():
        low[seen], high[seen] = wilson(score[seen], n[seen])
        near_low[seen], near_high[seen] = wilson(score[seen], n[seen], race_confidence)
    rows, labels = [], {}  # an item read at every tier is named once (a game's label may read its data files)
    for k, (band, item, played, w, d) in enumerate(found):
        rate = float(score[k] / played) if played else float("nan")
        base, tiered, tier = item.rpartition(TIER_SEP)  # "3/5 · greedy@tuned": read at one tier
        if not tiered:  # an item the search read at one tier only: rpartition leaves it whole in ``tier``
            base, tier = item, ""
        if (band.metric, base) not in labels:
            labels[(band.metric, base)] = metrics[band.metric].item_label(base)
        title = labels[(band.metric, base)] + (f", at {tier}" if tier else "")
        rows.append({"metric": band.metric, "metric_title": metrics[band.metric].title, "item": item,
                     "item_title": title, "n": played, "wins": w, "draws": d,
                     "score": rate, "score_low": float(low[k]), "score_high": float(high[k]), "band_low": band.low,
                     "band_high": band.high, "inside": bool(band.low <= rate <= band.high),
                     "distance": 100 * max(0.0, band.low - rate, rate - band.high),
                     "reach": 100 * max(0.0, band.low - float(near_high[k]), float(near_low[k]) - band.high)})
    schema = {"metric": pl.String, "metric_title": pl.String, "item": pl.String, "item_title": pl.String,
              "n": pl.Int64, "wins": pl.Int64, "draws": pl.Int64, "score": pl.Float64, "score_low": pl.Float64,
              "score_high": pl.Float64, "band_low": pl.Float64, "band_high": pl.Float64, "inside": pl.Boolean,
              "distance": pl.Float64, "reach": pl.Float64}
    return pl.DataFrame(rows, schema=schema)
