"""Partial tables of a running study: the tables of its finished cells, handed on at most once a second.

Lower than the study layer (``core/studies/study.py`` re-exports it), so the studies core declares beside it
(``core/skill/tiers.py``'s ``skill``, ``core/design/readings.py``'s ``readings``) stream without importing it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import polars as pl

__all__ = ["PARTIAL_EVERY", "Partial", "PartialFeed"]

Tables = dict[str, pl.DataFrame]
Partial = Callable[[Tables, int, int], None]  # on_partial(tables of the finished cells, games done, games in all)
PARTIAL_EVERY = 1.0  # seconds: at most one partial table this often (the first one at once)
PARTIAL_POLL = 0.05  # seconds: how often a run waiting for its partial tables looks at its Stop


class PartialFeed:
    """Hands partial tables to ``on_partial`` at most once every ``every`` seconds (the first at once).

    Tables that take long to make are offered less often (8 × their making time apart), so the
    partials cost at most about an eighth of the run.

    ``offer(make, done)`` calls ``make()`` only when a partial is due, so a throttled one costs nothing;
    ``total`` is the run's games in all.  Without ``on_partial`` it does nothing.

    A run someone may stop (``core.sim.stopping.watching``) makes its partial beside it and waits, looking at its
    Stop: once Stop is pressed ``offer`` raises ``KeyboardInterrupt`` at once (a stop's safe point, as after a
    chunk) and the partial is dropped.  Tables of millions of finished games take a second or two to make (the
    die tower's outcomes of 8,000,000 games), and a Stop pressed then waited for them.
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
        tables = _made(make)
        took = self.clock() - now
        # tables slow to make come less often (at most ~1/8 of the run); an interval of 0 sends every one
        self.gap = max(self.every, 8 * took) if self.every else 0.0
        if not tables:
            return False
        self.last = now
        self.sent += 1
        self.on_partial(tables, done, self.total)
        return True


def _made(make: Callable[[], Tables | None]) -> Tables | None:
    """``make()``; in a run someone may stop, made in a helper thread while this one watches its Stop."""
    from workbench.core.sim.stopping import check, watched

    if not watched():
        return make()
    box: dict[str, object] = {}

    def work() -> None:
        try:
            box["tables"] = make()
        except BaseException as exc:  # noqa: BLE001 - handed to the run's thread, which raises it
            box["error"] = exc

    helper = threading.Thread(target=work, name="workbench-partial", daemon=True)
    helper.start()
    while helper.is_alive():
        helper.join(PARTIAL_POLL)
        if helper.is_alive():
            check()  # Stop pressed: the run ends here; the helper's tables are never handed on
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box.get("tables")  # type: ignore[return-value]
