"""Paired comparisons: exact McNemar p-values and intervals on hand-built frames, and refusals."""

from __future__ import annotations

import math

import polars as pl
import pytest
from scipy import stats

from workbench.core.errors import InputError
from workbench.core.stats.compare import (
    compare_cells,
    compare_outcomes,
    outcome_events,
    paired_difference,
    paired_frames,
)


def _frame(first_wins: list[bool], *, seed: int = 7, start: int = 0, reason: str = "tower") -> pl.DataFrame:
    """One row per game; the first seat alternates p1/p2 and wins where ``first_wins`` says so."""
    n = len(first_wins)
    first = ["p1" if i % 2 == 0 else "p2" for i in range(n)]
    winner = [f if won else ("p2" if f == "p1" else "p1") for f, won in zip(first, first_wins, strict=True)]
    return pl.DataFrame({
        "master_seed": pl.Series([seed] * n, dtype=pl.UInt64),
        "game_index": pl.Series(range(start, start + n), dtype=pl.Int64),
        "game_seed": pl.Series([1000 * seed + i for i in range(start, start + n)], dtype=pl.UInt64),
        "agent_p1": ["random"] * n, "agent_p2": ["random"] * n,
        "winner": winner, "reason": [reason] * n, "length": list(range(n)), "first_seat": first,
    })


def _wilson(k: int, n: int) -> tuple[float, float]:
    ci = stats.binomtest(k, n).proportion_ci(0.95, method="wilson")
    return ci.low, ci.high


# 40 games: the baseline's first seat wins games 0..9; the variant loses game 9 and gains 10..16
BASE = [i < 10 for i in range(40)]
VARIANT = [i < 9 or 10 <= i < 17 for i in range(40)]


def test_exact_paired_test_on_known_discordant_counts():
    row = paired_difference(BASE, VARIANT)
    # discordant pairs: 7 gained, 1 lost → two-sided exact binomial p = 2 · (C(8,0) + C(8,1)) / 2^8
    assert row["discordant"] == 8
    assert row["p_value"] == pytest.approx(18 / 256) == pytest.approx(stats.binomtest(7, 8, 0.5).pvalue)
    assert not row["significant"]
    assert (row["n"], row["base"], row["variant"]) == (40, 10 / 40, 16 / 40)
    assert (row["base_low"], row["base_high"]) == pytest.approx(_wilson(10, 40))
    assert (row["variant_low"], row["variant_high"]) == pytest.approx(_wilson(16, 40))
    # the interval the exact test inverts: the gained share's Clopper–Pearson interval (7 of 8), mapped to
    # the difference d/n · (2π − 1) over the 8 discordant of 40 games; it holds 0, as the test does not reject
    share = stats.binomtest(7, 8).proportion_ci(0.95, method="exact")
    assert row["diff"] == pytest.approx(16 / 40 - 10 / 40)
    assert (row["low"], row["high"]) == pytest.approx((8 / 40 * (2 * share.low - 1), 8 / 40 * (2 * share.high - 1)))
    assert row["low"] < 0 < row["high"]


def test_nine_gained_none_lost_is_significant():
    row = paired_difference([False] * 30, [i < 9 for i in range(30)], alpha=0.05)
    assert row["p_value"] == pytest.approx(2 / 2**9) and row["significant"]
    same = paired_difference(BASE, BASE)
    assert (same["diff"], same["discordant"], same["p_value"], same["significant"]) == (0.0, 0, 1.0, False)


def test_compare_outcomes_table():
    table = compare_outcomes(_frame(BASE), _frame(VARIANT))
    assert table.get_column("metric").to_list() == ["first_seat_score", "first_seat_win", "p1_win", "draw",
                                                    "end_tower"]
    first = table.row(1, named=True)
    assert (first["n"], first["discordant"]) == (40, 8) and first["p_value"] == pytest.approx(18 / 256)
    # p1 wins the even games its first seat wins and the odd games p2's first seat loses:
    # baseline 0,2,..,8 and 11,13,..,39 = 5 + 15; variant 0,..,8 + 9 + 10,..,16 + 17,19,..,39 = 5 + 1 + 4 + 12
    p1 = table.filter(pl.col("metric") == "p1_win").row(0, named=True)
    assert (p1["base"], p1["variant"]) == (20 / 40, 22 / 40)
    assert table.filter(pl.col("metric") == "draw").get_column("diff").item() == 0
    assert table.get_column("length_base").unique().to_list() == [19.5]
    # rows in any order pair by game_index
    assert compare_outcomes(_frame(BASE).reverse(), _frame(VARIANT)).equals(table)


