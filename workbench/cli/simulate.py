"""``workbench simulate GAME [flags]``: play seeded games; rates with intervals, or a Parquet file with ``--out``.

Every parameter the game declares is a flag (``--start-wall 20``); a choice parameter also takes
``all`` or a comma list, which runs every combination.
"""

from __future__ import annotations

import argparse
import sys
import time

import workbench.cli.options as options
from workbench.cli.common import Parser, add_game_params, check_engine, param_grid, pl_scan, summary
from workbench.core.errors import RunInterrupted
from workbench.core.model import GameModel, get_game

HELP = "simulate a game (game parameters become flags)"
RAW = True  # the game's own flags are read once the game is known


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The top level's part: the game (its flags are :func:`game_parser`'s)."""
    parser.add_argument("game")


def add_run_options(p: argparse.ArgumentParser, model: GameModel) -> None:
    """The options ``simulate`` and ``sweep`` share (games, seed, agents, workers, engine, backend …)."""
    options.add(p, "games", default=1000, help="games per parameter combination (default 1000)")
    options.add(p, "seed")
    options.add(p, "agents")
    options.add(p, "workers")
    options.add(p, "engine", choices=(*model.engines, "auto"),
                help=f"one of {', '.join(model.engines)}, auto (default auto: the fastest that supports the agents)")
    p.add_argument("--chunk-size", type=options.positive("chunk-size"), default=None, help="games a chunk")
    options.add(p, "quiet")
    options.add(p, "backend")
    options.add(p, "scheduler")


def game_parser(model: GameModel) -> argparse.ArgumentParser:
    """``workbench simulate GAME``'s flags."""
    p = Parser(prog=f"workbench simulate {model.name}")
    add_run_options(p, model)
    options.add(p, "force", help="replace an existing --out file, or discard the finished parts of a run with "
                                 "other settings")
    options.add(p, "out_parquet", help="write the results to FILE.parquet (streamed: memory stays bounded whatever "
                                       "--games is; resumable)")
    add_game_params(p, model)
    return p


def parsers(game: str) -> list[argparse.ArgumentParser]:
    """Every parser of this command for ``game`` (tests walk them)."""
    return [game_parser(get_game(game))]


def run(known: argparse.Namespace, rest: list[str], argv: list[str]) -> int:
    """Parse the game's flags, then simulate."""
    from workbench.core.sim.outdir import held

    model = get_game(known.game)
    args = game_parser(model).parse_args(rest)
    with held(args.out, "simulate --out"):
        return _simulate(model, args)


def _simulate(model: GameModel, args: argparse.Namespace) -> int:
    from workbench.core.sim.runner import iter_grid
    from workbench.core.sim.stream import check_memory, simulate_to_parquet
    from workbench.core.sim.sweep import run_grid

    grid = param_grid(model, args)  # the shared options were checked while parsing
    check_engine(model, args.engine, args.agents, grid)
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
        print(summary(pl_scan(args.out), time.perf_counter() - start, args.out, done.games))
        return 0
    cells = list(iter_grid(grid)) or [{}]
    check_memory(model, args.games, cells, args.agents, args.engine)  # refuses before any game is played
    frame = run_grid(model, grid, args.games, agents=args.agents, seed=args.seed, workers=args.workers,
                     backend=args.backend, scheduler=args.scheduler, engine=args.engine,
                     chunk_size=args.chunk_size, progress=not args.quiet)
    print(summary(frame.lazy(), time.perf_counter() - start, None, frame.height))
    return 0
