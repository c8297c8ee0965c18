"""Monte Carlo runner: N seeded games of one model → one polars row per game.

Games are cut into chunks of consecutive game indices.  Each chunk derives its own game seeds
from ``(master_seed, index)`` (``seeding.py``), so the frame is identical whether the chunks run
serially, on a local process pool, or on a Dask cluster, and whatever the chunk size.

A process whose environment names a shared pool (``WORKBENCH_SCHEDULER``: the studio's server sets it
for its pages' kernels) sends every run that would have used local workers to that Dask scheduler
instead, in fair turns with every other process using it (:func:`shared_scheduler`).
"""

from __future__ import annotations

import itertools
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from multiprocessing import get_context
from typing import Any

import polars as pl

from workbench.core.errors import InputError, RunInterrupted
from workbench.core.model import AgentSpec, GameModel, from_ref, get_game, model_ref
from workbench.core.sim.memory import retain_freed_memory
from workbench.core.sim.play import play_chunk
from workbench.core.sim.results import head_frame
from workbench.core.sim.seeding import check_master_seed, game_seeds
from workbench.core.sim.stopping import close

retain_freed_memory()  # a chunk's freed arrays are the next chunk's pages (core/sim/memory.py)

BACKENDS = ("local", "dask")


def check_games(games: object) -> int:
    """A game count must be a positive integer."""
    if isinstance(games, bool) or not isinstance(games, int) or games <= 0:
        raise InputError(f"games must be a positive integer, got {games!r}")
    return games


