"""The duel report: built through the CLI with quick settings, self-contained, every chart inline.

The numbers are checked against the report's own saved tables and recomputed here from their
counts: rates are k/n, intervals are 95 % Wilson intervals from the formula, differences are
variant − baseline, and the Markdown shows those values.
"""

from __future__ import annotations

import html
import json
import re
import struct
import time

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from tests.independent import wilson as _wilson
from tests.scipy_intervals import newcombe
from tests.scipy_intervals import wilson as scipy_wilson
from tests.summary_checks import check_summary
from workbench.cli import main
from workbench.core.model import get_game
from workbench.core.sim.runner import simulate
from workbench.games.duel import analysis
from workbench.games.duel.model import RULES_VERSION
from workbench.games.duel.report import BALANCE, QUICK, WHATIF_CARD

# one worker builds this module's shared fixtures once (pytest -n 2 --dist loadgroup)
pytestmark = pytest.mark.xdist_group("test_duel_report")

PNG = b"\x89PNG\r\n\x1a\n"
DECKS = ("regular", "unlimited")
# a person reads each battlefield by its English name from the data file (raw keys stay in CSV and Parquet)
NAMES = dict(pl.read_csv("data/duel/battlefields.csv").select("key", "name_en").iter_rows())


def _count(rate: float, n: int) -> int:
    """The whole number of games behind a saved rate (fails if the rate is not k/n)."""
    k = round(rate * n)
    assert rate == pytest.approx(k / n, abs=1e-12), (rate, n)
    return k


def _shown(rate: float, low: float, high: float) -> str:
    """How a rate and its interval read in the report (report.py's documented "52.3% [51.3–53.3]")."""
    return f"{100 * rate:.1f}% [{100 * low:.1f}–{100 * high:.1f}]"


def _check_score(rate: float, low: float, high: float, n: int) -> str:
    """A saved score (a win 1, a draw ½) is (wins + draws / 2) / n with the Wilson interval of that count."""
    half = round(rate * n * 2)
    assert rate == pytest.approx(half / 2 / n, abs=1e-12), (rate, n)
    assert (low, high) == pytest.approx(_wilson(half / 2, n), abs=1e-12)
    return _shown(half / 2 / n, low, high)


def _check_rate(rate: float, low: float, high: float, n: int) -> str:
    """A saved rate with its interval is k/n with the Wilson interval of (k, n); returns how it reads."""
    k = _count(rate, n)
    assert (low, high) == pytest.approx(_wilson(k, n), abs=1e-12)
    assert (low, high) == pytest.approx(scipy_wilson(k, n), abs=1e-12)  # and scipy's, a second implementation
    return _shown(k / n, *_wilson(k, n))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("reports") / "duel"
    # load (or, on a cold cache, compile) the fast kernel first: a one-time cost, not the report's
    simulate("duel", 2, agents="greedy,greedy", progress=False)
    started = time.perf_counter()
    assert main(["report", "duel", "--quick", "--out", str(out), "--seed", "3"]) == 0
    return out, time.perf_counter() - started


@pytest.fixture(scope="module")
def md(built):
    return (built[0] / "index.md").read_text(encoding="utf-8")


def _table(out, name: str) -> pl.DataFrame:
    return pl.read_parquet(out / f"{name}.parquet")


def _chart_rows(out, name: str) -> list[dict]:
    spec = json.loads((out / f"{name}.vl.json").read_text(encoding="utf-8"))
    (rows,) = spec["datasets"].values()
    return rows


def test_the_report_opens_with_what_it_finds_and_what_to_change(built):
    summary = check_summary(built[0], changes=True)
    battlefields = pl.read_parquet(built[0] / "battlefield_tiers.parquet")["cell"].to_list()
    said = [f for f in summary["findings"] if f["anchor"] == "battlefield_tiers"]
    assert said and all(any(f"First seat score on {b}: " in f["sentence"] for b in battlefields) for f in said)


