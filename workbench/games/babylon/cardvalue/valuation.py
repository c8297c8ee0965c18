"""Static value model of Towers of Babylon's cards: what a card's stats and text are worth in cost.

Each card becomes a few *features*; the exchange rates that best explain the printed costs are
fitted by core's bounded least squares (:mod:`workbench.core.stats.valuation`: rates ≥ 0, intercepts free)::

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
changes nothing.  The pool's paper tuning (``docs/rules/babylon.md``: 2 stat points per power, a
keyword or trigger ≈ 1 power) is the ``paper`` column of a minion, beside the fitted value.
"""

from __future__ import annotations

import polars as pl

from workbench.core.errors import InputError
from workbench.core.stats import valuation as value_model
from workbench.core.stats.valuation import ValueModel
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


def fit_value_model(features: pl.DataFrame | None = None, cost: str = "cost", nonnegative: bool = True) -> ValueModel:
    """Least-squares exchange rates explaining ``cost`` from the features of a :func:`feature_frame`.

    Core's bounded least squares (:func:`workbench.core.stats.valuation.fit_value_model`), one base per
    card type; a feature no card has is held at 0 (it cannot be identified).
    """
    features = feature_frame() if features is None else features
    return value_model.fit_value_model(features, FEATURES, group="type", groups=TYPES, cost=cost,
                                       nonnegative=nonnegative)


def costing_table(cards: CardPool | None = None, model: ValueModel | None = None) -> pl.DataFrame:
    """Every card with its cost, paper value, fitted value and residual (cost − value), most over-costed first.

    ``residual > 0``: the card costs more than its stats and text are worth (over-costed);
    ``< 0``: under-costed.  ``residual_z`` is the residual over the model's RMSE.
    """
    pool = load_cards() if cards is None else cards
    features = feature_frame(pool)
    model = fit_value_model(features) if model is None else model
    text = {c.id: "; ".join(filter(None, (";".join(c.keywords), c.text))) for c in pool}
    frame = features.with_columns(pl.col("id").replace_strict(text).alias("text"))
    return value_model.costing_table(frame, model, lead=["id", "name", "faction", "type", "cost", "paper",
                                                         *value_model.FITTED, "text"])
