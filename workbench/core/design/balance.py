"""Auto-balance: the value of one numeric game parameter that brings a balance score to a target.

:func:`search` brackets and bisects any monotone response ``value → (wins, n)`` or ``(wins, n,
draws)``: the rate it bisects is the balance score, wins and half the draws over n (a draw counts
half), shown with the draws beside it.  :func:`auto_balance` measures the response of a declared
numeric parameter of any registered game: the score of the first seat (or of a named seat) in
games played by :func:`workbench.core.sim.runner.simulate` at each value.  Every value plays the
same games (same master seed: common random numbers), so the curve is not blurred by
different deals and moves only where the parameter changes a game.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from workbench.core.errors import InputError, RunInterrupted
from workbench.core.model import GameModel, Param, get_game
from workbench.core.present import charts
from workbench.core.sim.runner import simulate
from workbench.core.stats.rates import wilson

__all__ = ["BalanceResult", "auto_balance", "balance_chart", "search", "win_rate_response"]

Response = Callable[[Any], tuple[int, ...]]  # (wins, n) or (wins, n, draws)


@dataclass
class BalanceResult:
    """The outcome of :func:`search` / :func:`auto_balance`.

    ``value`` is the estimate where the rate crosses ``target`` (linear interpolation between the
    two bracketing evaluations); ``value_low``/``value_high`` are where the upper and lower
    interval bounds cross it (the values compatible with the target); ``best`` is the evaluated
    value whose rate is nearest the target, with its interval in ``best_rate``/``best_low``/
    ``best_high`` and ``within`` = the target lies inside that interval.  ``points`` lists every
    evaluation (value, n, k: the wins, draws, rate: the score — wins and half the draws over n —
    with its 95 % interval low/high).  ``found`` is False when the target is not bracketed by the
    search range.  ``measure`` names the rate (e.g. "first seat score").
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
    measure: str = "rate"

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


# -- the search -----------------------------------------------------------------------------------
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


def search(response: Response, low: float, high: float, *, target: float = 0.5, integer: bool = True,
           max_evals: int = 10, param: str = "value", confidence: float = 0.95, measure: str = "rate",
           should_stop: Callable[[], bool] | None = None) -> BalanceResult:
    """Search ``[low, high]`` for the value whose score is ``target``.

    ``response(value)`` is ``(wins, n)`` or ``(wins, n, draws)``; the score is ``(wins + draws / 2) / n``
    (a draw counts half).

    The response must be monotone (increasing or decreasing) in the value; the search evaluates
    both ends, then bisects the bracket (on integers when ``integer``) until it is one step wide
    or ``max_evals`` evaluations are spent.  Once ``should_stop()`` turns true (or a run inside
    the response is interrupted) no new value is tried and the result covers the values done.
    """
    if not low < high:
        raise InputError(f"auto-balance needs low < high, got {low!r}..{high!r}")
    if max_evals < 2:
        raise InputError("auto-balance needs at least 2 evaluations (the two ends)")
    seen: dict[float, tuple[int, int, int]] = {}

    def rate(x: float) -> float:
        if x not in seen:
            k, n, *rest = response(int(x) if integer else x)
            if n <= 0:
                raise InputError(f"auto-balance: no games at {param}={x}")
            seen[x] = (int(k), int(n), int(rest[0]) if rest else 0)
        k, n, d = seen[x]
        return (k + d / 2) / n

    lo, hi = (int(math.ceil(low)), int(math.floor(high))) if integer else (float(low), float(high))
    try:
        r_lo, r_hi = rate(lo), rate(hi)
    except RunInterrupted:
        raise InputError("auto-balance was stopped before both ends of the range were evaluated") from None
    bracketed = (r_lo - target) * (r_hi - target) <= 0
    tol = 1 if integer else (hi - lo) / 2 ** max_evals
    while bracketed and hi - lo > tol and len(seen) < max_evals:
        if should_stop is not None and should_stop():
            break
        mid = (lo + hi) // 2 if integer else (lo + hi) / 2
        try:
            r_mid = rate(mid)
        except RunInterrupted:
            break
        if (r_lo - target) * (r_mid - target) <= 0:
            hi, r_hi = mid, r_mid
        else:
            lo, r_lo = mid, r_mid
    return _result(seen, target, bracketed, param, confidence, measure)


def _result(seen: dict[float, tuple[int, int, int]], target: float, bracketed: bool, param: str,
            confidence: float, measure: str) -> BalanceResult:
    xs = sorted(seen)
    ks = [seen[x][0] for x in xs]
    ns = [seen[x][1] for x in xs]
    ds = [seen[x][2] for x in xs]
    scores = [k + d / 2 for k, d in zip(ks, ds, strict=True)]
    rates = [s / n for s, n in zip(scores, ns, strict=True)]
    bounds = [wilson(s, n, confidence) for s, n in zip(scores, ns, strict=True)]
    lows, highs = [float(b[0]) for b in bounds], [float(b[1]) for b in bounds]
    points = pl.DataFrame({"value": [float(x) for x in xs], "n": ns, "k": ks, "draws": ds, "rate": rates,
                           "low": lows, "high": highs})
    i = min(range(len(xs)), key=lambda j: (abs(rates[j] - target), j))
    value = _crossing(xs, rates, target) if bracketed else None
    ends = [c for c in (_crossing(xs, lows, target), _crossing(xs, highs, target)) if c is not None]
    compatible = [x for x, lo_, hi_ in zip(xs, lows, highs, strict=True) if lo_ <= target <= hi_]
    cands = ends + compatible + ([value] if value is not None else [])
    return BalanceResult(param, target, value, min(cands) if cands and value is not None else None,
                         max(cands) if cands and value is not None else None, float(xs[i]), rates[i], lows[i],
                         highs[i], lows[i] <= target <= highs[i], bracketed, points, measure)


