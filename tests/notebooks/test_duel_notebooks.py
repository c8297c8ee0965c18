"""The duel notebooks: committed thin and without outputs, and they run top to bottom with small sizes."""

from __future__ import annotations

import html
import re

import polars as pl
import pytest
from conftest import NOTEBOOKS, mime_types, outputs, thin_code_cells  # noqa: I001 - the notebooks conftest

from tests.independent import wilson as _wilson
from workbench.games.duel import analysis

BATTLEFIELDS = NOTEBOOKS / "duel_battlefields.ipynb"
CARDS = NOTEBOOKS / "duel_cards.ipynb"
SMALL = {
    BATTLEFIELDS: {"GAMES": 60, "BATTLEFIELDS": "crystal_garden,free_steppe", "MISS_RATES": "0, 0.2"},
    CARDS: {"CARD_GAMES": 10, "GAMES": 80, "EDITS": "exchange.cost=4"},
}


@pytest.mark.parametrize("path", [BATTLEFIELDS, CARDS], ids=lambda p: p.stem)
def test_notebook_is_committed_thin_and_without_outputs(path):
    code = thin_code_cells(path, max_lines=12)
    assert "workbench.ui" in "".join(c.source for c in code)


WIDGET = "application/vnd.jupyter.widget-view+json"
ENDS = {"tower_built", "tower_destroyed", "resources", "draw", "turn_limit", "timeout"}
# how a table a person reads shows those keys, and the compared metrics (the frames and charts keep the keys)
ENDS_SHOWN = {"tower built": "tower_built", "tower destroyed": "tower_destroyed", "resources": "resources",
              "draw": "draw", "turn limit": "turn_limit", "timeout": "timeout"}
METRICS_SHOWN = {"first_seat_score": "first seat score", "first_seat_win": "first seat wins", "p1_win": "p1 wins",
                 "draw": "draw",
                 "wr_drawn": "win rate when drawn", "wr_played": "win rate when played",
                 "play_rate": "played when drawn",
                 **{f"end_{key}": f"ends: {shown}" for shown, key in ENDS_SHOWN.items()}}


def _first_seat_rate(frame: pl.DataFrame) -> tuple[int, int]:
    """(first-seat wins, games) counted from the raw rows; a draw is not a win."""
    return int((frame.get_column("winner") == frame.get_column("first_seat")).sum()), frame.height


def _first_seat_score(frame: pl.DataFrame) -> float:
    """The first seat's score counted from the raw rows: a win 1, a draw (no winner seat) half."""
    winner = frame.get_column("winner")
    wins = int((winner == frame.get_column("first_seat")).sum())
    draws = int((~winner.is_in(["p1", "p2"])).sum())
    return (wins + draws / 2) / frame.height


def _rows(spec: dict, name: str | None = None) -> list[dict]:
    """The data rows of a chart spec (the only dataset, or the one called ``name``)."""
    return spec["datasets"][name] if name else next(iter(spec["datasets"].values()))


def _specs(outputs_: list[dict]) -> list[dict]:
    """The Vega-Lite specs among ``outputs_``, in display order."""
    return [v for o in outputs_ for k, v in o.get("data", {}).items() if k.startswith("application/vnd.vegalite")]


def _plain(outputs_: list[dict]) -> list[str]:
    return [str(o["data"]["text/plain"]) for o in outputs_ if "text/plain" in o.get("data", {})]


def _cell_outputs(nb, code: str) -> list[dict]:
    """The outputs of the one code cell whose source contains ``code``."""
    (cell,) = [c for c in nb.cells if c.cell_type == "code" and code in c.source]
    return cell.get("outputs", [])


def _panel_html(nb) -> str:
    """What the panels show (their HTML widgets), from the widget state nbclient saves in the notebook."""
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    return "".join(m["state"].get("value", "") for m in state.values() if m["model_name"] == "HTMLModel")


def _no_errors(nb) -> None:
    errors = [o for o in outputs(nb) if o.get("output_type") == "error"]
    assert not errors, errors


def _panel_rows(spec: dict, panel: dict) -> list[dict]:
    """The points of one concatenated panel (altair lifts data shared by every panel to the top)."""
    return _rows(spec, panel.get("data", spec.get("data"))["name"])


