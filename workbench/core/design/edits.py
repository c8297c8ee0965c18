"""What-if edits of a game's data table (CSV), written as content-addressed copies.

An edit is ``{row key: {column: new value}}``, e.g. ``{"dragon": {"cost": 20}}``.  The edited
table is written once, atomically, under a name made of its content hash, so the same edit is
always the same file (a cache hit) and a run's ``params_hash`` changes exactly when the content
does.  The base file is never touched.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from workbench.core.errors import DataError, InputError
from workbench.core.model.datafile import read_table
from workbench.core.sim.store import write_atomic

__all__ = ["cache_dir", "edit_csv", "write_hashed_csv"]


def cache_dir(namespace: str = "") -> Path:
    """Where edited data files go: ``$WORKBENCH_CACHE/<namespace>``, else ``<temp dir>/workbench-cache/<namespace>``."""
    root = os.environ.get("WORKBENCH_CACHE") or os.path.join(tempfile.gettempdir(), "workbench-cache")
    return Path(root) / namespace if namespace else Path(root)


def write_hashed_csv(header: Sequence[str], rows: Sequence[Mapping[str, Any]], stem: str, directory: Path) -> Path:
    """Write ``rows`` as ``<directory>/<stem>-<16 hex digits of sha256(content)>.csv`` (once, atomically)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(header), lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    text = buf.getvalue()
    path = Path(directory) / f"{stem}-{hashlib.sha256(text.encode()).hexdigest()[:16]}.csv"
    if not path.is_file():
        write_atomic(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return path


def _read(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    """Header and rows of a data table (core's reader: a spreadsheet's BOM, encodings and shape checked)."""
    table = read_table(path, (), keep_extra=True)
    return list(table.header), [dict(row.cells) for row in table]


def _listing(values: Sequence[str], most: int = 20) -> str:
    shown = ", ".join(values[:most])
    return shown + (f", … ({len(values)} in all)" if len(values) > most else "")


def _index(path: Path, rows: list[dict[str, str]], keys: Sequence[str]) -> dict[str, dict[str, str]]:
    """Row by key value, over every key column; a value naming two different rows is ambiguous."""
    index: dict[str, dict[str, str]] = {}
    for column in keys:
        for i, row in enumerate(rows, start=2):
            value = row.get(column)
            if value is None:
                continue
            if index.get(value) is not None and index[value] is not row:
                raise DataError(path, i, column, f"{value!r} names two rows, so an edit of it is ambiguous")
            index[value] = row
    return index


def edit_csv(base: str | Path, edits: Mapping[Any, Mapping[str, Any]], *, key: str | Sequence[str] = "key",
             directory: str | Path | None = None, stem: str | None = None,
             validate: Callable[[Path], Any] | None = None) -> Path:
    """A copy of the CSV ``base`` with ``edits`` applied; returns the copy's path.

    ``edits`` maps a row's key to ``{column: new value}``; ``key`` is the column (or columns, any
    of which may name a row, e.g. ``("key", "id")``) that identifies rows and cannot be edited.
    The copy goes to ``directory`` (default :func:`cache_dir`) as ``<stem>-<content hash>.csv``
    (``stem`` defaults to the base's).  ``validate(path)`` (e.g. the game's loader) checks the
    copy; if it raises, the copy is removed and the error passes on.  An unknown key or
    column is an :class:`InputError` naming the file, the key, the column and what exists.
    """
    base = Path(base)
    keys = [key] if isinstance(key, str) else list(key)
    header, rows = _read(base)
    missing = [k for k in keys if k not in header]
    if missing:
        raise InputError(f"{base}: no key column {missing[0]!r} to find the edited rows by; columns: "
                         f"{', '.join(header)}")
    index = _index(base, rows, keys)
    editable = [c for c in header if c not in keys]
    typed: dict[int, list[tuple[str, str, str]]] = {}  # copy's line number -> the edits of that row, as typed
    for row_key, change in (edits or {}).items():
        row = index.get(str(row_key))
        if row is None:
            raise InputError(f"{base}: no row with {' or '.join(keys)} {str(row_key)!r} to edit; "
                             f"{keys[0]} values: {_listing([r[keys[0]] for r in rows])}")
        for column, value in change.items():
            if column not in editable:
                why = "is the row's key" if column in keys else "is not a column"
                raise InputError(f"{base}: cannot edit column {column!r} of {str(row_key)!r}: it {why}; "
                                 f"editable columns: {', '.join(editable)}")
            row[column] = str(value)
            line = next(i for i, r in enumerate(rows, start=2) if r is row)
            typed.setdefault(line, []).append((str(row_key), column, str(value)))
    path = write_hashed_csv(header, rows, stem or base.stem, Path(directory) if directory is not None else cache_dir())
    if validate is not None:
        try:
            validate(path)
        except Exception as exc:
            path.unlink(missing_ok=True)  # the same content is always as invalid: leave no bad copy behind
            if str(path) not in str(exc):
                raise
            raise _as_typed(exc, path, base, typed) from None
    return path


def _as_typed(exc: Exception, copy: Path, base: Path, typed: dict[int, list[tuple[str, str, str]]]) -> InputError:
    """An error about the edited copy, told as the edit the user typed (the copy is an internal file)."""
    everything = "; ".join(f"{k}.{c}={v}" for edits in typed.values() for k, c, v in edits)
    if isinstance(exc, DataError):
        if exc.row in typed:
            mine = [e for e in typed[exc.row] if exc.column is None or e[1] == exc.column] or typed[exc.row]
            shown = "; ".join(f"{k}.{c}={v}" for k, c, v in mine)
            return DataError(f"edit {shown} of {base.name}", None, exc.column, exc.reason)
        return DataError(f"{base.name} with the edits {everything}", exc.row, exc.column, exc.reason)
    return InputError(f"edits {everything}: " + str(exc).replace(str(copy), f"{base.name} with the edits"))
