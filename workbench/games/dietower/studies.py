"""Tower of Babel (die streak): its declared studies (``MODEL.studies`` names ``STUDIES``).

* ``reduced_decks``: exact odds of random play on reduced decks (fractions) beside a simulation
  with Wilson / normal intervals — the teaching table;
* ``equilibrium``: the equilibrium of the two-player game by backward induction with one LP per
  state: first-round strategy, game value, and what each heuristic agent loses against it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from workbench.core.errors import InputError
from workbench.core.model import GameModel, Param
from workbench.core.study import Study
from workbench.games.dietower import analysis


def _reduced(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
             on_progress: Callable[[int, int], None] | None,
             should_stop: Callable[[], bool] | None) -> dict[str, pl.DataFrame]:
    low, high = settings["smallest_suit"], settings["largest_suit"]
    if low > high:
        raise InputError(f"smallest_suit {low} is above largest_suit {high}; give smallest_suit <= largest_suit")
    table = analysis.reduced_deck_table(range(low, high + 1), players=settings["players"],
                                        die_faces=settings["die_faces"], games=settings["games"], seed=seed)
    return {"odds": table}


def _equilibrium(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
                 on_progress: Callable[[int, int], None] | None,
                 should_stop: Callable[[], bool] | None) -> dict[str, pl.DataFrame]:
    return analysis.equilibrium_frames(settings["suit_size"], settings["die_faces"])


def _equilibrium_charts(tables: dict[str, pl.DataFrame]) -> dict[str, Any]:
    return {"strategy": analysis.equilibrium_chart(tables["strategy"], "First-round equilibrium strategy"),
            "losses": analysis.loss_chart(tables["losses"])}


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
)
