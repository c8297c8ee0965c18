"""Babel agents: random (with a turn cap), greedy (one action ahead), the hooks of core's search agent.

An agent sees only a :class:`View`: its own hand, everything on the board (both sides' stacks,
temples, pawns, the two temple stacks), the discard pile, and only the *sizes* of the opponent's
hand, the nation draw pile and the quarry.  Each seat draws its random numbers from its own
stream (``model.agent_stream``), so an agent never disturbs the decks.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache
from typing import Any, NamedTuple

from workbench.core.model import AgentDecl, AgentSpec, Param, SearchHooks
from workbench.core.rng import SplitMix64
from workbench.core.skill.search import search_decl
from workbench.games.babel import rules
from workbench.games.babel.rules import END_TURN, QUARRY, Action, Config, GameState


class View(NamedTuple):
    """What the seat ``me`` may see (field meanings as in ``rules.GameState``)."""

    me: int
    current: int
    turn: int
    first: int
    hand: tuple[int, ...]  # own nation-card counts per nation
    start_cards: tuple[int, int]
    enemy_hand: int  # the opponent's hand size
    announced: tuple[int, int]  # hand sizes announced at each seat's last phase 3 (0: fewer than 4)
    stacks: tuple
    temples: tuple
    temple_stacks: tuple
    pawns: tuple[int, int]
    quarry_size: int
    draw_size: int
    discard: tuple[int, ...]
    migrated: bool
    actions: int  # actions taken this turn by the player to move
    pending: int  # discards the opponent of the player to move still owes
    end_phase: bool
    tallies: tuple  # both seats' counts of ability uses, builds, moves, ... (every action is public)


def observe(state: GameState, seat: int) -> View:
    """The view of ``seat``."""
    s = state
    return View(seat, s.current, s.turn, s.first, s.hands[seat], s.start_cards, rules.hand_size(s, 1 - seat),
                s.announced, s.stacks, s.temples, s.temple_stacks, s.pawns, len(s.quarry), len(s.draw_pile),
                s.discard, s.migrated, s.actions, s.pending, s.end_phase, s.tallies)


def unseen_cards(view: View) -> tuple[list[int], list[int]]:
    """The hidden nation cards (opponent's hand + draw pile) and temple cards (the quarry), sorted."""
    nations, temples = _unseen(view)
    return list(nations), list(temples)


@lru_cache(maxsize=16)
def _unseen(view: View) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """:func:`unseen_cards` of one view, kept for the search's many worlds of one decision."""
    nations = Counter({n: rules.NATION_COPIES for n in range(rules.N_NATIONS)})
    nations.subtract({n: c for n, c in enumerate(view.hand)})
    nations.subtract(view.discard)
    temples = Counter({lv: rules.TEMPLE_COPIES[lv - 1] for lv in range(1, rules.TOP_LEVEL + 1)})
    temples[1] -= sum(view.start_cards)
    for seat in (0, 1):
        temples.subtract(view.temple_stacks[seat])
        for site in range(rules.N_SITES):
            nations.subtract(view.stacks[seat][site])
            temples.subtract(view.temples[seat][site])
    return tuple(sorted(nations.elements())), tuple(sorted(temples.elements()))


def world(view: View, nations: list[int], quarry: list[int], deck_rng: int) -> GameState:
    """The full state of ``view`` with the hidden cards in the given order (opponent's hand first)."""
    enemy = Counter(nations[:view.enemy_hand])
    hands = rules._with(rules._with(((), ()), view.me, view.hand), 1 - view.me,
                        tuple(enemy[n] for n in range(rules.N_NATIONS)))
    return GameState(hands, view.start_cards, view.stacks, view.temples, view.temple_stacks, tuple(quarry),
                     tuple(nations[view.enemy_hand:]), view.discard, view.pawns, view.current, view.first, view.turn,
                     view.migrated, view.actions, view.pending, view.end_phase, view.announced, deck_rng,
                     view.tallies, None)


def determinise(view: View, rng: SplitMix64) -> GameState:
    """A full state consistent with ``view``: the hidden cards dealt at random, a fresh deck stream."""
    from workbench.core.sim.rng_numba import shuffled  # here: numba loads with the first search, not with the game

    nations, temples = unseen_cards(view)
    return world(view, shuffled(rng, nations), shuffled(rng, temples), rng.next_u64())


def public_world(view: View) -> GameState:
    """A full state for ``view`` with the hidden cards in a fixed order (greedy only reads public effects)."""
    nations, temples = unseen_cards(view)
    return world(view, nations, temples, 0)


# ------------------------------------------------------------------------------------------ random
class RandomAgent:
    """Uniform over the legal actions, but once the turn has taken ``cap`` actions it ends the turn.

    Without the cap a uniform player ends a turn only when ``end turn`` happens to be drawn among
    some 20-40 actions; the cap keeps turns short and the agent a pure function of the view and its
    stream (``end turn`` is taken without a draw; one draw otherwise).
    """

    name = "random"

    def __init__(self, cap: int = 10) -> None:
        self.cap = cap

    def act(self, view: View, legal: tuple[Action, ...], config: Config, rng: SplitMix64) -> Action:
        """Pick uniformly, or end the turn past the cap."""
        if view.pending == 0 and view.actions >= self.cap and legal[-1].kind == END_TURN:
            return legal[-1]
        return legal[rng.below(len(legal))]


# ------------------------------------------------------------------------------------------ greedy
class Weights(NamedTuple):
    """Greedy evaluation weights (each an agent option, e.g. ``greedy:value=12,hand=0.2``).

    A position is scored for a seat as the weighted sum of: ``value`` × (own − opponent's combined
    temple value); ``potential`` × (own − opponent's build progress, Σ over sites of the nation cards
    there toward the next level, capped at 1 per site); ``pawn`` × 1 when a build is in reach at the
    own pawn's site (a stack top or the start card one level above the temple there, and enough
    cards there plus in hand); − ``threat`` × Σ of the own temple values at sites where the opponent
    has a run of 3; ``runs`` × the same for the own runs against the opponent's temples; ``hand`` ×
    (own − opponent's hand after owed discards); ``variety`` × the nations in the own hand (more
    sites to move to).  A won position scores ``WIN``, a lost one ``-WIN``, a drawn one ``DRAW_SCORE``.
    """

    value: float = 10.0
    potential: float = 3.0
    pawn: float = 2.0
    threat: float = 2.0
    runs: float = 1.0
    hand: float = 0.4
    variety: float = 0.1


WIN = 1.0e6
DRAW_SCORE = 0.0
MARGIN = 1e-9  # an action must beat ending the turn by more than this


def site_terms(state: GameState, me: int, config: Config) -> tuple[int, float, int, int]:
    """Per-site terms for ``me``, summed: value difference, progress difference, runs, threat.

    Progress of a side at a site is min(nation cards there, next level) / next level (0 at level 6);
    ``runs`` sums the opponent's temple values where ``me`` has a run of 3, ``threat`` the own temple
    values where the opponent has one (a run is only looked for where it could hit a temple).
    """
    them = 1 - me
    value, progress, runs, threat = 0, 0.0, 0, 0
    for site in range(rules.N_SITES):
        mine, theirs = rules.level(state.temples[me][site]), rules.level(state.temples[them][site])
        my_cards, their_cards = state.stacks[me][site], state.stacks[them][site]
        value += mine - theirs
        progress += _progress(len(my_cards), mine) - _progress(len(their_cards), theirs)
        if theirs and rules.any_run(my_cards, config.run_any):
            runs += theirs
        if mine and rules.any_run(their_cards, config.run_any):
            threat += mine
    return value, progress, runs, threat


def _progress(cards: int, level: int) -> float:
    nxt = level + 1
    return min(cards, nxt) / nxt if nxt <= rules.TOP_LEVEL else 0.0


def in_reach(state: GameState, seat: int) -> int:
    """1 when a build is in reach at ``seat``'s pawn site (a card one level up on offer, enough cards)."""
    site = state.pawns[seat]
    if site == QUARRY:
        return 0
    need = rules.level(state.temples[seat][site]) + 1
    if need > rules.TOP_LEVEL or len(state.stacks[seat][site]) + rules.hand_size(state, seat) < need:
        return 0
    tops = [stack[-1] for stack in state.temple_stacks if stack]
    return 1 if need in tops or (need == 1 and state.start_cards[seat]) else 0


def evaluate(state: GameState, me: int, config: Config, w: Weights) -> float:
    """Greedy's score of a position for ``me`` (class :class:`Weights`)."""
    if state.outcome is not None:
        return WIN if state.outcome[0] == me else (-WIN if state.outcome[0] == 1 - me else DRAW_SCORE)
    them = 1 - me
    owed = [state.pending if seat != state.current else 0 for seat in (0, 1)]
    value, progress, runs, threat = site_terms(state, me, config)
    score = w.value * value + w.potential * progress + w.runs * runs - w.threat * threat
    score += w.pawn * in_reach(state, me)
    score += w.hand * (rules.hand_size(state, me) - owed[me] - rules.hand_size(state, them) + owed[them])
    return score + w.variety * sum(1 for c in state.hands[me] if c)


class GreedyAgent:
    """One action ahead: the legal action whose result :func:`evaluate` scores best (first on ties).

    Each action is applied to a copy of the public position (the hidden cards in a fixed order; no
    action but ``end turn`` reads them, and ``end turn`` is scored as the position unchanged).  The
    turn ends when no action beats ending it.  Uses no randomness.
    """

    name = "greedy"

    def __init__(self, weights: Weights | None = None) -> None:
        self.weights = Weights() if weights is None else weights

    def act(self, view: View, legal: tuple[Action, ...], config: Config, rng: SplitMix64) -> Action:
        """Pick the best action for the public position."""
        return self.choose(config, public_world(view), view.me, legal)

    def rank(self, config: Config, state: GameState, me: int,
             legal: tuple[Action, ...]) -> list[tuple[float, int, Action]]:
        """``(score, order, action)`` of every legal action, best first (ties keep the legal order)."""
        base = evaluate(state, me, config, self.weights)
        scored = [(base if a.kind == END_TURN
                   else evaluate(rules.apply(config, state, a, check=False), me, config, self.weights), i, a)
                  for i, a in enumerate(legal)]
        # ending the turn goes first unless an action beats it by more than MARGIN
        return sorted(scored, key=lambda t: (-(t[0] if t[2].kind == END_TURN else t[0] - MARGIN), t[1]))

    def choose(self, config: Config, state: GameState, me: int, legal: tuple[Action, ...]) -> Action:
        """The best action in a full state (rollouts call this directly)."""
        if len(legal) == 1:
            return legal[0]
        return self.rank(config, state, me, legal)[0][2]


# ------------------------------------------------------------------------------------------ search
# the hooks of core's search agent (core/skill/search.py): greedy's score as the prior, rollouts in the compiled kernel
VALUE_SCALE = 20.0  # an unfinished rollout is worth the logistic of greedy's evaluation / VALUE_SCALE


def search_prior(config: Config, view: View, legal: tuple[Action, ...], policy: AgentSpec) -> list[float]:
    """Greedy's score of every legal action (``end turn`` first on ties, as greedy ranks them)."""
    greedy = _DECLS["greedy"].build(policy) if policy.name == "greedy" else GreedyAgent()
    state = public_world(view)
    base = evaluate(state, view.me, config, greedy.weights)
    return [base if a.kind == END_TURN else
            evaluate(rules.apply(config, state, a, check=False), view.me, config, greedy.weights) - MARGIN
            for a in legal]


def search_value(config: Config, state: GameState, seat: int, policy: AgentSpec) -> float:
    """An unfinished rollout's worth for ``seat``: the logistic of the rollout greedy's evaluation (random: default)."""
    weights = _DECLS["greedy"].build(policy).weights if policy.name == "greedy" else Weights()
    return 1.0 / (1.0 + math.exp(-evaluate(state, seat, config, weights) / VALUE_SCALE))


def search_clock(config: Config, state: GameState) -> int:
    """Turns begun."""
    return state.turn


def SearchAgent(budget: int = 72, horizon: int = 2, width: int = 6, rollout: str = "greedy") -> Any:  # noqa: N802
    """Core's search agent on Babel (``core/skill/search.py``) with these options (a shorthand for tests)."""
    from workbench.core.model import get_game  # by name: the model module imports this one

    return get_game("babel").make_agent(f"search:budget={budget},horizon={horizon},width={width},rollout={rollout}")


def _random(cap: int) -> RandomAgent:
    return RandomAgent(cap)


def _greedy(**weights: float) -> GreedyAgent:
    return GreedyAgent(Weights(**weights))


# core's search agent (core/skill/search.py); a winning action scores the win less greedy's margin: anything above
# half of it is a win.  Rollouts and prior: the best fast policy (rollout=best, the strongest declared fast tier)
SEARCH = SearchHooks(prior="workbench.games.babel.engine.fast:prior", value=f"{__name__}:search_value",
                     clock=f"{__name__}:search_clock", rollout="workbench.games.babel.engine.fast:rollouts",
                     policies=("random", "greedy"), win=WIN / 2,
                     options=(("budget", 72), ("width", 6), ("horizon", 2), ("z", 1.0)))

DECLS = (
    AgentDecl("random", _random, "uniform over the legal actions; ends the turn after cap actions", (
        Param("cap", 10, int, "actions in a turn after which the turn is ended", 1, 1000),)),
    AgentDecl("greedy", _greedy, "one action ahead by a weighted position score (weights are options)",
              tuple(Param(f, getattr(Weights(), f), float, f"weight of {f}", -1e6, 1e6) for f in Weights._fields)),
    search_decl("babel", SEARCH),
)
_DECLS = {d.name: d for d in DECLS}
