"""``workbench report dietower``: the teaching notebook's content as an offline report."""

from __future__ import annotations

import time
from fractions import Fraction
from pathlib import Path

import polars as pl

from workbench.core.design.readings import add_report_section as add_readings_section
from workbench.core.present.report import Report
from workbench.core.present.summary import number_text
from workbench.core.stats.rates import wilson
from workbench.games.dietower import analysis as an
from workbench.games.dietower.exact import streak_odds
from workbench.games.dietower.model import MODEL


def _sizes(quick: bool) -> dict[str, int]:
    if quick:
        return {"full_games": 200_000, "streak_games": 50_000, "convergence": 50_000, "reduced_max": 5,
                "reduced_games": 50_000, "eq_suit": 4, "agent_games": 50_000}
    # sized for make report (issue 38: every report within about 8 minutes on 2 cores): the exact odds of a suit of
    # 7 took about a minute and the equilibrium of a suit of 6 several on a busy 2-core machine (41 s alone on the
    # development machine, optimal.py); the sizes section names the study that plays the larger ones
    return {"full_games": 1_000_000, "streak_games": 400_000, "convergence": 1_000_000, "reduced_max": 6,
            "reduced_games": 400_000, "eq_suit": 5, "agent_games": 400_000}


def build_report(out_dir: Path, quick: bool = False, seed: int = 0) -> Path:
    """Write the dietower report into ``out_dir``; ``quick`` uses small sizes (well under 20 s)."""
    size = _sizes(quick)
    rep = Report("Tower of Babel (die streak): odds, simulation and optimal play", {
        "rules_version": MODEL.rules_version, "seed": seed, "games": size["full_games"],
        "agents": "random (full deck); heuristics vs equilibrium (reduced deck)", "quick": quick}, game=MODEL.name)
    rep.timed("streak model", "dietower report 1/4: streak model, exact and simulated", _streak_model, rep, size,
              seed, step_games=f"{size['streak_games']:,} simulated games beside the exact odds; "
                               f"{size['convergence']:,} for the convergence",
              step_bigger="the exact odds need no games; more games only narrow the simulated points")
    rep.timed("full deck", f"dietower report 2/4: full deck, {size['full_games']:,} games per player count",
              _full_deck, rep, size, seed, step_games=f"{size['full_games']:,} games per player count, "
                                                     f"{size['agent_games']:,} per heuristic agent",
              step_bigger="more games narrow each share (±0.1 point at 1,000,000)")
    rep.timed("reduced decks", f"dietower report 3/4: reduced decks up to suit {size['reduced_max']}, exact and "
              "simulated", _reduced_decks, rep, size, seed,
              step_games=f"suits 2..{size['reduced_max']}, {size['reduced_games']:,} simulated games each",
              step_bigger="larger suits: `workbench study dietower reduced_decks --largest-suit N` (exact odds grow "
                          "with the suit)")
    rep.timed("equilibrium", f"dietower report 4/4: equilibrium of suit {size['eq_suit']} (one LP per state)",
              _optimal, rep, size, step_games=f"exact: a suit of {size['eq_suit']} + Joker",
              step_bigger="a suit of 6 + Joker takes about 40 s, 7 about 7 minutes, 8 (the largest solved) about "
                          "14 minutes (see optimal.py)")
    _findings(rep)
    began = time.perf_counter()
    add_readings_section(rep, MODEL, quick=quick, seed=seed, params={"players": 3})  # a tie of non-Builders needs 3
    rep.record("readings", time.perf_counter() - began, games="core's report size per target cell and reading",
               bigger="more games show smaller changes of a verdict (`workbench study dietower readings --games N`)")
    rep.sizes_section("The report is sized for `make report` (about 8 minutes for every game's report on 2 cores).")
    return rep.write(out_dir)


