"""The rules pages in the repository: each registered game's ``docs/rules/<name>.md``.

A page holds the game's rules as the workbench implements them, every open reading with the parameter
that switches it, the tests that pin each rule, and the known differences from the text
(``docs/rules/README.md``).  Core finds a page by the game's name alone: it imports no game.
``workbench games GAME --rules`` prints :func:`rules_summary`.
"""

from __future__ import annotations

import re
from pathlib import Path

from workbench.core.errors import InputError

RULES_DIR = Path(__file__).resolve().parents[3] / "docs" / "rules"
_NAME = re.compile(r"[a-z][a-z0-9_]*")
_SECTION = re.compile(r"^## ", re.MULTILINE)


def documented_games(rules_dir: Path = RULES_DIR) -> tuple[str, ...]:
    """Names of the games that have a rules page, sorted (the index ``README.md`` is not a game)."""
    if not rules_dir.is_dir():
        return ()
    return tuple(sorted(p.stem for p in rules_dir.glob("*.md") if p.stem != "README"))


def rules_doc(game: object, rules_dir: Path = RULES_DIR) -> Path:
    """The path of a game's rules page, ``docs/rules/<name>.md``.

    Args:
        game: the game's name, or anything with a ``name`` attribute (a game model).
        rules_dir: the folder of the pages (the repository's ``docs/rules`` unless given).

    Returns:
        The page's absolute path.

    Raises:
        InputError: the name is not a game name, or the game has no page; the message names the
            games that have one.
    """
    name = game if isinstance(game, str) else getattr(game, "name", None)
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise InputError(f"{game!r} is not a game name (lower-case letters, digits and _, starting with a letter)")
    path = rules_dir / f"{name}.md"
    if not path.is_file():
        have = ", ".join(documented_games(rules_dir)) or "none"
        raise InputError(f"game {name!r} has no rules page {path}; pages exist for: {have}")
    return path


def sections(text: str) -> dict[str, str]:
    """A page's ``## `` sections: heading → body (without the heading line), in page order."""
    parts = _SECTION.split(text)[1:]
    out: dict[str, str] = {}
    for part in parts:
        heading, _, body = part.partition("\n")
        out[heading.strip()] = body.strip("\n")
    return out


def first_section(path: Path) -> str:
    """The first ``## `` section of a page, its heading line included (the whole text if it has none)."""
    text = path.read_text(encoding="utf-8")
    found = sections(text)
    if not found:
        return text.strip()
    heading, body = next(iter(found.items()))
    return f"## {heading}\n\n{body}".rstrip()


def rules_summary(game: object, rules_dir: Path = RULES_DIR) -> str:
    """What ``workbench games GAME --rules`` prints: the page's path, a blank line, its first section.

    Args:
        game: the game's name or model.
        rules_dir: the folder of the pages (the repository's ``docs/rules`` unless given).

    Returns:
        The text to print (no trailing newline).
    """
    path = rules_doc(game, rules_dir)
    return f"{path}\n\n{first_section(path)}"
