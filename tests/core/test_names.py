"""Names a person reads: every table header, caption, cell, chart axis and legend the studio and the lessons show
uses display names (``core/present/charts.py: display_label``, one function), never a raw key of the frames behind them.

The walk covers every registered study of every game (run at a tiny size in the studio's results view) and every
lesson (the teaching page, answered); a raw key is a snake_case identifier that is one of the frames' columns or
string values.  CSV and Parquet keep the keys; only what a person reads is checked.
"""

from __future__ import annotations

import html
import re

import polars as pl
import pytest

from workbench.core.errors import RunInterrupted
from workbench.core.model import game_names, get_game
from workbench.core.present import charts
from workbench.core.present.charts import RAW_KEY, display_label, readable_spec
from workbench.core.studies.lessons import lessons
from workbench.core.studies.study import studies
from workbench.ui.render import chart_svg, table_html

# the smallest sizes a study's tables are still made at (a setting not named keeps its default)
TINY_INT = {"games": 4, "card_games": 1, "evaluations": 0, "balance_games": 2, "balance_cards": 0, "resamples": 20,
            "lists": 1, "largest_suit": 3, "suit_size": 2, "largest_budget": 2, "largest": 2, "cap": 5, "rounds": 6}
TINY_STR = {"tiers": "random,greedy", "search": None, "battlefields": "free_steppe", "seat": "p1"}


def _tiny(study) -> dict:
    out = {}
    for p in study.settings:
        if p.kind is int and p.name in TINY_INT:
            value = TINY_INT[p.name]
            low = p.low if p.low is not None else value
            out[p.name] = min(max(value, low), p.high if p.high is not None else value)
            if p.name == "games" and p.default is not None and p.default < out[p.name]:
                out[p.name] = p.default
        elif p.name in TINY_STR and (p.optional or TINY_STR[p.name] is not None):
            out[p.name] = TINY_STR[p.name]
    return out


def _raw_keys(tables: dict[str, pl.DataFrame]) -> set[str]:
    """The snake_case identifiers among the frames' columns and the values of their key columns.

    A key column holds identifiers only (``free_steppe``, ``p1``); a column of free text — a card's effect
    in the effect language, a verdict — is the game's text, not a key.
    """
    keys: set[str] = set()
    for frame in tables.values():
        keys |= {c for c in frame.columns if RAW_KEY.match(c)}
        for column, dtype in frame.schema.items():
            values = [v for v in frame.get_column(column).unique().to_list() if v] if dtype == pl.String else []
            if values and all(re.fullmatch(r"[a-z0-9][a-z0-9_]*", v) for v in values):
                keys |= {v for v in values if RAW_KEY.match(v)}
    return keys


_TEXT = re.compile(r"<text[^>]*>([^<]*)</text>")
_HEAD = re.compile(r"<(?:th|caption)[^>]*>(.*?)</(?:th|caption)>", re.S)
_CELL = re.compile(r"<td[^>]*>(.*?)</td>", re.S)


def _labels(page: str) -> list[str]:
    """Every label a person reads on ``page``: table headers and captions, table cells, chart texts."""
    found = [*_HEAD.findall(page), *_CELL.findall(page), *_TEXT.findall(page)]
    return [html.unescape(re.sub(r"<[^>]+>", "", x)).strip() for x in found]


def _raw_in(labels: list[str], keys: set[str]) -> list[str]:
    bad = []
    for label in labels:
        if label in ("true", "false"):
            bad.append(label)
            continue
        words = set(re.findall(r"[A-Za-z0-9_]+", label))
        bad += [f"{label!r} ({k})" for k in sorted(words & keys)]
    return bad


def test_the_one_label_function_names_keys_in_words():
    import workbench.games.dietower.model  # noqa: F401 - its declared labels are read once it is loaded

    assert display_label("end_tower_built") == "ends: tower built"
    assert display_label("first_seat_win") == "first seat wins"
    assert display_label("win_p1") == "p1 wins" and display_label("mean_score_p1") == "p1's average score"
    assert display_label(True) == "yes" and display_label("false") == "no"
    assert display_label("free_steppe", "battlefield") == get_game("duel").choice_label("battlefield", "free_steppe")


