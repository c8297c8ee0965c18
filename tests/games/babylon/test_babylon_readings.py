"""The open readings of Towers of Babylon's text as switches: one hand-traced scenario per value of each.

Each reading is a parameter (``docs/rules/babylon.md``, "Parameters and readings") whose first
choice is the default the workbench plays.  The expected numbers come from the text and the cards'
printed stats, worked out by hand in each test's comments: "When Clashing, both Minions deal damage
equal to its Might to the other" against "Exhausted Minions ... can't ... block or defend"; Dark
Pact, "Destroy a friendly minion, then draw two cards"; Thief, "gain levels equal to the damage they
dealt the enemy Tower"; Crush, "if they dealt more damage than the blocker had health, they deal the
excess damage to the original target"; Sentence, "takes 1 damage every time it becomes exhausted",
and a Builder builds by exhausting.  Every scenario is played on the compiled kernel too, step by step
(``twin.both``: the same legal actions, the same position after each), and the kernel's parity
variants (``fast.VARIANTS``, played by ``tests/test_parity.py``) hold each non-default value.
"""

from __future__ import annotations

import pytest

from tests.games.babylon.scenario import (
    CONFIG,
    DECKS,
    DRAW,
    END,
    P1,
    P2,
    POOL,
    attack,
    block,
    build,
    hand_ids,
    legal,
    mn,
    play,
    plays,
    position,
    side,
    sources,
    unit,
    witch,
)
from tests.games.babylon.twin import both as act
from workbench.core.errors import InputError
from workbench.games.babylon import rules
from workbench.games.babylon.engine import fast
from workbench.games.babylon.model import MODEL
from workbench.games.babylon.rules import BATTLEFIELD, EXHAUSTED, K_PLAY, RAMPARTS, TOWER

SCENARIO_DECKS = (DECKS["siege_of_ur"], DECKS["citadel_of_the_rivers"])


def towers(s):
    return s.sides[P1].tower, s.sides[P2].tower


def discard(s, seat):
    return tuple(CONFIG.cards[c].id for c in s.sides[seat].discard)


def reading(**values):
    """The scenario Config with readings switched."""
    return CONFIG._replace(**values)


# ------------------------------------------------------------------------------------------ declared
def test_every_reading_is_a_declared_choice_parameter_whose_default_is_todays_reading():
    assert MODEL.readings == ("clash_back", "dark_pact", "thief_gain", "crush_excess", "sentenced_build", "payment")
    defaults = MODEL.resolve_params()
    expected = {"clash_back": ("yes", "no"), "dark_pact": ("draws", "unplayable"), "thief_gain": ("lost", "damage"),
                "crush_excess": ("remaining", "printed"), "sentenced_build": ("counts", "fails"),
                "payment": ("chosen", "keep_playable", "others_first")}  # test_babylon_(chosen_)payment.py
    for name, choices in expected.items():
        param = MODEL.param(name)
        assert param.choices == choices and param.default == choices[0] == defaults[name]
        assert getattr(MODEL.make_config(defaults), name) == choices[0]
        for other in choices[1:]:
            assert getattr(MODEL.make_config({**defaults, name: other}), name) == other
    assert "readings" in MODEL.capabilities()


def test_a_reading_value_that_does_not_exist_is_one_clear_error():
    with pytest.raises(InputError, match=r"parameter 'thief_gain': 'half' is not allowed; allowed: lost \| damage"):
        MODEL.resolve_params({"thief_gain": "half"})
    with pytest.raises(InputError, match="reading clash_back 'maybe' is not allowed; allowed: yes, no"):
        rules.make_config(POOL, SCENARIO_DECKS, clash_back="maybe")
    with pytest.raises(InputError, match="'mercy' is not a reading; allowed: clash_back, dark_pact"):
        rules.make_config(POOL, SCENARIO_DECKS, mercy="yes")


def test_the_compiled_engine_declares_a_parity_variant_for_every_non_default_value():
    covered = {(k, v) for variant in fast.VARIANTS for k, v in variant.params.items() if k in rules.READINGS}
    assert covered == {(k, v) for k, values in rules.READINGS.items() for v in values[1:]}


