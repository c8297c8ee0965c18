"""A run's results in a panel: its tables (rates with intervals), its charts, and its downloads.

:class:`ResultsView` shows a run — just finished, stopped, or reopened from the studio's list of
earlier runs: the short tables at once, then the charts (drawn as SVG in the kernel), then the long
tables (more than :data:`LONG` rows: charts come before them, not at the bottom of a long page), then, for a run
kept in a workspace (the studio's ``workbench.app.workspace.Workspace``; a notebook has none), the
download links once their files are written beside the run: the games frame as CSV and Parquet,
and the full report as a zip of ``index.html`` (charts inline), ``index.md`` (charts as PNG), every
table as CSV and Parquet and every chart's Vega-Lite spec (``core/present/report.py``).
"""

from __future__ import annotations

import html
import re
import tempfile
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core.present.charts import raw_keys
from workbench.core.present.report import Report, csv_safe, meta_from_frame
from workbench.core.sim.store import write_atomic
from workbench.ui.common import require_widgets
from workbench.ui.render import chart_html, error_message, message, table_html

__all__ = ["ResultsView", "export_files", "frame_of", "report_zip"]

Tables = dict[str, pl.DataFrame]
LONG = 12  # tables with more rows than this come after the charts


def frame_of(tables: Tables) -> tuple[str, pl.DataFrame] | None:
    """The run's frame to download: its games, else its first table."""
    if "games" in tables:
        return "games", tables["games"]
    return next(iter(tables.items()), None)


def _name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_.") or "table"


def _meta(record: dict[str, Any], tables: Tables) -> dict[str, Any]:
    games = tables.get("games")
    meta = meta_from_frame(games) if games is not None and games.height else {}
    meta.setdefault("rules_version", record.get("rules_version") or "not stated")
    meta.setdefault("seed", record.get("seed"))
    meta.setdefault("games", record.get("done") or "none played (exact)")
    meta.setdefault("agents", "not stated")
    for key in ("game", "name", "status", "settings", "params", "edits", "grid"):
        if record.get(key):
            meta["study" if key == "name" else key] = record[key]
    if record.get("status") == "stopped":
        meta["status"] = f"stopped after {record.get('done', 0):,} of {record.get('total', 0):,}; finished games only"
    return meta


# A run's report zip is written when the run ends (done or stopped), while the page waits for its downloads:
# deflate at level 1 (a duel games.csv of 20,000 games, 16.6 MB: 5.7 MB in 0.25 s, where the default level 6 gives
# 4.6 MB in 1.7 s), and files that are compressed already (Parquet) are stored as they are.
ZIP_LEVEL = 1
PACKED = frozenset({".parquet", ".png", ".zip", ".gz"})


def report_zip(record: dict[str, Any], tables: Tables, charts: dict[str, Any], out: Path) -> Path:
    """The full report of a run as a zip at ``out``: HTML + Markdown + tables + charts (``core/present/report.py``)."""
    rep = Report(record.get("title") or f"{record.get('game')}: {record.get('name')}", _meta(record, tables),
                 game=record.get("game"))
    rep.section("Tables", "Every rate with its 95 % interval and n; the files hold the raw numbers.")
    for name, frame in tables.items():
        if name != "games":
            rep.table(_name(name), frame, caption=f"**{name.replace('_', ' ')}**")
    if charts:
        rep.section("Charts")
        for name, chart in charts.items():
            rep.chart(f"{_name(name)}_chart", chart)
    if "games" in tables:
        rep.section("Games", "One row per game; the full frame is in games.csv and games.parquet.")
        rep.table("games", tables["games"], max_rows=10)
    with tempfile.TemporaryDirectory(prefix="studio-report-") as tmp:
        built = rep.write(Path(tmp) / "report")

        def write(path: Path) -> None:
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=ZIP_LEVEL) as zf:
                for file in sorted(built.iterdir()):
                    stored = file.suffix in PACKED  # compressed already: deflating again only costs time
                    zf.write(file, f"report/{file.name}", zipfile.ZIP_STORED if stored else None)

        return write_atomic(out, write)


def export_files(run_dir: Path, record: dict[str, Any], tables: Tables, charts: dict[str, Any]) -> dict[str, Path]:
    """Write a kept run's downloads beside it (once): the frame as CSV (Parquet is kept already), the report zip."""
    out: dict[str, Path] = {}
    picked = frame_of(tables)
    if picked is not None:
        name, frame = picked
        parquet = run_dir / f"{_name(name)}.parquet"
        if not parquet.is_file():
            write_atomic(parquet, lambda tmp: frame.write_parquet(tmp))
        csv = run_dir / f"{_name(name)}.csv"
        if not csv.is_file():
            write_atomic(csv, lambda tmp: csv_safe(frame).write_csv(tmp))
        out[f"{name} (CSV)"], out[f"{name} (Parquet)"] = csv, parquet
    report = run_dir / "report.zip"
    if not report.is_file():
        report_zip(record, tables, charts, report)
    out["report (zip)"] = report
    return out


