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
written by ``core/present/report.py``.
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

from workbench.core.errors import InputError, RunInterrupted, SettingError  # noqa: F401 (re-exported)
from workbench.core.model import GameModel, Param, get_game
from workbench.core.model.refs import resolve_ref
from workbench.core.present import charts
from workbench.core.sim.partial import PARTIAL_EVERY, Partial, PartialFeed, Tables  # noqa: F401 (re-exported)
from workbench.core.sim.stopping import watching
from workbench.core.stats import metrics
from workbench.core.stats.rates import preload_tests

Progress = Callable[[int, int], None]


class _Watch:
    """What a running study reported (its count of finished games, its last partial tables) and its Stop."""

    def __init__(self, on_progress: Progress | None, should_stop: Callable[[], bool] | None,
                 on_partial: Partial | None) -> None:
        self._progress, self._should_stop, self._partial = on_progress, should_stop, on_partial
        self.done = self.total = 0
        self.asked = False
        self.last: Tables | None = None  # the last partial tables the run streamed
        self.last_done = 0

    def progress(self, done: int, total: int) -> None:
        self.done, self.total = int(done), int(total)
        if self._progress is not None:
            self._progress(done, total)

    def stop(self) -> bool:
        if not self.asked and self._should_stop is not None and self._should_stop():
            self.asked = True
        return self.asked

    def partial(self, tables: Tables, done: int, total: int) -> None:
        self.last, self.last_done = tables, done
        if self._partial is not None:
            self._partial(tables, done, total)

    def interrupted(self, partial: Any, done: int, total: int) -> RunInterrupted:
        """The one form of a stopped run: what finished, the true count, the total asked."""
        # the total the run announced while it ran (what the page showed), else the one it stopped with
        return stopped(partial, max(done, self.done), self.total or total, self.last, self.last_done)


