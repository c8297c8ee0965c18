"""Empirical per-card rates: exact counts on a hand-made frame, invariants on simulated games."""

from __future__ import annotations

import polars as pl
import pytest

from workbench.core.sim.runner import simulate
from workbench.core.stats.cardstats import VIEWS, costed_lists, empirical_values
from workbench.games.duel.cardvalue import cardstats, valuation
from workbench.games.duel.data import load_cards

# one worker builds this module's shared fixtures once (pytest -n 2 --dist loadgroup)
pytestmark = pytest.mark.xdist_group("test_duel_cardstats")

CARDS = load_cards()


def _frame() -> pl.DataFrame:
    """Three games; card 1 is drawn twice by p1 in game 0 (counts once), card 2 never played."""
    ids = pl.List(pl.Int64)
    return pl.DataFrame({
        "winner": ["p1", "p2", "draw"],
        "drawn_p1": [[1, 1, 2], [2], [3]], "played_p1": [[1], [], [3]],
        "drawn_p2": [[3], [1, 3], [2]], "played_p2": [[3], [1], []],
    }, schema={"winner": pl.String, "drawn_p1": ids, "played_p1": ids, "drawn_p2": ids, "played_p2": ids})


def test_counts_on_a_hand_made_frame():
    rates = cardstats.card_rates(_frame(), CARDS)
    assert rates.height == len(CARDS)
    assert rates.columns[:6] == ["id", "key", "name_en", "colour", "cost", "seat_games"]
    row = {r["id"]: r for r in rates.iter_rows(named=True)}
    assert row[1]["seat_games"] == 6
    # card 1: drawn by p1 in game 0 (won) and p2 in game 1 (won); played both times
    assert (row[1]["wr_drawn_n"], row[1]["wr_drawn"]) == (2, 1.0)
    assert (row[1]["wr_played_n"], row[1]["wr_played"], row[1]["play_rate"]) == (2, 1.0, 1.0)
    # not drawn: 4 seat-games with 0 wins → improvement when drawn = 1.0
    assert (row[1]["wr_undrawn_n"], row[1]["wr_undrawn"], row[1]["iwd"]) == (4, 0.0, 1.0)
    # card 2: drawn in game 0 (p1 won), game 1 (p1 lost), game 2 (draw: not a win); never played
    assert (row[2]["wr_drawn_n"], row[2]["wr_drawn"]) == (3, pytest.approx(1 / 3))
    assert row[2]["wr_played_n"] == 0 and row[2]["wr_played"] is None and row[2]["play_rate"] == 0.0
    # a card nobody drew: n = 0, no rate, whole interval
    assert row[50]["wr_drawn_n"] == 0 and row[50]["wr_drawn"] is None
    assert (row[50]["wr_drawn_low"], row[50]["wr_drawn_high"]) == (0.0, 1.0)
    assert row[50]["iwd"] is None


def test_groups_and_missing_columns():
    frame = _frame().with_columns(pl.Series("battlefield", ["a", "a", "b"]))
    rates = cardstats.card_rates(frame, CARDS, by=["battlefield"])
    assert rates.height == 2 * len(CARDS)
    a = rates.filter((pl.col("battlefield") == "a") & (pl.col("id") == 2)).row(0, named=True)
    assert (a["seat_games"], a["wr_drawn_n"], a["wr_drawn"]) == (4, 2, 0.5)
    with pytest.raises(ValueError, match="drawn_p1"):
        cardstats.card_rates(frame.drop("drawn_p1"), CARDS)


@pytest.fixture(scope="module")
def games() -> pl.DataFrame:
    return simulate("duel", 300, params={"battlefield": "grand_wizards_fortress"}, agents="greedy,greedy", seed=11,
                    progress=False)


def test_invariants_on_simulated_games(games):
    rates = cardstats.card_rates(games, CARDS)
    distinct = sum(games.get_column(f"drawn_{s}").list.unique().list.len().sum() for s in ("p1", "p2"))
    assert rates.get_column("wr_drawn_n").sum() == distinct
    assert (rates.get_column("wr_played_n") <= rates.get_column("wr_drawn_n")).all()
    assert (rates.get_column("wr_drawn_n") + rates.get_column("wr_undrawn_n") == 2 * games.height).all()
    seen = rates.filter(pl.col("wr_drawn_n") > 0)
    assert ((seen["wr_drawn_low"] <= seen["wr_drawn"]) & (seen["wr_drawn"] <= seen["wr_drawn_high"])).all()
    iwd = seen.filter(pl.col("iwd").is_not_null())
    assert ((iwd["iwd_low"] <= iwd["iwd"]) & (iwd["iwd"] <= iwd["iwd_high"])).all()


def test_empirical_values_match_the_cost_scale(games):
    rates = empirical_values(cardstats.card_rates(games, CARDS))
    ok = rates.filter(pl.col("emp_value").is_not_null())
    assert ok.get_column("emp_value").mean() == pytest.approx(ok.get_column("cost").cast(pl.Float64).mean())
    assert ok.get_column("emp_value").std(ddof=0) == pytest.approx(ok.get_column("cost").cast(pl.Float64).std(ddof=0))
    assert (ok["emp_residual"] - (ok["cost"] - ok["emp_value"])).abs().max() < 1e-9


def test_both_views_chart_and_lists(games):
    rates = empirical_values(cardstats.card_rates(games, CARDS))
    both = cardstats.cost_value_frame(valuation.costing_table(CARDS), rates, outliers=5)
    assert set(both.get_column("view")) == set(VIEWS)
    assert both.group_by("view").agg(pl.col("outlier").sum()).get_column("outlier").to_list() == [5, 5]
    lists = costed_lists(both, 5)
    assert lists.height == 20
    over = lists.filter((pl.col("view") == VIEWS[0]) & (pl.col("side") == "over-costed"))
    assert over.get_column("residual").is_sorted(descending=True) and (over["residual"] > 0).all()
    spec = cardstats.cost_value_chart(both).to_dict()
    assert len(spec["hconcat"]) == 2
    assert "Cost against value" in str(spec["title"])
