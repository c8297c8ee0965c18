"""``make app`` / ``python -m workbench.app``: serve the studio on 127.0.0.1 with Voilà and print its URL.

Voilà runs the studio notebook (``studio.ipynb``: ``Studio.from_query()``) in a kernel of its own
for every page that opens and shows only its widgets.  The kernels are pre-heated: one waits in a
pool with every game's declarations imported (``studio.preload``), so a page opens in a few seconds
and the next kernel warms up behind it.  Voilà serves the
widgets' JavaScript from the installed packages, and the template here
(``jupyter/voila/templates/workbench``) drops the two stylesheets Voilà's own template loads from a
CDN, so the page makes no request beyond 127.0.0.1; charts are SVG drawn on the server.  The
workspace (``workspace.py``) is the server's root: its runs' downloads are served at
``/voila/files/…`` and nothing else is (only CSV, Parquet and zip files below ``runs/`` and
``cards/``).

Kernels end with their page.  Voilà's page sends a beacon to ``/voila/api/shutdown/<kernel>`` when
it is closed or left, which the server refuses without the ``_xsrf`` cookie that Voilà's page
handler never sets; :class:`StudioPage` sets it, so the kernel is shut down at once.  A page whose
browser went away without a word (a closed window, a killed browser, a lost network) frees its kernel
within 30 s: the server pings every page's websocket (every :data:`PING_EVERY` s; one silent for
:data:`PING_TIMEOUT` s is closed, so a lost network counts as gone), and a reaper ends a kernel that
had no page connected for ``--reap-after`` seconds (default :data:`REAP_AFTER`; a kernel whose page
never connected waits :data:`NEVER_CONNECTED` s, a page still loading under load — unless the page's request
broke off before it was all sent, a window closed while it loaded: that page is gone).  Pre-heated kernels
waiting for a page are never reaped; ``--cull-idle`` (default :data:`CULL_IDLE`) stays as a last net.

At most ``--max-pages`` pages hold a kernel at once: one more gets a short page saying the studio is
full and what to do, and no kernel.  The default follows memory (:func:`default_max_pages`): the
server's total memory less :data:`RESERVE` (the server, the compute pool and the system) divided by
what one page takes, :data:`PAGE_BYTES` — measured (``benchmarks/studio_class.py``, /proc): a studio
kernel with its page built holds 340-470 MB RSS, 115-190 MB of it its own (PSS: the libraries are
shared); after its game's default study ran in the pool 605-614 MB RSS, and the server, its pool and 7
such kernels 2.5 GB PSS in all (about 300 MB a page).  Taken as 500 MB a page; on a 24 GB machine
(24 - 4) GB / 500 MB = 40 pages.

Pages are thin: the games run in one compute pool the server shares among all pages — a local Dask
cluster it starts (``--workers N``, by default one per core) or a scheduler given at start
(``--scheduler tcp://host:8786``, so a school can point the studio at a bigger cluster; ``--workers 0``
and no scheduler: each page plays on its own workers, as before).  The kernels reach it through
``WORKBENCH_SCHEDULER`` (``core/sim/runner.py``: :func:`~workbench.core.sim.runner.shared_scheduler`), which
serves every page's runs in fair turns, so 30 pages pressing Run all finish and none waits for another;
the frames are the same as on any backend (the runner's seeding).
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import warnings
from pathlib import Path

from workbench.app.workspace import ENV_STUDIO, ENV_SWEEPS

__all__ = ["CULL_IDLE", "HERE", "MAX_PAGES", "NOTEBOOK", "PAGE_BYTES", "REAP_AFTER", "default_max_pages",
           "free_port", "full_page", "main", "prepare", "start_pool", "voila_config"]

HERE = Path(__file__).resolve().parent
NOTEBOOK = HERE / "studio.ipynb"
TEMPLATES = HERE / "jupyter"  # on JUPYTER_PATH: voila/templates/workbench
DEFAULT_PORT = 8866
CULL_IDLE = 600  # seconds without a connection and without activity before a kernel is ended (a last net)
REAP_AFTER = 10  # seconds a kernel whose page was connected may go without one before it is ended
NEVER_CONNECTED = 120  # seconds a kernel handed to a page may wait for the page to connect (a page loading under load)
KERNEL_IN_PAGE = re.compile(r'"kernelId":\s*"([0-9a-fA-F-]{8,64})"')  # the kernel's id in a page's config data
PING_EVERY, PING_TIMEOUT = 4, 10  # seconds between the server's websocket pings; silence that closes a page's socket
PAGE_BYTES = 500 * 2**20  # one page's kernel: about 300 MB its own (PSS) after a run, 610 MB RSS (see the module)
RESERVE = 4 * 2**30  # the server, the compute pool's workers and the system
POOL = 1  # kernels kept warm for the next pages (0: each page starts its own kernel when it opens)
ENV_CULL, ENV_MAX_PAGES, ENV_POOL = "WORKBENCH_STUDIO_CULL_IDLE", "WORKBENCH_STUDIO_MAX_PAGES", "WORKBENCH_STUDIO_POOL"
ENV_REAP, ENV_WORKERS, ENV_SCHEDULER = "WORKBENCH_STUDIO_REAP_AFTER", "WORKBENCH_STUDIO_WORKERS", \
    "WORKBENCH_STUDIO_SCHEDULER"


def total_memory() -> int:
    """The machine's memory in bytes (0 when it cannot be read)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not a POSIX system
        return 0


