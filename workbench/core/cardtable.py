"""Editable card tables: a game's declared data table, a designer's edits of it, and what-ifs on common random numbers.

A card game declares ``card_table`` on its model — a :class:`CardTable`, or ``"module:NAME"`` naming
one — saying which game parameter takes the table's path, the shipped file, the key column(s), the
columns a designer may edit, the columns shown beside them, and the loader that validates a file.
Front ends (the studio) read only the declaration; the work is done here, for every game alike:

* :func:`read_cards` reads the rows (core's CSV reader: file, row and column in every error);
* :func:`edited_cards` writes an edited copy, content-addressed and validated by the game's loader
  (:func:`workbench.core.edits.edit_csv`); :func:`save_cards` saves one under a name the user
  gives, never over an existing file (so never over the shipped data);
* :func:`what_if` plays the same games — same master seed, so the same game seeds — with the
  unchanged and the edited table and compares them pair by pair
  (:func:`workbench.core.compare.compare_outcomes`).  Stopped while the edited cards play, it
  compares the games both arms finished.  It stands on :func:`paired_runs`, the one what-if on
  common random numbers every game's own what-if uses too (the duel's edits battlefields and
  parameters as well, Babylon's plays its deck grid), and :class:`ProgressTotal`, one progress
  count over several runs.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core.compare import compare_outcomes
from workbench.core.datafile import read_table
from workbench.core.edits import cache_dir, edit_csv
from workbench.core.errors import InputError, RunInterrupted
from workbench.core.model import GameModel, get_game
from workbench.core.refs import resolve_ref

__all__ = ["CardTable", "CardWhatIf", "ProgressTotal", "card_table", "changed_cells", "column_kinds", "edited_cards",
           "paired_runs", "play_pair", "read_cards", "save_cards", "what_if"]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_INTEGER = re.compile(r"^[+-]?[0-9]+$")
_NUMBER = re.compile(r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$")
Edits = Mapping[str, Mapping[str, Any]]


@dataclass(frozen=True)
class CardTable:
    """A game's editable card table, declared on its model as ``card_table``.

    Attributes:
        param: the game parameter that takes the table's path (the duel's ``cards``).
        default: the shipped file, played when the parameter is none.
        key: the column(s) naming a row (the first is the one edits use); never edited.
        editable: the columns a designer may edit (costs, amounts, stats).
        shown: read-only columns shown beside them (name, colour).
        validate: the game's loader, ``validate(path)`` raising a DataError for a bad row (or
            ``"module:function"``); None: only the CSV's shape is checked.
        title: what the rows are, in the game's words.
        played_by: ``"module:function(config, state, action) -> card key | None"``, the card an
            action plays (None: it plays none); lets ``core/cardplay.py`` count dead cards.
    """

    param: str
    default: str | Path
    key: tuple[str, ...] = ("key",)
    editable: tuple[str, ...] = ()
    shown: tuple[str, ...] = ()
    validate: Callable[[Path], Any] | str | None = None
    title: str = "cards"
    played_by: Callable[[Any, Any, Any], Any] | str | None = None

    @property
    def row_key(self) -> str:
        """The key column edits are given by."""
        return self.key[0]

    def check(self, path: str | Path) -> None:
        """Validate a table file with the game's loader (a DataError names file, row and column)."""
        loader = resolve_ref(self.validate)
        if loader is not None:
            loader(Path(path))


def card_table(game: str | GameModel) -> CardTable | None:
    """The game's declared card table, or None when it declares none."""
    model = get_game(game)
    table = resolve_ref(getattr(model, "card_table", None))
    if table is None:
        return None
    if not isinstance(table, CardTable):
        raise InputError(f"{model.name}.card_table must be a CardTable (workbench.core.cardtable), "
                         f"got {type(table).__name__}")
    model.param(table.param)  # the parameter that takes the file must be declared
    if not table.key or not table.editable:
        raise InputError(f"{model.name}.card_table needs a key column and at least one editable column")
    return table


def read_cards(table: CardTable, path: str | Path | None = None) -> pl.DataFrame:
    """The table's rows as text, every column in file order (blank cells are empty strings)."""
    path = Path(path or table.default)
    read = read_table(path, (*table.key, *table.editable), optional=table.shown, keep_extra=True, what=table.title)
    keys = [row.cells[table.row_key] for row in read]
    doubled = sorted({k for k in keys if keys.count(k) > 1})
    if doubled:
        raise InputError(f"{path}: {table.row_key} {doubled[0]!r} names two rows; every row needs its own key")
    return pl.DataFrame({c: [row.cells.get(c, "") for row in read] for c in read.header},
                        schema={c: pl.String for c in read.header})


