"""A golden Babel playthrough with every kind of ability, written by core's one writer.

``tests/test_playthroughs.py`` keeps ``babel_default`` (two random agents); this one (two greedy
agents, seed 24) shows the universal ability with the opponent's discards, every nation's ability,
a reshuffle and the end phase.  Regenerate on purpose with
``UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/games/babel/test_babel_playthrough.py``.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from workbench.core.present import playthrough

GOLDEN = Path(__file__).parents[2] / "golden" / "playthroughs" / "babel_greedy_abilities.txt"


def test_golden_greedy_playthrough():
    text = playthrough.render("babel", {"first": "p1"}, "greedy,greedy", 24)
    if os.environ.get(playthrough.UPDATE_ENV) == "1":
        tmp = GOLDEN.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(GOLDEN)
    expected = GOLDEN.read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True), str(GOLDEN), "now"))
        pytest.fail(f"the babel playthrough changed (regenerate on purpose with UPDATE_GOLDEN=1):\n{diff[:6000]}")
    for line in ("first to move: p1", "build the start card", "universal ability (a Sumerians run)",
                 "p2 must discard 2", "- p2: discard", "Assyrians ability", "Hittites ability", "Medes ability",
                 "Persians ability", "Sumerians ability", "quarry top now", "END PHASE begins",
                 "the nation draw pile ran out", "end after 22 turns: p2 wins (quarry_empty)"):
        assert line in text, line
