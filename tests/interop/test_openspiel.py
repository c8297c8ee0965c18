"""OpenSpiel bridge (``workbench/interop/openspiel.py``): the protocol as pyspiel games, checked by OpenSpiel.

* OpenSpiel's own API conformance (``pyspiel.random_sim_test``) passes on every registered game and
  on the die game's turn-based conversion; ``get_all_states`` walks the tiny die game.
* (b) OpenSpiel's CFR+ solves the reduced die game (suit 3 and suit 4, + Joker, 2 players) to
  exploitability <= 1e-3 and finds ``dietower.optimal``'s value — at the start and at lopsided
  positions after round 1, whose values are not the 1/2 that symmetry forces at the start.
* (c) random rollouts through the OpenSpiel duel agree with the native engine's random-vs-random
  first-seat rate.
* IS-MCTS plays legal, seed-reproducible games of the toy game and the duel, also from
  ``simulate`` once core lists it.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed (pip install 'workbench[openspiel]')")

from open_spiel.python.algorithms import get_all_states  # noqa: E402

from workbench.core.errors import InputError  # noqa: E402
from workbench.core.model import game_names, get_game  # noqa: E402
from workbench.core.rng import SplitMix64  # noqa: E402
from workbench.core.sim.play import play_game  # noqa: E402
from workbench.core.sim.runner import simulate  # noqa: E402
from workbench.core.sim.seeding import game_seed  # noqa: E402
from workbench.core.stats.rates import two_proportion, wilson  # noqa: E402
from workbench.games.dietower import optimal  # noqa: E402
from workbench.interop import openspiel as bridge  # noqa: E402

DIE = get_game("dietower")


def die_config(suit: int):
    return DIE.make_config(DIE.resolve_params({"suit_size": suit}))


def cfr_plus(game, target: float = 1e-3, every: int = 25, cap: int = 4000) -> tuple[float, float]:
    """OpenSpiel's CFR+ until exploitability <= target: (p1's value on optimal's win scale, exploitability)."""
    solver = pyspiel.CFRPlusSolver(game)
    for it in range(1, cap + 1):
        solver.evaluate_and_update_policy()
        if it % every == 0:
            policy = solver.average_policy()
            exploitability = pyspiel.exploitability(game, policy)
            if exploitability <= target:
                break
    returns = pyspiel.expected_returns(game.new_initial_state(), policy, -1, True)
    return (returns[0] + 1) / 2, exploitability  # returns win +1 / draw 0 / loss -1 → win 1, draw 1/2, loss 0


def native(game):
    """OpenSpiel's C++ copy of a small sequential game (its solvers then never call back into Python)."""
    return pyspiel.load_efg_game(bridge.to_efg(game))


# -- OpenSpiel's own conformance checks -----------------------------------------------------------
CASES = [(name, None) for name in game_names()] + [
    ("duel", {"miss_rate": 0.2, "deck": "unlimited", "start_wall": 20, "battlefield": "free_steppe"}),
    ("dietower", {"players": 3, "suit_size": 5}),
    ("dietower", {"players": 4, "suit_size": 4, "nonbuilder_tie": "keep"}),
]


@pytest.mark.parametrize(("name", "params"), CASES, ids=lambda v: str(v) if v else "default")
def test_openspiel_random_sim_test_passes_on_every_game(name, params):
    game = bridge.load(name, params)
    assert game.get_type().short_name == f"workbench_{name}"
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)
    if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        pyspiel.random_sim_test(pyspiel.convert_to_turn_based(game), num_sims=3, serialize=False, verbose=False)


def test_declarations_map_to_game_type_and_info():
    duel, die, toy = bridge.load("duel"), bridge.load("dietower", {"suit_size": 3}), bridge.load("toy")
    T = pyspiel.GameType
    assert duel.get_type().dynamics == T.Dynamics.SEQUENTIAL and die.get_type().dynamics == T.Dynamics.SIMULTANEOUS
    assert duel.num_distinct_actions() == 14 and die.num_distinct_actions() == 4  # 2 × (hand + 1); ranks + Joker
    assert die.get_type().chance_mode == T.ChanceMode.DETERMINISTIC  # the die game draws nothing
    assert duel.max_chance_outcomes() == 256 and duel.adapter.seed_bytes == 4  # the deal: 4 seed bytes
    assert duel.get_type().utility == T.Utility.ZERO_SUM
    assert bridge.load("dietower", {"players": 3, "suit_size": 4}).get_type().utility == T.Utility.GENERAL_SUM
    assert toy.adapter.facts.probed  # the toy declares nothing: probed, and said so
    assert duel.get_parameters()["start_wall"] == "none"


