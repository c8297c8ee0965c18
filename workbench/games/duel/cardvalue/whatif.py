"""What-if comparisons for the duel: edited cards, battlefields or parameters on the same seeds.

A *what-if* plays the same games (same master seed, so the same game seeds: common random
numbers; core's :func:`workbench.core.design.cardtable.play_pair`, the what-if every card game uses) under
the unchanged baseline and under a variant — edited card costs/effects, edited battlefield rows, or
other parameter values — and reports every difference with its interval and significance.  Edited
data reach the engine as files: the edited CSV is written once to a cache directory under a name
made of its content hash (:func:`workbench.core.design.edits.edit_csv`), so the same edit is the same file
and the runs' ``params_hash`` changes exactly when the content does.

Outcome rates (first-seat win, seat wins, draw, an end reason) are compared pair by pair
(:func:`workbench.core.stats.compare.compare_outcomes`: McNemar's exact test on the paired games);
per-card rates of edited cards compare different seat-games and use the two-proportion test
(:func:`workbench.core.stats.cardstats.compare_card_rates`).  Auto-balance of any numeric parameter is
:func:`workbench.core.design.balance.auto_balance`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core.design.cardtable import play_pair
from workbench.core.design.edits import cache_dir, edit_csv
from workbench.core.errors import InputError
from workbench.core.present import charts
from workbench.core.stats.cardstats import compare_card_rates
from workbench.core.stats.compare import compare_outcomes
from workbench.games.duel.cardvalue.cardstats import card_rates
from workbench.games.duel.data import BATTLEFIELDS_CSV, CARDS_CSV, load_battlefields, load_cards
from workbench.games.duel.effects import ADD, DAMAGE, STEAL, Op, format_effect, format_op, parse_effect
from workbench.games.duel.model import MODEL

__all__ = ["WhatIf", "card_comparison", "edited_battlefields_csv", "edited_cards_csv", "effect_amounts", "what_if",
           "what_if_chart", "with_amounts"]


# -- edited data files --------------------------------------------------------------------------
def edited_cards_csv(edits: dict[str, dict[str, Any]], base: str | Path | None = None,
                     directory: Path | None = None) -> Path:
    """A cards CSV with ``edits`` applied, e.g. ``{"dragon": {"cost": 20}, "ruby": {"effect": "self.tower +6"}}``.

    Keys are card keys (or ids as strings); editable fields are the CSV's columns except ``id``
    and ``key``.  The file is validated by loading it, so a bad edit names the row and field.
    The copy goes to ``directory`` (default: the ``duel`` folder of the edits cache).
    """
    return edit_csv(base or CARDS_CSV, edits, key=("key", "id"), directory=directory or cache_dir("duel"),
                    stem="cards", validate=load_cards)


def edited_battlefields_csv(edits: dict[str, dict[str, Any]], base: str | Path | None = None,
                            directory: Path | None = None) -> Path:
    """A battlefields CSV with ``edits`` applied, e.g. ``{"crystal_garden": {"wall": 15}}``."""
    return edit_csv(base or BATTLEFIELDS_CSV, edits, key="key", directory=directory or cache_dir("duel"),
                    stem="battlefields", validate=load_battlefields)


# -- what-if ------------------------------------------------------------------------------------
@dataclass
class WhatIf:
    """A finished what-if: both frames, the outcome comparison and the edited cards' rates."""

    baseline: pl.DataFrame
    variant: pl.DataFrame
    outcomes: pl.DataFrame
    cards: pl.DataFrame
    params_base: dict[str, Any] = field(default_factory=dict)
    params_variant: dict[str, Any] = field(default_factory=dict)


def card_comparison(baseline: pl.DataFrame, variant: pl.DataFrame, keys: Sequence[str], cards_base: Any,
                    cards_variant: Any, alpha: float = 0.05) -> pl.DataFrame:
    """Win rate when drawn / played of the cards ``keys`` in both arms, with the two-proportion test."""
    if not keys:
        return pl.DataFrame()
    return compare_card_rates(card_rates(baseline, cards_base), card_rates(variant, cards_variant), keys, on="key",
                              alpha=alpha)


