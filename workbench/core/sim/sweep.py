"""The one grid runner: every cell of a parameter grid (× agent lineups), in memory or as a resumable sweep.

:func:`run_grid` plays ``games`` seeded games in every cell of a grid of declared parameters
(e.g. battlefield × deck), optionally × several agent lineups, all chunks of all cells on one
executor (serial, local threads or processes, or Dask — ``runner.execute``), every cell on the
same master seed (common random numbers).  The CLI's ``simulate`` and ``sweep``, the duel's
battlefield grid and default study all call it.  Given ``out``, it is a sweep:

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

A store holds one sweep.  Another sweep (another game, seed, grid, agents or engine) is refused,
also with ``force`` (which would orphan one of them): give it its own store.  More or fewer games
of the same sweep extend it.  One run writes a store at a time: ``<store>.lock`` (an OS lock,
``store.OutputLock``) is held for the whole run and a second run is refused at once, naming the
first.  A chunk that cannot be written (a full disk, a read-only folder) stops the run with an
:class:`OutputError` saying that the finished chunks are kept.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core.errors import DataError, InputError, OutputError, RunInterrupted
from workbench.core.model import GameModel, Param, get_game, model_ref
from workbench.core.sim.runner import (
    check_games,
    check_workers,
    execute,
    in_memory_chunk,
    iter_grid,
    plan_chunks,
    watched_chunk,
)
from workbench.core.sim.seeding import check_master_seed
from workbench.core.sim.stopping import close
from workbench.core.sim.store import (
    OutputLock,
    canonical_json,
    chunk_key,
    clean_stale_temp,
    file_sha256,
    package_version,
    read_json,
    write_json_atomic,
    write_parquet_atomic,
)

__all__ = ["MANIFEST", "check_grid", "load_sweep", "parse_grid", "read_manifest", "run_grid", "run_sweep",
           "sweep_status", "unbroken_prefix"]

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
    for name in grid:
        model.param(name)  # an unknown parameter is named with the allowed ones
    single = {k: v[0] if isinstance(v, (list, tuple)) and len(v) == 1 else v for k, v in grid.items()
              if not isinstance(v, (list, tuple)) or len(v) == 1}
    declared = {p.name: p for p in model.params_for(single)}
    return {name: _values(declared[name], raw) for name, raw in grid.items()}


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
    lineup: str | None = None  # "greedy vs random" when the run has several lineups


def _plan(model: GameModel, grid: dict[str, list[Any]], games: int, seed: int, lineups: list[Any],
          engine: str | None, chunk_size: int | None, fixed: dict[str, Any] | None = None,
          workers: int | None = None, labelled: bool = False) -> tuple[list[_Cell], list[_Chunk]]:
    """Cells (grid × lineups) and their chunks; ``workers`` set: chunks sized for an in-memory run."""
    version = package_version()
    cells: list[_Cell] = []
    chunks: list[_Chunk] = []
    for overrides in iter_grid(grid):
        params = model.resolve_params({**(fixed or {}), **overrides})
        for agents in lineups:
            specs = model.resolve_agents(agents, params)
            eng = model.resolve_engine(engine, specs, params)
            hint = model.chunk_hint(eng)
            if workers is not None:  # in memory, someone may press Stop: shorter chunks (a stored sweep keeps its own)
                hint = watched_chunk(hint)
            size = chunk_size or (hint if workers is None else in_memory_chunk(games, workers, hint))
            label = " vs ".join(map(str, specs)) if labelled else None
            cells.append(_Cell(params, model.params_hash(params), tuple(map(str, specs)), eng, size, label))
    for i, cell in enumerate(cells):
        params, eng = cell.params, cell.engine
        for start, stop in plan_chunks(games, cell.chunk_size):
            key = chunk_key({"format": FORMAT, "game": model.name, "rules_version": model.rules_version,
                             "params": params, "master_seed": seed, "start": start, "stop": stop,
                             "agents": list(cell.agents), "engine": eng, "package_version": version})
            name = f"chunks/{cell.params_hash}/{start:010d}-{stop:010d}-{key}.parquet"
            chunks.append(_Chunk(i, start, stop, key, name))
    return cells, chunks


def _manifest(model: GameModel, grid: dict[str, list[Any]], games: int, seed: int, cells: list[_Cell],
              chunks: list[_Chunk], status: str, last_run: dict[str, int] | None = None,
              checksums: dict[str, str] | None = None) -> dict[str, Any]:
    sums = checksums or {}
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
            "chunk_size": c.chunk_size, "lineup": c.lineup,
            "chunks": [{"start": k.start, "stop": k.stop, "key": k.key, "file": k.file,
                        **({"sha256": sums[k.key]} if k.key in sums else {})}
                       for k in chunks if k.cell == i],
        } for i, c in enumerate(cells)],
        "last_run": last_run or {},
    }


# -- playing ------------------------------------------------------------------------------------
def _labelled(frame: pl.DataFrame, cell: _Cell) -> pl.DataFrame:
    return frame if cell.lineup is None else frame.with_columns(pl.lit(cell.lineup, pl.String).alias("lineup"))


def run_grid(game: str | GameModel, grid: dict[str, Any] | None = None, games: int = 1000, *,
             out: str | Path | None = None, params: dict[str, Any] | None = None, agents: Any = None,
             lineups: Sequence[Any] | None = None, seed: int = 0, workers: int = 1, backend: str = "local",
             scheduler: str | None = None, engine: str | None = None, chunk_size: int | None = None,
             progress: bool = True, on_progress: Callable[[int, int], None] | None = None,
             should_stop: Callable[[], bool] | None = None, force: bool = False) -> pl.DataFrame:
    """Play ``games`` games in every cell of ``grid`` (× each of ``lineups``) and return all rows.

    ``params`` are fixed for every cell; ``agents`` is the one lineup, or ``lineups`` several (the
    frame then has a ``lineup`` column, "greedy vs random").  Rows are ordered by cell (last grid
    key varies fastest, lineups innermost), then ``game_index``; a cell's rows equal one
    ``simulate`` of that cell.  With ``out`` the run is a resumable sweep stored there (finished
    chunks are reused, see the module docstring).  ``on_progress(done, total)`` counts games;
    on Ctrl-C or once ``should_stop()`` is true, :class:`RunInterrupted` carries the finished
    chunks in ``.partial`` (cell order; see :func:`unbroken_prefix`).  A store that holds another
    sweep (another game, grid, seed, agents or engine) is refused, ``force`` or not (a store holds
    one sweep, which ``sweep show``/``export`` read); more or fewer games extend the same one.
    The store is locked for the whole run (a second run into it is refused at once).
    """
    model = get_game(game)
    games = check_games(games)
    workers = check_workers(workers)
    seed = check_master_seed(seed)
    if chunk_size is not None and (isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size <= 0):
        raise InputError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    if lineups is not None and agents is not None:
        raise InputError("give agents (one lineup) or lineups (several), not both")
    if lineups is not None and not lineups:
        raise InputError("give at least one agent lineup, e.g. [('greedy', 'greedy')]")
    grid = check_grid(grid, model)
    stored = out is not None
    cells, chunks = _plan(model, grid, games, seed, list(lineups) if lineups is not None else [agents], engine,
                          chunk_size, params, None if stored else workers, labelled=lineups is not None)
    if stored:
        out = Path(out)
        if out.exists() and not out.is_dir():
            raise InputError(f"sweep output {out} exists and is not a directory")
        with OutputLock(out):
            return _stored_run(model, grid, games, seed, cells, chunks, out, workers, backend, scheduler, progress,
                               on_progress, should_stop)
    kept = _play(model, seed, cells, chunks, None, workers, backend, scheduler, progress, on_progress, should_stop)
    return _concat([kept[i] for i in range(len(chunks))])


def _stored_run(model: GameModel, grid: dict[str, list[Any]], games: int, seed: int, cells: list[_Cell],
                chunks: list[_Chunk], out: Path, workers: int, backend: str, scheduler: str | None, progress: bool,
                on_progress: Callable[[int, int], None] | None,
                should_stop: Callable[[], bool] | None) -> pl.DataFrame:
    """A sweep into the store ``out``, under its lock."""
    checksums = _same_sweep(out, model, grid, seed, cells)
    try:
        for cell in cells:
            clean_stale_temp(out / "chunks" / cell.params_hash)
        missing = [c for c in chunks if not (out / c.file).is_file()]
        write_json_atomic(_manifest(model, grid, games, seed, cells, chunks, "running", checksums=checksums),
                          out / MANIFEST)
    except OSError as exc:
        raise OutputError(f"sweep output {out}: cannot write {exc.filename or out} ({exc.strerror or exc}); give a "
                          "folder you can write to") from None
    _play(model, seed, cells, missing, (out, checksums), workers, backend, scheduler, progress, on_progress,
          should_stop, total_chunks=chunks)
    last_run = {"reused_chunks": len(chunks) - len(missing), "played_chunks": len(missing),
                "played_games": sum(c.stop - c.start for c in missing)}
    try:
        write_json_atomic(_manifest(model, grid, games, seed, cells, chunks, "complete", last_run, checksums),
                          out / MANIFEST)
    except OSError as exc:
        raise OutputError(f"could not write {out / MANIFEST} ({exc.strerror or exc}); every chunk is kept: run the "
                          "same sweep again to finish it") from None
    return load_sweep(out)


def _play(model: GameModel, seed: int, cells: list[_Cell], missing: list[_Chunk],
          store: tuple[Path, dict[str, str]] | None, workers: int, backend: str, scheduler: str | None,
          progress: bool, on_progress: Callable[[int, int], None] | None, should_stop: Callable[[], bool] | None,
          total_chunks: list[_Chunk] | None = None) -> dict[int, pl.DataFrame]:
    """Play the ``missing`` chunks; into the store (with checksums) or kept in memory (returned)."""
    from workbench.core.sim.progress import tick

    ref = model_ref(model)
    args = [(ref, cells[c.cell].params, cells[c.cell].agents, seed, c.start, c.stop, cells[c.cell].engine)
            for c in missing]
    total = sum(c.stop - c.start for c in (total_chunks if total_chunks is not None else missing))
    done = total - sum(c.stop - c.start for c in missing)
    bar = _progress_bar(total, done, model.name) if progress else None
    kept: dict[int, pl.DataFrame] = {}
    finished = 0
    results = execute(model, args, workers, backend, scheduler)
    try:
        for i, frame in results:
            finished += 1
            chunk = missing[i]
            frame = _labelled(frame, cells[chunk.cell])
            if store is not None:
                out, checksums = store
                write_parquet_atomic(frame, out / chunk.file)
                checksums[chunk.key] = file_sha256(out / chunk.file)
            else:
                kept[i] = frame
            done += frame.height
            if bar is not None:
                bar.update(frame.height)
            if on_progress is not None:
                on_progress(done, total)
            tick(frame.height, done, total)  # after the report: a stop raised here leaves the count true
            if should_stop is not None and finished < len(missing) and should_stop():
                raise KeyboardInterrupt
    except KeyboardInterrupt:
        close(results)
        partial = load_sweep(store[0], partial=True) if store is not None else \
            _concat([kept[i] for i in sorted(kept)])
        raise RunInterrupted(partial, 0 if partial is None else partial.height, total) from None
    except OSError as exc:
        if store is None:
            raise
        close(results)
        raise OutputError(f"could not write {exc.filename or store[0]} ({exc.strerror or exc}); the finished chunks "
                          f"are kept in {store[0]}: make room or make the folder writable, then run the same sweep "
                          "again to resume it") from None
    finally:
        close(results)  # stops a worker pool at once, also on Ctrl-C
        if bar is not None:
            bar.close()
    return kept


def _identity(game: str, seed: int, cells: Iterable[tuple[Any, Any, Any]]) -> dict[str, Any]:
    """What makes a store's sweep the same sweep: game, master seed, and its cells (parameters, agents, engine)."""
    return json.loads(canonical_json({"game": game, "master_seed": seed,
                                      "cells": sorted(canonical_json([p, list(a), e]) for p, a, e in cells)}))


