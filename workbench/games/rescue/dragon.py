"""The Dragon mini-boss: the round it appears and who takes its trophy, exact odds beside a seeded simulation.

Rules (``docs/rules/rescue.md``, "The Dragon"): the Dragon event card is shuffled with
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
* **Simulation.** The race is a protocol model, :data:`DRAGON` (:class:`DragonModel`: chance
  nodes only — catching is luck, not a choice), run by core's runner, so every row carries the
  rules version, params hash and seeds like any game's.  Game ``g`` gets seed ``game_seed(seed,
  g)`` (``core/sim/seeding.py``); stream 0 shuffles the 6 cards (``SplitMix64.shuffle``), stream
  ``1 + i`` draws player ``i``'s catches, one ``random() < catch[i]`` per round it races.  Players
  keep their own draws whatever the others do, which gives the same law as the race (catches are
  independent), and a game replays alone.
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
from workbench.core.stats.rates import wilson

SHUFFLED_EVENTS = 5  # the Dragon is shuffled with the top 5 event cards
POSITIONS = SHUFFLED_EVENTS + 1
MIN_PLAYERS, MAX_PLAYERS = 2, 6
MAX_ROUNDS = 200
CONFIDENCE = 0.999
NOBODY = "nobody"
NO_AGENT = "none"  # the seats' agent: the race has no decisions
UNLIMITED_GUARD = 10**6  # race rounds allowed with no round limit (a runaway guard; the race ends surely)


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


# -- the race as a protocol model -----------------------------------------------------------------------
@dataclass(frozen=True)
class DragonConfig:
    """The rules in force: seats, each player's per-round catch probability, the last round (None: no limit)."""

    players: int
    catch: tuple[float, ...]
    rounds: int | None


class DragonState(NamedTuple):
    """One Dragon race; only chance moves it.

    ``appears``: the Dragon's round (1..6, stream 0's shuffle); ``round``: the next round to play;
    ``caught``: the round each player caught it (None: not yet); ``streams``: each player's
    SplitMix64 state (stream ``1 + i``), one draw per round the player races; ``racing``: who tries
    to catch it in ``round`` (not caught yet, able to, and the game not over; empty: the race is over).
    """

    appears: int
    round: int
    caught: tuple[int | None, ...]
    streams: tuple[int, ...]
    racing: tuple[int, ...]


class NoDecisions:
    """The seats' agent in a race without decisions: never asked for an action."""

    name = NO_AGENT

    def act(self, observation: Any, legal: Sequence[Any], config: Any, rng: Any) -> Any:
        """Never called: the Dragon race has no decision nodes."""
        raise RuntimeError("the Dragon race has no decisions to take")


