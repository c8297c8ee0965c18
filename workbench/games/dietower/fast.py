"""The compiled engine's result arrays and the frame built from them.

The reference engine is core's generic loop over :mod:`rules` (``model.py`` declares the protocol);
``kernel.py`` (numba) fills :class:`Columns` for a whole chunk and :func:`to_frame` turns them into the same
frame, column for column.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from workbench.core.model import SEAT_NAMES as SEATS
from workbench.core.model import AgentSpec, Variant
from workbench.games.dietower import agents as ag
from workbench.games.dietower.kernel import Columns, play_fast
from workbench.games.dietower.rules import Config

REASONS = ("score", "six_win", "draw")  # the kernel's reason codes


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


def play(config: Config, params: dict[str, Any], agents: Sequence[AgentSpec], seeds: np.ndarray) -> pl.DataFrame:
    """The model's declared compiled engine (``CompiledEngine.play``): the kernel, then :func:`to_frame`."""
    return to_frame(play_fast(config, [ag.config(a) for a in agents], seeds), config.players)


# -- the parity table (core's harness plays every row on both engines: tests/test_parity.py) -------------------
# Every agent (with options) in 2-, 3- and 4-player games under the default rules, a small suit with a two-faced
# die, and the tie / scoring variants; plus three players on a two-faced die (every end reason).
_RULES = {"default": {}, "small": {"suit_size": 5, "die_faces": 2},
          "variants": {"nonbuilder_tie": "keep", "six_win_scores": True, "die_faces": 3}}
_LINEUPS = (("random,random", 2), ("highest,lowest", 2), ("joker,random", 2),
            ("joker:at=2,base=highest,mixed:random=0.5,highest=0.3,joker=0.2", 2),
            ("mixed:lowest=1,joker=1,at=1,joker:base=lowest", 2), ("random,highest,joker:at=3", 3),
            ("random,mixed:random=1,highest=1,lowest=1,joker=1,lowest,joker", 4))
VARIANTS: tuple[Variant, ...] = (
    *(Variant(f"{name} {agents}", {**params, "players": players}, agents)
      for name, params in _RULES.items() for agents, players in _LINEUPS),
    Variant("3 players, two faces", {"players": 3, "die_faces": 2}, "random,joker:at=1,mixed:random=1,lowest=1"),
)
