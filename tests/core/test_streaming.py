"""A running study streams the tables of its finished cells: the numbers are the final table's, restricted.

Each expected number is worked from the games frame itself (counts of the first seat's wins in the
cells that had finished), never from the study's own table code; and a streamed run returns the very
frame of the plain run (same seeds, same rows, byte for byte).
"""

from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from tests.scipy_intervals import wilson
from workbench.core.errors import RunInterrupted
from workbench.core.sim.runner import simulate
from workbench.core.sim.sweep import run_grid
from workbench.core.studies.study import PartialFeed, get_study, play_games, play_grid


@pytest.fixture(autouse=True)
def _every_partial(monkeypatch):
    """Every partial is sent (no interval), so the tests see one after each finished cell."""
    monkeypatch.setattr("workbench.core.sim.partial.PARTIAL_EVERY", 0.0)


def _collect():
    got: list[tuple[dict, int, int]] = []
    return got, lambda tables, done, total: got.append((tables, done, total))


def test_a_streamed_grid_returns_the_plain_frame_and_each_partial_counts_only_finished_cells():
    grid = {"start_hands": ["3/5", "5/5"]}
    lineups = [("greedy", "greedy"), ("random", "random")]
    plain = run_grid("babel", grid, 40, lineups=lineups, seed=5, progress=False)
    got, on_partial = _collect()
    streamed = play_grid("babel", grid, 40, lineups=lineups, seed=5, on_partial=on_partial)
    assert_frame_equal(streamed, plain)
    # four cells (hands × lineups, lineups innermost), one partial after each but the last: 40, 80, 120 of 160
    assert [(d, n) for _, d, n in got] == [(40, 160), (80, 160), (120, 160)]
    first = got[0][0]["seats"]
    assert set(first["start_hands"]) == {"3/5"} and set(first["lineup"]) == {"greedy vs greedy"}
    cell = plain.filter((pl.col("start_hands") == "3/5") & (pl.col("lineup") == "greedy vs greedy"))
    row = first.filter(pl.col("seat") == "p1").row(0, named=True)
    k = int((cell["winner"] == "p1").sum())
    assert (row["n"], row["k"]) == (40, k)
    assert (row["low"], row["high"]) == pytest.approx(wilson(k, 40), abs=1e-12)


def test_babylons_matchups_stream_whole_deck_pairs_whose_numbers_equal_the_final_matrix():
    study = get_study("babylon", "matchups")
    got, on_partial = _collect()
    final = study.execute("babylon", {"games": 6}, seed=2, on_partial=on_partial)
    assert got, "the matchups study streams"
    tables, done, total = got[0]
    frame = final["games"]
    first_deck = frame["deck_p1"][0]
    # the first partial is the first deck's mirror: 2 cells (first seat p1, p2) of 6 games
    assert (done, total) == (12, frame.height)
    assert tables["matrix"].select("deck", "opponent").rows() == [(first_deck, first_deck)]
    # every later partial: each matrix entry it shows equals the final one (its deck pair is complete)
    for tables, done, _ in got:
        part = tables["matrix"]
        assert part.height and tables["games"].height == done
        joined = part.join(final["matrix"], on=["deck", "opponent"], suffix="_final")
        assert joined.height == part.height
        assert joined["n"].to_list() == joined["n_final"].to_list()
        assert joined["win"].to_list() == joined["win_final"].to_list()
    # and worked from the games: a mirror entry is seat p1's record (the matrix convention) over its 2 × 6 games
    mirror = frame.filter((pl.col("deck_p1") == first_deck) & (pl.col("deck_p2") == first_deck))
    row = got[0][0]["matrix"].row(0, named=True)
    assert (row["n"], row["k"]) == (12, int((mirror["winner"] == "p1").sum()))
    assert (row["win_low"], row["win_high"]) == pytest.approx(wilson(row["k"], 12), abs=1e-12)


def test_streamed_outcomes_equal_the_plain_run_and_a_partial_is_the_first_games_outcomes():
    plain = simulate("toy", 900, agents="greedy,random", seed=4, progress=False)
    got, on_partial = _collect()
    frame = play_games("toy", 900, agents="greedy,random", seed=4, on_partial=on_partial, first=100,
                       tables=lambda part: {"games": part})
    assert_frame_equal(frame, plain)
    assert got and got[0][1:] == (100, 900)
    assert_frame_equal(got[0][0]["games"], plain.head(100))  # the first 100 games, as any run of 100 plays them


