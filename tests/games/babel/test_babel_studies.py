"""Babel's studies and report: every number recounted from the games they played."""

from __future__ import annotations

import json

import polars as pl
import pytest
from scipy.stats import binomtest

from tests.independent import wilson
from tests.independent import wilson as formula_wilson
from tests.summary_checks import check_summary
from workbench.core.errors import InputError
from workbench.core.sim.runner import simulate
from workbench.core.stats.rates import settle
from workbench.core.studies.study import get_study
from workbench.games.babel import studies as st
from workbench.games.babel.model import MODEL

# one worker builds this module's shared fixtures once (pytest -n 2 --dist loadgroup)
pytestmark = pytest.mark.xdist_group("test_babel_studies")


@pytest.fixture(scope="module")
def played():
    return st._play(MODEL, {"games": 40, "pairings": "greedy,greedy; random,greedy", "hands": "3/5,5/5"}, {}, 3, 1,
                    None, None)


def test_the_grid_is_every_variant_and_pairing_on_the_same_seeds(played):
    cells = played.select("start_hands", "pairing").unique(maintain_order=True).rows()
    assert cells == [("3/5", "greedy vs greedy"), ("3/5", "random vs greedy"), ("5/5", "greedy vs greedy"),
                     ("5/5", "random vs greedy")]
    alone = simulate("babel", 40, params={"start_hands": "5/5"}, agents="random,greedy", seed=3, progress=False)
    cell = played.filter(pl.col("start_hands") == "5/5", pl.col("pairing") == "random vs greedy")
    assert cell.drop("pairing").equals(alone)


def test_start_seat_rates_are_the_start_players_wins(played):
    table = st._start_seat(MODEL, {"games": 40, "pairings": "greedy,greedy; random,greedy", "hands": "3/5,5/5"}, {},
                           seed=3, workers=1, on_progress=None, should_stop=None)["start_seat"]
    for row in table.iter_rows(named=True):
        cell = played.filter(pl.col("start_hands") == row["start_hands"], pl.col("pairing") == row["pairing"])
        k = int((cell["winner"] == cell["first_seat"]).sum())
        assert (row["first_mover_all_n"], row["first_mover_all"]) == (40, k / 40)
        assert (row["first_mover_all_low"], row["first_mover_all_high"]) == pytest.approx(wilson(k, 40))


def test_nation_table_counts_the_seats_that_used_each_ability(played):
    table = st.nation_table(played)
    assert table["ability"].to_list() == ["assyrians", "hittites", "medes", "persians", "sumerians", "universal"]
    for row in table.iter_rows(named=True):
        used = k = 0
        for seat in ("p1", "p2"):
            mask = played[f"{row['ability']}_{seat}"] > 0
            used += int(mask.sum())
            k += int((mask & (played["winner"] == seat)).sum())
        assert row["used_n"] == used and row["seat_games"] == 2 * played.height
        if used:
            assert row["win_used"] == pytest.approx(k / used)
            assert (row["win_used_low"], row["win_used_high"]) == pytest.approx(wilson(k, used))
        n = sum(int(played[f"{row['ability']}_{s}"].sum()) for s in ("p1", "p2"))
        assert row["uses_per_seat_game"] == pytest.approx(n / (2 * played.height))
    assert table["used_n"].sum() > 0  # abilities are used at all in greedy games


def test_trajectories_follow_each_seats_values_turn_by_turn(played):
    table = st.trajectory_table(played)
    cell = played.filter(pl.col("start_hands") == "3/5", pl.col("pairing") == "greedy vs greedy")
    starts = [(v1 if f == "p1" else v2)[0] for v1, v2, f in cell.select("values_p1", "values_p2", "first_seat").rows()]
    row = table.filter(pl.col("start_hands") == "3/5", pl.col("pairing") == "greedy vs greedy",
                       pl.col("role") == "start player", pl.col("turn") == 1).row(0, named=True)
    assert row["n"] == 40 and row["mean"] == pytest.approx(sum(starts) / 40)
    assert all(len(v) == n for v, n in zip(played["values_p1"], played["length"], strict=True))


