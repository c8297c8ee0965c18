"""Studies by declaration: every game has core's generic studies; their tables match plain simulations."""

from __future__ import annotations

import polars as pl
import pytest

from tests.scipy_intervals import wilson
from workbench.core.errors import InputError
from workbench.core.sim.runner import simulate
from workbench.core.studies.study import get_study, studies


def test_every_game_lists_the_generic_studies_before_its_own():
    assert [s.name for s in studies("toy")] == ["outcomes", "balance", "ladder", "skill", "verdicts", "edge"]
    assert [s.name for s in studies("duel")][:6] == ["outcomes", "balance", "ladder", "skill", "verdicts",
                                                     "dead_cards"]
    assert "skill" not in [s.name for s in studies("dietower")]  # simultaneous play: no seat moves first
    assert "verdicts" not in [s.name for s in studies("dietower")]  # nor any verdict the game declares
    assert "dead_cards" not in [s.name for s in studies("babel")]  # no card table says which card is played
    assert "battlefields" in [s.name for s in studies("duel")]
    assert "readings" in [s.name for s in studies("duel")]  # it declares readings; the toy declares none
    assert [s.name for s in studies("dietower")][3:] == ["readings", "reduced_decks", "equilibrium", "convergence",
                                                         "full_deck"]
    balance = get_study("toy", "balance")
    assert balance.resolve({})["param"] == "edge"
    assert get_study("toy", "balance").settings[0].choices == ("edge", "limit")


def test_outcomes_tables_count_what_a_plain_simulation_counts():
    tables = get_study("toy", "outcomes").execute("toy", {"games": 600, "agents": "greedy,random"}, {"edge": 0.3},
                                                   seed=9)
    frame = simulate("toy", 600, params={"edge": 0.3}, agents="greedy,random", seed=9, progress=False)
    seats = tables["seats"]
    for seat in ("p1", "p2"):
        row = seats.filter(pl.col("seat") == seat).row(0, named=True)
        k = int((frame["winner"] == seat).sum())
        assert (row["n"], row["k"], row["rate"]) == (600, k, pytest.approx(k / 600))
        assert (row["low"], row["high"]) == pytest.approx(wilson(k, 600), abs=1e-12)  # scipy's Wilson interval
    assert tables["duration"]["length_max"].item() == frame["length"].max()


def test_the_generic_balance_study_finds_the_crossing_between_the_values_it_tried():
    tables = get_study("toy", "balance").execute("toy", {"param": "edge", "low": 0.0, "high": 1.0, "seat": "p2",
                                                         "target": 0.4, "games": 400, "agents": "greedy,random"},
                                                 seed=2)
    points, est = tables["points"], tables["estimate"].row(0, named=True)
    for value, k in zip(points["value"], points["k"], strict=True):  # each point is a plain simulation
        frame = simulate("toy", 400, params={"edge": value}, agents="greedy,random", seed=2, progress=False)
        assert k == int((frame["winner"] == "p2").sum())
    assert est["found"]
    below = points.filter(pl.col("rate") < 0.4)["value"].max()
    above = points.filter(pl.col("rate") >= 0.4)["value"].min()
    assert below < est["value"] <= above
    chart = get_study("toy", "balance").make_charts(tables)["balance"].to_dict()
    assert chart["layer"][-1]["mark"]["type"] == "rule" and chart["layer"][-1]["encoding"]["y"] == {"datum": 0.4}
    plotted = sorted(row["rate"] for row in chart["datasets"][chart["data"]["name"]])
    assert plotted == sorted(points["rate"].to_list())


def test_bad_settings_are_named():
    with pytest.raises(InputError, match="study 'balance': unknown setting 'steps'; allowed: param, low"):
        get_study("toy", "balance").resolve({"steps": 3})
    with pytest.raises(InputError, match="setting 'param': 'fast' is not allowed; allowed: edge | limit"):
        get_study("toy", "balance").resolve({"param": "fast"})
    with pytest.raises(InputError, match=r"toy: unknown study 'cards'; allowed: outcomes, balance"):
        get_study("toy", "cards")


# -- one validator: the study's own, used by the CLI, the form and the run -------------------------------------
def _every_study():
    from workbench.core.model import game_names

    return [(game, s.name) for game in game_names() for s in studies(game)]


@pytest.mark.parametrize(("game", "name"), _every_study())
def test_every_studys_defaults_pass_its_own_validator(game, name):
    settings, params = get_study(game, name).validate(game, {})
    assert set(settings) == {p.name for p in get_study(game, name).settings}
    assert isinstance(params, dict)


def test_a_combination_the_study_cannot_run_is_refused_by_its_validator_naming_the_field_before_any_work():
    from workbench.core.studies.study import SettingError

    reduced = get_study("dietower", "reduced_decks")
    with pytest.raises(SettingError, match=r"largest suit 7 is too big to count exactly with 3 players; "
                                           r"allowed: up to 5 with 3 players") as refused:
        reduced.validate("dietower", {"players": 3, "largest_suit": 7})
    assert refused.value.field == "largest_suit"
    with pytest.raises(SettingError, match="largest suit 3 is below smallest suit 4") as refused:
        reduced.validate("dietower", {"smallest_suit": 4, "largest_suit": 3})
    assert refused.value.field == "largest_suit"
    # execute is the same validator: refused before a game is played or a fraction counted
    played = []
    with pytest.raises(SettingError):
        reduced.execute("dietower", {"players": 3, "largest_suit": 7}, on_progress=lambda d, t: played.append(d))
    assert played == []


def test_the_balance_study_of_a_game_without_a_first_mover_names_a_seat_by_default_and_runs():
    balance = get_study("dietower", "balance")
    assert balance.resolve({})["seat"] == "p1"  # simultaneous play: no first mover to default to
    tables = balance.execute("dietower", {"games": 40, "evaluations": 2}, seed=1)
    assert tables["points"].height == 2 and tables["points"]["n"].to_list() == [40, 40]
