"""The compiled greedy's scores of every action equal the Python agent's, position after position.

The kernel scores an action by trying it on the state and undoing it, re-scoring only the sites the
action touches and searching a stack for runs only where the action changed it.  Here every legal
action of every decision of seeded games (greedy against random, both run detections) is scored by
the kernel (``fast.prior``) and by ``agents.search_prior`` (a fresh ``rules.apply`` and a full
``agents.evaluate`` each): the two lists must be equal exactly, and the sample must include every
kind of action (moves, deployments, builds, migrations, nation abilities, the universal ability,
discards paid), so each incremental path of the kernel is checked against the full evaluation.
"""

from __future__ import annotations

import pytest

from workbench.core.model import CHANCE, AgentSpec, get_game
from workbench.core.rng import SplitMix64
from workbench.core.sim.play import step
from workbench.games.babel import agents, rules
from workbench.games.babel.engine import fast

KINDS = {rules.MOVE: "move", rules.DEPLOY: "deploy", rules.BUILD: "build", rules.MIGRATE: "migrate",
         rules.ABILITY: "ability", rules.UNIVERSAL: "universal", rules.DISCARD: "discard", rules.END_TURN: "end turn"}


def _decisions(model, config, seeds, agent_names):
    """``(state, seat, view, legal)`` at every decision of the games of ``seeds`` (one agent name per seat)."""
    for seed in seeds:
        players = [model.make_agent(name) for name in agent_names]
        rngs = [SplitMix64.for_stream(seed, model.agent_stream(s)) for s in range(2)]
        state = model.initial_state(config, seed)
        while not model.is_terminal(config, state):
            seat = model.current_player(config, state)
            if seat != CHANCE:
                yield state, seat, model.observation(config, state, seat), model.legal_actions(config, state, seat)
            _, _, state = step(model, config, state, players, rngs)


@pytest.mark.parametrize("params", [{}, {"run_detection": "top", "start_hands": "5/5"}], ids=["any-run", "top-run"])
def test_the_kernel_scores_every_action_as_the_python_greedy_does(params):
    model = get_game("babel")
    config = model.make_config(model.resolve_params(params))
    policies = (AgentSpec.parse("greedy"), AgentSpec.parse("greedy:value=3,runs=5,threat=4,hand=1,variety=-2"))
    seen = set()
    compared = 0
    for _, _, view, legal in _decisions(model, config, range(12), ("greedy", "random")):
        if len(legal) > 1:
            policy = policies[compared % 2]
            assert fast.prior(config, view, legal, policy) == agents.search_prior(config, view, legal, policy)
            seen |= {KINDS[a.kind] for a in legal}
            compared += 1
    assert compared > 500
    assert seen == set(KINDS.values()), f"action kinds never scored: {set(KINDS.values()) - seen}"


def _run_change(config, state, action):
    """How a migration changes the mover's run where the cards arrive and where they leave (for coverage)."""
    me = state.current
    src, dst = state.stacks[me][action.a], state.stacks[me][action.b]
    moved, after = src[-3:], dst + src[-3:]
    across = (rules.any_run(after, config.run_any) and not rules.any_run(dst, config.run_any)
              and not rules.any_run(moved, config.run_any))  # a run made of cards already there and cards moved
    lost = rules.any_run(src, config.run_any) and not rules.any_run(src[:-3], config.run_any)
    return across, lost


@pytest.mark.parametrize("params", [{}, {"run_detection": "top"}], ids=["any-run", "top-run"])
def test_moves_deployments_and_migrations_scored_unplayed_equal_the_python_greedy(params):
    """The kernel scores moves, deployments and migrations without playing them; random play reaches
    the stacks where that is delicate (a run formed across the old top and the cards migrated onto
    it, a run broken at the migration's source, a deployment completing a run, a move in place)."""
    model = get_game("babel")
    config = model.make_config(model.resolve_params(params))
    policy = AgentSpec.parse("greedy:value=2,potential=8,pawn=0.5,threat=6,runs=4,hand=1.5,variety=-1")
    cases = {"across": 0, "lost": 0, "deploy run": 0, "move in place": 0}
    for state, seat, view, legal in _decisions(model, config, range(30), ("random", "random")):
        quiet = [a for a in legal if a.kind in (rules.MOVE, rules.DEPLOY, rules.MIGRATE)]
        if not quiet or len(legal) == 1:
            continue
        assert fast.prior(config, view, legal, policy) == agents.search_prior(config, view, legal, policy)
        for a in quiet:
            if a.kind == rules.MIGRATE:
                across, lost = _run_change(config, state, a)
                cases["across"] += across
                cases["lost"] += lost
            elif a.kind == rules.MOVE:
                cases["move in place"] += a.a == state.pawns[seat]
            elif state.pawns[seat] != rules.QUARRY:
                here = state.stacks[seat][state.pawns[seat]]
                cases["deploy run"] += (rules.any_run(here + (a.a,), config.run_any)
                                        and not rules.any_run(here, config.run_any))
    if not config.run_any:  # only the top counts: a run across the old top cannot form
        del cases["across"]
    assert all(cases.values()), f"cases never met: {[k for k, v in cases.items() if not v]}"
