"""One scenario per rule sentence and per card of Towers of Babylon: a hand-built position, actions, the result.

Sources: the rules as implemented with the project's readings (``docs/rules/babylon.md``), the
starter pool (data ``data/babylon``) and the
decisions the text leaves open, listed in ``workbench/games/babylon/rules.py``'s docstring.
Positions come from ``scenario.position`` (cards by id; minion ``i`` of the list is uid ``i``);
``scenario.act`` applies actions through ``rules.apply`` and checks that every card stays somewhere.
The loader's bad-input tests are in ``test_babylon_cards.py``; the bad input here is what reaches
the rules (an illegal action) and the command line.
"""

from __future__ import annotations

from collections import Counter

import pytest

from tests.games.babylon.scenario import (
    ALL_IDS,
    CONFIG,
    DRAW,
    END,
    P1,
    P2,
    POOL,
    SKIP,
    act,
    attack,
    block,
    build,
    card,
    cards,
    cast,
    due,
    hand_ids,
    ids,
    legal,
    mn,
    move,
    offer,
    play,
    plays,
    position,
    side,
    sources,
    target,
    unit,
    witch,
    with_side,
)
from workbench.core.errors import InputError
from workbench.core.rng import SplitMix64
from workbench.games.babylon import rules
from workbench.games.babylon.model import MODEL
from workbench.games.babylon.rules import (
    BATTLEFIELD,
    DRAW_SEAT,
    EXHAUSTED,
    IMMOBILE,
    K_MULLIGAN,
    K_PLAY,
    NO_TARGET,
    RAMPARTS,
    READY,
    TOWER,
    Action,
)

T = rules.TALLIES.index


def tally(s, seat, name):
    return s.sides[seat].tally[T(name)]


def discard(s, seat):
    return ids(s.sides[seat].discard)


def towers(s):
    return s.sides[P1].tower, s.sides[P2].tower


def next_turn(s):
    """END, then the next player's START (draw a second card): its main phase."""
    return act(s, END, DRAW)


# ============================================================================================ setup
@pytest.mark.parametrize("first", [P1, P2])
def test_setup_first_draws_four_second_draws_five_and_gains_one_tp(first):
    s = rules.new_game(CONFIG, first, (11, 22))
    second = 1 - first
    assert (len(s.sides[first].hand), len(s.sides[second].hand)) == (4, 5)
    assert (s.sides[first].tp, s.sides[second].tp) == (0, 1)
    assert towers(s) == (10, 10) and s.turn == 0
    for seat in (P1, P2):
        sd = s.sides[seat]
        assert len(sd.deck) + len(sd.hand) == 60
        assert Counter(sd.deck) + Counter(sd.hand) == Counter(CONFIG.decks[seat])
        assert sd.available == sd.exhausted == (0,) * 5
    assert due(s) == ("mulligan", first)


def test_initial_state_shuffles_each_deck_from_its_own_stream_of_the_game_seed():
    s = rules.initial_state(CONFIG._replace(first="p2"), 9)
    assert s.first == P2 and due(s) == ("mulligan", P2)
    for seat, stream, dealt in ((P1, 1, 5), (P2, 2, 4)):  # the second seat draws one card more
        order = SplitMix64.for_stream(9, stream).shuffle(list(CONFIG.decks[seat]))  # streams 1 and 2: the decks
        assert s.sides[seat].hand == tuple(sorted(order[:dealt])) and s.sides[seat].deck == tuple(order[dealt:])


def test_unchecked_apply_gives_the_checked_result_for_every_legal_action():
    s = rules.new_game(CONFIG, P1, (11, 22))
    for _ in range(3):  # the mulligans, then p1's start and main decisions
        options = legal(s)
        for action in options:
            assert rules.apply(CONFIG, s, action, check=False) == rules.apply(CONFIG, s, action)
        s = rules.apply(CONFIG, s, options[-1])
    assert len(options) > 2
    with pytest.raises(InputError, match="not among the legal actions"):
        rules.apply(CONFIG, s, Action(K_MULLIGAN, 0))


def test_mulligan_puts_up_to_three_at_the_bottom_in_order_and_redraws_as_many():
    s = rules.new_game(CONFIG, P1, (11, 22))
    hand, deck = s.sides[P1].hand, s.sides[P1].deck
    masks = [a.a for a in legal(s)]
    assert all(a.kind == K_MULLIGAN for a in legal(s)) and max(bin(m).count("1") for m in masks) == 3
    assert 0 in masks and 0b0111 in masks
    with pytest.raises(InputError, match="mulligan decision of p1"):
        act(s, Action(K_MULLIGAN, 0b1111))
    s = act(s, Action(K_MULLIGAN, 0b0111))
    sd = s.sides[P1]
    assert sd.deck[-3:] == hand[:3]  # the put-back cards at the bottom, in the order they were put
    assert sd.deck[:-3] == deck[3:]
    assert Counter(sd.hand) == Counter(hand[3:] + deck[:3])  # redrew as many from the top
    assert tally(s, P1, "mulligan") == 3 and tally(s, P1, "drawn_cards") == 7
    assert due(s) == ("mulligan", P2)
    kept = s.sides[P2].hand
    s = act(s, Action(K_MULLIGAN, 0))  # p2 keeps: p1's first turn begins
    assert s.sides[P2].hand == kept and tally(s, P2, "mulligan") == 0
    assert due(s) == ("start", P1) and s.turn == 1 and s.sides[P1].turns == 1
    assert len(s.sides[P1].hand) == 5  # 4 after the mulligan + the turn's draw


def test_turn_start_marker_sources_ready_regenerating_invocations_draw_then_draw_or_offering():
    p2 = side(hand=("L1",), deck=("W10", "W2", "W3"), invocations=("E11",), turns=0,
              available=sources(Light=1, Water=2), exhausted=sources(Light=2, Water=1))
    s = position(side(), p2, [
        unit("L6", P2, TOWER, EXHAUSTED, damage=4),     # Regenerating: healed
        unit("W8", P2, BATTLEFIELD, IMMOBILE, damage=2),  # not Regenerating: keeps its damage
        unit("F4", P1, BATTLEFIELD, EXHAUSTED),          # the other seat's minion stays exhausted
    ])
    s = act(s, END)
    sd = s.sides[P2]
    assert s.turn == 2 and sd.turns == 1 and s.active == P2  # the turn marker
    assert sd.available == sources(Light=3, Water=3) and sd.exhausted == (0,) * 5  # sources back
    assert [(m.status, m.damage) for m in s.minions] == [(READY, 0), (READY, 2), (EXHAUSTED, 0)]
    assert sd.tower == 14 and sd.invocations == () and discard(s, P2) == ("E11",)  # Deep Foundations
    assert hand_ids(s, P2) == ("L1", "W10")  # one card drawn
    assert due(s) == ("start", P2)
    assert legal(s) == (DRAW, offer("L1"), offer("W10"))
    s = act(s, DRAW)
    assert hand_ids(s, P2) == ("L1", "W2", "W10") and due(s) == ("main", P2)


def test_invocations_resolve_before_the_draw():
    p2 = side(deck=("W10",), invocations=("E11",), tower=46, turns=0)
    s = act(position(side(), p2), END)
    assert s.outcome == (P2, "tower") and s.sides[P2].deck == cards("W10") and s.sides[P2].hand == ()


def test_offering_gives_an_available_source_of_the_cards_colour_usable_at_once():
    s = act(position(side(), side(hand=("W10", "W1"), deck=("E1",), turns=0)), END)
    assert due(s) == ("start", P2)
    s = act(s, offer("W10"))
    sd = s.sides[P2]
    assert ids(sd.sacrifice) == ("W10",) and sd.available == sources(Water=1) and hand_ids(s, P2) == ("E1", "W1")
    assert tally(s, P2, "offerings") == 1 and due(s) == ("main", P2)
    s = act(s, play("W1"))  # Canal Scout, 1 (1 water), paid with the new source at once
    assert [ids([m.card]) for m in s.minions] == [("W1",)] and s.sides[P2].exhausted == sources(Water=1)


