"""The duel's declared studies (``MODEL.studies`` names ``STUDIES``) and its default study.

* ``battlefields``: first-seat win rate (Wilson interval, n), game length and end reasons per
  battlefield × deck for one agent pairing, every cell on the same master seed;
* ``default_study``: every battlefield × deck × first seat, greedy vs greedy — the benchmark's and
  report's headline grid.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from workbench.core.errors import InputError
from workbench.core.model import GameModel, Param
from workbench.core.runner import check_games
from workbench.core.study import Study
from workbench.core.sweep import run_grid
from workbench.games.duel import analysis
from workbench.games.duel.model import BATTLEFIELD_KEYS


def _choices(text: str, allowed: tuple[str, ...], what: str) -> list[str]:
    """``"all"`` or a comma list, each checked; at least one."""
    items = list(allowed) if text.strip() == "all" else [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise InputError(f"choose at least one {what}; allowed: all, {', '.join(allowed)}")
    bad = [t for t in items if t not in allowed]
    if bad:
        raise InputError(f"unknown {what} {bad[0]!r}; allowed: all, {', '.join(allowed)}")
    return items


def _battlefields(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
                  on_progress: Callable[[int, int], None] | None,
                  should_stop: Callable[[], bool] | None) -> dict[str, pl.DataFrame]:
    fields = _choices(settings["battlefields"], BATTLEFIELD_KEYS, "battlefield")
    decks = _choices(settings["decks"], ("regular", "unlimited"), "deck")
    pairing = tuple(a.strip() for a in settings["agents"].split(","))
    fixed = {k: v for k, v in params.items() if k not in ("battlefield", "deck") and v != model.param(k).default}
    frame = analysis.run_grid(fields, decks, [pairing], settings["games"], seed, params=fixed, workers=workers,
                              on_progress=on_progress, should_stop=should_stop)
    return {"first_seat": analysis.balance_table(frame), "length": analysis.length_table(frame),
            "end_reasons": analysis.end_reason_table(frame), "games": frame}


def _battlefield_charts(tables: dict[str, pl.DataFrame]) -> dict[str, Any]:
    return analysis.battlefield_charts(tables["games"])


STUDIES = (
    Study("battlefields", "First-seat advantage per battlefield and deck", _battlefields, (
        Param("games", 2000, int, "games per battlefield × deck", 1, 10**8),
        Param("battlefields", "all", str, f"'all' or a comma list of: {', '.join(BATTLEFIELD_KEYS)}"),
        Param("decks", "regular,unlimited", str, "'all' or a comma list of: regular, unlimited"),
        Param("agents", "greedy,greedy", str, "the pairing, one agent per seat (e.g. greedy,random)"),
    ), _battlefield_charts, "Every cell on the same master seed (common random numbers); the game parameters set "
       "everything else (miss rate, variants, levers)."),
)


def default_study(games_per_seating: int = 10_000, workers: int = 2, seed: int = 0,
                  agents: tuple[str, str] = ("greedy", "greedy")) -> pl.DataFrame:
    """Every battlefield × deck type × first seat, greedy vs greedy, in one frame.

    Core's grid runner on the fast engine: all 32 cells' chunks on ``workers`` threads (the
    kernel runs without the GIL), so no worker process is started.
    """
    games = check_games(games_per_seating)
    grid = {"battlefield": list(BATTLEFIELD_KEYS), "deck": ["regular", "unlimited"], "first": ["p1", "p2"]}
    return run_grid("duel", grid, games, agents=list(agents), seed=seed, workers=workers, engine="fast",
                    chunk_size=-(-games // 4), progress=False)
