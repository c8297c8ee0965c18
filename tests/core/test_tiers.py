"""Balance verdicts at several skill tiers (core/skill/tiers.py), on a built case where the tiers disagree.

The toy coin race with ``board=small, fast=true`` has target 2.  With ``edge=1`` a risky move always
scores 2.  Worked by hand:

* **random vs random**: the first mover wins at once with a risky move (½); after its safe move (½)
  the second mover wins with a risky move (½), else the first mover's next move reaches 2.  So the
  first seat wins ½ + ½·½ = ¾ of the games: favoured.
* **greedy vs greedy** (safe unless behind): the first mover is level, plays safe (1–0); the second
  is behind, plays risky and reaches 2.  The first seat never wins: disfavoured.

With ``edge=0`` (risky never scores) greedy's second mover, always behind, never scores: the first
seat always wins (favoured); random play leaves it favoured too (a second mover's risky move scores
nothing), so the label is the same at both tiers — but the score moves (about 60 % to exactly 100 %),
so the verdict is not settled: it moves with skill.  Labels are not compared.
"""

from __future__ import annotations

import math
import random
from statistics import NormalDist

import polars as pl
import pytest
from scipy.stats import binomtest

from workbench.core.errors import InputError
from workbench.core.model import get_game
from workbench.core.skill.tiers import (
    Tier,
    by_tier,
    cost_flags_by_tier,
    first_seat_by_tier,
    first_seat_scores,
    flips,
    parse_tiers,
    tier_verdicts,
)
from workbench.core.stats.rates import settle

CELLS = [{"board": "small", "fast": True, "edge": 1.0}, {"board": "small", "fast": True, "edge": 0.0}]


def _label(p):
    return f"edge {p['edge']:.0f}"


def test_tiers_that_disagree_are_marked_and_said_in_words():
    toy = get_game("toy")
    tiers = parse_tiers(toy, "random,greedy")
    table = first_seat_by_tier(toy, tiers, CELLS, 200, seed=3, label=_label).sort("cell")
    rows = {r["cell"]: r for r in table.iter_rows(named=True)}
    one, zero = rows["edge 1"], rows["edge 0"]
    # greedy: worked by hand, exactly 0 and exactly 1
    assert one["greedy · score"] == 0.0 and one["greedy · verdict"] == "disfavoured"
    assert zero["greedy · score"] == 1.0 and zero["greedy · verdict"] == "favoured"
    # random: ¾ by hand; the simulated share agrees with it (exact binomial test) and is favoured
    k = round(one["random · score"] * one["random · n"])
    assert binomtest(k, one["random · n"], 0.75).pvalue > 0.001
    assert one["random · verdict"] == "favoured" and zero["random · verdict"] == "favoured"
    # edge 1: the score moves from about 75 % to exactly 0; edge 0: "favoured" at both, but from about 60 % to
    # exactly 100 % — a label comparison would call it held; the values say it moves with skill
    assert (one["status"], zero["status"]) == ("moves with skill", "moves with skill")
    assert one["skill_change"] == pytest.approx(-one["random · score"]) and one["skill_change_high"] < 0
    assert zero["random · score"] < 0.7 and zero["skill_change_low"] > 0.2
    assert one["tiers"] == zero["tiers"] == 2
    said = flips(table, ["cell"])
    assert said[0] == (f"edge 0: moves with skill — favoured ({zero['random · score'] * 100:.1f} %, n=200) at random, "
                       "favoured (100.0 %, n=200) at greedy.")
    assert said[1] == (f"edge 1: moves with skill — favoured ({one['random · score'] * 100:.1f} %, n=200) at random, "
                       "disfavoured (0.0 %, n=200) at greedy.")


def test_scores_count_a_draw_as_half_and_read_the_interval():
    frame = pl.DataFrame({"winner": ["p1"] * 6 + ["draw"] * 4 + ["p2"] * 10,
                          "first_seat": ["p1"] * 20})
    row = first_seat_scores(frame).row(0, named=True)
    assert (row["n"], row["wins"], row["draws"]) == (20, 6, 4)
    assert row["rate"] == pytest.approx(8 / 20)  # 6 wins + 4 half-draws
    assert row["low"] < 0.5 < row["high"] and row["verdict"] == "fair"


