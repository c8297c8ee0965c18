"""Lessons a student learns from: a question first, the guess beside the exact and the simulated answer with a
sentence on how far off it was, one interval level said once, and no word a student would not know unexplained."""

from __future__ import annotations

import re

import polars as pl
import pytest

from workbench.core.errors import InputError
from workbench.core.model import game_names
from workbench.core.stats.rates import wilson
from workbench.core.studies.lessons import (
    GLOSSARY,
    LEVEL,
    LEVEL_WORDS,
    Question,
    compare,
    glossary,
    introduction,
    lesson_title,
    lessons,
    question,
)

ODDS = pl.DataFrame({"event": ["p1 wins", "p2 wins", "nobody"], "exact": [0.4453125, 0.4453125, 0.109375],
                     "simulated": [0.44, 0.45, 0.11], "low": [0.3, 0.3, 0.05], "high": [0.6, 0.6, 0.2],
                     "n": [2000, 2000, 2000]})


def test_a_guess_is_put_beside_the_exact_and_the_simulated_answer_in_percentage_points():
    q = Question("With {players} players, how likely is it that nobody gets it?", "odds", {"event": "nobody"})
    answer = compare(q, {"odds": ODDS}, {"players": 2}, 0.30)
    assert answer.question == "With 2 players, how likely is it that nobody gets it?"
    assert answer.exact == 0.109375 and answer.simulated == 0.11 and answer.n == 2000
    # the range is recomputed at the page's one level from the counts (220 of 2000), not the table's own
    assert (answer.low, answer.high) == pytest.approx(wilson(220, 2000, LEVEL))
    assert "You guessed 30.0 %; the exact chance is 10.9 %" in answer.sentence
    assert "19.1 percentage points too high: far off" in answer.sentence
    assert "inside its range" in answer.sentence
    close = compare(q, {"odds": ODDS}, {"players": 2}, 0.10)
    assert "0.9 percentage points too low: very close" in close.sentence
    assert compare(q, {"odds": ODDS}, {}, 0.109375).sentence.startswith("Spot on")
    with pytest.raises(InputError, match="from 0 % to 100 %"):
        compare(q, {"odds": ODDS}, {}, 1.5)


def test_a_choice_question_names_the_most_likely_and_how_far_the_pick_was():
    q = Question("Who is most likely?", "odds", choices=(("p1 wins", {"event": "p1 wins"}),
                                                        ("nobody", {"event": "nobody"})))
    right = compare(q, {"odds": ODDS}, {}, "p1 wins")
    assert right.sentence.startswith("Right: you picked “p1 wins”, and it is the most likely")
    wrong = compare(q, {"odds": ODDS}, {}, "nobody")
    assert "Not quite" in wrong.sentence and "33.6 percentage points more" in wrong.sentence
    assert [p["choice"] for p in wrong.picks] == ["p1 wins", "nobody"]
    tied = Question("Who?", "odds", choices=(("p1", {"event": "p1 wins"}), ("p2", {"event": "p2 wins"})))
    assert "tied with “p2”" in compare(tied, {"odds": ODDS}, {}, "p1").sentence
    with pytest.raises(InputError, match="not one of the choices"):
        compare(q, {"odds": ODDS}, {}, "p2 wins")


def _lessons() -> list[tuple[str, str]]:
    return [(g, s.name) for g in game_names() for s in lessons(g)]


def _small(lesson) -> dict:
    return {"games": 200} if "games" in {p.name for p in lesson.settings} else {}


@pytest.mark.parametrize(("game", "name"), _lessons())
def test_every_lesson_asks_a_question_its_own_tables_answer(game, name):
    lesson = next(s for s in lessons(game) if s.name == name)
    settings = lesson.resolve(_small(lesson))
    q = question(game, name)
    text = q.ask(settings)
    assert "{" not in text and text.endswith("?"), text
    tables = lesson.execute(game, settings, seed=3)
    guess = q.choices[0][0] if q.choices else 0.5
    answer = compare(q, tables, settings, guess)
    assert 0 <= answer.exact <= 1 and answer.simulated is not None and answer.low <= answer.simulated <= answer.high
    assert answer.sentence and "percentage points" in answer.sentence or answer.sentence.startswith(("Right",
                                                                                                      "Spot on"))


