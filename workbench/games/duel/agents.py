"""Duel agents in three skill tiers: random, greedy (one ply) and search (flat Monte Carlo).

An agent sees only a :class:`View`: its own hand, both players' public positions, the discard
pile, the size of the draw pile and the turn — never the enemy's hand or the deck order.  Each
seat draws its random numbers from its own stream, so agents never disturb the deck.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import NamedTuple, Protocol

from workbench.core.errors import InputError
from workbench.core.model import AgentDecl, AgentSpec, Param, RandomAgent
from workbench.core.rng import SplitMix64
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


class SearchAgent:
    """Flat Monte Carlo over determinised worlds, on top of greedy's ranking.

    The ``width`` best distinct legal actions by greedy's score are the candidates (duplicate
    cards collapse).  ``budget`` simulations are shared among them over ``budget // width``
    sampled worlds: each world deals the unseen cards into a possible enemy hand and draw pile,
    and *every* candidate is tried in the same world with the same deck and rollout numbers
    (common random numbers, so differences come from the action, not the luck).  After the
    action the game is played on by ``rollout`` agents (greedy by default) for at most ``horizon``
    player turns.  A won rollout scores 1, lost 0, drawn 0.5; an unfinished one a logistic squash
    of the greedy evaluation.  The highest mean wins; ties keep greedy's order.
    """

    name = "search"

    def __init__(self, budget: int = 64, horizon: int = 16, rollout: str = "greedy", width: int = 4) -> None:
        self.budget, self.horizon, self.width = budget, horizon, width
        self.rollout = GreedyAgent() if rollout == "greedy" else RandomAgent()
        self.weights = Weights()

    def act(self, view: View, legal: tuple[Action, ...], config: Config, rng: SplitMix64) -> Action:
        """Choose by simulation."""
        scored: dict[tuple[int, int], tuple[float, int, Action]] = {}
        for order, action in enumerate(legal):
            key = (action.kind, view.hand[action.slot])
            if key not in scored:
                scored[key] = (score_action(view, action, config, self.weights), order, action)
        ranked = sorted(scored.values(), key=lambda t: (-t[0], t[1]))
        if len(ranked) == 1 or ranked[0][0] >= WIN:
            return ranked[0][2]  # nothing to choose, or an immediate win
        candidates = [a for _, _, a in ranked[: self.width]]
        totals = [0.0] * len(candidates)
        for _ in range(max(1, self.budget // len(candidates))):
            world = determinise(view, config, rng)
            deck_seed, rollout_seed = rng.next_u64(), rng.next_u64()
            for i, action in enumerate(candidates):
                totals[i] += self._simulate(world, action, view.me, config, SplitMix64(deck_seed),
                                            SplitMix64(rollout_seed))
        return candidates[max(range(len(candidates)), key=lambda i: (totals[i], -i))]

    def _simulate(self, state: GameState, action: Action, me: int, config: Config, deck_rng: SplitMix64,
                  rng: SplitMix64) -> float:
        state = rules.play_action(state, action, config, deck_rng)
        stop = state.turn + self.horizon
        while state.outcome is None and state.turn < stop:
            if not state.acting:
                state = rules.begin_turn(state, config)
                continue
            legal = rules.legal_moves(state, config)
            state = rules.play_action(state, self.rollout.act(observe(state), legal, config, rng), config, deck_rng)
        if state.outcome is not None:
            winner = state.outcome[0]
            return 1.0 if winner == me else (0.0 if winner == 1 - me else 0.5)
        return 1.0 / (1.0 + math.exp(-evaluate(state.players, me, self.weights) / 20.0))


def determinise(view: View, config: Config, rng: SplitMix64) -> GameState:
    """A full game state consistent with what ``view`` shows (the hidden cards dealt at random)."""
    n = len(config.cards)
    me, enemy = view.me, 1 - view.me
    if config.deck == "regular":
        unseen = Counter(range(n))
        unseen.subtract(view.hand)
        unseen.subtract(view.discard)
        pool = rng.shuffle(sorted(unseen.elements()))
        enemy_hand, deck = tuple(pool[:view.enemy_hand_size]), tuple(pool[view.enemy_hand_size:])
    else:
        enemy_hand, deck = tuple(rng.below(n) for _ in range(view.enemy_hand_size)), ()
    hands = rules._with(rules._with(((), ()), me, view.hand), enemy, enemy_hand)
    return GameState(view.players, hands, deck, view.discard, me, me, view.turn, True, view.pending_discard,
                     (0, 0), (0, 0), None, ((), ()), view.played)


def _greedy(**weights: float) -> GreedyAgent:
    return GreedyAgent(Weights(**weights))


def _search(budget: int, horizon: int, rollout: str, width: int) -> SearchAgent:
    return SearchAgent(budget, horizon, rollout, width)


DECLS = (
    AgentDecl("random", RandomAgent, "uniform over the legal plays and discards"),
    AgentDecl("greedy", _greedy, "one ply: the best action by a weighted position score (weights are options)",
              tuple(Param(f, getattr(Weights(), f), float, f"weight of {f}", -1e6, 1e6) for f in Weights._fields)),
    AgentDecl("search", _search, "flat Monte Carlo over determinised worlds on top of greedy's ranking", (
        Param("budget", 64, int, "simulations per decision", 1, 100_000),
        Param("horizon", 16, int, "player turns per rollout", 1, 1000),
        Param("rollout", "greedy", str, "the rollout policy", choices=("greedy", "random")),
        Param("width", 4, int, "candidate actions (the best by greedy's score)", 1, 24))),
)
AGENTS = tuple(d.name for d in DECLS)
_BY_NAME = {d.name: d for d in DECLS}


def make_agent(spec: AgentSpec | str) -> Agent:
    """Build the agent a spec names (``"greedy:wall=0.8"``), with its options checked."""
    spec = spec if isinstance(spec, AgentSpec) else AgentSpec.parse(spec)
    if spec.name not in _BY_NAME:
        raise InputError(f"unknown duel agent {spec.name!r}; allowed: {', '.join(AGENTS)}")
    return _BY_NAME[spec.name].build(spec)
