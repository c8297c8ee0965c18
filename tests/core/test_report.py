import io
import json
import re
import struct

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from tests.independent import wilson as _wilson
from workbench.core.errors import InputError
from workbench.core.present import charts, report
from workbench.core.present.report import Report, display_frame, markdown_to_html, meta_from_frame
from workbench.core.stats.rates import rate_diff_table, rate_table

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


def test_files_hold_the_tables_and_charts_the_pages_link(written):
    out, rates = written
    html_text, md = (out / "index.html").read_text(), (out / "index.md").read_text()
    charts_ = {"rate_chart": charts.rate_chart(rates, "battlefield", color="deck").to_dict(),
               "lengths": charts.histogram(GAMES, "length", bins=10).to_dict()}
    tables = {"rates": rates, "diffs": rate_diff_table(GAMES, "battlefield", "won", "deck")}
    assert {p.name for p in out.iterdir()} == {"index.html", "index.md", "report.json"} | {
        f"{c}.{ext}" for c in charts_ for ext in ("svg", "png", "vl.json")} | {
        f"{t}.{ext}" for t in tables for ext in ("csv", "parquet")}
    for name, frame in tables.items():  # every table in full, the CSV with the same values as the Parquet
        assert_frame_equal(pl.read_parquet(out / f"{name}.parquet"), frame)
        assert_frame_equal(pl.read_csv(out / f"{name}.csv"), frame, check_dtypes=False, check_exact=False)
        assert f'<a href="{name}.csv">' in html_text and f"[{name}.parquet]({name}.parquet)" in md
    for name, spec in charts_.items():
        assert json.loads((out / f"{name}.vl.json").read_text()) == spec  # the chart's own Vega-Lite spec
        png = (out / f"{name}.png").read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        svg = (out / f"{name}.svg").read_text()
        size = re.search(r'<svg[^>]*\bwidth="([\d.]+)"[^>]*\bheight="([\d.]+)"', svg)
        width, height = struct.unpack(">II", png[16:24])  # the PNG is the same picture as the SVG
        assert width / height == pytest.approx(float(size.group(1)) / float(size.group(2)), rel=0.01)
        for ext in ("svg", "png", "vl.json"):
            assert f'<a href="{name}.{ext}">' in html_text and f"({name}.{ext})" in md
    labels = {n: set(re.findall(r"<text[^>]*>([^<]*)</text>", (out / f"{n}.svg").read_text())) for n in charts_}
    # what a reader sees: the battlefields on the x axis, the decks in the legend; the length histogram's axes
    assert {"battlefield", "coast", "garden", "deck", "regular", "unlimited", "rate"} <= labels["rate_chart"]
    assert {"length", "games"} <= labels["lengths"]
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


def test_rates_are_shown_with_interval_and_n(written):
    """Every row of the rates table reads "k of n, rate% [low–high]", recounted here from the raw games."""
    out, _ = written
    md, html_text = (out / "index.md").read_text(), (out / "index.html").read_text()
    counts = {}
    for (field, deck), group in GAMES.group_by(["battlefield", "deck"]):
        n, k = group.height, int(group.get_column("won").sum())
        counts[(field, deck)] = (k, n)
        low, high = _wilson(k, n)
        shown = f"{100 * k / n:.1f}% [{100 * low:.1f}–{100 * high:.1f}]"
        assert f"| {field} | {deck} | {n} | {k} | {shown} |" in md
        assert (f'<tr><td>{field}</td><td>{deck}</td><td class="num">{n}</td><td class="num">{k}</td>'
                f'<td class="num">{shown}</td></tr>') in html_text
    assert sum(n for _, n in counts.values()) == GAMES.height
    # the diffs table shows its first row only (max_rows=1): unlimited − regular on the coast
    (k1, n1), (k0, n0) = counts[("coast", "unlimited")], counts[("coast", "regular")]
    diffs = md.split("| rate, baseline |")[1].split("<sub>")[0]  # the diffs table, from its header on
    shown_rows = [line for line in diffs.splitlines() if line.startswith("| ")]
    assert len(shown_rows) == 1 and shown_rows[0].startswith(f"| coast | unlimited | {n1} | {k1} |")
    assert f"| {n0} | {k0} |" in shown_rows[0] and f"| {100 * (k1 / n1 - k0 / n0):+.1f} pts [" in shown_rows[0]


def test_display_frame_merges_intervals():
    frame = pl.DataFrame({"bf": ["a"], "win": [0.5], "win_low": [0.4], "win_high": [0.6], "n": [100],
                          "diff": [0.021], "low": [-0.01], "high": [0.05], "p": [None]}, strict=False)
    out = display_frame(frame)
    assert out.columns == ["bf", "win", "n", "diff", "p"]
    assert out.row(0) == ("a", "50.0% [40.0–60.0]", "100", "+2.1 pts [-1.0, +5.0]", "–")


