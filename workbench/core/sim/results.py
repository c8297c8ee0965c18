"""The result columns every frame shares, typed once, and the helpers that build frames from arrays.

A frame from :func:`workbench.core.sim.runner.simulate` is, column for column::

    RUN_COLUMNS  (game, rules_version, params_hash, master_seed, game_index, game_seed)
    agent_p1 .. agent_pN                        (one agent spec per seat)
    every declared parameter                    (its Param's dtype)
    OUTCOME_COLUMNS (winner, reason, length, first_seat)   (core.model)
    the game's own columns                      (GameModel.result_columns)

A compiled engine returns only the last two groups; :func:`kernel_frame` builds them from the arrays
a kernel filled (outcome codes, integer columns, flat list values with offsets) without per-row Python.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from workbench.core.model import OUTCOME_COLUMNS, SEAT_NAMES, GameModel

__all__ = ["OUTCOME_COLUMNS", "RUN_COLUMNS", "agent_columns", "conformed", "grown", "head_frame", "kernel_frame",
           "list_column", "list_columns", "outcome_codes", "padded"]

RUN_COLUMNS: dict[str, pl.DataType] = {
    "game": pl.String,  # the registered game name
    "rules_version": pl.String,  # the model's rules version (core.model.RULES_VERSION_FORMAT)
    "params_hash": pl.String,  # GameModel.params_hash of the resolved parameters
    "master_seed": pl.UInt64,  # the run's seed
    "game_index": pl.Int64,  # the game's index in the run (its seed depends on nothing else)
    "game_seed": pl.UInt64,  # core.sim.seeding.game_seeds(master_seed, index): replays the game alone
}


def agent_columns(players: int) -> dict[str, pl.DataType]:
    """``agent_p1``.. for ``players`` seats."""
    return {f"agent_{SEAT_NAMES[i]}": pl.String for i in range(players)}


def head_frame(model: GameModel, params: dict[str, Any], agents: Sequence[str], master_seed: int, start: int,
               seeds: np.ndarray) -> pl.DataFrame:
    """The shared columns of games ``start..`` (one row per seed): run, agents and parameters.

    Constant columns are one value repeated inside polars (no per-row Python objects).
    """
    n = len(seeds)
    index = pl.Series("game_index", np.arange(start, start + n, dtype=np.int64))
    seed = pl.Series("game_seed", np.asarray(seeds, dtype=np.uint64))
    if not n:
        values = _constant_values(model, params, agents, master_seed)
        return pl.DataFrame([*(_constant(k, v, t, 0) for k, v, t in values[:4]), index, seed,
                             *(_constant(k, v, t, 0) for k, v, t in values[4:])])
    # Each constant is one value broadcast by a select (polars keeps a repeated value as one scalar column, so
    # a run's frame holds it once).  The eager select costs a tenth of a lazy query's planning: 0.4 ms a chunk
    # against 2.4, paid by every chunk of every run (a 500-game chunk of Babylon's greedy games takes 70 ms).
    units = _HEADS.units(model, params, agents, master_seed)
    return pl.DataFrame([index, seed]).select(*units[:4], "game_index", "game_seed", *units[4:])


def _constant_values(model: GameModel, params: dict[str, Any], agents: Sequence[str],
                     master_seed: int) -> list[tuple[str, Any, pl.DataType]]:
    """Each constant column of a run's chunk: its name, value and type."""
    run = {"game": model.name, "rules_version": model.rules_version, "params_hash": model.params_hash(params),
           "master_seed": master_seed}
    values = [(k, v, RUN_COLUMNS[k]) for k, v in run.items()]
    values += [(k, a, t) for (k, t), a in zip(agent_columns(len(agents)).items(), agents, strict=True)]
    values += [(p.name, params[p.name], p.dtype) for p in model.params]
    return values


class _Heads:
    """The constant columns' expressions of the last few runs' cells, found again by their values.

    Every chunk of a cell has the same constants (game, rules version, parameters and their hash, agents, seed):
    building their expressions (and the parameters' hash) cost about 1 ms a chunk, as long as Babylon's kernel
    takes for six games — and a rebalance's races play thousands of chunks that small.  An entry is found by
    equal values (the parameters compared as a dict, a copy kept), so an edited dict never finds a stale one.
    """

    KEPT = 64

    def __init__(self) -> None:
        self._kept: list[tuple[tuple[Any, ...], dict[str, Any], list[pl.Expr]]] = []
        self._lock = threading.Lock()  # a run's chunks are made on worker threads

    def units(self, model: GameModel, params: dict[str, Any], agents: Sequence[str],
              master_seed: int) -> list[pl.Expr]:
        key = (model.name, model.rules_version, tuple(agents), master_seed)
        with self._lock:
            for found, kept_params, units in self._kept:
                if found == key and kept_params == params:
                    return units
        units = [pl.lit(pl.Series(k, [v], dtype=t)).first()
                 for k, v, t in _constant_values(model, params, agents, master_seed)]
        with self._lock:
            self._kept.insert(0, (key, dict(params), units))
            del self._kept[self.KEPT:]
        return units


