"""The duel's declared studies (``MODEL.studies`` names ``STUDIES``) and its default study.

* ``battlefields``: first-seat win rate (Wilson interval, n), each agent's win rate when the two
  differ, draws, game length and end reasons per battlefield × deck × agent pairing, every cell on
  the same master seed; several miss rates add the duel timer's miss-rule effect, and "compare"
  plays each battlefield's own numbers beside the edited ones (the game parameters) on the same
  seeds;
* ``cards``: card cost-efficiency two ways — the static value model (exchange rates, the most over-
  and under-costed cards) and, from played games, each card's empirical rates;
* ``whatif``: card edits (``exchange.cost=12; ruby.effect=self.tower +9``) against the unchanged
  cards on the same seeds: every outcome's change (paired test) and the edited cards' own rates;
* ``default_study``: every battlefield × deck × first seat, greedy vs greedy — the benchmark's and
  report's headline grid.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import polars as pl

from workbench.core.design.cardtable import card_table, changed_cells, read_cards
from workbench.core.errors import InputError
from workbench.core.model import GameModel, Param
from workbench.core.sim.runner import check_games
from workbench.core.sim.sweep import run_grid
from workbench.core.stats.cardstats import costed_lists, empirical_values
from workbench.core.stats.compare import compare_cells
from workbench.core.studies.study import Partial, Study
from workbench.games.duel import analysis
from workbench.games.duel.cardvalue import cardstats, valuation, whatif
from workbench.games.duel.data import load_cards
from workbench.games.duel.model import BATTLEFIELD_KEYS, BATTLEFIELD_OVERRIDES, MODEL
from workbench.games.duel.report import card_rate_intervals, first_seat_chart, seat_win_table, with_score

Progress = Callable[[int, int], None] | None
Stop = Callable[[], bool] | None
Tables = dict[str, pl.DataFrame]
NUMBERS = tuple(n if n.startswith("win_") else f"start_{n}" for n in BATTLEFIELD_OVERRIDES)  # a battlefield's own


def _choices(text: str, allowed: tuple[str, ...], what: str) -> list[str]:
    """``"all"`` or a comma list, each checked; at least one."""
    items = list(allowed) if text.strip() == "all" else [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise InputError(f"choose at least one {what}; allowed: all, {', '.join(allowed)}")
    bad = [t for t in items if t not in allowed]
    if bad:
        raise InputError(f"unknown {what} {bad[0]!r}; allowed: all, {', '.join(allowed)}")
    return items


def _pairings(text: str) -> list[tuple[str, ...]]:
    """``"greedy,greedy; greedy,random"`` → one agent pairing per ``;``-separated item."""
    pairings = [tuple(a.strip() for a in item.split(",")) for item in text.split(";") if item.strip()]
    if not pairings:
        raise InputError("setting 'agents': give at least one pairing, e.g. greedy,greedy")
    return pairings


def _miss_rates(model: GameModel, text: str | None) -> list[float]:
    """The comma-separated miss rates of the setting, each validated as the game's ``miss_rate``."""
    param, rates = model.param("miss_rate"), []
    for part in (x.strip() for x in (text or "").split(",")):
        if part:
            rate = param.validate(part, "setting 'miss_rates'")
            if rate in rates:
                raise InputError(f"setting 'miss_rates': {part!r} is given twice; list each miss rate once")
            rates.append(rate)
    return rates


# -- battlefields ------------------------------------------------------------------------------------
def _battlefields(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
                  on_progress: Progress, should_stop: Stop, on_partial: Partial | None = None) -> Tables:
    fields = _choices(settings["battlefields"], BATTLEFIELD_KEYS, "battlefield")
    decks = _choices(settings["decks"], ("regular", "unlimited"), "deck")
    pairings = _pairings(settings["agents"])
    rates = _miss_rates(model, settings["miss_rates"])
    fixed = {k: v for k, v in params.items() if k not in ("battlefield", "deck") and v != model.param(k).default}
    if len(rates) > 1:
        fixed.pop("miss_rate", None)
    elif rates:
        fixed["miss_rate"] = rates[0]
    extra = {"miss_rate": rates} if len(rates) > 1 else None
    arms = [fixed]
    own = {k: v for k, v in fixed.items() if k not in NUMBERS}
    if settings["compare"]:
        if own == fixed:
            raise InputError("setting 'compare': no battlefield number is changed; set one of "
                             f"{', '.join(NUMBERS)} to compare it with each battlefield's own")
        arms.insert(0, own)  # the baseline: each battlefield's own numbers, on the same seeds
    frames = []
    by = [*analysis.CELL_KEYS, *(["miss_rate"] if extra else [])]
    for i, arm in enumerate(arms):
        def progress(done: int, total: int, i: int = i) -> None:
            if on_progress is not None:
                on_progress(i * total + done, len(arms) * total)

        # the edited arm streams its cells (a baseline's tables would read as the edited ones)
        last = i == len(arms) - 1 and on_partial is not None
        frames.append(analysis.run_grid(
            fields, decks, pairings, settings["games"], seed, params=arm, extra=extra, workers=workers,
            on_progress=progress, should_stop=should_stop,
            on_partial=(lambda tables, done, total, i=i: on_partial(tables, i * total + done, len(arms) * total))
            if last else None, tables=lambda part: battlefield_tables(part, by, bool(extra))))
    tables = battlefield_tables(frames[-1], by, bool(extra))
    if len(frames) == 2:
        tables["what_if"] = compare_cells(frames[0], frames[1], by, common_games=True)
    return tables


