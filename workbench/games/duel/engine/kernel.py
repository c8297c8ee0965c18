"""The compiled duel kernel (numba): whole games for the random and greedy agents, bit for bit.

Every function here mirrors one of ``rules.py``, ``agents.py`` or ``play.py`` and draws from the
same SplitMix64 sub-streams in the same order (``workbench/core/rng.py``).  The card effects come
in as integer tables compiled by ``fast.compile_tables`` from the parsed ``effects`` tuples, so an
edited ``cards.csv`` is played without code changes.  All state lives in arrays the caller
preallocates; the kernel allocates nothing (compiled without numba's reference counting), and
when an output buffer fills up it returns so the caller can grow it and resume.

What C does not pay, this kernel does not pay either (``benchmarks/duel_profile.py``):

* every table and scratch array the game loop reads is one-dimensional with a constant row
  stride (a card is ``CARD_COLS`` values, a hand ``HAND_STRIDE`` slots), so an address is a shift
  and an add, not a multiplication by a stride kept in a spilled register;
* every computed index goes through :func:`_ix`, which clears the sign bit: the value is the same
  (indices are never negative) but the compiler then knows it, and drops the negative-index
  wrap-around numba adds to every signed index (a compare, a select and a load of the length);
* a hand slot holds the card packed with its cost and resource (:func:`_key`), so the legality
  scan of a hand reads one array instead of chasing card -> table -> statistic, and closing a
  gap in the hand moves one value per slot;
* no branch the processor cannot predict where a few instructions do: the legality scan
  (:func:`_affordable`) and closing the gap (:func:`_remove`) run without a data-dependent
  branch, and the adds and damage on self, enemy or both — nearly every op of the shipped cards —
  are one ``K_DELTA`` row each, played without a branch (:func:`_apply_op`);
* the rare ops and conditions stay out of line (:func:`_apply_rare_op` is a call), which keeps the
  compiled loop small and its compile time below the old one's;
* a discard changes no statistic, so no victory check follows it (the reference's check there can
  never fire: the position was checked after production or the last play).

Encodings (shared with ``fast.py``):

* players ``p``: int64[16], seat ``s`` stat ``i`` (``effects.STATS`` order) at ``8 * s + i``;
* ``cards[CARD_COLS * c + CARD_*]``, ``stmts[ST_COLS * k + ST_*]``, ``ops[OP_COLS * k + OP_*]``;
* hands: ``hands[HAND_STRIDE * s + slot]``, a card's :func:`_key`;
* an op's ``who`` is one of W_* (the variants are resolved when the tables are built);
  a side (condition / ``set`` source) is 0 for self and 1 for enemy, so its seat is ``me ^ side``.
"""

from __future__ import annotations

import numpy as np

from workbench.core.sim.rng_numba import below as _below
from workbench.core.sim.rng_numba import compiled as _compiled
from workbench.core.sim.rng_numba import inlined as _inlined
from workbench.core.sim.rng_numba import mix as _mix
from workbench.core.sim.rng_numba import outcome_worth as _outcome_worth
from workbench.core.sim.rng_numba import random as _random
from workbench.core.sim.rng_numba import shuffle as _shuffle
from workbench.core.sim.rng_numba import squash as _squash
from workbench.core.sim.rng_numba import stream_keys