def _variant_params(params: dict[str, Any], changes: dict[str, Any] | None, card_edits: dict | None,
                    battlefield_edits: dict | None, directory: Path | None) -> dict[str, Any]:
    out = {**params, **(changes or {})}
    if card_edits:
        out["cards"] = str(edited_cards_csv(card_edits, params.get("cards"), directory))
    if battlefield_edits:
        out["battlefields"] = str(edited_battlefields_csv(battlefield_edits, params.get("battlefields"), directory))
    MODEL.resolve_params(out)
    return out


def what_if(params: dict[str, Any] | None = None, *, changes: dict[str, Any] | None = None,
            card_edits: dict[str, dict[str, Any]] | None = None,
            battlefield_edits: dict[str, dict[str, Any]] | None = None,
            agents: Sequence[str] | None = None, games: int = 2000, seed: int = 0,
            engine: str | None = None, workers: int = 1, alpha: float = 0.05, directory: Path | None = None,
            on_progress: Callable[[int, int], None] | None = None,
            should_stop: Callable[[], bool] | None = None) -> WhatIf:
    """Play baseline and variant on the same seeds and compare them.

    The pair is played by core's :func:`~workbench.core.design.cardtable.play_pair`.

    ``params``: the baseline parameters (e.g. ``{"battlefield": "free_steppe"}``); ``changes``:
    parameter overrides of the variant (e.g. ``{"start_wall": 20}``); ``card_edits`` /
    ``battlefield_edits``: edited data rows (see :func:`edited_cards_csv`).  Stopped while the
    baseline plays, :class:`~workbench.core.errors.RunInterrupted` carries its games; stopped later,
    the games both arms finished are compared.
    """
    params = dict(params or {})
    MODEL.resolve_params(params)
    agents = tuple(agents) if agents else (MODEL.tiers[0],) * 2  # the game's default tier, never random unless named
    variant = _variant_params(params, changes, card_edits, battlefield_edits, directory)
    if variant == params:
        raise InputError("the what-if changes nothing; give changes, card_edits or battlefield_edits")
    base_frame, var_frame, _ = play_pair(MODEL, params, variant, games=games, agents=list(agents), seed=seed,
                                         workers=workers, engine=engine, on_progress=on_progress,
                                         should_stop=should_stop)
    outcomes = compare_outcomes(base_frame, var_frame, alpha)
    cards_base = load_cards(params.get("cards") or CARDS_CSV)
    cards_var = load_cards(variant.get("cards") or CARDS_CSV)
    cards = card_comparison(base_frame, var_frame, list((card_edits or {}).keys()), cards_base, cards_var, alpha)
    return WhatIf(base_frame, var_frame, outcomes, cards, params, variant)


def what_if_chart(result: WhatIf | pl.DataFrame, title: str = "What-if: variant − baseline") -> Any:
    """The outcome differences with intervals, coloured by significance.

    The first seat is plotted as its score (a draw counts half) beside the draws; its win share (draws
    as losses) stays in the table, not in the chart, so the chart shows one first-seat measure.
    """
    table = result.outcomes if isinstance(result, WhatIf) else result
    if "first_seat_score" in table["metric"].to_list():
        table = table.filter(pl.col("metric") != "first_seat_win")
    return charts.delta_chart(table, "metric", title=title, x_title="variant − baseline")


# -- editing a card's amounts (for sliders) -----------------------------------------------------
def effect_amounts(text: str) -> list[tuple[str, int]]:
    """The numeric amounts of an effect in reading order, each with its operation's text."""
    effect = parse_effect(text)
    out = []
    for st in effect.statements:
        for op in (*st.then, *st.orelse):
            if op.kind in (ADD, DAMAGE, STEAL):
                out.append((format_op(op), abs(op.amount)))
    return out


def with_amounts(text: str, amounts: Sequence[int]) -> str:
    """The effect ``text`` with its amounts (as listed by :func:`effect_amounts`) replaced; signs kept."""
    effect = parse_effect(text)
    values = iter(int(a) for a in amounts)

    def swap(op: Op) -> Op:
        if op.kind not in (ADD, DAMAGE, STEAL):
            return op
        new = next(values, abs(op.amount))
        if new < 0:
            raise InputError(f"amount of {format_op(op)!r} must be >= 0, got {new}")
        return op._replace(amount=-new if op.amount < 0 else new)

    statements = tuple(st._replace(then=tuple(map(swap, st.then)), orelse=tuple(map(swap, st.orelse)))
                       for st in effect.statements)
    return format_effect(effect._replace(statements=statements))
