"""One test (or a small table) per rule sentence of the tower duel.

Sources: the rules text and the project's readings, as written down in docs/rules/duel.md.  Expected
values are hand-computed literals; the rules
functions run on hand-built GameState values, whole games go through core's reference loop (``events.play_game``).
"""

from __future__ import annotations

from collections import Counter

import pytest
from scipy.stats import binomtest, chisquare

from tests.games.duel.events import play_game
from workbench.core.errors import InputError
from workbench.core.model import first_seat
from workbench.core.rng import SplitMix64
from workbench.games.duel import results, rules, shuffle
from workbench.games.duel.agents import GreedyAgent, RandomAgent
from workbench.games.duel.data import CardSet, load_battlefields, load_cards
from workbench.games.duel.effects import STATS, parse_effect
from workbench.games.duel.model import MODEL, build_config
from workbench.games.duel.rules import DISCARD, PLAY, Action, Config, GameState, PlayerState

CARDS = load_cards()
FIELDS = load_battlefields()
N = len(CARDS)


def config(battlefield: str = "crystal_garden", **kw) -> Config:
    """Crystal Garden (start 20/10, producers 3/3/3, stock 5/5/5; win at tower 75 or 200) + changes."""
    return Config(cards=CARDS, battlefield=FIELDS[battlefield], **kw)


CFG = config()


def idx(*keys: str) -> tuple[int, ...]:
    return tuple(CARDS.by_key(k).index for k in keys)


def P(*values: int) -> PlayerState:  # noqa: N802 — reads like a literal
    return PlayerState(*values)


ME = P(20, 8, 3, 3, 3, 20, 20, 20)
EN = P(22, 6, 2, 4, 3, 10, 10, 10)
FILL = idx("dragon", "orc", "ruby", "ogre", "spear", "fairy")


def hand_with(key: str) -> tuple[int, ...]:
    """``key`` in slot 0 and five filler cards."""
    card = idx(key)[0]
    return (card,) + tuple(c for c in FILL if c != card)[:5]


def make(players=(ME, EN), hands=((), ()), deck=None, discard=(), current=0, acting=True, pending=False,
         turn=1) -> GameState:
    """A hand-built state; by default the draw pile holds every card not in a hand or the discard pile."""
    if deck is None:
        used = set(hands[0]) | set(hands[1]) | set(discard)
        deck = tuple(c for c in range(N) if c not in used)
    return GameState(tuple(players), tuple(hands), tuple(deck), tuple(discard), current, 0, turn, acting, pending,
                     (0, 0), (0, 0), None, ((), ()), ((), ()))


def effect(players, text: str, cfg: Config = CFG, me: int = 0):
    return rules.apply_effect(tuple(players), me, parse_effect(text), cfg)


def record(cfg: Config, agents, seed: int, first: str = "p1"):
    events = []
    final = play_game(cfg, agents, seed, first, on_event=lambda k, s, d: events.append((k, s, d)))
    return final, events


class DiscardFirst:
    """Test agent: always discards the first card (never plays)."""

    def act(self, view, legal, cfg, rng):
        return next(a for a in legal if a.kind == DISCARD)


# ---------------------------------------------------------------------------------- production
def test_production_adds_each_producer_count_for_the_mover_only():
    state = make(players=(P(20, 8, 2, 0, 5, 1, 2, 3), EN), acting=False, current=0, turn=6)
    after = rules.begin_turn(state, CFG)
    assert after.players == (P(20, 8, 2, 0, 5, 3, 2, 8), EN)
    assert (after.turn, after.acting, after.outcome) == (7, True, None)


def test_production_on_the_very_first_turn():
    final, events = record(CFG, [GreedyAgent(), GreedyAgent()], seed=11, first="p2")
    kind, state, _ = events[1]
    assert kind == "turn" and state.turn == 1 and state.current == 1
    assert state.players[1] == P(20, 10, 3, 3, 3, 8, 8, 8)  # 5 + 3 of each
    assert state.players[0] == P(20, 10, 3, 3, 3, 5, 5, 5)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_production_at_the_start_of_every_turn(seed):
    rng, agent_rng = SplitMix64(seed), SplitMix64(seed + 100)
    state = rules.new_game(CFG, 0, rng)
    turns = 0
    while state.outcome is None:
        if not state.acting:
            before = state
            state = rules.begin_turn(state, CFG)
            me, p = before.current, before.players[before.current]
            assert state.players[me] == p._replace(ore=p.ore + p.mines, mana=p.mana + p.monasteries,
                                                   troops=p.troops + p.barracks)
            assert state.players[1 - me] == before.players[1 - me]
            turns += 1
            continue
        legal = rules.legal_moves(state, CFG)
        state = rules.play_action(state, legal[agent_rng.below(len(legal))], CFG, rng)
    assert turns == state.turn > 10


