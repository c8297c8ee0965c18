"""What-if on common random numbers and edited data files (the duel's layer over core)."""

from __future__ import annotations

import csv
import hashlib

import polars as pl
import pytest
from scipy import stats

from workbench.core.errors import DataError, InputError
from workbench.core.stats.compare import compare_cells
from workbench.games.duel import analysis
from workbench.games.duel.cardvalue import cardstats, whatif
from workbench.games.duel.data import CARDS_CSV, load_battlefields, load_cards


def _rows(path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_edited_cards_file_is_content_addressed(tmp_path):
    a = whatif.edited_cards_csv({"dragon": {"cost": 20}}, directory=tmp_path)
    b = whatif.edited_cards_csv({"dragon": {"cost": 20}}, directory=tmp_path)
    c = whatif.edited_cards_csv({"dragon": {"cost": 21}}, directory=tmp_path)
    assert a == b != c
    assert a.name == f"cards-{hashlib.sha256(a.read_bytes()).hexdigest()[:16]}.csv"
    # the copy differs from data/duel/cards.csv in exactly the dragon's cost
    base, edited = _rows(CARDS_CSV), _rows(a)
    changed = [(x["key"], k, y[k]) for x, y in zip(base, edited, strict=True) for k in x if x[k] != y[k]]
    assert changed == [("dragon", "cost", "20")]
    dragon_id = load_cards().by_key("dragon").id
    assert whatif.edited_cards_csv({dragon_id: {"cost": 20}}, directory=tmp_path) == a  # by id: the same file
    assert load_cards(a).by_key("dragon").cost == 20 and load_cards(a).by_key("ruby").cost == 3


def test_bad_edits_name_the_card_and_column(tmp_path):
    with pytest.raises(InputError, match=r"cards.csv: no row with key or id 'atlantis' to edit; key values: "
                                         r"bad_ore, earthquake, .* \(102 in all\)"):
        whatif.edited_cards_csv({"atlantis": {"cost": 1}}, directory=tmp_path)
    with pytest.raises(InputError, match="cannot edit column 'id' of 'dragon': it is the row's key; editable "
                                         "columns: name_en, name_id, colour, cost, effect"):
        whatif.edited_cards_csv({"dragon": {"id": 5}}, directory=tmp_path)
    with pytest.raises(DataError, match="effect"):
        whatif.edited_cards_csv({"dragon": {"effect": "enemy.damage lots"}}, directory=tmp_path)
    assert list(tmp_path.iterdir()) == []  # the rejected copy is not left behind
    with pytest.raises(InputError, match="no row with key 'atlantis' to edit; key values: grand_wizards_fortress, "
                                         "crystal_garden"):
        whatif.edited_battlefields_csv({"atlantis": {"wall": 15}}, directory=tmp_path)
    fields = whatif.edited_battlefields_csv({"crystal_garden": {"wall": 15}}, directory=tmp_path)
    assert fields.name.startswith("battlefields-") and load_battlefields(fields)["crystal_garden"].wall == 15


def _chart_rows(chart) -> list[dict]:
    return next(iter(chart.to_dict()["datasets"].values()))


def test_overpowered_card_shows_a_significant_increase(tmp_path):
    result = whatif.what_if({"battlefield": "crystal_garden"},
                            card_edits={"amethyst": {"cost": 0, "effect": "self.tower +60"}},
                            games=300, seed=3, directory=tmp_path)
    drawn = result.cards.filter(pl.col("metric") == "wr_drawn").row(0, named=True)
    assert drawn["variant"] > 0.9 and drawn["diff"] > 0.3 and drawn["significant"]
    # the card's rates are card_rates' own, arm by arm
    base_rates = cardstats.card_rates(result.baseline).filter(pl.col("key") == "amethyst").row(0, named=True)
    assert (drawn["n_base"], drawn["base"]) == (base_rates["wr_drawn_n"], base_rates["wr_drawn"])
    assert result.outcomes.get_column("metric").to_list() == ["first_seat_score", "first_seat_win", "p1_win", "draw",
                                                              "end_resources", "end_tower_built", "end_tower_destroyed"]
    built = result.outcomes.filter(pl.col("metric") == "end_tower_built").row(0, named=True)
    assert built["diff"] > 0 and built["significant"]
    # the paired test recomputed from the two frames, game by game
    b = (result.baseline.get_column("reason") == "tower_built").to_list()
    v = (result.variant.get_column("reason") == "tower_built").to_list()
    pairs = list(zip(b, v, strict=True))
    gained, lost = sum(y and not x for x, y in pairs), sum(x and not y for x, y in pairs)
    assert built["discordant"] == gained + lost and built["n"] == 300
    assert built["p_value"] == pytest.approx(stats.binomtest(gained, gained + lost, 0.5).pvalue)
    assert built["diff"] == pytest.approx((sum(v) - sum(b)) / 300)
    assert result.params_variant["cards"].startswith(str(tmp_path))
    rows = _chart_rows(whatif.what_if_chart(result))
    # the chart shows the first seat as its score (a draw counts half) beside the draws; its win share (draws as
    # losses) stays in the table only
    shown = result.outcomes.filter(pl.col("metric") != "first_seat_win")
    assert [(r["metric"], r["diff"]) for r in rows] == shown.select("metric", "diff").rows()
    assert "first_seat_score" in [r["metric"] for r in rows]


def test_no_real_change_means_no_difference(tmp_path):
    # Crystal Garden's own start wall is 10: the "variant" plays exactly the baseline's games
    result = whatif.what_if({"battlefield": "crystal_garden"}, changes={"start_wall": 10}, games=200, seed=1,
                            directory=tmp_path)
    assert result.baseline.get_column("game_seed").to_list() == result.variant.get_column("game_seed").to_list()
    assert (result.outcomes.get_column("diff") == 0).all()
    assert (result.outcomes.get_column("discordant") == 0).all()
    assert not result.outcomes.get_column("significant").any()
    with pytest.raises(InputError, match="changes nothing"):
        whatif.what_if({"battlefield": "crystal_garden"}, games=10)


def test_effect_amount_editing():
    text = "if self.mines < enemy.mines then self.mines +2 else self.mines +1; steal.ore 5; self.ore -4; again"
    assert [a for _, a in whatif.effect_amounts(text)] == [2, 1, 5, 4]
    edited = whatif.with_amounts(text, [3, 2, 6, 7])
    assert edited == ("if self.mines < enemy.mines then self.mines +3 else self.mines +2; "
                      "steal.ore 6; self.ore -7; again")
    with pytest.raises(InputError, match=r"amount of 'self.mines \+2' must be >= 0, got -1"):
        whatif.with_amounts(text, [-1])


def test_compare_cells_pairs_each_cell():
    fields = ["grand_wizards_fortress", "crystal_garden"]
    base = analysis.run_grid(fields, games=150, seed=9)
    same = analysis.run_grid(fields, games=150, seed=9, params={"start_wall": 10})  # crystal garden's own wall
    table = compare_cells(base, same, analysis.CELL_KEYS)
    assert table.get_column("battlefield").to_list() == fields
    row = table.filter(pl.col("battlefield") == "crystal_garden").row(0, named=True)
    assert row["diff"] == 0 and row["discordant"] == 0 and row["n"] == 150 and row["p_value"] == 1.0
    fortress = table.filter(pl.col("battlefield") == "grand_wizards_fortress").row(0, named=True)
    first = base.filter(pl.col("battlefield") == "grand_wizards_fortress").select(
        (pl.col("winner") == pl.col("first_seat")).mean()).item()
    assert fortress["base"] == pytest.approx(first) and fortress["discordant"] > 0  # its own wall is 5, not 10
    with pytest.raises(InputError, match="not paired: master seed 9 in the baseline, 10 in the variant"):
        compare_cells(base, analysis.run_grid(fields, games=150, seed=10), analysis.CELL_KEYS)
