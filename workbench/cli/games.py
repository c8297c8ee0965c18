"""``workbench games [GAME] [--rules]``: the games, their parameters, agents, engines, tiers, studies and commands."""

from __future__ import annotations

import argparse

from workbench.core.errors import InputError
from workbench.core.model import GameModel, game_names, get_game

HELP = "list games, their parameters, agents, engines, studies and commands"
RAW = False


def add_arguments(games: argparse.ArgumentParser) -> None:
    """The flags of ``workbench games``."""
    games.add_argument("game", nargs="?", default=None, help="one game only")
    games.add_argument("--rules", action="store_true",
                       help="print the path of the game's rules page (docs/rules/GAME.md) and its first section")


def run(args: argparse.Namespace, rest: list[str], argv: list[str]) -> int:
    """List the games (or one), or print a game's rules page summary."""
    return _rules(args.game) if args.rules else _games(args.game)


def which_game(command: str) -> int:
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
    from workbench.core.present.docs import rules_summary

    if game is None:
        raise InputError(f"--rules needs a game (workbench games GAME --rules); games: {', '.join(game_names())}")
    print(rules_summary(get_game(game)))
    return 0


def _tiers_line(model: GameModel) -> str:
    """``greedy < greedy@tuned < search (a search game costs 25 fast ones)``, and the declared tiers not there yet."""
    from workbench.core.skill.tiers import declared_tiers

    tiers = declared_tiers(model)
    shown = " < ".join(t.label + (f" (a game costs {t.cost:g} fast ones: studies play fewer)" if t.cost > 1 else "")
                       for t in tiers)
    missing = [s for s in model.tiers if s not in {t.agent for t in tiers}]
    return shown + (f"; declared, no weight set yet: {', '.join(missing)}" if missing else "") + \
        ("" if model.tiers else " (not declared: the default)")


def _games(only: str | None = None) -> int:
    from workbench.core.studies.study import commands, studies

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

