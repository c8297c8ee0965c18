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

from workbench.core.errors import InputError
from workbench.core.model import GameModel, Param
from workbench.core.study import Partial, PartialFeed, Study
from workbench.games.dietower import analysis


def _reduced(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
             on_progress: Callable[[int, int], None] | None,
             should_stop: Callable[[], bool] | None, on_partial: Partial | None = None) -> dict[str, pl.DataFrame]:
    low, high = settings["smallest_suit"], settings["largest_suit"]
    if low > high:
        raise InputError(f"smallest_suit {low} is above largest_suit {high}; give smallest_suit <= largest_suit")
    rules = {"players": settings["players"], "die_faces": settings["die_faces"], "games": settings["games"],
             "seed": seed}
    if on_partial is None or not settings["games"]:  # exact only: no game to count, nothing worth streaming
        return {"odds": analysis.reduced_deck_table(range(low, high + 1), **rules)}
    # streamed: one suit size at a time, smallest first (the same rows: each suit size is computed on its own)
    suits, games = list(range(low, high + 1)), settings["games"]
    feed, parts = PartialFeed(on_partial, games * len(suits)), []
    for suit in suits:
        parts.append(analysis.reduced_deck_table([suit], **rules))
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


def _full_deck(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
               on_progress: Callable[[int, int], None] | None,
               should_stop: Callable[[], bool] | None) -> dict[str, pl.DataFrame]:
    allowed = model.param("players")
    counts = [allowed.validate(x, "setting 'players'") for x in settings["players"].replace(" ", "").split(",") if x]
    if not counts:
        raise InputError("setting 'players': give at least one number of players, e.g. 2,3")
    others = {k: v for k, v in params.items() if k != "players" and v != model.param(k).default}
    frames = []
    for i, n in enumerate(counts):
        summary = analysis.full_deck_summary(n, settings["games"], seed=seed, **others)
        frames.append(summary.select(pl.lit(n, pl.Int64).alias("players"), pl.all()))
        if on_progress is not None:
            on_progress((i + 1) * settings["games"], len(counts) * settings["games"])
    return {"summary": pl.concat(frames)}


_FACES = Param("die_faces", 6, int, "faces of the die", 2, 20)
STUDIES = (
    Study("reduced_decks", "Exact odds of random play on reduced decks, beside a simulation", _reduced, (
        Param("smallest_suit", 2, int, "smallest suit size", 2, 7),
        Param("largest_suit", 6, int, "largest suit size (exact enumeration grows fast: 7 takes seconds)", 2, 7),
        Param("players", 2, int, "players", 2, 3), _FACES,
        Param("games", 100_000, int, "simulated games per suit size (0: exact only)", 0, 10**8),
    ), help="Exact probabilities as fractions, and the simulated rates with their 95 % intervals.",
          game_params=False),
    Study("equilibrium", "Equilibrium play (two players) and what the heuristics lose", _equilibrium, (
        Param("suit_size", 4, int, "suit size (the solve grows fast: 6 takes about a minute)", 2, 6), _FACES,
    ), _equilibrium_charts, "Backward induction with one linear program per state.", game_params=False),
    Study("convergence", "Why the simulation agrees with the exact answer: the estimate as games accumulate",
          _convergence, (
              Param("p", 0.5, float, "chance the Builder wins a round (streak model)", 0.0, 1.0),
              _FACES, Param("rounds", 14, int, "rounds in a game", 2, 30), Param("players", 2, int, "players", 2, 4),
              Param("games", 1_000_000, int, "simulated games", 10, 10**8),
              Param("event", "six_win", str, "the event estimated: a six-win, or a longest streak of 3 or more",
                    choices=("six_win", "streak3")),
          ), _convergence_charts, "The running estimate with its 95 % interval against the exact value of the "
          "streak model; on the log-log panel the error falls like 1/sqrt(n).", game_params=False),
    Study("full_deck", "The real game on the full deck: random players, simulated", _full_deck, (
        Param("players", "2,3", str, "numbers of players to play, comma-separated (2 to 4)"),
        Param("games", 1_000_000, int, "games per number of players", 1, 10**9),
    ), help="Six-win, win and draw rates (Wilson intervals) and mean scores and streaks (normal intervals); the "
       "game parameters set the deck and the die."),
)
