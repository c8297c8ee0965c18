"""Tower of Babel (die streak): the rules as pure functions over an immutable state.

Cards are small integers.  With ``suit_size = N`` a player holds the ranks ``0 .. N-1`` (0 is the
lowest, ``N-1`` the highest: 2..A on the full suit) plus the Joker, encoded as ``N``.  A hand is a
bit mask: bit ``c`` set means card ``c`` is still in the hand.  A game lasts ``N + 1`` rounds.

Every round all players reveal one card at once (:func:`step`).  How a round resolves is
:func:`resolve_round` (the readings of ``docs/rules/dietower.md``):

* exactly one Joker: the Builder (if any) loses the title, the die goes to the centre;
* two or more Jokers: a tie that favours the Builder (the Builder, if any, scores and raises);
* otherwise the highest card wins: the Builder among the highest scores the die and raises it;
  a single other highest player takes the die at 1 (no score); several non-Builders tied for the
  highest send the die to the centre (variant ``nonbuilder_tie="keep"``: the Builder keeps it);
* a Builder who wins while the die shows its top face (``die_faces``) wins the game at once
  (variant ``six_win_scores``: that win also scores the top face).

Bookkeeping kept in the state for the result rows: a *streak* is the number of rounds one Builder
won during one tenure (from taking the die until losing it); ``builder_changes`` counts the rounds
in which a player took the die.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from workbench.core.errors import InputError
from workbench.core.model import SEAT_NAMES as SEATS

NO_BUILDER = -1
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
NONBUILDER_TIES = ("centre", "keep")


@dataclass(frozen=True)
class Config:
    """The rule parameters of one game (see ``MODEL.params`` for the allowed values)."""

    players: int = 2
    suit_size: int = 13
    die_faces: int = 6
    nonbuilder_tie: str = "centre"
    six_win_scores: bool = False

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> Config:
        """Config from resolved model parameters."""
        return cls(int(params["players"]), int(params["suit_size"]), int(params["die_faces"]),
                   str(params["nonbuilder_tie"]), bool(params["six_win_scores"]))

    @property
    def joker(self) -> int:
        """Card code of the Joker."""
        return self.suit_size

    @property
    def rounds(self) -> int:
        """Rounds in a game that does not end by a six-win."""
        return self.suit_size + 1

    @property
    def full_hand(self) -> int:
        """Bit mask of a starting hand (every rank and the Joker)."""
        return (1 << (self.suit_size + 1)) - 1


def card_name(card: int, rules: Config) -> str:
    """Human name of a card: the top ``suit_size`` ranks of 2..A, or "Joker"."""
    return "Joker" if card == rules.joker else RANK_NAMES[13 - rules.suit_size + card]


class State(NamedTuple):
    """Immutable game state.

    ``hands``: one bit mask per seat (bit c = card c held).  ``builder``: seat holding the die, or
    -1 while it is in the centre.  ``die``: face shown in front of the Builder (0 in the centre).
    ``scores``: points per seat.  ``round``: rounds played.  ``six_winner``: seat that won by a
    six-win, else -1.  ``streak``: rounds won by the Builder in the current tenure.  ``longest``:
    longest streak per seat.  ``builder_changes``: rounds in which a player took the die.
    """

    hands: tuple[int, ...]
    builder: int
    die: int
    scores: tuple[int, ...]
    round: int
    six_winner: int
    streak: int
    longest: tuple[int, ...]
    builder_changes: int


class Outcome(NamedTuple):
    """How one round resolves: the die afterwards and who scored what."""

    builder: int  # Builder after the round (-1: centre)
    die: int  # die face after the round (0 in the centre)
    scorer: int  # seat that won as Builder this round, or -1
    points: int  # points scored by ``scorer``
    six_win: bool  # the Builder won with the die on its top face: game over
    took: bool  # a new Builder took the die this round


def initial_state(rules: Config) -> State:
    """Every player holds the full suit and a Joker; the die is in the centre."""
    n = rules.players
    return State((rules.full_hand,) * n, NO_BUILDER, 0, (0,) * n, 0, -1, 0, (0,) * n, 0)


def _builder_wins(rules: Config, builder: int, die: int) -> Outcome:
    """The Builder wins the round (outright or by a tie that favours the Builder)."""
    if die == rules.die_faces:
        return Outcome(builder, die, builder, die if rules.six_win_scores else 0, True, False)
    return Outcome(builder, die + 1, builder, die, False, False)


def resolve_round(rules: Config, builder: int, die: int, cards: tuple[int, ...]) -> Outcome:
    """Resolve one round given the current Builder, die face and the cards revealed."""
    jokers = sum(1 for c in cards if c == rules.joker)
    if jokers == 1:
        return Outcome(NO_BUILDER, 0, -1, 0, False, False)
    if jokers >= 2:
        if builder == NO_BUILDER:
            return Outcome(NO_BUILDER, 0, -1, 0, False, False)
        return _builder_wins(rules, builder, die)
    top = max(cards)
    highest = [seat for seat, c in enumerate(cards) if c == top]
    if builder != NO_BUILDER and builder in highest:
        return _builder_wins(rules, builder, die)
    if len(highest) == 1:
        return Outcome(highest[0], 1, -1, 0, False, True)
    if builder != NO_BUILDER and rules.nonbuilder_tie == "keep":
        return Outcome(builder, die, -1, 0, False, False)
    return Outcome(NO_BUILDER, 0, -1, 0, False, False)


def is_over(rules: Config, state: State) -> bool:
    """The game ends by a six-win or after ``rounds`` rounds."""
    return state.six_winner >= 0 or state.round >= rules.rounds


def legal_cards(rules: Config, hand: int) -> tuple[int, ...]:
    """Cards in a hand mask, ascending (the Joker, if held, last)."""
    return _cards(rules.suit_size + 1, hand)


@lru_cache(maxsize=1 << 16)
def _cards(bits: int, hand: int) -> tuple[int, ...]:
    """The set bits of ``hand`` below ``bits``, ascending (a table filled as hands are seen)."""
    return tuple(c for c in range(bits) if hand >> c & 1)


def apply(rules: Config, state: State, cards: tuple[int, ...]) -> State:
    """Play one round: every seat reveals ``cards[seat]``; returns the new state."""
    if is_over(rules, state):
        raise InputError("the game is over; no more rounds can be played")
    if len(cards) != rules.players:
        raise InputError(f"{len(cards)} cards played for {rules.players} players")
    for seat, c in enumerate(cards):
        if not (0 <= c <= rules.joker and state.hands[seat] >> c & 1):
            raise InputError(f"{SEATS[seat]} cannot play card {c}: holds {legal_cards(rules, state.hands[seat])}")
    out = resolve_round(rules, state.builder, state.die, tuple(cards))
    hands = tuple(h & ~(1 << c) for h, c in zip(state.hands, cards, strict=True))
    scores, longest, streak = list(state.scores), list(state.longest), state.streak
    if out.scorer >= 0:
        scores[out.scorer] += out.points
        streak += 1
        longest[out.scorer] = max(longest[out.scorer], streak)
    elif out.builder != state.builder or out.took:
        streak = 0
    return State(hands, out.builder, out.die, tuple(scores), state.round + 1,
                 out.scorer if out.six_win else -1, streak, tuple(longest),
                 state.builder_changes + int(out.took))


class Result(NamedTuple):
    """The result row of one finished game (seat indices, 0-based)."""

    winners: tuple[int, ...]  # every seat with the winning claim (one unless a draw)
    reason: str  # "six_win" | "score" | "draw"
    length: int  # rounds played
    scores: tuple[int, ...]
    six_win_round: int | None
    longest: tuple[int, ...]
    builder_changes: int


def result(rules: Config, state: State) -> Result:
    """Winner(s) and reason of a finished game: a six-win, else the highest score (ties draw)."""
    if state.six_winner >= 0:
        return Result((state.six_winner,), "six_win", state.round, state.scores, state.round,
                      state.longest, state.builder_changes)
    best = max(state.scores)
    winners = tuple(s for s, v in enumerate(state.scores) if v == best)
    return Result(winners, "score" if len(winners) == 1 else "draw", state.round, state.scores, None,
                  state.longest, state.builder_changes)
