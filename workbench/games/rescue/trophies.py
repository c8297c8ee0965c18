"""Tower trophies: who takes a colour's trophy, exact odds beside a seeded simulation of racing builders.

Rules (``docs/rules/rescue.md``, "Tower trophies"): building a tower takes a token of its colour;
when all 5 tokens of a colour are taken, the player with the most tokens of that colour takes
the trophy; a tie for most gives nobody the trophy.

Modelling decisions:

* **Exact odds** (:func:`trophy_odds`): each of a colour's 5 tokens goes to player ``i`` with
  probability ``p_i`` (the build propensities, normalised to sum 1; given as text, floats or
  Fractions they are read exactly, ``0.3`` is 3/10), independently.  The multinomial is enumerated
  over the ways 5 tokens split among N players (252 splits at 6 players), as Fractions.
* **The racing model** (:data:`TROPHIES`, run by :func:`simulate` through core's runner): the
  towers are built one at a time until every token of every colour is taken (``colours`` colours,
  5 tokens each).  Each build is by player ``i`` with probability ``p_i``, independently of
  earlier builds (what players building at independent rates ``b_i`` give, with ``p_i = b_i /
  sum(b)``).  The builder chooses a colour with tokens left by its strategy — a choice, so the
  strategy is the seat's agent (``strategies`` are the runner's ``agents``; chance only picks
  who builds):

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
  (``random()`` against the cumulative propensities), stream ``1 + i`` player ``i``'s random colour
  choices (``below``; the agent's own stream).  Every row carries the runner's shared columns
  (rules version, params hash, seeds, agents, parameters).  The trophy table pools every colour of
  every game (``n = games * colours``); for greedy builders colours of one game are not
  independent, so there the intervals are approximate.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

import polars as pl

from workbench.core.errors import InputError, RunInterrupted
from workbench.core.model import CHANCE, TERMINAL, AgentDecl, GameModel, Param
from workbench.core.rng import SplitMix64, stream_seed
from workbench.core.sim import runner
from workbench.core.sim.seeding import check_master_seed
from workbench.games.rescue.dragon import (
    CONFIDENCE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NOBODY,
    as_fraction,
    as_text,
    check_games,
    compare_table,
    counted,
    kept,
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


# -- the race as a protocol model -----------------------------------------------------------------------
def greedy_colour(me: int, tokens: Sequence[Sequence[int]], left: Sequence[int]) -> int | None:
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


@dataclass(frozen=True)
class TrophyConfig:
    """The rules in force: seats, the cumulative build propensities (floats), the colours raced for."""

    players: int
    cumulative: tuple[float, ...]
    colours: int


class TrophyState(NamedTuple):
    """One race of builders.

    ``tokens[colour][seat]``: tokens taken; ``left[colour]``: tokens still in the supply;
    ``builder``: the seat choosing a colour now (None: chance picks the next builder);
    ``first``: the first builder (None before the first build); ``stream``: the SplitMix64 state of
    stream 0, which picks the builders.
    """

    tokens: tuple[tuple[int, ...], ...]
    left: tuple[int, ...]
    builder: int | None
    first: int | None
    stream: int


class View(NamedTuple):
    """What a builder sees when it chooses a colour: everything (tokens are taken in the open)."""

    seat: int
    tokens: tuple[tuple[int, ...], ...]
    left: tuple[int, ...]


class GreedyBuilder:
    """Builds where its lead is largest among the colours it can still win (:func:`greedy_colour`).

    Where it can win none it builds uniformly at random among the open colours, from its own stream.
    """

    name = "greedy"

    def act(self, observation: View, legal: Sequence[int], config: Any, rng: SplitMix64) -> int:
        """The greedy colour, else a uniform one."""
        colour = greedy_colour(observation.seat, observation.tokens, observation.left)
        return legal[rng.below(len(legal))] if colour is None else colour


class TrophyModel(GameModel):
    """The tower-trophy race as a protocol model: chance picks each builder, the builder picks a colour.

    Who builds next is luck (a chance node drawing from stream 0 against the cumulative
    propensities); which colour the builder takes is a choice, so it is an agent's: ``random``
    (core's uniform agent over the open colours) or ``greedy`` (:class:`GreedyBuilder`).  A
    strategy is then an agent like any other game's, and seat ``i``'s random choices come from its
    own stream ``1 + i`` (``agent_stream_base = 1``) — the streams of the module docstring, so a
    game seed gives the same race as before the model existed.

    Result columns besides the runner's shared ones, one row per race: ``winner``: the seat with
    the most trophies (``draw`` on a tie for most); ``reason``: ``most_trophies`` or
    ``tied_trophies``; ``length``: builds (5 per colour); ``first_seat``: the first builder; then
    one item per colour, in colour order, in the list columns ``colour`` (1..), ``trophy``
    (``p1``.. or ``nobody``) and ``tokens_p1``..  (:func:`by_colour` makes it one row per colour).
    """

    name = "rescue"
    title = "Age of Towers: To The Rescue — the tower-trophy race"
    rules_version = "rescue-trophies-1"
    min_players, max_players = MIN_PLAYERS, MAX_PLAYERS
    params = (
        Param("players", 4, int, "players building", low=MIN_PLAYERS, high=MAX_PLAYERS),
        Param("propensities", "1", str, "build propensity per player (normalised): one value for all or a comma "
              "list such as 1,1,2"),
        Param("colours", 4, int, "tower colours in the race (5 tokens each)", low=1, high=MAX_COLOURS),
    )
    agent_types = (AgentDecl("greedy", GreedyBuilder, "builds where its lead is largest among the colours it can "
                             "still win"),)
    agent_stream_base = 1  # seat i's random colour choices: stream 1 + i (stream 0 picks the builders)
    limit_reasons = ()

    def check_params(self, params: dict[str, Any]) -> None:
        """``propensities`` holds one weight for all players or one per player."""
        propensity_list(params["propensities"], params["players"])

    def max_length(self, params: dict[str, Any]) -> int:
        """Builds: every token of every colour."""
        return TOKENS * params["colours"]

    def result_columns(self, params: dict[str, Any]) -> dict[str, pl.DataType]:
        """Per colour, in list columns: the colour, its trophy and each player's tokens."""
        return {"colour": pl.List(pl.Int64), "trophy": pl.List(pl.String),
                **{f"tokens_{seat(i)}": pl.List(pl.Int64) for i in range(params["players"])}}

    # -- the rules --------------------------------------------------------------------------------
    def make_config(self, params: dict[str, Any]) -> TrophyConfig:
        """The normalised propensities as cumulative floats (each Fraction rounded once, then summed)."""
        p = propensity_list(params["propensities"], params["players"])
        return TrophyConfig(len(p), tuple(itertools.accumulate(float(x) for x in p)), params["colours"])

    def players(self, config: TrophyConfig) -> int:
        """Seats: the ``players`` parameter."""
        return config.players

    def initial_state(self, config: TrophyConfig, seed: int) -> TrophyState:
        """Every token in the supply; the builders' stream is stream 0 of the game seed."""
        return TrophyState(((0,) * config.players,) * config.colours, (TOKENS,) * config.colours, None, None,
                           stream_seed(seed, 0))

    def current_player(self, config: TrophyConfig, state: TrophyState) -> int:
        """Chance picks a builder, the builder picks a colour; TERMINAL once every token is taken."""
        if state.builder is not None:
            return state.builder
        return CHANCE if any(state.left) else TERMINAL

    def legal_actions(self, config: TrophyConfig, state: TrophyState, seat: int) -> tuple[int, ...]:
        """The colours (0-based) with tokens left."""
        return tuple(c for c, n in enumerate(state.left) if n)

    def observation(self, config: TrophyConfig, state: TrophyState, seat: int) -> View:
        """Every colour's tokens and supply."""
        return View(seat, state.tokens, state.left)

    def chance_outcomes(self, config: TrophyConfig, state: TrophyState) -> list[tuple[int, float]]:
        """Each player builds next with its propensity."""
        low = (0.0, *config.cumulative[:-1])
        return [(i, high - lo) for i, (lo, high) in enumerate(zip(low, config.cumulative, strict=True)) if high > lo]

    def sample_chance(self, config: TrophyConfig, state: TrophyState) -> tuple[int, TrophyState]:
        """The next builder: the first player whose cumulative propensity exceeds one ``random()`` of stream 0."""
        rng = SplitMix64(state.stream)
        u = rng.random()
        builder = next((i for i, c in enumerate(config.cumulative) if u < c), config.players - 1)
        return builder, TrophyState(state.tokens, state.left, state.builder, state.first, rng.state)

    def apply(self, config: TrophyConfig, state: TrophyState, action: int) -> TrophyState:
        """A chance outcome makes its player the builder; a builder's colour takes one of its tokens."""
        if state.builder is None:
            first = action if state.first is None else state.first
            return TrophyState(state.tokens, state.left, action, first, state.stream)
        counts = list(state.tokens[action])
        counts[state.builder] += 1
        tokens = (*state.tokens[:action], tuple(counts), *state.tokens[action + 1:])
        left = (*state.left[:action], state.left[action] - 1, *state.left[action + 1:])
        return TrophyState(tokens, left, None, state.first, state.stream)

    def result_row(self, config: TrophyConfig, state: TrophyState) -> dict[str, Any]:
        """The columns of the class docstring."""
        taken = [trophy_winner(counts) for counts in state.tokens]
        most = trophy_winner([taken.count(i) for i in range(config.players)])
        return {"winner": "draw" if most is None else seat(most),
                "reason": "tied_trophies" if most is None else "most_trophies",
                "length": TOKENS * config.colours - sum(state.left), "first_seat": seat(state.first),
                "colour": list(range(1, config.colours + 1)),
                "trophy": [NOBODY if t is None else seat(t) for t in taken],
                **{f"tokens_{seat(i)}": [counts[i] for counts in state.tokens] for i in range(config.players)}}

    def invariants(self, config: TrophyConfig, state: TrophyState) -> list[str]:
        """Every colour's tokens taken plus left are its 5."""
        return [f"colour {c + 1}: {sum(counts)} taken and {state.left[c]} left"
                for c, counts in enumerate(state.tokens) if sum(counts) + state.left[c] != TOKENS]


TROPHIES = TrophyModel()


# -- simulation ---------------------------------------------------------------------------------------
def by_colour(frame: pl.DataFrame) -> pl.DataFrame:
    """A frame of :data:`TROPHIES` races, one row per race and colour (the list columns exploded)."""
    lists = [c for c, t in frame.schema.items() if isinstance(t, pl.List)]
    return frame.explode(lists) if lists else frame


def simulate(propensities: Any, games: int, seed: int = 0, players: int | None = None,
             strategies: Any = "random", colours: int = 1, on_progress: Callable[[int, int], None] | None = None,
             should_stop: Callable[[], bool] | None = None, workers: int = 1) -> pl.DataFrame:
    """``games`` seeded races of :data:`TROPHIES` through core's runner, one row per race and colour.

    The runner's shared columns (rules version, params hash, seeds, each seat's strategy as its
    agent, parameters), then the model's, exploded by :func:`by_colour`.  ``on_progress(done,
    games)`` follows every finished chunk; once ``should_stop()`` is true a
    :class:`~workbench.core.errors.RunInterrupted` carries the finished races, by colour.
    """
    p = propensity_list(propensities, players)
    players, games, seed = len(p), check_games(games), check_master_seed(seed)
    strategies = strategy_list(strategies, players)
    if isinstance(colours, bool) or not isinstance(colours, int) or not 1 <= colours <= MAX_COLOURS:
        raise InputError(f"colours: {colours!r} is not allowed; allowed: an integer from 1 to {MAX_COLOURS}")
    params = {"players": players, "propensities": as_text(propensities), "colours": colours}
    try:
        frame = runner.simulate(TROPHIES, games, params=params, agents=",".join(strategies), seed=seed,
                                workers=workers, progress=False, on_progress=counted(on_progress, games),
                                should_stop=should_stop)
    except RunInterrupted as exc:
        partial = by_colour(exc.partial) if isinstance(exc.partial, pl.DataFrame) else exc.partial
        raise RunInterrupted(partial, exc.done, exc.total) from None
    return by_colour(frame)


def tables(propensities: Any, games: int, seed: int = 0, players: int | None = None, strategies: Any = "random",
           colours: int = 1, confidence: float = CONFIDENCE, **run: Any) -> dict[str, pl.DataFrame]:
    """The trophies study's tables: ``trophy`` (exact vs simulated, pooled over colours) and ``games``."""
    frame = kept(lambda: simulate(propensities, games, seed, players, strategies, colours, **run))
    p = propensity_list(propensities, players)
    strategies = strategy_list(strategies, len(p))
    counts = dict(frame.group_by("trophy").len().iter_rows())
    table = compare_table("outcome", trophy_odds(p), counts, frame.height, confidence)
    applies = colours == 1 or all(s == "random" for s in strategies)
    return {"trophy": table.with_columns(pl.lit(applies).alias("exact_applies"),
                                         pl.lit(",".join(strategies)).alias("strategies")),
            "games": frame}
