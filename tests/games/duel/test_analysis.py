"""Battlefield balance: the grid runner, the tables and every chart builder."""

from __future__ import annotations

import polars as pl
import pytest

from tests.independent import wilson as _wilson
from tests.scipy_intervals import newcombe, wilson
from workbench.core.errors import InputError
from workbench.core.sim.runner import simulate
from workbench.games.duel import analysis

# one worker builds this module's shared fixtures once (pytest -n 2 --dist loadgroup)
pytestmark = pytest.mark.xdist_group("test_analysis")

FIELDS = ["grand_wizards_fortress", "free_steppe"]


@pytest.fixture(scope="module")
def grid() -> pl.DataFrame:
    return analysis.run_grid(FIELDS, ("regular", "unlimited"), (("greedy", "greedy"), ("random", "random")),
                             games=120, seed=5, block=50)


@pytest.fixture(scope="module")
def miss() -> pl.DataFrame:
    return analysis.run_grid(FIELDS[:1], ("regular",), games=300, seed=2, extra={"miss_rate": [0.0, 0.5]})


def test_grid_rows_are_the_runner_rows(grid):
    assert grid.height == 2 * 2 * 2 * 120
    cell = grid.filter((pl.col("battlefield") == "free_steppe") & (pl.col("deck") == "unlimited")
                       & (pl.col("pairing") == "random vs random"))
    alone = simulate("duel", 120, params={"battlefield": "free_steppe", "deck": "unlimited"}, agents="random,random",
                     seed=5, progress=False)
    assert cell.get_column("game_seed").to_list() == alone.get_column("game_seed").to_list()
    assert cell.get_column("winner").to_list() == alone.get_column("winner").to_list()


def test_balance_table(grid):
    table = analysis.balance_table(grid)
    assert table.height == 8 and (table.get_column("games") == 120).all()
    row = table.filter((pl.col("battlefield") == "grand_wizards_fortress") & (pl.col("deck") == "regular")
                       & (pl.col("pairing") == "greedy vs greedy")).row(0, named=True)
    cell = grid.filter((pl.col("battlefield") == "grand_wizards_fortress") & (pl.col("deck") == "regular")
                       & (pl.col("pairing") == "greedy vs greedy"))
    won = int((cell.get_column("winner") == cell.get_column("first_seat")).sum())
    assert row["first_seat_win"] == pytest.approx(won / 120)
    assert (row["first_seat_win_low"], row["first_seat_win_high"]) == pytest.approx(wilson(won, 120), abs=1e-12)
    ends = [c for c in table.columns if c.startswith("end_") and not c.endswith(("_low", "_high"))]
    assert sorted(ends) == sorted(f"end_{r}" for r in grid["reason"].unique())
    assert all((table.select(pl.sum_horizontal(ends)).to_series() - 1).abs() < 1e-9)
    for r in table.iter_rows(named=True):  # every end-reason share: recounted, with scipy's Wilson interval
        games = grid.filter(*(pl.col(k) == r[k] for k in ("battlefield", "deck", "pairing")))
        for end in ends:
            k = int((games["reason"] == end[4:]).sum())
            assert r[end] == pytest.approx(k / games.height)
            assert (r[f"{end}_low"], r[f"{end}_high"]) == pytest.approx(wilson(k, games.height), abs=1e-12)
    lengths = analysis.length_table(grid)
    assert {"length_median", "length_q90"} <= set(lengths.columns) and lengths.height == 8
    reasons = analysis.end_reason_table(grid)
    assert set(reasons.get_column("reason")) <= {"tower_built", "tower_destroyed", "resources", "draw", "turn_limit"}


def test_miss_rule_effect(miss):
    table = analysis.miss_effect_table(miss)
    assert table.height == 1
    row = table.row(0, named=True)
    assert row["miss_rate"] == 0.5 and row["n"] == row["n_base"] == 300
    assert row["timeout_share"] > 0.3  # half the turns missed: many games are lost on time
    won = {m: int((g["winner"] == g["first_seat"]).sum()) for (m,), g in miss.group_by(["miss_rate"])}
    assert row["diff"] == pytest.approx((won[0.5] - won[0.0]) / 300)
    assert (row["low"], row["high"]) == pytest.approx(newcombe(won[0.5], 300, won[0.0], 300), abs=1e-12)
    with pytest.raises(InputError, match="two or more miss rates"):
        analysis.miss_effect_table(miss.filter(pl.col("miss_rate") == 0.0))


def test_stop_keeps_finished_blocks():
    calls = []
    frame = analysis.run_grid(FIELDS, games=100, block=25, on_progress=lambda d, t: calls.append((d, t)),
                              should_stop=lambda: len(calls) >= 2)
    assert frame.height == 50 and frame.get_column("game_index").to_list() == list(range(50))
    assert calls[-1] == (50, 200)


def test_bad_input():
    with pytest.raises(InputError, match="unknown battlefield"):
        analysis.run_grid(["atlantis"], games=10)
    with pytest.raises(InputError, match="positive integer"):
        analysis.run_grid(FIELDS, games=0)


def _rows(spec: dict) -> list[dict]:
    (rows,) = spec["datasets"].values()
    return rows


def _marks(layers: list[dict]) -> list[str]:
    return [layer["mark"]["type"] for layer in layers]


