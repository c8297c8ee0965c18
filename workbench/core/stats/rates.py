"""Rates with their uncertainty: Wilson intervals, two-proportion tests and sample sizes.

Every rate a user sees comes with ``n`` and an interval, so this module is the one place where
rates are estimated.  Intervals are Wilson score intervals (good coverage even at 0 or n
successes and small n); a difference of two rates gets Newcombe's hybrid score interval (built
from the two Wilson intervals) and a p-value from the pooled z-test, or Fisher's exact test when
an expected cell count is below 5.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import polars as pl

from workbench.core.errors import InputError
from workbench.core.lazy import lazy, preload

_sp = lazy("scipy.stats")  # imported at the first test that needs it (about 1 s)


def preload_tests() -> None:
    """Import the tests' library (scipy.stats) in the background now: a run that may be stopped needs it after."""
    preload(_sp)

__all__ = [
    "ProportionTest",
    "binom_pvalue",
    "format_rate",
    "games_for_difference",
    "games_for_margin",
    "preload_tests",
    "grouped",
    "rate_diff_table",
    "rate_table",
    "settle",
    "two_proportion",
    "wilson",
    "wilson_exprs",
    "z_value",
]


def z_value(confidence: float) -> float:
    """Two-sided standard normal quantile for ``confidence`` (0.95 → 1.959964)."""
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise InputError(f"confidence must be a number in (0, 1), e.g. 0.95; got {confidence!r}")
    return float(_sp.norm.ppf(0.5 + confidence / 2))


def _check_counts(k: np.ndarray, n: np.ndarray) -> None:
    if np.any(n < 0) or np.any(k < 0) or np.any(k > n):
        raise InputError("counts must satisfy 0 <= k <= n (k successes out of n trials)")


def wilson(k: Any, n: Any, confidence: float = 0.95) -> tuple[Any, Any]:
    """Wilson score interval ``(low, high)`` for ``k`` successes in ``n`` trials.

    Works on ints (returns floats) and numpy arrays (returns arrays, broadcast).  With ``n == 0``
    nothing is known and the interval is the whole range ``(0, 1)``.
    """
    z = z_value(confidence)
    scalar = np.ndim(k) == 0 and np.ndim(n) == 0
    k_arr = np.asarray(k, dtype=float)
    n_arr = np.asarray(n, dtype=float)
    _check_counts(k_arr, n_arr)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k_arr / n_arr
        denom = 1 + z * z / n_arr
        centre = (p + z * z / (2 * n_arr)) / denom
        half = z * np.sqrt(p * (1 - p) / n_arr + z * z / (4 * n_arr * n_arr)) / denom
        low = np.where(n_arr > 0, np.clip(centre - half, 0.0, 1.0), 0.0)
        high = np.where(n_arr > 0, np.clip(centre + half, 0.0, 1.0), 1.0)
    # exact ends: no successes → low is 0, all successes → high is 1 (float noise aside)
    low = np.where(k_arr == 0, 0.0, low)
    high = np.where((k_arr == n_arr) & (n_arr > 0), 1.0, high)
    if scalar:
        return float(low), float(high)
    return low, high


def wilson_exprs(k: pl.Expr | str, n: pl.Expr | str, confidence: float = 0.95) -> tuple[pl.Expr, pl.Expr]:
    """Wilson ``(low, high)`` as polars expressions of count columns ``k`` and ``n``.

    The same formula as :func:`wilson`, for use inside ``with_columns``; ``n == 0`` gives
    ``(0, 1)``.
    """
    z = z_value(confidence)
    k = pl.col(k) if isinstance(k, str) else k
    n = pl.col(n) if isinstance(n, str) else n
    kf, nf = k.cast(pl.Float64), n.cast(pl.Float64)
    p = kf / nf
    denom = 1 + z * z / nf
    centre = (p + z * z / (2 * nf)) / denom
    half = z * (p * (1 - p) / nf + z * z / (4 * nf * nf)).sqrt() / denom
    low = pl.when(nf <= 0).then(0.0).when(kf == 0).then(0.0).otherwise((centre - half).clip(0.0, 1.0))
    high = pl.when(nf <= 0).then(1.0).when(kf == nf).then(1.0).otherwise((centre + half).clip(0.0, 1.0))
    return low, high