# ------------------------------------------------------------------------- play or discard, costs
def test_legal_actions_are_affordable_plays_then_every_discard():
    hand = idx("basic_wall", "dragons_heart", "crack", "dragon", "bad_ore", "orc")
    state = make(players=(P(20, 8, 3, 3, 3, 5, 1, 3), EN), hands=(hand, ()))
    assert rules.legal_moves(state, CFG) == (
        Action(PLAY, 0), Action(PLAY, 4), Action(PLAY, 5),  # 2 ore of 5, free, 3 troops of exactly 3
        *(Action(DISCARD, i) for i in range(6)))


@pytest.mark.parametrize(("key", "after"), [
    ("great_wall", P(20, 16, 3, 3, 3, 1, 9, 9)),  # red: 8 ore
    ("spear", P(20, 8, 3, 3, 3, 9, 5, 9)),  # blue: 4 mana
    ("werewolf", P(20, 8, 3, 3, 3, 9, 9, 0)),  # green: 9 troops, all of them
])
def test_cost_is_paid_in_the_cards_colour(key, after):
    state = make(players=(P(20, 8, 3, 3, 3, 9, 9, 9), EN), hands=(hand_with(key), ()))
    assert rules.play_action(state, Action(PLAY, 0), CFG, SplitMix64(0)).players[0] == after


def test_unaffordable_card_is_not_playable():
    state = make(players=(P(20, 8, 3, 3, 3, 7, 20, 20), EN), hands=(idx("great_wall", "orc"), ()))  # 8 ore needed
    assert Action(PLAY, 0) not in rules.legal_moves(state, CFG)
    with pytest.raises(ValueError, match="costs 8 ore"):
        rules.play_action(state, Action(PLAY, 0), CFG, SplitMix64(0))


def test_a_discard_is_always_allowed_and_ends_the_turn():
    broke = P(20, 8, 3, 3, 3, 0, 0, 0)
    hand = idx("dragon", "dragons_eye", "dragons_heart", "pegasus_lancer", "diamond", "bastion")
    state = make(players=(broke, EN), hands=(hand, ()))
    assert rules.legal_moves(state, CFG) == tuple(Action(DISCARD, i) for i in range(6))
    out = rules.play_action(state, Action(DISCARD, 2), CFG, SplitMix64(0))
    assert out.players == (broke, EN)
    assert out.discard == idx("dragons_heart")
    assert out.hands[0] == hand[:2] + hand[3:] + (state.deck[0],)
    assert (out.current, out.acting) == (1, False)


# ---------------------------------------------------------------------------------------- damage
@pytest.mark.parametrize(("wall", "tower", "amount", "wall_after", "tower_after"), [
    (10, 20, 4, 6, 20),  # the wall absorbs all of it
    (10, 20, 10, 0, 20),  # exactly
    (4, 20, 10, 0, 14),  # the rest hits the tower
    (0, 20, 5, 0, 15),  # no wall
    (3, 5, 20, 0, 0),  # the tower clamps at 0
])
def test_ordinary_damage_hits_the_wall_first(wall, tower, amount, wall_after, tower_after):
    hit = rules.damage(P(tower, wall, 1, 1, 1, 1, 1, 1), amount)
    assert hit == P(tower_after, wall_after, 1, 1, 1, 1, 1, 1)
    players = effect((ME, P(tower, wall, 2, 4, 3, 10, 10, 10)), f"enemy.damage {amount}")
    assert players == (ME, P(tower_after, wall_after, 2, 4, 3, 10, 10, 10))


def test_damage_to_you_is_ordinary_damage():
    assert effect((P(20, 2, 3, 3, 3, 1, 1, 1), EN), "self.damage 3") == (P(19, 0, 3, 3, 3, 1, 1, 1), EN)


def test_tower_damage_passes_through_the_wall():
    assert effect((ME, P(22, 30, 2, 4, 3, 10, 10, 10)), "enemy.tower -5") == (ME, P(17, 30, 2, 4, 3, 10, 10, 10))


def test_all_walls_touches_walls_only():
    players = effect((P(20, 2, 3, 3, 3, 1, 1, 1), P(22, 9, 2, 4, 3, 10, 10, 10)), "all.wall -5")
    assert players == (P(20, 0, 3, 3, 3, 1, 1, 1), P(22, 4, 2, 4, 3, 10, 10, 10))


def test_all_towers_touches_towers_only():
    players = effect((P(20, 2, 3, 3, 3, 1, 1, 1), P(22, 9, 2, 4, 3, 10, 10, 10)), "all.tower -7")
    assert players == (P(13, 2, 3, 3, 3, 1, 1, 1), P(15, 9, 2, 4, 3, 10, 10, 10))


# -------------------------------------------------------------------------------------- clamping
@pytest.mark.parametrize("stat", STATS)
@pytest.mark.parametrize(("who", "touched"), [("self", (0,)), ("enemy", (1,)), ("all", (0, 1))])
def test_losses_clamp_at_zero(stat, who, touched):
    three = P(*[3] * 8)
    after = effect((three, three), f"{who}.{stat} -50")
    for seat in (0, 1):
        expected = three._replace(**{stat: 0}) if seat in touched else three
        assert after[seat] == expected


