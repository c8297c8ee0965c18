"""Taking control of a Mercenary (``docs/rules/rescue.md``): an offer of k crystals, accepted or refused.

A player offers ``k ≥ 1`` crystals to the Mercenary's owner.  The owner either accepts (takes the
``k`` crystals and hands the Mercenary over) or refuses by returning ``k + 1`` crystals to the
supply — which it can only do holding at least ``k + 1``; otherwise it must accept.

The rational owner compares its two payoffs (crystals and the Mercenary's worth to it, ``v``):
accepting gives ``+k − v``, refusing ``−(k + 1)``.  It refuses iff it can pay and
``−(k + 1) > k − v``, i.e. ``v > 2k + 1``; an indifferent owner (``v = 2k + 1``) takes the crystals
(the workbench's decision: the rule says it *may* refuse).  So the smallest offer that succeeds is
``max(1, min(c, ⌈(v − 1)/2⌉))`` for an owner holding ``c`` crystals, and the offer is worth making
for a challenger who values the Mercenary at ``w`` and holds at least that many crystals iff
``w > k``.  A refused offer costs the challenger nothing (its crystals come back) and the owner
``k + 1``.
"""

from __future__ import annotations

from typing import NamedTuple

import altair as alt
import polars as pl

DECISIONS = ("accept", "refuse", "must_accept")


class Taken(NamedTuple):
    """What an offer did: the Mercenary's new owner and both sides' crystals after it."""

    accepted: bool
    forced: bool  # the owner wanted to refuse but could not pay k + 1
    owner_crystals: int
    challenger_crystals: int


def take_control(offer: int, owner_crystals: int, challenger_crystals: int, refuse: bool) -> Taken:
    """Resolve an offer for a hand-given owner's wish to refuse (forced to accept when it cannot pay)."""
    if not 1 <= offer <= challenger_crystals:
        raise ValueError(f"an offer is 1..the challenger's {challenger_crystals} crystals, got {offer}")
    if refuse and owner_crystals >= offer + 1:
        return Taken(False, False, owner_crystals - offer - 1, challenger_crystals)
    return Taken(True, refuse, owner_crystals + offer, challenger_crystals - offer)


def decision(offer: int, owner_value: int, owner_crystals: int) -> str:
    """The rational owner's answer: ``refuse`` iff it can pay ``k + 1`` and ``v > 2k + 1``."""
    wants = owner_value > 2 * offer + 1
    if not wants:
        return "accept"
    return "refuse" if owner_crystals >= offer + 1 else "must_accept"


def smallest_offer(owner_value: int, owner_crystals: int) -> int:
    """The smallest offer a rational owner accepts: ``max(1, min(c, ⌈(v − 1)/2⌉))``."""
    return max(1, min(owner_crystals, -(-(owner_value - 1) // 2)))


def control_table(owner_values: range, owner_crystals: range, offers: range,
                  challenger_value: int | None = None) -> pl.DataFrame:
    """One row per (owner value, owner crystals, offer): the owner's answer and the smallest successful offer.

    With ``challenger_value`` a column says whether the smallest offer is worth making (``w > k*``).
    """
    rows = []
    for v in owner_values:
        for c in owner_crystals:
            k_star = smallest_offer(v, c)
            for k in offers:
                row = {"owner_value": v, "owner_crystals": c, "offer": k, "decision": decision(k, v, c),
                       "smallest_offer": k_star}
                if challenger_value is not None:
                    row["worth_it"] = challenger_value > k_star
                rows.append(row)
    return pl.DataFrame(rows)


def acceptance_chart(table: pl.DataFrame, title: str = "Does the owner accept the offer?") -> alt.FacetChart:
    """Offer × owner value, coloured by the owner's answer, one panel per owner crystal count."""
    return alt.Chart(table).mark_rect().encode(
        x=alt.X("offer:O", title="offer k (crystals)"),
        y=alt.Y("owner_value:O", title="Mercenary's worth to the owner", sort="descending"),
        color=alt.Color("decision:N", scale=alt.Scale(domain=list(DECISIONS),
                                                       range=["#4c78a8", "#e45756", "#f2cf5b"])),
        tooltip=["owner_value", "owner_crystals", "offer", "decision", "smallest_offer"],
    ).properties(width=160, height=160).facet(column=alt.Column("owner_crystals:O", title="owner's crystals")
                                              ).properties(title=title)
