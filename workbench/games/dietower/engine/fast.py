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

from workbench.core.model import SEAT_NAMES as SEATS
from workbench.core.model import AgentSpec, Variant
from workbench.games.dietower import agents as ag
from workbench.games.dietower.engine.kernel import Columns, play_fast
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


def to_frame(cols: Columns, players: int) -> pl.DataFrame:
    """The model's result columns (see ``model.py`` for their meaning), built from arrays.

    The compact arrays enter polars without a copy; codes become strings by gathering from small lookup
    series, counts widen to Int64 and the column with nulls gets its validity, all inside one lazy query
    whose ``collect`` runs without Python's GIL, so worker threads build their frames side by side.  No
    per-row Python objects.
    """
    if len(cols.length) and cols.winners_mask.min() == 0:  # the lookups would give null: a kernel fault
        raise RuntimeError("dietower kernel: a finished game has no winning seat")
    winner, winners, reasons = _lookups(players)
    seats = [SEATS[s] for s in range(players)]
    arrays = {"mask": cols.winners_mask, "code": cols.reason, "length": cols.length,
              **{f"score_{p}": cols.scores[s] for s, p in enumerate(seats)}, "six_round": cols.six_win_round,
              **{f"longest_streak_{p}": cols.longest[s] for s, p in enumerate(seats)},
              "builder_changes": cols.builder_changes}
    six = pl.col("six_round") > 0
    wide = [f"score_{p}" for p in seats] + [f"longest_streak_{p}" for p in seats] + ["length", "builder_changes"]
    as_int = {name: pl.col(name).cast(pl.Int64) for name in wide}
    return pl.DataFrame([pl.Series(k, v) for k, v in arrays.items()]).lazy().select(
        pl.lit(winner).gather(pl.col("mask")).alias("winner"), pl.lit(reasons).gather(pl.col("code")).alias("reason"),
        as_int["length"], pl.lit(None, dtype=pl.String).alias("first_seat"), *(as_int[f"score_{p}"] for p in seats),
        pl.lit(winners).gather(pl.col("mask")).alias("winners"), six.alias("six_win"),
        pl.when(six).then(pl.col("six_round").cast(pl.Int64)).alias("six_win_round"),
        *(as_int[f"longest_streak_{p}"] for p in seats), as_int["builder_changes"],
    ).collect()


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