def check_workers(workers: object) -> int:
    """A worker count must be a positive integer."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers <= 0:
        raise InputError(f"workers must be a positive integer, got {workers!r}")
    return workers


def run_chunk(game: str | GameModel, params: dict[str, Any], agents: tuple[str, ...], master_seed: int,
              start: int, stop: int, engine: str) -> pl.DataFrame:
    """Play games ``start..stop-1``; the unit of work sent to a worker (picklable arguments).

    ``game`` is a model or a :func:`~workbench.core.model.model_ref` (a spawned worker's
    registry starts fresh, so a game registered only in the parent is found through its module).
    """
    model = game if isinstance(game, GameModel) else from_ref(game)
    specs = tuple(AgentSpec.parse(a) for a in agents)
    seeds = game_seeds(master_seed, start, stop)
    body = play_chunk(model, params, specs, seeds, engine)
    if body.height != stop - start:
        raise RuntimeError(f"{model.name}: the {engine} engine returned {body.height} rows for {stop - start} seeds")
    return pl.concat([head_frame(model, params, agents, master_seed, start, seeds), body], how="horizontal")


def plan_chunks(games: int, chunk_size: int, start: int = 0) -> list[tuple[int, int]]:
    """Consecutive ``(start, stop)`` index ranges covering ``start..start+games-1``."""
    return [(s, min(s + chunk_size, start + games)) for s in range(start, start + games, chunk_size)]


WATCHED_SHARE = 4  # a run someone may stop plays chunks of a quarter of the engine's hint (Stop settles sooner)
WATCHED_FLOOR = 250  # ... but never below this (or the hint): many tiny chunks cost more to plan than to play


SPLIT_FLOOR = 64  # games: a run is cut into 4 chunks a worker, but no chunk below this (or the hint) for that


def watched_chunk(hint: int) -> int:
    """Games per chunk for a run someone may stop (``core.sim.stopping.watching``): short enough to stop soon."""
    from workbench.core.sim.stopping import watched

    return max(min(hint, WATCHED_FLOOR), hint // WATCHED_SHARE) if watched() else hint


def in_memory_chunk(games: int, workers: int, hint: int) -> int:
    """Games per chunk of an in-memory run of ``games`` on ``workers``.

    At most the engine's ``hint`` (``watched_chunk``'s when someone may press Stop), and about four chunks a
    worker, so the workers share the run evenly and progress comes in steps; never cut below ``SPLIT_FLOOR`` games
    to do so: a chunk's fixed cost (its engine's tables, its frame) is that of tens of games, and a cell of 10
    games cut in four paid it four times (a study's cells on a small form: 400 chunks where 50 do).
    """
    return max(1, min(hint, max(math.ceil(games / (4 * workers)), SPLIT_FLOOR)))


def simulate(game: str | GameModel, games: int, *, params: dict[str, Any] | None = None,
             agents: Any = None, seed: int = 0, workers: int = 1, backend: str = "local",
             scheduler: str | None = None, engine: str | None = None, chunk_size: int | None = None,
             progress: bool = True, start: int = 0, on_progress: Callable[[int], None] | None = None,
             should_stop: Callable[[], bool] | None = None) -> pl.DataFrame:
    """Play ``games`` seeded games and return one row per game, ordered by ``game_index``.

    ``backend="local"`` runs serially (``workers=1``), else on ``workers`` threads when the
    engine releases the GIL (compiled kernels: no start-up cost) or on a local process pool;
    ``"dask"`` submits the chunks to a Dask scheduler (``scheduler`` address, or a local cluster
    of ``workers`` processes when none is given).  ``on_progress(n)`` is called with the size of
    every finished chunk.  On Ctrl-C, or once ``should_stop()`` turns true, the finished games are
    kept: a :class:`RunInterrupted` carries them in ``.partial``.
    """
    model = get_game(game)
    games = check_games(games)
    workers = check_workers(workers)
    seed = check_master_seed(seed)
    if backend not in BACKENDS:
        raise InputError(f"unknown backend {backend!r}; allowed: {', '.join(BACKENDS)}")
    resolved = model.resolve_params(params)
    specs = model.resolve_agents(agents, resolved)
    engine = model.resolve_engine(engine, specs, resolved)
    if chunk_size is None:
        hint = watched_chunk(model.chunk_hint(engine))  # someone may press Stop: chunks that end within its grace
        chunk_size = in_memory_chunk(games, workers, hint)
    elif isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size <= 0:
        raise InputError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    chunks = plan_chunks(games, chunk_size, start)
    args = [(model_ref(model), resolved, tuple(map(str, specs)), seed, a, b, engine) for a, b in chunks]
    results = execute(model, args, workers, backend, scheduler)
    return _collect(results, games, len(chunks), f"{model.name} {engine}" if progress else None, on_progress,
                    should_stop)


def execute(model: GameModel, args: Iterable[tuple], workers: int, backend: str = "local",
            scheduler: str | None = None, window: int | None = None) -> Iterator[tuple[int, pl.DataFrame]]:
    """``(i, run_chunk(*args[i]))`` as chunks finish: serially, on a local pool, or on Dask.

    ``args`` may be a lazy iterator: at most ``window`` chunks (default 4 per worker) are in
    flight at once, so a run of any length holds a bounded number of chunks.  Local workers are
    threads when the engine releases the GIL (compiled kernels: no start-up cost), else spawned
    processes.  Closing the iterator cancels what has not started.
    """
    if backend not in BACKENDS:
        raise InputError(f"unknown backend {backend!r}; allowed: {', '.join(BACKENDS)}")
    args = iter(args)
    shared = shared_scheduler() if backend == "local" else None
    if shared is not None:  # the studio's pool: every page's runs share it, in fair turns
        try:
            shared_client(shared)
        except InputError as exc:  # the pool is gone: this run plays on its own workers, as without one
            import logging

            logging.getLogger("workbench.core").warning("%s; playing on local workers", exc)
        else:
            return _shared_results(args, shared)
    window = window or 4 * workers
    if backend == "dask":
        return _dask_results(args, workers, scheduler, window)
    head = list(itertools.islice(args, 2))
    if not head:
        return iter(())
    rest = itertools.chain(head, args)
    if workers == 1 or len(head) == 1:  # one chunk: no pool to start
        return ((i, run_chunk(*a)) for i, a in enumerate(rest))
    return pool_results(run_chunk, rest, make_pool(model.releases_gil(head[0][-1]), workers), window)


def drain(results: Iterator[tuple[int, pl.DataFrame]], jobs: int,
          should_stop: Callable[[], bool] | None = None) -> Iterator[tuple[int, pl.DataFrame]]:
    """``(i, frame)`` of :func:`execute`'s results as they finish, for a caller that keeps counts, not frames.

    After each one the caller has handled, ``should_stop()`` is asked (unless it was the last of
    ``jobs``); true raises :class:`KeyboardInterrupt` into the caller's loop, as Ctrl-C would, and
    so does a stop Ctrl-C or SIGTERM requested (:mod:`workbench.core.sim.stopping`).  The results are
    closed however the loop ends, so chunks not started are cancelled.
    """
    from workbench.core.sim.stopping import check

    try:
        for finished, item in enumerate(results, start=1):
            yield item
            if finished < jobs:
                check()
                if should_stop is not None and should_stop():
                    raise KeyboardInterrupt
    finally:
        close(results)


def _collect(results: Iterator[tuple[int, pl.DataFrame]], games: int, n_chunks: int, label: str | None,
             on_progress: Callable[[int], None] | None, should_stop: Callable[[], bool] | None) -> pl.DataFrame:
    from workbench.core.sim.progress import tick

    done: dict[int, pl.DataFrame] = {}
    played = 0
    bar = _progress_bar(games, label) if label else None
    try:
        for i, frame in results:
            done[i] = frame
            played += frame.height
            if bar is not None:
                bar.update(frame.height)
            if on_progress is not None:
                on_progress(frame.height)
            tick(frame.height, played, games)  # after the report: a stop raised here leaves the count true
            if should_stop is not None and len(done) < n_chunks and should_stop():
                raise KeyboardInterrupt
    except KeyboardInterrupt:
        finished = _concat(done)
        raise RunInterrupted(finished, 0 if finished is None else finished.height, games) from None
    finally:
        if bar is not None:
            bar.close()
        close(results)
    return _concat(done)


def _concat(done: dict[int, pl.DataFrame]) -> pl.DataFrame | None:
    if not done:
        return None
    return pl.concat([done[i] for i in sorted(done)], how="vertical")


def _progress_bar(total: int, label: str) -> Any:
    from workbench.core.sim.progress import progress

    return progress(total, label)


def make_pool(threads: bool, workers: int) -> Executor:
    """Worker threads (for engines that release the GIL) or spawned worker processes.

    Worker processes end when their parent dies, whatever the signal (even SIGKILL): see
    :func:`end_with_parent`.
    """
    if threads:
        return ThreadPoolExecutor(max_workers=workers)
    # "spawn": polars and numba start threads; forking a threaded process can deadlock.
    return ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"), initializer=end_with_parent,
                               initargs=(os.getpid(),))


PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def end_with_parent(parent: int) -> None:
    """Run in a worker process at start: end it when ``parent`` dies, so a killed run leaves no orphans.

    On Linux the kernel sends SIGKILL to the worker when its parent dies (``PR_SET_PDEATHSIG``);
    elsewhere a daemon thread polls the parent's pid once a second.
    """
    import signal
    import threading

    armed = False
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):  # pragma: no cover - no libc prctl
            armed = False
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)
    if not armed:  # pragma: no cover - not Linux

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(1.0)
            os._exit(1)

        threading.Thread(target=watch, name="end with parent", daemon=True).start()


def pool_results(fn: Callable[..., pl.DataFrame], args: Iterable[tuple], pool: Executor,
                 window: int | None = None) -> Iterator[tuple[int, pl.DataFrame]]:
    """``(i, fn(*args[i]))`` in the order the pool finishes them, at most ``window`` in flight.

    Closing the generator cancels the rest and shuts the pool down.  A stop (the generator closed with
    chunks still pending) does not wait for the chunks already running: their games are discarded either
    way, so the caller has its finished games back at once rather than after the slowest running chunk
    (the studio's Stop); the workers finish them in the background and end.
    """
    from concurrent.futures import FIRST_COMPLETED, wait

    pending: dict = {}
    numbered = enumerate(args)
    window = window or 1 << 30
    try:
        for i, a in itertools.islice(numbered, window):
            pending[pool.submit(fn, *a)] = i
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                i = pending.pop(fut)
                for j, a in itertools.islice(numbered, 1):
                    pending[pool.submit(fn, *a)] = j
                yield i, fut.result()
    finally:
        for f in pending:
            f.cancel()
        pool.shutdown(wait=not pending, cancel_futures=True)


SCHEDULER_TIMEOUT = float(os.environ.get("WORKBENCH_SCHEDULER_TIMEOUT", "10"))  # seconds to reach a Dask scheduler


def _dask_client(workers: int, scheduler: str | None, timeout: float | None = None) -> tuple[Any, Any]:
    try:
        from distributed import Client, LocalCluster
    except ImportError:  # pragma: no cover - depends on the environment
        raise InputError("backend='dask' needs the dask extra: pip install 'workbench[dask]'") from None
    if scheduler is None:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=":0", silence_logs=40)
        return Client(cluster), cluster
    started = time.perf_counter()
    try:
        return Client(scheduler, timeout=timeout or SCHEDULER_TIMEOUT), None
    except (OSError, TimeoutError) as exc:
        waited = time.perf_counter() - started
        raise InputError(f"could not reach the Dask scheduler at {scheduler} (waited {waited:.0f} s: "
                         f"{type(exc).__name__}); is it running? Start one with `dask scheduler`, or leave "
                         "--scheduler out for a local cluster") from None


def _dask_results(args: Iterator[tuple], workers: int, scheduler: str | None,
                  window: int) -> Iterator[tuple[int, pl.DataFrame]]:
    from distributed import as_completed

    client, cluster = _dask_client(workers, scheduler)
    try:
        numbered = enumerate(args)
        index = {}
        futures = []
        for i, a in itertools.islice(numbered, window):
            fut = client.submit(run_chunk, *a, pure=False)
            index[fut.key] = i
            futures.append(fut)
        queue = as_completed(futures)
        for fut in queue:
            for j, a in itertools.islice(numbered, 1):
                nxt = client.submit(run_chunk, *a, pure=False)
                index[nxt.key] = j
                queue.add(nxt)
            yield index.pop(fut.key), fut.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


# -- one compute pool shared by every run of every process pointed at it (the studio's pages) ---------------
ENV_SCHEDULER = "WORKBENCH_SCHEDULER"  # a Dask scheduler every local run of this process goes to instead
SHARED_TIMEOUT = 60.0  # seconds a first run waits for the shared pool (the server starts it beside the pages)
FIRST_WAVE = 1  # Dask priority of a run's first window of chunks: a short run (a lesson) never waits behind long ones
_shared: dict[str, Any] = {}  # scheduler address -> this process's one client to it
_shared_lock = threading.Lock()


def shared_scheduler() -> str | None:
    """The shared pool's scheduler address (``WORKBENCH_SCHEDULER``), or None: runs use their own workers.

    The studio's server starts one pool (a local Dask cluster, or the ``--scheduler`` it was given)
    and sets this for its pages' kernels, so a page's runs, whatever their ``workers``, play there.
    """
    return os.environ.get(ENV_SCHEDULER, "").strip() or None


def shared_client(address: str) -> Any:
    """This process's one client of the shared pool at ``address`` (made on first use, kept open)."""
    with _shared_lock:
        client = _shared.get(address)
        if client is None or client.status not in ("running", "connecting", "newly-created"):
            client, _ = _dask_client(1, address, SHARED_TIMEOUT)
            _shared[address] = client
        return client


def shared_window(client: Any) -> int:
    """Chunks one run keeps in the shared pool at once: two per worker thread, the same for every run."""
    try:
        threads = sum(client.nthreads().values())
    except Exception:  # noqa: BLE001 - a scheduler that does not say: assume a small pool
        threads = 2
    return max(2, 2 * threads)


def _shared_results(args: Iterator[tuple], address: str) -> Iterator[tuple[int, pl.DataFrame]]:
    """``(i, run_chunk(*args[i]))`` from the shared pool, with fair turns among every run submitting there.

    Fairness: every run keeps the same number of chunks in the pool (:func:`shared_window`) and submits
    its next chunk only when one of its own finished, so the scheduler's first-come order serves the
    runs in turn — 30 pages pressing Run each get a thirtieth of the pool and none waits for another
    to finish.  A run's first window goes ahead of the queue (priority :data:`FIRST_WAVE`), so a short
    run (a lesson, a small study) answers quickly while long runs share the rest.  While waiting, a
    stop asked of this run (:func:`workbench.core.sim.stopping.check`) is honoured within a fraction of a
    second, and closing the results cancels this run's chunks not yet finished.
    """
    import queue

    from workbench.core.sim.stopping import check

    client = shared_client(address)
    window = shared_window(client)
    finished: queue.SimpleQueue = queue.SimpleQueue()
    index: dict[str, int] = {}
    pending: dict[str, Any] = {}
    numbered = enumerate(args)

    def submit(i: int, a: tuple, priority: int) -> None:
        fut = client.submit(run_chunk, *a, pure=False, priority=priority)
        index[fut.key], pending[fut.key] = i, fut
        fut.add_done_callback(finished.put)

    try:
        for i, a in itertools.islice(numbered, window):
            submit(i, a, FIRST_WAVE)
        while pending:
            try:
                fut = finished.get(timeout=0.2)
            except queue.Empty:
                check()  # a Stop pressed meanwhile: honoured now, not after the next chunk of a busy pool
                continue
            if pending.pop(fut.key, None) is None:
                continue
            for j, a in itertools.islice(numbered, 1):
                submit(j, a, 0)
            yield index.pop(fut.key), fut.result()
    finally:
        if pending:
            try:
                client.cancel(list(pending.values()))
            except Exception:  # noqa: BLE001 - a pool gone away has nothing left to cancel
                pass


def iter_grid(grid: dict[str, Iterable[Any]]) -> Iterator[dict[str, Any]]:
    """Every combination of a parameter grid, in a stable order (last key varies fastest)."""
    import itertools

    keys = list(grid)
    for values in itertools.product(*(list(grid[k]) for k in keys)):
        yield dict(zip(keys, values, strict=True))
