"""Loading and validating Towers of Babylon's editable data: cards.csv and decks.toml.

Every problem is one :class:`DataError` naming the file, the row (a spreadsheet's numbering: the
header is row 1) or the deck, the column or card, and what is allowed.  Reading, encodings and the
reload cache are :mod:`workbench.core.model.datafile`'s; the card text language is :mod:`.effects`.
"""

from __future__ import annotations

import os
import threading
import tomllib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from workbench.core.errors import DataError
from workbench.core.model.datafile import Row, file_cache, read_table
from workbench.games.babylon.effects import (
    TRIGGERS,
    Effect,
    EffectSyntaxError,
    format_keywords,
    parse_keywords,
    parse_text,
)

DATA_DIR = Path(__file__).resolve().parents[3] / "data" / "babylon"
CARDS_CSV = DATA_DIR / "cards.csv"
DECKS_TOML = DATA_DIR / "decks.toml"

CARD_COLUMNS = ("id", "name", "faction", "type", "power_cost", "specific_cost", "tp_cost", "construction", "might",
                "health", "kind", "rarity", "keywords", "text")
FACTIONS = {"Fire": "F", "Light": "L", "Earth": "E", "Water": "W", "Shadow": "S"}  # faction -> id letter
TYPES = ("Minion", "Command", "Invocation", "Witchery")
RARITIES = ("C", "U", "R", "S")
COPIES = {"C": 3, "U": 2, "R": 2, "S": 1}  # most copies of a card per deck, by rarity
DECK_SIZE = 60
MAX_COST = 20
MAX_STAT = 20


class Card(NamedTuple):
    """One card.  Costs and stats a card does not have are ``None`` (a blank cell).

    ``power_cost`` with ``specific_cost`` of it from the card's own faction (Minions, Commands,
    Invocations), or ``tp_cost`` in Transformed Power (Witcheries); ``text`` is the CSV text, kept
    for round trips and reports, ``effect`` its parse.
    """

    id: str
    name: str
    faction: str
    type: str
    power_cost: int | None
    specific_cost: int | None
    tp_cost: int | None
    construction: int | None
    might: int | None
    health: int | None
    kind: str
    rarity: str
    keywords: tuple[str, ...]
    effect: Effect
    text: str

    @property
    def max_copies(self) -> int:
        """How many copies of this card a deck may hold."""
        return COPIES[self.rarity]


@dataclass(frozen=True)
class CardPool:
    """The cards of the pool in file order, their source file and a digest of its content."""

    cards: tuple[Card, ...]
    source: str
    digest: str

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    def __contains__(self, card_id: object) -> bool:
        return any(c.id == card_id for c in self.cards)

    def __getitem__(self, card_id: str) -> Card:
        """The card with this id (``pool["F4"]``); ``KeyError`` if none."""
        for card in self.cards:
            if card.id == card_id:
                return card
        raise KeyError(card_id)

    def faction(self, faction: str) -> tuple[Card, ...]:
        """The cards of one faction, in file order."""
        return tuple(c for c in self.cards if c.faction == faction)


class Deck(NamedTuple):
    """A deck: its key (the TOML table name), display name, factions and ``(card id, copies)`` pairs."""

    key: str
    name: str
    factions: tuple[str, ...]
    counts: tuple[tuple[str, int], ...]

    def __len__(self) -> int:
        return sum(n for _, n in self.counts)

    @property
    def card_ids(self) -> tuple[str, ...]:
        """Every card of the deck, one entry per copy (a deck list to shuffle)."""
        return tuple(card_id for card_id, n in self.counts for _ in range(n))


# -- cards ------------------------------------------------------------------------------------------
def load_cards(path: str | Path | None = None) -> CardPool:
    """Read and validate a cards CSV (the shipped pool by default); cached until the file changes."""
    return _load_cards(CARDS_CSV if path is None else path)


@file_cache()
def _load_cards(path: Path) -> CardPool:
    table = read_table(path, CARD_COLUMNS, what="cards")
    cards: list[Card] = []
    seen: dict[str, int] = {}
    for row in table:
        card = _card(row)
        for column, value in (("id", card.id), ("name", card.name)):
            if (column, value) in seen:
                raise row.error(column, f"{value!r} already used on row {seen[column, value]}")
            seen[column, value] = row.number  # type: ignore[index]
        cards.append(card)
    return CardPool(tuple(cards), str(path), table.digest)