@pytest.mark.parametrize(("rounding", "enemy_mana", "enemy_ore", "gain_mana", "gain_ore"), [
    ("up", 10, 5, 5, 3),
    ("up", 3, 0, 2, 0),
    ("up", 1, 1, 1, 1),
    ("up", 0, 0, 0, 0),
    ("up", 25, 25, 5, 3),  # the enemy loses 10 and 5, no more
    ("down", 10, 5, 5, 2),
    ("down", 3, 0, 1, 0),
    ("down", 1, 1, 0, 0),
])
def test_thief_gains_half_of_the_actual_loss(rounding, enemy_mana, enemy_ore, gain_mana, gain_ore):
    cfg = config(thief_rounding=rounding)
    me, enemy = P(20, 8, 3, 3, 3, 0, 0, 0), P(22, 6, 2, 4, 3, enemy_ore, enemy_mana, 10)
    after = effect((me, enemy), "steal.mana 10; steal.ore 5", cfg)
    assert after[0] == me._replace(mana=gain_mana, ore=gain_ore)
    assert after[1] == enemy._replace(mana=max(0, enemy_mana - 10), ore=max(0, enemy_ore - 5))


# ------------------------------------------------------------------------------------ play again
def test_play_again_chains_without_production_and_refills_at_the_end():
    x, y = idx("dragon", "dragons_eye")
    hand = idx("lucky_coin", "fertile_ground", "quartz", "basic_wall") + (x, y)
    state = make(players=(P(20, 8, 3, 3, 3, 10, 10, 10), EN), hands=(hand, ()))
    deck = state.deck
    s1 = rules.play_action(state, Action(PLAY, 0), CFG, SplitMix64(0))  # Lucky Coin: +2 ore +2 mana, again
    assert (s1.players[0], s1.current, s1.acting, s1.turn, s1.hands[0]) == (
        P(20, 8, 3, 3, 3, 12, 12, 10), 0, True, 1, hand[1:])
    s2 = rules.play_action(s1, Action(PLAY, 0), CFG, SplitMix64(0))  # Fertile Ground: 1 ore, +1 wall, again
    assert (s2.players[0], s2.current, s2.hands[0]) == (P(20, 9, 3, 3, 3, 11, 12, 10), 0, hand[2:])
    s3 = rules.play_action(s2, Action(PLAY, 0), CFG, SplitMix64(0))  # Quartz: 1 mana, +1 tower, again
    assert (s3.players[0], s3.current, s3.hands[0]) == (P(21, 9, 3, 3, 3, 11, 11, 10), 0, hand[3:])
    s4 = rules.play_action(s3, Action(PLAY, 0), CFG, SplitMix64(0))  # Basic Wall: 2 ore, +3 wall; the turn ends
    assert s4.players == (P(21, 12, 3, 3, 3, 9, 11, 10), EN)
    assert (s4.current, s4.acting, s4.turn) == (1, False, 1)
    assert s4.hands[0] == (x, y) + deck[:4]
    assert s4.discard == hand[:4]


def test_play_again_may_be_followed_by_a_discard_which_ends_the_turn():
    hand = idx("fairy", "dragon", "orc", "ruby", "ogre", "spear")
    state = make(hands=(hand, ()))
    s1 = rules.play_action(state, Action(PLAY, 0), CFG, SplitMix64(0))
    assert s1.players[1] == P(22, 4, 2, 4, 3, 10, 10, 10)
    s2 = rules.play_action(s1, Action(DISCARD, 0), CFG, SplitMix64(0))
    assert (s2.current, s2.acting, len(s2.hands[0]), s2.discard) == (1, False, 6, idx("fairy", "dragon"))


@pytest.mark.parametrize("key", ["prism", "elven_scout"])
@pytest.mark.parametrize("discard_slot", [5, 1])  # the card just drawn, or another one
def test_draw_then_discard_then_play_again(key, discard_slot):
    hand = idx(key, "basic_wall", "dragon", "orc", "ruby", "ogre")
    state = make(hands=(hand, ()))
    drawn = state.deck[0]
    s1 = rules.play_action(state, Action(PLAY, 0), CFG, SplitMix64(0))
    assert s1.hands[0] == hand[1:] + (drawn,)
    assert (s1.current, s1.acting, s1.pending_discard) == (0, True, True)
    assert rules.legal_moves(s1, CFG) == tuple(Action(DISCARD, i) for i in range(6))
    with pytest.raises(ValueError):
        rules.play_action(s1, Action(PLAY, 0), CFG, SplitMix64(0))
    s2 = rules.play_action(s1, Action(DISCARD, discard_slot), CFG, SplitMix64(0))
    gone = s1.hands[0][discard_slot]
    assert s2.discard == (hand[0], gone)
    assert (s2.current, s2.acting, s2.pending_discard, len(s2.hands[0])) == (0, True, False, 5)
    assert Action(PLAY, 0) in rules.legal_moves(s2, CFG)  # plays again
    basic_wall_slot = s2.hands[0].index(idx("basic_wall")[0])
    s3 = rules.play_action(s2, Action(PLAY, basic_wall_slot), CFG, SplitMix64(0))
    assert (s3.current, s3.acting, len(s3.hands[0])) == (1, False, 6)  # refilled only now
    assert s3.hands[0][-2:] == state.deck[1:3]


