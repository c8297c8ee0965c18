import pytest

from workbench.core.errors import DataError, InputError
from workbench.core.rng import SplitMix64
from workbench.games.rescue import board as bd
from workbench.games.rescue.board_studies import STUDIES

# two equal 4-step paths: A over the top (next to the tower), B round the bottom; A sorts first
TIE = """\
.T..
S##.
#.#.
##C.
"""
A = ((1, 0), (1, 1), (1, 2), (2, 2), (3, 2))
B = ((1, 0), (2, 0), (3, 0), (3, 1), (3, 2))


def board(text: str) -> bd.Board:
    return bd.parse_map(text, "test.map", "test")


# -- flying ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("policy", "chosen", "rank"), [("most_towers", A, 0), ("fewest_towers", B, 1)])
def test_tie_each_policy_picks_the_documented_path(policy, chosen, rank):
    flight = bd.fly(board(TIE), 0, policy)
    assert (flight.reachable, flight.distance, flight.count, flight.paths) == (True, 4, 2, (A, B))
    assert (flight.chosen, flight.chosen_index) == (chosen, rank)
    assert bd.tower_steps(flight.board, A) == 1 and bd.tower_steps(flight.board, B) == 0


def test_tie_without_towers_goes_to_reading_order():
    flat = board(TIE.replace("T", "."))
    assert bd.fly(flat, 0, "most_towers").chosen == A
    assert bd.fly(flat, 0, "fewest_towers").chosen == A


def test_random_policy_is_one_splitmix_draw_and_reaches_both():
    ranks = {seed: bd.fly(board(TIE), 0, "random", seed).chosen_index for seed in range(20)}
    assert ranks == {seed: SplitMix64(seed).below(2) for seed in range(20)}
    assert set(ranks.values()) == {0, 1}
    assert bd.fly(board(TIE), 0, "random", 7) == bd.fly(board(TIE), 0, "random", 7)


def test_flying_ignores_the_road_but_not_empty_spaces():
    # the text's right-hand example: the corner space is empty, so only the detour is possible
    detour = board("S#.\n.#.\n.#C\n")
    flight = bd.fly(detour, 0)
    assert flight.count == 1 and flight.chosen == ((0, 0), (0, 1), (1, 1), (2, 1), (2, 2))
    # orthogonal steps only: a diagonal neighbour is not a step
    assert not bd.fly(board("S.\n.C\n"), 0).reachable


def test_unreachable_city_is_a_result_not_a_crash():
    flight = bd.fly(board("S#.\n..C\n"), 0, "random", 3)
    assert (flight.reachable, flight.distance, flight.count, flight.paths, flight.chosen) == (False, None, 0, (),
                                                                                              None)
    summary = STUDIES[0].run(None, {"map": "ravine", "spawn": 1, "policy": "random", "cap": 10}, {}, seed=0,
                             workers=1, on_progress=None, should_stop=None)["summary"].row(0, named=True)
    assert summary["reachable"] is False and "cannot be reached" in summary["note"]


def _brute_force(b: bd.Board, start: bd.Pos) -> list[tuple[bd.Pos, ...]]:
    """Every simple path of orthogonal road steps from start to the city; the shortest ones."""
    found, stack = [], [(start,)]
    while stack:
        path = stack.pop()
        if path[-1] == b.city:
            found.append(path)
            continue
        stack += [path + (n,) for n in b.neighbours(path[-1]) if b.has_road(n) and n not in path]
    best = min((len(p) for p in found), default=None)
    return sorted(p for p in found if len(p) == best)


def _tiny_maps(n: int) -> list[bd.Board]:
    rng, maps = SplitMix64(2024), []
    while len(maps) < n:
        cells = ["#" if rng.random() < 0.75 else rng.below(2) and "T" or "." for _ in range(16)]
        s, c = rng.below(16), rng.below(16)
        if s == c:
            continue
        cells[s], cells[c] = "S", "C"
        maps.append(board("\n".join("".join(cells[4 * r:4 * r + 4]) for r in range(4))))
    return maps


@pytest.mark.parametrize("tiny", _tiny_maps(40), ids=lambda b: "/".join(b.rows))
def test_counts_and_enumeration_match_brute_force(tiny):
    expected = _brute_force(tiny, tiny.spawns[0])
    flight = bd.fly(tiny, 0, "most_towers")
    assert flight.count == len(expected) and list(flight.paths) == expected
    if expected:
        assert bd.tower_steps(tiny, flight.chosen) == max(bd.tower_steps(tiny, p) for p in expected)
        assert bd.tower_steps(tiny, bd.fly(tiny, 0, "fewest_towers").chosen) == min(
            bd.tower_steps(tiny, p) for p in expected)


def test_cap_keeps_counts_and_choice_exact():
    fork = bd.load_map("fork")
    full, cut = bd.fly(fork, 0, "random", 11), bd.fly(fork, 0, "random", 11, cap=3)
    assert (full.count, len(full.paths), full.truncated) == (56, 56, False)  # C(8, 3) lattice paths
    assert (cut.count, cut.paths, cut.truncated) == (56, full.paths[:3], True)
    assert cut.chosen == full.chosen == full.paths[full.chosen_index]


def test_big_counts_draw_uniformly_beyond_32_bits():
    rng = SplitMix64(1)
    draws = [bd.uniform_below(rng, 3 << 40) for _ in range(200)]
    assert all(0 <= d < 3 << 40 for d in draws) and max(draws) > 1 << 40


