"""Babel agents: random is uniform and ends its turns, greedy follows its documented score, search plans
from determinised worlds; the tiers are ordered (greedy beats random, search beats random, seeded)."""

from __future__ import annotations

from collections import Counter

import pytest
from scipy.stats import binomtest, chisquare

from tests.games.babel.scenario import CONFIG, P1, P2, A, H, M, board
from workbench.core.errors import InputError
from workbench.core.rng import SplitMix64
from workbench.core.sim.runner import simulate
from workbench.games.babel import agents, rules
from workbench.games.babel.agents import GreedyAgent, RandomAgent, SearchAgent, Weights, evaluate, observe
from workbench.games.babel.model import MODEL
from workbench.games.babel.rules import ABILITY, BUILD, DISCARD, END_TURN, Action


def _decide(agent, state, seat=None, rng=None):
    seat = rules.actor(state) if seat is None else seat
    legal = rules.legal_actions(CONFIG, state)
    return agent.act(observe(state, seat), legal, CONFIG, rng or SplitMix64(1))


def test_random_agent_is_uniform_below_its_cap():
    state = board(hands=("AHMPS", ""), stacks={(P1, A): "HHH"}, temple_stacks=((1,), ()))
    legal = rules.legal_actions(CONFIG, state)
    agent, rng = RandomAgent(), SplitMix64(7)
    counts = Counter(agent.act(observe(state, P1), legal, CONFIG, rng) for _ in range(300 * len(legal)))
    assert set(counts) == set(legal)
    assert chisquare([counts[a] for a in legal]).pvalue > 0.001


def test_random_agent_ends_the_turn_at_its_cap_without_a_draw():
    state = board(hands=("AHMPS", ""), actions=10)
    rng = SplitMix64(7)
    assert _decide(RandomAgent(), state, rng=rng) == Action(END_TURN) and rng.state == 7
    below_cap = SplitMix64(7)
    _decide(RandomAgent(cap=11), state, rng=below_cap)
    assert below_cap.state != 7  # one draw, uniform over the legal actions
    owed = board(hands=("", "AAHM"), pending=2, actions=30)
    assert _decide(RandomAgent(), owed).kind == DISCARD  # discards are never capped


def test_evaluate_follows_the_weights_by_hand():
    state = board(hands=("AAH", "M"), stacks={(P1, A): "HH", (P2, H): "AAA"}, temples={(P1, H): (1, 2),
                  (P2, M): (1,)}, pawns=(A, H), temple_stacks=((1,), ()))
    # value 2-1; progress mine A 2/1 capped 1 + H 0/3, theirs H 1/1 + M 0/2; in reach at A: a level 1 on top
    # threat: their A-run at site H where my temple is worth 2; my runs: none; hand 3-1; variety 2
    expected = 10 * 1 + 3 * (1 - 1) + 2 * 1 - 2 * 2 + 1 * 0 + 0.4 * 2 + 0.1 * 2
    assert evaluate(state, P1, CONFIG, Weights()) == pytest.approx(expected)
    assert evaluate(state, P1, CONFIG, Weights(value=0, potential=0, pawn=0, threat=0, runs=0, hand=1,
                                               variety=0)) == pytest.approx(2)
    assert evaluate(state._replace(outcome=(P1, rules.STANDARD)), P1, CONFIG, Weights()) == agents.WIN


def test_greedy_builds_what_it_can_and_then_ends_the_turn():
    state = board(hands=("", ""), stacks={(P1, A): "HH"}, temples={(P1, A): (1,)}, temple_stacks=((2,), ()))
    assert _decide(GreedyAgent(), state) == Action(BUILD, P1)
    built = rules.apply(CONFIG, state, Action(BUILD, P1))
    assert _decide(GreedyAgent(), built) == Action(END_TURN)


def test_greedy_destroys_a_tall_temple():
    state = board(hands=("M", ""), stacks={(P1, A): "AAA"}, temples={(P2, A): (1, 2, 3, 4)})
    assert _decide(GreedyAgent(), state) == Action(ABILITY, A)


