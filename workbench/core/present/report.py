"""Reports: one self-contained HTML page plus Markdown, chart images and table files.

A :class:`Report` collects sections, text, tables and altair charts, then ``write(out_dir)``
produces::

    index.html       self-contained: charts inline as SVG, CSS inline, no network needed
    index.md         the same content; charts as <name>.png beside it (and <name>.svg)
    <name>.csv/.parquet   every table in full
    <name>.vl.json   every chart's Vega-Lite spec (open it in any Vega editor)
    report.json      title, meta and the list of tables and charts
    summary.json, summary.md   "What this report finds" and "What to change" (when the report states any)

A report's verdicts (:meth:`Report.finding`) and its fix (:meth:`Report.change`), generated from its
tables by ``core/present/summary.py``, open both pages right after the header: at most ten sentences,
heaviest first, each linking to the table or section it summarises (``#table-<name>``,
``#section-<name>``; the Markdown carries the same anchors).  The summary files are the report's
own: listed in its manifest, replaced with it.

The header states the rules version, seeds, games and agents from ``meta``.  The report is
built in a temporary directory beside ``out_dir`` and swapped in at the end, so a failed build
leaves the previous report untouched.  A report replaces only its own files: ``report.json``
lists them (its manifest), a directory holding other files keeps them (the new report's files are
moved in one by one), and a non-empty directory that holds no report is refused unless
``force=True`` (:func:`check_target` says so before any work is done).  Even with ``force`` a
file the workbench did not write is never replaced: when one of the report's names is taken by
such a file the report is refused, naming it.  One run writes a report folder at a time
(``<folder>.lock``, ``store.OutputLock``); a folder that cannot be written is an
:class:`OutputError`, and no building folder is left behind (or it is named, when the disk
refuses even its removal).  In displayed tables a rate and its interval columns
(``x``, ``x_low``, ``x_high`` — or ``rate``/``diff`` with ``low``, ``high``) are shown together as
``52.3% [51.3–53.3]``; the CSV and Parquet files keep the raw numbers.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core.errors import InputError, OutputError
from workbench.core.model import value_names
from workbench.core.sim.store import OutputLock, package_version
from workbench.core.stats.rates import MOVES, SETTLED, UNDECIDED

__all__ = ["LABELS", "Report", "check_target", "column_label", "csv_safe", "display_frame", "header_labels",
           "inline_svg", "install", "labelled", "markdown_to_html", "meta_from_frame", "staging"]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_HEADER_KEYS = (("rules_version", "Rules version"), ("seed", "Master seed"), ("seeds", "Seeds"),
                ("games", "Games"), ("agents", "Agents"))
_REQUIRED = ("rules_version", "games", "agents")
_RESERVED = {"index", "report"}
_FIXED = ("index.html", "index.md", "report.json")  # the files every report writes
FORMAT = "workbench-report/1"


@dataclass(frozen=True)
class _Block:
    kind: str  # "section" | "text" | "table" | "chart"
    title: str = ""
    text: str = ""
    name: str = ""
    frame: pl.DataFrame | None = None
    spec: dict | None = None
    caption: str = ""
    max_rows: int = 40


_STATUSES = (SETTLED, MOVES, UNDECIDED)


def _sentence(kind: str, sentence: str, status: str | None, weight: float, anchor: str,
              numbers: dict[str, Any]) -> dict[str, Any]:
    """One summary sentence as a checked record."""
    if not isinstance(sentence, str) or not sentence.strip():
        raise InputError(f"a report {kind} needs a non-empty sentence")
    if status is not None and status not in _STATUSES:
        raise InputError(f"report {kind} {sentence!r}: status {status!r} is not one of {list(_STATUSES)} or None")
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight != weight:
        raise InputError(f"report {kind} {sentence!r}: weight must be a number, got {weight!r}")
    if not isinstance(anchor, str) or (anchor and not _NAME.match(anchor)):
        raise InputError(f"report {kind} {sentence!r}: anchor {anchor!r} must be a table or section name "
                         "(letters, digits, '_', '-', '.')")
    return {"kind": kind, "sentence": sentence.strip(), "status": status, "weight": float(weight),
            "anchor": anchor, **numbers}


class Report:
    """A report under construction; add blocks in reading order, then :meth:`write`."""

    def __init__(self, title: str, meta: dict[str, Any] | None = None, game: str | None = None) -> None:
        if not isinstance(title, str) or not title.strip():
            raise InputError("a report needs a non-empty title")
        self.title = title
        self.game = game  # the game it reports on: a folder holding another game's report is not replaced
        self.meta = dict(meta or {})
        self.blocks: list[_Block] = []
        self.findings: list[dict[str, Any]] = []
        self.changes: list[dict[str, Any]] = []
        self.sizes: list[dict[str, Any]] = []  # each step's size, real seconds and what a bigger run decides
        self._names: set[str] = set()

    # -- building -------------------------------------------------------------------------------
    def section(self, title: str, text: str = "", *, name: str = "") -> Report:
        """Start a section (a level-2 heading) with optional Markdown text.

        Its anchor is ``section-<name>`` (``name`` defaults to the title in lower case, words joined
        by '-'), so a finding can link to it.
        """
        self.blocks.append(_Block("section", title=title, text=text, name=name or _slug(title)))
        return self

    def text(self, markdown: str) -> Report:
        """A paragraph (or several) of Markdown."""
        self.blocks.append(_Block("text", text=markdown))
        return self

    def table(self, name: str, frame: pl.DataFrame, caption: str = "", max_rows: int = 40) -> Report:
        """A table: shown up to ``max_rows`` rows, written in full as ``<name>.csv``/``.parquet``."""
        self._claim(name)
        if not isinstance(frame, pl.DataFrame):
            raise InputError(f"table {name!r}: expected a polars DataFrame, got {type(frame).__name__}")
        if isinstance(max_rows, bool) or not isinstance(max_rows, int) or max_rows <= 0:
            raise InputError(f"table {name!r}: max_rows must be a positive integer, got {max_rows!r}")
        self.blocks.append(_Block("table", name=name, frame=frame, caption=caption, max_rows=max_rows))
        return self

    def chart(self, name: str, chart: Any, caption: str = "") -> Report:
        """An altair chart (or a Vega-Lite dict): inline SVG in HTML, PNG in Markdown."""
        self._claim(name)
        spec = chart.to_dict() if hasattr(chart, "to_dict") else chart
        if not isinstance(spec, dict):
            raise InputError(f"chart {name!r}: expected an altair chart or a Vega-Lite dict")
        self.blocks.append(_Block("chart", name=name, spec=spec, caption=caption))
        return self

    def finding(self, sentence: str, *, status: str | None = None, weight: float = 1.0, anchor: str = "",
                **numbers: Any) -> Report:
        """A verdict for "What this report finds": one plain sentence with its number, shown first.

        ``status`` is the tiers module's ``SETTLED`` / ``MOVES`` / ``UNDECIDED`` (or None: no tiers,
        e.g. an exact computation); ``weight`` says how much a designer should care (higher first; at
        most ten findings are shown); ``anchor`` names the table or section the sentence summarises
        (it links there).  ``numbers`` (e.g. ``rate``, ``low``, ``high``, ``n``) go to ``summary.json``.
        """
        self.findings.append(_sentence("finding", sentence, status, weight, anchor, numbers))
        return self

    def change(self, sentence: str, *, weight: float = 1.0, anchor: str = "", **numbers: Any) -> Report:
        """A sentence for "What to change": the smallest verified fix and what it does at every tier."""
        self.changes.append(_sentence("change", sentence, None, weight, anchor, numbers))
        return self

    # -- the run's steps: sizes and real times ----------------------------------------------------
    def timed(self, step: str, label: str, fn: Callable[..., Any], /, *args: Any, step_games: str = "",
              step_bigger: str = "", **kwargs: Any) -> Any:
        """Run ``fn(*args, **kwargs)`` as one step of the report's run and return what it returns.

        The step shows progress (``core.sim.progress.step(label)``: ``label …`` and ``… done in 3.2 s``) and
        its real wall time goes to the header (``meta["seconds"][step]``, added up when a step repeats)
        and to the sizes section (:meth:`sizes_section`) with ``step_games`` (its size in words) and
        ``step_bigger`` (what a bigger run would decide).  The header's step times are the log's.
        """
        import time

        from workbench.core.sim.progress import step as progress_step

        started = time.perf_counter()
        with progress_step(label):
            out = fn(*args, **kwargs)
        self.record(step, time.perf_counter() - started, games=step_games, bigger=step_bigger)
        return out

    def record(self, step: str, seconds: float, *, games: str = "", bigger: str = "") -> None:
        """Record one step's real wall time (and its size) without running it here (see :meth:`timed`)."""
        if not isinstance(step, str) or not step.strip():
            raise InputError("a report step needs a non-empty name")
        row = next((r for r in self.sizes if r["step"] == step), None)
        if row is None:
            row = {"step": step, "games": games, "seconds": 0.0, "bigger run": bigger, "_raw": 0.0}
            self.sizes.append(row)
        row["_raw"] += seconds  # added up unrounded; shown to a tenth of a second
        row["seconds"] = round(row["_raw"], 1)
        row["games"] = row["games"] or games
        row["bigger run"] = row["bigger run"] or bigger
        self.meta.setdefault("seconds", {})[step] = row["seconds"]

    def step_times(self) -> str:
        """The steps' real times in one line (``matrix 34.3 s · tiers 95.1 s · total 129.4 s``)."""
        if not self.sizes:
            return ""
        total = sum(r["seconds"] for r in self.sizes)
        return " · ".join([f"{r['step']} {r['seconds']:.1f} s" for r in self.sizes] + [f"total {total:.1f} s"])

    def sizes_section(self, intro: str = "", log: Any = None) -> Report:
        """The last section: every step's size, real seconds and what a bigger run would decide.

        Also prints the step times as one line to ``log`` (standard error by default), so a run's log
        and its report header agree.
        """
        import sys

        if not self.sizes:
            return self
        self.section("Sizes of this run, and what a bigger run would decide", (
            "Each step's games and its wall time in this build (the header's *Seconds*, the log's "
            "*done in*), and what playing more would settle. " + intro).strip(), name="run-sizes")
        shown = [{k: v for k, v in r.items() if k != "_raw"} for r in self.sizes]
        self.table("run_sizes", pl.DataFrame(shown, schema={"step": pl.String, "games": pl.String,
                                                             "seconds": pl.Float64, "bigger run": pl.String}),
                   caption="The run's steps in order", max_rows=60)
        print(f"{self.title}: step times: {self.step_times()}", file=log or sys.stderr, flush=True)
        return self

    def frame(self, name: str) -> pl.DataFrame:
        """The frame of the report's table ``name`` (as given, not as displayed)."""
        for b in self.blocks:
            if b.kind == "table" and b.name == name:
                return b.frame
        raise InputError(f"the report has no table {name!r}; its tables: "
                         f"{[b.name for b in self.blocks if b.kind == 'table']}")

    def anchors(self) -> dict[str, tuple[str, str]]:
        """Each name a finding may link to: ``(href, label)``, label the title of the section holding it."""
        out: dict[str, tuple[str, str]] = {}
        title = ""
        for b in self.blocks:
            if b.kind == "section":
                title = b.title
                out.setdefault(b.name, (f"#section-{b.name}", b.title))
            elif b.kind in ("table", "chart"):
                out[b.name] = (f"#{b.kind}-{b.name}", title or b.caption or b.name)
        return out

    def summary(self) -> dict[str, Any] | None:
        """The report's summary (``core.present.summary.summary_of``), or None when it states no finding or change."""
        from workbench.core.present.summary import summary_of

        if not self.findings and not self.changes:
            return None
        anchors = self.anchors()
        unknown = sorted({x["anchor"] for x in self.findings + self.changes if x["anchor"] and x["anchor"] not in
                          anchors})
        if unknown:
            raise InputError(f"report findings link to {unknown}, which the report has no table, chart or section "
                             f"named; known: {sorted(anchors)}")
        return summary_of(self, anchors)

    def _claim(self, name: str) -> None:
        if not isinstance(name, str) or not _NAME.match(name) or name in _RESERVED:
            raise InputError(f"report item name {name!r} must be letters, digits, '_', '-', '.' "
                             f"(a file name), and not one of {sorted(_RESERVED)}")
        if name in self._names:
            raise InputError(f"report item name {name!r} is used twice; names become file names")
        self._names.add(name)

    # -- writing --------------------------------------------------------------------------------
    def write(self, out_dir: str | os.PathLike, force: bool = False) -> Path:
        """Write the report into ``out_dir``, replacing only an old report's files; return the directory."""
        out = check_target(out_dir, force, self.game)
        with OutputLock(out, "report output"):
            with staging(out, "building") as tmp:
                self._build(tmp)
                os.chmod(tmp, 0o755)
                install(tmp, out, force)
        return out

    def _build(self, tmp: Path) -> None:
        svgs: dict[str, str] = {}
        names = value_names()  # once per report: each game's display names (loading a game's names costs ms)
        shown = {b.name: display_frame(b.frame.head(b.max_rows), names) for b in self.blocks if b.kind == "table"}
        for i, block in enumerate(b for b in self.blocks if b.kind == "chart"):
            svg, png = _render(block.spec)
            (tmp / f"{block.name}.svg").write_text(svg, encoding="utf-8")
            (tmp / f"{block.name}.png").write_bytes(png)
            (tmp / f"{block.name}.vl.json").write_text(json.dumps(block.spec, indent=1, default=str), encoding="utf-8")
            svgs[block.name] = _prefix_ids(_strip_xml_header(svg), f"c{i}-")
        for block in self.blocks:
            if block.kind == "table":
                block.frame.write_parquet(tmp / f"{block.name}.parquet")
                csv_safe(block.frame).write_csv(tmp / f"{block.name}.csv")
        said = self.summary()
        if said is not None:
            from workbench.core.present.summary import summary_file_markdown

            (tmp / "summary.json").write_text(json.dumps(said, indent=1, default=str), encoding="utf-8")
            (tmp / "summary.md").write_text(summary_file_markdown(said), encoding="utf-8")
        (tmp / "index.html").write_text(self._html(svgs, shown, said), encoding="utf-8")
        (tmp / "index.md").write_text(self._markdown(shown, said), encoding="utf-8")
        files = sorted(p.name for p in tmp.iterdir()) + ["report.json"]
        (tmp / "report.json").write_text(json.dumps({
            "format": FORMAT, "title": self.title, **({"game": self.game} if self.game else {}), "meta": self.meta,
            "tables": [b.name for b in self.blocks if b.kind == "table"],
            "charts": [b.name for b in self.blocks if b.kind == "chart"],
            "files": sorted(files),
        }, indent=1, default=str), encoding="utf-8")

    def header_rows(self) -> list[tuple[str, str]]:
        """``(label, value)`` pairs of the header block: the key facts first, then other meta."""
        rows = []
        names = {key: name for known in value_names().values() for key, name in known.items()}  # once a header
        for key, label in _HEADER_KEYS:
            if key in self.meta:
                rows.append((label, _meta_text(self.meta[key], names)))
            elif key in _REQUIRED:
                rows.append((label, "not stated"))
        known = {k for k, _ in _HEADER_KEYS}
        rows += [(k.replace("_", " ").capitalize(), _meta_text(v, names)) for k, v in self.meta.items()
                 if k not in known]
        if "workbench_version" not in self.meta:
            rows.append(("Workbench version", package_version()))
        return rows

    def _html(self, svgs: dict[str, str], shown: dict[str, pl.DataFrame], said: dict[str, Any] | None = None) -> str:
        from workbench.core.present.summary import summary_html

        e = html.escape
        parts = [f"<h1>{e(self.title)}</h1>", '<table class="meta">']
        parts += [f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in self.header_rows()]
        parts.append("</table>")
        if said is not None:
            parts.append(summary_html(said))
        for b in self.blocks:
            if b.kind == "section":
                parts.append(f'<h2 id="section-{e(b.name)}">{e(b.title)}</h2>')
                parts.append(markdown_to_html(b.text))
            elif b.kind == "text":
                parts.append(markdown_to_html(b.text))
            elif b.kind == "table":
                parts.append(_html_table(b, shown[b.name]))
            else:
                cap = f"<figcaption>{_inline(b.caption)}</figcaption>" if b.caption else ""
                parts.append(f'<figure id="chart-{e(b.name)}" class="chart">{svgs[b.name]}{cap}'
                             f'<div class="files"><a href="{e(b.name)}.svg">SVG</a> · '
                             f'<a href="{e(b.name)}.png">PNG</a> · '
                             f'<a href="{e(b.name)}.vl.json">Vega-Lite</a></div></figure>')
        body = "\n".join(p for p in parts if p)
        return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
                f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
                f"<title>{e(self.title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n")

    def _markdown(self, shown: dict[str, pl.DataFrame], said: dict[str, Any] | None = None) -> str:
        from workbench.core.present.summary import summary_markdown

        lines = [f"# {self.title}", "", "| | |", "|---|---|"]
        lines += [f"| {_md_cell(k)} | {_md_cell(v)} |" for k, v in self.header_rows()]
        lines.append("")
        if said is not None:
            lines += summary_markdown(said)
        for b in self.blocks:
            if b.kind == "section":
                lines += [f'<a id="section-{b.name}"></a>', "", f"## {b.title}", ""]
                lines += [b.text.strip(), ""] if b.text.strip() else []
            elif b.kind == "text":
                lines += [b.text.strip(), ""]
            elif b.kind == "table":
                lines += [f'<a id="table-{b.name}"></a>', ""] + _md_table(b, shown[b.name]) + [""]
            else:
                alt_text = b.caption or b.name
                lines += [f"![{_md_cell(alt_text)}]({b.name}.png)", ""]
                if b.caption:
                    lines += [f"*{b.caption}* ([SVG]({b.name}.svg), [Vega-Lite]({b.name}.vl.json))", ""]
                else:
                    lines += [f"[SVG]({b.name}.svg), [Vega-Lite]({b.name}.vl.json)", ""]
        return "\n".join(lines).rstrip() + "\n"