# ------------------------------------------------------------------------------ table layouts
# a card: cost, resource, id, "again", "draw_discard", then its rows: ops FIRST..LAST when SIMPLE (no statement has a
# condition: the statements' ops follow each other), else statements FIRST..LAST
CARD_COST, CARD_RES, CARD_ID, CARD_AGAIN, CARD_DRAW, CARD_FIRST, CARD_LAST, CARD_SIMPLE = range(8)
CARD_COLS = 8
ST_HASCOND, ST_LSIDE, ST_LSTAT, ST_CMP, ST_RSIDE, ST_RSTAT, ST_RCONST, ST_T0, ST_T1, ST_E0, ST_E1 = range(11)
ST_COLS = 16
OP_KIND, OP_WHO, OP_STAT, OP_AMOUNT, OP_SRCSIDE, OP_SRCSTAT = range(6)
# a K_DELTA op (an add or a damage on one side, a side as the other tables' sides): the target's and the absorbing
# statistic's slots for a mover in seat 0 (a mover in seat s: slot ^ 8s), the change, and how much the absorbing
# statistic takes first (damage: wall and tower with cap = amount; add: cap 0, the absorbing slot untouched)
OP_TARGET, OP_ABSORB, OP_DELTA, OP_CAP = 1, 2, 3, 4
OP_COLS = 8
K_ADD, K_DAMAGE, K_SET, K_SWAP, K_STEAL, K_DELTA = range(6)
W_SELF, W_ENEMY, W_ALL, W_LOWER_BOTH, W_LOWER_NOBODY = range(5)
CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_EQ, CMP_NE = range(6)
HAND_STRIDE = 32  # slots per seat in the hand arrays: hand_size (at most 20) + a drawn card, padded
Q_COLS = 16  # a greedy candidate's position (``q`` rows)

# outcome: winner 0 / 1 / 2 (= draw); reasons are 1 + the index in rules.REASONS
R_NONE, R_BUILT, R_DESTROYED, R_RESOURCES, R_DRAW, R_TURN_LIMIT, R_TIMEOUT = range(7)
AGENT_RANDOM, AGENT_GREEDY = 0, 1
FIRST_P1, FIRST_P2, FIRST_RANDOM = 0, 1, 2
# result columns: winner, reason, length, first, 16 stats, missed p1, missed p2
RES_WINNER, RES_REASON, RES_LENGTH, RES_FIRST, RES_STATS, RES_MISSED = 0, 1, 2, 3, 4, 20
RES_COLS = 22
# the deck scalars (``state``): hand length p1, hand length p2, draw-pile position, draw-pile end, discard length
S_POS, S_END, S_DISC = 2, 3, 4
# the workspace ``ws``: every mutable array of a game in one int64 array (one base address for the compiler to keep
# in a register), at these offsets; the draw pile and the discard pile (``n`` slots each) follow at WS_DECK
WS_P, WS_STATE, WS_CURSORS, WS_AFF, WS_HANDS, WS_Q = 0, 16, 24, 32, 64, 128
WS_DECK = WS_Q + Q_COLS * HAND_STRIDE

WIN = 1.0e9
DRAW_SCORE = -1.0e6  # agents.DRAW_SCORE

_STREAM_K = stream_keys(6)
_POSITIVE = 0x7FFFFFFFFFFFFFFF
# a hand slot's key: cost << KEY_COST | card << KEY_CARD | resource statistic (0..7)
KEY_CARD, KEY_COST = 3, 24
_CARD_MASK = (1 << (KEY_COST - KEY_CARD)) - 1
MAX_KEY_CARDS, MAX_KEY_COST = _CARD_MASK + 1, (1 << (63 - KEY_COST)) - 1


@_inlined
def _ix(i):
    """``i`` itself (indices are never negative), told to the compiler: no wrap-around code for it."""
    return i & _POSITIVE


def workspace_size(n: int) -> int:
    """Slots of the workspace ``ws`` for a card set of ``n`` cards."""
    return WS_DECK + 2 * n


@_inlined
def _views(ws, n):
    """The workspace's arrays: p, q, hands, deck, disc, state, cursors, aff."""
    return (ws[WS_P:WS_P + 16], ws[WS_Q:WS_DECK], ws[WS_HANDS:WS_Q], ws[WS_DECK:WS_DECK + n],
            ws[WS_DECK + n:WS_DECK + 2 * n], ws[WS_STATE:WS_STATE + 8], ws[WS_CURSORS:WS_CURSORS + 8],
            ws[WS_AFF:WS_HANDS])


@_inlined
def _key(cards, card):
    """A hand slot's value: the card with its cost and the statistic that pays it."""
    c = _ix(CARD_COLS * card)
    return (cards[c + CARD_COST] << KEY_COST) | (card << KEY_CARD) | cards[c + CARD_RES]


@_inlined
def _card_of(key):
    return (key >> KEY_CARD) & _CARD_MASK