def _same_sweep(out: Path, model: GameModel, grid: dict[str, list[Any]], seed: int,
                cells: list[_Cell]) -> dict[str, str]:
    """Refuse a store that holds another sweep; return its chunk checksums."""
    if not (out / MANIFEST).is_file():
        return {}
    old = read_manifest(out)
    sums = {c["key"]: c["sha256"] for c in _manifest_chunks(old) if "sha256" in c}
    before = _identity(old.get("game"), old.get("master_seed"),
                       ((c.get("params_hash"), c.get("agents", []), c.get("engine")) for c in old.get("cells", [])))
    now = _identity(model.name, seed, ((c.params_hash, c.agents, c.engine) for c in cells))
    if before != now:
        if before["game"] != now["game"] or before["master_seed"] != now["master_seed"]:
            differs = f"game {before['game']}, master seed {before['master_seed']}"
        else:
            new = len(set(now["cells"]) - set(before["cells"]))
            differs = f"grid {old.get('grid')}: {new} of this sweep's {len(now['cells'])} cells are not in it"
        raise InputError(f"{out} holds another sweep ({differs}); a store holds one sweep (the one `workbench sweep "
                         f"show {out}` shows), so --force cannot add this one: give it another --out, or delete "
                         f"{out} yourself to discard the first sweep")
    return sums


