"""``workbench report GAME|all [--quick] [--out DIR] [--summary]``: a game's report (index.html, index.md, tables)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import workbench.cli.options as options
from workbench.core.model import GameModel, game_names, get_game

HELP = "write a game's report (index.html, index.md, tables)"
RAW = False
OUT_WHAT = "report output"  # how a refusal names --out (the same words as the report's own lock)


def add_arguments(rep: argparse.ArgumentParser) -> None:
    """The flags of ``workbench report``."""
    rep.add_argument("game", help="a game name or 'all'")
    options.add(rep, "out", help="the report's directory (default reports/GAME); with 'all', one GAME/ folder each "
                                 "in it (default reports/)")
    rep.add_argument("--quick", action="store_true", help="small settings (seconds)")
    options.add(rep, "seed")
    options.add(rep, "force", help="write into a non-empty directory that holds no report (its other files are "
                                   "kept), or replace another game's report there")
    rep.add_argument("--summary", action="store_true",
                     help="print what the report finds and what to change: read from the report in --out when it "
                          "was built by this rules and workbench version, else build the report first")


def run(args: argparse.Namespace, rest: list[str], argv: list[str]) -> int:
    """Build the report(s), or print the summary."""
    if args.summary:
        return _report_summary(args.game, args.out, args.quick, args.seed, args.force)
    return _report(args.game, args.out, args.quick, args.seed, args.force)


def _report(game: str, out: Path | None, quick: bool, seed: int, force: bool = False) -> int:
    from workbench.core.present.report import check_target, install, staging
    from workbench.core.sim.store import OutputLock
    from workbench.core.studies.study import report_builder

    names = game_names() if game == "all" else [get_game(game).name]
    if game == "all":
        targets = {name: (out or Path("reports")) / name for name in names}
    else:
        targets = {names[0]: out or Path("reports") / names[0]}
    for name, target in targets.items():  # every target is checked before any report is computed
        check_target(target, force, name)  # nor does a game's report replace another game's
    for name, target in targets.items():
        start = time.perf_counter()
        with OutputLock(target, "report output"), staging(target) as folder:
            built = report_builder(name)(folder / "report", quick=quick, seed=seed)
            install(Path(built), target, force)
        print(f"{name}: report written to {target} in {time.perf_counter() - start:.1f} s")
    return 0


def _report_targets(game: str, out: Path | None) -> dict[str, Path]:
    names = game_names() if game == "all" else [get_game(game).name]
    if game == "all":
        return {name: (out or Path("reports")) / name for name in names}
    return {names[0]: out or Path("reports") / names[0]}


def _stale(summary: dict[str, Any] | None, model: GameModel) -> str:
    """Why a report's summary cannot be reused ("" when it can): none there, or another rules/workbench version."""
    from workbench.core.sim.store import package_version

    if summary is None:
        return "no report with a summary there"
    rules = summary.get("rules_version")
    rules = rules[0] if isinstance(rules, list) and len(rules) == 1 else rules
    if str(rules) != str(model.rules_version):
        return f"the report there was built by rules version {rules}, the rules are now {model.rules_version}"
    if summary.get("workbench_version") != package_version():
        return (f"the report there was built by workbench {summary.get('workbench_version')}, this is "
                f"{package_version()}")
    return ""


def _report_summary(game: str, out: Path | None, quick: bool, seed: int, force: bool = False) -> int:
    """``report GAME --summary``: print the report's summary, building the report only when none is current."""
    from workbench.core.present.summary import read_summary

    for name, target in _report_targets(game, out).items():
        model = get_game(name)
        why = _stale(read_summary(target), model)
        if why:
            print(f"{name}: building the {'quick ' if quick else ''}report in {target} ({why}), then its summary")
            _report(name, target, quick, seed, force)
        else:
            print(f"{name}: the summary of the report in {target} (built by this rules and workbench version; "
                  "nothing recomputed)")
        path = target / "summary.md"
        print(path.read_text(encoding="utf-8") if path.is_file() else f"{name}: this report states no verdicts.")
    return 0

