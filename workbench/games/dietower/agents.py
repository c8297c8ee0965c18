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
  ``u = rng.random()`` and plays as the first component whose cumulative probability exceeds ``u``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from workbench.core.errors import InputError
from workbench.core.model import AgentSpec
from workbench.core.rng import SplitMix64

AGENTS = ("random", "highest", "lowest", "joker", "mixed")
BASES = ("random", "highest", "lowest")
KIND = {"random": 0, "highest": 1, "lowest": 2, "joker": 3, "mixed": 4}
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


def config(spec: AgentSpec) -> AgentConfig:
    """Check an agent's options and reduce it to numbers; a bad option raises InputError."""
    if spec.name not in AGENTS:
        raise InputError(f"dietower: unknown agent {spec.name!r}; allowed: {', '.join(AGENTS)}")
    allowed = {"random": set(), "highest": set(), "lowest": set(), "joker": {"at", "base"},
               "mixed": {"random", "highest", "lowest", "joker", "at"}}[spec.name]
    for key, _ in spec.options:
        if key not in allowed:
            raise InputError(f"agent {spec}: unknown option {key!r}; allowed: {', '.join(sorted(allowed)) or 'none'}")
    at = spec.option("at", DEFAULT_JOKER_AT, int)
    if not 1 <= at <= 20:
        raise InputError(f"agent {spec}: at={at} must be a die face in 1..20")
    base = spec.option("base", "random", str)
    if base not in BASES:
        raise InputError(f"agent {spec}: base={base!r}; allowed: {', '.join(BASES)}")
    cumulative = (1.0, 1.0, 1.0, 1.0)
    if spec.name == "mixed":
        weights = [spec.option(k, 0.0, float) for k in ("random", "highest", "lowest", "joker")]
        if any(not np.isfinite(w) or w < 0 for w in weights) or sum(weights) <= 0:
            raise InputError(f"agent {spec}: give non-negative probabilities random=, highest=, lowest=, joker= "
                             "with a positive sum")
        total = sum(weights)
        cum = np.cumsum(np.array(weights) / total)
        cum[-1] = 1.0
        cumulative = tuple(float(x) for x in cum)
    return AgentConfig(KIND[spec.name], at, BASES.index(base), cumulative)


def _pick(kind: int, view: View, rng: SplitMix64) -> int:
    """Policies random (0), highest (1), lowest (2) over the ranks held (Joker only if alone)."""
    if kind == 0:
        return view.cards[rng.below(len(view.cards))]
    ranks = [c for c in view.cards if c != view.joker] or list(view.cards)
    return ranks[-1] if kind == 1 else ranks[0]


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
    if kind == 4:
        u = rng.random()
        kind = next(k for k in range(4) if u < cfg.cumulative[k])
    if kind == 3:
        return _joker_timing(cfg, view, rng)
    return _pick(kind, view, rng)


def policy(cfg: AgentConfig, view: View) -> dict[int, float]:
    """The agent's mixed action as ``{card: probability}`` (used by exact evaluation)."""
    out: dict[int, float] = {}
    parts = [(cfg.kind, 1.0)]
    if cfg.kind == 4:
        prev = 0.0
        parts = []
        for k in range(4):
            parts.append((k, cfg.cumulative[k] - prev))
            prev = cfg.cumulative[k]
    for kind, weight in parts:
        if weight <= 0:
            continue
        v = view
        if kind == 3:
            has_joker = view.cards[-1] == view.joker
            if has_joker and view.builder not in (-1, view.seat) and view.die >= cfg.joker_at:
                out[view.joker] = out.get(view.joker, 0.0) + weight
                continue
            ranks = tuple(c for c in view.cards if c != view.joker)
            if not ranks:
                out[view.joker] = out.get(view.joker, 0.0) + weight
                continue
            kind, v = cfg.base, view._replace(cards=ranks)
        if kind == 0:
            for c in v.cards:
                out[c] = out.get(c, 0.0) + weight / len(v.cards)
        else:
            ranks = [c for c in v.cards if c != v.joker] or list(v.cards)
            c = ranks[-1] if kind == 1 else ranks[0]
            out[c] = out.get(c, 0.0) + weight
    return out
