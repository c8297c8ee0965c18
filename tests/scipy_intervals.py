"""Interval references from scipy, a second method beside ``workbench.core.stats.rates`` (and ``tests/independent.py``).

``wilson`` is scipy's own Wilson score interval (``binomtest(k, n).proportion_ci(method="wilson")``);
``newcombe`` is Newcombe's hybrid score interval for a difference of two independent rates (method 10
of Newcombe 1998), built here from scipy's Wilson intervals of each rate.
"""

from __future__ import annotations

import math

from scipy.stats import binomtest


def wilson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of ``k`` successes in ``n`` trials, by scipy."""
    ci = binomtest(int(k), int(n)).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def newcombe(k1: int, n1: int, k2: int, n2: int, confidence: float = 0.95) -> tuple[float, float]:
    """Newcombe's interval of ``k1/n1 - k2/n2``: each rate's distance to its own Wilson bounds, combined."""
    p1, p2 = k1 / n1, k2 / n2
    (l1, u1), (l2, u2) = wilson(k1, n1, confidence), wilson(k2, n2, confidence)
    d = p1 - p2
    return d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
