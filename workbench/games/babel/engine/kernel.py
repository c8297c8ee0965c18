"""The compiled Babel kernel (numba): whole games for the random and greedy agents, bit for bit.

Every function here mirrors one of ``rules.py``, ``agents.py`` or ``core/sim/play.py`` and draws from
the same SplitMix64 sub-streams in the same order (``workbench/core/rng.py``): 1 the nation deck
(the deal and every reshuffle of the discard pile), 2 the quarry, 3 and 4 the agents of p1 and p2,
5 the first player.  All state lives in arrays the caller preallocates; the kernel allocates
nothing (compiled without numba's reference counting).

The state is one flat ``int64`` array (the rules' encoding, module docstring of ``rules.py``):
first a *header* of every scalar, count and length (``H_*`` offsets, ``HEADER`` entries), then the
bodies — the nation stacks (``[2][5][60]``, bottom → top), the temples (``[2][5][6]``), the two
temple stacks (``[2][45]``), the quarry, the draw pile and the discard pile (top = last entry).
Greedy keeps each site's terms of the position (``terms``) and scores a move, a deployment or a
migration (nine actions in ten tried) without playing it (``_quiet_score``): they change only the
hand, the pawn and at most two stacks, so the position's totals and progress prefix sums
(``_prepare``, once a decision) are summed on from the first touched site, in ``_score``'s order.
Any other action is carried out on the state itself and undone: an action only appends beyond a
body's length or pops, except the run discard and the Medes and Sumerian abilities, which rewrite
the two stacks at the pawn's site — so saving the header and, for abilities, those two stacks is a
complete undo (saved once a decision, only when such an action is tried); only the sites it
touches are scored anew, and a stack is searched for runs only where the action changed it.

Actions are indices into ``ACTIONS`` (kind, a, b): 0..48 are ``rules.TURN_ACTIONS`` in order, 49..53
``rules.DISCARDS``.  An outcome is a winner (0, 1, 2 = draw) and a reason (``R_*``: 1 + the index
in ``rules.REASONS``; 0 while the game runs).
"""

from __future__ import annotations

import numpy as np

from workbench.core.sim.rng_numba import below as _below
from workbench.core.sim.rng_numba import compiled as _compiled
from workbench.core.sim.rng_numba import inlined as _inlined
from workbench.core.sim.rng_numba import mix as _mix
from workbench.core.sim.rng_numba import outcome_worth as _outcome_worth
from workbench.core.sim.rng_numba import squash as _squash
from workbench.core.sim.rng_numba import stream_keys
from workbench.games.babel import rules

# ------------------------------------------------------------------------------------ encodings
N = 5  # nations = sites
QUARRY = rules.QUARRY
STACK_CAP, TEMPLE_CAP, TS_CAP, QUARRY_CAP, PILE_CAP = 60, 6, 45, 45, 60

H_HAND = 0  # [seat * 5 + nation]
H_START = 10  # [seat]
H_STACK_LEN = 12  # [seat * 5 + site]
H_TEMPLE_LEN = 22  # [seat * 5 + site]
H_TS_LEN = 32  # [stack 0/1]
H_QUARRY_LEN, H_DRAW_LEN, H_DISCARD_LEN = 34, 35, 36
H_PAWN = 37  # [seat]
H_CURRENT, H_FIRST, H_TURN, H_MIGRATED, H_ACTIONS, H_PENDING, H_END_PHASE = 39, 40, 41, 42, 43, 44, 45
H_ANNOUNCED = 46  # [seat]
H_WINNER, H_REASON, H_HISTORY = 48, 49, 50
H_TALLY = 51  # [seat * 10 + tally]
HEADER = 71
B_STACKS = HEADER
B_TEMPLES = B_STACKS + 2 * N * STACK_CAP
B_TS = B_TEMPLES + 2 * N * TEMPLE_CAP
B_QUARRY = B_TS + 2 * TS_CAP
B_DRAW = B_QUARRY + QUARRY_CAP
B_DISCARD = B_DRAW + PILE_CAP
STATE_SIZE = B_DISCARD + PILE_CAP

END_TURN, MOVE, DEPLOY, BUILD, MIGRATE, ABILITY, UNIVERSAL, DISCARD = range(8)
ASSYRIANS, HITTITES, MEDES, PERSIANS, SUMERIANS = range(5)
START = rules.START
T_UNIVERSAL, T_BUILDS, T_MOVES, T_MIGRATIONS, T_ACTIONS = (rules.T_UNIVERSAL, rules.T_BUILDS, rules.T_MOVES,
                                                          rules.T_MIGRATIONS, rules.T_ACTIONS)
N_TALLIES = rules.N_TALLIES
ACTIONS = np.array([tuple(a) for a in (*rules.TURN_ACTIONS, *rules.DISCARDS)], np.int64)
A_MOVE, A_DEPLOY, A_BUILD, A_MIGRATE = 0, 5, 10, 13
A_ASSYRIANS, A_HITTITES, A_MEDES, A_PERSIANS, A_SUMERIANS, A_UNIVERSAL, A_END_TURN, A_DISCARD = (
    33, 34, 35, 40, 42, 43, 48, 49)
MIGRATE_INDEX = np.full((N, N), -1, np.int64)  # (from, to) → the action's index
for _i, (_k, _a, _b) in enumerate(ACTIONS):
    if _k == MIGRATE:
        MIGRATE_INDEX[_a, _b] = _i
assert [tuple(ACTIONS[i]) for i in (A_MOVE, A_DEPLOY, A_BUILD, A_MIGRATE, A_ASSYRIANS, A_HITTITES, A_MEDES,
                                    A_PERSIANS, A_SUMERIANS, A_UNIVERSAL, A_END_TURN, A_DISCARD)] == [
    (MOVE, 0, 0), (DEPLOY, 0, 0), (BUILD, 0, 0), (MIGRATE, 0, 1), (ABILITY, ASSYRIANS, 0), (ABILITY, HITTITES, 0),
    (ABILITY, MEDES, 0), (ABILITY, PERSIANS, 0), (ABILITY, SUMERIANS, 0), (UNIVERSAL, 0, 0), (END_TURN, 0, 0),
    (DISCARD, 0, 0)]

R_NONE = 0
R_STANDARD, R_END_PHASE_20, R_END_PHASE_DROP, R_QUARRY_EMPTY, R_TURN_LIMIT = (
    1 + rules.REASONS.index(r) for r in (rules.STANDARD, rules.END_PHASE_20, rules.END_PHASE_DROP,
                                         rules.QUARRY_EMPTY, rules.TURN_LIMIT))
DRAW = 2
AGENT_RANDOM, AGENT_GREEDY = 0, 1
FIRST_P1, FIRST_P2, FIRST_RANDOM = 0, 1, 2
STATUS_OK, STATUS_RUNAWAY, STATUS_NO_ACTION = 0, 1, 2
# the stricter readings in force, one bit each (``strict_flags``); 0 plays the text's readings (``rules.Config``)
STRICT_UNIVERSAL, STRICT_MEDES, STRICT_MOVE, STRICT_FIRST_TURN = 1, 2, 4, 8
STANDARD_WIN, STANDARD_LOSE, END_PHASE_TOP, TOP_LEVEL = (rules.STANDARD_WIN, rules.STANDARD_LOSE,
                                                         rules.END_PHASE_TOP, rules.TOP_LEVEL)
