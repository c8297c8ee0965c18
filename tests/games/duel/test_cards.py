"""One hand-traced scenario per card: the position before → the position after playing it.

Every expected value below was worked out by hand from the rules text and the project's readings
(docs/rules/duel.md), not by running the engine.  A position is
``(tower, wall, mines, monasteries, barracks, ore, mana, troops)``; the mover pays the card's cost
in its colour first (red: ore, blue: mana, green: troops), then the effect runs.  Conditional
cards have one row per branch; before-states are chosen to exercise clamping at 0, wall-first
damage, damage that skips the wall and the strictness of comparisons.  The default battlefield is
Crystal Garden (win at tower 75 / 200 resources), so no row ends the game.

``flow`` is what happens to the turn: ``end`` (hand refilled, turn passes), ``again`` (same player
acts again, no refill yet) or ``draw`` (one card drawn, a discard is now due).
"""

from __future__ import annotations

import csv

import pytest

from workbench.core.rng import SplitMix64
from workbench.games.duel import rules
from workbench.games.duel.data import CARDS_CSV, load_battlefields, load_cards
from workbench.games.duel.rules import PLAY, Action, Config, GameState, PlayerState

CARDS = load_cards()
CONFIG = Config(cards=CARDS, battlefield=load_battlefields()["crystal_garden"])

#        tower wall mines monast barracks ore mana troops
ME = (20, 8, 3, 3, 3, 20, 20, 20)  # the usual mover
EN = (22, 6, 2, 4, 3, 10, 10, 10)  # the usual enemy

