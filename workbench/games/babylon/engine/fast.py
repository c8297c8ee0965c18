"""Towers of Babylon's compiled fast path: the same games as the reference engine, whole chunks at a time.

``card_table`` compiles the Config — every card's numbers and keywords and its texts as small
opcode rows (trigger → actions: verb, target, amount, per, may) — into one integer array, so an
edited cards CSV runs without recompiling the kernel.  ``play_chunk`` turns the agents into arrays
(kind and greedy's weights), runs ``kernel.play_games`` over all seeds in one compiled loop
and builds the result frame from flat arrays (the list columns through pyarrow offsets).  Core
picks this engine for the agents the model's ``engine`` declaration names and falls back to the
reference loop for the others (``search``); ``tests/games/babylon/test_babylon_fast.py`` and the
conformance suite prove the frames equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb
from typing import Any

import numpy as np
import polars as pl

from workbench.core.model import AgentSpec, PerObject, Variant
from workbench.core.sim.play import RunawayGame
from workbench.core.sim.results import kernel_frame, list_columns, outcome_codes, padded
from workbench.core.sim.rng_numba import compiled as _compiled
from workbench.core.sim.rng_numba import next_u64 as _next_u64
from workbench.core.sim.rng_numba import shuffle as _shuffle
from workbench.games.babylon import agents as babylon_agents
from workbench.games.babylon.engine import kernel as K
from workbench.games.babylon.results import RESULT_SCHEMA, SEATS, STEPS_PER_TURN
from workbench.games.babylon.rules import READINGS, REASONS, TALLIES, WITCHERY, Config, most_payments, sacrifices

FIRST_MODES = {"p1": K.FIRST_P1, "p2": K.FIRST_P2, "random": K.FIRST_RANDOM}
_CODES = outcome_codes(("", *REASONS))  # reason code 0: still running (never in a finished frame)
_DECLS = {d.name: d for d in babylon_agents.DECLS}
# a reading's header slot, set to 1 when the Config plays that value (a reading of two values: its non-default one)
_READING_SLOTS = {"clash_back": {"no": K.X_NO_CLASH_BACK}, "dark_pact": {"unplayable": K.X_PACT_UNPLAYABLE},
                  "thief_gain": {"damage": K.X_THIEF_DAMAGE}, "crush_excess": {"printed": K.X_CRUSH_PRINTED},
                  "sentenced_build": {"fails": K.X_SENTENCED_FAILS},
                  "payment": {"chosen": K.X_PAY_CHOSEN, "others_first": K.X_PAY_OTHERS_FIRST}}  # neither: keep_playable
assert set(_READING_SLOTS) == set(READINGS), "every reading needs its slot in the kernel's card table"
assert all(len(slots) == len(READINGS[name]) - 1 for name, slots in _READING_SLOTS.items())
_FLAGS = {"rules": ("crush", "twinstrike", "tunnel", "lethal", "thief", "retreating", "regenerating"),
          "columns": (K.C_CRUSH, K.C_TWINSTRIKE, K.C_TUNNEL, K.C_LETHAL, K.C_THIEF, K.C_RETREATING,
                      K.C_REGENERATING)}


class Unsupported(ValueError):
    """The Config holds something the kernel does not know (a new verb, target or trigger)."""


def _code(table: tuple[str, ...], word: str, what: str, card: str) -> int:
    if word not in table:
        raise Unsupported(f"babylon fast engine: card {card} uses {what} {word!r}, which the kernel does not know")
    return table.index(word)


def card_table(config: Config) -> np.ndarray:
    """The Config as the kernel's ``tab`` array (``kernel`` module docstring)."""
    n_cards = len(config.cards)
    cards = np.zeros((n_cards, K.CC), np.int64)
    clauses: list[tuple[int, int, int, int, int]] = []
    acts: list[tuple[int, int, int, int, int]] = []
    for c, info in enumerate(config.cards):
        row = cards[c]
        row[[K.C_TYPE, K.C_FACTION, K.C_POWER, K.C_SPECIFIC, K.C_TP, K.C_CONSTRUCTION, K.C_MIGHT, K.C_HEALTH]] = (
            info.type, info.faction, info.power, info.specific, info.tp, info.construction, info.might, info.health)
        for name, col in zip(_FLAGS["rules"], _FLAGS["columns"], strict=True):
            row[col] = int(getattr(info, name))
        row[K.C_COST] = info.tp if info.type == WITCHERY else info.power  # agents._cost
        row[K.C_CLAUSE:] = -1
        for trigger, clause in info.clauses.items():
            slot = _code(K.TRIGGERS, trigger, "trigger", info.id)
            choice, may = K.G_NONE, 0
            for act in clause.actions:
                if act.target in ("minion", "enemy_minion", "friendly_minion"):  # rules.CHOOSING
                    choice, may = K.TARGETS.index(act.target), int(act.optional)
                    break
            row[K.C_CLAUSE + slot] = len(clauses)
            clauses.append((len(acts), len(clause.actions), choice, may, int(sacrifices(clause))))
            for act in clause.actions:
                acts.append((_code(K.VERBS, act.verb, "verb", info.id), _code(K.TARGETS, act.target, "target", info.id),
                             act.amount, _code(K.PERS, act.per, "per", info.id), int(act.optional)))
    for seat, deck in enumerate(config.decks):
        if len(deck) + config.mulligan > K.HCAP:
            raise Unsupported(f"babylon fast engine: deck {config.deck_keys[seat]} has {len(deck)} cards; the kernel "
                              f"holds {K.HCAP - config.mulligan} with a mulligan of {config.mulligan}")
    if len(config.decks[0]) + len(config.decks[1]) > K.MCAP or 2 * config.turns + 1 > K.HISTCAP:
        raise Unsupported(f"babylon fast engine: decks of {len(config.decks[0])} and {len(config.decks[1])} cards "
                          f"over {config.turns} turns are more than the kernel holds")
    head = np.zeros(K.TAB_CARDS, np.int64)
    head[[K.X_NCARDS, K.X_WIN, K.X_TURNS, K.X_MULLIGAN, K.X_START_HAND, K.X_SECOND_CARDS, K.X_SECOND_TP,
          K.X_START_TOWER, K.X_FIRST]] = (n_cards, config.win_tower, config.turns, config.mulligan, config.start_hand,
                                          config.second_cards, config.second_tp, config.start_tower,
                                          FIRST_MODES[config.first])
    for name, slots in _READING_SLOTS.items():
        for value, slot in slots.items():
            head[slot] = int(getattr(config, name) == value)
    at = K.TAB_CARDS + cards.size
    head[K.X_CLAUSES] = at
    at += K.LC * len(clauses)
    head[K.X_ACTS] = at
    at += K.AC * len(acts)
    for seat, deck in enumerate(config.decks):
        head[K.X_DECKS + seat] = at
        head[K.X_DECK_LEN + seat] = len(deck)
        at += len(deck)
    parts = [head, cards.ravel(), np.array(clauses, np.int64).reshape(-1), np.array(acts, np.int64).reshape(-1),
             np.array(config.decks[0], np.int64), np.array(config.decks[1], np.int64)]
    tab = np.concatenate(parts)
    assert len(tab) == at
    return tab


