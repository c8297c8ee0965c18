"""A tiny test-only game for the sweep and store tests (fast, declared like a real game).

Import it as ``tests.core.toy_game`` (the repository root on ``sys.path``) and pass ``MODEL``
itself (every core function accepts a model instance).  It is deliberately not registered, so
other tests listing the registered games never see it; sweep workers find it through its module.
``TOY_SLEEP`` (seconds per chunk, environment) slows chunks down so a test can kill a sweep
half-way; it does not change any result.
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np
import polars as pl

from workbench.core.model import AgentSpec, GameModel, Param
from workbench.core.rng import SplitMix64

BOARDS = ("small", "large")


class ToyModel(GameModel):
    """Coin-flip duel: the first seat wins with probability ``edge``; some games hit the limit."""

    name = "toy"
    title = "Toy coin duel"
    rules_version = "toy-1"
    params = (
        Param("board", "small", str, "board size", choices=BOARDS),
        Param("edge", 0.5, float, "chance the first seat wins a decided game", low=0.0, high=1.0),
        Param("limit", 20, int, "turn limit", low=2, high=1000),
        Param("fast", False, bool, "a flag"),
    )
    agents = ("random", "greedy")

    def max_length(self, params: dict[str, Any]) -> int:
        """The turn limit."""
        return int(params["limit"])

    def play_chunk(self, params: dict[str, Any], agents: tuple[AgentSpec, ...], seeds: np.ndarray,
                   engine: str) -> pl.DataFrame:
        """One coin-flip game per seed."""
        delay = float(os.environ.get("TOY_SLEEP", "0") or 0)
        if delay:
            time.sleep(delay)
        bonus = 1 if params["board"] == "large" else 0
        rows = {"winner": [], "reason": [], "length": [], "first_seat": []}
        for seed in seeds:
            rng = SplitMix64(int(seed))
            first = "p1" if rng.below(2) == 0 else "p2"
            other = "p2" if first == "p1" else "p1"
            length = 1 + bonus + rng.below(params["limit"])
            if length >= params["limit"]:
                winner, reason, length = "draw", "turn_limit", params["limit"]
            else:
                winner = first if rng.random() < params["edge"] else other
                reason = "tower"
            rows["winner"].append(winner)
            rows["reason"].append(reason)
            rows["length"].append(length)
            rows["first_seat"].append(first)
        return pl.DataFrame(rows, schema={"winner": pl.String, "reason": pl.String, "length": pl.Int64,
                                          "first_seat": pl.String})


MODEL = ToyModel()
