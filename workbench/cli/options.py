"""The options every command shares, each defined and validated once, with one message style.

A command adds a shared option with :func:`add` (``add(parser, "workers")``); the option's type
checks the value while the command line is parsed, so every command refuses the same bad value
the same way — ``workbench tune: error: argument --workers: workers must be a positive integer,
got 0`` — before any work starts and before any file is written.  A command may change an
option's default and help (``add(parser, "seed", help="the tuning's seed")``), never its type.

Each action added here carries ``action.shared`` (the option's name), so a test can walk every
command's parser and check that each shared flag comes from this module, once.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.core.errors import InputError

__all__ = ["MAX_EDIT_STEPS", "MAX_GAMES", "OPTIONS", "Option", "add", "check_out", "flags", "shared_flags"]

MAX_GAMES = 10**12  # a game count above this could never finish: refused before any game
MAX_BUDGET = 10**10  # a run's budget of games above this would take months: refused before any game
MAX_EDIT_STEPS = 41  # steps of one --edit range (-20..+20): a wider range is refused before the search
MAX_WORKERS = 1024


def _checked(check: Callable[[str], Any]) -> Callable[[str], Any]:
    """An argparse type from a check that raises :class:`InputError` (its text becomes argparse's message)."""

    def convert(text: str) -> Any:
        try:
            return check(text)
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = getattr(check, "__name__", "value")
    convert.checked = True  # type: ignore[attr-defined]  # workbench.cli.common.Parser: an InputError, status 2
    return convert


def _whole(text: str, name: str) -> int:
    try:
        return int(str(text).strip().replace("_", ""))
    except ValueError:
        raise InputError(f"{name} must be a whole number, got {text!r}") from None


def positive(name: str, most: int = MAX_GAMES) -> Callable[[str], int]:
    """A whole number in ``1..most`` (``name must be a positive integer, got 0``)."""

    def check(text: str) -> int:
        value = _whole(text, name)
        if value <= 0:
            raise InputError(f"{name} must be a positive integer, got {value}")
        if value > most:
            raise InputError(f"{name} {value:,} is more than can run (at most {most:,}); give a smaller {name}")
        return value

    return _checked(check)


def at_least_zero(name: str, most: int = MAX_GAMES) -> Callable[[str], int]:
    """A whole number in ``0..most`` (0 switches the thing off)."""

    def check(text: str) -> int:
        value = _whole(text, name)
        if value < 0:
            raise InputError(f"{name} must be a whole number >= 0, got {value}")
        if value > most:
            raise InputError(f"{name} {value:,} is more than can run (at most {most:,}); give a smaller {name}")
        return value

    return _checked(check)


def fraction(name: str, low: float, high: float, *, low_open: bool = True, high_open: bool = True,
             example: str = "") -> Callable[[str], float]:
    """A number between ``low`` and ``high`` (each end open or closed)."""

    def check(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise InputError(f"{name} must be a number, got {text!r}") from None
        below = value <= low if low_open else value < low
        above = value >= high if high_open else value > high
        if value != value or below or above:
            ends = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
            raise InputError(f"{name} must be in {ends}{example}, got {text}")
        return value

    return _checked(check)


def _seed(text: str) -> int:
    from workbench.core.sim.seeding import check_master_seed

    return check_master_seed(_whole(text, "seed"))


def _nonempty(name: str, example: str) -> Callable[[str], str]:
    def check(text: str) -> str:
        if not text.strip() or not [w for w in text.split(",") if w.strip()]:
            raise InputError(f"{name} is empty; give {example}")
        if any(not w.strip() for w in text.split(",")):
            raise InputError(f"{name} {text!r} has an empty item; give {example}")
        return text.strip()

    return _checked(check)


def _edit(text: str) -> str:
    """An edit spec: its shape (``COLUMN:LOW..HIGH``) and a size that can run."""
    from workbench.core.design.rebalance import parse_edit

    for word, low, high, per in parse_edit(text):
        steps = high - low + 1
        if steps > MAX_EDIT_STEPS:
            half = (MAX_EDIT_STEPS - 1) // 2
            raise InputError(f"edit {word}:{low:+d}..{high:+d}{'@' + per if per else ''} is {steps:,} steps, too "
                             f"many to search (at most {MAX_EDIT_STEPS} a range, e.g. {word}:-{half}..+{half}); "
                             "give a narrower range")
    return text


def _target(text: str) -> str:
    """A target's shape: ``METRIC=LOW..HIGH`` items (the metrics are checked against the game's)."""
    if not text.strip():
        raise InputError("target is empty; give bands in percent, e.g. 'first_seat=49..51'")
    return text


def _weight_set(text: str) -> str:
    import re

    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", text or ""):
        raise InputError(f"name {text!r} is not a weight set name: letters, digits, '_' and '-', e.g. tuned")
    return text


def _params_item(text: str) -> str:
    name, eq, value = text.partition("=")
    if not eq or not name.strip() or not value.strip():
        raise InputError(f"{text!r} is not NAME=VALUE (e.g. battlefield=crystal_garden)")
    return text


def check_out(text: str | os.PathLike, suffix: str | None = None) -> Path:
    """An output path: a folder (no ``suffix``) or a file ending in ``suffix``, in a place that can be written."""
    text = str(text)
    kind = f"{suffix} file" if suffix else "folder"
    if not text.strip():
        raise InputError(f"out is empty; give a {kind}")
    path = Path(text)
    if suffix and path.suffix != suffix:
        raise InputError(f"out must name a {suffix} file, got {text!r}")
    if path.exists() and (path.is_dir() if suffix else not path.is_dir()):
        raise InputError(f"out {text} is {'a folder' if suffix else 'a file'}; give a {kind}")
    start = path.parent if suffix else path
    parent = next((p for p in (start, *start.parents) if p.exists()), Path("."))
    if not parent.is_dir():
        raise InputError(f"out {text}: {parent} is a file, not a folder; give a path in a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"out {text}: the folder {parent} is read-only; give a folder you can write to")
    return path


def _out_path(suffix: str | None = None) -> Callable[[str], Path]:
    def check(text: str) -> Path:
        return check_out(text, suffix)

    return _checked(check)


@dataclass(frozen=True)
class Option:
    """One shared option: its flag, its type (the one check of its values) and its default help."""

    flag: str
    type: Callable[[str], Any] | None = None
    default: Any = None
    help: str = ""
    kwargs: dict[str, Any] = field(default_factory=dict)


OPTIONS: dict[str, Option] = {
    "workers": Option("--workers", positive("workers", MAX_WORKERS), 1,
                      "workers: processes, or threads for compiled engines (default 1)"),
    "seed": Option("--seed", _checked(_seed), 0, "master seed, a whole number in 0..2^64-1 (default 0)"),
    "games": Option("--games", positive("games"), None, "games"),
    "budget": Option("--budget", positive("budget", MAX_BUDGET), None, "games the run may play"),
    "out": Option("--out", _out_path(), None, "output folder"),
    "out_parquet": Option("--out", _out_path(".parquet"), None, "output FILE.parquet"),
    "backend": Option("--backend", None, "local", "where games run: local (default) or dask",
                      {"choices": ("local", "dask")}),
    "scheduler": Option("--scheduler", _nonempty("scheduler", "a Dask scheduler address, e.g. tcp://host:8786"),
                        None, "a Dask scheduler address (backend dask; default: a local cluster)"),
    "agents": Option("--agents", _nonempty("agents", "agent specs, comma-separated, e.g. greedy,random"), None,
                     "one agent per seat, comma-separated (e.g. greedy,random)"),
    "name": Option("--name", _checked(_weight_set), "tuned", "a weight set: data/GAME/agents/NAME.toml"),
    "target": Option("--target", _checked(_target), None, "target bands in percent, e.g. 'first_seat=49..51'"),
    "edit": Option("--edit", _checked(_edit), None, "edit space: COLUMN:LOW..HIGH whole steps"),
    "cards": Option("--cards", _nonempty("cards", "card keys or patterns, e.g. 'F*,S*'"), None,
                    "card keys or patterns, e.g. 'F*,S*'"),
    "max_edits": Option("--max-edits", positive("max-edits", 10_000), None, "most edits per candidate"),
    "params": Option("--params", _checked(_params_item), [], "game parameters NAME=VALUE",
                     {"nargs": "*", "metavar": "NAME=VALUE"}),
    "engine": Option("--engine", None, None, "the engine"),
    "resume": Option("--resume", None, False, "continue the interrupted run stored in the output",
                     {"action": "store_true"}),
    "force": Option("--force", None, False, "replace an existing output", {"action": "store_true"}),
    "quiet": Option("--quiet", None, False, "no progress bar", {"action": "store_true"}),
}


def as_text(name: str) -> Callable[[str], str]:
    """Option ``name``'s check, keeping the text (a study setting named like a shared option)."""
    check = OPTIONS[name].type

    def convert(text: str) -> str:
        if check is not None:
            check(text)
        return text

    convert.checked = True  # type: ignore[attr-defined]
    return convert


def add(parser: argparse.ArgumentParser, name: str, **changes: Any) -> argparse.Action:
    """Add the shared option ``name`` to ``parser``.

    ``changes`` may set ``default``, ``help``, ``required``, ``choices`` (engines) or ``metavar``, never the type.
    """
    option = OPTIONS[name]
    if "type" in changes:
        raise TypeError(f"the type of --{name} is the shared one")
    dest = changes.pop("dest", None) or option.flag[2:].replace("-", "_")
    kwargs: dict[str, Any] = {**option.kwargs, "help": option.help}
    if option.type is not None:
        kwargs["type"] = option.type
    if option.kwargs.get("action") is None:
        kwargs["default"] = option.default
    kwargs.update(changes)
    action = parser.add_argument(option.flag, dest=dest, **kwargs)
    action.shared = name  # type: ignore[attr-defined]
    return action


def shared_flags() -> set[str]:
    """Every flag the shared layer defines (``--workers``, ``--seed`` …)."""
    return {o.flag for o in OPTIONS.values()}


def flags(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """A parser's options by flag."""
    return {f: a for a in parser._actions for f in a.option_strings}
