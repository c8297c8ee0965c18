"""The base class of every game model: its facts, the rules protocol and its capabilities, in one class."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core.errors import InputError
from workbench.core.model.agents import (
    RANDOM_AGENT,
    REPOSITORY,
    Agent,
    AgentDecl,
    AgentSpec,
    _provided_agents,
    _split_agents,
    expand_weight_set,
)
from workbench.core.model.capabilities import CompiledEngine, GameCapabilities, SearchHooks
from workbench.core.model.facts import AGENT_STREAM_BASE, OUTCOME_COLUMNS, Param
from workbench.core.model.protocol import GameRules


class GameModel(GameCapabilities, GameRules):
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
       (``core/design/cardtable.py``), ``lessons`` (``core/studies/lessons.py``), a playthrough ``text`` module,
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
    # games in all of a run that cannot finish in a few seconds on this game's fastest engine: the long run of
    # its studies (``Study.long_settings``: the Stop walk's and the Stop benchmark's); a game whose engine plays
    # millions of games a second declares more
    long_games: int = 2_000_000
    # display names of a parameter's choices: {param: "module:function() -> {value: name}"} (read from the data)
    choice_names: dict[str, str] = {}  # a declaration, never mutated
    # columns of the game's tables whose values are keys of a parameter with choice_names: {column: param}
    # (Babylon's "deck" and "opponent" hold deck keys); every shown table then reads them by display name
    value_columns: dict[str, str] = {}  # a declaration, never mutated
    simultaneous: bool = False  # True when decisions are simultaneous nodes (current_player returns tuples)
    # studies, commands and report: declarations, or "module:NAME" strings imported only when asked for
    studies: tuple[Any, ...] | str = ()  # core.studies.study.Study declarations (core adds the generic ones)
    commands: tuple[Any, ...] | str = ()  # core.studies.study.Command declarations (game-specific CLI commands)
    report: str | None = None  # "module:function" writing the game's report, or None: core's generic one
    # readings: names of parameters whose values are readings of an open text (docs/rules/<game>.md says which);
    # their default is the reading the workbench plays, and core's "readings" study compares the others to it
    readings: tuple[str, ...] = ()
    readings_agents: str = "greedy"  # the lineup the readings study plays (one agent, or one per seat)
    # skill tiers, weakest first: agent specs every seat plays (``("greedy", "greedy@tuned", "search")``); the default
    # of every study, report and page that gives verdicts (core/skill/tiers.py: declared_tiers).  A tier naming a weight
    # set the game does not hold yet is skipped; () means greedy and greedy@tuned where they exist
    tiers: tuple[str, ...] = ()
    # time a game costs at a tier, relative to a fast tier: {spec: cost}; a study plays 1/cost of its games there
    # (a search tier not named here costs core.skill.tiers.SEARCH_COST)
    tier_costs: dict[str, float] = {}  # a declaration, never mutated
    # "module:function(model, params) -> list[core.studies.verdicts.Source]": the balance verdicts the game gives
    # (pairings, battlefields, cost flags...); None: the first seat as set (core/studies/verdicts.py adds the dead
    # cards)
    verdicts: str | None = None

    # -- 3. capabilities (declared here, so a reader sees them all; None / () = the game has none) ---
    engine: CompiledEngine | None = None
    search: SearchHooks | None = None  # the hooks of core's search agent (core/skill/search.py)
    card_table: Any = None  # core.design.cardtable.CardTable or "module:NAME"
    lessons: tuple[Any, ...] | str = ()  # core.studies.study.Study declarations or study names: the teaching page
    text: str | None = None  # module with the playthrough text functions (see :meth:`describe`)
    data_dir: str | Path | None = None  # the game's data folder (weight sets in agents/); None: data/<name>
    # core.design.rebalance.Targets or "module:NAME": balance metrics and edit space (workbench rebalance)
    targets: Any = None

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
            found["text"] = "readable playthroughs (python -m workbench.core.present.playthrough)"
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
        what they need: core's ``search`` (``core/skill/search.py``) needs the ``search`` hooks, ``ismcts`` needs
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
