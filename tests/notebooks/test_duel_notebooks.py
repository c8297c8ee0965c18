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
    BATTLEFIELDS: {"GAMES": 60, "BATTLEFIELDS": ["crystal_garden", "free_steppe"], "MISS_RATES": (0.0, 0.2)},
    CARDS: {"GAMES": 80, "NEW_COST": 4},
}


@pytest.mark.parametrize("path", [BATTLEFIELDS, CARDS], ids=lambda p: p.stem)
def test_notebook_is_committed_thin_and_without_outputs(path):
    code = thin_code_cells(path, max_lines=12)
    assert "workbench.ui" in "".join(c.source for c in code)


WIDGET = "application/vnd.jupyter.widget-view+json"
ENDS = {"tower_built", "tower_destroyed", "resources", "draw", "turn_limit", "timeout"}


def _first_seat_rate(frame: pl.DataFrame) -> tuple[int, int]:
    """(first-seat wins, games) counted from the raw rows; a draw is not a win."""
    return int((frame.get_column("winner") == frame.get_column("first_seat")).sum()), frame.height


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


def _dashboard_outputs(nb) -> list[dict]:
    """What the dashboard's Output widget shows, from the widget state nbclient saves in the notebook."""
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    return [o for m in state.values() if m["model_name"] == "OutputModel" for o in m["state"].get("outputs", [])]


def _no_errors(nb) -> None:
    errors = [o for o in outputs(nb) if o.get("output_type") == "error"]
    assert not errors, errors


def _panel_rows(spec: dict, panel: dict) -> list[dict]:
    """The points of one concatenated panel (altair lifts data shared by every panel to the top)."""
    return _rows(spec, panel.get("data", spec.get("data"))["name"])


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
    assert WIDGET in mime_types(nb)  # the dashboard
    # The notebook's defaults (SEED 0, both decks, greedy vs greedy) with the small sizes, played again
    # here: the same master seed gives the same games (README), so every number can be checked game by game.
    fields, rates, decks = small["BATTLEFIELDS"], list(small["MISS_RATES"]), ("regular", "unlimited")
    frame = analysis.run_grid(fields, decks, [("greedy", "greedy")], small["GAMES"], 0, extra={"miss_rate": rates})
    games = small["GAMES"] * 2 * 2 * len(rates)  # battlefields × decks × miss rates
    assert frame.height == games == 480

    def cell(field: str, deck: str, miss: float) -> pl.DataFrame:
        return frame.filter((pl.col("battlefield") == field) & (pl.col("deck") == deck) & (pl.col("miss_rate") == miss))

    # what the dashboard's Output widget shows after its run: the summary, two tables, four charts — the
    # same as dash.display_results() prints into the notebook
    shown = _dashboard_outputs(nb)
    here = _cell_outputs(nb, "dash.display_results()")
    assert [o["output_type"] for o in shown] == [o["output_type"] for o in here] == ["stream"] + ["display_data"] * 6
    assert shown[0]["text"] == here[0]["text"] == f"{games:,} games\n"
    assert _plain(shown)[:2] == _plain(here)[:2]
    (title, table), (ends_title, ends) = (_table_rows(t) for t in _plain(here)[:2])
    assert (title, ends_title) == ("rates", "end reasons")
    # one row per battlefield × deck × miss rate; each rate a percentage with its Wilson interval
    assert sorted((r["battlefield"], r["deck"], float(r["miss_rate"])) for r in table) == sorted(
        (b, d, m) for b in fields for d in decks for m in rates)
    for r, e in zip(table, ends, strict=True):
        games_here = cell(r["battlefield"], r["deck"], float(r["miss_rate"]))
        k, n = _first_seat_rate(games_here)
        assert (r["games"], r["first_seat_win"]) == (str(small["GAMES"]), _shown(k, n))
        assert r["draws"] == _shown(int((games_here.get_column("winner") == "draw").sum()), n)
        assert (e["battlefield"], e["deck"], e["miss_rate"]) == (r["battlefield"], r["deck"], r["miss_rate"])
        reasons = games_here.get_column("reason")
        assert {k for k in e if k not in ("battlefield", "deck", "miss_rate", "games")} <= ENDS
        for reason in ENDS & set(e):
            assert e[reason] == _shown(int((reasons == reason).sum()), n)
    assert "<td style='text-align:left'>" + table[0]["first_seat_win"] + "</td>" in here[1]["data"]["text/html"]

    first_seat, lengths, ends_chart, miss = charts = _specs(here)
    assert _specs(shown) == charts
    assert [c["title"] for c in charts] == ["First-seat win rate (95 % Wilson interval)", "Game length (player turns)",
                                            "How games end", "Miss rule: change of the first-seat win rate"]
    # every chart keeps the miss rates apart, like the table
    assert first_seat["facet"]["column"]["field"] == "miss_rate"
    bars, points, fair = _layers(first_seat)
    assert [bars["mark"]["type"], points["mark"]["type"], fair["mark"]["type"]] == ["errorbar", "point", "rule"]
    assert (points["encoding"]["x"]["field"], points["encoding"]["y"]["field"], points["encoding"]["color"]["field"]) \
        == ("battlefield", "first_seat_win", "deck")
    rows = _rows(first_seat)
    assert sorted((r["battlefield"], r["deck"], r["miss_rate"]) for r in rows) == sorted(
        (b, d, m) for b in fields for d in decks for m in rates)
    for r in rows:
        k, n = _first_seat_rate(cell(r["battlefield"], r["deck"], r["miss_rate"]))
        assert (r["games"], n) == (small["GAMES"], small["GAMES"])
        assert r["first_seat_win"] == pytest.approx(k / n)
        assert (r["first_seat_win_low"], r["first_seat_win_high"]) == pytest.approx(_wilson(k, n), abs=1e-12)
    low, high = points["encoding"]["y"]["scale"]["domain"]  # zoomed to the data, the 50 % line in view
    assert fair["encoding"]["y"]["datum"] == 0.5 and 0 < low <= 0.5 <= high < 1
    assert low <= min(r["first_seat_win_low"] for r in rows) and max(r["first_seat_win_high"] for r in rows) <= high

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