def _card(row: Row) -> Card:
    faction = row.choice("faction", FACTIONS, what="a faction")
    card_id = _card_id(row, FACTIONS[faction])
    card_type = row.choice("type", TYPES, what="a card type")
    power, specific, tp = _costs(row, card_type)
    stats = _stats(row, card_type)
    kind = _minion_only(row, "kind", card_type, row.text("kind", default=""))
    try:
        keywords = parse_keywords(row["keywords"])
    except EffectSyntaxError as exc:
        raise row.error("keywords", str(exc)) from None
    _minion_only(row, "keywords", card_type, format_keywords(keywords))
    text = row["text"].strip()
    effect = _effect(row, card_type, text)
    return Card(card_id, row.text("name"), faction, card_type, power, specific, tp, *stats, kind,
                row.choice("rarity", RARITIES, what="a rarity"), keywords, effect, text)


def _card_id(row: Row, letter: str) -> str:
    card_id = row.text("id")
    if card_id[:1] != letter or not card_id[1:].isdigit() or card_id[1:].startswith("0"):
        raise row.error("id", f"{card_id!r} is not an id of faction {row['faction'].strip()}; "
                              f"write {letter} and a number, e.g. {letter}1")
    return card_id


def _costs(row: Row, card_type: str) -> tuple[int | None, int | None, int | None]:
    """(power_cost, specific_cost, tp_cost): Witcheries cost TP only, every other type power only."""
    if card_type == "Witchery":
        for column in ("power_cost", "specific_cost"):
            if row[column].strip():
                raise row.error(column, "must be blank: a Witchery costs Transformed Power (tp_cost) only")
        return None, None, row.integer("tp_cost", 0, MAX_COST)
    if row["tp_cost"].strip():
        raise row.error("tp_cost", f"must be blank: a {card_type} costs power (power_cost, specific_cost)")
    power = row.integer("power_cost", 0, MAX_COST)
    return power, row.integer("specific_cost", 0, power), None


def _stats(row: Row, card_type: str) -> tuple[int | None, int | None, int | None]:
    if card_type == "Minion":
        return (row.integer("construction", 0, MAX_STAT), row.integer("might", 0, MAX_STAT),
                row.integer("health", 1, MAX_STAT))
    for column in ("construction", "might", "health"):
        _minion_only(row, column, card_type, row[column].strip())
    return None, None, None


def _minion_only(row: Row, column: str, card_type: str, value: str) -> str:
    if value and card_type != "Minion":
        raise row.error(column, f"must be blank: only a Minion has {column}, this card is a {card_type}")
    return value


def _effect(row: Row, card_type: str, text: str) -> Effect:
    try:
        effect = parse_text(text)
    except EffectSyntaxError as exc:
        raise row.error("text", str(exc)) from None
    allowed = [t for t, of in TRIGGERS.items() if of == card_type]
    for trigger in effect.triggers:
        if TRIGGERS[trigger] != card_type:
            raise row.error("text", f"trigger {trigger!r} is for a {TRIGGERS[trigger]}; a {card_type} may use "
                                    f"{', '.join(allowed)}")
    if card_type != "Minion" and not effect.clauses:
        raise row.error("text", f"is empty; a {card_type} needs a text with trigger {', '.join(allowed)}")
    return effect


