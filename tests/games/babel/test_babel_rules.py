"""One scenario per rule sentence of Babel: a hand-built position, one action, the asserted position.

Sources: the rules as implemented, ``docs/rules/babel.md`` (the text's rules and the project's readings);
the decisions where both are silent are listed in ``workbench/games/babel/rules.py``.
Positions come from ``scenario.board`` (letters: A Assyrians, H Hittites, M Medes, P Persians,
S Sumerians; stacks bottom → top; site X is the site in nation X's colour).
"""

from __future__ import annotations

from collections import Counter

import pytest

from tests.games.babel.scenario import (
    CONFIG,
    P1,
    P2,
    STRICT,
    A,
    H,
    M,
    P,
    S,
    act,
    board,
    counts,
    legal,
    nations,
    stack,
)
from workbench.core.errors import InputError
from workbench.core.rng import SplitMix64
from workbench.games.babel import rules
from workbench.games.babel.model import MODEL
from workbench.games.babel.rules import (
    ABILITY,
    BUILD,
    DEPLOY,
    DISCARD,
    END_TURN,
    MIGRATE,
    MOVE,
    QUARRY,
    START,
    UNIVERSAL,
    Action,
)


# ------------------------------------------------------------------------------------------ setup
def test_components_and_setup():
    cfg = MODEL.make_config(MODEL.resolve_params({"first": "p2"}))
    state = MODEL.initial_state(cfg, 3)
    assert Counter(rules.quarry_cards()) == {1: 8, 2: 9, 3: 8, 4: 7, 5: 6, 6: 5}  # 45 cards less 2 start L1s
    assert len(state.quarry) == 43 and state.start_cards == (1, 1)
    assert Counter(rules.nation_deck()) == {n: 12 for n in range(5)}
    assert state.first == state.current == P2 and state.turn == 1
    # the start player drew 3 at setup and 3 in phase 1; the other 5
    assert rules.hand_size(state, P2) == 6 and rules.hand_size(state, P1) == 5
    assert len(state.draw_pile) == 60 - 11 and state.pawns == (QUARRY, QUARRY)
    assert state.temple_stacks == ((), ()) and all(not s for seat in state.stacks for s in seat)
    assert MODEL.invariants(cfg, state) == []


def test_start_hands_variant_and_first_player():
    cfg = MODEL.make_config(MODEL.resolve_params({"start_hands": "5/5", "first": "p1"}))
    state = MODEL.initial_state(cfg, 3)
    assert (rules.hand_size(state, P1), rules.hand_size(state, P2)) == (8, 5)
    firsts = Counter(MODEL.initial_state(MODEL.make_config(MODEL.resolve_params()), s).first for s in range(200))
    assert 70 < firsts[0] < 130  # stream 5 picks the first player at random


def test_the_deal_is_the_deck_streams_shuffle():
    cfg = rules.Config(first="p1")
    state = rules.new_game(cfg, P1, 99, 5)
    pile = SplitMix64(99).shuffle(rules.nation_deck())
    # top = last: p1 takes 3, p2 takes 5, then p1 draws 3 for turn 1
    assert state.hands[P1] == counts("".join(rules.LETTERS[n] for n in pile[-3:] + pile[-11:-8]))
    assert state.hands[P2] == counts("".join(rules.LETTERS[n] for n in pile[-8:-3]))
    assert state.quarry == tuple(SplitMix64(5).shuffle(rules.quarry_cards()))


def test_initial_state_deals_from_the_game_seeds_deck_and_quarry_streams():
    state = rules.initial_state(rules.Config(first="p2"), 7)
    pile = SplitMix64.for_stream(7, 1).shuffle(rules.nation_deck())  # stream 1: the nation deck
    # top = last: p2 (start player) takes 3, p1 takes 5, then p2 draws 3 for turn 1
    assert state.hands[P2] == counts("".join(rules.LETTERS[n] for n in pile[-3:] + pile[-11:-8]))
    assert state.hands[P1] == counts("".join(rules.LETTERS[n] for n in pile[-8:-3]))
    assert state.quarry == tuple(SplitMix64.for_stream(7, 2).shuffle(rules.quarry_cards()))  # stream 2: the quarry
    assert (state.first, state.current, state.turn) == (P2, P2, 1)


