"""Duel agents: random is uniform, greedy follows its documented weights, agents see only a View,
search beats random."""

from __future__ import annotations

from collections import Counter

import pytest
from scipy.stats import chisquare

from tests.games.duel.events import play_game
from workbench.core.errors import InputError
from workbench.core.model import AgentSpec
from workbench.core.rng import SplitMix64
from workbench.games.duel import rules
from workbench.games.duel.agents import (
    DRAW_SCORE,
    WIN,
    GreedyAgent,
    RandomAgent,
    SearchAgent,
    View,
    Weights,
    evaluate,
    make_agent,
    observe,
    score_action,
)
from workbench.games.duel.data import load_battlefields, load_cards
from workbench.games.duel.rules import DISCARD, PLAY, Action, Config, GameState, PlayerState

CARDS = load_cards()
CFG = Config(cards=CARDS, battlefield=load_battlefields()["crystal_garden"])
ME = PlayerState(20, 8, 3, 3, 3, 20, 20, 20)
EN = PlayerState(22, 6, 2, 4, 3, 10, 10, 10)


def idx(*keys: str) -> tuple[int, ...]:
    return tuple(CARDS.by_key(k).index for k in keys)


def view(hand, players=(ME, EN), me=0) -> View:
    return View(me, tuple(hand), tuple(players), (), 90, 6, 1, False)


def test_random_agent_is_uniform_over_legal_actions():
    legal = tuple(Action(PLAY, i) for i in range(3)) + tuple(Action(DISCARD, i) for i in range(6))
    agent, rng = RandomAgent(), SplitMix64(31)
    counts = Counter(agent.act(view(()), legal, CFG, rng) for _ in range(9 * 1000))
    assert set(counts) == set(legal)
    assert chisquare([counts[a] for a in legal]).pvalue > 0.001


def test_evaluate_follows_the_weights_by_hand():
    # (mine − enemy's): tower −2·1, wall 2·0.5, mines 1·4, monasteries −1·4, barracks 0, each stock 10·0.25
    assert evaluate((ME, EN), 0, Weights()) == pytest.approx(-2 + 1 + 4 - 4 + 0 + 2.5 + 2.5 + 2.5)  # 6.5
    assert evaluate((ME, EN), 1, Weights()) == pytest.approx(-6.5)
    w = Weights(tower=2.0, wall=0.0, producer=1.0, resource=0.0)
    assert evaluate((ME, EN), 0, w) == pytest.approx(-4 + 0 + 1 - 1 + 0)


HAND = idx("basic_wall", "fertile_ground", "orc", "spell_weaver", "dragon", "bad_ore")
# hand-computed greedy scores with the default Weights (see test_evaluate_follows_the_weights_by_hand)
SCORES = {
    Action(PLAY, 0): 7.5,  # Basic Wall: wall diff 5 → 2.5, ore diff 8 → 2.0
    Action(PLAY, 1): 7.75,  # Fertile Ground: wall diff 3 → 1.5, ore diff 9 → 2.25, plus again 1.0
    Action(PLAY, 2): 8.25,  # Orc: enemy wall 6 → 1 (wall diff 7 → 3.5), troops diff 7 → 1.75
    Action(PLAY, 3): 9.75,  # Spell Weaver: monasteries equal (0), mana diff 7 → 1.75
    Action(PLAY, 5): 6.5,  # Bad Ore: both lose 8 ore, the difference stays 10
    Action(DISCARD, 0): 6.3,  # position 6.5 − 0.1 × cost 2
    Action(DISCARD, 1): 6.4,
    Action(DISCARD, 2): 6.2,
    Action(DISCARD, 3): 6.2,
    Action(DISCARD, 4): 4.0,  # Dragon costs 25
    Action(DISCARD, 5): 6.5,
}


def test_greedy_scores_by_hand():
    v = view(HAND)
    state = GameState((ME, EN), (HAND, ()), (), (), 0, 0, 1, True, False, (0, 0), (0, 0), None, ((), ()), ((), ()))
    legal = rules.legal_moves(state, CFG)
    assert set(legal) == set(SCORES)  # Dragon (25 troops) is not affordable
    for action, expected in SCORES.items():
        assert score_action(v, action, CFG, Weights()) == pytest.approx(expected), action
    assert GreedyAgent().act(v, legal, CFG, SplitMix64(0)) == Action(PLAY, 3)