def test_paying_takes_the_specific_cost_in_colour_then_other_colours_most_first():
    s = position(side(hand=("F4",), available=sources(Fire=3, Light=1, Earth=2)))
    s = act(s, play("F4"))  # Scarlet Elder 5 (2 fire)
    assert s.sides[P1].exhausted == sources(Fire=2, Light=1, Earth=2)
    assert s.sides[P1].available == sources(Fire=1)
    s = act(position(side(hand=("F9",), available=sources(Fire=4, Earth=1))), play("F9"))  # 3 (1 fire)
    assert s.sides[P1].exhausted == sources(Fire=2, Earth=1)  # its own colour last
    s = act(position(side(hand=("F4",), available=sources(Fire=2, Light=2, Earth=2))), play("F4"))
    assert s.sides[P1].exhausted == sources(Fire=2, Light=2, Earth=1)  # a tie: faction order (Light before Earth)


@pytest.mark.parametrize("avail", [sources(Fire=1, Earth=4), sources(Fire=2, Earth=2)], ids=["colour", "total"])
def test_an_unaffordable_card_is_not_legal(avail):
    s = position(side(hand=("F4",), available=avail))
    assert not any(a.kind == K_PLAY for a in legal(s))
    with pytest.raises(InputError, match="not among the legal actions"):
        act(s, play("F4"))


# ========================================================================================= minions
def test_a_minion_enters_the_ramparts_immobile_cannot_move_but_can_block():
    s = act(position(side(hand=("L2",), available=sources(Light=2))), play("L2"))
    assert s.minions == (rules.Minion(0, card("L2"), P1, RAMPARTS, IMMOBILE),)
    assert not any(a.kind == rules.K_MOVE for a in legal(s))
    s = act(s, END, DRAW)
    s = s._replace(minions=s.minions + (unit("F1", P2, BATTLEFIELD)._replace(uid=1),), next_uid=2)
    s = act(s, attack(1))
    assert due(s) == ("block", P1) and legal(s) == (SKIP, block(0))


def test_a_moved_minion_becomes_immobile_and_still_acts_in_its_new_zone():
    s = position(side(), side(), [unit("F4", P1, RAMPARTS)])
    assert [a for a in legal(s) if a.kind == rules.K_MOVE] == [move(0, TOWER), move(0, BATTLEFIELD)]
    s = act(s, move(0, BATTLEFIELD))
    assert (mn(s, 0).zone, mn(s, 0).status) == (BATTLEFIELD, IMMOBILE)
    assert not any(a.kind == rules.K_MOVE for a in legal(s))
    s = act(s, attack(0))
    assert mn(s, 0).status == EXHAUSTED and towers(s) == (10, 6)


def test_builders_build_their_construction_and_become_exhausted():
    s = position(side(), side(), [unit("E3", P1, TOWER), unit("E4", P1, RAMPARTS), unit("E5", P1, TOWER, IMMOBILE)])
    assert [a for a in legal(s) if a.kind == rules.K_BUILD] == [build(0), build(2)]
    s = act(s, build(0), build(2))
    assert towers(s) == (15, 10) and tally(s, P1, "built") == 5
    assert mn(s, 0).status == mn(s, 2).status == EXHAUSTED
    assert not any(a.kind == rules.K_BUILD for a in legal(s))
    assert {a.a for a in legal(s) if a.kind == rules.K_MOVE} == {1}  # exhausted minions cannot move either


def test_raiders_attack_the_tower_or_any_enemy_minion():
    s = position(side(), side(), [unit("F4", P1, BATTLEFIELD), unit("E3", P1, BATTLEFIELD, EXHAUSTED),
                                  unit("F1", P1, RAMPARTS), unit("L1", P2, TOWER), unit("W1", P2, BATTLEFIELD)])
    attacks = [a for a in legal(s) if a.kind == rules.K_ATTACK]
    assert attacks == [attack(0), attack(0, 3), attack(0, 4)]  # exhausted and non-raiders cannot attack
    s = act(s, attack(0))
    assert towers(s) == (10, 6) and mn(s, 0).status == EXHAUSTED and tally(s, P1, "tower_damage") == 4


# ======================================================================================== blocking
def _defended(*attackers, tp=0, hand=()):
    """P1's raiders against P2: ready and immobile Defenders, an exhausted one, a Builder and a Raider."""
    return position(side(), side(tp=tp, hand=hand), [
        *attackers,
        unit("L2", P2, RAMPARTS), unit("W8", P2, RAMPARTS, IMMOBILE), unit("L1", P2, RAMPARTS, EXHAUSTED),
        unit("E3", P2, TOWER), unit("W1", P2, BATTLEFIELD)])


def test_only_non_exhausted_defenders_may_block_and_a_blocked_tower_attack_clashes_with_the_blocker_only():
    s = act(_defended(unit("F4", P1, BATTLEFIELD)), attack(0))
    assert due(s) == ("block", P2) and rules.decision(s) == (rules.BLOCK, P2)
    assert MODEL.current_player(CONFIG, s) == P2
    assert legal(s) == (SKIP, block(1), block(2))
    s = act(s, block(1))  # Shield Bearer 0/1/4 takes 4: dies; the Elder takes 1
    assert towers(s) == (10, 10) and mn(s, 1) is None and mn(s, 0).damage == 1
    assert tally(s, P2, "blocks") == 1 and due(s) == ("main", P1)


def test_not_blocking_lets_the_attack_hit_the_tower():
    s = act(_defended(unit("F4", P1, BATTLEFIELD)), attack(0), SKIP)
    assert towers(s) == (10, 6) and all(m.damage == 0 for m in s.minions)


def test_an_attack_on_a_builder_or_defender_can_be_blocked_by_another_defender():
    s = act(_defended(unit("F4", P1, BATTLEFIELD)), attack(0, 4))
    assert legal(s) == (SKIP, block(1), block(2))
    s = act(_defended(unit("F4", P1, BATTLEFIELD)), attack(0, 2))
    assert legal(s) == (SKIP, block(1))  # the target cannot block for itself


def test_an_attack_on_a_raider_cannot_be_blocked():
    s = act(_defended(unit("F4", P1, BATTLEFIELD)), attack(0, 5))
    assert due(s) == ("main", P1)  # no block decision: the clash happened
    assert mn(s, 5) is None and mn(s, 0).damage == 1  # Canal Scout 1/2 died, dealt 1


def test_tunnel_cannot_be_blocked_on_the_tower_but_can_on_a_minion():
    s = act(_defended(unit("E2", P1, BATTLEFIELD)), attack(0))
    assert due(s) == ("main", P1) and towers(s) == (10, 8)
    s = act(_defended(unit("E2", P1, BATTLEFIELD)), attack(0, 4))
    assert due(s) == ("block", P2)


# ========================================================================================== clashes
def test_a_clash_deals_might_both_ways_and_damage_equal_to_health_kills():
    s = position(side(), side(), [unit("F4", P1, BATTLEFIELD), unit("W8", P2, TOWER)])
    s = act(s, attack(0, 1))  # Scarlet Elder 4/3 against Harbor Guard 3/4: 4 ≥ 4 and 3 ≥ 3
    assert s.minions == () and discard(s, P1) == ("F4",) and discard(s, P2) == ("W8",)
    assert tally(s, P1, "deaths") == tally(s, P2, "deaths") == 1


def test_the_defending_minion_is_exhausted_after_the_clash_and_damage_stays_between_turns():
    s = position(side(), side(deck=("W1",)), [unit("E4", P1, BATTLEFIELD), unit("L2", P2, TOWER),
                                              unit("W8", P2, RAMPARTS)])
    s = act(s, attack(0, 1), block(2))  # Quarry Giant 4/3/4 blocked by Harbor Guard 1/3/4: 3 each way
    assert (mn(s, 2).damage, mn(s, 2).status) == (3, EXHAUSTED)
    assert (mn(s, 0).damage, mn(s, 1).damage, mn(s, 1).status) == (3, 0, READY)
    s = act(s, END)
    assert due(s) == ("start", P2) and (mn(s, 0).damage, mn(s, 2).damage) == (3, 3)
    s = next_turn(act(s, DRAW))
    assert (mn(s, 0).damage, mn(s, 2).damage) == (3, 3)


def test_a_target_that_is_not_blocked_is_exhausted_after_its_clash():
    s = act(position(side(), side(), [unit("E4", P1, BATTLEFIELD), unit("L6", P2, TOWER)]), attack(0, 1))
    assert (mn(s, 1).damage, mn(s, 1).status) == (3, EXHAUSTED) and mn(s, 0).damage == 3


# ====================================================================================== end of turn
def test_end_of_turn_exhausts_available_sources_and_adds_one_tp_each():
    s = position(side(available=sources(Fire=2, Light=1), exhausted=sources(Earth=3), tp=2))
    s = act(s, END)
    sd = s.sides[P1]
    assert sd.available == (0,) * 5 and sd.exhausted == sources(Fire=2, Light=1, Earth=3) and sd.tp == 5