# ------------------------------------------------------------------------------------- effects
@_inlined
def _targets(p, me, who):
    """``rules.targets`` as up to two seats (-1: none), in the reference order."""
    en = 1 - me
    if who == W_SELF:
        return me, -1
    if who == W_ENEMY:
        return en, -1
    if who == W_ALL:
        return me, en
    mine = p[_ix(8 * me + 1)]
    theirs = p[_ix(8 * en + 1)]
    if mine < theirs:
        return me, -1
    if theirs < mine:
        return en, -1
    if who == W_LOWER_BOTH:
        return me, en
    return -1, -1


@_inlined
def _hit(p, seat, amount):
    """``rules.damage``: the wall absorbs first, the rest hits the tower."""
    b = _ix(8 * seat)
    wall = p[b + 1]
    absorbed = min(wall, amount)
    p[b + 1] = wall - absorbed
    p[b] = max(0, p[b] - (amount - absorbed))


@_inlined
def _add(p, slot, amount):
    slot = _ix(slot)
    p[slot] = max(0, p[slot] + amount)


@_inlined
def _apply_op(p, me, ops, k, thief_up):
    """``rules.apply_op`` on ``p`` in place (``k``: the op's row).

    A K_DELTA op is ``rules.damage`` (the wall absorbs first) or a clamped add without a branch: the
    absorbing slot takes ``min(its value, cap)``, which is 0 for an add (statistics are never negative).
    """
    o = _ix(OP_COLS * k)
    kind = ops[o + OP_KIND]
    if kind == K_DELTA:
        b = 8 * me
        a = _ix(ops[o + OP_ABSORB] ^ b)
        t = _ix(ops[o + OP_TARGET] ^ b)
        absorbed = min(p[a], ops[o + OP_CAP])
        p[a] -= absorbed
        p[t] = max(0, p[t] + ops[o + OP_DELTA] + absorbed)
        return
    _apply_rare_op(p, me, ops, o, kind, thief_up)


@_compiled
def _apply_rare_op(p, me, ops, o, kind, thief_up):
    """The ops other than K_DELTA: adds and damage on the lower wall, set, swap and steal (row start ``o``).

    A call, not inlined: few cards have them, and every inlined copy costs compile time.
    """
    stat = ops[o + OP_STAT]
    amount = ops[o + OP_AMOUNT]
    en = 1 - me
    if kind == K_ADD:
        t0, t1 = _targets(p, me, ops[o + OP_WHO])
        if t0 >= 0:
            _add(p, 8 * t0 + stat, amount)
        if t1 >= 0:
            _add(p, 8 * t1 + stat, amount)
    elif kind == K_DAMAGE:
        t0, t1 = _targets(p, me, ops[o + OP_WHO])
        if t0 >= 0:
            _hit(p, t0, amount)
        if t1 >= 0:
            _hit(p, t1, amount)
    elif kind == K_SET:
        value = p[_ix(8 * (me ^ ops[o + OP_SRCSIDE]) + ops[o + OP_SRCSTAT])]
        p[_ix(8 * (me ^ ops[o + OP_WHO]) + stat)] = max(0, value)
    elif kind == K_SWAP:
        ms = _ix(8 * me + stat)
        es = _ix(8 * en + stat)
        mine = p[ms]
        theirs = p[es]
        p[ms] = max(0, theirs)
        p[es] = max(0, mine)
    else:  # K_STEAL
        ms = _ix(8 * me + stat)
        es = _ix(8 * en + stat)
        before = p[es]
        lost = min(before, amount)
        gain = (lost + 1) // 2 if thief_up else lost // 2
        p[es] = max(0, before - lost)
        p[ms] = max(0, p[ms] + gain)


@_inlined
def _holds(p, me, stmts, s):
    """``rules.condition_holds`` (``s``: the statement's row start)."""
    lhs = p[_ix(8 * (me ^ stmts[s + ST_LSIDE]) + stmts[s + ST_LSTAT])]
    if stmts[s + ST_RSIDE] >= 0:
        rhs = p[_ix(8 * (me ^ stmts[s + ST_RSIDE]) + stmts[s + ST_RSTAT])]
    else:
        rhs = stmts[s + ST_RCONST]
    cmp = stmts[s + ST_CMP]
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


