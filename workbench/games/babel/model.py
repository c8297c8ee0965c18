"""Babel as a workbench game: parameters, agents, and the core protocol over ``rules``.

A state is the rules' :class:`~workbench.games.babel.rules.GameState`, which carries the integer
state of the nation deck's SplitMix64 stream (reshuffles), so ``apply`` is pure and a game seed
replays the same game.  Sub-streams of the game seed (``workbench/core/rng.py``): 1 the nation deck
(the deal and every reshuffle of the discard pile), 2 the quarry (shuffled once at the start),
3 and 4 the agents of p1 and p2 (:meth:`BabelModel.agent_stream`), 5 the first player when
``first="random"``.  The game has no chance node: every random draw is decided inside ``apply``.

``current_player`` is the player to move, except while the opponent owes discards after the
universal ability (they choose them one card per action), and TERMINAL at the end.

Result columns: ``winner`` (p1/p2/draw), ``reason`` (standard, end_phase_20, end_phase_drop,
quarry_empty, turn_limit), ``length`` (turns played), ``first_seat``, ``end_phase`` (whether the end
phase was entered), and per seat: ``value`` (final combined temple value), ``values`` (the combined
value after each turn 1..length, the final value last), ``hand`` (nation cards in hand), ``temples``
(each site's temple value, sites A H M P S), the ability uses per nation
(``assyrians`` .. ``sumerians``), ``universal``, ``builds`` (construct actions), ``moves``,
``migrations`` and ``actions`` (every decision the seat took, forced discards included).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import polars as pl

from workbench.core.errors import InputError
from workbench.core.model import FIRST, TERMINAL, CompiledEngine, GameModel, Param, seat_name
from workbench.core.rng import SplitMix64
from workbench.games.babel import agents as babel_agents
from workbench.games.babel import rules
from workbench.games.babel.results import MAX_ACTIONS_PER_TURN, RESULT_COLUMNS, SEATS, TALLY_COLUMNS
from workbench.games.babel.rules import SEAT_STREAM_BASE, Action, Config, GameState

RULES_VERSION = "babel-2"  # babel-2: the text's readings by default (issue 21)
START_HANDS = {"3/5": (3, 5), "5/5": (5, 5)}

PARAMS = (
    Param("start_hands", "3/5", str, "nation cards dealt: start player / other (5/5 is the first edition)",
          choices=tuple(START_HANDS)),
    Param("run_detection", "any", str, "an ability's run of 3 identical cards: anywhere in the stack, or at its top",
          choices=("any", "top")),
    Param("hand_start", None, int, "nation cards dealt to the start player (none: as start_hands says)", 0, 20,
          optional=True),
    Param("hand_other", None, int, "nation cards dealt to the other player (none: as start_hands says)", 0, 20,
          optional=True),
    Param("universal", True, bool, "the universal ability (the opponent discards half their hand)"),
    FIRST,
    Param("max_turns", 200, int, "turns before the game is a draw (turn_limit)", 1, 100_000),
    # readings of the text (docs/rules/babel.md, "Parameters and readings"); the default is the text's
    Param("universal_small_hand", "allowed", str,
          "the universal ability against a hand of 0 or 1 card (half rounded down discards nothing): allowed "
          "(the text: it only spends the own card) or refused", choices=("allowed", "refused")),
    Param("medes_absent_nation", "allowed", str,
          "the Medes naming a nation the opponent has none of at the site: allowed (the text) or refused",
          choices=("allowed", "refused")),
    Param("move_same_site", "allowed", str,
          "a move to the site the pawn already stands on (it only spends the card): allowed (the text) or refused",
          choices=("allowed", "refused")),
    Param("first_turn_check", "end_of_turn", str,
          "the start card's obligation: met by the end of the first turn in any order (end_of_turn, the text), "
          "or checked at every action (every_action: no other build first, no action that leaves no deploy)",
          choices=("end_of_turn", "every_action")),
)
READINGS = ("universal_small_hand", "medes_absent_nation", "move_same_site", "first_turn_check")
STRICT = {"universal_small_hand": "refused", "medes_absent_nation": "refused", "move_same_site": "refused",
          "first_turn_check": "every_action"}  # the readings the code played before babel-2 (issue 21)



def trajectory(state: GameState) -> tuple[tuple[int, int], ...]:
    """Both combined values after each turn 1..length (a game that ended mid-turn: its final values last)."""
    if len(state.history) < state.turn:
        return state.history + ((rules.combined_value(state, 0), rules.combined_value(state, 1)),)
    return state.history


class BabelModel(GameModel):
    """Babel: temple building on 5 sites with 5 nations (``docs/rules/babel.md``)."""

    name = "babel"
    title = "Babel (temple building)"
    rules_version = RULES_VERSION
    params = PARAMS
    agent_types = babel_agents.DECLS
    limit_reasons = (rules.TURN_LIMIT,)
    agent_stream_base = SEAT_STREAM_BASE
    studies = "workbench.games.babel.studies:STUDIES"
    verdicts = "workbench.games.babel.studies:verdict_sources"  # the verdicts study's sources
    report = "workbench.games.babel.report:build_report"
    # capabilities
    engine = CompiledEngine(("random", "greedy"), "workbench.games.babel.engine.fast:play", chunk=10_000,
                            variants="workbench.games.babel.engine.fast:VARIANTS")
    text = "workbench.games.babel.text"
    search = babel_agents.SEARCH  # core's search agent (core/skill/search.py) over these hooks
    tiers = ("greedy", "greedy@tuned", "search")  # skill tiers, weakest first (core/skill/tiers.py)
    targets = "workbench.games.babel.targets:TARGETS"  # balance metrics and edit space: workbench rebalance
    readings = READINGS  # open readings of the text as switches (core's readings study plays each)

    def max_length(self, params: dict[str, Any]) -> int:
        """Turns."""
        return int(params["max_turns"])

    def max_steps(self, params: dict[str, Any]) -> int:
        """Every turn ends within ``MAX_ACTIONS_PER_TURN`` protocol steps."""
        return int(params["max_turns"]) * MAX_ACTIONS_PER_TURN + 10

    def max_legal_actions(self, config: Config) -> int:
        """The most actions ever legal at once (``rules.TURN_ACTIONS``)."""
        return len(rules.TURN_ACTIONS)

    def max_chance_outcomes(self, config: Config) -> int:
        """No chance nodes: the decks are shuffled from the state's streams."""
        return 0

    def result_columns(self, params: dict[str, Any]) -> dict[str, pl.DataType]:
        """The columns of the module docstring."""
        return RESULT_COLUMNS

    def catalogue(self) -> dict[str, Any]:
        """Sites and end reasons for ``workbench games``."""
        return {"sites": {rules.site_name(s): f"{rules.NATIONS[rules.SITE_NATION[s]]}' colour"
                          for s in range(rules.N_SITES)},
                "reasons": list(rules.REASONS)}

    # -- the protocol ---------------------------------------------------------------------------
    def make_config(self, params: dict[str, Any]) -> Config:
        """The rules configuration."""
        start, other = START_HANDS[params["start_hands"]]
        hands = (start if params["hand_start"] is None else params["hand_start"],
                 other if params["hand_other"] is None else params["hand_other"])
        return Config(hands, params["run_detection"] == "any", bool(params["universal"]), params["first"],
                      int(params["max_turns"]), universal_small_hand=params["universal_small_hand"] == "allowed",
                      medes_absent=params["medes_absent_nation"] == "allowed",
                      move_in_place=params["move_same_site"] == "allowed",
                      first_turn_at_end=params["first_turn_check"] == "end_of_turn")

    def initial_state(self, config: Config, seed: int) -> GameState:
        """Shuffle the nation deck (stream 1) and the quarry (stream 2), deal, and start turn 1 (``rules``)."""
        return rules.initial_state(config, seed)

    def current_player(self, config: Config, state: GameState) -> int:
        """TERMINAL once decided; the opponent while universal discards are owed; else the player to move."""
        return TERMINAL if state.outcome is not None else rules.actor(state)

    def legal_actions(self, config: Config, state: GameState, seat: int) -> tuple[Action, ...]:
        """``rules.legal_actions`` in the stable order of ``rules.TURN_ACTIONS`` (none for a seat not acting)."""
        if state.outcome is not None or seat != rules.actor(state):
            return ()
        return rules.legal_actions(config, state)

    def apply(self, config: Config, state: GameState, action: Any) -> GameState:
        """The state after ``action`` (an :class:`Action` or a tuple ``(kind, a, b)``)."""
        try:
            action = Action(*action)
        except TypeError:
            raise InputError(f"babel: {action!r} is not an action (kind, a, b)") from None
        return rules.apply(config, state, action)

    def observation(self, config: Config, state: GameState, seat: int) -> babel_agents.View:
        """Own hand; both sides' sites, temples, stacks and pawns; sizes of hidden piles; the discard pile."""
        return babel_agents.observe(state, seat)

    def determinise(self, config: Config, view: babel_agents.View, rng: SplitMix64) -> tuple[int, GameState]:
        """``(seat, state)``: a full state consistent with ``view``, its hidden cards dealt from ``rng``."""
        return view.me, babel_agents.determinise(view, rng)

    def result_row(self, config: Config, state: GameState) -> dict[str, Any]:
        """The columns of ``RESULT_SCHEMA``."""
        winner, reason = state.outcome
        row: dict[str, Any] = {"winner": "draw" if winner == rules.DRAW_SEAT else SEATS[winner], "reason": reason,
                               "length": state.turn, "first_seat": SEATS[state.first], "end_phase": state.end_phase}
        history = trajectory(state)
        for seat, name in enumerate(SEATS):
            row[f"value_{name}"] = rules.combined_value(state, seat)
            row[f"values_{name}"] = [pair[seat] for pair in history]
            row[f"hand_{name}"] = rules.hand_size(state, seat)
            row[f"temples_{name}"] = [rules.level(t) for t in state.temples[seat]]
            row.update({f"{c}_{name}": state.tallies[seat][i] for i, c in enumerate(TALLY_COLUMNS)})
        return row

    def invariants(self, config: Config, state: GameState) -> list[str]:
        """Cards conserved, temples strictly ascending in 1..6, counts in range, the start card's life."""
        return (_nation_cards(state) + _temple_cards(state) + _temples_ascend(state) + _counts(config, state)
                + _start_cards(config, state))


