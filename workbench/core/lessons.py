"""Lessons: the studies of a game fit for teaching — quick, exact where they can be — declared for front ends.

A game declares ``lessons`` on its model: a tuple whose items are :class:`~workbench.core.study.Study`
declarations or names of the game's own studies, or ``"module:NAME"`` naming such a tuple.  The
studio's teaching page shows a lesson's settings as sliders and runs it again on every change.  A
lesson whose ``games`` setting allows 0 ("0: exact only") is run exact-only first, so the exact
numbers follow the sliders at once, then with its simulation.
"""

from __future__ import annotations

from workbench.core.errors import InputError
from workbench.core.model import GameModel, get_game
from workbench.core.study import Study, get_study, resolve_ref

__all__ = ["EXACT_ONLY", "exact_only", "get_lesson", "lessons"]

EXACT_ONLY = "games"  # the setting that, at 0, asks a lesson for its exact part alone


def lessons(game: str | GameModel) -> tuple[Study, ...]:
    """The game's lessons (none when it declares none)."""
    model = get_game(game)
    declared = resolve_ref(getattr(model, "lessons", ()))
    if declared is None:
        return ()
    items = declared if isinstance(declared, (tuple, list)) else (declared,)
    out = []
    for item in items:
        if isinstance(item, Study):
            out.append(item)
        elif isinstance(item, str):
            out.append(get_study(model, item))
        else:
            raise InputError(f"{model.name}.lessons: {item!r} is neither a Study nor the name of one")
    return tuple(out)


def get_lesson(game: str | GameModel, name: str) -> Study:
    """The lesson ``name`` of ``game``."""
    found = {s.name: s for s in lessons(game)}
    if name not in found:
        raise InputError(f"{get_game(game).name}: unknown lesson {name!r}; allowed: {', '.join(found) or 'none'}")
    return found[name]


def exact_only(lesson: Study) -> bool:
    """True when the lesson can run its exact part alone (its ``games`` setting allows 0)."""
    return any(p.name == EXACT_ONLY and p.kind is int and p.low is not None and p.low <= 0 for p in lesson.settings)
