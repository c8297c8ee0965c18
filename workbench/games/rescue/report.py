"""``workbench report rescue``: the Mercenary auction, taking control, the Dragon and tower trophies.

Every number comes from the game's declared studies (``studies.py``, ``events.py``), run through
``get_study("rescue", name).execute(...)`` and drawn by their own ``make_charts``, so the report
shows what ``workbench study rescue …`` and ``notebooks/rescue.ipynb`` show.  Exact values sit
beside seeded simulations whose rates carry 99.9 % Wilson intervals; ``quick`` sizes take about
6 s on one core (two thirds of it the auctions', Dragon's and trophy races' games), the full sizes
several times longer (the Dragon and trophy races run through core's reference loop: 100,000
six-player Dragon games take about 14 s), sized for ``make report`` (10,000 auctions a cell, 20,000
Dragon games a player count, 5,000 races a trophy case); the last section states each step's size,
its real seconds and what a bigger run would decide.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core.design.readings import add_report_section as add_readings_section
from workbench.core.present.report import Report
from workbench.core.present.summary import number_text
from workbench.core.studies.study import Tables, get_study
from workbench.games.rescue.model import MODEL

AUCTION_PLAYERS = (2, 3)
AUCTION_BUDGETS = (3, 5)
AUCTION_AGENTS = ("random", "equilibrium")
VALUE = 6  # the model's default worth of the Mercenary
CONTROL_LARGEST = 6  # offers 1..6, owner crystals 0, 2, 4, 6, owner worth 0..13
DRAGON_PLAYERS = range(2, 7)
DRAGON_CATCH = "0.3"
DRAGON_ROUNDS = 12
# (case, players, propensities, strategies, colours): exact odds apply to random builders
TROPHY_CASES = (("equal, random builders", 4, "1", "random", 4),
                ("propensities 1,1,2, random builders", 3, "1,1,2", "random", 4),
                ("equal, greedy builders", 4, "1", "greedy", 4))


def _sizes(quick: bool) -> dict[str, int]:
    if quick:
        return {"auction_games": 2_000, "eq_budget_2p": 4, "eq_budget_3p": 2, "dragon_games": 4_000,
                "trophy_games": 1_000}
    # sized for make report (issue 38: every report within about 8 minutes on 2 cores; the game has no compiled
    # engine: 40,000 auctions a cell took over 2 minutes on a busy 2-core machine): each simulated share beside
    # its exact value, to ±1.6 points (99.9 %) at 10,000 (the trophy races, the slowest, ±2.3 at 5,000)
    return {"auction_games": 10_000, "eq_budget_2p": 8, "eq_budget_3p": 3, "dragon_games": 20_000,
            "trophy_games": 5_000}


def _run(name: str, settings: dict[str, Any], seed: int) -> tuple[Tables, dict[str, Any]]:
    """One declared study's tables and charts, exactly as the CLI and the notebook run it."""
    study = get_study("rescue", name)
    tables = study.execute("rescue", settings, seed=seed)
    return tables, study.make_charts(tables)


