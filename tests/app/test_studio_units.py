"""The studio without a browser: its pieces in-process — forms from declarations, card tables, lessons,
the run store, downloads, the launcher's settings — and the rule that neither the app nor the widget
stack (``workbench/ui``, which the studio's tabs and the notebooks share) holds any game's code."""

from __future__ import annotations

import ast
import html
import io
import json
import re
import zipfile
from fractions import Fraction
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from workbench.app.store import RunStore, find_sweeps, open_sweep
from workbench.app.workspace import Workspace
from workbench.core.design.cardtable import card_table, changed_cells, read_cards, save_cards, what_if
from workbench.core.design.edits import edit_csv
from workbench.core.errors import DataError, InputError
from workbench.core.model import game_names, get_game
from workbench.core.sim.runner import simulate
from workbench.core.sim.sweep import load_sweep, run_grid
from workbench.core.stats import metrics
from workbench.core.stats.compare import compare_outcomes, paired_verdicts
from workbench.core.studies.lessons import exact_only, get_lesson, lessons
from workbench.core.studies.study import get_study, outcome_tables, studies
from workbench.ui.forms import Form
from workbench.ui.results import export_files
from workbench.ui.studies import StudyPanel

WORKBENCH = Path(__file__).resolve().parents[2] / "workbench"


# -- neither the app nor the widgets hold a game's code ------------------------------------------------------
def test_the_app_and_the_widgets_import_no_game_and_name_none():
    from tests.test_layers import graph

    front = {m for m in graph() if m.startswith(("workbench.app", "workbench.ui"))}
    assert {"workbench.app.studio", "workbench.ui.studies", "workbench.ui.cards", "workbench.ui.lessons"} <= front
    for module in front:
        bad = {m for m in graph()[module] if m.startswith("workbench.games")}
        assert not bad, f"{module} imports {sorted(bad)}"
    for module in (m for m in front if m.startswith("workbench.ui")):  # the notebooks' widgets stand alone
        assert not {m for m in graph()[module] if m.startswith("workbench.app")}, module
    names = set(game_names()) | {"free_steppe", "crystal_garden", "dragon"}
    for path in [*WORKBENCH.joinpath("app").glob("*.py"), *WORKBENCH.joinpath("ui").glob("*.py")]:
        tree = ast.parse(path.read_text())
        docstrings = {id(n.body[0].value) for n in ast.walk(tree) if isinstance(
            n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body and isinstance(n.body[0], ast.Expr)}
        constants = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                     and id(n) not in docstrings}
        assert not names & constants, f"{path.name} names a game or its data: {names & constants}"


# -- forms from declarations ---------------------------------------------------------------------------------
@pytest.mark.parametrize("game", game_names())
def test_every_games_studies_get_a_form_from_their_declarations(game):
    import ipywidgets as w

    for study in studies(game):
        form = Form(study.settings, kind="setting")
        assert list(form.fields) == [p.name for p in study.settings]
        for param, widget in form.fields.values():
            if param.choices is not None:
                assert isinstance(widget, w.Dropdown)
            elif param.kind is bool:
                assert isinstance(widget, w.Checkbox)
        assert study.resolve(form.values()) == study.resolve({})  # the form starts at the declared defaults
    params = Form(get_game(game).params)
    assert params.changed() == {}


def test_a_typed_decimal_stays_as_typed_when_the_slider_snaps_it_and_a_moved_slider_still_sets_it():
    import ipywidgets as w

    from workbench.core.model import Param

    form = Form((Param("margin", 1.0, float, "points", 0.0, 10.0),))
    _, box = form.fields["margin"]
    slider = next(c for c in _children(form.widget) if isinstance(c, w.FloatSlider))
    box.value = "5.07"  # typed: the slider follows...
    assert slider.value == 5.07
    slider.value = 5.1  # ...and the browser snaps it to its 0.1 step and sends that back: the box keeps "5.07"
    assert box.value == "5.07" and form.values() == {"margin": 5.07}
    slider.value = 7.0  # a slider the user moves still sets the box
    assert box.value == "7" and form.values() == {"margin": 7.0}


