"""The studio's Stop and progress, timed (issues 31 and 37): how long Stop takes and how often progress moves.

    .venv/bin/python benchmarks/studio_stop.py [--cases duel:battlefields:40000,rescue:auction:2000000]

For each case a study page is driven in-process (``workbench.ui.studies.StudyPanel``, as the studio's kernel
runs it): Run, wait for the first progress, time three progress steps, press Stop, and read how long the run
took to end (``data-stop-seconds``: Stop pressed to the run ended, in the kernel).  The bars: Stop within 2 s,
progress at least once a second after its first step.  The tests (``tests/app``) assert what a user sees (stopped
· n of N, kept as stopped, never "done"); the times are measured here because they depend on the machine's load.
Run it on a quiet machine.  Exit 1 when a bar is missed.
"""

from __future__ import annotations

import argparse
import html
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CASES = "duel:battlefields:40000,rescue:auction:2000000"
STOP_BAR, GAP_BAR = 2.0, 1.0


def measure(game: str, study: str, games: int) -> tuple[float, float, int, int]:
    """(Stop seconds, longest progress gap after the first, games done, games asked) of one stopped run."""
    from workbench.app.workspace import Workspace
    from workbench.ui.studies import StudyPanel

    page = StudyPanel(game, study, workspace=Workspace(Path(tempfile.mkdtemp())))
    page.set(games=games)
    page.run()
    ends = time.perf_counter() + 120
    while page.job.latest[0] == 0 and time.perf_counter() < ends:
        time.sleep(0.01)
    if page.job.latest[0] == 0:
        raise SystemExit(f"{game} {study}: no progress in 120 s ({html.unescape(page.job.status.value)})")
    gaps, last, seen = [], time.perf_counter(), page.job.latest
    for _ in range(3):
        while page.job.latest == seen and time.perf_counter() - last < 10:
            time.sleep(0.005)
        gaps.append(time.perf_counter() - last)
        last, seen = time.perf_counter(), page.job.latest
    page.job.stop()
    page.job.wait(60)
    page.results.wait(60)
    status = html.unescape(page.job.status.value)
    took = float(re.search(r'data-stop-seconds="([0-9.]+)"', status)[1])
    done = int(re.search(r'data-done="(\d+)"', status)[1])
    total = int(re.search(r'data-total="(\d+)"', status)[1])
    return took, max(gaps[1:]), done, total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=CASES, help=f"GAME:STUDY:GAMES,... (default {CASES})")
    args = parser.parse_args(argv)
    missed = []
    print(f"{'game':<8} {'study':<14} {'Stop (s)':>9} {'longest gap (s)':>16} {'games done':>22}")
    for case in args.cases.split(","):
        game, study, games = case.split(":")
        took, gap, done, total = measure(game, study, int(games))
        print(f"{game:<8} {study:<14} {took:>9.2f} {gap:>16.2f} {f'{done:,} of {total:,}':>22}", flush=True)
        if took >= STOP_BAR or gap >= GAP_BAR:
            missed.append(f"{game} {study}")
    print(f"bars: Stop < {STOP_BAR} s, progress gap < {GAP_BAR} s" + (f"; missed: {', '.join(missed)}" if missed
                                                                         else "; all met"))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
