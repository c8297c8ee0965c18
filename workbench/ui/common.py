"""Widget helpers shared by the game dashboards.

:class:`RunPanel` is a Run button, a Stop button, a progress bar and a status line.  Run starts
the task in a background thread, so the notebook stays responsive and the progress bar moves;
Stop asks the task to finish early — the task receives ``should_stop()`` and returns what it has
finished (the library's block runners keep finished blocks), and the panel keeps that result.
``run(wait=True)`` does the same and blocks until the task ends (scripts, tests, nbclient).
"""

from __future__ import annotations

import html
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

__all__ = ["RunPanel", "ShownTable", "display_into", "error_text", "offline_charts", "output_items", "require_widgets",
           "text_number"]

Task = Callable[[Callable[[int, int], None], Callable[[], bool]], Any]


def require_widgets() -> Any:
    """Import ipywidgets, or say what to install."""
    try:
        import ipywidgets
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("the dashboards need the notebook extra: pip install 'workbench[notebook]'") from None
    return ipywidgets


def _offline_renderer(spec: dict, **metadata: Any) -> tuple[dict, dict]:
    """Vega-Lite JSON plus an SVG drawn by vl-convert; neither needs a network.

    JupyterLab draws the JSON with its bundled Vega; other front-ends show the SVG.
    """
    import altair as alt

    version = str(spec.get("$schema", "")).split("/v")[-1].split(".")[0] or "6"
    bundle: dict[str, Any] = {f"application/vnd.vegalite.v{version}+json": spec,
                              "text/plain": f"<altair chart: {alt.__name__} {alt.__version__}>"}
    mime = getattr(getattr(alt, "display", None), "VEGALITE_MIME_TYPE", None)
    if isinstance(mime, str):
        bundle.setdefault(mime, spec)
    try:
        import vl_convert

        bundle["image/svg+xml"] = vl_convert.vegalite_to_svg(spec)
    except Exception:  # noqa: BLE001 - the Vega-Lite JSON alone still renders in JupyterLab
        pass
    return bundle, {}


def offline_charts() -> None:
    """Make altair charts render without a network: Vega-Lite JSON + inline SVG, no CDN script.

    (altair's default HTML renderer loads Vega from a CDN.)  Called when a dashboard module is
    imported.
    """
    import altair as alt

    if "workbench-offline" not in alt.renderers.names():
        alt.renderers.register("workbench-offline", _offline_renderer)
    alt.renderers.enable("workbench-offline")


class ShownTable:
    """A table as the report shows it: each rate merged with its interval (``52.3% [51.3–53.3]``).

    :func:`workbench.core.report.display_frame` of ``frame``, drawn as a plain HTML table (a
    polars frame of strings would show quotes, a dtype row and cut long cells) and, for text
    front-ends and exported notebooks, as aligned text.
    """

    def __init__(self, frame: Any, title: str = "") -> None:
        from workbench.core.report import display_frame

        self.title = title
        self.frame = display_frame(frame)  # all strings

    def _repr_html_(self) -> str:
        e = html.escape
        cap = f"<caption style='text-align:left'><b>{e(self.title)}</b></caption>" if self.title else ""
        head = "".join(f"<th style='text-align:left'>{e(c)}</th>" for c in self.frame.columns)
        rows = "".join("<tr>" + "".join(f"<td style='text-align:left'>{e(v)}</td>" for v in row) + "</tr>"
                       for row in self.frame.iter_rows())
        return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"

    def __repr__(self) -> str:
        rows = [self.frame.columns, *self.frame.iter_rows()]
        widths = [max(len(r[i]) for r in rows) for i in range(self.frame.width)]
        lines = ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip() for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(([self.title] if self.title else []) + lines)


def output_items(*items: Any) -> tuple[dict, ...]:
    """``items`` (text, frames, charts) as Output-widget outputs: text a stdout stream, the rest rich displays."""
    from IPython.core.interactiveshell import InteractiveShell

    outputs: list[dict] = []
    for item in items:
        if isinstance(item, str):
            text = item if item.endswith("\n") else item + "\n"
            if outputs and outputs[-1]["output_type"] == "stream":  # one text block, as a front-end merges it
                outputs[-1] = {**outputs[-1], "text": outputs[-1]["text"] + text}
            else:
                outputs.append({"output_type": "stream", "name": "stdout", "text": text})
        else:
            data, metadata = InteractiveShell.instance().display_formatter.format(item)
            outputs.append({"output_type": "display_data", "data": data, "metadata": metadata})
    return tuple(outputs)


