"""Core's one search agent (``core/skill/search.py``) and the compiled continue-from-a-state entries it rolls out in.

* Two paths, one answer: each game kernel's continue-from-a-state entry gives the values core's reference
  loop (``search.play_on``) gives from the same mid-game states, with the same agent streams, both to the
  end and cut after a horizon; the compiled prior and shuffle equal their Python definitions; a game's
  compiled deal (``SearchHooks.deal``) gives the worlds, seeds, stream and decisions core's deal gives.
* The determinisation never reads hidden information: two states that differ only in the opponent's hidden
  cards (and the deck order) give the same observation and the same decision from the same seed.
* Exact, structural facts: an immediate win and a lone legal action are played without search (the agent's
  stream is not touched); the same seed gives the same decision; on the toy race, where one move wins for
  sure and the other loses for sure, the search overrules a prior that prefers the losing move.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from tests.toygame import rules as toy_rules
from tests.toygame.model import ToyModel
from workbench.core.errors import InputError
from workbench.core.model import CHANCE, AgentSpec, SearchHooks, game_names, get_game
from workbench.core.rng import SplitMix64
from workbench.core.sim import rng_numba
from workbench.core.sim.play import decide, step
from workbench.core.skill.search import choose, reference_rollouts

KERNEL_GAMES = ("duel", "babel", "babylon")


def _hooks(model):
    return model.agent_decl("search").factory.args[1]


def _positions(model, params, count, *, skip=9):
    """``count`` mid-game decision states of greedy against random (seeds 0..), ``skip`` steps apart."""
    config = model.make_config(model.resolve_params(params))
    found = []
    for seed in range(count):
        agents = [model.make_agent("greedy"), model.make_agent("random")]
        rngs = [SplitMix64.for_stream(seed, model.agent_stream(s)) for s in range(2)]
        state = model.initial_state(config, seed)
        for _ in range(5 + skip * seed):
            if model.is_terminal(config, state):
                break
            _, _, state = step(model, config, state, agents, rngs)
        while not model.is_terminal(config, state) and model.current_player(config, state) == CHANCE:
            _, _, state = step(model, config, state, agents, rngs)
        if not model.is_terminal(config, state):
            found.append(state)
    return config, found


PARITY = {
    "duel": ({}, {"deck": "unlimited", "miss_rate": 0.2, "max_missed_in_row": 2, "hand_size": 4}),
    "babel": ({}, {"start_hands": "5/5", "run_detection": "top", "universal": False}),
    "babylon": ({"deck_p1": "siege_of_ur", "deck_p2": "night_raid"},),
}


@pytest.mark.parametrize("game", KERNEL_GAMES)
@pytest.mark.parametrize("policy", ["greedy", "random", "greedy@tuned"])
def test_the_kernels_continue_from_a_state_as_the_reference_loop_does(game, policy):
    model = get_game(game)
    fast = importlib.import_module(f"workbench.games.{game}.engine.fast")
    spec = model.resolve_spec(policy)  # a weight set becomes the options it holds, as the agent resolves it
    compared = 0
    for params in PARITY[game]:
        config, states = _positions(model, params, 3, skip=9 if game != "babylon" else 23)
        for i, state in enumerate(states):
            seat = model.current_player(config, state)
            actions = list(model.legal_actions(config, state, seat))[:4 if game != "babylon" else 3]
            seeds = np.array([[11 + i, 97 + 3 * i]], np.uint64)
            for horizon in (0, 2):
                compiled, _ = fast.continue_from(config, [state], actions, seat, spec, horizon, seeds)
                reference = reference_rollouts(model, _hooks(model), config, [state], actions, seat, spec, horizon,
                                               seeds)
                assert compiled[0].tolist() == pytest.approx(reference[0].tolist(), abs=1e-12, rel=0), (params, horizon)
                compared += len(actions)
    assert compared >= 9


def test_a_finished_rollout_is_worth_one_a_half_or_nothing_and_the_kernel_reports_the_end():
    model = get_game("duel")
    fast = importlib.import_module("workbench.games.duel.engine.fast")
    config, states = _positions(model, {}, 2)
    state = states[1]
    seat = model.current_player(config, state)
    actions = list(model.legal_actions(config, state, seat))[:3]
    values, res = fast.continue_from(config, [state], actions, seat, AgentSpec("greedy"), 0, np.array([[1, 2]]))
    for a, value in enumerate(values[0]):
        winner, reason = int(res[0, a, 0]), int(res[0, a, 1])
        assert reason != 0  # played to the end
        assert value == (0.5 if winner == 2 else float(winner == seat))


def test_the_compiled_shuffles_and_prior_equal_their_python_definitions():
    # the compiled shuffles the games' determinise use (Babel, Babylon: shuffled; the duel: shuffle_in_place)
    for seed in (1, 7, 2**63 + 5):
        a, b, c = SplitMix64(seed), SplitMix64(seed), SplitMix64(seed)
        items = list(range(60)) + [3, 3, 4]
        assert rng_numba.shuffled(a, items) == b.shuffle(items) and a.state == b.state
        arr, state = np.array(items, np.int64), np.array([c.state], np.uint64)
        rng_numba.shuffle_in_place(state, arr)
        assert arr.tolist() == SplitMix64(seed).shuffle(items) and int(state[0]) == b.state
    for game, other in (("babel", "greedy:value=3,hand=1,variety=-2"), ("babylon", "greedy:tower=2,card=0.1,late=0.5")):
        model = get_game(game)
        fast = importlib.import_module(f"workbench.games.{game}.engine.fast")
        agents = importlib.import_module(f"workbench.games.{game}.agents")
        config, states = _positions(model, {}, 4, skip=13)
        for state in states:
            seat = model.current_player(config, state)
            view, legal = model.observation(config, state, seat), model.legal_actions(config, state, seat)
            for policy in ("greedy", other):
                spec = AgentSpec.parse(policy)
                assert fast.prior(config, view, legal, spec) == agents.search_prior(config, view, legal, spec)


def _dealing_games():
    """Every registered game whose search deals its worlds in the compiled engine (``SearchHooks.deal``)."""
    return [name for name in game_names() if "search" in get_game(name).agents
            and _hooks(get_game(name)).deal is not None]


def test_some_game_deals_its_search_worlds_in_the_compiled_engine():
    assert _dealing_games()  # else the test below checks nothing


@pytest.mark.parametrize("game", _dealing_games())
def test_the_compiled_deal_gives_the_worlds_seeds_and_decisions_core_deals_one_by_one(game):
    model = get_game(game)
    hooks = _hooks(model)
    decided = 0
    for params in PARITY.get(game, ({},)):  # the duel's unlimited deck too
        config, states = _positions(model, params, 4, skip=13)
        decided += _dealt_alike(model, hooks, config, states)
    assert decided >= 2


def _dealt_alike(model, hooks, config, states):
    """Check the compiled deal on ``states`` (the test above); the decisions compared."""
    deal = getattr(importlib.import_module(hooks.deal.partition(":")[0]), hooks.deal.partition(":")[2])
    rollout = getattr(importlib.import_module(hooks.rollout.partition(":")[0]), hooks.rollout.partition(":")[2])
    spec = model.resolve_spec("greedy@tuned")
    decided = 0
    for i, state in enumerate(states):
        seat = model.current_player(config, state)
        view, legal = model.observation(config, state, seat), list(model.legal_actions(config, state, seat))
        fast, slow = SplitMix64(5 + i), SplitMix64(5 + i)
        dealt_seat, worlds, seeds = deal(config, view, fast, 5)
        ref_worlds, ref_seeds = [], []
        for _ in range(5):
            ref_seat, world = model.determinise(config, view, slow)
            ref_worlds.append(world)
            ref_seeds.append((slow.next_u64(), slow.next_u64()))
        assert dealt_seat == ref_seat == seat and fast.state == slow.state  # the agent's stream advanced alike
        assert np.asarray(seeds, np.uint64).tolist() == [list(pair) for pair in ref_seeds]
        for horizon in (0, 2):
            assert (rollout(config, worlds, legal[:3], seat, spec, horizon, seeds).tolist()
                    == rollout(config, ref_worlds, legal[:3], seat, spec, horizon, np.array(ref_seeds, np.uint64))
                    .tolist())
        if len(legal) > 1:  # the search decides alike with the compiled deal and with core's deal
            agents = [model.make_agent("search:budget=12,width=3,horizon=2") for _ in range(2)]
            agents[1].resolve()
            agents[1].dealer = None
            chosen = [a.act(view, legal, config, SplitMix64(40 + i)) for a in agents]
            assert chosen[0] == chosen[1]
            decided += 1
    return decided


# -- hidden information ---------------------------------------------------------------------------------------
def _duel_states():
    from workbench.games.duel.rules import GameState, PlayerState, State

    model = get_game("duel")
    config = model.make_config(model.resolve_params({}))
    me, enemy = PlayerState(20, 8, 3, 3, 3, 20, 20, 20), PlayerState(22, 6, 2, 4, 3, 10, 10, 10)
    hand = tuple(range(6))
    rest = list(range(6, len(config.cards)))
    a = GameState((me, enemy), (hand, tuple(rest[:6])), tuple(rest[6:]), (), 0, 0, 3, True, False, (0, 0), (0, 0),
                  None, ((), ()), ((), ()))
    b = a._replace(hands=(hand, tuple(rest[-6:])), deck=tuple(reversed(rest[:-6])))
    return model, config, State(a, 5, 6), State(b, 77, 78)


def _babel_states():
    model = get_game("babel")
    config, states = _positions(model, {}, 3, skip=11)
    a = states[2]
    seat = model.current_player(config, a)
    other = 1 - seat
    hidden = sorted([n for n, c in enumerate(a.hands[other]) for _ in range(c)] + list(a.draw_pile))
    swapped = hidden[::-1]  # another deal of the same unseen cards: another enemy hand, another draw pile
    k = sum(a.hands[other])
    hand = tuple(swapped[:k].count(n) for n in range(5))
    hands = (hand, a.hands[1]) if other == 0 else (a.hands[0], hand)
    b = a._replace(hands=hands, draw_pile=tuple(swapped[k:]), quarry=a.quarry[::-1], deck_rng=a.deck_rng ^ 12345)
    return model, config, a, b


def _babylon_states():
    model = get_game("babylon")
    config, states = _positions(model, {}, 3, skip=17)
    a = states[2]
    seat = model.current_player(config, a)
    sides = list(a.sides)
    for s, side in enumerate(sides):
        if s == seat:  # the own deck's order is hidden too
            sides[s] = side._replace(deck=side.deck[::-1])
        else:  # another deal of the opponent's unseen cards: another hand, another deck
            pool = sorted(side.hand + side.deck)[::-1]
            hand = tuple(sorted(pool[:len(side.hand)]))
            sides[s] = side._replace(hand=hand, deck=tuple(pool[len(hand):]), drawn=side.drawn | frozenset(hand))
    b = a._replace(sides=tuple(sides))
    assert b.sides[1 - seat].hand != a.sides[1 - seat].hand
    return model, config, a, b


@pytest.mark.parametrize("states", [_duel_states, _babel_states, _babylon_states], ids=["duel", "babel", "babylon"])
def test_the_decision_never_depends_on_the_opponents_hidden_cards(states):
    model, config, a, b = states()
    seat = model.current_player(config, a)
    assert a != b and model.observation(config, a, seat) == model.observation(config, b, seat)
    assert model.legal_actions(config, a, seat) == model.legal_actions(config, b, seat)
    agent = model.make_agent("search:budget=24,width=3")
    decisions = []
    for state in (a, b):
        rng = SplitMix64(4242)
        decisions.append((decide(model, config, state, seat, agent, rng), rng.state))
    assert decisions[0] == decisions[1]
    assert decisions[0][1] != 4242  # it did search: the worlds came from its own stream


# -- structural facts ---------------------------------------------------------------------------------------
def test_an_immediate_win_is_played_without_search():
    from workbench.games.duel.agents import View
    from workbench.games.duel.rules import PLAY, Action, PlayerState

    model = get_game("duel")
    config = model.make_config(model.resolve_params({}))
    keys = ("dragons_eye", "spell_weaver", "power_burst", "orc", "crack", "bad_ore")
    hand = tuple(config.cards.by_key(k).index for k in keys)
    me, enemy = PlayerState(5, 8, 3, 3, 3, 20, 30, 20), PlayerState(3, 40, 2, 4, 3, 10, 10, 10)
    view = View(0, hand, (me, enemy), (), 90, 6, 1, False)
    legal = tuple(Action(PLAY, i) for i in range(6)) + tuple(Action(1, i) for i in range(6))
    rng = SplitMix64(3)
    # Crack: 3 damage past the wall onto a tower of 3 — greedy ranks Power Burst (own tower to 0) last
    assert model.make_agent("search").act(view, legal, config, rng) == Action(PLAY, 4)
    assert rng.state == 3


def test_an_immediate_temple_win_in_babel_is_played_without_search():
    from tests.games.babel.scenario import CONFIG, P1, A, H, M, board
    from workbench.games.babel import rules as babel_rules

    temples = {(P1, H): (1, 2, 3, 4, 5, 6), (P1, M): (1, 2, 3, 4, 5), (P1, A): (1, 2, 3)}
    state = board(hands=("AH", ""), stacks={(P1, A): "HHHH"}, temples=temples, temple_stacks=((4,), ()))
    model = get_game("babel")
    seat = babel_rules.actor(state)
    rng = SplitMix64(1)
    choice = model.make_agent("search").act(model.observation(CONFIG, state, seat),
                                           babel_rules.legal_actions(CONFIG, state), CONFIG, rng)
    assert choice == babel_rules.Action(babel_rules.BUILD, P1) and rng.state == 1  # 18 points: the game is won


def test_one_legal_action_is_returned_without_search_and_one_seed_gives_one_decision():
    for game in KERNEL_GAMES:
        model = get_game(game)
        config, states = _positions(model, {}, 3)
        agent = model.make_agent("search:budget=16,width=4")
        state = states[-1]
        seat = model.current_player(config, state)
        view, legal = model.observation(config, state, seat), model.legal_actions(config, state, seat)
        rng = SplitMix64(8)
        assert agent.act(view, legal[:1], config, rng) == legal[0] and rng.state == 8
        first, again = SplitMix64(99), SplitMix64(99)
        assert agent.act(view, legal, config, first) == agent.act(view, legal, config, again)
        assert first.state == again.state != 99


def test_choose_takes_the_best_mean_and_with_z_keeps_the_prior_unless_the_paired_gain_is_clear():
    values = np.array([[0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
    assert choose(values) == 1  # means 0.5, 0.75, 0.5
    # paired gains of column 1 over column 0: 1, 0, 0, 0 — mean 0.25, standard error 0.25
    assert choose(values, z=0.99) == 1 and choose(values, z=1.01) == 0
    assert choose(np.array([[0.5, 0.5], [0.5, 0.5]])) == 0  # a tie keeps the prior's order


# -- the toy race: core's search with reference rollouts, an exact answer --------------------------------------
def toy_prior(config, view, legal, policy):
    """Prefers the move that loses at the positions of the toy test (risky on a dead coin, else safe)."""
    return [float((a == toy_rules.RISKY) == (config.edge < 0.5)) for a in legal]


def toy_value(config, state, seat, policy):
    """Unused: the toy's rollouts end."""
    return 0.5