def column_kinds(cards: pl.DataFrame, columns: tuple[str, ...] | list[str]) -> dict[str, type]:
    """Per column: ``int`` when every filled cell is a whole number, ``float`` when a number, else ``str``."""
    kinds: dict[str, type] = {}
    for column in columns:
        cells = [c.strip() for c in cards.get_column(column).to_list() if c.strip()]
        if cells and all(_INTEGER.match(c) for c in cells):
            kinds[column] = int
        elif cells and all(_NUMBER.match(c) for c in cells):
            kinds[column] = float
        else:
            kinds[column] = str
    return kinds


def _same(old: str, new: Any) -> bool:
    old, text = old.strip(), str(new).strip()
    if old == text:
        return True
    if _NUMBER.match(old) and _NUMBER.match(text):
        return float(old) == float(text)
    return False


def changed_cells(table: CardTable, cards: pl.DataFrame, edits: Edits) -> dict[str, dict[str, str]]:
    """The edits that change something, as text: ``{row key: {column: new value}}``.

    An unknown row or a column that is not editable is an :class:`InputError` naming what exists.
    """
    rows = {r[table.row_key]: r for r in cards.iter_rows(named=True)}
    out: dict[str, dict[str, str]] = {}
    for key, change in (edits or {}).items():
        row = rows.get(str(key))
        if row is None:
            raise InputError(f"no {table.title} row with {table.row_key} {str(key)!r}")
        for column, value in change.items():
            if column not in table.editable:
                raise InputError(f"column {column!r} cannot be edited; editable: {', '.join(table.editable)}")
            if not _same(row[column], value):
                out.setdefault(str(key), {})[column] = str(value).strip()
    return out


def edited_cards(table: CardTable, edits: Edits, base: str | Path | None = None,
                 directory: str | Path | None = None, namespace: str = "") -> Path:
    """A validated copy of ``base`` (default: the shipped file) with ``edits`` applied (content-addressed)."""
    base = Path(base or table.default)
    return edit_csv(base, edits, key=table.key, directory=directory or cache_dir(namespace), stem=base.stem,
                    validate=table.check)


def save_cards(table: CardTable, edits: Edits, name: str, directory: str | Path,
               base: str | Path | None = None) -> Path:
    """Save the edited table as ``<directory>/<name>.csv``; never replaces a file (the shipped one included)."""
    name = (name or "").strip().removesuffix(".csv")
    if not _NAME.match(name):
        raise InputError(f"name {name!r}: use letters, digits, '_', '-' or '.', starting with a letter or digit "
                         "(at most 64), e.g. cheap-dragon")
    directory = Path(directory)
    target = directory / f"{name}.csv"
    if target.exists() or target.resolve() == Path(table.default).resolve():
        raise InputError(f"{target} already exists; choose another name (a saved set is never overwritten)")
    edited = edited_cards(table, edits, base, directory=cache_dir("saved"))
    directory.mkdir(parents=True, exist_ok=True)
    tmp = directory / f".tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}-{name}.csv"
    tmp.write_bytes(edited.read_bytes())
    try:
        os.link(tmp, target)  # fails if the name was taken meanwhile: no overwrite, ever
    except FileExistsError:
        raise InputError(f"{target} already exists; choose another name") from None
    finally:
        tmp.unlink(missing_ok=True)
    return target


class ProgressTotal:
    """One progress count over several runs, reported as ``on_progress(done, total)`` of the whole job.

    Give a run :meth:`add` when it reports each finished chunk's size (``simulate``), or the object
    itself when it reports its own running count (``run_grid``'s ``(done, total)``: a count that
    goes down means the next run started).
    """

    def __init__(self, on_progress: Callable[[int, int], None] | None, total: int) -> None:
        self.on_progress, self.total, self.done = on_progress, total, 0
        self._before = self._last = 0

    def add(self, n: int) -> None:
        """``n`` more games finished."""
        self.done += n
        self._report()

    def __call__(self, done: int, _total: int = 0) -> None:
        """A run's own count of finished games."""
        if done < self._last:  # a new run started
            self._before += self._last
        self._last = done
        self.done = self._before + done
        self._report()

    def _report(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self.done, self.total)


PlayArm = Callable[[dict[str, Any], ProgressTotal], pl.DataFrame]


