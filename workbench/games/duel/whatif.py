"""What-if comparisons and auto-balance for the duel.

A *what-if* plays the same games (same master seed, so the same game seeds: common random
numbers) under the unchanged baseline and under a variant — edited card costs/effects, edited
battlefield rows, or other parameter values — and reports every difference with its interval
and significance.  Edited data reach the engine as files: the edited CSV is written once to a
cache directory under a name made of its content hash (so the same edit is the same file, and
the runs' ``params_hash`` changes exactly when the content does).

Significance of a per-game rate (first-seat win, draw, an end reason) uses McNemar's exact test
on the paired games (same seed in both arms; only discordant pairs carry information); the
interval of the difference is Newcombe's (unpaired, so slightly conservative).  Per-card rates
of edited cards compare different seat-games and use the two-proportion test.

``auto_balance`` searches one numeric parameter for the value that brings the first-seat win
rate to a target (50 %) within its interval, by bisection on a monotone response.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core import charts
from workbench.core.errors import InputError
from workbench.core.stats import binom_pvalue, two_proportion, wilson
from workbench.core.store import write_atomic
from workbench.games.duel.analysis import first_seat_won, run_blocks
from workbench.games.duel.cardstats import card_rates
from workbench.games.duel.data import (
    BATTLEFIELD_COLUMNS,
    BATTLEFIELDS_CSV,
    CARD_COLUMNS,
    CARDS_CSV,
    load_battlefields,
    load_cards,
)
from workbench.games.duel.effects import ADD, DAMAGE, STEAL, Op, format_effect, format_op, parse_effect
from workbench.games.duel.model import MODEL

__all__ = ["BalanceResult", "WhatIf", "auto_balance", "auto_balance_param", "balance_chart", "cache_dir",
           "card_comparison", "compare_cells", "compare_outcomes", "edited_battlefields_csv", "edited_cards_csv",
           "effect_amounts", "first_seat_response", "what_if", "what_if_chart", "with_amounts"]


# -- edited data files --------------------------------------------------------------------------
def cache_dir() -> Path:
    """Where edited data files go: ``$WORKBENCH_CACHE/duel`` or the temp dir's ``workbench-cache/duel``."""
    root = os.environ.get("WORKBENCH_CACHE") or os.path.join(tempfile.gettempdir(), "workbench-cache")
    return Path(root) / "duel"


def _read(path: Path, columns: tuple[str, ...]) -> tuple[list[str], list[dict[str, str]]]:
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames or columns), list(reader)


