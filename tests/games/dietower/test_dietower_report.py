from __future__ import annotations

import json

import pytest

from workbench.games.dietower.analysis import convergence_frame, distribution_chart, streak_comparison
from workbench.games.dietower.report import build_report


@pytest.mark.slow
def test_quick_report_is_written_offline(tmp_path):
    out = build_report(tmp_path / "dietower", quick=True, seed=1)
    meta = json.loads((out / "report.json").read_text())
    assert {"streak_points", "convergence", "equilibrium_strategy", "heuristic_losses_chart"} <= set(meta["charts"])
    assert {"full_deck_2p", "full_deck_3p", "reduced_exact", "heuristic_losses"} <= set(meta["tables"])
    html = (out / "index.html").read_text()
    assert "<svg" in html and "http://cdn" not in html and "https://cdn" not in html
    assert (out / "reduced_exact.csv").read_text().count("1/18") >= 2  # the hand-checked suit of 2


def test_charts_are_specs_with_the_exact_and_simulated_layers():
    frames = streak_comparison(0.5, 6, 14, 2, games=2000, seed=0)
    spec = distribution_chart(frames["points"]).to_dict()
    assert len(spec["layer"]) == 3
    conv = convergence_frame(0.5, games=5000)
    assert conv["n"].is_sorted()
    assert (conv["low"] <= conv["estimate"]).all() and (conv["estimate"] <= conv["high"]).all()
