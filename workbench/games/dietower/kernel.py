"""Compiled batch engine (numba): the same games as the core reference loop over ``rules``, bit for bit.

One call plays a whole chunk of seeds in a single compiled loop (no per-game Python), writing
numpy arrays that ``fast.to_frame`` turns into the result frame.  Every rule here mirrors
``rules.resolve_round`` and every agent mirrors ``agents.choose``, drawing from the same
SplitMix64 seat streams in the same order; ``tests/games/dietower/test_dietower_engines.py`` checks that
the two engines give identical frames.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numba as nb
import numpy as np

from workbench.core.rng_numba import below as _below
from workbench.core.rng_numba import mix as _mix
from workbench.core.rng_numba import random as _random
from workbench.core.rng_numba import stream_keys
from workbench.games.dietower.agents import HIGHEST, JOKER, LOWEST, MIXED, RANDOM, AgentConfig
from workbench.games.dietower.rules import Config


class Columns(NamedTuple):
    """Result columns as numpy arrays (one row per game), filled by the compiled engine."""

    winners_mask: np.ndarray  # uint8 bit mask of the winning seats
    reason: np.ndarray  # int8 index in REASONS
    length: np.ndarray  # int64 rounds played
    scores: np.ndarray  # int64 (games, players)
    six_win_round: np.ndarray  # int64, 0 when there was no six-win
    longest: np.ndarray  # int64 (games, players)
    builder_changes: np.ndarray  # int64


_STREAM_K = stream_keys(4)  # one SplitMix64 stream per seat


def _select_table(bits: int) -> np.ndarray:
    """``SELECT[mask, j]``: the j-th lowest set bit of ``mask`` (hands as masks, no scan loop)."""
    held = (np.arange(1 << bits)[:, None] >> np.arange(bits)) & 1 == 1
    order = np.argsort(~held, axis=1, kind="stable")  # held cards first, ascending
    return np.where(np.arange(bits) < held.sum(axis=1, keepdims=True), order, 0).astype(np.int8)


SELECT = _select_table(14)  # built once at import: 14 cards at most (13 ranks + Joker)


@nb.njit(cache=True)
def _mixed_kind(states, seat, c0, c1, c2):
    """A mixed agent's policy this round: ``u = random()`` against the cumulative probabilities."""
    u = _random(states, seat)
    return RANDOM if u < c0 else (HIGHEST if u < c1 else (LOWEST if u < c2 else JOKER))


@nb.njit(cache=True)
def _choose(seat, kind, top_card, m, joker, builder, die, joker_at, base, states):
    """Index, in the seat's ascending hand of ``m`` cards (``top_card`` last), of the card played.

    ``kind``: RANDOM, HIGHEST, LOWEST or JOKER timing (a mixed agent's kind is drawn first).
    """
    if kind == RANDOM:
        return _below(states, seat, m)
    has_joker = top_card == joker
    ranks = m - 1 if has_joker else m
    if ranks == 0:
        return 0
    if kind == JOKER:
        if has_joker and builder != -1 and builder != seat and die >= joker_at:
            return m - 1
        kind = base
        if kind == RANDOM:
            return _below(states, seat, ranks)
    return ranks - 1 if kind == HIGHEST else 0


@nb.njit(cache=True)
def _play(seeds, select, players, suit_size, faces, keep_tie, six_scores, kinds, joker_at, bases, cum,
          winners_mask, reason, length, scores, six_round, longest, changes):
    joker = suit_size
    rounds = suit_size + 1
    states = np.zeros(players, np.uint64)
    hands = np.zeros(players, np.int64)  # bit masks
    cards = np.zeros(players, np.int64)
    for g in range(seeds.shape[0]):
        for s in range(players):
            states[s] = _mix(seeds[g] ^ _STREAM_K[s])
            hands[s] = (1 << rounds) - 1
        builder, die, streak, six_winner, r = -1, 0, 0, -1, 0
        while r < rounds and six_winner < 0:
            m = rounds - r
            jokers, top = 0, -1
            for s in range(players):
                h = hands[s]
                kind = kinds[s]
                if kind == MIXED:
                    kind = _mixed_kind(states, s, cum[s, 0], cum[s, 1], cum[s, 2])
                j = _choose(s, kind, select[h, m - 1], m, joker, builder, die, joker_at[s], bases[s], states)
                c = np.int64(select[h, j])
                hands[s] = h ^ (np.int64(1) << c)
                cards[s] = c
                if c == joker:
                    jokers += 1
                elif c > top:
                    top = c
            r += 1
            builder_wins = False
            if jokers == 1:
                builder, die, streak = -1, 0, 0
            elif jokers >= 2:
                builder_wins = builder >= 0
            elif builder >= 0 and cards[builder] == top:
                builder_wins = True
            else:
                n_top, who = 0, -1
                for s in range(players):
                    if cards[s] == top:
                        n_top += 1
                        who = s
                if n_top == 1:
                    builder, die, streak = who, 1, 0
                    changes[g] += 1
                elif builder >= 0 and not keep_tie:
                    builder, die, streak = -1, 0, 0
            if builder_wins:
                streak += 1
                if streak > longest[g, builder]:
                    longest[g, builder] = streak
                if die == faces:
                    six_winner = builder
                    if six_scores:
                        scores[g, builder] += die
                else:
                    scores[g, builder] += die
                    die += 1
        length[g] = r
        if six_winner >= 0:
            winners_mask[g] = 1 << six_winner
            reason[g] = 1
            six_round[g] = r
        else:
            best = scores[g, 0]
            for s in range(1, players):
                best = max(best, scores[g, s])
            mask, k = 0, 0
            for s in range(players):
                if scores[g, s] == best:
                    mask |= 1 << s
                    k += 1
            winners_mask[g] = mask
            reason[g] = 0 if k == 1 else 2


def play_fast(rules: Config, configs: Sequence[AgentConfig], seeds: np.ndarray) -> Columns:
    """Play every seed with the compiled engine."""
    g, n = len(seeds), rules.players
    cols = Columns(np.zeros(g, np.uint8), np.zeros(g, np.int8), np.zeros(g, np.int64), np.zeros((g, n), np.int64),
                   np.zeros(g, np.int64), np.zeros((g, n), np.int64), np.zeros(g, np.int64))
    kinds = np.array([c.kind for c in configs], np.int64)
    joker_at = np.array([c.joker_at for c in configs], np.int64)
    bases = np.array([c.base for c in configs], np.int64)
    cum = np.array([c.cumulative for c in configs], np.float64).reshape(n, 4)
    _play(np.ascontiguousarray(seeds, dtype=np.uint64), SELECT, n, rules.suit_size, rules.die_faces,
          rules.nonbuilder_tie == "keep", rules.six_win_scores, kinds, joker_at, bases, cum, *cols)
    return cols
