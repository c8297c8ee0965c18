"""Towers of Babylon as a workbench game: parameters, agents, and the core protocol over ``rules``.

A state is the rules' :class:`~workbench.games.babylon.rules.State`.  Both decks are shuffled once
at the start from sub-streams of the game seed (``workbench/core/rng.py``): 1 is p1's deck, 2 is
p2's, 3 and 4 are the agents of p1 and p2 (:meth:`BabylonModel.agent_stream`), 5 the first player
when ``first="random"``.  There is no chance node after that, and no reshuffle.

``current_player`` is the seat whose decision is due (``rules.decision``): the active player in its
turn, but the *defender* when an attack waits for its block or its Witcheries (the Witchery window
of the non-active player), and each seat in turn for the opening mulligan.

Result columns: ``winner`` (p1/p2/draw), ``reason`` (``tower``: a tower reached the win height;
``count``: the higher tower after both players' last turn, or a draw), ``length`` (player turns
begun, both seats), ``first_seat``, and per seat (the decks are the parameter columns ``deck_p1``
and ``deck_p2``): ``tower`` (final), ``towers`` (after each turn of the game, the final height
last), ``tp``, ``sources`` (Power Sources), ``hand``, ``board`` (minions on the board), the tallies
of ``rules.TALLIES`` (levels ``built`` by builders, ``tower_damage`` dealt to the enemy tower by
attacks, levels ``stolen`` by Thief, ``minions`` and ``spells`` played, ``witcheries``,
``offerings``, ``attacks``, ``blocks``, ``deaths`` of own minions, ``drawn_cards``, cards put back
in the ``mulligan``), and ``drawn`` / ``played``: the card ids the seat held / played at least once
(sorted).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import operator
from collections import Counter
from functools import lru_cache
from typing import Any

import polars as pl

from workbench.core.design.cardtable import CardTable
from workbench.core.errors import InputError
from workbench.core.model import FIRST, TERMINAL, CompiledEngine, GameModel, Param, seat_name
from workbench.core.rng import SplitMix64
from workbench.games.babylon import agents as babylon_agents
from workbench.games.babylon import rules
from workbench.games.babylon.cards import CARDS_CSV, load_cards, load_decks
from workbench.games.babylon.results import RESULT_COLUMNS, SEATS, STEPS_PER_TURN
from workbench.games.babylon.rules import SEAT_STREAM_BASE, Action, Config, State

RULES_VERSION = "babylon-3"  # 2: payment keeps the most of the hand payable (issue 21); 3: the player pays (issue 37)
DECK_KEYS = tuple(load_decks())

PARAMS = (
    Param("deck_p1", DECK_KEYS[0], str, "p1's deck (data/babylon/decks.toml)", choices=DECK_KEYS),
    Param("deck_p2", DECK_KEYS[1], str, "p2's deck (data/babylon/decks.toml)", choices=DECK_KEYS),
    FIRST,
    Param("start_hand", 4, int, "cards the first player draws at the start", 1, 10),
    Param("second_cards", 1, int, "extra cards the second player draws at the start (compensation)", 0, 5),
    Param("second_tp", 1, int, "Transformed Power the second player starts with (compensation)", 0, 20),
    Param("mulligan", 3, int, "most cards a player may put back and redraw at the start", 0, 5),
    Param("start_tower", 10, int, "tower levels at the start", 0, 200),
    Param("win_tower", 50, int, "tower levels that win at once", 1, 500),
    Param("turns", 15, int, "turns each player plays before the towers are counted", 1, 100),
    # readings of the open text (docs/rules/babylon.md, "Parameters and readings"): the default is the one played
    Param("clash_back", "yes", str, "an exhausted minion that is attacked still deals its might back (yes) or "
          "deals none (no: exhausted minions can't defend)", choices=rules.READINGS["clash_back"]),
    Param("dark_pact", "draws", str, "Dark Pact (a text destroying a chosen friendly minion) with no friendly "
          "minion: still draws (draws) or cannot be played (unplayable)", choices=rules.READINGS["dark_pact"]),
    Param("thief_gain", "lost", str, "Thief's tower gains the levels the enemy tower lost (lost) or the full "
          "damage (damage)", choices=rules.READINGS["thief_gain"]),
    Param("crush_excess", "remaining", str, "Crush's excess is might over the blocker's remaining health "
          "(remaining) or over its printed health (printed)", choices=rules.READINGS["crush_excess"]),
    Param("sentenced_build", "counts", str, "a Sentenced builder its exhaustion kills still builds (counts) or "
          "not (fails)", choices=rules.READINGS["sentenced_build"]),
    Param("payment", "chosen", str, "which Power Sources pay a card: the player's choice, named by the play "
          "(chosen); the engine's, the way that keeps the most of the hand payable (keep_playable, rules version 2), "
          "or the specific cost in colour and the rest from other colours first (others_first, before rules "
          "version 2)", choices=rules.READINGS["payment"]),
    Param("cards", None, str, "cards CSV (none: data/babylon/cards.csv)", optional=True),
    Param("decks", None, str, "decks TOML (none: data/babylon/decks.toml)", optional=True),
)


def _path(value: Any) -> str | None:
    return None if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none")) else value


@lru_cache(maxsize=64)
def _config(blob: str, cards_digest: str, decks_digest: str) -> Config:
    params = json.loads(blob)
    pool = load_cards(_path(params["cards"]))
    decks = load_decks(_path(params["decks"]), pool)
    for seat in SEATS:
        if params[f"deck_{seat}"] not in decks:
            raise InputError(f"babylon: deck_{seat} {params[f'deck_{seat}']!r} is not a deck; allowed: "
                             f"{', '.join(decks)}")
    return rules.make_config(pool, (decks[params["deck_p1"]], decks[params["deck_p2"]]), first=params["first"],
                             start_hand=params["start_hand"], second_cards=params["second_cards"],
                             second_tp=params["second_tp"], mulligan=params["mulligan"],
                             start_tower=params["start_tower"], win_tower=params["win_tower"], turns=params["turns"],
                             **{name: params[name] for name in rules.READINGS})


def _digests(params: dict[str, Any]) -> tuple[str, str]:
    """Digests of the cards file and of the decks it reads (a changed file is a new configuration)."""
    pool = load_cards(_path(params.get("cards")))
    decks = load_decks(_path(params.get("decks")), pool)
    return pool.digest, json.dumps({k: d.counts for k, d in decks.items()}, sort_keys=True)


def build_config(params: dict[str, Any]) -> Config:
    """The rules configuration of resolved parameters (cached until a data file changes)."""
    blob = json.dumps({k: params[k] for k in sorted(params)}, default=str)
    return _config(blob, *_digests(params))


class BabylonModel(GameModel):
    """Towers of Babylon: a two-player TCG with minions, zones and three spell types (``docs/rules/babylon.md``)."""

    name = "babylon"
    title = "Towers of Babylon (TCG)"
    rules_version = RULES_VERSION
    choice_names = dict.fromkeys(("deck_p1", "deck_p2"), "workbench.games.babylon.cards:deck_names")
    params = PARAMS
    readings = tuple(rules.READINGS)
    agent_types = babylon_agents.DECLS
    limit_reasons = ()
    studies = "workbench.games.babylon.studies:STUDIES"
    verdicts = "workbench.games.babylon.studies:verdict_sources"  # the verdicts study's sources
    card_table = CardTable("cards", CARDS_CSV, key=("id",),
                           editable=("power_cost", "specific_cost", "tp_cost", "construction", "might", "health",
                                     "keywords", "text"),
                           shown=("name", "faction", "type", "rarity"), validate=load_cards, title="cards",
                           played_by="workbench.games.babylon.rules:card_played")
    report = "workbench.games.babylon.report:build_report"
    agent_stream_base = SEAT_STREAM_BASE
    reference_chunk = 100  # a reference game takes tens of milliseconds
    # capabilities (card_table above)
    engine = CompiledEngine(("random", "greedy"), "workbench.games.babylon.engine.fast:play", chunk=5_000,
                            variants="workbench.games.babylon.engine.fast:VARIANTS",
                            # warm: the scenario checks' one-step entries
                            warm="workbench.games.babylon.engine.fast:warm_steps")
    text = "workbench.games.babylon.text"
    search = babylon_agents.SEARCH  # core's search agent (core/skill/search.py) over these hooks
    tiers = ("greedy", "greedy@tuned", "greedy@raised", "search")  # skill tiers, weakest first (core/skill/tiers.py)
    targets = "workbench.games.babylon.targets:TARGETS"  # balance metrics and edit space: workbench rebalance

    def params_for(self, given: dict[str, Any] | None = None) -> tuple[Param, ...]:
        """With a decks file given, its decks are the ones to choose from."""
        path = _path((given or {}).get("decks"))
        if path is None:
            return self.params
        keys = tuple(load_decks(path, load_cards(_path((given or {}).get("cards")))))
        defaults = {"deck_p1": keys[0], "deck_p2": keys[min(1, len(keys) - 1)]}
        return tuple(dataclasses.replace(p, choices=keys, default=defaults[p.name],
                                         help=f"{p.name[-2:]}'s deck (from {path})")
                     if p.name in defaults else p for p in self.params)

    def check_params(self, params: dict[str, Any]) -> None:
        """Impossible combinations (a start tower at the win height, a hand larger than the deck)."""
        build_config(params)

    def params_hash(self, params: dict[str, Any]) -> str:
        """Hash of the parameters, the rules version and the *content* of the data files."""
        cards, decks = _digests(params)
        blob = json.dumps({"rules": self.rules_version, "params": params, "cards": cards, "decks": decks},
                          sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def max_length(self, params: dict[str, Any]) -> int:
        """Player turns of both seats."""
        return 2 * int(params["turns"])

    def max_steps(self, params: dict[str, Any]) -> int:
        """Every turn ends within ``STEPS_PER_TURN`` protocol steps."""
        return 2 * int(params["turns"]) * STEPS_PER_TURN + 100

    def max_legal_actions(self, config: Config) -> int:
        """A bound: plays × targets (× payments: ``payment="chosen"``), moves, builds and attacks of 120 minions."""
        pays = rules.most_payments(config) if config.payment == "chosen" else 1
        return 60 * 121 * pays + 3 * 120 + 120 + 120 * 121 + 64

    def max_chance_outcomes(self, config: Config) -> int:
        """No chance nodes: the decks are shuffled from the state's streams."""
        return 0

    def result_columns(self, params: dict[str, Any]) -> dict[str, pl.DataType]:
        """The columns of the module docstring."""
        return RESULT_COLUMNS

    def default_agents(self, params: dict[str, Any]) -> tuple[str, ...]:
        """Greedy for both seats: random play says little about a deck."""
        return ("greedy", "greedy")

    def catalogue(self) -> dict[str, Any]:
        """Decks and end reasons for ``workbench games``."""
        return {"decks": {k: f"{d.name} ({' + '.join(d.factions)})" for k, d in load_decks().items()},
                "reasons": list(rules.REASONS)}

    # -- the protocol ---------------------------------------------------------------------------
    def make_config(self, params: dict[str, Any]) -> Config:
        """The rules configuration."""
        return build_config(params)

    def initial_state(self, config: Config, seed: int) -> State:
        """Shuffle both decks (streams 1 and 2), deal, and ask the first seat's mulligan (``rules``)."""
        return rules.initial_state(config, seed)

    def current_player(self, config: Config, state: State) -> int:
        """The seat whose decision is due (the defender during its block and Witchery window); TERMINAL at the end."""
        due = rules.decision(state)
        return TERMINAL if due is None else due[1]

    def legal_actions(self, config: Config, state: State, seat: int) -> tuple[Action, ...]:
        """``rules.legal_actions`` (none for a seat that is not deciding)."""
        due = rules.decision(state)
        if due is None or due[1] != seat:
            return ()
        return rules.legal_actions(config, state)

    def apply(self, config: Config, state: State, action: Any) -> State:
        """The state after ``action`` (an :class:`Action` or a tuple ``(kind, a, b)`` or ``(kind, a, b, pay)``)."""
        try:
            action = Action(*(operator.index(x) for x in action))  # whole numbers only: "end" or 1.5 is no action
        except TypeError:
            raise InputError(f"babylon: {action!r} is not an action (kind, a, b) or (kind, a, b, pay)") from None
        return rules.apply(config, state, action)

    def observation(self, config: Config, state: State, seat: int) -> babylon_agents.View:
        """The state with the opponent's hand and both decks' order masked."""
        return babylon_agents.observe(state, seat)

    def determinise(self, config: Config, view: babylon_agents.View, rng: SplitMix64) -> tuple[int, State]:
        """``(seat, state)``: the unseen cards dealt afresh from ``rng``."""
        return view.me, babylon_agents.determinise(config, view, rng)

    def result_row(self, config: Config, state: State) -> dict[str, Any]:
        """The columns of ``RESULT_SCHEMA``."""
        winner, reason = state.outcome  # type: ignore[misc]
        row: dict[str, Any] = {"winner": "draw" if winner == rules.DRAW_SEAT else SEATS[winner], "reason": reason,
                               "length": state.turn, "first_seat": SEATS[state.first]}
        history = trajectory(state)
        for seat, name in enumerate(SEATS):
            side = state.sides[seat]
            row[f"tower_{name}"] = side.tower
            row[f"towers_{name}"] = [pair[seat] for pair in history]
            row[f"tp_{name}"] = side.tp
            row[f"sources_{name}"] = sum(side.available) + sum(side.exhausted)
            row[f"hand_{name}"] = len(side.hand)
            row[f"board_{name}"] = sum(1 for m in state.minions if m.owner == seat)
            row.update({f"{t}_{name}": side.tally[i] for i, t in enumerate(rules.TALLIES)})
            row[f"drawn_{name}"] = sorted(config.cards[c].id for c in side.drawn)
            row[f"played_{name}"] = sorted(config.cards[c].id for c in side.played)
        return row

    def invariants(self, config: Config, state: State) -> list[str]:
        """Cards conserved (60 per seat in the right multiset), nothing negative, the game within its turns."""
        broken = []
        for seat in (0, 1):
            side = state.sides[seat]
            where = Counter(side.deck) + Counter(side.hand) + Counter(side.discard) + Counter(side.sacrifice)
            where += Counter(side.invocations) + Counter(m.card for m in state.minions if m.owner == seat)
            if where != Counter(config.decks[seat]):
                broken.append(f"{seat_name(seat)} cards not conserved: {rules.card_count(state, seat)} of "
                              f"{len(config.decks[seat])}")
            if side.tower < 0 or side.tp < 0 or min(side.available) < 0 or min(side.exhausted) < 0:
                broken.append(f"{seat_name(seat)} negative counter: tower {side.tower}, tp {side.tp}")
            if side.turns > config.turns:
                broken.append(f"{seat_name(seat)} played {side.turns} turns of {config.turns}")
            if list(side.hand) != sorted(side.hand):
                broken.append(f"{seat_name(seat)} hand not sorted")
        for m in state.minions:
            if m.damage < 0 or rules.health_left(config, m) <= 0 and state.pending is None and not state.queue:
                broken.append(f"minion #{m.uid} ({config.cards[m.card].id}) has {m.damage} damage and stays")
        if len({m.uid for m in state.minions}) != len(state.minions):
            broken.append("two minions share an id")
        return broken


def trajectory(state: State) -> tuple[tuple[int, int], ...]:
    """Both towers after each turn begun (a game that ended mid-turn: its final towers last)."""
    final = (state.sides[0].tower, state.sides[1].tower)
    if len(state.history) < state.turn:
        return state.history + (final,)
    return state.history


MODEL = BabylonModel()
