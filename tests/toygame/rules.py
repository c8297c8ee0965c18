"""Coin race, a toy game for the tests: two players race to a target score.

On a turn the player to move plays ``safe`` (+1 point) or ``risky`` (a coin: +2 points with
probability ``edge``, else nothing).  The first to reach the target (3 on the small board, 5 on the
large one, one less with ``fast``) wins; after ``limit`` turns the game is a draw.  The coin is an
explicit chance node drawn from stream 1 of the game seed; stream 2 decides who moves first.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from workbench.core.rng import SplitMix64

SAFE, RISKY = "safe", "risky"
ACTIONS = (SAFE, RISKY)
WIN, LOSE = 2, 0  # points of the coin's two sides


class Config(NamedTuple):
    """The rules of one race."""

    target: int
    edge: float
    limit: int


class State(NamedTuple):
    """Scores per seat, the player to move, turns played, the coin stream's state, a pending coin flip."""

    scores: tuple[int, int]
    current: int
    first: int
    turn: int
    coin: int
    flipping: bool
    outcome: tuple[str, str] | None  # (winner "p1"|"p2"|"draw", reason)


def config(params: dict[str, Any]) -> Config:
    """Rules from the model's parameters."""
    target = (5 if params["board"] == "large" else 3) - (1 if params["fast"] else 0)
    return Config(target, float(params["edge"]), int(params["limit"]))


def initial_state(cfg: Config, seed: int) -> State:
    """Nobody has scored; stream 2 picks the first player."""
    first = SplitMix64.for_stream(seed, 2).below(2)
    return State((0, 0), first, first, 0, SplitMix64.for_stream(seed, 1).state, False, None)


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
