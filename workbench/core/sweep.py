"""Parameter sweeps with a resumable on-disk result store.

A sweep plays ``games`` seeded games in every cell of a grid of declared parameters (e.g.
battlefield × deck).  Each cell is cut into chunks of consecutive game indices; every finished
chunk is written atomically as one Parquet file under ``out_dir/chunks/<params_hash>/``, named
by a key that hashes everything determining its rows: game, rules version, resolved parameters,
master seed, index range, agents, engine and package version.  ``manifest.json`` lists the cells
and their chunks in order.

Re-running the same sweep reuses every finished chunk (nothing is replayed); an interrupted or
killed sweep resumes where it stopped, and the loaded frame is identical to an uninterrupted
run's, because game seeds depend only on ``(master seed, game index)``.  Changing any key field
(seed, a parameter, agents, engine, rules version, package version) gives new keys, so stale
chunks are never mixed in.  Every cell uses the same master seed (common random numbers), which
makes differences between cells sharper.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core.errors import DataError, InputError, RunInterrupted
from workbench.core.model import GameModel, Param, get_game, model_ref
from workbench.core.runner import check_games, check_workers, iter_grid, make_pool, plan_chunks, pool_results, run_chunk
from workbench.core.seeding import check_master_seed
from workbench.core.store import (
    chunk_key,
    clean_stale_temp,
    package_version,
    read_json,
    write_json_atomic,
    write_parquet_atomic,
)

__all__ = ["MANIFEST", "check_grid", "load_sweep", "parse_grid", "read_manifest", "run_sweep", "sweep_status"]

MANIFEST = "manifest.json"
FORMAT = "workbench-sweep/1"


# -- the grid -----------------------------------------------------------------------------------
def _expand_all(param: Param) -> list[Any]:
    if param.choices is not None:
        return list(param.choices)
    if param.kind is bool:
        return [False, True]
    raise InputError(f"parameter {param.name!r}: 'all' needs a parameter with fixed choices; give values "
                     f"(a,b,c) or a range low:high[:step] instead; allowed: {param.allowed()}")


def _expand_range(param: Param, text: str) -> list[Any]:
    parts = text.split(":")
    if param.kind not in (int, float) or len(parts) not in (2, 3):
        raise InputError(f"parameter {param.name!r}: {text!r} is not a value; ranges low:high[:step] are "
                         f"for numbers only; allowed: {param.allowed()}")
    try:
        nums = [param.kind(p.strip()) for p in parts]
    except ValueError:
        raise InputError(f"parameter {param.name!r}: range {text!r} is not low:high[:step] of "
                         f"{param.kind.__name__}s") from None
    low, high = nums[0], nums[1]
    step = nums[2] if len(nums) == 3 else 1
    if step <= 0 or high < low:
        raise InputError(f"parameter {param.name!r}: range {text!r} needs low <= high and a positive step")
    count = int((high - low) / step + 1e-9) + 1
    return [param.kind(low + i * step) for i in range(count)]


def _values(param: Param, raw: Any) -> list[Any]:
    """Expand and validate the values given for one parameter (order kept, duplicates dropped)."""
    if isinstance(raw, str):
        items: list[Any] = [v.strip() for v in raw.split(",")]
    elif isinstance(raw, (list, tuple)):
        items = list(raw)
    else:
        items = [raw]
    expanded: list[Any] = []
    for item in items:
        if isinstance(item, str) and item.lower() == "all":
            expanded += _expand_all(param)
        elif isinstance(item, str) and ":" in item and param.kind in (int, float):
            expanded += _expand_range(param, item)
        else:
            expanded.append(item)
    if not expanded or any(isinstance(v, str) and v == "" and not param.optional for v in expanded):
        raise InputError(f"parameter {param.name!r}: give at least one value; allowed: {param.allowed()}")
    out: list[Any] = []
    for value in expanded:
        checked = param.validate(value)
        if checked not in out:
            out.append(checked)
    return out


def check_grid(grid: dict[str, Any] | None, model: GameModel) -> dict[str, list[Any]]:
    """Validate a grid ``{param: values}`` against the model's declared parameters."""
    if grid is None:
        return {}
    if not isinstance(grid, dict):
        raise InputError(f"grid must be a dict of parameter -> values, got {type(grid).__name__}")
    return {name: _values(model.param(name), raw) for name, raw in grid.items()}


