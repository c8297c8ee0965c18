"""The duel's balance targets for ``workbench rebalance`` (``core/design/rebalance.py``).

Metrics, each a balance score (a draw counts half) with its n and 95 % interval:

* ``first_seat_by_battlefield``: the seat that moves first, on each battlefield;
* ``first_seat``: the seat that moves first, over every battlefield (core's).

Every candidate plays every battlefield (regular deck) on the same seeds.  The default edit space is
one start value per battlefield for the seat that moves second: its tower (``second_bonus_tower``,
0..+3, each level ~0.6–2.3 points of the first seat's score at greedy) or its wall
(``second_bonus_wall``, 0..+10, each level ~0.3–1 point), at most eight edits — one per battlefield.
The battlefields are separate parts of the space (each edit changes one battlefield's games and
items), so the search screens each battlefield's values alone, keeps the better half stage by stage,
and composes the best of each (``core/design/rebalance.py``); the last of four racing stages plays 81,920
games a battlefield (±0.35 point) and the held-out check ±0.5 point, for a band of ±1.  The search
plays both tiers (``search_tiers``): searched at greedy alone, a proposal could hold at greedy and miss
at greedy@tuned by a fraction of a point (Misty Harbour 51.1 % at seed 1).  The other
``second_bonus_*`` parameters (mines, ore, …) can be named in ``--edit`` too.
"""

from __future__ import annotations

from workbench.core.design.rebalance import Targets, first_seat_metric
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
    edit="second_bonus_tower:0..+3@battlefield, second_bonus_wall:0..+10@battlefield",
    games=1280,  # the first racing stage; the last of four plays 81,920 games a battlefield: ±0.35 point
    max_edits=8,  # one start value per battlefield
    budget=8_000_000,  # a full search (workbench rebalance duel's default; benchmarks/rebalance.py)
    stages=4,
    margin=0.005,  # the held-out check reads ±0.5 point: the band is ±1
    search_tiers=True,
    retune=20_000,  # greedy@tuned re-tuned for each replayed proposal (edited start values change best play)
)