# -- invariants -----------------------------------------------------------------------------------
def _nation_cards(state: GameState) -> list[str]:
    """Each nation's 12 cards are in hands, stacks, the draw pile and the discard pile, once."""
    seen = Counter(state.draw_pile) + Counter(state.discard)
    for seat in (0, 1):
        seen.update({n: c for n, c in enumerate(state.hands[seat]) if c > 0})
        for stack in state.stacks[seat]:
            seen.update(stack)
    wrong = {rules.NATIONS[n]: seen[n] for n in range(rules.N_NATIONS) if seen[n] != rules.NATION_COPIES}
    return [f"nation cards not conserved: {wrong}"] if wrong or len(seen) != rules.N_NATIONS else []


def _temple_cards(state: GameState) -> list[str]:
    """Each level's cards are in the quarry, the temple stacks, the temples and the held start cards."""
    seen = Counter(state.quarry) + Counter(state.temple_stacks[0]) + Counter(state.temple_stacks[1])
    seen[1] += sum(state.start_cards)
    for seat in (0, 1):
        for temple in state.temples[seat]:
            seen.update(temple)
    expected = {lv: rules.TEMPLE_COPIES[lv - 1] for lv in range(1, rules.TOP_LEVEL + 1)}
    return [] if dict(seen) == expected else [f"temple cards not conserved: {dict(sorted(seen.items()))}"]


