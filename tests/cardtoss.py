"""*Card toss*: the rebalancing tests' game, whose fair settings are known exactly.

Two cards, ``lead`` (played by the seat that moves first) and ``answer`` (the other seat).  The first
seat wins with probability ``0.5 + 0.1 × (lead power − answer power − bonus)``, one coin from the game
seed's stream 1 (so a result depends on the game seed only: common random numbers for every candidate).
Shipped: lead power 4, answer power 3 — the first seat wins 60 %.  The fair settings one edit away are
exactly two, worked out by hand: lead power 3, or answer power 4 (each → 50 %); ``cost`` plays no part,
so an edit of it never helps, and a cost below 0 is refused by the loader.

:class:`CardTossRules` holds the rules; a test module subclasses it with its name, its cards file
(:func:`shipped_cards`), card table and targets (``tests/test_rebalance.py``, ``tests/app/test_rebalance_page.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from workbench.core.errors import DataError
from workbench.core.model import CHANCE, TERMINAL, GameModel, first_seat, seat_name
from workbench.core.model.datafile import read_table
from workbench.core.rng import SplitMix64

SHIPPED = "key,name,power,cost\nlead,Lead card,4,0\nanswer,Answer card,3,0\n"


def shipped_cards(folder: Path, text: str = SHIPPED) -> Path:
    """The shipped cards file (``text``) in ``folder`` (written when missing or changed)."""
    folder.mkdir(parents=True, exist_ok=True)
    cards = folder / "cards.csv"
    if not cards.is_file() or cards.read_text(encoding="utf-8") != text:
        cards.write_text(text, encoding="utf-8")
    return cards


def load(path: Path, keys: tuple[str, ...] = ("lead", "answer")) -> dict[str, int]:
    """The cards' powers; a power or a cost outside 0..9 is refused (the game's declared range)."""
    out = {}
    for row in read_table(Path(path), ("key", "power", "cost"), keep_extra=True):
        row.integer("cost", 0, 9)
        out[row.cells["key"]] = row.integer("power", 0, 9)
    if set(out) != set(keys):
        raise DataError(path, None, "key", f"needs the cards {', '.join(keys)}")
    return out


class Toss(NamedTuple):
    seed: int
    first: int
    winner: int | None


class CardTossRules(GameModel):
    """The rules of the toss; a subclass declares the facts (name, params with ``cards``, card table, targets)."""

    cards_file: Path
    limit_reasons = ()

    def max_length(self, params: dict[str, Any]) -> int:
        return 1

    def result_columns(self, params: dict[str, Any]) -> dict[str, Any]:
        return {}

    def make_config(self, params: dict[str, Any]) -> tuple[float, str]:
        powers = load(params.get("cards") or self.cards_file)
        return 0.5 + 0.1 * (powers["lead"] - powers["answer"] - params.get("bonus", 0)), params.get("first", "random")

    def initial_state(self, config: tuple[float, str], seed: int) -> Toss:
        return Toss(seed, first_seat(config[1], seed), None)

    def current_player(self, config: Any, state: Toss) -> int:
        return TERMINAL if state.winner is not None else CHANCE

    def chance_outcomes(self, config: tuple[float, str], state: Toss) -> list[tuple[Any, float]]:
        return [(state.first, config[0]), (1 - state.first, 1 - config[0])]

    def sample_chance(self, config: tuple[float, str], state: Toss) -> tuple[Any, Toss]:
        won = SplitMix64.for_stream(state.seed, 1).random() < config[0]
        return (state.first if won else 1 - state.first), state

    def apply(self, config: Any, state: Toss, action: int) -> Toss:
        return state._replace(winner=action)

    def result_row(self, config: Any, state: Toss) -> dict[str, Any]:
        return {"winner": seat_name(state.winner), "reason": "toss", "length": 1, "first_seat": seat_name(state.first)}
