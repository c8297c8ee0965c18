"""The compiled engine's own pieces: packed hands, the round as a table, and a kernel that lets other threads run.

Whole games are compared with the reference engine in ``tests/test_parity.py`` and
``test_dietower_engines.py``; these tests pin the pieces that make the kernel fast, each against an
answer worked out from the rules (``docs/rules/dietower.md``) or from a plain Python list.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from workbench.core.model import AgentSpec
from workbench.core.sim.seeding import game_seeds
from workbench.games.dietower import agents as ag
from workbench.games.dietower.engine.kernel import (
    CHANGE,
    NEXT,
    POINTS,
    SIX,
    WIN,
    _card,
    _without,
    full_hand,
    play_fast,
    round_table,
)
from workbench.games.dietower.rules import Config


def test_a_packed_hand_plays_like_a_sorted_list():
    rng = np.random.default_rng(23)
    for rounds in (3, 8, 14):
        for _ in range(40):
            hand, cards = full_hand(rounds), list(range(rounds))
            while cards:
                j = int(rng.integers(len(cards)))
                assert [_card(hand, k) for k in range(len(cards))] == cards
                assert _card(hand, j) == cards.pop(j)
                hand = _without(hand, j)
            assert hand == 0


def _state(holder: np.ndarray, seat: int, die: int) -> int:
    """The table's state where ``seat`` is Builder with the die on ``die`` (seat -1: the die in the centre)."""
    if seat < 0:
        return 0
    return int(np.flatnonzero((holder[:, 0] == seat) & (holder[:, 1] == die))[0])


def _round(players: int, faces: int, seat: int, die: int, code: int, keep: bool = False,
           six_scores: bool = False) -> tuple[tuple[int, int] | str, int, bool, bool]:
    """(who holds the die after the round and on what, or "six"; points; Builder won; new Builder)."""
    table, holder = round_table(players, faces, keep, six_scores)
    codes = (1 << players) + 2
    row = table[_state(holder, seat, die) * codes + code]
    after = "six" if row[NEXT] == SIX else (int(holder[row[NEXT], 0]), int(holder[row[NEXT], 1]))
    return after, int(row[POINTS]), bool(row[WIN]), bool(row[CHANGE])


# codes: with no Joker the mask of the seats holding the highest card; 2**players one Joker, 2**players + 1 two or more
@pytest.mark.parametrize("players, faces, seat, die, code, keep, six_scores, expected", [
    (2, 6, -1, 0, 0b01, False, False, ((0, 1), 0, False, True)),  # p1 alone highest takes the die on 1, no score
    (2, 6, 0, 3, 0b11, False, False, ((0, 4), 3, True, False)),  # the Builder tied for highest wins: +3, die to 4
    (2, 6, 0, 3, 0b10, False, False, ((1, 1), 0, False, True)),  # p2 alone above the Builder takes the die on 1
    (2, 6, 0, 3, 4, False, False, ((2, 0), 0, False, False)),  # one Joker: the die to the centre (slot 2 = none)
    (2, 6, 0, 3, 5, False, False, ((0, 4), 3, True, False)),  # two Jokers favour the Builder
    (2, 6, -1, 0, 5, False, False, ((2, 0), 0, False, False)),  # two Jokers, die in the centre: nothing
    (2, 6, 0, 6, 0b01, False, False, ("six", 0, True, False)),  # a win on the top face ends the game unscored
    (2, 6, 0, 6, 0b01, False, True, ("six", 6, True, False)),  # ... or scores the face in that variant
    (3, 4, 0, 2, 0b110, False, False, ((3, 0), 0, False, False)),  # p2, p3 tie above the Builder: die to centre
    (3, 4, 0, 2, 0b110, True, False, ((0, 2), 0, False, False)),  # ... or the Builder keeps it, unscored
    (3, 4, -1, 0, 0b011, True, False, ((3, 0), 0, False, False)),  # a tie with the die in the centre: nobody
    (4, 20, 3, 19, 0b1000, False, False, ((3, 20), 19, True, False)),  # p4 scores 19 on a 20-faced die
])
def test_the_round_table_follows_the_rules(players, faces, seat, die, code, keep, six_scores, expected):
    assert _round(players, faces, seat, die, code, keep, six_scores) == expected


def test_the_kernel_lets_another_thread_run_while_it_plays():
    """A worker thread in the kernel does not hold Python's GIL: another thread keeps running meanwhile."""
    config = Config(players=2)
    agents = [ag.config(AgentSpec.parse("random"))] * 2
    seeds = game_seeds(3, 0, 400_000)
    play_fast(config, agents, seeds[:10])  # compiled (or loaded) before timing
    ticks: list[float] = []
    done = threading.Event()

    def other() -> None:
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.0005)

    thread = threading.Thread(target=other)
    thread.start()
    time.sleep(0.01)
    start = time.perf_counter()
    play_fast(config, agents, seeds)
    stop = time.perf_counter()
    done.set()
    thread.join()
    middle = (start + 0.2 * (stop - start), stop - 0.2 * (stop - start))
    assert any(middle[0] < t < middle[1] for t in ticks), f"no tick in {1e3 * (stop - start):.0f} ms of kernel"