def test_a_what_if_chart_reads_in_words_and_keeps_its_data():
    frame = pl.DataFrame({"metric": ["p1_win", "end_tower_built", "first_seat_win"], "diff": [0.01, -0.02, 0.03],
                          "low": [-0.01, -0.04, 0.01], "high": [0.03, 0.0, 0.05], "significant": [False, True, True]})
    spec = charts.delta_chart(frame, "metric").to_dict()
    shown = readable_spec(spec)
    assert spec == charts.delta_chart(frame, "metric").to_dict()  # the spec given is not changed
    texts = set(_TEXT.findall(chart_svg(spec)))
    assert {"p1 wins", "ends: tower built", "first seat wins", "yes", "no", "what is compared"} <= texts
    assert not texts & {"p1_win", "end_tower_built", "first_seat_win", "true", "false", "metric"}
    assert shown["datasets"] == spec["datasets"]  # the data (and CSV/Parquet) keep the keys


def _cases() -> list[tuple[str, str]]:
    return [(game, s.name) for game in game_names() for s in studies(game)]


@pytest.mark.parametrize(("game", "name"), _cases())
def test_every_studys_tables_and_charts_in_the_studio_show_no_raw_key(game, name):
    from workbench.ui.results import ResultsView

    study = next(s for s in studies(game) if s.name == name)
    try:
        tables = study.execute(game, _tiny(study), seed=1)
    except RunInterrupted:  # pragma: no cover - nothing stops it here
        raise
    view = ResultsView(None)
    view.show({"title": study.title}, tables, lambda: study.make_charts(tables))
    view.wait(120)
    page = view.body.value + view.long.value + view.charts.value
    assert "could not be" not in page, page[:500]
    bad = _raw_in(_labels(page), _raw_keys(tables))
    assert not bad, f"{game} {name}: raw keys a person reads: {bad[:12]}"


@pytest.mark.parametrize("game", [g for g in game_names() if lessons(g)])
def test_every_lessons_page_shows_no_raw_key(game):
    from workbench.ui.lessons import LessonPanel

    page = LessonPanel(game)
    for name in page.lessons:
        page.picker.value = name
        small = {"games": 200, "largest_suit": 3}
        page.set(**{k: v for k, v in small.items() if k in {p.name for p in page.lesson.settings}})
        page.answer_now()
        tables = page.wait(120)
        assert 'data-state="done"' in page.status.value, f"{game} {name}: {page.status.value}"
        shown = page.help.value + page.ask.value + page.comparison.value + page.shown.value + page.drawn.value
        bad = _raw_in(_labels(shown), _raw_keys(tables))
        assert not bad, f"{game} {name}: raw keys a person reads: {bad[:12]}"


def test_a_table_reads_its_keys_in_words_and_its_csv_keeps_them():
    frame = pl.DataFrame({"event": ["second_auction", "double_tie"], "mean_score_p1": [0.1, 0.2]})
    import workbench.games.rescue.model  # noqa: F401 - its declared labels are read once it is loaded

    page = table_html("odds_table", frame)
    assert not _raw_in(_labels(page), {"second_auction", "double_tie", "mean_score_p1", "odds_table"})
    assert frame["event"].to_list() == ["second_auction", "double_tie"]


@pytest.mark.parametrize("game", [g for g in game_names() if getattr(get_game(g), "card_table", None)])
def test_a_card_what_if_with_no_agents_chosen_plays_the_games_first_tier_never_random(game):
    from workbench.ui.cards import default_lineup

    model = get_game(game)
    lineup = default_lineup(model, {}, None)
    seats = model.players(model.make_config(model.resolve_params({})))
    assert lineup == ",".join([model.tiers[0]] * seats) and "random" not in lineup
    assert default_lineup(model, {}, "random,random") == "random,random"  # chosen: played as chosen


def test_the_duels_what_if_plays_its_first_tier_when_no_agents_are_given():
    from workbench.games.duel.cardvalue.whatif import what_if

    result = what_if({}, card_edits={"dragon": {"cost": 20}}, games=10, seed=2)
    for frame in (result.baseline, result.variant):
        assert set(frame["agent_p1"]) == set(frame["agent_p2"]) == {get_game("duel").tiers[0]}