def display_into(output: Any, *items: Any, clear: bool = True) -> None:
    """Show ``items`` (charts, frames, text) in an ``Output`` widget, replacing what it showed.

    The widget's ``outputs`` are set in one assignment, which the kernel sends to the front-end as
    widget state; it works from a background thread and needs no front-end round trip.  Not
    ``output.clear_output()`` + ``append_*``: the clear is only a message the front-end applies
    while it captures the current cell's output, so the kernel's copy kept every earlier Run's
    tables and charts.  Not ``with output:`` either: a headless front-end (nbclient, ``jupyter
    nbconvert --execute``) answers each captured output with a message on the kernel's shell
    socket while it waits on that socket for the cell's reply, a race that now and then loses the
    reply and stalls the run for good with the kernel idle.
    """
    new = output_items(*items)
    output.outputs = new if clear else tuple(output.outputs) + new


def error_text(exc: BaseException) -> str:
    """What to tell a user: a workbench error's own message (it names the field and what is allowed)."""
    from workbench.core.errors import WorkbenchError

    return str(exc) if isinstance(exc, WorkbenchError) else f"{type(exc).__name__}: {exc}"


def text_number(text: str, kind: type = int) -> Any:
    """A number typed in a text box, or ``None`` for an empty box ("use the data's value")."""
    text = (text or "").strip()
    if not text or text.lower() in ("none", "own", "-"):
        return None
    return kind(text)


class RunPanel:
    """Run / Stop buttons with a progress bar; runs ``task(on_progress, should_stop)`` in a thread.

    ``on_done(result)`` is called (in the worker thread) with the task's return value, also after
    Stop; ``on_error(exc)`` when it raises (default: the traceback goes to the status line).
    ``result`` holds the last finished result, ``error`` the last exception.
    """

    def __init__(self, task: Task, on_done: Callable[[Any], None] | None = None,
                 on_error: Callable[[BaseException], None] | None = None, label: str = "Run") -> None:
        w = require_widgets()
        self.task, self.on_done, self.on_error = task, on_done, on_error
        self.run_button = w.Button(description=label, button_style="primary", icon="play")
        self.stop_button = w.Button(description="Stop", icon="stop", disabled=True)
        self.progress = w.IntProgress(value=0, min=0, max=1, description="", layout=w.Layout(width="40%"))
        self.status = w.HTML("ready")
        self.widget = w.HBox([self.run_button, self.stop_button, self.progress, self.status])
        self.result: Any = None
        self.error: BaseException | None = None
        self.thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._started = 0.0
        self.run_button.on_click(lambda _: self.run())
        self.stop_button.on_click(lambda _: self.stop())

    @property
    def running(self) -> bool:
        """True while a task runs."""
        return self.thread is not None and self.thread.is_alive()

    def _on_progress(self, done: int, total: int) -> None:
        self.progress.max = max(1, total)
        self.progress.value = min(done, total)
        rate = done / max(1e-9, time.perf_counter() - self._started)
        self.status.value = f"{done:,} / {total:,} games ({rate:,.0f}/s)"

    def _work(self) -> None:
        try:
            self.result = self.task(self._on_progress, self._stop.is_set)
            stopped = self._stop.is_set()
            self.status.value = (f"{'stopped; finished games kept' if stopped else 'done'} in "
                                 f"{time.perf_counter() - self._started:.1f} s")
            if self.on_done is not None:
                self.on_done(self.result)
        except BaseException as exc:  # reported in the panel; a thread has nobody else to tell
            self.error = exc
            self.status.value = f"<span style='color:#c00'>error: {html.escape(error_text(exc))}</span>"
            if self.on_error is not None:
                self.on_error(exc)
            else:
                traceback.print_exc()
        finally:
            self.run_button.disabled = False
            self.stop_button.disabled = True

    def run(self, wait: bool = False) -> Any:
        """Start the task (ignored while one runs); with ``wait`` block and return its result."""
        if not self.running:
            self._stop.clear()
            self.error = None
            self.progress.value = 0
            self.status.value = "running…"
            self.run_button.disabled = True
            self.stop_button.disabled = False
            self._started = time.perf_counter()
            self.thread = threading.Thread(target=self._work, name="workbench-run", daemon=True)
            self.thread.start()
        if wait:
            self.wait()
            if self.error is not None:
                raise self.error
        return self.result

    def wait(self, timeout: float | None = None) -> Any:
        """Block until the running task ends; return the last result."""
        if self.thread is not None:
            self.thread.join(timeout)
        return self.result

    def stop(self) -> None:
        """Ask the running task to stop after its current block."""
        self._stop.set()
        self.status.value = "stopping after the current block…"
