"""Nothing lost, nothing confusing: regression tests of issue 9, each asserting what a user sees.

The data-loss and overwrite cases first, then memory bounds, input people have, tracebacks that
became messages, feedback while it works and the sweep commands.
"""

from __future__ import annotations

import json
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
from workbench.core.studies import study as study_mod

WORKBENCH = [sys.executable, "-m", "workbench.cli"]


def _never_called(*args, **kwargs):
    raise AssertionError("the report was computed although its --out was refused")


# -- 1. a report replaces only its own files -------------------------------------------------------
def test_report_refuses_a_directory_with_user_files_and_keeps_them(tmp_path, capsys, monkeypatch):
    target = tmp_path / "d"
    target.mkdir()
    (target / "notes.txt").write_text("x")
    monkeypatch.setattr(study_mod, "report_builder", lambda game: _never_called)
    assert main(["report", "toy", "--quick", "--out", str(target)]) == 2
    err = capsys.readouterr().err
    assert f"report output {target} is not empty and holds no workbench report (notes.txt)" in err
    assert "--force" in err
    assert sorted(p.name for p in target.iterdir()) == ["notes.txt"]


def test_report_with_force_adds_its_files_and_a_rerun_replaces_only_them(tmp_path, capsys):
    target = tmp_path / "d"
    target.mkdir()
    (target / "notes.txt").write_text("x")
    assert main(["report", "toy", "--quick", "--out", str(target), "--force"]) == 0
    own = set(json.loads((target / "report.json").read_text())["files"])
    assert "index.md" in own and (target / "notes.txt").read_text() == "x"
    (target / "index.md").write_text("stale")
    assert main(["report", "toy", "--quick", "--out", str(target)]) == 0  # a report's directory: no --force
    assert (target / "notes.txt").read_text() == "x"
    assert (target / "index.md").read_text().startswith("# Coin race (toy)")
    assert {p.name for p in target.iterdir()} == own | {"notes.txt"}


def _another_games_report(folder: Path) -> dict[str, str]:
    """A report of the die game in ``folder`` (as ``workbench report dietower`` leaves it); its files' texts."""
    folder.mkdir(parents=True)
    (folder / "index.md").write_text("the die game's report")
    (folder / "odds.csv").write_text("streak,chance\n1,0.5\n")
    (folder / "report.json").write_text(json.dumps({"title": "Tower of Babel (die streak)", "game": "dietower",
                                                    "files": ["index.md", "odds.csv", "report.json"]}))
    return {p.name: p.read_text() for p in folder.iterdir()}


@pytest.mark.parametrize("command", [["report", "toy", "--quick"], ["study", "toy", "outcomes", "--games", "20"],
                                     ["ladder", "toy", "--agents", "random,greedy", "--games", "20"]])
def test_no_command_replaces_another_games_report_unless_forced(tmp_path, capsys, monkeypatch, command):
    """Every command that writes a report: an --out holding another game's report is refused before a game is
    played, and kept (``workbench report duel --out reports/babylon`` replaced the Babylon report); --force
    replaces it, and a report of the same game is replaced as before."""
    from workbench.core.skill import ladder as ladder_mod
    from workbench.core.studies.study import Study

    target = tmp_path / "babylon-report"
    before = _another_games_report(target)
    with monkeypatch.context() as m:  # refused before anything is played
        m.setattr(study_mod, "report_builder", lambda game: _never_called)
        m.setattr(Study, "execute", _never_called)
        m.setattr(ladder_mod, "run_ladder", _never_called)
        assert main([*command, "--out", str(target)]) == 2
    err = capsys.readouterr().err
    assert f"report output {target} holds the report of another game (dietower: Tower of Babel (die streak)), " \
           "not toy's; choose another --out, or pass --force to replace it" in err, err
    assert {p.name: p.read_text() for p in target.iterdir()} == before
    assert main([*command, "--out", str(target), "--force"]) == 0
    info = json.loads((target / "report.json").read_text())
    assert info["game"] == "toy" and "odds.csv" not in info["files"]
    assert not (target / "odds.csv").exists()  # the old report's own file went with it
    assert main([*command, "--out", str(target)]) == 0  # its own game's report: replaced without --force


