"""Master seed → one game seed per game.

Game ``i`` of a run with master seed ``m`` gets

    base = SeedSequence(m).generate_state(1, uint64)[0]
    game_seed(i) = mix64(base + (i + 1) * 0x9E3779B97F4A7C15)   (mod 2**64)

Every game seed depends only on ``(m, i)``: chunking, worker count and backend cannot change it,
any single game can be replayed alone from its row, and millions of seeds derive in one
vectorised numpy call.  ``SeedSequence`` hashes the user's master seed (any non-negative int).
"""

from __future__ import annotations

import numpy as np

from workbench.core.errors import InputError
from workbench.core.rng import GOLDEN, mix64_array


def check_master_seed(seed: object) -> int:
    """Validate a master seed: an integer in ``0 .. 2**64 - 1`` (it is stored as a 64-bit column)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**64:
        raise InputError(f"seed must be an integer in 0..{2**64 - 1}, got {seed!r}")
    return int(seed)


def base_seed(master_seed: int) -> np.uint64:
    """The 64-bit base derived from the master seed by ``SeedSequence``."""
    master_seed = check_master_seed(master_seed)
    return np.random.SeedSequence(master_seed).generate_state(1, np.uint64)[0]


def game_seeds(master_seed: int, start: int, stop: int) -> np.ndarray:
    """Game seeds for game indices ``start..stop-1`` as a ``uint64`` array."""
    idx = np.arange(start, stop, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = base_seed(master_seed) + (idx + np.uint64(1)) * np.uint64(GOLDEN)
    return mix64_array(z)


def game_seed(master_seed: int, index: int) -> int:
    """Seed of the single game ``index`` (for replaying one row)."""
    return int(game_seeds(master_seed, index, index + 1)[0])
