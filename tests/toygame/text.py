"""How a coin race reads in a playthrough (the model's optional ``text`` capability).

Copy this file to ``workbench/games/<name>/text.py`` and write your game's lines; then declare
``text = "workbench.games.<name>.text"`` on the model.  Core's one writer
(``workbench/core/present/playthrough.py``, ``python -m workbench.core.present.playthrough <name> --seed 7``) plays a
seeded game with the reference loop and asks this module for lines: ``config_lines`` (the rules in
force), ``deal_lines`` (the initial state), ``step_lines`` (every action and chance outcome, with
what it changed) and ``end_lines``.  Each hook is optional: a missing one falls back to core's plain
default (``repr`` of the state, ``- p1: 'safe'``).  The golden playthroughs
(``tests/golden/playthroughs/<name>_default.txt``) are these lines, diffed on every test run.
"""

from __future__ import annotations

from typing import Any

from tests.toygame import rules
from tests.toygame.rules import Config, State
from workbench.core.model import CHANCE, seat_name


def scores(state: State) -> str:
    """``p1 2, p2 0``."""
    return f"p1 {state.scores[0]}, p2 {state.scores[1]}"


def config_lines(config: Config) -> list[str]:
    """The rules in force."""
    return [f"target {config.target} points; a risky move scores {rules.WIN} with probability {config.edge:g}; "
            f"a draw after {config.limit} turns"]


def deal_lines(config: Config, state: State) -> list[str]:
    """Who moves first."""
    return [f"first to move: {seat_name(state.first)}"]


def step_lines(config: Config, before: State, who: Any, action: Any, after: State) -> list[str]:
    """A safe move with its point, a risky move waiting for the coin, or the coin's result."""
    mover = seat_name(before.current)
    if who == CHANCE:
        won = f"{action} points" if action else "nothing"
        return [f"  coin: {mover} scores {won}; {scores(after)}"]
    if action == rules.SAFE:
        return [f"- {mover}: safe, scores 1; {scores(after)}"]
    return [f"- {mover}: risky, flips the coin"]


def end_lines(config: Config, state: State) -> list[str]:
    """Winner, reason, turns and the final scores."""
    winner, reason = state.outcome
    result = "a draw" if winner == "draw" else f"{winner} wins"
    return ["", f"end after {state.turn} turns: {result} ({reason}); {scores(state)}"]