TEMPLE_COPIES = np.array(rules.TEMPLE_COPIES, np.int64)
NATION_COPIES = rules.NATION_COPIES

# result columns: winner, reason, length, first, end_phase; then per seat value, hand, 5 temples, 10 tallies
RES_WINNER, RES_REASON, RES_LENGTH, RES_FIRST, RES_END_PHASE, RES_SEAT = range(6)
SEAT_COLS = 2 + N + N_TALLIES
SEAT_VALUE, SEAT_HAND, SEAT_TEMPLES, SEAT_TALLIES = 0, 1, 2, 2 + N
RES_COLS = RES_SEAT + 2 * SEAT_COLS

WIN = 1.0e6  # agents.WIN
MARGIN = 1e-9  # agents.MARGIN
W_VALUE, W_POTENTIAL, W_PAWN, W_THREAT, W_RUNS, W_HAND, W_VARIETY = range(7)  # agents.Weights order
# greedy's per-site terms (``terms[site]``, float64): ``agents.site_terms``' four, then whether each stack has a run
T_VALUE, T_PROGRESS, T_RUNS, T_THREAT, T_MY_RUN, T_THEIR_RUN = range(6)
TERMS = 6
# ``agents._progress(cards, level)`` at ``[level, min(cards, TOP_LEVEL + 1)]``: min(cards, level + 1) / (level + 1)
PROGRESS = np.array([[min(c, lv + 1) / (lv + 1) if lv + 1 <= TOP_LEVEL else 0.0 for c in range(TOP_LEVEL + 2)]
                     for lv in range(TOP_LEVEL + 1)], np.float64)
# ``terms``' rows: the sites, two spare rows keeping the rows an action tried overwrote, then what
# :func:`_prepare` keeps of a decision's position for :func:`_quiet_score` (``ROW_*``)
ROW_PREFIX = N + 2  # [k]: the progress of sites 0..k-1 summed in site order (k = 0..5)
ROW_BASE = N + 3  # B_*: the position's value, runs and threat totals, hand difference, variety, pawn reach
B_VALUE, B_RUNS, B_THREAT, B_HAND, B_VARIETY, B_REACH = range(6)
ROW_POP_PROGRESS = N + 4  # [site]: the site's progress term with 3 of the mover's cards taken off it
ROW_POP_RUNS = N + 5  # [site]: its runs term then
ROW_PUSH_PROGRESS = N + 6  # [site]: its progress term with 3 cards laid on it
TERM_ROWS = N + 7

_STREAM_K = stream_keys(6)


# --------------------------------------------------------------------------------------- helpers
@_inlined
def _stack(seat, site):
    """Offset of the nation stack of ``seat`` at ``site``."""
    return B_STACKS + (seat * N + site) * STACK_CAP


@_inlined
def _level(s, seat, site):
    """``rules.level``: the top card of the temple, 0 for none."""
    n = s[H_TEMPLE_LEN + seat * N + site]
    return s[B_TEMPLES + (seat * N + site) * TEMPLE_CAP + n - 1] if n else 0


@_compiled
def _combined(s, seat):
    """``rules.combined_value``."""
    total = 0
    for site in range(N):
        total += _level(s, seat, site)
    return total


@_inlined
def _hand_size(s, seat):
    """``rules.hand_size``."""
    b = H_HAND + seat * N
    return s[b] + s[b + 1] + s[b + 2] + s[b + 3] + s[b + 4]


@_compiled
def _run_top(s, off, length, nation, run_any):
    """``rules.run_top`` on the stack ``s[off:off + length]``."""
    i = length - 1
    while i >= 2:
        j = i
        while j >= 0 and s[off + j] == nation:
            j -= 1
        if i - j >= 3:
            return i
        if not run_any:
            return -1
        i = j if j < i else i - 1
    return -1


@_compiled
def _any_run(s, off, length, run_any):
    """``rules.any_run`` on the stack ``s[off:off + length]``."""
    if not run_any:
        return length >= 3 and s[off + length - 1] == s[off + length - 2] and s[off + length - 2] == s[off + length - 3]
    run = 1
    for i in range(1, length):
        run = run + 1 if s[off + i] == s[off + i - 1] else 1
        if run >= 3:
            return True
    return False


@_compiled
def _shuffle(rng, k, s, off, n):
    """``SplitMix64.shuffle`` of stream ``k`` in place on ``s[off:off + n]`` (Fisher–Yates from the end)."""
    for i in range(n - 1, 0, -1):
        j = _below(rng, k, i + 1)
        t = s[off + i]
        s[off + i] = s[off + j]
        s[off + j] = t


# ------------------------------------------------------------------------------------ the deck
@_compiled
def _draw_nations(s, seat, count, rng):
    """``rules.draw_nations``: an empty draw pile is first replaced by the shuffled discard pile (stream 1)."""
    for _ in range(count):
        n = s[H_DRAW_LEN]
        if n == 0:
            m = s[H_DISCARD_LEN]
            if m == 0:
                return  # every nation card is in a hand or on the board
            for i in range(m):
                s[B_DRAW + i] = s[B_DISCARD + i]
            _shuffle(rng, 0, s, B_DRAW, m)
            s[H_DISCARD_LEN] = 0
            n = m
        s[H_HAND + seat * N + s[B_DRAW + n - 1]] += 1
        s[H_DRAW_LEN] = n - 1


@_compiled
def _begin_turn(s, seat, rng):
    """``rules.begin_turn``: phase 1 of ``seat``'s next turn."""
    s[H_CURRENT] = seat
    s[H_TURN] += 1
    s[H_MIGRATED] = 0
    s[H_ACTIONS] = 0
    _draw_nations(s, seat, 3, rng)


@_compiled
def _new_game(s, first, hand_start, hand_other, rng):
    """``rules.new_game``: shuffle the nation deck (stream 1) and the quarry (stream 2), deal, begin turn 1."""
    for i in range(HEADER):
        s[i] = 0
    for seat in range(2):
        s[H_START + seat] = 1
        s[H_PAWN + seat] = QUARRY
    s[H_CURRENT] = first
    s[H_FIRST] = first
    for i in range(N * NATION_COPIES):
        s[B_DRAW + i] = i // NATION_COPIES
    _shuffle(rng, 0, s, B_DRAW, N * NATION_COPIES)
    s[H_DRAW_LEN] = N * NATION_COPIES
    k = 0
    dealt = 0
    for lv in range(1, TOP_LEVEL + 1):
        for _ in range(TEMPLE_COPIES[lv - 1]):
            if dealt >= 2:  # the two start L1s are in the players' hands
                s[B_QUARRY + k] = lv
                k += 1
            dealt += 1
    _shuffle(rng, 1, s, B_QUARRY, k)
    s[H_QUARRY_LEN] = k
    _draw_nations(s, first, hand_start, rng)
    _draw_nations(s, 1 - first, hand_other, rng)
    _begin_turn(s, first, rng)


