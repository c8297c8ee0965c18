"""Towers of Babylon agents: random (core's), greedy (one step ahead), the hooks of core's search agent.

An agent sees a :class:`View`: the state with what its seat may not see masked — the opponent's
hand is that many :data:`~rules.UNKNOWN` cards, both decks are their lengths in unknown cards, and
the opponent's record of drawn cards is empty.  Everything else (the board, both towers, the power
sources, Transformed Power, the discard and sacrifice piles, waiting Invocations) is public.
Each seat draws its random numbers from its own stream (``model.agent_stream``).

**Greedy** scores a position from seat ``me``'s side (:func:`evaluate`, weights are agent options)::

    tower · (my tower − enemy tower)
    + Σ over my minions − Σ over enemy minions of
          minion + health · health left + (builder · construction  in the Tower zone,
                                           raider  · might         on the Battlefield,
                                           guard   · might         on the Ramparts) − sentenced
      (the board terms scaled by the share of the game still to play, at least ``late``)
    + Σ_{k<my hand} card · hand_decay^k − the same for the enemy hand
    + playable · min(my hand's non-Witchery cards my sources could pay, playable_cap)
    + Σ_{k<my sources} source · source_decay^k + tp · my Transformed Power

A minion's health counts without its bonus until end of turn, and a minion that will die when that
bonus ends counts nothing. A won game is +1e6, a lost one −1e6. Every decision (plays with their
targets, moves, builds, attacks, blocks, Witcheries, Twinstrike and Offering choices, draw-or-
Offering) takes the legal action whose result scores best after one step; the decisions the step
opens before control returns (the opponent's block, a Twinstrike target, a trigger's target) are
settled one level deep — each side picking the option that is best for it — and further ones by
their first option. An Invocation is scored as if its text resolved at once (one step cannot see the
next turn). Ending the turn scores the position as it is; an action must beat it by ``margin`` to be
taken. Ties keep the legal order. The mulligan puts back the cards costing more than
``mulligan_cost`` (most expensive first, up to the rules' limit). Greedy uses no randomness.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, NamedTuple

from workbench.core.model import AgentDecl, AgentSpec, Param, SearchHooks
from workbench.core.rng import SplitMix64
from workbench.core.search import search_decl
from workbench.games.babylon import rules
from workbench.games.babylon.rules import (
    BATTLEFIELD,
    DRAW_SEAT,
    K_END,
    K_MULLIGAN,
    K_PLAY,
    MAIN,
    MULLIGAN,
    START,
    TOWER,
    UNKNOWN,
    Action,
    Config,
    State,
)

WIN_VALUE = 1e6


class View(NamedTuple):
    """What seat ``me`` may see: the state with the hidden cards masked (see the module docstring)."""

    me: int
    state: State


def observe(state: State, seat: int) -> View:
    """The view of ``seat``."""
    sides = list(state.sides)
    for s, side in enumerate(sides):
        masked = side._replace(deck=(UNKNOWN,) * len(side.deck))
        if s != seat:
            masked = masked._replace(hand=(UNKNOWN,) * len(side.hand), drawn=frozenset())
        sides[s] = masked
    return View(seat, state._replace(sides=(sides[0], sides[1])))


def unseen(config: Config, view: View, seat: int) -> list[int]:
    """The cards of ``seat``'s deck list that ``view`` does not show anywhere (its deck, and a hidden hand)."""
    s = view.state
    side = s.sides[seat]
    left = Counter(config.decks[seat])
    left.subtract(c for c in side.hand if c != UNKNOWN)
    left.subtract(side.discard)
    left.subtract(side.sacrifice)
    left.subtract(side.invocations)
    left.subtract(m.card for m in s.minions if m.owner == seat)
    return sorted(left.elements())


def determinise(config: Config, view: View, rng: SplitMix64) -> State:
    """A full state consistent with ``view``: unseen cards shuffled into the decks and the opponent's hand."""
    from workbench.core.rng_numba import shuffled  # here: numba loads with the first search, not with the game

    s = view.state
    sides = list(s.sides)
    for seat, side in enumerate(sides):
        cards = shuffled(rng, unseen(config, view, seat))
        if seat == view.me:
            sides[seat] = side._replace(deck=tuple(cards))
        else:
            n = len(side.hand)
            hand = tuple(sorted(cards[:n]))
            sides[seat] = side._replace(hand=hand, deck=tuple(cards[n:]), drawn=frozenset(hand))
    return s._replace(sides=(sides[0], sides[1]))