@_inlined
def _apply_effect(p, me, card, cards, stmts, ops, thief_up):
    """``rules.apply_effect``: statements left to right, each condition evaluated when reached."""
    c = _ix(CARD_COLS * card)
    if cards[c + CARD_SIMPLE] != 0:
        for j in range(cards[c + CARD_FIRST], cards[c + CARD_LAST]):
            _apply_op(p, me, ops, j, thief_up)
    else:
        _apply_statements(p, me, c, cards, stmts, ops, thief_up)


@_inlined
def _apply_statements(p, me, c, cards, stmts, ops, thief_up):
    """The effect of a card with conditions (row start ``c``)."""
    for k in range(cards[c + CARD_FIRST], cards[c + CARD_LAST]):
        s = _ix(ST_COLS * k)
        if stmts[s + ST_HASCOND] == 0 or _holds(p, me, stmts, s):
            a, b = stmts[s + ST_T0], stmts[s + ST_T1]
        else:
            a, b = stmts[s + ST_E0], stmts[s + ST_E1]
        for j in range(a, b):
            _apply_op(p, me, ops, j, thief_up)


@_inlined
def _pay_and_play(p, me, card, cards, stmts, ops, thief_up):
    """Pay the card's cost (clamped at 0), then its effect: ``rules.play_card``'s change to the statistics."""
    c = _ix(CARD_COLS * card)
    slot = _ix(8 * me + cards[c + CARD_RES])
    p[slot] = max(0, p[slot] - cards[c + CARD_COST])
    _apply_effect(p, me, card, cards, stmts, ops, thief_up)


@_inlined
def _win_reason(p, me, win_tower, win_resources):
    b = _ix(8 * me)
    if p[b] >= win_tower:
        return R_BUILT
    if p[_ix(8 * (1 - me))] == 0:
        return R_DESTROYED
    if max(p[b + 5], max(p[b + 6], p[b + 7])) >= win_resources:
        return R_RESOURCES
    return R_NONE


@_inlined
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
@_inlined
def _evaluate(p, me, w8):
    """``agents.evaluate``: one float sum in STATS order (``w8[8 * me:]`` are the mover's weights)."""
    b = _ix(8 * me)
    e = _ix(8 * (1 - me))
    mine, theirs, w = p[b:b + 8], p[e:e + 8], w8[b:b + 8]
    total = 0.0
    for i in range(8):
        total += w[i] * np.float64(mine[i] - theirs[i])
    return total


@_inlined
def _score_play(p, q, row, me, card, cards, stmts, ops, thief_up, win_tower, win_resources, w8, w_again):
    """``agents.score_action`` for a play, the position after it left in ``q[Q_COLS * row:]``."""
    r = _ix(Q_COLS * row)
    qv = q[r:r + Q_COLS]
    for i in range(16):
        qv[i] = p[i]
    _pay_and_play(qv, me, card, cards, stmts, ops, thief_up)
    winner, reason = _check_victory(qv, win_tower, win_resources)
    if reason != R_NONE:
        if winner == me:
            return WIN
        if winner == 1 - me:
            return -WIN
        return DRAW_SCORE
    score = _evaluate(qv, me, w8)
    if cards[_ix(CARD_COLS * card) + CARD_AGAIN] != 0:
        score += w_again
    return score


# ---------------------------------------------------------------------------------- deck, hand
@_inlined
def _draw(state, seat, hands, cards, deck, disc, rng, n, unlimited):
    """``rules.draw_card``: the card drawn into ``seat``'s hand, or -1 when nothing is left.

    ``state`` holds [hand length p1, hand length p2, draw-pile position, draw-pile end, discard
    length]; the draw pile is ``deck[pos:end]``, the discard pile ``disc[:length]``.
    """
    if unlimited:
        card = _below(rng, 0, n)
    else:
        if state[S_POS] == state[S_END]:
            m = state[S_DISC]
            if m == 0:
                return -1
            for i in range(m):
                deck[i] = disc[i]
            _shuffle(rng, 0, deck, m)
            state[S_POS] = 0
            state[S_END] = m
            state[S_DISC] = 0
        pos = _ix(state[S_POS])
        card = deck[pos]
        state[S_POS] = pos + 1
    seat = _ix(seat)
    length = _ix(state[seat])
    hands[_ix(HAND_STRIDE * seat + length)] = _key(cards, card)
    state[seat] = length + 1
    return card