def test_quick_report_states_its_settings_and_its_time(built):
    out, seconds = built
    meta = json.loads((out / "report.json").read_text())["meta"]
    assert meta["settings"] == "quick" and meta["battlefields"] == list(QUICK.battlefields)
    assert meta["games"] == {"per battlefield × deck (greedy vs greedy)": QUICK.main_games,
                             "other pairings": QUICK.other_games, "miss rule": QUICK.miss_games,
                             "what-if": QUICK.whatif_games, "auto-balance per value": QUICK.balance_games,
                             "search tier": "not played (quick)", "rebalance budget": "quick"}
    assert 0 < meta["seconds"]["total before writing"] <= seconds
    # every step's real seconds: the header's are the sizes section's (one number per step, not a mix)
    sizes = _table(out, "run_sizes")
    assert dict(sizes.select("step", "seconds").rows()) == {k: v for k, v in meta["seconds"].items()
                                                            if k != "total before writing"}
    assert {"battlefields greedy", "tiers", "readings", "rebalance"} <= set(sizes["step"])
    assert sum(sizes["seconds"]) <= meta["seconds"]["total before writing"] + 0.5


def test_html_is_self_contained_and_shows_every_chart(built, md):
    out, _ = built
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "<script" not in page.lower()
    external = [u for u in re.findall(r'(?:src|href)="([^"]+)"', page) if re.match(r"^(https?:)?//", u)]
    assert not external
    charts = json.loads((out / "report.json").read_text())["charts"]
    assert charts == ["first_seat_greedy", "length_greedy", "end_reasons_greedy", "first_seat_other", "miss_rule_delta",
                      "miss_rule_reasons", "cost_vs_value", "whatif_delta", "auto_balance_curve",
                      "battlefield_tiers_chart", "readings_chart"]
    assert re.findall(r"\]\(([^)]+\.png)\)", md) == [f"{name}.png" for name in charts]  # in reading order
    for name in charts:
        figure = re.search(rf'<figure id="chart-{re.escape(name)}"[^>]*>(.*?)</figure>', page, re.S)
        assert figure and "<svg" in figure.group(1), name
        for ext in ("svg", "png", "vl.json"):  # the page links the chart's files, the Markdown shows the PNG
            assert f'href="{name}.{ext}"' in figure.group(1)
        assert f"]({name}.png)" in md and f"]({name}.svg)" in md
        png = (out / f"{name}.png").read_bytes()
        assert png[:8] == PNG
        svg = (out / f"{name}.svg").read_text(encoding="utf-8")
        size = re.search(r'<svg[^>]*\bwidth="([\d.]+)"[^>]*\bheight="([\d.]+)"', svg)
        width, height = struct.unpack(">II", png[16:24])  # the PNG's IHDR: the same picture as the SVG
        assert width / height == pytest.approx(float(size.group(1)) / float(size.group(2)), rel=0.01), name


def test_header_states_rules_version_seed_and_settings(built, md):
    out, _ = built
    meta = json.loads((out / "report.json").read_text())["meta"]
    assert meta["rules_version"] == RULES_VERSION and meta["seed"] == 3
    assert meta["agents"] == ["greedy vs greedy", "random vs random", "greedy vs random"]
    page = (out / "index.html").read_text(encoding="utf-8")
    rows = {"Rules version": RULES_VERSION, "Master seed": "3", "Settings": "quick",
            "Agents": "greedy vs greedy, random vs random, greedy vs random",
            "Battlefields": ", ".join(get_game("duel").choice_label("battlefield", b) for b in QUICK.battlefields)}
    for label, value in rows.items():
        assert f"| {label} | {value} |" in md and f"<tr><th>{label}</th><td>{html.escape(value)}</td></tr>" in page
    assert f"per battlefield × deck (greedy vs greedy)={QUICK.main_games}" in md


def test_every_table_is_saved_as_csv_and_parquet_with_the_same_values(built, md):
    out, _ = built
    for name in json.loads((out / "report.json").read_text())["tables"]:
        table = _table(out, name)
        assert table.height > 0, name
        assert_frame_equal(pl.read_csv(out / f"{name}.csv"), table, check_dtypes=False, check_exact=False)
        assert f"[{name}.csv]({name}.csv)" in md and f"[{name}.parquet]({name}.parquet)" in md


