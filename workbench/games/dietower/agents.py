"""Agents: who plays which card.  A separate layer from the rules.

An agent sees a :class:`View` (its own hand and the public state) and draws randomness only from
its own SplitMix64 stream, in the documented order below, so that the compiled engine
(``fast.py``) reproduces every choice bit for bit:

* ``random``: ``cards[rng.below(len(cards))]`` over the hand in ascending order (Joker last).
* ``highest`` / ``lowest``: the highest / lowest rank held; the Joker only when it is the last card.
  No randomness.
* ``joker:at=4,base=random``: plays the Joker when another player is Builder with the die showing
  ``at`` or more (to break the streak); otherwise plays like ``base`` (random | highest | lowest)
  over its ranks, keeping the Joker.
* ``mixed:random=0.5,highest=0.3,lowest=0.2,joker=0`` (optionally ``at=``): each round draws
  ``u = rng.random()`` and plays as the first component whose cumulative probability exceeds ``u``;
  weights not given are 0, and a bare ``mixed`` weighs the four policies equally.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from workbench.core.errors import InputError
from workbench.core.model import AgentDecl, AgentSpec, Param
from workbench.core.rng import SplitMix64

AGENTS = ("random", "highest", "lowest", "joker", "mixed")
RANDOM, HIGHEST, LOWEST, JOKER, MIXED = range(len(AGENTS))  # agent kinds, as the compiled engine knows them
BASES = ("random", "highest", "lowest")  # the joker agent's base policy: kinds RANDOM, HIGHEST, LOWEST
DEFAULT_JOKER_AT = 4


class View(NamedTuple):
    """What one seat sees when choosing: its hand (ascending, Joker last) and the public state."""

    seat: int
    cards: tuple[int, ...]
    joker: int
    builder: int
    die: int
    scores: tuple[int, ...]
    round: int


class AgentConfig(NamedTuple):
    """An agent reduced to numbers (what the compiled engine needs)."""

    kind: int  # index in AGENTS
    joker_at: int  # die face from which the joker agent breaks a streak
    base: int  # joker agent's base policy: 0 random, 1 highest, 2 lowest
    cumulative: tuple[float, float, float, float]  # mixed: cumulative P(random, highest, lowest, joker)


_AT = Param("at", DEFAULT_JOKER_AT, int, "die face from which the Joker breaks another Builder's streak", 1, 20)
_SHARES = tuple(Param(k, None, float, f"weight of playing like {k!r} (none given: equal weights; else 0)", 0.0, 1e9,
                      optional=True) for k in AGENTS[:4])


def _config(kind: int, at: int = DEFAULT_JOKER_AT, base: str = "random", **shares: float | None) -> AgentConfig:
    cumulative = (1.0, 1.0, 1.0, 1.0)
    if kind == MIXED:
        given = [shares.get(k) for k in AGENTS[:4]]
        weights = [1.0] * 4 if all(w is None for w in given) else [w or 0.0 for w in given]
        if sum(weights) <= 0:
            raise InputError("agent mixed: give non-negative probabilities random=, highest=, lowest=, joker= "
                             "with a positive sum")
        cum = np.cumsum(np.array(weights) / sum(weights))
        cum[-1] = 1.0
        cumulative = tuple(float(x) for x in cum)
    return AgentConfig(kind, at, BASES.index(base), cumulative)


class PolicyAgent:
    """One of this game's policies (an :class:`AgentConfig`), behind the core agent interface."""

    def __init__(self, cfg: AgentConfig) -> None:
        self.cfg = cfg

    def act(self, view: View, legal: tuple[int, ...], config: object, rng: SplitMix64) -> int:
        """The card to play (``view.cards`` are the legal cards)."""
        return choose(self.cfg, view, rng)


def _factory(kind: int):
    return lambda **options: PolicyAgent(_config(kind, **options))


DECLS = (
    AgentDecl("random", _factory(RANDOM), "a uniformly random card of the hand"),
    AgentDecl("highest", _factory(HIGHEST), "the highest rank held (the Joker last)"),
    AgentDecl("lowest", _factory(LOWEST), "the lowest rank held (the Joker last)"),
    AgentDecl("joker", _factory(JOKER), "the Joker against another Builder's die at `at`+, else plays like `base`",
              (_AT, Param("base", "random", str, "policy over the ranks otherwise", choices=BASES))),
    AgentDecl("mixed", _factory(MIXED), "a policy drawn each round with the given weights (joker uses `at`)",
              (*_SHARES, _AT)),
)
_BY_NAME = {d.name: d for d in DECLS}


def config(spec: AgentSpec) -> AgentConfig:
    """Check an agent's options and reduce it to numbers; a bad option raises InputError."""
    if spec.name not in _BY_NAME:
        raise InputError(f"dietower: unknown agent {spec.name!r}; allowed: {', '.join(AGENTS)}")
    return _BY_NAME[spec.name].build(spec).cfg


def _pick(kind: int, view: View, rng: SplitMix64) -> int:
    """Policies random (0), highest (1), lowest (2) over the ranks held (Joker only if alone)."""
    if kind == RANDOM:
        return view.cards[rng.below(len(view.cards))]
    ranks = [c for c in view.cards if c != view.joker] or list(view.cards)
    return ranks[-1] if kind == HIGHEST else ranks[0]


def _joker_timing(cfg: AgentConfig, view: View, rng: SplitMix64) -> int:
    has_joker = view.cards[-1] == view.joker
    if has_joker and view.builder not in (-1, view.seat) and view.die >= cfg.joker_at:
        return view.joker
    ranks = [c for c in view.cards if c != view.joker]
    if not ranks:
        return view.joker
    return _pick(cfg.base, view._replace(cards=tuple(ranks)), rng)


def choose(cfg: AgentConfig, view: View, rng: SplitMix64) -> int:
    """The card this agent plays."""
    kind = cfg.kind
    if kind == MIXED:
        u = rng.random()
        kind = next(k for k in range(MIXED) if u < cfg.cumulative[k])
    if kind == JOKER:
        return _joker_timing(cfg, view, rng)
    return _pick(kind, view, rng)


def policy(cfg: AgentConfig, view: View) -> dict[int, float]:
    """The agent's mixed action as ``{card: probability}`` (used by exact evaluation)."""
    out: dict[int, float] = {}
    parts = [(cfg.kind, 1.0)]
    if cfg.kind == MIXED:
        prev = 0.0
        parts = []
        for k in range(MIXED):
            parts.append((k, cfg.cumulative[k] - prev))
            prev = cfg.cumulative[k]
    for kind, weight in parts:
        if weight <= 0:
            continue
        v = view
        if kind == JOKER:
            has_joker = view.cards[-1] == view.joker
            if has_joker and view.builder not in (-1, view.seat) and view.die >= cfg.joker_at:
                out[view.joker] = out.get(view.joker, 0.0) + weight
                continue
            ranks = tuple(c for c in view.cards if c != view.joker)
            if not ranks:
                out[view.joker] = out.get(view.joker, 0.0) + weight
                continue
            kind, v = cfg.base, view._replace(cards=ranks)
        if kind == RANDOM:
            for c in v.cards:
                out[c] = out.get(c, 0.0) + weight / len(v.cards)
        else:
            ranks = [c for c in v.cards if c != v.joker] or list(v.cards)
            c = ranks[-1] if kind == HIGHEST else ranks[0]
            out[c] = out.get(c, 0.0) + weight
    return out