def test_get_all_states_walks_the_tiny_die_game_and_everything_played_is_public():
    game = bridge.load("dietower", {"suit_size": 2})
    states = get_all_states.get_all_states(game, include_terminals=False)
    assert len(states) == 1 + 9 + 9 * 4  # three cards each: 3×3 joint plays, then 2×2 (the last round is forced)
    for seat in (0, 1):  # cards are revealed, so each position is its own information state
        assert len({s.information_state_string(seat) for s in states.values()}) == len(states)
    assert all(s.is_simultaneous_node() for s in states.values())


def test_information_states_hide_the_deck_and_the_enemy_hand():
    game = bridge.load("duel")
    state = game.new_initial_state()
    for byte in (1, 2, 3, 4):
        state.apply_action(byte)
    while state.is_chance_node() or state.current_player() != 0:
        state.apply_action(state.legal_actions()[0])
    other = state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert other.information_state_string(0) == state.information_state_string(0)
    assert other.protocol_state.game.hands[1] != state.protocol_state.game.hands[1]  # hidden: dealt afresh
    assert other.protocol_state.game.hands[0] == state.protocol_state.game.hands[0]
    bytes_seen = game.new_initial_state()
    bytes_seen.apply_action(7)
    assert bytes_seen.information_state_string(1) == game.new_initial_state().child(200).information_state_string(1)


def test_a_missing_pyspiel_is_an_input_error_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)
    with pytest.raises(InputError, match=r"pip install 'workbench\[openspiel\]'"):
        bridge.spiel()


# -- (b) OpenSpiel's solver agrees with dietower.optimal -------------------------------------------
# Tolerance: the average profile's value u and the game value v* both lie in [-BR_2(pi_1), BR_1(pi_2)],
# whose width is NashConv = 2 × exploitability (returns in [-1, 1]); on optimal's win scale (returns / 2)
# that is |u - v*| <= exploitability.  1e-9 covers float rounding.
@pytest.mark.parametrize("suit", [3, pytest.param(4, marks=pytest.mark.bench)])  # suit 4: ~30 s, in make bench
def test_cfr_value_of_the_reduced_die_game_equals_optimal(suit):
    value, exploitability = cfr_plus(native(pyspiel.convert_to_turn_based(bridge.load("dietower",
                                                                                      {"suit_size": suit}))),
                                     every=50)
    exact = optimal.solve(die_config(suit), "win").value
    assert exploitability <= 1e-3
    assert abs(value - exact) <= exploitability + 1e-9, (value, exact, exploitability)


@pytest.mark.parametrize(("suit", "cards", "direct"), [
    (3, (1, 0), True),  # solved through the Python game itself (CFR+ calls back into it: ~10 s each)
    pytest.param(3, (0, 1), True, marks=pytest.mark.bench),  # the other lopsided round: make bench
    (4, (4, 3), False), (4, (0, 2), False),  # through OpenSpiel's C++ copy of it
])
def test_cfr_value_after_a_lopsided_first_round_equals_optimal(suit, cards, direct):
    config = die_config(suit)
    after = DIE.apply(config, DIE.initial_state(config, 0), cards)
    game = pyspiel.convert_to_turn_based(bridge.subgame(DIE, config, after))
    if direct:
        copy = native(game)
        uniform = [pyspiel.expected_returns(g.new_initial_state(), pyspiel.UniformRandomPolicy(g), -1, True)
                   for g in (game, copy)]
        assert uniform[0] == pytest.approx(uniform[1], abs=1e-12)  # the C++ copy is the same game
    value, exploitability = cfr_plus(game if direct else native(game))
    sol = optimal.solve(config, "win")
    exact = sol.values[(after.hands[0], after.hands[1], after.builder, after.die, after.scores[0] - after.scores[1])]
    assert exact != 0.5
    assert exploitability <= 1e-3
    assert abs(value - exact) <= exploitability + 1e-9, (value, exact, exploitability)


