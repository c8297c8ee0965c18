"""Lessons: the studies of a game fit for teaching — quick, exact where they can be — declared for front ends.

A game declares ``lessons`` on its model: a tuple whose items are :class:`~workbench.core.study.Study`
declarations or names of the game's own studies, or ``"module:NAME"`` naming such a tuple.  The
studio's teaching page shows a lesson's settings as sliders and runs it again on every change.  A
lesson whose ``games`` setting allows 0 ("0: exact only") is run exact-only first, so the exact
numbers follow the sliders at once, then with its simulation.

A lesson opens with a short introduction in plain words for a student: a game may declare it by
wrapping the item in :class:`Lesson` (``Lesson("streak", intro="…")``); otherwise
:func:`introduction` says in general words what an exact-beside-simulated lesson shows.  Either
way :func:`glossary` explains the jargon the lesson's text uses ("Wilson interval", "multinomial",
"dynamic programming", …) in a line each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from workbench.core.errors import InputError
from workbench.core.model import GameModel, get_game
from workbench.core.study import Study, get_study, resolve_ref

__all__ = ["EXACT_ONLY", "GENERAL_INTRO", "GLOSSARY", "Lesson", "exact_only", "get_lesson", "glossary", "introduction",
           "lessons"]

EXACT_ONLY = "games"  # the setting that, at 0, asks a lesson for its exact part alone
GENERAL_INTRO = ("This lesson asks one question two ways. The exact answer is worked out by counting every way the "
                 "game can go, so it has no luck in it. The simulated answer comes from letting the computer play "
                 "the game many times and counting what happened, so it wobbles a little from run to run; the "
                 "range beside it shows how far it could wobble. When the exact value falls inside that range "
                 "(✓), the two agree. Move a slider and both are worked out again.")
# jargon a lesson's text may use -> what it means, in a line a 16-year-old can follow
GLOSSARY = {
    "Wilson interval": "a range around a simulated percentage that the true value lies in 95 times out of 100; "
                       "more games make it narrower",
    "confidence": "how sure a range is: a 95 % range misses the true value about 1 time in 20",
    "multinomial": "counting the chances of every way tokens can be shared out between the players",
    "dynamic programming": "working the chances out round by round, reusing each round's answer for the next",
    "propensities": "how strongly each player tends to go for something (here: weights, higher means more often)",
    "fraction": "an exact chance written as one whole number over another, e.g. 1/6",
    "Markov": "a model where what happens next depends only on where the game is now, not on how it got there",
    "expected": "the average you would get over very many games",
    "exact": "worked out by counting every way the game can go (no luck involved)",
    "simulated": "measured by letting the computer play many games and counting",
}
_STEMS = {"propensities": "propensit", "simulated": "simulat"}  # matched from the word's stem ("simulation")
_TERMS = {term: re.compile(rf"\b{re.escape(_STEMS.get(term, term))}", re.IGNORECASE) for term in GLOSSARY}


@dataclass(frozen=True)
class Lesson:
    """A lesson item with its introduction: ``study`` is a Study or the name of one of the game's studies."""

    study: Study | str
    intro: str = ""


def lessons(game: str | GameModel) -> tuple[Study, ...]:
    """The game's lessons (none when it declares none)."""
    model = get_game(game)
    declared = resolve_ref(getattr(model, "lessons", ()))
    if declared is None:
        return ()
    items = declared if isinstance(declared, (tuple, list)) else (declared,)
    out = []
    for item in items:
        if isinstance(item, Lesson):
            item = item.study
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


def introduction(game: str | GameModel, name: str) -> str:
    """The plain-language introduction of lesson ``name``: the game's own, else :data:`GENERAL_INTRO`."""
    model = get_game(game)
    declared = resolve_ref(getattr(model, "lessons", ()))
    items = declared if isinstance(declared, (tuple, list)) else (() if declared is None else (declared,))
    for item in items:
        if isinstance(item, Lesson) and item.intro:
            study = item.study.name if isinstance(item.study, Study) else item.study
            if study == name:
                return item.intro
    return GENERAL_INTRO


def glossary(*texts: str) -> list[tuple[str, str]]:
    """The :data:`GLOSSARY` entries whose term appears in ``texts``, in glossary order."""
    joined = " ".join(texts)
    return [(term, GLOSSARY[term]) for term, pattern in _TERMS.items() if pattern.search(joined)]