class ResultsView:
    """Tables, charts and downloads of one run; every ``show`` replaces what was shown."""

    def __init__(self, workspace: Any = None) -> None:
        w = require_widgets()
        self.workspace = workspace
        self.header = w.HTML()
        self.downloads = w.HTML()
        self.body = w.HTML()
        self.charts = w.HTML()
        self.long = w.HTML()
        for widget, name in ((self.header, "wb-results-header"), (self.downloads, "wb-downloads"),
                             (self.body, "wb-results"), (self.charts, "wb-charts"), (self.long, "wb-results-long")):
            widget.add_class(name)
        self.widget = w.VBox([self.header, self.downloads, self.body, self.charts, self.long])
        self._shown = 0  # which show() is current: a late background job never overwrites a newer one
        self._drawing: threading.Thread | None = None

    def clear(self, text: str = "") -> None:
        """Show nothing (or a message)."""
        self._shown += 1
        self.header.value = message(text, "info") if text else ""
        self.downloads.value = self.body.value = self.charts.value = self.long.value = ""

    def error(self, text: str) -> None:
        """Show an error in place of results."""
        self._shown += 1
        self.header.value = message(text, "error")
        self.downloads.value = self.body.value = self.charts.value = self.long.value = ""

    def show(self, record: dict[str, Any], tables: Tables, make_charts: Callable[[], dict[str, Any]],
             note: str = "", kind: str = "ok", table_titles: dict[str, str] | None = None) -> None:
        """Show a kept run: its tables now; its charts and downloads when drawn and written (in the background)."""
        self._shown += 1
        shown = self._shown
        self.header.value = (message(note, kind) if note else "") + self._summary(record)
        self.downloads.value = '<span class="wb-more">preparing downloads…</span>'
        titles = table_titles or {}
        keys = raw_keys(f for n, f in tables.items() if n != "games")  # a key of one table reads in words in all
        parts = [table_html(name, frame, titles.get(name, ""), keys=keys) for name, frame in tables.items()
                 if name != "games" and frame.height <= LONG]
        games = tables.get("games")
        if games is not None:
            parts.insert(0, f'<p class="wb-games" data-games="{games.height}">{games.height:,} games played</p>')
        self.body.value = "".join(parts)
        self.long.value = "".join(table_html(name, frame, titles.get(name, ""), keys=keys)
                                  for name, frame in tables.items() if name != "games" and frame.height > LONG)
        self.charts.value = '<span class="wb-more">drawing charts…</span>'
        # not a daemon: vl-convert's engine runs without the GIL, and a daemon thread still drawing when the
        # interpreter finalizes would crash the process on its way back
        self._drawing = threading.Thread(target=self._finish, args=(shown, record, tables, make_charts),
                                         name="workbench-results")
        self._drawing.start()

    def wait(self, timeout: float | None = None) -> None:
        """Block until the charts are drawn and the downloads written."""
        if self._drawing is not None:
            self._drawing.join(timeout)

    def _summary(self, record: dict[str, Any]) -> str:
        bits = [f"<b>{html.escape(str(record.get('title') or record.get('name') or ''))}</b>"]
        if record.get("seed") is not None:
            bits.append(f"master seed {record['seed']}")
        if record.get("total"):
            bits.append(f"{record.get('done', 0):,} of {record['total']:,} games")
        if record.get("seconds") is not None:
            bits.append(f"{record['seconds']:.1f} s")
        if record.get("id"):
            bits.append(f"run <code>{html.escape(record['id'])}</code>")
        state = html.escape(str(record.get("status", "")))
        return (f'<div class="wb-run-summary" data-status="{state}" data-run="{html.escape(record.get("id", ""))}">'
                + " · ".join(bits) + "</div>")

    def _finish(self, shown: int, record: dict[str, Any], tables: Tables, make_charts: Callable[[], dict[str, Any]]
                ) -> None:
        try:
            charts = make_charts()
        except Exception as exc:  # noqa: BLE001 - the tables stay; the page says why the charts are missing
            charts = {}
            if shown == self._shown:
                self.charts.value = message(f"the charts could not be made: {error_message(exc)}", "error")
        else:
            html_charts = "".join(chart_html(name, chart) for name, chart in charts.items())
            if shown == self._shown:
                self.charts.value = html_charts
        run_id = record.get("id")
        if not run_id or self.workspace is None:
            if shown == self._shown:
                self.downloads.value = ""
            return
        try:
            files = export_files(self.workspace.run_dir(run_id), record, tables, charts)
        except Exception as exc:  # noqa: BLE001 - results stay shown; the downloads say what went wrong
            if shown == self._shown:
                self.downloads.value = message(f"downloads could not be written: {error_message(exc)}", "error")
            return
        links = []
        for label, path in files.items():
            url = self.workspace.url(path)
            name = html.escape(path.name)
            links.append(f'<a href="{html.escape(url)}" download="{name}" data-file="{name}">⬇ {html.escape(label)}</a>'
                         if url else f"<span>{html.escape(label)}: {html.escape(str(path))}</span>")
        if shown == self._shown:
            self.downloads.value = '<div class="wb-downloads-ready">' + "".join(links) + "</div>"

