"""Hand-built Towers of Babylon positions for the scenario tests.

``position(...)`` takes the parts a test cares about — each seat's :func:`side` (hand, deck, piles,
Power Sources, Transformed Power, tower) and the minions on the board, written with card ids
(``unit("F5", P1, BATTLEFIELD)``) — and fills in the rest: no decision pending, no attack, the
seat ``active`` in its main phase, every minion's ``uid`` its position in the list.  Cards are the
pool's ids (``"F9"``); the rules work with pool indices, :func:`card` converts.

:func:`act` applies actions through ``rules.apply`` (so an illegal one fails) and checks after each
one that no card appeared or vanished (each seat's cards, wherever they are, are the same multiset)
and that no counter went negative.  A play written without its payment (:func:`play`) pays, under the
default ``payment="chosen"``, as ``keep_playable`` (rules version 2) paid: the scenarios were traced
with those payments, and the player may choose them (:func:`paid`).
"""

from __future__ import annotations

from collections import Counter

from workbench.games.babylon import rules
from workbench.games.babylon.cards import load_cards, load_decks
from workbench.games.babylon.rules import (
    N_FACTIONS,
    NO_TARGET,
    RAMPARTS,
    READY,
    TALLIES,
    Action,
    Config,
    Minion,
    Side,
    State,
)

P1, P2 = 0, 1
POOL = load_cards()
DECKS = load_decks()
CONFIG: Config = rules.make_config(POOL, (DECKS["siege_of_ur"], DECKS["citadel_of_the_rivers"]), first="p1")
INDEX = {info.id: i for i, info in enumerate(CONFIG.cards)}
ALL_IDS = tuple(INDEX)
FACTION = {f: i for i, f in enumerate(("Fire", "Light", "Earth", "Water", "Shadow"))}


def card(card_id: str) -> int:
    """The pool index of a card id."""
    return INDEX[card_id]


def cards(*ids: str) -> tuple[int, ...]:
    """Pool indices of card ids, in the order given."""
    return tuple(INDEX[i] for i in ids)


def ids(indices) -> tuple[str, ...]:
    """Card ids of pool indices, in the order given."""
    return tuple(CONFIG.cards[i].id for i in indices)


def sources(**per_faction: int) -> tuple[int, ...]:
    """Power Sources per faction: ``sources(Fire=2, Earth=1)``."""
    out = [0] * N_FACTIONS
    for name, n in per_faction.items():
        out[FACTION[name]] = n
    return tuple(out)


def side(*, hand=(), deck=(), discard=(), sacrifice=(), invocations=(), available=None, exhausted=None,
         tp: int = 0, tower: int = 10, turns: int = 1) -> Side:
    """One seat's cards (ids; the deck top first) and counters."""
    return Side(cards(*deck), tuple(sorted(cards(*hand))), cards(*discard), cards(*sacrifice), cards(*invocations),
                available or (0,) * N_FACTIONS, exhausted or (0,) * N_FACTIONS, tp, tower, turns, frozenset(),
                frozenset(), (0,) * len(TALLIES))


def unit(card_id: str, owner: int, zone: int = RAMPARTS, status: int = READY, damage: int = 0,
         sentenced: bool = False, bonus: int = 0) -> Minion:
    """A minion for :func:`position` (its uid is set there)."""
    return Minion(-1, INDEX[card_id], owner, zone, status, damage, sentenced, bonus)


def position(p1: Side | None = None, p2: Side | None = None, minions=(), *, active: int = P1, first: int = P1,
             turn: int | None = None) -> State:
    """A main-phase position of ``active``; minion ``i`` of the list gets uid ``i``."""
    sides = (p1 or side(), p2 or side())
    board = tuple(m._replace(uid=i) for i, m in enumerate(minions))
    begun = sum(s.turns for s in sides) if turn is None else turn
    return State(sides, board, active, first, begun, None, None, (), len(board), False, False, None, ())


def holdings(s: State, seat: int) -> Counter:
    """Every card of ``seat``, wherever it is."""
    side = s.sides[seat]
    return (Counter(side.deck) + Counter(side.hand) + Counter(side.discard) + Counter(side.sacrifice)
            + Counter(side.invocations) + Counter(m.card for m in s.minions if m.owner == seat))


def paid(s: State, action, config: Config = CONFIG) -> Action:
    """``action``; a play without its payment under ``payment="chosen"``: paid as ``keep_playable`` pays."""
    action = Action(*action)
    if action.kind == rules.K_PLAY and action.pay == 0 and config.payment == "chosen" and rules.decision(s) is not None:
        side = s.sides[s.active]
        if action.a in side.hand and rules.can_pay(config, side, action.a):  # else: refused as it is
            return action._replace(pay=rules.pack_payment(rules.payment(config, side, action.a, "keep_playable")))
    return action