def paired_runs(play: PlayArm, base: dict[str, Any], variant: dict[str, Any], total: int, *,
                on_progress: Callable[[int, int], None] | None = None, baseline: pl.DataFrame | None = None,
                keys: tuple[str, ...] = ("game_index",)) -> tuple[pl.DataFrame, pl.DataFrame, bool]:
    """Play the unchanged arm (``base`` parameters) and the edited one (``variant``) on the same seeds.

    ``play(params, progress)`` plays one arm with the same master seed as the other (common random
    numbers) and reports to ``progress``; ``total`` is the games of both arms.  ``baseline``: the
    unchanged arm when already played (only the variant is played).  Stopped while the baseline plays,
    :class:`RunInterrupted` carries its games; stopped later, the baseline keeps only the games the
    variant finished (matched on ``keys``: a cell's parameters and ``game_index``).  Returns
    ``(baseline, variant, stopped)``.
    """
    tally = ProgressTotal(on_progress, total)
    if baseline is None:
        try:
            baseline = play(base, tally)
        except RunInterrupted as exc:
            raise RunInterrupted(exc.partial, exc.done, total) from None
    try:
        return baseline, play(variant, tally), False
    except RunInterrupted as exc:
        if exc.partial is None or exc.partial.height == 0:
            raise RunInterrupted(baseline, baseline.height, total) from None
        kept = baseline.join(exc.partial.select(keys), on=list(keys), how="semi", maintain_order="left")
        return kept, exc.partial, True


def play_pair(game: str | GameModel, base: dict[str, Any], variant: dict[str, Any], *, games: int,
              agents: Any = None, seed: int = 0, workers: int = 1, engine: str | None = None,
              on_progress: Callable[[int, int], None] | None = None,
              should_stop: Callable[[], bool] | None = None) -> tuple[pl.DataFrame, pl.DataFrame, bool]:
    """:func:`paired_runs` of two ``simulate`` runs of ``games`` games each: ``(baseline, variant, stopped)``.

    An impossible combination of parameters in either arm stops before any game is played.
    """
    from workbench.core.runner import simulate

    model = get_game(game)
    for arm in (base, variant):
        model.resolve_params(arm)

    def play(arm: dict[str, Any], progress: ProgressTotal) -> pl.DataFrame:
        return simulate(model, games, params=arm, agents=agents, seed=seed, workers=workers, engine=engine,
                        progress=False, on_progress=progress.add, should_stop=should_stop)

    return paired_runs(play, base, variant, 2 * games, on_progress=on_progress)


@dataclass
class CardWhatIf:
    """A finished (or stopped) what-if: both arms' games, their paired comparison and the files played."""

    baseline: pl.DataFrame
    variant: pl.DataFrame
    outcomes: pl.DataFrame
    base_path: Path
    variant_path: Path
    edits: dict[str, dict[str, str]] = field(default_factory=dict)
    games: int = 0
    stopped: bool = False


def what_if(game: str | GameModel, edits: Edits, *, params: dict[str, Any] | None = None, agents: Any = None,
            games: int = 2000, seed: int = 0, base: str | Path | None = None, workers: int = 1,
            engine: str | None = None, directory: str | Path | None = None,
            on_progress: Callable[[int, int], None] | None = None,
            should_stop: Callable[[], bool] | None = None) -> CardWhatIf:
    """Play ``games`` games with the unchanged table and with ``edits``, on the same seeds, and compare them.

    ``params`` are the game's other parameters (both arms), ``base`` the table edited (default: the
    shipped one).  Stopped while the baseline plays, :class:`RunInterrupted` carries its games;
    stopped later, the games both arms finished are compared (``stopped`` is then true).
    """
    model = get_game(game)
    table = card_table(model)
    if table is None:
        raise InputError(f"{model.name} declares no editable card table")
    base_path = Path(base or table.default)
    changed = changed_cells(table, read_cards(table, base_path), edits)
    if not changed:
        raise InputError(f"no {table.title} value is changed yet: edit a cell first")
    variant_path = edited_cards(table, changed, base_path, directory, namespace=model.name)
    arms = [{**(params or {}), table.param: str(path)} for path in (base_path, variant_path)]
    baseline, variant, stopped = play_pair(model, *arms, games=games, agents=agents, seed=seed, workers=workers,
                                           engine=engine, on_progress=on_progress, should_stop=should_stop)
    return CardWhatIf(baseline, variant, compare_outcomes(baseline, variant), base_path, variant_path, changed,
                      games, stopped)
