import importlib.metadata
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from tests.conftest import REPO
from tests.toygame.model import MODEL as TOY  # the plain coin race: only the killed subprocess below needs the slow one
from workbench.core.errors import InputError, RunInterrupted
from workbench.core.sim import runner as runner_mod
from workbench.core.sim.runner import simulate
from workbench.core.sim.seeding import game_seeds
from workbench.core.sim.store import clean_stale_temp, write_parquet_atomic
from workbench.core.sim.sweep import load_sweep, parse_grid, run_grid, run_sweep, sweep_status, unbroken_prefix

GRID = {"board": ["small", "large"], "edge": [0.5, 0.8]}


def _chunk_files(out):
    """Finished chunk files (pathlib's glob also matches the dot-named temporary files)."""
    return [p for p in Path(out, "chunks").rglob("*.parquet") if not p.name.startswith(".")]


def _files(out):
    return {p: p.stat().st_mtime_ns for p in _chunk_files(out)}


def _count_chunks(monkeypatch):
    calls = []
    real = runner_mod.run_chunk

    def counting(*args):
        calls.append(args[4:6])
        return real(*args)

    monkeypatch.setattr(runner_mod, "run_chunk", counting)
    return calls


# -- grid parsing ---------------------------------------------------------------------------------
def test_parse_grid_expands_and_validates():
    grid = parse_grid(["board=all", "edge=0.5,0.8", "limit=10:30:10", "fast=all"], TOY)
    assert grid == {"board": ["small", "large"], "edge": [0.5, 0.8], "limit": [10, 20, 30], "fast": [False, True]}
    assert parse_grid("board=large,large", TOY) == {"board": ["large"]}
    assert parse_grid([], TOY) == {}


@pytest.mark.parametrize(("items", "match"), [
    (["board=huge"], r"'board'.*small \| large"),
    (["edge=2"], r"'edge'.*out of range"),
    (["limit=all"], r"'limit'.*'all'"),
    (["colour=red"], r"unknown parameter 'colour'.*board"),
    (["board"], r"name=value"),
    (["board=small", "board=large"], r"twice"),
    (["limit=x:3"], r"'limit'"),
])
def test_parse_grid_errors_name_param_and_allowed(items, match):
    with pytest.raises(InputError, match=match):
        parse_grid(items, TOY)


# -- running ----------------------------------------------------------------------------------------
def test_sweep_equals_simulate_per_cell(tmp_path, monkeypatch):

    frame = run_sweep(TOY, GRID, 250, tmp_path, seed=3, chunk_size=100, progress=False)
    assert frame.height == 4 * 250
    cells = frame.select("board", "edge").unique(maintain_order=True).rows()
    assert cells == [("small", 0.5), ("small", 0.8), ("large", 0.5), ("large", 0.8)]
    for board, edge in cells:
        alone = simulate(TOY, 250, params={"board": board, "edge": edge}, seed=3, progress=False)
        assert_frame_equal(frame.filter(pl.col("board") == board, pl.col("edge") == edge), alone)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["rules_version"] == "toy-1"
    assert manifest["master_seed"] == 3 and manifest["package_version"] == importlib.metadata.version("workbench")
    cell = manifest["cells"][0]
    assert cell["agents"] == ["random", "random"] and cell["engine"] == "reference"
    assert [(c["start"], c["stop"]) for c in cell["chunks"]] == [(0, 100), (100, 200), (200, 250)]
    assert_frame_equal(load_sweep(tmp_path), frame)


def test_rerun_reuses_every_chunk(tmp_path, monkeypatch):
    first = run_sweep(TOY, GRID, 200, tmp_path, chunk_size=100, progress=False)
    files = _files(tmp_path)
    calls = _count_chunks(monkeypatch)
    again = run_sweep(TOY, GRID, 200, tmp_path, chunk_size=100, progress=False, workers=2)
    assert calls == []
    assert _files(tmp_path) == files  # nothing rewritten
    assert json.loads((tmp_path / "manifest.json").read_text())["last_run"] == {
        "reused_chunks": 8, "played_chunks": 0, "played_games": 0}
    assert_frame_equal(again, first)