def test_greedy_must_build_its_start_card_on_the_first_turn():
    state = board(hands=("MH", "AA"), start_cards=(1, 1), turn=1, pawns=(rules.QUARRY, rules.QUARRY))
    greedy = GreedyAgent()
    for _ in range(20):
        state = rules.apply(CONFIG, state, _decide(greedy, state))
        if state.turn == 2:
            break
    assert state.turn == 2 and state.start_cards == (0, 1) and state.temples[P1] != ((),) * 5


def test_greedy_uses_no_randomness_and_weights_are_options():
    state = board(hands=("AHM", ""), stacks={(P1, A): "H"})
    rng = SplitMix64(5)
    _decide(GreedyAgent(), state, rng=rng)
    assert rng.state == 5
    agent = MODEL.make_agent("greedy:value=3,hand=0.2")
    assert agent.weights == Weights(value=3.0, hand=0.2)
    with pytest.raises(InputError, match="unknown option 'wall'"):
        MODEL.make_agent("greedy:wall=1")


def test_owed_discards_are_chosen_by_the_discarding_seat():
    owed = board(hands=("", "AAAHM"), pending=2)
    for agent in (GreedyAgent(), RandomAgent(), SearchAgent(budget=4)):
        assert _decide(agent, owed).kind == DISCARD
    assert _decide(GreedyAgent(), owed) == Action(DISCARD, A)  # keeps the variety of the hand


def test_search_is_legal_reproducible_and_draws_from_its_stream():
    state = board(hands=("AHMP", "AAHMS"), stacks={(P1, A): "HHH", (P2, A): "MM"}, temples={(P2, A): (1, 2)},
                  temple_stacks=((3, 1), (2,)))
    legal = rules.legal_actions(CONFIG, state)
    first = _decide(SearchAgent(budget=6), state, rng=SplitMix64(9))
    assert first in legal and first == _decide(SearchAgent(budget=6), state, rng=SplitMix64(9))
    rng = SplitMix64(9)
    _decide(SearchAgent(budget=6), state, rng=rng)
    assert rng.state != 9


def test_search_takes_an_immediate_win():
    temples = {(P1, H): (1, 2, 3, 4, 5, 6), (P1, M): (1, 2, 3, 4, 5), (P1, A): (1, 2, 3)}
    state = board(hands=("AH", ""), stacks={(P1, A): "HHHH"}, temples=temples, temple_stacks=((4,), ()))
    assert _decide(SearchAgent(budget=6), state) == Action(BUILD, P1)


def test_search_options_are_declared():
    agent = MODEL.make_agent("search:budget=5,horizon=2,width=2,rollout=random")
    assert (agent.budget, agent.horizon, agent.width, agent.rollout) == (5, 2, 2, "random")
    with pytest.raises(InputError, match="rollout"):
        MODEL.make_agent("search:rollout=smart")


def _score(first: str, second: str, games: int, seed: int, **kw) -> tuple[int, int]:
    """Wins of ``first`` and decided games, with seats swapped on the same seeds."""
    a = simulate("babel", games, agents=[first, second], seed=seed, progress=False, engine="reference", **kw)
    b = simulate("babel", games, agents=[second, first], seed=seed, progress=False, engine="reference", **kw)
    wins = int((a["winner"] == "p1").sum() + (b["winner"] == "p2").sum())
    losses = int((a["winner"] == "p2").sum() + (b["winner"] == "p1").sum())
    return wins, wins + losses


def test_greedy_beats_random_clearly():
    wins, decided = _score("greedy", "random", 50, seed=3)
    assert binomtest(wins, decided, 0.5, alternative="greater").pvalue < 1e-6, (wins, decided)


def test_search_beats_random():
    wins, decided = _score("search:budget=12,width=4", "random", 4, seed=4)  # a third of the default budget
    assert binomtest(wins, decided, 0.5, alternative="greater").pvalue < 0.05, (wins, decided)
