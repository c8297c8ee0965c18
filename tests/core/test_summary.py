"""What a report opens with (core/present/summary.py): sentences generated from built tier-verdict tables.

Three built cells, no games played: one settled (60 % at both tiers, a million games each), one
that moves with skill (50 % then 58 %), one undecided (55 % then 56 % on 100 games).  Each sentence
must quote its row's number, interval, n and status exactly; the settled, far-from-fair verdict
comes first; a report shows at most ten; "What to change" says a proposal meeting the target at
some tiers only is partial.  ``workbench report --summary`` reads a current summary without
rebuilding and rebuilds a stale one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import polars as pl
import pytest

from workbench.cli import main
from workbench.core.errors import InputError
from workbench.core.model import get_game
from workbench.core.present.report import Report
from workbench.core.present.summary import (
    FINDS,
    MAX_FINDINGS,
    TO_CHANGE,
    read_summary,
    rebalance_changes,
    tier_findings,
    verdict_weight,
)
from workbench.core.sim.store import package_version
from workbench.core.skill.tiers import Tier, by_tier, tier_verdicts
from workbench.core.stats.rates import MOVES, SETTLED, UNDECIDED, wilson

TIERS = [Tier("greedy", "greedy"), Tier("search", "search")]
CELLS = {"Siege of Ur": (0.60, 0.60, 10**6), "Crystal Garden": (0.50, 0.58, 10**6), "Free Steppe": (0.55, 0.56, 100)}
STATUS = {"Siege of Ur": SETTLED, "Crystal Garden": MOVES, "Free Steppe": UNDECIDED}


def _table() -> pl.DataFrame:
    def run(tier: Tier) -> pl.DataFrame:
        rows = []
        for cell, (a, b, n) in CELLS.items():
            rate = a if tier.label == "greedy" else b
            low, high = wilson(round(rate * n), n)
            rows.append({"cell": cell, "rate": round(rate * n) / n, "low": low, "high": high, "n": n,
                         "verdict": "favoured" if low > 0.5 else "fair"})
        return pl.DataFrame(rows)

    return tier_verdicts(by_tier(TIERS, run), ["cell"])


def _report(table: pl.DataFrame) -> Report:
    rep = Report("Built duel", {"rules_version": "r1", "games": 1, "agents": "greedy"})
    rep.section("Is each battlefield's verdict settled across skill levels?", "Built values.")
    rep.table("battlefield_tiers", table)
    return rep


def test_each_sentence_quotes_its_rows_number_interval_n_and_status():
    table = _table()
    rep = _report(table)
    said = tier_findings(rep, "battlefield_tiers", "First seat on {cell}", top=10)
    rows = {r["cell"]: r for r in table.iter_rows(named=True)}
    assert {r["status"] for r in rows.values()} == {SETTLED, MOVES, UNDECIDED}  # the built cases are what they say
    assert len(rep.findings) == 3
    for finding in rep.findings:
        cell = next(c for c in CELLS if f"on {c}:" in finding["sentence"])
        row = rows[cell]
        assert finding["status"] == row["status"] == STATUS[cell]
        # the number is the strongest tier's (search), with its interval and n, to one decimal
        assert (finding["rate"], finding["low"], finding["high"], finding["n"]) == (
            row["search · score"], row["search · score_low"], row["search · score_high"], row["search · n"])
        quoted = (f"{row['search · score'] * 100:.1f} % [{row['search · score_low'] * 100:.1f}, "
                  f"{row['search · score_high'] * 100:.1f}] at search (n {row['search · n']:,})")
        assert quoted in finding["sentence"], finding["sentence"]
        assert row["status"] in finding["sentence"] and finding["anchor"] == "battlefield_tiers"
        assert finding["sentence"].startswith(f"First seat on {cell}: {row['search · verdict']}, ")
    moves = next(f["sentence"] for f in rep.findings if f["status"] == MOVES)
    assert "greedy 50.0 % → search 58.0 %" in moves  # the values at the two strongest tiers
    undecided = next(f["sentence"] for f in rep.findings if f["status"] == UNDECIDED)
    assert rows["Free Steppe"]["games needed"] in undecided  # how many games to play
    assert len(said) == 3


def test_findings_are_ordered_by_distance_from_fair_times_settledness():
    rep = _report(_table())
    tier_findings(rep, "battlefield_tiers", "First seat on {cell}", top=10)
    shown = rep.summary()["findings"]
    # settled 10 points from fair, then moves with skill (8 points, less sure), then undecided (6 points)
    assert [f["status"] for f in shown] == [SETTLED, MOVES, UNDECIDED]
    weights = [f["weight"] for f in shown]
    assert weights == sorted(weights, reverse=True)
    # the settled one: its interval lies about 9.9 points above fair, its value 10 (a quarter counts): × 1.0
    first = shown[0]
    assert weights[0] == pytest.approx(100 * ((first["low"] - 0.5) + (first["rate"] - 0.5) / 4))
    assert weights[0] == pytest.approx(verdict_weight(first["rate"], first["low"], first["high"], 0.5, SETTLED))
    # a wide interval holding fair counts only a quarter of its distance, times its settledness
    assert verdict_weight(0.70, 0.45, 0.90, 0.5, UNDECIDED) == pytest.approx(100 * 0.20 / 4 * 0.3)


def test_top_keeps_the_heaviest_rows_and_a_report_shows_at_most_ten():
    rep = _report(_table())
    tier_findings(rep, "battlefield_tiers", "First seat on {cell}", top=1)
    assert [f["status"] for f in rep.findings] == [SETTLED]
    for i in range(15):
        rep.finding(f"Built finding {i}.", weight=float(i))
    shown = rep.summary()["findings"]
    assert len(shown) == MAX_FINDINGS
    assert shown[0]["sentence"] == "Built finding 14." and "Built finding 4." not in [f["sentence"] for f in shown]


@dataclass
class FakeResult:
    proposals: pl.DataFrame
    tiers: tuple[str, ...] = ("greedy", "greedy@tuned")
    no_edits_needed: bool = False
    stopped: bool = False
    verification: pl.DataFrame | None = None


def _proposals(rows: list[tuple]) -> pl.DataFrame:
    cols = ["proposal", "edits", "n_edits", "size", "greedy · distance", "greedy · inside", "greedy@tuned · distance",
            "greedy@tuned · inside", "holds", "verdict"]
    return pl.DataFrame([dict(zip(cols, r, strict=True)) for r in rows])


def test_what_to_change_says_a_proposal_meeting_some_tiers_only_is_partial():
    rep = _report(_table())
    rep.table("rebalance_proposals", pl.DataFrame({"x": [1]}))
    result = FakeResult(_proposals([
        (1, "Siege of Ur: second-seat wall +2", 1, 2, 0.0, True, 1.5, False, False,
         "meets the target only at greedy (held-out seeds)"),
        (2, "Crystal Garden: start wall −1", 1, 1, 2.0, False, 3.0, False, False, "misses the target")]))
    said = rebalance_changes(rep, result)
    assert len(said) == 1
    text = said[0]
    assert text.startswith("No proposal meets the balance target at every tier")
    assert "Siege of Ur: second-seat wall +2" in text and "meets the target only at greedy" in text
    assert "greedy meets it" in text and "greedy@tuned 1.5 points outside" in text
    assert "Crystal Garden" not in text  # the best one only (least worst-tier distance)
    assert rep.changes[0]["anchor"] == "rebalance_proposals"


def test_what_to_change_gives_the_smallest_proposal_that_holds_at_every_tier():
    rep = Report("x")
    result = FakeResult(_proposals([
        (1, "two edits", 2, 2, 0.0, True, 0.0, True, True, "meets the target at every tier on held-out seeds"),
        (2, "one edit", 1, 1, 0.0, True, 0.0, True, True, "meets the target at every tier on held-out seeds"),
        (3, "partial", 1, 1, 0.0, True, 2.0, False, False, "meets the target only at greedy (held-out seeds)")]))
    (text,) = rebalance_changes(rep, result, anchor="")
    assert text.startswith("one edit: the smallest edit that meets the balance target at every tier")
    assert "greedy meets it, greedy@tuned meets it" in text
    assert rebalance_changes(rep, None) == []  # a game without targets: nothing to change


def test_what_to_change_says_when_its_fix_makes_cells_of_the_target_one_game():
    rep = Report("x")
    rows = _proposals([(1, "Hands 3/5: 3 → 8 and 5 → 8; Hands 5/5: 5 → 8", 3, 8, 0.0, True, 0.0, True, True,
                        "meets the target at every tier on held-out seeds")])
    merged = "start hands 3/5 and start hands 5/5 become one game (the same rules)"
    said = rebalance_changes(rep, FakeResult(rows.with_columns(pl.lit(merged).alias("same_game"))), anchor="")
    assert said[0].startswith("Hands 3/5: 3 → 8")
    assert said[1] == f"Note that it makes cells of the target the same game: {merged}."
    # a fix that keeps its cells apart (or a result from before the column) says nothing of it
    for kept in (rows.with_columns(pl.lit("").alias("same_game")), rows):
        assert len(rebalance_changes(Report("x"), FakeResult(kept), anchor="")) == 1


def test_index_md_opens_with_the_summary_right_after_the_header(tmp_path):
    rep = _report(_table())
    tier_findings(rep, "battlefield_tiers", "First seat on {cell}", top=10)
    rep.table("rebalance_proposals", pl.DataFrame({"x": [1]}))
    rebalance_changes(rep, FakeResult(_proposals([(1, "wall +2", 1, 2, 0.0, True, 0.0, True, True, "meets")])))
    out = rep.write(tmp_path / "rep")
    md = (out / "index.md").read_text(encoding="utf-8")
    after_header = md.split("\n\n", 2)[2]  # the title, the header table, then the rest
    assert after_header.startswith(f"## {FINDS}\n")
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    finds, change = md.index(f"## {FINDS}"), md.index(f"## {TO_CHANGE}")
    first_section = md.index("## Is each battlefield")
    assert finds < change < first_section
    for item in summary["findings"] + summary["changes"]:
        assert item["sentence"] in md[finds:first_section]
        assert f"]({item['href']})" in md and item["href"].startswith("#table-")
        assert f'<a id="{item["href"][1:]}"></a>' in md  # the Markdown anchor it links to exists
    html_text = (out / "index.html").read_text(encoding="utf-8")
    assert html_text.index('id="what-this-report-finds"') < html_text.index('id="section-is-each-battlefield')
    assert 'id="table-battlefield_tiers"' in html_text and 'href="#table-battlefield_tiers"' in html_text
    # the summary files belong to the report: listed in its manifest, summary.md the same sentences
    files = json.loads((out / "report.json").read_text(encoding="utf-8"))["files"]
    assert {"summary.json", "summary.md"} <= set(files)
    assert all(f["sentence"] in (out / "summary.md").read_text(encoding="utf-8") for f in summary["findings"])
    assert [f["status"] for f in summary["findings"]] == [SETTLED, MOVES, UNDECIDED]
    assert summary["rules_version"] == "r1" and summary["workbench_version"] == package_version()


def test_a_finding_must_link_to_something_the_report_has(tmp_path):
    rep = _report(_table())
    rep.finding("A built finding.", status=SETTLED, anchor="no_such_table")
    with pytest.raises(InputError, match="no_such_table"):
        rep.write(tmp_path / "rep")
    with pytest.raises(InputError, match="status"):
        rep.finding("x", status="probably")


def _write_summary_report(folder, rules_version, sentence):
    rep = Report("Toy summary", {"rules_version": rules_version, "games": 1, "agents": "random"})
    rep.section("Numbers")
    rep.finding(sentence, anchor="numbers")
    return rep.write(folder)


def test_report_summary_reads_a_current_summary_without_rebuilding(tmp_path, monkeypatch, capsys):
    import workbench.core.studies.study as study

    toy = get_game("toy")
    out = _write_summary_report(tmp_path / "toy", toy.rules_version, "The built toy finding.")

    def refuse(*args, **kwargs):
        raise AssertionError("the report was rebuilt")

    monkeypatch.setattr(study, "report_builder", refuse)
    assert main(["report", "toy", "--summary", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "nothing recomputed" in printed.splitlines()[0]
    assert "The built toy finding." in printed and FINDS in printed


def test_report_summary_rebuilds_a_report_of_other_rules(tmp_path, monkeypatch, capsys):
    import workbench.core.studies.study as study

    toy = get_game("toy")
    out = _write_summary_report(tmp_path / "toy", "an older rules version", "The old finding.")
    built = []

    def builder(game):
        def build(folder, quick=False, seed=0):
            built.append(quick)
            return _write_summary_report(folder, toy.rules_version, "The rebuilt finding.")
        return build

    monkeypatch.setattr(study, "report_builder", builder)
    assert main(["report", "toy", "--summary", "--quick", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert built == [True]  # built once, with --quick respected
    assert printed.splitlines()[0].startswith("toy: building the quick report")
    assert "an older rules version" in printed.splitlines()[0]
    assert "The rebuilt finding." in printed and "The old finding." not in printed
    assert read_summary(out)["rules_version"] == toy.rules_version


def test_what_to_change_says_what_the_fix_does_at_every_tier_from_the_held_out_table():
    rep = Report("x")
    verification = pl.DataFrame({
        "proposal": [1, 1, 1, 1], "tier": ["greedy", "greedy", "greedy@tuned", "greedy@tuned"],
        "metric_title": ["First seat score"] * 4, "item_title": ["Siege of Ur", "Free Steppe"] * 2,
        "before_score": [0.56, 0.51, 0.58, 0.50], "after_score": [0.501, 0.505, 0.512, 0.49],
        "after_score_low": [0.48, 0.48, 0.49, 0.47], "after_score_high": [0.52, 0.53, 0.534, 0.51],
        "after_n": [4000, 4000, 2000, 2000]})
    result = FakeResult(_proposals([(1, "wall +2", 1, 2, 0.0, True, 0.0, True, True, "meets")]),
                        verification=verification)
    fix, does = rebalance_changes(rep, result)
    assert fix.startswith("wall +2: the smallest edit")
    # per tier, the targeted item it moves most (the same at both: named once), before → after with the after
    # interval and n
    assert does.startswith("What it does on held-out seeds to first seat score on Siege of Ur")
    assert "greedy 56.0 % → 50.1 % [48.0, 52.0] (n 4,000)" in does
    assert "greedy@tuned 58.0 % → 51.2 % [49.0, 53.4] (n 2,000)" in does
    assert does.count("Siege of Ur") == 1
    assert [c["sentence"] for c in rep.summary()["changes"]] == [fix, does]  # the fix first
    # different items at the tiers are each named; a tier's held-out sample of one game is too few to quote
    rep = Report("x")
    verification = verification.with_columns(pl.Series("before_score", [0.56, 0.51, 0.50, 0.58]))
    search = pl.DataFrame({"proposal": [1], "tier": ["search"], "metric_title": ["First seat score"],
                           "item_title": ["Siege of Ur"], "before_score": [1.0], "after_score": [0.0],
                           "after_score_low": [0.0], "after_score_high": [0.79], "after_n": [1]})
    result = FakeResult(_proposals([(1, "wall +2", 1, 2, 0.0, True, 0.0, True, True, "meets")]),
                        tiers=("greedy", "greedy@tuned", "search"),
                        verification=pl.concat([verification, search], how="vertical_relaxed"))
    _fix, does = rebalance_changes(rep, result)
    assert "at greedy, first seat score on Siege of Ur 56.0 % → 50.1 % [48.0, 52.0] (n 4,000)" in does
    assert "at greedy@tuned, first seat score on Free Steppe 58.0 % → 49.0 % [47.0, 51.0] (n 2,000)" in does
    assert "search: 1 held-out game, too few to tell" in does and "100.0 %" not in does


def test_the_summary_states_each_sentence_once():
    """Two sections stating one verdict in the same words give one sentence in the summary (the heavier)."""
    rep = _report(_table())
    rep.finding("Start seat score with start hands 3/5: fair.", weight=2.0, anchor="battlefield_tiers")
    rep.finding("Start seat score with  start hands 3/5: fair.", weight=1.0)
    rep.finding("Another verdict.", weight=0.5)
    shown = [f["sentence"] for f in rep.summary()["findings"]]
    assert shown == ["Start seat score with start hands 3/5: fair.", "Another verdict."]


def test_a_verdict_quotes_the_strongest_tier_whose_interval_decides_it_not_a_search_tier_on_few_games():
    """A search tier on 20 games (or 1) decides nothing: the sentence quotes the strongest fast tier that does."""
    tiers = [Tier("greedy", "greedy"), Tier("greedy@tuned", "greedy@tuned"), Tier("search", "search")]
    # per cell and tier: (score, n); Siege favoured at both fast tiers, Garden fair within ±2 points at the fast
    # tiers, Steppe a search sample of one game; Marsh decided by no tier (its most-played tier is quoted)
    built = {"Siege of Ur": ((0.56, 4000), (0.55, 4000), (0.50, 20)),
             "Crystal Garden": ((0.50, 40_000), (0.501, 40_000), (0.70, 20)),
             "Free Steppe": ((0.45, 4000), (0.44, 4000), (1.0, 1)),
             "Marsh": ((0.52, 200), (0.53, 100), (0.50, 20)),
             "Quarry": ((0.48, 4000), (0.477, 10_000), (0.20, 20)),  # search decides on 20 games: not quoted
             "Tower": ((0.31, 4000), (0.30, 4000), (0.25, 20))}

    def run(tier: Tier) -> pl.DataFrame:
        i = [t.label for t in tiers].index(tier.label)
        rows = []
        for cell, values in built.items():
            rate, n = values[i]
            low, high = wilson(round(rate * n), n)
            verdict = "favoured" if low > 0.5 else "disfavoured" if high < 0.5 else "fair"
            rows.append({"cell": cell, "rate": round(rate * n) / n, "low": low, "high": high, "n": n,
                         "verdict": verdict})
        return pl.DataFrame(rows)

    table = tier_verdicts(by_tier(tiers, run), ["cell"])
    rep = _report(table)
    tier_findings(rep, "battlefield_tiers", "First seat on {cell}", top=10)
    rows = {r["cell"]: r for r in table.iter_rows(named=True)}
    quoted = {"Siege of Ur": "greedy@tuned", "Crystal Garden": "greedy@tuned", "Free Steppe": "greedy@tuned",
              "Marsh": "greedy", "Quarry": "greedy@tuned", "Tower": "greedy@tuned"}
    for finding in rep.findings:
        cell = next(c for c in built if f"on {c}:" in finding["sentence"])
        row, tier = rows[cell], quoted[cell]
        assert finding["tier"] == tier, (cell, finding)
        assert (finding["rate"], finding["low"], finding["high"], finding["n"]) == (
            row[f"{tier} · score"], row[f"{tier} · score_low"], row[f"{tier} · score_high"], row[f"{tier} · n"])
        assert finding["sentence"].startswith(f"First seat on {cell}: {row[f'{tier} · verdict']}, ")
        assert (f"{row[f'{tier} · score'] * 100:.1f} % [{row[f'{tier} · score_low'] * 100:.1f}, "
                f"{row[f'{tier} · score_high'] * 100:.1f}] at {tier} (n {row[f'{tier} · n']:,})") in finding["sentence"]
        # the search sample is named after it, with its own n, as too few to decide (or as deciding on n games
        # only, when its interval excludes fair); never as the verdict's number
        search_n = row["search · n"]
        if cell != "Quarry":
            small = "disfavoured on 20 games only" if cell == "Tower" else "too few games to decide"
            assert f"search reads {row['search · score'] * 100:.1f} % " in finding["sentence"]
            assert f"(n {search_n:,}), {small}" in finding["sentence"], finding["sentence"]
        assert f"at search (n {search_n:,})" not in finding["sentence"]
        # the status still compares the two strongest tiers measured: a search sample this small cannot settle,
        # though a 27-point move is one it can show
        assert finding["status"] == row["status"] == (MOVES if cell == "Quarry" else UNDECIDED)
        if cell == "Quarry":  # the move names the small sample with its interval and n, once
            low, high = row["search · score_low"] * 100, row["search · score_high"] * 100
            assert (f"moves with skill (greedy@tuned 47.7 % → search 20.0 % [{low:.1f}, {high:.1f}] (n 20))"
                    in finding["sentence"]), finding["sentence"]
            assert finding["sentence"].count("20.0 %") == 1
        else:
            assert row["games needed"] in finding["sentence"]
    assert len(rep.findings) == 6