def test_draw_then_discard_without_again_ends_the_turn():
    """A designer's card with ``draw_discard`` but no ``again``: after the discard the turn is over.

    (None of the 102 cards has this combination — Prism and Elven Scout both play again — but the
    effect language allows it and EFFECTS.md documents the two flags as independent.)
    """
    last = CARDS.cards[-1]._replace(cost=0, effect=parse_effect("draw_discard"), effect_text="draw_discard")
    custom = CardSet((*CARDS.cards[:-1], last), "custom", "custom")  # (CardSet._replace trips on its __len__)
    cfg = Config(cards=custom, battlefield=FIELDS["crystal_garden"])
    hand = (N - 1,) + idx("basic_wall", "dragon", "orc", "ruby", "ogre")
    s1 = rules.play_action(make(hands=(hand, ())), Action(PLAY, 0), cfg, SplitMix64(0))
    assert s1.pending_discard
    s2 = rules.play_action(s1, Action(DISCARD, 0), cfg, SplitMix64(0))
    assert (s2.current, s2.acting, len(s2.hands[0])) == (1, False, 6)


def test_a_play_again_chain_that_empties_the_hand_ends_the_turn():
    """Six play-again cards in a row leave no card to play or discard: the turn must end (refill, pass).

    The rules say "play again" and "refill after the turn"; with an empty hand there is no action
    left, so the only reading that keeps the game going is that the turn ends.
    """
    hand = idx("lucky_coin", "fertile_ground", "quartz", "fairy", "smoky_quartz", "secret_cave")
    state = make(players=(P(20, 8, 3, 3, 3, 50, 50, 50), EN), hands=(hand, ()))
    for _ in range(6):
        state = rules.play_action(state, Action(PLAY, 0), CFG, SplitMix64(0))
    assert state.players == (P(21, 9, 3, 4, 3, 43, 49, 49), P(21, 4, 2, 4, 3, 10, 10, 10))
    assert (state.current, state.acting, len(state.hands[0])) == (1, False, 6)


def test_hand_size_one_games_finish():
    """One card in hand: a play-again card empties the hand, the turn ends, and games still end by a rule."""
    cfg = config(hand_size=1)
    for seed in range(10):
        final, events = record(cfg, [RandomAgent(), GreedyAgent()], seed)
        turns = [s for kind, s, _ in events if kind == "turn"]
        assert turns and all(len(s.hands[s.current]) == 1 for s in turns)  # refilled to one card every turn
        assert all(_conserved(s) for _, s, _ in events)
        winner, reason = final.outcome
        if reason == rules.TURN_LIMIT:
            assert (winner, final.turn) == (rules.DRAW_SEAT, cfg.max_turns)
        else:  # a tower or resource victory (or a draw of both) that the final position shows
            assert final.turn <= cfg.max_turns
            assert rules.check_victory(final.players, cfg.battlefield) == final.outcome


# --------------------------------------------------------------------------------------- the deck
def test_hand_is_refilled_to_six_after_a_play():
    hand = idx("orc", "dragon", "ruby", "ogre", "spear", "fairy")
    out = rules.play_action(make(hands=(hand, ())), Action(PLAY, 0), CFG, SplitMix64(0))
    assert len(out.hands[0]) == 6 and out.hands[0][:5] == hand[1:]


def _conserved(state: GameState) -> bool:
    return sorted(state.deck + state.discard + state.hands[0] + state.hands[1]) == list(range(N))


@pytest.mark.parametrize("seed", range(6))
def test_regular_deck_conserves_all_102_cards_at_every_step(seed):
    final, events = record(CFG, [RandomAgent(), RandomAgent()], seed)
    assert all(_conserved(s) for _, s, _ in events)
    assert all(v >= 0 for _, s, _ in events for p in s.players for v in p)


def test_long_games_reshuffle_and_still_conserve_the_deck():
    cfg = config("free_steppe", max_turns=300)  # discarding only: 300 draws from a 90-card pile
    final, events = record(cfg, [DiscardFirst(), DiscardFirst()], 5)
    assert final.outcome == (rules.DRAW_SEAT, rules.TURN_LIMIT)
    assert all(_conserved(s) for _, s, _ in events)
    decks = [len(s.deck) for _, s, _ in events]
    assert sum(b > a for a, b in zip(decks, decks[1:], strict=False)) == 3


def test_empty_draw_pile_reshuffles_the_discard_pile_including_the_card_just_played():
    a, b, c = idx("orc", "ruby", "ogre")
    hand = idx("basic_wall", "dragon", "spear", "fairy", "quartz", "crack")
    rest = tuple(x for x in range(N) if x not in hand + (a, b, c))
    state = make(hands=(hand, rest[:6]), deck=(), discard=(a, b) + rest[6:])  # the draw pile is empty
    out = rules.play_action(state, Action(PLAY, 0), CFG, SplitMix64(9))
    pile = SplitMix64(9).shuffle(list((a, b) + rest[6:] + (hand[0],)))  # the documented Fisher–Yates
    assert out.hands[0] == hand[1:] + (pile[0],)
    assert out.deck == tuple(pile[1:]) and out.discard == ()
    assert c not in out.deck + out.discard + out.hands[0] + out.hands[1]  # c was out of this hand-built game


