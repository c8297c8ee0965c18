"""Core's card value model: bounded least squares from a card frame's features to its costs.

Every expected number below is worked out by hand in the comment beside it, never by the code.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

from workbench.core.errors import InputError
from workbench.core.stats.valuation import FITTED, costing_table, fit_value_model


def _cards(rows: list[tuple], columns=("id", "group", "f1", "f2", "cost")) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=list(columns), orient="row")


# cost = base[group] + 2·f1 + 0.5·f2 exactly, base A = 1, base B = 3
EXACT = _cards([("a1", "A", 1, 0, 3.0), ("a2", "A", 2, 4, 7.0), ("a3", "A", 0, 2, 2.0),
                ("b1", "B", 1, 2, 6.0), ("b2", "B", 3, 0, 9.0), ("b3", "B", 0, 6, 6.0)])


def test_costs_that_are_an_exact_linear_function_give_back_the_weights():
    model = fit_value_model(EXACT, ("f1", "f2"), group="group")
    assert model.rates == pytest.approx({"f1": 2.0, "f2": 0.5}, abs=1e-9)
    assert model.base == pytest.approx({"A": 1.0, "B": 3.0}, abs=1e-9)
    assert (model.r2, model.rmse, model.n) == (pytest.approx(1.0), pytest.approx(0.0, abs=1e-9), 6)
    table = costing_table(EXACT, model)
    assert table.columns == ["id", "group", "cost", *FITTED, "f1", "f2"]
    assert table["residual"].abs().max() < 1e-9
    assert dict(zip(table["id"], table["value"], strict=True)) == pytest.approx(
        {"a1": 3.0, "a2": 7.0, "a3": 2.0, "b1": 6.0, "b2": 9.0, "b3": 6.0})


# cost = 2·f1 − f2: the best fit wants a negative rate for f2.  Held at 0 by the bound, the fit is
# cost on f1 alone: mean f1 = 2.5, mean cost = 4.5, Sxy = 9, Sxx = 5 → rate 1.8, intercept 0;
# residuals cost − 1.8·f1 = 0.2, −0.6, 0.6, −0.2 (sum of squares 0.8); SS_tot = 17.
# Raising f2's rate from 0 would raise the squared error (gradient −f2·residual = 0.8 > 0): the bound holds.
BOUND = _cards([("c1", "all", 1, 0, 2.0), ("c2", "all", 2, 1, 3.0), ("c3", "all", 3, 0, 6.0),
                ("c4", "all", 4, 1, 7.0)])


def test_an_active_bound_holds_a_rate_at_zero_and_refits_the_rest_by_hand():
    model = fit_value_model(BOUND, ("f1", "f2"), group="group")
    assert model.rates == pytest.approx({"f1": 1.8, "f2": 0.0}, abs=1e-9)
    assert model.base == pytest.approx({"all": 0.0}, abs=1e-9)
    assert model.r2 == pytest.approx(1 - 0.8 / 17)
    assert model.rmse == pytest.approx(math.sqrt(0.8 / 4))
    table = costing_table(BOUND, model)
    assert table["id"].to_list() == ["c3", "c1", "c4", "c2"]  # most over-costed first: +0.6, +0.2, −0.2, −0.6
    assert table["residual"].to_list() == pytest.approx([0.6, 0.2, -0.2, -0.6])
    assert table["residual_z"].to_list() == pytest.approx([r / math.sqrt(0.2) for r in (0.6, 0.2, -0.2, -0.6)])
    free = fit_value_model(BOUND, ("f1", "f2"), group="group", nonnegative=False)  # unbounded: exact, f2 = −1
    assert free.rates == pytest.approx({"f1": 2.0, "f2": -1.0}, abs=1e-9) and free.r2 == pytest.approx(1.0)


def test_a_feature_no_card_has_is_held_at_zero_and_groups_follow_the_declared_order():
    cards = EXACT.with_columns(pl.lit(0.0).alias("f3"))
    model = fit_value_model(cards, ("f1", "f2", "f3"), group="group", groups=("B", "A", "C"))
    assert model.rates["f3"] == 0.0 and model.features == ("f1", "f2", "f3")
    assert list(model.base) == ["B", "A"]  # C: no card, no intercept
    rates = model.rates_frame()
    assert rates["term"].to_list() == ["f1", "f2", "f3", "base_B", "base_A"]
    assert rates["kind"].to_list() == ["rate"] * 3 + ["intercept"] * 2
    with pytest.raises(InputError, match="group 'A' is not one of B, C"):
        fit_value_model(EXACT, ("f1", "f2"), group="group", groups=("B", "C"))
    with pytest.raises(InputError, match="no cards"):
        fit_value_model(EXACT.head(0), ("f1", "f2"), group="group")


def test_a_reference_column_is_carried_beside_the_fitted_value_where_lead_puts_it():
    cards = BOUND.with_columns(pl.Series("paper", [1.0, None, 3.0, 4.0]))
    table = costing_table(cards, fit_value_model(cards, ("f1", "f2"), group="group"),
                          lead=["id", "cost", "paper", *FITTED])
    assert table.columns == ["id", "cost", "paper", "value", "residual", "residual_z", "f1", "f2"]
    assert dict(zip(table["id"], table["paper"], strict=True)) == {"c1": 1.0, "c2": None, "c3": 3.0, "c4": 4.0}


def test_rate_standard_error_is_the_textbook_one_on_a_line_with_one_over_costed_card():
    # cost = 1 + 2·x for x = 0..4, but x = 4 costs 10.  By hand: x̄ = 2, ȳ = 26/5 = 5.2, Sxx = 10,
    # Sxy = (−2)(−4.2) + (−1)(−2.2) + 0 + (1)(1.8) + (2)(4.8) = 22 → slope 2.2, intercept 5.2 − 4.4 = 0.8;
    # fitted 0.8, 3.0, 5.2, 7.4, 9.6 → residuals 0.2, 0, −0.2, −0.4, 0.4, squares summing to 0.4;
    # SS_tot = 4.2² + 2.2² + 0.2² + 1.8² + 4.8² = 48.8; σ² = 0.4 / (5 − 2), se(slope) = √(σ² / Sxx) = √(1/75).
    cards = pl.DataFrame({"id": [f"x{i}" for i in range(5)], "group": ["g"] * 5, "x": [0.0, 1.0, 2.0, 3.0, 4.0],
                          "cost": [1.0, 3.0, 5.0, 7.0, 10.0]})
    model = fit_value_model(cards, ("x",), group="group")
    assert model.rates["x"] == pytest.approx(2.2) and model.base["g"] == pytest.approx(0.8)
    assert model.rate_se["x"] == pytest.approx(math.sqrt(1 / 75))
    assert model.rmse == pytest.approx(math.sqrt(0.4 / 5)) and model.r2 == pytest.approx(1 - 0.4 / 48.8)
    table = costing_table(cards, model)
    assert table["id"].to_list() == ["x4", "x0", "x1", "x2", "x3"]
    assert table["residual"].to_list() == pytest.approx([0.4, 0.2, 0.0, -0.2, -0.4], abs=1e-12)
