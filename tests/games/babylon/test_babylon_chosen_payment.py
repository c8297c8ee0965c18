"""The player pays (issue 37 item 2): under ``payment="chosen"`` a play names the Power Sources that pay it.

The issue's example: sources Fire 2, Light 2, Earth 1, Water 3; in hand Shield Bearer (L2: 2 power,
1 Light), Canal Scout (W1: 1 power, 1 Water) and Flood Engineer (W5: 4 power, 2 Water).  Paid with
Light + Water (what ``keep_playable`` does: each Water minion stays payable on its own), only one of the
two Water minions can follow; paid with Light + Earth, both can.  Under ``chosen`` the legal actions list
Shield Bearer once per payment, Light + Earth among them, and greedy picks it (keep-together).  The
older readings stay values of ``payment``: ``keep_playable`` still pays Light + Water, and with it
the frames of rules version 2 replay game for game (``keep_playable_*.parquet``, written by the
engine before this change).  Every play is made on both engines (``twin.both``).
"""

from __future__ import annotations

from itertools import combinations, product
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from tests.games.babylon.scenario import CONFIG, INDEX, P1, legal, position, side, sources
from tests.games.babylon.twin import both
from workbench.core.errors import InputError
from workbench.core.model import AgentSpec, get_game
from workbench.core.sim.runner import simulate
from workbench.core.skill.search import reference_rollouts
from workbench.games.babylon import agents, rules
from workbench.games.babylon.engine import fast
from workbench.games.babylon.engine import kernel as K
from workbench.games.babylon.rules import (
    K_PLAY,
    Action,
    describe_action,
    pack_payment,
    payment,
    unpack_payment,
)

HERE = Path(__file__).parent
KEEP_PLAYABLE = CONFIG._replace(payment="keep_playable")
EXAMPLE = position(side(hand=("L2", "W1", "W5"), available=sources(Fire=2, Light=2, Earth=1, Water=3)))
COLOURS = ("Fire", "Light", "Earth", "Water", "Shadow")


def pays(**per_faction: int) -> int:
    """``Action.pay`` of these sources."""
    return pack_payment(sources(**per_faction))


def shield_bearer(**per_faction: int) -> Action:
    return Action(K_PLAY, INDEX["L2"], -1, pays(**per_faction))


def plays_of(s, card_id: str, config=CONFIG) -> list[Action]:
    return [a for a in legal(s, config) if a.kind == K_PLAY and a.a == INDEX[card_id]]


def test_a_play_is_listed_once_per_payment_that_pays_its_colour():
    # 2 power, at least 1 Light: Light 1 and one more of Fire, Light, Earth or Water
    assert sorted(unpack_payment(a.pay) for a in plays_of(EXAMPLE, "L2")) == sorted(
        sources(Light=1, **{other: 1}) if other != "Light" else sources(Light=2)
        for other in ("Fire", "Light", "Earth", "Water"))
    assert describe_action(shield_bearer(Light=1, Earth=1), CONFIG) == "play L2 paying Light 1, Earth 1"


def test_shield_bearer_paid_light_and_earth_leaves_canal_scout_and_flood_engineer_both_playable():
    s = both(EXAMPLE, shield_bearer(Light=1, Earth=1))
    assert s.sides[P1].exhausted == sources(Light=1, Earth=1)
    assert plays_of(s, "W1") and plays_of(s, "W5")
    s = both(s, Action(K_PLAY, INDEX["W5"], -1, pays(Fire=2, Water=2)))
    assert plays_of(s, "W1") == [Action(K_PLAY, INDEX["W1"], -1, pays(Water=1))]
    s = both(s, plays_of(s, "W1")[0])
    assert [m.card for m in s.minions] == [INDEX["L2"], INDEX["W5"], INDEX["W1"]]