def stopped(partial: Any, done: int, total: int, last: Tables | None = None, last_done: int = 0) -> RunInterrupted:
    """A stopped run's :class:`RunInterrupted`: ``partial`` what finished (tables, or a frame of games).

    A partial with nothing in it gives way to the last partial tables streamed (``last``, of
    ``last_done`` games); ``done`` is never below what the partial holds.
    """
    def empty(x: Any) -> bool:
        if x is None:
            return True
        if isinstance(x, pl.DataFrame):
            return x.height == 0
        if isinstance(x, dict):
            return not any(isinstance(f, pl.DataFrame) and f.height for f in x.values())
        return False

    if empty(partial) and not empty(last):
        partial, done = last, max(done, last_done)
    if empty(partial):
        partial = None
    elif isinstance(partial, pl.DataFrame):
        done = max(done, partial.height)
    return RunInterrupted(partial, done, total)


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
    parameter): the study ignores them, so a form hides them.  ``check(model, settings, params)``
    refuses a combination of valid fields the study cannot run (a :class:`SettingError` naming the
    field, in the study's words): part of :meth:`validate`, the one validator.  ``long_run`` are
    settings of a run that takes long (the stop walk's and the stop benchmark's; default: the most
    games its ``games`` setting allows, up to the game's ``GameModel.long_games`` in all, :meth:`long_settings`: a
    fast engine needs more games to run long).  ``held(settings, params)``: the games a run holds
    in memory at its peak, when fewer than it plays (a search that reduces each value's games to counts); the
    studio's memory check uses it (:meth:`games_held`).
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
    check: Callable[[GameModel, dict[str, Any], dict[str, Any]], None] | None = None
    long_run: dict[str, Any] | None = None
    held: Callable[[dict[str, Any], dict[str, Any]], int] | None = None

    def games_in_all(self, settings: dict[str, Any] | None = None, params: dict[str, Any] | None = None) -> int | None:
        """Games a run of ``settings`` plays in all, before it runs (None: the study does not declare its size)."""
        if self.size is None:
            return None
        return int(self.size(self.resolve(settings), dict(params or {})))

    def games_held(self, settings: dict[str, Any] | None = None, params: dict[str, Any] | None = None) -> int | None:
        """Games a run holds in memory at its peak: ``held`` where the study declares it, else all it plays."""
        if self.held is None:
            return self.games_in_all(settings, params)
        return int(self.held(self.resolve(settings), dict(params or {})))

    def long_settings(self, game: str | GameModel) -> dict[str, Any] | None:
        """Settings of a run of ``game`` that cannot finish in a few seconds (None: the study declares none).

        The declared ``long_run``, else its ``games`` setting raised so the run plays about the game's
        ``GameModel.long_games`` games in all (by the study's declared size; a study of unknown size that many
        per cell): long on the game's fastest engine, yet a size a page accepts and plans at once.
        """
        if self.long_run is not None:
            return dict(self.long_run)
        games = next((p for p in self.settings if p.name == "games"), None)
        if games is None or games.high is None:
            return None
        long = int(get_game(game).long_games)
        per = long
        if self.size is not None:
            try:
                per = long * 1000 // max(1, self.games_in_all({"games": 1000}))
            except InputError:
                pass
        low = int(games.low) if games.low is not None else 1
        per = per // 10 * 10 if per >= 10 else per  # a round number (a ladder plays an even number per pairing)
        return {"games": int(max(low, min(games.high, per, long)))}

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
        """Validate everything first (:meth:`validate`), then run; returns the tables.

        ``on_partial(tables, done, total)``, when given, receives the tables of the cells finished so
        far while the study runs (only a study whose run function takes ``on_partial`` emits them:
        :attr:`streams`).

        The stop protocol, the same for every study: once ``should_stop()`` turns true the run ends at
        its next safe point (a finished chunk, a finished step of an exact solver: ``core.sim.stopping``)
        and this raises :class:`RunInterrupted` — never returns tables as if done, never another
        error — with ``done`` the games finished (the last count the run reported), ``total`` the
        games asked and ``partial`` what finished: the study's own tables of it (a dict), else the
        finished games (a frame), else the last partial tables it streamed (:func:`stopped`).
        """
        model = get_game(game)
        resolved, game_params = self.validate(model, settings, params)
        watch = _Watch(on_progress, should_stop, on_partial)
        if should_stop is not None:  # the tables of what finished are made after Stop: their intervals' library
            preload_tests()  # (scipy.stats, about a second) is imported while the run plays, not then
        extra = {"on_partial": watch.partial} if on_partial is not None and self.streams else {}
        with watching(watch.stop if should_stop is not None else None):
            try:
                result = self.run(model, resolved, game_params, seed=seed, workers=workers,
                                  on_progress=watch.progress, should_stop=watch.stop, **extra)
            except RunInterrupted as exc:
                raise watch.interrupted(exc.partial, exc.done, exc.total) from None
            except (KeyboardInterrupt, InputError):
                if not watch.asked:  # Ctrl-C outside a stop's checks, or a refusal: as before
                    raise
                raise watch.interrupted(None, 0, 0) from None
        if watch.asked and watch.total and watch.done < watch.total:  # a run that returned what finished
            raise watch.interrupted(result, watch.done, watch.total)
        return result

    def validate(self, game: str | GameModel, settings: dict[str, Any] | None = None,
                 params: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """The study's one validator (the CLI's, the form's and the run's): ``(settings, game parameters)``.

        Every setting against its declaration, the game parameters against the game, then the
        combination against the study's own ``check(settings, params)`` — each refusal an
        :class:`InputError` (a :class:`SettingError` naming the field when one field is wrong) in
        the study's words, before any game is played.
        """
        model = get_game(game)
        resolved = self.resolve(settings)
        if not self.game_params and params:
            raise InputError(f"study {self.name!r} takes no game parameters; give settings: "
                             f"{', '.join(p.name for p in self.settings)}")
        game_params = model.resolve_params(params) if self.game_params else {}
        if self.check is not None:
            self.check(model, resolved, game_params)
        return resolved, game_params

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
    from workbench.core.sim.sweep import _concat  # the grid runner's own stacking: the same frame as one run

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
    from workbench.core.sim.runner import iter_grid
    from workbench.core.sim.sweep import check_grid, run_grid

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
        try:
            feed.offer(lambda: table_of(finished()), done)
        except KeyboardInterrupt:  # Stop pressed while the partial tables were made: the cells finished
            raise interrupted() from None
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
    from workbench.core.sim.runner import check_games, simulate

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
        try:
            feed.offer(lambda: table_of(pl.concat(frames, how="vertical")), start)
        except KeyboardInterrupt:  # Stop pressed while the partial tables were made: the games finished
            kept = pl.concat(frames, how="vertical")
            raise RunInterrupted(kept, kept.height, games) from None
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
    """Core's auto-balance; stopped, it shows every value tried and the one cut short with its finished games."""
    from workbench.core.design import balance
    from workbench.core.stats.rates import wilson

    evals = {"n": 0}
    total = settings["games"] * settings["evaluations"]

    def tick(n: int) -> None:
        evals["n"] += n
        if on_progress is not None:
            on_progress(evals["n"], total)

    param, seat = settings["param"], settings["seat"]
    fixed = {k: v for k, v in params.items() if k != param and v != model.param(k).default}
    spec = balance._numeric_param(model, param)
    balance._check_bound(model, spec, "low", settings["low"])
    balance._check_bound(model, spec, "high", settings["high"])
    response = balance.win_rate_response(model, param, fixed, seat=seat, agents=settings["agents"],
                                         games=settings["games"], seed=seed, workers=workers, on_progress=tick,
                                         should_stop=should_stop)
    cut: dict[str, Any] = {}  # the value a stop cut short, and its finished games

    def measured(value: Any) -> tuple[int, ...]:
        try:
            return response(value)
        except RunInterrupted as exc:
            cut.update(value=value, frame=exc.partial)
            raise

    result = None
    try:
        result = balance.search(measured, settings["low"], settings["high"], target=settings["target"],
                                integer=spec.kind is int, max_evals=settings["evaluations"], param=param,
                                measure=f"{seat} score" if seat else "first seat score", should_stop=should_stop)
    except InputError:
        if not cut:
            raise
    points = result.points if result is not None else None
    frame = cut.get("frame")
    if frame is not None and frame.height:  # the value cut short: its finished games, as a point of their own
        k = balance._wins(frame, model, seat)
        d = balance._draws(frame) if hasattr(balance, "_draws") else 0
        low, high = wilson(k + d / 2, frame.height)
        row = {"value": float(cut["value"]), "n": frame.height, "k": k, "draws": d,
               "rate": (k + d / 2) / frame.height, "low": float(low), "high": float(high)}
        one = pl.DataFrame({c: [row[c]] for c in (points.columns if points is not None else row)})
        points = one if points is None else pl.concat([points, one.cast(points.schema)], how="vertical")
    if result is not None and not cut:
        return {"estimate": _estimate(result.param, result.target, result), "points": result.points}
    if points is None:  # stopped before any game finished
        raise RunInterrupted(None, 0, total)
    tables = {"estimate": _estimate(param, settings["target"], result, stopped=True), "points": points}
    raise RunInterrupted(tables, int(points["n"].sum()), total)


def _estimate(param: str, target: float, result: Any, stopped: bool = False) -> pl.DataFrame:
    """The estimate row of an auto-balance (a stopped one: what the values tried so far say)."""
    def get(name: str) -> Any:
        return getattr(result, name) if result is not None else None

    summary = result.summary() if result is not None else ""
    if stopped:
        summary = ("stopped before the search ended; the values tried so far are below" +
                   (f" ({summary})" if summary else ""))
    return pl.DataFrame({"param": [param], "target": [float(target)], "found": [bool(get("found"))],
                         "value": [get("value")], "value_low": [get("value_low")],
                         "value_high": [get("value_high")], "best": [get("best")],
                         "best_rate": [get("best_rate")], "best_rate_low": [get("best_low")],
                         "best_rate_high": [get("best_high")], "summary": [summary]},
                        schema_overrides={c: pl.Float64 for c in ("value", "value_low", "value_high", "best",
                                                                  "best_rate", "best_rate_low", "best_rate_high")})


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
                                 # simultaneous play has no first mover: a seat is named from the start
                                 Param("seat", "p1", str, "the seat whose win rate is balanced (no seat moves "
                                       "first in this game)", choices=seats) if model.simultaneous else
                                 Param("seat", None, str, "the seat whose win rate is balanced (none: the first "
                                       "mover's)", choices=seats, optional=True),
                                 Param("target", 0.5, float, "the win rate to reach", 0.0, 1.0),
                                 Param("games", 2000, int, "games per value tried (same seeds for every value)",
                                       10, 10**8),
                                 Param("evaluations", 8, int, "values to try at most", 2, 40), agents),
                             _balance_charts, "A bracketing search on common random numbers; the estimate comes "
                             "with the values compatible with the target.",
                             size=lambda settings, _params: settings["games"] * settings["evaluations"],
                             held=lambda settings, _params: settings["games"],  # one value's games at a time
                             # a search may end after its two ends (no sign change): those alone make the long run
                             long_run={"games": model.long_games // 2}))
    from workbench.core.design.cardplay import dead_cards_study  # these modules never import study.py
    from workbench.core.design.readings import readings_study
    from workbench.core.skill.ladder import study_declaration
    from workbench.core.skill.tiers import skill_study
    from workbench.core.studies.verdicts import verdicts_study

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
    from workbench.core.present.report import Report
    from workbench.core.sim.runner import simulate

    model = get_game(game)
    games = 500 if quick else 5000
    lineups = _lineups(model)
    from workbench.core.sim.progress import step

    frames = []
    for i, lineup in enumerate(lineups, 1):
        with step(f"{model.name} report {i}/{len(lineups)}: {games:,} games of {' vs '.join(lineup)}"):
            frames.append(simulate(model, games, agents=list(lineup), seed=seed, progress=False).with_columns(
                pl.lit(" vs ".join(lineup)).alias("lineup")))
    frame = pl.concat(frames, how="diagonal_relaxed")
    rep = Report(f"{model.title}: outcomes of its agents", {
        "rules_version": model.rules_version, "seed": seed, "games": f"{games} per lineup",
        "agents": "; ".join(" vs ".join(lineup) for lineup in lineups), "quick": quick}, game=model.name)
    outcome_sections(rep, frame, games)
    return rep.write(out_dir)


def outcome_sections(rep: Any, frame: pl.DataFrame, games: int) -> None:
    """The outcome sections of a report over a frame with a ``lineup`` column.

    Seat win rates (table and chart), first mover, end reasons, game length (table and chart); ``rep`` is a
    ``core.present.report.Report``.
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
