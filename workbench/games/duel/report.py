"""The duel balance report: ``workbench report duel --out reports/duel/`` (and ``make report``).

Sections: battlefield balance (first seat score, draws, length, end reasons per battlefield ×
deck × pairing), the miss rule's effect, card cost-efficiency in both views (static value model
and empirical rates) side by side, a what-if example and an auto-balance search.  Every run is
seeded; the header states rules version, seed, games and agents.  ``quick=True`` uses tiny
samples (for tests); the default needs the fast engine for its 10,000 games per cell.  The full
report is sized for ``make report`` (every report within about 8 minutes on 2 cores): the greedy
tier of the skill section reuses the battlefield section's games (the same seeds: the same games),
the search tier plays its floor of 20 games on the battlefields the fast tiers call least fair
(:data:`SEARCH_BATTLEFIELDS` of them), and the last section states every step's size, its real
seconds and what a bigger run would decide.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core.design.balance import auto_balance, balance_chart
from workbench.core.design.readings import add_report_section as add_readings_section
from workbench.core.design.rebalance import add_report_section as add_rebalance_section
from workbench.core.present import charts
from workbench.core.present.report import Report
from workbench.core.present.summary import rebalance_changes, tier_findings
from workbench.core.skill.tiers import (
    Tier,
    cost_flags_by_tier,
    cost_flags_section,
    first_seat_scores,
    first_seat_table,
    play_by_tier,
    report_section,
    report_tiers,
)
from workbench.core.stats import metrics
from workbench.core.stats.cardstats import costed_lists, empirical_values
from workbench.core.stats.rates import rate_table, wilson_exprs
from workbench.games.duel import analysis
from workbench.games.duel.cardvalue import cardstats, valuation, whatif
from workbench.games.duel.data import load_cards
from workbench.games.duel.model import BATTLEFIELD_KEYS, MODEL

__all__ = ["FIRST_SEAT_TITLE", "FULL", "QUICK", "Settings", "build_report", "card_rate_intervals",
           "first_seat_chart", "seat_win_table", "split_balance"]


@dataclass(frozen=True)
class Settings:
    """Sample sizes of one report build."""

    main_games: int  # per battlefield × deck cell, greedy vs greedy
    other_games: int  # per cell for the other pairings
    miss_games: int  # per battlefield × miss rate (regular deck, greedy)
    whatif_games: int
    balance_games: int  # per auto-balance evaluation
    balance_evals: int
    battlefields: tuple[str, ...]
    other_pairings: tuple[tuple[str, str], ...]
    miss_rates: tuple[float, ...]
    engine: str | None
    workers: int
    search_tier: bool = True  # the declared search tier too (its small sample: core.skill.tiers.Tier.games)
    search_battlefields: int = 2  # the search tier's battlefields: the ones the fast tiers call least fair


# sized for make report (issue 38): 10,000 games a cell read a first seat to ±1 point; a search game costs ~18,000
# greedy ones (20 a battlefield on 2 battlefields: about 40 s on 2 cores)
FULL = Settings(10_000, 2_000, 2_000, 10_000, 5_000, 6, BATTLEFIELD_KEYS,
                (("random", "random"), ("greedy", "random")), (0.0, 0.1, 0.25), None, 2)
QUICK = Settings(60, 30, 40, 150, 150, 3, ("grand_wizards_fortress", "crystal_garden", "free_steppe"),
                 (("random", "random"), ("greedy", "random")), (0.0, 0.25), None, 1, search_tier=False)

WHATIF_CARD = "exchange"
BALANCE = ("second_bonus_wall", 0, 30, "crystal_garden")

FIRST_SEAT_TITLE = "First seat score, a draw counting half (95 % Wilson interval)"
RATE_COLUMNS = ("games", "first_seat_score", "draws", "first_seat_p", "length_mean", "length_median")
SEAT_RATE_COLUMNS = ("games", "p1_win", "p2_win", "first_seat_score", "draws")  # length: see the length table


# the report-sized rebalance (full report, sized for make report): three racing stages of 320, 1,280 and 5,120 games a
# battlefield at both fast tiers within 600,000 games, search and held-out check together, the held-out check at the
# fast tiers for the best two proposals (1,000,000 games with the search tier's held-out games took 5.2 min of a
# 7.6-min report on a busy 2-core machine, the last minute on 8 search games); the full search replays search too
REBALANCE_SIZES = {"budget": 600_000, "games": 320, "stages": 3, "verify": 2, "tiers": "greedy,greedy@tuned"}

BIGGER = {  # what a bigger run of each step would decide (the sizes section's last column)
    "battlefields greedy": "40,000 games a cell halve each interval "
                           "(`workbench study duel battlefields --games 40000`)",
    "battlefields other pairings": "more games narrow the other pairings' rates",
    "miss rule": "more games show smaller effects of the miss rule as significant",
    "cards": "more battlefield games narrow each card's empirical view",
    "what-if": "more games show a smaller change as significant (`workbench study duel whatif`)",
    "auto-balance": "more games a value pin the bonus between two values",
    "tiers": "the search tier on every battlefield, with the games its *games needed* column says "
             "(`workbench study duel skill --by battlefield --games N`)",
    "tiers: card flags": "more games per tier flag more cards (Bonferroni over every card)",
    "readings": "more games show smaller changes of a verdict (`workbench study duel readings --games N`)",
    "rebalance": "the full search (`workbench rebalance duel`, 8 M games, four stages) reads ±0.35 point and "
                 "replays the search tier on held-out seeds",
}

def _with_interval(columns: list[str], table: pl.DataFrame) -> list[str]:
    """``columns`` with the ``_low``/``_high`` columns of each rate that has them, in table order."""
    return [c for name in columns for c in (name, f"{name}_low", f"{name}_high") if c in table.columns]


def seat_win_table(frame: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Each seat's win rate per cell: ``p1_win``, ``p2_win`` with intervals (the agents of "greedy vs random")."""
    out = None
    for seat in ("p1", "p2"):
        rates = rate_table(frame, by, pl.col("winner") == seat).select(
            *by, pl.col("rate").alias(f"{seat}_win"), pl.col("low").alias(f"{seat}_win_low"),
            pl.col("high").alias(f"{seat}_win_high"))
        out = rates if out is None else out.join(rates, on=by, how="left")
    return out