def test_unchecked_apply_gives_the_checked_result_for_every_legal_action():
    state = board(hands=("AAMPP", "HS"), stacks={(P1, A): "PPP"}, pawns=(A, M))
    options = rules.legal_actions(CONFIG, state)
    assert len(options) > 5
    for action in options:
        assert rules.apply(CONFIG, state, action, check=False) == rules.apply(CONFIG, state, action)
    with pytest.raises(InputError, match="no Sumerians card in hand"):
        rules.apply(CONFIG, state, Action(DEPLOY, S))
    rules.apply(CONFIG, state, Action(DEPLOY, S), check=False)  # the agents' fast path does not check


# -------------------------------------------------------------------------------------- phase 1/3
def test_phase_1_draws_three_nation_cards_for_the_next_player():
    state = board(hands=("", "A"), draw_pile="AHMPS", pawns=(A, A))
    after = act(state, END_TURN)
    assert after.current == P2 and after.turn == 6
    assert after.hands[P2] == counts("AMPS") and after.draw_pile == nations("AH")


def test_empty_draw_pile_reshuffles_the_discard_pile_from_the_deck_stream():
    state = board(draw_pile="S", discard="AAHMP")
    assert len(state.discard) == 59 and state.discard[-5:] == nations("AAHMP")
    after = act(state, END_TURN)
    rng = SplitMix64(state.deck_rng)
    new_pile = rng.shuffle(list(state.discard))
    assert after.discard == () and after.deck_rng == rng.state
    assert after.hands[P2] == counts("S" + "".join(rules.LETTERS[n] for n in new_pile[-2:]))
    assert after.draw_pile == tuple(new_pile[:-2])


def test_nothing_to_draw_when_both_piles_are_empty():
    state = board(hands=("", ""), stacks={(P1, A): "A" * 12 + "H" * 12 + "M" * 12, (P2, H): "P" * 12 + "S" * 11},
                  draw_pile="S", discard="")
    after = act(state, END_TURN)
    assert after.hands[P2] == counts("S") and after.draw_pile == ()


@pytest.mark.parametrize("top_two", [(5, 2), (2, 5)])
def test_phase_3_draws_two_temple_cards_lower_on_top(top_two):
    state = board(temple_stacks=((3,), ()), quarry=top_two)
    after = act(state, END_TURN)
    assert after.temple_stacks[P1] == (3, 5, 2)  # the lower card on top
    assert len(after.quarry) == len(state.quarry) - 2


def test_hand_of_four_or_more_is_announced_and_the_opponent_sees_only_sizes():
    after = act(board(hands=("AAHM", "")), END_TURN)
    assert after.announced == (4, 0)
    assert act(board(hands=("AAH", "")), END_TURN).announced == (0, 0)
    view = MODEL.observation(CONFIG, after, P2)
    assert view.announced == (4, 0) and view.enemy_hand == 4
    assert view.draw_size == len(after.draw_pile) and view.quarry_size == len(after.quarry)
    assert not hasattr(view, "hands") and not hasattr(view, "draw_pile") and not hasattr(view, "quarry")


# ------------------------------------------------------------------------------------------- move
def test_move_discards_a_card_of_the_target_sites_colour():
    state = board(hands=("MH", ""), pawns=(QUARRY, QUARRY))
    after = act(state, MOVE, M)  # the first move is from the quarry
    assert after.pawns == (M, QUARRY) and after.hands[P1] == counts("H") and after.discard == nations("M")
    assert after.tallies[P1][rules.T_MOVES] == 1
    assert Action(MOVE, P) not in legal(after)  # no Persian card
    assert Action(MOVE, M) not in legal(after, STRICT)  # already there: refused by the stricter reading only
    assert Action(MOVE, H) in legal(after)


def test_both_pawns_may_share_a_site():
    after = act(board(hands=("S", ""), pawns=(A, S)), MOVE, S)
    assert after.pawns == (S, S)


def test_the_pawn_never_returns_to_the_quarry():
    state = board(hands=("AHMPS", ""), pawns=(A, A))
    assert {a for a in legal(state) if a.kind == MOVE} == {Action(MOVE, s) for s in (A, H, M, P, S)}
    assert {a for a in legal(state, STRICT) if a.kind == MOVE} == {Action(MOVE, s) for s in (H, M, P, S)}
    with pytest.raises(InputError, match="site 5 does not exist"):
        rules.apply(CONFIG, state, Action(MOVE, QUARRY))


