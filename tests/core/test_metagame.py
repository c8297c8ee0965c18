"""The metagame: exact equilibria of deck matrices with known solutions, seeded resampling, the Babylon study."""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from workbench.core.errors import InputError, RunInterrupted
from workbench.core.studies.metagame import (
    PLAYED_TOL,
    equilibrium,
    matrix_game,
    metagame,
    metagame_sentence,
    metagame_table,
    pair_counts,
    score_matrix,
)

# rock, paper, scissors as deck scores: each beats one and loses to one (known solution: 1/3 each, value 0)
RPS = np.array([[0.5, 0.0, 1.0], [1.0, 0.5, 0.0], [0.0, 1.0, 0.5]])


def _with(matrix: np.ndarray, row: list[float]) -> np.ndarray:
    """``matrix`` with one more deck scoring ``row`` against the others (its column is 1 − row; mirror 1/2)."""
    k = matrix.shape[0]
    out = np.full((k + 1, k + 1), 0.5)
    out[:k, :k] = matrix
    out[k, :k] = row
    out[:k, k] = 1 - np.asarray(row)
    return out


def test_rock_paper_scissors_plays_each_deck_a_third():
    sol = equilibrium(RPS)
    assert sol.weights == pytest.approx([1 / 3] * 3, abs=1e-9)
    assert sol.value == pytest.approx(0.0, abs=1e-9)
    assert sol.played.all() and sol.min_weights == pytest.approx([1 / 3] * 3, abs=1e-7)


def test_a_dominated_deck_is_in_no_equilibrium():
    # a fourth deck scoring 40 % against each of rock, paper and scissors: the mix leaves it out entirely
    sol = equilibrium(_with(RPS, [0.4, 0.4, 0.4]))
    assert sol.weights == pytest.approx([1 / 3, 1 / 3, 1 / 3, 0.0], abs=1e-9)
    assert sol.played.tolist() == [True, True, True, False]
    assert sol.max_weights[3] <= PLAYED_TOL


def test_a_deck_that_loses_to_the_mix_by_a_hair_is_still_in_no_equilibrium():
    # 3 thousandths of a point below 1/2 against rock-paper-scissors' mix: the solver's round-off must not play it
    sol = equilibrium(_with(RPS, [0.4999, 0.4999, 0.5001]))
    assert sol.played.tolist() == [True, True, True, False]
    assert sol.beaten_by[3] == pytest.approx(0.0001 / 3, rel=1e-6)
    assert sol.weights[3] == 0.0 and sol.max_weights[3] < 1e-4


def test_a_pure_saddle_point_plays_one_deck():
    sol = equilibrium([[0.5, 0.7], [0.3, 0.5]])  # deck 1 beats deck 2: everyone plays deck 1
    assert sol.weights.tolist() == [1.0, 0.0] and sol.value == 0.0
    assert sol.played.tolist() == [True, False]


def test_a_deck_played_in_some_equilibria_but_not_others():
    # a second rock (even with rock, the same against paper and scissors): rock's third may be split any way
    sol = equilibrium(_with(RPS, [0.5, 0.0, 1.0]))
    assert sol.played.all()
    for rock in (0, 3):
        assert sol.max_weights[rock] == pytest.approx(1 / 3, abs=1e-7)
        assert sol.min_weights[rock] == pytest.approx(0.0, abs=1e-7)
    assert sol.min_weights[1:3] == pytest.approx([1 / 3, 1 / 3], abs=1e-7)  # paper and scissors in every one
    assert sol.weights[0] + sol.weights[3] == pytest.approx(1 / 3, abs=1e-9)


def test_the_die_game_solves_its_matrix_games_with_cores_solver():
    from workbench.games.dietower import optimal

    assert optimal.matrix_game is matrix_game
    v, x, _ = matrix_game(np.array([[2.0, -1.0], [-1.0, 1.0]]))  # value 1/5, x = (2/5, 3/5)
    assert v == pytest.approx(0.2) and x == pytest.approx([0.4, 0.6])


@pytest.mark.parametrize(("matrix", "said"), [
    ([[0.5, 0.7, 0.2], [0.3, 0.5, 0.4]], "must be square"),
    ([[0.5, 0.7], [0.4, 0.5]], "must add up to 1"),
    ([[0.5, 1.5], [-0.5, 0.5]], "between 0 and 1"),
])
def test_a_matrix_that_is_not_a_deck_game_is_refused_saying_why(matrix, said):
    with pytest.raises(InputError, match=said):
        equilibrium(matrix)


