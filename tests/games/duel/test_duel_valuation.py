"""The static value model: features, least-squares recovery of known exchange rates, the card table."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from workbench.games.duel.cardvalue import valuation
from workbench.games.duel.data import Card, CardSet, load_cards
from workbench.games.duel.effects import parse_effect

RATES = {"tower": 1.0, "wall": 0.5, "damage": 1.5, "producers": 4.0, "stockpiles": 0.25, "again": 2.0,
         "draw_discard": 1.0}
BASE = {"red": 1.0, "blue": 0.0, "green": 2.0}


def _synthetic_cards(n: int = 60, seed: int = 7) -> CardSet:
    """Cards whose costs follow RATES and BASE exactly (amounts chosen so every cost is whole)."""
    rng = np.random.default_rng(seed)
    cards = []
    for i in range(n):
        colour = ("red", "blue", "green")[i % 3]
        tower, wall, damage = int(rng.integers(0, 6)), 2 * int(rng.integers(0, 5)), 2 * int(rng.integers(0, 4))
        mines, ore = int(rng.integers(0, 2)), 4 * int(rng.integers(0, 3))
        parts = [f"self.tower +{tower}", f"self.wall +{wall}", f"enemy.damage {damage}", f"self.mines +{mines}",
                 f"self.ore +{ore}"]
        flags = i % 5
        if flags == 1:
            parts.append("again")
        elif flags == 2:
            parts += ["draw_discard", "again"]
        text = "; ".join(parts)
        cost = BASE[colour] + (RATES["tower"] * tower + RATES["wall"] * wall + RATES["damage"] * damage
                               + RATES["producers"] * mines + RATES["stockpiles"] * ore
                               + RATES["again"] * (flags in (1, 2)) + RATES["draw_discard"] * (flags == 2))
        assert cost == int(cost)
        cards.append(Card(i, i + 1, f"c{i}", f"Card {i}", "", colour, int(cost), parse_effect(text), text))
    return CardSet(tuple(cards), "", "")


def test_least_squares_recovers_known_exchange_rates():
    model = valuation.fit_value_model(_synthetic_cards())
    for name, rate in RATES.items():
        assert model.rates[name] == pytest.approx(rate, abs=1e-6), name
    for colour, base in BASE.items():
        assert model.base[colour] == pytest.approx(base, abs=1e-6), colour
    assert model.r2 == pytest.approx(1.0)
    assert model.rmse == pytest.approx(0.0, abs=1e-6)


def test_recovery_survives_noise():
    cards = _synthetic_cards(300, seed=3)
    rng = np.random.default_rng(0)
    noisy = CardSet(tuple(c._replace(cost=max(0, c.cost + int(rng.integers(-1, 2)))) for c in cards.cards), "", "")
    model = valuation.fit_value_model(noisy)
    assert model.rates["tower"] == pytest.approx(1.0, abs=0.15)
    assert model.rates["producers"] == pytest.approx(4.0, abs=0.5)


@pytest.mark.parametrize("text, expected", [
    ("self.tower +3", {"tower": 3}),
    ("enemy.tower -4", {"tower": 4}),  # the enemy's loss is my advantage
    ("all.mines -1", {}),  # both players: nets to zero
    ("enemy.damage 6; self.damage 3", {"damage": 3}),
    ("steal.mana 10", {"stockpiles": 15}),
    ("if self.wall == 0 then self.wall +5 else self.wall +3", {"wall": 4}),  # mean of the branches
    ("if self.mines < enemy.mines then self.mines = enemy.mines", {"producers": 0.5}),  # gap 1, half the time
    ("swap.wall", {"wall": valuation.GAP["wall"]}),
    ("lower_wall.tower -2", {}),
    ("draw_discard; again", {"again": 1, "draw_discard": 1}),
])
def test_effect_features(text, expected):
    got = dict(zip(valuation.FEATURES, valuation.effect_features(parse_effect(text)), strict=True))
    assert got == pytest.approx({f: float(expected.get(f, 0.0)) for f in valuation.FEATURES})


def test_card_values_one_per_card_and_on_the_cost_scale():
    cards = load_cards()
    values = valuation.card_values(cards)
    assert len(values) == len(cards) and all(np.isfinite(values))
    costs = np.array([c.cost for c in cards.cards])
    assert np.corrcoef(values, costs)[0, 1] > 0.8
    table = valuation.costing_table(cards)
    by_key = dict(zip(table.get_column("key"), table.get_column("value"), strict=True))
    assert all(by_key[c.key] == pytest.approx(v) for c, v in zip(cards.cards, values, strict=True))
    assert valuation.card_values(cards) == values  # cached, same answer


def test_the_shipped_costing_table_is_the_plain_least_squares_fit_numpy_finds():
    # On the shipped cards no rate wants to go below 0, so the bounded fit is the unbounded one:
    # numpy's lstsq on a design built here (features, then one 0/1 column per colour).
    cards = load_cards()
    frame = valuation.feature_frame(cards)
    colours = ["red", "blue", "green"]
    x = np.hstack([frame.select(valuation.FEATURES).to_numpy(),
                   np.array([[float(c == k) for k in colours] for c in frame["colour"]])])
    y = frame["cost"].cast(pl.Float64).to_numpy()
    beta = np.linalg.lstsq(x, y, rcond=None)[0]
    assert (beta[:len(valuation.FEATURES)] > 0).all()  # the bound is not active
    model = valuation.fit_value_model(cards)
    assert [model.rates[f] for f in valuation.FEATURES] == pytest.approx(beta[:7], abs=1e-8)
    assert [model.base[c] for c in colours] == pytest.approx(beta[7:], abs=1e-8)
    resid = y - x @ beta
    assert model.rmse == pytest.approx(np.sqrt((resid ** 2).mean()))
    assert model.r2 == pytest.approx(1 - (resid ** 2).sum() / ((y - y.mean()) ** 2).sum())
    # the table a designer reads: value = numpy's fitted cost, residual = cost − value, over-costed first
    table = valuation.costing_table(cards)
    fitted = dict(zip(frame["key"], x @ beta, strict=True))
    assert table.height == 102 and table["residual"].is_sorted(descending=True)
    for row in table.iter_rows(named=True):
        assert row["value"] == pytest.approx(fitted[row["key"]], abs=1e-8), row["key"]
        assert row["residual"] == pytest.approx(row["cost"] - fitted[row["key"]], abs=1e-8)
        assert row["residual_z"] == pytest.approx(row["residual"] / np.sqrt((resid ** 2).mean()))
    assert table.columns[:9] == ["id", "key", "name_en", "colour", "cost", "value", "residual", "residual_z", "effect"]
