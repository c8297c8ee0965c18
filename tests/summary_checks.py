"""A built report's opening (core/present/summary.py), checked against its own tables: used by each game's report
test."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from workbench.core.present.summary import FINDS, MAX_FINDINGS, TO_CHANGE


def check_summary(out: Path, changes: bool = False) -> dict:
    """``summary.json`` exists, its sentences open ``index.md`` (right after the header) and link to a table there.

    A finding quoting a tier-verdict row (it names its ``tier``) carries that row's number, interval
    and n from the table's Parquet file.  ``changes``: the report must say what to change.
    """
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    md = (out / "index.md").read_text(encoding="utf-8")
    assert md.split("\n\n", 2)[2].startswith(f"## {FINDS}\n")
    start = md.index(f"## {FINDS}")
    first_section = md.index('<a id="section-', start)
    opening = md[start:first_section]
    assert 1 <= len(summary["findings"]) <= MAX_FINDINGS
    assert (TO_CHANGE in opening) == bool(summary["changes"])
    if changes:
        assert summary["changes"], "the report proposes no change"
    weights = [f["weight"] for f in summary["findings"]]
    assert weights == sorted(weights, reverse=True)
    files = set(json.loads((out / "report.json").read_text(encoding="utf-8"))["files"])
    assert {"summary.json", "summary.md"} <= files
    for item in summary["findings"] + summary["changes"]:
        assert item["sentence"] in opening
        if item["anchor"]:
            assert item["href"] and f'<a id="{item["href"][1:]}"></a>' in md
        table = pl.read_parquet(out / f"{item['anchor']}.parquet") if item["href"].startswith("#table-") else None
        tier = item.get("tier")
        if table is not None and f"{tier} · verdict" in table.columns and item.get("rate") is not None:
            # a finding from a tier-verdict row: the number, interval, n and status are that row's
            value = "score" if f"{tier} · score" in table.columns else "beyond_cost"
            n = "n" if f"{tier} · n" in table.columns else "wr_drawn_n"
            rows = table.filter((pl.col(f"{tier} · {value}") == item["rate"]) & (pl.col(f"{tier} · {n}") == item["n"])
                                & (pl.col(f"{tier} · {value}_low") == item["low"])
                                & (pl.col(f"{tier} · {value}_high") == item["high"]))
            assert item["status"] in rows["status"].to_list(), item["sentence"]
            assert item["status"] in item["sentence"] and f"(n {item['n']:,})" in item["sentence"]
    return summary
