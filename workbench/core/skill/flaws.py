"""The structural-flaw check: does changing one weight of a default agent beat the default?

A default agent whose evaluation misvalues something loses to a copy of itself with that one
weight changed.  :func:`flaw_check` plays, for each declared float option (weight) of an agent
(``greedy``), a documented set of single-weight changes against the default agent, and flags a
weight where one change scores at least :data:`THRESHOLD` (65 %) on fresh seeds at n >= 2,000.

The candidates of a weight with default ``d`` (:func:`candidates`): ``d × 0``, ``× ½``, ``× 2``,
``× −1`` (a sign flip) and the value of the game's weight set ``tuned`` where it holds one (for
``d = 0``: ± 0.1 and ± 1 instead of the multiples); each is clipped to the option's declared range.
Every candidate plays the default on common seeds (:data:`SCREEN_STREAM` of ``seed``), ``screen``
games over the parameter cells, half of them with the seats swapped, a draw counting half (the
machinery :func:`workbench.core.skill.tune.tune` plays its candidates with, on the compiled engine where
it plays the agent).  The best change of each weight is then refined along its direction: the
points ``d + t (c − d)`` for t in :data:`REFINE_STEPS` play the same seeds.  Last, each weight's
strongest change plays ``confirm`` (>= 2,000) games on fresh seeds (:data:`CONFIRM_STREAM`), and
that game count, score and 95 % Wilson interval are what the row reports: the screen picks, the
confirmation measures (its seeds took no part in the pick).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from typing import Any

import polars as pl

from workbench.core.errors import InputError
from workbench.core.model import AgentSpec, GameModel, Param, get_game, load_weight_set, weight_set_names
from workbench.core.rng import stream_seed
from workbench.core.sim.sweep import check_grid
from workbench.core.skill.tune import _cells, _interval, _play, _round, check_run_options, spec_text, tunable_options

__all__ = ["CONFIRM_MIN", "REFINE_STEPS", "THRESHOLD", "candidates", "checked_agents", "field_cells", "field_grid",
           "flaw_check", "flaws_found"]

THRESHOLD = 0.65  # a change that scores this much against the default is a flaw
CONFIRM_MIN = 2000  # the confirmation plays at least this many games per weight
SCREEN_STREAM, CONFIRM_STREAM, FIELD_STREAM = 0xF1A, 0xF1B, 0xF1C  # sub-streams of the check's seed
REFINE_STEPS = (0.25, 0.5, 0.75, 1.5, 2.0, 3.0)  # points d + t (c - d) along the best change's direction
ZERO_STEPS = (0.1, -0.1, 1.0, -1.0)  # the changes of a weight whose default is 0
TUNED = "tuned"  # the weight set whose values join the candidates


def candidates(option: Param, default: float, tuned: float | None = None) -> list[tuple[str, float]]:
    """``(label, value)`` of the single-weight changes screened for ``option`` (default ``default``).

    ``× 0``, ``× ½``, ``× 2`` and ``× −1`` of the default (± 0.1 and ± 1 for a default of 0), and the
    ``tuned`` set's value when given; clipped to the option's range, rounded like a tuned weight, and
    without the default itself or repeats.
    """
    if default == 0:
        raw = [(f"= {v:g}", v) for v in ZERO_STEPS]
    else:
        raw = [("× 0", 0.0), ("× ½", default / 2), ("× 2", default * 2), ("× −1 (sign flipped)", -default)]
    if tuned is not None:
        raw.append(("tuned set's value", float(tuned)))
    out: list[tuple[str, float]] = []
    for label, value in raw:
        value = _clip(option, value)
        if value != _round(default) and value not in {v for _, v in out}:
            out.append((label, value))
    return out


def _clip(option: Param, value: float) -> float:
    low = option.low if option.low is not None else -math.inf
    high = option.high if option.high is not None else math.inf
    return _round(min(high, max(low, value)))


def _refined(option: Param, default: float, best: float, played: set[float]) -> list[tuple[str, float]]:
    """The points along ``default → best`` not yet played (labelled by their multiple of the default)."""
    out = []
    for t in REFINE_STEPS:
        value = _clip(option, default + t * (best - default))
        if value not in played and value != _round(default):
            played.add(value)
            out.append((f"search: {_ratio(value, default)}" if default else f"search: = {value:g}", value))
    return out


def _ratio(value: float, default: float) -> str:
    return f"× {value / default:.3g}"


def field_grid(model: GameModel) -> dict[str, str]:
    """The game's field: every parameter whose choices are its named content at ``all``, the rest at defaults.

    Named content: the parameters that declare ``choice_names`` (the duel's battlefields, Babylon's decks).
    """
    return dict.fromkeys(model.choice_names, "all")


def checked_agents(model: GameModel, agent: str = "greedy") -> bool:
    """True when ``model`` declares ``agent`` with float options (weights) to check."""
    return any(d.name == agent and any(o.kind is float for o in d.options) for d in model.agent_decls)


def field_cells(model: GameModel, params: dict[str, Any] | Sequence[dict[str, Any]] | None = None,
                most: int | None = None, seed: int = 0) -> list[dict[str, Any]]:
    """The parameter cells played: a grid ``{param: value(s) or "all"}``, a list of parameter sets, or the defaults.

    A grid of more than ``most`` cells is played on a seeded sample of ``most`` of them (the
    sample's seed is sub-stream :data:`FIELD_STREAM` of ``seed``).
    """
    if params is None or isinstance(params, dict):
        grid = check_grid(params or {}, model)
        given = [dict(zip(grid, values, strict=True)) for values in itertools.product(*grid.values())]
    else:
        given = list(params)
    if most is not None and len(given) > most:
        picked = sorted(random.Random(stream_seed(seed, FIELD_STREAM)).sample(range(len(given)), most))
        given = [given[i] for i in picked]
    return _cells(model, given)


def _describe(model: GameModel, cells: list[dict[str, Any]]) -> str:
    """The cells in words: ``defaults``, or each parameter that differs from its default with its values.

    ``battlefield: all 8 (Crystal Garden, …)``; a value reads by its display name (:meth:`GameModel.choice_label`).
    """
    defaults = model.resolve_params({})
    parts = []
    for name in cells[0]:
        values = list(dict.fromkeys(c[name] for c in cells))
        if values != [defaults[name]]:
            labels = [model.choice_label(name, v) for v in values]
            shown = ", ".join(labels) if len(labels) <= 3 else ", ".join(labels[:3]) + ", …"
            choices = model.param(name).choices
            every = choices is not None and len(values) > 1 and set(values) == set(choices)
            parts.append(f"{name.replace('_', ' ')}: " + (f"all {len(values)} ({shown})" if every else shown))
    return f"{'; '.join(parts) or 'defaults'} ({len(cells)} cell{'s' * (len(cells) != 1)})"


def _tuned_values(model: GameModel, agent: str) -> dict[str, float]:
    if TUNED not in weight_set_names(model):
        return {}
    data = load_weight_set(model, TUNED)
    return dict(data.get("options", {})) if data.get("agent") == agent else {}


def _per_cell(games: int, cells: int) -> int:
    """Games per cell (even: half in each seat) so that the cells together play at least ``games``."""
    return 2 * math.ceil(games / (2 * cells))


def flaw_check(game: str | GameModel, agent: str = "greedy", *,
               params: dict[str, Any] | Sequence[dict[str, Any]] | None = None, most_cells: int | None = None,
               weights: Sequence[str] | None = None, seed: int = 0, screen: int = 1000, confirm: int = CONFIRM_MIN,
               refine: bool = True, engine: str | None = None, workers: int = 1, backend: str = "local",
               scheduler: str | None = None) -> pl.DataFrame:
    """One row per weight of ``agent``: its strongest single change against the default, confirmed.

    Args:
        game: the game (name or model).
        agent: the declared agent whose float options (weights) are checked.
        params: the parameter cells: a grid (``{"battlefield": "all"}``), a list of parameter sets, or
            None (the declared defaults).  Every candidate plays every cell equally.
        most_cells: play a seeded sample of at most this many cells of a larger grid.
        weights: the weights checked (default: every float option).
        seed: the check's seed (screen, confirmation and cell sample derive from it).
        screen: games per candidate in the screen (over all cells, half in each seat).
        confirm: games of each weight's strongest change on fresh seeds (at least 2,000).
        refine: search along each weight's best direction after the screen.
        engine: ``fast``, ``reference`` or None (the compiled engine where it plays the agent).
        workers: local workers (threads for compiled engines), or Dask workers.
        backend: ``local`` or ``dask``.
        scheduler: a Dask scheduler address.

    Returns:
        Columns ``game``, ``agent``, ``weight``, ``default``, ``changed`` (the confirmed value),
        ``candidate`` (how it was found), ``score`` (its score against the default, a draw as half) with
        ``score_low``/``score_high`` (95 % Wilson) and ``score_n`` (games), ``wins``, ``draws``,
        ``screen_score`` and ``screen_n``, ``flaw`` (score >= 0.65), ``params`` (the cells in words),
        ``engine``, ``seed`` and ``rules_version``.
    """
    model = get_game(game)
    decl = model.agent_decl(agent)
    check_run_options(workers=workers, seed=seed)
    sizes = ((screen, "screen", 2), (confirm, "confirm", CONFIRM_MIN)) + \
        (((most_cells, "most_cells", 1),) if most_cells is not None else ())
    for value, name, least in sizes:
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise InputError(f"{name} must be a whole number >= {least:,}, got {value!r}")
    options = tunable_options(decl, weights)
    cells = field_cells(model, params, most_cells, seed)
    engines = {model.resolve_engine(engine, (AgentSpec(agent),) * 2, cell) for cell in cells}
    used = "reference" if "reference" in engines else engines.pop()
    defaults = decl.resolve_options(AgentSpec(agent))
    tuned = _tuned_values(model, agent)

    def play(changes: list[tuple[str, float]], weight: str, games: int, stream: int) -> list[tuple]:
        lineups = [(spec_text(agent, {**defaults, weight: value}), agent, 0) for _, value in changes]
        return _play(model, lineups, cells, _per_cell(games, len(cells)), stream_seed(seed, stream), used,
                     workers, backend, scheduler, lambda n: None)

    rows = []
    for option in options:
        default = float(defaults[option.name])
        tried = candidates(option, default, tuned.get(option.name))
        results = play(tried, option.name, screen, SCREEN_STREAM) if tried else []
        best = max(range(len(tried)), key=lambda i: results[i][0], default=None)
        if refine and best is not None and results[best][0] > 0.5:  # a change that beats the default: search its way
            more = _refined(option, default, tried[best][1], {v for _, v in tried})
            tried, results = tried + more, results + (play(more, option.name, screen, SCREEN_STREAM) if more else [])
        rows.append(_confirmed(model, agent, option.name, default, tried, results, play, confirm))
    frame = pl.DataFrame(rows, schema=_SCHEMA)
    return frame.with_columns(pl.lit(_describe(model, cells)).alias("params"), pl.lit(used).alias("engine"),
                              pl.lit(seed, pl.Int64).alias("seed"), pl.lit(model.rules_version).alias("rules_version"))


_SCHEMA = {"game": pl.String, "agent": pl.String, "weight": pl.String, "default": pl.Float64,
           "changed": pl.Float64, "candidate": pl.String, "score": pl.Float64, "score_low": pl.Float64,
           "score_high": pl.Float64, "score_n": pl.Int64, "wins": pl.Int64, "draws": pl.Int64,
           "screen_score": pl.Float64, "screen_n": pl.Int64, "flaw": pl.Boolean}


def _confirmed(model: GameModel, agent: str, weight: str, default: float, tried: list[tuple[str, float]],
               results: list[tuple], play: Any, confirm: int) -> dict[str, Any]:
    """The weight's row: its best screened change played again on fresh seeds (no change: an empty row)."""
    row: dict[str, Any] = {"game": model.name, "agent": agent, "weight": weight, "default": default}
    if not tried:
        return {**row, "flaw": False}
    best = max(range(len(tried)), key=lambda i: results[i][0])
    label, value = tried[best]
    score, wins, draws, n = play([(label, value)], weight, confirm, CONFIRM_STREAM)[0]
    low, high = _interval(wins, draws, n)
    return {**row, "changed": value, "candidate": label, "score": score, "score_low": low, "score_high": high,
            "score_n": n, "wins": wins, "draws": draws, "screen_score": results[best][0],
            "screen_n": results[best][3], "flaw": score >= THRESHOLD}


def flaws_found(frame: pl.DataFrame) -> pl.DataFrame:
    """The rows of :func:`flaw_check` that are flaws."""
    return frame.filter(pl.col("flaw"))
