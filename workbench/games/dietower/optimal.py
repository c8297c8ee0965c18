"""Optimal play for two players on reduced decks: backward induction with a matrix game per state.

Both players choose a card at the same time, so every state is a zero-sum matrix game whose
entries are the round's result plus the value of the state it leads to.  Each matrix game is
solved by core's :func:`~workbench.core.studies.metagame.matrix_game`: a saddle-point check (pure
strategies) or else a linear program (``scipy.optimize.linprog``, HiGHS); the column player's
strategy is read from the LP's dual values.

Objectives (values are from p1's point of view):

* ``"win"``: 1 for a win, 1/2 for a draw, 0 for a loss — i.e. maximise P(win) + P(draw)/2, which
  orders strategies like P(win) − P(loss).  The state carries the score difference.
* ``"points"``: the expected point difference ``score_p1 − score_p2``.

A state is ``(hand_p1, hand_p2, builder, die, diff)`` (``diff`` is 0 for ``"points"``).

Measured on the 2-core development machine (shared with other jobs, one core used), 6-faced die:

=========  ==============================  ==============================
suit size  ``points``: states, time        ``win``: states, time
=========  ==============================  ==============================
5          4,308 states, 2 s               7,326 states, 2 s
6          19,310 states, 23 s             39,856 states, 18 s
7          84,386 states, 168 s            211,064 states, 280 s
8          362,356 states, 281-412 s       1,095,530 states, 403-427 s (~1 GB)
=========  ==============================  ==============================

Suit 8 (8 ranks + Joker, 9 rounds) is the largest solved; suit 9 would need roughly 5x the states.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from workbench.core.errors import InputError
from workbench.core.sim.stopping import check as check_stop
from workbench.core.studies.metagame import matrix_game
from workbench.games.dietower import agents as ag
from workbench.games.dietower.rules import Config, resolve_round

OBJECTIVES = ("win", "points")
Policy = Callable[[int, tuple], dict[int, float]]  # (seat, state) -> {card: probability}


@cache
def _cards(hand: int) -> tuple[int, ...]:
    return tuple(c for c in range(hand.bit_length()) if hand >> c & 1)


@dataclass
class Solution:
    """Values and equilibrium strategies of every state reached by the induction."""

    rules: Config
    objective: str
    values: dict[tuple, float] = field(default_factory=dict)
    strategies: dict[tuple, tuple[tuple[int, ...], np.ndarray, tuple[int, ...], np.ndarray]] = \
        field(default_factory=dict)
    lps: int = 0
    seconds: float = 0.0

    @property
    def root(self) -> tuple:
        """The starting state."""
        full = self.rules.full_hand
        return (full, full, -1, 0, 0)

    @property
    def value(self) -> float:
        """Game value for p1 at the start."""
        return self.values[self.root]

    def first_round(self) -> dict[int, float]:
        """p1's equilibrium mixed strategy in round 1 ({card: probability})."""
        cards, x, _, _ = self.strategies[self.root]
        return {c: float(p) for c, p in zip(cards, x, strict=True)}

    def policy(self, seat: int, state: tuple) -> dict[int, float]:
        """Equilibrium policy of ``seat`` in ``state`` (a :data:`Policy`)."""
        c1, x, c2, y = self.strategies[state]
        cards, probs = (c1, x) if seat == 0 else (c2, y)
        return {c: float(p) for c, p in zip(cards, probs, strict=True) if p > 0}


def _terminal(objective: str, diff: int) -> float:
    if objective == "points":
        return 0.0
    return 1.0 if diff > 0 else (0.5 if diff == 0 else 0.0)


def _transition(rules: Config, objective: str, state: tuple, c1: int, c2: int) -> tuple[float, tuple | None]:
    """Immediate payoff and next state (None when the game ends by a six-win)."""
    h1, h2, builder, die, diff = state
    out = resolve_round(rules, builder, die, (c1, c2))
    gain = (out.points if out.scorer == 0 else -out.points) if out.scorer >= 0 else 0
    if out.six_win:
        if objective == "points":
            return float(gain), None
        return (1.0 if out.scorer == 0 else 0.0), None
    nd = diff + gain if objective == "win" else 0
    nxt = (h1 & ~(1 << c1), h2 & ~(1 << c2), out.builder, out.die, nd)
    return (float(gain) if objective == "points" else 0.0), nxt


