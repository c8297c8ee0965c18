"""The studio as a person uses it: headless Chromium against `python -m workbench.app` on a loopback port.

One server per module (its own workspace), one page per test.  Every number a test reads from the
page is compared with the one the library computes for the same seed; every page must ask nothing
of any host but 127.0.0.1 and log no console error.  Screenshots of each step go to reports/app/.
"""

from __future__ import annotations

import json
import re
import time
import zipfile
from fractions import Fraction
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from studio_driver import SHOTS, Recorder, StudioServer, chromium, require, shot

from workbench.core import metrics
from workbench.core.report import display_frame
from workbench.core.runner import simulate

pytestmark = pytest.mark.xdist_group("browser")  # one worker drives the browser: the tests do not compete
CHROMIUM = chromium()  # no browser: the module skips with one line (fails when WORKBENCH_BROWSER_TESTS=required)

VIEW = {"width": 1300, "height": 2000}
TIMINGS = SHOTS / "timings.json"
# Every wait is on an event (an element appearing, a status turning "done"), never a fixed sleep; the
# ceilings hold on a loaded 2-core machine, where a fresh page's kernel alone can take a minute to start.
OPEN = 300_000  # ms: a page's first element after the URL was opened
STEP = 240_000  # ms: anything else the page is waited for (a run, a table, a chart)


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    executable = require(CHROMIUM)
    from playwright.sync_api import sync_playwright

    server = StudioServer(tmp_path_factory.mktemp("studio") / "workspace").start()
    playwright = sync_playwright().start()
    browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
    try:
        yield server, browser
    finally:
        browser.close()
        playwright.stop()
        server.stop()


def _note_timing(name: str, seconds: float) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    found = json.loads(TIMINGS.read_text()) if TIMINGS.is_file() else {}
    found[name] = round(seconds, 2)
    TIMINGS.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")


def _open(studio, query: str, ready: str):
    """A new page at the studio's URL with ``query``, once ``ready`` (a selector) shows; and its recorder."""
    server, browser = studio
    page = browser.new_page(viewport=VIEW, accept_downloads=True)
    page.set_default_timeout(STEP)
    page.set_default_navigation_timeout(OPEN)
    recorder = Recorder(page)
    started = time.perf_counter()
    page.goto(server.url + query)
    page.locator(ready).first.wait_for(timeout=OPEN)
    return page, recorder, time.perf_counter() - started


def _offline_and_clean(recorder: Recorder) -> None:
    assert recorder.requests, "the recorder saw no request"
    assert not recorder.foreign(), f"the page asked other hosts: {recorder.foreign()}"
    assert not recorder.errors(), f"console errors: {recorder.errors()}"


def _fill(page, selector: str, value: object) -> None:
    box = page.locator(f"{selector} input").first
    box.fill(str(value))
    box.press("Tab")  # a number box sends its value when it loses focus


def _cell(scope, table: str, column: str, row: int = 0) -> str:
    """The text of one cell of a shown table (by its name and column) in a page or a part of one."""
    block = scope.locator(f"[data-table={table}] table")
    block.locator("thead th", has_text=column).first.wait_for()  # tables are drawn after the status line
    headers = block.locator("thead th").all_inner_texts()
    return block.locator("tbody tr").nth(row).locator("td").nth(headers.index(column)).inner_text()


def _wait_done(page) -> None:
    page.locator(".wb-status [data-state=done]").first.wait_for()


def _no_traceback(page) -> None:
    text = page.locator(".wb-studio").inner_text()
    assert "Traceback" not in text and 'File "' not in text


