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
choice and fallback — is written once in ``core/sim/play.py`` and ``core/sim/runner.py``.

Games register themselves: every package ``workbench/games/<name>/`` with a ``model`` module
holding ``MODEL`` is a game named ``<name>``, and the environment variable ``WORKBENCH_GAMES``
adds model modules from elsewhere (comma-separated dotted names, e.g. a plugin or a test game).
Core never imports a game by name.

Where each part is: ``facts`` (parameters, seats, the protocol's constants, the outcome columns), ``agents``
(specs, weight sets, declarations), ``protocol`` (the rules functions a game overrides), ``capabilities``
(compiled engine, search hooks, text and solver hooks), ``game`` (``GameModel``, which joins them),
``registration`` (the registry), ``datafile`` (a game's CSV files) and ``refs`` (``"module:NAME"``
declarations).  Every name is re-exported here, so ``from workbench.core.model import GameModel`` reads
as before.  The package imports only the root modules (``errors``, ``rng``); nothing else in core.
"""

from workbench.core.model.agents import (
    AGENT_PROVIDERS,
    RANDOM_AGENT,
    REPOSITORY,
    WEIGHT_SET_NAME,
    WEIGHT_SETS,
    Agent,
    AgentDecl,
    AgentSpec,
    RandomAgent,
    card_set_hash,
    expand_weight_set,
    load_weight_set,
    shown_path,
    weight_set_names,
    weight_set_path,
)
from workbench.core.model.agents import _split_agents as _split_agents
from workbench.core.model.capabilities import CompiledEngine, GameCapabilities, PerObject, SearchHooks, Variant
from workbench.core.model.facts import (
    AGENT_STREAM_BASE,
    CHANCE,
    FIRST,
    FIRST_STREAM,
    MAX_SEATS,
    OUTCOME_COLUMNS,
    RULES_VERSION_FORMAT,
    SEAT_NAMES,
    TERMINAL,
    Param,
    first_seat,
    seat_name,
    seat_names,
)
from workbench.core.model.game import GameModel
from workbench.core.model.protocol import GameRules
from workbench.core.model.registration import (
    ENV_GAMES,
    GAMES_PACKAGE,
    check_rules_version,
    from_ref,
    game_names,
    get_game,
    model_ref,
    registry,
    value_names,
)

__all__ = [
    "AGENT_PROVIDERS",
    "AGENT_STREAM_BASE",
    "Agent",
    "AgentDecl",
    "AgentSpec",
    "CHANCE",
    "CompiledEngine",
    "ENV_GAMES",
    "FIRST",
    "FIRST_STREAM",
    "GAMES_PACKAGE",
    "GameCapabilities",
    "PerObject",
    "GameModel",
    "GameRules",
    "MAX_SEATS",
    "OUTCOME_COLUMNS",
    "Param",
    "RANDOM_AGENT",
    "REPOSITORY",
    "RULES_VERSION_FORMAT",
    "RandomAgent",
    "SEAT_NAMES",
    "SearchHooks",
    "TERMINAL",
    "Variant",
    "WEIGHT_SETS",
    "WEIGHT_SET_NAME",
    "card_set_hash",
    "check_rules_version",
    "expand_weight_set",
    "first_seat",
    "from_ref",
    "game_names",
    "get_game",
    "load_weight_set",
    "model_ref",
    "registry",
    "seat_name",
    "seat_names",
    "shown_path",
    "value_names",
    "weight_set_names",
    "weight_set_path",
]
