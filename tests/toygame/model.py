"""Coin race as a workbench game: the template a new game is written from.

Copy this folder to ``workbench/games/<name>/``, rename ``ToyModel`` and ``name``, and replace the
rules; the package is then a registered game (every package under ``workbench/games/`` with a
``model`` module holding ``MODEL`` is one).  It passes the conformance suite
(``tests/test_conformance.py``) and appears in ``workbench games``, ``simulate``, ``sweep``,
``study``, ``report``, the studies notebook and the studio.  ``docs/new_game.md`` walks through it.

The files, and which are optional:

* ``rules.py`` — the rules as pure functions over an immutable state (required);
* ``model.py`` — this declaration, read in three parts like ``core/model/game.py``'s ``GameModel``:
  the facts, the rules wired into core's protocol, and optional capabilities (required);
* ``text.py`` — playthrough lines (optional capability ``text``);
* ``studies.py`` — the game's own studies (optional; core's generic ones come anyway);
* ``report.py`` — the game's report (optional; without it core writes a generic one).

The tests register the toy with ``WORKBENCH_GAMES=tests.toygame.model`` (``tests/conftest.py``); a
game under ``workbench/games/`` needs no such line.  ``tests/toygame/slow.py`` is test plumbing (a
slowed copy for tests that kill a run half-way), not part of the template.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from tests.toygame import rules
from workbench.core.model import CHANCE, TERMINAL, AgentDecl, GameModel, Param

PKG = "tests.toygame"  # in a real game: "workbench.games.<name>"


class Greedy:
    """Risky when behind, safe otherwise (no randomness)."""

    def act(self, view: rules.View, legal: tuple[str, ...], config: rules.Config, rng: Any) -> str:
        """Pick by the score difference (an agent sees only its seat's observation; ``rng`` is its own stream)."""
        me = view.seat
        return rules.RISKY if view.scores[me] < view.scores[1 - me] else rules.SAFE


class ToyModel(GameModel):
    """Coin race: the first seat to the target wins; some games hit the turn limit."""

    # -- 1. facts: what the game is; each Param is a CLI flag, a validator and a widget ----------
    name = "toy"  # the package name under workbench/games/
    title = "Coin race (toy)"
    rules_version = "toy-1"  # "<name>-<major>[.<minor>]": bump it when any result can change
    params = (
        Param("board", "small", str, "target 3 (small) or 5 (large)", choices=("small", "large")),
        Param("edge", 0.5, float, "chance a risky move scores 2", low=0.0, high=1.0),
        Param("limit", 20, int, "turn limit", low=2, high=1000),
        Param("fast", False, bool, "target one lower"),
        # a game where one seat moves first by choice or by lot declares core's FIRST and calls
        # core's first_seat(config.first, seed) (the toy draws its first seat from its own stream 2)
    )
    agent_types = (AgentDecl("greedy", Greedy, "risky when behind"),)  # core adds "random"
    limit_reasons = ("turn_limit",)  # end reasons that are limits, not decisions
    studies = f"{PKG}.studies:STUDIES"  # optional: the game's own studies (studies.py)
    report = f"{PKG}.report:build_report"  # optional: the game's report (report.py); None: core's generic one

    # -- 3. capabilities (optional; `workbench games` lists the ones declared) -------------------
    text = f"{PKG}.text"  # readable playthroughs (text.py)
    # determinise: the method below (hidden information: search agents, IS-MCTS through OpenSpiel)
    # solver hooks: max_legal_actions, max_chance_outcomes, returns_bounds, public_record (methods):
    #     bounds for the OpenSpiel bridge, which probes a game that declares none (as the toy does);
    #     see workbench/games/babel/model.py
    # engine = CompiledEngine(("random", "greedy"), f"{PKG}.fast:play", variants=f"{PKG}.fast:VARIANTS")
    #     a numba kernel playing whole games; see workbench/games/babel/engine/fast.py and kernel.py
    # card_table = CardTable(...)  an editable card table with what-ifs: see workbench/games/duel/model.py
    # lessons = f"{PKG}.lessons:LESSONS"  studies for the studio's teaching page: see workbench/games/dietower/

    def max_length(self, params: dict[str, Any]) -> int:
        """The turn limit."""
        return int(params["limit"])

    def result_columns(self, params: dict[str, Any]) -> dict[str, pl.DataType]:
        """The final scores (after core's winner, reason, length and first seat)."""
        return {"score_p1": pl.Int64, "score_p2": pl.Int64}

    # -- 2. rules: core's protocol over rules.py (pure functions of config and state) -------------
    def make_config(self, params: dict[str, Any]) -> rules.Config:
        """Target, edge and limit."""
        return rules.config(params)

    def initial_state(self, config: rules.Config, seed: int) -> rules.State:
        """A fresh race: every random draw of the game comes from sub-streams of ``seed``."""
        return rules.initial_state(config, seed)

    def current_player(self, config: rules.Config, state: rules.State) -> int:
        """The mover, the coin, or the end."""
        if state.outcome is not None:
            return TERMINAL
        return CHANCE if state.flipping else state.current

    def legal_actions(self, config: rules.Config, state: rules.State, seat: int) -> tuple[str, ...]:
        """Safe or risky, in a stable order (agents index into it)."""
        return rules.ACTIONS

    def apply(self, config: rules.Config, state: rules.State, action: Any) -> rules.State:
        """A move, or the coin's points."""
        return rules.score(config, state, action) if state.flipping else rules.act(config, state, action)

    def chance_outcomes(self, config: rules.Config, state: rules.State) -> list[tuple[int, float]]:
        """Two points with the edge, none otherwise."""
        return [(rules.WIN, config.edge), (rules.LOSE, 1.0 - config.edge)]

    def sample_chance(self, config: rules.Config, state: rules.State) -> tuple[int, rules.State]:
        """One draw of the coin stream (carried in the state, so the step is pure)."""
        return rules.flip(config, state)

    def observation(self, config: rules.Config, state: rules.State, seat: int) -> rules.View:
        """The scores, the turn and who moved first; the coin stream stays hidden."""
        return rules.observe(state, seat)

    def result_row(self, config: rules.Config, state: rules.State) -> dict[str, Any]:
        """Core's outcome columns, then the declared ones."""
        winner, reason = state.outcome
        return {"winner": winner, "reason": reason, "length": state.turn, "first_seat": f"p{state.first + 1}",
                "score_p1": state.scores[0], "score_p2": state.scores[1]}

    def invariants(self, config: rules.Config, state: rules.State) -> list[str]:
        """Scores stay within 0..target + 1; the turn within the limit (conformance checks every step)."""
        bad = [f"score {s}" for s in state.scores if not 0 <= s <= config.target + 1]
        return bad + ([f"turn {state.turn}"] if state.turn > config.limit else [])

    # -- 3. capabilities: hidden information -----------------------------------------------------
    def determinise(self, config: rules.Config, view: rules.View, rng: Any) -> tuple[int, rules.State]:
        """``(seat, state)``: the seat's view with the hidden coin stream drawn afresh from ``rng``."""
        return view.seat, rules.determinise(view, rng)


MODEL = ToyModel()
