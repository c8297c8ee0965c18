"""Babel's compiled fast path: the same games as the reference engine, whole chunks at a time.

``play_chunk`` turns the agents into integer and float arrays (kind, the random agent's turn cap,
greedy's weights), runs ``kernel.play_games`` over all seeds in one compiled loop and builds
the result frame from flat arrays (the list columns through pyarrow offsets).  Core picks this
engine for the agents the model's ``engine`` declaration names and falls back to the reference loop
for the others (``search``); the conformance parity test and ``tests/games/babel/test_babel_fast.py``
prove the frames equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from workbench.core.model import AgentSpec, Variant
from workbench.core.sim.play import RunawayGame
from workbench.core.sim.results import grown, kernel_frame, list_columns, outcome_codes, padded
from workbench.games.babel import agents as babel_agents
from workbench.games.babel.engine import kernel as K
from workbench.games.babel.results import MAX_ACTIONS_PER_TURN, RESULT_SCHEMA, SEATS, TALLY_COLUMNS
from workbench.games.babel.rules import REASONS, Config

FIRST_MODES = {"p1": K.FIRST_P1, "p2": K.FIRST_P2, "random": K.FIRST_RANDOM}
_CODES = outcome_codes(("", *REASONS))  # reason code 0: still running (never in a finished frame)
_DECLS = {d.name: d for d in babel_agents.DECLS}


_ARRAYS: dict[tuple[AgentSpec, ...], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def agent_arrays(agents: Sequence[AgentSpec]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per seat: the agent kind (``K.AGENT_*``), the random agent's cap and greedy's weights.

    Worked out once per pair of specs (a search asks at every decision); the caller gets copies.
    """
    key = tuple(agents)
    if key not in _ARRAYS:
        if len(_ARRAYS) > 256:
            _ARRAYS.clear()
        _ARRAYS[key] = _agent_arrays(agents)
    return tuple(a.copy() for a in _ARRAYS[key])  # type: ignore[return-value]


