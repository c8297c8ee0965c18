"""Towers of Babylon's studies and report: every number recounted from the games they played.

Three decks keep the grid small (18 cells): Siege of Ur (Fire + Earth) holds Fireball (F9), the
card the what-if edits; Citadel of the Rivers (Light + Water) and Builders of Babel (Earth + Light)
do not, so their matchups are the what-if's control.
"""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest

from tests.independent import wilson
from tests.summary_checks import check_summary
from workbench.core.errors import InputError
from workbench.core.sim.runner import simulate
from workbench.core.studies.study import get_study
from workbench.games.babylon import analysis
from workbench.games.babylon import studies as st
from workbench.games.babylon.cards import load_cards
from workbench.games.babylon.cardvalue import cardstats, valuation
from workbench.games.babylon.model import MODEL

# one worker builds this module's shared fixtures once (pytest -n 2 --dist loadgroup)
pytestmark = pytest.mark.xdist_group("test_babylon_studies")

DECKS = ["siege_of_ur", "citadel_of_the_rivers", "builders_of_babel"]
CONTROL = {"citadel_of_the_rivers", "builders_of_babel"}
GAMES, SEED = 3, 5
OUTCOME = ["winner", "reason", "length", "first_seat", "tower_p1", "tower_p2", "towers_p1", "towers_p2", "drawn_p1",
           "played_p1", "drawn_p2", "played_p2"]


@pytest.fixture(scope="module")
def played() -> pl.DataFrame:
    return st.play(MODEL, DECKS, GAMES, ["greedy", "greedy"], {}, seed=SEED, workers=1)


@pytest.fixture(scope="module")
def whatif() -> dict[str, pl.DataFrame]:
    return get_study("babylon", "whatif").execute("babylon", {"edits": "Fireball.power_cost=1", "games": GAMES,
                                                              "decks": ",".join(DECKS)}, seed=SEED)


def _between(frame: pl.DataFrame, deck: str, opponent: str) -> pl.DataFrame:
    return frame.filter(((pl.col("deck_p1") == deck) & (pl.col("deck_p2") == opponent))
                        | ((pl.col("deck_p1") == opponent) & (pl.col("deck_p2") == deck)))


def _row_wins(games: pl.DataFrame, deck: str, opponent: str) -> pl.Series:
    """Per game: did the row deck win (in a mirror, the row deck is seat p1)."""
    if deck == opponent:
        return games["winner"] == "p1"
    return ((games["deck_p1"] == deck) & (games["winner"] == "p1")) | (
        (games["deck_p2"] == deck) & (games["winner"] == "p2"))


# -- the grid and the matrix -------------------------------------------------------------------------
def test_the_grid_is_every_pairing_in_both_first_seats_each_a_plain_simulation(played):
    cells = played.select("deck_p1", "deck_p2", "first").unique(maintain_order=True).rows()
    assert cells == [(a, b, f) for a in DECKS for b in DECKS for f in ("p1", "p2")]
    assert played.height == GAMES * len(cells)
    alone = simulate("babylon", GAMES, params={"deck_p1": "citadel_of_the_rivers", "deck_p2": "siege_of_ur",
                                               "first": "p2"}, agents="greedy,greedy", seed=SEED, progress=False)
    cell = played.filter(pl.col("deck_p1") == "citadel_of_the_rivers", pl.col("deck_p2") == "siege_of_ur",
                         pl.col("first") == "p2")
    assert cell.equals(alone)