# ======================================================================================= witcheries
def test_a_witchery_is_the_defenders_decision_paid_with_transformed_power():
    s = position(side(hand=("S12",), tp=5), side(hand=("S12",), tp=1), [unit("F4", P1, BATTLEFIELD)])
    assert not any(a.kind == K_PLAY for a in legal(s))  # never in one's own main phase
    s = act(s, attack(0))
    assert due(s) == ("witch", P2) and MODEL.current_player(CONFIG, s) == P2
    assert legal(s) == (SKIP, witch("S12"))
    s = act(s, witch("S12"))
    assert s.sides[P2].tp == 0 and discard(s, P2) == ("S12",) and tally(s, P2, "witcheries") == 1
    assert mn(s, 0).sentenced and towers(s) == (10, 6)


def test_no_witchery_window_without_the_transformed_power():
    s = act(position(side(), side(hand=("S12", "L12"), tp=0), [unit("F4", P1, BATTLEFIELD)]), attack(0))
    assert due(s) == ("main", P1) and towers(s) == (10, 6)
    s = act(position(side(), side(hand=("L12",), tp=2), [unit("F4", P1, BATTLEFIELD)]), attack(0))
    assert towers(s) == (10, 6)  # Divine Aegis costs 3


def test_enemy_attacks_tower_witcheries_open_only_on_tower_attacks():
    board = [unit("F4", P1, BATTLEFIELD), unit("L1", P2, TOWER)]
    s = act(position(side(), side(hand=("L12", "S12"), tp=5), board), attack(0, 1))
    assert legal(s) == (SKIP, witch("S12"))
    s = act(position(side(), side(hand=("L12", "S12"), tp=5), board), attack(0))
    assert legal(s) == (SKIP, witch("L12"), witch("S12"))
    s = act(s, witch("S12"))
    assert due(s) == ("witch", P2) and legal(s) == (SKIP, witch("L12"))  # the window stays open
    s = act(s, witch("L12"))
    assert towers(s) == (10, 10) and s.sides[P2].tp == 1 and discard(s, P2) == ("S12", "L12")


# ========================================================================================= game end
def test_a_tower_at_fifty_wins_at_once_mid_turn():
    s = position(side(tower=48), side(), [unit("E3", P1, TOWER), unit("E1", P1, TOWER)])
    s = act(s, build(0))
    assert s.outcome == (P1, "tower") and due(s) is None and legal(s) == ()
    with pytest.raises(InputError, match="at the end of the game"):
        rules.apply(CONFIG, s, build(1))


def test_the_opponents_tower_reaching_fifty_in_my_turn_wins_for_the_opponent():
    s = act(position(side(hand=("F9",), available=sources(Fire=3)), side(tower=47), [unit("L7", P2, TOWER)]),
            play("F9", 0))  # Fireball kills Choir of Ishtar: its Dying Words raise p2's tower by 3
    assert s.outcome == (P2, "tower") and towers(s) == (10, 50)


@pytest.mark.parametrize(("p1_tower", "p2_tower", "winner"), [(30, 25, P1), (24, 25, P2), (20, 20, DRAW_SEAT)])
def test_towers_are_counted_after_both_players_fifteenth_turn(p1_tower, p2_tower, winner):
    s = position(side(tower=p1_tower, turns=15), side(tower=p2_tower, turns=14, deck=("L1",)))
    s = act(s, END)  # p1's 15th turn ends: p2 still plays its 15th
    assert s.outcome is None and due(s) == ("start", P2) and s.sides[P2].turns == 15
    s = act(s, DRAW, END)
    assert s.outcome == (winner, "count") and due(s) is None
    assert MODEL.result_row(CONFIG, s)["winner"] == {P1: "p1", P2: "p2", DRAW_SEAT: "draw"}[winner]


def test_a_tower_never_goes_below_zero():
    s = position(side(hand=("F10",), available=sources(Fire=4)), side(tower=3), [unit("F4", P1, BATTLEFIELD)])
    s = act(s, attack(0))
    assert towers(s) == (10, 0) and tally(s, P1, "tower_damage") == 3  # levels actually lost
    s = act(s, play("F10"))
    assert towers(s) == (10, 0)


def test_an_empty_deck_draws_nothing():
    s = act(position(side(), side(hand=("L1",), turns=0)), END)
    assert hand_ids(s, P2) == ("L1",) and due(s) == ("start", P2)
    s = act(s, DRAW)
    assert hand_ids(s, P2) == ("L1",) and tally(s, P2, "drawn_cards") == 0 and due(s) == ("main", P2)
    s = act(s, END, DRAW)  # p1 again
    s = cast(with_side(s, P1, hand=cards("W10")), "W10")  # Insight on an empty deck
    assert s.sides[P1].hand == () and discard(s, P1) == ("W10",)


# ========================================================================================= keywords
def test_crush_excess_goes_to_the_tower_when_it_kills_the_blocker():
    s = position(side(), side(), [unit("F5", P1, BATTLEFIELD), unit("W1", P2, RAMPARTS)])
    s = act(s, attack(0), block(1))  # Magma Brute 5 might kills Canal Scout (2 health): 3 excess
    assert mn(s, 1) is None and towers(s) == (10, 7) and mn(s, 0).damage == 1


def test_crush_counts_the_blockers_remaining_health():
    s = position(side(), side(), [unit("F5", P1, BATTLEFIELD), unit("L2", P2, RAMPARTS, damage=2)])
    s = act(s, attack(0), block(1))
    assert towers(s) == (10, 7)


def test_crush_excess_goes_to_the_original_target_minion_only():
    s = position(side(), side(), [unit("F5", P1, BATTLEFIELD), unit("L1", P2, TOWER), unit("E4", P2, TOWER),
                                  unit("W1", P2, RAMPARTS)])
    s = act(s, attack(0, 1), block(3))
    assert mn(s, 3) is None and mn(s, 1) is None  # Temple Novice (2 health) took the 3 excess
    assert mn(s, 2).damage == 0 and towers(s) == (10, 10)
    assert mn(s, 0).damage == 1  # the excess is no clash: nothing dealt back


def test_crush_without_killing_the_blocker_deals_no_excess():
    s = position(side(), side(), [unit("F5", P1, BATTLEFIELD), unit("L6", P2, RAMPARTS)])
    s = act(s, attack(0), block(1))
    assert mn(s, 1).damage == 5 and towers(s) == (10, 10)


def test_crush_needs_a_blocker():
    s = act(position(side(), side(), [unit("F5", P1, BATTLEFIELD), unit("W1", P2, BATTLEFIELD)]), attack(0, 1))
    assert mn(s, 1) is None and towers(s) == (10, 10)


def test_twinstrike_hits_another_minion_of_the_partners_zone_which_does_not_clash():
    s = position(side(), side(), [unit("F3", P1, BATTLEFIELD), unit("L1", P2, TOWER), unit("E4", P2, TOWER),
                                  unit("L2", P2, RAMPARTS, EXHAUSTED), unit("W1", P2, BATTLEFIELD)])
    s = act(s, attack(0, 1))  # one possible second minion: chosen automatically
    assert mn(s, 1) is None and (mn(s, 2).damage, mn(s, 2).status) == (3, READY)
    assert mn(s, 0).damage == 0  # Quarry Giant's 3 might is not dealt back
    assert mn(s, 3).damage == mn(s, 4).damage == 0


def test_twinstrike_second_target_is_the_attackers_choice():
    s = position(side(), side(), [unit("F3", P1, BATTLEFIELD), unit("L1", P2, TOWER), unit("E4", P2, TOWER),
                                  unit("E5", P2, TOWER)])
    s = act(s, attack(0, 1))
    assert due(s) == ("twin", P1) and legal(s) == (target(2), target(3))
    s = act(s, target(3))
    assert (mn(s, 2).damage, mn(s, 3).damage) == (0, 3)


def test_twinstrike_on_a_blocked_attack_hits_the_blockers_zone():
    s = position(side(), side(), [unit("F3", P1, BATTLEFIELD), unit("L1", P2, TOWER), unit("E4", P2, TOWER),
                                  unit("L6", P2, RAMPARTS), unit("L2", P2, RAMPARTS)])
    s = act(s, attack(0, 1), block(3))
    assert (mn(s, 3).damage, mn(s, 4).damage) == (3, 3) and mn(s, 1).damage == mn(s, 2).damage == 0
    assert mn(s, 0) is None  # Radiant Warden's 3 might killed Flame Dancer