def test_events_follow_the_seats_and_the_first_seat():
    three = _frame(BASE).with_columns(pl.lit("random").alias("agent_p3"), pl.lit(None, pl.String).alias("first_seat"))
    assert list(outcome_events(three, three)) == ["p1_win", "p2_win", "draw", "end_tower"]  # p3's follows
    extra = compare_outcomes(_frame(BASE), _frame(VARIANT), events={"long": pl.col("length") >= 30})
    assert extra.get_column("metric").to_list()[-1] == "long"
    assert extra.filter(pl.col("metric") == "long").get_column("diff").item() == 0


@pytest.mark.parametrize(("variant", "message"), [
    (_frame(VARIANT).head(39), "the baseline has 40 games, the variant 39"),
    (_frame(VARIANT, seed=8), "master seed 7 in the baseline, 8 in the variant"),
    (_frame(VARIANT, start=1), r"game indices differ \(baseline 0..39, variant 1..40"),
    (_frame(VARIANT).with_columns(pl.col("game_seed") + (pl.col("game_index") == 3).cast(pl.UInt64)),
     "game 3 has game seed 7003 in the baseline and 7004 in the variant"),
])
def test_unpaired_frames_are_refused(variant, message):
    with pytest.raises(InputError, match=message):
        compare_outcomes(_frame(BASE), variant)


def test_repeated_indices_point_to_compare_cells():
    grid = pl.concat([_frame(BASE), _frame(BASE)])
    with pytest.raises(InputError, match="game_index repeats in the baseline.*compare_cells"):
        paired_frames(grid, grid)


def _grid(wins_a: list[bool], wins_b: list[bool]) -> pl.DataFrame:
    return pl.concat([_frame(wins_a).with_columns(pl.lit("a").alias("board"), pl.lit(0.1).alias("rate")),
                      _frame(wins_b).with_columns(pl.lit("b").alias("board"), pl.lit(0.2).alias("rate"))])


def test_compare_cells_pairs_each_cell():
    base, variant = _grid(BASE, [True] * 40), _grid(VARIANT, [True] * 40)
    table = compare_cells(base, variant, ["board", "rate"])
    assert table.columns[:3] == ["board", "rate", "metric"]
    assert table.schema["rate"] == pl.Float64
    a, b = table.row(0, named=True), table.row(1, named=True)
    assert (a["board"], a["discordant"], a["p_value"]) == ("a", 8, pytest.approx(18 / 256))
    assert (b["board"], b["diff"], b["discordant"], b["base"]) == ("b", 0.0, 0, 1.0)
    draws = compare_cells(base, variant, ["board"], metric="draw")
    assert draws.get_column("metric").to_list() == ["draw", "draw"]
    with pytest.raises(InputError, match="unknown metric 'wins'; allowed: first_seat_score, first_seat_win, p1_win"):
        compare_cells(base, variant, ["board"], metric="wins")
    with pytest.raises(InputError, match=r"cell columns \['deck'\] are not in the baseline"):
        compare_cells(base, variant, ["deck"])


def test_compare_cells_refuses_a_partial_run_unless_asked():
    base = _grid(BASE, [True] * 40)
    stopped = pl.concat([_frame(VARIANT).with_columns(pl.lit("a").alias("board"), pl.lit(0.1).alias("rate"))
                         .head(30)])
    with pytest.raises(InputError, match="only in the baseline: board=b"):
        compare_cells(base, stopped, ["board"])
    partial = compare_cells(base, stopped, ["board"], common_games=True)
    assert partial.get_column("board").to_list() == ["a"] and partial.get_column("n").to_list() == [30]
    # games 0..29: 1 lost (game 9), 7 gained (10..16)
    assert partial.get_column("discordant").item() == 8
    other_seed = _grid(VARIANT, [True] * 40).with_columns(pl.lit(8, pl.UInt64).alias("master_seed"))
    with pytest.raises(InputError, match="cell board=a: the runs are not paired: master seed 7"):
        compare_cells(base, other_seed, ["board"], common_games=True)


# -- one verdict: the interval the paired test inverts, Holm over the metrics ------------------------------------
def test_holm_adjusts_and_gives_each_test_its_step_level():
    from workbench.core.stats.compare import holm

    # sorted: .005 (x4 = .02), .01 (x3 = .03), .03 (x2 = .06), .04 (x1, but never below the step before: .06)
    adjusted, levels = holm([0.01, 0.04, 0.03, 0.005], alpha=0.05)
    assert adjusted == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # .005 < .05/4 and .01 < .05/3 are rejected at their steps; .03 >= .05/2 stops: it and .04 keep .025
    assert levels == pytest.approx([0.05 / 3, 0.025, 0.025, 0.0125])
    assert holm([0.2], 0.05) == ([0.2], [0.05])


