"""OpenSpiel bridge: any game on the protocol as a ``pyspiel`` Python game, and IS-MCTS as an agent.

Optional extra: ``pip install 'workbench[openspiel]'``; ``pyspiel`` is imported only when a game is
registered or an agent acts, with an :class:`InputError` naming the install command.

**The game.**  :func:`register` (or :func:`load`) registers a model as ``workbench_<name>`` with a
``GameType``/``GameInfo`` built from its declarations; every declared parameter is an OpenSpiel
parameter (an optional one is a string, ``"none"`` or its value), plus ``seed`` and ``seed_bytes``.
The protocol maps one to one:

=====================================  ==============================================================
protocol (``core/model/``)           OpenSpiel
=====================================  ==============================================================
``current_player`` seat / CHANCE /     the seat / ``CHANCE`` / ``TERMINAL``; in a game declared (or
TERMINAL / tuple of seats              probed) simultaneous every decision is a ``SIMULTANEOUS`` node,
                                       the seats not in the tuple having one legal no-op (id 0)
``legal_actions``                      ids ``0..k-1``: the id is the *index* into the protocol's stably
                                       ordered ``legal_actions`` (see below)
``chance_outcomes``                    explicit chance node; outcome id = index into that list
                                       (zero-probability outcomes left out)
``apply`` (joint tuple at a            ``_apply_action`` / ``_apply_actions``
simultaneous node)
``returns``                            ``returns()`` (zeros before the end; terminal reward model)
``observation``                        ``observation_string`` = the seat's current observation;
                                       ``information_state_string`` = its perfect-recall history
=====================================  ==============================================================

Strings are ``repr`` of the protocol's values, so observations must be values (tuples, named
tuples, numbers), as every game's are: equal observations, equal strings.

*Action ids.*  Game action spaces here are not small fixed alphabets (a duel action is "play or
discard hand slot i", whose card changes every turn), so an id means "the k-th legal action in
this state".  Every OpenSpiel algorithm keys actions by information state, and the legal actions
are a function of what the acting seat sees, so an id is unambiguous wherever it is used.
``num_distinct_actions`` must bound every id: it is the model's ``max_legal_actions(config)``.

*Information states.*  A seat's information state string is the list of what it learned at each
step since the root: its own action (if it acted), the step's public record (default: the joint
action of a simultaneous node — the cards are revealed — and nothing for a single seat's move or
a chance outcome; a game overrides ``public_record``), and its observation after the step.  So it
holds nothing a seat may not see, and has perfect recall, as CFR and the sequence-form LP need.

*Hidden randomness.*  A game that keeps its randomness inside the state (the duel's deck stream,
consumed inside ``apply``) is deterministic once dealt, so all of its hidden randomness is the game
seed.  The adapter draws it as ``seed_bytes`` explicit chance nodes of 256 outcomes (one byte each,
nobody observes them): the drawn integer ``i`` starts the game with the game seed of game index
``i`` of master seed ``seed`` (``core/sim/seeding.py``), i.e. exactly game ``i`` of ``simulate(..., seed=
seed)``.  ``seed_bytes=-1`` (auto) uses 4 bytes when ``initial_state`` depends on the seed and 0
(one fixed game) when it does not (the die game).  Chance nodes that a game declares (the duel's
timer, the toy's coin) stay explicit chance nodes with their probabilities.  Nothing of the seed
reaches an information state; only a seat's observations do.

*Resampling.*  The exact posterior over seeds given an information state is intractable, so
``resample_from_infostate`` uses the game's own determinisation (``determinise``): a full state
consistent with the seat's *current* observation, hidden parts (the enemy hand, the deck order,
the random streams) drawn afresh — the posterior as if past observations carried no extra
evidence.  The resampled state keeps the seat's information state string, so IS-MCTS can check it.

*Solvers.*  OpenSpiel's algorithms run on these games directly (C++ ones call back into Python at
every node, ~40 µs).  For exact solving of small games, :func:`subgame` roots a game at any
protocol state and :func:`to_efg` writes the tree as Gambit EFG text, which
``pyspiel.load_efg_game`` turns into a native copy that C++ CFR sweeps at full speed.

**The agent.**  :class:`ISMCTSAgent` (``ismcts:budget=N``) runs OpenSpiel's IS-MCTS
(``open_spiel.python.algorithms.ismcts``) from the seat's observation alone: each simulation starts
in a fresh determinisation of that observation; the information state strings start at that
decision.  All its randomness comes from the seat's ``rng``.

**Hooks.**  The adapter reads the model's declarations for search and solvers (``core/model/``):
``simultaneous``, ``max_legal_actions(config)`` and ``max_chance_outcomes(config)`` (a model that
does not declare them is probed with random games — the maxima seen, not a proof, so a larger
count met later raises an error instead of a wrong id), ``returns_bounds(config)``,
``public_record(config, state, who, action)`` and ``determinise(config, observation, rng) ->
(seat, state)`` (without it a game gets no ``ismcts`` agent).
"""

