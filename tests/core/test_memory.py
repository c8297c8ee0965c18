"""The runner keeps freed memory for the next chunk (core/sim/memory.py): a second array of a chunk's size reuses
pages."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# a chunk's arrays: three of 20 MiB, filled and freed, then the next chunk's; print the page faults of the second
PROBE = """
import resource
import numpy as np
import workbench.core.sim.runner  # noqa: F401  (the import sets the allocator's thresholds)
from workbench.core.sim.memory import retain_freed_memory
np.ones(3 * 2**20)  # 24 MiB freed: glibc's own thresholds then rise to 24 MiB (blocks) and 48 MiB (trim)
chunk = [np.ones(5 * 2**19) for _ in range(3)]; del chunk  # 3 × 20 MiB
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
chunk = [np.ones(5 * 2**19) for _ in range(3)]
print(retain_freed_memory(), resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _probe(**env: str) -> tuple[str, int]:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, cwd=ROOT,
                         env={**os.environ, **env}).stdout.split()
    return out[0], int(out[1])


def test_a_freed_chunk_is_the_next_chunks_memory_unless_the_user_keeps_the_systems_allocator():
    kept, faults = _probe()
    assert kept == "True"
    # with the thresholds set, the second chunk reuses the first one's pages (none faults: 0 here); with the
    # allocator's own settings part of the freed heap was handed back and its pages fault again (1,531 here)
    assert faults < 200, faults
    system, fresh = _probe(WORKBENCH_MALLOC="system")
    assert system == "False" and fresh > 1000, fresh
