"""Optimal play: matrix games with known solutions, and equilibrium properties on reduced decks."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.core.errors import InputError
from workbench.games.dietower.optimal import (
    _cards,
    _transition,
    agent_policy,
    evaluate,
    heuristic_losses,
    matrix_game,
    solve,
)
from workbench.games.dietower.rules import Config


def test_matrix_games_with_known_solutions():
    v, x, y = matrix_game(np.array([[1.0, -1.0], [-1.0, 1.0]]))  # matching pennies
    assert v == pytest.approx(0) and x == pytest.approx([0.5, 0.5]) and y == pytest.approx([0.5, 0.5])
    rps = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], float)
    v, x, y = matrix_game(rps)
    assert v == pytest.approx(0) and x == pytest.approx([1 / 3] * 3) and y == pytest.approx([1 / 3] * 3)
    v, x, y = matrix_game(np.array([[3.0, 1.0], [4.0, 2.0]]))  # saddle point at (row 2, column 2)
    assert v == 2.0 and list(x) == [0, 1] and list(y) == [0, 1]
    v, x, y = matrix_game(np.array([[2.0, -1.0], [-1.0, 1.0]]))  # value 1/5, x = (2/5, 3/5)
    assert v == pytest.approx(0.2) and x == pytest.approx([0.4, 0.6]) and y == pytest.approx([0.4, 0.6])


@pytest.mark.parametrize("objective, value", [("win", 0.5), ("points", 0.0)])
@pytest.mark.parametrize("suit", [2, 3, 4])
def test_symmetric_game_value_and_equilibrium_conditions(objective, value, suit):
    """Every solved state is an equilibrium of its matrix game (entries rebuilt from the rules).

    For optimal x (p1, maximising) and y (p2, minimising) with value v: x guarantees at least v
    against every card of p2 and y concedes at most v against every card of p1.  Complementary
    slackness splits the columns (and rows) into two cases: a card the other player plays with
    positive probability earns exactly v (else that player would drop it), a card never played may
    earn strictly more (for p1, against p2's unplayed card) or less (p1's unplayed card) than v.
    Both cases occur, e.g. the state worked out by hand in test_suits_of_two_by_hand.
    """
    rules = Config(suit_size=suit, die_faces=3)
    sol = solve(rules, objective)
    assert sol.value == pytest.approx(value, abs=1e-7)  # both players hold the same cards
    slack_columns = slack_rows = 0
    for state, (c1s, x, c2s, y) in list(sol.strategies.items())[:300]:
        a = np.array([[sum(_next_value(sol, state, c1, c2)) for c2 in c2s] for c1 in c1s])
        v = sol.values[state]
        assert (x >= 0).all() and x.sum() == pytest.approx(1) and (y >= 0).all() and y.sum() == pytest.approx(1)
        assert x @ a @ y == pytest.approx(v, abs=1e-6)
        p1_earns, p2_concedes = x @ a, a @ y  # per column of p2 / per row of p1
        played2, played1 = y > 1e-9, x > 1e-9
        assert p1_earns[played2] == pytest.approx(np.full(played2.sum(), v), abs=1e-6)
        assert (p1_earns[~played2] >= v - 1e-6).all()
        assert p2_concedes[played1] == pytest.approx(np.full(played1.sum(), v), abs=1e-6)
        assert (p2_concedes[~played1] <= v + 1e-6).all()
        slack_columns += int((p1_earns > v + 1e-6).sum())
        slack_rows += int((p2_concedes < v - 1e-6).sum())
    assert slack_columns > 0 and slack_rows > 0  # the strict case is exercised, not only equalities


def _next_value(sol, state, c1, c2):
    gain, nxt = _transition(sol.rules, sol.objective, state, c1, c2)
    return gain, (sol.values[nxt] if nxt is not None else 0.0)


def test_suits_of_two_by_hand():
    """Suits {L, H} + Joker, objective win (1, draw 1/2, loss 0); the equilibrium opens with L.

    Random p1 against the equilibrium p2 (who opens L), by hand:
    * p1 opens L (1/3): tie in the centre; {H, J} vs {H, J} can never take and score: draw, 1/2.
    * p1 opens H (1/3): p1 takes the die; {L, J} vs {H, J}.  p2 plays H: against L p2 takes and the
      last round J vs J scores for p2 (p1 gets 0); against J the die goes to the centre (draw).
      So H gives p1 1/4; J would give p1 3/4 (J vs J lets p1 score): p2 plays H, value 1/4.
    * p1 opens J (1/3): centre; {L, H} vs {H, J}: nobody can take and then win again: 1/2.
    Total (1/2 + 1/4 + 1/2) / 3 = 5/12, a loss of 1/12 against the game value 1/2.
    """
    sol = solve(Config(suit_size=2), "win")
    assert sol.first_round() == {0: 1.0, 1: 0.0, 2: 0.0}
    # p1 is Builder (die 1, no points yet) holding {L, J} against {H, J}; rows L, J × columns H, J:
    # L vs H: p2 takes, then J vs J scores for p2 → 0; L vs J and J vs H: die to the centre, the last
    # round cannot score → 1/2; J vs J: p1 scores, then L vs H only moves the die → 1.
    # Saddle point: p1 plays J, p2 plays H, value 1/2; p2's J would give p1 1, p1's L only 0.
    c1s, x, c2s, y = sol.strategies[(0b101, 0b110, 0, 1, 0)]
    assert (c1s, list(x), c2s, list(y)) == ((0, 2), [0.0, 1.0], (1, 2), [1.0, 0.0])
    assert sol.values[(0b101, 0b110, 0, 1, 0)] == 0.5
    rows = {r["agent"]: r for r in heuristic_losses(sol, ("random", "highest", "lowest", "joker"))}
    assert all(r["loss_vs_equilibrium"] >= -1e-9 for r in rows.values())
    assert all(r["vs_best_response"] <= r["vs_equilibrium"] + 1e-9 for r in rows.values())
    assert rows["highest"]["vs_best_response"] == pytest.approx(0.0)
    assert rows["random"]["vs_equilibrium"] == pytest.approx(5 / 12)


def test_evaluate_random_vs_random_matches_exact_enumeration():
    from workbench.games.dietower.exact import random_play_odds

    rules = Config(suit_size=4, die_faces=3)
    rnd = agent_policy("random", rules)
    odds = random_play_odds(rules)
    assert evaluate(rules, "win", rnd, rnd) == pytest.approx(float(odds.win(0) + odds.draw / 2))
    assert evaluate(rules, "points", rnd, rnd) == pytest.approx(0.0)
    assert _cards(0b1011) == (0, 1, 3)


def test_limits_are_clear_errors():
    with pytest.raises(InputError, match="2 players"):
        solve(Config(players=3, suit_size=2))
    with pytest.raises(InputError, match="reduced decks"):
        solve(Config(suit_size=13))
    with pytest.raises(InputError, match="objective"):
        solve(Config(suit_size=2), "fun")