def build_report(out_dir: Path, quick: bool = False, seed: int = 0) -> Path:
    """Write the rescue report into ``out_dir``; ``quick`` uses small sizes (seconds)."""
    size = _sizes(quick)
    rep = Report("Age of Towers — To The Rescue: Mercenary auction, taking control, the Dragon, trophies", {
        "rules_version": MODEL.rules_version, "seed": seed,
        "games": {"auction": f"{size['auction_games']:,} per cell", "dragon": f"{size['dragon_games']:,} per "
                  "player count", "trophies": f"{size['trophy_games']:,} per case"},
        "agents": "random and equilibrium bidders; naive bidders (random, truthful, allin, shade) for P(nobody)",
        "quick": quick}, game=MODEL.name)
    rep.timed("auction", f"rescue report 1/5: auction, {size['auction_games']:,} games × 8 cells", _auction, rep,
              size, seed, step_games=f"{size['auction_games']:,} games a cell",
              step_bigger="more games narrow P(nobody) per cell (`workbench study rescue auction --games N`)")
    rep.timed("equilibrium", "rescue report 2/5: equilibrium bids per budget", _equilibrium, rep, size, seed,
              step_games=f"exact, budgets up to {size['eq_budget_2p']} (2 players) and {size['eq_budget_3p']} "
                         "(3 players)",
              step_bigger="larger budgets (the equilibrium grows with the budget)")
    rep.timed("control", "rescue report 3/5: taking control", _control, rep, seed, step_games="exact",
              step_bigger="nothing: exact")
    rep.timed("dragon", f"rescue report 4/5: the Dragon, {size['dragon_games']:,} games × 5 player counts", _dragon,
              rep, size, seed, step_games=f"{size['dragon_games']:,} games a player count",
              step_bigger="more games narrow each share")
    rep.timed("trophies", f"rescue report 5/5: tower trophies, {size['trophy_games']:,} games × {len(TROPHY_CASES)} "
              "cases", _trophies, rep, size, seed, step_games=f"{size['trophy_games']:,} races a case",
              step_bigger="more races narrow the simulated shares beside the exact odds")
    _findings(rep)
    # quick: one process (the game has no compiled engine, so two workers are two spawned processes,
    # whose start-up costs several times the quick section's few hundred games; the table is the same)
    began = time.perf_counter()
    add_readings_section(rep, MODEL, quick=quick, seed=seed, workers=1 if quick else 2)
    rep.record("readings", time.perf_counter() - began, games="core's report size per target cell and reading",
               bigger="more games show smaller changes of a verdict (`workbench study rescue readings --games N`)")
    rep.sizes_section("The report is sized for `make report` (about 8 minutes for every game's report on 2 cores).")
    return rep.write(out_dir)


def _auction(rep: Report, size: dict[str, int], seed: int) -> None:
    games = size["auction_games"]
    rep.section("1. The Mercenary auction: exact odds beside the simulation", (
        f"Every player holds the same crystals (budget) and values the Mercenary at {VALUE}. Exact outcome "
        "odds of the protocol game for random bidders (a uniform bid 0..crystals) and equilibrium bidders "
        f"(section 2), beside {games:,} simulated auctions per cell with 99.9 % Wilson intervals; `inside` says "
        "whether the exact value lies in the interval. Prices and surpluses are exact expectations (no interval)."))
    for players in AUCTION_PLAYERS:
        frames, charts = [], {}
        for budget in AUCTION_BUDGETS:
            for agents in AUCTION_AGENTS:
                tables, drawn = _run("auction", {"players": players, "budget": budget, "value": VALUE,
                                                 "agents": agents, "games": games}, seed)
                frames.append(tables["odds"].select(pl.lit(budget).alias("budget"), pl.lit(agents).alias("agents"),
                                                    pl.all()))
                if budget == AUCTION_BUDGETS[-1]:
                    charts[agents] = drawn["odds"]
        table = pl.concat(frames).select(pl.lit(players).alias("players"), pl.all())
        checked = table.filter(pl.col("inside").is_not_null())
        rep.table(f"auction_{players}p", table,
                  f"{players} players, budgets {' and '.join(map(str, AUCTION_BUDGETS))}: "
                  f"{checked['inside'].sum()} of {checked.height} exact probabilities lie inside their simulated "
                  "99.9 % interval.", max_rows=60)
        for agents, chart in charts.items():
            rep.chart(f"auction_{players}p_{agents}_chart", chart,
                      f"{players} {agents} bidders, budget {AUCTION_BUDGETS[-1]}, value {VALUE}: exact (bars) vs "
                      "simulated (points, 99.9 % intervals).")


def _equilibrium(rep: Report, size: dict[str, int], seed: int) -> None:
    rep.section("2. Equilibrium bidding: bids per budget, P(nobody gets the Mercenary), exploitability", (
        "Subgame-perfect equilibria: every second auction among tied seats first, then the first round. Two "
        "players: an exact equilibrium (MILP support, solved in fractions; exploitability 0). Three players: "
        "fictitious play, with its exploitability (the most any seat gains by deviating anywhere) reported. "
        "`p_nobody_*` is the exact chance that nobody gets the Mercenary (a tie at 0, or a second tie) under the "
        "equilibrium and when every seat plays one naive agent."))
    for players, top in ((2, size["eq_budget_2p"]), (3, size["eq_budget_3p"])):
        tables, charts = _run("equilibrium", {"players": players, "value": VALUE, "largest_budget": top}, seed)
        table = tables["equilibrium"]
        eq_nobody = table["p_nobody_equilibrium"]
        rep.text(f"**{players} players, budgets 1..{top}:** equilibrium mean first bid "
                 f"{_span(table['mean_bid'])} crystals; P(nobody) under the equilibrium {_span(eq_nobody)}, under "
                 f"random bidders {_span(table['p_nobody_random'])}; largest exploitability "
                 f"{table['exploitability'].max():.2g}.")
        rep.table(f"equilibrium_{players}p", table)
        rep.chart(f"equilibrium_{players}p_chart", charts["nobody"],
                  f"{players} players: P(nobody gets the Mercenary) per budget, equilibrium vs naive bidders.")


