"""Forms generated from declared parameters: no game has form code of its own.

Every field is :func:`param_widget` of one :class:`~workbench.core.model.Param`:

* a parameter with choices → a dropdown (``(none)`` first when it is optional);
* a boolean → a checkbox;
* a number with a narrow declared range → a slider; a wide one → a bounded number box;
* text → a text box (empty = none for an optional one);

with the parameter's help and allowed values as the tooltip of its label (``title``: ipywidgets 8
shows no tooltip on a dropdown's or a text box's own label).  Reading the form validates every
value against its declaration; a wrong one is an :class:`~workbench.core.errors.InputError` naming
the field and what is allowed.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Any

from workbench.core.model import Param
from workbench.ui.common import require_widgets

__all__ = ["NONE", "Form", "field_label", "param_widget"]

NONE = "(none)"
SLIDER_SPAN = 200  # integer ranges up to this wide get a slider, wider ones a number box


def field_label(name: str) -> str:
    """How a field is named on the page and in messages: ``start_wall`` → ``start wall``."""
    return name.replace("_", " ")


def param_widget(param: Param, value: Any = None) -> Any:
    """The input widget for one declared parameter (tooltip: its help)."""
    w = require_widgets()
    value = param.default if value is None else value
    common = {"description": field_label(param.name), "tooltip": param.help,
              "style": {"description_width": "initial"}}
    if param.choices is not None:
        options = ([NONE] if param.optional else []) + list(param.choices)
        return w.Dropdown(options=options, value=NONE if value is None else value, **common)
    if param.kind is bool:
        return w.Checkbox(value=bool(value), indent=False, **common)
    bounded = param.low is not None and param.high is not None and math.isfinite(param.low) \
        and math.isfinite(param.high)
    if param.kind is int and not param.optional:
        if bounded and param.high - param.low <= SLIDER_SPAN:
            return w.IntSlider(value=int(value), min=int(param.low), max=int(param.high), **common)
        low = int(param.low) if param.low is not None else -(2**53)
        high = int(param.high) if param.high is not None else 2**53
        return w.BoundedIntText(value=int(value), min=low, max=high, **common)
    if param.kind is float and not param.optional and bounded and param.high - param.low <= 1000:
        return w.FloatSlider(value=float(value), min=param.low, max=param.high, step=(param.high - param.low) / 100,
                             readout_format=".3g", **common)
    return w.Text(value="" if value is None else str(value), placeholder="none" if param.optional else "", **common)


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
