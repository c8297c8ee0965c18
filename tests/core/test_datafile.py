"""Reading a game's CSV data file: what a designer sees when a file is fine, odd or broken.

Rows are numbered as a spreadsheet shows them: the header is row 1, blank lines count.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from workbench.core.errors import DataError, InputError
from workbench.core.model.datafile import REQUIRED, content_digest, file_cache, read_table

COLUMNS = ("key", "cost", "colour")
GOOD = "key,cost,colour\nwall,3,red\ntower,5,blue\nmine,0,green\n"


def _file(tmp_path: Path, text: str | bytes, name: str = "units.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def _error(path: Path, *columns: str, **options) -> DataError:
    with pytest.raises(DataError) as info:
        read_table(path, columns or COLUMNS, **options)
    return info.value


def _cells(table) -> list[tuple[int, dict[str, str]]]:
    return [(row.number, row.cells) for row in table]


# ------------------------------------------------------------------------------------ good files
def test_rows_in_spreadsheet_numbering(tmp_path):
    table = read_table(_file(tmp_path, GOOD), COLUMNS)
    assert table.header == COLUMNS and len(table) == 3
    assert _cells(table) == [(2, {"key": "wall", "cost": "3", "colour": "red"}),
                             (3, {"key": "tower", "cost": "5", "colour": "blue"}),
                             (4, {"key": "mine", "cost": "0", "colour": "green"})]


def test_blank_lines_are_skipped_but_counted_and_a_quoted_line_break_is_one_row(tmp_path):
    text = 'key,cost,colour\nwall,3,red\n\n,,\n"big\ntower",5,blue\nmine,0,green\n'
    assert [(row.number, row["key"]) for row in read_table(_file(tmp_path, text), COLUMNS)] == [
        (2, "wall"), (5, "big\ntower"), (6, "mine")]


def test_excel_bom_and_crlf_load_to_the_same_rows_and_digest(tmp_path):
    plain = read_table(_file(tmp_path, GOOD, "plain.csv"), COLUMNS)
    bom = read_table(_file(tmp_path, b"\xef\xbb\xbf" + GOOD.encode(), "bom.csv"), COLUMNS)
    crlf = read_table(_file(tmp_path, b"\xef\xbb\xbf" + GOOD.replace("\n", "\r\n").encode(), "crlf.csv"), COLUMNS)
    assert bom.header == plain.header == crlf.header == COLUMNS  # not '\ufeffkey'
    assert _cells(bom) == _cells(plain) == _cells(crlf)
    assert bom.digest == plain.digest == content_digest(GOOD.encode())


def test_extra_columns_are_ignored_optional_ones_read_blank_and_headers_are_stripped(tmp_path):
    path = _file(tmp_path, " key , notes,cost,colour\nwall,keep it cheap,3,red\n")
    table = read_table(path, COLUMNS, optional=("weight",))
    assert table.rows[0].cells == {"key": "wall", "cost": "3", "colour": "red", "weight": ""}
    assert table.rows[0].decimal("weight", 0, 1, default=0.5) == 0.5
    with pytest.raises(KeyError):
        table.rows[0]["notes"]


def test_trailing_empty_cells_are_ignored(tmp_path):
    table = read_table(_file(tmp_path, "key,cost,colour\nwall,3,red,,\n"), COLUMNS)
    assert table.rows[0].cells == {"key": "wall", "cost": "3", "colour": "red"}


# ---------------------------------------------------------------------------------- bad headers
def test_missing_column_names_file_row_column_and_what_the_header_needs(tmp_path):
    err = _error(_file(tmp_path, "key,colour\nwall,red\n"))
    assert (err.row, err.column) == (1, "cost")
    assert str(err).startswith(f"{tmp_path / 'units.csv'}, row 1, column 'cost': missing column")
    assert "the header must have key, cost, colour; found key, colour" in str(err)
    err = _error(_file(tmp_path, "key,colour\nwall,red\n"), *COLUMNS, optional=("weight",))
    assert "the header must have key, cost, colour and may have weight" in str(err)


def test_missing_column_suggests_a_typo_and_a_wrong_separator(tmp_path):
    err = _error(_file(tmp_path, "key,cots,colour\nwall,3,red\n"))
    assert err.column == "cost" and "is 'cots' a typo of 'cost'?" in err.reason
    err = _error(_file(tmp_path, "key;cost;colour\nwall;3;red\n"))
    assert err.column == "key" and "save the file with commas between fields, not ';'" in err.reason


def test_a_column_named_twice(tmp_path):
    err = _error(_file(tmp_path, "key,cost,colour,cost\nwall,3,red,4\n"))
    assert (err.row, err.column) == (1, "cost") and "names this column twice (columns 2 and 4)" in err.reason


def test_unknown_columns_when_not_allowed(tmp_path):
    err = _error(_file(tmp_path, "key,cost,colour,notes\nwall,3,red,x\n"), *COLUMNS, allow_extra=False)
    assert (err.row, err.column) == (1, "notes") and err.reason.startswith("unknown column; the header must have key")


# ------------------------------------------------------------------------------- bad row shapes
@pytest.mark.parametrize(("text", "row", "reason"), [
    ("key,cost,colour\nwall,3,red\ntower,5\n", 3, "wrong number of fields; expected 3, found 2"),
    ("key,cost,colour\nwall,3,red\n\ntower,5,blue,surplus\n", 4, "wrong number of fields; expected 3, found 4"),
    ('key,cost,colour\nwall,3,red\n"tower,5,blue\nmine,0,green\n', 3, "a quote opened on this row is never closed"),
    ('key,cost,colour\n"wall"x,3,red\n', 2, "a cell that starts with a quote must end with one"),
])
def test_bad_row_shape(tmp_path, text, row, reason):
    err = _error(_file(tmp_path, text))
    assert err.row == row and reason in err.reason and "units.csv" in str(err)


# ------------------------------------------------------------------------ files that are no CSV
def test_cp1252_file_is_not_utf8_text(tmp_path):
    path = _file(tmp_path, "key,cost,colour\nwall,3,red\ncafé,5,blue\n".encode("cp1252"))
    err = _error(path)
    assert isinstance(err, InputError) and err.row is None
    assert str(err).startswith(str(path)) and "not UTF-8 text (byte 0xe9 on line 3" in err.reason
    assert "re-save as UTF-8 CSV" in err.reason


@pytest.mark.parametrize(("data", "hint"), [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", "byte 0x89 on line 1"),
    (b"key,cost,colour\n\x00\x01\x02\x03\n", "a NUL byte on line 2"),
    ("key,cost,colour\nwall,3,red\n".encode("utf-16"), "it is UTF-16"),
    (b"PK\x03\x04\x14\x00\x06\x00", "looks like an Excel workbook"),
])
def test_binary_and_other_encodings_are_not_utf8_text(tmp_path, data, hint):
    err = _error(_file(tmp_path, data))
    assert "units.csv" in str(err) and "not UTF-8 text" in err.reason and hint in err.reason
    assert "re-save as UTF-8 CSV" in err.reason


@pytest.mark.parametrize(("text", "reason"), [
    ("", "the file is empty; expected a header row with key, cost, colour"),
    ("\ufeff\n\n", "the file is empty; expected a header row with key, cost, colour"),
    ("key,cost,colour\n", "no units below the header"),
    ("key,cost,colour\n\n,,\n", "no units below the header"),
])
def test_empty_and_header_only_files(tmp_path, text, reason):
    err = _error(_file(tmp_path, text), *COLUMNS, what="units")
    assert "units.csv" in str(err) and err.reason == reason


def test_a_directory_and_a_missing_path(tmp_path):
    err = _error(tmp_path)
    assert str(err) == f"{tmp_path}: cannot read the file: it is a directory, not a CSV file"
    err = _error(tmp_path / "nope" / "units.csv")
    assert str(err) == f"{tmp_path / 'nope' / 'units.csv'}: cannot read the file: No such file or directory"


# ------------------------------------------------------------------------------------ cell readers
def _row(tmp_path: Path, **cells: str):
    """Row 2 of a file with these cells (and an ``id`` column, so a blank cell is not a blank row)."""
    cells = {"id": "1", **cells}
    return read_table(_file(tmp_path, f"{','.join(cells)}\n{','.join(cells.values())}\n"), tuple(cells)).rows[0]


@pytest.mark.parametrize(("cell", "reason"), [
    ("x4", "'x4' is not a whole number"),
    ("2.5", "'2.5' is not a whole number"),
    ("1,000", "'1,000' is not a whole number (use a point as the decimal mark, no thousands separators)"),
    ("1_000", "'1_000' is not a whole number"),
    ("-1", "-1 is out of range; allowed 0..999"),
    ("1000", "1000 is out of range; allowed 0..999"),
    ("", "is empty; expected a whole number 0..999"),
])
def test_integer_errors(tmp_path, cell, reason):
    row = _row(tmp_path, key="wall", cost=f'"{cell}"')
    with pytest.raises(DataError) as info:
        row.integer("cost", 0, 999)
    assert (info.value.row, info.value.column, info.value.reason) == (2, "cost", reason)
    assert str(info.value).startswith(f"{tmp_path / 'units.csv'}, row 2, column 'cost': ")


def test_integer_values_bounds_and_default(tmp_path):
    assert _row(tmp_path, cost=" +7 ").integer("cost", 0, 999) == 7
    assert _row(tmp_path, cost="-3").integer("cost") == -3
    assert _row(tmp_path, cost="").integer("cost", 0, 9, default=None) is None
    with pytest.raises(DataError, match="5 is out of range; allowed 6 or more"):
        _row(tmp_path, cost="5").integer("cost", 6)
    with pytest.raises(DataError, match="5 is out of range; allowed 4 or less"):
        _row(tmp_path, cost="5").integer("cost", high=4)


@pytest.mark.parametrize(("cell", "reason"), [
    ("abc", "'abc' is not a number"),
    ("nan", "'nan' is not a number"),
    ("inf", "'inf' is not a number"),
    ("1e999", "'1e999' is too large"),
    ('"0,5"', "'0,5' is not a number (use a point as the decimal mark"),
    ("1.5", "1.5 is out of range; allowed 0.0..1.0"),
    ("", "is empty; expected a number 0.0..1.0"),
])
def test_decimal_errors(tmp_path, cell, reason):
    with pytest.raises(DataError) as info:
        _row(tmp_path, weight=cell).decimal("weight", 0.0, 1.0)
    assert info.value.column == "weight" and info.value.reason.startswith(reason)


def test_decimal_values(tmp_path):
    assert [_row(tmp_path, weight=c).decimal("weight", 0.0, 1.0) for c in ("0.25", ".5", "1", "1e-1")] == [
        0.25, 0.5, 1.0, 0.1]


def test_text_and_choice(tmp_path):
    row = _row(tmp_path, key=" wall ", name="", colour="purple")
    assert row.text("key") == "wall"
    assert row.text("name", default="") == ""
    with pytest.raises(DataError) as info:
        row.text("name")
    assert (info.value.column, info.value.reason) == ("name", "is empty")
    with pytest.raises(DataError) as info:
        row.choice("colour", ("red", "blue", "green"), what="a colour")
    assert info.value.reason == "'purple' is not a colour; allowed: red, blue, green"
    with pytest.raises(DataError, match="'' is not a valid value; allowed: red, blue"):
        row.choice("name", ("red", "blue"))
    assert row.choice("name", ("red", "blue"), default="red") == "red"
    assert REQUIRED is not None and repr(REQUIRED) == "REQUIRED"


def test_a_game_rule_error_keeps_file_and_row(tmp_path):
    row = read_table(_file(tmp_path, GOOD), COLUMNS).rows[2]
    err = row.error("key", "key 'mine' already used on row 2")
    assert str(err) == f"{tmp_path / 'units.csv'}, row 4, column 'key': key 'mine' already used on row 2"


# ------------------------------------------------------------------------------------------ cache
def test_cache_reuses_a_load_and_rereads_an_edited_file(tmp_path):
    calls = []

    @file_cache(maxsize=2)
    def load(path: Path) -> tuple[str, ...]:
        calls.append(path)
        return tuple(row["key"] for row in read_table(path, COLUMNS))

    path = _file(tmp_path, GOOD)
    first = load(path)
    assert first == ("wall", "tower", "mine")
    assert load(str(path)) is first and load(tmp_path / "." / "units.csv") is first
    assert calls == [path.resolve()]  # the loader gets the resolved path, once

    path.write_text(GOOD.replace("mine", "mint"), encoding="utf-8")  # same size: only the mtime tells
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert load(path) == ("wall", "tower", "mint")
    path.write_text(GOOD + "keep,1,red\n", encoding="utf-8")  # a new size is seen even within one mtime tick
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert load(path) == ("wall", "tower", "mine", "keep")
    assert len(calls) == 3
    load.cache_clear()
    load(path)
    assert len(calls) == 4


def test_cache_does_not_keep_errors(tmp_path):
    @file_cache()
    def load(path: Path) -> int:
        return len(read_table(path, COLUMNS))

    path = tmp_path / "units.csv"
    with pytest.raises(DataError, match="cannot read the file"):
        load(path)
    path.write_text("key,cost,colour\n", encoding="utf-8")
    with pytest.raises(DataError, match="no data rows below the header"):
        load(path)
    path.write_text(GOOD, encoding="utf-8")
    assert load(path) == 3


def test_a_value_kept_per_object_is_found_by_that_object_only_and_the_oldest_goes_first():
    from workbench.core.model import PerObject

    built: list[str] = []
    kept = PerObject(most=2)

    def value(name: str):
        return lambda: built.append(name) or name.upper()

    one, twin, other = ["cards"], ["cards"], ["more"]  # twin equals one but is another object
    assert kept.get(one, value("one")) == "ONE" and kept.get(one, value("again")) == "ONE"
    assert kept.get(twin, value("twin")) == "TWIN"  # found by identity, never by equal content
    assert kept.get(one, value("variant"), "lightning") == "VARIANT"  # a key part tells values of one object apart
    assert built == ["one", "twin", "variant"]
    kept.get(other, value("other"))  # full (2): the oldest entries went first
    assert kept.get(one, value("rebuilt")) == "REBUILT" and built[-1] == "rebuilt"
