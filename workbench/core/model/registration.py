"""The game registry: the games found by package, and those ``WORKBENCH_GAMES`` names.

Every package ``workbench/games/<name>/`` with a ``model`` module holding ``MODEL`` is a game.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
from functools import lru_cache

from workbench.core.errors import InputError
from workbench.core.model.facts import RULES_VERSION_FORMAT
from workbench.core.model.game import GameModel

# -- registry -------------------------------------------------------------------------------------
GAMES_PACKAGE = "workbench.games"
ENV_GAMES = "WORKBENCH_GAMES"


def _package_games() -> dict[str, str]:
    """``{name: model module}`` for every package under ``workbench/games/`` with a ``model`` module."""
    spec = importlib.util.find_spec(GAMES_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return {}
    found = {}
    for info in pkgutil.iter_modules(spec.submodule_search_locations):
        if info.ispkg and importlib.util.find_spec(f"{GAMES_PACKAGE}.{info.name}.model") is not None:
            found[info.name] = f"{GAMES_PACKAGE}.{info.name}.model"
    return found


@lru_cache(maxsize=8)
def _registry(extra: str) -> dict[str, str]:
    found = _package_games()
    for module in filter(None, (m.strip() for m in extra.split(","))):
        model = _load(module)
        found[model.name] = module
    return found


def _load(module: str) -> GameModel:
    try:
        model = getattr(importlib.import_module(module), "MODEL", None)
    except ModuleNotFoundError as exc:
        raise InputError(f"game module {module!r} cannot be imported ({exc}); check {ENV_GAMES}") from None
    if not isinstance(model, GameModel):
        raise InputError(f"game module {module!r} has no MODEL (a GameModel instance)")
    check_rules_version(model)
    return model


def check_rules_version(model: GameModel) -> None:
    """A rules version has the one format: ``<game>[-<part>]-<major>[.<minor>]`` (e.g. ``babel-1``)."""
    found = RULES_VERSION_FORMAT.match(model.rules_version or "")
    if found is None or found["game"] != model.name:
        raise InputError(f"{model.name}: rules version {model.rules_version!r} is not "
                         f"'{model.name}[-part]-MAJOR[.MINOR]' (e.g. '{model.name}-1')")


def registry() -> dict[str, str]:
    """``{game name: model module}`` of every registered game."""
    return dict(_registry(os.environ.get(ENV_GAMES, "")))


def game_names() -> list[str]:
    """Names of the registered games, in a stable order."""
    return sorted(registry())


def value_names() -> dict[str, dict[str, str]]:
    """``{column: {key: display name}}`` from the games already loaded in this process.

    A column named after a parameter that declares ``choice_names`` (the duel's ``battlefield``,
    Babylon's ``deck_p1``), or listed in a game's ``value_columns``, reads by display name in every
    table a person sees (``core.present.report.display_frame``); CSV and Parquet keep the keys.  Only games
    already imported are asked (a table shown comes from a game that is loaded), so showing a table
    never imports a game.
    """
    import sys

    out: dict[str, dict[str, str]] = {}
    for module in registry().values():
        model = getattr(sys.modules.get(module), "MODEL", None)
        if not isinstance(model, GameModel) or not model.choice_names:
            continue
        columns = {**{p: p for p in model.choice_names}, **model.value_columns}
        for column, param in columns.items():
            if param not in model.choice_names:
                continue
            names = out.setdefault(column, {})
            for key in model.param(param).choices or ():
                names[str(key)] = model.choice_label(param, key)
    return out


def get_game(name: str | GameModel) -> GameModel:
    """The model registered as ``name`` (a model instance passes through)."""
    if isinstance(name, GameModel):
        return name
    games = registry()
    if name not in games:
        raise InputError(f"unknown game {name!r}; allowed: {', '.join(sorted(games))}")
    model = _load(games[name])
    if model.name != name:
        raise InputError(f"{games[name]}.MODEL is named {model.name!r}, not {name!r}: a game package's name "
                         "is its game's name")
    return model


def model_ref(model: GameModel) -> str:
    """What a worker process needs to find ``model`` again: its registered name, or ``module:NAME``.

    A model that is not registered (a study's own sub-model, a test game) is found by the module
    attribute that holds it; one held by no module attribute cannot be sent to another process.
    """
    games = registry()
    module = type(model).__module__
    if games.get(model.name) == module:
        return model.name
    names = [k for k, v in vars(importlib.import_module(module)).items() if v is model]
    if not names:
        raise InputError(f"{model.name}: the model is not held by any attribute of {module}, so a worker "
                         "process cannot find it; keep it in a module-level name")
    return f"{module}:{'MODEL' if 'MODEL' in names else sorted(names)[0]}"


def from_ref(ref: str) -> GameModel:
    """The model a :func:`model_ref` names."""
    module, sep, attr = ref.partition(":")
    if not sep:
        return get_game(ref)
    if attr == "MODEL":
        return _load(module)
    model = getattr(importlib.import_module(module), attr, None)
    if not isinstance(model, GameModel):
        raise InputError(f"{ref!r} does not name a GameModel")
    return model