def test_unlimited_deck_draws_are_uniform_chi_square():
    cfg = config(deck="unlimited")
    base = make(hands=((), ()), deck=())
    rng = SplitMix64(2024)
    counts = Counter(rules.draw_card(base, 0, cfg, rng).hands[0][0] for _ in range(N * 200))
    observed = [counts[c] for c in range(N)]
    assert sum(observed) == N * 200
    assert chisquare(observed).pvalue > 0.001


def test_unlimited_deck_allows_duplicates_and_has_no_draw_pile():
    cfg = config(deck="unlimited")
    doubled = 0
    for seed in range(40):
        final, events = record(cfg, [RandomAgent(), RandomAgent()], seed)
        assert all(s.deck == () for _, s, _ in events)
        doubled += any(len(set(h)) < len(h) for _, s, _ in events for h in s.hands)
    assert doubled >= 10  # P(a duplicate in one 6-card hand) ≈ 14 %, and a game shows many hands
    state = rules.new_game(cfg, 0, SplitMix64.for_stream(5, rules.DECK_STREAM))
    deal = shuffle.deal(5, deck="unlimited", draws=12)
    assert state.hands == (deal[:6], deal[6:])


# ------------------------------------------------------------------------------------------ victory
@pytest.mark.parametrize(("p1", "p2", "outcome"), [
    (P(75, 0, 0, 0, 0, 0, 0, 0), P(20, 5, 1, 1, 1, 1, 1, 1), (0, rules.TOWER_BUILT)),
    (P(74, 0, 0, 0, 0, 0, 0, 0), P(20, 5, 1, 1, 1, 1, 1, 1), None),
    (P(20, 0, 0, 0, 0, 0, 0, 0), P(0, 50, 1, 1, 1, 1, 1, 1), (0, rules.TOWER_DESTROYED)),
    (P(1, 0, 0, 0, 0, 200, 0, 0), P(20, 5, 1, 1, 1, 1, 1, 1), (0, rules.RESOURCES_WON)),
    (P(1, 0, 0, 0, 0, 0, 199, 199), P(20, 5, 1, 1, 1, 199, 1, 1), None),
    (P(1, 0, 0, 0, 0, 0, 0, 0), P(20, 5, 1, 1, 1, 1, 1, 250), (1, rules.RESOURCES_WON)),
    (P(0, 9, 9, 9, 9, 9, 9, 9), P(20, 5, 1, 1, 1, 1, 1, 1), (1, rules.TOWER_DESTROYED)),
    (P(75, 0, 0, 0, 0, 0, 0, 0), P(20, 5, 1, 1, 1, 1, 200, 1), (rules.DRAW_SEAT, rules.DRAW)),
    (P(0, 0, 0, 0, 0, 0, 0, 0), P(0, 0, 0, 0, 0, 0, 0, 0), (rules.DRAW_SEAT, rules.DRAW)),
])
def test_victory_conditions(p1, p2, outcome):
    assert rules.check_victory((p1, p2), FIELDS["crystal_garden"]) == outcome


@pytest.mark.parametrize(("key", "me", "enemy", "outcome"), [
    ("dragons_eye", P(55, 0, 1, 1, 1, 1, 21, 1), EN, (0, rules.TOWER_BUILT)),  # 55 + 20 = 75
    ("crack", ME, P(3, 40, 1, 1, 1, 1, 1, 1), (0, rules.TOWER_DESTROYED)),
    ("magic_mountain", P(20, 8, 3, 3, 3, 20, 193, 20), EN, (0, rules.RESOURCES_WON)),  # 193 + 7 = 200
    ("discord", ME._replace(tower=5), EN._replace(tower=7), (rules.DRAW_SEAT, rules.DRAW)),  # both at 0
    ("rainbow", ME._replace(tower=74), EN._replace(tower=74), (rules.DRAW_SEAT, rules.DRAW)),  # both at 75
    ("berserker", ME._replace(tower=3), EN._replace(wall=0, tower=8), (rules.DRAW_SEAT, rules.DRAW)),
    ("power_burst", ME._replace(tower=5), EN, (1, rules.TOWER_DESTROYED)),  # you can destroy your own tower
])
def test_victory_is_checked_after_the_card_effect(key, me, enemy, outcome):
    hand = hand_with(key)
    state = make(players=(me, enemy), hands=(hand, ()))
    out = rules.play_action(state, Action(PLAY, 0), CFG, SplitMix64(0))
    assert out.outcome == outcome
    assert (out.current, out.hands[0]) == (0, hand[1:])  # the game stops: no refill, no turn change


