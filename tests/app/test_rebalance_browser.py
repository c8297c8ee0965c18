"""The studio's Rebalance page as a person uses it: headless Chromium against `python -m workbench.app`.

The toy *Fair toss* (``tests/app/test_rebalance_page.py``: the first seat wins 60 %; lead power 3 or
answer power 4 makes it 50 %, worked out by hand) is rebalanced from the page's form with the
smallest budget, the best proposal applied to the Cards page's table, and the ordinary what-if run
on it; the what-if's delta shown equals the library's for the same seed.  A reversed band is refused
beside its metric first.  The page asks nothing of any host but 127.0.0.1 and logs no console error.
"""

from __future__ import annotations

import polars as pl
import pytest
from studio_driver import Recorder, StudioServer, chromium, require, shot

from tests.app.test_rebalance_page import FAIR, MODEL, MODULE
from workbench.core.design.cardtable import what_if
from workbench.core.stats.compare import paired_verdicts

pytestmark = pytest.mark.xdist_group("browser")  # one worker drives the browser
CHROMIUM = chromium()  # no browser: the module skips with one line (fails when WORKBENCH_BROWSER_TESTS=required)
OPEN = 300_000  # ms: a page's first element after the URL was opened (a loaded machine starts kernels slowly)
STEP = 120_000  # ms: anything else
QUERY = ("?game=fairtoss&page=rebalance&budget=3400&verify_share=40&games=100&stages=2&verify=2&margin=5&tiers=random"
         "&master_seed=0")
EDITS = {"Lead card (lead): power 4 → 3": FAIR[0], "Answer card (answer): power 3 → 4": FAIR[1]}  # by hand


def test_rebalance_from_the_form_then_apply_the_best_and_run_the_what_if(tmp_path):
    executable = require(CHROMIUM)
    from playwright.sync_api import sync_playwright

    server = StudioServer(tmp_path / "workspace", env={"WORKBENCH_GAMES": f"tests.toygame.model,{MODULE}"}).start()
    playwright = sync_playwright().start()
    browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
    try:
        page = browser.new_page(viewport={"width": 1300, "height": 2000})
        page.set_default_timeout(STEP)
        page.set_default_navigation_timeout(OPEN)
        recorder = Recorder(page)
        page.goto(server.url + QUERY)
        rebalance = page.locator(".wb-page-rebalance")
        rebalance.locator(".wb-run").first.wait_for(timeout=OPEN)
        low = rebalance.locator(".wb-band-first_seat .wb-band-low input")
        assert low.input_value() == "45"  # the game's declared target
        assert rebalance.locator(".wb-band-first_seat .wb-band-high input").input_value() == "55"
        low.fill("60")  # a reversed band: refused beside its metric, in words
        low.press("Tab")
        refused = rebalance.locator(".wb-band-first_seat .wb-field-msg")
        refused.wait_for()
        assert "the band is reversed" in refused.inner_text()
        low.fill("45")
        low.press("Tab")
        refused.wait_for(state="detached")
        rebalance.locator(".wb-size-line[data-seconds]").first.wait_for()  # the size before Run
        rebalance.locator(".wb-run").click()
        rebalance.locator(".wb-status [data-state=done]").wait_for()
        block = rebalance.locator("[data-table=proposals] table")
        block.locator("thead th[data-column='Edits']").wait_for()  # the tables come just after the status line
        headers = [th.get_attribute("data-column") for th in block.locator("thead th").all()]
        first = block.locator("tbody tr").first.locator("td")
        edits = first.nth(headers.index("Edits")).inner_text()
        assert edits in EDITS
        assert first.nth(headers.index("Holds at every tier")).inner_text() == "yes"
        assert rebalance.locator("[data-table=verification]").count() == 1
        shot(page, "20-rebalance-proposals")

        rebalance.locator(".wb-apply").click()  # the Cards page opens with the proposal in its table
        cards = page.locator(".wb-page-cards")
        note = cards.locator(".wb-cards-note [data-applied='1']")
        note.wait_for()
        (key, change), = EDITS[edits].items()
        (column, value), = change.items()
        cell = cards.locator(f".wb-edit-{column}.wb-row-{key}.wb-cell-changed input")
        assert cell.input_value() == value
        cards.locator(".wb-run").click()
        cards.locator(".wb-status [data-state=done]").wait_for()
        delta = cards.locator(".wb-whatif-delta")
        delta.wait_for()
        lib = what_if(MODEL, EDITS[edits], agents="random,random", games=2000, seed=0)
        row = paired_verdicts(lib.baseline, lib.variant).filter(pl.col("metric") == "first_seat_win").row(0, named=True)
        assert f"{100 * row['diff']:+.1f} pts" in delta.inner_text()  # the library's delta, same seeds
        assert -15 < 100 * row["diff"] < -5  # 60 % → 50 %, by hand
        shot(page, "21-rebalance-applied-what-if")
        assert not recorder.foreign(), f"the page asked other hosts: {recorder.foreign()}"
        assert not recorder.errors(), f"console errors: {recorder.errors()}"
        assert not recorder.warnings(), f"console warnings: {recorder.warnings()}"
        text = page.locator(".wb-studio").inner_text()
        assert "Traceback" not in text
        page.close(run_before_unload=True)
    finally:
        browser.close()
        playwright.stop()
        server.stop()
