"""Result store helpers: atomic file writes, cache keys and the package version.

Nothing is written half: every file is written to a temporary name in the same directory and
renamed into place (``os.replace`` is atomic on one file system), so a killed run leaves either
the whole file or none.  Temporary names carry the writer's pid, so a later run can remove the
leftovers of a dead writer without touching a live one's.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core.errors import DataError

__all__ = ["canonical_json", "chunk_key", "clean_stale_temp", "file_sha256", "package_version", "read_json",
           "write_atomic", "write_json_atomic", "write_parquet_atomic"]

_TMP = ".tmp-"


def package_version() -> str:
    """Installed version of the ``workbench`` package (``"unknown"`` when not installed)."""
    try:
        return metadata.version("workbench")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "unknown"


def canonical_json(obj: Any) -> str:
    """Stable JSON text (sorted keys, no spaces) used for hashing."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def chunk_key(fields: dict[str, Any]) -> str:
    """A short hash of everything that determines a chunk's rows."""
    return hashlib.sha256(canonical_json(fields).encode()).hexdigest()[:24]


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes, in hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_atomic(path: Path, write: Callable[[Path], None]) -> Path:
    """Call ``write(tmp)`` on a temporary path beside ``path``, then rename it to ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f"{_TMP}{os.getpid()}-{uuid.uuid4().hex[:8]}-{path.name}"
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def write_parquet_atomic(frame: pl.DataFrame, path: Path) -> Path:
    """Write ``frame`` as Parquet to ``path`` atomically."""
    return write_atomic(path, lambda tmp: frame.write_parquet(tmp))


def write_json_atomic(obj: Any, path: Path) -> Path:
    """Write ``obj`` as indented JSON to ``path`` atomically."""
    text = json.dumps(obj, indent=1, sort_keys=False, default=str) + "\n"
    return write_atomic(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def read_json(path: Path) -> Any:
    """Read a JSON file; a malformed one is a :class:`DataError` naming the file."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(path, exc.lineno, None, f"not valid JSON: {exc.msg}") from None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - someone else's live process
        return True
    return True


def clean_stale_temp(directory: Path) -> int:
    """Remove temporary files left by writers that are no longer running; return how many."""
    directory = Path(directory)
    if not directory.is_dir():
        return 0
    removed = 0
    for tmp in directory.glob(f"{_TMP}*"):
        pid_text = tmp.name[len(_TMP):].split("-", 1)[0]
        if pid_text.isdigit() and int(pid_text) != os.getpid() and not _alive(int(pid_text)):
            tmp.unlink(missing_ok=True)
            removed += 1
    return removed
