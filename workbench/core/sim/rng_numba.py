"""SplitMix64 for compiled kernels: the numbers of ``workbench.core.rng``, bit for bit, in numba.

A kernel keeps its streams in a ``uint64`` array and passes ``(states, i)`` for stream ``i``.
Everything stays ``uint64`` (numba promotes mixed ``uint64``/``int64`` arithmetic to float64).
The functions are inlined into the calling kernel.

Importing this module also points numba's on-disk JIT cache at ``.cache/numba-<digest>`` in the
repository (unless ``NUMBA_CACHE_DIR`` is set), so every process — spawned workers included —
starts warm.  The digest is this file's content: numba's cache only notices changes to a
kernel's *own* file, and these functions are compiled into other files' kernels.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_SOURCE = Path(__file__).resolve()
if "NUMBA_CACHE_DIR" not in os.environ:
    _digest = hashlib.sha256(_SOURCE.read_bytes()).hexdigest()[:12]
    os.environ["NUMBA_CACHE_DIR"] = str(_SOURCE.parents[3] / ".cache" / f"numba-{_digest}")

import numba as nb  # noqa: E402
import numpy as np  # noqa: E402
from numba.core import types as nbt  # noqa: E402
from numba.core.registry import CPUDispatcher  # noqa: E402

nb.core.config.reload_config()  # numba may have been imported before the cache dir was set

from workbench.core.rng import GOLDEN, STREAM_MUL, SplitMix64  # noqa: E402

_GOLDEN = np.uint64(GOLDEN)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32, _S11 = (np.uint64(k) for k in (30, 27, 31, 32, 11))
_MASK32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)
_INV53 = 1.0 / 9007199254740992.0

# No NRT: kernels built on these allocate nothing, so no reference counting around calls.
_OPTIONS = {"nopython": True, "nogil": True, "error_model": "numpy", "boundscheck": False, "_nrt": False}


class _ByType(CPUDispatcher):
    """A kernel function compiled once per argument *types*, never once per constant argument's value.

    numba types a constant argument (``_put(lg, d, n, K_PLAY, c, target)``) as a literal of its value and
    compiles the callee again for every combination of constants it meets: Babylon's kernel was 171 compiled
    versions of 86 functions (``_put`` alone 88 times, ``_step`` 3), 199 s of a fresh compile where one version
    of each takes 76 s.  Here a call's argument types are the plain ones (``Literal[int](2)`` is ``int64``), so
    each function has one version; the machine code computes the same (the parity harness and golden frames
    prove it) at the same speed (LLVM still inlines and folds constants where it pays).
    """

    def get_call_template(self, args, kws):
        return super().get_call_template(tuple(nbt.unliteral(a) for a in args),
                                         {k: nbt.unliteral(v) for k, v in kws.items()})


def compiled(fn):
    """``fn`` compiled by numba (no Python objects, cached on disk, GIL released), one version per argument types."""
    dispatcher = _ByType(py_func=fn, locals={}, targetoptions=dict(_OPTIONS))
    dispatcher.enable_caching()
    return dispatcher


def inlined(fn):
    """:func:`compiled`, and inlined into each compiled caller (a numba call passes every array as a dozen scalars).

    For small helpers on a hot path: an inlined function's body is compiled again in every caller, so a big
    one (a game's turn loop) is :func:`compiled` and called.
    """
    dispatcher = _ByType(py_func=fn, locals={}, targetoptions={**_OPTIONS, "inline": "always"})
    dispatcher.enable_caching()
    return dispatcher


def stream_keys(count: int) -> np.ndarray:
    """``k * STREAM_MUL mod 2**64`` for k in 0..count-1: ``stream_seed(seed, k) = mix(seed ^ keys[k])``."""
    return np.array([(k * STREAM_MUL) % 2**64 for k in range(count)], dtype=np.uint64)


@inlined
def mix(z):
    """``rng.mix64``."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@inlined
def next_u64(states, i):
    """``SplitMix64.next_u64`` of stream ``i``."""
    states[i] += _GOLDEN
    return mix(states[i])


@inlined
def below(states, i, n):
    """``SplitMix64.below``: Lemire on the top 32 bits, with rejection."""
    un = np.uint64(n)
    m = (next_u64(states, i) >> _S32) * un
    low = m & _MASK32
    if low < un:
        threshold = (_TWO32 - un) % un
        while low < threshold:
            m = (next_u64(states, i) >> _S32) * un
            low = m & _MASK32
    return np.int64(m >> _S32)


@inlined
def random(states, i):
    """``SplitMix64.random``: 53 random bits as a float in [0, 1)."""
    return np.float64(next_u64(states, i) >> _S11) * _INV53


@inlined
def shuffle(states, i, arr, n):
    """``SplitMix64.shuffle`` in place on ``arr[:n]`` (Fisher–Yates from the end)."""
    for k in range(n - 1, 0, -1):
        j = below(states, i, k + 1)
        t = arr[k]
        arr[k] = arr[j]
        arr[j] = t


# -- what a search rollout is worth (every kernel's continue-from-a-state entry; here so the cache digest covers it)
@inlined
def outcome_worth(winner, me):
    """A finished rollout's worth for seat ``me``: 1 won, 0.5 drawn (winner code 2), 0 lost."""
    if winner == me:
        return 1.0
    if winner == 2:
        return 0.5
    return 0.0


@inlined
def squash(evaluation, scale):
    """An unfinished rollout's worth: the logistic of the heuristic's ``evaluation / scale``, in (0, 1)."""
    return 1.0 / (1.0 + np.exp(-evaluation / scale))


@compiled
def shuffle_in_place(states, arr):
    """``SplitMix64.shuffle`` of all of ``arr`` in place, drawing from stream state ``states[0]``."""
    shuffle(states, 0, arr, arr.shape[0])


def shuffled(rng: SplitMix64, items: list[int]) -> list[int]:
    """``rng.shuffle(items)`` bit for bit (``rng`` advanced alike), compiled: a search deals many worlds."""
    arr, state = np.array(items, np.int64), np.array([rng.state], np.uint64)
    shuffle_in_place(state, arr)
    rng.state = int(state[0])
    return arr.tolist()