def battlefield_tables(frame: pl.DataFrame, by: list[str], miss_rule: bool = False) -> Tables:
    """The battlefields study's tables of ``frame`` per cell ``by``: first seat, length, end reasons, seat wins."""
    tables = {"first_seat": with_score(analysis.balance_table(frame, by), frame, by),  # a draw counts half
              "length": analysis.length_table(frame, by),
              "end_reasons": analysis.end_reason_table(frame, by)}
    if frame.filter(pl.col("agent_p1") != pl.col("agent_p2")).height:
        tables["seat_wins"] = seat_win_table(frame, by)
    if miss_rule and frame.get_column("miss_rate").n_unique() > 1:
        tables["miss_rule"] = analysis.miss_effect_table(frame)
    return tables | {"games": frame}


def _battlefields_size(settings: dict[str, Any], _params: dict[str, Any]) -> int:
    """Games of a battlefields run: games × battlefields × decks × pairings (× miss rates) (× 2 arms to compare)."""
    cells = (len(_choices(settings["battlefields"], BATTLEFIELD_KEYS, "battlefield"))
             * len(_choices(settings["decks"], ("regular", "unlimited"), "deck")) * len(_pairings(settings["agents"]))
             * max(1, len(_miss_rates(MODEL, settings["miss_rates"]))))
    return settings["games"] * cells * (2 if settings["compare"] else 1)


def _with_miss(frame: pl.DataFrame, column: str) -> pl.DataFrame:
    """``column`` labelled with the miss rate ("regular · miss 0.2") when the frame holds several."""
    if "miss_rate" not in frame.columns or frame.get_column("miss_rate").n_unique() < 2:
        return frame
    return frame.with_columns(pl.format("{} · miss {}", column, "miss_rate").alias(column))


def _battlefield_charts(tables: Tables) -> dict[str, Any]:
    """First-seat rates, lengths and end reasons (every one keeping the miss rates apart); the miss rule; what-if."""
    frame = tables["games"]
    out = {"first_seat": first_seat_chart(tables["first_seat"]),
           "length": analysis.length_chart(_with_miss(frame, "battlefield")),
           "end_reasons": analysis.end_reason_chart(_with_miss(frame, "deck"))}
    if "miss_rule" in tables:
        out["miss_rule"] = analysis.miss_effect_chart(tables["miss_rule"])
    if "what_if" in tables:
        data = _with_miss(tables["what_if"], "deck")
        parts = ["battlefield", "deck"] + (["pairing"] if data.get_column("pairing").n_unique() > 1 else [])
        cell = pl.concat_str([pl.col(c).cast(pl.String) for c in parts], separator=" / ")
        out["what_if"] = whatif.what_if_chart(data.with_columns(cell.alias("metric")),
                                              title="What-if: first-seat win rate, edited − own numbers")
    return out


# -- cards ---------------------------------------------------------------------------------------------
def card_tables(frame: pl.DataFrame | None, cards: str | None = None, lists: int = 10) -> Tables:
    """The static value model and, given played games, each card's empirical rates, side by side."""
    pool = load_cards(cards) if cards else load_cards()
    model = valuation.fit_value_model(pool)
    costing = valuation.costing_table(pool, model)
    rates = empirical_values(cardstats.card_rates(frame, pool)) if frame is not None else None
    views = cardstats.cost_value_frame(costing, rates if rates is not None else _no_rates(), outliers=lists)
    out = {"value_model": model.rates_frame().with_columns(pl.lit(model.r2).alias("r2"),
                                                           pl.lit(model.rmse).alias("rmse"),
                                                           pl.lit(model.n).alias("cards")),
           "costed": costed_lists(views, lists) if rates is not None else pl.concat(
               [costing.head(lists), costing.tail(lists)]).select("key", "name_en", "colour", "cost", "value",
                                                                    "residual", "effect"),
           "static": costing, "views": views}
    return out | ({"rates": rates.sort("iwd", descending=True, nulls_last=True)} if rates is not None else {})