# -- decks ------------------------------------------------------------------------------------------
def load_decks(path: str | Path | None = None, cards: CardPool | None = None) -> dict[str, Deck]:
    """Read a decks TOML (the precons by default) and check every deck against ``cards``.

    A legal deck has exactly 60 cards, every card known and of one of the deck's factions, and
    at most 3 copies of a common, 2 of an uncommon or rare, 1 of a super rare.

    Raises:
        DataError: unreadable or malformed TOML, or an illegal deck (naming the deck and the card).
    """
    pool = load_cards() if cards is None else cards
    path = DECKS_TOML if path is None else Path(path)
    raw = _read_toml(path)
    try:  # checked once per saved file and card pool (a study builds a configuration per lineup)
        stat = os.stat(path)
        key = (str(Path(path).resolve()), stat.st_ino, stat.st_mtime_ns, stat.st_size, pool.source, pool.digest)
    except OSError:
        key = None
    with _CHECKED_LOCK:
        if key is not None and key in _CHECKED:
            return dict(_CHECKED[key])
    decks = {name: _deck(path, name, table, pool) for name, table in raw.items()}
    if key is not None:
        with _CHECKED_LOCK:
            _CHECKED[key] = decks
            while len(_CHECKED) > 16:
                _CHECKED.pop(next(iter(_CHECKED)))
    return dict(decks)


_CHECKED: dict[tuple[Any, ...], dict[str, Deck]] = {}  # load_decks' checked decks by file state and card pool
_CHECKED_LOCK = threading.Lock()


@file_cache()
def _read_toml(path: Path) -> dict[str, Any]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DataError(path, None, None, f"cannot read the file: {exc.strerror or exc}") from None
    try:
        raw = tomllib.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise DataError(path, None, None, f"not valid TOML: {exc}") from None
    if not raw:
        raise DataError(path, None, None, "no decks; write one [deck_key] table per deck")
    return raw


def _deck(path: Path, key: str, table: Any, pool: CardPool) -> Deck:
    def fail(field: str, reason: str) -> DataError:
        return DataError(path, None, None, f"deck [{key}]" + (f", {field}" if field else "") + f": {reason}")

    if not isinstance(table, dict):
        raise fail("", "is not a table; write [deck_key] with name, factions and [deck_key.cards]")
    name, factions, counts = table.get("name"), table.get("factions"), table.get("cards")
    if not isinstance(name, str) or not name.strip():
        raise fail("name", "needs a name (text)")
    if (not isinstance(factions, list) or not factions or len(set(factions)) != len(factions)
            or any(f not in FACTIONS for f in factions)):
        raise fail("factions", f"factions must be a list of distinct factions of {', '.join(FACTIONS)}; "
                               f"found {factions!r}")
    if not isinstance(counts, dict) or not counts:
        raise fail("cards", f"needs a [{key}.cards] table of card id = copies")
    extra = sorted(set(table) - {"name", "factions", "cards"})
    if extra:
        raise fail(extra[0], "unknown field; a deck has name, factions and cards")
    for card_id, n in counts.items():
        _check_entry(pool, card_id, n, factions, fail)
    total = sum(counts.values())
    if total != DECK_SIZE:
        by_rarity = Counter()
        for card_id, n in counts.items():
            by_rarity[pool[card_id].rarity] += n
        raise fail("cards", f"has {total} cards; a deck must have exactly {DECK_SIZE} (copies by rarity: "
                            f"{', '.join(f'{r} {by_rarity[r]}' for r in RARITIES)})")
    return Deck(key, name.strip(), tuple(factions), tuple(counts.items()))


def _check_entry(pool: CardPool, card_id: str, n: Any, factions: list[str], fail: Any) -> None:
    if card_id not in pool:
        raise fail(f"cards.{card_id}", f"unknown card id {card_id!r}; the pool's ids are "
                                      f"{', '.join(c.id for c in pool)}")
    card = pool[card_id]
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise fail(f"cards.{card_id}", f"{card_id} ({card.name}): copies must be a whole number 1 or more; "
                                      f"found {n!r}")
    if n > card.max_copies:
        raise fail(f"cards.{card_id}", f"{n} copies of {card_id} ({card.name}) is too many; a {card.rarity} "
                                      f"card allows at most {card.max_copies} (C {COPIES['C']}, U {COPIES['U']}, "
                                      f"R {COPIES['R']}, S {COPIES['S']})")
    if card.faction not in factions:
        raise fail(f"cards.{card_id}", f"{card_id} ({card.name}) is {card.faction}; this deck's factions are "
                                      f"{', '.join(factions)}")


def deck_names() -> dict[str, str]:
    """Each shipped precon's display name by key (the model's ``choice_names``)."""
    return {key: deck.name for key, deck in load_decks().items()}