# ------------------------------------------------------------------------------------ the ending
@_compiled
def _finish(s, reason):
    """``rules.finish``: the higher combined value wins; equal → more cards in hand; still equal → draw."""
    a = _combined(s, 0)
    b = _combined(s, 1)
    h0 = _hand_size(s, 0)
    h1 = _hand_size(s, 1)
    if a == b and h0 == h1:
        s[H_WINNER] = DRAW
    elif a > b or (a == b and h0 > h1):
        s[H_WINNER] = 0
    else:
        s[H_WINNER] = 1
    s[H_REASON] = reason


@_compiled
def _check_end(s):
    """``rules.check_end``: 15+ against 9-, then the end phase (20+, or a drop to 9-)."""
    a = _combined(s, 0)
    b = _combined(s, 1)
    if not s[H_END_PHASE]:
        if (a >= STANDARD_WIN and b <= STANDARD_LOSE) or (b >= STANDARD_WIN and a <= STANDARD_LOSE):
            _finish(s, R_STANDARD)
            return
        if a < STANDARD_WIN and b < STANDARD_WIN:
            return
        s[H_END_PHASE] = 1
    if a >= END_PHASE_TOP or b >= END_PHASE_TOP:
        _finish(s, R_END_PHASE_20)
    elif a <= STANDARD_LOSE or b <= STANDARD_LOSE:
        _finish(s, R_END_PHASE_DROP)


# --------------------------------------------------------------------------------------- effects
@_compiled
def _place(s, seat, site, card):
    """Lay ``card`` on ``seat``'s temple at ``site``."""
    i = H_TEMPLE_LEN + seat * N + site
    s[B_TEMPLES + (seat * N + site) * TEMPLE_CAP + s[i]] = card
    s[i] += 1


@_compiled
def _take_from_stack(s, source):
    """Pop the top card of temple stack ``source``."""
    s[H_TS_LEN + source] -= 1
    return s[B_TS + source * TS_CAP + s[H_TS_LEN + source]]


@_compiled
def _discard(s, nation):
    """Lay ``nation`` on the discard pile."""
    s[B_DISCARD + s[H_DISCARD_LEN]] = nation
    s[H_DISCARD_LEN] += 1


@_compiled
def _use_run(s, me, site, nation, run_any):
    """``rules._use_run``: discard one card of the topmost run of ``nation`` at the pawn's site."""
    off = _stack(me, site)
    li = H_STACK_LEN + me * N + site
    n = s[li]
    i = _run_top(s, off, n, nation, run_any)
    for k in range(i, n - 1):
        s[off + k] = s[off + k + 1]
    s[li] = n - 1
    _discard(s, nation)


@_compiled
def _desert(s, seat, site, nation):
    """Remove every ``nation`` card from ``seat``'s stack at ``site`` (order kept); how many went."""
    off = _stack(seat, site)
    li = H_STACK_LEN + seat * N + site
    kept = 0
    for k in range(s[li]):
        c = s[off + k]
        if c != nation:
            s[off + kept] = c
            kept += 1
    gone = s[li] - kept
    s[li] = kept
    return gone


@_compiled
def _ability(s, me, site, nation, arg, run_any):
    """``rules._do_ability``: the run discard, the tally, then the nation's effect at the pawn's site."""
    them = 1 - me
    _use_run(s, me, site, nation, run_any)
    s[H_TALLY + me * N_TALLIES + nation] += 1
    if nation == ASSYRIANS:  # the opponent's temple goes on top of the quarry, highest at the bottom
        ti = H_TEMPLE_LEN + them * N + site
        off = B_TEMPLES + (them * N + site) * TEMPLE_CAP
        for k in range(s[ti] - 1, -1, -1):  # a temple ascends strictly: reversed = sorted descending
            s[B_QUARRY + s[H_QUARRY_LEN]] = s[off + k]
            s[H_QUARRY_LEN] += 1
        s[ti] = 0
        _check_end(s)
    elif nation == HITTITES:  # steal the opponent's top temple card here
        ti = H_TEMPLE_LEN + them * N + site
        s[ti] -= 1
        _place(s, me, site, s[B_TEMPLES + (them * N + site) * TEMPLE_CAP + s[ti]])
        _check_end(s)
    elif nation == MEDES:  # the opponent discards every card of nation ``arg`` here
        for _ in range(_desert(s, them, site, arg)):
            _discard(s, arg)
    elif nation == PERSIANS:  # build from stack ``arg`` two levels up
        _place(s, me, site, _take_from_stack(s, arg))
        _check_end(s)
    else:  # SUMERIANS: the opponent's cards of their top card's nation defect, in order
        top = s[_stack(them, site) + s[H_STACK_LEN + them * N + site] - 1]
        moved = _desert(s, them, site, top)
        mi = H_STACK_LEN + me * N + site
        off = _stack(me, site)
        for k in range(moved):
            s[off + s[mi] + k] = top
        s[mi] += moved


@_compiled
def _perform(s, idx, run_any):
    """``rules.apply(..., check=False)`` of any action but ``END_TURN`` (which draws: :func:`_end_turn`)."""
    kind = ACTIONS[idx, 0]
    a = ACTIONS[idx, 1]
    b = ACTIONS[idx, 2]
    me = s[H_CURRENT]
    if kind == DISCARD:
        them = 1 - me
        s[H_TALLY + them * N_TALLIES + T_ACTIONS] += 1
        s[H_HAND + them * N + a] -= 1
        _discard(s, a)
        s[H_PENDING] -= 1
        return
    s[H_TALLY + me * N_TALLIES + T_ACTIONS] += 1
    s[H_ACTIONS] += 1
    site = s[H_PAWN + me]
    if kind == MOVE:  # site ``a`` has nation ``a``'s colour
        s[H_HAND + me * N + a] -= 1
        _discard(s, a)
        s[H_PAWN + me] = a
        s[H_TALLY + me * N_TALLIES + T_MOVES] += 1
    elif kind == DEPLOY:
        s[H_HAND + me * N + a] -= 1
        li = H_STACK_LEN + me * N + site
        s[_stack(me, site) + s[li]] = a
        s[li] += 1
    elif kind == BUILD:
        if a == START:
            card = 1
            s[H_START + me] = 0
        else:
            card = _take_from_stack(s, a)
        _place(s, me, site, card)
        s[H_TALLY + me * N_TALLIES + T_BUILDS] += 1
        _check_end(s)
    elif kind == MIGRATE:
        si = H_STACK_LEN + me * N + a
        di = H_STACK_LEN + me * N + b
        src = _stack(me, a) + s[si] - 3
        dst = _stack(me, b) + s[di]
        for k in range(3):
            s[dst + k] = s[src + k]
        s[si] -= 3
        s[di] += 3
        s[H_MIGRATED] = 1
        s[H_TALLY + me * N_TALLIES + T_MIGRATIONS] += 1
    elif kind == ABILITY:
        _ability(s, me, site, a, b, run_any)
    else:  # UNIVERSAL
        _use_run(s, me, site, a, run_any)
        s[H_PENDING] = _hand_size(s, 1 - me) // 2
        s[H_TALLY + me * N_TALLIES + T_UNIVERSAL] += 1


