"""The coin race with a weighted greedy: a toy for the structural-flaw check (``core/skill/flaws.py``).

The weighted greedy values ``risky`` at ``coin × 2 × edge + chase × [behind]`` (the coin's expected
points, and a bonus for a gamble when behind) and ``safe`` at ``safe × 1``, and plays the larger
(``safe`` on a tie).  Its sound defaults (``coin = 1``, ``chase = 0.5``, ``safe = 1``) value both moves
by their expected points.  ``planted`` is the same agent with a planted flaw: ``coin = −1`` prices the
coin's points as a loss, so it never gambles, even where the coin pays 1.5 points a move against
safe's 1.  On the large board with ``edge`` 0.75, flipping that one sign (always risky) wins about
82 % against it (worked by hand: racing to 5, the coin needs 3 hits in the 4 or 5 moves safe needs
5 for).  The model is not registered; it is found through this
module (``tests.toygame.weighted:MODEL``).
"""

from __future__ import annotations

from typing import Any

from tests.toygame import rules
from tests.toygame.model import ToyModel
from workbench.core.model import AgentDecl, Param


class WeightedGreedy:
    """Risky when its weighted value beats safe's (no randomness)."""

    def __init__(self, coin: float, chase: float, safe: float) -> None:
        self.coin, self.chase, self.safe = coin, chase, safe

    def act(self, view: rules.View, legal: tuple[str, ...], config: rules.Config, rng: Any) -> str:
        """The move of larger weighted value."""
        behind = view.scores[view.seat] < view.scores[1 - view.seat]
        risky = self.coin * 2 * config.edge + self.chase * behind
        return rules.RISKY if risky > self.safe * 1 else rules.SAFE


def _options(coin: float) -> tuple[Param, ...]:
    return (Param("coin", coin, float, "weight of the coin's expected points", -10.0, 10.0),
            Param("chase", 0.5, float, "bonus for risky when behind", -10.0, 10.0),
            Param("safe", 1.0, float, "weight of safe's point", -10.0, 10.0))


class WeightedToy(ToyModel):
    """The coin race with a weighted greedy (sound) and the same agent with a planted flaw."""

    name = "weighted"
    title = "Coin race, weighted greedy (toy)"
    rules_version = "weighted-1"
    agent_types = (AgentDecl("greedy", WeightedGreedy, "weighted values of safe and risky", _options(1.0)),
                   AgentDecl("planted", WeightedGreedy, "the weighted greedy with a planted flaw", _options(-1.0)))
    studies = None
    report = None


MODEL = WeightedToy()
