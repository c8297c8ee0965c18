"""HTML for the panels: tables with their intervals, charts drawn as SVG in the kernel, messages.

Nothing here needs a network: a chart is drawn by vl-convert into an inline SVG (altair's own HTML
renderer would load Vega from a CDN), a table is plain HTML read like the report's (a rate and its
interval in one cell, ``52.3% [51.3–53.3]``).  Every element carries a class and a ``data-`` name,
so the tests (and a reader's eye) find a table or a chart by name.  The same HTML serves the studio
and a notebook.
"""

from __future__ import annotations

import html
import itertools
import logging
import re
from typing import Any

import polars as pl

from workbench.core.errors import WorkbenchError
from workbench.core.present.charts import RAW_KEY, display_label, known_keys, raw_keys, readable_spec, readable_text
from workbench.core.present.report import LABELS, column_label, display_frame, inline_svg

__all__ = ["CSS", "LABELS", "chart_html", "chart_svg", "column_label", "display_label", "error_message", "message",
           "readable_table", "table_html"]

log = logging.getLogger("workbench.ui")  # the studio sends it to the server's console
MAX_ROWS = 200  # rows shown of a long table (the downloads hold every row)
_IDS = itertools.count()

CSS = """<style>
.wb-studio{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#222}
.wb-studio h2{margin:.2em 0 .4em;font-size:1.3em}
.wb-table-block{margin:.4em 0 1em}
.wb-table-block caption,.wb-caption{text-align:left;font-weight:600;padding:.2em 0}
.wb-table-block{overflow-x:auto;max-width:100%}
table.wb-table{border-collapse:separate;border-spacing:0;font-size:.88em;margin:.2em 0}
table.wb-table th:first-child,table.wb-table td:first-child{position:sticky;left:0;z-index:1;background:#fff}
table.wb-table th:first-child{background:#f3f3f3}
.wb-key-cell{position:sticky;left:0;z-index:2;background:#fff;box-shadow:2px 0 2px -1px #ccc}
table.wb-table th,table.wb-table td{border:1px solid #ccc;padding:.2em .55em;text-align:left;vertical-align:top}
table.wb-table th{background:#f3f3f3}
table.wb-table td.num{text-align:right;font-variant-numeric:tabular-nums}
table.wb-table tr.wb-changed td{background:#fff1a8}
.wb-more{font-size:.8em;color:#666}
figure.wb-chart{margin:.6em 0;display:inline-block;vertical-align:top}
figure.wb-chart svg{max-width:100%;height:auto}
.wb-msg{padding:.45em .7em;border-radius:4px;margin:.3em 0;white-space:pre-wrap}
.wb-msg-error{background:#fde8e8;color:#8a1111;border:1px solid #f0b4b4}
.wb-msg-info{background:#eef4fb;color:#1d3f66;border:1px solid #c6d9ef}
.wb-msg-ok{background:#eaf7ea;color:#1c5a1c;border:1px solid #bfe3bf}
.wb-downloads a{display:inline-block;margin:.2em .5em .2em 0;padding:.25em .8em;border:1px solid #888;
  border-radius:3px;background:#f7f7f7;color:#222;text-decoration:none;font-size:.9em}
.wb-downloads a:hover{background:#e8e8e8}
.wb-status{font-size:.9em}
.wb-label{cursor:help;border-bottom:1px dotted #999;font-size:.92em}
.wb-changed input,.wb-changed textarea{background:#fff1a8 !important}
.wb-changed-row{background:#fff1a8}
.wb-cell-changed input{background:#fff1a8 !important;font-weight:600}
.wb-card-grid .widget-label{font-size:.85em}
.wb-card-label .widget-html-content{white-space:nowrap}
.wb-cell-bad input,.wb-field-bad input{background:#fde8e8 !important;border-color:#c33 !important}
.wb-busy{opacity:.35;transition:opacity .2s}
.wb-spinner{display:inline-block;width:.8em;height:.8em;border:2px solid #999;border-top-color:transparent;
  border-radius:50%;animation:wb-spin .8s linear infinite;vertical-align:-.1em}
@keyframes wb-spin{to{transform:rotate(360deg)}}
.wb-intro{max-width:60em;margin:.3em 0 .5em}
.wb-intro p{margin:.2em 0 .4em}
.wb-legend{max-width:60em;margin:.3em 0}
.wb-field-msg{font-size:.85em;padding:.2em .5em;margin:.1em 0 .3em}
</style>"""


def _cell(value: str, numeric: bool) -> str:
    cls = ' class="num"' if numeric else ""
    return f"<td{cls}>{html.escape(value)}</td>"