# ----------------------------------------------------------------------------------------- deploy
def test_deploy_one_card_on_top_at_the_pawns_site():
    state = board(hands=("MMP", ""), stacks={(P1, H): "A"}, pawns=(H, A))
    after = act(act(state, DEPLOY, M), DEPLOY, P)
    assert stack(after, P1, H) == "AMP" and after.hands[P1] == counts("M")


def test_no_deploy_from_the_quarry_or_without_the_card():
    assert not {a for a in legal(board(hands=("MM", ""), pawns=(QUARRY, A))) if a.kind == DEPLOY}
    assert {a for a in legal(board(hands=("MM", ""))) if a.kind == DEPLOY} == {Action(DEPLOY, M)}


# -------------------------------------------------------------------------------------- construct
def test_build_takes_the_top_of_either_temple_stack_in_sequence():
    state = board(stacks={(P1, A): "HH"}, temples={(P1, A): (1,)}, temple_stacks=((4, 2), (3, 2)))
    after = act(state, BUILD, P2)  # the opponent's stack
    assert after.temples[P1][A] == (1, 2) and after.temple_stacks == ((4, 2), (3,))
    assert after.tallies[P1][rules.T_BUILDS] == 1
    assert Action(BUILD, P1) not in legal(after)  # level 2 on a level-2 temple: out of sequence


def test_level_one_on_an_empty_site_and_no_skipping():
    state = board(stacks={(P1, A): "HHH"}, temple_stacks=((3,), (1,)))
    assert legal(state) >= {Action(BUILD, P2)} and Action(BUILD, P1) not in legal(state)
    with pytest.raises(InputError, match=r"build from p1's stack for p1: the card is level 3, the temple here needs "
                                         r"level 1"):
        rules.apply(CONFIG, state, Action(BUILD, P1))


def test_build_needs_as_many_own_nation_cards_as_the_level():
    state = board(stacks={(P1, A): "HH", (P2, A): "AAAAAA"}, temples={(P1, A): (1, 2)}, temple_stacks=((3,), ()))
    with pytest.raises(InputError, match="level 3 needs 3 own nation cards here, there are 2"):
        rules.apply(CONFIG, state, Action(BUILD, P1))
    after = act(act(board(hands=("S", ""), stacks={(P1, A): "HH"}, temples={(P1, A): (1, 2)},
                          temple_stacks=((3,), ())), DEPLOY, S), BUILD, P1)
    assert after.temples[P1][A] == (1, 2, 3)


def test_built_levels_stay_when_nation_cards_leave():
    state = board(stacks={(P1, A): "HHH"}, temples={(P1, A): (1, 2)}, temple_stacks=((3,), ()))
    after = act(act(state, BUILD, P1), MIGRATE, A, M)
    assert stack(after, P1, A) == "" and after.temples[P1][A] == (1, 2, 3)


# ---------------------------------------------------------------------------------------- migrate
def test_migrate_moves_exactly_the_top_three_in_order():
    state = board(stacks={(P1, A): "SAHM", (P1, P): "P"}, pawns=(S, A))  # the pawn need not be at either site
    after = act(state, MIGRATE, A, P)
    assert stack(after, P1, A) == "S" and stack(after, P1, P) == "PAHM"
    assert after.migrated and after.tallies[P1][rules.T_MIGRATIONS] == 1


def test_migrate_once_per_turn_and_never_fewer_than_three():
    state = board(stacks={(P1, A): "SAHMPS", (P1, H): "AH"})
    after = act(state, MIGRATE, A, P)
    assert not any(a.kind == MIGRATE for a in legal(after))
    with pytest.raises(InputError, match="migration is once per turn"):
        rules.apply(CONFIG, after, Action(MIGRATE, A, M))
    assert Action(MIGRATE, H, A) not in legal(state)  # two cards only
    next_turn = act(act(after, END_TURN), END_TURN)
    assert not next_turn.migrated and Action(MIGRATE, A, M) in legal(next_turn)


