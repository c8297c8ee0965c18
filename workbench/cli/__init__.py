"""The ``workbench`` command: one module per command, one shared set of options (``workbench/cli/options.py``).

Commands: ``games``, ``simulate``, ``sweep``, ``study``, ``report``, ``ladder``, ``tune``,
``rebalance``, ``compile`` (each a module here: ``HELP``, ``add_arguments(parser)``,
``run(args, rest, argv)``), and each game's own commands (the duel's ``shuffle``), discovered from
the registry: nothing here names a game.  Every parameter a game declares is a flag of
``simulate``, ``sweep`` and ``study`` in kebab-case (``--start-wall 20``), validated against its
declared range; a choice parameter also takes ``all`` or a comma list, which runs every combination.

The options commands share (``--workers``, ``--seed``, ``--budget``, ``--out``, ``--backend`` …) are
defined once in :mod:`workbench.cli.options` and checked while the line is parsed, so a bad value is
refused the same way by every command, before any work and before any file is written.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from types import ModuleType
from typing import Any

from workbench.cli.common import Parser
from workbench.core.errors import InputError, OutputError, RunInterrupted, WorkbenchError
from workbench.core.model import game_names

__all__ = ["CORE_COMMANDS", "Parser", "check", "command_module", "main", "parse", "top_parser"]

CORE_COMMANDS = ("games", "simulate", "sweep", "study", "report", "ladder", "tune", "rebalance", "compile")


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
    from workbench.core.sim.stopping import deferred_stops

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


def command_module(name: str) -> ModuleType:
    """The module of core command ``name`` (``workbench.cli.tune``)."""
    return importlib.import_module(f"workbench.cli.{name}")


def _game_commands() -> dict[str, Any]:
    """Every game's declared commands by name (a name two games declare is an error)."""
    from workbench.core.studies.study import commands

    found: dict[str, Any] = {}
    for game in game_names():
        for command in commands(game):
            if command.name in CORE_COMMANDS or command.name in found:
                raise InputError(f"game {game!r} declares a command {command.name!r} that already exists")
            found[command.name] = command
    return found


def top_parser(with_game_commands: bool = True) -> tuple[Parser, dict[str, argparse.ArgumentParser], dict[str, Any]]:
    """The ``workbench`` parser, each command's parser by name, and the games' own commands by name."""
    top = Parser(prog="workbench", description="Tower games balancing workbench")
    sub = top.add_subparsers(dest="command", required=True, parser_class=Parser)
    parsers: dict[str, argparse.ArgumentParser] = {}
    for name in CORE_COMMANDS:
        module = command_module(name)
        parsers[name] = sub.add_parser(name, help=module.HELP, add_help=not module.RAW)
        module.add_arguments(parsers[name])
    game_commands = _game_commands() if with_game_commands else {}
    for command in game_commands.values():
        parsers[command.name] = sub.add_parser(command.name, help=command.help)
        command.add_arguments(parsers[command.name])
    return top, parsers, game_commands


def parse(argv: list[str]) -> tuple[Any, argparse.Namespace, list[str]]:
    """Parse a command line as the command would: ``(what runs it, its arguments, the game's flags left)``.

    Every shared option is checked here; a bad value exits with status 2 and one message.  A
    command whose flags depend on its game (``simulate``, ``sweep``, ``study``) leaves them in the
    third item, which its ``run`` parses (:func:`check` parses them too, for a test).
    """
    # a core command needs no game's own commands: importing every game to list them cost seconds a call
    top, _, game_commands = top_parser(not (argv[:1] and argv[0] in CORE_COMMANDS))
    known, rest = top.parse_known_args(argv)
    if known.command in game_commands:
        if rest:
            top.error(f"unrecognized arguments: {' '.join(rest)}")
        return game_commands[known.command], known, []
    module = command_module(known.command)
    if rest and not module.RAW:
        top.error(f"unrecognized arguments: {' '.join(rest)}")
    return module, known, rest


def check(argv: list[str]) -> argparse.Namespace:
    """Parse ``argv`` fully — a game's flags too — and run the command's checks made before any work (no game)."""
    from workbench.core.model import get_game

    runner, known, rest = parse(argv)
    if getattr(runner, "RAW", False):
        model = get_game(known.game) if known.game not in ("show", "export") else None
        if known.command == "study":
            from workbench.core.studies.study import get_study

            return runner.study_parser(model, get_study(model, rest[0])).parse_args(rest[1:])
        if known.command == "sweep" and known.game in ("show", "export"):
            return runner.store_parser(known.game).parse_args(rest)
        from workbench.cli.common import param_grid

        args = runner.game_parser(model).parse_args(rest)
        param_grid(model, args)  # every parameter value in its declared range
        return args
    preflight = getattr(runner, "preflight", None)
    if preflight is not None:
        preflight(known)
    return known


def _dispatch(argv: list[str]) -> int:
    if argv and argv[0] in ("simulate", "sweep", "study") and (len(argv) == 1 or argv[1] in ("-h", "--help")):
        return command_module("games").which_game(argv[0])
    from workbench.core.sim.outdir import held

    runner, known, rest = parse(argv)
    if not isinstance(runner, ModuleType):
        return runner.run(known)  # a game's own command
    if runner.RAW:  # its --out is read with the game's flags: its run holds it
        return runner.run(known, rest, argv)
    what = getattr(runner, "OUT_WHAT", f"{known.command} --out")
    with held(getattr(known, "out", None), what):  # one writer, from before any work
        return runner.run(known, rest, argv)

