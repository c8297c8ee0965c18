"""Earlier runs: the studio's run records and the sweep stores, reopened without playing again.

Every run the studio finishes — or stops — is kept as a directory ``<studio>/runs/<run id>/``:
``run.json`` (game, study, settings, parameters, master seed, status, games done of total, rules
version, when and how long) and one Parquet file per table, the games frame included.  It is
built in a temporary directory and renamed into place, so a run is there whole or not at all.
Sweeps (``workbench sweep … --out DIR``, ``core/sim/sweep.py``) are listed from their manifests and
opened as the outcome tables of their finished chunks, per grid cell.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core.errors import InputError
from workbench.core.sim.store import read_json, write_json_atomic
from workbench.core.sim.sweep import MANIFEST, load_sweep, read_manifest
from workbench.core.studies.study import outcome_tables

__all__ = ["RUN_FORMAT", "RunStore", "find_sweeps", "open_sweep"]

RUN_FORMAT = "workbench-studio-run/1"
RECORD = "run.json"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
Tables = dict[str, pl.DataFrame]


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")[:40] or "run"


class RunStore:
    """The run records under one directory."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def path(self, run_id: str) -> Path:
        """The directory of run ``run_id`` (a name, never a path elsewhere)."""
        if not _ID.match(run_id or ""):
            raise InputError(f"{run_id!r} is not a run id")
        return self.root / run_id

    def save(self, record: dict[str, Any], tables: Tables) -> str:
        """Keep a run (its record and tables); return its id."""
        now = dt.datetime.now()
        run_id = f"{now:%Y%m%d-%H%M%S}-{_slug(record.get('game', ''))}-{_slug(record.get('name', ''))}-" \
                 f"{uuid.uuid4().hex[:6]}"
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{run_id}.building-", dir=self.root))
        try:
            for name, frame in tables.items():
                frame.write_parquet(tmp / f"{_slug(name)}.parquet")
            write_json_atomic({"format": RUN_FORMAT, "id": run_id, "saved": now.isoformat(timespec="seconds"),
                               **record, "tables": {name: f"{_slug(name)}.parquet" for name in tables}},
                              tmp / RECORD)
            os.chmod(tmp, 0o755)
            os.rename(tmp, self.root / run_id)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return run_id

    def runs(self) -> list[dict[str, Any]]:
        """Every kept run's record, newest first (a directory that is not a run is skipped)."""
        if not self.root.is_dir():
            return []
        found = []
        for path in self.root.iterdir():
            if path.name.startswith(".") or not (path / RECORD).is_file():
                continue
            try:
                record = read_json(path / RECORD)
            except InputError:
                continue
            if isinstance(record, dict) and record.get("format") == RUN_FORMAT:
                found.append(record)
        return sorted(found, key=lambda r: r.get("id", ""), reverse=True)

    def load(self, run_id: str) -> tuple[dict[str, Any], Tables]:
        """A kept run's record and tables, as they were."""
        path = self.path(run_id)
        if not (path / RECORD).is_file():
            raise InputError(f"no kept run {run_id!r} in {self.root}")
        record = read_json(path / RECORD)
        tables = {name: pl.read_parquet(path / file) for name, file in record.get("tables", {}).items()}
        return record, tables


# -- sweep stores -----------------------------------------------------------------------------------
def find_sweeps(roots: Iterable[str | Path]) -> list[dict[str, Any]]:
    """Sweep stores in ``roots`` (each a store, or a directory of stores), with their manifest's facts."""
    stores: list[Path] = []
    for root in map(Path, roots):
        if (root / MANIFEST).is_file():
            stores.append(root)
        elif root.is_dir():
            stores += sorted(p for p in root.iterdir() if (p / MANIFEST).is_file())
    found = []
    for store in dict.fromkeys(p.resolve() for p in stores):
        try:
            manifest = read_manifest(store)
        except InputError:
            continue
        cells = manifest.get("cells", [])
        chunks = [c for cell in cells for c in cell.get("chunks", [])]
        done = sum(c["stop"] - c["start"] for c in chunks if (store / c["file"]).is_file())
        found.append({"path": str(store), "game": manifest.get("game"), "status": manifest.get("status"),
                      "grid": manifest.get("grid", {}), "cells": len(cells), "master_seed": manifest.get("master_seed"),
                      "done": done, "total": sum(c["stop"] - c["start"] for c in chunks),
                      "saved": _modified(store / MANIFEST)})
    return found


def _modified(path: Path) -> str:
    return dt.datetime.fromtimestamp(path.stat().st_mtime).isoformat(timespec="seconds")


def _cell_keys(frame: pl.DataFrame, grid: dict[str, Any]) -> list[str]:
    keys = [k for k in grid if k in frame.columns]
    return keys + (["lineup"] if "lineup" in frame.columns else [])


def open_sweep(path: str | Path) -> tuple[dict[str, Any], Tables]:
    """A sweep store's finished games as outcome tables per grid cell (nothing is played)."""
    manifest = read_manifest(path)
    frame = load_sweep(path, partial=True)
    if frame.height == 0:
        raise InputError(f"the sweep in {path} has no finished games yet")
    keys = _cell_keys(frame, manifest.get("grid", {}))
    record = {"kind": "sweep", "game": manifest.get("game"), "name": Path(path).name, "title": f"sweep {Path(path)}",
              "seed": manifest.get("master_seed"), "grid": manifest.get("grid", {}), "keys": keys,
              "status": manifest.get("status"), "done": frame.height,
              "total": sum(c["stop"] - c["start"] for cell in manifest["cells"] for c in cell["chunks"]),
              "rules_version": manifest.get("rules_version")}
    return record, {**outcome_tables(frame, keys), "games": frame}
