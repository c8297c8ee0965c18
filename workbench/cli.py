"""The ``workbench`` command: games, simulate, sweep, study, report, and each game's own commands.

Every parameter a game declares is a flag of ``simulate``, ``sweep`` and ``study`` in kebab-case
(``--start-wall 20``, ``--miss-rate 0.05``), validated against its declared range.  A choice
parameter also takes ``all`` or a comma list (``--battlefield all --deck regular,unlimited``),
which runs every combination.  Games, their studies, reports and commands (the duel's
``shuffle``) are all discovered from the registry: nothing here names a game.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from workbench.core.errors import InputError, RunInterrupted, WorkbenchError
from workbench.core.model import GameModel, game_names, get_game

CORE_COMMANDS = ("games", "simulate", "sweep", "study", "report")


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (2 for bad input)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _dispatch(argv)
    except RunInterrupted as exc:
        print(f"workbench: {exc}", file=sys.stderr)
        return 130
    except WorkbenchError as exc:
        print(f"workbench: error: {exc}", file=sys.stderr)
        return 2


def _game_commands() -> dict[str, Any]:
    """Every game's declared commands by name (a name two games declare is an error)."""
    from workbench.core.study import commands

    found: dict[str, Any] = {}
    for game in game_names():
        for command in commands(game):
            if command.name in CORE_COMMANDS or command.name in found:
                raise InputError(f"game {game!r} declares a command {command.name!r} that already exists")
            found[command.name] = command
    return found


def _dispatch(argv: list[str]) -> int:
    top = argparse.ArgumentParser(prog="workbench", description="Tower games balancing workbench")
    sub = top.add_subparsers(dest="command", required=True)
    sub.add_parser("games", help="list games, their parameters, agents, engines, studies and commands")
    for name in ("simulate", "sweep"):
        p = sub.add_parser(name, help=f"{name} a game (game parameters become flags)", add_help=False)
        p.add_argument("game")
    st = sub.add_parser("study", help="run a game's study (see `workbench games`): tables, and a report with --out",
                        add_help=False)
    st.add_argument("game")
    rep = sub.add_parser("report", help="write a game's report (index.html, index.md, tables)")
    rep.add_argument("game", help="a game name or 'all'")
    rep.add_argument("--out", type=Path, default=Path("reports"))
    rep.add_argument("--quick", action="store_true", help="small settings (seconds)")
    rep.add_argument("--seed", type=int, default=0)
    game_commands = _game_commands()
    for command in game_commands.values():
        command.add_arguments(sub.add_parser(command.name, help=command.help))
    known, rest = top.parse_known_args(argv)
    if known.command == "games":
        return _games()
    if known.command in ("report", *game_commands):
        if rest:
            top.error(f"unrecognized arguments: {' '.join(rest)}")
        if known.command == "report":
            return _report(known.game, known.out, known.quick, known.seed)
        return game_commands[known.command].run(known)
    model = get_game(known.game)
    if known.command == "study":
        return _study(model, rest)
    args = _game_parser(model, known.command).parse_args(rest)
    if known.command == "simulate":
        return _simulate(model, args)
    return _sweep(model, args)


# ----------------------------------------------------------------------------------- games
def _games() -> int:
    from workbench.core.study import commands, studies

    for name in game_names():
        model = get_game(name)
        print(f"{name} — {model.title} (rules {model.rules_version}); players {model.min_players}"
              f"{'' if model.max_players == model.min_players else '-' + str(model.max_players)}")
        print("  agents:")
        for decl in model.agent_decls:
            fast = " [fast]" if decl.name in model.fast_agents else ""
            print(f"    {decl.usage():<40} {decl.help}{fast}")
        print(f"  engines: {', '.join(model.engines)}")
        print("  studies (workbench study GAME STUDY):")
        for study in studies(model):
            print(f"    {study.name:<24} {study.title}")
        for command in commands(model):
            print(f"  command: workbench {command.name} — {command.help}")
        print("  parameters:")
        for p in model.params:
            print(f"    {p.flag:<24} default {p.default!s:<16} {p.allowed():<40} {p.help}")
        for key, value in model.catalogue().items():
            if isinstance(value, dict):
                print(f"  {key}:")
                for k, v in value.items():
                    print(f"    {k:<24} {v}")
            else:
                print(f"  {key}: {value}")
    return 0


