"""Test-wide set-up: the repository root on ``sys.path`` so helpers import as ``tests.…``.

Spawned worker processes inherit ``PYTHONPATH``, so test-only games (``tests/toygame``) are found
there too.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
os.environ.setdefault("WORKBENCH_GAMES", "tests.toygame.model")  # the toy game: see tests/toygame/model.py
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH", "")]))
# A suite started in the background (`nohup make test &`, a non-interactive shell's `&`) inherits
# Ctrl-C ignored, and so would every run a test starts; the tests that stop runs with SIGINT test
# what a terminal's Ctrl-C does, so it is delivered here as in a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