def test_end_reasons_and_compared_metrics_read_in_words_where_a_person_reads_them(tmp_path):
    """Keys a game writes (``tower_destroyed``, ``end_turn_limit``) read as words in a shown table; files keep them."""
    ends = pl.DataFrame({"reason": ["tower_destroyed", "turn_limit", None], "rate": [0.5, 0.25, 0.25]})
    assert display_frame(ends).get_column("reason").to_list() == ["tower destroyed", "turn limit", "–"]
    whatif = pl.DataFrame({"metric": ["first_seat_win", "p1_win", "draw", "end_tower_built", "wr_drawn"],
                           "n": [40] * 5})
    assert display_frame(whatif).get_column("metric").to_list() == [
        "first seat wins", "p1 wins", "draw", "ends: tower built", "win rate when drawn"]
    out = Report("Words", META).table("whatif", whatif).write(tmp_path / "report")
    assert pl.read_csv(out / "whatif.csv").get_column("metric").to_list() == whatif.get_column("metric").to_list()
    assert "| ends: tower built | 40 |" in (out / "index.md").read_text()


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


def test_each_chart_is_drawn_once_and_its_png_is_the_picture_vega_draws(written, monkeypatch):
    """The PNG is the SVG rasterised (one Vega run per chart): the very bytes Vega-Lite's own PNG export gives."""
    import vl_convert

    out, rates = written
    for name, chart in (("rate_chart", charts.rate_chart(rates, "battlefield", color="deck")),
                        ("lengths", charts.histogram(GAMES, "length", bins=10))):
        spec = chart.to_dict()
        version = report._vl_version(spec, vl_convert.get_vegalite_versions())  # the spec's own Vega-Lite version
        direct = vl_convert.vegalite_to_png(spec, vl_version=version, scale=2)  # the second path: Vega-Lite's PNG
        assert (out / f"{name}.png").read_bytes() == direct
    runs = []
    original = vl_convert.vegalite_to_svg
    monkeypatch.setattr(vl_convert, "vegalite_to_svg", lambda *a, **k: runs.append(1) or original(*a, **k))
    monkeypatch.setattr(vl_convert, "vegalite_to_png", lambda *a, **k: pytest.fail("a second Vega run for the PNG"))
    rep, _ = _report()
    rep.write(out.parent / "again")
    assert len(runs) == 2  # one per chart


def test_a_chart_reads_the_same_bytes_however_many_charts_were_drawn_before(tmp_path):
    """A colour-scale legend's gradient is numbered from 0 in every chart, not by vl-convert's process counter."""
    import altair as alt

    heat = pl.DataFrame({"x": ["a", "a", "b", "b"], "y": ["c", "d", "c", "d"], "v": [0.1, 0.4, 0.7, 0.9]})

    def build() -> Report:
        rep = Report("Heat", META)
        for name in ("first", "second"):  # two gradient legends in one report
            rep.chart(name, alt.Chart(heat).mark_rect().encode(x="x:N", y="y:N", color="v:Q"))
        return rep

    one, two = build().write(tmp_path / "one"), build().write(tmp_path / "two")  # the second after 2 more legends
    for name in ("first", "second"):
        svg = (one / f"{name}.svg").read_text()
        assert re.findall(r'id="(gradient_\d+)"', svg) == ["gradient_0"] and "url(#gradient_0)" in svg
        assert (two / f"{name}.svg").read_bytes() == svg.encode()
        assert (two / f"{name}.png").read_bytes() == (one / f"{name}.png").read_bytes()
    page = (one / "index.html").read_text()  # inline, each chart's ids carry its own prefix
    assert 'id="c0-gradient_0"' in page and 'id="c1-gradient_0"' in page


