"""One command layer (issue 40): every command's shared options come from ``workbench/cli/options.py``, and a bad
value is refused the same way by every command — one line, status 2, before any work and before any file.

The commands are walked from the real parser (``workbench.cli.top_parser``), with every game's ``simulate``,
``sweep`` and ``study`` parsers: a command added later is covered without naming it here.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from workbench.cli import CORE_COMMANDS, command_module, main, top_parser
from workbench.cli.options import MAX_BUDGET, MAX_EDIT_STEPS, OPTIONS
from workbench.core.model import game_names
from workbench.core.studies.study import studies

CLI = Path(__file__).resolve().parents[2] / "workbench" / "cli"


def _parsers() -> dict[str, list[argparse.ArgumentParser]]:
    """Each core command's parsers: the top-level one, and per game those a game-dependent command builds."""
    _, parsers, _ = top_parser(with_game_commands=False)
    found: dict[str, list[argparse.ArgumentParser]] = {}
    for name in CORE_COMMANDS:
        module = command_module(name)
        found[name] = [parsers[name]]
        if module.RAW:
            for game in game_names():
                found[name] += module.parsers(game)
    return found


def _base(command: str, out: Path) -> list[str]:
    """A minimal command line of ``command`` on the toy game (a bad value is added to it)."""
    study = studies("toy")[0].name
    lines = {"games": ["games"], "compile": ["compile"], "simulate": ["simulate", "toy"],
             "sweep": ["sweep", "toy", "--out", str(out)], "study": ["study", "toy", study],
             "report": ["report", "toy", "--quick", "--out", str(out)],
             "ladder": ["ladder", "toy", "--agents", "random,greedy"], "tune": ["tune", "toy", "--name", "clitest"],
             "rebalance": ["rebalance", "toy", "--out", str(out)]}
    assert set(lines) == set(CORE_COMMANDS), "a new command: give it a minimal line here"
    return lines[command]


def _reached(command: str) -> argparse.ArgumentParser:
    """The parser that reads :func:`_base`'s line of ``command`` (the toy game's, for a game-dependent command)."""
    module = command_module(command)
    if not module.RAW:
        return top_parser(with_game_commands=False)[1][command]
    return module.parsers("toy")[0]


def _commands_with(key: str) -> list[str]:
    return [name for name in CORE_COMMANDS if any(getattr(a, "shared", None) == key for a in _reached(name)._actions)]


def test_every_command_is_a_module_of_the_cli_package():
    _, parsers, _ = top_parser(with_game_commands=False)
    assert set(parsers) == set(CORE_COMMANDS)
    for name in CORE_COMMANDS:
        module = command_module(name)
        assert module.__name__ == f"workbench.cli.{name}" and module.HELP and callable(module.run)
    assert not list((CLI.parent).glob("*_cli.py")) and not (CLI.parent / "cli.py").exists()


def test_every_shared_flag_of_every_command_is_the_shared_definition():
    flags = {o.flag: key for key, o in OPTIONS.items()}
    seen = 0
    for parsers in _parsers().values():
        for parser in parsers:
            for action in parser._actions:
                for flag in action.option_strings:
                    if flag in flags:
                        key = getattr(action, "shared", None)
                        assert key is not None, f"{parser.prog}: {flag} is defined outside workbench/cli/options.py"
                        assert OPTIONS[key].flag == flag
                        if OPTIONS[key].type is not None and not getattr(action, "declared", False):
                            assert action.type is OPTIONS[key].type, f"{parser.prog}: {flag} has its own type"
                        seen += 1
    assert seen > 50


def test_no_command_module_defines_a_shared_flag_itself():
    shared = sorted({o.flag for o in OPTIONS.values()})
    pattern = re.compile(r"add_argument\(\s*\"(" + "|".join(map(re.escape, shared)) + r")\"")
    for path in CLI.glob("*.py"):
        if path.name != "options.py":
            assert not pattern.search(path.read_text(encoding="utf-8")), f"{path.name} defines a shared flag"


# option → (a bad value, the one message every command gives); OUT is a file, DIR a folder
BAD = {
    "workers": ("0", "workers must be a positive integer, got 0"),
    "seed": ("-1", "seed must be an integer in 0..18446744073709551615, got -1"),
    "games": ("0", "games must be a positive integer, got 0"),
    "budget": (str(10**20), f"budget 100,000,000,000,000,000,000 is more than can run (at most {MAX_BUDGET:,}); "
                            "give a smaller budget"),
    "max_edits": ("0", "max-edits must be a positive integer, got 0"),
    "cards": ("", "cards is empty; give card keys or patterns, e.g. 'F*,S*'"),
    "agents": ("", "agents is empty; give agent specs, comma-separated, e.g. greedy,random"),
    "target": (" ", "target is empty; give bands in percent, e.g. 'first_seat=49..51'"),
    "edit": ("power_cost:-100000..+100000", f"edit power_cost:-100000..+100000 is 200,001 steps, too many to "
                                            f"search (at most {MAX_EDIT_STEPS} a range, e.g. power_cost:-20..+20); "
                                            "give a narrower range"),
    "out": ("OUT", "out OUT is a file; give a folder"),
    "out_parquet": ("DIR", "out DIR is a folder; give a .parquet file"),
    "name": ("../x", "name '../x' is not a weight set name: letters, digits, '_' and '-', e.g. tuned"),
    "scheduler": ("", "scheduler is empty; give a Dask scheduler address, e.g. tcp://host:8786"),
    "params": ("deck", "'deck' is not NAME=VALUE (e.g. battlefield=crystal_garden)"),
}