def test_a_tier_missing_an_item_is_undecided():
    frame = by_tier([Tier("a", "a"), Tier("b", "b")], lambda t: pl.DataFrame(
        {"cell": ["x", "y"] if t.label == "a" else ["x"], "verdict": ["fair", "fair"] if t.label == "a" else ["fair"],
         "rate": [0.5, 0.5] if t.label == "a" else [0.5], "n": [10**6, 10**6] if t.label == "a" else [10**6]}))
    table = tier_verdicts(frame, ["cell"]).sort("cell")
    assert table["status"].to_list() == ["settled", "undecided: play more"] and table["tiers"].to_list() == [2, 1]
    assert table["games needed"][1] == "measured at a only: play it at every tier"


def test_bad_tiers_are_refused():
    toy = get_game("toy")
    with pytest.raises(InputError, match="at least one tier"):
        parse_tiers(toy, " , ")
    with pytest.raises(InputError, match="twice"):
        parse_tiers(toy, "greedy,greedy")
    with pytest.raises(InputError, match="unknown agent"):
        parse_tiers(toy, "greedy,wizard")


def _rates_of(frame: pl.DataFrame, alpha: float) -> pl.DataFrame:
    """Built per-card rates: iwd on 0.1 × cost (residuals summing to 0, orthogonal to cost), card b above the
    line only in the games tagged "weak"; each interval ±0.05 (a real game's card_rates would widen it as
    ``alpha`` shrinks: here the test only checks the level it is asked at)."""
    assert alpha == pytest.approx(0.05 / 5)  # Bonferroni over the five cards
    weak = frame["tag"].unique().to_list() == ["weak"]
    iwd = [0.1, 0.4, -0.1, 0.6, 0.5] if weak else [0.1, 0.2, 0.3, 0.4, 0.5]
    return pl.DataFrame({"card": list("abcde"), "cost": [1, 2, 3, 4, 5], "iwd": iwd,
                         "iwd_low": [v - 0.05 for v in iwd], "iwd_high": [v + 0.05 for v in iwd],
                         "wr_drawn_n": [frame.height] * 5})


def test_card_flags_per_tier_say_which_flags_change_with_skill():
    tiers = (Tier("weak", "greedy"), Tier("strong", "search"))
    played = {t.label: {"cell 1": pl.DataFrame({"tag": [t.label] * 3}), "cell 2": pl.DataFrame({"tag": [t.label] * 2})}
              for t in tiers}
    table = cost_flags_by_tier(tiers, played, _rates_of, cards=5)
    rows = {r["card"]: r for r in table.iter_rows(named=True)}
    # weak: b +0.2 above the line (under-costed), c 0.4 below (over-costed), d +0.2 above; strong: all on the line
    assert (rows["b"]["weak · verdict"], rows["b"]["strong · verdict"]) == ("under-costed", "in line")
    assert rows["b"]["weak · beyond_cost"] == pytest.approx(0.2)
    assert rows["b"]["strong · beyond_cost"] == pytest.approx(0, abs=1e-12)
    # ±0.05 at 99 %: se ≈ 0.019 a tier; b moves by 0.2 (moves), e by 0 (but too wide to settle within ±2 points)
    assert rows["c"]["weak · verdict"] == "over-costed" and rows["c"]["status"] == "moves with skill"
    assert rows["b"]["status"] == "moves with skill" and rows["a"]["weak · verdict"] == "in line"
    assert rows["e"]["status"] == "undecided: play more" and rows["e"]["skill_change"] == pytest.approx(0, abs=1e-12)
    assert rows["b"]["weak · wr_drawn_n"] == 5  # both cells of the tier pooled
    assert flips(table.filter(pl.col("card") == "b"), ["card"], value="beyond_cost") == [
        "b: moves with skill — under-costed (+20.0 points) at weak, in line (+0.0 points) at strong."]


# -- the equivalence rule (core.stats.rates.settle) on built values -----------------------------------------------
def _pair(a: float, b: float, n: int) -> pl.DataFrame:
    """Two tiers' first-seat scores for one cell, built (no games played)."""
    return by_tier([Tier("greedy", "greedy"), Tier("search", "search")], lambda t: pl.DataFrame(
        {"cell": ["x"], "verdict": ["fair"], "rate": [a if t.label == "greedy" else b], "n": [n]}))


def test_a_pair_one_point_apart_with_huge_n_is_settled():
    row = tier_verdicts(_pair(0.50, 0.51, 10**6), ["cell"]).row(0, named=True)
    # the difference is significant, but its 90 % interval (±0.12 points) lies inside ±2 points: settled
    assert row["status"] == "settled" and row["skill_change"] == pytest.approx(0.01)
    assert row["games needed"] is None


def test_a_pair_five_points_apart_moves_with_skill():
    row = tier_verdicts(_pair(0.50, 0.55, 10**6), ["cell"]).row(0, named=True)
    assert row["status"] == "moves with skill" and row["skill_change_low"] > 0.04