def _span(column: pl.Series) -> str:
    """``low..high`` of a column to 4 significant digits (one value when they agree)."""
    low, high = f"{column.min():.4g}", f"{column.max():.4g}"
    return low if low == high else f"{low}..{high}"


def _control(rep: Report, seed: int) -> None:
    tables, charts = _run("control", {"largest": CONTROL_LARGEST, "challenger_value": VALUE}, seed)
    table = tables["control"]
    top = int(table["offer"].max())
    rep.section("3. Taking control of a Mercenary: when does the owner accept?", (
        "A challenger offers k crystals; the owner accepts (takes them, hands the Mercenary over) or refuses by "
        "returning k + 1 crystals to the supply, which it can only do holding k + 1. A rational owner refuses iff "
        "it can pay and values the Mercenary above 2k + 1 (`must_accept`: it would refuse but cannot pay). "
        "`smallest_offer` is the least offer it accepts; `worth_it` whether that offer is below the "
        f"challenger's worth ({VALUE})."))
    smallest = (table.select("owner_value", "owner_crystals", "smallest_offer").unique()
                .sort("owner_crystals").pivot(on="owner_crystals", index="owner_value", values="smallest_offer")
                .sort("owner_value"))
    rep.table("control_smallest_offer", smallest.rename({c: f"crystals_{c}" for c in smallest.columns[1:]}),
              "Smallest successful offer per Mercenary worth to the owner (rows) and owner's crystals (columns).")
    rep.table("control", table, f"Every owner worth × owner crystals × offer 1..{top} and the owner's answer.")
    rep.chart("control_chart", charts["acceptance"], "The owner's answer per offer and worth, one panel per crystal "
              "count.")


def _dragon(rep: Report, size: dict[str, int], seed: int) -> None:
    games = size["dragon_games"]
    rep.section("4. The Dragon: when it appears and who takes its trophy", (
        "The Dragon is shuffled with the top 5 event cards and one is revealed a round, so it appears in rounds "
        f"1..6 with chance 1/6 each. Once out, every player still racing catches it with chance {DRAGON_CATCH} a "
        "round; a lone catcher takes the trophy, two or more in one round take nothing and leave the race; the "
        f"game lasts {DRAGON_ROUNDS} rounds. Exact odds (dynamic programme, fractions) beside {games:,} seeded "
        "games per player count with 99.9 % intervals."))
    trophy, charts = [], {}
    for players in DRAGON_PLAYERS:
        tables, charts[players] = _run("dragon", {"players": players, "catch": DRAGON_CATCH,
                                                  "rounds": DRAGON_ROUNDS, "games": games}, seed)
        trophy.append(tables["trophy"].select(pl.lit(players).alias("players"), pl.all()))
        if players == DRAGON_PLAYERS[0]:
            appearance = tables["appearance"]
    rep.table("dragon_appearance", appearance, f"The Dragon's round ({games:,} games; the shuffle has its own "
              "seed stream, so every player count on the same master seed draws these same rounds).")
    rep.chart("dragon_appearance_chart", charts[DRAGON_PLAYERS[0]]["appearance"],
              "Round the Dragon appears: exact 1/6 (bars) vs simulated.")
    table = pl.concat(trophy)
    inside = table.filter((pl.col("low") <= pl.col("exact")) & (pl.col("exact") <= pl.col("high"))).height
    rep.table("dragon_trophy", table,
              f"The Dragon-trophy table for 2–6 players, catch {DRAGON_CATCH}: {inside} of {table.height} exact "
              "values lie inside their simulated 99.9 % interval (`exact_fraction` is left out when its "
              "denominator is too long to read).", max_rows=60)
    for players in (DRAGON_PLAYERS[0], DRAGON_PLAYERS[-1]):
        rep.chart(f"dragon_trophy_{players}p_chart", charts[players]["trophy"],
                  f"Who takes the Dragon trophy, {players} players.")


