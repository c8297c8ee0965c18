"""What every game declares the same way: parameters, seats, the protocol's constants and the outcome columns."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from workbench.core.errors import InputError
from workbench.core.rng import SplitMix64

_KINDS = {int: pl.Int64, float: pl.Float64, str: pl.String, bool: pl.Boolean}
_KIND_WORDS = {int: "a whole number", float: "a number", str: "text", bool: "true or false"}


@dataclass(frozen=True)
class Param:
    """One declared game parameter.

    ``kind`` is ``int``, ``float``, ``str`` or ``bool``; numeric parameters have an inclusive range
    ``[low, high]``, string parameters a tuple of ``choices``.  ``optional`` parameters accept
    ``None`` (meaning "take it from the game's data", e.g. a battlefield's own start wall).
    """

    name: str
    default: Any
    kind: type
    help: str = ""
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] | None = None
    optional: bool = False

    @property
    def dtype(self) -> pl.DataType:
        """Polars dtype of this parameter's result column."""
        return _KINDS[self.kind]

    @property
    def flag(self) -> str:
        """The CLI flag: ``start_wall`` → ``--start-wall``."""
        return "--" + self.name.replace("_", "-")

    def allowed(self) -> str:
        """Human-readable description of the allowed values."""
        if self.choices is not None:
            text = " | ".join(self.choices)
        elif self.kind is bool:
            text = "true | false"
        elif self.kind is str:
            text = "text"
        else:
            lo = "-inf" if self.low is None else _fmt(self.low)
            hi = "inf" if self.high is None else _fmt(self.high)
            text = f"{self.kind.__name__} in [{lo}, {hi}]"
        return text + (" (or none)" if self.optional else "")

    def validate(self, value: Any, label: str | None = None) -> Any:
        """Return ``value`` coerced to this parameter's kind, or raise :class:`InputError`.

        ``label`` names the value in messages (default ``parameter 'name'``).
        """
        label = label or f"parameter {self.name!r}"
        if value is None or (isinstance(value, str) and value.lower() in ("none", "")):
            if self.optional:
                return None
            raise InputError(f"{label} needs a value; allowed: {self.allowed()}")
        try:
            coerced = self._coerce(value)
        except (TypeError, ValueError):
            raise InputError(
                f"{label}: {value!r} is not {_KIND_WORDS[self.kind]}; "
                f"allowed: {self.allowed()}"
            ) from None
        if self.choices is not None and coerced not in self.choices:
            raise InputError(f"{label}: {value!r} is not allowed; allowed: {self.allowed()}")
        if self.kind in (int, float):
            if (self.low is not None and coerced < self.low) or (self.high is not None and coerced > self.high):
                raise InputError(f"{label}: {value!r} is out of range; allowed: {self.allowed()}")
        return coerced

    def _coerce(self, value: Any) -> Any:
        if self.kind is bool:
            if isinstance(value, (bool, np.bool_)):
                return bool(value)
            if isinstance(value, str) and value.lower() in ("true", "yes", "1", "false", "no", "0"):
                return value.lower() in ("true", "yes", "1")
            raise ValueError(value)
        if self.kind is int:
            if isinstance(value, bool):
                raise ValueError(value)
            if isinstance(value, float) and not value.is_integer():
                raise ValueError(value)
            if isinstance(value, str):
                return int(value.strip())
            return int(value)
        if self.kind is float:
            if isinstance(value, bool):
                raise ValueError(value)
            out = float(value)
            if not math.isfinite(out):
                raise ValueError(value)
            return out
        if not isinstance(value, str):
            raise ValueError(value)
        return value


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


# -- seats ----------------------------------------------------------------------------------------
MAX_SEATS = 6
SEAT_NAMES = tuple(f"p{i + 1}" for i in range(MAX_SEATS))


def seat_name(seat: int) -> str:
    """``0`` → ``"p1"`` (seats are 0-based inside the rules, ``p1``.. in every frame and text)."""
    if not 0 <= seat < MAX_SEATS:
        raise ValueError(f"seat {seat} is outside 0..{MAX_SEATS - 1}")
    return SEAT_NAMES[seat]


def seat_names(n: int) -> tuple[str, ...]:
    """The names of ``n`` seats: ``("p1", .., "pn")``."""
    if not 1 <= n <= MAX_SEATS:
        raise ValueError(f"{n} seats: a game has 1..{MAX_SEATS}")
    return SEAT_NAMES[:n]


# -- the protocol ---------------------------------------------------------------------------------
CHANCE = -1  # current_player at a chance node (as OpenSpiel's kChancePlayerId)
TERMINAL = -4  # current_player of a finished game (as OpenSpiel's kTerminalPlayerId)
AGENT_STREAM_BASE = 1000  # default seat streams: 1000 + seat (a game's own streams stay below)

# The one format of a rules version: the game's name, an optional part (a sub-model such as the rescue
# auction), and a major[.minor] number: ``babel-1``, ``duel-1.0``, ``rescue-auction-1``.
RULES_VERSION_FORMAT = re.compile(r"^(?P<game>[a-z][a-z0-9_]*)(-[a-z][a-z0-9_]*)?-\d+(\.\d+)?$")

# Columns every game's result rows start with (after the runner's shared columns, ``core/sim/results.py``).
OUTCOME_COLUMNS: dict[str, pl.DataType] = {
    "winner": pl.String,  # p1.., or "draw"
    "reason": pl.String,  # how the game ended (the game's own words)
    "length": pl.Int64,  # in the game's unit (turns, rounds, auctions)
    "first_seat": pl.String,  # the seat that moved first (null where seats act at once)
}

# The ``first`` parameter of every game where one seat moves first, and the stream its draw comes from.
FIRST = Param("first", "random", str, "who moves first", choices=("random", "p1", "p2"))
FIRST_STREAM = 5


def first_seat(first: str, seed: int, players: int = 2, stream: int = FIRST_STREAM) -> int:
    """The seat that moves first: fixed (``"p1"``..), or drawn from ``stream`` of the game seed (``"random"``)."""
    if first == "random":
        return SplitMix64.for_stream(seed, stream).below(players)
    return SEAT_NAMES.index(first)