MAX_LEGAL = 1 << 20  # rows of a scratch action list (32 MB for the three of a chunk)
MAX_PAID = 1 << 16  # rows of a list under payment="chosen" (a longer one stops the game with an error)


def legal_capacity(config: Config) -> int:
    """Most legal actions a decision can have (``model.max_legal_actions`` for this Config).

    Under ``payment="chosen"`` a play is listed once per payment: the bound is then that many times
    larger, and the kernel lists up to :data:`MAX_PAID` (more stops the game with an error; a hand
    and board with that many ways to play is far from any deck of the data).

    Raises:
        Unsupported: a mulligan over a big hand has more choices than the kernel lists (the
            reference loop enumerates ``2 ** hand`` masks there and does not finish either).
    """
    deck = max(len(d) for d in config.decks)
    minions = 2 * deck
    pays = most_payments(config) if config.payment == "chosen" else 1
    main = deck * (2 + minions) * pays + 2 * deck + deck + deck * (1 + deck) + 1  # plays, moves, builds, attacks, end
    if config.payment == "chosen":
        main = min(main, MAX_PAID)
    hand = config.start_hand + config.second_cards
    mulligans = sum(comb(hand, k) for k in range(min(hand, config.mulligan) + 1))
    if mulligans > MAX_LEGAL:
        raise Unsupported(f"babylon fast engine: a mulligan of up to {config.mulligan} of {hand} cards has "
                          f"{mulligans:,} choices, more than {MAX_LEGAL:,}; lower mulligan, start_hand or "
                          "second_cards")
    return max(main, mulligans)