# -- a game's response ----------------------------------------------------------------------------
def _numeric_param(model: GameModel, param: str) -> Param:
    spec = model.param(param)
    if spec.kind not in (int, float):
        raise InputError(f"auto-balance needs a numeric parameter; {model.name} parameter {param!r} is "
                         f"{spec.kind.__name__}; allowed values: {spec.allowed()}")
    return spec


def _check_bound(model: GameModel, spec: Param, name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(f"auto-balance of {model.name} parameter {spec.name!r}: {name} must be a number, got "
                         f"{value!r}; allowed: {spec.allowed()}")
    if (spec.low is not None and value < spec.low) or (spec.high is not None and value > spec.high):
        raise InputError(f"auto-balance of {model.name} parameter {spec.name!r}: {name}={value!r} is outside its "
                         f"declared range; allowed: {spec.allowed()}")


def _check_params_and_seat(model: GameModel, params: dict[str, Any], seat: str | None) -> None:
    resolved = model.resolve_params(params)  # bad fixed parameters fail before any game is played
    if seat is None:
        return
    seats = [f"p{i + 1}" for i in range(model.players(model.make_config(resolved)))]
    if seat not in seats:
        raise InputError(f"auto-balance: {model.name} has no seat {seat!r}; allowed: {', '.join(seats)}")


def _wins(frame: pl.DataFrame, model: GameModel, seat: str | None) -> int:
    if seat is not None:
        return int((frame.get_column("winner") == seat).sum())
    first = frame.get_column("first_seat")
    if first.null_count() == frame.height:
        raise InputError(f"auto-balance: {model.name} games have no first seat (simultaneous play); name a seat, "
                         "e.g. seat='p1'")
    return int((frame.get_column("winner") == first).fill_null(False).sum())


def _draws(frame: pl.DataFrame) -> int:
    """Games without a winner: a draw counts half to every seat's score."""
    return int((frame.get_column("winner") == "draw").sum()) if "winner" in frame.columns else 0


def win_rate_response(game: str | GameModel, param: str, params: dict[str, Any] | None = None, *,
                      seat: str | None = None, agents: Any = None, games: int = 2000, seed: int = 0,
                      engine: str | None = None, workers: int = 1,
                      on_eval: Callable[[Any, int, int], None] | None = None,
                      on_progress: Callable[[int], None] | None = None,
                      should_stop: Callable[[], bool] | None = None) -> Response:
    """A response for :func:`search`: the wins, games and draws ``(k, n, draws)`` of the first seat (or ``seat``).

    Every value plays games ``0..games-1`` on master seed ``seed`` (common random numbers).
    ``on_eval(value, k, n)`` follows each finished value, ``on_progress(n)`` each finished chunk;
    ``should_stop`` interrupts the run in progress (see :func:`workbench.core.sim.runner.simulate`).
    """
    model = get_game(game)
    base = dict(params or {})
    model.param(param)
    _check_params_and_seat(model, base, seat)

    def response(value: Any) -> tuple[int, int]:
        frame = simulate(game, games, params={**base, param: value}, agents=agents, seed=seed, engine=engine,
                         workers=workers, progress=False, on_progress=on_progress, should_stop=should_stop)
        k = _wins(frame, model, seat)
        if on_eval is not None:
            on_eval(value, k, frame.height)
        return k, frame.height, _draws(frame)

    return response


def auto_balance(game: str | GameModel, param: str, low: float, high: float, params: dict[str, Any] | None = None,
                 *, seat: str | None = None, agents: Sequence[str] | str | None = None, games: int = 2000,
                 seed: int = 0, target: float = 0.5, max_evals: int = 8, engine: str | None = None,
                 workers: int = 1, confidence: float = 0.95, on_eval: Callable[[Any, int, int], None] | None = None,
                 on_progress: Callable[[int], None] | None = None,
                 should_stop: Callable[[], bool] | None = None) -> BalanceResult:
    """Search the declared numeric parameter ``param`` of ``game`` in ``[low, high]`` for a score of ``target``.

    The score is the first seat's (or ``seat``'s) wins and half its draws over all games, with
    the other ``params`` fixed, ``games`` games per value on master seed ``seed``; ``agents``
    default to the game's.  An integer parameter is searched on integers.  ``low``/``high``
    must lie in the parameter's declared range.
    """
    model = get_game(game)
    spec = _numeric_param(model, param)
    _check_bound(model, spec, "low", low)
    _check_bound(model, spec, "high", high)
    response = win_rate_response(model, param, params, seat=seat, agents=agents, games=games, seed=seed,
                                 engine=engine, workers=workers, on_eval=on_eval, on_progress=on_progress,
                                 should_stop=should_stop)
    measure = f"{seat} score" if seat else "first seat score"
    return search(response, low, high, target=target, integer=spec.kind is int, max_evals=max_evals, param=param,
                  confidence=confidence, measure=measure, should_stop=should_stop)


def balance_chart(result: BalanceResult, title: str = "") -> Any:
    """The evaluated values with their rate intervals and the target line."""
    data = result.points.with_columns(pl.col("value").alias(result.param))
    return charts.rate_chart(data, result.param, reference=result.target,
                             title=title or f"Auto-balance of {result.param}", y_title=result.measure)
