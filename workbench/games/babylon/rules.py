"""Towers of Babylon's rules as pure functions over immutable state (``docs/rules/babylon.md``).

The engine is a small step machine: :func:`apply` takes one decision and runs everything that
follows automatically (clashes, deaths, triggers, the next turn's start) until the next decision,
which :func:`decision` names — whose it is and what kind:

========  ===========  ==========================================================================
kind      who          choices (:func:`legal_actions`, in this stable order)
========  ===========  ==========================================================================
MULLIGAN  each seat    which cards (up to ``mulligan``) go to the bottom of the deck, by hand mask
START     active       draw a second card, or make an Offering of one hand card
MAIN      active       play a card (with its target), an "at any time" Witchery, move, build,
                       attack (with its target), end
BLOCK     defender     block with one of its Defenders, or not
WITCH     either       play a Witchery the open window takes (:func:`window_trigger`), or pass: the
                       defender's when an enemy minion attacks, the active seat's when its minion
                       has entered
TWIN      attacker     Twinstrike's second minion
OFFER     controller   the card of an Offering a text makes ("may": or skip)
TARGET    controller   the minion of a triggered text (Dying Words, Shape, an Invocation)
========  ===========  ==========================================================================

A Twinstrike or trigger target with exactly one choice (no ``may``) is taken automatically, and
a block, Witchery, Twinstrike, Offering or target decision with no choice is skipped; every other
decision is asked even when it has one choice (a MAIN with only END, a START with an empty hand).

Decisions the text leaves open, fixed here (and in ``data/babylon/EFFECTS.md``):

* **Payment** is the player's choice (the text fixes only how many sources match the card's colour):
  under ``payment="chosen"`` (the default since rules version 3) a play action carries the sources
  that pay (``Action.pay``, :func:`pack_payment`) and the legal actions list each play once per way
  to pay it (:func:`payments`).  The older readings let the engine pay (:func:`payment`):
  ``keep_playable`` (rules version 2) the way that keeps the most of the hand payable one card at a
  time, ``others_first`` (before version 2) the rest from the other colours, most first.
* **Targets** of a Command or a Swear Allegiance are chosen with the play (one action per target);
  a clause chooses at most one minion (``it`` refers back to it).
* **Offerings** a text makes are decided after the rest of that text has resolved.
* **Triggers** (Dying Words, Shape, Invocations) resolve in the order they happen, after the
  action that caused them; the minions that die in one clash die in minion order (oldest first).
* **Attacks**: the attacker is exhausted first (a Sentence's damage may kill it: the attack then
  fizzles), then the defender may block, then play Witcheries, then Twinstrike's second target is
  chosen, then the clash.
* **Readings** of the open text are ``Config`` fields (:data:`READINGS`, the default first): an
  exhausted target clashes back (``clash_back``), Dark Pact with no friendly minion still draws
  (``dark_pact``), **Thief** gains the levels the enemy tower actually lost (``thief_gain``),
  **Crush**'s excess is ``might`` minus the blocker's remaining health (``crush_excess``), a build
  whose Sentence kills the builder still builds (``sentenced_build``).
* Lethal applies to every damage a minion deals (clash, Twinstrike, Crush).
* **Witchery windows**: "at any time" is the player's own main phase and every Witchery window
  open to them (an enemy attack; a friendly minion entering); other moments of the opponent's turn
  are no windows.  "When a friendly minion enters the game" opens after the minion's Swear
  Allegiance (and the Offerings it makes) resolved, once per minion; Witcheries are played one at
  a time until the player passes.  A Witchery's text chooses no minion.
* "until end of turn" health ends at the end of the turn it was given in.
* An empty deck draws nothing.
* Start of turn: turn marker, sources back to available, minions ready, Regenerating heals,
  Invocations resolve, draw, then draw-or-Offering.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from typing import Any

from workbench.core.errors import InputError
from workbench.core.model import first_seat
from workbench.core.rng import SplitMix64
from workbench.games.babylon.effects import Clause
from workbench.games.babylon.payment import (
    PAY_BASE,
    can_pay,
    kept_playable,
    most_payments,
    pack_payment,
    payment,
    payments,
    unpack_payment,
)
from workbench.games.babylon.state import (
    BATTLEFIELD,
    BLOCK,
    CHOOSING,
    COMMAND,
    COUNT,
    DECISIONS,
    DECK_STREAMS,
    DRAW_SEAT,
    EXHAUSTED,
    FACTION_LIST,
    IMMOBILE,
    INVOCATION,
    K_ATTACK,
    K_BLOCK,
    K_BUILD,
    K_DRAW,
    K_END,
    K_MOVE,
    K_MULLIGAN,
    K_OFFER,
    K_PLAY,
    K_SKIP,
    K_TARGET,
    K_WITCH,
    KINDS,
    MAIN,
    MINION,
    MULLIGAN,
    N_FACTIONS,
    NO_TARGET,
    OFFER,
    RAMPARTS,
    READINGS,
    READY,
    REASONS,
    SEAT_STREAM_BASE,
    SEATS,
    ST_BLOCK,
    ST_CLASH,
    ST_TWIN,
    ST_WITCH,
    START,
    STATUSES,
    T_ATTACKS,
    T_BLOCKS,
    T_BUILT,
    T_DAMAGE,
    T_DEATHS,
    T_DRAWN,
    T_MINIONS,
    T_MULLIGAN,
    T_OFFER,
    T_SPELLS,
    T_STOLEN,
    T_WITCH,
    TALLIES,
    TARGET,
    TOWER,
    TOWER_TARGET,
    TOWER_WIN,
    TWIN,
    TYPE_CODES,
    UNKNOWN,
    WITCH,
    WITCHERY,
    ZONES,
    Action,
    Attack,
    CardInfo,
    Config,
    Minion,
    Pending,
    Side,
    State,
    Trigger,
    _remove,
    card_info,
    make_config,
)

__all__ = ["Action", "Attack", "BATTLEFIELD", "BLOCK", "CHOOSING", "COMMAND", "COUNT", "CardInfo", "Config",
           "DECISIONS", "DECK_STREAMS", "DRAW_SEAT", "EXHAUSTED", "FACTION_LIST", "IMMOBILE", "INVOCATION", "KINDS",
           "K_ATTACK", "K_BLOCK", "K_BUILD", "K_DRAW", "K_END", "K_MOVE", "K_MULLIGAN", "K_OFFER", "K_PLAY",
           "K_SKIP", "K_TARGET", "K_WITCH", "MAIN", "MINION", "MULLIGAN", "Minion", "NO_TARGET", "N_FACTIONS",
           "OFFER", "PAY_BASE", "Pending", "RAMPARTS", "READINGS", "READY", "REASONS", "SEATS", "SEAT_STREAM_BASE",
           "START", "STATUSES", "ST_BLOCK", "ST_CLASH", "ST_TWIN", "ST_WITCH", "Side", "State", "TALLIES", "TARGET",
           "TOWER", "TOWER_TARGET", "TOWER_WIN", "TWIN", "TYPE_CODES", "T_ATTACKS", "T_BLOCKS", "T_BUILT",
           "T_DAMAGE", "T_DEATHS", "T_DRAWN", "T_MINIONS", "T_MULLIGAN", "T_OFFER", "T_SPELLS", "T_STOLEN",
           "T_WITCH", "Trigger", "UNKNOWN", "WITCH", "WITCHERY", "ZONES", "advance", "apply", "block_options",
           "can_pay", "card_count", "card_info", "card_played", "change_tower", "clause_choice", "decision",
           "describe_action", "describe_payment", "distinct", "draw", "health_left", "initial_state",
           "kept_playable", "legal_actions", "main_actions", "make_config", "minion", "minions_of", "most_payments",
           "mulligan_masks", "new_game", "offering", "pack_payment", "payment", "payments", "run_clause",
           "sacrifices", "targets", "twin_options", "unpack_payment", "window_trigger", "witchery_options"]


# -- small helpers ----------------------------------------------------------------------------------
def _set(tup: tuple, i: int, value: object) -> tuple:
    return tup[:i] + (value,) + tup[i + 1:]


def _side(s: State, seat: int, **changes: object) -> State:
    return s._replace(sides=_set(s.sides, seat, s.sides[seat]._replace(**changes)))


def _tally(s: State, seat: int, which: int, n: int = 1) -> State:
    side = s.sides[seat]
    return _side(s, seat, tally=_set(side.tally, which, side.tally[which] + n))


def _add(hand: tuple[int, ...], card: int) -> tuple[int, ...]:
    return tuple(sorted(hand + (card,)))


def minion(s: State, uid: int) -> Minion | None:
    """The minion ``uid`` if it is on the board."""
    for m in s.minions:
        if m.uid == uid:
            return m
    return None


def _put(s: State, m: Minion) -> State:
    return s._replace(minions=tuple(m if x.uid == m.uid else x for x in s.minions))


def minions_of(s: State, seat: int, zone: int | None = None) -> Iterator[Minion]:
    """``seat``'s minions (in one zone), oldest first."""
    return (m for m in s.minions if m.owner == seat and (zone is None or m.zone == zone))


