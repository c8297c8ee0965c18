"""Shared notebook runner: execute a copy of a notebook with its parameters cell overridden.

Notebooks are committed without outputs; their first code cell is tagged ``parameters`` and holds
the sizes.  ``run_notebook(path, overrides)`` appends ``NAME = value`` lines for the overrides to
that cell (so the notebook runs small) and executes the copy the way ``jupyter nbconvert --to
notebook --execute`` does — nbconvert's ``ExecutePreprocessor``, which starts, owns and shuts
down the ``python3`` kernel of the venv, with the notebook's folder as working directory — then
returns the executed notebook; a failing cell raises with its traceback, a stalled cell fails
after ``timeout`` seconds instead of hanging.

Besides, no Output widget may capture a cell's output (``with output:``, ``output.clear_output()``).
A headless front-end answers each captured output with a message on the kernel's shell socket
while it waits on that socket for the cell's reply; now and then the reply is lost and
``nbconvert --execute`` stalls for good with the kernel idle.  The panels (``workbench.ui``) draw into
HTML widgets' values and put a cell's own tables and charts there with plain ``display``
(``workbench.ui.common.show_here``).
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


def thin_code_cells(path: str | Path, max_lines: int = 8) -> list[Any]:
    """The committed notebook's code cells, after checking it is thin: no outputs, the parameters cell
    first, no cell over ``max_lines`` lines (no logic lives only in a notebook)."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in code)
    assert code[0] is parameters_cell(nb)
    assert all(len(c.source.splitlines()) <= max_lines for c in code)
    return code


def execute_notebook(path: str | Path, overrides: dict[str, Any] | None = None, timeout: int = 120) -> Any:
    """Execute a copy of the notebook at ``path`` with ``overrides`` applied; return the executed copy."""
    import nbformat  # the notebook extra; `make test` installs it, so a missing one is an error, not a skip
    from traitlets.config import Config

    path = Path(path)
    if not path.is_absolute():
        path = REPO / path
    nb = nbformat.read(path, as_version=4)
    run = copy.deepcopy(nb)
    cell = parameters_cell(run)
    if overrides:
        cell.source = cell.source.rstrip() + "\n# overridden by the test\n" + "\n".join(
            f"{name} = {value!r}" for name, value in overrides.items())
    with tempfile.TemporaryDirectory(prefix="nbkernel-") as sockets:
        # IPC (unix sockets in a private directory), not TCP: kernels started at the same time by
        # parallel test workers cannot collide on a port and talk to the wrong client.
        config = Config({"KernelManager": {"transport": "ipc", "ip": str(Path(sockets) / "kernel")}})
        executor = _executor_class()(config=config, timeout=timeout, kernel_name=nb.metadata.kernelspec.name)
        executor.preprocess(run, {"metadata": {"path": str(path.parent)}})
    assert not executor.captured, (
        f"{path.name}: an Output widget captured cell output ({len(executor.captured)} times); headless "
        "execution can stall on that — set an HTML widget's value, or display into the cell "
        "(workbench.ui.common.show_here)")
    return run


def _executor_class() -> type:
    from nbconvert.preprocessors import ExecutePreprocessor

    class Executor(ExecutePreprocessor):
        """nbconvert's executor, noting each time an Output widget starts capturing a cell's output."""

        def preprocess(self, nb: Any, resources: Any = None, km: Any = None) -> Any:
            self.captured: list[str] = []
            return super().preprocess(nb, resources, km)

        def register_output_hook(self, msg_id: str, hook: Any) -> None:
            self.captured.append(msg_id)
            super().register_output_hook(msg_id, hook)

    return Executor


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