def _no_rates() -> pl.DataFrame:
    return pl.DataFrame(schema={"key": pl.String, "name_en": pl.String, "colour": pl.String, "cost": pl.Int64,
                                "emp_value": pl.Float64, "emp_residual": pl.Float64})


def _cards(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
           on_progress: Progress, should_stop: Stop) -> Tables:
    frame = None
    if settings["games"]:
        fixed = {k: v for k, v in params.items() if k not in ("battlefield", "deck") and v != model.param(k).default}
        fields = _choices(settings["battlefields"], BATTLEFIELD_KEYS, "battlefield")
        frame = analysis.run_grid(fields, [params.get("deck", "regular")], _pairings(settings["agents"]),
                                  settings["games"], seed, params=fixed, workers=workers, on_progress=on_progress,
                                  should_stop=should_stop)
    return card_tables(frame, params.get("cards"), settings["lists"]) | ({"games": frame} if frame is not None else {})


def _card_charts(tables: Tables) -> dict[str, Any]:
    return {"cost_vs_value": cardstats.cost_value_chart(tables["views"])}


# -- what-if -------------------------------------------------------------------------------------------
def parse_edits(text: str, columns: tuple[str, ...]) -> dict[str, dict[str, str]]:
    """``"exchange.cost=12; ruby.effect=self.tower +9"`` → ``{"exchange": {"cost": "12"}, ...}``.

    An effect may hold ``;`` itself: a ``;`` starts the next edit only before ``CARD.column=``.
    """
    split = re.compile(rf";\s*(?=[A-Za-z0-9_]+\.(?:{'|'.join(columns)})\s*=)")
    edits: dict[str, dict[str, str]] = {}
    for piece in filter(str.strip, split.split(text or "")):
        head, eq, value = piece.partition("=")
        card, dot, column = head.strip().partition(".")
        if not (eq and dot and card and column.strip() in columns):
            raise InputError(f"setting 'edits': {piece.strip()!r} is not CARD.column=value (CARD: its key; "
                             f"columns: {', '.join(columns)}), e.g. exchange.cost=12")
        edits.setdefault(card.strip(), {})[column.strip()] = value.strip()
    if not edits:
        raise InputError("setting 'edits': the what-if changes nothing; give CARD.column=value, e.g. exchange.cost=12")
    return edits


def edit_table(result: whatif.WhatIf, edits: dict[str, dict[str, str]]) -> pl.DataFrame:
    """One row per edited cell: the card, the column, before and after, and the card's static value both ways.

    Both values come from the value model fitted to the unchanged cards, so they show what the edit
    does to the card in the model's eyes.
    """
    before = load_cards(result.params_base.get("cards")) if result.params_base.get("cards") else load_cards()
    after = load_cards(result.params_variant["cards"])
    model = valuation.fit_value_model(before)
    values = [dict(zip(t.get_column("key"), t.get_column("value"), strict=True))
              for t in (valuation.costing_table(before, model), valuation.costing_table(after, model))]
    rows = []
    for key, change in edits.items():
        old, new = before.by_key(key), after.by_key(key)
        for column in change:
            rows.append({"key": old.key, "name_en": old.name_en, "column": column,
                         "before": str(old.cost if column == "cost" else old.effect_text),
                         "after": str(new.cost if column == "cost" else new.effect_text),
                         "value_before": values[0][old.key], "value_after": values[1][old.key]})
    return pl.DataFrame(rows)


def _whatif(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
            on_progress: Progress, should_stop: Stop) -> Tables:
    table = card_table(model)
    edits = changed_cells(table, read_cards(table, params.get("cards")), parse_edits(settings["edits"], table.editable))
    if not edits:
        raise InputError("setting 'edits': the what-if changes nothing — every value given is the card's own")
    (agents,) = _pairings(settings["agents"])
    base = {k: v for k, v in params.items() if v != model.param(k).default}
    result = whatif.what_if(base, card_edits=edits, agents=agents, games=settings["games"], seed=seed,
                            workers=workers, on_progress=on_progress, should_stop=should_stop)
    games = pl.concat([result.baseline.with_columns(pl.lit("baseline").alias("arm")),
                       result.variant.with_columns(pl.lit("variant").alias("arm"))], how="diagonal_relaxed")
    return {"edits": edit_table(result, edits), "outcomes": result.outcomes,
            "card": card_rate_intervals(result.cards), "games": games}


def _whatif_charts(tables: Tables) -> dict[str, Any]:
    """The outcome differences, and cost against value with the baseline games' empirical view."""
    baseline = tables["games"].filter(pl.col("arm") == "baseline")
    return {"what_if": whatif.what_if_chart(tables["outcomes"]),
            "cost_vs_value": _card_charts(card_tables(baseline))["cost_vs_value"]}


