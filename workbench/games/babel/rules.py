"""Babel rules as pure functions over immutable state (the reference engine).

The rules as implemented, every open reading and the known differences: ``docs/rules/babel.md``.
A turn is: phase 1, draw 3 nation cards (done by :func:`begin_turn`, no
decision); phase 2, actions one at a time (:func:`apply`), the last one ``END_TURN``; phase 3, draw 2
temple cards onto the own temple stack, lower on top, and announce a hand of 4+ (inside
``END_TURN``), then the next player's phase 1.  The universal ability makes the *opponent* choose
discards one card per action, so while ``pending`` > 0 the acting seat is the opponent (:func:`actor`).

Board: 5 sites; site ``i`` has the colour of nation ``i`` (0 Assyrians, 1 Hittites, 2 Medes,
3 Persians, 4 Sumerians), so moving to site ``i`` costs a discard of a nation-``i`` card.  Each player
has their own side of every site: a nation stack (in play order) and a temple (its cards, strictly
ascending; the temple's value is its height = the level of its top card).

Decisions where the texts are silent (each is the default reading):

* Dealing: the start player is dealt 3 cards, the other 5, and turn 1's phase 1 then draws 3, so the
  start player begins with 6 (the text's setup step 6, then its turn structure, read literally).
* First turn (``Config.first_turn_at_end``, the text's reading): the obligation is checked at the end
  of the turn — while a player still holds their start level-1 card, ``END_TURN`` is not legal, and
  any other action (a build from a temple stack, a Hittite steal or a Persian skip included) is legal
  when the start card can still be built by the end of the turn afterwards (:func:`start_reachable`,
  an exact test), so play never dead-ends.  The stricter reading (``first_turn_at_end`` False) checks
  at each action: no other build before the start card, and every other action only if the start
  card stays buildable by a deploy or a move and a deploy (:func:`start_buildable`, a sufficient test).
* An ability or universal use discards a card of the *topmost* qualifying run of its nation (cards of
  one run are identical, so only the choice of run matters).  Where the text allows an action that
  changes nothing, it is legal (the player only spends their own card): the universal ability against
  a hand of 0 or 1 card (``universal_small_hand``), the Medes naming a nation the opponent has none
  of at the site (``medes_absent``), a move to the site the pawn stands on (``move_in_place``); each
  is a reading with a stricter variant that refuses it.  An ability whose text names a target that
  is missing (no opponent temple to destroy or steal from, no opponent cards to take) is not offered.
* The pawn never returns to the quarry.
* The temple stacks are public (every card on them was seen as it was laid); so are the hand sizes.
* Entering the end phase and reaching 20 in the same action ends the game at once (``end_phase_20``);
  when both 20+ and a drop to 9 or less hold, the reason is ``end_phase_20``.  After phase 3 the
  value checks run first (they cannot fire: phase 3 changes no temple), then the empty quarry, then
  the turn limit.
* The ``builds`` tally counts construct actions (start card included); Persian builds and Hittite
  steals are counted as those nations' ability uses.

State encoding (every field maps onto flat int32 arrays for a compiled twin; ``pile`` tuples are
bottom → top, the top card is the *last* element):

* ``hands[2][5]``: nation-card counts per seat; ``start_cards[2]``: 1 while the seat holds its start L1;
* ``stacks[2][5]``: nation ids, bottom → top (array ``[2, 5, 60]`` + lengths ``[2, 5]``);
* ``temples[2][5]``: levels, bottom → top (``[2, 5, 6]`` + lengths: a temple is strictly ascending);
* ``temple_stacks[2]``, ``quarry``: levels (``[2, 45]``, ``[45]`` + lengths);
* ``draw_pile``, ``discard``: nation ids (``[60]`` + length each);
* scalars ``pawns[2]`` (0..4, 5 = quarry), ``current``, ``first``, ``turn`` (1-based), ``migrated``,
  ``actions`` (this turn), ``pending`` (discards the opponent owes), ``end_phase``, ``announced[2]``
  (hand size announced at the seat's last phase 3, 0 below 4), ``tallies[2][10]``, the outcome as
  ``winner`` (-1 draw) + a reason code, and ``deck_rng`` (the uint64 SplitMix64 state of the deck stream).

Actions are ``Action(kind, a, b)`` — three integers (see the kind constants).  The protocol
functions are :func:`initial_state`, :func:`legal_actions` and :func:`apply` over
``(config, state, action)``; ``apply(..., check=False)`` skips the legality test for the agents.
"""

