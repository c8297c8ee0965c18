"""Driving the studio in headless Chromium: start the server, open pages, record what the page asks for.

* :func:`chromium` finds Debian's ``chromium-headless-shell`` or ``chromium`` (or ``WORKBENCH_CHROMIUM``);
  without one the browser tests skip with one line — unless ``WORKBENCH_BROWSER_TESTS=required``
  (``.ci/run`` sets it), when a missing browser is a failure, so CI never skips them.
* :class:`StudioServer` runs ``python -m workbench.app`` on a free loopback port with its own
  workspace and stops it (only the process it started).
* :class:`Recorder` keeps every request and console message of a page, so a test can assert the
  page asked nothing of any host but 127.0.0.1 and logged no error.
* :func:`shot` writes a screenshot under ``reports/app/`` for a reviewer.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SHOTS = REPO / "reports" / "app"
REQUIRED = os.environ.get("WORKBENCH_BROWSER_TESTS", "") == "required"


# Debian's headless shell first: the same Blink without the desktop browser around it, it draws the same pages
# for half the CPU (measured on the studio's browser tests: 118 -> 57 CPU s).
BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser")


def chromium() -> str | None:
    """The Chromium executable; without one, skip the module with one clear line.

    When the browser tests are required (``WORKBENCH_BROWSER_TESTS=required``) a missing browser is
    not skipped: this returns None and :func:`require` fails each test, the rest of the suite runs.
    """
    found = os.environ.get("WORKBENCH_CHROMIUM") or next(
        (p for p in (shutil.which(n) for n in BROWSERS) if p), None)
    why = None
    if not found:
        why = ("no Chromium here (Debian: apt-get install -y chromium-headless-shell, or chromium; "
               "or set WORKBENCH_CHROMIUM)")
    else:
        try:
            import playwright.sync_api  # noqa: F401 - the test extra installs it
        except ImportError:
            why = "the playwright package is missing (pip install -e '.[test]')"
    global MISSING
    if why:
        if REQUIRED:
            MISSING = f"browser tests are required here (WORKBENCH_BROWSER_TESTS=required) but {why}"
            return None
        pytest.skip(f"browser tests skipped: {why}", allow_module_level=True)  # one line for the whole module
    return found


MISSING = ""


def require(executable: str | None) -> str:
    """The executable found by :func:`chromium`, or fail the test saying what is missing."""
    if not executable:
        pytest.fail(MISSING, pytrace=False)
    return executable


def free_port() -> int:
    from workbench.app.serve import free_port as port

    return port()


@dataclass
class StudioServer:
    """``python -m workbench.app`` on a free loopback port, with its own workspace."""

    workspace: Path
    env: dict[str, str] = field(default_factory=dict)
    port: int = 0
    proc: subprocess.Popen | None = None
    log: Path | None = None
    started: float = 0.0
    ready_after: float = 0.0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self, timeout: float = 240) -> StudioServer:
        self.port = free_port()
        self.log = self.workspace.parent / f"studio-server-{self.port}.log"
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
               **self.env}
        self.started = time.perf_counter()
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "workbench.app", "--port", str(self.port), "--studio",
                                          str(self.workspace), "--sweeps", str(self.workspace / "sweeps")],
                                         cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
        while time.perf_counter() - self.started < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the studio server stopped: {self.log.read_text()[-3000:]}")
            try:
                urllib.request.urlopen(self.url + "voila/static/voila-style.js", timeout=2)
                self.ready_after = time.perf_counter() - self.started
                return self
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the studio server did not answer within {timeout} s: {self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # only the server this test started
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


class Recorder:
    """Every request and console message of one page."""

    def __init__(self, page: Any) -> None:
        self.requests: list[str] = []
        self.failed: list[str] = []
        self.console: list[tuple[str, str]] = []
        page.on("request", lambda r: self.requests.append(r.url))
        page.on("requestfailed", lambda r: self.failed.append(f"{r.url}: {r.failure}"))
        page.on("console", lambda m: self.console.append((m.type, m.text)))
        page.on("pageerror", lambda e: self.console.append(("error", f"page error: {e}")))

    def foreign(self) -> list[str]:
        """Requests to anything but the loopback studio (data: and blob: URLs are in the page itself)."""
        return [u for u in self.requests
                if not u.startswith(("http://127.0.0.1:", "ws://127.0.0.1:", "data:", "blob:", "file://"))]

    def errors(self) -> list[str]:
        return [text for kind, text in self.console if kind == "error"]

    def warnings(self) -> list[str]:
        """Console warnings (a front-end package loaded against versions the page does not ship, for one)."""
        return [text for kind, text in self.console if kind == "warning"]


def shot(page: Any, name: str) -> Path:
    """A screenshot of the page as it stands, under reports/app/ (ignored by git)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def explain(page: Any, recorder: Recorder, server: StudioServer, where: str) -> str:
    """What a page and its server showed when a wait ran out: the status, note and size lines, the page's console
    errors, the server's kernels and the end of its log — so a failure on CI says why, not only that it waited."""
    def text(selector: str) -> str:
        try:
            found = page.locator(selector).first
            if not found.count():
                return "(none)"
            return f"{found.inner_html(timeout=5_000)[:400]}"
        except Exception as exc:  # noqa: BLE001 - a page that no longer answers is itself the finding
            return f"(unreadable: {type(exc).__name__})"

    def state(selector: str) -> str:
        try:
            found = page.locator(selector).first
            return ("disabled" if found.is_disabled(timeout=5_000) else "enabled") if found.count() else "(none)"
        except Exception as exc:  # noqa: BLE001
            return f"(unreadable: {type(exc).__name__})"

    log = server.log.read_text(errors="replace") if server.log is not None and server.log.exists() else ""
    lines = [line for line in log.splitlines() if "studio" in line or "Kernel" in line or "rror" in line]
    return (f"{where}\n  status: {text('.wb-status')}\n  note: {text('.wb-note')}\n  size: {text('.wb-size')}\n"
            f"  run button: {state('.wb-run:visible')}, stop button: {state('.wb-stop:visible')}\n"
            f"  console errors: {recorder.errors()[-8:]}\n  kernels alive: {kernels(server)}\n"
            "  server log:\n    " + "\n    ".join(lines[-25:]))