@_compiled
def _end_turn(s, rng, hist, max_turns):
    """``rules._do_end_turn``: phase 3, the history entry, the end checks, then the next turn's phase 1."""
    me = s[H_CURRENT]
    s[H_TALLY + me * N_TALLIES + T_ACTIONS] += 1
    s[H_ACTIONS] += 1
    q = s[H_QUARRY_LEN]  # the top 2 quarry cards (or the last one) onto the own temple stack, lower on top
    ts = B_TS + me * TS_CAP + s[H_TS_LEN + me]
    if q >= 2:
        x = s[B_QUARRY + q - 2]
        y = s[B_QUARRY + q - 1]
        s[ts] = max(x, y)
        s[ts + 1] = min(x, y)
        s[H_TS_LEN + me] += 2
        s[H_QUARRY_LEN] = q - 2
    elif q == 1:
        s[ts] = s[B_QUARRY]
        s[H_TS_LEN + me] += 1
        s[H_QUARRY_LEN] = 0
    t = s[H_TURN] - 1
    hist[0, t] = _combined(s, 0)
    hist[1, t] = _combined(s, 1)
    s[H_HISTORY] = t + 1
    cards = _hand_size(s, me)
    s[H_ANNOUNCED + me] = cards if cards >= 4 else 0
    _check_end(s)
    if s[H_REASON] != R_NONE:
        return
    if s[H_QUARRY_LEN] == 0:
        _finish(s, R_QUARRY_EMPTY)
    elif s[H_TURN] >= max_turns:
        s[H_WINNER] = DRAW
        s[H_REASON] = R_TURN_LIMIT
    else:
        _begin_turn(s, 1 - me, rng)


# -------------------------------------------------------------------------------- try and undo
@_compiled
def _save(s, saved, stacks):
    """Keep what :func:`_perform` of any action in ``s`` may overwrite: the header and both stacks at the pawn's site.

    The position is the same for every action tried from it, so one save serves them all (:func:`_restore`).
    """
    for i in range(HEADER):
        saved[i] = s[i]
    site = s[H_PAWN + s[H_CURRENT]]
    if site != QUARRY:
        for seat in range(2):
            off = _stack(seat, site)
            for k in range(s[H_STACK_LEN + seat * N + site]):
                stacks[seat, k] = s[off + k]


@_inlined
def _restore(s, saved, stacks, idx):
    """Undo :func:`_perform` of action ``idx`` from what :func:`_save` kept.

    A move, a deployment and a migration (most of the actions tried) only change the words written
    back here; any other action gets the whole header back, and a run also the stacks at the pawn's site.
    """
    kind = ACTIONS[idx, 0]
    me = saved[H_CURRENT]
    if kind == MOVE or kind == DEPLOY or kind == MIGRATE:
        a = ACTIONS[idx, 1]
        t = H_TALLY + me * N_TALLIES
        s[t + T_ACTIONS] = saved[t + T_ACTIONS]
        s[H_ACTIONS] = saved[H_ACTIONS]
        if kind == MOVE:
            s[H_HAND + me * N + a] = saved[H_HAND + me * N + a]
            s[H_DISCARD_LEN] = saved[H_DISCARD_LEN]
            s[H_PAWN + me] = saved[H_PAWN + me]
            s[t + T_MOVES] = saved[t + T_MOVES]
        elif kind == DEPLOY:
            s[H_HAND + me * N + a] = saved[H_HAND + me * N + a]
            li = H_STACK_LEN + me * N + saved[H_PAWN + me]
            s[li] = saved[li]
        else:
            b = ACTIONS[idx, 2]
            s[H_STACK_LEN + me * N + a] = saved[H_STACK_LEN + me * N + a]
            s[H_STACK_LEN + me * N + b] = saved[H_STACK_LEN + me * N + b]
            s[H_MIGRATED] = saved[H_MIGRATED]
            s[t + T_MIGRATIONS] = saved[t + T_MIGRATIONS]
        return
    for i in range(HEADER):
        s[i] = saved[i]
    if kind == ABILITY or kind == UNIVERSAL:
        site = s[H_PAWN + me]
        for seat in range(2):
            off = _stack(seat, site)
            for k in range(s[H_STACK_LEN + seat * N + site]):
                s[off + k] = stacks[seat, k]


# ------------------------------------------------------------------------------------- legality
@_compiled
def _start_buildable(s, seat):
    """``rules.start_buildable``."""
    site = s[H_PAWN + seat]
    cards = _hand_size(s, seat)
    if (site != QUARRY and s[H_TEMPLE_LEN + seat * N + site] == 0
            and (s[H_STACK_LEN + seat * N + site] > 0 or cards >= 1)):
        return True
    return cards >= 2


@_compiled
def _start_reachable(s, seat):
    """``rules.start_reachable``: the start card can still be built by the end of this turn (exact)."""
    pawn = s[H_PAWN + seat]
    hand = _hand_size(s, seat)
    for site in range(N):
        if s[H_TEMPLE_LEN + seat * N + site]:
            continue
        if pawn == site:
            spare = hand >= 1
        elif s[H_HAND + seat * N + site] > 0:  # site ``site`` has nation ``site``'s colour
            spare = hand >= 2
        else:
            continue
        feeder = False
        if not s[H_MIGRATED]:
            for t in range(N):
                if t != site and s[H_STACK_LEN + seat * N + t] >= 3:
                    feeder = True
        if s[H_STACK_LEN + seat * N + site] > 0 or spare or feeder:
            return True
    return False


@_compiled
def _keeps_start(s, idx, saved, stacks, run_any, strict):
    """The first-turn rule for an action other than the start build: the start card stays buildable after it.

    Under the text's reading :func:`_start_reachable`; under the stricter one :func:`_start_buildable`.
    ``saved``, ``stacks``: :func:`_save` of ``s``.
    """
    me = s[H_CURRENT]
    _perform(s, idx, run_any)
    ok = _start_buildable(s, me) if strict & STRICT_FIRST_TURN else _start_reachable(s, me)
    _restore(s, saved, stacks, idx)
    return ok


@_compiled
def _first_turn_filter(s, legal, n, saved, stacks, run_any, strict):
    """Drop from ``legal[:n]`` (order kept) every action the first-turn rule forbids; the new count.

    Every action but the start build itself is tried (:func:`_keeps_start`); ``s`` is left as it was.
    """
    _save(s, saved, stacks)
    kept = 0
    for k in range(n):
        idx = legal[k]
        if idx == A_BUILD + START or _keeps_start(s, idx, saved, stacks, run_any, strict):
            legal[kept] = idx
            kept += 1
    return kept


@_inlined
def _fits(s, me, site, card, step):
    """``rules._why_place`` is None: ``card`` is ``step`` above the temple here, with enough own cards here."""
    return card == _level(s, me, site) + step and s[H_STACK_LEN + me * N + site] >= card