# --------------------------------------------------------------------------------------- abilities
@pytest.mark.parametrize(("letters", "run_any", "usable"), [
    ("AAAH", True, True), ("AAAH", False, False), ("HAAA", False, True), ("HAAA", True, True),
    ("AAHA", True, False), ("AAMAAMA", True, False),
])
def test_run_detection_any_or_top(letters, run_any, usable):
    state = board(stacks={(P1, A): letters}, temples={(P2, A): (1,)})
    cfg = CONFIG._replace(run_any=run_any)
    assert (Action(ABILITY, A) in legal(state, cfg)) is usable


def test_run_detection_is_a_model_parameter():
    assert MODEL.make_config(MODEL.resolve_params({"run_detection": "top"})).run_any is False
    assert MODEL.make_config(MODEL.resolve_params()).run_any is True


def test_an_ability_discards_one_card_of_the_topmost_run_and_a_run_of_four_works_twice():
    state = board(stacks={(P1, A): "MMMMSMMM", (P2, A): "AAAAAA"})
    once = act(state, ABILITY, M, A)
    assert stack(once, P1, A) == "MMMMSMM" and once.discard[-7:] == nations("MAAAAAA") and once.tallies[P1][M] == 1
    assert Action(ABILITY, M, H) in legal(once)  # the run of four below still pays; naming an absent nation is legal
    assert Action(ABILITY, M, H) not in legal(once, STRICT)  # ... except by the stricter reading
    four = board(stacks={(P1, A): "SSSS", (P2, A): "AHMH"})
    twice = act(act(four, ABILITY, S), ABILITY, S)  # takes the Hittites, then the Medes
    assert stack(twice, P1, A) == "SSHHM" and stack(twice, P2, A) == "A" and twice.tallies[P1][S] == 2
    assert not any(a.kind == ABILITY for a in legal(twice))  # the run is down to 2


def test_abilities_only_at_the_pawns_site():
    state = board(stacks={(P1, M): "AAA"}, temples={(P2, M): (1,)}, pawns=(A, A))
    assert Action(ABILITY, A) not in legal(state)
    assert Action(ABILITY, A) in legal(state._replace(pawns=(M, A)))


def test_assyrians_destroy_the_whole_temple_onto_the_quarry_highest_at_the_bottom():
    state = board(stacks={(P1, H): "AAA"}, temples={(P2, H): (1, 2, 3, 4)}, pawns=(H, A))
    after = act(state, ABILITY, A)
    assert after.temples[P2][H] == () and after.quarry[-4:] == (4, 3, 2, 1)  # top = last
    assert len(after.quarry) == len(state.quarry) + 4 and after.tallies[P1][A] == 1
    drawn = act(after, END_TURN)
    assert drawn.temple_stacks[P1] == (2, 1)  # the destroyed cards come back first


def test_assyrians_need_a_temple_to_destroy():
    state = board(stacks={(P1, A): "AAA"})
    with pytest.raises(InputError, match="the opponent has no temple here to destroy"):
        rules.apply(CONFIG, state, Action(ABILITY, A))


def test_hittites_steal_onto_an_empty_site_counting_the_discarded_hittite():
    state = board(stacks={(P1, A): "HHH"}, temples={(P2, A): (1, 2, 3)})
    after = act(state, ABILITY, H)
    assert after.temples[P1][A] == (3,) and after.temples[P2][A] == (1, 2)  # sequence rule skipped
    assert stack(after, P1, A) == "HH"


@pytest.mark.parametrize(("mine", "theirs", "cards", "why"), [
    ((), (1, 2, 3, 4), "HHH", "stealing level 4 needs 4 own nation cards here"),
    ((1, 2, 3), (1, 2, 3), "HHHHH", r"the stolen card \(level 3\) must be higher than the own temple here"),
    ((1, 2, 3), (), "HHHHH", "the opponent has no temple here to steal from"),
])
def test_hittite_conditions(mine, theirs, cards, why):
    state = board(stacks={(P1, A): cards}, temples={(P1, A): mine, (P2, A): theirs})
    with pytest.raises(InputError, match=why):
        rules.apply(CONFIG, state, Action(ABILITY, H))


