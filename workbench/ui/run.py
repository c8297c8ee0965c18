"""The one run panel: Run / Stop, a progress bar with the rate and the ETA, and a status line.

:class:`RunPanel` runs ``task(on_progress, should_stop)`` in a background thread, so the notebook or
the studio's page stays responsive and the bar moves.  Stop asks the task to finish after its
current chunk: the library's runners then either return what finished or raise
:class:`~workbench.core.errors.RunInterrupted` carrying the finished games, which the panel hands to
``on_stopped`` — nothing finished is lost.  Any other error goes to ``on_error`` as a readable
message, never a traceback.  The status line carries its state as data (``data-state``,
``data-done``, ``data-total``) for the tests; :meth:`RunPanel.wait` blocks until the task ended
(scripts, tests, a notebook executed headless).
"""

from __future__ import annotations

import html
import threading
import time
from collections.abc import Callable
from typing import Any

from workbench.core.errors import RunInterrupted
from workbench.ui.common import require_widgets
from workbench.ui.render import error_message

__all__ = ["RunPanel", "eta_text"]

Task = Callable[[Callable[[int, int], None], Callable[[], bool]], Any]
EVERY = 0.1  # seconds between progress updates sent to the page


def eta_text(seconds: float) -> str:
    """``ETA 4 s`` / ``ETA 2.5 min``."""
    if seconds < 1:
        return "ETA <1 s"
    return f"ETA {seconds:.0f} s" if seconds < 120 else f"ETA {seconds / 60:.1f} min"


def state_html(state: str, text: str, done: int | None = None, total: int | None = None,
               stop_took: float | None = None) -> str:
    """The status line's text with its state as data (``data-state``, ``data-done``, ``data-total``).

    A stopped run also carries ``data-stop-seconds``: from Stop pressed to the run ended, in the kernel.
    """
    data = f' data-state="{state}"'
    if done is not None:
        data += f' data-done="{done}" data-total="{total}"'
    if stop_took is not None:
        data += f' data-stop-seconds="{stop_took:.3f}"'
    return f'<span class="wb-state"{data}>{html.escape(text)}</span>'


