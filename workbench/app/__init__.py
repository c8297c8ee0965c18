"""The studio: every registered game's studies, card editor, lessons and earlier runs as a served page.

``make app`` (``python -m workbench.app``, ``serve.py``) serves ``studio.ipynb`` with Voilà on
127.0.0.1; the page is :class:`~workbench.app.studio.Studio`, built only from the registry and the
games' declarations — the app holds no code of any one game.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Studio"]


def __getattr__(name: str) -> Any:
    if name == "Studio":  # imported when asked for: the launcher needs no widgets
        from workbench.app.studio import Studio

        return Studio
    raise AttributeError(name)
