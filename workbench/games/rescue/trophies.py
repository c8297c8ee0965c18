"""Tower trophies: who takes a colour's trophy, exact odds beside a seeded simulation of racing builders.

Rules (``../shared/rules/003_*.txt``, "Trophies"): building a tower takes a token of its colour;
when all 5 tokens of a colour are taken, the player with the most tokens of that colour takes
the trophy; a tie for most gives nobody the trophy.

Modelling decisions:

* **Exact odds** (:func:`trophy_odds`): each of a colour's 5 tokens goes to player ``i`` with
  probability ``p_i`` (the build propensities, normalised to sum 1; given as text, floats or
  Fractions they are read exactly, ``0.3`` is 3/10), independently.  The multinomial is enumerated
  over the ways 5 tokens split among N players (252 splits at 6 players), as Fractions.
* **The racing model** (:func:`simulate`): the towers are built one at a time until every token
  of every colour is taken (``colours`` colours, 5 tokens each).  Each build is by player ``i``
  with probability ``p_i``, independently of earlier builds (what players building at
  independent rates ``b_i`` give, with ``p_i = b_i / sum(b)``).  The builder chooses a colour with
  tokens left by its strategy:

  - ``random``: uniformly among the colours with tokens left;
  - ``greedy``: among the colours it can still win (its tokens plus all tokens left beat every
    other player's count) and has not already clinched (its tokens beat every other player's
    count plus all tokens left), the one where its lead over the best other player is largest,
    then the one with fewest tokens left, then the lowest colour; if every such colour is
    clinched it builds in a clinched one; if it can win none it builds uniformly at random.

  With ``random`` builders (or a single colour) the owners of each colour's tokens are exactly
  the independent draws of the exact model, so the exact odds apply (column ``exact_applies``);
  greedy builders change who takes the trophy, not who builds.
* **Simulation seeds.** Game ``g`` gets ``game_seed(seed, g)``; stream 0 picks the builders
  (``random() `` against the cumulative propensities), stream ``1 + i`` player ``i``'s random colour
  choices (``below``).  The trophy table pools every colour of every game (``n = games *
  colours``); for greedy builders colours of one game are not independent, so there the
  intervals are approximate.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import polars as pl

from workbench.core.errors import InputError
from workbench.core.rng import SplitMix64
from workbench.core.seeding import check_master_seed, game_seeds
from workbench.games.rescue.dragon import (
    CONFIDENCE,
    NOBODY,
    as_fraction,
    check_games,
    compare_table,
    players_of,
    seat,
)

TOKENS = 5  # tokens of each colour
STRATEGIES = ("random", "greedy")
MAX_COLOURS = 12


# -- inputs -------------------------------------------------------------------------------------------
def propensity_list(values: Any, players: int | None = None) -> tuple[Fraction, ...]:
    """Build propensities per player (comma list or one value for all), normalised to sum 1.

    Raises:
        InputError: for a wrong count, a negative value or all zeros, naming ``propensities``.
    """
    players = players_of(values, players)
    items = values.split(",") if isinstance(values, str) else (
        list(values) if isinstance(values, (list, tuple)) else [values])
    items = [v for v in items if not (isinstance(v, str) and not v.strip())]
    if len(items) == 1:
        items = items * players
    if len(items) != players:
        raise InputError(f"propensities: {len(items)} values for {players} players; allowed: one value for all "
                         f"players or exactly {players}, comma-separated")
    weights = [as_fraction(v, "propensities") for v in items]
    if any(w < 0 for w in weights) or sum(weights) == 0:
        raise InputError("propensities: values must be >= 0 and not all 0; allowed: non-negative weights such as "
                         "1,1,2 (they are normalised to sum 1)")
    total = sum(weights)
    return tuple(w / total for w in weights)


def strategy_list(values: Any, players: int) -> tuple[str, ...]:
    """One strategy per player (comma list or one for all): ``random`` or ``greedy``."""
    items = [v.strip() for v in values.split(",")] if isinstance(values, str) else list(values)
    if len(items) == 1:
        items = items * players
    bad = [v for v in items if v not in STRATEGIES]
    if len(items) != players or bad:
        raise InputError(f"strategies: {values!r} is not allowed; allowed: {' | '.join(STRATEGIES)}, one for all "
                         f"players or exactly {players}, comma-separated")
    return tuple(items)


# -- the rule -----------------------------------------------------------------------------------------
def trophy_winner(counts: Sequence[int]) -> int | None:
    """The player with strictly the most tokens of a colour, or ``None`` on a tie for most."""
    best = max(counts)
    leaders = [i for i, c in enumerate(counts) if c == best]
    return leaders[0] if len(leaders) == 1 else None


# -- exact odds ---------------------------------------------------------------------------------------
def splits(tokens: int, players: int):
    """Every way ``tokens`` split among ``players`` (tuples of counts)."""
    for bars in itertools.combinations(range(tokens + players - 1), players - 1):
        edges = (-1, *bars, tokens + players - 1)
        yield tuple(edges[k + 1] - edges[k] - 1 for k in range(players))


def trophy_odds(propensities: Any, players: int | None = None, tokens: int = TOKENS) -> dict[str, Fraction]:
    """Exact P(each player takes a colour's trophy) and P(nobody), keyed ``p1``.. and ``nobody``."""
    p = propensity_list(propensities, players)
    out = dict.fromkeys([*(seat(i) for i in range(len(p))), NOBODY], Fraction(0))
    for counts in splits(tokens, len(p)):
        prob = Fraction(math.factorial(tokens))
        for c, pi in zip(counts, p, strict=True):
            prob *= pi**c / math.factorial(c)
        winner = trophy_winner(counts)
        out[NOBODY if winner is None else seat(winner)] += prob
    return out


# -- simulation ---------------------------------------------------------------------------------------
def greedy_colour(me: int, tokens: list[list[int]], left: list[int]) -> int | None:
    """The greedy builder's colour (see the module docstring), or ``None`` when it can win none."""
    open_, clinched = [], []
    for colour, counts in enumerate(tokens):
        if not left[colour]:
            continue
        other = max(c for i, c in enumerate(counts) if i != me)
        if counts[me] > other + left[colour]:
            clinched.append(colour)
        elif counts[me] + left[colour] > other:
            open_.append((-(counts[me] - other), left[colour], colour))
    if open_:
        return min(open_)[2]
    return clinched[0] if clinched else None


def play_game(game_seed: int, cumulative: Sequence[float], strategies: Sequence[str],
              colours: int) -> list[list[int]]:
    """One seeded race: the tokens of each colour per player when every token is taken."""
    players = len(strategies)
    builders = SplitMix64.for_stream(game_seed, 0)
    choosers = [SplitMix64.for_stream(game_seed, 1 + i) for i in range(players)]
    tokens = [[0] * players for _ in range(colours)]
    left = [TOKENS] * colours
    for _ in range(TOKENS * colours):
        u = builders.random()
        me = next((i for i, c in enumerate(cumulative) if u < c), players - 1)
        colour = greedy_colour(me, tokens, left) if strategies[me] == "greedy" else None
        if colour is None:
            open_colours = [c for c in range(colours) if left[c]]
            colour = open_colours[choosers[me].below(len(open_colours))]
        tokens[colour][me] += 1
        left[colour] -= 1
    return tokens


def simulate(propensities: Any, games: int, seed: int = 0, players: int | None = None,
             strategies: Any = "random", colours: int = 1, on_progress: Callable[[int, int], None] | None = None,
             should_stop: Callable[[], bool] | None = None) -> pl.DataFrame:
    """``games`` seeded races, one row per game and colour: the tokens per player and the trophy."""
    p = propensity_list(propensities, players)
    players, games, seed = len(p), check_games(games), check_master_seed(seed)
    strategies = strategy_list(strategies, players)
    if isinstance(colours, bool) or not isinstance(colours, int) or not 1 <= colours <= MAX_COLOURS:
        raise InputError(f"colours: {colours!r} is not allowed; allowed: an integer from 1 to {MAX_COLOURS}")
    cumulative = list(itertools.accumulate(float(x) for x in p))
    seeds = game_seeds(seed, 0, games)
    rows: dict[str, list] = {"game_index": [], "game_seed": [], "colour": [], "trophy": []}
    rows |= {f"tokens_{seat(i)}": [] for i in range(players)}
    for g in range(games):
        if should_stop is not None and g % 1000 == 0 and should_stop():
            break
        for colour, counts in enumerate(play_game(int(seeds[g]), cumulative, strategies, colours)):
            winner = trophy_winner(counts)
            rows["game_index"].append(g)
            rows["game_seed"].append(int(seeds[g]))
            rows["colour"].append(colour + 1)
            rows["trophy"].append(NOBODY if winner is None else seat(winner))
            for i in range(players):
                rows[f"tokens_{seat(i)}"].append(counts[i])
        if on_progress is not None and (g + 1) % 1000 == 0:
            on_progress(g + 1, games)
    return pl.DataFrame(rows, schema_overrides={"game_seed": pl.UInt64, "trophy": pl.String})


def tables(propensities: Any, games: int, seed: int = 0, players: int | None = None, strategies: Any = "random",
           colours: int = 1, confidence: float = CONFIDENCE, **run: Any) -> dict[str, pl.DataFrame]:
    """The trophies study's tables: ``trophy`` (exact vs simulated, pooled over colours) and ``games``."""
    frame = simulate(propensities, games, seed, players, strategies, colours, **run)
    p = propensity_list(propensities, players)
    strategies = strategy_list(strategies, len(p))
    counts = dict(frame.group_by("trophy").len().iter_rows())
    table = compare_table("outcome", trophy_odds(p), counts, frame.height, confidence)
    applies = colours == 1 or all(s == "random" for s in strategies)
    return {"trophy": table.with_columns(pl.lit(applies).alias("exact_applies"),
                                         pl.lit(",".join(strategies)).alias("strategies")),
            "games": frame}