def default_max_pages(total: int | None = None, page: int = PAGE_BYTES, reserve: int = RESERVE) -> int:
    """Pages the server's memory holds: ``(total - reserve) // page``, at least 1 (16 when memory is unknown)."""
    total = total_memory() if total is None else total
    if total <= 0:
        return 16
    return max(1, (total - reserve) // page)


MAX_PAGES = default_max_pages()  # this machine's default cap
ALLOWED_FILES = (r"runs/[^/]+/[^/]+\.(csv|parquet|zip)", r"cards/[^/]+/[^/]+\.csv")


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prepare(studio: Path, sweeps: list[Path]) -> Path:
    """Create the workspace, put the studio notebook in it, and set the environment the kernels inherit."""
    studio.mkdir(parents=True, exist_ok=True)
    notebook = studio / NOTEBOOK.name
    if not notebook.is_file() or notebook.read_bytes() != NOTEBOOK.read_bytes():
        tmp = studio / f".{NOTEBOOK.name}.tmp-{os.getpid()}"
        shutil.copyfile(NOTEBOOK, tmp)
        os.replace(tmp, notebook)
    os.environ[ENV_STUDIO] = str(studio)
    os.environ[ENV_SWEEPS] = os.pathsep.join(str(p) for p in sweeps)
    os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(TEMPLATES), os.environ.get("JUPYTER_PATH")]))
    return notebook


def full_page(open_pages: int, cap: int) -> str:
    """The page a visitor gets when ``cap`` pages already hold a kernel: what happened and what to do."""
    return ("<!doctype html><html><head><meta charset='utf-8'><title>Tower games studio: full</title></head>"
            "<body style='font-family:system-ui,sans-serif;max-width:40em;margin:3em auto;color:#222'>"
            f"<h2>The studio is full</h2><p class='wb-studio-full' data-open-pages='{open_pages}' data-cap='{cap}'>"
            f"{open_pages} studio pages are open, and this server allows at most {cap} at once (each page runs its own "
            "Python kernel, which takes memory). Close a studio page you no longer use — its kernel ends when "
            "the page closes, or within half a minute of a closed window — then reload this page.</p>"
            "<p style='color:#666'>The limit is set when the "
            "server starts: <code>python -m workbench.app --max-pages N</code>.</p></body></html>"
            )


