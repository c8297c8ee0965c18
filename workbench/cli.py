"""The ``workbench`` command: games, simulate, sweep, study, report, and each game's own commands.

Every parameter a game declares is a flag of ``simulate``, ``sweep`` and ``study`` in kebab-case
(``--start-wall 20``, ``--miss-rate 0.05``), validated against its declared range.  A choice
parameter also takes ``all`` or a comma list (``--battlefield all --deck regular,unlimited``),
which runs every combination.  Games, their studies, reports and commands (the duel's
``shuffle``) are all discovered from the registry: nothing here names a game.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from workbench.core.errors import InputError, OutputError, RunInterrupted, WorkbenchError
from workbench.core.model import GameModel, game_names, get_game

CORE_COMMANDS = ("games", "simulate", "sweep", "study", "report", "ladder", "tune", "rebalance", "compile")


class Parser(argparse.ArgumentParser):
    """argparse with short errors: one line of usage, and the closest flag for a mistyped one."""

    def error(self, message: str) -> None:  # type: ignore[override]
        """Print ``did you mean --battlefield?`` for an unknown flag, one usage line, exit 2."""
        import difflib

        hint = ""
        if "unrecognized arguments:" in message:
            flags = [o for a in self._actions for o in a.option_strings if o.startswith("--")]
            for word in message.split(":", 1)[1].split():
                if word.startswith("-"):
                    close = difflib.get_close_matches(word.split("=", 1)[0], flags, n=1, cutoff=0.6)
                    if close:
                        hint = f"; did you mean {close[0]}?"
                        break
        usage = self.format_usage().strip().splitlines()[0]
        self.exit(2, f"{self.prog}: error: {message}{hint}\n{usage} …  (--help lists every flag)\n")


def _stopped() -> int:
    """The exit status of a stopped run, 130, made to hold under ``python -m workbench.cli``.

    CPython 3.11 marks a ``KeyboardInterrupt`` that leaves code run by ``exec`` or ``eval`` of a
    string (dataclasses and numba build functions that way) as unhandled, even when a caller
    handles it, as :func:`main` does.  ``python -m`` then ends the process by SIGINT after it
    exits, so a stop that landed in such code gave status -2 instead of 130 (about one stop in
    eight, early in a report).  Running any string through ``exec`` resets that mark.
    """
    exec("pass")  # noqa: S102 - a constant string; see the docstring
    return 130


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (2 for bad input, 1 for a file that could not be written, 130 stopped)."""
    from workbench.core.stopping import deferred_stops

    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        with deferred_stops():  # Ctrl-C and SIGTERM stop at the next finished chunk: keep finished work
            return _dispatch(argv)
    except RunInterrupted as exc:
        print(f"workbench: {exc}", file=sys.stderr)
        return _stopped()
    except KeyboardInterrupt:
        print("workbench: stopped; finished work is kept and nothing was left half-written", file=sys.stderr)
        return _stopped()
    except OutputError as exc:
        print(f"workbench: error: {exc}", file=sys.stderr)
        return 1
    except WorkbenchError as exc:
        print(f"workbench: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a file the workbench had to write or read: one line, no traceback
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"workbench: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1


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
    if argv and argv[0] in ("simulate", "sweep", "study") and (len(argv) == 1 or argv[1] in ("-h", "--help")):
        return _which_game(argv[0])
    if argv[:1] == ["sweep"] and argv[1:2] and argv[1] in ("show", "export"):
        return _sweep_store(argv[1], argv[2:])
    top = Parser(prog="workbench", description="Tower games balancing workbench")
    sub = top.add_subparsers(dest="command", required=True, parser_class=Parser)
    games = sub.add_parser("games", help="list games, their parameters, agents, engines, studies and commands")
    games.add_argument("game", nargs="?", default=None, help="one game only")
    games.add_argument("--rules", action="store_true",
                       help="print the path of the game's rules page (docs/rules/GAME.md) and its first section")
    for name in ("simulate", "sweep"):
        p = sub.add_parser(name, help=f"{name} a game (game parameters become flags)", add_help=False)
        p.add_argument("game")
    st = sub.add_parser("study", help="run a game's study (see `workbench games`): tables, and a report with --out",
                        add_help=False)
    st.add_argument("game")
    rep = sub.add_parser("report", help="write a game's report (index.html, index.md, tables)")
    rep.add_argument("game", help="a game name or 'all'")
    rep.add_argument("--out", type=Path, default=None,
                     help="the report's directory (default reports/GAME); with 'all', one GAME/ folder each in it "
                          "(default reports/)")
    rep.add_argument("--quick", action="store_true", help="small settings (seconds)")
    rep.add_argument("--seed", type=int, default=0)
    rep.add_argument("--force", action="store_true",
                     help="write into a non-empty directory that holds no report (its other files are kept)")
    rep.add_argument("--summary", action="store_true",
                     help="print what the report finds and what to change: read from the report in --out when it "
                          "was built by this rules and workbench version, else build the report first")
    from workbench import ladder_cli, rebalance_cli, tune_cli

    ladder_cli.add_arguments(sub.add_parser("ladder", help="rate agents: a round robin on common seeds, "
                                                           "Bradley–Terry ratings with 95 %% intervals"))
    tune_cli.add_arguments(sub.add_parser("tune", help="tune an agent's weights by self-play "
                                                       "(data/GAME/agents/NAME.toml; play it as greedy@NAME)"))
    rebalance_cli.add_arguments(sub.add_parser("rebalance", help="the smallest card or parameter edits that reach a "
                                                                 "balance target, verified on held-out seeds"))
    comp = sub.add_parser("compile", help="compile every game's engine into the on-disk cache (a fresh checkout's "
                                          "first fast run then starts at once)")
    comp.add_argument("games", nargs="*", help="games (default: every game with a compiled engine)")
    comp.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes (default: one per core)")
    # a core command needs no game's own commands: importing every game to list them cost seconds a call
    game_commands = {} if argv[:1] and argv[0] in CORE_COMMANDS else _game_commands()
    for command in game_commands.values():
        command.add_arguments(sub.add_parser(command.name, help=command.help))
    known, rest = top.parse_known_args(argv)
    if known.command == "games":
        return _rules(known.game) if known.rules else _games(known.game)
    if known.command in ("report", "ladder", "tune", "rebalance", "compile", *game_commands):
        if rest:
            top.error(f"unrecognized arguments: {' '.join(rest)}")
        if known.command == "ladder":
            return ladder_cli.run(known)
        if known.command == "tune":
            return tune_cli.run(known, argv)
        if known.command == "rebalance":
            return rebalance_cli.run(known)
        if known.command == "compile":
            return _compile(known.games, known.jobs)
        if known.command == "report":
            if known.summary:
                return _report_summary(known.game, known.out, known.quick, known.seed, known.force)
            return _report(known.game, known.out, known.quick, known.seed, known.force)
        return game_commands[known.command].run(known)
    model = get_game(known.game)
    if known.command == "study":
        return _study(model, rest)
    args = _game_parser(model, known.command).parse_args(rest)
    if known.command == "simulate":
        return _simulate(model, args)
    return _sweep(model, args)


# ----------------------------------------------------------------------------------- games
def _compile(games: list[str], jobs: int) -> int:
    """``workbench compile``: every engine compiled (or found in the cache), one line a game."""
    from workbench.core.warm import warm

    started = time.perf_counter()
    took = warm(games, jobs=jobs, on_game=lambda name, seconds: print(f"{name}: engine ready in {seconds:.1f} s",
                                                                       flush=True))
    if not took and not games:
        print("every engine is compiled already (no engine source changed since) — "
              f"{time.perf_counter() - started:.1f} s")
        return 0
    print(f"{len(took)} engines ready in {time.perf_counter() - started:.1f} s")
    return 0


def _which_game(command: str) -> int:
    """``workbench simulate --help`` with no game: the games, and how to see one game's flags."""
    print(f"usage: workbench {command} GAME [flags]   (each game's parameters are flags)")
    print("games:")
    for name in game_names():
        print(f"  {name:<12} {get_game(name).title}")
    print(f"see one game's flags with: workbench {command} GAME --help   (e.g. workbench {command} "
          f"{game_names()[0]} --help); everything about the games: workbench games")
    if command == "sweep":
        print("a finished or interrupted sweep: workbench sweep show DIR | workbench sweep export DIR --csv F.csv")
    return 0


def _rules(game: str | None) -> int:
    """``workbench games GAME --rules``: the path of the game's rules page and its first section."""
    from workbench.core.docs import rules_summary

    if game is None:
        raise InputError(f"--rules needs a game (workbench games GAME --rules); games: {', '.join(game_names())}")
    print(rules_summary(get_game(game)))
    return 0


def _tiers_line(model: GameModel) -> str:
    """``greedy < greedy@tuned < search (a search game costs 25 fast ones)``, and the declared tiers not there yet."""
    from workbench.core.tiers import declared_tiers

    tiers = declared_tiers(model)
    shown = " < ".join(t.label + (f" (a game costs {t.cost:g} fast ones: studies play fewer)" if t.cost > 1 else "")
                       for t in tiers)
    missing = [s for s in model.tiers if s not in {t.agent for t in tiers}]
    return shown + (f"; declared, no weight set yet: {', '.join(missing)}" if missing else "") + \
        ("" if model.tiers else " (not declared: the default)")


def _games(only: str | None = None) -> int:
    from workbench.core.study import commands, studies

    for name in [get_game(only).name] if only else game_names():
        model = get_game(name)
        print(f"{name} — {model.title} (rules {model.rules_version}); players {model.min_players}"
              f"{'' if model.max_players == model.min_players else '-' + str(model.max_players)}")
        print("  agents:")
        for decl in model.agent_decls:
            fast = " [fast]" if decl.name in model.fast_agents else ""
            print(f"    {decl.usage():<40} {decl.help}{fast}")
        print(f"  engines: {', '.join(model.engines)}")
        print(f"  skill tiers, weakest first: {_tiers_line(model)}")
        capabilities = model.capabilities()
        print("  capabilities:" + ("" if capabilities else " none beyond the rules"))
        for key, what in capabilities.items():
            print(f"    {key:<24} {what}")
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
    p = Parser(prog=f"workbench {command} {model.name}")
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
        p.add_argument("--force", action="store_true", help="replace an existing --out file, or discard the "
                                                            "finished parts of a run with other settings")
    else:
        p.add_argument("--force", action="store_true", help="accepted for symmetry; a store holds one sweep, so "
                                                            "another sweep needs another --out")
    if command == "simulate":
        p.add_argument("--out", type=Path, default=None, help="write the results to FILE.parquet (streamed: memory "
                                                             "stays bounded whatever --games is; resumable)")
    else:
        p.add_argument("--grid", nargs="+", default=[], metavar="PARAM=V1,V2",
                       help="grid over declared parameters; 'all' expands a choice parameter")
        p.add_argument("--out", type=Path, required=True, help="sweep directory (resumable)")
    for param in model.params:
        p.add_argument(param.flag, dest=f"param_{param.name}", default=None, metavar=param.name.upper(),
                       help=f"{param.help} [{param.allowed()}; default {param.default}]")
    return p


def _param_grid(model: GameModel, args: argparse.Namespace) -> dict[str, list[Any]]:
    grid: dict[str, list[Any]] = {}
    single = {p.name: getattr(args, f"param_{p.name}") for p in model.params
              if getattr(args, f"param_{p.name}") is not None and "," not in getattr(args, f"param_{p.name}")}
    for param in model.params_for(single):
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
    """An --out is checked before any work: its kind, and a writable place to put it."""
    if path is None:
        return
    if suffix and path.suffix != suffix:
        raise InputError(f"--out must name a {suffix} file, got {str(path)!r}")
    if path.exists() and (path.is_dir() if suffix else not path.is_dir()):
        raise InputError(f"--out {path} is {'a directory' if suffix else 'a file'}; give "
                         f"{'a ' + suffix + ' file' if suffix else 'a directory'}")
    parent = next((p for p in (path.parent if suffix else path, *path.parents) if p.exists()), Path("."))
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"--out {path}: {parent} is not a writable directory")


