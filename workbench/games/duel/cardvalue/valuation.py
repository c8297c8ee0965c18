"""Static value model of the duel's cards: what each card's effect is worth in cost units.

Every card effect is turned into a few *features*, each the change in one player's advantage
(mine minus the enemy's) the effect makes, then the exchange rates that best explain the printed
costs are fitted by core's bounded least squares (:mod:`workbench.core.stats.valuation`)::

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

from functools import lru_cache

import numpy as np
import polars as pl

from workbench.core.errors import InputError
from workbench.core.stats import valuation as value_model
from workbench.core.stats.valuation import ValueModel
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


def fit_value_model(cards: CardSet | None = None, nonnegative: bool = True) -> ValueModel:
    """Fit the exchange rates that best explain the card costs (core's bounded least squares, one base per colour)."""
    cards = load_cards() if cards is None else cards
    return value_model.fit_value_model(feature_frame(cards), FEATURES, group="colour", groups=COLOUR_ORDER,
                                       nonnegative=nonnegative)


def _values(cards: CardSet) -> tuple[float, ...]:
    frame = feature_frame(cards)
    model = value_model.fit_value_model(frame, FEATURES, group="colour", groups=COLOUR_ORDER)
    return tuple(float(v) for v in model.value(frame))


@lru_cache(maxsize=16)
def _values_for(digest: str, source: str) -> tuple[float, ...]:
    return _values(load_cards(source))


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
    return _values(cards)


def costing_table(cards: CardSet | None = None, model: ValueModel | None = None) -> pl.DataFrame:
    """Every card with its cost, fitted value and residual (cost − value), most over-costed first.

    ``residual > 0``: the card costs more than its effects are worth (over-costed); ``< 0``:
    under-costed.  ``residual_z`` is the residual over the model's RMSE (core's
    :func:`~workbench.core.stats.valuation.costing_table`).
    """
    cards = load_cards() if cards is None else cards
    model = fit_value_model(cards) if model is None else model
    frame = feature_frame(cards).with_columns(pl.Series("name_en", [c.name_en for c in cards.cards]),
                                              pl.Series("effect", [c.effect_text for c in cards.cards]))
    return value_model.costing_table(frame, model, lead=["id", "key", "name_en", "colour", "cost",
                                                         *value_model.FITTED, "effect"])
