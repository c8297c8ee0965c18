"""The Studies tab while a study runs: partial tables marked "partial · n of N", then the final ones saying done;
Stop after a partial still says "stopped · n of N" truthfully."""

from __future__ import annotations

import re

import pytest

from workbench.ui.studies import StudyPanel


@pytest.fixture(autouse=True)
def _every_partial(monkeypatch):
    monkeypatch.setattr("workbench.core.sim.partial.PARTIAL_EVERY", 0.0)
    monkeypatch.setattr("workbench.ui.studies.PARTIAL_EVERY", 0.0)


def _headers(panel: StudyPanel) -> list[str]:
    seen: list[str] = []
    panel.results.header.observe(lambda change: seen.append(change["new"]), names="value")
    return seen


def test_the_panel_shows_partial_tables_then_the_final_ones_saying_done():
    panel = StudyPanel("babel", "start_seat", settings={"games": 30, "hands": "3/5,5/5",
                                                        "pairings": "random,random"})
    seen = _headers(panel)
    panel.run(wait=True)
    partial = [h for h in seen if 'data-status="partial"' in h]
    assert partial, "a partial table was shown while the study ran"
    done, total = map(int, re.search(r'data-done="(\d+)" data-total="(\d+)"', partial[0]).groups())
    assert (done, total) == (30, 60)  # the first of the two cells (3/5), of 30 games each
    assert "partial · 30 of 60 games" in partial[0]
    assert 'data-status="done"' in seen[-1] and "partial" not in seen[-1]
    assert 'data-state="done"' in panel.job.status.value


def test_stop_after_a_partial_says_stopped_n_of_n_never_done():
    panel = StudyPanel("babel", "start_seat", settings={"games": 40, "hands": "3/5,5/5",
                                                        "pairings": "random,random; greedy,greedy"})
    seen = _headers(panel)
    panel.results.header.observe(lambda change: panel.job.stop() if 'data-status="partial"' in change["new"]
                                 else None, names="value")
    panel.run(wait=True)
    assert any('data-status="partial"' in h for h in seen)
    state = panel.job.status.value
    assert 'data-state="stopped"' in state
    done, total = map(int, re.search(r'data-done="(\d+)" data-total="(\d+)"', state).groups())
    assert total == 160 and 40 <= done < 160  # at least the streamed cell, fewer than all four cells' games
    assert panel.tables["games"].height == done  # the tables shown hold exactly the games the line counts
    assert f"stopped · {done:,} of 160" in panel.results.header.value
    assert 'data-status="done"' not in seen[-1]