def test_first_seat_chart_plots_the_tables_rates_with_intervals(grid):
    spec = analysis.first_seat_chart(analysis.balance_table(grid)).to_dict()
    assert spec["title"] == "First-seat win rate (95 % Wilson interval)"
    assert spec["facet"]["column"]["field"] == "pairing"  # two pairings → one panel each
    bars, points, fair = spec["spec"]["layer"]
    assert _marks(spec["spec"]["layer"]) == ["errorbar", "point", "rule"]
    assert (points["encoding"]["x"]["field"], points["encoding"]["y"]["field"]) == ("battlefield", "first_seat_win")
    assert points["encoding"]["color"]["field"] == "deck" and points["encoding"]["xOffset"]["field"] == "deck"
    assert (bars["encoding"]["y"]["field"], bars["encoding"]["y2"]["field"]) == ("first_seat_win_low",
                                                                                "first_seat_win_high")
    assert fair["encoding"]["y"]["datum"] == 0.5  # the fair-seat line
    rows = _rows(spec)
    # one point per battlefield × deck × pairing, each recounted from the raw games
    assert sorted((r["battlefield"], r["deck"], r["pairing"]) for r in rows) == sorted(
        (b, d, p) for b in FIELDS for d in ("regular", "unlimited") for p in ("greedy vs greedy", "random vs random"))
    for r in rows:
        cell = grid.filter((pl.col("battlefield") == r["battlefield"]) & (pl.col("deck") == r["deck"])
                           & (pl.col("pairing") == r["pairing"]))
        won = int((cell.get_column("winner") == cell.get_column("first_seat")).sum())
        assert r["games"] == cell.height == 120
        assert r["first_seat_win"] == pytest.approx(won / 120)
        assert (r["first_seat_win_low"], r["first_seat_win_high"]) == pytest.approx(_wilson(won, 120), abs=1e-12)


def test_length_chart_bins_every_game_once_per_battlefield(grid):
    spec = analysis.length_chart(grid).to_dict()
    assert spec["title"] == "Game length (player turns)" and spec["mark"]["type"] == "bar"
    enc = spec["encoding"]
    assert (enc["x"]["field"], enc["x"]["bin"], enc["x2"]["field"]) == ("bin_start", "binned", "bin_end")
    assert enc["y"]["field"] == "share" and enc["color"]["field"] == "battlefield"
    rows = _rows(spec)
    for field in FIELDS:
        lengths = grid.filter(pl.col("battlefield") == field).get_column("length")
        mine = [r for r in rows if r["battlefield"] == field]
        assert sum(r["count"] for r in mine) == lengths.len() == 2 * 2 * 120  # decks × pairings × games
        assert sum(r["share"] for r in mine) == pytest.approx(1.0)
        for r in mine:  # integer lengths, bins edged on halves: each game falls in exactly one bin
            assert r["count"] == int(((lengths > r["bin_start"]) & (lengths < r["bin_end"])).sum())


def test_end_reason_chart_shows_each_cells_reason_shares(grid):
    spec = analysis.end_reason_chart(grid).to_dict()
    assert spec["title"] == "How games end" and spec["mark"]["type"] == "bar"
    enc = spec["encoding"]
    assert (enc["x"]["field"], enc["color"]["field"], enc["y"]["field"]) == ("cell", "reason", "share")
    assert enc["y"]["stack"] == "normalize"
    rows = _rows(spec)
    cells = {" / ".join(key): frame for key, frame in grid.group_by(["battlefield", "deck", "pairing"])}
    assert {r["cell"] for r in rows} == set(cells) and len(cells) == 8
    for r in rows:
        reasons = cells[r["cell"]].get_column("reason")
        assert r["n"] == 120 and r["count"] == int((reasons == r["reason"]).sum())
        assert r["share"] == pytest.approx(r["count"] / 120)
    assert sum(r["count"] for r in rows) == grid.height  # every game in exactly one bar segment


def test_miss_effect_chart_shows_the_rate_change_against_no_misses(miss):
    spec = analysis.miss_effect_chart(analysis.miss_effect_table(miss)).to_dict()
    assert spec["title"] == "Miss rule: change of the first-seat win rate"
    assert spec["facet"]["column"]["field"] == "miss_rate"
    bars, points, zero = spec["spec"]["layer"]
    assert _marks(spec["spec"]["layer"]) == ["errorbar", "point", "rule"]
    assert (points["encoding"]["x"]["field"], points["encoding"]["y"]["field"]) == ("diff", "cell")
    assert (bars["encoding"]["x"]["field"], bars["encoding"]["x2"]["field"]) == ("low", "high")
    assert zero["encoding"]["x"]["datum"] == 0
    (row,) = _rows(spec)  # one battlefield, one miss rate besides 0
    won = {m: int((g.get_column("winner") == g.get_column("first_seat")).sum())
           for (m,), g in miss.group_by(["miss_rate"])}
    assert (row["cell"], row["miss_rate"], row["n"], row["n_base"]) == ("grand_wizards_fortress", 0.5, 300, 300)
    assert row["diff"] == pytest.approx((won[0.5] - won[0.0]) / 300)
    assert (row["low"], row["high"]) == pytest.approx(newcombe(won[0.5], 300, won[0.0], 300), abs=1e-12)


def test_battlefield_charts_are_the_three_standard_charts(grid):
    charts = analysis.battlefield_charts(grid)
    assert {name: c.to_dict()["title"] for name, c in charts.items()} == {
        "first_seat": "First-seat win rate (95 % Wilson interval)", "length": "Game length (player turns)",
        "end_reasons": "How games end"}
