"""Per-card rates for any card game: exact counts on hand-made frames, the cost scale, both views."""

from __future__ import annotations

import math

import polars as pl
import pytest

from workbench.core.errors import InputError
from workbench.core.present import charts
from workbench.core.stats import cardstats

IDS = pl.List(pl.String)


def _frame() -> pl.DataFrame:
    """Three seats, two games; card ids are strings (a 60-card-deck game's set codes)."""
    return pl.DataFrame({
        "winner": ["p2", "draw"],
        "drawn_p1": [["elf", "elf", "orc"], ["orc"]], "played_p1": [["elf"], []],
        "drawn_p2": [["orc"], ["elf", "imp"]], "played_p2": [["orc"], ["imp"]],
        "drawn_p3": [[], ["elf"]], "played_p3": [[], ["elf"]],
        "table": ["a", "b"],
    }, schema_overrides={c: IDS for c in ("drawn_p1", "played_p1", "drawn_p2", "played_p2", "drawn_p3", "played_p3")})


CARDS = pl.DataFrame({"id": ["elf", "orc", "imp", "ent"], "name": ["Elf", "Orc", "Imp", "Ent"], "cost": [1, 2, 3, 4],
                      "rarity": ["common", "common", "rare", "rare"]})


def test_counts_for_three_seats_and_string_ids():
    assert cardstats.card_seats(_frame()) == ["p1", "p2", "p3"]
    rates = cardstats.card_rates(_frame(), CARDS)
    assert rates.columns[:6] == ["id", "name", "cost", "rarity", "seat_games", "wr_drawn"]
    row = {r["id"]: r for r in rates.iter_rows(named=True)}
    assert row["elf"]["seat_games"] == 6
    # elf: drawn by p1 in game 0 (twice: counts once, lost), p2 and p3 in game 1 (a draw: not won)
    assert (row["elf"]["wr_drawn_n"], row["elf"]["wr_drawn"]) == (3, 0.0)
    assert (row["elf"]["wr_played_n"], row["elf"]["play_rate"]) == (2, pytest.approx(2 / 3))
    # orc: drawn by p1 in both games (lost, draw) and by p2 in game 0 (won)
    assert (row["orc"]["wr_drawn_n"], row["orc"]["wr_drawn"]) == (3, pytest.approx(1 / 3))
    # not drawn: 3 seat-games with 0 wins → improvement when drawn = 1/3
    assert (row["orc"]["wr_undrawn_n"], row["orc"]["wr_undrawn"], row["orc"]["iwd"]) == (3, 0.0,
                                                                                         pytest.approx(1 / 3))
    assert row["ent"]["wr_drawn_n"] == 0 and row["ent"]["wr_drawn"] is None and row["ent"]["iwd"] is None
    assert (row["ent"]["wr_drawn_low"], row["ent"]["wr_drawn_high"]) == (0.0, 1.0)


def test_the_improvement_interval_is_newcombes():
    rates = cardstats.card_rates(_frame(), CARDS)
    orc = rates.filter(pl.col("id") == "orc").row(0, named=True)
    # drawn 1/3 against undrawn 0/3: Newcombe from the two Wilson intervals (z = 1.959964)
    z = 1.959963984540054

    def wilson(k, n):
        p, d = k / n, 1 + z * z / n
        c, h = (p + z * z / (2 * n)) / d, z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
        return (0.0 if k == 0 else c - h), (1.0 if k == n else c + h)

    (l1, u1), (l2, u2) = wilson(1, 3), wilson(0, 3)
    assert orc["iwd_low"] == pytest.approx(1 / 3 - math.hypot(1 / 3 - l1, u2))
    assert orc["iwd_high"] == pytest.approx(1 / 3 + math.hypot(u1 - 1 / 3, 0 - l2))
    assert (orc["wr_drawn_low"], orc["wr_drawn_high"]) == pytest.approx((l1, u1))


def test_groups_a_mapping_table_and_errors():
    rates = cardstats.card_rates(_frame(), {"elf": "Elf", "orc": "Orc", "imp": "Imp"}, by=["table"])
    assert rates.columns[:3] == ["table", "id", "name"] and rates.height == 6
    b = rates.filter((pl.col("table") == "b") & (pl.col("id") == "imp")).row(0, named=True)
    assert (b["seat_games"], b["wr_drawn_n"], b["wr_played_n"]) == (3, 1, 1)
    with pytest.raises(InputError, match=r"missing \['drawn_p2'\]"):
        cardstats.card_rates(_frame().drop("drawn_p2"), CARDS)
    with pytest.raises(InputError, match="card rates need the columns winner, drawn_<seat>"):
        cardstats.card_rates(pl.DataFrame({"winner": ["p1"]}), CARDS)
    with pytest.raises(InputError, match=r"cards the card table lacks: ids \['imp'\]"):
        cardstats.card_rates(_frame(), CARDS.filter(pl.col("id") != "imp"))
    with pytest.raises(InputError, match=r"repeated: \['elf'\]"):
        cardstats.card_rates(_frame(), pl.concat([CARDS, CARDS.head(1)]))
    numbered = pl.DataFrame({"winner": ["p1"], "drawn_p1": [[1]], "played_p1": [[1]]})
    with pytest.raises(InputError, match=r"card ids of the table \(String\) do not match the frame's \(Int64\)"):
        cardstats.card_rates(numbered, CARDS)
    with pytest.raises(InputError, match=r"group columns \['deck'\]"):
        cardstats.card_rates(_frame(), CARDS, by=["deck"])


