"""Closing a run's results however the loop over them ends.

:func:`~workbench.core.sim.runner.execute` hands back its finished chunks as an iterator: a generator
or a worker pool's result stream.  A caller that stops early (Ctrl-C, a stop, a write error) must
close it, so the chunks not started are cancelled and the pool stops at once; a plain list or
iterator has nothing to close.  One helper for every loop over such results (the runner, streams,
sweeps, tuning).
"""

from __future__ import annotations

from typing import Any

__all__ = ["close"]


def close(results: Any) -> None:
    """Close ``results`` when it can be closed (it has a ``close`` method); anything else is left as it is.

    Closing twice is harmless for a generator and a pool's result stream, so a caller may close in an
    ``except`` branch and again in ``finally``.
    """
    closer = getattr(results, "close", None)
    if closer is not None:
        closer()
