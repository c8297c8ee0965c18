"""The Mercenary blind auction (``docs/rules/rescue.md``, "Mercenaries"): pure rules and exact outcome odds.

Every player bids 0..its crystals in a closed fist; the bids are revealed at once.

* a single highest bid wins: that player pays it (the crystals go to the supply), the others keep theirs;
* a highest bid of at least 1 crystal shared by several players → a *second auction* among exactly those
  players (every crystal is still in its owner's hand, so each may again bid 0..its crystals);
  a single highest bid there wins and pays; a tie there (at any amount, 0 included) → nobody gets
  the Mercenary and everyone keeps their crystals (reason ``double_tie``);
* a highest bid of 0 (everyone bid 0 — with two or more players a sole highest bid is always ≥ 1):
  the workbench decides that nobody gets the Mercenary and there is no second auction (reason
  ``no_bids``): the rule's second auction is only for a tie "of at least 1 crystal", and a free
  Mercenary nobody paid for is not an auction won.

The protocol's pure functions: :func:`initial_state`, :func:`legal_actions` and :func:`apply` over
``(config, state, bids)``.

Payoff (used by the equilibrium and as the protocol's ``returns``): the winner's surplus
``value − price``, everyone else 0 (``payoff = "surplus"``, the default); or, with ``payoff =
"relative"``, each seat's surplus minus every other seat's, so losing to a rival counts
(:func:`payoffs`).

:func:`outcome` gives the exact outcome distribution for any profile of independent mixed
strategies (Fractions stay Fractions), by enumerating the highest level and the set tied at it;
:func:`outcome_by_profiles` enumerates every bid profile (slow; the cross-check in the tests).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

NOBODY = -1
PAYOFFS = ("surplus", "relative")  # own surplus; own surplus minus the rival's (losing to a rival counts)
REASONS = ("won", "second_auction", "double_tie", "no_bids")
FIRST, SECOND, OVER = 0, 1, 2  # stages of a state


class Config(NamedTuple):
    """The rules of one auction: every seat's crystals and what the Mercenary is worth to it."""

    players: int
    budgets: tuple[int, ...]  # crystals of each seat (its largest bid)
    values: tuple[int, ...]  # the Mercenary's worth to each seat, in crystals
    payoff: str = "surplus"  # what a seat plays for: one of PAYOFFS (see ``payoffs``)

    @property
    def symmetric(self) -> bool:
        """True when every seat has the same crystals and the same value."""
        return len(set(self.budgets)) == 1 and len(set(self.values)) == 1


class State(NamedTuple):
    """One auction in progress.

    ``bids`` are the first-round bids (empty before the reveal), ``tied`` the seats of a second
    auction (empty when there is none), ``second`` their second-round bids (aligned with ``tied``),
    ``winner`` a seat or :data:`NOBODY`, ``price`` what the winner paid, ``reason`` one of
    :data:`REASONS` once the auction is over.
    """

    stage: int = FIRST
    bids: tuple[int, ...] = ()
    tied: tuple[int, ...] = ()
    second: tuple[int, ...] = ()
    winner: int = NOBODY
    price: int = 0
    reason: str = ""