from __future__ import annotations

from typing import NamedTuple

from workbench.core.errors import InputError
from workbench.core.model import first_seat
from workbench.core.rng import SplitMix64

NATIONS = ("Assyrians", "Hittites", "Medes", "Persians", "Sumerians")
LETTERS = "AHMPS"
ASSYRIANS, HITTITES, MEDES, PERSIANS, SUMERIANS = range(5)
N_NATIONS = N_SITES = 5
SITE_NATION = (ASSYRIANS, HITTITES, MEDES, PERSIANS, SUMERIANS)  # site i has nation i's colour
QUARRY = 5  # a pawn's position before its first move
NATION_COPIES = 12
TEMPLE_COPIES = (10, 9, 8, 7, 6, 5)  # levels 1..6
TOP_LEVEL = 6
RUN = 3  # identical successive cards that activate an ability
STANDARD_WIN, STANDARD_LOSE, END_PHASE_TOP = 15, 9, 20
# Sub-streams of the game seed: the nation deck (deal, reshuffles), the quarry (shuffled once), the
# agents of p1 and p2 (3 and 4); core's FIRST_STREAM, 5, draws the first seat.
DECK_STREAM, QUARRY_STREAM, SEAT_STREAM_BASE = 1, 2, 3

# Action kinds.  a, b: MOVE site; DEPLOY nation; BUILD source (0/1 the temple stack of p1/p2, 2 the
# start card); MIGRATE from-site, to-site; ABILITY run nation, argument (Medes: the nation to desert,
# Persians: the stack 0/1, else 0); UNIVERSAL run nation; DISCARD nation (the opponent's owed discard).
END_TURN, MOVE, DEPLOY, BUILD, MIGRATE, ABILITY, UNIVERSAL, DISCARD = range(8)
START = 2

# End reasons as written into result frames.
STANDARD, END_PHASE_20, END_PHASE_DROP, QUARRY_EMPTY, TURN_LIMIT = (
    "standard", "end_phase_20", "end_phase_drop", "quarry_empty", "turn_limit")
REASONS = (STANDARD, END_PHASE_20, END_PHASE_DROP, QUARRY_EMPTY, TURN_LIMIT)
DRAW_SEAT = -1

# Tallies per seat: ability uses per nation (0..4), then these.
T_UNIVERSAL, T_BUILDS, T_MOVES, T_MIGRATIONS, T_ACTIONS = 5, 6, 7, 8, 9
N_TALLIES = 10


class Action(NamedTuple):
    """One decision: a kind and up to two integer arguments (module docstring)."""

    kind: int
    a: int = 0
    b: int = 0


class Config(NamedTuple):
    """Everything that fixes the rules of one game (from the model's parameters)."""

    start_hands: tuple[int, int] = (3, 5)  # nation cards dealt to the start player, the other
    run_any: bool = True  # a run of 3 anywhere in the stack (True) or at its top only
    universal: bool = True  # the universal ability is available
    first: str = "random"  # "random" | "p1" | "p2"
    max_turns: int = 200  # turns before the game is a draw (turn_limit)
    # readings of the text where the code once was stricter (docs/rules/babel.md); True is the text's reading
    universal_small_hand: bool = True  # the universal ability against a hand of 0 or 1 card (discards 0) is legal
    medes_absent: bool = True  # the Medes may name a nation the opponent has none of at the site
    move_in_place: bool = True  # a move to the site the pawn stands on is legal (it only spends the card)
    first_turn_at_end: bool = True  # the start-card obligation is checked at the end of the first turn


Pair = tuple  # (p1's, p2's)


class GameState(NamedTuple):
    """The whole game (see the module docstring for the encoding of every field)."""

    hands: Pair
    start_cards: tuple[int, int]
    stacks: Pair
    temples: Pair
    temple_stacks: Pair
    quarry: tuple[int, ...]
    draw_pile: tuple[int, ...]
    discard: tuple[int, ...]
    pawns: tuple[int, int]
    current: int
    first: int
    turn: int
    migrated: bool
    actions: int
    pending: int
    end_phase: bool
    announced: tuple[int, int]
    deck_rng: int
    tallies: Pair
    outcome: tuple[int, str] | None
    history: tuple[tuple[int, int], ...] = ()  # both combined temple values after each turn's phase 3


