"""The duel report: built through the CLI with quick settings, self-contained, every chart inline."""

from __future__ import annotations

import json
import re
import time

import polars as pl
import pytest

from workbench.cli import main
from workbench.core.runner import simulate
from workbench.games.duel.model import RULES_VERSION


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("reports") / "duel"
    # load (or, on a cold cache, compile) the fast kernel first: a one-time cost, not the report's
    simulate("duel", 2, agents="greedy,greedy", progress=False)
    started = time.perf_counter()
    assert main(["report", "duel", "--quick", "--out", str(out), "--seed", "3"]) == 0
    return out, time.perf_counter() - started


def test_quick_report_is_quick(built):
    _, seconds = built
    assert seconds < 30


def test_html_is_self_contained_and_shows_every_chart(built):
    out, _ = built
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "<script" not in page.lower()
    external = [u for u in re.findall(r'(?:src|href)="([^"]+)"', page) if re.match(r"^(https?:)?//", u)]
    assert not external
    charts = json.loads((out / "report.json").read_text())["charts"]
    assert {"first_seat_greedy", "length_greedy", "end_reasons_greedy", "miss_rule_delta", "cost_vs_value",
            "whatif_delta", "auto_balance_curve"} <= set(charts)
    for name in charts:
        figure = re.search(rf'<figure id="chart-{re.escape(name)}"[^>]*>(.*?)</figure>', page, re.S)
        assert figure and "<svg" in figure.group(1), name
        assert (out / f"{name}.png").stat().st_size > 0 and (out / f"{name}.svg").is_file()


def test_header_markdown_and_tables(built):
    out, _ = built
    meta = json.loads((out / "report.json").read_text())["meta"]
    assert meta["rules_version"] == RULES_VERSION and meta["seed"] == 3
    assert "greedy vs greedy" in meta["agents"]
    md = (out / "index.md").read_text(encoding="utf-8")
    assert RULES_VERSION in md and "Master seed" in md
    for png in re.findall(r"\]\(([^)]+\.png)\)", md):
        assert (out / png).is_file()
    for name in json.loads((out / "report.json").read_text())["tables"]:
        assert (out / f"{name}.csv").is_file()
        assert pl.read_parquet(out / f"{name}.parquet").height > 0 or name.startswith("whatif")
    table = pl.read_parquet(out / "battlefields_greedy.parquet")
    assert {"first_seat_win", "first_seat_win_low", "first_seat_win_high", "draws"} <= set(table.columns)
    lists = pl.read_parquet(out / "costed_cards.parquet")
    assert lists.height == 20 and lists.get_column("view").n_unique() == 2
