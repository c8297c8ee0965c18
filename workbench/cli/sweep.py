"""``workbench sweep GAME --grid … --out DIR``: a resumable grid of runs; ``sweep show DIR``, ``sweep export DIR``."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import workbench.cli.options as options
from workbench.cli.common import Parser, add_game_params, cell_table, check_engine, param_grid
from workbench.cli.simulate import add_run_options
from workbench.core.errors import InputError
from workbench.core.model import GameModel, get_game

HELP = "sweep a game (game parameters become flags)"
RAW = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The top level's part: the game, or ``show``/``export`` (their flags are parsed by :func:`run`)."""
    parser.add_argument("game", help="a game, or show DIR / export DIR")


def game_parser(model: GameModel) -> argparse.ArgumentParser:
    """``workbench sweep GAME``'s flags."""
    p = Parser(prog=f"workbench sweep {model.name}")
    add_run_options(p, model)
    options.add(p, "force", help="accepted for symmetry; a store holds one sweep, so another sweep needs another "
                                 "--out")
    p.add_argument("--grid", nargs="+", default=[], metavar="PARAM=V1,V2",
                   help="grid over declared parameters; 'all' expands a choice parameter")
    options.add(p, "out", required=True, help="sweep directory (resumable)")
    add_game_params(p, model)
    return p


def store_parser(action: str) -> argparse.ArgumentParser:
    """``workbench sweep show DIR`` / ``sweep export DIR``'s flags."""
    p = Parser(prog=f"workbench sweep {action}")
    p.add_argument("dir", type=Path)
    if action == "export":
        p.add_argument("--csv", type=Path, default=None)
        p.add_argument("--parquet", type=Path, default=None)
        options.add(p, "force", help="replace an existing file")
    return p


def parsers(game: str) -> list[argparse.ArgumentParser]:
    """Every parser of this command for ``game`` (tests walk them)."""
    return [game_parser(get_game(game)), store_parser("show"), store_parser("export")]


def run(known: argparse.Namespace, rest: list[str], argv: list[str]) -> int:
    """A sweep, or ``show``/``export`` of a stored one."""
    if known.game in ("show", "export"):
        return _sweep_store(known.game, rest)
    from workbench.core.sim.outdir import held

    model = get_game(known.game)
    args = game_parser(model).parse_args(rest)
    with held(args.out, "sweep --out"):
        _check_store(args.out)
        return _sweep(model, args)


def _check_store(out: Path) -> None:
    """A sweep goes into a new or empty folder, or a sweep store: a folder of other files is refused, untouched."""
    from workbench.core.sim.sweep import MANIFEST

    if not out.is_dir() or (out / MANIFEST).is_file():
        return
    others = sorted(p.name for p in out.iterdir())
    if others:
        raise InputError(f"sweep --out {out} holds files that are not a sweep's ({', '.join(others[:4])}"
                         f"{' …' if len(others) > 4 else ''}); they are left untouched: give a new or empty folder")


def _sweep(model: GameModel, args: argparse.Namespace) -> int:
    from workbench.core.sim.sweep import parse_grid, run_grid

    grid = parse_grid(args.grid, model)
    for name, values in param_grid(model, args).items():
        if name in grid:
            raise InputError(f"parameter {name!r} is given both in --grid and as {model.param(name).flag}")
        grid[name] = values
    check_engine(model, args.engine, args.agents, grid)
    start = time.perf_counter()
    frame = run_grid(model, grid, args.games, out=args.out, seed=args.seed, agents=args.agents,
                     workers=args.workers, engine=args.engine, chunk_size=args.chunk_size, progress=not args.quiet,
                     backend=args.backend, scheduler=args.scheduler, force=args.force)
    print(f"sweep: {frame.height:,} games in {args.out} ({time.perf_counter() - start:.1f} s)")
    print(cell_table(frame, list(grid)))
    print(f"show it again: workbench sweep show {args.out}; export: workbench sweep export {args.out} --csv FILE")
    return 0



def _sweep_store(action: str, rest: list[str]) -> int:
    """``workbench sweep show DIR`` and ``workbench sweep export DIR --csv F | --parquet F [--force]``."""
    from workbench.core.sim.store import write_atomic
    from workbench.core.sim.sweep import load_sweep, read_manifest, sweep_status

    args = store_parser(action).parse_args(rest)
    status = sweep_status(args.dir)
    if action == "show":
        manifest = read_manifest(args.dir)
        print(f"{args.dir}: {status['game']} sweep, {status['status']}; {status['cells']} cells, "
              f"{status['games_done']:,} of {status['games']:,} games in {status['chunks_done']} of "
              f"{status['chunks']} chunks; master seed {manifest['master_seed']}; grid {manifest['grid']}")
        frame = load_sweep(args.dir, partial=True)
        if frame.height:
            print(cell_table(frame, list(manifest["grid"])))
        if status["games_done"] < status["games"]:
            print("incomplete: run the same `workbench sweep` command again to resume it")
        return 0
    targets = [(t, kind) for t, kind in ((args.csv, ".csv"), (args.parquet, ".parquet")) if t is not None]
    if not targets:
        raise InputError("export needs --csv FILE.csv and/or --parquet FILE.parquet")
    for target, kind in targets:
        options.check_out(target, kind)
        if target.exists() and not args.force:
            raise InputError(f"{target} exists; give another file, or --force to replace it")
    frame = load_sweep(args.dir)  # an unfinished sweep says how to resume it
    for target, kind in targets:
        if kind == ".csv":
            from workbench.core.present.report import csv_safe

            write_atomic(target, lambda tmp: csv_safe(frame).write_csv(tmp))
        else:
            write_atomic(target, lambda tmp: frame.write_parquet(tmp))
        print(f"exported {frame.height:,} games to {target}")
    return 0