def _check_engine(model: GameModel, engine: str | None, agents: Any, grid: dict[str, list[Any]]) -> None:
    """``--engine fast`` that cannot play every cell is one clear line (never a quiet fallback)."""
    from workbench.core.play import check_fast
    from workbench.core.runner import iter_grid

    check_fast(model, engine, agents, list(iter_grid(grid)) or [{}])


def _simulate(model: GameModel, args: argparse.Namespace) -> int:
    from workbench.core.runner import check_games, check_workers, iter_grid
    from workbench.core.seeding import check_master_seed
    from workbench.core.stream import check_memory, simulate_to_parquet
    from workbench.core.sweep import run_grid

    check_games(args.games)
    check_workers(args.workers)
    check_master_seed(args.seed)
    _check_out(args.out, ".parquet")
    grid = _param_grid(model, args)
    _check_engine(model, args.engine, args.agents, grid)
    start = time.perf_counter()
    if args.out is not None:  # streamed to disk: bounded memory, resumable
        try:
            done = simulate_to_parquet(model, args.games, args.out, grid=grid, agents=args.agents, seed=args.seed,
                                       workers=args.workers, backend=args.backend, scheduler=args.scheduler,
                                       engine=args.engine, chunk_size=args.chunk_size, force=args.force,
                                       progress=not args.quiet)
        except RunInterrupted as exc:
            print(f"kept {exc.done:,} finished games in {args.out}; run the same command again to resume "
                  f"(the finished chunks wait in {args.out.name}.parts/)", file=sys.stderr)
            raise
        print(_summary(pl_scan(args.out), time.perf_counter() - start, args.out, done.games))
        return 0
    cells = list(iter_grid(grid)) or [{}]
    check_memory(model, args.games, cells, args.agents, args.engine)  # refuses before any game is played
    frame = run_grid(model, grid, args.games, agents=args.agents, seed=args.seed, workers=args.workers,
                     backend=args.backend, scheduler=args.scheduler, engine=args.engine,
                     chunk_size=args.chunk_size, progress=not args.quiet)
    print(_summary(frame.lazy(), time.perf_counter() - start, None, frame.height))
    return 0


