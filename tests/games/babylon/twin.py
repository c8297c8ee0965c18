"""Scenario steps played on both engines: the reference rules and the compiled kernel, compared after every step.

:func:`both` is ``scenario.act`` that also plays each action on the kernel (``kernel._step`` on
``fast.encode_state`` of the same position) and checks, before each action, that both engines list
the same legal actions in the same order and, after it, that both reach the same position: every
field of the kernel's encoding of the reference state (header, trigger queue, minions, hands,
Invocations; an attack's and a pending decision's fields only while they are in force, since the
kernel leaves the last one's behind).  So a hand-traced scenario pins the compiled engine as well as the reference.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from tests.games.babylon.scenario import CONFIG, act, paid
from workbench.games.babylon.engine import fast
from workbench.games.babylon.engine import kernel as K
from workbench.games.babylon.rules import Config, State, legal_actions

_ATTACK_FIELDS = np.arange(K.H_ATTACKER, K.H_ATWIN + 1)


def _compared(encoded: np.ndarray) -> np.ndarray:
    """The used part of a state array: what lies past a list's length is left over, a deck starts at its top."""
    out = np.zeros(K.B_SCRATCH, np.int64)
    out[:K.HEADER] = encoded[:K.HEADER]
    out[K.H_BOARD_EDITS] = 0  # the kernel's own counts and flags, not a part of the rules' state
    out[K.H_DIRTY] = 0
    if out[K.H_ATT] == 0:
        out[_ATTACK_FIELDS] = 0
    if out[K.H_PKIND] == K.NO_DECISION:
        out[K.H_PSEAT] = 0
    if out[K.H_PKIND] not in (K.OFFER, K.TARGET):  # the trigger of a pending decision
        out[K.H_PCTRL:K.H_PMAY + 1] = 0
    for start, n in ((K.B_QUEUE, out[K.H_QLEN] * K.QF), (K.B_MIN, out[K.H_MCOUNT] * K.MF)):
        out[start:start + n] = encoded[start:start + n]
    for seat in range(2):
        b = K.H_SIDE + seat * K.SIDE
        out[b + K.S_EDITS] = 0  # the kernel's own count (greedy's evaluation), not a part of the rules' state
        for body, n in ((K.B_HAND, out[b + K.S_HAND]), (K.B_INV, out[b + K.S_INV])):
            out[body + seat * K.HCAP:body + seat * K.HCAP + n] = encoded[body + seat * K.HCAP:body + seat * K.HCAP + n]
        top, end = out[b + K.S_DTOP], out[b + K.S_DEND]
        deck = K.B_DECK + seat * K.HCAP
        out[deck:deck + end - top] = encoded[deck + top:deck + end]
        out[b + K.S_DTOP], out[b + K.S_DEND] = 0, end - top
        hist = K.B_HIST + seat * K.HISTCAP
        out[hist:hist + out[K.H_HIST]] = encoded[hist:hist + out[K.H_HIST]]
    return out


def kernel_legal(config: Config, s: State) -> list[tuple[int, int, int, int]]:
    """The kernel's legal actions of ``s``, in its order."""
    lg = _scratch(fast.legal_capacity(config))
    n = K._legal(fast.encode_state(config, s), fast._table(config), lg, 0)
    return [tuple(int(x) for x in lg[0, i]) for i in range(n)]


@cache
def _scratch(capacity: int) -> np.ndarray:
    return np.zeros((3, capacity, 4), np.int64)


def both(s: State, *actions, config: Config = CONFIG) -> State:
    """``scenario.act`` on the reference engine, each step checked against the kernel's (legal list and result)."""
    tab = fast._table(config)
    for action in actions:
        action = paid(s, action, config)
        assert kernel_legal(config, s) == [tuple(a) for a in legal_actions(config, s)], f"legal actions before {action}"
        encoded = fast.encode_state(config, s)
        K._step(encoded, tab, action.kind, action.a, action.b, action.pay)
        s = act(s, action, config=config)
        expected = _compared(fast.encode_state(config, s))
        got = _compared(encoded)
        differ = np.nonzero(expected != got)[0]
        assert not len(differ), f"kernel differs after {action} at state entries {differ.tolist()[:12]}"
    return s