def studio_voila(max_pages: int) -> type:
    """Voilà with the studio's page handler (:class:`StudioPage`: sets the _xsrf cookie, caps the open pages)."""
    import tornado.iostream
    import tornado.web
    from voila.app import Voila
    from voila.tornado.handler import TornadoVoilaHandler

    class StudioPage(TornadoVoilaHandler):
        """Voilà's page, plus the _xsrf cookie its closing beacon needs, and no kernel beyond ``max_pages``."""

        async def prepare(self) -> None:
            await super().prepare()
            self.xsrf_token  # noqa: B018 - reading it sets the _xsrf cookie: the page's shutdown beacon is accepted

        @tornado.web.authenticated
        async def get(self, path: str | None = None) -> None:
            manager = self.kernel_manager
            pooled = manager.get_pool_size(self.notebook_path) if hasattr(manager, "get_pool_size") else 0
            # a kernel being shut down (its page closed or reaped) holds no page: its place is free at once
            ending = getattr(manager, "ending", set())
            open_pages = max(0, len(set(manager.list_kernel_ids()) - ending) - pooled)
            if open_pages >= max_pages:
                self.log.warning("studio full: %d pages hold a kernel (cap %d); page refused", open_pages, max_pages)
                self.set_status(503)
                self.set_header("Content-Type", "text/html; charset=utf-8")
                self.set_header("Cache-Control", "no-store")
                self.finish(full_page(open_pages, max_pages))
                return
            # Voilà's page, streamed as its cells render (TornadoVoilaHandler.get); the kernel it was handed is
            # read from the page's config as it streams, so a browser that goes away before the page is all sent
            # (a window closed while it loaded: no beacon, no socket ever) is told to the reaper at once
            try:
                async for html in self.get_generator(path=path):
                    if self._kernel_id is None and (found := KERNEL_IN_PAGE.search(html)):
                        self._kernel_id = found[1]
                    self.write(html)
                    await self.flush()  # a browser gone mid-page ends the stream here (StreamClosedError)
            except tornado.iostream.StreamClosedError:
                self.on_connection_close()

        _kernel_id: str | None = None

        def on_connection_close(self) -> None:
            """The browser closed the page's request before it was all sent: its kernel's page is gone."""
            super().on_connection_close()
            manager = self.kernel_manager
            if self._kernel_id is not None and hasattr(manager, "page_left"):
                self.log.info("studio: a page closed while it loaded (kernel %s)", self._kernel_id)
                manager.page_left(self._kernel_id)

    class StudioVoila(Voila):
        def init_handlers(self) -> list:
            return [(h[0], StudioPage, *h[2:]) if len(h) > 1 and h[1] is TornadoVoilaHandler else h
                    for h in super().init_handlers()]

    return StudioVoila


_KERNELS: list[type] = []