def test_hand_sizes_covers_every_pair_and_marks_the_fair_ones():
    study = get_study("babel", "hand_sizes")
    tables = study.execute("babel", {"games": 12, "smallest": 3, "largest": 4, "agents": "greedy,greedy"}, seed=1)
    t, games = tables["hand_sizes"], tables["games"]
    assert t.select("hand_start", "hand_other").rows() == [(3, 3), (3, 4), (4, 3), (4, 4)]
    seeds = None
    for row in t.iter_rows(named=True):
        a, b = row["hand_start"], row["hand_other"]
        cell = games.filter(pl.col("hand_start") == a, pl.col("hand_other") == b)
        # each pair is a plain simulation with those hands, on the same seeds as every other pair
        alone = simulate("babel", 12, params={"hand_start": a, "hand_other": b}, agents="greedy,greedy", seed=1,
                         progress=False)
        assert cell.select(alone.columns).equals(alone)
        seeds = cell["game_seed"].to_list() if seeds is None else seeds
        assert cell["game_seed"].to_list() == seeds
        config = MODEL.make_config(MODEL.resolve_params({"hand_start": a, "hand_other": b, "first": "p1"}))
        state = MODEL.initial_state(config, seeds[0])
        assert (sum(state.hands[0]), sum(state.hands[1])) == (a + 3, b)  # the start player has drawn 3 more
        # the start player's score recounted (a draw counts half); the interval is Wilson's formula on that
        # count; fair: 50 % inside it
        k = int((cell["winner"] == cell["first_seat"]).sum()) + int((cell["winner"] == "draw").sum()) / 2
        low, high = formula_wilson(k, 12)
        assert (row["first_seat_score_n"], row["first_seat_score"]) == (12, pytest.approx(k / 12))
        assert (row["first_seat_score_low"], row["first_seat_score_high"]) == pytest.approx((low, high), abs=1e-9)
        assert row["fair_within_ci"] == (low <= 0.5 <= high)
    # the heat map plots the table, and writes "fair" on exactly the fair pairs
    spec = study.make_charts(tables)["hand_sizes"].to_dict()
    heat, marks = (spec["datasets"][layer["data"]["name"]] for layer in spec["layer"])
    key = ("hand_start", "hand_other", "first_seat_score", "first_seat_score_low", "first_seat_score_high",
           "first_seat_score_n")
    assert sorted(tuple(r[c] for c in key) for r in heat) == sorted(t.select(key).rows())
    assert sorted((r["hand_start"], r["hand_other"]) for r in marks) == sorted(
        t.filter(pl.col("fair_within_ci")).select("hand_start", "hand_other").rows())
    with pytest.raises(InputError, match="setting 'smallest' \\(5\\) is above 'largest' \\(4\\)"):
        study.execute("babel", {"smallest": 5, "largest": 4})


def test_bad_study_settings_are_named():
    with pytest.raises(InputError, match="setting 'hands': 4/4 given; allowed: 3/5, 5/5"):
        get_study("babel", "endings").execute("babel", {"hands": "4/4"})


def _shown(rate: float, low: float, high: float) -> str:
    """How a rate and its interval read in a report table (core/present/report.py: "52.3% [51.3–53.3]")."""
    return f"{100 * rate:.1f}% [{100 * low:.1f}–{100 * high:.1f}]"


