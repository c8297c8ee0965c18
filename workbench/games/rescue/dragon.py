"""The Dragon mini-boss: the round it appears and who takes its trophy, exact odds beside a seeded simulation.

Rules (``../shared/rules/003_*.txt``, "Dragon - Mini-Boss"): the Dragon event card is shuffled with
the top 5 cards of the event deck; the Dragon counts as a boss, but catching it does not end the
game; the player who first catches it takes the trophy, unless another player catches it during
the same round (then nobody does, and a later lone catcher takes it, even the third to catch it).

Modelling decisions (the text leaves these open; each is a parameter or stated here):

* **Appearance.** The 6 shuffled cards are equally likely in every order, so the Dragon is
  uniform among positions 1..6.  One event card is revealed per round, from round 1, so the
  Dragon appears in round ``R`` = its position: P(R = r) = 1/6 (:func:`appearance_odds` counts
  all 720 orders to show it).
* **Catching.** Every player has their own Dragon (one boss marker and one Dragon token each),
  so each player can catch it once.  From the round it appears (that round included) each player
  who has not caught it yet catches it with their own per-round probability ``catch[i]``,
  independently of the other players and of earlier rounds.
* **The race.** In the first round in which anyone catches it: a lone catcher takes the trophy
  and the race is over; two or more catchers take nothing, and they are out of the race (their
  Dragon is caught).  The race goes on among the others, round by round, with the same rule.
  If everyone has caught it without a lone catch, nobody takes the trophy.
* **Game length.** ``rounds`` is the last round played (the game's end is not in the text: it
  ends when a *boss* is caught, which this model does not follow).  A Dragon appearing after
  ``rounds`` is never caught; ``rounds=None`` lets the race run until it is decided.
* **Exact odds** are a dynamic programme over rounds on the set of players still racing (2**N
  sets, 3**N (set, catchers) pairs per round), as ``fractions.Fraction``; probabilities given as
  text or floats are read as the decimals they print as (``0.3`` is 3/10).  With no round limit
  the race is an absorbing chain solved set by set (smaller sets first).
* **Simulation.** Game ``g`` gets seed ``game_seed(seed, g)`` (``core/seeding.py``); stream 0
  shuffles the 6 cards (``SplitMix64.shuffle``), stream ``1 + i`` draws player ``i``'s catches,
  one ``random() < catch[i]`` per round.  Players keep their own draws whatever the others do,
  which gives the same law as the race (catches are independent), and a game replays alone.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import polars as pl

from workbench.core.errors import InputError
from workbench.core.rng import SplitMix64
from workbench.core.seeding import check_master_seed, game_seeds
from workbench.core.stats import wilson

SHUFFLED_EVENTS = 5  # the Dragon is shuffled with the top 5 event cards
POSITIONS = SHUFFLED_EVENTS + 1
MIN_PLAYERS, MAX_PLAYERS = 2, 6
MAX_ROUNDS = 200
CONFIDENCE = 0.999
NOBODY = "nobody"


# -- inputs -------------------------------------------------------------------------------------------
def as_fraction(value: Any, label: str) -> Fraction:
    """``value`` (text such as ``"1/2"`` or ``"0.3"``, an int, a float or a Fraction) as an exact Fraction."""
    try:
        if isinstance(value, bool):
            raise ValueError(value)
        if isinstance(value, Fraction):
            return value
        if isinstance(value, float):
            return Fraction(repr(value))
        return Fraction(str(value).strip())
    except (TypeError, ValueError, ZeroDivisionError):
        raise InputError(f"{label}: {value!r} is not a number; allowed: a fraction such as 1/2 or a decimal "
                         "such as 0.3") from None


def probability_list(values: Any, players: int, label: str, *, low_open: bool = False) -> tuple[Fraction, ...]:
    """One probability per player from a comma list (or one value for all players), each in [0, 1].

    Raises:
        InputError: naming ``label`` and what is allowed, for a bad count or a value outside [0, 1].
    """
    check_players(players)
    items = [v for v in values.split(",")] if isinstance(values, str) else (
        list(values) if isinstance(values, (list, tuple)) else [values])
    items = [v for v in items if not (isinstance(v, str) and not v.strip())]
    if len(items) == 1:
        items = items * players
    if len(items) != players:
        raise InputError(f"{label}: {len(items)} values for {players} players; allowed: one value for all players "
                         f"or exactly {players}, comma-separated")
    out = tuple(as_fraction(v, label) for v in items)
    bad = [str(v) for v in out if not 0 <= v <= 1]
    if bad:
        raise InputError(f"{label}: {', '.join(bad)} outside [0, 1]; allowed: probabilities from 0 to 1")
    return out


def check_players(players: Any) -> int:
    """``players`` as an int in 2..6, or an :class:`InputError` naming the setting."""
    if isinstance(players, bool) or not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise InputError(f"players: {players!r} is not allowed; allowed: an integer from {MIN_PLAYERS} to "
                         f"{MAX_PLAYERS}")
    return players


def players_of(values: Any, players: int | None) -> int:
    """``players`` checked, or (when ``None``) the number of values in a comma list or sequence."""
    if players is None:
        players = len(values.split(",")) if isinstance(values, str) else (
            len(values) if isinstance(values, (list, tuple)) else 1)
        if players == 1:
            raise InputError("players: one value was given without a player count; allowed: give players "
                             f"({MIN_PLAYERS} to {MAX_PLAYERS}) or one value per player")
    return check_players(players)


def check_rounds(rounds: Any) -> int | None:
    """``rounds`` as an int in 1..200, or ``None`` (no limit); else an :class:`InputError`."""
    if rounds is None:
        return None
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= MAX_ROUNDS:
        raise InputError(f"rounds: {rounds!r} is not allowed; allowed: an integer from 1 to {MAX_ROUNDS}, "
                         "or none for no limit")
    return rounds


def check_games(games: Any) -> int:
    """``games`` as an int ≥ 1, or an :class:`InputError`."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise InputError(f"games: {games!r} is not allowed; allowed: an integer of at least 1")
    return games