from __future__ import annotations

import functools
import importlib.util
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from workbench.core.errors import InputError
from workbench.core.model import CHANCE, TERMINAL, AgentDecl, AgentSpec, GameModel, Param, PerObject, get_game
from workbench.core.rng import SplitMix64
from workbench.core.sim.seeding import game_seed

INSTALL = "pip install 'workbench[openspiel]'"
PREFIX = "workbench_"  # OpenSpiel short name: workbench_<game>
SEED_OUTCOMES = 256  # one seed-drawing chance node draws one byte of the game index
AUTO = -1  # seed_bytes: 4 when the start depends on the seed, else 0
PROBE_GAMES = 16  # random games played to probe what a model does not declare
SEARCH_LENGTH = 10**6  # max_game_length of a search game (built from a config, without parameters)


def spiel() -> Any:
    """The ``pyspiel`` module, or an :class:`InputError` saying what to install."""
    try:
        import pyspiel
    except ImportError:
        raise InputError(f"the OpenSpiel bridge needs the open-spiel package: {INSTALL}") from None
    return pyspiel


# -- what the adapter needs to know about a model -------------------------------------------------
_MISSING = object()


def _hook(model: GameModel, name: str, *args: Any) -> Any:
    """``model.name(*args)``, or ``_MISSING`` where the model does not declare it."""
    fn = getattr(model, name, None)
    if callable(fn):
        try:
            return fn(*args)
        except NotImplementedError:
            pass
    return _MISSING


def public_record(model: GameModel, config: Any, state: Any, who: Any, action: Any) -> Any:
    """What every seat learns of a step besides its next observation (the model's ``public_record``)."""
    return model.public_record(config, state, who, action)


def determinise(model: GameModel, config: Any, observation: Any, rng: SplitMix64) -> tuple[int, Any]:
    """``(seat, state)``: a full state consistent with ``observation``, its hidden parts drawn from ``rng``."""
    out = _hook(model, "determinise", config, observation, rng)
    if out is _MISSING:
        raise InputError(f"{model.name}: the game declares no determinise(config, observation, rng), so search "
                         "agents cannot plan from a seat's observation")
    return out


def can_determinise(model: GameModel) -> bool:
    """True when the model implements ``determinise`` (core's default raises NotImplementedError)."""
    return getattr(type(model), "determinise", None) is not GameModel.determinise


@dataclass(frozen=True)
class Facts:
    """What OpenSpiel's ``GameType``/``GameInfo`` need, for one config."""

    players: int
    simultaneous: bool
    max_actions: int
    max_chance: int  # 0: the game has no chance nodes of its own
    seeded: bool  # initial_state depends on the game seed
    min_return: float
    max_return: float
    return_sum: float | None  # the constant sum of returns, or None when it varies
    probed: tuple[str, ...]  # which of these were probed rather than declared


@dataclass
class _Probe:
    simultaneous: bool = False
    max_actions: int = 0
    max_chance: int = 0
    low: float = math.inf
    high: float = -math.inf
    sums: set[float] = field(default_factory=set)  # distinct sums of the returns


def _probe(model: GameModel, config: Any) -> _Probe:
    """Play ``PROBE_GAMES`` random games through the protocol and record what they showed."""
    from workbench.core.model import RandomAgent
    from workbench.core.sim.play import step

    seen = _Probe()
    n = model.players(config)
    agents = [RandomAgent()] * n
    for i in range(PROBE_GAMES):
        seed = game_seed(0, i)
        state = model.initial_state(config, seed)
        rngs = [SplitMix64.for_stream(seed, 9000 + s) for s in range(n)]
        for _ in range(SEARCH_LENGTH):
            who = model.current_player(config, state)
            if who == TERMINAL:
                break
            if who == CHANCE:
                seen.max_chance = max(seen.max_chance, len(model.chance_outcomes(config, state)))
            else:
                seats = who if isinstance(who, tuple) else (who,)
                seen.simultaneous |= isinstance(who, tuple)
                seen.max_actions = max(seen.max_actions, *(len(model.legal_actions(config, state, s)) for s in seats))
            _, _, state = step(model, config, state, agents, rngs)
        ret = model.returns(config, state)
        seen.low, seen.high = min(seen.low, *ret), max(seen.high, *ret)
        seen.sums.add(round(sum(ret), 9))
    return seen


_FACTS = PerObject(64)  # per model and config object


def facts(model: GameModel, config: Any) -> Facts:
    """The model's declarations for ``config``, with fallbacks and probes where it has none (cached)."""
    return _FACTS.get(config, lambda: _facts(model, config), model.name)


