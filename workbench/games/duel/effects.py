"""The card effect language of the tower duel (documented for designers in data/duel/EFFECTS.md).

An effect is a list of statements separated by ``;``, run left to right::

    effect    := statement (";" statement)*
    statement := "if" cond "then" ops ["else" ops]  |  ops
    ops       := op ("&" op)*
    op        := WHO "." STAT ("+" | "-") N        gain / lose (losses clamp at 0)
               | WHO ".damage" N                   ordinary damage: wall first, the rest to the tower
               | ("self" | "enemy") "." STAT "=" ("self" | "enemy") "." STAT    become equal
               | "swap." STAT                      your STAT and the enemy's change places
               | "steal." RESOURCE N               enemy loses N (clamped), you gain half of the loss
               | "again"                           play again (one more action, no production)
               | "draw_discard"                    draw a card, then discard any card of the hand
    cond      := ("self"|"enemy") "." STAT CMP (("self"|"enemy") "." STAT | N)     CMP: < <= > >= == !=
    WHO       := self | enemy | all (both, you first) | everyone (both; the `lightning` variant makes
                 it the enemy only) | lower_wall (the player with the strictly lower wall; equal
                 walls: both, or nobody under the `groundwater` variant)
    STAT      := tower | wall | mines | monasteries | barracks | ore | mana | troops

A condition is evaluated once, when its statement is reached.  ``again`` and ``draw_discard``
stand as statements of their own (never inside ``if``).  Parsing returns immutable tuples; the
fast kernel compiles the same tuples into integer tables.
"""

from __future__ import annotations

import re
from typing import NamedTuple

STATS = ("tower", "wall", "mines", "monasteries", "barracks", "ore", "mana", "troops")
RESOURCES = ("ore", "mana", "troops")
COLOURS = {"red": "ore", "blue": "mana", "green": "troops"}
WHOS = ("self", "enemy", "all", "everyone", "lower_wall")
CMPS = ("<", "<=", ">", ">=", "==", "!=")
MAX_AMOUNT = 999

ADD, DAMAGE, SET, SWAP, STEAL = "add", "damage", "set", "swap", "steal"


class Op(NamedTuple):
    """One effect operation.  ``amount`` is signed for ``add``; ``src_*`` are for ``set``."""

    kind: str
    who: str = ""
    stat: str = ""
    amount: int = 0
    src_who: str = ""
    src_stat: str = ""


class Cond(NamedTuple):
    """``who.stat CMP rhs`` where rhs is ``rhs_who.rhs_stat`` or the constant ``rhs_const``."""

    who: str
    stat: str
    cmp: str
    rhs_who: str = ""
    rhs_stat: str = ""
    rhs_const: int = 0


class Statement(NamedTuple):
    """A possibly conditional group of operations."""

    cond: Cond | None
    then: tuple[Op, ...]
    orelse: tuple[Op, ...] = ()


class Effect(NamedTuple):
    """A parsed card effect: the statements plus the two turn-flow flags."""

    statements: tuple[Statement, ...]
    again: bool = False
    draw_discard: bool = False


class EffectSyntaxError(ValueError):
    """The effect text does not parse; the message says what was expected."""


_NUM = r"(\d+)"
_STAT = "(" + "|".join(STATS) + ")"
_RE_ADD = re.compile(r"^(" + "|".join(WHOS) + r")\." + _STAT + r"\s*([+-])\s*" + _NUM + "$")
_RE_DAMAGE = re.compile(r"^(" + "|".join(WHOS) + r")\.damage\s+" + _NUM + "$")
_RE_SET = re.compile(r"^(self|enemy)\." + _STAT + r"\s*=\s*(self|enemy)\." + _STAT + "$")
_RE_SWAP = re.compile(r"^swap\." + _STAT + "$")
_RE_STEAL = re.compile(r"^steal\.(" + "|".join(RESOURCES) + r")\s+" + _NUM + "$")
_RE_IF = re.compile(r"^if\s+(.+?)\s+then\s+(.+?)(?:\s+else\s+(.+))?$")
_RE_COND = re.compile(r"^(self|enemy)\." + _STAT + r"\s*(<=|>=|==|!=|<|>)\s*"
                      r"(?:(self|enemy)\." + _STAT + "|" + _NUM + ")$")


def _amount(text: str, where: str) -> int:
    value = int(text)
    if value > MAX_AMOUNT:
        raise EffectSyntaxError(f"{where}: amount {value} is above the maximum {MAX_AMOUNT}")
    return value