# (card key, branch, me before, enemy before, me after, enemy after, flow)
CASES = [
    # ---------------------------------------------------------------- red: cost in ore
    ("bad_ore", "enemy clamps", (20, 8, 3, 3, 3, 12, 20, 20), (22, 6, 2, 4, 3, 5, 10, 10),
     (20, 8, 3, 3, 3, 4, 20, 20), (22, 6, 2, 4, 3, 0, 10, 10), "end"),
    ("earthquake", "enemy mines clamp", ME, (22, 6, 0, 4, 3, 10, 10, 10),
     (20, 8, 2, 3, 3, 20, 20, 20), (22, 6, 0, 4, 3, 10, 10, 10), "end"),
    ("mine_collapse", "own mines clamp", (20, 8, 0, 3, 3, 20, 20, 20), EN,
     (20, 18, 0, 3, 3, 20, 25, 20), EN, "end"),
    ("lucky_coin", "", ME, EN, (20, 8, 3, 3, 3, 22, 22, 20), EN, "again"),
    ("fertile_ground", "", ME, EN, (20, 9, 3, 3, 3, 19, 20, 20), EN, "again"),
    ("rock_garden", "", ME, EN, (21, 9, 3, 3, 3, 19, 20, 22), EN, "end"),
    ("innovation", "", ME, EN, (20, 8, 4, 3, 3, 18, 24, 20), (22, 6, 3, 4, 3, 10, 10, 10), "end"),
    ("basic_wall", "", ME, EN, (20, 11, 3, 3, 3, 18, 20, 20), EN, "end"),
    ("overtime", "mana clamps", (20, 8, 3, 3, 3, 20, 4, 20), EN, (20, 13, 3, 3, 3, 18, 0, 20), EN, "end"),
    ("big_wall", "", ME, EN, (20, 12, 3, 3, 3, 17, 20, 20), EN, "end"),
    ("foundations", "no wall", (20, 0, 3, 3, 3, 20, 20, 20), EN, (20, 5, 3, 3, 3, 17, 20, 20), EN, "end"),
    ("foundations", "has wall", ME, EN, (20, 11, 3, 3, 3, 17, 20, 20), EN, "end"),
    ("miners", "", ME, EN, (20, 8, 4, 3, 3, 17, 20, 20), EN, "end"),
    ("rich_vein", "fewer mines", (20, 8, 1, 3, 3, 20, 20, 20), EN, (20, 8, 3, 3, 3, 16, 20, 20), EN, "end"),
    ("rich_vein", "equal mines", (20, 8, 2, 3, 3, 20, 20, 20), EN, (20, 8, 3, 3, 3, 16, 20, 20), EN, "end"),
    ("cave_in", "", ME, EN, (20, 8, 3, 3, 3, 16, 20, 20), (22, 6, 1, 4, 3, 10, 10, 10), "end"),
    ("cave_in", "clamps", ME, (22, 6, 0, 4, 3, 10, 10, 10),
     (20, 8, 3, 3, 3, 16, 20, 20), (22, 6, 0, 4, 3, 10, 10, 10), "end"),
    ("tech_theft", "fewer mines", (20, 8, 1, 3, 3, 20, 20, 20), (22, 6, 4, 4, 3, 10, 10, 10),
     (20, 8, 4, 3, 3, 15, 20, 20), (22, 6, 4, 4, 3, 10, 10, 10), "end"),
    ("tech_theft", "more mines", (20, 8, 5, 3, 3, 20, 20, 20), (22, 6, 4, 4, 3, 10, 10, 10),
     (20, 8, 5, 3, 3, 15, 20, 20), (22, 6, 4, 4, 3, 10, 10, 10), "end"),
    ("reinforced_wall", "", ME, EN, (20, 14, 3, 3, 3, 15, 20, 20), EN, "end"),
    ("groundwater", "own wall lower", (20, 5, 3, 3, 3, 20, 20, 20), EN,
     (18, 5, 3, 3, 2, 14, 20, 20), EN, "end"),
    ("groundwater", "enemy wall lower", ME, EN, (20, 8, 3, 3, 3, 14, 20, 20), (20, 6, 2, 4, 2, 10, 10, 10), "end"),
    ("groundwater", "equal walls: both", (20, 6, 3, 3, 3, 20, 20, 20), (1, 6, 2, 4, 0, 10, 10, 10),
     (18, 6, 3, 3, 2, 14, 20, 20), (0, 6, 2, 4, 0, 10, 10, 10), "won"),
    ("new_equipment", "", ME, EN, (20, 8, 5, 3, 3, 14, 20, 20), EN, "end"),
    ("dwarven_miners", "", ME, EN, (20, 12, 4, 3, 3, 13, 20, 20), EN, "end"),
    ("forced_labour", "troops clamp", (20, 8, 3, 3, 3, 20, 20, 3), EN, (20, 17, 3, 3, 3, 13, 20, 0), EN, "end"),
    ("tremor", "walls only, clamp", ME, (22, 3, 2, 4, 3, 10, 10, 10),
     (20, 3, 3, 3, 3, 13, 20, 20), (22, 0, 2, 4, 3, 10, 10, 10), "again"),
    ("great_wall", "", ME, EN, (20, 16, 3, 3, 3, 12, 20, 20), EN, "end"),
    ("secret_cave", "", ME, EN, (20, 8, 3, 4, 3, 12, 20, 20), EN, "again"),
    ("mine_tunnel", "", ME, EN, (20, 13, 3, 3, 4, 11, 20, 20), EN, "end"),
    ("magic_mountain", "", ME, EN, (20, 15, 3, 3, 3, 11, 27, 20), EN, "end"),
    ("barracks", "fewer barracks", (20, 8, 3, 3, 2, 20, 20, 20), EN, (20, 14, 3, 3, 3, 10, 20, 26), EN, "end"),
    ("barracks", "equal barracks", ME, EN, (20, 14, 3, 3, 3, 10, 20, 26), EN, "end"),
    ("singing_coal", "", ME, EN, (23, 14, 3, 3, 3, 9, 20, 20), EN, "end"),
    ("bastion", "", ME, EN, (20, 20, 3, 3, 3, 7, 20, 20), EN, "end"),
    ("battlements", "damage spills past the wall", ME, (22, 4, 2, 4, 3, 10, 10, 10),
     (20, 15, 3, 3, 3, 6, 20, 20), (20, 0, 2, 4, 3, 10, 10, 10), "end"),
    ("new_summit", "", ME, EN, (25, 16, 3, 3, 3, 5, 20, 20), EN, "end"),
    ("greatest_wall", "", ME, EN, (20, 23, 3, 3, 3, 4, 20, 20), EN, "end"),
    ("exchange", "", ME, (22, 30, 2, 4, 3, 10, 10, 10),
     (20, 30, 3, 3, 3, 3, 20, 20), (22, 8, 2, 4, 3, 10, 10, 10), "end"),
    ("stone_launcher", "", ME, EN, (20, 14, 3, 3, 3, 2, 20, 20), (18, 0, 2, 4, 3, 10, 10, 10), "end"),
    ("dragons_heart", "", (20, 8, 3, 3, 3, 30, 20, 20), EN, (28, 28, 3, 3, 3, 6, 20, 20), EN, "end"),
    # ---------------------------------------------------------------- blue: cost in mana
    ("trinket", "lower tower", ME, EN, (22, 8, 3, 3, 3, 20, 20, 20), EN, "end"),
    ("trinket", "equal towers", (22, 8, 3, 3, 3, 20, 20, 20), EN, (23, 8, 3, 3, 3, 20, 20, 20), EN, "end"),
    ("rainbow", "", ME, EN, (21, 8, 3, 3, 3, 20, 23, 20), (23, 6, 2, 4, 3, 10, 10, 10), "end"),
    ("quartz", "", ME, EN, (21, 8, 3, 3, 3, 20, 19, 20), EN, "again"),
    ("amethyst", "", ME, EN, (23, 8, 3, 3, 3, 20, 18, 20), EN, "end"),
    ("smoky_quartz", "skips the wall", ME, EN, (20, 8, 3, 3, 3, 20, 18, 20), (21, 6, 2, 4, 3, 10, 10, 10), "again"),
    ("prism", "", ME, EN, (20, 8, 3, 3, 3, 20, 18, 20), EN, "draw"),
    ("crack", "skips the wall", ME, EN, (20, 8, 3, 3, 3, 20, 18, 20), (19, 6, 2, 4, 3, 10, 10, 10), "end"),
    ("power_burst", "own tower, wall untouched", ME, EN, (15, 8, 3, 5, 3, 20, 17, 20), EN, "end"),
    ("ruby", "", ME, EN, (25, 8, 3, 3, 3, 20, 17, 20), EN, "end"),
    ("spell_weaver", "", ME, EN, (20, 8, 3, 4, 3, 20, 17, 20), EN, "end"),
    ("eclipse", "", ME, EN, (22, 8, 3, 3, 3, 20, 16, 20), (20, 6, 2, 4, 3, 10, 10, 10), "end"),
    ("spear", "", ME, EN, (20, 8, 3, 3, 3, 20, 16, 20), (17, 6, 2, 4, 3, 10, 10, 10), "end"),
    ("labour_aid", "ore clamps", (20, 8, 3, 3, 3, 6, 20, 20), EN, (27, 8, 3, 3, 3, 0, 16, 20), EN, "end"),
    ("opener", "", ME, EN, (24, 8, 3, 3, 3, 20, 15, 17), (20, 6, 2, 4, 3, 10, 10, 10), "end"),
    ("discord", "towers only, monasteries clamp", ME, (22, 6, 2, 0, 3, 10, 10, 10),
     (13, 8, 3, 2, 3, 20, 15, 20), (15, 6, 2, 0, 3, 10, 10, 10), "end"),
    ("ore_vein", "", ME, EN, (28, 8, 3, 3, 3, 20, 15, 20), EN, "end"),
    ("matrix", "", ME, EN, (23, 8, 3, 4, 3, 20, 14, 20), (23, 6, 2, 4, 3, 10, 10, 10), "end"),
    ("emerald", "", ME, EN, (28, 8, 3, 3, 3, 20, 14, 20), EN, "end"),
    ("harmony", "", ME, EN, (23, 11, 3, 4, 3, 20, 13, 20), EN, "end"),
    ("soft_stone", "enemy ore clamps", ME, (22, 6, 2, 4, 3, 4, 10, 10),
     (25, 8, 3, 3, 3, 20, 13, 20), (22, 6, 2, 4, 3, 0, 10, 10), "end"),
    ("parity", "fewer monasteries", ME, EN, (20, 8, 3, 4, 3, 20, 13, 20), EN, "end"),
    ("parity", "more monasteries", (20, 8, 3, 5, 3, 20, 20, 20), EN,
     (20, 8, 3, 5, 3, 20, 13, 20), (22, 6, 2, 5, 3, 10, 10, 10), "end"),
    ("shattering", "", ME, EN, (20, 8, 3, 2, 3, 20, 12, 20), (13, 6, 2, 4, 3, 10, 10, 10), "end"),
    ("hardening", "wall clamps", (20, 4, 3, 3, 3, 20, 20, 20), EN, (31, 0, 3, 3, 3, 20, 12, 20), EN, "end"),
    ("pearl_of_wisdom", "", ME, EN, (25, 8, 3, 4, 3, 20, 11, 20), EN, "end"),
    ("sapphire", "", ME, EN, (31, 8, 3, 3, 3, 20, 10, 20), EN, "end"),
    ("lightning", "tower above enemy wall", ME, EN,
     (20, 8, 3, 3, 3, 20, 9, 20), (14, 6, 2, 4, 3, 10, 10, 10), "end"),
    ("lightning", "tower equal to enemy wall: everyone", (20, 5, 3, 3, 3, 20, 20, 20), (22, 20, 2, 4, 3, 10, 10, 10),
     (17, 0, 3, 3, 3, 20, 9, 20), (22, 12, 2, 4, 3, 10, 10, 10), "end"),
    ("crystal_shield", "", ME, EN, (28, 11, 3, 3, 3, 20, 8, 20), EN, "end"),
    ("fire_ruby", "", ME, EN, (26, 8, 3, 3, 3, 20, 7, 20), (18, 6, 2, 4, 3, 10, 10, 10), "end"),
    ("empathy", "", ME, EN, (28, 8, 3, 3, 4, 20, 6, 20), EN, "end"),
    ("monastery", "", ME, EN, (30, 13, 3, 3, 3, 20, 5, 25), EN, "end"),
    ("diamond", "", ME, EN, (35, 8, 3, 3, 3, 20, 4, 20), EN, "end"),
    ("shining_stone", "", ME, (22, 2, 2, 4, 3, 10, 10, 10),
     (32, 8, 3, 3, 3, 20, 3, 20), (18, 0, 2, 4, 3, 10, 10, 10), "end"),
    ("meditation", "", ME, EN, (33, 8, 3, 3, 3, 26, 2, 26), EN, "end"),
    ("dragons_eye", "", (20, 8, 3, 3, 3, 20, 25, 20), EN, (40, 8, 3, 3, 3, 20, 4, 20), EN, "end"),
    # ---------------------------------------------------------------- green: cost in troops
    ("mad_cow", "enemy clamps", ME, (22, 6, 2, 4, 3, 10, 10, 4),
     (20, 8, 3, 3, 3, 20, 20, 14), (22, 6, 2, 4, 3, 10, 10, 0), "end"),
    ("full_moon", "", ME, EN, (20, 8, 3, 3, 4, 20, 20, 23), (22, 6, 2, 4, 4, 10, 10, 10), "end"),
    ("goblin", "mana clamps", (20, 8, 3, 3, 3, 20, 2, 20), EN,
     (20, 8, 3, 3, 3, 20, 0, 19), (22, 2, 2, 4, 3, 10, 10, 10), "end"),
    ("fairy", "spills past the wall", ME, (22, 1, 2, 4, 3, 10, 10, 10),
     (20, 8, 3, 3, 3, 20, 20, 19), (21, 0, 2, 4, 3, 10, 10, 10), "again"),
    ("dwarf", "", ME, EN, (20, 8, 3, 3, 3, 20, 21, 18), (22, 3, 2, 4, 3, 10, 10, 10), "end"),
    ("spearman", "higher wall", ME, EN, (20, 8, 3, 3, 3, 20, 20, 18), (22, 3, 2, 4, 3, 10, 10, 10), "end"),
    ("spearman", "equal walls", (20, 6, 3, 3, 3, 20, 20, 20), EN,
     (20, 6, 3, 3, 3, 20, 20, 18), (22, 4, 2, 4, 3, 10, 10, 10), "end"),
    ("elven_scout", "", ME, EN, (20, 8, 3, 3, 3, 20, 20, 18), EN, "draw"),
    ("goblin_mob", "both walls give way", (20, 2, 3, 3, 3, 20, 20, 20), (22, 4, 2, 4, 3, 10, 10, 10),
     (19, 0, 3, 3, 3, 20, 20, 17), (20, 0, 2, 4, 3, 10, 10, 10), "end"),
    ("minotaur", "", ME, EN, (20, 8, 3, 3, 4, 20, 20, 17), EN, "end"),
    ("orc", "no enemy wall", ME, (22, 0, 2, 4, 3, 10, 10, 10),
     (20, 8, 3, 3, 3, 20, 20, 17), (17, 0, 2, 4, 3, 10, 10, 10), "end"),
    ("berserker", "", ME, EN, (17, 8, 3, 3, 3, 20, 20, 16), (20, 0, 2, 4, 3, 10, 10, 10), "end"),
    ("goblin_archers", "", ME, EN, (20, 7, 3, 3, 3, 20, 20, 16), (19, 6, 2, 4, 3, 10, 10, 10), "end"),
    ("dwarves", "", ME, EN, (20, 11, 3, 3, 3, 20, 20, 15), (22, 2, 2, 4, 3, 10, 10, 10), "end"),
    ("slasher", "wall absorbs exactly", ME, EN, (20, 8, 3, 3, 3, 20, 20, 15), (22, 0, 2, 4, 3, 10, 10, 10), "end"),
    ("imp", "everyone's stock, clamps", ME, (22, 6, 2, 4, 3, 3, 10, 4),
     (20, 8, 3, 3, 3, 15, 15, 10), (22, 0, 2, 4, 3, 0, 5, 0), "end"),
    ("mad_sheep", "", ME, EN, (20, 8, 3, 3, 3, 20, 20, 14), (22, 0, 2, 4, 3, 10, 10, 7), "end"),
    ("little_snake", "", ME, EN, (20, 8, 3, 3, 3, 20, 20, 14), (18, 6, 2, 4, 3, 10, 10, 10), "end"),
    ("ogre", "", ME, EN, (20, 8, 3, 3, 3, 20, 20, 14), (21, 0, 2, 4, 3, 10, 10, 10), "end"),
    ("ghost_fairy", "", ME, EN, (20, 8, 3, 3, 3, 20, 20, 14), (20, 6, 2, 4, 3, 10, 10, 10), "again"),
    ("troll_trainer", "", ME, EN, (20, 8, 3, 3, 5, 20, 20, 13), EN, "end"),
    ("tower_gremlin", "", ME, EN, (22, 12, 3, 3, 3, 20, 20, 12), (22, 4, 2, 4, 3, 10, 10, 10), "end"),
    ("giant_beetle", "no enemy wall", ME, (22, 0, 2, 4, 3, 10, 10, 10),
     (20, 8, 3, 3, 3, 20, 20, 12), (12, 0, 2, 4, 3, 10, 10, 10), "end"),
    ("giant_beetle", "enemy wall", ME, (22, 4, 2, 4, 3, 10, 10, 10),
     (20, 8, 3, 3, 3, 20, 20, 12), (20, 0, 2, 4, 3, 10, 10, 10), "end"),
    ("unicorn", "more monasteries", (20, 8, 3, 5, 3, 20, 20, 20), EN,
     (20, 8, 3, 5, 3, 20, 20, 11), (16, 0, 2, 4, 3, 10, 10, 10), "end"),
    ("unicorn", "equal monasteries", (20, 8, 3, 4, 3, 20, 20, 20), EN,
     (20, 8, 3, 4, 3, 20, 20, 11), (20, 0, 2, 4, 3, 10, 10, 10), "end"),
    ("werewolf", "", ME, EN, (20, 8, 3, 3, 3, 20, 20, 11), (19, 0, 2, 4, 3, 10, 10, 10), "end"),
    ("elven_archers", "higher wall: tower", ME, EN,
     (20, 8, 3, 3, 3, 20, 20, 10), (16, 6, 2, 4, 3, 10, 10, 10), "end"),
    ("elven_archers", "lower wall: ordinary", ME, (22, 10, 2, 4, 3, 10, 10, 10),
     (20, 8, 3, 3, 3, 20, 20, 10), (22, 4, 2, 4, 3, 10, 10, 10), "end"),
    ("toxic_cloud", "enemy wall above 10", ME, (22, 11, 2, 4, 3, 10, 10, 10),
     (20, 8, 3, 3, 3, 20, 20, 9), (22, 1, 2, 4, 3, 10, 10, 10), "end"),
    ("toxic_cloud", "enemy wall exactly 10", ME, (22, 10, 2, 4, 3, 10, 10, 10),
     (20, 8, 3, 3, 3, 20, 20, 9), (22, 3, 2, 4, 3, 10, 10, 10), "end"),
    ("stone_eater", "", ME, EN, (20, 8, 3, 3, 3, 20, 20, 9), (20, 0, 1, 4, 3, 10, 10, 10), "end"),
    ("thief", "full loss, 5 ore halves up to 3", ME, EN,
     (20, 8, 3, 3, 3, 23, 25, 8), (22, 6, 2, 4, 3, 5, 0, 10), "end"),
    ("thief", "enemy short: half of what was lost", ME, (22, 6, 2, 4, 3, 0, 3, 10),
     (20, 8, 3, 3, 3, 20, 22, 8), (22, 6, 2, 4, 3, 0, 0, 10), "end"),
    ("warlord", "", ME, EN, (20, 8, 3, 3, 3, 20, 17, 7), (15, 0, 2, 4, 3, 10, 10, 10), "end"),
    ("succubus", "", ME, EN, (20, 8, 3, 3, 3, 20, 20, 6), (17, 6, 2, 4, 3, 10, 10, 4), "end"),
    ("stone_giant", "", ME, EN, (20, 12, 3, 3, 3, 20, 20, 5), (18, 0, 2, 4, 3, 10, 10, 10), "end"),
    ("vampire", "", ME, EN, (20, 8, 3, 3, 3, 20, 20, 3), (18, 0, 2, 4, 2, 10, 10, 5), "end"),
    ("vampire", "barracks and troops clamp", ME, (22, 6, 2, 4, 0, 10, 10, 2),
     (20, 8, 3, 3, 3, 20, 20, 3), (18, 0, 2, 4, 0, 10, 10, 0), "end"),
    ("pegasus_lancer", "", ME, EN, (20, 8, 3, 3, 3, 20, 20, 2), (10, 6, 2, 4, 3, 10, 10, 10), "end"),
    ("dragon", "", (20, 8, 3, 3, 3, 20, 20, 30), EN, (20, 8, 3, 3, 3, 20, 20, 5), (8, 0, 2, 4, 2, 10, 0, 10), "end"),
]