def test_matrix_cells_recount_from_the_games(played):
    table = analysis.matrix_table(played, DECKS)
    assert table.select("deck", "opponent").rows() == [(a, b) for a in DECKS for b in DECKS]
    for row in table.iter_rows(named=True):
        games = _between(played, row["deck"], row["opponent"])
        won = _row_wins(games, row["deck"], row["opponent"])
        draws = int((games["winner"] == "draw").sum())
        k, n = int(won.sum()), games.height
        assert n == (2 if row["deck"] == row["opponent"] else 4) * GAMES
        assert (row["n"], row["k"], row["win"]) == (n, k, pytest.approx(k / n))
        assert (row["win_low"], row["win_high"]) == pytest.approx(wilson(k, n))
        assert (row["draws"], row["losses"]) == (pytest.approx(draws / n), n - k - draws)
        first = (games["first_seat"] == "p1") if row["deck"] == row["opponent"] else (
            ((games["deck_p1"] == row["deck"]) & (games["first_seat"] == "p1"))
            | ((games["deck_p2"] == row["deck"]) & (games["first_seat"] == "p2")))
        assert (row["win_first_n"], row["win_second_n"]) == (int(first.sum()), int((~first).sum()))
        assert row["win_first"] == pytest.approx(int((won & first).sum()) / int(first.sum()))
        assert row["significant"] == (row["p_value"] < 0.05)


def test_mirror_cells_read_the_same_games(played):
    table = analysis.matrix_table(played, DECKS)
    cell = {(r["deck"], r["opponent"]): r for r in table.iter_rows(named=True)}
    for (a, b), row in cell.items():
        other = cell[b, a]
        if a == b:
            continue
        draws = round(row["draws"] * row["n"])
        assert row["n"] == other["n"] and row["k"] + other["k"] + draws == row["n"]
        assert row["losses"] == other["k"] and row["p_value"] == pytest.approx(other["p_value"])
        assert (row["win_first_n"], row["win_second_n"]) == (other["win_second_n"], other["win_first_n"])


def test_each_deck_against_the_field_pools_its_games_against_the_others(played):
    table = analysis.deck_table(played, DECKS)
    assert table["deck"].to_list() == DECKS
    for row in table.iter_rows(named=True):
        games = played.filter((pl.col("deck_p1") == row["deck"]) ^ (pl.col("deck_p2") == row["deck"]))
        k = int((((games["deck_p1"] == row["deck"]) & (games["winner"] == "p1"))
                 | ((games["deck_p2"] == row["deck"]) & (games["winner"] == "p2"))).sum())
        assert (row["n"], row["k"]) == (games.height, k) == (8 * GAMES, k)


# -- compensation ----------------------------------------------------------------------------------------
def test_compensation_rates_are_the_first_seats_wins_of_each_arm_on_the_same_seeds():
    study = get_study("babylon", "compensation")
    tables = study.execute("babylon", {"games": 2, "decks": ",".join(DECKS[:2]), "balance_games": 2, "low": 0,
                                       "high": 1, "evaluations": 2, "balance_cards": 1}, seed=SEED)
    games = tables["games"]
    assert games.height == 2 * 8 * 4  # 2 games × 8 cells × 4 arms
    won = {}
    for row in tables["arms"].iter_rows(named=True):
        arm = games.filter(pl.col("second_cards") == row["second_cards"], pl.col("second_tp") == row["second_tp"])
        k = int((arm["winner"] == arm["first_seat"]).sum())
        won[row["arm"]] = (arm.sort("deck_p1", "deck_p2", "first", "game_index")["winner"]
                           == arm.sort("deck_p1", "deck_p2", "first", "game_index")["first_seat"])
        assert (row["first_mover_all_n"], row["first_mover_all"]) == (16, pytest.approx(k / 16))
        assert (row["first_mover_all_low"], row["first_mover_all_high"]) == pytest.approx(wilson(k, 16))
    assert set(won) == {"+1 card, +1 TP", "+1 card", "+1 TP", "no bonus"}
    for row in tables["comparison"].iter_rows(named=True):
        base, variant = won["+1 card, +1 TP"], won[row["arm"]]
        assert row["diff"] == pytest.approx((int(variant.sum()) - int(base.sum())) / 16)
        assert row["discordant"] == int((base != variant).sum())  # paired game by game
        assert row["significant"] == (row["p_value"] < 0.05)
    points = {p["value"]: (p["k"], p["n"]) for p in tables["balance_points"].iter_rows(named=True)}
    # the TP search replays the same games: at 0 TP it is the "+1 card" arm, at 1 TP the rules' arm
    assert points == {0.0: (int(won["+1 card"].sum()), 16), 1.0: (int(won["+1 card, +1 TP"].sum()), 16)}
    assert set(study.make_charts(tables)) == {"arms", "comparison", "balance"}