def _streak_model(rep: Report, size: dict[str, int], seed: int) -> None:
    p = Fraction(1, 2)
    odds = streak_odds(p, 6, 14, 2)
    rep.section("1. The streak model", (
        "The model a teacher starts with: in round 1 a player takes the die at 1; in every later round the "
        "Builder wins with probability p (scores the die, raises it; winning on the 6 ends the game), "
        "otherwise another player takes the die at 1. A Markov chain over the die states gives the exact "
        f"distributions. With p = 1/2, 6 faces, 14 rounds, 2 players: P(six-win) = {odds.six_win} "
        f"≈ {float(odds.six_win):.5f}, p1's mean points = {odds.mean('points')} ≈ {float(odds.mean('points')):.4f}."))
    frames = an.streak_comparison(float(p), 6, 14, 2, games=size["streak_games"], seed=seed)
    rep.chart("streak_points", an.distribution_chart(frames["points"], title="p1's points", x_title="points"),
              f"Exact (bars) and {size['streak_games']:,} simulated games (points with 95% Wilson intervals).")
    rep.chart("streak_six_win", an.six_win_chart(frames["six_win_by_round"]),
              "Chance of a six-win within r rounds: exact line, simulated points with intervals.")
    rep.chart("streak_length", an.streak_length_chart(frames["first_streak"]),
              "Streak length of the first Builder (rounds won in a row; 6 = six-win).")
    rep.chart("streak_longest", an.distribution_chart(frames["longest"], title="longest streak of the game",
                                                      x_title="rounds won in a row"),
              "Longest streak of the game, exact vs simulated.")
    rep.table("streak_six_win_by_round", frames["six_win_by_round"], "P(six-win within r rounds).")
    conv = an.convergence_frame(0.6, 6, 14, 2, games=size["convergence"], seed=seed)
    last = conv.row(-1, named=True)
    z = (last["estimate"] - last["exact"]) / last["one_over_sqrt_n"]
    inside = last["low"] <= last["exact"] <= last["high"]
    rep.chart("convergence", an.convergence_chart(conv),
              "p = 0.6: the estimate of P(six-win) and its interval close in on the exact value; the error "
              f"falls like 1/sqrt(n). After {last['n']:,} games the estimate is {last['estimate']:.4f} "
              f"[{last['low']:.4f}, {last['high']:.4f}] against the exact {last['exact']:.4f} (z = {z:+.1f}): "
              + ("inside its 95 % interval." if inside else
                 "outside its 95 % interval, as a 95 % interval is in about one run out of twenty (and a "
                 "|z| this large in fewer); rerun with another seed to see it land inside."))


def _full_deck(rep: Report, size: dict[str, int], seed: int) -> None:
    rep.section("2. The real game, full deck, random players",
                f"{size['full_games']:,} games per player count (compiled engine), 95% intervals.")
    for players in (2, 3):
        start = time.perf_counter()
        summary = an.full_deck_summary(players, size["full_games"], seed=seed)
        secs = time.perf_counter() - start
        rep.table(f"full_deck_{players}p", summary,
                  f"{players} random players, {size['full_games']:,} games in {secs:.1f} s "
                  f"({size['full_games'] / secs:,.0f} games/s end to end).")
    rows = []
    for agent in ("highest", "lowest", "joker", "mixed:random=0.5,highest=0.5"):
        frame = an.simulate("dietower", size["agent_games"], agents=[agent, "random"], seed=seed, progress=False)
        s = an.summarise(frame)
        rows.append(s.with_columns(pl.lit(agent).alias("p1_agent")).filter(pl.col("measure").str.starts_with("P(")))
    rep.table("agents_vs_random", pl.concat(rows).select("p1_agent", "measure", "estimate", "lower", "upper", "n"),
              "Heuristic agents (p1) against a random p2 on the full deck.")


