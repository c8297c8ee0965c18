"""The Mercenary auction: every tie rule by hand, exact odds as fractions, exact vs simulated, taking control."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from tests.scipy_intervals import wilson as scipy_wilson
from workbench.core.errors import InputError
from workbench.core.model import get_game
from workbench.core.sim.runner import simulate
from workbench.games.rescue import control as C
from workbench.games.rescue import rules as A
from workbench.games.rescue.agents import plan_of, shade_bid
from workbench.games.rescue.studies import auction_table

# first bids, second bids (tied seats in seat order) → winner, price, reason
TIE_RULES = [
    ((3, 1), None, 0, 3, "won"),  # a single highest bid wins and pays
    ((0, 2, 1), None, 1, 2, "won"),
    ((0, 0), None, A.NOBODY, 0, "no_bids"),  # everyone bid 0: nobody (the workbench's decision)
    ((0, 0, 0, 0), None, A.NOBODY, 0, "no_bids"),
    ((2, 2), (1, 0), 0, 1, "second_auction"),  # a tie at >= 1 → a second auction among the tied
    ((1, 1), (0, 2), 1, 2, "second_auction"),
    ((4, 0, 4), (3, 5), 2, 5, "second_auction"),  # only the tied seats (p1, p3) bid again
    ((2, 2), (1, 1), A.NOBODY, 0, "double_tie"),  # a second tie → nobody
    ((2, 2), (0, 0), A.NOBODY, 0, "double_tie"),  # ... at 0 too
    ((3, 3, 3), (2, 2, 1), A.NOBODY, 0, "double_tie"),  # two of three tie again: nobody
]


@pytest.mark.parametrize(("first", "second", "winner", "price", "reason"), TIE_RULES)
def test_every_tie_rule(first, second, winner, price, reason):
    state = A.resolve(first, second)
    assert (state.winner, state.price, state.reason) == (winner, price, reason)
    config = A.Config(len(first), (5,) * len(first), (6,) * len(first))
    left = A.crystals_left(config, state)
    assert left == tuple(5 - (price if s == winner else 0) for s in range(len(first)))  # the others keep theirs
    assert A.surplus(config, state) == tuple(6 - price if s == winner else 0 for s in range(len(first)))


def test_the_second_auction_involves_exactly_the_tied_seats():
    assert A.apply(A.Config(3, (5, 5, 5), (6, 6, 6)), A.State(), (4, 0, 4)).tied == (0, 2)
    with pytest.raises(ValueError, match="tied"):
        A.resolve((2, 2))


def test_the_protocol_plays_the_two_simultaneous_nodes():
    model = get_game("rescue")
    config = model.make_config(model.resolve_params({"players": 3}))
    state = model.initial_state(config, 0)
    assert model.current_player(config, state) == (0, 1, 2)
    assert model.legal_actions(config, state, 1) == tuple(range(6))
    state = model.apply(config, state, (4, 0, 4))
    assert model.current_player(config, state) == (0, 2)
    state = model.apply(config, state, (3, 5))
    assert model.is_terminal(config, state)
    row = model.result_row(config, state)
    assert (row["winner"], row["reason"], row["price"], row["length"], row["tied"]) == ("p3", "second_auction", 5, 2, 2)
    assert (row["second_bid_p1"], row["second_bid_p2"], row["second_bid_p3"]) == (3, None, 5)
    assert (row["surplus_p3"], row["crystals_p3"], row["crystals_p1"]) == (1, 0, 5)
    assert model.returns(config, state) == (0.0, 0.0, 1.0)


def test_per_seat_overrides_and_their_errors():
    model = get_game("rescue")
    config = model.make_config(model.resolve_params({"players": 3, "budget_p2": 9, "value_p3": 1}))
    assert config.budgets == (5, 9, 5) and config.values == (6, 6, 1)
    with pytest.raises(InputError, match="budget_p4"):
        model.resolve_params({"players": 3, "budget_p4": 2})


def test_two_players_one_crystal_by_hand():
    # each bids 0 or 1 with 1/2 in both auctions: (0,0) nobody; (1,0),(0,1) won at 1; (1,1) → second auction,
    # where (1,0),(0,1) win and (0,0),(1,1) tie again
    config = A.Config(2, (1, 1), (2, 2))
    out = A.outcome(config, [plan_of("random", config, s) for s in range(2)])
    assert out.win == (F(5, 16), F(5, 16))
    assert out.nobody == F(3, 8) and out.second_auction == F(1, 4) and out.double_tie == F(1, 8)
    assert out.price == (F(5, 16), F(5, 16)) and out.surplus == (F(5, 16), F(5, 16))
    allin = A.outcome(config, [plan_of("allin", config, s) for s in range(2)])
    assert allin.nobody == 1 and allin.double_tie == 1
    mixed = A.outcome(config, [plan_of("allin", config, 0), plan_of("random", config, 1)])
    # p1 bids 1: wins outright when p2 bids 0 (1/2), else a second auction where p2 bids 0 half the time
    assert mixed.win == (F(3, 4), F(0)) and mixed.nobody == F(1, 4)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_level_enumeration_equals_profile_enumeration(players):
    config = A.Config(players, (2, 3, 1, 2)[:players], (3, 2, 4, 1)[:players])
    lineup = ["random", "truthful", "shade:factor=0.4", "allin"][:players]
    plans = [plan_of(a, config, s) for s, a in enumerate(lineup)]
    assert A.outcome(config, plans) == A.outcome_by_profiles(config, plans)


def test_shade_rounds_halves_up_and_caps_at_the_budget():
    assert shade_bid(5, 9, 0.5) == 3 and shade_bid(6, 9, 0.5) == 3 and shade_bid(20, 4, 0.5) == 4


@pytest.mark.parametrize(("players", "budget", "value", "agents"), [
    (2, 3, 6, ["random", "random"]),
    (3, 2, 2, ["random", "truthful", "random"]),
    (2, 4, 3, ["equilibrium", "random"]),
    (4, 2, 3, ["random"] * 4),
])
def test_exact_odds_lie_inside_the_simulated_999_intervals(players, budget, value, agents):
    games = 4000
    table = {r["event"]: r for r in auction_table(players, budget, value, agents, games=games, seed=3)
             .drop_nulls("n").iter_rows(named=True)}
    config = A.Config(players, (budget,) * players, (value,) * players)
    out = A.outcome(config, [plan_of(a, config, s) for s, a in enumerate(agents)])
    exact = {**{f"p{i + 1} wins": w for i, w in enumerate(out.win)}, "nobody": out.nobody,
             "second_auction": out.second_auction, "double_tie": out.double_tie}
    if agents == ["random", "random"] and budget == 3:  # by hand: bids uniform on 0..3, ties 1/4 of the time
        assert exact == {"p1 wins": F(57, 128), "p2 wins": F(57, 128), "nobody": F(1, 16) + F(3, 16) * F(1, 4),
                         "second_auction": F(3, 16), "double_tie": F(3, 64)}
    # the same auctions played again; each event counted from their rows, its interval from scipy
    frame = simulate("rescue", games, params={"players": players, "budget": budget, "value": value},
                     agents=",".join(agents), seed=3, progress=False)
    hits = {**{f"p{i + 1} wins": frame["winner"] == f"p{i + 1}" for i in range(players)},
            "nobody": frame["winner"] == "draw", "second_auction": frame["length"] == 2,
            "double_tie": frame["reason"] == "double_tie"}
    assert set(table) == set(hits)
    for event, hit in hits.items():
        k = int(hit.sum())
        low, high = scipy_wilson(k, games, 0.999)
        assert low <= float(exact[event]) <= high, (event, k, exact[event])
        row = table[event]
        assert row["simulated"] == k / games and row["n"] == games
        assert (row["low"], row["high"]) == pytest.approx((low, high), abs=1e-9) and row["inside"] is True


def test_simulated_surplus_matches_the_exact_expectation():
    frame = simulate("rescue", 4000, params={"budget": 3}, agents="random,random", seed=5, progress=False)
    config = A.Config(2, (3, 3), (6, 6))
    exact = A.outcome(config, [plan_of("random", config, s) for s in range(2)]).surplus[0]
    mean, sd = frame["surplus_p1"].mean(), frame["surplus_p1"].std()
    assert abs(mean - float(exact)) < 3.3 * sd / 4000 ** 0.5


# -- taking control --------------------------------------------------------------------------------
def test_taking_control_accept_refuse_and_cannot_pay():
    assert C.take_control(2, owner_crystals=5, challenger_crystals=4, refuse=False) == C.Taken(True, False, 7, 2)
    assert C.take_control(2, owner_crystals=5, challenger_crystals=4, refuse=True) == C.Taken(False, False, 2, 4)
    assert C.take_control(2, owner_crystals=2, challenger_crystals=4, refuse=True) == C.Taken(True, True, 4, 2)
    with pytest.raises(ValueError):
        C.take_control(5, owner_crystals=5, challenger_crystals=4, refuse=False)


@pytest.mark.parametrize(("offer", "value", "crystals", "answer"), [
    (2, 6, 9, "refuse"),  # 6 > 2·2+1: keeping is worth more than k + (k+1)
    (2, 5, 9, "accept"),  # indifferent at v = 2k+1: takes the crystals
    (2, 4, 9, "accept"),
    (2, 9, 2, "must_accept"),  # would refuse but cannot pay 3
    (2, 9, 3, "refuse"),
])
def test_the_rational_owner(offer, value, crystals, answer):
    assert C.decision(offer, value, crystals) == answer


def test_the_smallest_offer_is_the_first_accepted_one():
    for value in range(0, 16):
        for crystals in range(0, 9):
            accepted = [k for k in range(1, 12) if C.decision(k, value, crystals) != "refuse"]
            assert C.smallest_offer(value, crystals) == accepted[0]
    table = C.control_table(range(0, 6), range(0, 3), range(1, 4), challenger_value=2)
    assert table.height == 6 * 3 * 3 and set(table["decision"]) <= set(C.DECISIONS)
    spec = C.acceptance_chart(table).to_dict()
    assert spec["spec"]["mark"]["type"] == "rect"