# ------------------------------------------------------------------------------ an exhausted target
def _elder_on_exhausted_guard():
    # Scarlet Elder 3/4/3 attacks an exhausted Harbor Guard 1/3/4 in p2's Tower zone (builders cannot block)
    return position(side(), side(), [unit("F4", P1, BATTLEFIELD), unit("W8", P2, TOWER, EXHAUSTED)])


def test_clash_back_yes_an_exhausted_target_still_deals_its_might():
    s = act(_elder_on_exhausted_guard(), attack(0, 1))
    assert s.minions == ()  # 4 ≥ the Guard's 4 health, and its 3 might ≥ the Elder's 3 health: both die
    assert discard(s, P1) == ("F4",) and discard(s, P2) == ("W8",)


def test_clash_back_no_an_exhausted_target_deals_nothing_back():
    config = reading(clash_back="no")
    s = act(_elder_on_exhausted_guard(), attack(0, 1), config=config)
    assert mn(s, 1) is None and mn(s, 0).damage == 0  # the Guard dies; the Elder takes none of its 3 might
    # a target that is not exhausted still clashes back under this reading
    s = position(side(), side(), [unit("F4", P1, BATTLEFIELD), unit("W8", P2, TOWER)])
    s = act(s, attack(0, 1), config=config)
    assert s.minions == ()


def test_clash_back_no_leaves_a_blocker_clashing_back():
    # a blocker is never exhausted when it blocks: Shield Bearer 0/1/4 blocks Ember Acolyte 1/1/1 and kills it
    config = reading(clash_back="no")
    s = position(side(), side(), [unit("F1", P1, BATTLEFIELD), unit("L2", P2, RAMPARTS)])
    s = act(s, attack(0), block(1), config=config)
    assert mn(s, 0) is None and mn(s, 1).damage == 1 and mn(s, 1).status == EXHAUSTED


# ---------------------------------------------------------------------------------------- Dark Pact
def _pact(board=()):
    return position(side(hand=("S10",), deck=("L1", "L2", "L3"), available=sources(Shadow=1)), side(), board)


def test_dark_pact_draws_with_no_friendly_minion_it_is_played_and_draws_two():
    s = _pact([unit("W8", P2, TOWER)])  # only an enemy minion: nothing to destroy
    assert plays(s) == [play("S10")]
    s = act(s, play("S10"))
    assert hand_ids(s, P1) == ("L1", "L2") and mn(s, 0) is not None and discard(s, P1) == ("S10",)
    assert s.sides[P1].available == sources()  # its 1 Shadow was paid


def test_dark_pact_unplayable_with_no_friendly_minion_it_cannot_be_played():
    config = reading(dark_pact="unplayable")
    s = _pact([unit("W8", P2, TOWER)])
    assert not [a for a in legal(s, config) if a.kind == K_PLAY]
    with pytest.raises(InputError, match="not among the legal actions"):
        act(s, play("S10"), config=config)
    # with a friendly minion it is played on it, as in the other reading: destroy, then draw two
    s = act(_pact([unit("E1", P1, TOWER)]), play("S10", 0), config=config)
    assert s.minions == () and hand_ids(s, P1) == ("L1", "L2") and discard(s, P1) == ("S10", "E1")


# -------------------------------------------------------------------------------------------- Thief
def test_thief_gain_lost_gains_what_the_tower_actually_lost():
    # Burrowing Wyrm (might 4, Thief) against a tower of 3: the tower loses 3, the Wyrm's tower gains 3
    s = act(position(side(), side(tower=3), [unit("E7", P1, BATTLEFIELD)]), attack(0))
    assert towers(s) == (13, 0)
    s = act(position(side(), side(tower=0), [unit("E7", P1, BATTLEFIELD)]), attack(0))
    assert towers(s) == (10, 0)  # nothing lost, nothing gained


def test_thief_gain_damage_gains_the_full_damage_dealt():
    config = reading(thief_gain="damage")
    s = act(position(side(), side(tower=3), [unit("E7", P1, BATTLEFIELD)]), attack(0), config=config)
    assert towers(s) == (14, 0)  # 4 damage dealt, though only 3 levels were there
    s = act(position(side(), side(tower=0), [unit("E7", P1, BATTLEFIELD)]), attack(0), config=config)
    assert towers(s) == (14, 0)
    # no damage to the tower (Divine Aegis), or a blocked attack: nothing gained in either reading
    s = position(side(), side(hand=("L12",), tp=3), [unit("E7", P1, BATTLEFIELD)])
    s = act(s, attack(0), witch("L12"), config=config)
    assert towers(s) == (10, 10)
    s = position(side(), side(), [unit("S1", P1, BATTLEFIELD), unit("L2", P2, RAMPARTS)])
    assert towers(act(s, attack(0), block(1), config=config)) == (10, 10)