def test_twinstrike_does_nothing_on_a_tower_hit():
    s = act(position(side(), side(), [unit("W6", P1, BATTLEFIELD), unit("L1", P2, TOWER), unit("E4", P2, TOWER)]),
            attack(0))
    assert due(s) == ("main", P1) and towers(s) == (10, 4) and all(m.damage == 0 for m in s.minions)


def test_lethal_kills_in_a_clash_both_ways():
    s = act(position(side(), side(), [unit("S3", P1, BATTLEFIELD), unit("W6", P2, TOWER)]), attack(0, 1))
    assert s.minions == ()  # Venom Priestess 1 might kills the 7-health Leviathan, and dies to its 6
    s = position(side(), side(), [unit("L6", P1, BATTLEFIELD), unit("W4", P2, RAMPARTS)])
    s = act(s, attack(0), block(1))  # a Lethal blocker
    assert s.minions == () and towers(s) == (10, 10)


def test_lethal_applies_to_twinstrike_and_crush_damage():
    lethal_twin = CONFIG._replace(cards=tuple(c._replace(lethal=True) if c.id == "F3" else c for c in CONFIG.cards))
    s = position(side(), side(), [unit("F3", P1, BATTLEFIELD), unit("L1", P2, TOWER), unit("L6", P2, TOWER)])
    s = act(s, attack(0, 1), config=lethal_twin)
    assert mn(s, 2) is None  # 3 Twinstrike damage, Lethal, on a 6-health minion
    s = position(side(), side(), [unit("S8", P1, BATTLEFIELD), unit("L6", P2, TOWER), unit("W1", P2, RAMPARTS)])
    s = act(s, attack(0, 1), block(2))  # Lord of the Pit kills Canal Scout, crushes 4 into Radiant Warden
    assert mn(s, 1) is None and mn(s, 2) is None


def test_lethal_crush_excess_is_might_less_the_blockers_health():
    s = position(side(), side(), [unit("S8", P1, BATTLEFIELD), unit("W6", P2, RAMPARTS)])
    s = act(s, attack(0), block(1))
    assert mn(s, 1) is None and towers(s) == (10, 10)  # killed by Lethal, but 6 might < 7 health: no excess
    s = position(side(), side(), [unit("S8", P1, BATTLEFIELD), unit("L2", P2, RAMPARTS)])
    s = act(s, attack(0), block(1))
    assert towers(s) == (10, 8)


def test_thief_gains_what_the_tower_lost():
    s = act(position(side(), side(), [unit("S1", P1, BATTLEFIELD)]), attack(0))
    assert towers(s) == (11, 9) and tally(s, P1, "stolen") == 1 and tally(s, P1, "tower_damage") == 1
    s = act(position(side(), side(tower=3), [unit("E7", P1, BATTLEFIELD)]), attack(0))
    assert towers(s) == (13, 0) and tally(s, P1, "stolen") == 3  # 4 might, but only 3 levels were there


def test_thief_gains_nothing_when_blocked_or_when_the_tower_takes_no_damage():
    s = act(position(side(), side(), [unit("S1", P1, BATTLEFIELD), unit("L2", P2, RAMPARTS)]), attack(0), block(1))
    assert towers(s) == (10, 10)
    s = act(position(side(), side(tower=0), [unit("S1", P1, BATTLEFIELD)]), attack(0))
    assert towers(s) == (10, 0) and tally(s, P1, "stolen") == 0
    s = act(position(side(), side(hand=("L12",), tp=3), [unit("S5", P1, BATTLEFIELD)]), attack(0), witch("L12"))
    assert towers(s) == (10, 10)


def test_thief_can_win_the_game():
    s = act(position(side(tower=49), side(), [unit("S1", P1, BATTLEFIELD)]), attack(0))
    assert s.outcome == (P1, "tower") and towers(s) == (50, 9)


def test_retreating_moves_the_attacker_to_the_ramparts():
    s = act(position(side(), side(), [unit("F2", P1, BATTLEFIELD), unit("W1", P1, BATTLEFIELD)]),
            attack(0), attack(1))
    assert [(m.zone, m.status) for m in s.minions] == [(RAMPARTS, EXHAUSTED)] * 2 and towers(s) == (10, 6)
    s = act(position(side(), side(), [unit("F2", P1, BATTLEFIELD), unit("W8", P2, TOWER)]), attack(0, 1))
    assert mn(s, 0) is None and discard(s, P1) == ("F2",)  # a dead Retreating minion does not move


def test_regenerating_heals_at_the_start_of_its_controllers_turn_only():
    s = position(side(), side(deck=("W1",)), [unit("L3", P1, TOWER, damage=3), unit("W8", P1, TOWER, damage=3)])
    s = act(s, END)
    assert mn(s, 0).damage == 3  # p2's turn
    s = act(s, DRAW, END)
    assert (mn(s, 0).damage, mn(s, 1).damage) == (0, 3)


def test_a_sentenced_minion_takes_one_damage_when_it_attacks_or_builds():
    s = position(side(), side(), [unit("S2", P1, BATTLEFIELD, sentenced=True), unit("E3", P1, TOWER, sentenced=True)])
    s = act(s, attack(0), build(1))
    assert (mn(s, 0).damage, mn(s, 1).damage) == (1, 1) and towers(s) == (12, 8)


def test_a_sentence_that_kills_the_builder_still_builds():
    s = act(position(side(), side(), [unit("E1", P1, TOWER, sentenced=True)]), build(0))
    assert s.minions == () and towers(s) == (12, 10) and discard(s, P1) == ("E1",)


def test_a_sentence_that_kills_the_attacker_ends_the_attack():
    s = act(position(side(), side(), [unit("S1", P1, BATTLEFIELD, sentenced=True), unit("L2", P2, RAMPARTS)]),
            attack(0))
    assert due(s) == ("main", P1) and s.attack is None and towers(s) == (10, 10)
    assert mn(s, 0) is None and tally(s, P1, "attacks") == 1


def test_a_sentenced_defender_takes_one_damage_when_exhausted_after_its_clash():
    s = position(side(), side(), [unit("F1", P1, BATTLEFIELD), unit("E5", P2, RAMPARTS, sentenced=True)])
    s = act(s, attack(0), block(1))
    assert mn(s, 1).damage == 2 and mn(s, 0) is None


def test_a_sentenced_minion_takes_damage_from_an_exhaust_effect_but_not_when_already_exhausted():
    p1 = side(hand=("W3", "W3"), available=sources(Water=6))
    s = position(p1, side(), [unit("E5", P2, TOWER, sentenced=True)])
    s = act(s, play("W3", 0))  # Tide Caller: exhaust an enemy minion
    assert (mn(s, 0).status, mn(s, 0).damage) == (EXHAUSTED, 1)
    s = act(s, play("W3", 0))
    assert mn(s, 0).damage == 1


# ========================================================================================== spells
def test_an_invocation_waits_for_the_start_of_its_controllers_next_turn_then_goes_to_the_discard():
    s = cast(position(side(hand=("E11",), deck=("L1",)), side(deck=("W1",))), "E11")
    assert ids(s.sides[P1].invocations) == ("E11",) and discard(s, P1) == () and towers(s) == (10, 10)
    s = act(s, END)
    assert ids(s.sides[P1].invocations) == ("E11",) and towers(s) == (10, 10)  # p2's turn: still waiting
    s = act(s, DRAW, END)
    assert towers(s) == (14, 10) and s.sides[P1].invocations == () and discard(s, P1) == ("E11",)


def test_a_command_resolves_at_once_and_goes_to_the_discard():
    s = cast(position(side(hand=("L9",))), "L9")
    assert towers(s) == (14, 10) and discard(s, P1) == ("L9",) and tally(s, P1, "spells") == 1


def test_targets_are_chosen_with_the_play():
    s = position(side(hand=("F9",), available=sources(Fire=3)), side(), [unit("F1", P1), unit("W8", P2, TOWER)])
    assert plays(s) == [play("F9", 0), play("F9", 1)]
    s = act(s, play("F9", 1))
    assert mn(s, 1) is None and mn(s, 0) is not None and due(s) == ("main", P1)


def test_an_effect_without_a_legal_target_can_still_be_played_and_does_nothing():
    s = position(side(hand=("F9", "L5"), available=sources(Fire=3, Light=3)), side(), [unit("F1", P1)])
    assert plays(s) == [play("F9", 0), play("L5")]  # Judicator: no enemy minion to Sentence
    s = act(s, play("L5"))
    assert not any(m.sentenced for m in s.minions) and len(s.minions) == 2
    s = cast(position(side(hand=("F9",))), "F9")
    assert discard(s, P1) == ("F9",) and s.minions == ()