# words a 16-year-old would not know; each may appear only with its one-line explanation (the glossary) on the page
JARGON = ("Wilson", "multinomial", "dynamic programm", "propensit", "Markov", "fraction", "rational", "equilibri",
          "enumerat", "confidence", "percentage point")


@pytest.mark.parametrize(("game", "name"), _lessons())
def test_every_lessons_words_are_plain_or_explained_and_say_no_other_level(game, name):
    from workbench.ui.lessons import LEGEND, LessonPanel

    lesson = next(s for s in lessons(game) if s.name == name)
    settings = lesson.resolve(_small(lesson))
    q = question(game, name)
    panel = LessonPanel(game, name, _small(lesson))
    panel.reveal(q.choices[0][0] if q.choices else "50")
    panel.wait(120)
    assert 'data-state="done"' in panel.status.value, panel.status.value
    page = re.sub(r"<[^>]+>", " ", " ".join([lesson_title(game, name), panel.help.value, panel.ask.value,
                                             panel.comparison.value, panel.shown.value, LEGEND]))
    page += " " + " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", panel.drawn.value))
    explained = {term.lower() for term, _ in glossary(page, *(f"{p.name} {p.help}" for p in lesson.settings))}
    shown_gloss = panel.help.value.lower()
    for word in JARGON:
        if re.search(rf"\b{word}", page, re.IGNORECASE):
            entry = next((t for t in GLOSSARY if re.search(rf"\b{word}", t, re.IGNORECASE)), None)
            assert entry is not None and entry.lower() in explained and f"<b>{entry.lower()}</b>" in shown_gloss, \
                f"{game} {name}: {word!r} is used without its explanation"
    assert "P(" not in page and "99.9" not in page, f"{game} {name}: a formula or another level"
    levels = set(re.findall(r"\b(\d+(?:\.\d+)?) ?% (?:range|interval)", page))
    assert not levels, f"{game} {name}: an interval level besides the legend's: {levels}"
    assert LEGEND.count(str(round(100 * LEVEL))) == 1 and "About the ranges" in LEVEL_WORDS  # said once
    assert settings and introduction(game, name)


def test_a_typed_guess_is_read_as_a_percent_and_a_bad_one_is_named():
    from workbench.ui.lessons import parse_guess

    assert parse_guess("25") == 0.25 and parse_guess(" 7,5 % ") == 0.075 and parse_guess("100%") == 1.0
    for text, words in (("", "type your guess first"), ("a lot", "not a percent"), ("120", "more than 100 %")):
        with pytest.raises(InputError, match=words):
            parse_guess(text)


def test_a_lesson_says_it_is_simulating_with_the_count_and_shows_nothing_before_the_guess():
    from workbench.ui.lessons import LessonPanel

    panel = LessonPanel("dietower", "streak", {"games": 60_000})
    assert panel.shown.value == panel.comparison.value == "" and 'data-state="ask"' in panel.status.value
    seen: list[str] = []
    panel.status.observe(lambda change: seen.append(change["new"]), names="value")
    panel.reveal("10")
    panel.wait(120)
    said = [re.sub(r"<[^>]+>", "", s) for s in seen]
    assert any("simulating… 0 of 60,000 games" in s for s in said), said
    assert any("simulating… 60,000 of 60,000 games" in s for s in said), said
    assert 'data-state="done"' in seen[-1] and "your guess" in panel.comparison.value
    panel.set(rounds=9)  # a new game: the answer is put away, a new guess asked for
    assert panel.shown.value == panel.comparison.value == "" and "9 rounds" in panel.ask.value


def test_a_table_of_chances_and_averages_is_shown_as_two():
    from workbench.ui.lessons import LessonPanel

    frame = pl.DataFrame({"measure": ["draw", "win_p1", "mean_score_p1"], "exact": [0.8, 0.1, 0.1],
                          "simulated": [0.79, 0.11, 0.12], "lower": [0.7, 0.05, 0.08], "upper": [0.85, 0.15, 0.16]})
    short, _, _ = LessonPanel._render({"odds": frame}, 1000)
    assert 'data-table="odds_chances"' in short and 'data-table="odds_averages"' in short
    chances, averages = short.split('data-table="odds_averages"')
    assert "mean_score_p1" not in chances and "0.1 " not in chances and "%" in chances
    assert "%" not in averages.split("</table>")[0].split("<tbody>")[1]  # an average is a number, not a percent
