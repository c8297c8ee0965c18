"""Run and Stop for the studio: a task in a background thread with a progress bar, a rate and an ETA.

:class:`JobPanel` runs ``task(on_progress, should_stop)`` in a thread, so the page stays responsive
and the bar moves.  Stop asks the task to finish after its current chunk; the library's runners
then raise :class:`~workbench.core.errors.RunInterrupted` carrying the finished games, and the panel
hands them to ``on_stopped`` — nothing finished is lost.  Any other error goes to ``on_error`` as a
readable message, never a traceback.  The status line carries its state as data (``data-state``,
``data-done``, ``data-total``) for the page's tests.
"""

from __future__ import annotations

import html
import threading
import time
from collections.abc import Callable
from typing import Any

from workbench.app.render import error_message
from workbench.core.errors import RunInterrupted
from workbench.ui.common import require_widgets

__all__ = ["JobPanel", "eta_text"]

Task = Callable[[Callable[[int, int], None], Callable[[], bool]], Any]
EVERY = 0.1  # seconds between progress updates sent to the page


def eta_text(seconds: float) -> str:
    """``ETA 4 s`` / ``ETA 2.5 min``."""
    if seconds < 1:
        return "ETA <1 s"
    return f"ETA {seconds:.0f} s" if seconds < 120 else f"ETA {seconds / 60:.1f} min"


class JobPanel:
    """Run / Stop buttons, a progress bar and a status line over one task at a time."""

    def __init__(self, label: str = "Run", unit: str = "games") -> None:
        w = require_widgets()
        self.unit = unit
        self.run_button = w.Button(description=label, button_style="primary", icon="play",
                                   tooltip=f"{label}: play in the background; Stop keeps the finished {unit}")
        self.stop_button = w.Button(description="Stop", icon="stop", disabled=True,
                                    tooltip=f"stop after the current chunk; finished {unit} are kept")
        self.progress = w.IntProgress(value=0, min=0, max=1, layout=w.Layout(width="320px"))
        self.status = w.HTML(self._state("idle", "ready"))
        for widget, name in ((self.run_button, "wb-run"), (self.stop_button, "wb-stop"), (self.progress, "wb-progress"),
                             (self.status, "wb-status")):
            widget.add_class(name)
        self.widget = w.HBox([self.run_button, self.stop_button, self.progress, self.status],
                             layout=w.Layout(align_items="center"))
        self.thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._started = 0.0
        self._last = 0.0
        self.stop_button.on_click(lambda _: self.stop())

    # -- state ------------------------------------------------------------------------------------
    def _state(self, state: str, text: str, done: int | None = None, total: int | None = None) -> str:
        data = f' data-state="{state}"'
        if done is not None:
            data += f' data-done="{done}" data-total="{total}"'
        return f'<span class="wb-state"{data}>{html.escape(text)}</span>'

    @property
    def running(self) -> bool:
        """True while a task runs."""
        return self.thread is not None and self.thread.is_alive()

    def _on_progress(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if now - self._last < EVERY and done < total:
            return
        self._last = now
        self.progress.max = max(1, total)
        self.progress.value = min(done, total)
        rate = done / max(1e-9, now - self._started)
        eta = eta_text((total - done) / rate) if rate > 0 and done < total else ""
        text = f"{done:,} / {total:,} {self.unit} · {rate:,.0f} {self.unit}/s" + (f" · {eta}" if eta else "")
        self.status.value = self._state("running", text, done, total)

    # -- running ----------------------------------------------------------------------------------
    def start(self, task: Task, on_done: Callable[[Any, float], None],
              on_stopped: Callable[[RunInterrupted, float], None] | None = None,
              on_error: Callable[[str], None] | None = None) -> bool:
        """Start ``task`` unless one runs; the callbacks get the result (or the stop) and the seconds taken."""
        if self.running:
            return False
        self._stop.clear()
        self.progress.value, self.progress.max = 0, 1
        self.progress.bar_style = ""
        self.status.value = self._state("running", "starting…", 0, 0)
        self.run_button.disabled, self.stop_button.disabled = True, False
        self._started = self._last = time.perf_counter()
        self.thread = threading.Thread(target=self._work, args=(task, on_done, on_stopped, on_error),
                                       name="studio-job", daemon=True)
        self.thread.start()
        return True

    def _work(self, task: Task, on_done: Callable, on_stopped: Callable | None, on_error: Callable | None) -> None:
        try:
            result = task(self._on_progress, self._stop.is_set)
            took = time.perf_counter() - self._started
            self.progress.value = self.progress.max
            self.progress.bar_style = "success"
            total = self.progress.max
            self.status.value = self._state("done", f"done in {took:.1f} s", total, total)
            on_done(result, took)
        except RunInterrupted as exc:
            took = time.perf_counter() - self._started
            self.progress.bar_style = "warning"
            self.status.value = self._state("stopped", f"stopped after {exc.done:,} of {exc.total:,} {self.unit}; "
                                                       "finished ones kept", exc.done, exc.total)
            if on_stopped is not None:
                on_stopped(exc, took)
        except BaseException as exc:  # noqa: BLE001 - a thread has nobody else to tell; the page says it
            self.progress.bar_style = "danger"
            text = error_message(exc)
            self.status.value = self._state("error", "error", None, None)
            if on_error is not None:
                on_error(text)
        finally:
            self.run_button.disabled, self.stop_button.disabled = False, True

    def stop(self) -> None:
        """Ask the running task to stop after its current chunk."""
        if self.running:
            self._stop.set()
            self.status.value = self._state("stopping", "stopping after the current chunk…")

    def wait(self, timeout: float | None = None) -> None:
        """Block until the running task ends (scripts and tests)."""
        if self.thread is not None:
            self.thread.join(timeout)