def _reduced_decks(rep: Report, size: dict[str, int], seed: int) -> None:
    rep.section("3. Exact odds of random play on reduced decks",
                "Two players, each with the top N cards of a suit plus a Joker; every pair of card orders is "
                "equally likely, so the odds are exact fractions. Beside them a simulation with 95% intervals.")
    table = an.reduced_deck_table(range(2, size["reduced_max"] + 1), 2, 6, games=size["reduced_games"], seed=seed)
    rep.table("reduced_exact", table, "Exact fractions vs simulated estimates.", max_rows=60)
    small = an.reduced_deck_table(range(3, 6), 2, 3, games=size["reduced_games"], seed=seed)
    rep.table("reduced_exact_d3", small, "The same with a 3-faced die (six-wins become possible).", max_rows=60)


def _optimal(rep: Report, size: dict[str, int]) -> None:
    frames = an.equilibrium_frames(size["eq_suit"], 6)
    facts = frames["facts"]
    rep.section("4. Optimal play", (
        f"Two players, suits of {size['eq_suit']} cards + Joker: backward induction with one matrix game per "
        "state (saddle point or linear program). Objective 'win' = P(win) + P(draw)/2; 'points' = expected "
        "point difference. The game is symmetric, so its value is 1/2 and 0. The largest deck solved on the "
        "development machine is a suit of 8 + Joker (about 7 minutes per objective; see optimal.py)."))
    rep.table("equilibrium_facts", facts, "Game value, states, matrix games solved and time.")
    rep.chart("equilibrium_strategy", an.equilibrium_chart(frames["strategy"]),
              "Equilibrium mixed strategy in round 1.")
    rep.table("heuristic_losses", frames["losses"],
              "Each heuristic (as p1) against the equilibrium player and against a best response.")
    rep.chart("heuristic_losses_chart", an.loss_chart(frames["losses"], "win"),
              "What each heuristic gives away against a clever opponent.")


def _findings(rep: Report) -> None:
    """"What this report finds", read from the tables above: the seats' scores, six-wins, optimal play."""
    full = {r["measure"]: r for r in rep.frame("full_deck_2p").iter_rows(named=True)}
    p1, draw, six = full["P(p1 wins)"], full["P(draw)"], full["P(six-win)"]
    n = int(p1["n"])
    score = round(p1["estimate"] * n) + round(draw["estimate"] * n) / 2  # a draw counts half
    low, high = wilson(score, n)
    rep.finding(f"The first player's score with 2 random players on the full deck: "
                f"{number_text(score / n, low, high)} (n {n:,}; a draw counts half, draws "
                f"{draw['estimate'] * 100:.1f} %).", weight=abs(score / n - 0.5) * 100 + 2, anchor="full_deck_2p",
                rate=score / n, low=low, high=high, n=n)
    rep.finding(f"A six-win ends {number_text(six['estimate'], six['lower'], six['upper'])} of 2-player games "
                f"between random players (n {int(six['n']):,}).", weight=1.5, anchor="full_deck_2p",
                rate=six["estimate"], low=six["lower"], high=six["upper"], n=int(six["n"]))
    facts = rep.frame("equilibrium_facts").filter(pl.col("objective") == "win").row(0, named=True)
    rep.finding(f"Optimal play on a suit of {facts['suit_size']} + Joker gives the first player "
                f"{facts['value'] * 100:.1f} % (a draw counts half; exact: {facts['states']:,} states solved), so "
                "neither seat is favoured when both play well.", weight=3.0, anchor="equilibrium_facts",
                rate=facts["value"], exact=True)
    losses = rep.frame("heuristic_losses").filter(pl.col("objective") == "win")
    worst = losses.sort("loss_vs_equilibrium", descending=True).row(0, named=True)
    rep.finding(f"The `{worst['agent']}` agent gives away the most against the equilibrium player: it scores "
                f"{worst['vs_equilibrium'] * 100:.1f} % (exact), and {worst['vs_best_response'] * 100:.1f} % against "
                "a best response.", weight=1.0, anchor="heuristic_losses", rate=worst["vs_equilibrium"], exact=True)