def format_rate(rate: float | None, low: float | None, high: float | None, n: int | None = None,
                digits: int = 1) -> str:
    """``"52.3% [51.3–53.3]"`` (with ``" n=10000"`` when ``n`` is given); ``"–"`` for no data."""
    if rate is None or (isinstance(rate, float) and math.isnan(rate)):
        text = "–"
    else:
        text = f"{100 * rate:.{digits}f}% [{100 * low:.{digits}f}–{100 * high:.{digits}f}]"
    if n is not None:
        text += f" n={n}"
    return text


def _event_expr(event: pl.Expr | str) -> pl.Expr:
    if isinstance(event, str):
        return pl.col(event)
    if isinstance(event, pl.Expr):
        return event
    raise InputError(f"event must be a column name or a polars expression, got {type(event).__name__}")


def _by_list(by: str | list[str] | tuple[str, ...] | None) -> list[str]:
    if by is None:
        return []
    if isinstance(by, str):
        return [by]
    return list(by)


def grouped(frame: pl.DataFrame, by: str | list[str] | None, exprs: list[pl.Expr]) -> pl.DataFrame:
    """Aggregate ``exprs`` per group of ``by`` (sorted by the keys), or over the whole frame."""
    keys = _by_list(by)
    missing = [c for c in keys if c not in frame.columns]
    if missing:
        raise InputError(f"group columns {missing} are not in the frame; columns: {', '.join(frame.columns)}")
    if not keys:
        return frame.select(exprs)
    return frame.group_by(keys).agg(exprs).sort(keys, nulls_last=True)


def rate_table(frame: pl.DataFrame, by: str | list[str] | None, event: pl.Expr | str,
               confidence: float = 0.95) -> pl.DataFrame:
    """Per group of ``by``: ``n``, ``k``, ``rate``, ``low``, ``high`` of a boolean ``event``.

    ``event`` is a Boolean column name or expression.  Rows where the event is null are not
    counted, so ``pl.when(decisive).then(won)`` gives a rate among decisive games only.  A group
    with no counted rows has ``n = 0``, a null rate and the interval ``(0, 1)``.
    """
    ev = _event_expr(event)
    out = grouped(frame, by, [
        ev.is_not_null().sum().cast(pl.Int64).alias("n"),
        ev.cast(pl.Int64).sum().fill_null(0).cast(pl.Int64).alias("k"),
    ])
    low, high = wilson_exprs("k", "n", confidence)
    return out.with_columns(
        pl.when(pl.col("n") > 0).then(pl.col("k") / pl.col("n")).alias("rate"),
        low.alias("low"),
        high.alias("high"),
    )


@dataclass(frozen=True)
class ProportionTest:
    """Comparison of two rates ``k1/n1`` and ``k2/n2`` (difference = rate1 − rate2)."""

    k1: int
    n1: int
    k2: int
    n2: int
    rate1: float
    rate2: float
    diff: float
    low: float
    high: float
    p_value: float
    significant: bool
    method: str
    alpha: float

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (one row of a table)."""
        return asdict(self)


def _newcombe(k1: int, n1: int, k2: int, n2: int, confidence: float) -> tuple[float, float]:
    """Newcombe (1998) method 10: hybrid score interval for p1 − p2 from two Wilson intervals."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1, confidence)
    l2, u2 = wilson(k2, n2, confidence)
    d = p1 - p2
    low = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return max(-1.0, low), min(1.0, high)


def _int_count(x: Any, name: str) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        raise InputError(f"{name} must be an integer count, got {x!r}")
    return int(x)


