"""The rescue report (quick sizes): every section, and its tables agree with a direct recomputation."""

from __future__ import annotations

import json
from fractions import Fraction

import polars as pl
import pytest

from workbench.games.rescue import control, dragon, trophies
from workbench.games.rescue import report as rr
from workbench.games.rescue.auction import Auction
from workbench.games.rescue.studies import exact_table

SECTIONS = ("## 1. The Mercenary auction", "## 2. Equilibrium bidding", "## 3. Taking control",
            "## 4. The Dragon", "## 5. Tower trophies")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = rr.build_report(tmp_path_factory.mktemp("rescue") / "report", quick=True, seed=0)
    return out, json.loads((out / "report.json").read_text())


def _table(built, name: str) -> pl.DataFrame:
    return pl.read_parquet(built[0] / f"{name}.parquet")


def _inside(frame: pl.DataFrame) -> None:
    if "k" in frame.columns:
        assert (frame["simulated"] == frame["k"] / frame["n"]).all()
    assert ((frame["low"] <= frame["simulated"]) & (frame["simulated"] <= frame["high"])).all()
    assert ((frame["low"] <= frame["exact"]) & (frame["exact"] <= frame["high"])).all()


def test_every_section_table_and_chart_is_written(built):
    out, meta = built
    md = (out / "index.md").read_text()
    assert [md.index(s) for s in SECTIONS] == sorted(md.index(s) for s in SECTIONS)
    assert meta["meta"]["rules_version"] == "rescue-auction-1" and meta["meta"]["quick"] is True
    assert meta["tables"] == ["auction_2p", "auction_3p", "equilibrium_2p", "equilibrium_3p",
                              "control_smallest_offer", "control", "dragon_appearance", "dragon_trophy", "trophies"]
    assert len(meta["charts"]) == 13
    for name in meta["charts"]:
        for ext in ("png", "svg", "vl.json"):
            assert (out / f"{name}.{ext}").stat().st_size > 0
        assert f'id="chart-{name}"' in (out / "index.html").read_text()
    assert "The Dragon-trophy table for 2–6 players, catch 0.3: 25 of 25 exact values" in md


def test_auction_tables_are_the_exact_odds_beside_intervals_that_hold_them(built):
    for players in rr.AUCTION_PLAYERS:
        table = _table(built, f"auction_{players}p")
        assert table.select("budget", "agents").unique().height == len(rr.AUCTION_BUDGETS) * len(rr.AUCTION_AGENTS)
        for budget in rr.AUCTION_BUDGETS:
            config = Auction(players, (budget,) * players, (rr.VALUE,) * players)
            mine = table.filter((pl.col("budget") == budget) & (pl.col("agents") == "random"))
            direct = exact_table(config, ["random"] * players)
            assert mine["event"].to_list() == direct["event"].to_list()
            assert mine["exact_text"].to_list() == direct["exact_text"].to_list()
        sim = table.filter(pl.col("n").is_not_null())
        assert (sim["n"] == 2_000).all() and sim["inside"].all()
        _inside(sim)
    two = _table(built, "auction_2p").filter((pl.col("budget") == 3) & (pl.col("agents") == "random"))
    # by hand: two uniform bids 0..3 tie with chance 1/4; a tie at 0 (1/16) gives nobody, a tie at b ≥ 1 (3/16) goes
    # to a second auction that ties again with chance 1/4
    nobody = Fraction(1, 16) + Fraction(3, 16) * Fraction(1, 4)
    assert dict(two.select("event", "exact_text").iter_rows())["nobody"] == str(nobody) == "7/64"


def test_equilibrium_tables_cover_the_budgets_and_report_exploitability(built):
    two, three = _table(built, "equilibrium_2p"), _table(built, "equilibrium_3p")
    size = rr._sizes(True)
    assert two["budget"].to_list() == list(range(1, size["eq_budget_2p"] + 1))
    assert three["budget"].to_list() == list(range(1, size["eq_budget_3p"] + 1))
    assert two["exact"].all() and (two["exploitability"] == 0).all()
    assert (three["exploitability"] < 1e-6).all()
    assert {f"p_nobody_{n}" for n in ("equilibrium", "random", "truthful", "allin", "shade")} <= set(two.columns)
    # random bidders with b crystals: P(tie) = 1/(b+1); nobody = tie at 0 + tie again in the second auction
    for b, p in zip(two["budget"], two["p_nobody_random"], strict=True):
        tie = Fraction(1, b + 1)
        assert p == pytest.approx(float(tie / (b + 1) + tie * b / (b + 1) * tie))


def test_control_tables_follow_the_owners_rule(built):
    table = _table(built, "control")
    for v, c, k, decision, k_star in table.select("owner_value", "owner_crystals", "offer", "decision",
                                                  "smallest_offer").iter_rows():
        assert decision == control.decision(k, v, c) and k_star == control.smallest_offer(v, c)
    smallest = _table(built, "control_smallest_offer")
    for row in smallest.iter_rows(named=True):
        for col, k_star in row.items():
            if col.startswith("crystals_"):
                assert k_star == control.smallest_offer(row["owner_value"], int(col.removeprefix("crystals_")))


def test_dragon_tables_equal_the_exact_functions_and_sit_in_their_intervals(built):
    appearance, trophy = _table(built, "dragon_appearance"), _table(built, "dragon_trophy")
    assert appearance["exact_fraction"].to_list() == ["1/6"] * 6
    assert appearance["exact"].to_list() == [float(v) for v in dragon.appearance_odds().values()]
    assert sorted(trophy["players"].unique()) == list(range(2, 7))
    for players in range(2, 7):
        mine = trophy.filter(pl.col("players") == players)
        exact = dragon.trophy_odds(rr.DRAGON_CATCH, rr.DRAGON_ROUNDS, players)
        assert dict(mine.select("outcome", "exact").iter_rows()) == {k: float(v) for k, v in exact.items()}
        assert mine["k"].sum() == mine["n"][0] == rr._sizes(True)["dragon_games"]
    _inside(appearance)
    _inside(trophy)


def test_trophy_table_equals_the_multinomial_odds(built):
    table = _table(built, "trophies")
    for case, players, propensities, strategies, _ in rr.TROPHY_CASES:
        mine = table.filter(pl.col("case") == case)
        exact = trophies.trophy_odds(propensities, players)
        assert dict(mine.select("outcome", "exact").iter_rows()) == {k: float(v) for k, v in exact.items()}
        assert mine["exact_applies"].all() == (strategies == "random")
    _inside(table.filter(pl.col("exact_applies")))
    assert dict(table.filter(pl.col("case") == rr.TROPHY_CASES[0][0]).select("outcome", "exact_fraction")
                .iter_rows()) == {"p1": "83/512", "p2": "83/512", "p3": "83/512", "p4": "83/512", "nobody": "45/128"}