def act(s: State, *actions, config: Config = CONFIG) -> State:
    """Apply ``actions`` (``Action``s or ``(kind, a, b)`` tuples; :func:`paid`) through ``rules.apply``, checking."""
    for action in actions:
        before = (holdings(s, P1), holdings(s, P2))
        s = rules.apply(config, s, paid(s, action, config))
        assert (holdings(s, P1), holdings(s, P2)) == before, f"cards not conserved by {action}"
        for sd in s.sides:
            assert sd.tower >= 0 and sd.tp >= 0 and min(sd.available) >= 0 and min(sd.exhausted) >= 0
        assert all(m.damage >= 0 for m in s.minions)
    return s


def legal(s: State, config: Config = CONFIG) -> tuple[Action, ...]:
    """``rules.legal_actions``."""
    return rules.legal_actions(config, s)


def plays(s: State, config: Config = CONFIG) -> list[Action]:
    """The legal plays as :func:`play` writes them (card and target), each once: without their payments."""
    out: list[Action] = []
    for a in rules.legal_actions(config, s):
        if a.kind == rules.K_PLAY and Action(*a[:3]) not in out:
            out.append(Action(*a[:3]))
    return out


def due(s: State) -> tuple[str, int] | None:
    """The decision due as ``(name, seat)`` (``("block", P2)``), None at the end."""
    d = rules.decision(s)
    return None if d is None else (rules.DECISIONS[d[0]], d[1])


def play(card_id: str, target: int = NO_TARGET) -> Action:
    """The action playing ``card_id`` (on minion ``target``)."""
    return Action(rules.K_PLAY, INDEX[card_id], target)


def mn(s: State, uid: int) -> Minion | None:
    """Minion ``uid`` if it is on the board."""
    return rules.minion(s, uid)


def hand_ids(s: State, seat: int) -> tuple[str, ...]:
    """``seat``'s hand as card ids (sorted by pool order)."""
    return ids(s.sides[seat].hand)


END = Action(rules.K_END)
SKIP = Action(rules.K_SKIP)
DRAW = Action(rules.K_DRAW)


def move(uid: int, zone: int) -> Action:
    return Action(rules.K_MOVE, uid, zone)


def build(uid: int) -> Action:
    return Action(rules.K_BUILD, uid)


def attack(uid: int, target: int = rules.TOWER_TARGET) -> Action:
    return Action(rules.K_ATTACK, uid, target)


def block(uid: int) -> Action:
    return Action(rules.K_BLOCK, uid)


def witch(card_id: str) -> Action:
    return Action(rules.K_WITCH, INDEX[card_id])


def target(uid: int) -> Action:
    return Action(rules.K_TARGET, uid)


def offer(card_id: str) -> Action:
    return Action(rules.K_OFFER, INDEX[card_id])


def with_side(s: State, seat: int, **changes) -> State:
    """``s`` with fields of ``seat``'s side replaced."""
    sides = list(s.sides)
    sides[seat] = sides[seat]._replace(**changes)
    return s._replace(sides=(sides[0], sides[1]))


def cast(s: State, card_id: str, on: int = NO_TARGET) -> State:
    """The active seat plays ``card_id`` from its hand with exactly the sources its cost needs.

    The specific cost comes from sources of the card's colour, the rest from another colour; the
    test first checks that one colour source less (the same total) makes the card unplayable, then
    plays it and checks that the sources were spent and the card left the hand.
    """
    info = CONFIG.cards[INDEX[card_id]]
    seat = s.active
    other = FACTION["Shadow"] if info.faction != FACTION["Shadow"] else FACTION["Fire"]
    need = [0] * N_FACTIONS
    need[info.faction] += info.specific
    need[other] += info.power - info.specific
    short = list(need)
    short[info.faction] -= 1
    short[other] += 1
    spent = s.sides[seat].exhausted
    poor = with_side(s, seat, available=tuple(short))
    assert not any(a.kind == rules.K_PLAY and a.a == INDEX[card_id] for a in legal(poor)), card_id
    s = with_side(s, seat, available=tuple(need))
    in_hand = s.sides[seat].hand.count(INDEX[card_id])
    s = act(s, play(card_id, on))
    after = s.sides[seat]
    assert tuple(e - x for e, x in zip(after.exhausted, spent, strict=True)) == tuple(need)
    assert after.hand.count(INDEX[card_id]) == in_hand - 1
    assert INDEX[card_id] in after.played
    return s
