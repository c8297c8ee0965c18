"""Golden playthroughs: seeded games written as text by workbench/games/duel/playthrough.py, diffed here.

A change in the rules, the agents, the random streams or the data shows up as a readable diff.
When the change is intended, regenerate the files on purpose and review the diff before committing::

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/games/duel/test_golden.py
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from workbench.games.duel import playthrough

GOLDEN_DIR = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"

# name → (parameters, agents, seed)
GOLDENS = {
    "greedy_crystal_garden": ({"battlefield": "crystal_garden", "first": "p1"}, ("greedy", "greedy"), 7),
    "greedy_unlimited_timer": ({"battlefield": "crystal_garden", "deck": "unlimited", "miss_rate": 0.15,
                                "first": "random"}, ("greedy", "greedy"), 11),
}


@pytest.mark.parametrize("name", sorted(GOLDENS))
def test_golden_playthrough(name):
    params, agents, seed = GOLDENS[name]
    text = playthrough.render(params, agents, seed)
    path = GOLDEN_DIR / f"{name}.txt"
    if UPDATE:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    assert path.exists(), f"{path} is missing; create it with UPDATE_GOLDEN=1 pytest {__file__}"
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True), str(path), "now", n=2))
        pytest.fail(f"playthrough {name} changed (regenerate on purpose with UPDATE_GOLDEN=1):\n{diff[:6000]}")


def test_golden_files_show_what_they_are_for():
    garden = (GOLDEN_DIR / "greedy_crystal_garden.txt").read_text(encoding="utf-8")
    for line in ("first to move: p1", "production +3 ore +3 mana +3 troops", "must discard a card",
                 "(the draw-then-discard)", "acts again", "the draw pile ran out", "end after 89 turns: p1 wins"):
        assert line in garden
    timer = (GOLDEN_DIR / "greedy_unlimited_timer.txt").read_text(encoding="utf-8")
    for line in ("unlimited deck: every draw is uniform", "misses the turn", "(timeout)"):
        assert line in timer


def test_playthrough_is_deterministic_and_printable(capsys):
    text = playthrough.render({"battlefield": "wind_square", "first": "p2"}, ("random", "greedy"), 3)
    assert text == playthrough.render({"battlefield": "wind_square", "first": "p2"}, ("random", "greedy"), 3)
    playthrough.main(["--seed", "3", "--agents", "random,greedy", "--param", "battlefield=wind_square",
                      "--param", "first=p2"])
    assert capsys.readouterr().out == text
    assert text.splitlines()[1] == "seed 3; agents p1 random, p2 greedy"
    assert "first to move: p2" in text