def test_keep_playable_the_old_reading_pays_light_and_water_and_one_water_minion_is_lost():
    assert payment(KEEP_PLAYABLE, EXAMPLE.sides[P1], INDEX["L2"]) == sources(Light=1, Water=1)
    assert plays_of(EXAMPLE, "L2", KEEP_PLAYABLE) == [Action(K_PLAY, INDEX["L2"], -1)]  # the engine pays: pay 0
    s = both(EXAMPLE, Action(K_PLAY, INDEX["L2"], -1), config=KEEP_PLAYABLE)
    assert s.sides[P1].exhausted == sources(Light=1, Water=1)
    assert plays_of(s, "W1", KEEP_PLAYABLE) and plays_of(s, "W5", KEEP_PLAYABLE)  # each alone, not both
    s = both(s, Action(K_PLAY, INDEX["W5"], -1), config=KEEP_PLAYABLE)
    assert not plays_of(s, "W1", KEEP_PLAYABLE)


def test_a_play_must_name_a_payment_the_legal_actions_list():
    for wrong in (Action(K_PLAY, INDEX["L2"], -1), Action(K_PLAY, INDEX["L2"], -1, pays(Fire=2)),
                  Action(K_PLAY, INDEX["L2"], -1, pays(Light=1, Shadow=1))):
        with pytest.raises(InputError, match="not among the legal actions"):
            rules.apply(CONFIG, EXAMPLE, wrong)
    with pytest.raises(InputError, match="not among the legal actions"):  # the engine pays under keep_playable
        rules.apply(KEEP_PLAYABLE, EXAMPLE, shield_bearer(Light=1, Earth=1))


def test_greedy_pays_shield_bearer_with_light_and_earth_and_scores_other_payments_just_below():
    side_ = EXAMPLE.sides[P1]
    assert agents.keep_together(CONFIG, side_, INDEX["L2"]) == sources(Light=1, Earth=1)
    assert K._keep_together(fast.encode_state(CONFIG, EXAMPLE), fast._table(CONFIG), P1, INDEX["L2"]) == pays(
        Light=1, Earth=1)
    actions = legal(EXAMPLE)
    scores = dict(zip(actions, agents.search_prior(CONFIG, agents.observe(EXAMPLE, P1), actions,
                                                   AgentSpec("greedy")), strict=True))
    kept = scores[shield_bearer(Light=1, Earth=1)]
    for other in plays_of(EXAMPLE, "L2"):
        if other != shield_bearer(Light=1, Earth=1):
            assert scores[other] == kept - agents.PAY_STEP
    view = agents.observe(EXAMPLE, P1)
    for spec in (AgentSpec("greedy"), AgentSpec.parse("greedy:tower=2,card=0.1,margin=0")):
        assert fast.prior(CONFIG, view, actions, spec) == agents.search_prior(CONFIG, view, actions, spec)
    # the search counts the payments of one play once: its candidates are distinct plays
    assert agents.search_key(CONFIG, view, shield_bearer(Light=1, Water=1)) == agents.search_key(
        CONFIG, view, shield_bearer(Light=1, Earth=1))


def test_greedy_plays_all_three_minions_of_the_example_in_one_turn():
    greedy, s = agents.GreedyAgent(), EXAMPLE
    for _ in range(6):
        if s.pending is not None or s.outcome is not None or s.active != P1:
            break
        s = both(s, greedy.choose(CONFIG, s, P1, legal(s)))
    assert sorted(CONFIG.cards[m.card].id for m in s.minions) == ["L2", "W1", "W5"]


# -- keep-together, against every payment and every way to pay a set of cards --------------------------------
COST = {"F1": (1, 1, "Fire"), "F2": (2, 1, "Fire"), "F4": (5, 2, "Fire"), "E1": (1, 1, "Earth"),
        "E5": (4, 2, "Earth"), "L2": (2, 1, "Light"), "W1": (1, 1, "Water"), "W5": (4, 2, "Water"),
        "F12": None}  # written from the starter pool's table; F12 (Backdraft) a Witchery, paid with TP


def _splits(avail: dict[str, int], card_id: str) -> list[dict[str, int]]:
    power, specific, colour = COST[card_id]
    out = []
    for counts in product(*(range(avail[c] + 1) for c in COLOURS)):
        paid = dict(zip(COLOURS, counts, strict=True))
        if sum(counts) == power and paid[colour] >= specific:
            out.append(paid)
    return out