class Weights(NamedTuple):
    """Greedy's evaluation weights (see the module docstring)."""

    tower: float = 1.0
    minion: float = 0.5
    health: float = 0.25
    builder: float = 1.0
    raider: float = 0.8
    guard: float = 0.4
    sentenced: float = 0.5
    card: float = 0.6
    hand_decay: float = 0.85
    playable: float = 0.4
    playable_cap: float = 2.0
    source: float = 2.0
    source_decay: float = 0.9
    tp: float = 0.3
    late: float = 0.2
    margin: float = 0.01
    mulligan_cost: float = 5.0


def evaluate(config: Config, s: State, me: int, w: Weights) -> float:
    """Greedy's score of ``s`` for seat ``me`` (the formula of the module docstring)."""
    if s.outcome is not None:
        winner = s.outcome[0]
        return 0.0 if winner == DRAW_SEAT else (WIN_VALUE if winner == me else -WIN_VALUE)
    mine, theirs = s.sides[me], s.sides[1 - me]
    left = max(w.late, (config.turns - mine.turns) / config.turns)
    board = 0.0
    for m in s.minions:
        info = config.cards[m.card]
        lasting = rules.health_left(config, m) - m.bonus  # bonus health ends with the turn
        if lasting <= 0:
            continue  # it dies when its bonus health ends: worth nothing
        value = w.minion + w.health * lasting - (w.sentenced if m.sentenced else 0.0)
        if m.zone == TOWER:
            value += w.builder * info.construction
        elif m.zone == BATTLEFIELD:
            value += w.raider * info.might
        else:
            value += w.guard * info.might
        board += value if m.owner == me else -value
    owned = [a + e for a, e in zip(mine.available, mine.exhausted, strict=True)]
    total = sum(owned)
    extra = 0.0
    step = w.source
    for _ in range(total):
        extra += step
        step *= w.source_decay
    for seat_hand, sign in ((mine.hand, 1.0), (theirs.hand, -1.0)):
        step = w.card
        for _ in seat_hand:
            extra += sign * step
            step *= w.hand_decay
    playable = 0
    for c in mine.hand:
        if c != UNKNOWN:
            info = config.cards[c]
            if info.type != rules.WITCHERY and info.power <= total and info.specific <= owned[info.faction]:
                playable += 1
    extra += w.playable * min(playable, w.playable_cap)
    return w.tower * (mine.tower - theirs.tower) + left * board + extra + w.tp * mine.tp


def _settle(config: Config, s: State, me: int, w: Weights, depth: int) -> State:
    """Play out the decisions an action opened until a main, start or mulligan decision (or the end)."""
    for _ in range(12):
        due = rules.decision(s)
        if due is None or due[0] in (MAIN, START, MULLIGAN):
            return s
        legal = rules.legal_actions(config, s)
        if depth <= 0 or len(legal) == 1:
            s = rules.apply(config, s, legal[0], check=False)
            continue
        sign = 1.0 if due[1] == me else -1.0
        scored = [(sign * evaluate(config, _settle(config, rules.apply(config, s, a, check=False), me, w, depth - 1),
                                   me, w), i)
                  for i, a in enumerate(legal)]
        s = rules.apply(config, s, legal[max(scored, key=lambda t: (t[0], -t[1]))[1]], check=False)
    return s


