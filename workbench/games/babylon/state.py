"""Towers of Babylon's state and configuration: the constants, the immutable ``State`` and its parts, ``Config``.

The rules (``rules.py``) are functions over these values; every name here is re-exported there.
"""

from __future__ import annotations

from typing import NamedTuple

from workbench.core.errors import InputError
from workbench.games.babylon.cards import FACTIONS, Card, CardPool, Deck
from workbench.games.babylon.effects import WITCHERY_TRIGGERS, Clause

SEATS = 2
DECK_STREAMS, SEAT_STREAM_BASE = (1, 2), 3  # sub-streams of the game seed; agents 3 and 4; core's FIRST_STREAM 5
FACTION_LIST = tuple(FACTIONS)  # Fire Light Earth Water Shadow
N_FACTIONS = len(FACTION_LIST)
UNKNOWN = -1  # a card a seat cannot see (observations)
TOWER_TARGET = -1  # an attack's target: the enemy tower
NO_TARGET = -1

RAMPARTS, TOWER, BATTLEFIELD = 0, 1, 2
ZONES = ("Ramparts", "Tower", "Battlefield")
READY, IMMOBILE, EXHAUSTED = 0, 1, 2
STATUSES = ("ready", "immobile", "exhausted")
MINION, COMMAND, INVOCATION, WITCHERY = 0, 1, 2, 3
TYPE_CODES = {"Minion": MINION, "Command": COMMAND, "Invocation": INVOCATION, "Witchery": WITCHERY}

# decisions
MULLIGAN, START, MAIN, BLOCK, WITCH, TWIN, OFFER, TARGET = range(8)
DECISIONS = ("mulligan", "start", "main", "block", "witch", "twin", "offer", "target")

# action kinds: an action is (kind, a, b, pay)
K_MULLIGAN, K_DRAW, K_OFFER, K_SKIP, K_PLAY, K_MOVE, K_BUILD, K_ATTACK, K_END, K_BLOCK, K_WITCH, K_TARGET = range(12)
KINDS = ("mulligan", "draw", "offer", "skip", "play", "move", "build", "attack", "end", "block", "witch", "target")

# attack stages
ST_BLOCK, ST_WITCH, ST_TWIN, ST_CLASH = range(4)

CHOOSING = ("minion", "enemy_minion", "friendly_minion")  # targets the controller picks

# the readings of the open text a Config carries: field -> its values, the default first (docs/rules/babylon.md)
READINGS = {
    "clash_back": ("yes", "no"),
    "dark_pact": ("draws", "unplayable"),
    "thief_gain": ("lost", "damage"),
    "crush_excess": ("remaining", "printed"),
    "sentenced_build": ("counts", "fails"),
    "payment": ("chosen", "keep_playable", "others_first"),
}

TOWER_WIN, COUNT = "tower", "count"
REASONS = (TOWER_WIN, COUNT)
DRAW_SEAT = -1

TALLIES = ("built", "tower_damage", "stolen", "minions", "spells", "witcheries", "offerings", "attacks", "blocks",
           "deaths", "drawn_cards", "mulligan")
T_BUILT, T_DAMAGE, T_STOLEN, T_MINIONS, T_SPELLS, T_WITCH, T_OFFER, T_ATTACKS, T_BLOCKS, T_DEATHS, T_DRAWN, \
    T_MULLIGAN = range(len(TALLIES))


class Action(NamedTuple):
    """One decision: ``kind`` (``K_*``) and two integers whose meaning the kind fixes (card, minion, zone, mask).

    ``pay``: the sources a play spends (:func:`pack_payment`) under ``payment="chosen"``; 0 otherwise, where
    the engine pays by the reading (a card costing nothing is paid by 0 under every reading).
    """

    kind: int
    a: int = 0
    b: int = 0
    pay: int = 0


class CardInfo(NamedTuple):
    """The rules' view of one card of the pool (indexed by its position in the pool)."""

    id: str
    name: str
    type: int
    faction: int
    power: int
    specific: int
    tp: int
    construction: int
    might: int
    health: int
    crush: bool
    twinstrike: bool
    tunnel: bool
    lethal: bool
    thief: bool
    retreating: bool
    regenerating: bool
    clauses: dict[str, Clause]  # trigger -> clause (a card has at most one clause per trigger)


class Config(NamedTuple):
    """The cards, both decks (pool indices, 60 each), and the numbers a designer may change."""

    cards: tuple[CardInfo, ...]
    decks: tuple[tuple[int, ...], tuple[int, ...]]
    deck_keys: tuple[str, str]
    first: str  # "p1" | "p2" | "random"
    start_hand: int  # cards the first player draws
    second_cards: int  # extra cards for the second player
    second_tp: int  # Transformed Power the second player starts with
    mulligan: int  # most cards put back
    start_tower: int
    win_tower: int
    turns: int  # turns per player
    # readings of the open text (READINGS: the first choice of each is the default)
    clash_back: str = "yes"  # an exhausted minion that is attacked still deals its might back ("no": none)
    dark_pact: str = "draws"  # a text destroying a chosen friendly minion, with none: still runs ("unplayable")
    thief_gain: str = "lost"  # Thief gains the levels the enemy tower lost ("damage": the full damage)
    crush_excess: str = "remaining"  # Crush's excess over the blocker's remaining health ("printed": its health)
    sentenced_build: str = "counts"  # a Sentenced builder killed by its exhaustion still builds ("fails")
    payment: str = "chosen"  # which sources pay: the player's, in the action ("keep_playable", "others_first")