def _run(argv: list[str], capsys) -> tuple[int, str]:
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse's own refusals (a choice not among the allowed)
        rc = int(exc.code)
    return rc, capsys.readouterr().err


@pytest.mark.parametrize("key", sorted(BAD))
def test_a_bad_value_is_refused_the_same_way_by_every_command_before_anything_is_written(key, tmp_path, capsys,
                                                                                       monkeypatch):
    monkeypatch.chdir(tmp_path)
    afile, folder, work = tmp_path / "afile.txt", tmp_path / "adir.parquet", tmp_path / "work"
    afile.write_text("mine")
    folder.mkdir()
    work.mkdir()
    value, message = BAD[key]
    value = value.replace("OUT", str(afile)).replace("DIR", str(folder))
    message = message.replace("OUT", str(afile)).replace("DIR", str(folder))
    commands = _commands_with(key)
    assert commands, f"no command takes --{key}"
    said = {}
    for command in commands:
        argv = [*_base(command, work / "out"), OPTIONS[key].flag, value]
        rc, err = _run(argv, capsys)
        assert rc == 2, (argv, err)
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        said[command] = err.strip()
        assert list(work.iterdir()) == [] and afile.read_text() == "mine" and list(folder.iterdir()) == []
        assert sorted(p.name for p in tmp_path.iterdir()) == ["adir.parquet", "afile.txt", "work"]
    assert set(said.values()) == {f"workbench: error: argument {OPTIONS[key].flag}: {message}"}, said


def test_a_backend_not_offered_is_refused_by_every_command_with_the_choices(tmp_path, capsys):
    commands = _commands_with("backend")
    assert {"simulate", "sweep", "ladder", "tune", "rebalance"} <= set(commands)
    for command in commands:
        rc, err = _run([*_base(command, tmp_path / "out"), "--backend", "cloud"], capsys)
        assert rc == 2 and "argument --backend: invalid choice: 'cloud' (choose from 'local', 'dask')" in err
    assert list(tmp_path.iterdir()) == []


def test_a_scheduler_without_the_dask_backend_is_refused_by_every_command_that_takes_both(tmp_path, capsys):
    commands = [c for c in _commands_with("scheduler") if c in _commands_with("backend")]
    assert {"simulate", "sweep", "ladder", "tune", "rebalance"} <= set(commands)
    for command in commands:
        rc, err = _run([*_base(command, tmp_path / "out"), "--scheduler", "tcp://127.0.0.1:1"], capsys)
        assert rc == 2 and "Traceback" not in err, err
        assert "used only with --backend dask (the backend is local)" in err, err
    assert list(tmp_path.iterdir()) == []


def test_resume_with_nothing_to_resume_is_refused_by_every_command_that_resumes(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    commands = _commands_with("resume")
    assert {"tune", "rebalance"} <= set(commands)
    for command in commands:
        rc, err = _run([*_base(command, tmp_path / "out"), "--resume"], capsys)
        assert rc == 2 and "nothing to resume" in err and "Traceback" not in err, err
    assert list(tmp_path.iterdir()) == []


def test_the_console_entry_point_and_python_m_both_run_the_command():
    import importlib
    import subprocess
    import sys
    import tomllib

    scripts = tomllib.loads((CLI.parents[1] / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    module, _, function = scripts["workbench"].partition(":")
    assert getattr(importlib.import_module(module), function) is main
    ran = subprocess.run([sys.executable, "-m", "workbench.cli", "tune", "toy", "--workers", "0"],
                         capture_output=True, text=True, timeout=120, cwd=CLI.parents[1])
    assert ran.returncode == 2
    assert ran.stderr.strip() == "workbench: error: argument --workers: workers must be a positive integer, got 0"


def test_an_out_in_a_read_only_folder_is_one_clear_line_from_every_command(tmp_path, capsys, monkeypatch):
    import os

    locked = tmp_path / "readonly"
    locked.mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: False if Path(path) == locked else real(path, mode))
    for key in ("out", "out_parquet"):
        for command in _commands_with(key):
            target = locked / ("x.parquet" if key == "out_parquet" else "x")
            rc, err = _run([*_base(command, tmp_path / "other"), "--out", str(target)], capsys)
            assert rc == 2, err
            assert err.strip() == (f"workbench: error: argument --out: out {target}: the folder {locked} is "
                                   "read-only; give a folder you can write to")
    assert list(locked.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["readonly"]


def test_every_command_prints_its_tables_one_way_empty_cells_as_a_dash(capsys):
    """One printer for a person's tables (``cli.common.table_text``): no command configures polars' printing itself,
    and what it prints has Markdown rows, every cell whole, an empty cell as "–", never "null" or a dtype line."""
    import polars as pl

    from workbench.cli.common import table_text

    cli = Path(__file__).resolve().parents[2] / "workbench" / "cli"
    own = [p.name for p in cli.glob("*.py") if "pl.Config(" in p.read_text() and p.name != "common.py"]
    assert own == [], f"these commands format tables themselves: {own}"
    long = "Master Mason of Babel (E8): power cost 6 → 5; " * 4
    text = table_text(pl.DataFrame({"Edits": [long, None], "Score": [0.5, None], "n": [400, 400]}))
    rows = text.splitlines()
    assert rows[0].startswith("|") and "Edits" in rows[0] and "Score" in rows[0]
    assert long.strip() in text and "null" not in text and "f64" not in text and "shape" not in text
    assert rows[-1].split("|")[1].strip() == "–" and rows[-1].split("|")[2].strip() == "–"
    assert len(table_text(pl.DataFrame({"a": list(range(300))})).splitlines()) < 300  # at most 200 rows by default
    assert len(table_text(pl.DataFrame({"a": list(range(300))}), rows=-1).splitlines()) > 300