@_inlined
def _remove(state, seat, slot, hands, disc, unlimited):
    """Take the card in ``slot`` out of the hand (the gap closes) onto the discard pile.

    The unlimited deck never draws from its discard pile, so it keeps none.
    """
    seat = _ix(seat)
    base = HAND_STRIDE * seat
    card = _card_of(hands[_ix(base + slot)])
    length = state[seat] - 1
    for i in range(length):  # every slot of the new hand, the ones from the gap on taken from the next slot: the
        at = _ix(base + i)  # loop runs as long whichever slot goes, so the processor predicts where it ends
        hands[at] = hands[at + (i >= slot)]
    state[seat] = length
    if not unlimited:
        m = _ix(state[S_DISC])
        disc[m] = card
        state[S_DISC] = m + 1
    return card


@_inlined
def _worst_slot(hands, seat, length, values):
    base = _ix(HAND_STRIDE * seat)
    best_slot = 0
    best = values[_card_of(hands[base])]
    for s in range(1, length):
        v = values[_card_of(hands[base + s])]
        if v < best:
            best_slot = s
            best = v
    return best_slot


@_inlined
def _affordable(p, b, hands_base, length, hands, aff):
    """The hand slots whose card ``p[b:b + 8]`` can pay, in slot order, into ``aff``; their count."""
    n_aff = 0
    for s in range(length):  # without a branch: every slot is written, the count moves on when the card is payable
        key = hands[_ix(hands_base + s)]
        aff[_ix(n_aff)] = s
        n_aff += p[_ix(b + (key & 7))] >= key >> KEY_COST
    return n_aff


# ---------------------------------------------------------------------------------------- games
@_inlined
def _deal(p, start, first, hands, cards, deck, state, rng, n, h, unlimited):
    """``rules.new_game``: start positions, then p1's hand and p2's hand from the deck stream.

    ``start[:8]`` is the battlefield's start, ``start[8:]`` the second mover's bonus.
    """
    second = _ix(8 * (1 - first))
    for i in range(8):
        p[i] = start[i]
        p[8 + i] = start[i]
        p[second + i] += start[8 + i]
    if unlimited:
        for s in range(2):
            for i in range(h):
                hands[HAND_STRIDE * s + i] = _key(cards, _below(rng, 0, n))
        state[S_POS] = 0
        state[S_END] = 0
    else:
        for i in range(n):
            deck[i] = i
        _shuffle(rng, 0, deck, n)
        for s in range(2):
            for i in range(h):
                hands[HAND_STRIDE * s + i] = _key(cards, deck[_ix(s * h + i)])
        state[S_POS] = 2 * h
        state[S_END] = n
    state[0] = h
    state[1] = h
    state[S_DISC] = 0


@_inlined
def _greedy(p, q, cur, hands, length, aff, n_aff, cards, stmts, ops, thief_up, win_tower, win_resources, w8,
            weights, values):
    """``GreedyAgent.act``: index into the legal actions (plays in slot order, then discards).

    ``q`` row ``i`` keeps the position after play ``i`` (the kernel takes the chosen one instead of
    playing the card a second time); separate rows let the plays' scores overlap in the CPU.
    """
    base = _ix(HAND_STRIDE * cur)
    w_again = weights[_ix(6 * cur + 4)]
    best = -np.inf
    choice = 0
    for i in range(n_aff):
        card = _card_of(hands[_ix(base + aff[i])])
        sc = _score_play(p, q, i, cur, card, cards, stmts, ops, thief_up, win_tower, win_resources, w8, w_again)
        if sc > best:
            best = sc
            choice = i
    if length > 0:
        here = _evaluate(p, cur, w8)
        wd = weights[_ix(6 * cur + 5)]
        for j in range(length):
            sc = here - wd * values[_card_of(hands[base + j])]
            if sc > best:
                best = sc
                choice = n_aff + j
    return choice