# -------------------------------------------------------------------------------------------- Crush
def _brute_on(blocker, config):
    # Magma Brute (might 5, Crush) attacks p2's tower and is blocked
    return act(position(side(), side(), [unit("F5", P1, BATTLEFIELD), blocker]), attack(0), block(1), config=config)


def test_crush_excess_remaining_counts_the_blockers_damage():
    s = _brute_on(unit("L2", P2, RAMPARTS, damage=2), CONFIG)  # Shield Bearer 4 health, 2 left: 5 - 2 = 3 excess
    assert towers(s) == (10, 7)
    s = _brute_on(unit("L6", P2, RAMPARTS, damage=3), CONFIG)  # Radiant Warden 6 health, 3 left: 5 - 3 = 2
    assert mn(s, 1) is None and towers(s) == (10, 8)


def test_crush_excess_printed_counts_the_blockers_printed_health():
    config = reading(crush_excess="printed")
    s = _brute_on(unit("L2", P2, RAMPARTS, damage=2), config)  # killed; 5 - 4 printed health = 1 excess
    assert mn(s, 1) is None and towers(s) == (10, 9)
    s = _brute_on(unit("L6", P2, RAMPARTS, damage=3), config)  # killed, but 5 is not more than 6: no excess
    assert mn(s, 1) is None and towers(s) == (10, 10)
    s = _brute_on(unit("L1", P2, RAMPARTS), config)  # undamaged Temple Novice: both readings agree, 5 - 2 = 3
    assert towers(s) == (10, 7)


# ----------------------------------------------------------------------------------------- Sentence
def test_sentenced_build_counts_a_builder_its_sentence_kills_still_builds():
    # Sapper of Ur 2/2/2 (Shape: 1 damage to the enemy tower) with 1 damage and a Sentence builds and dies
    s = act(position(side(), side(), [unit("F6", P1, TOWER, damage=1, sentenced=True)]), build(0))
    assert s.minions == () and towers(s) == (12, 9) and discard(s, P1) == ("F6",)


def test_sentenced_build_fails_a_builder_its_sentence_kills_builds_nothing():
    config = reading(sentenced_build="fails")
    s = act(position(side(), side(), [unit("F6", P1, TOWER, damage=1, sentenced=True)]), build(0), config=config)
    assert s.minions == () and towers(s) == (10, 10) and discard(s, P1) == ("F6",)  # no build, no Shape
    # its Dying Words still run: Kiln Keeper 2/1/2 (Dying Words: 2 damage to the enemy tower)
    s = act(position(side(), side(), [unit("F8", P1, TOWER, damage=1, sentenced=True)]), build(0), config=config)
    assert towers(s) == (10, 8)
    # a Sentenced builder that survives its exhaustion builds: Mudbrick Golem 3/1/5
    s = act(position(side(), side(), [unit("E5", P1, TOWER, sentenced=True)]), build(0), config=config)
    assert towers(s) == (13, 10) and mn(s, 0).damage == 1 and mn(s, 0).status == EXHAUSTED


def test_the_readings_change_nothing_else_in_a_turn_without_their_cases():
    # a plain turn (a build, an attack on the tower, a Dark Pact on a friendly minion) is the same in every reading
    board = [unit("E3", P1, TOWER), unit("F1", P1, BATTLEFIELD), unit("E1", P1, RAMPARTS)]
    start = position(side(hand=("S10",), deck=("L1", "L2", "L3", "L4"), available=sources(Shadow=1)), side(), board)
    steps = (build(0), attack(1), play("S10", 2), END, DRAW)
    plain = act(start, *steps)
    other = act(start, *steps, config=reading(**{k: v[1] for k, v in rules.READINGS.items()}))
    assert plain == other and towers(plain) == (12, 9) and plain.active == P2