def two_proportion(k1: int, n1: int, k2: int, n2: int, alpha: float = 0.05,
                   method: str = "auto") -> ProportionTest:
    """Test whether rate ``k1/n1`` differs from ``k2/n2`` (two-sided).

    ``method`` is ``"z"`` (pooled two-proportion z-test), ``"fisher"`` (Fisher's exact test) or
    ``"auto"``: Fisher when any expected cell count of the 2×2 table is below 5, else z.  The
    difference's interval is Newcombe's hybrid score interval at confidence ``1 − alpha``.
    """
    k1, n1, k2, n2 = (_int_count(v, name) for v, name in ((k1, "k1"), (n1, "n1"), (k2, "k2"), (n2, "n2")))
    if n1 <= 0 or n2 <= 0:
        raise InputError(f"both groups need at least one game (n1={n1}, n2={n2})")
    _check_counts(np.array([k1, k2]), np.array([n1, n2]))
    if method not in ("auto", "z", "fisher"):
        raise InputError(f"method must be one of auto | z | fisher, got {method!r}")
    confidence = 1 - alpha
    z_value(confidence)  # validates alpha
    if method == "auto":
        pooled = (k1 + k2) / (n1 + n2)
        expected = [n1 * pooled, n1 * (1 - pooled), n2 * pooled, n2 * (1 - pooled)]
        method = "fisher" if min(expected) < 5 else "z"
    if method == "fisher":
        p_value = float(_sp.fisher_exact([[k1, n1 - k1], [k2, n2 - k2]], alternative="two-sided").pvalue)
    else:
        pooled = (k1 + k2) / (n1 + n2)
        se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
        diff = k1 / n1 - k2 / n2
        p_value = 1.0 if se == 0 else float(2 * _sp.norm.sf(abs(diff) / se))
    low, high = _newcombe(k1, n1, k2, n2, confidence)
    return ProportionTest(k1, n1, k2, n2, k1 / n1, k2 / n2, k1 / n1 - k2 / n2, low, high,
                          p_value, bool(p_value < alpha), method, alpha)


def binom_pvalue(k: int, n: int, p0: float = 0.5) -> float:
    """Exact two-sided binomial test p-value of ``k`` successes in ``n`` against rate ``p0``."""
    k, n = _int_count(k, "k"), _int_count(n, "n")
    if n == 0:
        return 1.0
    _check_counts(np.array([k]), np.array([n]))
    return float(_sp.binomtest(k, n, p0).pvalue)


