"""Stop, the same for every study of every game (the registry, no list): what a user gets when they press Stop.

Every registered study of every registered game is started on a run too long to finish
(``Study.long_settings``: the most games it allows, or what the study declares), Stop is pressed
about half a second in (or at the first progress report that counts finished games, if sooner: a fast
engine may play a long run's games in under a second on a quick machine),
and the study must honour the one stop protocol of ``Study.execute``: end
within the grace (the protocol's contract, a generous bound), say *stopped* (``RunInterrupted``)
with the true count of the games that finished — at least the last count it reported, exactly the
games it hands over when it hands over games — and hand over what
finished (tables, or the finished games), never an error, never tables passed off as done.  A study
that has no long run (an exact answer computed at once) may finish before Stop: then it is done; a study with
a long run never does (its long run is sized for its game: ``GameModel.long_games``).
"""

from __future__ import annotations

import time

import polars as pl
import pytest

from workbench.core.errors import RunInterrupted
from workbench.core.model import game_names
from workbench.core.studies.study import get_study, studies

PRESS = 0.5  # seconds into the run when Stop is pressed
GRACE = 10.0  # the protocol's contract: a stopped run ends at its next finished chunk or step, well within this


def _every_study() -> list[tuple[str, str]]:
    return [(game, study.name) for game in game_names() for study in studies(game)]


def _shown(partial: object) -> int:
    """Rows of what a stopped run hands over (0: nothing)."""
    if isinstance(partial, pl.DataFrame):
        return partial.height
    if isinstance(partial, dict):
        return sum(f.height for f in partial.values() if isinstance(f, pl.DataFrame))
    return 0


@pytest.mark.parametrize(("game", "name"), _every_study())
def test_every_study_stops_truthfully_keeping_what_finished(game, name):
    study = get_study(game, name)
    long = study.long_settings(game)
    reports: list[tuple[int, int]] = []
    pressed: list[float] = []
    started = time.monotonic()

    def should_stop() -> bool:
        if not pressed and (time.monotonic() - started >= PRESS or (reports and 0 < reports[-1][0] < reports[-1][1])):
            pressed.append(time.monotonic())
        return bool(pressed)

    try:
        study.execute(game, long or {}, seed=3, workers=1, on_progress=lambda d, t: reports.append((d, t)),
                      should_stop=should_stop)
    except RunInterrupted as exc:
        ended = time.monotonic()
        assert pressed, f"{game} {name}: says stopped though Stop was never pressed"
        # from the moment Stop was pressed, whether or not the run had asked yet
        took = ended - min(pressed[0], started + PRESS)
        assert took <= GRACE, f"{game} {name}: Stop took {took:.1f} s"
        if reports:  # the true count: every game the run reported finished (and the chunk that ended it)
            assert exc.done >= reports[-1][0], (game, name, exc.done, reports[-1])
            assert exc.total == reports[-1][1] > exc.done, (game, name, exc.total, reports[-1])
        if exc.done:  # what finished is handed over, to be shown
            assert _shown(exc.partial) > 0, f"{game} {name}: {exc.done} games finished, nothing to show"
            if isinstance(exc.partial, pl.DataFrame):
                assert exc.partial.height == exc.done
        return
    # it returned: only a study with no long run (an exact answer at once); a long run is one that cannot end
    # before Stop takes effect (Stop is pressed at its first count of finished games, so it ends at the next chunk)
    assert long is None, (f"{game} {name}: its long run {long} finished every game before Stop took effect"
                          if pressed else f"{game} {name}: its long run {long} ended before Stop was pressed")
    if pressed:
        assert reports and reports[-1][0] == reports[-1][1], f"{game} {name}: Stop was ignored; it ran to the end"


def test_every_study_that_cannot_be_long_is_an_answer_computed_at_once():
    """A study with neither a games setting nor a declared long run must finish before Stop could matter."""
    quick = [(g, s.name) for g in game_names() for s in studies(g) if s.long_settings(g) is None]
    for game, name in quick:
        started = time.monotonic()
        get_study(game, name).execute(game, {}, seed=3)
        assert time.monotonic() - started < GRACE, (game, name)
