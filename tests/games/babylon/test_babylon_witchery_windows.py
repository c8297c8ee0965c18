"""Witchery windows beyond an attack (issue 21 item 4): "at any time" and "when a friendly Minion enters the game".

The text: "Witcheries are the only cards that can be played at the opponents turn. Some Witcheries
can be played at any time, others can only be played in certain situations, specified on the card.
These situations can be 'when a friendly Minion enters the game' or 'when an enemy Minion is
attacking'."  The effect language has a trigger for each (``any_time``, ``friendly_enters``, with
the target ``entering``: the minion that entered).  No shipped card uses them, so the cards here
are a test card set, ``witchery_windows.csv``: the shipped pool with its five rare Witcheries
rewritten (same ids, so the shipped decks hold them):

====  =================  =====  =========================================================
id    name               TP     text
====  =================  =====  =========================================================
F12   Kindled Fury       1      any_time: damage enemy_tower 2
L12   Herald's Blessing  2      friendly_enters: health entering +2 & tower own_tower +1
E12   Foundation Stone   1      any_time: tower own_tower +2
W12   Swift Current      1      friendly_enters: ready entering
S12   Ambush or Omen     1      enemy_attacks: sentence attacker; any_time: draw 1
====  =================  =====  =========================================================

Every scenario runs on both engines step by step (``twin.both``), and whole games with the set are
played on both and compared.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from polars.testing import assert_frame_equal

from tests.games.babylon.scenario import (
    DECKS,
    DRAW,
    END,
    P1,
    P2,
    SKIP,
    attack,
    hand_ids,
    legal,
    mn,
    move,
    play,
    position,
    side,
    sources,
    unit,
    witch,
)
from tests.games.babylon.twin import both
from workbench.core.errors import DataError, InputError
from workbench.core.model import AgentSpec
from workbench.core.sim.play import play_chunk
from workbench.core.sim.seeding import game_seeds
from workbench.games.babylon import rules
from workbench.games.babylon.cards import load_cards
from workbench.games.babylon.effects import EffectSyntaxError, parse_text
from workbench.games.babylon.model import MODEL
from workbench.games.babylon.rules import BATTLEFIELD, IMMOBILE, K_WITCH, RAMPARTS, READY, TOWER

WINDOWS_CSV = Path(__file__).parent / "witchery_windows.csv"
POOL = load_cards(str(WINDOWS_CSV))
CONFIG = rules.make_config(POOL, (DECKS["siege_of_ur"], DECKS["citadel_of_the_rivers"]), first="p1")


def act(s, *actions):
    return both(s, *actions, config=CONFIG)


def towers(s):
    return s.sides[P1].tower, s.sides[P2].tower


def witcheries(s, seat):
    return s.sides[seat].tally[rules.TALLIES.index("witcheries")]


def test_the_test_set_is_the_shipped_pool_with_five_witcheries_rewritten():
    shipped = {c.id: c for c in load_cards()}
    changed = {c.id for c in POOL if c != shipped[c.id]}
    assert changed == {"F12", "L12", "E12", "W12", "S12"}
    assert all(shipped[i].type == "Witchery" == next(c for c in POOL if c.id == i).type for i in changed)
    assert [c.id for c in POOL] == list(shipped)


# ------------------------------------------------------------------------------------------- the language
def test_the_language_has_both_windows_and_the_entering_target():
    effect = parse_text("friendly_enters: health entering +2 & tower own_tower +1; any_time: draw 1")
    assert effect.triggers == ("friendly_enters", "any_time")
    assert effect.clauses[0].actions[0].target == "entering"


@pytest.mark.parametrize(("text", "message"), [
    ("any_time: damage attacker 1", "target 'attacker' exists only under enemy_attacks, enemy_attacks_tower, "
                                    "not under 'any_time'"),
    ("play: ready entering", "target 'entering' exists only under 'friendly_enters', not under 'play'"),
    ("any_time: ready entering", "target 'entering' exists only under 'friendly_enters', not under 'any_time'"),
])
def test_a_target_outside_its_window_is_one_clear_error(text, message):
    with pytest.raises(EffectSyntaxError, match=message):
        parse_text(text)


def test_the_new_windows_are_for_witcheries_only_and_choose_no_minion(tmp_path):
    rows = WINDOWS_CSV.read_text(encoding="utf-8").splitlines()
    assert rows[1].startswith("F1,") and rows[1].endswith(",")  # Ember Acolyte, a Minion without text
    path = tmp_path / "cards.csv"
    path.write_text("\n".join([rows[0], rows[1] + "any_time: draw 1", *rows[2:]]) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match="trigger 'any_time' is for a Witchery"):
        load_cards(str(path))
    chooser = [r if not r.startswith("E12,") else r.replace("any_time: tower own_tower +2", "any_time: heal minion")
               for r in rows]
    path.write_text("\n".join(chooser) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="a Witchery's text cannot choose a minion"):
        rules.make_config(load_cards(str(path)), (DECKS["siege_of_ur"], DECKS["siege_of_ur"]))


# ---------------------------------------------------------------------------------------------- at any time
def test_at_any_time_a_witchery_is_played_in_its_owners_main_phase():
    s = position(side(hand=("E12", "F12"), tp=2), side())
    witches = [a for a in legal(s, CONFIG) if a.kind == K_WITCH]
    assert witches == [witch("F12"), witch("E12")]  # hand order: F12 before E12 in the pool
    s = act(s, witch("E12"))  # Foundation Stone: +2 to my tower, 1 TP
    assert towers(s) == (12, 10) and s.sides[P1].tp == 1 and hand_ids(s, P1) == ("F12",)
    assert witcheries(s, P1) == 1 and rules.decision(s) == (rules.MAIN, P1)
    s = act(s, witch("F12"))  # Kindled Fury: 2 damage to the enemy tower, the last TP
    assert towers(s) == (12, 8) and s.sides[P1].tp == 0
    assert not [a for a in legal(s, CONFIG) if a.kind == K_WITCH]


def test_at_any_time_needs_the_transformed_power():
    s = position(side(hand=("E12",), tp=0), side())
    assert not [a for a in legal(s, CONFIG) if a.kind == K_WITCH]


def test_at_any_time_a_witchery_is_played_when_an_enemy_minion_attacks():
    # p2 attacks p1's tower with Ember Acolyte (might 1); p1 answers with Foundation Stone before the hit
    s = position(side(hand=("E12",), tp=1), side(), [unit("F1", P2, BATTLEFIELD)], active=P2)
    s = act(s, attack(0))
    assert rules.decision(s) == (rules.WITCH, P1)
    assert legal(s, CONFIG) == (SKIP, witch("E12"))
    s = act(s, witch("E12"))
    assert towers(s) == (11, 10) and rules.decision(s) == (rules.MAIN, P2)  # 10 + 2 - 1


def test_an_attack_window_plays_a_witcherys_attack_clause_before_its_any_time_clause():
    # Ambush or Omen: under an attack it Sentences the attacker; in its owner's main phase it draws a card
    s = position(side(hand=("S12",), tp=1), side(), [unit("F3", P2, BATTLEFIELD)], active=P2)
    s = act(s, attack(0), witch("S12"))
    assert mn(s, 0).sentenced and hand_ids(s, P1) == ()
    s = act(position(side(hand=("S12",), deck=("L1",), tp=1), side()), witch("S12"))
    assert hand_ids(s, P1) == ("L1",) and s.minions == ()


def test_no_witchery_is_offered_in_the_opponents_main_phase_outside_a_window():
    s = position(side(), side(hand=("E12",), tp=1), [unit("E1", P1, TOWER)])
    s = act(s, rules.Action(rules.K_BUILD, 0))  # p1 builds: no window opens for p2
    assert rules.decision(s) == (rules.MAIN, P1) and hand_ids(s, P2) == ("E12",)


# ----------------------------------------------------------------------------- when a friendly minion enters
def test_when_a_friendly_minion_enters_its_controller_may_ready_it_and_move_it_at_once():
    s = position(side(hand=("E1", "W12"), available=sources(Earth=1), tp=1), side())
    s = act(s, play("E1"))
    assert rules.decision(s) == (rules.WITCH, P1) and legal(s, CONFIG) == (SKIP, witch("W12"))
    s = act(s, witch("W12"))  # Swift Current: the Clay Digger enters ready
    assert mn(s, 0).status == READY and rules.decision(s) == (rules.MAIN, P1)
    s = act(s, move(0, TOWER), rules.Action(rules.K_BUILD, 0))
    assert towers(s) == (12, 10)  # it entered, moved and built in one turn


def test_passing_closes_the_window_and_the_minion_stays_immobile():
    s = position(side(hand=("E1", "W12"), available=sources(Earth=1), tp=1), side())
    s = act(s, play("E1"), SKIP)
    assert mn(s, 0).status == IMMOBILE and rules.decision(s) == (rules.MAIN, P1) and s.entering == rules.NO_TARGET
    assert not [a for a in legal(s, CONFIG) if a.kind == K_WITCH]  # Swift Current has no any-time clause


def test_the_window_opens_after_the_swear_allegiance_and_takes_the_entering_minion():
    # River Trader 1/1/2, Swear Allegiance: draw a card; Herald's Blessing: +2 health to it and +1 to my tower
    s = position(side(hand=("W2", "L12"), deck=("E3",), available=sources(Water=2), tp=2), side())
    s = act(s, play("W2"))
    assert rules.decision(s) == (rules.WITCH, P1) and hand_ids(s, P1) == ("L12", "E3")  # drawn first
    s = act(s, witch("L12"))
    assert mn(s, 0).bonus == 2 and rules.health_left(CONFIG, mn(s, 0)) == 4 and towers(s) == (11, 10)
    s = act(s, END, DRAW)
    assert mn(s, 0).bonus == 0  # "+2 health" lasted until the end of the turn


def test_an_enemy_minion_entering_opens_no_window():
    s = position(side(hand=("E1",), available=sources(Earth=1)), side(hand=("W12", "L12"), tp=3))
    s = act(s, play("E1"))
    assert rules.decision(s) == (rules.MAIN, P1) and hand_ids(s, P2) == ("L12", "W12")


def test_no_window_without_a_witchery_for_it():
    s = position(side(hand=("E1", "E12"), available=sources(Earth=1), tp=1), side())
    s = act(s, play("E1"))  # Foundation Stone is any-time: the entering window takes it too
    assert rules.decision(s) == (rules.WITCH, P1) and legal(s, CONFIG) == (SKIP, witch("E12"))
    s = position(side(hand=("E1", "F9"), available=sources(Earth=1), tp=4), side())
    s = act(s, play("E1"))
    assert rules.decision(s) == (rules.MAIN, P1) and mn(s, 0).zone == RAMPARTS


# ------------------------------------------------------------------------------------------ whole games
@pytest.mark.parametrize("lineup", ["greedy,greedy", "random,random"])
def test_whole_games_with_the_test_set_are_the_same_on_both_engines(lineup):
    params = MODEL.resolve_params({"cards": str(WINDOWS_CSV), "deck_p1": "citadel_of_the_rivers",
                                   "deck_p2": "siege_of_ur", "second_tp": 6})
    agents = tuple(AgentSpec.parse(a) for a in lineup.split(","))
    seeds = game_seeds(21, 0, 16)
    quick = play_chunk(MODEL, params, agents, seeds, "fast")
    assert_frame_equal(quick, play_chunk(MODEL, params, agents, seeds, "reference"), check_exact=True)
    played = {c for col in ("played_p1", "played_p2") for row in quick[col] for c in row}
    assert {"W12", "L12", "E12", "F12"} & played  # the new windows were used
