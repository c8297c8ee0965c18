"""Declared skill tiers and the ``verdicts`` study (core/skill/tiers.py, core/studies/verdicts.py) on the toy coin race.

The toy game declares no tiers and no verdict sources: a copy here declares both, as a game's model
would (``tiers``, ``verdicts``), so the study's cells and rows are known in advance: the first seat
on each board (two verdicts) and the first seat for each edge (two verdicts).
"""

from __future__ import annotations

import copy

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from workbench.cli import main
from workbench.core.errors import InputError, RunInterrupted
from workbench.core.model import get_game
from workbench.core.skill.tiers import (
    MIN_TIER_GAMES,
    best_fast_policy,
    declared_tiers,
    default_tiers,
    fast_tiers,
    first_seat_by_tier,
    parse_tiers,
)
from workbench.core.studies.study import get_study, studies
from workbench.core.studies.verdicts import first_seat_source


def sources(model, params):
    """Two sources over four cells: the first seat per board, and per risky-move edge."""
    boards = [(b, {**params, "board": b}) for b in ("small", "large")]
    edges = [(f"edge {e}", {**params, "edge": e}) for e in (0.0, 1.0)]
    return [first_seat_source(boards, "first seat", {"small": "Small board", "large": "Large board"}),
            first_seat_source(edges, "first seat by edge")]


def _toy(**declared):
    toy = copy.copy(get_game("toy"))
    for key, value in declared.items():
        object.__setattr__(toy, key, value)
    return toy


TOY = _toy(tiers=("random", "greedy@not_tuned_yet", "greedy"), verdicts="tests.core.test_verdicts:sources")


def test_declared_tiers_skip_a_weight_set_not_made_yet_and_name_the_best_fast_policy():
    assert [t.label for t in declared_tiers(TOY)] == ["random", "greedy"]
    assert [t.label for t in fast_tiers(TOY)] == ["random", "greedy"]
    assert best_fast_policy(TOY) == "greedy"
    assert default_tiers(TOY) == "random,greedy"
    with pytest.raises(InputError, match="unknown agent"):
        declared_tiers(_toy(tiers=("random", "wizard")))


def test_a_search_tier_is_slow_and_plays_a_small_sample():
    duel = get_game("duel")
    tiers = declared_tiers(duel)  # greedy < greedy@tuned < (a stronger fast tier, when tuned) < search
    assert [t.label for t in tiers][:2] == ["greedy", "greedy@tuned"] and tiers[-1].label == "search"
    assert tiers[-1].slow and not any(t.slow for t in tiers[:-1])
    assert tiers[0].games(2000) == 2000 and tiers[-1].games(2000) == MIN_TIER_GAMES
    assert tiers[-1].games(5) == 5  # never more than asked
    fast = [t.agent for t in tiers[:-1]]
    assert default_tiers(duel) == ",".join(fast)  # what a long verification plays: the fast tiers
    assert default_tiers(duel, slow=True) == ",".join([*fast, "search"])
    assert best_fast_policy(duel) == fast[-1]


def test_the_verdicts_study_is_every_games_and_writes_one_row_per_verdict(tmp_path):
    assert "verdicts" in [s.name for s in studies("duel")] and "verdicts" in [s.name for s in studies("toy")]
    study = get_study(TOY, "verdicts")
    out = tmp_path / "verdicts.csv"
    tables = study.execute(TOY, {"games": 60, "csv": str(out)}, {"fast": True}, seed=4)
    table = tables["verdicts"]
    assert table["verdict"].to_list() == ["first seat · Small board", "first seat · Large board",
                                          "first seat by edge · edge 0.0", "first seat by edge · edge 1.0"]
    # the same numbers as the first-seat table of those cells at those tiers, on the same seeds
    tiers = parse_tiers(TOY, "random,greedy")
    plain = first_seat_by_tier(TOY, tiers, [{"fast": True, "board": b} for b in ("small", "large")], 60, seed=4,
                               label=lambda p: p["board"])
    assert table["random · value"].head(2).to_list() == plain["random · score"].to_list()
    assert table["greedy · n"].to_list() == [60] * 4
    assert set(table["status"].to_list()) <= {"settled", "moves with skill", "undecided: play more"}
    # edge 1: greedy's first seat never wins (0 %), random's about 75 %: it moves with skill
    assert table.filter(pl.col("key") == "edge 1.0")["status"].item() == "moves with skill"
    written = pl.read_csv(out)
    assert written.height == 4 and "verdict" not in written.columns  # raw keys only
    assert written["key"].to_list() == ["small", "large", "edge 0.0", "edge 1.0"]
    assert written["status"].to_list() == table["status"].to_list()


def test_the_verdicts_study_streams_whole_sources_and_stops_with_the_true_count(monkeypatch):
    monkeypatch.setattr("workbench.core.sim.partial.PARTIAL_EVERY", 0.0)  # every partial, not one a second
    study = get_study(TOY, "verdicts")
    assert study.streams
    got: list = []
    final = study.execute(TOY, {"games": 40}, {"fast": True}, seed=2,
                          on_partial=lambda tables, done, total: got.append((tables, done, total)))
    assert [(d, n) for _, d, n in got] == [(80, 320), (160, 320), (240, 320)]  # a cell is 2 tiers × 40 games
    assert got[0][0]["verdicts"].height == 0  # the first source needs both boards
    assert_frame_equal(got[1][0]["verdicts"], final["verdicts"].head(2))
    seen = [0]

    def progress(done: int, _total: int) -> None:
        seen[0] = done

    with pytest.raises(RunInterrupted) as caught:  # Stop once three cells are played at both tiers
        study.execute(TOY, {"games": 40}, {"fast": True}, seed=2, on_progress=progress,
                      should_stop=lambda: seen[0] >= 240, on_partial=lambda *_: None)
    exc = caught.value
    assert (exc.done, exc.total) == (240, 320)
    # what finished is shown: both boards, and the edge source over the one of its cells that finished
    assert exc.partial["verdicts"]["key"].to_list() == ["small", "large", "edge 0.0"]


def test_games_shows_the_declared_tiers_in_order(capsys):
    assert main(["games", "babylon"]) == 0
    text = capsys.readouterr().out
    line = next(x for x in text.splitlines() if "skill tiers" in x)
    declared = " < ".join(t.label for t in declared_tiers(get_game("babylon")))
    assert line.strip().startswith(f"skill tiers, weakest first: {declared} (a game costs")
    assert declared.startswith("greedy < greedy@tuned < ") and declared.endswith(" < search")
