"""The one reference loop: any game on the protocol (``model.py``), any agents, seeds → frame.

``play_game`` plays one seeded game: each seat's agent draws from its own SplitMix64 sub-stream
of the game seed (``GameModel.agent_stream``), chance nodes are sampled by the game from its own
streams carried in the state, and simultaneous nodes ask every acting seat, in seat order, before
applying the joint action.  ``play_chunk`` turns one chunk of game seeds into the game's result
columns with the engine the runner chose: the compiled engine where the model declares one that
plays the agents, else this loop — with one warning per process when a requested fast engine
has to fall back.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import polars as pl

from workbench.core.model import CHANCE, TERMINAL, Agent, AgentSpec, GameModel
from workbench.core.rng import SplitMix64
from workbench.core.sim.results import conformed

Observer = Callable[[Any, Any, Any, Any], None]  # (state before, who, action or outcome, state after)
_warned: set[tuple[str, str]] = set()


class RunawayGame(RuntimeError):
    """A game took more protocol steps than its model allows (a rules bug, never a user error)."""


def acting(model: GameModel, config: Any, state: Any) -> tuple[int, ...]:
    """The seats acting now as a tuple: one seat, several at a simultaneous node, none otherwise."""
    who = model.current_player(config, state)
    if isinstance(who, tuple):
        return who
    return () if who in (CHANCE, TERMINAL) else (who,)


def decide(model: GameModel, config: Any, state: Any, seat: int, agent: Agent, rng: SplitMix64) -> Any:
    """The action ``agent`` picks for ``seat`` from its observation and the legal actions."""
    legal = model.legal_actions(config, state, seat)
    if not legal:
        raise RuntimeError(f"{model.name}: seat {seat} must act but has no legal action")
    return agent.act(model.observation(config, state, seat), legal, config, rng)


def step(model: GameModel, config: Any, state: Any, agents: Sequence[Agent],
         rngs: Sequence[SplitMix64]) -> tuple[Any, Any, Any]:
    """One protocol step from a non-terminal state: ``(who, action or chance outcome, new state)``."""
    who = model.current_player(config, state)
    if who == CHANCE:
        outcome, state = model.sample_chance(config, state)
        return who, outcome, model.apply(config, state, outcome)
    if isinstance(who, tuple):
        joint = tuple(decide(model, config, state, s, agents[s], rngs[s]) for s in who)
        return who, joint, model.apply(config, state, joint)
    action = decide(model, config, state, who, agents[who], rngs[who])
    return who, action, model.apply(config, state, action)


def play_game(model: GameModel, config: Any, agents: Sequence[Agent], seed: int, *, max_steps: int = 10**7,
              observer: Observer | None = None) -> Any:
    """Play one game with game seed ``seed`` to its end and return the final state.

    ``observer(before, who, action, after)`` (optional) sees every step — golden playthroughs
    and the conformance invariants are written from it.
    """
    seed = int(seed)
    rngs = [SplitMix64.for_stream(seed, model.agent_stream(s)) for s in range(len(agents))]
    state = model.initial_state(config, seed)
    for _ in range(max_steps):
        if model.is_terminal(config, state):
            return state
        who, action, after = step(model, config, state, agents, rngs)
        if observer is not None:
            observer(state, who, action, after)
        state = after
    raise RunawayGame(f"{model.name}: game seed {seed} did not end within {max_steps} steps")


def rows_to_frame(rows: list[dict[str, Any]], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """Result rows → a frame with the declared schema (also for an empty list)."""
    if not rows:
        return pl.DataFrame(schema=schema)
    return pl.DataFrame(rows, schema=schema)


def play_reference(model: GameModel, params: dict[str, Any], agents: Sequence[AgentSpec],
                   seeds: np.ndarray) -> pl.DataFrame:
    """One result row per seed from the reference loop."""
    config = model.make_config(params)
    players = [model.make_agent(a) for a in agents]
    limit = model.max_steps(params)
    rows = [model.result_row(config, play_game(model, config, players, int(s), max_steps=limit)) for s in seeds]
    return rows_to_frame(rows, model.result_schema(params))


def play_chunk(model: GameModel, params: dict[str, Any], agents: Sequence[AgentSpec], seeds: np.ndarray,
               engine: str) -> pl.DataFrame:
    """The game's result columns for one chunk of seeds, from the engine the runner resolved.

    A spec naming a weight set (``greedy@tuned``) is expanded here, so every engine plays the set's
    options (a compiled engine reads options only: given the bare spec it would play the defaults).
    """
    agents = tuple(model.resolve_spec(a) for a in agents)
    if engine == "fast":
        if model.fast_supports(agents, params):
            return conformed(model.play_fast(model.make_config(params), params, agents, seeds),
                             model.result_schema(params))
        why = _fallback_reason(model, agents)
        key = (model.name, why)
        if key not in _warned:
            _warned.add(key)
            warnings.warn(f"{model.name} fast engine: {why}; using the reference engine", RuntimeWarning,
                          stacklevel=2)
    return play_reference(model, params, agents, seeds)


def check_fast(model: GameModel, engine: str | None, agents: Any, cells: Sequence[dict[str, Any]]) -> None:
    """A requested ``fast`` engine must play every cell: else one :class:`InputError` naming ``--engine auto``.

    (``play_chunk`` still falls back, with one warning, for callers that ask for ``fast`` on purpose
    as "fast where it can"; a person typing ``--engine fast`` gets told instead.)
    """
    from workbench.core.errors import InputError

    if engine != "fast" or "fast" not in model.engines:
        return
    for overrides in cells:
        params = model.resolve_params(overrides)
        specs = tuple(model.resolve_agents(agents, params))
        if not model.fast_supports(specs, params):
            raise InputError(f"{model.name}: --engine fast cannot play these games: {_fallback_reason(model, specs)}; "
                             "use --engine auto to fall back to the reference engine (or --engine reference)")


def _fallback_reason(model: GameModel, agents: tuple[AgentSpec, ...]) -> str:
    unsupported = sorted({a.name for a in agents if a.name not in model.fast_agents})
    if unsupported:
        return f"agents {', '.join(unsupported)} have no compiled twin"
    if not model.fast_available():
        return "the compiled engine is not available here (is numba installed?)"
    return "these parameters are not supported by the compiled engine"
