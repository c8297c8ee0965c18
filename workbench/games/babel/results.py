"""Babel's result columns and seats, shared by the model (the reference loop) and the compiled engine."""

from __future__ import annotations

import polars as pl

from workbench.core.model import OUTCOME_COLUMNS, seat_names
from workbench.games.babel import rules

SEATS = seat_names(2)
TALLY_COLUMNS = (*(n.lower() for n in rules.NATIONS), "universal", "builds", "moves", "migrations", "actions")
MAX_ACTIONS_PER_TURN = 250  # a bound on one turn's steps: each spends a card, raises a temple or pays a discard


def _seat_columns(seat: str) -> dict[str, pl.DataType]:
    return {f"value_{seat}": pl.Int64, f"values_{seat}": pl.List(pl.Int64), f"hand_{seat}": pl.Int64,
            f"temples_{seat}": pl.List(pl.Int64),
            **{f"{c}_{seat}": pl.Int64 for c in TALLY_COLUMNS}}


RESULT_COLUMNS: dict[str, pl.DataType] = {"end_phase": pl.Boolean, **_seat_columns(SEATS[0]),
                                          **_seat_columns(SEATS[1])}
RESULT_SCHEMA: dict[str, pl.DataType] = {**OUTCOME_COLUMNS, **RESULT_COLUMNS}