def test_victory_is_checked_after_a_discard():
    winning = P(80, 0, 0, 0, 0, 0, 0, 0)  # e.g. reached through a hand-built start
    state = make(players=(EN, winning), hands=(idx("orc", "ruby"), ()))
    out = rules.play_action(state, Action(DISCARD, 0), CFG, SplitMix64(0))
    assert out.outcome == (1, rules.TOWER_BUILT)
    assert (out.current, out.hands[0]) == (0, idx("ruby"))
    pending = make(players=(EN, winning), hands=(idx("orc", "ruby"), ()), pending=True)
    assert rules.play_action(pending, Action(DISCARD, 1), CFG, SplitMix64(0)).outcome == (1, rules.TOWER_BUILT)


def test_production_can_win_before_the_action():
    state = make(players=(P(20, 8, 3, 3, 3, 197, 1, 1), EN), acting=False)
    assert rules.begin_turn(state, CFG).outcome == (0, rules.RESOURCES_WON)
    cfg = build_config(MODEL.resolve_params({"start_troops": 197, "first": "p2"}))
    final, events = record(cfg, [GreedyAgent(), GreedyAgent()], seed=1, first="p2")
    assert [k for k, _, _ in events] == ["deal", "turn", "end"]
    assert (final.outcome, final.turn) == ((1, rules.RESOURCES_WON), 1)


# ---------------------------------------------------------------------------------- turn limit
def test_turn_limit_is_a_draw_with_reason_turn_limit():
    cfg = config(max_turns=5)
    final = play_game(cfg, [DiscardFirst(), DiscardFirst()], seed=3, first="p1")
    assert (final.outcome, final.turn) == ((rules.DRAW_SEAT, rules.TURN_LIMIT), 5)
    row = results.result_row(final, cfg)
    assert (row["winner"], row["reason"], row["length"]) == ("draw", "turn_limit", 5)


def test_a_win_on_the_last_turn_beats_the_turn_limit():
    cfg = config(max_turns=1)
    hand = idx("quartz", "dragon", "orc", "ruby", "ogre", "spear")
    state = make(players=(ME._replace(tower=70), EN), hands=(hand, ()))
    assert rules.play_action(state, Action(PLAY, 0), cfg, SplitMix64(0)).outcome is None  # again: still acting
    assert rules.play_action(state, Action(PLAY, 3), cfg, SplitMix64(0)).outcome == (0, rules.TOWER_BUILT)
    assert rules.play_action(state, Action(PLAY, 2), cfg, SplitMix64(0)).outcome == (rules.DRAW_SEAT, rules.TURN_LIMIT)


# --------------------------------------------------------------------------------- missed turns
def test_worst_card_is_the_lowest_value_first_slot_on_ties():
    hand = idx("orc", "bad_ore", "ruby", "mad_cow", "dragon")  # costs 3, 0, 3, 0, 25
    assert rules.worst_slot(hand, CFG) == 1
    values = tuple(100.0 - c.cost for c in CARDS.cards)  # a valuation where expensive is worse
    assert rules.worst_slot(hand, CFG._replace(card_values=values)) == 4


def test_a_missed_turn_discards_the_worst_card_and_passes():
    hand = idx("orc", "bad_ore", "ruby", "mad_cow", "dragon", "ogre")
    state = make(hands=(hand, ()))
    out = rules.miss_turn(state, CFG, SplitMix64(0))
    assert out.players == state.players
    assert out.discard == idx("bad_ore")
    assert out.hands[0] == hand[:1] + hand[2:] + (state.deck[0],)
    assert (out.current, out.acting, out.missed, out.missed_total, out.outcome) == (1, False, (1, 0), (1, 0), None)


@pytest.mark.parametrize("limit", [3, 2, 1])
def test_max_missed_in_row_loses_by_timeout(limit):
    cfg = config(max_missed_in_row=limit)
    state = make(hands=(hand_with("bad_ore"), ()))._replace(
        missed=(limit - 1, 0), missed_total=(limit + 4, 0))
    out = rules.miss_turn(state, cfg, SplitMix64(0))
    assert out.outcome == (1, rules.TIMEOUT)
    assert (out.missed, out.missed_total) == ((limit, 0), (limit + 5, 0))


def test_a_turn_played_in_time_resets_the_run_of_misses():
    state = make()._replace(missed=(2, 1), missed_total=(7, 1))
    out = rules.reset_missed(state)
    assert (out.missed, out.missed_total) == ((0, 1), (7, 1))


def test_always_missing_loses_on_the_third_miss():
    cfg = config(miss_rate=1.0)
    final, events = record(cfg, [GreedyAgent(), GreedyAgent()], seed=4, first="p1")
    assert (final.outcome, final.turn, final.missed_total) == ((1, rules.TIMEOUT), 5, (3, 2))
    assert [k for k, _, _ in events].count("action") == 0
    assert results.result_row(final, cfg)["reason"] == "timeout"


