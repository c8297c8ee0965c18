"""Two paths, one answer: the compiled Towers of Babylon kernel against the reference loop (STYLE.md layer 5).

Seeded games on both engines through core's ``play_chunk`` — random vs random, greedy vs greedy,
greedy vs random in both seatings, greedy with changed weights — over several deck pairs and
non-default parameters (no Transformed Power for the second seat, 5 turns, a tower of 30 to win,
no mulligan with bigger hands, a start near the win height) and over an edited cards CSV (costs,
stats, a keyword and a card text changed: the kernel reads the card table, nothing is
recompiled); the frames must be identical and reach both end reasons.  Then: the engine is
declared and chosen by default, the frame does not depend on the chunking or on worker threads,
and a runaway game is an error.  ``search``'s fallback to the reference is the conformance suite's
generic test.  About 750 games (about 10 s of CPU), most of it in the reference loop; the first run
compiles the kernel into ``.cache/`` (under a minute).
"""

from __future__ import annotations

import csv
from functools import cache
from math import comb

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from workbench.core.errors import InputError
from workbench.core.model import AgentSpec
from workbench.core.play import RunawayGame, play_chunk
from workbench.core.runner import simulate
from workbench.core.seeding import game_seeds
from workbench.games.babylon import fast, rules
from workbench.games.babylon.cards import CARDS_CSV
from workbench.games.babylon.model import MODEL
from workbench.games.babylon.results import RESULT_SCHEMA
from workbench.games.babylon.rules import REASONS

pytestmark = pytest.mark.xdist_group("babylon_fast")  # one worker: the cached pairs of frames are shared

VARIANTS = {
    "default": {},
    "no-second-tp": {"second_tp": 0, "first": "p1", "deck_p1": "night_raid", "deck_p2": "builders_of_babel"},
    "short": {"turns": 5, "first": "p2", "deck_p1": "tide_of_whispers", "deck_p2": "siege_of_ur"},
    "win-30": {"win_tower": 30, "deck_p1": "citadel_of_the_rivers", "deck_p2": "night_raid"},
    "big-hands": {"mulligan": 0, "start_hand": 6, "second_cards": 2, "deck_p1": "builders_of_babel",
                  "deck_p2": "tide_of_whispers"},
    "near-win": {"start_tower": 35, "win_tower": 40, "second_tp": 3, "first": "p1", "deck_p1": "siege_of_ur",
                 "deck_p2": "siege_of_ur"},
    "edited-cards": {"deck_p1": "siege_of_ur", "deck_p2": "night_raid"},  # + the edited CSV (``edited_cards``)
}
CUSTOM_GREEDY = ("greedy:tower=2,card=0.1,hand_decay=0.5,source=0.5,source_decay=1,playable=2,playable_cap=5,"
                 "late=0.5,margin=0,mulligan_cost=2")
OTHER_GREEDY = "greedy:sentenced=3,guard=2,raider=0.1,builder=2,tp=1,minion=0,health=1"
CASES = [
    ("default", ("random", "random"), 80), ("default", ("greedy", "greedy"), 32),
    ("default", ("greedy", "random"), 24), ("default", ("random", "greedy"), 24),
    ("no-second-tp", ("random", "random"), 60), ("no-second-tp", ("greedy", "greedy"), 24),
    ("no-second-tp", (CUSTOM_GREEDY, "random"), 20),
    ("short", ("random", "random"), 80), ("short", ("greedy", "greedy"), 40), ("short", ("random", "greedy"), 32),
    ("win-30", ("random", "random"), 60), ("win-30", ("greedy", "greedy"), 24),
    ("win-30", (OTHER_GREEDY, CUSTOM_GREEDY), 20),
    ("big-hands", ("random", "random"), 40), ("big-hands", ("greedy", "random"), 20),
    ("near-win", ("greedy", "greedy"), 32), ("near-win", ("random", "random"), 40),
    ("edited-cards", ("random", "random"), 60), ("edited-cards", ("greedy", "greedy"), 24),
    ("edited-cards", ("random", CUSTOM_GREEDY), 20),
]
# the edits: (card id, column, new value) — costs, stats, a keyword and a text
EDITS = [("F4", "power_cost", "3"), ("F4", "might", "6"), ("F9", "text", "play: damage minion 2 & draw 1"),
         ("E5", "health", "1"), ("E8", "construction", "9"), ("E12", "tp_cost", "0"), ("F2", "keywords", "Lethal"),
         ("S1", "construction", "4"), ("S10", "power_cost", "0"), ("S10", "specific_cost", "0"),
         ("S3", "might", "4"), ("F12", "text", "enemy_attacks_tower: damage attacker 1 & end_attack")]


def _specs(lineup: tuple[str, str]) -> tuple[AgentSpec, ...]:
    return tuple(AgentSpec.parse(a) for a in lineup)