def pl_scan(path: Path) -> Any:
    """A lazy scan of a result file."""
    import polars as pl

    return pl.scan_parquet(path)


def _rate_line(label: str, k: float, n: int, beside: str = "") -> str:
    from workbench.core.stats import wilson

    lo, hi = wilson(k, n)
    return f"  {label:<24} {k / n:7.2%}  95% CI [{lo:.2%}, {hi:.2%}]  n={n}" + (f"  ({beside})" if beside else "")


def _summary(lazy: Any, elapsed: float, out: Path | None, n: int, by: list[str] | None = None) -> str:
    """Seat, draw and first-seat rates with intervals, end reasons and lengths — from a lazy frame.

    Each seat's wins (and, with two seats, its score: wins and half the draws), the draws, then the
    first seat's score (a draw counts half) over the games with a first seat, its draws beside it.
    """
    import polars as pl

    lines = [f"{n:,} games in {elapsed:.2f} s ({n / max(elapsed, 1e-9):,.0f} games/s)" + (f" → {out}" if out else "")]
    columns = lazy.collect_schema().names()
    seats = sorted(c.removeprefix("agent_") for c in columns if c.startswith("agent_"))
    first = lazy.select(*(pl.col(f"agent_{s}").drop_nulls().first() for s in seats)).collect().row(0)
    has_first = pl.col("first_seat").is_not_null()
    counts = lazy.select(
        *(((pl.col("winner") == o).sum()).alias(o) for o in [*seats, "draw"]),
        (pl.col("winner") == pl.col("first_seat")).sum().alias("first"),
        (has_first & (pl.col("winner") == "draw")).sum().alias("first_draws"),
        has_first.sum().alias("has_first"),
        pl.col("length").mean().alias("mean"), pl.col("length").median().alias("median"),
        pl.col("length").max().alias("max")).collect().row(0, named=True)
    for seat, agent in zip(seats, first, strict=True):
        lines.append(_rate_line(f"{seat} ({agent}) wins", int(counts[seat]), n))
    lines.append(_rate_line("draw", int(counts["draw"]), n))
    if len(seats) == 2:  # two seats: each seat's score, a draw counting half (the two add up to 100 %)
        for seat, agent in zip(seats, first, strict=True):
            lines.append(_rate_line(f"{seat} ({agent}) score", int(counts[seat]) + int(counts["draw"]) / 2, n,
                                    "a draw counts half"))
    if counts["has_first"]:
        k, drawn = int(counts["first"]) + int(counts["first_draws"]) / 2, int(counts["first_draws"])
        lines.append(_rate_line("first seat score", k, int(counts["has_first"]),
                                f"a draw counts half; draws {drawn / int(counts['has_first']):.2%}, "
                                f"{int(counts['first']):,} won"))
    reasons = lazy.group_by("reason").len().sort("len", descending=True).collect()
    lines.append("  end: " + ", ".join(f"{r} {c}" for r, c in reasons.iter_rows()))
    lines.append(f"  length: mean {counts['mean']:.1f}, median {counts['median']:.0f}, max {counts['max']}")
    return "\n".join(lines)