def _rates(cost: list[float], iwd: list[float | None]) -> pl.DataFrame:
    return pl.DataFrame({"id": [f"c{i}" for i in range(len(cost))], "price": cost, "iwd": iwd},
                        schema_overrides={"iwd": pl.Float64})


def test_empirical_values_on_the_cost_scale():
    # mean cost 2.5, sd √1.25; mean iwd 0.25, sd √0.0125 → scale 10: emp_value = 2.5 + 10·(iwd − 0.25)
    out = cardstats.empirical_values(_rates([1, 2, 3, 4, 9], [0.1, 0.3, 0.2, 0.4, None]), cost="price")
    assert out.get_column("emp_value").to_list()[:4] == pytest.approx([1.0, 3.0, 2.0, 4.0])
    assert out.get_column("emp_residual").to_list()[:4] == pytest.approx([0.0, -1.0, 1.0, 0.0])
    # least squares of iwd on cost: slope 0.08, intercept 0.05
    assert out.get_column("iwd_residual").to_list()[:4] == pytest.approx([-0.03, 0.09, -0.09, 0.03])
    assert out.row(4, named=True)["emp_value"] is None
    flat = cardstats.empirical_values(_rates([1, 1, 1], [0.1, 0.2, 0.3]), cost="price")
    assert flat.get_column("emp_value").null_count() == 3
    with pytest.raises(InputError, match="cost column 'cost'"):
        cardstats.empirical_values(_rates([1], [0.1]))


def test_both_views_lists_and_chart():
    static = pl.DataFrame({"id": ["a", "b", "c"], "cost": [1, 2, 3], "value": [2.0, 2.0, 1.0],
                           "residual": [-1.0, 0.0, 2.0]})
    rates = pl.DataFrame({"id": ["a", "b", "c"], "cost": [1, 2, 3], "emp_value": [1.5, None, 3.5],
                          "emp_residual": [-0.5, None, -0.5]})
    both = cardstats.cost_value_frame(static, rates, ("id", "cost"), outliers=1)
    assert both.columns == ["id", "cost", "value", "residual", "view", "outlier"]
    assert both.height == 5 and both.filter(pl.col("outlier")).get_column("id").to_list() == ["c", "a"]
    lists = cardstats.costed_lists(both, 1)
    assert lists.columns == ["view", "side", "rank", "id", "cost", "value", "residual"]
    assert lists.select("view", "side", "id").rows() == [
        (cardstats.VIEWS[0], "over-costed", "c"), (cardstats.VIEWS[0], "under-costed", "a"),
        (cardstats.VIEWS[1], "over-costed", "a"), (cardstats.VIEWS[1], "under-costed", "a")]
    spec = charts.cost_value_chart(both, label="id", title="Temples").to_dict()
    assert spec["title"] == "Temples" and [p["title"] for p in spec["hconcat"]] == list(cardstats.VIEWS)
    with pytest.raises(InputError, match=r"the rates table lacks \['emp_value', 'emp_residual'\]"):
        cardstats.cost_value_frame(static, static, ("id", "cost"))


def test_compare_card_rates_uses_the_two_proportion_test():
    base = pl.DataFrame({"id": ["a", "b"], "wr_drawn": [0.5, 0.2], "wr_drawn_n": [100, 10],
                         "wr_played": [0.5, None], "wr_played_n": [50, 0], "play_rate": [0.5, 0.0],
                         "play_rate_n": [100, 10]})
    variant = base.with_columns(pl.Series("wr_drawn", [0.6, 0.3]), pl.Series("wr_played", [0.7, None]))
    out = cardstats.compare_card_rates(base, variant, ["a"])
    assert out.select("id", "metric", "counted").rows() == [("a", "wr_drawn", "drawn"), ("a", "wr_played", "played"),
                                                            ("a", "play_rate", "played")]
    drawn = out.row(0, named=True)
    # 60/100 against 50/100, pooled z-test: z = 0.1 / √(0.55 · 0.45 · 0.02)
    z = 0.1 / math.sqrt(0.55 * 0.45 * 0.02)
    assert drawn["diff"] == pytest.approx(0.1) and drawn["p_value"] == pytest.approx(math.erfc(z / math.sqrt(2)))
    assert not drawn["significant"]
    assert cardstats.compare_card_rates(base, variant).height == 5  # b has no played games
    assert cardstats.compare_card_rates(base, variant, []).height == 0


