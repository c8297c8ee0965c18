"""Babel's balance targets for ``workbench rebalance`` (``core/rebalance.py``).

Metrics, each a balance score (a draw counts half) with its n and 95 % interval:

* ``start_seat``: the start player's score per hand variant (3/5: the start player is dealt 3 nation
  cards, the other 5; 5/5: the first edition);
* ``first_seat``: the start player over every game (core's).

Every candidate plays both hand variants on the same seeds; each variant states its hands as the
parameters ``hand_start`` and ``hand_other``, and the default edit space steps them per variant
(``@start_hands``), −2..+2 each.
"""

from __future__ import annotations

from workbench.core.rebalance import Targets, first_seat_metric

HANDS = {"3/5": (3, 5), "5/5": (5, 5)}


def _label(item: str) -> str:
    return f"hands {item} (start player / other)"


TARGETS = Targets(
    metrics=(first_seat_metric("start_hands", "start_seat", "Start player's score per hand variant", _label),),
    cells=tuple({"start_hands": key, "hand_start": a, "hand_other": b} for key, (a, b) in HANDS.items()),
    target="start_seat=49..51",
    edit="hand_start:-2..+2@start_hands, hand_other:-2..+2@start_hands",
    games=640,  # the last racing stage, 10,240 games per variant, reads ±1 point: the band is 2 points wide
    max_edits=4,
)