# ----------------------------------------------------------------------------------------- helpers
def _with(pair: Pair, seat: int, value: object) -> Pair:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def _at(items: tuple, i: int, value: object) -> tuple:
    return items[:i] + (value,) + items[i + 1:]


def _set_site(grid: Pair, seat: int, site: int, value: tuple) -> Pair:
    return _with(grid, seat, _at(grid[seat], site, value))


def _add_card(hands: Pair, seat: int, nation: int, delta: int) -> Pair:
    return _with(hands, seat, _at(hands[seat], nation, hands[seat][nation] + delta))


def _tally(state: GameState, seat: int, index: int) -> GameState:
    row = state.tallies[seat]
    return state._replace(tallies=_with(state.tallies, seat, _at(row, index, row[index] + 1)))


def level(temple: tuple[int, ...]) -> int:
    """A temple's value: its height, the level of its top card (0 for no temple)."""
    return temple[-1] if temple else 0


def combined_value(state: GameState, seat: int) -> int:
    """The sum of ``seat``'s temple values over the 5 sites (0..30)."""
    return sum(level(t) for t in state.temples[seat])


def hand_size(state: GameState, seat: int) -> int:
    """Nation cards in ``seat``'s hand."""
    return sum(state.hands[seat])


def actor(state: GameState) -> int:
    """The seat to decide: the opponent while universal discards are owed, else the player to move."""
    return 1 - state.current if state.pending else state.current


def run_top(stack: tuple[int, ...], nation: int, run_any: bool) -> int:
    """Index of the top card of the topmost run of 3+ ``nation`` cards in ``stack``, or -1.

    With ``run_any`` False only a run that includes the stack's top card counts.
    """
    i = len(stack) - 1
    while i >= RUN - 1:
        j = i
        while j >= 0 and stack[j] == nation:
            j -= 1
        if i - j >= RUN:
            return i
        if not run_any:
            return -1
        i = j if j < i else i - 1
    return -1


def any_run(stack: tuple[int, ...], run_any: bool) -> bool:
    """True when ``stack`` holds a run of 3+ identical cards of any nation (at its top only: ``run_any`` False)."""
    if not run_any:
        return len(stack) >= RUN and stack[-1] == stack[-2] == stack[-3]
    length = 1
    for i in range(1, len(stack)):
        length = length + 1 if stack[i] == stack[i - 1] else 1
        if length >= RUN:
            return True
    return False


# ------------------------------------------------------------------------------------------- setup
def nation_deck() -> list[int]:
    """The 60 nation cards in a fixed order before shuffling (12 of each nation)."""
    return [n for n in range(N_NATIONS) for _ in range(NATION_COPIES)]


def quarry_cards() -> list[int]:
    """The 43 temple cards of the quarry before shuffling (all 45 but the two start L1s)."""
    cards = [lv for lv in range(1, TOP_LEVEL + 1) for _ in range(TEMPLE_COPIES[lv - 1])]
    return cards[2:]


def new_game(config: Config, first: int, deck_seed: int, quarry_seed: int) -> GameState:
    """Shuffle both decks, deal the start hands (start player first) and begin turn 1.

    ``deck_seed`` is the deck stream's state (it stays in the state for reshuffles);
    ``quarry_seed`` the quarry stream's (used once, here).
    """
    deck = SplitMix64(deck_seed)
    draw_pile = tuple(deck.shuffle(nation_deck()))
    quarry = tuple(SplitMix64(quarry_seed).shuffle(quarry_cards()))
    empty_sites = ((),) * N_SITES
    state = GameState(((0,) * N_NATIONS,) * 2, (1, 1), (empty_sites,) * 2, (empty_sites,) * 2, ((), ()),
                      quarry, draw_pile, (), (QUARRY, QUARRY), first, first, 0, False, 0, 0, False, (0, 0),
                      deck.state, ((0,) * N_TALLIES,) * 2, None)
    state = draw_nations(state, first, config.start_hands[0])
    state = draw_nations(state, 1 - first, config.start_hands[1])
    return begin_turn(state, first)


def initial_state(config: Config, seed: int) -> GameState:
    """Game seed ``seed``'s start: the nation deck (stream 1) and quarry (stream 2) shuffled, dealt, turn 1 begun."""
    deck = SplitMix64.for_stream(seed, DECK_STREAM).state
    quarry = SplitMix64.for_stream(seed, QUARRY_STREAM).state
    return new_game(config, first_seat(config.first, seed), deck, quarry)