def test_miss_counter_follows_consecutive_misses():
    cfg = config(miss_rate=0.3)
    resets = timeouts = 0
    for seed in range(8):
        final, events = record(cfg, [RandomAgent(), RandomAgent()], seed, first="random")
        run, total = [0, 0], [0, 0]
        for kind, s, _ in events:
            me = s.current
            if kind == "miss":
                assert s.missed[me] == run[me]
                run[me] += 1
                total[me] += 1
            elif kind == "action":
                resets += run[me] > 0
                run[me] = 0
                assert s.missed[me] == 0  # reset by acting in time
        assert list(final.missed_total) == total
        if final.outcome[1] == rules.TIMEOUT:
            timeouts += 1
            assert run[1 - final.outcome[0]] == 3 and run[final.outcome[0]] < 3
    assert resets >= 10 and timeouts >= 1


# ---------------------------------------------------------------- the protocol: State, timer node
def test_initial_state_deals_the_published_shuffle_and_waits_at_the_timer():
    state = rules.initial_state(config(first="p2"), 5)
    deal = shuffle.deal(5)  # the deal as published for players (shuffle.py)
    assert state.game.hands == (deal[:6], deal[6:12]) and state.game.deck == deal[12:]
    assert (state.game.current, state.game.first, state.game.turn, state.game.acting) == (1, 1, 0, False)
    assert rules.legal_actions(CFG, state) == ()  # the turn starts at the timer's chance node


def test_timer_outcomes_and_draws_follow_the_miss_rate():
    state = rules.initial_state(CFG, 3)
    assert rules.chance_outcomes(CFG, state) == [("play", 1.0)]
    assert rules.sample_chance(CFG, state) == ("play", state)  # no timer: nothing drawn
    cfg = config(miss_rate=0.3)
    assert rules.chance_outcomes(cfg, state) == [("miss", 0.3), ("play", 0.7)]
    timer = SplitMix64.for_stream(3, 4)  # stream 4 of the game seed is the duel timer
    misses = 0
    for _ in range(400):
        outcome, after = rules.sample_chance(cfg, state)
        assert outcome == ("miss" if timer.random() < 0.3 else "play")
        assert (after.game, after.deck, after.timer) == (state.game, state.deck, timer.state)
        misses, state = misses + (outcome == "miss"), after
    assert binomtest(misses, 400, 0.3).pvalue > 0.001


def test_apply_starts_the_turn_with_the_timer_outcome_then_plays_actions():
    hand = idx("orc", "bad_ore", "ruby", "mad_cow", "dragon", "ogre")  # costs 3 T, 0 O, 3 M, 0 T, 25 T, 6 T
    game = make(hands=(hand, ()), acting=False, turn=3)._replace(missed=(1, 0), missed_total=(2, 0))
    state = rules.State(game, 7, 9)
    played = rules.apply(CFG, state, "play")
    assert played.game.players[0] == P(20, 8, 3, 3, 3, 23, 23, 23)  # production: 3 of each
    assert (played.game.turn, played.game.acting, played.game.missed, played.game.missed_total) == (
        4, True, (0, 0), (2, 0))
    assert (played.deck, played.timer) == (7, 9)
    assert rules.legal_actions(CFG, played) == (
        *(Action(PLAY, i) for i in (0, 1, 2, 3, 5)), *(Action(DISCARD, i) for i in range(6)))  # no dragon
    passed = rules.apply(CFG, played, Action(PLAY, 3))  # Mad Cow, free: the turn passes, the hand refills
    assert (passed.game.current, passed.game.acting, passed.game.hands[0]) == (
        1, False, hand[:3] + hand[4:] + game.deck[:1])
    missed = rules.apply(CFG, state, "miss")
    assert missed.game.players[0] == P(20, 8, 3, 3, 3, 23, 23, 23)
    assert missed.game.discard == idx("bad_ore")  # the first of the two cheapest cards
    assert (missed.game.current, missed.game.acting, missed.game.missed, missed.game.missed_total) == (
        1, False, (2, 0), (3, 0))


# --------------------------------------------------------------------------------- first player
@pytest.mark.parametrize(("first", "seat"), [("p1", 0), ("p2", 1)])
def test_fixed_first_player(first, seat):
    final, events = record(CFG, [GreedyAgent(), GreedyAgent()], seed=8, first=first)
    assert events[1][1].current == seat and final.first == seat
    assert results.result_row(final, CFG)["first_seat"] == first


def test_random_first_player_is_a_fair_coin_and_reported():
    seats = []
    for seed in range(60):
        final = play_game(config(max_turns=1), [DiscardFirst(), DiscardFirst()], seed, "random")
        assert final.first == first_seat("random", seed)
        assert results.result_row(final, CFG)["first_seat"] == ("p1", "p2")[final.first]
        seats.append(final.first)
    assert binomtest(sum(seats), len(seats)).pvalue > 0.01


