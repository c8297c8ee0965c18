"""Playing whole seeded duels with the reference engine, and the rows they produce.

Each game seed feeds independent SplitMix64 sub-streams (``workbench/core/rng.py``):
stream 1 the deck (the fair-shuffle deal, reshuffles and unlimited draws), 2 and 3 the agents
of p1 and p2, 4 the duel timer (missed turns), 5 the choice of the first player when
``first="random"``.  The fast kernel consumes the same streams in the same order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from workbench.core.rng import SplitMix64
from workbench.games.duel import rules
from workbench.games.duel.agents import Agent, observe
from workbench.games.duel.effects import STATS
from workbench.games.duel.rules import Config, GameState

DECK_STREAM, SEAT_STREAMS, TIMER_STREAM, FIRST_STREAM = 1, (2, 3), 4, 5
SEATS = ("p1", "p2")


def first_seat(first: str, seed: int) -> int:
    """Seat that moves first: fixed, or drawn from stream 5 for ``"random"``."""
    if first == "random":
        return SplitMix64.for_stream(seed, FIRST_STREAM).below(2)
    return SEATS.index(first)


def play_game(config: Config, agents: Sequence[Agent], seed: int, first: str = "random",
              on_event: Callable[[str, GameState, Any], None] | None = None) -> GameState:
    """Play one game to its end and return the final state.

    ``on_event(kind, state, detail)`` (optional) sees every turn start, action and miss — the
    golden playthrough is written from it.
    """
    deck_rng = SplitMix64.for_stream(seed, DECK_STREAM)
    seat_rngs = [SplitMix64.for_stream(seed, s) for s in SEAT_STREAMS]
    timer = SplitMix64.for_stream(seed, TIMER_STREAM)
    state = rules.new_game(config, first_seat(first, seed), deck_rng)
    if on_event:
        on_event("deal", state, None)
    while state.outcome is None:
        if not state.acting:
            state = rules.begin_turn(state, config)
            if on_event:
                on_event("turn", state, None)
            if state.outcome is not None:
                break
            if config.miss_rate > 0.0 and timer.random() < config.miss_rate:
                slot = rules.worst_slot(state.hands[state.current], config)
                if on_event:
                    on_event("miss", state, slot)
                state = rules.miss_turn(state, config, deck_rng)
                continue
            state = rules.reset_missed(state)
        me = state.current
        legal = rules.legal_actions(state, config)
        action = agents[me].act(observe(state), legal, config, seat_rngs[me])
        if on_event:
            on_event("action", state, action)
        state = rules.step(state, action, config, deck_rng)
    if on_event:
        on_event("end", state, None)
    return state


def result_row(state: GameState, config: Config) -> dict[str, Any]:
    """The game-specific columns of one finished game (see ``model.RESULT_SCHEMA``)."""
    winner, reason = state.outcome
    ids = [c.id for c in config.cards.cards]
    row: dict[str, Any] = {
        "winner": "draw" if winner == rules.DRAW_SEAT else SEATS[winner],
        "reason": reason,
        "length": state.turn,
        "first_seat": SEATS[state.first],
    }
    for seat, name in enumerate(SEATS):
        for i, stat in enumerate(STATS):
            row[f"{stat}_{name}"] = state.players[seat][i]
    for seat, name in enumerate(SEATS):
        row[f"missed_{name}"] = state.missed_total[seat]
    for seat, name in enumerate(SEATS):
        row[f"drawn_{name}"] = [ids[c] for c in state.drawn[seat]]
        row[f"played_{name}"] = [ids[c] for c in state.played[seat]]
    return row