# -- what-if ----------------------------------------------------------------------------------------------
def test_whatif_baseline_is_the_plain_grid_and_the_control_replays_identically(played, whatif):
    games = whatif["games"]
    order = ["deck_p1", "deck_p2", "first", "game_index"]
    base = games.filter(pl.col("arm") == "baseline").drop("arm").sort(order)
    assert base.select(played.columns).equals(played.sort(order))
    variant = games.filter(pl.col("arm") == "variant").sort(order)
    assert variant["cards"].unique().to_list()[0].endswith(".csv")
    control = pl.col("deck_p1").is_in(list(CONTROL)) & pl.col("deck_p2").is_in(list(CONTROL))
    assert base.filter(control).select(OUTCOME).equals(variant.filter(control).select(OUTCOME))
    assert base.filter(control).height == 8 * GAMES


def test_whatif_moves_only_the_cells_of_the_deck_holding_the_edited_card(whatif):
    assert whatif["edits"].rows() == [("F9", "Fireball", "power_cost", "3", "1")]
    delta = whatif["matrix_delta"]
    games = whatif["games"]
    held = delta.filter(pl.col("holds_edited_card"))
    assert set(held["deck"]) | set(held["opponent"]) == set(DECKS)
    assert all("siege_of_ur" in (r["deck"], r["opponent"]) for r in held.iter_rows(named=True))
    quiet = delta.filter(~pl.col("holds_edited_card"))
    assert quiet.height == 4 and (quiet["diff"] == 0).all() and (quiet["discordant"] == 0).all()
    assert held["discordant"].sum() > 0  # a cheaper Fireball changes some of Siege of Ur's games
    for row in delta.iter_rows(named=True):
        arms = [_between(games.filter(pl.col("arm") == arm), row["deck"], row["opponent"]) for arm in
                ("baseline", "variant")]
        k0, k1 = (int(_row_wins(a, row["deck"], row["opponent"]).sum()) for a in arms)
        assert row["n"] == arms[0].height == arms[1].height
        assert (row["base"], row["variant"]) == (pytest.approx(k0 / row["n"]), pytest.approx(k1 / row["n"]))
        assert row["diff"] == pytest.approx((k1 - k0) / row["n"]) and row["significant"] == (row["p_value"] < 0.05)
    cards = whatif["cards"]
    assert set(cards["id"]) == {"F9"}
    for row in cards.iter_rows(named=True):  # each arm's rate with the Wilson interval of its own n
        for arm in ("base", "variant"):
            k = round(row[arm] * row[f"n_{arm}"])
            assert (row[f"{arm}_low"], row[f"{arm}_high"]) == pytest.approx(wilson(k, row[f"n_{arm}"]))
    assert set(get_study("babylon", "whatif").make_charts(whatif)) == {"matrix_delta", "cells"}


@pytest.mark.parametrize(("edits", "message"), [
    ("", "the what-if changes nothing"),
    ("F9 power_cost 2", "'F9 power_cost 2' is not CARD.column=value"),
    ("Z9.power_cost=2", "no row with id or name 'Z9' to edit"),
    ("F9.colour=red", "cannot edit column 'colour' of 'F9': it is not a column"),
    ("F9.power_cost=0", "specific_cost"),
])
def test_bad_edits_are_named(edits, message):
    with pytest.raises(InputError, match=message):
        st.edited_cards_csv(st.parse_edits(edits))


def test_edits_split_on_the_semicolon_that_starts_the_next_edit():
    assert st.parse_edits("F9.power_cost=2; L9.text=play: tower own_tower +3; draw_x: y ; E4.might = 4") == {
        "F9": {"power_cost": "2"}, "L9": {"text": "play: tower own_tower +3; draw_x: y"}, "E4": {"might": "4"}}