def weight_rows(rows: np.ndarray) -> np.ndarray:
    """Greedy's weights per seat (``agents.Weights`` order) with room for the kernel's evaluation tables.

    The kernel's entries fill the tables (``K.T_SOURCES``, ``K.T_HAND``) from the weights themselves.
    """
    out = np.zeros((len(rows), K.WEIGHT_COLS), np.float64)
    out[:, :K.N_WEIGHTS] = rows
    return out


_WEIGHTS: dict[AgentSpec, tuple[float, ...]] = {}


def greedy_weights(spec: AgentSpec) -> tuple[float, ...]:
    """Greedy's weights of ``spec`` (``agents.Weights`` order), checked once per spec (a search asks often)."""
    found = _WEIGHTS.get(spec)
    if found is None:
        if len(_WEIGHTS) > 256:
            _WEIGHTS.clear()
        found = _WEIGHTS[spec] = tuple(_DECLS["greedy"].build(spec).weights)
    return found


def agent_arrays(agents: Sequence[AgentSpec]) -> tuple[np.ndarray, np.ndarray]:
    """Per seat: the agent kind (``K.AGENT_*``) and greedy's weights (``agents.Weights`` order)."""
    kinds = np.zeros(2, np.int64)
    weights = weight_rows(np.zeros((2, K.N_WEIGHTS), np.float64))
    for seat, spec in enumerate(agents):
        if spec.name == "greedy":
            kinds[seat] = K.AGENT_GREEDY
            weights[seat, :K.N_WEIGHTS] = greedy_weights(spec)
        elif spec.name == "random":
            kinds[seat] = K.AGENT_RANDOM
        else:
            raise ValueError(f"babylon fast engine: agent {spec.name!r} has no compiled twin")
    return kinds, weights


def _per_config(config: Config) -> tuple[np.ndarray, list[int], pl.Series]:
    """What a chunk derives from its Config alone: the kernel's card table, the cards' id order, the sorted ids.

    ``model.build_config`` returns the one cached Config per parameters and data files, so every chunk of a run
    and every decision of a search meets the same object; a run of many small chunks (a study's cells, the
    studio's watched chunks) built the kernel's card table and the cards' id order again for each (~2 ms a chunk,
    as long as a chunk of 20 games).
    """
    def build() -> tuple[np.ndarray, list[int], pl.Series]:
        ids = [c.id for c in config.cards]
        order = sorted(range(len(ids)), key=lambda c: ids[c])
        return card_table(config), order, pl.Series([ids[c] for c in order], dtype=pl.String)

    return _DERIVED.get(config, build)


_DERIVED = PerObject(32)