@pytest.mark.slow
def test_cards_notebook_shows_the_value_model_and_the_what_if_of_its_run(run_notebook):
    from workbench.core.runner import simulate
    from workbench.games.duel.data import load_cards
    from workbench.games.duel.whatif import edited_cards_csv

    small = SMALL[CARDS]
    nb = run_notebook(CARDS, small)
    _no_errors(nb)
    assert WIDGET in mime_types(nb)
    cost = {c.key: c.cost for c in load_cards().cards}  # the data file, read here

    (rates,) = _plain(_cell_outputs(nb, "cards.model.rates_frame()"))
    assert rates.startswith("shape: (10, ")  # 7 exchange rates + 3 colour intercepts (EFFECTS.md, valuation.py)
    (ranked,) = _plain(_cell_outputs(nb, "cards.value_table()"))
    assert ranked.startswith("shape: (20, ")  # the 10 most over- and the 10 most under-costed cards
    (static,) = _specs(_cell_outputs(nb, "cards.value_chart()"))
    assert static["title"] == "Cost against value (cost units)"
    (panel,) = static["hconcat"]  # no games yet: the static model only
    assert panel["title"] == "static model"
    points = _panel_rows(static, panel)
    assert {r["key"]: r["cost"] for r in points} == cost  # every card once, at its printed cost
    residual = sorted(points, key=lambda r: -abs(r["cost"] - r["value"]))
    assert {r["key"] for r in points if r["outlier"]} == {r["key"] for r in residual[:5]}  # 5 labelled

    run = _cell_outputs(nb, "cards.run(wait=True)")
    shown = _dashboard_outputs(nb)  # the dashboard's Output widget shows the same as the cell
    assert [o["output_type"] for o in shown] == [o["output_type"] for o in run] == ["stream"] + ["display_data"] * 4
    assert shown[0]["text"] == run[0]["text"] == f"{small['GAMES']:,} games per arm, same seeds\n"
    assert _plain(shown)[:2] == _plain(run)[:2] and _specs(shown) == _specs(run)
    (title, outcomes), (card_title, card) = (_table_rows(t) for t in _plain(run)[:2])
    assert (title, card_title) == ("outcomes", "card")
    assert [r["metric"] for r in card] == ["wr_drawn", "wr_played", "play_rate"]  # of the edited card
    for r in card:  # each arm's rate with the Wilson interval of its own n
        assert r["key"] == "exchange"
        for arm in ("base", "variant"):
            n = int(r[f"n_{arm}"])
            k = round(float(r[arm].split("%")[0]) / 100 * n)
            assert r[arm] == _shown(k, n)
    whatif, both = _specs(run)
    assert whatif["title"] == "What-if: variant − baseline"
    assert [layer["mark"]["type"] for layer in whatif["layer"]] == ["errorbar", "point", "rule"]
    assert whatif["layer"][1]["encoding"]["x"]["field"] == "diff"
    # the same two arms played here: Crystal Garden, greedy vs greedy, seed 0, exchange at cost NEW_COST
    params = {"battlefield": "crystal_garden"}
    base = simulate("duel", small["GAMES"], params=params, agents="greedy,greedy", seed=0, progress=False)
    variant = simulate("duel", small["GAMES"], agents="greedy,greedy", seed=0, progress=False,
                       params={**params, "cards": str(edited_cards_csv({"exchange": {"cost": small["NEW_COST"]}}))})
    events = {"first_seat_win": pl.col("winner") == pl.col("first_seat"), "p1_win": pl.col("winner") == "p1",
              "draw": pl.col("winner") == "draw"}
    events |= {f"end_{r}": pl.col("reason") == r for r in ENDS}
    rows = _rows(whatif)
    assert [r["metric"] for r in outcomes] == [r["metric"] for r in rows]
    assert {"first_seat_win", "p1_win", "draw"} <= {r["metric"] for r in rows}
    for r, line in zip(rows, outcomes, strict=True):
        assert r["n"] == small["GAMES"] and line["n"] == str(small["GAMES"])
        k0, k1 = (int(arm.select(events[r["metric"]].sum()).item()) for arm in (base, variant))
        assert (line["base"], line["variant"]) == (_shown(k0, r["n"]), _shown(k1, r["n"]))
        assert r["diff"] == pytest.approx((k1 - k0) / r["n"]) and r["low"] <= r["diff"] <= r["high"]
        assert line["diff"] == f"{100 * r['diff']:+.1f} pts [{100 * r['low']:+.1f}, {100 * r['high']:+.1f}]"
    assert [p["title"] for p in both["hconcat"]] == ["static model", "empirical (improvement when drawn)"]
    assert {r["key"] for r in _panel_rows(both, both["hconcat"][1])} <= set(cost)


