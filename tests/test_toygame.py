"""The template game (``tests/toygame``) works end to end with every optional capability it shows.

Expected values are worked out independently of the code: by hand (a coin that never or always
scores makes the greedy race deterministic), and by enumerating the race's game tree exactly
(:func:`exact_win`) for the simulated rates.
"""

from __future__ import annotations

from functools import cache

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from tests.toygame import rules, slow
from tests.toygame.model import MODEL, ToyModel
from tests.toygame.report import build_report
from workbench.cli import main
from workbench.core.errors import InputError
from workbench.core.model import CHANCE, TERMINAL, GameModel
from workbench.core.present import playthrough
from workbench.core.rng import SplitMix64
from workbench.core.sim.play import play_game
from workbench.core.sim.runner import simulate
from workbench.core.stats.rates import wilson
from workbench.core.studies.study import get_study, report_builder

TARGETS = {"small": 3, "large": 5}


# -- the exact race, by enumeration of its game tree ----------------------------------------------------
def _random(mine: int, other: int) -> dict[str, float]:
    return {"safe": 0.5, "risky": 0.5}


def _greedy(mine: int, other: int) -> dict[str, float]:
    return {"risky": 1.0} if mine < other else {"safe": 1.0}


POLICIES = {"random": _random, "greedy": _greedy}


def exact_win(target: int, edge: float, limit: int, first: str, second: str, seat: int = 0) -> float:
    """P(``seat`` wins; 0 the first mover, 1 the other), the first mover playing ``first`` (enumerated)."""
    policies = (POLICIES[first], POLICIES[second])

    @cache
    def value(a: int, b: int, mover: int, turn: int) -> float:
        """P(``seat`` wins) from scores (first mover a, other b) with ``mover`` to move after ``turn`` turns."""
        mine, other = (a, b) if mover == 0 else (b, a)
        total = 0.0
        for action, p_action in policies[mover](mine, other).items():
            points = [(1, 1.0)] if action == "safe" else [(2, edge), (0, 1.0 - edge)]
            for gain, p_gain in points:
                p = p_action * p_gain
                if p == 0.0:
                    continue
                scored = mine + gain
                if scored >= target:
                    total += p * (mover == seat)
                elif turn + 1 < limit:
                    nxt = (scored, other) if mover == 0 else (other, scored)
                    total += p * value(*nxt, 1 - mover, turn + 1)
        return total

    return value(0, 0, 0, 0)


def test_the_enumeration_agrees_with_races_worked_by_hand():
    # target 2, greedy both: p1 safe (1-0); p2, behind, goes risky and wins with the edge, else p1 safe wins
    assert exact_win(2, 0.3, 20, "greedy", "greedy") == pytest.approx(0.7)
    # target 1, random both: a mover scores with safe (1/2) or a winning coin (1/2 · edge); the first
    # mover has turns 1, 3, .., 19 of the 20
    edge = 0.4
    scores = 0.5 + 0.5 * edge
    assert exact_win(1, edge, 20, "random", "random") == pytest.approx(
        sum(scores * (1 - scores) ** (2 * k) for k in range(10)))
    # target 3 within 2 turns: a turn scores at most 2, so nobody wins
    assert exact_win(3, 0.9, 2, "random", "random") == 0.0 == exact_win(3, 0.9, 2, "random", "random", seat=1)


# -- workbench games lists the capabilities --------------------------------------------------------------
def test_workbench_games_lists_the_templates_capabilities_and_its_study(capsys):
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    toy = out[out.index("toy — Coin race (toy)"):]
    toy = toy[:toy.index("parameters:")]
    assert "engines: reference\n" in toy  # no compiled engine declared
    capabilities = toy[toy.index("capabilities:"):toy.index("studies")]
    for line in ("text ", "readable playthroughs", "determinise ", "hidden information"):
        assert line in capabilities
    for absent in ("card_table", "lessons", "engine ", "solver"):  # the capabilities the toy leaves to comments
        assert absent not in capabilities
    assert "edge " in toy and "First mover's win rate as the coin's edge changes" in toy


# -- the declared study ------------------------------------------------------------------------------------
def test_the_edge_study_gives_the_hand_worked_races_at_the_two_sure_coins():
    # edge 0: a risky move never scores, so the greedy player behind never catches up: safe, risky(0),
    # safe, risky(0), safe → the first mover wins in 5 turns.  edge 1: safe (1-0), risky (1-2), the first
    # mover behind → risky (3-2): it wins in 3.  On the large board (target 5): five safe moves of the first
    # mover, 9 turns; and with a sure coin the lead changes every turn (1, 2, 3, 4, 5): the first mover wins on turn 5.
    tables = get_study("toy", "edge").execute("toy", {"edges": "0,1", "games": 60, "agents": "greedy,greedy"}, seed=3)
    table = tables["first_mover"].sort("edge")
    assert table["edge"].to_list() == [0.0, 1.0]
    assert table["n"].to_list() == [60, 60] and table["rate"].to_list() == [1.0, 1.0]
    assert table["mean_length"].to_list() == [5.0, 3.0]
    large = get_study("toy", "edge").execute("toy", {"edges": "1,0", "games": 20, "agents": "greedy,greedy"},
                                             {"board": "large"}, seed=3)["first_mover"].sort("edge")
    assert large["mean_length"].to_list() == [9.0, 5.0] and large["rate"].to_list() == [1.0, 1.0]


