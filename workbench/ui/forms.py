"""Forms generated from declared parameters: no game has form code of its own.

Every field is :func:`param_widget` of one :class:`~workbench.core.model.Param`:

* a parameter with choices → a dropdown (``(none)`` first when it is optional);
* a boolean → a checkbox;
* a number → a text box holding exactly what was typed, with a slider beside it (no number of its
  own: it only sets the box) when the declared range is narrow;
* text → a text box (empty = none for an optional one);

with the parameter's help and allowed values as the tooltip of its label (``title``: ipywidgets 8
shows no tooltip on a dropdown's or a text box's own label).  Nothing typed is ever changed: a
number box is no clamping widget, and every value is checked against its declaration
(``Param.validate``) as it is typed — a wrong one is refused in the field itself, in red, naming
the allowed range, and the message goes when the value is put right.  Reading the form refuses
every wrong field at once (one :class:`~workbench.core.errors.InputError` naming each).
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from typing import Any

from workbench.core.errors import InputError
from workbench.core.model import Param, value_names
from workbench.ui.common import require_widgets

__all__ = ["NONE", "Form", "close_tree", "field_label", "ignored_params", "param_widget", "refuse"]

NONE = "(none)"
SLIDER_SPAN = 200  # integer ranges up to this wide get a slider beside their box, wider ones the box alone


def field_label(name: str) -> str:
    """How a field is named on the page and in messages: ``start_wall`` → ``start wall``."""
    return name.replace("_", " ")


def ignored_params(study: Any, params: Sequence[Param]) -> set[str]:
    """Game parameters a study ignores: those its settings replace (``Study.replaces``) or share a name with."""
    own = {p.name for p in study.settings} | set(study.replaces)
    return {p.name for p in params if p.name in own}


def _number_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _has_slider(param: Param) -> bool:
    """Whether ``param``'s field has a slider beside its box: a number with a narrow finite range."""
    if param.optional or param.low is None or param.high is None or not (
            math.isfinite(param.low) and math.isfinite(param.high)):
        return False
    return (param.kind is int and param.high - param.low <= SLIDER_SPAN) or (
        param.kind is float and param.high - param.low <= 1000)


def _slider(param: Param, value: Any, **shared: Any) -> Any:
    """The slider of a field :func:`_has_slider` gives one (no readout: the box beside it is the value)."""
    w = require_widgets()
    start = value if isinstance(value, (int, float)) and param.low <= value <= param.high else param.low
    if param.kind is int:
        return w.IntSlider(value=int(start), min=int(param.low), max=int(param.high), readout=False, **shared)
    return w.FloatSlider(value=float(start), min=param.low, max=param.high, step=(param.high - param.low) / 100,
                         readout=False, **shared)


def _input_kind(param: Param) -> str:
    """Which input :func:`param_widget` makes for ``param``: ``"choice"``, ``"bool"`` or ``"text"``."""
    return "choice" if param.choices is not None else "bool" if param.kind is bool else "text"


def param_widget(param: Param, value: Any = None, **shared: Any) -> Any:
    """The input widget for one declared parameter (tooltip: its help); a number's is a text box.

    It has no description of its own (a form labels its fields beside them); ``shared``: a ``layout`` and
    ``style`` the widget takes instead of making its own (see :class:`Form`).
    """
    w = require_widgets()
    value = param.default if value is None else value
    common = {"tooltip": param.help, **shared}
    if param.choices is not None:
        names = value_names().get(param.name, {})  # a person reads "Siege of Ur"; the field's value stays the key
        options = ([(NONE, NONE)] if param.optional else []) + [(names.get(str(c), str(c)), c) for c in param.choices]
        return w.Dropdown(options=options, value=NONE if value is None else value, **common)
    if param.kind is bool:
        return w.Checkbox(value=bool(value), indent=False, **common)
    return w.Text(value=_number_text(value), placeholder="none" if param.optional else "", **common)