def run_kernel(config: Config, agents: Sequence[AgentSpec], seeds: np.ndarray,
               trace: int = 0) -> tuple[np.ndarray, ...]:
    """The raw kernel output for one chunk: ``res``, ``towers``, ``flags`` (and the first game's ``trace`` rows)."""
    kinds, weights = agent_arrays(agents)
    tab = _per_config(config)[0]  # the kernel only reads it
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    n_games = len(seeds)
    n_cards = len(config.cards)
    max_steps = 2 * config.turns * STEPS_PER_TURN + 100  # model.max_steps
    res = np.zeros((n_games, K.RES_COLS), np.int64)
    towers = np.zeros((n_games, 2, 2 * config.turns + 1), np.int64)
    flags = np.zeros((n_games, 4 * n_cards), np.uint8)
    status = np.zeros(1, np.int64)
    size = K.state_size(n_cards)
    s, v, w, x = (padded(size, np.int64) for _ in range(4))
    lg = padded((3, legal_capacity(config), 4), np.int64)
    rng = padded(5, np.uint64)
    steps = np.full((max(trace, 0), 5), -9, np.int64)
    done = K.play_games(seeds, tab, kinds, weights, max_steps, res, towers, flags, status, s, v, w, x, lg, rng, steps)
    if status[0] == K.STATUS_RUNAWAY:
        raise RunawayGame(f"babylon: game seed {int(seeds[done])} did not end within {max_steps} steps")
    if status[0] == K.STATUS_NO_ACTION:
        raise RuntimeError(f"babylon: game seed {int(seeds[done])}: a seat must act but has no legal action")
    if status[0] == K.STATUS_TOO_MANY:
        raise RuntimeError(f"babylon: game seed {int(seeds[done])}: a decision has more legal actions than the fast "
                           f"engine lists ({lg.shape[1]:,}); play it on the reference engine")
    return res, towers, flags, steps


def _id_lists(config: Config, flags: np.ndarray) -> list[pl.Series]:
    """Four columns of card ids from rows of card flags: drawn by p1, by p2, played by p1, by p2.

    ``flags`` holds four blocks of the pool (pool order) side by side; each row's ids come sorted as strings.
    """
    _, order, sorted_ids = _per_config(config)
    n_games, n_cards = len(flags), len(config.cards)
    blocks = flags.reshape(n_games, 4, n_cards).transpose(1, 0, 2).reshape(4 * n_games, n_cards)
    rows, cols = np.nonzero(blocks[:, order])
    counts = np.bincount(rows, minlength=4 * n_games).reshape(4, n_games)
    return list_columns(sorted_ids[cols], counts)


def play(config: Config, params: dict[str, Any], agents: Sequence[AgentSpec], seeds: np.ndarray) -> pl.DataFrame:
    """The model's declared compiled engine (``CompiledEngine.play``): :func:`play_chunk`."""
    return play_chunk(config, agents, seeds)


def play_chunk(config: Config, agents: Sequence[AgentSpec], seeds: np.ndarray) -> pl.DataFrame:
    """One result row per seed, equal to the reference engine's ``rows_to_frame`` of the same games."""
    res, towers, flags, _ = run_kernel(config, agents, seeds)
    outcome = {"winner": res[:, K.RES_WINNER], "reason": res[:, K.RES_REASON], "length": res[:, K.RES_LENGTH],
               "first_seat": res[:, K.RES_FIRST]}
    cols: dict[str, Any] = {}
    counts = res[:, K.RES_HIST]
    kept = np.arange(towers.shape[2]) < counts[:, None]  # (game, turn): the heights each game recorded
    heights = list_columns(towers.transpose(1, 0, 2)[:, kept].reshape(-1), np.stack([counts, counts]))
    ids = _id_lists(config, flags)
    for seat, name in enumerate(SEATS):
        b = K.RES_SEAT + seat * K.SEAT_COLS
        cols[f"tower_{name}"] = res[:, b + K.SEAT_TOWER]
        cols[f"towers_{name}"] = heights[seat]
        cols[f"tp_{name}"] = res[:, b + K.SEAT_TP]
        cols[f"sources_{name}"] = res[:, b + K.SEAT_SOURCES]
        cols[f"hand_{name}"] = res[:, b + K.SEAT_HAND]
        cols[f"board_{name}"] = res[:, b + K.SEAT_BOARD]
        for t, tally in enumerate(TALLIES):
            cols[f"{tally}_{name}"] = res[:, b + K.SEAT_TALLIES + t]
        cols[f"drawn_{name}"] = ids[seat]
        cols[f"played_{name}"] = ids[2 + seat]
    return kernel_frame(_CODES, outcome, cols, RESULT_SCHEMA)