def _ends_checked(md: str, ends: pl.DataFrame, keys: tuple[str, ...], games: int) -> None:
    """Every end-reason share is k/n with its interval, a cell's shares add up to its games, each row reads so."""
    reasons = [c for c in ends.columns if c not in (*keys, "games") and not c.endswith(("_low", "_high"))]
    assert reasons and all(not r.startswith("end_") for r in reasons)  # "tower_built", not "end_tower_built"
    for row in ends.iter_rows(named=True):
        assert row["games"] == games
        shown = [_check_rate(row[r], row[f"{r}_low"], row[f"{r}_high"], games) for r in reasons]
        assert sum(_count(row[r], games) for r in reasons) == games  # every game ends for one reason
        cells = [NAMES[row[k]] if k == "battlefield" else str(row[k]) for k in keys]
        assert "| " + " | ".join([*cells, str(games), *shown]) + " |" in md


def test_battlefield_tables_rates_intervals_and_n(built, md):
    out, _ = built
    table = _table(out, "battlefields_greedy")  # greedy vs greedy: the caption names the one pairing
    assert table.columns[:3] == ["battlefield", "deck", "games"] and "pairing" not in table.columns
    assert sorted(table.select("battlefield", "deck").rows()) == sorted(
        (b, d) for b in QUICK.battlefields for d in DECKS)  # one row per battlefield × deck, each with its n
    assert (table.get_column("games") == QUICK.main_games).all()
    for row in table.iter_rows(named=True):
        first = _check_score(row["first_seat_score"], row["first_seat_score_low"], row["first_seat_score_high"],
                             QUICK.main_games)
        draws = _check_rate(row["draws"], row["draws_low"], row["draws_high"], QUICK.main_games)
        assert (f"| {NAMES[row['battlefield']]} | {row['deck']} | {QUICK.main_games} | {first} | {draws} | "
                f"{row['first_seat_p']:.4g} | {row['length_mean']:.4g} | {row['length_median']:g} |") in md
    _ends_checked(md, _table(out, "battlefields_greedy_ends"), ("battlefield", "deck"), QUICK.main_games)
    lengths = _table(out, "length_all")
    assert lengths.height == len(QUICK.battlefields) * len(DECKS) * (1 + len(QUICK.other_pairings))
    assert sorted(lengths.get_column("length_n").unique().to_list()) == sorted({QUICK.main_games, QUICK.other_games})


def test_other_pairings_show_each_agents_win_rate(built, md):
    """In *greedy vs random* the first seat wins about half (the seat is drawn); greedy's own rate is shown too."""
    out, _ = built
    table = _table(out, "battlefields_other")
    pairings = [" vs ".join(p) for p in QUICK.other_pairings]
    assert "greedy vs random" in pairings
    assert sorted(table.select("battlefield", "deck", "pairing").rows()) == sorted(
        (b, d, p) for b in QUICK.battlefields for d in DECKS for p in pairings)
    # the same games played again here (the report's master seed 3), counted from the raw rows
    games = analysis.run_grid(QUICK.battlefields, DECKS, QUICK.other_pairings, QUICK.other_games, 3)
    n = QUICK.other_games
    for row in table.iter_rows(named=True):
        cell = games.filter((pl.col("battlefield") == row["battlefield"]) & (pl.col("deck") == row["deck"])
                            & (pl.col("pairing") == row["pairing"]))
        assert cell.height == row["games"] == n
        wins = {seat: int((cell.get_column("winner") == seat).sum()) for seat in ("p1", "p2")}
        first_wins = int((cell.get_column("winner") == cell.get_column("first_seat")).sum())
        shown = {seat: _check_rate(row[f"{seat}_win"], row[f"{seat}_win_low"], row[f"{seat}_win_high"], n)
                 for seat in ("p1", "p2")}
        assert (_count(row["p1_win"], n), _count(row["p2_win"], n)) == (wins["p1"], wins["p2"])
        drawn = int((cell.get_column("winner") == "draw").sum())
        assert row["first_seat_score"] == pytest.approx((first_wins + drawn / 2) / n)  # a draw counts half
        first = _check_score(row["first_seat_score"], row["first_seat_score_low"], row["first_seat_score_high"], n)
        draws = _check_rate(row["draws"], row["draws_low"], row["draws_high"], n)
        assert (f"| {NAMES[row['battlefield']]} | {row['deck']} | {row['pairing']} | {n} | {shown['p1']} | "
                f"{shown['p2']} | "
                f"{first} | {draws} |") in md
        if row["pairing"] == "greedy vs random":  # the stronger agent's rate, not hidden behind the seat's
            assert row["p1_win"] > row["p2_win"] and row["p1_win"] > row["first_seat_score"]
    _ends_checked(md, _table(out, "battlefields_other_ends"), ("battlefield", "deck", "pairing"), n)


