"""Exact odds: the teacher's streak model (a Markov chain) and the real game under random play.

(a) :func:`streak_odds` — the model a teacher starts with.  In round 1 one player (uniformly
    chosen) takes the die at 1.  In every later round the Builder wins with probability ``p``:
    scores the die and raises it, or, winning on the top face, wins the game at once (a six-win).
    Otherwise the die passes to one of the other players (uniformly) at 1.  A Markov chain over
    (who holds the die, die face, p1's score, longest streak so far) gives exact distributions —
    ``fractions.Fraction`` when ``p`` is a Fraction, floats when it is a float (sliders).
(b) :func:`random_play_odds` — the real game when every player plays a uniformly random card of
    its hand each round (the ``random`` agent).  Every pair of card orders is equally likely, so
    the game is a forward pass over (hands, Builder, die, scores) counting orders with integers;
    probabilities are exact Fractions.  :func:`enumerate_orders` is the brute-force check (every
    combination of card orders played through :func:`rules.apply`) for tiny decks.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np

from workbench.core.errors import InputError
from workbench.core.sim.stopping import check as check_stop
from workbench.games.dietower.rules import Config, apply, initial_state, is_over, resolve_round, result

# --------------------------------------------------------------------------------------------- (a)


@dataclass(frozen=True)
class StreakOdds:
    """Exact distributions of the streak model (probabilities keyed by value)."""

    p: Any
    die_faces: int
    rounds: int
    players: int
    points: dict[int, Any]  # p1's points at the end of the game
    longest: dict[int, Any]  # longest streak of the game (rounds one Builder won in a row)
    first_streak: dict[int, Any]  # streak of the first Builder (taking the die in round 1)
    six_win_by: list[Any]  # six_win_by[r]: P(the game has ended by a six-win within r rounds)

    @property
    def six_win(self) -> Any:
        """P(six-win within all rounds)."""
        return self.six_win_by[-1]

    def mean(self, which: str = "points") -> Any:
        """Mean of one of the distributions ("points", "longest", "first_streak")."""
        return sum(k * v for k, v in getattr(self, which).items())


def _check_streak_args(p: Any, die_faces: int, rounds: int, players: int) -> None:
    if not 0 <= p <= 1:
        raise InputError(f"p must be a probability in [0, 1], got {p!r}")
    if not (isinstance(die_faces, int) and 2 <= die_faces <= 20):
        raise InputError(f"die_faces must be an integer in [2, 20], got {die_faces!r}")
    if not (isinstance(rounds, int) and 1 <= rounds <= 60):
        raise InputError(f"rounds must be an integer in [1, 60], got {rounds!r}")
    if not (isinstance(players, int) and 2 <= players <= 4):
        raise InputError(f"players must be an integer in [2, 4], got {players!r}")


def streak_odds(p: Any, die_faces: int = 6, rounds: int = 14, players: int = 2,
                six_win_scores: bool = False) -> StreakOdds:
    """Exact odds of the streak model (see the module docstring) after ``rounds`` rounds."""
    _check_streak_args(p, die_faces, rounds, players)
    one = Fraction(1) if isinstance(p, Fraction) else 1.0
    q = one - p
    to_me = one / (players - 1)  # the die leaves another player: it comes to p1 with this chance
    # state: (p1 holds the die, die face, p1 points, longest streak) -> probability
    states: dict[tuple, Any] = {(True, 1, 0, 0): one / players, (False, 1, 0, 0): one - one / players}
    first = {0: one}  # first Builder's streak so far, while the first tenure lasts: {streak: prob}
    first_done: dict[int, Any] = defaultdict(lambda: 0 * one)
    finished: dict[tuple, Any] = defaultdict(lambda: 0 * one)
    six_by = [0 * one, 0 * one]
    for _ in range(2, rounds + 1):
        nxt: dict[tuple, Any] = defaultdict(lambda: 0 * one)
        six_now = 0 * one
        for (mine, d, pts, lng), pr in states.items():
            win = pr * p
            if d == die_faces:
                bonus = d if (mine and six_win_scores) else 0
                finished[(pts + bonus, max(lng, d))] += win
                six_now += win
            else:
                nxt[(mine, d + 1, pts + (d if mine else 0), max(lng, d))] += win
            lose = pr * q
            if mine:
                nxt[(False, 1, pts, lng)] += lose
            else:
                nxt[(True, 1, pts, lng)] += lose * to_me
                nxt[(False, 1, pts, lng)] += lose * (one - to_me)
        states = nxt
        six_by.append(six_by[-1] + six_now)
        first_next = {}
        for k, pr in first.items():
            first_done[k] += pr * q
            if k + 1 == die_faces:
                first_done[k + 1] += pr * p
            else:
                first_next[k + 1] = pr * p
        first = first_next
    for (_, _, pts, lng), pr in states.items():
        finished[(pts, lng)] += pr
    for k, pr in first.items():
        first_done[k] += pr
    points: dict[int, Any] = defaultdict(lambda: 0 * one)
    longest: dict[int, Any] = defaultdict(lambda: 0 * one)
    for (pts, lng), pr in finished.items():
        points[pts] += pr
        longest[lng] += pr
    return StreakOdds(p, die_faces, rounds, players, _clean(points), _clean(longest), _clean(first_done),
                      six_by[: rounds + 1])


def _clean(dist: dict[int, Any]) -> dict[int, Any]:
    return {k: dist[k] for k in sorted(dist) if dist[k] != 0}


def simulate_streak_model(p: float, die_faces: int, rounds: int, players: int, games: int,
                          rng: np.random.Generator, six_win_scores: bool = False) -> dict[str, np.ndarray]:
    """Monte Carlo of the streak model (vectorised over games): points, longest, six_win_round (0 = none)."""
    _check_streak_args(p, die_faces, rounds, players)
    holder = rng.integers(0, players, games)
    die = np.ones(games, np.int64)
    points = np.zeros(games, np.int64)
    longest = np.zeros(games, np.int64)
    six_round = np.zeros(games, np.int64)
    alive = np.ones(games, bool)
    for r in range(2, rounds + 1):
        check_stop()  # the studio's Stop, between rounds
        win = alive & (rng.random(games) < p)
        six = win & (die == die_faces)
        six_round[six] = r
        longest = np.where(win, np.maximum(longest, die), longest)
        scores = win & ~six & (holder == 0)
        points += np.where(scores | (six & (holder == 0) & six_win_scores), die, 0)
        lose = alive & ~win
        shift = rng.integers(1, players, games)  # the die passes to one of the others, uniformly
        holder = np.where(lose, (holder + shift) % players, holder)
        die = np.where(win, die + 1, np.where(lose, 1, die))
        alive &= ~six
    return {"points": points, "longest": longest, "six_win_round": six_round}


# --------------------------------------------------------------------------------------------- (b)


@dataclass(frozen=True)
class GameOdds:
    """Exact outcome distribution of the real game under given play (probabilities as Fractions)."""

    rules: Config
    outcomes: dict[tuple, Fraction]  # (scores tuple, six-win round or 0, winners tuple) -> probability

    def prob(self, predicate) -> Fraction:
        """P(outcome satisfies ``predicate(scores, six_round, winners)``)."""
        return sum((pr for (s, r, w), pr in self.outcomes.items() if predicate(s, r, w)), Fraction(0))

    @property
    def six_win(self) -> Fraction:
        """P(the game ends by a six-win)."""
        return self.prob(lambda s, r, w: r > 0)

    @property
    def draw(self) -> Fraction:
        """P(several players share the highest score)."""
        return self.prob(lambda s, r, w: len(w) > 1)

    def win(self, seat: int) -> Fraction:
        """P(seat is the sole winner)."""
        return self.prob(lambda s, r, w: w == (seat,))

    def mean_score(self, seat: int) -> Fraction:
        """Expected points of ``seat``."""
        return sum((pr * s[seat] for (s, r, w), pr in self.outcomes.items()), Fraction(0))

    def score_distribution(self, seat: int) -> dict[int, Fraction]:
        """P(seat ends with each score)."""
        out: dict[int, Fraction] = defaultdict(Fraction)
        for (s, _, _), pr in self.outcomes.items():
            out[s[seat]] += pr
        return dict(sorted(out.items()))

    def summary(self) -> dict[str, Fraction]:
        """The headline numbers: P(six-win), P(draw), P(each seat wins), mean scores."""
        n = self.rules.players
        out = {"six_win": self.six_win, "draw": self.draw}
        out |= {f"win_p{i + 1}": self.win(i) for i in range(n)}
        out |= {f"mean_score_p{i + 1}": self.mean_score(i) for i in range(n)}
        return out


def _check_small(rules: Config, limit: int) -> None:
    if rules.suit_size > limit:
        raise InputError(f"exact enumeration is for reduced decks: suit_size <= {limit}, got {rules.suit_size}")


def random_play_odds(rules: Config) -> GameOdds:
    """Exact outcome distribution when every player plays uniformly at random (suit_size <= 8)."""
    _check_small(rules, 8 if rules.players == 2 else 5)
    n, full = rules.players, rules.full_hand

    @cache
    def outcome(builder: int, die: int, cards: tuple[int, ...]):
        return resolve_round(rules, builder, die, cards)

    # key: (hands, builder, die, scores) -> number of (order prefix) combinations reaching it
    layer: dict[tuple, int] = {((full,) * n, -1, 0, (0,) * n): 1}
    outcomes: dict[tuple, int] = defaultdict(int)
    for r in range(1, rules.rounds + 1):
        nxt: dict[tuple, int] = defaultdict(int)
        left = rules.rounds - r  # cards each player keeps after this round
        for step, ((hands, builder, die, scores), count) in enumerate(layer.items()):
            if not step % 512:
                check_stop()  # the studio's Stop, between steps of the enumeration
            for cards in itertools.product(*(_cards(h) for h in hands)):
                out = outcome(builder, die, cards)
                new_scores = scores
                if out.scorer >= 0 and out.points:
                    new_scores = tuple(v + out.points if i == out.scorer else v for i, v in enumerate(scores))
                new_hands = tuple(h & ~(1 << c) for h, c in zip(hands, cards, strict=True))
                if out.six_win:
                    # every way to order the unplayed cards ends the same way
                    outcomes[(new_scores, r, (out.scorer,))] += count * math.factorial(left) ** n
                else:
                    nxt[(new_hands, out.builder, out.die, new_scores)] += count
        layer = nxt
    for (_, _, _, scores), count in layer.items():
        best = max(scores)
        outcomes[(scores, 0, tuple(i for i, v in enumerate(scores) if v == best))] += count
    total = math.factorial(rules.rounds) ** n
    return GameOdds(rules, {k: Fraction(v, total) for k, v in sorted(outcomes.items())})


@cache
def _cards(hand: int) -> tuple[int, ...]:
    return tuple(c for c in range(hand.bit_length()) if hand >> c & 1)


def enumerate_orders(rules: Config) -> GameOdds:
    """Brute force for tiny decks: play every combination of card orders through ``rules.apply``."""
    if math.factorial(rules.rounds) ** rules.players > 3_000_000:
        raise InputError("enumerate_orders is a check for tiny decks: (suit_size+1)!^players must be <= 3e6")
    orders = list(itertools.permutations(range(rules.rounds)))
    counts: dict[tuple, int] = defaultdict(int)
    for combo in itertools.product(orders, repeat=rules.players):
        state = initial_state(rules)
        while not is_over(rules, state):
            state = apply(rules, state, tuple(order[state.round] for order in combo))
        res = result(rules, state)
        counts[(res.scores, res.six_win_round or 0, res.winners)] += 1
    total = len(orders) ** rules.players
    return GameOdds(rules, {k: Fraction(v, total) for k, v in sorted(counts.items())})
