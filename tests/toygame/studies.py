"""The coin race's own study (the model's ``studies = "…studies:STUDIES"``): the question a designer asks.

Copy this file to ``workbench/games/<name>/studies.py`` and write your game's questions.  A
:class:`~workbench.core.studies.study.Study` is a name, a title, settings declared as ``Param`` objects
(every front end — CLI flags, the studies notebook, the studio's form — is built from them), a run
function settings → tables, and a chart function tables → charts.  Core adds its generic studies
(``outcomes``, ``balance``) before the game's own, so declare only what is particular to the game.

``edge``: the first mover's win rate as the coin's edge changes, every edge on the same seeds
(common random numbers), each rate with its n and 95 % interval.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from workbench.core.errors import InputError
from workbench.core.model import GameModel, Param
from workbench.core.present import charts
from workbench.core.sim.sweep import run_grid
from workbench.core.stats import metrics
from workbench.core.studies.study import Study

EDGES = Param("edges", "0,0.25,0.5,0.75,1", str, "the coin's edges to play, comma-separated numbers in [0, 1]")
GAMES = Param("games", 2000, int, "games per edge", 10, 10**8)
AGENTS = Param("agents", "greedy,greedy", str, "one agent per seat, comma-separated (random, greedy)")


def parse_edges(text: str) -> list[float]:
    """``"0.1, 0.5"`` → ``[0.1, 0.5]``; anything else is an error naming the setting and what is allowed."""
    try:
        edges = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        edges = []
    if not edges or any(not 0.0 <= e <= 1.0 for e in edges):
        raise InputError(f"setting 'edges': {text!r}; allowed: comma-separated numbers in [0, 1], e.g. 0.2,0.8")
    return sorted(set(edges))


def run_edge(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
             on_progress: Callable[[int, int], None] | None,
             should_stop: Callable[[], bool] | None) -> dict[str, pl.DataFrame]:
    """Play ``games`` games per edge through core's grid runner; the first mover's rate per edge."""
    fixed = {k: v for k, v in params.items() if k != "edge" and v != model.param(k).default}
    frame = run_grid(model, {"edge": parse_edges(settings["edges"])}, settings["games"], params=fixed,
                     agents=settings["agents"], seed=seed, workers=workers, progress=False,
                     on_progress=on_progress, should_stop=should_stop)
    table = metrics.first_mover(frame, "edge").select(
        "edge", pl.col("first_mover_all_n").alias("n"), pl.col("first_mover_all").alias("rate"),
        pl.col("first_mover_all_low").alias("low"), pl.col("first_mover_all_high").alias("high"))
    length = frame.group_by("edge").agg(pl.col("length").mean().alias("mean_length")).sort("edge")
    return {"first_mover": table.join(length, on="edge"), "games": frame}


def edge_charts(tables: dict[str, pl.DataFrame]) -> dict[str, Any]:
    """The first mover's win rate per edge, with its intervals."""
    table = tables["first_mover"].with_columns(pl.col("edge").cast(pl.String))
    return {"first_mover": charts.rate_chart(table, "edge", reference=0.5, title="First mover's win rate by the "
                                             "coin's edge", y_title="first mover wins")}


STUDIES = (
    Study("edge", "First mover's win rate as the coin's edge changes", run_edge, (EDGES, GAMES, AGENTS), edge_charts,
          "Every edge on the same seeds; each rate with its n and 95 % interval."),
)
