"""Runs of any length: results streamed to one Parquet file, memory checked before a run in memory.

:func:`simulate_to_parquet` plays ``games`` games in every cell of a grid and streams them to
``out`` (``.parquet``): chunks are planned lazily and at most a few are in flight
(``runner.execute``), every finished chunk is written to ``out.parts/`` (the resumable part store:
``run.json`` says what run it belongs to), and at the end the parts are copied, one row group per
chunk and one chunk in memory at a time, into a temporary file that is renamed to ``out``.  Memory
stays bounded whatever ``games`` is.  An interrupted run keeps its finished chunks in the part
store (running the same command again resumes it) and writes them to ``out`` too.  An existing
``out`` is refused unless ``force`` (or unless it came from an interrupted run of this very
command, which is resumed); so are parts of a run with other settings (``force`` discards them).
One run writes an output at a time: ``out.lock`` (an OS lock, see ``store.OutputLock``) is held
for the whole run and a second run is refused at once, naming the first.  A file that cannot be
written (a full disk, a read-only folder) stops the run with an :class:`OutputError` saying what
was kept.

:func:`check_memory` refuses, before any game is played, a run whose frame would not fit in memory:
it plays a few pilot games to measure a row's size and names the estimate, the limit and ``--out``.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.core.errors import InputError, OutputError, RunInterrupted
from workbench.core.model import GameModel, get_game, model_ref
from workbench.core.sim.runner import check_games, check_workers, execute, iter_grid
from workbench.core.sim.seeding import check_master_seed, game_seeds
from workbench.core.sim.stopping import close
from workbench.core.sim.store import (
    OutputLock,
    canonical_json,
    clean_stale_temp,
    package_version,
    write_atomic,
    write_parquet_atomic,
)

__all__ = ["Pilot", "check_memory", "memory_limit", "memory_refusal", "pilot", "simulate_to_parquet"]

PILOT = 32  # games played to measure a row's size (and a game's time)
PILOT_SECONDS = 0.5  # ... or fewer, once their batches have taken this long
PILOT_BATCH_SECONDS = 0.05  # a timed batch shorter than this doubles (a fast engine's per-call costs spread)
PILOT_MAX = 1 << 16  # games the doubling batches may reach
SMALL_RUN = 100_000  # runs of at most this many games are not measured (they fit in any memory this runs in)
MEMORY_SHARE = 0.5  # of the memory available now that a run held in memory may use
# A run held in memory peaks holding its finished chunks and the frame they are concatenated into: two copies of
# the result frame.  Chunks built from Python objects (the reference engine's rows; lists of strings, such as
# Babylon's cards played) take more than their columns' bytes, and count twice.  Measured (peak RSS of a run
# held in memory per game, against its frame's bytes per game): compiled and flat, within two copies — the die
# tower 125 B against 82, the duel 1,771 against 1,405, Babel 823 against 696; built from Python objects, within
# three — rescue (reference) 310 against 111, the die tower's reference engine 172 against 82, Babylon (list
# columns) 2,371 against 900.
HELD_COPIES = 2.0
OBJECT_COPIES = 3.0
CELL_BYTES = 64  # a reference chunk's rows are Python objects before they are a frame: about this much a cell


@dataclass(frozen=True)
class Streamed:
    """What a streamed run wrote: the file, its games, and whether the run is complete."""

    path: Path
    games: int
    total: int
    complete: bool


def _human(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if n < 1024 or unit == "PB":
            return f"{n:,.1f} {unit}"
        n /= 1024
    return f"{n:,.1f} PB"  # pragma: no cover


def memory_limit() -> int:
    """Bytes a result frame may take: ``WORKBENCH_MEMORY_LIMIT`` (bytes), else half the available memory."""
    env = os.environ.get("WORKBENCH_MEMORY_LIMIT")
    if env:
        return int(float(env))
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            info = dict(line.split(":", 1) for line in fh)
        available = int(info["MemAvailable"].split()[0]) * 1024
    except (OSError, KeyError, ValueError):  # pragma: no cover - not Linux
        available = 8 * 1024**3
    return int(available * MEMORY_SHARE)


@dataclass(frozen=True)
class Pilot:
    """What a few pilot games of one setting cost: bytes a held game takes and seconds a game takes.

    ``bytes_per_game`` is what a run held in memory peaks at per game (its chunks and the frame they are
    concatenated into); ``chunk_bytes`` what one chunk takes while it is played (its rows or arrays before they
    are a frame): bounded by the chunk's size, whatever the run's.
    """

    bytes_per_game: float
    seconds_per_game: float
    games: int
    chunk_bytes: int = 0

    def memory(self, games: int) -> int:
        """Bytes a run of ``games`` games held in memory peaks at."""
        return int(self.bytes_per_game * games) + self.chunk_bytes

    def seconds(self, games: int, workers: int = 1) -> float:
        """Seconds ``games`` games take on ``workers`` workers (at the pilot's rate, one core a worker)."""
        return self.seconds_per_game * games / max(1, workers)


def pilot(game: str | GameModel, params: dict[str, Any] | None = None, agents: Any = None,
          engine: str | None = None, games: int | None = None, timed: bool = True) -> Pilot:
    """Play a few games of one setting and measure their memory and time.

    The engine is warmed by one game first, so a compile (numba's first call) is not counted as play;
    a second game is timed alone, then ``games`` (default :data:`PILOT`) less one in one chunk (as a run
    plays them) — fewer when that game says they would take over :data:`PILOT_SECONDS`, so a slow setting
    (a search agent) is measured on fewer games and nobody waits long for an estimate.  A chunk done in
    under :data:`PILOT_BATCH_SECONDS` is followed by one twice its size (up to :data:`PILOT_MAX` games, and
    while the pilot is under :data:`PILOT_SECONDS`), and the time per game is the last chunk's: a compiled
    engine's per-call costs are then spread as in a run's chunks of thousands of games, rather than read as
    a game's cost (31 greedy games of the duel took 1-2 ms, much of it per call: 640,000 games, a 10-second
    run, were estimated at 30 s on a quiet machine, and a busy machine's pause of a few ms in so short a
    batch could make them look longer than the ten minutes that ask a user to confirm).

    A game alone that leaves no room for a batch is played once more and the faster of the two kept: one
    pause of the host (another thread holding the interpreter while it loads a library) during the one game
    timed alone made a 40,000-game study of the duel (a 14-second run) look longer than ten minutes.

    ``timed`` false: the first chunk only (a caller that needs a row's size, not a game's time, plays no more).

    Memory: a result row is the games' columns (measured on the pilot's frames) and the run's shared columns
    (``results.head_frame``, built for the pilot's games); a held run peaks at :data:`HELD_COPIES` of that a
    game (:data:`OBJECT_COPIES` when its chunks are built from Python objects: the reference engine, lists of
    strings), and a chunk in play adds its own rows or arrays, whatever the run's length.
    """
    model = get_game(game)
    resolved = model.resolve_params(params or {})
    specs = model.resolve_agents(agents, resolved)
    eng = model.resolve_engine(engine, specs, resolved)
    from workbench.core.sim.play import play_chunk

    n = PILOT if games is None else games
    play_chunk(model, resolved, specs, game_seeds(0, 0, 1), eng)  # compiled (or loaded) before the clock starts
    began = started = time.perf_counter()
    first = play_chunk(model, resolved, specs, game_seeds(0, 1, 2), eng)
    one = time.perf_counter() - started
    played, size = first.height, first.estimated_size()  # game 0 warmed up, games 1..played measured
    if timed and n > 2 and one * 2 > PILOT_SECONDS:  # too slow for a batch: a slow setting, or a pause of the host
        started = time.perf_counter()  # (another thread holding the interpreter): a second game alone tells
        again = play_chunk(model, resolved, specs, game_seeds(0, played + 1, played + 2), eng)
        if time.perf_counter() - started < one:  # the first was a pause: the half second starts again here
            began, one = started, time.perf_counter() - started
        played, size = played + again.height, size + again.estimated_size()
    rest = min(n - played, int(PILOT_SECONDS / one) if one > 0 else n - played)
    per_game = one
    while rest >= 2:  # enough games for a chunk's rate: per-call costs spread as in a run
        started = time.perf_counter()
        batch = play_chunk(model, resolved, specs, game_seeds(0, played + 1, played + 1 + rest), eng)
        took = time.perf_counter() - started
        per_game, played, size = took / max(1, batch.height), played + batch.height, size + batch.estimated_size()
        del batch  # only its size is kept: the pilot holds one batch at a time
        spent = time.perf_counter() - began
        long_enough = took >= PILOT_BATCH_SECONDS or spent + 2 * took > PILOT_SECONDS
        if not timed or long_enough or played + 1 + 2 * rest > PILOT_MAX:  # (where the next batch would end)
            break
        rest *= 2
    import polars as pl

    from workbench.core.sim.results import head_frame

    head = head_frame(model, resolved, tuple(map(str, specs)), 0, 1, game_seeds(0, 1, 1 + played))
    row = max(1.0, (size + head.estimated_size()) / max(1, played))  # a result row as a run's frame holds it
    chunk = max(1, model.chunk_hint(eng))
    objects = any(_nested_strings(t, pl) for t in first.schema.values())
    held = (OBJECT_COPIES if eng != "fast" or objects else HELD_COPIES) * row
    # one chunk in play: a compiled engine's arrays (about its frame), the reference engine's Python rows
    chunk_bytes = int(chunk * row) if eng == "fast" else chunk * CELL_BYTES * len(head.columns + first.columns)
    return Pilot(held, per_game, played, chunk_bytes)


def _nested_strings(dtype: Any, pl: Any, inside: bool = False) -> bool:
    """Does a column of ``dtype`` hold strings (or objects) inside lists or structs, built from Python objects?"""
    if isinstance(dtype, (pl.List, pl.Array)):
        return _nested_strings(dtype.inner, pl, True)
    if isinstance(dtype, pl.Struct):
        return any(_nested_strings(f.dtype, pl, True) for f in dtype.fields)
    return isinstance(dtype, pl.Object) or (inside and dtype == pl.String)


def memory_refusal(games: int, estimate: int, per_game: float, limit: int | None = None) -> str | None:
    """The message refusing a run of ``games`` games taking ``estimate`` bytes, or None when it fits."""
    limit = memory_limit() if limit is None else limit
    if estimate <= limit:
        return None
    return (f"{games:,} games would take about {_human(estimate)} in memory ({_human(per_game)} a game), more than "
            f"the {_human(limit)} allowed (half the memory free now, or WORKBENCH_MEMORY_LIMIT)")


def check_memory(game: str | GameModel, games: int, cells: list[dict[str, Any]], agents: Any,
                 engine: str | None, limit: int | None = None) -> int:
    """Estimate the bytes of a run held in memory; refuse it when over the limit (before any work).

    Runs of at most ``SMALL_RUN`` games in all are not measured (0 is returned): the pilot games
    would cost more than they tell.
    """
    total = games * max(1, len(cells))
    if total <= SMALL_RUN:
        return 0
    measured = pilot(game, cells[0] if cells else {}, agents, engine, min(games, PILOT), timed=False)
    estimate = measured.memory(total)
    refused = memory_refusal(total, estimate, measured.bytes_per_game, limit)
    if refused:
        raise InputError(f"{refused}; give --out FILE.parquet to stream the games to disk")
    return estimate


def _parts_dir(out: Path) -> Path:
    return out.with_name(out.name + ".parts")


def _jobs(model: GameModel, cells: list[tuple[dict[str, Any], tuple[str, ...], str]], games: int, seed: int,
          size: int, done: set[str]) -> Iterator[tuple[str, tuple]]:
    """Lazily: ``(part file name, run_chunk arguments)`` of every chunk not written yet."""
    ref = model_ref(model)
    for c, (params, agents, eng) in enumerate(cells):
        for start in range(0, games, size):
            stop = min(start + size, games)
            name = f"{c:04d}-{start:015d}-{stop:015d}.parquet"
            if name not in done:
                yield name, (ref, params, agents, seed, start, stop, eng)


def simulate_to_parquet(game: str | GameModel, games: int, out: str | Path, *, grid: dict[str, Any] | None = None,
                        agents: Any = None, seed: int = 0, workers: int = 1, backend: str = "local",
                        scheduler: str | None = None, engine: str | None = None, chunk_size: int | None = None,
                        force: bool = False, progress: bool = True,
                        on_progress: Callable[[int, int], None] | None = None,
                        should_stop: Callable[[], bool] | None = None) -> Streamed:
    """Play ``games`` games in every cell of ``grid`` and stream them to ``out``; see the module docstring."""
    from workbench.core.sim.sweep import check_grid

    model = get_game(game)
    games, workers, seed = check_games(games), check_workers(workers), check_master_seed(seed)
    out = Path(out)
    if out.suffix != ".parquet":
        raise InputError(f"--out must name a .parquet file, got {str(out)!r}")
    grid = check_grid(grid, model)
    cells = []
    for overrides in iter_grid(grid):
        params = model.resolve_params(overrides)
        specs = model.resolve_agents(agents, params)
        cells.append((params, tuple(map(str, specs)), model.resolve_engine(engine, specs, params)))
    size = chunk_size or max(1, model.chunk_hint(cells[0][2]))
    run = json.loads(canonical_json({"format": "workbench-stream/1", "game": model.name,
                                     "rules_version": model.rules_version, "package_version": package_version(),
                                     "master_seed": seed, "games": games, "chunk_size": size,
                                     "cells": [[p, list(a), e] for p, a, e in cells]}))
    with OutputLock(out):
        return _stream(model, out, run, cells, games, seed, size, workers, backend, scheduler, force, progress,
                       on_progress, should_stop)


def _stream(model: GameModel, out: Path, run: dict[str, Any], cells: list, games: int, seed: int, size: int,
            workers: int, backend: str, scheduler: str | None, force: bool, progress: bool,
            on_progress: Callable[[int, int], None] | None, should_stop: Callable[[], bool] | None) -> Streamed:
    """The run itself, under the output's lock."""
    parts = _parts_dir(out)
    old = _old_run(parts)
    resuming = old == run
    _check_target(out, parts, force, resuming, old, run)
    try:
        if parts.exists() and not resuming:
            shutil.rmtree(parts)  # only with --force (checked above): parts of another run
        parts.mkdir(parents=True, exist_ok=True)
        write_atomic(parts / "run.json", lambda tmp: tmp.write_text(json.dumps(run, indent=1), encoding="utf-8"))
    except OSError as exc:
        raise OutputError(f"--out {out}: cannot write {exc.filename or parts} ({exc.strerror or exc}); give a "
                          "folder you can write to") from None
    clean_stale_temp(parts)
    done = {p.name for p in parts.glob("*.parquet") if _is_part(p.name)}
    total = games * len(cells)
    finished = sum(_rows(name) for name in done)
    jobs = _jobs(model, cells, games, seed, size, done)
    names: dict[int, str] = {}

    def numbered() -> Iterator[tuple]:
        for i, (name, args) in enumerate(jobs):
            names[i] = name
            yield args

    bar = None
    if progress:
        from workbench.core.sim.progress import progress as make_bar

        bar = make_bar(total, f"{model.name} → {out.name}", finished)
    from workbench.core.sim.progress import tick

    results = execute(model, numbered(), workers, backend, scheduler)
    try:
        for i, frame in results:
            write_parquet_atomic(frame, parts / names.pop(i))
            finished += frame.height
            tick(frame.height, finished, total)
            if bar is not None:
                bar.update(frame.height)
            if on_progress is not None:
                on_progress(finished, total)
            if should_stop is not None and finished < total and should_stop():
                raise KeyboardInterrupt
    except KeyboardInterrupt:
        close(results)
        written = _merge_or_explain(parts, out, finished)
        raise RunInterrupted(Streamed(out, written, total, False), written, total) from None
    except OSError as exc:
        close(results)
        raise OutputError(f"could not write {exc.filename or out} ({exc.strerror or exc}); the {finished:,} "
                          f"finished games are kept in {parts}/: make room or make the folder writable, then run "
                          "the same command again to resume") from None
    finally:
        if bar is not None:
            bar.close()
    written = _merge_or_explain(parts, out, finished)
    shutil.rmtree(parts, ignore_errors=True)
    return Streamed(out, written, total, True)


def _merge_or_explain(parts: Path, out: Path, finished: int) -> int:
    try:
        return _merge(parts, out)
    except OSError as exc:
        raise OutputError(f"could not write {out} ({exc.strerror or exc}); the {finished:,} finished games are "
                          f"kept in {parts}/: make room or make the folder writable, then run the same command "
                          "again to finish") from None


def _old_run(parts: Path) -> dict[str, Any] | None:
    """The settings of the run whose parts are in ``parts`` (None: no parts; {} unreadable)."""
    if not parts.exists():
        return None
    try:
        return json.loads((parts / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _differences(old: dict[str, Any], new: dict[str, Any]) -> str:
    names = {"master_seed": "--seed", "games": "--games", "chunk_size": "--chunk-size", "cells": "parameters, "
             "agents or engine", "game": "game", "rules_version": "rules version", "package_version":
             "workbench version"}
    changed = [f"{names.get(k, k)} {old.get(k)!r} → {new.get(k)!r}" if k not in ("cells",) else names[k]
               for k in new if old.get(k) != new.get(k)]
    return "; ".join(changed) or "unreadable run.json"


def _is_part(name: str) -> bool:
    bits = name.removesuffix(".parquet").split("-")
    return len(bits) == 3 and all(b.isdigit() for b in bits)


def _rows(name: str) -> int:
    _, start, stop = name.removesuffix(".parquet").split("-")
    return int(stop) - int(start)


def _check_target(out: Path, parts: Path, force: bool, resuming: bool, old: dict[str, Any] | None,
                  run: dict[str, Any]) -> None:
    """An --out that exists is kept unless --force, or unless it is the output of the run being resumed.

    Parts of another run (other settings) are never discarded without ``force``.
    """
    if out.exists() and out.is_dir():
        raise InputError(f"--out {out} is a directory; give a .parquet file")
    parent = next((p for p in (out.parent, *out.parent.parents) if p.exists()), Path("."))
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"--out {out}: {parent} is not a writable directory")
    if old is not None and not resuming and not force:
        kept = sum(_rows(p.name) for p in parts.glob("*.parquet") if not p.name.startswith(".") and _is_part(p.name))
        if kept or old:
            raise InputError(f"{parts}/ holds {kept:,} finished games of another run of --out {out} (it differs in: "
                             f"{_differences(old, run)}); run that command again to resume it, or pass --force to "
                             "discard those games")
    if out.exists() and not force and not resuming:
        raise InputError(f"--out {out} exists; give another file, or --force to replace it")


def _merge(parts: Path, out: Path) -> int:
    """Copy the part files, in order, one row group each, into ``out`` (atomically); return the rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    files = sorted(p for p in parts.glob("*.parquet") if _is_part(p.name))
    if not files:
        return 0
    schemas = [pq.read_schema(f) for f in files]
    fields: dict[str, pa.Field] = {}
    for schema in schemas:  # the union of columns (a grid over players adds agent_p3 ..)
        for i, field in enumerate(schema):
            if field.name not in fields:
                names = list(fields)
                before = schema.names[i - 1] if i else None
                at = names.index(before) + 1 if before in fields else len(names)
                fields = dict(itertools.chain(list(fields.items())[:at], [(field.name, field)],
                                              list(fields.items())[at:]))
    union = pa.schema(list(fields.values()))
    rows = 0

    def write(tmp: Path) -> None:
        nonlocal rows
        with pq.ParquetWriter(tmp, union) as writer:
            for f in files:
                table = pq.read_table(f)
                for name in union.names:
                    if name not in table.column_names:
                        table = table.append_column(union.field(name), pa.nulls(table.num_rows, union.field(name).type))
                writer.write_table(table.select(union.names).cast(union))
                rows += table.num_rows

    write_atomic(out, write)
    return rows
