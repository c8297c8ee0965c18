"""Hand-traced scenarios: one row per rule sentence / clarification / variant (``docs/rules/dietower.md``).

Cards: with the full suit, rank 0 is the 2 and rank 12 the Ace; ``J`` is the Joker (code 13).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.errors import InputError
from workbench.games.dietower.rules import (
    Config,
    Outcome,
    State,
    apply,
    initial_state,
    is_over,
    legal_cards,
    resolve_round,
    result,
)

R2 = Config(players=2)
R3 = Config(players=3)
R3_KEEP = Config(players=3, nonbuilder_tie="keep")
R4 = Config(players=4)
J = 13
NONE = -1

# (rules, builder before, die before, cards) -> Outcome(builder, die, scorer, points, six_win, took)
SCENARIOS = [
    # "The person with the highest card becomes the Builder ... with the number 1 showing" (no score)
    ("first highest card takes the die at 1", R2, NONE, 0, (5, 9), Outcome(1, 1, -1, 0, False, True)),
    # "If the Builder wins the round, they earn points equal to the number on the die ... increase"
    ("builder wins: scores the die and raises it", R2, 0, 1, (9, 5), Outcome(0, 2, 0, 1, False, False)),
    ("builder wins again with die 2: scores 2", R2, 0, 2, (12, 0), Outcome(0, 3, 0, 2, False, False)),
    # "tie ... I emerge victorious as the Builder ... earn the points ... increase its value"
    ("tie including the builder favours the builder", R2, 1, 3, (7, 7), Outcome(1, 4, 1, 3, False, False)),
    ("3p: builder among several highest still wins", R3, 2, 2, (7, 3, 7), Outcome(2, 3, 2, 2, False, False)),
    # "if there's a tie and the die is in the middle of the table, no one becomes the Builder"
    ("tie with the die in the centre: nobody", R2, NONE, 0, (4, 4), Outcome(NONE, 0, -1, 0, False, False)),
    ("3p tie for highest, die in centre: nobody", R3, NONE, 0, (9, 9, 2), Outcome(NONE, 0, -1, 0, False, False)),
    # "title ... revoked if someone plays a card of higher value ... resets it back to one"
    ("higher card takes the die from the builder at 1", R2, 0, 4, (3, 10), Outcome(1, 1, -1, 0, False, True)),
    ("3p: single highest non-builder takes the die", R3, 0, 5, (8, 11, 2), Outcome(1, 1, -1, 0, False, True)),
    # "if only one Joker card is played, I lose my title ... die is returned to the center"
    ("one Joker with a builder: die to the centre", R2, 0, 3, (12, J), Outcome(NONE, 0, -1, 0, False, False)),
    ("one Joker played by the builder: centre", R2, 0, 3, (J, 2), Outcome(NONE, 0, -1, 0, False, False)),
    ("one Joker without a builder: nothing", R2, NONE, 0, (J, 12), Outcome(NONE, 0, -1, 0, False, False)),
    ("3p one Joker: highest card does not take the die", R3, NONE, 0, (J, 12, 3),
     Outcome(NONE, 0, -1, 0, False, False)),
    # "if multiple Joker cards are played, it's a tie, and I come out on top"
    ("two Jokers, builder among them: builder scores", R2, 1, 2, (J, J), Outcome(1, 3, 1, 2, False, False)),
    ("two Jokers, builder not among them: builder scores", R3, 2, 4, (J, J, 0), Outcome(2, 5, 2, 4, False, False)),
    ("three Jokers with a builder: builder scores", R3, 0, 1, (J, J, J), Outcome(0, 2, 0, 1, False, False)),
    ("two Jokers without a builder: nothing", R2, NONE, 0, (J, J), Outcome(NONE, 0, -1, 0, False, False)),
    ("3p two Jokers, no builder: the card does not take the die", R3, NONE, 0, (J, 5, J),
     Outcome(NONE, 0, -1, 0, False, False)),
    # clarification: several non-Builders tie for highest -> centre (variant keep: unscored)
    ("non-builder tie: die to the centre", R3, 0, 3, (2, 9, 9), Outcome(NONE, 0, -1, 0, False, False)),
    ("non-builder tie, variant keep: builder keeps it unscored", R3_KEEP, 0, 3, (2, 9, 9),
     Outcome(0, 3, -1, 0, False, False)),
    ("4p non-builder tie of three", R4, 3, 2, (6, 6, 6, 1), Outcome(NONE, 0, -1, 0, False, False)),
    # "if a player manages to secure a win with the six showing on the die, the game concludes"
    ("six-win: builder wins with 6 showing (not scored)", R2, 0, 6, (11, 3), Outcome(0, 6, 0, 0, True, False)),
    ("six-win by a tie", R2, 1, 6, (4, 4), Outcome(1, 6, 1, 0, True, False)),
    ("six-win by two Jokers", R2, 1, 6, (J, J), Outcome(1, 6, 1, 0, True, False)),
    ("six-win variant scores the 6", Config(six_win_scores=True), 0, 6, (11, 3), Outcome(0, 6, 0, 6, True, False)),
    ("die_faces=3: the top face is 3", Config(die_faces=3), 0, 3, (5, 1), Outcome(0, 3, 0, 0, True, False)),
    ("die_faces=8: 6 is an ordinary face", Config(die_faces=8), 0, 6, (5, 1), Outcome(0, 7, 0, 6, False, False)),
    ("losing with 6 showing is no six-win", R2, 0, 6, (1, 5), Outcome(1, 1, -1, 0, False, True)),
]


@pytest.mark.parametrize("name, rules, builder, die, cards, expected", SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_round_resolution(name, rules, builder, die, cards, expected):
    assert resolve_round(rules, builder, die, cards) == expected


def _play(rules, rounds):
    state = initial_state(rules)
    for cards in rounds:
        state = apply(rules, state, cards)
    return state


def test_a_traced_two_player_game_scores_and_streaks():
    # suit of 4 (ranks 0..3) + Joker (4): 5 rounds
    rules = Config(suit_size=4)
    state = _play(rules, [(3, 0), (2, 1), (4, 2), (1, 3), (0, 4)])
    # r1 p1 takes the die at 1; r2 p1 scores 1 (die 2); r3 one Joker -> centre;
    # r4 p2 takes the die; r5 one Joker -> centre.
    assert state.scores == (1, 0) and state.builder == -1 and state.round == 5
    assert state.longest == (1, 0) and state.builder_changes == 2 and state.hands == (0, 0)
    assert is_over(rules, state)
    res = result(rules, state)
    assert res.winners == (0,) and res.reason == "score" and res.length == 5 and res.six_win_round is None


def test_streak_to_a_six_win_ends_the_game_at_once():
    rules = Config()  # die 1..6: take, then 5 scoring wins (1+2+3+4+5) and the win on the 6
    state = _play(rules, [(12, 0), (11, 1), (10, 2), (9, 3), (8, 4), (7, 5)])
    assert state.scores == (15, 0) and state.die == 6 and state.streak == 5
    state = apply(rules, state, (6, 7))  # p2's 7 beats p1's 6: no six-win, p2 takes the die
    assert state.builder == 1 and state.die == 1 and state.six_winner == -1
    state = _play(rules, [(12, 0), (11, 1), (10, 2), (9, 3), (8, 4), (7, 5), (6, 6)])
    assert state.six_winner == 0 and state.round == 7 and is_over(rules, state)
    assert state.scores == (15, 0) and state.longest == (6, 0)
    res = result(rules, state)
    assert res.winners == (0,) and res.reason == "six_win" and res.six_win_round == 7
    with pytest.raises(InputError, match="game is over"):
        apply(rules, state, (5, 8))


def test_six_win_wins_even_with_fewer_points():
    rules = Config(suit_size=7, die_faces=2)  # ranks 0..6, Joker 7
    # r1 p2 takes; r2 p2 scores 1; r3 p1 takes; r4 p2 takes; r5 tie: p2 scores 1; r6 p1 takes;
    # r7 p1 scores 1 (die 2); r8 two Jokers: p1 wins on the top face -> six-win, unscored
    state = _play(rules, [(0, 6), (1, 5), (6, 0), (2, 4), (3, 3), (5, 1), (4, 2), (7, 7)])
    assert state.six_winner == 0 and state.scores == (1, 2) and state.builder_changes == 4
    assert result(rules, state).winners == (0,) and result(rules, state).six_win_round == 8


def test_equal_highest_scores_are_a_shared_draw():
    rules = Config(players=3, suit_size=4)
    # p1 takes, scores 1; p2 takes; p3 takes; three Jokers: a tie favouring the Builder p3 (scores 1)
    state = _play(rules, [(3, 0, 1), (2, 1, 0), (0, 3, 2), (1, 2, 3), (4, 4, 4)])
    assert state.scores == (1, 0, 1)
    res = result(rules, state)
    assert res.winners == (0, 2) and res.reason == "draw" and res.six_win_round is None


def test_draw_result():
    rules = Config(suit_size=2)
    state = _play(rules, [(1, 0), (0, 1), (2, 2)])  # p1 takes; p2 takes; two Jokers: p2 scores 1
    assert state.scores == (0, 1)
    state = _play(rules, [(0, 0), (1, 1), (2, 2)])  # ties in the centre, then two Jokers: nobody
    res = result(rules, state)
    assert state.scores == (0, 0) and res.winners == (0, 1) and res.reason == "draw"


def test_four_players_have_four_jokers_and_suits():
    rules = Config(players=4)
    state = initial_state(rules)
    assert len(state.hands) == 4 and all(legal_cards(rules, h) == tuple(range(14)) for h in state.hands)
    assert rules.rounds == 14


def test_illegal_cards_are_clear_errors_and_states_are_immutable():
    rules = Config(suit_size=3)
    state = initial_state(rules)
    after = apply(rules, state, (2, 1))
    assert state == initial_state(rules) and isinstance(after, State)
    with pytest.raises(InputError, match="p1 cannot play card 2"):
        apply(rules, after, (2, 0))
    with pytest.raises(InputError, match="3 cards played for 2 players"):
        apply(rules, after, (0, 0, 0))


@settings(max_examples=int(os.environ.get("DIETOWER_HYPOTHESIS_EXAMPLES", "60")), deadline=None)
@given(st.data(), st.integers(2, 4), st.integers(2, 6), st.integers(2, 4), st.sampled_from(["centre", "keep"]))
def test_any_legal_play_keeps_the_invariants(data, players, suit, faces, tie):
    rules = Config(players=players, suit_size=suit, die_faces=faces, nonbuilder_tie=tie)
    state = initial_state(rules)
    while not is_over(rules, state):
        cards = tuple(data.draw(st.sampled_from(legal_cards(rules, h))) for h in state.hands)
        before = state
        state = apply(rules, state, cards)
        assert all(b <= a for b, a in zip(before.scores, state.scores, strict=True))  # scores never fall
        assert sum(state.scores) - sum(before.scores) <= faces
        assert 0 <= state.die <= faces and (state.die == 0) == (state.builder == -1)
        assert all(bin(h).count("1") == rules.rounds - state.round for h in state.hands)
    assert state.round <= rules.rounds
