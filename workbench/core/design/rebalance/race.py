"""The search's memory: the racing rule's record of every candidate, and the additive model's fitted effects."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from workbench.core.design.rebalance.space import Candidate


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


Counts = dict[str, dict[str, list[int]]]  # metric → item → [n, wins, draws]


# what the search plays: one agent spec, or (tier label, spec) of every tier (``Targets.search_tiers``)
SearchAgent = str | tuple[tuple[str, str], ...]


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