def draw_nations(state: GameState, seat: int, count: int) -> GameState:
    """``seat`` draws ``count`` nation cards from the top of the draw pile, one at a time."""
    for _ in range(count):
        state = _draw_nation(state, seat)
    return state


def _draw_nation(state: GameState, seat: int) -> GameState:
    """Draw one card; an empty draw pile is first replaced by the shuffled discard pile (deck stream)."""
    pile, discard, rng_state = state.draw_pile, state.discard, state.deck_rng
    if not pile:
        if not discard:
            return state  # every nation card is in a hand or on the board
        rng = SplitMix64(rng_state)
        pile, discard, rng_state = tuple(rng.shuffle(list(discard))), (), rng.state
    return state._replace(hands=_add_card(state.hands, seat, pile[-1], 1), draw_pile=pile[:-1], discard=discard,
                          deck_rng=rng_state)


def begin_turn(state: GameState, seat: int) -> GameState:
    """The next turn of ``seat``: phase 1 (draw 3 nation cards), phase 2 opens."""
    state = state._replace(current=seat, turn=state.turn + 1, migrated=False, actions=0)
    return draw_nations(state, seat, 3)


# --------------------------------------------------------------------------------------- legality
def build_card(state: GameState, source: int) -> int:
    """Level of the card ``source`` offers the player to move (the stack's top, the start L1), 0 if none."""
    if source == START:
        return 1 if state.start_cards[state.current] else 0
    stack = state.temple_stacks[source]
    return stack[-1] if stack else 0


def _pawn_site(state: GameState) -> tuple[int, str | None]:
    site = state.pawns[state.current]
    return site, ("the pawn is still at the quarry" if site == QUARRY else None)


def _why_move(config: Config, state: GameState, action: Action) -> str | None:
    me, site = state.current, action.a
    if not 0 <= site < N_SITES:
        return f"site {site} does not exist (sites 0..{N_SITES - 1})"
    if state.pawns[me] == site and not config.move_in_place:
        return "the pawn already stands there (move_same_site=refused)"
    if not state.hands[me][SITE_NATION[site]]:
        return f"no {NATIONS[SITE_NATION[site]]} card in hand to discard"
    return None


def _why_deploy(config: Config, state: GameState, action: Action) -> str | None:
    if not 0 <= action.a < N_NATIONS:
        return f"nation {action.a} does not exist (nations 0..{N_NATIONS - 1})"
    _, why = _pawn_site(state)
    if why is None and not state.hands[state.current][action.a]:
        why = f"no {NATIONS[action.a]} card in hand"
    return why


def _why_build(config: Config, state: GameState, action: Action) -> str | None:
    if not 0 <= action.a <= START:
        return f"source {action.a} is not a temple stack (0, 1) or the start card (2)"
    site, why = _pawn_site(state)
    if why:
        return why
    card = build_card(state, action.a)
    if not card:
        return "the start card is already built" if action.a == START else "that temple stack is empty"
    return _why_place(state, site, card, 1)


def _why_place(state: GameState, site: int, card: int, step: int) -> str | None:
    """Can the player to move place a level-``card`` card ``step`` levels above their temple at ``site``?"""
    me = state.current
    current = level(state.temples[me][site])
    if card != current + step:
        return f"the card is level {card}, the temple here needs level {current + step}"
    if len(state.stacks[me][site]) < card:
        return f"level {card} needs {card} own nation cards here, there are {len(state.stacks[me][site])}"
    return None


def _why_migrate(config: Config, state: GameState, action: Action) -> str | None:
    if state.migrated:
        return "migration is once per turn"
    src, dst = action.a, action.b
    if not (0 <= src < N_SITES and 0 <= dst < N_SITES) or src == dst:
        return f"migration needs two different sites 0..{N_SITES - 1}, got {src} → {dst}"
    if len(state.stacks[state.current][src]) < RUN:
        return f"migration moves exactly 3 cards; the source site holds {len(state.stacks[state.current][src])}"
    return None


def _why_run(config: Config, state: GameState, nation: int) -> str | None:
    if not 0 <= nation < N_NATIONS:
        return f"nation {nation} does not exist (nations 0..{N_NATIONS - 1})"
    site, why = _pawn_site(state)
    if why is None and run_top(state.stacks[state.current][site], nation, config.run_any) < 0:
        where = "anywhere in" if config.run_any else "at the top of"
        why = f"no run of 3 {NATIONS[nation]} {where} the own stack at the pawn's site"
    return why


