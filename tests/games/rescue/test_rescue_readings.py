"""To The Rescue's readings and the rest of its text (issue 21, item 6): payoff, repeated offers, the Dusk
phase, road shortening on every shipped map, and maps read from a user's file.

Sources: ``docs/rules/rescue.md`` (the text's rules and the project's readings).  Expected values are
worked out by hand in the comments (distances counted on the maps in ``data/rescue/maps/``).
"""

from __future__ import annotations

import pytest

from workbench.cli import main
from workbench.core.errors import DataError, InputError
from workbench.core.model import get_game
from workbench.games.rescue import board as bd
from workbench.games.rescue import control as C
from workbench.games.rescue import rules as A
from workbench.games.rescue.board_studies import STUDIES as BOARD_STUDIES
from workbench.games.rescue.studies import STUDIES

MODEL = get_game("rescue")


# -- the readings are declared parameters -----------------------------------------------------------
def test_every_reading_is_a_choice_parameter_whose_default_is_the_one_played():
    assert MODEL.readings == ("payoff", "offers", "shortening")
    declared = {p.name: (p.default, p.choices) for p in MODEL.params}
    assert declared["payoff"] == ("surplus", ("surplus", "relative"))
    assert declared["offers"] == ("one", ("one", "repeated"))
    assert declared["shortening"] == ("rejoin", ("rejoin", "refuse", "gap"))
    with pytest.raises(InputError, match=r"parameter 'shortening': 'bridge' is not allowed; allowed: rejoin \| "
                                         r"refuse \| gap"):
        MODEL.resolve_params({"shortening": "bridge"})


# -- payoff ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("payoff", "bids", "returns"), [
    ("surplus", (4, 3), (2.0, 0.0)),  # p1 wins at 4, worth 6: surplus 2; the loser 0
    ("relative", (4, 3), (2.0, -2.0)),  # losing to a rival counts: p2 scores minus p1's surplus
    ("relative", (0, 5), (-1.0, 1.0)),  # p2 wins at 5: 6 - 5 = 1
    ("relative", (0, 0), (0.0, 0.0)),  # nobody: nobody's surplus
])
def test_the_payoff_reading_sets_the_games_returns(payoff, bids, returns):
    config = MODEL.make_config(MODEL.resolve_params({"payoff": payoff, "budget_p2": 5}))
    end = MODEL.apply(config, MODEL.initial_state(config, 0), bids)
    assert MODEL.returns(config, end) == returns
    assert MODEL.result_row(config, end)["surplus_p1"] == (2 if bids[0] == 4 else 0)  # the column stays the surplus


def test_the_relative_payoff_with_three_players_subtracts_the_winners_surplus():
    config = A.Config(3, (5, 5, 5), (6, 6, 6), "relative")
    assert A.payoffs(config, A.resolve((4, 0, 1))) == (2, -2, -2)


# -- taking control: repeated offers and the Dusk phase ---------------------------------------------------
@pytest.mark.parametrize(("offer", "repeats", "accepts", "refusals"), [
    (3, 1, False, 1),  # v 20 > 2·3 + 1 and 10 ≥ 4 crystals: refuses the one offer
    (3, 2, False, 2),  # refusing twice costs 8 ≤ 10 and keeps 20 (−8 > 3 − 20): refuses both
    (3, 3, True, 0),  # three refusals would cost 12 > 10: it would have to accept in the end, so it accepts at once
    (3, None, True, 0),  # no limit: the same
    (1, 4, False, 4),  # four refusals cost 8 ≤ 10, −8 > 1 − 20
])
def test_an_owner_facing_repeats_accepts_at_once_or_refuses_them_all(offer, repeats, accepts, refusals):
    assert C.owner_plan(offer, owner_value=20, owner_crystals=10, repeats=repeats) == (accepts, refusals)


