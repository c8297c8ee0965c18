"""The tower duel as a workbench game model (parameters, agents, engines, result schema)."""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from typing import Any

import numpy as np
import polars as pl

from workbench.core.errors import InputError
from workbench.core.model import AgentSpec, GameModel, Param
from workbench.games.duel import agents as duel_agents
from workbench.games.duel.data import BATTLEFIELDS_CSV, CARDS_CSV, load_battlefields, load_cards
from workbench.games.duel.effects import STATS
from workbench.games.duel.play import SEATS, play_game, result_row
from workbench.games.duel.rules import Config

RULES_VERSION = "duel-1.0"
BATTLEFIELD_KEYS = tuple(load_battlefields())
BATTLEFIELD_OVERRIDES = ("tower", "wall", "mines", "monasteries", "barracks", "ore", "mana", "troops",
                         "win_tower", "win_resources")

RESULT_SCHEMA: dict[str, pl.DataType] = {
    "winner": pl.String, "reason": pl.String, "length": pl.Int64, "first_seat": pl.String,
    **{f"{stat}_{seat}": pl.Int64 for seat in SEATS for stat in STATS},
    **{f"missed_{seat}": pl.Int64 for seat in SEATS},
    **{f"{kind}_{seat}": pl.List(pl.Int64) for seat in SEATS for kind in ("drawn", "played")},
}


def _override(name: str) -> Param:
    key = name if name.startswith("win_") else f"start_{name}"
    what = name.replace("_", " ")
    return Param(key, None, int, f"battlefield {what} (none: the battlefield's own value)", 0, 100_000, optional=True)


PARAMS = (
    Param("battlefield", "crystal_garden", str, "battlefield (data/duel/battlefields.csv)", choices=BATTLEFIELD_KEYS),
    Param("deck", "regular", str, "regular: each card once, discards reshuffled; unlimited: uniform draws",
          choices=("regular", "unlimited")),
    Param("first", "random", str, "who moves first", choices=("random", "p1", "p2")),
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
        from workbench.games.duel.valuation import card_values

        values = card_values(cards)
    else:
        values = cards.cost_values
    return Config(cards=cards, battlefield=bf, deck=p["deck"], hand_size=p["hand_size"], max_turns=p["max_turns"],
                  miss_rate=p["miss_rate"], max_missed_in_row=p["max_missed_in_row"],
                  thief_rounding=p["thief_rounding"], lightning=p["lightning"], groundwater=p["groundwater"],
                  card_values=values, second_bonus=tuple(p[f"second_bonus_{stat}"] for stat in STATS))


class DuelModel(GameModel):
    """Tower duel: 102 cards, 8 battlefields, regular or unlimited deck."""

    name = "duel"
    title = "Tower duel"
    rules_version = RULES_VERSION
    params = PARAMS
    agents = duel_agents.AGENTS
    engines = ("reference", "fast")

    def max_length(self, params: dict[str, Any]) -> int:
        """Player turns."""
        return int(params["max_turns"])

    def check_agent(self, spec: AgentSpec) -> None:
        """Build once to validate the options."""
        duel_agents.make_agent(spec)

    def default_engine(self, agents: tuple[AgentSpec, ...], params: dict[str, Any]) -> str:
        """The fast kernel when it supports the agents, else the reference engine."""
        from workbench.games.duel import fast_support

        return "fast" if fast_support.supports(agents, params) else "reference"

    def releases_gil(self, engine: str) -> bool:
        """The compiled kernel is ``nogil``: workers are threads, with no process start-up."""
        return engine == "fast"

    def chunk_hint(self, engine: str) -> int:
        """Fast chunks are large; reference chunks keep the progress bar moving."""
        return 20_000 if engine == "fast" else 200

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

    def play_chunk(self, params: dict[str, Any], agents: tuple[AgentSpec, ...], seeds: np.ndarray,
                   engine: str) -> pl.DataFrame:
        """Play one game per seed with the chosen engine."""
        config = build_config(params)
        if engine == "fast":
            from workbench.games.duel import fast

            return fast.play_chunk(config, agents, seeds, params["first"])
        return play_reference(config, agents, seeds, params["first"])


def play_reference(config: Config, agents: tuple[AgentSpec, ...], seeds: np.ndarray, first: str) -> pl.DataFrame:
    """One result row per seed from the reference engine."""
    players = [duel_agents.make_agent(a) for a in agents]
    return rows_to_frame([result_row(play_game(config, players, int(s), first), config) for s in seeds])


def rows_to_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """Result rows → a frame with the documented schema (also for an empty list)."""
    if not rows:
        return pl.DataFrame(schema=RESULT_SCHEMA)
    return pl.DataFrame(rows, schema=RESULT_SCHEMA)


MODEL = DuelModel()