def studio_kernels() -> type:
    """Jupyter's kernel manager plus the reaper: a kernel whose page is gone is ended (see the module).

    Every ``reap_every`` seconds it reads each kernel's websocket connections (the server counts
    them); a kernel handed to a page that has had none for ``reap_after`` seconds since its page was
    last connected (or since its page's request broke off before the page was all sent,
    :meth:`page_left`) is shut down; one whose page never connected, after ``never_connected``
    seconds (a page still loading under load).  Kernels in Voilà's pre-heated pool have no page yet
    and are skipped.
    """
    if _KERNELS:
        return _KERNELS[0]
    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
    from tornado.ioloop import PeriodicCallback
    from traitlets import Float

    class StudioKernels(AsyncMappingKernelManager):
        reap_after = Float(REAP_AFTER, config=True, help="seconds without a connected page before a kernel ends "
                                                         "(0: never)")
        never_connected = Float(NEVER_CONNECTED, config=True, help="seconds a page may take to connect")

        def __init__(self, **kwargs: object) -> None:
            super().__init__(**kwargs)
            self._seen: dict[str, list] = {}  # kernel id -> [last time a page was connected (or handed it), ever]
            self._reaper: PeriodicCallback | None = None
            self.ending: set[str] = set()  # kernels whose shutdown is under way

        async def start_kernel(self, *args: object, **kwargs: object) -> str:
            kernel_id = await super().start_kernel(*args, **kwargs)
            if self._reaper is None and self.reap_after > 0:
                every = max(0.5, min(2.0, self.reap_after / 4))
                self._reaper = PeriodicCallback(self.reap, every * 1000)
                self._reaper.start()
            return kernel_id

        def notify_connect(self, kernel_id: str) -> None:
            """A page's socket connected: the kernel has had a page (the reaper's tick may come after it is gone)."""
            super().notify_connect(kernel_id)
            self._seen[kernel_id] = [time.monotonic(), True]

        def notify_disconnect(self, kernel_id: str) -> None:
            """A page's socket closed: the time it went counts from now, not from the reaper's last tick."""
            super().notify_disconnect(kernel_id)
            self._seen[kernel_id] = [time.monotonic(), True]

        async def shutdown_kernel(self, kernel_id: str, *args: object, **kwargs: object) -> object:
            """Jupyter's shutdown; while it runs the kernel is listed in :attr:`ending` (its page's place is free).

            The kernel stays in the manager's list until its shutdown is done, after its process has ended:
            a page opened then was refused as "studio full" although every page had gone.
            """
            self.ending.add(kernel_id)
            try:
                return await super().shutdown_kernel(kernel_id, *args, **kwargs)
            finally:
                self.ending.discard(kernel_id)

        def page_left(self, kernel_id: str) -> None:
            """The browser of the page handed ``kernel_id`` went away while the page loaded.

            A page gone, as a closed socket is (``reap_after`` from now), not one still loading (``never_connected``).
            """
            if self._kernel_connections.get(kernel_id, 0) == 0:
                self._seen[kernel_id] = [time.monotonic(), True]

        def pooled(self) -> set[str]:
            """Kernels waiting pre-heated in Voilà's pool: no page holds them."""
            found = set()
            for pool in getattr(self, "_pools", {}).values():
                for task in list(pool):
                    try:
                        if task.done() and not task.cancelled() and task.exception() is None:
                            found.add(task.result().get("kernel_id"))
                    except Exception:  # noqa: BLE001 - a pool entry that failed holds no kernel
                        continue
            return found

        async def reap(self, now: float | None = None) -> list[str]:
            """End every kernel whose page has been gone too long (``now``: a monotonic time); the kernels ended."""
            now = time.monotonic() if now is None else now
            pooled, ended = self.pooled(), []
            live = set(self.list_kernel_ids())
            for gone in set(self._seen) - live:
                self._seen.pop(gone, None)
            for kernel_id in live:
                if kernel_id in pooled:
                    self._seen.pop(kernel_id, None)
                    continue
                seen = self._seen.setdefault(kernel_id, [now, False])
                if self._kernel_connections.get(kernel_id, 0) > 0:
                    seen[0], seen[1] = now, True
                    continue
                limit = self.reap_after if seen[1] else max(self.reap_after, self.never_connected)
                if now - seen[0] < limit:
                    continue
                self.log.info("studio: kernel %s had no page for %.0f s; ended", kernel_id, now - seen[0])
                self._seen.pop(kernel_id, None)
                ended.append(kernel_id)
            if ended:  # side by side, so one slow shutdown never holds the reaper up
                results = await asyncio.gather(*(self.shutdown_kernel(k, now=True) for k in ended),
                                               return_exceptions=True)
                for kernel_id, result in zip(ended, results, strict=True):
                    if isinstance(result, BaseException):
                        self.log.debug("studio: kernel %s could not be ended: %r", kernel_id, result)
            return ended

    _KERNELS.append(StudioKernels)
    return StudioKernels


IOPUB_WAIT = 300  # seconds a page's render waits for the output of its cells (see voila_config)


