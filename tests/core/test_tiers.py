"""Balance verdicts at several skill tiers (core/tiers.py), on a built case where the tiers disagree.

The toy coin race with ``board=small, fast=true`` has target 2.  With ``edge=1`` a risky move always
scores 2.  Worked by hand:

* **random vs random**: the first mover wins at once with a risky move (½); after its safe move (½)
  the second mover wins with a risky move (½), else the first mover's next move reaches 2.  So the
  first seat wins ½ + ½·½ = ¾ of the games: favoured.
* **greedy vs greedy** (safe unless behind): the first mover is level, plays safe (1–0); the second
  is behind, plays risky and reaches 2.  The first seat never wins: disfavoured.

With ``edge=0`` (risky never scores) greedy's second mover, always behind, never scores: the first
seat always wins (favoured); random play leaves it favoured too (a second mover's risky move scores
nothing), so that verdict holds at both tiers.
"""

from __future__ import annotations

import polars as pl
import pytest
from scipy.stats import binomtest

from workbench.core.errors import InputError
from workbench.core.model import get_game
from workbench.core.tiers import (
    Tier,
    by_tier,
    cost_flags_by_tier,
    first_seat_by_tier,
    first_seat_scores,
    flips,
    holds_at_every_tier,
    parse_tiers,
)

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
    assert not one["holds"] and zero["holds"]
    assert one["tiers"] == zero["tiers"] == 2
    said = flips(table, ["cell"])
    assert said == ["edge 1: the verdict changes with skill — favoured at random, disfavoured at greedy."]


def test_scores_count_a_draw_as_half_and_read_the_interval():
    frame = pl.DataFrame({"winner": ["p1"] * 6 + ["draw"] * 4 + ["p2"] * 10,
                          "first_seat": ["p1"] * 20})
    row = first_seat_scores(frame).row(0, named=True)
    assert (row["n"], row["wins"], row["draws"]) == (20, 6, 4)
    assert row["rate"] == pytest.approx(8 / 20)  # 6 wins + 4 half-draws
    assert row["low"] < 0.5 < row["high"] and row["verdict"] == "fair"


def test_a_tier_missing_an_item_does_not_hold():
    frame = by_tier([Tier("a", "a"), Tier("b", "b")], lambda t: pl.DataFrame(
        {"cell": ["x", "y"] if t.label == "a" else ["x"], "verdict": ["fair", "fair"] if t.label == "a" else ["fair"]}))
    table = holds_at_every_tier(frame, ["cell"]).sort("cell")
    assert table["holds"].to_list() == [True, False] and table["tiers"].to_list() == [2, 1]


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
    assert rows["c"]["weak · verdict"] == "over-costed" and not rows["c"]["holds"]
    assert rows["a"]["holds"] and rows["e"]["holds"] and rows["a"]["weak · verdict"] == "in line"
    assert rows["b"]["weak · wr_drawn_n"] == 5  # both cells of the tier pooled
    assert flips(table.filter(pl.col("card") == "b"), ["card"]) == [
        "b: the verdict changes with skill — under-costed at weak, in line at strong."]
