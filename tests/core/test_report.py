import re

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from workbench.core import charts, report
from workbench.core.errors import InputError
from workbench.core.report import Report, display_frame, markdown_to_html, meta_from_frame
from workbench.core.stats import rate_diff_table, rate_table

RNG = np.random.default_rng(11)
GAMES = pl.DataFrame({
    "battlefield": RNG.choice(["coast", "garden"], 400),
    "deck": RNG.choice(["regular", "unlimited"], 400),
    "won": RNG.random(400) < 0.55,
    "length": RNG.integers(5, 60, 400),
})
META = {"rules_version": "duel-1", "seed": 42, "games": 400, "agents": ["random", "greedy"], "engine": "fast"}


def _report():
    rates = rate_table(GAMES, ["battlefield", "deck"], "won")
    rep = Report("Duel balance", META)
    rep.section("Win rates", "The **first** seat wins *more* often.\n\n- see `rates.csv`\n- games: 400")
    rep.table("rates", rates, caption="P1 win rate per battlefield")
    rep.chart("rate_chart", charts.rate_chart(rates, "battlefield", color="deck"), caption="P1 win rate")
    rep.text("Lengths <b>raw</b> & escaped.")
    rep.chart("lengths", charts.histogram(GAMES, "length", bins=10))
    rep.table("diffs", rate_diff_table(GAMES, "battlefield", "won", "deck"), max_rows=1)
    return rep, rates


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    rep, rates = _report()
    out = rep.write(tmp_path_factory.mktemp("r") / "report")
    return out, rates


def test_files_exist(written):
    out, rates = written
    names = {p.name for p in out.iterdir()}
    assert {"index.html", "index.md", "report.json"} <= names
    for chart in ("rate_chart", "lengths"):
        assert {f"{chart}.svg", f"{chart}.png", f"{chart}.vl.json"} <= names
        assert (out / f"{chart}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for table in ("rates", "diffs"):
        assert {f"{table}.csv", f"{table}.parquet"} <= names
    assert_frame_equal(pl.read_parquet(out / "rates.parquet"), rates)
    assert pl.read_csv(out / "rates.csv").height == rates.height
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".")]  # no temp dirs left


def test_html_is_self_contained(written):
    out, _ = written
    text = (out / "index.html").read_text()
    assert not re.search(r"<script[^>]*\bsrc=", text, re.I)
    assert not re.search(r"<link\b", text, re.I)
    assert not re.search(r"<img\b", text, re.I)
    assert not re.search(r"""\b(src|href)=["']?(https?:)?//""", text, re.I)
    assert "@import" not in text and not re.search(r"url\(\s*['\"]?https?:", text)
    # every chart appears inline as SVG
    assert text.count("<svg") == 2
    for chart in ("rate_chart", "lengths"):
        assert f'id="chart-{chart}"' in text
    assert "&lt;b&gt;raw&lt;/b&gt; &amp; escaped" in text  # text is escaped, not injected


def test_header_block_states_the_run(written):
    out, _ = written
    html_text = (out / "index.html").read_text()
    md = (out / "index.md").read_text()
    for needle in ("Rules version", "duel-1", "Master seed", "42", "Games", "400", "Agents", "random, greedy",
                   "Engine", "fast"):
        assert needle in html_text and needle in md


def test_markdown_has_the_same_content(written):
    out, _ = written
    md = (out / "index.md").read_text()
    assert md.startswith("# Duel balance")
    assert "## Win rates" in md
    for chart in ("rate_chart", "lengths"):
        assert f"]({chart}.png)" in md and f"({chart}.svg)" in md
    assert "*P1 win rate per battlefield*" in md
    assert "showing 1 of 2 rows" in md and "[diffs.csv](diffs.csv)" in md


def test_rates_are_shown_with_interval(written):
    out, rates = written
    first = rates.row(0, named=True)
    shown = f"{100 * first['rate']:.1f}% [{100 * first['low']:.1f}–{100 * first['high']:.1f}]"
    assert shown in (out / "index.md").read_text()
    assert shown in (out / "index.html").read_text()


def test_display_frame_merges_intervals():
    frame = pl.DataFrame({"bf": ["a"], "win": [0.5], "win_low": [0.4], "win_high": [0.6], "n": [100],
                          "diff": [0.021], "low": [-0.01], "high": [0.05], "p": [None]}, strict=False)
    out = display_frame(frame)
    assert out.columns == ["bf", "win", "n", "diff", "p"]
    assert out.row(0) == ("a", "50.0% [40.0–60.0]", "100", "+2.1 pts [-1.0, +5.0]", "–")


def test_failed_build_leaves_old_report(tmp_path, monkeypatch):
    rep, _ = _report()
    out = rep.write(tmp_path / "report")
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def broken(spec):
        raise RuntimeError("renderer exploded")

    monkeypatch.setattr(report, "_render", broken)
    with pytest.raises(RuntimeError):
        Report("New", META).table("other", pl.DataFrame({"a": [1]})).chart("c", charts.histogram(GAMES)) \
            .write(out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["report"]


def test_rewrite_replaces_old_files(tmp_path):
    rep, _ = _report()
    out = rep.write(tmp_path / "report")
    Report("Small", {"games": 1}).text("only text").write(out)
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "index.md", "report.json"]
    assert "not stated" in (out / "index.md").read_text()  # rules version and agents were not given


def test_bad_names_and_inputs():
    rep = Report("x", {})
    rep.table("t", pl.DataFrame({"a": [1]}))
    with pytest.raises(InputError, match="twice"):
        rep.chart("t", charts.histogram(GAMES))
    for bad in ("", "a/b", "../x", "index"):
        with pytest.raises(InputError):
            rep.table(bad, pl.DataFrame({"a": [1]}))
    with pytest.raises(InputError):
        rep.table("u", {"a": [1]})
    with pytest.raises(InputError):
        Report("")


def test_markdown_subset():
    html = markdown_to_html("# Head\n\npara *em* **strong** `code` [link](x.csv)\n\n- one\n- two\n\n```\na < b\n```")
    assert "<h2>Head</h2>" in html and "<em>em</em>" in html and "<strong>strong</strong>" in html
    assert "<code>code</code>" in html and '<a href="x.csv">link</a>' in html
    assert "<ul><li>one</li><li>two</li></ul>" in html and "<pre><code>a &lt; b</code></pre>" in html


def test_meta_from_frame():
    frame = pl.DataFrame({"rules_version": ["duel-1"] * 3, "master_seed": pl.Series([7, 7, 7], dtype=pl.UInt64),
                          "agent_p1": ["random", "random", "greedy"], "agent_p2": ["greedy", "greedy", "random"]})
    meta = meta_from_frame(frame, engine="fast")
    assert meta == {"rules_version": ["duel-1"], "seed": 7, "games": 3,
                    "agents": ["random vs greedy", "greedy vs random"], "engine": "fast"}
    rows = dict(Report("t", meta).header_rows())
    assert rows["Rules version"] == "duel-1" and rows["Agents"] == "random vs greedy, greedy vs random"
