"""Portable, documented pseudo-random streams shared by every engine.

Why not ``numpy.random.Generator`` inside the rules?  The reference engines (pure Python) and the
compiled fast paths (numba) must draw *the same numbers in the same order* so that a seeded game
is identical on both.  SplitMix64 is tiny, well studied, passes BigCrush, and is trivial to
implement identically in Python, numpy and numba.  It is used only for game play; the master seed
→ game seed derivation goes through :class:`numpy.random.SeedSequence` (see ``seeding.py``).

Algorithms (version ``splitmix64-v1``; change the name if any of this changes):

* ``next_u64``: ``state += 0x9E3779B97F4A7C15`` then the SplitMix64 finaliser ``mix64(state)``.
* ``below(n)``: Lemire's nearly-divisionless unbiased integer in ``[0, n)`` on the top 32 bits of
  ``next_u64`` (rejection removes the bias, so a shuffle is exactly uniform).
* ``random()``: ``(next_u64 >> 11) * 2**-53``, a float in ``[0, 1)``.
* ``stream_seed(seed, k)``: ``mix64(seed ^ (k * 0xD1B54A32D192ED03 mod 2**64))`` — independent
  named sub-streams of one game seed (deck, seat 0, seat 1, timer, ...).
"""

from __future__ import annotations

import numpy as np

ALGORITHM = "splitmix64-v1"
MASK64 = (1 << 64) - 1
MASK32 = (1 << 32) - 1
GOLDEN = 0x9E3779B97F4A7C15
STREAM_MUL = 0xD1B54A32D192ED03
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB
_INV_2_53 = 1.0 / 9007199254740992.0


def mix64(z: int) -> int:
    """SplitMix64 finaliser (a bijection on 64-bit integers)."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * _M1) & MASK64
    z = ((z ^ (z >> 27)) * _M2) & MASK64
    return z ^ (z >> 31)


def stream_seed(seed: int, stream: int) -> int:
    """Seed of the named sub-stream ``stream`` of a game seed."""
    return mix64((seed & MASK64) ^ ((stream * STREAM_MUL) & MASK64))


class SplitMix64:
    """A SplitMix64 stream.  Mutable by design: it is the one piece of state an rng is."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = int(seed) & MASK64

    @classmethod
    def for_stream(cls, seed: int, stream: int) -> SplitMix64:
        """The sub-stream ``stream`` of ``seed`` (see :func:`stream_seed`)."""
        return cls(stream_seed(seed, stream))

    def next_u64(self) -> int:
        """Next 64-bit output."""
        self.state = (self.state + GOLDEN) & MASK64
        return mix64(self.state)

    def below(self, n: int) -> int:
        """Unbiased integer in ``[0, n)`` (Lemire's method on 32-bit draws); ``n`` in 1..2**32."""
        if n <= 0:
            raise ValueError(f"below(n) needs n >= 1, got {n}")
        m = (self.next_u64() >> 32) * n
        low = m & MASK32
        if low < n:
            threshold = ((1 << 32) - n) % n
            while low < threshold:
                m = (self.next_u64() >> 32) * n
                low = m & MASK32
        return m >> 32

    def random(self) -> float:
        """Float in ``[0, 1)`` with 53 random bits."""
        return (self.next_u64() >> 11) * _INV_2_53

    def shuffle(self, items: list) -> list:
        """Return a new list: Fisher–Yates from the last position down, ``j = below(i + 1)``."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


def mix64_array(z: np.ndarray) -> np.ndarray:
    """Vectorised :func:`mix64` over a ``uint64`` array (wrapping arithmetic)."""
    z = np.asarray(z, dtype=np.uint64)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(_M1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(_M2)
    return z ^ (z >> np.uint64(31))
