"""Compiled batch engine (numba): the same games as the core reference loop over ``rules``, bit for bit.

One call plays a whole chunk of seeds in a single compiled loop (no per-game Python, no allocation, no
GIL), writing numpy arrays that ``fast.to_frame`` turns into the result frame.  Every rule here mirrors
``rules.resolve_round`` and every agent mirrors ``agents.choose``, drawing from the same SplitMix64 seat
streams in the same order; ``tests/games/dietower/test_dietower_engines.py`` and the parity harness check
that the two engines give identical frames.

Written the way the C anchor (``../shared/anchors/dietower_c``) is: a hand is the seat's cards in
ascending order packed four bits a card into one integer (the j-th card is a shift, playing it a mask
and a shift: no table, no scan), and a round is resolved by one lookup in a transition table over
(die state, round code) built once per rules variant, so the game loop has no data-dependent branch
but the end of the game.  Per-seat results go to seat-first arrays (one contiguous column per seat).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from workbench.core.sim.results import padded
from workbench.core.sim.rng_numba import below as _below
from workbench.core.sim.rng_numba import compiled as _compiled
from workbench.core.sim.rng_numba import inlined as _inlined
from workbench.core.sim.rng_numba import mix as _mix
from workbench.core.sim.rng_numba import random as _random
from workbench.core.sim.rng_numba import stream_keys
from workbench.games.dietower.agents import HIGHEST, JOKER, LOWEST, MIXED, RANDOM, AgentConfig
from workbench.games.dietower.rules import Config


class Columns(NamedTuple):
    """Result columns as compact numpy arrays, filled by the compiled engine (per-seat ones seat first).

    A game has at most 14 rounds and a score below 2**15, so small integers hold every value: the kernel
    writes 11 bytes a game (2 players) instead of 58, and ``fast.to_frame`` widens them to the frame's Int64.
    """

    winners_mask: np.ndarray  # uint8 (games,) bit mask of the winning seats
    reason: np.ndarray  # int8 (games,) index in REASONS
    length: np.ndarray  # int8 (games,) rounds played
    scores: np.ndarray  # int16 (players, games)
    six_win_round: np.ndarray  # int8 (games,), 0 when there was no six-win
    longest: np.ndarray  # int8 (players, games)
    builder_changes: np.ndarray  # int8 (games,)


_STREAM_K = stream_keys(4)  # one SplitMix64 stream per seat

# -- the round as a table --------------------------------------------------------------------------------------
# A die state is 0 (die in the centre) or 1 + builder * faces + (die - 1).  A round's code is, with no Joker
# played, the bit mask of the seats holding the highest card (1 .. 2**players - 1); ``2**players`` when exactly
# one Joker was played, ``2**players + 1`` for two or more.  Row ``state * codes + code`` of the table holds:
NEXT, POINTS, WIN, CHANGE = range(4)  # the next state (SIX: the game ends), points to the Builder, won, new Builder
SIX = -1


def _round_outcome(code: int, builder: int, die: int, players: int, faces: int, keep_tie: bool,
                   six_scores: bool) -> tuple[int, int, int, int]:
    """``(next state, points, Builder won, new Builder)`` of one round: ``rules.resolve_round`` on a code."""
    one_joker, jokers = 1 << players, (1 << players) + 1
    if code == one_joker:
        return 0, 0, 0, 0  # a single Joker: the Builder loses the title, the die to the centre
    wins = builder >= 0 and (code == jokers or (code < one_joker and code >> builder & 1 == 1))
    if wins:
        if die == faces:
            return SIX, die if six_scores else 0, 1, 0
        return 1 + builder * faces + die, die, 1, 0
    here = 0 if builder < 0 else 1 + builder * faces + die - 1
    if code == jokers:
        return here, 0, 0, 0  # Jokers with the die in the centre: nothing
    if bin(code).count("1") == 1:
        return 1 + (code.bit_length() - 1) * faces, 0, 0, 1  # the sole highest takes the die on 1
    return (here, 0, 0, 0) if builder >= 0 and keep_tie else (0, 0, 0, 0)


@lru_cache(maxsize=64)
def round_table(players: int, faces: int, keep_tie: bool, six_scores: bool) -> tuple[np.ndarray, np.ndarray]:
    """The transition table ``(states * codes, 4)`` of one rules variant, and each state's ``(slot, die)``.

    The slot is the Builder's seat, or ``players`` for the centre (a spare slot that never scores); the die
    shows 0 in the centre.
    """
    codes = (1 << players) + 2
    states = 1 + players * faces
    table = np.zeros((states * codes, 4), np.int64)
    holder = np.zeros((states, 2), np.int64)
    holder[0] = players, 0
    for state in range(states):
        builder, die = (-1, 0) if state == 0 else divmod(state - 1, faces)
        die += state > 0
        if state:
            holder[state] = builder, die
        for code in range(1, codes):
            table[state * codes + code] = _round_outcome(code, builder, die, players, faces, keep_tie, six_scores)
    return table, holder


def full_hand(rounds: int) -> int:
    """Cards ``0..rounds-1`` in ascending order, four bits a card (the lowest card in the lowest bits)."""
    return sum(card << 4 * card for card in range(rounds))


@_inlined
def _card(hand, j):
    """The ``j``-th lowest card of a packed hand."""
    return (hand >> (4 * j)) & 15


@_inlined
def _without(hand, j):
    """The packed hand with its ``j``-th card played: the cards above it move down one place."""
    low = (np.int64(1) << (4 * j)) - 1
    return (hand & low) | ((hand >> 4) & ~low)


@_inlined
def _mixed_kind(states, seat, c0, c1, c2):
    """A mixed agent's policy this round: ``u = random()`` against the cumulative probabilities."""
    u = _random(states, seat)
    return RANDOM if u < c0 else (HIGHEST if u < c1 else (LOWEST if u < c2 else JOKER))