def _concat(frames: list[pl.DataFrame]) -> pl.DataFrame | None:
    if not frames:
        return None
    return pl.concat(frames, how="diagonal_relaxed").select(_merged_columns(frames))


def unbroken_prefix(frame: pl.DataFrame | None, keys: Sequence[str]) -> pl.DataFrame | None:
    """Per cell (``keys``), the rows of games ``0..k-1`` with no gap: what one shorter run would have given."""
    if frame is None or frame.height == 0:
        return None
    def per_cell(expr: pl.Expr) -> pl.Expr:
        return expr.over(list(keys)) if keys else expr

    ranked = frame.with_columns(per_cell(pl.int_range(pl.len())).alias("_rank"))
    kept = ranked.filter(per_cell((pl.col("game_index") == pl.col("_rank")).cum_min())).drop("_rank")
    return kept if kept.height else None


def run_sweep(game: str | GameModel, grid: dict[str, Any] | None, games: int, out_dir: str | Path, seed: int = 0,
              agents: Any = None, workers: int = 1, engine: str | None = None, chunk_size: int | None = None,
              progress: bool = True, backend: str = "local", scheduler: str | None = None) -> pl.DataFrame:
    """Play ``games`` games in every grid cell, store them under ``out_dir``, return all rows.

    :func:`run_grid` with ``out``: finished chunks already in ``out_dir`` with the same key are
    reused, so re-running resumes an interrupted sweep.  ``chunk_size`` defaults to the model's
    hint for the engine (independent of ``workers``, so a resume with another worker count still
    reuses every chunk); a sweep run on a Dask scheduler stores the same chunks as a local one.
    """
    return run_grid(game, grid, games, out=out_dir, agents=agents, seed=seed, workers=workers, backend=backend,
                    scheduler=scheduler, engine=engine, chunk_size=chunk_size, progress=progress)


