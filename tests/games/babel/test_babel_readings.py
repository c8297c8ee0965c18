"""The open readings of Babel's text, one scenario per reading and value (issue 21, item 5).

Each reading is a parameter whose default is what the text allows (``docs/rules/babel.md``, "Parameters and
readings"); the stricter value is what the code played before ``babel-2``.  The text's sentences behind them:
the universal ability makes the opponent "discard half their hand (rounded down in opponent's favour)" — with
one card, nothing; the Medes "choose a nation" — any nation; a move is "discard a Nation card matching the
destination site's colour to move your pawn there" — any site; and "each player must construct their starting
level 1 Temple card on their first turn", with actions "in any order".  Positions come from ``scenario.board``.
"""

from __future__ import annotations

from collections import deque

import pytest

from tests.games.babel.scenario import CONFIG, P1, P2, STRICT, A, H, M, P, S, act, board, counts, legal, nations, stack
from workbench.core.errors import InputError
from workbench.core.model import get_game
from workbench.core.rng import SplitMix64
from workbench.games.babel import rules
from workbench.games.babel.rules import (
    ABILITY,
    BUILD,
    DEPLOY,
    END_TURN,
    MIGRATE,
    MOVE,
    QUARRY,
    START,
    UNIVERSAL,
    Action,
)


# ------------------------------------------------------------------------------- the parameters
@pytest.mark.parametrize(("params", "fields"), [
    ({}, (True, True, True, True)),
    ({"universal_small_hand": "refused"}, (False, True, True, True)),
    ({"medes_absent_nation": "refused"}, (True, False, True, True)),
    ({"move_same_site": "refused"}, (True, True, False, True)),
    ({"first_turn_check": "every_action"}, (True, True, True, False)),
])
def test_each_reading_is_a_parameter_that_switches_one_rule(params, fields):
    model = get_game("babel")
    config = model.make_config(model.resolve_params(params))
    assert (config.universal_small_hand, config.medes_absent, config.move_in_place, config.first_turn_at_end) == fields


def test_a_reading_outside_its_choices_is_refused_by_name():
    model = get_game("babel")
    with pytest.raises(InputError, match=r"first_turn_check.*'at_start' is not allowed; allowed: end_of_turn \| "
                                         r"every_action"):
        model.resolve_params({"first_turn_check": "at_start"})


# ------------------------------------------------------------------- the universal ability, a small hand
@pytest.mark.parametrize("their_hand", ["A", ""])
def test_universal_ability_against_a_hand_under_two_spends_the_run_card_and_discards_nothing(their_hand):
    state = board(hands=("", their_hand), stacks={(P1, A): "HHHM"})
    after = act(state, UNIVERSAL, H)  # the text: half of 1 (or 0) rounded down is 0
    assert after.pending == 0 and rules.actor(after) == P1  # nothing owed: the player goes on
    assert after.hands[P2] == counts(their_hand) and stack(after, P1, A) == "HHM"
    assert after.discard[-1:] == nations("H") and after.tallies[P1][rules.T_UNIVERSAL] == 1


def test_universal_ability_against_a_hand_under_two_is_refused_by_the_stricter_reading():
    state = board(hands=("", "A"), stacks={(P1, A): "HHH"})
    assert Action(UNIVERSAL, H) not in legal(state, STRICT)
    with pytest.raises(InputError, match="the opponent holds fewer than 2 cards"):
        rules.apply(STRICT, state, Action(UNIVERSAL, H))
    assert Action(UNIVERSAL, H) in legal(board(hands=("", "AH"), stacks={(P1, A): "HHH"}), STRICT)