def _trophies(rep: Report, size: dict[str, int], seed: int) -> None:
    games = size["trophy_games"]
    rep.section("5. Tower trophies: who takes a colour's trophy", (
        "When a colour's 5 tokens are all taken, the player with the most takes its trophy; a tie for most gives "
        "nobody the trophy. Exact multinomial odds for builders who take each token with their (normalised) "
        f"propensity, beside {games:,} seeded races per case over 4 colours (n = games × colours). Greedy "
        "builders pick the colour they lead most; the exact column is then the random-builder model "
        "(`exact_applies` false), which shows what greedy play changes."))
    frames, charts = [], []
    for case, players, propensities, strategies, colours in TROPHY_CASES:
        tables, drawn = _run("trophies", {"players": players, "propensities": propensities,
                                          "strategies": strategies, "colours": colours, "games": games}, seed)
        frames.append(tables["trophy"].select(pl.lit(case).alias("case"), pl.lit(players).alias("players"),
                                              pl.lit(propensities).alias("propensities"), pl.all()))
        charts.append((drawn["trophy"], f"{case}, {players} players."))
    table = pl.concat(frames)
    random = table.filter(pl.col("exact_applies"))
    inside = random.filter((pl.col("low") <= pl.col("exact")) & (pl.col("exact") <= pl.col("high"))).height
    rep.table("trophies", table, f"Exact vs simulated, per case: {inside} of {random.height} exact values of the "
              "random-builder cases lie inside their simulated 99.9 % interval.", max_rows=60)
    for i, (chart, caption) in enumerate(charts, 1):
        rep.chart(f"trophies_{i}_chart", chart, caption)


def _findings(rep: Report) -> None:
    """"What this report finds", read from the tables above: who gets the Mercenary and the trophies."""
    for players in (2, 3):
        table = rep.frame(f"equilibrium_{players}p")
        eq, rnd = table["p_nobody_equilibrium"], table["p_nobody_random"]
        exact = ("exact" if table["exact"].all() else
                 f"fictitious play, exploitability {table['exploitability'].max():.2g}")
        rep.finding(f"With {players} players bidding at equilibrium (budgets {table['budget'].min()}–"
                    f"{table['budget'].max()}), nobody gets the Mercenary in {_pct_span(eq)} of auctions ({exact}); "
                    f"with random bidders in {_pct_span(rnd)}.", weight=100 * float(eq.max()) / players,
                    anchor=f"equilibrium_{players}p", rate=float(eq.max()), exact=bool(table["exact"].all()))
    dragon = rep.frame("dragon_trophy").filter(pl.col("outcome") == "nobody").sort("exact", descending=True)
    top = dragon.row(0, named=True)
    rep.finding(f"Nobody takes the Dragon trophy in {top['exact'] * 100:.1f} % of {top['players']}-player games "
                f"(exact; the most of 2–6 players; simulated {number_text(top['simulated'], top['low'], top['high'])}, "
                f"99.9 % interval, n {top['n']:,}).", weight=100 * top["exact"], anchor="dragon_trophy",
                rate=top["exact"], exact=True, n=int(top["n"]))
    trophies = rep.frame("trophies").filter(pl.col("outcome") == "nobody")
    for row in trophies.iter_rows(named=True):
        exact = (f"exact {row['exact'] * 100:.1f} %" if row["exact_applies"] else
                 f"random builders' exact odds {row['exact'] * 100:.1f} %")
        rep.finding(f"A colour's tower trophy goes to nobody (a tie for most) in "
                    f"{number_text(row['simulated'], row['low'], row['high'])} of races ({row['case']}, "
                    f"{row['players']} players; 99.9 % interval, n {row['n']:,}; {exact}).",
                    weight=100 * row["simulated"] / 2, anchor="trophies", rate=row["simulated"], low=row["low"],
                    high=row["high"], n=int(row["n"]))


def _pct_span(column: pl.Series) -> str:
    """``7.2–37.5 %`` of a column of rates (one value when they agree)."""
    low, high = f"{column.min() * 100:.1f}", f"{column.max() * 100:.1f}"
    return f"{low} %" if low == high else f"{low}–{high} %"
