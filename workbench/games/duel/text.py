"""How a duel reads in a playthrough: the lines behind the model's ``describe`` hooks.

The model declares this module as its ``text`` capability; core's one writer
(``workbench/core/present/playthrough.py``) plays the game with the reference loop and asks it for lines:
the rules in force, the deal, each turn's start (production, a missed turn), every action with the
card's name, cost and effect, what changed, the cards drawn, both positions after every action, and
the end.  ``python -m workbench.core.present.playthrough duel --seed 7 --agents greedy,greedy`` prints one game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from workbench.core.model import CHANCE
from workbench.games.duel import rules
from workbench.games.duel.effects import STATS
from workbench.games.duel.results import SEATS
from workbench.games.duel.rules import DISCARD, Action, Config, GameState, PlayerState


def position(player: PlayerState) -> str:
    """One player's position on one line."""
    p = player
    return (f"tower {p.tower:3d}  wall {p.wall:3d} | mines {p.mines} monasteries {p.monasteries} "
            f"barracks {p.barracks} | ore {p.ore:3d} mana {p.mana:3d} troops {p.troops:3d}")


def card_label(config: Config, card: int) -> str:
    """``Basic Wall (2 ore)``."""
    c = config.cards.cards[card]
    return f"{c.name_en} ({c.cost} {c.resource})"


def hand_text(config: Config, hand: Sequence[int]) -> str:
    """The hand, slot by slot."""
    return ", ".join(f"[{i}] {card_label(config, c)}" for i, c in enumerate(hand)) or "(empty)"


def changes(before: tuple[PlayerState, ...], after: tuple[PlayerState, ...]) -> str:
    """What changed between two positions, e.g. ``p1 wall 10→13, ore 8→6; p2 tower 20→17``."""
    parts = []
    for seat, name in enumerate(SEATS):
        diffs = [f"{s} {before[seat][i]}→{after[seat][i]}"
                 for i, s in enumerate(STATS) if before[seat][i] != after[seat][i]]
        if diffs:
            parts.append(f"{name} " + ", ".join(diffs))
    return "; ".join(parts) or "no change"


def _draws(config: Config, before: GameState, after: GameState, seat: int) -> list[str]:
    lines = []
    if config.deck == "regular" and len(after.deck) > len(before.deck):
        lines.append("  the draw pile ran out: the discard pile is shuffled into a new draw pile")
    new = after.drawn[seat][len(before.drawn[seat]):]
    if new:
        lines.append(f"  {SEATS[seat]} draws: " + ", ".join(card_label(config, c) for c in new))
    return lines


def _positions(state: GameState) -> list[str]:
    return [f"  {name}  {position(state.players[seat])}" for seat, name in enumerate(SEATS)]


def _action_lines(config: Config, before: GameState, action: Action, after: GameState) -> list[str]:
    me = before.current
    card = config.cards.cards[before.hands[me][action.slot]]
    if action.kind == DISCARD:
        why = " (the draw-then-discard)" if before.pending_discard else ""
        lines = [f"- {SEATS[me]} discards [{action.slot}] {card_label(config, card.index)}{why}"]
    else:
        lines = [f"- {SEATS[me]} plays [{action.slot}] {card_label(config, card.index)}: {card.effect_text}",
                 f"  {changes(before.players, after.players)}"]
    lines += _draws(config, before, after, me)
    if after.outcome is None and after.current == me:
        lines.append("  must discard a card" if after.pending_discard else f"  {SEATS[me]} acts again "
                     f"(hand: {hand_text(config, after.hands[me])})")
    return lines + _positions(after)


def _turn_lines(config: Config, state: GameState) -> list[str]:
    me, p = state.current, state.players[state.current]
    return ["", f"turn {state.turn}: {SEATS[me]}",
            f"  production +{p.mines} ore +{p.monasteries} mana +{p.barracks} troops",
            *_positions(state), f"  hand: {hand_text(config, state.hands[me])}"]


def _miss_lines(config: Config, state: GameState, slot: int, after: GameState) -> list[str]:
    me = state.current
    return [f"- {SEATS[me]} misses the turn ({after.missed[me]} in a row): worst card [{slot}] "
            f"{card_label(config, state.hands[me][slot])} discarded", *_draws(config, state, after, me),
            *_positions(after)]


def config_lines(config: Config) -> list[str]:
    """The battlefield's victory conditions, the deck and the hand size."""
    bf = config.battlefield
    return [f"battlefield {bf.key}: win at tower {bf.win_tower} or {bf.win_resources} of a resource; "
            f"deck {config.deck}; hand {config.hand_size}"]


def deal_lines(config: Config, duel: Any) -> list[str]:
    """Who moves first, both hands and the draw pile (``duel``: the model's state)."""
    state = duel.game
    return [f"first to move: {SEATS[state.first]}",
            *(f"{name} is dealt: {hand_text(config, state.hands[seat])}" for seat, name in enumerate(SEATS)),
            f"draw pile: {len(state.deck)} cards" if config.deck == "regular"
            else "unlimited deck: every draw is uniform over all card kinds"]


def step_lines(config: Config, before_duel: Any, who: Any, action: Any, after_duel: Any) -> list[str]:
    """A turn's start (``who`` is chance: the timer's outcome, production, maybe a miss) or one action."""
    before, after = before_duel.game, after_duel.game
    if who != CHANCE:
        return _action_lines(config, before, action, after)
    started = rules.begin_turn(before, config)
    lines = _turn_lines(config, started)
    if action == "miss" and started.outcome is None:
        lines += _miss_lines(config, started, rules.worst_slot(started.hands[started.current], config), after)
    return lines


def end_lines(config: Config, duel: Any) -> list[str]:
    """Winner, reason, turns and missed turns."""
    state = duel.game
    winner, reason = state.outcome
    who = "draw" if winner == rules.DRAW_SEAT else f"{SEATS[winner]} wins"
    return ["", f"end after {state.turn} turns: {who} ({reason}); missed turns p1 {state.missed_total[0]}, "
                f"p2 {state.missed_total[1]}"]
