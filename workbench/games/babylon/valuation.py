"""Static value model of Towers of Babylon's cards: what a card's stats and text are worth in cost.

Each card becomes a few *features*; the exchange rates that best explain the printed costs are
fitted by least squares (``scipy.optimize.lsq_linear``, rates ≥ 0, intercepts free)::

    cost ≈ base[type] + Σ rate[f] · feature[f]

``cost`` is ``power_cost``, or ``tp_cost`` for a Witchery (another currency: the type intercept
takes the difference).  Features (``FEATURES``):

* ``construction``, ``might``, ``health``: a minion's stats (0 for a spell);
* ``keywords``: its number of abilities (Crush, Twinstrike, Tunnel, Lethal, Thief, Retreating,
  Regenerating);
* ``tower``: the tower swing its text gives — own tower +N, enemy tower −N, N damage to the enemy
  tower (``per friendly_builder`` counts ``BUILDERS`` builders);
* ``cards``: cards drawn plus Offerings made;
* ``minion_damage``: damage to enemy minions (a group counts ``GROUP`` minions);
* ``disruption``: actions that stop, remove or mark an enemy minion (sentence, destroy, return to
  hand, exhaust, to the Ramparts, end an attack, no tower damage) or help a friendly one (heal,
  ready, +health); an action against your own minion (destroy a friendly one) counts −1.

Valuation choices (a static model cannot see the game, so each is a documented guess): every
clause counts once at face value — a Shape that fires on every build, Dying Words that need a death
and an Invocation's one-turn delay alike (the type intercepts and the fit judge them); ``may``
changes nothing.  The pool's paper tuning (``babylon_starter_pool.md``: 2 stat points per power, a
keyword or trigger ≈ 1 power) is the ``paper`` column of a minion, beside the fitted value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import optimize

from workbench.core.errors import InputError
from workbench.games.babylon.cards import TYPES, Card, CardPool, load_cards
from workbench.games.babylon.effects import Action

__all__ = ["BUILDERS", "FEATURES", "GROUP", "ValueModel", "card_cost", "card_features", "costing_table",
           "feature_frame", "fit_value_model", "paper_value"]

FEATURES = ("construction", "might", "health", "keywords", "tower", "cards", "minion_damage", "disruption")
BUILDERS = 2.0  # builders counted for "per friendly_builder"
GROUP = 2.0  # minions counted for "each_enemy_raider" / "each_enemy_defender"
_ENEMY = {"minion": 1.0, "enemy_minion": 1.0, "attacker": 1.0, "each_enemy_raider": GROUP,
          "each_enemy_defender": GROUP}  # "minion": the player picks, so an enemy one
_FRIENDLY = {"friendly_minion": 1.0, "blocker": 1.0}
_STOP = ("sentence", "destroy", "return_hand", "exhaust", "to_ramparts", "end_attack", "no_tower_damage")
_HELP = ("heal", "ready", "health")


def card_cost(card: Card) -> int:
    """The printed cost: power, or Transformed Power for a Witchery."""
    return card.tp_cost if card.type == "Witchery" else card.power_cost  # type: ignore[return-value]


def _side(target: str, previous: str) -> tuple[float, float]:
    """(weight on enemy minions, weight on friendly ones) of a target; ``it`` is the previous action's."""
    target = previous if target == "it" else target
    return _ENEMY.get(target, 0.0), _FRIENDLY.get(target, 0.0)


def _action_features(action: Action, previous: str) -> dict[str, float]:
    enemy, friendly = _side(action.target, previous)
    n = float(action.amount)
    if action.verb == "tower":
        sign = 1.0 if action.target == "own_tower" else -1.0  # the amount is signed: enemy -3 is a gain of 3
        return {"tower": sign * n * (BUILDERS if action.per else 1.0)}
    if action.verb == "damage":
        return {"tower": n} if action.target == "enemy_tower" else {"minion_damage": n * (enemy - friendly)}
    if action.verb in ("draw", "offering"):
        return {"cards": n}
    if action.verb in _STOP:
        return {"disruption": 1.0 if not action.target else enemy - friendly}
    if action.verb in _HELP:
        return {"disruption": friendly - enemy}
    raise InputError(f"babylon valuation: verb {action.verb!r} has no feature; add it to valuation.py")


def card_features(card: Card) -> dict[str, float]:
    """The ``FEATURES`` of one card."""
    out = dict.fromkeys(FEATURES, 0.0)
    if card.type == "Minion":
        out |= {"construction": float(card.construction), "might": float(card.might), "health": float(card.health),
                "keywords": float(len(card.keywords))}
    for clause in card.effect.clauses:
        previous = ""
        for action in clause.actions:
            for name, value in _action_features(action, previous).items():
                out[name] += value
            previous = action.target if action.target != "it" else previous
    return out


def paper_value(card: Card) -> float | None:
    """The pool's paper tuning of a minion: (construction + might + health) / 2 + keywords + triggers."""
    if card.type != "Minion":
        return None
    stats = card.construction + card.might + card.health  # type: ignore[operator]
    return stats / 2 + len(card.keywords) + len(card.effect.clauses)


