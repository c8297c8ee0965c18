"""Generic chart builders: ``frame -> altair chart``, shared by every game, report and widget.

Each builder takes a polars frame that already holds what it draws (rates with ``low``/``high``
from :mod:`workbench.core.stats`, raw lengths, counts) and returns an altair chart.  Builders
that summarise raw rows (histogram, share bars) aggregate in polars first, so a chart of a
million games stays a small spec.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl

from workbench.core.errors import InputError
from workbench.core.lazy import lazy

alt = lazy("altair")  # imported when the first chart is drawn (about 2 s)

__all__ = ["delta_chart", "histogram", "rate_chart", "scatter", "share_bars"]

SIGNIFICANT_COLOURS = ("#d62728", "#7f7f7f")  # significant, not significant


def _need(frame: pl.DataFrame, *columns: str | None) -> None:
    missing = [c for c in columns if c is not None and c not in frame.columns]
    if missing:
        raise InputError(f"chart needs columns {missing}; the frame has: {', '.join(frame.columns)}")


def _nominal(frame: pl.DataFrame, column: str) -> str:
    """Altair shorthand ``col:O`` for numeric keys (kept in order), ``col:N`` otherwise."""
    return f"{column}:O" if frame.schema[column].is_numeric() else f"{column}:N"


def _props(chart: Any, title: str, width: int | None = None, height: int | None = None) -> Any:
    props: dict[str, Any] = {}
    if title:
        props["title"] = title
    if width is not None:
        props["width"] = width
    if height is not None:
        props["height"] = height
    return chart.properties(**props) if props else chart


def rate_chart(frame: pl.DataFrame, x: str, *, rate: str = "rate", low: str = "low", high: str = "high",
               n: str | None = "n", color: str | None = None, facet: str | None = None,
               reference: float | None = 0.5, title: str = "", y_title: str = "rate",
               zoom: bool = False) -> alt.TopLevelMixin:
    """Rates as points with interval error bars, per category ``x``.

    ``color`` splits each category into side-by-side points, ``facet`` draws one panel per value,
    ``reference`` draws a dashed line (0.5 = a fair seat; ``None`` for none).  ``zoom`` fits the
    rate axis to the intervals and the reference line (whole percents, a point of margin) instead
    of starting it at 0, so rates of 52 % and 57 % do not sit on one line.
    """
    _need(frame, x, rate, low, high, color, facet)
    cols = list(dict.fromkeys(c for c in (x, rate, low, high, n if n in frame.columns else None, color, facet)
                              if c is not None))
    data = frame.select(cols)
    tooltip = [alt.Tooltip(_nominal(data, x)), alt.Tooltip(f"{rate}:Q", format=".1%"),
               alt.Tooltip(f"{low}:Q", format=".1%"), alt.Tooltip(f"{high}:Q", format=".1%")]
    if n in data.columns:
        tooltip.append(alt.Tooltip(f"{n}:Q", format=","))
    enc: dict[str, Any] = {"x": alt.X(_nominal(data, x), title=x)}
    if color is not None:
        enc["color"] = alt.Color(_nominal(data, color), title=color)
        enc["xOffset"] = alt.XOffset(_nominal(data, color))
        tooltip.append(alt.Tooltip(_nominal(data, color)))
    domain = _zoomed_domain(data, low, high, reference) if zoom else None
    scale = alt.Scale(domain=domain, zero=False, nice=False) if domain else alt.Undefined
    base = alt.Chart()
    points = base.mark_point(filled=True, size=60).encode(
        y=alt.Y(f"{rate}:Q", title=y_title, axis=alt.Axis(format="%"), scale=scale), tooltip=tooltip, **enc)
    bars = base.mark_errorbar(ticks=True).encode(
        y=alt.Y(f"{low}:Q", title=y_title, scale=scale), y2=alt.Y2(f"{high}:Q"), **enc)
    layers = [bars, points]
    if reference is not None:
        layers.append(base.mark_rule(strokeDash=[4, 4], color="gray").encode(y=alt.datum(reference)))
    chart = alt.layer(*layers, data=data)
    if facet is not None:
        chart = chart.facet(column=alt.Column(_nominal(data, facet), title=facet))
    return _props(chart, title)


def _zoomed_domain(data: pl.DataFrame, low: str, high: str, reference: float | None) -> list[float] | None:
    """``[lo, hi]`` holding every interval and the reference, widened by a point and rounded out to whole percents."""
    values = [v for v in (*data.get_column(low).to_list(), *data.get_column(high).to_list(), reference)
              if v is not None and math.isfinite(v)]
    if not values:
        return None
    lo, hi = min(values), max(values)
    return [max(0.0, math.floor(100 * lo - 1) / 100), min(1.0, math.ceil(100 * hi + 1) / 100)]


def _bin_edges(values: np.ndarray, bins: int, integer: bool) -> np.ndarray:
    lo, hi = float(values.min()), float(values.max())
    if integer:
        width = max(1, int(np.ceil((hi - lo + 1) / bins)))
        return lo + width * np.arange(int(np.ceil((hi - lo + 1) / width)) + 1) - 0.5
    if hi == lo:
        hi = lo + 1
    return np.linspace(lo, hi, bins + 1)


def histogram(frame: pl.DataFrame, column: str = "length", *, bins: int = 30, color: str | None = None,
              normalize: bool = False, title: str = "") -> alt.Chart:
    """Histogram of a numeric column (binned in polars), optionally overlaid per ``color`` group.

    Integer columns get integer-wide bins centred on whole numbers.  ``normalize`` shows the
    share of each group instead of counts (compare groups of different sizes).
    """
    _need(frame, column, color)
    if isinstance(bins, bool) or not isinstance(bins, int) or bins <= 0:
        raise InputError(f"bins must be a positive integer, got {bins!r}")
    values = frame.get_column(column).drop_nulls()
    if values.len() == 0:
        raise InputError(f"histogram: column {column!r} has no values")
    integer = values.dtype.is_integer()
    edges = _bin_edges(values.cast(pl.Float64).to_numpy(), bins, integer)
    width = edges[1] - edges[0]
    keys = [color] if color else []
    idx = ((pl.col(column).cast(pl.Float64) - edges[0]) / width).floor().clip(0, len(edges) - 2).cast(pl.Int64)
    counted = (frame.filter(pl.col(column).is_not_null())
               .group_by(keys + [idx.alias("bin")]).agg(pl.len().cast(pl.Int64).alias("count"))
               .sort(keys + ["bin"]))
    total = pl.col("count").sum().over(keys) if keys else pl.col("count").sum()
    data = counted.with_columns(
        (edges[0] + pl.col("bin") * width).alias("bin_start"),
        (edges[0] + (pl.col("bin") + 1) * width).alias("bin_end"),
        (pl.col("count") / total).alias("share"),
    ).drop("bin")
    y = alt.Y("share:Q", title="share of games", axis=alt.Axis(format="%"), stack=None) if normalize \
        else alt.Y("count:Q", title="games", stack=None)
    enc: dict[str, Any] = {}
    tooltip = [alt.Tooltip("bin_start:Q"), alt.Tooltip("bin_end:Q"), alt.Tooltip("count:Q", format=","),
               alt.Tooltip("share:Q", format=".1%")]
    if color:
        enc["color"] = alt.Color(_nominal(data, color), title=color)
        tooltip.insert(0, alt.Tooltip(_nominal(data, color)))
    chart = alt.Chart(data).mark_bar(opacity=0.6 if color else 1.0).encode(
        x=alt.X("bin_start:Q", bin="binned", title=column), x2="bin_end:Q", y=y, tooltip=tooltip, **enc)
    return _props(chart, title)


def share_bars(frame: pl.DataFrame, x: str, category: str, *, count: str | None = None,
               title: str = "") -> alt.Chart:
    """Stacked bars of the share of each ``category`` (e.g. end reason) per ``x``.

    Rows are counted, or summed from ``count`` when the frame is already aggregated.
    """
    _need(frame, x, category, count)
    weight = pl.col(count).sum() if count else pl.len()
    data = (frame.group_by([x, category]).agg(weight.cast(pl.Int64).alias("count"))
            .with_columns(pl.col("count").sum().over(x).alias("n"))
            .with_columns((pl.col("count") / pl.col("n")).alias("share"))
            .sort([x, category], nulls_last=True))
    chart = alt.Chart(data).mark_bar().encode(
        x=alt.X(_nominal(data, x), title=x),
        y=alt.Y("share:Q", stack="normalize", title="share", axis=alt.Axis(format="%")),
        color=alt.Color(_nominal(data, category), title=category),
        order=alt.Order(_nominal(data, category)),
        tooltip=[alt.Tooltip(_nominal(data, x)), alt.Tooltip(_nominal(data, category)),
                 alt.Tooltip("share:Q", format=".1%"), alt.Tooltip("count:Q", format=","),
                 alt.Tooltip("n:Q", format=",")],
    )
    return _props(chart, title)


def _mark_outliers(frame: pl.DataFrame, x: str, y: str, outliers: int | str) -> pl.DataFrame:
    if isinstance(outliers, str):
        _need(frame, outliers)
        return frame.with_columns(pl.col(outliers).fill_null(False).cast(pl.Boolean).alias("outlier"))
    if isinstance(outliers, bool) or not isinstance(outliers, int) or outliers < 0:
        raise InputError(f"outliers must be a count >= 0 or a boolean column name, got {outliers!r}")
    xs = frame.get_column(x).cast(pl.Float64).to_numpy()
    ys = frame.get_column(y).cast(pl.Float64).to_numpy()
    ok = np.isfinite(xs) & np.isfinite(ys)
    resid = np.full(len(xs), np.nan)
    if ok.sum() >= 2 and np.ptp(xs[ok]) > 0:
        slope, intercept = np.polyfit(xs[ok], ys[ok], 1)
        resid[ok] = ys[ok] - (slope * xs[ok] + intercept)
    elif ok.any():
        resid[ok] = ys[ok] - ys[ok].mean()
    sd = np.nanstd(resid) if ok.any() else 0.0
    z = np.where(np.isfinite(resid), resid / sd if sd > 0 else 0.0, np.nan)
    order = np.argsort(-np.nan_to_num(np.abs(z), nan=-1.0), kind="stable")
    flag = np.zeros(len(xs), dtype=bool)
    flag[order[:min(outliers, int(ok.sum()))]] = True
    return frame.with_columns(pl.Series("residual_z", z), pl.Series("outlier", flag))


def scatter(frame: pl.DataFrame, x: str, y: str, *, label: str, outliers: int | str = 5,
            color: str | None = None, title: str = "") -> alt.LayerChart:
    """Scatter of ``y`` against ``x`` with the outliers labelled by ``label``.

    ``outliers`` is either a count (the points farthest from the least-squares line, in
    standardised residuals) or the name of a boolean column marking them.
    """
    _need(frame, x, y, label, color)
    data = _mark_outliers(frame, x, y, outliers)
    keep = list(dict.fromkeys(c for c in (x, y, label, color, "outlier", "residual_z") if c in data.columns))
    data = data.select(keep)
    tooltip = [alt.Tooltip(_nominal(data, label)), alt.Tooltip(f"{x}:Q"), alt.Tooltip(f"{y}:Q")]
    colour = alt.Color(_nominal(data, color), title=color) if color else \
        alt.Color("outlier:N", title="outlier", scale=alt.Scale(domain=[True, False], range=["#d62728", "#1f77b4"]))
    base = alt.Chart()
    points = base.mark_circle(size=50, opacity=0.8).encode(
        x=alt.X(f"{x}:Q", title=x, scale=alt.Scale(zero=False)),
        y=alt.Y(f"{y}:Q", title=y, scale=alt.Scale(zero=False)), color=colour, tooltip=tooltip)
    labels = base.mark_text(align="left", dx=6, dy=-4, fontSize=10).encode(
        x=f"{x}:Q", y=f"{y}:Q", text=alt.Text(_nominal(data, label))).transform_filter(alt.datum.outlier)
    return _props(alt.layer(points, labels, data=data), title)


def delta_chart(frame: pl.DataFrame, y: str, *, diff: str = "diff", low: str = "low", high: str = "high",
                significant: str = "significant", color_title: str = "significant", facet: str | None = None,
                title: str = "", x_title: str = "difference") -> alt.TopLevelMixin:
    """Differences with their interval per category ``y``, coloured by significance; line at 0.

    Takes the output of :func:`workbench.core.stats.rate_diff_table` (or any frame with the
    same columns).
    """
    _need(frame, y, diff, low, high, significant, facet)
    cols = list(dict.fromkeys(c for c in (y, diff, low, high, significant, facet, "p_value", "n", "n_base")
                              if c is not None and c in frame.columns))
    data = frame.select(cols)
    colour = alt.Color(f"{significant}:N", title=color_title,
                       scale=alt.Scale(domain=[True, False], range=list(SIGNIFICANT_COLOURS)))
    tooltip = [alt.Tooltip(_nominal(data, y)), alt.Tooltip(f"{diff}:Q", format="+.1%"),
               alt.Tooltip(f"{low}:Q", format="+.1%"), alt.Tooltip(f"{high}:Q", format="+.1%")]
    if "p_value" in data.columns:
        tooltip.append(alt.Tooltip("p_value:Q", format=".3g"))
    base = alt.Chart()
    ycat = alt.Y(_nominal(data, y), title=y)
    bars = base.mark_errorbar(ticks=True).encode(
        y=ycat, x=alt.X(f"{low}:Q", title=x_title), x2=alt.X2(f"{high}:Q"), color=colour)
    points = base.mark_point(filled=True, size=60).encode(
        y=ycat, x=alt.X(f"{diff}:Q", title=x_title, axis=alt.Axis(format="+%")), color=colour, tooltip=tooltip)
    zero = base.mark_rule(strokeDash=[4, 4], color="gray").encode(x=alt.datum(0))
    chart = alt.layer(bars, points, zero, data=data)
    if facet is not None:
        chart = chart.facet(column=alt.Column(_nominal(data, facet), title=facet))
    return _props(chart, title)
