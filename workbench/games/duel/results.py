"""A duel's seating and its result row (shared by both engines).

The random streams (deck 1, agents 2 and 3, timer 4, first seat 5) are numbered in ``rules.py``,
which deals from them.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from workbench.core.model import OUTCOME_COLUMNS, seat_names
from workbench.games.duel import rules
from workbench.games.duel.effects import STATS
from workbench.games.duel.rules import Config, GameState

SEATS = seat_names(2)

RESULT_COLUMNS: dict[str, pl.DataType] = {
    **{f"{stat}_{seat}": pl.Int64 for seat in SEATS for stat in STATS},
    **{f"missed_{seat}": pl.Int64 for seat in SEATS},
    **{f"{kind}_{seat}": pl.List(pl.Int64) for seat in SEATS for kind in ("drawn", "played")},
}
RESULT_SCHEMA: dict[str, pl.DataType] = {**OUTCOME_COLUMNS, **RESULT_COLUMNS}


def result_row(state: GameState, config: Config) -> dict[str, Any]:
    """The game-specific columns of one finished game (see ``RESULT_SCHEMA``)."""
    winner, reason = state.outcome
    ids = [c.id for c in config.cards.cards]
    row: dict[str, Any] = {
        "winner": "draw" if winner == rules.DRAW_SEAT else SEATS[winner],
        "reason": reason,
        "length": state.turn,
        "first_seat": SEATS[state.first],
    }
    for seat, name in enumerate(SEATS):
        for i, stat in enumerate(STATS):
            row[f"{stat}_{name}"] = state.players[seat][i]
    for seat, name in enumerate(SEATS):
        row[f"missed_{name}"] = state.missed_total[seat]
    for seat, name in enumerate(SEATS):
        row[f"drawn_{name}"] = [ids[c] for c in state.drawn[seat]]
        row[f"played_{name}"] = [ids[c] for c in state.played[seat]]
    return row
