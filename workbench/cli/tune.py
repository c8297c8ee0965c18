"""``workbench tune GAME --agent greedy --name tuned``: tune an agent's weights by self-play and save them as a set.

A command module of ``workbench/cli/`` (``add_arguments`` on its parser, ``run`` on the parsed arguments).
The work is core's (:func:`workbench.core.skill.tune.tune`); this module only reads flags, holds the weight
set's lock for the run and prints the result.
"""

from __future__ import annotations

import argparse
from typing import Any

import workbench.cli.options as options
from workbench.cli.common import command_line
from workbench.core.errors import InputError
from workbench.core.model import get_game, shown_path

__all__ = ["HELP", "add_arguments", "cells", "preflight", "run"]

HELP = "tune an agent's weights by self-play (data/GAME/agents/NAME.toml; play it as greedy@NAME)"
RAW = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of ``workbench tune``."""
    parser.add_argument("game", help="the game (see `workbench games`)")
    parser.add_argument("--agent", default="greedy", help="the agent whose float options are tuned (default greedy)")
    options.add(parser, "name", help="the weight set written: data/GAME/agents/NAME.toml, played as AGENT@NAME "
                                     "(default tuned)")
    options.add(parser, "budget", default=20_000, help="games the tuning may play (default 20000)")
    options.add(parser, "seed", help="the tuning's seed (default 0)")
    options.add(parser, "games", default=200,
                help="games per candidate and parameter cell, half in each seat (default 200)")
    parser.add_argument("--popsize", type=options.positive("popsize", 10_000), default=None,
                        help="candidates per generation (default 4 + 3 ln d)")
    parser.add_argument("--sigma", type=options.fraction("sigma", 0, 1, high_open=False, example=" (a share of each "
                                                         "box)"), default=0.15,
                        help="initial step, a share of each box (default 0.15)")
    parser.add_argument("--box-scale", type=options.fraction("box-scale", 0, 1e6), default=3.0,
                        help="each weight's box is ± this × max(|default|, 0.1) (default 3)")
    parser.add_argument("--options", default=None, help="the options tuned, comma-separated (default every float "
                                                        "option)")
    parser.add_argument("--start", default=None, help="the spec the search starts from (default the agent's "
                                                      "defaults), e.g. greedy@tuned")
    parser.add_argument("--against", default=None, help="the opponent (default the agent with default options)")
    parser.add_argument("--validate", type=options.at_least_zero("validate"), default=2000,
                        help="held-out games of the result against the opponent, both seats (default 2000; 0: none)")
    options.add(parser, "params", metavar="K=V",
                help="game parameters; a comma list or 'all' plays every value (a grid of cells)")
    parser.add_argument("--together", default=None, metavar="K1,K2",
                        help="parameters whose lists are paired, not crossed (e.g. deck_p1,deck_p2: the mirrors)")
    options.add(parser, "cards", help="a cards CSV: re-tune for an edited card set (the game's card table "
                                      "parameter)")
    options.add(parser, "workers")
    options.add(parser, "backend")
    options.add(parser, "scheduler")
    options.add(parser, "engine", default="fast", choices=("fast", "reference"), help="the engine (default fast)")
    parser.add_argument("--population", default=None, metavar="SPEC,SPEC",
                        help="raise the agent in rounds against this population (earlier tiers, e.g. "
                             "greedy,greedy@tuned), every earlier round's set and itself; each round writes "
                             "NAME-rK, the last also NAME (workbench.core.skill.raising; --budget is per round)")
    parser.add_argument("--rounds", type=options.positive("rounds", 1000), default=None,
                        help="rounds of the raising loop (default 3 with --population)")
    parser.add_argument("--cycle", type=options.positive("cycle", 10_000), default=None, metavar="K",
                        help="parameter cells a generation plays, in turn (default every cell): more games a cell "
                             "for the same budget, e.g. 5 of Babylon's 25 deck pairings")
    options.add(parser, "resume", help="continue the interrupted tuning of NAME")
    options.add(parser, "force", help="replace an existing set, discard a checkpoint")


def preflight(args: argparse.Namespace) -> None:
    """The checks made before any game: a set that exists needs --force; --resume needs something to resume."""
    from workbench.core.skill.tune import set_path, tune_folder

    model = get_game(args.game)
    target = set_path(model, args.name)
    if args.resume and args.force:
        raise InputError("give --resume (continue the tuning kept) or --force (start again), not both")
    if target.exists() and not args.force and not args.resume:
        raise InputError(f"{shown_path(target)} exists; give another --name, or --force to replace it")
    if args.resume:
        rounds = [f"{args.name}-r{r}" for r in range(1, 100)] if args.population or args.rounds else []
        kept = [n for n in [args.name, *rounds] if tune_folder(model, n).exists() or
                (n != args.name and set_path(model, n).exists())]
        if not kept:
            raise InputError(f"nothing to resume: {shown_path(tune_folder(model, args.name))} holds no interrupted "
                             f"tuning of {args.name!r}; start without --resume")


def cells(game: str, items: list[str], together: str | None, cards: str | None) -> list[dict[str, Any]]:
    """The parameter cells of ``--params`` (crossed, except the ``--together`` ones, which are paired)."""
    from workbench.core.design.cardtable import card_table
    from workbench.core.sim.sweep import parse_grid

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


def run(args: argparse.Namespace, rest: list[str] | None = None, argv: list[str] | None = None) -> int:
    """Run ``workbench tune`` on parsed arguments; print the held-out result and the file written.

    The weight set's lock (``NAME.toml.lock``) is held for the whole run: a second tuning of the same
    name — even with ``--force`` — is refused while the first runs, its checkpoint untouched.
    """
    from workbench.core.sim.store import OutputLock
    from workbench.core.skill.tune import set_path

    preflight(args)
    command = command_line("tune", argv)
    with OutputLock(set_path(get_game(args.game), args.name), f"weight set {args.name!r}"):
        return _run(args, command)


def _run(args: argparse.Namespace, command: str) -> int:
    from workbench.core.skill.tune import tune

    tuned = [o.strip() for o in args.options.split(",")] if args.options else None
    if args.population is not None or args.rounds is not None:
        return _raise(args, tuned, command)
    result = tune(args.game, args.agent, name=args.name, budget=args.budget, seed=args.seed,
                  params=cells(args.game, args.params, args.together, args.cards), options=tuned,
                  start=args.start, opponent=args.against, games=args.games, popsize=args.popsize, sigma=args.sigma,
                  box_scale=args.box_scale, validate=args.validate, engine=args.engine, workers=args.workers,
                  backend=args.backend, scheduler=args.scheduler, resume=args.resume, force=args.force,
                  command=command, cycle=args.cycle)
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


def _raise(args: argparse.Namespace, options: list[str] | None, command: str) -> int:
    """``--population``/``--rounds``: the raising loop; print each round's curve end and held-out scores."""
    from workbench.core.skill.raising import raise_agent
    from workbench.core.skill.tiers import default_tiers

    if args.against is not None:
        raise InputError("give --against (one opponent) or --population (rounds against several), not both")
    model = get_game(args.game)
    result = raise_agent(model, args.agent, name=args.name, population=args.population or default_tiers(model),
                         rounds=3 if args.rounds is None else args.rounds, budget=args.budget, seed=args.seed,
                         params=cells(args.game, args.params, args.together, args.cards), options=options,
                         start=args.start, games=args.games, popsize=args.popsize, sigma=args.sigma,
                         box_scale=args.box_scale, validate=args.validate, engine=args.engine, workers=args.workers,
                         backend=args.backend, scheduler=args.scheduler, resume=args.resume, force=args.force,
                         command=command, cycle=args.cycle)
    for row in result.data["rounds"]:
        print(f"round {row['round']}: {row['generations']} generations, {row['games_played']:,} games; last centre "
              f"vs its population {row['centre']:.1%} [{row['centre_low']:.1%}, {row['centre_high']:.1%}] "
              f"(n = {row['centre_n']:,})")
    for row in result.data["held_out"]:
        print(f"  held out, round {row['round']} vs {row['opponent']}: {row['score']:.1%} "
              f"[{row['low']:.1%}, {row['high']:.1%}], n = {row['n']:,}")
    for row in result.data["widened"]:
        print(f"  widened after round {row['round']}: {row['option']} [{row['low_before']}, {row['high_before']}] "
              f"-> [{row['low']}, {row['high']}] (at {row['value']})")
    print(f"options: {result.spec}")
    print(f"wrote {result.path} (and one set per round: {args.name}-r1 …)")
    return 0
