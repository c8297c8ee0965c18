"""Every equilibrium of the two-player auction: vertex enumeration against games solved by hand.

Sources: ``docs/rules/rescue.md`` ("Equilibrium", "Parameters and readings") and issue 21, item 6.
Every expected value below is worked out by hand in the comments, not read from the code.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from workbench.core.errors import InputError
from workbench.games.rescue import equilibrium as E
from workbench.games.rescue.rules import Config, outcome
from workbench.games.rescue.studies import STUDIES


def _as_set(found):
    return {(tuple(x), tuple(y)) for x, y in found}


def test_vertex_enumeration_on_textbook_games():
    # battle of the sexes: two pure equilibria and the mixed one (2/3, 1/3) against (1/3, 2/3)
    found = E.extreme_equilibria([[2, 0], [0, 1]], [[1, 0], [0, 2]])
    assert _as_set(found) == {((1, 0), (1, 0)), ((0, 1), (0, 1)), ((F(2, 3), F(1, 3)), (F(1, 3), F(2, 3)))}
    # matching pennies: the one mixed equilibrium
    assert _as_set(E.extreme_equilibria([[1, -1], [-1, 1]], [[-1, 1], [1, -1]])) == {((F(1, 2),) * 2, (F(1, 2),) * 2)}


def test_a_degenerate_stage_lists_each_component_by_its_extreme_points():
    # the second auction with 1 crystal each, worth 2: bids (0, 0) and (1, 1) tie (nobody), a lone 1 wins 2 - 1 = 1.
    # against p1's 1 every mix of p2 is a best reply (p2 gets 0 either way), and against any y p1's 1 (worth 1 - y)
    # is a best reply (0 is worth 0); so the equilibria are {p1 bids 1} x {any y} and {any x} x {p2 bids 1}:
    # extreme points (1, 1), (1, 0) and (0, 1) -- bids, as pure mixes over 0..1
    found = E.extreme_equilibria(*E.stage_matrices(Config(2, (1, 1), (2, 2)), (0, 1), None))
    assert _as_set(found) == {((0, 1), (0, 1)), ((0, 1), (1, 0)), ((1, 0), (0, 1))}


def test_equal_seats_at_value_6_nobody_ranges_from_0_to_1():
    # budgets 5/5, value 6.  Symmetric (selected): both bid 5 twice -> nobody, payoffs 0.
    # Asymmetric: p1 bids 5, p2 bids 4: p1 wins at 5 (surplus 1); p2 matching 5 only ties (second auction worth 0),
    # p1 lowering to 4 ties too -> an equilibrium with nobody = 0.  No seat can get more than 1: winning at b <= 4
    # invites the rival to win at b + 1 <= 5 with 6 - (b + 1) > 0.
    found = E.equilibrium_range(Config(2, (5, 5), (6, 6)))
    assert found.selected_nobody == 1 and found.selected_values == (0.0, 0.0)
    for span in (found.given_second, found.every):
        assert span.nobody == (0, 1)
        assert span.values == ((0, 1), (0, 1))


def test_budgets_5_and_3_the_second_seat_has_six_extreme_mixes():
    # budgets 5/3, value 6.  The selected second auction: p1 bids 3 and wins (p2 never bids 3), worth (3, 0).
    # First round: p1 bids 3 and gets 3 whatever p2 does (a tie at 3 is worth 3 too).  p2's mix y over 0..3 keeps
    # p1 there iff bidding 1 (5 y0 + 3 y1) and bidding 2 (4 y0 + 4 y1 + 3 y2) pay at most 3 (4 and 5 pay 2, 1).
    # The vertices of {y : 5 y0 + 3 y1 <= 3, 4 (y0 + y1) + 3 y2 <= 3} on the simplex, by hand:
    six = {(F(3, 5), 0, F(1, 5), F(1, 5)), (F(3, 8), F(3, 8), 0, F(1, 4)), (F(3, 5), 0, 0, F(2, 5)),
           (0, 0, 1, 0), (0, F(3, 4), 0, F(1, 4)), (0, 0, 0, 1)}
    config = Config(2, (5, 3), (6, 6))
    eq = E.solve(config)
    tied = frozenset((0, 1))
    assert eq.plans[0].second_for(tied) == (0, 0, 0, 1, 0, 0)
    a, b = E.stage_matrices(config, (0, 1), {tied: {0: 3, 1: 0}})
    found = E.extreme_equilibria(a, b)
    assert {tuple(y) for _, y in found} == six and {tuple(x) for x, _ in found} == {(0, 0, 0, 1, 0, 0)}
    span = E.equilibrium_range(config).given_second
    assert span.first_mixes == (1, 6) and span.nobody == (0, 0) and span.values == ((3, 3), (0, 0))


def test_the_relative_payoff_changes_the_5_3_case():
    # losing to a rival counts: zero-sum.  p1 guarantees 6 - 4 = 2 by bidding 4 (p2 has only 3); p2 holds p1 to 2
    # by bidding 3 always (p1 then wins at 4 in the first round or after a tie at 3, or loses -3 bidding below 3).
    # Value (2, -2), the same in every equilibrium, and the Mercenary always goes to p1.  Under the surplus payoff
    # p1 gets 3 (p2, indifferent, leaves it the Mercenary at 3).
    config = Config(2, (5, 3), (6, 6), "relative")
    eq = E.solve(config)
    assert eq.values == (2.0, -2.0)
    assert outcome(config, eq.plans).win[0] == 1
    found = E.equilibrium_range(config)
    assert found.every.values == ((2, 2), (-2, -2)) and found.every.nobody == (0, 0)
    assert E.solve(Config(2, (5, 3), (6, 6))).values == (3.0, 0.0)


def test_the_relative_payoff_is_solved_for_two_players_only():
    with pytest.raises(InputError, match=r"payoff 'relative' is solved for 2 players, not 3"):
        E.solve(Config(3, (3, 3, 3), (4, 4, 4), "relative"))


def test_the_study_shows_the_selected_equilibrium_beside_the_range_and_says_how_it_is_chosen():
    study = {s.name: s for s in STUDIES}["equilibria"]
    table = study.execute("rescue", {"budget_p1": 5, "budget_p2": 5})["equilibria"]
    assert table["equilibria"].to_list()[0] == "the selected equilibrium"
    assert table["nobody_gets_it_lowest"].to_list() == [1.0, 0.0, 0.0]
    assert table["nobody_gets_it_highest"].to_list() == [1.0, 1.0, 1.0]
    assert "largest total payoff" in table["how_chosen"][0] and "symmetric" in table["how_chosen"][0]
    with pytest.raises(InputError, match="payoff"):
        study.execute("rescue", {"payoff": "spite"})