# ------------------------------------------------------------------------------ simulate
def _game_parser(model: GameModel, command: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=f"workbench {command} {model.name}")
    p.add_argument("--games", type=int, default=1000, help="games per parameter combination")
    p.add_argument("--seed", type=int, default=0, help="master seed (non-negative)")
    p.add_argument("--agents", default=None, help="one agent per seat, comma-separated (e.g. greedy,random)")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--engine", default=None, help=f"one of {', '.join(model.engines)} (default: the fastest "
                                                  "that supports the agents)")
    p.add_argument("--chunk-size", type=int, default=None)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--backend", choices=("local", "dask"), default="local")
    p.add_argument("--scheduler", default=None, help="Dask scheduler address (default: a local cluster)")
    if command == "simulate":
        p.add_argument("--out", type=Path, default=None, help="write the results to FILE.parquet")
    else:
        p.add_argument("--grid", nargs="+", default=[], metavar="PARAM=V1,V2",
                       help="grid over declared parameters; 'all' expands a choice parameter")
        p.add_argument("--out", type=Path, required=True, help="sweep directory (resumable)")
    for param in model.params:
        p.add_argument(param.flag, dest=f"param_{param.name}", default=None,
                       help=f"{param.help} [{param.allowed()}; default {param.default}]")
    return p


def _param_grid(model: GameModel, args: argparse.Namespace) -> dict[str, list[Any]]:
    grid: dict[str, list[Any]] = {}
    for param in model.params:
        raw = getattr(args, f"param_{param.name}")
        if raw is None:
            continue
        if param.choices is not None and raw == "all":
            grid[param.name] = list(param.choices)
        elif param.choices is not None and "," in raw:
            grid[param.name] = [param.validate(v.strip()) for v in raw.split(",")]
        else:
            grid[param.name] = [param.validate(raw)]
    return grid


def _check_out(path: Path | None, suffix: str | None) -> None:
    if path is None:
        return
    if suffix and path.suffix != suffix:
        raise InputError(f"--out must name a {suffix} file, got {str(path)!r}")
    parent = path.parent if suffix else path
    if parent.exists() and not parent.is_dir():
        raise InputError(f"--out: {parent} is not a directory")


def _simulate(model: GameModel, args: argparse.Namespace) -> int:
    from workbench.core.runner import check_games, check_workers
    from workbench.core.store import write_parquet_atomic
    from workbench.core.sweep import run_grid

    check_games(args.games)
    check_workers(args.workers)
    _check_out(args.out, ".parquet")
    start = time.perf_counter()
    try:  # every combination (and the agents) is validated before anything is played
        frame = run_grid(model, _param_grid(model, args), args.games, agents=args.agents, seed=args.seed,
                         workers=args.workers, backend=args.backend, scheduler=args.scheduler, engine=args.engine,
                         chunk_size=args.chunk_size, progress=not args.quiet)
    except RunInterrupted as exc:
        if exc.partial is not None and args.out is not None:
            write_parquet_atomic(exc.partial, args.out)
            print(f"kept {exc.partial.height} finished games in {args.out}", file=sys.stderr)
        raise
    elapsed = time.perf_counter() - start
    if args.out is not None:
        write_parquet_atomic(frame, args.out)
    print(_summary(frame, elapsed, args.out))
    return 0


def _summary(frame: Any, elapsed: float, out: Path | None) -> str:
    from workbench.core.stats import wilson

    lines = [f"{frame.height} games in {elapsed:.2f} s ({frame.height / max(elapsed, 1e-9):,.0f} games/s)"
             + (f" → {out}" if out else "")]
    n = frame.height
    seats = sorted(c.removeprefix("agent_") for c in frame.columns if c.startswith("agent_"))
    for outcome in [*seats, "draw"]:
        k = int((frame["winner"] == outcome).sum())
        lo, hi = wilson(k, n)
        label = f"{outcome} ({frame[f'agent_{outcome}'][0]})" if outcome != "draw" else "draw"
        lines.append(f"  {label:<24} {k / n:7.2%}  95% CI [{lo:.2%}, {hi:.2%}]  n={n}")
    if "first_seat" in frame.columns and frame["first_seat"].null_count() < n:
        k = int((frame["winner"] == frame["first_seat"]).sum())
        lo, hi = wilson(k, n)
        lines.append(f"  {'first seat wins':<24} {k / n:7.2%}  95% CI [{lo:.2%}, {hi:.2%}]  n={n}")
    reasons = frame.group_by("reason").len().sort("len", descending=True)
    lines.append("  end: " + ", ".join(f"{r} {c}" for r, c in reasons.iter_rows()))
    lines.append(f"  length: mean {frame['length'].mean():.1f}, median {frame['length'].median():.0f}, "
                 f"max {frame['length'].max()}")
    return "\n".join(lines)


