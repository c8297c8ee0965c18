"""The summary panel: what a game's report finds and what to change — the studio's first panel of a game.

It reads ``reports/<game>/summary.json`` (``core/present/summary.py``; the same sentences as the report's
opening and ``workbench report GAME --summary``): each finding with its status across skill
(settled / moves with skill / undecided: play more, or none for an exact or untiered number),
then "What to change".  Without a summary it says so and offers **Build quick report**, which runs
``workbench report GAME --quick`` in the background (a separate process, so Stop ends it at once
and a stopped build leaves the previous report as it was), with the report's steps as progress.
"""

from __future__ import annotations

import html
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from workbench.core.errors import InputError, RunInterrupted
from workbench.core.model import get_game
from workbench.core.present.summary import FINDS, TO_CHANGE, read_summary
from workbench.ui.common import require_widgets
from workbench.ui.render import CSS, message
from workbench.ui.run import RunPanel

__all__ = ["SummaryPanel", "reports_dir", "summary_panel_html"]

STATUS_CLASS = {"settled": "settled", "moves with skill": "moves", "undecided: play more": "undecided"}
_STYLE = ("<style>.wb-summary li{margin:.2em 0}.wb-status-tag{font-size:.8em;padding:0 .4em;border-radius:.6em;"
          "margin-left:.4em;background:#eee}.wb-status-settled{background:#d8f0d8}.wb-status-moves{background:#fbe3c0}"
          ".wb-status-undecided{background:#e6e6f5}</style>")


def reports_dir() -> Path:
    """Where the studio looks for reports: ``$WORKBENCH_REPORTS`` or ``reports`` (the CLI's default ``--out``)."""
    return Path(os.environ.get("WORKBENCH_REPORTS", "reports"))


def _item(item: dict[str, Any]) -> str:
    e = html.escape
    status = item.get("status")
    tag = (f'<span class="wb-status-tag wb-status-{STATUS_CLASS.get(status, "other")}">{e(status)}</span>'
           if status else "")
    return f'<li data-status="{e(status or "")}">{e(item["sentence"])}{tag}</li>'


def summary_panel_html(summary: dict[str, Any], folder: Path | None = None) -> str:
    """The summary's two sections as the panel shows them (plain labels; the report's file named)."""
    e = html.escape
    parts = [_STYLE, f'<div class="wb-summary" data-findings="{len(summary["findings"])}">',
             f"<h3>{FINDS}</h3><ul>"]
    parts += [_item(f) for f in summary["findings"]] or ["<li>This report states no verdicts.</li>"]
    parts.append("</ul>")
    if summary.get("changes"):
        parts += [f"<h3>{TO_CHANGE}</h3><ul>"] + [_item(c) for c in summary["changes"]] + ["</ul>"]
    built = f"rules version {summary.get('rules_version')}, workbench {summary.get('workbench_version')}"
    where = f" · the whole report: {e(str(folder / 'index.html'))}" if folder is not None else ""
    quick = " (a quick report: small samples, wide intervals)" if summary.get("quick") else ""
    parts.append(f'<div class="wb-more">From {e(summary["title"])}{e(quick)}; built by {e(built)}{where}</div></div>')
    return "".join(parts)


class SummaryPanel:
    """The summary of ``game``'s report in ``folder`` (default ``reports/<game>``), or how to build one."""

    def __init__(self, game: str, folder: str | Path | None = None) -> None:
        w = require_widgets()
        self.model = get_game(game)
        self.folder = Path(folder) if folder is not None else reports_dir() / self.model.name
        self.view = w.HTML()
        self.view.add_class("wb-summary-view")
        self.job = RunPanel("Build quick report", unit="steps")
        self.job.run_button.on_click(lambda _: self.build())
        # its own class names: the study's Run, Stop, bar and status below keep theirs alone on the page
        for widget, name in ((self.job.run_button, "wb-run"), (self.job.stop_button, "wb-stop"),
                             (self.job.progress, "wb-progress"), (self.job.status, "wb-status")):
            widget.remove_class(name)
            widget.add_class(name.replace("wb-", "wb-summary-"))
        self.note = w.HTML()
        self.widget = w.VBox([w.HTML(CSS + f"<h3 class='wb-summary-title'>{html.escape(self.model.title)}: what "
                                           "its report finds</h3>"), self.view, self.job.widget, self.note])
        self.widget.add_class("wb-summary-panel")
        self.proc: subprocess.Popen | None = None
        self.refresh()

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    @property
    def summary(self) -> dict[str, Any] | None:
        """The report's ``summary.json`` (None: no report with a summary there)."""
        return read_summary(self.folder)

    def command(self) -> str:
        """The command that builds the report this panel reads."""
        return f"workbench report {self.model.name} --quick --out {self.folder}"

    def refresh(self) -> None:
        """Show the summary as it is on disk now."""
        said = self.summary
        if said is None:
            self.view.value = message(f"No report of {self.model.title} with a summary in {self.folder} yet. Press "
                                      f"Build quick report (about a minute), or run `{self.command()}` (without "
                                      "--quick for the full report).", "info", state="missing")
        else:
            self.view.value = summary_panel_html(said, self.folder)

    def build(self, wait: bool = False) -> dict[str, Any] | None:
        """Build the quick report in the background (``wait``: block until done; return its summary)."""
        self.note.value = ""
        self.job.start(self._task, lambda _, took: self._done(took), lambda exc, took: self._stopped(),
                       self._error)
        if wait:
            self.job.wait()
            return self.summary
        return None

    def _task(self, on_progress: Any, should_stop: Any) -> int:
        cmd = [sys.executable, "-m", "workbench.cli", "report", self.model.name, "--quick", "--out", str(self.folder)]
        self.proc = proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                            env={**os.environ, "WORKBENCH_PROGRESS_EVERY": "2"})
        lines: list[str] = []
        steps = [0]

        def read() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.append(line.rstrip())
                if " done in " in line:
                    steps[0] += 1
                    on_progress(steps[0], steps[0] + 1)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            while proc.poll() is None:
                if should_stop():
                    proc.terminate()  # the command stops at its next chunk and removes its building folder
                    try:
                        proc.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        proc.wait()
                    raise RunInterrupted(None, steps[0], steps[0] + 1)
                time.sleep(0.1)
        finally:
            reader.join(timeout=2)
            proc.stdout.close()  # the pipe goes with the command (it was left to the collector, with a warning)
        if proc.returncode != 0:
            said = next((x for x in reversed(lines) if x.strip()), "no output")
            raise InputError(f"the report was not built: {said}")
        return steps[0]

    def _done(self, took: float) -> None:
        self.job.finish("done", f"report built in {took:.0f} s", self.job.latest[0], self.job.latest[0])
        self.refresh()

    def _stopped(self) -> None:
        self.note.value = message("Stopped: no report was written (the previous one, if any, is unchanged).", "info")
        self.refresh()

    def _error(self, text: str) -> None:
        self.note.value = message(text, "error")