class DragonModel(GameModel):
    """The Dragon trophy race as a protocol model: every round one chance node draws who catches it.

    Nobody decides anything (catching is a chance draw, not a choice), so every seat's agent is
    ``none``.  The Dragon's round is drawn in :meth:`initial_state` (stream 0's shuffle); each
    round after that is a chance node whose outcome is the set of players who catch it, drawn by
    :meth:`sample_chance` from every racing player's own stream — the draws of the module
    docstring, so a game seed gives the same race as before the model existed.  The race goes on
    after the trophy is decided, until every player has caught it or the last round is played, so
    each player's catch round is known.

    Result columns besides the runner's shared ones: ``winner`` (the trophy's taker, ``draw`` when
    nobody takes it); ``reason``: ``lone_catch`` (taken), ``shared_catches`` (caught, but never by
    one player alone in a round), ``not_caught`` (out, but nobody caught it in time), ``not_out``
    (it appears after the last round); ``length``: race rounds played (0 when it never came out);
    ``first_seat``: null (everyone tries at once); ``dragon_round``, ``trophy`` (``p1``.. or
    ``nobody``) and ``catch_round_p1``.. (null: never caught).
    """

    name = "rescue"
    title = "Age of Towers: To The Rescue — the Dragon trophy race"
    rules_version = "rescue-dragon-1"
    min_players, max_players = MIN_PLAYERS, MAX_PLAYERS
    params = (
        Param("players", 4, int, "players racing for the Dragon's trophy", low=MIN_PLAYERS, high=MAX_PLAYERS),
        Param("catch", "0.3", str, "per-round chance each player catches the Dragon once it is out: one value for "
              "all players or a comma list (fractions like 1/3 allowed)"),
        Param("rounds", 12, int, "last round played (none: the race runs until decided)", low=1, high=MAX_ROUNDS,
              optional=True),
    )
    agent_types = (AgentDecl(NO_AGENT, NoDecisions, "no decisions: every catch is a chance draw"),)
    limit_reasons = ("not_out", "not_caught")

    def check_params(self, params: dict[str, Any]) -> None:
        """``catch`` holds one probability for all players or one per player."""
        probability_list(params["catch"], params["players"], "catch")

    def default_agents(self, params: dict[str, Any]) -> tuple[str, ...]:
        """Every seat: ``none``."""
        return (NO_AGENT,) * params["players"]

    def max_length(self, params: dict[str, Any]) -> int:
        """Race rounds: at most ``rounds`` (with no limit the race ends surely, but unboundedly: a guard)."""
        return params["rounds"] or UNLIMITED_GUARD

    def result_columns(self, params: dict[str, Any]) -> dict[str, pl.DataType]:
        """The Dragon's round, the trophy, and each player's catch round."""
        return {"dragon_round": pl.Int64, "trophy": pl.String,
                **{f"catch_round_{seat(i)}": pl.Int64 for i in range(params["players"])}}

    # -- the rules --------------------------------------------------------------------------------
    def make_config(self, params: dict[str, Any]) -> DragonConfig:
        """The catch probabilities as floats (exactly the decimals or fractions given, rounded once)."""
        catch = probability_list(params["catch"], params["players"], "catch")
        return DragonConfig(params["players"], tuple(float(p) for p in catch), params["rounds"])

    def players(self, config: DragonConfig) -> int:
        """Seats: the ``players`` parameter."""
        return config.players

    def initial_state(self, config: DragonConfig, seed: int) -> DragonState:
        """Shuffle the Dragon into the 6 event cards (stream 0); nobody has caught it."""
        appears = SplitMix64.for_stream(seed, 0).shuffle(list(range(POSITIONS))).index(0) + 1
        caught = (None,) * config.players
        return DragonState(appears, appears, caught, tuple(stream_seed(seed, 1 + i) for i in range(config.players)),
                           _racing(config, appears, caught))

    def current_player(self, config: DragonConfig, state: DragonState) -> int:
        """A chance node while anyone races, then TERMINAL."""
        return CHANCE if state.racing else TERMINAL

    def legal_actions(self, config: DragonConfig, state: DragonState, seat: int) -> tuple[int, ...]:
        """None: nobody decides anything."""
        return ()

    def observation(self, config: DragonConfig, state: DragonState, seat: int) -> DragonState:
        """Everything is public."""
        return state

    def chance_outcomes(self, config: DragonConfig, state: DragonState) -> list[tuple[tuple[int, ...], float]]:
        """Every set of this round's catchers among the racing players, with its probability."""
        out = []
        for size in range(len(state.racing) + 1):
            for caught in itertools.combinations(state.racing, size):
                prob = math.prod(config.catch[i] if i in caught else 1 - config.catch[i] for i in state.racing)
                if prob:
                    out.append((caught, prob))
        return out

    def sample_chance(self, config: DragonConfig, state: DragonState) -> tuple[tuple[int, ...], DragonState]:
        """This round's catchers: one ``random() < catch[i]`` from each racing player's own stream."""
        streams, caught = list(state.streams), []
        for i in state.racing:
            rng = SplitMix64(streams[i])
            if rng.random() < config.catch[i]:
                caught.append(i)
            streams[i] = rng.state
        return tuple(caught), state._replace(streams=tuple(streams))

    def apply(self, config: DragonConfig, state: DragonState, action: tuple[int, ...]) -> DragonState:
        """The round's catchers caught it this round; on to the next round."""
        caught = tuple(state.round if i in action else r for i, r in enumerate(state.caught))
        return DragonState(state.appears, state.round + 1, caught, state.streams,
                           _racing(config, state.round + 1, caught))

    def result_row(self, config: DragonConfig, state: DragonState) -> dict[str, Any]:
        """The columns of the class docstring."""
        winner = trophy_winner(state.caught)
        if winner is not None:
            reason = "lone_catch"
        elif any(r is not None for r in state.caught):
            reason = "shared_catches"
        else:
            reason = "not_out" if config.rounds is not None and state.appears > config.rounds else "not_caught"
        return {"winner": "draw" if winner is None else seat(winner), "reason": reason,
                "length": state.round - state.appears, "first_seat": None, "dragon_round": state.appears,
                "trophy": NOBODY if winner is None else seat(winner),
                **{f"catch_round_{seat(i)}": r for i, r in enumerate(state.caught)}}

    def invariants(self, config: DragonConfig, state: DragonState) -> list[str]:
        """Every catch lies between the Dragon's round and the last round played."""
        return [f"{seat(i)} caught it in round {r}, outside {state.appears}..{state.round - 1}"
                for i, r in enumerate(state.caught) if r is not None and not state.appears <= r < state.round]


