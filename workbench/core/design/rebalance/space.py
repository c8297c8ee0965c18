"""The edit space: whole-number steps of card columns and parameters, the candidates over it and its parts."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from workbench.core.design.cardtable import CardTable, card_table, column_kinds, edited_cards, read_cards
from workbench.core.design.rebalance.targets import Targets, targets_of
from workbench.core.errors import DataError, InputError
from workbench.core.model import GameModel, get_game


# -- the edit space ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Dim:
    """One editable value: a card's column or a parameter (optionally in the cells where ``scope`` holds).

    ``deltas`` are the allowed non-zero whole-number steps from ``base`` (each checked by the game).
    """

    kind: str  # "card" or "param"
    key: str  # the card's key, or the parameter's name
    column: str  # the card column, or the parameter's name again
    base: int
    deltas: tuple[int, ...]
    scope: tuple[tuple[str, Any], ...] = ()  # a parameter edited only in the cells with these values
    title: str = ""  # display name of the card, or of the scope value

    @property
    def label(self) -> str:
        """A stable machine label: ``F9.power_cost``, ``second_bonus_wall@battlefield=crystal_garden``."""
        if self.kind == "card":
            return f"{self.key}.{self.column}"
        return self.column + "".join(f"@{k}={v}" for k, v in self.scope)

    def describe(self, delta: int) -> str:
        """``Fireball (F9): power cost 3 → 2`` — the edit as a reader reads it."""
        what = self.column.replace("_", " ")
        if self.kind == "card":
            return f"{self.title or self.key} ({self.key}): {what} {self.base} → {self.base + delta}"
        where = f" on {self.title}" if self.title else ""
        return f"{what[:1].upper()}{what[1:]}{where}: {self.base} → {self.base + delta}"


_EDIT = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([+-]?\d+)\s*\.\.\s*([+-]?\d+)\s*"
                   r"(?:@\s*([A-Za-z_][A-Za-z0-9_]*))?\s*$")


def parse_edit(text: str) -> list[tuple[str, int, int, str | None]]:
    """``"cost:-1..+1, might:-1..+1"`` → ``[(word, low, high, per)]`` (``per``: ``@battlefield``); shape only."""
    if not isinstance(text, str) or not text.strip():
        raise InputError("give an edit spec, e.g. 'cost:-1..+1, might:-1..+1' (COLUMN:LOW..HIGH, whole steps)")
    out = []
    for part in text.split(","):
        found = _EDIT.match(part)
        if not found:
            raise InputError(f"edit {part.strip()!r} is not COLUMN:LOW..HIGH with whole numbers (e.g. cost:-1..+1, "
                             "or second_bonus_wall:0..+8@battlefield for one parameter per battlefield)")
        word, low, high, per = found[1], int(found[2]), int(found[3]), found[4]
        if low > high:
            raise InputError(f"edit {part.strip()!r}: the range is reversed; write the low end first ({word}:"
                             f"{high}..{low:+d})")
        if not low <= 0 <= high or low == high:
            raise InputError(f"edit {part.strip()!r}: a range of steps must hold 0 (no edit) and one step more, "
                             f"e.g. {word}:-1..+1 or {word}:0..+3")
        if any(o[0] == word and o[3] == per for o in out):
            raise InputError(f"edit {text.strip()!r}: {word!r} is given twice")
        out.append((word, low, high, per))
    return out


def _default_edit(model: GameModel, targets: Targets, table: CardTable | None) -> str:
    if targets.edit:
        return targets.edit
    if table is None:
        raise InputError(f"{model.name} declares no card table and no default edit: give --edit, e.g. "
                         "PARAM:-1..+1 over a whole-number parameter")
    kinds = column_kinds(read_cards(table), table.editable)
    columns = [c for c in table.editable if kinds[c] is int]
    if not columns:
        raise InputError(f"{model.name}: no whole-number column of the card table to edit")
    return ", ".join(f"{c}:-1..+1" for c in columns)


def edit_space(game: str | GameModel, edit: str | None = None, cards: str | None = None,
               targets: Targets | None = None) -> tuple[Dim, ...]:
    """The edit space of ``edit`` over the cards matching ``cards`` (comma-separated globs over card keys).

    A spec word is a whole-number editable column of the card table, an alias the game declares, or
    a whole-number parameter (``@P`` after it: one per value of ``P`` among the cells).  Each step's
    value is checked: a card value by the game's loader, a parameter by its declared range; values
    refused are left out.  An empty space is an :class:`InputError`.
    """
    model = get_game(game)
    targets = targets or targets_of(model)
    table = card_table(model)
    spec = parse_edit(edit if edit is not None and edit.strip() else _default_edit(model, targets, table))
    rows = read_cards(table) if table is not None else None
    dims: list[Dim] = []
    for word, low, high, per in spec:
        columns = _columns(model, targets, table, rows, word)
        if columns is not None:
            if per:
                raise InputError(f"edit {word}@{per}: '@' is for parameters; a card column is edited once per card")
            dims += _card_dims(table, rows, columns, cards if cards is not None else targets.cards, low, high)
        else:
            dims += _param_dims(model, targets, word, low, high, per)
    if not dims:
        raise InputError(f"the edit space is empty: no value of {edit or 'the default edit'} over cards "
                         f"{cards or targets.cards!r} can change within the game's allowed values; widen the ranges "
                         "or the cards")
    labels = [d.label for d in dims]
    if len(set(labels)) != len(labels):
        doubled = sorted({x for x in labels if labels.count(x) > 1})
        raise InputError(f"the edit space names {doubled[0]} twice; give each column once")
    return tuple(dims)


def _columns(model: GameModel, targets: Targets, table: CardTable | None, rows: pl.DataFrame | None,
             word: str) -> tuple[str, ...] | None:
    """The card columns a spec word stands for, or None when it is a parameter (refused when neither)."""
    params = {p.name: p for p in model.params}
    if table is not None and rows is not None and (word in table.editable or word in targets.aliases):
        columns = targets.aliases.get(word, (word,))
        kinds = column_kinds(rows, list(columns))
        bad = [c for c in columns if kinds[c] is not int]
        if bad:
            raise InputError(f"edit {word}: column {bad[0]!r} does not hold whole numbers; whole-number columns: "
                             f"{', '.join(_int_columns(table, rows))}")
        return tuple(columns)
    if word in params and params[word].kind is int:
        return None
    allowed = ([*_int_columns(table, rows), *targets.aliases] if table is not None and rows is not None else [])
    allowed += [p.name for p in model.params if p.kind is int]
    raise InputError(f"edit {word!r}: not an editable whole-number column or parameter of {model.name}; allowed: "
                     f"{', '.join(allowed) or 'none'}")


def _int_columns(table: CardTable, rows: pl.DataFrame) -> list[str]:
    kinds = column_kinds(rows, table.editable)
    return [c for c in table.editable if kinds[c] is int]


def _card_dims(table: CardTable, rows: pl.DataFrame, columns: tuple[str, ...], patterns: str, low: int,
               high: int) -> list[Dim]:
    keys = rows[table.row_key].to_list()
    wanted = [p.strip() for p in (patterns or "*").split(",") if p.strip()]
    if not wanted:
        raise InputError("--cards is empty; give card keys or patterns, e.g. 'F*,S*' or '*'")
    chosen: list[str] = []
    for pattern in wanted:
        hit = [k for k in keys if fnmatch.fnmatchcase(k, pattern)]
        if not hit:
            raise InputError(f"--cards {pattern!r} matches no card; keys: {', '.join(keys[:12])}"
                             f"{', …' if len(keys) > 12 else ''}")
        chosen += [k for k in hit if k not in chosen]
    names = next((c for c in table.shown if "name" in c), None)
    dims = []
    for row in rows.filter(pl.col(table.row_key).is_in(chosen)).iter_rows(named=True):
        for column in columns:
            cell = row[column].strip()
            if not cell:
                continue  # a blank cell (a Command's health): nothing to edit
            base = int(cell)
            deltas = tuple(d for d in range(low, high + 1) if d and _card_value_ok(table, row[table.row_key],
                                                                                     column, base + d))
            if deltas:
                dims.append(Dim("card", row[table.row_key], column, base, deltas,
                                title=row[names] if names else ""))
    return dims


def _card_value_ok(table: CardTable, key: str, column: str, value: int) -> bool:
    """The game's loader accepts the card with this one value (a copy in the edit cache; the shipped file untouched)."""
    if value < 0:
        return False  # no card table counts below zero; spares a file
    try:
        edited_cards(table, {key: {column: str(value)}}, namespace="rebalance-probe")
    except DataError:
        return False
    return True