_HEADS = _Heads()


def _constant(name: str, value: Any, dtype: pl.DataType, n: int) -> pl.Series:
    """``value`` repeated ``n`` times as a ``dtype`` column (built in polars, not from a Python list)."""
    return pl.Series(name, [value], dtype=dtype).new_from_index(0, n) if n else pl.Series(name, [], dtype=dtype)


# -- frames from a compiled kernel's arrays ----------------------------------------------------------
def padded(shape: int | tuple[int, ...], dtype: type) -> np.ndarray:
    """A zeroed scratch array with 128 bytes of its own on each side.

    Kernels running in two threads then never write to one cache line (numpy packs small arrays next
    to each other; sharing a line made two greedy threads no faster than one).
    """
    size = int(np.prod(shape))
    return np.zeros(size + 32, dtype)[16:16 + size].reshape(shape)


def grown(buf: np.ndarray, used: int, done: int, total: int, extra: int = 0) -> np.ndarray:
    """A 2-row buffer grown to what ``done`` of ``total`` games used (``used`` slots), the first ``used`` kept."""
    want = max(2 * buf.shape[1], int(1.25 * used * total / max(done, 1)) + extra)
    out = np.empty((buf.shape[0], want), buf.dtype)
    out[:, :used] = buf[:, :used]
    return out


def list_column(values: np.ndarray | pl.Series, offsets: np.ndarray) -> pl.Series:
    """A list column from flat values and ``len(rows) + 1`` offsets (no per-row Python)."""
    flat = values.to_arrow() if isinstance(values, pl.Series) else pa.array(values)
    return pl.from_arrow(pa.LargeListArray.from_arrays(pa.array(offsets), flat))


def list_columns(values: np.ndarray | pl.Series, counts: np.ndarray) -> list[pl.Series]:
    """Several list columns of one chunk built as one: ``counts[k, row]`` values of column ``k``'s row ``row``.

    ``values`` holds column 0's rows in order, then column 1's, …; each column is a slice of one list array
    (a list column costs about 0.2 ms to build however short: a chunk of few games paid it per column).
    """
    parts, rows = counts.shape
    offsets = np.zeros(parts * rows + 1, np.int64)
    np.cumsum(counts.reshape(-1), out=offsets[1:])
    whole = list_column(values, offsets)
    return [whole.slice(k * rows, rows) for k in range(parts)]


def outcome_codes(reasons: Sequence[str], players: int = 2) -> dict[str, pl.Series]:
    """Lookup series for a kernel's outcome codes.

    ``winner``: a seat index, or ``players`` for a draw; ``reason``: an index into ``reasons``;
    ``first_seat``: a seat index.
    """
    seats = list(SEAT_NAMES[:players])
    return {"winner": pl.Series([*seats, "draw"], dtype=pl.String),
            "reason": pl.Series(list(reasons), dtype=pl.String),
            "first_seat": pl.Series(seats, dtype=pl.String)}


def kernel_frame(codes: Mapping[str, pl.Series], outcome: Mapping[str, np.ndarray],
                 columns: Mapping[str, np.ndarray | pl.Series], schema: Mapping[str, pl.DataType]) -> pl.DataFrame:
    """The result frame of a kernel's chunk: outcome codes decoded, own columns as given, in ``schema``'s order.

    ``outcome`` holds the integer arrays ``winner``, ``reason``, ``length`` and ``first_seat`` (codes as
    :func:`outcome_codes`); ``columns`` the game's own columns (numpy arrays or ready Series).
    """
    data: dict[str, pl.Series] = {}
    for name in OUTCOME_COLUMNS:
        values = outcome[name]
        # indexing takes the rows directly (a third of gather's cost on a chunk of a few games, half on 100,000)
        data[name] = codes[name][values].alias(name) if name in codes else pl.Series(name, values)
    for name, values in columns.items():
        data[name] = pl.Series(name, values) if isinstance(values, np.ndarray) else values.alias(name)
    return conformed(pl.DataFrame(list(data.values())), schema)  # from a list: a quarter of a dict's cost


def conformed(frame: pl.DataFrame, schema: Mapping[str, pl.DataType]) -> pl.DataFrame:
    """``frame`` with exactly ``schema``'s columns, in its order and of its types (selected and cast only if not).

    The check compares the column names and the dtypes as lists: building a ``pl.Schema`` and comparing two
    costs about 0.3 ms, paid twice by every chunk of a compiled run (a run of small chunks, as a rebalance's
    races play, spends a tenth of its time there).
    """
    names = list(schema)
    if frame.columns != names:
        frame = frame.select(names)
    return frame if frame.dtypes == list(schema.values()) else frame.cast(dict(schema))