# -- (c) random rollouts through OpenSpiel vs the native engine ------------------------------------
@pytest.mark.bench  # 1,200 games through OpenSpiel's Python loop: ~30 s, in make bench
def test_random_rollouts_through_openspiel_match_the_native_first_seat_rate():
    """1,200 OpenSpiel rollouts (uniform over legal ids, chance by its probabilities) vs 1,200 native games.

    Independent samples of the same rate: the two-proportion test must not reject, and each rate
    must lie inside the other's 95 % Wilson interval (at equal n that fails by chance about one
    time in six; the seeds are fixed, so this is a fixed, checked outcome, not a flaky one).
    """
    n = 1200
    game, rs = bridge.load("duel"), np.random.RandomState(2024)
    wins = 0
    for _ in range(n):
        state, first = game.new_initial_state(), None
        while not state.is_terminal():
            if state.is_chance_node():
                ids, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(ids[rs.choice(len(ids), p=probs)])
                continue
            if first is None:
                first = state.current_player()
            legal = state.legal_actions()
            state.apply_action(legal[rs.randint(len(legal))])
        wins += state.returns()[first] > 0
    frame = simulate("duel", n, agents="random,random", seed=7, progress=False)
    native_wins = int((frame["winner"] == frame["first_seat"]).sum())
    test = two_proportion(wins, n, native_wins, n)
    assert not test.significant, test
    lo, hi = wilson(wins, n)
    native_lo, native_hi = wilson(native_wins, n)
    assert lo <= native_wins / n <= hi and native_lo <= wins / n <= native_hi, test


# -- IS-MCTS ---------------------------------------------------------------------------------------
def play_logged(name, spec, opponent, seed, params=None):
    model = get_game(name)
    resolved = model.resolve_params(params)
    config = model.make_config(resolved)
    log = []

    def check(before, who, action, after):
        if who >= 0:
            assert action in model.legal_actions(config, before, who)
        log.append((who, action))

    agents = [bridge.with_ismcts(spec, model), model.make_agent(opponent)]
    final = play_game(model, config, agents, seed, max_steps=model.max_steps(resolved), observer=check)
    return log, model.result_row(config, final)


@pytest.mark.parametrize(("name", "spec", "opponent"), [
    ("toy", "ismcts:budget=24", "greedy"),
    ("duel", "ismcts:budget=8", "greedy"),
    ("duel", "ismcts:budget=6,rollout=greedy,worlds=3", "random"),
])
def test_ismcts_plays_legal_moves_reproducibly_from_the_seed(name, spec, opponent):
    seed = game_seed(3, 0)
    log, row = play_logged(name, spec, opponent, seed)
    again, _ = play_logged(name, spec, opponent, seed)
    assert again == log and row["winner"] in ("p1", "p2", "draw")
    assert any(who == 0 for who, _ in log)


def test_ismcts_draws_only_from_the_seat_stream_and_uses_it():
    """Its decisions follow the seat's stream and nothing else: same stream, same pick; other streams, other picks.

    An agent that ignored its stream (a fixed or global generator) would pick the same card for every
    stream state, or different ones for the same state; one that drew from numpy's or Python's global
    generator would move them; and the game's own streams (deck, timer) are values in the state, which
    the search leaves as they were.
    """
    import random

    model = get_game("duel")
    config = model.make_config(model.resolve_params())
    state = model.initial_state(config, 5)
    state = model.apply(config, state, model.chance_outcomes(config, state)[0][0])
    seat = model.current_player(config, state)
    view, legal = model.observation(config, state, seat), model.legal_actions(config, state, seat)
    agent = bridge.with_ismcts("ismcts:budget=10", model)
    before = (state.deck, state.timer, state.game)
    global_numpy, global_python = np.random.get_state(), random.getstate()
    picks = {}
    for s in (1, 2, 3, 4, 1, 2):
        rng = SplitMix64(s)
        pick = picks.setdefault(s, agent.act(view, legal, config, rng))
        assert agent.act(view, legal, config, SplitMix64(s)) == pick and pick in legal  # the same state: the same
        assert rng.state != s  # it drew from the stream it was given
    assert len(set(picks.values())) > 1, picks  # the stream decides: different states, different picks
    assert (state.deck, state.timer, state.game) == before  # the game's streams are untouched
    after_numpy = np.random.get_state()
    assert after_numpy[0] == global_numpy[0] and np.array_equal(after_numpy[1], global_numpy[1])
    assert after_numpy[2:] == global_numpy[2:] and random.getstate() == global_python


def test_ismcts_is_a_simulate_agent_of_every_game_that_can_determinise():
    assert "ismcts" in get_game("duel").agents and "ismcts" in get_game("toy").agents
    assert "ismcts" in get_game("babel").agents
    assert "ismcts" not in get_game("dietower").agents  # no determinise: not offered
    frame = simulate("toy", 3, agents="ismcts:budget=12,greedy", seed=4, progress=False)
    assert frame.height == 3 and frame["agent_p1"].to_list() == ["ismcts:budget=12"] * 3
    assert frame.equals(simulate("toy", 3, agents="ismcts:budget=12,greedy", seed=4, progress=False))
    with pytest.raises(InputError, match="rollout"):
        simulate("toy", 1, agents="ismcts:rollout=ismcts,greedy", progress=False)
