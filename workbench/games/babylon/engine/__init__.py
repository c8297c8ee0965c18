"""The compiled engine of Towers of Babylon, proven frame-identical to the reference loop by the parity harness.

``kernel`` holds the numba functions over arrays; ``fast`` is the entry core's runner calls (and, where the game
has core's search, the continue-from-a-state entry its rollouts use).
"""
