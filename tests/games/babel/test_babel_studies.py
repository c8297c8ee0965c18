"""Babel's studies and report: every number recounted from the games they played."""

from __future__ import annotations

import polars as pl
import pytest

from tests.independent import wilson
from workbench.core.errors import InputError
from workbench.core.runner import simulate
from workbench.core.study import get_study
from workbench.games.babel import studies as st
from workbench.games.babel.model import MODEL


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
    t = tables["hand_sizes"]
    assert t.select("hand_start", "hand_other").rows() == [(3, 3), (3, 4), (4, 3), (4, 4)]
    assert (t["fair_within_ci"] == ((t["first_mover_all_low"] <= 0.5) & (t["first_mover_all_high"] >= 0.5))).all()
    games = tables["games"]
    assert games.filter(pl.col("hand_start") == 4, pl.col("hand_other") == 3).height == 12
    assert "hand_sizes" in study.make_charts(tables)
    with pytest.raises(InputError, match="setting 'smallest' \\(5\\) is above 'largest' \\(4\\)"):
        study.execute("babel", {"smallest": 5, "largest": 4})


def test_bad_study_settings_are_named():
    with pytest.raises(InputError, match="setting 'hands': 4/4 given; allowed: 3/5, 5/5"):
        get_study("babel", "endings").execute("babel", {"hands": "4/4"})


def test_quick_report_answers_each_question(tmp_path):
    from workbench.games.babel.report import build_report

    out = build_report(tmp_path / "babel", quick=True, seed=2, workers=1)
    md = (out / "index.md").read_text(encoding="utf-8")
    for heading in ("## 1. Is the start player's handicap fair?", "## 2. How games end", "## 3. Which nation",
                    "## 4. Temple value per turn", "## 5. Which start hands make the start seat 50 %?"):
        assert heading in md
    seats = pl.read_parquet(out / "start_seat.parquet")
    assert seats.height == 6 and set(seats["start_hands"]) == {"3/5", "5/5"}
    assert ((seats["first_mover_all_low"] <= seats["first_mover_all"])
            & (seats["first_mover_all"] <= seats["first_mover_all_high"])).all()
    ends = pl.read_parquet(out / "endings.parquet")
    assert ends.group_by("start_hands", "pairing").agg(pl.col("k").sum())["k"].unique().to_list() == [
        seats["first_mover_all_n"][0]]
    assert (out / "hand_sizes_chart.svg").exists() and (out / "trajectories_chart.png").exists()
