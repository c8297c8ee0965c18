"""A re-tune is kept only when it plays at least as well as the set as shipped (issue #38).

``core/design/cardtable.py``'s ``retune_weights`` re-tunes a weight set for edited cards, then plays the
set as shipped on the re-tune's own held-out games (same opponent, same seeds, both seat orders, a draw
half) and keeps the re-tuned weights only when they score at least as well; else the shipped set plays.
On the duel (compiled, seconds): a re-tune planted to start from bad weights cannot catch up in one
small budget, so the shipped set is kept and every place that shows or writes the re-tune says so.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import workbench.core.skill.tune as tune_module
from workbench.core.design import rebalance as rb
from workbench.core.design.cardtable import (
    accept_retune,
    card_table,
    edited_cards,
    retune_plan,
    retune_weights,
    what_if,
)
from workbench.core.design.rebalance import verify as rb_verify
from workbench.core.model import get_game
from workbench.core.sim.runner import simulate
from workbench.core.sim.seeding import game_seeds

DUEL = {"battlefield": "crystal_garden", "deck": "regular"}
EDITS = {"dragon": {"cost": 20}}
TUNED = "greedy@tuned,greedy@tuned"
SHIPPED = "greedy:tower=3.965,wall=1.355,producer=12.01,resource=0.629,again=8.774,discard=0.8523"
BAD = "greedy:tower=-3.0,wall=-1.0,producer=-5.0,resource=-1.0,again=-3.0,discard=-0.5"  # walls its own tower down


@pytest.fixture
def bad_start(monkeypatch):
    """Every re-tune searches from weights that lose (the set as shipped is still what it is compared with)."""
    real = tune_module.tune
    monkeypatch.setattr(tune_module, "tune", lambda *a, **kw: real(*a, **{**kw, "start": BAD}))


def _edited_cells() -> list[dict]:
    table = card_table("duel")
    return [{**DUEL, table.param: str(edited_cards(table, EDITS, namespace="duel-test-accept"))}]


def test_a_retune_that_cannot_improve_keeps_the_shipped_set_and_says_so(bad_start):
    counted: list[int] = []
    found = retune_weights("duel", "greedy@tuned", _edited_cells(), 300, 11, on_games=counted.append)
    assert found.kept == "shipped" and not found.accepted
    assert found.spec == found.shipped == SHIPPED and found.tuned != SHIPPED
    v, s = found.validation, found.shipped_validation
    assert v["score"] < s["score"]  # measured on the same games: same opponent, master seed and n
    assert (v["opponent"], v["master_seed"], v["n"]) == (s["opponent"], s["master_seed"], s["n"]) == ("greedy", *(
        v["master_seed"], 60))
    for r in (v, s):
        assert r["low"] <= r["score"] <= r["high"] and r["score"] == (r["wins"] + r["draws"] / 2) / r["n"]
    said = found.text()
    assert "the set as shipped is played" in said and SHIPPED in said and "so the shipped set is kept" in said
    assert f"(n = {v['n']})" in said and f"{100 * s['score']:.1f} %" in said and f"{100 * v['score']:.1f} %" in said
    row = found.row()
    assert (row["kept"], row["weights"], row["retuned_weights"]) == ("shipped", SHIPPED, found.tuned)
    assert (row["shipped_n"], row["retuned_n"]) == (60, 60) and row["shipped_score"] == s["score"]
    assert found.as_dict()["kept"] == "shipped" and found.as_dict()["shipped_validation"] == s


def test_the_budget_counts_the_comparison_games():
    model = get_game("duel")
    plan = retune_plan(model, "greedy@tuned", 300)
    assert plan["validate"] == plan["compare"] == 60  # a fifth each: the re-tuned weights and the shipped set
    assert plan["tuning"] + plan["validate"] + plan["compare"] == 300
    counted: list[int] = []
    found = retune_weights(model, "greedy@tuned", _edited_cells(), 300, 11, on_games=counted.append)
    tuning = found.generations * (plan["popsize"] + 1) * found.games_per_candidate
    assert found.games == tuning + found.validation["n"] + found.shipped_validation["n"] == sum(counted) <= 300
    # the least budget asked for pays for a generation and for both sets' held-out games
    with pytest.raises(Exception, match="a fifth for the set as shipped on the same games"):
        retune_plan(model, "greedy@tuned", 20)


def test_the_same_seed_gives_the_same_record_and_its_games_are_apart_from_the_games_compared():
    first = retune_weights("duel", "greedy@tuned", _edited_cells(), 300, 11)
    again = retune_weights("duel", "greedy@tuned", _edited_cells(), 300, 11)
    assert first == again and first.text() == again.text() and first.row() == again.row()
    other = retune_weights("duel", "greedy@tuned", _edited_cells(), 300, 12)
    assert other.shipped_validation["master_seed"] != first.shipped_validation["master_seed"]
    # the comparison plays the held-out check's seeds, and they are counted among the re-tune's
    held = game_seeds(first.validation["master_seed"], 0, first.indices[1])
    assert np.intersect1d(held, first.game_seeds()).size == held.size


def test_the_what_if_plays_the_set_kept_and_says_which(bad_start):
    result = what_if("duel", EDITS, params=DUEL, agents=TUNED, games=40, seed=5, retune=300)
    (found,) = result.retuned
    assert found.kept == "shipped" and found.spec == SHIPPED
    assert result.agents == ((SHIPPED, SHIPPED), (SHIPPED, SHIPPED))  # no weight set the re-tune could not back
    table = card_table("duel")
    edited = simulate("duel", 40, params={**DUEL, table.param: str(result.variant_path)}, agents=[SHIPPED] * 2,
                      seed=5, progress=False)
    assert_frame_equal(result.variant, edited)
    assert any("the set as shipped is played" in line and "so the shipped set is kept" in line
               for line in result.agents_text())
    assert 5 not in {found.validation["master_seed"], found.shipped_validation["master_seed"]}
    assert np.intersect1d(found.game_seeds(), game_seeds(5, 0, 40)).size == 0


def test_the_rebalance_verifies_with_the_set_kept_and_saves_the_acceptance(bad_start, monkeypatch, tmp_path):
    played: list[tuple[tuple, str]] = []
    real_play = rb_verify._play

    def spy(ctx, candidate, agent, *rest, **kw):
        played.append((candidate, agent))
        return real_play(ctx, candidate, agent, *rest, **kw)

    monkeypatch.setattr(rb_verify, "_play", spy)
    result = rb.rebalance("duel", out=tmp_path / "r", budget=6000, tiers="greedy@tuned", verify=1, margin=0.1,
                          stages=2, games=64, retune=300, seed=1, workers=1, verify_share=0.5, population=8)
    ((rank, tier), found), = result.retuned.items()
    assert (rank, tier, found.kept, found.spec) == (1, "greedy@tuned", "shipped", SHIPPED)
    # the proposal's held-out games were played by the set kept, the unchanged game's by the set as named
    assert [agent for candidate, agent in played if candidate] == [found.spec]
    rows = result.verification.filter(pl.col("proposal") == 1)
    assert rows["after_agent"].unique().to_list() == [SHIPPED] and not rows["retuned"].any()
    assert rows["retune_kept"].unique().to_list() == ["shipped"]
    said = rb.verification_table(result).filter(pl.col("Proposal") == 1)["Weights played after"].to_list()
    assert all(s.startswith("as shipped (its re-tune for this proposal scored lower") for s in said)
    saved = pl.read_csv(tmp_path / "r" / "retunes.csv")
    assert saved.select("proposal", "tier", "kept", "weights").rows() == [(1, "greedy@tuned", "shipped", SHIPPED)]
    assert saved["shipped_score"][0] > saved["retuned_score"][0] and saved["shipped_n"][0] == saved["retuned_n"][0]
    assert "0 of 1 kept, the others played the shipped set" in rb.searched_text(result)
    from workbench.core.design.rebalance.report import retunes_table

    shown = retunes_table(result).row(0, named=True)
    assert shown["Kept"].startswith("the set as shipped") and shown["Weights played"] == SHIPPED.replace(",", ", ")


def test_a_tie_keeps_the_retuned_weights_and_mismatched_games_are_refused():
    record = {"opponent": "greedy", "master_seed": 9, "n": 10, "wins": 4, "draws": 2, "score": 0.5, "low": 0.24,
              "high": 0.76}
    kept, why = accept_retune(record, dict(record))
    assert kept == "re-tuned" and "at least as well" in why and "50.0 % [24.0, 76.0] (n = 10)" in why
    assert accept_retune({**record, "wins": 3, "draws": 3, "score": 0.45}, record)[0] == "shipped"  # 4.5 < 5
    with pytest.raises(RuntimeError, match="did not play the re-tuned weights' held-out games"):
        accept_retune(record, {**record, "master_seed": 10})
