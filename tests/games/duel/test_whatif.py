"""What-if on common random numbers, edited data files, and auto-balance."""

from __future__ import annotations

import math

import polars as pl
import pytest

from workbench.core.errors import DataError, InputError
from workbench.games.duel import whatif
from workbench.games.duel.data import load_battlefields, load_cards


def test_edited_cards_file_is_content_addressed(tmp_path):
    a = whatif.edited_cards_csv({"dragon": {"cost": 20}}, directory=tmp_path)
    b = whatif.edited_cards_csv({"dragon": {"cost": 20}}, directory=tmp_path)
    c = whatif.edited_cards_csv({"dragon": {"cost": 21}}, directory=tmp_path)
    assert a == b != c
    assert load_cards(a).by_key("dragon").cost == 20 and load_cards(a).by_key("ruby").cost == 3
    with pytest.raises(InputError, match="no card 'atlantis'"):
        whatif.edited_cards_csv({"atlantis": {"cost": 1}}, directory=tmp_path)
    with pytest.raises(InputError, match="cannot edit 'id'"):
        whatif.edited_cards_csv({"dragon": {"id": 5}}, directory=tmp_path)
    with pytest.raises(DataError, match="effect"):
        whatif.edited_cards_csv({"dragon": {"effect": "enemy.damage lots"}}, directory=tmp_path)
    fields = whatif.edited_battlefields_csv({"crystal_garden": {"wall": 15}}, directory=tmp_path)
    assert load_battlefields(fields)["crystal_garden"].wall == 15


def test_overpowered_card_shows_a_significant_increase(tmp_path):
    result = whatif.what_if({"battlefield": "crystal_garden"},
                            card_edits={"amethyst": {"cost": 0, "effect": "self.tower +60"}},
                            games=300, seed=3, directory=tmp_path)
    drawn = result.cards.filter(pl.col("metric") == "wr_drawn").row(0, named=True)
    assert drawn["variant"] > 0.9 and drawn["diff"] > 0.3 and drawn["significant"]
    built = result.outcomes.filter(pl.col("metric") == "end_tower_built").row(0, named=True)
    assert built["diff"] > 0 and built["significant"]
    assert result.params_variant["cards"].startswith(str(tmp_path))
    assert whatif.what_if_chart(result).to_dict()["layer"]


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


def _logistic(centre: float, n: int = 200_000, slope: float = 4.0, sign: int = 1):
    def response(x: float) -> tuple[int, int]:
        return round(n / (1 + math.exp(-sign * (x - centre) / slope))), n
    return response


@pytest.mark.parametrize("sign", [1, -1])
def test_auto_balance_finds_the_crossing_of_a_monotone_response(sign):
    result = whatif.auto_balance(_logistic(23.4, sign=sign), 0, 60, integer=True, max_evals=12, param="start_wall")
    assert result.found and result.value == pytest.approx(23.4, abs=0.1)
    assert result.value_low <= 23.4 <= result.value_high
    assert result.best in (23.0, 24.0)
    assert "start_wall" in result.summary()
    assert whatif.balance_chart(result).to_dict()["layer"]


def test_auto_balance_on_floats_and_without_a_crossing():
    result = whatif.auto_balance(_logistic(0.37, slope=0.1), 0.0, 1.0, integer=False, max_evals=14)
    assert result.value == pytest.approx(0.37, abs=0.01)
    missing = whatif.auto_balance(_logistic(100.0, slope=40.0), 0, 10)
    assert not missing.found and missing.value is None and missing.best == 10
    assert "no value" in missing.summary()
    with pytest.raises(InputError):
        whatif.auto_balance(_logistic(1.0), 5, 5)


def test_auto_balance_on_simulated_games():
    result = whatif.auto_balance_param("start_wall", 0, 40, {"battlefield": "grand_wizards_fortress"}, games=100,
                                       max_evals=3, seed=4)
    assert result.points.height >= 2 and (result.points.get_column("n") == 100).all()
    with pytest.raises(InputError, match="numeric"):
        whatif.auto_balance_param("deck", 0, 1)


def test_effect_amount_editing():
    text = "if self.mines < enemy.mines then self.mines +2 else self.mines +1; steal.ore 5; self.ore -4; again"
    assert [a for _, a in whatif.effect_amounts(text)] == [2, 1, 5, 4]
    edited = whatif.with_amounts(text, [3, 2, 6, 7])
    assert edited == ("if self.mines < enemy.mines then self.mines +3 else self.mines +2; "
                      "steal.ore 6; self.ore -7; again")
    with pytest.raises(InputError):
        whatif.with_amounts(text, [-1])


def test_compare_cells_pairs_each_cell(tmp_path):
    from workbench.games.duel import analysis

    fields = ["grand_wizards_fortress", "crystal_garden"]
    base = analysis.run_grid(fields, games=150, seed=9)
    same = analysis.run_grid(fields, games=150, seed=9, params={"start_wall": 10})  # crystal garden's own wall
    table = whatif.compare_cells(base, same)
    assert table.get_column("battlefield").to_list() == fields
    row = table.filter(pl.col("battlefield") == "crystal_garden").row(0, named=True)
    assert row["diff"] == 0 and row["discordant"] == 0 and row["n"] == 150
