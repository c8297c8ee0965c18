"""What-if edits of a data table: the edited copy's content, its content-hashed name, errors."""

from __future__ import annotations

import hashlib
import re

import pytest

from workbench.core.design.edits import cache_dir, edit_csv
from workbench.core.errors import DataError, InputError

TABLE = "sku,name,price,notes\nt1,Temple,5,big\nt2,Shrine,3,\nt3,Altar,2,\"a, b\"\n"


@pytest.fixture
def base(tmp_path):
    path = tmp_path / "buildings.csv"
    path.write_text(TABLE, encoding="utf-8")
    return path


def test_the_edited_copy_and_its_name(base, tmp_path):
    out = tmp_path / "cache"
    path = edit_csv(base, {"t2": {"price": 4, "notes": "new"}}, key="sku", directory=out)
    expected = "sku,name,price,notes\nt1,Temple,5,big\nt2,Shrine,4,new\nt3,Altar,2,\"a, b\"\n"
    assert path.read_text(encoding="utf-8") == expected
    assert path == out / f"buildings-{hashlib.sha256(expected.encode()).hexdigest()[:16]}.csv"
    assert base.read_text(encoding="utf-8") == TABLE  # the base is never touched
    # the same edit is the same file (written once); another edit another file
    mtime = path.stat().st_mtime_ns
    assert edit_csv(base, {"t2": {"price": "4", "notes": "new"}}, key="sku", directory=out) == path
    assert path.stat().st_mtime_ns == mtime
    other = edit_csv(base, {"t2": {"price": 5}}, key="sku", directory=out, stem="shop")
    assert other.name.startswith("shop-") and other != path
    assert sorted(p.name for p in out.iterdir()) == sorted([path.name, other.name])  # no temporary files left


def test_no_edit_is_a_normalised_copy(base, tmp_path):
    path = edit_csv(base, {}, key="sku", directory=tmp_path / "c")
    assert path.read_text(encoding="utf-8") == TABLE


def test_rows_found_by_any_key_column(tmp_path):
    base = tmp_path / "cards.csv"
    base.write_bytes(b"\xef\xbb\xbfid,key,cost\n1,ruby,3\n2,dragon,25\n")  # a spreadsheet's byte-order mark
    path = edit_csv(base, {2: {"cost": 20}, "ruby": {"cost": 4}}, key=("key", "id"), directory=tmp_path / "c")
    assert path.read_text(encoding="utf-8") == "id,key,cost\n1,ruby,4\n2,dragon,20\n"
    with pytest.raises(InputError, match="cannot edit column 'id' of 'ruby': it is the row's key; editable columns: "
                                         "cost$"):
        edit_csv(base, {"ruby": {"id": 7}}, key=("key", "id"), directory=tmp_path / "c")


def test_errors_name_the_file_key_column_and_what_exists(base, tmp_path):
    out, where = tmp_path / "c", re.escape(str(base))
    with pytest.raises(InputError, match=rf"{where}: no row with sku 't9' to edit; sku values: t1, t2, t3$"):
        edit_csv(base, {"t9": {"price": 1}}, key="sku", directory=out)
    with pytest.raises(InputError, match=rf"{where}: cannot edit column 'cost' of 't1': it is not a column; "
                                         "editable columns: name, price, notes$"):
        edit_csv(base, {"t1": {"cost": 1}}, key="sku", directory=out)
    with pytest.raises(InputError, match=rf"{where}: no key column 'key' .*; columns: sku, name, price, notes"):
        edit_csv(base, {"t1": {"price": 1}}, directory=out)
    with pytest.raises(DataError, match="cannot read the file"):
        edit_csv(tmp_path / "missing.csv", {}, directory=out)
    assert not out.exists()  # nothing written


def test_long_key_lists_are_shortened(tmp_path):
    base = tmp_path / "deck.csv"
    base.write_text("id,cost\n" + "".join(f"c{i},1\n" for i in range(60)), encoding="utf-8")
    with pytest.raises(InputError, match=r"id values: c0, c1, .*, c19, … \(60 in all\)$"):
        edit_csv(base, {"x": {"cost": 2}}, key="id", directory=tmp_path / "c")


def test_an_ambiguous_key_is_refused(tmp_path):
    base = tmp_path / "t.csv"
    base.write_text("key,cost\na,1\na,2\n", encoding="utf-8")
    with pytest.raises(DataError, match="row 3, column 'key': 'a' names two rows"):
        edit_csv(base, {"a": {"cost": 3}}, directory=tmp_path / "c")


def test_a_copy_the_validator_rejects_is_removed(base, tmp_path):
    out = tmp_path / "c"

    def validate(path):
        if "-1" in path.read_text(encoding="utf-8"):
            raise DataError(path, 3, "price", "must be >= 0")

    with pytest.raises(DataError, match="column 'price': must be >= 0"):
        edit_csv(base, {"t2": {"price": -1}}, key="sku", directory=out, validate=validate)
    assert list(out.iterdir()) == []
    assert edit_csv(base, {"t2": {"price": 1}}, key="sku", directory=out, validate=validate).is_file()


def test_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path))
    assert cache_dir("duel") == tmp_path / "duel" and cache_dir() == tmp_path
    monkeypatch.delenv("WORKBENCH_CACHE")
    assert cache_dir("auction").parts[-2:] == ("workbench-cache", "auction")