def test_a_pair_one_point_apart_at_n_100_is_undecided_with_the_games_needed():
    row = tier_verdicts(_pair(0.50, 0.51, 100), ["cell"]).row(0, named=True)
    assert row["status"] == "undecided: play more"
    # TOST at 5 % settles when 1 point + 1.645·se < 2 points; se² = (v_a + v_b)/n with v = p̃(1 − p̃),
    # p̃ = (k + 1)/(n + 2): both tiers need n ≥ 1.645² (v_a + v_b) / 0.01²
    va, vb = (51 / 102) * (51 / 102), (52 / 102) * (50 / 102)
    need = math.ceil(1.6448536269514722 ** 2 * (va + vb) / 0.01 ** 2)
    assert row["games needed"] == f"{need:,} games at greedy, {need:,} at search"
    assert settle(0.50, need, 0.51, need)["status"] == "settled"  # and at that n it would be


def test_a_pair_apart_by_the_margin_but_not_significant_cannot_settle():
    said = settle(0.469, 2000, 0.542, 40)  # Night Raid's first seat: 46.9 % at greedy, 54.2 % at a small search
    assert said["status"] == "undecided: play more" and said["needed_a"] is None
    assert said["note"].startswith("cannot settle")


def test_the_fewer_games_tier_is_the_one_asked_to_play_more():
    said = settle(0.50, 100_000, 0.505, 40)
    assert said["status"] == "undecided: play more"
    assert said["needed_a"] == 100_000 and said["needed_b"] > 40
    again = settle(0.50, 100_000, 0.505, said["needed_b"])
    assert again["status"] == "settled"


def test_bad_settle_input_is_refused():
    with pytest.raises(InputError, match="n_b must be a whole number"):
        settle(0.5, 10, 0.5, 0)
    with pytest.raises(InputError, match="margin"):
        settle(0.5, 10, 0.5, 10, margin=0)


def test_a_cost_flag_moves_with_skill_only_at_the_flags_corrected_level():
    # card b is 0.088 above its place at the weak tier (0.7 of it beyond the refitted line: +6.2 points,
    # under-costed), on the line at the strong tier; each beyond-cost se is 0.05 / z(0.995) = 0.0194, so the
    # change's z is about 2.26, p about 0.024: "moves" at 5 %, not at the five cards' Bonferroni 1 %
    def rates(frame: pl.DataFrame, alpha: float) -> pl.DataFrame:
        weak = frame["tag"].unique().to_list() == ["weak"]
        iwd = [0.1, 0.288 if weak else 0.2, 0.3, 0.4, 0.5]
        return pl.DataFrame({"card": list("abcde"), "cost": [1, 2, 3, 4, 5], "iwd": iwd,
                             "iwd_low": [v - 0.05 for v in iwd], "iwd_high": [v + 0.05 for v in iwd],
                             "wr_drawn_n": [frame.height] * 5})

    tiers = (Tier("weak", "greedy"), Tier("strong", "search"))
    played = {t.label: {"cell": pl.DataFrame({"tag": [t.label] * 4})} for t in tiers}
    b = cost_flags_by_tier(tiers, played, rates, cards=5).filter(pl.col("card") == "b").row(0, named=True)
    assert (b["weak · verdict"], b["strong · verdict"]) == ("under-costed", "in line")
    assert b["skill_change"] == pytest.approx(-0.7 * 0.088)
    se = 0.05 / NormalDist().inv_cdf(0.995)
    p = 2 * (1 - NormalDist().cdf(abs(b["skill_change"]) / (se * math.sqrt(2))))
    assert 0.01 < p < 0.05
    assert settle(0.7 * 0.088, 4, 0.0, 4, se_a=se, se_b=se)["status"] == "moves with skill"  # at 5 %
    assert b["status"] == "undecided: play more"  # at 1 %: neither a change nor within the margin


# -- a value whose interval is lopsided (a card's gain on a few games) ----------------------------------------------
Z95 = NormalDist().inv_cdf(0.975)


def _sides(value: float, low: float, high: float, z: float = Z95) -> tuple[float, float]:
    return (value - low) / z, (high - value) / z


