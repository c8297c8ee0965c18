"""What every panel needs: ipywidgets (or what to install), charts that render offline, tables as people read them.

:func:`show_here` puts a run's tables and charts into the running cell — what a headless or
exported notebook keeps of a panel, whose widget shows them only in a live front end.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["Line", "Pilots", "ShownTable", "duration_text", "offline_charts", "require_widgets", "show_here",
           "size_estimate", "size_line"]


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

    (altair's default HTML renderer loads Vega from a CDN.)  Called before a panel shows charts in a cell.
    """
    import altair as alt

    if "workbench-offline" not in alt.renderers.names():
        alt.renderers.register("workbench-offline", _offline_renderer)
    alt.renderers.enable("workbench-offline")


class ShownTable:
    """A table as the report shows it: each rate merged with its interval (``52.3% [51.3–53.3]``).

    :func:`workbench.core.present.report.display_frame` of ``frame``, drawn as a plain HTML table (a
    polars frame of strings would show quotes, a dtype row and cut long cells) and, for text
    front-ends and exported notebooks, as aligned text.
    """

    def __init__(self, frame: Any, title: str = "") -> None:
        from workbench.core.present.report import display_frame

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


class Line:
    """One line of plain text shown in a cell (as its text/plain display), in order with the tables around it."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def show_here(tables: dict[str, Any], charts: dict[str, Any], note: str = "") -> None:
    """Tables (as :class:`ShownTable`) and charts (altair) displayed in the running cell itself.

    What a headless or exported notebook keeps of a panel: the widget shows the same tables and
    charts, drawn as HTML and SVG, only in a live front end.
    """
    from IPython.display import display

    offline_charts()
    # lines go out as display messages, not print(): a kernel's stdout is flushed on its own timer, so on a
    # loaded machine a printed line could land after the tables displayed below it
    if note:
        display(Line(note))
    if "games" in tables:
        display(Line(f"{tables['games'].height:,} games played"))
    for name, table in tables.items():
        if name != "games":
            display(ShownTable(table, name))
    for chart in charts.values():
        display(chart)


def duration_text(seconds: float) -> str:
    """A duration as a person says it: "40 s", "12 min", "3.5 h"."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def size_estimate(panel: Any, measure: bool) -> dict[str, Any] | None:
    """A panel's estimate for its size line, or None for a form that cannot run.

    ``panel.estimate(measure=measure)``; when it raises, the panel's size line is emptied (the refused
    field is named beside it) and there is no size to show.
    """
    try:
        return panel.estimate(measure=measure)
    except Exception:  # noqa: BLE001 - the field that is wrong says so; there is no size to show
        panel.size.value = ""
        return None


def size_line(text: str, found: dict[str, Any], *, games: int, measure: bool, kind: str = "more",
              memory: bool = False, attrs: dict[str, object] | None = None) -> str:
    """The line a form shows before Run: ``text`` (its games in all), then what a pilot measured here.

    ``found`` is the form's estimate: ``seconds`` (None while the speed is being measured, or when
    ``measure`` is off and it was not measured yet), ``rate`` and, with ``memory``, ``bytes``.  The
    HTML carries ``data-games``, ``attrs`` and ``data-seconds`` (every digit: a fast engine's estimate
    is a fraction of a second) for scripts and the browser tests.
    """
    seconds = found["seconds"]
    if seconds is None:
        text += " · measuring this machine's speed…" if measure else (
            f" · time{' and memory' if memory else ''} estimated as you edit")
    else:
        text += f" · about {duration_text(seconds)} at {found['rate']:,.0f} games/s (measured here)"
        if memory:
            text += f" · about {found['bytes'] / 2**20:,.0f} MB held in memory"
    data = {"games": games, **(attrs or {}), "seconds": "" if seconds is None else f"{seconds:.6g}"}
    marks = " ".join(f'data-{name}="{html.escape(str(value))}"' for name, value in data.items())
    return f'<div class="wb-size-line wb-{kind}" {marks}>{html.escape(text)}</div>'


class Pilots:
    """Pilot measurements (``core.sim.stream.Pilot``: speed and memory) of a form's settings, by a key per setting.

    :meth:`get` answers at once when the setting was measured; otherwise it measures it — now
    (``wait``) or in a background thread, calling ``on_measured()`` when done so the form redraws its
    size line.  A measurement that failed is kept as its exception (the run itself names what is wrong).
    A ``wait`` while that setting is measured in the background waits for that measurement rather than
    starting a second one beside it: two pilots at once slow each other (Run pressed while the size line
    was still measuring read a 14-second run as longer than ten minutes).
    """

    def __init__(self, on_measured: Callable[[], None]) -> None:
        self.found: dict[str, Any] = {}
        self._measuring: dict[str, threading.Event] = {}  # setting -> set when its background measurement ends
        self._lock = threading.Lock()
        self._on_measured = on_measured

    def get(self, key: str, measure: Callable[[], Any] | None, wait: bool = False) -> Any:
        """The setting's ``Pilot``, or None (not measured yet, or ``measure`` is None, or it failed)."""
        from workbench.core.sim.stream import Pilot

        if key not in self.found and measure is not None:
            def work(done: threading.Event | None) -> None:
                try:
                    found = measure()
                except Exception as exc:  # noqa: BLE001 - no estimate; the run itself names what is wrong
                    found = exc
                self.found[key] = found
                if done is not None:
                    with self._lock:
                        self._measuring.pop(key, None)
                    done.set()
                    self._on_measured()

            with self._lock:
                running = self._measuring.get(key)
                start = running is None and not wait
                if start:
                    running = self._measuring[key] = threading.Event()
            if start:
                threading.Thread(target=work, args=(running,), name="workbench-pilot", daemon=True).start()
            elif wait and running is not None:
                running.wait()
            elif wait:
                work(None)
        found = self.found.get(key)
        return found if isinstance(found, Pilot) else None
