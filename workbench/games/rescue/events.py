"""The Dragon and tower-trophy studies (``STUDIES``): exact odds beside seeded simulations.

* ``dragon``: the round the Dragon appears (exact 1/6 each) and who takes its trophy, for 2–6
  players with per-round catch probabilities (``dragon.py`` documents the model);
* ``trophies``: who takes a colour's trophy for given build propensities, exact multinomial odds
  beside a race of random or greedy builders (``trophies.py`` documents the model).

Both simulations are protocol models (``dragon.DRAGON``, ``trophies.TROPHIES``) run by core's
runner on ``workers`` processes; a stopped run's tables are those of the games it finished.  Every
simulated share carries its 99.9 % Wilson interval and n; charts show the exact probabilities as
bars and the simulated shares as points with their intervals.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from workbench.core.lazy import lazy
from workbench.core.model import GameModel, Param
from workbench.core.studies.study import Study
from workbench.games.rescue import dragon, trophies

alt = lazy("altair")  # imported when the first chart is drawn: a page that draws none never loads it

EXACT_COLOUR, SIM_COLOUR = "#1f77b4", "#d62728"
Progress = Callable[[int, int], None] | None
Stop = Callable[[], bool] | None


def distribution_chart(frame: pl.DataFrame, x: str, title: str = "", x_title: str = "") -> alt.LayerChart:
    """Exact probabilities as bars, the simulated shares as points with interval bars."""
    base = alt.Chart(frame).encode(x=alt.X(f"{x}:O", title=x_title or x, sort=None))
    bars = base.mark_bar(color=EXACT_COLOUR, opacity=0.5).encode(
        y=alt.Y("exact:Q", title="probability"),
        tooltip=[alt.Tooltip(f"{x}:O"), alt.Tooltip("exact:Q", format=".4f"), alt.Tooltip("simulated:Q", format=".4f"),
                 alt.Tooltip("low:Q", format=".4f"), alt.Tooltip("high:Q", format=".4f"), alt.Tooltip("n:Q")])
    rules = base.mark_rule(color=SIM_COLOUR).encode(y="low:Q", y2="high:Q")
    points = base.mark_point(color=SIM_COLOUR, filled=True, size=30).encode(y="simulated:Q")
    return alt.layer(bars, rules, points).properties(title=title or "exact (bars) vs simulated (points, interval)",
                                                    width=360, height=220)


# -- the Dragon ---------------------------------------------------------------------------------------
def _dragon(model: GameModel | None, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
            on_progress: Progress, should_stop: Stop) -> dict[str, pl.DataFrame]:
    return dragon.tables(settings["catch"], settings["rounds"], settings["games"], seed, settings["players"],
                         on_progress=on_progress, should_stop=should_stop, workers=workers)


def _dragon_charts(tables: dict[str, pl.DataFrame]) -> dict[str, Any]:
    return {"appearance": distribution_chart(tables["appearance"], "round", "Round the Dragon appears (99.9 % "
                                             "intervals)", "round"),
            "trophy": distribution_chart(tables["trophy"], "outcome", "Who takes the Dragon trophy (99.9 % "
                                         "intervals)", "trophy goes to")}


# -- tower trophies -----------------------------------------------------------------------------------
def _trophies(model: GameModel | None, settings: dict[str, Any], params: dict[str, Any], *, seed: int,
              workers: int, on_progress: Progress, should_stop: Stop) -> dict[str, pl.DataFrame]:
    return trophies.tables(settings["propensities"], settings["games"], seed, settings["players"],
                           settings["strategies"], settings["colours"], on_progress=on_progress,
                           should_stop=should_stop, workers=workers)


def _trophies_charts(tables: dict[str, pl.DataFrame]) -> dict[str, Any]:
    table = tables["trophy"]
    note = "" if table["exact_applies"].all() else " — greedy builders: exact is the random-builder model"
    return {"trophy": distribution_chart(table, "outcome", f"Who takes a colour's trophy (99.9 % intervals){note}",
                                         "trophy goes to")}


_PLAYERS = Param("players", 4, int, "players", 2, 6)
_GAMES = Param("games", 20_000, int, "games to simulate", 1, 10**8)
STUDIES = (
    Study("dragon", "The Dragon: the round it appears and who takes its trophy", _dragon, (
        _PLAYERS,
        Param("catch", "0.3", str, "per-round chance each player catches the Dragon once it is out: one value for "
              "all players or a comma list (fractions like 1/3 allowed)"),
        Param("rounds", 12, int, "last round played (none: the race runs until decided)", 1, dragon.MAX_ROUNDS,
              optional=True),
        _GAMES,
    ), _dragon_charts, "Exact odds (Fractions, dynamic programming over rounds) beside a seeded simulation with "
          "99.9 % Wilson intervals; two or more catching it in the same round take nothing.", game_params=False),
    Study("trophies", "Tower trophies: who takes a colour's trophy", _trophies, (
        _PLAYERS,
        Param("propensities", "1", str, "build propensity per player (normalised): one value for all or a comma "
              "list such as 1,1,2"),
        Param("strategies", "random", str, "colour choice per player: random or greedy, one for all or a comma "
              "list (exact odds apply to random builders)"),
        Param("colours", 4, int, "tower colours in the race (5 tokens each)", 1, trophies.MAX_COLOURS),
        _GAMES,
    ), _trophies_charts, "Exact multinomial odds over a colour's 5 tokens beside a seeded race of builders with "
          "99.9 % Wilson intervals; a tie for most gives nobody the trophy.", game_params=False),
)