def test_may_gives_a_skip_and_a_required_offering_does_not():
    s = cast(position(side(hand=("E6", "F1", "L1"))), "E6")
    assert due(s) == ("offer", P1) and legal(s) == (SKIP, offer("F1"), offer("L1"))
    s = act(s, SKIP)
    assert hand_ids(s, P1) == ("F1", "L1") and s.sides[P1].sacrifice == () and due(s) == ("main", P1)
    s = cast(position(side(hand=("E10", "F1", "L1"))), "E10")
    assert legal(s) == (offer("F1"), offer("L1"))


# ===================================================================================== every card
CARD_SCENARIOS = {}


def scenario(*card_ids):
    def register(fn):
        for card_id in card_ids:
            assert card_id not in CARD_SCENARIOS, card_id
            CARD_SCENARIOS[card_id] = fn
        return fn
    return register


def _stats(card_id):
    info = CONFIG.cards[card(card_id)]
    return info.construction, info.might, info.health


def _enter(card_id, p2=None, board=(), on=NO_TARGET, **p1):
    """P1 plays minion ``card_id`` paying exactly its cost: it is the newest minion, on the Ramparts, immobile."""
    s = cast(position(side(**{"hand": (card_id,), **p1}), p2 or side(), list(board)), card_id, on)
    m = s.minions[-1]
    assert (ids([m.card]), m.owner, m.zone, m.status, m.damage) == ((card_id,), P1, RAMPARTS, IMMOBILE, 0)
    assert tally(s, P1, "minions") == 1
    return s, m.uid


@scenario("F1", "F4", "L1", "L2", "E1", "E3", "E4", "E5", "W8")
def _vanilla(card_id):
    """No text: enters, builds its construction, hits the tower for its might, dies at its health."""
    construction, might, health = _stats(card_id)
    s, uid = _enter(card_id)
    s = s._replace(minions=(mn(s, uid)._replace(zone=TOWER, status=READY),))
    s = act(s, build(uid))
    assert towers(s) == (10 + construction, 10)
    s = s._replace(minions=(mn(s, uid)._replace(zone=BATTLEFIELD, status=READY),))
    s = act(s, attack(uid))
    assert towers(s) == (10 + construction, 10 - might)
    s = position(side(), side(), [unit(card_id, P2, TOWER, damage=health - 1), unit("F1", P1, BATTLEFIELD)])
    s = act(s, attack(1, 0))  # Ember Acolyte's 1 might is the last point of its health
    assert mn(s, 0) is None and discard(s, P2) == (card_id,)


@scenario("F2", "W1")
def _retreating(card_id):
    s, uid = _enter(card_id)
    s = act(s._replace(minions=(mn(s, uid)._replace(zone=BATTLEFIELD, status=READY),)), attack(uid))
    assert (mn(s, uid).zone, mn(s, uid).status) == (RAMPARTS, EXHAUSTED)
    assert towers(s) == (10, 10 - _stats(card_id)[1])


@scenario("F3", "W6")
def _twinstrike(card_id):
    s, uid = _enter(card_id, board=[unit("L1", P2, TOWER), unit("W6", P2, TOWER)])
    s = act(s._replace(minions=tuple(m._replace(zone=BATTLEFIELD, status=READY) if m.uid == uid else m
                                     for m in s.minions)), attack(uid, 0))
    might = _stats(card_id)[1]
    assert mn(s, 0) is None and mn(s, 1).damage == might and mn(s, 1).status == READY and mn(s, uid).damage == 0


@scenario("F5", "F7")
def _crush(card_id):
    s, uid = _enter(card_id, board=[unit("W1", P2, RAMPARTS)])
    s = act(s._replace(minions=tuple(m._replace(zone=BATTLEFIELD, status=READY) if m.uid == uid else m
                                     for m in s.minions)), attack(uid), block(0))
    assert mn(s, 0) is None and towers(s) == (10, 10 - (_stats(card_id)[1] - 2))


@scenario("F6")
def _sapper_of_ur(card_id):
    s, uid = _enter(card_id)
    s = act(s._replace(minions=(mn(s, uid)._replace(zone=TOWER, status=READY),)), build(uid))
    assert towers(s) == (12, 9)  # built 2, Shape: 1 damage to the enemy tower


@scenario("F8")
def _kiln_keeper(card_id):
    s, uid = _enter(card_id, board=[unit("W8", P2, TOWER)])
    s = act(s._replace(minions=tuple(m._replace(zone=BATTLEFIELD, status=READY) if m.uid == uid else m
                                     for m in s.minions)), attack(uid, 0))
    assert mn(s, uid) is None and towers(s) == (10, 8)  # Dying Words: 2 damage to the enemy tower


@scenario("F9")
def _fireball(card_id):
    s = cast(position(side(hand=("F9",)), side(), [unit("W8", P2, TOWER), unit("L6", P2, TOWER)]), "F9", 1)
    assert mn(s, 1).damage == 4 and mn(s, 0).damage == 0 and discard(s, P1) == ("F9",)
    s = cast(position(side(hand=("F9",)), side(), [unit("W8", P2, TOWER)]), "F9", 0)
    assert s.minions == () and discard(s, P2) == ("W8",)


@scenario("F10")
def _scorch_the_scaffolds(card_id):
    s = cast(position(side(hand=("F10",)), side(tower=12)), "F10")
    assert towers(s) == (10, 8) and discard(s, P1) == ("F10",)


@scenario("F11")
def _rite_of_embers(card_id):
    board = [unit("W8", P2, BATTLEFIELD), unit("W1", P2, BATTLEFIELD), unit("L2", P2, RAMPARTS),
             unit("E3", P2, TOWER), unit("F4", P1, BATTLEFIELD)]
    s = cast(position(side(hand=("F11",)), side(), board), "F11")
    assert all(m.damage == 0 for m in s.minions) and ids(s.sides[P1].invocations) == ("F11",)
    s = act(s, END, DRAW, END)
    assert tuple(m.card for m in s.minions) == cards("W8", "L2", "E3", "F4")  # Canal Scout (2 health) died
    assert [m.damage for m in s.minions] == [2, 0, 0, 0] and discard(s, P1) == ("F11",)


@scenario("F12")
def _backdraft(card_id):
    s = position(side(hand=("F12",), tp=2), side(), [unit("F4", P2, BATTLEFIELD), unit("L2", P1, RAMPARTS)],
                 active=P2)
    s = act(s, attack(0), SKIP)
    assert due(s) == ("witch", P1) and legal(s) == (SKIP, witch("F12"))
    s = act(s, witch("F12"))  # 3 damage before the clash kills the 3-health Elder: no damage, no clash
    assert mn(s, 0) is None and towers(s) == (10, 10) and s.sides[P1].tp == 0 and discard(s, P1) == ("F12",)
    assert mn(s, 1).status == READY
    s = position(side(hand=("F12",), tp=1), side(), [unit("F4", P2, BATTLEFIELD)], active=P2)
    assert towers(act(s, attack(0))) == (6, 10)  # 1 TP is not enough


@scenario("L3", "L6")
def _regenerating(card_id):
    s, uid = _enter(card_id, p2=side(deck=("W1",)), deck=("L1",))
    health = _stats(card_id)[2]
    s = s._replace(minions=(mn(s, uid)._replace(damage=health - 1),))
    s = act(s, END, DRAW, END)
    assert mn(s, uid).damage == 0


@scenario("L4")
def _dawn_architect(card_id):
    s, uid = _enter(card_id)
    s = act(s._replace(minions=(mn(s, uid)._replace(zone=TOWER, status=READY),)), build(uid))
    assert towers(s) == (14, 10)  # 3 built + 1 from Shape


@scenario("L5", "S7")
def _swear_sentence(card_id):
    board = [unit("W8", P2, TOWER), unit("E3", P2, TOWER), unit("F1", P1, TOWER)]
    s = position(side(hand=(card_id,)), side(), board)
    s = with_side(s, P1, available=(9,) * 5)
    assert plays(s) == [play(card_id, 0), play(card_id, 1)]  # enemy minions
    s, _ = _enter(card_id, board=board, on=1)
    assert [m.sentenced for m in s.minions] == [False, True, False, False]
    s = act(s._replace(minions=tuple(m._replace(zone=BATTLEFIELD) if m.uid == 1 else m for m in s.minions),
                       active=P2), attack(1))
    assert mn(s, 1).damage == 1


