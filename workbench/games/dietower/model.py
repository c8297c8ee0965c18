"""The ``dietower`` game model: declared parameters, agents, engines and the result columns.

Result columns (one row per game, besides the runner's common columns):

* ``winner``: "p1".."p4", or "draw" when several players share the highest score;
* ``reason``: "six_win" (a Builder won with the die on its top face), "score" (highest score after
  the last round) or "draw";
* ``length``: rounds played; ``first_seat``: null (play is simultaneous);
* ``score_p1``..: points; ``winners``: the winning seats joined by "," (e.g. "p1,p3" for a draw);
* ``six_win`` / ``six_win_round``: whether and in which round (1-based) a six-win ended the game;
* ``longest_streak_p1``..: most rounds one player won in a row as Builder during one tenure;
* ``builder_changes``: rounds in which a player took the die (became Builder).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from workbench.core.model import AgentSpec, GameModel, Param
from workbench.games.dietower import agents as ag
from workbench.games.dietower.engine import play_reference, to_frame
from workbench.games.dietower.rules import NONBUILDER_TIES, Rules


class DieTowerModel(GameModel):
    """Tower of Babel: simultaneous card play with a die streak (rules file 004)."""

    name = "dietower"
    title = "Tower of Babel (die streak)"
    rules_version = "dietower-1"
    min_players = 2
    max_players = 4
    params = (
        Param("players", 2, int, "players (4 is the variant with a fourth Joker)", low=2, high=4),
        Param("suit_size", 13, int, "cards per suit (13 = 2..A); a game has suit_size + 1 rounds", low=2, high=13),
        Param("die_faces", 6, int, "faces of the die; winning on the top face ends the game", low=2, high=20),
        Param("nonbuilder_tie", "centre", str, "non-Builders tied for highest: die to the centre, or the "
              "Builder keeps it unscored", choices=NONBUILDER_TIES),
        Param("six_win_scores", False, bool, "a six-win also scores the top face"),
    )
    agents = ag.AGENTS
    engines = ("reference", "fast")

    def players(self, params: dict[str, Any]) -> int:
        """Seats: the ``players`` parameter."""
        return int(params["players"])

    def max_length(self, params: dict[str, Any]) -> int:
        """At most ``suit_size + 1`` rounds."""
        return int(params["suit_size"]) + 1

    def check_agent(self, spec: AgentSpec) -> None:
        """Validate the agent's options."""
        ag.config(spec)

    def default_engine(self, agents: tuple[AgentSpec, ...], params: dict[str, Any]) -> str:
        """Every agent of this game is supported by the compiled engine."""
        return "fast" if all(a.name in ag.AGENTS for a in agents) else "reference"

    def chunk_hint(self, engine: str) -> int:
        """Large chunks for the compiled engine (per-chunk overhead dominates below ~10^5)."""
        return 1_000_000 if engine == "fast" else 2_000

    def catalogue(self) -> dict[str, Any]:
        """Agents, engines and result vocabulary for ``workbench games``."""
        return {
            "agents": {
                "random": "a uniformly random card of the hand",
                "highest": "the highest rank held (the Joker last)",
                "lowest": "the lowest rank held (the Joker last)",
                "joker": "joker:at=4,base=random — the Joker against another Builder's die at `at`+, else `base`",
                "mixed": "mixed:random=0.5,highest=0.3,lowest=0.2,joker=0 — a policy drawn each round",
            },
            "reasons": {"six_win": "a Builder won on the die's top face", "score": "highest score after the "
                        "last round", "draw": "several players share the highest score"},
            "engines": {"fast": "compiled batch engine (numba), every agent", "reference": "pure Python rules"},
        }

    def play_chunk(self, params: dict[str, Any], agents: tuple[AgentSpec, ...], seeds: np.ndarray,
                   engine: str) -> pl.DataFrame:
        """Play one game per seed with the chosen engine."""
        rules = Rules.from_params(params)
        configs = [ag.config(a) for a in agents]
        if engine == "fast":
            from workbench.games.dietower.fast import play_fast

            cols = play_fast(rules, configs, seeds)
        else:
            cols = play_reference(rules, configs, seeds)
        return to_frame(cols, rules.players)


MODEL = DieTowerModel()
