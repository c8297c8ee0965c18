"""Freed memory kept for the next chunk: the C allocator told not to hand big blocks back to the system.

A compiled engine writes each chunk's results into fresh NumPy arrays.  glibc's allocator serves a
block above its mmap threshold (128 KiB at first, rising to at most 32 MiB as blocks are freed) with
pages of its own and gives them back when the block is freed; the next chunk's arrays are then new
pages again, and the first write to each costs a page fault.  On a virtual machine whose host takes
back memory a guest freed, that fault is far dearer than the game it holds: the duel's kernel ran
2.3× slower writing into fresh pages after another process had run (``benchmarks/anchors.py``'s
``simulate()`` row alternates with the C program; measured with ``cProfile`` on ``play_games``:
1.41 s against 0.60 s per 100,000 games).

:func:`retain_freed_memory` (called once when the runner is imported) fixes the mmap threshold at
32 MiB — every chunk's arrays come from the heap — and lets the heap keep up to 256 MiB of freed
memory before it is trimmed, so the pages a chunk frees are the next chunk's, already mapped.  The
cost is at most 256 MiB held by a process after its largest run; the environment variable
``WORKBENCH_MALLOC=system`` keeps the allocator's own settings.  Elsewhere than on glibc it does
nothing.
"""

from __future__ import annotations

import ctypes
import os

__all__ = ["MMAP_THRESHOLD", "TRIM_THRESHOLD", "retain_freed_memory"]

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # mallopt's parameter numbers (glibc's malloc.h)
MMAP_THRESHOLD = 32 * 2**20  # glibc's largest: blocks below it come from the heap
TRIM_THRESHOLD = 256 * 2**20  # freed memory at the heap's top kept up to this

_done: bool | None = None


def retain_freed_memory() -> bool:
    """Set glibc's thresholds (once per process); True when they are set, False where it does nothing."""
    global _done
    if _done is not None:
        return _done
    _done = False
    if os.environ.get("WORKBENCH_MALLOC", "").strip().lower() == "system":
        return False
    try:
        libc = ctypes.CDLL(None)  # the process's own symbols: libc's, without find_library's ldconfig subprocess
    except OSError:
        return False
    mallopt = getattr(libc, "mallopt", None)
    if mallopt is None or not hasattr(libc, "gnu_get_libc_version"):  # not glibc: its own allocator's ways
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    _done = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return _done
