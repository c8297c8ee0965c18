"""``workbench report toy``: the coin race's report (the model's ``report = "…report:build_report"``).

Copy this file to ``workbench/games/<name>/report.py`` when the generic report (core's
``study.generic_report``: outcomes of every declared agent against random) is not enough; a game
that declares no ``report`` gets that one.  A report is a :class:`~workbench.core.present.report.Report`:
sections of Markdown, tables (every rate with its n and 95 % interval) and altair charts, written
atomically by ``rep.write(out_dir)`` as offline HTML, Markdown, CSV and Parquet.  Build each section
from the game's declared studies, so the report, the CLI and the studio show the same tables.
``build_report(out_dir, quick=, seed=)`` is what ``workbench report`` calls; ``quick`` keeps it
within seconds (the tests use it).
"""

from __future__ import annotations

from pathlib import Path

from workbench.core.model import get_game
from workbench.core.present.report import Report
from workbench.core.sim.progress import step
from workbench.core.sim.sweep import run_grid
from workbench.core.studies.study import get_study, outcome_sections

LINEUPS = [("random", "random"), ("greedy", "random"), ("random", "greedy")]


def build_report(out_dir: Path, quick: bool = False, seed: int = 0) -> Path:
    """Write the coin race's report into ``out_dir``: its agents' outcomes, then the coin's edge."""
    model = get_game("toy")
    games = 500 if quick else 5000
    rep = Report(f"{model.title}: outcomes of its agents, and the coin's edge", {
        "rules_version": model.rules_version, "seed": seed, "games": f"{games} per lineup and per edge",
        "agents": "; ".join(" vs ".join(lineup) for lineup in LINEUPS) + "; greedy vs greedy by edge",
        "quick": quick}, game=model.name)
    with step(f"toy report 1/2: {games:,} games per lineup"):
        agents_section(rep, games, seed)
    with step(f"toy report 2/2: {games:,} games per edge"):
        edge_section(rep, games, seed)
    return rep.write(out_dir)


def agents_section(rep: Report, games: int, seed: int) -> None:
    """Seat win rates, first mover and game length for each lineup: core's outcome sections."""
    frame = run_grid("toy", None, games, lineups=LINEUPS, seed=seed, progress=False)
    outcome_sections(rep, frame, games)


def edge_section(rep: Report, games: int, seed: int) -> None:
    """The game's own section: its declared ``edge`` study, table and chart as the studio shows them."""
    study = get_study("toy", "edge")
    tables = study.execute("toy", {"games": games}, seed=seed)
    rep.section("The coin's edge", (
        f"Two greedy players (risky when behind, safe otherwise), {games} games per edge on the same seeds. "
        "With no edge a risky move never scores, so the player behind never catches up and the first mover "
        "always wins; with a sure coin the second player overtakes at once, and the first mover, behind, "
        "wins it back on the third turn."))
    rep.table("edge_first_mover", tables["first_mover"], "First mover's win rate per edge (95 % interval, n).")
    rep.chart("edge_first_mover_chart", study.make_charts(tables)["first_mover"])