def _children(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _children(child)


def test_a_wrong_value_names_the_field_and_what_is_allowed():
    form = Form(get_game("duel").params)
    form.set(start_wall="ten")
    with pytest.raises(InputError, match=r"field 'start wall'.*not a whole number.*allowed: int in \[0, 100000\]"):
        form.values()
    form.set(start_wall=None, battlefield="free_steppe")
    assert form.changed() == {"battlefield": "free_steppe"}


# each value the issue saw coerced: (game, study, field, typed, what the refusal must name)
REFUSED = [
    ("duel", "outcomes", "games", "-5", "allowed: int in [1, 1000000000]"),
    ("duel", "outcomes", "games", "2.5", "is not a whole number; allowed: int in [1, 1000000000]"),
    ("duel", "outcomes", "games", "1000000000000", "is out of range; allowed: int in [1, 1000000000]"),
    ("duel", "outcomes", "max_turns", "0", "is out of range; allowed: int in [1, 100000]"),
    ("duel", "outcomes", "second_bonus_wall", "-1", "is out of range; allowed: int in [0, 1000]"),
    ("duel", "outcomes", "miss_rate", "1e3x", "allowed: float in [0, 1]"),
]


@pytest.mark.parametrize(("game", "study", "name", "typed", "why"), REFUSED)
def test_a_refused_value_is_named_in_its_field_kept_as_typed_and_never_run(game, study, name, typed, why, tmp_path):
    page = StudyPanel(game, study, workspace=Workspace(tmp_path))
    form = page.settings if name in page.settings else page.params
    page.set(**{name: typed})
    _, box = form.fields[name]
    assert box.value == typed  # kept as typed, never clamped or rounded
    assert why in form.errors[name] and html.escape(why) in form._marks[name].value
    page.run()
    assert page.job.thread is None and page.workspace.store.runs() == []
    assert 'data-state="refused"' in page.job.status.value and html.escape(why) in page.note.value
    page.set(**{name: form.fields[name][0].default})  # put right: the field's message and the note go
    assert name not in form.errors and form._marks[name].value == "" and page.note.value == ""


def test_every_refused_field_is_listed_at_once_and_an_old_done_never_stays_beside_it(tmp_path):
    page = StudyPanel("toy", workspace=Workspace(tmp_path))
    page.set(games=50)
    page.run(wait=True)
    assert 'data-state="done"' in page.job.status.value
    page.set(games="-5", limit="1", edge="0.5")  # two refused (limit: int in [2, 1000]), one fine
    assert "done in" not in page.job.status.value  # the old "done in …" goes with the change
    assert set(page.settings.errors) | set(page.params.errors) == {"games", "limit"}
    page.run()
    assert "2 fields are refused" in page.note.value and page.note.value.count("allowed:") == 2
    assert len(page.workspace.store.runs()) == 1  # only the first run was played


def test_a_study_hides_the_parameters_its_own_settings_replace():
    page = StudyPanel("duel", "battlefields")
    hidden = {name for name, box in page.params._boxes.items() if box.layout.display == "none"}
    assert hidden == {"battlefield", "deck"}  # what the study declares it replaces (battlefields, decks)
    assert page.params._boxes["miss_rate"].layout.display != "none"  # used when no miss rates are listed
    page.picker.value = "outcomes"
    assert all(box.layout.display != "none" for box in page.params._boxes.values())


def test_the_studies_page_runs_a_study_keeps_it_and_shows_what_the_library_computes(tmp_path):
    page = StudyPanel("toy", workspace=Workspace(tmp_path))
    page.set(games=500, agents="greedy,random", board="large")
    page.seed.value = "3"
    page.run()
    page.job.wait(60)
    (record,) = page.workspace.store.runs()
    kept, tables = page.workspace.store.load(record["id"])
    frame = simulate("toy", 500, params={"board": "large"}, agents="greedy,random", seed=3, progress=False)
    assert_frame_equal(tables["games"], frame)
    assert_frame_equal(tables["first_mover"], metrics.first_mover(frame))
    assert kept["status"] == "done" and kept["settings"]["games"] == 500 and kept["params"] == {"board": "large"}
    assert 'data-table="first_mover"' in page.results.body.value


def test_an_impossible_combination_is_named_and_nothing_is_played(tmp_path):
    page = StudyPanel("duel", workspace=Workspace(tmp_path))
    page.set(start_tower=500)
    page.run()
    assert not page.job.running and "tower" in page.note.value and 'data-kind="error"' in page.note.value
    assert page.workspace.store.runs() == []


# -- card tables ---------------------------------------------------------------------------------------------
def test_the_duel_declares_its_card_table_and_other_games_none():
    table = card_table("duel")
    assert table.param == "cards" and table.row_key == "key" and set(table.editable) == {"cost", "effect"}
    assert card_table("toy") is None and card_table("dietower") is None
    cards = read_cards(table)
    assert cards.height == 102 and cards.filter(pl.col("key") == "dragon")["cost"][0] == "25"


def test_edits_are_saved_under_a_new_name_and_never_overwrite(tmp_path):
    table = card_table("duel")
    shipped = Path(table.default).read_bytes()
    cards = read_cards(table)
    assert changed_cells(table, cards, {"dragon": {"cost": "25"}, "ruby": {"cost": 99}}) == {"ruby": {"cost": "99"}}
    saved = save_cards(table, {"dragon": {"cost": 20}}, "cheap-dragon", tmp_path)
    assert read_cards(table, saved).filter(pl.col("key") == "dragon")["cost"][0] == "20"
    with pytest.raises(InputError, match="already exists"):
        save_cards(table, {"dragon": {"cost": 21}}, "cheap-dragon", tmp_path)
    with pytest.raises(InputError, match="name"):
        save_cards(table, {"dragon": {"cost": 21}}, "../cards", tmp_path)
    with pytest.raises(InputError, match="already exists"):
        save_cards(table, {"dragon": {"cost": 21}}, "cards", Path(table.default).parent)
    assert Path(table.default).read_bytes() == shipped
    assert read_cards(table, saved).filter(pl.col("key") == "dragon")["cost"][0] == "20"  # not overwritten
    with pytest.raises(DataError, match=r"edit dragon\.effect=enemy\.damage lots of cards\.csv, column 'effect'"):
        save_cards(table, {"dragon": {"effect": "enemy.damage lots"}}, "broken", tmp_path)
    assert not (tmp_path / "broken.csv").exists()


def test_a_card_what_if_equals_two_library_runs_on_the_same_seeds(tmp_path):
    result = what_if("duel", {"dragon": {"cost": 20}}, params={"battlefield": "free_steppe"}, games=300, seed=5,
                     directory=tmp_path)
    edited = edit_csv(card_table("duel").default, {"dragon": {"cost": 20}}, key=("key", "id"), directory=tmp_path)
    base = simulate("duel", 300, params={"battlefield": "free_steppe"}, seed=5, progress=False)
    variant = simulate("duel", 300, params={"battlefield": "free_steppe", "cards": str(edited)}, seed=5,
                       progress=False)
    assert_frame_equal(result.outcomes, compare_outcomes(base, variant))
    with pytest.raises(InputError, match="no cards value is changed"):
        what_if("duel", {"dragon": {"cost": 25}}, games=10)



def test_babylons_card_page_edits_a_cost_and_its_what_if_equals_the_library(tmp_path):
    from workbench.ui.cards import CardEditor

    table = card_table("babylon")
    assert table.row_key == "id" and {"power_cost", "might", "text"} <= set(table.editable)
    page = CardEditor("babylon", Workspace(tmp_path))
    assert page.cards.height == 60
    page.edit("F9", power_cost="2")
    assert page.edits == {"F9": {"power_cost": "2"}}
    page.settings.set(games=60)
    page.seed.value = "4"
    page.run()
    page.job.wait(120)
    (record,) = page.workspace.store.runs()
    _, tables = page.workspace.store.load(record["id"])
    edited = edit_csv(table.default, {"F9": {"power_cost": 2}}, key=("id",), directory=tmp_path)
    base = simulate("babylon", 60, seed=4, progress=False)
    variant = simulate("babylon", 60, params={"cards": str(edited)}, seed=4, progress=False)
    assert_frame_equal(tables["what_if"], paired_verdicts(base, variant))
    assert "wb-whatif-delta" in page.results.header.value
    page.edit("F12", power_cost="2")  # a Witchery costs TP only: refused as it is edited, before any Run
    assert "id &#x27;F12&#x27;, column &#x27;power_cost&#x27;" in page.cell_errors.value
    page.run()
    assert not page.job.running and "id &#x27;F12&#x27;, column &#x27;power_cost&#x27;" in page.note.value
    assert len(page.workspace.store.runs()) == 1  # nothing played


# -- lessons ---------------------------------------------------------------------------------------------------
def test_lessons_are_declared_studies_and_the_streak_lesson_is_dietowers_exact_model():
    from workbench.games.dietower.exact import streak_odds

    assert [s.name for s in lessons("rescue")] == ["auction", "dragon", "trophies"]
    assert lessons("rescue")[0] is get_study("rescue", "auction") and lessons("toy") == ()
    lesson = get_lesson("dietower", "streak")
    assert exact_only(lesson) and not exact_only(get_study("dietower", "equilibrium"))
    tables = lesson.execute("dietower", {"die_faces": 7, "p": 0.35, "games": 0})
    row = tables["six_win"].row(0, named=True)
    exact = streak_odds(Fraction(7, 20), 7, 14, 2).six_win
    assert row["exact_fraction"] == str(exact) and row["exact"] == pytest.approx(float(exact), rel=1e-12)
    assert row["simulated"] is None and tables["points"]["count"].null_count() == tables["points"].height
    simulated = lesson.execute("dietower", {"die_faces": 7, "p": 0.35, "games": 20_000}, seed=1)
    row = simulated["six_win"].row(0, named=True)
    assert row["simulated_low"] <= float(exact) <= row["simulated_high"]
    assert set(lesson.make_charts(simulated)) == {"six_win", "points", "longest", "first_streak"}


# -- runs, sweeps and downloads ----------------------------------------------------------------------------------
def test_kept_runs_come_back_as_they_were(tmp_path):
    store = RunStore(tmp_path / "runs")
    frame = simulate("toy", 200, seed=1, progress=False)
    tables = {**outcome_tables(frame), "games": frame}
    run_id = store.save({"kind": "study", "game": "toy", "name": "outcomes", "status": "done"}, tables)
    assert [r["id"] for r in store.runs()] == [run_id]
    record, loaded = store.load(run_id)
    assert record["game"] == "toy" and set(loaded) == set(tables)
    for name in tables:
        assert_frame_equal(loaded[name], tables[name])
    assert not [p for p in (tmp_path / "runs").iterdir() if p.name.startswith(".")]  # no half-written run
    with pytest.raises(InputError):
        store.load("../elsewhere")


def test_sweep_stores_are_listed_and_opened_without_playing(tmp_path):
    out = tmp_path / "sweeps" / "edges"
    run_grid("toy", {"edge": [0.2, 0.8]}, 300, out=out, seed=2, progress=False)
    (found,) = find_sweeps([tmp_path / "sweeps"])
    assert found["game"] == "toy" and found["done"] == found["total"] == 600 and found["status"] == "complete"
    record, tables = open_sweep(out)
    assert record["keys"] == ["edge"]
    assert_frame_equal(tables["first_mover"], metrics.first_mover(load_sweep(out), ["edge"]))


def test_a_runs_downloads_hold_the_frame_and_a_report_with_every_chart(tmp_path):
    frame = simulate("toy", 300, seed=1, progress=False)
    study = get_study("toy", "outcomes")
    tables = study.execute("toy", {"games": 300}, seed=1)
    charts = study.make_charts(tables)
    workspace = Workspace(tmp_path)
    record = {"kind": "study", "game": "toy", "name": "outcomes", "title": "toy outcomes", "seed": 1,
              "status": "done", "done": 300, "total": 300}
    record["id"] = workspace.store.save(record, tables)
    files = export_files(workspace.run_dir(record["id"]), record, tables, charts)
    assert set(files) == {"games (CSV)", "games (Parquet)", "report (zip)"}
    assert pl.read_csv(files["games (CSV)"]).height == 300
    assert_frame_equal(pl.read_parquet(files["games (Parquet)"]), frame)
    with zipfile.ZipFile(files["report (zip)"]) as zf:
        names = set(zf.namelist())
        html = zf.read("report/index.html").decode()
        info = json.loads(zf.read("report/report.json"))
        packed = {i.filename: i.compress_type for i in zf.infolist()}
        assert_frame_equal(pl.read_parquet(io.BytesIO(zf.read("report/first_mover.parquet"))), tables["first_mover"])
        assert zf.testzip() is None  # every member reads back whole
    assert {"report/index.html", "report/index.md", "report/games.csv", "report/first_mover.parquet"} <= names
    # text is deflated, Parquet (compressed already) stored as it is
    assert packed["report/games.csv"] == zipfile.ZIP_DEFLATED and packed["report/index.html"] == zipfile.ZIP_DEFLATED
    assert packed["report/first_mover.parquet"] == zipfile.ZIP_STORED
    assert len(info["charts"]) == len(charts)
    for name in info["charts"]:
        assert f'<figure id="chart-{name}" class="chart"><svg' in html
        assert f"report/{name}.png" in names
    assert workspace.url(files["report (zip)"]) == f"/voila/files/runs/{record['id']}/report.zip"


# -- the launcher ----------------------------------------------------------------------------------------------------
def test_the_server_is_loopback_only_offline_and_serves_only_downloads(tmp_path):
    import re

    from workbench.app.serve import ALLOWED_FILES, NOTEBOOK, TEMPLATES, prepare, voila_config

    notebook = prepare(tmp_path / "studio", [tmp_path / "sweeps"])
    assert notebook.read_bytes() == NOTEBOOK.read_bytes()
    c = voila_config(tmp_path / "studio", 8123)
    assert c.Voila.ip == "127.0.0.1" and c.Voila.port == 8123 and c.VoilaConfiguration.template == "workbench"
    template = (TEMPLATES / "voila" / "templates" / "workbench" / "index.html.j2").read_text()
    assert "://" not in template.split("#}", 1)[1]  # the template loads nothing from another host
    allowed = [re.compile(p) for p in ALLOWED_FILES]
    assert any(p.fullmatch("runs/20250101-x/report.zip") for p in allowed)
    assert not any(p.fullmatch(name) for p in allowed for name in ("studio.ipynb", "runs/x/run.json", "../etc/passwd"))


# -- lessons follow their sliders ------------------------------------------------------------------------------
def _exact_streak(s):
    from workbench.games.dietower.exact import streak_odds

    odds = streak_odds(Fraction(s["p"]).limit_denominator(1000), s["die_faces"], s["rounds"], s["players"])
    return {"six_win": {f"a six-win within {s['rounds']} rounds": str(odds.six_win)}}


def _exact_reduced(s):
    from workbench.games.dietower.exact import enumerate_orders
    from workbench.games.dietower.rules import Config

    return {"odds": {(suit, k): str(v) for suit in range(s["smallest_suit"], s["largest_suit"] + 1)
                     for k, v in enumerate_orders(Config(players=s["players"], suit_size=suit,
                                                         die_faces=s["die_faces"])).summary().items()}}


def _exact_auction(s):
    from workbench.games.rescue.agents import plan_of
    from workbench.games.rescue.rules import Config, outcome_by_profiles

    n = s["players"]
    config = Config(n, (s["budget"],) * n, (s["value"],) * n)
    out = outcome_by_profiles(config, [plan_of("random", config, seat) for seat in range(n)])  # every bid profile
    return {"odds": {"nobody": str(out.nobody), "second_auction": str(out.second_auction),
                     **{f"p{i + 1} wins": str(w) for i, w in enumerate(out.win)}}}


def _exact_dragon(s):
    from workbench.games.rescue import dragon

    return {"trophy": {k: str(v) for k, v in dragon.trophy_odds(s["catch"], s["rounds"], s["players"]).items()}}


def _exact_trophies(s):
    from workbench.games.rescue import trophies

    return {"trophy": {k: str(v) for k, v in trophies.trophy_odds(s["propensities"], s["players"]).items()}}


# per lesson: the sliders moved (twice: each setting's numbers must follow) and the library's exact function
MOVES = {
    ("dietower", "streak"): ([{"die_faces": 7, "p": 0.35, "games": 300}, {"rounds": 9, "players": 3}], _exact_streak),
    ("dietower", "reduced_decks"): ([{"largest_suit": 3, "games": 200}, {"die_faces": 4, "players": 3}],
                                    _exact_reduced),
    ("rescue", "auction"): ([{"players": 3, "budget": 2, "games": 300}, {"value": 1, "budget": 4}], _exact_auction),
    ("rescue", "dragon"): ([{"players": 3, "catch": "1/2", "rounds": 4, "games": 300}, {"players": 5, "rounds": 7}],
                           _exact_dragon),
    ("rescue", "trophies"): ([{"players": 3, "games": 200}, {"propensities": "1,2,3"}], _exact_trophies),
}


def _shown(tables, column: str, key: tuple[str, ...]) -> dict:
    return {(row[key[0]] if len(key) == 1 else tuple(row[k] for k in key)): row[column]
            for row in tables.iter_rows(named=True)}


def _as_shown(where, value: str) -> str:
    """How the teaching page writes an exact value: a chance as a percent (two decimals), a mean as a number."""
    x = Fraction(value)
    text = " ".join(map(str, where if isinstance(where, tuple) else (where,))).lower()
    if x > 1 or any(word in text for word in ("mean", "price", "surplus", "score")):
        return f"{float(x):.4g}"
    return f"{100 * float(x):.2f} %"


def test_a_lesson_table_for_students_one_format_one_confidence_and_the_inside_mark():
    from workbench.ui.lessons import exact_chart, student_table

    frame = pl.DataFrame({"event": ["p1 wins", "nobody", "p1 price"], "exact": [0.4453125, 0.109375, 1.0390625],
                          "exact_text": ["57/128", "7/64", "133/128"], "simulated": [0.441, 0.2, None],
                          "low": [0.40, 0.17, None], "high": [0.48, 0.23, None], "n": [2000, 2000, 0]})
    shown = student_table(frame).rows_by_key("event", named=True, unique=True)
    # 95 % Wilson of 882/2000 and 400/2000, whatever level the lesson's own low/high were drawn at (here none)
    lo, hi = stats_wilson(882, 2000)
    assert shown["p1 wins"]["exact"] == "44.53 % (57/128)"
    assert shown["p1 wins"]["simulated (range)"] == f"44.10 % ({100 * lo:.2f} % – {100 * hi:.2f} %)"
    assert shown["p1 wins"]["exact inside the simulated range?"] == "✓"
    assert shown["nobody"]["exact inside the simulated range?"] == "✗"  # 10.9 % is outside 18.3–21.8 %
    assert shown["p1 price"]["exact"] == "1.039 (133/128)" and shown["p1 price"]["simulated (range)"] == "—"
    long = frame.with_columns(pl.lit("8752067463519/10000000000000").alias("exact_text"))
    assert student_table(long)["exact"][0] == "44.53 %"  # a long fraction is no hint: not shown
    assert len(exact_chart(frame).to_dict()["layer"]) == 3


def stats_wilson(k: int, n: int) -> tuple[float, float]:
    from scipy import stats

    ci = stats.binomtest(k, n).proportion_ci(0.95, method="wilson")
    return ci.low, ci.high


def test_every_lesson_opens_with_plain_words_and_glosses_its_jargon():
    from workbench.core.studies.lessons import GENERAL_INTRO, LEVEL_WORDS, glossary, introduction

    assert introduction("dietower", "streak").startswith("Two or more players pass a die around")
    assert introduction("rescue", "trophies").startswith("Each tower colour has 5 tokens")
    assert introduction("toy", "any") == GENERAL_INTRO  # a game that declares none: the general one
    words = dict(glossary(get_lesson("rescue", "trophies").help))
    assert {"multinomial", "Wilson interval"} <= set(words)
    assert "95" not in words["Wilson interval"] and "95 of those ranges" in LEVEL_WORDS  # the level said once


@pytest.mark.parametrize("game", [g for g in game_names() if lessons(g)])
def test_every_lesson_follows_its_sliders_in_the_teaching_page(game):
    from workbench.ui.lessons import LessonPanel

    page = LessonPanel(game)
    assert {(game, name) for name in page.lessons} == {k for k in MOVES if k[0] == game}, "a lesson without a check"
    for name in page.lessons:
        page.picker.value = name
        moves, exact = MOVES[(game, name)]
        before = None
        for move in moves:
            page.set(**move)
            assert page.shown.value == "" and 'data-state="ask"' in page.status.value  # a new guess first
            _guess(page)
            tables = page.wait(120)
            assert 'data-kind="error"' not in page.status.value, f"{game} {name}: {page.status.value}"
            settings = page.form.values()
            assert page.settings == settings and all(settings[k] == v or str(settings[k]) == str(v)
                                                     for k, v in move.items())
            expected = exact(settings)
            for table, values in expected.items():
                frame = tables[table]
                key = ("suit_size", "measure") if table == "odds" and "suit_size" in frame.columns else (
                    frame.columns[0],)
                column = "exact_text" if "exact_text" in frame.columns else "exact_fraction"
                shown = _shown(frame, column, key)
                assert {k: shown[k] for k in values} == values, f"{game} {name} {move}"
                for where, value in values.items():  # and the page shows it, in the one number format
                    assert f"<td>{html.escape(_as_shown(where, value))}" in page.shown.value + page.drawn.value
            assert expected != before, f"{game} {name}: the move {move} changes no exact value"
            before = expected
        figures = page.drawn.value.count('class="wb-chart"')
        assert page.drawn.value.count("<svg") == figures >= 1  # a chart in every lesson
        assert f'class="wb-intro" data-lesson="{name}"' in page.help.value and ">exact inside the simulated " \
            "range?</th>" in page.shown.value and ("<td>✓</td>" in page.shown.value or "<td>✗</td>" in page.shown.value)
        assert "<details" not in page.shown.value  # the headline numbers are never folded away


def test_the_runs_tab_names_each_runs_study_settings_count_status_and_time_and_follows_the_game(tmp_path):
    from workbench.app.runs_page import RunsPage

    workspace = Workspace(tmp_path)
    games = simulate("toy", 40, seed=1, progress=False)
    base = {"kind": "study", "name": "outcomes", "seed": 1, "settings": {"games": 40, "agents": None}}
    workspace.store.save({**base, "game": "toy", "params": {"board": "large"}, "status": "done", "done": 40,
                          "total": 40, "seconds": 1.25}, {"games": games})
    workspace.store.save({**base, "game": "duel", "params": {}, "status": "stopped", "done": 200, "total": 2000,
                          "seconds": 3.0}, {"games": games})
    page = RunsPage(workspace, "toy")
    (label, _), = page.runs.options
    assert " · toy · outcomes · board=large, games=40 · 40 of 40 games · done · 1.2 s" in label
    page.follow("duel")
    (label, _), = page.runs.options
    assert " · duel · outcomes · games=40 · 200 of 2,000 games · stopped · 3.0 s" in label
    page.follow("babel")
    assert page.runs.options == (("no runs of babel yet: run a study first", ""),)


def _guess(page) -> None:
    """A student's guess on the page, then Check my guess."""
    page.reveal(page.question.choices[0][0] if page.question.choices else "50")


def test_a_lesson_shows_a_busy_sign_while_it_recomputes():
    from workbench.ui.lessons import LessonPanel

    page = LessonPanel("dietower", "streak", {"games": 0})
    _guess(page)
    page.wait(60)
    assert "wb-busy" not in page.results._dom_classes
    page.set(die_faces=7)
    _guess(page)
    assert "wb-busy" in page.results._dom_classes and 'data-state="busy"' in page.status.value  # at once
    page.wait(60)
    assert "wb-busy" not in page.results._dom_classes and 'data-state="done"' in page.status.value


def test_kernels_are_culled_when_their_page_is_gone_and_a_full_studio_says_so():
    from workbench.app.serve import CULL_IDLE, full_page, voila_config

    c = voila_config(Path("studio"), 8123)
    kernels = c.MappingKernelManager
    assert kernels.cull_idle_timeout == CULL_IDLE == 600 and kernels.cull_connected is False  # open pages stay
    assert 1 <= kernels.cull_interval <= 60 and c.VoilaConfiguration.preheat_kernel is True
    assert voila_config(Path("studio"), 8123, cull_idle=0, pool=0).VoilaConfiguration.preheat_kernel is False
    text = full_page(16, 16)
    assert "16 studio pages are open" in text and "at most 16" in text and "--max-pages" in text
    template = (Path(__file__).resolve().parents[2] / "workbench/app/jupyter/voila/templates/workbench/"
                "index.html.j2").read_text()
    assert 'addEventListener("pagehide", bye)' in template and "api/shutdown/" in template


def test_a_lesson_whose_tables_cannot_be_drawn_says_so_and_never_stays_busy(monkeypatch):
    import workbench.ui.lessons as shown

    def broken(frame, games=0):
        raise ValueError("no table today")

    page = shown.LessonPanel("dietower", "streak", {"games": 0})
    _guess(page)
    page.wait(60)
    monkeypatch.setattr(shown, "student_table", broken)  # a failure while drawing, after the lesson computed
    page.set(die_faces=7)
    _guess(page)
    page.wait(60)
    assert "no table today" in page.status.value and 'data-state="busy"' not in page.status.value
    assert "wb-busy" not in page.results._dom_classes
    monkeypatch.undo()
    page.set(die_faces=8)  # the panel still follows its sliders
    _guess(page)
    page.wait(60)
    assert 'data-state="done"' in page.status.value and "('die_faces', 8)" in html.unescape(page.status.value)


def test_the_page_asks_for_every_widgets_state_once_drawn_and_the_kernel_sends_it(tmp_path, monkeypatch):
    import ipywidgets

    from workbench.app.studio import PING, Studio

    studio = Studio(Workspace(tmp_path), game="dietower", page="teaching")
    lesson = studio.pages["teaching"]
    lesson.wait(60)
    sent = []
    monkeypatch.setattr(ipywidgets.Widget, "send_state", lambda self, key=None: sent.append(self.model_id))
    assert PING in studio.ping._dom_classes and studio.ping.layout.display == "none"
    studio.ping.click()  # what the page's script does once its widgets are drawn
    assert {lesson.status.model_id, lesson.results.model_id, lesson.shown.model_id} <= set(sent)
    template = (Path(__file__).resolve().parents[2] / "workbench/app/jupyter/voila/templates/workbench/"
                "index.html.j2").read_text()
    assert f'document.querySelector("button.{PING}")' in template and "button.click()" in template


# (game, study, games typed, games asked in all: battlefields x decks x pairings x games from the study's defaults)
# long enough to stop mid-run, small enough to fit in memory (a bigger run is refused before it starts)
STOPPED = [("duel", "battlefields", 40_000, 8 * 2 * 1 * 40_000), ("rescue", "auction", 2_000_000, 2_000_000)]


@pytest.mark.parametrize(("game", "study", "games", "asked"), STOPPED)
def test_a_stopped_study_is_shown_and_kept_as_stopped_n_of_n_never_done(game, study, games, asked, tmp_path):
    import re
    import time

    page = StudyPanel(game, study, workspace=Workspace(tmp_path))
    page.set(games=games)
    page.run()
    if 'data-state="confirm"' in page.job.status.value:  # a long run waits for a second press, as a person gives it
        page.run()
    ends = time.perf_counter() + 120
    while page.job.latest[0] == 0 and time.perf_counter() < ends:  # progress leaves "starting…"
        time.sleep(0.01)
    assert page.job.latest[0] > 0 and page.job.latest[1] == asked, (  # what the page said, when it did not run
        page.job.latest, html.unescape(page.job.status.value), page.note.value, page.size.value)
    seen, moves = page.job.latest, []
    for _ in range(3):  # then moves on while it runs (how often: benchmarks/studio_stop.py, in make bench)
        while page.job.latest == seen and time.perf_counter() < ends:
            time.sleep(0.01)
        moves.append(page.job.latest[0] > seen[0])
        seen = page.job.latest
    assert moves == [True, True, True], (moves, seen)
    page.job.stop()
    page.job.wait(60)
    page.results.wait(60)
    status = html.unescape(page.job.status.value)
    done = int(re.search(r'data-done="(\d+)"', status)[1])
    assert 'data-state="stopped"' in status and f'data-total="{asked}"' in status and 0 < done < asked
    assert f"stopped · {done:,} of {asked:,} games" in status
    assert re.search(r'data-stop-seconds="[0-9.]+"', status)  # it says how long Stop took (bounded in make bench)
    (record,) = page.workspace.store.runs()
    assert (record["status"], record["done"], record["total"]) == ("stopped", done, asked)
    kept, tables = page.workspace.store.load(record["id"])
    assert tables and all(t.height for t in tables.values())  # the tables of what finished
    assert f"stopped · {done:,} of {asked:,} games" in html.unescape(page.results.header.value)


# -- the size of a run before Run: games in all, time and memory from a measured pilot ------------------------
def test_the_form_shows_games_in_all_and_an_estimate_measured_here_before_run(tmp_path):
    page = StudyPanel("duel", "battlefields", workspace=Workspace(tmp_path))
    page.set(games=1000, battlefields="crystal_garden,free_steppe,wind_square", decks="regular,unlimited",
             agents="greedy,greedy; greedy,random")
    found = page.estimate(wait=True)
    assert found["games"] == 1000 * 3 * 2 * 2  # games × battlefields × decks × pairings
    assert found["seconds"] > 0 and found["bytes"] > 0 and found["refused"] is None
    page._show_size()
    line = page.size.value
    assert 'data-games="12000"' in line and "12,000 games in all" in line and "measured here" in line
    shown = float(re.search(r'data-seconds="([^"]+)"', line).group(1))  # what the browser tests read: not 0.0
    assert shown == pytest.approx(found["seconds"], rel=1e-5)  # a fast engine's 0.15 s once read "0.1", or "0.0"
    assert page.job.status.value.count('data-state="idle"') == 1  # nothing was played


def test_a_balance_search_is_judged_by_the_games_it_holds_not_all_it_plays(tmp_path):
    """Auto-balance plays ``games`` at each value tried and keeps only their counts: its memory is one value's
    games.  Its long run (the Stop walk's, 2 values of 1,000,000 games at least, 8,000,000 at most) was refused
    by the studio as 28.9 GB; it fits, and the time still counts every game it may play."""
    page = StudyPanel("duel", "balance", workspace=Workspace(tmp_path))
    long = get_study("duel", "balance").long_settings("duel")
    page.set(**long)
    found = page.estimate(wait=True)
    assert found["games"] == 8_000_000 and found["refused"] is None
    settings, params = page.values()
    measured = page._pilot(settings, params, True)  # the pilot the estimate was made from
    assert found["bytes"] == measured.memory(long["games"])  # one value's games, not eight values'
    workers = page.run_form.values()["workers"]
    assert found["seconds"] == pytest.approx(measured.seconds(8_000_000, workers))  # every game it may play


def test_a_long_run_asks_for_a_second_press_and_a_run_too_big_for_memory_is_refused(tmp_path, monkeypatch):
    from workbench.core.sim import stream
    from workbench.ui import studies as panel_module

    page = StudyPanel("toy", workspace=Workspace(tmp_path))
    page.set(games=500)
    monkeypatch.setattr(panel_module, "CONFIRM_SECONDS", 0.0)  # any run is "long" here
    assert page.run() is None and not page.job.running  # the first press asks
    assert "Press Run again to start it" in page.note.value and 'data-state="confirm"' in page.job.status.value
    page.set(games=400)  # another run: asked again, never started by the old confirmation
    assert page.run() is None and not page.job.running and "400 games" in page.note.value
    page.run()  # the second press of the same run starts it
    page.job.wait()
    page.results.wait()
    assert page.tables["games"].height == 400
    monkeypatch.setattr(stream, "memory_limit", lambda: 10_000)  # 10 kB: 400 games do not fit
    page.set(games=401)
    assert page.run() is None and not page.job.running
    assert "not run: 401 games would take about" in page.note.value and "choose fewer games" in page.note.value
    assert 'data-state="refused"' in page.job.status.value
    with pytest.raises(InputError, match="more than the 9.8 KB allowed"):
        page.run(wait=True)  # a script is refused the same way


def test_a_study_that_does_not_declare_its_size_says_it_is_known_once_it_runs():
    page = StudyPanel("babel", "endings")  # its games per cell and pairing: the cells are known once it runs
    assert page.estimate()["games"] is None
    assert "known once it runs" in page.size.value


def test_a_stopped_runs_tables_that_fail_to_show_are_said_in_the_note_and_logged_never_lost():
    """on_stopped raising (a table that cannot be drawn) used to escape the run's thread: printed to a kernel's
    stderr (the page's hidden output), the page kept waiting for tables that never came."""
    import logging

    from workbench.core.errors import RunInterrupted
    from workbench.ui.run import RunPanel

    def task(on_progress, should_stop):
        on_progress(5, 10)
        raise RunInterrupted(None, 5, 10)

    def show(exc, took):
        raise ValueError("a table could not be drawn")

    said, records = [], []
    seen = logging.Handler()
    seen.emit = records.append  # the studio sends this logger to the server's console (it may not propagate)
    logging.getLogger("workbench.ui").addHandler(seen)
    job = RunPanel()
    try:
        job.start(task, lambda result, took: None, show, said.append)
        job.wait(30)
    finally:
        logging.getLogger("workbench.ui").removeHandler(seen)
    assert 'data-state="stopped"' in job.status.value  # the run did stop, and says so
    assert said == ["the stopped run's tables could not be shown: unexpected error (ValueError): a table could "
                    "not be drawn"]
    assert any(r.exc_info and "a table could not be drawn" in str(r.exc_info[1]) for r in records)
    assert not job.running and not job.run_button.disabled  # Run is enabled again


def test_a_studio_kernels_thread_that_dies_says_so_in_the_server_log(monkeypatch):
    import logging
    import threading

    from workbench.app import studio

    monkeypatch.setattr(threading, "excepthook", threading.__excepthook__)  # as in a kernel: Python's own
    studio._log_to_server()
    assert threading.excepthook is studio._thread_failed
    records = []
    seen = logging.Handler()
    seen.emit = records.append  # beside the handler to the server's console (the logger does not propagate)
    studio.log.addHandler(seen)

    def die():
        raise RuntimeError("a background job failed")

    try:
        thread = threading.Thread(target=die, name="workbench-results")
        thread.start()
        thread.join()
    finally:
        studio.log.removeHandler(seen)
    (record,) = [r for r in records if "uncaught error in thread workbench-results" in r.getMessage()]
    assert "a background job failed" in str(record.exc_info[1])


def _tree(widget) -> set[str]:
    """The model ids of ``widget`` and everything under it (children, layouts, styles)."""
    ids, stack = set(), [widget]
    while stack:
        found = stack.pop()
        if found is None or not hasattr(found, "model_id") or found.model_id in ids:
            continue
        ids.add(found.model_id)
        stack += [getattr(found, "layout", None), getattr(found, "style", None), *getattr(found, "children", ())]
    return ids


@pytest.mark.parametrize("game", game_names())
def test_a_study_switch_closes_everything_the_last_switch_made_but_the_form_shown(game, monkeypatch):
    import threading

    from ipywidgets.widgets.widget import Widget, _instances

    page = StudyPanel(game)
    here, made = threading.get_ident(), []  # every widget this test's thread makes (other tests' threads aside)
    monkeypatch.setattr(Widget, "_widget_construction_callback",
                        lambda widget: made.append(widget) if threading.get_ident() == here else None)
    names = [s.name for s in studies(game)]
    last: set[str] = set()
    for name in names[1:] + names[:1]:
        made.clear()
        page.picker.value = name
        shown = _tree(page.widget)
        assert made and {x.model_id for x in made if x.comm is not None} <= shown, \
            f"{game} {name}: a widget the switch made is open but not on the page"
        assert not last & set(_instances), f"{game} {name}: the last form's widgets are still open"
        assert shown <= set(_instances), f"{game} {name}: the form shown is closed"
        assert page.study.name == name and (page.settings is None or set(page.settings.fields) == {
            p.name for p in page.study.settings})
        last = {x.model_id for x in made}


@pytest.mark.parametrize("game", [g for g in game_names() if lessons(g)])
def test_a_lesson_switch_closes_the_last_lessons_form_and_guess(game):
    from ipywidgets.widgets.widget import _instances

    from workbench.ui.lessons import LessonPanel

    page = LessonPanel(game)
    names = list(page.lessons)
    for name in names[1:] + names[:1]:
        shown = _tree(page.form_box) | _tree(page.guess_box)
        page.picker.value = name
        kept = _tree(page.form_box.layout) | _tree(page.guess_box.layout) | {page.form_box.model_id,
                                                                             page.guess_box.model_id}
        assert not (shown - kept) & set(_instances), f"{game} {name}: the last lesson's form or guess is still open"
        assert _tree(page.form_box) | _tree(page.guess_box) <= set(_instances)
    page.wait(120)
