"""Static value model of the duel's cards: what each card's effect is worth in cost units.

Every card effect is turned into a few *features*, each the change in one player's advantage
(mine minus the enemy's) the effect makes, then the exchange rates that best explain the printed
costs are fitted by least squares (``scipy.optimize.lsq_linear``)::

    cost ≈ base[colour] + Σ rate[f] · feature[f]

Features (``FEATURES``), all "mine − enemy's", in the stat's own units:

* ``tower``: tower gained by me, minus tower gained by the enemy (so ``enemy.tower -3`` is +3);
* ``wall``: the same for the wall;
* ``damage``: ordinary damage (wall first) dealt to the enemy minus ordinary damage taken;
* ``producers``: mines + monasteries + barracks, mine minus the enemy's;
* ``stockpiles``: ore + mana + troops, mine minus the enemy's (a steal of N counts N + N/2);
* ``again``: 1 for "play again"; ``draw_discard``: 1 for "draw a card, discard a card".

``base`` is one intercept per colour, because costs are paid in three different currencies
(ore, mana, troops), which cards of each colour use differently.  Rates are bounded at zero from
below (a wall is never worth a negative cost); intercepts are free.

Valuation choices (a static model cannot know the game state, so each is a documented guess):

* effects on ``all`` / ``everyone`` players change both sides and net to zero advantage;
* a conditional statement is worth the mean of its two branches (an absent ``else`` is worth 0);
* ``lower_wall`` (Groundwater) hits me or the enemy with equal chance: worth 0 net;
* "become equal" (``self.X = enemy.X``) and ``swap.X`` are worth ``GAP[X]`` units of X, the
  typical gap a player waits for before playing such a card (1 producer, 5 of anything else);
* losses are valued at their full size (the clamp at 0 is ignored).

``card_values(cards)`` returns the fitted cost (base + rates · features) of every card: the cost
the card "should" have.  The engine's ``worst_card="value"`` option discards the lowest.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import polars as pl
from scipy import optimize

from workbench.core.errors import InputError
from workbench.games.duel.data import CardSet, load_cards
from workbench.games.duel.effects import ADD, DAMAGE, SET, STEAL, SWAP, Effect, Op

__all__ = ["FEATURES", "GAP", "ValueModel", "card_features", "card_values", "costing_table", "effect_features",
           "feature_frame", "fit_value_model"]

FEATURES = ("tower", "wall", "damage", "producers", "stockpiles", "again", "draw_discard")
COLOUR_ORDER = ("red", "blue", "green")
GAP = {"tower": 5.0, "wall": 5.0, "mines": 1.0, "monasteries": 1.0, "barracks": 1.0, "ore": 5.0, "mana": 5.0,
       "troops": 5.0}
_FEATURE_OF_STAT = {"tower": "tower", "wall": "wall", "mines": "producers", "monasteries": "producers",
                    "barracks": "producers", "ore": "stockpiles", "mana": "stockpiles", "troops": "stockpiles"}
_SIGN = {"self": 1.0, "enemy": -1.0, "all": 0.0, "everyone": 0.0, "lower_wall": 0.0}


def _op_features(op: Op) -> dict[str, float]:
    """Advantage change of one operation (mine − enemy's), per feature."""
    if op.kind == ADD:
        return {_FEATURE_OF_STAT[op.stat]: _SIGN[op.who] * op.amount}
    if op.kind == DAMAGE:  # damage to the enemy is my advantage, damage to me the enemy's
        return {"damage": -_SIGN[op.who] * op.amount}
    if op.kind == SET:  # "become equal": worth a typical gap, to whichever side gains
        return {_FEATURE_OF_STAT[op.stat]: _SIGN[op.who] * GAP[op.stat]}
    if op.kind == SWAP:
        return {_FEATURE_OF_STAT[op.stat]: GAP[op.stat]}
    if op.kind == STEAL:  # the enemy loses N, I gain about half of it
        return {"stockpiles": op.amount + op.amount / 2}
    raise ValueError(f"unknown operation {op.kind!r}")


def _ops_features(ops: tuple[Op, ...]) -> np.ndarray:
    out = np.zeros(len(FEATURES))
    for op in ops:
        for name, value in _op_features(op).items():
            out[FEATURES.index(name)] += value
    return out


def effect_features(effect: Effect) -> np.ndarray:
    """Feature vector (``FEATURES`` order) of a parsed effect; conditionals: mean of both branches."""
    out = np.zeros(len(FEATURES))
    for st in effect.statements:
        if st.cond is None:
            out += _ops_features(st.then)
        else:
            out += 0.5 * (_ops_features(st.then) + _ops_features(st.orelse))
    out[FEATURES.index("again")] = 1.0 if effect.again else 0.0
    out[FEATURES.index("draw_discard")] = 1.0 if effect.draw_discard else 0.0
    return out


def card_features(cards: CardSet) -> np.ndarray:
    """Matrix (cards × ``FEATURES``) of every card's effect features."""
    return np.array([effect_features(c.effect) for c in cards.cards]).reshape(len(cards), len(FEATURES))


def feature_frame(cards: CardSet) -> pl.DataFrame:
    """One row per card: id, key, colour, cost and its feature values."""
    x = card_features(cards)
    return pl.DataFrame({
        "id": [c.id for c in cards.cards], "key": [c.key for c in cards.cards],
        "colour": [c.colour for c in cards.cards], "cost": [c.cost for c in cards.cards],
        **{f: x[:, i] for i, f in enumerate(FEATURES)},
    })


@dataclass(frozen=True)
class ValueModel:
    """Fitted exchange rates: ``rates[f]`` cost per unit of feature ``f``, ``base[colour]`` intercepts.

    ``rate_se`` are ordinary least-squares standard errors (from ``σ²(XᵀX)⁻¹``; for a rate held at
    its zero bound they are only indicative), ``r2`` the share of the cost variance explained.
    """

    rates: dict[str, float]
    rate_se: dict[str, float]
    base: dict[str, float]
    r2: float
    rmse: float
    n: int

    def value(self, features: np.ndarray, colours: list[str]) -> np.ndarray:
        """Fitted cost of cards with these feature rows and colours."""
        w = np.array([self.rates[f] for f in FEATURES])
        return np.asarray(features) @ w + np.array([self.base.get(c, 0.0) for c in colours])

    def rates_frame(self) -> pl.DataFrame:
        """The exchange rates and intercepts as a table (term, kind, rate, se)."""
        rows = [{"term": f, "kind": "rate", "rate": self.rates[f], "se": self.rate_se[f]} for f in FEATURES]
        rows += [{"term": f"base_{c}", "kind": "intercept", "rate": self.base[c], "se": None} for c in self.base]
        return pl.DataFrame(rows, schema={"term": pl.String, "kind": pl.String, "rate": pl.Float64, "se": pl.Float64})


def _design(cards: CardSet) -> tuple[np.ndarray, list[str]]:
    colours = [c for c in COLOUR_ORDER if any(card.colour == c for card in cards.cards)]
    x = card_features(cards)
    dummies = np.array([[1.0 if card.colour == c else 0.0 for c in colours] for card in cards.cards])
    return np.hstack([x, dummies.reshape(len(cards), len(colours))]), colours


def fit_value_model(cards: CardSet | None = None, nonnegative: bool = True) -> ValueModel:
    """Fit the exchange rates that best explain the card costs (least squares)."""
    cards = load_cards() if cards is None else cards
    if len(cards) == 0:
        raise InputError("cannot fit a value model to an empty card set")
    a, colours = _design(cards)
    y = np.array([c.cost for c in cards.cards], dtype=float)
    k = len(FEATURES)
    lower = np.r_[np.zeros(k) if nonnegative else np.full(k, -np.inf), np.full(len(colours), -np.inf)]
    # features that no card uses cannot be identified: hold them at 0
    unused = ~np.any(a[:, :k] != 0, axis=0)
    upper = np.full(a.shape[1], np.inf)
    upper[:k][unused] = 1e-12
    lower[:k][unused] = 0.0
    fit = optimize.lsq_linear(a, y, bounds=(lower, upper), method="bvls")
    coef = fit.x
    resid = y - a @ coef
    dof = max(1, len(y) - a.shape[1])
    sigma2 = float(resid @ resid) / dof
    se = np.sqrt(np.clip(np.diag(sigma2 * np.linalg.pinv(a.T @ a)), 0, None))
    ss_tot = float(((y - y.mean()) ** 2).sum())
    r2 = 1.0 - float(resid @ resid) / ss_tot if ss_tot > 0 else 1.0
    return ValueModel(
        rates={f: float(coef[i]) for i, f in enumerate(FEATURES)},
        rate_se={f: float(se[i]) for i, f in enumerate(FEATURES)},
        base={c: float(coef[k + j]) for j, c in enumerate(colours)},
        r2=r2, rmse=float(np.sqrt((resid ** 2).mean())), n=len(y),
    )


@lru_cache(maxsize=16)
def _values_for(digest: str, source: str) -> tuple[float, ...]:
    cards = load_cards(source)
    model = fit_value_model(cards)
    return tuple(float(v) for v in model.value(card_features(cards), [c.colour for c in cards.cards]))


def card_values(cards: CardSet) -> tuple[float, ...]:
    """One value per card index: the fitted cost of its effect (base[colour] + rates · features).

    Fitted on ``cards`` themselves, so an edited card set gets its own exchange rates.
    """
    if cards.source and cards.digest:
        try:
            if load_cards(cards.source).digest == cards.digest:
                return _values_for(cards.digest, cards.source)
        except (OSError, InputError):
            pass
    model = fit_value_model(cards)
    return tuple(float(v) for v in model.value(card_features(cards), [c.colour for c in cards.cards]))


def costing_table(cards: CardSet | None = None, model: ValueModel | None = None) -> pl.DataFrame:
    """Every card with its cost, fitted value and residual (cost − value), most over-costed first.

    ``residual > 0``: the card costs more than its effects are worth (over-costed); ``< 0``:
    under-costed.  ``residual_z`` is the residual over the model's RMSE.
    """
    cards = load_cards() if cards is None else cards
    model = fit_value_model(cards) if model is None else model
    value = model.value(card_features(cards), [c.colour for c in cards.cards])
    frame = feature_frame(cards).with_columns(
        pl.Series("name_en", [c.name_en for c in cards.cards]),
        pl.Series("effect", [c.effect_text for c in cards.cards]),
        pl.Series("value", value),
    ).with_columns((pl.col("cost") - pl.col("value")).alias("residual"))
    frame = frame.with_columns((pl.col("residual") / (model.rmse or 1.0)).alias("residual_z"))
    lead = ["id", "key", "name_en", "colour", "cost", "value", "residual", "residual_z", "effect"]
    return frame.select(lead + list(FEATURES)).sort("residual", descending=True)