def _facts(model: GameModel, config: Any) -> Facts:
    probe: _Probe | None = None
    probed: list[str] = []

    def probed_value(name: str) -> _Probe:
        nonlocal probe
        probed.append(name)
        if probe is None:
            probe = _probe(model, config)
        return probe

    simultaneous = getattr(model, "simultaneous", None)
    if not isinstance(simultaneous, bool):
        simultaneous = probed_value("simultaneous").simultaneous
    max_actions = _hook(model, "max_legal_actions", config)
    if max_actions is _MISSING:
        max_actions = probed_value("max_legal_actions").max_actions
    max_chance = _hook(model, "max_chance_outcomes", config)
    if max_chance is _MISSING:
        max_chance = probed_value("max_chance_outcomes").max_chance
    bounds = _hook(model, "returns_bounds", config)
    if bounds is _MISSING:
        p = probed_value("returns_bounds")
        bounds = (min(-1.0, p.low), max(1.0, p.high), next(iter(p.sums)) if len(p.sums) == 1 else None)
    first = model.initial_state(config, game_seed(0, 0))
    seeded = any(model.initial_state(config, game_seed(0, i)) != first for i in range(1, 16))
    return Facts(model.players(config), simultaneous, int(max_actions), int(max_chance), seeded,
                 float(bounds[0]), float(bounds[1]), None if bounds[2] is None else float(bounds[2]), tuple(probed))


# -- the adapter: positions and what each seat knows (no pyspiel here) ----------------------------
_SEED = "seed"  # ``who`` of a seed-drawing step


class _Node:
    """One position: the protocol state and the step that led to it.  Shared by clones (immutable)."""

    __slots__ = ("parent", "who", "action", "state", "digits", "info", "cache")

    def __init__(self, parent: _Node | None, who: Any, action: Any, state: Any, digits: tuple[int, ...]) -> None:
        self.parent, self.who, self.action, self.state, self.digits = parent, who, action, state, digits
        self.info: dict[int, str] = {}  # information state strings asked for here (a cache)
        self.cache: dict[Any, Any] = {}  # current player, legal actions, chance outcomes

    def __deepcopy__(self, memo: dict) -> _Node:
        return self


