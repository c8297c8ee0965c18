"""The study form checks with the study's own validator (``Study.validate``), over every study of every game.

What a designer sees before pressing Run: the defaults are accepted; a value out of its range, or a
combination the study cannot run, is refused in its field in the study's words (naming the field and
what is allowed), and Run then starts nothing; a run whose size is known only once it runs waits for a
second press, as a long one does.
"""

from __future__ import annotations

import html

import pytest

from workbench.app.workspace import Workspace
from workbench.core.model import Param, game_names
from workbench.core.studies.study import studies
from workbench.ui.forms import field_label
from workbench.ui.studies import StudyPanel


def _every_study() -> list[tuple[str, str]]:
    return [(game, s.name) for game in game_names() for s in studies(game)]


def _ranged(params: tuple[Param, ...] | list[Param]) -> Param | None:
    return next((p for p in params if p.kind in (int, float) and p.high is not None and not p.optional), None)


@pytest.mark.parametrize(("game", "name"), _every_study())
def test_the_defaults_pass_and_a_value_out_of_range_is_refused_in_its_field_before_run(game, name, tmp_path):
    page = StudyPanel(game, name, workspace=Workspace(tmp_path))
    assert page.settings.errors == {} and (page.params is None or page.params.errors == {})
    settings, _ = page.values()  # the study's validator accepts the form's defaults
    assert settings == page.study.validate(game, {})[0]
    param = _ranged(page.study.settings)
    if param is None and page.params is not None:  # a study of settings without a range: a game parameter
        param = _ranged([p for p, _ in page.params.fields.values()])
    assert param is not None, f"{game} {name}: no field with a range to refuse"
    form = page.settings if param.name in page.settings else page.params
    page.set(**{param.name: param.high + 1})
    why = form.errors[param.name]
    assert field_label(param.name) in why and "allowed:" in why and "out of range" in why, why
    assert html.escape(why) in form._marks[param.name].value  # in the field itself
    page.run()
    assert page.job.thread is None and 'data-state="refused"' in page.job.status.value  # nothing started


def test_a_combination_the_study_cannot_run_is_refused_in_its_field_in_the_studys_words(tmp_path):
    page = StudyPanel("dietower", "reduced_decks", workspace=Workspace(tmp_path))
    page.set(players=3, largest_suit=7)
    why = page.settings.errors["largest_suit"]
    assert why == "largest suit 7 is too big to count exactly with 3 players; allowed: up to 5 with 3 players " \
                  "(7 with 2, 5 with 3)"
    mark = page.settings._marks["largest_suit"].value
    assert "wb-study-refused" in mark and html.escape(why) in mark and "suit_size" not in mark
    page.run()  # refused before Run: nothing is counted or played
    assert page.job.thread is None and 'data-state="refused"' in page.job.status.value
    assert html.escape(why) in page.note.value
    page.set(largest_suit=5)  # put right: the mark goes
    assert "largest_suit" not in page.settings.errors and page.settings._marks["largest_suit"].value == ""
    page.set(players=2, largest_suit=7)
    assert page.settings.errors == {}


def test_the_balance_study_of_a_simultaneous_game_runs_with_its_default_seat(tmp_path):
    page = StudyPanel("dietower", "balance", workspace=Workspace(tmp_path))
    assert page.settings.errors == {}
    page.set(games=40, evaluations=2)
    tables = page.run(wait=True)
    assert 'data-state="done"' in page.job.status.value and tables["points"].height == 2
    assert "seat=" not in page.note.value and "error" not in page.job.status.value


def test_a_run_of_unknown_size_waits_for_a_second_press(tmp_path):
    unknown = next(s for g in game_names() for s in studies(g)
                   if s.size is None and s.long_settings(g) is not None and s.name == "endings")
    page = StudyPanel("babel", unknown.name, workspace=Workspace(tmp_path))
    page.set(games=10)
    page.run()
    assert page.job.thread is None and 'data-state="confirm"' in page.job.status.value
    assert "known only once it runs" in page.note.value
    page.run()  # the second press starts it
    assert page.job.thread is not None
    page.job.stop()
    page.job.wait(60)
    page.results.wait(60)
    assert 'data-state="confirm"' not in page.job.status.value
