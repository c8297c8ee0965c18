"""Babel on the core protocol: streams, whose turn, observations, determinisation, invariants, whole games."""

from __future__ import annotations

import pytest

from tests.games.babel.scenario import CONFIG, P1, P2, A, H, act, board
from workbench.core.model import TERMINAL, get_game
from workbench.core.rng import SplitMix64
from workbench.core.sim.play import play_game
from workbench.core.sim.seeding import game_seeds
from workbench.games.babel import agents, rules
from workbench.games.babel.model import MAX_ACTIONS_PER_TURN, MODEL
from workbench.games.babel.results import RESULT_SCHEMA
from workbench.games.babel.rules import END_TURN, UNIVERSAL, Action

VARIANTS = [{}, {"run_detection": "top"}, {"universal": False}, {"start_hands": "5/5", "first": "p2"}]


def test_registered_with_its_declarations():
    model = get_game("babel")
    assert model is MODEL and model.title == "Babel (temple building)" and model.rules_version == "babel-2"
    assert model.limit_reasons == ("turn_limit",)
    assert set(model.agents) == {"random", "greedy", "search", "ismcts"}  # ismcts: OpenSpiel over determinise
    assert [p.name for p in model.params] == ["start_hands", "run_detection", "hand_start", "hand_other",
                                              "universal", "first", "max_turns", "universal_small_hand",
                                              "medes_absent_nation", "move_same_site", "first_turn_check"]
    # the open readings of the text are switches whose default is the text's reading (docs/rules/babel.md)
    assert model.readings == ("universal_small_hand", "medes_absent_nation", "move_same_site", "first_turn_check")
    defaults = model.resolve_params()
    assert [defaults[r] for r in model.readings] == ["allowed", "allowed", "allowed", "end_of_turn"]
    assert model.resolve_params()["max_turns"] == 200 and model.max_length(model.resolve_params()) == 200


def test_streams_deck_1_quarry_2_first_5_agents_3_and_4():
    cfg = MODEL.make_config(MODEL.resolve_params({"first": "p1"}))
    state = MODEL.initial_state(cfg, 77)
    assert state.quarry == tuple(SplitMix64.for_stream(77, 2).shuffle(rules.quarry_cards()))
    assert state == rules.new_game(cfg, P1, SplitMix64.for_stream(77, 1).state, SplitMix64.for_stream(77, 2).state)
    assert (MODEL.agent_stream(0), MODEL.agent_stream(1)) == (3, 4)
    random_first = MODEL.make_config(MODEL.resolve_params())
    assert MODEL.initial_state(random_first, 77).first == SplitMix64.for_stream(77, 5).below(2)


def test_current_player_follows_owed_discards_and_the_end():
    state = board(hands=("", "AHMP"), stacks={(P1, A): "HHH"})
    assert MODEL.current_player(CONFIG, state) == P1 and MODEL.legal_actions(CONFIG, state, P2) == ()
    owed = act(state, UNIVERSAL, H)
    assert MODEL.current_player(CONFIG, owed) == P2 and MODEL.legal_actions(CONFIG, owed, P1) == ()
    over = board(outcome=(P2, rules.STANDARD))
    assert MODEL.current_player(CONFIG, over) == TERMINAL and MODEL.legal_actions(CONFIG, over, P1) == ()
    assert MODEL.returns(CONFIG, over) == (-1.0, 1.0)


def test_legal_actions_keep_the_declared_order():
    state = board(hands=("AHMPS", "AA"), stacks={(P1, A): "HHHAAA", (P2, A): "MS"}, temple_stacks=((1,), (2,)),
                  temples={(P2, A): (1,)})
    legal = MODEL.legal_actions(CONFIG, state, P1)
    positions = [rules.TURN_ACTIONS.index(a) for a in legal]
    assert positions == sorted(positions) and legal[-1] == Action(END_TURN)
    assert len(rules.TURN_ACTIONS) == MODEL.max_legal_actions(CONFIG) == 49


def test_observation_shows_own_hand_board_and_only_sizes_of_hidden_piles():
    cfg = MODEL.make_config(MODEL.resolve_params({"first": "p1"}))
    state = MODEL.initial_state(cfg, 5)
    view = MODEL.observation(cfg, state, P2)
    assert view.me == P2 and view.hand == state.hands[P2] and view.enemy_hand == rules.hand_size(state, P1)
    assert (view.quarry_size, view.draw_size) == (len(state.quarry), len(state.draw_pile))
    assert view.stacks == state.stacks and view.temples == state.temples and view.discard == state.discard
    hidden = {"hands", "quarry", "draw_pile", "deck_rng"}
    assert not hidden & set(view._fields)


