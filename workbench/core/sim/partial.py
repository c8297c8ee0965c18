"""Partial tables of a running study: the tables of its finished cells, handed on at most once a second.

Lower than the study layer (``core/studies/study.py`` re-exports it), so the studies core declares beside it
(``core/skill/tiers.py``'s ``skill``, ``core/design/readings.py``'s ``readings``) stream without importing it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import polars as pl

__all__ = ["PARTIAL_EVERY", "Partial", "PartialFeed"]

Tables = dict[str, pl.DataFrame]
Partial = Callable[[Tables, int, int], None]  # on_partial(tables of the finished cells, games done, games in all)
PARTIAL_EVERY = 1.0  # seconds: at most one partial table this often (the first one at once)


class PartialFeed:
    """Hands partial tables to ``on_partial`` at most once every ``every`` seconds (the first at once).

    Tables that take long to make are offered less often (8 × their making time apart), so the
    partials cost at most about an eighth of the run.

    ``offer(make, done)`` calls ``make()`` only when a partial is due, so a throttled one costs nothing;
    ``total`` is the run's games in all.  Without ``on_partial`` it does nothing.
    """

    def __init__(self, on_partial: Partial | None, total: int, every: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.on_partial, self.total, self.clock = on_partial, total, clock
        self.every = PARTIAL_EVERY if every is None else every
        self.last: float | None = None
        self.gap = self.every
        self.sent = 0

    def offer(self, make: Callable[[], Tables | None], done: int) -> bool:
        """Emit ``make()`` as the tables of ``done`` of ``total`` games when one is due; True when emitted."""
        if self.on_partial is None or done >= self.total:  # the final tables are the run's own, never a partial
            return False
        now = self.clock()
        if self.last is not None and now - self.last < self.gap:
            return False
        tables = make()
        took = self.clock() - now
        # tables slow to make come less often (at most ~1/8 of the run); an interval of 0 sends every one
        self.gap = max(self.every, 8 * took) if self.every else 0.0
        if not tables:
            return False
        self.last = now
        self.sent += 1
        self.on_partial(tables, done, self.total)
        return True