def test_the_edge_study_matches_the_exact_race_and_uses_the_same_seeds_for_every_edge():
    games = 3000
    tables = get_study("toy", "edge").execute("toy", {"edges": "0.3,0.6", "games": games, "agents": "random,random"},
                                              seed=11)
    for row in tables["first_mover"].iter_rows(named=True):
        exact = exact_win(3, row["edge"], 20, "random", "random")
        k = round(row["rate"] * row["n"])
        low, high = wilson(k, row["n"], confidence=0.999)
        assert row["n"] == games and low <= exact <= high, (row, exact)
    frame = tables["games"]
    seeds = frame.group_by("edge").agg(pl.col("game_seed").sort()).sort("edge")["game_seed"].to_list()
    assert seeds[0] == seeds[1]  # common random numbers


def test_the_edge_study_rejects_an_edge_outside_the_coin():
    with pytest.raises(InputError, match="setting 'edges'.*allowed: comma-separated numbers in"):
        get_study("toy", "edge").execute("toy", {"edges": "0.5,1.5"})


# -- the report section ---------------------------------------------------------------------------------
def test_the_report_is_the_games_own_with_its_edge_section(tmp_path):
    assert report_builder("toy") is build_report
    out = build_report(tmp_path / "report", quick=True, seed=2)
    md = (out / "index.md").read_text(encoding="utf-8")
    assert "## The coin's edge" in md and "## Win rates per seat" in md
    assert (out / "edge_first_mover_chart.svg").read_text(encoding="utf-8").lstrip().startswith("<svg")
    edge = pl.read_csv(out / "edge_first_mover.csv").sort("edge")
    assert edge["edge"].to_list() == [0.0, 0.25, 0.5, 0.75, 1.0] and edge["n"].to_list() == [500] * 5
    assert edge["rate"][0] == 1.0 and edge["rate"][-1] == 1.0  # the hand-worked sure coins
    for row in edge.filter(pl.col("edge").is_between(0.1, 0.9)).iter_rows(named=True):
        exact = exact_win(3, row["edge"], 20, "greedy", "greedy")
        low, high = wilson(round(row["rate"] * 500), 500, confidence=0.999)
        assert low <= exact <= high, (row, exact)
    seats = pl.read_csv(out / "seat_win_rates.csv").filter(pl.col("lineup") == "greedy vs random",
                                                           pl.col("seat") == "p1")
    # p1 greedy moves first half the time (the first seat is drawn): the exact rate averages both orders
    exact = 0.5 * exact_win(3, 0.5, 20, "greedy", "random") + 0.5 * exact_win(3, 0.5, 20, "random", "greedy", seat=1)
    low, high = wilson(seats["k"].item(), seats["n"].item(), confidence=0.999)
    assert seats["n"].item() == 500 and low <= exact <= high, (seats, exact)


class PlainToy(ToyModel):
    """The toy with no optional capability: the rules alone (so no report of its own and no ``ismcts``)."""

    report = None
    determinise = GameModel.determinise


PLAIN = PlainToy()


def test_cores_generic_report_serves_a_game_that_declares_none(tmp_path, capsys):
    # what a game without ``report`` gets: outcomes of random, then each declared agent in each seat against random
    assert report_builder(PLAIN) is not build_report and "ismcts" not in PLAIN.agents
    out = report_builder(PLAIN)(tmp_path / "generic", quick=True, seed=2)
    assert (out / "index.md").read_text(encoding="utf-8").startswith("# Coin race (toy): outcomes of its agents\n")
    seats = pl.read_csv(out / "seat_win_rates.csv")
    assert sorted(set(seats["lineup"])) == ["greedy vs random", "random vs greedy", "random vs random"]
    assert seats["n"].to_list() == [500] * 6
    err = capsys.readouterr().err
    assert "toy report 1/3: 500 games of random vs random … done in" in err
    assert "toy report 3/3: 500 games of random vs greedy … done in" in err


# -- determinise: the hidden coin stream ------------------------------------------------------------------
def _decision_states(seed: int, agents: str = "random,random", params: dict | None = None):
    config = MODEL.make_config(MODEL.resolve_params(params))
    found = []

    def record(before, who, action, after):
        if who in (0, 1):
            found.append((who, before))

    players = [MODEL.make_agent(a) for a in agents.split(",")]
    play_game(MODEL, config, players, seed, max_steps=1000, observer=record)
    return config, found