def rate_diff_table(frame: pl.DataFrame, by: str | list[str] | None, event: pl.Expr | str, versus: str,
                    baseline: Any = None, alpha: float = 0.05, method: str = "auto") -> pl.DataFrame:
    """Compare the event rate of each level of column ``versus`` with its ``baseline`` level.

    Within each group of ``by`` (e.g. per battlefield) every level of ``versus`` (e.g. a rules
    variant) other than ``baseline`` (default: the first level in sort order) is tested against
    the baseline with :func:`two_proportion`.  Returns ``by``, ``versus``, ``n``, ``k``,
    ``rate`` (with ``rate_low``/``rate_high``), ``n_base``, ``k_base``, ``rate_base`` (with its
    interval), ``diff``, ``low``, ``high`` (interval of the difference), ``p_value``,
    ``significant``, ``method`` — ready for :func:`workbench.core.present.charts.delta_chart`.
    """
    keys = _by_list(by)
    if versus not in frame.columns:
        raise InputError(f"column {versus!r} is not in the frame; columns: {', '.join(frame.columns)}")
    rates = rate_table(frame, keys + [versus], event, 1 - alpha)
    levels = frame.get_column(versus).unique().sort(nulls_last=True).to_list()
    if baseline is None:
        baseline = levels[0]
    elif baseline not in levels:
        raise InputError(f"baseline {baseline!r} is not a value of {versus!r}; values: {levels}")
    base = rates.filter(pl.col(versus) == baseline).select(
        *keys, pl.col("n").alias("n_base"), pl.col("k").alias("k_base"))
    others = rates.filter(pl.col(versus) != baseline).select(*keys, versus, "n", "k")
    pairs = others.join(base, on=keys, how="inner") if keys else others.join(base, how="cross")
    rows = []
    for row in pairs.iter_rows(named=True):
        if row["n"] == 0 or row["n_base"] == 0:
            continue
        t = two_proportion(row["k"], row["n"], row["k_base"], row["n_base"], alpha, method)
        r_low, r_high = wilson(t.k1, t.n1, 1 - alpha)
        b_low, b_high = wilson(t.k2, t.n2, 1 - alpha)
        rows.append({**{c: row[c] for c in keys}, versus: row[versus], "n": t.n1, "k": t.k1, "rate": t.rate1,
                     "rate_low": r_low, "rate_high": r_high, "n_base": t.n2, "k_base": t.k2,
                     "rate_base": t.rate2, "rate_base_low": b_low, "rate_base_high": b_high, "diff": t.diff,
                     "low": t.low, "high": t.high, "p_value": t.p_value, "significant": t.significant,
                     "method": t.method})
    schema = {**{c: frame.schema[c] for c in keys}, versus: frame.schema[versus], "n": pl.Int64, "k": pl.Int64,
              "rate": pl.Float64, "rate_low": pl.Float64, "rate_high": pl.Float64, "n_base": pl.Int64,
              "k_base": pl.Int64, "rate_base": pl.Float64, "rate_base_low": pl.Float64,
              "rate_base_high": pl.Float64, "diff": pl.Float64, "low": pl.Float64, "high": pl.Float64,
              "p_value": pl.Float64, "significant": pl.Boolean, "method": pl.String}
    return pl.DataFrame(rows, schema=schema, orient="row")


def _check_rate(rate: float, name: str = "rate") -> float:
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
        raise InputError(f"{name} must be a number in [0, 1], got {rate!r}")
    return float(rate)


def _wilson_half_width(rate: float, n: float, z: float) -> float:
    denom = 1 + z * z / n
    return z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / denom


def games_for_margin(margin: float, rate: float = 0.5, confidence: float = 0.95) -> int:
    """Games needed so the Wilson interval around ``rate`` is at most ``±margin`` wide.

    ``margin`` is a fraction: 0.01 means ±1 percentage point.  ``rate`` is the expected rate
    (0.5 is the worst case).  At rate 0.5 and 95 % this is ⌈z²/(4·margin²) − z²⌉, e.g. 9600 games
    for ±1 point.
    """
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not 0 < margin < 0.5:
        raise InputError(f"margin must be a fraction in (0, 0.5), e.g. 0.01 for ±1 point; got {margin!r}")
    rate = _check_rate(rate)
    z = z_value(confidence)
    hi = 1
    while _wilson_half_width(rate, hi, z) > margin:
        hi *= 2
    lo = max(1, hi // 2)
    while lo < hi:  # half-width falls monotonically with n
        mid = (lo + hi) // 2
        if _wilson_half_width(rate, mid, z) <= margin:
            hi = mid
        else:
            lo = mid + 1
    return hi


def games_for_difference(diff: float, rate: float = 0.5, alpha: float = 0.05, power: float = 0.8) -> int:
    """Games per group to detect rate ``rate`` vs ``rate + diff`` with a two-sided test.

    Normal-approximation formula without continuity correction (Fleiss, Levin & Paik 2003,
    eq. 4.14): n = (z_{α/2}·√(2·p̄q̄) + z_β·√(p1q1 + p2q2))² / d².  E.g. 0.5 vs 0.6 at α = 0.05
    and 80 % power needs 388 games per group.
    """
    if isinstance(diff, bool) or not isinstance(diff, (int, float)) or diff == 0:
        raise InputError(f"diff must be a non-zero number, e.g. 0.02 for 2 points; got {diff!r}")
    p1 = _check_rate(rate)
    p2 = p1 + diff
    if not 0 <= p2 <= 1:
        raise InputError(f"rate + diff = {p2:g} is outside [0, 1]")
    za = z_value(1 - alpha)
    if isinstance(power, bool) or not isinstance(power, (int, float)) or not 0 < power < 1:
        raise InputError(f"power must be in (0, 1), e.g. 0.8; got {power!r}")
    zb = float(_sp.norm.ppf(power))
    pbar = (p1 + p2) / 2
    num = za * math.sqrt(2 * pbar * (1 - pbar)) + zb * math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))
    return max(1, math.ceil((num / diff) ** 2 - 1e-9))


