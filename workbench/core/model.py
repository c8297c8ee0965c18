"""The game protocol every model implements, agent declarations, seats, and the game registry.

A game is its rules over immutable state behind one small protocol (in the spirit of OpenSpiel's
``State`` and pgx's ``init``/``step``), declared by a :class:`GameModel`:

* facts: name, title, rules version, seats (2..6), parameters (:class:`Param`, each a CLI flag, a
  validator and a widget), agents (:class:`AgentDecl`, options declared as ``Param`` objects), the
  result schema (column → polars dtype), maximum length, end reasons that are limits;
* pure functions over ``(config, state)``: :meth:`GameModel.initial_state` from a config and a game
  seed, :meth:`~GameModel.current_player` (a seat, a tuple of seats acting at once, :data:`CHANCE`
  or :data:`TERMINAL`), :meth:`~GameModel.legal_actions`, :meth:`~GameModel.apply`,
  :meth:`~GameModel.observation` (what a seat may see), :meth:`~GameModel.sample_chance` /
  :meth:`~GameModel.chance_outcomes` at chance nodes, :meth:`~GameModel.is_terminal`,
  :meth:`~GameModel.returns` and :meth:`~GameModel.result_row`.

Randomness stays inside the game's seeded SplitMix64 streams (``rng.py``), carried in the state
as plain integers, so a state is a value and a game seed replays the same game on any engine.
Everything else — the reference loop, agents' random streams, seeds → frame, the fast-path
choice and fallback — is written once in ``core/play.py`` and ``core/runner.py``.

Games register themselves: every package ``workbench/games/<name>/`` with a ``model`` module
holding ``MODEL`` is a game named ``<name>``, and the environment variable ``WORKBENCH_GAMES``
adds model modules from elsewhere (comma-separated dotted names, e.g. a plugin or a test game).
Core never imports a game by name.
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import importlib.util
import json
import math
import os
import pkgutil
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import polars as pl

from workbench.core.datafile import file_cache
from workbench.core.errors import InputError
from workbench.core.rng import SplitMix64

_KINDS = {int: pl.Int64, float: pl.Float64, str: pl.String, bool: pl.Boolean}
_KIND_WORDS = {int: "a whole number", float: "a number", str: "text", bool: "true or false"}


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

    def validate(self, value: Any, label: str | None = None) -> Any:
        """Return ``value`` coerced to this parameter's kind, or raise :class:`InputError`.

        ``label`` names the value in messages (default ``parameter 'name'``).
        """
        label = label or f"parameter {self.name!r}"
        if value is None or (isinstance(value, str) and value.lower() in ("none", "")):
            if self.optional:
                return None
            raise InputError(f"{label} needs a value; allowed: {self.allowed()}")
        try:
            coerced = self._coerce(value)
        except (TypeError, ValueError):
            raise InputError(
                f"{label}: {value!r} is not {_KIND_WORDS[self.kind]}; "
                f"allowed: {self.allowed()}"
            ) from None
        if self.choices is not None and coerced not in self.choices:
            raise InputError(f"{label}: {value!r} is not allowed; allowed: {self.allowed()}")
        if self.kind in (int, float):
            if (self.low is not None and coerced < self.low) or (self.high is not None and coerced > self.high):
                raise InputError(f"{label}: {value!r} is out of range; allowed: {self.allowed()}")
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


# -- seats ----------------------------------------------------------------------------------------
MAX_SEATS = 6
SEAT_NAMES = tuple(f"p{i + 1}" for i in range(MAX_SEATS))


def seat_name(seat: int) -> str:
    """``0`` → ``"p1"`` (seats are 0-based inside the rules, ``p1``.. in every frame and text)."""
    if not 0 <= seat < MAX_SEATS:
        raise ValueError(f"seat {seat} is outside 0..{MAX_SEATS - 1}")
    return SEAT_NAMES[seat]


def seat_names(n: int) -> tuple[str, ...]:
    """The names of ``n`` seats: ``("p1", .., "pn")``."""
    if not 1 <= n <= MAX_SEATS:
        raise ValueError(f"{n} seats: a game has 1..{MAX_SEATS}")
    return SEAT_NAMES[:n]


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
REPOSITORY = Path(__file__).resolve().parents[2]  # the checkout: a game's data folder defaults to data/<name> here
WEIGHT_SETS = "agents"  # weight sets live in <data folder>/agents/<set>.toml (core/tune.py writes them)


def shown_path(path: str | Path) -> str:
    """A path as a reader wants it: relative to the checkout when inside it."""
    try:
        return str(Path(path).resolve().relative_to(REPOSITORY))
    except ValueError:
        return str(path)


def weight_set_path(model: GameModel, name: str) -> Path:
    """``<data folder>/agents/<name>.toml``; a name that is not a plain word is refused."""
    if not isinstance(name, str) or not WEIGHT_SET_NAME.match(name):
        raise InputError(f"weight set name {name!r} is not allowed: 1-64 letters, digits, '_' or '-', starting "
                         "with a letter or digit (e.g. tuned)")
    return model.data_folder() / WEIGHT_SETS / f"{name}.toml"


def weight_set_names(model: GameModel) -> list[str]:
    """The weight sets the game holds, sorted."""
    folder = model.data_folder() / WEIGHT_SETS
    return sorted(p.stem for p in folder.glob("*.toml")) if folder.is_dir() else []


@file_cache()
def _read_toml(path: Path) -> dict[str, Any]:
    import tomllib

    return tomllib.loads(path.read_text(encoding="utf-8"))


def load_weight_set(model: GameModel, name: str) -> dict[str, Any]:
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


def card_set_hash(model: GameModel, params: dict[str, Any]) -> tuple[str, str]:
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


def expand_weight_set(model: GameModel, spec: AgentSpec, params: dict[str, Any] | None = None) -> AgentSpec:
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
# agents core and interop provide to every game that declares what they need, by reference (core.search and
# interop import this module): core's search for a game with ``search`` hooks, OpenSpiel's IS-MCTS
AGENT_PROVIDERS = ("workbench.core.search:provided_decl", "workbench.interop.openspiel:ismcts_decl")


def _provided_agents(model: GameModel) -> tuple[AgentDecl, ...]:
    found = []
    for ref in AGENT_PROVIDERS:
        module, _, name = ref.partition(":")
        decl = getattr(importlib.import_module(module), name)(model)
        if decl is not None:
            found.append(decl)
    return tuple(found)

# -- the protocol ---------------------------------------------------------------------------------
CHANCE = -1  # current_player at a chance node (as OpenSpiel's kChancePlayerId)
TERMINAL = -4  # current_player of a finished game (as OpenSpiel's kTerminalPlayerId)
AGENT_STREAM_BASE = 1000  # default seat streams: 1000 + seat (a game's own streams stay below)

# The one format of a rules version: the game's name, an optional part (a sub-model such as the rescue
# auction), and a major[.minor] number: ``babel-1``, ``duel-1.0``, ``rescue-auction-1``.
RULES_VERSION_FORMAT = re.compile(r"^(?P<game>[a-z][a-z0-9_]*)(-[a-z][a-z0-9_]*)?-\d+(\.\d+)?$")

# Columns every game's result rows start with (after the runner's shared columns, ``core/results.py``).
OUTCOME_COLUMNS: dict[str, pl.DataType] = {
    "winner": pl.String,  # p1.., or "draw"
    "reason": pl.String,  # how the game ended (the game's own words)
    "length": pl.Int64,  # in the game's unit (turns, rounds, auctions)
    "first_seat": pl.String,  # the seat that moved first (null where seats act at once)
}

# The ``first`` parameter of every game where one seat moves first, and the stream its draw comes from.
FIRST = Param("first", "random", str, "who moves first", choices=("random", "p1", "p2"))
FIRST_STREAM = 5


def first_seat(first: str, seed: int, players: int = 2, stream: int = FIRST_STREAM) -> int:
    """The seat that moves first: fixed (``"p1"``..), or drawn from ``stream`` of the game seed (``"random"``)."""
    if first == "random":
        return SplitMix64.for_stream(seed, stream).below(players)
    return SEAT_NAMES.index(first)


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
    """What a game lends core's one search agent (``core/search.py``), declared on its model as ``search``.

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