def test_bad_deck_settings_are_named():
    with pytest.raises(InputError, match="setting 'decks': atlantis given; allowed: all, siege_of_ur, "):
        get_study("babylon", "matchups").execute("babylon", {"decks": "siege_of_ur,atlantis"})


# -- cards ------------------------------------------------------------------------------------------------
def test_static_regression_recovers_known_exchange_rates():
    features = valuation.feature_frame()
    truth = {"construction": 0.5, "might": 0.4, "health": 0.6, "keywords": 1.0, "tower": 0.8, "cards": 0.7,
             "minion_damage": 0.3, "disruption": 0.9}
    base = {"Minion": 0.2, "Command": 1.5, "Invocation": 1.0, "Witchery": 0.5}
    cost = sum(pl.col(f) * r for f, r in truth.items()) + pl.col("type").replace_strict(base)
    model = valuation.fit_value_model(features.with_columns(cost.alias("cost")))
    assert model.rates == pytest.approx(truth, abs=1e-6) and model.base == pytest.approx(base, abs=1e-6)
    assert model.r2 == pytest.approx(1.0) and model.n == 60


@pytest.mark.parametrize(("card", "features"), [
    ("F4", {"construction": 3, "might": 4, "health": 3}),  # Scarlet Elder: no text
    ("F7", {"might": 6, "health": 5, "keywords": 2}),  # Crush, Twinstrike
    ("F8", {"construction": 2, "might": 1, "health": 2, "tower": 2}),  # dying: 2 damage to the enemy tower
    ("L11", {"tower": 2 * valuation.BUILDERS}),  # +2 per friendly builder
    ("S11", {"tower": 3}),  # the enemy tower loses 3
    ("E9", {"minion_damage": 2 * valuation.GROUP}),  # 2 damage to each enemy Defender
    ("S10", {"disruption": -1, "cards": 2}),  # destroy a friendly minion, draw 2
    ("W12", {"disruption": 2}),  # to the Ramparts, and the attack ends
    ("L10", {"disruption": 2}),  # heal and ready a friendly minion
])
def test_card_features_by_hand(card, features):
    assert valuation.card_features(load_cards()[card]) == {f: float(features.get(f, 0)) for f in valuation.FEATURES}


def test_costing_table_is_numpys_least_squares_fit_beside_the_paper_tuning():
    # A second method on the shipped pool: numpy's lstsq on a design built here (features, then one
    # 0/1 column per card type).  No rate wants to go below 0 there, so the bounded fit must equal it.
    features = valuation.feature_frame()
    types = ["Minion", "Command", "Invocation", "Witchery"]
    x = np.hstack([features.select(valuation.FEATURES).to_numpy(),
                   np.array([[float(t == u) for u in types] for t in features["type"]])])
    y = features["cost"].cast(pl.Float64).to_numpy()
    beta = np.linalg.lstsq(x, y, rcond=None)[0]
    k = len(valuation.FEATURES)
    assert (beta[:k] > 0).all()
    model = valuation.fit_value_model(features)
    assert [model.rates[f] for f in valuation.FEATURES] == pytest.approx(beta[:k], abs=1e-8)
    assert [model.base[t] for t in types] == pytest.approx(beta[k:], abs=1e-8)
    resid = y - x @ beta
    assert model.r2 == pytest.approx(1 - (resid ** 2).sum() / ((y - y.mean()) ** 2).sum())
    assert model.rmse == pytest.approx(np.sqrt((resid ** 2).mean())) and model.n == 60
    table = valuation.costing_table()
    fitted = dict(zip(features["id"], x @ beta, strict=True))
    assert table.height == 60 and table["residual"].is_sorted(descending=True)
    for row in table.iter_rows(named=True):
        assert row["value"] == pytest.approx(fitted[row["id"]], abs=1e-8), row["id"]
        assert row["residual"] == pytest.approx(row["cost"] - fitted[row["id"]], abs=1e-8)
    # the pool's paper tuning of a minion by hand, (construction + might + health) / 2 + keywords + triggers,
    # beside its printed cost (a Witchery's is its TP): data/babylon/cards.csv
    cards = {r["id"]: r for r in table.iter_rows(named=True)}
    assert (cards["F4"]["cost"], cards["F4"]["paper"]) == (5, 5.0)  # Scarlet Elder 3/4/3, no text
    assert (cards["F7"]["cost"], cards["F7"]["paper"]) == (6, 7.5)  # Pyre Drake 0/6/5, Crush and Twinstrike
    assert (cards["F8"]["cost"], cards["F8"]["paper"]) == (2, 3.5)  # Kiln Keeper 2/1/2, one dying trigger
    assert cards["F9"]["paper"] is None  # Fireball: a Command, no paper value
    assert table.filter(pl.col("paper").is_null())["type"].value_counts().sort("type").rows() == [
        ("Command", 10), ("Invocation", 5), ("Witchery", 5)]


