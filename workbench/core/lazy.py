"""Heavy libraries imported on first use: ``alt = lazy("altair")`` instead of ``import altair as alt``.

altair (with jsonschema's format grammars) takes about 2 s to import and scipy.stats about 1 s.  Most
commands never draw a chart or call a test, and a ``--help``, a spawned worker or a CLI run should
not wait for them.  The stand-in imports the module the first time one of its attributes is read
(under a lock, so two threads drawing at once import it once) and then forwards every read to it.
"""

from __future__ import annotations

import importlib
import threading
import types
from typing import Any

__all__ = ["lazy", "preload"]


class _Lazy(types.ModuleType):
    """A stand-in for a module not imported yet; reading an attribute imports it."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.__dict__["_lock"] = threading.Lock()
        self.__dict__["_module"] = None

    def _load(self) -> types.ModuleType:
        module = self.__dict__["_module"]
        if module is None:
            with self.__dict__["_lock"]:
                module = self.__dict__["_module"]
                if module is None:
                    module = importlib.import_module(self.__name__)
                    self.__dict__["_module"] = module
        return module

    def __getattr__(self, attr: str) -> Any:  # only for names the stand-in itself does not have
        return getattr(self._load(), attr)

    def __dir__(self) -> list[str]:
        return dir(self._load())


def lazy(name: str) -> types.ModuleType:
    """The module ``name`` if it is imported already, else a stand-in that imports it when first used."""
    import sys

    return sys.modules.get(name) or _Lazy(name)


def preload(module: types.ModuleType) -> None:
    """Import a :func:`lazy` module now in a background thread (nothing when it is imported already).

    A run someone may stop makes its tables after Stop: the import it needs then (scipy.stats for the
    intervals, about a second) is done while the run plays instead.
    """
    if isinstance(module, _Lazy) and module.__dict__["_module"] is None:
        threading.Thread(target=module._load, name="workbench-preload", daemon=True).start()
