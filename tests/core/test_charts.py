import numpy as np
import polars as pl
import pytest

from workbench.core.errors import InputError
from workbench.core.present import charts
from workbench.core.stats.rates import rate_diff_table, rate_table

RNG = np.random.default_rng(5)
GAMES = pl.DataFrame({
    "battlefield": RNG.choice(["coast", "garden", "steppe"], 3000),
    "deck": RNG.choice(["regular", "unlimited"], 3000),
    "won": RNG.random(3000) < 0.55,
    "length": RNG.integers(5, 200, 3000),
    "reason": RNG.choice(["tower", "resource", "turn_limit"], 3000),
})
RATES = rate_table(GAMES, ["battlefield", "deck"], "won")


def _data(spec):
    (values,) = spec["datasets"].values()
    return values


def _layer_marks(spec):
    return [layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"] for layer in spec["layer"]]


def test_rate_chart_points_error_bars_and_reference():
    spec = charts.rate_chart(RATES, "battlefield", color="deck", title="P1 win rate").to_dict()
    assert spec["title"] == "P1 win rate"
    assert _layer_marks(spec) == ["errorbar", "point", "rule"]
    bars, points, ref = spec["layer"]
    assert bars["encoding"]["y"]["field"] == "low" and bars["encoding"]["y2"]["field"] == "high"
    assert points["encoding"]["y"]["field"] == "rate" and points["encoding"]["x"]["field"] == "battlefield"
    assert points["encoding"]["color"]["field"] == "deck" and points["encoding"]["xOffset"]["field"] == "deck"
    assert ref["encoding"]["y"]["datum"] == 0.5
    assert {t["field"] for t in points["encoding"]["tooltip"]} >= {"n", "low", "high", "rate"}
    assert len(_data(spec)) == RATES.height


def test_rate_chart_facet_and_no_reference():
    spec = charts.rate_chart(RATES, "battlefield", facet="deck", reference=None).to_dict()
    assert spec["facet"]["column"]["field"] == "deck"
    assert _layer_marks(spec["spec"]) == ["errorbar", "point"]


def test_rate_chart_zoom_fits_the_axis_to_the_intervals_and_the_reference():
    lows, highs = RATES.get_column("low"), RATES.get_column("high")
    assert 0.5 < lows.min() and highs.max() < 0.65  # rates of 53-57 %: an axis from 0 squashes them
    spec = charts.rate_chart(RATES, "battlefield", color="deck", zoom=True).to_dict()
    bars, points, ref = spec["layer"]
    domain = points["encoding"]["y"]["scale"]["domain"]
    assert bars["encoding"]["y"]["scale"]["domain"] == domain and ref["encoding"]["y"]["datum"] == 0.5
    low, high = domain
    assert low <= 0.5 <= high and low <= lows.min() and highs.max() <= high  # the fair line and every interval
    assert (low, high) == (0.49, np.ceil(100 * highs.max() + 1) / 100) == (0.49, 0.65)  # a point's margin, rounded out
    assert points["encoding"]["y"]["scale"]["zero"] is False
    facet = charts.rate_chart(RATES, "battlefield", facet="deck", reference=None, zoom=True).to_dict()
    (f_low, f_high) = facet["spec"]["layer"][1]["encoding"]["y"]["scale"]["domain"]  # one axis for all panels
    assert (f_low, f_high) == (np.floor(100 * lows.min() - 1) / 100, high)  # no reference: fitted to the data
    plain = charts.rate_chart(RATES, "battlefield").to_dict()  # the default keeps the axis from 0
    assert "scale" not in plain["layer"][1]["encoding"]["y"]


def test_histogram_is_binned_in_polars():
    spec = charts.histogram(GAMES, "length", bins=20).to_dict()
    enc = spec["encoding"]
    assert spec["mark"]["type"] == "bar"
    assert enc["x"]["field"] == "bin_start" and enc["x"]["bin"] == "binned" and enc["x2"]["field"] == "bin_end"
    assert enc["y"]["field"] == "count"
    data = _data(spec)
    assert len(data) <= 20 and sum(d["count"] for d in data) == GAMES.height
    assert all(d["bin_end"] - d["bin_start"] == data[0]["bin_end"] - data[0]["bin_start"] for d in data)


def test_histogram_groups_normalised():
    spec = charts.histogram(GAMES, "length", color="deck", normalize=True).to_dict()
    assert spec["encoding"]["color"]["field"] == "deck" and spec["encoding"]["y"]["field"] == "share"
    shares = {}
    for d in _data(spec):
        shares[d["deck"]] = shares.get(d["deck"], 0) + d["share"]
    assert shares == {"regular": pytest.approx(1.0), "unlimited": pytest.approx(1.0)}


def test_share_bars_stack_to_one():
    spec = charts.share_bars(GAMES, "battlefield", "reason").to_dict()
    enc = spec["encoding"]
    assert enc["x"]["field"] == "battlefield" and enc["color"]["field"] == "reason"
    assert enc["y"]["field"] == "share" and enc["y"]["stack"] == "normalize"
    data = _data(spec)
    for bf in ("coast", "garden", "steppe"):
        assert sum(d["share"] for d in data if d["battlefield"] == bf) == pytest.approx(1.0)
    counted = pl.DataFrame(data).select("battlefield", "reason", "count")
    again = charts.share_bars(counted, "battlefield", "reason", count="count").to_dict()
    assert [d["share"] for d in _data(again)] == pytest.approx([d["share"] for d in data])


def test_scatter_labels_the_outliers():
    frame = pl.DataFrame({"cost": np.arange(20.0), "value": np.arange(20.0) * 2,
                          "card": [f"c{i}" for i in range(20)]})
    frame = frame.with_columns(pl.when(pl.col("card") == "c7").then(60.0).otherwise(pl.col("value")).alias("value"))
    spec = charts.scatter(frame, "cost", "value", label="card", outliers=1).to_dict()
    points, labels = spec["layer"]
    assert points["mark"]["type"] == "circle" and points["encoding"]["x"]["field"] == "cost"
    assert labels["mark"]["type"] == "text" and labels["encoding"]["text"]["field"] == "card"
    assert labels["transform"] == [{"filter": "datum.outlier"}]
    flagged = [d["card"] for d in _data(spec) if d["outlier"]]
    assert flagged == ["c7"]
    by_column = charts.scatter(frame.with_columns((pl.col("card") == "c3").alias("odd")), "cost", "value",
                               label="card", outliers="odd").to_dict()
    assert [d["card"] for d in _data(by_column) if d["outlier"]] == ["c3"]


def test_delta_chart_coloured_by_significance():
    diffs = rate_diff_table(GAMES, "battlefield", "won", "deck")
    spec = charts.delta_chart(diffs, "battlefield").to_dict()
    assert _layer_marks(spec) == ["errorbar", "point", "rule"]
    bars, points, zero = spec["layer"]
    assert bars["encoding"]["x"]["field"] == "low" and bars["encoding"]["x2"]["field"] == "high"
    assert points["encoding"]["x"]["field"] == "diff" and points["encoding"]["y"]["field"] == "battlefield"
    assert points["encoding"]["color"]["field"] == "significant"
    assert points["encoding"]["color"]["scale"]["domain"] == [True, False]
    assert zero["encoding"]["x"]["datum"] == 0


def test_missing_columns_raise():
    with pytest.raises(InputError, match="nope"):
        charts.rate_chart(RATES, "nope")
    with pytest.raises(InputError):
        charts.histogram(GAMES, "length", bins=0)


def test_drawing_a_chart_does_not_build_the_iri_grammar_that_took_five_seconds_to_import():
    """jsonschema's optional "iri" check (rfc3987_syntax) built a grammar for ~5 s in each process drawing a chart."""
    import subprocess
    import sys

    code = ("import sys; import workbench.core.present.charts as c, polars as pl; "
            "frame = pl.DataFrame({'x': ['a'], 'rate': [0.5], 'low': [0.4], 'high': [0.6]}); "
            "spec = c.rate_chart(frame, 'x').to_dict(); print(sys.modules.get('rfc3987_syntax'), 'layer' in spec)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["None", "True"]  # absent, and a chart is still drawn and validated