@_inlined
def _take(p, q, choice):
    """The position greedy (or a forced play) computed for the chosen play becomes the game's."""
    r = _ix(Q_COLS * choice)
    for k in range(16):
        p[k] = q[r + k]


R_FULL = -1  # :func:`_play_from` stopped at a turn's start: an id buffer is nearly full


@_compiled
def _play_from(ws, rng, cur, turn, acting, pending, pending_again, missed0, missed1, forced_kind, forced_slot, stop,
               agent_kind, weights, w8, values, cards, stmts, ops, win_tower, win_resources, unlimited, h, max_turns,
               miss_rate, max_missed, thief_up, record, drawn, played):
    """The game's turn loop (``play.play_game``), shared by :func:`play_games` and :func:`continue_games`.

    Returns ``(winner, reason, turns begun, missed turns p1, missed turns p2)`` (the missed turns counted
    from here).  It starts inside ``cur``'s turn when ``acting`` (the first decision plays ``(forced_kind,
    forced_slot)`` when ``forced_kind >= 0``), else at the start of ``cur``'s turn; ``pending`` /
    ``pending_again``: a draw-then-discard waits for its discard and its card says "play again";
    ``missed0`` / ``missed1``: each seat's missed turns in a row.  With ``stop > 0`` it stops (reason
    ``R_NONE``) at the first position where ``stop`` turns have begun, as core's ``search.play_on`` does
    with the game's clock.  With ``record`` the card ids drawn and played go to ``drawn`` / ``played`` at
    the workspace's cursors, and a turn that could overflow them is not begun: reason ``R_FULL``.  Without,
    nothing is recorded (any int64 matrices stand for the buffers).  Compiled once and called once a game
    (inlined into both entries it was compiled twice, half of the engine's compile time).
    """
    n = cards.shape[0] // CARD_COLS
    p, q, hands, deck, disc, state, cursors, aff = _views(ws, n)
    cap_drawn = drawn.shape[1] - 2 * h - 4  # a turn draws at most 2h cards and plays at most h
    cap_played = played.shape[1] - h - 4
    winner = 2
    reason = R_NONE
    total0 = 0
    total1 = 0
    mid = acting != 0
    while True:
        cur = _ix(cur)
        b = 8 * cur
        hb = HAND_STRIDE * cur
        missed = False
        if not mid:
            if record and (cursors[cur] > cap_drawn or cursors[2 + cur] > cap_played):
                return 2, R_FULL, turn, total0, total1
            if stop > 0 and turn >= stop:
                return 2, R_NONE, turn, total0, total1
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
                # (the reference checks victory again here; a discard changes no statistic and the position was
                # checked after production, so nobody has won)
            else:
                if cur == 0:
                    missed0 = 0
                else:
                    missed1 = 0
                pending = 0
                pending_again = 0
                if stop > 0 and turn >= stop:
                    return 2, R_NONE, turn, total0, total1
        mid = False
        if not missed:
            agent = agent_kind[cur]
            while True:  # the actions of this turn
                length = state[cur]
                n_aff = 0 if pending != 0 else _affordable(p, b, hb, length, hands, aff)
                n_legal = n_aff + length
                if n_legal == 0:  # "play again" with an empty hand: the turn ends
                    break
                greedy = False
                if forced_kind >= 0:
                    choice = n_aff + forced_slot
                    if forced_kind == 0:
                        for i in range(n_aff):
                            if aff[i] == forced_slot:
                                choice = i
                    forced_kind = -1
                elif agent == AGENT_RANDOM:
                    choice = _below(rng, 1 + cur, n_legal)
                else:
                    choice = _greedy(p, q, cur, hands, length, aff, n_aff, cards, stmts, ops, thief_up,
                                     win_tower, win_resources, w8, weights, values)
                    greedy = True
                if choice >= n_aff:  # discard: no statistic changes, so (unlike the reference) no victory check
                    _remove(state, cur, choice - n_aff, hands, disc, unlimited)
                    if pending != 0 and pending_again != 0:
                        pending = 0
                        continue
                    break
                card = _remove(state, cur, aff[_ix(choice)], hands, disc, unlimited)
                c = _ix(CARD_COLS * card)
                if greedy:  # greedy already played it on a copy (pay, then the effect)
                    _take(p, q, choice)
                else:
                    _pay_and_play(p, cur, card, cards, stmts, ops, thief_up)
                if record:
                    played[cur, _ix(cursors[2 + cur])] = cards[c + CARD_ID]
                    cursors[2 + cur] += 1
                winner, reason = _check_victory(p, win_tower, win_resources)
                if reason != R_NONE:
                    break
                if cards[c + CARD_DRAW] != 0:
                    d = _draw(state, cur, hands, cards, deck, disc, rng, n, unlimited)
                    if record and d >= 0:
                        drawn[cur, _ix(cursors[cur])] = cards[_ix(CARD_COLS * d) + CARD_ID]
                        cursors[cur] += 1
                    pending = 1
                    pending_again = cards[c + CARD_AGAIN]
                    continue
                if cards[c + CARD_AGAIN] != 0:
                    continue
                break
            if reason != R_NONE:
                break
        # end of turn: refill, then the turn limit
        while state[cur] < h:
            d = _draw(state, cur, hands, cards, deck, disc, rng, n, unlimited)
            if d < 0:
                break
            if record:
                drawn[cur, _ix(cursors[cur])] = cards[_ix(CARD_COLS * d) + CARD_ID]
                cursors[cur] += 1
        pending = 0
        if turn >= max_turns:
            winner, reason = 2, R_TURN_LIMIT
            break
        cur ^= 1
    return winner, reason, turn, total0, total1