def test_quick_report_answers_each_question(tmp_path):
    from workbench.games.babel.report import PAIRINGS, _sizes, build_report

    out = build_report(tmp_path / "babel", quick=True, seed=2, workers=1)
    md = (out / "index.md").read_text(encoding="utf-8")
    # the header in words: each pairing "a vs b", a yes/no as yes/no (never "greedy,greedy |" or "False")
    assert "| Agents | greedy vs greedy, random vs random, greedy vs random |" in md and "| Quick | yes |" in md
    summary = check_summary(out, changes=True)  # it opens with what it finds, each number from its table
    assert any(f["anchor"].endswith("_tiers") and f["status"] for f in summary["findings"])  # verdicts per tier
    # the deals' verdicts are section 6's: section 5b does not state them again, and no sentence repeats
    assert not any("start player 3 / other 5" in f["sentence"] or "start player 5 / other 5" in f["sentence"]
                   for f in summary["findings"])
    assert len({f["sentence"] for f in summary["findings"]}) == len(summary["findings"])
    # the last section: every step's size and real seconds, the same seconds as the header's
    sizes = pl.read_parquet(out / "run_sizes.parquet")
    meta = json.loads((out / "report.json").read_text(encoding="utf-8"))["meta"]
    assert dict(sizes.select("step", "seconds").rows()) == meta["seconds"]
    assert {"deals", "start hands", "deals at tiers", "readings", "rebalance"} <= set(sizes["step"])
    assert all(sizes["bigger run"].str.len_chars() > 0) and "## Sizes of this run" in md
    for heading in ("## 1. Is the start player's handicap fair?", "## 2. How games end", "## 3. Which nation",
                    "## 4. Temple value per turn", "## 5. Which start hands make the start seat 50 %?",
                    "## 6. Is the start seat's verdict settled across skill levels?"):
        assert heading in md
    # section 6: the start seat's score per deal at each tier, recounted from plain simulations with that tier
    tiers = pl.read_parquet(out / "start_seat_tiers.parquet")
    for row in tiers.iter_rows(named=True):
        hands = row["cell"].removeprefix("start hands ")
        scores = []
        for tier in ("greedy", "greedy@tuned"):  # the quick report plays the fast tiers only
            games = simulate("babel", _sizes(True)["tier_games"], params={"start_hands": hands},
                             agents=f"{tier},{tier}", seed=2, progress=False)
            score = ((games["winner"] == games["first_seat"]).sum() + (games["winner"] == "draw").sum() / 2)
            low, high = formula_wilson(score, games.height)  # the formula: a draw's half count is no binomial k
            assert row[f"{tier} · score"] == pytest.approx(score / games.height)
            assert (row[f"{tier} · score_low"], row[f"{tier} · score_high"]) == pytest.approx((low, high), abs=1e-9)
            verdict = "favoured" if low > 0.5 else "disfavoured" if high < 0.5 else "fair"
            assert row[f"{tier} · verdict"] == verdict
            scores += [score / games.height, games.height]
        assert row["status"] == settle(*scores)["status"]  # the equivalence rule, not a comparison of labels
    # section 5b: only the pairs section 5 calls fair, each recounted at the greedy tier from a plain simulation
    hands = pl.read_parquet(out / "hand_sizes.parquet").filter(pl.col("fair_within_ci"))
    fair = {f"start player {a} / other {b}" for a, b in hands.select("hand_start", "hand_other").iter_rows()}
    checked = pl.read_parquet(out / "fair_hands_tiers.parquet")
    assert "## 5b. Are the fair start hands fair at every skill level?" in md
    assert 0 < checked.height <= 8 and set(checked["cell"]) <= fair
    first = checked.row(0, named=True)
    a, b = (int(x.split()[-1]) for x in first["cell"].split(" / "))
    games = simulate("babel", _sizes(True)["tier_games"], params={"hand_start": a, "hand_other": b},
                     agents="greedy,greedy", seed=2, progress=False)
    score = ((games["winner"] == games["first_seat"]).sum() + (games["winner"] == "draw").sum() / 2)
    assert first["greedy · score"] == pytest.approx(score / games.height)
    size = _sizes(True)
    n = size["games"]
    pairings = [p.strip() for p in PAIRINGS.split(";")]
    seats = pl.read_parquet(out / "start_seat.parquet")
    assert sorted(seats.select("start_hands", "pairing").rows()) == sorted(
        (h, p.replace(",", " vs ")) for h in ("3/5", "5/5") for p in pairings)  # "greedy vs random": display names
    ends = pl.read_parquet(out / "endings.parquet")
    for row in seats.iter_rows(named=True):  # each cell recounted from a plain simulation of its games
        games = simulate("babel", n, params={"start_hands": row["start_hands"]},
                         agents=row["pairing"].replace(" vs ", ","), seed=2, progress=False)
        k = int((games["winner"] == games["first_seat"]).sum())
        draws = int((games["winner"] == "draw").sum())
        decisive = games.filter(pl.col("winner") != "draw")
        k_decisive = int((decisive["winner"] == decisive["first_seat"]).sum())
        low, high = formula_wilson(k + draws / 2, n)  # the start seat's score: a draw counts half
        assert (row["first_seat_score_n"], row["first_seat_score"]) == (n, pytest.approx((k + draws / 2) / n))
        assert (row["first_seat_score_low"], row["first_seat_score_high"]) == pytest.approx((low, high), abs=1e-9)
        assert row["first_seat_draws"] == pytest.approx(draws / n)  # the draws beside it
        assert row["first_mover_p"] == pytest.approx(binomtest(k_decisive, decisive.height, 0.5).pvalue, abs=1e-12)
        assert f"| {row['start_hands']} | {row['pairing']} | {_shown((k + draws / 2) / n, low, high)} | {n} | " in md
        cell = ends.filter(pl.col("start_hands") == row["start_hands"], pl.col("pairing") == row["pairing"])
        assert dict(cell.select("reason", "k").rows()) == {r: int((games["reason"] == r).sum())
                                                            for r in games["reason"].unique()}
    # the start-seat chart plots the table
    spec = json.loads((out / "start_seat_chart.vl.json").read_text(encoding="utf-8"))
    plotted = [r for rows in spec["datasets"].values() for r in rows if "rate" in r]
    assert sorted((r["start_hands"], r["pairing"], r["rate"], r["low"], r["high"], r["n"]) for r in plotted) == sorted(
        seats.select("start_hands", "pairing", "first_seat_score", "first_seat_score_low", "first_seat_score_high",
                     "first_seat_score_n").rows())
    # section 5: each pair's interval is scipy's Wilson interval; the sentence names exactly the fair pairs
    hands = pl.read_parquet(out / "hand_sizes.parquet")
    low_hand, high_hand = size["hands"]
    assert sorted(hands.select("hand_start", "hand_other").rows()) == [
        (a, b) for a in range(low_hand, high_hand + 1) for b in range(low_hand, high_hand + 1)]
    fair = []
    for row in hands.iter_rows(named=True):
        k = round(row["first_seat_score"] * size["hand_games"] * 2) / 2  # a draw counts half
        low, high = formula_wilson(k, size["hand_games"])
        assert row["first_seat_score_n"] == size["hand_games"] and row["first_seat_score"] == pytest.approx(
            k / size["hand_games"], abs=1e-12)
        assert (row["first_seat_score_low"], row["first_seat_score_high"]) == pytest.approx((low, high), abs=1e-9)
        assert row["fair_within_ci"] == (low <= 0.5 <= high)
        fair += [f"{row['hand_start']}/{row['hand_other']}"] if low <= 0.5 <= high else []
    assert f"Pairs whose 95 % interval contains 50 %: {', '.join(fair) or 'none'}." in md
    spec = json.loads((out / "hand_sizes_chart.vl.json").read_text(encoding="utf-8"))
    heat = max(spec["datasets"].values(), key=len)
    key = ("hand_start", "hand_other", "first_seat_score", "first_seat_score_low", "first_seat_score_high")
    assert sorted(tuple(r[c] for c in key) for r in heat) == sorted(hands.select(key).rows())
    assert (out / "hand_sizes_chart.svg").exists() and (out / "trajectories_chart.png").exists()
