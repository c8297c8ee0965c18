"""Equilibrium bidding: exact two-seat equilibria with no profitable deviation, N-seat exploitability, OpenSpiel."""

from __future__ import annotations

import importlib.util
from fractions import Fraction as F

import pytest

from workbench.games.rescue import equilibrium as E
from workbench.games.rescue.rules import Config, outcome
from workbench.games.rescue.studies import STUDIES

N_SEAT_BOUND = 0.01  # crystals: fictitious play's remaining gain of any deviation, below this


def test_one_crystal_by_hand():
    # budget 1, value 2: bidding 1 weakly dominates 0 in both rounds, so both bid 1 and nobody gets it
    eq = E.solve(Config(2, (1, 1), (2, 2)))
    assert eq.exact and eq.plans[0].first == (0, 1) and eq.values == (0.0, 0.0)
    assert outcome(Config(2, (1, 1), (2, 2)), eq.plans).nobody == 1


TWO_SEATS = [((b, b), (v, v)) for b in (1, 2, 3, 5, 8) for v in (0, 1, 3, 6, 9)] + [
    ((5, 3), (6, 6)), ((5, 5), (8, 4)), ((2, 4), (3, 5)), ((6, 2), (2, 7)), ((4, 4), (9, 1))]


@pytest.mark.parametrize(("budgets", "values"), TWO_SEATS)
def test_two_seat_equilibrium_has_no_profitable_pure_deviation(budgets, values):
    config = Config(2, budgets, values)
    eq = E.solve(config)
    gaps = E.exact_gaps(config, eq)  # second round (row, column), first round (row, column)
    assert max(gaps) <= 1e-9, gaps
    if eq.exact:
        assert all(g == 0 for g in gaps) and all(isinstance(p, F) for p in eq.plans[0].first)


def test_symmetric_two_seat_equilibria_leave_no_surplus():
    # the lowest bid of a symmetric equilibrium's support never wins, so every bid in it earns 0
    for b in (2, 4, 6):
        for v in (2, 5, 9):
            assert E.solve(Config(2, (b, b), (v, v))).values == (0.0, 0.0)


def test_bimatrix_solver_on_a_known_game():
    # matching pennies: the unique equilibrium is (1/2, 1/2) each
    x, y, exact = E.bimatrix_nash([[1, -1], [-1, 1]], [[-1, 1], [1, -1]])
    assert exact and x == (F(1, 2), F(1, 2)) and y == (F(1, 2), F(1, 2))


@pytest.mark.parametrize(("players", "budget", "value"), [(3, 3, 4), (3, 4, 3), (4, 3, 2), (4, 3, 4)])
def test_n_seat_exploitability_is_below_the_bound(players, budget, value):
    eq = E.solve(Config(players, (budget,) * players, (value,) * players), iterations=1500)
    assert eq.exploitability < N_SEAT_BOUND, eq.exploitability
    assert eq.exploitability == pytest.approx(eq.first_gap + eq.second_gap)


def test_equilibrium_study_table():
    study = {s.name: s for s in STUDIES}["equilibrium"]
    table = study.execute("rescue", {"largest_budget": 3})["equilibrium"]
    assert table["budget"].to_list() == [1, 2, 3] and table["exact"].all()
    assert table["p_nobody_random"].to_list()[0] == pytest.approx(3 / 8)