def test_card_rates_count_the_seat_games_of_the_decks_holding_the_card(played):
    rates = cardstats.card_rates(played)
    assert set(rates["holders"]) == {"siege_of_ur", "citadel_of_the_rivers",  # Fire, Water
                                     "builders_of_babel+siege_of_ur", "builders_of_babel+citadel_of_the_rivers"}
    for card_id, holders in (("F9", ["siege_of_ur"]), ("E4", ["siege_of_ur", "builders_of_babel"])):
        row = rates.filter(pl.col("id") == card_id).row(0, named=True)
        seats = [(d, w == s, card_id in dr, card_id in pl_)
                 for s in ("p1", "p2")
                 for d, w, dr, pl_ in played.select(f"deck_{s}", "winner", f"drawn_{s}", f"played_{s}").rows()]
        mine = [x for x in seats if x[0] in holders]
        drawn = [x for x in mine if x[2]]
        assert row["seat_games"] == len(mine) and row["wr_drawn_n"] == len(drawn)
        assert row["wr_drawn"] == pytest.approx(sum(x[1] for x in drawn) / len(drawn))
        assert row["play_rate"] == pytest.approx(sum(x[3] for x in drawn) / len(drawn))
        undrawn = [x for x in mine if not x[2]]
        assert row["iwd"] == pytest.approx(row["wr_drawn"] - sum(x[1] for x in undrawn) / len(undrawn))


def test_cards_study_puts_both_views_side_by_side(played):
    tables = st.card_tables(played, lists=4)
    assert set(tables["views"]["view"]) == {"static model", "empirical (improvement when drawn)"}
    costed = tables["costed"]
    assert costed.group_by("view", "side").len()["len"].to_list() == [4] * 4
    static = tables["static"].filter(pl.col("id").is_in(tables["rates"]["id"].implode()))
    over = costed.filter(pl.col("view") == "static model", pl.col("side") == "over-costed")["id"].to_list()
    assert over == static.sort("residual", descending=True)["id"].head(4).to_list()
    assert tables["rates"].height == 48  # the 3 decks hold 4 factions × 12 cards


# -- endings ----------------------------------------------------------------------------------------------
def test_endings_and_trajectories_recount(played):
    tables = st.ending_tables(played)
    ends = tables["endings"]
    assert ends["k"].sum() == played.height and set(ends["n"]) == {played.height}
    tower_first = played.filter(pl.col("reason") == "tower", pl.col("winner") == pl.col("first_seat")).height
    assert ends.filter(pl.col("ending") == "tower · first player")["k"].to_list() in ([tower_first], [])
    traj = tables["trajectories"]
    round2 = traj.filter(pl.col("deck") == "siege_of_ur", pl.col("moved") == "first", pl.col("round") == 2).row(
        0, named=True)
    towers = [t[min(3, len(t) - 1)] for s in ("p1", "p2")  # after game turn 4: the end of round 2
              for d, f, t in played.select(f"deck_{s}", "first_seat", f"towers_{s}").rows()
              if d == "siege_of_ur" and f == s and len(t) >= 3]
    assert round2["n"] == len(towers) and round2["mean"] == pytest.approx(sum(towers) / len(towers))
    tallies = tables["tallies"].filter(pl.col("deck") == "citadel_of_the_rivers").row(0, named=True)
    built = [b for s in ("p1", "p2") for d, b in played.select(f"deck_{s}", f"built_{s}").rows()
             if d == "citadel_of_the_rivers"]
    assert tallies["seat_games"] == len(built) and tallies["built"] == pytest.approx(sum(built) / len(built))
    assert set(get_study("babylon", "endings").make_charts(tables | {"games": played})) == {
        "endings", "margin", "trajectories"}


