"""Dead cards (core/design/cardplay.py): drawn / held / playable / played per card, and the flag across tiers.

The counts come from the reference loop with an observer; the compiled engine's own ``drawn_*`` and
``played_*`` lists for the same seeds are a second, independent record of the same games.
"""

from __future__ import annotations

import polars as pl
import pytest

from workbench.core.design.cardplay import card_play_counts, dead_cards
from workbench.core.errors import InputError
from workbench.core.model import get_game
from workbench.core.sim.runner import simulate
from workbench.core.skill.tiers import parse_tiers
from workbench.core.stats.rates import wilson


def _games_with(frame: pl.DataFrame, kind: str) -> dict[str, int]:
    """Per card: in how many games a seat's ``kind`` list holds it (from the compiled engine's frame)."""
    per_game = frame.select(pl.concat_list(f"{kind}_p1", f"{kind}_p2").list.unique().alias("c")).explode("c")
    counted = per_game.drop_nulls().group_by("c").len()
    return {str(c): n for c, n in counted.iter_rows()}


@pytest.mark.parametrize("game", ["duel", "babylon"])
def test_counts_match_the_compiled_engines_record_of_the_same_games(game):
    games = 12 if game == "babylon" else 15
    table = card_play_counts(game, games, agents="greedy,greedy", seed=4)
    fast = simulate(game, games, agents="greedy,greedy", seed=4, engine="fast", progress=False)
    counts = {r["card"]: r for r in table.iter_rows(named=True)}
    assert {c: r["drawn"] for c, r in counts.items() if r["drawn"]} == _games_with(fast, "drawn")
    assert {c: r["played"] for c, r in counts.items() if r["played"]} == _games_with(fast, "played")
    for r in counts.values():
        assert r["games"] == games and r["held"] <= r["drawn"] and r["played"] <= r["playable"] <= games
        if r["playable"]:
            assert r["played_when_playable"] == r["played"] / r["playable"]
            assert (r["low"], r["high"]) == pytest.approx(wilson(r["played"], r["playable"]))


def test_a_card_the_agents_never_play_is_flagged_only_when_every_tier_skips_it():
    # Babylon's greedy never plays Rising Waters (W11: its effect waits for the next turn start, which a
    # one-step evaluation cannot see); random plays whatever is legal, so with random as a tier it is not dead.
    babylon = get_game("babylon")
    greedy_only = dead_cards(babylon, parse_tiers(babylon, "greedy"), 10, seed=2)
    w11 = greedy_only.filter(pl.col("card") == "W11").row(0, named=True)
    assert w11["greedy · playable"] > 0 and w11["greedy · played"] == 0 and w11["dead"]
    both = dead_cards(babylon, parse_tiers(babylon, "greedy,random"), 10, seed=2)
    w11 = both.filter(pl.col("card") == "W11").row(0, named=True)
    assert w11["random · played"] > 0 and not w11["dead"]


def test_a_game_without_cards_is_refused_by_name():
    with pytest.raises(InputError, match="played_by.*games that can: babylon, duel"):
        card_play_counts("babel", 1)


def test_an_agent_is_asked_at_a_position_where_the_card_was_playable():
    from workbench.core.design.cardplay import offered
    from workbench.core.rng import SplitMix64
    from workbench.games.babylon.rules import card_played

    babylon = get_game("babylon")
    positions: dict = {}
    table = card_play_counts(babylon, 6, agents="greedy,greedy", seed=2, positions=positions)
    never = [r["card"] for r in table.iter_rows(named=True) if r["playable"] and not r["played"]]
    assert never and set(never) <= set(positions)
    config = babylon.make_config(babylon.resolve_params())
    for card in never:  # the recorded position really offers the card
        state, seat = positions[card]
        assert card in {card_played(config, state, a) for a in babylon.legal_actions(config, state, seat)}
    greedy = offered(babylon, positions, never, "greedy", seed=5)
    assert greedy["plays"].to_list() == [False] * len(never)  # greedy did not play them there in the games either
    asked = offered(babylon, positions, never, "random", seed=5)
    for i, row in enumerate(asked.iter_rows(named=True)):  # random's pick, drawn again from the same stream
        state, seat = positions[row["card"]]
        legal = babylon.legal_actions(config, state, seat)
        pick = legal[SplitMix64.for_stream(5, 7000 + i).below(len(legal))]
        assert row["plays"] == (card_played(config, state, pick) == row["card"])