class Adapter:
    """The protocol seen as OpenSpiel sees it, for one model and config (shared by a game's states)."""

    def __init__(self, model: GameModel, config: Any, fact: Facts, seed_bytes: int, master_seed: int,
                 start: Any = None) -> None:
        self.model, self.config, self.facts = model, config, fact
        self.seed_bytes, self.master_seed = seed_bytes, master_seed
        self._start = start  # the start when nothing is drawn (pyspiel's clone asks for a root each time)

    def __deepcopy__(self, memo: dict) -> Adapter:
        return self

    def root(self) -> _Node:
        """The start: seed-drawing chance nodes, or the game at once when nothing is drawn."""
        if self.seed_bytes:
            return _Node(None, None, None, None, ())
        if self._start is None:
            self._start = self.model.initial_state(self.config, game_seed(self.master_seed, 0))
        return self.at(self._start)

    def at(self, state: Any) -> _Node:
        """A root node at the protocol state ``state`` (search roots, resampled worlds)."""
        return _Node(None, None, None, state, ())

    # -- whose turn and what can happen ---------------------------------------------------------
    def who(self, node: _Node) -> Any:
        """Protocol ``current_player``, or ``_SEED`` while the seed is being drawn."""
        if node.state is None:
            return _SEED
        if "who" not in node.cache:
            node.cache["who"] = self.model.current_player(self.config, node.state)
        return node.cache["who"]

    def acting(self, node: _Node) -> tuple[int, ...]:
        """Seats that choose an action now."""
        who = self.who(node)
        if isinstance(who, tuple):
            return who
        return () if who in (_SEED, CHANCE, TERMINAL) else (who,)

    def legal(self, node: _Node, seat: int) -> Sequence[Any]:
        """The protocol's legal actions of ``seat`` (an acting seat), bounded by ``max_legal_actions``."""
        key = ("legal", seat)
        if key not in node.cache:
            legal = self.model.legal_actions(self.config, node.state, seat)
            if len(legal) > self.facts.max_actions:
                raise RuntimeError(f"{self.model.name}: {len(legal)} legal actions exceed num_distinct_actions = "
                                   f"{self.facts.max_actions} (declare max_legal_actions(config) on the model)")
            node.cache[key] = legal
        return node.cache[key]

    def chance(self, node: _Node) -> list[tuple[int, Any, float]]:
        """``(id, outcome, probability)`` of a chance node, zero-probability outcomes left out."""
        if node.state is None:
            return [(d, d, 1.0 / SEED_OUTCOMES) for d in range(SEED_OUTCOMES)]
        if "chance" not in node.cache:
            outcomes = self.model.chance_outcomes(self.config, node.state)
            if len(outcomes) > max(self.facts.max_chance, 1):
                raise RuntimeError(f"{self.model.name}: {len(outcomes)} chance outcomes exceed max_chance_outcomes = "
                                   f"{self.facts.max_chance} (declare max_chance_outcomes(config) on the model)")
            node.cache["chance"] = [(i, o, float(p)) for i, (o, p) in enumerate(outcomes) if p > 0]
        return node.cache["chance"]

    # -- steps ----------------------------------------------------------------------------------
    def step(self, node: _Node, action_id: int) -> _Node:
        """The node after a chance outcome or a single seat's action id."""
        who = self.who(node)
        if who == _SEED:
            digits = node.digits + (int(action_id),)
            if len(digits) < self.seed_bytes:
                return _Node(node, _SEED, int(action_id), None, digits)
            index = int.from_bytes(bytes(digits), "big")
            state = self.model.initial_state(self.config, game_seed(self.master_seed, index))
            return _Node(node, _SEED, int(action_id), state, digits)
        if who == CHANCE:
            outcome = {i: o for i, o, _ in self.chance(node)}[int(action_id)]
            return _Node(node, CHANCE, outcome, self.model.apply(self.config, node.state, outcome), node.digits)
        if isinstance(who, tuple) or who == TERMINAL:
            raise RuntimeError(f"{self.model.name}: a single action applied at a node where {who!r} acts")
        action = self.legal(node, who)[int(action_id)]
        return _Node(node, who, action, self.model.apply(self.config, node.state, action), node.digits)

    def step_joint(self, node: _Node, action_ids: Sequence[int]) -> _Node:
        """The node after a simultaneous node: one id per seat (the no-op 0 for seats not acting)."""
        who = self.who(node)
        seats = self.acting(node)
        if not seats:
            raise RuntimeError(f"{self.model.name}: joint actions applied where nobody acts ({who!r})")
        joint = tuple(self.legal(node, s)[int(action_ids[s])] for s in seats)
        action = joint if isinstance(who, tuple) else joint[0]
        return _Node(node, who, action, self.model.apply(self.config, node.state, action), node.digits)

    # -- what a seat sees -----------------------------------------------------------------------
    def terminal(self, node: _Node) -> bool:
        """True when the game is over."""
        return self.who(node) == TERMINAL

    def observation_string(self, node: _Node, seat: int) -> str:
        """The seat's current observation (imperfect recall)."""
        if node.state is None:
            return "dealing"
        if self.terminal(node):
            return "end"
        return repr(self.model.observation(self.config, node.state, seat))

    def entry(self, node: _Node, seat: int) -> str:
        """What ``seat`` learned at the step into ``node`` (at a root: its first observation)."""
        if node.who == _SEED:
            return "?" if node.state is None else "dealt: " + self.observation_string(node, seat)
        parts = []
        if node.parent is not None:
            acted = node.parent.state is not None and seat in self.acting(node.parent)
            if acted:
                own = node.action[self.acting(node.parent).index(seat)] if isinstance(node.who, tuple) else node.action
                parts.append(f"you: {own!r}")
            public = public_record(self.model, self.config, node.parent.state, node.who, node.action)
            if public is not None:
                parts.append(f"all: {public!r}")
        parts.append(self.observation_string(node, seat))
        return " | ".join(parts)

    def info_string(self, node: _Node, seat: int) -> str:
        """The seat's information state: what it learned at every step since the root, one line each."""
        chain, n = [], node
        while n is not None and seat not in n.info:
            chain.append(n)
            n = n.parent
        lines = [] if n is None else [n.info[seat]]
        lines.extend(self.entry(m, seat) for m in reversed(chain))
        node.info[seat] = "\n".join(lines)
        return node.info[seat]

    def returns(self, node: _Node) -> list[float]:
        """Each seat's return at the end, zeros before."""
        if node.state is None or not self.terminal(node):
            return [0.0] * self.facts.players
        return [float(r) for r in self.model.returns(self.config, node.state)]

    def action_string(self, node: _Node, player: int, action_id: int) -> str:
        """A readable action: the protocol action's repr, a seed byte or a chance outcome."""
        who = self.who(node)
        if who == _SEED:
            return f"seed byte {len(node.digits) + 1}: {action_id}"
        if who == CHANCE:
            return repr({i: o for i, o, _ in self.chance(node)}.get(int(action_id), action_id))
        if player not in self.acting(node):
            return "pass"
        return repr(self.legal(node, player)[int(action_id)])


# -- pyspiel classes (built on first use, so importing this module needs no pyspiel) --------------
def _param_spec(model: GameModel) -> dict[str, Any]:
    """OpenSpiel parameters: every model parameter (optional ones as strings) plus seed and seed_bytes."""
    spec: dict[str, Any] = {}
    for p in model.params:
        if p.optional or p.default is None:
            spec[p.name] = "none" if p.default is None else str(p.default)
        else:
            spec[p.name] = p.kind(p.default)
    spec["seed"] = 0
    spec["seed_bytes"] = AUTO
    return spec


