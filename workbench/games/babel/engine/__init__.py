"""The compiled engine of Tower of Babel's temple game, proven frame-identical to the reference loop (parity harness).

``kernel`` holds the numba functions over arrays; ``fast`` is the entry core's runner calls (and, where the game
has core's search, the continue-from-a-state entry its rollouts use).
"""