def _why_ability(config: Config, state: GameState, action: Action) -> str | None:
    why = _why_run(config, state, action.a)
    if why:
        return why
    if action.a in (ASSYRIANS, HITTITES, SUMERIANS) and action.b:
        return f"the {NATIONS[action.a]} ability takes no argument"
    return _ABILITY_CHECKS[action.a](config, state, state.pawns[state.current], action.b)


def _why_assyrians(config: Config, state: GameState, site: int, arg: int) -> str | None:
    return None if state.temples[1 - state.current][site] else "the opponent has no temple here to destroy"


def _why_hittites(config: Config, state: GameState, site: int, arg: int) -> str | None:
    me = state.current
    theirs = state.temples[1 - me][site]
    if not theirs:
        return "the opponent has no temple here to steal from"
    if theirs[-1] <= level(state.temples[me][site]):
        return f"the stolen card (level {theirs[-1]}) must be higher than the own temple here"
    if len(state.stacks[me][site]) < theirs[-1]:  # the discarded Hittite still counts
        return f"stealing level {theirs[-1]} needs {theirs[-1]} own nation cards here"
    return None


def _why_medes(config: Config, state: GameState, site: int, arg: int) -> str | None:
    if not 0 <= arg < N_NATIONS:
        return f"nation {arg} does not exist (nations 0..{N_NATIONS - 1})"
    if not config.medes_absent and arg not in state.stacks[1 - state.current][site]:
        return f"the opponent has no {NATIONS[arg]} card here (medes_absent_nation=refused)"
    return None


def _why_persians(config: Config, state: GameState, site: int, arg: int) -> str | None:
    if arg not in (0, 1):
        return f"source {arg} is not a temple stack (0, 1)"
    card = build_card(state, arg)
    return _why_place(state, site, card, 2) if card else "that temple stack is empty"


def _why_sumerians(config: Config, state: GameState, site: int, arg: int) -> str | None:
    return None if state.stacks[1 - state.current][site] else "the opponent has no nation cards here"


_ABILITY_CHECKS = (_why_assyrians, _why_hittites, _why_medes, _why_persians, _why_sumerians)


def _why_universal(config: Config, state: GameState, action: Action) -> str | None:
    if not config.universal:
        return "the universal ability is switched off (parameter universal=false)"
    why = _why_run(config, state, action.a)
    if why is None and action.b:
        why = "the universal ability takes no argument"
    if why is None and not config.universal_small_hand and hand_size(state, 1 - state.current) < 2:
        why = "the opponent holds fewer than 2 cards: half rounded down is nothing (universal_small_hand=refused)"
    return why


def _why_end_turn(config: Config, state: GameState, action: Action) -> str | None:
    return None


_CHECKS = {END_TURN: _why_end_turn, MOVE: _why_move, DEPLOY: _why_deploy, BUILD: _why_build,
           MIGRATE: _why_migrate, ABILITY: _why_ability, UNIVERSAL: _why_universal}


def start_buildable(state: GameState, seat: int) -> bool:
    """Can ``seat`` still build its start L1 this turn (a sufficient test: deploy or move + deploy)?

    The stricter first-turn reading's test (``first_turn_at_end`` False): it ignores migration.
    """
    site, cards = state.pawns[seat], hand_size(state, seat)
    if site != QUARRY and not state.temples[seat][site] and (state.stacks[seat][site] or cards >= 1):
        return True
    return cards >= 2  # move to the site of one card's nation, deploy another, build


def start_reachable(state: GameState, seat: int) -> bool:
    """Can ``seat`` still build its start L1 by the end of this turn?  Exact, for the text's first-turn reading.

    The card needs a site with no own temple (own temples only grow during the own turn), the pawn
    there, and an own nation card there.  The pawn gets there by a move paying a card of that site's
    nation from the hand (the hand only shrinks in phase 2); a card gets there already lying there,
    by a deploy (a hand card left after the move), or by the one migration from another own stack of
    3 (building such a stack first takes a deployed card, which the deploy route already covers).
    """
    hand, pawn, stacks = hand_size(state, seat), state.pawns[seat], state.stacks[seat]
    for site in range(N_SITES):
        if state.temples[seat][site]:
            continue
        if pawn == site:
            spare = hand >= 1
        elif state.hands[seat][SITE_NATION[site]]:
            spare = hand >= 2
        else:
            continue
        feeder = not state.migrated and any(len(stacks[t]) >= RUN for t in range(N_SITES) if t != site)
        if stacks[site] or spare or feeder:
            return True
    return False


