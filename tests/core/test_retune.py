"""A what-if that re-tunes a weight set for the edited cards (``core/design/cardtable.py``'s ``retune``).

The duel: its shipped weight set ``greedy@tuned`` was tuned for the shipped cards and is refused on
edited ones; with ``retune`` the edited arm plays weights re-tuned for them and the unchanged arm the
set as shipped.  Expected frames come from ``simulate`` run directly on each arm (another path).
"""

from __future__ import annotations

import html
import tomllib

import numpy as np
import pytest
from polars.testing import assert_frame_equal

from workbench.core.design.cardtable import card_table, what_if
from workbench.core.errors import InputError, RunInterrupted
from workbench.core.model import get_game
from workbench.core.sim.runner import simulate
from workbench.core.sim.seeding import game_seeds

DUEL = {"battlefield": "crystal_garden", "deck": "regular"}
EDITS = {"dragon": {"cost": 20}}
TUNED = "greedy@tuned,greedy@tuned"


def _shipped_spec() -> str:
    """The set's options as a spec, read from its file (what the unchanged arm must play)."""
    model = get_game("duel")
    data = tomllib.loads((model.data_folder() / "agents" / "tuned.toml").read_text(encoding="utf-8"))
    return "greedy:" + ",".join(f"{k}={v!r}" for k, v in data["options"].items())


def _files(model) -> set[str]:
    folder = model.data_folder() / "agents"
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


@pytest.fixture(scope="module")
def retuned():
    seen: list[tuple[int, int]] = []
    result = what_if("duel", EDITS, params=DUEL, agents=TUNED, games=60, seed=5, retune=300,
                     on_progress=lambda d, t: seen.append((d, t)))
    return result, seen


