import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from workbench.core.errors import InputError
from workbench.core.stats import metrics
from workbench.core.stats.rates import binom_pvalue, wilson

# Hand-made results: group "a" and "b", two seats, of the duel (whose declared limit reasons are
# turn_limit and timeout: the default for its frames).
FRAME = pl.DataFrame({
    "game": ["duel"] * 7,
    "bf": ["a", "a", "a", "a", "b", "b", "b"],
    "winner": ["p1", "p2", "draw", "p1", "p2", "p2", "draw"],
    "reason": ["tower", "tower", "turn_limit", "resource", "timeout", "tower", "turn_limit"],
    "length": [10, 20, 400, 30, 5, 6, 400],
    "first_seat": ["p1", "p1", "p2", "p2", "p1", "p2", None],
    "agent_p1": ["random"] * 7,
    "agent_p2": ["random"] * 7,
})


def _row(frame, bf):
    return frame.filter(pl.col("bf") == bf).row(0, named=True)


def test_first_mover_decisive_and_all_games():
    out = metrics.first_mover(FRAME, "bf")
    a, b = _row(out, "a"), _row(out, "b")
    # a: decisive games 1, 2, 4 — the first seat won only game 1; all games: 1 of 4.
    assert (a["first_mover"], a["first_mover_n"]) == (pytest.approx(1 / 3), 3)
    assert (a["first_mover_all"], a["first_mover_all_n"]) == (0.25, 4)
    assert (a["first_mover_low"], a["first_mover_high"]) == pytest.approx(wilson(1, 3))
    assert a["first_mover_p"] == pytest.approx(binom_pvalue(1, 3))
    # b: the draw has no first seat (simultaneous), so it is not counted at all.
    assert (b["first_mover"], b["first_mover_n"], b["first_mover_all_n"]) == (0.5, 2, 2)


def test_first_mover_simultaneous_game_has_no_rate():
    frame = FRAME.with_columns(pl.lit(None, dtype=pl.String).alias("first_seat"))
    out = metrics.first_mover(frame)
    assert out["first_mover_n"][0] == 0 and out["first_mover"][0] is None
    assert (out["first_mover_low"][0], out["first_mover_high"][0]) == (0.0, 1.0)


def test_balance_and_seat_win_rates():
    out = metrics.balance(FRAME, "bf")
    assert out.rows() == [("a", 0.75, 4), ("b", pytest.approx(1 / 3), 3)]
    seats = metrics.seat_win_rates(FRAME, "bf")
    assert seats.select("bf", "seat", "n", "k").rows() == [("a", "p1", 4, 2), ("a", "p2", 4, 1),
                                                          ("b", "p1", 3, 0), ("b", "p2", 3, 2)]


def test_balance_ignores_absent_seats():
    # a 3-player group and a 2-player group in one frame: seat p3 only counts where it exists.
    frame = pl.DataFrame({
        "players": [2, 2, 3, 3, 3],
        "winner": ["p1", "p2", "p1", "p2", "p3"],
        "agent_p1": ["r"] * 5, "agent_p2": ["r"] * 5, "agent_p3": [None, None, "r", "r", "r"],
    })
    out = metrics.balance(frame, "players")
    assert out["balance"].to_list() == [1.0, 1.0]
    seats = metrics.seat_win_rates(frame, "players")
    assert seats.filter(pl.col("players") == 2)["seat"].to_list() == ["p1", "p2"]


def test_completion_draws_timeouts():
    comp = metrics.completion(FRAME, "bf")
    assert comp["completion"].to_list() == [0.75, pytest.approx(1 / 3)]  # b: the timeout win is not complete
    assert comp["completion_n"].to_list() == [4, 3]
    assert metrics.draws(FRAME, "bf")["draws"].to_list() == [0.25, pytest.approx(1 / 3)]
    assert metrics.timeouts(FRAME, "bf")["timeouts"].to_list() == [0.25, pytest.approx(2 / 3)]
    only_turns = metrics.timeouts(FRAME, "bf", limit_reasons={"turn_limit"})
    assert only_turns["timeouts"].to_list() == [0.25, pytest.approx(1 / 3)]
    assert metrics.completion(FRAME, limit_reasons="turn_limit")["completion"][0] == pytest.approx(5 / 7)
    # a frame of a game that declares no limits of its own counts only the core loop's turn_limit
    toy = metrics.timeouts(FRAME.with_columns(pl.lit("toy").alias("game")), "bf")
    assert toy["timeouts"].to_list() == [0.25, pytest.approx(1 / 3)]


def test_duration():
    out = metrics.duration(FRAME, "bf")
    a = _row(out, "a")
    lengths = np.array([10, 20, 400, 30])
    assert a["length_n"] == 4
    assert a["length_mean"] == pytest.approx(lengths.mean())
    assert a["length_sd"] == pytest.approx(lengths.std(ddof=1))
    assert a["length_median"] == pytest.approx(np.quantile(lengths, 0.5))
    assert a["length_q10"] == pytest.approx(np.quantile(lengths, 0.1))
    assert a["length_q90"] == pytest.approx(np.quantile(lengths, 0.9))
    assert (a["length_min"], a["length_max"]) == (10, 400)
    assert "length_q25" in metrics.duration(FRAME, quantiles=(0.25,)).columns


def test_end_reasons_shares():
    out = metrics.end_reasons(FRAME, "bf")
    a = out.filter(pl.col("bf") == "a")
    assert a.select("reason", "n", "k").rows() == [("resource", 4, 1), ("tower", 4, 2), ("turn_limit", 4, 1)]
    assert out.group_by("bf").agg(pl.col("rate").sum())["rate"].to_list() == pytest.approx([1.0, 1.0])


def test_summary_combines_every_metric():
    out = metrics.summary(FRAME, ["bf"])
    assert out["bf"].to_list() == ["a", "b"] and out["games"].to_list() == [4, 3]
    parts = [metrics.first_mover(FRAME, "bf"), metrics.balance(FRAME, "bf"), metrics.completion(FRAME, "bf"),
             metrics.draws(FRAME, "bf"), metrics.timeouts(FRAME, "bf"), metrics.duration(FRAME, "bf")]
    for part in parts:
        assert_frame_equal(out.select(part.columns), part)
    for rate in ("first_mover", "first_mover_all", "completion", "draws", "timeouts"):
        assert {f"{rate}_low", f"{rate}_high", f"{rate}_n"} <= set(out.columns)
    whole = metrics.summary(FRAME)
    assert whole.height == 1 and whole["games"][0] == 7


def test_missing_columns_are_named():
    with pytest.raises(InputError, match="first_seat"):
        metrics.summary(FRAME.drop("first_seat"))
    with pytest.raises(InputError, match="nope"):
        metrics.summary(FRAME, ["nope"])


def test_summary_on_a_real_game_frame():
    from workbench.core.sim.runner import simulate

    frame = simulate("dietower", 300, params={"players": 3}, progress=False)
    out = metrics.summary(frame)
    assert out["games"][0] == 300
    assert out["first_mover_n"][0] == 0  # simultaneous play: no first seat
    # balance = 1 − (largest − smallest seat win rate), the seat rates counted here from the winners
    seat_rates = [(frame["winner"] == f"p{s}").mean() for s in (1, 2, 3)]
    assert out["balance"][0] == pytest.approx(1 - (max(seat_rates) - min(seat_rates)))
    assert out["draws"][0] == pytest.approx((frame["winner"] == "draw").mean())
