"""Reference engine (pure Python over :mod:`rules`) and the result frame shared by both engines.

Randomness: seat ``i`` draws from ``SplitMix64.for_stream(game_seed, i)`` and nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import polars as pl

from workbench.core.rng import SplitMix64
from workbench.games.dietower import agents as ag
from workbench.games.dietower.rules import (
    SEATS,
    Result,
    Rules,
    State,
    initial_state,
    is_over,
    legal_cards,
    result,
    step,
)

REASONS = ("score", "six_win", "draw")


def play_game(rules: Rules, configs: Sequence[ag.AgentConfig], seed: int,
              trace: list[tuple[tuple[int, ...], State]] | None = None) -> Result:
    """Play one seeded game; optionally append ``(cards, state after)`` per round to ``trace``."""
    rngs = [SplitMix64.for_stream(int(seed), seat) for seat in range(rules.players)]
    state = initial_state(rules)
    while not is_over(rules, state):
        cards = tuple(
            ag.choose(cfg, ag.View(seat, legal_cards(rules, state.hands[seat]), rules.joker, state.builder,
                                   state.die, state.scores, state.round), rngs[seat])
            for seat, cfg in enumerate(configs))
        state = step(rules, state, cards)
        if trace is not None:
            trace.append((cards, state))
    return result(rules, state)


class Columns(NamedTuple):
    """Result columns as numpy arrays (one row per game) — what both engines produce."""

    winners_mask: np.ndarray  # uint8 bit mask of the winning seats
    reason: np.ndarray  # int8 index in REASONS
    length: np.ndarray  # int64 rounds played
    scores: np.ndarray  # int64 (games, players)
    six_win_round: np.ndarray  # int64, 0 when there was no six-win
    longest: np.ndarray  # int64 (games, players)
    builder_changes: np.ndarray  # int64


def play_reference(rules: Rules, configs: Sequence[ag.AgentConfig], seeds: np.ndarray) -> Columns:
    """Play every seed with the reference engine."""
    g, n = len(seeds), rules.players
    cols = Columns(np.zeros(g, np.uint8), np.zeros(g, np.int8), np.zeros(g, np.int64), np.zeros((g, n), np.int64),
                   np.zeros(g, np.int64), np.zeros((g, n), np.int64), np.zeros(g, np.int64))
    for i, seed in enumerate(seeds):
        r = play_game(rules, configs, int(seed))
        cols.winners_mask[i] = sum(1 << s for s in r.winners)
        cols.reason[i] = REASONS.index(r.reason)
        cols.length[i] = r.length
        cols.scores[i] = r.scores
        cols.six_win_round[i] = r.six_win_round or 0
        cols.longest[i] = r.longest
        cols.builder_changes[i] = r.builder_changes
    return cols


def _mask_names(players: int) -> tuple[dict[int, str], dict[int, str]]:
    """Winner and winners strings for every non-empty seat mask."""
    winner, winners = {}, {}
    for mask in range(1, 1 << players):
        seats = [SEATS[s] for s in range(players) if mask >> s & 1]
        winners[mask] = ",".join(seats)
        winner[mask] = seats[0] if len(seats) == 1 else "draw"
    return winner, winners


def to_frame(cols: Columns, players: int) -> pl.DataFrame:
    """The model's result columns (see ``model.py`` for their meaning), built from arrays."""
    winner, winners = _mask_names(players)
    mask = pl.Series("m", cols.winners_mask, dtype=pl.UInt8)
    data = {
        "winner": mask.replace_strict(winner, return_dtype=pl.String),
        "reason": pl.Series("r", cols.reason, dtype=pl.Int8).replace_strict(dict(enumerate(REASONS)),
                                                                            return_dtype=pl.String),
        "length": pl.Series(cols.length, dtype=pl.Int64),
        "first_seat": pl.Series([None] * 0, dtype=pl.String).extend_constant(None, len(cols.length)),
    }
    for s in range(players):
        data[f"score_{SEATS[s]}"] = pl.Series(np.ascontiguousarray(cols.scores[:, s]), dtype=pl.Int64)
    data["winners"] = mask.replace_strict(winners, return_dtype=pl.String)
    data["six_win"] = pl.Series(cols.six_win_round > 0, dtype=pl.Boolean)
    data["six_win_round"] = pl.Series(cols.six_win_round, dtype=pl.Int64)
    for s in range(players):
        data[f"longest_streak_{SEATS[s]}"] = pl.Series(np.ascontiguousarray(cols.longest[:, s]), dtype=pl.Int64)
    data["builder_changes"] = pl.Series(cols.builder_changes, dtype=pl.Int64)
    frame = pl.DataFrame(data)
    return frame.with_columns(pl.when(pl.col("six_win")).then(pl.col("six_win_round")).alias("six_win_round"))