def _slug(title: str) -> str:
    """A section's anchor name from its title: lower case, words joined by '-' (``1-the-streak-model``)."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "section"


def meta_from_frame(frame: pl.DataFrame, **extra: Any) -> dict[str, Any]:
    """Header facts of a result frame: rules version(s), master seed(s), games, agents (+ ``extra``).

    Reads the runner's common columns (``rules_version``, ``master_seed``, ``agent_p1``..); agent
    line-ups are listed as ``"random vs greedy"``.
    """
    meta: dict[str, Any] = {}
    if "rules_version" in frame.columns:
        meta["rules_version"] = frame.get_column("rules_version").unique().sort().to_list()
    if "master_seed" in frame.columns:
        seeds = frame.get_column("master_seed").unique().sort().to_list()
        meta["seed" if len(seeds) == 1 else "seeds"] = seeds[0] if len(seeds) == 1 else seeds
    meta["games"] = frame.height
    seats = [c for c in frame.columns if re.fullmatch(r"agent_p\d", c)]
    if seats:
        lineups = frame.select(seats).unique(maintain_order=True).rows()
        meta["agents"] = [" vs ".join(a for a in row if a is not None) for row in lineups]
    meta.update(extra)
    return meta


_CSS = (
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1100px;margin:2em auto;"
    "padding:0 1em;color:#222;line-height:1.45}"
    "table{border-collapse:collapse;margin:.5em 0 1em;font-size:.9em}"
    "th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}"
    "th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}"
    "table.meta th{width:12em}figure{margin:1em 0}figure svg{max-width:100%;height:auto}"
    "figcaption,.caption{font-style:italic;margin:.3em 0}.files,.more{font-size:.85em;color:#666}"
    "pre{background:#f6f6f6;padding:.6em;overflow-x:auto}"
)


def report_info(directory: Path) -> dict[str, Any] | None:
    """The ``report.json`` of a report in ``directory`` (its title, game, meta, files), or None: no report there."""
    path = Path(directory) / "report.json"
    if not path.is_file():
        return None
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, OSError):
        return None
    return info if isinstance(info, dict) and "title" in info else None


def own_files(directory: Path) -> set[str] | None:
    """The files a report in ``directory`` wrote (from its ``report.json``), or None: no report there."""
    info = report_info(Path(directory))
    if info is None:
        return None
    if isinstance(info.get("files"), list):
        return {str(f) for f in info["files"]}
    names = {"index.html", "index.md", "report.json"}  # a report written before the file list existed
    names |= {f"{t}.{ext}" for t in info.get("tables", []) for ext in ("csv", "parquet")}
    names |= {f"{c}.{ext}" for c in info.get("charts", []) for ext in ("svg", "png", "vl.json")}
    return names


@contextmanager
def staging(out: Path, kind: str = "staging") -> Iterator[Path]:
    """A temporary folder beside ``out`` (same file system: the finished report is renamed in), always removed.

    A file that cannot be written is an :class:`OutputError` naming it (and the folder, when even
    its removal failed).  Ctrl-C and SIGTERM (which the CLI turns into ``KeyboardInterrupt``)
    remove it too.
    """
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.{kind}-", dir=out.parent))
    except OSError as exc:
        raise OutputError(f"report output {out}: cannot write in {out.parent} ({exc.strerror or exc}); give a "
                          "folder you can write to") from None
    try:
        yield tmp
    except OutputError as exc:  # a report built inside this one (a game's builder): said about this output
        shutil.rmtree(tmp, ignore_errors=True)
        raise OutputError(f"report output {out}: could not be written ({exc.reason}); nothing was replaced"
                          f"{_left(tmp)}", exc.reason) from None
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        reason = exc.strerror or str(exc)
        raise OutputError(f"report output {out}: could not be written ({reason}); nothing was replaced{_left(tmp)}",
                          reason) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _left(tmp: Path) -> str:
    return f"; remove {tmp} by hand (it could not be removed)" if tmp.exists() else ""


def _taken(out: Path, names: set[str] | list[str] | tuple[str, ...]) -> list[str]:
    """Names the report would write in ``out`` that are held by files it did not write."""
    if not out.is_dir():
        return []
    own = own_files(out) or set()
    return sorted(n for n in names if n not in own and os.path.lexists(out / n))


def _refuse_taken(out: Path, names: set[str] | list[str] | tuple[str, ...]) -> None:
    taken = _taken(out, names)
    if taken:
        shown = ", ".join(str(out / n) for n in taken)
        raise InputError(f"report output {out}: {shown} {'is' if len(taken) == 1 else 'are'} not the workbench's "
                         f"(no report there lists {'it' if len(taken) == 1 else 'them'}) and the report would "
                         "replace it; --force never replaces your files: move or rename "
                         f"{'it' if len(taken) == 1 else 'them'}, or choose another --out")


def check_target(out_dir: str | os.PathLike, force: bool = False, game: str | None = None) -> Path:
    """Check a report directory before any work is done; return it as a path.

    It must be a directory (or not exist yet) under a writable one, and be empty, hold a report (of
    ``game``, when both say which game they report on: another game's report is not replaced), or be
    written with ``force``; an :class:`InputError` says which and what to do.
    """
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InputError(f"report output {out} exists and is not a directory; give a directory with --out")
    parent = next((p for p in (out, *out.parents) if p.exists()), Path("."))
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"report output {out}: {parent} is not a writable directory")
    if out.is_dir() and not force:
        present = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
        there = report_info(out)
        if present and there is None:
            shown = ", ".join(present[:5]) + (", …" if len(present) > 5 else "")
            raise InputError(f"report output {out} is not empty and holds no workbench report ({shown}); "
                             "choose another --out, or pass --force to add the report's files (yours are kept)")
        if game and there and there.get("game") and there["game"] != game:
            raise InputError(f"report output {out} holds the report of another game ({there['game']}: "
                             f"{there.get('title')}), not {game}'s; choose another --out, or pass --force to "
                             "replace it")
    _refuse_taken(out, _FIXED)
    return out


def install(built: Path, out: Path, force: bool = False) -> None:
    """Put the finished report ``built`` at ``out``, replacing only an old report's files.

    One atomic swap when ``out`` holds nothing but an old report (or nothing); else file by file,
    removing only the old report's files and keeping everything else.
    """
    check_target(out, force, (report_info(built) or {}).get("game"))
    _refuse_taken(out, [p.name for p in built.iterdir()])
    present = {p.name for p in out.iterdir()} if out.is_dir() else set()
    own = own_files(out) or set()
    if not present or present <= own:
        _swap_in(built, out)
        return
    new = {p.name for p in built.iterdir()}
    for name in sorted(new - {"report.json"}) + ["report.json"]:  # the file list last: a crash keeps the old one
        os.replace(built / name, out / name)
    for name in own - new:
        (out / name).unlink(missing_ok=True)
    shutil.rmtree(built, ignore_errors=True)


def _swap_in(tmp: Path, out: Path) -> None:
    """Replace ``out`` by the finished ``tmp`` directory (two renames; the old one is then removed)."""
    if not out.exists():
        os.rename(tmp, out)
        return
    old = out.parent / f".{out.name}.old-{uuid.uuid4().hex[:8]}"
    os.rename(out, old)
    try:
        os.rename(tmp, out)
    except BaseException:
        os.rename(old, out)
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _render(spec: dict) -> tuple[str, bytes]:
    import vl_convert

    version = _vl_version(spec, vl_convert.get_vegalite_versions())
    try:
        svg = _stable_gradients(vl_convert.vegalite_to_svg(spec, vl_version=version))
        # the PNG is the SVG rasterised: the same bytes as ``vegalite_to_png(spec, scale=2)``, without running
        # the Vega view a second time (that run took two thirds of a chart's rendering time)
        png = vl_convert.svg_to_png(svg, scale=2)
    except ValueError as exc:
        raise InputError(f"chart could not be rendered: {exc}") from exc
    return svg, png


def _stable_gradients(svg: str) -> str:
    """Number a chart's gradients from 0 in the order they appear.

    vl-convert numbers gradients (a colour scale's legend) with one counter per process, so the same
    chart drawn after others read ``gradient_7`` instead of ``gradient_0``: renumbered, a chart's SVG
    is the same bytes however many charts the process drew before it.
    """
    order: dict[str, int] = {}

    def number(m: re.Match) -> str:
        return f"{m.group(1)}gradient_{order.setdefault(m.group(2), len(order))}"

    return re.sub(r'(id="|url\(#)gradient_(\d+)', number, svg)


def inline_svg(spec: dict, prefix: str) -> str:
    """A Vega-Lite spec as an SVG to inline in a page, rendered offline with the spec's Vega-Lite version.

    The XML header is dropped and every id prefixed with ``prefix``, so several charts on one page do
    not share clip paths.
    """
    import vl_convert

    svg = vl_convert.vegalite_to_svg(spec, vl_version=_vl_version(spec, vl_convert.get_vegalite_versions()))
    return _prefix_ids(_strip_xml_header(svg), prefix)


def _vl_version(spec: dict, supported: list[str]) -> str | None:
    match = re.search(r"/v(\d+)\.(\d+)", str(spec.get("$schema", "")))
    if not match:
        return None
    want = f"{match.group(1)}.{match.group(2)}"
    if want in supported:
        return want
    same_major = [v for v in supported if v.split(".")[0] == match.group(1)]
    return same_major[-1] if same_major else None


def _strip_xml_header(svg: str) -> str:
    return re.sub(r"^\s*<\?xml[^>]*\?>\s*", "", svg)


def _prefix_ids(svg: str, prefix: str) -> str:
    """Make ids unique per chart, so several inline SVGs do not share clip paths."""
    ids = set(re.findall(r'\bid="([^"]+)"', svg))
    if not ids:
        return svg
    svg = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}{m.group(1)}"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}{m.group(1)})" if m.group(1) in ids else m.group(0), svg)
    return re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}{m.group(1)}"' if m.group(1) in ids else m.group(0),
                  svg)


def _meta_text(value: Any, names: dict[str, str]) -> str:
    """A header value as a person reads it; ``report.json`` keeps the keys.

    A declared key by its display name from ``names`` (``siege_of_ur`` → ``Siege of Ur``: the games'
    ``value_names``, as the report's tables read them), ``True``/``False`` as yes/no, big whole numbers with
    separators.
    """
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ", ".join(_meta_text(v, names) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}={_meta_text(v, names)}" for k, v in value.items())
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10_000 else str(value)
    if isinstance(value, str):
        return names.get(value, value)
    return str(value)


def csv_safe(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame with nested columns (lists of card ids) as text, so it can be written as CSV.

    Each nested value becomes its ``json.dumps`` text (``["F1", "F9"]``, ``[3, 4]``).  A list of strings, whole
    numbers or booleans is written by polars column-wise (the same text, tested against ``json.dumps``); any other
    nested value — a float, a struct, a string needing an escape beyond a quote or a backslash — one at a time.
    (This once called ``json.dumps`` through ``map_elements``, which hands a list to the function as a polars
    Series: every CSV's list column read ``"shape: (2,) Series: '' [str] …"``, and a stopped run's export spent
    most of its time printing them.)
    """
    nested = [c for c, t in frame.schema.items() if t.is_nested() or t == pl.Object]
    if not nested:
        return frame
    return frame.with_columns(_json_column(frame, c) for c in nested)


_PLAIN = r"^[\x20-\x7e]*$"  # printable ASCII: json.dumps escapes only a quote and a backslash of these


def _json_column(frame: pl.DataFrame, name: str) -> pl.Expr | pl.Series:
    """``name`` as the ``json.dumps`` text of each value (null stays null), column-wise where the type allows."""
    dtype = frame.schema[name]
    inner = dtype.inner if isinstance(dtype, pl.List) else None
    element = None
    if inner == pl.String:
        strings = frame.get_column(name).explode().drop_nulls()
        if strings.str.contains(_PLAIN).all():
            quoted = pl.element().str.replace_all("\\", "\\\\", literal=True).str.replace_all('"', '\\"',
                                                                                               literal=True)
            element = pl.concat_str([pl.lit('"'), quoted, pl.lit('"')])
    elif inner is not None and (inner.is_integer() or inner == pl.Boolean):
        element = (pl.when(pl.element().is_null()).then(pl.lit("null")).when(pl.element()).then(pl.lit("true"))
                   .otherwise(pl.lit("false")) if inner == pl.Boolean else pl.element().cast(pl.String))
    if element is None:  # one at a time, as Python values (a polars function given a list gets a Series)
        return pl.Series(name, [None if v is None else json.dumps(v, default=str)
                                for v in frame.get_column(name).to_list()], dtype=pl.String)
    items = pl.col(name).list.eval(element.fill_null(pl.lit("null"))).list.join(", ")
    return pl.concat_str([pl.lit("["), items, pl.lit("]")]).alias(name)


# -- displayed tables ---------------------------------------------------------------------------
def _interval_triples(columns: list[str]) -> list[tuple[str, str, str]]:
    cols = set(columns)
    triples = [(c, f"{c}_low", f"{c}_high") for c in columns if f"{c}_low" in cols and f"{c}_high" in cols]
    if "low" in cols and "high" in cols:
        for c in ("diff", "rate", "share", "estimate"):
            if c in cols:
                triples.append((c, "low", "high"))
                break
    return triples


def _fmt_value(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if v != v:
            return "–"
        if v == int(v) and abs(v) < 1e15:
            return str(int(v))
        return f"{v:.4g}"
    if isinstance(v, (list, tuple, dict)):
        return json.dumps(v, default=str)
    return str(v)


# columns of differences (a tier's too: ``greedy · iwd``): read in signed points
SIGNED = ("diff", "change", "iwd", "beyond_cost", "skill_change")


def _fmt_interval(rate: Any, low: Any, high: Any, signed: bool) -> str:
    if rate is None or (isinstance(rate, float) and rate != rate):
        return "–"
    if signed:
        return f"{100 * rate:+.1f} pts [{100 * low:+.1f}, {100 * high:+.1f}]"
    return f"{100 * rate:.1f}% [{100 * low:.1f}–{100 * high:.1f}]"


# raw column names → the labels a person reads in every table shown (report, CLI, studio); CSV and Parquet keep the
# raw names.  A name not listed reads in words: ``first_mover_all_n`` → ``first mover all (games)``.
LABELS = {
    "n": "games", "k": "wins", "seat": "seat", "win": "win rate", "win_n": "games", "metric": "what is compared",
    "first_mover": "first seat wins, decisive games", "first_mover_n": "decisive games with a first seat",
    "first_mover_all": "first seat wins (a draw counts as a loss)", "first_mover_all_n": "games with a first seat",
    "first_mover_p": "p vs fair share (decisive games)",
    "first_seat_score": "first seat score", "first_seat_score_n": "games with a first seat",
    "first_seat_draws": "draws (games with a first seat)", "first_seat_draws_n": "games with a first seat",
    "reason": "how the game ended",
    "share": "share of games", "length": "length (turns)", "mean": "mean", "median": "median",
    "diff": "difference (edited − unchanged)", "base": "unchanged", "variant": "edited", "p_value": "p-value",
    "p_holm": "p-value, Holm-corrected", "confidence": "interval level", "significant": "significant",
    "gained": "games gained", "lost": "games lost", "discordant": "games that differ",
    "length_base": "mean length, unchanged", "length_variant": "mean length, edited", "rate": "rate",
    "rate_base": "rate, baseline", "n_base": "games, baseline", "n_variant": "games, edited",
    "k_base": "wins, baseline", "cell": "cell", "key": "key", "column": "column", "was": "was", "now": "now",
    "name_en": "name",
    "first_seat_win": "first seat wins", "first_seat_p": "p vs 50 %", "draws": "draws",
    "length_mean": "mean length", "length_median": "median length", "length_sd": "sd of length",
    "length_min": "shortest", "length_max": "longest", "length_q10": "length, 10th percentile",
    "length_q25": "length, 25th percentile", "length_q75": "length, 75th percentile",
    "length_q90": "length, 90th percentile", "length_n": "games", "p1_win": "p1 wins", "p2_win": "p2 wins",
    "wr_drawn": "win rate when drawn", "wr_played": "win rate when played", "wr_undrawn": "win rate when not drawn",
    "play_rate": "played when drawn", "seat_games": "seat-games", "iwd": "improvement when drawn",
    "iwd_p": "p-value (improvement when drawn)", "emp_value": "value from play", "emp_residual": "residual from play",
    "residual_z": "residual (z)", "timeout_share": "share lost on time", "miss_rate": "miss rate",
    "value_before": "value before", "value_after": "value after", "counted": "counted when",
    "change": "change (paired)", "default_score": "score, default reading", "default_draws": "draws, default reading",
    "default_verdict": "verdict, default reading", "verdict_changes": "verdict changes",
    "beyond_cost": "improvement beyond its cost", "wr_drawn_n": "seat-games drawn in",
    "skill_change": "change, strongest two tiers", "status": "status across skill",
    "tiers": "tiers measured at", "games needed": "games needed at each tier",
}


def metric_label(key: str) -> str:
    """What a compared metric reads as in a table a person sees.

    ``first_seat_win`` → ``first seat wins``, ``end_tower_built`` → ``ends: tower built`` (an end reason's
    share), ``wr_drawn`` → ``win rate when drawn``.
    """
    if key.startswith("end_") and key not in LABELS:
        return f"ends: {key[4:].replace('_', ' ')}"
    return column_label(key)


# columns whose values are raw keys a person reads in words (CSV and Parquet keep the keys): how the game ended
# (``tower_destroyed`` → ``tower destroyed``) and what a what-if compares (:func:`metric_label`)
WORDED: dict[str, Callable[[str], str]] = {"reason": lambda key: key.replace("_", " "), "metric": metric_label}


def column_label(name: str) -> str:
    """The label a person reads for a raw column name (:data:`LABELS`, else the name in words)."""
    if name in LABELS:
        return LABELS[name]
    if " · " in name:  # a tier's (or an arm's) column: "greedy · wr_drawn_n" → "greedy · win rate when drawn (games)"
        head, _, what = name.rpartition(" · ")
        return f"{head} · {column_label(what)}"
    if name.endswith("_n"):
        return f"{name[:-2].replace('_', ' ')} (games)"
    return name.replace("_", " ")


def header_labels(columns: list[str]) -> list[str]:
    """The labels of ``columns`` as one table's header; columns whose labels would coincide keep their raw names."""
    labels = [column_label(c) for c in columns]
    return [c if labels.count(x) > 1 else x for c, x in zip(columns, labels, strict=True)]


def labelled(frame: pl.DataFrame) -> pl.DataFrame:
    """:func:`display_frame` with plain column labels (:func:`header_labels`): the table a person reads."""
    shown = display_frame(frame)
    return shown.rename(dict(zip(shown.columns, header_labels(shown.columns), strict=True)))


def display_frame(frame: pl.DataFrame, names: dict[str, dict[str, str]] | None = None) -> pl.DataFrame:
    """All-string copy of ``frame`` for people: each rate merged with its interval columns.

    ``win``, ``win_low``, ``win_high`` become one column ``win`` reading ``"52.3% [51.3–53.3]"``;
    a ``diff`` with ``low``/``high`` reads ``"+2.1 pts [+0.4, +3.8]"``.  Other floats get 4
    significant digits, nulls a dash.  Keys read by their display names (``crystal_garden`` →
    ``Crystal Garden``) in the columns :func:`workbench.core.model.value_names` knows (``names``: its
    answer, when the caller shows several tables at once); the keys in :data:`WORDED` columns read in
    words (an end reason ``tower_destroyed`` → ``tower destroyed``, a metric ``p1_win`` → ``p1 wins``).
    """
    names = value_names() if names is None else names
    keyed = [c for c in frame.columns if c in names and frame.schema[c] == pl.String]
    if keyed:
        frame = frame.with_columns(pl.col(c).replace(names[c]) for c in keyed)
    worded = [c for c in WORDED if c in frame.columns and c not in keyed and frame.schema[c] == pl.String]
    if worded:
        frame = frame.with_columns(pl.col(c).replace({v: WORDED[c](v) for v in frame.get_column(c).drop_nulls()
                                                      .unique().to_list()}) for c in worded)
    triples = _interval_triples(frame.columns)
    merged = {t[0]: t for t in triples}
    dropped = {c for t in triples for c in t[1:]}
    out: dict[str, list[str]] = {}
    for col in frame.columns:
        if col in dropped:
            continue
        if col in merged:
            _, lo, hi = merged[col]
            out[col] = [_fmt_interval(r, a, b, col.rsplit(" · ", 1)[-1] in SIGNED) for r, a, b in
                        zip(frame.get_column(col).to_list(), frame.get_column(lo).to_list(),
                            frame.get_column(hi).to_list(), strict=True)]
        else:
            out[col] = [_fmt_value(v) for v in frame.get_column(col).to_list()]
    return pl.DataFrame(out, schema={c: pl.String for c in out})


def _numeric_columns(frame: pl.DataFrame) -> set[str]:
    return {c for c, t in frame.schema.items() if t.is_numeric()}


def _table_note(b: _Block) -> str:
    n = b.frame.height
    shown = min(n, b.max_rows)
    files = f"full table: {b.name}.csv, {b.name}.parquet"
    return f"showing {shown} of {n} rows; {files}" if shown < n else files


def _html_table(b: _Block, shown: pl.DataFrame) -> str:
    e = html.escape
    numeric = _numeric_columns(b.frame)
    labels = header_labels(shown.columns)
    head = "".join(f'<th data-column="{e(c)}">{e(x)}</th>' for c, x in zip(shown.columns, labels, strict=True))
    rows = []
    for row in shown.iter_rows():
        cells = "".join(f'<td class="num">{e(v)}</td>' if c in numeric else f"<td>{e(v)}</td>"
                        for c, v in zip(shown.columns, row, strict=True))
        rows.append(f"<tr>{cells}</tr>")
    cap = f'<p class="caption">{_inline(b.caption)}</p>' if b.caption else ""
    note = _table_note(b).replace(f"{b.name}.csv", f'<a href="{e(b.name)}.csv">{e(b.name)}.csv</a>') \
        .replace(f"{b.name}.parquet", f'<a href="{e(b.name)}.parquet">{e(b.name)}.parquet</a>')
    return (f'<div class="table" id="table-{e(b.name)}">{cap}<table><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table><p class="more">{note}</p></div>')


def _md_cell(v: Any) -> str:
    return str(v).replace("|", "\\|").replace("\n", " ")


def _md_table(b: _Block, shown: pl.DataFrame) -> list[str]:
    lines = [f"*{b.caption}*", ""] if b.caption else []
    if shown.width == 0:
        return lines + ["(empty table)", ""]
    lines.append("| " + " | ".join(_md_cell(x) for x in header_labels(shown.columns)) + " |")
    numeric = _numeric_columns(b.frame)
    lines.append("|" + "|".join("---:" if c in numeric else "---" for c in shown.columns) + "|")
    lines += ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in shown.iter_rows()]
    note = _table_note(b).replace(f"{b.name}.csv", f"[{b.name}.csv]({b.name}.csv)") \
        .replace(f"{b.name}.parquet", f"[{b.name}.parquet]({b.name}.parquet)")
    return lines + ["", f"<sub>{note}</sub>"]


# -- a small Markdown subset (headings, paragraphs, lists, code, emphasis, links) ---------------
def _inline(text: str) -> str:
    out = html.escape(text, quote=False)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)
    out = re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])", r"<em>\1</em>", out)
    return re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", lambda m: f'<a href="{html.escape(m.group(2))}">{m.group(1)}</a>', out)


