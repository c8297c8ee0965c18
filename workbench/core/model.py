"""The small interface every game model implements, and the game registry.

A model declares itself (name, rules version, players, parameters with defaults and allowed
ranges, agents, engines, maximum length) and plays a *chunk* of seeded games into a polars frame
with one row per seed.  The runner (``runner.py``) adds the columns every game shares and takes
care of chunking, workers and backends; the CLI derives its flags from ``params``.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from workbench.core.errors import InputError

_KINDS = {int: pl.Int64, float: pl.Float64, str: pl.String, bool: pl.Boolean}


@dataclass(frozen=True)
class Param:
    """One declared game parameter.

    ``kind`` is ``int``, ``float``, ``str`` or ``bool``; numeric parameters have an inclusive range
    ``[low, high]``, string parameters a tuple of ``choices``.  ``optional`` parameters accept
    ``None`` (meaning "take it from the game's data", e.g. a battlefield's own start wall).
    """

    name: str
    default: Any
    kind: type
    help: str = ""
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] | None = None
    optional: bool = False

    @property
    def dtype(self) -> pl.DataType:
        """Polars dtype of this parameter's result column."""
        return _KINDS[self.kind]

    @property
    def flag(self) -> str:
        """The CLI flag: ``start_wall`` → ``--start-wall``."""
        return "--" + self.name.replace("_", "-")

    def allowed(self) -> str:
        """Human-readable description of the allowed values."""
        if self.choices is not None:
            text = " | ".join(self.choices)
        elif self.kind is bool:
            text = "true | false"
        elif self.kind is str:
            text = "text"
        else:
            lo = "-inf" if self.low is None else _fmt(self.low)
            hi = "inf" if self.high is None else _fmt(self.high)
            text = f"{self.kind.__name__} in [{lo}, {hi}]"
        return text + (" (or none)" if self.optional else "")

    def validate(self, value: Any) -> Any:
        """Return ``value`` coerced to this parameter's kind, or raise :class:`InputError`."""
        if value is None or (isinstance(value, str) and value.lower() in ("none", "")):
            if self.optional:
                return None
            raise InputError(f"parameter {self.name!r} needs a value; allowed: {self.allowed()}")
        try:
            coerced = self._coerce(value)
        except (TypeError, ValueError):
            raise InputError(
                f"parameter {self.name!r}: {value!r} is not a {self.kind.__name__}; "
                f"allowed: {self.allowed()}"
            ) from None
        if self.choices is not None and coerced not in self.choices:
            raise InputError(f"parameter {self.name!r}: {value!r} is not allowed; allowed: {self.allowed()}")
        if self.kind in (int, float):
            if (self.low is not None and coerced < self.low) or (self.high is not None and coerced > self.high):
                raise InputError(f"parameter {self.name!r}: {value!r} is out of range; allowed: {self.allowed()}")
        return coerced

    def _coerce(self, value: Any) -> Any:
        if self.kind is bool:
            if isinstance(value, (bool, np.bool_)):
                return bool(value)
            if isinstance(value, str) and value.lower() in ("true", "yes", "1", "false", "no", "0"):
                return value.lower() in ("true", "yes", "1")
            raise ValueError(value)
        if self.kind is int:
            if isinstance(value, bool):
                raise ValueError(value)
            if isinstance(value, float) and not value.is_integer():
                raise ValueError(value)
            if isinstance(value, str):
                return int(value.strip())
            return int(value)
        if self.kind is float:
            if isinstance(value, bool):
                raise ValueError(value)
            out = float(value)
            if not math.isfinite(out):
                raise ValueError(value)
            return out
        if not isinstance(value, str):
            raise ValueError(value)
        return value


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


@dataclass(frozen=True)
class AgentSpec:
    """An agent named by a string ``name`` or ``name:key=value,key=value``."""

    name: str
    options: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    @classmethod
    def parse(cls, text: str) -> AgentSpec:
        """Parse ``"search:budget=200"`` into name and options (values stay strings)."""
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"agent must be a non-empty string like 'random' or 'search:budget=200', got {text!r}")
        name, _, rest = text.strip().partition(":")
        options = []
        for part in filter(None, (p.strip() for p in rest.split(","))):
            key, eq, value = part.partition("=")
            if not eq or not key.strip():
                raise InputError(f"agent {text!r}: option {part!r} is not key=value")
            options.append((key.strip(), value.strip()))
        return cls(name.strip(), tuple(options))

    def __str__(self) -> str:
        if not self.options:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in self.options)

    def option(self, key: str, default: Any, kind: type = float) -> Any:
        """Option ``key`` converted to ``kind``, or ``default``; a bad value is an InputError."""
        for k, v in self.options:
            if k == key:
                try:
                    return kind(v)
                except ValueError:
                    raise InputError(f"agent {self}: option {key}={v!r} is not a {kind.__name__}") from None
        return default