def test_a_reports_step_times_are_the_real_ones_in_the_header_the_log_and_the_sizes_section(tmp_path, capsys):
    """Each step's wall time goes once to the header's seconds, the sizes table and the log's one-line summary;
    a step that repeats adds up (the header once read "tiers=8.15" where the log said 48.7 + 29.8 + 8.1 s)."""
    import time as clock

    rep = Report("Timed", {"rules_version": "r1", "games": 1, "agents": "greedy"})
    assert rep.timed("matrix", "timed report: matrix", lambda x, *, label: (clock.sleep(0.05), x + label)[1], 1,
                     label=2, step_games="1 game", step_bigger="more games") == 3  # fn's own "label" passes through
    rep.timed("tiers", "timed report: tiers, first", clock.sleep, 0.02)
    rep.timed("tiers", "timed report: tiers, second", clock.sleep, 0.03, step_games="2 tiers")
    rep.record("rebalance", 1.25, games="a budget", bigger="the full search")
    rep.sizes_section("Sized for tests.")
    err = capsys.readouterr().err
    assert "timed report: matrix … done in" in err and "timed report: tiers, second … done in" in err
    seconds = rep.meta["seconds"]
    assert list(seconds) == ["matrix", "tiers", "rebalance"] and seconds["rebalance"] == 1.2  # one decimal
    assert seconds["matrix"] >= 0.05 and seconds["tiers"] >= 0.05  # the two tiers steps added up
    assert f"Timed: step times: {rep.step_times()}" in err and rep.step_times().endswith(
        f"total {sum(r['seconds'] for r in rep.sizes):.1f} s")
    out = rep.write(tmp_path / "timed")
    sizes = pl.read_parquet(out / "run_sizes.parquet")
    assert dict(sizes.select("step", "seconds").rows()) == seconds
    assert sizes.filter(pl.col("step") == "tiers")["games"].item() == "2 tiers"
    assert sizes.filter(pl.col("step") == "matrix")["bigger run"].item() == "more games"
    md = (out / "index.md").read_text(encoding="utf-8")
    assert "## Sizes of this run, and what a bigger run would decide" in md and "Sized for tests." in md
    assert f"matrix={seconds['matrix']}" in md.replace(" ", "") or f"matrix: {seconds['matrix']}" in md


def test_the_header_reads_declared_keys_by_their_names_and_the_json_keeps_the_keys(tmp_path):
    from workbench.core.model import get_game

    babylon, duel = get_game("babylon"), get_game("duel")  # loaded: their declared names are known
    meta = {"rules_version": "x-1", "games": 10, "agents": "greedy vs greedy", "decks": ["siege_of_ur", "night_raid"],
            "battlefields": ["free_steppe"], "quick": False, "engine": "fast"}
    rows = dict(Report("Header", meta).header_rows())
    assert rows["Decks"] == ", ".join(babylon.choice_label("deck_p1", d) for d in ("siege_of_ur", "night_raid"))
    assert rows["Decks"].startswith("Siege of Ur") and rows["Battlefields"] == duel.choice_label("battlefield",
                                                                                                 "free_steppe")
    assert rows["Quick"] == "no" and rows["Rules version"] == "x-1" and rows["Agents"] == "greedy vs greedy"
    out = Report("Header", meta).write(tmp_path / "r")
    assert json.loads((out / "report.json").read_text())["meta"]["decks"] == ["siege_of_ur", "night_raid"]


# -- nested columns in CSV -------------------------------------------------------------------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_TEXTS = st.text(alphabet=st.sampled_from(list("aF9_ \"\\/é\n\t{}[],")), max_size=6)


@settings(max_examples=150, deadline=None, database=None)
@given(rows=st.one_of(
    st.lists(st.one_of(st.none(), st.lists(st.one_of(_TEXTS, st.none()), max_size=4)), min_size=1, max_size=6),
    st.lists(st.one_of(st.none(), st.lists(st.one_of(st.integers(-10**12, 10**12), st.none()), max_size=4)),
             min_size=1, max_size=6),
    st.lists(st.one_of(st.none(), st.lists(st.one_of(st.booleans(), st.none()), max_size=4)), min_size=1, max_size=6),
    st.lists(st.one_of(st.none(), st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=3)),
             min_size=1, max_size=6)))
def test_a_nested_column_is_written_as_the_json_text_of_each_value(rows):
    """Lists of card ids (and numbers, flags) read in the CSV as ``json.dumps`` writes them; a missing list stays empty.

    The column-wise path (strings, whole numbers, flags) must give exactly the text of the one-at-a-time path.
    """
    frame = pl.DataFrame({"cards": rows, "n": list(range(len(rows)))}, strict=False)
    out = report.csv_safe(frame)
    assert out["n"].to_list() == list(range(len(rows)))
    assert out["cards"].to_list() == [None if v is None else json.dumps(v) for v in rows]
    back = pl.read_csv(io.BytesIO(out.write_csv().encode()), infer_schema=False)  # the text survives its CSV
    assert back["cards"].to_list() == out["cards"].to_list()


def test_a_games_csv_lists_each_games_card_ids_as_the_frame_holds_them(tmp_path):
    """The duel's games frame (card ids drawn and played per seat, list columns) written by a report: each CSV cell
    reads back as the list the Parquet holds (it once read "shape: (7,) Series: '' [str] …")."""
    from workbench.core.sim.runner import simulate

    frame = simulate("duel", 20, seed=3, workers=1, progress=False)
    rep = Report("duel games", {"games": 20})
    rep.table("games", frame)
    out = rep.write(tmp_path / "report")
    back = pl.read_csv(out / "games.csv", infer_schema=False)
    lists = [c for c, t in frame.schema.items() if t.is_nested()]
    assert lists and set(lists) <= set(back.columns)
    for column in lists:
        assert [json.loads(v) for v in back[column].to_list()] == frame[column].to_list(), column