def _why_first_turn(config: Config, state: GameState, action: Action) -> str | None:
    """The start-card obligation (module docstring): checked after the action's own rule."""
    if action.kind == END_TURN:
        return "the start level-1 card must be built this turn"
    if action.kind == BUILD and action.a == START:
        return None
    me = state.current
    if config.first_turn_at_end:
        if not start_reachable(apply(config, state, action, check=False), me):
            return "the start level-1 card could no longer be built this turn"
        return None
    if action.kind == BUILD or (action.kind == ABILITY and action.a in (HITTITES, PERSIANS)):
        return "the first build must be the start level-1 card (first_turn_check=every_action)"
    if not start_buildable(apply(config, state, action, check=False), me):
        return "the start level-1 card could no longer be built this turn (first_turn_check=every_action)"
    return None


def why_illegal(config: Config, state: GameState, action: Action) -> str | None:
    """Why ``action`` is illegal for the seat to decide now, or None when it is legal."""
    if state.outcome is not None:
        return "the game is over"
    if state.pending:
        return _why_discard(state, action)
    if action.kind not in _CHECKS:
        if action.kind == DISCARD:
            return "a discard is owed only after the universal ability"
        return f"unknown action kind {action.kind} (kinds 0..{DISCARD})"
    why = _CHECKS[action.kind](config, state, action)
    if why is None and state.start_cards[state.current]:
        why = _why_first_turn(config, state, action)
    return why


def _why_discard(state: GameState, action: Action) -> str | None:
    if action.kind != DISCARD:
        return f"the opponent first discards {state.pending} more card(s) (the universal ability)"
    if not 0 <= action.a < N_NATIONS or not state.hands[1 - state.current][action.a]:
        return f"no {NATIONS[action.a] if 0 <= action.a < N_NATIONS else action.a} card in hand"
    return None


TURN_ACTIONS = (
    *(Action(MOVE, s) for s in range(N_SITES)),
    *(Action(DEPLOY, n) for n in range(N_NATIONS)),
    *(Action(BUILD, src) for src in (0, 1, START)),
    *(Action(MIGRATE, f, t) for f in range(N_SITES) for t in range(N_SITES) if f != t),
    Action(ABILITY, ASSYRIANS), Action(ABILITY, HITTITES), *(Action(ABILITY, MEDES, m) for m in range(N_NATIONS)),
    Action(ABILITY, PERSIANS, 0), Action(ABILITY, PERSIANS, 1), Action(ABILITY, SUMERIANS),
    *(Action(UNIVERSAL, n) for n in range(N_NATIONS)),
    Action(END_TURN),
)
DISCARDS = tuple(Action(DISCARD, n) for n in range(N_NATIONS))


def legal_actions(config: Config, state: GameState) -> tuple[Action, ...]:
    """The legal actions of :func:`actor` in the stable order of ``TURN_ACTIONS`` (or ``DISCARDS``)."""
    if state.outcome is not None:
        return ()
    candidates = DISCARDS if state.pending else TURN_ACTIONS
    return tuple(a for a in candidates if why_illegal(config, state, a) is None)


# ----------------------------------------------------------------------------------------- effects
def apply(config: Config, state: GameState, action: Action, *, check: bool = True) -> GameState:
    """The state after ``action``; an illegal action raises :class:`InputError` naming it and why.

    ``check=False`` skips the legality test, for the agents' lookahead over actions they took from
    :func:`legal_actions` (an illegal action then gives a state no game reaches).
    """
    if check:
        action = Action(*action)
        why = why_illegal(config, state, action)
        if why is not None:
            raise InputError(f"babel: illegal action {action_text(action)} for p{actor(state) + 1}: {why}")
    state = _tally(state, actor(state), T_ACTIONS)
    if action.kind == DISCARD:
        return _do_discard(state, action.a)
    state = state._replace(actions=state.actions + 1)
    return _EFFECTS[action.kind](config, state, action)


def _do_move(config: Config, state: GameState, action: Action) -> GameState:
    me, nation = state.current, SITE_NATION[action.a]
    state = state._replace(hands=_add_card(state.hands, me, nation, -1), discard=state.discard + (nation,),
                           pawns=_with(state.pawns, me, action.a))
    return _tally(state, me, T_MOVES)


