"""The duel's per-card rates: :mod:`workbench.core.stats.cardstats` over the duel's card set.

The duel's frames carry ``drawn_p1``/``played_p1``/``drawn_p2``/``played_p2`` (card ids) and its
cards are :class:`~workbench.games.duel.data.CardSet` rows; costs are in resource units (ore,
mana or troops by colour), so the empirical values and the static value model
(:func:`workbench.games.duel.cardvalue.valuation.costing_table`) share that scale.  The rates, their
conventions and the empirical values are core's; this module names the duel's columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from workbench.core.present import charts
from workbench.core.stats import cardstats
from workbench.games.duel.data import CardSet, load_cards

__all__ = ["CARD_COLUMNS", "card_rates", "card_table", "cost_value_chart", "cost_value_frame"]

CARD_COLUMNS = ("key", "name_en", "colour", "cost")  # what every card row of the analysis shows


def card_table(cards: CardSet | None = None) -> pl.DataFrame:
    """The duel's cards as core's card table: id, key, name_en, colour, cost (resource units)."""
    cards = load_cards() if cards is None else cards
    return pl.DataFrame({"id": [c.id for c in cards.cards], **{col: [getattr(c, col) for c in cards.cards]
                                                                for col in CARD_COLUMNS}},
                        schema_overrides={"id": pl.Int64})


def card_rates(frame: pl.DataFrame, cards: CardSet | None = None, by: Sequence[str] = (),
               alpha: float = 0.05) -> pl.DataFrame:
    """:func:`workbench.core.stats.cardstats.card_rates` of duels for ``cards`` (default: data/duel/cards.csv).

    Columns: ``by``, id, key, name_en, colour, cost, ``seat_games``, then the rates.
    """
    return cardstats.card_rates(frame, card_table(cards), by, alpha)


def cost_value_frame(costing: pl.DataFrame, rates: pl.DataFrame, outliers: int = 5) -> pl.DataFrame:
    """Both views of the duel's cards: the static costing table (``valuation.costing_table``) and empirical values.

    ``rates`` is :func:`workbench.core.stats.cardstats.empirical_values` of :func:`card_rates`; columns
    key, name_en, colour, cost, value, residual (cost − value), view, outlier.
    """
    return cardstats.cost_value_frame(costing, rates, CARD_COLUMNS, outliers)


def cost_value_chart(frame: pl.DataFrame, title: str = "Cost against value (cost units)") -> Any:
    """One scatter per view, outliers labelled by card key."""
    return charts.cost_value_chart(frame, label="key", title=title)
