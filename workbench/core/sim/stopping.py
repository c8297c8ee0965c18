"""Ctrl-C and SIGTERM end a command's run at its next finished chunk, not inside one.

Python raises ``KeyboardInterrupt`` wherever the main thread happens to be when the signal is
handled.  That is unsafe inside a library's native code that calls back into Python: polars,
building a frame from rows, swallowed the exception and raised ``TypeError: '<unprintable str
object>' is not a Polars data type``, and a run stopped there ended with a traceback instead of
keeping its finished games (about one stop in 60 of ``simulate`` under load).

So the command line installs :func:`deferred_stops`: the first signal only *requests* a stop,
and the runners' loops honour it where they already stop for the studio's Stop button, after a
chunk is handled (:func:`check`, called by :func:`workbench.core.sim.progress.tick` and
:func:`workbench.core.sim.runner.drain`).  A second signal, or no chunk finishing within
``WORKBENCH_STOP_GRACE`` seconds (3 by default: a compile, a chart), stops at once as before.

The studio's Stop uses the same points.  A study runs inside :func:`watching` (``Study.execute``
sets it up with the page's ``should_stop``), and :func:`check` also raises there once that run's
Stop was pressed — in the run's own thread only, so another page's run is never touched.  So every
runner loop of core (``simulate``, ``run_grid``, ``drain``) honours Stop after its current chunk even
where a study passed no ``should_stop`` down, and an exact solver honours it by calling
:func:`check` between its steps (one linear program, one state, one suit size).  ``Study.execute``
turns the interruption into :class:`~workbench.core.errors.RunInterrupted` with what finished.

A loop that ends early (a stop, Ctrl-C, a write error) closes the results it was reading with :func:`close`,
so the chunks not started are cancelled and the pool stops at once.
"""

from __future__ import annotations

import _thread
import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["check", "close", "deferred_stops", "requested", "stop_asked", "watched", "watching"]

_requested = threading.Event()
_timer: list[threading.Timer] = []
_runs = threading.local()  # this thread's running studies' should_stop, innermost last


def grace() -> float:
    """Seconds a requested stop waits for a finished chunk before it interrupts at once."""
    return float(os.environ.get("WORKBENCH_STOP_GRACE", "3"))


def requested() -> bool:
    """Has a signal asked the running command to stop?"""
    return _requested.is_set()


def check() -> None:
    """Raise ``KeyboardInterrupt`` here when a stop was requested: a point where stopping is safe.

    Requested by a signal (the command line) or by the Stop of the run this thread is running
    (:func:`watching`).
    """
    if _requested.is_set():
        _cancel_timer()
        raise KeyboardInterrupt
    if stop_asked():
        raise KeyboardInterrupt


def stop_asked() -> bool:
    """Has the Stop of the run this thread is running (:func:`watching`) been pressed?"""
    stack = getattr(_runs, "stack", None)
    return bool(stack) and stack[-1]()


def watched() -> bool:
    """Does this thread run a study someone may stop (:func:`watching`)?  Its runners then play short chunks."""
    return bool(getattr(_runs, "stack", None))


@contextmanager
def watching(should_stop: Callable[[], bool] | None) -> Iterator[None]:
    """Within the block, :func:`check` in this thread also raises once ``should_stop()`` is true."""
    if should_stop is None:
        yield
        return
    stack = _runs.__dict__.setdefault("stack", [])
    stack.append(should_stop)
    try:
        yield
    finally:
        stack.pop()


def _cancel_timer() -> None:
    while _timer:
        _timer.pop().cancel()


def _on_signal(signum: int, frame: Any) -> None:
    if _requested.is_set():  # a second signal, or the grace ran out: stop here
        _cancel_timer()
        raise KeyboardInterrupt
    _requested.set()
    timer = threading.Timer(grace(), _thread.interrupt_main, args=(signum,))
    timer.daemon = True
    _timer.append(timer)
    timer.start()


@contextmanager
def deferred_stops() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM request a stop (see the module); the old handlers after it.

    A signal the process ignores stays ignored.  Outside the main thread signals cannot be
    handled, and the block changes nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _requested.clear()
    # a signal the process was started ignoring stays ignored (a shell's background job ignores Ctrl-C)
    previous = {s: signal.signal(s, _on_signal) for s in (signal.SIGINT, signal.SIGTERM)
                if signal.getsignal(s) is not signal.SIG_IGN}
    try:
        yield
    finally:
        _cancel_timer()
        for s, handler in previous.items():
            signal.signal(s, handler)
        _requested.clear()


def close(results: Any) -> None:
    """Close a run's results (:func:`~workbench.core.sim.runner.execute`'s iterator) however the loop over them ends.

    A generator or a worker pool's result stream is closed, so the chunks not started are cancelled; anything
    without a ``close`` method (a list, a plain iterator) is left as it is.  Closing twice is harmless, so a
    caller may close in an ``except`` branch and again in ``finally``.
    """
    closer = getattr(results, "close", None)
    if closer is not None:
        closer()