def solve(rules: Config, objective: str = "win", max_suit: int = 8) -> Solution:
    """Backward induction over every reachable state of a two-player reduced deck."""
    if rules.players != 2:
        raise InputError("optimal play is solved for 2 players")
    if objective not in OBJECTIVES:
        raise InputError(f"objective {objective!r}; allowed: {', '.join(OBJECTIVES)}")
    if rules.suit_size > max_suit:
        raise InputError(f"optimal play is solved for reduced decks: suit_size <= {max_suit}, got {rules.suit_size}")
    sol = Solution(rules, objective)
    start = time.perf_counter()
    _value(sol, sol.root)
    sol.seconds = time.perf_counter() - start
    return sol


def _value(sol: Solution, state: tuple) -> float:
    known = sol.values.get(state)
    if known is not None:
        return known
    h1, h2, _, _, diff = state
    if h1 == 0:
        v = _terminal(sol.objective, diff)
        sol.values[state] = v
        return v
    c1s, c2s = _cards(h1), _cards(h2)
    a = np.empty((len(c1s), len(c2s)))
    for i, c1 in enumerate(c1s):
        for j, c2 in enumerate(c2s):
            gain, nxt = _transition(sol.rules, sol.objective, state, c1, c2)
            a[i, j] = gain + (_value(sol, nxt) if nxt is not None else 0.0)
    check_stop()  # the studio's Stop, between one state's linear program and the next
    v, x, y = matrix_game(a)
    sol.lps += 1
    sol.values[state] = v
    sol.strategies[state] = (c1s, x, c2s, y)
    return v


def evaluate(rules: Config, objective: str, p1: Policy, p2: Policy | None) -> float:
    """p1's expected payoff when p1 plays ``p1`` and p2 plays ``p2`` (``None``: p2 best-responds)."""
    full = rules.full_hand
    memo: dict[tuple, float] = {}

    def value(state: tuple) -> float:
        if state in memo:
            return memo[state]
        if state[0] == 0:
            return _terminal(objective, state[4])
        pi1 = p1(0, state)
        pi2 = p2(1, state) if p2 is not None else {c: 1.0 for c in _cards(state[1])}
        col = {}
        for c2 in pi2:
            total = 0.0
            for c1, w in pi1.items():
                gain, nxt = _transition(rules, objective, state, c1, c2)
                total += w * (gain + (value(nxt) if nxt is not None else 0.0))
            col[c2] = total
        v = min(col.values()) if p2 is None else sum(pi2[c] * col[c] for c in pi2)
        memo[state] = v
        return v

    return value((full, full, -1, 0, 0))


def agent_policy(spec: str, rules: Config) -> Policy:
    """A workbench agent (e.g. ``"highest"``, ``"joker:at=3"``) as a :data:`Policy` over states."""
    from workbench.core.model import AgentSpec

    cfg = ag.config(AgentSpec.parse(spec))

    def policy(seat: int, state: tuple) -> dict[int, float]:
        cards = _cards(state[seat])
        view = ag.View(seat, cards, rules.joker, state[2], state[3], (0, 0), rules.rounds - len(cards))
        return ag.policy(cfg, view)

    return policy


def heuristic_losses(sol: Solution, agents: tuple[str, ...]) -> list[dict]:
    """Per agent: its payoff against the equilibrium player and against a best response."""
    rows = []
    for spec in agents:
        pol = agent_policy(spec, sol.rules)
        vs_eq = evaluate(sol.rules, sol.objective, pol, sol.policy)
        vs_br = evaluate(sol.rules, sol.objective, pol, None)
        rows.append({"agent": spec, "objective": sol.objective, "game_value": sol.value,
                     "vs_equilibrium": vs_eq, "loss_vs_equilibrium": sol.value - vs_eq,
                     "vs_best_response": vs_br, "loss_vs_best_response": sol.value - vs_br})
    return rows