@_inlined
def _run_nations(s, off, length, run_any):
    """A bit per nation with a run of 3 on the stack ``s[off:off + length]``: ``_run_top(...) >= 0``, in one pass."""
    if not run_any:
        top = s[off + length - 1]
        return 1 << top if length >= 3 and s[off + length - 2] == top and s[off + length - 3] == top else 0
    runs = 0
    run = 1
    for i in range(1, length):
        run = run + 1 if s[off + i] == s[off + i - 1] else 1
        if run >= 3:
            runs |= 1 << s[off + i]
    return runs


@_compiled
def _legal(s, legal, saved, stacks, run_any, universal, strict):
    """``rules.legal_actions`` into ``legal`` (action indices in the stable order); their count.

    ``strict``: the stricter readings in force (``STRICT_*`` bits).
    """
    me = s[H_CURRENT]
    n = 0
    if s[H_PENDING]:
        for nation in range(N):
            if s[H_HAND + (1 - me) * N + nation] > 0:
                legal[n] = A_DISCARD + nation
                n += 1
        return n
    site = s[H_PAWN + me]
    for to in range(N):
        if (site != to or not strict & STRICT_MOVE) and s[H_HAND + me * N + to] > 0:
            legal[n] = A_MOVE + to
            n += 1
    if site != QUARRY:
        n = _legal_builds(s, legal, n, strict)
    if not s[H_MIGRATED]:  # once per turn, exactly 3 cards
        for src in range(N):
            if s[H_STACK_LEN + me * N + src] >= 3:
                for dst in range(N):
                    if dst != src:
                        legal[n] = MIGRATE_INDEX[src, dst]
                        n += 1
    if site != QUARRY:
        n = _legal_abilities(s, legal, n, run_any, universal, strict)
    if s[H_START + me]:  # the first turn: every action is tried against the first-turn rule, no end turn yet
        return _first_turn_filter(s, legal, n, saved, stacks, run_any, strict)
    legal[n] = A_END_TURN
    return n + 1


@_inlined
def _legal_builds(s, legal, n, strict):
    """The deployments and builds at the pawn's site (not the quarry) appended to ``legal[:n]``; the new count."""
    me = s[H_CURRENT]
    site = s[H_PAWN + me]
    for nation in range(N):
        if s[H_HAND + me * N + nation] > 0:
            legal[n] = A_DEPLOY + nation
            n += 1
    if s[H_START + me] == 0 or (strict & STRICT_FIRST_TURN) == 0:  # stricter: the first build is the start card
        for src in range(2):
            ln = s[H_TS_LEN + src]
            if ln and _fits(s, me, site, s[B_TS + src * TS_CAP + ln - 1], 1):
                legal[n] = A_BUILD + src
                n += 1
    if s[H_START + me] and _fits(s, me, site, 1, 1):
        legal[n] = A_BUILD + START
        n += 1
    return n


@_compiled
def _legal_abilities(s, legal, n, run_any, universal, strict):
    """The nation and universal abilities at the pawn's site (not the quarry) appended to ``legal[:n]``; the count."""
    me = s[H_CURRENT]
    them = 1 - me
    site = s[H_PAWN + me]
    runs = _run_nations(s, _stack(me, site), s[H_STACK_LEN + me * N + site], run_any)
    if runs == 0:
        return n
    early = s[H_START + me] != 0 and (strict & STRICT_FIRST_TURN) != 0  # the stricter reading: no build but the start
    ln = s[H_STACK_LEN + me * N + site]
    t_off = _stack(them, site)
    t_len = s[H_STACK_LEN + them * N + site]
    t_temple = s[H_TEMPLE_LEN + them * N + site]
    if runs & (1 << ASSYRIANS) and t_temple:
        legal[n] = A_ASSYRIANS
        n += 1
    if runs & (1 << HITTITES) and t_temple and not early:
        top = _level(s, them, site)
        if top > _level(s, me, site) and ln >= top:  # the discarded Hittite still counts
            legal[n] = A_HITTITES
            n += 1
    if runs & (1 << MEDES):
        for nation in range(N):
            named = not strict & STRICT_MEDES  # the text: any nation may be named
            for k in range(t_len):
                if s[t_off + k] == nation:
                    named = True
                    break
            if named:
                legal[n] = A_MEDES + nation
                n += 1
    if runs & (1 << PERSIANS) and not early:
        for src in range(2):
            lt = s[H_TS_LEN + src]
            if lt and _fits(s, me, site, s[B_TS + src * TS_CAP + lt - 1], 2):
                legal[n] = A_PERSIANS + src
                n += 1
    if runs & (1 << SUMERIANS) and t_len:
        legal[n] = A_SUMERIANS
        n += 1
    if universal and (_hand_size(s, them) >= 2 or not strict & STRICT_UNIVERSAL):
        for nation in range(N):
            if runs & (1 << nation):
                legal[n] = A_UNIVERSAL + nation
                n += 1
    return n


# ----------------------------------------------------------------------------------------- greedy
@_inlined
def _progress(cards, level):
    """``agents._progress`` (``PROGRESS``: the same divisions, done once)."""
    return PROGRESS[level, min(cards, TOP_LEVEL + 1)]


@_inlined
def _in_reach(s, seat):
    """``agents.in_reach``: :func:`_reach_at` where the pawn stands, with the seat's cards there and in hand."""
    site = s[H_PAWN + seat]
    if site == QUARRY:
        return 0
    return _reach_at(s, seat, site, s[H_STACK_LEN + seat * N + site], _hand_size(s, seat))


@_inlined
def _site_score(s, me, site, terms, my_run, their_run):
    """``agents.site_terms`` of one site into ``terms[site]``: value, progress, runs, threat (exact in float64).

    ``my_run``, ``their_run``: whether each seat's stack there holds a run (kept in ``T_MY_RUN``, ``T_THEIR_RUN``).
    """
    them = 1 - me
    mine = _level(s, me, site)
    theirs = _level(s, them, site)
    terms[site, T_VALUE] = mine - theirs
    terms[site, T_PROGRESS] = (_progress(s[H_STACK_LEN + me * N + site], mine)
                               - _progress(s[H_STACK_LEN + them * N + site], theirs))
    terms[site, T_RUNS] = theirs if theirs and my_run else 0
    terms[site, T_THREAT] = mine if mine and their_run else 0
    terms[site, T_MY_RUN] = my_run
    terms[site, T_THEIR_RUN] = their_run


@_compiled
def _site_terms(s, me, site, run_any, terms):
    """:func:`_site_score` of one site, both stacks searched for a run."""
    my_run = _any_run(s, _stack(me, site), s[H_STACK_LEN + me * N + site], run_any)
    their_run = _any_run(s, _stack(1 - me, site), s[H_STACK_LEN + (1 - me) * N + site], run_any)
    _site_score(s, me, site, terms, my_run, their_run)


