"""Output folders (issue 40): one writer per folder, never a file the command did not write, a refusal that leaves
nothing behind, and runs whose targets no game can measure refused before they start.

Walked over every command with an ``--out`` (from the real parser), on the toy game.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from workbench.cli import CORE_COMMANDS, command_module, main, top_parser
from workbench.core.model import game_names, get_game
from workbench.core.sim.outdir import MANIFEST, OutDir, written_files
from workbench.core.sim.store import OutputLock
from workbench.core.studies.study import studies


def _out_commands() -> dict[str, list[str]]:
    """Each command with an --out, and a short line of it on the toy game (OUT stands for the output)."""
    study = studies("toy")[0].name
    lines = {"simulate": ["simulate", "toy", "--games", "20", "--quiet", "--out", "OUT.parquet"],
             "sweep": ["sweep", "toy", "--games", "20", "--quiet", "--out", "OUT"],
             "study": ["study", "toy", study, "--out", "OUT"],
             "report": ["report", "toy", "--quick", "--out", "OUT"],
             "ladder": ["ladder", "toy", "--agents", "random,greedy", "--games", "20", "--quiet", "--out", "OUT"],
             "rebalance": ["rebalance", "toy", "--edit", "limit:-1..+1", "--budget", "4000", "--stages", "2",
                           "--population", "8", "--tiers", "random", "--margin", "0.1", "--verify", "1",
                           "--out", "OUT"]}
    _, parsers, _ = top_parser(with_game_commands=False)
    with_out = set()
    for name in CORE_COMMANDS:
        module = command_module(name)
        reached = module.parsers("toy")[0] if module.RAW else parsers[name]
        if "--out" in {f for a in reached._actions for f in a.option_strings}:
            with_out.add(name)
    assert with_out == set(lines), "a command with --out: give it a short line here"
    return lines


def _line(command: str, out: Path) -> list[str]:
    return [w.replace("OUT", str(out)) for w in _out_commands()[command]]


def _run(argv: list[str], capsys) -> tuple[int, str]:
    try:
        rc = main(argv)
    except SystemExit as exc:
        rc = int(exc.code)
    return rc, capsys.readouterr().err


class _Holder:
    """Another run writing ``target``: its lock, held by another thread until the test ends."""

    def __init__(self, target: Path) -> None:
        self.target, self.taken, self.done = target, threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._hold, daemon=True)

    def _hold(self) -> None:
        with OutputLock(self.target, "the first run's --out"):
            self.taken.set()
            self.done.wait(60)

    def __enter__(self) -> _Holder:
        self.thread.start()
        assert self.taken.wait(30)
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join(30)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("command", ["simulate", "sweep", "study", "report", "ladder", "rebalance"])
def test_a_second_run_into_an_output_being_written_is_refused_at_once(command, tmp_path, capsys):
    out = tmp_path / "out"
    argv = _line(command, out)
    target = Path(argv[-1])
    with _Holder(target):
        rc, err = _run(argv, capsys)
    assert rc == 2 and "is being written by another run" in err and "Traceback" not in err, err
    assert not target.exists()


def test_resume_is_refused_while_the_first_rebalance_runs(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "search.jsonl").write_text("")  # the first run's search, under way
    before = _snapshot(out)
    with _Holder(out):
        rc, err = _run([*_line("rebalance", out), "--resume"], capsys)
    assert rc == 2 and "is being written by another run" in err, err
    assert _snapshot(out) == before


@pytest.mark.parametrize("command", ["sweep", "study", "report", "ladder", "rebalance"])
def test_a_folder_of_the_users_own_files_is_refused_and_left_untouched(command, tmp_path, capsys):
    out = tmp_path / "out"
    (out / "proposals").mkdir(parents=True)
    for name in ("proposals.csv", "proposals/proposal-01.csv", "index.md", "manifest.json.txt", "games.parquet"):
        (out / name).write_text(f"the user's own {name}")
    before = _snapshot(out)
    rc, err = _run(_line(command, out), capsys)
    assert rc == 2 and "Traceback" not in err, err
    assert _snapshot(out) == before and sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_rebalance_refused_once_under_way_leaves_nothing_so_the_corrected_command_runs(tmp_path, capsys):
    out = tmp_path / "new" / "out"
    argv = _line("rebalance", out)
    small = [*argv[:argv.index("--budget") + 1], "10", *argv[argv.index("--budget") + 2:]]
    rc, err = _run(small, capsys)
    assert rc == 2 and "budget 10" in err, err
    assert list(tmp_path.iterdir()) == []  # no folder, no search.jsonl, no lock
    assert main(argv) == 0
    assert (out / "search.jsonl").is_file() and (out / "proposals.csv").is_file()
    own = written_files(out)
    assert own is not None and {"search.jsonl", "proposals.csv"} <= own
    capsys.readouterr()
    rc, err = _run(argv, capsys)  # the same command again: the folder holds its search
    assert rc == 2 and "--resume" in err


def test_a_rebalance_target_no_game_can_measure_is_refused_before_a_search(tmp_path, capsys):
    out = tmp_path / "out"
    rc, err = _run(["rebalance", "dietower", "--edit", "suit_size:-1..+1", "--out", str(out)], capsys)
    assert rc == 2 and "no game of dietower counts towards it (n = 0" in err, err
    assert list(tmp_path.iterdir()) == []


def test_every_games_default_target_is_measured_or_refused_by_name():
    from workbench.cli.common import Parser
    from workbench.cli.rebalance import _measurable, add_arguments
    from workbench.core.design.rebalance import targets_of
    from workbench.core.errors import InputError

    parser = Parser()
    add_arguments(parser)
    for game in game_names():
        args = parser.parse_args([game, "--out", "unused"])
        if getattr(get_game(game), "targets", None) is not None:  # a game that declares its targets measures them
            _measurable(args)
            continue
        try:
            _measurable(args)
        except InputError as exc:
            assert f"no game of {game} counts towards it" in str(exc)
            assert targets_of(game).target.split("=")[0] in str(exc)


def test_two_tunings_of_one_name_the_second_forced_keep_the_firsts_checkpoint(tmp_path, capsys, monkeypatch):
    import workbench.core.skill.tune as tune_mod

    monkeypatch.setattr(tune_mod, "set_path", lambda model, name: tmp_path / f"{name}.toml")
    monkeypatch.setattr(tune_mod, "tune_folder", lambda model, name: tmp_path / f".{name}.tune")
    checkpoint = tmp_path / ".mine.tune"
    checkpoint.mkdir()
    (checkpoint / "state.json").write_text('{"history": []}')
    with _Holder(tmp_path / "mine.toml"):
        rc, err = _run(["tune", "toy", "--name", "mine", "--force", "--budget", "400", "--games", "20"], capsys)
    assert rc == 2 and "is being written by another run" in err, err
    assert (checkpoint / "state.json").read_text() == '{"history": []}'


def test_the_manifest_claims_a_killed_runs_files_and_a_refusal_removes_only_what_it_made(tmp_path):
    from workbench.core.errors import InputError

    out = tmp_path / "out"
    with OutDir(out, "x --out"):
        (out / "a.csv").write_text("a")
    assert written_files(out) == {"a.csv"}
    with pytest.raises(InputError), OutDir(out, "x --out"):
        (out / "b.csv").write_text("b")
        raise InputError("refused once under way")
    assert written_files(out) == {"a.csv"} and not (out / "b.csv").exists() and (out / "a.csv").read_text() == "a"
    (out / MANIFEST).write_text('{"complete": false, "files": []}')  # a run killed while writing
    (out / "c.csv").write_text("c")
    assert written_files(out) == {"a.csv", "c.csv"}
    with pytest.raises(InputError, match="nothing to resume"), OutDir(out, "x --out", resume=True,
                                                                       resumable=lambda f: False):
        pass
    assert sorted(p.name for p in out.iterdir()) == sorted([MANIFEST, "a.csv", "c.csv"])
    assert not (tmp_path / "out.lock").exists()


def test_a_studys_tables_print_their_text_whole(capsys, monkeypatch):
    import polars as pl

    from workbench.core.studies.study import Study

    finding = "Builders of the tower win more often when the first seat builds twice; " * 3 + "the end."
    monkeypatch.setattr(Study, "execute", lambda self, *a, **k: {"findings": pl.DataFrame({"finding": [finding]})})
    monkeypatch.setattr(Study, "make_charts", lambda self, tables: {})
    assert main(["study", "toy", studies("toy")[0].name]) == 0
    assert finding in capsys.readouterr().out
