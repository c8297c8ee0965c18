"""How a game of the die tower reads in a playthrough: the model's ``text`` capability.

Core's one writer (``workbench/core/present/playthrough.py``) plays the game with the reference loop and asks
these functions for lines: the deal, every round's revealed cards and how it resolved, the end.
"""

from __future__ import annotations

from typing import Any

from workbench.core.model import seat_name, seat_names
from workbench.games.dietower import rules as R
from workbench.games.dietower.rules import Config, State


def deal_lines(config: Config, state: State) -> list[str]:
    """The deal: every hand is the full suit and a Joker."""
    hand = " ".join(R.card_name(c, config) for c in R.legal_cards(config, config.full_hand))
    return [f"every player holds: {hand}; the die ({config.die_faces} faces) is in the centre"]


def step_lines(config: Config, before: State, who: Any, action: Any, after: State) -> list[str]:
    """The cards revealed and how the round resolved."""
    cards = ", ".join(f"{seat_name(s)} {R.card_name(c, config)}" for s, c in zip(who, action, strict=True))
    gained = [s for s in range(config.players) if after.scores[s] != before.scores[s]]
    if after.six_winner >= 0:
        what = f"{seat_name(after.six_winner)} wins on the top face {before.die}: six-win"
    elif gained:
        who = gained[0]
        what = f"{seat_name(who)} scores {after.scores[who] - before.scores[who]}, die to {after.die}"
    elif after.builder != before.builder and after.builder != R.NO_BUILDER:
        what = f"{seat_name(after.builder)} takes the die at 1"
    elif after.builder == R.NO_BUILDER and before.builder != R.NO_BUILDER:
        what = "the die goes to the centre"
    elif after.builder == R.NO_BUILDER:
        what = "the die stays in the centre"
    else:
        what = f"{seat_name(after.builder)} keeps the die at {after.die}, unscored"
    return [f"- round {after.round}: {cards} → {what}; scores "
            + ", ".join(f"{seat_name(s)} {v}" for s, v in enumerate(after.scores))]


def end_lines(config: Config, state: State) -> list[str]:
    """Winner(s), reason and rounds."""
    res = R.result(config, state)
    seats = seat_names(config.players)
    who = ("draw between " + ",".join(seats[w] for w in res.winners) if len(res.winners) > 1
           else f"{seats[res.winners[0]]} wins")
    return ["", f"end after {res.length} rounds: {who} ({res.reason})"]


# what a person reads for the keys in the die game's tables and charts (core/present/charts.py: display_label)
LABELS = {
    "six_win": "a six-win", "draw": "a draw", "win_p1": "p1 wins", "win_p2": "p2 wins", "win_p3": "p3 wins",
    "mean_score_p1": "p1's average score", "mean_score_p2": "p2's average score",
    "mean_score_p3": "p3's average score", "six_win_by_round": "a six-win by each round",
    "first_streak": "the first winning streak", "longest": "the longest streak", "points": "p1's points",
    "suit_size": "cards per suit", "die_faces": "die faces",
}
