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

**Repeated offers** (the reading ``offers``): since a refused offer costs the challenger nothing, it
may offer the same ``k`` again.  Facing ``r`` offers in all, an owner that refuses some and then
accepts has only paid for the refusals, so it either accepts the first offer or refuses all ``r``:
it refuses iff it holds ``c ≥ r(k + 1)`` and ``v > (r + 1)k + r`` (:func:`owner_plan` proves this
by backward induction over the owner's crystals).  The smallest offer that succeeds becomes
``max(1, min(⌊c/r⌋, ⌈(v − r)/(r + 1)⌉))``; with no limit on repeats (``offers = "repeated"``) the
owner must run out of crystals in the end, so it accepts any first offer: the smallest is 1.

**Timing** ("the Mercenary cannot be taken over in the Dusk phase in which it entered play"): an
attempt in the Dusk phase the Mercenary entered play is not allowed (:func:`attempt_allowed`,
:func:`take_control` refuses it).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

import polars as pl

if TYPE_CHECKING:
    import altair as alt

DECISIONS = ("accept", "refuse", "must_accept")
OFFERS = ("one", "repeated")  # readings: one offer per attempt; the same offer repeated without limit
UNLIMITED = None  # ``repeats`` meaning "no limit"


class Taken(NamedTuple):
    """What an offer did: the Mercenary's new owner and both sides' crystals after it."""

    accepted: bool
    forced: bool  # the owner wanted to refuse but could not pay k + 1
    owner_crystals: int
    challenger_crystals: int


def attempt_allowed(entered_dusk: int, dusk: int) -> bool:
    """Whether an attempt to take control may be made in Dusk phase ``dusk`` (counted in the game, from 1).

    Not in the Dusk phase the Mercenary entered play (``entered_dusk``), nor before it was in play.
    """
    return dusk > entered_dusk


def take_control(offer: int, owner_crystals: int, challenger_crystals: int, refuse: bool, *,
                 same_dusk: bool = False) -> Taken:
    """Resolve an offer for a hand-given owner's wish to refuse (forced to accept when it cannot pay).

    ``same_dusk``: the attempt is made in the Dusk phase the Mercenary entered play, which the rule forbids.
    """
    if same_dusk:
        raise ValueError("no attempt to take control of a Mercenary in the Dusk phase it entered play; "
                         "attempt it in a later Dusk phase")
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


def owner_plan(offer: int, owner_value: int, owner_crystals: int, repeats: int | None = 1) -> tuple[bool, int]:
    """``(accepts in the end, refusals first)`` of a rational owner facing the same offer up to ``repeats`` times.

    Backward induction over (offers left, crystals): refusing costs ``k + 1`` and leaves one offer
    fewer; accepting gives ``k − v``; keeping the Mercenary after the last offer gives 0; an indifferent
    owner accepts.  ``repeats = None``: no limit (the owner can refuse only while it can pay, so the
    limit is its crystals' worth of refusals).
    """
    if offer < 1:
        raise ValueError(f"an offer is at least 1 crystal, got {offer}")
    if repeats is not None and repeats < 1:
        raise ValueError(f"repeats is at least 1 (or None: no limit), got {repeats}")
    limit = owner_crystals // (offer + 1) + 1 if repeats is None else repeats
    return _plan(offer, owner_value, owner_crystals, limit)[1:]


@lru_cache(maxsize=4096)
def _plan(k: int, v: int, c: int, left: int) -> tuple[int, bool, int]:
    """``(owner's payoff, accepts in the end, refusals first)`` with ``left`` offers to come."""
    if left == 0:
        return 0, False, 0
    accept = (k - v, True, 0)
    if c < k + 1:
        return accept
    later, accepts, refusals = _plan(k, v, c - k - 1, left - 1)
    refuse = (later - k - 1, accepts, refusals + 1)
    return refuse if refuse[0] > accept[0] else accept


def smallest_offer_repeated(owner_value: int, owner_crystals: int, repeats: int | None) -> int:
    """The smallest offer a rational owner accepts when it may be made ``repeats`` times (None: no limit).

    ``max(1, min(⌊c/r⌋, ⌈(v − r)/(r + 1)⌉))``; 1 with no limit (see the module docstring).
    """
    if repeats is None:
        return 1
    r, c, v = repeats, owner_crystals, owner_value
    return max(1, min(c // r, -(-(v - r) // (r + 1))))


def repeated_table(owner_values: range, owner_crystals: range, repeats: tuple[int | None, ...]) -> pl.DataFrame:
    """The smallest successful offer per owner value × owner crystals × offers the challenger may make.

    ``offers_allowed`` reads ``1``, ``2``, … or ``no limit``; ``cheaper_by`` is the smallest single
    offer minus this one (crystals saved by repeating).
    """
    rows = []
    for v in owner_values:
        for c in owner_crystals:
            one = smallest_offer(v, c)
            for r in repeats:
                k = smallest_offer_repeated(v, c, r)
                rows.append({"owner_value": v, "owner_crystals": c,
                             "offers_allowed": "no limit" if r is None else str(r), "smallest_offer": k,
                             "cheaper_by": one - k})
    return pl.DataFrame(rows)


def control_table(owner_values: range, owner_crystals: range, offers: range,
                  challenger_value: int | None = None, reading: str = "one") -> pl.DataFrame:
    """One row per (owner value, owner crystals, offer): the owner's answer and the smallest successful offer.

    With ``challenger_value`` a column says whether the smallest offer is worth making (``w > k*``).
    ``reading`` is one of :data:`OFFERS`: under ``repeated`` the owner, facing the offer without
    limit, accepts it at once (the module docstring says why).
    """
    if reading not in OFFERS:
        raise ValueError(f"unknown offers reading {reading!r}; allowed: {', '.join(OFFERS)}")
    rows = []
    for v in owner_values:
        for c in owner_crystals:
            k_star = smallest_offer(v, c) if reading == "one" else smallest_offer_repeated(v, c, UNLIMITED)
            for k in offers:
                answer = decision(k, v, c) if reading == "one" else "accept"
                row = {"owner_value": v, "owner_crystals": c, "offer": k, "decision": answer,
                       "smallest_offer": k_star}
                if challenger_value is not None:
                    row["worth_it"] = challenger_value > k_star
                rows.append(row)
    return pl.DataFrame(rows)


def acceptance_chart(table: pl.DataFrame, title: str = "Does the owner accept the offer?") -> alt.FacetChart:
    """Offer × owner value, coloured by the owner's answer, one panel per owner crystal count."""
    import altair as alt  # here, not at import: the model imports this module, and altair takes ~0.4 s to load

    return alt.Chart(table).mark_rect().encode(
        x=alt.X("offer:O", title="offer k (crystals)"),
        y=alt.Y("owner_value:O", title="Mercenary's worth to the owner", sort="descending"),
        color=alt.Color("decision:N", scale=alt.Scale(domain=list(DECISIONS),
                                                       range=["#4c78a8", "#e45756", "#f2cf5b"])),
        tooltip=["owner_value", "owner_crystals", "offer", "decision", "smallest_offer"],
    ).properties(width=160, height=160).facet(column=alt.Column("owner_crystals:O", title="owner's crystals")
                                              ).properties(title=title)
