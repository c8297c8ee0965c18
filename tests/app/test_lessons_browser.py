"""A lesson as a student uses it, in headless Chromium: the question first and no number, the guess typed, then the
exact answer, "simulating… n of N" while the simulation runs, and the guess, the exact and the simulated answer side
by side with a sentence on how far off the guess was — the numbers the library computes for the same settings."""

from __future__ import annotations

import re

import pytest
from studio_driver import Recorder, shot, studio_session

pytestmark = pytest.mark.xdist_group("browser")  # one worker drives the browser: the tests do not compete

OPEN = 300_000  # ms: a page's first element after the URL was opened (a loaded 2-core machine)
STEP = 240_000  # ms: anything else
GAMES = 600_000  # long enough (a few seconds) that the page shows the simulation running


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    with studio_session(tmp_path_factory.mktemp("lessons") / "workspace") as found:
        yield found


def test_a_lesson_takes_the_guess_then_reveals_exact_and_simulated_beside_it(studio):
    from fractions import Fraction

    from workbench.core.studies.lessons import question
    from workbench.games.dietower.exact import streak_odds

    server, context = studio
    page = context.new_page()
    page.set_default_timeout(STEP)
    recorder = Recorder(page)
    page.goto(server.url + f"?game=dietower&page=teaching&lesson=streak&games={GAMES}")
    page.locator(".wb-teach-status [data-state=ask]").wait_for(timeout=OPEN)
    # the question first, and no number of the answer anywhere yet
    asked = page.locator(".wb-question").inner_text()
    settings = {"p": 0.5, "die_faces": 6, "rounds": 14, "players": 2}
    assert question("dietower", "streak").ask(settings) in asked
    assert page.locator(".wb-teach-tables table, .wb-comparison table").count() == 0
    page.locator(".wb-reveal").click()  # no guess typed: the page asks for one, in words
    page.locator(".wb-teach-status .wb-msg-error", has_text="type your guess first").wait_for()
    box = page.locator(".wb-guess input").first
    box.fill("25")
    box.press("Tab")
    page.locator(".wb-reveal").click()
    # while it simulates the page says so, with the count
    running = page.locator(".wb-teach-status", has_text=re.compile(r"simulating… [\d,]+ of 600,000 games"))
    running.wait_for()
    shot(page, "15-lesson-simulating")
    page.locator(".wb-teach-status [data-state=done]").wait_for()
    exact = float(streak_odds(Fraction(1, 2), 6, 14, 2).six_win)  # 575/8192 = 7.0 %
    compared = page.locator(".wb-comparison table")
    assert compared.locator("thead").inner_text().split() == ["your", "guess", "exact", "simulated", "(range)"]
    guess, shown_exact, simulated = compared.locator("tbody td").all_inner_texts()
    assert guess == "25.0 %" and shown_exact == f"{100 * exact:.1f} %"
    assert re.fullmatch(r"\d+\.\d % \(\d+\.\d % – \d+\.\d %\)", simulated)
    verdict = page.locator(".wb-comparison .wb-verdict").inner_text()
    assert f"{100 * (0.25 - exact):.1f} percentage points too high" in verdict and "600,000 games" in verdict
    # the student's tables come with it; moving a slider puts the answer away and asks again
    assert page.locator("[data-table=six_win]").count() == 1
    shot(page, "16-lesson-compared")
    handle = page.locator(".wb-lesson-die_faces .noUi-handle")
    handle.focus()
    handle.press("ArrowRight")
    page.locator(".wb-teach-status [data-state=ask]").wait_for()
    assert page.locator(".wb-comparison table").count() == 0 and page.locator("[data-table=six_win]").count() == 0
    assert "a die with 7 faces" in page.locator(".wb-question").inner_text()
    assert not recorder.errors(), recorder.errors()
    page.close(run_before_unload=True)
