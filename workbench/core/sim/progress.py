"""Feedback while work runs: a progress bar on a terminal, plain periodic lines elsewhere.

``progress(total, label)`` returns an object with ``update(n)`` and ``close()``: a tqdm bar when
standard error is a terminal (or a notebook), else a :class:`LineProgress` that prints
``label: 120,000/320,000 games (37 %), 45,000 games/s, ETA 4 s`` at most every ``every`` seconds
(CI logs, a subprocess of a notebook, ``make report > log``), and a last line when done.

``step(label)`` times one step of a longer job (``label …`` then ``label … done in 3.2 s``) and,
while it runs, prints a line every ``every`` seconds: the games the runner has played inside it
(:func:`tick`, called by ``runner``, ``sweep`` and ``stream`` for every finished chunk) with their
rate, the current run's share and ETA, or the step's own ``done/total`` when it reports one
(``report``: a study's ``on_progress``).  A step that plays no games still says it is working.

ETAs settle before they are shown (:class:`Rate`): the rate is measured from the first finished
chunk on (a pool's start-up or a compile is not a rate), and no ETA is printed before
``WARMUP_SECONDS`` and ``WARMUP_UPDATES`` chunks of sample — an early estimate 10× off is worse
than none.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from workbench.core.sim.stopping import check as check_stop

__all__ = ["LineProgress", "Rate", "StepProgress", "progress", "step", "tick"]

EVERY = float(os.environ.get("WORKBENCH_PROGRESS_EVERY", "10"))  # seconds between plain lines
WARMUP_SECONDS = 2.0  # no ETA before this long after the first finished chunk
WARMUP_UPDATES = 3  # ... nor before this many chunks after the first
Clock = Callable[[], float]


def _interactive(stream: TextIO) -> bool:
    if "ipykernel" in sys.modules:  # a notebook: tqdm.auto draws a widget bar
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _seconds(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.1f} min"


class Rate:
    """A rate that settles: measured from the first update on, an ETA only after a minimum sample."""

    def __init__(self, clock: Clock = time.perf_counter) -> None:
        self.clock = clock
        self.t0: float | None = None
        self.n0 = 0
        self.updates = 0
        self.last_done = 0

    def add(self, done: int) -> None:
        """Record that ``done`` units are finished now."""
        now = self.clock()
        if self.t0 is None:
            self.t0, self.n0 = now, done
        else:
            self.updates += 1
        self.last_done = done

    def steady(self) -> float | None:
        """Units per second since the first update, once the sample is big enough (else None)."""
        if self.t0 is None or self.updates < WARMUP_UPDATES:
            return None
        span = self.clock() - self.t0
        if span < WARMUP_SECONDS or self.last_done <= self.n0:
            return None
        return (self.last_done - self.n0) / span

    def eta(self, total: int) -> float | None:
        """Seconds left to reach ``total``, or None while the sample is too small."""
        rate = self.steady()
        if rate is None or self.last_done >= total:
            return None
        return (total - self.last_done) / rate


class LineProgress:
    """Plain progress lines for a log: count, share, rate and ETA, every ``every`` seconds."""

    def __init__(self, total: int, label: str, initial: int = 0, every: float = EVERY, unit: str = "games",
                 stream: TextIO | None = None, clock: Clock = time.perf_counter) -> None:
        self.total, self.label, self.done, self.every, self.unit = total, label, initial, every, unit
        self.stream = stream or sys.stderr
        self.clock = clock
        self.start = self.last = clock()
        self.initial = initial
        self.rate = Rate(clock)

    def line(self) -> str:
        """The current state as one line."""
        elapsed = max(self.clock() - self.start, 1e-9)
        rate = (self.done - self.initial) / elapsed
        share = f" ({self.done / self.total:.0%})" if self.total else ""
        eta = self.rate.eta(self.total)
        tail = f", ETA {_seconds(eta)}" if eta is not None and self.done < self.total else ""
        return f"{self.label}: {self.done:,}/{self.total:,} {self.unit}{share}, {rate:,.0f} {self.unit}/s{tail}"

    def update(self, n: int) -> None:
        """Count ``n`` more; print a line when ``every`` seconds have passed."""
        self.done += n
        self.rate.add(self.done)
        now = self.clock()
        if now - self.last >= self.every:
            self.last = now
            print(self.line(), file=self.stream, flush=True)

    def close(self) -> None:
        """A last line when the work took long enough to have shown progress."""
        if self.clock() - self.start >= self.every:
            print(self.line() + f", done in {_seconds(self.clock() - self.start)}", file=self.stream, flush=True)


class _Bar:
    """A tqdm bar whose ETA is the settled one (none while the sample is small)."""

    _COLD = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}, {rate_fmt}]"
    _WARM = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}, {rate_fmt}{postfix}]"  # tqdm adds ", " before it

    def __init__(self, total: int, label: str, initial: int, unit: str) -> None:
        from tqdm.auto import tqdm

        self.bar = tqdm(total=total, initial=initial, desc=label, unit=unit, leave=False, bar_format=self._COLD)
        self.rate = Rate()
        self.done = initial

    def update(self, n: int) -> None:
        """Count ``n`` more."""
        self.done += n
        self.rate.add(self.done)
        eta = self.rate.eta(self.bar.total or 0)
        if eta is not None:
            self.bar.bar_format = self._WARM
            self.bar.set_postfix_str(f"ETA {_seconds(eta)}", refresh=False)
        self.bar.update(n)

    def close(self) -> None:
        """Remove the bar."""
        self.bar.close()


def progress(total: int, label: str, initial: int = 0, unit: str = "game") -> Any:
    """A tqdm bar on a terminal or in a notebook, plain lines in a log."""
    if _interactive(sys.stderr):
        return _Bar(total, label, initial, unit)
    return LineProgress(total, label, initial, unit=f"{unit}s")


class StepProgress:
    """What a running :func:`step` knows: games played inside it, and its own done/total if reported."""

    def __init__(self, label: str, clock: Clock = time.perf_counter) -> None:
        self.label, self.clock = label, clock
        self.start = clock()
        self.games = 0
        self.games_rate = Rate(clock)
        self.run: tuple[int, int] | None = None  # the current inner run's (done, total)
        self.run_rate = Rate(clock)
        self.own: tuple[int, int] | None = None  # the step's own (done, total), from report()
        self.own_rate = Rate(clock)

    def tick(self, n: int, done: int | None = None, total: int | None = None) -> None:
        """``n`` more games played by the runner; ``done``/``total`` of the run that played them."""
        self.games += n
        self.games_rate.add(self.games)
        if done is not None and total:
            if self.run is None or self.run[1] != total or done < self.run[0]:
                self.run_rate = Rate(self.clock)  # a new inner run
            self.run = (done, total)
            self.run_rate.add(done)

    def report(self, done: int, total: int) -> None:
        """The step's own progress (e.g. a study's ``on_progress(done, total)``)."""
        self.own = (done, total)
        self.own_rate.add(done)

    def line(self) -> str:
        """The step's state as one line."""
        elapsed = self.clock() - self.start
        if self.own is not None and self.own[1]:
            done, total = self.own
            eta = self.own_rate.eta(total)
            tail = f", ETA {_seconds(eta)}" if eta is not None else ""
            return (f"{self.label}: {done:,}/{total:,} games ({done / total:.0%}), "
                    f"{done / max(elapsed, 1e-9):,.0f} games/s{tail}")
        if self.games:
            text = f"{self.label}: {self.games:,} games so far, {self.games / max(elapsed, 1e-9):,.0f} games/s"
            if self.run is not None:
                done, total = self.run
                eta = self.run_rate.eta(total)
                text += f"; current run {done:,}/{total:,} ({done / total:.0%})"
                text += f", ETA {_seconds(eta)}" if eta is not None else ""
            return text + f"; {_seconds(elapsed)} so far"
        return f"{self.label}: working, {_seconds(elapsed)} so far"