def _tables(outputs_: list[dict]) -> dict[str, list[dict[str, str]]]:
    """Every shown table of ``outputs_`` by its title."""
    return dict(_table_rows(t) for t in _plain(outputs_) if not t.startswith("<altair") and "\n" in t)


def _table_rows(text: str) -> tuple[str, list[dict[str, str]]]:
    """A shown table's text (``ShownTable``): its title and rows; columns are two or more spaces apart."""
    title, header, _rule, *rows = text.splitlines()
    columns = re.split(r"\s{2,}", header.strip())
    return title, [dict(zip(columns, re.split(r"\s{2,}", r.strip()), strict=True)) for r in rows]


def _shown(k: int, n: int) -> str:
    """How a rate reads in a table (as in the report): "53.3% [40.9–65.4]"."""
    low, high = _wilson(k, n)
    return f"{100 * k / n:.1f}% [{100 * low:.1f}–{100 * high:.1f}]"


def _layers(spec: dict) -> list[dict]:
    return spec["spec"]["layer"] if "facet" in spec else spec["layer"]


@pytest.mark.slow
def test_battlefields_notebook_shows_the_tables_and_charts_of_its_run(run_notebook):
    small = SMALL[BATTLEFIELDS]
    nb = run_notebook(BATTLEFIELDS, small)
    _no_errors(nb)
    assert WIDGET in mime_types(nb)  # the panel
    # The notebook's defaults (SEED 0, both decks, greedy vs greedy) with the small sizes, played again
    # here: the same master seed gives the same games (README), so every number can be checked game by game.
    fields, rates, decks = ["crystal_garden", "free_steppe"], [0.0, 0.2], ("regular", "unlimited")
    frame = analysis.run_grid(fields, decks, [("greedy", "greedy")], small["GAMES"], 0, extra={"miss_rate": rates})
    games = small["GAMES"] * 2 * 2 * len(rates)  # battlefields × decks × miss rates
    assert frame.height == games == 480

    def cell(field: str, deck: str, miss: float) -> pl.DataFrame:
        return frame.filter((pl.col("battlefield") == field) & (pl.col("deck") == deck) & (pl.col("miss_rate") == miss))

    here = _cell_outputs(nb, "study_panel(")
    assert here[1]["data"]["text/plain"] == f"{games:,} games played"
    tables = _tables(here)
    assert list(tables) == ["first_seat", "length", "end_reasons", "miss_rule"]
    shown = _panel_html(nb)  # the panel shows the same tables as the cell
    assert f'data-games="{games}"' in shown
    # one row per battlefield × deck × miss rate; each rate a percentage with its Wilson interval
    table = tables["first_seat"]
    # a person reads the battlefields by their names in the data file; the frame keeps the keys
    key_of = {name: key for key, name in pl.read_csv("data/duel/battlefields.csv").select("key", "name_en").rows()}
    assert sorted((key_of[r["battlefield"]], r["deck"], float(r["miss_rate"])) for r in table) == sorted(
        (b, d, m) for b in fields for d in decks for m in rates)
    for r in table:
        games_here = cell(key_of[r["battlefield"]], r["deck"], float(r["miss_rate"]))
        k, n = _first_seat_rate(games_here)
        assert (r["games"], r["first_seat_win"]) == (str(small["GAMES"]), _shown(k, n))
        assert r["draws"] == _shown(int((games_here.get_column("winner") == "draw").sum()), n)
        reasons = games_here.get_column("reason")
        assert {c[4:] for c in r if c.startswith("end_")} <= ENDS
        for reason in ENDS:
            if f"end_{reason}" in r:
                assert r[f"end_{reason}"] == _shown(int((reasons == reason).sum()), n)
        assert f'<td class="num">{r["first_seat_win"]}</td>' in shown
    for r in tables["end_reasons"]:
        reasons = cell(key_of[r["battlefield"]], r["deck"], float(r["miss_rate"])).get_column("reason")
        key = ENDS_SHOWN[r["reason"]]  # shown in words: "tower destroyed"
        assert r["rate"] == _shown(int((reasons == key).sum()), reasons.len())
    assert {(key_of[r["battlefield"]], r["deck"], float(r["miss_rate"])) for r in tables["end_reasons"]} == {
        (b, d, m) for b in fields for d in decks for m in rates}

    first_seat, lengths, ends_chart, miss = charts = _specs(here)
    assert [c["title"] for c in charts] == ["First seat score, a draw counting half (95 % Wilson interval)",
                                            "Game length (player turns)",
                                            "How games end", "Miss rule: change of the first-seat win rate"]
    assert shown.count('class="wb-chart"') == 4 and shown.count("<svg") == 4  # the panel draws the same four
    # every chart keeps the miss rates apart, like the table
    assert first_seat["facet"]["column"]["field"] == "miss_rate"
    bars, points, fair = _layers(first_seat)
    assert [bars["mark"]["type"], points["mark"]["type"], fair["mark"]["type"]] == ["errorbar", "point", "rule"]
    assert (points["encoding"]["x"]["field"], points["encoding"]["y"]["field"], points["encoding"]["color"]["field"]) \
        == ("battlefield", "first_seat_score", "deck")
    rows = _rows(first_seat)
    assert sorted((r["battlefield"], r["deck"], r["miss_rate"]) for r in rows) == sorted(
        (b, d, m) for b in fields for d in decks for m in rates)
    for r in rows:
        k, n = _first_seat_rate(cell(r["battlefield"], r["deck"], r["miss_rate"]))
        assert (r["games"], n) == (small["GAMES"], small["GAMES"])
        games = cell(r["battlefield"], r["deck"], r["miss_rate"])
        assert r["first_seat_score"] == pytest.approx(_first_seat_score(games))  # a draw counts half
        assert (games.get_column("winner") == "draw").sum() == 0, "a drawn game: the interval is not the plain Wilson"
        assert (r["first_seat_score_low"], r["first_seat_score_high"]) == pytest.approx(_wilson(k, n), abs=1e-12)
    low, high = points["encoding"]["y"]["scale"]["domain"]  # zoomed to the data, the 50 % line in view
    assert fair["encoding"]["y"]["datum"] == 0.5 and 0 < low <= 0.5 <= high < 1
    assert low <= min(r["first_seat_score_low"] for r in rows) and max(r["first_seat_score_high"] for r in rows) <= high

    assert lengths["spec"]["encoding"]["x"]["field"] == "bin_start"
    labels = {f"{b} · miss {m}": (b, m) for b in fields for m in rates}
    assert {r["battlefield"] for r in _rows(lengths)} == set(labels)
    for label, (field, m) in labels.items():
        mine = [r for r in _rows(lengths) if r["battlefield"] == label]
        played = frame.filter((pl.col("battlefield") == field) & (pl.col("miss_rate") == m)).get_column("length")
        assert sum(r["count"] for r in mine) == played.len() == 2 * small["GAMES"]  # both decks
        for r in mine:  # integer lengths, bins edged on halves
            assert r["count"] == int(((played > r["bin_start"]) & (played < r["bin_end"])).sum())

    assert (ends_chart["encoding"]["x"]["field"], ends_chart["encoding"]["color"]["field"]) == ("cell", "reason")
    assert {r["cell"] for r in _rows(ends_chart)} == {f"{b} / {d} · miss {m}" for b in fields for d in decks
                                                       for m in rates}
    for r in _rows(ends_chart):
        field, rest = r["cell"].split(" / ")
        deck, m = rest.split(" · miss ")
        reasons = cell(field, deck, float(m)).get_column("reason")
        assert r["reason"] in ENDS and (r["n"], r["count"]) == (reasons.len(), int((reasons == r["reason"]).sum()))

    assert miss["facet"]["column"]["field"] == "miss_rate"
    assert miss["spec"]["layer"][1]["encoding"]["x"]["field"] == "diff"
    deltas = _rows(miss)
    assert len(deltas) == 4 and {r["miss_rate"] for r in deltas} == {rates[1]}
    for r in deltas:
        field, deck = r["cell"].split(" / ")
        k1, n1 = _first_seat_rate(cell(field, deck, rates[1]))
        k0, n0 = _first_seat_rate(cell(field, deck, rates[0]))
        assert (r["n"], r["n_base"]) == (n1, n0) == (small["GAMES"], small["GAMES"])
        assert r["diff"] == pytest.approx(k1 / n1 - k0 / n0) and r["low"] <= r["diff"] <= r["high"]
    for r in tables["miss_rule"]:  # the share of games lost on time at the higher miss rate, counted here
        timeouts = cell(key_of[r["battlefield"]], r["deck"], rates[1]).get_column("reason")
        assert r["timeout_share"] == _shown(int((timeouts == "timeout").sum()), timeouts.len())


