"""Bidding agents for the Mercenary auction (the same rule in the first and the second round).

Every agent sees a :class:`View` (its seat, crystals, value, the stage and the tied seats) and
draws only from its own SplitMix64 stream:

* ``random`` (core's generic agent): a uniform bid 0..crystals, ``rng.below(crystals + 1)``;
* ``allin``: every crystal; ``truthful``: ``min(value, crystals)``;
* ``shade:factor=0.5``: ``min(crystals, floor(factor × value + 1/2))`` (halves round up);
* ``equilibrium``: the computed equilibrium of the game's parameters (``equilibrium.solve``): one
  ``u = rng.random()`` a decision, the bid at ``u`` on the cumulative distribution of the mix for
  this stage (the second-round mix of exactly the tied seats) — one draw even for a pure mix, so
  the stream's use does not depend on the parameters.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from workbench.core.model import AgentDecl, Param
from workbench.games.rescue import equilibrium
from workbench.games.rescue.rules import FIRST, Config, Plan, pure, uniform


class View(NamedTuple):
    """What a bidding seat sees: its own crystals and value, the stage, the seats of a second auction."""

    seat: int
    budget: int
    value: int
    stage: int
    tied: tuple[int, ...]


def shade_bid(value: int, budget: int, factor: float) -> int:
    """``min(budget, floor(factor × value + 1/2))``."""
    return min(budget, math.floor(factor * value + 0.5))


class FixedAgent:
    """A deterministic bid rule ``rule(view) -> bid``."""

    def __init__(self, rule: Any, label: str) -> None:
        self.rule, self.label = rule, label

    def act(self, view: View, legal: Any, config: Config, rng: Any) -> int:
        """The rule's bid (always legal: capped by the crystals)."""
        return self.rule(view)


class EquilibriumAgent:
    """Plays the computed equilibrium mix of its stage, one uniform draw a decision."""

    def act(self, view: View, legal: Any, config: Config, rng: Any) -> int:
        """Sample the stage's mix."""
        plan = equilibrium.solve(config).plans[view.seat]
        mix = plan.first if view.stage == FIRST else plan.second_for(frozenset(view.tied))
        return equilibrium.sample(mix, rng.random())


def _allin() -> FixedAgent:
    return FixedAgent(lambda v: v.budget, "allin")


def _truthful() -> FixedAgent:
    return FixedAgent(lambda v: min(v.value, v.budget), "truthful")


def _shade(factor: float = 0.5) -> FixedAgent:
    return FixedAgent(lambda v: shade_bid(v.value, v.budget, factor), f"shade:factor={factor}")


DECLS = (
    AgentDecl("allin", _allin, "bids every crystal"),
    AgentDecl("truthful", _truthful, "bids the Mercenary's value (capped by the crystals)"),
    AgentDecl("shade", _shade, "bids factor × value, rounded, capped by the crystals",
              (Param("factor", 0.5, float, "share of the value to bid", 0.0, 10.0),)),
    AgentDecl("equilibrium", lambda: EquilibriumAgent(), "plays the computed equilibrium mix of the parameters"),
)


def plan_of(agent: str, config: Config, seat: int) -> Plan:
    """The mixed strategy an agent spec (``"shade:factor=0.3"``) plays at ``seat``, for exact odds."""
    name, _, rest = agent.partition(":")
    budget, value = config.budgets[seat], config.values[seat]
    if name == "random":
        mix: tuple[Any, ...] = uniform(budget)
    elif name == "allin":
        mix = pure(budget, budget)
    elif name == "truthful":
        mix = pure(min(value, budget), budget)
    elif name == "shade":
        opts = dict(p.split("=") for p in rest.split(",") if p)
        mix = pure(shade_bid(value, budget, float(opts.get("factor", 0.5))), budget)
    elif name == "equilibrium":
        return equilibrium.solve(config).plans[seat]
    else:
        raise ValueError(f"no exact strategy for agent {agent!r}")
    return Plan(mix, mix)