# --------------------------------------------------------------------------------- sweep
def _sweep(model: GameModel, args: argparse.Namespace) -> int:
    from workbench.core.runner import check_games, check_workers
    from workbench.core.seeding import check_master_seed
    from workbench.core.sweep import parse_grid, run_grid

    check_games(args.games)
    check_workers(args.workers)
    check_master_seed(args.seed)
    _check_out(args.out, None)
    grid = parse_grid(args.grid, model)
    for name, values in _param_grid(model, args).items():
        if name in grid:
            raise InputError(f"parameter {name!r} is given both in --grid and as {model.param(name).flag}")
        grid[name] = values
    _check_engine(model, args.engine, args.agents, grid)
    start = time.perf_counter()
    frame = run_grid(model, grid, args.games, out=args.out, seed=args.seed, agents=args.agents,
                     workers=args.workers, engine=args.engine, chunk_size=args.chunk_size, progress=not args.quiet,
                     backend=args.backend, scheduler=args.scheduler, force=args.force)
    print(f"sweep: {frame.height:,} games in {args.out} ({time.perf_counter() - start:.1f} s)")
    print(_cell_table(frame, list(grid)))
    print(f"show it again: workbench sweep show {args.out}; export: workbench sweep export {args.out} --csv FILE")
    return 0


