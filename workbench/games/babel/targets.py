"""Babel's balance targets for ``workbench rebalance`` (``core/design/rebalance.py``).

Metrics, each a balance score (a draw counts half) with its n and 95 % interval:

* ``start_seat``: the start player's score per hand variant (3/5: the start player is dealt 3 nation
  cards, the other 5; 5/5: the first edition);
* ``first_seat``: the start player over every game (core's).

Every candidate plays both hand variants on the same seeds; each variant states its hands as the
parameters ``hand_start`` and ``hand_other``, and the default edit space steps them per variant
(``@start_hands``): the start player's −2..+6, the other's −2..+5.  One card more or less moves the start
seat 3–4 points, and the band is 2 points wide: equal hands favour the start player by about 2 points at 3
to 6 cards each, one card more for the other player favours the other by about 2, and only larger equal
hands come closer to even (7 each: 51.4 %, 8 each: 50.9 %, 9 each: 50.3 %, 10 each 49.4 % at greedy; 50.6,
49.9, 49.4 and 49.3 % at greedy@tuned; 40,000 games each) — hence steps up to 9 cards each from 3/5.

The two tiers disagree by up to a point, half the band, so the search plays both (``search_tiers``): a
hand it picks must sit inside the band at greedy *and* at greedy@tuned, not at greedy alone (the search at
greedy alone picked 5/6 and 10/10, which held out at 48.6 and 48.8 %).  The variants are separate parts of
the space (their own cells and items), so the search screens each variant's hands alone and composes the
best of both (``core/design/rebalance.py``); the last racing stage reads ±0.5 point and the held-out check ±0.5
point, for a band of ±1.
"""

from __future__ import annotations

from workbench.core.design.rebalance import Targets, first_seat_metric

HANDS = {"3/5": (3, 5), "5/5": (5, 5)}


def _label(item: str) -> str:
    return f"hands {item} (start player / other)"


TARGETS = Targets(
    metrics=(first_seat_metric("start_hands", "start_seat", "Start player's score per hand variant", _label),),
    cells=tuple({"start_hands": key, "hand_start": a, "hand_other": b} for key, (a, b) in HANDS.items()),
    target="start_seat=49..51",
    edit="hand_start:-2..+6@start_hands, hand_other:-2..+5@start_hands",
    games=640,  # the last of four racing stages, 40,960 games per variant, reads ±0.5 point: the band is ±1
    max_edits=4,
    budget=6_000_000,  # a full search at both tiers (workbench rebalance babel's default; benchmarks/rebalance.py)
    stages=4,
    margin=0.005,
    search_tiers=True,
    # no re-tune: a weight set is re-tuned on one card set (core/skill/tune.py), and each variant deals other hands
    retune=0,
)