# ------------------------------------------------------------------- the Medes naming an absent nation
def test_medes_may_name_a_nation_the_opponent_has_none_of_here():
    state = board(stacks={(P1, A): "MMMS", (P2, A): "AAP"})
    assert {a for a in legal(state) if a.kind == ABILITY} == {Action(ABILITY, M, n) for n in range(5)}
    after = act(state, ABILITY, M, S)  # no Sumerians of theirs here: they lose nothing
    assert stack(after, P2, A) == "AAP" and stack(after, P1, A) == "MMS"
    assert after.discard[-1:] == nations("M") and after.tallies[P1][M] == 1


def test_medes_naming_an_absent_nation_is_refused_by_the_stricter_reading():
    state = board(stacks={(P1, A): "MMMS", (P2, A): "AAP"})
    assert {a for a in legal(state, STRICT) if a.kind == ABILITY} == {Action(ABILITY, M, A), Action(ABILITY, M, P)}
    with pytest.raises(InputError, match="the opponent has no Sumerians card here"):
        rules.apply(STRICT, state, Action(ABILITY, M, S))


# ---------------------------------------------------------------------- a move to the pawn's own site
def test_a_move_to_the_site_the_pawn_stands_on_spends_a_card_of_its_colour():
    state = board(hands=("MMH", ""), pawns=(M, A))
    after = act(state, MOVE, M)
    assert after.pawns == (M, A) and after.hands[P1] == counts("MH") and after.discard[-1:] == nations("M")
    assert after.tallies[P1][rules.T_MOVES] == 1
    assert Action(MOVE, M) not in legal(board(hands=("H", ""), pawns=(M, A)))  # still a card of its colour


def test_a_move_to_the_pawns_own_site_is_refused_by_the_stricter_reading():
    state = board(hands=("MMH", ""), pawns=(M, A))
    assert {a for a in legal(state, STRICT) if a.kind == MOVE} == {Action(MOVE, H)}
    with pytest.raises(InputError, match="the pawn already stands there"):
        rules.apply(STRICT, state, Action(MOVE, M))


# --------------------------------------------------------------------------------- the first turn
def _second_player_first_turn(hand: str) -> rules.GameState:
    """p2's first turn (turn 2): p1's temple stack holds a 3 and a 1 (the 1 on top), p2 at site A with one card."""
    return board(hands=("", hand), current=P2, turn=2, start_cards=(0, 1), pawns=(A, A), stacks={(P2, A): "H"},
                 temples={(P1, A): (1,)}, temple_stacks=((3, 1), ()))


def test_building_from_a_temple_stack_before_the_start_card_is_legal_by_the_text():
    state = _second_player_first_turn("MS")
    assert Action(BUILD, P1) in legal(state)
    after = act(act(act(act(state, BUILD, P1), MOVE, M), DEPLOY, S), BUILD, START)
    assert after.temples[P2][A] == (1,) and after.temples[P2][M] == (1,) and after.start_cards == (0, 0)
    assert after.tallies[P2][rules.T_BUILDS] == 2 and Action(END_TURN) in legal(after)


def test_a_build_before_the_start_card_that_leaves_it_no_site_is_refused():
    state = _second_player_first_turn("M")  # after the build one card is left: a move, but nothing to deploy
    assert Action(BUILD, P1) not in legal(state) and Action(BUILD, START) in legal(state)
    with pytest.raises(InputError, match="the start level-1 card could no longer be built this turn"):
        rules.apply(CONFIG, state, Action(BUILD, P1))


def test_building_from_a_temple_stack_before_the_start_card_is_refused_at_every_action():
    state = _second_player_first_turn("MS")
    assert Action(BUILD, P1) not in legal(state, STRICT)
    with pytest.raises(InputError, match="the first build must be the start level-1 card"):
        rules.apply(STRICT, state, Action(BUILD, P1))


def _last_card_move() -> rules.GameState:
    """p1's first turn: three own cards at site A, the pawn there, one Medes card in hand."""
    return board(hands=("M", ""), stacks={(P1, A): "AHP"}, start_cards=(1, 1), turn=1, pawns=(A, QUARRY))


