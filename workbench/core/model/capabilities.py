"""What a game may add to the protocol, each optional and listed by ``GameModel.capabilities``.

A compiled engine, search hooks, playthrough text, hidden information and solver hooks; and
:class:`PerObject`, the cache they share for what they derive from one configuration object.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from workbench.core.model.agents import AgentSpec
from workbench.core.model.facts import CHANCE, seat_name


class PerObject:
    """Values derived from an object (a game's Config, a card set), kept for the last ``most`` objects by identity.

    An engine or a search meets the same configuration object at every chunk and decision (a game's
    ``build_config`` returns one cached object per parameters and data files), and what it derives from it
    (card tables, id orders, scratch arrays) is kept here instead of being built again or found by hashing
    the object's whole content.  Each object is held with its value, so an identity is never reused while
    kept; ``key`` parts (a variant, a model's name) tell apart values of one object.  The oldest entry goes
    first when full.  Thread-safe: a run's chunks play on worker threads.
    """

    def __init__(self, most: int = 32) -> None:
        self.most = most
        self._found: dict[tuple[Any, ...], tuple[Any, Any]] = {}
        self._lock = threading.Lock()

    def get(self, obj: Any, build: Callable[[], Any], *key: Any) -> Any:
        """The value kept for ``obj`` (and ``key``), or ``build()`` kept for it."""
        found_key = (id(obj), *key)
        with self._lock:
            hit = self._found.get(found_key)
            if hit is not None and hit[0] is obj:
                return hit[1]
        value = build()
        with self._lock:
            while len(self._found) >= self.most:
                self._found.pop(next(iter(self._found)))
            self._found[found_key] = (obj, value)
        return value


@dataclass(frozen=True)
class CompiledEngine:
    """A game's compiled engine, declared on its model as ``engine``.

    ``play`` names ``module:function(config, params, agents, seeds) -> frame``: one row per seed with
    the game's result columns, identical to the reference loop's frame (the parity harness proves it
    over ``variants``).  ``agents`` are the agents it plays; ``threads`` says it releases Python's GIL
    (workers are then threads); ``chunk`` is a good chunk size.  ``variants`` names ``module:NAME``, a
    tuple of :class:`Variant` — every rules variant and agent pairing the parity harness plays on both
    engines.  ``warm`` names ``module:function()`` that compiles the engine's other entries a caller uses
    directly (``workbench compile`` calls it after playing the variants, so no test or page compiles them).
    The module is imported only when a game is played, so declaring costs nothing.
    """

    agents: tuple[str, ...]
    play: str
    threads: bool = True
    chunk: int = 20_000
    variants: str | tuple[Variant, ...] = ()
    warm: str | None = None


@dataclass(frozen=True)
class SearchHooks:
    """What a game lends core's one search agent (``core/skill/search.py``), declared on its model as ``search``.

    Each hook names ``module:function`` (imported when the agent is built).  ``prior(config, observation,
    legal, policy) -> scores``: the heuristic's score of every legal action (higher is better; ``policy`` is
    the spec whose weights a greedy prior uses: the ``prior`` option, by default the rollout agent); a
    score of at least ``win`` is an immediate win, taken without search.  ``key(config, observation,
    action)``: actions with one key are the same move (two copies of a card), searched once.
    ``rollout(config, worlds, actions, seat, policy, horizon, seeds) -> values[world, action]``: the
    compiled engine's continue-from-a-state entry for the agents in ``policies`` (none: core's reference
    loop plays the rollouts).  ``value(config, state, seat, policy)``: an unfinished rollout's worth in
    [0, 1] and ``clock(config, state)`` the turns begun, both for rollouts cut after ``horizon`` turns.
    ``deal(config, observation, rng, count) -> (seat, worlds, seeds)``: the compiled engine deals ``count``
    worlds and their rollout seeds at once, in the form ``rollout`` takes, drawing from ``rng`` exactly as
    ``count`` times ``determinise`` and two ``next_u64`` would (none: core deals them one by one).
    ``options`` are the game's defaults of the agent's options (``budget``, ...).
    """

    prior: str
    value: str
    clock: str
    key: str | None = None
    rollout: str | None = None
    policies: tuple[str, ...] = ()
    win: float = math.inf
    options: tuple[tuple[str, Any], ...] = ()
    deal: str | None = None


@dataclass(frozen=True)
class Variant:
    """One row of a compiled engine's parity table: a label, parameters, and one agent spec per seat."""

    label: str
    params: dict[str, Any] = field(default_factory=dict)
    agents: str = "random,random"