def _do_deploy(config: Config, state: GameState, action: Action) -> GameState:
    me = state.current
    site = state.pawns[me]
    return state._replace(hands=_add_card(state.hands, me, action.a, -1),
                          stacks=_set_site(state.stacks, me, site, state.stacks[me][site] + (action.a,)))


def _do_build(config: Config, state: GameState, action: Action) -> GameState:
    me = state.current
    if action.a == START:
        card, state = 1, state._replace(start_cards=_with(state.start_cards, me, 0))
    else:
        card, state = _take_from_stack(state, action.a)
    return check_end(_tally(_place(state, me, state.pawns[me], card), me, T_BUILDS))


def _take_from_stack(state: GameState, source: int) -> tuple[int, GameState]:
    stack = state.temple_stacks[source]
    return stack[-1], state._replace(temple_stacks=_with(state.temple_stacks, source, stack[:-1]))


def _place(state: GameState, seat: int, site: int, card: int) -> GameState:
    return state._replace(temples=_set_site(state.temples, seat, site, state.temples[seat][site] + (card,)))


def _do_migrate(config: Config, state: GameState, action: Action) -> GameState:
    me, src, dst = state.current, action.a, action.b
    moved = state.stacks[me][src][-RUN:]
    stacks = _set_site(state.stacks, me, src, state.stacks[me][src][:-RUN])
    stacks = _set_site(stacks, me, dst, stacks[me][dst] + moved)
    return _tally(state._replace(stacks=stacks, migrated=True), me, T_MIGRATIONS)


def _use_run(config: Config, state: GameState, nation: int) -> GameState:
    """Discard one card of the topmost run of ``nation`` at the pawn's site."""
    me = state.current
    site = state.pawns[me]
    stack = state.stacks[me][site]
    i = run_top(stack, nation, config.run_any)
    return state._replace(stacks=_set_site(state.stacks, me, site, stack[:i] + stack[i + 1:]),
                          discard=state.discard + (nation,))


def _do_ability(config: Config, state: GameState, action: Action) -> GameState:
    state = _tally(_use_run(config, state, action.a), state.current, action.a)
    return _ABILITY_EFFECTS[action.a](state, state.pawns[state.current], action.b)


def _assyrians(state: GameState, site: int, arg: int) -> GameState:
    """Destroy the opponent's temple here: its cards go on top of the quarry, highest at the bottom."""
    them = 1 - state.current
    ruins = tuple(sorted(state.temples[them][site], reverse=True))
    return check_end(state._replace(quarry=state.quarry + ruins, temples=_set_site(state.temples, them, site, ())))


def _hittites(state: GameState, site: int, arg: int) -> GameState:
    """Steal the opponent's top temple card here onto the own temple here."""
    me, them = state.current, 1 - state.current
    theirs = state.temples[them][site]
    state = state._replace(temples=_set_site(state.temples, them, site, theirs[:-1]))
    return check_end(_place(state, me, site, theirs[-1]))


def _medes(state: GameState, site: int, nation: int) -> GameState:
    """The opponent discards every card of ``nation`` from their stack here."""
    them = 1 - state.current
    stack = state.stacks[them][site]
    gone = tuple(c for c in stack if c == nation)
    kept = tuple(c for c in stack if c != nation)
    return state._replace(stacks=_set_site(state.stacks, them, site, kept), discard=state.discard + gone)


def _persians(state: GameState, site: int, source: int) -> GameState:
    """Build the top card of stack ``source`` two levels above the own temple here."""
    card, state = _take_from_stack(state, source)
    return check_end(_place(state, state.current, site, card))


def _sumerians(state: GameState, site: int, arg: int) -> GameState:
    """The opponent's cards here of their top card's nation defect onto the own stack, in order."""
    me, them = state.current, 1 - state.current
    stack = state.stacks[them][site]
    nation = stack[-1]
    moved = tuple(c for c in stack if c == nation)
    stacks = _set_site(state.stacks, them, site, tuple(c for c in stack if c != nation))
    return state._replace(stacks=_set_site(stacks, me, site, stacks[me][site] + moved))


_ABILITY_EFFECTS = (_assyrians, _hittites, _medes, _persians, _sumerians)