def health_left(cfg: Config, m: Minion) -> int:
    """Damage the minion can still take before it dies."""
    return cfg.cards[m.card].health + m.bonus - m.damage


def distinct(hand: tuple[int, ...]) -> tuple[int, ...]:
    """The known cards of a hand, each once, in order."""
    return tuple(sorted({c for c in hand if c != UNKNOWN}))


# -- setup ----------------------------------------------------------------------------------------
def new_game(cfg: Config, first: int, deck_states: tuple[int, int]) -> State:
    """Shuffle both decks (Fisher–Yates on each seat's stream), deal, and ask the first seat's mulligan."""
    sides = []
    for seat in range(SEATS):
        deck = tuple(SplitMix64(deck_states[seat]).shuffle(list(cfg.decks[seat])))
        n = cfg.start_hand + (cfg.second_cards if seat != first else 0)
        hand = tuple(sorted(deck[:n]))
        sides.append(Side(deck[n:], hand, (), (), (), (0,) * N_FACTIONS, (0,) * N_FACTIONS,
                          cfg.second_tp if seat != first else 0, cfg.start_tower, 0, frozenset(hand), frozenset(),
                          tuple([0] * (len(TALLIES) - 2)) + (n, 0)))
    return State((sides[0], sides[1]), (), first, first, 0, Pending(MULLIGAN, first), None, (), 0, False, False,
                 None, ())


def initial_state(cfg: Config, seed: int) -> State:
    """Game seed ``seed``'s start: each seat's deck shuffled from its stream (1, 2), dealt, the first mulligan due."""
    return new_game(cfg, first_seat(cfg.first, seed), (SplitMix64.for_stream(seed, DECK_STREAMS[0]).state,
                                                      SplitMix64.for_stream(seed, DECK_STREAMS[1]).state))