def test_a_tier_whose_lopsided_interval_holds_the_other_value_does_not_read_as_moving():
    # Reed Serpent in a Babylon report: +8.7 points [+5.7, +11.7] at the fast tier, -44.3 [-77.0, +16.4] at
    # search (n 24): its interval holds +8.7.  Read as one se from the interval's width (46.7 / z) the change
    # of -53 points was "significant"; the side that faces the fast tier's value (+60.7 / z) says it is not
    fast, strong = (0.087, 0.057, 0.117), (-0.443, -0.770, 0.164)
    width = (strong[2] - strong[1]) / (2 * Z95)
    assert settle(fast[0], 16_299, strong[0], 24, se_a=(fast[2] - fast[1]) / (2 * Z95), se_b=width)["status"] \
        == "moves with skill"  # the old reading: a contradiction of the interval shown beside it
    said = settle(fast[0], 16_299, strong[0], 24, se_a=_sides(*fast), se_b=_sides(*strong))
    assert said["status"] == "undecided: play more" and said["p"] > 0.05
    assert said["low"] < 0 < said["high"]  # the change's interval holds 0, as the two intervals shown suggest


def test_a_lopsided_interval_far_from_the_other_value_does_read_as_moving():
    # the other way round: the interval's wide side points away from the other tier, its near side is narrow
    # and ends well short of it; one se from the width would call it undecided
    fast, strong = (0.10, 0.09, 0.11), (-0.10, -0.60, -0.05)
    width = (strong[2] - strong[1]) / (2 * Z95)
    assert settle(fast[0], 10_000, strong[0], 30, se_a=0.01 / Z95, se_b=width)["status"] != "moves with skill"
    said = settle(fast[0], 10_000, strong[0], 30, se_a=_sides(*fast), se_b=_sides(*strong))
    assert said["status"] == "moves with skill" and said["high"] < 0


def test_a_difference_never_moves_while_either_interval_holds_the_other_value():
    draw = random.Random(7)
    checked = 0
    for _ in range(4000):
        a, b = draw.uniform(-0.5, 0.5), draw.uniform(-0.5, 0.5)
        sa, sb = (draw.uniform(0, 0.2), draw.uniform(0, 0.2)), (draw.uniform(0.001, 0.3), draw.uniform(0.001, 0.3))
        said = settle(a, 50, b, 50, se_a=sa, se_b=sb)
        held = b - Z95 * sb[0] <= a <= b + Z95 * sb[1] or a - Z95 * sa[0] <= b <= a + Z95 * sa[1]
        if held:
            checked += 1
            assert said["status"] != "moves with skill", (a, sa, b, sb, said)
        # and the change's interval is the two sides that face each other, added in squares
        assert said["low"] == pytest.approx(b - a - Z95 * math.hypot(sa[1], sb[0]))
        assert said["high"] == pytest.approx(b - a + Z95 * math.hypot(sa[0], sb[1]))
    assert checked > 500


def test_a_symmetric_pair_reads_as_one_standard_error():
    assert settle(0.05, 400, 0.0, 400, se_a=(0.02, 0.02), se_b=(0.02, 0.02)) == settle(0.05, 400, 0.0, 400,
                                                                                        se_a=0.02, se_b=0.02)


def test_a_bad_standard_error_pair_is_refused():
    with pytest.raises(InputError, match="se_b must be a standard error of at least 0"):
        settle(0.5, 10, 0.5, 10, se_b=(0.1, -0.1))
    with pytest.raises(InputError, match="se_a"):
        settle(0.5, 10, 0.5, 10, se_a=(0.1, 0.2, 0.3))


def test_card_flags_read_their_lopsided_intervals_side_by_side():
    # card b: +0.14 beyond the line at the weak tier (tight), -0.49 [-0.54, +0.46] at the strong tier on a few
    # games: its interval reaches past +0.14, so not a change with skill (one se from the width said it moved,
    # with a change of [-1.13, -0.13] beside two intervals that overlap)
    def rates(frame: pl.DataFrame, alpha: float) -> pl.DataFrame:
        weak = frame["tag"].unique().to_list() == ["weak"]
        iwd = [0.1, 0.4 if weak else -0.5, 0.3, 0.4, 0.5]
        low = [v - 0.01 for v in iwd] if weak else [0.09, -0.55, 0.29, 0.39, 0.49]
        high = [v + 0.01 for v in iwd] if weak else [0.11, 0.45, 0.31, 0.41, 0.51]
        return pl.DataFrame({"card": list("abcde"), "cost": [1, 2, 3, 4, 5], "iwd": iwd, "iwd_low": low,
                             "iwd_high": high, "wr_drawn_n": [frame.height] * 5})

    tiers = (Tier("weak", "greedy"), Tier("strong", "search"))
    played = {t.label: {"cell": pl.DataFrame({"tag": [t.label] * 4})} for t in tiers}
    b = cost_flags_by_tier(tiers, played, rates, cards=5).filter(pl.col("card") == "b").row(0, named=True)
    fast, strong = b["weak · beyond_cost"], b["strong · beyond_cost"]
    assert strong < fast <= b["strong · beyond_cost_high"]  # the strong tier's interval holds the weak value
    assert b["status"] == "undecided: play more", b
    assert b["skill_change_low"] < 0 < b["skill_change_high"]