def _do_universal(config: Config, state: GameState, action: Action) -> GameState:
    state = _use_run(config, state, action.a)
    state = state._replace(pending=hand_size(state, 1 - state.current) // 2)
    return _tally(state, state.current, T_UNIVERSAL)


def _do_discard(state: GameState, nation: int) -> GameState:
    them = 1 - state.current
    return state._replace(hands=_add_card(state.hands, them, nation, -1), discard=state.discard + (nation,),
                          pending=state.pending - 1)


def _do_end_turn(config: Config, state: GameState, action: Action) -> GameState:
    """Phase 3 (2 temple cards onto the own stack, the announcement), the end checks, the next turn."""
    me = state.current
    state = draw_temples(state, me)
    state = state._replace(history=state.history + ((combined_value(state, 0), combined_value(state, 1)),))
    cards = hand_size(state, me)
    state = check_end(state._replace(announced=_with(state.announced, me, cards if cards >= 4 else 0)))
    if state.outcome is not None:
        return state
    if not state.quarry:
        return finish(state, QUARRY_EMPTY)
    if state.turn >= config.max_turns:
        return state._replace(outcome=(DRAW_SEAT, TURN_LIMIT))
    return begin_turn(state, 1 - me)


def draw_temples(state: GameState, seat: int) -> GameState:
    """Phase 3: the top 2 quarry cards (or the last one) onto ``seat``'s temple stack, the lower on top."""
    drawn = tuple(sorted(state.quarry[-2:], reverse=True))
    stacks = _with(state.temple_stacks, seat, state.temple_stacks[seat] + drawn)
    return state._replace(quarry=state.quarry[:-2], temple_stacks=stacks)


_EFFECTS = {END_TURN: _do_end_turn, MOVE: _do_move, DEPLOY: _do_deploy, BUILD: _do_build, MIGRATE: _do_migrate,
            ABILITY: _do_ability, UNIVERSAL: _do_universal}


# ------------------------------------------------------------------------------------------ ending
def check_end(state: GameState) -> GameState:
    """The end conditions on the combined values: 15+ vs 9-, and the end phase (20+ or a drop to 9-)."""
    a, b = combined_value(state, 0), combined_value(state, 1)
    if not state.end_phase:
        if (a >= STANDARD_WIN and b <= STANDARD_LOSE) or (b >= STANDARD_WIN and a <= STANDARD_LOSE):
            return finish(state, STANDARD)
        if a < STANDARD_WIN and b < STANDARD_WIN:
            return state
        state = state._replace(end_phase=True)
    if a >= END_PHASE_TOP or b >= END_PHASE_TOP:
        return finish(state, END_PHASE_20)
    if a <= STANDARD_LOSE or b <= STANDARD_LOSE:
        return finish(state, END_PHASE_DROP)
    return state


def winner(state: GameState) -> int:
    """The higher combined value; equal → more nation cards in hand; still equal → DRAW_SEAT."""
    key = [(combined_value(state, s), hand_size(state, s)) for s in (0, 1)]
    if key[0] == key[1]:
        return DRAW_SEAT
    return 0 if key[0] > key[1] else 1


def finish(state: GameState, reason: str) -> GameState:
    """The game ends now for ``reason``; the winner by value, then hand size."""
    return state._replace(outcome=(winner(state), reason))


# ------------------------------------------------------------------------------------------- words
def site_name(site: int) -> str:
    """``site M`` (the site in the Medes' colour), or ``the quarry``."""
    return "the quarry" if site == QUARRY else f"site {LETTERS[SITE_NATION[site]]}"


def action_text(action: Action) -> str:
    """An action in words, e.g. ``migrate site A → site M`` or ``Medes ability (desert Persians)``."""
    kind, a, b = action
    if kind == ABILITY:
        extra = {MEDES: f" (desert {_name(NATIONS, b)})", PERSIANS: f" (from p{b + 1}'s stack)"}.get(a, "")
        return f"{_name(NATIONS, a)} ability{extra}"
    texts = {END_TURN: "end turn", MOVE: f"move to {site_name(a) if 0 <= a < N_SITES else a}",
             DEPLOY: f"deploy {_name(NATIONS, a)}",
             MIGRATE: f"migrate site {_name(LETTERS, a)} → site {_name(LETTERS, b)}",
             UNIVERSAL: f"universal ability (a {_name(NATIONS, a)} run)", DISCARD: f"discard {_name(NATIONS, a)}",
             BUILD: "build the start card" if a == START else f"build from p{a + 1}'s stack"}
    return texts.get(kind, f"unknown action {tuple(action)}")


def _name(names: tuple[str, ...] | str, i: int) -> str:
    return names[i] if 0 <= i < len(names) else str(i)