@pytest.mark.slow
def test_cards_notebook_shows_the_value_model_and_the_what_if_of_its_run(run_notebook):
    from workbench.core.sim.runner import simulate
    from workbench.games.duel.cardvalue.whatif import edited_cards_csv
    from workbench.games.duel.data import load_cards

    small = SMALL[CARDS]
    nb = run_notebook(CARDS, small)
    _no_errors(nb)
    assert WIDGET in mime_types(nb)
    cost = {c.key: c.cost for c in load_cards().cards}  # the data file, read here

    card_cell = _cell_outputs(nb, 'study_panel("duel", "cards"')
    assert card_cell[1]["data"]["text/plain"] == f"{8 * small['CARD_GAMES']:,} games played"  # every battlefield
    tables = _tables(card_cell)
    assert len(tables["value_model"]) == 10  # 7 exchange rates + 3 colour intercepts (EFFECTS.md, valuation.py)
    assert len(tables["static"]) == 102 and {r["key"] for r in tables["static"]} == set(cost)
    (both,) = _specs(card_cell)
    assert both["title"] == "Cost against value (cost units)"
    static, empirical = both["hconcat"]
    assert (static["title"], empirical["title"]) == ("static model", "empirical (improvement when drawn)")
    points = _panel_rows(both, static)
    assert {r["key"]: r["cost"] for r in points} == cost  # every card once, at its printed cost
    residual = sorted(points, key=lambda r: -abs(r["cost"] - r["value"]))
    assert {r["key"] for r in points if r["outlier"]} == {r["key"] for r in residual[:10]}  # `lists` labelled
    assert {r["key"] for r in _panel_rows(both, empirical)} <= set(cost)

    assert 'card_editor("duel")' in "".join(c.source for c in nb.cells)
    assert "wb-edit-cost" in "".join(str(m) for m in nb.metadata["widgets"].values())  # the editable table

    run = _cell_outputs(nb, 'study_panel("duel", "whatif"')
    assert run[1]["data"]["text/plain"] == f"{2 * small['GAMES']:,} games played"  # both arms
    tables = _tables(run)
    assert list(tables) == ["edits", "outcomes", "card"]
    (edit,) = tables["edits"]
    assert (edit["key"], edit["column"], edit["before"], edit["after"]) == ("exchange", "cost", str(cost["exchange"]),
                                                                           "4")
    assert edit["value_before"] == edit["value_after"]  # a cost edit leaves the card's effects, so its value
    card = tables["card"]
    assert [r["metric"] for r in card] == ["win rate when drawn", "win rate when played", "played when drawn"]
    for r in card:  # each arm's rate with the Wilson interval of its own n
        assert r["key"] == "exchange"
        for arm in ("base", "variant"):
            n = int(r[f"n_{arm}"])
            k = round(float(r[arm].split("%")[0]) / 100 * n)
            assert r[arm] == _shown(k, n)
    whatif, value = _specs(run)
    assert whatif["title"] == "What-if: variant − baseline"
    assert [layer["mark"]["type"] for layer in whatif["layer"]] == ["errorbar", "point", "rule"]
    assert whatif["layer"][1]["encoding"]["x"]["field"] == "diff"
    # the same two arms played here: Crystal Garden, greedy vs greedy, seed 0, exchange at cost 4
    params = {"battlefield": "crystal_garden"}
    base = simulate("duel", small["GAMES"], params=params, agents="greedy,greedy", seed=0, progress=False)
    variant = simulate("duel", small["GAMES"], agents="greedy,greedy", seed=0, progress=False,
                       params={**params, "cards": str(edited_cards_csv({"exchange": {"cost": 4}}))})
    events = {"first_seat_win": pl.col("winner") == pl.col("first_seat"), "p1_win": pl.col("winner") == "p1",
              "draw": pl.col("winner") == "draw"}
    # the score counts a draw as half: a whole number of points only when no game was drawn (checked below)
    events["first_seat_score"] = events["first_seat_win"].cast(pl.Float64) + 0.5 * events["draw"].cast(pl.Float64)
    events |= {f"end_{r}": pl.col("reason") == r for r in ENDS}
    rows = _rows(whatif)
    # the table in words; the chart shows one first-seat measure, the score (the table keeps the win share too)
    outcomes = [r for r in tables["outcomes"] if r["metric"] != METRICS_SHOWN["first_seat_win"]]
    assert len(outcomes) == len(tables["outcomes"]) - 1
    assert [r["metric"] for r in outcomes] == [METRICS_SHOWN[r["metric"]] for r in rows]
    assert {"first_seat_score", "p1_win", "draw"} <= {r["metric"] for r in rows}
    for r, line in zip(rows, outcomes, strict=True):
        assert r["n"] == small["GAMES"] and line["n"] == str(small["GAMES"])
        k0, k1 = (arm.select(events[r["metric"]].sum()).item() for arm in (base, variant))
        assert k0 == int(k0) and k1 == int(k1), "a drawn game: the score's interval is not the plain Wilson one"
        k0, k1 = int(k0), int(k1)
        assert (line["base"], line["variant"]) == (_shown(k0, r["n"]), _shown(k1, r["n"]))
        assert r["diff"] == pytest.approx((k1 - k0) / r["n"]) and r["low"] <= r["diff"] <= r["high"]
        assert line["diff"] == f"{100 * r['diff']:+.1f} pts [{100 * r['low']:+.1f}, {100 * r['high']:+.1f}]"
    assert [p["title"] for p in value["hconcat"]] == ["static model", "empirical (improvement when drawn)"]
    empirical = _panel_rows(value, value["hconcat"][1])
    assert {r["key"] for r in empirical} <= set(cost) and empirical  # the baseline arm's cards


