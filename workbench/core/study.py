"""Studies, game commands and reports by declaration: what the CLI, notebooks and the app discover.

A :class:`Study` is a named question with its settings declared as ``Param`` objects (so every
front end builds its form from them), a function settings → tables (polars frames, each rate
with its interval and n) and a function tables → charts.  Every game has core's generic studies
(:func:`generic_studies`: seat win rates, first mover, end reasons and durations for any agents
and any of the game's parameters) before the studies it declares itself (``GameModel.studies``).

While a study runs it may stream: a run function that takes ``on_partial`` is called with
``on_partial(tables, done, total)`` (:data:`Partial`) whenever cells finish — the tables of the
finished cells, ``done`` of ``total`` games — so the studio shows a first table long before the
last cell; a partial table is never a final one (the final tables are the run's return value).
:meth:`Study.execute` passes ``on_partial`` only to a run function that accepts it (the CLI passes
none).  :func:`play_grid` (a grid of cells, core's ``sweep.run_grid``) and :func:`play_games` (one
cell, core's ``simulate``, in growing waves of games) stream any study built on them: the first
cell (or a small first wave) first, each partial computed by the study's own table function from
the games of the finished cells (:func:`outcome_tables` when it gives none), at most one every
:data:`PARTIAL_EVERY` seconds (:class:`PartialFeed`); without ``on_partial`` they are the one
plain call, so a run's frame is the same either way.

A :class:`Command` is a game-specific CLI command (the duel's ``shuffle``): the game declares how
to parse it and what it does; the CLI only finds it.

A game's report is ``GameModel.report`` ("module:function", called ``fn(out_dir, quick=, seed=)``)
or, when it declares none, :func:`generic_report`: the generic studies for its declared agents,
written by ``core/report.py``.
"""

from __future__ import annotations