_steps: list[StepProgress] = []


def tick(n: int, done: int | None = None, total: int | None = None) -> None:
    """Count ``n`` finished games for the :func:`step` running now (nothing when none runs).

    A runner calls it after each finished chunk, a point where stopping is safe: a stop requested
    by Ctrl-C or SIGTERM is raised here (:mod:`workbench.core.sim.stopping`).
    """
    if _steps:
        _steps[-1].tick(n, done, total)
    check_stop()


@contextmanager
def step(label: str, stream: TextIO | None = None, every: float | None = None) -> Iterator[StepProgress]:
    """Print ``label …`` then ``label … done in 3.2 s`` around one step, and progress lines while it runs."""
    out = stream or sys.stderr
    every = max(0.05, EVERY if every is None else every)
    print(f"{label} …", file=out, flush=True)
    state = StepProgress(label)
    _steps.append(state)
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(every):
            print(state.line(), file=out, flush=True)

    thread = threading.Thread(target=beat, name=f"progress {label}", daemon=True)
    thread.start()
    try:
        yield state
    finally:
        stop.set()
        thread.join()
        _steps.remove(state)
    took = time.perf_counter() - state.start
    print(f"{label} … done in {took:.1f} s" if took < 120 else f"{label} … done in {_seconds(took)}", file=out,
          flush=True)