def voila_config(studio: Path, port: int, cull_idle: int = CULL_IDLE, pool: int = POOL,
                 reap_after: float = REAP_AFTER) -> object:
    """Voilà's settings: loopback only, our template, no CDN MathJax, downloads below the workspace only.

    Kernels with no page connected and no activity for ``cull_idle`` seconds are ended (0: never);
    ``pool`` kernels wait pre-heated for the next pages (0: none); a kernel whose page was connected
    and has had none for ``reap_after`` seconds is ended (0: never; pings find a lost network).
    """
    from traitlets.config import Config

    c = Config()
    c.Voila.ip = "127.0.0.1"
    c.Voila.port = port
    c.Voila.port_retries = 0
    c.Voila.open_browser = False
    c.Voila.root_dir = str(studio)
    c.Voila.mathjax_url = "null"  # the page would otherwise load MathJax from a CDN when asked to typeset
    c.Voila.mathjax_config = "null"
    c.VoilaConfiguration.template = "workbench"
    c.VoilaConfiguration.file_allowlist = list(ALLOWED_FILES)
    c.VoilaConfiguration.file_denylist = [r".*\.(ipynb|py|json)", r"(.*/)?\..*"]
    c.VoilaConfiguration.show_tracebacks = False
    c.VoilaConfiguration.preheat_kernel = pool > 0  # a kernel waits with everything imported: the page opens at once
    c.VoilaConfiguration.default_pool_size = pool
    # nbclient waits only IOPUB_WAIT s (its default: 4) for a cell's output after the kernel's reply, then drops it:
    # on a busy server (pages opened together, a compute pool starting) the page's widgets came after that, and the
    # page stayed blank.  The wait ends as soon as the output is in, so a long one costs a quick page nothing.
    c.VoilaExecutor.iopub_timeout = IOPUB_WAIT
    c.MappingKernelManager.cull_idle_timeout = int(cull_idle)  # a page that vanished without its beacon
    c.MappingKernelManager.cull_interval = max(1, min(60, int(cull_idle) // 2 or 1))
    c.MappingKernelManager.cull_connected = False  # an open page is never culled, however long it stays idle
    c.MappingKernelManager.cull_busy = False  # nor a kernel in the middle of a cell
    c.VoilaConfiguration.multi_kernel_manager_class = studio_kernels()  # + the reaper of kernels whose page is gone
    c.StudioKernels.reap_after = float(reap_after)
    # a page's socket is pinged; one that does not answer (a lost network) is closed, and its kernel reaped
    c.Voila.tornado_settings = {"ws_ping_interval": PING_EVERY * 1000, "ws_ping_timeout": PING_TIMEOUT * 1000}
    return c


# -- the compute pool every page shares -------------------------------------------------------------------
def start_pool(workers: int, port: int | None = None, timeout: float = 120.0,
               wait: bool = True) -> tuple[subprocess.Popen, str]:
    """A local Dask cluster of ``workers`` processes in a process of its own; ``(process, scheduler address)``.

    The process ends with the server, even a killed one (``runner.end_with_parent``), and its workers
    with it.  With ``wait``, returns once the scheduler answers (the workers join behind it; a run
    waits for them); without, at once (the server starts meanwhile: a page's first Run waits for it).
    """
    port = port or free_port()
    address = f"tcp://127.0.0.1:{port}"
    code = f"from workbench.app.serve import _serve_pool; _serve_pool({port}, {int(workers)}, {os.getpid()})"
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL)
    atexit.register(_stop_pool, proc)
    if not wait:
        return proc, address
    ends = time.monotonic() + timeout
    while time.monotonic() < ends:
        if proc.poll() is not None:
            raise RuntimeError(f"the compute pool stopped at start (exit {proc.returncode})")
        if _answers(address, 0.5):
            return proc, address
        time.sleep(0.1)
    _stop_pool(proc)
    raise RuntimeError(f"the compute pool did not start within {timeout:.0f} s")


def _stop_pool(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()  # only the pool this server started
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _answers(address: str, timeout: float) -> bool:
    """Does something listen at a ``tcp://host:port`` address?"""
    parsed = urllib.parse.urlsplit(address if "://" in address else f"tcp://{address}")
    try:
        with socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or 8786), timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


def _serve_pool(port: int, workers: int, parent: int) -> None:  # pragma: no cover - runs in the pool's process
    """The pool's process: a local Dask cluster on 127.0.0.1:``port`` until the server ends."""
    import logging
    import signal
    import threading

    from workbench.core.sim.runner import end_with_parent

    end_with_parent(parent)
    from distributed import LocalCluster

    os.environ.pop("WORKBENCH_SCHEDULER", None)  # its workers play the chunks themselves
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                           scheduler_port=port, dashboard_address=None, silence_logs=logging.ERROR)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        while not done.wait(1.0):
            pass
    finally:
        cluster.close(timeout=10)