def test_hittites_steal_a_higher_card_onto_an_own_temple():
    state = board(stacks={(P1, A): "AHHHH"}, temples={(P1, A): (1, 2), (P2, A): (1, 2, 3, 5)})
    after = act(state, ABILITY, H)
    assert after.temples[P1][A] == (1, 2, 5) and after.temples[P2][A] == (1, 2, 3)


def test_medes_make_the_opponent_discard_every_card_of_the_named_nation_here():
    state = board(stacks={(P1, A): "MMMA", (P2, A): "AMAPA", (P2, H): "AAA"})
    after = act(state, ABILITY, M, A)
    assert stack(after, P2, A) == "MP" and stack(after, P1, A) == "MMA" and stack(after, P2, H) == "AAA"
    assert after.discard == nations("MAAA")
    assert Action(ABILITY, M, H) not in legal(state, STRICT)  # no Hittite of theirs here: the stricter reading


def test_persians_build_two_levels_up_with_the_discarded_persian_counting():
    state = board(stacks={(P1, A): "PPP"}, temples={(P1, A): (1,)}, temple_stacks=((2,), (4, 3)))
    assert Action(ABILITY, P, P1) not in legal(state)  # level 2 is one level up
    after = act(state, ABILITY, P, P2)
    assert after.temples[P1][A] == (1, 3) and after.temple_stacks[P2] == (4,) and stack(after, P1, A) == "PP"
    empty = board(stacks={(P1, A): "PPP"}, temple_stacks=((2,), ()))
    assert act(empty, ABILITY, P, P1).temples[P1][A] == (2,)  # level 2 on an empty site


def test_persians_keep_the_count_rule():
    state = board(stacks={(P1, A): "PPP"}, temples={(P1, A): (1, 2)}, temple_stacks=((4,), ()))
    with pytest.raises(InputError, match="level 4 needs 4 own nation cards here, there are 3"):
        rules.apply(CONFIG, state, Action(ABILITY, P, P1))


def test_sumerians_take_every_card_of_the_nation_of_the_opponents_top_card_in_order():
    state = board(stacks={(P1, A): "HSSS", (P2, A): "AMSAHA"})
    after = act(state, ABILITY, S)
    assert stack(after, P2, A) == "MSH" and stack(after, P1, A) == "HSS" + "AAA"


def test_universal_ability_the_opponent_chooses_half_their_hand_rounded_down():
    state = board(hands=("", "AAHMP"), stacks={(P1, A): "HHH"})
    after = act(state, UNIVERSAL, H)
    assert after.pending == 2 and MODEL.current_player(CONFIG, after) == P2
    assert rules.legal_actions(CONFIG, after) == tuple(Action(DISCARD, n) for n in (A, H, M, P))
    assert MODEL.legal_actions(CONFIG, after, P1) == ()
    with pytest.raises(InputError, match="the opponent first discards 2 more card"):
        rules.apply(CONFIG, after, Action(END_TURN))
    done = act(act(after, DISCARD, P), DISCARD, A)
    assert done.hands[P2] == counts("AHM") and done.pending == 0 and MODEL.current_player(CONFIG, done) == P1
    assert done.tallies[P1][rules.T_UNIVERSAL] == 1 and done.tallies[P2][rules.T_ACTIONS] == 2


def test_universal_ability_against_a_small_hand_and_switched_off():
    state = board(hands=("", "A"), stacks={(P1, A): "HHH"})
    assert Action(UNIVERSAL, H) in legal(state) and Action(UNIVERSAL, H) not in legal(state, STRICT)
    rich = board(hands=("", "AAH"), stacks={(P1, A): "HHH"})
    assert Action(UNIVERSAL, H) in legal(rich)
    assert act(rich, UNIVERSAL, H).pending == 1  # 3 // 2
    assert Action(UNIVERSAL, H) not in legal(rich, CONFIG._replace(universal=False))


# -------------------------------------------------------------------------------------- first turn
def test_first_turn_the_start_card_must_be_built():
    state = board(hands=("AH", "AAHMP"), start_cards=(1, 1), turn=1, pawns=(QUARRY, QUARRY), temple_stacks=((), ()))
    assert Action(END_TURN) not in legal(state)
    with pytest.raises(InputError, match="the start level-1 card must be built this turn"):
        rules.apply(CONFIG, state, Action(END_TURN))
    after = act(act(act(state, MOVE, A), DEPLOY, H), BUILD, START)
    assert after.start_cards == (0, 1) and after.temples[P1][A] == (1,) and Action(END_TURN) in legal(after)


