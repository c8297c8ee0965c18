"""Coin race, the template game: two players race to a target score.  The rules, as pure functions.

Copy this file to ``workbench/games/<name>/rules.py`` and replace the race with your game's rules.
Keep its shape: a ``Config`` (the rules in force, built once from the declared parameters), an
immutable ``State`` whose fields say how they are encoded, and pure functions over
``(config, state, ...)`` — ``initial_state``, the steps (here ``act``, ``flip``, ``score``), what a seat
sees — each returning a new value.  No agents, files, run seeds or widgets here: the model
(``model.py``) wires these functions into core's protocol.

The race: on a turn the player to move plays ``safe`` (+1 point) or ``risky`` (a coin: +2 points
with probability ``edge``, else nothing).  The first to reach the target (3 on the small board, 5 on
the large one, one less with ``fast``) wins; after ``limit`` turns the game is a draw.  The coin is
an explicit chance node drawn from stream 1 of the game seed; stream 2 decides who moves first.

Hidden information: every score and turn is public, but the coin stream's state (which flips are
still to come) is not — it plays the part a shuffled deck's order or an opponent's hand plays in a
real game.  :func:`observe` is what a seat sees, :func:`determinise` deals the hidden part afresh.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from workbench.core.rng import SplitMix64

SAFE, RISKY = "safe", "risky"
ACTIONS = (SAFE, RISKY)
WIN, LOSE = 2, 0  # points of the coin's two sides
COIN_STREAM, FIRST_STREAM = 1, 2  # sub-streams of the game seed (core/rng.py); agents draw from 1000 + seat


class Config(NamedTuple):
    """The rules of one race."""

    target: int
    edge: float
    limit: int


class State(NamedTuple):
    """Scores per seat, the player to move, turns played, the coin stream's state, a pending coin flip."""

    scores: tuple[int, int]
    current: int  # seat to move (0 or 1)
    first: int  # seat that moved first
    turn: int  # turns completed
    coin: int  # SplitMix64 state of the coin stream: hidden (the flips still to come)
    flipping: bool  # a risky move waits for the coin (a chance node)
    outcome: tuple[str, str] | None  # (winner "p1"|"p2"|"draw", reason)


class View(NamedTuple):
    """What one seat sees: everything but the coin stream."""

    seat: int  # whose view it is
    scores: tuple[int, int]
    turn: int
    first: int


def config(params: dict[str, Any]) -> Config:
    """Rules from the model's parameters."""
    target = (5 if params["board"] == "large" else 3) - (1 if params["fast"] else 0)
    return Config(target, float(params["edge"]), int(params["limit"]))


def initial_state(cfg: Config, seed: int) -> State:
    """Nobody has scored; stream 2 picks the first player."""
    first = SplitMix64.for_stream(seed, FIRST_STREAM).below(2)
    return State((0, 0), first, first, 0, SplitMix64.for_stream(seed, COIN_STREAM).state, False, None)


def flip(cfg: Config, state: State) -> tuple[int, State]:
    """The coin: ``WIN`` with probability ``edge`` (one draw of the coin stream)."""
    rng = SplitMix64(state.coin)
    points = WIN if rng.random() < cfg.edge else LOSE
    return points, state._replace(coin=rng.state)


def score(cfg: Config, state: State, points: int) -> State:
    """The mover scores; a win at the target, a draw at the turn limit, else the turn passes."""
    me = state.current
    scores = tuple(s + points if seat == me else s for seat, s in enumerate(state.scores))
    state = state._replace(scores=scores, turn=state.turn + 1, flipping=False)
    if scores[me] >= cfg.target:
        return state._replace(outcome=(f"p{me + 1}", "target"))
    if state.turn >= cfg.limit:
        return state._replace(outcome=("draw", "turn_limit"))
    return state._replace(current=1 - me)


def act(cfg: Config, state: State, action: str) -> State:
    """``safe`` scores 1 at once; ``risky`` waits for the coin."""
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}")
    return score(cfg, state, 1) if action == SAFE else state._replace(flipping=True)


def observe(state: State, seat: int) -> View:
    """What ``seat`` may see: the scores, the turn and who moved first — never the coin stream."""
    return View(seat, state.scores, state.turn, state.first)


def determinise(view: View, rng: SplitMix64) -> State:
    """A full state the seat cannot tell from the real one: its view, and a coin stream drawn from ``rng``.

    Agents observe only when it is their move, so the state is the viewing seat's decision node.
    A game with a hidden hand deals the unseen cards here the same way (see Babel's ``determinise``).
    """
    return State(view.scores, view.seat, view.first, view.turn, rng.next_u64(), False, None)
