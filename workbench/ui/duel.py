"""Tower duel dashboards (ipywidgets + altair) over the library functions the CLI and report use.

* :class:`BattlefieldDashboard` — battlefields, decks, agents, games, seed, miss rates and
  battlefield numbers; Run plays :func:`workbench.games.duel.analysis.run_grid` in the
  background and shows the balance tables, first-seat win rates, lengths and end reasons, split
  by miss rate when several are run.
* :class:`CardDashboard` — the static value model (table and cost-vs-value chart), and a what-if
  for one card: sliders for its cost and every amount of its effect; Run compares the edited card
  set with the unchanged one on the same seeds.

Widgets only collect parameters; everything they show comes from ``workbench.games.duel``.  Each
Run replaces what the dashboard showed; tables read like the report's (a rate with its interval,
``52.3% [51.3–53.3]``).  A value typed wrong is named in the status line with what is allowed.
"""

from __future__ import annotations

import html
from typing import Any

import polars as pl

from workbench.core.cardstats import empirical_values
from workbench.core.compare import compare_cells
from workbench.core.errors import InputError, RunInterrupted
from workbench.core.report import display_frame
from workbench.games.duel import analysis, cardstats, valuation, whatif
from workbench.games.duel.agents import AGENTS
from workbench.games.duel.data import load_cards
from workbench.games.duel.model import BATTLEFIELD_KEYS, BATTLEFIELD_OVERRIDES, MODEL
from workbench.games.duel.report import card_rate_intervals, first_seat_chart, seat_win_table, split_balance
from workbench.ui.common import RunPanel, ShownTable, display_into, error_text, offline_charts, require_widgets

__all__ = ["BattlefieldDashboard", "CardDashboard"]

_OVERRIDE_PARAMS = tuple(n if n.startswith("win_") else f"start_{n}" for n in BATTLEFIELD_OVERRIDES)
_FAST_AGENTS = MODEL.fast_agents  # the what-if plays many games: agents with a compiled twin
offline_charts()


def _label(name: str) -> str:
    """How error messages name a form field: ``start_wall`` → ``field 'start wall'``."""
    return f"field {name.replace('_', ' ')!r}"


def _chosen(values: tuple[str, ...], name: str, allowed: tuple[str, ...]) -> list[str]:
    """The picks of a multiple-choice field; none picked is an error, not "all"."""
    if not values:
        raise InputError(f"{_label(name)}: choose at least one; allowed: {', '.join(allowed)}")
    return list(values)


def _miss_rates(text: str) -> list[float]:
    """The comma-separated miss rates of the text box, each validated as the model's ``miss_rate``."""
    param, rates = MODEL.param("miss_rate"), []
    for part in (x.strip() for x in (text or "").replace(";", ",").split(",")):
        if part:
            rate = param.validate(part, _label("miss_rates"))
            if rate in rates:
                raise InputError(f"{_label('miss_rates')}: {part!r} is given twice; list each miss rate once")
            rates.append(rate)
    return rates or [0.0]


def _own(text: str) -> str | None:
    """A battlefield-number box: empty (or "own") means the battlefield's own number."""
    text = (text or "").strip()
    return None if text.lower() in ("", "own", "-", "none") else text


def _with_miss(frame: pl.DataFrame, column: str) -> pl.DataFrame:
    """``column`` labelled with the miss rate ("regular · miss 0.2") when the frame holds several."""
    if "miss_rate" not in frame.columns or frame.get_column("miss_rate").n_unique() < 2:
        return frame
    return frame.with_columns(pl.format("{} · miss {}", column, "miss_rate").alias(column))


def _show_error(panel: RunPanel, output: Any, exc: BaseException) -> None:
    """A failed or stopped run: say so in the status line and in place of the results."""
    text = f"stopped: {exc}" if isinstance(exc, RunInterrupted) else f"error: {error_text(exc)}"
    panel.status.value = f"<span style='color:#c00'>{html.escape(text)}</span>"
    display_into(output, text)


