"""Shared by the bench scripts: a study timed in fresh processes, cold (empty JIT cache) and warm.

``timed_study(code)`` runs ``code`` (a Python snippet that prints ``import_seconds study_seconds``)
twice in a new process with its own ``NUMBA_CACHE_DIR``: first with the cache empty (the kernel
compiles), then warm.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def study_run(code: str, cache_dir: str) -> dict:
    """Run ``code`` in a fresh process with ``cache_dir`` as numba's cache; its timings and the process's."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir, "PYTHONPATH": str(ROOT)}
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=ROOT)
    process = time.perf_counter() - t
    imported, study = map(float, out.stdout.split()[-2:])
    return {"process_s": round(process, 2), "import_s": round(imported, 2), "study_s": round(study, 2)}


def timed_study(code: str) -> dict:
    """Cold (first compile) and warm timings of ``code``."""
    with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
        return {"cold": study_run(code, cache), "warm": study_run(code, cache)}
