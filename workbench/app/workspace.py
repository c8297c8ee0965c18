"""The studio's workspace: where runs, saved card sets and downloads live, and how the page links to them.

One directory (``WORKBENCH_STUDIO``, default ``studio/`` where the studio was started) holds::

    runs/<run id>/        every finished or stopped run: run.json, its tables as Parquet, and the
                          downloads made from them (games.csv, report.zip)
    cards/<game>/<name>.csv   card sets saved from the card editor (never the shipped data)

The server serves files below it at ``/voila/files/…`` (only these kinds: CSV, Parquet, zip), so a
download is a plain link and works with no network.  Sweep stores are read from
``WORKBENCH_SWEEPS`` (directories separated by ``os.pathsep``; default ``<workspace>/sweeps``).
"""

from __future__ import annotations

import os
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the launcher imports this module: it stays light (no polars, no altair)
    from workbench.app.store import RunStore

__all__ = ["ENV_STUDIO", "ENV_SWEEPS", "FILES_URL", "Workspace"]

ENV_STUDIO = "WORKBENCH_STUDIO"
ENV_SWEEPS = "WORKBENCH_SWEEPS"
FILES_URL = "/voila/files/"  # where the server serves the workspace's files (voila's file handler)


@dataclass
class Workspace:
    """The studio's directory, its run store and the sweep stores it lists."""

    root: Path
    sweep_roots: list[Path] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.root = Path(self.root).resolve()

    @property
    def store(self) -> RunStore:
        """The run records kept under ``runs/``."""
        from workbench.app.store import RunStore

        return RunStore(self.root / "runs")

    @classmethod
    def from_environment(cls) -> Workspace:
        """The workspace named by ``WORKBENCH_STUDIO`` (default ``./studio``) and ``WORKBENCH_SWEEPS``."""
        root = Path(os.environ.get(ENV_STUDIO) or "studio")
        sweeps = [Path(p) for p in os.environ.get(ENV_SWEEPS, "").split(os.pathsep) if p.strip()]
        return cls(root, sweeps or [root / "sweeps"])

    def cards_dir(self, game: str) -> Path:
        """Where the card sets saved for ``game`` go."""
        return self.root / "cards" / game

    def run_dir(self, run_id: str) -> Path:
        """The directory of a kept run."""
        return self.store.path(run_id)

    def url(self, path: str | Path) -> str | None:
        """The page's link to a file of the workspace (None for a file elsewhere)."""
        path = Path(path).resolve()
        try:
            relative = path.relative_to(self.root)
        except ValueError:
            return None
        return FILES_URL + urllib.parse.quote(relative.as_posix())
