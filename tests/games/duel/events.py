"""Whole duels on core's reference loop, reported as the events the rule tests read.

``play_game(cfg, agents, seed, first, on_event)`` plays one game through the duel's protocol
(``workbench.games.duel.model``) and reports ``deal`` (the initial state), ``turn`` (the state after
production), ``miss`` (that state and the slot discarded), ``action`` (the state before the action,
and the action) and ``end`` (the final state) — so a test sees every state the rules went through.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from workbench.core.model import CHANCE
from workbench.core.sim.play import play_game as core_play_game
from workbench.games.duel import rules
from workbench.games.duel.model import MODEL
from workbench.games.duel.rules import MISS, Config, GameState


def play_game(cfg: Config, agents: Sequence[Any], seed: int, first: str = "random",
              on_event: Callable[[str, GameState, Any], None] | None = None) -> GameState:
    """Play one game and return the rules' final state (``first`` overrides ``cfg.first``)."""
    cfg = cfg._replace(first=first)
    emit = on_event or (lambda kind, state, detail: None)
    emit("deal", MODEL.initial_state(cfg, seed).game, None)

    def observe(before: Any, who: Any, action: Any, after: Any) -> None:
        if who != CHANCE:
            emit("action", before.game, action)
            return
        started = rules.begin_turn(before.game, cfg)
        emit("turn", started, None)
        if action == MISS and started.outcome is None:
            emit("miss", started, rules.worst_slot(started.hands[started.current], cfg))

    final = core_play_game(MODEL, cfg, agents, seed, observer=observe).game
    emit("end", final, None)
    return final
