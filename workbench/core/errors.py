"""Errors a user can act on."""

from __future__ import annotations


class WorkbenchError(Exception):
    """Base class of every error the workbench raises on purpose."""


class InputError(WorkbenchError, ValueError):
    """Bad input: says what is wrong and what is allowed."""


class DataError(InputError):
    """A malformed data file: names the file, row, column and reason."""

    def __init__(self, path: object, row: int | None, column: str | None, reason: str) -> None:
        self.path, self.row, self.column, self.reason = path, row, column, reason
        where = f"{path}"
        if row is not None:
            where += f", row {row}"
        if column is not None:
            where += f", column {column!r}"
        super().__init__(f"{where}: {reason}")


class RunInterrupted(WorkbenchError):
    """A run was interrupted; ``partial`` holds the games that finished (a polars frame)."""

    def __init__(self, partial: object, done: int, total: int) -> None:
        self.partial, self.done, self.total = partial, done, total
        super().__init__(f"interrupted after {done} of {total} games; finished games kept")


class OutputError(WorkbenchError):
    """A file could not be written (a full disk, a read-only or vanished folder): says what was kept.

    ``reason`` is the system's word for it ("No space left on device").
    """

    def __init__(self, message: str, reason: str | None = None) -> None:
        self.reason = reason or message
        super().__init__(message)


class Busy(InputError):
    """Another run holds the output's lock: names its pid and command line."""


class SettingError(InputError):
    """A refused setting, naming its field (``field``) so a form marks that field: the study's own words."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(message)
