"""Lessons: the studies of a game fit for teaching — quick, exact where they can be — declared for front ends.

A game declares ``lessons`` on its model: a tuple whose items are :class:`~workbench.core.studies.study.Study`
declarations or names of the game's own studies, or ``"module:NAME"`` naming such a tuple.  The
studio's teaching page shows a lesson's settings as sliders and runs it again on every change.  A
lesson whose ``games`` setting allows 0 ("0: exact only") is run exact-only first, so the exact
numbers follow the sliders at once, then with its simulation.

A lesson opens with a short introduction in plain words for a student: a game may declare it by
wrapping the item in :class:`Lesson` (``Lesson("streak", intro="…")``); otherwise
:func:`introduction` says in general words what an exact-beside-simulated lesson shows.  Either
way :func:`glossary` explains the jargon the lesson's text uses ("Wilson interval", "multinomial",
"dynamic programming", …) in a line each.

A lesson asks a :class:`Question` before it shows any number (the game's own on its
:class:`Lesson`, else :func:`question` makes one from the lesson's first table): a chance the
student guesses as a percent, or a choice among a few outcomes ("which is most likely?").
:func:`compare` then puts the guess beside the exact answer and the simulated one (its range at the
page's one level, :data:`LEVEL`, said once in plain words: :data:`LEVEL_WORDS`) with a sentence on
how far off the guess was.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from workbench.core.errors import InputError
from workbench.core.model import GameModel, get_game
from workbench.core.studies.study import Study, get_study, resolve_ref

__all__ = ["EXACT_ONLY", "GENERAL_INTRO", "GLOSSARY", "LEVEL", "LEVEL_WORDS", "Answer", "Lesson", "Question", "compare",
           "exact_only", "get_lesson", "glossary", "introduction", "lesson_title", "lessons", "question"]

EXACT_ONLY = "games"  # the setting that, at 0, asks a lesson for its exact part alone
GENERAL_INTRO = ("This lesson asks one question two ways. First make your own guess. Then the exact answer is worked "
                 "out by counting every way the game can go, so it has no luck in it. The simulated answer comes from "
                 "letting the computer play the game many times and counting what happened, so it wobbles a little "
                 "from run to run; the range beside it shows how far it could wobble. When the exact value falls "
                 "inside that range (✓), the two agree. Move a slider to change the game and guess again.")
LEVEL = 0.95  # the one level of every simulated range on a lesson page (recomputed from the counts)
LEVEL_WORDS = (f"About the ranges: every simulated number on this page has a range beside it. If the computer ran the "
               f"same simulation 100 times, about {round(100 * LEVEL)} of those ranges would hold the exact value, so "
               f"about 1 row in {round(1 / (1 - LEVEL))} may miss it (✗) by bad luck alone; many ✗ would mean the "
               f"model and the game disagree.")
# jargon a lesson's text may use -> what it means, in a line a 16-year-old can follow
GLOSSARY = {
    "Wilson interval": "a range around a simulated percentage, worked out from how many games were played; more "
                       "games make it narrower (how often it holds the exact value: see About the ranges)",
    "confidence": "how sure a range is (see About the ranges)",
    "multinomial": "counting the chances of every way tokens can be shared out between the players",
    "dynamic programming": "working the chances out round by round, reusing each round's answer for the next",
    "propensities": "how strongly each player tends to go for something (here: weights, higher means more often)",
    "fraction": "an exact chance written as one whole number over another, e.g. 1/6",
    "Markov": "a model where what happens next depends only on where the game is now, not on how it got there",
    "expected": "the average you would get over very many games",
    "exact": "worked out by counting every way the game can go (no luck involved)",
    "simulated": "measured by letting the computer play many games and counting",
    "percentage point": "the gap between two percentages: from 30 % to 37 % is 7 percentage points",
    "agent": "a computer player; its name says how it plays (random: any allowed move, picked by chance)",
    "equilibrium": "a way for everyone to play where no player can do better by changing only their own play",
}
# matched from the word's stem ("simulation"), or as a pattern
_STEMS = {"propensities": "propensit", "simulated": "simulat", "percentage point": "percentage points?",
          "agent": "agents?\\b", "equilibrium": "equilibri"}
_TERMS = {term: re.compile(rf"\b{_STEMS[term] if term in _STEMS else re.escape(term)}", re.IGNORECASE)
          for term in GLOSSARY}


@dataclass(frozen=True)
class Question:
    """What a lesson asks before it shows any number.

    ``text`` may name settings in braces (``"With {players} players, …"``).  The answer is in table
    ``table``: the row whose columns equal ``where`` (values may name settings in braces too; none: the
    first row).  With ``choices`` — ``(label, where)`` pairs — the student picks one and the answer is
    the most likely of them; without, the student guesses the chance as a percent.
    """

    text: str
    table: str
    where: Mapping[str, Any] | None = None
    choices: tuple[tuple[str, Mapping[str, Any]], ...] = ()

    def ask(self, settings: Mapping[str, Any]) -> str:
        """The question for these settings."""
        return _fill(self.text, settings)


@dataclass(frozen=True)
class Lesson:
    """A lesson item: ``study`` (a Study or the name of one of the game's studies) with what a student reads.

    ``intro``: the introduction; ``title``: the title in the lesson picker; ``question``: what it asks first.
    """

    study: Study | str
    intro: str = ""
    title: str = ""
    question: Question | None = None


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


def _declared(game: str | GameModel, name: str) -> Lesson | None:
    """The :class:`Lesson` wrapping lesson ``name`` (None when the game names the study bare)."""
    declared = resolve_ref(getattr(get_game(game), "lessons", ()))
    items = declared if isinstance(declared, (tuple, list)) else (() if declared is None else (declared,))
    for item in items:
        if isinstance(item, Lesson):
            study = item.study.name if isinstance(item.study, Study) else item.study
            if study == name:
                return item
    return None


def introduction(game: str | GameModel, name: str) -> str:
    """The plain-language introduction of lesson ``name``: the game's own, else :data:`GENERAL_INTRO`."""
    item = _declared(game, name)
    return item.intro if item is not None and item.intro else GENERAL_INTRO


def lesson_title(game: str | GameModel, name: str) -> str:
    """The title a student reads for lesson ``name``: the game's own for students, else the study's."""
    item = _declared(game, name)
    return item.title if item is not None and item.title else get_lesson(game, name).title


def question(game: str | GameModel, name: str) -> Question:
    """The question lesson ``name`` asks first: the game's own, else the chance in the first row of its first table."""
    item = _declared(game, name)
    if item is not None and item.question is not None:
        return item.question
    return Question("Guess before you look: how likely is the first result this lesson shows?", "")


def _fill(text: str, settings: Mapping[str, Any]) -> str:
    try:
        return text.format_map(_Settings(settings))
    except (ValueError, IndexError):
        return text


class _Settings(dict):
    def __init__(self, settings: Mapping[str, Any]) -> None:
        super().__init__({k: _said(v) for k, v in settings.items()})

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _said(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _matches(row: Mapping[str, Any], where: Mapping[str, Any] | None, settings: Mapping[str, Any]) -> bool:
    return all(str(row.get(k)) == (_fill(v, settings) if isinstance(v, str) else str(v)) for k, v in
               (where or {}).items())


@dataclass(frozen=True)
class Answer:
    """A guess beside the exact and the simulated answer (``low``/``high``: the simulated range at :data:`LEVEL`)."""

    question: str
    guess: Any
    exact: float | None
    simulated: float | None = None
    low: float | None = None
    high: float | None = None
    n: int = 0
    sentence: str = ""
    picks: tuple[dict[str, Any], ...] = field(default=())  # a choice question: each choice's numbers


def _row_numbers(row: Mapping[str, Any], games: int) -> dict[str, Any]:
    from workbench.core.stats.rates import wilson

    exact = row.get("exact")
    n = int(row.get("n") or games or 0) if "n" in row or games else 0
    k = row.get("k", row.get("count"))
    simulated = row.get("simulated")
    if simulated is not None and isinstance(simulated, float) and math.isnan(simulated):
        simulated = None
    if k is None and simulated is not None and n:
        k = round(float(simulated) * n)
    low = high = None
    if simulated is not None and k is not None and n and 0 <= int(k) <= n:
        low, high = (float(x) for x in wilson(int(k), n, LEVEL))
    return {"exact": None if exact is None else float(exact), "simulated": None if simulated is None
            else float(simulated), "low": low, "high": high, "n": n if simulated is not None else 0}


def pct(x: float | None) -> str:
    """A chance as a student reads it: ``37.0 %`` (one decimal; tiny ones ``< 0.1 %``)."""
    if x is None:
        return "—"
    if 0 < x < 0.0005:
        return "< 0.1 %"
    if 0.9995 < x < 1:
        return "> 99.9 %"
    return f"{100 * x:.1f} %"


def _closeness(points: float) -> str:
    if points < 0.5:
        return "spot on"
    if points <= 2:
        return "very close"
    if points <= 5:
        return "close"
    if points <= 15:
        return "a fair way off"
    return "far off"


def compare(q: Question, tables: Mapping[str, Any], settings: Mapping[str, Any], guess: Any,
            games: int = 0) -> Answer:
    """The student's ``guess`` (a chance 0..1, or a choice's label; None: no guess) beside the answer in ``tables``.

    The simulated range is recomputed from the counts at :data:`LEVEL`, whatever level the lesson's own
    table used.  The sentence says how far off the guess was, in percentage points.
    """
    text = q.ask(settings)
    games = games or int(settings.get(EXACT_ONLY) or 0)  # a table without its own n was played at the setting's games
    frame = tables.get(q.table) if q.table else next((f for n, f in tables.items() if n != "games"
                                                      and "exact" in f.columns), None)
    if frame is None or frame.height == 0:
        raise InputError(f"the lesson's answer table {q.table!r} is missing; tables: {', '.join(tables)}")
    rows = frame.to_dicts()
    if q.choices:
        picks = []
        for label, where in q.choices:
            row = next((r for r in rows if _matches(r, where, settings)), None)
            if row is None:
                raise InputError(f"choice {label!r}: no row of table {q.table!r} matches {dict(where)}")
            picks.append({"choice": label, **_row_numbers(row, games)})
        best = max(p["exact"] for p in picks)
        top = [p["choice"] for p in picks if p["exact"] >= best - 1e-12]
        answer = " and ".join(f"“{t}”" for t in top)
        if guess is None:
            sentence = f"The most likely is {answer}, with an exact chance of {pct(best)} each." if len(top) > 1 \
                else f"The most likely is {answer}, with an exact chance of {pct(best)}."
        else:
            mine = next((p for p in picks if p["choice"] == guess), None)
            if mine is None:
                raise InputError(f"{guess!r} is not one of the choices; allowed: {', '.join(c for c, _ in q.choices)}")
            if guess in top:
                tied = f" (tied with {' and '.join(f'“{t}”' for t in top if t != guess)})" if len(top) > 1 else ""
                sentence = (f"Right: you picked “{guess}”, and it is the most likely{tied}, with an exact chance of "
                            f"{pct(best)}.")
            else:
                gap = 100 * (best - mine["exact"])
                sentence = (f"Not quite: you picked “{guess}” ({pct(mine['exact'])}), but the most likely is {answer} "
                            f"({pct(best)}), {gap:.1f} percentage points more.")
        sim = next(p for p in picks if p["choice"] in top)
        return Answer(text, guess, best, sim["simulated"], sim["low"], sim["high"], sim["n"],
                      sentence + _simulated_words(sim), tuple(picks))
    row = next((r for r in rows if _matches(r, q.where, settings)), None) if q.where else rows[0]
    if row is None:
        raise InputError(f"no row of table {q.table!r} matches {dict(q.where or {})}")
    got = _row_numbers(row, games)
    exact = got["exact"]
    if guess is None or exact is None:
        sentence = f"The exact chance is {pct(exact)}." if exact is not None else ""
    else:
        g = float(guess)
        if not 0 <= g <= 1:
            raise InputError(f"a guess is a chance from 0 % to 100 %, got {100 * g:g} %")
        points = 100 * abs(g - exact)
        how = _closeness(points)
        if points < 0.05:
            sentence = f"Spot on: you guessed {pct(g)} and the exact chance is {pct(exact)}."
        else:
            side = "too high" if g > exact else "too low"
            sentence = (f"You guessed {pct(g)}; the exact chance is {pct(exact)}. Your guess was {points:.1f} "
                        f"percentage points {side}: {how}.")
    return Answer(text, guess, exact, got["simulated"], got["low"], got["high"], got["n"],
                  sentence + _simulated_words(got))


def _simulated_words(got: Mapping[str, Any]) -> str:
    if got.get("simulated") is None or got.get("low") is None:
        return ""
    inside = got["exact"] is not None and got["low"] - 1e-12 <= got["exact"] <= got["high"] + 1e-12
    return (f" The simulation of {got['n']:,} games measured {pct(got['simulated'])} (range {pct(got['low'])} to "
            f"{pct(got['high'])}), so the exact value is {'inside' if inside else 'outside'} its range.")


def glossary(*texts: str) -> list[tuple[str, str]]:
    """The :data:`GLOSSARY` entries whose term appears in ``texts``, in glossary order."""
    joined = " ".join(texts)
    return [(term, GLOSSARY[term]) for term, pattern in _TERMS.items() if pattern.search(joined)]
