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
handler never sets; :class:`StudioPage` sets it, so the kernel is shut down at once.  A kernel whose
page vanished without a word (a crashed browser, a dropped network) is culled once it has had no
connection and no activity for ``--cull-idle`` seconds (default :data:`CULL_IDLE`); a page that is
open is never culled.  At most ``--max-pages`` pages (default :data:`MAX_PAGES`) hold a kernel at
once: one more gets a short page saying the studio is full and what to do, and no kernel.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import sys
import warnings
from pathlib import Path

from workbench.app.workspace import ENV_STUDIO, ENV_SWEEPS

__all__ = ["CULL_IDLE", "HERE", "MAX_PAGES", "NOTEBOOK", "free_port", "full_page", "main", "prepare", "voila_config"]

HERE = Path(__file__).resolve().parent
NOTEBOOK = HERE / "studio.ipynb"
TEMPLATES = HERE / "jupyter"  # on JUPYTER_PATH: voila/templates/workbench
DEFAULT_PORT = 8866
CULL_IDLE = 600  # seconds without a connection and without activity before a kernel is ended
MAX_PAGES = 16  # pages holding a kernel at once (a studio kernel with every game loaded takes ~0.3-0.5 GB)
POOL = 1  # kernels kept warm for the next pages (0: each page starts its own kernel when it opens)
ENV_CULL, ENV_MAX_PAGES, ENV_POOL = "WORKBENCH_STUDIO_CULL_IDLE", "WORKBENCH_STUDIO_MAX_PAGES", "WORKBENCH_STUDIO_POOL"
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
            "the page closes — then reload this page.</p><p style='color:#666'>The limit is set when the "
            "server starts: <code>python -m workbench.app --max-pages N</code>.</p></body></html>"
            )


def studio_voila(max_pages: int) -> type:
    """Voilà with the studio's page handler (:class:`StudioPage`: sets the _xsrf cookie, caps the open pages)."""
    from voila.app import Voila
    from voila.tornado.handler import TornadoVoilaHandler

    class StudioPage(TornadoVoilaHandler):
        """Voilà's page, plus the _xsrf cookie its closing beacon needs, and no kernel beyond ``max_pages``."""

        async def prepare(self) -> None:
            await super().prepare()
            self.xsrf_token  # noqa: B018 - reading it sets the _xsrf cookie: the page's shutdown beacon is accepted

        async def get(self, path: str | None = None) -> None:
            manager = self.kernel_manager
            pooled = manager.get_pool_size(self.notebook_path) if hasattr(manager, "get_pool_size") else 0
            open_pages = max(0, len(manager.list_kernel_ids()) - pooled)
            if open_pages >= max_pages:
                self.log.warning("studio full: %d pages hold a kernel (cap %d); page refused", open_pages, max_pages)
                self.set_status(503)
                self.set_header("Content-Type", "text/html; charset=utf-8")
                self.set_header("Cache-Control", "no-store")
                self.finish(full_page(open_pages, max_pages))
                return
            await super().get(path)

    class StudioVoila(Voila):
        def init_handlers(self) -> list:
            return [(h[0], StudioPage, *h[2:]) if len(h) > 1 and h[1] is TornadoVoilaHandler else h
                    for h in super().init_handlers()]

    return StudioVoila


def voila_config(studio: Path, port: int, cull_idle: int = CULL_IDLE, pool: int = POOL) -> object:
    """Voilà's settings: loopback only, our template, no CDN MathJax, downloads below the workspace only.

    Kernels with no page connected and no activity for ``cull_idle`` seconds are ended (0: never);
    ``pool`` kernels wait pre-heated for the next pages (0: none).
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
    c.MappingKernelManager.cull_idle_timeout = int(cull_idle)  # a page that vanished without its beacon
    c.MappingKernelManager.cull_interval = max(1, min(60, int(cull_idle) // 2 or 1))
    c.MappingKernelManager.cull_connected = False  # an open page is never culled, however long it stays idle
    c.MappingKernelManager.cull_busy = False  # nor a kernel in the middle of a cell
    return c


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
    args = parser.parse_args(argv)
    if args.max_pages < 1:
        parser.error("--max-pages must be at least 1")
    studio = args.studio.resolve()
    sweeps = [p.resolve() for p in (args.sweeps or [Path("sweeps"), studio / "sweeps"])]
    port = args.port or free_port()
    notebook = prepare(studio, sweeps)
    print(f"Tower games studio: http://127.0.0.1:{port}/   (workspace {studio}; at most {args.max_pages} pages; "
          "Ctrl-C stops)", flush=True)
    warnings.filterwarnings("ignore", message=r"Voila\.mathjax", category=DeprecationWarning)
    try:
        app = studio_voila(args.max_pages)
    except ImportError:  # pragma: no cover - depends on the environment
        print("the studio needs the app extra: pip install 'workbench[app]'", file=sys.stderr)
        return 2
    app.launch_instance(argv=[str(notebook)], config=voila_config(studio, port, args.cull_idle, args.pool))
    return 0