def parse_grid(items: Sequence[str] | str | None, model: GameModel | str) -> dict[str, list[Any]]:
    """Parse CLI grid items like ``["battlefield=all", "deck=regular,unlimited"]``.

    ``all`` expands to every choice of a choice (or bool) parameter, ``low:high[:step]`` to an
    inclusive numeric range; every value is validated against the declared :class:`Param`, and a
    bad one raises an :class:`InputError` naming the parameter and its allowed values.
    """
    model = get_game(model)
    if items is None:
        return {}
    if isinstance(items, str):
        items = shlex.split(items)
    grid: dict[str, Any] = {}
    for item in items:
        name, eq, values = str(item).partition("=")
        name = name.strip().replace("-", "_")
        if not eq or not name:
            raise InputError(f"grid item {item!r} must look like name=value1,value2 (or name=all); "
                             f"parameters: {', '.join(p.name for p in model.params)}")
        if name in grid:
            raise InputError(f"grid parameter {name!r} is given twice; list all its values once: {name}=a,b")
        model.param(name)
        grid[name] = values
    return check_grid(grid, model)


# -- planning -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Chunk:
    cell: int
    start: int
    stop: int
    key: str
    file: str  # relative to out_dir


@dataclass(frozen=True)
class _Cell:
    params: dict[str, Any]
    params_hash: str
    agents: tuple[str, ...]
    engine: str
    chunk_size: int


def _plan(model: GameModel, grid: dict[str, list[Any]], games: int, seed: int, agents: Any, engine: str | None,
          chunk_size: int | None) -> tuple[list[_Cell], list[_Chunk]]:
    version = package_version()
    cells: list[_Cell] = []
    chunks: list[_Chunk] = []
    for i, overrides in enumerate(iter_grid(grid)):
        params = model.resolve_params(overrides)
        specs = model.resolve_agents(agents, params)
        eng = model.resolve_engine(engine, specs, params)
        size = chunk_size if chunk_size is not None else max(1, model.chunk_hint(eng))
        cell = _Cell(params, model.params_hash(params), tuple(map(str, specs)), eng, size)
        cells.append(cell)
        for start, stop in plan_chunks(games, size):
            key = chunk_key({"format": FORMAT, "game": model.name, "rules_version": model.rules_version,
                             "params": params, "master_seed": seed, "start": start, "stop": stop,
                             "agents": list(cell.agents), "engine": eng, "package_version": version})
            name = f"chunks/{cell.params_hash}/{start:010d}-{stop:010d}-{key}.parquet"
            chunks.append(_Chunk(i, start, stop, key, name))
    return cells, chunks


def _manifest(model: GameModel, grid: dict[str, list[Any]], games: int, seed: int, cells: list[_Cell],
              chunks: list[_Chunk], status: str, last_run: dict[str, int] | None = None) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "status": status,
        "game": model.name,
        "rules_version": model.rules_version,
        "package_version": package_version(),
        "master_seed": seed,
        "games": games,
        "grid": grid,
        "cells": [{
            "params": c.params, "params_hash": c.params_hash, "agents": list(c.agents), "engine": c.engine,
            "chunk_size": c.chunk_size,
            "chunks": [{"start": k.start, "stop": k.stop, "key": k.key, "file": k.file}
                       for k in chunks if k.cell == i],
        } for i, c in enumerate(cells)],
        "last_run": last_run or {},
    }


# -- playing ------------------------------------------------------------------------------------
def _results(model: GameModel, jobs: list[tuple[_Chunk, tuple]], workers: int):
    if workers == 1 or len(jobs) <= 1:
        for chunk, args in jobs:
            yield chunk, run_chunk(model, *args[1:])
        return
    threads = all(model.releases_gil(args[-1]) for _, args in jobs)
    pool = make_pool(threads, min(workers, len(jobs)))
    results = pool_results(run_chunk, [args for _, args in jobs], pool)
    try:
        for i, frame in results:
            yield jobs[i][0], frame
    finally:
        results.close()