@scenario("L7")
def _choir_of_ishtar(card_id):
    s, uid = _enter(card_id, board=[unit("S8", P2, BATTLEFIELD)])
    s = s._replace(active=P2)
    s = act(s, attack(0, uid))
    assert mn(s, uid) is None and towers(s) == (13, 10)  # Dying Words: your tower gains 3


@scenario("L8")
def _seraph_of_the_ziggurat(card_id):
    s, uid = _enter(card_id, p2=side(deck=("W1",)), tower=20)
    assert towers(s) == (23, 10)  # Swear Allegiance: +3
    s = act(s._replace(minions=(mn(s, uid)._replace(damage=5),)), END, DRAW, END)
    assert mn(s, uid).damage == 0  # Regenerating


@scenario("L9")
def _consecrate(card_id):
    s = cast(position(side(hand=("L9",), tower=45)), "L9")
    assert towers(s) == (49, 10) and s.outcome is None
    s = cast(position(side(hand=("L9",), tower=46)), "L9")
    assert s.outcome == (P1, "tower")


@scenario("L10")
def _mend(card_id):
    s = position(side(hand=("L10",)), side(), [unit("L6", P1, BATTLEFIELD, EXHAUSTED, damage=5, sentenced=True),
                                                unit("W8", P2, TOWER, damage=2)])
    s = with_side(s, P1, available=(9,) * 5)
    assert plays(s) == [play("L10", 0)]  # friendly only
    s = cast(position(side(hand=("L10",)), side(), [unit("L6", P1, BATTLEFIELD, EXHAUSTED, damage=5)]), "L10", 0)
    assert (mn(s, 0).damage, mn(s, 0).status) == (0, READY)
    s = act(s, move(0, TOWER), build(0))  # ready: it may move and act again
    assert towers(s) == (12, 10)


@scenario("L11")
def _morning_hymn(card_id):
    board = [unit("E3", P1, TOWER), unit("E1", P1, TOWER), unit("L2", P1, RAMPARTS), unit("W8", P2, TOWER)]
    s = cast(position(side(hand=("L11",)), side(), board), "L11")
    s = act(s, END, DRAW)
    s = act(s._replace(minions=s.minions + (unit("E5", P1, TOWER)._replace(uid=4),), next_uid=5), END)
    assert towers(s) == (16, 10)  # 2 levels per Builder at the start of the turn: 3 builders


@scenario("L12")
def _divine_aegis(card_id):
    s = position(side(hand=("L12",), tp=3), side(), [unit("F7", P2, BATTLEFIELD), unit("L2", P1, RAMPARTS),
                                                    unit("W1", P1, RAMPARTS)], active=P2)
    s = act(s, attack(0), SKIP, witch("L12"))
    assert towers(s) == (10, 10) and s.sides[P1].tp == 0 and discard(s, P1) == ("L12",)
    s = act(position(side(hand=("L12",), tp=3), side(), [unit("F7", P2, BATTLEFIELD), unit("W1", P1, RAMPARTS)],
                     active=P2), attack(0), block(1), witch("L12"))
    assert towers(s) == (10, 10) and mn(s, 1) is None  # no Crush excess to the tower either


@scenario("E2", "S2")
def _tunnel(card_id):
    s, uid = _enter(card_id, board=[unit("L2", P2, RAMPARTS)])
    s = act(s._replace(minions=tuple(m._replace(zone=BATTLEFIELD, status=READY) if m.uid == uid else m
                                     for m in s.minions)), attack(uid))
    assert due(s) == ("main", P1) and towers(s) == (10, 10 - _stats(card_id)[1])


@scenario("E6")
def _sapling_shaman(card_id):
    s, uid = _enter(card_id, hand=("E6", "W10"))
    assert due(s) == ("offer", P1) and legal(s) == (SKIP, offer("W10"))
    s = act(s, offer("W10"))
    assert s.sides[P1].available == sources(Water=1) and ids(s.sides[P1].sacrifice) == ("W10",)
    s, uid = _enter(card_id)
    assert due(s) == ("main", P1)  # nothing to offer: the "may" passes by itself


@scenario("E7", "S5")
def _tunnel_thief(card_id):
    s, uid = _enter(card_id, board=[unit("L2", P2, RAMPARTS)])
    s = act(s._replace(minions=tuple(m._replace(zone=BATTLEFIELD, status=READY) if m.uid == uid else m
                                     for m in s.minions)), attack(uid))
    might = _stats(card_id)[1]
    assert towers(s) == (10 + might, 10 - might) and tally(s, P1, "stolen") == might


@scenario("E8", "W5")
def _shape_draw(card_id):
    s, uid = _enter(card_id, deck=("L1", "L2"))
    s = act(s._replace(minions=(mn(s, uid)._replace(zone=TOWER, status=READY),)), build(uid))
    assert towers(s) == (10 + _stats(card_id)[0], 10) and hand_ids(s, P1) == ("L1",)


@scenario("E9")
def _landslide(card_id):
    board = [unit("W7", P2, RAMPARTS), unit("L2", P2, RAMPARTS), unit("E3", P2, TOWER), unit("W1", P2, BATTLEFIELD),
             unit("F1", P1, RAMPARTS)]
    s = cast(position(side(hand=("E9",)), side(deck=("L9",)), board), "E9")
    assert mn(s, 0) is None and mn(s, 1).damage == 2  # each enemy Defender
    assert mn(s, 2).damage == mn(s, 3).damage == mn(s, 4).damage == 0
    assert hand_ids(s, P2) == ("L9",)  # Mist Weaver's Dying Words


@scenario("E10")
def _harvest_offering(card_id):
    s = cast(position(side(hand=("E10", "F1", "W10", "W10"))), "E10")
    assert due(s) == ("offer", P1) and legal(s) == (offer("F1"), offer("W10"))
    s = act(s, offer("W10"), offer("W10"))
    assert s.sides[P1].available == sources(Water=2) and hand_ids(s, P1) == ("F1",)
    assert ids(s.sides[P1].sacrifice) == ("W10", "W10") and due(s) == ("main", P1)


@scenario("E11")
def _deep_foundations(card_id):
    s = cast(position(side(hand=("E11",))), "E11")
    s = act(s, END, DRAW, END)
    assert towers(s) == (14, 10) and discard(s, P1) == ("E11",)


@scenario("E12")
def _earthen_wall(card_id):
    s = position(side(hand=("E12",), tp=2), side(), [unit("F4", P2, BATTLEFIELD), unit("E3", P1, TOWER),
                                                    unit("L2", P1, RAMPARTS)], active=P2)
    s = act(s, attack(0, 1), block(2), witch("E12"))
    assert (mn(s, 2).damage, mn(s, 2).bonus) == (4, 3)  # 4 damage on 4 + 3 health: alive
    assert mn(s, 0).damage == 1 and s.sides[P1].tp == 0
    s = act(s, END)
    assert mn(s, 2) is None and discard(s, P1) == ("E12", "L2")  # the +3 ended with the turn
    s = position(side(hand=("E12",), tp=2), side(), [unit("F4", P2, BATTLEFIELD), unit("L2", P1, RAMPARTS)],
                 active=P2)
    s = act(s, attack(0), SKIP, witch("E12"))  # no blocker: nothing to strengthen
    assert towers(s) == (6, 10) and mn(s, 1).bonus == 0


@scenario("W2")
def _river_trader(card_id):
    s, _ = _enter(card_id, deck=("L1", "L2"))
    assert hand_ids(s, P1) == ("L1",) and ids(s.sides[P1].deck) == ("L2",)


@scenario("W3")
def _tide_caller(card_id):
    s, _ = _enter(card_id, board=[unit("W8", P2, RAMPARTS), unit("E3", P2, TOWER)], on=1)
    assert mn(s, 1).status == EXHAUSTED and mn(s, 0).status == READY
    s = position(side(), side(), [unit("F4", P1, BATTLEFIELD), unit("W8", P2, RAMPARTS, EXHAUSTED)])
    assert due(act(s, attack(0))) == ("main", P1)  # an exhausted minion cannot block