def markdown_to_html(text: str) -> str:
    """Render the small Markdown subset reports use; everything else stays escaped text."""
    out: list[str] = []
    para: list[str] = []
    items: list[str] = []
    code: list[str] | None = None

    def flush() -> None:
        if para:
            out.append("<p>" + _inline(" ".join(para)) + "</p>")
            para.clear()
        if items:
            out.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in items) + "</ul>")
            items.clear()

    for line in (text or "").splitlines():
        if code is not None:
            if line.strip().startswith("```"):
                out.append("<pre><code>" + html.escape("\n".join(code)) + "</code></pre>")
                code = None
            else:
                code.append(line)
            continue
        stripped = line.strip()
        heading = re.match(r"^(#{1,6})\s+(.*)$", stripped)
        if stripped.startswith("```"):
            flush()
            code = []
        elif not stripped:
            flush()
        elif heading:
            flush()
            level = min(6, len(heading.group(1)) + 1)  # the report title is the only h1
            out.append(f"<h{level}>{_inline(heading.group(2))}</h{level}>")
        elif re.match(r"^[-*]\s+", stripped):
            if para:
                flush()
            items.append(re.sub(r"^[-*]\s+", "", stripped))
        elif items and line.startswith(("  ", "\t")):
            items[-1] += " " + stripped
        else:
            if items:
                flush()
            para.append(stripped)
    if code is not None:
        out.append("<pre><code>" + html.escape("\n".join(code)) + "</code></pre>")
    flush()
    return "\n".join(out)
