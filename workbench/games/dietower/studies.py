"""Tower of Babel (die streak): its declared studies (``MODEL.studies`` names ``STUDIES``).

* ``reduced_decks``: exact odds of random play on reduced decks (fractions) beside a simulation
  with Wilson / normal intervals — the teaching table;
* ``equilibrium``: the equilibrium of the two-player game by backward induction with one LP per
  state: first-round strategy, game value, and what each heuristic agent loses against it;
* ``convergence``: the streak model's Monte Carlo estimate as games accumulate — its interval
  narrowing onto the exact value, the error falling like 1/sqrt(n);
* ``full_deck``: the real game on the full deck, simulated: six-win, win and draw rates and mean
  scores with their intervals, for each number of players.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from workbench.core.errors import InputError, RunInterrupted
from workbench.core.model import GameModel, Param
from workbench.core.studies.study import Partial, PartialFeed, SettingError, Study
from workbench.games.dietower import analysis


def _reduced_check(model: GameModel, settings: dict[str, Any], params: dict[str, Any]) -> None:
    """The reduced decks the exact enumeration can count, refused before any work in the form's words."""
    low, high, players = settings["smallest_suit"], settings["largest_suit"], settings["players"]
    if low > high:
        raise SettingError("largest_suit", f"largest suit {high} is below smallest suit {low}; give a largest "
                                           f"suit of {low} or more")
    limit = EXACT_SUIT[players]
    if high > limit:
        raise SettingError("largest_suit", f"largest suit {high} is too big to count exactly with {players} "
                                           f"players; allowed: up to {limit} with {players} players "
                                           f"({', '.join(f'{v} with {k}' for k, v in EXACT_SUIT.items())})")


EXACT_SUIT = {2: 7, 3: 5}  # the largest suit whose random play is counted exactly (exact.random_play_odds)


def _reduced(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
             on_progress: Callable[[int, int], None] | None,
             should_stop: Callable[[], bool] | None, on_partial: Partial | None = None) -> dict[str, pl.DataFrame]:
    low, high = settings["smallest_suit"], settings["largest_suit"]
    suits, games = list(range(low, high + 1)), settings["games"]
    total, done = games * len(suits), [0]

    def tick(n: int) -> None:
        done[0] += n
        if on_progress is not None:
            on_progress(done[0], total)

    rules = {"players": settings["players"], "die_faces": settings["die_faces"], "games": games, "seed": seed,
             "on_progress": tick, "should_stop": should_stop}
    # one suit size at a time, smallest first (the same rows: each suit size is computed on its own)
    feed, parts = PartialFeed(on_partial, total), []
    for suit in suits:
        try:
            parts.append(analysis.reduced_deck_table([suit], **rules))
        except (RunInterrupted, KeyboardInterrupt) as exc:  # stopped (in the simulation or between the exact
            # enumeration's steps): the suits finished, and the one cut short on its finished games
            if isinstance(exc, KeyboardInterrupt) and not (should_stop is not None and should_stop()):
                raise  # Ctrl-C outside a run's checks
            cut = exc.partial if isinstance(exc, RunInterrupted) else None
            rows = [*parts, *([cut] if cut is not None else [])]
            raise RunInterrupted({"odds": pl.concat(rows, how="vertical_relaxed")} if rows else None, done[0],
                                 total) from None
        feed.offer(lambda: {"odds": pl.concat(parts, how="vertical")}, games * len(parts))
    return {"odds": pl.concat(parts, how="vertical")}


def _equilibrium(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
                 on_progress: Callable[[int, int], None] | None,
                 should_stop: Callable[[], bool] | None) -> dict[str, pl.DataFrame]:
    return analysis.equilibrium_frames(settings["suit_size"], settings["die_faces"])


def _equilibrium_charts(tables: dict[str, pl.DataFrame]) -> dict[str, Any]:
    return {"strategy": analysis.equilibrium_chart(tables["strategy"], "First-round equilibrium strategy"),
            "losses": analysis.loss_chart(tables["losses"])}


def _convergence(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
                 on_progress: Callable[[int, int], None] | None,
                 should_stop: Callable[[], bool] | None) -> dict[str, pl.DataFrame]:
    p, faces, rounds, players, games = (settings[k] for k in ("p", "die_faces", "rounds", "players", "games"))
    return {"running": analysis.convergence_frame(p, faces, rounds, players, games=games, seed=seed,
                                                  event=settings["event"])}


def _convergence_charts(tables: dict[str, pl.DataFrame]) -> dict[str, Any]:
    return {"convergence": analysis.convergence_chart(tables["running"])}


