"""Conformance, agents, the engine choice, and 1 vs 2 workers (fast-vs-reference parity: ``tests/test_parity.py``)."""

from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from workbench.core.errors import InputError
from workbench.core.model import AgentSpec, get_game
from workbench.core.sim.play import play_game
from workbench.core.sim.runner import simulate
from workbench.games.dietower import agents as ag
from workbench.games.dietower.rules import Config, legal_cards, result

MODEL = get_game("dietower")


def check_conformance(params: dict, agents: list[str], games: int = 150, seed: int = 5,
                      workers: bool = False) -> pl.DataFrame:
    """The invariants every seeded dietower run satisfies (the brief's conformance test).

    Nothing negative; each card played exactly once per player (at most once when a six-win ends
    the game early); games end within ``max_length``; same seed → identical frame whatever the
    chunking; optionally 1 vs 2 worker processes → identical frame.
    """
    resolved = MODEL.resolve_params(params)
    rules = Config.from_params(resolved)
    frame = simulate("dietower", games, params=params, agents=agents, seed=seed, engine="reference", progress=False)
    numeric = [c for c, t in frame.schema.items() if t.is_numeric()]
    assert frame.select(pl.min_horizontal([pl.col(c).min() for c in numeric])).item() >= 0
    assert frame["length"].max() <= MODEL.max_length(resolved) and frame["length"].min() >= 1
    assert frame["first_seat"].null_count() == games
    assert (frame["six_win"] == frame["six_win_round"].is_not_null()).all()
    six = frame.filter(pl.col("six_win"))
    assert (six["six_win_round"] == six["length"]).all()
    assert (frame.filter(~pl.col("six_win"))["length"] == rules.rounds).all()
    every_card = set(legal_cards(rules, rules.full_hand))
    for seed_ in frame["game_seed"].head(40):
        res, trace = _traced(rules, agents, int(seed_))
        for s in range(rules.players):
            played = [cards[s] for cards, _ in trace]
            assert len(set(played)) == len(played) == res.length and set(played) <= every_card
            if res.reason != "six_win":
                assert set(played) == every_card
    again = simulate("dietower", games, params=params, agents=agents, seed=seed, engine="reference",
                     progress=False, chunk_size=17)
    assert_frame_equal(frame, again)
    if workers:
        parallel = simulate("dietower", games, params=params, agents=agents, seed=seed, engine="reference",
                            progress=False, chunk_size=40, workers=2)
        assert_frame_equal(frame, parallel)
    return frame


@pytest.mark.xdist_group("pool")
@pytest.mark.parametrize("params, agents, workers", [
    ({}, ["random", "random"], True),
    ({"players": 3, "die_faces": 3}, ["random", "highest", "joker"], False),
    ({"players": 4, "suit_size": 6, "die_faces": 2, "nonbuilder_tie": "keep"}, ["random"] * 4, False),
])
def test_conformance(params, agents, workers):
    frame = check_conformance(params, agents, workers=workers)
    assert set(frame["winner"].unique()) <= {"p1", "p2", "p3", "p4", "draw"}
    assert set(frame["reason"].unique()) <= {"six_win", "score", "draw"}


@pytest.mark.xdist_group("pool")
def test_one_or_two_workers_give_the_same_frame():
    one = simulate("dietower", 3000, agents="random,joker", seed=9, engine="fast", progress=False)
    two = simulate("dietower", 3000, agents="random,joker", seed=9, engine="fast", progress=False, workers=2,
                   chunk_size=700)
    assert_frame_equal(one, two)


def test_default_engine_and_columns():
    specs = MODEL.resolve_agents("random,highest", MODEL.resolve_params())
    assert MODEL.resolve_engine(None, specs, MODEL.resolve_params()) == "fast"
    frame = simulate("dietower", 10, params={"players": 3}, seed=1, progress=False)
    for col in ("winner", "reason", "length", "first_seat", "score_p1", "score_p3", "winners", "six_win",
                "six_win_round", "longest_streak_p1", "longest_streak_p3", "builder_changes",
                "players", "suit_size", "die_faces", "nonbuilder_tie", "six_win_scores"):
        assert col in frame.columns
    assert frame.schema["six_win_round"] == pl.Int64 and frame.schema["winners"] == pl.String


@pytest.mark.parametrize("agent, message", [
    ("mixed:random=0,joker=0", "positive sum"),
    ("mixed:random=-1,highest=2", r"option 'random': '-1' is out of range; allowed: float in \[0, "),
    ("joker:base=clever", "option 'base': 'clever' is not allowed; allowed: random | highest | lowest"),
    ("joker:at=0", r"option 'at': '0' is out of range; allowed: int in \[1, 20\]"),
    ("highest:at=3", "unknown option 'at'"),
    ("oracle", "unknown agent 'oracle'"),
])
def test_bad_agents_are_clear_errors(agent, message):
    with pytest.raises(InputError, match=message):
        MODEL.resolve_agents([agent, "random"], MODEL.resolve_params())


def _view(cards, builder=-1, die=0, seat=0):
    return ag.View(seat, tuple(cards), 13, builder, die, (0, 0), 0)


def test_agent_policies():
    rng_free = {"highest": 12, "lowest": 0}
    for name, card in rng_free.items():
        assert ag.policy(ag.config(AgentSpec(name)), _view([0, 5, 12, 13])) == {card: 1.0}
        assert ag.policy(ag.config(AgentSpec(name)), _view([13])) == {13: 1.0}
    joker = ag.config(AgentSpec.parse("joker:at=4,base=highest"))
    assert ag.policy(joker, _view([2, 7, 13], builder=1, die=4)) == {13: 1.0}  # breaks the streak
    assert ag.policy(joker, _view([2, 7, 13], builder=1, die=3)) == {7: 1.0}  # too early
    assert ag.policy(joker, _view([2, 7, 13], builder=0, die=5)) == {7: 1.0}  # never against itself
    mixed = ag.config(AgentSpec.parse("mixed:random=0.5,lowest=0.5"))
    assert ag.policy(mixed, _view([0, 4])) == {0: 0.75, 4: 0.25}


def _traced(rules, agents, seed):
    """Play one game on core's reference loop; the result and ``(cards, state after)`` per round."""
    trace: list = []
    final = play_game(MODEL, rules, [MODEL.make_agent(a) for a in agents], seed,
                      observer=lambda before, who, cards, after: trace.append((cards, after)))
    return result(rules, final), trace
