"""The duel notebooks: committed thin and without outputs, and they run top to bottom with small sizes."""

from __future__ import annotations

import nbformat
import polars as pl
import pytest
from conftest import NOTEBOOKS, mime_types, outputs, parameters_cell  # noqa: I001 - the notebooks conftest

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
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in code)
    assert code[0] is parameters_cell(nb)
    assert all(len(c.source.splitlines()) <= 12 for c in code)  # no logic lives only in the notebook
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


@pytest.mark.slow
def test_battlefields_notebook_shows_the_table_and_charts_of_its_run(run_notebook):
    small = SMALL[BATTLEFIELDS]
    nb = run_notebook(BATTLEFIELDS, small)
    _no_errors(nb)
    assert WIDGET in mime_types(nb)  # the dashboard
    # The notebook's defaults (SEED 0, both decks, greedy vs greedy) with the small sizes, played again
    # here: the same master seed gives the same games (README), so the charts can be checked game by game.
    fields, rates = small["BATTLEFIELDS"], list(small["MISS_RATES"])
    frame = analysis.run_grid(fields, ("regular", "unlimited"), [("greedy", "greedy")], small["GAMES"], 0,
                              extra={"miss_rate": rates})
    games = small["GAMES"] * 2 * 2 * len(rates)  # battlefields × decks × miss rates
    assert frame.height == games == 480
    shown = "".join(o.get("text", "") for o in _dashboard_outputs(nb))
    assert f"{games:,} games" in shown  # the dashboard's own summary line

    # dash.table(): one row per battlefield × deck × pairing × miss rate
    (out,) = _cell_outputs(nb, "dash.table()")
    assert out["data"]["text/plain"].startswith(f"shape: ({2 * 2 * 1 * len(rates)},")
    assert all(c in out["data"]["text/html"] for c in ("battlefield", "miss_rate", "first_seat_win", *fields))

    first_seat, lengths, ends, miss = charts = _specs(_cell_outputs(nb, "dash.charts()"))
    assert [c["title"] for c in charts] == ["First-seat win rate (95 % Wilson interval)", "Game length (player turns)",
                                            "How games end", "Miss rule: change of the first-seat win rate"]
    assert [layer["mark"]["type"] for layer in first_seat["layer"]] == ["errorbar", "point", "rule"]
    points = first_seat["layer"][1]["encoding"]
    assert (points["x"]["field"], points["y"]["field"], points["color"]["field"]) == ("battlefield", "first_seat_win",
                                                                                     "deck")
    # one point per battlefield × deck; the chart pools both miss rates (dash.table() splits them)
    rows = _rows(first_seat)
    assert sorted((r["battlefield"], r["deck"]) for r in rows) == sorted(
        (b, d) for b in fields for d in ("regular", "unlimited"))
    for r in rows:
        cell = frame.filter((pl.col("battlefield") == r["battlefield"]) & (pl.col("deck") == r["deck"]))
        k, n = _first_seat_rate(cell)
        assert (r["games"], n) == (small["GAMES"] * len(rates), small["GAMES"] * len(rates))
        assert r["first_seat_win"] == pytest.approx(k / n)
        assert (r["first_seat_win_low"], r["first_seat_win_high"]) == pytest.approx(_wilson(k, n), abs=1e-12)

    assert lengths["encoding"]["x"]["field"] == "bin_start" and lengths["encoding"]["color"]["field"] == "battlefield"
    for field in fields:
        mine = [r for r in _rows(lengths) if r["battlefield"] == field]
        played = frame.filter(pl.col("battlefield") == field).get_column("length")
        assert sum(r["count"] for r in mine) == played.len() == games // 2
        for r in mine:  # integer lengths, bins edged on halves
            assert r["count"] == int(((played > r["bin_start"]) & (played < r["bin_end"])).sum())

    assert (ends["encoding"]["x"]["field"], ends["encoding"]["color"]["field"]) == ("cell", "reason")
    for r in _rows(ends):
        field, deck = r["cell"].split(" / ")
        reasons = frame.filter((pl.col("battlefield") == field) & (pl.col("deck") == deck)).get_column("reason")
        assert r["reason"] in ENDS and (r["n"], r["count"]) == (reasons.len(), int((reasons == r["reason"]).sum()))

    assert miss["facet"]["column"]["field"] == "miss_rate"
    assert miss["spec"]["layer"][1]["encoding"]["x"]["field"] == "diff"
    deltas = _rows(miss)
    assert len(deltas) == 4 and {r["miss_rate"] for r in deltas} == {rates[1]}
    for r in deltas:
        field, deck = r["cell"].split(" / ")
        cell = frame.filter((pl.col("battlefield") == field) & (pl.col("deck") == deck))
        k1, n1 = _first_seat_rate(cell.filter(pl.col("miss_rate") == rates[1]))
        k0, n0 = _first_seat_rate(cell.filter(pl.col("miss_rate") == rates[0]))
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
    outcomes, card = _plain(run)[:2]
    assert card.startswith("shape: (3, ")  # wr_drawn, wr_played, play_rate of the edited card
    assert all(m in card for m in ("exchange", "wr_drawn", "wr_played", "play_rate"))
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
    assert outcomes.startswith(f"shape: ({len(rows)}, ")
    assert {"first_seat_win", "p1_win", "draw"} <= {r["metric"] for r in rows}
    for r in rows:
        assert r["n"] == small["GAMES"]
        change = variant.select(events[r["metric"]].mean()).item() - base.select(events[r["metric"]].mean()).item()
        assert r["diff"] == pytest.approx(change) and r["low"] <= r["diff"] <= r["high"]
    assert [p["title"] for p in both["hconcat"]] == ["static model", "empirical (improvement when drawn)"]
    assert {r["key"] for r in _panel_rows(both, both["hconcat"][1])} <= set(cost)
    shown = "".join(o.get("text", "") for o in _dashboard_outputs(nb))
    assert f"{small['GAMES']:,} games per arm, same seeds" in shown


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