@pytest.mark.parametrize(("change", "new_chunks"), [
    ({"seed": 1}, 8),
    ({"grid": {"board": ["small", "large"], "edge": [0.5, 0.7]}}, 4),  # the edge=0.5 cells are unchanged
    ({"agents": ["greedy", "random"]}, 8),
    ({"grid": {**GRID, "limit": [30]}}, 8),  # a non-grid default made explicit and changed
    ({"grid": {**GRID, "limit": [20]}}, 0),  # the default, given explicitly: same games
])
def test_changed_key_does_not_reuse(tmp_path, monkeypatch, change, new_chunks):
    import shutil

    base = {"grid": GRID, "seed": 0, "agents": None}
    store = tmp_path / "s"
    first = run_sweep(TOY, base["grid"], 100, store, seed=base["seed"], chunk_size=50, progress=False)
    args = {**base, **change}
    calls = _count_chunks(monkeypatch)
    if new_chunks:  # another sweep: refused, --force or not (a store holds one sweep)
        for force in (False, True):
            with pytest.raises(InputError, match=f"{store} holds another sweep .*give it another --out"):
                run_grid(TOY, args["grid"], 100, out=store, seed=args["seed"], agents=args["agents"], chunk_size=50,
                         progress=False, force=force)
        assert calls == [] and json.loads((store / "manifest.json").read_text())["master_seed"] == 0
    # the first sweep's chunk files, without its manifest: only chunks whose key is unchanged are reused
    copy = tmp_path / "copy"
    shutil.copytree(store / "chunks", copy / "chunks")
    frame = run_grid(TOY, args["grid"], 100, out=copy, seed=args["seed"], agents=args["agents"],
                     chunk_size=50, progress=False)
    assert len(calls) == new_chunks
    assert frame.height == 400
    if new_chunks == 0:
        assert_frame_equal(frame, first)


def test_more_games_reuse_the_finished_chunks(tmp_path, monkeypatch):
    run_sweep(TOY, {"board": ["small"]}, 200, tmp_path, chunk_size=100, progress=False)
    calls = _count_chunks(monkeypatch)
    frame = run_sweep(TOY, {"board": ["small"]}, 300, tmp_path, chunk_size=100, progress=False)
    assert calls == [(200, 300)]
    assert frame["game_index"].to_list() == list(range(300))


def test_workers_two_gives_the_same_frame(tmp_path):
    serial = run_sweep(TOY, GRID, 150, tmp_path / "a", chunk_size=50, progress=False)
    parallel = run_sweep(TOY, GRID, 150, tmp_path / "b", chunk_size=50, progress=False, workers=2)
    assert_frame_equal(parallel, serial)


def test_incomplete_sweep_is_reported(tmp_path):
    run_sweep(TOY, GRID, 100, tmp_path, chunk_size=50, progress=False)
    victim = sorted(_chunk_files(tmp_path))[0]
    victim.unlink()
    with pytest.raises(InputError, match="1 of 8 chunks missing.*resume"):
        load_sweep(tmp_path)
    assert load_sweep(tmp_path, partial=True).height == 350
    assert sweep_status(tmp_path)["chunks_done"] == 7
    assert run_sweep(TOY, GRID, 100, tmp_path, chunk_size=50, progress=False).height == 400


def test_ctrl_c_keeps_finished_chunks(tmp_path, monkeypatch):
    real = runner_mod.run_chunk
    calls = []

    def interrupted(*args):
        calls.append(args)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(runner_mod, "run_chunk", interrupted)
    with pytest.raises(RunInterrupted) as info:
        run_sweep(TOY, GRID, 100, tmp_path, chunk_size=50, progress=False)
    assert info.value.partial.height == 100 and info.value.total == 400
    assert sweep_status(tmp_path)["chunks_done"] == 2
    monkeypatch.setattr(runner_mod, "run_chunk", real)
    assert run_sweep(TOY, GRID, 100, tmp_path, chunk_size=50, progress=True).height == 400


def test_bad_inputs(tmp_path):
    with pytest.raises(InputError):
        run_sweep(TOY, GRID, 0, tmp_path)
    with pytest.raises(InputError):
        run_sweep(TOY, GRID, 10, tmp_path, chunk_size=0)
    with pytest.raises(InputError, match="board"):
        run_sweep(TOY, {"board": ["tiny"]}, 10, tmp_path)
    with pytest.raises(InputError, match="no sweep"):
        load_sweep(tmp_path / "nothing")
    assert not (tmp_path / "manifest.json").exists()  # nothing written for invalid input