def test_a_retune_changes_the_edited_arms_agents_and_not_the_baselines(retuned):
    result, seen = retuned
    shipped = _shipped_spec()
    (found,) = result.retuned
    assert found.agent == "greedy@tuned" and found.spec.startswith("greedy:") and found.spec != shipped
    # the unchanged cards play the set as shipped; the edited ones the re-tuned weights, in every seat
    for seat in ("agent_p1", "agent_p2"):
        assert result.baseline[seat].unique().to_list() == [shipped]
        assert result.variant[seat].unique().to_list() == [found.spec]
    assert result.agents == ((shipped, shipped), (found.spec, found.spec))
    assert any("re-tuned" in line and found.spec in line for line in result.agents_text())
    # each arm replays alone from what the result records: the same games, the same seeds
    table = card_table("duel")
    base = simulate("duel", 60, params={**DUEL, table.param: str(result.base_path)}, agents=TUNED, seed=5,
                    progress=False)
    edited = simulate("duel", 60, params={**DUEL, table.param: str(result.variant_path)},
                      agents=list(result.agents[1]), seed=5, progress=False)
    assert_frame_equal(result.baseline, base)
    assert_frame_equal(result.variant, edited)
    # progress counts the re-tune's games first, then both arms: one bar to 2 × 60 + 300
    assert seen[-1] == (420, 420) and all(t == 420 for _, t in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    # the held-out check of the re-tune, with its interval and n
    v = found.validation
    assert v is not None and v["n"] == 60 and v["low"] <= v["score"] <= v["high"]  # a fifth of 300 games


def test_the_retunes_seeds_are_not_the_games_compared(retuned):
    result, _ = retuned
    (found,) = result.retuned
    assert 5 not in found.master_seeds and found.seed != 5
    compared = game_seeds(5, 0, 60)
    assert found.game_seeds().size > 0 and np.intersect1d(compared, found.game_seeds()).size == 0


def test_one_seat_named_by_a_set_is_the_only_one_retuned():
    result = what_if("duel", EDITS, params=DUEL, agents="greedy@tuned,greedy", games=20, seed=1, retune=200)
    (found,) = result.retuned
    assert result.variant["agent_p1"].unique().to_list() == [found.spec]
    plain = simulate("duel", 1, params=DUEL, agents="greedy,greedy", progress=False)["agent_p2"][0]
    assert result.variant["agent_p2"].unique().to_list() == [plain]
    assert result.baseline["agent_p1"].unique().to_list() == [_shipped_spec()]


def test_without_retune_the_frames_are_todays():
    table = card_table("duel")
    seen = []
    result = what_if("duel", EDITS, params=DUEL, agents="greedy,random", games=40, seed=9, retune=0,
                     on_progress=lambda d, t: seen.append((d, t)))
    base = simulate("duel", 40, params={**DUEL, table.param: str(table.default)}, agents="greedy,random", seed=9,
                    progress=False)
    edited = simulate("duel", 40, params={**DUEL, table.param: str(result.variant_path)}, agents="greedy,random",
                      seed=9, progress=False)
    assert_frame_equal(result.baseline, base)
    assert_frame_equal(result.variant, edited)
    assert result.retuned == () and seen[-1] == (80, 80)


def test_a_set_tuned_for_other_cards_is_refused_before_any_game_and_the_message_offers_the_retune():
    seen = []
    with pytest.raises(InputError, match="re-tune it for the edited cards"):
        what_if("duel", EDITS, params=DUEL, agents=TUNED, games=20, on_progress=lambda d, t: seen.append(d))
    assert seen == []


def test_stop_during_the_retune_raises_as_a_stopped_what_if_and_leaves_no_file():
    model = get_game("duel")
    before = _files(model)
    polls, seen = [], []

    def stop() -> bool:  # Stop pressed while the re-tune plays (after its first generation)
        polls.append(1)
        return len(polls) > 1

    with pytest.raises(RunInterrupted) as stopped:
        what_if("duel", EDITS, params=DUEL, agents=TUNED, games=50, seed=2, retune=300, should_stop=stop,
                on_progress=lambda d, t: seen.append((d, t)))
    assert stopped.value.partial is None and stopped.value.done == 0  # no game compared: nothing to keep
    assert 0 < seen[-1][0] < 300 and seen[-1][1] == 400  # it stopped inside the re-tune
    assert _files(model) == before  # no weight set, no checkpoint folder


@pytest.mark.parametrize(("retune", "agents", "says"), [
    (-1, TUNED, "retune must be a whole number of games >= 0"),
    (1.5, TUNED, "retune must be a whole number of games >= 0"),
    ("300", TUNED, "retune must be a whole number of games >= 0"),
    (True, TUNED, "retune must be a whole number of games >= 0"),
    (300, "greedy,greedy", "a re-tune needs an agent that names a weight set"),
    (8, TUNED, "too few games to re-tune greedy@tuned .* give at least"),
])
def test_bad_retune_values_are_one_clear_error_and_play_nothing(retune, agents, says):
    seen = []
    with pytest.raises(InputError, match=says):
        what_if("duel", EDITS, params=DUEL, agents=agents, games=20, retune=retune,
                on_progress=lambda d, t: seen.append(d))
    assert seen == []


# -- the studio's card page -----------------------------------------------------------------------------------
def test_the_card_page_counts_the_retune_in_its_size_and_says_which_agents_each_arm_played(tmp_path):
    from workbench.app.workspace import Workspace
    from workbench.ui.cards import CardEditor

    page = CardEditor("duel", Workspace(tmp_path))
    page.edit("dragon", cost="20")
    page.form.set(battlefield="crystal_garden", deck="regular")
    page.settings.set(games=30, agents=TUNED, retune_games=200)
    size = page.estimate(wait=True)
    assert (size["arms"], size["retune"]) == (60, 200) and size["seconds"] > 0
    page._show_size(measure=False)
    assert 'data-games="260"' in page.size.value and "200 to re-tune the weight set" in page.size.value
    page.settings.set(agents="greedy,greedy")  # no weight set: nothing to re-tune, so nothing counted
    assert page.estimate(measure=False)["retune"] == 0
    page.settings.set(agents=TUNED)
    result = page.run(wait=True)
    (found,) = result.retuned
    header = html.unescape(page.results.header.value)
    assert "data-retuned='1'" in header and f"edited cards: {found.spec}, {found.spec}" in header
    assert f"unchanged cards: {_shipped_spec()}" in header
    (record,) = page.workspace.store.runs()
    assert record["retuned"][0]["spec"] == found.spec


def test_the_rebalance_page_passes_the_retune_and_counts_it(tmp_path):
    from tests.test_rebalance import WEIGHTED, _write_tuned_set
    from workbench.ui.rebalance import RebalancePanel

    _write_tuned_set()
    values = {"budget": 2000, "games": 100, "stages": 2, "verify": 2, "margin": 10.0, "master_seed": 3,
              "tiers": "random,greedy@tuned", "retune_games": 40}
    panel = RebalancePanel(WEIGHTED, tmp_path / "rebalance", values=values)
    assert panel.values()["retune"] == 40
    plain = RebalancePanel(WEIGHTED, tmp_path / "plain", values={**values, "retune_games": 0})
    assert "retune" not in plain.values()  # off: the search is called exactly as before
    # one weighted tier × at most 2 proposals × 40 games, inside the held-out check's share: the budget bounds all
    assert panel.estimate(measure=False)["retune"] == 80 and plain.estimate(measure=False)["retune"] == 0
    assert panel.estimate(measure=False)["total"] == plain.estimate(measure=False)["total"] == 2000
    result = panel.run(wait=True)
    assert result.retune == 40 and result.retuned
    assert all(tier == "greedy@tuned" for _, tier in result.retuned)
