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


def terminal_ctrl_c() -> None:
    """``preexec_fn`` of a run a test stops with SIGINT: Ctrl-C reaches it as from a terminal.

    A suite started in the background (`nohup make test &`, a non-interactive shell's `&`) inherits
    Ctrl-C ignored, and so would the runs it starts; only the runs that test Ctrl-C get it back (the
    studio's servers and kernels keep what the suite was given).
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
