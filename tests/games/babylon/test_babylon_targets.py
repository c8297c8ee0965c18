"""Babylon's rebalance targets: a card edit is played only in the pairings whose decks hold the card.

``uses_card`` is checked against the decks file read on its own (``tomllib``), and the claim it rests on — a card
outside both decks changes nothing in a pairing's games — is checked on frames: every column of a pairing's games
with an edited card it does not hold equals the shipped cards' games, for both engines, while the same edit in a
pairing that holds the card changes them.
"""

from __future__ import annotations

import csv
import tomllib

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from workbench.core.design import rebalance as rb
from workbench.core.design.cardtable import card_table, edited_cards
from workbench.core.design.rebalance import play as rb_play
from workbench.core.model import AgentSpec
from workbench.core.sim.play import play_chunk
from workbench.core.sim.seeding import game_seeds
from workbench.games.babylon.cards import CARDS_CSV, DECKS_TOML
from workbench.games.babylon.model import MODEL
from workbench.games.babylon.targets import TARGETS, uses_card

pytestmark = pytest.mark.xdist_group("test_babylon_fast")  # shares the compiled kernel's warm-up

DECKS = tomllib.loads(DECKS_TOML.read_text(encoding="utf-8"))
with CARDS_CSV.open(newline="", encoding="utf-8") as _f:
    CARD_IDS = [row["id"] for row in csv.DictReader(_f)]
# one edit of a cost or a stat per faction's card: (card, column, new value)
EDITS = [("F4", "might", "6"), ("E5", "health", "1"), ("L3", "power_cost", "3"), ("W4", "power_cost", "2"),
         ("S3", "specific_cost", "2")]
GREEDY = (AgentSpec.parse("greedy"), AgentSpec.parse("greedy"))


def test_a_card_is_used_by_exactly_the_pairings_whose_decks_list_it():
    assert len(TARGETS.cells) == 20
    for cell in TARGETS.cells:
        held = set(DECKS[cell["deck_p1"]]["cards"]) | set(DECKS[cell["deck_p2"]]["cards"])
        assert {key for key in CARD_IDS if uses_card(cell, key)} == held
    # a card in h of the 5 decks is used by every ordered pairing but the (5 − h)(4 − h) that hold neither deck:
    # 14 for Ember Acolyte (F1, in the two Fire decks), 8 for a card of one deck
    for key in CARD_IDS:
        h = sum(key in d["cards"] for d in DECKS.values())
        assert sum(uses_card(cell, key) for cell in TARGETS.cells) == 20 - (5 - h) * (4 - h)
    assert sum(uses_card(cell, "F1") for cell in TARGETS.cells) == 14


@pytest.mark.parametrize(("card", "column", "value"), EDITS)
def test_an_edited_card_outside_both_decks_changes_nothing_in_a_pairings_games(card, column, value):
    path = str(edited_cards(card_table(MODEL), {card: {column: value}}, namespace="babylon-test-targets"))
    cells = [c for c in TARGETS.cells if not uses_card(c, card)]
    holding = next(c for c in TARGETS.cells if uses_card(c, card))
    assert cells
    seeds = game_seeds(11, 0, 40)
    for cell, engine, n in [(cells[0], "fast", 40), (cells[-1], "fast", 40), (cells[0], "reference", 4)]:
        shipped = play_chunk(MODEL, MODEL.resolve_params(cell), GREEDY, seeds[:n], engine)
        edited = play_chunk(MODEL, MODEL.resolve_params({**cell, "cards": path}), GREEDY, seeds[:n], engine)
        assert_frame_equal(edited, shipped)
    shipped = play_chunk(MODEL, MODEL.resolve_params(holding), GREEDY, seeds, "fast")
    edited = play_chunk(MODEL, MODEL.resolve_params({**holding, "cards": path}), GREEDY, seeds, "fast")
    assert not edited.equals(shipped)  # the frames above could tell an edit that mattered


def test_the_search_plays_a_card_edit_only_in_the_pairings_that_hold_the_card():
    dims = rb.edit_space(MODEL)
    i = next(k for k, d in enumerate(dims) if d.key == "F4" and d.column == "might")
    ctx = rb_play._Context(MODEL, TARGETS, rb.parse_target(TARGETS.target, TARGETS), tuple(dims), card_table(MODEL), 1,
                      "local", None, None, lambda n: None)
    base, edited = ctx.cells(()), ctx.cells(((i, 1),))
    changed = [b["deck_p1"] + "|" + b["deck_p2"] for b, e in zip(base, edited, strict=True) if b != e]
    holders = [k for k, d in DECKS.items() if "F4" in d["cards"]]
    h = len(holders)
    assert len(changed) == 20 - (5 - h) * (4 - h) and all(any(d in pair for d in holders) for pair in changed)
    assert all("cards" not in b or b["cards"] is None for b in base)
    assert pl.Series([e.get("cards") for e, b in zip(edited, base, strict=True) if b != e]).n_unique() == 1
