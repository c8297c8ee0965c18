"""Readable playthrough lines for Towers of Babylon (golden playthroughs, the CLI's game log)."""

from __future__ import annotations

from typing import Any

from workbench.core.model import seat_name
from workbench.games.babylon import rules
from workbench.games.babylon.rules import Action, Config, State


def _card(config: Config, c: int) -> str:
    return "?" if c == rules.UNKNOWN else f"{config.cards[c].id} {config.cards[c].name}"


def _minion(config: Config, m: rules.Minion) -> str:
    info = config.cards[m.card]
    marks = ("S" if m.sentenced else "") + (f"+{m.bonus}" if m.bonus else "")
    return (f"#{m.uid} {info.id} {info.construction}/{info.might}/{rules.health_left(config, m)} "
            f"{rules.STATUSES[m.status]}{' ' + marks if marks else ''}")


def config_lines(config: Config) -> list[str]:
    """The decks and the numbers in force."""
    return [f"decks: p1 {config.deck_keys[0]}, p2 {config.deck_keys[1]}; first: {config.first}",
            f"hands {config.start_hand} (+{config.second_cards} second), second TP {config.second_tp}, mulligan up "
            f"to {config.mulligan}; towers {config.start_tower} -> {config.win_tower}; {config.turns} turns each"]


def deal_lines(config: Config, state: State) -> list[str]:
    """Who moves first and both opening hands."""
    lines = [f"{seat_name(state.first)} moves first"]
    for seat in (0, 1):
        lines.append(f"{seat_name(seat)} hand: " + ", ".join(_card(config, c) for c in state.sides[seat].hand))
    return lines


def board_lines(config: Config, state: State) -> list[str]:
    """Both sides: tower, TP, sources, hand size, minions by zone."""
    lines = []
    for seat in (0, 1):
        side = state.sides[seat]
        zones = []
        for z, name in enumerate(rules.ZONES):
            ms = [_minion(config, m) for m in rules.minions_of(state, seat, z)]
            if ms:
                zones.append(f"{name}: " + ", ".join(ms))
        lines.append(f"  {seat_name(seat)} tower {side.tower}, TP {side.tp}, sources {sum(side.available)}/"
                     f"{sum(side.available) + sum(side.exhausted)}, hand {len(side.hand)}"
                     + ("; " + "; ".join(zones) if zones else ""))
    return lines


def step_lines(config: Config, before: State, who: Any, action: Action, after: State) -> list[str]:
    """The action, then the board when a turn ended or towers changed."""
    action = Action(*action)
    lines = [f"- {seat_name(who)}: {rules.describe_action(action, config)}"]
    towers = lambda s: (s.sides[0].tower, s.sides[1].tower)  # noqa: E731
    if after.turn != before.turn:
        lines.append(f"turn {after.turn}: {seat_name(after.active)}")
    if towers(after) != towers(before) or after.turn != before.turn:
        lines += board_lines(config, after)
    return lines


def end_lines(config: Config, state: State) -> list[str]:
    """Winner, reason and towers."""
    winner, reason = state.outcome  # type: ignore[misc]
    who = "draw" if winner == rules.DRAW_SEAT else seat_name(winner)
    return ["", f"end after {state.turn} turns: {who} ({reason}); towers {state.sides[0].tower} - "
                f"{state.sides[1].tower}"]
