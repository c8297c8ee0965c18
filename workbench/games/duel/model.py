"""The tower duel as a workbench game: parameters, agents, the protocol over ``rules``, engines.

Protocol (``core/model/``): the state is a :class:`rules.State` — the rules' ``GameState`` plus the
integer states of the deck and timer streams — and every protocol function is ``rules``' own
(``initial_state``, ``legal_actions``, ``apply``, ``chance_outcomes``, ``sample_chance``): a turn starts
at the duel timer's chance node, then the player to move acts until the turn passes.  The compiled
kernel (``fast.py``) plays the same games.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from functools import lru_cache
from typing import Any

import polars as pl

from workbench.core.design.cardtable import CardTable
from workbench.core.errors import InputError
from workbench.core.model import CHANCE, FIRST, TERMINAL, CompiledEngine, GameModel, Param
from workbench.core.rng import SplitMix64
from workbench.games.duel import agents as duel_agents
from workbench.games.duel import rules
from workbench.games.duel.data import BATTLEFIELDS_CSV, CARDS_CSV, load_battlefields, load_cards
from workbench.games.duel.effects import STATS
from workbench.games.duel.results import RESULT_COLUMNS, result_row
from workbench.games.duel.rules import SEAT_STREAM_BASE, Action, Config, State

RULES_VERSION = "duel-1.0"
BATTLEFIELD_KEYS = tuple(load_battlefields())
BATTLEFIELD_OVERRIDES = ("tower", "wall", "mines", "monasteries", "barracks", "ore", "mana", "troops",
                         "win_tower", "win_resources")


def _override(name: str) -> Param:
    key = name if name.startswith("win_") else f"start_{name}"
    what = name.replace("_", " ")
    return Param(key, None, int, f"battlefield {what} (none: the battlefield's own value)", 0, 100_000, optional=True)


PARAMS = (
    Param("battlefield", "crystal_garden", str, "battlefield (data/duel/battlefields.csv)", choices=BATTLEFIELD_KEYS),
    Param("deck", "regular", str, "regular: each card once, discards reshuffled; unlimited: uniform draws",
          choices=("regular", "unlimited")),
    FIRST,
    Param("hand_size", 6, int, "cards in hand after each turn", 1, 20),
    Param("max_turns", 400, int, "player turns before the game is a draw (turn_limit)", 1, 100_000),
    Param("miss_rate", 0.0, float, "chance a player misses a turn (duel timer)", 0.0, 1.0),
    Param("max_missed_in_row", 3, int, "consecutive misses that lose the game", 1, 1000),
    Param("thief_rounding", "up", str, "Thief: half of the loss rounded up or down", choices=("up", "down")),
    Param("lightning", "everyone", str, "Lightning's fallback damage hits everyone or the enemy only",
          choices=("everyone", "enemy")),
    Param("groundwater", "both", str, "Groundwater with equal walls hits both players or nobody",
          choices=("both", "nobody")),
    Param("worst_card", "value", str, "card valuation for the timer's automatic discard and greedy discards: "
          "value = the static value model's fitted value (valuation.py), cost = the printed cost",
          choices=("value", "cost")),
    *(_override(n) for n in BATTLEFIELD_OVERRIDES),
    *(Param(f"second_bonus_{stat}", 0, int, f"extra {stat} for the seat that moves second (a balancing lever)",
            0, 1000) for stat in STATS),
    Param("cards", None, str, "cards CSV (none: data/duel/cards.csv)", optional=True),
    Param("battlefields", None, str, "battlefields CSV (none: data/duel/battlefields.csv)", optional=True),
)


def build_config(params: dict[str, Any]) -> Config:
    """The rules configuration for resolved parameters (cached)."""
    return _build_config(json.dumps(params, sort_keys=True))


@lru_cache(maxsize=64)
def _build_config(key: str) -> Config:
    p = json.loads(key)
    cards = load_cards(p["cards"] or CARDS_CSV)
    fields = load_battlefields(p["battlefields"] or BATTLEFIELDS_CSV)
    if p["battlefield"] not in fields:
        raise InputError(f"unknown battlefield {p['battlefield']!r}; allowed: {', '.join(fields)}")
    bf = fields[p["battlefield"]]
    changes = {n: p[n if n.startswith("win_") else f"start_{n}"] for n in BATTLEFIELD_OVERRIDES}
    bf = bf._replace(**{k: v for k, v in changes.items() if v is not None})
    if bf.win_tower < 1 or bf.win_resources < 1 or bf.tower < 1 or bf.tower >= bf.win_tower:
        raise InputError(f"battlefield {bf.key}: need 1 <= start tower < win tower and win resources >= 1 "
                         f"(got tower {bf.tower}, win_tower {bf.win_tower}, win_resources {bf.win_resources})")
    if 2 * p["hand_size"] + 2 > len(cards) and p["deck"] == "regular":
        raise InputError(f"hand_size {p['hand_size']} is too large for a deck of {len(cards)} cards")
    if p["worst_card"] == "value":
        from workbench.games.duel.cardvalue.valuation import card_values

        values = card_values(cards)
    else:
        values = cards.cost_values
    return Config(cards=cards, battlefield=bf, deck=p["deck"], hand_size=p["hand_size"], max_turns=p["max_turns"],
                  miss_rate=p["miss_rate"], max_missed_in_row=p["max_missed_in_row"],
                  thief_rounding=p["thief_rounding"], lightning=p["lightning"], groundwater=p["groundwater"],
                  card_values=values, second_bonus=tuple(p[f"second_bonus_{stat}"] for stat in STATS),
                  first=p["first"])


class DuelModel(GameModel):
    """Tower duel: 102 cards, 8 battlefields, regular or unlimited deck."""

    name = "duel"
    title = "Tower duel"
    rules_version = RULES_VERSION
    choice_names = {"battlefield": "workbench.games.duel.data:battlefield_names"}
    params = PARAMS
    agent_types = duel_agents.DECLS
    limit_reasons = (rules.TURN_LIMIT, rules.TIMEOUT)
    agent_stream_base = SEAT_STREAM_BASE
    studies = "workbench.games.duel.studies:STUDIES"
    verdicts = "workbench.games.duel.studies:verdict_sources"  # the verdicts study's sources
    commands = "workbench.games.duel.shuffle:COMMAND"
    report = "workbench.games.duel.report:build_report"
    # the table a designer edits in the studio (core/design/cardtable.py): the `cards` parameter takes the file
    card_table = CardTable("cards", CARDS_CSV, key=("key", "id"), editable=("cost", "effect"),
                           shown=("name_en", "colour"), validate=load_cards,
                           played_by="workbench.games.duel.rules:card_played")
    engine = CompiledEngine(("random", "greedy"), "workbench.games.duel.engine.fast:play",
                            variants="workbench.games.duel.engine.fast:VARIANTS")
    text = "workbench.games.duel.text"
    search = duel_agents.SEARCH  # core's search agent (core/skill/search.py) over these hooks
    tiers = ("greedy", "greedy@tuned", "search")  # skill tiers, weakest first (core/skill/tiers.py)
    targets = "workbench.games.duel.targets:TARGETS"  # balance metrics and edit space: workbench rebalance
    readings = ("thief_rounding", "lightning", "groundwater", "worst_card")  # docs/rules/duel.md, open readings

    def max_length(self, params: dict[str, Any]) -> int:
        """Player turns."""
        return int(params["max_turns"])

    def max_steps(self, params: dict[str, Any]) -> int:
        """A turn is a chance node and at most a hand's worth of actions (play again, draw-discard)."""
        return int(params["max_turns"]) * (2 * int(params["hand_size"]) + 8) + 10

    def result_columns(self, params: dict[str, Any]) -> dict[str, pl.DataType]:
        """Final positions, missed turns and the cards each seat drew and played (``results.py``)."""
        return RESULT_COLUMNS

    def params_for(self, given: dict[str, Any] | None = None) -> tuple[Param, ...]:
        """With a battlefields file given, its battlefields are the ones to choose from."""
        path = (given or {}).get("battlefields")
        if path is None or (isinstance(path, str) and path.strip().lower() in ("", "none")):
            return self.params
        keys = tuple(load_battlefields(path))
        return tuple(dataclasses.replace(p, choices=keys, help=f"battlefield (from {path})")
                     if p.name == "battlefield" else p for p in self.params)

    def check_params(self, params: dict[str, Any]) -> None:
        """Impossible combinations (start tower above the win tower, a hand larger than the deck)."""
        build_config(params)


    def params_hash(self, params: dict[str, Any]) -> str:
        """Hash of the parameters, the rules version and the *content* of the data files."""
        config = build_config(params)
        blob = json.dumps({"rules": self.rules_version, "params": params, "cards": config.cards.digest,
                           "battlefield": list(config.battlefield)}, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def catalogue(self) -> dict[str, Any]:
        """Battlefields and card counts for ``workbench games``."""
        fields = load_battlefields()
        cards = load_cards()
        return {
            "battlefields": {k: f"{b.name_en} [{b.name_id}]: tower {b.tower}, wall {b.wall}, producers "
                                f"{b.mines}/{b.monasteries}/{b.barracks}, stock {b.ore}/{b.mana}/{b.troops}, "
                                f"win tower {b.win_tower} or resources {b.win_resources}"
                             for k, b in fields.items()},
            "cards": f"{len(cards)} cards in {cards.source}",
        }

    # -- the protocol ---------------------------------------------------------------------------
    def make_config(self, params: dict[str, Any]) -> Config:
        """The rules configuration (cached on the parameters)."""
        return build_config(params)

    def initial_state(self, config: Config, seed: int) -> State:
        """Shuffle and deal from the deck stream; the first turn's timer node is next (``rules.initial_state``)."""
        return rules.initial_state(config, seed)

    def current_player(self, config: Config, state: State) -> int:
        """TERMINAL once decided, CHANCE between turns (the timer), else the player to move."""
        game = state.game
        if game.outcome is not None:
            return TERMINAL
        return game.current if game.acting else CHANCE

    def chance_outcomes(self, config: Config, state: State) -> list[tuple[str, float]]:
        """The duel timer: miss with ``miss_rate``, else play (``rules.chance_outcomes``)."""
        return rules.chance_outcomes(config, state)

    def sample_chance(self, config: Config, state: State) -> tuple[str, State]:
        """One draw of the timer stream when the timer runs (``rules.sample_chance``)."""
        return rules.sample_chance(config, state)

    def legal_actions(self, config: Config, state: State, seat: int) -> tuple[Action, ...]:
        """``rules.legal_actions`` for the player to move (none for the other seat)."""
        return rules.legal_actions(config, state) if seat == state.game.current else ()

    def apply(self, config: Config, state: State, action: Action | str) -> State:
        """A timer outcome starts the turn; an action is played (``rules.apply``)."""
        return rules.apply(config, state, action)

    def observation(self, config: Config, state: State, seat: int) -> duel_agents.View:
        """Own hand, both positions, the discard pile, the draw pile's and enemy hand's sizes."""
        return duel_agents.observe(state.game, seat)

    def result_row(self, config: Config, state: State) -> dict[str, Any]:
        """The columns of ``results.RESULT_SCHEMA``."""
        return result_row(state.game, config)

    def invariants(self, config: Config, state: State) -> list[str]:
        """No negative statistic; the regular deck's cards are all somewhere, once; hands stay small."""
        game, broken = state.game, []
        for seat, player in enumerate(game.players):
            if min(player) < 0:
                broken.append(f"p{seat + 1} has a negative statistic: {player}")
        if config.deck == "regular":
            cards = sorted(game.deck + game.discard + game.hands[0] + game.hands[1])
            if cards != list(range(len(config.cards))):
                broken.append(f"regular deck: {len(cards)} cards in play, not each of {len(config.cards)} once")
        if max(len(h) for h in game.hands) > config.hand_size + 1:
            broken.append(f"a hand holds {max(len(h) for h in game.hands)} cards (hand size {config.hand_size})")
        if game.turn > config.max_turns:
            broken.append(f"turn {game.turn} beyond the turn limit {config.max_turns}")
        return broken

    # -- declarations for search and solvers ------------------------------------------------------
    def max_legal_actions(self, config: Config) -> int:
        """Plays and discards of a hand holding at most one card over the hand size."""
        return 2 * (config.hand_size + 1)

    def max_chance_outcomes(self, config: Config) -> int:
        """The timer: play or miss."""
        return 2

    def determinise(self, config: Config, observation: duel_agents.View, rng: SplitMix64) -> tuple[int, State]:
        """The unseen cards dealt at random (``agents.determinise``), fresh deck and timer streams."""
        game = duel_agents.determinise(observation, config, rng)
        return observation.me, State(game, rng.next_u64(), rng.next_u64())


MODEL = DuelModel()