def parse_op(text: str) -> Op:
    """Parse one operation (see the module docstring for the forms)."""
    t = " ".join(text.split())
    if m := _RE_ADD.match(t):
        amount = _amount(m[4], t)
        return Op(ADD, m[1], m[2], amount if m[3] == "+" else -amount)
    if m := _RE_DAMAGE.match(t):
        return Op(DAMAGE, m[1], "", _amount(m[2], t))
    if m := _RE_SET.match(t):
        if m[1] == m[3]:
            raise EffectSyntaxError(f"{t!r}: 'become equal' needs one side self and the other enemy")
        return Op(SET, m[1], m[2], 0, m[3], m[4])
    if m := _RE_SWAP.match(t):
        return Op(SWAP, "", m[1])
    if m := _RE_STEAL.match(t):
        return Op(STEAL, "enemy", m[1], _amount(m[2], t))
    raise EffectSyntaxError(
        f"cannot read operation {t!r}; expected WHO.STAT +N / -N, WHO.damage N, side.STAT = side.STAT, "
        f"swap.STAT, steal.RESOURCE N, again or draw_discard (WHO: {', '.join(WHOS)}; STAT: {', '.join(STATS)})"
    )


def parse_cond(text: str) -> Cond:
    """Parse ``self.mines < enemy.mines`` or ``enemy.wall > 10``."""
    t = " ".join(text.split())
    m = _RE_COND.match(t)
    if not m:
        raise EffectSyntaxError(f"cannot read condition {t!r}; expected side.STAT CMP side.STAT or side.STAT CMP N "
                                f"(side: self|enemy; CMP: {' '.join(CMPS)})")
    if m[4]:
        return Cond(m[1], m[2], m[3], m[4], m[5], 0)
    return Cond(m[1], m[2], m[3], "", "", _amount(m[6], t))


def _parse_ops(text: str) -> tuple[Op, ...]:
    parts = [p.strip() for p in text.split("&")]
    if any(p in ("again", "draw_discard") for p in parts):
        raise EffectSyntaxError(f"{text!r}: 'again' and 'draw_discard' must be statements of their own")
    return tuple(parse_op(p) for p in parts)


def parse_effect(text: str) -> Effect:
    """Parse a whole effect string into an :class:`Effect`."""
    if not isinstance(text, str) or not text.strip():
        raise EffectSyntaxError("the effect is empty; write at least one operation (e.g. 'self.wall +3')")
    statements: list[Statement] = []
    again = draw = False
    for raw in text.split(";"):
        part = " ".join(raw.split())
        if not part:
            raise EffectSyntaxError(f"empty statement in {text!r} (two ';' in a row?)")
        if part == "again":
            if again:
                raise EffectSyntaxError("'again' appears twice")
            again = True
        elif part == "draw_discard":
            if draw:
                raise EffectSyntaxError("'draw_discard' appears twice")
            draw = True
        elif m := _RE_IF.match(part):
            orelse = _parse_ops(m[3]) if m[3] else ()
            statements.append(Statement(parse_cond(m[1]), _parse_ops(m[2]), orelse))
        elif part.startswith("if "):
            raise EffectSyntaxError(f"cannot read {part!r}; expected 'if COND then OPS [else OPS]'")
        else:
            statements.append(Statement(None, _parse_ops(part)))
    return Effect(tuple(statements), again, draw)


def format_op(op: Op) -> str:
    """The canonical text of an operation (inverse of :func:`parse_op`)."""
    if op.kind == ADD:
        return f"{op.who}.{op.stat} {'+' if op.amount >= 0 else '-'}{abs(op.amount)}"
    if op.kind == DAMAGE:
        return f"{op.who}.damage {op.amount}"
    if op.kind == SET:
        return f"{op.who}.{op.stat} = {op.src_who}.{op.src_stat}"
    if op.kind == SWAP:
        return f"swap.{op.stat}"
    return f"steal.{op.stat} {op.amount}"


def format_effect(effect: Effect) -> str:
    """The canonical text of an effect; ``parse_effect(format_effect(e)) == e``."""
    parts = []
    for st in effect.statements:
        body = " & ".join(map(format_op, st.then))
        if st.cond is None:
            parts.append(body)
            continue
        c = st.cond
        rhs = f"{c.rhs_who}.{c.rhs_stat}" if c.rhs_who else str(c.rhs_const)
        text = f"if {c.who}.{c.stat} {c.cmp} {rhs} then {body}"
        if st.orelse:
            text += " else " + " & ".join(map(format_op, st.orelse))
        parts.append(text)
    if effect.draw_discard:
        parts.append("draw_discard")
    if effect.again:
        parts.append("again")
    return "; ".join(parts)
