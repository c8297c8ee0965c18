"""Core's what-if on common random numbers: the two arms, their progress, and what a stop keeps."""

from __future__ import annotations

import polars as pl
import pytest

from workbench.core.design.cardtable import ProgressTotal, paired_runs
from workbench.core.errors import RunInterrupted


def _games(indices, arm: str, cell: str = "x") -> pl.DataFrame:
    return pl.DataFrame({"cell": [cell] * len(indices), "game_index": list(indices), "arm": [arm] * len(indices)})


def test_progress_adds_up_chunks_and_restarting_counts_into_one_job():
    seen: list[tuple[int, int]] = []
    chunks = ProgressTotal(lambda done, total: seen.append((done, total)), 20)
    for n in (4, 6, 10):  # simulate reports each finished chunk's size
        chunks.add(n)
    assert seen == [(4, 20), (10, 20), (20, 20)]
    seen.clear()
    runs = ProgressTotal(lambda done, total: seen.append((done, total)), 19)
    for done in (5, 9, 4, 10):  # run_grid reports its own count: 9 then 4 means the second run started
        runs(done, 10)
    assert seen == [(5, 19), (9, 19), (13, 19), (19, 19)]
    ProgressTotal(None, 5).add(5)  # no listener: nothing to call


def test_both_arms_play_the_same_games_and_report_one_progress():
    played, seen = [], []

    def play(params, progress):
        played.append(params)
        progress.add(3)
        return _games(range(3), params["cards"])

    base, variant, stopped = paired_runs(play, {"cards": "a.csv"}, {"cards": "b.csv"}, 6,
                                         on_progress=lambda d, t: seen.append((d, t)))
    assert played == [{"cards": "a.csv"}, {"cards": "b.csv"}] and not stopped
    assert base["arm"].to_list() == ["a.csv"] * 3 and variant["arm"].to_list() == ["b.csv"] * 3
    assert seen == [(3, 6), (6, 6)]
    played.clear()
    given = _games(range(3), "given")
    base, variant, _ = paired_runs(play, {"cards": "a.csv"}, {"cards": "b.csv"}, 3, baseline=given)
    assert played == [{"cards": "b.csv"}] and base is given  # an arm already played is not played again


def test_a_stop_keeps_the_games_both_arms_finished():
    def stopped_in(arm: str, kept):
        def play(params, progress):
            if params["arm"] == arm:
                raise RunInterrupted(kept, 0 if kept is None else kept.height, 4)
            return pl.concat([_games(range(4), params["arm"], c) for c in ("x", "y")])
        return play

    with pytest.raises(RunInterrupted) as info:  # stopped in the baseline: its games, out of both arms' total
        paired_runs(stopped_in("base", _games([0, 1], "base")), {"arm": "base"}, {"arm": "variant"}, 16)
    assert (info.value.partial["game_index"].to_list(), info.value.done, info.value.total) == ([0, 1], 2, 16)
    with pytest.raises(RunInterrupted) as info:  # stopped before the variant finished any game: the baseline's
        paired_runs(stopped_in("variant", None), {"arm": "base"}, {"arm": "variant"}, 16)
    assert (info.value.partial.height, info.value.done, info.value.total) == (8, 8, 16)
    partial = pl.concat([_games([3, 1], "variant", "y"), _games([0], "variant", "x")])
    base, variant, stopped = paired_runs(stopped_in("variant", partial), {"arm": "base"}, {"arm": "variant"}, 16,
                                         keys=("cell", "game_index"))
    assert stopped and variant.equals(partial)
    assert base.select("cell", "game_index").rows() == [("x", 0), ("y", 1), ("y", 3)]  # the baseline's own order