def _positive(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative; allowed: an integer >= 0")
    return value


def main(argv: list[str] | None = None) -> int:
    """Serve the studio until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m workbench.app", description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT") or DEFAULT_PORT),
                        help=f"port on 127.0.0.1 (default {DEFAULT_PORT}; 0: any free port)")
    parser.add_argument("--studio", type=Path, default=Path(os.environ.get(ENV_STUDIO) or "studio"),
                        help="the workspace: kept runs, saved card sets, downloads (default ./studio)")
    parser.add_argument("--sweeps", type=Path, action="append", default=None,
                        help="a sweep store, or a directory of them, to list (repeatable; default ./sweeps and "
                             "<studio>/sweeps)")
    parser.add_argument("--cull-idle", type=_positive, default=int(os.environ.get(ENV_CULL) or CULL_IDLE),
                        help=f"end a kernel whose page is gone after this many idle seconds (default {CULL_IDLE}; "
                             "0: never; a closed page ends its kernel at once anyway)")
    parser.add_argument("--max-pages", type=_positive, default=int(os.environ.get(ENV_MAX_PAGES) or MAX_PAGES),
                        help=f"pages that may hold a kernel at once (default {MAX_PAGES}); one more is told the "
                             "studio is full")
    parser.add_argument("--pool", type=_positive, default=int(os.environ.get(ENV_POOL) or POOL),
                        help=f"kernels kept warm for the next pages (default {POOL}; 0: each page starts its own)")
    parser.add_argument("--reap-after", type=_positive, default=int(os.environ.get(ENV_REAP) or REAP_AFTER),
                        help=f"end a kernel this many seconds after its page went away: a closed window, a lost "
                             f"network (default {REAP_AFTER}; 0: only the idle cull)")
    cores = os.cpu_count() or 1
    workers = os.environ.get(ENV_WORKERS)
    parser.add_argument("--workers", type=_positive, default=int(workers) if workers else cores,
                        help=f"processes of the compute pool every page shares (default {cores}, one per core); 0: "
                             "no shared pool, each page plays on its own workers")
    parser.add_argument("--scheduler", default=os.environ.get(ENV_SCHEDULER) or None,
                        help="a Dask scheduler to share among the pages instead of a local pool "
                             "(e.g. tcp://10.0.0.5:8786: a bigger cluster)")
    args = parser.parse_args(argv)
    if args.max_pages < 1:
        parser.error("--max-pages must be at least 1")
    if args.scheduler and not _answers(args.scheduler, 5.0):
        parser.error(f"--scheduler {args.scheduler}: nothing answers there; start it with `dask scheduler` (and "
                     "workers), or leave --scheduler out for a local pool")
    studio = args.studio.resolve()
    sweeps = [p.resolve() for p in (args.sweeps or [Path("sweeps"), studio / "sweeps"])]
    port = args.port or free_port()
    notebook = prepare(studio, sweeps)
    pool = None
    if args.scheduler:
        os.environ["WORKBENCH_SCHEDULER"] = args.scheduler
        shared = f"the pool at {args.scheduler}"
    elif args.workers:
        pool, address = start_pool(args.workers, wait=False)  # it starts while the server does
        os.environ["WORKBENCH_SCHEDULER"] = address  # the kernels inherit it: every page's runs go there
        shared = f"a compute pool of {args.workers} workers"
    else:
        os.environ.pop("WORKBENCH_SCHEDULER", None)
        shared = "no shared pool"
    print(f"Tower games studio: http://127.0.0.1:{port}/   (workspace {studio}; at most {args.max_pages} pages; "
          f"{shared}; Ctrl-C stops)", flush=True)
    warnings.filterwarnings("ignore", message=r"Voila\.mathjax", category=DeprecationWarning)
    try:
        app = studio_voila(args.max_pages)
    except ImportError:  # pragma: no cover - depends on the environment
        print("the studio needs the app extra: pip install 'workbench[app]'", file=sys.stderr)
        return 2
    try:
        app.launch_instance(argv=[str(notebook)], config=voila_config(studio, port, args.cull_idle, args.pool,
                                                                      args.reap_after))
    finally:
        if pool is not None:
            _stop_pool(pool)
    return 0
