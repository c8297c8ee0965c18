"""The compiled Towers of Babylon kernel (numba): whole games for the random and greedy agents, bit for bit.

Every function here mirrors one of ``rules.py`` or ``agents.py`` (named in its docstring) and draws
from the same SplitMix64 sub-streams in the same order (``model.py``): 1 and 2 shuffle p1's and
p2's decks, 3 and 4 are the agents of p1 and p2, 5 the first player.  All memory is preallocated
by the caller; the kernel allocates nothing (compiled without numba's reference counting).

**The card table** ``tab`` (one ``int64`` array, built by ``fast.card_table`` from the Config, so
an edited cards CSV needs no recompiling): the numbers in force and the readings played (``X_*``,
a reading 1 for its non-default value), then one row per card (``C_*``: type, faction, costs,
stats, the seven keyword flags and a clause id per trigger, -1 for none), one row per clause
(``L_*``: its first action, how many, the target it chooses, whether that choice is a ``may`` and
whether it destroys the friendly minion it chooses), one row per action (``A_*``: verb, target,
amount, per, may) and both deck lists.

**The state** ``s`` (one ``int64`` array, the rules' ``State``): a header of every scalar and the
two sides' counters (``H_*``, per side ``S_*``), then the trigger queue (``QF`` fields an entry),
the minions in uid order (``MF`` fields), both hands (sorted, ``UNKNOWN`` first), the waiting
Invocations, both decks (a top and an end index in the header), the towers after each turn, and
one flag per card and seat for the cards drawn and played.  Greedy looks ahead on the *view* of a
seat (``agents.observe``): a compact copy without decks or flags whose draws are ``UNKNOWN`` and
whose opponent's hand is that many ``UNKNOWN`` cards — exactly what the reference's lookahead sees.

Actions are ``(kind, a, b, pay)`` rows with ``rules.K_*`` kinds, listed in ``rules.legal_actions``'
order into a row of ``lg`` (``pay``: a play's sources, ``rules.pack_payment``, under ``payment="chosen"``;
else 0).  A list longer than ``lg``'s rows is counted but not written (:func:`_put`; ``STATUS_TOO_MANY``).
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
from workbench.games.babylon import agents, rules

# ------------------------------------------------------------------------------------ encodings
UNKNOWN = rules.UNKNOWN
NO_TARGET = rules.NO_TARGET  # also TOWER_TARGET (both -1)
NF = rules.N_FACTIONS
RAMPARTS, TOWER, BATTLEFIELD = rules.RAMPARTS, rules.TOWER, rules.BATTLEFIELD
READY, IMMOBILE, EXHAUSTED = rules.READY, rules.IMMOBILE, rules.EXHAUSTED
MINION, COMMAND, INVOCATION, WITCHERY = rules.MINION, rules.COMMAND, rules.INVOCATION, rules.WITCHERY
MULLIGAN, START, MAIN, BLOCK, WITCH, TWIN, OFFER, TARGET = (rules.MULLIGAN, rules.START, rules.MAIN, rules.BLOCK,
                                                          rules.WITCH, rules.TWIN, rules.OFFER, rules.TARGET)
NO_DECISION = -1
(K_MULLIGAN, K_DRAW, K_OFFER, K_SKIP, K_PLAY, K_MOVE, K_BUILD, K_ATTACK, K_END, K_BLOCK, K_WITCH,
 K_TARGET) = (rules.K_MULLIGAN, rules.K_DRAW, rules.K_OFFER, rules.K_SKIP, rules.K_PLAY, rules.K_MOVE,
              rules.K_BUILD, rules.K_ATTACK, rules.K_END, rules.K_BLOCK, rules.K_WITCH, rules.K_TARGET)
ST_BLOCK, ST_WITCH, ST_TWIN, ST_CLASH = rules.ST_BLOCK, rules.ST_WITCH, rules.ST_TWIN, rules.ST_CLASH
N_TALLIES = len(rules.TALLIES)
(T_BUILT, T_DAMAGE, T_STOLEN, T_MINIONS, T_SPELLS, T_WITCH, T_OFFER, T_ATTACKS, T_BLOCKS, T_DEATHS, T_DRAWN,
 T_MULLIGAN) = (rules.T_BUILT, rules.T_DAMAGE, rules.T_STOLEN, rules.T_MINIONS, rules.T_SPELLS, rules.T_WITCH,
                rules.T_OFFER, rules.T_ATTACKS, rules.T_BLOCKS, rules.T_DEATHS, rules.T_DRAWN, rules.T_MULLIGAN)
R_NONE, R_TOWER, R_COUNT = 0, 1 + rules.REASONS.index(rules.TOWER_WIN), 1 + rules.REASONS.index(rules.COUNT)
DRAW = 2  # winner code of a draw
AGENT_RANDOM, AGENT_GREEDY = 0, 1
FIRST_P1, FIRST_P2, FIRST_RANDOM = 0, 1, 2
STATUS_OK, STATUS_RUNAWAY, STATUS_NO_ACTION, STATUS_TOO_MANY = 0, 1, 2, 3
PAY_BASE = rules.PAY_BASE
PAY_STEP = agents.PAY_STEP

# triggers (a clause slot per card), verbs, targets and counts of the card text (effects.py)
TRIGGERS = ("swear", "shape", "dying", "play", "start_next", "enemy_attacks", "enemy_attacks_tower", "friendly_enters",
            "any_time")
(TR_SWEAR, TR_SHAPE, TR_DYING, TR_PLAY, TR_START_NEXT, TR_ENEMY_ATTACKS, TR_ENEMY_ATTACKS_TOWER, TR_FRIENDLY_ENTERS,
 TR_ANY_TIME) = range(9)
VERBS = ("damage", "tower", "draw", "offering", "sentence", "exhaust", "ready", "heal", "destroy", "return_hand",
         "to_ramparts", "health", "no_tower_damage", "end_attack")
(V_DAMAGE, V_TOWER, V_DRAW, V_OFFERING, V_SENTENCE, V_EXHAUST, V_READY, V_HEAL, V_DESTROY, V_RETURN, V_RAMPARTS,
 V_HEALTH, V_NO_TOWER_DAMAGE, V_END_ATTACK) = range(len(VERBS))
TARGETS = ("", "minion", "enemy_minion", "friendly_minion", "it", "attacker", "blocker", "each_enemy_raider",
           "each_enemy_defender", "enemy_tower", "own_tower", "entering")
(G_NONE, G_MINION, G_ENEMY_MINION, G_FRIENDLY_MINION, G_IT, G_ATTACKER, G_BLOCKER, G_EACH_RAIDER, G_EACH_DEFENDER,
 G_ENEMY_TOWER, G_OWN_TOWER, G_ENTERING) = range(len(TARGETS))
PERS = ("", "friendly_builder")
P_NONE, P_FRIENDLY_BUILDER = range(len(PERS))

# the card table
X_NCARDS, X_WIN, X_TURNS, X_MULLIGAN, X_START_HAND, X_SECOND_CARDS, X_SECOND_TP, X_START_TOWER = range(8)
X_FIRST, X_CLAUSES, X_ACTS, X_DECKS, X_DECK_LEN = 8, 9, 10, 11, 13  # X_DECKS, X_DECK_LEN: [seat]
# the readings (rules.READINGS): 1 when the Config plays the non-default value
X_NO_CLASH_BACK, X_PACT_UNPLAYABLE, X_THIEF_DAMAGE, X_CRUSH_PRINTED, X_SENTENCED_FAILS = 15, 16, 17, 18, 19
X_PAY_OTHERS_FIRST, X_PAY_CHOSEN = 20, 21  # payment: others_first, chosen (neither: keep_playable)
assert NF == 5, "_payment enumerates five factions"
TAB_CARDS = 24
(C_TYPE, C_FACTION, C_POWER, C_SPECIFIC, C_TP, C_CONSTRUCTION, C_MIGHT, C_HEALTH, C_CRUSH, C_TWINSTRIKE, C_TUNNEL,
 C_LETHAL, C_THIEF, C_RETREATING, C_REGENERATING, C_COST) = range(16)
C_CLAUSE = 16  # [trigger]
CC = C_CLAUSE + len(TRIGGERS)
L_FIRST, L_COUNT, L_CHOICE, L_CHOICE_MAY, L_SACRIFICE = range(5)  # L_SACRIFICE: rules.sacrifices
LC = 5
A_VERB, A_TARGET, A_AMOUNT, A_PER, A_MAY = range(5)
AC = 5

# the state: header
H_ACTIVE, H_FIRST, H_TURN, H_NEXT_UID, H_UPKEEP, H_ENDING, H_WINNER, H_REASON, H_VIEW = range(9)
H_PKIND, H_PSEAT, H_PCTRL, H_PCARD, H_PCLAUSE, H_POFFERS, H_PMAY = range(9, 16)  # pending decision + its trigger
H_ATT, H_ATTACKER, H_ATARGET, H_ABLOCKER, H_ASTAGE, H_ANO_TOWER, H_AENDED, H_ATWIN = range(16, 24)
H_QLEN, H_MCOUNT, H_HIST, H_ENTERING = 24, 25, 26, 27  # H_ENTERING: rules.State.entering
H_BOARD_EDITS = 28  # how many times a minion joined or left the board or its board value's fields changed (greedy)
H_DIRTY = 29  # 1 when a minion may be out of health (_check_deaths looks; fast.encode_state sets it)
H_SIDE = 30
S_TP, S_TOWER, S_TURNS = 0, 1, 2
S_AVAIL = 3  # [faction]
S_EXH = S_AVAIL + NF  # [faction]
S_TALLY = S_EXH + NF  # [tally]
S_HAND = S_TALLY + N_TALLIES  # lengths and indices
S_INV, S_DTOP, S_DEND, S_DISCARD, S_SACRIFICE = S_HAND + 1, S_HAND + 2, S_HAND + 3, S_HAND + 4, S_HAND + 5
S_EDITS = S_HAND + 6  # how many times a card joined or left the hand (greedy's evaluation reuses a hand's sums)
SIDE = 32
assert S_EDITS < SIDE
HEADER = H_SIDE + 2 * SIDE
# the state: bodies
QF = 5  # a trigger: controller, card, clause (-1: Offerings owed), offers, may
QCAP = 256
F_UID, F_CARD, F_OWNER, F_ZONE, F_STATUS, F_DAMAGE, F_SENTENCED, F_BONUS = range(8)
MF = 8
MCAP = 128
HCAP = 96  # a hand, the Invocations, a deck (60 cards and a mulligan)
HISTCAP = 2 * 100 + 8
B_QUEUE = HEADER
B_MIN = B_QUEUE + QCAP * QF
B_HAND = B_MIN + MCAP * MF  # [seat][HCAP]
B_INV = B_HAND + 2 * HCAP  # [seat][HCAP]
B_DECK = B_INV + 2 * HCAP  # [seat][HCAP]
B_HIST = B_DECK + 2 * HCAP  # [seat][HISTCAP]
B_SCRATCH = B_HIST + 2 * HISTCAP  # MCAP uids of a group action, or a payment's workspace (_payment)
# greedy's keep-together payment (_keep_together), after _payment's: a faction's sources, the least power of j cards
# so far and of one faction's, and that faction's table by (cards, specific cost) — a faction holds at most HCAP
# sources (each is an Offering of a deck card)
PAY_CAPS = B_SCRATCH + 2 * NF + 2 * HCAP
PAY_LEAST = PAY_CAPS + NF
PAY_OWN = PAY_LEAST + HCAP + 2
PAY_TABLE = PAY_OWN + HCAP + 2
B_FLAGS = PAY_TABLE + (HCAP + 1) * (HCAP + 1)  # drawn [seat][n cards], then played [seat][n cards]
assert B_FLAGS - B_SCRATCH >= MCAP


def state_size(n_cards: int) -> int:
    """Entries of a state array for a pool of ``n_cards``."""
    return B_FLAGS + 4 * n_cards


# greedy's weights: indices into agents.Weights (by name: a changed field breaks the import, not a game)
_W = {name: i for i, name in enumerate(agents.Weights._fields)}
(W_TOWER, W_MINION, W_HEALTH, W_BUILDER, W_RAIDER, W_GUARD, W_SENTENCED, W_CARD, W_HAND_DECAY, W_PLAYABLE,
 W_PLAYABLE_CAP, W_SOURCE, W_SOURCE_DECAY, W_TP, W_LATE, W_MARGIN, W_MULLIGAN_COST) = (
    _W[name] for name in ("tower", "minion", "health", "builder", "raider", "guard", "sentenced", "card", "hand_decay",
                          "playable", "playable_cap", "source", "source_decay", "tp", "late", "margin",
                          "mulligan_cost"))
W_SOURCE_NEED, W_SOURCE_SURPLUS, W_TP_WITCHERY = _W["source_need"], _W["source_surplus"], _W["tp_witchery"]
N_WEIGHTS = len(_W)
# after the weights, per seat, tables of the evaluation's sums (filled by _weight_tables from the weights, the same
# float operations in the same order): the sources' part at t sources, then the k-th hand card's step, then the
# sources' and both hands' part at (sources, my hand, their hand) below (MEMO_SRC, MEMO_HAND, MEMO_HAND), worked
# out the first time it is asked for (NaN until then)
SRC_CAP = 128
MEMO_SRC, MEMO_HAND = 32, 16
T_SOURCES = N_WEIGHTS
T_HAND = T_SOURCES + SRC_CAP
T_MEMO = T_HAND + HCAP + 1
# then a minion's board value by (card, zone, sentenced, health lasting) for cards below VALUE_CARDS and health below
# VALUE_HEALTH, worked out the first time too (_minion_value)
VALUE_CARDS, VALUE_HEALTH = 128, 16
T_VALUE = T_MEMO + MEMO_SRC * MEMO_HAND * MEMO_HAND
# and the board's weight by the turns a seat has taken, below LEFT_CAP (worked out the first time)
LEFT_CAP = 256
T_LEFT = T_VALUE + VALUE_CARDS * 3 * 2 * VALUE_HEALTH
WEIGHT_COLS = T_LEFT + LEFT_CAP
WIN_VALUE = 1e6  # agents.WIN_VALUE
SETTLE_STEPS = 12  # agents._settle's bound

# result columns: winner, reason, length, first; then per seat these, then the tallies
RES_WINNER, RES_REASON, RES_LENGTH, RES_FIRST, RES_HIST, RES_SEAT = range(6)
SEAT_TOWER, SEAT_TP, SEAT_SOURCES, SEAT_HAND, SEAT_BOARD, SEAT_TALLIES = range(6)
SEAT_COLS = SEAT_TALLIES + N_TALLIES
RES_COLS = RES_SEAT + 2 * SEAT_COLS

_STREAM_K = stream_keys(6)
# State and card-table indices are unsigned: numba fixes up a signed index that might be negative on every access
# (a test and a conditional move), which also keeps copy loops from vectorising.  Nothing here indexes from the end.
_U = np.uint64


# --------------------------------------------------------------------------------------- helpers
@_compiled
def _cd(tab, card, col):
    """A column of the card table (an unsigned index: no negative-index fix-up, see :func:`_copy_run`)."""
    return tab[_U(TAB_CARDS + card * CC + col)]


@_compiled
def _sb(seat):
    """Offset of ``seat``'s side in the header."""
    return H_SIDE + seat * SIDE