class Minion(NamedTuple):
    """A minion on the board (``uid`` counts up from 0 in the order minions entered)."""

    uid: int
    card: int
    owner: int
    zone: int
    status: int
    damage: int = 0
    sentenced: bool = False
    bonus: int = 0  # health until end of turn


class Side(NamedTuple):
    """One player's cards and counters."""

    deck: tuple[int, ...]  # top first
    hand: tuple[int, ...]  # sorted
    discard: tuple[int, ...]
    sacrifice: tuple[int, ...]
    invocations: tuple[int, ...]  # played, waiting for the start of the next turn
    available: tuple[int, ...]  # power sources per faction
    exhausted: tuple[int, ...]
    tp: int
    tower: int
    turns: int
    drawn: frozenset[int]  # cards ever held (opening hand included)
    played: frozenset[int]
    tally: tuple[int, ...]  # TALLIES


class Attack(NamedTuple):
    """An attack in progress."""

    attacker: int  # uid
    target: int  # uid, or TOWER_TARGET
    blocker: int = NO_TARGET
    stage: int = ST_BLOCK
    no_tower_damage: bool = False
    ended: bool = False
    twin: int = NO_TARGET


class Trigger(NamedTuple):
    """A text waiting to resolve: ``clause`` of ``card`` for ``controller`` (``offers`` > 0: Offerings owed)."""

    controller: int
    card: int
    clause: Clause | None
    offers: int = 0
    optional: bool = False


class Pending(NamedTuple):
    """A decision other than MAIN: its kind, the seat deciding, and the trigger it belongs to."""

    kind: int
    seat: int
    trigger: Trigger | None = None


class State(NamedTuple):
    """A whole game position; ``outcome`` is ``(winner seat or DRAW_SEAT, reason)`` once decided."""

    sides: tuple[Side, Side]
    minions: tuple[Minion, ...]
    active: int
    first: int
    turn: int  # player turns begun, both seats
    pending: Pending | None
    attack: Attack | None
    queue: tuple[Trigger, ...]
    next_uid: int
    upkeep: bool  # the active player's start of turn still has to draw
    ending: bool  # the active player's turn has ended; the next begins once its triggers resolved
    outcome: tuple[int, str] | None
    history: tuple[tuple[int, int], ...]  # both towers after each turn
    entering: int = NO_TARGET  # uid of the minion that just entered while its controller's Witchery window is open


# -- config ---------------------------------------------------------------------------------------
def card_info(card: Card) -> CardInfo:
    """The rules' record of a loaded card."""
    clauses: dict[str, Clause] = {}
    for clause in card.effect.clauses:
        if clause.trigger in clauses:
            raise InputError(f"card {card.id} ({card.name}) has two {clause.trigger!r} clauses; join their actions "
                             "with '&'")
        if clause.trigger in WITCHERY_TRIGGERS and any(a.target in CHOOSING for a in clause.actions):
            raise InputError(f"card {card.id} ({card.name}): a Witchery's text cannot choose a minion; write "
                             "'attacker' or 'blocker'")
        if sum(1 for a in clause.actions if a.target in CHOOSING) > 1:
            raise InputError(f"card {card.id} ({card.name}): a clause may choose one minion; refer back to it with "
                             "'it'")
        clauses[clause.trigger] = clause
    kw = set(card.keywords)
    return CardInfo(card.id, card.name, TYPE_CODES[card.type], FACTION_LIST.index(card.faction),
                    card.power_cost or 0, card.specific_cost or 0, card.tp_cost or 0, card.construction or 0,
                    card.might or 0, card.health or 0, "Crush" in kw, "Twinstrike" in kw, "Tunnel" in kw,
                    "Lethal" in kw, "Thief" in kw, "Retreating" in kw, "Regenerating" in kw, clauses)


def make_config(pool: CardPool, decks: tuple[Deck, Deck], *, first: str = "random", start_hand: int = 4,
                second_cards: int = 1, second_tp: int = 1, mulligan: int = 3, start_tower: int = 10,
                win_tower: int = 50, turns: int = 15, **readings: str) -> Config:
    """A rules configuration; raises :class:`InputError` for an impossible combination.

    ``readings`` are the fields of :data:`READINGS` (each one of its values; missing: the default).
    """
    index = {c.id: i for i, c in enumerate(pool.cards)}
    for name, value in readings.items():
        if name not in READINGS:
            raise InputError(f"babylon: {name!r} is not a reading; allowed: {', '.join(READINGS)}")
        if value not in READINGS[name]:
            raise InputError(f"babylon: reading {name} {value!r} is not allowed; allowed: {', '.join(READINGS[name])}")
    if start_tower >= win_tower:
        raise InputError(f"start_tower {start_tower} must be below win_tower {win_tower}: the game would be won "
                         "before it starts")
    for deck in decks:
        if start_hand + second_cards + mulligan > len(deck):
            raise InputError(f"deck {deck.key} has {len(deck)} cards: too few for a hand of "
                             f"{start_hand} + {second_cards} and a mulligan of {mulligan}")
    cards = tuple(card_info(c) for c in pool.cards)
    return Config(cards, tuple(tuple(index[cid] for cid in d.card_ids) for d in decks),  # type: ignore[arg-type]
                  (decks[0].key, decks[1].key), first, start_hand, second_cards, second_tp, mulligan,
                  start_tower, win_tower, turns, **readings)




# -- hands
def _remove(hand: tuple[int, ...], card: int) -> tuple[int, ...]:
    i = hand.index(card)
    return hand[:i] + hand[i + 1:]
