"""The studio's start and first results (issue 20, item 8), as a designer meets them.

    .venv/bin/python benchmarks/studio_start.py

Times ``workbench compile`` (what ``make app`` runs first), the server from start to answering, then
for each game a page opened at ``?game=GAME`` (its default study) until Run is usable, and Run until
the first table shows.  Chromium is Debian's (``tests/app/studio_driver.py`` finds it); its own launch
is not counted.  The bar: the first page usable within 8 s of ``make app``; a first table within 5 s
of Run.  Run it on a quiet machine: a loaded one measures the other work.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "app"))
sys.path.insert(0, str(ROOT))

GAMES = ("duel", "dietower", "babel", "babylon", "rescue")


def main() -> int:
    from playwright.sync_api import sync_playwright
    from studio_driver import StudioServer, chromium

    started = time.perf_counter()
    subprocess.run([str(ROOT / ".venv" / "bin" / "workbench"), "compile"], check=True, capture_output=True)
    compiled = time.perf_counter() - started
    root = Path(tempfile.mkdtemp())
    started = time.perf_counter()
    server = StudioServer(root / "ws").start()
    answering = time.perf_counter() - started
    print(f"workbench compile {compiled:.1f} s; the server answers {answering:.1f} s after it starts", flush=True)
    pw = sync_playwright().start()
    browser = pw.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
    try:
        for game in GAMES:
            page = browser.new_page(viewport={"width": 1300, "height": 2000})
            opened = time.perf_counter()
            page.goto(server.url + f"?game={game}", wait_until="commit")
            page.locator(".wb-run").first.wait_for(timeout=300_000)
            usable = time.perf_counter() - opened
            study = page.locator(".wb-study-picker select option:checked").inner_text()
            ran = time.perf_counter()
            page.locator(".wb-run").first.click()
            page.locator("[data-table] table").first.wait_for(timeout=300_000)
            first = time.perf_counter() - ran
            line = f"{game}, {study}: page usable {usable:.1f} s after opening; first table {first:.2f} s after Run"
            if game == GAMES[0]:
                line += f"; {compiled + answering + usable:.1f} s after `make app` began"
            print(line, flush=True)
            page.close(run_before_unload=True)
    finally:
        browser.close()
        pw.stop()
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
