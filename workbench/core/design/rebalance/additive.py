"""The additive model: every single edit's measured effect, combined exactly (a small integer program)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import polars as pl

from workbench.core.design.rebalance.play import _add, _cell_key, _Context, _stage_cost, _tier_of, _tiered
from workbench.core.design.rebalance.race import Counts, SearchAgent, _Additive, _Race
from workbench.core.design.rebalance.result import RebalanceResult
from workbench.core.design.rebalance.space import Candidate
from workbench.core.design.rebalance.targets import INFEASIBLE

# -- the additive model: every single edit's measured effect, combined exactly ---------------------------------
ADDITIVE_TOP = 12  # the additive model's best combinations the search plays to the last stage


ADDITIVE_LOCAL = 12  # then, each round, its best changes around the best candidate measured (those not played yet)


ADDITIVE_REFINE = 64  # most single edits read at the last stage before the model stops firming up its effects


ADDITIVE_SECONDS = 600.0  # HiGHS's time limit per solve: a safety only (a limit reached makes the result machine-bound)


WORST_TIE = 1e-4  # at every tier, the weight of the distance summed over every item beside the worst tier's


EDIT_PENALTY = 1e-3  # points the model charges per edit step: of two combinations equally close, the smaller


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
    for _, resolved in ctx.resolved_cells(()):
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
                   slots: int | None, room: int | None = None) -> tuple[Candidate, int] | None:
    """The additive model's next candidate, played to the last stage: a single edit to firm up, or a combination.

    The model's best combination is worked out from the single edits' effects; while it holds a single edit
    read before the last stage, that edit is played on first (its effect is then read on every search game)
    and the model is solved again (at most until ``ADDITIVE_REFINE`` single edits are read at the last
    stage, and only while ``room`` — the games the search may still play — keeps enough to play the model's
    ``ADDITIVE_TOP`` best combinations to the last stage after it: Babylon's default search spent its whole
    budget firming up single edits, and the model's combinations, predicted 6 points outside against the best
    single edit's 15, were never played).  Then the model's ``ADDITIVE_TOP`` best combinations are played, each
    not played yet in turn: their measured distances, not the model's, decide what is proposed.  Then rounds
    around the best candidate measured so far (the anchor): the model predicts from the anchor's measured
    scores, so what its edits do together is measured, not assumed, and its ``ADDITIVE_LOCAL`` best changes
    (drop an edit, add one, or both) are played; a better candidate starts the next round; a round with nothing new ends
    the model's part.  Decided from the finished trials alone, so a resumed search plays the same.
    """
    if slots is None or slots < 2 or ctx.additive_done:
        return None
    step = _additive_next(ctx, race, agent, master, plan, slots, room)
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
                   slots: int, room: int | None = None) -> tuple[Candidate, int] | None:
    last = len(plan) - 1
    key = _known_model(ctx, race, agent, master, plan)
    model = ctx.additive
    if model is None or not model.edits:
        return None
    stage_of = {c: int(s) for c, s in zip(model.edits, model.stage, strict=True)}
    if int((model.stage == last).sum()) < ADDITIVE_REFINE:
        best, _ = _solve_additive(model, slots, 1)
        for candidate, _ in best:
            # kept for the combinations: the model's best played to the last stage, ADDITIVE_TOP times over
            reserve = 0 if room is None else ADDITIVE_TOP * _stage_cost(ctx, candidate, agent, master, 0, plan[last])
            for p in candidate:
                if stage_of[(p,)] < last:
                    firm = 0 if room is None else _stage_cost(ctx, (p,), agent, master, plan[stage_of[(p,)]],
                                                              plan[last])
                    if room is not None and room - firm < reserve:
                        break  # what is left plays the combinations: their measured distances decide
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
