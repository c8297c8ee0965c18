"""Forms generated from declared parameters: no game has form code of its own.

Every field is :func:`workbench.ui.studies.param_widget` of one :class:`~workbench.core.model.Param`
— choices → a dropdown, a narrow numeric range → a slider, a wide one → a bounded number box, a
boolean → a checkbox, text → a text box — with the parameter's help and allowed values as the
tooltip of its label (``title``: ipywidgets 8 shows no tooltip on a dropdown's or a text box's own
label).  Reading the form validates every value against its declaration; a wrong one is an
:class:`~workbench.core.errors.InputError` naming the field and what is allowed.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from workbench.core.model import Param
from workbench.ui.common import require_widgets
from workbench.ui.studies import NONE, param_widget

__all__ = ["Form", "field_label"]


def field_label(name: str) -> str:
    """How a field is named on the page and in messages: ``start_wall`` → ``start wall``."""
    return name.replace("_", " ")


class Form:
    """One widget per declared parameter, in declaration order, laid out in a grid."""

    def __init__(self, params: Sequence[Param], values: dict[str, Any] | None = None, kind: str = "param") -> None:
        w = require_widgets()
        values = values or {}
        self.kind = kind
        self.fields: dict[str, tuple[Param, Any]] = {}
        boxes = []
        for p in params:
            tip = f"{p.help} — allowed: {p.allowed()}" if p.help else f"allowed: {p.allowed()}"
            widget = param_widget(p, values.get(p.name))
            widget.description, widget.tooltip = "", tip
            widget.layout = w.Layout(width="auto", flex="1 1 auto")
            label = w.HTML(f'<span class="wb-label" title="{html.escape(tip)}">{html.escape(field_label(p.name))}'
                           "</span>", layout=w.Layout(width="150px", min_width="150px"))
            box = w.HBox([label, widget], layout=w.Layout(width="98%", align_items="center"))
            box.add_class("wb-field")
            box.add_class(f"wb-{kind}-{p.name}")
            self.fields[p.name] = (p, widget)
            boxes.append(box)
        self.widget = w.GridBox(boxes, layout=w.Layout(
            grid_template_columns="repeat(auto-fill, minmax(360px, 1fr))", grid_gap="2px 12px", width="100%"))

    def __contains__(self, name: str) -> bool:
        return name in self.fields

    def values(self) -> dict[str, Any]:
        """Every field validated against its declaration (an InputError names the field)."""
        out = {}
        for name, (param, widget) in self.fields.items():
            raw = widget.value
            if raw == NONE or (isinstance(raw, str) and not raw.strip() and param.optional):
                raw = None
            out[name] = param.validate(raw, f"field {field_label(name)!r}")
        return out

    def changed(self) -> dict[str, Any]:
        """The validated values that differ from the declared defaults."""
        return {k: v for k, v in self.values().items() if v != self.fields[k][0].default}

    def set(self, **values: Any) -> None:
        """Set fields by name (``set(games=500, battlefield="free_steppe")``)."""
        for name, value in values.items():
            if name not in self.fields:
                raise KeyError(f"no field {name!r}; fields: {', '.join(self.fields)}")
            param, widget = self.fields[name]
            if value is None:
                widget.value = NONE if param.choices is not None else ""
            elif isinstance(widget.value, str) and param.choices is None:
                widget.value = str(value)
            else:
                widget.value = value

    def observe(self, callback: Any) -> None:
        """Call ``callback(change)`` whenever a field's value changes."""
        for _, widget in self.fields.values():
            widget.observe(callback, names="value")
