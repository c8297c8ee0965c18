"""``workbench tune GAME --agent greedy --name tuned``: tune an agent's weights by self-play and save them as a set.

Wired into ``workbench/cli.py`` as a sub-command (``add_arguments`` on its parser, ``run`` on the parsed
arguments).  The work is core's
(:func:`workbench.core.tune.tune`); this module only reads flags and prints the result.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any

from workbench.core.errors import InputError
from workbench.core.model import get_game

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of ``workbench tune``."""
    parser.add_argument("game", help="the game (see `workbench games`)")
    parser.add_argument("--agent", default="greedy", help="the agent whose float options are tuned (default greedy)")
    parser.add_argument("--name", default="tuned", help="the weight set written: data/GAME/agents/NAME.toml, "
                                                        "played as AGENT@NAME (default tuned)")
    parser.add_argument("--budget", type=int, default=20_000, help="games the tuning may play (default 20000)")
    parser.add_argument("--seed", type=int, default=0, help="the tuning's seed (default 0)")
    parser.add_argument("--games", type=int, default=200,
                        help="games per candidate and parameter cell, half in each seat (default 200)")
    parser.add_argument("--popsize", type=int, default=None, help="candidates per generation (default 4 + 3 ln d)")
    parser.add_argument("--sigma", type=float, default=0.15, help="initial step, a share of each box (default 0.15)")
    parser.add_argument("--box-scale", type=float, default=3.0,
                        help="each weight's box is ± this × max(|default|, 0.1) (default 3)")
    parser.add_argument("--options", default=None, help="the options tuned, comma-separated (default every float "
                                                        "option)")
    parser.add_argument("--start", default=None, help="the spec the search starts from (default the agent's "
                                                      "defaults), e.g. greedy@tuned")
    parser.add_argument("--against", default=None, help="the opponent (default the agent with default options)")
    parser.add_argument("--validate", type=int, default=2000,
                        help="held-out games of the result against the opponent, both seats (default 2000; 0: none)")
    parser.add_argument("--params", nargs="*", default=[], metavar="K=V",
                        help="game parameters; a comma list or 'all' plays every value (a grid of cells)")
    parser.add_argument("--together", default=None, metavar="K1,K2",
                        help="parameters whose lists are paired, not crossed (e.g. deck_p1,deck_p2: the mirrors)")
    parser.add_argument("--cards", default=None, help="a cards CSV: re-tune for an edited card set (the game's "
                                                      "card table parameter)")
    parser.add_argument("--workers", type=int, default=1, help="workers (threads for compiled engines)")
    parser.add_argument("--backend", default="local", choices=("local", "dask"))
    parser.add_argument("--scheduler", default=None, help="a Dask scheduler address (backend dask)")
    parser.add_argument("--engine", default="fast", choices=("fast", "reference"))
    parser.add_argument("--resume", action="store_true", help="continue the interrupted tuning of NAME")
    parser.add_argument("--force", action="store_true", help="replace an existing set, discard a checkpoint")


def cells(game: str, items: list[str], together: str | None, cards: str | None) -> list[dict[str, Any]]:
    """The parameter cells of ``--params`` (crossed, except the ``--together`` ones, which are paired)."""
    from workbench.core.cardtable import card_table
    from workbench.core.sweep import parse_grid

    model = get_game(game)
    grid = parse_grid(items, model)
    if cards is not None:
        table = card_table(model)
        if table is None:
            raise InputError(f"{model.name} has no card table; --cards is for games with one")
        if table.param in grid:
            raise InputError(f"give the cards once: --cards or --params {table.param}=…")
        grid[table.param] = [cards]
    paired = [k.strip().replace("-", "_") for k in (together or "").split(",") if k.strip()]
    for key in paired:
        if key not in grid:
            raise InputError(f"--together {key}: not among the --params ({', '.join(grid) or 'none'})")
    lengths = {len(grid[k]) for k in paired}
    if len(lengths) > 1:
        raise InputError(f"--together {','.join(paired)}: the lists have different lengths ({sorted(lengths)})")
    rows: list[dict[str, Any]] = [{}]
    if paired:
        rows = [{k: grid[k][i] for k in paired} for i in range(lengths.pop())]
    for key, values in grid.items():
        if key not in paired:
            rows = [{**row, key: v} for row in rows for v in values]
    return rows


def run(args: argparse.Namespace, argv: list[str] | None = None) -> int:
    """Run ``workbench tune`` on parsed arguments; print the held-out result and the file written."""
    from workbench.core.tune import tune

    words = list(argv if argv is not None else sys.argv[1:])
    command = "workbench tune " + shlex.join(words[1:] if words[:1] == ["tune"] else words)
    options = [o.strip() for o in args.options.split(",")] if args.options else None
    result = tune(args.game, args.agent, name=args.name, budget=args.budget, seed=args.seed,
                  params=cells(args.game, args.params, args.together, args.cards), options=options,
                  start=args.start, opponent=args.against, games=args.games, popsize=args.popsize, sigma=args.sigma,
                  box_scale=args.box_scale, validate=args.validate, engine=args.engine, workers=args.workers,
                  backend=args.backend, scheduler=args.scheduler, resume=args.resume, force=args.force,
                  command=command)
    last = result.curve[-1]
    print(f"{len(result.curve)} generations, {last['evaluations']:,} games; last centre vs opponent "
          f"{last['centre']:.1%} [{last['centre_low']:.1%}, {last['centre_high']:.1%}] (n = {last['centre_n']:,})")
    if result.validation is not None:
        v = result.validation
        print(f"held out: {args.agent}@{args.name} vs {v['opponent']}: {v['score']:.1%} "
              f"[{v['low']:.1%}, {v['high']:.1%}], n = {v['n']:,} ({v['wins']:,} won, {v['draws']:,} drawn, "
              f"{v['losses']:,} lost; exact p = {v['p_value']:.2g})")
    print(f"options: {result.spec}")
    print(f"wrote {result.path}")
    return 0
