"""Declarations given by reference: ``"package.module:NAME"``, imported only when asked for.

A model declares its studies, report, card table or lessons either as objects or as such strings,
so that importing a model stays cheap and layers stay apart.  Kept in its own module so that every
core module can resolve references without importing the study layer.
"""

from __future__ import annotations

import importlib
from typing import Any

from workbench.core.errors import InputError


def resolve_ref(value: Any) -> Any:
    """A declaration given as ``"module:ATTRIBUTE"`` (imported only when asked for), or the value itself."""
    if not isinstance(value, str):
        return value
    module, sep, name = value.partition(":")
    if not sep:
        raise InputError(f"declaration {value!r} must look like 'package.module:NAME'")
    return getattr(importlib.import_module(module), name)
