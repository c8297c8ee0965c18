"""The studio's Stop and progress, timed (issues 31 and 37): how long Stop takes and how often progress moves.

    .venv/bin/python benchmarks/studio_stop.py [--cases duel:battlefields:40000,rescue:auction:2000000]

For each case a study page is driven in-process (``workbench.ui.studies.StudyPanel``, as the studio's kernel
runs it): Run, wait for the first progress, time three progress steps, press Stop, and read how long the run
took to end (``data-stop-seconds``: Stop pressed to the run ended, in the kernel).  The bars: Stop within 2 s,
progress at least once a second after its first step.  The tests (``tests/app``) assert what a user sees (stopped
· n of N, kept as stopped, never "done"); the times are measured here because they depend on the machine's load.
Run it on a quiet machine.  Exit 1 when a bar is missed.

``--all`` walks every registered study of every game (issue 39): each page is set to a run that cannot
finish in a few seconds (``Study.long_settings``), Run is pressed (twice when the page asks to
confirm), Stop about ``--after`` seconds later, and the run counts as stopping truthfully when the page
says "stopped" with the count of finished games its results header repeats, shows the tables of what
finished (when any finished), and ended within the bar after Stop.  A study with no long run (an exact
answer at once) counts when it says done before Stop.  Prints one line per study and the count.
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


def stop_one(game: str, study: str, after: float) -> tuple[str, float | None, str]:
    """(verdict, Stop seconds, what the page said) of one study stopped ``after`` seconds into a long run."""
    from workbench.app.workspace import Workspace
    from workbench.ui.studies import StudyPanel

    page = StudyPanel(game, study, workspace=Workspace(Path(tempfile.mkdtemp())))
    long = page.study.long_settings(page.model)
    if long:
        page.set(**long)
    page.run()
    if page.job.thread is None and 'data-state="confirm"' in page.job.status.value:
        page.run()  # the second press a long run (or one of unknown size) asks for
    if page.job.thread is None:
        return "not run", None, html.unescape(re.sub("<[^>]+>", " ", page.note.value)).strip()
    ends = time.perf_counter() + after
    while page.job.running and time.perf_counter() < ends:
        time.sleep(0.01)
    ran_out = not page.job.running
    page.job.stop()
    page.job.wait(300)
    page.results.wait(300)
    status = html.unescape(page.job.status.value)
    said = re.sub("<[^>]+>", "", status).strip()
    state = re.search(r'data-state="(\w+)"', status)[1]
    took = re.search(r'data-stop-seconds="([0-9.]+)"', status)
    took = float(took[1]) if took else None
    if state == "done":  # done says every game was played: true, the run only ended before Stop took effect
        return ("truthful" if ran_out and long is None else "truthful: finished first" if not ran_out
                else "too short"), took, said
    if state != "stopped":
        return f"ended {state}", took, said
    done = int(re.search(r'data-done="(\d+)"', status)[1])
    header = html.unescape(re.sub("<[^>]+>", "", page.results.header.value))
    shown = page.results.body.value + page.results.long.value
    if done and (f"{done:,}" not in header or "<table" not in shown):
        return "count or tables missing", took, said
    if took is None or took >= STOP_BAR:
        return "slow", took, said
    return "truthful", took, said


def _release_pages() -> None:
    """Free the pages walked so far, as the studio does when a page's kernel ends (one kernel a page there).

    Widgets stay registered until closed, and with them each page's results: the die tower's stopped runs of
    millions of games kept a gigabyte a page, and the memory free for later pages' runs fell until their size
    check refused them (the duel's cards and what-if, after the die tower's pages).
    """
    import gc

    import ipywidgets

    ipywidgets.Widget.close_all()
    gc.collect()


def walk(after: float, only: str = "", repeat: int = 1) -> int:
    """Every study of every game (``only``: those of ``GAME:STUDY,...``), stopped ``repeat`` times each; the count
    of stops that were truthful within the bar."""
    from workbench.core.model import game_names
    from workbench.core.studies.study import studies

    every = [(g, s.name) for g in game_names() for s in studies(g)]
    if only:
        wanted = {tuple(case.split(":", 1)) for case in only.split(",")}
        unknown = wanted - set(every)
        if unknown:
            raise SystemExit(f"--only: no study {', '.join(':'.join(u) for u in sorted(unknown))}; "
                             f"allowed: GAME:STUDY of {', '.join(game_names())}")
        every = [case for case in every if case in wanted]
    every = [case for case in every for _ in range(repeat)]
    good = 0
    print(f"{'game':<9} {'study':<14} {'verdict':<24} {'Stop (s)':>8}  page says")
    for game, name in every:
        verdict, took, said = stop_one(game, name, after)
        _release_pages()
        good += verdict.startswith("truthful")
        print(f"{game:<9} {name:<14} {verdict:<24} {'' if took is None else f'{took:.2f}':>8}  {said[:80]}",
              flush=True)
    print(f"{good} of {len(every)} studies stop truthfully (stopped · n of N with their tables, within "
          f"{STOP_BAR} s of Stop; an exact answer done before Stop)")
    return 0 if good == len(every) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=CASES, help=f"GAME:STUDY:GAMES,... (default {CASES})")
    parser.add_argument("--all", action="store_true", help="walk every study of every game (issue 39)")
    parser.add_argument("--after", type=float, default=2.0, help="seconds from Run to Stop in --all (default 2)")
    parser.add_argument("--only", default="", help="with --all: only these studies, GAME:STUDY,... (duel:verdicts)")
    parser.add_argument("--repeat", type=int, default=1, help="with --all: stop each study this many times")
    args = parser.parse_args(argv)
    if args.all:
        return walk(args.after, args.only, max(1, args.repeat))
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