def test_run_panel_runs_in_the_background_and_keeps_results_when_stopped():
    import threading

    from workbench.ui.run import RunPanel

    release = threading.Event()
    finished: list = []

    def task(on_progress, should_stop):
        done = []
        for block in range(100):
            if should_stop():
                break
            done.append(block)
            on_progress(len(done), 100)
            if block == 2:
                release.wait(5)  # the caller presses Stop while the task is busy
        return done

    panel = RunPanel()
    assert panel.start(task, lambda result, took: finished.append(result)) and panel.running  # not blocked
    assert not panel.start(task, finished.append)  # one task at a time
    panel.stop()
    release.set()
    assert panel.wait(10) == [0, 1, 2]
    assert finished == [[0, 1, 2]] and panel.progress.value == 3 and 'data-state="stopped"' in panel.status.value
    assert not panel.run_button.disabled and panel.stop_button.disabled


def test_run_is_taken_from_the_moment_it_is_enabled_again():
    """A press of Run as soon as the button is enabled starts the next task, never "a task runs" and nothing.

    The page enables Run from the task's thread as the task ends; a press that came before that thread had
    ended (a loaded machine, a quick hand) was dropped, and the page kept the last run's status forever.
    """
    import threading

    from workbench.ui.run import RunPanel

    panel = RunPanel()
    started: list[bool] = []
    pressed = threading.Event()

    def press_when_enabled(change) -> None:
        if change["new"] is False and not pressed.is_set():  # Run enabled: the person presses it at once
            pressed.set()
            started.append(panel.start(lambda on_progress, should_stop: "second", lambda result, took: None))

    panel.run_button.observe(press_when_enabled, names="disabled")
    assert panel.start(lambda on_progress, should_stop: "first", lambda result, took: None)
    panel.wait(10)
    assert started == [True], "a press of Run as it was enabled was dropped"
    panel.wait(10)
    assert panel.result == "second" and not panel.running


