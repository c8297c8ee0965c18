"""Which runs the compiled fast path can take (kept import-light: no numba here)."""

from __future__ import annotations

from typing import Any

from workbench.core.model import AgentSpec

FAST_AGENTS = ("random", "greedy")


def supports(agents: tuple[AgentSpec, ...], params: dict[str, Any]) -> bool:
    """True when every agent has a compiled twin and the fast kernel is installed."""
    if not all(a.name in FAST_AGENTS for a in agents):
        return False
    try:
        import workbench.games.duel.fast  # noqa: F401
    except ImportError:
        return False
    return True