# -- the duel: a study from the generated form ---------------------------------------------------------
def test_duel_study_from_the_form_shows_the_librarys_first_seat_rate(studio):
    page, recorder, opened = _open(studio, "?game=duel", ".wb-run")
    _note_timing("page usable after opening (duel studies)", opened)
    assert "(duel)" in page.locator(".wb-game-picker select option:checked").inner_text()
    assert page.locator(".wb-study-picker select option:checked").inner_text().endswith("(outcomes)")
    tip = page.locator(".wb-param-battlefield .wb-label").get_attribute("title")
    assert tip.startswith("battlefield (data/duel/battlefields.csv)") and "free_steppe" in tip  # the Param's help
    assert page.locator(".wb-param-hand_size .widget-slider").count() == 1  # a narrow range is a slider
    page.locator(".wb-param-battlefield select").select_option("free_steppe")
    page.locator(".wb-param-deck select").select_option("unlimited")
    _fill(page, ".wb-setting-games", 2000)
    shot(page, "01-duel-form")
    started = time.perf_counter()
    page.locator(".wb-run").click()
    _wait_done(page)
    page.locator("[data-table=first_mover]").wait_for()
    _note_timing("first result of the duel study after Run (2,000 games)", time.perf_counter() - started)
    bar = page.locator(".wb-progress progress, .wb-progress .progress-bar").first
    assert bar.count() == 1
    status = page.locator(".wb-status [data-state=done]")
    assert status.get_attribute("data-done") == status.get_attribute("data-total") == "2000"

    frame = simulate("duel", 2000, params={"battlefield": "free_steppe", "deck": "unlimited"}, seed=0, progress=False)
    expected = display_frame(metrics.first_mover(frame)).row(0, named=True)
    assert _cell(page, "first_mover", "first_mover") == expected["first_mover"]  # e.g. 52.7% [50.5–54.9]
    assert _cell(page, "first_mover", "first_mover_n") == expected["first_mover_n"]
    assert page.locator(".wb-games").get_attribute("data-games") == "2000"
    page.locator("figure.wb-chart svg").first.wait_for()
    assert page.locator("figure.wb-chart").count() == page.locator("figure.wb-chart svg").count() >= 2
    page.locator(".wb-downloads-ready").wait_for()
    assert {a.get_attribute("data-file") for a in page.locator(".wb-downloads-ready a").all()} == \
        {"games.csv", "games.parquet", "report.zip"}
    shot(page, "02-duel-result")

    # an impossible combination is named in the page; the shown results stay
    _fill(page, ".wb-param-start_tower", 500)
    page.locator(".wb-run").click()
    error = page.locator(".wb-note [data-kind=error]")
    error.wait_for()
    assert "tower" in error.inner_text() and "win tower" in error.inner_text()
    assert _cell(page, "first_mover", "first_mover") == expected["first_mover"]
    _no_traceback(page)
    shot(page, "03-duel-impossible-parameters")
    _offline_and_clean(recorder)
    page.close(run_before_unload=True)  # Voilà then shuts the page's kernel down