def test_the_battlefield_numbers_what_if_plays_both_arms_on_the_same_seeds():
    from workbench.ui import study_panel

    panel = study_panel("duel", "battlefields", games=40, battlefields="free_steppe", decks="regular", compare=True,
                        start_wall="30")
    tables = panel.run(wait=True)
    frame = tables["games"]
    assert frame.height == 40 and (frame.get_column("start_wall") == 30).all()
    assert tables["what_if"].height == 1
    charts = {name: c.to_dict() for name, c in panel.charts().items()}
    assert charts["what_if"]["title"] == "What-if: first-seat win rate, edited − own numbers"
    k, n = _first_seat_rate(frame)
    (point,) = _rows(charts["first_seat"])
    assert (point["battlefield"], point["deck"], point["games"]) == ("free_steppe", "regular", 40)
    assert point["first_seat_score"] == pytest.approx(_first_seat_score(frame))  # the chart: a draw counts half
    # the baseline arm (each battlefield's own numbers, same seeds), played again here
    own = analysis.run_grid(["free_steppe"], ("regular",), [("greedy", "greedy")], 40, 0)
    assert (own.get_column("start_wall") != 30).all()
    k0, n0 = _first_seat_rate(own)
    (delta,) = _rows(charts["what_if"])
    assert (delta["metric"], delta["n"]) == ("free_steppe / regular", 40)
    assert delta["diff"] == pytest.approx(k / n - k0 / n0) and delta["low"] <= delta["diff"] <= delta["high"]
    assert 'data-table="what_if"' in panel.results.body.value