@_compiled
def play_games(seeds, g0, first_mode, agent_kind, weights, w8, values, cards, stmts, ops, start, win_tower,
               win_resources, unlimited, hand_size, max_turns, miss_rate, max_missed, thief_up,
               res, drawn, played, offsets, ws, rng):
    """Play games ``g0..`` (``play.play_game``) until done or an id buffer is nearly full.

    Returns the index of the first game not played: ``len(seeds)`` when done, else the caller
    grows ``drawn`` / ``played`` and calls again from there (that game restarts from its seed).
    ``res[g]``: RES_* columns.  ``drawn[s]`` / ``played[s]``: card ids of seat ``s``, game after
    game; ``cursors`` = [drawn p1, drawn p2, played p1, played p2] fill levels; game ``g``'s ids
    are ``drawn[s, offsets[s, g]:offsets[s, g + 1]]`` and ``played[s, offsets[2 + s, g]:...]``.
    ``start``: the battlefield's start position then the second mover's bonus (16 values).
    ``weights[6 * s:]``: greedy weights of seat ``s`` as [tower, wall, producer, resource, again,
    discard]; ``w8[8 * s:]`` the same spread over the eight stats.  ``ws`` is the workspace
    (``WS_*``; the cursors live there between calls) and ``rng`` the five streams.  Each game is
    dealt here and played by :func:`_play_from`.
    """
    n_games = seeds.shape[0]
    n = cards.shape[0] // CARD_COLS
    p, _, hands, deck, _, state, cursors, _ = _views(ws, n)
    h = hand_size
    cap_drawn = drawn.shape[1] - 2 * h - 4  # as :func:`_play_from`'s: room for the dealt hands
    for g in range(g0, n_games):
        seed = seeds[g]
        for k in range(5):
            rng[k] = _mix(seed ^ _STREAM_K[k + 1])  # 0 deck, 1 p1, 2 p2, 3 timer, 4 first
        for k in range(4):
            offsets[k, g] = cursors[k]
        if cursors[0] + h > cap_drawn or cursors[1] + h > cap_drawn:
            return g
        first = _ix(_below(rng, 4, 2) if first_mode == FIRST_RANDOM else first_mode)
        _deal(p, start, first, hands, cards, deck, state, rng, n, h, unlimited)
        for s in range(2):
            for i in range(h):
                card = _card_of(hands[HAND_STRIDE * s + i])
                drawn[s, _ix(cursors[s])] = cards[_ix(CARD_COLS * card) + CARD_ID]
                cursors[s] += 1
        winner, reason, turn, total0, total1 = _play_from(
            ws, rng, first, 0, 0, 0, 0, 0, 0, -1, 0, 0, agent_kind, weights, w8, values, cards, stmts, ops, win_tower,
            win_resources, unlimited, h, max_turns, miss_rate, max_missed, thief_up, True, drawn, played)
        if reason == R_FULL:
            for k in range(4):
                cursors[k] = offsets[k, g]
            return g
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


