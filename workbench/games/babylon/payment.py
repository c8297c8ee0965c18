"""Paying for a card: the sources a play may spend, chosen by the player or, at the older readings, by the engine.

Under ``payment="chosen"`` (rules version 3) a play carries its sources (:func:`pack_payment`) and the legal plays
list each way to pay (:func:`payments`); ``keep_playable`` and ``others_first`` let the engine pay (:func:`payment`).
Every name here is re-exported by ``rules.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from math import comb

from workbench.games.babylon.state import (
    N_FACTIONS,
    UNKNOWN,
    WITCHERY,
    Config,
    Side,
    _remove,
)


def can_pay(cfg: Config, side: Side, card: int) -> bool:
    """True when the available sources pay the card's power and specific cost."""
    info = cfg.cards[card]
    return sum(side.available) >= info.power and side.available[info.faction] >= info.specific


PAY_BASE = 100  # Action.pay: the sources of each faction as two decimal digits, Fire first (a cost is at most 20)


def pack_payment(paid: tuple[int, ...]) -> int:
    """``Action.pay`` of sources ``paid`` per faction: Fire 2, Water 1 is 2_00_00_01_00 (digits in faction order)."""
    pay = 0
    for n in paid:
        pay = pay * PAY_BASE + n
    return pay


def unpack_payment(pay: int) -> tuple[int, ...]:
    """The sources per faction of ``Action.pay`` (:func:`pack_payment`)."""
    paid = []
    for _ in range(N_FACTIONS):
        pay, n = divmod(pay, PAY_BASE)
        paid.append(n)
    return tuple(reversed(paid))


def payments(cfg: Config, side: Side, card: int) -> Iterator[tuple[int, ...]]:
    """Every way the available sources pay ``card`` (sources per faction), in lexicographic order of faction counts."""
    info = cfg.cards[card]
    avail = side.available

    def rest(f: int, left: int) -> Iterator[tuple[int, ...]]:
        if f == N_FACTIONS - 1:
            if left <= avail[f]:
                yield (left,)
            return
        for n in range(min(avail[f], left) + 1):
            for tail in rest(f + 1, left - n):
                yield (n,) + tail

    return (paid for paid in rest(0, info.power) if paid[info.faction] >= info.specific)


def most_payments(cfg: Config) -> int:
    """Most ways to pay one card of either deck (a bound): the splits of its power over the five factions."""
    return max(comb(cfg.cards[c].power + N_FACTIONS - 1, N_FACTIONS - 1) for deck in cfg.decks for c in deck)


def kept_playable(cfg: Config, side: Side, card: int, paid: tuple[int, ...]) -> int:
    """Cards left in the hand (``card`` played; Witcheries, unknown cards aside) the sources left after ``paid`` pay."""
    left = side._replace(available=tuple(a - p for a, p in zip(side.available, paid, strict=True)))
    return sum(1 for c in _remove(side.hand, card)
               if c != UNKNOWN and cfg.cards[c].type != WITCHERY and can_pay(cfg, left, c))


def payment(cfg: Config, side: Side, card: int, reading: str | None = None) -> tuple[int, ...]:
    """Sources used per faction when the engine pays by ``reading`` (default ``Config.payment``).

    ``keep_playable`` (and ``chosen``, whose plays name their payment: the payment the older reading
    made): of every payment (:func:`payments`), one that leaves the most of the hand payable
    (:func:`kept_playable`); among equals the ``others_first`` one, else the first in
    :func:`payments`' order.  ``others_first``: the specific cost in colour, the rest from other
    colours, most available first (ties in faction order), its own colour last.
    """
    first = _others_first(cfg, side, card)
    if (reading or cfg.payment) == "others_first":
        return first
    best, most = first, kept_playable(cfg, side, card, first)
    for paid in payments(cfg, side, card):
        kept = kept_playable(cfg, side, card, paid)
        if kept > most:
            best, most = paid, kept
    return best


def _others_first(cfg: Config, side: Side, card: int) -> tuple[int, ...]:
    info = cfg.cards[card]
    paid = [0] * N_FACTIONS
    paid[info.faction] = info.specific
    rest = info.power - info.specific
    left = list(side.available)
    left[info.faction] -= info.specific
    while rest > 0:
        others = [f for f in range(N_FACTIONS) if f != info.faction and left[f] > 0]
        f = max(others, key=lambda x: (left[x], -x)) if others else info.faction
        take = min(rest, left[f])
        paid[f] += take
        left[f] -= take
        rest -= take
    return tuple(paid)
