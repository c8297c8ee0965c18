"""Loading and validating the duel's editable data: cards.csv and battlefields.csv.

Every problem is reported as a :class:`DataError` naming the file, the row (1-based, header is
row 1), the column and the reason, before anything is simulated.
"""

from __future__ import annotations

import csv
import hashlib
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import NamedTuple

from workbench.core.errors import DataError
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


def _read_rows(path: Path, columns: tuple[str, ...]) -> list[dict[str, str]]:
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            header = reader.fieldnames or []
            missing = [c for c in columns if c not in header]
            if missing:
                raise DataError(path, 1, missing[0], f"missing column; the header must have {', '.join(columns)}")
            rows = list(reader)
    except OSError as exc:
        raise DataError(path, None, None, f"cannot read the file: {exc.strerror or exc}") from None
    for i, row in enumerate(rows, start=2):
        if None in row or any(row.get(c) is None for c in columns):
            raise DataError(path, i, None, f"wrong number of fields; expected {len(header)}")
    return rows


def _int(path: Path, rownum: int, row: dict[str, str], column: str, low: int, high: int) -> int:
    text = row[column].strip()
    try:
        value = int(text)
    except ValueError:
        raise DataError(path, rownum, column, f"{text!r} is not a whole number") from None
    if not low <= value <= high:
        raise DataError(path, rownum, column, f"{value} is out of range; allowed {low}..{high}")
    return value


def _text(path: Path, rownum: int, row: dict[str, str], column: str) -> str:
    text = row[column].strip()
    if not text:
        raise DataError(path, rownum, column, "is empty")
    return text


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def load_cards(path: str | Path = CARDS_CSV) -> CardSet:
    """Read and validate a cards CSV (columns: id, key, name_en, name_id, colour, cost, effect)."""
    path = Path(path)
    return _load_cards(path.resolve(), path.stat().st_mtime_ns if path.exists() else 0)


@lru_cache(maxsize=16)
def _load_cards(path: Path, _mtime: int) -> CardSet:
    rows = _read_rows(path, CARD_COLUMNS)
    cards: list[Card] = []
    seen_ids: dict[int, int] = {}
    seen_keys: dict[str, int] = {}
    for rownum, row in enumerate(rows, start=2):
        card_id = _int(path, rownum, row, "id", 1, 10_000)
        key = _text(path, rownum, row, "key")
        if card_id in seen_ids:
            raise DataError(path, rownum, "id", f"id {card_id} already used on row {seen_ids[card_id]}")
        if key in seen_keys:
            raise DataError(path, rownum, "key", f"key {key!r} already used on row {seen_keys[key]}")
        seen_ids[card_id], seen_keys[key] = rownum, rownum
        colour = row["colour"].strip()
        if colour not in COLOURS:
            raise DataError(path, rownum, "colour", f"{colour!r} is not a colour; allowed: {', '.join(COLOURS)}")
        cost = _int(path, rownum, row, "cost", 0, MAX_COST)
        effect_text = row["effect"].strip()
        try:
            effect = parse_effect(effect_text)
        except EffectSyntaxError as exc:
            raise DataError(path, rownum, "effect", str(exc)) from None
        cards.append(Card(len(cards), card_id, key, _text(path, rownum, row, "name_en"),
                          row["name_id"].strip(), colour, cost, effect, effect_text))
    if len(cards) < 14:
        raise DataError(path, None, None, f"{len(cards)} cards; a deck needs at least 14 (two hands of 6 and a draw)")
    return CardSet(tuple(cards), str(path), _digest(path))


def load_battlefields(path: str | Path = BATTLEFIELDS_CSV) -> dict[str, Battlefield]:
    """Read and validate a battlefields CSV, keyed by battlefield key in file order."""
    path = Path(path)
    return _load_battlefields(path.resolve(), path.stat().st_mtime_ns if path.exists() else 0)


@lru_cache(maxsize=16)
def _load_battlefields(path: Path, _mtime: int) -> dict[str, Battlefield]:
    rows = _read_rows(path, BATTLEFIELD_COLUMNS)
    out: dict[str, Battlefield] = {}
    for rownum, row in enumerate(rows, start=2):
        key = _text(path, rownum, row, "key")
        if key in out:
            raise DataError(path, rownum, "key", f"battlefield {key!r} appears twice")
        nums = {c: _int(path, rownum, row, c, 0, MAX_START) for c in BATTLEFIELD_COLUMNS[3:]}
        for c in ("win_tower", "win_resources"):
            if nums[c] < 1:
                raise DataError(path, rownum, c, "must be at least 1")
        if nums["tower"] < 1:
            raise DataError(path, rownum, "tower", "a battlefield must start with a tower of at least 1")
        if nums["tower"] >= nums["win_tower"]:
            raise DataError(path, rownum, "tower", f"start tower {nums['tower']} already reaches the winning "
                                                   f"tower {nums['win_tower']}")
        out[key] = Battlefield(key, _text(path, rownum, row, "name_en"), row["name_id"].strip(), **nums)
    if not out:
        raise DataError(path, None, None, "no battlefields")
    return out

