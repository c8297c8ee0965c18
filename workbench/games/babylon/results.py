"""Towers of Babylon's result columns, shared by the model (the reference loop) and the compiled engine."""

from __future__ import annotations

import polars as pl

from workbench.core.model import OUTCOME_COLUMNS, seat_names
from workbench.games.babylon.rules import TALLIES

SEATS = seat_names(2)
STEPS_PER_TURN = 400  # a bound on one player turn's protocol steps (every step spends a card, a source or a minion)


def _seat_columns(seat: str) -> dict[str, pl.DataType]:
    return {f"tower_{seat}": pl.Int64, f"towers_{seat}": pl.List(pl.Int64),
            f"tp_{seat}": pl.Int64, f"sources_{seat}": pl.Int64, f"hand_{seat}": pl.Int64,
            f"board_{seat}": pl.Int64, **{f"{t}_{seat}": pl.Int64 for t in TALLIES},
            f"drawn_{seat}": pl.List(pl.String), f"played_{seat}": pl.List(pl.String)}


RESULT_COLUMNS: dict[str, pl.DataType] = {**_seat_columns(SEATS[0]), **_seat_columns(SEATS[1])}
RESULT_SCHEMA: dict[str, pl.DataType] = {**OUTCOME_COLUMNS, **RESULT_COLUMNS}