@_compiled
def _tally(s, seat, which, n):
    s[_U(H_SIDE + seat * SIDE + S_TALLY + which)] += n


@_compiled
def _find(s, uid):
    """Index of minion ``uid`` in the minion list, -1 when it is not on the board (``rules.minion``).

    The list is in uid order (a minion joins at its end with the next uid) and uids differ, so minion ``uid``
    stands at least as many places before the end as the last uid is above it: the search starts there.
    """
    n = s[H_MCOUNT]
    if n == 0:
        return -1
    gap = s[_U(B_MIN + (n - 1) * MF + F_UID)] - uid
    if gap < 0:
        return -1
    i = n - 1 - gap
    if i < 0:
        i = 0
    while i < n:
        u = s[_U(B_MIN + i * MF + F_UID)]
        if u >= uid:
            return i if u == uid else -1
        i += 1
    return -1


@_compiled
def _health_left(s, tab, i):
    """``rules.health_left`` of the minion at index ``i``."""
    m = B_MIN + i * MF
    return _cd(tab, s[_U(m + F_CARD)], C_HEALTH) + s[_U(m + F_BONUS)] - s[_U(m + F_DAMAGE)]


@_compiled
def _hand_remove(s, seat, card):
    """``rules._remove``: the first copy of ``card`` leaves the hand."""
    off = B_HAND + seat * HCAP
    hi = _sb(seat) + S_HAND
    n = s[_U(hi)]
    k = 0
    while s[_U(off + k)] != card:
        k += 1
    for j in range(k, n - 1):
        s[_U(off + j)] = s[_U(off + j + 1)]
    s[_U(hi)] = n - 1
    s[_U(hi + S_EDITS - S_HAND)] += 1


@_compiled
def _hand_add(s, seat, card):
    """``rules._add``: ``card`` joins the sorted hand."""
    off = B_HAND + seat * HCAP
    hi = _sb(seat) + S_HAND
    n = s[_U(hi)]
    k = n
    while k > 0 and s[_U(off + k - 1)] > card:
        s[_U(off + k)] = s[_U(off + k - 1)]
        k -= 1
    s[_U(off + k)] = card
    s[_U(hi)] = n + 1
    s[_U(hi + S_EDITS - S_HAND)] += 1


@_compiled
def _queue_push(s, front, ctrl, card, clause, offers, may):
    """A trigger joins the queue at its end (or its ``front``)."""
    n = s[H_QLEN]
    if front:
        for j in range(n * QF - 1, -1, -1):
            s[_U(B_QUEUE + QF + j)] = s[_U(B_QUEUE + j)]
        q = B_QUEUE
    else:
        q = B_QUEUE + n * QF
    s[_U(q)] = ctrl
    s[_U(q + 1)] = card
    s[_U(q + 2)] = clause
    s[_U(q + 3)] = offers
    s[_U(q + 4)] = may
    s[H_QLEN] = n + 1


@_compiled
def _set_flag(s, tab, which, seat, card):
    """Mark ``card`` drawn (``which`` 0) or played (1) by ``seat`` (not in a view: nobody records there)."""
    if s[H_VIEW] == 0 and card != UNKNOWN:
        s[_U(B_FLAGS + (which * 2 + seat) * tab[X_NCARDS] + card)] = 1


# ------------------------------------------------------------------------------------ setup
@_compiled
def _new_game(s, tab, first, rng):
    """``rules.new_game``: shuffle both decks (streams 1, 2), deal, ask the first seat's mulligan."""
    for i in range(HEADER):
        s[_U(i)] = 0
    n_cards = tab[X_NCARDS]
    for i in range(4 * n_cards):
        s[_U(B_FLAGS + i)] = 0
    for seat in range(2):
        deck = B_DECK + seat * HCAP
        src = tab[_U(X_DECKS + seat)]
        size = tab[_U(X_DECK_LEN + seat)]
        for i in range(size):
            s[_U(deck + i)] = tab[_U(src + i)]
        for i in range(size - 1, 0, -1):  # SplitMix64.shuffle
            j = _below(rng, seat, i + 1)
            t = s[_U(deck + i)]
            s[_U(deck + i)] = s[_U(deck + j)]
            s[_U(deck + j)] = t
        n = tab[X_START_HAND] + (tab[X_SECOND_CARDS] if seat != first else 0)
        b = _sb(seat)
        s[_U(b + S_HAND)] = 0
        for i in range(n):
            _hand_add(s, seat, s[_U(deck + i)])
            _set_flag(s, tab, 0, seat, s[_U(deck + i)])
        s[_U(b + S_DTOP)] = n
        s[_U(b + S_DEND)] = size
        s[_U(b + S_TP)] = tab[X_SECOND_TP] if seat != first else 0
        s[_U(b + S_TOWER)] = tab[X_START_TOWER]
        s[_U(b + S_TALLY + T_DRAWN)] = n
    s[H_ACTIVE] = first
    s[H_FIRST] = first
    s[H_ENTERING] = NO_TARGET
    _pend(s, MULLIGAN, first, 0, 0, 0, 0, 0)  # the first seat's mulligan (the header's other fields are zero)


@_compiled
def _mulligan(s, tab, seat, mask):
    """``rules._mulligan``: the masked cards go under the deck, as many come from its top."""
    b = _sb(seat)
    hand = B_HAND + seat * HCAP
    deck = B_DECK + seat * HCAP
    n_hand = s[_U(b + S_HAND)]
    end = s[_U(b + S_DEND)]
    kept = 0
    back = 0
    for i in range(n_hand):
        c = s[_U(hand + i)]
        if mask >> i & 1:
            s[_U(deck + end + back)] = c
            back += 1
        else:
            s[_U(hand + kept)] = c
            kept += 1
    s[_U(b + S_HAND)] = kept
    s[_U(b + S_EDITS)] += back
    s[_U(b + S_DEND)] = end + back
    top = s[_U(b + S_DTOP)]
    for i in range(back):
        c = s[_U(deck + top + i)]
        _hand_add(s, seat, c)
        _set_flag(s, tab, 0, seat, c)
    s[_U(b + S_DTOP)] = top + back
    _tally(s, seat, T_MULLIGAN, back)
    _tally(s, seat, T_DRAWN, back)
    if seat == s[H_FIRST]:
        s[H_PKIND] = MULLIGAN
        s[H_PSEAT] = 1 - seat
        return
    s[H_PKIND] = NO_DECISION
    _begin_turn(s, tab, s[H_FIRST])


# -- turns ----------------------------------------------------------------------------------------
@_compiled
def _begin_turn(s, tab, seat):
    """``rules._begin_turn``: sources back, minions ready (Regenerating heals), Invocations queued."""
    b = _sb(seat)
    for f in range(NF):
        s[_U(b + S_AVAIL + f)] += s[_U(b + S_EXH + f)]
        s[_U(b + S_EXH + f)] = 0
    s[_U(b + S_TURNS)] += 1
    s[H_ACTIVE] = seat
    s[H_TURN] += 1
    s[H_UPKEEP] = 1
    for i in range(s[H_MCOUNT]):
        m = B_MIN + i * MF
        if s[_U(m + F_OWNER)] == seat:
            s[_U(m + F_STATUS)] = READY
            if _cd(tab, s[_U(m + F_CARD)], C_REGENERATING):
                s[_U(m + F_DAMAGE)] = 0
                s[H_BOARD_EDITS] += 1
    inv = B_INV + seat * HCAP
    for i in range(s[_U(b + S_INV)]):
        card = s[_U(inv + i)]
        _queue_push(s, False, seat, card, _cd(tab, card, C_CLAUSE + TR_START_NEXT), 0, 0)
        s[_U(b + S_DISCARD)] += 1
    s[_U(b + S_INV)] = 0


@_inlined
def _end_turn(s, tab):
    """``rules._end_turn``: available sources exhausted into Transformed Power, bonus health gone."""
    b = _sb(s[H_ACTIVE])
    n = 0
    for f in range(NF):
        a = s[_U(b + S_AVAIL + f)]
        n += a
        s[_U(b + S_EXH + f)] += a
        s[_U(b + S_AVAIL + f)] = 0
    s[_U(b + S_TP)] += n
    for i in range(s[H_MCOUNT]):
        s[_U(B_MIN + i * MF + F_BONUS)] = 0
    s[H_DIRTY] = 1
    _check_deaths(s, tab)
    s[H_ENDING] = 1


@_inlined
def _next_turn(s, tab):
    """``rules._next_turn``: the towers recorded; after both seats' last turn the higher tower wins."""
    s[H_ENDING] = 0
    t0 = s[_U(_sb(0) + S_TOWER)]
    t1 = s[_U(_sb(1) + S_TOWER)]
    h = s[H_HIST]
    if h < HISTCAP:
        s[_U(B_HIST + h)] = t0
        s[_U(B_HIST + HISTCAP + h)] = t1
    s[H_HIST] = h + 1
    if s[_U(_sb(0) + S_TURNS)] >= tab[X_TURNS] and s[_U(_sb(1) + S_TURNS)] >= tab[X_TURNS]:
        s[H_WINNER] = 0 if t0 > t1 else (1 if t1 > t0 else DRAW)
        s[H_REASON] = R_COUNT
        return
    _begin_turn(s, tab, 1 - s[H_ACTIVE])


@_compiled
def _draw(s, tab, seat, n):
    """``rules.draw``: up to ``n`` cards from the top (``UNKNOWN`` ones in a view)."""
    b = _sb(seat)
    top = s[_U(b + S_DTOP)]
    k = min(n, s[_U(b + S_DEND)] - top)
    if k <= 0:
        return
    view = s[H_VIEW]
    deck = B_DECK + seat * HCAP
    for i in range(k):
        c = UNKNOWN if view else s[_U(deck + top + i)]
        _hand_add(s, seat, c)
        _set_flag(s, tab, 0, seat, c)
    s[_U(b + S_DTOP)] = top + k
    _tally(s, seat, T_DRAWN, k)


@_compiled
def _offering(s, tab, seat, card):
    """``rules.offering``: the card to the Sacrifice Pile, an available source of its colour."""
    _hand_remove(s, seat, card)
    b = _sb(seat)
    s[_U(b + S_SACRIFICE)] += 1
    s[b + S_AVAIL + _cd(tab, card, C_FACTION)] += 1
    _tally(s, seat, T_OFFER, 1)


@_compiled
def _change_tower(s, tab, seat, delta):
    """``rules.change_tower``: never below 0, the win height wins at once; the levels actually moved."""
    i = _sb(seat) + S_TOWER
    old = s[_U(i)]
    new = max(0, old + delta)
    s[_U(i)] = new
    if new >= tab[X_WIN] and s[H_REASON] == R_NONE:
        s[H_WINNER] = seat
        s[H_REASON] = R_TOWER
    return new - old


# -- minions --------------------------------------------------------------------------------------
@_compiled
def _exhaust(s, uid):
    """``rules._exhaust``: a Sentenced minion takes 1 damage as it becomes exhausted."""
    i = _find(s, uid)
    if i < 0:
        return
    m = B_MIN + i * MF
    if s[_U(m + F_STATUS)] == EXHAUSTED:
        return
    s[_U(m + F_STATUS)] = EXHAUSTED
    if s[_U(m + F_SENTENCED)]:
        s[_U(m + F_DAMAGE)] += s[_U(m + F_SENTENCED)]
        s[H_DIRTY] = 1
        s[H_BOARD_EDITS] += 1