def highest(bids: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    """The highest bid and the positions holding it."""
    top = max(bids)
    return top, tuple(i for i, b in enumerate(bids) if b == top)


def initial_state(config: Config, seed: int) -> State:
    """Nobody has bid yet (the auction draws no random numbers of its own; ``seed`` is unused)."""
    return State()


def legal_actions(config: Config, state: State, seat: int) -> tuple[int, ...]:
    """What ``seat`` may bid: 0..its crystals."""
    return tuple(range(config.budgets[seat] + 1))


def apply(config: Config, state: State, bids: Sequence[int]) -> State:
    """Reveal one round of bids (every seat in the first round, the tied seats in the second)."""
    return _reveal(state, bids)


def _reveal(state: State, bids: Sequence[int]) -> State:
    top, at = highest(bids)
    if state.stage == FIRST:
        if len(at) == 1:
            return State(OVER, tuple(bids), winner=at[0], price=top, reason="won")
        if top == 0:
            return State(OVER, tuple(bids), reason="no_bids")
        return State(SECOND, tuple(bids), tied=at)
    if state.stage == SECOND:
        if len(at) == 1:
            return state._replace(stage=OVER, second=tuple(bids), winner=state.tied[at[0]], price=top,
                                  reason="second_auction")
        return state._replace(stage=OVER, second=tuple(bids), reason="double_tie")
    raise ValueError("the auction is over")


def resolve(first: Sequence[int], second: Sequence[int] | None = None) -> State:
    """The finished auction for hand-given bids (``second``: the tied seats' bids, in seat order)."""
    state = _reveal(State(), first)
    if state.stage == SECOND:
        if second is None or len(second) != len(state.tied):
            raise ValueError(f"seats {state.tied} tied at {max(first)}: give their second bids")
        state = _reveal(state, second)
    return state


def surplus(config: Config, state: State) -> tuple[int, ...]:
    """Each seat's payoff: ``value − price`` for the winner, 0 for everyone else."""
    return tuple(config.values[s] - state.price if s == state.winner else 0 for s in range(config.players))


def payoffs(config: Config, state: State) -> tuple[int, ...]:
    """What each seat plays for: its surplus (``surplus``) or its surplus minus every other seat's (``relative``).

    Under ``relative`` a seat that sees a rival win at surplus ``s`` scores ``−s``: only the winner
    has a surplus, so with two seats the auction is zero-sum.
    """
    own = surplus(config, state)
    if config.payoff == "surplus":
        return own
    total = sum(own)
    return tuple(2 * x - total for x in own)


def crystals_left(config: Config, state: State) -> tuple[int, ...]:
    """Each seat's crystals after the auction (only the winner pays)."""
    return tuple(config.budgets[s] - (state.price if s == state.winner else 0) for s in range(config.players))


# -- strategies and exact outcomes ---------------------------------------------------------------
class Plan(NamedTuple):
    """A seat's mixed strategy over bids 0..its crystals.

    ``first[b]`` = P(bid b) in the first round; in a second auction among the seats ``T`` it bids
    from ``by_tied[T]`` when given, else from ``second``.
    """

    first: tuple[Any, ...]
    second: tuple[Any, ...]
    by_tied: Mapping[frozenset[int], tuple[Any, ...]] | None = None

    def second_for(self, tied: frozenset[int]) -> tuple[Any, ...]:
        """The second-round mix in a second auction among ``tied``."""
        if self.by_tied is not None and tied in self.by_tied:
            return self.by_tied[tied]
        return self.second


def pure(bid: int, budget: int) -> tuple[int, ...]:
    """A point mass on ``bid`` over 0..budget."""
    return tuple(1 if b == bid else 0 for b in range(budget + 1))


def uniform(budget: int) -> tuple[Fraction, ...]:
    """Every bid 0..budget with probability ``1/(budget+1)``."""
    return (Fraction(1, budget + 1),) * (budget + 1)


def _at(mix: Sequence[Any], b: int) -> Any:
    return mix[b] if 0 <= b < len(mix) else 0


def _below(mix: Sequence[Any], b: int) -> Any:
    """P(bid < b)."""
    return sum(mix[: max(0, min(b, len(mix)))], 0)


class Outcome(NamedTuple):
    """Exact outcome of an auction under independent mixed strategies (per seat tuples)."""

    win: tuple[Any, ...]  # P(seat gets the Mercenary)
    price: tuple[Any, ...]  # E[crystals the seat pays] (only a winner pays)
    surplus: tuple[Any, ...]  # E[value − price if the seat wins, else 0]
    nobody: Any  # P(nobody gets it)
    second_auction: Any  # P(a second auction is held)
    double_tie: Any  # P(the second auction ties too)


def _level_sets(mixes: Mapping[int, Sequence[Any]]):
    """Every (highest bid b, set T bidding exactly b, probability) with the others below b."""
    top = max(len(m) for m in mixes.values())
    seats = sorted(mixes)
    for b in range(top):
        for r in range(1, len(seats) + 1):
            for tied in itertools.combinations(seats, r):
                p = 1
                for s in seats:
                    p = p * (_at(mixes[s], b) if s in tied else _below(mixes[s], b))
                if p != 0:
                    yield b, tied, p


def outcome(config: Config, plans: Sequence[Plan]) -> Outcome:
    """The exact outcome distribution for one :class:`Plan` per seat (arithmetic of the given numbers)."""
    n = config.players
    win, pay = [0] * n, [0] * n
    second = double = nobody = 0
    for b, tied, p in _level_sets({s: plans[s].first for s in range(n)}):
        if len(tied) == 1:
            win[tied[0]] += p
            pay[tied[0]] += p * b
            continue
        if b == 0:
            nobody += p
            continue
        second += p
        mixes = {s: plans[s].second_for(frozenset(tied)) for s in tied}
        for c, again, q in _level_sets(mixes):
            if len(again) == 1:
                win[again[0]] += p * q
                pay[again[0]] += p * q * c
            else:
                double += p * q
                nobody += p * q
    gain = tuple(config.values[s] * win[s] - pay[s] for s in range(n))
    return Outcome(tuple(win), tuple(pay), gain, nobody, second, double)


def outcome_by_profiles(config: Config, plans: Sequence[Plan]) -> Outcome:
    """The same as :func:`outcome` by enumerating every joint bid profile (exponential: tests only)."""
    n = config.players
    win, pay = [0] * n, [0] * n
    second = double = nobody = 0
    for bids in itertools.product(*(range(len(p.first)) for p in plans)):
        p = 1
        for s, b in enumerate(bids):
            p = p * plans[s].first[b]
        if p == 0:
            continue
        state = _reveal(State(), bids)
        if state.stage == OVER:
            if state.winner == NOBODY:
                nobody += p
            else:
                win[state.winner] += p
                pay[state.winner] += p * state.price
            continue
        second += p
        mixes = [plans[s].second_for(frozenset(state.tied)) for s in state.tied]
        for again in itertools.product(*(range(len(m)) for m in mixes)):
            q = p
            for m, c in zip(mixes, again, strict=True):
                q = q * m[c]
            if q == 0:
                continue
            end = _reveal(state, again)
            if end.winner == NOBODY:
                double += q
                nobody += q
            else:
                win[end.winner] += q
                pay[end.winner] += q * end.price
    gain = tuple(config.values[s] * win[s] - pay[s] for s in range(n))
    return Outcome(tuple(win), tuple(pay), gain, nobody, second, double)
