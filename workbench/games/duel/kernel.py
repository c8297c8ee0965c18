"""The compiled duel kernel (numba): whole games for the random and greedy agents, bit for bit.

Every function here mirrors one of ``rules.py``, ``agents.py`` or ``play.py`` and draws from the
same SplitMix64 sub-streams in the same order (``workbench/core/rng.py``).  The card effects come
in as integer tables compiled by ``fast.compile_tables`` from the parsed ``effects`` tuples, so an
edited ``cards.csv`` is played without code changes.  All state lives in arrays the caller
preallocates; the kernel allocates nothing (compiled without numba's reference counting), and
when an output buffer fills up it returns so the caller can grow it and resume.

Encodings (shared with ``fast.py``):

* players ``p``: int64[16], seat ``s`` stat ``i`` (``effects.STATS`` order) at ``8 * s + i``;
* ``cards[c]``: CARD_* columns; ``stmts[k]``: ST_* columns; ``ops[k]``: OP_* columns;
* an op's ``who`` is one of W_* (the variants are resolved when the tables are built);
  a side (condition / ``set`` source) is 0 for self and 1 for enemy, so its seat is ``me ^ side``.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from workbench.core.rng_numba import INLINE as _INLINE
from workbench.core.rng_numba import JIT as _JIT
from workbench.core.rng_numba import below as _below
from workbench.core.rng_numba import mix as _mix
from workbench.core.rng_numba import outcome_worth as _outcome_worth
from workbench.core.rng_numba import random as _random
from workbench.core.rng_numba import shuffle as _shuffle
from workbench.core.rng_numba import squash as _squash
from workbench.core.rng_numba import stream_keys

# ------------------------------------------------------------------------------ table layouts
CARD_COST, CARD_RES, CARD_ID, CARD_AGAIN, CARD_DRAW, CARD_ST0, CARD_ST1 = range(7)
CARD_COLS = 7
ST_HASCOND, ST_LSIDE, ST_LSTAT, ST_CMP, ST_RSIDE, ST_RSTAT, ST_RCONST, ST_T0, ST_T1, ST_E0, ST_E1 = range(11)
ST_COLS = 11
OP_KIND, OP_WHO, OP_STAT, OP_AMOUNT, OP_SRCSIDE, OP_SRCSTAT = range(6)
OP_COLS = 6
K_ADD, K_DAMAGE, K_SET, K_SWAP, K_STEAL = range(5)
W_SELF, W_ENEMY, W_ALL, W_LOWER_BOTH, W_LOWER_NOBODY = range(5)
CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_EQ, CMP_NE = range(6)

# outcome: winner 0 / 1 / 2 (= draw); reasons are 1 + the index in rules.REASONS
R_NONE, R_BUILT, R_DESTROYED, R_RESOURCES, R_DRAW, R_TURN_LIMIT, R_TIMEOUT = range(7)
AGENT_RANDOM, AGENT_GREEDY = 0, 1
FIRST_P1, FIRST_P2, FIRST_RANDOM = 0, 1, 2
# result columns: winner, reason, length, first, 16 stats, missed p1, missed p2
RES_WINNER, RES_REASON, RES_LENGTH, RES_FIRST, RES_STATS, RES_MISSED = 0, 1, 2, 3, 4, 20
RES_COLS = 22

WIN = 1.0e9
DRAW_SCORE = -1.0e6  # agents.DRAW_SCORE

_STREAM_K = stream_keys(6)


# ------------------------------------------------------------------------------------- effects
@nb.njit(**_INLINE)
def _targets(p, me, who):
    """``rules.targets`` as up to two seats (-1: none), in the reference order."""
    en = 1 - me
    if who == W_SELF:
        return me, -1
    if who == W_ENEMY:
        return en, -1
    if who == W_ALL:
        return me, en
    mine = p[8 * me + 1]
    theirs = p[8 * en + 1]
    if mine < theirs:
        return me, -1
    if theirs < mine:
        return en, -1
    if who == W_LOWER_BOTH:
        return me, en
    return -1, -1


@nb.njit(**_INLINE)
def _hit(p, seat, amount):
    """``rules.damage``: the wall absorbs first, the rest hits the tower."""
    wall = p[8 * seat + 1]
    absorbed = min(wall, amount)
    p[8 * seat + 1] = wall - absorbed
    p[8 * seat] = max(0, p[8 * seat] - (amount - absorbed))


@nb.njit(**_INLINE)
def _apply_op(p, me, ops, k, thief_up):
    """``rules.apply_op`` on ``p`` in place."""
    kind = ops[k, OP_KIND]
    stat = ops[k, OP_STAT]
    amount = ops[k, OP_AMOUNT]
    en = 1 - me
    if kind == K_ADD:
        t0, t1 = _targets(p, me, ops[k, OP_WHO])
        if t0 >= 0:
            p[8 * t0 + stat] = max(0, p[8 * t0 + stat] + amount)
        if t1 >= 0:
            p[8 * t1 + stat] = max(0, p[8 * t1 + stat] + amount)
    elif kind == K_DAMAGE:
        t0, t1 = _targets(p, me, ops[k, OP_WHO])
        if t0 >= 0:
            _hit(p, t0, amount)
        if t1 >= 0:
            _hit(p, t1, amount)
    elif kind == K_SET:
        value = p[8 * (me ^ ops[k, OP_SRCSIDE]) + ops[k, OP_SRCSTAT]]
        p[8 * (me ^ ops[k, OP_WHO]) + stat] = max(0, value)
    elif kind == K_SWAP:
        mine = p[8 * me + stat]
        theirs = p[8 * en + stat]
        p[8 * me + stat] = max(0, theirs)
        p[8 * en + stat] = max(0, mine)
    else:  # K_STEAL
        before = p[8 * en + stat]
        lost = min(before, amount)
        gain = (lost + 1) // 2 if thief_up else lost // 2
        p[8 * en + stat] = max(0, before - lost)
        p[8 * me + stat] = max(0, p[8 * me + stat] + gain)


@nb.njit(**_INLINE)
def _holds(p, me, stmts, k):
    """``rules.condition_holds``."""
    lhs = p[8 * (me ^ stmts[k, ST_LSIDE]) + stmts[k, ST_LSTAT]]
    if stmts[k, ST_RSIDE] >= 0:
        rhs = p[8 * (me ^ stmts[k, ST_RSIDE]) + stmts[k, ST_RSTAT]]
    else:
        rhs = stmts[k, ST_RCONST]
    cmp = stmts[k, ST_CMP]
    if cmp == CMP_LT:
        return lhs < rhs
    if cmp == CMP_LE:
        return lhs <= rhs
    if cmp == CMP_GT:
        return lhs > rhs
    if cmp == CMP_GE:
        return lhs >= rhs
    if cmp == CMP_EQ:
        return lhs == rhs
    return lhs != rhs


@nb.njit(**_INLINE)
def _apply_effect(p, me, card, cards, stmts, ops, thief_up):
    """``rules.apply_effect``: statements left to right, each condition evaluated when reached."""
    for k in range(cards[card, CARD_ST0], cards[card, CARD_ST1]):
        if stmts[k, ST_HASCOND] == 0 or _holds(p, me, stmts, k):
            a, b = stmts[k, ST_T0], stmts[k, ST_T1]
        else:
            a, b = stmts[k, ST_E0], stmts[k, ST_E1]
        for j in range(a, b):
            _apply_op(p, me, ops, j, thief_up)


@nb.njit(**_INLINE)
def _win_reason(p, me, win_tower, win_resources):
    b = 8 * me
    if p[b] >= win_tower:
        return R_BUILT
    if p[8 * (1 - me)] == 0:
        return R_DESTROYED
    if max(p[b + 5], max(p[b + 6], p[b + 7])) >= win_resources:
        return R_RESOURCES
    return R_NONE


@nb.njit(**_INLINE)
def _check_victory(p, win_tower, win_resources):
    """``rules.check_victory`` as (winner, reason); reason R_NONE while nobody has won."""
    r0 = _win_reason(p, 0, win_tower, win_resources)
    r1 = _win_reason(p, 1, win_tower, win_resources)
    if r0 != R_NONE and r1 != R_NONE:
        return 2, R_DRAW
    if r0 != R_NONE:
        return 0, r0
    if r1 != R_NONE:
        return 1, r1
    return 2, R_NONE


# -------------------------------------------------------------------------------------- greedy
@nb.njit(**_INLINE)
def _evaluate(p, me, w8):
    """``agents.evaluate``: one float sum in STATS order (``w8[me]`` are the mover's weights)."""
    b = 8 * me
    e = 8 * (1 - me)
    total = 0.0
    for i in range(8):
        total += w8[me, i] * np.float64(p[b + i] - p[e + i])
    return total


@nb.njit(**_INLINE)
def _score_play(p, q, me, card, cards, stmts, ops, thief_up, win_tower, win_resources, w8, w_again):
    """``agents.score_action`` for a play (``q`` is scratch)."""
    for i in range(16):
        q[i] = p[i]
    slot = 8 * me + cards[card, CARD_RES]
    q[slot] = max(0, q[slot] - cards[card, CARD_COST])
    _apply_effect(q, me, card, cards, stmts, ops, thief_up)
    winner, reason = _check_victory(q, win_tower, win_resources)
    if reason != R_NONE:
        if winner == me:
            return WIN
        if winner == 1 - me:
            return -WIN
        return DRAW_SCORE
    score = _evaluate(q, me, w8)
    if cards[card, CARD_AGAIN] != 0:
        score += w_again
    return score


# ---------------------------------------------------------------------------------- deck, hand
@nb.njit(**_INLINE)
def _draw(state, seat, hands, deck, disc, rng, n, unlimited):
    """``rules.draw_card``: the card drawn into ``seat``'s hand, or -1 when nothing is left.

    ``state`` holds [hand length p1, hand length p2, draw-pile position, draw-pile end, discard
    length]; the draw pile is ``deck[pos:end]``, the discard pile ``disc[:length]``.
    """
    if unlimited:
        card = _below(rng, 0, n)
    else:
        if state[2] == state[3]:
            m = state[4]
            if m == 0:
                return -1
            for i in range(m):
                deck[i] = disc[i]
            _shuffle(rng, 0, deck, m)
            state[2] = 0
            state[3] = m
            state[4] = 0
        card = deck[state[2]]
        state[2] += 1
    hands[seat, state[seat]] = card
    state[seat] += 1
    return card


@nb.njit(**_INLINE)
def _remove(state, seat, slot, hands, disc, unlimited):
    """Take the card in ``slot`` out of the hand (the gap closes) onto the discard pile.

    The unlimited deck never draws from its discard pile, so it keeps none.
    """
    card = hands[seat, slot]
    for i in range(slot, state[seat] - 1):
        hands[seat, i] = hands[seat, i + 1]
    state[seat] -= 1
    if not unlimited:
        disc[state[4]] = card
        state[4] += 1
    return card


@nb.njit(**_INLINE)
def _worst_slot(hands, seat, length, values):
    best_slot = 0
    best = values[hands[seat, 0]]
    for s in range(1, length):
        v = values[hands[seat, s]]
        if v < best:
            best_slot = s
            best = v
    return best_slot


# ---------------------------------------------------------------------------------------- games
@nb.njit(**_INLINE)
def _deal(p, start, first, hands, deck, state, rng, n, h, unlimited):
    """``rules.new_game``: start positions, then p1's hand and p2's hand from the deck stream.

    ``start[:8]`` is the battlefield's start, ``start[8:]`` the second mover's bonus.
    """
    second = 8 * (1 - first)
    for i in range(8):
        p[i] = start[i]
        p[8 + i] = start[i]
        p[second + i] += start[8 + i]
    if unlimited:
        for s in range(2):
            for i in range(h):
                hands[s, i] = _below(rng, 0, n)
        state[2] = 0
        state[3] = 0
    else:
        for i in range(n):
            deck[i] = i
        _shuffle(rng, 0, deck, n)
        for s in range(2):
            for i in range(h):
                hands[s, i] = deck[s * h + i]
        state[2] = 2 * h
        state[3] = n
    state[0] = h
    state[1] = h
    state[4] = 0


@nb.njit(**_INLINE)
def _greedy(p, q, cur, hands, length, aff, n_aff, cards, stmts, ops, thief_up, win_tower, win_resources, w8,
            weights, values):
    """``GreedyAgent.act``: index into the legal actions (plays in slot order, then discards).

    ``q[i]`` keeps the position after play ``i`` (the kernel takes the chosen one instead of
    playing the card a second time); separate rows let the plays' scores overlap in the CPU.
    """
    best = -np.inf
    choice = 0
    for i in range(n_aff):
        sc = _score_play(p, q[i], cur, hands[cur, aff[i]], cards, stmts, ops, thief_up, win_tower, win_resources,
                         w8, weights[cur, 4])
        if sc > best:
            best = sc
            choice = i
    if length > 0:
        here = _evaluate(p, cur, w8)
        wd = weights[cur, 5]
        for j in range(length):
            sc = here - wd * values[hands[cur, j]]
            if sc > best:
                best = sc
                choice = n_aff + j
    return choice


@nb.njit(**_JIT)
def play_games(seeds, g0, first_mode, agent_kind, weights, w8, values, cards, stmts, ops, start, win_tower,
               win_resources, unlimited, hand_size, max_turns, miss_rate, max_missed, thief_up,
               res, drawn, played, offsets, cursors, p, q, hands, deck, disc, state, rng, aff):
    """Play games ``g0..`` (``play.play_game``) until done or an id buffer is nearly full.

    Returns the index of the first game not played: ``len(seeds)`` when done, else the caller
    grows ``drawn`` / ``played`` and calls again from there (that game restarts from its seed).
    ``res[g]``: RES_* columns.  ``drawn[s]`` / ``played[s]``: card ids of seat ``s``, game after
    game; ``cursors`` = [drawn p1, drawn p2, played p1, played p2] fill levels; game ``g``'s ids
    are ``drawn[s, offsets[s, g]:offsets[s, g + 1]]`` and ``played[s, offsets[2 + s, g]:...]``.
    ``start``: the battlefield's start position then the second mover's bonus (16 values).
    ``weights[s]``: greedy weights of seat ``s`` as [tower, wall, producer, resource, again,
    discard]; ``w8[s]`` the same spread over the eight stats.  The rest is scratch space
    (``q``: one row of 16 per possible greedy play).
    """
    n_games = seeds.shape[0]
    n = cards.shape[0]
    h = hand_size
    cap_drawn = drawn.shape[1] - 2 * h - 4  # a turn draws at most 2h cards and plays at most h
    cap_played = played.shape[1] - h - 4
    for g in range(g0, n_games):
        seed = seeds[g]
        for k in range(5):
            rng[k] = _mix(seed ^ _STREAM_K[k + 1])  # 0 deck, 1 p1, 2 p2, 3 timer, 4 first
        for k in range(4):
            offsets[k, g] = cursors[k]
        if cursors[0] + h > cap_drawn or cursors[1] + h > cap_drawn:
            return g
        cur = _below(rng, 4, 2) if first_mode == FIRST_RANDOM else first_mode
        first = cur
        _deal(p, start, first, hands, deck, state, rng, n, h, unlimited)
        for s in range(2):
            for i in range(h):
                drawn[s, cursors[s]] = cards[hands[s, i], CARD_ID]
                cursors[s] += 1
        turn = 0
        missed0 = 0
        missed1 = 0
        total0 = 0
        total1 = 0
        winner = 2
        reason = R_NONE
        while True:
            if cursors[cur] > cap_drawn or cursors[2 + cur] > cap_played:
                for k in range(4):
                    cursors[k] = offsets[k, g]
                return g
            b = 8 * cur
            p[b + 5] += p[b + 2]
            p[b + 6] += p[b + 3]
            p[b + 7] += p[b + 4]
            turn += 1
            winner, reason = _check_victory(p, win_tower, win_resources)
            if reason != R_NONE:
                break
            if miss_rate > 0.0 and _random(rng, 3) < miss_rate:
                if cur == 0:
                    missed0 += 1
                    total0 += 1
                    run = missed0
                else:
                    missed1 += 1
                    total1 += 1
                    run = missed1
                _remove(state, cur, _worst_slot(hands, cur, state[cur], values), hands, disc, unlimited)
                if run >= max_missed:
                    winner, reason = 1 - cur, R_TIMEOUT
                    break
                winner, reason = _check_victory(p, win_tower, win_resources)
                if reason != R_NONE:
                    break
            else:
                if cur == 0:
                    missed0 = 0
                else:
                    missed1 = 0
                pending = False  # a draw-then-discard waits for its discard
                pending_again = False  # ... and its card says "play again"
                agent = agent_kind[cur]
                while True:  # the actions of this turn
                    length = state[cur]
                    n_aff = 0
                    if not pending:
                        for s in range(length):
                            c = hands[cur, s]
                            if p[b + cards[c, CARD_RES]] >= cards[c, CARD_COST]:
                                aff[n_aff] = s
                                n_aff += 1
                    n_legal = n_aff + length
                    if n_legal == 0:  # "play again" with an empty hand: the turn ends
                        break
                    if agent == AGENT_RANDOM:
                        choice = _below(rng, 1 + cur, n_legal)
                    else:
                        choice = _greedy(p, q, cur, hands, length, aff, n_aff, cards, stmts, ops, thief_up,
                                         win_tower, win_resources, w8, weights, values)
                    if choice >= n_aff:  # discard
                        _remove(state, cur, choice - n_aff, hands, disc, unlimited)
                        winner, reason = _check_victory(p, win_tower, win_resources)
                        if reason != R_NONE:
                            break
                        if pending and pending_again:
                            pending = False
                            continue
                        break
                    card = _remove(state, cur, aff[choice], hands, disc, unlimited)
                    if agent == AGENT_RANDOM:
                        slot = b + cards[card, CARD_RES]
                        p[slot] = max(0, p[slot] - cards[card, CARD_COST])
                        _apply_effect(p, cur, card, cards, stmts, ops, thief_up)
                    else:  # greedy already played it on a copy (pay, then the effect)
                        for k in range(16):
                            p[k] = q[choice, k]
                    played[cur, cursors[2 + cur]] = cards[card, CARD_ID]
                    cursors[2 + cur] += 1
                    winner, reason = _check_victory(p, win_tower, win_resources)
                    if reason != R_NONE:
                        break
                    if cards[card, CARD_DRAW] != 0:
                        c = _draw(state, cur, hands, deck, disc, rng, n, unlimited)
                        if c >= 0:
                            drawn[cur, cursors[cur]] = cards[c, CARD_ID]
                            cursors[cur] += 1
                        pending = True
                        pending_again = cards[card, CARD_AGAIN] != 0
                        continue
                    if cards[card, CARD_AGAIN] != 0:
                        continue
                    break
                if reason != R_NONE:
                    break
            # end of turn: refill, then the turn limit
            while state[cur] < h:
                c = _draw(state, cur, hands, deck, disc, rng, n, unlimited)
                if c < 0:
                    break
                drawn[cur, cursors[cur]] = cards[c, CARD_ID]
                cursors[cur] += 1
            if turn >= max_turns:
                winner, reason = 2, R_TURN_LIMIT
                break
            cur = 1 - cur
        res[g, RES_WINNER] = winner
        res[g, RES_REASON] = reason
        res[g, RES_LENGTH] = turn
        res[g, RES_FIRST] = first
        for i in range(16):
            res[g, RES_STATS + i] = p[i]
        res[g, RES_MISSED] = total0
        res[g, RES_MISSED + 1] = total1
    for k in range(4):
        offsets[k, n_games] = cursors[k]
    return n_games


# ------------------------------------------------------------------------ continue from a state
# a world's scalars (``continue_games``' ``scal`` rows): the seat to move, turns begun, whether it is acting (a
# decision) or at the turn's start, a pending draw-then-discard and its card's "play again", missed turns in a row,
# the hand lengths and the draw and discard piles' lengths
W_CUR, W_TURN, W_ACTING, W_PENDING, W_PENDING_AGAIN, W_MISSED, W_HAND_LEN, W_DECK_LEN, W_DISC_LEN = (
    0, 1, 2, 3, 4, 5, 7, 9, 10)
W_COLS = 11


@nb.njit(**_JIT)
def _play_on(p, q, hands, deck, disc, state, rng, aff, cur, turn, acting, pending, pending_again, missed0, missed1,
             forced_kind, forced_slot, stop, agent_kind, weights, w8, values, cards, stmts, ops, win_tower,
             win_resources, unlimited, h, max_turns, miss_rate, max_missed, thief_up):
    """The turn loop of :func:`play_games` from a given position: ``(winner, reason, turns begun)``.

    It starts inside ``cur``'s turn when ``acting`` (the first decision plays ``(forced_kind,
    forced_slot)`` when ``forced_kind >= 0``), else at the start of ``cur``'s turn.  With ``stop > 0``
    it stops (reason ``R_NONE``) at the first position where ``stop`` turns have begun, as core's
    ``search.play_on`` does with the game's clock.  Records nothing.
    """
    n = cards.shape[0]
    winner = 2
    reason = R_NONE
    mid = acting != 0
    while True:
        b = 8 * cur
        if not mid:
            if stop > 0 and turn >= stop:
                return 2, R_NONE, turn
            p[b + 5] += p[b + 2]
            p[b + 6] += p[b + 3]
            p[b + 7] += p[b + 4]
            turn += 1
            winner, reason = _check_victory(p, win_tower, win_resources)
            if reason != R_NONE:
                break
            missed = miss_rate > 0.0 and _random(rng, 3) < miss_rate
            if missed:
                if cur == 0:
                    missed0 += 1
                    run = missed0
                else:
                    missed1 += 1
                    run = missed1
                _remove(state, cur, _worst_slot(hands, cur, state[cur], values), hands, disc, unlimited)
                if run >= max_missed:
                    winner, reason = 1 - cur, R_TIMEOUT
                    break
                winner, reason = _check_victory(p, win_tower, win_resources)
                if reason != R_NONE:
                    break
            else:
                if cur == 0:
                    missed0 = 0
                else:
                    missed1 = 0
                pending = 0
                pending_again = 0
                if stop > 0 and turn >= stop:
                    return 2, R_NONE, turn
        else:
            missed = False
        mid = False
        if not missed:
            agent = agent_kind[cur]
            while True:  # the actions of this turn
                length = state[cur]
                n_aff = 0
                if pending == 0:
                    for s in range(length):
                        c = hands[cur, s]
                        if p[b + cards[c, CARD_RES]] >= cards[c, CARD_COST]:
                            aff[n_aff] = s
                            n_aff += 1
                n_legal = n_aff + length
                if n_legal == 0:
                    break
                if forced_kind >= 0:
                    choice = n_aff + forced_slot
                    if forced_kind == 0:
                        for i in range(n_aff):
                            if aff[i] == forced_slot:
                                choice = i
                    forced_kind = -1
                    if choice < n_aff:
                        _score_play(p, q[choice], cur, hands[cur, aff[choice]], cards, stmts, ops, thief_up,
                                    win_tower, win_resources, w8, 0.0)
                elif agent == AGENT_RANDOM:
                    choice = _below(rng, 1 + cur, n_legal)
                    if choice < n_aff:
                        _score_play(p, q[choice], cur, hands[cur, aff[choice]], cards, stmts, ops, thief_up,
                                    win_tower, win_resources, w8, 0.0)
                else:
                    choice = _greedy(p, q, cur, hands, length, aff, n_aff, cards, stmts, ops, thief_up,
                                     win_tower, win_resources, w8, weights, values)
                if choice >= n_aff:  # discard
                    _remove(state, cur, choice - n_aff, hands, disc, unlimited)
                    winner, reason = _check_victory(p, win_tower, win_resources)
                    if reason != R_NONE:
                        break
                    if pending != 0 and pending_again != 0:
                        pending = 0
                        continue
                    break
                card = _remove(state, cur, aff[choice], hands, disc, unlimited)
                for k in range(16):  # the play was carried out on q[choice] (pay, then the effect)
                    p[k] = q[choice, k]
                winner, reason = _check_victory(p, win_tower, win_resources)
                if reason != R_NONE:
                    break
                if cards[card, CARD_DRAW] != 0:
                    _draw(state, cur, hands, deck, disc, rng, n, unlimited)
                    pending = 1
                    pending_again = cards[card, CARD_AGAIN]
                    continue
                if cards[card, CARD_AGAIN] != 0:
                    continue
                break
            if reason != R_NONE:
                break
        # end of turn: refill, then the turn limit
        while state[cur] < h:
            if _draw(state, cur, hands, deck, disc, rng, n, unlimited) < 0:
                break
        pending = 0
        if turn >= max_turns:
            winner, reason = 2, R_TURN_LIMIT
            break
        cur = 1 - cur
    return winner, reason, turn


@nb.njit(**_JIT)
def continue_games(wp, whands, wscal, wdeck, wdisc, wrng, actions, me, stop_after, scale, agent_kind, weights, w8,
                   ew8, values, cards, stmts, ops, win_tower, win_resources, unlimited, hand_size, max_turns,
                   miss_rate, max_missed, thief_up, out, res, p, q, hands, deck, disc, state, rng, aff):
    """Every action of ``actions`` played in every world, then the game played on: ``out[world, action]``.

    A world is a position at a decision or a turn's start: ``wp[w]`` the 16 statistics, ``whands[w, s]``
    the hands, ``wscal[w]`` the ``W_*`` scalars, ``wdeck[w]`` the draw pile (next card first),
    ``wdisc[w]`` the discard pile, ``wrng[w]`` the streams (deck, p1's agent, p2's agent, timer).
    ``actions[a]`` is ``(kind, slot)`` (kind -1: none, the agents decide).  ``stop_after`` > 0 cuts a
    rollout once that many more turns have begun.  ``out``: 1 when ``me`` won, 0.5 a draw, 0 a loss, and
    for a cut rollout the logistic of greedy's evaluation with weights ``ew8`` over ``scale``.  ``res[w,
    a]``: winner, reason, turns begun, then the 16 statistics (the parity test reads them).
    """
    for wi in range(wp.shape[0]):
        for ai in range(actions.shape[0]):
            for i in range(16):
                p[i] = wp[wi, i]
            for s in range(2):
                state[s] = wscal[wi, W_HAND_LEN + s]
                for i in range(state[s]):
                    hands[s, i] = whands[wi, s, i]
            state[2] = 0
            state[3] = wscal[wi, W_DECK_LEN]
            state[4] = wscal[wi, W_DISC_LEN]
            for i in range(state[3]):
                deck[i] = wdeck[wi, i]
            for i in range(state[4]):
                disc[i] = wdisc[wi, i]
            for k in range(4):
                rng[k] = wrng[wi, k]
            turn = wscal[wi, W_TURN]
            stop = turn + stop_after if stop_after > 0 else 0
            winner, reason, turns = _play_on(
                p, q, hands, deck, disc, state, rng, aff, wscal[wi, W_CUR], turn, wscal[wi, W_ACTING],
                wscal[wi, W_PENDING], wscal[wi, W_PENDING_AGAIN], wscal[wi, W_MISSED], wscal[wi, W_MISSED + 1],
                actions[ai, 0], actions[ai, 1], stop, agent_kind, weights, w8, values, cards, stmts, ops, win_tower,
                win_resources, unlimited, hand_size, max_turns, miss_rate, max_missed, thief_up)
            out[wi, ai] = _squash(_evaluate(p, me, ew8), scale) if reason == R_NONE else _outcome_worth(winner, me)
            res[wi, ai, 0] = winner
            res[wi, ai, 1] = reason
            res[wi, ai, 2] = turns
            for i in range(16):
                res[wi, ai, 3 + i] = p[i]