def _deck_counts(model: GameModel, settings: dict[str, Any], params: dict[str, Any]) -> list[int]:
    allowed = model.param("players")
    counts = [allowed.validate(x, "setting 'players'") for x in settings["players"].replace(" ", "").split(",") if x]
    if not counts:
        raise SettingError("players", "setting 'players': give at least one number of players, e.g. 2,3")
    return counts


def _full_deck_check(model: GameModel, settings: dict[str, Any], params: dict[str, Any]) -> None:
    try:
        _deck_counts(model, settings, params)
    except SettingError:
        raise
    except InputError as exc:
        raise SettingError("players", str(exc)) from None


def _full_deck(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
               on_progress: Callable[[int, int], None] | None,
               should_stop: Callable[[], bool] | None) -> dict[str, pl.DataFrame]:
    counts = _deck_counts(model, settings, params)
    others = {k: v for k, v in params.items() if k != "players" and v != model.param(k).default}
    games, frames = settings["games"], []
    total, done = len(counts) * games, [0]

    def tick(n: int) -> None:
        done[0] += n
        if on_progress is not None:
            on_progress(done[0], total)

    for n in counts:
        try:
            summary = analysis.full_deck_summary(n, games, seed=seed, on_progress=tick, should_stop=should_stop,
                                                 **others)
        except RunInterrupted as exc:  # stopped: the numbers of players finished, and the one cut short
            if exc.partial is not None and exc.partial.height:
                frames.append(analysis.summarise(exc.partial).select(pl.lit(n, pl.Int64).alias("players"), pl.all()))
            raise RunInterrupted({"summary": pl.concat(frames)} if frames else None, done[0], total) from None
        frames.append(summary.select(pl.lit(n, pl.Int64).alias("players"), pl.all()))
    return {"summary": pl.concat(frames)}


_FACES = Param("die_faces", 6, int, "faces of the die", 2, 20)
STUDIES = (
    Study("reduced_decks", "Exact odds of random play on reduced decks, beside a simulation", _reduced, (
        Param("smallest_suit", 2, int, "smallest suit size", 2, 7),
        Param("largest_suit", 6, int, "largest suit size (exact enumeration grows fast: 7 takes seconds)", 2, 7),
        Param("players", 2, int, "players", 2, 3), _FACES,
        Param("games", 100_000, int, "simulated games per suit size (0: exact only)", 0, 10**8),
    ), help="Exact probabilities as fractions, and the simulated rates with their 95 % intervals.",
          game_params=False, check=_reduced_check,
          size=lambda settings, _params: settings["games"] * max(0, settings["largest_suit"]
                                                                 - settings["smallest_suit"] + 1),
          held=lambda settings, _params: settings["games"],  # one suit size's games at a time
          # reduced decks play short games (a suit of 2: three rounds), over 10 million a second: the game's
          # long_games (40,000,000 in all) took 2-4 s, so the long run plays more, one suit size held at a time
          long_run={"games": 20_000_000}),
    Study("equilibrium", "Equilibrium play (two players) and what the heuristics lose", _equilibrium, (
        Param("suit_size", 4, int, "suit size (the solve grows fast: 6 takes about a minute)", 2, 6), _FACES,
    ), _equilibrium_charts, "Backward induction with one linear program per state.", game_params=False,
          long_run={"suit_size": 6}),
    Study("convergence", "Why the simulation agrees with the exact answer: the estimate as games accumulate",
          _convergence, (
              Param("p", 0.5, float, "chance the Builder wins a round (streak model)", 0.0, 1.0),
              _FACES, Param("rounds", 14, int, "rounds in a game", 2, 30), Param("players", 2, int, "players", 2, 4),
              Param("games", 1_000_000, int, "simulated games", 10, 10**8),
              Param("event", "six_win", str, "the event estimated: a six-win, or a longest streak of 3 or more",
                    choices=("six_win", "streak3")),
          ), _convergence_charts, "The running estimate with its 95 % interval against the exact value of the "
          "streak model; on the log-log panel the error falls like 1/sqrt(n).", game_params=False,
          long_run={"games": 5_000_000}),
    Study("full_deck", "The real game on the full deck: random players, simulated", _full_deck, (
        Param("players", "2,3", str, "numbers of players to play, comma-separated (2 to 4)"),
        Param("games", 1_000_000, int, "games per number of players", 1, 10**9),
    ), help="Six-win, win and draw rates (Wilson intervals) and mean scores and streaks (normal intervals); the "
       "game parameters set the deck and the die.", check=_full_deck_check,
          size=lambda settings, _params: settings["games"] * len([x for x in settings["players"].split(",")
                                                                  if x.strip()]),
          held=lambda settings, _params: settings["games"]),  # one number of players' games at a time
)