# -- the duel's cards: edit, what-if, save ---------------------------------------------------------------
def test_card_edit_what_if_shows_the_librarys_delta_and_saves_a_new_set(studio, tmp_path):
    from workbench.games.duel.data import CARDS_CSV
    from workbench.games.duel.whatif import what_if

    shipped = CARDS_CSV.read_bytes()
    page, recorder, _ = _open(studio, "?game=duel&page=cards", ".wb-card-grid")
    page.locator(".wb-card-filter input").fill("dragon")
    page.locator(".wb-card-filter input").press("Enter")
    cost = page.locator(".wb-edit-cost.wb-row-dragon input")
    cost.wait_for()
    assert cost.input_value() == "25"
    cost.fill("20")
    cost.press("Tab")
    page.locator("[data-table=changes]").wait_for()
    assert page.locator("[data-table=changes] tr.wb-changed").count() == 1  # the changed row, highlighted
    assert page.locator(".wb-edit-cost.wb-row-dragon.wb-cell-changed").count() == 1
    assert page.locator(".wb-changed-row").count() >= 1
    _fill(page, ".wb-setting-games", 2000)
    page.locator(".wb-run").click()
    _wait_done(page)
    page.locator(".wb-whatif-delta").wait_for()
    shot(page, "04-cards-what-if")

    lib = what_if({}, card_edits={"dragon": {"cost": 20}}, agents=("random", "random"), games=2000, seed=0)
    row = display_frame(lib.outcomes).filter(pl.col("metric") == "first_seat_win").row(0, named=True)
    first = lib.outcomes.filter(pl.col("metric") == "first_seat_win").row(0, named=True)
    assert _cell(page, "what_if", "diff") == row["diff"]  # e.g. +0.2 pts [-2.9, +3.3]
    assert f"{100 * first['diff']:+.1f} pts" in page.locator(".wb-whatif-delta").inner_text()

    page.locator(".wb-card-save-name input").fill("cheap-dragon")
    page.locator(".wb-card-save-name input").press("Tab")
    page.locator(".wb-card-save").click()
    saved = page.locator(".wb-cards-note [data-saved]")
    saved.wait_for()
    path = Path(saved.get_attribute("data-saved"))
    dragon = next(line for line in path.read_text().splitlines() if ",dragon," in line)
    assert path.name == "cheap-dragon.csv" and dragon.split(",")[5] == "20"
    page.locator(".wb-card-save").click()  # the same name again: refused, nothing overwritten
    page.locator(".wb-cards-note [data-kind=error]").wait_for()
    assert "already exists" in page.locator(".wb-cards-note").inner_text()
    assert CARDS_CSV.read_bytes() == shipped

    # a cards CSV with a bad row: named with its row and column, never a traceback
    bad = tmp_path / "my-cards.csv"
    lines = shipped.decode().splitlines()
    lines[3] = lines[3].replace(",red,0,", ",red,-4,")
    bad.write_text("\n".join(lines) + "\n")
    with page.expect_file_chooser() as chooser:
        page.locator(".wb-card-upload").click()
    chooser.value.set_files(str(bad))
    error = page.locator(".wb-cards-note [data-kind=error]", has_text="my-cards.csv")
    error.wait_for()
    text = error.inner_text()
    assert "row 4" in text and "'cost'" in text and "-4" in text
    _no_traceback(page)
    shot(page, "05-cards-bad-row")
    _offline_and_clean(recorder)
    page.close(run_before_unload=True)  # Voilà then shuts the page's kernel down


# -- teaching: the die game's exact model follows the slider ------------------------------------------------
def test_teaching_slider_shows_dietower_exact_odds(studio):
    from workbench.games.dietower.exact import streak_odds

    page, recorder, _ = _open(studio, "?game=dietower&page=teaching", ".wb-teach-status [data-state=done]")
    assert _cell(page, "six_win", "exact_fraction") == str(streak_odds(Fraction(1, 2), 6, 14, 2).six_win)
    handle = page.locator(".wb-lesson-die_faces .noUi-handle")
    handle.focus()
    started = time.perf_counter()
    handle.press("ArrowRight")  # die faces 6 -> 7
    exact = streak_odds(Fraction(1, 2), 7, 14, 2).six_win
    page.locator("[data-table=six_win] td", has_text=re.compile(rf"^{re.escape(str(exact))}$")).wait_for()
    _note_timing("teaching: slider moved → exact value shown", time.perf_counter() - started)
    assert _cell(page, "six_win", "exact") == display_frame(pl.DataFrame({"x": [float(exact)]}))["x"][0]
    # then the simulation beside it; the status keeps how long the exact part took alone (in the kernel, so a
    # loaded machine's page latency does not count): milliseconds, where the simulation takes longer
    done = page.locator(".wb-teach-status [data-state=done][data-exact-computed]", has_text="exact and simulated")
    done.wait_for()
    assert "('die_faces', 7)" in done.get_attribute("data-settings")
    assert float(done.get_attribute("data-exact-computed")) < 1.0
    assert "%" in _cell(page, "six_win", "simulated")
    assert page.locator("figure.wb-chart svg").count() == 4
    shot(page, "06-teaching-dietower")
    _offline_and_clean(recorder)
    page.close(run_before_unload=True)  # Voilà then shuts the page's kernel down


