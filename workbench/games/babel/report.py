"""``workbench report babel``: the designers' questions about Babel as an offline report.

One grid of games (both start-hand variants × the agent pairings, every cell on the same master
seed) answers the start-seat, ending, nation and trajectory questions; a second grid over pairs of
start hands answers which pair makes the start seat 50 %.  Sizes follow the engine: with the
compiled engine the full report plays 10,000 games per cell; on the reference engine alone (no
numba) it plays fewer and says so in its header.  The full report is sized for ``make report``
(every report within about 8 minutes on 2 cores): the search tier plays its floor of 20 games a
cell on the three fair start hands closest to 50 % and the two deals, the rebalance a short search;
the last section states each step's size, its real seconds and what a bigger run would decide.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core.design.readings import add_report_section as add_readings_section
from workbench.core.design.rebalance import add_report_section as add_rebalance_section
from workbench.core.model import AgentSpec
from workbench.core.present.charts import rate_chart
from workbench.core.present.report import Report
from workbench.core.present.summary import rebalance_changes, tier_findings
from workbench.core.skill.tiers import first_seat_by_tier, report_section, report_tiers
from workbench.core.stats import metrics
from workbench.games.babel import studies as st
from workbench.games.babel.model import MODEL

PAIRINGS = "greedy,greedy; random,random; greedy,random"


# the report-sized rebalance (full report, sized for make report): three racing stages within 400,000 games, search
# and held-out check together (1,200,000 took 118 s of a 209 s report on a busy 2-core machine)
REBALANCE_SIZES = {"budget": 400_000, "stages": 3}

def _sizes(quick: bool) -> dict[str, Any]:
    fast = MODEL.fast_supports((AgentSpec("greedy"), AgentSpec("greedy")), MODEL.resolve_params())
    if quick:
        return {"games": 200 if fast else 40, "hand_games": 100 if fast else 12, "hands": (3, 5), "fast": fast,
                "tier_games": 200 if fast else 20}
    return {"games": 10_000 if fast else 400, "hand_games": 2_000 if fast else 60, "hands": (2, 7), "fast": fast,
            "tier_games": 10_000 if fast else 200}


def build_report(out_dir: Path, quick: bool = False, seed: int = 0, workers: int | None = None) -> Path:
    """Write the Babel report into ``out_dir``; ``quick`` plays a few hundred games (seconds).

    ``workers`` defaults to 1 for ``quick`` (its batches of a few dozen games finish sooner on one worker:
    the rebalance search took 8 s on one, 11–17 s on two, with the same tables) and 2 otherwise.
    """
    workers = (1 if quick else 2) if workers is None else workers
    size = _sizes(quick)
    engine = "the compiled engine" if size["fast"] else "the reference engine (no compiled engine here: small sizes)"
    rep = Report("Babel (temple building): start seat, endings, nations, trajectories, start hands", {
        "rules_version": MODEL.rules_version, "seed": seed, "games": f"{size['games']:,} per cell",
        "agents": [" vs ".join(p.strip().split(",")) for p in PAIRINGS.split(";")], "engine": engine, "quick": quick},
        game=MODEL.name)
    settings = {"games": size["games"], "pairings": PAIRINGS, "hands": "3/5,5/5"}
    frame = rep.timed("deals", f"babel report 1/3: {size['games']:,} games × 2 variants × 3 pairings", st._play, MODEL,
                      settings, {}, seed, workers, None, None, step_games=f"{size['games']:,} games a cell",
                      step_bigger="more games narrow each deal's start-seat score (±1 point at 10,000)")
    _start_seat(rep, frame)
    _endings(rep, frame)
    _nations(rep, frame.filter(pl.col("pairing") == "greedy vs greedy"))
    _trajectories(rep, frame)
    low, high = size["hands"]
    hands = rep.timed("start hands", f"babel report 2/3: {size['hand_games']:,} games per pair of start hands "
                      f"{low}..{high}", st._hand_sizes, MODEL, {"games": size["hand_games"], "smallest": low,
                                                             "largest": high, "agents": "greedy,greedy"}, {},
                      seed=seed, workers=workers, on_progress=None, should_stop=None,
                      step_games=f"{size['hand_games']:,} games a pair of hands",
                      step_bigger="more games a pair narrow which pairs are fair (±2.2 points at 2,000)")
    _hand_sizes(rep, hands, size["hand_games"])
    tiers = report_tiers(MODEL, search=not quick)  # the declared tiers; search on a small sample (Tier.games)
    _fair_hands_tiers(rep, hands["hand_sizes"], tiers, size["tier_games"], seed, workers)
    table = rep.timed("deals at tiers", f"babel report 3/3: the start seat at {len(tiers)} skill tiers, "
                      f"{size['tier_games']:,} games per cell", first_seat_by_tier, MODEL, tiers,
                      [{"start_hands": h} for h in ("3/5", "5/5")], size["tier_games"], seed=seed, workers=workers,
                      label=lambda p: f"start hands {p['start_hands']}",
                      step_games=f"{size['tier_games']:,} games a deal at a fast tier, "
                                 f"{tiers[-1].games(size['tier_games']):,} at {tiers[-1].label}",
                      step_bigger=SEARCH_BIGGER)
    report_section(rep, "start_seat_tiers", table, "6. Is the start seat's verdict settled across skill levels?",
                   "The start player's score per deal, played at the declared tiers: the hand-tuned greedy agent, "
                   "the self-tuned one (`workbench tune babel`)" + _search_words(quick), size["tier_games"])
    tier_findings(rep, "start_seat_tiers", "Start seat score with {cell}")
    started = time.perf_counter()
    add_readings_section(rep, MODEL, quick=quick, seed=seed, workers=workers)
    rep.record("readings", time.perf_counter() - started, games="core's report size per target cell and reading",
               bigger="more games show smaller changes of a verdict (`workbench study babel readings --games N`)")
    started = time.perf_counter()
    sizes = {} if quick else REBALANCE_SIZES
    rebalanced = add_rebalance_section(rep, MODEL, quick=quick, seed=seed, workers=workers, **sizes)  # three stages
    rep.record("rebalance", time.perf_counter() - started,
               games=f"a budget of {sizes['budget']:,} games (search and held-out check)" if sizes else
               "the quick search",
               bigger="the full search (`workbench rebalance babel`, 6 M games, four stages) reads ±0.5 point")
    rebalance_changes(rep, rebalanced)
    rep.sizes_section("The report is sized for `make report` (about 8 minutes for every game's report on 2 cores).")
    return rep.write(out_dir)


SEARCH_BIGGER = ("the search tier's verdicts need the games its *games needed* column says "
                 "(`workbench study babel skill --games N`)")


def _start_seat(rep: Report, frame: pl.DataFrame) -> None:
    table = metrics.first_mover(frame, ["start_hands", "pairing"])
    rep.section("1. Is the start player's handicap fair?", (
        "The start player is dealt 3 nation cards and the other player 5 (the first edition: 5 and 5). "
        "The start player's score over all games (a win counts 1, a draw half), with its 95 % Wilson interval, "
        "the share of games drawn beside it, and the exact binomial p of its wins against its losses at 50 %: a "
        "fair start seat has 50 % inside its interval."))
    rep.table("start_seat", table.select("start_hands", "pairing", "first_seat_score", "first_seat_score_low",
                                         "first_seat_score_high", "first_seat_score_n", "first_seat_draws",
                                         "first_seat_draws_low", "first_seat_draws_high", "first_mover_p"))
    shown = table.rename({"first_seat_score": "rate", "first_seat_score_low": "low", "first_seat_score_high": "high",
                          "first_seat_score_n": "n"})
    rep.chart("start_seat_chart", rate_chart(shown, "pairing", color="start_hands", reference=0.5, zoom=True,
                                             title="Start player's score, a draw counting half (95 % interval)",
                                             y_title="start seat score"))


def _endings(rep: Report, frame: pl.DataFrame) -> None:
    keys = ["start_hands", "pairing"]
    rep.section("2. How games end and how long they take", (
        "standard: 15+ against 9 or less; end_phase_20: the end phase ended by a player reaching 20; "
        "end_phase_drop: by a player dropping to 9 or less; quarry_empty: the quarry ran out; turn_limit: the "
        f"safety cap of {MODEL.param('max_turns').default} turns (a draw)."))
    rep.table("endings", metrics.end_reasons(frame, keys))
    rep.table("length", metrics.duration(frame, keys), "Game length in turns.")
    for name, chart in st._endings_charts({"games": frame}).items():
        rep.chart(f"{name}_chart", chart)


def _nations(rep: Report, frame: pl.DataFrame) -> None:
    table = st.nation_table(frame)
    rep.section("3. Which nation abilities decide games (greedy vs greedy)", (
        "Per nation: ability uses per seat and game, the share of seats that used it, and the win rate of the "
        "seats that used it against those that did not, with 95 % intervals and the two-proportion test. "
        "A difference is an association: strong positions also have more runs to use."))
    rep.table("nations", table)
    rep.chart("nations_chart", st._nation_charts({"nations": table})["nations"])


def _trajectories(rep: Report, frame: pl.DataFrame) -> None:
    table = st.trajectory_table(frame)
    rep.section("4. Temple value per turn", "Mean and 10–90 % band of the combined temple value after each turn.")
    rep.chart("trajectories_chart", st._trajectory_charts({"trajectories": table})["trajectories"])
    rep.table("trajectories", table, max_rows=20)


def _search_words(quick: bool) -> str:
    return "; the quick report leaves the search tier out." if quick else " and the search agent on a small sample."


# the pairs of start hands checked at every tier: greedy's fair ones, closest to 50 % first (3: the search tier's
# 20 games a pair cost about 7 s each on 2 cores; make report's minutes)
FAIR_HANDS_SHOWN = 3
DEALS = {(3, 5), (5, 5)}  # the two deals section 6 checks: 5b does not state their verdict again


def _fair_hands_tiers(rep: Report, table: pl.DataFrame, tiers: Any, games: int, seed: int, workers: int) -> None:
    """5b: the start hands greedy finds fair, played again at every tier on the same seeds."""
    fair = (table.filter(pl.col("fair_within_ci"))
            .sort((pl.col("first_seat_score") - 0.5).abs()).head(FAIR_HANDS_SHOWN))
    if fair.is_empty():
        rep.section("5b. Are the fair start hands fair at every skill level?",
                    "No pair of start hands was fair for greedy (section 5), so there is none to check at the other "
                    "tiers.")
        return
    cells = [{"hand_start": a, "hand_other": b} for a, b in fair.select("hand_start", "hand_other").iter_rows()]
    checked = rep.timed("fair hands at tiers", f"babel report: {len(cells)} fair start hands at {len(tiers)} skill "
                        f"tiers, {games:,} games each", first_seat_by_tier, MODEL, tiers, cells, games, seed=seed,
                        workers=workers, label=lambda p: f"start player {p['hand_start']} / other {p['hand_other']}",
                        step_games=f"{len(cells)} pairs of hands, {games:,} games a pair at a fast tier, "
                                   f"{tiers[-1].games(games):,} at {tiers[-1].label}",
                        step_bigger=SEARCH_BIGGER + "; more pairs: `workbench study babel skill`")
    deals = {f"start player {a} / other {b}" for a, b in DEALS}
    report_section(rep, "fair_hands_tiers", checked, "5b. Are the fair start hands fair at every skill level?",
                   f"The pairs of start hands section 5 found fair for greedy (at most {FAIR_HANDS_SHOWN}, closest "
                   "to 50 % first), each played again at the declared tiers; "
                   "'fair' means the start seat's 95 % interval holds 50 %.", games, scored="the start seat's score")
    tier_findings(rep, "fair_hands_tiers", "Start seat score with {cell}", top=2,
                  where=lambda row: row["cell"] not in deals)  # section 6 states the deals' verdicts


def _hand_sizes(rep: Report, tables: dict[str, pl.DataFrame], games: int) -> None:
    table = tables["hand_sizes"].select("hand_start", "hand_other", "first_seat_score", "first_seat_score_low",
                                        "first_seat_score_high", "first_seat_score_n", "first_seat_draws",
                                        "fair_within_ci")
    fair = table.filter(pl.col("fair_within_ci"))
    pairs = ", ".join(f"{a}/{b}" for a, b in fair.select("hand_start", "hand_other").iter_rows()) or "none"
    rep.section("5. Which start hands make the start seat 50 %?", (
        f"Greedy vs greedy, {games:,} games per pair of start hands (start player / other), same seeds for every "
        f"pair; the start seat's score counts a draw as half. Pairs whose 95 % interval contains 50 %: {pairs}."))
    rep.table("hand_sizes", table, max_rows=60)
    rep.chart("hand_sizes_chart", st._hand_size_charts(tables)["hand_sizes"])