def test_run_panel_runs_in_the_background_and_keeps_results_when_stopped():
    import threading

    from workbench.ui.common import RunPanel

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

    panel = RunPanel(task, on_done=finished.append)
    assert panel.run() is None and panel.running  # returned at once: the notebook is not blocked
    panel.stop()
    release.set()
    assert panel.wait(10) == [0, 1, 2]
    assert finished == [[0, 1, 2]] and panel.progress.value == 3 and "stopped" in panel.status.value
    assert not panel.run_button.disabled and panel.stop_button.disabled


def test_dashboards_call_the_library():
    from workbench.ui import duel

    dash = duel.BattlefieldDashboard(games=40, battlefields=["free_steppe"], decks=("regular",))
    dash.overrides["start_wall"].value = "30"
    dash.compare.value = True
    frame = dash.run(wait=True)
    assert frame.height == 40 and (frame.get_column("start_wall") == 30).all()
    assert dash.comparison.height == 1
    charts = [c.to_dict() for c in dash.charts()]
    assert [c["title"] for c in charts] == ["First-seat win rate (95 % Wilson interval)", "Game length (player turns)",
                                            "How games end", "What-if: first-seat win rate, edited − own numbers"]
    k, n = _first_seat_rate(frame)
    (point,) = _rows(charts[0])
    assert (point["battlefield"], point["deck"], point["games"]) == ("free_steppe", "regular", 40)
    assert point["first_seat_win"] == pytest.approx(k / n)
    # the baseline arm (each battlefield's own numbers, same seeds), played again here
    own = analysis.run_grid(["free_steppe"], ("regular",), [("greedy", "greedy")], 40, 0)
    assert (own.get_column("start_wall") != 30).all()
    k0, n0 = _first_seat_rate(own)
    (delta,) = _rows(charts[3])
    assert (delta["metric"], delta["n"]) == ("free_steppe / regular", 40)
    assert delta["diff"] == pytest.approx(k / n - k0 / n0) and delta["low"] <= delta["diff"] <= delta["high"]

    cards = duel.CardDashboard(card="ruby", games=40)
    assert cards.edit() == {}
    cards.amount_box.children[0].value = 9
    assert cards.edit() == {"ruby": {"effect": "self.tower +9"}}
    result = cards.run(wait=True)
    assert result.cards.get_column("key").unique().to_list() == ["ruby"]
    whatif, value = (c.to_dict() for c in cards.charts())
    assert whatif["title"] == "What-if: variant − baseline"
    rows = _rows(whatif)
    assert [r["metric"] for r in rows] == result.outcomes.get_column("metric").to_list()
    for r in rows:  # each plotted difference is variant − baseline over the same 40 seeds, recounted
        event = {"first_seat_win": pl.col("winner") == pl.col("first_seat"), "p1_win": pl.col("winner") == "p1",
                 "draw": pl.col("winner") == "draw"}.get(r["metric"], pl.col("reason") == r["metric"][4:])
        change = result.variant.select(event.mean()).item() - result.baseline.select(event.mean()).item()
        assert r["n"] == 40 and r["diff"] == pytest.approx(change) and r["low"] <= r["diff"] <= r["high"]
    assert [p["title"] for p in value["hconcat"]] == ["static model", "empirical (improvement when drawn)"]
    static = _panel_rows(value, value["hconcat"][0])
    assert len(static) == len(cards.cards) == 102
    assert {r["key"]: r["value"] for r in static} == pytest.approx(
        dict(zip(cards.costing.get_column("key"), cards.costing.get_column("value"), strict=True)))