# ------------------------------------------------------------------------------------- variants
@pytest.mark.parametrize(("variant", "me_after", "enemy_after"), [
    ("everyone", P(17, 0, 3, 3, 3, 20, 9, 20), P(22, 12, 2, 4, 3, 10, 10, 10)),
    ("enemy", P(20, 5, 3, 3, 3, 20, 9, 20), P(22, 12, 2, 4, 3, 10, 10, 10)),
])
def test_lightning_variant(variant, me_after, enemy_after):
    cfg = config(lightning=variant)
    hand = idx("lightning", "dragon", "orc", "ruby", "ogre", "spear")
    state = make(players=(P(20, 5, 3, 3, 3, 20, 20, 20), P(22, 20, 2, 4, 3, 10, 10, 10)), hands=(hand, ()))
    assert rules.play_action(state, Action(PLAY, 0), cfg, SplitMix64(0)).players == (me_after, enemy_after)
    high = make(players=(P(30, 5, 3, 3, 3, 20, 20, 20), P(22, 20, 2, 4, 3, 10, 10, 10)), hands=(hand, ()))
    assert rules.play_action(high, Action(PLAY, 0), cfg, SplitMix64(0)).players == (
        P(30, 5, 3, 3, 3, 20, 9, 20), P(14, 20, 2, 4, 3, 10, 10, 10))


@pytest.mark.parametrize(("variant", "walls", "me_after", "enemy_after"), [
    ("both", (6, 6), P(18, 6, 3, 3, 2, 14, 20, 20), P(20, 6, 2, 4, 2, 10, 10, 10)),
    ("nobody", (6, 6), P(20, 6, 3, 3, 3, 14, 20, 20), P(22, 6, 2, 4, 3, 10, 10, 10)),
    ("nobody", (5, 6), P(18, 5, 3, 3, 2, 14, 20, 20), P(22, 6, 2, 4, 3, 10, 10, 10)),
    ("nobody", (7, 6), P(20, 7, 3, 3, 3, 14, 20, 20), P(20, 6, 2, 4, 2, 10, 10, 10)),
])
def test_groundwater_variant(variant, walls, me_after, enemy_after):
    cfg = config(groundwater=variant)
    hand = idx("groundwater", "dragon", "orc", "ruby", "ogre", "spear")
    state = make(players=(ME._replace(wall=walls[0]), EN._replace(wall=walls[1])), hands=(hand, ()))
    assert rules.play_action(state, Action(PLAY, 0), cfg, SplitMix64(0)).players == (me_after, enemy_after)


@pytest.mark.parametrize("size", [4, 8])
def test_hand_size_variant(size):
    cfg = config(hand_size=size)
    final, events = record(cfg, [RandomAgent(), RandomAgent()], seed=6)
    deal = events[0][1]
    assert (len(deal.hands[0]), len(deal.hands[1]), len(deal.deck)) == (size, size, N - 2 * size)
    for kind, s, _ in events:
        if kind == "turn":
            assert len(s.hands[s.current]) == size
        assert _conserved(s)


def test_battlefield_overrides_change_the_start_and_the_targets():
    params = MODEL.resolve_params({"battlefield": "free_steppe", "start_wall": 3, "start_ore": 40,
                                   "start_monasteries": 0, "win_tower": 30, "win_resources": 60})
    cfg = build_config(params)
    bf = cfg.battlefield
    assert (bf.key, bf.tower, bf.wall, bf.mines, bf.monasteries, bf.ore, bf.mana, bf.win_tower,
            bf.win_resources) == ("free_steppe", 20, 3, 1, 0, 40, 15, 30, 60)
    state = rules.new_game(cfg, 0, SplitMix64(1))
    assert state.players == (P(20, 3, 1, 0, 1, 40, 15, 15),) * 2
    assert rules.check_victory((P(30, 0, 0, 0, 0, 0, 0, 0), P(20, 0, 0, 0, 0, 0, 0, 0)), bf) == (0, rules.TOWER_BUILT)
    assert rules.check_victory((P(29, 0, 0, 0, 0, 60, 0, 0), P(20, 0, 0, 0, 0, 0, 0, 0)), bf) == (
        0, rules.RESOURCES_WON)
    final = play_game(cfg, [GreedyAgent(), GreedyAgent()], 2, "p1")
    assert final.outcome[1] in (rules.TOWER_BUILT, rules.TOWER_DESTROYED, rules.RESOURCES_WON)
    with pytest.raises(InputError, match="start tower"):
        build_config(MODEL.resolve_params({"start_tower": 80}))


@pytest.mark.parametrize("first, bonus_seat", [("p1", 1), ("p2", 0)])
def test_second_seat_bonus_goes_to_the_seat_that_moves_second(first, bonus_seat):
    from workbench.games.duel.model import MODEL, build_config

    params = MODEL.resolve_params({"first": first, "second_bonus_wall": 7, "second_bonus_ore": 4})
    config = build_config(params)
    dealt = []
    play_game(config, [RandomAgent(), RandomAgent()], 3, first,
                   on_event=lambda kind, s, d: dealt.append(s) if kind == "deal" else None)
    start = dealt[0].players
    assert (start[bonus_seat].wall, start[bonus_seat].ore) == (10 + 7, 5 + 4)
    assert (start[1 - bonus_seat].wall, start[1 - bonus_seat].ore) == (10, 5)
