"""A class on one server (issue 39, item 3): 30 pages pressing Run together, then 16 windows closed.

    .venv/bin/python benchmarks/studio_class.py            # --pages 30 --windows 16

**Class.**  One server as ``make app`` starts it (its default page cap, its shared compute pool of one
worker per core).  ``--pages`` pages open at once in one headless Chromium, each on a game's default
study (the registered games in turn), one after another; once all are open and usable each presses Run (a second press
when the page asks to confirm a long run).  Reported: pages refused (wanted 0), every run's time
from its press to "done" (the slowest wanted within 90 s), and the memory of the server with its
kernels and its pool (the sum of PSS, the memory each process really holds, and of RSS, which counts
shared libraries once per process), sampled every 2 s: the peak (wanted <= 12 GB), and one kernel's
RSS after its run (what ``serve.PAGE_BYTES`` stands for).

**Closed windows.**  A server capped at ``--windows`` pages; that many pages open in a Chromium of its
own, the next page is refused ("The studio is full"), then that browser's processes are killed (its
windows go, no tab is closed, no beacon is sent).  Reported: seconds until its kernels are gone and
until a new page (another browser) opens with the studio (wanted within 30 s).

The machine's load is printed before and after: the figures depend on what else runs.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "app"))
sys.path.insert(0, str(ROOT))

OPEN = 600_000  # ms a page may take to open on a loaded machine
RUN = 900_000  # ms a run may take



def _get(url: str) -> str:
    try:
        with urllib.request.urlopen(url + "?page=runs", timeout=60) as answer:
            return answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.read().decode()


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f} / {five:.1f} / {fifteen:.1f} on {os.cpu_count()} cores"


def _tree(pid: int) -> list:
    import psutil

    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _memory(pid: int) -> tuple[int, int]:
    """(PSS, RSS) in bytes of a process and all its descendants (the server, its kernels, its pool)."""
    import psutil

    pss = rss = 0
    for proc in _tree(pid):
        try:
            info = proc.memory_full_info()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        pss += getattr(info, "pss", info.rss)
        rss += info.rss
    return pss, rss


def _kernel_rss(pid: int) -> list[int]:
    import psutil

    found = []
    for proc in _tree(pid):
        try:
            if proc.ppid() == pid and "ipykernel" in " ".join(proc.cmdline()):
                found.append(proc.memory_info().rss)
        except psutil.NoSuchProcess:
            continue
    return found


class Sampler(threading.Thread):
    """The server tree's memory every ``every`` seconds, and its peak."""

    def __init__(self, pid: int, every: float = 2.0) -> None:
        super().__init__(daemon=True)
        self.pid, self.every = pid, every
        self.peak = (0, 0)
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(self.every):
            pss, rss = _memory(self.pid)
            self.peak = (max(self.peak[0], pss), max(self.peak[1], rss))


def gb(n: int) -> str:
    return f"{n / 2**30:.2f} GB"