SETTLED, MOVES, UNDECIDED = "settled", "moves with skill", "undecided: play more"
SETTLE_MARGIN = 0.02  # two points of score: tiers whose values agree this closely give one verdict


def _per_game_variance(score: float, n: int) -> float:
    """One game's variance of a score: p̃(1 − p̃), p̃ = (k + 1)/(n + 2).

    The binomial variance bounds a score's (a draw counts half, which only lowers it); the shrunk
    p̃ keeps a score of 0 or 1 from claiming no spread.
    """
    shrunk = (score * n + 1) / (n + 2)
    return shrunk * (1 - shrunk)


def _games_needed(gap: float, va: float, na: int, vb: float, nb: int, z: float) -> tuple[int, int]:
    """Games at each tier so that ``|diff| + z·se < margin`` (``gap`` = margin − |diff| > 0) if the values held.

    The tier with fewer games plays more while the other keeps its games; when that cannot reach
    the bound alone, both play the same number.
    """
    target = (gap / z) ** 2  # the variance of the difference that would settle it
    small_is_a = na <= nb
    v_small, v_big, n_big = (va, vb, nb) if small_is_a else (vb, va, na)
    room = target - v_big / n_big
    if room > 0 and v_small / room <= 4 * n_big:  # the small tier alone can catch up without outgrowing the other
        need = max(math.ceil(v_small / room), min(na, nb))
        return (need, nb) if small_is_a else (na, need)
    both = max(math.ceil((va + vb) / target), na, nb)
    return both, both


Spread = float | tuple[float, float] | None  # a value's standard error, or its pair below and above it


def _sides(name: str, score: float, n: int, se: Spread, alpha: float) -> tuple[float, float]:
    """The value's standard error below and above it.

    ``se`` as given (one number, or the pair read off an asymmetric interval), else a score's, read off
    the two sides of its Wilson interval at ``1 - alpha`` (the interval every table shows beside a score:
    lopsided near 0 % and 100 % and on a few games).
    """
    if se is None:
        z = z_value(1 - alpha)
        k = min(max(float(score) * n, 0.0), float(n))
        low, high = wilson(k, n, 1 - alpha)
        return (k / n - low) / z, (high - k / n) / z
    pair = tuple(se) if isinstance(se, (tuple, list)) else (se, se)
    if len(pair) != 2 or not all(isinstance(x, (int, float, np.floating)) and not isinstance(x, bool)
                                 and math.isfinite(x) and x >= 0 for x in pair):
        raise InputError(f"settle: {name} must be a standard error of at least 0, or the pair (below, above) "
                         f"read off an interval; got {se!r}")
    return float(pair[0]), float(pair[1])


