"""The Rebalance page without a browser: the panel of ``workbench/ui/rebalance.py`` driving real small searches.

*Fair toss* (``MODEL`` below, registered for the studio tests as ``tests.app.test_rebalance_page``):
two cards, ``lead`` (played by the seat that moves first) and ``answer``.  The first seat wins with
probability ``0.5 + 0.1 × (lead power − answer power)``, one coin from the game seed's stream 1.
Shipped: lead 4, answer 3, so the first seat wins 60 %; the one-edit fair settings are exactly two,
worked out by hand: lead power 3, or answer power 4 (each 50 %).  ``cost`` plays no part, and a
cost below 0 is refused by the loader, so ``cost:-1..0`` is an empty edit space.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from tests.cardtoss import CardTossRules, load, shipped_cards
from workbench.app.workspace import Workspace
from workbench.core.design import rebalance as rb
from workbench.core.design.cardtable import CardTable
from workbench.core.errors import InputError
from workbench.core.model import FIRST, Param

CARDS = shipped_cards(Path(tempfile.gettempdir()) / "workbench-test-rebalance-page")
FAIR = ({"lead": {"power": "3"}}, {"answer": {"power": "4"}})  # the two one-edit fair card sets, by hand
MODULE = "tests.app.test_rebalance_page"


class FairToss(CardTossRules):
    """The toss as the studio lists it."""

    name = "fairtoss"
    title = "Fair toss (test)"
    rules_version = "fairtoss-1"
    cards_file = CARDS
    params = (Param("cards", None, str, "cards CSV", optional=True), FIRST)
    card_table = CardTable("cards", CARDS, key=("key",), editable=("power", "cost"), shown=("name",), validate=load)
    targets = rb.Targets(target="first_seat=45..55", edit="power:-1..+1, cost:-1..+1", games=50, max_edits=2)


MODEL = FairToss()
# the budget bounds the whole run: 40 % of it (1,360 games) kept for the held-out check, 2,040 for the search
SMALL = {"budget": 3400, "verify_share": 40, "games": 100, "stages": 2, "verify": 2, "margin": 5.0, "tiers": "random",
         "master_seed": 0}


def _panel(tmp_path: Path, **values: Any) -> Any:
    from workbench.ui.rebalance import RebalancePanel

    return RebalancePanel(MODEL, tmp_path / "rebalance", values={**SMALL, **values})


def _text(widget: Any) -> str:
    import html
    import re

    return html.unescape(re.sub(r"<[^>]+>", " ", widget.value))


@pytest.fixture
def registered(monkeypatch):
    """The toy registered as a game (the studio lists registered games only)."""
    import os

    monkeypatch.setenv("WORKBENCH_GAMES", ",".join(filter(None, [os.environ.get("WORKBENCH_GAMES"), MODULE])))


# -- the form, from the declaration -------------------------------------------------------------------------
def test_the_form_starts_at_the_games_declared_target_and_edit_space(tmp_path):
    panel = _panel(tmp_path)
    assert list(panel.bands) == ["first_seat"]  # the one metric: core's first seat
    row = panel.bands["first_seat"]
    assert row.on.value and (row.low.value, row.high.value) == ("45", "55")
    assert panel.target_text() == "first_seat=45..55"
    assert panel.edit.value == "power:-1..+1, cost:-1..+1" and panel.cards.value == "*"
    # power 4 and 3 can each go ±1, cost 0 only up (the loader refuses −1): 4 values, 6 single edits
    assert "4 editable values" in _text(panel.edit_note) and "6 single edits" in _text(panel.edit_note)
    assert 'data-games="3400"' in panel.size.value  # the whole run's size before Run: the budget bounds it all
    size = panel.estimate(wait=True)
    assert size["total"] == 3400 and size["search"] == 2040 and size["verify"] == 1360
    assert size["seconds"] is not None and size["seconds"] > 0
    assert "whole run: at most 3,400 games" in _text(panel.size) and "held-out check: 1,360 games kept" in _text(
        panel.size)
    # with the held-out check outside the budget (0 %), it is sized by the margin and comes on top: n for ±5 points
    # (⌈1.96²/(4·0.05²) − 1.96²⌉ = 381) × 1 cell × (2 proposals + 1) × 1 tier
    panel.set(verify_share=0)
    outside = panel.estimate(wait=True)
    assert outside["search"] == 3400 and outside["verify"] == 381 * 3 and outside["total"] == 3400 + 381 * 3
    # the first seat's measure says it is a score and where it is read
    label = _text(row.label)
    assert "First seat score" in label and "over every game a candidate plays" in label and "each tier" in label


@pytest.mark.parametrize(("fill", "where", "says"), [
    ({"low": "55", "high": "45"}, "row", "the band is reversed; write the low end first (first_seat=45..55)"),
    ({"low": "abc"}, "row", "first_seat: the band's low end 'abc' is not a number in percent"),
    ({"on": False}, "target", "tick at least one metric to target; metrics: first_seat"),
])
def test_a_bad_band_is_refused_beside_its_metric_and_nothing_runs(tmp_path, fill, where, says):
    panel = _panel(tmp_path)
    row = panel.bands["first_seat"]
    for name, value in fill.items():
        getattr(row, name).value = value
    shown = row.error if where == "row" else panel.target_error
    assert says in _text(shown)
    assert panel.run() is None
    assert says in _text(panel.note) and "Traceback" not in panel.note.value
    assert 'data-state="refused"' in panel.job.status.value
    assert panel.job.thread is None and not (tmp_path / "rebalance").exists()  # nothing played, nothing written
    row.low.value, row.high.value, row.on.value = "45", "55", True  # put right: the message goes
    assert _text(row.error).strip() == "" and _text(panel.target_error).strip() == ""


def test_an_unknown_metric_and_an_empty_edit_space_are_refused_beside_their_fields(tmp_path):
    panel = _panel(tmp_path, target="frst_seat=45..55")
    assert "unknown metric 'frst_seat'; metrics: first_seat" in _text(panel.target_error)
    panel.edit.value = "cost:-1..0"  # cost 0 and no negative cost: nothing can move
    assert "the edit space is empty" in _text(panel.edit_note)
    assert panel.run() is None
    note = _text(panel.note)
    assert "2 fields are refused" in note and "unknown metric" in note and "edit space is empty" in note
    assert not (tmp_path / "rebalance").exists()
    panel.edit.value = "power:-1..+1"
    panel.set(target="first_seat=40..60")
    assert _text(panel.target_error).strip() == "" and panel.target_text() == "first_seat=40..60"
    assert "2 editable values" in _text(panel.edit_note)
    with pytest.raises(KeyError, match="no field 'bogus'"):
        panel.set(bogus=1)


# -- running --------------------------------------------------------------------------------------------------
def test_stop_in_the_held_out_check_keeps_the_proposals_labelled_stopped_and_continue_verifies_them(tmp_path):
    panel = _panel(tmp_path)
    pressed = []

    def stop_when_checking(change: dict) -> None:  # a person pressing Stop once the held-out check shows
        if 'data-phase="verify"' in change["new"] and not pressed:
            pressed.append(time.perf_counter())
            panel.job.stop()

    panel.phase.observe(stop_when_checking, names="value")
    stopped = panel.run(wait=True)
    assert pressed and stopped.stopped
    assert 'data-state="stopped"' in panel.job.status.value and "not verified" in _text(panel.job.status)
    assert 'data-status="stopped"' in panel.summary.value and "stopped" in _text(panel.summary)
    assert stopped.proposals.height >= 1  # everything the search found is kept
    assert set(stopped.proposals["verdict"]) == {"not verified (the run stopped before the held-out games)"}
    assert not panel.resume_button.disabled
    found = [dict(p.cards) for p in panel.proposals]
    assert found[0] in FAIR  # the best is one of the two fair settings worked out by hand

    done = panel.run(wait=True, resume=True)  # Continue: the same search, from its store
    assert not done.stopped and done.games_searched == stopped.games_searched  # nothing searched twice
    assert [dict(p.cards) for p in panel.proposals] == found
    best = panel.proposals[0]
    assert best.holds and best.verdict == "meets the target at every tier on held-out seeds"
    assert 'data-state="done"' in panel.job.status.value and panel.resume_button.disabled
    # the tables a person reads: plain labels, each rate before → after with its interval and n
    assert 'data-table="proposals"' in panel.tables.value and 'data-table="verification"' in panel.tables.value
    text = _text(panel.tables)
    assert "Holds at every tier" in text and "Verdict" in text and "Before" in text and "After" in text
    before = done.verification.filter(pl.col("proposal") == 1).row(0, named=True)
    assert abs(before["before_score"] - 0.6) < 0.05 and abs(before["after_score"] - 0.5) < 0.05  # 60 % → 50 %
    assert f"(n = {before['after_n']})" in text and before["after_n"] >= 381
    assert 'data-status="done"' in panel.summary.value


def test_closing_the_page_stops_a_running_search_and_leaves_no_thread(tmp_path):
    # a space the search does not exhaust before the page closes (±1 is 81 candidates, searched out in ~3 s)
    panel = _panel(tmp_path, budget=10**7, edit="power:-3..+3, cost:-3..+3")
    panel.run()
    if 'data-state="confirm"' in panel.job.status.value:  # estimated long on a busy machine: a second press starts it
        panel.run()
    deadline = time.perf_counter() + 60
    while panel.job.latest[0] == 0 and time.perf_counter() < deadline:
        time.sleep(0.01)
    assert panel.job.running, (panel.job.error, panel.job.latest, panel.job.status.value)
    panel.close()
    assert not panel.job.running and panel.result is not None and panel.result.stopped
    assert panel.result.games_searched < 10**7


# -- the studio: the tab, the URL, Apply into the Cards page, the what-if -------------------------------------
def test_the_studio_tab_runs_a_search_and_applies_the_best_to_the_card_table(tmp_path, registered, monkeypatch):
    import urllib.parse

    from workbench.app.studio import PAGES, Studio

    monkeypatch.setenv("WORKBENCH_STUDIO", str(tmp_path / "studio"))
    query = urllib.parse.urlencode({"game": "fairtoss", "page": "rebalance", "target": "first_seat=44..56", **SMALL})
    studio = Studio.from_query(query)  # the page's URL: ?game=fairtoss&page=rebalance&target=…&budget=…
    assert studio.tabs.titles[PAGES.index("rebalance")] == "Rebalance"
    assert "rebalance" in dict((v, k) for k, v in studio.game.options)["fairtoss"]  # the picker marks it
    page = studio.pages["rebalance"]
    assert page.panel.target_text() == "first_seat=44..56"  # from the URL
    result = page.panel.run(wait=True)
    assert not result.stopped and Path(result.out).parent == tmp_path / "studio" / "rebalance" / "fairtoss"
    assert page.links.value.count("data-file=") >= 1  # the proposals' CSVs, as downloads
    best = page.panel.proposals[0]
    assert best.cards in FAIR and best.holds

    page.panel.apply(best.rank)
    assert studio.page == "cards"  # the Cards page is shown with the proposal in its table
    editor = studio.pages["cards"]
    assert editor.edits == best.cards
    assert f'data-applied="{best.rank}"' in editor.note.value and 'data-applied' in page.panel.apply_note.value
    assert load(CARDS) == {"lead": 4, "answer": 3}  # the shipped set untouched
    editor.settings.set(games=1000)
    whatif = editor.run(wait=True)
    base = whatif.baseline.filter(pl.col("winner") == pl.col("first_seat")).height / whatif.baseline.height
    edited = whatif.variant.filter(pl.col("winner") == pl.col("first_seat")).height / whatif.variant.height
    # 60 % → 50 %, by hand; 1,000 games each: well inside ±5 points
    assert abs(base - 0.6) < 0.05 and abs(edited - 0.5) < 0.05
    assert "first seat score" in _text(editor.results.header)  # a draw counts half, named as every page names it


def test_a_game_without_targets_says_so_and_a_refused_link_value_is_named(tmp_path, registered):
    from workbench.app.rebalance_page import RebalancePage

    plain = RebalancePage(Workspace(tmp_path / "studio"), "toy")
    assert plain.panel is None and "declares no balance targets" in _text(plain.widget)
    page = RebalancePage(Workspace(tmp_path / "studio"), "fairtoss", {"target": "first_seat=56..44", "games": "-3"})
    assert "the band is reversed" in _text(page.panel.target_error)
    assert "games" in " ".join(page.panel.budget.errors.values())
    with pytest.raises(InputError):
        page.panel.values()