def seat(i: int) -> str:
    """Seat label of player index ``i`` (0-based): ``p1``, ``p2``, ..."""
    return f"p{i + 1}"


# -- the rule -----------------------------------------------------------------------------------------
def trophy_winner(catch_rounds: Sequence[int | None]) -> int | None:
    """Who takes the Dragon trophy, given the round each player caught it (``None``: never).

    The earliest round with exactly one catcher decides; rounds with two or more catchers give
    nothing (the text's example: two catch it together, a later lone catcher takes it).
    """
    by_round: dict[int, list[int]] = {}
    for player, r in enumerate(catch_rounds):
        if r is not None:
            by_round.setdefault(r, []).append(player)
    for r in sorted(by_round):
        if len(by_round[r]) == 1:
            return by_round[r][0]
    return None


# -- exact odds ---------------------------------------------------------------------------------------
def appearance_odds() -> dict[int, Fraction]:
    """P(the Dragon appears in round r), r = 1..6, counting all orders of the 6 shuffled cards."""
    counts = dict.fromkeys(range(1, POSITIONS + 1), 0)
    for order in itertools.permutations(range(POSITIONS)):
        counts[order.index(0) + 1] += 1
    total = sum(counts.values())
    return {r: Fraction(c, total) for r, c in counts.items()}


def _catch_sets(racing: tuple[int, ...], catch: Sequence[Fraction]) -> list[tuple[tuple[int, ...], Fraction]]:
    """Every set of catchers among ``racing`` in one round, with its probability."""
    out = []
    for size in range(len(racing) + 1):
        for caught in itertools.combinations(racing, size):
            prob = Fraction(1)
            for j in racing:
                prob *= catch[j] if j in caught else 1 - catch[j]
            if prob:
                out.append((caught, prob))
    return out


def race_by_rounds(catch: Sequence[Fraction], race_rounds: int) -> list[dict[int, Fraction]]:
    """``out[m][i]``: P(player ``i`` has taken the trophy within ``m`` race rounds), m = 0..race_rounds."""
    players = tuple(range(len(catch)))
    racing: dict[tuple[int, ...], Fraction] = {players: Fraction(1)}
    won = dict.fromkeys(players, Fraction(0))
    table: dict[tuple[int, ...], list] = {}
    out = [dict(won)]
    for _ in range(race_rounds):
        after: dict[tuple[int, ...], Fraction] = {}
        for left, prob in racing.items():
            for caught, p in table.setdefault(left, _catch_sets(left, catch)):
                if len(caught) == 1:
                    won[caught[0]] += prob * p
                elif len(caught) != len(left):
                    rest = tuple(j for j in left if j not in caught)
                    after[rest] = after.get(rest, Fraction(0)) + prob * p
        racing = after
        out.append(dict(won))
    return out


def race_unlimited(catch: Sequence[Fraction]) -> dict[int, Fraction]:
    """P(player ``i`` takes the trophy) when the race runs until it is decided (absorbing chain)."""
    solved: dict[tuple[int, ...], dict[int, Fraction]] = {}
    for size in range(len(catch) + 1):
        for left in itertools.combinations(range(len(catch)), size):
            value = dict.fromkeys(range(len(catch)), Fraction(0))
            stay = Fraction(0)
            for caught, p in _catch_sets(left, catch):
                if not caught:
                    stay = p
                elif len(caught) == 1:
                    value[caught[0]] += p
                elif len(caught) < len(left):
                    rest = solved[tuple(j for j in left if j not in caught)]
                    for i in value:
                        value[i] += p * rest[i]
            solved[left] = {i: v / (1 - stay) for i, v in value.items()} if stay != 1 else value
    return solved[tuple(range(len(catch)))]