class GreedyAgent:
    """One step ahead by :func:`evaluate` (see the module docstring); no randomness."""

    name = "greedy"

    def __init__(self, weights: Weights | None = None) -> None:
        self.weights = Weights() if weights is None else weights

    def act(self, view: View, legal: tuple[Action, ...], config: Config, rng: SplitMix64) -> Action:
        """The best action for the visible position."""
        return self.choose(config, view.state, view.me, legal)

    def mulligan(self, config: Config, s: State, me: int, legal: tuple[Action, ...]) -> Action:
        """Put back the cards costing more than ``mulligan_cost``, most expensive first, up to the limit."""
        hand = s.sides[me].hand
        dear = sorted((i for i, c in enumerate(hand) if c != UNKNOWN and _cost(config, c) > self.weights.mulligan_cost),
                      key=lambda i: (-_cost(config, hand[i]), i))[:config.mulligan]
        wanted = tuple(sorted(hand[i] for i in dear))
        for a in legal:
            if tuple(c for i, c in enumerate(hand) if a[1] >> i & 1) == wanted:
                return a
        return legal[0]

    def rank(self, config: Config, s: State, me: int, legal: tuple[Action, ...]) -> list[tuple[float, int]]:
        """``(score, index)`` of every legal action, best first (END scored as the position, others less ``margin``)."""
        w = self.weights
        base = evaluate(config, s, me, w)
        scored = []
        for i, a in enumerate(legal):
            if a[0] == K_END:
                scored.append((base, i))
            else:
                after = _settle(config, rules.apply(config, s, Action(*a), check=False), me, w, 1)
                if a[0] == K_PLAY and config.cards[a[1]].type == rules.INVOCATION and after.outcome is None:
                    # an Invocation is scored as if its text resolved now (one step cannot see the next turn)
                    after = rules.run_clause(config, after, me, a[1], config.cards[a[1]].clauses["start_next"],
                                             rules.NO_TARGET)
                scored.append((evaluate(config, after, me, w) - w.margin, i))
        return sorted(scored, key=lambda t: (-t[0], t[1]))

    def choose(self, config: Config, s: State, me: int, legal: tuple[Action, ...]) -> Action:
        """The best action in a (visible or full) state."""
        if len(legal) == 1:
            return legal[0]
        if legal[0][0] == K_MULLIGAN:
            return self.mulligan(config, s, me, legal)
        return legal[self.rank(config, s, me, legal)[0][1]]


def _cost(config: Config, card: int) -> int:
    info = config.cards[card]
    return info.tp if info.type == rules.WITCHERY else info.power


# -- the hooks of core's search agent (core/search.py) ----------------------------------------------------------
VALUE_SCALE = 10.0  # an unfinished rollout is worth the logistic of greedy's evaluation / VALUE_SCALE


def search_prior(config: Config, view: View, legal: tuple[Action, ...], policy: AgentSpec) -> list[float]:
    """Greedy's score of every legal action on the view (the mulligan: greedy's choice 0, the others -1)."""
    greedy = _DECL_GREEDY.build(policy) if policy.name == "greedy" else GreedyAgent()
    if legal[0][0] == K_MULLIGAN:
        chosen = greedy.mulligan(config, view.state, view.me, legal)
        return [0.0 if a == chosen else -1.0 for a in legal]
    scores = [0.0] * len(legal)
    for score, i in greedy.rank(config, view.state, view.me, legal):
        scores[i] = score
    return scores


def search_value(config: Config, s: State, seat: int, policy: AgentSpec) -> float:
    """An unfinished rollout's worth for ``seat``: the logistic of the rollout greedy's evaluation (random: default)."""
    weights = _DECL_GREEDY.build(policy).weights if policy.name == "greedy" else Weights()
    return 1.0 / (1.0 + math.exp(-evaluate(config, s, seat, weights) / VALUE_SCALE))


def search_clock(config: Config, s: State) -> int:
    """Player turns begun."""
    return s.turn


def SearchAgent(budget: int = 48, width: int = 3, horizon: int = 4, z: float = 1.0) -> Any:  # noqa: N802
    """Core's search agent on Babylon (``core/search.py``) with these options (a shorthand for tests)."""
    from workbench.core.model import get_game  # by name: the model module imports this one

    return get_game("babylon").make_agent(f"search:budget={budget},width={width},horizon={horizon},z={z}")


def _greedy(**options: float) -> GreedyAgent:
    return GreedyAgent(Weights(**options))


# core's search agent (core/search.py); a winning action scores the win less greedy's margin: anything above
# half of it is a win
SEARCH = SearchHooks(prior="workbench.games.babylon.fast:prior", value=f"{__name__}:search_value",
                     clock=f"{__name__}:search_clock", rollout="workbench.games.babylon.fast:rollouts",
                     policies=("random", "greedy"), win=WIN_VALUE / 2,
                     options=(("budget", 48), ("width", 3), ("horizon", 4), ("prior", "greedy@tuned"), ("z", 1.0)))

_DECL_GREEDY = AgentDecl("greedy", _greedy, "one step ahead by a weighted position score (weights are options)",
                         tuple(Param(f, getattr(Weights(), f), float, f"weight: {f}", -1e6, 1e6)
                               for f in Weights._fields))
DECLS = (
    _DECL_GREEDY,
    search_decl("babylon", SEARCH),
)

__all__ = ["DECLS", "GreedyAgent", "SearchAgent", "View", "Weights", "determinise", "evaluate", "observe"]