def _vegalite(outputs_: list[dict]) -> int:
    return sum(any(k.startswith("application/vnd.vegalite") for k in o.get("data", {})) for o in outputs_)


def test_each_run_replaces_what_the_dashboards_show():
    """Three presses of Run: the Output widget holds one summary, one set of tables and one set of charts."""
    from workbench.ui import duel

    dash = duel.BattlefieldDashboard(games=40, battlefields=["free_steppe"], decks=("regular",))
    dash.overrides["start_wall"].value = "30"
    dash.compare.value = True
    for _ in range(3):
        frame = dash.run(wait=True)
    shown = dash.output.outputs  # the widget's state: what JupyterLab draws
    assert [o["output_type"] for o in shown] == ["stream"] + ["display_data"] * 7
    assert shown[0]["text"] == "40 games\n"
    tables = [_table_rows(t) for t in _plain(shown)[:3]]
    assert [title for title, _ in tables] == ["rates", "end reasons", "what-if"] and _vegalite(shown) == 4
    (rates,) = tables[0][1]  # one cell: free_steppe / regular
    assert (rates["battlefield"], rates["deck"], rates["games"]) == ("free_steppe", "regular", "40")
    assert rates["first_seat_win"] == _shown(*_first_seat_rate(frame))  # "47.5% [32.9–62.5]", not 0.475
    assert "first_seat_win_low" not in rates and "pairing" not in rates  # merged; one pairing needs no column

    cards = duel.CardDashboard(card="ruby", games=40)
    cards.amount_box.children[0].value = 9
    for _ in range(3):
        cards.run(wait=True)
    shown = cards.output.outputs
    assert [o["output_type"] for o in shown] == ["stream"] + ["display_data"] * 4
    assert shown[0]["text"] == "40 games per arm, same seeds\n" and _vegalite(shown) == 2
    assert [_table_rows(t)[0] for t in _plain(shown)[:2]] == ["outcomes", "card"]