def test_report_default_goes_to_reports_game_beside_the_others(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    reports = tmp_path / "reports"
    (reports / "dietower").mkdir(parents=True)
    (reports / "README.md").write_text("what these are")
    (reports / "dietower" / "index.md").write_text("the die game's report")
    (reports / "dietower" / "report.json").write_text(json.dumps({"title": "t", "files": ["index.md"]}))
    assert main(["report", "toy", "--quick"]) == 0
    assert "toy: report written to reports/toy" in capsys.readouterr().out
    assert (reports / "README.md").read_text() == "what these are"
    assert (reports / "dietower" / "index.md").read_text() == "the die game's report"
    assert (reports / "toy" / "index.md").is_file()


def test_report_out_at_a_file_fails_before_computing(tmp_path, capsys, monkeypatch):
    afile = tmp_path / "report.txt"
    afile.write_text("x")
    monkeypatch.setattr(study_mod, "report_builder", lambda game: _never_called)
    assert main(["report", "duel", "--out", str(afile)]) == 2  # _never_called: refused before any game
    assert f"argument --out: out {afile} is a file; give a folder" in capsys.readouterr().err


# -- 3. nothing overwritten silently ------------------------------------------------------------------
def test_simulate_refuses_to_overwrite_an_existing_parquet_without_force(tmp_path, capsys):
    out = tmp_path / "mine.parquet"
    pl.DataFrame({"precious": [1, 2, 3]}).write_parquet(out)
    assert main(["simulate", "toy", "--games", "10", "--quiet", "--out", str(out)]) == 2
    assert f"--out {out} exists; give another file, or --force to replace it" in capsys.readouterr().err
    assert pl.read_parquet(out)["precious"].to_list() == [1, 2, 3]
    assert main(["simulate", "toy", "--games", "10", "--quiet", "--out", str(out), "--force"]) == 0
    assert_frame_equal(pl.read_parquet(out), simulate("toy", 10, progress=False))


def test_a_different_sweep_into_the_same_store_is_refused(tmp_path, capsys):
    out = tmp_path / "store"
    assert main(["sweep", "toy", "--games", "40", "--grid", "board=all", "--out", str(out), "--quiet"]) == 0
    manifest = (out / "manifest.json").read_text()
    capsys.readouterr()
    assert main(["sweep", "toy", "--games", "40", "--grid", "edge=0.2,0.4", "--out", str(out), "--quiet"]) == 2
    assert f"{out} holds another sweep" in capsys.readouterr().err
    assert (out / "manifest.json").read_text() == manifest


# -- 2. memory stays bounded ---------------------------------------------------------------------------
def test_a_run_too_big_for_memory_is_refused_before_any_work(capsys, monkeypatch):
    from workbench.core.sim import sweep

    monkeypatch.setenv("WORKBENCH_MEMORY_LIMIT", str(8 * 1024**3))
    monkeypatch.setattr(sweep, "run_grid", _never_called)  # the run itself never starts: only the pilot plays
    assert main(["simulate", "duel", "--games", "1000000000000", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "1,000,000,000,000 games would take about" in err and "PB in memory" in err
    assert "more than the 8.0 GB allowed" in err and "give --out FILE.parquet to stream the games" in err


def _vm(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    return 0


def test_a_huge_run_streams_to_disk_in_bounded_memory_and_keeps_its_prefix_when_interrupted(tmp_path):
    out = tmp_path / "huge.parquet"
    env = {**os.environ, "WORKBENCH_PROGRESS_EVERY": "0.2"}
    proc = subprocess.Popen([*WORKBENCH, "simulate", "toy", "--games", "1000000000000", "--chunk-size", "2000",
                             "--out", str(out)], cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=terminal_ctrl_c)
    parts = tmp_path / "huge.parquet.parts"
    deadline = time.monotonic() + 90
    while len(list(parts.glob("0*.parquet"))) < 15:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no progress"
        time.sleep(0.05)
    peak = _vm(proc.pid, "VmHWM")
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert peak < 1_500 * 1024**2, f"peak resident memory {peak / 1024**2:.0f} MB"
    assert "kept " in stderr and "run the same command again to resume" in stderr
    assert "toy → huge.parquet: " in stderr and "games/s" in stderr  # plain progress lines in a log
    kept = pl.read_parquet(out)
    assert kept.height >= 15 * 2000 and kept.height % 2000 == 0
    assert kept["game_index"].to_list()[:2000] == list(range(2000))
    assert_frame_equal(kept.head(500), simulate("toy", 500, progress=False))


def test_an_interrupted_stream_resumes_to_the_uninterrupted_file(tmp_path):
    out = tmp_path / "r.parquet"
    seen = []
    with pytest.raises(RunInterrupted) as info:
        simulate_to_parquet("toy", 1000, out, grid={"board": ["small", "large"]}, chunk_size=100, progress=False,
                            on_progress=lambda done, total: seen.append(done), should_stop=lambda: len(seen) >= 7)
    assert info.value.done == 700 and pl.read_parquet(out).height == 700
    done = simulate_to_parquet("toy", 1000, out, grid={"board": ["small", "large"]}, chunk_size=100, progress=False)
    assert done.complete and done.games == 2000 and not (tmp_path / "r.parquet.parts").exists()
    fresh = simulate_to_parquet("toy", 1000, tmp_path / "f.parquet", grid={"board": ["small", "large"]},
                                chunk_size=100, progress=False)
    assert fresh.games == 2000
    assert_frame_equal(pl.read_parquet(out), pl.read_parquet(tmp_path / "f.parquet"))
    import pyarrow.parquet as pq

    assert pq.ParquetFile(out).num_row_groups == 20  # a row group per chunk


# -- 5. input that real users have -----------------------------------------------------------------------
def test_a_battlefields_file_with_a_new_battlefield_makes_it_selectable(tmp_path, capsys):
    base = (REPO / "data" / "duel" / "battlefields.csv").read_text(encoding="utf-8").splitlines()
    new = "desert_dunes,Desert Dunes,Bukit Pasir," + base[2].split(",", 3)[3]
    path = tmp_path / "fields.csv"
    path.write_text("\ufeff" + "\n".join([*base, new]) + "\n", encoding="utf-8")  # saved by Excel: a BOM
    out = tmp_path / "d.parquet"
    assert main(["simulate", "duel", "--battlefields", str(path), "--battlefield", "desert_dunes", "--games", "20",
                 "--quiet", "--out", str(out)]) == 0
    assert pl.read_parquet(out)["battlefield"].unique().to_list() == ["desert_dunes"]
    assert main(["simulate", "duel", "--battlefields", str(path), "--battlefield", "all", "--games", "2",
                 "--quiet", "--out", str(tmp_path / "all.parquet")]) == 0
    assert pl.read_parquet(tmp_path / "all.parquet")["battlefield"].n_unique() == 9
    capsys.readouterr()
    assert main(["simulate", "duel", "--battlefield", "desert_dunes", "--games", "2", "--quiet"]) == 2
    assert "'desert_dunes' is not allowed; allowed: grand_wizards_fortress" in capsys.readouterr().err


# -- 6. messages, not tracebacks -------------------------------------------------------------------------
@pytest.mark.parametrize("args, message", [
    (["simulate", "toy", "--seed", str(2**64), "--games", "2"], "seed must be an integer in 0..18446744073709551615"),
    (["sweep", "toy", "--seed", str(2**64), "--games", "2", "--out", "OUT"], "seed must be an integer in 0.."),
    (["report", "toy", "--seed", "-3", "--quick", "--out", "OUT"], "seed must be an integer in 0.."),
    (["simulate", "toy", "--games", "2", "--out", "AFILE/x.parquet"], "is a file, not a folder"),
    (["sweep", "toy", "--games", "2", "--out", "AFILE/store"], "is a file, not a folder"),
    (["report", "toy", "--quick", "--out", "AFILE/rep"], "is a file, not a folder"),
])
def test_bad_values_are_one_line_messages(tmp_path, capsys, args, message):
    (tmp_path / "AFILE").write_text("a file, not a directory")
    args = [a.replace("AFILE", str(tmp_path / "AFILE")).replace("OUT", str(tmp_path / "out")) for a in args]
    assert main([*args, "--quiet"] if args[0] != "report" else args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.xdist_group("dask")
def test_an_unreachable_dask_scheduler_is_named_with_the_wait(capsys, monkeypatch):
    from workbench.core.sim import runner

    monkeypatch.setattr(runner, "SCHEDULER_TIMEOUT", 1.5)
    assert main(["simulate", "toy", "--games", "20", "--backend", "dask", "--scheduler", "tcp://127.0.0.1:9",
                 "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "could not reach the Dask scheduler at tcp://127.0.0.1:9 (waited" in err
    assert "Start one with `dask scheduler`" in err


# -- 8. friendlier CLI ---------------------------------------------------------------------------------
def test_simulate_help_without_a_game_lists_the_games(capsys):
    assert main(["simulate", "--help"]) == 0
    out = capsys.readouterr().out
    assert "games:" in out and "duel" in out and "dietower" in out and "workbench simulate GAME --help" in out


@pytest.mark.parametrize("argv", [[], ["report"], ["ladder"], ["tune"], ["rebalance"], ["games"], ["shuffle"],
                                  ["compile"]], ids=lambda a: " ".join(a) or "workbench")
def test_every_commands_help_prints_its_usage(capsys, argv):
    # a help text is a format string to argparse: a bare "95 %" in one once made `workbench --help` crash
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: workbench {' '.join(argv)}".rstrip()) and "options:" in out
    if not argv:  # the top level names every command
        assert all(command in out for command in ("games", "simulate", "sweep", "study", "report", "ladder", "tune"))


def test_compile_readies_each_engine_once_and_names_an_unknown_game(capsys):
    from workbench.core.sim.warm import engine_games

    assert main(["compile", "dietower", "--jobs", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert re.fullmatch(r"dietower: engine ready in \d+\.\d s", out[0]) and out[1].startswith("1 engines ready in ")
    assert set(engine_games()) == {"duel", "dietower", "babel", "babylon"}  # rescue and the toy have no engine
    assert main(["compile", "chess"]) == 2
    assert "unknown game 'chess'; allowed: " in capsys.readouterr().err


def test_compile_is_skipped_once_every_engine_is_compiled_until_a_source_changes(tmp_path, monkeypatch, capsys):
    from workbench.core.sim import warm

    played = []
    monkeypatch.setattr(warm, "STAMP_DIR", tmp_path)
    monkeypatch.setattr(warm, "warm_game", lambda name: played.append(name) or 0.0)
    monkeypatch.delenv("WORKBENCH_GAMES", raising=False)
    assert main(["compile", "--jobs", "1"]) == 0
    assert sorted(played) == ["babel", "babylon", "dietower", "duel"]
    assert main(["compile", "--jobs", "1"]) == 0 and len(played) == 4  # nothing changed: nothing compiled again
    assert "every engine is compiled already" in capsys.readouterr().out.splitlines()[-1]
    monkeypatch.setattr(warm, "source_digest", lambda: "an-edited-kernel")
    assert main(["compile", "--jobs", "1"]) == 0 and len(played) == 8  # a source changed: every engine again
    assert main(["compile", "duel", "--jobs", "1"]) == 0 and played[-1] == "duel"  # a named game: always


def test_a_mistyped_flag_says_the_closest_one_in_two_lines(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["simulate", "duel", "--battlefeld", "free_steppe"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].endswith("unrecognized arguments: --battlefeld free_steppe; did you mean --battlefield?")
    assert len(err) == 2 and err[1].startswith("usage: workbench simulate duel")


# -- 9. sweeps print their table; show and export -----------------------------------------------------------
def test_sweep_prints_cell_rates_and_show_and_export_work(tmp_path, capsys):
    out = tmp_path / "s"
    assert main(["sweep", "toy", "--games", "200", "--agents", "greedy,random", "--grid", "board=all",
                 "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    frame = pl.concat([simulate("toy", 200, params={"board": b}, agents="greedy,random", progress=False)
                       for b in ("small", "large")])
    k = int((frame.filter(pl.col("board") == "small")["winner"] == "p1").sum())
    assert f"| small | 200 | {round(100 * k / 200, 1)}% [" in printed
    assert main(["sweep", "show", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "toy sweep, complete; 2 cells, 400 of 400 games" in shown and "| large | 200 |" in shown
    assert main(["sweep", "export", str(out), "--csv", str(tmp_path / "s.csv"), "--parquet",
                 str(tmp_path / "s.parquet")]) == 0
    assert_frame_equal(pl.read_parquet(tmp_path / "s.parquet"), frame)
    assert pl.read_csv(tmp_path / "s.csv").height == 400
    assert main(["sweep", "export", str(out), "--csv", str(tmp_path / "s.csv")]) == 2
    assert "exists; give another file, or --force" in capsys.readouterr().err


# -- 7. feedback while it works ---------------------------------------------------------------------------
def test_a_report_says_each_step_as_it_goes(tmp_path, capsys):
    assert main(["report", "toy", "--quick", "--out", str(tmp_path / "r")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "toy report 1/2: 500 games per lineup …"
    assert err[1].startswith("toy report 1/2: 500 games per lineup … done in ")
    assert err[-1].startswith("toy report 2/2: 500 games per edge … done in ")


def test_progress_lines_for_a_log_say_count_share_rate_and_eta():
    import io

    from workbench.core.sim.progress import LineProgress

    log = io.StringIO()
    bar = LineProgress(1000, "duel fast", every=0, stream=log)
    bar.update(250)
    bar.update(250)
    lines = log.getvalue().splitlines()
    assert lines[0].startswith("duel fast: 250/1,000 games (25%), ") and lines[0].endswith(" games/s")
    assert lines[1].startswith("duel fast: 500/1,000 games (50%), ")
    assert ", ETA " not in lines[1]  # two chunks in no time are no sample to promise a time by (test_faults.py)


def test_a_small_run_is_not_measured_before_it_starts(monkeypatch):
    from workbench.core.sim import stream

    calls = []
    monkeypatch.setattr("workbench.core.sim.play.play_chunk", lambda *a, **k: calls.append(a))
    assert stream.check_memory("duel", 50_000, [{}, {}], "search,greedy", None) == 0  # 100,000 games: no pilot
    assert calls == []
