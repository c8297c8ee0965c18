"""Nothing lost under concurrency and faults: regression tests of issue 22, each as a user would meet it.

Two real processes at once where it is about concurrency, a real SIGKILL where it is about orphans,
a real full disk (a small tmpfs in a private mount namespace) where it is about a folder that stops
taking writes, and a real SIGTERM where it is about staging folders.
"""

from __future__ import annotations

import io
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from tests.conftest import REPO, terminal_ctrl_c
from workbench.cli import main
from workbench.core.errors import RunInterrupted
from workbench.core.sim.runner import simulate
from workbench.core.sim.stream import simulate_to_parquet

WORKBENCH = [sys.executable, "-m", "workbench.cli"]
HUGE = str(10**12)  # a run that would never finish: the tests stop it


def _start(args: list[str], **env: str) -> subprocess.Popen:
    return subprocess.Popen([*WORKBENCH, *args], cwd=REPO, env={**os.environ, **env}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=terminal_ctrl_c)


def _wait_for(what, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no progress"
        time.sleep(0.05)


def _parts(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("0*.parquet"))


def _contiguous(frame: pl.DataFrame) -> bool:
    return frame["game_index"].to_list() == list(range(frame.height))


# -- D1: one writer per output ---------------------------------------------------------------------------
def test_two_simulate_runs_on_one_file_the_second_is_refused_at_once_and_nothing_is_lost(tmp_path):
    out = tmp_path / "same.parquet"
    first = _start(["simulate", "toy", "--games", HUGE, "--chunk-size", "2000", "--workers", "1", "--seed", "9",
                    "--out", str(out)])
    parts = tmp_path / "same.parquet.parts"
    _wait_for(lambda: len(_parts(parts)) >= 2, first)
    second = subprocess.run([*WORKBENCH, "simulate", "toy", "--games", HUGE, "--chunk-size", "2000", "--workers",
                             "1", "--seed", "9", "--out", str(out)], cwd=REPO, capture_output=True, text=True,
                            timeout=120)
    assert second.returncode == 2, second.stderr
    err = second.stderr.strip()
    assert f"--out {out} is being written by another run (pid {first.pid}: " in err
    assert "simulate toy --games" in err and "Traceback" not in err and len(err.splitlines()) == 1
    assert first.poll() is None  # the first run was not disturbed
    before = len(_parts(parts))
    first.send_signal(signal.SIGINT)
    _, stderr = first.communicate(timeout=60)
    assert first.returncode == 130, stderr
    assert out.is_file(), (stderr, _parts(parts) if parts.exists() else "no parts folder")
    kept = pl.read_parquet(out)
    assert kept.height >= before * 2000 and kept.height % 2000 == 0 and _contiguous(kept)  # nothing lost or doubled
    assert_frame_equal(kept.head(300), simulate("toy", 300, seed=9, progress=False))
    assert not (tmp_path / "same.parquet.lock").exists()


def test_two_sweeps_into_one_store_the_second_is_refused_and_the_first_is_intact(tmp_path):
    store = tmp_path / "st"
    args = ["sweep", "toy", "--grid", "edge=0.3,0.6", "--games", "2000000", "--chunk-size", "2000", "--out",
            str(store)]
    first = _start(args)
    _wait_for(lambda: len(list((store / "chunks").glob("*/0*.parquet"))) >= 2, first)
    second = subprocess.run([*WORKBENCH, *args], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert second.returncode == 2
    assert f"--out {store} is being written by another run (pid {first.pid}: " in second.stderr
    first.send_signal(signal.SIGINT)
    first.communicate(timeout=60)
    assert first.returncode == 130
    shown = subprocess.run([*WORKBENCH, "sweep", "show", str(store)], cwd=REPO, capture_output=True, text=True,
                           timeout=120)
    assert shown.returncode == 0 and "toy sweep, running; 2 cells" in shown.stdout


def test_a_report_folder_is_written_by_one_run_and_sigterm_leaves_nothing_behind(tmp_path):
    target = tmp_path / "rep"
    first = _start(["report", "babylon", "--out", str(target)])  # minutes long: stopped below
    _wait_for(lambda: (tmp_path / "rep.lock").exists() and any(tmp_path.glob(".rep.staging-*")), first)
    second = subprocess.run([*WORKBENCH, "report", "toy", "--quick", "--out", str(target)], cwd=REPO,
                            capture_output=True, text=True, timeout=120)
    assert second.returncode == 2, second.stderr
    assert f"report output {target} is being written by another run (pid {first.pid}: " in second.stderr
    assert "report babylon --out" in second.stderr
    assert first.poll() is None
    first.send_signal(signal.SIGTERM)
    _, stderr = first.communicate(timeout=120)
    assert first.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert list(tmp_path.iterdir()) == []  # no report, no .rep.staging-*, no lock


def test_a_stop_that_lands_in_code_run_by_exec_still_exits_130_under_python_m(tmp_path):
    # A stop arriving while exec'd code runs (dataclasses and numba build functions that way) left
    # CPython's "unhandled KeyboardInterrupt" mark set, and `python -m` then ended the handled stop
    # by SIGINT (status -2): one early stop of `report babylon` in eight under load.
    (tmp_path / "stopped_in_exec.py").write_text(
        "import sys\nfrom workbench import cli\n"
        "cli._dispatch = lambda argv: exec('raise KeyboardInterrupt')\n"
        "sys.exit(cli.main([]))\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)])}
    ran = subprocess.run([sys.executable, "-m", "stopped_in_exec"], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=120)
    assert ran.returncode == 130, ran.stderr
    assert ran.stderr.strip() == "workbench: stopped; finished work is kept and nothing was left half-written"


# -- D2: parts of another run are never deleted silently ------------------------------------------------
def test_parts_of_a_killed_run_survive_a_rerun_with_other_settings_and_resume(tmp_path):
    out = tmp_path / "run.parquet"
    parts = tmp_path / "run.parquet.parts"
    run = _start(["simulate", "toy", "--games", HUGE, "--chunk-size", "2000", "--out", str(out), "--seed", "7"])
    _wait_for(lambda: len(_parts(parts)) >= 3, run)
    os.killpg(run.pid, signal.SIGKILL)
    run.communicate(timeout=60)
    kept = _parts(parts)
    other = subprocess.run([*WORKBENCH, "simulate", "toy", "--games", HUGE, "--chunk-size", "2000", "--out",
                            str(out), "--seed", "8"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert other.returncode == 2
    assert f"{parts}/ holds {len(kept) * 2000:,} finished games of another run" in other.stderr
    assert "--seed 7 → 8" in other.stderr and "pass --force to discard those games" in other.stderr
    assert _parts(parts) == kept and not out.exists()
    # the same command again resumes: every game the killed run finished is kept, none is played twice
    with pytest.raises(RunInterrupted):
        simulate_to_parquet("toy", 10**12, out, seed=7, chunk_size=2000, progress=False, should_stop=lambda: True)
    frame = pl.read_parquet(out)
    assert frame.height == (len(kept) + 1) * 2000 and _contiguous(frame)
    assert_frame_equal(frame.head(300), simulate("toy", 300, seed=7, progress=False))


# -- D3: --force never replaces a file the workbench did not write ------------------------------------------
def test_report_force_refuses_to_replace_a_users_index_html(tmp_path, capsys):
    target = tmp_path / "mine"
    target.mkdir()
    (target / "index.html").write_text("<p>my own page</p>")
    assert main(["report", "toy", "--quick", "--out", str(target), "--force"]) == 2
    err = capsys.readouterr().err
    assert f"{target / 'index.html'} is not the workbench's" in err and "never replaces your files" in err
    assert (target / "index.html").read_text() == "<p>my own page</p>"
    assert [p.name for p in target.iterdir()] == ["index.html"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]  # no staging folder, no lock left


# -- D4: a sweep store holds one sweep; --force says the truth ------------------------------------------------
def test_sweep_force_into_a_store_of_another_sweep_is_refused_and_the_first_stays_whole(tmp_path, capsys):
    store = tmp_path / "st"
    first = ["sweep", "toy", "--grid", "edge=0.3,0.5", "--games", "60", "--out", str(store), "--quiet"]
    assert main(first) == 0
    manifest = (store / "manifest.json").read_text()
    capsys.readouterr()
    assert main(["sweep", "toy", "--grid", "edge=0.5,0.7", "--games", "60", "--out", str(store), "--force",
                 "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "holds another sweep" in err and "--force cannot add this one: give it another --out" in err
    assert (store / "manifest.json").read_text() == manifest
    assert main(["sweep", "export", str(store), "--parquet", str(tmp_path / "x.parquet")]) == 0
    expected = pl.concat([simulate("toy", 60, params={"edge": e}, progress=False) for e in (0.3, 0.5)])
    assert_frame_equal(pl.read_parquet(tmp_path / "x.parquet"), expected)
    assert main(first) == 0  # re-running the first sweep is not refused


# -- no orphans -------------------------------------------------------------------------------------------
def _children(pid: int) -> set[int]:
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_workers_end_when_their_parent_is_killed(tmp_path):
    out = tmp_path / "w.parquet"
    run = _start(["simulate", "toy", "--games", HUGE, "--chunk-size", "2000", "--workers", "2", "--out", str(out)])
    _wait_for(lambda: len(_parts(tmp_path / "w.parquet.parts")) >= 2, run)
    workers = _children(run.pid)
    assert len(workers) >= 2
    os.kill(run.pid, signal.SIGKILL)  # the parent only: not its process group
    run.communicate(timeout=30)
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [p for p in workers if _alive(p)]
    for pid in left:  # do not leak them into the rest of the suite
        os.kill(pid, signal.SIGKILL)
    assert left == []


# -- messages, not tracebacks ---------------------------------------------------------------------------------
@pytest.mark.parametrize("args", [
    ["simulate", "toy", "--games", "20", "--quiet", "--out", "/proc/nowhere/x.parquet"],
    ["sweep", "toy", "--games", "20", "--quiet", "--out", "/proc/nowhere/store"],
    ["report", "toy", "--quick", "--out", "/proc/nowhere/rep"],
])
def test_an_output_folder_that_cannot_be_created_is_one_line(capsys, args):
    assert main(args) == 1
    err = capsys.readouterr().err.strip()
    assert "/proc/nowhere" in err and "give a folder you can write to" in err
    assert "Traceback" not in err and len(err.splitlines()) == 1


def _in_small_disk(tmp_path: Path, command: str) -> subprocess.CompletedProcess:
    """``command`` (a shell line, DISK its folder) run with DISK a 200 KB tmpfs of its own; then DISK's listing."""
    disk = tmp_path / "disk"
    disk.mkdir()
    script = (f"mount -t tmpfs -o size=200k tmpfs {disk} || exit 97; cd {REPO}; "
              f"{command.replace('DISK', str(disk))} 2>{tmp_path / 'err'}; echo rc=$?; "
              f"find {disk} -mindepth 1 -printf '%P\\n'")
    return subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("command, kept", [
    (f"{sys.executable} -m workbench.cli simulate toy --games {HUGE} --chunk-size 2000 --out DISK/x.parquet",
     "finished games are kept in"),
    (f"{sys.executable} -m workbench.cli sweep toy --games 2000000 --chunk-size 2000 --out DISK/st",
     "the finished chunks are kept in"),
    (f"{sys.executable} -m workbench.cli report toy --quick --out DISK/rep", "nothing was replaced"),  # 428 KB
])
def test_a_full_disk_mid_run_is_one_line_keeps_finished_work_and_leaves_no_temporary_file(tmp_path, command, kept):
    done = _in_small_disk(tmp_path, command)
    assert "rc=1" in done.stdout, (done.stdout, done.stderr)
    err = (tmp_path / "err").read_text().strip()
    assert "Traceback" not in err
    said = [line for line in err.splitlines() if line.startswith("workbench:")]
    assert len(said) == 1 and said[0] == err.splitlines()[-1]  # after the report's step lines: one message
    assert "No space left on device" in said[0] and kept in said[0] and ".staging-" not in said[0]
    listing = done.stdout.split("rc=1", 1)[1].split()
    assert not [n for n in listing if ".tmp-" in n or "staging" in n or "building" in n or n.endswith(".lock")]
    if "simulate" in command:
        assert len([n for n in listing if n.startswith("x.parquet.parts/0")]) >= 1


def test_flying_study_on_a_67_by_67_map_counts_its_paths_exactly():
    from workbench.games.rescue import board as bd
    from workbench.games.rescue.board_studies import flying_chart, flying_tables

    rows = ["S" + "#" * 66] + ["#" * 67] * 65 + ["#" * 66 + "C"]  # all road: every monotone path is shortest
    tables = flying_tables(bd.parse_map("\n".join(rows), "big.map", "big"), 0, "random", 0, 10)
    summary = tables["summary"].row(0, named=True)
    assert summary["distance"] == 132 and summary["shortest_paths_exact"] == str(math.comb(132, 66))
    assert summary["shortest_paths"] is None  # beyond Int64: said in the exact column, never wrapped
    assert 0 <= int(summary["chosen_rank_exact"]) < math.comb(132, 66)
    assert tables["paths"].height == 11 and tables["paths"]["chosen"].sum() == 1
    assert str(math.comb(132, 66)) in str(flying_chart(tables).to_dict())


# -- progress everywhere ------------------------------------------------------------------------------------
def test_eta_waits_for_a_sample_and_is_right_once_shown():
    from workbench.core.sim.progress import LineProgress

    now = [0.0]
    log = io.StringIO()
    bar = LineProgress(10_000, "run", every=0, stream=log, clock=lambda: now[0])
    now[0] = 5.0  # a pool starting: the first chunk of 1,000 after 5 s, then 500 games every 0.5 s
    bar.update(1000)
    for _ in range(4):
        now[0] += 0.5
        bar.update(500)
    lines = log.getvalue().splitlines()
    assert all("ETA" not in line for line in lines[:-1])  # the first line would have said 45 s (true: 9 s)
    assert lines[-1] == "run: 3,000/10,000 games (30%), 429 games/s, ETA 7 s"  # 7,000 left at 1,000/s


def test_a_terminal_bar_shows_no_eta_until_the_sample_is_big_enough(monkeypatch):
    from workbench.core.sim import progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    bar = progress.progress(10_000, "run")
    for _ in range(3):
        bar.update(1000)
    bar.bar.refresh()
    assert "ETA" not in screen.getvalue() and "3000/10000" in screen.getvalue()
    monkeypatch.setattr(progress, "WARMUP_SECONDS", 0.0)
    bar.update(1000)  # four chunks after the first: the sample is big enough now
    bar.bar.refresh()
    assert "ETA " in screen.getvalue().rsplit("\r", 1)[-1]
    bar.close()


def test_study_prints_progress_lines_with_rate(tmp_path):
    run = subprocess.run([*WORKBENCH, "study", "toy", "outcomes", "--games", "20000"], cwd=REPO,
                         env={**os.environ, "WORKBENCH_PROGRESS_EVERY": "0.05"}, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    lines = [line for line in run.stderr.splitlines() if line.startswith("toy study outcomes: ")]
    # before the first games are counted (a slow start on a loaded machine) a line says the run is working
    counted = [i for i, line in enumerate(lines) if "games/s" in line]
    assert counted and counted == list(range(counted[0], len(lines))), lines  # once counted, every line has a rate
    assert all(re.fullmatch(r"toy study outcomes: working, \d+ s so far", line) for line in lines[:counted[0]])
    assert any("/20,000 games (" in line for line in lines)
    assert run.stderr.splitlines()[-1].startswith("toy study outcomes … done in ")


def test_a_report_step_prints_progress_while_it_runs(tmp_path, capsys, monkeypatch):
    from workbench.core.sim import progress

    monkeypatch.setattr(progress, "EVERY", 0.05)
    assert main(["report", "toy", "--quick", "--out", str(tmp_path / "r")]) == 0
    err = capsys.readouterr().err.splitlines()
    beats = [line for line in err if line.startswith("toy report 1/2: 500 games per lineup: ")]
    assert beats and ("games so far" in beats[-1] or "working" in beats[-1])


# -- edits and engines ------------------------------------------------------------------------------------
def test_a_bad_edit_is_named_as_typed(capsys):
    assert main(["study", "babylon", "whatif", "--edits", "F9.power_cost=abc", "--games", "10"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == ("workbench: error: edit F9.power_cost=abc of cards.csv, column 'power_cost': 'abc' is not a "
                   "whole number")  # not the internal copy (…/workbench-cache/babylon/cards-….csv, row 10)


def test_engine_fast_with_an_agent_it_cannot_play_is_one_line_naming_auto(capsys, recwarn):
    assert main(["simulate", "babylon", "--agents", "search,greedy", "--engine", "fast", "--games", "2",
                 "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("workbench: error: babylon: --engine fast cannot play these games: agents search have no "
                   "compiled twin; use --engine auto to fall back to the reference engine (or --engine reference)")
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_the_lock_names_its_holder_and_goes_with_it(tmp_path):
    from workbench.core.sim.store import OutputLock

    with OutputLock(tmp_path / "r") as held:
        assert held.path == tmp_path / "r.lock"
        assert held.path.read_text().splitlines()[0] == f"pid {os.getpid()}"
    assert not (tmp_path / "r.lock").exists()