@_inlined
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


@_inlined
def _play_games(seeds, table, holder, players, suit_size, kinds, joker_at, bases, cum, hand0, states, hands,
                cards, score, longest, winners_mask, reason, length, scores, six_round, longest_out, changes):
    """Every game of the chunk (inlined into one entry per seat count, so the seat loops unroll)."""
    joker = suit_size
    rounds = suit_size + 1
    codes = (1 << players) + 2
    one_joker = 1 << players
    all_random = True
    for s in range(players):
        all_random = all_random and kinds[s] == RANDOM
    for g in range(seeds.shape[0]):
        for s in range(players):
            states[s] = _mix(seeds[g] ^ _STREAM_K[s])
            hands[s] = hand0
        for s in range(players + 1):
            score[s] = 0
            longest[s] = 0
        state, streak, changed, r, nxt = 0, 0, 0, 0, 0
        while r < rounds:
            m = rounds - r
            top, jokers = -1, 0
            for s in range(players):
                h = hands[s]
                if all_random:
                    j = _below(states, s, m)
                else:
                    kind = kinds[s]
                    if kind == MIXED:
                        kind = _mixed_kind(states, s, cum[s, 0], cum[s, 1], cum[s, 2])
                    b = holder[state, 0]
                    j = _choose(s, kind, _card(h, m - 1), m, joker, b if b < players else -1, holder[state, 1],
                                joker_at[s], bases[s], states)
                c = _card(h, j)
                hands[s] = _without(h, j)
                cards[s] = c
                jokers += np.int64(c == joker)
                top = max(top, c)
            mask = 0
            for s in range(players):
                mask |= np.int64(cards[s] == top) << s
            code = mask if jokers == 0 else one_joker + (jokers > 1)
            row = state * codes + code
            nxt = table[row, NEXT]
            b = holder[state, 0]
            win = table[row, WIN]
            streak = streak + 1 if win else (streak if nxt == state else 0)
            score[b] += table[row, POINTS]
            longest[b] = max(longest[b], streak)
            changed += table[row, CHANGE]
            r += 1
            if nxt == SIX:
                break
            state = nxt
        length[g] = r
        changes[g] = changed
        for s in range(players):
            scores[s, g] = score[s]
            longest_out[s, g] = longest[s]
        if nxt == SIX:
            winners_mask[g] = 1 << holder[state, 0]
            reason[g] = 1
            six_round[g] = r
        else:
            best = score[0]
            for s in range(1, players):
                best = max(best, score[s])
            mask, k = 0, 0
            for s in range(players):
                top_here = score[s] == best
                mask |= np.int64(top_here) << s
                k += np.int64(top_here)
            winners_mask[g] = mask
            reason[g] = 0 if k == 1 else 2


@_compiled
def _play2(seeds, table, holder, suit_size, kinds, joker_at, bases, cum, hand0, states, hands, cards, score,
           longest, winners_mask, reason, length, scores, six_round, longest_out, changes):
    _play_games(seeds, table, holder, 2, suit_size, kinds, joker_at, bases, cum, hand0, states, hands, cards,
                score, longest, winners_mask, reason, length, scores, six_round, longest_out, changes)


@_compiled
def _play3(seeds, table, holder, suit_size, kinds, joker_at, bases, cum, hand0, states, hands, cards, score,
           longest, winners_mask, reason, length, scores, six_round, longest_out, changes):
    _play_games(seeds, table, holder, 3, suit_size, kinds, joker_at, bases, cum, hand0, states, hands, cards,
                score, longest, winners_mask, reason, length, scores, six_round, longest_out, changes)


@_compiled
def _play4(seeds, table, holder, suit_size, kinds, joker_at, bases, cum, hand0, states, hands, cards, score,
           longest, winners_mask, reason, length, scores, six_round, longest_out, changes):
    _play_games(seeds, table, holder, 4, suit_size, kinds, joker_at, bases, cum, hand0, states, hands, cards,
                score, longest, winners_mask, reason, length, scores, six_round, longest_out, changes)


_PLAY = {2: _play2, 3: _play3, 4: _play4}  # by seats: the seat count a constant of the compiled loop


def play_fast(rules: Config, configs: Sequence[AgentConfig], seeds: np.ndarray) -> Columns:
    """Play every seed with the compiled engine."""
    g, n = len(seeds), rules.players
    cols = Columns(np.empty(g, np.uint8), np.empty(g, np.int8), np.empty(g, np.int8), np.empty((n, g), np.int16),
                   np.zeros(g, np.int8), np.empty((n, g), np.int8), np.empty(g, np.int8))
    kinds = np.array([c.kind for c in configs], np.int64)
    joker_at = np.array([c.joker_at for c in configs], np.int64)
    bases = np.array([c.base for c in configs], np.int64)
    cum = np.array([c.cumulative for c in configs], np.float64).reshape(n, 4)
    table, holder = round_table(n, rules.die_faces, rules.nonbuilder_tie == "keep", rules.six_win_scores)
    scratch = padded((4, 8), np.int64)  # the game in play: hands, cards, scores, streaks (a line of its own)
    _PLAY[n](np.ascontiguousarray(seeds, dtype=np.uint64), table, holder, rules.suit_size, kinds,
             joker_at, bases, cum, full_hand(rules.suit_size + 1), padded(8, np.uint64), scratch[0], scratch[1],
             scratch[2], scratch[3], *cols)
    return cols
