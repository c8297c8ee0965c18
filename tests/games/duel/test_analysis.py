"""Battlefield balance: the grid runner, the tables and every chart builder."""

from __future__ import annotations

import polars as pl
import pytest

from workbench.core.errors import InputError
from workbench.core.runner import simulate
from workbench.games.duel import analysis

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
    won = (cell.get_column("winner") == cell.get_column("first_seat")).sum()
    assert row["first_seat_win"] == pytest.approx(won / 120)
    assert row["first_seat_win_low"] <= row["first_seat_win"] <= row["first_seat_win_high"]
    ends = [c for c in table.columns if c.startswith("end_") and not c.endswith(("_low", "_high"))]
    assert ends and all((table.select(pl.sum_horizontal(ends)).to_series() - 1).abs() < 1e-9)
    for end in ends:  # every end-reason share carries its interval
        assert ((table[f"{end}_low"] <= table[end]) & (table[end] <= table[f"{end}_high"])).all()
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
    assert row["low"] <= row["diff"] <= row["high"]
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


def test_chart_builders(grid, miss):
    table = analysis.balance_table(grid)
    specs = {
        "first_seat": analysis.first_seat_chart(table).to_dict(),
        "length": analysis.length_chart(grid).to_dict(),
        "end_reasons": analysis.end_reason_chart(grid).to_dict(),
        "miss": analysis.miss_effect_chart(analysis.miss_effect_table(miss)).to_dict(),
    }
    assert specs["first_seat"]["facet"]["column"]["field"] == "pairing"  # two pairings → one panel each
    assert all("$schema" in s for s in specs.values())
    assert set(analysis.battlefield_charts(grid)) == {"first_seat", "length", "end_reasons"}