def kernels(server: StudioServer) -> list[int]:
    """The server's kernel processes (its children running ipykernel), from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if parent == server.proc.pid and b"ipykernel" in command:
            found.append(int(entry.name))
    return found


@contextmanager
def studio_session(workspace: Path, env: dict[str, str] | None = None) -> Iterator[tuple[StudioServer, Any]]:
    """A studio server on ``workspace`` and a headless Chromium context at 1,300 × 2,000, both ended after."""
    executable = require(chromium())
    from playwright.sync_api import sync_playwright

    server = StudioServer(workspace, env=dict(env or {})).start()
    playwright = sync_playwright().start()
    browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
    context = browser.new_context(viewport={"width": 1300, "height": 2000})
    try:
        yield server, context
    finally:
        context.close()
        browser.close()
        playwright.stop()
        server.stop()


class KillableBrowser:
    """A Chromium of its own process group, driven over CDP, that can be killed as a crash or a closed window."""

    def __init__(self, executable: str) -> None:
        self.executable = executable
        self.proc: subprocess.Popen | None = None
        self.profile = tempfile.mkdtemp(prefix="wb-killable-")

    def start(self, timeout: float = 120) -> str:
        """Start it; its CDP address."""
        log = Path(self.profile) / "stderr.log"  # a file, not a pipe: nobody reads a pipe while it runs (a full
        with open(log, "w") as err:  # one would block the browser) and a pipe left open warns at exit
            self.proc = subprocess.Popen([self.executable, "--headless", "--no-sandbox", "--remote-debugging-port=0",
                                          f"--user-data-dir={self.profile}", "about:blank"],
                                         stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
        ends = time.monotonic() + timeout
        port_file = Path(self.profile) / "DevToolsActivePort"
        while time.monotonic() < ends:
            if port_file.is_file() and port_file.read_text().strip():
                port = port_file.read_text().split()[0]
                return f"http://127.0.0.1:{port}"
            if self.proc.poll() is not None:
                raise RuntimeError(f"chromium stopped: {log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.05)
        raise RuntimeError("chromium gave no debugging port")

    def kill(self) -> None:
        """SIGKILL to the browser's own process group (only the processes this started)."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait(30)


def until(check, ceiling: float = 120.0, every: float = 0.2) -> bool:
    """Poll ``check`` until true or ``ceiling`` seconds pass; whether it became true."""
    ends = time.monotonic() + ceiling
    while time.monotonic() < ends:
        if check():
            return True
        time.sleep(every)
    return check()