def mulligan_masks(hand: tuple[int, ...], most: int) -> tuple[int, ...]:
    """Hand masks of every different set of at most ``most`` cards (duplicates: the earliest copies).

    Ordered by the number of cards put back, then by mask.
    """
    seen: dict[tuple[int, ...], int] = {}
    for k in range(min(most, len(hand)) + 1):
        for positions in combinations(range(len(hand)), k):
            cards = tuple(hand[i] for i in positions)
            if UNKNOWN in cards:
                continue
            mask = sum(1 << i for i in positions)
            if mask < seen.get(cards, mask + 1):
                seen[cards] = mask
    return tuple(sorted(seen.values(), key=lambda m: (bin(m).count("1"), m)))


def _mulligan(cfg: Config, s: State, seat: int, mask: int) -> State:
    side = s.sides[seat]
    back = tuple(c for i, c in enumerate(side.hand) if mask >> i & 1)
    keep = tuple(c for i, c in enumerate(side.hand) if not mask >> i & 1)
    deck = side.deck + back
    n = len(back)
    hand = tuple(sorted(keep + deck[:n]))
    s = _side(s, seat, deck=deck[n:], hand=hand, drawn=side.drawn | {c for c in deck[:n] if c != UNKNOWN})
    s = _tally(_tally(s, seat, T_MULLIGAN, n), seat, T_DRAWN, n)
    if seat == s.first:
        return s._replace(pending=Pending(MULLIGAN, 1 - seat))
    return _begin_turn(cfg, s._replace(pending=None), s.first)


# -- turns ----------------------------------------------------------------------------------------
def _begin_turn(cfg: Config, s: State, seat: int) -> State:
    side = s.sides[seat]
    sources = tuple(a + e for a, e in zip(side.available, side.exhausted, strict=True))
    s = _side(s, seat, available=sources, exhausted=(0,) * N_FACTIONS, turns=side.turns + 1, invocations=())
    s = s._replace(active=seat, turn=s.turn + 1, upkeep=True,
                   minions=tuple(m._replace(status=READY, damage=0 if cfg.cards[m.card].regenerating else m.damage)
                                 if m.owner == seat else m for m in s.minions))
    queue = s.queue
    for card in side.invocations:
        queue += (Trigger(seat, card, cfg.cards[card].clauses["start_next"]),)
        s = _side(s, seat, discard=s.sides[seat].discard + (card,))
    return s._replace(queue=queue)


def _end_turn(cfg: Config, s: State) -> State:
    seat = s.active
    side = s.sides[seat]
    n = sum(side.available)
    s = _side(s, seat, available=(0,) * N_FACTIONS,
              exhausted=tuple(a + e for a, e in zip(side.available, side.exhausted, strict=True)), tp=side.tp + n)
    s = s._replace(minions=tuple(m._replace(bonus=0) for m in s.minions))
    return _check_deaths(cfg, s)._replace(ending=True)  # Dying Words of a lost bonus resolve before the next turn


def _next_turn(cfg: Config, s: State) -> State:
    s = s._replace(ending=False, history=s.history + ((s.sides[0].tower, s.sides[1].tower),))
    if all(side.turns >= cfg.turns for side in s.sides):
        t0, t1 = s.sides[0].tower, s.sides[1].tower
        return s._replace(outcome=(0 if t0 > t1 else 1 if t1 > t0 else DRAW_SEAT, COUNT))
    return _begin_turn(cfg, s, 1 - s.active)


def draw(s: State, seat: int, n: int) -> State:
    """``seat`` draws ``n`` cards from the top (fewer from a short deck)."""
    side = s.sides[seat]
    got = side.deck[:n]
    if not got:
        return s
    s = _side(s, seat, deck=side.deck[len(got):], hand=tuple(sorted(side.hand + got)),
              drawn=side.drawn | {c for c in got if c != UNKNOWN})
    return _tally(s, seat, T_DRAWN, len(got))


def offering(cfg: Config, s: State, seat: int, card: int) -> State:
    """Sacrifice ``card`` from the hand; gain an available Power Source of its colour."""
    side = s.sides[seat]
    f = cfg.cards[card].faction
    s = _side(s, seat, hand=_remove(side.hand, card), sacrifice=side.sacrifice + (card,),
              available=_set(side.available, f, side.available[f] + 1))
    return _tally(s, seat, T_OFFER)


def change_tower(cfg: Config, s: State, seat: int, delta: int) -> tuple[State, int]:
    """``seat``'s tower moves by ``delta`` (never below 0); ``(state, levels actually changed)``; 50 wins at once."""
    old = s.sides[seat].tower
    new = max(0, old + delta)
    s = _side(s, seat, tower=new)
    if new >= cfg.win_tower and s.outcome is None:
        s = s._replace(outcome=(seat, TOWER_WIN))
    return s, new - old


# -- minions --------------------------------------------------------------------------------------
def _exhaust(cfg: Config, s: State, uid: int) -> State:
    """``uid`` becomes exhausted; a Sentenced minion takes 1 damage as it does."""
    m = minion(s, uid)
    if m is None or m.status == EXHAUSTED:
        return s
    m = m._replace(status=EXHAUSTED, damage=m.damage + (1 if m.sentenced else 0))
    return _put(s, m)


