"""How one Mercenary auction reads in a playthrough: the rescue model's ``text`` capability.

Core's one writer (``workbench/core/present/playthrough.py``) plays the auction with the reference loop and asks
these functions for lines: every seat's crystals and value, then each auction's revealed bids.
"""

from __future__ import annotations

from typing import Any

from workbench.core.model import seat_name
from workbench.games.rescue import rules as A
from workbench.games.rescue.rules import Config, State


def deal_lines(config: Config, state: State) -> list[str]:
    """Every seat's crystals and value."""
    return ["a Mercenary is auctioned; " + ", ".join(
        f"{seat_name(s)} holds {b} crystals and values it {v}"
        for s, (b, v) in enumerate(zip(config.budgets, config.values, strict=True)))]


def step_lines(config: Config, before: State, who: Any, action: Any, after: State) -> list[str]:
    """The bids revealed and what they decide."""
    bids = ", ".join(f"{seat_name(s)} {b}" for s, b in zip(who, action, strict=True))
    label = "first auction" if before.stage == A.FIRST else "second auction"
    if after.stage == A.SECOND:
        what = f"{', '.join(seat_name(s) for s in after.tied)} tie at {max(action)}: a second auction"
    elif after.winner != A.NOBODY:
        what = f"{seat_name(after.winner)} gets the Mercenary for {after.price}"
    else:
        what = "nobody gets the Mercenary" + (" (everyone bid 0)" if after.reason == "no_bids" else " (tie again)")
    return [f"- {label}: {bids} → {what}"]


# what a person reads for the keys in To The Rescue's tables and charts (core/present/charts.py: display_label)
LABELS = {
    "second_auction": "a second auction", "double_tie": "a tie in the second auction too",
    "no_bids": "everybody bid 0", "lone_catch": "caught by one player alone",
    "shared_catches": "caught by several in one round", "tied_trophies": "tied for most tokens",
    "appearance": "the round the Dragon comes out", "trophy": "who takes the trophy",
}
