"""The dietower report: written offline, and what it states agrees with values worked out here.

Exact odds are checked against a few lines of first-principles code (the streak chain below) or
the hand-counted suit of two (test_dietower_exact.py); simulated rates against k/n and the Wilson
formula; every chart is inline in the page and a PNG beside the Markdown.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from scipy.stats import norm

from tests.independent import wilson as _wilson
from tests.scipy_intervals import wilson as scipy_wilson
from tests.summary_checks import check_summary
from workbench.core.model import TERMINAL
from workbench.core.rng import SplitMix64
from workbench.core.sim.runner import simulate
from workbench.games.dietower import optimal
from workbench.games.dietower.analysis import convergence_frame, distribution_chart, streak_comparison
from workbench.games.dietower.model import MODEL
from workbench.games.dietower.report import _sizes, build_report

# one worker builds this module's shared fixtures once (pytest -n 2 --dist loadgroup)
pytestmark = pytest.mark.xdist_group("test_dietower_report")

QUICK = _sizes(True)
RATES = ("six_win", "draw", "win_p1", "win_p2")


def _check_rate(rate: float, low: float, high: float, n: int) -> None:
    k = round(rate * n)
    assert rate == pytest.approx(k / n, abs=1e-12) and (low, high) == pytest.approx(_wilson(k, n), abs=1e-12)
    assert (low, high) == pytest.approx(scipy_wilson(k, n), abs=1e-12)  # and scipy's, a second implementation


def _check_mean(estimate: float, low: float, high: float, values: pl.Series) -> None:
    """A mean with its normal 95 % interval, recomputed from the games' own values (numpy, scipy's z)."""
    data = values.to_numpy().astype(float)
    half = norm.ppf(0.975) * data.std(ddof=1) / np.sqrt(data.size)
    assert (estimate, low, high) == pytest.approx((data.mean(), data.mean() - half, data.mean() + half), abs=1e-9)


def six_win_by_round(p: Fraction, faces: int = 6, rounds: int = 14) -> list[Fraction]:
    """P(six-win within r rounds), r = 1..rounds, of the streak model, straight from its rules.

    Round 1: somebody takes the die at 1.  Every later round the Builder wins with probability p:
    with the top face showing that is the six-win (the game ends), else the die goes up one;
    otherwise another player takes the die at 1.
    """
    die, done, out = {1: Fraction(1)}, Fraction(0), [Fraction(0)]
    for _ in range(2, rounds + 1):
        nxt: dict[int, Fraction] = {}
        for face, q in die.items():
            if face == faces:
                done += q * p
            else:
                nxt[face + 1] = nxt.get(face + 1, Fraction(0)) + q * p
            nxt[1] = nxt.get(1, Fraction(0)) + q * (1 - p)
        die = nxt
        out.append(done)
    return out


def test_the_streak_chain_by_hand():
    by_round = six_win_by_round(Fraction(1, 2))
    assert by_round[:6] == [0] * 6 and by_round[6] == Fraction(1, 64)  # the take, then six wins in a row: p^6
    # a later six-win needs a lost round (1/2) six rounds before it, then six wins: 1/128 for rounds 8..13;
    # round 14 needs round 8 lost while the game still runs (not six-won in round 7): (1/2)(63/64)(1/64)
    assert by_round[13] == Fraction(1, 64) + 6 * Fraction(1, 128) + Fraction(63, 8192) == Fraction(575, 8192)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    return build_report(tmp_path_factory.mktemp("reports") / "dietower", quick=True, seed=1)


@pytest.fixture(scope="module")
def md(report):
    return (report / "index.md").read_text(encoding="utf-8")


def _table(out, name: str) -> pl.DataFrame:
    return pl.read_parquet(out / f"{name}.parquet")


def test_the_report_opens_with_what_it_finds(report):
    summary = check_summary(report)
    assert all(f["status"] is None for f in summary["findings"])  # no tiers: exact or simulated numbers
    value = _table(report, "equilibrium_facts").filter(pl.col("objective") == "win")["value"][0]
    optimal = next(f for f in summary["findings"] if f["anchor"] == "equilibrium_facts")
    assert optimal["rate"] == value and f"{value * 100:.1f} %" in optimal["sentence"] and "exact" in optimal["sentence"]
    full = {r["measure"]: r for r in _table(report, "full_deck_2p").iter_rows(named=True)}
    seat = next(f for f in summary["findings"] if f["sentence"].startswith("The first player's score"))
    n = full["P(p1 wins)"]["n"]
    k = round(full["P(p1 wins)"]["estimate"] * n) + round(full["P(draw)"]["estimate"] * n) / 2
    assert seat["n"] == n and seat["rate"] == pytest.approx(k / n)  # a draw counts half


@pytest.mark.slow
def test_quick_report_is_written_offline_with_every_chart_and_table(report, md):
    meta = json.loads((report / "report.json").read_text())
    assert meta["charts"] == ["streak_points", "streak_six_win", "streak_length", "streak_longest", "convergence",
                              "equilibrium_strategy", "heuristic_losses_chart", "readings_chart"]
    assert meta["tables"] == ["streak_six_win_by_round", "full_deck_2p", "full_deck_3p", "agents_vs_random",
                              "reduced_exact", "reduced_exact_d3", "equilibrium_facts", "heuristic_losses", "readings",
                              "run_sizes"]
    # the last table: each step's size and real seconds, the header's seconds
    sizes = _table(report, "run_sizes")
    assert dict(sizes.select("step", "seconds").rows()) == meta["meta"]["seconds"]
    assert sizes["step"].to_list() == ["streak model", "full deck", "reduced decks", "equilibrium", "readings"]
    html = (report / "index.html").read_text()
    assert "http://cdn" not in html and "https://cdn" not in html and "<script" not in html.lower()
    assert html.count("<svg") == len(meta["charts"])
    for name in meta["charts"]:
        figure = re.search(rf'<figure id="chart-{name}"[^>]*>(.*?)</figure>', html, re.S)
        assert figure and "<svg" in figure.group(1) and f'href="{name}.vl.json"' in figure.group(1), name
        assert f"]({name}.png)" in md and (report / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for name in meta["tables"]:  # in full beside the page, the CSV with the Parquet's values
        assert_frame_equal(pl.read_csv(report / f"{name}.csv"), _table(report, name), check_dtypes=False,
                           check_exact=False)
        assert f"[{name}.csv]({name}.csv)" in md


@pytest.mark.slow
def test_header_and_streak_section_state_the_settings_and_exact_odds(report, md):
    for label, value in (("Rules version", MODEL.rules_version), ("Master seed", "1"), ("Quick", "yes"),
                         ("Games", f"{QUICK['full_games']:,}")):
        assert f"| {label} | {value} |" in md
    exact = six_win_by_round(Fraction(1, 2))
    assert f"P(six-win) = {exact[-1]} ≈ {float(exact[-1]):.5f}" in md  # 575/8192
    table = _table(report, "streak_six_win_by_round")
    assert table.get_column("round").to_list() == list(range(1, 15))
    for row in table.iter_rows(named=True):
        assert row["exact"] == pytest.approx(float(exact[row["round"] - 1]), abs=1e-15)
        assert row["n"] == QUICK["streak_games"] and row["simulated"] == pytest.approx(row["count"] / row["n"])
        assert (row["low"], row["high"]) == pytest.approx(_wilson(row["count"], row["n"]), abs=1e-12)
    # the convergence chart (p = 0.6) closes in on the chain's exact value; its caption says where it ends
    spec = json.loads((report / "convergence.vl.json").read_text())
    (rows,) = [d for d in spec["datasets"].values() if "estimate" in d[0]]  # the others: the rule, the errors
    target = float(six_win_by_round(Fraction(3, 5))[-1])
    assert [r["exact"] for r in rows] == pytest.approx([target] * len(rows), abs=1e-15)
    assert [r["n"] for r in rows] == sorted(r["n"] for r in rows) and rows[-1]["n"] == QUICK["convergence"]
    for r in rows:  # each running estimate is k/n with scipy's Wilson interval of (k, n)
        _check_rate(r["estimate"], r["low"], r["high"], r["n"])
    last = rows[-1]
    assert (f"After {last['n']:,} games the estimate is {last['estimate']:.4f} [{last['low']:.4f}, "
            f"{last['high']:.4f}] against the exact {target:.4f}") in md


@pytest.mark.slow
def test_full_deck_tables_carry_intervals_and_n(report):
    for players in (2, 3):
        table = _table(report, f"full_deck_{players}p")
        assert (table.get_column("n") == QUICK["full_games"]).all()
        rows = {r["measure"]: r for r in table.iter_rows(named=True)}
        shares = ["P(draw)"] + [f"P(p{s} wins)" for s in range(1, players + 1)]
        assert set(shares) | {"P(six-win)"} <= set(rows)
        # the report's games played again (same seed), each measure recounted from their rows
        games = simulate("dietower", QUICK["full_games"], params={"players": players},
                         agents=["random"] * players, seed=1, progress=False)
        counts = {"P(six-win)": int(games["six_win"].sum()), "P(draw)": int((games["winner"] == "draw").sum()),
                  **{f"P(p{s} wins)": int((games["winner"] == f"p{s}").sum()) for s in range(1, players + 1)}}
        for name, k in counts.items():
            assert rows[name]["estimate"] == k / QUICK["full_games"]
            _check_rate(rows[name]["estimate"], rows[name]["lower"], rows[name]["upper"], rows[name]["n"])
        assert sum(rows[s]["estimate"] for s in shares) == pytest.approx(1.0)  # every game: one winner or a draw
        for s in range(1, players + 1):
            for measure, column in ((f"mean score p{s}", f"score_p{s}"),
                                    (f"mean longest streak p{s}", f"longest_streak_p{s}")):
                r = rows[measure]
                _check_mean(r["estimate"], r["lower"], r["upper"], games[column])
    agents = _table(report, "agents_vs_random")
    assert (agents.get_column("n") == QUICK["agent_games"]).all()
    for r in agents.iter_rows(named=True):
        _check_rate(r["estimate"], r["lower"], r["upper"], r["n"])


@pytest.mark.slow
def test_reduced_deck_tables_show_exact_fractions_beside_the_simulation(report, md):
    for name, suits in (("reduced_exact", range(2, QUICK["reduced_max"] + 1)), ("reduced_exact_d3", range(3, 6))):
        table = _table(report, name)
        assert sorted(set(table.get_column("suit_size"))) == list(suits)
        for suit in suits:
            rows = {r["measure"]: r for r in table.filter(pl.col("suit_size") == suit).iter_rows(named=True)}
            assert set(rows) == {*RATES, "mean_score_p1", "mean_score_p2"}
            fractions = {m: Fraction(r["exact_fraction"]) for m, r in rows.items()}
            assert fractions["win_p1"] + fractions["win_p2"] + fractions["draw"] == 1  # two players, exactly
            faces = 6 if name == "reduced_exact" else 3
            games = simulate("dietower", QUICK["reduced_games"], params={"suit_size": suit, "die_faces": faces},
                             agents="random,random", seed=1, progress=False)
            for measure, r in rows.items():
                assert r["exact"] == float(fractions[measure])
                if measure in RATES:  # the interval is the Wilson interval of the stated number of games
                    _check_rate(r["simulated"], r["lower"], r["upper"], QUICK["reduced_games"])
                else:  # a mean score, recomputed from the same games
                    _check_mean(r["simulated"], r["lower"], r["upper"], games[measure.replace("mean_", "")])
    # suits of two by hand (test_dietower_exact.py): each seat wins 1/18, 8/9 draws, no six-win
    suit2 = {r["measure"]: r["exact_fraction"] for r in
             _table(report, "reduced_exact").filter(pl.col("suit_size") == 2).iter_rows(named=True)}
    assert (suit2["win_p1"], suit2["win_p2"], suit2["draw"], suit2["six_win"]) == ("1/18", "1/18", "8/9", "0")
    assert "| 2 | win_p1 | 1/18 |" in md and "| 2 | draw | 8/9 |" in md


# -- optimal play, worked out a second way: every line of play through the game's own protocol ----------------
def _heuristic(name: str, config):
    """p1's card distribution in a state, from each heuristic's declared rule (agents.py's one-line help).

    highest / lowest: the highest / lowest rank held, the Joker only when no rank is left; random: any
    card of the hand; joker (at 4, base random): the Joker when another seat is the Builder with the die
    at 4 or more, else any rank held (the Joker when no rank is left).
    """
    joker = config.joker

    def dist(state) -> dict[int, float]:
        hand = MODEL.legal_actions(config, state, 0)
        ranks = [c for c in hand if c != joker] or [joker]
        if name == "random":
            return {c: 1 / len(hand) for c in hand}
        if name in ("highest", "lowest"):
            return {max(ranks) if name == "highest" else min(ranks): 1.0}
        if joker in hand and state.builder == 1 and state.die >= 4:
            return {joker: 1.0}
        return {c: 1 / len(ranks) for c in ranks}

    return dist


def _payoff(config, state, objective: str) -> float:
    row = MODEL.result_row(config, state)
    if objective == "points":
        return row["score_p1"] - row["score_p2"]
    return {"p1": 1.0, "draw": 0.5, "p2": 0.0}[row["winner"]]


def _expected(config, objective: str, p1, p2) -> float:
    """p1's expected payoff over every line of play (MODEL.apply), ``None`` for a seat that best-responds."""
    memo: dict = {}

    def value(state) -> float:
        if MODEL.current_player(config, state) == TERMINAL:
            return _payoff(config, state, objective)
        if state not in memo:
            mine, theirs = MODEL.legal_actions(config, state, 0), MODEL.legal_actions(config, state, 1)
            if p1 is None:  # p1 picks its best card against p2's mixed card
                d2 = p2(state)
                memo[state] = max(sum(w * value(MODEL.apply(config, state, (a, b))) for b, w in d2.items())
                                  for a in mine)
            elif p2 is None:  # p2 picks the card worst for p1, knowing p1's policy (not its card)
                d1 = p1(state)
                memo[state] = min(sum(w * value(MODEL.apply(config, state, (a, b))) for a, w in d1.items())
                                  for b in theirs)
            else:
                d1, d2 = p1(state), p2(state)
                memo[state] = sum(w1 * w2 * value(MODEL.apply(config, state, (a, b)))
                                  for a, w1 in d1.items() for b, w2 in d2.items())
        return memo[state]

    return value(MODEL.initial_state(config, 0))


def _strategy(sol, seat: int, objective: str):
    """The solver's equilibrium strategy of ``seat``, read in a protocol state."""
    def dist(state) -> dict[int, float]:
        diff = state.scores[0] - state.scores[1] if objective == "win" else 0
        return sol.policy(seat, (state.hands[0], state.hands[1], state.builder, state.die, diff))

    return dist


def test_the_heuristics_rules_are_the_agents_choices():
    """The rules ``_heuristic`` is written from are what the workbench agents play (in every state of suit 3)."""
    config = MODEL.make_config(MODEL.resolve_params({"suit_size": 3}))
    states, todo = set(), [MODEL.initial_state(config, 0)]
    while todo:
        state = todo.pop()
        if state in states or MODEL.current_player(config, state) == TERMINAL:
            continue
        states.add(state)
        todo += [MODEL.apply(config, state, (a, b)) for a in MODEL.legal_actions(config, state, 0)
                 for b in MODEL.legal_actions(config, state, 1)]
    assert len(states) > 50
    for name in ("random", "highest", "lowest", "joker"):
        agent = MODEL.make_agent(name)
        for state in states:
            view, legal = MODEL.observation(config, state, 0), MODEL.legal_actions(config, state, 0)
            picks = {agent.act(view, legal, config, SplitMix64(s)) for s in range(12)}
            support = set(_heuristic(name, config)(state))
            assert picks <= support and (len(support) == 1 or len(picks) > 1), (name, state, picks, support)


@pytest.mark.slow
def test_optimal_play_tables(report):
    """Game values, heuristic payoffs and best responses, each worked out here over every line of play.

    The game is symmetric (both players hold the same cards), so its value is 1/2 for "win" and 0 for
    "points".  The solver's strategies are an equilibrium: a best response to either of them (found
    here by enumeration) earns exactly that value.  Each heuristic's payoff against the solver's p2
    and against a best-responding p2 is the expectation over every line of play through
    ``MODEL.apply`` (not the solver's own transition code).
    """
    suit = QUICK["eq_suit"]
    config = MODEL.make_config(MODEL.resolve_params({"suit_size": suit}))
    facts = {r["objective"]: r for r in _table(report, "equilibrium_facts").iter_rows(named=True)}
    symmetric = {"win": 0.5, "points": 0.0}
    assert set(facts) == set(symmetric) and {r["suit_size"] for r in facts.values()} == {suit}
    losses = _table(report, "heuristic_losses")
    assert sorted(losses.select("agent", "objective").rows()) == sorted(
        (a, o) for a in ("random", "highest", "lowest", "joker") for o in symmetric)
    for objective, value in symmetric.items():
        assert facts[objective]["value"] == pytest.approx(value, abs=1e-9)
        sol = optimal.solve(config, objective)
        p1_eq, p2_eq = _strategy(sol, 0, objective), _strategy(sol, 1, objective)
        assert _expected(config, objective, None, p2_eq) == pytest.approx(value, abs=1e-9)
        assert _expected(config, objective, p1_eq, None) == pytest.approx(value, abs=1e-9)
        for r in losses.filter(pl.col("objective") == objective).iter_rows(named=True):
            policy = _heuristic(r["agent"], config)
            vs_eq, vs_br = _expected(config, objective, policy, p2_eq), _expected(config, objective, policy, None)
            assert r["game_value"] == pytest.approx(value, abs=1e-9)
            assert (r["vs_equilibrium"], r["loss_vs_equilibrium"]) == pytest.approx((vs_eq, value - vs_eq), abs=1e-9)
            assert (r["vs_best_response"], r["loss_vs_best_response"]) == pytest.approx((vs_br, value - vs_br),
                                                                                        abs=1e-9)
    # by hand, "win": highest and lowest are pure and predictable, so a best response wins every game
    by_hand = losses.filter(pl.col("objective") == "win", pl.col("agent").is_in(["highest", "lowest"]))
    assert by_hand["vs_best_response"].to_list() == pytest.approx([0.0, 0.0], abs=1e-12)


def test_charts_are_specs_with_the_exact_and_simulated_layers():
    frames = streak_comparison(0.5, 6, 14, 2, games=2000, seed=0)
    spec = distribution_chart(frames["points"]).to_dict()
    assert len(spec["layer"]) == 3
    conv = convergence_frame(0.5, games=5000)
    assert conv["n"].is_sorted()
    for r in conv.iter_rows(named=True):  # k/n with scipy's Wilson interval of (k, n)
        _check_rate(r["estimate"], r["low"], r["high"], r["n"])
    assert (conv["exact"] == float(six_win_by_round(Fraction(1, 2))[-1])).all()
