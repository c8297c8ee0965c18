"""A sampler's proposal raced as far as it goes: the nearest candidate not raced yet, one edit move at a time.

NSGA-II breeds its children from the Pareto set, which always holds the unchanged game (no edit, no size) and the
best few-edit candidates: a child is often one of its parents again, or a subset of one.  Racing such a child on
plays nothing (it is at its last stage, or the racing rule stops it where it is), so the search plays the child's
nearest unraced neighbour instead (:func:`_unraced_near`) — a *repair*, as genetic algorithms repair a child that
duplicates the population — and never idles.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from workbench.core.design.rebalance.additive import _known_model, _scores
from workbench.core.design.rebalance.play import _Context, _tier_of
from workbench.core.design.rebalance.race import SearchAgent, _Additive, _Race
from workbench.core.design.rebalance.space import Candidate, Dim


def _moves(candidate: Candidate, dims: Sequence[Dim], slots: int | None) -> list[tuple[Candidate, int, int, int]]:
    """Every candidate one move away, as ``(neighbour, value, step before, step after)``.

    A move changes one value's step to the next allowed step above or below it (0 drops the edit), drops an
    edit of any step, or — while the candidate has room for one more (``slots``) — adds a value's first step
    either way.  Every neighbour lies in the edit space: allowed steps, at most ``slots`` edits.
    """
    edits = dict(candidate)
    found: dict[Candidate, tuple[int, int, int]] = {}
    for i, d in candidate:
        steps = sorted({0, *dims[i].deltas})
        k = steps.index(d)
        rest = [p for p in candidate if p[0] != i]
        for after in {steps[max(0, k - 1)], steps[min(len(steps) - 1, k + 1)], 0} - {d}:
            found.setdefault(tuple(sorted(rest + ([(i, after)] if after else []))), (i, d, after))
    if slots is None or len(candidate) < slots:
        for i, dim in enumerate(dims):
            if i in edits:
                continue
            for after in (max((x for x in dim.deltas if x < 0), default=0),
                          min((x for x in dim.deltas if x > 0), default=0)):
                if after:
                    found.setdefault(tuple(sorted([*candidate, (i, after)])), (i, 0, after))
    return [(c, *move) for c, move in found.items()]


def _predicted(model: _Additive | None, scores: np.ndarray | None,
               moves: Sequence[tuple[Candidate, int, int, int]]) -> np.ndarray:
    """Per move, the additive model's distance for the neighbour, from its raced parent's measured ``scores``.

    The neighbour's score on every item is the parent's measured score plus the moved value's change of effect
    (each single edit's effect read against the baseline; a step of none has none); inf where an effect was
    never read, or with no model.  The distance is :func:`~workbench.core.design.rebalance.play.worst_tier`'s.
    """
    out = np.full(len(moves), np.inf)
    if model is None or scores is None or not moves:
        return out
    index = {edit: e for e, (edit,) in enumerate(model.edits)}
    zero = np.zeros(len(model.items))
    change = np.zeros((len(moves), len(model.items)))
    known = np.ones(len(moves), dtype=bool)
    for k, (_, i, before, after) in enumerate(moves):
        rows = [index.get((i, d)) if d else -1 for d in (after, before)]
        if None in rows:
            known[k] = False
            continue
        change[k] = (zero if rows[0] < 0 else model.effect[rows[0]]) - (zero if rows[1] < 0 else model.effect[rows[1]])
    score = scores[None, :] + change
    outside = np.maximum(0.0, np.maximum(model.low - score, score - model.high))
    tiers = [_tier_of(item) for _, item in model.items]
    worst = np.max([outside[:, [t == tier for t in tiers]].sum(axis=1) for tier in dict.fromkeys(tiers)], axis=0)
    out[known] = worst[known]
    return out


def _size(candidate: Candidate) -> int:
    return sum(abs(d) for _, d in candidate)


def _unraced_near(ctx: _Context, race: _Race, proposal: Candidate, agent: SearchAgent, master: int,
                  plan: list[int], slots: int | None) -> Candidate | None:
    """The candidate to play for a proposal raced as far as it goes: its nearest unraced neighbour, or None.

    Nearest in moves (:func:`_moves`): the proposal's own unraced neighbours first; when it has none, those of its
    raced neighbours, the best measured first (the first with any gives it), then two moves away, and so on.
    Among one raced candidate's unraced neighbours the additive model ranks them (:func:`_predicted`, from that
    candidate's measured scores: the move its measured items need), then fewer edits, smaller ones, the edit
    space's order.  None: every candidate the moves reach is raced — the space is searched out (they reach every
    candidate of at most ``slots`` edits).  Decided from the race alone, so a resumed search decides the same.
    """
    _known_model(ctx, race, agent, master, plan)  # the single edits' effects (worked out again only when they moved)
    model = ctx.additive
    seen = {proposal}
    ring = [proposal]
    while ring:
        following: list[Candidate] = []
        for node in sorted(ring, key=lambda c: (race.cache[c][2], len(c), _size(c), c)):
            moves = _moves(node, ctx.dims, slots)
            fresh = [m for m in moves if m[0] not in race.cache]
            if fresh:
                stage, counts, _ = race.cache[node]
                scores = 100 * _scores(counts, model.items)[0] if model is not None and stage >= 0 else None
                ranks = _predicted(model, scores, fresh)
                return min(zip(ranks, fresh, strict=True),
                           key=lambda r: (r[0], len(r[1][0]), _size(r[1][0]), r[1][0]))[1][0]
            for c, *_ in moves:
                if c not in seen:
                    seen.add(c)
                    following.append(c)
        ring = following
    return None
