"""Duel agents: random, greedy (one ply), and the hooks of core's search agent (``core/skill/search.py``).

An agent sees only a :class:`View`: its own hand, both players' public positions, the discard
pile, the size of the draw pile and the turn — never the enemy's hand or the deck order.  Each
seat draws its random numbers from its own stream, so agents never disturb the deck.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple, Protocol

import numpy as np

from workbench.core.errors import InputError
from workbench.core.model import AgentDecl, AgentSpec, Param, RandomAgent, SearchHooks
from workbench.core.rng import SplitMix64
from workbench.core.skill.search import search_decl
from workbench.games.duel import rules
from workbench.games.duel.effects import STATS
from workbench.games.duel.rules import DISCARD, Action, Config, GameState, PlayerState


class View(NamedTuple):
    """What the player ``me`` may see."""

    me: int
    hand: tuple[int, ...]
    players: tuple[PlayerState, PlayerState]
    discard: tuple[int, ...]
    deck_size: int
    enemy_hand_size: int
    turn: int
    pending_discard: bool
    played: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())  # cards each seat played (shown face up)


def observe(state: GameState, seat: int | None = None) -> View:
    """The view of ``seat`` (default: the player to move)."""
    me = state.current if seat is None else seat
    return View(me, state.hands[me], state.players, state.discard, len(state.deck),
                len(state.hands[1 - me]), state.turn, state.pending_discard, state.played)


class Agent(Protocol):
    """Chooses one of the legal actions (core's agent interface with the duel's types)."""

    def act(self, view: View, legal: tuple[Action, ...], config: Config, rng: SplitMix64) -> Action:
        """Return one element of ``legal``."""


class Weights(NamedTuple):
    """Greedy evaluation weights (all tunable as agent options, e.g. ``greedy:wall=0.8``).

    A position is scored from the mover's side as the weighted sum over the eight statistics of
    (mine − enemy's): ``tower``, ``wall``, ``producer`` (each of mines, monasteries, barracks) and
    ``resource`` (each of ore, mana, troops).  A play that wins scores ``WIN``, one that loses
    ``-WIN``, one that ends the game in a draw ``DRAW_SCORE``.  Play-again cards get ``again`` on top; a discard scores
    the current position minus ``discard`` × the card's value (so the least valuable card goes).
    """

    tower: float = 1.0
    wall: float = 0.5
    producer: float = 4.0
    resource: float = 0.25
    again: float = 1.0
    discard: float = 0.1


WIN = 1.0e9
DRAW_SCORE = -1.0e6  # a play that ends the game in a draw: better than losing, worse than anything else


def evaluate(players: tuple[PlayerState, ...], me: int, w: Weights) -> float:
    """Linear score of a position for ``me`` (stats in STATS order, one float sum, left to right)."""
    mine, theirs = players[me], players[1 - me]
    weights = (w.tower, w.wall, w.producer, w.producer, w.producer, w.resource, w.resource, w.resource)
    total = 0.0
    for i in range(len(STATS)):
        total += weights[i] * float(mine[i] - theirs[i])
    return total


def score_action(view: View, action: Action, config: Config, w: Weights) -> float:
    """Greedy's score of one legal action."""
    cards = config.cards.cards
    card = cards[view.hand[action.slot]]
    if action.kind == DISCARD:
        return evaluate(view.players, view.me, w) - w.discard * rules.card_values(config)[card.index]
    me = view.me
    players = view.players
    paid = rules._set(players, me, card.resource, getattr(players[me], card.resource) - card.cost)
    after = rules.apply_effect(paid, me, card.effect, config)
    outcome = rules.check_victory(after, config.battlefield)
    if outcome is not None:
        winner = outcome[0]
        return WIN if winner == me else (-WIN if winner == 1 - me else DRAW_SCORE)
    score = evaluate(after, me, w)
    if card.effect.again:
        score += w.again
    return score


class GreedyAgent:
    """One ply: the legal action with the highest :func:`score_action` (first one on ties)."""

    name = "greedy"

    def __init__(self, weights: Weights | None = None) -> None:
        self.weights = Weights() if weights is None else weights

    def act(self, view: View, legal: tuple[Action, ...], config: Config, rng: SplitMix64) -> Action:
        """Pick the best-scoring action; uses no randomness."""
        best, best_score = legal[0], -math.inf
        for action in legal:
            s = score_action(view, action, config, self.weights)
            if s > best_score:
                best, best_score = action, s
        return best


# -- the hooks of core's search agent (core/skill/search.py; declared on the model as ``search``) ----------------------
VALUE_SCALE = 20.0  # an unfinished rollout is worth the logistic of greedy's evaluation / VALUE_SCALE


def search_prior(config: Config, view: View, legal: tuple[Action, ...], policy: AgentSpec) -> list[float]:
    """Greedy's score of every legal action (the rollout agent's weights when it is a greedy)."""
    weights = make_agent(policy).weights if policy.name == "greedy" else Weights()
    return [score_action(view, action, config, weights) for action in legal]


def search_key(config: Config, view: View, action: Action) -> tuple[int, int]:
    """Two copies of a card in hand are one move: ``(kind, card)``."""
    return action.kind, view.hand[action.slot]


def search_value(config: Config, state: rules.State, seat: int, policy: AgentSpec) -> float:
    """An unfinished rollout's worth for ``seat``: the logistic of the rollout greedy's evaluation (random: default)."""
    weights = make_agent(policy).weights if policy.name == "greedy" else Weights()
    return 1.0 / (1.0 + math.exp(-evaluate(state.game.players, seat, weights) / VALUE_SCALE))


def search_clock(config: Config, state: rules.State) -> int:
    """Player turns begun."""
    return state.game.turn


def determinise(view: View, config: Config, rng: SplitMix64) -> GameState:
    """A full game state consistent with what ``view`` shows (the hidden cards dealt at random).

    Regular deck: the cards neither in the own hand nor on the discard pile, in index order, shuffled by
    ``rng``; the enemy's hand is the first ``enemy_hand_size`` of them, the draw pile the rest.  Unlimited
    deck: the enemy's hand drawn card by card.
    """
    n = len(config.cards)
    me = view.me
    from workbench.core.sim.rng_numba import shuffle_in_place  # here: numba loads with the first search, not the game

    if config.deck == "regular":
        pool = _unseen(n, view.hand, view.discard).copy()
        state = np.array([rng.state], np.uint64)
        shuffle_in_place(state, pool)  # rng.shuffle bit for bit, compiled
        rng.state = int(state[0])
        dealt = pool.tolist()
        enemy_hand, deck = tuple(dealt[:view.enemy_hand_size]), tuple(dealt[view.enemy_hand_size:])
    else:
        enemy_hand, deck = tuple(rng.below(n) for _ in range(view.enemy_hand_size)), ()
    hands = (view.hand, enemy_hand) if me == 0 else (enemy_hand, view.hand)
    return GameState(view.players, hands, deck, view.discard, me, me, view.turn, True, view.pending_discard,
                     (0, 0), (0, 0), None, ((), ()), view.played)


@lru_cache(maxsize=8)
def _unseen(n: int, hand: tuple[int, ...], discard: tuple[int, ...]) -> np.ndarray:
    """The cards of a deck of ``n`` (one of each) neither in ``hand`` nor in ``discard``, in index order.

    A search deals every world of a decision from the same view, so the pool is worked out once (the
    caller copies it before shuffling).
    """
    seen = set(hand) | set(discard)
    pool = np.array([c for c in range(n) if c not in seen], np.int64)
    pool.flags.writeable = False
    return pool


def _greedy(**weights: float) -> GreedyAgent:
    return GreedyAgent(Weights(**weights))


# core's search agent (core/skill/search.py): the best fast policy's score (rollout=best: the strongest declared fast
# tier, greedy@tuned until a raised set is declared) ranks 3 candidates, 720 rollouts a decision (240 worlds) by it in
# the compiled kernel, 6 turns deep, then its evaluation; raced (a candidate 3 standard errors of
# paired loss behind the leader stops being played: ~1/3 of the worlds saved); the search leaves the prior's choice
# only for a paired gain of 1 standard error.  Budget chosen on seed 7 of benchmarks/search.py (its docstring).
SEARCH = SearchHooks(prior=f"{__name__}:search_prior", value=f"{__name__}:search_value",
                     clock=f"{__name__}:search_clock", key=f"{__name__}:search_key",
                     rollout="workbench.games.duel.engine.fast:rollouts", deal="workbench.games.duel.engine.fast:deal",
                     policies=("random", "greedy"), win=WIN,
                     options=(("budget", 720), ("width", 3), ("horizon", 6), ("z", 1.0),
                              ("race", 3.0)))

DECLS = (
    AgentDecl("random", RandomAgent, "uniform over the legal plays and discards"),
    AgentDecl("greedy", _greedy, "one ply: the best action by a weighted position score (weights are options)",
              tuple(Param(f, getattr(Weights(), f), float, f"weight of {f}", -1e6, 1e6) for f in Weights._fields)),
    search_decl("duel", SEARCH),
)
AGENTS = tuple(d.name for d in DECLS)
_BY_NAME = {d.name: d for d in DECLS}


def make_agent(spec: AgentSpec | str) -> Agent:
    """Build the agent a spec names (``"greedy:wall=0.8"``, ``"search:budget=8"``), with its options checked."""
    spec = spec if isinstance(spec, AgentSpec) else AgentSpec.parse(spec)
    if spec.name not in _BY_NAME:
        raise InputError(f"unknown duel agent {spec.name!r}; allowed: {', '.join(AGENTS)}")
    return _BY_NAME[spec.name].build(spec)


def SearchAgent(budget: int = 720, horizon: int = 6, rollout: str = "greedy@tuned", width: int = 3) -> Agent:  # noqa: N802
    """Core's search agent on the duel (``core/skill/search.py``) with these options (a shorthand for tests)."""
    return make_agent(f"search:budget={budget},horizon={horizon},rollout={rollout},width={width}")