def feature_frame(cards: CardPool | None = None) -> pl.DataFrame:
    """One row per card: id, name, faction, type, cost, paper and its ``FEATURES``."""
    pool = load_cards() if cards is None else cards
    rows = [{"id": c.id, "name": c.name, "faction": c.faction, "type": c.type, "cost": card_cost(c),
             "paper": paper_value(c), **card_features(c)} for c in pool]
    schema = {"id": pl.String, "name": pl.String, "faction": pl.String, "type": pl.String, "cost": pl.Int64,
              "paper": pl.Float64, **dict.fromkeys(FEATURES, pl.Float64)}
    return pl.DataFrame(rows, schema=schema)


@dataclass(frozen=True)
class ValueModel:
    """Fitted exchange rates ``rates[f]`` (cost per unit of feature ``f``) and ``base[type]`` intercepts.

    ``rate_se`` are ordinary least-squares standard errors (``σ²(XᵀX)⁻¹``; only indicative for a rate
    held at its zero bound), ``r2`` the share of the cost variance explained, ``n`` the cards.
    """

    rates: dict[str, float]
    rate_se: dict[str, float]
    base: dict[str, float]
    r2: float
    rmse: float
    n: int

    def value(self, features: pl.DataFrame) -> np.ndarray:
        """Fitted cost of the cards of a :func:`feature_frame`."""
        x = features.select(FEATURES).to_numpy()
        return x @ np.array([self.rates[f] for f in FEATURES]) + np.array(
            [self.base.get(t, 0.0) for t in features.get_column("type").to_list()])

    def rates_frame(self) -> pl.DataFrame:
        """The exchange rates and intercepts as a table (term, kind, rate, se)."""
        rows = [{"term": f, "kind": "rate", "rate": self.rates[f], "se": self.rate_se[f]} for f in FEATURES]
        rows += [{"term": f"base_{t}", "kind": "intercept", "rate": v, "se": None} for t, v in self.base.items()]
        return pl.DataFrame(rows, schema={"term": pl.String, "kind": pl.String, "rate": pl.Float64, "se": pl.Float64})


def _design(features: pl.DataFrame) -> tuple[np.ndarray, list[str]]:
    types = [t for t in TYPES if t in set(features.get_column("type").to_list())]
    dummies = np.array([[1.0 if t == u else 0.0 for u in types] for t in features.get_column("type").to_list()])
    return np.hstack([features.select(FEATURES).to_numpy(), dummies.reshape(features.height, len(types))]), types


def fit_value_model(features: pl.DataFrame | None = None, cost: str = "cost", nonnegative: bool = True) -> ValueModel:
    """Least-squares exchange rates explaining ``cost`` from the features of a :func:`feature_frame`.

    A feature no card has is held at 0 (it cannot be identified).
    """
    features = feature_frame() if features is None else features
    if features.height == 0:
        raise InputError("cannot fit a value model to no cards")
    a, types = _design(features)
    y = features.get_column(cost).cast(pl.Float64).to_numpy()
    k = len(FEATURES)
    unused = ~np.any(a[:, :k] != 0, axis=0)
    lower = np.r_[np.zeros(k) if nonnegative else np.full(k, -np.inf), np.full(len(types), -np.inf)]
    upper = np.full(a.shape[1], np.inf)
    lower[:k][unused], upper[:k][unused] = 0.0, 1e-12
    coef = optimize.lsq_linear(a, y, bounds=(lower, upper), method="bvls").x
    resid = y - a @ coef
    sigma2 = float(resid @ resid) / max(1, len(y) - a.shape[1])
    se = np.sqrt(np.clip(np.diag(sigma2 * np.linalg.pinv(a.T @ a)), 0, None))
    ss_tot = float(((y - y.mean()) ** 2).sum())
    return ValueModel(rates={f: float(coef[i]) for i, f in enumerate(FEATURES)},
                      rate_se={f: float(se[i]) for i, f in enumerate(FEATURES)},
                      base={t: float(coef[k + j]) for j, t in enumerate(types)},
                      r2=1.0 - float(resid @ resid) / ss_tot if ss_tot > 0 else 1.0,
                      rmse=float(np.sqrt((resid ** 2).mean())), n=len(y))


def costing_table(cards: CardPool | None = None, model: ValueModel | None = None) -> pl.DataFrame:
    """Every card with its cost, paper value, fitted value and residual (cost − value), most over-costed first.

    ``residual > 0``: the card costs more than its stats and text are worth (over-costed);
    ``< 0``: under-costed.  ``residual_z`` is the residual over the model's RMSE.
    """
    pool = load_cards() if cards is None else cards
    features = feature_frame(pool)
    model = fit_value_model(features) if model is None else model
    text = {c.id: "; ".join(filter(None, (";".join(c.keywords), c.text))) for c in pool}
    frame = features.with_columns(pl.Series("value", model.value(features)),
                                  pl.col("id").replace_strict(text).alias("text"))
    frame = frame.with_columns((pl.col("cost") - pl.col("value")).alias("residual")).with_columns(
        (pl.col("residual") / (model.rmse or 1.0)).alias("residual_z"))
    lead = ["id", "name", "faction", "type", "cost", "paper", "value", "residual", "residual_z", "text"]
    return frame.select(lead + list(FEATURES)).sort("residual", descending=True)
