"""Golden result frames: the same seeds must give the same frames, byte for byte, across refactors.

Each case is a seeded ``simulate`` call whose frame is stored as Parquet under ``tests/golden/frames/``.
They were written before the games moved onto the core game protocol (issue 8) and must not change
unless the rules do (then bump the rules version and regenerate on purpose)::

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_golden_frames.py
"""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from workbench.core.runner import simulate

FRAMES = Path(__file__).parent / "golden" / "frames"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"

# name → (game, games, simulate keyword arguments)
CASES = {
    "duel_random_reference": ("duel", 60, {"agents": "random,random", "seed": 3, "engine": "reference"}),
    "duel_greedy_steppe_unlimited": ("duel", 40, {
        "agents": "greedy,greedy", "seed": 5, "engine": "reference",
        "params": {"battlefield": "free_steppe", "deck": "unlimited"}}),
    "duel_variants": ("duel", 40, {
        "agents": "greedy:wall=0.8,random", "seed": 9, "engine": "reference",
        "params": {"miss_rate": 0.2, "first": "p2", "lightning": "enemy", "groundwater": "nobody",
                   "thief_rounding": "down", "worst_card": "cost", "battlefield": "mirror_labyrinth",
                   "second_bonus_wall": 3, "hand_size": 5}}),
    "duel_search": ("duel", 3, {"agents": "search:budget=8,horizon=4,width=2,greedy", "seed": 2,
                                "engine": "reference"}),
    "duel_fast_greedy": ("duel", 3000, {"agents": "greedy,greedy", "seed": 21, "engine": "fast",
                                        "params": {"battlefield": "grand_wizards_fortress"}}),
    "duel_fast_random_unlimited": ("duel", 3000, {"agents": "random,greedy", "seed": 22, "engine": "fast",
                                                  "params": {"deck": "unlimited", "miss_rate": 0.05}}),
    "dietower_random": ("dietower", 2000, {"agents": "random,random", "seed": 1, "engine": "reference"}),
    "dietower_three": ("dietower", 500, {
        "agents": "random,highest,joker:at=3,base=lowest", "seed": 2, "engine": "reference",
        "params": {"players": 3, "suit_size": 7, "die_faces": 4}}),
    "dietower_four_variants": ("dietower", 500, {
        "agents": "mixed:random=0.5,highest=0.3,joker=0.2,lowest,joker,random", "seed": 4, "engine": "reference",
        "params": {"players": 4, "nonbuilder_tie": "keep", "six_win_scores": True, "die_faces": 3}}),
    "dietower_fast": ("dietower", 20000, {"agents": "joker,mixed:highest=1,lowest=1", "seed": 6, "engine": "fast"}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_frame_matches_golden(name):
    game, games, kwargs = CASES[name]
    frame = simulate(game, games, progress=False, **kwargs)
    path = FRAMES / f"{name}.parquet"
    if UPDATE:
        FRAMES.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        frame.write_parquet(tmp)
        tmp.replace(path)
    assert path.exists(), f"{path} is missing; create it with UPDATE_GOLDEN=1 pytest {__file__}"
    golden = pl.read_parquet(path)
    assert frame.schema == golden.schema
    assert_frame_equal(frame, golden, check_exact=True)


def test_golden_frames_cover_both_games_engines_and_outcomes():
    frames = {name: pl.read_parquet(FRAMES / f"{name}.parquet") for name in CASES}
    duel = pl.concat([f for n, f in frames.items() if n.startswith("duel")], how="vertical")
    assert set(duel["reason"].unique()) >= {"tower_built", "tower_destroyed", "resources", "timeout"}
    tower = pl.concat([f.select("winner", "reason") for n, f in frames.items() if n.startswith("dietower")])
    assert set(tower["reason"].unique()) == {"score", "six_win", "draw"}
    assert frames["duel_variants"]["missed_p1"].sum() > 0