def _built_rates() -> pl.DataFrame:
    """Six cards whose improvement when drawn lies on 0.1 × cost except where a residual is put in on purpose.

    The residuals (0, +0.2, −0.4, +0.2, 0) sum to 0 and are orthogonal to cost − 3, so the least-squares line
    through the five drawn cards is exactly iwd = 0.1 × cost; the sixth card was never drawn.
    """
    iwd = [0.1, 0.4, -0.1, 0.6, 0.5, None]
    half = [0.05, 0.05, 0.05, 0.5, 0.05, None]  # the fourth card's interval is wide: it cannot be told apart
    return pl.DataFrame({
        "id": list("abcdef"), "cost": [1, 2, 3, 4, 5, 3], "iwd": iwd,
        "iwd_low": [None if v is None else v - h for v, h in zip(iwd, half, strict=True)],
        "iwd_high": [None if v is None else v + h for v, h in zip(iwd, half, strict=True)],
    })


def test_cost_flags_read_the_interval_against_what_cards_of_that_cost_do():
    flags = cardstats.cost_flags(cardstats.empirical_values(_built_rates()))
    row = {r["id"]: r for r in flags.iter_rows(named=True)}
    for card, cost in zip("abcde", (1, 2, 3, 4, 5), strict=True):
        assert row[card]["expected"] == pytest.approx(0.1 * cost)  # the line the residuals were built around
    assert row["b"]["verdict"] == "under-costed"  # +0.2 above the line, interval ±0.05
    assert row["c"]["verdict"] == "over-costed"  # −0.4 below
    assert row["d"]["verdict"] == "in line"  # +0.2 above, but its interval (±0.5) holds the line
    assert row["a"]["verdict"] == row["e"]["verdict"] == "in line"
    assert row["f"]["verdict"] is None  # never drawn: no verdict
    with pytest.raises(InputError, match="missing iwd_residual"):
        cardstats.cost_flags(_built_rates())


def test_flag_alpha_keeps_the_family_at_five_percent():
    assert cardstats.flag_alpha(102) == pytest.approx(0.05 / 102)
    with pytest.raises(InputError, match="at least one card"):
        cardstats.flag_alpha(0)


def _plain_counts(frame: pl.DataFrame, by: str | None) -> dict:
    """Seat-games that drew / played each card (and won), counted one seat-game at a time: the reference."""
    counts: dict = {}
    for row in frame.iter_rows(named=True):
        for seat in ("p1", "p2"):
            won = row["winner"] == seat
            for kind in ("drawn", "played"):
                for card in set(row[f"{kind}_{seat}"]):
                    n, k = counts.get((row[by] if by else None, card, kind), (0, 0))
                    counts[(row[by] if by else None, card, kind)] = (n + 1, k + won)
    return counts


@pytest.mark.parametrize("by", [None, "table"])
def test_integer_card_ids_are_counted_once_a_seat_game_across_blocks(monkeypatch, by):
    """Many seat-games in blocks of 7 (the count is made a block at a time), repeated cards, empty hands, groups."""
    import random

    monkeypatch.setattr(cardstats, "BLOCK", 7)
    rng = random.Random(5)
    games = 60
    hands = {f"{kind}_{seat}": [[rng.choice([3, 5, 8, 13]) for _ in range(rng.randrange(0, 5))] for _ in range(games)]
             for kind in ("drawn", "played") for seat in ("p1", "p2")}
    frame = pl.DataFrame({"winner": [rng.choice(["p1", "p2", "draw"]) for _ in range(games)], **hands,
                          "table": [rng.choice(["a", "b", "c"]) for _ in range(games)]},
                         schema_overrides={c: pl.List(pl.Int64) for c in hands})
    cards = pl.DataFrame({"id": [3, 5, 8, 13, 21], "name": ["three", "five", "eight", "thirteen", "unseen"]})
    rates = cardstats.card_rates(frame, cards, by=[by] if by else [])
    plain = _plain_counts(frame, by)
    for row in rates.iter_rows(named=True):
        group = row[by] if by else None
        for kind, rate in (("drawn", "wr_drawn"), ("played", "wr_played")):
            n, k = plain.get((group, row["id"], kind), (0, 0))
            assert row[f"{rate}_n"] == n, (group, row["id"], kind)
            assert (row[rate] is None if n == 0 else row[rate] == pytest.approx(k / n)), (group, row["id"], kind)
    assert rates.filter(pl.col("id") == 21).get_column("wr_drawn_n").to_list() == [0] * (3 if by else 1)
    with pytest.raises(InputError, match=r"cards the card table lacks: ids \[8\]"):
        cardstats.card_rates(frame, cards.filter(pl.col("id") != 8))
    # no games (a run stopped before any finished): no group has a row, and nothing fails
    empty = cardstats.card_rates(frame.head(0), cards, by=[by] if by else [])
    assert empty.height == (0 if by else cards.height) and (empty.get_column("seat_games") == 0).all()