def _to_spiel(model: GameModel, params: dict[str, Any] | None) -> dict[str, Any]:
    """User parameters converted to the declared OpenSpiel types (an int for a float parameter, None, ...)."""
    spec = _param_spec(model)
    out = {}
    for key, value in (params or {}).items():
        if key not in spec:
            raise InputError(f"{model.name}: unknown parameter {key!r}; allowed: {', '.join(spec)}")
        default = spec[key]
        if isinstance(default, str):
            out[key] = "none" if value is None else str(value)
        elif isinstance(default, bool):
            out[key] = bool(value)
        else:
            out[key] = type(default)(value)
    return out


def _game_type(model: GameModel, fact: Facts, stochastic: bool) -> Any:
    pyspiel = spiel()
    T = pyspiel.GameType
    if fact.players == 2 and fact.return_sum == 0.0:
        utility = T.Utility.ZERO_SUM
    elif fact.return_sum is not None:
        utility = T.Utility.CONSTANT_SUM
    else:
        utility = T.Utility.GENERAL_SUM
    return T(short_name=PREFIX + model.name, long_name=f"workbench {model.title or model.name}",
             dynamics=T.Dynamics.SIMULTANEOUS if fact.simultaneous else T.Dynamics.SEQUENTIAL,
             chance_mode=T.ChanceMode.EXPLICIT_STOCHASTIC if stochastic else T.ChanceMode.DETERMINISTIC,
             information=T.Information.IMPERFECT_INFORMATION, utility=utility,
             reward_model=T.RewardModel.TERMINAL, max_num_players=model.max_players,
             min_num_players=model.min_players, provides_information_state_string=True,
             provides_information_state_tensor=False, provides_observation_string=True,
             provides_observation_tensor=False, parameter_specification=_param_spec(model))