def test_greedy_weights_are_agent_options():
    agent = make_agent(AgentSpec.parse("greedy:producer=0,again=10"))
    assert agent.weights == Weights(producer=0.0, again=10.0)
    v = view(HAND)
    legal = tuple(SCORES)
    # without producer weight Spell Weaver is worth 9.75 − 4 = 5.75; Fertile Ground's again bonus now wins
    assert agent.act(v, legal, CFG, SplitMix64(0)) == Action(PLAY, 1)
    with pytest.raises(InputError, match="unknown option 'depth'"):
        make_agent(AgentSpec.parse("greedy:depth=2"))
    with pytest.raises(InputError, match=r"option 'budget': '0' is out of range; allowed: int in \[1, 100000\]"):
        make_agent(AgentSpec.parse("search:budget=0"))
    with pytest.raises(InputError, match="unknown duel agent"):
        make_agent(AgentSpec.parse("oracle"))


def test_greedy_takes_an_immediate_win_and_avoids_a_loss():
    hand = idx("dragons_eye", "spell_weaver", "power_burst", "orc", "crack", "bad_ore")
    me, enemy = ME._replace(tower=5, mana=30), EN._replace(tower=3, wall=40)
    v = view(hand, (me, enemy))
    legal = tuple(Action(PLAY, i) for i in range(6)) + tuple(Action(DISCARD, i) for i in range(6))
    assert score_action(v, Action(PLAY, 4), CFG, Weights()) == WIN  # Crack: 3 to the tower, past the wall
    assert score_action(v, Action(PLAY, 2), CFG, Weights()) == -WIN  # Power Burst: own tower 5 → 0
    assert GreedyAgent().act(v, legal, CFG, SplitMix64(0)) == Action(PLAY, 4)
    assert SearchAgent(budget=4, horizon=2).act(v, legal, CFG, SplitMix64(0)) == Action(PLAY, 4)
    both = view(idx("discord"), (ME._replace(tower=5), EN._replace(tower=7)))  # both towers fall: a draw
    assert score_action(both, Action(PLAY, 0), CFG, Weights()) == DRAW_SCORE


class Spy:
    """Records what an agent is shown, then plays like greedy."""

    def __init__(self) -> None:
        self.seen: list = []
        self.inner = GreedyAgent()

    def act(self, v, legal, cfg, rng):
        self.seen.append(v)
        return self.inner.act(v, legal, cfg, rng)


def test_agents_see_only_a_view():
    assert set(View._fields) == {"me", "hand", "players", "discard", "deck_size", "enemy_hand_size", "turn",
                                 "pending_discard", "played"}
    spies = [Spy(), Spy()]
    states = []
    play_game(CFG, spies, 5, "p1", on_event=lambda k, s, d: states.append(s) if k == "action" else None)
    seen = spies[0].seen + spies[1].seen
    assert len(seen) == len(states) and all(type(v) is View for v in seen)
    for s in states:
        v = observe(s)
        assert v.hand == s.hands[s.current] and v.enemy_hand_size == len(s.hands[1 - s.current])
        assert v.deck_size == len(s.deck) and v.discard == s.discard


def test_hidden_information_does_not_change_a_decision():
    hand = idx("basic_wall", "orc", "ruby", "spear", "fairy", "ogre")
    rest = [c for c in range(len(CARDS)) if c not in hand]
    a = GameState((ME, EN), (hand, tuple(rest[:6])), tuple(rest[6:]), (), 0, 0, 3, True, False, (0, 0), (0, 0),
                  None, ((), ()), ((), ()))
    b = a._replace(hands=(hand, tuple(rest[-6:])), deck=tuple(reversed(rest[:-6])))
    assert observe(a) == observe(b)
    legal = rules.legal_moves(a, CFG)
    for agent in (RandomAgent(), GreedyAgent(), SearchAgent(budget=6, horizon=3)):
        assert agent.act(observe(a), legal, CFG, SplitMix64(4)) == agent.act(observe(b), legal, CFG, SplitMix64(4))


def test_search_beats_random_clearly():
    wins = 0
    games = 10
    for seed in range(games):
        search_seat = seed % 2
        agents = [SearchAgent(budget=8, horizon=6), RandomAgent()]
        if search_seat:
            agents.reverse()
        final = play_game(CFG, agents, 1000 + seed, "random")
        wins += final.outcome[0] == search_seat
    assert wins >= 8


def test_greedy_beats_random():
    wins = sum(play_game(CFG, [GreedyAgent(), RandomAgent()], seed, "random").outcome[0] == 0
               for seed in range(30))
    assert wins >= 24