def _damage(cfg: Config, s: State, uid: int, n: int, lethal: bool = False) -> State:
    m = minion(s, uid)
    if m is None or n <= 0:
        return s
    damage = m.damage + n
    if lethal:
        damage = max(damage, cfg.cards[m.card].health + m.bonus)
    return _put(s, m._replace(damage=damage))


def _kill(cfg: Config, s: State, uid: int) -> State:
    m = minion(s, uid)
    if m is None:
        return s
    s = s._replace(minions=tuple(x for x in s.minions if x.uid != uid))
    s = _side(s, m.owner, discard=s.sides[m.owner].discard + (m.card,))
    s = _tally(s, m.owner, T_DEATHS)
    clause = cfg.cards[m.card].clauses.get("dying")
    if clause is not None:
        s = s._replace(queue=s.queue + (Trigger(m.owner, m.card, clause),))
    return s


def _check_deaths(cfg: Config, s: State) -> State:
    for m in s.minions:
        if health_left(cfg, m) <= 0:
            s = _kill(cfg, s, m.uid)
    return s


# -- effects --------------------------------------------------------------------------------------
def targets(cfg: Config, s: State, controller: int, target: str, entering: int | None = None) -> tuple[int, ...]:
    """Minions ``controller`` may choose for ``target`` (uids, oldest first); ``entering`` joins as a friendly one."""
    uids = [m.uid for m in s.minions
            if target == "minion" or (m.owner == controller) == (target == "friendly_minion")]
    if entering is not None and target in ("minion", "friendly_minion"):
        uids.append(entering)
    return tuple(uids)


def clause_choice(clause: Clause | None) -> tuple[str, bool] | None:
    """``(target, optional)`` of the clause's choosing action, or None when it chooses nothing."""
    if clause is None:
        return None
    for act in clause.actions:
        if act.target in CHOOSING:
            return act.target, act.optional
    return None


def sacrifices(clause: Clause | None) -> bool:
    """The clause's chosen minion is a friendly one it destroys, not a ``may`` (Dark Pact: a cost, in one reading)."""
    if clause is None:
        return False
    act = next((a for a in clause.actions if a.target in CHOOSING), None)
    return act is not None and act.verb == "destroy" and act.target == "friendly_minion" and not act.optional


def _group(s: State, controller: int, target: str) -> tuple[int, ...]:
    zone = BATTLEFIELD if target == "each_enemy_raider" else RAMPARTS
    return tuple(m.uid for m in s.minions if m.owner != controller and m.zone == zone)


def run_clause(cfg: Config, s: State, controller: int, card: int, clause: Clause, chosen: int) -> State:
    """Resolve ``clause`` for ``controller`` with ``chosen`` (uid or NO_TARGET) as its chosen minion."""
    it = NO_TARGET
    enemy = 1 - controller
    offers, offer_optional = 0, False
    for act in clause.actions:
        if s.outcome is not None:
            return s
        if act.target in CHOOSING:
            it = chosen
            uids: tuple[int, ...] = (chosen,) if chosen != NO_TARGET else ()
        elif act.target == "it":
            uids = (it,) if it != NO_TARGET else ()
        elif act.target == "entering":
            uids = (s.entering,) if s.entering != NO_TARGET else ()
        elif act.target in ("attacker", "blocker"):
            uid = NO_TARGET if s.attack is None else (s.attack.attacker if act.target == "attacker"
                                                      else s.attack.blocker)
            uids = (uid,) if uid != NO_TARGET else ()
        elif act.target in ("each_enemy_raider", "each_enemy_defender"):
            uids = _group(s, controller, act.target)
        else:
            uids = ()
        uids = tuple(u for u in uids if minion(s, u) is not None)
        verb = act.verb
        if verb == "damage" and act.target == "enemy_tower":
            s, _ = change_tower(cfg, s, enemy, -act.amount)
        elif verb == "damage":
            for u in uids:
                s = _damage(cfg, s, u, act.amount)
        elif verb == "tower":
            seat = controller if act.target == "own_tower" else enemy
            times = sum(1 for _ in minions_of(s, controller, TOWER)) if act.per == "friendly_builder" else 1
            s, _ = change_tower(cfg, s, seat, act.amount * times)
        elif verb == "draw":
            s = draw(s, controller, act.amount)
        elif verb == "offering":
            offers += act.amount
            offer_optional = offer_optional or act.optional
        elif verb == "sentence":
            for u in uids:
                s = _put(s, minion(s, u)._replace(sentenced=True))  # type: ignore[union-attr]
        elif verb == "exhaust":
            for u in uids:
                s = _exhaust(cfg, s, u)
        elif verb == "ready":
            for u in uids:
                s = _put(s, minion(s, u)._replace(status=READY))  # type: ignore[union-attr]
        elif verb == "heal":
            for u in uids:
                s = _put(s, minion(s, u)._replace(damage=0))  # type: ignore[union-attr]
        elif verb == "destroy":
            for u in uids:
                s = _kill(cfg, s, u)
        elif verb == "return_hand":
            for u in uids:
                m = minion(s, u)
                s = s._replace(minions=tuple(x for x in s.minions if x.uid != u))
                s = _side(s, m.owner, hand=_add(s.sides[m.owner].hand, m.card))  # type: ignore[union-attr]
        elif verb == "to_ramparts":
            for u in uids:
                s = _put(s, minion(s, u)._replace(zone=RAMPARTS))  # type: ignore[union-attr]
        elif verb == "health":
            for u in uids:
                m = minion(s, u)
                s = _put(s, m._replace(bonus=m.bonus + act.amount))  # type: ignore[union-attr]
        elif verb == "no_tower_damage":
            if s.attack is not None:
                s = s._replace(attack=s.attack._replace(no_tower_damage=True))
        elif verb == "end_attack":
            if s.attack is not None:
                s = s._replace(attack=s.attack._replace(ended=True))
        s = _check_deaths(cfg, s)
    if offers and s.outcome is None:
        s = s._replace(queue=(Trigger(controller, card, None, offers, offer_optional),) + s.queue)
    return s


