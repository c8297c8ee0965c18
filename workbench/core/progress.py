"""Feedback while work runs: a progress bar on a terminal, plain periodic lines elsewhere.

``progress(total, label)`` returns an object with ``update(n)`` and ``close()``: a tqdm bar when
standard error is a terminal (or a notebook), else a :class:`LineProgress` that prints
``label: 120,000/320,000 games (37 %), 45,000 games/s, ETA 4 s`` at most every ``every`` seconds
(CI logs, a subprocess of a notebook, ``make report > log``), and a last line when done.
``step(label)`` times one step of a longer job the same way (``label … done in 3.2 s``).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

__all__ = ["LineProgress", "progress", "step"]

EVERY = float(os.environ.get("WORKBENCH_PROGRESS_EVERY", "10"))  # seconds between plain lines


def _interactive(stream: TextIO) -> bool:
    if "ipykernel" in sys.modules:  # a notebook: tqdm.auto draws a widget bar
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _seconds(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.1f} min"


class LineProgress:
    """Plain progress lines for a log: count, share, rate and ETA, every ``every`` seconds."""

    def __init__(self, total: int, label: str, initial: int = 0, every: float = EVERY, unit: str = "games",
                 stream: TextIO | None = None) -> None:
        self.total, self.label, self.done, self.every, self.unit = total, label, initial, every, unit
        self.stream = stream or sys.stderr
        self.start = self.last = time.perf_counter()
        self.initial = initial

    def line(self) -> str:
        """The current state as one line."""
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        rate = (self.done - self.initial) / elapsed
        share = f" ({self.done / self.total:.0%})" if self.total else ""
        eta = f", ETA {_seconds((self.total - self.done) / rate)}" if rate > 0 and self.done < self.total else ""
        return f"{self.label}: {self.done:,}/{self.total:,} {self.unit}{share}, {rate:,.0f} {self.unit}/s{eta}"

    def update(self, n: int) -> None:
        """Count ``n`` more; print a line when ``every`` seconds have passed."""
        self.done += n
        now = time.perf_counter()
        if now - self.last >= self.every:
            self.last = now
            print(self.line(), file=self.stream, flush=True)

    def close(self) -> None:
        """A last line when the work took long enough to have shown progress."""
        if time.perf_counter() - self.start >= self.every:
            print(self.line() + f", done in {_seconds(time.perf_counter() - self.start)}", file=self.stream,
                  flush=True)


def progress(total: int, label: str, initial: int = 0, unit: str = "game") -> Any:
    """A tqdm bar on a terminal or in a notebook, plain lines in a log."""
    if _interactive(sys.stderr):
        from tqdm.auto import tqdm

        return tqdm(total=total, initial=initial, desc=label, unit=unit, leave=False)
    return LineProgress(total, label, initial, unit=f"{unit}s")


@contextmanager
def step(label: str, stream: TextIO | None = None) -> Iterator[None]:
    """Print ``label …`` then ``label … done in 3.2 s`` around one step of a longer job."""
    out = stream or sys.stderr
    print(f"{label} …", file=out, flush=True)
    start = time.perf_counter()
    yield
    took = time.perf_counter() - start
    print(f"{label} … done in {took:.1f} s" if took < 120 else f"{label} … done in {_seconds(took)}", file=out,
          flush=True)