def test_each_agents_win_rate_is_shown_when_the_agents_differ():
    from workbench.ui import duel

    dash = duel.BattlefieldDashboard(games=40, battlefields=["crystal_garden"], decks=("regular",),
                                     agents=("greedy", "random"))
    frame = dash.run(wait=True)
    (_, (row,)), _ = (_table_rows(t) for t in _plain(dash.output.outputs)[:2])
    wins = {seat: int((frame.get_column("winner") == seat).sum()) for seat in ("p1", "p2")}
    assert (row["p1_win"], row["p2_win"]) == (_shown(wins["p1"], 40), _shown(wins["p2"], 40))
    assert wins["p1"] > wins["p2"]  # greedy (p1) beats random, whichever seat moves first


@pytest.mark.parametrize(("field", "value", "message"), [
    ("start_wall", "ten", "field 'start wall': 'ten' is not a whole number; allowed: int in [0, 100000] (or none)"),
    ("start_wall", "-3", "field 'start wall': '-3' is out of range; allowed: int in [0, 100000] (or none)"),
    ("miss_rates", "0, ten", "field 'miss rates': 'ten' is not a number; allowed: float in [0, 1]"),
    ("miss_rates", "0, 1.5", "field 'miss rates': '1.5' is out of range; allowed: float in [0, 1]"),
    ("miss_rates", "0.1, 0.1", "field 'miss rates': '0.1' is given twice; list each miss rate once"),
    ("battlefields", (), "field 'battlefields': choose at least one; allowed: grand_wizards_fortress, "
                         "crystal_garden, coastal_fortress, sky_blue_valley, misty_harbour, wind_square, free_steppe, "
                         "mirror_labyrinth"),
    ("decks", (), "field 'decks': choose at least one; allowed: regular, unlimited"),
])
def test_a_wrong_field_is_named_with_what_is_allowed(field, value, message):
    from workbench.core.errors import InputError
    from workbench.ui import duel

    dash = duel.BattlefieldDashboard(games=40, battlefields=["free_steppe"], decks=("regular",))
    dash.run(wait=True)  # a good run first: its results give way to the message
    widget = dash.overrides[field] if field in dash.overrides else getattr(dash, field)
    widget.value = value
    with pytest.raises(InputError) as raised:
        dash.run(wait=True)
    assert str(raised.value) == message
    assert dash.panel.status.value == f"<span style='color:#c00'>error: {html.escape(message)}</span>"
    assert dash.output.outputs == ({"output_type": "stream", "name": "stdout", "text": f"error: {message}\n"},)


def test_a_what_if_without_an_edit_says_what_to_do():
    from workbench.core.errors import InputError
    from workbench.ui import duel

    cards = duel.CardDashboard(card="ruby", games=40)
    with pytest.raises(InputError, match="^move the cost or an amount slider first: the what-if changes nothing yet$"):
        cards.run(wait=True)
    assert cards.output.outputs[0]["text"] == "error: move the cost or an amount slider first: the what-if changes " \
                                              "nothing yet\n"