def _cell_table(frame: Any, keys: list[str]) -> str:
    """Each grid cell's seat win rates, draws and first-seat score (a draw counts half), 95 % intervals, as text."""
    import polars as pl

    from workbench.core import metrics

    keys = [k for k in keys if k in frame.columns]

    def fmt(rate: str, low: str, high: str) -> pl.Expr:
        return pl.format("{}% [{}–{}]", *((pl.col(c) * 100).round(1) for c in (rate, low, high)))

    def beside(part: pl.DataFrame, table: pl.DataFrame) -> pl.DataFrame:
        return table.join(part, on=keys, how="left", maintain_order="left") if keys else \
            pl.concat([table, part], how="horizontal")

    rates = metrics.seat_win_rates(frame, keys or None).with_columns(fmt("rate", "low", "high").alias("cell"))
    table = rates.pivot(on="seat", index=[*keys, "n"], values="cell")
    table = table.rename({c: f"{c} wins [95% CI]" for c in table.columns if c not in (*keys, "n")})
    table = beside(metrics.draws(frame, keys or None).select(
        *keys, fmt("draws", "draws_low", "draws_high").alias("draws [95% CI]")), table)
    if "first_seat" in frame.columns and frame["first_seat"].null_count() < frame.height:
        fm = metrics.first_mover(frame, keys or None).select(
            *keys, fmt("first_seat_score", "first_seat_score_low", "first_seat_score_high")
            .alias("first seat score, draw = half [95% CI]"),
            pl.col("first_seat_score_n").alias("games with a first seat"))
        table = beside(fm, table)
    with pl.Config(tbl_formatting="ASCII_MARKDOWN", tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True,
                   tbl_rows=200, tbl_cols=-1, tbl_width_chars=250, fmt_str_lengths=40):
        return str(table)


