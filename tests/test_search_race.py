"""Racing in core's search (``race > 0``): hand-worked survivors, and the toy race decided in one batch."""

from __future__ import annotations

import numpy as np

from tests.test_search import TOY
from tests.toygame import rules as toy_rules
from workbench.core.rng import SplitMix64
from workbench.core.skill.search import survivors


def test_a_candidate_leaves_the_race_only_beyond_race_standard_errors_of_paired_loss():
    # column 1 loses 1, 0, 1, 0 to column 0: mean 0.5, variance 1/3, standard error sqrt(1/12) = 0.2887 -> 1.73 SE
    values = np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    assert survivors(values, 1.5, [3, 7]) == [3]
    assert survivors(values, 2.0, [3, 7]) == [3, 7]
    # a column that never loses stays, whatever the threshold; so does one that ties the leader everywhere
    assert survivors(np.array([[0.5, 0.5, 0.0], [1.0, 1.0, 0.0]]), 0.1, [0, 1, 2]) == [0, 1]


def test_on_the_toy_race_racing_finds_the_sure_win_after_one_batch_of_worlds():
    config = TOY.make_config(TOY.resolve_params({"edge": 1.0}))
    state = toy_rules.State((1, 2), 0, 0, 4, 123, False, None)
    view = TOY.observation(config, state, 0)
    legal = TOY.legal_actions(config, state, 0)
    raced, full = TOY.make_agent("search:budget=64,rollout=greedy,race=3"), TOY.make_agent("search:budget=64,"
                                                                                           "rollout=greedy")
    a, b = SplitMix64(1), SplitMix64(1)
    assert raced.act(view, legal, config, a) == full.act(view, legal, config, b) == toy_rules.RISKY
    # 64 // 2 = 32 worlds without racing; with it, batches of max(8, 32 / 6 rounded up) = 8: the losing move loses
    # in each of the first 8 worlds (a paired loss of 1 with no spread), so it leaves and no second batch is dealt
    dealt = SplitMix64(1)
    for _ in range(8):
        TOY.determinise(config, view, dealt)
        dealt.next_u64(), dealt.next_u64()
    assert a.state == dealt.state != b.state