def test_the_card_whatif_study_recounts_from_both_arms():
    from workbench.games.duel.cardvalue import valuation
    from workbench.ui import study_panel

    panel = study_panel("duel", "whatif", edits="ruby.effect=self.tower +9", games=40)
    tables = panel.run(wait=True)
    (edit,) = tables["edits"].iter_rows(named=True)
    assert (edit["before"], edit["after"]) == ("self.tower +5", "self.tower +9")
    assert edit["value_after"] > edit["value_before"]  # more tower, more value in the model's eyes
    assert tables["card"].get_column("key").unique().to_list() == ["ruby"]
    charts = {name: c.to_dict() for name, c in panel.charts().items()}
    rows = _rows(charts["what_if"])
    baseline, variant = (tables["games"].filter(pl.col("arm") == arm) for arm in ("baseline", "variant"))
    # the chart shows one first-seat measure, the score (a draw counts half); the table keeps the win share too
    assert [r["metric"] for r in rows] == [m for m in tables["outcomes"].get_column("metric").to_list()
                                           if m != "first_seat_win"]
    assert "first_seat_score" in {r["metric"] for r in rows}
    for r in rows:  # each plotted difference is variant − baseline over the same 40 seeds, recounted
        won, drawn = pl.col("winner") == pl.col("first_seat"), pl.col("winner") == "draw"
        event = {"first_seat_score": won.cast(pl.Float64) + 0.5 * drawn.cast(pl.Float64),
                 "p1_win": pl.col("winner") == "p1", "draw": drawn}.get(r["metric"],
                                                                       pl.col("reason") == r["metric"][4:])
        change = variant.select(event.mean()).item() - baseline.select(event.mean()).item()
        assert r["n"] == 40 and r["diff"] == pytest.approx(change) and r["low"] <= r["diff"] <= r["high"]
    value = charts["cost_vs_value"]
    static = _panel_rows(value, value["hconcat"][0])
    costing = valuation.costing_table()
    assert len(static) == 102
    assert {r["key"]: r["value"] for r in static} == pytest.approx(
        dict(zip(costing.get_column("key"), costing.get_column("value"), strict=True)))