def class_of(pages: int, executable: str, playwright) -> bool:
    from studio_driver import StudioServer

    from workbench.app.serve import MAX_PAGES
    from workbench.core.model import game_names

    games = game_names()
    server = StudioServer(Path(tempfile.mkdtemp()) / "ws").start()
    sampler = Sampler(server.proc.pid)
    sampler.start()
    browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
    ok = True
    try:
        context = browser.new_context(viewport={"width": 1300, "height": 1600})
        opened = time.perf_counter()
        tabs = []
        refused = 0
        for i in range(pages):  # one after another (a class arrives over a minute), all open at once after
            page = context.new_page()
            page.set_default_timeout(RUN)
            page.goto(server.url + f"?game={games[i % len(games)]}", wait_until="commit", timeout=OPEN)
            page.locator(".wb-run, .wb-studio-full").first.wait_for(timeout=OPEN)
            refused += page.locator(".wb-studio-full").count()
            tabs.append(page)
        usable = time.perf_counter() - opened
        print(f"class: {pages} pages on one server (cap {MAX_PAGES}): {refused} refused; all usable "
              f"{usable:.0f} s after the first was opened", flush=True)
        ok &= refused == 0
        pressed: dict[int, float] = {}
        for i, page in enumerate(tabs):
            page.locator(".wb-run").first.click()
            pressed[i] = time.perf_counter()
        # a run estimated long asks for a second press, as a person would give it
        for page in tabs:
            page.locator(".wb-status [data-state=confirm], .wb-status [data-state=running], "
                         ".wb-status [data-state=done], .wb-status [data-state=error]").first.wait_for(timeout=RUN)
            if page.locator(".wb-status [data-state=confirm]").count():
                page.locator(".wb-run").first.click()
        took, states = {}, {}
        pending = set(range(pages))
        ends = time.perf_counter() + RUN / 1000
        while pending and time.perf_counter() < ends:
            for i in sorted(pending):
                state = tabs[i].locator(".wb-status .wb-state").first.get_attribute("data-state")
                if state in ("done", "error", "stopped"):
                    took[i], states[i] = time.perf_counter() - pressed[i], state
                    pending.discard(i)
            time.sleep(0.5)
        finished = sum(1 for s in states.values() if s == "done")
        slowest = max(took.values(), default=float("nan"))
        study = sorted({tabs[i].locator(".wb-study-picker select option:checked").inner_text().replace("\xa0", " ")
                        for i in range(min(pages, len(games)))})
        kernels = _kernel_rss(server.proc.pid)
        pss, rss = _memory(server.proc.pid)
        sampler.done.set()
        print(f"class: {finished} of {pages} runs done ({len(pending)} unfinished, "
              f"{sum(1 for s in states.values() if s != 'done')} ended otherwise); slowest {slowest:.0f} s from its "
              f"press, fastest {min(took.values(), default=float('nan')):.0f} s, median "
              f"{sorted(took.values())[len(took) // 2] if took else float('nan'):.0f} s", flush=True)
        print(f"class: the games' default studies: {'; '.join(study)} ({', '.join(games)})", flush=True)
        print(f"class: memory of server + kernels + pool: peak {gb(sampler.peak[0])} PSS ({gb(sampler.peak[1])} RSS); "
              f"after the runs {gb(pss)} PSS ({gb(rss)} RSS); a kernel after its run: RSS median "
              f"{sorted(kernels)[len(kernels) // 2] / 2**20:.0f} MB, max {max(kernels) / 2**20:.0f} MB "
              f"({len(kernels)} kernels)", flush=True)
        ok &= finished == pages and sampler.peak[0] <= 12 * 2**30
        return ok
    finally:
        sampler.done.set()
        browser.close()
        server.stop()


def closed_windows(windows: int, executable: str, playwright) -> bool:
    from studio_driver import KillableBrowser, StudioServer, kernels

    server = StudioServer(Path(tempfile.mkdtemp()) / "ws", env={"WORKBENCH_STUDIO_MAX_PAGES": str(windows)}).start()
    killable = KillableBrowser(executable)
    other = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
    try:
        browser = playwright.chromium.connect_over_cdp(killable.start())
        tabs = []
        for _ in range(windows):
            page = browser.new_context().new_page()  # a window of its own
            page.goto(server.url + "?page=runs", wait_until="commit", timeout=OPEN)
            page.locator(".wb-tabs").first.wait_for(timeout=OPEN)  # drawn: its socket is connected
            tabs.append(page)
        held = set(kernels(server))
        full = "The studio is full" in _get(server.url)
        killable.kill()
        gone = time.perf_counter()
        freed = None
        while time.perf_counter() - gone < 120:
            if len(held & set(kernels(server))) <= len(held) - windows:  # the pre-heated kernel waits on
                freed = time.perf_counter() - gone
                break
            time.sleep(0.2)
        page = other.new_page()
        page.goto(server.url + "?page=runs", wait_until="commit", timeout=OPEN)
        page.locator(".wb-tabs, .wb-studio-full").first.wait_for(timeout=OPEN)
        opened = time.perf_counter() - gone
        refused = page.locator(".wb-studio-full").count() > 0
        print(f"closed windows: {windows} pages open (cap {windows}), the next refused: {full}; browser killed → "
              f"its kernels gone after {freed if freed is None else round(freed, 1)} s, a new page "
              f"{'REFUSED' if refused else 'open'} {opened:.1f} s after the kill", flush=True)
        return full and not refused and freed is not None and freed <= 30
    finally:
        killable.kill()
        other.close()
        server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=30)
    parser.add_argument("--windows", type=int, default=16)
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright
    from studio_driver import chromium

    executable = chromium()
    print(f"before: {_load()}", flush=True)
    playwright = sync_playwright().start()
    try:
        ok = class_of(args.pages, executable, playwright) if args.pages else True
        print(f"between: {_load()}", flush=True)
        ok &= closed_windows(args.windows, executable, playwright) if args.windows else True
    finally:
        playwright.stop()
    print(f"after: {_load()}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