# -- the parity table (core's harness plays every row on both engines: tests/test_parity.py) -------------------
# Deck pairs and non-default parameters (no Transformed Power for the second seat, 5 turns, a tower of 30 to win,
# no mulligan with bigger hands, a start near the win height), each with random vs random and greedy pairings,
# greedy with changed weights.  Edited cards are the harness's property test (random edits of the card table).
_RULES = {
    "default": {},
    "no-second-tp": {"second_tp": 0, "first": "p1", "deck_p1": "night_raid", "deck_p2": "builders_of_babel"},
    "short": {"turns": 5, "first": "p2", "deck_p1": "tide_of_whispers", "deck_p2": "siege_of_ur"},
    "win-30": {"win_tower": 30, "deck_p1": "citadel_of_the_rivers", "deck_p2": "night_raid"},
    "big-hands": {"mulligan": 0, "start_hand": 6, "second_cards": 2, "deck_p1": "builders_of_babel",
                  "deck_p2": "tide_of_whispers"},
    "near-win": {"start_tower": 35, "win_tower": 40, "second_tp": 3, "first": "p1", "deck_p1": "siege_of_ur",
                 "deck_p2": "siege_of_ur"},
    "siege-raid": {"deck_p1": "siege_of_ur", "deck_p2": "night_raid"},
    # the readings of the open text (rules.READINGS), each non-default value on decks whose cards it touches
    "no-clash-back": {"clash_back": "no", "deck_p1": "siege_of_ur", "deck_p2": "citadel_of_the_rivers"},
    "pact-thief": {"dark_pact": "unplayable", "thief_gain": "damage", "deck_p1": "night_raid",
                   "deck_p2": "tide_of_whispers"},
    "crush-sentence": {"crush_excess": "printed", "sentenced_build": "fails", "deck_p1": "night_raid",
                       "deck_p2": "builders_of_babel"},
    "others-first": {"payment": "others_first", "deck_p1": "builders_of_babel", "deck_p2": "siege_of_ur"},
    "keep-playable": {"payment": "keep_playable", "deck_p1": "citadel_of_the_rivers", "deck_p2": "tide_of_whispers"},
}
_CUSTOM_GREEDY = ("greedy:tower=2,card=0.1,hand_decay=0.5,source=0.5,source_decay=1,playable=2,playable_cap=5,"
                  "late=0.5,margin=0,mulligan_cost=2")
_OTHER_GREEDY = "greedy:sentenced=3,guard=2,raider=0.1,builder=2,tp=1,minion=0,health=1"
_PAIRINGS = (
    ("default", "random,random"), ("default", "greedy,greedy"), ("default", "greedy,random"),
    ("default", "random,greedy"),
    ("no-second-tp", "random,random"), ("no-second-tp", "greedy,greedy"), ("no-second-tp", f"{_CUSTOM_GREEDY},random"),
    ("short", "random,random"), ("short", "greedy,greedy"), ("short", "random,greedy"),
    ("win-30", "random,random"), ("win-30", "greedy,greedy"), ("win-30", f"{_OTHER_GREEDY},{_CUSTOM_GREEDY}"),
    ("big-hands", "random,random"), ("big-hands", "greedy,random"),
    ("near-win", "greedy,greedy"), ("near-win", "random,random"),
    ("siege-raid", "random,random"), ("siege-raid", "greedy,greedy"), ("siege-raid", f"random,{_CUSTOM_GREEDY}"),
    ("no-clash-back", "random,random"), ("no-clash-back", "greedy,greedy"),
    ("pact-thief", "random,random"), ("pact-thief", "greedy,greedy"),
    ("crush-sentence", "random,random"), ("crush-sentence", "greedy,greedy"),
    ("others-first", "random,random"), ("others-first", "greedy,greedy"),
    ("keep-playable", "random,random"), ("keep-playable", "greedy,greedy"),
)
VARIANTS: tuple[Variant, ...] = tuple(
    Variant(f"{name} {agents.replace(_CUSTOM_GREEDY, 'greedy:custom').replace(_OTHER_GREEDY, 'greedy:other')}",
            _RULES[name], agents) for name, agents in _PAIRINGS)


# -- continue from a state: the search's rollouts and prior (core/skill/search.py) -------------------------------------
def _table(config: Config) -> np.ndarray:
    """:func:`card_table` of ``config``, built once per Config object (a decision asks for it many times)."""
    return _per_config(config)[0]


