"""The rescue report (quick sizes): every section, and its tables agree with a direct recomputation."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import polars as pl
import pytest

from tests.scipy_intervals import wilson as scipy_wilson
from tests.summary_checks import check_summary
from workbench.games.rescue import dragon, trophies
from workbench.games.rescue import report as rr
from workbench.games.rescue.rules import Config
from workbench.games.rescue.studies import exact_table

# one worker builds this module's shared fixtures once (pytest -n 2 --dist loadgroup)
pytestmark = pytest.mark.xdist_group("test_rescue_report")

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


def _shown(value) -> str:
    """A number as the report's tables print it (4 significant digits, whole numbers bare)."""
    if isinstance(value, float) and value == int(value):
        return str(int(value))
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def test_the_report_opens_with_what_it_finds(built):
    summary = check_summary(built[0])
    eq = _table(built, "equilibrium_2p")
    first = next(f for f in summary["findings"] if f["anchor"] == "equilibrium_2p")
    assert first["rate"] == eq["p_nobody_equilibrium"].max() and "(exact)" in first["sentence"]
    nobody = _table(built, "trophies").filter(pl.col("outcome") == "nobody")
    trophy = [f for f in summary["findings"] if f["anchor"] == "trophies"]
    assert sorted(f["rate"] for f in trophy) == sorted(nobody["simulated"].to_list())
    assert all(f"n {f['n']:,}" in f["sentence"] and "99.9 % interval" in f["sentence"] for f in trophy)


def test_the_report_ends_with_each_steps_size_and_real_seconds(built):
    """The sizes section: one row per step in run order, the same seconds as the header's (not a mix of steps)."""
    sizes = _table(built, "run_sizes")
    assert sizes["step"].to_list() == ["auction", "equilibrium", "control", "dragon", "trophies", "readings"]
    assert dict(sizes.select("step", "seconds").rows()) == built[1]["meta"]["seconds"]
    assert (sizes["seconds"] >= 0).all() and (sizes["bigger run"].str.len_chars() > 0).all()
    assert "## Sizes of this run, and what a bigger run would decide" in (built[0] / "index.md").read_text()


def test_a_reader_sees_each_section_its_cases_and_values_worked_by_hand(built):
    out, meta = built
    md = (out / "index.md").read_text()
    assert md.startswith("# Age of Towers — To The Rescue: Mercenary auction, taking control, the Dragon, trophies")
    assert [md.index(s) for s in SECTIONS] == sorted(md.index(s) for s in SECTIONS)
    assert "| Rules version | rescue-auction-2 |" in md and "| Master seed | 0 |" in md
    # by hand: two uniform bids 0..3 tie at 0 with chance 1/16 (nobody) and at b >= 1 with 3/16, then tie again 1/4
    assert "| 2 | 3 | random | nobody | 0.1094 | 7/64 |" in md
    # an owner worth 13 holding 6 crystals refuses every offer up to 5 (refusing costs k + 1 < 13 - k) and
    # accepts 6 (it cannot pay 7); holding 4 it is forced to take 4; holding 2 to take 2; holding nothing, any offer
    assert "| 13 | 1 | 2 | 4 | 6 |" in md
    # the Dragon is one of 6 shuffled cards: each round 1..6 with chance 1/6
    assert all(f"| {r} | 1/6 | 0.1667 |" in md for r in range(1, 7))
    # four equal random builders: p1 takes a colour's trophy when it holds strictly the most of the 5 tokens
    counts = [sorted(((s.count(j), j) for j in range(4)), reverse=True) for s in itertools.product(range(4), repeat=5)]
    most = sum(1 for c in counts if c[0][0] > c[1][0] and c[0][1] == 0)  # who placed each token, 4**5 ways
    tied = sum(1 for c in counts if c[0][0] == c[1][0])
    case = rr.TROPHY_CASES[0][0]
    assert f"| {case} | 4 | 1 | p1 | {Fraction(most, 4**5)} |" in md
    assert f"| {case} | 4 | 1 | nobody | {Fraction(tied, 4**5)} |" in md
    for case, *_ in rr.TROPHY_CASES:  # each trophy case under its own name
        assert f"| {case} |" in md
    # the 13 charts of the five sections, and core's readings section's chart of the differences (issue 21)
    assert len(meta["charts"]) == 14 and all(f'id="chart-{c}"' in (out / "index.html").read_text()
                                             for c in meta["charts"])
    assert sum("readings" in c for c in meta["charts"]) == 1