class BattlefieldDashboard:
    """Controls → :func:`analysis.run_grid` in a background thread → table and charts."""

    def __init__(self, games: int = 2000, seed: int = 0, battlefields: list[str] | None = None,
                 decks: tuple[str, ...] = ("regular", "unlimited"), agents: tuple[str, str] = ("greedy", "greedy"),
                 miss_rates: tuple[float, ...] = (0.0,), engine: str | None = None) -> None:
        w = require_widgets()
        self.engine = engine
        self.battlefields = w.SelectMultiple(options=BATTLEFIELD_KEYS, value=tuple(battlefields or BATTLEFIELD_KEYS),
                                             description="battlefields", rows=8)
        self.decks = w.SelectMultiple(options=("regular", "unlimited"), value=tuple(decks), description="decks", rows=2)
        self.agent_p1 = w.Dropdown(options=AGENTS, value=agents[0], description="agent p1")
        self.agent_p2 = w.Dropdown(options=AGENTS, value=agents[1], description="agent p2")
        self.games = w.BoundedIntText(value=games, min=1, max=10_000_000, description="games/cell")
        self.seed = w.BoundedIntText(value=seed, min=0, max=2**62, description="seed")
        self.miss_rates = w.Text(value=", ".join(str(m) for m in miss_rates), description="miss rates")
        self.overrides = {p: w.Text(value="", placeholder="own", description=p.replace("_", " "),
                                    layout=w.Layout(width="210px")) for p in _OVERRIDE_PARAMS}
        self.compare = w.Checkbox(value=False, description="what-if: compare with each battlefield's own numbers",
                                  indent=False, layout=w.Layout(width="420px"))
        self.panel = RunPanel(self._task, on_done=self._show,
                              on_error=lambda exc: _show_error(self.panel, self.output, exc))
        self.output = w.Output()
        self.frame: pl.DataFrame | None = None
        self.comparison: pl.DataFrame | None = None
        numbers = list(self.overrides.values())
        self.widget = w.VBox([
            w.HBox([self.battlefields, w.VBox([self.decks, self.agent_p1, self.agent_p2]),
                    w.VBox([self.games, self.seed, self.miss_rates])]),
            w.HTML("<b>battlefield numbers</b> (empty: each battlefield's own)"),
            w.HBox(numbers[:5]), w.HBox(numbers[5:]), self.compare,
            self.panel.widget, self.output])

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    # -- the library call ---------------------------------------------------------------------
    def settings(self) -> dict[str, Any]:
        """The run's arguments as read from the widgets; a wrong value raises an InputError naming the field."""
        battlefields = _chosen(self.battlefields.value, "battlefields", BATTLEFIELD_KEYS)
        decks = _chosen(self.decks.value, "decks", self.decks.options)
        rates = _miss_rates(self.miss_rates.value)
        params = {p: MODEL.param(p).validate(_own(box.value), _label(p)) for p, box in self.overrides.items()}
        return {"battlefields": battlefields, "decks": decks,
                "pairings": [(self.agent_p1.value, self.agent_p2.value)], "games": int(self.games.value),
                "seed": int(self.seed.value), "params": {k: v for k, v in params.items() if v is not None},
                "extra": {"miss_rate": rates} if len(rates) > 1 else None,
                "miss_rate": rates[0] if len(rates) == 1 else None}

    def _task(self, on_progress: Any, should_stop: Any) -> tuple[pl.DataFrame, pl.DataFrame | None]:
        s = self.settings()
        base = {"miss_rate": s["miss_rate"]} if s["miss_rate"] else {}
        arms = [{**base, **s["params"]}]
        if self.compare.value and s["params"]:
            arms.insert(0, base)  # the baseline: each battlefield's own numbers, same seeds
        frames = []
        for i, params in enumerate(arms):
            def progress(done: int, total: int, i: int = i) -> None:
                on_progress(i * total + done, len(arms) * total)

            frames.append(analysis.run_grid(s["battlefields"], s["decks"], s["pairings"], s["games"], s["seed"],
                                            params=params, extra=s["extra"], engine=self.engine,
                                            block=max(200, s["games"] // 5), on_progress=progress,
                                            should_stop=should_stop))
        keys = list(analysis.CELL_KEYS) + (["miss_rate"] if s["extra"] else [])
        comparison = compare_cells(frames[0], frames[1], keys, common_games=True) if len(frames) == 2 else None
        return frames[-1], comparison

    def run(self, wait: bool = False) -> pl.DataFrame | None:
        """Press Run (``wait=True``: block until done and return the frame)."""
        self.panel.run(wait=wait)
        return self.frame if wait else None

    # -- results ------------------------------------------------------------------------------
    def _by(self) -> list[str]:
        """The cell keys of the last run: battlefield, deck, pairing, and the miss rate when several ran."""
        if self.frame is None:
            raise RuntimeError("no results yet: press Run (or call run(wait=True))")
        return list(analysis.CELL_KEYS) + (["miss_rate"] if self.frame.get_column("miss_rate").n_unique() > 1 else [])

    def table(self) -> pl.DataFrame:
        """The balance table of the last run (by battlefield, deck, pairing and miss rate), raw numbers."""
        return analysis.balance_table(self.frame, self._by())

    def tables(self) -> dict[str, pl.DataFrame]:
        """The last run's tables as shown (and as the report shows them): rates with their intervals.

        ``rates``: games, each agent's win rate when the two agents differ, the first seat's, draws,
        length; ``end reasons``: the share of each way a game ended; ``what-if``: edited − own
        numbers (with "compare").
        """
        by = self._by()
        seats = self.frame.filter(pl.col("agent_p1") != pl.col("agent_p2"))
        rates, ends = split_balance(self.table(), seat_win_table(self.frame, by) if seats.height else None)
        out = {"rates": display_frame(rates), "end reasons": display_frame(ends)}
        if self.comparison is not None:
            out["what-if"] = display_frame(self.comparison)
        return out

    def charts(self) -> list[Any]:
        """First-seat win rates, length histogram, end reasons (and the miss-rate effect if run).

        Like :meth:`table`, every chart keeps the miss rates apart.
        """
        by = self._by()
        out = [first_seat_chart(self.table()),
               analysis.length_chart(_with_miss(self.frame, "battlefield")),
               analysis.end_reason_chart(_with_miss(self.frame, "deck"))]
        if "miss_rate" in by:
            out.append(analysis.miss_effect_chart(analysis.miss_effect_table(self.frame)))
        if self.comparison is not None:
            data = _with_miss(self.comparison, "deck")
            data = data.with_columns(pl.concat_str(
                [pl.col(c).cast(pl.String) for c in ("battlefield", "deck") if c in data.columns],
                separator=" / ").alias("cell"))
            out.append(whatif.what_if_chart(data.with_columns(pl.col("cell").alias("metric")),
                                            title="What-if: first-seat win rate, edited − own numbers"))
        return out

    def _items(self) -> list[Any]:
        items: list[Any] = [f"{self.frame.height:,} games"]
        items += [ShownTable(table, name) for name, table in self.tables().items()]
        return items + self.charts()

    def _show(self, result: tuple[pl.DataFrame, pl.DataFrame | None]) -> None:
        self.frame, self.comparison = result
        display_into(self.output, *self._items())

    def display_results(self) -> None:
        """Show the last run's tables and charts in the cell itself (a headless or exported notebook)."""
        _display_here(self._items())


def _display_here(items: list[Any]) -> None:
    from IPython.display import display

    for item in items:
        print(item) if isinstance(item, str) else display(item)


class CardDashboard:
    """Static value model + a one-card what-if with cost and amount sliders."""

    def __init__(self, card: str = "exchange", battlefield: str = "crystal_garden", games: int = 2000, seed: int = 0,
                 agents: tuple[str, str] = ("greedy", "greedy"), engine: str | None = None) -> None:
        w = require_widgets()
        self.w, self.engine = w, engine
        self.cards = load_cards()
        self.model = valuation.fit_value_model(self.cards)
        self.costing = valuation.costing_table(self.cards, self.model)
        self.card = w.Dropdown(options=[(f"{c.name_en} ({c.colour} {c.cost})", c.key) for c in self.cards.cards],
                               value=card, description="card")
        self.cost = w.IntSlider(min=0, max=40, description="cost")
        self.amount_box = w.VBox()
        self.effect = w.HTML()
        self.battlefield = w.Dropdown(options=BATTLEFIELD_KEYS, value=battlefield, description="battlefield")
        self.agent_p1 = w.Dropdown(options=_FAST_AGENTS, value=agents[0], description="agent p1")
        self.agent_p2 = w.Dropdown(options=_FAST_AGENTS, value=agents[1], description="agent p2")
        self.games = w.BoundedIntText(value=games, min=10, max=10_000_000, description="games")
        self.seed = w.BoundedIntText(value=seed, min=0, max=2**62, description="seed")
        self.panel = RunPanel(self._task, on_done=self._show, label="Run what-if",
                              on_error=lambda exc: _show_error(self.panel, self.output, exc))
        self.output = w.Output()
        self.result: whatif.WhatIf | None = None
        self.card.observe(lambda _: self._load_card(), names="value")
        self.cost.observe(lambda _: self._preview(), names="value")
        self._load_card()
        self.widget = w.VBox([
            w.HBox([w.VBox([self.card, self.cost, self.amount_box, self.effect]),
                    w.VBox([self.battlefield, self.agent_p1, self.agent_p2, self.games, self.seed])]),
            self.panel.widget, self.output])

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    # -- the edited card ----------------------------------------------------------------------
    def _load_card(self) -> None:
        c = self.cards.by_key(self.card.value)
        self.cost.max = max(40, 2 * c.cost)
        self.cost.value = c.cost
        sliders = []
        for text, amount in whatif.effect_amounts(c.effect_text):
            s = self.w.IntSlider(value=amount, min=0, max=max(20, 3 * amount), description=text,
                                 style={"description_width": "150px"}, layout=self.w.Layout(width="420px"))
            s.observe(lambda _: self._preview(), names="value")
            sliders.append(s)
        self.amount_box.children = tuple(sliders)
        self._preview()

    def edit(self) -> dict[str, dict[str, Any]]:
        """The card edit the sliders describe (empty when nothing changed)."""
        c = self.cards.by_key(self.card.value)
        effect = whatif.with_amounts(c.effect_text, [s.value for s in self.amount_box.children])
        change: dict[str, Any] = {}
        if self.cost.value != c.cost:
            change["cost"] = int(self.cost.value)
        if effect != whatif.with_amounts(c.effect_text, [a for _, a in whatif.effect_amounts(c.effect_text)]):
            change["effect"] = effect
        return {c.key: change} if change else {}

    def _preview(self) -> None:
        c = self.cards.by_key(self.card.value)
        value = self.costing.filter(pl.col("key") == c.key).get_column("value").item()
        edit = self.edit().get(c.key, {})
        self.effect.value = (f"<b>{c.name_en}</b>: {edit.get('effect', c.effect_text)} — cost "
                             f"{edit.get('cost', c.cost)} (printed {c.cost}; static value {value:.1f})")

    # -- static view --------------------------------------------------------------------------
    def value_table(self, n: int = 10) -> pl.DataFrame:
        """The ``n`` most over- and ``n`` most under-costed cards of the static model."""
        cols = ["key", "name_en", "colour", "cost", "value", "residual", "effect"]
        return pl.concat([self.costing.head(n), self.costing.tail(n)]).select(cols)

    def value_chart(self, frame: pl.DataFrame | None = None) -> Any:
        """Cost against value: the static model, plus the empirical view of ``frame`` (a result frame)."""
        rates = empirical_values(cardstats.card_rates(frame, self.cards)) if frame is not None else \
            pl.DataFrame(schema={"key": pl.String, "name_en": pl.String, "colour": pl.String, "cost": pl.Int64,
                                 "emp_value": pl.Float64, "emp_residual": pl.Float64})
        return cardstats.cost_value_chart(cardstats.cost_value_frame(self.costing, rates))

    # -- the what-if --------------------------------------------------------------------------
    def _task(self, on_progress: Any, should_stop: Any) -> whatif.WhatIf:
        edit = self.edit()
        if not edit:
            raise InputError("move the cost or an amount slider first: the what-if changes nothing yet")
        return whatif.what_if({"battlefield": self.battlefield.value}, card_edits=edit,
                              agents=(self.agent_p1.value, self.agent_p2.value), games=int(self.games.value),
                              seed=int(self.seed.value), engine=self.engine, on_progress=on_progress,
                              should_stop=should_stop)

    def run(self, wait: bool = False) -> whatif.WhatIf | None:
        """Press Run what-if (``wait=True``: block until done and return the result)."""
        return self.panel.run(wait=wait)

    def charts(self) -> list[Any]:
        """The what-if deltas and the cost-vs-value chart with the baseline games' empirical view."""
        if self.result is None:
            raise RuntimeError("no what-if yet: move a slider and press Run what-if")
        return [whatif.what_if_chart(self.result), self.value_chart(self.result.baseline)]

    def tables(self) -> dict[str, pl.DataFrame]:
        """The what-if's tables as shown (and as the report shows them): rates with their intervals."""
        if self.result is None:
            raise RuntimeError("no what-if yet: move a slider and press Run what-if")
        outcomes = self.result.outcomes.select(
            "metric", "n", *(c for name in ("base", "variant") for c in (name, f"{name}_low", f"{name}_high")),
            "diff", "low", "high", "p_value", "significant")
        return {"outcomes": display_frame(outcomes), "card": display_frame(card_rate_intervals(self.result.cards))}

    def _items(self) -> list[Any]:
        items: list[Any] = [f"{self.result.baseline.height:,} games per arm, same seeds"]
        items += [ShownTable(table, name) for name, table in self.tables().items()]
        return items + self.charts()

    def _show(self, result: whatif.WhatIf) -> None:
        self.result = result
        display_into(self.output, *self._items())

    def display_results(self) -> None:
        """Show the what-if's tables and charts in the cell itself (a headless or exported notebook)."""
        _display_here(self._items())
