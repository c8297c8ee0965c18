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

__all__ = ["HERE", "NOTEBOOK", "free_port", "main", "prepare", "voila_config"]

HERE = Path(__file__).resolve().parent
NOTEBOOK = HERE / "studio.ipynb"
TEMPLATES = HERE / "jupyter"  # on JUPYTER_PATH: voila/templates/workbench
DEFAULT_PORT = 8866
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


def voila_config(studio: Path, port: int) -> object:
    """Voilà's settings: loopback only, our template, no CDN MathJax, downloads below the workspace only."""
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
    c.VoilaConfiguration.preheat_kernel = True  # a kernel waits with everything imported: the page opens at once
    c.VoilaConfiguration.default_pool_size = 1
    return c


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
    args = parser.parse_args(argv)
    studio = args.studio.resolve()
    sweeps = [p.resolve() for p in (args.sweeps or [Path("sweeps"), studio / "sweeps"])]
    port = args.port or free_port()
    notebook = prepare(studio, sweeps)
    print(f"Tower games studio: http://127.0.0.1:{port}/   (workspace {studio}; Ctrl-C stops)", flush=True)
    warnings.filterwarnings("ignore", message=r"Voila\.mathjax", category=DeprecationWarning)
    try:
        from voila.app import Voila
    except ImportError:  # pragma: no cover - depends on the environment
        print("the studio needs the app extra: pip install 'workbench[app]'", file=sys.stderr)
        return 2
    Voila.launch_instance(argv=[str(notebook)], config=voila_config(studio, port))
    return 0
