"""Test plumbing, not part of the template: the coin race slowed down, for tests that kill a run half-way.

``MODEL`` is the toy game with a pause before every game (``TOY_SLEEP`` seconds from the environment,
0.004 when unset), so a sweep in a subprocess is still running when the test kills it.  Results are
the toy's own: same name, rules version and rows.  A test uses it by importing ``MODEL`` from here
(or with ``WORKBENCH_GAMES=tests.toygame.slow`` in a subprocess's environment).
"""

from __future__ import annotations

import os
import time

from tests.toygame import rules
from tests.toygame.model import ToyModel

DEFAULT_SLEEP = 0.004  # seconds per game


class SlowToyModel(ToyModel):
    """The coin race, pausing before each game."""

    def initial_state(self, config: rules.Config, seed: int) -> rules.State:
        """Sleep, then the toy's initial state."""
        time.sleep(float(os.environ.get("TOY_SLEEP") or DEFAULT_SLEEP))
        return super().initial_state(config, seed)


MODEL = SlowToyModel()
