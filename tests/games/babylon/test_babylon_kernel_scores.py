"""The compiled greedy's shortcuts score every action exactly as the reference greedy does.

The kernel scores a move without playing it (only the moved minion's zone changes the evaluation), reads
the sources' and hand cards' sums of the evaluation from tables, and ends the search for the payment
that keeps most of the hand playable once one keeps every card the sources left can pay.  Each of these
must give the reference engine's numbers bit for bit: here every legal action of mid-game positions is
scored on both engines (``fast.prior`` against ``agents.search_prior``, both ``GreedyAgent.rank``'s
scores) with weights under which a minion's zone, a source and a hand card are each worth something
different, and the moves among them are checked to be there.
"""

from __future__ import annotations

from workbench.core.model import AgentSpec, get_game
from workbench.core.play import step
from workbench.core.rng import SplitMix64
from workbench.games.babylon import agents, fast
from workbench.games.babylon.rules import K_MOVE, K_MULLIGAN, K_PLAY

MODEL = get_game("babylon")
# guards, raiders and builders worth very different amounts; sources and cards decaying at odd rates
ZONED = "greedy:guard=2.5,raider=0.3,builder=1.7,sentenced=0.9,source=0.7,source_decay=0.6,card=0.45,hand_decay=0.8"


def _positions(params: dict, seeds: range, every: int) -> tuple:
    """Decision states of greedy against random, every ``every`` steps of each seeded game."""
    config = MODEL.make_config(MODEL.resolve_params(params))
    found = []
    for seed in seeds:
        players = [MODEL.make_agent("greedy"), MODEL.make_agent("random")]
        rngs = [SplitMix64.for_stream(seed, MODEL.agent_stream(s)) for s in range(2)]
        state = MODEL.initial_state(config, seed)
        for n in range(400):
            if MODEL.is_terminal(config, state):
                break
            if n % every == every - 1 and MODEL.current_player(config, state) >= 0:
                found.append(state)
            _, _, state = step(MODEL, config, state, players, rngs)
    return config, found


def test_every_action_including_moves_scores_as_the_reference_greedy_scores_it():
    config, states = _positions({"deck_p1": "siege_of_ur", "deck_p2": "citadel_of_the_rivers"}, range(3), 7)
    kinds = set()
    for state in states:
        seat = MODEL.current_player(config, state)
        view, legal = MODEL.observation(config, state, seat), MODEL.legal_actions(config, state, seat)
        if legal[0][0] == K_MULLIGAN:  # the prior is the reference's own there
            continue
        kinds.update(a[0] for a in legal)
        for policy in ("greedy", ZONED):
            spec = AgentSpec.parse(policy)
            assert fast.prior(config, view, legal, spec) == agents.search_prior(config, view, legal, spec), (
                f"scores differ at turn {state.turn} for {policy}")
    assert {K_MOVE, K_PLAY} <= kinds, "the positions must include moves and plays"