def _param_dims(model: GameModel, targets: Targets, name: str, low: int, high: int, per: str | None) -> list[Dim]:
    param = model.param(name)
    scopes: list[tuple[tuple[str, Any], ...]] = [()]
    if per:
        values = list(dict.fromkeys(c.get(per, targets.params.get(per)) for c in targets.cells))
        if per not in {p.name for p in model.params} or len(values) < 2:
            varied = sorted({k for c in targets.cells for k in c})
            raise InputError(f"edit {name}@{per}: {per!r} does not vary over the cells played; cell parameters: "
                             f"{', '.join(varied) or 'none (one cell)'}")
        scopes = [((per, v),) for v in values]
    dims = []
    for scope in scopes:
        cell = next((c for c in targets.cells if all(c.get(k, targets.params.get(k)) == v for k, v in scope)), {})
        base = {**targets.params, **cell}.get(name, param.default)
        if base is None:
            raise InputError(f"edit {name}: the parameter has no value to step from (none means 'from the game's "
                             f"data'); set it in the game's targets params")
        deltas = []
        for d in range(low, high + 1):
            try:
                if d:
                    param.validate(int(base) + d)
                    deltas.append(d)
            except InputError:
                pass
        if deltas:
            # a named value reads alone ("Crystal Garden", "3/5"); a bare number with its parameter ("edge 2")
            title = ", ".join(model.choice_label(k, v) if model.param(k).choices or not isinstance(v, int)
                              else f"{k.replace('_', ' ')} {v}" for k, v in scope)
            dims.append(Dim("param", name, name, int(base), tuple(deltas), scope, title))
    return dims