# -- counts, resampling and the table ---------------------------------------------------------------------
def _counts(scores: np.ndarray, decks: list[str], n: int = 400, draws: float = 0.05) -> pl.DataFrame:
    rows = []
    for i, a in enumerate(decks):
        for j in range(i + 1, len(decks)):
            drawn = round(draws * n)
            wins = round((scores[i, j] - draws / 2) * n)
            rows.append({"deck": a, "opponent": decks[j], "wins": wins, "draws": drawn, "losses": n - wins - drawn})
    return pl.DataFrame(rows)


DECKS = ["rock", "paper", "scissors", "stone"]
NAMES = {"rock": "Rock", "paper": "Paper", "scissors": "Scissors", "stone": "Stone"}
# softened rock-paper-scissors (each beats one 70–30) and a fourth deck that is 40 % against each
SOFT = _with(np.array([[0.5, 0.3, 0.7], [0.7, 0.5, 0.3], [0.3, 0.7, 0.5]]), [0.4, 0.4, 0.4])


def test_pair_counts_pool_both_seats_and_read_each_pairing_from_both_sides():
    frame = pl.DataFrame({"deck_p1": ["a", "b", "a", "a", "a"], "deck_p2": ["b", "a", "b", "a", "c"],
                          "winner": ["p1", "p1", "draw", "p2", "p2"]})
    counts = pair_counts(frame)
    row = {(r["deck"], r["opponent"]): (r["wins"], r["draws"], r["losses"]) for r in counts.iter_rows(named=True)}
    assert row[("a", "b")] == (1, 1, 1) and row[("b", "a")] == (1, 1, 1)  # a won as p1, b as p1, one draw
    assert row[("a", "c")] == (0, 0, 1) and row[("c", "a")] == (1, 0, 0)
    assert ("a", "a") not in row  # a mirror is 1/2 by definition
    assert score_matrix(counts.filter(pl.col("opponent") != "c", pl.col("deck") != "c"), ["a", "b"]).tolist() == \
        [[0.5, 0.5], [0.5, 0.5]]
    with pytest.raises(InputError, match="no games between b and c"):
        metagame(counts, ["a", "b", "c"], resamples=5)


def test_resampling_is_seeded_and_its_intervals_hold_the_point_estimate():
    counts = _counts(SOFT, DECKS)
    table = metagame_table(metagame(counts, DECKS, NAMES, resamples=300, seed=7))
    again = metagame_table(metagame(counts, DECKS, NAMES, resamples=300, seed=7))
    other = metagame_table(metagame(counts, DECKS, NAMES, resamples=300, seed=8))
    assert_frame_equal(table, again)
    assert not table.equals(other)  # the seed is the resamples' only source of randomness
    for col in ("weight", "score_vs_mix"):
        assert (table[f"{col}_low"] <= table[col] + 1e-12).all() and (table[col] <= table[f"{col}_high"] + 1e-12).all()
    by = {r["deck"]: r for r in table.iter_rows(named=True)}
    assert by["Stone"]["some_equilibrium"] is False and by["Stone"]["weight"] == 0.0
    assert by["Stone"]["score_vs_mix"] == pytest.approx(0.4)  # 40 % against each: 40 % against any mix
    for deck in ("Rock", "Paper", "Scissors"):
        assert by[deck]["weight"] == pytest.approx(1 / 3, abs=1e-9) and by[deck]["some_equilibrium"]
        assert by[deck]["score_vs_mix"] == pytest.approx(0.5, abs=1e-9)
        assert by[deck]["weight_low"] < 1 / 3 < by[deck]["weight_high"]  # 400 games per pairing: not exact


def test_the_sentence_says_what_the_table_holds():
    table = metagame_table(metagame(_counts(SOFT, DECKS), DECKS, NAMES, resamples=200, seed=1))
    said = metagame_sentence(table, 200)
    _agrees(said, table, 200)
    assert said.startswith("A competitive field would play ") and "Rock 33 % [" in said
    assert "; Stone is in no equilibrium (" in said


def _agrees(said: str, table: pl.DataFrame, resamples: int) -> None:
    """Every deck the mix plays is quoted with its weight and interval; every deck in no equilibrium is named."""
    def pct(x: float) -> str:
        return "<1" if 0 < x < 0.005 else f"{100 * x:.0f}"

    played, never = said.split("; ")[0], said.partition(" in no equilibrium")[0]
    for row in table.iter_rows(named=True):
        quoted = (f"{row['deck']} {pct(row['weight'])} % [{pct(row['weight_low'])}–{pct(row['weight_high'])}] "
                  f"(in {round(row['resamples_playing'] * resamples):,}")
        if row["weight"] > PLAYED_TOL:
            assert quoted in played, (quoted, said)
        else:
            assert quoted not in said
        if not row["some_equilibrium"]:
            assert row["deck"] in never.split("; ")[-1], (row["deck"], said)
            shown = re.search(rf"(\d[\d,]*) of {resamples:,} resamples play", said)
            named = re.search(rf"{re.escape(row['deck'])} (?:is played above 1 % )?in (\d[\d,]*)",
                              said.partition(f"of {resamples:,} resamples, ")[2])
            count = int((shown or named).group(1).replace(",", ""))
            assert count == round(row["resamples_playing"] * resamples)