# -- attacks --------------------------------------------------------------------------------------
def block_options(cfg: Config, s: State) -> tuple[int, ...]:
    """Defenders that may block the attack in progress (none against Tunnel to the tower or on a Raider)."""
    att = s.attack
    a = minion(s, att.attacker) if att is not None else None
    if a is None:
        return ()
    if att.target == TOWER_TARGET:
        if cfg.cards[a.card].tunnel:
            return ()
    else:
        t = minion(s, att.target)
        if t is None or t.zone == BATTLEFIELD:
            return ()
    return tuple(m.uid for m in minions_of(s, 1 - a.owner, RAMPARTS) if m.status != EXHAUSTED and m.uid != att.target)


def window_trigger(cfg: Config, s: State, card: int) -> str | None:
    """The trigger of ``card``'s clause the open window plays, or None when the window does not take it.

    The window is the state's: an attack in progress (the defender's: ``enemy_attacks``, then
    ``enemy_attacks_tower`` on a tower attack, then ``any_time``), a minion that just entered (its
    controller's: ``friendly_enters``, then ``any_time``), else the active player's main phase
    (``any_time``).
    """
    clauses = cfg.cards[card].clauses
    if s.attack is not None:
        order: tuple[str, ...] = ("enemy_attacks", "enemy_attacks_tower", "any_time")
        if s.attack.target != TOWER_TARGET:
            order = ("enemy_attacks", "any_time")
    elif s.entering != NO_TARGET:
        order = ("friendly_enters", "any_time")
    else:
        order = ("any_time",)
    return next((t for t in order if t in clauses), None)


def witchery_options(cfg: Config, s: State, seat: int) -> tuple[int, ...]:
    """Witcheries ``seat`` may play now: in hand, affordable in TP, taken by the open window (``window_trigger``)."""
    att = s.attack
    if att is not None and (minion(s, att.attacker) is None or att.ended):
        return ()
    side = s.sides[seat]
    return tuple(c for c in distinct(side.hand) if cfg.cards[c].type == WITCHERY and cfg.cards[c].tp <= side.tp
                 and window_trigger(cfg, s, c) is not None)


def _cast_witchery(cfg: Config, s: State, seat: int, card: int) -> State:
    """``seat`` plays the Witchery ``card``: TP paid, the card discarded, the open window's clause resolved."""
    clause = cfg.cards[card].clauses[window_trigger(cfg, s, card)]  # type: ignore[index]
    side = s.sides[seat]
    s = _side(s, seat, hand=_remove(side.hand, card), tp=side.tp - cfg.cards[card].tp, discard=side.discard + (card,),
              played=side.played | {card})
    return run_clause(cfg, _tally(s, seat, T_WITCH), seat, card, clause, NO_TARGET)


def _clash_partner(s: State) -> int:
    att = s.attack
    if att.blocker != NO_TARGET and minion(s, att.blocker) is not None:  # type: ignore[union-attr]
        return att.blocker  # type: ignore[union-attr]
    if att.blocker == NO_TARGET and att.target != TOWER_TARGET and minion(s, att.target) is not None:  # type: ignore
        return att.target  # type: ignore[union-attr]
    return NO_TARGET


def twin_options(cfg: Config, s: State) -> tuple[int, ...]:
    """Twinstrike's possible second minions: the other enemy minions in the clash partner's zone."""
    att = s.attack
    a = minion(s, att.attacker) if att is not None and not att.ended else None
    if a is None or not cfg.cards[a.card].twinstrike:
        return ()
    partner = _clash_partner(s)
    p = minion(s, partner) if partner != NO_TARGET else None
    if p is None:
        return ()
    return tuple(m.uid for m in minions_of(s, p.owner, p.zone) if m.uid != partner)


def _strike(cfg: Config, s: State, attacker: Minion, uid: int, amount: int) -> State:
    """The attacker deals ``amount`` to a minion (Lethal applies)."""
    return _damage(cfg, s, uid, amount, lethal=cfg.cards[attacker.card].lethal and amount > 0)


def _hit_tower(cfg: Config, s: State, attacker: Minion, amount: int) -> State:
    if s.attack.no_tower_damage or amount <= 0:  # type: ignore[union-attr]
        return s
    s, lost = change_tower(cfg, s, 1 - attacker.owner, -amount)
    s = _tally(s, attacker.owner, T_DAMAGE, -lost)
    gain = amount if cfg.thief_gain == "damage" else -lost  # the reading: the full damage, or what was lost
    if cfg.cards[attacker.card].thief and gain and s.outcome is None:
        s, gained = change_tower(cfg, s, attacker.owner, gain)
        s = _tally(s, attacker.owner, T_STOLEN, gained)
    return s


