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
    + Σ_{k<my sources} source · source_decay^k
    − source_surplus · Σ_{need≤k<my sources} source · source_decay^k
    + tp · my Transformed Power + tp_witchery · min(my Transformed Power, the TP cost of my hand's Witcheries)

where ``need`` = ⌈max(source_need, the power cost of my dearest non-Witchery hand card)⌉: a source beyond what
the dearest card in hand (or ``source_need``, what a likely draw asks for) can use loses the share
``source_surplus`` of its worth, and Transformed Power that the Witcheries held can spend is worth
``tp_witchery`` more a point.  ``source_surplus = tp_witchery = 0`` is the evaluation before they existed
(greedy@tuned plays it).

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

**Payment** (``payment="chosen"``, where a play names the sources that pay it): the evaluation does
not see which sources paid, so greedy considers one payment per play, **keep-together**
(:func:`keep_together`): the payment after which the most cards of the hand can be paid *together*
this turn (:func:`playable_together`), then the most one at a time (``rules.kept_playable``), then
the payment ``keep_playable`` makes.  The play's other payments score :data:`PAY_STEP` below it
(the search's prior: they rank just after it, and the search counts them as that play).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, NamedTuple

from workbench.core.model import AgentDecl, AgentSpec, Param, SearchHooks
from workbench.core.rng import SplitMix64
from workbench.core.skill.search import search_decl
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
PAY_STEP = 1e-6  # a play paid otherwise than keep-together scores this much below it (GreedyAgent.rank)


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
    from workbench.core.sim.rng_numba import shuffled  # here: numba loads with the first search, not with the game

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
    """Greedy's evaluation weights (see the module docstring).

    The defaults (issue 37): the board and hand weights greedy@tuned found, rounded; the old source worth
    (``source``, ``source_decay``) cut by ``source_surplus`` past what the hand can use.  The evaluation before
    it, as explicit options: ``OLD_DEFAULTS``.
    """

    tower: float = 0.4
    minion: float = 1.5
    health: float = 0.75
    builder: float = 1.9
    raider: float = 1.5
    guard: float = 1.15
    sentenced: float = 0.3
    card: float = 0.85
    hand_decay: float = 0.75
    playable: float = 0.35
    playable_cap: float = 5.6
    source: float = 2.0
    source_decay: float = 0.9
    tp: float = 0.3
    late: float = 0.6
    margin: float = -0.3
    mulligan_cost: float = 5.0
    source_need: float = 4.0
    source_surplus: float = 0.8
    tp_witchery: float = 0.25


# the default weights before issue 37, with the terms it added neutral: old results replay with these options
OLD_DEFAULTS = ("tower=1.0,minion=0.5,health=0.25,builder=1.0,raider=0.8,guard=0.4,sentenced=0.5,card=0.6,"
                "hand_decay=0.85,playable=0.4,playable_cap=2.0,source=2.0,source_decay=0.9,tp=0.3,late=0.2,"
                "margin=0.01,mulligan_cost=5.0,source_surplus=0.0,tp_witchery=0.0")


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
    dearest, witch = _hand_costs(config, mine.hand)
    need = max(w.source_need, dearest)
    useful = total if need >= total else max(0, math.ceil(need))
    extra = kept = 0.0
    step = w.source
    for k in range(total):
        if k == useful:
            kept = extra
        extra += step
        step *= w.source_decay
    if useful >= total:
        kept = extra
    sources = extra
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
    extra -= w.source_surplus * (sources - kept)
    tail = w.tp * mine.tp + w.tp_witchery * min(mine.tp, witch)
    return w.tower * (mine.tower - theirs.tower) + left * board + extra + tail


def _hand_costs(config: Config, hand: tuple[int, ...]) -> tuple[int, int]:
    """The power cost of the dearest known non-Witchery card of ``hand`` (0: none), and its Witcheries' TP costs."""
    dearest = witch = 0
    for c in hand:
        if c != UNKNOWN:
            info = config.cards[c]
            if info.type == rules.WITCHERY:
                witch += info.tp
            elif info.power > dearest:
                dearest = info.power
    return dearest, witch


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


def playable_together(config: Config, cards: tuple[int, ...], available: tuple[int, ...],
                      total: int | None = None) -> int:
    """The most of ``cards`` (Witcheries and unknown cards aside) that sources ``available`` pay all at once.

    A set of cards is payable together when its power is at most the sources' total (``total``, default
    their sum) and, in every faction, its cards' specific costs are at most that faction's sources (the
    rest of each cost may come from any colour).  Per faction, the least power of ``j`` of its cards whose
    specific costs fit; then the factions combined: the largest count whose least power fits the total.
    """
    total = sum(available) if total is None else total
    least = [0]  # least[j]: the least power j cards of the factions so far cost
    for f in range(rules.N_FACTIONS):
        group = []
        for c in cards:
            info = config.cards[c] if c != UNKNOWN else None
            if (info is not None and info.type != rules.WITCHERY and info.faction == f and info.power <= total
                    and info.specific <= available[f]):
                group.append((info.power, info.specific))
        if not group:
            continue
        cap = available[f]
        best = [[_NEVER] * (cap + 1) for _ in range(len(group) + 1)]  # best[j][k]: least power, specific cost k
        best[0][0] = 0
        for n, (power, specific) in enumerate(group):
            for j in range(n, -1, -1):
                for k in range(cap - specific, -1, -1):
                    if best[j][k] + power < best[j + 1][k + specific]:
                        best[j + 1][k + specific] = best[j][k] + power
        own = [min(row) for row in best]
        least = [min(least[i] + own[j - i] for i in range(max(0, j - len(group)), min(j, len(least) - 1) + 1))
                 for j in range(len(least) + len(group))]
    return max(j for j, p in enumerate(least) if p <= total)


_NEVER = 1 << 40  # playable_together: no set of that size fits


def keep_together(config: Config, side: rules.Side, card: int) -> tuple[int, ...]:
    """Greedy's payment of ``card`` (sources per faction): keep-together (the module docstring).

    Of every payment (``rules.payments``), the one leaving the most of the hand payable together, then the
    most payable one at a time; among equals the others-first payment, else the first in ``payments``' order
    (so where ``keep_playable``'s payment keeps the most together, it is that one).
    """
    rest = list(side.hand)
    rest.remove(card)
    cards = tuple(rest)
    info = config.cards[card]
    avail = side.available

    def key(paid: tuple[int, ...]) -> tuple[int, int]:
        left = tuple(a - p for a, p in zip(avail, paid, strict=True))
        return playable_together(config, cards, left), rules.kept_playable(config, side, card, paid)

    # no payment keeps more together than the cards payable together with this one, or more one at a time
    # than the cards whose power the sources left pay
    total = sum(avail) - info.power
    most_together = playable_together(config, cards, tuple(a - (info.specific if f == info.faction else 0)
                                                           for f, a in enumerate(avail)), total)
    most_kept = sum(1 for c in cards if c != UNKNOWN and config.cards[c].type != rules.WITCHERY
                    and config.cards[c].power <= total)
    best = rules.payment(config, side, card, "others_first")
    top = key(best)
    for paid in rules.payments(config, side, card):
        if top == (most_together, most_kept):
            break
        scored = key(paid)
        if scored > top:
            best, top = paid, scored
    return best


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
        """``(score, index)`` of every legal action, best first (END scored as the position, others less ``margin``).

        Under ``payment="chosen"`` a play paid otherwise than :func:`keep_together` scores ``PAY_STEP`` less than
        the same play paid that way.
        """
        w = self.weights
        base = evaluate(config, s, me, w)
        scored: list[tuple[float, int]] = []
        picks: dict[int, int] = {}
        others: list[int] = []
        for i, a in enumerate(legal):
            a = Action(*a)
            if a.kind == K_PLAY and config.payment == "chosen":
                if a.a not in picks:
                    picks[a.a] = rules.pack_payment(keep_together(config, s.sides[me], a.a))
                if a.pay != picks[a.a]:
                    others.append(i)
                    continue
            scored.append((self._score(config, s, me, a, base), i))
        if others:
            kept = {legal[i][:3]: score for score, i in scored if legal[i][0] == K_PLAY}
            for i in others:  # keep-together's payment of the play not among the actions given: scored itself
                play = legal[i][:3]
                scored.append((kept[play] - PAY_STEP if play in kept else self._score(config, s, me, legal[i], base),
                               i))
        return sorted(scored, key=lambda t: (-t[0], t[1]))

    def _score(self, config: Config, s: State, me: int, a: Action, base: float) -> float:
        """One action's score for :meth:`rank` (``base``: the position's)."""
        w = self.weights
        if a[0] == K_END:
            return base
        after = _settle(config, rules.apply(config, s, Action(*a), check=False), me, w, 1)
        if a[0] == K_PLAY and config.cards[a[1]].type == rules.INVOCATION and after.outcome is None:
            # an Invocation is scored as if its text resolved now (one step cannot see the next turn)
            after = rules.run_clause(config, after, me, a[1], config.cards[a[1]].clauses["start_next"],
                                     rules.NO_TARGET)
        return evaluate(config, after, me, w) - w.margin

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


# -- the hooks of core's search agent (core/skill/search.py) ----------------------------------------------------------
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


def search_key(config: Config, view: View, action: Action) -> tuple[int, ...]:
    """An action without its payment: the payments of one play are searched once (the prior's best: keep-together)."""
    return tuple(action[:3])


def search_clock(config: Config, s: State) -> int:
    """Player turns begun."""
    return s.turn


def SearchAgent(budget: int = 48, width: int = 3, horizon: int = 4, z: float = 1.0) -> Any:  # noqa: N802
    """Core's search agent on Babylon (``core/skill/search.py``) with these options (a shorthand for tests)."""
    from workbench.core.model import get_game  # by name: the model module imports this one

    return get_game("babylon").make_agent(f"search:budget={budget},width={width},horizon={horizon},z={z}")


def _greedy(**options: float) -> GreedyAgent:
    return GreedyAgent(Weights(**options))


# core's search agent (core/skill/search.py); a winning action scores the win less greedy's margin: anything above
# half of it is a win.  Rollouts (and the cut rollouts' value): default greedy, prior greedy@tuned, not the best fast
# tier (rollout=best, greedy@raised): measured on benchmarks/search.py's setting (seed 31, n=160, both seats, against
# greedy@tuned) rollout=best scored 71.9 % [64.5, 78.3] and these 89.1 % [82.9, 92.8], paired -17.2 points
# [-24.3, -10.1], and head to head the search rolling out with greedy@raised (its prior too) scored 36.5 % [27.7,
# 46.3] against this one (benchmarks/raise.py, seed 2027, n=100): greedy@raised wins fast games, but as the rollouts'
# player and a cut rollout's value it is the weaker guide.  Budget and horizon: halving the work (budget 24, horizon
# 2) scored 33.4 % [26.6, 41.1] against these (n=160), so the search keeps them and is made faster by the compiled
# deal (SearchHooks.deal) instead
SEARCH = SearchHooks(prior="workbench.games.babylon.engine.fast:prior", value=f"{__name__}:search_value",
                     clock=f"{__name__}:search_clock", key=f"{__name__}:search_key",
                     rollout="workbench.games.babylon.engine.fast:rollouts",
                     deal="workbench.games.babylon.engine.fast:deal",
                     policies=("random", "greedy"), win=WIN_VALUE / 2,
                     options=(("budget", 48), ("width", 3), ("horizon", 4), ("z", 1.0), ("rollout", "greedy"),
                              ("prior", "greedy@tuned")))

_DECL_GREEDY = AgentDecl("greedy", _greedy, "one step ahead by a weighted position score (weights are options)",
                         tuple(Param(f, getattr(Weights(), f), float, f"weight: {f}", -1e6, 1e6)
                               for f in Weights._fields))
DECLS = (
    _DECL_GREEDY,
    search_decl("babylon", SEARCH),
)

__all__ = ["DECLS", "OLD_DEFAULTS", "GreedyAgent", "SearchAgent", "View", "Weights", "determinise", "evaluate",
           "observe"]