@pytest.mark.parametrize(("value", "crystals", "repeats", "smallest"), [
    (20, 10, 1, 10),  # one offer: k = 9 is refused (10 ≥ 9 + 1, 20 > 19); refusing k = 10 would cost 11 > 10
    (20, 10, 2, 5),  # k = 4: two refusals cost 10 ≤ 10 and −10 > 4 − 20; k = 5: they cost 12 > 10
    (20, 10, 3, 3),  # k = 2: three refusals cost 9, −9 > −18; k = 3: they cost 12 > 10
    (20, 10, None, 1),  # no limit: the owner runs out of crystals in the end, so it accepts 1
    (7, 20, 1, 3),  # crystals aplenty: refuses iff 7 > 2k + 1, so k = 3
    (7, 20, 2, 2),  # k = 1: two refusals (−4) beat accepting (−6); k = 2: −6 < −5, accepts
    (7, 20, 3, 1),  # k = 1: three refusals −6 vs accepting −6: indifferent, accepts
])
def test_repeated_offers_make_the_smallest_successful_offer_smaller(value, crystals, repeats, smallest):
    assert C.smallest_offer_repeated(value, crystals, repeats) == smallest
    first = next(k for k in range(1, 50) if C.owner_plan(k, value, crystals, repeats)[0])
    assert first == smallest


def test_the_control_study_shows_the_smallest_offer_by_offers_allowed():
    study = {s.name: s for s in STUDIES}["control"]
    tables = study.execute("rescue", {"largest": 6, "offers": "repeated"})
    assert set(tables["control"]["decision"]) == {"accept"} and set(tables["control"]["smallest_offer"]) == {1}
    rows = {(r["owner_value"], r["owner_crystals"], r["offers_allowed"]): (r["smallest_offer"], r["cheaper_by"])
            for r in tables["repeated"].iter_rows(named=True)}
    # owner worth 13 with 6 crystals: one offer ⌈12/2⌉ = 6; two offers min(⌊6/2⌋, ⌈11/3⌉) = 3; three: min(2, ⌈10/4⌉) = 2
    assert [rows[(13, 6, r)] for r in ("1", "2", "3", "no limit")] == [(6, 0), (3, 3), (2, 4), (1, 5)]
    one = study.execute("rescue", {"largest": 6})["control"]
    assert one.filter(owner_value=13, owner_crystals=6)["smallest_offer"][0] == 6


def test_no_attempt_in_the_dusk_phase_the_mercenary_entered_play():
    assert not C.attempt_allowed(entered_dusk=3, dusk=3)
    assert C.attempt_allowed(entered_dusk=3, dusk=4)
    assert not C.attempt_allowed(entered_dusk=3, dusk=2)  # before it was in play
    with pytest.raises(ValueError, match="Dusk phase it entered play"):
        C.take_control(2, owner_crystals=5, challenger_crystals=4, refuse=False, same_dusk=True)
    assert C.take_control(2, owner_crystals=5, challenger_crystals=4, refuse=False).accepted  # a later Dusk phase


# -- road shortening on every shipped map -----------------------------------------------------------------
# (map, end, shortening) → None when removed (then each spawn's road distance to the city after), or the reason
SHORTENING_CASES = [
    # meadow: one spawn 12 steps from the city along one road into (4, 8); the tower splits it further back
    ("meadow", 0, "rejoin", {(1, 0): 11}),
    ("meadow", 0, "refuse", "the spawn at (1, 0) would no longer reach the city by road"),
    ("meadow", 0, "gap", {(1, 0): None}),
    # fork: spawn (0, 0) 10 steps through the plaza into (4, 5), spawn (7, 9) 6 steps up into (4, 7)
    ("fork", 0, "rejoin", {(0, 0): 9, (7, 9): 6}),
    ("fork", 0, "refuse", "the spawn at (0, 0) would no longer reach the city by road"),
    ("fork", 0, "gap", {(0, 0): None, (7, 9): 6}),
    ("fork", 1, "rejoin", "the building at (4, 8) would have no adjacent road tile"),
    ("fork", 1, "refuse", "the building at (4, 8) would have no adjacent road tile"),
    # ravine: a boss stands on the one road end
    ("ravine", 0, "rejoin", "a boss stands on this road space"),
    ("ravine", 0, "refuse", "a boss stands on this road space"),
    ("ravine", 0, "gap", "a boss stands on this road space"),
]


@pytest.mark.parametrize(("name", "end", "shortening", "expected"), SHORTENING_CASES)
def test_road_shortening_on_every_shipped_map(name, end, shortening, expected):
    board = bd.load_map(name)
    after = bd.shorten_road(board, end, shortening)
    if isinstance(expected, str):
        assert after == bd.Illegal(bd.road_ends(board)[end], expected)
        return
    assert isinstance(after, bd.Board) and after.kind(bd.road_ends(board)[end]) == "empty"
    dist = bd.distances_to_city(after)
    assert {s: dist.get(s) for s in expected} == expected


