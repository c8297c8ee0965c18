"""The ladder: Bradley–Terry ratings with intervals from a round robin on common seeds (``core/skill/ladder.py``)."""

from __future__ import annotations

import argparse
import json
import math

import numpy as np
import polars as pl
import pytest

from tests.independent import wilson
from workbench.cli.common import Parser
from workbench.cli.ladder import add_arguments, run
from workbench.core.errors import InputError, RunInterrupted
from workbench.core.model import get_game
from workbench.core.sim.runner import simulate
from workbench.core.skill.ladder import (
    ELO_PER_UNIT,
    bootstrap_intervals,
    display_name,
    fit_bradley_terry,
    pairing_counts,
    run_ladder,
    study_declaration,
)
from workbench.core.studies.study import Study


def _simulated_scores(theta: np.ndarray, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    k = len(theta)
    score, games = np.zeros((k, k)), np.full((k, k), float(n)) - n * np.eye(k)
    for i in range(k):
        for j in range(i + 1, k):
            wins = rng.binomial(n, 1.0 / (1.0 + math.exp(theta[j] - theta[i])))
            score[i, j], score[j, i] = wins, n - wins
    return score, games


def test_the_fit_recovers_known_strengths_and_its_intervals_cover_them_about_95_percent_of_the_time():
    theta = np.array([0.0, 0.5, 1.0, -0.4])  # agent a is the anchor at 0
    rng = np.random.default_rng(7)
    covered, estimates = [], []
    for _ in range(300):
        score, games = _simulated_scores(theta, 200, rng)
        fit = fit_bradley_terry(score, games, ("a", "b", "c", "d"), anchor="a")
        low, high = fit.interval()
        covered.append((low[1:] <= theta[1:]) & (theta[1:] <= high[1:]))
        estimates.append(fit.rating)
    assert np.mean(estimates, axis=0) == pytest.approx(theta, abs=0.03)  # se of each mean ≈ 0.005
    assert 0.925 <= np.mean(covered) <= 0.975  # 900 intervals at a stated 95 %


def test_draws_count_half_a_win_worked_by_hand_on_three_agents():
    # A–B: A wins 3, 2 draws, B wins 1 (score 4 of 6); B–C: B wins 2, 4 draws (4 of 6); A–C: A wins 7, 2 draws,
    # C wins 1 (8 of 10).  Odds 2 : 1, 2 : 1 and 4 : 1 fit Bradley–Terry exactly: θ_A − θ_B = θ_B − θ_C = ln 2, so
    # with C at 0 the ratings are (2 ln 2, ln 2, 0) = (240.8, 120.4, 0) Elo.  Fisher information over (A, B):
    # n p (1 − p) = 6·2/9 = 4/3 (A–B, B–C) and 10·4/25 = 8/5 (A–C) → [[44/15, −4/3], [−4/3, 8/3]], determinant
    # 272/45, so var A = (8/3)/(272/45) = 15/34 and var B = (44/15)/(272/45) = 33/68.
    def games(a: str, b: str, p1: str, p2: str, draw: int) -> list[dict]:  # p1/p2: wins of the seat's winner
        return ([{"agent_p1": a, "agent_p2": b, "winner": w} for w in ["p1"] * int(p1[0]) + ["p2"] * int(p1[1])]
                + [{"agent_p1": b, "agent_p2": a, "winner": w} for w in ["p2"] * int(p2[0]) + ["p1"] * int(p2[1])]
                + [{"agent_p1": a, "agent_p2": b, "winner": "draw"}] * draw)

    frame = pl.DataFrame(games("A", "B", "20", "11", 2) + games("B", "C", "20", "00", 4)
                         + games("A", "C", "41", "30", 2))
    counts = pairing_counts(frame, ["A", "B", "C"])
    ab = counts.filter((pl.col("agent") == "A") & (pl.col("opponent") == "B")).row(0, named=True)
    assert (ab["n"], ab["wins"], ab["draws"], ab["losses"]) == (6, 3, 2, 1)
    score = np.zeros((3, 3))
    played = np.zeros((3, 3))
    for r in counts.iter_rows(named=True):
        i, j = "ABC".index(r["agent"]), "ABC".index(r["opponent"])
        score[i, j], played[i, j] = r["wins"] + r["draws"] / 2, r["n"]
    fit = fit_bradley_terry(score, played, ("A", "B", "C"), anchor="C", virtual_draws=0)
    assert fit.rating == pytest.approx([2 * math.log(2), math.log(2), 0.0], abs=1e-9)
    assert ELO_PER_UNIT * fit.rating[0] == pytest.approx(400 * math.log10(4))
    assert fit.cov[0, 0] == pytest.approx(15 / 34) and fit.cov[1, 1] == pytest.approx(33 / 68)
    assert fit.cov[2, 2] == 0.0
    # cov(A, B) = (4/3)/(272/45) = 15/68, so var(θ_A − θ_B) = 15/34 + 33/68 − 2·15/68 = 33/68
    d, low, high = fit.gap(0, 1)
    assert (d, high - d) == pytest.approx((math.log(2), 1.959964 * math.sqrt(33 / 68)), abs=1e-5)
    wins, decided = np.zeros((3, 3)), np.zeros((3, 3))  # draws left out instead of halved: another answer
    for r in counts.iter_rows(named=True):
        i, j = "ABC".index(r["agent"]), "ABC".index(r["opponent"])
        wins[i, j], decided[i, j] = r["wins"], r["wins"] + r["losses"]
    dropped = fit_bradley_terry(wins, decided, ("A", "B", "C"), anchor="C", virtual_draws=0)
    assert abs(dropped.rating[0] - fit.rating[0]) > 0.1


def test_two_agents_give_the_logit_of_the_balance_score_and_woolfs_interval():
    # 30 wins, 10 draws, 60 losses: score 35 of 100; with the one virtual draw, logit(35.5 / 101) and the
    # standard error sqrt(1/35.5 + 1/65.5) (Woolf's log-odds interval with the Haldane–Anscombe +½)
    fit = fit_bradley_terry([[0, 35], [65, 0]], [[0, 100], [100, 0]], ("x", "y"), anchor="y")
    assert fit.rating[0] == pytest.approx(math.log(35.5 / 65.5), abs=1e-9)
    se = math.sqrt(1 / 35.5 + 1 / 65.5)
    low, high = fit.interval()
    assert (low[0], high[0]) == pytest.approx((math.log(35.5 / 65.5) - 1.959964 * se,
                                               math.log(35.5 / 65.5) + 1.959964 * se), abs=1e-5)
    clean_sweep = fit_bradley_terry([[0, 40], [0, 0]], [[0, 40], [40, 0]], ("x", "y"), anchor="y")
    assert clean_sweep.rating[0] == pytest.approx(math.log(40.5 / 0.5))  # finite, from the virtual draw
    with pytest.raises(InputError, match="won \\(or lost\\) every game"):
        fit_bradley_terry([[0, 40], [0, 0]], [[0, 40], [40, 0]], ("x", "y"), virtual_draws=0)
    with pytest.raises(InputError, match="every game"):  # {x, y} never lost a point to z: no finite ratings
        fit_bradley_terry([[0, 5, 3], [5, 0, 3], [0, 0, 0]], [[0, 10, 3], [10, 0, 3], [3, 3, 0]], "xyz",
                          virtual_draws=0)


def test_fisher_intervals_agree_with_a_parametric_bootstrap():
    score, games = _simulated_scores(np.array([0.0, 0.6, -0.3, 1.2]), 300, np.random.default_rng(11))
    fit = fit_bradley_terry(score, games, ("a", "b", "c", "d"), anchor="mean")
    low, high = fit.interval()
    b_low, b_high = bootstrap_intervals(fit, games, reps=500, seed=5)
    assert (b_high - b_low) == pytest.approx(high - low, rel=0.12)
    assert (b_high + b_low) / 2 == pytest.approx(fit.rating, abs=0.04)
    assert fit.rating.sum() == pytest.approx(0.0, abs=1e-9)  # the mean anchor


def test_a_toy_ladder_rates_greedy_above_random_with_separated_intervals_on_common_seeds():
    ladder = run_ladder("toy", "random,greedy", 400, seed=3, progress=False)
    frame = ladder.games
    assert frame.height == 400
    by_order = frame.group_by("agent_p1").agg(pl.col("game_seed").sort())
    seeds = by_order.get_column("game_seed").to_list()
    assert seeds[0] == seeds[1] and len(seeds[0]) == 200  # both seat orders on the same 200 game seeds
    plain = simulate("toy", 200, agents="greedy,random", seed=3, progress=False)
    swapped = simulate("toy", 200, agents="random,greedy", seed=3, progress=False)
    greedy_wins = int((plain["winner"] == "p1").sum() + (swapped["winner"] == "p2").sum())
    draws = int((plain["winner"] == "draw").sum() + (swapped["winner"] == "draw").sum())
    pair = ladder.pairwise.row(0, named=True)
    assert (pair["agent"], pair["opponent"], pair["n"]) == ("random", "greedy", 400)
    assert (pair["losses"], pair["draws"]) == (greedy_wins, draws)
    points = pair["wins"] + pair["draws"] / 2
    assert (pair["score_low"], pair["score_high"]) == pytest.approx(wilson(points, 400), abs=1e-9)
    ratings = ladder.ratings
    assert ratings.get_column("agent").to_list() == ["greedy", "random"]
    top = ratings.row(0, named=True)
    assert top["separated_from_next"] is True and top["elo_lower"] > 0
    assert top["ahead_of_next"] == "yes: the intervals do not overlap"
    assert top["rating"] == pytest.approx(math.log((greedy_wins + draws / 2 + 0.5) / (400 - greedy_wins
                                                                                         - draws / 2 + 0.5)))
    assert ratings.row(1, named=True)["elo"] == 0.0  # random is the anchor


def test_the_ladder_study_and_a_stop_after_the_first_pairing_keep_the_finished_pairings():
    study = Study(**study_declaration(get_game("dietower")))  # as core/studies/study.py declares it for every game
    assert study.resolve({})["agents"] == "random,highest,lowest,joker,mixed"
    ticks: list[tuple[int, int]] = []

    def stop_after_first() -> bool:  # Stop pressed once the first pairing's 200 games are in
        return bool(ticks) and ticks[-1][0] >= 200

    with pytest.raises(RunInterrupted) as stopped:  # the stop protocol: stopped, with what finished
        study.execute("dietower", {"agents": "random,highest,lowest", "games": 200}, {"players": 3}, seed=1,
                      on_progress=lambda done, total: ticks.append((done, total)), should_stop=stop_after_first)
    assert (stopped.value.done, stopped.value.total) == (200, 600)
    tables = stopped.value.partial
    assert tables["pairwise"].height == 1 and tables["games"].height == 200  # random vs highest only
    row = tables["pairwise"].row(0, named=True)
    assert row["wins"] + row["draws"] + row["losses"] == 200 and row["filler_won"] > 0
    assert ticks[-1] == (200, 600)  # progress over the whole round robin
    rated = tables["ratings"].filter(pl.col("rank").is_not_null()).get_column("agent").to_list()
    assert sorted(rated) == ["highest", "random"]  # lowest never played: no rating
    spec = study.make_charts(tables)["ratings"].to_dict()
    assert json.dumps(spec).count("highest") >= 1


def test_bad_input_names_what_is_allowed_and_writes_nothing(tmp_path, capsys):
    parser = Parser()  # the workbench's: a bad shared value (--params edge) is an InputError, as the command says
    add_arguments(parser)
    out = tmp_path / "ladder"
    for argv, message in ((["toy", "--agents", "random,greedy", "--games", "7"], "even number"),
                          (["toy", "--agents", "random,random"], "listed twice"),
                          (["toy", "--agents", "random,wizard"], "allowed: random, greedy"),
                          (["toy", "--agents", "random,greedy", "--anchor", "greedy:x=1"], "anchor"),
                          (["toy", "--agents", "random,greedy", "--params", "edge"], "NAME=VALUE")):
        with pytest.raises(InputError, match=message):
            run(parser.parse_args([*argv, "--out", str(out), "--quiet"]))
        assert not out.exists()
    assert display_name("greedy:tower=2,wall=1") == "greedy (tower=2, wall=1)"
    assert display_name("greedy@tuned") == "greedy (tuned)"


def test_the_cli_prints_both_tables_and_writes_a_report(tmp_path, capsys):
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert run(parser.parse_args(["toy", "--agents", "random,greedy", "--games", "100", "--quiet", "--out",
                                  str(tmp_path / "lad")])) == 0
    text = capsys.readouterr().out
    assert "| Rank | Agent" in text and "Ahead of next" in text and "| random | greedy" in text
    written = pl.read_csv(tmp_path / "lad" / "ladder_ratings.csv")
    assert written.get_column("agent").to_list() == ["greedy", "random"]
    assert pl.read_parquet(tmp_path / "lad" / "games.parquet").height == 100
    assert "Ratings" in (tmp_path / "lad" / "index.md").read_text()


def test_equal_ratings_share_a_rank_and_are_not_separated():
    # x beats y and z 15–5 each; y and z draw all 20 of their games: y and z are equal, both below x
    rows = ([{"agent_p1": "x", "agent_p2": o, "winner": "p1"}] * 15 + [{"agent_p1": "x", "agent_p2": o, "winner": "p2"}]
            * 5 for o in ("y", "z"))
    frame = pl.DataFrame([r for part in rows for r in part] + [{"agent_p1": "y", "agent_p2": "z", "winner": "draw"}]
                         * 20)
    counts = pairing_counts(frame, ["x", "y", "z"])
    score = np.zeros((3, 3))
    played = np.zeros((3, 3))
    for r in counts.iter_rows(named=True):
        i, j = "xyz".index(r["agent"]), "xyz".index(r["opponent"])
        score[i, j], played[i, j] = r["wins"] + r["draws"] / 2, r["n"]
    from workbench.core.skill.ladder import ratings_table

    table = ratings_table(fit_bradley_terry(score, played, ("x", "y", "z"), anchor="mean"), counts)
    assert table.get_column("rank").to_list() == [1, 2, 2]
    assert table.get_column("separated_from_next").to_list()[1:] == [False, None]
    assert table.get_column("ahead_of_next").to_list()[1:] == ["not established", None]
    assert table.row(1, named=True)["elo"] == pytest.approx(table.row(2, named=True)["elo"])


def test_the_ratings_count_every_game_the_ladder_hands_over():
    """The ladder counts each seat order's games as they finish (a stopped ladder of millions of games then rates
    them at once): the counts are those of its games, filler wins and all, in a game of three seats."""
    from workbench.core.skill.ladder import pairing_counts, run_ladder

    ladder = run_ladder("dietower", "random,highest,joker", 400, params={"players": 3}, seed=4, progress=False)
    counts = pairing_counts(ladder.games, ladder.agents)
    assert int(counts["filler_won"].sum()) > 0  # the third seat wins some: counted as draws of the two
    shown = ladder.pairwise.select("agent_spec", "opponent_spec", "n", "wins", "draws", "losses", "filler_won")
    expected = counts.rename({"agent": "agent_spec", "opponent": "opponent_spec"}).join(
        shown.select("agent_spec", "opponent_spec"), on=["agent_spec", "opponent_spec"])
    assert shown.sort("agent_spec", "opponent_spec").equals(expected.select(shown.columns)
                                                           .sort("agent_spec", "opponent_spec"))