def split_balance(table: pl.DataFrame, seats: pl.DataFrame | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A balance table as two tables narrow enough for a page: the rates, and how games end.

    Rates: games, the first seat's score (a draw counts half), draws, the p-value of its wins against its
    losses, mean and median length — or, given
    ``seats`` (:func:`seat_win_table`), each agent's win rate beside the first seat's and draws.
    Ends: the share of each end reason (``end_tower_built`` → ``tower_built``).  A pairing column
    holding one pairing only is left out (the caption names it).
    """
    keys = [c for c in (*analysis.CELL_KEYS, "miss_rate") if c in table.columns]
    if seats is not None:
        table = table.join(seats, on=keys, how="left")
    shown = [k for k in keys if k != "pairing" or table.get_column(k).n_unique() > 1]
    rates = table.select(*shown, *_with_interval(list(SEAT_RATE_COLUMNS if seats is not None else RATE_COLUMNS), table))
    ends = [c for c in table.columns if c.startswith("end_") and not c.endswith(("_low", "_high"))]
    return rates, table.select(*shown, "games", *(pl.col(c).alias(c[4:]) for c in _with_interval(ends, table)))


def with_score(table: pl.DataFrame, frame: pl.DataFrame, by: list[str] | None = None) -> pl.DataFrame:
    """A balance table (cells ``by``) with the first seat's score and its interval, from the same games.

    The score counts a win as 1 and a draw as half; the table's ``draws`` stand beside it.
    """
    keys = [c for c in (by if by is not None else (*analysis.CELL_KEYS, "miss_rate")) if c in table.columns]
    scores = metrics.first_mover(frame, keys).select(*keys, "first_seat_score", "first_seat_score_low",
                                                     "first_seat_score_high")
    return table.join(scores, on=keys, how="left") if keys else pl.concat([table, scores], how="horizontal")


def first_seat_chart(table: pl.DataFrame, title: str = FIRST_SEAT_TITLE) -> Any:
    """First seat scores per battlefield, by deck, one panel per pairing (and per miss rate).

    The rate axis is zoomed to the intervals with the 50 % line shown: the cells differ by a few
    points, which an axis from 0 squashes onto one line.
    """
    panels = [c for c in ("pairing", "miss_rate") if c in table.columns and table.get_column(c).n_unique() > 1]
    facet = panels[0] if len(panels) == 1 else None
    if len(panels) == 2:
        table = table.with_columns(pl.format("{} / miss {}", "pairing", "miss_rate").alias("panel"))
        facet = "panel"
    return charts.rate_chart(table, "battlefield", rate="first_seat_score", low="first_seat_score_low",
                             high="first_seat_score_high", n="games",
                             color="deck" if "deck" in table.columns else None,
                             facet=facet, title=title, y_title="first seat score", zoom=True)


def card_rate_intervals(cards: pl.DataFrame) -> pl.DataFrame:
    """A card comparison with the Wilson interval of each arm's rate (``base_low`` .. ``variant_high``)."""
    if cards.is_empty():
        return cards
    extra = []
    for arm in ("base", "variant"):
        k, n = (pl.col(arm) * pl.col(f"n_{arm}")).round().cast(pl.Int64), pl.col(f"n_{arm}")
        low, high = wilson_exprs(k, n)
        extra += [low.alias(f"{arm}_low"), high.alias(f"{arm}_high")]
    order = [c for name in cards.columns
             for c in ((name, f"{name}_low", f"{name}_high") if name in ("base", "variant") else (name,))]
    return cards.with_columns(extra).select(order)


def _tiers_section(rep: Report, s: Settings, seed: int, main: pl.DataFrame) -> None:
    """Each battlefield's first-seat verdict and each card's cost flag (regular deck) at the declared tiers.

    One set of games serves both: every declared tier on every battlefield, the same seeds at each tier.
    The greedy tier's games are the battlefield section's own (greedy vs greedy on the regular deck, the
    same master seed: the same games); the search tier plays a small sample (``Tier.games``: 20 games a
    battlefield) on the ``s.search_battlefields`` battlefields whose first seat the strongest fast tier
    reads farthest from 50 %, so its verdicts may read *undecided: play more*; the quick report plays
    the fast tiers only.
    """
    tiers = report_tiers(MODEL, s.search_tier)
    fast, slow = [t for t in tiers if not t.slow], [t for t in tiers if t.slow]
    cells = [{"battlefield": b, "deck": "regular"} for b in s.battlefields]
    keep = [f"{kind}_{seat}" for kind in ("drawn", "played") for seat in ("p1", "p2")]
    label = lambda p: MODEL.choice_label("battlefield", p["battlefield"])  # noqa: E731
    shared = [t for t in fast if t.agent == "greedy"]  # the battlefield section played these games already
    regular = main.filter((pl.col("deck") == "regular") & (pl.col("pairing") == "greedy vs greedy"))
    played: dict[str, dict[str, pl.DataFrame]] = {t.label: {label(c): regular.filter(
        pl.col("battlefield") == c["battlefield"]) for c in cells} for t in shared}
    played |= rep.timed("tiers", f"duel report: tiers ({', '.join(t.label for t in tiers)})", _play_tiers,
                        s, seed, [t for t in fast if t not in shared], slow, cells, label, keep,
                        step_games=f"{s.main_games:,} games a battlefield at a fast tier (greedy's are the "
                                   f"battlefield section's); the search tier's floor of 20 games on "
                                   f"{s.search_battlefields if s.search_tier else 0} battlefields",
                        step_bigger=BIGGER["tiers"])
    searched = sorted({c for t in slow for c in played.get(t.label, {})})
    report_section(rep, "battlefield_tiers", first_seat_table(tiers, played),
                   "Is each battlefield's verdict settled across skill levels?",
                   "The first seat's score per battlefield (regular deck), played at the declared tiers: the "
                   "hand-tuned greedy agent (the battlefield section's games), the self-tuned one (`workbench tune "
                   "duel`, tuned on Crystal Garden)"
                   + (f" and the search agent on a small sample, on the {len(searched)} battlefields the strongest "
                      f"fast tier reads least fair ({', '.join(searched)}); the others are measured at the fast "
                      "tiers only." if s.search_tier else "; the quick report leaves the search tier out."),
                   s.main_games)
    tier_findings(rep, "battlefield_tiers", "First seat score on {cell}")
    cards = load_cards()

    def rates(frame: pl.DataFrame, alpha: float) -> pl.DataFrame:
        return cardstats.card_rates(frame, cards, alpha=alpha).with_columns(pl.col("name_en").alias("card"))

    flags = _timed(rep, "tiers: card flags", cost_flags_by_tier, tiers, played, rates, len(cards))
    cost_flags_section(rep, "card_flags_tiers", flags, "Are the cards' cost flags settled across skill levels?",
                       f"Each card's empirical view (as in *Card cost-efficiency*) from the same games, pooled over "
                       f"the {len(cells)} battlefields (the search tier's over the battlefields it played).",
                       s.main_games * len(cells))
    tier_findings(rep, "card_flags_tiers", "The card {card}, beyond its cost", value="beyond_cost", n="wr_drawn_n",
                  top=2)


def _play_tiers(s: Settings, seed: int, fast: list[Tier], slow: list[Tier], cells: list[dict[str, Any]],
                label: Any, keep: list[str]) -> dict[str, dict[str, pl.DataFrame]]:
    """The fast tiers on every battlefield, then the search tiers on the least fair ones by the strongest fast tier."""
    played = play_by_tier(MODEL, fast, cells, s.main_games, seed=seed, workers=s.workers, label=label, keep=keep) \
        if fast else {}
    if slow and s.search_battlefields > 0:
        strongest = played[fast[-1].label] if fast else {}
        far = sorted(cells, key=lambda c: -abs(first_seat_scores(strongest[label(c)])["rate"].item() - 0.5)
                     if label(c) in strongest else 0)[:s.search_battlefields]
        played |= play_by_tier(MODEL, slow, far, s.main_games, seed=seed, workers=s.workers, label=label, keep=keep)
    return played


def _timed(rep: Report, name: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
    """One step of the build: its progress line, its real seconds in the header and the sizes section."""
    return rep.timed(name, f"duel report: {name}", fn, *args, step_bigger=BIGGER.get(name, ""), **kwargs)


def _played(rep: Report, s: Settings, name: str, size: str, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
    """A step that plays games (``size`` says how many) on the report's engine and workers: :func:`_timed`."""
    return _timed(rep, name, fn, *args, engine=s.engine, workers=s.workers, step_games=size, **kwargs)


def _battlefield_section(rep: Report, s: Settings, seed: int) -> pl.DataFrame:
    main = _played(rep, s, "battlefields greedy", f"{s.main_games:,} games a battlefield and deck", analysis.run_grid,
                   s.battlefields, ("regular", "unlimited"), (("greedy", "greedy"),), s.main_games, seed)
    other = _played(rep, s, "battlefields other pairings", f"{s.other_games:,} games a battlefield, deck and pairing",
                    analysis.run_grid, s.battlefields, ("regular", "unlimited"), s.other_pairings, s.other_games, seed)
    table = with_score(analysis.balance_table(main), main)
    rates, ends = split_balance(table)
    rep.section("Battlefield balance",
                f"Greedy against greedy, {s.main_games:,} games per battlefield and deck type, the first seat "
                f"drawn at random each game, every cell on master seed {seed} (common random numbers). "
                "The first seat's score counts a win as 1 and a draw as half over *all* games, with the share of "
                "games drawn beside it; `first_seat_p` is the exact binomial test of its wins against its losses; "
                "intervals are 95 % Wilson intervals.")
    rep.text(_first_seat_summary(table))
    rep.table("battlefields_greedy", rates, caption="First seat score, draws and length (player turns) per "
                                                    "battlefield and deck, greedy vs greedy")
    rep.table("battlefields_greedy_ends", ends, caption="How games end: the share of each end reason per "
                                                        "battlefield and deck, greedy vs greedy")
    rep.chart("first_seat_greedy", first_seat_chart(table), caption="First seat score, greedy vs greedy "
                                                                    "(axis zoomed to the data; dashed: 50 %)")
    rep.chart("length_greedy", analysis.length_chart(main.filter(pl.col("deck") == "regular")),
              caption="Game length per battlefield (regular deck, greedy vs greedy)")
    rep.chart("end_reasons_greedy", analysis.end_reason_chart(main), caption="How games end, greedy vs greedy")
    other_table = with_score(analysis.balance_table(other), other)
    other_rates, other_ends = split_balance(other_table, seat_win_table(other, list(analysis.CELL_KEYS)))
    rep.text(f"Other agent pairings, {s.other_games:,} games per cell. A pairing names the agent in seat p1 "
             "first (in *greedy vs random* greedy sits in p1); `p1_win` and `p2_win` are each agent's win "
             "rate (the draws beside them), while which seat moves first is still drawn at random each game; the "
             "first seat's score counts a draw as half.")
    rep.table("battlefields_other", other_rates, caption="Each agent's win rate and the first seat's score, per "
                                                         "battlefield, deck and pairing")
    rep.table("battlefields_other_ends", other_ends, caption="How games end, other pairings")
    rep.chart("first_seat_other", first_seat_chart(other_table), caption="First seat score, other pairings")
    rep.table("length_all", analysis.length_table(pl.concat([main, other], how="diagonal_relaxed")),
              caption="Game length quantiles per cell (player turns)")
    return main


def _worst_card() -> str:
    """The card valuation the timer uses: the value model once the engine offers it, else cost."""
    choices = MODEL.param("worst_card").choices or ()
    return "value" if "value" in choices else MODEL.param("worst_card").default


def _first_seat_summary(table: pl.DataFrame) -> str:
    """One sentence on the spread of the first seat's score (a draw counts half) over the cells."""
    rows = table.sort("first_seat_score").to_dicts()
    favoured = sum(1 for r in rows if r["first_seat_score_low"] > 0.5)

    def cell(r: dict[str, Any]) -> str:
        return (f"{r['battlefield']} / {r['deck']}: {100 * r['first_seat_score']:.1f} % "
                f"[{100 * r['first_seat_score_low']:.1f}–{100 * r['first_seat_score_high']:.1f}], draws "
                f"{100 * r['draws']:.1f} %")

    return (f"The first seat is favoured (its score's interval above 50 %, a draw counting half) in {favoured} of "
            f"{len(rows)} cells; the score runs from {cell(rows[0])} to {cell(rows[-1])}.")


def _miss_section(rep: Report, s: Settings, seed: int) -> None:
    frame = _played(rep, s, "miss rule", f"{s.miss_games:,} games a battlefield and miss rate", analysis.run_grid,
                    s.battlefields, ("regular",), (("greedy", "greedy"),), s.miss_games, seed,
                    params={"worst_card": _worst_card()}, extra={"miss_rate": list(s.miss_rates)})
    table = analysis.miss_effect_table(frame)
    rep.section("The miss rule (duel timer)",
                f"Each turn a player misses with probability `miss_rate`; a miss discards the worst card "
                f"(`worst_card={_worst_card()}`) and {MODEL.param('max_missed_in_row').default} misses "
                f"in a row lose the game (`timeout`). Greedy vs greedy, regular deck, {s.miss_games:,} games per "
                "battlefield and miss rate, same seeds at every rate; differences against `miss_rate = 0` with "
                "Newcombe intervals and two-proportion tests.")
    rep.table("miss_rule", table, caption="First-seat win rate at each miss rate against no misses, and the "
                                          "share of games lost on time")
    rep.chart("miss_rule_delta", analysis.miss_effect_chart(table), caption="Change of the first-seat win rate")
    rep.chart("miss_rule_reasons", analysis.end_reason_chart(frame.with_columns(
        pl.format("miss {}", pl.col("miss_rate")).alias("deck"))), caption="End reasons per battlefield and miss rate")


def _card_section(rep: Report, main: pl.DataFrame, n_lists: int = 5) -> pl.DataFrame:
    cards = load_cards()
    model = valuation.fit_value_model(cards)
    costing = valuation.costing_table(cards, model)
    pooled = main.filter(pl.col("deck") == "regular")
    rates = empirical_values(cardstats.card_rates(pooled, cards))
    both = cardstats.cost_value_frame(costing, rates, outliers=n_lists)
    lists = costed_lists(both, n_lists)
    rep.section("Card cost-efficiency",
                "Two views side by side. **Static value model**: least-squares exchange rates explaining each "
                "card's cost from its effects (advantage in tower, wall, ordinary damage, producers, stockpiles, "
                "play again, draw-and-discard; one intercept per colour) — a card whose cost is above its fitted "
                f"value is over-costed. R² = {model.r2:.2f}, RMSE = {model.rmse:.2f} cost units over {model.n} "
                "cards. **Empirical view**: from the greedy-vs-greedy games on the regular deck, pooled over "
                f"battlefields ({pooled.height:,} games, {2 * pooled.height:,} seat-games): win rate when drawn, "
                "when played, play rate and improvement when drawn (drawn vs not drawn; a card drawn twice in "
                "one game counts once; draws count as not won), each with a 95 % interval and n. Improvement "
                "when drawn is put on the cost scale by the reduced-major-axis line through the cards. The empirical "
                "view measures the cards *as the greedy agent plays them* (its evaluation weighs a wall point half "
                "a tower point), so the two views disagree most on cards greedy misjudges.")
    rep.table("value_model_rates", model.rates_frame(), caption="Fitted exchange rates (cost units per unit of "
                                                                 "advantage) and colour intercepts")
    rep.table("costed_cards", lists, caption=f"The {n_lists} most over- and under-costed cards by both views "
                                             "(residual = cost − value)")
    rep.chart("cost_vs_value", cardstats.cost_value_chart(both),
              caption="Cost against value in both views; the dashed line is value = cost, outliers labelled")
    rep.table("card_costing_static", costing, caption="Static model: every card, most over-costed first")
    rep.table("card_rates", rates.sort("iwd", descending=True, nulls_last=True),
              caption="Empirical rates per card, largest improvement when drawn first")
    return costing


def _whatif_section(rep: Report, s: Settings, seed: int, costing: pl.DataFrame) -> None:
    row = costing.filter(pl.col("key") == WHATIF_CARD).row(0, named=True)
    new_cost = max(0, round(row["value"]))
    result = _played(rep, s, "what-if", f"{s.whatif_games:,} games, each arm", whatif.what_if,
                     {"battlefield": "crystal_garden"}, card_edits={WHATIF_CARD: {"cost": new_cost}},
                     games=s.whatif_games, seed=seed)
    rep.section("What-if",
                f"{row['name_en']} (`{WHATIF_CARD}`) costs {row['cost']} but the static model values it at "
                f"{row['value']:.1f}: the same {s.whatif_games:,} greedy games on Crystal Garden with its cost "
                f"set to {new_cost}, against the unchanged cards. Outcome differences are paired by seed "
                "(McNemar's exact test); the card's own rates compare different seat-games (two-proportion test).")
    rep.table("whatif_outcomes", result.outcomes, caption="Outcome rates, baseline and variant")
    rep.table("whatif_card", card_rate_intervals(result.cards),
              caption=f"Rates of {WHATIF_CARD}, baseline and variant (n: seat-games counted)")
    rep.chart("whatif_delta", whatif.what_if_chart(result), caption="Variant − baseline with 95 % intervals")


def _balance_section(rep: Report, s: Settings, seed: int) -> str:
    param, low, high, field = BALANCE
    result = _played(rep, s, "auto-balance", f"{s.balance_games:,} games a value, at most {s.balance_evals} values",
                     auto_balance, "duel", param, low, high, {"battlefield": field}, agents=("greedy", "greedy"),
                     games=s.balance_games, seed=seed, max_evals=s.balance_evals)
    rep.section("Auto-balance",
                f"Search of `{param}` on {field} in [{low}, {high}] for a first seat score of 50 % (a draw "
                f"counting half), {s.balance_games:,} greedy games per value on the same seeds, bisection on a "
                f"monotone response. Result: {result.summary()}. `second_bonus_wall` is extra starting wall for the "
                "seat that moves second: a seat-specific knob, because a symmetric start parameter (such as "
                "`start_wall`) changes both players alike and barely moves the first-seat advantage.")
    rep.table("auto_balance", result.points, caption=f"Evaluated values of {param}")
    rep.chart("auto_balance_curve", balance_chart(result), caption=f"First-seat win rate against {param}")
    return result.summary()


def build_report(out_dir: Path, quick: bool = False, seed: int = 0) -> Path:
    """Play the report's games, analyse them and write the report into ``out_dir``; return ``out_dir``."""
    s = QUICK if quick else FULL
    started = time.perf_counter()
    rep = Report("Tower duel — balance report", {}, game=MODEL.name)
    main = _battlefield_section(rep, s, seed)
    _miss_section(rep, s, seed)
    costing = _timed(rep, "cards", _card_section, rep, main)
    _whatif_section(rep, s, seed, costing)
    _balance_section(rep, s, seed)
    _tiers_section(rep, s, seed, main)
    began = time.perf_counter()
    add_readings_section(rep, MODEL, quick=quick, seed=seed, workers=s.workers)  # its own progress line
    rep.record("readings", time.perf_counter() - began, games="core's report size per target cell and reading",
               bigger=BIGGER["readings"])
    began = time.perf_counter()
    sizes = {} if quick else REBALANCE_SIZES
    # three racing stages of 320, 1,280 and 5,120 games a battlefield at both fast tiers (the full search has four
    # from 1,280, and replays the search tier too); its own progress line: games of the budget, rate, ETA
    rebalanced = add_rebalance_section(rep, MODEL, quick=quick, seed=seed, workers=s.workers, **sizes)
    rep.record("rebalance", time.perf_counter() - began, games=f"a budget of {sizes['budget']:,} games (search and "
               "held-out check)" if sizes else "the quick search", bigger=BIGGER["rebalance"])
    rebalance_changes(rep, rebalanced)
    rep.meta.update({
        "rules_version": MODEL.rules_version,
        "seed": seed,
        "games": {"per battlefield × deck (greedy vs greedy)": s.main_games, "other pairings": s.other_games,
                  "miss rule": s.miss_games, "what-if": s.whatif_games, "auto-balance per value": s.balance_games,
                  "search tier": f"20 a battlefield on {s.search_battlefields} battlefields" if s.search_tier else
                  "not played (quick)", "rebalance budget": sizes.get("budget", "quick")},
        "agents": ["greedy vs greedy", *(" vs ".join(p) for p in s.other_pairings)],
        "engine": s.engine or "auto (fast for random/greedy)",
        "settings": "quick" if quick else "full",
        "battlefields": list(s.battlefields),
    })
    rep.sizes_section("The report is sized for `make report` (about 8 minutes for every game's report on 2 cores).")
    rep.meta["seconds"]["total before writing"] = round(time.perf_counter() - started, 1)
    return rep.write(Path(out_dir))