def _agent_arrays(agents: Sequence[AgentSpec]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    kinds = np.zeros(2, np.int64)
    caps = np.zeros(2, np.int64)
    weights = np.zeros((2, len(babel_agents.Weights._fields)), np.float64)
    for seat, spec in enumerate(agents):
        agent = _DECLS[spec.name].build(spec)
        if spec.name == "greedy":
            kinds[seat] = K.AGENT_GREEDY
            weights[seat] = tuple(agent.weights)
        elif spec.name == "random":
            kinds[seat] = K.AGENT_RANDOM
            caps[seat] = agent.cap
        else:
            raise ValueError(f"babel fast engine: agent {spec.name!r} has no compiled twin")
    return kinds, caps, weights


def strict_flags(config: Config) -> int:
    """The stricter readings ``config`` plays, as the kernel's ``STRICT_*`` bits (0: the text's readings)."""
    return ((0 if config.universal_small_hand else K.STRICT_UNIVERSAL) | (0 if config.medes_absent else K.STRICT_MEDES)
            | (0 if config.move_in_place else K.STRICT_MOVE) | (0 if config.first_turn_at_end else K.STRICT_FIRST_TURN))


def run_kernel(config: Config, agents: Sequence[AgentSpec], seeds: np.ndarray,
               values_per_game: int = 32) -> tuple[np.ndarray, ...]:
    """The raw kernel output for one chunk: ``res``, ``values`` and their ``offsets`` (``kernel.play_games``).

    ``values`` starts with room for ``values_per_game`` turns a game and grows when it fills up.
    """
    kinds, caps, weights = agent_arrays(agents)
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    n_games = len(seeds)
    max_turns = int(config.max_turns)
    max_steps = max_turns * MAX_ACTIONS_PER_TURN + 10  # model.max_steps
    res = np.zeros((n_games, K.RES_COLS), np.int64)
    values = np.empty((2, max(64, values_per_game * n_games)), np.int64)
    offsets = np.zeros(n_games + 1, np.int64)
    status = np.zeros(1, np.int64)
    s = padded(K.STATE_SIZE, np.int64)
    saved = padded(K.HEADER, np.int64)
    stacks = padded(2 * K.STACK_CAP, np.int64).reshape(2, K.STACK_CAP)
    legal = padded(64, np.int64)
    hist = padded(2 * max_turns, np.int64).reshape(2, max_turns)
    rng = padded(5, np.uint64)
    terms = padded(K.TERM_ROWS * K.TERMS, np.float64).reshape(K.TERM_ROWS, K.TERMS)
    g = 0
    while True:
        g = K.play_games(seeds, g, FIRST_MODES[config.first], int(config.start_hands[0]), int(config.start_hands[1]),
                         bool(config.run_any), bool(config.universal), strict_flags(config), max_turns, max_steps,
                         kinds, caps, weights, res, values, offsets, status, s, saved, stacks, legal, hist, rng, terms)
        if status[0] == K.STATUS_RUNAWAY:
            raise RunawayGame(f"babel: game seed {int(seeds[g])} did not end within {max_steps} steps")
        if status[0] == K.STATUS_NO_ACTION:
            raise RuntimeError(f"babel: game seed {int(seeds[g])}: a seat must act but has no legal action")
        if g == n_games:
            return res, values, offsets
        # the values buffer is full: grow it to what the games so far suggest, then go on
        values = grown(values, int(offsets[g]), g, n_games, extra=max_turns)


def play(config: Config, params: dict[str, Any], agents: Sequence[AgentSpec], seeds: np.ndarray) -> pl.DataFrame:
    """The model's declared compiled engine (``CompiledEngine.play``): :func:`play_chunk`."""
    return play_chunk(config, agents, seeds)


def play_chunk(config: Config, agents: Sequence[AgentSpec], seeds: np.ndarray) -> pl.DataFrame:
    """One result row per seed, equal to the reference engine's ``rows_to_frame`` of the same games."""
    res, values, offsets = run_kernel(config, agents, seeds)
    n_games = len(res)
    outcome = {"winner": res[:, K.RES_WINNER], "reason": res[:, K.RES_REASON], "length": res[:, K.RES_LENGTH],
               "first_seat": res[:, K.RES_FIRST]}
    cols: dict[str, Any] = {"end_phase": res[:, K.RES_END_PHASE].astype(bool)}
    turns = np.diff(offsets)
    values_by_seat = list_columns(values[:, :offsets[-1]].reshape(-1), np.stack([turns, turns]))
    first = [K.RES_SEAT + seat * K.SEAT_COLS + K.SEAT_TEMPLES for seat in range(2)]  # each seat's temple columns
    temples = np.stack([res[:, f:f + K.N] for f in first])
    temples_by_seat = list_columns(temples.reshape(-1), np.full((2, n_games), K.N))
    for seat, name in enumerate(SEATS):
        b = K.RES_SEAT + seat * K.SEAT_COLS
        cols[f"value_{name}"] = res[:, b + K.SEAT_VALUE]
        cols[f"values_{name}"] = values_by_seat[seat]
        cols[f"hand_{name}"] = res[:, b + K.SEAT_HAND]
        cols[f"temples_{name}"] = temples_by_seat[seat]
        for t, column in enumerate(TALLY_COLUMNS):
            cols[f"{column}_{name}"] = res[:, b + K.SEAT_TALLIES + t]
    return kernel_frame(_CODES, outcome, cols, RESULT_SCHEMA)


# -- the parity table (core's harness plays every row on both engines: tests/test_parity.py) -------------------
# Both start-hand variants, both run detections, the universal ability off, dealt hands overridden (0 and 20 cards
# included), first seat p1 / p2 / random and a short turn limit, the stricter readings of the text (all four as the
# code played them before babel-2, and each group alone), each with random vs random, greedy vs greedy and greedy vs
# random in both seatings; then agent options (custom greedy weights, random turn caps).
_RULES = {
    "default": {},
    "5/5": {"start_hands": "5/5"},
    "top-runs": {"run_detection": "top", "first": "p1"},
    "no-universal": {"universal": False, "first": "p2"},
    "hands-0-20": {"hand_start": 0, "hand_other": 20, "first": "p1"},
    "hands-9-2-top": {"start_hands": "5/5", "hand_start": 9, "hand_other": 2, "run_detection": "top"},
    "hands-20-20": {"hand_start": 20, "hand_other": 20, "universal": False},
    "short": {"max_turns": 6, "first": "p2"},
    "strict": {"universal_small_hand": "refused", "medes_absent_nation": "refused", "move_same_site": "refused",
               "first_turn_check": "every_action"},
    "strict-first-turn": {"first_turn_check": "every_action", "first": "p2", "hand_start": 0, "hand_other": 1},
    "strict-no-effect": {"universal_small_hand": "refused", "medes_absent_nation": "refused",
                         "move_same_site": "refused", "hand_start": 1, "hand_other": 0, "first": "p1"},
    "text-small-hands": {"hand_start": 0, "hand_other": 0, "first": "p1"},
}
_CUSTOM_GREEDY = "greedy:value=2,potential=8,pawn=0.5,threat=6,runs=4,hand=1.5,variety=-1"
_OPTIONS = (("default", f"{_CUSTOM_GREEDY},random:cap=3"), ("top-runs", "random:cap=40,greedy:value=-3,hand=-0.3"),
            ("5/5", f"greedy:variety=0,threat=0,runs=0,{_CUSTOM_GREEDY}"))
VARIANTS: tuple[Variant, ...] = (
    *(Variant(f"{name} {agents}", params, agents) for name, params in _RULES.items()
      for agents in ("random,random", "greedy,greedy", "greedy,random", "random,greedy")),
    *(Variant(f"{name} {agents}", _RULES[name], agents) for name, agents in _OPTIONS),
)


# -- continue from a state: the search's rollouts (core/skill/search.py) -----------------------------------------------
ACTION_INDEX = {tuple(int(x) for x in row): i for i, row in enumerate(K.ACTIONS)}


def encode_state(state: Any) -> np.ndarray:
    """A ``rules.GameState`` of a running game in the kernel's flat encoding (the kernel module's docstring)."""
    s = np.zeros(K.STATE_SIZE, np.int64)
    for seat in range(2):
        s[K.H_HAND + seat * K.N:K.H_HAND + (seat + 1) * K.N] = state.hands[seat]
        s[K.H_START + seat] = state.start_cards[seat]
        s[K.H_PAWN + seat] = state.pawns[seat]
        s[K.H_ANNOUNCED + seat] = state.announced[seat]
        s[K.H_TALLY + seat * K.N_TALLIES:K.H_TALLY + (seat + 1) * K.N_TALLIES] = state.tallies[seat]
        for site in range(K.N):
            stack, temple = state.stacks[seat][site], state.temples[seat][site]
            s[K.H_STACK_LEN + seat * K.N + site] = len(stack)
            at = K.B_STACKS + (seat * K.N + site) * K.STACK_CAP
            s[at:at + len(stack)] = stack
            s[K.H_TEMPLE_LEN + seat * K.N + site] = len(temple)
            at = K.B_TEMPLES + (seat * K.N + site) * K.TEMPLE_CAP
            s[at:at + len(temple)] = temple
        pile = state.temple_stacks[seat]
        s[K.H_TS_LEN + seat] = len(pile)
        s[K.B_TS + seat * K.TS_CAP:K.B_TS + seat * K.TS_CAP + len(pile)] = pile
    for length, body, pile in ((K.H_QUARRY_LEN, K.B_QUARRY, state.quarry), (K.H_DRAW_LEN, K.B_DRAW, state.draw_pile),
                               (K.H_DISCARD_LEN, K.B_DISCARD, state.discard)):
        s[length] = len(pile)
        s[body:body + len(pile)] = pile
    s[K.H_CURRENT], s[K.H_FIRST], s[K.H_TURN] = state.current, state.first, state.turn
    s[K.H_MIGRATED], s[K.H_ACTIONS], s[K.H_PENDING] = int(state.migrated), state.actions, state.pending
    s[K.H_END_PHASE], s[K.H_HISTORY] = int(state.end_phase), len(state.history)
    return s


def _public(state: Any) -> tuple:
    """What two worlds dealt from one view share (the hidden cards are the hands, the draw pile and the quarry)."""
    return (state.start_cards, state.stacks, state.temples, state.temple_stacks, state.discard, state.pawns,
            state.current, state.first, state.turn, state.migrated, state.actions, state.pending, state.end_phase,
            state.announced, state.tallies, len(state.history), len(state.quarry), len(state.draw_pile))


def encode_worlds(worlds: Sequence[Any]) -> np.ndarray:
    """:func:`encode_state` of every world.

    A world sharing the first one's public part (the search's worlds of one view) only has its hidden
    cards written anew.
    """
    out = np.empty((len(worlds), K.STATE_SIZE), np.int64)
    first = worlds[0]
    out[0] = encode_state(first)
    shared = _public(first)
    for i in range(1, len(worlds)):
        world = worlds[i]
        if _public(world) != shared:
            out[i] = encode_state(world)
            continue
        row = out[i]
        row[:] = out[0]
        row[K.H_HAND:K.H_HAND + 2 * K.N] = world.hands[0] + world.hands[1]
        row[K.B_QUARRY:K.B_QUARRY + len(world.quarry)] = world.quarry
        row[K.B_DRAW:K.B_DRAW + len(world.draw_pile)] = world.draw_pile
    return out


def prior(config: Config, view: Any, legal: Sequence[Any], policy: AgentSpec) -> list[float]:
    """``agents.search_prior`` (greedy's score of every legal action) in the kernel: the search's prior."""
    if policy.name == "greedy":
        weights = agent_arrays((policy, policy))[2]
    else:
        weights = np.array([tuple(babel_agents.GreedyAgent().weights)] * 2, np.float64)
    acts = np.array([ACTION_INDEX[tuple(a)] for a in legal], np.int64)
    out = np.zeros(len(acts), np.float64)
    K.action_scores(encode_state(babel_agents.public_world(view)), acts, int(view.me), weights, bool(config.run_any),
                    out, np.zeros(K.HEADER, np.int64), np.zeros((2, K.STACK_CAP), np.int64),
                    np.zeros((K.TERM_ROWS, K.TERMS), np.float64))
    return out.tolist()


def continue_from(config: Config, worlds: Sequence[Any], actions: Sequence[Any], seat: int, policy: AgentSpec,
                  horizon: int, seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(values[world, action], results[world, action])`` of ``kernel.continue_games`` (see there).

    Each world plays each action (a ``rules.Action``, or None: the agents decide), then ``policy`` plays
    both seats, agent ``s`` drawing from stream state ``seeds[world][s]``.
    """
    kinds, caps, weights = agent_arrays((policy, policy))
    ew = weights.copy() if policy.name == "greedy" else np.array([tuple(babel_agents.Weights())] * 2, np.float64)
    worlds_arr = encode_worlds(worlds)
    wrng = np.array([(w.deck_rng, int(seeds[i][0]), int(seeds[i][1])) for i, w in enumerate(worlds)], np.uint64)
    acts = np.array([-1 if a is None else ACTION_INDEX[tuple(a)] for a in actions], np.int64)
    max_turns = int(config.max_turns)
    out = np.zeros((len(worlds), len(acts)), np.float64)
    res = np.zeros((len(worlds), len(acts), K.RES_COLS), np.int64)
    status = np.zeros(1, np.int64)
    K.continue_games(worlds_arr, wrng, acts, int(seat), int(horizon), babel_agents.VALUE_SCALE, kinds, caps, weights,
                     ew, bool(config.run_any), bool(config.universal), strict_flags(config), max_turns,
                     max_turns * MAX_ACTIONS_PER_TURN + 10, out, res, status, padded(K.STATE_SIZE, np.int64),
                     padded(K.HEADER, np.int64), padded(2 * K.STACK_CAP, np.int64).reshape(2, K.STACK_CAP),
                     padded(64, np.int64), padded(2 * max_turns, np.int64).reshape(2, max_turns), padded(5, np.uint64),
                     padded(K.TERM_ROWS * K.TERMS, np.float64).reshape(K.TERM_ROWS, K.TERMS))
    if status[0] != K.STATUS_OK:
        raise RuntimeError(f"babel: a rollout failed (kernel status {int(status[0])})")
    return out, res


def rollouts(config: Config, worlds: Sequence[Any], actions: Sequence[Any], seat: int, policy: AgentSpec,
             horizon: int, seeds: np.ndarray) -> np.ndarray:
    """The search's compiled rollouts (``SearchHooks.rollout``): ``values[world, action]`` for ``seat``."""
    return continue_from(config, worlds, actions, seat, policy, horizon, seeds)[0]
