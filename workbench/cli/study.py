"""``workbench study GAME STUDY [flags]``: a game's study: its tables on the terminal, a report with ``--out``.

A study's own settings (``--games``, ``--agents`` …) and, for a study that takes them, the game's
parameters are flags; a setting named like a shared option is checked by the shared option too.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import workbench.cli.options as options
from workbench.cli.common import Parser, add_declared, add_game_params, table_text
from workbench.core.model import GameModel, get_game

HELP = "run a game's study (see `workbench games`): tables, and a report with --out"
RAW = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The top level's part: the game (the study and its flags are parsed by :func:`run`)."""
    parser.add_argument("game")


def study_parser(model: GameModel, study: Any) -> argparse.ArgumentParser:
    """``workbench study GAME STUDY``'s flags: the shared ones, the study's settings, the game's parameters."""
    p = Parser(prog=f"workbench study {model.name} {study.name}", description=study.help)
    options.add(p, "seed")
    options.add(p, "workers")
    options.add(p, "out", help="write the tables and charts as a report into DIR")
    options.add(p, "force", help="write into a non-empty directory that holds no report (its other files are kept), "
                                 "or replace another game's report there")
    for setting in study.settings:
        add_declared(p, setting, f"setting_{setting.name}")
    if study.game_params:
        add_game_params(p, model, {s.name for s in study.settings})
    return p


def parsers(game: str) -> list[argparse.ArgumentParser]:
    """Every parser of this command for ``game``: one a study (tests walk them)."""
    from workbench.core.studies.study import studies

    model = get_game(game)
    return [study_parser(model, study) for study in studies(model)]


def run(known: argparse.Namespace, rest: list[str], argv: list[str]) -> int:
    """List the game's studies, or run one."""
    return _study(get_game(known.game), rest)


def _study(model: GameModel, rest: list[str]) -> int:
    from workbench.core.sim.outdir import held
    from workbench.core.studies.study import get_study, studies

    if not rest or rest[0].startswith("-"):
        print(f"studies of {model.name} (workbench study {model.name} STUDY --help):")
        for study in studies(model):
            print(f"  {study.name:<24} {study.title}")
        return 0
    study = get_study(model, rest[0])
    args = study_parser(model, study).parse_args(rest[1:])
    with held(args.out, "study --out"):
        return _run(model, study, args)


def _run(model: GameModel, study: Any, args: argparse.Namespace) -> int:
    from workbench.core.present.report import Report, check_target, labelled

    settings = {s.name: getattr(args, f"setting_{s.name}") for s in study.settings
                if getattr(args, f"setting_{s.name}") is not None}
    params = {k.removeprefix("param_"): v for k, v in vars(args).items() if k.startswith("param_") and v is not None}
    if args.out is not None:
        check_target(args.out, args.force, model.name)  # a folder of other files is refused before a game is played
    from workbench.core.sim.progress import step

    start = time.perf_counter()
    with step(f"{model.name} study {study.name}") as running:
        tables = study.execute(model, settings, params, seed=args.seed, workers=args.workers,
                               on_progress=running.report)
    shown = {k: v for k, v in tables.items() if k != "games"}
    for name, table in shown.items():
        print(f"## {name}")
        print(table_text(labelled(table), rows=50))
    print(f"{study.name}: {time.perf_counter() - start:.1f} s")
    if args.out is not None:
        rep = Report(f"{model.title}: {study.title}", {"rules_version": model.rules_version, "seed": args.seed,
                                                         "games": settings.get("games", "see tables"),
                                                         "agents": settings.get("agents") or "defaults"},
                     game=model.name)
        for name, table in shown.items():
            rep.table(name, table)
        for name, chart in study.make_charts(tables).items():
            rep.chart(f"{name}_chart", chart)
        print(f"report written to {rep.write(args.out, args.force)}")
    return 0