def test_each_run_replaces_what_the_panel_shows():
    """Three presses of Run: the panel holds one summary, one set of tables and one set of charts."""
    from workbench.ui import study_panel

    panel = study_panel("duel", "battlefields", games=40, battlefields="free_steppe", decks="regular", compare=True,
                        start_wall="30")
    for _ in range(3):
        tables = panel.run(wait=True)
    body, drawn = panel.results.body.value, panel.results.charts.value
    assert body.count("games played") == 1 and body.count("data-table=") == 4  # first_seat, length, ends, what-if
    assert drawn.count('class="wb-chart"') == drawn.count("<svg") == 4
    assert f'<td class="num">{_shown(*_first_seat_rate(tables["games"]))}</td>' in body  # "47.5% [32.9–62.5]"


def test_each_agents_win_rate_is_shown_when_the_agents_differ():
    from workbench.ui import study_panel

    panel = study_panel("duel", "battlefields", games=40, battlefields="crystal_garden", decks="regular",
                        agents="greedy,random; greedy,greedy")
    tables = panel.run(wait=True)
    frame = tables["games"]
    for pairing in ("greedy vs random", "greedy vs greedy"):
        games = frame.filter(pl.col("pairing") == pairing)
        (row,) = tables["seat_wins"].filter(pl.col("pairing") == pairing).iter_rows(named=True)
        for seat in ("p1", "p2"):
            k = int((games.get_column("winner") == seat).sum())
            assert row[f"{seat}_win"] == pytest.approx(k / 40)
            assert (row[f"{seat}_win_low"], row[f"{seat}_win_high"]) == pytest.approx(_wilson(k, 40), abs=1e-12)
    mixed = frame.filter(pl.col("pairing") == "greedy vs random")
    assert (mixed.get_column("winner") == "p1").sum() > (mixed.get_column("winner") == "p2").sum()  # greedy wins


@pytest.mark.parametrize(("field", "value", "message"), [
    ("start_wall", "ten", "field 'start wall': 'ten' is not a whole number; allowed: int in [0, 100000] (or none)"),
    ("start_wall", "-3", "field 'start wall': '-3' is out of range; allowed: int in [0, 100000] (or none)"),
    ("miss_rates", "0, ten", "setting 'miss_rates': 'ten' is not a number; allowed: float in [0, 1]"),
    ("miss_rates", "0, 1.5", "setting 'miss_rates': '1.5' is out of range; allowed: float in [0, 1]"),
    ("miss_rates", "0.1, 0.1", "setting 'miss_rates': '0.1' is given twice; list each miss rate once"),
    ("battlefields", " ", "choose at least one battlefield; allowed: all, grand_wizards_fortress, crystal_garden, "
                          "coastal_fortress, sky_blue_valley, misty_harbour, wind_square, free_steppe, "
                          "mirror_labyrinth"),
    ("decks", "regular,huge", "unknown deck 'huge'; allowed: all, regular, unlimited"),
    ("compare", True, "setting 'compare': no battlefield number is changed; set one of start_tower, start_wall, "
                      "start_mines, start_monasteries, start_barracks, start_ore, start_mana, start_troops, "
                      "win_tower, win_resources to compare it with each battlefield's own"),
])
def test_a_wrong_field_is_named_with_what_is_allowed(field, value, message):
    from workbench.core.errors import InputError
    from workbench.ui import study_panel

    panel = study_panel("duel", "battlefields", games=40, battlefields="free_steppe", decks="regular")
    panel.run(wait=True)  # a good run first: its results give way to the message
    panel.set(**{field: value})
    with pytest.raises(InputError) as raised:
        panel.run(wait=True)
    assert str(raised.value) == message
    assert panel.note.value == f'<div class="wb-msg wb-msg-error" data-kind="error">{html.escape(message)}</div>'
    assert "Traceback" not in panel.job.status.value


def test_a_what_if_without_an_edit_says_what_to_do():
    from workbench.core.errors import InputError
    from workbench.ui import study_panel

    panel = study_panel("duel", "whatif", edits="ruby.effect=self.tower +5", games=40)  # Ruby's own effect
    with pytest.raises(InputError, match="^setting 'edits': the what-if changes nothing — every value given is the "
                                         "card's own$"):
        panel.run(wait=True)
    panel.set(edits="ruby.colour=red")
    with pytest.raises(InputError, match="^setting 'edits': 'ruby.colour=red' is not CARD.column=value"):
        panel.run(wait=True)
    assert "columns: cost, effect" in panel.note.value
