"""Stop and the study's own validator, as a person meets them in the studio (headless Chromium).

Every study of every game, from the registry (no list): one page per game walks its study picker; each study
with a long run (``Study.long_settings``, sized for its game) is started from the form, Stop is pressed at
its first progress (or a second in), and the page must say "stopped · n of N games" with the tables of what
finished — never "done", never an error; a study with no long run (an exact answer) says done.  The times
(Stop within 2 s) are measured by ``benchmarks/studio_stop.py --all``; the same protocol is walked without a
browser in ``tests/core/test_stop_every_study.py``.  And a combination the study cannot run is refused in
its field before Run, in the study's words.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from studio_driver import Recorder, explain, shot, studio_session

from workbench.core.model import game_names
from workbench.core.studies.study import studies

pytestmark = pytest.mark.xdist_group("browser")  # one worker drives the browser
OPEN = 300_000  # ms: a page's first element (a fresh kernel on a loaded 2-core machine can take a minute)
STEP = 240_000  # ms: anything else waited for


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    # the test's registry is the server's: every game the walk picks from (the suite's test game too)
    with studio_session(tmp_path_factory.mktemp("studio-stop") / "workspace",
                        env={"WORKBENCH_GAMES": "tests.toygame.model"}) as found:
        yield found


def _open(studio, query: str):
    server, context = studio
    page = context.new_page()
    page.set_default_timeout(STEP)
    recorder = Recorder(page)
    page.goto(server.url + query)
    page.locator(".wb-study-picker select option:checked").first.wait_for(state="attached", timeout=OPEN)
    page.get_by_role("tab", name="Studies").click()  # a game may open on another tab (its cards, its lessons)
    page.locator(".wb-run:visible").first.wait_for()
    return page, recorder


@pytest.fixture(scope="module")
def walk(studio):
    """One page for every game's walk, each game chosen in its game picker as a person switches games.

    (A page of its own per game started a kernel per game: about a tenth of the walk's time.)
    """
    first = game_names()[0]
    page, recorder = _open(studio, f"?game={first}&study={studies(first)[0].name}")
    yield page, recorder
    page.close(run_before_unload=True)


def _choose_game(page, game: str) -> None:
    """Choose ``game`` in the studio's game picker (its option reads "<title> (<name>)…") and wait for its studies."""
    option = page.locator(".wb-game-picker select option", has_text=f"({game})").first
    page.locator(".wb-game-picker select").select_option(option.get_attribute("value"))
    page.locator(f".wb-form-of-{game}-{studies(game)[0].name}").first.wait_for()  # this game's panel, not the last


def _fill(page, selector: str, value: object) -> None:
    box = page.locator(f"{selector} input").first
    box.fill(str(value))
    box.press("Tab")  # a number box sends its value when it loses focus


def _pick(page, study: str) -> None:
    """Choose ``study`` in the page's study picker (its option reads "<title> (<name>)") and wait for its form."""
    option = page.locator(".wb-study-picker select option", has_text=f"({study})").first
    page.locator(".wb-study-picker select").select_option(option.get_attribute("value"))
    page.locator(".wb-study-picker select option:checked", has_text=f"({study})").wait_for(state="attached")
    page.locator(f".wb-form-of-{study}").first.wait_for()  # its form built: never the last study's fields


def _stop_one(page, game: str, study: str, long: dict | None) -> None:
    """Run ``study`` long, press Stop at its first progress, and check what the page says and shows."""
    for name, value in (long or {}).items():
        _fill(page, f".wb-setting-{name}", value)
    status = page.locator(".wb-status [data-state]").first
    page.locator(".wb-run:visible").first.click()
    began = ", ".join(f".wb-status [data-state={s}]" for s in ("confirm", "running", "done", "refused", "error"))
    page.locator(began).first.wait_for()
    if page.locator(".wb-status [data-state=confirm]").count():  # a long run, or one of unknown size, asks twice
        page.locator(".wb-run:visible").first.click()
    assert page.locator(".wb-status [data-state=refused], .wb-status [data-state=error]").count() == 0, \
        f"{game} {study}: {status.inner_text()}"
    if long is None:  # an exact answer, nothing long to stop: it says done, never an error
        page.locator(".wb-status [data-state=done]").wait_for()
        return
    running = page.locator(".wb-status [data-state=running]")
    page.locator(", ".join(f".wb-status [data-state={s}]" for s in ("running", "done", "stopped", "error", "refused",
                                                                     "idle"))).first.wait_for()
    assert running.count(), f"{game} {study}: {status.get_attribute('data-state')}: {status.inner_text()}"
    for _ in range(20):  # its first count of finished games, or a second in, as a person would press it
        if running.count() == 0 or int(running.get_attribute("data-done") or 0) > 0:
            break
        page.wait_for_timeout(50)
    page.locator(".wb-stop:visible").first.click()
    stopped = page.locator(".wb-status [data-state=stopped]")
    stopped.wait_for()
    done, total = int(stopped.get_attribute("data-done")), int(stopped.get_attribute("data-total"))
    said = stopped.inner_text()
    assert status.get_attribute("data-state") == "stopped", f"{game} {study}: {said}"
    if total:
        assert 0 <= done < total and f"stopped · {done:,} of {total:,}" in said, f"{game} {study}: {said}"
    if done:  # what finished is shown, with the same count
        page.locator(".wb-results-header .wb-msg", has_text=f"stopped · {done:,} of {total:,} games").wait_for()
        page.locator(".wb-results table, .wb-results-long table").first.wait_for()


@pytest.mark.parametrize("game", game_names())
def test_every_study_stops_in_the_studio_saying_stopped_with_the_count_and_showing_what_finished(studio, walk, game):
    every = studies(game)
    page, recorder = walk
    try:
        _choose_game(page, game)
    except PlaywrightTimeout as exc:
        raise AssertionError(explain(page, recorder, studio[0], f"{game}: the game's studies: {exc}")) from exc
    for study in every:
        try:
            _pick(page, study.name)
            _stop_one(page, game, study.name, study.long_settings(game))
        except PlaywrightTimeout as exc:  # say what the page and its server showed, not only that it waited
            raise AssertionError(explain(page, recorder, studio[0], f"{game} {study.name}: {exc}")) from exc
        assert page.locator(".wb-status [data-state=error]").count() == 0, f"{game} {study.name}"
    shot(page, f"39-stopped-{game}-{every[-1].name}")
    assert not recorder.foreign() and not recorder.errors(), (recorder.foreign(), recorder.errors())
    # each switch reached the server's log, so a switch whose form never comes says how far it got (#39)
    log = studio[0].log.read_text(errors="replace")
    for study in every[1:]:
        assert f"studio: the form of {game} study {study.name} is built" in log, (game, study.name)


def test_a_combination_the_study_cannot_run_is_refused_in_its_field_before_run(studio):
    page, recorder = _open(studio, "?game=dietower&study=reduced_decks")
    page.locator(".wb-study-picker select option:checked", has_text="(reduced_decks)").wait_for(state="attached")
    _fill(page, ".wb-setting-players", 3)
    _fill(page, ".wb-setting-largest_suit", 7)
    # the default largest suit may be refused already with 3 players: wait for the refusal of the value typed
    refused = page.locator(".wb-setting-largest_suit .wb-study-refused", has_text="largest suit 7")
    refused.wait_for()
    text = refused.inner_text()
    assert "largest suit 7 is too big to count exactly with 3 players; allowed: up to 5" in text, text
    assert "suit_size" not in text and "=" not in text  # the study's words, not code
    page.locator(".wb-run:visible").first.click()
    page.locator(".wb-status [data-state=refused]").wait_for()  # refused before Run: nothing was counted
    assert page.locator(".wb-status [data-state=running]").count() == 0
    _fill(page, ".wb-setting-largest_suit", 5)
    refused.wait_for(state="detached")
    shot(page, "39-refused-reduced-decks")
    assert not recorder.foreign() and not recorder.errors()
    page.close(run_before_unload=True)
