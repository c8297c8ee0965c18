"""Reading and validating a game's editable CSV data files, for every game.

A designer edits these files in a spreadsheet, so every problem is one :class:`DataError` that
names the file, the row, the column and the reason, in the spreadsheet's own terms:

* **Rows are numbered as a spreadsheet shows them**: the header is row 1 and every CSV record
  after it is one row, blank lines included (a blank line is skipped but still counts, as it
  does on screen; a quoted cell with a line break inside stays one row).
* **Columns**: the header must have every required column; optional columns may be missing (their
  cells read as blank).  Unknown extra columns are allowed and ignored — designers keep notes
  next to the data — unless a reader passes ``allow_extra=False``.  A missing column that looks
  like a typo of an extra one says so.  A column named twice is an error.
* **Text**: UTF-8, with or without the byte-order mark Excel writes ("CSV UTF-8").  Anything else
  (Windows-1252/Latin-1, UTF-16, a workbook, a binary file) is "not UTF-8 text" with the advice to
  re-save it as UTF-8 CSV, never a decoding traceback.
* **Shape**: every row has as many fields as the header (surplus *empty* fields at the end of a
  row, as spreadsheets sometimes write, are ignored); a quote that is never closed is an error.

Cells are validated through :class:`Row`'s typed readers (:meth:`Row.text`, :meth:`Row.integer`,
:meth:`Row.decimal`, :meth:`Row.choice`), each taking ``default=`` for optional values.
:func:`file_cache` makes a loader free to call again and re-reads a file once it changes.
"""

from __future__ import annotations

import csv
import difflib
import functools
import hashlib
import io
import math
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from workbench.core.errors import DataError

__all__ = ["REQUIRED", "Row", "Table", "content_digest", "file_cache", "read_table"]

T = TypeVar("T")

_UTF8_BOM = b"\xef\xbb\xbf"
_INTEGER = re.compile(r"[+-]?[0-9]+")
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_RESAVE = "re-save as UTF-8 CSV (Excel: Save As > 'CSV UTF-8 (Comma delimited)')"


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
"""The ``default`` of every cell reader: a blank cell is an error rather than a default value."""


# -- cells ----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Row:
    """One data row: its cells by column name and its number as a spreadsheet shows it."""

    path: Path
    number: int
    cells: dict[str, str]

    def __getitem__(self, column: str) -> str:
        """The raw cell text (a column the reader did not declare is a ``KeyError``)."""
        return self.cells[column]

    def error(self, column: str | None, reason: str) -> DataError:
        """A :class:`DataError` at this row (``raise row.error(...)``)."""
        return DataError(self.path, self.number, column, reason)

    def text(self, column: str, *, default: Any = REQUIRED) -> str:
        """The cell's text without surrounding spaces; blank is an error ("is empty")."""
        text = self.cells[column].strip()
        if text:
            return text
        if default is REQUIRED:
            raise self.error(column, "is empty")
        return default

    def integer(self, column: str, low: int | None = None, high: int | None = None, *,
                default: Any = REQUIRED) -> int:
        """A whole number in ``low..high`` (either bound may be ``None``: open)."""
        text = self.cells[column].strip()
        if not text:
            return self._blank(column, default, f"a whole number {_span(low, high)}")
        if not _INTEGER.fullmatch(text):
            raise self.error(column, f"{text!r} is not a whole number{_comma_hint(text)}")
        return self._in_range(column, int(text), low, high)

    def decimal(self, column: str, low: float | None = None, high: float | None = None, *,
               default: Any = REQUIRED) -> float:
        """A finite decimal number (a point as the decimal mark) in ``low..high``."""
        text = self.cells[column].strip()
        if not text:
            return self._blank(column, default, f"a number {_span(low, high)}")
        if not _NUMBER.fullmatch(text):
            raise self.error(column, f"{text!r} is not a number{_comma_hint(text)}")
        value = float(text)
        if not math.isfinite(value):
            raise self.error(column, f"{text!r} is too large")
        return self._in_range(column, value, low, high)

    def choice(self, column: str, choices: Collection[str], *, what: str = "a valid value",
               default: Any = REQUIRED) -> str:
        """One of ``choices`` exactly; ``what`` names the kind in the error ("is not a colour")."""
        text = self.cells[column].strip()
        if not text and default is not REQUIRED:
            return default
        if text not in choices:
            raise self.error(column, f"{text!r} is not {what}; allowed: {', '.join(choices)}")
        return text

    def _blank(self, column: str, default: Any, expected: str) -> Any:
        if default is REQUIRED:
            raise self.error(column, f"is empty; expected {expected}")
        return default

    def _in_range(self, column: str, value: T, low: Any, high: Any) -> T:
        if (low is not None and value < low) or (high is not None and value > high):
            raise self.error(column, f"{value} is out of range; allowed {_span(low, high)}")
        return value