def test_every_shipped_map_keeps_its_road_usable_under_the_default():
    for name in bd.map_names():
        board = bd.load_map(name)
        reach = {s for s in board.spawns if s in bd.distances_to_city(board)}
        for end in range(len(bd.road_ends(board))):
            after = bd.shorten_road(board, end)
            if isinstance(after, bd.Board):
                assert reach <= set(bd.distances_to_city(after)), (name, end)


def test_a_rejoined_road_is_one_tile_shorter_and_flown_along():
    b = bd.parse_map("S###C\n.H...\n", "t.map", "t")  # the building keeps (0, 1) beside it
    after = bd.shorten_road(b)
    assert after.rows == ("S##.C", ".H...") and after.joins == (((0, 2), (0, 4)),)
    flight = bd.fly(after, 0)
    assert (flight.distance, flight.chosen) == (3, ((0, 0), (0, 1), (0, 2), (0, 4)))
    assert bd.fly(b, 0).distance == 4
    again = bd.shorten_road(after)  # the joined tile is now the road end: removed, and (0, 1) joined instead
    assert again.rows == ("S#..C", ".H...") and again.joins == (((0, 1), (0, 4)),)


def test_the_roads_study_says_each_spawns_distance_before_and_after():
    study = {s.name: s for s in BOARD_STUDIES}["roads"]
    fork = study.execute("rescue", {"map": "fork"})["candidates"]
    assert fork["spawn_distances"][0] == "spawn 0: 10 steps → 9 steps; spawn 1: 6 steps → 6 steps"
    gap = study.execute("rescue", {"map": "meadow", "shortening": "gap"})["candidates"]
    assert gap["spawn_distances"][0] == "spawn 0: 12 steps → cut"
    refused = study.execute("rescue", {"map": "meadow", "shortening": "refuse"})["candidates"]
    assert refused.select("removable", "why").row(0) == (False, "the spawn at (1, 0) would no longer reach the city "
                                                               "by road")


# -- maps: a byte-order mark, trailing spaces, a user's file by path ---------------------------------------
MEADOW_ROWS = ("..H.......", "S#####....", ".#T..#....", ".#...#T...", ".######M#C", ".....H....")


def test_a_map_with_a_bom_and_trailing_spaces_reads_as_the_clean_one(tmp_path):
    path = tmp_path / "castle.map"
    path.write_bytes("\ufeff; my meadow  \n".encode() + "".join(f"{r}   \n" for r in MEADOW_ROWS).encode())
    board = bd.load_map(str(path))
    assert board.rows == MEADOW_ROWS == bd.load_map("meadow").rows and board.name == "castle"


def test_a_map_file_by_path_in_the_study_and_the_cli(tmp_path, capsys):
    path = tmp_path / "mine.map"
    path.write_text("S###C\n.H...\n", encoding="utf-8")
    study = {s.name: s for s in BOARD_STUDIES}["roads"]
    assert study.execute("rescue", {"map": str(path)})["candidates"]["removable"].to_list() == [True]
    assert main(["study", "rescue", "flying", "--map", str(path)]) == 0
    assert "1 shortest paths, all listed" in capsys.readouterr().out


@pytest.mark.parametrize(("text", "words"), [
    (None, "does not exist; give a shipped map (fork, meadow, ravine) or the path to a map file"),
    ("folder", "is a folder"),
    ("S#X\n##C\n", "row 1, column '3'"),
])
def test_a_bad_map_file_is_one_clear_error(tmp_path, text, words):
    path = tmp_path / "bad.map"
    if text == "folder":
        path.mkdir()
    elif text is not None:
        path.write_text(text, encoding="utf-8")
    with pytest.raises((InputError, DataError)) as info:
        bd.load_map(str(path))
    assert words in str(info.value) and "bad.map" in str(info.value)


def test_an_unknown_map_name_lists_the_shipped_ones_and_says_a_path_is_allowed(tmp_path, capsys):
    assert main(["study", "rescue", "roads", "--map", "castle"]) != 0
    err = capsys.readouterr().err
    assert "unknown map 'castle'; allowed: a shipped map (fork, meadow, ravine) or the path to a map file" in err