def _chart_rows(chart) -> list[dict]:
    (rows,) = chart.to_dict()["datasets"].values()
    return rows


def test_every_study_chart_renders_and_draws_the_recounted_numbers(played, whatif):
    import vl_convert

    tables = st.matchup_tables(played, DECKS)
    charts = {**st.matchup_charts(tables), **st.card_charts(st.card_tables(played)),
              **st.ending_charts(st.ending_tables(played) | {"games": played}), **st.whatif_charts(whatif)}
    for name, chart in charts.items():
        assert vl_convert.vegalite_to_svg(chart.to_dict()).startswith("<svg"), name
    # the heat map's cells are the matrix recounted from the games: the row deck's wins over all its games there
    for cell in _chart_rows(charts["matrix"]):
        games = _between(played, cell["deck"], cell["opponent"])
        k = int(_row_wins(games, cell["deck"], cell["opponent"]).sum())
        assert (cell["n"], cell["win"]) == (games.height, pytest.approx(k / games.height))
        assert (cell["win_low"], cell["win_high"]) == pytest.approx(wilson(k, games.height))
    # each deck against the field: its games against the other decks, mirrors left out
    for bar in _chart_rows(charts["decks"]):
        games = played.filter((pl.col("deck_p1") == bar["deck"]) ^ (pl.col("deck_p2") == bar["deck"]))
        others = [o for o in DECKS if o != bar["deck"]]
        k = sum(int(_row_wins(_between(games, bar["deck"], o), bar["deck"], o).sum()) for o in others)
        assert (bar["n"], bar["win"]) == (8 * GAMES, pytest.approx(k / (8 * GAMES)))
    # the what-if's cells: the paired change, 0 where neither deck holds Fireball
    cells = {r["matchup"]: r for r in _chart_rows(charts["cells"])}
    for deck in CONTROL:
        for opponent in CONTROL:
            assert cells[f"{deck} vs {opponent}"]["diff"] == 0