def test_stale_temp_files_of_dead_writers_are_removed(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)
    stale = tmp_path / f".tmp-{pid}-abcd-x.parquet"
    stale.write_bytes(b"half a file")
    mine = tmp_path / f".tmp-{os.getpid()}-abcd-y.parquet"
    mine.write_bytes(b"being written")
    assert clean_stale_temp(tmp_path) == 1
    assert not stale.exists() and mine.exists()
    write_parquet_atomic(pl.DataFrame({"a": [1]}), tmp_path / "ok.parquet")
    assert pl.read_parquet(tmp_path / "ok.parquet")["a"].to_list() == [1]


# -- a real interruption: SIGKILL half-way, then resume ---------------------------------------------
SCRIPT = """
import sys
from tests.toygame.slow import MODEL
from workbench.core.sim.sweep import run_sweep
run_sweep(MODEL, {"board": ["small", "large"], "edge": [0.5, 0.8]}, 400, sys.argv[1], seed=9, chunk_size=40,
          progress=False)
"""


def test_killed_sweep_resumes_without_lost_or_duplicated_games(tmp_path, monkeypatch):
    out = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
           "TOY_SLEEP": "0.004"}
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, str(out)], cwd=REPO, env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while len(_chunk_files(out)) < 5:
            assert proc.poll() is None, proc.communicate()[1].decode()
            assert time.monotonic() < deadline, "sweep subprocess made no progress"
            time.sleep(0.02)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    done = len(_chunk_files(out))
    assert 5 <= done < 40, "the sweep should have been killed half-way"
    assert sweep_status(out)["status"] == "running"

    monkeypatch.setenv("TOY_SLEEP", "0")
    calls = _count_chunks(monkeypatch)
    resumed = run_sweep(TOY, GRID, 400, out, seed=9, chunk_size=40, progress=False)
    assert len(calls) == 40 - done  # only the missing chunks were played
    fresh = run_sweep(TOY, GRID, 400, tmp_path / "fresh", seed=9, chunk_size=40, progress=False)
    assert_frame_equal(resumed, fresh)
    assert resumed.height == 1600
    assert resumed.select("board", "edge", "game_index").is_duplicated().sum() == 0
    assert not list(out.glob("chunks/*/.tmp-*"))  # the dead writer's temp file, if any, was removed
    cell = resumed.filter(pl.col("board") == "large", pl.col("edge") == 0.8)
    assert cell["game_seed"].to_list() == game_seeds(9, 0, 400).tolist()


def test_sweep_a_real_game_with_varying_seats(tmp_path):
    grid = parse_grid(["players=2,3"], "dietower")
    frame = run_sweep("dietower", grid, 200, tmp_path, progress=False)
    assert frame.height == 400
    assert frame.columns.index("agent_p3") == frame.columns.index("agent_p2") + 1
    assert frame.filter(pl.col("players") == 2)["agent_p3"].null_count() == 200
    alone = simulate("dietower", 200, params={"players": 3}, progress=False)
    assert_frame_equal(frame.filter(pl.col("players") == 3).select(alone.columns), alone)


def test_compiled_engine_sweep_on_threads_equals_serial(tmp_path):
    grid = {"battlefield": ["crystal_garden", "free_steppe"], "deck": ["regular", "unlimited"]}
    serial = run_sweep("duel", grid, 900, tmp_path / "one", seed=3, agents="greedy,random", engine="fast",
                       chunk_size=300, progress=False)
    threaded = run_sweep("duel", grid, 900, tmp_path / "two", seed=3, agents="greedy,random", engine="fast",
                         chunk_size=300, workers=2, progress=False)
    assert_frame_equal(serial, threaded)
    assert serial.height == 4 * 900


# -- the one grid runner: in memory, lineups, stop, Dask ------------------------------------------
def test_run_grid_in_memory_equals_simulate_per_cell_and_the_stored_sweep(tmp_path):
    grid = {"board": ["small", "large"], "limit": [6, 30]}
    lineups = [("greedy", "random"), ("random", "greedy")]
    frame = run_grid(TOY, grid, 90, lineups=lineups, seed=4, params={"edge": 0.7}, workers=2, progress=False)
    assert frame.height == 2 * 2 * 2 * 90
    assert frame.columns[-1] == "lineup"
    cells = frame.select("board", "limit", "lineup").unique(maintain_order=True).rows()
    assert cells == [(b, lim, " vs ".join(lu)) for b in ("small", "large") for lim in (6, 30) for lu in lineups]
    for board, limit, lineup in cells:
        alone = simulate(TOY, 90, params={"board": board, "limit": limit, "edge": 0.7}, agents=lineup.split(" vs "),
                         seed=4, progress=False)
        cell = frame.filter(pl.col("board") == board, pl.col("limit") == limit, pl.col("lineup") == lineup)
        assert_frame_equal(cell.drop("lineup"), alone)
    stored = run_grid(TOY, grid, 90, lineups=lineups, seed=4, params={"edge": 0.7}, out=tmp_path / "s",
                      chunk_size=40, progress=False)
    assert_frame_equal(stored, frame)