def trophy_odds(catch: Any, rounds: int | None = None, players: int | None = None) -> dict[str, Fraction]:
    """Exact P(each player takes the Dragon trophy) and P(nobody), keyed ``p1``.. and ``nobody``.

    Args:
        catch: per-round catch probability per player (a comma list, a sequence, or one value for all).
        rounds: the last round played (``None``: the race runs until decided).
        players: number of players (default: the length of ``catch``).
    """
    players = players_of(catch, players)
    probs = probability_list(catch, players, "catch")
    rounds = check_rounds(rounds)
    appear = appearance_odds()
    if rounds is None:
        race = race_unlimited(probs)
        won = {i: sum((p * race[i] for p in appear.values()), Fraction(0)) for i in range(players)}
    else:
        by_m = race_by_rounds(probs, rounds)
        won = {i: sum((p * by_m[max(0, rounds - r + 1)][i] for r, p in appear.items()), Fraction(0))
               for i in range(players)}
    out = {seat(i): won[i] for i in range(players)}
    out[NOBODY] = 1 - sum(out.values())
    return out


# -- simulation ---------------------------------------------------------------------------------------
def play_game(game_seed: int, catch: Sequence[float], rounds: int | None) -> tuple[int, list[int | None]]:
    """One seeded game: the Dragon's round and each player's catch round (``None``: not caught)."""
    order = SplitMix64.for_stream(game_seed, 0).shuffle(list(range(POSITIONS)))
    appears = order.index(0) + 1
    caught: list[int | None] = []
    for i, c in enumerate(catch):
        rng, r, hit = SplitMix64.for_stream(game_seed, 1 + i), appears, None
        while c > 0 and (rounds is None or r <= rounds):
            if rng.random() < c:
                hit = r
                break
            r += 1
        caught.append(hit)
    return appears, caught


def simulate(catch: Any, rounds: int | None, games: int, seed: int = 0, players: int | None = None,
             on_progress: Callable[[int, int], None] | None = None,
             should_stop: Callable[[], bool] | None = None) -> pl.DataFrame:
    """``games`` seeded games, one row each: seed, Dragon round, catch round per player, trophy.

    A stop request (``should_stop``) ends the run early and keeps the finished games.
    """
    players = players_of(catch, players)
    probs = [float(p) for p in probability_list(catch, players, "catch")]
    rounds, games, seed = check_rounds(rounds), check_games(games), check_master_seed(seed)
    seeds = game_seeds(seed, 0, games)
    rows: dict[str, list] = {"game_index": [], "game_seed": [], "dragon_round": [], "trophy": []}
    rows |= {f"catch_round_{seat(i)}": [] for i in range(players)}
    for g in range(games):
        if should_stop is not None and g % 1000 == 0 and should_stop():
            break
        appears, caught = play_game(int(seeds[g]), probs, rounds)
        winner = trophy_winner(caught)
        rows["game_index"].append(g)
        rows["game_seed"].append(int(seeds[g]))
        rows["dragon_round"].append(appears)
        rows["trophy"].append(NOBODY if winner is None else seat(winner))
        for i in range(players):
            rows[f"catch_round_{seat(i)}"].append(caught[i])
        if on_progress is not None and (g + 1) % 1000 == 0:
            on_progress(g + 1, games)
    schema = {"game_index": pl.Int64, "game_seed": pl.UInt64, "dragon_round": pl.Int64, "trophy": pl.String}
    return pl.DataFrame(rows, schema_overrides=schema)


# -- tables -------------------------------------------------------------------------------------------
def fraction_text(value: Fraction, max_digits: int = 24) -> str | None:
    """``"1/6"``; ``None`` when the denominator is too long to read."""
    return str(value) if len(str(value.denominator)) <= max_digits else None


def compare_table(key: str, exact: dict[Any, Fraction], counts: dict[Any, int], n: int,
                  confidence: float = CONFIDENCE) -> pl.DataFrame:
    """Exact probabilities beside simulated shares: key, exact_fraction, exact, k, n, simulated, low, high."""
    keys = list(exact)
    k = [int(counts.get(x, 0)) for x in keys]
    low, high = wilson(k, n, confidence) if n else ([0.0] * len(k), [1.0] * len(k))
    return pl.DataFrame({key: keys, "exact_fraction": [fraction_text(exact[x]) for x in keys],
                         "exact": [float(exact[x]) for x in keys], "k": k, "n": [n] * len(k),
                         "simulated": [x / n if n else None for x in k], "low": list(low), "high": list(high)},
                        schema_overrides={"exact_fraction": pl.String, "simulated": pl.Float64})


def tables(catch: Any, rounds: int | None, games: int, seed: int = 0, players: int | None = None,
           confidence: float = CONFIDENCE, **run: Any) -> dict[str, pl.DataFrame]:
    """The Dragon study's tables: ``appearance`` and ``trophy`` (exact vs simulated), and the ``games``."""
    frame = simulate(catch, rounds, games, seed, players, **run)
    n = frame.height
    rounds_seen = dict(frame.group_by("dragon_round").len().iter_rows())
    trophies = dict(frame.group_by("trophy").len().iter_rows())
    players = sum(1 for c in frame.columns if c.startswith("catch_round_"))
    return {"appearance": compare_table("round", appearance_odds(), rounds_seen, n, confidence),
            "trophy": compare_table("outcome", trophy_odds(catch, rounds, players), trophies, n, confidence),
            "games": frame}
