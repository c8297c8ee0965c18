"""Towers of Babylon's per-card rates over seat-games of the decks holding a card (core's ``stats.cardstats``).

A card is only in some decks (a precon holds the cards of its two factions), so "the seat-games in
which it was not drawn" must not include seat-games of decks without it, or the improvement when
drawn would measure the deck, not the card.  Each seat-game of a game is therefore taken in its own
deck's colours (the seat's ``deck_p1`` / ``deck_p2``), and each card is rated over the seat-games
of the decks that hold it (its *holders*, e.g. ``night_raid+siege_of_ur`` for a Fire card): core's
:func:`~workbench.core.stats.cardstats.card_rates` grouped by holders, keeping each card's own group.  In
a mirror match both seat-games count.  ``cost`` is the printed cost (power, or TP for a
Witchery), the scale the static model (:mod:`.valuation`) and the empirical values share.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from workbench.core.errors import InputError
from workbench.core.present import charts
from workbench.core.stats import cardstats
from workbench.games.babylon.cards import CardPool, Deck, load_cards, load_decks
from workbench.games.babylon.cardvalue.valuation import card_cost

__all__ = ["CARD_COLUMNS", "card_rates", "card_table", "cost_value_chart", "cost_value_frame", "holders",
           "seat_game_frame"]

CARD_COLUMNS = ("id", "name", "faction", "type", "cost")  # what every card row of the analysis shows


def card_table(cards: CardPool | None = None) -> pl.DataFrame:
    """The cards as core's card table: id, name, faction, type, cost."""
    pool = load_cards() if cards is None else cards
    return pl.DataFrame({"id": [c.id for c in pool], "name": [c.name for c in pool],
                         "faction": [c.faction for c in pool], "type": [c.type for c in pool],
                         "cost": [card_cost(c) for c in pool]}, schema_overrides={"cost": pl.Int64})


def holders(decks: dict[str, Deck], keys: list[str] | None = None) -> dict[str, str]:
    """Card id → the decks (among ``keys``, default all) holding it, joined by ``+`` in sorted order."""
    keys = sorted(decks if keys is None else keys)
    out: dict[str, list[str]] = {}
    for key in keys:
        for card_id, _ in decks[key].counts:
            out.setdefault(card_id, []).append(key)
    return {card_id: "+".join(ks) for card_id, ks in out.items()}


def seat_game_frame(frame: pl.DataFrame) -> pl.DataFrame:
    """One row per seat-game in one-seat form: ``deck``, ``winner`` (``p1``: this seat won), its card lists.

    The card lists are ``drawn_p1`` and ``played_p1`` whichever seat held them, so core's card rates
    count every seat-game as seat p1's.
    """
    missing = [c for c in ("deck_p1", "deck_p2", "winner", "drawn_p1", "played_p2") if c not in frame.columns]
    if missing:
        raise InputError(f"babylon card rates need the columns {missing}; columns: {', '.join(frame.columns)}")
    parts = []
    for seat, other in (("p1", "p2"), ("p2", "p1")):
        parts.append(frame.select(
            pl.col(f"deck_{seat}").alias("deck"),
            pl.when(pl.col("winner") == seat).then(pl.lit("p1")).when(pl.col("winner") == other)
            .then(pl.lit("p2")).otherwise(pl.col("winner")).alias("winner"),
            pl.col(f"drawn_{seat}").alias("drawn_p1"), pl.col(f"played_{seat}").alias("played_p1")))
    return pl.concat(parts, how="vertical")


def card_rates(frame: pl.DataFrame, cards: CardPool | None = None, decks: dict[str, Deck] | None = None,
               alpha: float = 0.05) -> pl.DataFrame:
    """Per card: win rate when drawn / played, play rate, improvement when drawn, over its holders' seat-games.

    Columns: id, name, faction, type, cost, holders, ``seat_games``, then core's rates (each with
    ``_low``, ``_high``, ``_n``) and ``iwd``, ``iwd_low``, ``iwd_high``, ``iwd_p``.  Cards of no
    deck in the games are left out.
    """
    pool = load_cards() if cards is None else cards
    decks = load_decks(None, pool) if decks is None else decks
    seats = seat_game_frame(frame)
    played = sorted(set(seats.get_column("deck").unique().to_list()))
    unknown = [d for d in played if d not in decks]
    if unknown:
        raise InputError(f"the games hold decks {unknown} that the decks file lacks; decks: {', '.join(decks)}")
    owner = holders(decks, played)
    groups = sorted(set(owner.values()))
    stacked = pl.concat([seats.filter(pl.col("deck").is_in(g.split("+"))).with_columns(pl.lit(g).alias("holders"))
                         for g in groups], how="vertical")
    table = card_table(pool).filter(pl.col("id").is_in(list(owner)))
    rates = cardstats.card_rates(stacked, table, ["holders"], alpha)
    mine = pl.DataFrame({"id": list(owner), "own": list(owner.values())})
    return (rates.join(mine, on="id").filter(pl.col("holders") == pl.col("own")).drop("own")
            .select(*CARD_COLUMNS, "holders", pl.exclude(*CARD_COLUMNS, "holders")).sort("id"))


def cost_value_frame(costing: pl.DataFrame, rates: pl.DataFrame, outliers: int = 5) -> pl.DataFrame:
    """Both views of the cards: the static model's :func:`~.valuation.costing_table` and the empirical values.

    ``rates`` is :func:`workbench.core.stats.cardstats.empirical_values` of :func:`card_rates`; columns
    id, name, faction, type, cost, value, residual (cost − value), view, outlier.
    """
    return cardstats.cost_value_frame(costing, rates, CARD_COLUMNS, outliers)


def cost_value_chart(frame: pl.DataFrame, title: str = "Cost against value (power; TP for a Witchery)") -> Any:
    """One scatter per view, outliers labelled by card id."""
    return charts.cost_value_chart(frame, label="id", title=title)