def _span(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"{low}..{high}"
    if low is not None:
        return f"{low} or more"
    return "any" if high is None else f"{high} or less"


def _comma_hint(text: str) -> str:
    return " (use a point as the decimal mark, no thousands separators)" if "," in text else ""


# -- files ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Table:
    """A read data file: its resolved header, its non-blank rows in order and a content digest."""

    path: Path
    header: tuple[str, ...]
    rows: tuple[Row, ...]
    digest: str

    def __iter__(self) -> Iterator[Row]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)


def content_digest(data: bytes | Path) -> str:
    """16 hex digits of SHA-256 of a file's bytes (or of ``data``), ignoring a UTF-8 byte-order mark.

    The mark changes nothing in the content, so an Excel "CSV UTF-8" copy keeps the digest (and
    so the params hash) of the original.
    """
    if isinstance(data, Path):
        data = data.read_bytes()
    return hashlib.sha256(data.removeprefix(_UTF8_BOM)).hexdigest()[:16]


def read_table(path: str | Path, required: Sequence[str], *, optional: Sequence[str] = (),
               allow_extra: bool = True, what: str = "data rows", keep_extra: bool = False) -> Table:
    """Read a CSV data file and check its header and shape (not yet its cells).

    Args:
        path: the file; errors name it as given.
        required: columns the header must have.
        optional: columns it may have; when absent, their cells read as blank.
        allow_extra: whether other columns are allowed (and ignored).
        what: what the rows are, for the error of a file without any ("no cards below the header").
        keep_extra: keep the cells of every column in the rows, not only the required and optional
            ones (a tool that copies a whole table).

    Raises:
        DataError: unreadable or not UTF-8; empty; a missing, duplicated or (``allow_extra=False``)
            unknown column; a row with the wrong number of fields or an unclosed quote; no rows.
    """
    path = Path(path)
    data = _read_bytes(path)
    records = _records(path, _decode(path, data))
    header_row, header = _header(path, records, required, optional)
    _check_columns(path, header_row, header, required, optional, allow_extra)
    keep = [(i, name) for i, name in enumerate(header) if keep_extra or name in {*required, *optional}]
    blank = dict.fromkeys([c for c in optional if c not in header], "")
    rows = []
    for number, fields in records[header_row:]:
        if not any(f.strip() for f in fields):
            continue  # a blank line (or a row of empty cells): skipped, still counted
        if len(fields) < len(header) or any(f.strip() for f in fields[len(header):]):
            raise DataError(path, number, None, f"wrong number of fields; expected {len(header)}, found "
                            f"{len(fields)} (quote a cell that contains a comma)")
        rows.append(Row(path, number, {name: fields[i] for i, name in keep} | blank))
    if not rows:
        raise DataError(path, None, None, f"no {what} below the header")
    return Table(path, tuple(header), tuple(rows), content_digest(data))


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except IsADirectoryError:
        raise DataError(path, None, None, "cannot read the file: it is a directory, not a CSV file") from None
    except OSError as exc:
        raise DataError(path, None, None, f"cannot read the file: {exc.strerror or exc}") from None