@scenario("W4")
def _reed_serpent(card_id):
    s, uid = _enter(card_id, board=[unit("W6", P2, TOWER)])
    s = act(s._replace(minions=tuple(m._replace(zone=BATTLEFIELD, status=READY) if m.uid == uid else m
                                     for m in s.minions)), attack(uid, 0))
    assert mn(s, 0) is None and mn(s, uid) is None  # Lethal kills the Leviathan, which kills it back
    s, uid = _enter(card_id)
    s = act(s._replace(minions=(mn(s, uid)._replace(zone=BATTLEFIELD, status=READY),)), attack(uid))
    assert mn(s, uid).zone == RAMPARTS and towers(s) == (10, 7)  # Retreating


@scenario("W7")
def _mist_weaver(card_id):
    s, uid = _enter(card_id, deck=("L1",), board=[unit("S8", P2, BATTLEFIELD)])
    s = act(s._replace(active=P2), attack(0, uid))
    assert mn(s, uid) is None and hand_ids(s, P1) == ("L1",)  # Dying Words: its controller draws


@scenario("W9")
def _tidal_surge(card_id):
    board = [unit("F8", P2, TOWER, EXHAUSTED, damage=1, sentenced=True), unit("F1", P1, TOWER)]
    s = cast(position(side(hand=("W9",)), side(), board), "W9", 0)
    assert [m.uid for m in s.minions] == [1] and hand_ids(s, P2) == ("F8",)
    assert towers(s) == (10, 10) and discard(s, P2) == ()  # not a death: no Dying Words
    s = cast(position(side(hand=("W9",)), side(), board), "W9", 1)
    assert hand_ids(s, P1) == ("F1",)


@scenario("W10")
def _insight(card_id):
    s = cast(position(side(hand=("W10",), deck=("L1", "L2", "L3"))), "W10")
    assert hand_ids(s, P1) == ("L1", "L2") and ids(s.sides[P1].deck) == ("L3",)


@scenario("W11")
def _rising_waters(card_id):
    board = [unit("L2", P2, RAMPARTS), unit("W8", P2, RAMPARTS, sentenced=True), unit("E3", P2, TOWER),
             unit("F1", P1, RAMPARTS, EXHAUSTED)]
    s = cast(position(side(hand=("W11",)), side(), board), "W11")
    s = act(s, END, DRAW, END)
    assert [m.status for m in s.minions] == [EXHAUSTED, EXHAUSTED, READY, READY]
    assert mn(s, 1).damage == 1 and discard(s, P1) == ("W11",)


@scenario("W12")
def _whirlpool(card_id):
    s = position(side(hand=("W12",), tp=2), side(), [unit("F4", P2, BATTLEFIELD), unit("L2", P1, RAMPARTS)],
                 active=P2)
    s = act(s, attack(0), block(1), witch("W12"))
    assert (mn(s, 0).zone, mn(s, 0).status, mn(s, 0).damage) == (RAMPARTS, EXHAUSTED, 0)
    assert (mn(s, 1).status, mn(s, 1).damage) == (READY, 0) and towers(s) == (10, 10) and s.attack is None
    assert s.sides[P1].tp == 0 and discard(s, P1) == ("W12",)


@scenario("S1")
def _grave_robber(card_id):
    s, uid = _enter(card_id)
    s = act(s._replace(minions=(mn(s, uid)._replace(zone=BATTLEFIELD, status=READY),)), attack(uid))
    assert towers(s) == (11, 9)


@scenario("S3")
def _venom_priestess(card_id):
    s, uid = _enter(card_id, board=[unit("E5", P2, TOWER)])
    s = act(s._replace(minions=tuple(m._replace(zone=BATTLEFIELD, status=READY) if m.uid == uid else m
                                     for m in s.minions)), attack(uid, 0))
    assert mn(s, 0) is None and mn(s, uid).damage == 1  # 1 might, Lethal: the 5-health Golem dies


@scenario("S4")
def _plague_bearer(card_id):
    s, uid = _enter(card_id, board=[unit("W8", P2, TOWER), unit("E3", P2, TOWER)])
    s = act(s._replace(minions=tuple(m._replace(zone=BATTLEFIELD, status=READY) if m.uid == uid else m
                                     for m in s.minions)), attack(uid, 0))
    assert mn(s, uid) is None and due(s) == ("target", P1) and legal(s) == (target(0), target(1))
    s = act(s, target(1))
    assert [m.sentenced for m in s.minions] == [False, True]


@scenario("S6")
def _bone_mason(card_id):
    s, uid = _enter(card_id, board=[unit("S8", P2, BATTLEFIELD)])
    s = act(s._replace(active=P2), attack(0, uid))
    assert mn(s, uid) is None and towers(s) == (12, 10)


@scenario("S8")
def _lord_of_the_pit(card_id):
    s, uid = _enter(card_id, board=[unit("L2", P2, RAMPARTS)])
    s = act(s._replace(minions=tuple(m._replace(zone=BATTLEFIELD, status=READY) if m.uid == uid else m
                                     for m in s.minions)), attack(uid), block(0))
    assert mn(s, 0) is None and towers(s) == (10, 8)  # Crush: 6 - 4


@scenario("S9")
def _curse_of_weakness(card_id):
    s = cast(position(side(hand=("S9",)), side(), [unit("W8", P2, TOWER), unit("F1", P1, TOWER)]), "S9", 0)
    assert (mn(s, 0).sentenced, mn(s, 0).damage) == (True, 1) and not mn(s, 1).sentenced
    s = cast(position(side(hand=("S9",)), side(), [unit("W7", P2, TOWER)]), "S9", 0)
    assert s.minions == ()


@scenario("S10")
def _dark_pact(card_id):
    board = [unit("S6", P1, TOWER), unit("W8", P2, TOWER)]
    s = position(side(hand=("S10",), available=(9,) * 5), side(), board)
    assert plays(s) == [play("S10", 0)]  # friendly only
    s = cast(position(side(hand=("S10",), deck=("L1", "L2", "L3")), side(), board), "S10", 0)
    assert mn(s, 0) is None and hand_ids(s, P1) == ("L1", "L2") and towers(s) == (12, 10)  # + Bone Mason's +2
    assert discard(s, P1) == ("S10", "S6") and tally(s, P1, "deaths") == 1


@scenario("S11")
def _creeping_rot(card_id):
    s = cast(position(side(hand=("S11",)), side(tower=15)), "S11")
    s = act(s, END, DRAW, END)
    assert towers(s) == (10, 12) and discard(s, P1) == ("S11",)


@scenario("S12")
def _ambush(card_id):
    s = position(side(hand=("S12",), tp=1), side(), [unit("F4", P2, BATTLEFIELD), unit("L1", P1, TOWER)], active=P2)
    s = act(s, attack(0, 1), witch("S12"))
    assert mn(s, 0).sentenced and mn(s, 0).damage == 0 and s.sides[P1].tp == 0
    s = act(s._replace(minions=(mn(s, 0)._replace(status=READY),)), attack(0))
    assert mn(s, 0).damage == 1  # sentenced: 1 damage each time it becomes exhausted


def test_every_card_of_the_pool_has_a_scenario():
    assert set(CARD_SCENARIOS) == {c.id for c in POOL} == set(ALL_IDS)


@pytest.mark.parametrize("card_id", sorted(CARD_SCENARIOS, key=ALL_IDS.index))
def test_card_scenario(card_id):
    CARD_SCENARIOS[card_id](card_id)


# ============================================================================ more rule sentences
def test_only_witcheries_are_played_in_the_opponents_turn():
    s = position(side(), side(hand=("S12", "F9", "L9"), tp=3, available=sources(Fire=5, Light=5)),
                 [unit("F4", P1, BATTLEFIELD)])
    s = act(s, attack(0))
    assert legal(s) == (SKIP, witch("S12"))


def test_an_exhausted_minion_that_is_attacked_still_clashes():
    """Judgement call: "exhausted minions can't ... defend" is read as "can't block"; a target deals damage back."""
    s = act(position(side(), side(), [unit("F4", P1, BATTLEFIELD), unit("W8", P2, TOWER, EXHAUSTED)]), attack(0, 1))
    assert s.minions == ()


def test_pyre_drake_blocked_on_the_tower_twinstrikes_a_defender_and_crushes_into_the_tower():
    s = position(side(), side(), [unit("F7", P1, BATTLEFIELD), unit("L2", P2, RAMPARTS), unit("W1", P2, RAMPARTS),
                                  unit("E3", P2, TOWER)])
    s = act(s, attack(0), block(1))  # Twinstrike's only other Defender is chosen automatically
    assert mn(s, 1) is None and mn(s, 2) is None and mn(s, 3).damage == 0
    assert towers(s) == (10, 8) and mn(s, 0).damage == 1  # 6 - 4 health crushes into the tower