def _sweep_store(action: str, rest: list[str]) -> int:
    """``workbench sweep show DIR`` and ``workbench sweep export DIR --csv F | --parquet F [--force]``."""
    from workbench.core.store import write_atomic
    from workbench.core.sweep import load_sweep, read_manifest, sweep_status

    p = Parser(prog=f"workbench sweep {action}")
    p.add_argument("dir", type=Path)
    if action == "export":
        p.add_argument("--csv", type=Path, default=None)
        p.add_argument("--parquet", type=Path, default=None)
        p.add_argument("--force", action="store_true", help="replace an existing file")
    args = p.parse_args(rest)
    status = sweep_status(args.dir)
    if action == "show":
        manifest = read_manifest(args.dir)
        print(f"{args.dir}: {status['game']} sweep, {status['status']}; {status['cells']} cells, "
              f"{status['games_done']:,} of {status['games']:,} games in {status['chunks_done']} of "
              f"{status['chunks']} chunks; master seed {manifest['master_seed']}; grid {manifest['grid']}")
        frame = load_sweep(args.dir, partial=True)
        if frame.height:
            print(_cell_table(frame, list(manifest["grid"])))
        if status["games_done"] < status["games"]:
            print("incomplete: run the same `workbench sweep` command again to resume it")
        return 0
    targets = [(t, kind) for t, kind in ((args.csv, ".csv"), (args.parquet, ".parquet")) if t is not None]
    if not targets:
        raise InputError("export needs --csv FILE.csv and/or --parquet FILE.parquet")
    for target, kind in targets:
        _check_out(target, kind)
        if target.exists() and not args.force:
            raise InputError(f"{target} exists; give another file, or --force to replace it")
    frame = load_sweep(args.dir)  # an unfinished sweep says how to resume it
    for target, kind in targets:
        if kind == ".csv":
            from workbench.core.report import csv_safe

            write_atomic(target, lambda tmp: csv_safe(frame).write_csv(tmp))
        else:
            write_atomic(target, lambda tmp: frame.write_parquet(tmp))
        print(f"exported {frame.height:,} games to {target}")
    return 0


