"""Hand-built Babel positions for the scenario tests.

``board(...)`` takes the parts a test cares about, written with letters (``"AAH"`` is a stack or a
hand: two Assyrians and a Hittite; stacks bottom → top), and fills in the rest so that every card is
somewhere: the nation cards nobody placed form the draw pile (or, when ``draw_pile`` is given,
the bottom of the discard pile), the temple cards nobody placed the quarry, ascending, below the
``quarry`` cards given (so with none given the quarry's top is a level 6).  The model's invariants
hold for such a board, so a scenario can check them after its action too.
"""

from __future__ import annotations

from collections import Counter

from workbench.games.babel import rules
from workbench.games.babel.model import MODEL
from workbench.games.babel.rules import Action, Config, GameState

A, H, M, P, S = range(5)  # nations, and the sites in their colours
P1, P2 = 0, 1
CONFIG = Config(first="p1")  # the text's readings (the defaults)
# the stricter readings the code played before babel-2: no-effect actions refused, the first turn checked at each action
STRICT = CONFIG._replace(universal_small_hand=False, medes_absent=False, move_in_place=False, first_turn_at_end=False)


def nations(letters: str) -> tuple[int, ...]:
    """``"AAH"`` → ``(0, 0, 1)``."""
    return tuple(rules.LETTERS.index(c) for c in letters)


def counts(letters: str) -> tuple[int, ...]:
    """A hand written as letters → counts per nation."""
    c = Counter(nations(letters))
    return tuple(c[n] for n in range(rules.N_NATIONS))


def board(*, hands: tuple[str, str] = ("", ""), stacks: dict | None = None, temples: dict | None = None,
          temple_stacks: tuple = ((), ()), pawns: tuple[int, int] = (A, A), current: int = P1, turn: int = 5,
          first: int = P1, start_cards: tuple[int, int] = (0, 0), discard: str = "", quarry: tuple | None = None,
          draw_pile: str | None = None, **fields) -> GameState:
    """A position: ``stacks``/``temples`` map ``(seat, site)`` to letters / a tuple of levels."""
    stacks, temples = stacks or {}, temples or {}
    stack_grid = tuple(tuple(nations(stacks.get((seat, site), "")) for site in range(5)) for seat in (0, 1))
    temple_grid = tuple(tuple(tuple(temples.get((seat, site), ())) for site in range(5)) for seat in (0, 1))
    left = Counter({n: rules.NATION_COPIES for n in range(5)})
    left.subtract(nations(hands[0] + hands[1] + discard + (draw_pile or "") + "".join(stacks.values())))
    rest = tuple(sorted(left.elements()))
    pile, dump = (rest, nations(discard)) if draw_pile is None else (nations(draw_pile), rest + nations(discard))
    levels = Counter({lv: rules.TEMPLE_COPIES[lv - 1] for lv in range(1, 7)})
    levels[1] -= sum(start_cards)
    levels.subtract([lv for t in temples.values() for lv in t] + [lv for s in temple_stacks for lv in s])
    levels.subtract(quarry or ())
    quarry = tuple(sorted(levels.elements())) + tuple(quarry or ())
    zero = (0,) * rules.N_TALLIES
    state = GameState((counts(hands[0]), counts(hands[1])), start_cards, stack_grid, temple_grid,
                      tuple(tuple(s) for s in temple_stacks), quarry, pile, dump, pawns, current,
                      first, turn, False, 0, 0, False, (0, 0), 12345, (zero, zero), None)
    return state._replace(**fields)


def act(state: GameState, kind: int, a: int = 0, b: int = 0, config: Config = CONFIG) -> GameState:
    """Apply one action through the rules (checked) and assert the invariants still hold."""
    after = rules.apply(config, state, Action(kind, a, b))
    broken = MODEL.invariants(config._replace(max_turns=max(config.max_turns, after.turn)), after)
    assert broken == [], broken
    return after


def legal(state: GameState, config: Config = CONFIG) -> set[Action]:
    """The legal actions as a set."""
    return set(rules.legal_actions(config, state))


def stack(state: GameState, seat: int, site: int) -> str:
    """A stack as letters."""
    return "".join(rules.LETTERS[n] for n in state.stacks[seat][site])