def _midgame_states(count: int = 6):
    cfg = MODEL.make_config(MODEL.resolve_params())
    players = [MODEL.make_agent("greedy"), MODEL.make_agent("random")]
    for seed in range(count):
        seen: list = []
        play_game(MODEL, cfg, players, seed, observer=lambda b, w, a, after, seen=seen: seen.append(after))
        yield cfg, seen[len(seen) // 2]


def test_determinise_keeps_what_the_seat_sees_and_deals_the_rest():
    for cfg, state in _midgame_states():
        seat = rules.actor(state)
        view = MODEL.observation(cfg, state, seat)
        me, world = MODEL.determinise(cfg, view, SplitMix64(3))
        assert me == seat and MODEL.invariants(cfg, world) == []
        assert MODEL.observation(cfg, world, seat) == view
        assert rules.hand_size(world, 1 - seat) == rules.hand_size(state, 1 - seat)
        assert sorted(world.quarry) == sorted(state.quarry) and len(world.draw_pile) == len(state.draw_pile)
        assert agents.public_world(view).hands[seat] == state.hands[seat]


@pytest.mark.parametrize(("change", "message"), [
    (lambda s: s._replace(draw_pile=s.draw_pile[:-1]), "nation cards not conserved"),
    (lambda s: s._replace(quarry=s.quarry + (6,)), "temple cards not conserved"),
    (lambda s: s._replace(temples=(((2, 1),) + ((),) * 4, s.temples[1])), "not ascending"),
    (lambda s: s._replace(temples=(((1, 3),) + ((),) * 4, s.temples[1])), "1 skipped levels after 0 Persian"),
    (lambda s: s._replace(hands=((-1, 0, 0, 0, 0), s.hands[1])), "hand"),
    (lambda s: s._replace(start_cards=(1, 0)), "still holds the start card"),
    (lambda s: s._replace(pending=9), "discards owed"),
])
def test_invariants_catch_broken_states(change, message):
    state = board()
    assert MODEL.invariants(CONFIG, state) == []
    assert any(message in b for b in MODEL.invariants(CONFIG, change(state))), MODEL.invariants(CONFIG, change(state))


def test_a_skipped_level_is_allowed_after_a_persian_or_hittite_use():
    state = board(stacks={(P1, A): "PPP"}, temples={(P1, A): (1,)}, temple_stacks=((3,), ()))
    after = act(state, rules.ABILITY, rules.PERSIANS, P1)  # act() checks the invariants
    assert after.temples[P1][A] == (1, 3) and after.tallies[P1][rules.PERSIANS] == 1


@pytest.mark.parametrize("params", VARIANTS)
def test_random_and_greedy_games_finish_with_invariants_after_every_step(params):
    resolved = MODEL.resolve_params(params)
    cfg = MODEL.make_config(resolved)
    for lineup in (("random", "random"), ("greedy", "greedy"), ("greedy", "random")):
        players = [MODEL.make_agent(a) for a in lineup]
        for seed in game_seeds(8, 0, 4):
            longest = [0, 0]

            def check(before, who, action, after, longest=longest, lineup=lineup):
                assert MODEL.invariants(cfg, after) == [], (lineup, action)
                longest[1] = 0 if after.turn != before.turn else longest[1] + 1
                longest[0] = max(longest)

            final = play_game(MODEL, cfg, players, int(seed), max_steps=MODEL.max_steps(resolved), observer=check)
            row = MODEL.result_row(cfg, final)
            assert row["reason"] in rules.REASONS and 1 <= row["length"] <= resolved["max_turns"]
            assert longest[0] < MAX_ACTIONS_PER_TURN


def test_result_row_has_the_declared_columns():
    cfg, state = next(_midgame_states(1))
    final = play_game(MODEL, cfg, [MODEL.make_agent("greedy")] * 2, 4)
    row = MODEL.result_row(cfg, final)
    assert list(row) == list(RESULT_SCHEMA)
    assert row["value_p1"] == sum(row["temples_p1"]) and len(row["temples_p2"]) == 5
    assert row["actions_p1"] + row["actions_p2"] >= row["length"]
    assert row["winner"] in ("p1", "p2", "draw") and row["first_seat"] in ("p1", "p2")


def test_turn_limit_is_a_declared_limit_and_a_draw():
    frame_params = MODEL.resolve_params({"max_turns": 3})
    cfg = MODEL.make_config(frame_params)
    final = play_game(MODEL, cfg, [MODEL.make_agent("random")] * 2, 1)
    row = MODEL.result_row(cfg, final)
    assert (row["winner"], row["reason"], row["length"]) == ("draw", "turn_limit", 3)


def test_hand_parameters_override_the_start_hand_variant():
    for params, (start, other) in [({}, (3, 5)), ({"start_hands": "5/5"}, (5, 5)),
                                   ({"hand_start": 2, "hand_other": 7}, (2, 7)), ({"start_hands": "5/5",
                                                                                   "hand_other": 4}, (5, 4))]:
        cfg = MODEL.make_config(MODEL.resolve_params({**params, "first": "p2"}))
        state = MODEL.initial_state(cfg, 5)
        assert (sum(state.hands[1]), sum(state.hands[0])) == (start + 3, other)  # the start player has drawn 3