@_inlined
def _score(s, me, weights, terms):
    """``agents.evaluate`` of a running game from its per-site ``terms``: the same float operations in the same order.

    The value, runs and threat terms are small integers (exact in float64, so any order sums them
    alike); progress is summed site by site as ``agents.site_terms`` does.
    """
    them = 1 - me
    pending = s[H_PENDING]
    owed_me = pending if me != s[H_CURRENT] else 0
    owed_them = pending if them != s[H_CURRENT] else 0
    value = 0.0
    progress = 0.0
    runs = 0.0
    threat = 0.0
    for site in range(N):
        value += terms[site, T_VALUE]
        progress += terms[site, T_PROGRESS]
        runs += terms[site, T_RUNS]
        threat += terms[site, T_THREAT]
    score = (weights[me, W_VALUE] * value + weights[me, W_POTENTIAL] * progress + weights[me, W_RUNS] * runs
             - weights[me, W_THREAT] * threat)
    score += weights[me, W_PAWN] * _in_reach(s, me)
    score += weights[me, W_HAND] * (_hand_size(s, me) - owed_me - _hand_size(s, them) + owed_them)
    variety = 0
    for nation in range(N):
        if s[H_HAND + me * N + nation]:
            variety += 1
    return score + weights[me, W_VARIETY] * variety


@_inlined
def _outcome_score(s, me):
    """``agents.evaluate`` of a finished game: ``WIN``, ``-WIN`` or 0 for a draw."""
    winner = s[H_WINNER]
    return WIN if winner == me else (-WIN if winner == 1 - me else 0.0)


@_compiled
def _evaluate(s, me, weights, run_any, terms):
    """``agents.evaluate`` with ``weights[me]`` (``terms``: scratch, ``[TERM_ROWS, TERMS]``; rows 0..4 its sites')."""
    if s[H_REASON] != R_NONE:
        return _outcome_score(s, me)
    for site in range(N):
        _site_terms(s, me, site, run_any, terms)
    return _score(s, me, weights, terms)


@_inlined
def _run_after_append(s, seat, site, added, had_run, run_any):
    """``_any_run`` of ``seat``'s stack at ``site`` after ``added`` cards were laid on it (``had_run``: before).

    With runs anywhere, only a run ending in a new card can be new; else only the top counts.
    """
    off = _stack(seat, site)
    ln = s[H_STACK_LEN + seat * N + site]
    if not run_any:
        return _any_run(s, off, ln, run_any)
    if had_run:
        return True
    for i in range(max(2, ln - added), ln):
        if s[off + i] == s[off + i - 1] and s[off + i - 1] == s[off + i - 2]:
            return True
    return False


@_inlined
def _run_after_pop(s, seat, site, had_run, run_any):
    """``_any_run`` of ``seat``'s stack at ``site`` after cards were taken off its top: none can appear below."""
    if run_any and not had_run:
        return False
    return _any_run(s, _stack(seat, site), s[H_STACK_LEN + seat * N + site], run_any)


@_inlined
def _keep_row(terms, site, row):
    """Copy ``terms[site]`` to the spare row ``row`` (or back with the arguments swapped)."""
    for c in range(TERMS):
        terms[row, c] = terms[site, c]


@_compiled
def _score_after(s, idx, me, weights, saved, stacks, run_any, terms):
    """Greedy's score of ``s`` after action ``idx``, ``s`` left as it was; ``terms`` holds ``s``'s and is kept.

    ``saved``, ``stacks``: :func:`_save` of ``s``.  Only the sites the action touches are scored anew,
    and a stack is searched for runs only when the action changed it (from what ``terms`` knew before
    where cards were only added or taken off the top), so the score equals :func:`_evaluate` of the new
    state bit for bit.  A move, a discard paid and ``END_TURN`` touch no stack and no temple; a
    migration its two sites; every other action only the pawn's site.
    """
    kind = ACTIONS[idx, 0]
    cur = s[H_CURRENT]
    site = s[H_PAWN + cur]
    _perform(s, idx, run_any)
    if s[H_REASON] != R_NONE:
        score = _outcome_score(s, me)
    elif kind == MOVE or kind == DISCARD:
        score = _score(s, me, weights, terms)
    else:
        own = T_MY_RUN if cur == me else T_THEIR_RUN  # the column of the acting seat's run
        if kind == MIGRATE:
            site = ACTIONS[idx, 1]
            dst = ACTIONS[idx, 2]
            _keep_row(terms, dst, N + 1)
            run = _run_after_append(s, cur, dst, 3, terms[dst, own] != 0, run_any)
            other = terms[dst, T_MY_RUN + T_THEIR_RUN - own] != 0
            _site_score(s, me, dst, terms, run if own == T_MY_RUN else other, other if own == T_MY_RUN else run)
        _keep_row(terms, site, N)
        if kind == ABILITY or kind == UNIVERSAL:
            _site_terms(s, me, site, run_any, terms)
        else:
            run = terms[site, own] != 0
            if kind == DEPLOY:
                run = _run_after_append(s, cur, site, 1, run, run_any)
            elif kind == MIGRATE:
                run = _run_after_pop(s, cur, site, run, run_any)
            other = terms[site, T_MY_RUN + T_THEIR_RUN - own] != 0
            _site_score(s, me, site, terms, run if own == T_MY_RUN else other, other if own == T_MY_RUN else run)
        score = _score(s, me, weights, terms)
        _keep_row(terms, N, site)
        if kind == MIGRATE:
            _keep_row(terms, N + 1, ACTIONS[idx, 2])
    _restore(s, saved, stacks, idx)
    return score


@_inlined
def _reach_at(s, seat, site, cards, hand):
    """:func:`_in_reach` with ``seat``'s pawn at ``site``, ``cards`` own cards there and ``hand`` cards in hand."""
    if site == QUARRY:
        return 0
    need = _level(s, seat, site) + 1
    if need > TOP_LEVEL or cards + hand < need:
        return 0
    for src in range(2):
        ln = s[H_TS_LEN + src]
        if ln and s[B_TS + src * TS_CAP + ln - 1] == need:
            return 1
    return 1 if need == 1 and s[H_START + seat] else 0


@_compiled
def _prepare(s, me, run_any, terms):
    """Keep what :func:`_quiet_score` reads of a position whose ``terms`` rows 0..4 :func:`_evaluate` just filled.

    ``me`` is to act, nothing is owed.  The progress prefix sums are the running sum ``_score``
    builds, so a sum continued from the first site an action touches is bit for bit ``_score``'s.
    """
    them = 1 - me
    value = 0.0
    progress = 0.0
    runs = 0.0
    threat = 0.0
    for site in range(N):
        terms[ROW_PREFIX, site] = progress
        value += terms[site, T_VALUE]
        progress += terms[site, T_PROGRESS]
        runs += terms[site, T_RUNS]
        threat += terms[site, T_THREAT]
    terms[ROW_PREFIX, N] = progress
    terms[ROW_BASE, B_VALUE] = value
    terms[ROW_BASE, B_RUNS] = runs
    terms[ROW_BASE, B_THREAT] = threat
    terms[ROW_BASE, B_HAND] = _hand_size(s, me) - _hand_size(s, them)
    variety = 0
    for nation in range(N):
        if s[H_HAND + me * N + nation]:
            variety += 1
    terms[ROW_BASE, B_VARIETY] = variety
    terms[ROW_BASE, B_REACH] = _in_reach(s, me)
    if s[H_MIGRATED]:
        return
    for site in range(N):  # each site as a migration's source and as its destination
        ln = s[H_STACK_LEN + me * N + site]
        mine = _level(s, me, site)
        theirs = _level(s, them, site)
        their_part = _progress(s[H_STACK_LEN + them * N + site], theirs)
        terms[ROW_PUSH_PROGRESS, site] = _progress(ln + 3, mine) - their_part
        if ln >= 3:
            terms[ROW_POP_PROGRESS, site] = _progress(ln - 3, mine) - their_part
            had = terms[site, T_MY_RUN] != 0
            run = False if run_any and not had else _any_run(s, _stack(me, site), ln - 3, run_any)
            terms[ROW_POP_RUNS, site] = theirs if theirs and run else 0