AGENTS = Param("agents", "greedy,greedy", str, "the pairing, one agent per seat (e.g. greedy,random); several "
               "pairings separated by ';' (greedy,greedy; greedy,random)")
STUDIES = (
    Study("battlefields", "First-seat advantage per battlefield, deck and pairing", _battlefields, (
        Param("games", 2000, int, "games per battlefield × deck × pairing (× miss rate)", 1, 10**8),
        Param("battlefields", "all", str, f"'all' or a comma list of: {', '.join(BATTLEFIELD_KEYS)}"),
        Param("decks", "regular,unlimited", str, "'all' or a comma list of: regular, unlimited"),
        AGENTS,
        Param("miss_rates", None, str, "several miss rates of the duel timer, comma-separated (e.g. 0, 0.1, 0.25): "
              "every cell is played at each and the miss rule's effect is shown against the lowest; none: the game "
              "parameter miss rate", optional=True),
        Param("compare", False, bool, "what-if of the battlefield numbers: also play each battlefield's own numbers "
              "on the same seeds and show edited − own (set a start or win number below)"),
    ), _battlefield_charts, "Every cell on the same master seed (common random numbers); the game parameters set "
       "everything else (miss rate, variants, levers, a battlefield's numbers).", size=_battlefields_size,
       replaces=("battlefield", "deck")),
    Study("cards", "Card cost-efficiency two ways: static value model and empirical per-card rates", _cards, (
        Param("games", 2000, int, "games per battlefield (0: the static value model alone)", 0, 10**8),
        Param("battlefields", "all", str, f"'all' or a comma list of: {', '.join(BATTLEFIELD_KEYS)}"),
        Param("agents", "greedy,greedy", str, "the pairing, one agent per seat"),
        Param("lists", 10, int, "cards in each over- / under-costed list", 1, 51),
    ), _card_charts, "Static: least-squares exchange rates from a card's effects to its cost (one intercept per "
       "colour). Empirical: win rate when drawn / played, play rate and improvement when drawn, per card, from the "
       "games on the chosen battlefields (the game parameters' deck).",
       size=lambda settings, _params: settings["games"] * len(_choices(settings["battlefields"], BATTLEFIELD_KEYS,
                                                                       "battlefield")),
       replaces=("battlefield",)),
    Study("whatif", "What-if: edited cards against the unchanged ones on the same seeds", _whatif, (
        Param("edits", "exchange.cost=12", str, "card edits CARD.column=value separated by ';' (CARD: its key; "
              "columns: cost, effect), e.g. exchange.cost=12; ruby.effect=self.tower +9"),
        Param("games", 2000, int, "games per arm (the same games in both: common random numbers)", 10, 10**8),
        Param("agents", "greedy,greedy", str, "the pairing, one agent per seat"),
    ), _whatif_charts, "Both arms on the same seeds: every outcome's change with McNemar's exact paired test; the "
       "edited cards' own rates with the two-proportion test; their static value before and after.",
       size=lambda settings, _params: 2 * settings["games"]),
)


def default_study(games_per_seating: int = 10_000, workers: int = 2, seed: int = 0,
                  agents: tuple[str, str] = ("greedy", "greedy")) -> pl.DataFrame:
    """Every battlefield × deck type × first seat, greedy vs greedy, in one frame.

    Core's grid runner on the fast engine: all 32 cells' chunks on ``workers`` threads (the
    kernel runs without the GIL), so no worker process is started.
    """
    games = check_games(games_per_seating)
    grid = {"battlefield": list(BATTLEFIELD_KEYS), "deck": ["regular", "unlimited"], "first": ["p1", "p2"]}
    return run_grid("duel", grid, games, agents=list(agents), seed=seed, workers=workers, engine="fast",
                    chunk_size=-(-games // 4), progress=False)


# -- the verdicts core's ``verdicts`` study gives (GameModel.verdicts) -------------------------------------------
def verdict_sources(model: GameModel, params: dict[str, Any]) -> list[Any]:
    """The first seat on every battlefield (the deck as set), and each card's cost flag over those games pooled."""
    from workbench.core.studies.verdicts import cost_flag_source, first_seat_source

    cells = [(b, {**params, "battlefield": b}) for b in BATTLEFIELD_KEYS]
    shown = {b: model.choice_label("battlefield", b) for b in BATTLEFIELD_KEYS}
    cards = load_cards()

    def rates(frame: pl.DataFrame, alpha: float) -> pl.DataFrame:
        return cardstats.card_rates(frame, cards, alpha=alpha)

    return [first_seat_source(cells, "first seat", shown),
            cost_flag_source(cells, rates, len(cards), key="key", name="name_en")]
