"""Tower duel rules as pure functions over immutable state (the reference engine).

The protocol functions (``core/model/``) take ``(config, state, action)``: :func:`initial_state`,
:func:`legal_actions`, :func:`apply`, :func:`chance_outcomes` and :func:`sample_chance` over a
:class:`State` — the game (:class:`GameState`) plus the integer states of the deck and timer
streams, so it is a value and ``apply`` is pure.  A turn starts at a chance node, the duel timer:
with ``miss_rate`` > 0 the player misses the turn with that probability (drawn from the timer
stream), else the node has one outcome and draws nothing; its outcome starts the turn (production,
the production victory check) and, for a miss, discards the worst card.  Then the player to move
acts until the turn passes.  Below them, the game-level functions the agents' lookahead uses for
speed take a mutable deck stream: :func:`new_game`, :func:`legal_moves`, :func:`play_action`.

Turn structure (``docs/rules/duel.md``):

1. ``begin_turn``: the player to move gains each resource equal to its producer count; victory
   is checked (production can win).
2. The player plays one affordable card (paying its cost in the card's colour) or discards any
   card: ``play_action``.  A played card goes onto the discard pile as it is played; its effect runs
   statement by statement; victory is checked after the effect and after every discard.
   "Play again" gives one more action without production (a player whose hand is empty by then
   has nothing to play or discard, so the turn ends); "draw a card, discard a card" draws one
   card, then the next action must be a discard, then the player plays again if the card also says
   "play again" (both duel cards that draw do).
3. ``end_turn``: the hand is refilled to the hand size from the shared deck (regular: a shuffled
   draw pile, the discard pile is shuffled back in when it runs out; unlimited: every draw uniform
   over all card kinds); the turn passes; at ``max_turns`` player turns the game is a draw
   (reason ``turn_limit``).

A missed turn (duel timer) discards the player's worst card automatically: ``miss_turn``.

Randomness: each game seed feeds independent SplitMix64 sub-streams (``workbench/core/rng.py``):
stream 1 the deck (the fair-shuffle deal, reshuffles and unlimited draws), 2 and 3 the agents of p1
and p2, 4 the duel timer (missed turns), 5 the choice of the first player when ``first="random"``.
The reference engine and the compiled kernel consume the same streams in the same order.  The
game-level functions draw only from the ``rng`` passed in.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from workbench.core.model import first_seat
from workbench.core.rng import SplitMix64
from workbench.games.duel.data import Battlefield, CardSet
from workbench.games.duel.effects import ADD, DAMAGE, SET, STATS, STEAL, SWAP, Cond, Effect, Op

# Outcome reasons, as written into result frames.
TOWER_BUILT, TOWER_DESTROYED, RESOURCES_WON = "tower_built", "tower_destroyed", "resources"
DRAW, TURN_LIMIT, TIMEOUT = "draw", "turn_limit", "timeout"
REASONS = (TOWER_BUILT, TOWER_DESTROYED, RESOURCES_WON, DRAW, TURN_LIMIT, TIMEOUT)
DRAW_SEAT = -1

PLAY, DISCARD = 0, 1
PLAY_TURN, MISS = "play", "miss"  # outcomes of the turn-start chance node (the duel timer)
DECK_STREAM, SEAT_STREAM_BASE, TIMER_STREAM = 1, 2, 4  # agents: 2 (p1) and 3 (p2); core's FIRST_STREAM 5


# one player's public position: a non-negative integer per statistic, in ``effects.STATS`` order (tower, wall, mines,
# monasteries, barracks, ore, mana, troops), the fields a battlefield's start position has too
PlayerState = NamedTuple("PlayerState", [(stat, int) for stat in STATS])
PlayerState.__doc__ = "One player's public position; every field (``effects.STATS``) is a non-negative integer."


class Action(NamedTuple):
    """``kind`` PLAY (0) or DISCARD (1) of the card in hand slot ``slot``."""

    kind: int
    slot: int


class Config(NamedTuple):
    """Everything that fixes the rules of one game (built from the model's parameters)."""

    cards: CardSet
    battlefield: Battlefield
    deck: str = "regular"  # "regular" | "unlimited"
    hand_size: int = 6
    max_turns: int = 400
    miss_rate: float = 0.0
    max_missed_in_row: int = 3
    thief_rounding: str = "up"  # "up" | "down"
    lightning: str = "everyone"  # "everyone" | "enemy"
    groundwater: str = "both"  # "both" | "nobody"
    card_values: tuple[float, ...] = ()  # worst-card valuation, one value per card kind
    second_bonus: tuple[int, ...] = (0,) * 8  # added to the second mover's start, in PlayerState order
    first: str = "random"  # who moves first: "random" (drawn from the game seed), "p1" or "p2"


class GameState(NamedTuple):
    """The whole game.  Seats are 0 (p1) and 1 (p2); cards are card indexes into the card set.

    ``hands`` keep slot order (a played/discarded card leaves its slot, drawn cards go to the end);
    ``deck`` is the regular draw pile, next card first (empty for the unlimited deck); ``discard``
    is the discard pile, oldest first.  ``acting`` is False between turns (production is due);
    ``pending_discard`` means the next action must be a discard (draw-then-discard).
    ``missed`` counts each seat's missed turns in a row, ``missed_total`` all of them.
    ``outcome`` is None while the game runs, else ``(winner seat or -1 for a draw, reason)``.
    """

    players: tuple[PlayerState, PlayerState]
    hands: tuple[tuple[int, ...], tuple[int, ...]]
    deck: tuple[int, ...]
    discard: tuple[int, ...]
    current: int
    first: int
    turn: int
    acting: bool
    pending_discard: bool
    missed: tuple[int, int]
    missed_total: tuple[int, int]
    outcome: tuple[int, str] | None
    drawn: tuple[tuple[int, ...], tuple[int, ...]]
    played: tuple[tuple[int, ...], tuple[int, ...]]


# ---------------------------------------------------------------------------------------- setup
def start_player(battlefield: Battlefield) -> PlayerState:
    """A player's position at the start of a game on ``battlefield``."""
    b = battlefield
    return PlayerState(b.tower, b.wall, b.mines, b.monasteries, b.barracks, b.ore, b.mana, b.troops)


def new_game(config: Config, first: int, rng: SplitMix64) -> GameState:
    """Shuffle (regular deck), deal ``hand_size`` cards to p1 then to p2, ``first`` to move.

    The seat moving second starts with ``config.second_bonus`` on top of the battlefield (a
    balancing lever, zero by default).
    """
    n = len(config.cards)
    if config.deck == "regular":
        pile = tuple(rng.shuffle(list(range(n))))
        h = config.hand_size
        hands = (pile[:h], pile[h:2 * h])
        deck = pile[2 * h:]
    else:
        hands = (tuple(rng.below(n) for _ in range(config.hand_size)),
                 tuple(rng.below(n) for _ in range(config.hand_size)))
        deck = ()
    p = start_player(config.battlefield)
    second = PlayerState(*(v + b for v, b in zip(p, config.second_bonus, strict=True)))
    players = (p, second) if first == 0 else (second, p)
    return GameState(players, hands, deck, (), first, first, 0, False, False, (0, 0), (0, 0), None, hands, ((), ()))


# ------------------------------------------------------------------------------------- effects
def _set(players: tuple[PlayerState, ...], seat: int, stat: str, value: int) -> tuple[PlayerState, ...]:
    updated = players[seat]._replace(**{stat: max(0, value)})
    return (updated, players[1]) if seat == 0 else (players[0], updated)


def damage(player: PlayerState, amount: int) -> PlayerState:
    """Ordinary damage: the wall absorbs first, the rest hits the tower (both clamp at 0)."""
    absorbed = min(player.wall, amount)
    return player._replace(wall=player.wall - absorbed, tower=max(0, player.tower - (amount - absorbed)))


def targets(who: str, me: int, players: tuple[PlayerState, ...], config: Config) -> tuple[int, ...]:
    """Seats an operation addressed to ``who`` touches, for the player ``me``."""
    enemy = 1 - me
    if who == "self":
        return (me,)
    if who == "enemy":
        return (enemy,)
    if who == "all":
        return (me, enemy)
    if who == "everyone":  # Lightning's "8 damage to everyone"
        return (enemy,) if config.lightning == "enemy" else (me, enemy)
    if who == "lower_wall":  # Groundwater
        mine, theirs = players[me].wall, players[enemy].wall
        if mine != theirs:
            return (me,) if mine < theirs else (enemy,)
        return (me, enemy) if config.groundwater == "both" else ()
    raise ValueError(f"unknown target {who!r}")


def _side(who: str, me: int) -> int:
    return me if who == "self" else 1 - me


def condition_holds(cond: Cond, me: int, players: tuple[PlayerState, ...]) -> bool:
    """Evaluate an effect condition from the point of view of the player ``me``."""
    lhs = getattr(players[_side(cond.who, me)], cond.stat)
    rhs = getattr(players[_side(cond.rhs_who, me)], cond.rhs_stat) if cond.rhs_who else cond.rhs_const
    return {"<": lhs < rhs, "<=": lhs <= rhs, ">": lhs > rhs, ">=": lhs >= rhs,
            "==": lhs == rhs, "!=": lhs != rhs}[cond.cmp]


def apply_op(players: tuple[PlayerState, ...], me: int, op: Op, config: Config) -> tuple[PlayerState, ...]:
    """Apply one operation; every value clamps at 0."""
    if op.kind == ADD:
        for seat in targets(op.who, me, players, config):
            players = _set(players, seat, op.stat, getattr(players[seat], op.stat) + op.amount)
    elif op.kind == DAMAGE:
        for seat in targets(op.who, me, players, config):
            hit = damage(players[seat], op.amount)
            players = (hit, players[1]) if seat == 0 else (players[0], hit)
    elif op.kind == SET:
        value = getattr(players[_side(op.src_who, me)], op.src_stat)
        players = _set(players, _side(op.who, me), op.stat, value)
    elif op.kind == SWAP:
        mine, theirs = getattr(players[me], op.stat), getattr(players[1 - me], op.stat)
        players = _set(_set(players, me, op.stat, theirs), 1 - me, op.stat, mine)
    elif op.kind == STEAL:
        enemy = 1 - me
        before = getattr(players[enemy], op.stat)
        lost = min(before, op.amount)
        gain = (lost + 1) // 2 if config.thief_rounding == "up" else lost // 2
        players = _set(players, enemy, op.stat, before - lost)
        players = _set(players, me, op.stat, getattr(players[me], op.stat) + gain)
    else:
        raise ValueError(f"unknown operation {op.kind!r}")
    return players


def apply_effect(players: tuple[PlayerState, ...], me: int, effect: Effect,
                 config: Config) -> tuple[PlayerState, PlayerState]:
    """Run a card's statements for the player ``me`` (the turn-flow flags are handled by ``play_action``)."""
    for st in effect.statements:
        ops = st.then if st.cond is None or condition_holds(st.cond, me, players) else st.orelse
        for op in ops:
            players = apply_op(players, me, op, config)
    return players  # type: ignore[return-value]


# ------------------------------------------------------------------------------------- victory
def win_reason(me: PlayerState, enemy: PlayerState, battlefield: Battlefield) -> str | None:
    """Why ``me`` has won (tower built > tower destroyed > resources), or None."""
    if me.tower >= battlefield.win_tower:
        return TOWER_BUILT
    if enemy.tower == 0:
        return TOWER_DESTROYED
    if max(me.ore, me.mana, me.troops) >= battlefield.win_resources:
        return RESOURCES_WON
    return None


def check_victory(players: tuple[PlayerState, ...], battlefield: Battlefield) -> tuple[int, str] | None:
    """The outcome if someone has won now; both at once is a draw."""
    r0 = win_reason(players[0], players[1], battlefield)
    r1 = win_reason(players[1], players[0], battlefield)
    if r0 and r1:
        return (DRAW_SEAT, DRAW)
    if r0:
        return (0, r0)
    if r1:
        return (1, r1)
    return None


# ------------------------------------------------------------------------------------ turn flow
def produce(player: PlayerState) -> PlayerState:
    """Start-of-turn production: each resource grows by its producer count."""
    return player._replace(ore=player.ore + player.mines, mana=player.mana + player.monasteries,
                           troops=player.troops + player.barracks)


def begin_turn(state: GameState, config: Config) -> GameState:
    """Production for the player to move, the turn counter, and the production victory check."""
    me = state.current
    players = list(state.players)
    players[me] = produce(players[me])
    players_t = (players[0], players[1])
    return state._replace(players=players_t, turn=state.turn + 1, acting=True,
                          outcome=check_victory(players_t, config.battlefield))


def affordable(player: PlayerState, card_resource: str, cost: int) -> bool:
    """Can ``player`` pay ``cost`` of ``card_resource``?"""
    return getattr(player, card_resource) >= cost


def legal_moves(state: GameState, config: Config) -> tuple[Action, ...]:
    """Plays of affordable cards in slot order, then discards of every slot.

    Only discards while a draw-then-discard is pending.
    """
    hand = state.hands[state.current]
    discards = tuple(Action(DISCARD, i) for i in range(len(hand)))
    if state.pending_discard:
        return discards
    me = state.players[state.current]
    cards = config.cards.cards
    plays = tuple(Action(PLAY, i) for i, c in enumerate(hand) if affordable(me, cards[c].resource, cards[c].cost))
    return plays + discards


def draw_card(state: GameState, seat: int, config: Config, rng: SplitMix64) -> GameState:
    """Draw one card into ``seat``'s hand (reshuffling the discard pile into an empty draw pile)."""
    deck, discard = state.deck, state.discard
    if config.deck == "unlimited":
        card = rng.below(len(config.cards))
    else:
        if not deck:
            if not discard:
                return state  # every card is in a hand: nothing to draw
            deck, discard = tuple(rng.shuffle(list(discard))), ()
        card, deck = deck[0], deck[1:]
    hands = _with(state.hands, seat, state.hands[seat] + (card,))
    drawn = _with(state.drawn, seat, state.drawn[seat] + (card,))
    return state._replace(hands=hands, deck=deck, discard=discard, drawn=drawn)


def _with(pair: tuple, seat: int, value: object) -> tuple:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def _remove_slot(state: GameState, slot: int) -> tuple[GameState, int]:
    me = state.current
    hand = state.hands[me]
    if not 0 <= slot < len(hand):
        raise ValueError(f"slot {slot} is not in a hand of {len(hand)} cards")
    card = hand[slot]
    return state._replace(hands=_with(state.hands, me, hand[:slot] + hand[slot + 1:]),
                          discard=state.discard + (card,)), card


def play_action(state: GameState, action: Action, config: Config, rng: SplitMix64) -> GameState:
    """Apply one action of the player to move; ends the turn unless the player acts again."""
    if state.outcome is not None or not state.acting:
        raise ValueError("play_action() needs a running game after begin_turn()")
    me = state.current
    if action.kind == DISCARD:
        state, _ = _remove_slot(state, action.slot)
        state = state._replace(outcome=check_victory(state.players, config.battlefield))
        if state.outcome:
            return state
        if state.pending_discard:  # draw-then-discard resolved: the card's own "play again", if any
            source = config.cards.cards[state.played[me][-1]]
            if source.effect.again:
                return _act_again(state._replace(pending_discard=False), config, rng)
        return end_turn(state, config, rng)
    if action.kind != PLAY or state.pending_discard:
        raise ValueError(f"illegal action {action} (a discard is pending: {state.pending_discard})")
    card = config.cards.cards[state.hands[me][action.slot]]
    player = state.players[me]
    if not affordable(player, card.resource, card.cost):
        raise ValueError(f"{card.name_en} costs {card.cost} {card.resource}; the player has "
                         f"{getattr(player, card.resource)}")
    state, _ = _remove_slot(state, action.slot)
    paid = _set(state.players, me, card.resource, getattr(player, card.resource) - card.cost)
    players = apply_effect(paid, me, card.effect, config)
    state = state._replace(players=players, played=_with(state.played, me, state.played[me] + (card.index,)),
                           outcome=check_victory(players, config.battlefield))
    if state.outcome:
        return state
    if card.effect.draw_discard:
        return draw_card(state, me, config, rng)._replace(pending_discard=True)
    if card.effect.again:
        return _act_again(state, config, rng)
    return end_turn(state, config, rng)


def _act_again(state: GameState, config: Config, rng: SplitMix64) -> GameState:
    """"Play again": the same player acts once more — unless the hand is empty, which ends the turn."""
    return state if state.hands[state.current] else end_turn(state, config, rng)


def end_turn(state: GameState, config: Config, rng: SplitMix64) -> GameState:
    """Refill the hand to the hand size, pass the turn, and apply the turn limit."""
    me = state.current
    while len(state.hands[me]) < config.hand_size:
        before = state
        state = draw_card(state, me, config, rng)
        if state is before:
            break
    outcome = (DRAW_SEAT, TURN_LIMIT) if state.turn >= config.max_turns else None
    return state._replace(current=1 - me, acting=False, pending_discard=False, outcome=outcome)


def card_values(config: Config) -> tuple[float, ...]:
    """Each card kind's value for the worst-card rule: ``config.card_values``, else its cost."""
    return config.card_values or config.cards.cost_values


def worst_slot(hand: tuple[int, ...], config: Config) -> int:
    """The hand slot of the worst card: the lowest card value, the first such slot on ties."""
    values = card_values(config)
    best_slot, best_value = 0, values[hand[0]]
    for slot in range(1, len(hand)):
        if values[hand[slot]] < best_value:
            best_slot, best_value = slot, values[hand[slot]]
    return best_slot


def miss_turn(state: GameState, config: Config, rng: SplitMix64) -> GameState:
    """The player to move missed the turn: the worst card is discarded for them.

    After ``max_missed_in_row`` misses in a row that player loses (reason ``timeout``).
    """
    me = state.current
    missed = _with(state.missed, me, state.missed[me] + 1)
    total = _with(state.missed_total, me, state.missed_total[me] + 1)
    state, _ = _remove_slot(state._replace(missed=missed, missed_total=total), worst_slot(state.hands[me], config))
    if missed[me] >= config.max_missed_in_row:
        return state._replace(outcome=(1 - me, TIMEOUT))
    state = state._replace(outcome=check_victory(state.players, config.battlefield))
    return state if state.outcome else end_turn(state, config, rng)


def reset_missed(state: GameState) -> GameState:
    """The player to move acted in time: their run of missed turns is over."""
    if state.missed[state.current] == 0:
        return state
    return state._replace(missed=_with(state.missed, state.current, 0))


# ------------------------------------------------------------------------------------- protocol
class State(NamedTuple):
    """A duel in progress: the game and the deck and timer streams' states (SplitMix64 integers)."""

    game: GameState
    deck: int
    timer: int


def initial_state(config: Config, seed: int) -> State:
    """Shuffle and deal from the deck stream, the first seat from core's stream; the first timer node is next."""
    deck = SplitMix64.for_stream(seed, DECK_STREAM)
    game = new_game(config, first_seat(config.first, seed), deck)
    return State(game, deck.state, SplitMix64.for_stream(seed, TIMER_STREAM).state)


def legal_actions(config: Config, state: State) -> tuple[Action, ...]:
    """The player to move's :func:`legal_moves`; none at the timer node or after the end."""
    game = state.game
    if game.outcome is not None or not game.acting:
        return ()
    return legal_moves(game, config)


def chance_outcomes(config: Config, state: State) -> list[tuple[str, float]]:
    """The duel timer: miss with ``miss_rate``, else play."""
    if config.miss_rate > 0.0:
        return [(MISS, config.miss_rate), (PLAY_TURN, 1.0 - config.miss_rate)]
    return [(PLAY_TURN, 1.0)]


def sample_chance(config: Config, state: State) -> tuple[str, State]:
    """One draw of the timer stream when the timer runs (none at ``miss_rate`` 0)."""
    if config.miss_rate <= 0.0:
        return PLAY_TURN, state
    timer = SplitMix64(state.timer)
    outcome = MISS if timer.random() < config.miss_rate else PLAY_TURN
    return outcome, state._replace(timer=timer.state)


def apply(config: Config, state: State, action: Action | str) -> State:
    """A timer outcome (``"play"`` / ``"miss"``) starts the turn; else the action is played (:func:`play_action`)."""
    deck = SplitMix64(state.deck)
    game = state.game
    if not game.acting:
        game = begin_turn(game, config)
        if game.outcome is None:
            game = miss_turn(game, config, deck) if action == MISS else reset_missed(game)
    else:
        game = play_action(game, action, config, deck)
    return State(game, deck.state, state.timer)


def card_played(config: Config, state: State, action: Any) -> int | None:
    """The id of the card ``action`` plays (None for a discard or a timer outcome): the card table's ``played_by``."""
    if not isinstance(action, Action) or action.kind != PLAY:
        return None
    game = state.game
    return config.cards.cards[game.hands[game.current][action.slot]].id