def test_determinise_never_reveals_the_coin_stream():
    for seed in (1, 2, 3):
        config, states = _decision_states(seed, params={"board": "large"})
        assert len(states) >= 3
        for who, state in states:
            other = state._replace(coin=state.coin ^ 0x9E3779B97F4A7C15)  # another hidden coin stream
            # the hidden part matters: the two streams flip differently within a few draws
            assert _flips(config, state) != _flips(config, other)
            for seat in (0, 1):
                assert MODEL.observation(config, state, seat) == MODEL.observation(config, other, seat)
            view = MODEL.observation(config, state, who)
            seat, world = MODEL.determinise(config, view, SplitMix64(42))
            again = MODEL.determinise(config, MODEL.observation(config, other, who), SplitMix64(42))
            assert (seat, world) == again  # the world depends on the view and the rng, not on the real stream
            assert seat == who and MODEL.current_player(config, world) == who
            assert MODEL.observation(config, world, who) == view
            assert world.coin != state.coin and world.coin == SplitMix64(42).next_u64()  # drawn from the rng
            assert MODEL.determinise(config, view, SplitMix64(43))[1].coin != world.coin


def _flips(config, state, n: int = 12) -> list[int]:
    """The points of the next ``n`` coin flips from ``state``'s coin stream."""
    out = []
    for _ in range(n):
        points, state = rules.flip(config, state)
        out.append(points)
    return out


def test_a_determinised_world_plays_on_to_a_legal_end():
    config, states = _decision_states(5)
    who, state = states[1]
    _, world = MODEL.determinise(config, MODEL.observation(config, state, who), SplitMix64(9))
    while (player := MODEL.current_player(config, world)) != TERMINAL:
        if player == CHANCE:
            points, world = MODEL.sample_chance(config, world)
            world = MODEL.apply(config, world, points)
        else:
            world = MODEL.apply(config, world, rules.RISKY)
        assert MODEL.invariants(config, world) == []
    row = MODEL.result_row(config, world)
    assert row["winner"] in ("p1", "p2", "draw") and row["length"] >= state.turn


# -- the playthrough text ---------------------------------------------------------------------------------
def test_the_playthrough_is_written_by_the_text_module():
    # edge 0 and two greedy players: the hand-worked race (safe, risky for nothing, safe, ..., the first wins)
    text = playthrough.render("toy", {"edge": 0.0}, "greedy,greedy", 4)
    lines = text.splitlines()
    assert lines[3] == "target 3 points; a risky move scores 2 with probability 0; a draw after 20 turns"
    first = lines[4].removeprefix("first to move: ")
    second = {"p1": "p2", "p2": "p1"}[first]
    assert lines[4:] == [
        f"first to move: {first}",
        f"- {first}: safe, scores 1; " + ("p1 1, p2 0" if first == "p1" else "p1 0, p2 1"),
        f"- {second}: risky, flips the coin",
        f"  coin: {second} scores nothing; " + ("p1 1, p2 0" if first == "p1" else "p1 0, p2 1"),
        f"- {first}: safe, scores 1; " + ("p1 2, p2 0" if first == "p1" else "p1 0, p2 2"),
        f"- {second}: risky, flips the coin",
        f"  coin: {second} scores nothing; " + ("p1 2, p2 0" if first == "p1" else "p1 0, p2 2"),
        f"- {first}: safe, scores 1; " + ("p1 3, p2 0" if first == "p1" else "p1 0, p2 3"),
        "",
        f"end after 5 turns: {first} wins (target); " + ("p1 3, p2 0" if first == "p1" else "p1 0, p2 3"),
    ]
    assert "State(" not in text  # not core's fallback (repr of the state)


# -- test plumbing lives outside the template --------------------------------------------------------------
def test_the_template_ignores_toy_sleep_and_the_slow_copy_pauses_with_the_same_rows(monkeypatch):
    pauses: list[float] = []
    monkeypatch.setattr(slow.time, "sleep", pauses.append)  # the slow copy's pauses, counted rather than waited
    monkeypatch.setenv("TOY_SLEEP", "2")
    plain = simulate(MODEL, 4, seed=6, progress=False)
    assert pauses == []  # the template never sleeps
    monkeypatch.setenv("TOY_SLEEP", "0.05")
    slowed = simulate(slow.MODEL, 4, seed=6, progress=False)
    assert pauses == [0.05] * 4  # a pause of TOY_SLEEP seconds before every game
    assert_frame_equal(slowed, plain)
    assert slow.MODEL.name == MODEL.name and slow.MODEL.rules_version == MODEL.rules_version