def run_sweep(game: str | GameModel, grid: dict[str, Any] | None, games: int, out_dir: str | Path, seed: int = 0,
              agents: Any = None, workers: int = 1, engine: str | None = None, chunk_size: int | None = None,
              progress: bool = True) -> pl.DataFrame:
    """Play ``games`` games in every grid cell, store them under ``out_dir``, return all rows.

    Finished chunks already in ``out_dir`` with the same key are reused, so re-running resumes an
    interrupted sweep.  Rows are ordered by grid cell (last grid key varies fastest), then
    ``game_index``.  ``chunk_size`` defaults to the model's hint for the engine (independent of
    ``workers``, so a resume with another worker count still reuses every chunk).  On Ctrl-C the
    finished chunks stay on disk and :class:`RunInterrupted` carries them in ``.partial``.
    """
    model = get_game(game)
    games = check_games(games)
    workers = check_workers(workers)
    seed = check_master_seed(seed)
    if chunk_size is not None and (isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size <= 0):
        raise InputError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    grid = check_grid(grid, model)
    cells, chunks = _plan(model, grid, games, seed, agents, engine, chunk_size)
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InputError(f"sweep output {out} exists and is not a directory")
    for cell in cells:
        clean_stale_temp(out / "chunks" / cell.params_hash)
    missing = [c for c in chunks if not (out / c.file).is_file()]
    write_json_atomic(_manifest(model, grid, games, seed, cells, chunks, "running"), out / MANIFEST)
    ref = model_ref(model)
    jobs = [(c, (ref, cells[c.cell].params, cells[c.cell].agents, seed, c.start, c.stop,
                 cells[c.cell].engine)) for c in missing]
    total = games * len(cells)
    bar = _progress_bar(total, total - sum(c.stop - c.start for c in missing), model.name) if progress else None
    played = 0
    results = _results(model, jobs, workers)
    try:
        for chunk, frame in results:
            write_parquet_atomic(frame, out / chunk.file)
            played += 1
            if bar is not None:
                bar.update(frame.height)
    except KeyboardInterrupt:
        results.close()
        partial = load_sweep(out, partial=True)
        raise RunInterrupted(partial, partial.height, total) from None
    finally:
        results.close()  # stops a worker pool at once, also on Ctrl-C
        if bar is not None:
            bar.close()
    last_run = {"reused_chunks": len(chunks) - len(missing), "played_chunks": played,
                "played_games": sum(c.stop - c.start for c in missing)}
    write_json_atomic(_manifest(model, grid, games, seed, cells, chunks, "complete", last_run), out / MANIFEST)
    return load_sweep(out)


def _progress_bar(total: int, initial: int, label: str) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=initial, desc=f"sweep {label}", unit="game", leave=False, disable=None)


# -- loading ------------------------------------------------------------------------------------
def read_manifest(out_dir: str | Path) -> dict[str, Any]:
    """The sweep manifest of ``out_dir`` (an :class:`InputError` when there is none)."""
    path = Path(out_dir) / MANIFEST
    if not path.is_file():
        raise InputError(f"{out_dir} holds no sweep (no {MANIFEST}); run a sweep into it first")
    manifest = read_json(path)
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise DataError(path, None, "format", f"not a {FORMAT} manifest")
    return manifest


def _manifest_chunks(manifest: dict[str, Any]) -> Iterable[dict[str, Any]]:
    for cell in manifest["cells"]:
        yield from cell["chunks"]


def sweep_status(out_dir: str | Path) -> dict[str, Any]:
    """Progress of the sweep in ``out_dir``: chunks and games done / total, and its status."""
    out = Path(out_dir)
    manifest = read_manifest(out)
    chunks = list(_manifest_chunks(manifest))
    done = [c for c in chunks if (out / c["file"]).is_file()]
    return {"status": manifest["status"], "game": manifest["game"], "cells": len(manifest["cells"]),
            "chunks_done": len(done), "chunks": len(chunks),
            "games_done": sum(c["stop"] - c["start"] for c in done),
            "games": sum(c["stop"] - c["start"] for c in chunks)}


def load_sweep(out_dir: str | Path, partial: bool = False) -> pl.DataFrame:
    """All rows of the sweep in ``out_dir``, in manifest order (cell, then game index).

    An unfinished sweep raises an :class:`InputError` saying how to resume it, unless
    ``partial=True`` (then only the finished chunks are returned).
    """
    out = Path(out_dir)
    manifest = read_manifest(out)
    chunks = list(_manifest_chunks(manifest))
    absent = [c for c in chunks if not (out / c["file"]).is_file()]
    if absent and not partial:
        raise InputError(f"sweep in {out} is incomplete: {len(absent)} of {len(chunks)} chunks missing; "
                         f"run the same sweep again to resume it")
    frames = []
    for c in chunks:
        path = out / c["file"]
        if not path.is_file():
            continue
        frame = pl.read_parquet(path)
        if frame.height != c["stop"] - c["start"]:
            raise DataError(path, None, None, f"holds {frame.height} rows, expected {c['stop'] - c['start']}; "
                                              f"delete the file and re-run the sweep")
        frames.append(frame)
    if not frames:
        return pl.DataFrame()
    return pl.concat(frames, how="diagonal_relaxed").select(_merged_columns(frames))


def _merged_columns(frames: list[pl.DataFrame]) -> list[str]:
    """Union of the frames' columns, each new column placed after its predecessor (agent_p3 after agent_p2)."""
    order: list[str] = []
    for frame in frames:
        for i, col in enumerate(frame.columns):
            if col not in order:
                order.insert(order.index(frame.columns[i - 1]) + 1 if i else 0, col)
    return order