# -- Stop mid-run, and the earlier run reopened --------------------------------------------------------------
def test_stop_mid_run_keeps_the_finished_games_and_reopens_them(studio):
    page, recorder, _ = _open(studio, "?game=toy", ".wb-run")
    _fill(page, ".wb-setting-games", 300_000)
    page.locator(".wb-run").click()
    page.locator(".wb-status [data-state=running][data-done]:not([data-done='0'])").wait_for()
    shot(page, "07-toy-running")
    page.locator(".wb-stop").click()
    stopped = page.locator(".wb-status [data-state=stopped]")
    stopped.wait_for()
    done = int(stopped.get_attribute("data-done"))
    assert 0 < done < 300_000 and done % 200 == 0  # whole chunks of 200 games
    assert f"{done:,} of 300,000" in stopped.inner_text()
    page.locator("[data-table=first_mover]").wait_for()
    assert page.locator(".wb-games").get_attribute("data-games") == str(done)
    frame = simulate("toy", done, seed=0, progress=False)  # the finished games are the first `done` of the run
    expected = display_frame(metrics.first_mover(frame)).row(0, named=True)
    assert _cell(page, "first_mover", "first_mover") == expected["first_mover"]
    assert _cell(page, "first_mover", "first_mover_n") == str(done)
    shot(page, "08-toy-stopped")

    page.get_by_role("tab", name="Runs").click()
    runs = page.locator(".wb-runs-list select option")
    runs.first.wait_for()
    assert f"toy · outcomes · stopped · {done:,} of 300,000 games" in runs.first.inner_text().replace("\xa0", " ")
    page.locator(".wb-open-run").click()
    reopened = page.locator(".wb-msg", has_text="nothing was played again")
    reopened.wait_for()
    assert _cell(page.locator(".wb-page-runs"), "first_mover", "first_mover") == expected["first_mover"]
    shot(page, "09-runs-reopened")
    _offline_and_clean(recorder)
    page.close(run_before_unload=True)  # Voilà then shuts the page's kernel down


# -- a game registered through the protocol alone: its form, its run, its exported report ----------------------
def test_a_registered_test_game_runs_and_its_exported_report_renders_every_chart(studio, tmp_path):
    from workbench.core.model import get_game

    page, recorder, _ = _open(studio, "?game=toy", ".wb-run")
    toy = get_game("toy")
    for p in toy.params:
        assert page.locator(f".wb-param-{p.name}").count() == 1, p.name
    assert page.locator(".wb-param-board select").count() == 1 and page.locator(".wb-param-fast input").count() == 1
    page.locator(".wb-param-board select").select_option("large")
    _fill(page, ".wb-setting-agents", "greedy,random")
    page.locator(".wb-run").click()
    _wait_done(page)
    frame = simulate("toy", 2000, params={"board": "large"}, agents="greedy,random", seed=0, progress=False)
    expected = display_frame(metrics.first_mover(frame)).row(0, named=True)
    page.locator("[data-table=first_mover]").wait_for()
    assert _cell(page, "first_mover", "first_mover") == expected["first_mover"]

    page.locator(".wb-downloads-ready").wait_for()
    with page.expect_download() as got:
        page.locator(".wb-downloads-ready a[data-file='games.parquet']").click()
    assert_frame_equal(pl.read_parquet(got.value.path()), frame)
    with page.expect_download() as got:
        page.locator(".wb-downloads-ready a[data-file='report.zip']").click()
    with zipfile.ZipFile(got.value.path()) as zf:
        zf.extractall(tmp_path)
    report = tmp_path / "report"
    charts = json.loads((report / "report.json").read_text())["charts"]
    assert len(charts) >= 2 and {"index.md", "index.html", "games.csv", "first_mover.csv"} <= \
        {p.name for p in report.iterdir()}
    viewer = studio[1].new_page(viewport=VIEW)
    seen = Recorder(viewer)
    viewer.goto(report.joinpath("index.html").as_uri())
    for name in charts:
        assert viewer.locator(f"figure#chart-{name} svg, figure#chart-{name} canvas").count() == 1, name
    assert not seen.errors() and not seen.foreign()
    shot(viewer, "10-exported-report")
    viewer.close()
    _offline_and_clean(recorder)
    page.close(run_before_unload=True)  # Voilà then shuts the page's kernel down