class GameModel:
    """Base class of every game model, read in three parts.

    1. **Facts** — class attributes: ``name``, ``title``, ``rules_version`` (:data:`RULES_VERSION_FORMAT`),
       seats (``min_players``..``max_players``), ``params``, ``agent_types``, ``limit_reasons``, the seats'
       agent streams (``agent_stream_base``), whether decisions are ``simultaneous``, and the studies,
       commands and report (declarations or ``"module:NAME"`` strings); :meth:`result_columns` is the
       game's own result schema (core puts :data:`OUTCOME_COLUMNS` in front).
    2. **Rules** — pure functions over ``(config, state)``: :meth:`make_config`, :meth:`players`,
       :meth:`initial_state`, :meth:`current_player`, :meth:`legal_actions`, :meth:`apply`,
       :meth:`observation`, :meth:`chance_outcomes` / :meth:`sample_chance`, :meth:`returns`,
       :meth:`result_row`, :meth:`invariants`.
    3. **Capabilities** — optional, each declared on the model and listed by :meth:`capabilities`
       (``workbench games`` prints them): a compiled ``engine`` (:class:`CompiledEngine`), a ``card_table``
       (``core/cardtable.py``), ``lessons`` (``core/lessons.py``), a playthrough ``text`` module,
       :meth:`determinise` (hidden information: search agents and IS-MCTS), and the solver hooks
       (:meth:`max_legal_actions`, :meth:`max_chance_outcomes`, :meth:`returns_bounds`, :meth:`public_record`).

    The engine choice, the reference loop, result frames and workers come from core.
    """

    # -- 1. facts -------------------------------------------------------------------------------
    name: str = ""
    title: str = ""
    rules_version: str = ""
    min_players: int = 2
    max_players: int = 2
    params: tuple[Param, ...] = ()
    agent_types: tuple[AgentDecl, ...] = ()
    limit_reasons: tuple[str, ...] = ("turn_limit",)  # end reasons that are limits, not decisions
    agent_stream_base: int = AGENT_STREAM_BASE  # seat s's agent draws from sub-stream base + s of the game seed
    reference_chunk: int = 200  # games per chunk on the reference loop (keeps a progress bar moving)
    # display names of a parameter's choices: {param: "module:function() -> {value: name}"} (read from the data)
    choice_names: dict[str, str] = {}  # a declaration, never mutated
    # columns of the game's tables whose values are keys of a parameter with choice_names: {column: param}
    # (Babylon's "deck" and "opponent" hold deck keys); every shown table then reads them by display name
    value_columns: dict[str, str] = {}  # a declaration, never mutated
    simultaneous: bool = False  # True when decisions are simultaneous nodes (current_player returns tuples)
    # studies, commands and report: declarations, or "module:NAME" strings imported only when asked for
    studies: tuple[Any, ...] | str = ()  # core.study.Study declarations (core adds the generic ones)
    commands: tuple[Any, ...] | str = ()  # core.study.Command declarations (game-specific CLI commands)
    report: str | None = None  # "module:function" writing the game's report, or None: core's generic one
    # readings: names of parameters whose values are readings of an open text (docs/rules/<game>.md says which);
    # their default is the reading the workbench plays, and core's "readings" study compares the others to it
    readings: tuple[str, ...] = ()
    readings_agents: str = "greedy"  # the lineup the readings study plays (one agent, or one per seat)
    # skill tiers, weakest first: agent specs every seat plays (``("greedy", "greedy@tuned", "search")``); the default
    # of every study, report and page that gives verdicts (core/tiers.py: declared_tiers).  A tier naming a weight set
    # the game does not hold yet is skipped; () means greedy and greedy@tuned where they exist
    tiers: tuple[str, ...] = ()
    # time a game costs at a tier, relative to a fast tier: {spec: cost}; a study plays 1/cost of its games there
    # (a search tier not named here costs core.tiers.SEARCH_COST)
    tier_costs: dict[str, float] = {}  # a declaration, never mutated
    # "module:function(model, params) -> list[core.verdicts.Source]": the balance verdicts the game gives (pairings,
    # battlefields, cost flags...); None: the first seat as set (core/verdicts.py adds the dead cards)
    verdicts: str | None = None

    # -- 3. capabilities (declared here, so a reader sees them all; None / () = the game has none) ---
    engine: CompiledEngine | None = None
    search: SearchHooks | None = None  # the hooks of core's search agent (core/search.py)
    card_table: Any = None  # core.cardtable.CardTable or "module:NAME"
    lessons: tuple[Any, ...] | str = ()  # core.study.Study declarations or study names: the teaching page
    text: str | None = None  # module with the playthrough text functions (see :meth:`describe`)
    data_dir: str | Path | None = None  # the game's data folder (weight sets in agents/); None: data/<name>
    targets: Any = None  # core.rebalance.Targets or "module:NAME": balance metrics and edit space (workbench rebalance)

    def capabilities(self) -> dict[str, str]:
        """The optional capabilities this game declares, each with a line saying what it gives."""
        found: dict[str, str] = {}
        if self.engine is not None:
            found["engine"] = f"compiled engine for {', '.join(self.engine.agents)}"
        if self.card_table is not None:
            found["card_table"] = "editable card table with what-ifs on the same seeds"
        if self.lessons:
            found["lessons"] = "teaching page: exact values beside simulated ones"
        if self.text is not None:
            found["text"] = "readable playthroughs (python -m workbench.core.playthrough)"
        if self._overrides("determinise"):
            found["determinise"] = "hidden information dealt afresh: search agents and IS-MCTS"
        if self.search is not None:
            found["search"] = ("core's search agent: " + (f"rollouts compiled for {', '.join(self.search.policies)}"
                                                          if self.search.rollout else "reference rollouts"))
        if self.readings:
            found["readings"] = f"open readings of the text as switches: {', '.join(self.readings)}"
        if self._overrides("max_legal_actions"):
            found["solver"] = "bounds for solvers (the OpenSpiel bridge)"
        return found

    def _overrides(self, method: str) -> bool:
        return getattr(type(self), method) is not getattr(GameModel, method)

    @property
    def agents(self) -> tuple[str, ...]:
        """Names of the declared agents (``random`` is always there)."""
        return tuple(d.name for d in self.agent_decls)

    @property
    def agent_decls(self) -> tuple[AgentDecl, ...]:
        """Declared agents: core's ``random`` (unless the game has its own), the game's, then provided ones.

        Provided agents come from ``AGENT_PROVIDERS`` when their library is installed and the game declares
        what they need: core's ``search`` (``core/search.py``) needs the ``search`` hooks, ``ismcts`` needs
        ``determinise``.
        """
        own = tuple(self.agent_types)
        decls = own if any(d.name == "random" for d in own) else (RANDOM_AGENT, *own)
        names = {d.name for d in decls}
        return decls + tuple(d for d in _provided_agents(self) if d.name not in names)

    @property
    def engines(self) -> tuple[str, ...]:
        """``reference`` (the generic loop over the rules), and ``fast`` where a compiled engine exists."""
        return ("reference", "fast") if self.engine is not None else ("reference",)

    @property
    def fast_agents(self) -> tuple[str, ...]:
        """Agents the compiled engine plays (none without one)."""
        return self.engine.agents if self.engine is not None else ()

    def agent_decl(self, name: str) -> AgentDecl:
        """The declaration of agent ``name``."""
        for d in self.agent_decls:
            if d.name == name:
                return d
        raise InputError(f"{self.name}: unknown agent {name!r}; allowed: {', '.join(self.agents)}")

    def make_agent(self, spec: AgentSpec | str) -> Agent:
        """A new agent for ``spec`` (``"greedy:wall=0.8"``, ``"greedy@tuned"`` or a parsed spec), options checked.

        A weight set is read here without the card check (no parameters are known): runs resolve
        their agents with :meth:`resolve_agents`, which checks it.
        """
        spec = self.resolve_spec(spec)
        return self.agent_decl(spec.name).build(spec)

    def data_folder(self) -> Path:
        """The game's data folder: ``data_dir`` (relative to the checkout), or ``data/<name>`` in the checkout."""
        return REPOSITORY / (self.data_dir if self.data_dir is not None else Path("data") / self.name)

    def resolve_spec(self, spec: AgentSpec | str, params: dict[str, Any] | None = None) -> AgentSpec:
        """``spec`` with its weight set (``greedy@tuned``) replaced by the options the set holds.

        With ``params`` (resolved), a set tuned for other cards than those in force is refused
        (:func:`expand_weight_set` says why and what to do).
        """
        spec = spec if isinstance(spec, AgentSpec) else AgentSpec.parse(spec)
        return spec if spec.weight_set is None else expand_weight_set(self, spec, params)

    def param(self, name: str) -> Param:
        """The declared parameter ``name``."""
        for p in self.params:
            if p.name == name:
                return p
        raise InputError(f"{self.name}: unknown parameter {name!r}; allowed: {', '.join(p.name for p in self.params)}")

    def params_for(self, given: dict[str, Any] | None = None) -> tuple[Param, ...]:
        """The declared parameters as they apply with the values ``given`` so far.

        Override when a data file a parameter names changes what another allows (the duel's
        battlefields file adds battlefields to choose); the default is ``params``.
        """
        return self.params

    def resolve_params(self, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
        """All parameters with defaults filled in and every value validated."""
        overrides = dict(overrides or {})
        for key in overrides:
            self.param(key)
        resolved = {p.name: p.validate(overrides.get(p.name, p.default)) for p in self.params_for(overrides)}
        self.check_params(resolved)
        return resolved

    def check_params(self, params: dict[str, Any]) -> None:  # noqa: B027 - optional hook
        """Check combinations of parameters (override; raise :class:`InputError`)."""

    def max_length(self, params: dict[str, Any]) -> int:
        """Upper bound on a game's ``length`` in the game's own unit (turns, rounds)."""
        raise NotImplementedError(f"{self.name}: max_length is not declared")

    def max_steps(self, params: dict[str, Any]) -> int:
        """Upper bound on protocol steps (actions and chance events) in one game: a runaway guard."""
        return 1000 * max(1, self.max_length(params)) + 1000

    def result_columns(self, params: dict[str, Any]) -> dict[str, pl.DataType]:
        """The game's own result columns, after :data:`OUTCOME_COLUMNS`: name → polars dtype."""
        raise NotImplementedError(f"{self.name}: result_columns is not declared")

    def result_schema(self, params: dict[str, Any]) -> dict[str, pl.DataType]:
        """Every column :meth:`result_row` returns: :data:`OUTCOME_COLUMNS`, then :meth:`result_columns`."""
        return {**OUTCOME_COLUMNS, **self.result_columns(params)}

    def default_agents(self, params: dict[str, Any]) -> tuple[str, ...]:
        """Agents used when the user names none."""
        return ("random",) * self.players(self.make_config(params))

    def resolve_agents(self, agents: Any, params: dict[str, Any]) -> tuple[AgentSpec, ...]:
        """Parse and check one agent per seat (a list, or a comma string ``"random,greedy"``).

        A weight set (``greedy@tuned``) comes back as the options it holds (``greedy:tower=1.2,..``):
        that is what a frame's ``agent_p1`` column carries, so every row replays without the set's file.
        """
        if agents is None:
            agents = self.default_agents(params)
        if isinstance(agents, str):
            agents = _split_agents(agents)
        specs = tuple(self.resolve_spec(a, params) for a in agents)  # weight sets become their options
        n = self.players(self.make_config(params))
        if len(specs) != n:
            raise InputError(f"{self.name}: {len(specs)} agents given for {n} players; give one per seat")
        for spec in specs:
            self.make_agent(spec)  # validates the name and every option
        return specs

    def fast_available(self) -> bool:
        """True when the compiled engine can run here: one is declared and numba is installed."""
        return self.engine is not None and importlib.util.find_spec("numba") is not None

    def fast_supports(self, agents: tuple[AgentSpec, ...], params: dict[str, Any]) -> bool:
        """True when the compiled engine plays these agents with these parameters."""
        return self.fast_available() and all(a.name in self.fast_agents for a in agents)

    def resolve_engine(self, engine: str | None, agents: tuple[AgentSpec, ...], params: dict[str, Any]) -> str:
        """Check a requested engine, or pick the default: ``fast`` when it plays the agents."""
        if engine is None or engine == "auto":
            return "fast" if self.fast_supports(agents, params) else "reference"
        if engine not in self.engines:
            raise InputError(f"{self.name}: unknown engine {engine!r}; allowed: {', '.join(self.engines)}, auto")
        return engine

    def releases_gil(self, engine: str) -> bool:
        """True when the engine runs without Python's GIL, so worker threads beat processes."""
        return engine == "fast" and self.engine is not None and self.engine.threads

    def chunk_hint(self, engine: str) -> int:
        """A good number of games per chunk for this engine."""
        return self.engine.chunk if engine == "fast" and self.engine is not None else self.reference_chunk

    def catalogue(self) -> dict[str, Any]:
        """Extra facts for ``workbench games`` (e.g. the duel's battlefields)."""
        return {}

    def choice_label(self, param: str, value: Any) -> str:
        """How a person reads a parameter's value in a table: ``free_steppe`` → ``Free steppe``.

        A display name from the game's data wins where the model declares ``choice_names`` (the duel's
        battlefields, Babylon's decks).
        """
        source = self.choice_names.get(param)
        if source is not None:
            module, _, function = source.partition(":")
            names = getattr(importlib.import_module(module), function)()
            if value in names:
                return str(names[value])
        text = str(value).replace("_", " ")
        return text[:1].upper() + text[1:]

    def params_hash(self, params: dict[str, Any]) -> str:
        """Short stable hash of the resolved parameters and the rules version."""
        blob = json.dumps({"game": self.name, "rules": self.rules_version, "params": params},
                          sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    # -- 2. rules: the per-state protocol -------------------------------------------------------
    def make_config(self, params: dict[str, Any]) -> Any:
        """The rules configuration for resolved parameters (cache it if building is costly)."""
        return params

    def players(self, config: Any) -> int:
        """Seats of a game with this config (override when a parameter sets it)."""
        return self.min_players

    def initial_state(self, config: Any, seed: int) -> Any:
        """The state at the start of the game with game seed ``seed`` (all its randomness)."""
        raise NotImplementedError(f"{self.name}: initial_state is not implemented")

    def current_player(self, config: Any, state: Any) -> int | tuple[int, ...]:
        """The seat to act, a tuple of seats acting at once, :data:`CHANCE` or :data:`TERMINAL`."""
        raise NotImplementedError(f"{self.name}: current_player is not implemented")

    def legal_actions(self, config: Any, state: Any, seat: int) -> Sequence[Any]:
        """The actions ``seat`` may take now, in a stable order (agents index into it)."""
        raise NotImplementedError(f"{self.name}: legal_actions is not implemented")

    def apply(self, config: Any, state: Any, action: Any) -> Any:
        """The state after ``action`` (a tuple, one per acting seat, at a simultaneous node)."""
        raise NotImplementedError(f"{self.name}: apply is not implemented")

    def observation(self, config: Any, state: Any, seat: int) -> Any:
        """What ``seat`` may see (its agents get nothing else)."""
        raise NotImplementedError(f"{self.name}: observation is not implemented")

    def chance_outcomes(self, config: Any, state: Any) -> list[tuple[Any, float]]:
        """At a chance node: every outcome with its probability (games with chance nodes)."""
        raise NotImplementedError(f"{self.name}: chance_outcomes is not implemented")

    def sample_chance(self, config: Any, state: Any) -> tuple[Any, Any]:
        """At a chance node: ``(outcome, state)`` drawn from the game's own seeded stream in the state."""
        raise NotImplementedError(f"{self.name}: sample_chance is not implemented")

    def is_terminal(self, config: Any, state: Any) -> bool:
        """True when the game is over."""
        return self.current_player(config, state) == TERMINAL

    def returns(self, config: Any, state: Any) -> tuple[float, ...]:
        """Each seat's return of a finished game (default: winner +1, the others −1, a draw 0)."""
        row = self.result_row(config, state)
        names = seat_names(self.players(config))
        if row["winner"] not in names:
            return (0.0,) * len(names)
        return tuple(1.0 if s == row["winner"] else -1.0 for s in names)

    def result_row(self, config: Any, state: Any) -> dict[str, Any]:
        """The result columns of a finished game (keys and dtypes as :meth:`result_schema`)."""
        raise NotImplementedError(f"{self.name}: result_row is not implemented")

    def agent_stream(self, seat: int) -> int:
        """The SplitMix64 sub-stream of the game seed that ``seat``'s agent draws from."""
        return self.agent_stream_base + seat

    def invariants(self, config: Any, state: Any) -> list[str]:
        """Broken invariants of a state, in words (conformance checks it after every step)."""
        return []

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



# -- registry -------------------------------------------------------------------------------------
GAMES_PACKAGE = "workbench.games"
ENV_GAMES = "WORKBENCH_GAMES"


def _package_games() -> dict[str, str]:
    """``{name: model module}`` for every package under ``workbench/games/`` with a ``model`` module."""
    spec = importlib.util.find_spec(GAMES_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return {}
    found = {}
    for info in pkgutil.iter_modules(spec.submodule_search_locations):
        if info.ispkg and importlib.util.find_spec(f"{GAMES_PACKAGE}.{info.name}.model") is not None:
            found[info.name] = f"{GAMES_PACKAGE}.{info.name}.model"
    return found


@lru_cache(maxsize=8)
def _registry(extra: str) -> dict[str, str]:
    found = _package_games()
    for module in filter(None, (m.strip() for m in extra.split(","))):
        model = _load(module)
        found[model.name] = module
    return found


def _load(module: str) -> GameModel:
    try:
        model = getattr(importlib.import_module(module), "MODEL", None)
    except ModuleNotFoundError as exc:
        raise InputError(f"game module {module!r} cannot be imported ({exc}); check {ENV_GAMES}") from None
    if not isinstance(model, GameModel):
        raise InputError(f"game module {module!r} has no MODEL (a GameModel instance)")
    check_rules_version(model)
    return model


def check_rules_version(model: GameModel) -> None:
    """A rules version has the one format: ``<game>[-<part>]-<major>[.<minor>]`` (e.g. ``babel-1``)."""
    found = RULES_VERSION_FORMAT.match(model.rules_version or "")
    if found is None or found["game"] != model.name:
        raise InputError(f"{model.name}: rules version {model.rules_version!r} is not "
                         f"'{model.name}[-part]-MAJOR[.MINOR]' (e.g. '{model.name}-1')")


def registry() -> dict[str, str]:
    """``{game name: model module}`` of every registered game."""
    return dict(_registry(os.environ.get(ENV_GAMES, "")))


def game_names() -> list[str]:
    """Names of the registered games, in a stable order."""
    return sorted(registry())


def value_names() -> dict[str, dict[str, str]]:
    """``{column: {key: display name}}`` from the games already loaded in this process.

    A column named after a parameter that declares ``choice_names`` (the duel's ``battlefield``,
    Babylon's ``deck_p1``), or listed in a game's ``value_columns``, reads by display name in every
    table a person sees (``core.report.display_frame``); CSV and Parquet keep the keys.  Only games
    already imported are asked (a table shown comes from a game that is loaded), so showing a table
    never imports a game.
    """
    import sys

    out: dict[str, dict[str, str]] = {}
    for module in registry().values():
        model = getattr(sys.modules.get(module), "MODEL", None)
        if not isinstance(model, GameModel) or not model.choice_names:
            continue
        columns = {**{p: p for p in model.choice_names}, **model.value_columns}
        for column, param in columns.items():
            if param not in model.choice_names:
                continue
            names = out.setdefault(column, {})
            for key in model.param(param).choices or ():
                names[str(key)] = model.choice_label(param, key)
    return out


def get_game(name: str | GameModel) -> GameModel:
    """The model registered as ``name`` (a model instance passes through)."""
    if isinstance(name, GameModel):
        return name
    games = registry()
    if name not in games:
        raise InputError(f"unknown game {name!r}; allowed: {', '.join(sorted(games))}")
    model = _load(games[name])
    if model.name != name:
        raise InputError(f"{games[name]}.MODEL is named {model.name!r}, not {name!r}: a game package's name "
                         "is its game's name")
    return model


def model_ref(model: GameModel) -> str:
    """What a worker process needs to find ``model`` again: its registered name, or ``module:NAME``.

    A model that is not registered (a study's own sub-model, a test game) is found by the module
    attribute that holds it; one held by no module attribute cannot be sent to another process.
    """
    games = registry()
    module = type(model).__module__
    if games.get(model.name) == module:
        return model.name
    names = [k for k, v in vars(importlib.import_module(module)).items() if v is model]
    if not names:
        raise InputError(f"{model.name}: the model is not held by any attribute of {module}, so a worker "
                         "process cannot find it; keep it in a module-level name")
    return f"{module}:{'MODEL' if 'MODEL' in names else sorted(names)[0]}"


def from_ref(ref: str) -> GameModel:
    """The model a :func:`model_ref` names."""
    module, sep, attr = ref.partition(":")
    if not sep:
        return get_game(ref)
    if attr == "MODEL":
        return _load(module)
    model = getattr(importlib.import_module(module), attr, None)
    if not isinstance(model, GameModel):
        raise InputError(f"{ref!r} does not name a GameModel")
    return model
