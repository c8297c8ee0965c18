"""Two paths, one answer: the compiled duel kernel against the reference engine (STYLE.md layer 5).

Every battlefield × deck type plays seeded games on both engines — random vs random, greedy vs
random (both seatings) and greedy vs greedy — under a rotation of variants (duel timer, Lightning
/ Groundwater / Thief readings, hand sizes, short turn limits, custom greedy weights, fixed first
seats, both worst-card valuations), and the result frames must be identical.  ``make test`` plays
a sample of 10 % (200 games per cell, 3,200 in all); ``DUEL_FAST_SHARE=1`` plays the full 2,000
per cell, and ``make bench`` compares 100,000 games.  A hypothesis test edits card costs and
effect amounts at random (up to the allowed maximum 999).  Budget: ``DUEL_FAST_EXAMPLES``
(default 10) examples of ``DUEL_FAST_GAMES`` (default 30) games; e.g.
``DUEL_FAST_EXAMPLES=500 DUEL_FAST_GAMES=40`` for a thorough run.
"""

from __future__ import annotations

import os

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from workbench.core.model import AgentSpec
from workbench.core.play import play_game, rows_to_frame
from workbench.core.runner import simulate
from workbench.core.seeding import game_seeds
from workbench.games.duel import fast, kernel, studies
from workbench.games.duel.data import CARDS_CSV, CardSet, load_cards
from workbench.games.duel.effects import MAX_AMOUNT, Cond, Effect, Op, Statement
from workbench.games.duel.model import BATTLEFIELD_KEYS, MODEL, build_config
from workbench.games.duel.results import RESULT_SCHEMA
from workbench.games.duel.rules import Config

EXAMPLES = int(os.environ.get("DUEL_FAST_EXAMPLES", "10"))
SHARE = float(os.environ.get("DUEL_FAST_SHARE", "0.1"))  # of the 2,000 games per cell
GAMES_PER_EXAMPLE = int(os.environ.get("DUEL_FAST_GAMES", "30"))

# (games, agents) per cell: 2,000 games in all
MATCHES = {
    "random": [(1150, ("random", "random"))],
    "mixed": [(250, ("greedy", "random")), (250, ("random", "greedy"))],
    "greedy": [(350, ("greedy", "greedy"))],
}
# one variant set per cell, rotating so every reading meets both deck types
VARIANTS = [
    {},
    {"miss_rate": 0.1, "max_missed_in_row": 2},
    {"lightning": "enemy", "groundwater": "nobody", "thief_rounding": "down"},
    {"hand_size": 4, "max_turns": 40, "first": "p2", "second_bonus_wall": 5, "second_bonus_ore": 3},
    {"hand_size": 8, "first": "p1", "miss_rate": 0.02},
    {"max_turns": 25, "miss_rate": 0.3, "max_missed_in_row": 3},
    {"lightning": "enemy", "miss_rate": 0.05, "hand_size": 5, "second_bonus_tower": 4, "second_bonus_mines": 1},
    {"groundwater": "nobody", "thief_rounding": "down", "max_turns": 60, "worst_card": "cost", "miss_rate": 0.1},
]
CUSTOM_GREEDY = "greedy:tower=1.5,wall=0.8,producer=2.5,resource=0.3,again=0,discard=-0.5"
CELLS = [(b, d) for b in BATTLEFIELD_KEYS for d in ("regular", "unlimited")]


def _reference(config: Config, agents: tuple[str, ...], seeds: np.ndarray) -> pl.DataFrame:
    """Core's reference loop on a config built here (edited card sets have no file)."""
    players = [MODEL.make_agent(a) for a in agents]
    return rows_to_frame([MODEL.result_row(config, play_game(MODEL, config, players, int(s))) for s in seeds],
                         RESULT_SCHEMA)


def compare(config: Config, agents: tuple[str, ...], seeds: np.ndarray, first: str) -> int:
    """Assert identical frames on both engines; returns the number of games compared."""
    config = config._replace(first=first)
    specs = tuple(AgentSpec.parse(a) for a in agents)
    quick = fast.play_chunk(config, specs, seeds, first)
    assert quick.schema == pl.Schema(RESULT_SCHEMA)
    assert_frame_equal(_reference(config, agents, seeds), quick)
    return len(seeds)


@pytest.mark.parametrize("group", list(MATCHES))
@pytest.mark.parametrize(("battlefield", "deck"), CELLS, ids=[f"{b}-{d}" for b, d in CELLS])
def test_fast_equals_reference(battlefield, deck, group):
    cell = CELLS.index((battlefield, deck))
    variant = VARIANTS[cell % len(VARIANTS)]
    params = MODEL.resolve_params({"battlefield": battlefield, "deck": deck, **variant})
    config = build_config(params)
    offset = list(MATCHES).index(group) * 10_000
    compared = 0
    for k, (games, agents) in enumerate(MATCHES[group]):
        if cell % 4 == 1:  # custom greedy weights on a quarter of the cells
            agents = tuple(CUSTOM_GREEDY if a == "greedy" else a for a in agents)
        games = max(1, round(games * SHARE))
        seeds = game_seeds(1000 + cell, offset + k * 1000, offset + k * 1000 + games)
        compared += compare(config, agents, seeds, params["first"])
    assert compared == sum(max(1, round(g * SHARE)) for g, _ in MATCHES[group])


def test_every_ending_and_branch_is_reached():
    """The variants above reach every reason, so the comparisons cover every exit of a game."""
    seen = set()
    for cell, (battlefield, deck) in enumerate(CELLS):
        params = MODEL.resolve_params({"battlefield": battlefield, "deck": deck, **VARIANTS[cell % len(VARIANTS)]})
        res = fast.run_kernel(build_config(params), (AgentSpec("random"),) * 2, game_seeds(1000 + cell, 0, 1150),
                              params["first"])[0]
        seen |= set(res[:, kernel.RES_REASON].tolist())
    assert seen == set(range(1, 7))


