"""An output folder with one writer, that never overwrites a file it did not write, and a refusal that leaves nothing.

:class:`OutDir` is held for a whole run (``with OutDir(out, "rebalance --out") as folder: ...``):

- **one writer**: an OS lock (:class:`~workbench.core.sim.store.OutputLock`, ``<out>.lock`` beside the
  folder); a second run into the folder — a ``--resume`` too — is refused at once, naming the first.
- **its own files only**: the folder keeps a manifest, ``.workbench-files.json``, of every file the
  workbench wrote there.  A folder holding any other file (a user's own ``proposals.csv``) is refused
  before any work, every file left untouched.  A manifest left by a run that was killed while writing
  (``"complete": false``) claims the folder's files as the workbench's.  ``legacy`` names files that
  mark a folder written by an earlier workbench without a manifest (a rebalance's ``search.jsonl``).
- **resume**: ``resume=True`` with nothing to resume (``resumable`` finds none) is refused.
- **a refusal leaves nothing**: when the run raises an :class:`~workbench.core.errors.InputError`
  (bad input found once the work began), every file and folder it created is removed, so the
  corrected command starts clean.  Any other ending — finished, stopped, failed — keeps what it
  wrote and records it in the manifest, so ``--resume`` finds it.

Core module: it imports only ``core.errors`` and ``core.sim.store``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from workbench.core.errors import InputError
from workbench.core.sim.store import OutputLock, write_json_atomic

__all__ = ["MANIFEST", "OutDir", "held", "written_files"]

MANIFEST = ".workbench-files.json"


def _files(folder: Path) -> set[str]:
    """Every file under ``folder``, as paths relative to it (the manifest and temporaries left out)."""
    if not folder.is_dir():
        return set()
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")
            if p.is_file() and p.name != MANIFEST and not p.name.startswith(".tmp-")}


def written_files(folder: str | os.PathLike) -> set[str] | None:
    """The files the workbench wrote in ``folder`` (its manifest), or None when it keeps none."""
    path = Path(folder) / MANIFEST
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    if not data.get("complete", True):  # a run killed while writing: the folder's files are its own
        return _files(Path(folder))
    return set(data.get("files", []))


class OutDir:
    """Hold an output folder for one run: lock, manifest, refusals (see the module's docstring)."""

    def __init__(self, folder: str | os.PathLike, what: str = "--out", *, resume: bool = False,
                 resumable: Callable[[Path], bool] | None = None, legacy: Iterable[str] = (),
                 command: str = "") -> None:
        self.folder, self.what, self.resume = Path(folder), what, resume
        self.resumable, self.legacy, self.command = resumable, tuple(legacy), command
        self.lock = OutputLock(self.folder, what)
        self._before: set[str] = set()
        self._created: list[Path] = []

    def _check(self) -> None:
        folder, present = self.folder, _files(self.folder)
        own = written_files(folder)
        if own is None and any((folder / name).exists() for name in self.legacy):
            own = present  # written by an earlier workbench, before manifests
        foreign = sorted(present - (own or set()))
        if foreign:
            shown = ", ".join(foreign[:4]) + (f" and {len(foreign) - 4} more" if len(foreign) > 4 else "")
            raise InputError(f"{self.what} {folder} holds files the workbench did not write ({shown}); they are "
                             "left untouched: give a new or empty folder")
        if self.resume and (self.resumable is None or not self.resumable(folder)):
            raise InputError(f"{self.what} {folder}: nothing to resume there; leave --resume out to start a run")

    def __enter__(self) -> Path:
        missing = [p for p in (self.folder, *self.folder.parents) if not p.exists()]
        self._created = list(reversed(missing))  # outermost first
        self.lock.acquire()  # creates the parent folders
        try:
            self._before = _files(self.folder)
            self._check()  # refused: nothing was written, nothing is touched
            self.folder.mkdir(parents=True, exist_ok=True)
            self._write(complete=False)
        except BaseException:
            self.lock.release()
            self._remove_created_dirs()
            raise
        return self.folder

    def _write(self, complete: bool) -> None:
        own = (written_files(self.folder) or set()) | self._before
        data: dict[str, Any] = {"complete": complete, "command": self.command,
                                "files": sorted(own | _files(self.folder))}
        write_json_atomic(data, self.folder / MANIFEST)

    def _undo(self) -> None:
        """Remove what this run created: new files, then new folders, then the manifest when it is new."""
        if not self.folder.is_dir():
            return
        for name in sorted(_files(self.folder) - self._before, reverse=True):
            (self.folder / name).unlink(missing_ok=True)
        for path in sorted((p for p in self.folder.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
            if not any(path.iterdir()):
                path.rmdir()
        if not self._before:
            (self.folder / MANIFEST).unlink(missing_ok=True)
        else:
            self._write(complete=True)

    def _remove_created_dirs(self) -> None:
        for path in reversed(self._created):  # innermost first: each new folder that holds nothing now
            if path.is_dir() and not any(path.iterdir()):
                path.rmdir()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: Any) -> None:
        try:
            if kind is not None and issubclass(kind, InputError):
                self._undo()
            else:
                self._write(complete=True)
        finally:
            self.lock.release()
            if kind is not None and issubclass(kind, InputError):
                self._remove_created_dirs()


@contextmanager
def held(out: str | os.PathLike | None, what: str = "--out") -> Iterator[None]:
    """Hold ``out``'s lock for a whole command (nothing when None): a second run into it is refused at once.

    Folders made to hold the lock, and still empty when the command ends (it was refused, or wrote
    nothing), are removed: a refused command leaves nothing behind.
    """
    if out is None:
        yield
        return
    path = Path(out)
    missing = [p for p in (path, *path.parents) if not p.exists()]
    try:
        with OutputLock(path, what):
            yield
    finally:
        for folder in missing:  # innermost first
            try:
                if folder.is_dir() and not any(folder.iterdir()):
                    folder.rmdir()
            except OSError:
                break
