"""Which runs the compiled fast path can take (kept import-light: no numba here).

The kernel (``fast_kernel.py``) plays every card effect form, condition and variant, both deck
types, the duel timer and any hand size or turn limit, so only the agents decide: ``random`` and
``greedy`` (with any weights) have compiled twins, ``search`` does not.
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from typing import Any

from workbench.core.model import AgentSpec

FAST_AGENTS = ("random", "greedy")


@lru_cache(maxsize=1)
def kernel_available() -> bool:
    """True when numba is installed (the kernel itself compiles lazily, on its first game)."""
    return importlib.util.find_spec("numba") is not None


def supports(agents: tuple[AgentSpec, ...], params: dict[str, Any]) -> bool:
    """True when every agent has a compiled twin and the fast kernel can run."""
    return all(a.name in FAST_AGENTS for a in agents) and kernel_available()