# ------------------------------------------------------------------------------------ edited cards
def _edit_amount(op: Op, amount: int) -> Op:
    if op.kind == "add":
        return op._replace(amount=amount if op.amount >= 0 else -amount)
    if op.kind in ("damage", "steal"):
        return op._replace(amount=amount)
    return op


def _edit_effect(effect: Effect, amounts: list[int]) -> Effect:
    it = iter(amounts)
    statements = []
    for s in effect.statements:
        cond = s.cond
        if isinstance(cond, Cond) and not cond.rhs_who:
            cond = cond._replace(rhs_const=next(it, cond.rhs_const))
        statements.append(Statement(cond, tuple(_edit_amount(o, next(it, o.amount)) for o in s.then),
                                    tuple(_edit_amount(o, next(it, o.amount)) for o in s.orelse)))
    return effect._replace(statements=tuple(statements))


edits = st.lists(st.tuples(st.integers(0, 101), st.integers(0, 60), st.lists(st.integers(0, 40), max_size=6),
                           st.booleans()), min_size=1, max_size=12)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=edits, battlefield=st.sampled_from(BATTLEFIELD_KEYS), deck=st.sampled_from(["regular", "unlimited"]),
       agents=st.sampled_from([("random", "random"), ("greedy", "random"), ("greedy", "greedy")]),
       variant=st.sampled_from(VARIANTS), valued=st.booleans(), seed=st.integers(0, 2**32))
def test_edited_cards_still_identical(edits, battlefield, deck, agents, variant, valued, seed):
    base = build_config(MODEL.resolve_params({"battlefield": battlefield, "deck": deck, **variant}))
    cards = list(base.cards.cards)
    for index, cost, amounts, huge in edits:
        card = cards[index]
        if huge:  # the top of the allowed ranges
            cost, amounts = min(999, cost * 16), [min(MAX_AMOUNT, a * 25) for a in amounts]
        cards[index] = card._replace(cost=cost, effect=_edit_effect(card.effect, amounts))
    values = tuple(float((7 * c.id) % 13) for c in cards) if valued else ()
    edited = CardSet(tuple(cards), base.cards.source, f"edited-{hash(tuple(cards)) & 0xFFFFFFFF:08x}")
    config = base._replace(cards=edited, card_values=values)
    first = variant.get("first", "random")
    compare(config, agents, game_seeds(seed, 0, GAMES_PER_EXAMPLE), first)


def test_edited_cards_file_is_played(tmp_path):
    """A designer's edited cards.csv reaches the fast path with no code change."""
    text = CARDS_CSV.read_text(encoding="utf-8")
    text = text.replace("72,fairy,Fairy,Peri,green,1,enemy.damage 2; again",
                        "72,fairy,Fairy,Peri,green,1,enemy.damage 9; steal.troops 4; again")
    text = text.replace("Tembok biasa,red,2,self.wall +3",
                        "Tembok biasa,red,0,if enemy.wall >= 7 then swap.wall else self.wall +3")
    path = tmp_path / "cards.csv"
    path.write_text(text, encoding="utf-8")
    assert load_cards(path).by_key("fairy").effect.statements[0].then[0].amount == 9
    params = MODEL.resolve_params({"cards": str(path), "battlefield": "free_steppe"})
    config = build_config(params)
    compare(config, ("greedy", "random"), game_seeds(5, 0, 150), "random")
    edited = simulate("duel", 150, params={"cards": str(path), "battlefield": "free_steppe"},
                      agents="greedy,random", seed=5, progress=False)
    plain = simulate("duel", 150, params={"battlefield": "free_steppe"}, agents="greedy,random", seed=5,
                     progress=False)
    assert not edited["length"].equals(plain["length"])


# --------------------------------------------------------------------------------- engine plumbing
def test_chunking_and_buffer_growth_do_not_change_games():
    params = {"battlefield": "free_steppe", "hand_size": 8, "max_turns": 2000}
    whole = simulate("duel", 40, params=params, agents="greedy,greedy", seed=9, progress=False, engine="fast")
    single = simulate("duel", 40, params=params, agents="greedy,greedy", seed=9, progress=False, engine="fast",
                      chunk_size=1)  # one-game chunks start with small id buffers that must grow
    assert_frame_equal(whole, single)
    config = build_config(MODEL.resolve_params(params))
    compare(config, ("greedy", "greedy"), game_seeds(9, 0, 6), "random")


def test_small_hands_that_run_empty():
    """Play-again chains can use up a small hand (the turn then ends): still the same games."""
    config = build_config(MODEL.resolve_params({"hand_size": 2, "deck": "unlimited"}))
    compare(config, ("greedy", "greedy"), game_seeds(1, 0, 150), "random")
    config = build_config(MODEL.resolve_params({"hand_size": 1, "battlefield": "wind_square"}))
    compare(config, ("random", "greedy"), game_seeds(2, 0, 150), "random")


def test_default_study_shape_and_workers():
    one = studies.default_study(games_per_seating=3, workers=1)
    two = studies.default_study(games_per_seating=3, workers=2)
    assert_frame_equal(one, two)
    assert one.height == 8 * 2 * 2 * 3
    assert one.select(pl.struct("battlefield", "deck", "first").n_unique()).item() == 32
    cell = {"battlefield": "crystal_garden", "deck": "unlimited", "first": "p2"}
    alone = simulate("duel", 3, params=cell, agents="greedy,greedy", seed=0, progress=False, engine="fast")
    assert_frame_equal(one.filter(**cell), alone)