@functools.cache
def _classes() -> Any:
    """``(Game, State, Observer)``: the pyspiel subclasses (defined once pyspiel is importable)."""
    pyspiel = spiel()
    P = pyspiel.PlayerId

    class Observer:
        """A seat's view: its observation (imperfect recall) or information state (perfect recall)."""

        def __init__(self, iig_obs_type: Any = None, params: Any = None) -> None:
            if params:
                raise ValueError(f"observation parameters are not supported: {params}")
            kind = iig_obs_type
            if kind is not None and kind.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
                raise ValueError("the workbench bridge offers only a seat's own view (private_info=SINGLE_PLAYER)")
            self.perfect_recall = bool(kind is not None and kind.perfect_recall)
            self.tensor = np.zeros(0, np.float32)
            self.dict: dict[str, Any] = {}

        def set_from(self, state: Any, player: int) -> None:
            """No tensors: the protocol's observations are values, not arrays."""

        def string_from(self, state: Any, player: int) -> str:
            """The seat's information state or observation string."""
            a: Adapter = state._adapter
            if self.perfect_recall:
                return a.info_string(state._node, player)
            return a.observation_string(state._node, player)

    class Game(pyspiel.Game):
        """A workbench model with resolved parameters as an OpenSpiel game (see the module docstring)."""

        def __init__(self, params: dict[str, Any] | None = None, *, model: GameModel, config: Any = None,
                     start: Any = None) -> None:
            params = dict(params or {})
            if config is None:  # a registered game: parameters → config
                spec = {**_param_spec(model), **params}
                resolved = model.resolve_params({p.name: spec[p.name] for p in model.params})
                config = model.make_config(resolved)
                length = model.max_steps(resolved)
                params = spec
            else:  # a game built from a config (search, subgames): no parameters, no seed nodes
                params, length = {}, SEARCH_LENGTH
            fact = facts(model, config)
            seed_bytes = int(params.get("seed_bytes", 0))
            if seed_bytes == AUTO:
                seed_bytes = 4 if fact.seeded else 0
            if not 0 <= seed_bytes <= 8:
                raise InputError(f"seed_bytes must be -1 (auto) or 0..8, got {seed_bytes}")
            self._adapter = Adapter(model, config, fact, seed_bytes, int(params.get("seed", 0)), start)
            stochastic = seed_bytes > 0 or fact.max_chance > 0
            info = pyspiel.GameInfo(
                num_distinct_actions=max(1, fact.max_actions),
                max_chance_outcomes=max(SEED_OUTCOMES if seed_bytes else 0, fact.max_chance),
                num_players=fact.players, min_utility=fact.min_return, max_utility=fact.max_return,
                utility_sum=fact.return_sum, max_game_length=length + seed_bytes)
            super().__init__(_game_type(model, fact, stochastic), info, params)

        @property
        def adapter(self) -> Adapter:
            """The protocol mapping shared by this game's states."""
            return self._adapter

        def new_initial_state(self) -> Any:
            """The root: seed-drawing chance nodes, or the game's start."""
            return State(self, self._adapter.root())

        def state_at(self, protocol_state: Any) -> Any:
            """A state at a given protocol position; information states start there."""
            return State(self, self._adapter.at(protocol_state))

        def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
            """Observation strings (imperfect recall) or information state strings (perfect recall)."""
            return Observer(iig_obs_type, params)

    class State(pyspiel.State):
        """A position of a workbench game; all protocol values live in a shared immutable node."""

        def __init__(self, game: Game, node: _Node) -> None:
            super().__init__(game)
            self._adapter = game.adapter
            self._node = node

        @property
        def protocol_state(self) -> Any:
            """The workbench state (None while the seed is being drawn)."""
            return self._node.state

        def current_player(self) -> int:
            """A seat, CHANCE, TERMINAL, or SIMULTANEOUS in a simultaneous game."""
            a = self._adapter
            who = a.who(self._node)
            if who == _SEED or who == CHANCE:
                return int(P.CHANCE)
            if who == TERMINAL:
                return int(P.TERMINAL)
            if a.facts.simultaneous:
                return int(P.SIMULTANEOUS)
            if isinstance(who, tuple):
                if len(who) != 1:
                    raise RuntimeError(f"{a.model.name}: seats {who} act at once but the game is not simultaneous")
                return who[0]
            return who

        def _legal_actions(self, player: int) -> list[int]:
            a = self._adapter
            if player in a.acting(self._node):
                return list(range(len(a.legal(self._node, player))))
            if a.facts.simultaneous and not a.terminal(self._node) and a.who(self._node) not in (_SEED, CHANCE):
                return [0]  # the no-op of a seat that does not act at this simultaneous node
            return []

        def chance_outcomes(self) -> list[tuple[int, float]]:
            """Outcome ids and probabilities."""
            return [(i, p) for i, _, p in self._adapter.chance(self._node)]

        def _apply_action(self, action: int) -> None:
            self._node = self._adapter.step(self._node, action)

        def _apply_actions(self, actions: Sequence[int]) -> None:
            self._node = self._adapter.step_joint(self._node, actions)

        def _action_to_string(self, player: int, action: int) -> str:
            return self._adapter.action_string(self._node, player, action)

        def is_terminal(self) -> bool:
            """True when the game is over."""
            return self._adapter.terminal(self._node)

        def returns(self) -> list[float]:
            """Each seat's return (zeros before the end)."""
            return self._adapter.returns(self._node)

        def resample_from_infostate(self, player: int, sampler: Any) -> State:
            """A state ``player`` cannot tell from this one: the game's determinisation of its observation."""
            a, node = self._adapter, self._node
            if node.state is None or a.terminal(node):
                return self.clone()
            rng = SplitMix64(int(sampler() * 2.0**53))
            observation = a.model.observation(a.config, node.state, player)
            _, world = determinise(a.model, a.config, observation, rng)
            root = a.at(world)
            root.info[player] = a.info_string(node, player)
            return State(self.get_game(), root)

        def __str__(self) -> str:
            node = self._node
            return f"dealing {node.digits}" if node.state is None else repr(node.state)

    return Game, State, Observer


# -- registering and loading ----------------------------------------------------------------------
_FACTORIES: dict[str, Any] = {}  # kept alive: pyspiel must not release a factory at interpreter exit


def _outlive_interpreter(obj: Any) -> None:
    """Hold one reference to ``obj`` that is never released, not even when Python shuts down.

    pyspiel keeps a registered factory in a C++ registry that is destroyed after the interpreter
    has finalised; if that registry dropped the last reference, Python would free the factory
    with no thread state ("Fatal Python error: PyThreadState_Get … finalizing").  A module-level
    dict is not enough: finalisation clears module dicts first.  One leaked reference per
    registered game (a handful, for the life of the process) keeps the count above zero.
    """
    import ctypes

    ctypes.pythonapi.Py_IncRef(ctypes.py_object(obj))


def register(game: str | GameModel) -> str:
    """Register a model as the OpenSpiel game ``workbench_<name>`` (once) and return that name."""
    pyspiel = spiel()
    model = get_game(game)
    short = PREFIX + model.name
    if short in _FACTORIES:
        return short
    Game, _, _ = _classes()
    config = model.make_config(model.resolve_params())
    fact = facts(model, config)
    game_type = _game_type(model, fact, stochastic=fact.seeded or fact.max_chance > 0)
    _FACTORIES[short] = functools.partial(Game, model=model)
    _outlive_interpreter(_FACTORIES[short])
    pyspiel.register_game(game_type, _FACTORIES[short])
    return short