def _clause_id(tab: np.ndarray, card: int, clause: Any) -> int:
    """The kernel's id of a trigger's clause (-1: Offerings owed)."""
    if clause is None:
        return -1
    return int(tab[K.TAB_CARDS + card * K.CC + K.C_CLAUSE + K.TRIGGERS.index(clause.trigger)])


def encode_state(config: Config, state: Any, view: bool = False) -> np.ndarray:
    """A ``rules.State`` of a running game (a seat's view with ``view``) in the kernel's flat encoding."""
    tab = _table(config)
    n_cards = len(config.cards)
    s = np.zeros(K.state_size(n_cards), np.int64)
    s[[K.H_ACTIVE, K.H_FIRST, K.H_TURN, K.H_NEXT_UID, K.H_UPKEEP, K.H_ENDING, K.H_VIEW, K.H_ENTERING]] = (
        state.active, state.first, state.turn, state.next_uid, int(state.upkeep), int(state.ending), int(view),
        state.entering)
    s[K.H_PKIND] = K.NO_DECISION
    s[K.H_DIRTY] = 1  # the kernel looks for minions out of health at its next check of deaths
    if state.pending is not None:
        s[K.H_PKIND], s[K.H_PSEAT] = state.pending.kind, state.pending.seat
        t = state.pending.trigger
        if t is not None:
            s[[K.H_PCTRL, K.H_PCARD, K.H_PCLAUSE, K.H_POFFERS, K.H_PMAY]] = (
                t.controller, t.card, _clause_id(tab, t.card, t.clause), t.offers, int(t.optional))
    if state.attack is not None:
        a = state.attack
        s[[K.H_ATT, K.H_ATTACKER, K.H_ATARGET, K.H_ABLOCKER, K.H_ASTAGE, K.H_ANO_TOWER, K.H_AENDED, K.H_ATWIN]] = (
            1, a.attacker, a.target, a.blocker, a.stage, int(a.no_tower_damage), int(a.ended), a.twin)
    s[K.H_QLEN] = len(state.queue)
    for i, t in enumerate(state.queue):
        s[K.B_QUEUE + i * K.QF:K.B_QUEUE + (i + 1) * K.QF] = (t.controller, t.card, _clause_id(tab, t.card, t.clause),
                                                              t.offers, int(t.optional))
    s[K.H_MCOUNT] = len(state.minions)
    for i, m in enumerate(state.minions):
        s[K.B_MIN + i * K.MF:K.B_MIN + (i + 1) * K.MF] = (m.uid, m.card, m.owner, m.zone, m.status, m.damage,
                                                          int(m.sentenced), m.bonus)
    s[K.H_HIST] = len(state.history)
    for t, towers in enumerate(state.history[:K.HISTCAP]):
        s[K.B_HIST + t], s[K.B_HIST + K.HISTCAP + t] = towers
    for seat, side in enumerate(state.sides):
        b = K.H_SIDE + seat * K.SIDE
        s[b + K.S_TP], s[b + K.S_TOWER], s[b + K.S_TURNS] = side.tp, side.tower, side.turns
        s[b + K.S_AVAIL:b + K.S_AVAIL + K.NF] = side.available
        s[b + K.S_EXH:b + K.S_EXH + K.NF] = side.exhausted
        s[b + K.S_TALLY:b + K.S_TALLY + K.N_TALLIES] = side.tally
        s[b + K.S_HAND], s[b + K.S_INV] = len(side.hand), len(side.invocations)
        s[b + K.S_DTOP], s[b + K.S_DEND] = 0, len(side.deck)
        s[b + K.S_DISCARD], s[b + K.S_SACRIFICE] = len(side.discard), len(side.sacrifice)
        for body, cards in ((K.B_HAND, side.hand), (K.B_INV, side.invocations), (K.B_DECK, side.deck)):
            s[body + seat * K.HCAP:body + seat * K.HCAP + len(cards)] = cards
        for which, cards in ((0, side.drawn), (1, side.played)):
            for card in cards:
                s[K.B_FLAGS + (which * 2 + seat) * n_cards + card] = 1
    return s


