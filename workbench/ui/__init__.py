"""The one widget stack: panels built from the games' declarations, for the notebooks and the studio alike.

* :func:`study_panel` — a game's declared studies (``core/studies/study.py``): the form generated from the
  declared settings and parameters, Run / Stop with progress, rate and ETA, tables and charts;
* :func:`lesson_panel` — a game's lessons (``core/studies/lessons.py``): sliders, exact beside simulated;
* :func:`card_editor` — a game's card table (``core/design/cardtable.py``): edit, what-if, save as.

No panel holds any game's code: a game registered through the protocol gets all three from its
declarations.  The studio (``workbench/app``) shows the same panels in its tabs.  In a notebook::

    from workbench.ui import study_panel
    study_panel("duel", "battlefields", games=2000).show(run=True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workbench.ui.cards import CardEditor
    from workbench.ui.lessons import LessonPanel
    from workbench.ui.studies import StudyPanel

__all__ = ["card_editor", "lesson_panel", "study_panel"]


def study_panel(game: str, study: str | None = None, *, seed: int = 0, workers: int = 1, pick_game: bool = False,
                **values: Any) -> StudyPanel:
    """The study panel of ``game`` opened at ``study``, its fields set from ``values`` (settings, then parameters)."""
    from workbench.ui.studies import StudyPanel

    panel = StudyPanel(game, study, seed=seed, workers=workers, pick_game=pick_game)
    panel.set(**values)
    return panel


def lesson_panel(game: str, lesson: str | None = None, *, seed: int = 0, **values: Any) -> LessonPanel:
    """The lesson panel of ``game`` opened at ``lesson``, its sliders set from ``values``."""
    from workbench.ui.lessons import LessonPanel

    return LessonPanel(game, lesson, values, seed=seed)


def card_editor(game: str, cards_dir: str | None = None) -> CardEditor:
    """The card editor of ``game``'s declared card table (saved sets go to ``cards_dir``, default ./cards/GAME)."""
    from workbench.ui.cards import CardEditor

    return CardEditor(game, cards_dir=cards_dir)