def _racing(config: DragonConfig, round_: int, caught: tuple[int | None, ...]) -> tuple[int, ...]:
    """Who tries to catch the Dragon in ``round_``: not caught yet and able to, unless the game is over."""
    if config.rounds is not None and round_ > config.rounds:
        return ()
    return tuple(i for i, r in enumerate(caught) if r is None and config.catch[i] > 0)


DRAGON = DragonModel()


# -- simulation ---------------------------------------------------------------------------------------
def as_text(values: Any) -> str:
    """Values as the comma list a text setting holds: ``[0.3, 0.2]`` → ``"0.3,0.2"``, ``Fraction(1, 3)`` → ``"1/3"``.

    Read back by :func:`as_fraction`, the text gives the very Fractions the values give.
    """
    if isinstance(values, str):
        return values.strip()
    items = values if isinstance(values, (list, tuple)) else [values]
    return ",".join(repr(float(v)) if isinstance(v, float) else str(v) for v in items)


def counted(on_progress: Callable[[int, int], None] | None, total: int) -> Callable[[int], None] | None:
    """The runner's per-chunk callback (games in the chunk) as ``on_progress(done, total)``."""
    if on_progress is None:
        return None
    done = 0

    def tick(n: int) -> None:
        nonlocal done
        done += n
        on_progress(done, total)

    return tick


def kept(run: Callable[[], pl.DataFrame]) -> pl.DataFrame:
    """The run's frame or, when it was stopped, the games it finished (a study shows their tables)."""
    try:
        return run()
    except RunInterrupted as exc:
        if not isinstance(exc.partial, pl.DataFrame):
            raise
        return exc.partial


def simulate(catch: Any, rounds: int | None, games: int, seed: int = 0, players: int | None = None,
             on_progress: Callable[[int, int], None] | None = None, should_stop: Callable[[], bool] | None = None,
             workers: int = 1) -> pl.DataFrame:
    """``games`` seeded races of :data:`DRAGON` through core's runner, one row each.

    The runner's shared columns (rules version, params hash, seeds, agents, parameters), then the
    model's.  ``on_progress(done, games)`` follows every finished chunk; once ``should_stop()`` is
    true a :class:`~workbench.core.errors.RunInterrupted` carries the finished games.
    """
    players = players_of(catch, players)
    probability_list(catch, players, "catch")
    rounds, games, seed = check_rounds(rounds), check_games(games), check_master_seed(seed)
    params = {"players": players, "catch": as_text(catch), "rounds": rounds}
    return runner.simulate(DRAGON, games, params=params, seed=seed, workers=workers, progress=False,
                           on_progress=counted(on_progress, games), should_stop=should_stop)

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
    """The Dragon study's tables: ``appearance`` and ``trophy`` (exact vs simulated), and the ``games``.

    ``run`` goes to :func:`simulate` (``on_progress``, ``should_stop``, ``workers``); a stopped run's
    tables are those of the games it finished.
    """
    frame = kept(lambda: simulate(catch, rounds, games, seed, players, **run))
    n = frame.height
    rounds_seen = dict(frame.group_by("dragon_round").len().iter_rows())
    trophies = dict(frame.group_by("trophy").len().iter_rows())
    players = sum(1 for c in frame.columns if c.startswith("catch_round_"))
    return {"appearance": compare_table("round", appearance_odds(), rounds_seen, n, confidence),
            "trophy": compare_table("outcome", trophy_odds(catch, rounds, players), trophies, n, confidence),
            "games": frame}
