"""Test plumbing for the studio's browser tests: a game whose one lesson finishes only when the test says so.

``MODEL`` is the toy coin race renamed ``gated``, with one lesson (``coin``) that waits until the file
named by ``WORKBENCH_TEST_GATE`` exists, then returns the coin's exact chance of heads beside a
"simulated" count.  A test registers it in a studio server's environment
(``WORKBENCH_GAMES=tests.toygame.model,tests.app.gated_game``) and opens the gate at the moment it
chooses — e.g. after the page took its snapshot of the widgets, so the lesson's "done" is sent while
the page is still making them (``test_studio_browser.py``).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import polars as pl

from tests.toygame.model import ToyModel
from workbench.core.model import GameModel, Param
from workbench.core.studies.study import Study

GATE = "WORKBENCH_TEST_GATE"
CEILING = 600.0  # seconds a lesson waits for its gate before it runs anyway (a test that never opens it)
HEADS = 5_003  # "simulated" heads out of GAMES: 50.03 %, whose 95 % range holds the exact 50 %
GAMES = 10_000


def run_coin(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
             on_progress: Any = None, should_stop: Any = None) -> dict[str, pl.DataFrame]:
    """Wait for the gate file, then the exact chance of heads (1/2) beside a fixed count of heads."""
    gate = Path(os.environ.get(GATE) or "/nonexistent-gate")
    ends = time.monotonic() + CEILING
    while not gate.exists() and time.monotonic() < ends:
        time.sleep(0.02)
    return {"heads": pl.DataFrame({"outcome": ["heads"], "exact": [0.5], "exact_fraction": ["1/2"],
                                   "simulated": [HEADS / GAMES], "k": [HEADS], "n": [GAMES]})}


class GatedModel(ToyModel):
    """The coin race with a lesson that waits for the test's gate."""

    name = "gated"
    title = "Gated coin (studio test)"
    rules_version = "gated-1"
    lessons = (Study("coin", "A fair coin's heads", run_coin, (Param("flips", 1, int, "flips (unused)", 1, 9),),
                     help="Waits for the test's gate, then shows the exact chance of heads.", game_params=False),)


MODEL = GatedModel()