def test_a_stop_between_cells_raises_with_the_finished_cells_in_cell_order():
    grid = {"start_hands": ["3/5", "5/5"]}
    calls = {"n": 0}

    def stop_after_first_cell() -> bool:
        calls["n"] += 1
        return calls["n"] >= 1

    with pytest.raises(RunInterrupted) as caught:
        play_grid("babel", grid, 30, agents=["random", "random"], seed=1, should_stop=stop_after_first_cell,
                  chunk_size=30, on_partial=lambda *_: None)
    exc = caught.value
    plain = run_grid("babel", grid, 30, agents=["random", "random"], seed=1, progress=False)
    assert (exc.done, exc.total) == (30, 60)
    assert_frame_equal(exc.partial, plain.head(30))


def test_the_feed_sends_at_most_one_partial_per_interval_and_never_a_complete_run():
    now = [0.0]
    sent: list[int] = []
    feed = PartialFeed(lambda tables, done, total: sent.append(done), 100, every=1.0, clock=lambda: now[0])
    for t, done in ((0.0, 10), (0.5, 20), (1.2, 30), (1.3, 40), (2.5, 100)):
        now[0] = t
        feed.offer(lambda: {"x": pl.DataFrame({"a": [1]})}, done)
    assert sent == [10, 30]  # 20 and 40 came too soon; 100 of 100 is the final table, not a partial
    assert not PartialFeed(None, 10).offer(lambda: {"x": pl.DataFrame()}, 1)


def test_a_study_that_cannot_stream_runs_as_before_when_given_on_partial():
    study = get_study("toy", "balance")
    assert not study.streams and get_study("toy", "outcomes").streams
    tables = study.execute("toy", {"games": 20, "evaluations": 2}, seed=1, on_partial=lambda *_: None)
    assert "estimate" in tables


def test_the_skill_study_streams_whole_cells_and_ends_on_the_plain_verdicts():
    from workbench.core.model import get_game
    from workbench.core.skill.tiers import first_seat_by_tier, parse_tiers

    study, toy = get_study("toy", "skill"), get_game("toy")
    assert study.streams
    got, on_partial = _collect()
    tables = study.execute("toy", {"tiers": "random,greedy", "by": "board", "games": 60}, {"fast": True}, seed=4,
                           on_partial=on_partial)
    boards = toy.param("board").choices
    plain = first_seat_by_tier(toy, parse_tiers(toy, "random,greedy"),
                               [{**toy.resolve_params({"fast": True}), "board": b} for b in boards], 60, seed=4,
                               label=lambda p: f"first seat score, board {toy.choice_label('board', p['board'])}")
    # the study names its measure: each item "first seat score, board …", each tier's column "<tier> · first seat score"
    plain = plain.rename({c: c.replace(" · score", " · first seat score") for c in plain.columns if " · score" in c})
    assert_frame_equal(tables["verdicts"], plain)
    # one partial after each board but the last, each with the finished boards at both tiers (whole rows)
    per_cell = 2 * 60
    assert [(d, n) for _, d, n in got] == [(per_cell * (i + 1), per_cell * len(boards))
                                           for i in range(len(boards) - 1)]
    for i, (partial, _, _) in enumerate(got):
        shown = partial["verdicts"]
        assert shown["tiers"].to_list() == [2] * (i + 1)
        assert_frame_equal(shown, plain.head(i + 1))  # the final table's first rows, number for number


def test_a_stopped_skill_study_keeps_the_tables_of_the_cells_finished_at_every_tier():
    study = get_study("toy", "skill")
    seen = [0]

    def progress(done: int, _total: int) -> None:
        seen[0] = done

    with pytest.raises(RunInterrupted) as caught:  # Stop once the first board is played at both tiers
        study.execute("toy", {"tiers": "random,greedy", "by": "board", "games": 40}, {"fast": True}, seed=2,
                      on_progress=progress, should_stop=lambda: seen[0] >= 80, on_partial=lambda *_: None)
    exc = caught.value
    assert (exc.done, exc.total) == (80, 160)  # 2 boards × 2 tiers × 40 asked; the first board's 80 kept
    assert exc.partial["verdicts"]["cell"].to_list() == ["first seat score, board Small"]