def _temples_ascend(state: GameState) -> list[str]:
    """What the rules guarantee of every temple: levels strictly ascending within 1..6, and gaps bounded.

    A build adds the next level (level 1 on an empty site); a Persian build adds the level two up and a
    Hittite steal any higher level; the opponent only removes the top card (a steal) or everything
    (the Assyrians).  So a temple is strictly ascending, and its irregular steps (a bottom card above
    level 1, a step of more than one) number at most the owner's Persian and Hittite uses.
    """
    broken = []
    for seat in (0, 1):
        irregular = 0
        for site, temple in enumerate(state.temples[seat]):
            if any(not 1 <= lv <= rules.TOP_LEVEL for lv in temple) or list(temple) != sorted(set(temple)):
                broken.append(f"{seat_name(seat)} temple at {rules.site_name(site)} is not ascending: {temple}")
            irregular += sum(1 for low, high in zip((0, *temple), temple, strict=False) if high - low != 1)
        skips = state.tallies[seat][rules.HITTITES] + state.tallies[seat][rules.PERSIANS]
        if irregular > skips:
            broken.append(f"{seat_name(seat)} temples have {irregular} skipped levels after {skips} Persian or "
                          "Hittite uses")
    return broken


def _counts(config: Config, state: GameState) -> list[str]:
    """Nothing negative; pawns on the board; owed discards payable; the turn within the limit."""
    broken = [f"{seat_name(s)} hand {state.hands[s]}" for s in (0, 1) if min(state.hands[s]) < 0]
    if any(not 0 <= p <= rules.QUARRY for p in state.pawns):
        broken.append(f"pawns {state.pawns} off the board")
    if not 0 <= state.pending <= rules.hand_size(state, 1 - state.current):
        broken.append(f"{state.pending} discards owed by a hand of {rules.hand_size(state, 1 - state.current)}")
    if not 1 <= state.turn <= config.max_turns or state.actions < 0:
        broken.append(f"turn {state.turn} (limit {config.max_turns}), actions {state.actions}")
    if state.outcome is not None and state.outcome[1] not in rules.REASONS:
        broken.append(f"outcome {state.outcome}")
    return broken


def _start_cards(config: Config, state: GameState) -> list[str]:
    """A seat holds its start card only before its first turn ends, with a site left to build it on.

    Under the stricter first-turn reading it has no temple meanwhile (no other build comes first).
    """
    broken = []
    for seat in (0, 1):
        if not state.start_cards[seat]:
            continue
        in_first_turn = state.turn == 1 or (state.turn == 2 and state.current == seat != state.first)
        temples = state.temples[seat]
        if not in_first_turn or all(temples) or (not config.first_turn_at_end and any(temples)):
            broken.append(f"{seat_name(seat)} still holds the start card on turn {state.turn}")
    return broken


MODEL = BabelModel()