@_compiled
def _damage(s, tab, uid, n, lethal):
    """``rules._damage``: Lethal raises the damage to the minion's whole health."""
    i = _find(s, uid)
    if i >= 0:
        _damage_at(s, tab, i, n, lethal)


@_compiled
def _damage_at(s, tab, i, n, lethal):
    """:func:`_damage` of the minion at index ``i``."""
    if n <= 0:
        return
    m = B_MIN + i * MF
    damage = s[_U(m + F_DAMAGE)] + n
    if lethal:
        damage = max(damage, _cd(tab, s[_U(m + F_CARD)], C_HEALTH) + s[_U(m + F_BONUS)])
    s[_U(m + F_DAMAGE)] = damage
    s[H_DIRTY] = 1
    s[H_BOARD_EDITS] += 1


@_compiled
def _remove_minion(s, i):
    n = s[H_MCOUNT]
    for j in range(_U(B_MIN + i * MF), _U(B_MIN + (n - 1) * MF)):  # unsigned: see _copy_run
        s[j] = s[j + _U(MF)]
    s[H_MCOUNT] = n - 1
    s[H_BOARD_EDITS] += 1


@_compiled
def _kill(s, tab, uid):
    """``rules._kill``: to the discard pile; its Dying Words join the queue."""
    i = _find(s, uid)
    if i >= 0:
        _kill_at(s, tab, i)


@_compiled
def _kill_at(s, tab, i):
    """:func:`_kill` of the minion at index ``i``."""
    card = s[_U(B_MIN + i * MF + F_CARD)]
    owner = s[_U(B_MIN + i * MF + F_OWNER)]
    _remove_minion(s, i)
    s[_U(_sb(owner) + S_DISCARD)] += 1
    _tally(s, owner, T_DEATHS, 1)
    clause = _cd(tab, card, C_CLAUSE + TR_DYING)
    if clause >= 0:
        _queue_push(s, False, owner, card, clause, 0, 0)


@_compiled
def _check_deaths(s, tab):
    """``rules._check_deaths``: every minion out of health dies, oldest first.

    Only a minion's damage, its bonus health and a minion entering can leave one out of health: each sets
    ``H_DIRTY``, and a state without it has every minion's health left above 0 (looked at already).
    """
    if s[H_DIRTY] == 0:
        return
    s[H_DIRTY] = 0
    i = 0
    while i < s[H_MCOUNT]:
        if _health_left(s, tab, i) <= 0:
            _kill_at(s, tab, i)
        else:
            i += 1


# -- effects --------------------------------------------------------------------------------------
@_compiled
def _targetable(s, i, ctrl, target):
    """``rules.targets``' test of the minion at index ``i``."""
    if target == G_MINION:
        return True
    return (s[_U(B_MIN + i * MF + F_OWNER)] == ctrl) == (target == G_FRIENDLY_MINION)


@_compiled
def _scratch_group(s, ctrl, zone):
    """``rules._group`` into the scratch area: uids of the enemy minions in ``zone``; how many."""
    n = 0
    for i in range(s[H_MCOUNT]):
        m = B_MIN + i * MF
        if s[_U(m + F_OWNER)] != ctrl and s[_U(m + F_ZONE)] == zone:
            s[_U(B_SCRATCH + n)] = s[_U(m + F_UID)]
            n += 1
    return n


@_compiled
def _run_clause(s, tab, ctrl, card, clause, chosen):
    """``rules.run_clause``: the clause's actions in order, deaths after each, Offerings owed queued first."""
    it = NO_TARGET
    enemy = 1 - ctrl
    offers = 0
    offer_may = 0
    row = tab[X_CLAUSES] + clause * LC
    first = tab[_U(row + L_FIRST)]
    for k in range(tab[_U(row + L_COUNT)]):
        if s[H_REASON] != R_NONE:
            return
        a = tab[X_ACTS] + (first + k) * AC
        verb = tab[_U(a + A_VERB)]
        target = tab[_U(a + A_TARGET)]
        amount = tab[_U(a + A_AMOUNT)]
        n = 0
        if target == G_MINION or target == G_ENEMY_MINION or target == G_FRIENDLY_MINION:
            it = chosen
            if chosen != NO_TARGET and _find(s, chosen) >= 0:
                s[B_SCRATCH] = chosen
                n = 1
        elif target == G_IT:
            if it != NO_TARGET and _find(s, it) >= 0:
                s[B_SCRATCH] = it
                n = 1
        elif target == G_ENTERING:
            if s[H_ENTERING] != NO_TARGET and _find(s, s[H_ENTERING]) >= 0:
                s[B_SCRATCH] = s[H_ENTERING]
                n = 1
        elif target == G_ATTACKER or target == G_BLOCKER:
            uid = NO_TARGET
            if s[H_ATT]:
                uid = s[H_ATTACKER] if target == G_ATTACKER else s[H_ABLOCKER]
            if uid != NO_TARGET and _find(s, uid) >= 0:
                s[B_SCRATCH] = uid
                n = 1
        elif target == G_EACH_RAIDER:
            n = _scratch_group(s, ctrl, BATTLEFIELD)
        elif target == G_EACH_DEFENDER:
            n = _scratch_group(s, ctrl, RAMPARTS)
        if verb == V_DAMAGE and target == G_ENEMY_TOWER:
            _change_tower(s, tab, enemy, -amount)
        elif verb == V_DAMAGE:
            for j in range(n):
                _damage(s, tab, s[_U(B_SCRATCH + j)], amount, False)
        elif verb == V_TOWER:
            seat = ctrl if target == G_OWN_TOWER else enemy
            times = 1
            if tab[_U(a + A_PER)] == P_FRIENDLY_BUILDER:
                times = 0
                for i in range(s[H_MCOUNT]):
                    m = B_MIN + i * MF
                    if s[_U(m + F_OWNER)] == ctrl and s[_U(m + F_ZONE)] == TOWER:
                        times += 1
            _change_tower(s, tab, seat, amount * times)
        elif verb == V_DRAW:
            _draw(s, tab, ctrl, amount)
        elif verb == V_OFFERING:
            offers += amount
            offer_may = offer_may | tab[_U(a + A_MAY)]
        elif verb == V_DESTROY:
            for j in range(n):
                _kill(s, tab, s[_U(B_SCRATCH + j)])
        elif verb == V_EXHAUST:
            for j in range(n):
                _exhaust(s, s[_U(B_SCRATCH + j)])
        elif verb == V_RETURN:
            for j in range(n):
                i = _find(s, s[_U(B_SCRATCH + j)])
                c = s[_U(B_MIN + i * MF + F_CARD)]
                owner = s[_U(B_MIN + i * MF + F_OWNER)]
                _remove_minion(s, i)
                _hand_add(s, owner, c)
        elif verb == V_NO_TOWER_DAMAGE:
            if s[H_ATT]:
                s[H_ANO_TOWER] = 1
        elif verb == V_END_ATTACK:
            if s[H_ATT]:
                s[H_AENDED] = 1
        else:  # the verbs that change one field of each minion
            for j in range(n):
                m = B_MIN + _find(s, s[_U(B_SCRATCH + j)]) * MF
                if verb == V_SENTENCE:
                    s[_U(m + F_SENTENCED)] = 1
                    s[H_BOARD_EDITS] += 1
                elif verb == V_READY:
                    s[_U(m + F_STATUS)] = READY
                elif verb == V_HEAL:
                    s[_U(m + F_DAMAGE)] = 0
                    s[H_BOARD_EDITS] += 1
                elif verb == V_RAMPARTS:
                    s[_U(m + F_ZONE)] = RAMPARTS
                    s[H_BOARD_EDITS] += 1
                elif verb == V_HEALTH:
                    s[_U(m + F_BONUS)] += amount
                    s[H_DIRTY] = 1
        _check_deaths(s, tab)
    if offers and s[H_REASON] == R_NONE:
        _queue_push(s, True, ctrl, card, -1, offers, offer_may)


# -- attacks --------------------------------------------------------------------------------------
@_inlined
def _attacker_at(s):
    """Index of the attacker of the attack going on in the minion list, -1 (no attack, or its attacker is gone)."""
    if not s[H_ATT]:
        return -1
    return _find(s, s[H_ATTACKER])


@_compiled
def _block_side(s, tab):
    """The defending seat when ``rules.block_options`` may be non-empty (not Tunnel to the tower, not a Raider), -1."""
    ai = _attacker_at(s)
    return -1 if ai < 0 else _block_side_at(s, tab, ai)


@_compiled
def _block_side_at(s, tab, ai):
    """:func:`_block_side` of an attack going on whose attacker stands at index ``ai``."""
    target = s[H_ATARGET]
    if target == NO_TARGET:
        if _cd(tab, s[_U(B_MIN + ai * MF + F_CARD)], C_TUNNEL):
            return -1
    else:
        ti = _find(s, target)
        if ti < 0 or s[_U(B_MIN + ti * MF + F_ZONE)] == BATTLEFIELD:
            return -1
    return 1 - s[_U(B_MIN + ai * MF + F_OWNER)]


@_compiled
def _can_block(s, i, defender):
    """The minion at index ``i`` is one of ``rules.block_options``."""
    m = B_MIN + i * MF
    return (s[_U(m + F_OWNER)] == defender and s[_U(m + F_ZONE)] == RAMPARTS and s[_U(m + F_STATUS)] != EXHAUSTED
            and s[_U(m + F_UID)] != s[H_ATARGET])


@_compiled
def _witch_window(s):
    """No attack, or one still going on (``rules.witchery_options``' first test)."""
    return s[H_ATT] == 0 or (s[H_AENDED] == 0 and _find(s, s[H_ATTACKER]) >= 0)


@_compiled
def _witch_clause(s, tab, card):
    """The clause id ``rules.window_trigger`` picks for ``card`` in the open window, -1 when none."""
    if s[H_ATT]:
        clause = _cd(tab, card, C_CLAUSE + TR_ENEMY_ATTACKS)
        if clause < 0 and s[H_ATARGET] == NO_TARGET:
            clause = _cd(tab, card, C_CLAUSE + TR_ENEMY_ATTACKS_TOWER)
    elif s[H_ENTERING] != NO_TARGET:
        clause = _cd(tab, card, C_CLAUSE + TR_FRIENDLY_ENTERS)
    else:
        clause = -1
    if clause < 0:
        clause = _cd(tab, card, C_CLAUSE + TR_ANY_TIME)
    return clause


@_compiled
def _can_witch(s, tab, seat, card):
    """``card`` is one of ``rules.witchery_options`` of ``seat`` (the window being open)."""
    if card == UNKNOWN or _cd(tab, card, C_TYPE) != WITCHERY or _cd(tab, card, C_TP) > s[_U(_sb(seat) + S_TP)]:
        return False
    return _witch_clause(s, tab, card) >= 0


@_compiled
def _cast_witch(s, tab, seat, card):
    """``rules._cast_witchery``: TP paid, the card discarded, the open window's clause resolved."""
    clause = _witch_clause(s, tab, card)
    _hand_remove(s, seat, card)
    s[_U(_sb(seat) + S_TP)] -= _cd(tab, card, C_TP)
    s[_U(_sb(seat) + S_DISCARD)] += 1
    _set_flag(s, tab, 1, seat, card)
    _tally(s, seat, T_WITCH, 1)
    _run_clause(s, tab, seat, card, clause, NO_TARGET)


@_compiled
def _any_witch(s, tab, seat):
    """``rules.witchery_options`` of ``seat`` are not empty."""
    return _witch_window(s) and _any_witch_open(s, tab, seat)


@_compiled
def _any_witch_open(s, tab, seat):
    """:func:`_any_witch` once the window is known to be open."""
    off = B_HAND + seat * HCAP
    for k in range(s[_U(_sb(seat) + S_HAND)]):
        if _can_witch(s, tab, seat, s[_U(off + k)]):
            return True
    return False


@_compiled
def _clash_partner(s):
    """``rules._clash_partner``: the living blocker, else the living target minion of an unblocked attack."""
    blocker = s[H_ABLOCKER]
    if blocker != NO_TARGET and _find(s, blocker) >= 0:
        return blocker
    target = s[H_ATARGET]
    if blocker == NO_TARGET and target != NO_TARGET and _find(s, target) >= 0:
        return target
    return NO_TARGET


@_compiled
def _twin_partner(s, tab):
    """Index of the clash partner when ``rules.twin_options`` may be non-empty (a Twinstrike attacker), -1."""
    ai = -1 if s[H_AENDED] else _attacker_at(s)
    return -1 if ai < 0 else _twin_partner_at(s, tab, ai)


@_compiled
def _twin_partner_at(s, tab, ai):
    """:func:`_twin_partner` of an attack going on (not ended) whose attacker stands at index ``ai``."""
    if not _cd(tab, s[_U(B_MIN + ai * MF + F_CARD)], C_TWINSTRIKE):
        return -1
    partner = _clash_partner(s)
    return _find(s, partner) if partner != NO_TARGET else -1