# -- candidates: a few (dimension, step) pairs ----------------------------------------------------------------
Candidate = tuple[tuple[int, int], ...]  # ((dim index, delta), ...) sorted by dim, no zero delta


def _canonical(pairs: Sequence[tuple[int, int]], dims: Sequence[Dim]) -> Candidate:
    total: dict[int, int] = {}
    for i, d in pairs:
        total[i] = total.get(i, 0) + d
    out = []
    for i in sorted(total):
        d = _nearest(total[i], dims[i].deltas)
        if d:
            out.append((i, d))
    return tuple(out)


def _nearest(d: int, allowed: tuple[int, ...]) -> int:
    """The allowed step closest to ``d`` on its side of 0 (0 when none): clipping keeps an edit's direction."""
    if d == 0:
        return 0
    side = [a for a in allowed if (a > 0) == (d > 0)]
    if not side:
        return 0
    return min(side, key=lambda a: (abs(a - d), abs(a)))


def _zero_params(dims: Sequence[Dim], slots: int | None) -> dict[str, int]:
    if slots is None:
        return {f"d{i}": 0 for i in range(len(dims))}
    return {k: 0 for s in range(slots) for k in (f"s{s}", f"v{s}")}


def _params_of(candidate: Candidate, dims: Sequence[Dim], slots: int | None) -> dict[str, int]:
    """The trial parameters that propose ``candidate`` (slots in the candidate's order)."""
    params = _zero_params(dims, slots)
    for k, (i, d) in enumerate(candidate):
        params.update({f"d{i}": d} if slots is None else {f"s{k}": i + 1, f"v{k}": d})
    return params


# -- separable edit spaces ------------------------------------------------------------------------------------
GROUP_OPTIONS = 125  # most candidates one part of a separable space may hold (every combination of its steps)


@dataclass(frozen=True)
class _Group:
    """One part of a separable edit space: its dimensions, the cells only they change, the items only those count."""

    dims: tuple[int, ...]
    cells: tuple[int, ...]
    items: frozenset[tuple[str, str]]
    most: int  # most edits of one option: a candidate's slots shared among the parts (all its dims when dense)


def _space_size(dims: Sequence[Dim], most: int) -> int:
    """Candidates of at most ``most`` edits: one step (of a value's allowed steps) on each of up to ``most`` values."""
    poly = [1] + [0] * most  # poly[k]: the edit sets of exactly k values
    for dim in dims:
        steps = len(dim.deltas)
        for k in range(most, 0, -1):
            poly[k] += poly[k - 1] * steps
    return sum(poly[1:])