def settle(score_a: float, n_a: int, score_b: float, n_b: int, margin: float = SETTLE_MARGIN, *,
           se_a: Spread = None, se_b: Spread = None, alpha: float = 0.05) -> dict[str, Any]:
    """Is a verdict settled between two skill tiers (a weaker, b stronger)? Two one-sided tests and a z-test.

    The value at each tier is a score (wins plus half the draws over ``n`` games: its spread is read off its
    Wilson interval) or any estimate with its standard error (``se_a``/``se_b``, e.g. a card's gain beyond
    its cost). The tiers play the same seeds but different agents, so their games are treated as independent
    samples (the normal approximation, ``se² = se_a² + se_b²``): pairing would claim a correlation the
    agents' different choices break. A value whose interval is not symmetric (a card's gain on a few games:
    ``-44.3 [-77.0, +16.4]`` points) gives its standard error below and above it as a pair, read off that
    interval; each side of the difference then adds the sides that face it (the "square-and-add" interval of
    a difference, Newcombe 1998; Zou and Donner 2008), so a tier whose own interval holds the other tier's
    value never reads as moving away from it at the same level.

    * **settled** — two one-sided tests (TOST), each at level ``alpha`` (0.05; equivalently the
      90 % interval of the difference lies inside ``±margin``): the values agree within ``margin``
      (default 0.02, two points of score).
    * **moves with skill** — not settled, and the two-sided z-test at ``alpha`` (0.05) finds a difference.
    * **undecided: play more** — neither; ``needed_a``/``needed_b`` are the games at each tier at which
      TOST would settle it if the observed difference and spread held, or None with ``note``
      "cannot settle" when the difference is at least the margin (more games could only show it moves).

    Returns ``diff`` (b − a), its ``se`` (on the side facing 0), ``low``/``high`` (its interval at
    ``1 - alpha``), ``p`` (two-sided),
    ``status``, ``needed_a``, ``needed_b`` and a plain ``note``.
    """
    for name, n in (("n_a", n_a), ("n_b", n_b)):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise InputError(f"settle: {name} must be a whole number of games of at least 1; got {n!r}")
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not 0 < margin < 1:
        raise InputError(f"settle: margin must be a number in (0, 1), e.g. 0.02 for two points; got {margin!r}")
    if not 0 < alpha < 0.5:
        raise InputError(f"settle: alpha must be in (0, 0.5), e.g. 0.05; got {alpha!r}")
    (a_below, a_above), (b_below, b_above) = (_sides("se_a", score_a, n_a, se_a, alpha),
                                              _sides("se_b", score_b, n_b, se_b, alpha))
    diff = float(score_b - score_a)
    # the difference's spread on each side: below it, b may be lower and a higher; above it, the other way round
    below, above = math.hypot(a_above, b_below), math.hypot(a_below, b_above)
    se = above if diff < 0 else below if diff > 0 else max(below, above)  # the side that faces 0
    one, two = z_value(1 - 2 * alpha), z_value(1 - alpha)  # one-sided and two-sided quantiles at alpha
    p = float(2 * _sp.norm.sf(abs(diff) / se)) if se > 0 else (0.0 if diff else 1.0)
    out = {"diff": diff, "se": se, "low": diff - two * below, "high": diff + two * above, "p": p,
           "needed_a": None, "needed_b": None}
    if diff - one * below > -margin and diff + one * above < margin:
        return {**out, "status": SETTLED, "note": f"the tiers agree within ±{margin * 100:g} points"}
    if p < alpha:
        return {**out, "status": MOVES, "note": f"the tiers differ by {diff * 100:+.1f} points"}
    if abs(diff) >= margin:
        return {**out, "status": UNDECIDED, "note": f"cannot settle: the tiers differ by {diff * 100:+.1f} points, "
                                                   f"at least the ±{margin * 100:g}-point margin"}
    # one game's variance at each tier, for the games that would settle it: a score's binomial p̃(1 − p̃), else se²·n
    va, vb = (_per_game_variance(score, n) if given is None else (x * x + y * y) / 2 * n
              for score, n, given, x, y in ((score_a, n_a, se_a, a_below, a_above), (score_b, n_b, se_b, b_below,
                                                                                      b_above)))
    need_a, need_b = _games_needed(margin - abs(diff), va, n_a, vb, n_b, one)
    return {**out, "status": UNDECIDED, "needed_a": need_a, "needed_b": need_b,
            "note": f"play {need_a:,} and {need_b:,} games at the two tiers"}
