"""The compiled engine's result arrays and the frame built from them.

The reference engine is core's generic loop over :mod:`rules` (``model.py`` declares the protocol);
``kernel.py`` (numba) fills :class:`Columns` for a whole chunk and :func:`to_frame` turns them into the same
frame, column for column.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from workbench.core.model import SEAT_NAMES as SEATS
from workbench.core.model import AgentSpec, Variant
from workbench.games.dietower import agents as ag
from workbench.games.dietower.kernel import Columns, play_fast
from workbench.games.dietower.rules import Config

REASONS = ("score", "six_win", "draw")  # the kernel's reason codes


@lru_cache(maxsize=8)
def _lookups(players: int) -> tuple[pl.Series, pl.Series, pl.Series]:
    """Winner and winners strings indexed by seat mask (mask 0, never played, is null), and the reasons."""
    winner, winners = [None], [None]
    for mask in range(1, 1 << players):
        seats = [SEATS[s] for s in range(players) if mask >> s & 1]
        winners.append(",".join(seats))
        winner.append(seats[0] if len(seats) == 1 else "draw")
    return (pl.Series(winner, dtype=pl.String), pl.Series(winners, dtype=pl.String),
            pl.Series(REASONS, dtype=pl.String))


def _seat_column(values: np.ndarray, seat: int) -> pl.Series:
    """Column ``seat`` of a (games, players) array as an Int64 series."""
    return pl.Series(np.ascontiguousarray(values[:, seat]), dtype=pl.Int64)


def to_frame(cols: Columns, players: int) -> pl.DataFrame:
    """The model's result columns (see ``model.py`` for their meaning), built from arrays.

    Codes become strings by gathering from small lookup series and the column with nulls gets its
    validity from a mask: no per-row Python objects.
    """
    winner, winners, reasons = _lookups(players)
    n = len(cols.length)
    mask = pl.Series(cols.winners_mask, dtype=pl.UInt8)
    six = cols.six_win_round > 0
    if n and cols.winners_mask.min() == 0:  # the lookups would give null: a kernel fault, not a result
        raise RuntimeError("dietower kernel: a finished game has no winning seat")
    data = {
        "winner": winner.gather(mask),
        "reason": reasons.gather(pl.Series(cols.reason, dtype=pl.Int8)),
        "length": pl.Series(cols.length, dtype=pl.Int64),
        "first_seat": pl.Series([None], dtype=pl.String).new_from_index(0, n) if n else pl.Series([], dtype=pl.String),
    }
    for s in range(players):
        data[f"score_{SEATS[s]}"] = _seat_column(cols.scores, s)
    data["winners"] = winners.gather(mask)
    data["six_win"] = pl.Series(six, dtype=pl.Boolean)
    data["six_win_round"] = pl.from_arrow(pa.array(cols.six_win_round, type=pa.int64(), mask=~six))
    for s in range(players):
        data[f"longest_streak_{SEATS[s]}"] = _seat_column(cols.longest, s)
    data["builder_changes"] = pl.Series(cols.builder_changes, dtype=pl.Int64)
    return pl.DataFrame(data)


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