@_compiled
def continue_games(wp, whands, wscal, wdeck, wdisc, wrng, actions, me, stop_after, scale, agent_kind, weights, w8,
                   ew8, values, cards, stmts, ops, win_tower, win_resources, unlimited, hand_size, max_turns,
                   miss_rate, max_missed, thief_up, out, res, ws, rng):
    """Every action of ``actions`` played in every world, then the game played on: ``out[world, action]``.

    A world is a position at a decision or a turn's start: ``wp[w]`` the 16 statistics, ``whands[w, s]``
    the hands, ``wscal[w]`` the ``W_*`` scalars, ``wdeck[w]`` the draw pile (next card first),
    ``wdisc[w]`` the discard pile, ``wrng[w]`` the streams (deck, p1's agent, p2's agent, timer).
    ``actions[a]`` is ``(kind, slot)`` (kind -1: none, the agents decide).  ``stop_after`` > 0 cuts a
    rollout once that many more turns have begun.  ``out``: 1 when ``me`` won, 0.5 a draw, 0 a loss, and
    for a cut rollout the logistic of greedy's evaluation with weights ``ew8`` over ``scale``.  ``res[w,
    a]``: winner, reason, turns begun, then the 16 statistics (the parity test reads them).  ``ws`` and ``rng``:
    scratch as :func:`play_games`'.  The game is played on by :func:`_play_from`, :func:`play_games`' loop.
    """
    n = cards.shape[0] // CARD_COLS
    p, _, hands, deck, disc, state, _, _ = _views(ws, n)
    for wi in range(wp.shape[0]):
        for ai in range(actions.shape[0]):
            for i in range(16):
                p[i] = wp[wi, i]
            for s in range(2):
                state[s] = wscal[wi, W_HAND_LEN + s]
                for i in range(state[s]):
                    hands[HAND_STRIDE * s + i] = _key(cards, whands[wi, s, i])
            state[S_POS] = 0
            state[S_END] = wscal[wi, W_DECK_LEN]
            state[S_DISC] = wscal[wi, W_DISC_LEN]
            for i in range(state[S_END]):
                deck[i] = wdeck[wi, i]
            for i in range(state[S_DISC]):
                disc[i] = wdisc[wi, i]
            for k in range(4):
                rng[k] = wrng[wi, k]
            turn = wscal[wi, W_TURN]
            stop = turn + stop_after if stop_after > 0 else 0
            winner, reason, turns, _, _ = _play_from(
                ws, rng, wscal[wi, W_CUR], turn,
                wscal[wi, W_ACTING], wscal[wi, W_PENDING], wscal[wi, W_PENDING_AGAIN], wscal[wi, W_MISSED],
                wscal[wi, W_MISSED + 1], actions[ai, 0], actions[ai, 1], stop, agent_kind, weights, w8, values,
                cards, stmts, ops, win_tower, win_resources, unlimited, hand_size, max_turns, miss_rate, max_missed,
                thief_up, False, wdeck, wdisc)  # records nothing: the piles stand for the id buffers
            out[wi, ai] = _squash(_evaluate(p, me, ew8), scale) if reason == R_NONE else _outcome_worth(winner, me)
            res[wi, ai, 0] = winner
            res[wi, ai, 1] = reason
            res[wi, ai, 2] = turns
            for i in range(16):
                res[wi, ai, 3 + i] = p[i]
