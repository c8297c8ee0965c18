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
import re
import shlex
import sys
import uuid
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core.errors import Busy, DataError, OutputError

__all__ = ["OutputLock", "canonical_json", "chunk_key", "clean_stale_temp", "file_sha256", "lock_path",
           "package_version", "read_json",
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
    except BaseException as exc:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:  # a folder turned read-only keeps it; the next run removes it (clean_stale_temp)
            pass
        io = _io_error(exc, path)
        if io is not None:
            raise io from None
        raise
    return path


_OS_ERROR = re.compile(r"os error (\d+)")


def _io_error(exc: BaseException, path: Path) -> OSError | None:
    """An I/O failure another library reports as its own error (polars: ``… (os error 28)``), as an OSError."""
    if isinstance(exc, OSError):
        return None if exc.filename else OSError(exc.errno, exc.strerror or str(exc), str(path))
    found = _OS_ERROR.search(str(exc)) if isinstance(exc, Exception) else None
    if found is None:
        return None
    number = int(found.group(1))
    return OSError(number, os.strerror(number), str(path))


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


def lock_path(target: Path) -> Path:
    """The lock file of an output: ``<target>.lock`` beside it (inside it for a root folder)."""
    target = Path(os.path.abspath(target))
    return target.with_name(target.name + ".lock") if target.name else target / ".workbench.lock"


class OutputLock:
    """One writer per output: an OS advisory lock (``flock``) on ``<target>.lock``, held for a whole run.

    The lock file holds the holder's pid and command line.  A second writer is refused at once
    with a :class:`Busy` error naming them; the OS releases the lock when its holder dies (even by
    SIGKILL), so a killed run never blocks the next one.  Use as a context manager.
    """

    def __init__(self, target: str | os.PathLike, what: str = "--out") -> None:
        self.target, self.what = Path(target), what
        self.path = lock_path(self.target)
        self._fd: int | None = None

    _held: dict[tuple[str, int], int] = {}  # (lock file, thread) held, and how many holds (a nested hold is free)

    def acquire(self) -> OutputLock:
        """Take the lock, or raise :class:`Busy` (another live run holds it) / :class:`OutputError`.

        A lock this thread holds already (the command holds its ``--out`` for the whole run, and core
        takes it again to write) is held once more, not refused; another thread is refused as another run.
        """
        import fcntl
        import threading

        key = (str(self.path), threading.get_ident())
        if OutputLock._held.get(key):
            OutputLock._held[key] += 1
            self._fd = -1
            return self
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(f"{self.what} {self.target}: cannot create the folder {self.path.parent} "
                              f"({exc.strerror or exc}); give a folder you can write to") from None
        for _ in range(20):  # the file may be unlinked by a finishing holder between open and flock
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                raise OutputError(f"{self.what} {self.target}: cannot write in {self.path.parent} "
                                  f"({exc.strerror or exc}); give a folder you can write to") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = self._holder(fd)
                os.close(fd)
                raise Busy(f"{self.what} {self.target} is being written by another run ({holder}); wait for it "
                           "to finish or stop it, or give another output") from None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                text = f"pid {os.getpid()}\n{shlex.join(sys.argv)}\n"
                os.ftruncate(fd, 0)
                os.pwrite(fd, text.encode(), 0)
                self._fd = fd
                OutputLock._held[key] = 1
                return self
            os.close(fd)
        raise OutputError(f"{self.what} {self.target}: could not take the lock {self.path}")  # pragma: no cover

    @staticmethod
    def _holder(fd: int) -> str:
        try:
            lines = os.pread(fd, 4096, 0).decode("utf-8", "replace").splitlines()
        except OSError:  # pragma: no cover
            lines = []
        pid = lines[0] if lines else "pid unknown"
        command = lines[1] if len(lines) > 1 else "command unknown"
        return f"{pid}: {command}"

    def release(self) -> None:
        """Remove the lock file and release the lock (a nested hold only gives its hold back)."""
        if self._fd is None:
            return
        import threading

        key = (str(self.path), threading.get_ident())
        OutputLock._held[key] = OutputLock._held.get(key, 1) - 1
        if self._fd == -1 or OutputLock._held[key] > 0:
            self._fd = None
            return
        OutputLock._held.pop(key, None)
        try:
            self.path.unlink(missing_ok=True)
        except OSError:  # a folder turned read-only: the OS lock still goes with the descriptor
            pass
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> OutputLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