_SCRATCH = PerObject(32)


def _scratch(config: Config) -> tuple[np.ndarray, ...]:
    """Three state arrays and the legal-action rows for ``config`` (kept: a decision asks for them many times)."""
    def build() -> tuple[np.ndarray, ...]:
        size = K.state_size(len(config.cards))
        return (*(padded(size, np.int64) for _ in range(3)), padded((3, legal_capacity(config), 4), np.int64))

    return _SCRATCH.get(config, build)


@_compiled
def _deal_worlds(base, me, unseen, lens, n_hand, n_cards, work, out, seeds, state):
    """``agents.determinise`` then two ``next_u64``, ``out.shape[0]`` times, on the encoded view ``base``.

    ``unseen[seat, :lens[seat]]``: the seat's unseen cards, sorted (``agents.unseen``); ``n_hand``: the
    opponent's hand size.  Each world: seat 0's unseen cards shuffled, then seat 1's (stream ``state[0]``);
    ``me``'s become its deck, the opponent's first ``n_hand`` its hand (sorted, and drawn) and the rest
    its deck; then the world's two rollout seeds.  The same draws as the Python deal, bit for bit.
    """
    size = base.shape[0]
    for wi in range(out.shape[0]):
        for i in range(size):
            out[wi, i] = base[i]
        for seat in range(2):
            n = lens[seat]
            for i in range(n):
                work[i] = unseen[seat, i]
            _shuffle(state, 0, work, n)
            deck = K.B_DECK + seat * K.HCAP
            if seat == me:
                for i in range(n):
                    out[wi, deck + i] = work[i]
                continue
            for i in range(1, n_hand):  # the hand sorted (insertion sort: a few cards)
                card = work[i]
                j = i - 1
                while j >= 0 and work[j] > card:
                    work[j + 1] = work[j]
                    j -= 1
                work[j + 1] = card
            hand = K.B_HAND + seat * K.HCAP
            for i in range(n_hand):
                out[wi, hand + i] = work[i]
                out[wi, K.B_FLAGS + seat * n_cards + work[i]] = 1  # drawn (flags: drawn [seat], then played)
            for i in range(n - n_hand):
                out[wi, deck + i] = work[n_hand + i]
        seeds[wi, 0] = _next_u64(state, 0)
        seeds[wi, 1] = _next_u64(state, 0)


def deal(config: Config, view: Any, rng: Any, count: int) -> tuple[int, np.ndarray, np.ndarray]:
    """The search's worlds dealt in one compiled call (``SearchHooks.deal``): ``(seat, encoded worlds, seeds)``.

    Equal to ``count`` times ``agents.determinise`` and two ``rng.next_u64()`` (each world's rollout seeds),
    encoded (``encode_state``), and ``rng`` advanced alike: the search decides the same, at a fraction of
    the Python work.
    """
    me = view.me
    them = view.state.sides[1 - me]
    unseen = [babylon_agents.unseen(config, view, seat) for seat in (0, 1)]
    lens = np.array([len(u) for u in unseen], np.int64)
    cards = np.zeros((2, max(1, int(lens.max()))), np.int64)
    for seat, u in enumerate(unseen):
        cards[seat, :len(u)] = u
    base = encode_state(config, view.state)
    out = np.empty((count, base.shape[0]), np.int64)
    seeds = np.empty((count, 2), np.uint64)
    state = np.array([rng.state], np.uint64)
    _deal_worlds(base, int(me), cards, lens, len(them.hand), len(config.cards), np.empty(cards.shape[1], np.int64),
                 out, seeds, state)
    rng.state = int(state[0])
    return me, out, seeds


