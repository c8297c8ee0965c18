"""Game-agnostic outcome metrics (in the spirit of Browne's / Ludii's game evaluation metrics).

Every function takes a result frame with the shared columns (``winner``, ``reason``, ``length``,
``first_seat``, ``agent_p1``..) and an optional ``by`` list of grouping columns, and returns one
row per group.  Each rate ``m`` comes as ``m`` (null when there is nothing to count), ``m_low``,
``m_high`` (Wilson interval) and ``m_n`` (the games it counts), so no rate travels without its
sample size and uncertainty.

Definitions:

* first-mover advantage: win rate of the seat that moved first, among decisive games
  (``first_mover``) and among all games (``first_mover_all``); ``first_mover_p`` is the exact
  binomial p-value against a fair share (1 / seats).  Games with a null ``first_seat``
  (simultaneous play) are not counted.
* first seat score: the first seat's wins plus half its draws over the games with a first seat
  (``first_seat_score``, the balance score every report, study and page reads, a draw counting ½;
  interval: Wilson on that count), with the share of those games drawn beside it
  (``first_seat_draws``).  ``first_mover_all`` counts a draw as a loss: a win rate, not a score.
* balance: 1 − (largest − smallest win rate over the seats), over all games; 1 is perfectly even.
* completion: share of games with a winner reached by the rules, i.e. not a draw and not ended
  by a limit reason.
* draws (drawishness): share of games with ``winner == "draw"`` (limit draws included).
* timeouts: share of games whose ``reason`` is a limit reason (default: the reasons each game in
  the frame's ``game`` column declares as limits, ``GameModel.limit_reasons``).
* duration: n, mean, sd, min, quantiles and max of ``length``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import polars as pl

from workbench.core.errors import InputError
from workbench.core.model import SEAT_NAMES, get_game
from workbench.core.stats.rates import binom_pvalue, grouped, wilson_exprs

__all__ = [
    "LIMIT_REASONS",
    "balance",
    "completion",
    "draws",
    "duration",
    "end_reasons",
    "first_mover",
    "seat_win_rates",
    "seats",
    "summary",
    "timeouts",
]

LIMIT_REASONS = frozenset({"turn_limit"})  # the core loop's own limit; games declare theirs
_QUANTILES = (0.1, 0.5, 0.9)


def _need(frame: pl.DataFrame, *columns: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"result frame lacks columns {missing}; columns: {', '.join(frame.columns)}")


def _keys(by: str | Sequence[str] | None) -> list[str]:
    return [] if by is None else [by] if isinstance(by, str) else list(by)


def seats(frame: pl.DataFrame) -> list[str]:
    """Seats in the frame: from the ``agent_pN`` columns, else from the ``winner`` values."""
    found = [s for s in SEAT_NAMES if f"agent_{s}" in frame.columns]
    if found:
        return found
    _need(frame, "winner")
    values = set(frame.get_column("winner").drop_nulls().unique().to_list())
    return [s for s in SEAT_NAMES if s in values] or ["p1", "p2"]


def _count(name: str, event: pl.Expr) -> list[pl.Expr]:
    """Aggregations counting a nullable boolean event: ``name_n`` (non-null) and ``name_k``."""
    return [event.is_not_null().sum().cast(pl.Int64).alias(f"{name}_n"),
            event.cast(pl.Int64).sum().fill_null(0).cast(pl.Int64).alias(f"{name}_k")]


def _finish(frame: pl.DataFrame, names: Iterable[str], confidence: float) -> pl.DataFrame:
    """Turn ``name_n``/``name_k`` counts into ``name``, ``name_low``, ``name_high``, ``name_n``."""
    for name in names:
        low, high = wilson_exprs(f"{name}_k", f"{name}_n", confidence)
        frame = frame.with_columns(
            pl.when(pl.col(f"{name}_n") > 0).then(pl.col(f"{name}_k") / pl.col(f"{name}_n")).alias(name),
            low.alias(f"{name}_low"), high.alias(f"{name}_high"),
        )
    return frame


def _order(frame: pl.DataFrame, keys: list[str], names: Sequence[str], extra: Sequence[str] = ()) -> pl.DataFrame:
    cols = list(keys) + [c for n in names for c in (n, f"{n}_low", f"{n}_high", f"{n}_n")] + list(extra)
    return frame.select(cols)


FIRST_MOVER_RATES = ("first_mover", "first_mover_all", "first_seat_score", "first_seat_draws")


def _first_mover_exprs() -> tuple[list[pl.Expr], pl.Expr]:
    won = pl.col("winner") == pl.col("first_seat")
    has_first = pl.col("first_seat").is_not_null() & pl.col("winner").is_not_null()
    decisive = has_first & (pl.col("winner") != "draw")
    drawn = pl.col("winner") == "draw"
    exprs = _count("first_mover", pl.when(decisive).then(won)) + _count("first_mover_all", pl.when(has_first).then(won))
    # the score's count: a win 1, a draw ½ (a float count; Wilson reads it as it reads a whole one)
    points = pl.when(has_first).then(won.cast(pl.Float64) + drawn.cast(pl.Float64) / 2)
    exprs += [points.is_not_null().sum().cast(pl.Int64).alias("first_seat_score_n"),
              points.sum().fill_null(0.0).cast(pl.Float64).alias("first_seat_score_k")]
    exprs += _count("first_seat_draws", pl.when(has_first).then(drawn))
    return exprs, won


def _with_first_mover_p(frame: pl.DataFrame, n_seats: int) -> pl.DataFrame:
    p = [binom_pvalue(int(k), int(n), 1 / n_seats) if n else None
         for k, n in zip(frame.get_column("first_mover_k").to_list(), frame.get_column("first_mover_n").to_list(),
                         strict=True)]
    return frame.with_columns(pl.Series("first_mover_p", p, dtype=pl.Float64))


def first_mover(frame: pl.DataFrame, by: str | Sequence[str] | None = None, confidence: float = 0.95) -> pl.DataFrame:
    """The first seat's score and draws, then its win rate among decisive games and among all games.

    ``first_seat_score`` (wins and half the draws) and ``first_seat_draws`` (the share of its games
    drawn) come first, then ``first_mover`` and ``first_mover_all`` and ``first_mover_p``; each rate
    with ``_low``/``_high``/``_n``.
    """
    _need(frame, "winner", "first_seat")
    keys = _keys(by)
    exprs, _ = _first_mover_exprs()
    out = _with_first_mover_p(grouped(frame, keys, exprs), len(seats(frame)))
    out = _finish(out, FIRST_MOVER_RATES, confidence)
    four = [[n, f"{n}_low", f"{n}_high", f"{n}_n"] for n in FIRST_MOVER_RATES]
    return out.select(*keys, *four[2], *four[3], *four[0], *four[1], "first_mover_p")  # the score first


def seat_win_rates(frame: pl.DataFrame, by: str | Sequence[str] | None = None,
                   confidence: float = 0.95) -> pl.DataFrame:
    """Long table: per group and seat, the seat's win rate over all games.

    Columns ``by``, ``seat``, ``n``, ``k``, ``rate``, ``low``, ``high``; a seat without an agent in a
    group (fewer players) is left out.
    """
    _need(frame, "winner")
    keys = _keys(by)
    parts = []
    for s in seats(frame):
        event = pl.col("winner") == s
        if f"agent_{s}" in frame.columns:  # seat absent in this game (fewer players): not counted
            event = pl.when(pl.col(f"agent_{s}").is_not_null()).then(event)
        counted = grouped(frame, keys, _count("win", event)).with_columns(pl.lit(s).alias("seat"))
        parts.append(counted.filter(pl.col("win_n") > 0))
    out = _finish(pl.concat(parts, how="vertical"), ("win",), confidence)
    out = out.select(*keys, "seat", pl.col("win_n").alias("n"), pl.col("win_k").alias("k"),
                     pl.col("win").alias("rate"), pl.col("win_low").alias("low"), pl.col("win_high").alias("high"))
    return out.sort(keys + ["seat"], nulls_last=True)


def _balance_exprs(frame: pl.DataFrame) -> list[pl.Expr]:
    rates = []
    for s in seats(frame):
        rate = (pl.col("winner") == s).mean()
        if f"agent_{s}" in frame.columns:
            rate = pl.when(pl.col(f"agent_{s}").is_not_null().any()).then(rate)
        rates.append(rate)
    gap = pl.max_horizontal(rates) - pl.min_horizontal(rates)
    return [(1 - gap).alias("balance"), pl.len().cast(pl.Int64).alias("balance_n")]


def balance(frame: pl.DataFrame, by: str | Sequence[str] | None = None) -> pl.DataFrame:
    """Balance = 1 − (largest − smallest seat win rate), with the number of games ``balance_n``."""
    _need(frame, "winner")
    keys = _keys(by)
    return grouped(frame, keys, _balance_exprs(frame)).select(*keys, "balance", "balance_n")


def _declared_limits(game: str) -> tuple[str, ...]:
    try:
        return get_game(game).limit_reasons
    except InputError:  # a frame of a game that is not registered here
        return tuple(LIMIT_REASONS)


def _limit_set(limit_reasons: Iterable[str] | None, frame: pl.DataFrame | None = None) -> list[str]:
    if limit_reasons is None:
        if frame is None or "game" not in frame.columns:
            return sorted(LIMIT_REASONS)
        games = frame.get_column("game").drop_nulls().unique().to_list()
        return sorted({r for g in games for r in _declared_limits(g)} or LIMIT_REASONS)
    if isinstance(limit_reasons, str):
        return [limit_reasons]
    return sorted(set(limit_reasons))


def _outcome_exprs(limit: list[str]) -> dict[str, pl.Expr]:
    limited = pl.col("reason").is_in(limit)
    return {
        "completion": (pl.col("winner") != "draw") & ~limited,
        "draws": pl.col("winner") == "draw",
        "timeouts": limited,
    }


def _rate_metric(frame: pl.DataFrame, by: str | Sequence[str] | None, name: str, confidence: float,
                 limit_reasons: Iterable[str] | None) -> pl.DataFrame:
    _need(frame, "winner", "reason")
    keys = _keys(by)
    event = _outcome_exprs(_limit_set(limit_reasons, frame))[name].fill_null(False)
    out = _finish(grouped(frame, keys, _count(name, event)), (name,), confidence)
    return _order(out, keys, (name,))


def completion(frame: pl.DataFrame, by: str | Sequence[str] | None = None, confidence: float = 0.95,
               limit_reasons: Iterable[str] | None = None) -> pl.DataFrame:
    """Share of games with a winner reached by the rules (no draw, no limit reason)."""
    return _rate_metric(frame, by, "completion", confidence, limit_reasons)


def draws(frame: pl.DataFrame, by: str | Sequence[str] | None = None, confidence: float = 0.95) -> pl.DataFrame:
    """Drawishness: share of games won by nobody (``winner == "draw"``)."""
    return _rate_metric(frame, by, "draws", confidence, None)


def timeouts(frame: pl.DataFrame, by: str | Sequence[str] | None = None, confidence: float = 0.95,
             limit_reasons: Iterable[str] | None = None) -> pl.DataFrame:
    """Share of games ended by a limit (``reason`` in ``limit_reasons``, default: the games' declared limits)."""
    return _rate_metric(frame, by, "timeouts", confidence, limit_reasons)


def _q_name(q: float) -> str:
    return "length_median" if q == 0.5 else f"length_q{round(100 * q):02d}"


def _duration_exprs(quantiles: Sequence[float]) -> list[pl.Expr]:
    for q in quantiles:
        if not 0 <= q <= 1:
            raise InputError(f"quantiles must lie in [0, 1], got {q!r}")
    length = pl.col("length").cast(pl.Float64)
    return [pl.col("length").is_not_null().sum().cast(pl.Int64).alias("length_n"),
            length.mean().alias("length_mean"), length.std().alias("length_sd"),
            length.min().alias("length_min"),
            *[length.quantile(q, interpolation="linear").alias(_q_name(q)) for q in quantiles],
            length.max().alias("length_max")]


def duration(frame: pl.DataFrame, by: str | Sequence[str] | None = None,
             quantiles: Sequence[float] = _QUANTILES) -> pl.DataFrame:
    """Game length: ``length_n``, mean, sd, min, the given quantiles (0.5 → ``length_median``), max."""
    _need(frame, "length")
    return grouped(frame, _keys(by), _duration_exprs(quantiles))


def end_reasons(frame: pl.DataFrame, by: str | Sequence[str] | None = None, confidence: float = 0.95) -> pl.DataFrame:
    """Long table: per group and ``reason``, the share of games (``n``, ``k``, ``rate``, ``low``, ``high``)."""
    _need(frame, "reason")
    keys = _keys(by)
    counts = (frame.group_by(keys + ["reason"]).agg(pl.len().cast(pl.Int64).alias("k"))
              .with_columns((pl.col("k").sum().over(keys) if keys else pl.col("k").sum()).alias("n")))
    low, high = wilson_exprs("k", "n", confidence)
    return (counts.with_columns((pl.col("k") / pl.col("n")).alias("rate"), low.alias("low"), high.alias("high"))
            .select(*keys, "reason", "n", "k", "rate", "low", "high").sort(keys + ["reason"], nulls_last=True))


def summary(frame: pl.DataFrame, by: str | Sequence[str] | None = None, confidence: float = 0.95,
            limit_reasons: Iterable[str] | None = None, quantiles: Sequence[float] = _QUANTILES) -> pl.DataFrame:
    """All metrics per group in one frame.

    Columns: ``by``, ``games``, the first seat's score and draws, first-mover (decisive and all games,
    with ``first_mover_p``; :func:`first_mover`), ``balance``/``balance_n``, completion, draws,
    timeouts (each rate with ``_low``, ``_high``, ``_n``) and the duration columns of :func:`duration`.
    """
    _need(frame, "winner", "reason", "length", "first_seat")
    keys = _keys(by)
    fm_exprs, _ = _first_mover_exprs()
    outcome = _outcome_exprs(_limit_set(limit_reasons, frame))
    exprs = [pl.len().cast(pl.Int64).alias("games"), *fm_exprs, *_balance_exprs(frame)]
    for name, event in outcome.items():
        exprs += _count(name, event.fill_null(False))
    exprs += _duration_exprs(quantiles)
    out = _with_first_mover_p(grouped(frame, keys, exprs), len(seats(frame)))
    rates = (*FIRST_MOVER_RATES, "completion", "draws", "timeouts")
    out = _finish(out, rates, confidence)
    length_cols = [c for c in out.columns if c.startswith("length_")]
    cols = (keys + ["games"] + [c for n in rates[2:4] for c in (n, f"{n}_low", f"{n}_high", f"{n}_n")]
            + [c for n in rates[:2] for c in (n, f"{n}_low", f"{n}_high", f"{n}_n")]
            + ["first_mover_p", "balance", "balance_n"]
            + [c for n in rates[4:] for c in (n, f"{n}_low", f"{n}_high", f"{n}_n")] + length_cols)
    return out.select(cols)