def _pays_all(avail: dict[str, int], ids: tuple[str, ...]) -> bool:
    """The cards can be paid one after another from ``avail`` (every payment of each tried)."""
    if not ids:
        return True
    return any(_pays_all({c: avail[c] - paid[c] for c in COLOURS}, ids[1:]) for paid in _splits(avail, ids[0]))


def _together(avail: dict[str, int], rest: list[str]) -> int:
    cards = [c for c in rest if COST[c] is not None]
    return max(k for k in range(len(cards) + 1) for group in combinations(cards, k) if _pays_all(avail, group))


HANDS = [h for n in (3, 4) for h in combinations(sorted(COST), n) if {"W1", "W5"} <= set(h) or n == 3]
SOURCES = [{"Fire": f, "Light": li, "Earth": e, "Water": w, "Shadow": 0}
           for f in (0, 2) for li in (1, 2) for e in (0, 1) for w in (1, 3)]


@pytest.mark.parametrize("hand", HANDS, ids=["-".join(h) for h in HANDS])
def test_keep_together_pays_so_that_the_most_cards_can_be_paid_together(hand):
    tab = fast._table(CONFIG)
    for avail in SOURCES:
        start = position(side(hand=hand, available=sources(**avail)))
        for card_id in sorted(set(hand) - {"F12"}):
            if not _splits(avail, card_id):
                continue
            rest = list(hand)
            rest.remove(card_id)
            best = max(_together({c: avail[c] - p[c] for c in COLOURS}, rest) for p in _splits(avail, card_id))
            chosen = agents.keep_together(CONFIG, start.sides[P1], INDEX[card_id])
            paid = dict(zip(COLOURS, chosen, strict=True))
            assert paid in _splits(avail, card_id), (avail, card_id, paid)
            assert _together({c: avail[c] - paid[c] for c in COLOURS}, rest) == best, (avail, card_id, paid)
            old = payment(KEEP_PLAYABLE, start.sides[P1], INDEX[card_id])
            if _together({c: avail[c] - old[i] for i, c in enumerate(COLOURS)}, rest) == best:
                assert chosen == old, (avail, card_id)  # where keep_playable keeps the most together: its payment
            assert K._keep_together(fast.encode_state(CONFIG, start), tab, P1, INDEX[card_id]) == pack_payment(chosen)


# -- the continue-from-a-state entry and the old reading's frames ---------------------------------------------
def test_the_kernel_continues_every_payment_of_a_play_as_the_reference_loop_does():
    model = get_game("babylon")
    world = EXAMPLE._replace(sides=(EXAMPLE.sides[0]._replace(deck=tuple(range(20, 40))),
                                    EXAMPLE.sides[1]._replace(deck=tuple(range(40, 60)), hand=(5, 9, 33))))
    actions = plays_of(world, "L2") + plays_of(world, "W5")[:3]
    seeds = np.array([[5, 6]], np.uint64)
    for policy in ("greedy", "random"):
        spec = AgentSpec(policy)
        for horizon in (0, 2):
            compiled, _ = fast.continue_from(CONFIG, [world], actions, P1, spec, horizon, seeds)
            reference = reference_rollouts(model, model.search, CONFIG, [world], actions, P1, spec, horizon, seeds)
            assert compiled[0].tolist() == pytest.approx(reference[0].tolist(), abs=1e-12, rel=0), (policy, horizon)


@pytest.mark.parametrize(("name", "games", "seed", "engine"), [("reference_random", 60, 7, "reference"),
                                                               ("fast_random", 1000, 8, "fast")])
def test_keep_playable_replays_the_games_of_rules_version_2(name, games, seed, engine):
    """Frames the engine wrote before payments became the player's (babylon-2), replayed at ``keep_playable``."""
    frame = simulate("babylon", games, agents="random,random", seed=seed, engine=engine, progress=False,
                     params={"payment": "keep_playable", "deck_p1": "night_raid", "deck_p2": "tide_of_whispers"})
    before = pl.read_parquet(HERE / f"keep_playable_{name}.parquet")
    assert before["rules_version"].unique().to_list() == ["babylon-2"]
    stamped = ("rules_version", "params_hash")  # the rules version is stamped into every row and its hash
    assert_frame_equal(frame.drop(stamped), before.drop(stamped), check_exact=True)