class GameCapabilities:
    """The optional hooks of a game model (part 3); each default says the game lacks it."""

    # -- 3. capabilities: playthrough text ------------------------------------------------------
    def _text(self, hook: str) -> Callable[..., list[str]] | None:
        if self.text is None:
            return None
        return getattr(importlib.import_module(self.text), hook, None)

    def describe_config(self, config: Any) -> list[str]:
        """Header lines of a playthrough about the rules in force: the ``text`` module's ``config_lines(config)``."""
        hook = self._text("config_lines")
        return hook(config) if hook else []

    def describe(self, config: Any, state: Any) -> list[str]:
        """Lines describing the initial state: the ``text`` module's ``deal_lines(config, state)``."""
        hook = self._text("deal_lines")
        return hook(config, state) if hook else [repr(state)]

    def describe_step(self, config: Any, before: Any, who: Any, action: Any, after: Any) -> list[str]:
        """Lines describing one step: the ``text`` module's ``step_lines(config, before, who, action, after)``."""
        hook = self._text("step_lines")
        if hook:
            return hook(config, before, who, action, after)
        actor = "chance" if who == CHANCE else (",".join(seat_name(s) for s in who) if isinstance(who, tuple)
                                                 else seat_name(who))
        return [f"- {actor}: {action!r}"]

    def describe_end(self, config: Any, state: Any) -> list[str]:
        """Lines describing the end: the ``text`` module's ``end_lines(config, state)`` (default: winner, reason)."""
        hook = self._text("end_lines")
        if hook:
            return hook(config, state)
        row = self.result_row(config, state)
        return ["", f"end after {row['length']}: {row['winner']} ({row['reason']})"]

    # -- 3. capabilities: hidden information and solver hooks (search agents, the OpenSpiel bridge) --
    def determinise(self, config: Any, observation: Any, rng: Any) -> tuple[int, Any]:
        """``(seat, state)``: a full state consistent with ``observation``, its unseen parts drawn from ``rng``.

        The seat whose observation it is, and a state with ``observation(config, state, seat) ==
        observation`` whose hidden cards and random streams are dealt afresh; search agents plan in
        such states.  Games with hidden information implement it.
        """
        raise NotImplementedError(f"{self.name}: determinise is not implemented")

    def max_legal_actions(self, config: Any) -> int:
        """Upper bound on ``len(legal_actions(config, state, seat))`` over every state and seat."""
        raise NotImplementedError(f"{self.name}: max_legal_actions is not declared")

    def max_chance_outcomes(self, config: Any) -> int:
        """Upper bound on ``len(chance_outcomes(config, state))``; 0 for a game without chance nodes."""
        raise NotImplementedError(f"{self.name}: max_chance_outcomes is not declared")

    def returns_bounds(self, config: Any) -> tuple[float, float, float | None]:
        """``(lowest, highest, sum)`` of :meth:`returns` over finished games; the sum is None when it varies."""
        return (-1.0, 1.0, 0.0 if self.players(config) == 2 else None)

    def public_record(self, config: Any, state: Any, who: Any, action: Any) -> Any:
        """What every seat learns of a step besides its next observation (None: nothing).

        Default: a simultaneous node's joint action (the choices are revealed), nothing otherwise.
        """
        return action if isinstance(who, tuple) else None

    # -- the compiled engine --------------------------------------------------------------------
    def play_fast(self, config: Any, params: dict[str, Any], agents: tuple[AgentSpec, ...],
                  seeds: np.ndarray) -> pl.DataFrame:
        """The declared compiled engine: one row per seed, identical to the reference loop's frame."""
        if self.engine is None:
            raise NotImplementedError(f"{self.name} has no compiled engine")
        module, _, function = self.engine.play.partition(":")
        return getattr(importlib.import_module(module), function)(config, params, agents, seeds)

    def engine_variants(self) -> tuple[Variant, ...]:
        """The compiled engine's parity table (:attr:`CompiledEngine.variants`), resolved."""
        if self.engine is None:
            return ()
        found = self.engine.variants
        if isinstance(found, str):
            module, _, name = found.partition(":")
            found = getattr(importlib.import_module(module), name)
        return tuple(found)