def test_battlefield_tables_fit_the_page(built):
    """Each battlefield table, as the HTML page shows it, is narrower than the page.

    The page is 1100 px wide (the report's CSS); a table cell takes about 7.5 px a character at
    the table's .9em, plus 18 px of padding and border.
    """
    out, _ = built
    page = (out / "index.html").read_text(encoding="utf-8")
    for name in ("battlefields_greedy", "battlefields_greedy_ends", "battlefields_other", "battlefields_other_ends"):
        body = re.search(rf'<div class="table" id="table-{name}">(.*?)</table>', page, re.S).group(1)
        rows = [[html.unescape(c) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", r, re.S)]
                for r in re.findall(r"<tr>(.*?)</tr>", body, re.S)]
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        assert sum(7.5 * w + 18 for w in widths) <= 1100, (name, rows[0], widths)


def test_first_seat_charts_zoom_to_the_data_and_show_the_fair_line(built):
    out, _ = built
    for name in ("first_seat_greedy", "first_seat_other"):
        spec = json.loads((out / f"{name}.vl.json").read_text(encoding="utf-8"))
        layers = spec["spec"]["layer"] if "facet" in spec else spec["layer"]
        bars, points, fair = layers
        assert fair["mark"]["type"] == "rule" and fair["encoding"]["y"] == {"datum": 0.5}
        low, high = bars["encoding"]["y"]["scale"]["domain"]
        assert points["encoding"]["y"]["scale"]["domain"] == [low, high]  # one axis for bars and points
        rows = _chart_rows(out, name)
        lows, highs = [r["first_seat_score_low"] for r in rows], [r["first_seat_score_high"] for r in rows]
        assert low <= min(lows) and max(highs) <= high and low <= 0.5 <= high  # all data and the 50 % line
        assert 0 < low and high < 1  # zoomed in, not 0–100 %
        assert min(lows) - low <= 0.02 and high - max(highs) <= 0.02  # by at most a point of margin (and rounding)


def test_first_seat_summary_sentence_matches_the_table(built, md):
    out, _ = built
    table = _table(out, "battlefields_greedy")
    said = re.search(r"favoured \(its score's interval above 50 %, a draw counting half\) in (\d+) of (\d+) cells; the "
                     r"score runs from (\w+) / (\w+): ([\d.]+) % \[[^]]*\], draws [\d.]+ % to (\w+) / (\w+): "
                     r"([\d.]+) %", md)
    assert said, "the summary sentence is missing"
    favoured = int((table.get_column("first_seat_score_low") > 0.5).sum())
    assert (int(said.group(1)), int(said.group(2))) == (favoured, table.height)
    lowest, highest = table.get_column("first_seat_score").min(), table.get_column("first_seat_score").max()
    for field, deck, shown, rate in ((said.group(3), said.group(4), said.group(5), lowest),
                                     (said.group(6), said.group(7), said.group(8), highest)):
        row = table.filter((pl.col("battlefield") == field) & (pl.col("deck") == deck)).row(0, named=True)
        assert row["first_seat_score"] == rate and shown == f"{100 * rate:.1f}"


def test_miss_rule_table_is_the_rate_change_against_no_misses(built, md):
    out, _ = built
    table = _table(out, "miss_rule")
    miss = [m for m in QUICK.miss_rates if m != 0.0]
    assert sorted(table.select("battlefield", "miss_rate").rows()) == sorted(
        (b, m) for b in QUICK.battlefields for m in miss)
    for row in table.iter_rows(named=True):
        assert row["n"] == row["n_base"] == QUICK.miss_games
        assert (row["k"], row["k_base"]) == (_count(row["rate"], row["n"]), _count(row["rate_base"], row["n_base"]))
        rate = _check_rate(row["rate"], row["rate_low"], row["rate_high"], row["n"])
        base = _check_rate(row["rate_base"], row["rate_base_low"], row["rate_base_high"], row["n_base"])
        assert row["diff"] == pytest.approx(row["rate"] - row["rate_base"])
        assert (row["low"], row["high"]) == pytest.approx(newcombe(row["k"], row["n"], row["k_base"], row["n_base"]),
                                                          abs=1e-12)  # independent samples: Newcombe's interval
        _check_rate(row["timeout_share"], row["timeout_share_low"], row["timeout_share_high"], row["n"])
        diff = f"{100 * row['diff']:+.1f} pts ["
        assert (f"| {NAMES[row['battlefield']]} | regular | greedy vs greedy | {row['miss_rate']:g} | {row['n']} | "
                f"{row['k']} | {rate} | {row['n_base']} | {row['k_base']} | {base} | {diff}") in md


def test_what_if_tables_compare_the_same_games(built, md):
    out, _ = built
    outcomes = _table(out, "whatif_outcomes")
    assert {"first_seat_win", "p1_win", "draw"} <= set(outcomes.get_column("metric"))
    assert (outcomes.get_column("n") == QUICK.whatif_games).all()
    for row in outcomes.iter_rows(named=True):
        base = _check_rate(row["base"], row["base_low"], row["base_high"], row["n"])
        variant = _check_rate(row["variant"], row["variant_low"], row["variant_high"], row["n"])
        assert row["diff"] == pytest.approx(row["variant"] - row["base"]) and row["low"] <= row["diff"] <= row["high"]
        metric = row["metric"]  # the report reads it in words; the CSV keeps the key
        shown = {"first_seat_score": "first seat score", "first_seat_win": "first seat wins",
                 "p1_win": "p1 wins", "p2_win": "p2 wins", "draw": "draw"}.get(
            metric, f"ends: {metric[4:].replace('_', ' ')}")
        assert f"| {shown} | {row['n']} | {base} | {variant} | {100 * row['diff']:+.1f} pts [" in md
    ends = outcomes.filter(pl.col("metric").str.starts_with("end_"))
    assert ends.get_column("base").sum() == pytest.approx(1) and ends.get_column("variant").sum() == pytest.approx(1)
    card = _table(out, "whatif_card")
    assert card.get_column("key").unique().to_list() == [WHATIF_CARD]
    assert card.get_column("metric").to_list() == ["wr_drawn", "wr_played", "play_rate"]
    for row in card.iter_rows(named=True):  # each arm's rate with its own interval and n
        base = _check_rate(row["base"], row["base_low"], row["base_high"], row["n_base"])
        variant = _check_rate(row["variant"], row["variant_low"], row["variant_high"], row["n_variant"])
        assert row["diff"] == pytest.approx(row["variant"] - row["base"])
        assert (row["low"], row["high"]) == pytest.approx(newcombe(
            _count(row["variant"], row["n_variant"]), row["n_variant"], _count(row["base"], row["n_base"]),
            row["n_base"]), abs=1e-12)  # different seat-games: Newcombe's interval of the difference
        shown = {"wr_drawn": "win rate when drawn", "wr_played": "win rate when played",
                 "play_rate": "played when drawn"}[row["metric"]]  # in words in the report
        assert (f"| {WHATIF_CARD} | {shown} | {row['n_base']} | {base} | {row['n_variant']} | {variant} | "
                f"{100 * row['diff']:+.1f} pts [") in md


def test_auto_balance_table_and_summary(built, md):
    out, _ = built
    param, low, high, _field = BALANCE
    points = _table(out, "auto_balance").sort("value")
    assert points.height <= QUICK.balance_evals
    values = points.get_column("value").to_list()
    assert values[0] == low and values[-1] == high  # both ends are evaluated first
    for row in points.iter_rows(named=True):
        # the first seat's score: its wins and half its draws (shown beside it)
        assert row["n"] == QUICK.balance_games
        assert row["rate"] == pytest.approx((row["k"] + row["draws"] / 2) / row["n"])
        shown = _check_score(row["rate"], row["low"], row["high"], row["n"])
        assert f"| {row['value']:g} | {row['n']} | {row['k']} | {row['draws']} | {shown} |" in md
    # the estimate: where the straight line between two evaluated neighbours crosses 50 %
    rates = points.get_column("rate").to_list()
    crossing = next(x0 + (0.5 - r0) * (x1 - x0) / (r1 - r0) for x0, x1, r0, r1 in
                    zip(values, values[1:], rates, rates[1:], strict=False) if (r0 - 0.5) * (r1 - 0.5) < 0)
    assert f"{param} ≈ {crossing:.2f}" in md
    best = min(points.iter_rows(named=True), key=lambda r: abs(r["rate"] - 0.5))
    assert (f"best tried {best['value']:g}: {100 * best['rate']:.1f}% "
            f"[{100 * best['low']:.1f}%–{100 * best['high']:.1f}%]") in md


def test_charts_plot_the_saved_tables(built):
    out, _ = built
    key = ("battlefield", "deck", "first_seat_score", "first_seat_score_low", "first_seat_score_high", "games")
    for chart, table in (("first_seat_greedy", "battlefields_greedy"), ("first_seat_other", "battlefields_other")):
        plotted = sorted(tuple(r[k] for k in key) for r in _chart_rows(out, chart))
        assert plotted == sorted(_table(out, table).select(key).rows())
    pairings = {r["pairing"] for r in _chart_rows(out, "first_seat_other")}  # one panel each
    assert pairings == {" vs ".join(p) for p in QUICK.other_pairings}
    plotted = sorted((r["cell"], r["diff"], r["low"], r["high"], r["n"]) for r in _chart_rows(out, "miss_rule_delta"))
    assert plotted == sorted(_table(out, "miss_rule").select("battlefield", "diff", "low", "high", "n").rows())
    plotted = sorted((r["metric"], r["diff"], r["low"], r["high"], r["n"]) for r in _chart_rows(out, "whatif_delta"))
    # the first seat as its score beside the draws: its win share (draws as losses) is in the table only
    outcomes = _table(out, "whatif_outcomes").filter(pl.col("metric") != "first_seat_win")
    assert plotted == sorted(outcomes.select("metric", "diff", "low", "high", "n").rows())
    assert {"first_seat_score", "draw"} <= {m for m, *_ in plotted}
    param = BALANCE[0]
    plotted = sorted((r[param], r["rate"], r["low"], r["high"], r["n"]) for r in _chart_rows(out, "auto_balance_curve"))
    assert plotted == sorted(_table(out, "auto_balance").select("value", "rate", "low", "high", "n").rows())
    # end reasons: each bar segment is the table's share of that reason in that cell
    table = _table(out, "battlefields_greedy_ends")
    for r in _chart_rows(out, "end_reasons_greedy"):
        field, deck = r["cell"].split(" / ")
        row = table.filter((pl.col("battlefield") == field) & (pl.col("deck") == deck)).row(0, named=True)
        assert r["n"] == row["games"] and r["count"] == _count(row[r["reason"]], row["games"])
    # lengths: the regular deck's games, each battlefield's bars hold all of its games
    lengths = _chart_rows(out, "length_greedy")
    for field in QUICK.battlefields:
        assert sum(r["count"] for r in lengths if r["battlefield"] == field) == QUICK.main_games
    # cost vs value: the static panel shows every card at the static model's value
    static = _table(out, "card_costing_static")
    panels = [rows for rows in json.loads((out / "cost_vs_value.vl.json").read_text())["datasets"].values()
              if len(rows) == static.height and {r["key"] for r in rows} == set(static.get_column("key"))]
    assert any({r["key"]: r["value"] for r in rows} == pytest.approx(
        dict(zip(static.get_column("key"), static.get_column("value"), strict=True))) for rows in panels)
    # the costed lists: the static view's five most over- and under-costed cards are those of cost − value
    lists = _table(out, "costed_cards")
    assert lists.select("view", "side").unique().height == 4 and lists.height == 20
    ranked = static.with_columns((pl.col("cost") - pl.col("value")).alias("gap"))
    for side, descending in (("over-costed", True), ("under-costed", False)):
        shown = lists.filter(pl.col("view") == "static model", pl.col("side") == side).sort("rank")
        top = ranked.sort("gap", descending=descending).head(5)
        assert shown["residual"].to_list() == pytest.approx(top["gap"].to_list())
        assert set(shown["name_en"]) <= set(static["name_en"]) and shown["rank"].to_list() == [1, 2, 3, 4, 5]