def test_the_paired_interval_excludes_zero_exactly_when_the_exact_test_rejects():
    from workbench.core.stats.compare import paired_interval

    for alpha in (0.05, 0.01, 0.05 / 7):
        for gained in range(0, 31):
            for lost in range(0, 31 - gained):
                low, high = paired_interval(gained, lost, 80, 1 - alpha)
                p = stats.binomtest(gained, gained + lost, 0.5).pvalue if gained + lost else 1.0
                assert (p < alpha) == (low > 0 or high < 0), (alpha, gained, lost, p, low, high)
                assert low <= (gained - lost) / 80 <= high


def test_the_paired_interval_is_clopper_pearson_on_the_gained_share():
    from workbench.core.stats.compare import paired_interval

    ci = stats.binomtest(7, 8).proportion_ci(0.95, method="exact")  # 7 gained of 8 discordant games
    low, high = paired_interval(7, 1, 40)
    assert (low, high) == pytest.approx((8 / 40 * (2 * ci.low - 1), 8 / 40 * (2 * ci.high - 1)))
    # no discordant game: ± the exact upper bound of 0 discordant in 40, (1 - 0.025 ** (1/40))
    assert paired_interval(0, 0, 40) == pytest.approx((-(1 - 0.025 ** (1 / 40)), 1 - 0.025 ** (1 / 40)))
    with pytest.raises(InputError, match="gained \\+ lost <= n"):
        paired_interval(30, 20, 40)


def test_paired_verdicts_agree_where_newcombe_and_the_paired_test_disagreed():
    from workbench.core.stats.compare import holm, paired_verdicts

    # 1,000 paired games: the variant gains 20 first-seat wins (games 500..519) and loses 6 (games 0..5)
    base = [i < 500 for i in range(1000)]
    variant = [(i < 500 and i >= 6) or 500 <= i < 520 for i in range(1000)]
    # the contradiction of issue 20: Newcombe's unpaired interval holds 0 where the paired test rejects
    (_, hb), (lv, _) = _wilson(500, 1000), _wilson(514, 1000)
    assert stats.binomtest(20, 26, 0.5).pvalue < 0.05 and 0.014 - math.hypot(0.514 - lv, hb - 0.5) < 0
    single = paired_difference(base, variant)  # one metric: the paired interval, which agrees with its test
    assert single["p_value"] < 0.05 and single["significant"] and single["low"] > 0
    old = compare_outcomes(_frame(base), _frame(variant)).filter(pl.col("metric") == "first_seat_win").row(0,
                                                                                                       named=True)
    table = paired_verdicts(_frame(base), _frame(variant))
    row = table.filter(pl.col("metric") == "first_seat_win").row(0, named=True)
    assert (row["gained"], row["lost"], row["diff"]) == (20, 6, pytest.approx(14 / 1000))
    assert row["p_value"] == pytest.approx(stats.binomtest(20, 26, 0.5).pvalue)
    adjusted, levels = holm(table["p_value"].to_list())
    assert table["p_holm"].to_list() == pytest.approx(adjusted)
    assert table["confidence"].to_list() == pytest.approx([1 - a for a in levels])
    for r in table.iter_rows(named=True):  # one verdict: significant exactly when the interval excludes 0
        assert r["significant"] == (r["p_holm"] < 0.05) == (r["low"] > 0 or r["high"] < 0), r
    assert row["significant"] and row["low"] > 0
    # compare_outcomes is the same verdict (the library's what-if tables and the studio read one answer)
    assert (old["low"], old["high"], old["p_holm"], old["significant"]) == (row["low"], row["high"], row["p_holm"],
                                                                           row["significant"])


# -- the first seat's score: a game counts 1 won, ½ drawn, 0 lost -------------------------------------------------
def _drawn(frame: pl.DataFrame, games: list[int]) -> pl.DataFrame:
    """``frame`` with the games at ``games`` drawn."""
    drawn = pl.col("game_index").is_in(games)
    return frame.with_columns(pl.when(drawn).then(pl.lit("draw")).otherwise(pl.col("winner")).alias("winner"),
                              pl.when(drawn).then(pl.lit("draw")).otherwise(pl.col("reason")).alias("reason"))