def register_all() -> list[str]:
    """Register every game of the registry; their OpenSpiel names."""
    from workbench.core.model import game_names

    return [register(name) for name in game_names()]


def load(game: str | GameModel, params: dict[str, Any] | None = None) -> Any:
    """The OpenSpiel game for a workbench game and parameters (``seed``/``seed_bytes`` allowed too)."""
    short = register(game)
    return spiel().load_game(short, _to_spiel(get_game(game), params))


_SEARCH_GAMES = PerObject(16)  # per model and config object


def search_game(model: GameModel, config: Any) -> Any:
    """An OpenSpiel game over ``config`` with no seed nodes, for search from a given state (cached)."""
    return _SEARCH_GAMES.get(config, lambda: _classes()[0](model=model, config=config), model.name)


def subgame(model: GameModel, config: Any, state: Any) -> Any:
    """An OpenSpiel game whose root is the protocol state ``state`` (e.g. a die-game position to solve)."""
    Game, _, _ = _classes()
    return Game(model=model, config=config, start=state)


def to_efg(game: Any) -> str:
    """The whole tree of a small sequential OpenSpiel game as Gambit EFG text.

    The same format as ``open_spiel.python.algorithms.gambit.export_gambit`` (infosets numbered by
    information state string per player), written in linear time; ``pyspiel.load_efg_game`` turns
    it into a native game, so OpenSpiel's C++ solvers sweep it without calling back into Python.
    """
    lines = [f'EFG 2 R "{game}" {{ ' + " ".join(f'"Pl{i}"' for i in range(game.num_players())) + " }"]
    infosets: list[dict[str, int]] = [{} for _ in range(game.num_players())]
    counters = {"t": 0, "c": 0}
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            counters["t"] += 1
            lines.append(f't "" {counters["t"]} "" {{ ' + " ".join(repr(float(r)) for r in state.returns()) + " }")
            continue
        if state.is_chance_node():
            counters["c"] += 1
            outcomes = state.chance_outcomes()
            moves = " ".join(f'"{state.action_to_string(a)}" {p!r}' for a, p in outcomes)
            lines.append(f'c "" {counters["c"]} "" {{ {moves} }} 0')
            actions = [a for a, _ in outcomes]
        else:
            player = state.current_player()
            table = infosets[player]
            number = table.setdefault(state.information_state_string(player), len(table) + 1)
            actions = state.legal_actions()
            moves = " ".join(f'"{state.action_to_string(player, a)}"' for a in actions)
            lines.append(f'p "" {player + 1} {number} "" {{ {moves} }} 0')
        stack.extend(state.child(a) for a in reversed(actions))  # depth first, children in order
    return "\n".join(lines) + "\n"


# -- IS-MCTS as a workbench agent -----------------------------------------------------------------
class _AgentRollouts:
    """An OpenSpiel evaluator: play the protocol state on with one workbench agent in every seat."""

    def __init__(self, agent: Any, rollouts: int, rng: SplitMix64) -> None:
        self.agent, self.rollouts, self.rng = agent, rollouts, rng

    def evaluate(self, state: Any) -> np.ndarray:
        """Mean returns of ``rollouts`` games played to the end from ``state``."""
        from workbench.core.sim.play import step

        a: Adapter = state._adapter
        total = np.zeros(a.facts.players)
        agents, rngs = [self.agent] * a.facts.players, [self.rng] * a.facts.players
        for _ in range(self.rollouts):
            s = state.protocol_state
            for _ in range(SEARCH_LENGTH):
                if a.model.is_terminal(a.config, s):
                    break
                _, _, s = step(a.model, a.config, s, agents, rngs)
            total += np.asarray(a.model.returns(a.config, s), dtype=float)
        return total / self.rollouts

    def prior(self, state: Any) -> list[tuple[int, float]]:
        """Uniform over the legal actions (chance: its probabilities)."""
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions(state.current_player())
        return [(action, 1.0 / len(legal)) for action in legal]