def continue_from(config: Config, worlds: Sequence[Any] | np.ndarray, actions: Sequence[Any], seat: int,
                  policy: AgentSpec, horizon: int, seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(values[world, action], results[world * len(actions) + action])`` of ``kernel.continue_games``.

    Each world (a ``rules.State``, or already encoded: :func:`deal`) plays each action (a ``rules.Action`` for
    the decision due, its payment included, or None: the agents decide),
    then ``policy`` plays both seats, agent ``s`` drawing from stream state ``seeds[world][s]``.
    """
    kinds, weights = agent_arrays((policy, policy))
    ew = weights.copy() if policy.name == "greedy" else weight_rows(np.array([tuple(babylon_agents.Weights())] * 2))
    tab = _table(config)
    encoded = worlds if isinstance(worlds, np.ndarray) else np.stack([encode_state(config, w) for w in worlds])
    wrng = np.array([(int(seeds[i][0]), int(seeds[i][1])) for i in range(len(worlds))], np.uint64)
    acts = np.array([(-1, 0, 0, 0) if a is None else _row(a) for a in actions], np.int64).reshape(-1, 4)
    n_cards, count = len(config.cards), len(worlds) * len(acts)
    out = np.zeros((len(worlds), len(acts)), np.float64)
    res = np.zeros((count, K.RES_COLS), np.int64)
    towers = np.zeros((count, 2, K.HISTCAP + 1), np.int64)
    flags = np.zeros((count, 4 * n_cards), np.uint8)
    status = np.zeros(1, np.int64)
    v, w, x, lg = _scratch(config)
    K.continue_games(encoded, wrng, acts, int(seat), int(horizon), babylon_agents.VALUE_SCALE, kinds, weights, ew,
                     tab, 2 * config.turns * STEPS_PER_TURN + 100, out, res, towers, flags, status,
                     padded(encoded.shape[1], np.int64), v, w, x, lg, padded(5, np.uint64))
    if status[0] != K.STATUS_OK:
        raise RuntimeError(f"babylon: a rollout failed (kernel status {int(status[0])})")
    return out, res


def _row(action: Any) -> tuple[int, int, int, int]:
    """An action as the kernel's ``(kind, a, b, pay)`` row (a 3-tuple: pay 0)."""
    kind, a, b, *pay = tuple(action)
    return kind, a, b, (pay[0] if pay else 0)


def rollouts(config: Config, worlds: Sequence[Any], actions: Sequence[Any], seat: int, policy: AgentSpec,
             horizon: int, seeds: np.ndarray) -> np.ndarray:
    """The search's compiled rollouts (``SearchHooks.rollout``): ``values[world, action]`` for ``seat``."""
    return continue_from(config, worlds, actions, seat, policy, horizon, seeds)[0]


def prior(config: Config, view: Any, legal: Sequence[Any], policy: AgentSpec) -> list[float]:
    """``GreedyAgent.rank``'s score of every legal action on the seat's view, in the kernel: the search's prior."""
    if legal[0][0] == K.K_MULLIGAN:
        return babylon_agents.search_prior(config, view, legal, policy)
    chosen = greedy_weights(policy) if policy.name == "greedy" else tuple(babylon_agents.Weights())
    weights = weight_rows(np.array([chosen] * 2, np.float64))
    acts = np.array([_row(a) for a in legal], np.int64).reshape(-1, 4)
    out = np.zeros(len(acts), np.float64)
    v, w, x, lg = _scratch(config)
    K.action_scores(encode_state(config, view.state, view=True), _table(config), int(view.me), weights, acts, out,
                    lg, v, w, x)
    return out.tolist()


def warm_steps() -> None:
    """Compile the kernel's one-step entries (``_legal``, ``_step``) that scenario checks call action by action.

    ``workbench compile`` calls it (the engine's ``warm`` hook): the scenario tests play each hand-traced
    action on both engines (``tests/games/babylon/twin.py``), and compiling these entries there took each
    test process most of a minute.
    """
    from workbench.games.babylon.model import MODEL
    from workbench.games.babylon.rules import initial_state, legal_actions

    config = MODEL.make_config(MODEL.resolve_params())
    state = initial_state(config, 1)
    tab = _table(config)
    K._legal(encode_state(config, state), tab, np.zeros((3, legal_capacity(config), 4), np.int64), 0)
    action = legal_actions(config, state)[0]
    K._step(encode_state(config, state), tab, int(action.kind), int(action.a), int(action.b), int(action.pay))
