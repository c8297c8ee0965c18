"""Core's readings study: a game's balance verdicts under each reading of its open texts, paired on the same seeds.

The test game is the toy coin race with two readings: ``board`` (target 3 or 5: a real change of the
first seat's chances, worked out exactly below by dynamic programming over the race) and ``label``,
a parameter the rules never read (so every game is the same under both values: a paired comparison
must then show a change of exactly 0).
"""

from __future__ import annotations

from functools import cache

import polars as pl
import pytest

from tests.toygame.model import ToyModel
from workbench.core.design.readings import ABOVE, INSIDE, reading_values, readings_table, verdict_changes
from workbench.core.errors import InputError
from workbench.core.model import Param
from workbench.core.sim.runner import simulate
from workbench.core.studies.study import get_study


class ReadingToy(ToyModel):
    """The coin race with two declared readings."""

    name = "reading_toy"
    title = "Coin race with readings (test)"
    rules_version = "reading_toy-1"
    params = (*ToyModel.params, Param("label", "plain", str, "a name the rules never read", choices=("plain", "fancy")))
    readings = ("board", "label")
    readings_agents = "greedy"


MODEL = ReadingToy()


class NoReadings(ToyModel):
    """The coin race as shipped: no readings."""

    name = "no_readings"


class BadReading(ToyModel):
    """Declares a numeric parameter without choices as a reading."""

    name = "bad_reading"
    readings = ("limit",)


def first_seat_score(target: int, edge: float = 0.5, limit: int = 20) -> float:
    """The first mover's exact score (a draw counts half) when both seats play greedy (risky only when behind)."""

    @cache
    def value(mine: int, theirs: int, turn: int, first_to_move: bool) -> float:
        # the score of the first mover; ``mine``/``theirs`` are the mover's and the waiting seat's points
        if turn >= limit:
            return 0.5
        outcomes = [(1, 1.0)] if mine >= theirs else [(2, edge), (0, 1.0 - edge)]
        total = 0.0
        for points, p in outcomes:
            if mine + points >= target:
                total += p * (1.0 if first_to_move else 0.0)
            elif turn + 1 >= limit:
                total += p * 0.5
            else:
                total += p * value(theirs, mine + points, turn + 1, not first_to_move)
        return total

    return value(0, 0, 0, True)


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    return readings_table(MODEL, games=3000, seed=5)


def test_each_reading_value_is_compared_with_the_default_on_the_same_games(table: pl.DataFrame) -> None:
    assert reading_values(MODEL, "board") == ("small", "large")
    assert table.select("reading", "value").unique(maintain_order=True).rows() == [("board", "large"),
                                                                                   ("label", "fancy")]
    assert set(table["seed"]) == {5} and set(table["rules_version"]) == {"reading_toy-1"}
    # the direct count over simulate's frames on the same seeds gives the same scores
    for board in ("small", "large"):
        frame = simulate(MODEL, 3000, params={"board": board}, agents="greedy,greedy", seed=5, progress=False)
        score = ((frame["winner"] == frame["first_seat"]).sum() + (frame["winner"] == "draw").sum() / 2) / 3000
        row = table.filter(pl.col("reading") == "board").row(0, named=True)
        assert row["n"] == 3000
        assert (row["default_score"] if board == "small" else row["score"]) == pytest.approx(score, abs=1e-12)


def test_a_reading_the_rules_never_read_changes_nothing_when_paired(table: pl.DataFrame) -> None:
    row = table.filter(pl.col("reading") == "label").row(0, named=True)
    assert row["score"] == row["default_score"]
    assert (row["diff"], row["diff_low"], row["diff_high"]) == (0.0, 0.0, 0.0)
    assert row["significant"] is False and row["verdict_changes"] is False


def test_the_board_reading_moves_the_first_seat_by_the_exact_amount(table: pl.DataFrame) -> None:
    small, large = first_seat_score(3), first_seat_score(5)
    # by hand on target 3: the first mover scores 1; the second risks 2 — with 2-1 behind, the first wins only on
    # its own coin (1/2), with 1-0 ahead it always wins: 1/2 · 1/2 + 1/2 · 1 = 3/4
    assert small == 0.75 and large == pytest.approx(0.6875)
    row = table.filter(pl.col("reading") == "board").row(0, named=True)
    assert row["default_score_low"] <= small <= row["default_score_high"]
    assert row["score_low"] <= large <= row["score_high"]
    assert row["diff_low"] <= large - small <= row["diff_high"]
    assert row["significant"] is True and row["diff_high"] < 0