def test_every_simulated_rate_is_shown_with_n_and_its_999_interval(built):
    md = (built[0] / "index.md").read_text()
    tables = {name: _table(built, name) for name in ("auction_2p", "auction_3p", "dragon_appearance",
                                                     "dragon_trophy", "trophies")}
    for name, table in tables.items():
        rates = table.filter(pl.col("n").is_not_null())
        assert rates.height > 0
        for row in rates.iter_rows(named=True):
            k = round(row["simulated"] * row["n"])
            assert row["simulated"] == k / row["n"]
            assert (row["low"], row["high"]) == pytest.approx(scipy_wilson(k, row["n"], 0.999), abs=1e-9), name
            # the reader sees the rate, its interval and n side by side
            assert (f"| {_shown(row['simulated'])} | {_shown(row['low'])} | {_shown(row['high'])} |" in md
                    or f"| {row['k']} | {row['n']} | {_shown(row['simulated'])} | {_shown(row['low'])} | "
                       f"{_shown(row['high'])} |" in md), (name, row)
    # the captions count the exact values inside scipy's intervals
    for players in rr.AUCTION_PLAYERS:
        rates = tables[f"auction_{players}p"].filter(pl.col("n").is_not_null())
        inside = sum(_inside_scipy(r) for r in rates.iter_rows(named=True))
        assert f"{inside} of {rates.height} exact probabilities lie inside" in md
    trophy = tables["dragon_trophy"]
    inside = sum(_inside_scipy(r) for r in trophy.iter_rows(named=True))
    assert f"catch 0.3: {inside} of {trophy.height} exact values lie inside" in md


def _inside_scipy(row: dict) -> bool:
    low, high = scipy_wilson(round(row["simulated"] * row["n"]), row["n"], 0.999)
    return low - 1e-12 <= row["exact"] <= high + 1e-12


def test_auction_tables_are_the_exact_odds_beside_intervals_that_hold_them(built):
    for players in rr.AUCTION_PLAYERS:
        table = _table(built, f"auction_{players}p")
        assert table.select("budget", "agents").unique().height == len(rr.AUCTION_BUDGETS) * len(rr.AUCTION_AGENTS)
        for budget in rr.AUCTION_BUDGETS:
            config = Config(players, (budget,) * players, (rr.VALUE,) * players)
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


# (owner worth, owner crystals, offer) → the owner's answer, worked out from its two payoffs: accepting gains k
# crystals and loses the Mercenary (k - v), refusing pays k + 1 (-(k + 1)) and needs k + 1 crystals in hand;
# equal payoffs: it takes the crystals.
BY_HAND = [
    (13, 6, 5, "refuse"),       # -6 > 5 - 13 = -8, and it holds 6
    (13, 6, 6, "accept"),       # -7 = 6 - 13: indifferent, takes the crystals
    (13, 4, 4, "must_accept"),  # -5 > -9, but refusing needs 5 crystals
    (13, 4, 3, "refuse"),       # -4 > -10, holds 4
    (6, 6, 2, "refuse"),        # -3 > 2 - 6 = -4
    (6, 6, 3, "accept"),        # -4 < 3 - 6 = -3
    (6, 2, 2, "must_accept"),   # -3 > -4, but refusing needs 3
    (5, 6, 2, "accept"),        # -3 = 2 - 5: indifferent
    (0, 0, 1, "accept"),        # a worthless Mercenary is always sold
]
# (owner worth, owner crystals) → the smallest offer it accepts, from the rows above and their neighbours
SMALLEST_BY_HAND = {(13, 6): 6, (13, 4): 4, (13, 2): 2, (13, 0): 1, (6, 6): 3, (6, 4): 3, (6, 2): 2, (5, 6): 2,
                    (0, 0): 1, (0, 6): 1}


