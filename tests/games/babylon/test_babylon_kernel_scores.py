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
from workbench.core.rng import SplitMix64
from workbench.core.sim.play import step
from workbench.games.babylon import agents
from workbench.games.babylon.engine import fast
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


def _crowded(config, state, seat: int):
    """``state`` with both hands 16 cards longer and ``seat`` owning 32 more sources: past the kernel's memo tables."""
    sides = list(state.sides)
    for s, side in enumerate(sides):
        extra = tuple(config.decks[s][:16])
        sides[s] = side._replace(hand=tuple(sorted(side.hand + extra)))
    mine = sides[seat]
    sides[seat] = mine._replace(available=(mine.available[0] + 32, *mine.available[1:]))
    return state._replace(sides=(sides[0], sides[1]))


def test_scores_past_the_kernels_memo_tables_match_the_reference():
    # every other card 20 health tougher: a minion's value comes from the kernel's table for some minions and is
    # worked out afresh for the others in one board sum; hands and sources past the tables' reach
    config, states = _positions({"deck_p1": "night_raid", "deck_p2": "builders_of_babel"}, range(2), 9)
    tough = tuple(c._replace(health=c.health + 20) if i % 2 else c for i, c in enumerate(config.cards))
    config = config._replace(cards=tough)
    kinds, compared = set(), 0
    for state in states:
        seat = MODEL.current_player(config, state)
        crowded = _crowded(config, state, seat)
        view, legal = MODEL.observation(config, crowded, seat), MODEL.legal_actions(config, crowded, seat)
        if legal[0][0] == K_MULLIGAN or not crowded.minions:
            continue
        kinds.update(a[0] for a in legal)
        spec = AgentSpec.parse(ZONED)
        assert fast.prior(config, view, legal, spec) == agents.search_prior(config, view, legal, spec), (
            f"scores differ at turn {state.turn}")
        compared += 1
    assert compared >= 5 and {K_PLAY, K_MOVE} <= kinds, (compared, kinds)