@_compiled
def _twin_count(s, pi):
    """How many ``rules.twin_options`` the partner at index ``pi`` leaves; the first one's uid."""
    p = B_MIN + pi * MF
    n = 0
    first = NO_TARGET
    for i in range(s[H_MCOUNT]):
        m = B_MIN + i * MF
        if s[_U(m + F_OWNER)] == s[_U(p + F_OWNER)] and s[_U(m + F_ZONE)] == s[_U(p + F_ZONE)] and i != pi:
            if n == 0:
                first = s[_U(m + F_UID)]
            n += 1
    return n, first


@_compiled
def _hit_tower(s, tab, owner, card, amount):
    """``rules._hit_tower``: the enemy tower loses ``amount``; Thief gains what it actually lost."""
    if s[H_ANO_TOWER] or amount <= 0:
        return
    lost = _change_tower(s, tab, 1 - owner, -amount)
    _tally(s, owner, T_DAMAGE, -lost)
    gain = amount if tab[X_THIEF_DAMAGE] else -lost
    if _cd(tab, card, C_THIEF) and gain != 0 and s[H_REASON] == R_NONE:
        gained = _change_tower(s, tab, owner, gain)
        _tally(s, owner, T_STOLEN, gained)


@_compiled
def _after_attack(s, tab, attacker, partner):
    """``rules._after_attack``: the partner exhausted, Retreating back to the Ramparts, the attack over."""
    if partner != NO_TARGET:
        _exhaust(s, partner)
        _check_deaths(s, tab)
    ai = _find(s, attacker)
    if ai >= 0 and _cd(tab, s[_U(B_MIN + ai * MF + F_CARD)], C_RETREATING):
        s[_U(B_MIN + ai * MF + F_ZONE)] = RAMPARTS
        s[H_BOARD_EDITS] += 1
    s[H_ATT] = 0


@_inlined
def _clash(s, tab, ai):
    """``rules._clash`` of the attacker at index ``ai``: the tower hit, or both minions strike (Twinstrike, Lethal...).

    Twinstrike, Lethal and Crush's excess as the rules have them.
    """
    attacker = s[H_ATTACKER]
    card = s[_U(B_MIN + ai * MF + F_CARD)]
    owner = s[_U(B_MIN + ai * MF + F_OWNER)]
    might = _cd(tab, card, C_MIGHT)
    lethal = _cd(tab, card, C_LETHAL) != 0
    target = s[H_ATARGET]
    blocker = s[H_ABLOCKER]
    pi = -1  # _clash_partner's index
    if blocker != NO_TARGET:
        pi = _find(s, blocker)
    elif target != NO_TARGET:
        pi = _find(s, target)
    if pi < 0:
        if target == NO_TARGET and blocker == NO_TARGET:
            _hit_tower(s, tab, owner, card, might)
        _after_attack(s, tab, attacker, NO_TARGET)
        return
    partner = s[_U(B_MIN + pi * MF + F_UID)]
    left = _health_left(s, tab, pi)
    if tab[X_CRUSH_PRINTED]:
        left += s[_U(B_MIN + pi * MF + F_DAMAGE)]
    p_card = s[_U(B_MIN + pi * MF + F_CARD)]
    strikes_back = tab[X_NO_CLASH_BACK] == 0 or s[_U(B_MIN + pi * MF + F_STATUS)] != EXHAUSTED
    _damage_at(s, tab, pi, might, lethal and might > 0)
    if strikes_back:
        _damage_at(s, tab, ai, _cd(tab, p_card, C_MIGHT), _cd(tab, p_card, C_LETHAL) != 0)
    if s[H_ATWIN] != NO_TARGET:
        _damage(s, tab, s[H_ATWIN], might, lethal and might > 0)
    blocked = partner == blocker
    killed = _health_left(s, tab, pi) <= 0  # nobody has left the board yet
    _check_deaths(s, tab)
    if blocked and _cd(tab, card, C_CRUSH) and killed and might > left:
        excess = might - left
        if target == NO_TARGET:
            _hit_tower(s, tab, owner, card, excess)
        else:
            _damage(s, tab, target, excess, lethal and excess > 0)
            _check_deaths(s, tab)
    _after_attack(s, tab, attacker, partner)


@_inlined
def _continue_attack(s, tab):
    """``rules._continue_attack``: block, Witcheries, Twinstrike's target, then the clash."""
    ai = _find(s, s[H_ATTACKER])
    if ai < 0 or s[H_AENDED]:
        _after_attack(s, tab, s[H_ATTACKER], NO_TARGET)
        return
    defender = 1 - s[_U(B_MIN + ai * MF + F_OWNER)]
    stage = s[H_ASTAGE]
    if stage == ST_BLOCK:
        s[H_ASTAGE] = ST_WITCH
        if _block_side_at(s, tab, ai) >= 0:
            for i in range(s[H_MCOUNT]):
                if _can_block(s, i, defender):
                    s[H_PKIND] = BLOCK
                    s[H_PSEAT] = defender
                    return
        return
    if stage == ST_WITCH:
        if _any_witch_open(s, tab, defender):  # the attacker is there and the attack not ended: the window is open
            s[H_PKIND] = WITCH
            s[H_PSEAT] = defender
        else:
            s[H_ASTAGE] = ST_TWIN
        return
    if stage == ST_TWIN:
        s[H_ASTAGE] = ST_CLASH
        pi = _twin_partner_at(s, tab, ai)
        if pi >= 0:
            n, first = _twin_count(s, pi)
            if n == 1:
                s[H_ATWIN] = first
            elif n > 1:
                s[H_PKIND] = TWIN
                s[H_PSEAT] = 1 - defender
        return
    _clash(s, tab, ai)


# -- the step machine ---------------------------------------------------------------------------------
@_compiled
def _has_known(s, seat):
    """``rules.distinct(hand)`` is not empty."""
    off = B_HAND + seat * HCAP
    n = s[_U(_sb(seat) + S_HAND)]
    return n > 0 and s[_U(off + n - 1)] != UNKNOWN  # sorted: a known card is last if there is one


@_compiled
def _count_targets(s, ctrl, target):
    """``len(rules.targets(...))`` and the first one's uid."""
    n = 0
    first = NO_TARGET
    for i in range(s[H_MCOUNT]):
        if _targetable(s, i, ctrl, target):
            if n == 0:
                first = s[_U(B_MIN + i * MF + F_UID)]
            n += 1
    return n, first


@_inlined
def _resolve_trigger(s, tab):
    """``rules._resolve_trigger``: the queue's first text resolves, or asks for its target or Offering."""
    ctrl = s[B_QUEUE]
    card = s[_U(B_QUEUE + 1)]
    clause = s[_U(B_QUEUE + 2)]
    offers = s[_U(B_QUEUE + 3)]
    may = s[_U(B_QUEUE + 4)]
    n = s[H_QLEN] - 1
    for j in range(n * QF):
        s[_U(B_QUEUE + j)] = s[_U(B_QUEUE + QF + j)]
    s[H_QLEN] = n
    if clause < 0:
        if not _has_known(s, ctrl):
            return
        _pend(s, OFFER, ctrl, ctrl, card, clause, offers, may)
        return
    row = tab[X_CLAUSES] + clause * LC
    choice = tab[_U(row + L_CHOICE)]
    if choice == G_NONE:
        _run_clause(s, tab, ctrl, card, clause, NO_TARGET)
        return
    count, first = _count_targets(s, ctrl, choice)
    if count == 0 or (count == 1 and not tab[_U(row + L_CHOICE_MAY)]):
        _run_clause(s, tab, ctrl, card, clause, first)
        return
    _pend(s, TARGET, ctrl, ctrl, card, clause, offers, may)


@_compiled
def _pend(s, kind, seat, ctrl, card, clause, offers, may):
    s[H_PKIND] = kind
    s[H_PSEAT] = seat
    s[H_PCTRL] = ctrl
    s[H_PCARD] = card
    s[H_PCLAUSE] = clause
    s[H_POFFERS] = offers
    s[H_PMAY] = may


@_inlined
def _advance(s, tab):
    """``rules.advance``: everything automatic until a decision is due or the game is over."""
    while s[H_REASON] == R_NONE and s[H_PKIND] == NO_DECISION:
        if s[H_QLEN]:
            _resolve_trigger(s, tab)
        elif s[H_ATT]:
            _continue_attack(s, tab)
        elif s[H_ENTERING] != NO_TARGET:  # rules.advance: the Witchery window of a friendly minion entering
            if _any_witch(s, tab, s[H_ACTIVE]):
                s[H_PKIND] = WITCH
                s[H_PSEAT] = s[H_ACTIVE]
            else:
                s[H_ENTERING] = NO_TARGET
        elif s[H_ENDING]:
            _next_turn(s, tab)
        elif s[H_UPKEEP]:
            seat = s[H_ACTIVE]
            _draw(s, tab, seat, 1)
            s[H_UPKEEP] = 0
            s[H_PKIND] = START
            s[H_PSEAT] = seat
        else:
            break


@_compiled
def _decision(s):
    """``rules.decision``'s kind (``NO_DECISION`` at the end) — its seat is ``_decider``."""
    if s[H_REASON] != R_NONE:
        return NO_DECISION
    if s[H_PKIND] != NO_DECISION:
        return s[H_PKIND]
    return MAIN


@_compiled
def _decider(s):
    return s[H_PSEAT] if s[H_PKIND] != NO_DECISION else s[H_ACTIVE]


@_compiled
def _put(lg, d, n, k, a, b):
    """Row ``n`` of list ``d`` becomes ``(k, a, b, 0)`` (past the rows there are: only counted); ``n + 1``."""
    return _put_paid(lg, d, n, k, a, b, 0)


@_compiled
def _put_paid(lg, d, n, k, a, b, pay):
    """Row ``n`` of list ``d`` becomes ``(k, a, b, pay)`` (past the rows there are: only counted); ``n + 1``."""
    if n < lg.shape[1]:
        lg[d, n, 0] = k
        lg[d, n, 1] = a
        lg[d, n, 2] = b
        lg[d, n, 3] = pay
    return n + 1


@_compiled
def _put_play(s, tab, lg, d, n, seat, c, target):
    """The play of card ``c`` on ``target``: one row (the engine pays), or one per payment (``payment="chosen"``).

    The payments in ``rules.payments``' order (lexicographic in the sources per faction, Fire first).
    """
    if tab[X_PAY_CHOSEN] == 0:
        return _put(lg, d, n, K_PLAY, c, target)
    a = _sb(seat) + S_AVAIL
    f = _cd(tab, c, C_FACTION)
    specific = _cd(tab, c, C_SPECIFIC)
    power = _cd(tab, c, C_POWER)
    for p0 in range(min(s[_U(a)], power) + 1):
        for p1 in range(min(s[_U(a + 1)], power - p0) + 1):
            for p2 in range(min(s[_U(a + 2)], power - p0 - p1) + 1):
                for p3 in range(min(s[_U(a + 3)], power - p0 - p1 - p2) + 1):
                    p4 = power - p0 - p1 - p2 - p3
                    if p4 > s[_U(a + 4)]:
                        continue
                    if (p0 if f == 0 else p1 if f == 1 else p2 if f == 2 else p3 if f == 3 else p4) < specific:
                        continue
                    pay = (((p0 * PAY_BASE + p1) * PAY_BASE + p2) * PAY_BASE + p3) * PAY_BASE + p4
                    n = _put_paid(lg, d, n, K_PLAY, c, target, pay)
    return n


@_compiled
def _can_pay(s, tab, seat, card):
    """``rules.can_pay``."""
    b = _sb(seat)
    total = 0
    for f in range(NF):
        total += s[_U(b + S_AVAIL + f)]
    return total >= _cd(tab, card, C_POWER) and s[b + S_AVAIL + _cd(tab, card, C_FACTION)] >= _cd(tab, card,
                                                                                                    C_SPECIFIC)


