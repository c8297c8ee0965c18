"""The studio's first panel of a game (ui/summary.py): what its report finds, or how to build that report."""

from __future__ import annotations

import json

from workbench.core.model import get_game
from workbench.core.present.report import Report
from workbench.core.stats.rates import MOVES, SETTLED
from workbench.ui.summary import SummaryPanel


def _write(folder):
    rep = Report("Toy report", {"rules_version": "r1", "games": 10, "agents": "random"})
    rep.section("Numbers")
    rep.finding("First seat in Toy: 61.0 % [55.0, 67.0] at greedy (n 200), settled across skill.", status=SETTLED,
                weight=11, anchor="numbers")
    rep.finding("Second finding: 48.0 % at greedy (n 200), moves with skill.", status=MOVES, weight=1)
    rep.change("Edit the toy: the smallest edit that meets the balance target at every tier.")
    return rep.write(folder)


def test_the_panel_shows_the_reports_sentences_and_their_status(tmp_path):
    out = _write(tmp_path / "toy")
    panel = SummaryPanel("toy", folder=out)
    shown = panel.view.value
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    for item in summary["findings"] + summary["changes"]:
        assert item["sentence"].replace("'", "&#x27;") in shown
    assert shown.index("First seat in Toy") < shown.index("Second finding")  # heaviest first, as in the report
    assert 'data-status="settled"' in shown and 'data-status="moves with skill"' in shown
    assert "What this report finds" in shown and "What to change" in shown
    assert f"{get_game('toy').title}: what its report finds" in panel.widget.children[0].value  # its display name


def test_without_a_report_the_panel_says_how_to_build_one_and_builds_it(tmp_path):
    folder = tmp_path / "reports" / "toy"
    panel = SummaryPanel("toy", folder=folder)
    assert 'data-state="missing"' in panel.view.value
    assert f"workbench report toy --quick --out {folder}" in panel.view.value
    panel.build(wait=True)  # the toy's quick report (its generic report), in a separate process
    assert panel.job.error is None, panel.note.value
    assert (folder / "report.json").is_file() and (folder / "index.html").is_file()
    assert 'data-state="done"' in panel.job.status.value
    assert panel.proc.stdout.closed  # the command's pipe is closed with it, not left to the collector


def test_stop_ends_the_build_and_leaves_no_report(tmp_path):
    folder = tmp_path / "reports" / "toy"
    panel = SummaryPanel("toy", folder=folder)
    panel.build()
    panel.job.stop()
    panel.job.wait()
    assert 'data-state="stopped"' in panel.job.status.value
    assert not (folder / "report.json").exists()
    assert "Stopped" in panel.note.value and 'data-state="missing"' in panel.view.value
    assert panel.proc.stdout.closed


def test_the_studio_opens_a_game_on_its_summary_then_its_studies(tmp_path, monkeypatch):
    from workbench.app.studio import PAGES, Studio

    monkeypatch.setenv("WORKBENCH_STUDIO", str(tmp_path / "studio"))
    monkeypatch.setenv("WORKBENCH_REPORTS", str(tmp_path / "reports"))
    _write(tmp_path / "reports" / "toy")
    studio = Studio(game="toy")
    box = studio.tabs.children[PAGES.index("studies")]
    assert studio.page == "studies"  # where a game opens
    assert box.children[0] is studio.pages["summary"].widget and box.children[1] is studio.pages["studies"].widget
    assert "First seat in Toy" in studio.pages["summary"].view.value
    # the page's Run / Stop / status selectors still name the study's only: the summary's build has its own
    build = studio.pages["summary"].job
    assert "wb-run" not in build.run_button._dom_classes and "wb-summary-run" in build.run_button._dom_classes
    assert "wb-status" not in build.status._dom_classes and "wb-stop" not in build.stop_button._dom_classes