def test_dying_words_resolve_after_the_action_in_the_order_the_minions_died():
    s = position(side(), side(deck=("L1", "L2")), [unit("F7", P1, BATTLEFIELD), unit("W7", P2, TOWER),
                                                   unit("F8", P2, TOWER), unit("S4", P2, RAMPARTS, EXHAUSTED)])
    s = act(s, attack(0, 1))  # Mist Weaver (draw) and Kiln Keeper (2 to p1's tower) die in one clash
    assert hand_ids(s, P2) == ("L1",) and towers(s) == (8, 10) and mn(s, 3) is not None


def test_a_trigger_of_the_non_active_players_minion_is_that_players_decision():
    s = position(side(hand=("F9",), available=sources(Fire=3)), side(),
                 [unit("S4", P2, TOWER), unit("F1", P1, TOWER), unit("E3", P1, RAMPARTS)])
    s = act(s, play("F9", 0))  # p1 kills p2's Plague Bearer: p2 chooses whom its Dying Words sentence
    assert due(s) == ("target", P2) and MODEL.current_player(CONFIG, s) == P2
    assert MODEL.legal_actions(CONFIG, s, P1) == () and MODEL.legal_actions(CONFIG, s, P2) == (target(1), target(2))
    s = act(s, target(2))
    assert [m.sentenced for m in s.minions] == [False, True] and due(s) == ("main", P1)


# ===================================================================================== bad input
def _over():
    return act(position(side(tower=48), side(), [unit("E3", P1, TOWER)]), build(0))


@pytest.mark.parametrize(("make", "action", "message"), [
    (lambda: position(side(), side(), [unit("E3", P1, RAMPARTS)]), build(0),
     r"illegal action build #0 at the main decision of p1: it is not among the legal actions"),
    (lambda: position(side(), side(), [unit("L2", P2, RAMPARTS)]), block(0), r"illegal action block #0 at the main"),
    (lambda: act(position(side(), side(hand=("S12",), tp=1), [unit("F4", P1, BATTLEFIELD)]), attack(0)), END,
     r"illegal action end at the witch decision of p2"),
    (lambda: position(side(hand=("F9",), available=sources(Fire=3))), play("F9", 7), r"illegal action play F9 on #7|"
     r"illegal action play card \d+ on #7"),
    (_over, END, r"illegal action end at the end of the game"),
    (position, "end", r"'end' is not an action \(kind, a, b\)"),
    (position, (1.5, 0, 0), r"\(1.5, 0, 0\) is not an action"),
    (position, (1, 2, 3, 4, 5), r"is not an action"),
    (position, None, r"None is not an action"),
])
def test_an_illegal_action_is_one_clear_error_and_changes_nothing(make, action, message):
    s = make()
    snapshot = repr(s)
    with pytest.raises(InputError, match=message) as err:
        MODEL.apply(CONFIG, s, action)
    assert str(err.value).startswith("babylon: ") and "\n" not in str(err.value)
    assert repr(s) == snapshot  # the state given is untouched; no new state was produced


def _shipped_line(prefix):
    from workbench.games.babylon.cards import CARDS_CSV
    return next(line for line in CARDS_CSV.read_text(encoding="utf-8").splitlines() if line.startswith(prefix))


@pytest.mark.parametrize(("what", "old", "new", "message"), [
    ("cards", "F4,Scarlet Elder,Fire,Minion,5,2,,3,4,3", "F4,Scarlet Elder,Fire,Minion,5,2,,3,four,3",
     "row 5, column 'might': 'four' is not a whole number"),
    ("cards", "F2,Cinder Hound,Fire,Minion,2,1,,0,3,1,Beast,C,Retreating",
     "F2,Cinder Hound,Fire,Minion,2,1,,0,3,1,Beast,C,Retreat", "row 3, column 'keywords': unknown keyword 'Retreat'"),
    ("cards", "play: damage minion 4", "play: damage a_minion 4", "row 10, column 'text': unknown target 'a_minion'"),
    ("decks", "F1 = 3", "F1 = 2", "deck [siege_of_ur], cards: has 59 cards; a deck must have exactly 60"),
])
def test_the_cli_refuses_bad_data_with_one_line_and_writes_nothing(tmp_path, capsys, what, old, new, message):
    from workbench.cli import main
    from workbench.games.babylon.cards import CARDS_CSV, DECKS_TOML
    source = {"cards": CARDS_CSV, "decks": DECKS_TOML}[what]
    text = source.read_text(encoding="utf-8")
    assert old in text
    bad = tmp_path / source.name
    bad.write_text(text.replace(old, new, 1), encoding="utf-8")
    out = tmp_path / "out" / "games.parquet"
    out.parent.mkdir()
    code = main(["simulate", "babylon", "--games", "2", "--agents", "random,random", "--quiet", f"--{what}",
                 str(bad), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert list(out.parent.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == sorted([bad.name, "out"])


# ==================================================================================== conservation
PAIRINGS = [("night_raid", "tide_of_whispers", "p2"), ("tide_of_whispers", "builders_of_babel", "p1"),
            ("builders_of_babel", "night_raid", "random"), ("citadel_of_the_rivers", "siege_of_ur", "p2")]


@pytest.mark.parametrize(("deck_p1", "deck_p2", "first"), PAIRINGS)
def test_random_games_of_every_deck_keep_every_invariant_and_every_legal_action_applies(deck_p1, deck_p2, first):
    """What the conformance suite (default decks and numbers) lacks: the Shadow decks, the other seat first,
    long games that empty the decks, every legal action tried at every step, and the counters' ledgers."""
    from workbench.core.sim.play import play_game

    params = MODEL.resolve_params({"deck_p1": deck_p1, "deck_p2": deck_p2, "first": first, "turns": 60,
                                   "win_tower": 500, "mulligan": 2, "second_cards": 0})
    config = MODEL.make_config(params)
    agents = [MODEL.make_agent("random")] * 2
    seen = Counter()

    def check(before, who, action, after):
        assert MODEL.invariants(config, after) == []
        action = Action(*action)
        seen[rules.KINDS[action.kind]] += 1
        for seat in (P1, P2):
            b, a = before.sides[seat], after.sides[seat]
            offered = a.tally[T("offerings")] - b.tally[T("offerings")]
            assert sum(a.available) + sum(a.exhausted) - sum(b.available) - sum(b.exhausted) == offered
            assert len(a.sacrifice) - len(b.sacrifice) == offered
            spent = config.cards[action.a].tp if action.kind == rules.K_WITCH and seat == who else 0
            gained = sum(b.available) if action.kind == rules.K_END and seat == who else 0
            assert a.tp - b.tp == gained - spent
        assert after.turn == sum(sd.turns for sd in after.sides)
        assert abs(after.sides[P1].turns - after.sides[P2].turns) <= 1
        d = rules.decision(after)
        if d is None:
            return
        kind, seat = d
        assert seat == (1 - after.active if kind in (rules.BLOCK, rules.WITCH) else after.active) or kind in (
            rules.MULLIGAN, rules.OFFER, rules.TARGET)
        if kind == rules.START:
            mine = [m for m in after.minions if m.owner == after.active]
            assert all(m.status == READY and m.bonus == 0 for m in mine)
            assert all(m.damage == 0 for m in mine if config.cards[m.card].regenerating)
            assert after.sides[after.active].exhausted == (0,) * 5
        for option in rules.legal_actions(config, after):
            assert MODEL.invariants(config, rules.apply(config, after, option)) == []

    for seed in (3,):
        final = play_game(MODEL, config, agents, seed, max_steps=MODEL.max_steps(params), observer=check)
        assert final.outcome is not None and final.sides[P1].turns == final.sides[P2].turns == 60
        assert all(sd.deck == () for sd in final.sides)  # 60 turns of at least one draw empty a 60-card deck
    assert {"play", "attack", "build", "move", "end", "draw", "offer"} <= set(seen)


def test_a_witchery_text_that_chooses_a_minion_is_refused_at_load(tmp_path):
    from workbench.games.babylon.cards import CARDS_CSV

    text = CARDS_CSV.read_text(encoding="utf-8").replace("enemy_attacks: damage attacker 3",
                                                         "enemy_attacks: damage enemy_minion 3")
    path = tmp_path / "cards.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=r"card F12 \(Backdraft\): a Witchery's text cannot choose a minion"):
        MODEL.make_config(MODEL.resolve_params({"cards": str(path)}))
