"""Loading the duel's data files: every bad row fails with file, row, column and reason; nothing is written.

Rows are numbered as a spreadsheet shows them: the header is row 1, the first card row 2.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from workbench.core.errors import DataError
from workbench.games.duel.data import (
    BATTLEFIELD_COLUMNS,
    BATTLEFIELDS_CSV,
    CARD_COLUMNS,
    CARDS_CSV,
    load_battlefields,
    load_cards,
)
from workbench.games.duel.effects import EffectSyntaxError, format_effect, parse_effect

CARD_LINES = CARDS_CSV.read_text(encoding="utf-8").splitlines()
FIELD_LINES = BATTLEFIELDS_CSV.read_text(encoding="utf-8").splitlines()


def _write(tmp_path: Path, name: str, lines: list[str]) -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _edit(lines: list[str], row: int, column: str, value: str, columns: tuple[str, ...]) -> list[str]:
    """Set one cell (row in spreadsheet numbering; simple rows without quoted commas)."""
    out = list(lines)
    cells = out[row - 1].split(",")
    cells[columns.index(column)] = value
    out[row - 1] = ",".join(cells)
    return out


def _snapshot(*dirs: Path) -> dict[str, float]:
    return {str(p): p.stat().st_mtime_ns for d in dirs for p in sorted(d.rglob("*"))}


# ------------------------------------------------------------------------------------ the real files
def test_the_shipped_cards_load():
    cards = load_cards()
    assert len(cards) == 102
    assert [c.id for c in cards.cards] == list(range(1, 103))
    assert [c.index for c in cards.cards] == list(range(102))
    assert {colour: sum(c.colour == colour for c in cards.cards) for colour in ("red", "blue", "green")} == {
        "red": 34, "blue": 34, "green": 34}
    assert (cards.by_key("dragon").cost, cards.by_key("dragon").resource) == (25, "troops")
    assert (cards.by_key("prism").name_id, cards.by_key("prism").resource) == ("Prisma", "mana")


def test_the_shipped_battlefields_load_with_the_rules_table():
    fields = load_battlefields()
    #            tower wall mines monast barracks ore mana troops win_tower win_resources
    expected = {
        "grand_wizards_fortress": (20, 5, 2, 2, 2, 5, 5, 5, 50, 150),
        "crystal_garden": (20, 10, 3, 3, 3, 5, 5, 5, 75, 200),
        "coastal_fortress": (20, 10, 5, 5, 5, 25, 25, 25, 150, 400),
        "sky_blue_valley": (20, 50, 1, 1, 5, 5, 5, 25, 100, 300),
        "misty_harbour": (50, 50, 5, 3, 5, 20, 10, 20, 100, 300),
        "wind_square": (20, 10, 3, 1, 2, 15, 5, 10, 125, 350),
        "free_steppe": (20, 10, 1, 1, 1, 15, 15, 15, 200, 500),
        "mirror_labyrinth": (30, 15, 4, 4, 4, 10, 10, 10, 100, 300),
    }
    assert list(fields) == list(expected)
    assert {k: tuple(b)[3:] for k, b in fields.items()} == expected


@pytest.mark.parametrize("card", load_cards().cards, ids=lambda c: c.key)
def test_effect_round_trip(card):
    text = format_effect(parse_effect(card.effect_text))
    assert parse_effect(text) == card.effect
    assert format_effect(parse_effect(text)) == text  # the canonical text is a fixed point


# -------------------------------------------------------------------------------------- bad cards
@pytest.mark.parametrize(("row", "column", "value", "reason"), [
    (5, "id", "x4", "'x4' is not a whole number"),
    (5, "id", "3", "id 3 already used on row 4"),
    (5, "key", "bad_ore", "key 'bad_ore' already used on row 2"),
    (9, "colour", "purple", "'purple' is not a colour; allowed: red, blue, green"),
    (9, "colour", "", "'' is not a colour"),
    (9, "cost", "-1", "-1 is out of range; allowed 0..999"),
    (9, "cost", "1000", "1000 is out of range; allowed 0..999"),
    (9, "cost", "two", "'two' is not a whole number"),
    (9, "name_en", "", "is empty"),
    (9, "effect", "self.wal +3", "cannot read operation 'self.wal +3'"),
    (9, "effect", "self.wall +1000", "amount 1000 is above the maximum 999"),
    (9, "effect", "if self.wall == 0 self.wall +5", "expected 'if COND then OPS [else OPS]'"),
    (9, "effect", "self.wall +1 & again", "'again' and 'draw_discard' must be statements of their own"),
    (9, "effect", "self.tower = self.tower", "needs one side self and the other enemy"),
    (9, "effect", "", "the effect is empty"),
    (9, "effect", "self.wall +1;; again", "empty statement"),
    (9, "effect", "if self.wal < 3 then self.wall +1", "cannot read condition 'self.wal < 3'"),
])
def test_bad_card_cell(tmp_path, row, column, value, reason):
    path = _write(tmp_path, "cards.csv", _edit(CARD_LINES, row, column, value, CARD_COLUMNS))
    before = _snapshot(tmp_path)
    with pytest.raises(DataError) as info:
        load_cards(path)
    err = info.value
    assert (Path(err.path), err.row, err.column) == (path.resolve(), row, column)
    assert reason in err.reason
    assert str(path.name) in str(err) and f"row {row}" in str(err) and f"column {column!r}" in str(err)
    assert _snapshot(tmp_path) == before  # nothing written next to the file


def test_effect_error_lists_what_is_allowed(tmp_path):
    path = _write(tmp_path, "cards.csv", _edit(CARD_LINES, 2, "effect", "enemy.castle -3", CARD_COLUMNS))
    with pytest.raises(DataError) as info:
        load_cards(path)
    message = str(info.value)
    for word in ("WHO.damage N", "swap.STAT", "steal.RESOURCE N", "tower, wall, mines", "self, enemy, all"):
        assert word in message


def test_missing_card_column(tmp_path):
    lines = [",".join(c for c in CARD_LINES[0].split(",") if c != "cost")]
    lines += [",".join(v for i, v in enumerate(line.split(",")) if i != 5) for line in CARD_LINES[1:]]
    path = _write(tmp_path, "cards.csv", lines)
    with pytest.raises(DataError) as info:
        load_cards(path)
    assert (info.value.row, info.value.column) == (1, "cost")
    assert "missing column" in info.value.reason and "id, key, name_en" in info.value.reason


@pytest.mark.parametrize("extra", [",surplus", None])
def test_wrong_field_count(tmp_path, extra):
    lines = list(CARD_LINES)
    if extra is None:
        lines[6] = lines[6].rsplit(",", 1)[0]  # row 7 loses its last field
    else:
        lines[6] += extra
    path = _write(tmp_path, "cards.csv", lines)
    with pytest.raises(DataError) as info:
        load_cards(path)
    assert info.value.row == 7 and "wrong number of fields; expected 7" in info.value.reason


def test_missing_file(tmp_path):
    path = tmp_path / "nope" / "cards.csv"
    with pytest.raises(DataError) as info:
        load_cards(path)
    assert "cannot read the file" in info.value.reason and "nope" in str(info.value)
    assert not path.parent.exists()
    with pytest.raises(DataError, match="cannot read the file"):
        load_battlefields(tmp_path / "fields.csv")


def test_too_few_cards(tmp_path):
    path = _write(tmp_path, "cards.csv", CARD_LINES[:11])
    with pytest.raises(DataError, match="10 cards; a deck needs at least 14"):
        load_cards(path)


def test_a_valid_copy_loads_and_an_edit_is_seen(tmp_path):
    path = _write(tmp_path, "cards.csv", CARD_LINES)
    assert len(load_cards(path)) == 102
    edited = _edit(CARD_LINES, 9, "cost", "7", CARD_COLUMNS)  # Basic Wall now costs 7
    path.write_text("\n".join(edited) + "\n", encoding="utf-8")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    cards = load_cards(path)
    assert cards.by_key("basic_wall").cost == 7
    assert cards.digest != load_cards().digest


# ------------------------------------------------------------------------------ bad battlefields
@pytest.mark.parametrize(("row", "column", "value", "reason"), [
    (3, "tower", "tall", "'tall' is not a whole number"),
    (3, "wall", "-5", "-5 is out of range; allowed 0..100000"),
    (3, "mines", "100001", "100001 is out of range"),
    (3, "tower", "0", "a battlefield must start with a tower of at least 1"),
    (3, "tower", "75", "start tower 75 already reaches the winning tower 75"),
    (3, "win_resources", "0", "must be at least 1"),
    (3, "key", "grand_wizards_fortress", "battlefield 'grand_wizards_fortress' appears twice"),
    (3, "name_en", "", "is empty"),
])
def test_bad_battlefield_cell(tmp_path, row, column, value, reason):
    path = _write(tmp_path, "battlefields.csv", _edit(FIELD_LINES, row, column, value, BATTLEFIELD_COLUMNS))
    before = _snapshot(tmp_path)
    with pytest.raises(DataError) as info:
        load_battlefields(path)
    assert (Path(info.value.path), info.value.row, info.value.column) == (path.resolve(), row, column)
    assert reason in info.value.reason
    assert _snapshot(tmp_path) == before


def test_battlefields_missing_column_and_empty_file(tmp_path):
    header = ",".join(c for c in BATTLEFIELD_COLUMNS if c != "win_tower")
    with pytest.raises(DataError) as info:
        load_battlefields(_write(tmp_path, "a.csv", [header]))
    assert (info.value.row, info.value.column) == (1, "win_tower")
    with pytest.raises(DataError, match="no battlefields"):
        load_battlefields(_write(tmp_path, "b.csv", FIELD_LINES[:1]))


def test_loading_writes_nothing_in_the_data_directory():
    data_dir = CARDS_CSV.parent
    before = _snapshot(data_dir)
    load_cards()
    load_battlefields()
    assert _snapshot(data_dir) == before


@pytest.mark.parametrize("text", ["draw_discard; draw_discard", "again; again", "steal.wall 3", "swap.castle",
                                  "nobody.wall +1", "self.wall +", "if self.wall > 1 then again"])
def test_parser_rejects(text):
    with pytest.raises(EffectSyntaxError):
        parse_effect(text)


def test_effects_guide_examples_parse_and_are_real_cards():
    guide = (CARDS_CSV.parent / "EFFECTS.md").read_text(encoding="utf-8")
    block = guide.split("```effects\n", 1)[1].split("```", 1)[0]
    examples = [line for line in block.splitlines() if line.strip()]
    assert len(examples) >= 15
    shipped = {c.effect_text for c in load_cards().cards}
    for text in examples:
        parse_effect(text)
        assert text in shipped, text


@pytest.mark.parametrize(("source", "load"), [(CARDS_CSV, load_cards), (BATTLEFIELDS_CSV, load_battlefields)],
                         ids=["cards", "battlefields"])
def test_shipped_files_saved_by_excel_with_a_bom_load_identically(tmp_path, source, load):
    copy = tmp_path / source.name
    copy.write_bytes(b"\xef\xbb\xbf" + source.read_bytes())
    original, excel = load(source), load(copy)
    if load is load_cards:
        assert excel.cards == original.cards and excel.digest == original.digest  # same params hash
        assert excel.source == str(copy.resolve())
    else:
        assert excel == original