def _clash(cfg: Config, s: State) -> State:
    att = s.attack
    a = minion(s, att.attacker)  # type: ignore[union-attr]
    if a is None or att.ended:  # type: ignore[union-attr]
        return s
    info = cfg.cards[a.card]
    partner = _clash_partner(s)
    if partner == NO_TARGET:
        if att.target == TOWER_TARGET and att.blocker == NO_TARGET:  # type: ignore[union-attr]
            s = _hit_tower(cfg, s, a, info.might)
        return _after_attack(cfg, s, a.uid, NO_TARGET)
    p = minion(s, partner)
    left = health_left(cfg, p) if cfg.crush_excess == "remaining" else health_left(cfg, p._replace(damage=0))
    strikes_back = cfg.clash_back == "yes" or p.status != EXHAUSTED  # type: ignore[union-attr]
    s = _strike(cfg, s, a, partner, info.might)
    if strikes_back:
        s = _damage(cfg, s, a.uid, cfg.cards[p.card].might, lethal=cfg.cards[p.card].lethal)  # type: ignore
    if att.twin != NO_TARGET:  # type: ignore[union-attr]
        s = _strike(cfg, s, a, att.twin, info.might)  # type: ignore[union-attr]
    blocked = partner == att.blocker  # type: ignore[union-attr]
    killed = health_left(cfg, minion(s, partner)) <= 0  # type: ignore[arg-type]
    s = _check_deaths(cfg, s)
    if blocked and info.crush and killed and info.might > left:
        excess = info.might - left
        if att.target == TOWER_TARGET:  # type: ignore[union-attr]
            s = _hit_tower(cfg, s, a, excess)
        else:
            s = _strike(cfg, s, a, att.target, excess)  # type: ignore[union-attr]
            s = _check_deaths(cfg, s)
    return _after_attack(cfg, s, a.uid, partner)


def _after_attack(cfg: Config, s: State, attacker: int, partner: int) -> State:
    if partner != NO_TARGET:
        s = _check_deaths(cfg, _exhaust(cfg, s, partner))
    a = minion(s, attacker)
    if a is not None and cfg.cards[a.card].retreating:
        s = _put(s, a._replace(zone=RAMPARTS))
    return s._replace(attack=None)


def _continue_attack(cfg: Config, s: State) -> State:
    att = s.attack
    a = minion(s, att.attacker)  # type: ignore[union-attr]
    if a is None or att.ended:  # type: ignore[union-attr]
        return _after_attack(cfg, s, att.attacker, NO_TARGET)  # type: ignore[union-attr]
    defender = 1 - a.owner
    if att.stage == ST_BLOCK:  # type: ignore[union-attr]
        s = s._replace(attack=att._replace(stage=ST_WITCH))  # type: ignore[union-attr]
        if block_options(cfg, s):
            return s._replace(pending=Pending(BLOCK, defender))
        return s
    if att.stage == ST_WITCH:  # type: ignore[union-attr]
        if witchery_options(cfg, s, defender):
            return s._replace(pending=Pending(WITCH, defender))
        return s._replace(attack=att._replace(stage=ST_TWIN))  # type: ignore[union-attr]
    if att.stage == ST_TWIN:  # type: ignore[union-attr]
        s = s._replace(attack=att._replace(stage=ST_CLASH))  # type: ignore[union-attr]
        options = twin_options(cfg, s)
        if len(options) == 1:
            return s._replace(attack=s.attack._replace(twin=options[0]))  # type: ignore[union-attr]
        if options:
            return s._replace(pending=Pending(TWIN, a.owner))
        return s
    return _clash(cfg, s)


# -- the step machine ---------------------------------------------------------------------------------
def _resolve_trigger(cfg: Config, s: State) -> State:
    trig, s = s.queue[0], s._replace(queue=s.queue[1:])
    if trig.clause is None:  # Offerings owed
        if not distinct(s.sides[trig.controller].hand):
            return s
        return s._replace(pending=Pending(OFFER, trig.controller, trig))
    choice = clause_choice(trig.clause)
    if choice is None:
        return run_clause(cfg, s, trig.controller, trig.card, trig.clause, NO_TARGET)
    options = targets(cfg, s, trig.controller, choice[0])
    if not options or (len(options) == 1 and not choice[1]):
        return run_clause(cfg, s, trig.controller, trig.card, trig.clause, options[0] if options else NO_TARGET)
    return s._replace(pending=Pending(TARGET, trig.controller, trig))


def advance(cfg: Config, s: State) -> State:
    """Run everything automatic until a decision is due or the game is over."""
    while s.outcome is None and s.pending is None:
        if s.queue:
            s = _resolve_trigger(cfg, s)
        elif s.attack is not None:
            s = _continue_attack(cfg, s)
        elif s.entering != NO_TARGET:  # a friendly minion entered: its controller's Witchery window
            if witchery_options(cfg, s, s.active):
                s = s._replace(pending=Pending(WITCH, s.active))
            else:
                s = s._replace(entering=NO_TARGET)
        elif s.ending:
            s = _next_turn(cfg, s)
        elif s.upkeep:
            s = draw(s, s.active, 1)._replace(upkeep=False, pending=Pending(START, s.active))
        else:
            break
    return s


def decision(s: State) -> tuple[int, int] | None:
    """``(kind, seat)`` of the decision due, or None when the game is over."""
    if s.outcome is not None:
        return None
    if s.pending is not None:
        return s.pending.kind, s.pending.seat
    return MAIN, s.active