@pytest.fixture(scope="module")
def edited_cards(tmp_path_factory) -> str:
    """The shipped cards CSV with ``EDITS`` applied, written to a temporary directory."""
    with CARDS_CSV.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    by_id = {r["id"]: r for r in rows}
    for card_id, column, value in EDITS:
        by_id[card_id][column] = value
    path = tmp_path_factory.mktemp("babylon-fast") / "cards.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return str(path)


def _params(variant: str, cards: str) -> dict:
    given = dict(VARIANTS[variant])
    if variant == "edited-cards":
        given["cards"] = cards
    return MODEL.resolve_params(given)


@cache
def frames(case: int, cards: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(fast, reference) frames of one case, played once per process (``cards``: the edited CSV)."""
    variant, lineup, games = CASES[case]
    params = _params(variant, cards)
    seeds = game_seeds(700 + case, 0, games)
    return (play_chunk(MODEL, params, _specs(lineup), seeds, "fast"),
            play_chunk(MODEL, params, _specs(lineup), seeds, "reference"))


@pytest.mark.parametrize("case", range(len(CASES)), ids=[f"{v}-{'-'.join(a.split(':')[0] for a in lineup)}"
                                                         for v, lineup, _ in CASES])
def test_fast_frame_equals_the_reference_frame(case, edited_cards):
    quick, reference = frames(case, edited_cards)
    assert quick.schema == pl.Schema(RESULT_SCHEMA)
    assert_frame_equal(quick, reference)


def test_the_cases_reach_both_end_reasons_and_the_edited_cards_matter(edited_cards):
    reference = [frames(i, edited_cards)[1] for i in range(len(CASES))]
    reasons = pl.concat(reference)["reason"]
    assert set(reasons) == set(REASONS), reasons.value_counts()
    assert sum(f.height for f in reference) == sum(games for _, _, games in CASES) >= 700
    edited = _params("edited-cards", edited_cards)
    config = MODEL.make_config(edited)
    f4 = next(c for c in config.cards if c.id == "F4")
    assert (f4.power, f4.might) == (3, 6)  # the edited file is the one played
    seeds = game_seeds(3, 0, 12)
    plain = play_chunk(MODEL, {**edited, "cards": None}, _specs(("greedy", "greedy")), seeds, "fast")
    assert not plain.equals(play_chunk(MODEL, edited, _specs(("greedy", "greedy")), seeds, "fast"))


def test_the_engine_is_declared_and_chosen_by_default():
    params = MODEL.resolve_params()
    search = (AgentSpec.parse("search:budget=4,horizon=1,width=2"), AgentSpec("random"))
    assert MODEL.engines == ("reference", "fast") and MODEL.fast_agents == ("random", "greedy")
    assert MODEL.resolve_engine(None, _specs(("greedy", "random")), params) == "fast"
    assert MODEL.resolve_engine(None, search, params) == "reference"
    assert MODEL.releases_gil("fast") and not MODEL.releases_gil("reference")
    assert MODEL.chunk_hint("fast") > MODEL.chunk_hint("reference")


@pytest.mark.parametrize("lineup", [("greedy", "random"), ("random", "random")])
def test_chunks_of_one_game_give_the_whole_chunk(lineup):
    params = MODEL.resolve_params({"deck_p1": "night_raid", "deck_p2": "tide_of_whispers"})
    seeds = game_seeds(9, 0, 30)
    whole = play_chunk(MODEL, params, _specs(lineup), seeds, "fast")
    singles = pl.concat([play_chunk(MODEL, params, _specs(lineup), seeds[i:i + 1], "fast") for i in range(len(seeds))])
    assert_frame_equal(whole, singles)


def test_worker_threads_give_the_serial_frame():
    one = simulate("babylon", 400, agents="greedy,random", seed=4, engine="fast", progress=False, chunk_size=50)
    two = simulate("babylon", 400, agents="greedy,random", seed=4, engine="fast", progress=False, chunk_size=50,
                   workers=2)
    assert_frame_equal(one, two)


def test_a_runaway_game_is_an_error(monkeypatch):
    monkeypatch.setattr(fast, "STEPS_PER_TURN", 0)  # 100 steps allowed
    config = MODEL.make_config(MODEL.resolve_params())
    with pytest.raises(RunawayGame, match="did not end within 100 steps"):
        fast.run_kernel(config, _specs(("random", "random")), game_seeds(1, 0, 3))


def test_the_largest_hand_and_mulligan_the_parameters_allow_are_listed_by_both_engines():
    with pytest.raises(InputError, match="parameter 'mulligan': 10 is out of range; allowed: int in \\[0, 5\\]"):
        MODEL.resolve_params({"mulligan": 10})
    params = MODEL.resolve_params({"start_hand": 10, "second_cards": 5, "mulligan": 5})
    config = MODEL.make_config(params)
    state = MODEL.initial_state(config, 3)
    masks = rules.mulligan_masks(state.sides[state.first].hand, 5)
    assert len(masks) == len(set(masks)) <= sum(comb(10, k) for k in range(6))
    assert fast.legal_capacity(config) < fast.MAX_LEGAL
    assert fast.legal_capacity(MODEL.make_config(MODEL.resolve_params())) < fast.MAX_LEGAL