@_compiled
def _main_actions(s, tab, lg, d):
    """``rules.main_actions``: plays (with targets), moves, builds, attacks, then END."""
    seat = s[H_ACTIVE]
    n = 0
    off = B_HAND + seat * HCAP
    prev = UNKNOWN
    for k in range(s[_U(_sb(seat) + S_HAND)]):
        c = s[_U(off + k)]
        if c == prev:
            continue
        prev = c
        if c == UNKNOWN:
            continue
        kind = _cd(tab, c, C_TYPE)
        if kind == WITCHERY or not _can_pay(s, tab, seat, c):
            continue
        choice = G_NONE
        may = 0
        sacrifice = 0
        if kind != INVOCATION:
            clause = _cd(tab, c, C_CLAUSE + (TR_SWEAR if kind == MINION else TR_PLAY))
            if clause >= 0:
                choice = tab[_U(tab[X_CLAUSES] + clause * LC + L_CHOICE)]
                may = tab[_U(tab[X_CLAUSES] + clause * LC + L_CHOICE_MAY)]
                sacrifice = tab[_U(tab[X_CLAUSES] + clause * LC + L_SACRIFICE)] * tab[X_PACT_UNPLAYABLE]
        if choice == G_NONE:
            n = _put_play(s, tab, lg, d, n, seat, c, NO_TARGET)
            continue
        entering = kind == MINION and (choice == G_MINION or choice == G_FRIENDLY_MINION)
        count, _ = _count_targets(s, seat, choice)
        if may or (count == 0 and not entering and not sacrifice):
            n = _put_play(s, tab, lg, d, n, seat, c, NO_TARGET)
        for i in range(s[H_MCOUNT]):
            if _targetable(s, i, seat, choice):
                n = _put_play(s, tab, lg, d, n, seat, c, s[_U(B_MIN + i * MF + F_UID)])
        if entering:
            n = _put_play(s, tab, lg, d, n, seat, c, s[H_NEXT_UID])
    prev = UNKNOWN
    for k in range(s[_U(_sb(seat) + S_HAND)]):  # "at any time" Witcheries (rules.main_actions)
        c = s[_U(off + k)]
        if c != prev and _can_witch(s, tab, seat, c):
            n = _put(lg, d, n, K_WITCH, c, 0)
        prev = c
    mc = s[H_MCOUNT]
    for i in range(mc):
        m = B_MIN + i * MF
        if s[_U(m + F_OWNER)] == seat and s[_U(m + F_STATUS)] == READY:
            for z in range(3):
                if z != s[_U(m + F_ZONE)]:
                    n = _put(lg, d, n, K_MOVE, s[_U(m + F_UID)], z)
    for i in range(mc):
        m = B_MIN + i * MF
        if s[_U(m + F_OWNER)] == seat and s[_U(m + F_ZONE)] == TOWER and s[_U(m + F_STATUS)] != EXHAUSTED:
            n = _put(lg, d, n, K_BUILD, s[_U(m + F_UID)], 0)
    for i in range(mc):
        m = B_MIN + i * MF
        if s[_U(m + F_OWNER)] == seat and s[_U(m + F_ZONE)] == BATTLEFIELD and s[_U(m + F_STATUS)] != EXHAUSTED:
            n = _put(lg, d, n, K_ATTACK, s[_U(m + F_UID)], NO_TARGET)
            for j in range(mc):
                e = B_MIN + j * MF
                if s[_U(e + F_OWNER)] != seat:
                    n = _put(lg, d, n, K_ATTACK, s[_U(m + F_UID)], s[_U(e + F_UID)])
    return _put(lg, d, n, K_END, 0, 0)


@_compiled
def _mulligan_masks(s, tab, lg, d, seat):
    """``rules.mulligan_masks``: every different set of at most ``mulligan`` cards, by (size, mask)."""
    off = B_HAND + seat * HCAP
    h = s[_U(_sb(seat) + S_HAND)]
    most = tab[X_MULLIGAN]
    n = 0
    for size in range(min(most, h) + 1):
        for mask in range(1 << h):
            bits = 0
            ok = True
            for i in range(h):
                if mask >> i & 1:
                    bits += 1
                    c = s[_U(off + i)]
                    if c == UNKNOWN or (i > 0 and s[_U(off + i - 1)] == c and not mask >> (i - 1) & 1):
                        ok = False  # another mask holds the same cards with the earlier copy
                        break
            if ok and bits == size:
                n = _put(lg, d, n, K_MULLIGAN, mask, 0)
    return n


@_compiled
def _legal(s, tab, lg, d):
    """``rules.legal_actions`` into ``lg[d]``; how many."""
    kind = _decision(s)
    if kind == NO_DECISION:
        return 0
    if kind == MAIN:
        return _main_actions(s, tab, lg, d)
    seat = s[H_PSEAT]
    if kind == MULLIGAN:
        return _mulligan_masks(s, tab, lg, d, seat)
    n = 0
    off = B_HAND + seat * HCAP
    h = s[_U(_sb(seat) + S_HAND)]
    if kind == START or kind == OFFER:
        if kind == START:
            n = _put(lg, d, n, K_DRAW, 0, 0)
        elif s[H_PMAY]:
            n = _put(lg, d, n, K_SKIP, 0, 0)
        prev = UNKNOWN
        for k in range(h):
            c = s[_U(off + k)]
            if c != prev:
                n = _put(lg, d, n, K_OFFER, c, 0)
                prev = c
        return n
    if kind == BLOCK:
        n = _put(lg, d, n, K_SKIP, 0, 0)
        defender = _block_side(s, tab)
        if defender >= 0:
            for i in range(s[H_MCOUNT]):
                if _can_block(s, i, defender):
                    n = _put(lg, d, n, K_BLOCK, s[_U(B_MIN + i * MF + F_UID)], 0)
        return n
    if kind == WITCH:
        n = _put(lg, d, n, K_SKIP, 0, 0)
        if _witch_window(s):
            prev = UNKNOWN
            for k in range(h):
                c = s[_U(off + k)]
                if c != prev and _can_witch(s, tab, seat, c):
                    n = _put(lg, d, n, K_WITCH, c, 0)
                prev = c
        return n
    if kind == TWIN:
        pi = _twin_partner(s, tab)
        if pi >= 0:
            p = B_MIN + pi * MF
            for i in range(s[H_MCOUNT]):
                m = B_MIN + i * MF
                if s[_U(m + F_OWNER)] == s[_U(p + F_OWNER)] and s[_U(m + F_ZONE)] == s[_U(p + F_ZONE)] and i != pi:
                    n = _put(lg, d, n, K_TARGET, s[_U(m + F_UID)], 0)
        return n
    row = tab[X_CLAUSES] + s[H_PCLAUSE] * LC  # TARGET
    choice = tab[_U(row + L_CHOICE)]
    if tab[_U(row + L_CHOICE_MAY)]:
        n = _put(lg, d, n, K_SKIP, 0, 0)
    for i in range(s[H_MCOUNT]):
        if _targetable(s, i, seat, choice):
            n = _put(lg, d, n, K_TARGET, s[_U(B_MIN + i * MF + F_UID)], 0)
    return n


@_compiled
def _payable_after(s, tab, seat, card):
    """The hand cards ``rules.kept_playable`` may count when ``card`` is paid, into the scratch area; how many.

    Every payment spends the card's power, so whether the sources left pay a card's power is the same for all of
    them: the cards whose power they pay (``card``'s first copy, Witcheries, unknown cards aside) are listed from
    scratch ``2 * NF`` as (faction, specific cost) pairs, and :func:`_kept_count` tests only their colour.
    """
    b = _sb(seat)
    total = -_cd(tab, card, C_POWER)
    for f in range(NF):
        total += s[_U(b + S_AVAIL + f)]
    off = B_HAND + seat * HCAP
    skipped = False
    n = 0
    for k in range(s[_U(b + S_HAND)]):
        c = s[_U(off + k)]
        if c == card and not skipped:
            skipped = True  # the card being played
            continue
        if c == UNKNOWN or _cd(tab, c, C_TYPE) == WITCHERY or total < _cd(tab, c, C_POWER):
            continue
        s[_U(B_SCRATCH + 2 * NF + 2 * n)] = _cd(tab, c, C_FACTION)
        s[_U(B_SCRATCH + 2 * NF + 2 * n + 1)] = _cd(tab, c, C_SPECIFIC)
        n += 1
    return n


@_compiled
def _kept_count(s, seat, n):
    """``rules.kept_playable`` of the payment in scratch ``0..NF``: the ``n`` cards :func:`_payable_after` listed."""
    a = _sb(seat) + S_AVAIL
    kept = 0
    for j in range(n):
        f = s[_U(B_SCRATCH + 2 * NF + 2 * j)]
        if s[_U(a + f)] - s[_U(B_SCRATCH + f)] >= s[_U(B_SCRATCH + 2 * NF + 2 * j + 1)]:
            kept += 1
    return kept


@_inlined
def _payment(s, tab, seat, card, pay):
    """The sources of ``pay`` (``payment="chosen"``), else ``rules.payment``'s, moved from available to exhausted.

    ``others_first`` (scratch 0..NF): the specific cost in colour, the rest most-first; with
    ``keep_playable`` every payment in ``rules.payments``' order replaces the best so far (scratch
    NF..2NF) only when it keeps more of the hand payable — so the search ends once one keeps every card
    whose power the sources left pay (none can keep more).

    In a view (greedy's lookahead) only the others-first split is made: which sources pay is seen by the main
    phase's next payments and the turn's end alone, and the lookahead stops before both (:func:`_settled`);
    greedy's evaluation counts a colour's available and exhausted sources together.
    """
    b = _sb(seat)
    if tab[X_PAY_CHOSEN]:
        for x in range(NF - 1, -1, -1):
            s[_U(B_SCRATCH + x)] = pay % PAY_BASE
            pay //= PAY_BASE
    else:
        _engine_payment(s, tab, seat, card)
    for x in range(NF):
        s[_U(b + S_AVAIL + x)] -= s[_U(B_SCRATCH + x)]
        s[_U(b + S_EXH + x)] += s[_U(B_SCRATCH + x)]


@_compiled
def _others_first(s, tab, seat, card):
    """``rules._others_first`` into scratch ``0..NF``."""
    b = _sb(seat)
    f = _cd(tab, card, C_FACTION)
    specific = _cd(tab, card, C_SPECIFIC)
    power = _cd(tab, card, C_POWER)
    rest = power - specific
    for x in range(NF):
        s[_U(B_SCRATCH + x)] = 0
    s[_U(B_SCRATCH + f)] = specific
    while rest > 0:
        best = -1
        for x in range(NF):
            left = s[_U(b + S_AVAIL + x)] - s[_U(B_SCRATCH + x)]
            if x != f and left > 0 and (best < 0 or left > s[_U(b + S_AVAIL + best)] - s[_U(B_SCRATCH + best)]):
                best = x
        if best < 0:
            best = f
        take = min(rest, s[_U(b + S_AVAIL + best)] - s[_U(B_SCRATCH + best)])
        s[_U(B_SCRATCH + best)] += take
        rest -= take


@_compiled
def _engine_payment(s, tab, seat, card):
    """``rules.payment`` by the Config's reading (``keep_playable`` or ``others_first``) into scratch ``0..NF``."""
    _others_first(s, tab, seat, card)
    if tab[X_PAY_OTHERS_FIRST] == 0 and s[H_VIEW] == 0:
        listed = _payable_after(s, tab, seat, card)
        most = _kept_count(s, seat, listed)
        if most < listed:
            _best_payment(s, seat, _cd(tab, card, C_FACTION), _cd(tab, card, C_SPECIFIC), _cd(tab, card, C_POWER),
                          listed, most)


@_inlined
def _next_payment(s, a, power, f, specific, p0, p1, p2, p3):
    """The payment of ``power`` after ``(p0, p1, p2, p3, rest)`` from the sources ``s[a:a + NF]``, into scratch.

    The payments in the order of nested loops over the first four sources' shares (each from 0 up to
    what the source has and what is left to pay), the last source paying the rest: a payment whose
    rest that source cannot pay is skipped, one paying less than ``specific`` from source ``f`` too
    (after it was written to scratch ``0..NF``).  Start from ``(0, 0, 0, -1)``.  Returns ``(found, p0,
    p1, p2, p3)``; once none is left ``found`` is false and scratch holds the last payment written.
    """
    while True:
        if p3 < min(s[_U(a + 3)], power - p0 - p1 - p2):
            p3 += 1
        else:
            p3 = 0
            if p2 < min(s[_U(a + 2)], power - p0 - p1):
                p2 += 1
            else:
                p2 = 0
                if p1 < min(s[_U(a + 1)], power - p0):
                    p1 += 1
                else:
                    p1 = 0
                    if p0 < min(s[_U(a)], power):
                        p0 += 1
                    else:
                        return False, p0, p1, p2, p3
        p4 = power - p0 - p1 - p2 - p3
        if p4 > s[_U(a + 4)]:
            continue
        s[B_SCRATCH] = p0
        s[_U(B_SCRATCH + 1)] = p1
        s[_U(B_SCRATCH + 2)] = p2
        s[_U(B_SCRATCH + 3)] = p3
        s[_U(B_SCRATCH + 4)] = p4
        if s[_U(B_SCRATCH + f)] < specific:
            continue
        return True, p0, p1, p2, p3


@_compiled
def _best_payment(s, seat, f, specific, power, listed, most):
    """``keep_playable``'s search (:func:`_payment`) from the others-first payment keeping ``most``, into scratch."""
    for x in range(NF):
        s[_U(B_SCRATCH + NF + x)] = s[_U(B_SCRATCH + x)]
    a = _sb(seat) + S_AVAIL
    p0, p1, p2, p3 = 0, 0, 0, -1
    while True:
        found, p0, p1, p2, p3 = _next_payment(s, a, power, f, specific, p0, p1, p2, p3)
        if not found:
            break
        kept = _kept_count(s, seat, listed)
        if kept > most:
            most = kept
            for x in range(NF):
                s[_U(B_SCRATCH + NF + x)] = s[_U(B_SCRATCH + x)]
            if most == listed:
                break
    for x in range(NF):
        s[_U(B_SCRATCH + x)] = s[_U(B_SCRATCH + NF + x)]