# the one "won" row: Groundwater with equal walls knocks the enemy's 1-high tower down to 0
WON = {"groundwater": (0, rules.TOWER_DESTROYED)}


def _state(card: int, me: tuple, enemy: tuple, seat: int) -> GameState:
    """Seat ``seat`` to act with ``card`` in slot 0 of a six-card hand; the other cards stay out of play."""
    others = [c for c in range(len(CARDS)) if c != card]
    hand, enemy_hand, deck = (card, *others[:5]), tuple(others[5:11]), tuple(others[11:])
    players = (PlayerState(*me), PlayerState(*enemy)) if seat == 0 else (PlayerState(*enemy), PlayerState(*me))
    hands = (hand, enemy_hand) if seat == 0 else (enemy_hand, hand)
    return GameState(players, hands, deck, (), seat, 0, 1, True, False, (0, 0), (0, 0), None, ((), ()), ((), ()))


@pytest.mark.parametrize("seat", [0, 1], ids=["p1", "p2"])
@pytest.mark.parametrize(("key", "branch", "me", "enemy", "me_after", "enemy_after", "flow"), CASES,
                         ids=[f"{c[0]}-{c[1]}" if c[1] else c[0] for c in CASES])
def test_card(key, branch, me, enemy, me_after, enemy_after, flow, seat):
    card = CARDS.by_key(key)
    state = _state(card.index, me, enemy, seat)
    after = rules.play_action(state, Action(PLAY, 0), CONFIG, SplitMix64(1))
    assert tuple(after.players[seat]) == me_after
    assert tuple(after.players[1 - seat]) == enemy_after
    assert after.discard == (card.index,)  # a played card goes onto the discard pile
    if flow == "won":
        winner, reason = WON[key]
        assert after.outcome == ((seat if winner == 0 else 1 - seat), reason)
        return
    assert after.outcome is None
    if flow == "end":
        assert (after.current, after.acting, len(after.hands[seat])) == (1 - seat, False, 6)
        assert after.hands[seat][:5] == state.hands[seat][1:]
        assert after.hands[seat][5] == state.deck[0]
    elif flow == "again":
        assert (after.current, after.acting, after.pending_discard) == (seat, True, False)
        assert after.hands[seat] == state.hands[seat][1:]  # no refill until the turn ends
    else:  # draw: one card drawn, then a discard is due
        assert (after.current, after.acting, after.pending_discard) == (seat, True, True)
        assert after.hands[seat] == state.hands[seat][1:] + (state.deck[0],)


def test_table_covers_every_card_of_the_csv():
    with open(CARDS_CSV, newline="", encoding="utf-8") as f:
        keys = {row["key"] for row in csv.DictReader(f)}
    assert len(keys) == 102
    assert {c[0] for c in CASES} == keys


def test_conditional_cards_have_both_branches():
    conditional = {c.key for c in CARDS.cards if any(st.cond is not None for st in c.effect.statements)}
    assert len(conditional) == 12
    rows = {}
    for c in CASES:
        rows[c[0]] = rows.get(c[0], 0) + 1
    assert {k for k in conditional if rows[k] < 2} == set()