def _progress_bar(total: int, initial: int, label: str) -> Any:
    from workbench.core.sim.progress import progress

    return progress(total, label, initial)


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
    for cell in manifest["cells"]:
        for c in cell["chunks"]:
            path = out / c["file"]
            if path.is_file():
                frames.append(_verified_chunk(path, c, cell, manifest["master_seed"]))
    if not frames:
        return pl.DataFrame()
    return pl.concat(frames, how="diagonal_relaxed").select(_merged_columns(frames))


def _verified_chunk(path: Path, chunk: dict[str, Any], cell: dict[str, Any], seed: int) -> pl.DataFrame:
    """Read one chunk file and check it is the chunk the manifest lists (a DataError names the file)."""
    fix = "delete the file and run the same sweep again to replay it"
    if "sha256" in chunk and file_sha256(path) != chunk["sha256"]:
        raise DataError(path, None, None, f"its checksum is not the one the manifest recorded: the file was "
                                          f"changed or replaced; {fix}")
    try:
        frame = pl.read_parquet(path)
    except Exception as exc:  # noqa: BLE001 - polars raises several kinds for a broken file
        raise DataError(path, None, None, f"is not a readable Parquet file (truncated or corrupt: "
                                          f"{type(exc).__name__}); {fix}") from None
    start, stop = chunk["start"], chunk["stop"]
    if frame.height != stop - start:
        raise DataError(path, None, None, f"holds {frame.height} rows, expected {stop - start}; {fix}")
    need = {"game_index", "params_hash", "master_seed"}
    if not need <= set(frame.columns):
        raise DataError(path, None, None, f"lacks the columns {sorted(need - set(frame.columns))}; {fix}")
    indexes = frame.get_column("game_index")
    if indexes.to_list() != list(range(start, stop)):
        raise DataError(path, None, "game_index", f"holds games {indexes.min()}..{indexes.max()}, expected "
                                                  f"{start}..{stop - 1}; {fix}")
    if set(frame.get_column("params_hash").unique()) != {cell["params_hash"]} or \
            set(frame.get_column("master_seed").unique()) != {seed}:
        raise DataError(path, None, "params_hash", f"holds games of another cell or seed, expected parameters "
                                                   f"{cell['params_hash']} and master seed {seed}; {fix}")
    return frame


def _merged_columns(frames: list[pl.DataFrame]) -> list[str]:
    """Union of the frames' columns, each new column placed after its predecessor (agent_p3 after agent_p2)."""
    order: list[str] = []
    for frame in frames:
        for i, col in enumerate(frame.columns):
            if col not in order:
                order.insert(order.index(frame.columns[i - 1]) + 1 if i else 0, col)
    return order
