"""The search: Optuna's NSGA-II over few-edit candidates, raced stage by stage, separable spaces part by part."""

from __future__ import annotations

import itertools
import json
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core.design.rebalance.additive import _additive_step, _memo_cell, _objectives
from workbench.core.design.rebalance.nearest import _unraced_near
from workbench.core.design.rebalance.play import _add, _Context, _play, _stage_cost, measure, worst_tier
from workbench.core.design.rebalance.race import Counts, SearchAgent, _Race
from workbench.core.design.rebalance.space import GROUP_OPTIONS, Candidate, Dim, _canonical, _Group, _params_of
from workbench.core.design.rebalance.targets import (
    DB,
    INFEASIBLE,
    LEGACY_DB,
    SAMPLER_STREAM,
    SETTINGS,
    STUDY,
    Band,
    Targets,
)
from workbench.core.errors import DataError, InputError, RunInterrupted
from workbench.core.model import GameModel, shown_path
from workbench.core.rng import stream_seed
from workbench.core.sim.store import write_atomic


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
    final: pl.DataFrame | None = None  # the counts' table after the last stage played here
    if candidate in race.cache:
        stage, counts, _ = race.cache[candidate]
    while stage + 1 < (len(plan) if limit is None else limit + 1):
        if stage >= 0 and limit is None and not _promoted(ctx, race, candidate, stage, counts, factor, group):
            break
        start = plan[stage] if stage >= 0 else 0
        if room is not None and stage >= 0 and _stage_cost(ctx, candidate, agent, master, start,
                                                           plan[stage + 1]) > room - played:
            break  # the budget's search share cannot pay for this stage
        more, games, new = _play(ctx, candidate, agent, master, start, plan[stage + 1], names)
        counts, played = _add(counts, more), played + games
        cells.update(new)
        stage += 1
        final = table = measure(counts, ctx.bands, metrics)
        value = worst_tier(table)
        race.rungs.setdefault(stage, []).append(value)
        rungs.append([stage, value])
        if part is not None:
            mine, _, robust, gap = _group_distance(table, part)
            race.group_rungs.setdefault((group, stage), []).append(mine)
            race.group_trace.setdefault((group, candidate), {})[stage] = (mine, robust, gap)
            part_rungs.append([stage, mine, robust, gap])
    table = final if final is not None else measure(counts, ctx.bands, metrics)  # the counts as last measured
    if part is not None:
        distance, _, robust, gap = _group_distance(table, part)
        race.record_group(group, candidate, stage, distance, robust, gap, len(plan) - 1)
    return stage, counts, worst_tier(table), played, rungs, cells, part_rungs


def _promoted(ctx: _Context, race: _Race, candidate: Candidate, stage: int, counts: Counts, factor: int,
              group: int | None) -> bool:
    """Whether the racing rule plays a candidate at ``stage`` (these ``counts``) on to the next stage."""
    part = ctx.groups[group] if group is not None and ctx.groups else None
    table = measure(counts, ctx.bands, ctx.targets.all_metrics())
    distance, reach = (worst_tier(table), worst_tier(table, "reach")) if part is None \
        else _group_distance(table, part)[:2]
    return race.promotes(stage, distance, reach, factor, candidate == (), None if part is None else group)


def _goes_on(ctx: _Context, race: _Race, candidate: Candidate, agent: SearchAgent, master: int, plan: list[int],
             factor: int, group: int | None, room: int) -> bool:
    """Whether racing a candidate raced before would play its next stage (:func:`_evaluate`'s first step).

    Not when it is at the last stage, the game refused it (stage -1), the racing rule stops it where it is, or
    the games left (``room``) cannot pay for its next stage.
    """
    stage, counts, _ = race.cache[candidate]
    if stage < 0 or stage + 1 >= len(plan) or not _promoted(ctx, race, candidate, stage, counts, factor, group):
        return False
    return _stage_cost(ctx, candidate, agent, master, plan[stage], plan[stage + 1]) <= room


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


def _search(ctx: _Context, study: Any, race: _Race, plan: list[int], agent: SearchAgent, master: int, seed: int,
            budget: int, slots: int | None, population: int, used: list[int],
            on_trial: Callable[[dict[str, Any]], None] | None, screen: bool = True, factor: int = 4) -> bool:
    """Ask, race and tell trials until the budget is spent; True when a trial was stopped.

    A sampler's proposal raced as far as it goes is pruned and its nearest unraced candidate played instead
    (:func:`~workbench.core.design.rebalance.nearest._unraced_near`), so every trial plays something; the search
    ends when the budget is spent, or when no candidate of the edit space is left unraced.
    """
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
        fixed = _next_fixed(race, ctx.dims, slots, last, screen, ctx.groups,
                            lambda: _additive_step(ctx, race, agent, master, plan, slots, budget - used[0]))
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
        proposed = None
        if fixed is None and candidate in race.cache and not _goes_on(
                ctx, race, candidate, agent, master, plan, factor, _group_of(candidate, ctx.groups), budget - used[0]):
            # the sampler proposed a candidate raced as far as it goes (NSGA-II's children are often their parents
            # again, the unchanged game among them): racing it would play nothing, so its nearest unraced
            # neighbour is played in its place, as a trial of its own (the proposal's trial is pruned)
            near = _unraced_near(ctx, race, candidate, agent, master, plan, slots)
            study.tell(trial, state=optuna.trial.TrialState.PRUNED)
            if near is None:
                return False  # every candidate the edit space holds is raced: it is searched out
            study.enqueue_trial(_params_of(near, ctx.dims, slots))
            trial = study.ask()
            proposed, candidate = candidate, _suggest(trial, ctx.dims, slots)
        before = race.cache[candidate][0] if candidate in race.cache else None
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
                  "rungs": rungs, "cells": cells, "additive_done": ctx.additive_done}
        if proposed is not None:  # what the sampler proposed, raced as far as it goes before
            record["proposed"] = [list(p) for p in proposed]
        if group is not None and stage >= 0:  # raced on its part's distance: what a resumed race needs of it
            record.update(group=group, group_rungs=group_rungs,
                          group_distance=list(race.group_values[(group, candidate)][1:]))
        trial.set_user_attr("record", json.dumps(record, sort_keys=True))
        values = _objectives(distance, candidate)
        study.tell(trial, list(values))
        if on_trial is not None:
            on_trial({"number": trial.number, "edits": candidate, "distance": distance, "stage": stage,
                      "games": games, "proposed": proposed})
        if candidate == () and distance == 0 and stage == last:
            return False  # the target is already met on the search seeds: nothing to search
        if fixed is not None and games == 0 and stage == before and stage < (last if limit is None else limit):
            # the search's own next step (decided from the finished trials, so it would be asked again) cannot be
            # paid from what is left of the budget: asking it again plays nothing (Babylon's default search asked
            # one single edit's next stage 200 times, two seconds a trial and no game, after its budget ran low)
            return False


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
