"""Golden playthroughs of every game, written by core's one writer (``workbench/core/present/playthrough.py``).

A change in the rules, the agents, the random streams or the data shows up as a readable diff.
When the change is intended, regenerate on purpose and review the diff before committing::

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_playthroughs.py tests/test_golden_frames.py
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from workbench.core.model import game_names
from workbench.core.present import playthrough

GOLDEN_DIR = Path(__file__).parent / "golden" / "playthroughs"
UPDATE = os.environ.get(playthrough.UPDATE_ENV) == "1"

# name → (game, parameters, agents, seed); every registered game also gets "<game>_default"
GOLDENS = {
    "duel_greedy_crystal_garden": ("duel", {"battlefield": "crystal_garden", "first": "p1"}, "greedy,greedy", 7),
    "duel_greedy_unlimited_timer": ("duel", {"battlefield": "crystal_garden", "deck": "unlimited", "miss_rate": 0.15,
                                             "first": "random"}, "greedy,greedy", 11),
    "dietower_three_players": ("dietower", {"players": 3, "suit_size": 6, "die_faces": 3},
                               "highest,joker:at=2,random", 5),
    "dietower_random_joker": ("dietower", {}, "random,joker", 7),
    "dietower_mixed_three": ("dietower", {"players": 3, "die_faces": 3}, "highest,random,mixed:random=1,joker=1", 8),
    **{f"{game}_default": (game, {}, None, 7) for game in game_names()},
}


def _check(name: str, text: str) -> None:
    path = GOLDEN_DIR / f"{name}.txt"
    if UPDATE:
        GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    assert path.exists(), f"{path} is missing; create it with {playthrough.UPDATE_ENV}=1 pytest {__file__}"
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True), str(path), "now", n=2))
        pytest.fail(f"playthrough {name} changed (regenerate on purpose with "
                    f"{playthrough.UPDATE_ENV}=1):\n{diff[:6000]}")


@pytest.mark.parametrize("name", sorted(GOLDENS))
def test_golden_playthrough(name):
    game, params, agents, seed = GOLDENS[name]
    _check(name, playthrough.render(game, params, agents, seed))


def test_golden_files_show_what_they_are_for():
    garden = (GOLDEN_DIR / "duel_greedy_crystal_garden.txt").read_text(encoding="utf-8")
    for line in ("first to move: p1", "production +3 ore +3 mana +3 troops", "must discard a card",
                 "(the draw-then-discard)", "acts again", "the draw pile ran out", "end after 89 turns: p1 wins"):
        assert line in garden
    timer = (GOLDEN_DIR / "duel_greedy_unlimited_timer.txt").read_text(encoding="utf-8")
    for line in ("unlimited deck: every draw is uniform", "misses the turn", "(timeout)"):
        assert line in timer
    three = (GOLDEN_DIR / "dietower_three_players.txt").read_text(encoding="utf-8")
    for line in ("every player holds: 9 10 J Q K A Joker", "takes the die at 1", "scores 1, die to 2",
                 "end after"):
        assert line in three


def test_playthrough_is_deterministic_and_printable(capsys):
    text = playthrough.render("duel", {"battlefield": "wind_square", "first": "p2"}, "random,greedy", 3)
    assert text == playthrough.render("duel", {"battlefield": "wind_square", "first": "p2"}, "random,greedy", 3)
    playthrough.main(["duel", "--seed", "3", "--agents", "random,greedy", "--param", "battlefield=wind_square",
                      "--param", "first=p2"])
    assert capsys.readouterr().out == text
    assert text.splitlines()[1] == "seed 3; agents p1 random, p2 greedy"
    assert "first to move: p2" in text