def _decode(path: Path, data: bytes) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DataError(path, None, None, f"not UTF-8 text (it is UTF-16); {_RESAVE}")
    if data.startswith(b"PK\x03\x04"):
        raise DataError(path, None, None, f"not UTF-8 text (it looks like an Excel workbook); {_RESAVE}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise DataError(path, None, None, f"not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}; "
                                          f"saved as Windows-1252/Latin-1?); {_RESAVE}") from None
    if "\x00" in text:
        line = text[:text.index("\x00")].count("\n") + 1
        raise DataError(path, None, None, f"not UTF-8 text (a NUL byte on line {line}: a binary file?); {_RESAVE}")
    return text


def _records(path: Path, text: str) -> list[tuple[int, list[str]]]:
    """Every CSV record with its spreadsheet row number (blank lines included)."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    out: list[tuple[int, list[str]]] = []
    try:
        for fields in reader:
            out.append((len(out) + 1, fields))
    except csv.Error as exc:
        reason = ("a quote opened on this row is never closed" if "end of data" in str(exc)
                  else f"cannot read the CSV: {exc} (a cell that starts with a quote must end with one)")
        raise DataError(path, len(out) + 1, None, reason) from None
    return out


def _header(path: Path, records: list[tuple[int, list[str]]], required: Sequence[str],
            optional: Sequence[str]) -> tuple[int, list[str]]:
    """The first non-blank record, names stripped, and its row number."""
    for number, fields in records:
        if any(f.strip() for f in fields):
            return number, [f.strip() for f in fields]
    allowed = ", ".join([*required, *optional])
    raise DataError(path, None, None, f"the file is empty; expected a header row with {allowed}")


def _check_columns(path: Path, row: int, header: list[str], required: Sequence[str],
                   optional: Sequence[str], allow_extra: bool) -> None:
    seen: dict[str, int] = {}
    for i, name in enumerate(header, start=1):
        if name and name in seen:
            raise DataError(path, row, name, f"the header names this column twice (columns {seen[name]} and {i})")
        seen[name] = i
    must = f"the header must have {', '.join(required)}" + (f" and may have {', '.join(optional)}" if optional
                                                          else "")
    extra = [name for name in header if name not in {*required, *optional}]
    missing = [c for c in required if c not in header]
    if missing:
        raise DataError(path, row, missing[0], f"missing column; {must}{_found(header, missing[0], extra)}")
    if extra and not allow_extra:
        raise DataError(path, row, extra[0], f"unknown column; {must}")


def _found(header: list[str], missing: str, extra: list[str]) -> str:
    if len(header) == 1 and (sep := next((s for s in ";\t|" if s in header[0]), None)):
        return f"; the header is one column {header[0]!r}: save the file with commas between fields, not {sep!r}"
    close = difflib.get_close_matches(missing, [e for e in extra if e], n=1, cutoff=0.75)
    return f"; found {', '.join(header)}" + (f" (is {close[0]!r} a typo of {missing!r}?)" if close else "")


# -- the cache ------------------------------------------------------------------------------------
def file_cache(maxsize: int = 16) -> Callable[[Callable[[Path], T]], Callable[[str | Path], T]]:
    """Cache a loader ``f(resolved_path) -> value`` by path, inode, modification time and size.

    Calling the wrapped loader again is a dictionary look-up; once the file is edited (saved
    again: its mtime or size changes) it is read afresh.  An edit that keeps both the size and a
    file system's mtime tick is not seen.  Errors are not cached.  The wrapper has
    ``cache_clear()``.  Callers must not mutate a cached value.
    """

    def decorate(load: Callable[[Path], T]) -> Callable[[str | Path], T]:
        cache: OrderedDict[tuple[Path, int, int, int], T] = OrderedDict()
        lock = threading.Lock()

        @functools.wraps(load)
        def wrapper(path: str | Path) -> T:
            path = Path(path).resolve()
            try:
                stat = os.stat(path)
            except OSError:
                return load(path)  # the loader raises the readable error
            key = (path, stat.st_ino, stat.st_mtime_ns, stat.st_size)  # a file saved by rename is a new inode
            with lock:
                if key in cache:
                    cache.move_to_end(key)
                    return cache[key]
            value = load(path)
            with lock:
                cache[key] = value
                while len(cache) > maxsize:
                    cache.popitem(last=False)
            return value

        wrapper.cache_clear = cache.clear  # type: ignore[attr-defined]
        return wrapper

    return decorate