def test_first_build_must_be_the_start_card_when_checked_at_every_action():
    state = board(hands=("", "A"), stacks={(P1, A): "HHH"}, start_cards=(1, 1), turn=1, temple_stacks=((1,), ()),
                  temples={(P2, A): (2,)})
    assert Action(BUILD, P1) not in legal(state, STRICT) and Action(ABILITY, H) not in legal(state, STRICT)
    with pytest.raises(InputError, match="the first build must be the start level-1 card"):
        rules.apply(STRICT, state, Action(BUILD, P1))
    assert Action(BUILD, START) in legal(state, STRICT)
    # by the text (checked at the end of the turn) both builds come before the start card only if it stays
    # buildable: with an empty hand and the pawn's site taken, it would not
    assert Action(BUILD, P1) not in legal(state) and Action(ABILITY, H) not in legal(state)


def test_first_turn_actions_that_would_strand_the_start_card_are_not_legal():
    state = board(hands=("M", ""), stacks={(P1, A): "H"}, start_cards=(1, 1), turn=1)
    assert Action(MOVE, M) not in legal(state)  # at site M with no card and an empty hand
    assert Action(DEPLOY, M) in legal(state)
    two = board(hands=("MA", ""), start_cards=(1, 1), turn=1, pawns=(QUARRY, QUARRY))
    assert legal(two) == {Action(MOVE, M), Action(MOVE, A)}
    assert legal(state, STRICT) == legal(state) and legal(two, STRICT) == legal(two)  # both readings agree here


def test_seeded_games_build_both_start_cards_on_the_first_turns():
    cfg = MODEL.make_config(MODEL.resolve_params())
    for seed in range(20):
        state = MODEL.initial_state(cfg, seed)
        rng = SplitMix64(seed)
        while state.turn <= 2 and state.outcome is None:
            options = rules.legal_actions(cfg, state)
            state = rules.apply(cfg, state, options[rng.below(len(options))])
        assert state.start_cards == (0, 0)
        assert state.tallies[P1][rules.T_BUILDS] >= 1 and state.tallies[P2][rules.T_BUILDS] >= 1


# ----------------------------------------------------------------------------------------- endings
def test_standard_ending_15_against_9():
    temples = {(P1, H): (1, 2, 3, 4, 5, 6), (P1, M): (1, 2, 3, 4, 5), (P1, A): (1, 2, 3), (P2, S): (1, 2, 3, 4, 5, 6),
               (P2, P): (1, 2, 3)}
    state = board(stacks={(P1, A): "HHHH"}, temples=temples, temple_stacks=((4,), ()))
    after = act(state, BUILD, P1)  # 14 → 15 against 9
    assert after.outcome == (P1, rules.STANDARD) and MODEL.current_player(CONFIG, after) < 0


def test_end_phase_begins_at_15_against_10_and_ends_at_20():
    temples = {(P1, H): (1, 2, 3, 4, 5, 6), (P1, M): (1, 2, 3, 4, 5), (P1, A): (1, 2, 3), (P2, S): (1, 2, 3, 4, 5, 6),
               (P2, P): (1, 2, 3, 4)}
    state = board(stacks={(P1, A): "HHHHH", (P1, P): "SSSSS"}, temples=temples, temple_stacks=((5, 4), ()),
                  hands=("P", ""))
    entered = act(state, BUILD, P1)
    assert entered.end_phase and entered.outcome is None  # 15 against 10
    nearly = act(entered, BUILD, P1)  # 16
    assert nearly.outcome is None
    last = board(stacks={(P1, P): "SSSSS"}, temples={**temples, (P1, P): (1, 2, 3)}, temple_stacks=((4,), ()),
                 pawns=(P, A), end_phase=True)  # 17 → 18: still on
    assert act(last, BUILD, P1).outcome is None
    top = board(stacks={(P1, P): "SSSSSS"}, temples={**temples, (P1, P): (1, 2, 3, 4, 5)}, temple_stacks=((6,), ()),
                pawns=(P, A), end_phase=True)  # 19 → 20
    assert act(top, BUILD, P1).outcome == (P1, rules.END_PHASE_20)


