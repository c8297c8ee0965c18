"""The duel's compiled fast path: the same games as the reference engine, whole chunks at a time.

``play_chunk`` compiles the parsed card effects into integer tables (once per card set and
variant), runs ``kernel.play_games`` over all seeds in one compiled loop and builds the
result frame from flat arrays.  Core picks this engine for the agents the model's ``engine``
declaration names and falls back to the reference loop for the others; the conformance parity test
and ``tests/games/duel/test_fast.py`` prove the frames equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np
import polars as pl

from workbench.core.model import AgentSpec, PerObject, Variant
from workbench.core.sim.results import grown, kernel_frame, list_columns, outcome_codes, padded
from workbench.core.sim.rng_numba import below as _below
from workbench.core.sim.rng_numba import compiled as _compiled
from workbench.core.sim.rng_numba import next_u64 as _next_u64
from workbench.core.sim.rng_numba import shuffle as _shuffle
from workbench.games.duel import agents as duel_agents
from workbench.games.duel.data import CardSet, load_battlefields
from workbench.games.duel.effects import ADD, CMPS, DAMAGE, SET, STATS, STEAL, SWAP, Effect, Op
from workbench.games.duel.engine import kernel as K
from workbench.games.duel.results import RESULT_SCHEMA, SEATS
from workbench.games.duel.rules import REASONS, Config

_KIND = {ADD: K.K_ADD, DAMAGE: K.K_DAMAGE, SET: K.K_SET, SWAP: K.K_SWAP, STEAL: K.K_STEAL}
_SIDE = {"self": 0, "enemy": 1}
_CODES = outcome_codes(("", *REASONS))  # reason code 0: still running (never in a finished frame)


class Tables(NamedTuple):
    """A card set compiled for the kernel (layouts in ``kernel``'s docstring), each table flat."""

    cards: np.ndarray  # int64[n * CARD_COLS]: card c's columns at CARD_COLS * c
    stmts: np.ndarray  # int64[statements * ST_COLS]
    ops: np.ndarray  # int64[operations * OP_COLS]
    costs: np.ndarray  # float64[n]: the default card values


def _who(who: str, lightning: str, groundwater: str) -> int:
    """An op's target with the variants resolved (``rules.targets``)."""
    if who == "everyone":
        return K.W_ENEMY if lightning == "enemy" else K.W_ALL
    if who == "lower_wall":
        return K.W_LOWER_BOTH if groundwater == "both" else K.W_LOWER_NOBODY
    return {"self": K.W_SELF, "enemy": K.W_ENEMY, "all": K.W_ALL}[who]


def _op_rows(op: Op, lightning: str, groundwater: str) -> list[list[int]]:
    """An op's rows: adds and damage on self, enemy or both (self first) become K_DELTA rows, one per side."""
    if op.kind == SET:  # both sides are self|enemy: stored as sides (seat = me ^ side)
        return [[K.K_SET, _SIDE[op.who], STATS.index(op.stat), 0, _SIDE[op.src_who], STATS.index(op.src_stat)]]
    who = _who(op.who, lightning, groundwater) if op.kind in (ADD, DAMAGE) else K.W_ENEMY
    if op.kind in (ADD, DAMAGE) and who in _DELTA_SIDES:
        return [_delta_row(op, side) for side in _DELTA_SIDES[who]]
    stat = STATS.index(op.stat) if op.stat else 0
    return [[_KIND[op.kind], who, stat, op.amount, 0, 0]]


_DELTA_SIDES = {K.W_SELF: (0,), K.W_ENEMY: (1,), K.W_ALL: (0, 1)}


def _delta_row(op: Op, side: int) -> list[int]:
    """A K_DELTA row (layout in ``kernel``): damage hits the wall up to the amount, then the tower."""
    row = [0] * K.OP_COLS
    row[K.OP_KIND] = K.K_DELTA
    if op.kind == DAMAGE:
        row[K.OP_TARGET], row[K.OP_ABSORB] = 8 * side, 8 * side + 1
        row[K.OP_DELTA], row[K.OP_CAP] = -op.amount, op.amount
    else:  # cap 0: the absorbing slot (the other seat's same statistic) takes nothing and is left as it is
        row[K.OP_TARGET] = 8 * side + STATS.index(op.stat)
        row[K.OP_ABSORB] = row[K.OP_TARGET] ^ 8
        row[K.OP_DELTA] = op.amount
    return row


def _effect_rows(effect: Effect, stmts: list[list[int]], ops: list[list[int]], lightning: str,
                 groundwater: str) -> None:
    for st in effect.statements:
        row = [0] * K.ST_COLS
        if st.cond is not None:
            c = st.cond
            row[K.ST_HASCOND] = 1
            row[K.ST_LSIDE], row[K.ST_LSTAT], row[K.ST_CMP] = _SIDE[c.who], STATS.index(c.stat), CMPS.index(c.cmp)
            if c.rhs_who:
                row[K.ST_RSIDE], row[K.ST_RSTAT] = _SIDE[c.rhs_who], STATS.index(c.rhs_stat)
            else:
                row[K.ST_RSIDE], row[K.ST_RCONST] = -1, c.rhs_const
        row[K.ST_T0] = len(ops)
        for op in st.then:
            ops.extend(_op_rows(op, lightning, groundwater))
        row[K.ST_T1] = row[K.ST_E0] = len(ops)
        for op in st.orelse:
            ops.extend(_op_rows(op, lightning, groundwater))
        row[K.ST_E1] = len(ops)
        stmts.append(row)


def compile_tables(cards: CardSet, lightning: str = "everyone", groundwater: str = "both") -> Tables:
    """The integer tables of a card set under the given variants (cached on the cards' content).

    A card set met lately is found first by identity (:class:`PerObject`): the content cache hashes every card (a
    tuple of about a hundred nested records), and a search asks for the tables at each decision (7 % of its time).
    """
    return _TABLES.get(cards, lambda: _compile(cards.cards, lightning, groundwater), lightning, groundwater)


_TABLES = PerObject(8)


@lru_cache(maxsize=64)
def _compile(cards: tuple, lightning: str, groundwater: str) -> Tables:
    if len(cards) > K.MAX_KEY_CARDS or max((c.cost for c in cards), default=0) > K.MAX_KEY_COST:
        raise ValueError(f"the compiled duel takes at most {K.MAX_KEY_CARDS} cards costing at most {K.MAX_KEY_COST}"
                         f" (this set: {len(cards)} cards, highest cost {max(c.cost for c in cards)})")
    card_rows, stmts, ops = [], [], []
    for card in cards:
        st0, op0 = len(stmts), len(ops)
        _effect_rows(card.effect, stmts, ops, lightning, groundwater)
        simple = all(st.cond is None for st in card.effect.statements)  # then its ops follow each other
        first, last = (op0, len(ops)) if simple else (st0, len(stmts))
        card_rows.append([card.cost, STATS.index(card.resource), card.id, int(card.effect.again),
                          int(card.effect.draw_discard), first, last, int(simple)])
    return Tables(_flat(card_rows, K.CARD_COLS), _flat(stmts, K.ST_COLS), _flat(ops, K.OP_COLS),
                  np.array([float(c.cost) for c in cards], np.float64))


def _flat(rows: list[list[int]], width: int) -> np.ndarray:
    """``rows`` as one int64 array, each row padded with zeros to ``width`` values."""
    out = np.zeros((max(len(rows), 1), width), np.int64)
    for i, row in enumerate(rows):
        out[i, :len(row)] = row
    return out[:len(rows)].reshape(-1)


def _scratch(n: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    """The kernels' scratch: the workspace (``kernel.WS_*``) and the random streams."""
    if h + 2 > K.HAND_STRIDE:
        raise ValueError(f"hand_size {h} is more than the compiled duel allows (at most {K.HAND_STRIDE - 2})")
    return padded(K.workspace_size(n), np.int64), padded(5, np.uint64)


_ARRAYS: dict[tuple[AgentSpec, ...], tuple[np.ndarray, np.ndarray]] = {}


def _agent_arrays(agents: Sequence[AgentSpec]) -> tuple[np.ndarray, np.ndarray]:
    """Per seat the agent kind and greedy's weights (worked out once per pair of specs: a search asks often)."""
    key = tuple(agents)
    found = _ARRAYS.get(key)
    if found is None:
        kinds = np.zeros(2, np.int64)
        weights = np.zeros((2, 6), np.float64)
        for seat, spec in enumerate(agents):
            agent = duel_agents.make_agent(spec)
            if spec.name == "greedy":
                kinds[seat] = K.AGENT_GREEDY
                w = agent.weights
                weights[seat] = (w.tower, w.wall, w.producer, w.resource, w.again, w.discard)
            else:
                kinds[seat] = K.AGENT_RANDOM
        if len(_ARRAYS) > 256:
            _ARRAYS.clear()
        found = _ARRAYS[key] = (kinds, weights)
    return found[0].copy(), found[1].copy()


def run_kernel(config: Config, agents: Sequence[AgentSpec], seeds: np.ndarray, first: str) -> tuple:
    """The raw kernel output for one chunk (see ``kernel.play_games``)."""
    t = compile_tables(config.cards, config.lightning, config.groundwater)
    bf = config.battlefield
    values = np.array(config.card_values, np.float64) if config.card_values else t.costs
    kinds, weights = _agent_arrays(agents)
    first_mode = K.FIRST_RANDOM if first == "random" else SEATS.index(first)
    start = np.array([bf.tower, bf.wall, bf.mines, bf.monasteries, bf.barracks, bf.ore, bf.mana, bf.troops,
                      *config.second_bonus], np.int64)
    w8 = weights[:, [0, 1, 2, 2, 2, 3, 3, 3]].reshape(-1)
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    n_games, n, h = len(seeds), len(t.costs), int(config.hand_size)
    res = np.zeros((n_games, K.RES_COLS), np.int64)
    cap = max(64 * h, 96 * n_games)
    drawn, played = np.empty((2, cap), np.int64), np.empty((2, cap // 2), np.int64)
    offsets = np.zeros((4, n_games + 1), np.int64)
    scratch = _scratch(n, h)
    cursors = scratch[0][K.WS_CURSORS:K.WS_CURSORS + 4]
    g = 0
    while True:
        g = K.play_games(seeds, g, int(first_mode), kinds, weights.reshape(-1), w8, values, t.cards, t.stmts, t.ops,
                         start,
                         int(bf.win_tower), int(bf.win_resources), int(config.deck == "unlimited"), h,
                         int(config.max_turns), float(config.miss_rate), int(config.max_missed_in_row),
                         int(config.thief_rounding == "up"), res, drawn, played, offsets, *scratch)
        if g == n_games:
            return res, drawn, played, offsets
        # an id buffer is nearly full: grow it to what the games so far suggest, then go on
        drawn = grown(drawn, int(cursors[:2].max()), g, n_games)
        played = grown(played, int(cursors[2:].max()), g, n_games)


def play(config: Config, params: dict[str, Any], agents: Sequence[AgentSpec], seeds: np.ndarray) -> pl.DataFrame:
    """The model's declared compiled engine (``CompiledEngine.play``): :func:`play_chunk`."""
    return play_chunk(config, agents, seeds, config.first)


def play_chunk(config: Config, agents: Sequence[AgentSpec], seeds: np.ndarray, first: str) -> pl.DataFrame:
    """One result row per seed, equal to the reference engine's ``rows_to_frame`` of the same games."""
    res, drawn, played, offsets = run_kernel(config, agents, seeds, first)
    outcome = {"winner": res[:, K.RES_WINNER], "reason": res[:, K.RES_REASON], "length": res[:, K.RES_LENGTH],
               "first_seat": res[:, K.RES_FIRST]}
    cols: dict[str, Any] = {}
    for seat, name in enumerate(SEATS):
        for i, stat in enumerate(STATS):
            cols[f"{stat}_{name}"] = res[:, K.RES_STATS + 8 * seat + i]
    for seat, name in enumerate(SEATS):
        cols[f"missed_{name}"] = res[:, K.RES_MISSED + seat]
    ids = list_columns(np.concatenate([drawn[0, :offsets[0, -1]], drawn[1, :offsets[1, -1]],
                                       played[0, :offsets[2, -1]], played[1, :offsets[3, -1]]]), np.diff(offsets))
    for seat, name in enumerate(SEATS):
        cols[f"drawn_{name}"] = ids[seat]
        cols[f"played_{name}"] = ids[2 + seat]
    return kernel_frame(_CODES, outcome, cols, RESULT_SCHEMA)


# -- the parity table (core's harness plays every row on both engines: tests/test_parity.py) -------------------
# Every battlefield x deck type, each under one rules variant (rotating, so every reading meets both deck types),
# with random vs random, greedy vs random in both seatings and greedy vs greedy; custom greedy weights on a quarter
# of the cells; low towers, where both players winning at once (a draw) is common; and hands of 1 and 2 cards.
RULE_VARIANTS = (
    {},
    {"miss_rate": 0.1, "max_missed_in_row": 2},
    {"lightning": "enemy", "groundwater": "nobody", "thief_rounding": "down"},
    {"hand_size": 4, "max_turns": 40, "first": "p2", "second_bonus_wall": 5, "second_bonus_ore": 3},
    {"hand_size": 8, "first": "p1", "miss_rate": 0.02},
    {"max_turns": 25, "miss_rate": 0.3, "max_missed_in_row": 3},
    {"lightning": "enemy", "miss_rate": 0.05, "hand_size": 5, "second_bonus_tower": 4, "second_bonus_mines": 1},
    {"groundwater": "nobody", "thief_rounding": "down", "max_turns": 60, "worst_card": "cost", "miss_rate": 0.1},
)
_CUSTOM_GREEDY = "greedy:tower=1.5,wall=0.8,producer=2.5,resource=0.3,again=0,discard=-0.5"


def _variants() -> tuple[Variant, ...]:
    cells = [(b, d) for b in load_battlefields() for d in ("regular", "unlimited")]
    rows = []
    for i, (battlefield, deck) in enumerate(cells):
        greedy = _CUSTOM_GREEDY if i % 4 == 1 else "greedy"
        for agents in ("random,random", f"{greedy},random", f"random,{greedy}", f"{greedy},{greedy}"):
            readings = RULE_VARIANTS[i % len(RULE_VARIANTS)]
            cell = {"battlefield": battlefield, "deck": deck, **readings}
            rows.append(Variant(f"{battlefield}/{deck} {agents}", cell, agents))
    # towers of 3 with no wall: one card hitting both towers ends in a draw (both win at once) in about 1 game of 8
    rows.append(Variant("low towers: draws", {"deck": "unlimited", "start_tower": 3, "start_wall": 0}, "random,random"))
    # small hands that play-again chains use up (the turn then ends)
    rows.append(Variant("hand of 2, unlimited", {"hand_size": 2, "deck": "unlimited"}, "greedy,greedy"))
    rows.append(Variant("hand of 1, wind square", {"hand_size": 1, "battlefield": "wind_square"}, "random,greedy"))
    return tuple(rows)


VARIANTS: tuple[Variant, ...] = _variants()


# -- continue from a state: the search's rollouts (core/skill/search.py) -----------------------------------------------
def encode_worlds(config: Config, worlds: Sequence[Any], seeds: np.ndarray) -> tuple[np.ndarray, ...]:
    """Protocol states (``rules.State``) as ``kernel.continue_games``' world arrays (``seeds[w]``: agent streams)."""
    n, h = len(config.cards), int(config.hand_size)
    count = len(worlds)
    wp = np.zeros((count, 16), np.int64)
    whands = np.zeros((count, 2, h + 2), np.int64)
    wscal = np.zeros((count, K.W_COLS), np.int64)
    wdeck = np.zeros((count, max(n, 1)), np.int64)
    wdisc = np.zeros((count, max(n, 1)), np.int64)
    wrng = np.zeros((count, 4), np.uint64)
    cards = config.cards.cards
    for w, world in enumerate(worlds):
        game = world.game
        wp[w] = game.players[0] + game.players[1]
        cur = game.current
        pending_again = int(game.pending_discard and cards[game.played[cur][-1]].effect.again)
        wscal[w, :K.W_HAND_LEN] = (cur, game.turn, int(game.acting), int(game.pending_discard), pending_again,
                                   *game.missed)
        for s in range(2):
            wscal[w, K.W_HAND_LEN + s] = len(game.hands[s])
            whands[w, s, :len(game.hands[s])] = game.hands[s]
        if config.deck == "regular":
            wscal[w, K.W_DECK_LEN], wscal[w, K.W_DISC_LEN] = len(game.deck), len(game.discard)
            wdeck[w, :len(game.deck)] = game.deck
            wdisc[w, :len(game.discard)] = game.discard
        wrng[w] = (world.deck, int(seeds[w][0]), int(seeds[w][1]), world.timer)
    return wp, whands, wscal, wdeck, wdisc, wrng


class Dealt:
    """Worlds already in ``kernel.continue_games``' arrays (:func:`deal`): ``arrays`` as :func:`encode_worlds` gives."""

    def __init__(self, arrays: tuple[np.ndarray, ...]) -> None:
        self.arrays = arrays

    def __len__(self) -> int:
        return len(self.arrays[0])


@_compiled
def _deal_worlds(pool, n_pool, enemy, k, n_cards, regular, whands, wdeck, wrng, seeds, work, state):
    """``model.determinise`` then two ``next_u64``, ``len(wrng)`` times: the hidden cards and every stream.

    Regular deck: ``pool[:n_pool]`` (the unseen cards in index order) shuffled, the first ``k`` the enemy's
    hand, the rest the draw pile; unlimited: ``k`` cards drawn ``below(n_cards)``.  Then the world's deck
    and timer streams, then the rollout agents' two seeds.  The same draws as the Python deal, bit for bit.
    """
    for wi in range(wrng.shape[0]):
        if regular:
            for i in range(n_pool):
                work[i] = pool[i]
            _shuffle(state, 0, work, n_pool)
            for i in range(k):
                whands[wi, enemy, i] = work[i]
            for i in range(n_pool - k):
                wdeck[wi, i] = work[k + i]
        else:
            for i in range(k):
                whands[wi, enemy, i] = _below(state, 0, n_cards)
        deck = _next_u64(state, 0)
        timer = _next_u64(state, 0)
        seeds[wi, 0] = _next_u64(state, 0)
        seeds[wi, 1] = _next_u64(state, 0)
        wrng[wi, 0], wrng[wi, 1], wrng[wi, 2], wrng[wi, 3] = deck, seeds[wi, 0], seeds[wi, 1], timer


_TEMPLATE: dict[str, tuple[Any, Config, tuple[np.ndarray, ...]]] = {}


def deal(config: Config, view: Any, rng: Any, count: int) -> tuple[int, Dealt, np.ndarray]:
    """The search's worlds dealt in one compiled call (``SearchHooks.deal``): ``(seat, worlds, seeds)``.

    Equal to ``count`` times ``model.determinise`` and two ``rng.next_u64()`` (each world's rollout seeds),
    encoded (:func:`encode_worlds`), and ``rng`` advanced alike: the search decides the same.
    """
    from workbench.core.rng import SplitMix64
    from workbench.games.duel.rules import State

    found = _TEMPLATE.get("last")
    if found is None or found[0] is not view or found[1] is not config:  # a raced search deals a view in batches
        template = State(duel_agents.determinise(view, config, SplitMix64(rng.state)), 0, 0)  # what no deal changes
        found = _TEMPLATE["last"] = (view, config, encode_worlds(config, [template], np.zeros((1, 2), np.uint64)))
    first = found[2]
    arrays = tuple(np.repeat(a, count, axis=0) for a in first)
    n = len(config.cards)
    regular = config.deck == "regular"
    pool = duel_agents._unseen(n, view.hand, view.discard) if regular else np.zeros(1, np.int64)
    seeds = np.empty((count, 2), np.uint64)
    state = np.array([rng.state], np.uint64)
    _deal_worlds(pool, len(pool) if regular else 0, 1 - view.me, view.enemy_hand_size, n, regular, arrays[1],
                 arrays[3], arrays[5], seeds, np.empty(max(1, len(pool)), np.int64), state)
    rng.state = int(state[0])
    return view.me, Dealt(arrays), seeds


def continue_from(config: Config, worlds: Sequence[Any] | Dealt, actions: Sequence[Any], seat: int,
                  policy: AgentSpec, horizon: int, seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(values[world, action], results[world, action])`` of ``kernel.continue_games`` (see there).

    Each world (a ``rules.State``, or already encoded: :func:`deal`) plays each action (a ``rules.Action``, or
    None: the agents decide), then ``policy`` plays both seats, agent ``s`` drawing from stream state
    ``seeds[world][s]``.
    """
    t = compile_tables(config.cards, config.lightning, config.groundwater)
    bf = config.battlefield
    values = np.array(config.card_values, np.float64) if config.card_values else t.costs
    kinds, weights = _agent_arrays((policy, policy))
    w8 = weights[:, [0, 1, 2, 2, 2, 3, 3, 3]].reshape(-1)
    e = duel_agents.Weights()  # a cut rollout is scored with the rollout greedy's weights (random: the defaults)
    ew8 = w8.copy() if policy.name == "greedy" else np.array(
        [e.tower, e.wall, *(3 * [e.producer]), *(3 * [e.resource])] * 2, np.float64)
    acts = np.array([(-1, 0) if a is None else (a.kind, a.slot) for a in actions], np.int64).reshape(-1, 2)
    h, n = int(config.hand_size), len(t.costs)
    out = np.zeros((len(worlds), len(acts)), np.float64)
    res = np.zeros((len(worlds), len(acts), 19), np.int64)
    encoded = worlds.arrays if isinstance(worlds, Dealt) else encode_worlds(config, worlds, seeds)
    K.continue_games(*encoded, acts, int(seat), int(horizon), duel_agents.VALUE_SCALE,
                     kinds, weights.reshape(-1), w8, ew8, values, t.cards, t.stmts, t.ops, int(bf.win_tower),
                     int(bf.win_resources), int(config.deck == "unlimited"), h, int(config.max_turns),
                     float(config.miss_rate), int(config.max_missed_in_row), int(config.thief_rounding == "up"), out,
                     res, *_scratch(n, h))
    return out, res


def rollouts(config: Config, worlds: Sequence[Any], actions: Sequence[Any], seat: int, policy: AgentSpec,
             horizon: int, seeds: np.ndarray) -> np.ndarray:
    """The search's compiled rollouts (``SearchHooks.rollout``): ``values[world, action]`` for ``seat``."""
    return continue_from(config, worlds, actions, seat, policy, horizon, seeds)[0]