# --------------------------------------------------------------------------------- sweep
def _sweep(model: GameModel, args: argparse.Namespace) -> int:
    from workbench.core.runner import check_games, check_workers
    from workbench.core.sweep import parse_grid, run_sweep

    check_games(args.games)
    check_workers(args.workers)
    _check_out(args.out, None)
    grid = parse_grid(args.grid, model)
    for name, values in _param_grid(model, args).items():
        if name in grid:
            raise InputError(f"parameter {name!r} is given both in --grid and as {model.param(name).flag}")
        grid[name] = values
    start = time.perf_counter()
    frame = run_sweep(model, grid, args.games, args.out, seed=args.seed, agents=args.agents,
                      workers=args.workers, engine=args.engine, chunk_size=args.chunk_size,
                      progress=not args.quiet, backend=args.backend, scheduler=args.scheduler)
    print(f"sweep: {frame.height} games in {args.out} ({time.perf_counter() - start:.1f} s)")
    return 0


# --------------------------------------------------------------------------------- study
def _study(model: GameModel, rest: list[str]) -> int:
    from workbench.core.report import Report, display_frame
    from workbench.core.study import get_study, studies

    if not rest or rest[0].startswith("-"):
        print(f"studies of {model.name} (workbench study {model.name} STUDY --help):")
        for study in studies(model):
            print(f"  {study.name:<24} {study.title}")
        return 0
    study = get_study(model, rest[0])
    p = argparse.ArgumentParser(prog=f"workbench study {model.name} {study.name}", description=study.help)
    p.add_argument("--seed", type=int, default=0, help="master seed (non-negative)")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--out", type=Path, default=None, help="write the tables and charts as a report into DIR")
    for setting in study.settings:
        p.add_argument(setting.flag, dest=f"setting_{setting.name}", default=None,
                       help=f"{setting.help} [{setting.allowed()}; default {setting.default}]")
    if study.game_params:
        for param in model.params:
            if param.name not in {s.name for s in study.settings}:
                p.add_argument(param.flag, dest=f"param_{param.name}", default=None,
                               help=f"{param.help} [{param.allowed()}; default {param.default}]")
    args = p.parse_args(rest[1:])
    settings = {s.name: getattr(args, f"setting_{s.name}") for s in study.settings
                if getattr(args, f"setting_{s.name}") is not None}
    params = {k.removeprefix("param_"): v for k, v in vars(args).items() if k.startswith("param_") and v is not None}
    _check_out(args.out, None)
    start = time.perf_counter()
    tables = study.execute(model, settings, params, seed=args.seed, workers=args.workers)
    import polars as pl

    shown = {k: v for k, v in tables.items() if k != "games"}
    with pl.Config(tbl_formatting="ASCII_MARKDOWN", tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True,
                   tbl_rows=50, tbl_cols=-1, tbl_width_chars=250, fmt_str_lengths=60):
        for name, table in shown.items():
            print(f"## {name}")
            print(display_frame(table))
    print(f"{study.name}: {time.perf_counter() - start:.1f} s")
    if args.out is not None:
        rep = Report(f"{model.title}: {study.title}", {"rules_version": model.rules_version, "seed": args.seed,
                                                         "games": settings.get("games", "see tables"),
                                                         "agents": settings.get("agents") or "defaults"})
        for name, table in shown.items():
            rep.table(name, table)
        for name, chart in study.make_charts(tables).items():
            rep.chart(f"{name}_chart", chart)
        print(f"report written to {rep.write(args.out)}")
    return 0


# -------------------------------------------------------------------------------- report
def _report(game: str, out: Path, quick: bool, seed: int) -> int:
    from workbench.core.study import report_builder

    names = game_names() if game == "all" else [get_game(game).name]
    for name in names:
        target = out / name if game == "all" else out
        start = time.perf_counter()
        path = report_builder(name)(target, quick=quick, seed=seed)
        print(f"{name}: report written to {path} in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
