import math
import os

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from scipy import stats as sp

from workbench.core.errors import InputError
from workbench.core.stats.rates import (
    binom_pvalue,
    format_rate,
    games_for_difference,
    games_for_margin,
    rate_diff_table,
    rate_table,
    two_proportion,
    wilson,
    wilson_exprs,
    z_value,
)

EXAMPLES = int(os.environ.get("WORKBENCH_HYPOTHESIS_EXAMPLES", "50"))


# -- Wilson intervals: known values ----------------------------------------------------------------
@pytest.mark.parametrize(("k", "n", "low", "high"), [
    (0, 10, 0.0, 0.2775),      # Newcombe (1998), Stat Med 17:857, table I
    (81, 263, 0.2553, 0.3662),  # Newcombe (1998), table I
    (5, 10, 0.2366, 0.7634),
    (10, 10, 0.7225, 1.0),
])
def test_wilson_known_values(k, n, low, high):
    lo, hi = wilson(k, n)
    assert lo == pytest.approx(low, abs=5e-5)
    assert hi == pytest.approx(high, abs=5e-5)
    assert isinstance(lo, float) and isinstance(hi, float)


def test_wilson_vectorised_matches_scalar_and_broadcasts():
    k = np.array([0, 3, 50, 99, 100])
    n = np.array([100, 100, 100, 100, 100])
    low, high = wilson(k, n, confidence=0.9)
    for i in range(len(k)):
        assert (low[i], high[i]) == pytest.approx(wilson(int(k[i]), int(n[i]), confidence=0.9))
    low2, _ = wilson(k, 100)  # broadcast a scalar n
    assert low2.shape == (5,)


def test_wilson_no_games_is_whole_range_and_confidence_widens():
    assert wilson(0, 0) == (0.0, 1.0)
    narrow = np.subtract(*wilson(40, 100, 0.8)[::-1])
    wide = np.subtract(*wilson(40, 100, 0.99)[::-1])
    assert wide > narrow


@pytest.mark.parametrize(("k", "n", "confidence"), [(-1, 5, 0.95), (6, 5, 0.95), (1, -1, 0.95), (1, 5, 1.0),
                                                     (1, 5, 0), (1, 5, "high")])
def test_wilson_rejects_bad_input(k, n, confidence):
    with pytest.raises(InputError):
        wilson(k, n, confidence)


@settings(max_examples=EXAMPLES, deadline=None)
@given(n=st.integers(1, 10_000), frac=st.floats(0, 1), confidence=st.floats(0.5, 0.999))
def test_wilson_contains_the_estimate(n, frac, confidence):
    k = round(frac * n)
    low, high = wilson(k, n, confidence)
    assert 0.0 <= low <= k / n <= high <= 1.0


def test_wilson_coverage_is_near_nominal():
    # Monte Carlo property: 95 % intervals cover the true rate ~95 % of the time.
    rng = np.random.default_rng(7)
    n, p = 60, 0.3
    k = rng.binomial(n, p, size=4000)
    low, high = wilson(k, n)
    coverage = np.mean((low <= p) & (p <= high))
    assert 0.93 <= coverage <= 0.97


def test_wilson_exprs_match_numpy():
    frame = pl.DataFrame({"k": [0, 1, 7, 10, 0], "n": [10, 10, 10, 10, 0]})
    low, high = wilson_exprs("k", "n", 0.9)
    got = frame.select(low.alias("low"), high.alias("high"))
    want_low, want_high = wilson(frame["k"].to_numpy(), frame["n"].to_numpy(), 0.9)
    np.testing.assert_allclose(got["low"].to_numpy(), want_low)
    np.testing.assert_allclose(got["high"].to_numpy(), want_high)


def test_z_value():
    assert z_value(0.95) == pytest.approx(1.959964, abs=1e-6)


def test_format_rate():
    assert format_rate(0.5234, 0.5131, 0.5337, 10000) == "52.3% [51.3–53.4] n=10000"
    assert format_rate(None, 0.0, 1.0) == "–"


# -- two proportions --------------------------------------------------------------------------------
def test_two_proportion_newcombe_example():
    # Newcombe (1998b), Stat Med 17:873, example (56/70 vs 48/80): method 10 gives 0.0524 to 0.3339.
    t = two_proportion(56, 70, 48, 80)
    assert t.diff == pytest.approx(0.2)
    assert t.low == pytest.approx(0.0524, abs=1e-4)
    assert t.high == pytest.approx(0.3339, abs=1e-4)
    assert t.method == "z"
    chi2 = sp.chi2_contingency([[56, 14], [48, 32]], correction=False)
    assert t.p_value == pytest.approx(chi2.pvalue)  # pooled z-test == uncorrected chi-square
    assert t.significant and t.as_dict()["n1"] == 70


def test_two_proportion_small_counts_use_fisher():
    t = two_proportion(2, 5, 8, 10)
    assert t.method == "fisher"
    assert t.p_value == pytest.approx(sp.fisher_exact([[2, 3], [8, 2]]).pvalue)
    assert not t.significant
    assert two_proportion(2, 5, 8, 10, method="z").method == "z"


def test_two_proportion_alpha_sets_flag_and_interval():
    loose = two_proportion(530, 1000, 500, 1000, alpha=0.2)
    strict = two_proportion(530, 1000, 500, 1000, alpha=0.05)
    assert loose.significant and not strict.significant
    assert loose.high - loose.low < strict.high - strict.low
    same = two_proportion(0, 100, 0, 100)
    assert same.p_value == 1.0 and not same.significant


