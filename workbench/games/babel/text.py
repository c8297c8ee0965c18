"""How a game of Babel reads in a playthrough: the lines behind the model's ``describe`` hooks.

The model declares this module as its ``text`` capability; core's one writer
(``workbench/core/present/playthrough.py``) plays the game with the reference loop and asks it for lines:
the rules in force, the deal, every action with what it changed (pawns, stacks, temples, hands,
the temple stacks, owed discards, reshuffles, the next turn's draw), and the end.  Cards are
written by letter: A Assyrians, H Hittites, M Medes, P Persians, S Sumerians; site ``M`` is the
site in the Medes' colour.  Stacks and piles are written bottom → top.
"""

from __future__ import annotations

from typing import Any

from workbench.core.model import seat_name
from workbench.games.babel import rules
from workbench.games.babel.rules import Action, Config, GameState


def cards(nations: tuple[int, ...]) -> str:
    """Nation cards by letter, bottom → top (``-`` for none)."""
    return " ".join(rules.LETTERS[n] for n in nations) or "-"


def hand(counts: tuple[int, ...]) -> str:
    """A hand by counts, e.g. ``A2 M1 S3 (6)``."""
    parts = [f"{rules.LETTERS[n]}{c}" for n, c in enumerate(counts) if c]
    return (" ".join(parts) or "empty") + f" ({sum(counts)})"


def levels(temple: tuple[int, ...]) -> str:
    """Temple or stack levels bottom → top (``-`` for none)."""
    return " ".join(map(str, temple)) or "-"


def values(state: GameState) -> str:
    """``values p1 7, p2 12``."""
    return f"values p1 {rules.combined_value(state, 0)}, p2 {rules.combined_value(state, 1)}"


def config_lines(config: Config) -> list[str]:
    """The rules in force."""
    runs = "anywhere in the stack" if config.run_any else "at the top of the stack"
    return [f"sites A H M P S in the colours of the {', '.join(rules.NATIONS)}; start hands "
            f"{config.start_hands[0]}/{config.start_hands[1]}; ability runs {runs}; universal ability "
            f"{'on' if config.universal else 'off'}; turn limit {config.max_turns}",
            "readings: " + "; ".join(reading_lines(config))]


def reading_lines(config: Config) -> list[str]:
    """The readings of the text in force, in words (``docs/rules/babel.md``)."""
    def said(allowed: bool) -> str:
        return "allowed" if allowed else "refused"

    first = "by the end of the first turn" if config.first_turn_at_end else "at every action"
    return [f"universal ability against a hand under 2 {said(config.universal_small_hand)}",
            f"Medes naming a nation absent here {said(config.medes_absent)}",
            f"a move to the pawn's own site {said(config.move_in_place)}",
            f"start card's obligation checked {first}"]


def deal_lines(config: Config, state: GameState) -> list[str]:
    """Who moves first and the hands after turn 1's draw."""
    return [f"first to move: {seat_name(state.first)}",
            *(f"{seat_name(s)} hand: {hand(state.hands[s])}" for s in (0, 1)),
            f"quarry {len(state.quarry)} temple cards, nation draw pile {len(state.draw_pile)}",
            f"turn 1: {seat_name(state.first)}"]


def _site_changes(before: GameState, after: GameState) -> list[str]:
    parts = []
    for seat in (0, 1):
        for site in range(rules.N_SITES):
            where = f"{seat_name(seat)} at {rules.site_name(site)}"
            if before.stacks[seat][site] != after.stacks[seat][site]:
                parts.append(f"{where}: stack {cards(after.stacks[seat][site])}")
            if before.temples[seat][site] != after.temples[seat][site]:
                parts.append(f"{where}: temple {levels(before.temples[seat][site])} → "
                             f"{levels(after.temples[seat][site])}")
    return parts


def _pile_changes(before: GameState, after: GameState) -> list[str]:
    parts = [f"{seat_name(s)} pawn → {rules.site_name(after.pawns[s])}"
             for s in (0, 1) if before.pawns[s] != after.pawns[s]]
    parts += [f"{seat_name(s)} temple stack {levels(after.temple_stacks[s])}"
              for s in (0, 1) if before.temple_stacks[s] != after.temple_stacks[s]]
    if len(after.quarry) > len(before.quarry):
        parts.append(f"quarry top now {levels(after.quarry[len(before.quarry):])} ({len(after.quarry)} cards)")
    if after.pending and after.pending != before.pending - 1:
        parts.append(f"{seat_name(1 - after.current)} must discard {after.pending}")
    return parts


def step_lines(config: Config, before: GameState, who: Any, action: Action, after: GameState) -> list[str]:
    """One action and what it changed; an end of turn adds the next turn's draw."""
    action = Action(*action)
    changes = _site_changes(before, after) + _pile_changes(before, after)
    if action.kind == rules.END_TURN:
        return _end_turn_lines(before, who, after)
    line = f"- {seat_name(who)}: {rules.action_text(action)}" + ("; " + "; ".join(changes) if changes else "")
    if rules.combined_value(before, 0) != rules.combined_value(after, 0) or \
            rules.combined_value(before, 1) != rules.combined_value(after, 1):
        line += f"; {values(after)}"
    return [line + ("; END PHASE begins" if after.end_phase and not before.end_phase else "")]


def _end_turn_lines(before: GameState, who: int, after: GameState) -> list[str]:
    me = before.current
    drawn = after.temple_stacks[me][len(before.temple_stacks[me]):]
    announce = f", announces {after.announced[me]} cards" if after.announced[me] else ""
    lines = [f"- {seat_name(who)}: end turn; draws temple cards {levels(drawn)} → own stack "
             f"{levels(after.temple_stacks[me])}; hand {hand(after.hands[me])}{announce}"]
    if after.outcome is None:
        if len(after.draw_pile) > len(before.draw_pile):
            lines.append("  the nation draw pile ran out: the discard pile is shuffled into a new one")
        nxt = after.current
        lines.append(f"turn {after.turn}: {seat_name(nxt)} draws to {hand(after.hands[nxt])}; {values(after)}")
    return lines


def end_lines(config: Config, state: GameState) -> list[str]:
    """Winner, reason, turns, values, hands and temples."""
    winner, reason = state.outcome
    result = "a draw" if winner == rules.DRAW_SEAT else f"{seat_name(winner)} wins"
    temples = "; ".join(f"{seat_name(s)} temples " + " ".join(
        f"{rules.LETTERS[site]}:{'-'.join(map(str, t)) or '0'}" for site, t in enumerate(state.temples[s]))
        for s in (0, 1))
    return ["", f"end after {state.turn} turns: {result} ({reason}); {values(state)}; hands "
                f"{rules.hand_size(state, 0)} and {rules.hand_size(state, 1)}", temples]
