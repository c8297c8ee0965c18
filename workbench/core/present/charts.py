"""Generic chart builders: ``frame -> altair chart``, shared by every game, report and widget.

Each builder takes a polars frame that already holds what it draws (rates with ``low``/``high``
from :mod:`workbench.core.stats.rates`, raw lengths, counts) and returns an altair chart.  Builders
that summarise raw rows (histogram, share bars) aggregate in polars first, so a chart of a
million games stays a small spec.
"""

from __future__ import annotations

import copy
import math
import re
import sys
from collections.abc import Iterable
from typing import Any

import numpy as np
import polars as pl

from workbench.core.errors import InputError
from workbench.core.lazy import lazy

alt = lazy("altair")  # imported when the first chart is drawn (about 2 s)

__all__ = ["RAW_KEY", "cost_value_chart", "delta_chart", "display_label", "histogram", "rate_chart", "raw_keys",
           "readable_spec",
           "readable_text", "scatter", "share_bars"]

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

    Takes the output of :func:`workbench.core.stats.rates.rate_diff_table` (or any frame with the
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


# -- the one label function: what a person reads for a raw key -------------------------------------------------
RAW_KEY = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")  # a snake_case identifier: a column's or a value's key
_CHANNELS_WITH_LABELS = {"x": "axis", "y": "axis", "color": "legend", "fill": "legend", "stroke": "legend",
                         "shape": "legend", "size": "legend", "opacity": "legend", "strokeDash": "legend",
                         "row": "header", "column": "header", "facet": "header"}


_CACHE: dict[Any, Any] = {}  # the lookups below, per set of loaded games (a game loaded later is seen)


def _loaded() -> tuple[str, ...]:
    from workbench.core.model import registry

    return tuple(sorted(m for m in registry().values() if m in sys.modules))


def _cached(name: str, make: Any) -> Any:
    key = (name, _loaded())
    if key not in _CACHE:
        _CACHE[key] = make()
    return _CACHE[key]


def _value_names() -> dict[str, dict[str, str]]:
    from workbench.core.model import value_names

    return _cached("value_names", value_names)


def game_labels() -> dict[str, str]:
    """``{key: label}`` declared by the games already loaded (cached per set of loaded games)."""
    return _cached("game_labels", _game_labels)


def _game_labels() -> dict[str, str]:
    """``{key: label}`` declared by the games already loaded (``LABELS`` in a game's ``text`` module).

    Only games already imported are asked, as :func:`workbench.core.model.value_names` does, so
    labelling never imports a game.
    """
    from workbench.core.model import GameModel, registry

    out: dict[str, str] = {}
    for module in registry().values():
        model = getattr(sys.modules.get(module), "MODEL", None)
        text = getattr(model, "text", None) if isinstance(model, GameModel) else None
        if not text:
            continue
        try:
            __import__(text)
        except ImportError:
            continue
        out.update(getattr(sys.modules[text], "LABELS", {}) or {})
    return out


def display_label(key: Any, column: str | None = None) -> str:
    """What a person reads for ``key`` — a column name or a value (of ``column``, when known).

    The one label function of every table and chart a person reads (studio, lessons): a display
    name the games declare (a choice's name, ``crystal_garden`` → ``Crystal Garden``; a game's
    ``LABELS``, ``win_p1`` → ``p1 wins``), else the report's column labels
    (:func:`workbench.core.present.report.metric_label`: ``first_seat_win`` → ``first seat wins``,
    ``end_tower_built`` → ``ends: tower built``), else the key in words.  ``True``/``False`` read
    ``yes``/``no``.  CSV and Parquet keep the keys.
    """
    from workbench.core.present.report import LABELS, metric_label

    if isinstance(key, bool):
        return "yes" if key else "no"
    text = str(key)
    if text in ("true", "false"):
        return "yes" if text == "true" else "no"
    names = _value_names()
    if column is not None and text in names.get(column, {}):
        return names[column][text]
    declared = game_labels()
    if text in declared:
        return declared[text]
    for known in names.values():
        if text in known:
            return known[text]
    if text in LABELS or RAW_KEY.match(text) or text.startswith("end_"):
        return metric_label(text)
    return text


_TOKEN = re.compile(r"(?<![\w/.\\-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/\\-]|\.\w)")


def readable_text(text: str, keys: Iterable[str] | None = None) -> str:
    """``text`` with its raw keys read in words: every snake_case token (or only those in ``keys``).

    ``"Auto-balance of max_turns"`` → ``"Auto-balance of max turns"``; a token inside a path or a file
    name (``data/duel/cards_v2.csv``) is left alone.
    """
    known = None if keys is None else set(keys)
    return _TOKEN.sub(lambda m: display_label(m.group(0)) if known is None or m.group(0) in known else m.group(0),
                      text)


def raw_keys(frames: Iterable[Any]) -> set[str]:
    """The raw keys of ``frames`` (polars): snake_case column names, and the values of their key columns.

    A key column is a string column whose every value is an identifier (``free_steppe``, ``p1``); a
    column of free text (a card's effect, a verdict) is not one.
    """
    import polars as pl

    out: set[str] = set()
    for frame in frames:
        out |= {c for c in frame.columns if RAW_KEY.match(c)}
        for column, dtype in frame.schema.items():
            if dtype != pl.String or not frame.height:
                continue
            values = [v for v in frame.get_column(column).unique().to_list()[:1000] if v]
            if values and all(_IDENT.match(v) for v in values):
                out |= {v for v in values if RAW_KEY.match(v)}
    return out


_IDENT = re.compile(r"^[a-z0-9][a-z0-9_]*$")


def known_keys() -> set[str]:
    """Every key the loaded games name: their parameters, their choices' keys and their declared labels."""
    return set(_cached("known_keys", _known_keys))


def _known_keys() -> set[str]:
    from workbench.core.model import GameModel, registry

    out = set(game_labels())
    for names in _value_names().values():
        out |= set(names)
    for module in registry().values():
        model = getattr(sys.modules.get(module), "MODEL", None)
        if isinstance(model, GameModel):
            out |= {p.name for p in model.params}
    return {k for k in out if RAW_KEY.match(k)}


def _datasets(spec: Any, out: dict[str, set[Any]]) -> None:
    """Every field's values in the spec's inline data (``datasets`` and ``data.values``), recursively."""
    if isinstance(spec, dict):
        for key, value in spec.items():
            if key == "datasets" and isinstance(value, dict):
                for rows in value.values():
                    _rows(rows, out)
            elif key == "values" and isinstance(value, list):
                _rows(value, out)
            else:
                _datasets(value, out)
    elif isinstance(spec, list):
        for item in spec:
            _datasets(item, out)


def _rows(rows: Iterable[Any], out: dict[str, set[Any]]) -> None:
    for row in rows:
        if isinstance(row, dict):
            for k, v in row.items():
                if isinstance(v, (str, bool)):
                    out.setdefault(k, set()).add(v)


def _label_expr(mapping: dict[str, str], key: str = "datum.label") -> str:
    """A Vega expression reading ``key`` (a facet header's: its value, as text) through ``mapping``."""
    def q(text: str) -> str:
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"

    expr = "datum.label"
    for raw, shown in sorted(mapping.items(), reverse=True):
        expr = f"{key} == {q(raw)} ? {q(shown)} : {expr}"
    return expr


def _title_of(field: str) -> str:
    inner = re.fullmatch(r"\w+\((.*)\)", field)  # "mean(length)": the aggregate's field
    return display_label(inner.group(1) if inner else field)


def _channel(channel: str, definition: dict[str, Any], values: dict[str, set[Any]], known: set[str]) -> None:
    """One encoding channel (or a facet's field): its title and its labels in words."""
    field = definition.get("field")
    if isinstance(field, dict):
        field = field.get("repeat")
    if isinstance(field, str):
        title = definition.get("title")
        if "title" not in definition or (isinstance(title, str) and (RAW_KEY.match(title) or title == field)):
            if channel not in ("tooltip", "detail", "order", "key", "href", "xOffset", "yOffset", "facet"):
                definition["title"] = _title_of(field)
        elif isinstance(title, str):
            definition["title"] = readable_text(title)
    where = _CHANNELS_WITH_LABELS.get(channel)
    if where and isinstance(field, str) and definition.get("type") in ("nominal", "ordinal") \
            and definition.get(where, {}) is not None:
        domain = (definition.get("scale") or {}).get("domain")
        seen = set(values.get(field, ())) | {v for v in (domain if isinstance(domain, list) else ())
                                             if isinstance(v, (str, bool))}
        if seen & {True, False}:
            seen |= {True, False}  # a legend of a yes/no field shows both, whatever the data holds
        mapping = {("true" if v is True else "false" if v is False else v):
                   display_label(v, field) if not isinstance(v, str) or RAW_KEY.match(v) else
                   readable_text(v, known) for v in seen}
        mapping = {k: v for k, v in mapping.items() if k != v}
        if mapping:
            part = dict(definition.get(where) or {})
            part.setdefault("labelExpr", _label_expr(mapping, "('' + datum.value)" if where == "header" else
                                                     "datum.label"))
            definition[where] = part


def _readable(node: Any, values: dict[str, set[Any]], known: set[str]) -> None:
    if isinstance(node, list):
        for item in node:
            _readable(item, values, known)
        return
    if not isinstance(node, dict):
        return
    title = node.get("title")
    if isinstance(title, str):
        node["title"] = readable_text(title)
    encoding = node.get("encoding")
    if isinstance(encoding, dict):
        for channel, definition in encoding.items():
            if isinstance(definition, dict):
                _channel(channel, definition, values, known)
    facet = node.get("facet")  # a facet chart's own field(s): their headers
    if isinstance(facet, dict):
        parts = {"facet": facet} if "field" in facet else facet
        for channel, definition in parts.items():
            if isinstance(definition, dict):
                _channel(channel, definition, values, known)
    for key, value in node.items():
        if key not in ("datasets", "data", "encoding", "facet"):
            _readable(value, values, known)


def readable_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """A Vega-Lite spec whose axis and legend titles and labels read as :func:`display_label` says.

    A title left out (Vega-Lite would show the field's key) or given as a raw key gets the key's
    label; the labels of a nominal axis, legend or facet header whose values are raw keys (or
    true/false) read by their labels through a ``labelExpr`` — the data, its filters and tooltips
    keep the keys.  The spec passed in is not changed.
    """
    out = copy.deepcopy(spec)
    values: dict[str, set[Any]] = {}
    _datasets(out, values)
    known = known_keys() | {k for k in values if RAW_KEY.match(k)} | {
        v for found in values.values() for v in found if isinstance(v, str) and RAW_KEY.match(v)}
    _readable(out, values, known)
    return out


def cost_value_chart(frame: pl.DataFrame, label: str = "id", title: str = "Cost against value") -> Any:
    """One scatter per view: cost (x) against value (y), the line value = cost, outliers labelled by ``label``."""
    from workbench.core.stats.cardstats import VIEWS

    panels = []
    for view in VIEWS:
        data = frame.filter(pl.col("view") == view)
        if data.height == 0:
            continue
        top = float(max(data.get_column("cost").max(), data.get_column("value").max()))
        low = float(min(0.0, data.get_column("value").min()))
        diagonal = alt.Chart(pl.DataFrame({"cost": [low, top], "value": [low, top]})).mark_line(
            strokeDash=[4, 4], color="gray").encode(x="cost:Q", y="value:Q")
        points = scatter(data, "cost", "value", label=label, outliers="outlier", title=view)
        panels.append(alt.layer(diagonal, *points.layer, data=points.data).properties(title=view, width=330,
                                                                                        height=300))
    if not panels:
        raise InputError("cost-vs-value chart: no cards to draw")
    return alt.hconcat(*panels).properties(title=title)