def test_the_first_seats_score_counts_a_draw_as_half_and_its_paired_test_reads_the_score_differences():
    from workbench.core.stats.compare import first_seat_score, paired_score_difference, paired_verdicts

    # baseline: first seat wins 0..9, draws 10..13; variant: wins 0..8 and 10..16 (game 9 lost, 10..13 won from a
    # draw, 14..16 won from a loss), draws 17..18 (from a loss): differences −1, +½ ×4, +1 ×3, +½ ×2
    base, variant = _drawn(_frame(BASE), list(range(10, 14))), _drawn(_frame(VARIANT), [17, 18])
    scores = [frame.select(first_seat_score()).to_series().to_list() for frame in (base, variant)]
    assert sum(scores[0]) == 10 + 4 / 2 and sum(scores[1]) == 16 + 2 / 2
    d = [v - b for b, v in zip(*scores, strict=True)]
    assert sorted(x for x in d if x) == [-1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1, 1, 1]
    row = paired_score_difference(*scores)
    # the studentized paired test on the per-game differences (scipy's paired t-test) and the interval it inverts
    test = stats.ttest_rel(scores[1], scores[0])
    ci = test.confidence_interval(0.95)
    assert (row["n"], row["discordant"], row["base"], row["variant"]) == (40, 10, 12 / 40, 17 / 40)
    assert (row["diff"], row["p_value"]) == (pytest.approx(5 / 40), pytest.approx(test.pvalue))
    assert (row["low"], row["high"]) == pytest.approx((ci.low, ci.high))
    assert (row["base_low"], row["base_high"]) == pytest.approx(wilson_half(12, 40))
    assert row["significant"] == (row["p_value"] < 0.05) == (row["low"] > 0 or row["high"] < 0)
    # in the what-if's table: first, named first_seat_score, Holm-corrected with the others, gained and lost counted
    table = paired_verdicts(base, variant)
    assert table["metric"].to_list()[:2] == ["first_seat_score", "first_seat_win"]
    score = table.row(0, named=True)
    assert (score["gained"], score["lost"], score["diff"], score["p_value"]) == (9, 1, pytest.approx(5 / 40),
                                                                                  pytest.approx(test.pvalue))
    level = 1 - score["confidence"]
    shifted = stats.ttest_rel(scores[1], scores[0]).confidence_interval(1 - level)
    assert (score["low"], score["high"]) == pytest.approx((shifted.low, shifted.high))
    for r in table.iter_rows(named=True):  # one verdict per metric: significant exactly when the interval excludes 0
        assert r["significant"] == (r["p_holm"] < 0.05) == (r["low"] > 0 or r["high"] < 0), r
    # the win rate (a draw counts as a loss) is a different number of the same games
    wins = table.row(1, named=True)
    assert (wins["base"], wins["variant"]) == (10 / 40, 16 / 40)


def test_a_score_with_no_discordant_game_reads_as_the_event_does_and_bad_scores_are_refused():
    from workbench.core.stats.compare import first_seat_score, paired_interval, paired_score_difference

    # no draw in either arm: the score is the win rate, and its paired test the exact one, number for number
    scores = [_frame(w).select(first_seat_score()).to_series() for w in (BASE, VARIANT)]
    assert paired_score_difference(*scores) == pytest.approx(paired_difference(BASE, VARIANT))
    # only half-point moves (a draw for a loss): the exact test of the games moved, its interval scaled by ½
    half = paired_score_difference([0.0] * 30, [0.5 if i < 9 else 0.0 for i in range(30)])
    assert half["p_value"] == pytest.approx(2 / 2**9) and half["diff"] == pytest.approx(4.5 / 30)
    assert (half["low"], half["high"]) == pytest.approx(tuple(x / 2 for x in paired_interval(9, 0, 30)))

    same = paired_score_difference([0.5, 1.0, 0.0] * 10, [0.5, 1.0, 0.0] * 10)
    assert (same["diff"], same["discordant"], same["p_value"], same["significant"]) == (0.0, 0, 1.0, False)
    assert (same["low"], same["high"]) == pytest.approx(paired_interval(0, 0, 30))
    with pytest.raises(InputError, match=r"a game's score lies in \[0, 1\]"):
        paired_score_difference([0.0, 2.0], [0.0, 1.0])


def wilson_half(k: float, n: int) -> tuple[float, float]:
    """Wilson's interval by its formula (a count with a draw's half is no binomial k, so not scipy's)."""
    z = stats.norm.ppf(0.975)
    p = k / n
    centre, half = (p + z * z / (2 * n)) / (1 + z * z / n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (
        1 + z * z / n)
    return centre - half, centre + half