def _answer_from_payoffs(k: int, v: int, c: int) -> str:
    """The owner's answer by comparing its two payoffs (a second method beside the 2k + 1 rule)."""
    if -(k + 1) <= k - v:
        return "accept"
    return "refuse" if c >= k + 1 else "must_accept"


def test_control_tables_follow_the_owners_rule(built):
    table = _table(built, "control")
    answers = {(v, c, k): d for v, c, k, d in table.select("owner_value", "owner_crystals", "offer",
                                                           "decision").iter_rows()}
    assert {(v, c, k): answers[(v, c, k)] for v, c, k, _ in BY_HAND} == {(v, c, k): d for v, c, k, d in BY_HAND}
    # every cell agrees with the payoff comparison, and the smallest offer is the first offer not refused
    assert all(d == _answer_from_payoffs(k, v, c) for (v, c, k), d in answers.items())
    for v, c, k_star, worth_it in table.select("owner_value", "owner_crystals", "smallest_offer",
                                               "worth_it").unique().iter_rows():
        first = next(k for k in range(1, 100) if _answer_from_payoffs(k, v, c) != "refuse")
        assert k_star == first and worth_it == (rr.VALUE > first)
    smallest = _table(built, "control_smallest_offer")
    shown = {(row["owner_value"], int(col.removeprefix("crystals_"))): k for row in smallest.iter_rows(named=True)
             for col, k in row.items() if col.startswith("crystals_")}
    assert {key: shown[key] for key in SMALLEST_BY_HAND} == SMALLEST_BY_HAND
    assert sorted({c for _, c in shown}) == [0, 2, 4, 6] and sorted({v for v, _ in shown}) == list(range(14))


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


def _numpy_fictitious_play(config: Config, seats: tuple[int, ...], cont, iterations: int) -> dict:
    """Fictitious play as the module states it, over numpy arrays and ``deviation_values`` (the report's old path)."""
    import numpy as np

    from workbench.games.rescue.equilibrium import deviation_values

    avg = {s: np.full(config.budgets[s] + 1, 1.0 / (config.budgets[s] + 1)) for s in seats}
    for t in range(1, iterations + 1):
        best = {s: int(np.argmax(deviation_values(config, s, avg, cont))) for s in seats}
        for s in seats:
            avg[s] *= t / (t + 1)
            avg[s][best[s]] += 1 / (t + 1)
    return {s: tuple(float(p) for p in avg[s]) for s in seats}


@pytest.mark.parametrize("config", [Config(3, (2, 2, 2), (6, 6, 6)), Config(3, (5, 3, 0), (6, 9, 2)),
                                    Config(4, (3, 1, 4, 2), (5, 7, 0, 6))])
def test_fictitious_play_gives_the_numpy_formulas_mixes_to_the_last_bit(config):
    """The three-seat equilibrium mixes (so the equilibrium bidders' games) are unchanged by the plain-float loop."""
    from workbench.games.rescue.equilibrium import fictitious_play

    seats = tuple(range(config.players))
    # a first round: ties at >= 1 crystal pay a continuation value (uneven ones, so no seat mirrors another)
    cont = {frozenset(t): {s: 0.37 * (s + 1) + 0.11 * len(t) for s in t}
            for r in range(2, config.players + 1) for t in itertools.combinations(seats, r)}
    for stage in (None, cont):
        assert fictitious_play(config, seats, stage, 150) == _numpy_fictitious_play(config, seats, stage, 150)