@_inlined
def _quiet_score(s, idx, me, weights, run_any, terms):
    """:func:`_score_after` of a move, a deployment or a migration by ``me`` (to act, nothing owed), without playing it.

    They change only the hand (a move, a deployment), the pawn (a move) and one stack (a deployment)
    or two (a migration): the value and threat totals stay, the runs total changes by the touched
    sites' terms, and progress is summed on from :func:`_prepare`'s prefix at the first touched site,
    so every float operation is :func:`_score`'s of the state after the action, in its order.
    """
    kind = ACTIONS[idx, 0]
    a = ACTIONS[idx, 1]
    runs = terms[ROW_BASE, B_RUNS]
    hand = terms[ROW_BASE, B_HAND]
    variety = terms[ROW_BASE, B_VARIETY]
    reach = terms[ROW_BASE, B_REACH]
    if kind == MOVE:
        progress = terms[ROW_PREFIX, N]
        hand -= 1
        if s[H_HAND + me * N + a] == 1:
            variety -= 1
        reach = _reach_at(s, me, a, s[H_STACK_LEN + me * N + a], _hand_size(s, me) - 1)
    elif kind == DEPLOY:
        site = s[H_PAWN + me]
        hand -= 1
        if s[H_HAND + me * N + a] == 1:
            variety -= 1
        off = _stack(me, site)
        ln = s[H_STACK_LEN + me * N + site]
        run = ((run_any and terms[site, T_MY_RUN] != 0)
               or (ln >= 2 and s[off + ln - 1] == a and s[off + ln - 2] == a))
        theirs = _level(s, 1 - me, site)
        runs += (theirs if theirs and run else 0) - terms[site, T_RUNS]
        progress = terms[ROW_PREFIX, site] + (_progress(ln + 1, _level(s, me, site))
                                              - _progress(s[H_STACK_LEN + (1 - me) * N + site], theirs))
        for t in range(site + 1, N):
            progress += terms[t, T_PROGRESS]
        # the pawn's site holds one card more and the hand one fewer: the reach is unchanged
    else:  # MIGRATE from ``a`` to ``b``
        b = ACTIONS[idx, 2]
        la = s[H_STACK_LEN + me * N + a]
        lb = s[H_STACK_LEN + me * N + b]
        src = _stack(me, a) + la - 3  # the three cards that go, bottom first
        c0 = s[src]
        c1 = s[src + 1]
        c2 = s[src + 2]
        if not run_any:
            run = c0 == c1 and c1 == c2
        elif terms[b, T_MY_RUN] != 0:
            run = True
        else:
            dst = _stack(me, b)
            run = c0 == c1 and c1 == c2
            if lb >= 1 and s[dst + lb - 1] == c0 and c0 == c1:
                run = True
            if lb >= 2 and s[dst + lb - 2] == s[dst + lb - 1] and s[dst + lb - 1] == c0:
                run = True
        theirs = _level(s, 1 - me, b)
        runs += ((terms[ROW_POP_RUNS, a] - terms[a, T_RUNS]) + ((theirs if theirs and run else 0) - terms[b, T_RUNS]))
        first = min(a, b)
        progress = terms[ROW_PREFIX, first]
        for t in range(first, N):
            if t == a:
                progress += terms[ROW_POP_PROGRESS, a]
            elif t == b:
                progress += terms[ROW_PUSH_PROGRESS, b]
            else:
                progress += terms[t, T_PROGRESS]
        pawn = s[H_PAWN + me]
        if pawn == a:
            reach = _reach_at(s, me, a, la - 3, _hand_size(s, me))
        elif pawn == b:
            reach = _reach_at(s, me, b, lb + 3, _hand_size(s, me))
    score = (weights[me, W_VALUE] * terms[ROW_BASE, B_VALUE] + weights[me, W_POTENTIAL] * progress
             + weights[me, W_RUNS] * runs - weights[me, W_THREAT] * terms[ROW_BASE, B_THREAT])
    score += weights[me, W_PAWN] * reach
    score += weights[me, W_HAND] * hand
    return score + weights[me, W_VARIETY] * variety


@_compiled
def _base(s, me, weights, run_any, terms):
    """The position's score for ``me`` (``terms`` filled), and whether its moves, deployments and migrations are quiet.

    Quiet: :func:`_quiet_score` scores them (``me`` is to act and owes nothing; :func:`_prepare` done).
    """
    base = _evaluate(s, me, weights, run_any, terms)
    quiet = s[H_REASON] == R_NONE and s[H_PENDING] == 0 and s[H_CURRENT] == me
    if quiet:
        _prepare(s, me, run_any, terms)
    return base, quiet


@_inlined
def _rank_score(s, idx, me, weights, saved, stacks, run_any, terms, base, quiet, unsaved):
    """Greedy's ranking score of action ``idx`` (``END_TURN``: ``base``; the rest less MARGIN), and ``unsaved``.

    A quiet action is scored without playing it (:func:`_quiet_score`); any other is played and
    undone (:func:`_score_after`), the position saved before the first of them (``unsaved`` then False).
    """
    kind = ACTIONS[idx, 0]
    if idx == A_END_TURN:
        return base, unsaved
    if quiet and (kind == MOVE or kind == DEPLOY or kind == MIGRATE):
        return _quiet_score(s, idx, me, weights, run_any, terms) - MARGIN, unsaved
    if unsaved:
        _save(s, saved, stacks)
    return _score_after(s, idx, me, weights, saved, stacks, run_any, terms) - MARGIN, False


@_compiled
def _greedy(s, legal, n, me, weights, saved, stacks, run_any, terms):
    """``GreedyAgent.choose``: the best-scored action, ``END_TURN`` unless beaten by more than MARGIN."""
    if n == 1:
        return legal[0]
    base, quiet = _base(s, me, weights, run_any, terms)
    unsaved = True
    best = -np.inf
    choice = legal[0]
    for k in range(n):
        idx = legal[k]
        score, unsaved = _rank_score(s, idx, me, weights, saved, stacks, run_any, terms, base, quiet, unsaved)
        if score > best:  # strict: ties keep the legal order
            best = score
            choice = idx
    return choice