@_inlined
def _play(s, tab, seat, card, target, pay):
    """``rules._play``: pay (``pay``: the sources the action names), then a minion enters, or a spell resolves."""
    _payment(s, tab, seat, card, pay)
    _hand_remove(s, seat, card)
    _set_flag(s, tab, 1, seat, card)
    kind = _cd(tab, card, C_TYPE)
    if kind == MINION:
        uid = s[H_NEXT_UID]
        m = B_MIN + s[H_MCOUNT] * MF
        s[_U(m + F_UID)] = uid
        s[_U(m + F_CARD)] = card
        s[_U(m + F_OWNER)] = seat
        s[_U(m + F_ZONE)] = RAMPARTS
        s[_U(m + F_STATUS)] = IMMOBILE
        s[_U(m + F_DAMAGE)] = 0
        s[_U(m + F_SENTENCED)] = 0
        s[_U(m + F_BONUS)] = 0
        s[H_DIRTY] = 1  # an edited card may enter without health
        s[H_MCOUNT] += 1
        s[H_BOARD_EDITS] += 1
        s[H_NEXT_UID] = uid + 1
        _tally(s, seat, T_MINIONS, 1)
        clause = _cd(tab, card, C_CLAUSE + TR_SWEAR)
        if clause >= 0:
            _run_clause(s, tab, seat, card, clause, target)
        s[H_ENTERING] = uid
        return
    _tally(s, seat, T_SPELLS, 1)
    b = _sb(seat)
    if kind == INVOCATION:
        s[_U(B_INV + seat * HCAP + s[b + S_INV])] = card
        s[_U(b + S_INV)] += 1
        return
    s[_U(b + S_DISCARD)] += 1
    _run_clause(s, tab, seat, card, _cd(tab, card, C_CLAUSE + TR_PLAY), target)


@_inlined
def _main(s, tab, seat, k, a, b, pay):
    """``rules._main``."""
    if k == K_END:
        _end_turn(s, tab)
        return
    if k == K_PLAY:
        _play(s, tab, seat, a, b, pay)
        return
    if k == K_WITCH:
        _cast_witch(s, tab, seat, a)
        return
    i = _find(s, a)
    m = B_MIN + i * MF
    if k == K_MOVE:
        s[_U(m + F_ZONE)] = b
        s[_U(m + F_STATUS)] = IMMOBILE
        s[H_BOARD_EDITS] += 1
        return
    card = s[_U(m + F_CARD)]
    _exhaust(s, a)
    if k == K_BUILD and tab[X_SENTENCED_FAILS] and _health_left(s, tab, i) <= 0:
        pass  # the reading: a builder its Sentence kills does not build
    elif k == K_BUILD:
        gained = _change_tower(s, tab, seat, _cd(tab, card, C_CONSTRUCTION))
        _tally(s, seat, T_BUILT, gained)
        shape = _cd(tab, card, C_CLAUSE + TR_SHAPE)
        if shape >= 0 and s[H_REASON] == R_NONE:
            _queue_push(s, False, seat, card, shape, 0, 0)
    else:
        _tally(s, seat, T_ATTACKS, 1)
        s[H_ATT] = 1
        s[H_ATTACKER] = a
        s[H_ATARGET] = b
        s[H_ABLOCKER] = NO_TARGET
        s[H_ASTAGE] = ST_BLOCK
        s[H_ANO_TOWER] = 0
        s[H_AENDED] = 0
        s[H_ATWIN] = NO_TARGET
    _check_deaths(s, tab)


@_compiled
def _step(s, tab, k, a, b, pay):
    """``rules.apply(..., check=False)``: the decision due taken as ``(k, a, b, pay)``, then all that follows."""
    kind = _decision(s)
    seat = _decider(s)
    if kind == MULLIGAN:
        s[H_PKIND] = NO_DECISION
        _mulligan(s, tab, seat, a)
    elif kind == START:
        s[H_PKIND] = NO_DECISION
        if k == K_DRAW:
            _draw(s, tab, seat, 1)
        else:
            _offering(s, tab, seat, a)
    elif kind == MAIN:
        _main(s, tab, seat, k, a, b, pay)
    else:
        s[H_PKIND] = NO_DECISION
        if kind == BLOCK:
            if k == K_BLOCK:
                s[H_ABLOCKER] = a
                _tally(s, seat, T_BLOCKS, 1)
        elif kind == WITCH:
            if k == K_SKIP and s[H_ATT]:
                s[H_ASTAGE] = ST_TWIN
            elif k == K_SKIP:
                s[H_ENTERING] = NO_TARGET
            else:
                _cast_witch(s, tab, seat, a)
        elif kind == TWIN:
            s[H_ATWIN] = a
        elif kind == OFFER:
            if k != K_SKIP:
                _offering(s, tab, seat, a)
                if s[H_POFFERS] > 1:
                    _queue_push(s, True, s[H_PCTRL], s[H_PCARD], s[H_PCLAUSE], s[H_POFFERS] - 1, s[H_PMAY])
        else:  # TARGET
            _run_clause(s, tab, seat, s[H_PCARD], s[H_PCLAUSE], a if k == K_TARGET else NO_TARGET)
    _advance(s, tab)


# ----------------------------------------------------------------------------------------- greedy
@_compiled
def _copy_run(src, dst, start, n):
    """``dst[start:start + n] = src[start:start + n]``.

    Unsigned indices: numba fixes up a signed index that might be negative on every access, which keeps
    a copy loop from vectorising (a view copy took 90 ns, it takes 20).
    """
    base = _U(start)
    for i in range(_U(n)):
        dst[base + i] = src[base + i]


@_inlined
def _copy_view(src, dst):
    """Copy the parts of a state a view uses (not the decks, history or flags) from ``src`` to ``dst``."""
    _copy_run(src, dst, 0, HEADER)
    _copy_run(src, dst, B_QUEUE, src[H_QLEN] * QF)
    _copy_run(src, dst, B_MIN, src[H_MCOUNT] * MF)
    for seat in range(2):
        b = _sb(seat)
        _copy_run(src, dst, B_HAND + seat * HCAP, src[_U(b + S_HAND)])
        _copy_run(src, dst, B_INV + seat * HCAP, src[_U(b + S_INV)])


@_compiled
def _observe(s, v, me):
    """``agents.observe``: ``v`` becomes ``me``'s view of ``s`` (decks and the opponent's hand unknown)."""
    _copy_view(s, v)
    v[H_VIEW] = 1
    them = 1 - me
    off = B_HAND + them * HCAP
    for i in range(v[_U(_sb(them) + S_HAND)]):
        v[_U(off + i)] = UNKNOWN


@_compiled
def _weight_tables(weights):
    """Fill the tables after each seat's weights (``T_SOURCES``, ``T_HAND``): what :func:`_evaluate` looks up."""
    for me in range(weights.shape[0]):
        extra = 0.0
        step = weights[me, W_SOURCE]
        for t in range(SRC_CAP):
            weights[me, T_SOURCES + t] = extra
            extra += step
            step *= weights[me, W_SOURCE_DECAY]
        step = weights[me, W_CARD]
        for k in range(HCAP + 1):
            weights[me, T_HAND + k] = step
            step *= weights[me, W_HAND_DECAY]
        for k in range(T_MEMO, WEIGHT_COLS):
            weights[me, k] = np.nan


@_inlined
def _evaluate(v, tab, me, weights):
    """``agents.evaluate`` with ``weights[me]``: the same float operations in the same order."""
    if v[H_REASON] != R_NONE:
        winner = v[H_WINNER]
        if winner == DRAW:
            return 0.0
        return WIN_VALUE if winner == me else -WIN_VALUE
    head, left, extra, tail = _evaluate_rest(v, tab, me, weights)
    return head + left * _board(v, tab, me, weights, -1, 0) + extra + tail


@_compiled
def _board(v, tab, me, weights, moved, zone):
    """``agents.evaluate``'s board sum, with the minion at index ``moved`` (-1: none) in ``zone``."""
    board = 0.0
    for i in range(v[H_MCOUNT]):
        m = B_MIN + i * MF
        lasting = _health_left(v, tab, i) - v[_U(m + F_BONUS)]  # bonus health ends with the turn
        if lasting <= 0:
            continue  # it dies when its bonus health ends: worth nothing
        z = zone if i == moved else v[_U(m + F_ZONE)]
        value = _minion_value(tab, me, weights, v[_U(m + F_CARD)], z, v[_U(m + F_SENTENCED)], lasting)
        if v[_U(m + F_OWNER)] == me:
            board += value
        else:
            board += -value
    return board


@_compiled
def _minion_value(tab, me, weights, card, z, sentenced, lasting):
    """A minion's term of :func:`_board` (``lasting`` > 0), from the table after the weights when it is there."""
    if card < VALUE_CARDS and lasting < VALUE_HEALTH:
        slot = T_VALUE + ((card * 3 + z) * 2 + (1 if sentenced else 0)) * VALUE_HEALTH + lasting
        value = weights[me, slot]
        if value != value:  # NaN: not worked out yet
            value = _minion_worth(tab, me, weights, card, z, sentenced, lasting)
            weights[me, slot] = value
        return value
    return _minion_worth(tab, me, weights, card, z, sentenced, lasting)


@_compiled
def _minion_worth(tab, me, weights, card, z, sentenced, lasting):
    """``agents.evaluate``'s value of one minion: the same float operations in the same order."""
    value = weights[me, W_MINION] + weights[me, W_HEALTH] * lasting
    value = value - (weights[me, W_SENTENCED] if sentenced else 0.0)
    if z == TOWER:
        value += weights[me, W_BUILDER] * _cd(tab, card, C_CONSTRUCTION)
    elif z == BATTLEFIELD:
        value += weights[me, W_RAIDER] * _cd(tab, card, C_MIGHT)
    else:
        value += weights[me, W_GUARD] * _cd(tab, card, C_MIGHT)
    return value


@_compiled
def _hands_and_sources(weights, me, total, mine, theirs):
    """The sources' and both hands' part of ``agents.evaluate`` (``total`` sources, hands of ``mine``, ``theirs``)."""
    if total < SRC_CAP:
        extra = weights[me, T_SOURCES + total]
    else:
        extra = 0.0
        step = weights[me, W_SOURCE]
        for _ in range(total):
            extra += step
            step *= weights[me, W_SOURCE_DECAY]
    for k in range(mine):  # x + (-1.0 * y) is x - y exactly
        extra += weights[me, T_HAND + k]
    for k in range(theirs):
        extra -= weights[me, T_HAND + k]
    return extra


@_compiled
def _left(tab, me, weights, taken):
    """``agents.evaluate``'s weight of the board when ``me`` has taken ``taken`` turns."""
    turns = tab[X_TURNS]
    share = (turns - taken) / turns
    left = weights[me, W_LATE]
    if share > left:
        left = share
    return left


@_compiled
def _evaluate_rest(v, tab, me, weights):
    """The terms of ``agents.evaluate`` around the board sum of a running game: ``head + left * board + extra + tail``.

    A move changes only a minion's zone, so it changes only the board sum (:func:`_rank`).
    """
    total = _sources(v, me)
    return _rest(v, tab, me, weights, total, _playable(v, tab, me, total))


@_inlined
def _sources(v, me):
    """``me``'s sources, available and exhausted."""
    mb = _sb(me)
    total = 0
    for f in range(NF):
        total += v[_U(mb + S_AVAIL + f)] + v[_U(mb + S_EXH + f)]
    return total


@_inlined
def _playable_card(v, tab, me, total, c):
    """1 when ``me``'s hand card ``c`` counts as playable in ``agents.evaluate`` (``total`` sources), else 0."""
    if c == UNKNOWN:
        return 0
    if _cd(tab, c, C_TYPE) == WITCHERY:  # played on the opponent's turn: not a card for the main phase
        return 0
    mb = _sb(me)
    f = _cd(tab, c, C_FACTION)
    if _cd(tab, c, C_POWER) <= total and _cd(tab, c, C_SPECIFIC) <= v[_U(mb + S_AVAIL + f)] + v[_U(mb + S_EXH + f)]:
        return 1
    return 0


@_inlined
def _playable(v, tab, me, total):
    """How many of ``me``'s hand cards ``agents.evaluate`` counts as playable with ``total`` sources."""
    playable = 0
    off = B_HAND + me * HCAP
    for k in range(v[_U(_sb(me) + S_HAND)]):
        playable += _playable_card(v, tab, me, total, v[_U(off + k)])
    return playable


@_inlined
def _rest(v, tab, me, weights, total, playable):
    """:func:`_evaluate_rest` given ``me``'s sources (``total``) and playable hand cards (``playable``)."""
    mb = _sb(me)
    tb = _sb(1 - me)
    taken = v[_U(mb + S_TURNS)]
    if 0 <= taken < LEFT_CAP:
        left = weights[me, T_LEFT + taken]
        if left != left:  # NaN: not worked out yet
            left = _left(tab, me, weights, taken)
            weights[me, T_LEFT + taken] = left
    else:
        left = _left(tab, me, weights, taken)
    mine = v[_U(mb + S_HAND)]
    theirs = v[_U(tb + S_HAND)]
    if total < MEMO_SRC and mine < MEMO_HAND and theirs < MEMO_HAND:
        slot = T_MEMO + (total * MEMO_HAND + mine) * MEMO_HAND + theirs
        extra = weights[me, slot]
        if extra != extra:  # NaN: not worked out yet
            extra = _hands_and_sources(weights, me, total, mine, theirs)
            weights[me, slot] = extra
    else:
        extra = _hands_and_sources(weights, me, total, mine, theirs)
    capped = np.float64(playable)
    if weights[me, W_PLAYABLE_CAP] < playable:
        capped = weights[me, W_PLAYABLE_CAP]
    extra += weights[me, W_PLAYABLE] * capped
    tp = v[_U(mb + S_TP)]
    tail = weights[me, W_TP] * tp
    if weights[me, W_SOURCE_SURPLUS] != 0.0 or weights[me, W_TP_WITCHERY] != 0.0:  # 0, 0: x - 0.0 * y is x exactly
        dearest, witch = _hand_costs(v, tab, me)
        extra -= weights[me, W_SOURCE_SURPLUS] * (_sources_worth(weights, me, total)
                                                  - _sources_worth(weights, me, _useful(weights, me, total, dearest)))
        tail += weights[me, W_TP_WITCHERY] * min(tp, witch)
    head = weights[me, W_TOWER] * (v[_U(mb + S_TOWER)] - v[_U(tb + S_TOWER)])
    return head, left, extra, tail