# -- the report -------------------------------------------------------------------------------------------
def test_quick_report_shows_the_matrix_it_played_with_deck_names_and_intervals(tmp_path):
    import json

    from workbench.games.babylon.cards import load_decks
    from workbench.games.babylon.report import AGENTS, QUICK, build_report

    out = build_report(tmp_path / "babylon", quick=True, seed=2, workers=1)
    md = (out / "index.md").read_text(encoding="utf-8")
    summary = check_summary(out, changes=True)  # it opens with what it finds, each number from its table
    assert any(f["anchor"].endswith("_tiers") and f["status"] for f in summary["findings"])  # verdicts per tier
    for heading in ("## 1. The precon matchup matrix", "## 2. Second-player compensation",
                    "## 3. Card cost-efficiency, two ways", "## 4. What-if", "## 5. How games end",
                    "## 6a. Is every pairing's verdict settled across skill levels?",
                    "## 6c. Are the cards' cost flags settled across skill levels?"):
        assert heading in md
    info = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert info["meta"]["games"]["matrix, per deck pairing and first seat"] == QUICK.matrix
    # the last section: each step's size and real seconds, one per step (the header once mixed three into "tiers")
    sizes = pl.read_parquet(out / "run_sizes.parquet")
    assert dict(sizes.select("step", "seconds").rows()) == info["meta"]["seconds"]
    assert sizes["step"].to_list()[:5] == ["matrix", "compensation", "TP search", "what-if", "tier matrix"]
    assert {"tier compensation", "tier card flags", "dead cards", "readings", "rebalance"} <= set(sizes["step"])
    assert (sizes["bigger run"].str.len_chars() > 0).all()
    # the first seat's score per compensation arm: wins and half the draws of the arm's games
    arms = pl.read_parquet(out / "compensation.parquet")
    assert ((arms["first_seat_score"] - arms["first_mover_all"] - arms["first_seat_draws"] / 2).abs() < 1e-9).all()
    # the matrix recounted from the same games played again (the report's seed and decks)
    decks, names = list(QUICK.decks), {d.key: d.name for d in load_decks().values()}
    games = st.play(MODEL, decks, QUICK.matrix, list(AGENTS), {}, seed=2, workers=1)
    matrix = pl.read_parquet(out / "matrix.parquet")
    assert matrix.select("deck", "opponent").rows() == [(names[a], names[b]) for a in decks for b in decks]
    rows = md.split("*The matrix: win rate")[1].split("full table: [matrix.csv]")[0]
    shown = [line for line in rows.splitlines() if line.startswith("| ") and not line.startswith("| deck")]
    assert len(shown) == 9 and not any(key in rows for key in decks)  # display names, never raw keys
    for (a, b), line in zip([(a, b) for a in decks for b in decks], shown, strict=True):
        between = _between(games, a, b)
        k, n = int(_row_wins(between, a, b).sum()), between.height
        low, high = wilson(k, n)
        assert line.startswith(f"| {names[a]} | {names[b]} | {n} | {k} | {100 * k / n:.1f}% "
                               f"[{100 * low:.1f}–{100 * high:.1f}] |"), line
        cells = line.strip("|").split("|")
        rates = [cells[i].strip() for i in (4, 5, 7, 9)]  # win, draws, moving first, moving second
        assert all(re.fullmatch(r"\d+\.\d% \[\d+\.\d–\d+\.\d\]", r) for r in rates), line
    best = matrix.filter(pl.col("deck") != pl.col("opponent")).sort("win").row(-1, named=True)
    assert f"The most uneven: {best['deck']} against {best['opponent']}: {100 * best['win']:.1f} %" in md
    paired = pl.read_parquet(out / "compensation_paired.parquet")
    assert set(paired["arm"]) == {"+1 card", "+1 TP", "no bonus"}
    delta = pl.read_parquet(out / "whatif_matrix.parquet")
    assert set(delta["deck"]) == {names[d] for d in decks} and "significant" in delta.columns


def test_pairing_scores_count_each_pairing_once_from_both_seats():
    from workbench.games.babylon.cards import load_decks
    from workbench.games.babylon.report import pairing_scores

    a, b, c = "siege_of_ur", "citadel_of_the_rivers", "night_raid"
    names = {d.key: d.name for d in load_decks().values()}
    # four games of a against b (a wins as p1, b wins as p1, a wins as p2, a draw), one of b against c, one mirror
    games = [(a, b, "p1"), (b, a, "p1"), (b, a, "p2"), (a, b, "draw"), (b, c, "p2"), (a, a, "p1")]
    frame = pl.DataFrame({
        "deck_p1": [g[0] for g in games], "deck_p2": [g[1] for g in games], "winner": [g[2] for g in games],
        "first_seat": ["p1"] * len(games), "reason": ["tower"] * len(games), "length": [5] * len(games),
        "tower_p1": [0] * len(games), "tower_p2": [0] * len(games),
        "towers_p1": [[0]] * len(games), "towers_p2": [[0]] * len(games)})
    table = {r["cell"]: r for r in pairing_scores(frame, [a, b, c]).iter_rows(named=True)}
    assert set(table) == {f"{names[a]} vs {names[b]}", f"{names[b]} vs {names[c]}"}  # no mirror, each pair once
    ab = table[f"{names[a]} vs {names[b]}"]
    # a won 2 of 4 and drew 1: its score is (2 + ½) / 4
    assert (ab["n"], ab["draws"], ab["rate"]) == (4, 1, pytest.approx(2.5 / 4)) and ab["verdict"] == "fair"
    bc = table[f"{names[b]} vs {names[c]}"]
    assert (bc["n"], bc["rate"]) == (1, 0.0)
