"""Coin race as a workbench game: only this declaration and ``rules.py`` — nothing else is needed.

The tests register it with ``WORKBENCH_GAMES=tests.toygame.model`` (``tests/conftest.py``); it then
passes the conformance suite and appears in ``workbench games``, ``simulate``, ``sweep`` and
``report``.  ``TOY_SLEEP`` (seconds per game, environment) slows it down so a test can kill a sweep
half-way; it changes no result.
"""

from __future__ import annotations

import os
import time
from typing import Any

import polars as pl

from tests.toygame import rules
from workbench.core.model import CHANCE, TERMINAL, AgentDecl, GameModel, Param


class Greedy:
    """Risky when behind, safe otherwise (no randomness)."""

    def act(self, view: tuple, legal: tuple[str, ...], config: rules.Config, rng: Any) -> str:
        """Pick by the score difference."""
        me, scores = view
        return rules.RISKY if scores[me] < scores[1 - me] else rules.SAFE


class ToyModel(GameModel):
    """Coin race: the first seat to the target wins; some games hit the turn limit."""

    name = "toy"
    title = "Coin race (toy)"
    rules_version = "toy-1"
    params = (
        Param("board", "small", str, "target 3 (small) or 5 (large)", choices=("small", "large")),
        Param("edge", 0.5, float, "chance a risky move scores 2", low=0.0, high=1.0),
        Param("limit", 20, int, "turn limit", low=2, high=1000),
        Param("fast", False, bool, "target one lower"),
    )
    agent_types = (AgentDecl("greedy", Greedy, "risky when behind"),)

    def max_length(self, params: dict[str, Any]) -> int:
        """The turn limit."""
        return int(params["limit"])

    def result_columns(self, params: dict[str, Any]) -> dict[str, pl.DataType]:
        """The final scores (after core's winner, reason, length and first seat)."""
        return {"score_p1": pl.Int64, "score_p2": pl.Int64}

    def make_config(self, params: dict[str, Any]) -> rules.Config:
        """Target, edge and limit."""
        return rules.config(params)

    def initial_state(self, config: rules.Config, seed: int) -> rules.State:
        """A fresh race."""
        delay = float(os.environ.get("TOY_SLEEP", "0") or 0)
        if delay:
            time.sleep(delay)
        return rules.initial_state(config, seed)

    def current_player(self, config: rules.Config, state: rules.State) -> int:
        """The mover, the coin, or the end."""
        if state.outcome is not None:
            return TERMINAL
        return CHANCE if state.flipping else state.current

    def legal_actions(self, config: rules.Config, state: rules.State, seat: int) -> tuple[str, ...]:
        """Safe or risky."""
        return rules.ACTIONS

    def apply(self, config: rules.Config, state: rules.State, action: Any) -> rules.State:
        """A move, or the coin's points."""
        return rules.score(config, state, action) if state.flipping else rules.act(config, state, action)

    def chance_outcomes(self, config: rules.Config, state: rules.State) -> list[tuple[int, float]]:
        """Two points with the edge, none otherwise."""
        return [(rules.WIN, config.edge), (rules.LOSE, 1.0 - config.edge)]

    def sample_chance(self, config: rules.Config, state: rules.State) -> tuple[int, rules.State]:
        """One draw of the coin stream."""
        return rules.flip(config, state)

    def observation(self, config: rules.Config, state: rules.State, seat: int) -> tuple:
        """Everything is public: the seat and the scores."""
        return (seat, state.scores)

    def result_row(self, config: rules.Config, state: rules.State) -> dict[str, Any]:
        """The declared columns."""
        winner, reason = state.outcome
        return {"winner": winner, "reason": reason, "length": state.turn, "first_seat": f"p{state.first + 1}",
                "score_p1": state.scores[0], "score_p2": state.scores[1]}

    def invariants(self, config: rules.Config, state: rules.State) -> list[str]:
        """Scores stay within 0..target + 1; the turn within the limit."""
        bad = [f"score {s}" for s in state.scores if not 0 <= s <= config.target + 1]
        return bad + ([f"turn {state.turn}"] if state.turn > config.limit else [])


MODEL = ToyModel()