class ISMCTSAgent:
    """OpenSpiel's IS-MCTS from a seat's observation (``ismcts:budget=N``).

    Each of ``budget`` simulations starts in a fresh determinisation of the observation (or one of
    ``worlds`` fixed ones), walks the tree of information states with UCT (constant ``uct``) and
    values a new leaf by ``rollouts`` games played to the end by ``rollout``: ``random`` is
    OpenSpiel's random-rollout evaluator; any other name is one of the game's agents (e.g. ``greedy``)
    playing every seat directly on the protocol.  The most visited action is played.
    """

    name = "ismcts"

    def __init__(self, model: GameModel, budget: int = 200, uct: float = 2.0, rollout: str = "random",
                 rollouts: int = 1, worlds: int = -1) -> None:
        spiel()  # fail now, with the install hint, rather than at the first decision
        if not can_determinise(model):
            raise InputError(f"{model.name}: ismcts needs the game's determinise(config, observation, rng)")
        if getattr(model, "simultaneous", False) is True:
            raise InputError(f"{model.name}: ismcts plays turn-based games; this game has simultaneous moves")
        if worlds == 0 or worlds < -1:
            raise InputError(f"ismcts: worlds must be -1 (a fresh world per simulation) or >= 1, got {worlds}")
        self.model, self.budget, self.uct, self.rollouts, self.worlds = model, budget, uct, rollouts, worlds
        self.rollout = rollout
        if AgentSpec.parse(rollout).name == "ismcts":
            raise InputError("ismcts: the rollout agent cannot be ismcts itself")
        self._rollout_agent = None if rollout == "random" else model.make_agent(rollout)

    def act(self, observation: Any, legal: Sequence[Any], config: Any, rng: SplitMix64) -> Any:
        """Search, then play the most visited action (only one legal action: no search)."""
        if len(legal) == 1:
            return legal[0]
        from open_spiel.python.algorithms import ismcts, mcts

        game = search_game(self.model, config)
        if game.adapter.facts.simultaneous:
            raise InputError(f"{self.model.name}: ismcts plays turn-based games; this game has simultaneous moves")
        worlds = SplitMix64(rng.next_u64())
        seat, world = determinise(self.model, config, observation, worlds)
        root = game.state_at(world)
        if root.current_player() != seat or len(root.legal_actions()) != len(legal):
            raise RuntimeError(f"{self.model.name}: determinise() gave a state where seat {seat} does not have the "
                               f"{len(legal)} legal actions of its observation")
        if self._rollout_agent is None:
            evaluator = mcts.RandomRolloutEvaluator(self.rollouts, np.random.RandomState(rng.next_u64() >> 32))
        else:
            evaluator = _AgentRollouts(self._rollout_agent, self.rollouts, SplitMix64(rng.next_u64()))
        bot = ismcts.ISMCTSBot(game, evaluator, self.uct, self.budget, max_world_samples=self.worlds,
                               random_state=np.random.RandomState(rng.next_u64() >> 32),
                               final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT)
        bot.set_resampler(lambda state, player: game.state_at(
            determinise(self.model, config, observation, worlds)[1]))
        return legal[int(bot.step(root))]


ISMCTS_OPTIONS = (
    Param("budget", 200, int, "simulations per decision", 1, 1_000_000),
    Param("uct", 2.0, float, "UCT exploration constant (returns are in [-1, 1])", 0.0, 100.0),
    Param("rollout", "random", str, "leaf evaluation: random (OpenSpiel's rollouts) or one of the game's agents"),
    Param("rollouts", 1, int, "rollouts per leaf", 1, 1000),
    Param("worlds", -1, int, "determinised worlds per decision (-1: a fresh one per simulation)", -1, 1_000_000),
)


def ismcts_decl(model: GameModel) -> AgentDecl | None:
    """The ``ismcts`` agent declaration for ``model``; None without pyspiel or a determinisation.

    Like a compiled engine without numba, the agent is offered only where it can run, so the
    agent list (``workbench games``) tells what this installation can do.
    """
    if not _installed() or not can_determinise(model):
        return None
    return AgentDecl("ismcts", functools.partial(ISMCTSAgent, model),
                     f"OpenSpiel's IS-MCTS over determinised worlds ({INSTALL})", ISMCTS_OPTIONS)


@functools.lru_cache(maxsize=1)
def _installed() -> bool:
    return importlib.util.find_spec("pyspiel") is not None


def with_ismcts(spec: AgentSpec | str, model: GameModel) -> Any:
    """Build any agent of ``model`` by spec, ``ismcts:...`` included (until core lists it)."""
    spec = spec if isinstance(spec, AgentSpec) else AgentSpec.parse(spec)
    if spec.name == "ismcts" and "ismcts" not in model.agents:
        spiel()
        decl = ismcts_decl(model)
        if decl is None:
            raise InputError(f"{model.name}: ismcts needs the game's determinise(config, observation, rng)")
        return decl.build(spec)
    return model.make_agent(spec)


def describe(game: Any) -> str:
    """One line about an OpenSpiel game made here: its name, players, actions and how facts were found."""
    a: Adapter = game.adapter
    probed = ", ".join(a.facts.probed) or "nothing"
    return (f"{game} — {a.facts.players} players, {game.num_distinct_actions()} action ids, "
            f"seed bytes {a.seed_bytes}, probed: {probed}")


__all__ = ["INSTALL", "ISMCTSAgent", "ISMCTS_OPTIONS", "Adapter", "Facts", "can_determinise", "describe",
           "determinise", "facts", "ismcts_decl", "load", "public_record", "register", "register_all",
           "search_game", "spiel", "subgame", "to_efg", "with_ismcts"]