def main_actions(cfg: Config, s: State) -> tuple[Action, ...]:
    """The active seat's main-phase actions: plays, moves, builds, attacks, then END."""
    seat = s.active
    side = s.sides[seat]
    out: list[Action] = []
    for c in distinct(side.hand):
        info = cfg.cards[c]
        if info.type == WITCHERY or not can_pay(cfg, side, c):
            continue
        pays = tuple(pack_payment(p) for p in payments(cfg, side, c)) if cfg.payment == "chosen" else (0,)
        clause = info.clauses.get("swear" if info.type == MINION else "play")
        choice = clause_choice(clause) if info.type != INVOCATION else None
        chosen: list[int] = []
        if choice is None:
            chosen.append(NO_TARGET)
        else:
            options = targets(cfg, s, seat, choice[0], s.next_uid if info.type == MINION else None)
            if choice[1] or not options and not (cfg.dark_pact == "unplayable" and sacrifices(clause)):
                chosen.append(NO_TARGET)
            chosen.extend(options)
        out.extend(Action(K_PLAY, c, u, pay) for u in chosen for pay in pays)
    out.extend(Action(K_WITCH, c) for c in witchery_options(cfg, s, seat))  # "at any time" Witcheries
    mine = tuple(minions_of(s, seat))
    for m in mine:
        if m.status == READY:
            out.extend(Action(K_MOVE, m.uid, z) for z in (RAMPARTS, TOWER, BATTLEFIELD) if z != m.zone)
    for m in mine:
        if m.zone == TOWER and m.status != EXHAUSTED:
            out.append(Action(K_BUILD, m.uid))
    for m in mine:
        if m.zone == BATTLEFIELD and m.status != EXHAUSTED:
            out.append(Action(K_ATTACK, m.uid, TOWER_TARGET))
            out.extend(Action(K_ATTACK, m.uid, e.uid) for e in minions_of(s, 1 - seat))
    out.append(Action(K_END))
    return tuple(out)


def legal_actions(cfg: Config, s: State) -> tuple[Action, ...]:
    """The actions of the decision due (see the module docstring), in a stable order."""
    due = decision(s)
    if due is None:
        return ()
    kind, seat = due
    side = s.sides[seat]
    if kind == MAIN:
        return main_actions(cfg, s)
    if kind == MULLIGAN:
        return tuple(Action(K_MULLIGAN, m) for m in mulligan_masks(side.hand, cfg.mulligan))
    if kind == START:
        return (Action(K_DRAW),) + tuple(Action(K_OFFER, c) for c in distinct(side.hand))
    if kind == BLOCK:
        return (Action(K_SKIP),) + tuple(Action(K_BLOCK, u) for u in block_options(cfg, s))
    if kind == WITCH:
        return (Action(K_SKIP),) + tuple(Action(K_WITCH, c) for c in witchery_options(cfg, s, seat))
    if kind == TWIN:
        return tuple(Action(K_TARGET, u) for u in twin_options(cfg, s))
    trig = s.pending.trigger  # type: ignore[union-attr]
    if kind == OFFER:
        return ((Action(K_SKIP),) if trig.optional else ()) + tuple(Action(K_OFFER, c) for c in distinct(side.hand))
    choice = clause_choice(trig.clause)
    options = targets(cfg, s, seat, choice[0])  # type: ignore[index]
    return ((Action(K_SKIP),) if choice[1] else ()) + tuple(Action(K_TARGET, u) for u in options)  # type: ignore


def _illegal(s: State, action: Action, why: str) -> InputError:
    due = decision(s)
    what = "end of the game" if due is None else f"{DECISIONS[due[0]]} decision of p{due[1] + 1}"
    return InputError(f"babylon: illegal action {describe_action(action)} at the {what}: {why}")


def apply(cfg: Config, s: State, action: Action, *, check: bool = True) -> State:
    """The state after ``action``; raises :class:`InputError` naming the decision when it is not legal.

    ``check=False`` skips the legality test, for the agents' lookahead over actions they took from
    :func:`legal_actions`.
    """
    if check:
        action = Action(*action)
        if action not in legal_actions(cfg, s):
            raise _illegal(s, action, "it is not among the legal actions")
    kind, seat = decision(s)  # type: ignore[misc]
    k, a, b = action[:3]
    if kind == MULLIGAN:
        return advance(cfg, _mulligan(cfg, s, seat, a))
    if kind == START:
        s = s._replace(pending=None)
        s = draw(s, seat, 1) if k == K_DRAW else offering(cfg, s, seat, a)
        return advance(cfg, s)
    if kind == MAIN:
        return advance(cfg, _main(cfg, s, seat, action))
    pending, s = s.pending, s._replace(pending=None)
    if kind == BLOCK:
        if k == K_BLOCK:
            s = _tally(s._replace(attack=s.attack._replace(blocker=a)), seat, T_BLOCKS)  # type: ignore[union-attr]
        return advance(cfg, s)
    if kind == WITCH:
        if k == K_SKIP and s.attack is not None:
            return advance(cfg, s._replace(attack=s.attack._replace(stage=ST_TWIN)))
        if k == K_SKIP:  # the window of a minion that entered closes
            return advance(cfg, s._replace(entering=NO_TARGET))
        return advance(cfg, _cast_witchery(cfg, s, seat, a))
    if kind == TWIN:
        return advance(cfg, s._replace(attack=s.attack._replace(twin=a)))  # type: ignore[union-attr]
    trig = pending.trigger  # type: ignore[union-attr]
    if kind == OFFER:
        if k == K_SKIP:
            return advance(cfg, s)
        s = offering(cfg, s, seat, a)
        if trig.offers > 1:  # type: ignore[union-attr]
            s = s._replace(queue=(trig._replace(offers=trig.offers - 1),) + s.queue)  # type: ignore[union-attr]
        return advance(cfg, s)
    chosen = a if k == K_TARGET else NO_TARGET
    return advance(cfg, run_clause(cfg, s, seat, trig.card, trig.clause, chosen))  # type: ignore[union-attr,arg-type]