@pytest.mark.skipif(importlib.util.find_spec("pyspiel") is None, reason="OpenSpiel (pyspiel) is not installed")
@pytest.mark.parametrize(("budgets", "values"), [((3, 3), (2, 2)), ((5, 3), (6, 6)), ((4, 4), (9, 1))])
def test_openspiel_nash_conv_of_both_stages_is_zero(budgets, values):
    """OpenSpiel's own NashConv of each stage's matrix game, the payoffs read from the protocol game."""
    import pyspiel
    from open_spiel.python import policy as sp_policy
    from open_spiel.python.algorithms import exploitability

    from workbench.core.model import get_game
    from workbench.games.rescue.rules import SECOND, State

    model = get_game("rescue")
    config = Config(2, budgets, values)
    eq = E.solve(config)
    tied = frozenset((0, 1))

    def protocol_matrix(start, cont):
        rows, cols = [], []
        for b1 in range(budgets[0] + 1):
            r, c = [], []
            for b2 in range(budgets[1] + 1):
                end = model.apply(config, start, (b1, b2))
                pay = (model.returns(config, end) if model.is_terminal(config, end)
                       else cont)  # a tie at >= 1 in the first round: the second round's values
                r.append(float(pay[0]))
                c.append(float(pay[1]))
            rows.append(r)
            cols.append(c)
        return rows, cols

    def nash_conv(rows, cols, x, y):
        game = pyspiel.convert_to_turn_based(pyspiel.create_matrix_game(rows, cols))
        pol = sp_policy.TabularPolicy(game)
        for state_policy, mix in zip(pol.action_probability_array, (x, y), strict=True):
            state_policy[:len(mix)] = [float(p) for p in mix]
        return exploitability.nash_conv(game, pol)

    x2, y2 = eq.plans[0].second_for(tied), eq.plans[1].second_for(tied)
    rows, cols = protocol_matrix(State(SECOND, (1, 1), tied=(0, 1)), None)
    assert nash_conv(rows, cols, x2, y2) < 1e-9
    cont = (sum(rows[i][j] * x2[i] * y2[j] for i in range(len(x2)) for j in range(len(y2))),
            sum(cols[i][j] * x2[i] * y2[j] for i in range(len(x2)) for j in range(len(y2))))
    rows, cols = protocol_matrix(State(), cont)
    assert nash_conv(rows, cols, eq.plans[0].first, eq.plans[1].first) < 1e-9


@pytest.mark.skipif(importlib.util.find_spec("nashpy") is None or importlib.util.find_spec("pyspiel") is None,
                    reason="OpenSpiel's matrix Nash solver needs nashpy (the openspiel extra installs it)")
@pytest.mark.parametrize(("budgets", "values", "unique"), [
    ((5, 3), (6, 6), True), ((4, 4), (9, 1), True), ((5, 5), (8, 4), True),
    ((3, 3), (2, 2), False), ((3, 3), (6, 6), False)])
def test_openspiel_lemke_howson_solver_agrees(budgets, values, unique):
    """OpenSpiel's own solver (Lemke–Howson from every starting label) on the first round's bimatrix.

    Where it finds one payoff pair, ours is it.  Where the game has several equilibria (equal seats:
    OpenSpiel's are asymmetric, ours is the symmetric one), each of OpenSpiel's is an equilibrium by
    our exact check, and ours by OpenSpiel's NashConv (the test above).
    """
    import warnings

    import numpy as np
    from open_spiel.python.algorithms import matrix_nash

    config = Config(2, budgets, values)
    eq = E.solve(config)
    tied = frozenset((0, 1))
    a2, b2 = E.stage_matrices(config, (0, 1), None)
    x2, y2 = eq.plans[0].second_for(tied), eq.plans[1].second_for(tied)
    cont = tuple(float(np.array(x2, float) @ np.array(m, float) @ np.array(y2, float)) for m in (a2, b2))
    a, b = (np.array(m, float) for m in E.stage_matrices(config, (0, 1), {tied: cont}))
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # nashpy's pivoting divides by zero on degenerate games
        found = matrix_nash.lemke_howson_solve(a, b)
    pays = {(round(float(x @ a @ y), 9), round(float(x @ b @ y), 9)) for x, y in found}
    for x, y in found:
        assert max(E.bimatrix_gaps(a.tolist(), b.tolist(), x.tolist(), y.tolist())) < 1e-9
    ours = tuple(round(float(v), 9) for v in eq.values)
    if unique:
        assert pays == {ours}
    else:
        assert len(pays) > 1 and ours not in pays and ours[0] == ours[1]