def test_end_phase_ends_when_a_player_drops_to_9():
    temples = {(P1, H): (1, 2, 3, 4, 5, 6), (P1, M): (1, 2, 3, 4, 5, 6), (P1, A): (1, 2, 3),
               (P2, S): (1, 2, 3, 4, 5, 6), (P2, A): (1, 2, 3, 4, 5)}
    state = board(stacks={(P1, A): "AAA"}, temples=temples, end_phase=True)  # 15 against 11
    after = act(state, ABILITY, A)  # the opponent drops to 6
    assert after.outcome == (P1, rules.END_PHASE_DROP)


def test_reaching_20_while_entering_the_end_phase_ends_at_once():
    temples = {(P1, H): (1, 2, 3, 4, 5, 6), (P1, M): (1, 2, 3, 4, 5, 6), (P1, P): (1, 2),
               (P2, S): (1, 2, 3, 4, 5, 6), (P2, A): (1, 2, 3, 4, 5, 6)}
    state = board(stacks={(P1, A): "HHHHHH"}, temples=temples)  # 14 against 12; steal a 6
    after = act(state, ABILITY, H)
    assert after.end_phase and after.outcome == (P1, rules.END_PHASE_20)


@pytest.mark.parametrize(("hands", "winner"), [(("AA", "A"), P1), (("A", "AA"), P2), (("A", "A"), rules.DRAW_SEAT)])
def test_quarry_empty_ends_at_once_with_value_then_hand_tie_breaks(hands, winner):
    state = board(hands=hands, temples={(P1, A): (1, 2), (P2, H): (1, 2)},
                  quarry=(3,), temple_stacks=((1,) * 8 + (2,) * 7 + (3,) * 7 + (4,) * 7 + (5,) * 6 + (6,) * 5, ()))
    after = act(state, END_TURN)  # one card left: drawn, the quarry is empty
    assert after.quarry == () and after.temple_stacks[P1][-1] == 3
    assert after.outcome == (winner, rules.QUARRY_EMPTY)


def test_higher_value_wins_at_the_quarry_end_whatever_the_hands():
    state = board(hands=("", "AAAA"), temples={(P1, A): (1, 2, 3), (P2, H): (1, 2)}, quarry=(3, 4),
                  temple_stacks=((1,) * 8 + (2,) * 7 + (3,) * 6 + (4,) * 6 + (5,) * 6 + (6,) * 5, ()))
    assert act(state, END_TURN).outcome == (P1, rules.QUARRY_EMPTY)


def test_turn_limit_is_a_draw():
    cfg = CONFIG._replace(max_turns=5)
    after = act(board(temples={(P1, A): (1, 2, 3)}), END_TURN, config=cfg)
    assert after.outcome == (rules.DRAW_SEAT, rules.TURN_LIMIT)


# ---------------------------------------------------------------------------------- illegal input
@pytest.mark.parametrize(("action", "why"), [
    (Action(MOVE, 7), "move to 7 for p1: site 7 does not exist"),
    (Action(DEPLOY, P), "deploy Persians for p1: no Persians card in hand"),
    (Action(BUILD, P2), "build from p2's stack for p1: that temple stack is empty"),
    (Action(MIGRATE, A, A), "migrate site A → site A for p1: migration needs two different sites"),
    (Action(ABILITY, S), "Sumerians ability for p1: no run of 3 Sumerians anywhere in the own stack"),
    (Action(DISCARD, A), "discard Assyrians for p1: a discard is owed only after the universal ability"),
    (Action(9), "unknown action kind 9"),
])
def test_illegal_actions_raise_an_error_naming_the_action_and_why(action, why):
    with pytest.raises(InputError, match=why):
        rules.apply(CONFIG, board(hands=("A", "")), action)


def test_a_finished_game_takes_no_action():
    with pytest.raises(InputError, match="the game is over"):
        rules.apply(CONFIG, board(outcome=(P1, rules.STANDARD)), Action(END_TURN))


def test_model_apply_rejects_what_is_not_an_action():
    with pytest.raises(InputError, match="is not an action"):
        MODEL.apply(CONFIG, board(), 3.5)
