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
from workbench.core.play import step
from workbench.core.rng import SplitMix64
from workbench.games.babel import agents, fast, rules

KINDS = {rules.MOVE: "move", rules.DEPLOY: "deploy", rules.BUILD: "build", rules.MIGRATE: "migrate",
         rules.ABILITY: "ability", rules.UNIVERSAL: "universal", rules.DISCARD: "discard", rules.END_TURN: "end turn"}


@pytest.mark.parametrize("params", [{}, {"run_detection": "top", "start_hands": "5/5"}], ids=["any-run", "top-run"])
def test_the_kernel_scores_every_action_as_the_python_greedy_does(params):
    model = get_game("babel")
    config = model.make_config(model.resolve_params(params))
    policies = (AgentSpec.parse("greedy"), AgentSpec.parse("greedy:value=3,runs=5,threat=4,hand=1,variety=-2"))
    seen = set()
    compared = 0
    for seed in range(12):
        players = [model.make_agent("greedy"), model.make_agent("random")]
        rngs = [SplitMix64.for_stream(seed, model.agent_stream(s)) for s in range(2)]
        state = model.initial_state(config, seed)
        while not model.is_terminal(config, state):
            seat = model.current_player(config, state)
            if seat != CHANCE:
                view, legal = model.observation(config, state, seat), model.legal_actions(config, state, seat)
                if len(legal) > 1:
                    policy = policies[compared % 2]
                    assert fast.prior(config, view, legal, policy) == agents.search_prior(config, view, legal, policy)
                    seen |= {KINDS[a.kind] for a in legal}
                    compared += 1
            _, _, state = step(model, config, state, players, rngs)
    assert compared > 500
    assert seen == set(KINDS.values()), f"action kinds never scored: {set(KINDS.values()) - seen}"
