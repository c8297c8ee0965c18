"""Heavy libraries on first use (``core.lazy``): a stand-in imports its module when read, or when preloaded."""

from __future__ import annotations

import sys
import time

from workbench.core.lazy import lazy, preload


def test_a_lazy_module_is_imported_when_first_read_and_a_preloaded_one_in_the_background(tmp_path, monkeypatch):
    (tmp_path / "wb_lazy_probe.py").write_text("VALUE = 7\n")
    (tmp_path / "wb_lazy_preloaded.py").write_text("VALUE = 8\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("wb_lazy_probe", "wb_lazy_preloaded"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    read = lazy("wb_lazy_probe")
    assert "wb_lazy_probe" not in sys.modules  # nothing imported until a name is read
    assert read.VALUE == 7 and "wb_lazy_probe" in sys.modules
    loaded = lazy("wb_lazy_preloaded")
    preload(loaded)  # a run that may be stopped: its tables' library is imported while it plays
    ends = time.monotonic() + 30
    while "wb_lazy_preloaded" not in sys.modules and time.monotonic() < ends:
        time.sleep(0.01)
    assert "wb_lazy_preloaded" in sys.modules, "preload did not import the module"
    assert loaded.VALUE == 8
    preload(loaded)  # once imported, nothing more
    assert lazy("wb_lazy_probe") is sys.modules["wb_lazy_probe"]  # an imported module is itself, no stand-in