# -- the Babylon study ---------------------------------------------------------------------------------------
BABYLON_DECKS = ["siege_of_ur", "citadel_of_the_rivers", "night_raid"]


def test_babylons_metagame_study_plays_the_matrix_and_its_sentence_agrees_with_its_table():
    from workbench.core.studies.study import get_study
    from workbench.games.babylon import studies as st
    from workbench.games.babylon.model import MODEL
    from workbench.games.babylon.report import pairing_scores

    study = get_study("babylon", "metagame")
    settings = {"games": 3, "tier": "greedy", "decks": ",".join(BABYLON_DECKS), "resamples": 60}
    assert study.games_in_all(settings) == 3 * 3 * 3 * 2  # every deck pairing, both first seats
    tables = study.execute("babylon", settings, seed=4)
    table, said = tables["metagame"], tables["finding"]["finding"].item()
    names = {d: MODEL.choice_label("deck_p1", d) for d in BABYLON_DECKS}
    assert sorted(table["deck"]) == sorted(names.values())  # display names, the keys beside them
    assert table["weight"].sum() == pytest.approx(1.0)
    assert said == metagame_sentence(table, 60)
    _agrees(said, table, 60)
    # the same games the matchups study plays on this seed: each pairing's score as the report's section 6a reads it
    frame = st.play(MODEL, BABYLON_DECKS, 3, ["greedy", "greedy"], {}, seed=4, workers=1)
    scores = tables["scores"].filter(pl.col("deck") != pl.col("opponent"))
    for row in pairing_scores(frame, BABYLON_DECKS).iter_rows(named=True):
        a, _, b = row["cell"].partition(" vs ")
        cell = scores.filter(pl.col("deck") == a, pl.col("opponent") == b).row(0, named=True)
        assert cell["score"] == pytest.approx(row["rate"]) and cell["n"] == row["n"] == 12
    assert set(study.make_charts(tables)) == {"metagame"}


def test_a_stopped_metagame_keeps_the_decks_whose_pairings_all_finished():
    from workbench.core.studies.study import get_study

    study = get_study("babylon", "metagame")
    done, partials = [0], []
    # the studio's run: pairings finish whole, {a, a}, {a, b}, {a, c}, {b, b} first (1 game per cell: 2 + 4 + 4 + 2)
    with pytest.raises(RunInterrupted) as stopped:
        study.execute("babylon", {"games": 1, "tier": "greedy", "decks": ",".join(BABYLON_DECKS), "resamples": 20},
                      seed=1, on_progress=lambda d, _t: done.__setitem__(0, d), should_stop=lambda: done[0] >= 12,
                      on_partial=lambda tables, _d, _t: partials.append(tables))
    kept = stopped.value.partial
    assert set(kept["metagame"]["key"]) == set(BABYLON_DECKS[:2])  # {b, c} never started: c is left out
    assert kept["metagame"]["weight"].sum() == pytest.approx(1.0)
    assert all(not p or set(p["metagame"]["key"]) <= set(BABYLON_DECKS[:2]) for p in partials)


def test_babylons_report_section_reads_the_strongest_fast_tiers_games_and_finds_what_its_table_says():
    from workbench.core.present.report import Report
    from workbench.core.skill.tiers import fast_tiers
    from workbench.games.babylon import report as babylon_report
    from workbench.games.babylon import studies as st
    from workbench.games.babylon.model import MODEL

    strongest = fast_tiers(MODEL)[-1].label  # greedy@raised: the search tier plays too few games per cell
    frame = st.play(MODEL, BABYLON_DECKS, 2, ["greedy", "greedy"], {}, seed=3, workers=1)  # stands in for its games
    rep = Report("metagame", {})
    babylon_report._metagame(rep, {strongest: frame}, BABYLON_DECKS, babylon_report.FAST, 3, resamples=50)
    table = next(b.frame for b in rep.blocks if b.kind == "table" and b.name == "metagame")
    (finding,) = rep.findings
    assert finding["anchor"] == "metagame" and finding["status"] is None and finding["tier"] == strongest
    assert finding["sentence"] == metagame_sentence(table, 50) and finding["n"] == 8  # 2 games × 2 seats × 2 first
    _agrees(finding["sentence"], table, 50)
    intro = next(b for b in rep.blocks if b.kind == "section")
    assert intro.title.startswith("6d. The metagame") and "too few for a stable matrix" in intro.text