@_inlined
def _hand_costs(v, tab, me):
    """``agents._hand_costs``: the power cost of ``me``'s dearest known non-Witchery hand card, its Witcheries' TP."""
    dearest = 0
    witch = 0
    off = B_HAND + me * HCAP
    for k in range(v[_U(_sb(me) + S_HAND)]):
        c = v[_U(off + k)]
        if c == UNKNOWN:
            continue
        if _cd(tab, c, C_TYPE) == WITCHERY:
            witch += _cd(tab, c, C_TP)
        elif _cd(tab, c, C_POWER) > dearest:
            dearest = _cd(tab, c, C_POWER)
    return dearest, witch


@_inlined
def _useful(weights, me, total, dearest):
    """``agents.evaluate``'s ``useful``: how many of ``total`` sources the dearest card (or ``source_need``) can use."""
    need = max(weights[me, W_SOURCE_NEED], np.float64(dearest))
    if need >= total:
        return total
    return max(0, int(np.ceil(need)))


@_inlined
def _sources_worth(weights, me, total):
    """Σ_{k<total} source · source_decay^k, the same float operations as ``agents.evaluate`` (table below SRC_CAP)."""
    if total < SRC_CAP:
        return weights[me, T_SOURCES + total]
    extra = 0.0
    step = weights[me, W_SOURCE]
    for _ in range(total):
        extra += step
        step *= weights[me, W_SOURCE_DECAY]
    return extra


@_compiled
def _evaluate_near(x, tab, me, weights, near):
    """:func:`_evaluate` of a position the lookahead reached from a view with ``me``'s counts given.

    ``near`` = ``(edits, total, playable, drop, board_edits, board, grow)``: the view's hand had ``edits``
    changes (``S_EDITS``), ``total`` sources and ``playable`` cards.  Only an Offering changes the sources, and
    it takes a card from the hand: when ``me``'s hand has not changed since, the view's counts hold; when it
    changed once and ``drop`` >= 0, that change was the card the lookahead started with (played or cast from
    ``me``'s hand), which counted ``drop`` among the playable cards.  Likewise the board: the view's sum
    ``board`` after ``board_edits`` changes (``H_BOARD_EDITS``) holds while nothing changed, and with one change
    and ``grow`` (the lookahead started with a minion's play) the minion played joined the end of the list:
    its term is added last, as :func:`_board` adds it.
    """
    if x[H_REASON] != R_NONE:
        winner = x[H_WINNER]
        if winner == DRAW:
            return 0.0
        return WIN_VALUE if winner == me else -WIN_VALUE
    edits, total, playable, drop, board_edits, board, grow = near
    d = x[H_BOARD_EDITS] - board_edits
    if d == 1 and grow:
        board = _board_last(x, tab, me, weights, board)
    elif d != 0:
        board = _board(x, tab, me, weights, -1, 0)
    d = x[_U(_sb(me) + S_EDITS)] - edits
    if d == 0:
        head, left, extra, tail = _rest(x, tab, me, weights, total, playable)
    elif d == 1 and drop >= 0:
        head, left, extra, tail = _rest(x, tab, me, weights, total, playable - drop)
    else:
        head, left, extra, tail = _evaluate_rest(x, tab, me, weights)
    return head + left * board + extra + tail


@_inlined
def _board_last(v, tab, me, weights, board):
    """:func:`_board` of ``v`` given ``board``, the sum of all its minions but the last: the last one's term added."""
    i = v[H_MCOUNT] - 1
    m = B_MIN + i * MF
    lasting = _health_left(v, tab, i) - v[_U(m + F_BONUS)]  # bonus health ends with the turn
    if lasting <= 0:
        return board
    value = _minion_value(tab, me, weights, v[_U(m + F_CARD)], v[_U(m + F_ZONE)], v[_U(m + F_SENTENCED)], lasting)
    if v[_U(m + F_OWNER)] == me:
        return board + value
    return board + -value


@_compiled
def _settled(s):
    """A main, start or mulligan decision is due, or the game is over: ``agents._settle`` stops."""
    kind = _decision(s)
    return kind == NO_DECISION or kind == MAIN or kind == START or kind == MULLIGAN


@_compiled
def _settle0(x, tab, lg):
    """``agents._settle`` at depth 0: every decision by its first option."""
    for _ in range(SETTLE_STEPS):
        if _settled(x):
            return
        _legal(x, tab, lg, 2)
        _step(x, tab, lg[2, 0, 0], lg[2, 0, 1], lg[2, 0, 2], lg[2, 0, 3])


@_compiled
def _settle1(w, x, tab, me, weights, lg, keep, near):
    """``agents._settle`` at depth 1: each side picks the option best for it after settling the rest.

    ``near``: the view's counts (:func:`_evaluate_near`).

    Returns whether the settled position's :func:`_evaluate` is known, and that value: when the last option
    picked left nothing to settle, the position it led to was scored already (and unless ``keep`` asks for the
    settled position in ``w``, it is not played again).
    """
    for _ in range(SETTLE_STEPS):
        if _settled(w):
            return False, 0.0
        n = _legal(w, tab, lg, 1)
        pick = 0
        if n > 1:
            sign = 1.0 if _decider(w) == me else -1.0
            best = -np.inf
            known = False
            value = 0.0
            for i in range(n):
                _copy_view(w, x)
                _step(x, tab, lg[1, i, 0], lg[1, i, 1], lg[1, i, 2], lg[1, i, 3])
                done = _settled(x)
                if not done:
                    _settle0(x, tab, lg)
                e = _evaluate_near(x, tab, me, weights, near)
                score = sign * e
                if score > best:  # strict: ties keep the legal order
                    best = score
                    pick = i
                    known = done
                    value = e
            if known and not keep:
                return True, value  # w would become that position and stop there
        _step(w, tab, lg[1, pick, 0], lg[1, pick, 1], lg[1, pick, 2], lg[1, pick, 3])
    return False, 0.0


@_inlined
def _score(v, tab, me, weights, k, a, b, pay, base, rest, board, lg, w, x, total, playable):
    """``GreedyAgent.rank``'s score of action ``(k, a, b, pay)`` on the view ``v`` scoring ``base`` (``rest``: terms).

    END scores the position; a move only the board with the minion moved (nothing follows a move in the main
    phase, and the rest of the evaluation does not see it); drawing or an Offering at the start of the turn only
    the rest with the hand and sources changed (``board``: the view's board sum; :func:`_start_score`); any other
    action the settled result less the margin.  ``total``, ``playable``: the view's sources and playable hand cards.
    """
    if k == K_END:
        return base
    margin = weights[me, W_MARGIN]
    if k == K_MOVE:
        head, left, extra, tail = rest
        return head + left * _board(v, tab, me, weights, _find(v, a), b) + extra + tail - margin
    if k == K_DRAW or (k == K_OFFER and v[H_PKIND] == START):
        return _start_score(v, tab, me, weights, k, a, board, total, playable) - margin
    drop = -1  # the change of the playable count when the card the action takes is all that leaves me's hand
    if (k == K_PLAY or k == K_WITCH) and _decider(v) == me:
        drop = _playable_card(v, tab, me, total, a)
    grow = k == K_PLAY and _cd(tab, a, C_TYPE) == MINION
    near = (v[_U(_sb(me) + S_EDITS)], total, playable, drop, v[H_BOARD_EDITS], board, grow)
    _copy_view(v, w)
    _step(w, tab, k, a, b, pay)
    invocation = k == K_PLAY and _cd(tab, a, C_TYPE) == INVOCATION
    known, value = False, 0.0
    if not _settled(w):  # most actions leave nothing to settle: no call
        known, value = _settle1(w, x, tab, me, weights, lg, invocation, near)
    if known:
        return value - margin
    if invocation and w[H_REASON] == R_NONE:
        # an Invocation is scored as if its text resolved now (one step cannot see the next turn)
        _run_clause(w, tab, me, a, _cd(tab, a, C_CLAUSE + TR_START_NEXT), NO_TARGET)
    return _evaluate_near(w, tab, me, weights, near) - margin


@_compiled
def _start_score(v, tab, me, weights, k, a, board, total, playable):
    """:func:`_evaluate` after the start decision ``(k, a)`` (draw, or an Offering of card ``a``), on ``v`` itself.

    Neither touches the board or ends the game, and the main phase follows at once (nothing to settle): the
    hand and the sources change in ``v`` for the evaluation and back after it, the board sum is the view's (and
    a drawn card, unknown, leaves the view's sources and playable cards, ``total`` and ``playable``, as they are).
    """
    mb = _sb(me)
    if k == K_DRAW:
        if v[_U(mb + S_DEND)] <= v[_U(mb + S_DTOP)]:
            head, left, extra, tail = _rest(v, tab, me, weights, total, playable)
            return head + left * board + extra + tail
        _hand_add(v, me, UNKNOWN)
        head, left, extra, tail = _rest(v, tab, me, weights, total, playable)
        _hand_remove(v, me, UNKNOWN)
        v[_U(mb + S_EDITS)] -= 2
        return head + left * board + extra + tail
    f = _cd(tab, a, C_FACTION)
    _hand_remove(v, me, a)
    v[_U(mb + S_AVAIL + f)] += 1
    head, left, extra, tail = _evaluate_rest(v, tab, me, weights)
    v[_U(mb + S_AVAIL + f)] -= 1
    _hand_add(v, me, a)
    v[_U(mb + S_EDITS)] -= 2
    return head + left * board + extra + tail


@_compiled
def _rank(s, tab, me, weights, n, lg, v, w, x):
    """``GreedyAgent.rank``'s best index: the first of the highest :func:`_score` in the legal order."""
    _observe(s, v, me)
    total = _sources(v, me)
    playable = _playable(v, tab, me, total)
    rest = _rest(v, tab, me, weights, total, playable)  # a decision is due: the game is running
    board = _board(v, tab, me, weights, -1, 0)
    base = rest[0] + rest[1] * board + rest[2] + rest[3]
    best = -np.inf
    pick = 0
    card = -1
    paid = 0
    for i in range(n):
        if lg[0, i, 0] == K_PLAY and tab[X_PAY_CHOSEN]:
            if lg[0, i, 1] != card:  # a card's plays are listed together
                card = lg[0, i, 1]
                paid = _keep_together(v, tab, me, card)
            if lg[0, i, 3] != paid:
                continue  # scored PAY_STEP below the same play paid keep-together: never the best
        score = _score(v, tab, me, weights, lg[0, i, 0], lg[0, i, 1], lg[0, i, 2], lg[0, i, 3], base, rest, board,
                       lg, w, x, total, playable)
        if score > best:
            best = score
            pick = i
    return pick


@_compiled
def _together(s, tab, seat, card, total):
    """``agents.playable_together`` of ``seat``'s hand less one copy of ``card`` with the sources in ``PAY_CAPS``.

    ``total``: the power the sources pay (their sum, or less when a card is paid beside them).
    """
    off = B_HAND + seat * HCAP
    h = s[_U(_sb(seat) + S_HAND)]
    never = 1 << 40
    s[_U(PAY_LEAST)] = 0
    length = 1  # entries of the least power by count
    for f in range(NF):
        cap = s[_U(PAY_CAPS + f)]
        stride = cap + 1
        for k in range(stride):
            s[_U(PAY_TABLE + k)] = never
        s[_U(PAY_TABLE)] = 0
        count = 0
        skipped = False
        for i in range(h):
            c = s[_U(off + i)]
            if c == card and not skipped:
                skipped = True
                continue
            if c == UNKNOWN or _cd(tab, c, C_TYPE) == WITCHERY or _cd(tab, c, C_FACTION) != f:
                continue
            power = _cd(tab, c, C_POWER)
            specific = _cd(tab, c, C_SPECIFIC)
            if power > total or specific > cap:
                continue
            row = PAY_TABLE + (count + 1) * stride
            for k in range(stride):
                s[_U(row + k)] = never
            for j in range(count, -1, -1):
                src = PAY_TABLE + j * stride
                dst = src + stride
                for k in range(cap - specific, -1, -1):
                    value = s[_U(src + k)] + power
                    if value < s[_U(dst + k + specific)]:
                        s[_U(dst + k + specific)] = value
            count += 1
        if count == 0:
            continue
        for j in range(count + 1):
            least = never
            for k in range(stride):
                if s[_U(PAY_TABLE + j * stride + k)] < least:
                    least = s[_U(PAY_TABLE + j * stride + k)]
            s[_U(PAY_OWN + j)] = least
        for j in range(length, length + count):
            s[_U(PAY_LEAST + j)] = never
        for j in range(length + count - 1, -1, -1):  # in place: entry j reads entries i <= j only
            least = never
            for i in range(max(0, j - count), min(j, length - 1) + 1):
                value = s[_U(PAY_LEAST + i)] + s[_U(PAY_OWN + j - i)]
                if value < least:
                    least = value
            s[_U(PAY_LEAST + j)] = least
        length += count
    most = 0
    for j in range(length):
        if s[_U(PAY_LEAST + j)] <= total:
            most = j
    return most