def test_run_grid_stop_keeps_finished_chunks_and_the_unbroken_prefix():
    seen = []
    with pytest.raises(RunInterrupted) as info:
        run_grid(TOY, {"board": ["small", "large"]}, 100, chunk_size=25, progress=False,
                 on_progress=lambda done, total: seen.append((done, total)), should_stop=lambda: len(seen) >= 3)
    partial = info.value.partial
    assert seen == [(25, 200), (50, 200), (75, 200)]
    assert partial.height == 75 and partial["board"].unique().to_list() == ["small"]
    prefix = unbroken_prefix(partial, ["board"])
    assert_frame_equal(prefix, simulate(TOY, 75, progress=False))


@pytest.mark.xdist_group("dask")
def test_a_sweep_on_a_dask_scheduler_stores_what_a_local_sweep_stores(tmp_path):
    from distributed import LocalCluster

    local = run_sweep(TOY, GRID, 120, tmp_path / "local", seed=2, chunk_size=40, progress=False)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        remote = run_sweep(TOY, GRID, 120, tmp_path / "dask", seed=2, chunk_size=40, progress=False,
                           backend="dask", scheduler=cluster.scheduler_address)
    assert_frame_equal(local, remote)
    names = sorted(p.relative_to(tmp_path / "local") for p in _chunk_files(tmp_path / "local"))
    assert names == sorted(p.relative_to(tmp_path / "dask") for p in _chunk_files(tmp_path / "dask"))
    manifests = [json.loads((tmp_path / d / "manifest.json").read_text()) for d in ("local", "dask")]
    assert manifests[0]["cells"] == manifests[1]["cells"]


# -- a store that was tampered with is named, never loaded silently ----------------------------------
def _sorted_chunks(out):
    return sorted(_chunk_files(out), key=lambda p: (p.parent.name, p.name))


def test_a_chunk_copied_over_another_is_named(tmp_path):
    run_sweep(TOY, GRID, 100, tmp_path, chunk_size=50, progress=False)
    first, second = _sorted_chunks(tmp_path)[:2]
    second.write_bytes(first.read_bytes())  # games 0..49 where 50..99 belong
    with pytest.raises(InputError, match=f"{second}: its checksum is not the one the manifest recorded"):
        load_sweep(tmp_path)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    for cell in manifest["cells"]:  # an older store without checksums: the content check still names it
        for chunk in cell["chunks"]:
            chunk.pop("sha256")
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(InputError, match=rf"{second}, column 'game_index': holds games 0\.\.49, expected 50\.\.99"):
        load_sweep(tmp_path)


def test_a_truncated_or_garbage_chunk_is_named_and_replayed_after_deletion(tmp_path):
    first = run_sweep(TOY, GRID, 100, tmp_path, chunk_size=50, progress=False)
    victim = _sorted_chunks(tmp_path)[1]
    victim.write_bytes(victim.read_bytes()[:200])
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    for cell in manifest["cells"]:
        for chunk in cell["chunks"]:
            chunk.pop("sha256")
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(InputError, match=f"{victim}: is not a readable Parquet file .*delete the file and run the "
                                         "same sweep again"):
        load_sweep(tmp_path)
    victim.unlink()
    assert_frame_equal(run_sweep(TOY, GRID, 100, tmp_path, chunk_size=50, progress=False), first)


def test_unbroken_prefix_keeps_games_up_to_the_first_gap_per_cell():
    frame = pl.DataFrame({"cell": ["a", "a", "a", "b", "b", "b"], "game_index": [0, 1, 3, 0, 2, 3]})
    assert unbroken_prefix(frame, ["cell"]).rows() == [("a", 0), ("a", 1), ("b", 0)]
    assert unbroken_prefix(frame.filter(pl.col("cell") == "a"), [])["game_index"].to_list() == [0, 1]
    assert unbroken_prefix(pl.DataFrame({"game_index": [1, 2]}), []) is None
    assert unbroken_prefix(None, []) is None
