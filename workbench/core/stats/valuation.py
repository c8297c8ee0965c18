"""Static card value model: the exchange rates from a card's features to its printed cost.

A card game turns every card into a few *features* — numbers read from its stats and its text,
each in its own units (the duel's tower and wall swings, Babylon's might and health) — and
declares them as columns of a card frame, one row per card.  The exchange rates that best
explain the printed costs are fitted by bounded least squares (``scipy.optimize.lsq_linear``,
method BVLS)::

    cost ≈ base[group] + Σ rate[f] · feature[f]

with one free intercept per *group* (the duel's colours, Babylon's card types: costs paid in
different currencies, or that buy different things), and every rate bounded at 0 from below (a
point of wall is never worth a negative cost).  A feature no card has cannot be identified: its
rate is held at 0.

The fitted cost is the card's *value*; ``residual = cost − value`` says how far the printed cost
is from what its features are worth: above 0 the card is over-costed, below 0 under-costed.
``r2`` is the share of the cost variance the model explains, ``rmse`` the typical residual.  A
game's own reference valuation (Babylon's ``paper`` tuning from its design notes) is a column of
the card frame, carried beside the fitted value so a reader compares both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from workbench.core.errors import InputError
from workbench.core.lazy import lazy

optimize = lazy("scipy.optimize")  # imported at the first fit (~0.35 s): a page that fits nothing never waits

__all__ = ["FITTED", "ValueModel", "costing_table", "fit_value_model"]

FITTED = ("value", "residual", "residual_z")  # the columns costing_table adds


@dataclass(frozen=True)
class ValueModel:
    """Fitted exchange rates ``rates[f]`` (cost per unit of feature ``f``) and ``base[group]`` intercepts.

    ``rate_se`` are ordinary least-squares standard errors (from ``σ²(XᵀX)⁻¹``; only indicative for a
    rate held at its zero bound), ``r2`` the share of the cost variance explained, ``rmse`` the root
    mean squared residual, ``n`` the cards fitted and ``group`` the column naming each card's intercept.
    """

    rates: dict[str, float]
    rate_se: dict[str, float]
    base: dict[str, float]
    r2: float
    rmse: float
    n: int
    group: str = "group"

    @property
    def features(self) -> tuple[str, ...]:
        """The feature columns, in the order they were fitted."""
        return tuple(self.rates)

    def value(self, cards: pl.DataFrame) -> np.ndarray:
        """Fitted cost of every card of a frame holding the feature columns and the group column."""
        x = np.ascontiguousarray(cards.select(self.features).to_numpy(), dtype=float)  # row by row
        intercept = np.array([self.base.get(g, 0.0) for g in cards.get_column(self.group).to_list()])
        return x @ np.array([self.rates[f] for f in self.features]) + intercept

    def rates_frame(self) -> pl.DataFrame:
        """The exchange rates and the intercepts as a table (term, kind, rate, se)."""
        rows = [{"term": f, "kind": "rate", "rate": self.rates[f], "se": self.rate_se[f]} for f in self.features]
        rows += [{"term": f"base_{g}", "kind": "intercept", "rate": v, "se": None} for g, v in self.base.items()]
        return pl.DataFrame(rows, schema={"term": pl.String, "kind": pl.String, "rate": pl.Float64, "se": pl.Float64})


def _design(cards: pl.DataFrame, features: Sequence[str], group: str,
            groups: Sequence[str] | None) -> tuple[np.ndarray, list[str]]:
    """Feature columns, then one 0/1 column per group present (in ``groups``' order, else first seen)."""
    labels = cards.get_column(group).to_list()
    present = list(dict.fromkeys(labels))
    order = [g for g in groups if g in present] if groups is not None else present
    missing = [g for g in present if g not in order]
    if missing:
        raise InputError(f"value model: {group} {missing[0]!r} is not one of {', '.join(map(str, groups or ()))}")
    dummies = np.array([[1.0 if label == g else 0.0 for g in order] for label in labels]).reshape(len(labels),
                                                                                                 len(order))
    return np.hstack([cards.select(features).to_numpy(), dummies]), order


def fit_value_model(cards: pl.DataFrame, features: Sequence[str], *, group: str, groups: Sequence[str] | None = None,
                    cost: str = "cost", nonnegative: bool = True) -> ValueModel:
    """Fit the exchange rates that best explain ``cost`` from the ``features`` columns of a card frame.

    Args:
        cards: one row per card with the feature columns, ``cost`` and ``group``.
        features: the feature columns, in the order the rates are reported.
        group: the column whose value picks a card's intercept (colour, card type).
        groups: the order of the intercepts (those present); None: order of first appearance.
        cost: the column of printed costs.
        nonnegative: bound every rate at 0 from below (intercepts are always free).

    Returns:
        The fitted :class:`ValueModel`.
    """
    features = list(features)
    if cards.height == 0:
        raise InputError("cannot fit a value model to no cards")
    a, order = _design(cards, features, group, groups)
    y = cards.get_column(cost).cast(pl.Float64).to_numpy()
    k = len(features)
    lower = np.r_[np.zeros(k) if nonnegative else np.full(k, -np.inf), np.full(len(order), -np.inf)]
    upper = np.full(a.shape[1], np.inf)
    unused = ~np.any(a[:, :k] != 0, axis=0)  # a feature no card has cannot be identified: hold it at 0
    lower[:k][unused], upper[:k][unused] = 0.0, 1e-12
    coef = optimize.lsq_linear(a, y, bounds=(lower, upper), method="bvls").x
    resid = y - a @ coef
    sigma2 = float(resid @ resid) / max(1, len(y) - a.shape[1])
    se = np.sqrt(np.clip(np.diag(sigma2 * np.linalg.pinv(a.T @ a)), 0, None))
    ss_tot = float(((y - y.mean()) ** 2).sum())
    return ValueModel(rates={f: float(coef[i]) for i, f in enumerate(features)},
                      rate_se={f: float(se[i]) for i, f in enumerate(features)},
                      base={g: float(coef[k + j]) for j, g in enumerate(order)},
                      r2=1.0 - float(resid @ resid) / ss_tot if ss_tot > 0 else 1.0,
                      rmse=float(np.sqrt((resid ** 2).mean())), n=len(y), group=group)


def costing_table(cards: pl.DataFrame, model: ValueModel, *, cost: str = "cost",
                  lead: Sequence[str] | None = None) -> pl.DataFrame:
    """Every card with its fitted ``value``, ``residual`` (cost − value) and ``residual_z``; most over-costed first.

    ``residual > 0``: the card costs more than its features are worth (over-costed); ``< 0``:
    under-costed.  ``residual_z`` is the residual over the model's RMSE.  Columns: ``lead`` (which
    places ``value``, ``residual`` and ``residual_z`` among the card's own columns; default: every
    column that is not a feature, then those three), then the features.
    """
    features = list(model.features)
    if lead is None:
        lead = [c for c in cards.columns if c not in features and c not in FITTED] + list(FITTED)
    frame = cards.with_columns(pl.Series("value", model.value(cards))).with_columns(
        (pl.col(cost) - pl.col("value")).alias("residual"))
    frame = frame.with_columns((pl.col("residual") / (model.rmse or 1.0)).alias("residual_z"))
    return frame.select(list(lead) + features).sort("residual", descending=True)
