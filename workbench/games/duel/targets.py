"""The duel's balance targets for ``workbench rebalance`` (``core/rebalance.py``).

Metrics, each a balance score (a draw counts half) with its n and 95 % interval:

* ``first_seat_by_battlefield``: the seat that moves first, on each battlefield;
* ``first_seat``: the seat that moves first, over every battlefield (core's).

Every candidate plays every battlefield (regular deck) on the same seeds.  The default edit space is
one start value per battlefield: ``second_bonus_tower``, the tower levels the seat that moves second
starts with on that battlefield, 0..+6 (each step ~1–2 points of the first seat's score at greedy);
``second_bonus_wall`` and the other ``second_bonus_*`` parameters can be named in ``--edit`` too.
"""

from __future__ import annotations

from workbench.core.rebalance import Targets, first_seat_metric
from workbench.games.duel.data import battlefield_names, load_battlefields

BATTLEFIELDS = tuple(load_battlefields())


def _label(item: str) -> str:
    return battlefield_names().get(item, item)


TARGETS = Targets(
    metrics=(first_seat_metric("battlefield", "first_seat_by_battlefield", "First seat's score per battlefield",
                               _label),),
    cells=tuple({"battlefield": key} for key in BATTLEFIELDS),
    params={"deck": "regular"},
    target="first_seat_by_battlefield=49..51",
    edit="second_bonus_tower:0..+6@battlefield",
    games=640,  # the last racing stage, 10,240 games per battlefield, reads ±1 point: the band is 2 points wide
    max_edits=8,
)