def readable_table(frame: pl.DataFrame, keys: set[str] | None = None) -> pl.DataFrame:
    """:func:`display_frame` of ``frame`` with every raw key in its cells read by :func:`display_label`.

    Column names stay the keys (the header labels them).  A cell that is a raw key (``second_auction``)
    reads ``a second auction``; a key inside a cell's text (``max_turns: no value …``,
    ``builders_of_babel vs night_raid``) reads in words when it is a key of this table, of ``keys`` (the
    run's other tables) or one the loaded games name (:func:`workbench.core.present.charts.known_keys`).
    """
    shown = display_frame(frame)
    known = raw_keys([frame]) | known_keys() | set(keys or ())
    mapped = []
    for column in shown.columns:
        values = [v for v in shown.get_column(column).unique().to_list() if v is not None]
        changed = {v: display_label(v, column) if RAW_KEY.match(v) else readable_text(v, known) for v in values
                   if RAW_KEY.match(v) or (_KEYISH.search(v) and not v.startswith(("{", "[")))}
        changed = {k: v for k, v in changed.items() if k != v}
        if changed:
            mapped.append(pl.col(column).replace(changed))
    return shown.with_columns(mapped) if mapped else shown


_KEYISH = re.compile(r"[a-z0-9]_[a-z0-9]")


def header_label(column: str) -> str:
    """A table's header for ``column``: the report's label, else the one label function's."""
    label = column_label(column)
    return display_label(column) if label == column.replace("_", " ") and RAW_KEY.match(column) else label


def table_html(name: str, frame: pl.DataFrame, title: str = "", highlight: set[int] | None = None,
               max_rows: int = MAX_ROWS, keys: set[str] | None = None) -> str:
    """A table as people read it: rates merged with their intervals; rows in ``highlight`` marked changed.

    Keys read in words (``keys``: the run's other tables' raw keys, read in words in this one's text too).
    """
    shown = readable_table(frame.head(max_rows), keys)
    numeric = {c for c, t in frame.schema.items() if t.is_numeric()}
    head = "".join(f'<th data-column="{html.escape(c)}">{html.escape(header_label(c))}</th>' for c in shown.columns)
    rows = []
    for i, row in enumerate(shown.iter_rows()):
        cls = ' class="wb-changed"' if highlight and i in highlight else ""
        rows.append(f"<tr{cls}>" + "".join(_cell(v, c in numeric) for c, v in zip(shown.columns, row, strict=True))
                    + "</tr>")
    cap = f"<caption>{html.escape(readable_text(title) if title else display_label(name))}</caption>"
    more = (f'<div class="wb-more">showing {min(frame.height, max_rows):,} of {frame.height:,} rows; '
            "the downloads hold every row</div>") if frame.height > max_rows else ""
    return (f'<div class="wb-table-block" data-table="{html.escape(name)}"><table class="wb-table">{cap}'
            f'<thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>{more}</div>')


def chart_svg(chart: Any) -> str:
    """An altair chart (or Vega-Lite dict) as an inline SVG, its ids made unique on the page."""
    spec = chart.to_dict() if hasattr(chart, "to_dict") else chart
    return inline_svg(readable_spec(spec), f"wb{next(_IDS)}-")


def chart_html(name: str, chart: Any) -> str:
    """A chart in a ``<figure>``; one that cannot be drawn says so in its place."""
    try:
        body = chart_svg(chart)
    except Exception as exc:  # noqa: BLE001 - a chart that fails must not hide the tables
        log.exception("chart %s could not be drawn", name)
        body = message(f"chart {name!r} could not be drawn: {type(exc).__name__}: {exc}", "error")
    return f'<figure class="wb-chart" data-chart="{html.escape(name)}">{body}</figure>'


def message(text: str, kind: str = "info", **data: Any) -> str:
    """A message box: ``error``, ``info`` or ``ok`` (``data`` become ``data-`` attributes)."""
    extra = "".join(f' data-{k}="{html.escape(str(v))}"' for k, v in data.items())
    return f'<div class="wb-msg wb-msg-{kind}" data-kind="{kind}"{extra}>{html.escape(text)}</div>'


def error_message(exc: BaseException) -> str:
    """What a user reads about an error: a workbench error's own words, else its kind and text — never a traceback.

    The traceback of an unexpected error goes to the log (the studio's: the server's console).
    """
    if isinstance(exc, WorkbenchError):
        return str(exc)
    log.error("unexpected error in a panel", exc_info=exc)
    return f"unexpected error ({type(exc).__name__}): {exc}"