@pytest.mark.parametrize("args", [(1, 0, 1, 5), (6, 5, 1, 5), (1.5, 5, 1, 5), (1, 5, 1, 5, 0.05, "t")])
def test_two_proportion_rejects_bad_input(args):
    with pytest.raises(InputError):
        two_proportion(*args)


def test_binom_pvalue():
    assert binom_pvalue(60, 100) == pytest.approx(sp.binomtest(60, 100, 0.5).pvalue)
    assert binom_pvalue(0, 0) == 1.0


# -- sample sizes -----------------------------------------------------------------------------------
def _half_width(rate, n, confidence=0.95):
    low, high = wilson(rate * n, n, confidence)
    return (high - low) / 2


def test_games_for_margin_one_point():
    n = games_for_margin(0.01)
    z = z_value(0.95)
    assert n == math.ceil(z * z / (4 * 0.01**2) - z * z) == 9600
    assert _half_width(0.5, n) <= 0.01 < _half_width(0.5, n - 1)
    assert games_for_margin(0.01, rate=0.1) < n  # far from 1/2 needs fewer games
    assert games_for_margin(0.01, confidence=0.99) > n


def test_games_for_difference_known_value():
    # Fleiss, Levin & Paik (2003) eq. 4.14 without continuity correction: 0.5 vs 0.6 → 388 per group.
    assert games_for_difference(0.1, rate=0.5) == 388
    assert games_for_difference(-0.1, rate=0.6) == 388
    assert games_for_difference(0.02) > games_for_difference(0.05)
    assert games_for_difference(0.1, power=0.9) > 388


def test_games_for_difference_reaches_power():
    n = games_for_difference(0.05, rate=0.5, power=0.8)
    p1, p2 = 0.5, 0.55
    za = z_value(0.95)
    pbar = (p1 + p2) / 2
    se0 = math.sqrt(2 * pbar * (1 - pbar) / n)
    se1 = math.sqrt((p1 * (1 - p1) + p2 * (1 - p2)) / n)
    power = sp.norm.cdf((abs(p2 - p1) - za * se0) / se1)
    assert 0.8 <= power < 0.805


@pytest.mark.parametrize(("fn", "args"), [(games_for_margin, (0,)), (games_for_margin, (0.6,)),
                                          (games_for_margin, (0.01, 1.5)), (games_for_difference, (0,)),
                                          (games_for_difference, (0.2, 0.9)),
                                          (games_for_difference, (0.1, 0.5, 0.05, 1.0))])
def test_sample_size_rejects_bad_input(fn, args):
    with pytest.raises(InputError):
        fn(*args)


# -- rate tables ------------------------------------------------------------------------------------
FRAME = pl.DataFrame({
    "bf": ["a", "a", "a", "b", "b", "c"],
    "deck": ["x", "y", "x", "x", "x", "y"],
    "won": [True, False, True, True, None, None],
})


def test_rate_table_counts_and_interval():
    out = rate_table(FRAME, ["bf"], "won")
    assert out.columns == ["bf", "n", "k", "rate", "low", "high"]
    assert out["bf"].to_list() == ["a", "b", "c"]
    assert out["n"].to_list() == [3, 1, 0]  # null events are not counted
    assert out["k"].to_list() == [2, 1, 0]
    assert out["rate"].to_list()[:2] == pytest.approx([2 / 3, 1.0]) and out["rate"][2] is None
    low, high = wilson(np.array([2, 1, 0]), np.array([3, 1, 0]))
    np.testing.assert_allclose(out["low"].to_numpy(), low)
    np.testing.assert_allclose(out["high"].to_numpy(), high)


def test_rate_table_expression_event_and_no_groups():
    out = rate_table(FRAME, [], pl.when(pl.col("deck") == "x").then(pl.col("won")))
    assert out.height == 1 and out["n"][0] == 3 and out["k"][0] == 3
    two = rate_table(FRAME, ["bf", "deck"], "won")
    assert two.select("bf", "deck").rows() == [("a", "x"), ("a", "y"), ("b", "x"), ("c", "y")]


def test_rate_table_bad_inputs():
    with pytest.raises(InputError, match="nope"):
        rate_table(FRAME, ["nope"], "won")
    with pytest.raises(InputError):
        rate_table(FRAME, "bf", 3)


def test_rate_diff_table_matches_two_proportion():
    rng = np.random.default_rng(3)
    frame = pl.DataFrame({
        "bf": np.repeat(["a", "b"], 400),
        "variant": np.tile(np.repeat(["base", "new"], 200), 2),
        "won": rng.random(800) < np.tile(np.repeat([0.5, 0.65], 200), 2),
    })
    out = rate_diff_table(frame, ["bf"], "won", "variant", baseline="base")
    assert out["bf"].to_list() == ["a", "b"] and set(out["variant"]) == {"new"}
    for row in out.iter_rows(named=True):
        sub = frame.filter(pl.col("bf") == row["bf"])
        k1 = sub.filter(pl.col("variant") == "new")["won"].sum()
        k2 = sub.filter(pl.col("variant") == "base")["won"].sum()
        t = two_proportion(k1, 200, k2, 200)
        assert (row["diff"], row["low"], row["high"], row["p_value"]) == pytest.approx((t.diff, t.low, t.high,
                                                                                        t.p_value))
        assert row["significant"] == t.significant
        assert (row["rate_low"], row["rate_high"]) == pytest.approx(wilson(k1, 200))
    default = rate_diff_table(frame, "bf", "won", "variant")  # baseline: first level
    assert_frame_equal(default, out)
    with pytest.raises(InputError, match="baseline"):
        rate_diff_table(frame, "bf", "won", "variant", baseline="zzz")
