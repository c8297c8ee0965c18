"""Greedy's economy (issue 37): Power Sources and Transformed Power are worth what they can pay for.

The old evaluation valued the k-th source at ``source · source_decay^k`` whatever the hand held, so
default greedy made an Offering on most turns and ended games with Transformed Power nothing could
spend.  ``source_surplus`` and ``tp_witchery`` (``agents.Weights``) fix that; at 0 they give the old
evaluation back (``OLD_DEFAULTS``).
"""

from __future__ import annotations

import pytest

from tests.games.babylon.scenario import CONFIG, DRAW, END, P1, P2, act, legal, position, side, sources
from workbench.core.model import get_game
from workbench.games.babylon import rules
from workbench.games.babylon.agents import OLD_DEFAULTS, GreedyAgent, Weights, evaluate, observe

OLD = Weights(tower=1.0, minion=0.5, health=0.25, builder=1.0, raider=0.8, guard=0.4, sentenced=0.5, card=0.6,
              hand_decay=0.85, playable=0.4, playable_cap=2.0, source=2.0, source_decay=0.9, tp=0.3, late=0.2,
              margin=0.01, mulligan_cost=5.0, source_surplus=0.0, tp_witchery=0.0)


def _turn_start(hand: tuple[str, ...], draw: str, **per_faction: int):
    """P2's start-of-turn decision (draw a second card or make an Offering) after P1 ended its turn."""
    p2 = side(hand=hand, deck=(draw, "W4", "W5"), turns=1, exhausted=sources(**per_faction))
    s = act(position(side(deck=("F1", "F2")), p2), END)
    assert rules.decision(s)[:2] == (rules.START, P2)
    return s


def _choice(s, weights: Weights) -> str:
    a = GreedyAgent(weights).choose(CONFIG, observe(s, P2).state, P2, legal(s))
    return "draw" if a == DRAW else rules.KINDS[a.kind]


def test_greedy_draws_instead_of_an_offering_when_its_sources_pay_every_card_in_hand():
    s = _turn_start(("W1", "W2", "L2"), "W3", Light=2, Water=2)  # 4 sources; the dearest card costs 3
    assert _choice(s, Weights()) == "draw"


def test_the_old_weights_still_make_that_offering():
    s = _turn_start(("W1", "W2", "L2"), "W3", Light=2, Water=2)
    assert _choice(s, OLD) == "offer"


def test_greedy_still_makes_an_offering_for_a_card_its_sources_cannot_pay():
    s = _turn_start(("W1", "W2", "W6"), "W3", Light=2, Water=2)  # Euphrates Leviathan costs 7
    assert _choice(s, Weights()) == "offer"


def _worth_of_tp(hand: tuple[str, ...], weights: Weights, tp: int = 3) -> float:
    """How much ``tp`` Transformed Power adds to P1's evaluation with ``hand``."""
    low = position(side(hand=hand, available=sources(Water=2)), side(hand=("F1",)))
    high = position(side(hand=hand, available=sources(Water=2), tp=tp), side(hand=("F1",)))
    return evaluate(CONFIG, high, P1, weights) - evaluate(CONFIG, low, P1, weights)


def test_a_held_witchery_makes_transformed_power_worth_more():
    with_witchery = _worth_of_tp(("W1", "W12"), Weights())  # Whirlpool costs 2 TP
    without = _worth_of_tp(("W1", "W2"), Weights())
    assert with_witchery > without > 0
    # Transformed Power beyond what the Witcheries held cost is worth only ``tp``: 1 point past Whirlpool's 2
    w = Weights()
    assert with_witchery == pytest.approx(3 * w.tp + 2 * w.tp_witchery)


def test_the_old_weights_value_transformed_power_alike_with_or_without_a_witchery():
    assert _worth_of_tp(("W1", "W12"), OLD) == pytest.approx(_worth_of_tp(("W1", "W2"), OLD)) == pytest.approx(0.9)


def test_the_old_weights_give_the_old_formula_by_hand():
    # 3 sources (2 + 1.8 + 1.62), my 2 cards (0.6 + 0.51) less the enemy's 1 (0.6), both mine payable (0.4 · 2),
    # 2 TP (0.3 · 2); no minions, equal towers
    s = position(side(hand=("W1", "W2"), available=sources(Water=3), tp=2), side(hand=("F1",)))
    assert evaluate(CONFIG, s, P1, OLD) == pytest.approx(2 + 1.8 + 1.62 + 0.6 + 0.51 - 0.6 + 0.8 + 0.6)


def test_surplus_sources_lose_their_worth_only_past_what_the_dearest_card_needs():
    w = Weights()
    need = max(w.source_need, 3)
    hand = side(hand=("W1", "W3"), available=sources(Water=int(need) + 2))
    fewer = side(hand=("W1", "W3"), available=sources(Water=int(need) + 1))
    gained = evaluate(CONFIG, position(hand, side()), P1, w) - evaluate(CONFIG, position(fewer, side()), P1, w)
    full = w.source * w.source_decay ** (int(need) + 1)
    assert gained == pytest.approx((1 - w.source_surplus) * full)


def test_the_old_defaults_as_options_are_the_old_weights():
    model = get_game("babylon")
    spec = model.resolve_agents(f"greedy:{OLD_DEFAULTS},greedy", model.resolve_params({}))[0]
    assert model.make_agent(spec).weights == OLD
