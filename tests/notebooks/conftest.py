"""Shared notebook runner: execute a copy of a notebook with its parameters cell overridden.

Notebooks are committed without outputs; their first code cell is tagged ``parameters`` and holds
the sizes.  ``run_notebook(path, overrides)`` appends ``NAME = value`` lines for the overrides to
that cell (so the notebook runs small), executes the copy with nbclient on the ``python3`` kernel
of the venv, and returns the executed notebook; a failing cell raises with its traceback.
"""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"


def parameters_cell(nb: Any) -> Any:
    """The code cell tagged ``parameters`` (the notebook convention)."""
    for cell in nb.cells:
        if cell.cell_type == "code" and "parameters" in cell.get("metadata", {}).get("tags", []):
            return cell
    raise AssertionError("notebook has no code cell tagged 'parameters'")


def execute_notebook(path: str | Path, overrides: dict[str, Any] | None = None, timeout: int = 600) -> Any:
    """Execute a copy of the notebook at ``path`` with ``overrides`` applied; return the executed copy."""
    import nbclient  # the notebook extra; `make test` installs it, so a missing one is an error, not a skip
    import nbformat
    path = Path(path)
    if not path.is_absolute():
        path = REPO / path
    nb = nbformat.read(path, as_version=4)
    run = copy.deepcopy(nb)
    cell = parameters_cell(run)
    if overrides:
        cell.source = cell.source.rstrip() + "\n# overridden by the test\n" + "\n".join(
            f"{name} = {value!r}" for name, value in overrides.items())
    from jupyter_client.manager import KernelManager

    with tempfile.TemporaryDirectory(prefix="nbkernel-") as sockets:
        # IPC (unix sockets in a private directory), not TCP: kernels started at the same time by
        # parallel test workers cannot collide on a port and talk to the wrong client.
        km = KernelManager(kernel_name="python3", transport="ipc", ip=str(Path(sockets) / "kernel"))
        client = nbclient.NotebookClient(run, km=km, kernel_name="python3", timeout=timeout,
                                         resources={"metadata": {"path": str(path.parent)}})
        client.execute()
    return run


def outputs(nb: Any) -> list[dict]:
    """Every output of every code cell, in order."""
    return [out for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])]


def mime_types(nb: Any) -> set[str]:
    """The MIME types of every display output (e.g. altair's Vega-Lite, ipywidgets' view)."""
    return {m for out in outputs(nb) for m in out.get("data", {})}


@pytest.fixture
def run_notebook():
    """The notebook runner as a fixture: ``run_notebook(path, overrides)``."""
    return execute_notebook