def _write_hashed(header: list[str], rows: list[dict[str, str]], stem: str, directory: Path | None) -> Path:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    text = buf.getvalue()
    path = (directory or cache_dir()) / f"{stem}-{hashlib.sha256(text.encode()).hexdigest()[:16]}.csv"
    if not path.is_file():
        write_atomic(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return path


def edited_cards_csv(edits: dict[str, dict[str, Any]], base: str | Path | None = None,
                     directory: Path | None = None) -> Path:
    """A cards CSV with ``edits`` applied, e.g. ``{"dragon": {"cost": 20}, "ruby": {"effect": "self.tower +6"}}``.

    Keys are card keys (or ids as strings); editable fields are the CSV's columns except ``id``
    and ``key``.  The file is validated by loading it, so a bad edit names the row and field.
    """
    base = Path(base or CARDS_CSV)
    header, rows = _read(base, CARD_COLUMNS)
    by_key = {r["key"]: r for r in rows} | {r["id"]: r for r in rows}
    for key, change in (edits or {}).items():
        row = by_key.get(str(key))
        if row is None:
            raise InputError(f"card edit: no card {key!r} in {base}; give a card key like 'dragon'")
        for column, value in change.items():
            if column not in header or column in ("id", "key"):
                raise InputError(f"card edit {key!r}: cannot edit {column!r}; editable: "
                                 f"{', '.join(c for c in header if c not in ('id', 'key'))}")
            row[column] = str(value)
    path = _write_hashed(header, rows, "cards", directory)
    load_cards(path)
    return path


def edited_battlefields_csv(edits: dict[str, dict[str, Any]], base: str | Path | None = None,
                            directory: Path | None = None) -> Path:
    """A battlefields CSV with ``edits`` applied, e.g. ``{"crystal_garden": {"wall": 15}}``."""
    base = Path(base or BATTLEFIELDS_CSV)
    header, rows = _read(base, BATTLEFIELD_COLUMNS)
    by_key = {r["key"]: r for r in rows}
    for key, change in (edits or {}).items():
        if key not in by_key:
            raise InputError(f"battlefield edit: no battlefield {key!r}; allowed: {', '.join(by_key)}")
        for column, value in change.items():
            if column not in header or column == "key":
                raise InputError(f"battlefield edit {key!r}: cannot edit {column!r}; editable: "
                                 f"{', '.join(c for c in header if c != 'key')}")
            by_key[key][column] = str(value)
    path = _write_hashed(header, rows, "battlefields", directory)
    load_battlefields(path)
    return path


# -- what-if ------------------------------------------------------------------------------------
@dataclass
class WhatIf:
    """A finished what-if: both frames, the outcome comparison and the edited cards' rates."""

    baseline: pl.DataFrame
    variant: pl.DataFrame
    outcomes: pl.DataFrame
    cards: pl.DataFrame
    params_base: dict[str, Any] = field(default_factory=dict)
    params_variant: dict[str, Any] = field(default_factory=dict)


def _paired(base: pl.Series, variant: pl.Series, name: str, alpha: float) -> dict[str, Any]:
    """Difference of a per-game event rate between the arms: Newcombe interval, McNemar p-value."""
    b = base.cast(pl.Boolean).fill_null(False).to_list()
    v = variant.cast(pl.Boolean).fill_null(False).to_list()
    n = len(b)
    k_base, k_var = sum(b), sum(v)
    t = two_proportion(k_var, n, k_base, n, alpha=alpha, method="z")
    gained = sum(1 for x, y in zip(b, v, strict=True) if y and not x)
    lost = sum(1 for x, y in zip(b, v, strict=True) if x and not y)
    p = binom_pvalue(gained, gained + lost, 0.5) if gained + lost else 1.0
    lo_b, hi_b = wilson(k_base, n)
    lo_v, hi_v = wilson(k_var, n)
    return {"metric": name, "n": n, "base": k_base / n, "base_low": lo_b, "base_high": hi_b,
            "variant": k_var / n, "variant_low": lo_v, "variant_high": hi_v, "diff": t.diff, "low": t.low,
            "high": t.high, "p_value": p, "significant": bool(p < alpha), "discordant": gained + lost}


def compare_outcomes(baseline: pl.DataFrame, variant: pl.DataFrame, alpha: float = 0.05) -> pl.DataFrame:
    """Per metric: baseline and variant rate with intervals, difference, McNemar p-value.

    Metrics: ``first_seat_win``, ``p1_win``, ``draw`` and one ``end_<reason>`` per end reason; the
    games are paired by ``game_index`` (same seeds), so both frames must hold the same indices.
    """
    b = baseline.sort("game_index")
    v = variant.sort("game_index")
    if b.get_column("game_index").to_list() != v.get_column("game_index").to_list():
        raise InputError("what-if arms must play the same game indices (same games and seed)")
    events = {"first_seat_win": first_seat_won(), "p1_win": pl.col("winner") == "p1",
              "draw": pl.col("winner") == "draw"}
    reasons = sorted(set(b.get_column("reason").unique().to_list()) | set(v.get_column("reason").unique().to_list()))
    events |= {f"end_{r}": pl.col("reason") == r for r in reasons}
    rows = [_paired(b.select(e).to_series(), v.select(e).to_series(), name, alpha) for name, e in events.items()]
    mean_b, mean_v = b.get_column("length").mean(), v.get_column("length").mean()
    out = pl.DataFrame(rows)
    return out.with_columns(pl.lit(mean_b).alias("length_base"), pl.lit(mean_v).alias("length_variant"))


def compare_cells(baseline: pl.DataFrame, variant: pl.DataFrame, by: Sequence[str] = ("battlefield", "deck", "pairing"),
                  alpha: float = 0.05) -> pl.DataFrame:
    """First-seat win rate per cell (e.g. battlefield × deck × pairing), variant against baseline.

    Both frames come from the same grid on the same seed; rows pair by cell and ``game_index``.
    Columns: the cell keys, then :func:`compare_outcomes`' columns for ``first_seat_win``.
    """
    keys = [k for k in by if k in baseline.columns and k in variant.columns]
    rows = []
    for cell in baseline.select(keys).unique(maintain_order=True).iter_rows(named=True):
        match = pl.all_horizontal([pl.col(k) == v for k, v in cell.items()]) if keys else pl.lit(True)
        b, v = baseline.filter(match), variant.filter(match)
        common = set(b.get_column("game_index").to_list()) & set(v.get_column("game_index").to_list())
        if not common:
            continue
        keep = pl.col("game_index").is_in(sorted(common))
        out = compare_outcomes(b.filter(keep), v.filter(keep), alpha).filter(pl.col("metric") == "first_seat_win")
        rows.append(out.with_columns(*(pl.lit(val).alias(k) for k, val in cell.items())))
    if not rows:
        raise InputError("the two runs share no cell and games to compare")
    frame = pl.concat(rows, how="diagonal_relaxed")
    return frame.select(*keys, *[c for c in frame.columns if c not in keys])


def card_comparison(baseline: pl.DataFrame, variant: pl.DataFrame, keys: Sequence[str], cards_base: Any,
                    cards_variant: Any, alpha: float = 0.05) -> pl.DataFrame:
    """Win rate when drawn / played of the cards ``keys`` in both arms, with the two-proportion test."""
    if not keys:
        return pl.DataFrame()
    rb = card_rates(baseline, cards_base).filter(pl.col("key").is_in(list(keys)))
    rv = card_rates(variant, cards_variant).filter(pl.col("key").is_in(list(keys)))
    rows = []
    for rate in ("wr_drawn", "wr_played", "play_rate"):
        num = {"wr_drawn": "drawn", "wr_played": "played", "play_rate": "played"}[rate]
        for x, y in zip(rb.iter_rows(named=True), rv.iter_rows(named=True), strict=True):
            nb, nv = x[f"{rate}_n"], y[f"{rate}_n"]
            if not nb or not nv:
                continue
            kb, kv = round(x[rate] * nb), round(y[rate] * nv)
            t = two_proportion(kv, nv, kb, nb, alpha=alpha)
            rows.append({"key": x["key"], "metric": rate, "n_base": nb, "base": x[rate], "n_variant": nv,
                         "variant": y[rate], "diff": t.diff, "low": t.low, "high": t.high, "p_value": t.p_value,
                         "significant": t.significant, "counted": num})
    return pl.DataFrame(rows)


def _variant_params(params: dict[str, Any], changes: dict[str, Any] | None, card_edits: dict | None,
                    battlefield_edits: dict | None, directory: Path | None) -> dict[str, Any]:
    out = {**params, **(changes or {})}
    if card_edits:
        out["cards"] = str(edited_cards_csv(card_edits, params.get("cards"), directory))
    if battlefield_edits:
        out["battlefields"] = str(edited_battlefields_csv(battlefield_edits, params.get("battlefields"), directory))
    MODEL.resolve_params(out)
    return out


def what_if(params: dict[str, Any] | None = None, *, changes: dict[str, Any] | None = None,
            card_edits: dict[str, dict[str, Any]] | None = None,
            battlefield_edits: dict[str, dict[str, Any]] | None = None,
            agents: Sequence[str] = ("greedy", "greedy"), games: int = 2000, seed: int = 0,
            engine: str | None = None, workers: int = 1, alpha: float = 0.05, directory: Path | None = None,
            on_progress: Callable[[int, int], None] | None = None,
            should_stop: Callable[[], bool] | None = None) -> WhatIf:
    """Play baseline and variant on the same seeds and compare them.

    ``params``: the baseline parameters (e.g. ``{"battlefield": "free_steppe"}``); ``changes``:
    parameter overrides of the variant (e.g. ``{"start_wall": 20}``); ``card_edits`` /
    ``battlefield_edits``: edited data rows (see :func:`edited_cards_csv`).  A stopped run
    compares the games both arms finished.
    """
    params = dict(params or {})
    MODEL.resolve_params(params)
    variant = _variant_params(params, changes, card_edits, battlefield_edits, directory)
    if variant == params:
        raise InputError("the what-if changes nothing; give changes, card_edits or battlefield_edits")
    done = 0

    def tick(n: int) -> None:
        nonlocal done
        done += n
        if on_progress is not None:
            on_progress(done, 2 * games)

    base_frame = run_blocks(params, agents, games, seed, engine=engine, workers=workers, on_block=tick,
                            should_stop=should_stop)
    var_frame = run_blocks(variant, agents, games, seed, engine=engine, workers=workers, on_block=tick,
                           should_stop=should_stop)
    if base_frame is None or var_frame is None:
        raise InputError("the what-if was stopped before both arms finished a block of games")
    common = min(base_frame.height, var_frame.height)
    base_frame, var_frame = base_frame.head(common), var_frame.head(common)
    outcomes = compare_outcomes(base_frame, var_frame, alpha)
    cards_base = load_cards(params.get("cards") or CARDS_CSV)
    cards_var = load_cards(variant.get("cards") or CARDS_CSV)
    cards = card_comparison(base_frame, var_frame, list((card_edits or {}).keys()), cards_base, cards_var, alpha)
    return WhatIf(base_frame, var_frame, outcomes, cards, params, variant)


def what_if_chart(result: WhatIf | pl.DataFrame, title: str = "What-if: variant − baseline") -> Any:
    """The outcome differences with intervals, coloured by significance."""
    table = result.outcomes if isinstance(result, WhatIf) else result
    return charts.delta_chart(table, "metric", title=title, x_title="variant − baseline")


# -- auto-balance -------------------------------------------------------------------------------
@dataclass
class BalanceResult:
    """The outcome of :func:`auto_balance`.

    ``value`` is the estimate where the rate crosses ``target`` (linear interpolation between the
    two bracketing evaluations); ``value_low``/``value_high`` are where the upper and lower
    interval bounds cross it (the values compatible with the target); ``best`` is the evaluated
    value whose rate is nearest the target, with its interval in ``best_rate``/``best_low``/
    ``best_high`` and ``within`` = the target lies inside that interval.  ``points`` lists every
    evaluation (value, n, k, rate, low, high).  ``found`` is False when the target is not
    bracketed by the search range.
    """

    param: str
    target: float
    value: float | None
    value_low: float | None
    value_high: float | None
    best: float
    best_rate: float
    best_low: float
    best_high: float
    within: bool
    found: bool
    points: pl.DataFrame

    def summary(self) -> str:
        """One line for people."""
        if not self.found:
            return (f"{self.param}: no value in the searched range brings the rate to {self.target:.0%} "
                    f"(nearest: {self.best:g} at {self.best_rate:.1%} [{self.best_low:.1%}–{self.best_high:.1%}])")
        lo = "?" if self.value_low is None else f"{self.value_low:.2f}"
        hi = "?" if self.value_high is None else f"{self.value_high:.2f}"
        return (f"{self.param} ≈ {self.value:.2f} (values compatible with {self.target:.0%}: {lo}–{hi}); "
                f"best tried {self.best:g}: {self.best_rate:.1%} [{self.best_low:.1%}–{self.best_high:.1%}]"
                f"{' — target inside the interval' if self.within else ''}")


def _crossing(xs: list[float], ys: list[float], target: float) -> float | None:
    """First x where the piecewise-linear curve through (xs, ys) crosses ``target``."""
    for (x0, y0), (x1, y1) in zip(zip(xs, ys, strict=True), zip(xs[1:], ys[1:], strict=True), strict=False):
        if (y0 - target) == 0:
            return x0
        if (y0 - target) * (y1 - target) < 0:
            return x0 + (target - y0) * (x1 - x0) / (y1 - y0)
    if ys and ys[-1] == target:
        return xs[-1]
    return None


def auto_balance(response: Callable[[float], tuple[int, int]], low: float, high: float, *, target: float = 0.5,
                 integer: bool = True, max_evals: int = 10, param: str = "value",
                 confidence: float = 0.95) -> BalanceResult:
    """Search ``[low, high]`` for the value whose rate ``k/n = response(value)`` is ``target``.

    The response must be monotone (increasing or decreasing) in the value; the search evaluates
    both ends, then bisects the bracket (on integers when ``integer``) until it is one step wide
    or ``max_evals`` evaluations are spent.
    """
    if not low < high:
        raise InputError(f"auto-balance needs low < high, got {low!r}..{high!r}")
    if max_evals < 2:
        raise InputError("auto-balance needs at least 2 evaluations (the two ends)")
    seen: dict[float, tuple[int, int]] = {}

    def rate(x: float) -> float:
        if x not in seen:
            k, n = response(int(x) if integer else x)
            if n <= 0:
                raise InputError(f"auto-balance: no games at {param}={x}")
            seen[x] = (int(k), int(n))
        k, n = seen[x]
        return k / n

    lo, hi = (int(math.ceil(low)), int(math.floor(high))) if integer else (float(low), float(high))
    r_lo, r_hi = rate(lo), rate(hi)
    bracketed = (r_lo - target) * (r_hi - target) <= 0
    tol = 1 if integer else (hi - lo) / 2 ** max_evals
    while bracketed and hi - lo > tol and len(seen) < max_evals:
        mid = (lo + hi) // 2 if integer else (lo + hi) / 2
        r_mid = rate(mid)
        if (r_lo - target) * (r_mid - target) <= 0:
            hi, r_hi = mid, r_mid
        else:
            lo, r_lo = mid, r_mid
    return _balance_result(seen, target, bracketed, param, confidence)


def _balance_result(seen: dict[float, tuple[int, int]], target: float, bracketed: bool, param: str,
                    confidence: float) -> BalanceResult:
    xs = sorted(seen)
    ks = [seen[x][0] for x in xs]
    ns = [seen[x][1] for x in xs]
    rates = [k / n for k, n in zip(ks, ns, strict=True)]
    bounds = [wilson(k, n, confidence) for k, n in zip(ks, ns, strict=True)]
    lows, highs = [b[0] for b in bounds], [b[1] for b in bounds]
    points = pl.DataFrame({"value": [float(x) for x in xs], "n": ns, "k": ks, "rate": rates, "low": lows,
                           "high": highs})
    i = min(range(len(xs)), key=lambda j: (abs(rates[j] - target), j))
    value = _crossing(xs, rates, target) if bracketed else None
    ends = [c for c in (_crossing(xs, lows, target), _crossing(xs, highs, target)) if c is not None]
    compatible = [x for x, lo_, hi_ in zip(xs, lows, highs, strict=True) if lo_ <= target <= hi_]
    cands = ends + compatible + ([value] if value is not None else [])
    return BalanceResult(param, target, value, min(cands) if cands and value is not None else None,
                         max(cands) if cands and value is not None else None, float(xs[i]), rates[i], lows[i],
                         highs[i], lows[i] <= target <= highs[i], bracketed, points)


def first_seat_response(param: str, params: dict[str, Any] | None = None,
                        agents: Sequence[str] = ("greedy", "greedy"), games: int = 2000, seed: int = 0,
                        engine: str | None = None, workers: int = 1,
                        on_eval: Callable[[Any, int, int], None] | None = None) -> Callable[[Any], tuple[int, int]]:
    """A response for :func:`auto_balance`: first-seat wins ``(k, n)`` with ``param`` set to a value.

    Every value plays the same seeds (common random numbers), so the curve is smooth in the value.
    """
    MODEL.param(param)
    base = dict(params or {})

    def response(value: Any) -> tuple[int, int]:
        frame = run_blocks({**base, param: value}, agents, games, seed, engine=engine, workers=workers)
        k = int(frame.select(first_seat_won().sum()).item())
        if on_eval is not None:
            on_eval(value, k, frame.height)
        return k, frame.height

    return response


def auto_balance_param(param: str, low: float, high: float, params: dict[str, Any] | None = None, *,
                       agents: Sequence[str] = ("greedy", "greedy"), games: int = 2000, seed: int = 0,
                       target: float = 0.5, max_evals: int = 8, engine: str | None = None, workers: int = 1,
                       on_eval: Callable[[Any, int, int], None] | None = None) -> BalanceResult:
    """Auto-balance a declared numeric duel parameter (e.g. ``start_wall``) on simulated games."""
    spec = MODEL.param(param)
    if spec.kind not in (int, float):
        raise InputError(f"auto-balance needs a numeric parameter; {param!r} is {spec.kind.__name__}")
    response = first_seat_response(param, params, agents, games, seed, engine, workers, on_eval)
    return auto_balance(response, low, high, target=target, integer=spec.kind is int, max_evals=max_evals,
                        param=param)


def balance_chart(result: BalanceResult, title: str = "") -> Any:
    """The evaluated values with their first-seat win rate intervals and the target line."""
    data = result.points.with_columns(pl.col("value").alias(result.param))
    return charts.rate_chart(data, result.param, reference=result.target,
                             title=title or f"Auto-balance of {result.param}", y_title="first-seat win rate")


# -- editing a card's amounts (for sliders) -----------------------------------------------------
def effect_amounts(text: str) -> list[tuple[str, int]]:
    """The numeric amounts of an effect in reading order, each with its operation's text."""
    effect = parse_effect(text)
    out = []
    for st in effect.statements:
        for op in (*st.then, *st.orelse):
            if op.kind in (ADD, DAMAGE, STEAL):
                out.append((format_op(op), abs(op.amount)))
    return out


def with_amounts(text: str, amounts: Sequence[int]) -> str:
    """The effect ``text`` with its amounts (as listed by :func:`effect_amounts`) replaced; signs kept."""
    effect = parse_effect(text)
    values = iter(int(a) for a in amounts)

    def swap(op: Op) -> Op:
        if op.kind not in (ADD, DAMAGE, STEAL):
            return op
        new = next(values, abs(op.amount))
        if new < 0:
            raise InputError(f"amount of {format_op(op)!r} must be >= 0, got {new}")
        return op._replace(amount=-new if op.amount < 0 else new)

    statements = tuple(st._replace(then=tuple(map(swap, st.then)), orelse=tuple(map(swap, st.orelse)))
                       for st in effect.statements)
    return format_effect(effect._replace(statements=statements))