def toy_clock(config, state):
    """Turns played."""
    return state.turn


class ToySearch(ToyModel):
    """The toy race with the search hooks declared on the model (core adds its ``search`` agent)."""

    search = SearchHooks(prior=f"{__name__}:toy_prior", value=f"{__name__}:toy_value", clock=f"{__name__}:toy_clock")


TOY = ToySearch()


@pytest.mark.parametrize(("edge", "scores", "right"), [(1.0, (1, 2), toy_rules.RISKY), (0.0, (2, 2), toy_rules.SAFE)])
def test_on_the_toy_race_the_search_overrules_a_prior_that_prefers_the_losing_move(edge, scores, right):
    config = TOY.make_config(TOY.resolve_params({"edge": edge}))
    state = toy_rules.State(scores, 0, 0, 4, 123, False, None)
    view = TOY.observation(config, state, 0)
    agent = TOY.make_agent("search:budget=8,rollout=greedy")
    assert "search" in TOY.agents and "search" in TOY.capabilities()
    legal = TOY.legal_actions(config, state, 0)
    assert toy_prior(config, view, legal, None)[legal.index(right)] == 0.0  # the prior is wrong here
    assert agent.act(view, legal, config, SplitMix64(1)) == right
    # its trace (benchmarks/search_departures.py) keeps the decision: the prior's order, the overruling pick, means
    agent.trace = []
    assert agent.act(view, legal, config, SplitMix64(1)) == right  # the same decision with a trace kept
    [(seen, candidates, pick, means)] = agent.trace
    assert seen is config and candidates[0] != right and candidates[pick] == right
    assert means[pick] > means[0]
    # with a sure coin every rollout is decided: the right move wins in every world, the other loses
    worlds = [TOY.determinise(config, view, SplitMix64(s))[1] for s in range(4)]
    values = reference_rollouts(TOY, TOY.search, config, worlds, legal, 0, AgentSpec("greedy"), 0,
                                np.array([[1, 2]] * 4, np.uint64))
    assert values[:, legal.index(right)].tolist() == [1.0] * 4
    assert values[:, 1 - legal.index(right)].tolist() == [0.0] * 4


def test_bad_rollout_agents_are_refused_with_the_allowed_ones():
    model = get_game("duel")
    with pytest.raises(InputError, match=r"search option 'rollout': 'smart'.*allowed: an agent spec of random, greedy"):
        model.make_agent("search:rollout=smart")
    with pytest.raises(InputError, match="rollout"):
        model.make_agent("search:rollout=search")
