"""The engine's payments (issue 21 item 3): ``keep_playable`` keeps the most of the hand payable.

The text fixes only how many of the paying Power Sources must match the card's colour ("at least
two Power Sources used to pay for it must [have] the Light symbol"), so any sources may pay the
rest.  Since rules version ``babylon-3`` the player names the payment (``payment="chosen"``,
``test_babylon_chosen_payment.py``); the engine's rules are readings: ``keep_playable`` (the default
of ``babylon-2``) pays the way that leaves the most cards of the hand payable; ``others_first`` is
the fixed rule before it.  The proof is exhaustive on a test set of hands: for every hand, every set of available
sources and every card of the hand that can be paid, every payment is enumerated here, independently
of the engine, and the engine's choice must be a legal payment that keeps as many cards payable as
the best of them.  Every play is made on both engines (``twin.both``), so the kernel chooses the
same sources.
"""

from __future__ import annotations

from itertools import combinations, product

import pytest

from tests.games.babylon.scenario import CONFIG, P1, act, hand_ids, legal, play, position, side, sources
from tests.games.babylon.twin import both
from workbench.core.errors import InputError
from workbench.games.babylon.rules import K_PLAY

KEEP_PLAYABLE = CONFIG._replace(payment="keep_playable")
OTHERS_FIRST = CONFIG._replace(payment="others_first")
# costs (power, of which in colour) written from the starter pool's table, not read from the engine
COST = {"F1": (1, 1, "Fire"), "F2": (2, 1, "Fire"), "F4": (5, 2, "Fire"), "F9": (3, 1, "Fire"),
        "E1": (1, 1, "Earth"), "E5": (4, 2, "Earth"), "E10": (1, 1, "Earth"), "L9": (2, 1, "Light"),
        "F12": None}  # Backdraft, a Witchery: paid with Transformed Power, never with sources
COLOURS = ("Fire", "Light", "Earth", "Water", "Shadow")


def _payable(avail: dict[str, int], card_id: str) -> bool:
    if COST[card_id] is None:
        return False
    power, specific, colour = COST[card_id]
    return sum(avail.values()) >= power and avail[colour] >= specific


def _every_payment(avail: dict[str, int], card_id: str) -> list[dict[str, int]]:
    power, specific, colour = COST[card_id]
    out = []
    for counts in product(*(range(avail[c] + 1) for c in COLOURS)):
        paid = dict(zip(COLOURS, counts, strict=True))
        if sum(counts) == power and paid[colour] >= specific:
            out.append(paid)
    return out


def _kept(avail: dict[str, int], paid: dict[str, int], rest: list[str]) -> int:
    left = {c: avail[c] - paid[c] for c in COLOURS}
    return sum(1 for c in rest if _payable(left, c))


def test_cinder_hound_paid_fire_and_fire_leaves_clay_digger_playable():
    # Fire 2 + Earth 1; Cinder Hound costs 2 (1 Fire), Clay Digger 1 (1 Earth): Fire + Fire pays the Hound
    s = position(side(hand=("F2", "E1"), available=sources(Fire=2, Earth=1)))
    s = both(s, play("F2"), config=KEEP_PLAYABLE)
    assert s.sides[P1].exhausted == sources(Fire=2) and s.sides[P1].available == sources(Earth=1)
    assert play("E1") in legal(s, KEEP_PLAYABLE)
    s = both(s, play("E1"), config=KEEP_PLAYABLE)
    assert hand_ids(s, P1) == () and len(s.minions) == 2


def test_others_first_pays_fire_and_earth_and_clay_digger_is_lost():
    s = position(side(hand=("F2", "E1"), available=sources(Fire=2, Earth=1)))
    s = both(s, play("F2"), config=OTHERS_FIRST)
    assert s.sides[P1].exhausted == sources(Fire=1, Earth=1)
    assert not [a for a in legal(s, OTHERS_FIRST) if a.kind == K_PLAY]
    with pytest.raises(InputError, match="not among the legal actions"):
        both(s, play("E1"), config=OTHERS_FIRST)


def test_when_every_payment_keeps_as_much_the_old_payment_is_kept():
    # Scarlet Elder alone in hand: nothing else to keep payable, so other colours pay first, as before
    s = both(position(side(hand=("F4",), available=sources(Fire=3, Light=1, Earth=2))), play("F4"),
             config=KEEP_PLAYABLE)
    assert s.sides[P1].exhausted == sources(Fire=2, Light=1, Earth=2)


HANDS = list(combinations(sorted(COST), 3))
SOURCES = [{"Fire": f, "Light": li, "Earth": e, "Water": 0, "Shadow": 0}
           for f in range(4) for e in range(4) for li in range(2) if 0 < f + e + li]


@pytest.mark.parametrize("hand", HANDS, ids=["-".join(h) for h in HANDS])
def test_the_engine_pays_the_way_that_keeps_the_most_of_the_hand_payable(hand):
    better_than_before = 0
    for avail in SOURCES:
        for card_id in sorted(set(hand)):
            if not _payable(avail, card_id):
                continue
            rest = list(hand)
            rest.remove(card_id)
            best = max(_kept(avail, paid, rest) for paid in _every_payment(avail, card_id))
            start = position(side(hand=hand, available=sources(**avail)))
            after = both(start, play(card_id), config=KEEP_PLAYABLE)
            paid = dict(zip(COLOURS, after.sides[P1].exhausted, strict=True))
            assert paid in _every_payment(avail, card_id), (avail, card_id, paid)
            assert _kept(avail, paid, rest) == best, (avail, card_id, paid)
            old = dict(zip(COLOURS, act(start, play(card_id), config=OTHERS_FIRST).sides[P1].exhausted,
                           strict=True))
            better_than_before += _kept(avail, old, rest) < best
    if set(hand) >= {"F2", "E1"}:
        assert better_than_before > 0  # the Cinder Hound case is among them