def test_bad_spawn_and_policy():
    with pytest.raises(InputError, match=r"spawns 0\.\.0, got spawn 1"):
        bd.fly(board(TIE), 1)
    with pytest.raises(InputError, match="allowed: most_towers, fewest_towers, random"):
        bd.fly(board(TIE), 0, "shortest")


# -- road shortening ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "reason"), [
    ("S#MC\n....\n", "a monster stands on this road space"),
    ("S#BC\n....\n", "a boss stands on this road space"),
    ("S##C\n..H.\n", "the building at (1, 2) would have no adjacent road tile"),
])
def test_road_shortening_illegal(text, reason):
    assert bd.shorten_road(board(text)) == bd.Illegal((0, 2), reason)


def test_no_road_end_beside_the_city():
    with pytest.raises(InputError, match="has no road end beside its city"):
        bd.shorten_road(board("S#.C\n..H.\n"))


def test_road_shortening_legal_returns_a_new_board():
    b = board("S##C\n.H..\n")  # the building keeps (0, 1)
    after = bd.shorten_road(b)  # the default re-joins the road: (0, 1) now leads into the city
    assert isinstance(after, bd.Board) and after.rows == ("S#.C", ".H..") and after.joins == (((0, 1), (0, 3)),)
    assert b.rows == ("S##C", ".H..") and b.joins == ()  # unchanged
    assert bd.fly(after, 0).distance == 2
    gap = bd.shorten_road(b, policy="gap")  # the reading that leaves the space empty cuts the road here
    assert gap.rows == ("S#.C", ".H..") and not bd.fly(gap, 0).reachable


def test_road_ends_and_spawn_kept():
    b = board("..#..\n.S#C#\n..#..\n")
    assert bd.road_ends(b) == ((1, 2), (1, 4))
    assert bd.shorten_road(b, 1).rows == ("..#..", ".S#C.", "..#..")
    assert bd.removal_problem(board("SC\n"), (0, 0)).startswith("it is a spawn space")


# -- map files ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "row", "column", "words"), [
    ("; comment\nS#X\n##C\n", 2, "3", ["unknown character 'X'", "allowed: '.' empty, '#' road"]),
    ("S##\n#C\n", 2, "3", ["ragged row: 2 spaces but the first map row (line 1) has 3"]),
    ("S##\n###\n", None, None, ["no city: exactly one 'C' is required"]),
    ("SC#\n\n##C\n", 3, "3", ["a second city (the first is at line 1, character 2)", "exactly one 'C' is allowed"]),
    ("#C#\n###\n", None, None, ["no spawn: at least one 'S'"]),
    ("; only a comment\n", None, None, ["no map rows", "allowed: '.' empty"]),
])
def test_map_errors_name_file_row_column_and_what_is_allowed(tmp_path, text, row, column, words):
    path = tmp_path / "bad.map"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as info:
        bd.load_map(path)
    err = info.value
    assert (err.path, err.row, err.column) == (path, row, column)
    message = str(err)
    assert str(path) in message and all(w in message for w in words)
    if row is not None:
        assert f"row {row}, column '{column}'" in message


def test_shipped_maps_and_unknown_name():
    assert bd.map_names() == ("fork", "meadow", "ravine")
    for name in bd.map_names():
        assert bd.load_map(name).name == name
    with pytest.raises(InputError, match=r"unknown map 'swamp'; allowed: a shipped map \(fork, meadow, ravine\)"):
        bd.load_map("swamp")


def test_player_count_setup_facts():
    assert [bd.towers_per_type(p) for p in range(2, 7)] == [None, None, None, 12, 14]
    with pytest.raises(InputError):
        bd.towers_per_type(7)


# -- studies --------------------------------------------------------------------------------------------
def test_flying_study_tables_and_chart():
    study = {s.name: s for s in STUDIES}["flying"]
    tables = study.execute("rescue", {"map": "meadow", "policy": "fewest_towers"})
    paths = tables["paths"]
    assert paths.select("rank", "length", "tower_steps", "chosen").rows() == [(0, 12, 3, False), (1, 12, 2, True)]
    assert tables["summary"]["shortest_paths"][0] == 2 and tables["steps"].height == 26
    spec = study.make_charts(tables)["map"].to_dict()
    marks = [layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"] for layer in spec["layer"]]
    assert marks == ["rect", "line", "line"]
    assert "rank 1 (fewest_towers)" in str(spec["layer"][0]["title"])
    with pytest.raises(InputError, match="spawns 0..0"):
        study.execute("rescue", {"map": "meadow", "spawn": 3})


def test_roads_study_tables_and_chart():
    study = {s.name: s for s in STUDIES}["roads"]
    fork = study.execute("rescue", {"map": "fork", "end": 1})
    assert fork["candidates"].select("end", "removable", "chosen").rows() == [(0, True, False), (1, False, True)]
    assert "building at (4, 8)" in fork["candidates"]["why"][1]
    ravine = study.execute("rescue", {"map": "ravine"})["candidates"]
    assert ravine.select("kind", "removable").rows() == [("boss", False)]
    meadow = study.execute("rescue", {"map": "meadow"})
    assert meadow["spaces"].filter(row=4, col=8)["kind"][0] == "empty"  # removed: the map drawn after
    spec = study.make_charts(meadow)["map"].to_dict()
    assert "removed" in str(spec["layer"][0]["title"])
