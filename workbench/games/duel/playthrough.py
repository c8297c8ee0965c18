"""A seeded duel written out as readable text (the golden playthroughs in tests/games/duel/golden/).

The text is built only from what :func:`workbench.games.duel.play.play_game` reports through its
``on_event`` callback (deal, turn start, action, missed turn, end), so it shows exactly what the
reference engine did: each turn's production, the mover's hand, every action with the card's
name, cost and effect, what changed, the cards drawn, and both positions after every action.

Regenerate the golden files on purpose with ``UPDATE_GOLDEN=1 pytest tests/games/duel/test_golden.py``
or print one game with ``python -m workbench.games.duel.playthrough --seed 7 --agents greedy,greedy``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from workbench.core.model import AgentSpec
from workbench.games.duel import rules
from workbench.games.duel.agents import Agent, make_agent
from workbench.games.duel.effects import STATS
from workbench.games.duel.play import SEATS, play_game
from workbench.games.duel.rules import DISCARD, Action, Config, GameState, PlayerState

Event = tuple[str, GameState, Any]


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


def _unproduce(state: GameState) -> GameState:
    """The state a ``turn`` event's production started from (``begin_turn`` only adds producers)."""
    me, p = state.current, state.players[state.current]
    before = p._replace(ore=p.ore - p.mines, mana=p.mana - p.monasteries, troops=p.troops - p.barracks)
    return state._replace(players=rules._with(state.players, me, before))


def _after(events: list[Event], i: int) -> GameState:
    """The state right after event ``i``'s action: the next event's state, before its production."""
    kind, state, _ = events[i + 1]
    return _unproduce(state) if kind == "turn" else state


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


def _end_lines(state: GameState) -> list[str]:
    winner, reason = state.outcome
    who = "draw" if winner == rules.DRAW_SEAT else f"{SEATS[winner]} wins"
    return ["", f"end after {state.turn} turns: {who} ({reason}); missed turns p1 {state.missed_total[0]}, "
                f"p2 {state.missed_total[1]}"]


def format_events(config: Config, events: list[Event], header: Sequence[str] = ()) -> str:
    """Turn the recorded ``on_event`` calls of one game into text."""
    lines = list(header)
    for i, (kind, state, detail) in enumerate(events):
        if kind == "deal":
            lines += [f"first to move: {SEATS[state.first]}",
                      *(f"{name} is dealt: {hand_text(config, state.hands[seat])}" for seat, name in enumerate(SEATS)),
                      f"draw pile: {len(state.deck)} cards" if config.deck == "regular"
                      else "unlimited deck: every draw is uniform over all card kinds"]
        elif kind == "turn":
            lines += _turn_lines(config, state)
        elif kind == "action":
            lines += _action_lines(config, state, detail, _after(events, i))
        elif kind == "miss":
            after = _after(events, i)
            me = state.current
            lines.append(f"- {SEATS[me]} misses the turn ({after.missed[me]} in a row): worst card [{detail}] "
                         f"{card_label(config, state.hands[me][detail])} discarded")
            lines += _draws(config, state, after, me) + _positions(after)
        elif kind == "end":
            lines += _end_lines(state)
    return "\n".join(lines) + "\n"


def playthrough(config: Config, agents: Sequence[Agent], seed: int, first: str = "p1",
                header: Sequence[str] = ()) -> str:
    """Play one seeded game with the reference engine and return it as text."""
    events: list[Event] = []
    play_game(config, agents, seed, first, on_event=lambda kind, state, detail: events.append((kind, state, detail)))
    return format_events(config, events, header)


def render(params: dict[str, Any] | None = None, agents: Sequence[str] = ("greedy", "greedy"), seed: int = 7) -> str:
    """A playthrough from model parameters (defaults filled in) and agent specs, with a header."""
    from workbench.games.duel.model import MODEL, RULES_VERSION, build_config

    resolved = MODEL.resolve_params(params or {})
    config = build_config(resolved)
    specs = [AgentSpec.parse(a) for a in agents]
    set_params = {k: v for k, v in sorted(resolved.items()) if (params or {}).get(k) is not None}
    header = [f"# Tower duel playthrough ({RULES_VERSION}, reference engine)",
              f"seed {seed}; agents p1 {specs[0]}, p2 {specs[1]}",
              "parameters: " + (", ".join(f"{k}={v}" for k, v in set_params.items()) or "defaults"),
              f"battlefield {config.battlefield.key}: win at tower {config.battlefield.win_tower} or "
              f"{config.battlefield.win_resources} of a resource; deck {config.deck}; hand {config.hand_size}"]
    return playthrough(config, [make_agent(s) for s in specs], seed, resolved["first"], header)


def main(argv: Sequence[str] | None = None) -> None:
    """Print one playthrough: ``--seed``, ``--agents a,b`` and ``--param key=value`` (repeatable)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--agents", default="greedy,greedy")
    parser.add_argument("--param", action="append", default=[], help="key=value, e.g. battlefield=free_steppe")
    args = parser.parse_args(argv)
    params = dict(p.split("=", 1) for p in args.param)
    print(render(params, args.agents.split(","), args.seed), end="")


if __name__ == "__main__":
    main()