# ------------------------------------------------------------------------------------------ games
@_compiled
def _result(s, res, g):
    """The scalar result columns of game ``g`` (``model.result_row``)."""
    res[g, RES_WINNER] = s[H_WINNER]
    res[g, RES_REASON] = s[H_REASON]
    res[g, RES_LENGTH] = s[H_TURN]
    res[g, RES_FIRST] = s[H_FIRST]
    res[g, RES_END_PHASE] = s[H_END_PHASE]
    for seat in range(2):
        b = RES_SEAT + seat * SEAT_COLS
        res[g, b + SEAT_VALUE] = _combined(s, seat)
        res[g, b + SEAT_HAND] = _hand_size(s, seat)
        for site in range(N):
            res[g, b + SEAT_TEMPLES + site] = _level(s, seat, site)
        for t in range(N_TALLIES):
            res[g, b + SEAT_TALLIES + t] = s[H_TALLY + seat * N_TALLIES + t]


@_compiled
def _play_on(s, forced, stop, rng, kinds, caps, weights, run_any, universal, strict, max_turns, max_steps, saved,
             stacks, legal, hist, terms):
    """The game loop (``play.play_game``): ``s`` played on until it ends or turn ``stop`` begins (0: never).

    ``forced``: the first action (an index into ``ACTIONS``; -1: the agents decide from the start).
    Returns ``STATUS_*``: a game still running after ``max_steps`` steps ran away.
    """
    steps = 0
    while s[H_REASON] == R_NONE:
        if stop > 0 and s[H_TURN] >= stop:
            break
        if steps >= max_steps:
            return STATUS_RUNAWAY
        steps += 1
        if forced >= 0:
            choice = forced
            forced = -1
        else:
            cur = s[H_CURRENT]
            pending = s[H_PENDING]
            actor = 1 - cur if pending else cur
            n = _legal(s, legal, saved, stacks, run_any, universal, strict)
            if n == 0:
                return STATUS_NO_ACTION
            if kinds[actor] == AGENT_RANDOM:
                if pending == 0 and s[H_ACTIONS] >= caps[actor] and legal[n - 1] == A_END_TURN:
                    choice = legal[n - 1]
                else:
                    choice = legal[_below(rng, 2 + actor, n)]
            else:
                choice = _greedy(s, legal, n, actor, weights, saved, stacks, run_any, terms)
        if choice == A_END_TURN:
            _end_turn(s, rng, hist, max_turns)
        else:
            _perform(s, choice, run_any)
    return STATUS_OK


@_compiled
def play_games(seeds, g0, first_mode, hand_start, hand_other, run_any, universal, strict, max_turns, max_steps, kinds,
               caps, weights, res, values, offsets, status, s, saved, stacks, legal, hist, rng, terms):
    """Play games ``g0..`` (``play.play_game``) until done, the ``values`` buffer is full, or a game runs away.

    Returns the index of the first game not played: ``len(seeds)`` when done; else either
    ``status[0]`` names the error (``STATUS_*``, the game is that index) or the caller grows
    ``values`` and calls again from there.  ``res[g]``: RES_* columns.  ``values[seat]``: each
    seat's combined value after every turn, game after game (game ``g``'s are
    ``values[seat, offsets[g]:offsets[g + 1]]``, ``offsets[g0]`` set by the caller).  ``kinds``,
    ``caps``, ``weights``: per seat, the agent (``AGENT_*``), the random agent's turn cap and the
    greedy weights (``agents.Weights`` order); ``strict`` the stricter readings in force (``STRICT_*`` bits).
    The rest is scratch space (``s``: the state; ``hist``: ``[2, max_turns]``; ``terms``: ``[TERM_ROWS, TERMS]``
    floats).
    """
    n_games = seeds.shape[0]
    for g in range(g0, n_games):
        seed = seeds[g]
        for k in range(5):
            rng[k] = _mix(seed ^ _STREAM_K[k + 1])  # 0 deck, 1 quarry, 2 p1, 3 p2, 4 first
        first = _below(rng, 4, 2) if first_mode == FIRST_RANDOM else first_mode
        _new_game(s, first, hand_start, hand_other, rng)
        code = _play_on(s, -1, 0, rng, kinds, caps, weights, run_any, universal, strict, max_turns, max_steps, saved,
                        stacks, legal, hist, terms)
        if code != STATUS_OK:
            status[0] = code
            return g
        length = s[H_TURN]
        start = offsets[g]
        if start + length > values.shape[1]:
            return g
        recorded = s[H_HISTORY]
        for seat in range(2):
            for t in range(recorded):
                values[seat, start + t] = hist[seat, t]
            if recorded < length:  # ended mid-turn: the final values last (``model.trajectory``)
                values[seat, start + recorded] = _combined(s, seat)
        offsets[g + 1] = start + length
        _result(s, res, g)
    return n_games


# ------------------------------------------------------------------------ continue from a state
@_compiled
def continue_games(worlds, wrng, actions, me, stop_after, scale, kinds, caps, weights, ew, run_any, universal, strict,
                   max_turns, max_steps, out, res, status, s, saved, stacks, legal, hist, rng, terms):
    """Every action of ``actions`` played in every world, then the game played on (:func:`_play_on`).

    ``worlds[w]``: a state in this module's encoding (``fast.encode_state``); ``wrng[w]``: the deck
    stream, then p1's and p2's agent streams.  ``actions[a]``: an index into ``ACTIONS`` (-1: none, the
    agents decide).  With ``stop_after`` > 0 a rollout stops once that many more turns have begun, as
    core's ``search.play_on`` does with the game's clock.  ``out[w, a]``: 1 when ``me`` won, 0.5 a draw,
    0 a loss; a cut rollout the logistic of greedy's evaluation with weights ``ew`` over ``scale``.
    ``res[w, a]``: the ``RES_*`` columns of the position reached.  ``status[0]``: ``STATUS_*``.
    """
    size = worlds.shape[1]
    for wi in range(worlds.shape[0]):
        for ai in range(actions.shape[0]):
            for i in range(size):
                s[i] = worlds[wi, i]
            rng[0] = wrng[wi, 0]
            rng[2] = wrng[wi, 1]
            rng[3] = wrng[wi, 2]
            stop = s[H_TURN] + stop_after if stop_after > 0 else 0
            code = _play_on(s, actions[ai], stop, rng, kinds, caps, weights, run_any, universal, strict, max_turns,
                            max_steps, saved, stacks, legal, hist, terms)
            if code != STATUS_OK:
                status[0] = code
                return
            out[wi, ai] = (_squash(_evaluate(s, me, ew, run_any, terms), scale) if s[H_REASON] == R_NONE
                           else _outcome_worth(s[H_WINNER], me))
            _result(s, res[wi], ai)


@_compiled
def action_scores(s, actions, me, weights, run_any, out, saved, stacks, terms):
    """Greedy's score of each action of ``actions`` (indices into ``ACTIONS``) in ``s``: the search's prior.

    ``end turn`` scores the position, every other action its result less ``MARGIN`` (as greedy ranks
    them); ``s`` is left as it was.
    """
    base, quiet = _base(s, me, weights, run_any, terms)
    unsaved = True
    for k in range(actions.shape[0]):
        out[k], unsaved = _rank_score(s, actions[k], me, weights, saved, stacks, run_any, terms, base, quiet, unsaved)
