"""Golden result frames: the same seeds must give the same frames, byte for byte, across refactors.

Each case is a seeded ``simulate`` call whose frame is stored as Parquet under ``tests/golden/frames/``.
The duel and die-game frames were written before the games moved onto the core game protocol
(issue 8), Babel's, Babylon's and To The Rescue's before what the games repeat moved into core (issue 17);
they must not change unless the rules do (then bump the rules version and regenerate on purpose).  Two were
regenerated on purpose: ``duel_search`` and ``babel_search`` when the per-game search agents gave way to
core's one search (issue 18); they play ``greedy@tuned`` through the search's defaults, so re-tuning
``data/duel/agents/tuned.toml`` or ``data/babel/agents/tuned.toml`` means regenerating them.  Babel's four
frames were regenerated on purpose at ``babel-2`` (issue 21, item 5), when its defaults became the text's
readings (no-effect actions allowed, the first-turn obligation checked at the end of the turn); with the four
readings at their strict values the ``babel-1`` frames replay unchanged.  ``babel_search`` also follows the
re-tuned ``data/babel/agents/tuned.toml``.  ``rescue_two`` and ``rescue_five`` were regenerated on purpose
when To The Rescue declared its readings ``payoff``, ``offers`` and ``shortening`` (issue 21; rules
``rescue-auction-2``): three parameter columns added, every other value unchanged.  Babylon's four were
regenerated on purpose for ``babylon-2`` (issue 21): the five readings and ``payment`` became parameter columns,
and paying now keeps the most of the hand payable; with ``payment=others_first`` they replay the ``babylon-1``
frames game for game.  They were regenerated on purpose again for ``babylon-3`` (issue 37): the player chooses
the payment (the action names the sources) and greedy's evaluation prices Power Sources and TP by what they can
pay for.  The ``babylon-2`` frames are kept in ``frames/babylon-2/`` and replay game for game at the old reading
(``payment=keep_playable``, greedy's old evaluation ``agents.OLD_DEFAULTS``): every column but the rules
version, the parameters' hash and the agent specs, which name the explicit old weights.  ``babel_search`` was
regenerated on purpose too (issue 37): the search's rollouts follow the best fast policy (``rollout=best``,
greedy@tuned) with the prior beside them; ``search:...,rollout=greedy,prior=greedy@tuned`` replays the old frame
game for game (every column but the agent spec)::

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_golden_frames.py
"""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from workbench.core.sim.runner import simulate

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
    # written before issue 17 (one house) moved what the games repeat into core
    "babel_random_reference": ("babel", 60, {"agents": "random,random", "seed": 3, "engine": "reference"}),
    "babel_greedy_variants": ("babel", 30, {
        "agents": "greedy:pawn=0.5,greedy", "seed": 4, "engine": "reference",
        "params": {"start_hands": "5/5", "run_detection": "top", "universal": False, "first": "p2"}}),
    "babel_fast_greedy": ("babel", 2000, {"agents": "greedy,random:cap=4", "seed": 5, "engine": "fast",
                                          "params": {"hand_start": 4, "hand_other": 6}}),
    "babel_search": ("babel", 2, {"agents": "search:budget=6,horizon=1,width=2,greedy", "seed": 6,
                                  "engine": "reference"}),
    "babylon_greedy_reference": ("babylon", 20, {"agents": "greedy,greedy", "seed": 3, "engine": "reference"}),
    "babylon_random_variants": ("babylon", 30, {
        "agents": "random,greedy:tower=2.0", "seed": 4, "engine": "reference",
        "params": {"deck_p1": "night_raid", "deck_p2": "tide_of_whispers", "first": "p2", "second_cards": 0,
                   "second_tp": 3, "mulligan": 0, "turns": 10}}),
    "babylon_fast_greedy": ("babylon", 1500, {"agents": "greedy,greedy", "seed": 5, "engine": "fast",
                                              "params": {"deck_p1": "builders_of_babel",
                                                         "deck_p2": "siege_of_ur"}}),
    "babylon_fast_random": ("babylon", 3000, {"agents": "random,greedy", "seed": 6, "engine": "fast"}),
    "rescue_two": ("rescue", 2000, {"agents": "random,equilibrium", "seed": 3, "engine": "reference"}),
    "rescue_five": ("rescue", 1000, {"agents": "random,allin,truthful,shade,random", "seed": 4,
                                     "engine": "reference",
                                     "params": {"players": 5, "budget": 7, "value": 4, "budget_p2": 3}}),
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


def test_golden_frames_cover_every_game_engine_and_outcome():
    frames = {name: pl.read_parquet(FRAMES / f"{name}.parquet") for name in CASES}
    duel = pl.concat([f for n, f in frames.items() if n.startswith("duel")], how="vertical")
    assert set(duel["reason"].unique()) >= {"tower_built", "tower_destroyed", "resources", "timeout"}
    tower = pl.concat([f.select("winner", "reason") for n, f in frames.items() if n.startswith("dietower")])
    assert set(tower["reason"].unique()) == {"score", "six_win", "draw"}
    assert frames["duel_variants"]["missed_p1"].sum() > 0
    assert {g for g, *_ in CASES.values()} == {"duel", "dietower", "babel", "babylon", "rescue"}
    babel = pl.concat([f.select("reason") for n, f in frames.items() if n.startswith("babel")])
    assert set(babel["reason"].unique()) >= {"standard", "end_phase_20"}
    babylon = pl.concat([f.select("reason") for n, f in frames.items() if n.startswith("babylon")])
    assert len(set(babylon["reason"].unique())) >= 2
    rescue = pl.concat([f.select("reason") for n, f in frames.items() if n.startswith("rescue")])
    assert set(rescue["reason"].unique()) >= {"won", "second_auction"}


BABYLON_2 = sorted(n for n, (game, *_) in CASES.items() if game == "babylon")


def _old_greedy(spec: str) -> str:
    """``greedy[:k=v]`` as babylon-2 played it: the old evaluation's weights, then the spec's own options."""
    from workbench.games.babylon.agents import OLD_DEFAULTS

    name, _, options = spec.partition(":")
    if name != "greedy":
        return spec
    merged = dict(kv.split("=") for kv in OLD_DEFAULTS.split(","))
    merged.update(dict(kv.split("=") for kv in options.split(",")) if options else {})
    return "greedy:" + ",".join(f"{k}={v}" for k, v in merged.items())


@pytest.mark.parametrize("name", BABYLON_2)
def test_babylon_2_frames_replay_at_the_old_reading(name):
    """Issue 37: the engine's payment (keep_playable) and greedy's old weights replay babylon-2's games."""
    game, games, kwargs = CASES[name]
    old = pl.read_parquet(FRAMES / "babylon-2" / f"{name}.parquet")
    assert set(old["rules_version"]) == {"babylon-2"} and set(old["payment"]) == {"keep_playable"}
    agents = ",".join(_old_greedy(s) for s in kwargs["agents"].split(","))
    params = {**kwargs.get("params", {}), "payment": "keep_playable"}
    frame = simulate(game, games, progress=False, **{**kwargs, "agents": agents, "params": params})
    assert set(frame["rules_version"]) == {"babylon-3"}
    recorded = ["rules_version", "params_hash", "agent_p1", "agent_p2"]
    assert_frame_equal(frame.drop(recorded), old.drop(recorded), check_exact=True)
    assert old["agent_p1"][0] == kwargs["agents"].split(",")[0]  # the old frames name the specs as they were given