def test_a_move_that_spends_the_last_card_is_legal_while_a_migration_can_still_feed_the_start_build():
    state = _last_card_move()
    assert Action(MOVE, M) in legal(state)
    moved = act(state, MOVE, M)
    assert sum(moved.hands[P1]) == 0 and legal(moved) == {Action(MIGRATE, A, M)}  # the one way left
    built = act(act(moved, MIGRATE, A, M), BUILD, START)
    assert built.temples[P1][M] == (1,) and stack(built, P1, M) == "AHP" and Action(END_TURN) in legal(built)
    # once the migration is spent, the same move would strand the start card
    assert Action(MOVE, M) not in legal(state._replace(migrated=True))


def test_a_move_that_spends_the_last_card_is_refused_at_every_action():
    state = _last_card_move()
    assert Action(MOVE, M) not in legal(state, STRICT) and Action(BUILD, START) in legal(state, STRICT)
    with pytest.raises(InputError, match="the start level-1 card could no longer be built this turn"):
        rules.apply(STRICT, state, Action(MOVE, M))


@pytest.mark.parametrize("config", [CONFIG, STRICT], ids=["end_of_turn", "every_action"])
def test_the_turn_never_ends_with_the_start_card_in_hand(config):
    state = board(hands=("AH", ""), start_cards=(1, 1), turn=1, pawns=(QUARRY, QUARRY))
    assert Action(END_TURN) not in legal(state, config)
    with pytest.raises(InputError, match="the start level-1 card must be built this turn"):
        rules.apply(config, state, Action(END_TURN))


# --------------------------------------- the end-of-turn test is exact: a search over the plain rules agrees
_PLAN = tuple(Action(MOVE, s) for s in range(5)) + tuple(Action(DEPLOY, n) for n in range(5)) + tuple(
    Action(MIGRATE, f, t) for f in range(5) for t in range(5) if f != t)


def _own_rule_allows(state: rules.GameState, action: Action) -> bool:
    """The action's own rule only (no first-turn obligation): what the search may use to reach the start build."""
    return rules._CHECKS[action.kind](CONFIG, state, action) is None


def _start_card_can_be_built(state: rules.GameState) -> bool:
    """Breadth-first over moves, deploys and migrations (3 steps at most): does the start build become legal?"""
    frontier, seen = deque([(state, 0)]), {state}
    while frontier:
        here, depth = frontier.popleft()
        if _own_rule_allows(here, Action(BUILD, START)):
            return True
        if depth == 3:
            continue
        for action in _PLAN:
            if _own_rule_allows(here, action):
                nxt = rules.apply(CONFIG, here, action, check=False)._replace(tallies=state.tallies, actions=0)
                if nxt not in seen:
                    seen.add(nxt)
                    frontier.append((nxt, depth + 1))
    return False


def _random_first_turn(rng: SplitMix64) -> rules.GameState:
    """A p1 first-turn position: 0-2 hand cards, own stacks of 0-3 cards, some own temples, maybe no migration left."""
    hand = "".join(rules.LETTERS[rng.below(5)] for _ in range(rng.below(3)))
    stacks = {(P1, site): "".join(rules.LETTERS[rng.below(5)] for _ in range(rng.below(5) % 4))
              for site in range(5) if rng.below(2)}
    temples = {(P1, site): (1,) for site in range(5) if rng.below(4) == 0}
    pawn = rng.below(6)  # 5: the quarry
    return board(hands=(hand, ""), stacks=stacks, temples=temples, pawns=(pawn, QUARRY), start_cards=(1, 1), turn=1,
                 migrated=bool(rng.below(2)))


def test_start_reachable_agrees_with_a_search_over_the_plain_rules():
    rng = SplitMix64(2024)
    answers = []
    for _ in range(150):
        state = _random_first_turn(rng)
        expected = _start_card_can_be_built(state)
        assert rules.start_reachable(state, P1) == expected, state
        answers.append(expected)
    assert 30 < sum(answers) < 120  # both answers are well represented