# --------------------------------------------------------------------------------- study
def _study(model: GameModel, rest: list[str]) -> int:
    from workbench.core.report import Report, labelled
    from workbench.core.study import get_study, studies

    if not rest or rest[0].startswith("-"):
        print(f"studies of {model.name} (workbench study {model.name} STUDY --help):")
        for study in studies(model):
            print(f"  {study.name:<24} {study.title}")
        return 0
    study = get_study(model, rest[0])
    p = Parser(prog=f"workbench study {model.name} {study.name}", description=study.help)
    p.add_argument("--seed", type=int, default=0, help="master seed (non-negative)")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--out", type=Path, default=None, help="write the tables and charts as a report into DIR")
    for setting in study.settings:
        p.add_argument(setting.flag, dest=f"setting_{setting.name}", default=None, metavar=setting.name.upper(),
                       help=f"{setting.help} [{setting.allowed()}; default {setting.default}]")
    if study.game_params:
        for param in model.params:
            if param.name not in {s.name for s in study.settings}:
                p.add_argument(param.flag, dest=f"param_{param.name}", default=None, metavar=param.name.upper(),
                               help=f"{param.help} [{param.allowed()}; default {param.default}]")
    args = p.parse_args(rest[1:])
    settings = {s.name: getattr(args, f"setting_{s.name}") for s in study.settings
                if getattr(args, f"setting_{s.name}") is not None}
    params = {k.removeprefix("param_"): v for k, v in vars(args).items() if k.startswith("param_") and v is not None}
    _check_out(args.out, None)
    from workbench.core.progress import step

    start = time.perf_counter()
    with step(f"{model.name} study {study.name}") as running:
        tables = study.execute(model, settings, params, seed=args.seed, workers=args.workers,
                               on_progress=running.report)
    import polars as pl

    shown = {k: v for k, v in tables.items() if k != "games"}
    with pl.Config(tbl_formatting="ASCII_MARKDOWN", tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True,
                   tbl_rows=50, tbl_cols=-1, tbl_width_chars=250, fmt_str_lengths=60):
        for name, table in shown.items():
            print(f"## {name}")
            print(labelled(table))
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
def _report(game: str, out: Path | None, quick: bool, seed: int, force: bool = False) -> int:
    from workbench.core.report import check_target, install, staging
    from workbench.core.seeding import check_master_seed
    from workbench.core.store import OutputLock
    from workbench.core.study import report_builder

    check_master_seed(seed)
    names = game_names() if game == "all" else [get_game(game).name]
    if game == "all":
        targets = {name: (out or Path("reports")) / name for name in names}
    else:
        targets = {names[0]: out or Path("reports") / names[0]}
    for target in targets.values():  # every target is checked before any report is computed
        check_target(target, force)
    for name, target in targets.items():
        start = time.perf_counter()
        with OutputLock(target, "report output"), staging(target) as folder:
            built = report_builder(name)(folder / "report", quick=quick, seed=seed)
            install(Path(built), target, force)
        print(f"{name}: report written to {target} in {time.perf_counter() - start:.1f} s")
    return 0


def _report_targets(game: str, out: Path | None) -> dict[str, Path]:
    names = game_names() if game == "all" else [get_game(game).name]
    if game == "all":
        return {name: (out or Path("reports")) / name for name in names}
    return {names[0]: out or Path("reports") / names[0]}


def _stale(summary: dict[str, Any] | None, model: GameModel) -> str:
    """Why a report's summary cannot be reused ("" when it can): none there, or another rules/workbench version."""
    from workbench.core.store import package_version

    if summary is None:
        return "no report with a summary there"
    rules = summary.get("rules_version")
    rules = rules[0] if isinstance(rules, list) and len(rules) == 1 else rules
    if str(rules) != str(model.rules_version):
        return f"the report there was built by rules version {rules}, the rules are now {model.rules_version}"
    if summary.get("workbench_version") != package_version():
        return (f"the report there was built by workbench {summary.get('workbench_version')}, this is "
                f"{package_version()}")
    return ""


def _report_summary(game: str, out: Path | None, quick: bool, seed: int, force: bool = False) -> int:
    """``report GAME --summary``: print the report's summary, building the report only when none is current."""
    from workbench.core.summary import read_summary

    for name, target in _report_targets(game, out).items():
        model = get_game(name)
        why = _stale(read_summary(target), model)
        if why:
            print(f"{name}: building the {'quick ' if quick else ''}report in {target} ({why}), then its summary")
            _report(name, target, quick, seed, force)
        else:
            print(f"{name}: the summary of the report in {target} (built by this rules and workbench version; "
                  "nothing recomputed)")
        path = target / "summary.md"
        print(path.read_text(encoding="utf-8") if path.is_file() else f"{name}: this report states no verdicts.")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