def test_a_score_on_a_few_games_whose_interval_holds_the_other_tier_does_not_read_as_moving():
    # a search tier's 4 wins in 20 games: 20.0 % [8.1, 41.6] holds the fast tier's 40 %; a binomial se from
    # p̃ (0.094) made the 20-point change "significant" beside that interval
    said = settle(0.40, 10_000, 0.20, 20)
    assert said["status"] == "undecided: play more" and said["p"] > 0.05
    assert settle(0.45, 10_000, 0.20, 20)["status"] == "moves with skill"  # 45 % is outside [8.1, 41.6]


def test_a_score_never_moves_while_either_wilson_interval_holds_the_other():
    from workbench.core.stats.rates import wilson

    draw = random.Random(11)
    checked = 0
    for _ in range(3000):
        na, nb = draw.choice([10, 20, 40, 200, 4000]), draw.choice([4, 10, 20, 40, 2000])
        ka, kb = draw.randint(0, 2 * na) / 2, draw.randint(0, 2 * nb) / 2  # a draw counts half
        a, b = ka / na, kb / nb
        (la, ha), (lb, hb) = wilson(ka, na), wilson(kb, nb)
        if lb <= a <= hb or la <= b <= ha:
            checked += 1
            assert settle(a, na, b, nb)["status"] != "moves with skill", (ka, na, kb, nb)
    assert checked > 500


def test_a_pair_apart_by_the_margin_says_which_tier_plays_more_to_tell():
    # Night Raid's first seat: 46.9 % at greedy (n 2,000), 54.2 % at a small search (n 40): not significant,
    # but 7.3 points apart, so no number of games could settle it within ±2 points at these values
    frame = by_tier([Tier("greedy", "greedy"), Tier("search", "search")], lambda t: pl.DataFrame(
        {"cell": ["x"], "verdict": ["fair"], "rate": [0.469 if t.label == "greedy" else 0.542],
         "n": [2000 if t.label == "greedy" else 40]}))
    row = tier_verdicts(frame, ["cell"]).row(0, named=True)
    assert row["status"] == "undecided: play more"
    assert row["games needed"] == "7.3 points apart so far, the margin or more: more games at search tell whether " \
                                  "it moves"


def test_the_verdicts_study_reads_a_card_flag_as_the_reports_table_does():
    # the same built games: the verdicts study's card-flag rows and the report's card-flag table give each card
    # the same status, the lopsided one included (one measure, one status on every surface)
    from workbench.core.studies.verdicts import _cell_id, _rows, _table, cost_flag_source

    def rates(frame: pl.DataFrame, alpha: float) -> pl.DataFrame:
        weak = frame["tag"].unique().to_list() == ["weak"]
        iwd = [0.1, 0.4 if weak else -0.5, 0.3, 0.6 if weak else 0.4, 0.5]
        low = [v - 0.01 for v in iwd] if weak else [0.09, -0.55, 0.29, 0.39, 0.49]
        high = [v + 0.01 for v in iwd] if weak else [0.11, 0.45, 0.31, 0.41, 0.51]
        return pl.DataFrame({"card": list("abcde"), "cost": [1, 2, 3, 4, 5], "iwd": iwd, "iwd_low": low,
                             "iwd_high": high, "wr_drawn_n": [frame.height] * 5})

    tiers = (Tier("weak", "greedy"), Tier("strong", "search"))
    games = {t.label: pl.DataFrame({"tag": [t.label] * 4}) for t in tiers}
    report = {r["card"]: r["status"] for r in cost_flags_by_tier(
        tiers, {t: {"cell": g} for t, g in games.items()}, rates, cards=5).iter_rows(named=True)}
    source = cost_flag_source([("cell", {})], rates, cards=5)
    cell = _cell_id(source, "cell")
    long = _rows(tiers, [source], {t: {cell: g} for t, g in games.items()}, {cell})
    study = {r["key"]: r["status"] for r in _table(tiers, [source], long)["verdicts"].iter_rows(named=True)}
    assert study and all(study[card] == report[card] for card in study), (study, report)
    assert study["b"] == "undecided: play more"  # the lopsided search interval holds the weak tier's value
    assert "d" in study and study["d"] == "moves with skill"  # a tight pair that does move