def close_tree(widget: Any) -> None:
    """Close ``widget`` and everything under it (children, layouts, styles), in the kernel and in the page.

    For a part of a page that is replaced (a study switch replaces its form): its widgets would otherwise stay in
    the kernel, and as models in the page, for the page's whole life.  Only for a tree nothing else shows: a
    layout or style shared with a widget outside it would go too.
    """
    seen: set[int] = set()
    stack = [widget]
    while stack:
        found = stack.pop()
        if found is None or id(found) in seen or not hasattr(found, "close"):
            continue
        seen.add(id(found))
        stack += [getattr(found, "layout", None), getattr(found, "style", None), *getattr(found, "children", ())]
        found.close()


def refuse(*forms: Form | None) -> None:
    """One InputError naming every refused field of ``forms`` at once (nothing when all are fine)."""
    wrong = [why for form in forms if form is not None for why in form.errors.values()]
    if len(wrong) == 1:
        raise InputError(wrong[0])
    if wrong:
        raise InputError(f"{len(wrong)} fields are refused — " + "; ".join(wrong))


class Form:
    """One widget per declared parameter, in declaration order, laid out in a grid; each checked as typed."""

    def __init__(self, params: Sequence[Param], values: dict[str, Any] | None = None, kind: str = "param",
                 hidden: set[str] | None = None) -> None:
        w = require_widgets()
        values = values or {}
        self.kind = kind
        self.fields: dict[str, tuple[Param, Any]] = {}
        self.errors: dict[str, str] = {}
        self._marks: dict[str, Any] = {}
        self._boxes: dict[str, Any] = {}
        self._listeners: list[Callable[[], None]] = []
        # Every field shares its form's layouts and styles (ipywidgets lets many widgets share one): each widget
        # is a model the kernel sends the page and the page builds, and a field that made its own was 14 of them
        # (its input, label, error line and two boxes, each with a layout and most with a style), 5 now (6 with a
        # slider).
        # (made when first used: one a form never uses would belong to no widget, and stay open when it is closed)
        roles = {"input": {"width": "auto", "flex": "1 1 auto"}, "beside": {"width": "90px", "flex": "0 0 90px"},
                 "label": {"width": "150px", "min_width": "150px"}, "slider": {"width": "45%"}, "mark": {},
                 "row": {"width": "100%", "align_items": "center"}, "box": {"width": "98%"}}
        made_layouts: dict[str, Any] = {}

        def layout(role: str) -> Any:
            if role not in made_layouts:
                made_layouts[role] = w.Layout(**roles[role])
            return made_layouts[role]

        styles: dict[str, Any] = {}  # one style per kind of input (a text box's, a dropdown's, a slider's …)

        def styled(make: Callable[..., Any], kind: str, *args: Any, layout: Any) -> Any:
            """``make(*args)`` with ``layout`` and the form's style for ``kind`` (the first of a kind makes it)."""
            found = styles.get(kind)
            made = make(*args, layout=layout, **({} if found is None else {"style": found}))
            styles.setdefault(kind, made.style)
            return made

        boxes = []
        for p in params:
            tip = f"{p.help} — allowed: {p.allowed()}" if p.help else f"allowed: {p.allowed()}"
            value = values.get(p.name)
            has_slider = _has_slider(p)
            widget = styled(param_widget, _input_kind(p), p, value,
                            layout=layout("beside" if has_slider else "input"))
            widget.tooltip = tip
            widget.add_class(f"wb-input-{p.name}")
            label = styled(w.HTML, "html", f'<span class="wb-label" title="{html.escape(tip)}">'
                           f"{html.escape(field_label(p.name))}</span>", layout=layout("label"))
            parts = [label, widget]
            if has_slider:
                slider = styled(_slider, f"{p.kind.__name__} slider", p, p.default if value is None else value,
                                layout=layout("slider"))
                parts = [label, slider, widget]
                self._link(p, slider, widget)
            mark = styled(w.HTML, "html", layout=layout("mark"))
            mark.add_class("wb-field-error")
            row = w.HBox(parts, layout=layout("row"))
            # a hidden box has a layout of its own: the shared one would hide every field
            box = w.VBox([row, mark], layout=w.Layout(width="98%", display="none") if p.name in (hidden or ())
                         else layout("box"))
            box.add_class("wb-field")
            box.add_class(f"wb-{kind}-{p.name}")
            self.fields[p.name] = (p, widget)
            self._marks[p.name], self._boxes[p.name] = mark, box
            widget.observe(lambda _, name=p.name: self._check(name), names="value")
            boxes.append(box)
        self.widget = w.GridBox(boxes, layout=w.Layout(
            grid_template_columns="repeat(auto-fill, minmax(360px, 1fr))", grid_gap="2px 12px", width="100%"))
        for name in self.fields:
            self._check(name)

    @staticmethod
    def _link(param: Param, slider: Any, box: Any) -> None:
        """The slider sets the box; a valid number typed in the box moves the slider (nothing is clamped).

        A float slider snaps a typed value to its step in the browser and sends the snapped value back
        (5 typed became 5.075): a value within half a step of the box's own is that echo, and the box
        keeps what was typed.
        """
        def from_slider(change: dict) -> None:
            text = _number_text(change["new"])
            if box.value == text:
                return
            if param.kind is float:
                try:
                    typed = param.validate(box.value)
                except InputError:
                    typed = None
                if typed is not None and abs(float(change["new"]) - typed) < slider.step / 2 + 1e-12:
                    return
            box.value = text

        def from_box(change: dict) -> None:
            try:
                value = param.validate(change["new"])
            except InputError:
                return
            if value is not None and slider.value != value:
                slider.value = value

        slider.observe(from_slider, names="value")
        box.observe(from_box, names="value")

    def __contains__(self, name: str) -> bool:
        return name in self.fields

    def _raw(self, name: str) -> Any:
        param, widget = self.fields[name]
        raw = widget.value
        if raw == NONE or (isinstance(raw, str) and not raw.strip() and param.optional):
            return None
        return raw

    def _check(self, name: str) -> None:
        """Check one field against its declaration; mark it (or clear its mark) in place."""
        self._check_own(name)
        for listener in self._listeners:
            listener()

    def _check_own(self, name: str) -> None:
        """The field's own declaration decides its mark (no listener is told)."""
        param, _ = self.fields[name]
        try:
            param.validate(self._raw(name), f"field {field_label(name)!r}")
        except InputError as exc:
            self._mark(name, str(exc))
        else:
            self.errors.pop(name, None)
            self._marks[name].value = ""
            self._boxes[name].remove_class("wb-field-bad")

    def _mark(self, name: str, why: str, kind: str = "") -> None:
        """Show ``why`` under the field and mark its box refused (``kind``: an extra class of the message)."""
        self.errors[name] = why
        self._marks[name].value = (f'<div class="wb-msg wb-msg-error wb-field-msg{kind}" '
                                   f'data-field="{html.escape(name)}">{html.escape(why)}</div>')
        self._boxes[name].add_class("wb-field-bad")

    def refuse_field(self, name: str, why: str) -> None:
        """Mark ``name`` refused by a check beyond its own declaration (the study's validator), in place.

        The mark goes when :meth:`clear_refused` is called or the field is edited and re-checked.
        """
        self._mark(name, why, " wb-study-refused")

    def clear_refused(self, name: str) -> None:
        """Take back :meth:`refuse_field`'s mark (the field's own check decides again)."""
        if name in self.fields:
            self._check_own(name)

    def on_check(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` after any field was checked (its errors are in :attr:`errors`)."""
        self._listeners.append(callback)

    def values(self) -> dict[str, Any]:
        """Every field validated against its declaration; every wrong one named in one InputError."""
        out, wrong = {}, []
        for name, (param, _) in self.fields.items():
            try:
                out[name] = param.validate(self._raw(name), f"field {field_label(name)!r}")
            except InputError as exc:
                wrong.append(str(exc))
        if wrong:
            raise InputError("; ".join(wrong) if len(wrong) == 1 else
                             f"{len(wrong)} fields are refused — " + "; ".join(wrong))
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
                widget.value = _number_text(value)
            else:
                widget.value = value

    def observe(self, callback: Any) -> None:
        """Call ``callback(change)`` whenever a field's value changes."""
        for _, widget in self.fields.values():
            widget.observe(callback, names="value")
