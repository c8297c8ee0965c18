"""Shipped weight sets (``data/<game>/agents/*.toml``) play exactly what they were tuned to play.

A set is a full list of its agent's weights: a weight it leaves out plays the agent's default, so a
default changed later (Babylon's greedy economy, issue 37) would silently change what the set plays.
"""

from __future__ import annotations

import pytest

from workbench.core.model import AgentSpec, game_names, get_game, load_weight_set, weight_set_names

SETS = [(g, n) for g in game_names() for n in weight_set_names(get_game(g))]


def test_the_tiered_games_ship_weight_sets():
    assert {g for g, _ in SETS} >= {"duel", "babel", "babylon"}


@pytest.mark.parametrize(("game", "name"), SETS, ids=[f"{g}@{n}" for g, n in SETS])
def test_a_weight_set_names_every_weight_of_its_agent_and_plays_them(game, name):
    model = get_game(game)
    data = load_weight_set(model, name)
    decl = next(a for a in model.agent_types if a.name == data["agent"])
    weights = [o.name for o in decl.options if o.kind is float]
    assert weights and not [w for w in weights if w not in data["options"]], (game, name)
    played = dict(model.resolve_spec(AgentSpec.parse(f"{data['agent']}@{name}")).options)
    assert {k: float(v) for k, v in played.items() if k in weights} == {w: float(data["options"][w]) for w in weights}