def _main(cfg: Config, s: State, seat: int, action: Action) -> State:
    k, a, b = action[:3]
    if k == K_END:
        return _end_turn(cfg, s)
    if k == K_PLAY:
        return _play(cfg, s, seat, a, b, action[3] if len(action) > 3 else 0)
    if k == K_WITCH:
        return _cast_witchery(cfg, s, seat, a)
    m = minion(s, a)
    if k == K_MOVE:
        return _put(s, m._replace(zone=b, status=IMMOBILE))  # type: ignore[union-attr]
    if k == K_BUILD:
        info = cfg.cards[m.card]  # type: ignore[union-attr]
        s = _exhaust(cfg, s, a)
        if cfg.sentenced_build == "fails" and health_left(cfg, minion(s, a)) <= 0:  # type: ignore[arg-type]
            return _check_deaths(cfg, s)  # the reading: a builder its Sentence kills does not build
        s, gained = change_tower(cfg, s, seat, info.construction)
        s = _tally(s, seat, T_BUILT, gained)
        if "shape" in info.clauses and s.outcome is None:
            s = s._replace(queue=s.queue + (Trigger(seat, m.card, info.clauses["shape"]),))  # type: ignore
        return _check_deaths(cfg, s)
    # attack
    s = _tally(_exhaust(cfg, s, a), seat, T_ATTACKS)
    s = s._replace(attack=Attack(a, b))
    return _check_deaths(cfg, s)


def _play(cfg: Config, s: State, seat: int, card: int, target: int, pay: int) -> State:
    side = s.sides[seat]
    info = cfg.cards[card]
    paid = unpack_payment(pay) if cfg.payment == "chosen" else payment(cfg, side, card)
    s = _side(s, seat, hand=_remove(side.hand, card), played=side.played | {card},
              available=tuple(x - p for x, p in zip(side.available, paid, strict=True)),
              exhausted=tuple(x + p for x, p in zip(side.exhausted, paid, strict=True)))
    if info.type == MINION:
        uid = s.next_uid
        s = s._replace(minions=s.minions + (Minion(uid, card, seat, RAMPARTS, IMMOBILE),), next_uid=uid + 1)
        s = _tally(s, seat, T_MINIONS)
        if "swear" in info.clauses:
            s = run_clause(cfg, s, seat, card, info.clauses["swear"], target)
        return s._replace(entering=uid)  # its controller's "when a friendly minion enters" window (advance)
    s = _tally(s, seat, T_SPELLS)
    if info.type == INVOCATION:
        return _side(s, seat, invocations=s.sides[seat].invocations + (card,))
    s = _side(s, seat, discard=s.sides[seat].discard + (card,))
    return run_clause(cfg, s, seat, card, info.clauses["play"], target)


# -- reading a state --------------------------------------------------------------------------------
def describe_action(action: Action, cfg: Config | None = None) -> str:
    """``play F9 on #3``-style text of an action (card ids when ``cfg`` is given; a chosen payment follows)."""
    k, a, b = action[:3]
    name = KINDS[k] if 0 <= k < len(KINDS) else f"kind {k}"

    def card(c: int) -> str:
        return cfg.cards[c].id if cfg is not None and 0 <= c < len(cfg.cards) else f"card {c}"

    if k in (K_PLAY,):
        pay = action[3] if len(action) > 3 else 0
        return f"play {card(a)}" + (f" on #{b}" if b != NO_TARGET else "") + (f" paying {describe_payment(pay)}"
                                                                            if pay else "")
    if k in (K_OFFER, K_WITCH):
        return f"{name} {card(a)}"
    if k == K_MOVE:
        return f"move #{a} to {ZONES[b] if 0 <= b < 3 else b}"
    if k == K_ATTACK:
        return f"attack with #{a} on " + ("the tower" if b == TOWER_TARGET else f"#{b}")
    if k in (K_BUILD, K_BLOCK, K_TARGET):
        return f"{name} #{a}"
    if k == K_MULLIGAN:
        return f"mulligan mask {a:b}"
    return name


def describe_payment(pay: int) -> str:
    """``Fire 2, Water 1``: the sources of ``Action.pay`` by faction."""
    return ", ".join(f"{FACTION_LIST[f]} {n}" for f, n in enumerate(unpack_payment(pay)) if n)


def card_count(s: State, seat: int) -> int:
    """Cards of ``seat`` anywhere: deck, hand, board, sacrifice and discard piles, invocations."""
    side = s.sides[seat]
    return (len(side.deck) + len(side.hand) + len(side.discard) + len(side.sacrifice) + len(side.invocations)
            + sum(1 for m in s.minions if m.owner == seat))


def card_played(cfg: Config, s: State, action: Any) -> str | None:
    """The id of the card ``action`` plays — a card played from hand or a Witchery cast — else None.

    Declared as the card table's ``played_by`` (``core/design/cardplay.py`` counts dead cards with it).
    """
    kind, a = action[0], action[1]
    return cfg.cards[a].id if kind in (K_PLAY, K_WITCH) else None