class GameModel(ABC):
    """Base class of every game model.  Subclasses set the class attributes and ``play_chunk``."""

    name: str = ""
    title: str = ""
    rules_version: str = ""
    min_players: int = 2
    max_players: int = 2
    params: tuple[Param, ...] = ()
    agents: tuple[str, ...] = ()
    engines: tuple[str, ...] = ("reference",)

    # -- declared facts -------------------------------------------------------------------------
    def param(self, name: str) -> Param:
        """The declared parameter ``name``."""
        for p in self.params:
            if p.name == name:
                return p
        raise InputError(f"{self.name}: unknown parameter {name!r}; allowed: {', '.join(p.name for p in self.params)}")

    def resolve_params(self, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
        """All parameters with defaults filled in and every value validated."""
        overrides = dict(overrides or {})
        for key in overrides:
            self.param(key)
        return {p.name: p.validate(overrides.get(p.name, p.default)) for p in self.params}

    def players(self, params: dict[str, Any]) -> int:
        """Number of seats for these parameters (override where a parameter sets it)."""
        return self.min_players

    def max_length(self, params: dict[str, Any]) -> int:
        """Upper bound on a game's length in the game's own unit (turns, rounds)."""
        raise NotImplementedError

    def default_agents(self, params: dict[str, Any]) -> tuple[str, ...]:
        """Agents used when the user names none."""
        return ("random",) * self.players(params)

    def resolve_agents(self, agents: Any, params: dict[str, Any]) -> tuple[AgentSpec, ...]:
        """Parse and check one agent per seat (a list, or a comma string ``"random,greedy"``)."""
        if agents is None:
            agents = self.default_agents(params)
        if isinstance(agents, str):
            agents = _split_agents(agents)
        specs = tuple(a if isinstance(a, AgentSpec) else AgentSpec.parse(a) for a in agents)
        n = self.players(params)
        if len(specs) != n:
            raise InputError(f"{self.name}: {len(specs)} agents given for {n} players; give one per seat")
        for spec in specs:
            if spec.name not in self.agents:
                raise InputError(f"{self.name}: unknown agent {spec.name!r}; allowed: {', '.join(self.agents)}")
            self.check_agent(spec)
        return specs

    def check_agent(self, spec: AgentSpec) -> None:  # noqa: B027 - optional hook, no-op by default
        """Validate an agent's options (override to check them)."""

    def default_engine(self, agents: tuple[AgentSpec, ...], params: dict[str, Any]) -> str:
        """The engine the runner uses when the user names none."""
        return "reference"

    def resolve_engine(self, engine: str | None, agents: tuple[AgentSpec, ...], params: dict[str, Any]) -> str:
        """Check a requested engine, or pick the default."""
        if engine is None or engine == "auto":
            return self.default_engine(agents, params)
        if engine not in self.engines:
            raise InputError(f"{self.name}: unknown engine {engine!r}; allowed: {', '.join(self.engines)}")
        return engine

    def releases_gil(self, engine: str) -> bool:
        """True when the engine runs without Python's GIL, so worker threads beat processes."""
        return False

    def chunk_hint(self, engine: str) -> int:
        """A good number of games per chunk for this engine."""
        return 500

    def catalogue(self) -> dict[str, Any]:
        """Extra facts for ``workbench games`` (e.g. the duel's battlefields)."""
        return {}

    def params_hash(self, params: dict[str, Any]) -> str:
        """Short stable hash of the resolved parameters and the rules version."""
        blob = json.dumps({"game": self.name, "rules": self.rules_version, "params": params},
                          sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    # -- play -----------------------------------------------------------------------------------
    @abstractmethod
    def play_chunk(self, params: dict[str, Any], agents: tuple[AgentSpec, ...], seeds: np.ndarray,
                   engine: str) -> pl.DataFrame:
        """Play one game per seed (in order); return the game-specific columns, one row each."""


def _split_agents(text: str) -> list[str]:
    """Split ``"random,search:budget=50,greedy"`` into seats (options use ``:`` then ``k=v``)."""
    seats: list[str] = []
    for part in text.split(","):
        part = part.strip()
        if seats and "=" in part and ":" not in part:
            seats[-1] += "," + part  # an option of the previous agent
        else:
            seats.append(part)
    return seats


_REGISTRY = {
    "duel": "workbench.games.duel.model",
    "dietower": "workbench.games.dietower.model",
}


def game_names() -> list[str]:
    """Names of the registered games whose module can be imported."""
    return [n for n in _REGISTRY if _importable(_REGISTRY[n])]


def _importable(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and module.startswith(exc.name):
            return False
        raise
    return True


def get_game(name: str | GameModel) -> GameModel:
    """The model registered as ``name`` (a model instance passes through)."""
    if isinstance(name, GameModel):
        return name
    if name not in game_names():
        raise InputError(f"unknown game {name!r}; allowed: {', '.join(game_names())}")
    return importlib.import_module(_REGISTRY[name]).MODEL