import argparse
import inspect
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core import charts, metrics
from workbench.core.errors import InputError, RunInterrupted
from workbench.core.model import GameModel, Param, get_game
from workbench.core.partial import PARTIAL_EVERY, Partial, PartialFeed, Tables  # noqa: F401 (re-exported)
from workbench.core.refs import resolve_ref

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Study:
    """A declared study.

    ``run(model, settings, params, *, seed, workers, on_progress, should_stop)`` returns named
    tables (a run function that also takes ``on_partial`` streams the tables of its finished cells:
    see the module docstring); ``settings`` are the study's own knobs (validated against ``settings``) and ``params``
    the game's parameters (validated by the model) when ``game_params`` is true.  ``charts(tables)``
    returns named altair charts.  ``size(settings, params)``, when declared, is the number of games
    a run plays in all (cells × seatings × games), known before it runs: the studio shows it with an
    estimated time before Run (:meth:`games_in_all`).  ``replaces`` names the game parameters the
    study's own settings stand in for (the duel's ``battlefields`` setting for its ``battlefield``
    parameter): the study ignores them, so a form hides them.
    """

    name: str
    title: str
    run: Callable[..., Tables]
    settings: tuple[Param, ...] = ()
    charts: Callable[[Tables], dict[str, Any]] | None = None
    help: str = ""
    game_params: bool = True
    size: Callable[[dict[str, Any], dict[str, Any]], int] | None = None
    replaces: tuple[str, ...] = ()

    def games_in_all(self, settings: dict[str, Any] | None = None, params: dict[str, Any] | None = None) -> int | None:
        """Games a run of ``settings`` plays in all, before it runs (None: the study does not declare its size)."""
        if self.size is None:
            return None
        return int(self.size(self.resolve(settings), dict(params or {})))

    def resolve(self, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
        """Every setting validated, defaults filled in; an unknown one is an :class:`InputError`."""
        overrides = dict(overrides or {})
        known = {p.name: p for p in self.settings}
        for key in overrides:
            if key not in known:
                raise InputError(f"study {self.name!r}: unknown setting {key!r}; allowed: {', '.join(known) or 'none'}")
        return {name: p.validate(overrides.get(name, p.default), f"setting {name!r}") for name, p in known.items()}

    def execute(self, game: str | GameModel, settings: dict[str, Any] | None = None,
                params: dict[str, Any] | None = None, *, seed: int = 0, workers: int = 1,
                on_progress: Progress | None = None, should_stop: Callable[[], bool] | None = None,
                on_partial: Partial | None = None) -> Tables:
        """Validate everything first, then run; returns the tables.

        ``on_partial(tables, done, total)``, when given, receives the tables of the cells finished so
        far while the study runs (only a study whose run function takes ``on_partial`` emits them:
        :attr:`streams`).
        """
        model = get_game(game)
        resolved = self.resolve(settings)
        game_params = model.resolve_params(params) if self.game_params else {}
        if not self.game_params and params:
            raise InputError(f"study {self.name!r} takes no game parameters; give settings: "
                             f"{', '.join(p.name for p in self.settings)}")
        extra = {"on_partial": on_partial} if on_partial is not None and self.streams else {}
        return self.run(model, resolved, game_params, seed=seed, workers=workers, on_progress=on_progress,
                        should_stop=should_stop, **extra)

    @property
    def streams(self) -> bool:
        """True when the run function takes ``on_partial``: it shows the tables of finished cells while it runs."""
        try:
            return "on_partial" in inspect.signature(self.run).parameters
        except (TypeError, ValueError):  # a callable without a signature: it does not stream
            return False

    def make_charts(self, tables: Tables) -> dict[str, Any]:
        """The study's charts of ``tables`` (none when it declares none)."""
        return self.charts(tables) if self.charts is not None else {}


@dataclass(frozen=True)
class Command:
    """A game-specific CLI command: ``add_arguments(parser)`` then ``run(args) -> exit status``."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


# -- streaming: the tables of the cells finished so far --------------------------------------------------
def _stacked(frames: Sequence[pl.DataFrame]) -> pl.DataFrame | None:
    from workbench.core.sweep import _concat  # the grid runner's own stacking: the same frame as one run

    return _concat([f for f in frames if f is not None and f.height])


def play_grid(model: str | GameModel, grid: dict[str, Any] | None, games: int, *, params: dict[str, Any] | None = None,
              agents: Any = None, lineups: Sequence[Any] | None = None, seed: int = 0, workers: int = 1,
              engine: str | None = None, chunk_size: int | None = None, on_progress: Progress | None = None,
              should_stop: Callable[[], bool] | None = None, on_partial: Partial | None = None,
              tables: Callable[[pl.DataFrame], Tables] | None = None,
              group: Callable[[dict[str, Any], Any], Any] | None = None) -> pl.DataFrame:
    """Core's grid runner (``sweep.run_grid``, in memory), streaming the tables of finished cells.

    Without ``on_partial`` it is one ``run_grid`` call.  With it, the cells (grid × lineups) are
    played one at a time (each on all ``workers``), grouped by ``group(cell, lineup)`` — cells with
    one key finish together (Babylon's A vs B and B vs A), groups in the order of their first cell —
    and after every group ``tables(frame of the finished cells)`` is offered to ``on_partial``
    (:class:`PartialFeed`; default :func:`outcome_tables` per varying key).  The returned frame is
    the one ``run_grid`` returns (rows in cell order); a stop raises :class:`RunInterrupted` with
    the finished games in cell order, as ``run_grid`` does.
    """
    from workbench.core.runner import iter_grid
    from workbench.core.sweep import check_grid, run_grid

    model = get_game(model)
    common = {"params": params, "seed": seed, "workers": workers, "engine": engine, "chunk_size": chunk_size,
              "progress": False, "should_stop": should_stop}
    if on_partial is None:
        return run_grid(model, grid, games, agents=agents, lineups=lineups, on_progress=on_progress, **common)
    if lineups is not None and agents is not None:
        raise InputError("give agents (one lineup) or lineups (several), not both")
    cells = [(cell, lineup) for cell in iter_grid(check_grid(grid, model))
             for lineup in (list(lineups) if lineups is not None else [None])]
    total = games * len(cells)
    order: dict[Any, list[int]] = {}
    for i, (cell, lineup) in enumerate(cells):
        order.setdefault(group(cell, lineup) if group is not None else i, []).append(i)
    keys = [*(grid or {}), *(["lineup"] if lineups is not None else [])]
    table_of = tables or (lambda frame: outcome_tables(frame, [k for k in keys if k in frame.columns]))
    feed = PartialFeed(on_partial, total)
    played: dict[int, pl.DataFrame] = {}

    def finished(extra: dict[int, pl.DataFrame] | None = None) -> pl.DataFrame | None:
        both = {**played, **(extra or {})}
        return _stacked([both[i] for i in sorted(both)])

    def interrupted(extra: dict[int, pl.DataFrame] | None = None) -> RunInterrupted:
        frame = finished(extra)
        return RunInterrupted(frame, 0 if frame is None else frame.height, total)

    groups = list(order.values())
    for g, members in enumerate(groups):
        for i in members:
            cell, lineup = cells[i]
            before = sum(f.height for f in played.values())

            def tick(done: int, _total: int, before: int = before) -> None:
                if on_progress is not None:
                    on_progress(before + done, total)

            one = {k: [v] for k, v in cell.items()}
            who = {"lineups": [lineup]} if lineups is not None else {"agents": agents}
            try:
                played[i] = run_grid(model, one, games, on_progress=tick, **who, **common)
            except RunInterrupted as exc:
                raise interrupted({i: exc.partial} if exc.partial is not None else None) from None
        done = sum(f.height for f in played.values())
        if g + 1 < len(groups) and should_stop is not None and should_stop():
            raise interrupted()
        feed.offer(lambda: table_of(finished()), done)
    return finished()


def play_games(model: str | GameModel, games: int, *, params: dict[str, Any] | None = None, agents: Any = None,
               seed: int = 0, workers: int = 1, engine: str | None = None, on_progress: Progress | None = None,
               should_stop: Callable[[], bool] | None = None, on_partial: Partial | None = None,
               tables: Callable[[pl.DataFrame], Tables] | None = None, first: int = 250,
               wave_seconds: float = 4.0) -> pl.DataFrame:
    """Core's ``simulate`` of one cell, streaming the tables of the games finished so far.

    Without ``on_partial`` it is one ``simulate`` call.  With it, the games are played in waves of
    consecutive game indices (game ``i`` always has the same seed, so the frame is the one a single
    run returns): ``first`` games, then waves that double, each at most about ``wave_seconds`` at the
    rate measured so far; after every wave ``tables(frame so far)`` (default :func:`outcome_tables`)
    is offered to ``on_partial``.  ``on_progress(done, games)`` counts games; a stop raises
    :class:`RunInterrupted` with the finished games, as ``simulate`` does.
    """
    from workbench.core.runner import check_games, simulate

    games = check_games(games)
    common = {"params": params, "agents": agents, "seed": seed, "workers": workers, "engine": engine,
              "progress": False, "should_stop": should_stop}
    done = 0

    def tick(n: int) -> None:
        nonlocal done
        done += n
        if on_progress is not None:
            on_progress(done, games)

    if on_partial is None:
        return simulate(model, games, on_progress=tick, **common)
    table_of = tables or outcome_tables
    feed = PartialFeed(on_partial, games)
    frames: list[pl.DataFrame] = []
    start, size, began = 0, max(1, first), time.monotonic()
    while start < games:
        wave = min(size, games - start)
        try:
            frames.append(simulate(model, wave, start=start, on_progress=tick, **common))
        except RunInterrupted as exc:
            kept = pl.concat([*frames, *([exc.partial] if exc.partial is not None else [])], how="vertical") \
                if frames or exc.partial is not None else None
            raise RunInterrupted(kept, 0 if kept is None else kept.height, games) from None
        start += wave
        if start < games and should_stop is not None and should_stop():
            kept = pl.concat(frames, how="vertical")
            raise RunInterrupted(kept, kept.height, games)
        feed.offer(lambda: table_of(pl.concat(frames, how="vertical")), start)
        rate = start / max(1e-9, time.monotonic() - began)
        size = max(first, min(2 * size, int(rate * wave_seconds)))
    return pl.concat(frames, how="vertical")


# -- the generic studies -----------------------------------------------------------------------------
def outcome_tables(frame: pl.DataFrame, by: list[str] | None = None) -> Tables:
    """Seat win rates, first mover, end reasons and duration of a result frame (each rate with interval, n)."""
    by = by or []
    return {"seats": metrics.seat_win_rates(frame, by or None), "first_mover": metrics.first_mover(frame, by or None),
            "end_reasons": metrics.end_reasons(frame, by or None), "duration": metrics.duration(frame, by or None)}


def _outcomes(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
              on_progress: Progress | None, should_stop: Callable[[], bool] | None,
              on_partial: Partial | None = None) -> Tables:
    frame = play_games(model, settings["games"], params=params, agents=settings["agents"] or None, seed=seed,
                       workers=workers, on_progress=on_progress, should_stop=should_stop, on_partial=on_partial,
                       tables=lambda part: {**outcome_tables(part), "games": part})
    return {**outcome_tables(frame), "games": frame}


def _outcome_charts(tables: Tables) -> dict[str, Any]:
    seats = tables["seats"]
    n_seats = max(1, seats.height)
    out = {"seat_win_rates": charts.rate_chart(seats, "seat", reference=1 / n_seats, title="Win rate per seat",
                                               y_title="win rate")}
    if "games" in tables:
        out["length"] = charts.histogram(tables["games"], "length", title="Game length")
    out["end_reasons"] = charts.rate_chart(tables["end_reasons"], "reason", reference=None,
                                           title="How games end", y_title="share of games")
    return out


GAMES_SETTING = Param("games", 2000, int, "games to play", 1, 10**9)


def _balance(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
             on_progress: Progress | None, should_stop: Callable[[], bool] | None) -> Tables:
    from workbench.core.balance import auto_balance

    evals = {"n": 0}

    def tick(n: int) -> None:
        evals["n"] += n
        if on_progress is not None:
            on_progress(evals["n"], settings["games"] * settings["evaluations"])

    fixed = {k: v for k, v in params.items() if k != settings["param"] and v != model.param(k).default}
    result = auto_balance(model, settings["param"], settings["low"], settings["high"], fixed,
                          seat=settings["seat"], agents=settings["agents"], games=settings["games"], seed=seed,
                          target=settings["target"], max_evals=settings["evaluations"], workers=workers,
                          on_progress=tick, should_stop=should_stop)
    estimate = pl.DataFrame({"param": [result.param], "target": [result.target], "found": [result.found],
                             "value": [result.value], "value_low": [result.value_low],
                             "value_high": [result.value_high], "best": [result.best],
                             "best_rate": [result.best_rate], "best_rate_low": [result.best_low],
                             "best_rate_high": [result.best_high], "summary": [result.summary()]})
    return {"estimate": estimate, "points": result.points}


def _balance_charts(tables: Tables) -> dict[str, Any]:
    est = tables["estimate"].row(0, named=True)
    data = tables["points"].with_columns(pl.col("value").alias(est["param"]))
    return {"balance": charts.rate_chart(data, est["param"], reference=est["target"],
                                         title=f"Auto-balance of {est['param']}", y_title="win rate")}


def generic_studies(model: GameModel) -> tuple[Study, ...]:
    """The studies every game has, whatever it declares."""
    agents = Param("agents", None, str, f"one agent per seat, comma-separated; allowed: {', '.join(model.agents)} "
                   "(none: the game's defaults)", optional=True)
    studies = [Study("outcomes", "Win rates, first mover, end reasons and game length", _outcomes,
                     (GAMES_SETTING, agents), _outcome_charts,
                     "Plays the game with the given agents and parameters; every rate with its 95 % interval.",
                     size=lambda settings, _params: settings["games"])]
    numeric = tuple(p.name for p in model.params if p.kind in (int, float) and p.low is not None
                    and p.high is not None and not p.optional)
    if numeric:
        first = numeric[0]
        seats = tuple(f"p{i + 1}" for i in range(model.max_players))
        studies.append(Study("balance", "Auto-balance: the value of a parameter that makes a seat's win rate fair",
                             _balance, (
                                 Param("param", first, str, "the numeric parameter to search", choices=numeric),
                                 Param("low", float(model.param(first).low), float, "lowest value to try"),
                                 Param("high", float(model.param(first).high), float, "highest value to try"),
                                 Param("seat", None, str, "the seat whose win rate is balanced (none: the first "
                                       "mover's)", choices=seats, optional=True),
                                 Param("target", 0.5, float, "the win rate to reach", 0.0, 1.0),
                                 Param("games", 2000, int, "games per value tried (same seeds for every value)",
                                       10, 10**8),
                                 Param("evaluations", 8, int, "values to try at most", 2, 40), agents),
                             _balance_charts, "A bracketing search on common random numbers; the estimate comes "
                             "with the values compatible with the target.",
                             size=lambda settings, _params: settings["games"] * settings["evaluations"]))
    from workbench.core.cardplay import dead_cards_study  # these modules never import study.py
    from workbench.core.ladder import study_declaration
    from workbench.core.readings import readings_study
    from workbench.core.tiers import skill_study
    from workbench.core.verdicts import verdicts_study

    studies.append(Study(**study_declaration(model)))
    studies += [Study(**found) for found in (skill_study(model), verdicts_study(model), dead_cards_study(model),
                                             readings_study(model)) if found is not None]
    return tuple(studies)


def _as_tuple(value: Any) -> tuple:
    value = resolve_ref(value)
    if value is None:
        return ()
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def studies(game: str | GameModel) -> tuple[Study, ...]:
    """Core's generic studies, then the game's own (a game's study may replace a generic one by name)."""
    model = get_game(game)
    own = _as_tuple(model.studies)
    names = {s.name for s in own}
    return tuple(s for s in generic_studies(model) if s.name not in names) + own


def get_study(game: str | GameModel, name: str) -> Study:
    """The study ``name`` of ``game``."""
    found = {s.name: s for s in studies(game)}
    if name not in found:
        raise InputError(f"{get_game(game).name}: unknown study {name!r}; allowed: {', '.join(found)}")
    return found[name]


# -- reports -------------------------------------------------------------------------------------------
def commands(game: str | GameModel) -> tuple[Command, ...]:
    """The game's own CLI commands."""
    return _as_tuple(get_game(game).commands)


def report_builder(game: str | GameModel) -> Callable[..., Path]:
    """The function that writes ``game``'s report: its declared one, else :func:`generic_report`."""
    model = get_game(game)
    if not model.report:
        return lambda out_dir, quick=False, seed=0: generic_report(model, out_dir, quick=quick, seed=seed)
    return resolve_ref(model.report)


def _lineups(model: GameModel) -> list[tuple[str, ...]]:
    """Random in every seat, then each other declared agent in each seat against random."""
    n = model.players(model.make_config(model.resolve_params()))
    lineups = [("random",) * n]
    for decl in model.agent_decls:
        if decl.name != "random":
            lineups += [tuple(decl.name if s == seat else "random" for s in range(n)) for seat in range(n)]
    return lineups


def generic_report(game: str | GameModel, out_dir: str | Path, quick: bool = False, seed: int = 0) -> Path:
    """Outcomes of every declared agent against random, at the default parameters, as a report."""
    from workbench.core.report import Report
    from workbench.core.runner import simulate

    model = get_game(game)
    games = 500 if quick else 5000
    lineups = _lineups(model)
    from workbench.core.progress import step

    frames = []
    for i, lineup in enumerate(lineups, 1):
        with step(f"{model.name} report {i}/{len(lineups)}: {games:,} games of {' vs '.join(lineup)}"):
            frames.append(simulate(model, games, agents=list(lineup), seed=seed, progress=False).with_columns(
                pl.lit(" vs ".join(lineup)).alias("lineup")))
    frame = pl.concat(frames, how="diagonal_relaxed")
    rep = Report(f"{model.title}: outcomes of its agents", {
        "rules_version": model.rules_version, "seed": seed, "games": f"{games} per lineup",
        "agents": "; ".join(" vs ".join(lineup) for lineup in lineups), "quick": quick})
    outcome_sections(rep, frame, games)
    return rep.write(out_dir)


def outcome_sections(rep: Any, frame: pl.DataFrame, games: int) -> None:
    """The outcome sections of a report over a frame with a ``lineup`` column.

    Seat win rates (table and chart), first mover, end reasons, game length (table and chart); ``rep`` is a
    ``core.report.Report``.
    """
    tables = outcome_tables(frame, ["lineup"])
    rep.section("Win rates per seat", f"{games} games per lineup at the default parameters; every rate with its "
                "95 % Wilson interval and n.")
    rep.table("seat_win_rates", tables["seats"])
    rep.chart("seat_win_rates_chart", charts.rate_chart(tables["seats"], "seat", color="lineup", reference=None,
                                                  title="Win rate per seat and lineup", y_title="win rate"))
    rep.section("First mover")
    rep.table("first_mover", tables["first_mover"])
    rep.section("How games end")
    rep.table("end_reasons", tables["end_reasons"])
    rep.section("Game length")
    rep.table("duration", tables["duration"])
    rep.chart("length_chart", charts.histogram(frame, "length", color="lineup", normalize=True, title="Game length"))