def test_significance_and_the_interval_always_agree_and_a_verdict_change_is_said(table: pl.DataFrame) -> None:
    for row in table.iter_rows(named=True):
        assert row["significant"] == (row["diff_low"] > 0 or row["diff_high"] < 0)
    row = table.filter(pl.col("reading") == "board").row(0, named=True)
    assert (row["default_verdict"], row["verdict"]) == (ABOVE, ABOVE)  # 75 % and 69 %: both above 48..52
    assert verdict_changes(table) == []
    moved = table.with_columns(pl.lit(INSIDE).alias("default_verdict"), pl.lit(True).alias("verdict_changes"))
    said = verdict_changes(moved.filter(pl.col("reading") == "board"))
    assert said == [f"Board = Large (default small): First seat's score, all games goes from inside the band "
                    f"({100 * table['default_score'][0]:.1f} %) to above the band ({100 * table['score'][0]:.1f} %)"]


def test_the_study_shows_display_names_and_plain_labels() -> None:
    study = get_study(MODEL, "readings")
    tables = study.execute(MODEL, {"games": 200, "reading": "label"}, seed=1)
    shown = tables["readings"]
    assert shown["reading"].to_list() == ["Label"] and shown["value"].to_list() == ["Fancy"]
    assert tables["changes"]["finding"].to_list() == ["Every verdict holds under every reading."]
    assert study.games_in_all({"games": 200}, {}) == 200 * 3  # the defaults, large board, fancy label


def test_bad_input_gets_one_clear_error() -> None:
    with pytest.raises(InputError, match="declares no readings"):
        readings_table(NoReadings(), games=100)
    with pytest.raises(InputError, match="must be a parameter with choices or a flag"):
        readings_table(BadReading(), games=100)
    with pytest.raises(InputError, match="'edge' is not a reading; its readings: board, label"):
        readings_table(MODEL, games=100, readings=["edge"])
    with pytest.raises(InputError, match="must name one agent, or one per seat"):
        readings_table(MODEL, games=100, agents="greedy,greedy,greedy")
    with pytest.raises(InputError, match="unknown agent"):
        readings_table(MODEL, games=100, agents="cheater")


def test_the_report_section_says_what_was_played_and_shows_the_table_a_person_reads(table, tmp_path) -> None:
    from workbench.core.design.readings import report_section
    from workbench.core.present.report import Report

    rep = Report("readings", {"seed": 5})
    report_section(rep, table)
    out = rep.write(tmp_path / "rep")
    text = (out / "index.md").read_text()
    assert "Readings of the open texts" in text and "3,000 games per target cell" in text
    assert "Each open reading (Board, Label; see docs/rules)" in text  # named as a person reads them
    assert "Every verdict holds under every reading." in text
    assert "| Board " in text and "| Large " in text and "| Label " in text  # display names, not raw keys
    assert "score, default reading" in text and "change (paired)" in text
    assert (out / "readings.csv").is_file()


def test_the_study_streams_each_reading_value_as_its_games_finish(monkeypatch) -> None:
    monkeypatch.setattr("workbench.core.sim.partial.PARTIAL_EVERY", 0.0)  # every partial is sent
    study = get_study(MODEL, "readings")
    assert study.streams
    got: list[tuple[dict, int, int]] = []
    tables = study.execute(MODEL, {"games": 200}, seed=1,
                           on_partial=lambda t, done, total: got.append((t, done, total)))
    # three arms of 200 games (the defaults, board = large, label = fancy): once the defaults and the board's arm
    # are played, the board's rows are final and shown; the label's come with the final table
    assert [(done, total) for _, done, total in got] == [(400, 600)]
    partial = got[0][0]["readings"]
    assert partial["reading"].unique().to_list() == ["Board"]
    final = tables["readings"].filter(pl.col("reading") == "Board")
    assert partial.equals(final)  # the same numbers: the partial rows are the final ones