class RunPanel:
    """Run / Stop buttons, a progress bar and a status line over one task at a time.

    ``result`` holds the last finished task's return value, ``error`` the last exception (a stop
    included), ``stopped`` whether the last run was asked to stop.
    """

    def __init__(self, label: str = "Run", unit: str = "games") -> None:
        w = require_widgets()
        self.unit = unit
        self.run_button = w.Button(description=label, button_style="primary", icon="play",
                                   tooltip=f"{label}: play in the background; Stop keeps the finished {unit}")
        self.stop_button = w.Button(description="Stop", icon="stop", disabled=True,
                                    tooltip=f"stop after the current chunk; finished {unit} are kept")
        self.progress = w.IntProgress(value=0, min=0, max=1, layout=w.Layout(width="320px"))
        self.status = w.HTML(state_html("idle", "ready"))
        for widget, name in ((self.run_button, "wb-run"), (self.stop_button, "wb-stop"), (self.progress, "wb-progress"),
                             (self.status, "wb-status")):
            widget.add_class(name)
        self.widget = w.HBox([self.run_button, self.stop_button, self.progress, self.status],
                             layout=w.Layout(align_items="center"))
        self.thread: threading.Thread | None = None
        self._active = False  # a task runs: set before its thread starts, cleared before Run is enabled again
        self.result: Any = None
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._started = 0.0
        self._last = 0.0
        self._latest = (0, 0)
        self._asked = 0.0  # when Stop was pressed (perf_counter), 0 when it was not
        self._ended = 0.0  # when the task returned or raised
        self.stop_button.on_click(lambda _: self.stop())

    @property
    def running(self) -> bool:
        """True while a task runs (its results included); false from the moment Run is enabled again.

        Not the thread's life: the thread enables Run and only then ends, and a press of Run in between (a
        person quick on the button, a loaded machine) was ignored as "a task runs" — the page kept the last
        study's "stopped" line and did nothing.
        """
        return self._active

    @property
    def stopped(self) -> bool:
        """True when the last run was asked to stop."""
        return self._stop.is_set()

    def _on_progress(self, done: int, total: int) -> None:
        self._latest = (done, total)
        now = time.perf_counter()
        if now - self._last < EVERY and done < total:
            return
        self._last = now
        self._show_progress(done, total)
        rate = done / max(1e-9, now - self._started)
        eta = eta_text((total - done) / rate) if rate > 0 and done < total else ""
        text = f"{done:,} / {total:,} {self.unit} · {rate:,.0f} {self.unit}/s" + (f" · {eta}" if eta else "")
        self.status.value = state_html("running", text, done, total)

    def _show_progress(self, done: int, total: int) -> None:
        self.progress.max = max(1, total)
        self.progress.value = min(done, total)

    # -- running ----------------------------------------------------------------------------------
    def start(self, task: Task, on_done: Callable[[Any, float], None],
              on_stopped: Callable[[RunInterrupted, float], None] | None = None,
              on_error: Callable[[str], None] | None = None) -> bool:
        """Start ``task`` unless one runs; the callbacks get the result (or the stop) and the seconds taken."""
        if self.running:
            return False
        self._stop.clear()
        self.result, self.error = None, None
        self.progress.value, self.progress.max = 0, 1
        self.progress.bar_style = ""
        self.status.value = state_html("running", "starting…", 0, 0)
        self.run_button.disabled, self.stop_button.disabled = True, False
        self._started = self._last = time.perf_counter()
        self._latest = (0, 0)
        self._asked = 0.0
        self._active = True
        thread = threading.Thread(target=self._work, args=(task, on_done, on_stopped, on_error),
                                  name="workbench-run", daemon=True)
        thread.start()
        self.thread = thread  # started: wait() from another thread never meets a thread not started yet
        return True

    def _work(self, task: Task, on_done: Callable, on_stopped: Callable | None, on_error: Callable | None) -> None:
        self._ended = 0.0
        try:
            try:
                result = task(self._on_progress, self._stop.is_set)
            finally:
                self._ended = time.perf_counter()
            took = time.perf_counter() - self._started
            total = self.progress.max
            done, asked = self._latest
            if self.stopped and done < asked:  # a runner that returns its finished games when stopped
                self.finish("stopped", f"stopped · {done:,} of {asked:,} {self.unit} · finished {self.unit} kept",
                            done, asked)
            else:
                self.progress.value = total
                self.progress.bar_style = "success"
                self.status.value = state_html("done", f"done in {took:.1f} s", total, total)
            self.result = result
            on_done(result, took)
        except RunInterrupted as exc:
            self.error = exc
            took = time.perf_counter() - self._started
            self._show_progress(exc.done, exc.total)
            self.progress.bar_style = "warning"
            text = (f"stopped · {exc.done:,} of {exc.total:,} {self.unit} · finished ones kept" if exc.total else
                    "stopped · nothing had finished")  # an exact computation stopped between its steps
            self.status.value = state_html("stopped", text, exc.done, exc.total, self._stop_took())
            if on_stopped is not None:
                try:
                    on_stopped(exc, took)
                except BaseException as failed:  # noqa: BLE001 - showing what finished failed: said, never lost
                    # the run did stop (the status says so); the note says what failed, and the server's log has
                    # its traceback — it escaped the thread before, printed to a kernel's stderr (the page's
                    # hidden output), and the page waited for tables that never came
                    if on_error is not None:
                        on_error(f"the stopped run's tables could not be shown: {error_message(failed)}")
        except BaseException as exc:  # noqa: BLE001 - a thread has nobody else to tell; the panel says it
            self.error = exc
            self.progress.bar_style = "danger"
            text = error_message(exc)
            self.status.value = state_html("error", f"error: {text}")
            if on_error is not None:
                on_error(text)
        finally:
            self._active = False  # before Run is enabled: a press as soon as it is enabled starts the next task
            self.run_button.disabled, self.stop_button.disabled = False, True

    @property
    def latest(self) -> tuple[int, int]:
        """``(done, total)`` as the task last reported them (``(0, 0)`` before any report)."""
        return self._latest

    def finish(self, state: str, text: str, done: int, total: int) -> None:
        """Say how the task ended, once its caller knows better than the progress did (``done`` or ``stopped``)."""
        self._show_progress(done if state == "stopped" else total, total)
        self.progress.bar_style = "warning" if state == "stopped" else "success"
        self.status.value = state_html(state, text, done, total, self._stop_took() if state == "stopped" else None)

    def _stop_took(self) -> float | None:
        """Seconds from Stop pressed to the task's end (None when Stop was not pressed)."""
        return (self._ended or time.perf_counter()) - self._asked if self._asked else None

    def reset(self, text: str = "ready", state: str = "idle") -> None:
        """Forget the last run's status (its 'done in …' no longer describes the form); nothing while running."""
        if self.running:
            return
        self.status.value = state_html(state, text)
        self.progress.value, self.progress.max = 0, 1
        self.progress.bar_style = ""

    def hold(self, note: Any, note_html: str, text: str, state: str) -> None:
        """Not run: the status line says why (``state``, ``text``), then ``note`` (an HTML widget) explains.

        In that order: the kernel sends the status line's update before the note's, so a page that shows the
        note has been sent the status line it belongs with (a browser test still waits on each widget it reads).
        """
        self.reset(text, state)
        note.value = note_html

    def stop(self) -> None:
        """Ask the running task to stop after its current chunk."""
        if self.running:
            self._asked = time.perf_counter()
            self._stop.set()
            self.status.value = state_html("stopping", "stopping after the current chunk…")

    def wait(self, timeout: float | None = None) -> Any:
        """Block until the running task ends; return its result."""
        if self.thread is not None:
            self.thread.join(timeout)
        return self.result
