"""Agents: specs, weight sets on disk, declarations, core's random agent and the agents provided by reference.

A spec reads ``greedy:wall=0.8`` or ``greedy@tuned`` (a weight set in ``data/<game>/agents/``); the agents
provided by reference are core's search and OpenSpiel's IS-MCTS (``AGENT_PROVIDERS``).
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import importlib.util
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from workbench.core.errors import InputError
from workbench.core.model.datafile import file_cache
from workbench.core.model.facts import Param

GameLike = Any  # a GameModel (core/model/game.py builds on this module, so it is not imported here)


# -- agents ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AgentSpec:
    """An agent named by a string ``name``, ``name:key=value,key=value``, or ``name@set`` (a named weight set).

    ``name@set`` reads its options from the game's weight set ``<data folder>/agents/<set>.toml``
    (written by ``workbench tune``); options given after it (``greedy@tuned:wall=0.3``) override
    the set's.  :meth:`GameModel.resolve_agents` turns it into the plain ``name:key=value`` spec the
    set holds, so a result row names the options it was played with and replays without the file.
    """

    name: str
    options: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    weight_set: str | None = None

    @classmethod
    def parse(cls, text: str) -> AgentSpec:
        """Parse ``"search:budget=200"`` or ``"greedy@tuned"`` into name, options (strings) and weight set."""
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"agent must be a non-empty string like 'random' or 'search:budget=200', got {text!r}")
        head, _, rest = text.strip().partition(":")
        name, at, weight_set = head.partition("@")
        if at and not WEIGHT_SET_NAME.match(weight_set.strip()):
            raise InputError(f"agent {text!r}: {weight_set.strip()!r} is not a weight set name (letters, digits, "
                             "'_' and '-', as in greedy@tuned)")
        options = []
        for part in filter(None, (p.strip() for p in rest.split(","))):
            key, eq, value = part.partition("=")
            if not eq or not key.strip():
                raise InputError(f"agent {text!r}: option {part!r} is not key=value")
            options.append((key.strip(), value.strip()))
        return cls(name.strip(), tuple(options), weight_set.strip() if at else None)

    def __str__(self) -> str:
        head = self.name if self.weight_set is None else f"{self.name}@{self.weight_set}"
        if not self.options:
            return head
        return head + ":" + ",".join(f"{k}={v}" for k, v in self.options)


WEIGHT_SET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
REPOSITORY = Path(__file__).resolve().parents[3]  # the checkout: a game's data folder defaults to data/<name> here
WEIGHT_SETS = "agents"  # weight sets live in <data folder>/agents/<set>.toml (core/skill/tune.py writes them)


def shown_path(path: str | Path) -> str:
    """A path as a reader wants it: relative to the checkout when inside it."""
    try:
        return str(Path(path).resolve().relative_to(REPOSITORY))
    except ValueError:
        return str(path)


def weight_set_path(model: GameLike, name: str) -> Path:
    """``<data folder>/agents/<name>.toml``; a name that is not a plain word is refused."""
    if not isinstance(name, str) or not WEIGHT_SET_NAME.match(name):
        raise InputError(f"weight set name {name!r} is not allowed: 1-64 letters, digits, '_' or '-', starting "
                         "with a letter or digit (e.g. tuned)")
    return model.data_folder() / WEIGHT_SETS / f"{name}.toml"


def weight_set_names(model: GameLike) -> list[str]:
    """The weight sets the game holds, sorted."""
    folder = model.data_folder() / WEIGHT_SETS
    return sorted(p.stem for p in folder.glob("*.toml")) if folder.is_dir() else []


@file_cache()
def _read_toml(path: Path) -> dict[str, Any]:
    import tomllib

    return tomllib.loads(path.read_text(encoding="utf-8"))


def load_weight_set(model: GameLike, name: str) -> dict[str, Any]:
    """The weight set ``name`` (a TOML file); an unknown name lists the sets there are."""
    import tomllib

    path = weight_set_path(model, name)
    if not path.is_file():
        there = weight_set_names(model)
        raise InputError(f"{model.name}: no weight set {name!r} in {shown_path(path.parent)}; sets: "
                         f"{', '.join(there) or 'none'} (make one with: workbench tune {model.name} --name {name})")
    try:
        data = copy.deepcopy(_read_toml(path))  # parsed once per saved file (a study asks for it per lineup)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not a readable weight set ({exc})") from None
    for key in ("agent", "options", "card_hash"):
        if key not in data:
            raise InputError(f"{path}: a weight set needs {key!r}; found {', '.join(data) or 'nothing'}")
    if not isinstance(data["options"], dict):
        raise InputError(f"{path}: 'options' must be a table of option = value")
    return data


def card_set_hash(model: GameLike, params: dict[str, Any]) -> tuple[str, str]:
    """``(sha256, source)`` of the card set in force.

    The cards CSV when the game declares a card table, else the parameters (``source`` is then ``"params"``).
    """
    table = model.card_table
    if isinstance(table, str):  # "module:NAME", imported when asked for
        module, _, attr = table.partition(":")
        table = getattr(importlib.import_module(module), attr)
    if table is not None:
        path = Path(params.get(table.param) or table.default)
        if not path.is_file():
            raise InputError(f"{model.name}: cards file {path} does not exist")
        return hashlib.sha256(path.read_bytes()).hexdigest(), shown_path(path)
    blob = json.dumps({"rules": model.rules_version, "params": params}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest(), "params"


def expand_weight_set(model: GameLike, spec: AgentSpec, params: dict[str, Any] | None = None) -> AgentSpec:
    """``greedy@tuned[:k=v]`` → ``greedy:<the set's options, then k=v>``; with ``params``, the cards are checked.

    A set tuned for another card set than the one in force is refused: its weights were fitted to
    cards that are not played, so a "tuned" verdict would quietly be another player's.  The message
    says how to re-tune, and how to play the weights regardless (the explicit spec).  A set from
    another rules version plays with a warning (its weights are still legal options).
    """
    data = load_weight_set(model, spec.weight_set or "")
    if data["agent"] != spec.name:
        raise InputError(f"{model.name}: weight set {spec.weight_set!r} is for agent {data['agent']!r}, not "
                         f"{spec.name!r}; use {data['agent']}@{spec.weight_set}")
    options = {k: repr(v) if isinstance(v, float) else str(v) for k, v in data["options"].items()}
    plain = AgentSpec(spec.name, tuple(options.items()))
    if params is not None and data.get("card_source") != "params" and model.card_table is not None:
        current, source = card_set_hash(model, params)
        if current != data["card_hash"]:
            raise InputError(
                f"{model.name}: weight set {spec.weight_set!r} was tuned for the cards {data.get('card_source')} "
                f"(sha256 {data['card_hash'][:12]}…), not for the cards in force {source} (sha256 {current[:12]}…); "
                f"re-tune for these cards: workbench tune {model.name} --agent {spec.name} --name NAME "
                f"--cards {source}; or play these weights anyway with the explicit agent {plain}")
    if data.get("rules_version") not in (None, model.rules_version):
        import warnings

        warnings.warn(f"{model.name}: weight set {spec.weight_set!r} was tuned under rules {data['rules_version']}; "
                      f"the rules in force are {model.rules_version}", stacklevel=3)
    merged = dict(options)
    merged.update(spec.options)
    return AgentSpec(spec.name, tuple(merged.items()))


class Agent(Protocol):
    """Chooses one of the legal actions from what its seat may see.

    ``rng`` is the seat's own SplitMix64 stream (``GameModel.agent_stream``): an agent never draws
    from the game's streams, so a change of agent never changes the deck.
    """

    def act(self, observation: Any, legal: Sequence[Any], config: Any, rng: Any) -> Any:
        """Return one element of ``legal``."""


class RandomAgent:
    """Uniform over the legal actions: ``legal[rng.below(len(legal))]`` (one draw per decision)."""

    name = "random"

    def act(self, observation: Any, legal: Sequence[Any], config: Any, rng: Any) -> Any:
        """Pick uniformly."""
        return legal[rng.below(len(legal))]


@dataclass(frozen=True)
class AgentDecl:
    """A declared agent: its name, help, options (declared as ``Param`` objects) and a factory.

    ``factory(**options)`` builds the agent from the validated options (every declared option is
    passed, defaults filled in); it may raise :class:`InputError` for combinations of options.
    """

    name: str
    factory: Callable[..., Agent]
    help: str = ""
    options: tuple[Param, ...] = ()

    def resolve_options(self, spec: AgentSpec) -> dict[str, Any]:
        """The spec's options validated against the declaration, defaults filled in."""
        allowed = {o.name: o for o in self.options}
        given: dict[str, Any] = {}
        for key, value in spec.options:
            if key not in allowed:
                raise InputError(f"agent {spec}: unknown option {key!r}; allowed: {', '.join(allowed) or 'none'}")
            if key in given:
                raise InputError(f"agent {spec}: option {key!r} is given twice")
            given[key] = allowed[key].validate(value, f"agent {spec}: option {key!r}")
        return {name: given.get(name, opt.default) for name, opt in allowed.items()}

    def build(self, spec: AgentSpec) -> Agent:
        """A new agent for ``spec`` (options checked)."""
        return self.factory(**self.resolve_options(spec))

    def usage(self) -> str:
        """``search:budget=64,horizon=16`` — the agent with every option at its default."""
        shown = [o for o in self.options if o.default is not None]
        if not shown:
            return self.name
        return self.name + ":" + ",".join(f"{o.name}={o.default}" for o in shown)


RANDOM_AGENT = AgentDecl("random", RandomAgent, "uniform over the legal actions")

# Agents offered to every game whose declarations they need, by "module:function(model) -> AgentDecl | None"
# (imported only when asked for; a provider whose library is not installed offers nothing).
# agents core and interop provide to every game that declares what they need, by reference (core.skill.search and
# interop import this module): core's search for a game with ``search`` hooks, OpenSpiel's IS-MCTS
AGENT_PROVIDERS = ("workbench.core.skill.search:provided_decl", "workbench.interop.openspiel:ismcts_decl")


def _provided_agents(model: GameLike) -> tuple[AgentDecl, ...]:
    found = []
    for ref in AGENT_PROVIDERS:
        module, _, name = ref.partition(":")
        decl = getattr(importlib.import_module(module), name)(model)
        if decl is not None:
            found.append(decl)
    return tuple(found)

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
