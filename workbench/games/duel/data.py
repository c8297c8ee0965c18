"""Loading and validating the duel's editable data: cards.csv and battlefields.csv.

Every problem is reported as a :class:`DataError` naming the file, the row (as a spreadsheet shows
it: the header is row 1), the column and the reason, before anything is simulated.  Reading,
encodings, row numbering and the reload cache are :mod:`workbench.core.model.datafile`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

from workbench.core.errors import DataError
from workbench.core.model.datafile import file_cache, read_table
from workbench.games.duel.effects import COLOURS, Effect, EffectSyntaxError, parse_effect

DATA_DIR = Path(__file__).resolve().parents[3] / "data" / "duel"
CARDS_CSV = DATA_DIR / "cards.csv"
BATTLEFIELDS_CSV = DATA_DIR / "battlefields.csv"

CARD_COLUMNS = ("id", "key", "name_en", "name_id", "colour", "cost", "effect")
BATTLEFIELD_COLUMNS = ("key", "name_en", "name_id", "tower", "wall", "mines", "monasteries", "barracks",
                       "ore", "mana", "troops", "win_tower", "win_resources")
MAX_COST = 999
MAX_START = 100_000


class Card(NamedTuple):
    """One card kind.  ``index`` is its 0-based position in the card set (engine identity)."""

    index: int
    id: int
    key: str
    name_en: str
    name_id: str
    colour: str
    cost: int
    effect: Effect
    effect_text: str

    @property
    def resource(self) -> str:
        """The resource the card's cost is paid in."""
        return COLOURS[self.colour]


class Battlefield(NamedTuple):
    """Start position and victory thresholds of a battlefield."""

    key: str
    name_en: str
    name_id: str
    tower: int
    wall: int
    mines: int
    monasteries: int
    barracks: int
    ore: int
    mana: int
    troops: int
    win_tower: int
    win_resources: int


@dataclass(frozen=True)
class CardSet:
    """The cards of a deck, their source and a digest of its content."""

    cards: tuple[Card, ...]
    source: str
    digest: str

    def __len__(self) -> int:
        return len(self.cards)

    @cached_property
    def cost_values(self) -> tuple[float, ...]:
        """Each card's printed cost as a float (the simplest card valuation)."""
        return tuple(float(c.cost) for c in self.cards)

    def by_key(self, key: str) -> Card:
        """The card with this key (e.g. ``"prism"``)."""
        for card in self.cards:
            if card.key == key:
                return card
        raise KeyError(key)


def load_cards(path: str | Path = CARDS_CSV) -> CardSet:
    """Read and validate a cards CSV (columns: id, key, name_en, name_id, colour, cost, effect)."""
    return _load_cards(path)


@file_cache()
def _load_cards(path: Path) -> CardSet:
    table = read_table(path, CARD_COLUMNS, what="cards")
    cards: list[Card] = []
    seen_ids: dict[int, int] = {}
    seen_keys: dict[str, int] = {}
    for row in table:
        card_id = row.integer("id", 1, 10_000)
        key = row.text("key")
        if card_id in seen_ids:
            raise row.error("id", f"id {card_id} already used on row {seen_ids[card_id]}")
        if key in seen_keys:
            raise row.error("key", f"key {key!r} already used on row {seen_keys[key]}")
        seen_ids[card_id], seen_keys[key] = row.number, row.number
        colour = row.choice("colour", COLOURS, what="a colour")
        cost = row.integer("cost", 0, MAX_COST)
        effect_text = row["effect"].strip()
        try:
            effect = parse_effect(effect_text)
        except EffectSyntaxError as exc:
            raise row.error("effect", str(exc)) from None
        cards.append(Card(len(cards), card_id, key, row.text("name_en"), row["name_id"].strip(), colour, cost,
                          effect, effect_text))
    if len(cards) < 14:
        raise DataError(path, None, None, f"{len(cards)} cards; a deck needs at least 14 (two hands of 6 and a draw)")
    return CardSet(tuple(cards), str(path), table.digest)


def load_battlefields(path: str | Path = BATTLEFIELDS_CSV) -> dict[str, Battlefield]:
    """Read and validate a battlefields CSV, keyed by battlefield key in file order."""
    return _load_battlefields(path)


@file_cache()
def _load_battlefields(path: Path) -> dict[str, Battlefield]:
    out: dict[str, Battlefield] = {}
    for row in read_table(path, BATTLEFIELD_COLUMNS, what="battlefields"):
        key = row.text("key")
        if key in out:
            raise row.error("key", f"battlefield {key!r} appears twice")
        nums = {c: row.integer(c, 0, MAX_START) for c in BATTLEFIELD_COLUMNS[3:]}
        for c in ("win_tower", "win_resources"):
            if nums[c] < 1:
                raise row.error(c, "must be at least 1")
        if nums["tower"] < 1:
            raise row.error("tower", "a battlefield must start with a tower of at least 1")
        if nums["tower"] >= nums["win_tower"]:
            raise row.error("tower", f"start tower {nums['tower']} already reaches the winning tower "
                                     f"{nums['win_tower']}")
        out[key] = Battlefield(key, row.text("name_en"), row["name_id"].strip(), **nums)
    return out


def battlefield_names() -> dict[str, str]:
    """Each shipped battlefield's English name by key (the model's ``choice_names``)."""
    return {key: field.name_en for key, field in load_battlefields().items()}