@_compiled
def _together_after(s, tab, seat, card):
    """:func:`_together` after the payment in scratch ``0..NF``."""
    a = _sb(seat) + S_AVAIL
    total = 0
    for x in range(NF):
        s[_U(PAY_CAPS + x)] = s[_U(a + x)] - s[_U(B_SCRATCH + x)]
        total += s[_U(PAY_CAPS + x)]
    return _together(s, tab, seat, card, total)


@_compiled
def _keep_together(s, tab, seat, card):
    """``agents.keep_together``: greedy's payment of ``card`` (packed as ``rules.pack_payment``)."""
    a = _sb(seat) + S_AVAIL
    f = _cd(tab, card, C_FACTION)
    specific = _cd(tab, card, C_SPECIFIC)
    power = _cd(tab, card, C_POWER)
    total = -power
    for x in range(NF):
        s[_U(PAY_CAPS + x)] = s[_U(a + x)] - (specific if x == f else 0)
        total += s[_U(a + x)]
    most_together = _together(s, tab, seat, card, total)
    most_kept = _payable_after(s, tab, seat, card)
    _others_first(s, tab, seat, card)
    top_together = _together_after(s, tab, seat, card)
    top_kept = _kept_count(s, seat, most_kept)
    for x in range(NF):
        s[_U(B_SCRATCH + NF + x)] = s[_U(B_SCRATCH + x)]
    done = top_together == most_together and top_kept == most_kept
    p0, p1, p2, p3 = 0, 0, 0, -1
    while not done:
        found, p0, p1, p2, p3 = _next_payment(s, a, power, f, specific, p0, p1, p2, p3)
        if not found:
            break
        together = _together_after(s, tab, seat, card)
        kept = _kept_count(s, seat, most_kept)
        if together > top_together or (together == top_together and kept > top_kept):
            top_together = together
            top_kept = kept
            for x in range(NF):
                s[_U(B_SCRATCH + NF + x)] = s[_U(B_SCRATCH + x)]
            done = top_together == most_together and top_kept == most_kept
    pay = 0
    for x in range(NF):
        pay = pay * PAY_BASE + s[_U(B_SCRATCH + NF + x)]
    return pay


@_compiled
def _greedy_mulligan(s, tab, me, weights, n, lg):
    """``GreedyAgent.mulligan``: the cards costing more than ``mulligan_cost``, dearest first, up to the limit."""
    off = B_HAND + me * HCAP
    h = s[_U(_sb(me) + S_HAND)]
    limit = weights[me, W_MULLIGAN_COST]
    chosen = 0  # hand positions picked
    for _ in range(tab[X_MULLIGAN]):
        best = -1
        for i in range(h):
            c = s[_U(off + i)]
            if chosen >> i & 1 or c == UNKNOWN or not _cd(tab, c, C_COST) > limit:
                continue
            if best < 0 or _cd(tab, c, C_COST) > _cd(tab, s[_U(off + best)], C_COST):
                best = i
        if best < 0:
            break
        chosen |= 1 << best
    mask = 0  # the same cards at their earliest copies (the hand is sorted)
    for i in range(h):
        if chosen >> i & 1:
            c = s[_U(off + i)]
            j = i
            while j > 0 and s[_U(off + j - 1)] == c:
                j -= 1
            while mask >> j & 1:
                j += 1
            mask |= 1 << j
    for i in range(n):
        if lg[0, i, 1] == mask:
            return i
    return 0


# ------------------------------------------------------------------------------------------ games
@_compiled
def _result(s, res, towers, flags, g, n_cards):
    """The result row of game ``g`` (``model.result_row``)."""
    res[g, RES_WINNER] = s[H_WINNER]
    res[g, RES_REASON] = s[H_REASON]
    res[g, RES_LENGTH] = s[H_TURN]
    res[g, RES_FIRST] = s[H_FIRST]
    hist = s[H_HIST]
    count = hist + 1 if hist < s[H_TURN] else hist  # model.trajectory: a game ended mid-turn adds its final towers
    res[g, RES_HIST] = count
    for seat in range(2):
        b = _sb(seat)
        r = RES_SEAT + seat * SEAT_COLS
        res[g, r + SEAT_TOWER] = s[_U(b + S_TOWER)]
        res[g, r + SEAT_TP] = s[_U(b + S_TP)]
        sources = 0
        for f in range(NF):
            sources += s[_U(b + S_AVAIL + f)] + s[_U(b + S_EXH + f)]
        res[g, r + SEAT_SOURCES] = sources
        res[g, r + SEAT_HAND] = s[_U(b + S_HAND)]
        board = 0
        for i in range(s[H_MCOUNT]):
            if s[_U(B_MIN + i * MF + F_OWNER)] == seat:
                board += 1
        res[g, r + SEAT_BOARD] = board
        for t in range(N_TALLIES):
            res[g, r + SEAT_TALLIES + t] = s[_U(b + S_TALLY + t)]
        for t in range(hist):
            towers[g, seat, t] = s[_U(B_HIST + seat * HISTCAP + t)]
        if count > hist:
            towers[g, seat, hist] = s[_U(b + S_TOWER)]
    for i in range(4 * n_cards):
        flags[g, i] = s[_U(B_FLAGS + i)]


@_compiled
def _play_on(s, tab, kinds, weights, max_steps, stop, fk, fa, fb, fp, lg, v, w, x, rng, trace, record):
    """``play.play_game``'s loop from the position in ``s``: ``STATUS_*`` once the game ends or ``stop`` is reached.

    With ``stop`` > 0 the game stops once turn ``stop`` has begun; ``(fk, fa, fb, fp)`` (``fk`` -1: none) is
    taken as the decision due.  Then the agents decide: ``kinds[seat]`` (``AGENT_*``), random drawing from
    stream ``2 + seat`` of ``rng``, greedy with ``weights[seat]``; the first ``record`` of their actions
    go to ``trace`` (rows of seat, kind, a, b, pay).
    """
    steps = 0
    while True:
        kind = _decision(s)
        if kind == NO_DECISION or (stop > 0 and s[H_TURN] >= stop):
            return STATUS_OK
        if steps >= max_steps:
            return STATUS_RUNAWAY
        steps += 1
        if fk >= 0 and steps == 1:
            _step(s, tab, fk, fa, fb, fp)
            continue
        seat = _decider(s)
        n = _legal(s, tab, lg, 0)
        if n == 0:
            return STATUS_NO_ACTION
        if n > lg.shape[1]:
            return STATUS_TOO_MANY
        if kinds[seat] == AGENT_RANDOM:
            pick = _below(rng, 2 + seat, n)
        elif n == 1:
            pick = 0
        elif kind == MULLIGAN:
            pick = _greedy_mulligan(s, tab, seat, weights, n, lg)
        else:
            pick = _rank(s, tab, seat, weights, n, lg, v, w, x)
        if record > 0:
            t = trace.shape[0] - record
            trace[t, 0] = seat
            trace[t, 1] = lg[0, pick, 0]
            trace[t, 2] = lg[0, pick, 1]
            trace[t, 3] = lg[0, pick, 2]
            trace[t, 4] = lg[0, pick, 3]
            record -= 1
        _step(s, tab, lg[0, pick, 0], lg[0, pick, 1], lg[0, pick, 2], lg[0, pick, 3])


@_compiled
def play_games(seeds, tab, kinds, weights, max_steps, res, towers, flags, status, s, v, w, x, lg, rng, trace):
    """Play every game of ``seeds`` (``play.play_game``); the index of the first game not finished.

    ``kinds``/``weights``: per seat, the agent (``AGENT_*``) and greedy's weights (``agents.Weights``
    order, then ``WEIGHT_COLS - N_WEIGHTS`` columns for the tables this fills).  ``res[g]``: the
    ``RES_*`` columns; ``towers[g, seat, :res[g, RES_HIST]]``: the towers after each turn; ``flags[g]``:
    drawn then played flags per seat and card.  On an error ``status[0]`` names it (``STATUS_*``) and
    the game returned is the one that failed.  ``s, v, w, x`` are state scratch arrays, ``lg`` three
    rows of actions, ``rng`` five streams; ``trace`` (rows of seat, kind, a, b, pay) records the first
    game's actions when it has rows.
    """
    n_cards = tab[X_NCARDS]
    _weight_tables(weights)
    for g in range(seeds.shape[0]):
        seed = seeds[g]
        for k in range(5):
            rng[k] = _mix(seed ^ _STREAM_K[k + 1])  # 0, 1 the decks, 2, 3 the agents of p1, p2, 4 the first seat
        mode = tab[X_FIRST]
        first = _below(rng, 4, 2) if mode == FIRST_RANDOM else mode
        _new_game(s, tab, first, rng)
        code = _play_on(s, tab, kinds, weights, max_steps, 0, -1, 0, 0, 0, lg, v, w, x, rng, trace,
                        trace.shape[0] if g == 0 else 0)
        if code != STATUS_OK:
            status[0] = code
            return g
        _result(s, res, towers, flags, g, n_cards)
    return seeds.shape[0]


# ------------------------------------------------------------------------ continue from a state
@_compiled
def continue_games(worlds, wrng, actions, me, stop_after, scale, kinds, weights, ew, tab, max_steps, out, res,
                   towers, flags, status, s, v, w, x, lg, rng):
    """Every action of ``actions`` played in every world, then the game played on (:func:`play_games`' loop).

    ``worlds[w]``: a state in this module's encoding (``fast.encode_state``); ``wrng[w]``: p1's and p2's
    agent streams.  ``actions[a]``: ``(kind, a, b, pay)`` for the decision due (kind -1: none, the agents
    decide).  With ``stop_after`` > 0 a rollout stops once that many more turns have begun, as core's
    ``search.play_on`` does with the game's clock.  ``out[w, a]``: 1 when ``me`` won, 0.5 a draw, 0 a
    loss; a cut rollout the logistic of greedy's evaluation with weights ``ew`` over ``scale``.  ``res[w *
    len(actions) + a]``: the ``RES_*`` columns of the position reached.  ``status[0]``: ``STATUS_*``.
    """
    size = worlds.shape[1]
    n_cards = tab[X_NCARDS]
    _weight_tables(weights)
    _weight_tables(ew)
    n_actions = actions.shape[0]
    for wi in range(worlds.shape[0]):
        for ai in range(n_actions):
            for i in range(size):
                s[_U(i)] = worlds[wi, i]
            rng[2] = wrng[wi, 0]
            rng[3] = wrng[wi, 1]
            stop = s[H_TURN] + stop_after if stop_after > 0 else 0
            code = _play_on(s, tab, kinds, weights, max_steps, stop, actions[ai, 0], actions[ai, 1], actions[ai, 2],
                            actions[ai, 3], lg, v, w, x, rng, lg[0], 0)
            if code != STATUS_OK:
                status[0] = code
                return
            out[wi, ai] = (_squash(_evaluate(s, tab, me, ew), scale) if s[H_REASON] == R_NONE
                           else _outcome_worth(s[H_WINNER], me))
            _result(s, res, towers, flags, wi * n_actions + ai, n_cards)


@_compiled
def action_scores(s, tab, me, weights, actions, out, lg, v, w, x):
    """``GreedyAgent.rank``'s score of each action of ``actions`` (``(kind, a, b, pay)`` rows) in ``s``: the prior.

    ``END`` scores the position, every other action its settled result less the margin (:func:`_score`); under
    ``payment="chosen"`` a play paid otherwise than keep-together ``PAY_STEP`` less than that play paid so (when
    it is among ``actions``; else itself).
    """
    _weight_tables(weights)
    _observe(s, v, me)
    total = _sources(v, me)
    playable = _playable(v, tab, me, total)
    rest = _rest(v, tab, me, weights, total, playable)
    board = _board(v, tab, me, weights, -1, 0)
    base = rest[0] + rest[1] * board + rest[2] + rest[3]
    chosen = tab[X_PAY_CHOSEN]
    for i in range(actions.shape[0]):
        if chosen and actions[i, 0] == K_PLAY and actions[i, 3] != _keep_together(v, tab, me, actions[i, 1]):
            continue  # below, from the play paid keep-together
        out[i] = _score(v, tab, me, weights, actions[i, 0], actions[i, 1], actions[i, 2], actions[i, 3], base, rest,
                        board, lg, w, x, total, playable)
    for i in range(actions.shape[0]):
        if not chosen or actions[i, 0] != K_PLAY:
            continue
        paid = _keep_together(v, tab, me, actions[i, 1])
        if actions[i, 3] == paid:
            continue
        found = -1
        for j in range(actions.shape[0]):
            if (found < 0 and actions[j, 0] == K_PLAY and actions[j, 1] == actions[i, 1]
                    and actions[j, 2] == actions[i, 2] and actions[j, 3] == paid):
                found = j
        if found >= 0:
            out[i] = out[found] - PAY_STEP
        else:
            out[i] = _score(v, tab, me, weights, K_PLAY, actions[i, 1], actions[i, 2], actions[i, 3], base, rest,
                            board, lg, w, x, total, playable)
